/* test_train_moe.c - mixture of experts (parallel/moe.c) on CPU ranks: equality with the
 * single-device reference at odd shapes (D = 7, 5 rows per rank) for W = 2, 3, 4, E = W
 * and 2W, K = 1 and 2, capacity 0 (dropless), 1.0 and 0.5 (drops); the first layer's
 * routing and drops against a computation written out here (the forward in double, its
 * own softmax, top-k and capacity); the exchanges' byte counts against the routing; the
 * memory count from the shapes; refused configurations; the screen's summary. Sizes are
 * tiny: about a second. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "parallel/moe.h"
#include "parallel/summary.h"
#include "parallel/train.h"

static void cfg_of(struct train_config *c, int W, int E, int K, double C, int D, int B)
{
    train_config_default(c);
    c->scheme = TRAIN_MOE;
    c->nranks = W;
    c->layers = 2;
    c->dim = D;
    c->batch = B;
    c->steps = 2;
    c->seed = 5;
    c->experts = E;
    c->topk = K;
    c->capacity = C;
}

static void run_ok(const struct train_config *c, struct train_result *r)
{
    char err[256] = "";
    int rc = train_run(c, r, NULL, err, sizeof err);
    if (rc != CV_OK) fail_msg("moe W=%d E=%d: %s", c->nranks, c->experts, err);
}

static size_t sum_u(const size_t *v, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

static void test_equals_one_device(void **state)
{
    (void)state;
    static const double caps[3] = {0, 1.0, 0.5};
    size_t drops_half = 0;
    for (int W = 2; W <= 4; W++)
        for (int em = 1; em <= 2; em++)
            for (int K = 1; K <= 2; K++)
                for (int ci = 0; ci < 3; ci++) {
                    struct train_config c;
                    cfg_of(&c, W, em * W, K, caps[ci], 7, 5 * W);
                    struct train_result r, ref;
                    run_ok(&c, &r);
                    struct train_config rc = train_reference_of(&c);
                    run_ok(&rc, &ref);
                    struct train_deviation d;
                    train_compare(&r, &ref, &d);
                    if (!d.within)
                        fail_msg("W=%d E=%d K=%d C=%g: loss %g params %g routing %zu", W,
                                 em * W, K, caps[ci], d.loss_rel, d.param_abs,
                                 d.moe_routing_diff);
                    assert_int_equal(d.moe_routing_diff, 0);
                    assert_int_equal(ref.moe.groups, W);
                    size_t dr = sum_u(r.moe.dropped_total, W);
                    assert_int_equal(dr, sum_u(ref.moe.dropped_total, 1 * W));
                    if (caps[ci] == 0) assert_int_equal(dr, 0);
                    if (caps[ci] == 0.5) drops_half += dr;
                    /* the experts and routers are compared too: the parameters moved */
                    size_t np = train_param_count(&c);
                    assert_int_equal(np, 2 * 49 + 2 * (size_t)em * W * 49 + 2 * 7 * em * W);
                    train_result_free(&r);
                    train_result_free(&ref);
                }
    assert_true(drops_half > 0); /* capacity 0.5 drops at every shape, so some were tested */
}

/* ---- layer 0 written out independently: x0 = data, h = gelu(x0 @ W0), p = softmax(h R0) */

static void ref_routing_layer0(const struct train_config *c, size_t *routed, size_t *kept,
                               double *min_gap)
{
    int D = c->dim, B = c->batch, E = c->experts, K = c->topk, W = c->nranks, n = B / W;
    float *x = malloc(sizeof(float) * B * D), *w = malloc(sizeof(float) * D * D);
    float *r = malloc(sizeof(float) * D * E);
    mlp_init_data(c->seed, B, D, x);
    mlp_init_weights(c->seed, 0, D, w);
    moe_init_router(c->seed, 0, D, E, r);
    int cap = c->capacity > 0 ? (int)ceil(c->capacity * n * K / E) : 0;
    double *h = malloc(sizeof(double) * D), *p = malloc(sizeof(double) * E);
    int *top = malloc(sizeof(int) * B * K);
    *min_gap = 1;
    for (int t = 0; t < B; t++) {
        for (int j = 0; j < D; j++) {
            double z = 0;
            for (int i = 0; i < D; i++)
                z += (double)x[t * D + i] * w[i * D + j];
            h[j] = 0.5 * z * (1 + erf(z / sqrt(2.0)));
        }
        double sum = 0;
        for (int e = 0; e < E; e++) {
            double l = 0;
            for (int j = 0; j < D; j++)
                l += h[j] * r[j * E + e];
            p[e] = exp(l);
            sum += p[e];
        }
        for (int e = 0; e < E; e++)
            p[e] /= sum;
        /* top-k by sorting indices on p, decreasing */
        int idx[64];
        for (int e = 0; e < E; e++)
            idx[e] = e;
        for (int a = 0; a < E; a++)
            for (int b = a + 1; b < E; b++)
                if (p[idx[b]] > p[idx[a]]) {
                    int tmp = idx[a];
                    idx[a] = idx[b];
                    idx[b] = tmp;
                }
        for (int k = 0; k < K; k++) {
            top[t * K + k] = idx[k];
            routed[(t / n) * E + idx[k]]++;
        }
        for (int k = 0; k + 1 < E && k <= K; k++) /* the gaps that decide the choice */
            if (p[idx[k]] - p[idx[k + 1]] < *min_gap) *min_gap = p[idx[k]] - p[idx[k + 1]];
    }
    for (int g = 0; g < W; g++) { /* capacity: first choices of the group, then second */
        int load[64] = {0};
        for (int k = 0; k < K; k++)
            for (int t = g * n; t < (g + 1) * n; t++) {
                int e = top[t * K + k];
                if (!cap || load[e] < cap) {
                    load[e]++;
                    kept[g * E + e]++;
                }
            }
    }
    free(x);
    free(w);
    free(r);
    free(h);
    free(p);
    free(top);
}

static void test_routing_against_written_out(void **state)
{
    (void)state;
    static const int shapes[][4] = {{2, 4, 2, 0}, {3, 6, 2, 1}, {4, 4, 1, 2},
                                    {2, 2, 1, 2}, {4, 8, 2, 2}, {3, 3, 2, 1}};
    static const double caps[3] = {0, 1.0, 0.5};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        int W = shapes[s][0], E = shapes[s][1], K = shapes[s][2];
        struct train_config c;
        cfg_of(&c, W, E, K, caps[shapes[s][3]], 9, 6 * W);
        c.steps = 1;
        struct train_result r;
        run_ok(&c, &r);
        size_t routed[4 * 8] = {0}, kept[4 * 8] = {0};
        double gap;
        ref_routing_layer0(&c, routed, kept, &gap);
        /* no choice here is closer than float rounding could move it */
        assert_true(gap > 1e-5);
        for (int i = 0; i < W * E; i++) {
            if (routed[i] != r.moe.routed[i] || kept[i] != r.moe.kept[i])
                fail_msg("shape %zu, rank %d expert %d: routed %zu/%zu kept %zu/%zu", s, i / E,
                         i % E, r.moe.routed[i], routed[i], r.moe.kept[i], kept[i]);
        }
        int n = c.batch / W;
        int cap = c.capacity > 0 ? (int)ceil(c.capacity * n * K / E) : 0;
        assert_int_equal(r.moe.capacity, cap);
        /* drops: routed - kept over both layers, per rank; every token routed K times */
        for (int g = 0; g < W; g++) {
            size_t dr = 0, all = 0;
            for (int l = 0; l < 2; l++)
                for (int e = 0; e < E; e++) {
                    size_t i = ((size_t)l * W + g) * E + e;
                    dr += r.moe.routed[i] - r.moe.kept[i];
                    all += r.moe.routed[i];
                    if (cap) assert_true(r.moe.kept[i] <= (size_t)cap);
                }
            assert_int_equal(all, 2 * (size_t)n * K);
            assert_int_equal(r.moe.dropped_last[g], dr);
            if (!cap) assert_int_equal(dr, 0);
        }
        /* the exchanges' bytes: what rank g's kept tokens for other ranks' experts weigh,
         * and what comes back; the counts: E/W floats to each other rank, per layer */
        int El = E / W;
        for (int g = 0; g < W; g++) {
            size_t out = 0, in = 0;
            for (int l = 0; l < 2; l++)
                for (int q = 0; q < W; q++)
                    for (int j = 0; j < El; j++) {
                        if (q == g) continue;
                        out += r.moe.kept[((size_t)l * W + g) * E + q * El + j];
                        in += r.moe.kept[((size_t)l * W + q) * E + g * El + j];
                    }
            assert_int_equal(r.moe.dispatch_bytes[g], out * 9 * sizeof(float));
            assert_int_equal(r.moe.combine_bytes[g], in * 9 * sizeof(float));
            assert_int_equal(r.moe.counts_bytes[g], 2 * (size_t)(W - 1) * El * sizeof(float));
            assert_true(r.moe.dispatch_s[g] > 0 && r.moe.combine_s[g] > 0);
        }
        train_result_free(&r);
    }
}

static void test_memory_count(void **state)
{
    (void)state;
    struct train_config c;
    cfg_of(&c, 3, 6, 2, 1.0, 7, 15);
    struct train_result r;
    run_ok(&c, &r);
    /* per rank: dense 2·49, routers 2·7·6, its 2 experts per layer 2·2·49 floats */
    size_t p = (2 * 49 + 2 * 7 * 6 + 2 * 2 * 49) * sizeof(float);
    for (int g = 0; g < 3; g++) {
        assert_int_equal(r.mem[g].params, p);
        assert_int_equal(r.mem[g].grads, p);
        assert_int_equal(r.mem[g].optimizer, 2 * p);
    }
    assert_true(r.replica_max_diff == 0); /* the dense layers and routers stay in sync */
    train_result_free(&r);
}

static void test_one_rank(void **state)
{
    (void)state;
    struct train_config c;
    cfg_of(&c, 1, 3, 2, 0.5, 6, 7);
    struct train_result r, ref;
    run_ok(&c, &r);
    struct train_config rc = train_reference_of(&c);
    run_ok(&rc, &ref);
    struct train_deviation d;
    train_compare(&r, &ref, &d);
    assert_true(d.within);
    assert_int_equal(r.moe.dispatch_bytes[0], 0); /* nothing leaves the one rank */
    train_result_free(&r);
    train_result_free(&ref);
}

static void test_refused(void **state)
{
    (void)state;
    char err[256];
    struct train_config c;
    struct train_result r;
    cfg_of(&c, 4, 6, 2, 1.0, 8, 8);
    assert_int_equal(train_run(&c, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--experts 6 is not divisible by --ranks 4"));
    cfg_of(&c, 2, 4, 5, 1.0, 8, 8);
    assert_int_equal(train_run(&c, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--topk 5"));
    cfg_of(&c, 2, 4, 2, -0.5, 8, 8);
    assert_int_equal(train_run(&c, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--capacity -0.5"));
    cfg_of(&c, 2, 4, 2, NAN, 8, 8);
    assert_int_equal(train_run(&c, &r, NULL, err, sizeof err), CV_EINVAL);
    cfg_of(&c, 3, 6, 2, 1.0, 8, 8);
    assert_int_equal(train_run(&c, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--batch 8 is not divisible by --ranks 3"));
}

/* The screen's lecture-scale summary (summary.h) carries the run's drops, capacity and
 * exchanges: the same run through train_run gives the same counts. */
static void test_summary(void **state)
{
    (void)state;
    struct train_config c;
    cfg_of(&c, 2, 4, 2, 0.5, 9, 12);
    struct train_summary *s = calloc(1, sizeof *s);
    char err[200];
    assert_int_equal(train_summary_run(&c, s, NULL, err, sizeof err), CV_OK);
    struct train_result r;
    run_ok(&c, &r);
    assert_true(s->dev.within);
    assert_int_equal(s->dev.moe_routing_diff, 0);
    assert_int_equal(s->moe.capacity, 2); /* ceil(0.5 * 6 * 2 / 4) */
    assert_int_equal(s->moe.dropped, sum_u(r.moe.dropped_last, 2));
    assert_true(s->moe.dropped > 0);
    size_t most = r.moe.dispatch_bytes[0] > r.moe.dispatch_bytes[1] ? r.moe.dispatch_bytes[0]
                                                                    : r.moe.dispatch_bytes[1];
    assert_int_equal(s->moe.dispatch_bytes, most);
    assert_true(s->moe.dispatch_busbw > 0 && s->moe.combine_busbw > 0);
    train_result_free(&r);
    free(s);
}

/* A timed exchange (dispatch, combine) ends together on every rank: no rank starts the
 * compute after it before every rank's last receive of it. Otherwise, on fewer cores than
 * ranks, a rank that went on early held the core a slower rank needed, and the slower
 * rank's exchange time (its busbw) counted that compute. Order, not time: it holds on a
 * busy machine. */
static void test_exchange_ends_together(void **state)
{
    (void)state;
    struct train_config c;
    cfg_of(&c, 4, 8, 2, 1.0, 64, 32);
    c.steps = 3;
    struct train_result r;
    run_ok(&c, &r);
    static const char *const pairs[][2] = {{"dispatch", "experts"},
                                           {"combine", "fwd L%d gates"}};
    int checked = 0;
    for (int s = 0; s < c.steps; s++)
        for (int l = 0; l < c.layers; l++)
            for (size_t k = 0; k < ARRAY_LEN(pairs); k++) {
                char xl[32], cl[32];
                snprintf(xl, sizeof xl, "%s L%d", pairs[k][0], l);
                if (k == 0)
                    snprintf(cl, sizeof cl, "%s L%d", pairs[k][1], l);
                else
                    snprintf(cl, sizeof cl, pairs[k][1], l);
                double last_recv = -1, first_compute = 1e30;
                for (size_t i = 0; i < r.nevents; i++) {
                    const struct tl_event *e = &r.events[i];
                    if (e->step != s || e->lane != 0) continue;
                    if (e->kind == TL_RECV && !strcmp(e->label, xl) && e->t1 > last_recv)
                        last_recv = e->t1;
                    if (e->kind == TL_COMPUTE && !strcmp(e->label, cl) && e->t0 < first_compute)
                        first_compute = e->t0;
                }
                assert_true(last_recv >= 0 && first_compute < 1e30);
                if (first_compute < last_recv)
                    fail_msg("step %d: '%s' started %.1f us before the last receive of '%s'", s,
                             cl, (last_recv - first_compute) * 1e6, xl);
                checked++;
            }
    assert_int_equal(checked, 3 * 2 * 2);
    train_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equals_one_device),
        cmocka_unit_test(test_routing_against_written_out),
        cmocka_unit_test(test_memory_count),
        cmocka_unit_test(test_one_rank),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_exchange_ends_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
