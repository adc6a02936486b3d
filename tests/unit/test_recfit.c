/* test_recfit.c - the α-β fit of a record's nccl-tests rows (records/recfit.h): rows made
 * here from the model's closed form for the ring all-reduce on 4 ranks, t = 2(W-1)(α +
 * ceil(S/4/W)·4/β), at α = 5 us and β = 100 GB/s, are fitted back to exactly those with
 * R² = 1; rows too small for one float a piece are left out and counted; a collective the
 * model does not plan, too few sizes and too many ranks say why there is no fit. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "records/recfit.h"

/* An nccl-tests table of all_reduce on W ranks whose out-of-place times are the ring's
 * closed form at alpha_us and beta (bytes/s), sizes 2 B (too small) then 4 KiB..4 MiB. */
static struct rec_log *table(const char *coll, int W, double alpha_us, double beta, int nsizes)
{
    char text[8192];
    size_t o = 0;
    o += (size_t)snprintf(text + o, sizeof text - o, "# Collective test starting: %s_perf\n",
                          coll);
    for (int r = 0; r < W; r++)
        o += (size_t)snprintf(text + o, sizeof text - o,
                              "#  Rank %2d Group  0 Pid 1 on h device %d [0x1] GPU\n", r, r);
    o += (size_t)snprintf(text + o, sizeof text - o,
                          "#       size         count      type   redop    root     time   "
                          "algbw   busbw #wrong     time   algbw   busbw #wrong\n");
    o += (size_t)snprintf(text + o, sizeof text - o,
                          "           2             0     float     sum      -1    9.00    "
                          "0.00    0.00      0     9.00    0.00    0.00      0\n");
    for (int i = 0; i < nsizes; i++) {
        double S = 4096.0 * pow(4, i), chunk = ceil(S / 4 / W) * 4;
        double t = 2 * (W - 1) * (alpha_us * 1e-6 + chunk / beta) * 1e6;
        o += (size_t)snprintf(text + o, sizeof text - o,
                              "%12.0f %13.0f     float     sum      -1 %8.4f    1.00    1.00"
                              "      0 %8.4f    1.00    1.00      0\n",
                              S, S / 4, t, t);
    }
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", text, o);
    rec_finish(L);
    return L;
}

static void test_exact_rows(void **state)
{
    (void)state;
    struct rec_log *L = table("all_reduce", 4, 5.0, 100e9, 6);
    assert_int_equal(L->ntests, 1);
    assert_int_equal(rec_test_ranks(L), 4);
    struct rec_fit f;
    rec_fit_test(L, &L->tests[0], false, &f);
    assert_true(f.ok);
    assert_int_equal(f.coll, COLL_ALL_REDUCE);
    assert_int_equal(f.algo, ALGO_RING);
    assert_int_equal(f.nranks, 4);
    assert_int_equal(f.nrows, 6);
    assert_int_equal(f.skipped, 1); /* 2 B: less than one float */
    /* the table's times carry 4 decimals of a microsecond: the fit is that close */
    assert_true(fabs(f.f.alpha_s - 5e-6) < 1e-9);
    assert_true(fabs(f.f.beta_Bps - 100e9) / 100e9 < 1e-5);
    assert_true(f.f.r2 > 0.999999);
    assert_true(f.f.physical);
    /* the model's busbw at 4 MiB: algbw S/t times 2(W-1)/W */
    double S = 4194304, t = 6 * (5e-6 + S / 4 / 4 * 4 / 100e9);
    assert_true(fabs(rec_fit_busbw(&f, S) - S / t * 1.5 / 1e9) < 1e-3);
    rec_free(L);
}

static void test_no_fit(void **state)
{
    (void)state;
    struct rec_fit f;
    struct rec_log *L = table("sendrecv", 4, 5.0, 100e9, 6);
    rec_fit_test(L, &L->tests[0], false, &f);
    assert_false(f.ok);
    assert_string_equal(f.why, "sendrecv: not a collective the model plans");
    rec_free(L);
    L = table("all_reduce", 4, 5.0, 100e9, 1);
    rec_fit_test(L, &L->tests[0], false, &f);
    assert_false(f.ok);
    assert_string_equal(f.why, "fit: 1 point; need at least 2 distinct sizes");
    assert_true(rec_fit_busbw(&f, 4096) == 0);
    rec_free(L);
    L = table("all_reduce", 17, 5.0, 100e9, 3);
    rec_fit_test(L, &L->tests[0], false, &f);
    assert_false(f.ok);
    assert_string_equal(f.why, "17 ranks: the model plans at most 16");
    rec_free(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_rows),
        cmocka_unit_test(test_no_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
