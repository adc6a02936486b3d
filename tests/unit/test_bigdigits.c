/* test_bigdigits.c - block digits: widths, the "does it fit" decision, the exact rows of the
 * glyphs in both glyph sets, and what big_draw puts on a (off-screen) curses screen. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/kit/bigdigits.h"
#include "ui/kit/svg.h"

static void test_width(void **state)
{
    (void)state;
    assert_int_equal(big_width(""), 0);
    assert_int_equal(big_width("6"), 3);
    assert_int_equal(big_width("14"), 7);
    assert_int_equal(big_width("-3"), 7);
    assert_int_equal(big_width("0.5"), 9); /* 3 + 1 + 1 + 1 + 3 */
    assert_int_equal(big_width("1e+05"), -1);
    assert_int_equal(big_width("x"), -1);
    const char *vals[] = {"6", "10", "14", "18"};
    assert_int_equal(big_width_all(vals, 4, 2), 3 + 7 + 7 + 7 + 3 * 2);
    const char *bad[] = {"6", "nan"};
    assert_int_equal(big_width_all(bad, 2, 2), -1);
}

static void test_fits(void **state)
{
    (void)state;
    assert_true(big_fits("18", 7, 5));
    assert_false(big_fits("18", 6, 5));
    assert_false(big_fits("18", 7, 4));
    assert_true(big_fits("-0.25", 40, 10));
    assert_false(big_fits("1.5e+03", 100, 100)); /* no glyph for e and + */
}

static void test_rows(void **state)
{
    (void)state;
    char row[128];
    const char *want[5] = {"\u2588\u2588  \u2588 \u2588", " \u2588  \u2588 \u2588",
                           " \u2588  \u2588\u2588\u2588", " \u2588    \u2588",
                           "\u2588\u2588\u2588   \u2588"};
    for (int r = 0; r < 5; r++) {
        assert_true(big_row("14", r, true, row, sizeof row));
        assert_string_equal(row, want[r]);
    }
    assert_true(big_row("-3", 2, false, row, sizeof row));
    assert_string_equal(row, "### ###");
    assert_true(big_row("-3", 0, false, row, sizeof row));
    assert_string_equal(row, "    ###");
    assert_true(big_row("0.5", 4, false, row, sizeof row));
    assert_string_equal(row, "### # ###");
    assert_false(big_row("14", 5, false, row, sizeof row));
    assert_false(big_row("e", 0, false, row, sizeof row));
    assert_string_equal(row, "");
    assert_false(big_row("14", 0, true, row, 8)); /* too small for 7 cells of 3 bytes */
}

static void test_draw_offscreen(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C.UTF-8");
    struct svg_offscreen o;
    char err[200];
    assert_int_equal(svg_offscreen_open(&o, 12, 6, err, sizeof err), 0);
    assert_int_equal(big_draw(stdscr, 0, 1, "2.7", A_BOLD, false), 9);
    assert_int_equal(big_draw(stdscr, 0, 1, "x", A_BOLD, false), -1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    svg_write_text(stdscr, f);
    fclose(f);
    svg_offscreen_close(&o);
    assert_string_equal(buf, " ###   ###\n"
                             "   #     #\n"
                             " ###     #\n"
                             " #       #\n"
                             " ### #   #\n"
                             "\n");
    free(buf);
}

/* The presenter's zoom: every ink cell becomes an sx x sy block, the gap scales with it. */
static void test_draw_scaled(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C.UTF-8");
    assert_int_equal(big_width_scaled("2.7", 2), 18);
    assert_int_equal(big_width_scaled("14", 1), big_width("14"));
    assert_int_equal(big_width_scaled("x", 2), -1);
    assert_int_equal(big_width_scaled("1", 0), -1);
    struct svg_offscreen o;
    char err[200];
    assert_int_equal(svg_offscreen_open(&o, 16, 12, err, sizeof err), 0);
    assert_int_equal(big_draw_scaled(stdscr, 0, 0, "17", A_BOLD, "#", 2, 2), 14);
    assert_int_equal(big_draw_scaled(stdscr, 0, 0, "1", A_BOLD, "#", 2, 0), -1);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    svg_write_text(stdscr, f);
    fclose(f);
    svg_offscreen_close(&o);
    /* "1" is ##/.#/.#/.#/### and "7" ###/..#/..#/..#/..# at 3x5, one column apart. */
    assert_string_equal(buf, "####    ######\n"
                             "####    ######\n"
                             "  ##        ##\n"
                             "  ##        ##\n"
                             "  ##        ##\n"
                             "  ##        ##\n"
                             "  ##        ##\n"
                             "  ##        ##\n"
                             "######      ##\n"
                             "######      ##\n"
                             "\n\n");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width),       cmocka_unit_test(test_fits),
        cmocka_unit_test(test_rows),        cmocka_unit_test(test_draw_offscreen),
        cmocka_unit_test(test_draw_scaled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
