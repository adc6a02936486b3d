/* test_layout.c - the collectives screen's pure layout function: minimum size, box grids
 * for 4 and 16 ranks at 80x24, the projector size 200x60, and the invariants that hold at
 * every size (boxes inside the screen, nothing overlapping, every rank placed). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "ui/screens/collectives/layout.h"

static const char *what_ring =
    "Each rank sends one chunk to the next rank on the ring, which adds it to its own copy.";

static struct layout_content content(int cell_w, int nxfers)
{
    return (struct layout_content){
        .cell_w = cell_w, .label_w = 19, .nxfers = nxfers, .xfer_w = 24, .what = what_ring};
}

static bool inside(struct rect r, int rows, int cols)
{
    return r.y >= 0 && r.x >= 0 && r.y + r.h <= rows && r.x + r.w <= cols;
}

/* The invariants every non-too-small layout must satisfy. */
static void check_invariants(const struct layout *l, int nranks)
{
    assert_int_not_equal(l->mode, LAYOUT_TOO_SMALL);
    struct rect fixed[] = {l->title, l->status, l->legend, l->xfers, l->what, l->panel, l->bar};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        assert_true(inside(fixed[i], l->rows, l->cols));
        for (size_t j = i + 1; j < sizeof fixed / sizeof fixed[0]; j++)
            assert_false(rect_overlap(fixed[i], fixed[j]));
    }
    assert_true(l->shown >= 1);
    assert_true(l->per_line >= 1);
    for (int r = 0; r < nranks; r++) {
        assert_true(inside(l->box[r], l->rows, l->cols));
        assert_true(l->box[r].h >= 1 && l->box[r].w >= 1);
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
            assert_false(rect_overlap(l->box[r], fixed[i]));
        for (int q = r + 1; q < nranks; q++)
            assert_false(rect_overlap(l->box[r], l->box[q]));
        /* The last value cell shown sits inside the box. */
        int y, x;
        layout_cell_pos(l, r, l->shown - 1, &y, &x);
        assert_true(y >= l->box[r].y && y < l->box[r].y + l->box[r].h);
        assert_true(x >= l->box[r].x && x + l->cell_w <= l->box[r].x + l->box[r].w);
    }
}

static void test_too_small(void **state)
{
    (void)state;
    struct layout_content c = content(2, 4);
    struct layout l;
    assert_int_equal(layout_compute(24, 79, 4, 4, &c, &l), LAYOUT_TOO_SMALL);
    assert_int_equal(layout_compute(23, 80, 4, 4, &c, &l), LAYOUT_TOO_SMALL);
    assert_int_equal(layout_compute(20, 70, 4, 4, &c, &l), LAYOUT_TOO_SMALL);
    assert_int_not_equal(layout_compute(24, 80, 4, 4, &c, &l), LAYOUT_TOO_SMALL);
}

static void test_80x24_four_ranks(void **state)
{
    (void)state;
    /* The lecture's all-reduce: 4 ranks, 4 values each, 4 ring transfers per step. */
    struct layout_content c = content(2, 4);
    struct layout l;
    assert_int_equal(layout_compute(24, 80, 4, 4, &c, &l), LAYOUT_BOXES);
    check_invariants(&l, 4);
    assert_int_equal(l.shown, 4);     /* every value visible */
    assert_true(l.marks);             /* room for the in/out marker row */
    assert_false(l.panel_side);       /* 80 columns: the panel goes below */
    assert_true(l.panel.h >= 5);      /* and keeps its border */
    assert_int_equal(l.grid_cols, 4); /* the four ranks side by side, like a ring */
    assert_int_equal(l.value_lines, 1);
    assert_true(l.xfer_rows * l.xfer_cols >= 4); /* all four transfers listed */
    /* The panel is below the animation. */
    assert_true(l.panel.y > l.box[0].y + l.box[0].h);
}

static void test_80x24_sixteen_ranks(void **state)
{
    (void)state;
    /* 16 ranks all-reduce: 16 values of up to 3 digits, 16 transfers per step. */
    struct layout_content c = content(3, 16);
    struct layout l;
    assert_int_not_equal(layout_compute(24, 80, 16, 16, &c, &l), LAYOUT_TOO_SMALL);
    check_invariants(&l, 16);
    assert_int_equal(l.shown, 16); /* still every value, at the panel's expense */
    /* 16 ranks x 32 values (all-to-all) cannot all fit in 80x24: the layout shows a prefix
     * of each buffer rather than failing or overlapping. */
    assert_int_not_equal(layout_compute(24, 80, 16, 32, &c, &l), LAYOUT_TOO_SMALL);
    check_invariants(&l, 16);
    assert_true(l.shown >= 8 && l.shown < 32);
}

static void test_200x60(void **state)
{
    (void)state;
    struct layout_content c = content(3, 16);
    struct layout l;
    assert_int_equal(layout_compute(60, 200, 4, 4, &c, &l), LAYOUT_BOXES);
    check_invariants(&l, 4);
    assert_true(l.panel_side);
    assert_true(l.panel.x > l.box[3].x + l.box[3].w); /* the panel is to the right */
    assert_int_equal(l.shown, 4);
    assert_true(l.marks);
    /* 16 ranks of 32 values: still boxes with every value on one line; no room for the
     * marker rows, so the receive buffer is bracketed instead. */
    assert_int_equal(layout_compute(60, 200, 16, 32, &c, &l), LAYOUT_BOXES);
    check_invariants(&l, 16);
    assert_int_equal(l.shown, 32);
    assert_int_equal(l.value_lines, 1);
    assert_false(l.marks);
}

/* Values that wrap do so in even lines: W=8 all-to-all (16 values a rank, send half then
 * receive half) in an 80-column pane gets two lines of 8, never 12 + 4. */
static void test_wrap_in_even_lines(void **state)
{
    (void)state;
    struct layout_content c = {.cell_w = 2, .label_w = 19, .nxfers = 8, .xfer_w = 16};
    struct layout l;
    assert_int_equal(layout_compute(39, 80, 8, 16, &c, &l), LAYOUT_BOXES);
    assert_int_equal(l.shown, 16);
    assert_int_equal(l.value_lines, 2);
    assert_int_equal(l.per_line, 8);
}

static void test_many_sizes(void **state)
{
    (void)state;
    static const int sizes[][2] = {{24, 80},  {24, 119}, {24, 120}, {30, 100}, {36, 120},
                                   {40, 120}, {50, 160}, {60, 200}, {25, 300}, {100, 80}};
    static const size_t lens[] = {1, 4, 8, 16, 32, 64, 512};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int n = 1; n <= CV_MAX_RANKS; n++)
            for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++)
                for (int cw = 1; cw <= 9; cw += 4) {
                    struct layout_content c = content(cw, n * (n - 1));
                    struct layout l;
                    int mode = layout_compute(sizes[s][0], sizes[s][1], n, lens[k], &c, &l);
                    if (mode == LAYOUT_TOO_SMALL) {
                        print_error("too small at %dx%d n=%d len=%zu cw=%d\n", sizes[s][1],
                                    sizes[s][0], n, lens[k], cw);
                        fail();
                    }
                    check_invariants(&l, n);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_too_small),           cmocka_unit_test(test_80x24_four_ranks),
        cmocka_unit_test(test_80x24_sixteen_ranks), cmocka_unit_test(test_200x60),
        cmocka_unit_test(test_many_sizes),          cmocka_unit_test(test_wrap_in_even_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
