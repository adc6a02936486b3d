/* test_sweep.c - the one sweep-size iterator (core/sweep.c) on sizes worked out by hand:
 * doubling, a factor that rounds down, an additive step, a factor too small to move, the
 * end of size_t, and the invalid sweeps (which visit nothing). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "core/sweep.h"
#include "core/util.h"

/* The sizes visited, into out (at most max). */
static size_t visit(const struct sweep *sw, size_t *out, size_t max)
{
    size_t n = 0, s;
    for (bool more = sweep_first(sw, &s); more && n < max; more = sweep_next(sw, &s))
        out[n++] = s;
    return n;
}

static void expect(const struct sweep *sw, const size_t *want, size_t nwant)
{
    size_t got[64];
    size_t n = visit(sw, got, 64);
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
    assert_int_equal(sweep_count(sw), nwant);
}

static void test_sizes_by_hand(void **state)
{
    (void)state;
    expect(&(struct sweep){.min = 4096, .max = 65536, .factor = 2},
           (size_t[]){4096, 8192, 16384, 32768, 65536}, 5);
    /* max between two sizes: the last one below it. */
    expect(&(struct sweep){.min = 4096, .max = 60000, .factor = 2},
           (size_t[]){4096, 8192, 16384, 32768}, 4);
    /* 1.5: 1000, 1500, 2250, 3375, then 5062 > 5000. */
    expect(&(struct sweep){.min = 1000, .max = 5000, .factor = 1.5},
           (size_t[]){1000, 1500, 2250, 3375}, 4);
    /* 3 * 1.1 = 3.3 rounds down to 3: one more instead, so it always moves. */
    expect(&(struct sweep){.min = 3, .max = 6, .factor = 1.1}, (size_t[]){3, 4, 5, 6}, 4);
    /* An additive step (bench -i) wins over the factor. */
    expect(&(struct sweep){.min = 1, .max = 10, .factor = 2, .step = 4}, (size_t[]){1, 5, 9},
           3);
    /* min == max: one size. */
    expect(&(struct sweep){.min = 7, .max = 7, .factor = 2}, (size_t[]){7}, 1);
    /* The end of size_t: stops, never wraps. */
    expect(&(struct sweep){.min = SIZE_MAX - 1, .max = SIZE_MAX, .factor = 2},
           (size_t[]){SIZE_MAX - 1, SIZE_MAX}, 2);
    expect(&(struct sweep){.min = SIZE_MAX - 3, .max = SIZE_MAX, .step = 2},
           (size_t[]){SIZE_MAX - 3, SIZE_MAX - 1}, 2);
}

static void test_invalid(void **state)
{
    (void)state;
    const struct sweep bad[] = {
        {.min = 0, .max = 10, .factor = 2},
        {.min = 20, .max = 10, .factor = 2},
        {.min = 1, .max = 10, .factor = 1.0},
        {.min = 1, .max = 10, .factor = 0.5},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        size_t s = 12345;
        assert_false(sweep_valid(&bad[i]));
        assert_false(sweep_first(&bad[i], &s));
        assert_int_equal(s, 12345);
        assert_int_equal(sweep_count(&bad[i]), 0);
    }
}

/* sweep_check, the one judge of a sweep (bench's options and protocol jobs): 1,000 sizes
 * pass, 1,001 do not, sizes past 16 GiB do not, and the issue's sweep (about 10^12 sizes)
 * is refused at once. */
static void test_check_limits(void **state)
{
    (void)state;
    char err[200];
    size_t n = 7;
    assert_int_equal(
        sweep_check(&(struct sweep){.min = 1, .max = 1000, .step = 1}, &n, err, sizeof err),
        CV_OK);
    assert_int_equal(n, 1000);
    assert_int_equal(
        sweep_check(&(struct sweep){.min = 1, .max = 1001, .step = 1}, &n, err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "more than 1000 sizes"));
    assert_int_equal(
        sweep_check(&(struct sweep){.min = 1, .max = ((size_t)16 << 30) + 1, .factor = 2}, &n,
                    err, sizeof err),
        CV_EINVAL);
    assert_non_null(strstr(err, "at most 16 GiB"));
    double t0 = now_s();
    struct sweep issue = {.min = 4, .max = (size_t)16 << 30, .factor = 1.000000000001};
    assert_int_equal(sweep_check(&issue, &n, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "more than 1000 sizes"));
    assert_true(sweep_count(&issue) == SWEEP_MAX_SIZES + 1); /* counting stops there */
    assert_true(now_s() - t0 < 0.5);
    const double nan = 0.0 / 0.0;
    assert_int_equal(
        sweep_check(&(struct sweep){.min = 1, .max = 9, .factor = nan}, &n, err, sizeof err),
        CV_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_by_hand),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_check_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
