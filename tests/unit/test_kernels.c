/* test_kernels.c - the host side of kernels/. The measurement pattern is written once, in
 * src/core/pattern_formula.h, and both core (pattern_value / pattern_expected, what the
 * CPU backend checks with) and the kernels (kernels/pattern.h, what the NCCL backend
 * checks with on the GPU) call it; this file checks that the kernels' header really takes
 * its formulas from there (at compile time), and that both core's functions and the
 * kernels' wrappers (the plain-data struct, the receive-count bound) give the answer of an
 * independent oracle (tests/oracle/pattern_oracle.h: the pattern rule stepped by hand and
 * every collective done on real buffers by its definition) bit for bit for every
 * collective, op, world size, root and rank, plus values worked out by hand; the closed
 * form is also checked against core's plain reduction (ref_compute). Also the host
 * references of the training kernels (kernels/ref.h) against values worked out by hand.
 * Needs no CUDA: the GPU half is tests/gpu/test_kernels.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "kernels/pattern.h"
/* The kernels' pattern must come from core's one definition, not from a copy. */
#ifndef COLLVIZ_CORE_PATTERN_FORMULA_H
#error "kernels/pattern.h no longer includes core/pattern_formula.h"
#endif
#include "kernels/ref.h"
#include "core/coll.h"
#include "core/init.h"
#include "core/util.h"
#include "../oracle/pattern_oracle.h"

static bool same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Core's and the kernels' input pattern against the oracle's. */
static void test_pattern_value_equals_oracle(void **state)
{
    (void)state;
    for (int op = 0; op < OP_COUNT; op++)
        for (int r = 0; r < CV_MAX_RANKS; r++)
            for (size_t i = 0; i < 100; i++) {
                float want = oracle_value(op, r, i);
                float core = pattern_value((enum redop)op, r, i);
                float kern = kernel_pattern_value(op, r, i);
                if (!same_bits(core, want) || !same_bits(kern, want))
                    fail_msg("op %d rank %d i %zu: core %.9g, kernels %.9g, oracle %.9g", op, r,
                             i, core, kern, want);
            }
    /* Far indices too: the rule works modulo 11, the index is a size_t. */
    size_t far = ((size_t)1 << 33) + 5;
    assert_true(same_bits(kernel_pattern_value(OP_SUM, 3, far), oracle_value(OP_SUM, 3, far)));
    assert_true(same_bits(pattern_value(OP_PROD, 9, far), oracle_value(OP_PROD, 9, far)));
}

/* The whole receive buffer of every rank, for every case: core's closed form and the
 * kernels' wrapper both equal the oracle bit for bit, and both receive counts equal the
 * oracle's. */
static void test_pattern_expected_equals_oracle(void **state)
{
    (void)state;
    static const int worlds[] = {1, 2, 3, 4, 5, 7, 8, 16};
    static const size_t counts[] = {1, 4, 13};
    long compared = 0;
    float *out[CV_MAX_RANKS];
    size_t nrecv[CV_MAX_RANKS];
    for (int r = 0; r < CV_MAX_RANKS; r++)
        out[r] = test_malloc(CV_MAX_RANKS * 13 * sizeof(float));
    for (int c = 0; c < COLL_COUNT; c++)
        for (int op = 0; op < OP_COUNT; op++)
            for (size_t wi = 0; wi < ARRAY_LEN(worlds); wi++)
                for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
                    int w = worlds[wi];
                    int roots[2] = {0, w - 1};
                    for (int ri = 0; ri < (w > 1 ? 2 : 1); ri++) {
                        size_t count = counts[ci];
                        oracle_collective(c, op, w, count, roots[ri], out, nrecv);
                        for (int r = 0; r < w; r++) {
                            struct kernel_pattern q = {.coll = c,
                                                       .op = op,
                                                       .nranks = w,
                                                       .root = roots[ri],
                                                       .rank = r,
                                                       .count = count};
                            assert_int_equal(coll_recv_count((enum coll)c, w, count, r, q.root),
                                             nrecv[r]);
                            assert_int_equal(kernel_recv_count(c, w, count, r, q.root),
                                             nrecv[r]);
                            for (size_t j = 0; j < nrecv[r]; j++) {
                                float want = out[r][j];
                                float core = pattern_expected((enum coll)c, (enum redop)op, w,
                                                              count, q.root, r, j);
                                float kern = kernel_pattern_expected(q, j);
                                if (!same_bits(core, want) || !same_bits(kern, want))
                                    fail_msg("%s %s W=%d root %d rank %d count %zu j %zu: "
                                             "core %.9g, kernels %.9g, oracle %.9g",
                                             coll_name((enum coll)c),
                                             redop_name((enum redop)op), w, q.root, r, count, j,
                                             core, kern, want);
                                compared++;
                            }
                        }
                    }
                }
    for (int r = 0; r < CV_MAX_RANKS; r++)
        test_free(out[r]);
    /* Every collective produced output somewhere: the loops really compared elements. */
    assert_true(compared > 100000);
}

/* The oracle itself, on values worked out by hand (so a slip in it cannot hide one in
 * the code): W = 3, count = 2, sum. Rank q's inputs: q=0: -5 -2 1 4 -4 -1; q=1: 2 -6+11..
 * v(q, i) = (7q + 3i) mod 11: q=0: 0 3 6 9 1 4 -> -5 -2 1 4 -4 -1; q=1: 7 10 2 5 8 0 ->
 * 2 5 -3 0 3 -5; q=2: 3 6 9 1 4 7 -> -2 1 4 -4 -1 2. */
static void test_oracle_by_hand(void **state)
{
    (void)state;
    float b0[6], b1[6], b2[6], *out[3] = {b0, b1, b2};
    size_t nrecv[3];
    oracle_collective(COLL_ALL_REDUCE, OP_SUM, 3, 2, 0, out, nrecv);
    assert_int_equal(nrecv[2], 2);
    assert_true(same_bits(b2[0], -5.0f + 2.0f - 2.0f) && same_bits(b2[1], -2.0f + 5.0f + 1.0f));
    oracle_collective(COLL_REDUCE_SCATTER, OP_MAX, 3, 2, 0, out, nrecv);
    assert_true(same_bits(b1[0], 4.0f) &&
                same_bits(b1[1], 4.0f)); /* max(1,-3,4), max(4,0,-4) */
    oracle_collective(COLL_ALL_TO_ALL, OP_SUM, 3, 2, 0, out, nrecv);
    assert_int_equal(nrecv[0], 6);
    /* rank 2 gets block 2 of ranks 0, 1, 2: (-4 -1) (3 -5) (-1 2) */
    const float a2a[6] = {-4, -1, 3, -5, -1, 2};
    for (int j = 0; j < 6; j++)
        assert_true(same_bits(b2[j], a2a[j]));
    oracle_collective(COLL_GATHER, OP_SUM, 3, 2, 1, out, nrecv);
    assert_int_equal(nrecv[0], 0);
    assert_int_equal(nrecv[1], 6);
    const float g[6] = {-5, -2, 2, 5, -2, 1};
    for (int j = 0; j < 6; j++)
        assert_true(same_bits(b1[j], g[j]));
    oracle_collective(COLL_SCATTER, OP_SUM, 3, 2, 2, out, nrecv);
    assert_true(same_bits(b1[0], 4.0f) && same_bits(b1[1], -4.0f)); /* root 2's block 1 */
    oracle_collective(COLL_ALL_REDUCE, OP_AVG, 3, 2, 0, out, nrecv);
    assert_true(same_bits(b0[1], 4.0f / 3.0f));
    oracle_collective(COLL_ALL_REDUCE, OP_PROD, 3, 2, 0, out, nrecv);
    /* v mod 3 for i = 0: 0, 7 -> 1, 3 -> 0: 0.5 * 1 * 0.5 */
    assert_true(same_bits(b0[0], 0.25f));
}

/* The formula's values worked out by hand: v = (7*rank + 3*(i mod 11)) mod 11, then v - 5,
 * or for prod 1/2, 1, 2 by v mod 3. */
static void test_pattern_value_by_hand(void **state)
{
    (void)state;
    assert_true(same_bits(pattern_value(OP_SUM, 0, 0), -5.0f)); /* v = 0 */
    assert_true(same_bits(pattern_value(OP_SUM, 1, 0), 2.0f));  /* v = 7 */
    assert_true(same_bits(pattern_value(OP_SUM, 0, 1), -2.0f)); /* v = 3 */
    assert_true(same_bits(pattern_value(OP_MAX, 2, 5), 2.0f));  /* v = 29 mod 11 = 7 */
    assert_true(same_bits(pattern_value(OP_AVG, 0, 13), 1.0f)); /* i mod 11 = 2: v = 6 */
    assert_true(same_bits(pattern_value(OP_PROD, 0, 0), 0.5f)); /* v = 0 */
    assert_true(same_bits(pattern_value(OP_PROD, 1, 0), 1.0f)); /* v = 7 */
    assert_true(same_bits(pattern_value(OP_PROD, 0, 8), 2.0f)); /* v = 24 mod 11 = 2 */
    /* all-reduce sum of element 0 over 2 ranks: -5 + 2; avg: / 2 */
    assert_true(same_bits(pattern_expected(COLL_ALL_REDUCE, OP_SUM, 2, 4, 0, 1, 0), -3.0f));
    assert_true(same_bits(pattern_expected(COLL_ALL_REDUCE, OP_AVG, 2, 4, 0, 0, 0), -1.5f));
    /* past the receive buffer (a non-root of reduce has none): 0 */
    assert_true(same_bits(pattern_expected(COLL_REDUCE, OP_SUM, 4, 4, 0, 1, 0), 0.0f));
    assert_true(same_bits(kernel_pattern_expected((struct kernel_pattern){.coll = COLL_REDUCE,
                                                                          .op = OP_SUM,
                                                                          .nranks = 4,
                                                                          .root = 0,
                                                                          .rank = 1,
                                                                          .count = 4},
                                                  0),
                          0.0f));
}

/* The closed form against a plain reduction of the inputs, written from the definitions
 * with no formula (core's ref_compute on send buffers filled with pattern_value). */
static void test_pattern_expected_equals_reference(void **state)
{
    (void)state;
    static const int worlds[] = {1, 2, 3, 5, 8, 16};
    static const size_t counts[] = {1, 6, 13};
    long compared = 0;
    for (int c = 0; c < COLL_COUNT; c++)
        for (int op = 0; op < OP_COUNT; op++)
            for (size_t wi = 0; wi < ARRAY_LEN(worlds); wi++)
                for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
                    int w = worlds[wi];
                    size_t n = counts[ci];
                    int root = w - 1;
                    float *send[CV_MAX_RANKS], *recv[CV_MAX_RANKS];
                    for (int r = 0; r < w; r++) {
                        size_t ns = coll_send_count((enum coll)c, w, n, r, root);
                        size_t nr = coll_recv_count((enum coll)c, w, n, r, root);
                        send[r] = test_malloc((ns ? ns : 1) * sizeof(float));
                        recv[r] = test_malloc((nr ? nr : 1) * sizeof(float));
                        for (size_t i = 0; i < ns; i++)
                            send[r][i] = pattern_value((enum redop)op, r, i);
                    }
                    ref_compute((enum coll)c, (enum redop)op, w, n, root, send, recv);
                    for (int r = 0; r < w; r++) {
                        size_t nr = coll_recv_count((enum coll)c, w, n, r, root);
                        for (size_t j = 0; j < nr; j++) {
                            float want = recv[r][j];
                            float got = pattern_expected((enum coll)c, (enum redop)op, w, n,
                                                         root, r, j);
                            if (!same_bits(got, want))
                                fail_msg("%s %s W=%d count %zu rank %d j %zu: closed form "
                                         "%.9g, reference %.9g",
                                         coll_name((enum coll)c), redop_name((enum redop)op), w,
                                         n, r, j, got, want);
                            compared++;
                        }
                        test_free(send[r]);
                        test_free(recv[r]);
                    }
                }
    assert_true(compared > 10000);
}

static void test_pattern_matches(void **state)
{
    (void)state;
    assert_true(kernel_pattern_matches(2.0f, 2.0f, 0.0f));
    assert_false(kernel_pattern_matches(2.0f, nextafterf(2.0f, 3.0f), 0.0f));
    assert_false(kernel_pattern_matches(NAN, NAN, 0.0f));
    assert_false(kernel_pattern_matches(NAN, 1.0f, 1e-4f));
    /* Relative to max(1, |want|): 1e-4 of 1 near zero, 1e-4 of 10 at 10. */
    assert_true(kernel_pattern_matches(0.00009f, 0.0f, 1e-4f));
    assert_false(kernel_pattern_matches(0.00011f, 0.0f, 1e-4f));
    assert_true(kernel_pattern_matches(10.0009f, 10.0f, 1e-4f));
    assert_false(kernel_pattern_matches(10.0011f, 10.0f, 1e-4f));
    /* The smallest real error of these integer patterns (1/16) is never tolerated. */
    assert_false(kernel_pattern_matches(1.0f + 1.0f / 16, 1.0f, 1e-4f));
}

static void test_ref_count_wrong(void **state)
{
    (void)state;
    struct kernel_pattern q = {
        .coll = COLL_ALL_GATHER, .op = OP_SUM, .nranks = 3, .root = 0, .rank = 1, .count = 5};
    float buf[15];
    for (size_t j = 0; j < 15; j++)
        buf[j] = pattern_expected(COLL_ALL_GATHER, OP_SUM, 3, 5, 0, 1, j);
    assert_int_equal(kernel_ref_count_wrong(buf, 15, q, 0.0f), 0);
    buf[0] += 1.0f;
    buf[14] = NAN;
    assert_int_equal(kernel_ref_count_wrong(buf, 15, q, 0.0f), 2);

    float send[7];
    kernel_ref_fill_pattern(send, 7, OP_PROD, 4);
    for (size_t i = 0; i < 7; i++)
        assert_true(same_bits(send[i], pattern_value(OP_PROD, 4, i)));
}

static void test_ref_gelu(void **state)
{
    (void)state;
    /* gelu(x) = x * Phi(x): Phi(1) = 0.8413447461, phi(1) = 0.2419707245. */
    float x[4] = {0.0f, 1.0f, -1.0f, 3.0f}, y[4], dy[4] = {1, 1, 1, 2}, dx[4];
    kernel_ref_gelu_forward(x, y, 4);
    assert_float_equal(y[0], 0.0f, 0.0f);
    assert_float_equal(y[1], 0.8413447f, 1e-6f);
    assert_float_equal(y[2], -0.1586553f, 1e-6f);
    assert_float_equal(y[3], 3.0f * 0.9986501f, 1e-5f);
    kernel_ref_gelu_backward(x, dy, dx, 4);
    assert_float_equal(dx[0], 0.5f, 1e-7f);
    assert_float_equal(dx[1], 0.8413447f + 0.2419707f, 1e-6f);
    assert_float_equal(dx[2], 0.1586553f - 0.2419707f, 1e-6f);
    /* The derivative agrees with a central difference of the forward formula. */
    for (double v = -4.0; v <= 4.0; v += 0.37) {
        double h = 1e-3;
        double fd = (kernel_gelu((float)(v + h)) - kernel_gelu((float)(v - h))) / (2 * h);
        assert_float_equal(kernel_gelu_grad((float)v), fd, 2e-3);
    }
}

static void test_ref_mse(void **state)
{
    (void)state;
    float x[4] = {1.0f, -2.0f, 3.0f, 0.5f}, dx[4];
    /* (1 + 4 + 9 + 0.25) / 4 */
    assert_float_equal(kernel_ref_mse_loss(x, 4, 4.0), 3.5625f, 0.0f);
    assert_float_equal(kernel_ref_mse_loss(x, 4, 8.0), 1.78125f, 0.0f);
    kernel_ref_mse_grad(x, dx, 4, 4.0);
    assert_float_equal(dx[0], 0.5f, 0.0f);
    assert_float_equal(dx[1], -1.0f, 0.0f);
    assert_float_equal(dx[3], 0.25f, 0.0f);
}

static void test_ref_adamw(void **state)
{
    (void)state;
    struct kernel_adamw h = {
        .lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.01f};
    float p[2] = {1.0f, -2.0f}, g[2] = {0.5f, 0.0f}, m[2] = {0, 0}, v[2] = {0, 0};
    kernel_ref_adamw_step(p, g, m, v, 2, h, 1);
    /* Step 1: m = 0.05, v = 0.00025, mhat = 0.5, vhat = 0.25: the step is lr * 0.5 / 0.5;
     * decay first: 1 * (1 - 1e-5). A zero gradient only decays. (1 - beta) in float is
     * not exactly 0.1 / 0.001, hence the tolerances.) */
    assert_float_equal(m[0], 0.05f, 1e-7f);
    assert_float_equal(v[0], 0.00025f, 1e-8f);
    assert_float_equal(p[0], 1.0f - 1e-5f - 1e-3f, 1e-7f);
    assert_float_equal(p[1], -2.0f * (1.0f - 1e-5f), 1e-7f);
    float bc1, bc2;
    kernel_adamw_bias(h, 2, &bc1, &bc2);
    assert_float_equal(bc1, 0.19f, 1e-7f);
    assert_float_equal(bc2, 1.0f - 0.998001f, 1e-7f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_oracle_by_hand),
        cmocka_unit_test(test_pattern_value_equals_oracle),
        cmocka_unit_test(test_pattern_expected_equals_oracle),
        cmocka_unit_test(test_pattern_value_by_hand),
        cmocka_unit_test(test_pattern_expected_equals_reference),
        cmocka_unit_test(test_pattern_matches),
        cmocka_unit_test(test_ref_count_wrong),
        cmocka_unit_test(test_ref_gelu),
        cmocka_unit_test(test_ref_mse),
        cmocka_unit_test(test_ref_adamw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
