/* test_plan.c - the algorithms' plans: structure (step counts, who sends what when), the
 * execution rule of plan.h (no transfer reads what another destination writes in the same
 * step), bounds, chunk_range, and the errors for bad arguments and unsupported pairs. The
 * data each plan computes is checked in test_trace.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/plan.h"
#include "core/util.h"

static bool ranges_overlap(size_t a, size_t an, size_t b, size_t bn)
{
    return a < b + bn && b < a + an;
}

/* Every structural property a plan must have; fails the test with a description. */
static void check_plan(const struct plan *p)
{
    char what[160];
    snprintf(what, sizeof what, "%s/%s W=%d count=%zu op=%s root=%d", coll_name(p->coll),
             algo_name(p->algo), p->nranks, p->count, redop_name(p->op), p->root);
    int W = p->nranks;
    if (p->work_len != coll_work_len(p->coll, W, p->count))
        fail_msg("%s: work_len %zu", what, p->work_len);
    /* A text that fills its buffer was probably cut off mid-sentence. */
    if (p->summary[0] == '\0' || strlen(p->summary) >= sizeof p->summary - 1)
        fail_msg("%s: summary empty or truncated: %s", what, p->summary);
    if (strstr(p->summary, "(1 steps") || strstr(p->summary, " 1 chunks"))
        fail_msg("%s: summary says '1 steps' or '1 chunks': %s", what, p->summary);
    /* The steps an average adds are in the sentence that counts the steps. */
    if (p->op == OP_AVG && coll_reduces(p->coll) && W > 1 && p->nsteps > 0 &&
        !strstr(p->summary, "avg"))
        fail_msg("%s: the summary does not mention the average: %s", what, p->summary);
    size_t next = 0;
    for (size_t s = 0; s < p->nsteps; s++) {
        const struct step *st = &p->steps[s];
        if (st->first != next || st->n == 0)
            fail_msg("%s: step %zu covers [%zu,+%zu), expected start %zu", what, s, st->first,
                     st->n, next);
        next = st->first + st->n;
        if (st->phase[0] == '\0' || st->what[0] == '\0' ||
            strlen(st->what) >= sizeof st->what - 1 || st->what[strlen(st->what) - 1] != '.')
            fail_msg("%s: step %zu lacks a phase or a whole sentence: %s", what, s, st->what);
        int sends[CV_MAX_RANKS] = {0};
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const struct xfer *x = &p->x[i];
            if (x->src < 0 || x->src >= W || x->dst < 0 || x->dst >= W)
                fail_msg("%s: step %zu xfer %zu ranks %d->%d", what, s, i, x->src, x->dst);
            if (x->count == 0 || x->src_off + x->count > p->work_len ||
                x->dst_off + x->count > p->work_len)
                fail_msg("%s: step %zu xfer %zu out of bounds", what, s, i);
            if (x->kind == XFER_SCALE &&
                (x->src != x->dst || x->src_off != x->dst_off || p->op != OP_AVG))
                fail_msg("%s: step %zu bad scale", what, s);
            if (x->kind != XFER_SCALE && x->src != x->dst) sends[x->src]++;
            if (x->src == x->dst && x->kind != XFER_SCALE &&
                ranges_overlap(x->src_off, x->count, x->dst_off, x->count))
                fail_msg("%s: step %zu self transfer overlaps itself", what, s);
            /* The execution rule: what x reads must not be written by another destination. */
            for (size_t j = st->first; j < st->first + st->n; j++) {
                const struct xfer *y = &p->x[j];
                if (y->dst == x->dst || y->dst != x->src) continue;
                if (ranges_overlap(x->src_off, x->count, y->dst_off, y->count))
                    fail_msg("%s: step %zu: xfer %zu (%d->%d) reads [%zu,+%zu) that xfer %zu "
                             "(%d->%d) writes",
                             what, s, i, x->src, x->dst, x->src_off, x->count, j, y->src,
                             y->dst, y->dst_off);
            }
            /* Transfers run by different ranks (x.by) never touch a range one of them
             * writes, so they need no order between them within the step. */
            /* The runner is the destination (it pulls), except in the owner all-reduce
             * and the gather, whose senders push. */
            bool push = p->algo == ALGO_OWNER || p->coll == COLL_GATHER;
            if (x->by < 0 || x->by >= W || (x->by != x->dst && !push) ||
                (p->coll == COLL_GATHER && x->by != x->src))
                fail_msg("%s: step %zu xfer %zu run by rank %d", what, s, i, x->by);
            for (size_t j = st->first; j < st->first + st->n; j++) {
                const struct xfer *y = &p->x[j];
                if (y->by == x->by) continue;
                bool ww = x->dst == y->dst &&
                          ranges_overlap(x->dst_off, x->count, y->dst_off, y->count);
                bool wr = x->dst == y->src &&
                          ranges_overlap(x->dst_off, x->count, y->src_off, y->count);
                if (ww || wr)
                    fail_msg("%s: step %zu: xfer %zu (run by %d) writes what xfer %zu (run by "
                             "%d) touches",
                             what, s, i, x->by, j, y->by);
            }
        }
        if (p->algo == ALGO_RING)
            for (int r = 0; r < W; r++)
                if (sends[r] > 1)
                    fail_msg("%s: step %zu: rank %d sends %d chunks", what, s, r, sends[r]);
    }
    if (next != p->nx) fail_msg("%s: steps cover %zu of %zu transfers", what, next, p->nx);
}

static void test_every_plan_obeys_the_rules(void **state)
{
    (void)state;
    size_t nplans = 0;
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            for (int W = 1; W <= 8; W++) {
                size_t counts[] = {
                    1, 2, 3, (size_t)W - 1, (size_t)W, (size_t)W + 1, 2 * (size_t)W + 3, 17};
                int roots[] = {0, W - 1, W / 2};
                for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
                    if (counts[ci] == 0) continue;
                    for (int op = 0; op < OP_COUNT; op++)
                        for (size_t ri = 0; ri < ARRAY_LEN(roots); ri++) {
                            struct plan p;
                            char err[160] = "";
                            int rc = plan_build(&p, (enum coll)c, (enum algo)a, (enum redop)op,
                                                W, counts[ci], roots[ri], err, sizeof err);
                            if (rc != CV_OK)
                                fail_msg("plan_build %s/%s W=%d: %s", coll_name((enum coll)c),
                                         algo_name((enum algo)a), W, err);
                            check_plan(&p);
                            plan_free(&p);
                            nplans++;
                        }
                }
            }
        }
    assert_true(nplans > 10000);
}

/* Ring plans in a given ring order (NCCL's, from its log): every one obeys the rules; the
 * first reduce-scatter step of ring 0 3 1 2 sends along it (position i sends chunk
 * ring[i-1]), and bad orders are refused by name. */
static void test_ring_orders(void **state)
{
    (void)state;
    static const int orders[][8] = {
        {0, 3, 1, 2, 4, 7, 5, 6}, {0, 7, 6, 5, 4, 3, 2, 1}, {5, 2, 7, 0, 3, 6, 1, 4}};
    enum coll rings[] = {COLL_ALL_REDUCE, COLL_REDUCE_SCATTER, COLL_ALL_GATHER, COLL_BROADCAST,
                         COLL_REDUCE};
    char err[160];
    for (size_t o = 0; o < ARRAY_LEN(orders); o++)
        for (size_t c = 0; c < ARRAY_LEN(rings); c++)
            for (int root = 0; root < 8; root += 3)
                for (size_t count = 1; count <= 17; count += 8) {
                    struct plan p;
                    assert_int_equal(plan_build_ring(&p, rings[c], ALGO_RING, OP_SUM, 8, count,
                                                     root, orders[o], err, sizeof err),
                                     CV_OK);
                    check_plan(&p);
                    for (size_t i = 0; i < p.nx; i++) { /* every hop is a hop of the ring */
                        int at = 0;
                        while (orders[o][at] != p.x[i].src)
                            at++;
                        assert_int_equal(p.x[i].dst, orders[o][(at + 1) % 8]);
                    }
                    plan_free(&p);
                }
    struct plan p;
    int ring[] = {0, 3, 1, 2};
    assert_int_equal(
        plan_build_ring(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 4, 0, ring, err, sizeof err),
        CV_OK);
    /* step 1: 0 -> 3 chunk 2, 3 -> 1 chunk 0, 1 -> 2 chunk 3, 2 -> 0 chunk 1 */
    int want[4][3] = {{0, 3, 2}, {3, 1, 0}, {1, 2, 3}, {2, 0, 1}};
    assert_int_equal(p.steps[0].n, 4);
    for (int k = 0; k < 4; k++) {
        const struct xfer *x = &p.x[p.steps[0].first + (size_t)k];
        assert_int_equal(x->src, want[k][0]);
        assert_int_equal(x->dst, want[k][1]);
        assert_int_equal(x->chunk, want[k][2]);
    }
    plan_free(&p);
    int dup[] = {0, 1, 1, 2}, out[] = {0, 1, 2, 4};
    assert_int_equal(
        plan_build_ring(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 4, 0, dup, err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "rank 1 appears twice"));
    assert_int_equal(
        plan_build_ring(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 4, 0, out, err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "rank 4 is not one of the 4 ranks"));
    int n, got[CV_MAX_RANKS];
    assert_int_equal(plan_parse_ring("0, 7 6,5", got, &n, err, sizeof err), CV_OK);
    assert_int_equal(n, 4);
    assert_int_equal(got[1], 7);
    assert_int_equal(got[3], 5);
    assert_int_equal(plan_parse_ring("0 16", got, &n, err, sizeof err), CV_EINVAL);
    assert_int_equal(plan_parse_ring("0 -1", got, &n, err, sizeof err), CV_EINVAL);
    assert_int_equal(plan_parse_ring("3 3", got, &n, err, sizeof err), CV_EINVAL);
    assert_int_equal(plan_parse_ring("", got, &n, err, sizeof err), CV_EINVAL);
}

static void test_sixteen_ranks(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            size_t counts[] = {1, 15, 16, 17, 35};
            for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
                struct plan p;
                assert_int_equal(plan_build(&p, (enum coll)c, (enum algo)a, OP_AVG, 16,
                                            counts[ci], 7, NULL, 0),
                                 CV_OK);
                check_plan(&p);
                plan_free(&p);
            }
        }
}

/* Elements divided by W over all ranks: an all-reduce avg that divides each element once
 * divides `count`; dividing every rank's whole result would be W * count. */
static size_t scaled_elements(const struct plan *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nx; i++)
        if (p->x[i].kind == XFER_SCALE) n += p->x[i].count;
    return n;
}

/* Avg in every all-reduce algorithm divides each element exactly once, before the
 * hand-out: the tree at its root between reduce and broadcast, the others on the chunk's
 * owner between the halves; no step after the average reduces again. */
static void test_all_reduce_avg_divides_once(void **state)
{
    (void)state;
    enum algo algos[] = {ALGO_RING, ALGO_TREE, ALGO_DIRECT, ALGO_OWNER};
    for (size_t a = 0; a < ARRAY_LEN(algos); a++)
        for (int W = 2; W <= CV_MAX_RANKS; W++) {
            struct plan p;
            size_t count = 3 * (size_t)W + 1;
            assert_int_equal(
                plan_build(&p, COLL_ALL_REDUCE, algos[a], OP_AVG, W, count, 0, NULL, 0), CV_OK);
            assert_int_equal(scaled_elements(&p), count);
            size_t s_avg = p.nsteps;
            for (size_t s = 0; s < p.nsteps; s++)
                if (!strcmp(p.steps[s].phase, "average")) s_avg = s;
            assert_true(s_avg > 0 && s_avg + 1 < p.nsteps);
            for (size_t s = s_avg + 1; s < p.nsteps; s++)
                for (size_t i = 0; i < p.steps[s].n; i++)
                    assert_int_equal(p.x[p.steps[s].first + i].kind, XFER_COPY);
            if (algos[a] == ALGO_TREE) {
                assert_int_equal(p.steps[s_avg].n, 1);
                assert_int_equal(p.x[p.steps[s_avg].first].dst, 0);
            }
            plan_free(&p);
        }
    /* A ring in another order (as NCCL logs them): each rank still divides the chunk its
     * last reduce-scatter step completed. */
    static const int ring[] = {0, 3, 1, 2};
    struct plan p;
    assert_int_equal(
        plan_build_ring(&p, COLL_ALL_REDUCE, ALGO_RING, OP_AVG, 4, 13, 0, ring, NULL, 0),
        CV_OK);
    const struct step *avg = &p.steps[3], *last_rs = &p.steps[2];
    assert_string_equal(avg->phase, "average");
    for (size_t i = 0; i < avg->n; i++) {
        const struct xfer *x = &p.x[avg->first + i];
        bool found = false;
        for (size_t j = 0; j < last_rs->n; j++) {
            const struct xfer *in = &p.x[last_rs->first + j];
            if (in->dst == x->dst) {
                assert_int_equal(in->dst_off, x->dst_off);
                assert_int_equal(in->count, x->count);
                found = true;
            }
        }
        assert_true(found);
    }
    assert_int_equal(scaled_elements(&p), 13);
    plan_free(&p);
}

static void test_ring_all_reduce_steps(void **state)
{
    (void)state;
    for (int W = 2; W <= CV_MAX_RANKS; W++) {
        size_t counts[] = {(size_t)W, (size_t)W + 1, 3 * (size_t)W + 2};
        for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
            struct plan p;
            assert_int_equal(
                plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, W, counts[ci], 0, NULL, 0),
                CV_OK);
            assert_int_equal(p.nsteps, 2 * (W - 1));
            /* Every step: every rank sends exactly one chunk to its right neighbour. */
            for (size_t s = 0; s < p.nsteps; s++) {
                assert_int_equal(p.steps[s].n, W);
                for (size_t i = 0; i < p.steps[s].n; i++) {
                    const struct xfer *x = &p.x[p.steps[s].first + i];
                    assert_int_equal(x->dst, (x->src + 1) % W);
                    assert_int_equal(x->kind, s < (size_t)W - 1 ? XFER_REDUCE : XFER_COPY);
                }
            }
            plan_free(&p);
            assert_int_equal(
                plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_AVG, W, counts[ci], 0, NULL, 0),
                CV_OK);
            assert_int_equal(p.nsteps, 2 * (W - 1) + 1);
            /* The average sits between the halves: rank r divides the chunk it received
             * last in the reduce-scatter, and nothing else. */
            const struct step *avg = &p.steps[W - 1], *last_rs = &p.steps[W - 2];
            assert_string_equal(avg->phase, "average");
            assert_int_equal(avg->n, W);
            for (size_t i = 0; i < avg->n; i++) {
                const struct xfer *x = &p.x[avg->first + i];
                assert_int_equal(x->kind, XFER_SCALE);
                assert_int_equal(x->src, x->dst);
                const struct xfer *in = NULL;
                for (size_t j = 0; j < last_rs->n; j++)
                    if (p.x[last_rs->first + j].dst == x->dst) in = &p.x[last_rs->first + j];
                assert_non_null(in);
                assert_int_equal(x->dst_off, in->dst_off);
                assert_int_equal(x->count, in->count);
            }
            assert_int_equal(scaled_elements(&p), counts[ci]);
            plan_free(&p);
        }
    }
}

/* NCCL's numbering at W=4: step 0 rank r sends chunk (r-1) mod 4; the first all-gather
 * step sends chunk r; the labels name the phases. */
static void test_ring_all_reduce_numbering(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 8, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 6);
    static const char *phases[] = {"reduce-scatter 1/3", "reduce-scatter 2/3",
                                   "reduce-scatter 3/3", "all-gather 1/3",
                                   "all-gather 2/3",     "all-gather 3/3"};
    for (size_t s = 0; s < 6; s++)
        assert_string_equal(p.steps[s].phase, phases[s]);
    assert_string_equal(p.steps[1].what, "Every rank r sends chunk (r-2) mod 4 to rank r+1, "
                                         "which adds it to its own copy of that chunk.");
    for (int r = 0; r < 4; r++) {
        const struct xfer *x0 = &p.x[p.steps[0].first + (size_t)r];
        assert_int_equal(x0->src, r);
        assert_int_equal(x0->chunk, (r + 3) % 4);
        assert_int_equal(x0->dst_off, (size_t)x0->chunk * 2);
        assert_int_equal(x0->count, 2);
        const struct xfer *x3 = &p.x[p.steps[3].first + (size_t)r];
        assert_int_equal(x3->chunk, r);
        assert_int_equal(x3->kind, XFER_COPY);
    }
    assert_non_null(strstr(p.summary, "chunk c is completed on rank c (numbered as in NCCL; "
                                      "a teaching model)"));
    /* "NCCL's numbering" alone read as NCCL's real schedule (issue 12) */
    assert_null(strstr(p.summary, "NCCL's numbering"));
    plan_free(&p);
}

static void test_ring_reduce_scatter_and_all_gather(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(plan_build(&p, COLL_REDUCE_SCATTER, ALGO_RING, OP_SUM, 5, 3, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 4);
    /* The last step delivers chunk r+1 to rank r+1: its own output at (r+1)*count. */
    for (int r = 0; r < 5; r++) {
        const struct xfer *x = &p.x[p.steps[3].first + (size_t)r];
        assert_int_equal(x->dst, (r + 1) % 5);
        assert_int_equal(x->chunk, x->dst);
        assert_int_equal(x->dst_off, coll_out_off(COLL_REDUCE_SCATTER, 5, 3, x->dst));
        assert_int_equal(x->count, 3);
    }
    plan_free(&p);
    assert_int_equal(plan_build(&p, COLL_ALL_GATHER, ALGO_RING, OP_SUM, 5, 3, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 4);
    for (size_t t = 0; t < 4; t++)
        for (int r = 0; r < 5; r++) {
            const struct xfer *x = &p.x[p.steps[t].first + (size_t)r];
            assert_int_equal(x->chunk, ((r - (int)t) % 5 + 5) % 5);
            assert_int_equal(x->src_off, (size_t)x->chunk * 3);
            /* the summary's formula, at the step the screen shows (counted from 1) */
            int shown = (int)t + 1;
            assert_int_equal(x->chunk, ((r - shown + 1) % 5 + 5) % 5);
        }
    assert_non_null(strstr(p.summary, "at step t it sends chunk (r-t+1) mod 5"));
    plan_free(&p);
}

static void test_chain_pipelining(void **state)
{
    (void)state;
    struct plan p;
    /* Broadcast from rank 2 of 4, 8 elements: 4 chunks, 4+4-2 = 6 steps, chain 2,3,0,1. */
    assert_int_equal(plan_build(&p, COLL_BROADCAST, ALGO_RING, OP_SUM, 4, 8, 2, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 6);
    assert_int_equal(p.steps[0].n, 1);
    assert_int_equal(p.x[0].src, 2);
    assert_int_equal(p.x[0].dst, 3);
    assert_int_equal(p.x[0].chunk, 0);
    assert_int_equal(p.steps[2].n, 3); /* the chain is full */
    const struct xfer *last = &p.x[p.nx - 1];
    assert_int_equal(last->src, 0);
    assert_int_equal(last->dst, 1);
    assert_int_equal(last->chunk, 3);
    assert_int_equal(last->dst_off, 6);
    plan_free(&p);
    /* Reduce to rank 1 of 4, 2 elements: only 2 non-empty chunks, chain 2,3,0,1: 2+2 steps. */
    assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_RING, OP_MAX, 4, 2, 1, NULL, 0), CV_OK);
    assert_int_equal(p.nsteps, 4);
    assert_int_equal(p.x[0].src, 2);
    assert_int_equal(p.x[0].dst, 3);
    assert_int_equal(p.x[0].kind, XFER_REDUCE);
    assert_int_equal(p.x[p.nx - 1].dst, 1);
    plan_free(&p);
}

static void test_tree_levels(void **state)
{
    (void)state;
    struct plan p;
    /* 8 ranks: depths 0,1,1,2,2,2,2,3 -> 3 levels. Root 3 shifts every rank by 3. */
    assert_int_equal(plan_build(&p, COLL_BROADCAST, ALGO_TREE, OP_SUM, 8, 5, 3, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 3);
    assert_int_equal(p.steps[0].n, 2);
    assert_int_equal(p.steps[1].n, 4);
    assert_int_equal(p.steps[2].n, 1);
    assert_int_equal(p.x[0].src, 3);
    assert_int_equal(p.x[0].dst, 4);
    assert_int_equal(p.x[1].dst, 5);
    assert_int_equal(p.x[p.nx - 1].src, 6); /* relative 3 -> relative 7 */
    assert_int_equal(p.x[p.nx - 1].dst, 2);
    plan_free(&p);
    assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_TREE, OP_SUM, 8, 5, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 6);
    assert_string_equal(p.steps[0].phase, "reduce 1/3");
    assert_string_equal(p.steps[3].phase, "broadcast 1/3");
    assert_int_equal(p.x[0].src, 7);
    assert_int_equal(p.x[0].dst, 3);
    assert_non_null(strstr(p.summary, "double binary tree"));
    plan_free(&p);
}

static void test_direct_shapes(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(plan_build(&p, COLL_ALL_TO_ALL, ALGO_DIRECT, OP_SUM, 4, 2, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 3);
    assert_int_equal(p.steps[0].n, 8); /* 4 self copies + 4 sends */
    assert_int_equal(p.steps[1].n, 4);
    /* Step 2 (k=2): rank 3 sends its block for rank 1 (offset 2) to slot 3 of rank 1. */
    const struct xfer *x = &p.x[p.steps[1].first + 3];
    assert_int_equal(x->src, 3);
    assert_int_equal(x->dst, 1);
    assert_int_equal(x->src_off, 2);
    assert_int_equal(x->dst_off, 8 + 6);
    plan_free(&p);
    assert_int_equal(plan_build(&p, COLL_ALL_TO_ALL, ALGO_DIRECT, OP_SUM, 1, 3, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 1);
    assert_int_equal(p.nx, 1);
    assert_int_equal(p.x[0].dst_off, 3);
    plan_free(&p);

    assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_DIRECT, OP_SUM, 4, 4, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 2);
    assert_int_equal(p.steps[0].n, 12);
    assert_int_equal(p.steps[1].n, 12);
    /* First transfers of the reduce-scatter: ranks 1, 2, 3 reduce chunk 0 into rank 0. */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(p.x[i].dst, 0);
        assert_int_equal(p.x[i].src, i + 1);
        assert_int_equal(p.x[i].kind, XFER_REDUCE);
    }
    plan_free(&p);

    assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_DIRECT, OP_AVG, 5, 3, 4, NULL, 0), CV_OK);
    assert_int_equal(p.nsteps, 2);
    assert_int_equal(p.steps[0].n, 4);
    assert_int_equal(p.steps[1].n, 1);
    assert_int_equal(p.x[4].kind, XFER_SCALE);
    assert_int_equal(p.x[4].dst, 4);
    plan_free(&p);

    assert_int_equal(plan_build(&p, COLL_SCATTER, ALGO_DIRECT, OP_SUM, 4, 2, 1, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nx, 3);
    assert_int_equal(p.x[2].dst, 3);
    assert_int_equal(p.x[2].src_off, 6);
    assert_int_equal(p.x[2].dst_off, 6);
    plan_free(&p);
}

/* The owner all-reduce: reduce (rank r pulls chunk r from the others, in rank order), then
 * rank r pushes chunk r into every other rank; rank r runs every transfer of chunk r. With
 * avg, chunk r is divided once, between the two. */
static void test_owner_shape(void **state)
{
    (void)state;
    struct plan p;
    for (int avg = 0; avg <= 1; avg++) {
        assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_OWNER, avg ? OP_AVG : OP_SUM, 4,
                                    10, 0, NULL, 0),
                         CV_OK);
        assert_int_equal(p.nsteps, avg ? 3 : 2);
        assert_string_equal(p.steps[0].phase, "reduce");
        assert_string_equal(p.steps[p.nsteps - 1].phase, "write out");
        assert_int_equal(p.steps[0].n, 12);
        assert_int_equal(p.steps[p.nsteps - 1].n, 12);
        static const size_t start[] = {0, 3, 6, 8}, len[] = {3, 3, 2, 2};
        for (size_t i = 0; i < p.nx; i++) {
            const struct xfer *x = &p.x[i];
            assert_int_equal(x->by, x->chunk);
            assert_int_equal(x->dst_off, start[x->chunk]);
            assert_int_equal(x->count, len[x->chunk]);
            if (x->kind == XFER_REDUCE) assert_int_equal(x->dst, x->by);
            if (x->kind == XFER_COPY) assert_int_equal(x->src, x->by);
        }
        /* Rank 1's reductions: from ranks 0, 2, 3 in that order. */
        assert_int_equal(p.x[3].src, 0);
        assert_int_equal(p.x[4].src, 2);
        assert_int_equal(p.x[5].src, 3);
        if (avg) {
            assert_string_equal(p.steps[1].phase, "average");
            assert_int_equal(p.steps[1].n, 4);
        }
        plan_free(&p);
    }
    assert_int_equal(plan_build(&p, COLL_REDUCE_SCATTER, ALGO_OWNER, OP_SUM, 4, 10, 0, NULL, 0),
                     CV_EUNSUPPORTED);
}

static void test_one_rank_plans_are_empty(void **state)
{
    (void)state;
    struct plan p;
    assert_int_equal(plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_AVG, 1, 5, 0, NULL, 0),
                     CV_OK);
    assert_int_equal(p.nsteps, 0);
    assert_int_equal(p.nx, 0);
    assert_non_null(strstr(p.summary, "one rank"));
    plan_free(&p);
}

static void test_unsupported_and_bad_arguments(void **state)
{
    (void)state;
    struct plan p;
    char err[160];
    assert_int_equal(
        plan_build(&p, COLL_ALL_GATHER, ALGO_TREE, OP_SUM, 4, 1, 0, err, sizeof err),
        CV_EUNSUPPORTED);
    assert_string_equal(err, "algorithm tree is not available for all_gather (available: ring, "
                             "direct)");
    assert_int_equal(
        plan_build(&p, COLL_ALL_TO_ALL, ALGO_RING, OP_SUM, 4, 1, 0, err, sizeof err),
        CV_EUNSUPPORTED);
    assert_string_equal(err,
                        "algorithm ring is not available for all_to_all (available: direct)");
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 0, 1, 0, err, sizeof err),
        CV_EINVAL);
    assert_string_equal(err, "ranks 0: must be 1..16");
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 17, 1, 0, err, sizeof err),
        CV_EINVAL);
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 0, 0, err, sizeof err),
        CV_EINVAL);
    assert_string_equal(err, "count 0: must be at least 1");
    assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_RING, OP_SUM, 4, 1, 4, err, sizeof err),
                     CV_EINVAL);
    assert_string_equal(err, "root 4: must be 0..3");
    assert_int_equal(plan_build(&p, COLL_REDUCE, ALGO_RING, OP_SUM, 4, 1, -1, err, sizeof err),
                     CV_EINVAL);
    /* Unrooted collectives ignore the root. */
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 1, 9, err, sizeof err), CV_OK);
    assert_int_equal(p.root, 0);
    plan_free(&p);
}

static void test_chunk_range_balanced(void **state)
{
    (void)state;
    for (size_t n = 0; n <= 40; n++)
        for (int parts = 1; parts <= CV_MAX_RANKS; parts++) {
            size_t prev_end = 0, min = SIZE_MAX, max = 0, prev_len = SIZE_MAX;
            for (int k = 0; k < parts; k++) {
                size_t s, e;
                chunk_range(n, parts, k, &s, &e);
                assert_int_equal(s, prev_end);
                assert_true(e >= s);
                size_t len = e - s;
                assert_true(len <= prev_len); /* larger chunks first */
                prev_len = len;
                min = len < min ? len : min;
                max = len > max ? len : max;
                prev_end = e;
            }
            assert_int_equal(prev_end, n);
            assert_true(max - min <= 1);
        }
    size_t s, e;
    chunk_range(10, 4, 1, &s, &e);
    assert_int_equal(s, 3);
    assert_int_equal(e, 6);
    chunk_range(10, 4, 3, &s, &e);
    assert_int_equal(s, 8);
    assert_int_equal(e, 10);
}

/* The presenter's default stops: the ring all-reduce's phases end at steps 3 and 6 of 6;
 * the tree's reduce then broadcast at 2 and 4 (W=4); a one-phase all-gather at its end. */
static void test_phase_ends(void **state)
{
    (void)state;
    struct plan p;
    char err[200];
    long out[8];
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 4, 16, 0, err, sizeof err), CV_OK);
    assert_int_equal(plan_phase_ends(&p, out, 8), 2);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 6);
    plan_free(&p);
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_TREE, OP_SUM, 4, 16, 0, err, sizeof err), CV_OK);
    size_t n = plan_phase_ends(&p, out, 8);
    assert_true(n >= 2);
    assert_int_equal(out[n - 1], (long)p.nsteps);
    for (size_t i = 1; i < n; i++)
        assert_true(out[i] > out[i - 1]);
    plan_free(&p);
    assert_int_equal(
        plan_build(&p, COLL_ALL_GATHER, ALGO_RING, OP_SUM, 4, 16, 0, err, sizeof err), CV_OK);
    assert_int_equal(plan_phase_ends(&p, out, 8), 1);
    assert_int_equal(out[0], 3);
    plan_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase_ends),
        cmocka_unit_test(test_every_plan_obeys_the_rules),
        cmocka_unit_test(test_ring_orders),
        cmocka_unit_test(test_sixteen_ranks),
        cmocka_unit_test(test_ring_all_reduce_steps),
        cmocka_unit_test(test_all_reduce_avg_divides_once),
        cmocka_unit_test(test_ring_all_reduce_numbering),
        cmocka_unit_test(test_ring_reduce_scatter_and_all_gather),
        cmocka_unit_test(test_chain_pipelining),
        cmocka_unit_test(test_tree_levels),
        cmocka_unit_test(test_direct_shapes),
        cmocka_unit_test(test_owner_shape),
        cmocka_unit_test(test_one_rank_plans_are_empty),
        cmocka_unit_test(test_unsupported_and_bad_arguments),
        cmocka_unit_test(test_chunk_range_balanced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
