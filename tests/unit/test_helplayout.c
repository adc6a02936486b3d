/* test_helplayout.c - the help overlay's pages (helplayout.h): at 80x24 every key row gets
 * a column wide enough for it and a page it is on, pages hold whole columns, the legend
 * comes on exactly one page under its rows or alone; where everything fits it is one page,
 * as the help always was on large terminals. Values are worked out by hand below. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ui/overlays/helplayout.h"

/* Every row on exactly one page, in order, each column within the height. */
static void check_cover(const struct help_layout *l, int H, int nrows)
{
    int next = 0;
    for (int k = 0; k < l->npages; k++) {
        int from, to, pc;
        help_layout_rows(l, nrows, k, &from, &to, &pc);
        assert_int_equal(from, next);
        assert_true(to >= from);
        assert_true(pc * l->ncol >= to - from);
        assert_true(pc <= H - 3);
        if (k == l->legend_page && to > from) assert_true(pc <= H - 3);
        next = to;
    }
    assert_int_equal(next, nrows);
}

static void test_small_pages(void **state)
{
    (void)state;
    /* 80x24, 41 rows of up to 52 columns, a 4-line legend: one column of 74 (80 - 6),
     * 21 rows a page (24 - 3), so 21 + 20 rows; 20 + gap + 4 > 21: the legend alone. */
    struct help_layout l;
    help_layout_compute(24, 80, 41, 52, 4, &l);
    assert_int_equal(l.ncol, 1);
    assert_true(l.colw >= 53);
    assert_int_equal(l.per_col, 21);
    assert_int_equal(l.npages, 3);
    assert_int_equal(l.legend_page, 2);
    int from, to, pc;
    help_layout_rows(&l, 41, 2, &from, &to, &pc);
    assert_int_equal(to - from, 0); /* the legend's own page has no rows */
    check_cover(&l, 24, 41);
    /* 34 rows: 21 + 13, and 13 + 1 + 4 <= 21: the legend under the last page's rows. */
    help_layout_compute(24, 80, 34, 52, 4, &l);
    assert_int_equal(l.npages, 2);
    assert_int_equal(l.legend_page, 1);
    help_layout_rows(&l, 34, 1, &from, &to, &pc);
    assert_int_equal(from, 21);
    assert_int_equal(to, 34);
    assert_int_equal(pc, 13);
    check_cover(&l, 24, 34);
    /* A page past the end shows the last. */
    help_layout_rows(&l, 34, 9, &from, &to, &pc);
    assert_int_equal(from, 21);
}

static void test_one_page(void **state)
{
    (void)state;
    /* 120x40: two columns of 52 fit in 114; 41 rows in 2 x (37 - 1 - 4) = 64: one page,
     * 21 rows a column, the legend under them after a gap. */
    struct help_layout l;
    help_layout_compute(40, 120, 41, 52, 4, &l);
    assert_int_equal(l.npages, 1);
    assert_int_equal(l.legend_page, 0);
    assert_int_equal(l.ncol, 2);
    assert_int_equal(l.per_col, 21);
    assert_int_equal(l.gap, 1);
    assert_true(l.colw >= 53);
    check_cover(&l, 40, 41);
    /* Short rows: columns no wider than HELP_COLW_MAX. */
    help_layout_compute(40, 200, 41, 20, 4, &l);
    assert_int_equal(l.npages, 1);
    assert_int_equal(l.colw, HELP_COLW_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_pages),
        cmocka_unit_test(test_one_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
