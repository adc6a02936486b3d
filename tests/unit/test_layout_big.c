/* test_layout_big.c - the collectives layout with block digits (cell_h = BIG_H rows per
 * value): boxes grow by the glyph height, value cells sit BIG_H rows apart inside them,
 * nothing overlaps, and where the digits cannot all show the layout says so (the screen
 * then falls back to plain numbers). cell_h 0 and 1 are the plain layout. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ui/kit/bigdigits.h"
#include "ui/screens/collectives/layout.h"

static struct layout_content content(int cell_w, int cell_h)
{
    return (struct layout_content){.cell_w = cell_w,
                                   .cell_h = cell_h,
                                   .label_w = 19,
                                   .nxfers = 4,
                                   .xfer_w = 24,
                                   .what = "Every rank sends one chunk to the next rank."};
}

static void test_big_boxes(void **state)
{
    (void)state;
    struct layout_content c = content(7, BIG_H); /* "18" in block digits */
    struct layout l;
    /* The presenter's scene pane on a 120x40 terminal. */
    assert_int_equal(layout_compute(32, 120, 4, 4, &c, &l), LAYOUT_BOXES);
    assert_int_equal(l.shown, 4);
    assert_int_equal(l.cell_h, BIG_H);
    assert_int_equal(l.value_lines, 1);
    for (int r = 0; r < 4; r++) {
        assert_int_equal(l.box[r].h, 2 + BIG_H + (l.marks ? 1 : 0));
        for (int q = r + 1; q < 4; q++)
            assert_false(rect_overlap(l.box[r], l.box[q]));
        assert_false(rect_overlap(l.box[r], l.legend));
        assert_false(rect_overlap(l.box[r], l.xfers));
        assert_false(rect_overlap(l.box[r], l.panel));
        int y, x;
        layout_cell_pos(&l, r, 3, &y, &x);
        assert_int_equal(y, l.box[r].y + 1);
        assert_true(x + 7 <= l.box[r].x + l.box[r].w - 1);
    }
    /* Eight values on two lines: the second line starts BIG_H rows below the first. */
    assert_int_equal(layout_compute(40, 80, 2, 16, &c, &l), LAYOUT_BOXES);
    assert_int_equal(l.shown, 16);
    assert_true(l.value_lines >= 2);
    int y0, x0, y1, x1;
    layout_cell_pos(&l, 0, 0, &y0, &x0);
    layout_cell_pos(&l, 0, (size_t)l.per_line, &y1, &x1);
    assert_int_equal(y1 - y0, BIG_H);
    assert_int_equal(x1, x0);
    assert_int_equal(l.box[0].h, 2 + l.value_lines * BIG_H + (l.marks ? 1 : 0));
}

static void test_big_does_not_fit(void **state)
{
    (void)state;
    struct layout_content c = content(7, BIG_H);
    struct layout l;
    /* 16 ranks at 80x24: no room for 5-row digits; whatever the layout gives is not every
     * value in boxes, which is what the screen checks before using it. */
    int mode = layout_compute(24, 80, 16, 16, &c, &l);
    assert_true(mode != LAYOUT_BOXES || l.shown < 16);
}

static void test_plain_unchanged(void **state)
{
    (void)state;
    struct layout_content c0 = content(2, 0), c1 = content(2, 1);
    struct layout a, b;
    layout_compute(36, 120, 4, 4, &c0, &a);
    layout_compute(36, 120, 4, 4, &c1, &b);
    assert_int_equal(a.cell_h, 1);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(a.box[0].h, 2 + 1 + (a.marks ? 1 : 0));
}

/* The presenter's zoom: without the measured panel its rows (below) or columns (beside)
 * go to the boxes, and block digits twice as wide and tall fit where they did not. */
static void test_no_panel(void **state)
{
    (void)state;
    struct layout_content c = content(7, BIG_H);
    struct layout with, without;
    assert_int_equal(layout_compute(29, 100, 4, 4, &c, &with), LAYOUT_BOXES);
    assert_true(with.panel.h > 0);
    c.no_panel = true;
    assert_int_equal(layout_compute(29, 100, 4, 4, &c, &without), LAYOUT_BOXES);
    assert_int_equal(without.panel.h, 0);
    assert_false(without.panel_side);
    /* the panel's rows join the animation (less the one row of breathing room they leave) */
    assert_true(without.anim.h >= with.anim.h + with.panel.h - 1);
    /* Beside (from 120 columns): the panel's columns go to the animation. */
    c.no_panel = false;
    assert_int_equal(layout_compute(32, 120, 4, 4, &c, &with), LAYOUT_BOXES);
    assert_true(with.panel_side);
    c.no_panel = true;
    assert_int_equal(layout_compute(32, 120, 4, 4, &c, &without), LAYOUT_BOXES);
    assert_int_equal(without.anim.w, 120);
    /* Doubled digits ("18": 14 columns, 10 rows) for 4 ranks of 4 values at 160x44. */
    struct layout_content d = content(14, 2 * BIG_H);
    struct layout l;
    d.no_panel = true;
    assert_int_equal(layout_compute(40, 160, 4, 4, &d, &l), LAYOUT_BOXES);
    assert_int_equal(l.shown, 4);
    assert_int_equal(l.cell_h, 2 * BIG_H);
    int y0, x0, y1, x1;
    layout_cell_pos(&l, 0, 0, &y0, &x0);
    layout_cell_pos(&l, 0, 1, &y1, &x1);
    assert_true((y1 - y0 == 2 * BIG_H && x1 == x0) || (y1 == y0 && x1 - x0 >= 14));
    for (int r = 0; r < 4; r++)
        for (int q = r + 1; q < 4; q++)
            assert_false(rect_overlap(l.box[r], l.box[q]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_big_boxes),
        cmocka_unit_test(test_big_does_not_fit),
        cmocka_unit_test(test_plain_unchanged),
        cmocka_unit_test(test_no_panel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
