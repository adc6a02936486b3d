/* test_meas.c - what the measured panel prints: the busbw formula with the numbers plugged
 * in (its result must equal nccl-tests' busbw for every collective), result bookkeeping by
 * job id (a late result of an old scene is dropped), and the small text formats the
 * screens use (values in rank boxes, times, sizes, fitting and wrapping). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/coll.h"
#include "core/util.h"
#include "ui/meas.h"
#include "core/text.h"

static void test_formula_all_reduce(void **state)
{
    (void)state;
    char sym[96], num[160];
    /* The lecture's worked example: 100*1024^2 fp32 elements on 4 ranks in 1.6 ms is about
     * 400 GB/s of busbw (419 MB * 2 * 3 / (4 * 1.6 ms) = 393 GB/s). */
    size_t S = (size_t)100 * 1024 * 1024 * 4;
    meas_formula(COLL_ALL_REDUCE, 4, S, 1600.0, true, sym, sizeof sym, num, sizeof num);
    assert_string_equal(sym, "busbw = S\u00b72(W\u22121)/(W\u00b7t)");
    assert_string_equal(num, "= 419 MB\u00b72\u00b73/(4\u00b71.6 ms) = 393 GB/s");
    assert_true(fabs(meas_busbw(COLL_ALL_REDUCE, 4, S, 1600.0) - 393.2) < 0.1);
    /* ASCII form. */
    meas_formula(COLL_ALL_REDUCE, 8, (size_t)64 << 20, 100000.0, false, sym, sizeof sym, num,
                 sizeof num);
    assert_string_equal(sym, "busbw = S*2(W-1)/(W*t)");
    assert_string_equal(num, "= 67.1 MB*2*7/(8*100 ms) = 1.17 GB/s");
}

static void test_formula_other_collectives(void **state)
{
    (void)state;
    char sym[96], num[160];
    meas_formula(COLL_ALL_GATHER, 4, (size_t)1 << 30, 1e6, true, sym, sizeof sym, num,
                 sizeof num);
    assert_string_equal(sym, "busbw = algbw\u00b7(W\u22121)/W");
    assert_string_equal(num, "= 1.07\u00b73/4 = 0.805 GB/s");
    meas_formula(COLL_BROADCAST, 4, (size_t)1 << 30, 1e6, true, sym, sizeof sym, num,
                 sizeof num);
    assert_string_equal(sym, "busbw = algbw\u00b71");
    assert_string_equal(num, "= 1.07 GB/s");
}

/* The number the formula prints is nccl-tests' busbw for every collective and world size. */
static void test_formula_matches_busbw_factor(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++)
        for (int W = 1; W <= CV_MAX_RANKS; W++) {
            size_t S = (size_t)3 << 20;
            double t = 1234.5;
            double want = (double)S / (t * 1e-6) / 1e9 * coll_busbw_factor((enum coll)c, W);
            double got = meas_busbw((enum coll)c, W, S, t);
            assert_true(fabs(got - want) <= 1e-9 * want + 1e-12);
            char sym[96], num[160], bw[32], tail[48];
            meas_formula((enum coll)c, W, S, t, true, sym, sizeof sym, num, sizeof num);
            text_gbps(bw, sizeof bw, want);
            snprintf(tail, sizeof tail, "= %s GB/s", bw);
            size_t nl = strlen(num), tl = strlen(tail);
            assert_true(nl >= tl && strcmp(num + nl - tl, tail) == 0);
        }
}

static struct result res(uint64_t id, enum job_kind k, int status)
{
    struct result r;
    memset(&r, 0, sizeof r);
    r.job_id = id;
    r.kind = k;
    r.status = status;
    r.last = true;
    if (k == JOB_SWEEP) r.sweep.total = 1;
    snprintf(r.backend, sizeof r.backend, "cpu");
    return r;
}

static void test_results_by_job_id(void **state)
{
    (void)state;
    struct meas m;
    meas_init(&m);
    assert_int_equal(m.check, CHECK_NONE);
    assert_false(m.have_row);

    meas_check_posted(&m, 7);
    struct bench_params p = {.coll = COLL_ALL_REDUCE, .nranks = 4, .bytes = 1 << 20};
    meas_measure_posted(&m, 8, &p, 0.0);
    assert_int_equal(m.check, CHECK_PENDING);
    assert_true(meas_measuring(&m));

    /* A stale result (an older scene's job) changes nothing. */
    struct result r = res(5, JOB_CHECK, CV_OK);
    r.check.mismatches = 3;
    assert_false(meas_apply(&m, &r));
    assert_int_equal(m.check, CHECK_PENDING);

    r = res(7, JOB_CHECK, CV_OK);
    r.check.mismatches = 2;
    assert_true(meas_apply(&m, &r));
    assert_int_equal(m.check, CHECK_FAIL);
    assert_int_equal(m.mismatches, 2);

    r = res(8, JOB_MEASURE, CV_OK);
    r.measure.bytes = 1 << 20;
    r.measure.time_us = 100.0;
    r.measure.busbw = 15.7;
    r.measure.nranks = 4;
    r.measure.wrong = 0;
    assert_true(meas_apply(&m, &r));
    assert_false(meas_measuring(&m));
    assert_true(m.have_row);
    assert_true(m.row.busbw == 15.7);
    assert_int_equal(m.row_params.coll, COLL_ALL_REDUCE);
    assert_string_equal(m.row_backend, "cpu");

    /* A failed measurement keeps the last good row and says why. */
    meas_measure_posted(&m, 9, &p, 0.0);
    r = res(9, JOB_MEASURE, CV_ENOMEM);
    snprintf(r.err, sizeof r.err, "64 GiB does not fit");
    assert_true(meas_apply(&m, &r));
    assert_string_equal(m.measure_err, "64 GiB does not fit");
    assert_true(m.row.busbw == 15.7);

    meas_check_posted(&m, 10);
    r = res(10, JOB_CHECK, CV_OK);
    assert_true(meas_apply(&m, &r));
    assert_int_equal(m.check, CHECK_PASS);
}

static void test_sweep_and_cancel(void **state)
{
    (void)state;
    struct meas m;
    meas_init(&m);
    struct bench_params p = {.coll = COLL_ALL_GATHER, .nranks = 4};
    meas_sweep_posted(&m, 3, &p, 3, 0.0);
    assert_true(meas_sweeping(&m));
    for (int i = 0; i < 2; i++) {
        struct result r = res(3, JOB_SWEEP, CV_OK);
        r.sweep.index = i;
        r.sweep.total = 3;
        r.last = false;
        r.sweep.row.bytes = (size_t)4096 << (2 * i);
        r.sweep.row.busbw = 1.0 + i;
        assert_true(meas_apply(&m, &r));
    }
    assert_int_equal(m.nsweep, 2);
    assert_true(meas_sweeping(&m));
    meas_cancelled(&m);
    assert_false(meas_sweeping(&m));
    assert_string_equal(m.sweep_err, "cancelled after 2 of 3 sizes");
    /* The cancelled job's last result arrives late: dropped. */
    struct result r = res(3, JOB_SWEEP, CV_ECANCELLED);
    assert_false(meas_apply(&m, &r));
    assert_int_equal(m.nsweep, 2);
}

/* A sweep and its whole-chunk companion (CPU: --slices 1): each result goes to its own
 * series by job id; sweeping lasts until both are done; a cancel ends both. */
static void test_sweep_with_whole_chunks(void **state)
{
    (void)state;
    struct meas m;
    meas_init(&m);
    struct bench_params p = {.coll = COLL_ALL_REDUCE, .nranks = 4};
    meas_sweep_posted(&m, 5, &p, 2, 0.0);
    meas_whole_posted(&m, 6);
    for (int i = 0; i < 2; i++) {
        struct result r = res(5, JOB_SWEEP, CV_OK);
        r.sweep.total = 2;
        r.last = i == 1;
        r.sweep.row.busbw = 2.0 + i;
        assert_true(meas_apply(&m, &r));
    }
    assert_true(meas_sweeping(&m)); /* the whole-chunk sweep is still out */
    struct result r = res(6, JOB_SWEEP, CV_OK);
    r.last = false;
    r.sweep.row.busbw = 0.5;
    assert_true(meas_apply(&m, &r));
    assert_int_equal(m.nsweep, 2);
    assert_int_equal(m.nwhole, 1);
    assert_true(m.whole[0].busbw == 0.5);
    assert_true(m.sweep[1].busbw == 3.0);
    meas_cancelled(&m);
    assert_false(meas_sweeping(&m));
    r = res(6, JOB_SWEEP, CV_OK);
    assert_false(meas_apply(&m, &r));
    /* A new sweep starts with no whole-chunk series. */
    meas_sweep_posted(&m, 7, &p, 2, 0.0);
    assert_int_equal(m.nwhole, 0);
}

static void test_text_formats(void **state)
{
    (void)state;
    char b[64];
    text_value(b, sizeof b, 6.0f);
    assert_string_equal(b, "6");
    text_value(b, sizeof b, -3.0f);
    assert_string_equal(b, "-3");
    text_value(b, sizeof b, -0.0f);
    assert_string_equal(b, "0");
    text_value(b, sizeof b, 2.5f);
    assert_string_equal(b, "2.5");
    text_value(b, sizeof b, 1.0f / 3.0f);
    assert_string_equal(b, "0.333");
    text_value(b, sizeof b, 1e20f);
    assert_string_equal(b, "1e+20");
    text_time_us(b, sizeof b, 812.0);
    assert_string_equal(b, "812 us");
    text_time_us(b, sizeof b, 12345.0);
    assert_string_equal(b, "12.3 ms");
    text_time_us(b, sizeof b, 2.5e6);
    assert_string_equal(b, "2.5 s");
    text_gbps(b, sizeof b, 412.4);
    assert_string_equal(b, "412");
    text_gbps(b, sizeof b, 0.04123);
    assert_string_equal(b, "0.0412");
    meas_size_label(4096, b, sizeof b);
    assert_string_equal(b, "4K");
    meas_size_label((size_t)64 << 20, b, sizeof b);
    assert_string_equal(b, "64M");
    meas_size_label(1000, b, sizeof b);
    assert_string_equal(b, "1000");
    assert_int_equal(meas_bar_eighths(0.0, 5.0, 4), 0);
    assert_int_equal(meas_bar_eighths(5.0, 5.0, 4), 32);
    assert_int_equal(meas_bar_eighths(0.001, 5.0, 4), 1);
    assert_int_equal(meas_bar_eighths(2.5, 5.0, 4), 16);
}

static void test_text_fit_and_wrap(void **state)
{
    (void)state;
    char b[64];
    assert_int_equal(text_width("\u250c\u2500\u2510 ok"), 6);
    assert_int_equal(text_fit(b, sizeof b, "hello world", 5, true), 5);
    assert_string_equal(b, "hell\u2026");
    text_fit(b, sizeof b, "hello world", 5, false);
    assert_string_equal(b, "hell~");
    text_fit(b, sizeof b, "\u03a3\u03a3\u03a3\u03a3\u03a3\u03a3", 3, true);
    assert_string_equal(b, "\u03a3\u03a3\u2026");
    text_fit(b, sizeof b, "short", 10, true);
    assert_string_equal(b, "short");

    char lines[4][256];
    const char *t = "Every rank r sends chunk (r-1) mod 4 to rank r+1";
    assert_int_equal(text_wrap_count(t, 20), 3);
    assert_int_equal(text_wrap(t, 20, lines, 4, true), 3);
    assert_string_equal(lines[0], "Every rank r sends");
    assert_string_equal(lines[1], "chunk (r-1) mod 4 to");
    assert_string_equal(lines[2], "rank r+1");
    /* Two lines allowed: the second ends in an ellipsis over the rest, and only the lines
     * written are counted (a caller draws that many: a third would be stale memory). */
    assert_int_equal(text_wrap(t, 20, lines, 2, true), 2);
    assert_string_equal(lines[1], "chunk (r-1) mod 4 t\u2026");
    /* A word longer than the line is cut. */
    assert_int_equal(text_wrap("abcdefghij", 4, lines, 4, true), 3);
    assert_string_equal(lines[0], "abcd");
    assert_string_equal(lines[2], "ij");
    assert_int_equal(text_wrap("abcdefghij", 4, lines, 1, true), 1);
    assert_int_equal(text_wrap("abcdefghij", 4, lines, 0, true), 0);
    assert_int_equal(text_wrap("abcdefghij", 4, lines, -2, true), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formula_all_reduce),
        cmocka_unit_test(test_formula_other_collectives),
        cmocka_unit_test(test_formula_matches_busbw_factor),
        cmocka_unit_test(test_results_by_job_id),
        cmocka_unit_test(test_sweep_and_cancel),
        cmocka_unit_test(test_sweep_with_whole_chunks),
        cmocka_unit_test(test_text_formats),
        cmocka_unit_test(test_text_fit_and_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
