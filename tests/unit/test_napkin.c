/* test_napkin.c - the napkin math (core/napkin.h) against the lecture's own worked
 * exercises (effective bandwidth, DDP sync time, TP vs DDP elements) and the per-scheme
 * costs against the ring closed forms worked here by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/napkin.h"
#include "core/util.h"

static void assert_close(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want))) fail_msg("got %.17g, want %.17g", got, want);
}

static void test_lecture_exercises(void **state)
{
    (void)state;
    /* 7.1: 200·1024² fp32 on 8 ranks in 3.5 ms: 0.839 GB · 2 · 7 / (8 · 3.5 ms) ≈ 420 GB/s. */
    double S = 200.0 * 1024 * 1024 * 4;
    assert_close(napkin_effective_bw(S, 8, 3.5e-3), S * 14 / 0.028, 1e-15);
    assert_close(napkin_effective_bw(S, 8, 3.5e-3) / 1e9, 419.4304, 1e-9);
    /* The lecture's benchmark: 100·1024² fp32 on 4 ranks in ~1.6 ms: ~400 GB/s (393). */
    assert_close(napkin_effective_bw(100.0 * 1024 * 1024 * 4, 4, 1.6e-3) / 1e9, 393.216, 1e-9);
    assert_true(napkin_effective_bw(S, 1, 1e-3) == 0.0);
    assert_true(napkin_effective_bw(S, 4, 0.0) == 0.0);
    /* 7.3: 1e9 fp32 gradients at 400 GB/s: 2 · 4 GB / 400 GB/s = 20 ms (large W); on 4 ranks
     * the exact factor 2·3/4 gives 15 ms. */
    assert_close(napkin_ddp_sync_s(1e9, 4, 400e9, 0), 0.02, 1e-15);
    assert_close(napkin_ddp_sync_s(1e9, 4, 400e9, 4), 0.015, 1e-15);
    assert_true(napkin_ddp_sync_s(1e9, 4, 0, 4) == 0.0);
    /* 7.4: B = 128, D = 1024: DDP moves D/B = 8 times the elements of TP. */
    assert_close(napkin_tp_elements(4, 128, 1024), 4.0 * 128 * 1024, 0);
    assert_close(napkin_ddp_elements(4, 1024), 4.0 * 1024 * 1024, 0);
    assert_close(napkin_ddp_elements(4, 1024) / napkin_tp_elements(4, 128, 1024), 8.0, 0);
}

/* The lecture's MLP, L=4, B=128, D=1024, W=4, M=4, on α = 1 µs, β = 1 GB/s:
 *   DDP: all-reduce of 4·1024²·4 B = 16 MiB: ring, 6 steps of 4 MiB:
 *        6·(1e-6 + 4194304/1e9) = 0.025171824 s
 *   TP:  4 all-gathers of 128·1024·4 B = 512 KiB: ring, 3 steps of 128 KiB each:
 *        4·3·(1e-6 + 131072/1e9) = 0.001584864 s
 *   PP:  one boundary, 4 sends of 32·1024·4 B: 4·1e-6 + 524288/1e9 = 0.000528288 s */
static void test_schemes(void **state)
{
    (void)state;
    struct napkin_schemes s;
    char err[200];
    assert_int_equal(napkin_schemes(4, 128, 1024, 4, 4, 1e-6, 1e9, &s, err, sizeof err), CV_OK);
    assert_close(s.ddp.bytes, 16777216, 0);
    assert_int_equal(s.ddp.calls, 1);
    assert_close(s.ddp.time_s, 0.025171824, 1e-12);
    assert_close(s.tp.bytes, 4 * 524288.0, 0);
    assert_int_equal(s.tp.calls, 4);
    assert_close(s.tp.time_s, 0.001584864, 1e-12);
    assert_close(s.pp.bytes, 524288, 0);
    assert_int_equal(s.pp.calls, 4);
    assert_close(s.pp.time_s, 0.000528288, 1e-12);
    /* Latency-bound: on a link with α = 50 µs, TP's 12 ring steps cost 600 µs in α alone. */
    assert_int_equal(napkin_schemes(4, 128, 1024, 4, 4, 50e-6, 1e15, &s, err, sizeof err),
                     CV_OK);
    assert_close(s.tp.time_s, 12 * 50e-6 + 4 * 3 * 131072 / 1e15, 1e-12);

    assert_int_equal(napkin_schemes(4, 128, 1024, 4, 129, 1e-6, 1e9, &s, err, sizeof err),
                     CV_EINVAL);
    assert_non_null(strstr(err, "micro-batches 129"));
    assert_int_equal(napkin_schemes(0, 128, 1024, 4, 4, 1e-6, 1e9, &s, err, sizeof err),
                     CV_EINVAL);
    /* B·D = 1 float cannot be split over 4 ranks for the all-gather. */
    assert_int_equal(napkin_schemes(1, 1, 1, 4, 1, 1e-6, 1e9, &s, err, sizeof err), CV_EINVAL);
    assert_int_equal(napkin_schemes(4, 128, 1024, 4, 4, 1e-6, 0, &s, err, sizeof err),
                     CV_EINVAL);
}

/* The ZeRO paper's Figure 1: Ψ = 7.5B, K = 12, N_d = 64; and at N = 1 every stage is DDP. */
static void test_zero_memory(void **state)
{
    (void)state;
    struct napkin_zero z;
    napkin_zero_memory(7.5e9, 12, 64, &z);
    assert_float_equal(z.ddp, 120e9, 1);
    assert_float_equal(z.stage1, 30e9 + 90e9 / 64, 1);
    assert_float_equal(z.stage2, 15e9 + 105e9 / 64, 1);
    assert_float_equal(z.stage3, 120e9 / 64, 1);
    assert_float_equal(z.stage1 / 1e9, 31.4, 0.05);
    assert_float_equal(z.stage2 / 1e9, 16.6, 0.05);
    assert_float_equal(z.stage3 / 1e9, 1.9, 0.05);
    napkin_zero_memory(1e6, 12, 1, &z);
    assert_true(z.stage1 == z.ddp && z.stage2 == z.ddp && z.stage3 == z.ddp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_memory),
        cmocka_unit_test(test_lecture_exercises),
        cmocka_unit_test(test_schemes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
