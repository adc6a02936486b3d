/* test_trace.c - what the plans compute. Every collective with every algorithm, W = 1..8
 * (and a few at 16), many counts, ops and roots: the trace's output must equal the plain
 * reference (ref_compute), exactly for integer inputs. Also the lecture's demo values,
 * snapshots and masks, the closed-form pattern_expected, the input generators, the
 * trace size limit, and exec_step_rank's tiled reductions against a naive loop (bitwise). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec.h"
#include "core/init.h"
#include "core/plan.h"
#include "core/trace.h"
#include "core/util.h"

#include "../oracle/coll_answers.h"

/* Buffers for one case: send/recv per rank, sized for the largest case (W*count). */
struct bufs {
    float *send[CV_MAX_RANKS], *ref[CV_MAX_RANKS], *out[CV_MAX_RANKS];
};

static void bufs_alloc(struct bufs *b, size_t n)
{
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        b->send[r] = xcalloc(n, sizeof(float));
        b->ref[r] = xcalloc(n, sizeof(float));
        b->out[r] = xcalloc(n, sizeof(float));
    }
}

static void bufs_free(struct bufs *b)
{
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        free(b->send[r]);
        free(b->ref[r]);
        free(b->out[r]);
    }
}

/* The ranks whose input element j of rank's receive buffer must contain: the collective's
 * definition in tests/oracle/coll_answers.h (a collective without one fails). */
static uint32_t expected_mask(enum coll c, int W, size_t count, int root, int rank, size_t j)
{
    const struct coll_answer *a = coll_answer(c);
    if (!a) fail_msg("%s has no entry in tests/oracle/coll_answers.h", coll_name(c));
    size_t at;
    return a->source(W, count, root, rank, j, &at);
}

/* Trace the plan on b->send, compare the output with ref_compute (exactly, or with a
 * relative tolerance for products of arbitrary integers, which round: two orders of W-1
 * multiplications differ by at most 2(W-1) * 2^-24 < W * FLT_EPSILON) and the masks with
 * the definition. */
static void check_case(const struct plan *p, struct bufs *b, double rtol, const char *tag)
{
    int W = p->nranks;
    struct trace t;
    char err[200];
    if (trace_run(&t, p, b->send, err, sizeof err) != CV_OK)
        fail_msg("%s: trace_run: %s", tag, err);
    ref_compute(p->coll, p->op, W, p->count, p->root, b->send, b->ref);
    for (int r = 0; r < W; r++) {
        size_t n = coll_recv_count(p->coll, W, p->count, r, p->root);
        trace_output(&t, r, b->out[r]);
        const uint32_t *m =
            trace_mask(&t, t.nsnap - 1, r) + coll_out_off(p->coll, W, p->count, r);
        for (size_t j = 0; j < n; j++) {
            float got = b->out[r][j], want = b->ref[r][j];
            bool ok = rtol == 0 ? memcmp(&got, &want, sizeof got) == 0
                                : fabs((double)got - want) <= rtol * fabs((double)want);
            if (!ok)
                fail_msg("%s: rank %d element %zu: trace %.9g, reference %.9g", tag, r, j, got,
                         want);
            uint32_t em = expected_mask(p->coll, W, p->count, p->root, r, j);
            if (m[j] != em)
                fail_msg("%s: rank %d element %zu: mask %#x, expected %#x", tag, r, j, m[j],
                         em);
        }
    }
    trace_free(&t);
}

static void fill_all(enum init_kind k, const struct plan *p, uint64_t seed, struct bufs *b)
{
    for (int r = 0; r < p->nranks; r++)
        init_fill(k, p->coll, p->nranks, p->count, p->root, seed, r, b->send[r]);
}

/* Exact inputs for prod: powers of two with random signs, so any order gives the same
 * product. */
static void fill_prod_exact(const struct plan *p, uint64_t seed, struct bufs *b)
{
    fill_all(INIT_RANDOM, p, seed, b);
    for (int r = 0; r < p->nranks; r++) {
        size_t n = coll_send_count(p->coll, p->nranks, p->count, r, p->root);
        for (size_t i = 0; i < n; i++) {
            float v = pattern_value(OP_PROD, r, i);
            b->send[r][i] = b->send[r][i] < 0 ? -v : v;
        }
    }
}

static void test_every_collective_matches_reference(void **state)
{
    (void)state;
    struct bufs b;
    bufs_alloc(&b, 8 * 19);
    size_t ncases = 0;
    uint64_t seed = 1;
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            for (int W = 1; W <= 8; W++) {
                size_t counts[] = {
                    1, 2, 3, (size_t)W - 1, (size_t)W, (size_t)W + 1, 2 * (size_t)W + 3, 17};
                int roots[] = {0, W - 1, W / 2};
                int nroots = coll_is_rooted((enum coll)c) ? 3 : 1;
                for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
                    if (counts[ci] == 0) continue;
                    for (int op = 0; op < OP_COUNT; op++)
                        for (int ri = 0; ri < nroots; ri++) {
                            struct plan p;
                            assert_int_equal(plan_build(&p, (enum coll)c, (enum algo)a,
                                                        (enum redop)op, W, counts[ci],
                                                        roots[ri], NULL, 0),
                                             CV_OK);
                            char tag[120];
                            snprintf(tag, sizeof tag, "%s/%s W=%d count=%zu op=%s root=%d",
                                     coll_name(p.coll), algo_name(p.algo), W, p.count,
                                     redop_name(p.op), p.root);
                            if (op == OP_PROD) {
                                fill_prod_exact(&p, seed++, &b);
                                check_case(&p, &b, 0, tag);
                                /* Arbitrary integers: products round, in any order. */
                                fill_all(INIT_RANDOM, &p, seed++, &b);
                                check_case(&p, &b, W * (double)FLT_EPSILON, tag);
                            } else {
                                fill_all(INIT_RANDOM, &p, seed++, &b);
                                check_case(&p, &b, 0, tag);
                                fill_all(INIT_SEQ, &p, 0, &b);
                                check_case(&p, &b, 0, tag);
                            }
                            plan_free(&p);
                            ncases++;
                        }
                }
            }
        }
    assert_true(ncases > 5000);
    bufs_free(&b);
}

static void test_sixteen_ranks(void **state)
{
    (void)state;
    struct bufs b;
    bufs_alloc(&b, 16 * 33);
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            size_t counts[] = {1, 16, 33};
            for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
                enum redop ops[] = {OP_SUM, OP_AVG, OP_MAX};
                for (size_t oi = 0; oi < ARRAY_LEN(ops); oi++) {
                    struct plan p;
                    assert_int_equal(plan_build(&p, (enum coll)c, (enum algo)a, ops[oi], 16,
                                                counts[ci], 11, NULL, 0),
                                     CV_OK);
                    fill_all(INIT_RANDOM, &p, 77 + ci, &b);
                    check_case(&p, &b, 0, coll_name(p.coll));
                    plan_free(&p);
                }
            }
        }
    bufs_free(&b);
}

/* Run a collective at the lecture's defaults (W=4, default count, root 0) with every
 * algorithm it has and return the output of `rank` in out (n elements expected). */
static void lecture_output(enum coll c, int rank, const float *want, size_t n)
{
    int W = 4;
    size_t count = coll_default_count(c, W);
    for (int a = 0; a < ALGO_COUNT; a++) {
        if (!algo_supported(c, (enum algo)a)) continue;
        struct plan p;
        assert_int_equal(plan_build(&p, c, (enum algo)a, OP_SUM, W, count, 0, NULL, 0), CV_OK);
        float *send[4], out[64];
        for (int r = 0; r < W; r++) {
            send[r] = xcalloc(64, sizeof(float));
            init_fill(INIT_LECTURE, c, W, count, 0, 1, r, send[r]);
        }
        struct trace t;
        assert_int_equal(trace_run(&t, &p, send, NULL, 0), CV_OK);
        assert_int_equal(coll_recv_count(c, W, count, rank, 0), n);
        trace_output(&t, rank, out);
        for (size_t j = 0; j < n; j++)
            if (out[j] != want[j])
                fail_msg("%s/%s rank %d [%zu] = %g, want %g", coll_name(c),
                         algo_name((enum algo)a), rank, j, out[j], want[j]);
        trace_free(&t);
        plan_free(&p);
        for (int r = 0; r < W; r++)
            free(send[r]);
    }
}

static void test_lecture_values(void **state)
{
    (void)state;
    const float bc[] = {0, 1, 2, 3};
    const float ar[] = {6, 10, 14, 18};
    for (int r = 0; r < 4; r++) {
        lecture_output(COLL_BROADCAST, r, bc, 4);
        float s = (float)r;
        lecture_output(COLL_SCATTER, r, &s, 1);
        lecture_output(COLL_ALL_GATHER, r, bc, 4);
        lecture_output(COLL_REDUCE_SCATTER, r, &ar[r], 1);
        lecture_output(COLL_ALL_REDUCE, r, ar, 4);
        const float col[] = {(float)r, (float)r + 4, (float)r + 8, (float)r + 12};
        lecture_output(COLL_ALL_TO_ALL, r, col, 4);
    }
    const float six = 6;
    lecture_output(COLL_REDUCE, 0, &six, 1);
    lecture_output(COLL_REDUCE, 1, NULL, 0);
    lecture_output(COLL_GATHER, 0, bc, 4);
    lecture_output(COLL_GATHER, 2, NULL, 0);
}

/* Snapshots 0 and 1 of the lecture's ring all-reduce, element by element. */
static void test_ring_snapshots(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 4, 0, NULL, 0),
                     CV_OK);
    float *send[4];
    for (int r = 0; r < 4; r++) {
        send[r] = xcalloc(4, sizeof(float));
        init_fill(INIT_LECTURE, COLL_ALL_REDUCE, 4, 4, 0, 1, r, send[r]);
    }
    struct trace t;
    assert_int_equal(trace_run(&t, &p, send, NULL, 0), CV_OK);
    assert_int_equal(t.nsnap, 7);
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 4; j++) {
            assert_true(trace_buf(&t, 0, r)[j] == (float)(r + j));
            assert_int_equal(trace_mask(&t, 0, r)[j], 1u << r);
        }
    /* Step 1: rank r+1 added rank r's chunk (r-1) mod 4. Rank 1 got chunk 3 from rank 0. */
    const float r1[] = {1, 2, 3, 4 + 3};
    const uint32_t m1[] = {2, 2, 2, 3};
    const float r0[] = {0, 1, 2 + 5, 3};
    const uint32_t m0[] = {1, 1, 9, 1};
    for (int j = 0; j < 4; j++) {
        assert_true(trace_buf(&t, 1, 1)[j] == r1[j]);
        assert_int_equal(trace_mask(&t, 1, 1)[j], m1[j]);
        assert_true(trace_buf(&t, 1, 0)[j] == r0[j]);
        assert_int_equal(trace_mask(&t, 1, 0)[j], m0[j]);
    }
    /* After the reduce-scatter (snapshot 3) rank r holds chunk r complete. */
    for (int r = 0; r < 4; r++) {
        assert_true(trace_buf(&t, 3, r)[r] == (float)(6 + 4 * r));
        assert_int_equal(trace_mask(&t, 3, r)[r], 0xf);
    }
    trace_free(&t);
    plan_free(&p);
    for (int r = 0; r < 4; r++)
        free(send[r]);
}

/* Before a broadcast only the root holds data: the others' elements are empty (mask 0). */
static void test_empty_elements(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(plan_build(&p, COLL_BROADCAST, ALGO_TREE, OP_SUM, 4, 3, 2, NULL, 0),
                     CV_OK);
    float root_in[3] = {7, 8, 9}, none[1] = {0};
    float *send[4] = {none, none, root_in, none};
    struct trace t;
    assert_int_equal(trace_run(&t, &p, send, NULL, 0), CV_OK);
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 3; j++)
            assert_int_equal(trace_mask(&t, 0, r)[j], r == 2 ? 4u : 0u);
    /* Step 1: root 2 copies to relative 1 and 2 = ranks 3 and 0; rank 1 is still empty. */
    assert_int_equal(trace_mask(&t, 1, 3)[0], 4);
    assert_int_equal(trace_mask(&t, 1, 0)[2], 4);
    assert_int_equal(trace_mask(&t, 1, 1)[1], 0);
    assert_true(trace_buf(&t, 1, 0)[2] == 9);
    trace_free(&t);
    plan_free(&p);
}

static void test_trace_size_limit(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 16, (size_t)1 << 20, 0, NULL, 0),
        CV_OK);
    struct trace t;
    char err[200] = "";
    assert_int_equal(trace_run(&t, &p, NULL, err, sizeof err), CV_ENOMEM);
    assert_non_null(strstr(err, "over the limit"));
    assert_null(t.val);
    plan_free(&p);
}

/* pattern_expected is the closed form of ref_compute on pattern_value inputs. */
static void test_pattern_expected(void **state)
{
    (void)state;
    struct bufs b;
    bufs_alloc(&b, 16 * 5);
    int Ws[] = {1, 2, 3, 4, 7, 16};
    for (size_t wi = 0; wi < ARRAY_LEN(Ws); wi++)
        for (int c = 0; c < COLL_COUNT; c++)
            for (int op = 0; op < OP_COUNT; op++) {
                int W = Ws[wi], root = W / 2;
                size_t count = 5;
                for (int r = 0; r < W; r++) {
                    size_t n = coll_send_count((enum coll)c, W, count, r, root);
                    for (size_t i = 0; i < n; i++)
                        b.send[r][i] = pattern_value((enum redop)op, r, i);
                }
                ref_compute((enum coll)c, (enum redop)op, W, count, root, b.send, b.ref);
                for (int r = 0; r < W; r++) {
                    size_t n = coll_recv_count((enum coll)c, W, count, r, root);
                    for (size_t j = 0; j < n; j++) {
                        float e = pattern_expected((enum coll)c, (enum redop)op, W, count, root,
                                                   r, j);
                        if (memcmp(&e, &b.ref[r][j], sizeof e) != 0)
                            fail_msg("%s %s W=%d rank %d [%zu]: %g vs %g",
                                     coll_name((enum coll)c), redop_name((enum redop)op), W, r,
                                     j, e, b.ref[r][j]);
                    }
                }
            }
    /* The values themselves: small integers, powers of two for prod. */
    for (int r = 0; r < 16; r++)
        for (size_t i = 0; i < 50; i++) {
            float v = pattern_value(OP_SUM, r, i);
            assert_true(v == floorf(v) && v >= -5 && v <= 5);
            float q = pattern_value(OP_PROD, r, i);
            assert_true(q == 0.5f || q == 1.0f || q == 2.0f);
        }
    /* avg over 3 ranks divides once: (-5 + -3 + ...) / 3 in float. */
    float s =
        pattern_value(OP_AVG, 0, 1) + pattern_value(OP_AVG, 1, 1) + pattern_value(OP_AVG, 2, 1);
    assert_true(pattern_expected(COLL_ALL_REDUCE, OP_AVG, 3, 4, 0, 2, 1) == s / 3.0f);
    bufs_free(&b);
}

static void test_init_fill(void **state)
{
    (void)state;
    float a[40], b2[40];
    init_fill(INIT_SEQ, COLL_ALL_REDUCE, 4, 5, 0, 1, 3, a);
    for (int i = 0; i < 5; i++)
        assert_true(a[i] == (float)(30 + i));
    init_fill(INIT_RANK, COLL_ALL_GATHER, 4, 5, 0, 1, 2, a);
    for (int i = 0; i < 5; i++)
        assert_true(a[i] == 2.0f);
    /* Random: integers in [-9, 9], same for the same (seed, rank), else different. */
    init_fill(INIT_RANDOM, COLL_ALL_TO_ALL, 4, 10, 0, 5, 1, a);
    init_fill(INIT_RANDOM, COLL_ALL_TO_ALL, 4, 10, 0, 5, 1, b2);
    assert_memory_equal(a, b2, sizeof a);
    int lo = 0, hi = 0;
    for (int i = 0; i < 40; i++) {
        assert_true(a[i] == floorf(a[i]) && a[i] >= -9 && a[i] <= 9);
        lo += a[i] < 0;
        hi += a[i] > 0;
    }
    assert_true(lo > 0 && hi > 0);
    init_fill(INIT_RANDOM, COLL_ALL_TO_ALL, 4, 10, 0, 5, 2, b2);
    assert_true(memcmp(a, b2, sizeof a) != 0);
    init_fill(INIT_RANDOM, COLL_ALL_TO_ALL, 4, 10, 0, 6, 1, b2);
    assert_true(memcmp(a, b2, sizeof a) != 0);
    /* A rank that sends nothing is left alone. */
    a[0] = 42;
    init_fill(INIT_LECTURE, COLL_BROADCAST, 4, 4, 0, 1, 3, a);
    assert_true(a[0] == 42);
    /* Lecture inputs: scatter root holds 0..W*count-1; all-to-all rows of a matrix. */
    init_fill(INIT_LECTURE, COLL_SCATTER, 4, 2, 1, 1, 1, a);
    for (int i = 0; i < 8; i++)
        assert_true(a[i] == (float)i);
    init_fill(INIT_LECTURE, COLL_ALL_TO_ALL, 4, 1, 0, 1, 2, a);
    for (int i = 0; i < 4; i++)
        assert_true(a[i] == (float)(8 + i));
    enum init_kind k;
    assert_int_equal(init_parse("random", &k), 0);
    assert_int_equal(k, INIT_RANDOM);
    assert_int_equal(init_parse("Lecture", &k), 0);
    assert_int_equal(k, INIT_LECTURE);
    assert_int_equal(init_parse("bogus", &k), -1);
    assert_string_equal(init_name(INIT_SEQ), "seq");
}

static float naive_apply(enum redop op, float d, float s)
{
    return redop_apply(op, d, s);
}

/* Run plan p both ways from the same random inputs - naively (one transfer at a time, one
 * element at a time, in plan order) and through exec_step_rank - and require the buffers
 * to be bitwise equal after every step. Random non-integer floats make any reordering of
 * the additions visible in the bits. Sources are never written in the same step (plan.h),
 * so one copy of the buffers serves both. */
static void exec_vs_naive(const struct plan *p, uint64_t *st)
{
    size_t L = p->work_len;
    float *a[CV_MAX_RANKS], *n[CV_MAX_RANKS];
    for (int r = 0; r < p->nranks; r++) {
        a[r] = xmalloc(L * sizeof(float));
        n[r] = xmalloc(L * sizeof(float));
        for (size_t i = 0; i < L; i++) {
            *st = *st * 6364136223846793005ull + 1442695040888963407ull;
            float v = (float)((double)(*st >> 11) / 9007199254740992.0 * 4.0 - 2.0);
            if (p->op == OP_PROD) v = 0.9f + v * 0.05f;
            a[r][i] = n[r][i] = v;
        }
    }
    for (size_t s = 0; s < p->nsteps; s++) {
        for (int r = 0; r < p->nranks; r++) {
            for (size_t i = p->steps[s].first; i < p->steps[s].first + p->steps[s].n; i++) {
                const struct xfer *x = &p->x[i];
                if (x->dst != r) continue;
                float *d = n[r] + x->dst_off;
                const float *src = n[x->src] + x->src_off;
                for (size_t j = 0; j < x->count; j++) {
                    if (x->kind == XFER_COPY)
                        d[j] = src[j];
                    else if (x->kind == XFER_REDUCE)
                        d[j] = naive_apply(p->op, d[j], src[j]);
                    else
                        d[j] = d[j] / (float)p->nranks;
                }
            }
            exec_step_rank(p, s, r, a);
        }
        for (int r = 0; r < p->nranks; r++)
            if (memcmp(a[r], n[r], L * sizeof(float)) != 0)
                fail_msg("%s %s W=%d count=%zu op=%s step %zu rank %d: fused != naive",
                         coll_name(p->coll), algo_name(p->algo), p->nranks, p->count,
                         redop_name(p->op), s, r);
    }
    for (int r = 0; r < p->nranks; r++) {
        free(a[r]);
        free(n[r]);
    }
}

static void test_exec_tiled_equals_naive(void **state)
{
    (void)state;
    struct {
        enum coll c;
        int W;
        size_t count;
        int root;
    } cases[] = {
        {COLL_REDUCE, 8, 5000, 3},         /* 7 reductions into one 5000-element range */
        {COLL_REDUCE_SCATTER, 6, 4099, 0}, /* 5 per destination, 2 tiles + a remainder */
        {COLL_ALL_REDUCE, 5, 10007, 0},    /* direct: balanced chunks of 2002 and 2001 */
        {COLL_REDUCE, 3, 2048 + 17, 1},
    };
    uint64_t st = 12345;
    for (size_t ci = 0; ci < ARRAY_LEN(cases); ci++)
        for (int op = 0; op < OP_COUNT; op++) {
            struct plan p;
            assert_int_equal(plan_build(&p, cases[ci].c, ALGO_DIRECT, (enum redop)op,
                                        cases[ci].W, cases[ci].count, cases[ci].root, NULL, 0),
                             CV_OK);
            exec_vs_naive(&p, &st);
            plan_free(&p);
        }
}

/* The largest run of consecutive reductions into one destination range in any step of p:
 * what exec_step_rank fuses into one pass. */
static int longest_reduce_group(const struct plan *p)
{
    int best = 0;
    for (size_t s = 0; s < p->nsteps; s++)
        for (int r = 0; r < p->nranks; r++) {
            int run = 0;
            const struct xfer *head = NULL;
            for (size_t i = p->steps[s].first; i < p->steps[s].first + p->steps[s].n; i++) {
                const struct xfer *x = &p->x[i];
                if (x->dst != r) continue;
                if (x->kind == XFER_REDUCE && head && x->dst_off == head->dst_off &&
                    x->count == head->count) {
                    run++;
                } else if (x->kind == XFER_REDUCE) {
                    head = x;
                    run = 1;
                } else {
                    head = NULL;
                    run = 0;
                }
                if (run > best) best = run;
            }
        }
    return best;
}

/* The fused kernels for every number of sources a plan can have (1..15: a direct reduce
 * on W = 2..16 ranks folds W-1 sources into the root), every op, and lengths that end
 * mid-block (not a multiple of 16), straddle tiles, or are shorter than one block; the
 * reduce-scatter and all-reduce plans add source and destination offsets that are not
 * multiples of the vector width. */
static void test_exec_fused_sources(void **state)
{
    (void)state;
    const size_t counts[] = {1, 7, 17, 33, 2048 + 5, 3 * 2048 + 13};
    uint64_t st = 777;
    for (int W = 2; W <= CV_MAX_RANKS; W++)
        for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++)
            for (int op = 0; op < OP_COUNT; op++) {
                struct plan p;
                size_t count = counts[ci];
                assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_DIRECT, (enum redop)op, W,
                                            count, W / 2, NULL, 0),
                                 CV_OK);
                /* The test is about W-1 sources in one pass: make sure the plan has them. */
                assert_int_equal(longest_reduce_group(&p), W - 1);
                exec_vs_naive(&p, &st);
                plan_free(&p);
                /* Odd per-rank chunks: offsets like 3*(count/W)+1 inside the buffers. */
                enum coll more[] = {COLL_REDUCE_SCATTER, COLL_ALL_REDUCE};
                for (size_t k = 0; k < ARRAY_LEN(more); k++) {
                    size_t c = more[k] == COLL_REDUCE_SCATTER ? count : count * (size_t)W + 3;
                    assert_int_equal(
                        plan_build(&p, more[k], ALGO_DIRECT, (enum redop)op, W, c, 0, NULL, 0),
                        CV_OK);
                    exec_vs_naive(&p, &st);
                    plan_free(&p);
                }
            }
}

/* Copies of 1 MiB and more stream their stores (exec.c's copy_stream): the same bits as
 * an element loop, from destinations that are not 16-byte aligned and lengths that end
 * mid-vector. */
static void test_exec_streamed_copies(void **state)
{
    (void)state;
    const size_t big = (1u << 20) / sizeof(float) + 5; /* just over 1 MiB */
    struct {
        enum coll c;
        enum algo a;
        int W;
        size_t count;
    } cases[] = {
        {COLL_ALL_GATHER, ALGO_RING, 3, big},       /* piece r at r*count: offsets 1 mod 4 */
        {COLL_ALL_GATHER, ALGO_DIRECT, 2, big + 2}, /* and 3 mod 4 */
        {COLL_BROADCAST, ALGO_DIRECT, 3, big + 1},
        {COLL_ALL_REDUCE, ALGO_RING, 2, 2 * big + 3}, /* the all-gather half copies chunks */
    };
    uint64_t st = 4242;
    for (size_t ci = 0; ci < ARRAY_LEN(cases); ci++) {
        struct plan p;
        assert_int_equal(plan_build(&p, cases[ci].c, cases[ci].a, OP_SUM, cases[ci].W,
                                    cases[ci].count, 0, NULL, 0),
                         CV_OK);
        size_t largest = 0;
        for (size_t i = 0; i < p.nx; i++)
            if (p.x[i].kind == XFER_COPY && p.x[i].count > largest) largest = p.x[i].count;
        assert_true(largest * sizeof(float) >= (1u << 20)); /* the streamed path runs */
        exec_vs_naive(&p, &st);
        plan_free(&p);
    }
}

/* The comparison above can fail: the same seven reductions applied in reverse order give
 * different bits on these inputs, so a tiled pass that reordered them would be caught. */
static void test_order_is_visible(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_DIRECT, OP_SUM, 8, 3000, 0, NULL, 0),
                     CV_OK);
    float *a[8], *rev = xmalloc(3000 * sizeof(float));
    uint64_t st = 99;
    for (int r = 0; r < 8; r++) {
        a[r] = xmalloc(3000 * sizeof(float));
        for (size_t i = 0; i < 3000; i++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            a[r][i] = (float)((double)(st >> 11) / 9007199254740992.0 * 4.0 - 2.0);
        }
    }
    memcpy(rev, a[0], 3000 * sizeof(float));
    for (size_t i = p.nx; i-- > 0;)
        for (size_t j = 0; j < 3000; j++)
            rev[j] += a[p.x[i].src][j];
    exec_step_rank(&p, 0, 0, a);
    assert_true(memcmp(rev, a[0], 3000 * sizeof(float)) != 0);
    for (int r = 0; r < 8; r++)
        free(a[r]);
    free(rev);
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_collective_matches_reference),
        cmocka_unit_test(test_sixteen_ranks),
        cmocka_unit_test(test_lecture_values),
        cmocka_unit_test(test_ring_snapshots),
        cmocka_unit_test(test_empty_elements),
        cmocka_unit_test(test_trace_size_limit),
        cmocka_unit_test(test_pattern_expected),
        cmocka_unit_test(test_init_fill),
        cmocka_unit_test(test_exec_tiled_equals_naive),
        cmocka_unit_test(test_exec_fused_sources),
        cmocka_unit_test(test_exec_streamed_copies),
        cmocka_unit_test(test_order_is_visible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
