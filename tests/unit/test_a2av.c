/* test_a2av.c - all-to-all with per-pair counts (plan_build_a2av): for random count
 * matrices with zero rows, zero columns and zero blocks, the trace and the dependency
 * executor (what the CPU ranks run) must deliver every element to the place the definition
 * says, computed here from the receiver's side by a separate loop; the plan obeys the
 * execution rule; and the count parser takes matrices and names the bad value. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec.h"
#include "core/init.h"
#include "core/plan.h"
#include "core/trace.h"
#include "core/util.h"

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Element i of rank s's block for rank d: a value that names s, d and i. */
static float tag(int s, int d, size_t i)
{
    return (float)(s * 10000 + d * 100 + (int)i);
}

/* A random matrix; with `holes`, one whole row and one whole column are zero. */
static void random_counts(uint64_t *seed, int W, bool holes, size_t *c)
{
    int zr = (int)(lcg(seed) % (uint64_t)W), zc = (int)(lcg(seed) % (uint64_t)W);
    for (int s = 0; s < W; s++)
        for (int d = 0; d < W; d++) {
            size_t v = lcg(seed) % 5; /* 0..4, zeros common */
            if (holes && (s == zr || d == zc)) v = 0;
            c[s * W + d] = v;
        }
}

/* Run one matrix through the trace and the dependency executor and check every rank's
 * receive half, element by element, against what rank d must hold: the blocks of ranks
 * 0..W-1 to d, in source order, then zeros. */
static void check_matrix(int W, const size_t *c)
{
    struct plan p;
    char err[200];
    assert_int_equal(plan_build_a2av(&p, W, c, err, sizeof err), CV_OK);
    size_t n = p.count, half = (size_t)W * n;
    assert_int_equal(p.work_len, 2 * half);
    float *send[CV_MAX_RANKS], *work[CV_MAX_RANKS];
    for (int s = 0; s < W; s++) {
        size_t rows = 0, cols = 0;
        for (int d = 0; d < W; d++) {
            rows += c[s * W + d];
            cols += c[d * W + s];
        }
        assert_true(rows <= half && cols <= half);
        assert_int_equal(plan_send_count(&p, s), rows);
        assert_int_equal(plan_recv_count(&p, s), cols);
        send[s] = xcalloc(half, sizeof(float));
        size_t at = 0;
        for (int d = 0; d < W; d++)
            for (size_t i = 0; i < c[s * W + d]; i++)
                send[s][at++] = tag(s, d, i);
        work[s] = xcalloc(p.work_len, sizeof(float));
        memcpy(work[s], send[s], half * sizeof(float));
    }
    /* The plan's rule: a step writes only receive halves and reads only send halves, so
     * no transfer reads what another writes; and no block is written twice. */
    for (size_t i = 0; i < p.nx; i++) {
        assert_true(p.x[i].src_off + p.x[i].count <= half);
        assert_true(p.x[i].dst_off >= half && p.x[i].dst_off + p.x[i].count <= p.work_len);
        assert_true(p.x[i].count > 0);
    }
    struct trace t;
    assert_int_equal(trace_run(&t, &p, send, err, sizeof err), CV_OK);
    struct plan rp;
    assert_int_equal(plan_refine(&p, 2, 1, &rp, err, sizeof err), CV_OK);
    assert_non_null(rp.vcounts);
    assert_int_equal(exec_plan_deps(&rp, work, 7), CV_OK);
    float *out = xcalloc(half, sizeof(float));
    for (int d = 0; d < W; d++) {
        trace_output(&t, d, out);
        size_t at = 0;
        for (int s = 0; s < W; s++)
            for (size_t i = 0; i < c[s * W + d]; i++, at++) {
                assert_true(out[at] == tag(s, d, i));
                assert_true(work[d][half + at] == tag(s, d, i));
            }
        for (; at < half; at++) {
            assert_true(out[at] == 0.0f);
            assert_true(work[d][half + at] == 0.0f);
        }
    }
    /* The library's reference says the same. */
    float *ref[CV_MAX_RANKS];
    for (int d = 0; d < W; d++)
        ref[d] = xcalloc(half, sizeof(float));
    ref_all_to_all_v(W, c, send, ref, half);
    for (int d = 0; d < W; d++) {
        trace_output(&t, d, out);
        assert_memory_equal(out, ref[d], half * sizeof(float));
        free(ref[d]);
    }
    free(out);
    for (int s = 0; s < W; s++) {
        free(send[s]);
        free(work[s]);
    }
    trace_free(&t);
    plan_free(&rp);
    plan_free(&p);
}

static void test_random_matrices(void **state)
{
    (void)state;
    uint64_t seed = 22;
    size_t c[CV_MAX_RANKS * CV_MAX_RANKS];
    for (int W = 1; W <= 7; W++)
        for (int k = 0; k < 12; k++) {
            random_counts(&seed, W, k % 2 == 0, c);
            check_matrix(W, c);
        }
    random_counts(&seed, CV_MAX_RANKS, true, c);
    check_matrix(CV_MAX_RANKS, c);
}

/* Hand-checked case: rank 1 sends nothing, rank 2 receives nothing from rank 0 or 1. */
static void test_exact_buffers(void **state)
{
    (void)state;
    const size_t c[9] = {1, 2, 0, 0, 0, 0, 3, 1, 1};
    struct plan p;
    char err[200];
    assert_int_equal(plan_build_a2av(&p, 3, c, err, sizeof err), CV_OK);
    /* Most any rank moves: rank 2 sends 5, so W*count = 6 >= 5: count 2. */
    assert_int_equal(p.count, 2);
    assert_int_equal(p.nsteps, 2);
    float s0[6] = {0, 1, 2}, s1[6] = {0}, s2[6] = {20, 21, 22, 23, 24};
    float *send[3] = {s0, s1, s2};
    struct trace t;
    assert_int_equal(trace_run(&t, &p, send, err, sizeof err), CV_OK);
    float out[6];
    const float want0[6] = {0, 20, 21, 22, 0, 0}, want1[6] = {1, 2, 23, 0, 0, 0},
                want2[6] = {24, 0, 0, 0, 0, 0};
    trace_output(&t, 0, out);
    assert_memory_equal(out, want0, sizeof out);
    trace_output(&t, 1, out);
    assert_memory_equal(out, want1, sizeof out);
    trace_output(&t, 2, out);
    assert_memory_equal(out, want2, sizeof out);
    /* Rank 1's send half holds nothing (the mask shows it), its receive half 3 elements. */
    assert_int_equal(trace_mask(&t, 0, 1)[0], 0);
    assert_int_equal(trace_mask(&t, 2, 1)[6 + 2], 1u << 2);
    trace_free(&t);
    plan_free(&p);
}

static void test_all_zero(void **state)
{
    (void)state;
    const size_t c[4] = {0, 0, 0, 0};
    struct plan p;
    char err[200];
    assert_int_equal(plan_build_a2av(&p, 2, c, err, sizeof err), CV_OK);
    assert_int_equal(p.nx, 0);
    assert_int_equal(p.nsteps, 0);
    plan_free(&p);
    const size_t big[1] = {PLAN_MAX_A2AV_COUNT + 1};
    assert_int_equal(plan_build_a2av(&p, 1, big, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "1048577"));
}

static void test_parse_counts(void **state)
{
    (void)state;
    size_t c[CV_MAX_RANKS * CV_MAX_RANKS];
    int W = 0;
    char err[200];
    assert_int_equal(plan_parse_counts("1, 2,0 ; 3,4 ,5;0,0,7", c, &W, err, sizeof err), CV_OK);
    assert_int_equal(W, 3);
    const size_t want[9] = {1, 2, 0, 3, 4, 5, 0, 0, 7};
    assert_memory_equal(c, want, sizeof want);
    assert_int_equal(plan_parse_counts("5", c, &W, err, sizeof err), CV_OK);
    assert_int_equal(W, 1);
    assert_int_equal(c[0], 5);
    assert_int_equal(plan_parse_counts("1,2;3,-4", c, &W, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "counts: row 1 value '-4' is not a whole number 0..1048576");
    assert_int_equal(plan_parse_counts("1,2;3", c, &W, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "counts: row 1 has 1 values, row 0 has 2 (one per rank)");
    assert_int_equal(plan_parse_counts("1,2;3,4;5,6", c, &W, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "3 rows of 2 values"));
    assert_int_equal(plan_parse_counts("1,,2", c, &W, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "counts: row 0 value '' is not a whole number 0..1048576");
    assert_int_equal(plan_parse_counts("", c, &W, err, sizeof err), CV_EINVAL);
    assert_int_equal(plan_parse_counts("1x", c, &W, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "'1x'"));
    assert_int_equal(plan_parse_counts("99999999999999999999", c, &W, err, sizeof err),
                     CV_EINVAL);
    /* 17 rows */
    char many[200] = "";
    for (int i = 0; i < 17; i++)
        strcat(many, i ? ";1" : "1");
    assert_int_equal(plan_parse_counts(many, c, &W, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "counts: more than 16 rows");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_matrices),
        cmocka_unit_test(test_exact_buffers),
        cmocka_unit_test(test_all_zero),
        cmocka_unit_test(test_parse_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
