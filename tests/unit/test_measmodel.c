/* test_measmodel.c - the model beside the collectives screen's measured panel
 * (ui/screens/collectives/measmodel.h): which α and β it uses and how it says so, the fit of
 * sweep rows (recovering α and β from rows made by the model; an algorithm the model does
 * not know counted as the fallback), and the busbw curve. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/model.h"
#include "core/util.h"
#include "ui/screens/collectives/measmodel.h"

static void test_choose(void **state)
{
    (void)state;
    struct mm_params p;
    struct model_fit f = {.alpha_s = 7e-6,
                          .inv_beta = 1 / 3e9,
                          .beta_Bps = 3e9,
                          .r2 = 0.998,
                          .npoints = 8,
                          .physical = true};
    mm_choose(&f, 16, 4, false, false, &p);
    assert_int_equal(p.source, MM_FIT);
    assert_true(p.alpha_s == 7e-6 && p.beta_Bps == 3e9);
    assert_string_equal(p.text,
                        "alpha 7 us, beta 3 GB/s: fit of the sweep, R^2 0.998 over 8 sizes");
    /* A fit that is not physical is not used: the measured memcpy, shared by W ranks. */
    f.physical = false;
    mm_choose(&f, 16, 4, false, false, &p);
    assert_int_equal(p.source, MM_MEMCPY);
    assert_true(p.beta_Bps == 4e9 && p.alpha_s == MM_DEFAULT_ALPHA_S);
    assert_string_equal(p.text,
                        "beta = measured memcpy 16 GB/s shared by 4 ranks; alpha 5 us assumed");
    mm_choose(NULL, 0, 4, false, true, &p);
    assert_int_equal(p.source, MM_STATED);
    assert_true(p.beta_Bps == MM_DEFAULT_BETA_BPS);
    assert_string_equal(p.text,
                        "\u03b1 5 us, \u03b2 2 GB/s assumed (sweep with s to fit them)");
}

static void test_fit_rows(void **state)
{
    (void)state;
    struct bench_result rows[8];
    int n = 0;
    const double alpha = 8e-6, beta = 3e9;
    for (size_t S = 4096; S <= ((size_t)4 << 20); S *= 4) {
        struct model_cost m;
        char err[200];
        assert_int_equal(model_collective(COLL_ALL_REDUCE, ALGO_RING, 4, S, alpha, beta, &m,
                                          err, sizeof err),
                         CV_OK);
        memset(&rows[n], 0, sizeof rows[n]);
        rows[n].bytes = S;
        rows[n].time_us = m.time_s * 1e6;
        snprintf(rows[n].algo, sizeof rows[n].algo, "%s", n == 2 ? "nccl" : "ring");
        n++;
    }
    struct model_fit f;
    char err[200];
    assert_int_equal(mm_fit_rows(COLL_ALL_REDUCE, ALGO_RING, 4, rows, n, &f, err, sizeof err),
                     CV_OK);
    assert_true(f.physical);
    assert_true(fabs(f.alpha_s - alpha) <= 1e-9 * alpha);
    assert_true(fabs(f.beta_Bps - beta) <= 1e-9 * beta);
    assert_int_equal(f.npoints, n);
    /* Counted as the tree, the same times fit worse: the plan matters. */
    struct model_fit g;
    assert_int_equal(mm_fit_rows(COLL_ALL_REDUCE, ALGO_TREE, 4, rows, n, &g, err, sizeof err),
                     CV_OK);
    assert_true(g.rel_rms > f.rel_rms);
    assert_int_equal(mm_fit_rows(COLL_ALL_REDUCE, ALGO_RING, 4, rows, 1, &f, err, sizeof err),
                     CV_EINVAL);
    assert_int_equal(mm_fit_rows(COLL_ALL_REDUCE, ALGO_RING, 4, rows, 0, &f, err, sizeof err),
                     CV_EINVAL);
}

static void test_curve(void **state)
{
    (void)state;
    struct mm_params p = {.alpha_s = 1e-6, .beta_Bps = 1e9};
    const size_t sizes[3] = {4, 4096, (size_t)1 << 30};
    double bus[3];
    mm_curve(COLL_ALL_GATHER, ALGO_RING, 4, &p, sizes, 3, bus);
    assert_true(bus[0] == 0); /* 4 B cannot hold one float per rank */
    /* all-gather W=4 at 4096 B: 3·(1 us + 1024 B/1 GB/s) = 6.072 us; busbw = 4096/6.072 us·3/4
     */
    assert_true(fabs(bus[1] - 4096 / 6.072e-6 * 0.75 / 1e9) <= 1e-9 * bus[1]);
    assert_true(bus[2] < 1.0 && bus[2] > 0.999);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choose),
        cmocka_unit_test(test_fit_rows),
        cmocka_unit_test(test_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
