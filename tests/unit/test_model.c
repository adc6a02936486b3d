/* test_model.c - the α-β model read off the plans (core/model.h) against the closed forms
 * for rings and against hand-worked trees, chains and direct algorithms; busbw tending to β;
 * the least-squares fit of α and β on synthetic points (exact and noisy) and its refusals;
 * the tiers table (core/tiers.h) and its ratios. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/coll.h"
#include "core/model.h"
#include "core/plan.h"
#include "core/tiers.h"
#include "core/util.h"

/* |got - want| <= rel * |want| (and exact for want == 0). */
static void assert_close(double got, double want, double rel, const char *what)
{
    double tol = rel * fabs(want);
    if (!(fabs(got - want) <= tol))
        fail_msg("%s: got %.17g, want %.17g (rel. tolerance %g)", what, got, want, rel);
}

static const double alphas[] = {0.0, 1e-6, 2e-6, 5e-5};
static const double betas[] = {2e8, 1e9, 2.5e10, 9e11};

/* Element counts for W ranks: divisible by W, one over, one under, below W, one. */
static size_t counts_for(int W, size_t *out)
{
    size_t n = 0;
    out[n++] = (size_t)W * 1000;
    out[n++] = (size_t)W * 1000 + 1;
    out[n++] = (size_t)W * 262144 - 1;
    out[n++] = (size_t)W * 16777216 + 3;
    out[n++] = 1;
    if (W > 2) out[n++] = (size_t)W - 1;
    return n;
}

/* Ring all-reduce: 2(W-1) steps, each moving the largest chunk, ceil(count/W) floats; when
 * W divides count that is S/W and T = 2(W-1)(α + S/(Wβ)). */
static void test_ring_all_reduce_closed_form(void **state)
{
    (void)state;
    for (int W = 2; W <= CV_MAX_RANKS; W++) {
        size_t counts[8];
        size_t nc = counts_for(W, counts);
        for (size_t ci = 0; ci < nc; ci++) {
            size_t count = counts[ci], S = count * 4;
            size_t chunk = (count + (size_t)W - 1) / (size_t)W;
            for (size_t ai = 0; ai < ARRAY_LEN(alphas); ai++)
                for (size_t bi = 0; bi < ARRAY_LEN(betas); bi++) {
                    double a = alphas[ai], b = betas[bi];
                    struct model_cost m;
                    char err[200];
                    assert_int_equal(model_collective(COLL_ALL_REDUCE, ALGO_RING, W, S, a, b,
                                                      &m, err, sizeof err),
                                     CV_OK);
                    assert_int_equal(m.steps, 2 * (W - 1));
                    assert_int_equal(m.bytes, S);
                    assert_int_equal(m.count, count);
                    assert_int_equal(m.wire_bytes, (size_t)(2 * (W - 1)) * chunk * 4);
                    char what[120];
                    snprintf(what, sizeof what, "ring all_reduce W=%d count=%zu a=%g b=%g", W,
                             count, a, b);
                    double want = 2.0 * (W - 1) * (a + (double)(chunk * 4) / b);
                    assert_close(m.time_s, want, 1e-12, what);
                    if (count % (size_t)W == 0)
                        assert_close(m.time_s, 2.0 * (W - 1) * (a + (double)S / (W * b)), 1e-12,
                                     what);
                    assert_close(m.algbw, (double)S / want, 1e-12, what);
                    assert_close(m.busbw, (double)S / want * 2.0 * (W - 1) / W, 1e-12, what);
                }
        }
    }
}

/* Ring all-gather and reduce-scatter: W-1 steps of one piece (count floats = S/W) each. */
static void test_ring_ag_rs_closed_form(void **state)
{
    (void)state;
    const enum coll colls[] = {COLL_ALL_GATHER, COLL_REDUCE_SCATTER};
    for (size_t k = 0; k < ARRAY_LEN(colls); k++)
        for (int W = 2; W <= CV_MAX_RANKS; W++) {
            size_t counts[8];
            size_t nc = counts_for(W, counts);
            for (size_t ci = 0; ci < nc; ci++) {
                size_t count = counts[ci], S = count * 4 * (size_t)W;
                for (size_t ai = 0; ai < ARRAY_LEN(alphas); ai++)
                    for (size_t bi = 0; bi < ARRAY_LEN(betas); bi++) {
                        double a = alphas[ai], b = betas[bi];
                        struct model_cost m;
                        char err[200], what[120];
                        snprintf(what, sizeof what, "ring %s W=%d count=%zu a=%g b=%g",
                                 coll_name(colls[k]), W, count, a, b);
                        /* Asking for a few bytes more than whole floats per piece gives the
                         * same operation: S rounds down to count*4*W. */
                        assert_int_equal(model_collective(colls[k], ALGO_RING, W, S + 3, a, b,
                                                          &m, err, sizeof err),
                                         CV_OK);
                        assert_int_equal(m.bytes, S);
                        assert_int_equal(m.count, count);
                        assert_int_equal(m.steps, W - 1);
                        assert_int_equal(m.wire_bytes, (size_t)(W - 1) * count * 4);
                        double want = (W - 1) * (a + (double)S / (W * b));
                        assert_close(m.time_s, want, 1e-12, what);
                        assert_close(m.busbw, (double)S / want * (W - 1) / W, 1e-12, what);
                    }
            }
        }
}

/* Cost of the plan of (c, a, W, count, root): n and c. */
static void plan_cost(enum coll c, enum algo a, enum redop op, int W, size_t count, int root,
                      int *steps, size_t *wire)
{
    struct plan p;
    char err[200];
    assert_int_equal(plan_build(&p, c, a, op, W, count, root, err, sizeof err), CV_OK);
    model_plan_cost(&p, 4, steps, wire);
    plan_free(&p);
}

/* Hand-worked plans (relative rank v: parent (v-1)/2, children 2v+1, 2v+2).
 *
 * Tree all-reduce, W = 4, count 1000 (S = 4000 B). The tree is 0 -> {1, 2}, 1 -> {3}.
 *   reduce 1/2: 3 -> 1                 busiest port: 1 receives S     4000
 *   reduce 2/2: 1 -> 0, 2 -> 0         rank 0 receives 2S             8000
 *   broadcast 1/2: 0 -> 1, 0 -> 2      rank 0 sends 2S                8000
 *   broadcast 2/2: 1 -> 3              S                              4000
 *   n = 4, c = 6S = 24000 B: T = 4α + 24000/β.
 *
 * Tree broadcast, W = 5, root 0 (S = 4000): 0 -> {1, 2}, 1 -> {3, 4}.
 *   step 1: 0 -> 1, 0 -> 2: 2S;  step 2: 1 -> 3, 1 -> 4: 2S.   n = 2, c = 4S = 16000.
 *   Root 2 is the same tree relabelled: the same n and c.
 *
 * Direct all-reduce, W = 4, count 1000: chunks of 250 floats (1000 B).
 *   reduce-scatter: rank r receives chunk r from 3 ranks (3000 B) and sends 3 chunks (3000).
 *   all-gather: rank r sends its chunk to 3 ranks and receives 3 chunks: 3000.
 *   n = 2, c = 6000 = 2(W-1)S/W.  With count 1001 the chunks are 251, 250, 250, 250: rank 0
 *   receives 3 x 251 floats (3012 B) in the first step and sends as much in the second:
 *   c = 6024.
 *
 * Chain broadcast (algo ring), W = 4, count 8: 4 chunks of 2 floats (8 B) follow each other
 *   down 0 -> 1 -> 2 -> 3; steps = chunks + W - 2 = 6, each port carries at most one chunk
 *   each way: n = 6, c = 48.  count 2: chunks 0 and 1 of one float: 4 steps of 4 B, c = 16.
 *
 * Direct broadcast, W = 4: the root sends S to 3 ranks in one step: n = 1, c = 3S.
 *
 * All-to-all (pairwise exchange), W = 4, count 10: step 1 also copies each rank's own block
 * locally (not on the wire); each of the 3 steps sends and receives one block of 40 B:
 * n = 3, c = 120 (= (W-1) S/W with S = 160). */
static void test_hand_worked_plans(void **state)
{
    (void)state;
    int n;
    size_t c;
    plan_cost(COLL_ALL_REDUCE, ALGO_TREE, OP_SUM, 4, 1000, 0, &n, &c);
    assert_int_equal(n, 4);
    assert_int_equal(c, 24000);

    plan_cost(COLL_BROADCAST, ALGO_TREE, OP_SUM, 5, 1000, 0, &n, &c);
    assert_int_equal(n, 2);
    assert_int_equal(c, 16000);
    plan_cost(COLL_BROADCAST, ALGO_TREE, OP_SUM, 5, 1000, 2, &n, &c);
    assert_int_equal(n, 2);
    assert_int_equal(c, 16000);

    plan_cost(COLL_ALL_REDUCE, ALGO_DIRECT, OP_SUM, 4, 1000, 0, &n, &c);
    assert_int_equal(n, 2);
    assert_int_equal(c, 6000);
    plan_cost(COLL_ALL_REDUCE, ALGO_DIRECT, OP_SUM, 4, 1001, 0, &n, &c);
    assert_int_equal(n, 2);
    assert_int_equal(c, 6024);

    plan_cost(COLL_BROADCAST, ALGO_RING, OP_SUM, 4, 8, 0, &n, &c);
    assert_int_equal(n, 6);
    assert_int_equal(c, 48);
    plan_cost(COLL_BROADCAST, ALGO_RING, OP_SUM, 4, 2, 0, &n, &c);
    assert_int_equal(n, 4);
    assert_int_equal(c, 16);

    plan_cost(COLL_BROADCAST, ALGO_DIRECT, OP_SUM, 4, 1000, 1, &n, &c);
    assert_int_equal(n, 1);
    assert_int_equal(c, 12000);

    plan_cost(COLL_ALL_TO_ALL, ALGO_DIRECT, OP_SUM, 4, 10, 0, &n, &c);
    assert_int_equal(n, 3);
    assert_int_equal(c, 120);

    /* The same through model_collective, with α and β: tree all-reduce W=4 at S = 4000. */
    struct model_cost m;
    char err[200];
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_TREE, 4, 4000, 3e-6, 1e9, &m, err, sizeof err),
        CV_OK);
    assert_close(m.time_s, 4 * 3e-6 + 24000 / 1e9, 1e-12, "tree all_reduce W=4");
    assert_close(m.busbw, 4000 / m.time_s * 1.5, 1e-12, "tree all_reduce W=4 busbw");
    /* The per-step figure behind it. */
    struct plan p;
    assert_int_equal(
        plan_build(&p, COLL_ALL_REDUCE, ALGO_TREE, OP_SUM, 4, 1000, 0, err, sizeof err), CV_OK);
    assert_int_equal(p.nsteps, 4);
    const size_t per_step[4] = {4000, 8000, 8000, 4000};
    for (size_t s = 0; s < 4; s++)
        assert_int_equal(model_step_bytes(&p, s, 4), per_step[s]);
    assert_int_equal(model_step_bytes(&p, 4, 4), 0); /* no such step */
    plan_free(&p);
}

/* AVG's divide-by-W step is local: the same cost as SUM although its plan has one more step. */
static void test_avg_scale_is_free(void **state)
{
    (void)state;
    const enum coll colls[] = {COLL_ALL_REDUCE, COLL_REDUCE, COLL_REDUCE_SCATTER};
    for (size_t k = 0; k < ARRAY_LEN(colls); k++)
        for (int W = 2; W <= 8; W++) {
            struct plan ps, pa;
            char err[200];
            assert_int_equal(
                plan_build(&ps, colls[k], ALGO_RING, OP_SUM, W, 1003, 0, err, sizeof err),
                CV_OK);
            assert_int_equal(
                plan_build(&pa, colls[k], ALGO_RING, OP_AVG, W, 1003, 0, err, sizeof err),
                CV_OK);
            assert_int_equal(pa.nsteps, ps.nsteps + 1);
            int ns, na;
            size_t cs, ca;
            model_plan_cost(&ps, 4, &ns, &cs);
            model_plan_cost(&pa, 4, &na, &ca);
            assert_int_equal(na, ns);
            assert_int_equal(ca, cs);
            /* the average: last for reduce and reduce-scatter, between the halves of the
             * all-reduce */
            size_t avg = colls[k] == COLL_ALL_REDUCE ? (size_t)W - 1 : pa.nsteps - 1;
            assert_string_equal(pa.steps[avg].phase, "average");
            assert_int_equal(model_step_bytes(&pa, avg, 4), 0);
            plan_free(&ps);
            plan_free(&pa);
        }
}

/* One rank: nothing crosses, T = 0, no bandwidth to speak of. */
static void test_one_rank(void **state)
{
    (void)state;
    struct model_cost m;
    char err[200];
    assert_int_equal(
        model_collective(COLL_ALL_TO_ALL, ALGO_DIRECT, 1, 4096, 1e-6, 1e9, &m, err, sizeof err),
        CV_OK);
    assert_int_equal(m.steps, 0);
    assert_int_equal(m.wire_bytes, 0);
    assert_true(m.time_s == 0.0);
    assert_true(m.algbw == 0.0 && m.busbw == 0.0);
}

/* busbw -> β for large S (ring and direct; all-reduce, all-gather, reduce-scatter); the tree
 * all-reduce at W=4 tends to S·1.5/(6S/β) = β/4, and the chain broadcast with its W chunks
 * to β·W/(2(W-1)). */
static void test_busbw_tends_to_beta(void **state)
{
    (void)state;
    const double beta = 1e10, alpha = 1e-6;
    const size_t S = (size_t)1 << 46; /* 64 TiB: α is then negligible */
    const enum coll colls[] = {COLL_ALL_REDUCE, COLL_ALL_GATHER, COLL_REDUCE_SCATTER};
    const enum algo algos[] = {ALGO_RING, ALGO_DIRECT};
    for (size_t k = 0; k < ARRAY_LEN(colls); k++)
        for (size_t a = 0; a < ARRAY_LEN(algos); a++)
            for (int W = 2; W <= CV_MAX_RANKS; W *= 2) {
                struct model_cost m;
                char err[200], what[80];
                assert_int_equal(model_collective(colls[k], algos[a], W, S, alpha, beta, &m,
                                                  err, sizeof err),
                                 CV_OK);
                snprintf(what, sizeof what, "%s %s W=%d busbw", coll_name(colls[k]),
                         algo_name(algos[a]), W);
                assert_close(m.busbw, beta, 1e-6, what);
                assert_true(m.busbw < beta);
            }
    struct model_cost m;
    char err[200];
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_TREE, 4, S, alpha, beta, &m, err, sizeof err),
        CV_OK);
    assert_close(m.busbw, beta / 4, 1e-6, "tree all_reduce W=4");
    assert_int_equal(
        model_collective(COLL_BROADCAST, ALGO_RING, 8, S, alpha, beta, &m, err, sizeof err),
        CV_OK);
    assert_close(m.busbw, beta * 8 / 14, 1e-6, "chain broadcast W=8");
    /* Small sizes are latency-bound: at S = 4 KiB, ring all-reduce W=8 is mostly α. */
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_RING, 8, 4096, alpha, beta, &m, err, sizeof err),
        CV_OK);
    assert_true(m.busbw < beta / 10);
}

static void test_model_bad_input(void **state)
{
    (void)state;
    struct model_cost m;
    char err[200];
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_RING, 4, 4096, -1e-6, 1e9, &m, err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "alpha"));
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_RING, 4, 4096, 1e-6, 0, &m, err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "beta"));
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_RING, 4, 4096, NAN, 1e9, &m, err, sizeof err),
        CV_EINVAL);
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_RING, 0, 4096, 1e-6, 1e9, &m, err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "ranks 0"));
    assert_int_equal(
        model_collective(COLL_ALL_REDUCE, ALGO_RING, 17, 4096, 1e-6, 1e9, &m, err, sizeof err),
        CV_EINVAL);
    /* all_gather on 4 ranks needs one float per rank: 16 B. */
    assert_int_equal(
        model_collective(COLL_ALL_GATHER, ALGO_RING, 4, 15, 1e-6, 1e9, &m, err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "15 B"));
    assert_non_null(strstr(err, "16 B"));
    assert_int_equal(model_collective(COLL_ALL_REDUCE, ALGO_RING, 4, MODEL_MAX_BYTES + 1, 1e-6,
                                      1e9, &m, err, sizeof err),
                     CV_EINVAL);
    assert_int_equal(
        model_collective(COLL_SCATTER, ALGO_RING, 4, 4096, 1e-6, 1e9, &m, err, sizeof err),
        CV_EUNSUPPORTED);
    assert_non_null(strstr(err, "direct"));
}

/* Synthetic sweep: ring all-reduce on W ranks at 1 KiB .. 64 MiB (x4). */
static size_t synth(int W, double alpha, double beta, double noise, struct model_point *pts)
{
    uint64_t x = 88172645463325252ull; /* xorshift64: the same "noise" every run */
    size_t n = 0;
    for (size_t S = 1024; S <= ((size_t)64 << 20); S *= 4) {
        char err[200];
        assert_int_equal(
            model_point_for(COLL_ALL_REDUCE, ALGO_RING, W, S, 1.0, &pts[n], err, sizeof err),
            CV_OK);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
        pts[n].time_s =
            model_time(pts[n].steps, pts[n].wire_bytes, alpha, beta) * (1.0 + noise * u);
        n++;
    }
    return n;
}

static void test_fit_recovers_alpha_beta(void **state)
{
    (void)state;
    struct model_point pts[16];
    struct model_fit f;
    char err[200];
    const double cases[][2] = {{5e-6, 3e9}, {1e-6, 9e11}, {5e-5, 2e8}, {0.0, 1e9}};
    for (size_t k = 0; k < ARRAY_LEN(cases); k++)
        for (int W = 2; W <= 16; W += 7) {
            size_t n = synth(W, cases[k][0], cases[k][1], 0.0, pts);
            assert_int_equal(n, 9);
            assert_int_equal(model_fit(pts, n, &f, err, sizeof err), CV_OK);
            assert_int_equal(f.npoints, 9);
            assert_true(f.physical || cases[k][0] == 0.0);
            assert_true(fabs(f.alpha_s - cases[k][0]) <= 1e-9 * cases[k][0] + 1e-15);
            assert_close(f.beta_Bps, cases[k][1], 1e-9, "fit beta (exact points)");
            assert_true(f.r2 > 1.0 - 1e-12 && f.r2 <= 1.0 + 1e-12);
            assert_true(f.rel_rms < 1e-9);
        }
    /* ±1 % multiplicative noise: α and β within 5 %, R² still close to 1. */
    size_t n = synth(4, 5e-6, 3e9, 0.01, pts);
    assert_int_equal(model_fit(pts, n, &f, err, sizeof err), CV_OK);
    assert_true(f.physical);
    assert_close(f.alpha_s, 5e-6, 0.05, "fit alpha (1% noise)");
    assert_close(f.beta_Bps, 3e9, 0.05, "fit beta (1% noise)");
    assert_true(f.r2 > 0.999 && f.r2 < 1.0);
    assert_true(f.rel_rms > 0.001 && f.rel_rms < 0.01);
    /* The fitted curve reproduces the points it came from. */
    for (size_t i = 0; i < n; i++)
        assert_close(model_time(pts[i].steps, pts[i].wire_bytes, f.alpha_s, f.beta_Bps),
                     pts[i].time_s, 0.03, "fitted curve through a noisy point");
}

static void test_fit_refuses(void **state)
{
    (void)state;
    struct model_point pts[4];
    struct model_fit f;
    char err[200];
    assert_int_equal(model_fit(NULL, 0, &f, err, sizeof err), CV_EINVAL);
    pts[0] = (struct model_point){.steps = 6, .wire_bytes = 3000, .time_s = 1e-5};
    assert_int_equal(model_fit(pts, 1, &f, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "1 point"));
    /* Three measurements of one size: one distinct size. */
    pts[1] = pts[0];
    pts[2] = pts[0];
    pts[1].time_s = 1.1e-5;
    pts[2].time_s = 0.9e-5;
    assert_int_equal(model_fit(pts, 3, &f, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "1 distinct"));
    /* Bytes proportional to steps (chain broadcast with count < W): cannot separate. */
    pts[0] = (struct model_point){.steps = 3, .wire_bytes = 12, .time_s = 1e-5};
    pts[1] = (struct model_point){.steps = 4, .wire_bytes = 16, .time_s = 1.3e-5};
    assert_int_equal(model_fit(pts, 2, &f, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "proportional"));
    /* A time that is not a measurement. */
    pts[0] = (struct model_point){.steps = 6, .wire_bytes = 3000, .time_s = 1e-5};
    pts[1] = (struct model_point){.steps = 6, .wire_bytes = 30000, .time_s = 0.0};
    assert_int_equal(model_fit(pts, 2, &f, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "point 1"));
    pts[1].time_s = NAN;
    assert_int_equal(model_fit(pts, 2, &f, err, sizeof err), CV_EINVAL);
    /* No step on the wire (one rank). */
    pts[0] = (struct model_point){.steps = 0, .wire_bytes = 0, .time_s = 1e-6};
    pts[1] = (struct model_point){.steps = 0, .wire_bytes = 0, .time_s = 2e-6};
    assert_int_equal(model_fit(pts, 2, &f, err, sizeof err), CV_EINVAL);

    /* Not physical, reported as fitted: bigger sizes faster (1/β < 0) ... */
    pts[0] = (struct model_point){.steps = 6, .wire_bytes = 3000, .time_s = 2e-3};
    pts[1] = (struct model_point){.steps = 6, .wire_bytes = 3000000, .time_s = 1e-3};
    pts[2] = (struct model_point){.steps = 6, .wire_bytes = 30000000, .time_s = 0.5e-3};
    assert_int_equal(model_fit(pts, 3, &f, err, sizeof err), CV_OK);
    assert_false(f.physical);
    assert_true(f.inv_beta < 0);
    assert_true(f.beta_Bps == 0.0);
    /* ... and a negative α: times below what the bytes alone need at small sizes. */
    pts[0] = (struct model_point){.steps = 6, .wire_bytes = 1000000, .time_s = 0.5e-3};
    pts[1] = (struct model_point){.steps = 6, .wire_bytes = 2000000, .time_s = 1.5e-3};
    pts[2] = (struct model_point){.steps = 6, .wire_bytes = 3000000, .time_s = 2.5e-3};
    assert_int_equal(model_fit(pts, 3, &f, err, sizeof err), CV_OK);
    assert_false(f.physical);
    assert_close(f.alpha_s, -0.5e-3 / 6, 1e-9, "negative alpha");
    assert_close(f.beta_Bps, 1e9, 1e-9, "beta beside a negative alpha");
}

static void test_tiers(void **state)
{
    (void)state;
    /* The lecture's figures, exactly as stated. */
    assert_true(tier_get(TIER_ONCHIP)->bw_Bps == 0.0);
    assert_string_equal(tier_get(TIER_ONCHIP)->bw_text, "none given");
    assert_non_null(strstr(tier_get(TIER_ONCHIP)->bw_note, "no figure"));
    assert_true(tier_get(TIER_HBM)->bw_Bps == 8e12);
    assert_true(tier_get(TIER_NVLINK)->bw_Bps == 1.8e12);
    assert_true(tier_get(TIER_PCIE)->bw_Bps == 242e9);
    assert_true(tier_get(TIER_IB)->bw_Bps == 50e9);
    assert_true(tier_get(TIER_ETHERNET)->bw_Bps == 200e6);
    assert_null(tier_get(TIER_COUNT));
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct tier *x = tier_get((enum tier_id)t);
        assert_string_equal(x->source, "lecture");
        if (!x->link) continue;
        assert_true(x->model_alpha_s > 0 && x->each_way_Bps > 0);
        assert_non_null(strstr(x->alpha_note, "model assumption"));
        /* β is the stated figure per direction: halved only where it counts both. */
        bool both = strstr(x->bw_note, "both directions") != NULL;
        assert_true(x->each_way_Bps == (both ? x->bw_Bps / 2 : x->bw_Bps));
        assert_non_null(x->vendor); /* where the rate each way comes from, named */
    }
    assert_false(tier_get(TIER_HBM)->link);
    /* Fastest first, each tier's figure above the next. */
    enum tier_id next = TIER_COUNT;
    enum tier_basis basis = TIER_EACH_WAY;
    assert_true(tier_ratio_to_next(TIER_ONCHIP, NULL, NULL) == 0.0);
    /* a memory over a link: in total (8 TB/s over NVLink's both directions, 1.8 TB/s) */
    assert_close(tier_ratio_to_next(TIER_HBM, &next, &basis), 8.0 / 1.8, 1e-12, "HBM/NVLink");
    assert_int_equal(next, TIER_NVLINK);
    assert_int_equal(basis, TIER_IN_TOTAL);
    /* each way: 900 GB/s against 242 (the lecture's 1.8 TB/s counts both directions) */
    assert_close(tier_ratio_to_next(TIER_NVLINK, &next, &basis), 900.0 / 242, 1e-12,
                 "NVLink/PCIe");
    assert_int_equal(next, TIER_PCIE);
    assert_int_equal(basis, TIER_EACH_WAY);
    assert_close(tier_ratio_to_next(TIER_PCIE, NULL, NULL), 242.0 / 50, 1e-12, "PCIe/IB");
    assert_close(tier_ratio_to_next(TIER_IB, NULL, NULL), 250.0, 1e-12, "IB/ethernet");
    assert_true(tier_ratio_to_next(TIER_ETHERNET, NULL, NULL) == 0.0);
    /* a measured busbw against a link each way; a copy's traffic (twice) against a memory */
    assert_close(tier_ratio_measured(TIER_NVLINK, TIER_MEASURED_BUSBW, 2.84e9), 900 / 2.84,
                 1e-12, "busbw/NVLink");
    assert_close(tier_ratio_measured(TIER_HBM, TIER_MEASURED_COPY, 16e9), 8000.0 / 32, 1e-12,
                 "memcpy/HBM");
    assert_true(tier_ratio_measured(TIER_HBM, TIER_MEASURED_BUSBW, 16e9) == 0.0);
    assert_true(tier_ratio_measured(TIER_PCIE, TIER_MEASURED_COPY, 16e9) == 0.0);
    assert_true(tier_ratio_measured(TIER_ONCHIP, TIER_MEASURED_COPY, 16e9) == 0.0);
    assert_true(tier_ratio_measured(TIER_NVLINK, TIER_MEASURED_BUSBW, 0) == 0.0);

    enum tier_id t;
    assert_int_equal(tier_parse("nvlink", &t), 0);
    assert_int_equal(t, TIER_NVLINK);
    assert_int_equal(tier_parse("InfiniBand", &t), 0);
    assert_int_equal(t, TIER_IB);
    assert_int_equal(tier_parse("eth", &t), 0);
    assert_int_equal(t, TIER_ETHERNET);
    assert_int_equal(tier_parse("wifi", &t), -1);
    assert_int_equal(tier_parse(NULL, &t), -1);
    char buf[80];
    tier_keys(buf, sizeof buf);
    assert_string_equal(buf, "onchip, hbm, nvlink, pcie, ib, ethernet");
    tier_format_bw(8e12, buf, sizeof buf);
    assert_string_equal(buf, "8 TB/s");
    tier_format_bw(242e9, buf, sizeof buf);
    assert_string_equal(buf, "242 GB/s");
    tier_format_bw(0.9e12, buf, sizeof buf);
    assert_string_equal(buf, "900 GB/s");
    tier_format_bw(200e6, buf, sizeof buf);
    assert_string_equal(buf, "200 MB/s");
    tier_format_bw(12, buf, sizeof buf);
    assert_string_equal(buf, "12 B/s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_all_reduce_closed_form),
        cmocka_unit_test(test_ring_ag_rs_closed_form),
        cmocka_unit_test(test_hand_worked_plans),
        cmocka_unit_test(test_avg_scale_is_free),
        cmocka_unit_test(test_one_rank),
        cmocka_unit_test(test_busbw_tends_to_beta),
        cmocka_unit_test(test_model_bad_input),
        cmocka_unit_test(test_fit_recovers_alpha_beta),
        cmocka_unit_test(test_fit_refuses),
        cmocka_unit_test(test_tiers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
