/* test_refine.c - slices and channels (core/refine.c). A refined plan must compute exactly
 * what its unrefined plan computes, bit for bit, for every collective and algorithm,
 * W = 1..16, uneven counts, every op, run step by step (trace) and by dependencies alone in
 * many interleavings (exec_plan_deps, what the CPU rank threads do). The dependencies are
 * also checked directly: every pair of transfers that touch the same elements (one writing)
 * is ordered by them (vector clocks), and slice k of a ring's step waits for slice k of
 * the previous step only. Plus the slice view's ticks (fill and drain of a chain) and the
 * errors. Inputs are random non-integers, so a changed reduction order would show. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec.h"
#include "core/plan.h"
#include "core/slice_timeline.h"
#include "core/trace.h"
#include "core/util.h"

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Values whose sums and products round: order of operations shows in the last bits. */
static float rand_value(uint64_t *s, enum redop op)
{
    double u = (double)(rng_next(s) >> 11) / (double)(1ULL << 53);
    if (op == OP_PROD) return (float)(0.75 + 0.5 * u);
    return (float)(2.0 * u - 1.0) * 3.14159f;
}

struct io {
    float *send[CV_MAX_RANKS];
    float *out[CV_MAX_RANKS];
    float *work[CV_MAX_RANKS];
};

static void io_alloc(struct io *io, const struct plan *p, uint64_t seed)
{
    uint64_t s = seed * 2654435761u + 1;
    for (int r = 0; r < p->nranks; r++) {
        size_t n = coll_send_count(p->coll, p->nranks, p->count, r, p->root);
        io->send[r] = xcalloc(n + 1, sizeof(float));
        for (size_t i = 0; i < n; i++)
            io->send[r][i] = rand_value(&s, p->op);
        io->out[r] = xcalloc(coll_recv_count(p->coll, p->nranks, p->count, r, p->root) + 1,
                             sizeof(float));
        io->work[r] = xcalloc(p->work_len + 1, sizeof(float));
    }
}

static void io_free(struct io *io, int W)
{
    for (int r = 0; r < W; r++) {
        free(io->send[r]);
        free(io->out[r]);
        free(io->work[r]);
    }
}

/* Run p step by step (the trace executor) into out. */
static void run_trace(const struct plan *p, struct io *io, float **out)
{
    struct trace t;
    assert_int_equal(trace_run(&t, p, io->send, NULL, 0), CV_OK);
    for (int r = 0; r < p->nranks; r++)
        trace_output(&t, r, out[r]);
    trace_free(&t);
}

/* Run p by its dependencies (one interleaving drawn from seed) into io->out. */
static void run_deps(const struct plan *p, struct io *io, uint64_t seed)
{
    int W = p->nranks;
    for (int r = 0; r < W; r++) {
        memset(io->work[r], 0, p->work_len * sizeof(float));
        size_t n = coll_send_count(p->coll, W, p->count, r, p->root);
        memcpy(io->work[r] + coll_in_off(p->coll, W, p->count, r), io->send[r],
               n * sizeof(float));
    }
    assert_int_equal(exec_plan_deps(p, io->work, seed), CV_OK);
    for (int r = 0; r < W; r++)
        memcpy(io->out[r], io->work[r] + coll_out_off(p->coll, W, p->count, r),
               coll_recv_count(p->coll, W, p->count, r, p->root) * sizeof(float));
}

static void expect_same(const struct plan *p, float *const *want, float *const *got,
                        const char *how, int slices, int channels)
{
    for (int r = 0; r < p->nranks; r++) {
        size_t n = coll_recv_count(p->coll, p->nranks, p->count, r, p->root);
        if (n && memcmp(want[r], got[r], n * sizeof(float)) != 0) {
            size_t j = 0;
            while (memcmp(&want[r][j], &got[r][j], sizeof(float)) == 0)
                j++;
            fail_msg("%s/%s W=%d count=%zu op=%s root=%d slices=%d channels=%d (%s): rank %d "
                     "element %zu is %.9g, unrefined %.9g",
                     coll_name(p->coll), algo_name(p->algo), p->nranks, p->count,
                     redop_name(p->op), p->root, slices, channels, how, r, j, got[r][j],
                     want[r][j]);
        }
    }
}

/* One case: unrefined trace vs refined trace vs refined by dependencies (3 interleavings
 * and round robin). */
static void check_case(enum coll c, enum algo a, enum redop op, int W, size_t count, int root,
                       int slices, int channels)
{
    struct plan p, q;
    assert_int_equal(plan_build(&p, c, a, op, W, count, root, NULL, 0), CV_OK);
    char err[160];
    int rc = plan_refine(&p, slices, channels, &q, err, sizeof err);
    if (rc != CV_OK) fail_msg("plan_refine: %s", err);
    assert_int_equal(q.nsteps, p.nsteps);
    struct io io;
    io_alloc(&io, &p, (uint64_t)(W * 1000 + count));
    float *want[CV_MAX_RANKS];
    for (int r = 0; r < W; r++)
        want[r] = xcalloc(coll_recv_count(c, W, count, r, p.root) + 1, sizeof(float));
    run_trace(&p, &io, want);
    run_trace(&q, &io, io.out);
    expect_same(&p, want, io.out, "trace", slices, channels);
    for (uint64_t seed = 0; seed < 4; seed++) {
        run_deps(&q, &io, seed * 7919);
        expect_same(&p, want, io.out, "dependencies", slices, channels);
    }
    for (int r = 0; r < W; r++)
        free(want[r]);
    io_free(&io, W);
    plan_free(&q);
    plan_free(&p);
}

static void test_refined_equals_unrefined_everywhere(void **state)
{
    (void)state;
    static const int sc[][2] = {{1, 1}, {2, 1}, {3, 2}, {1, 3}, {5, 2}};
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            for (int W = 1; W <= CV_MAX_RANKS; W++)
                for (int op = 0; op < OP_COUNT; op++) {
                    if (!coll_reduces((enum coll)c) && op != OP_SUM) continue;
                    for (size_t k = 0; k < ARRAY_LEN(sc); k++) {
                        int N = sc[k][0], C = sc[k][1];
                        /* Uneven: not a multiple of W*C*N, and one smaller than the pieces. */
                        size_t counts[] = {(size_t)(W * C * N) + 3, 1, 7};
                        for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++)
                            check_case((enum coll)c, (enum algo)a, (enum redop)op, W,
                                       counts[ci], coll_is_rooted((enum coll)c) ? W / 2 : 0, N,
                                       C);
                    }
                }
        }
}

static bool overlap(size_t a, size_t an, size_t b, size_t bn)
{
    return a < b + bn && b < a + an;
}

/* Does transfer y touch what x writes, or write what x reads? (Same buffer, overlapping.) */
static bool conflict(const struct xfer *x, const struct xfer *y)
{
    bool ww = x->dst == y->dst && overlap(x->dst_off, x->count, y->dst_off, y->count);
    bool wr = x->dst == y->src && overlap(x->dst_off, x->count, y->src_off, y->count);
    bool rw = x->src == y->dst && overlap(x->src_off, x->count, y->dst_off, y->count);
    return ww || wr || rw;
}

/* The dependencies order every conflicting pair. done[i][e]: how many of rank e's
 * transfers are certain to have run before transfer i starts (its own earlier ones, and
 * through its dependencies, transitively). */
static void check_deps_sound(const struct plan *p)
{
    int W = p->nranks;
    size_t nx = p->nx;
    size_t *done = xcalloc(nx * (size_t)W + 1, sizeof *done);
    size_t prev[CV_MAX_RANKS];
    for (int r = 0; r < W; r++)
        prev[r] = SIZE_MAX;
    size_t seen[CV_MAX_RANKS] = {0};
    for (size_t k = 0; k < nx; k++) {
        size_t i = p->order[k];
        const struct xfer *x = &p->x[i];
        assert_int_equal(x->seq, seen[x->by]++);
        size_t *d = done + i * W;
        if (prev[x->by] != SIZE_MAX) {
            memcpy(d, done + prev[x->by] * W, (size_t)W * sizeof *d);
            d[x->by] = p->x[prev[x->by]].seq + 1;
        }
        for (size_t e = p->dep_first[i]; e < p->dep_first[i + 1]; e++) {
            size_t j = p->dep[e];
            assert_true(j < i);
            const struct xfer *y = &p->x[j];
            if (y->by == x->by) {
                assert_true(y->seq < x->seq); /* own order already covers it */
                continue;
            }
            for (int r = 0; r < W; r++)
                if (done[j * W + r] > d[r]) d[r] = done[j * W + r];
            if (y->seq + 1 > d[y->by]) d[y->by] = y->seq + 1;
        }
        prev[x->by] = i;
    }
    for (size_t j = 0; j < nx; j++)
        for (size_t i = j + 1; i < nx; i++) {
            const struct xfer *a = &p->x[j], *b = &p->x[i];
            if (!conflict(a, b) && !conflict(b, a)) continue;
            if (a->by == b->by) {
                if (a->seq >= b->seq)
                    fail_msg("%s/%s W=%d: xfer %zu runs after %zu on rank %d",
                             coll_name(p->coll), algo_name(p->algo), W, j, i, a->by);
            } else if (done[i * W + a->by] < a->seq + 1) {
                fail_msg("%s/%s W=%d count=%zu slices=%d channels=%d: xfer %zu (rank %d) may "
                         "run before xfer %zu (rank %d) that it conflicts with",
                         coll_name(p->coll), algo_name(p->algo), W, p->count, p->nslices,
                         p->nchannels, i, b->by, j, a->by);
            }
        }
    free(done);
}

static void test_dependencies_order_every_conflict(void **state)
{
    (void)state;
    static const int sc[][2] = {{1, 1}, {3, 1}, {2, 2}};
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            for (int W = 1; W <= 6; W++)
                for (size_t k = 0; k < ARRAY_LEN(sc); k++) {
                    size_t counts[] = {(size_t)(W * sc[k][0] * sc[k][1]) + 2, 5};
                    for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
                        struct plan p, q;
                        assert_int_equal(plan_build(&p, (enum coll)c, (enum algo)a, OP_AVG, W,
                                                    counts[ci], W - 1, NULL, 0),
                                         CV_OK);
                        assert_int_equal(plan_refine(&p, sc[k][0], sc[k][1], &q, NULL, 0),
                                         CV_OK);
                        check_deps_sound(&q);
                        plan_free(&q);
                        plan_free(&p);
                    }
                }
        }
}

/* Which step a transfer belongs to. */
static size_t step_of(const struct plan *p, size_t i)
{
    for (size_t s = 0; s < p->nsteps; s++)
        if (i < p->steps[s].first + p->steps[s].n) return s;
    return SIZE_MAX;
}

/* Ring all-reduce, 4 ranks, 4 slices: slice k of step s waits only for slice k, never for a
 * whole step. From other ranks exactly: the sender's slice k of step s-1 (it wrote what is
 * read), and in the all-gather half also rank r+1's slice k of reduce-scatter step
 * s-(W-1), which read this very range of rank r before the all-gather overwrites it. */
static void test_ring_slice_waits_for_same_slice_of_previous_step(void **state)
{
    (void)state;
    struct plan p, q;
    assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 64, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(plan_refine(&p, 4, 1, &q, NULL, 0), CV_OK);
    assert_int_equal(q.nx, 6 * 4 * 4);
    for (size_t i = 0; i < q.nx; i++) {
        const struct xfer *x = &q.x[i];
        size_t s = step_of(&q, i);
        size_t nraw = 0, nwar = 0;
        for (size_t d = q.dep_first[i]; d < q.dep_first[i + 1]; d++) {
            const struct xfer *y = &q.x[q.dep[d]];
            assert_int_equal(y->slice, x->slice);
            if (y->by == x->by) continue;
            if (y->by == x->src) { /* the sender wrote it */
                assert_int_equal(step_of(&q, q.dep[d]), s - 1);
                nraw++;
            } else {
                assert_int_equal(y->by, (x->dst + 1) % 4);
                assert_int_equal(step_of(&q, q.dep[d]), s - 3);
                nwar++;
            }
        }
        assert_int_equal(nraw, s == 0 ? 0 : 1);
        assert_int_equal(nwar, s >= 3 ? 1 : 0);
        /* Every rank's first transfer of every step of slice 0 runs before any slice 1. */
        assert_int_equal(x->seq, (size_t)x->slice * 6 + s);
    }
    plan_free(&q);
    plan_free(&p);
}

/* The owner all-reduce needs nothing from any other rank: no cross-rank dependency, and
 * each rank runs slice k through reduce and write-out before reading slice k+1. */
static void test_owner_has_no_cross_rank_dependencies(void **state)
{
    (void)state;
    for (int W = 2; W <= 16; W++) {
        struct plan p, q;
        assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_OWNER, OP_AVG, W,
                                    (size_t)W * 40 + 3, 0, NULL, 0),
                         CV_OK);
        assert_int_equal(plan_refine(&p, 8, 1, &q, NULL, 0), CV_OK);
        for (size_t i = 0; i < q.nx; i++) {
            for (size_t d = q.dep_first[i]; d < q.dep_first[i + 1]; d++)
                assert_int_equal(q.x[q.dep[d]].by, q.x[i].by);
            assert_int_equal(q.x[i].by, q.x[i].chunk); /* rank r handles chunk r */
        }
        /* Rank 0's order: for each slice, W-1 reductions, the division, W-1 writes. */
        size_t k = 0;
        for (size_t o = 0; o < q.nx; o++) {
            const struct xfer *x = &q.x[q.order[o]];
            if (x->by != 0) continue;
            size_t per = 2 * (size_t)(W - 1) + 1, at = k % per;
            assert_int_equal(x->slice, (int)(k / per));
            assert_int_equal(x->kind, at < (size_t)(W - 1)    ? XFER_REDUCE
                                      : at == (size_t)(W - 1) ? XFER_SCALE
                                                              : XFER_COPY);
            k++;
        }
        assert_int_equal(k, 8 * (2 * (size_t)(W - 1) + 1));
        plan_free(&q);
        plan_free(&p);
    }
}

/* The direct reduce's steps are shared (issue 17: the root alone did all the reductions, on
 * one core): refined, piece j of every transfer is run by rank j mod W, a piece's W-1
 * reductions and its division back to back on that rank, and no piece waits for another
 * rank. The CPU backend refines it into at least W pieces once each rank's share is
 * PLAN_SHARE_MIN_COUNT elements; other plans keep their one runner. */
static void test_direct_reduce_is_shared(void **state)
{
    (void)state;
    for (int W = 2; W <= 16; W++) {
        struct plan p, q;
        int root = W / 2;
        assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_DIRECT, OP_AVG, W, (size_t)W * 40 + 3,
                                    root, NULL, 0),
                         CV_OK);
        int slices = 3, channels = 2, pieces = slices * channels;
        assert_int_equal(plan_refine(&p, slices, channels, &q, NULL, 0), CV_OK);
        int runs[CV_MAX_RANKS] = {0};
        for (size_t i = 0; i < q.nx; i++) {
            const struct xfer *x = &q.x[i];
            int j = x->channel * slices + x->slice;
            assert_int_equal(x->by, j % W);
            assert_int_equal(x->dst, root);
            runs[x->by]++;
            for (size_t d = q.dep_first[i]; d < q.dep_first[i + 1]; d++)
                assert_int_equal(q.x[q.dep[d]].by, x->by);
        }
        for (int r = 0; r < W; r++)
            assert_int_equal(runs[r], r < pieces ? W * ((pieces - r + W - 1) / W) : 0);
        /* Each rank's order: a piece's W-1 reductions back to back (one fused pass), its
         * division after them. */
        for (int r = 0; r < W && r < pieces; r++) {
            size_t run = 0, done[2 * CV_MAX_RANKS], ndone = 0;
            const struct xfer *first = NULL;
            for (size_t o = 0; o < q.nx; o++) {
                const struct xfer *x = &q.x[q.order[o]];
                if (x->by != r) continue;
                if (run > 0) { /* inside a piece's reductions */
                    assert_int_equal(x->kind, XFER_REDUCE);
                    assert_int_equal(x->dst_off, first->dst_off);
                    assert_int_equal(x->count, first->count);
                } else if (x->kind == XFER_REDUCE) {
                    first = x;
                } else {
                    assert_int_equal(x->kind, XFER_SCALE);
                    bool reduced = false;
                    for (size_t d = 0; d < ndone; d++)
                        reduced = reduced || done[d] == x->dst_off;
                    assert_true(reduced);
                    continue;
                }
                if (++run == (size_t)(W - 1)) {
                    done[ndone++] = first->dst_off;
                    run = 0;
                }
            }
            assert_int_equal(run, 0);
        }
        plan_free(&q);
        /* one piece: the root runs it, as unrefined (trace --slices 1 said "run by 0") */
        assert_int_equal(plan_refine(&p, 1, 1, &q, NULL, 0), CV_OK);
        for (size_t i = 0; i < q.nx; i++)
            assert_int_equal(q.x[i].by, root);
        plan_free(&q);
        /* The CPU backend's least number of pieces. */
        assert_int_equal(plan_min_pieces(&p), 1); /* 40 elements a rank: not worth it */
        plan_free(&p);
        size_t big = (size_t)W * PLAN_SHARE_MIN_COUNT;
        assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_DIRECT, OP_SUM, W, big, 0, NULL, 0),
                         CV_OK);
        assert_int_equal(plan_min_pieces(&p), W);
        plan_free(&p);
        assert_int_equal(
            plan_build(&p, COLL_REDUCE, ALGO_DIRECT, OP_SUM, W, big - 1, 0, NULL, 0), CV_OK);
        assert_int_equal(plan_min_pieces(&p), 1);
        plan_free(&p);
        assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_RING, OP_SUM, W, big, 0, NULL, 0),
                         CV_OK);
        assert_int_equal(plan_min_pieces(&p), 1);
        plan_free(&p);
    }
}

/* The default slicing (plan_auto_slices, the one rule of the run layer and the CPU
 * communicator): the largest transfer in slice_bytes pieces, whole chunks for 0, never
 * under `least`, within PLAN_AUTO_MAX_XFERS transfers. */
static void test_auto_slices(void **state)
{
    (void)state;
    struct plan p;
    /* ring all-reduce, 4 ranks, 4 Mi floats: chunks of 1 Mi floats = 4 MiB */
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, (size_t)4 << 20, 0, NULL, 0),
        CV_OK);
    assert_int_equal(plan_auto_slices(&p, (size_t)64 << 10, 1), 64);
    assert_int_equal(plan_auto_slices(&p, (size_t)3 << 20, 1), 2); /* 4 MiB in 3 MiB pieces */
    assert_int_equal(plan_auto_slices(&p, 0, 1), 1);
    assert_int_equal(plan_auto_slices(&p, 0, 4), 4);
    assert_int_equal(plan_auto_slices(&p, (size_t)64 << 10, 100), 100);
    assert_int_equal(plan_auto_slices(&p, 1, 1), (int)(PLAN_AUTO_MAX_XFERS / p.nx));
    plan_free(&p);
}

/* The slice view's ticks: a broadcast chain of W ranks moving N*W slices (W chunks of N
 * slices) takes N*W ticks on each link plus W-2 to fill: fill + S/beta, where the chunk
 * view takes 2W-2 chunk steps. Every tick, a link carries at most one slice. */
static void test_chain_ticks_fill_and_drain(void **state)
{
    (void)state;
    for (int W = 2; W <= 8; W++)
        for (int N = 1; N <= 5; N++) {
            struct plan p, q;
            assert_int_equal(plan_build(&p, COLL_BROADCAST, ALGO_RING, OP_SUM, W,
                                        (size_t)(W * N) * 3, 0, NULL, 0),
                             CV_OK);
            assert_int_equal(plan_refine(&p, N, 1, &q, NULL, 0), CV_OK);
            assert_int_equal(q.nticks, N * W + W - 2);
            for (size_t i = 0; i < q.nx; i++)
                for (size_t j = i + 1; j < q.nx; j++)
                    if (q.x[i].src == q.x[j].src && q.x[i].dst == q.x[j].dst)
                        assert_int_not_equal(q.x[i].tick, q.x[j].tick);
            /* The first slice reaches the last rank at tick W-2 (fill). */
            int first_at_end = -1;
            for (size_t i = 0; i < q.nx; i++)
                if (q.x[i].dst == W - 1 && (first_at_end < 0 || q.x[i].tick < first_at_end))
                    first_at_end = q.x[i].tick;
            assert_int_equal(first_at_end, W - 2);
            /* The picture: W-1 links; the pipeline fills for W-2 ticks (tick t has t+1
             * links busy) and drains as long; the first slice on the first link is chunk
             * 0, slice 0. */
            struct slice_tl t;
            assert_int_equal(slice_tl_build(&t, &q, NULL, 0), CV_OK);
            assert_int_equal(t.nlinks, W - 1);
            assert_int_equal(t.nticks, q.nticks);
            assert_int_equal(t.fill, W - 2);
            assert_int_equal(t.drain, W - 2);
            int total = 0;
            for (int k = 0; k < t.nticks; k++) {
                total += t.busy[k];
                if (k < W - 2) assert_int_equal(t.busy[k], k + 1);
            }
            assert_int_equal(total, (int)q.nx);
            assert_int_equal(t.links[0].src, 0);
            assert_int_equal(t.links[0].dst, 1);
            char cell[16];
            slice_tl_label(&q, t.cells[0].x, cell, sizeof cell);
            assert_string_equal(cell, "0.0");
            slice_tl_free(&t);
            plan_free(&q);
            plan_free(&p);
        }
}

/* Reductions one rank folds into one range back to back share a tick (they arrive on their
 * own links and are folded in one pass): a direct reduce-scatter is one tick, a tree
 * reduce one tick per level. */
static void test_fused_reductions_share_a_tick(void **state)
{
    (void)state;
    struct plan p, q;
    assert_int_equal(plan_build(&p, COLL_REDUCE_SCATTER, ALGO_DIRECT, OP_SUM, 4, 3, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(plan_refine(&p, 1, 1, &q, NULL, 0), CV_OK);
    assert_int_equal(q.nticks, 1);
    plan_free(&q);
    assert_int_equal(plan_refine(&p, 3, 1, &q, NULL, 0), CV_OK);
    assert_int_equal(q.nticks, 3);
    plan_free(&q);
    plan_free(&p);
    assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_TREE, OP_SUM, 7, 5, 0, NULL, 0), CV_OK);
    assert_int_equal(plan_refine(&p, 1, 1, &q, NULL, 0), CV_OK);
    assert_int_equal(q.nticks, 2);
    plan_free(&q);
    plan_free(&p);
}

static void test_pieces_and_channels(void **state)
{
    (void)state;
    /* count 10 on 2 ranks: chunks of 5; 2 channels of 3 and 2, 2 slices each:
     * 2+1 | 1+1 elements. */
    struct plan p, q;
    assert_int_equal(plan_build(&p, COLL_ALL_GATHER, ALGO_DIRECT, OP_SUM, 2, 5, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(plan_refine(&p, 2, 2, &q, NULL, 0), CV_OK);
    assert_int_equal(q.nx, 2 * 4);
    static const size_t off[] = {0, 2, 3, 4}, cnt[] = {2, 1, 1, 1};
    static const int ch[] = {0, 0, 1, 1}, sl[] = {0, 1, 0, 1};
    for (int k = 0; k < 4; k++) {
        /* Within the step: channel, then slice, then the original order (rank 0 -> 1, then
         * rank 1 -> 0). */
        const struct xfer *a = &q.x[2 * k], *b = &q.x[2 * k + 1];
        assert_int_equal(a->src, 0);
        assert_int_equal(b->src, 1);
        assert_int_equal(a->src_off, off[k]);
        assert_int_equal(b->src_off, 5 + off[k]);
        assert_int_equal(a->count, cnt[k]);
        assert_int_equal(a->channel, ch[k]);
        assert_int_equal(a->slice, sl[k]);
    }
    assert_int_equal(q.nslices, 2);
    assert_int_equal(q.nchannels, 2);
    plan_free(&q);
    plan_free(&p);
}

static void test_refine_errors(void **state)
{
    (void)state;
    struct plan p, q;
    char err[200];
    assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 100, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(plan_refine(&p, 0, 1, &q, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "slices 0: must be 1..65536");
    assert_int_equal(plan_refine(&p, 1, 65, &q, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "channels 65: must be 1..64");
    plan_free(&p);
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_DIRECT, OP_SUM, 16, 1u << 24, 0, NULL, 0), CV_OK);
    assert_int_equal(plan_refine(&p, 65536, 1, &q, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "more than the 1048576 a plan may have"));
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refined_equals_unrefined_everywhere),
        cmocka_unit_test(test_dependencies_order_every_conflict),
        cmocka_unit_test(test_ring_slice_waits_for_same_slice_of_previous_step),
        cmocka_unit_test(test_owner_has_no_cross_rank_dependencies),
        cmocka_unit_test(test_chain_ticks_fill_and_drain),
        cmocka_unit_test(test_fused_reductions_share_a_tick),
        cmocka_unit_test(test_direct_reduce_is_shared),
        cmocka_unit_test(test_auto_slices),
        cmocka_unit_test(test_pieces_and_channels),
        cmocka_unit_test(test_refine_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
