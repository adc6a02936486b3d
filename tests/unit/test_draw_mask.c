/* test_draw_mask.c - predict first's figure mask (kit/draw.h): which figures of a panel line
 * are compared with an answer (not names like r0 or dW1, not settings like W=4), with what
 * unit, and that a hit becomes "?", its unit of measure with it (the magnitude is part of
 * the answer) and a word of what it counts kept. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui/kit/draw.h"

struct seen {
    double v[16], half[16];
    char unit[16][24];
    int n;
};

/* hits 524288 (any unit), 3/7 within 1%, and 24 only with unit MiB */
static bool hit(double v, double half, const char *unit, void *ctx)
{
    struct seen *s = ctx;
    if (s->n < 16) {
        s->v[s->n] = v;
        s->half[s->n] = half;
        snprintf(s->unit[s->n], sizeof s->unit[0], "%s", unit);
        s->n++;
    }
    return v == 524288 || fabs(v - 3.0 / 7) < 0.01 * 3 / 7 ||
           (v == 24 && strcmp(unit, "MiB") == 0);
}

static void masked(const char *in, const char *want, int hits, struct seen *s)
{
    char out[256];
    memset(s, 0, sizeof *s);
    draw_set_mask(hit, s);
    assert_int_equal(draw_mask_text(in, out, sizeof out), hits);
    assert_string_equal(out, want);
    assert_int_equal(draw_mask_hits(), hits);
    draw_set_mask(NULL, NULL);
}

static void test_mask(void **state)
{
    (void)state;
    struct seen s;
    masked("model: TP all-gathers L\u00b7B\u00b7D = 524288 per step",
           "model: TP all-gathers L\u00b7B\u00b7D = ? per step", 1, &s);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.unit[0], "per");
    masked("524,288 elements", "? elements", 1, &s);
    masked("bubble (P-1)/(M+P-1) = 3/7 = 0.43", "bubble (P-1)/(M+P-1) = ? = ?", 2, &s);
    masked("sent/step 24 MiB, 24 MB", "sent/step ?, 24 MB", 1, &s);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.unit[1], "MB");
    masked("524288 KiB/rank, 524288GB/s, 524288 steps", "?/rank, ?, ? steps", 3, &s);
    /* names and settings are not figures: nothing compared */
    masked("r524288 dW1 W=524288 x0", "r524288 dW1 W=524288 x0", 0, &s);
    assert_int_equal(s.n, 0);
    masked("5.2e5 and 5.24288e5", "5.2e5 and ?", 1, &s);
    assert_true(fabs(s.v[0] - 520000) < 1e-6);
    /* each figure's rounding: half a unit of its last digit, from two significant digits
     * on (a panel's "1.9 GB" stands for 1.85..1.95) */
    masked("stage 3 1.9 GB, 40 MiB/rank, 3 steps, 3/7, 0.043 s, 2.50e3",
           "stage 3 1.9 GB, 40 MiB/rank, 3 steps, ?, 0.043 s, 2.50e3", 1, &s);
    assert_int_equal(s.n, 7);
    double want_half[] = {0, 0.05, 0.5, 0, 0, 0.0005, 5};
    for (int i = 0; i < 7; i++)
        assert_true(fabs(s.half[i] - want_half[i]) < 1e-12);
    assert_string_equal(s.unit[2], "MiB/rank");
    /* a product's "·" ends the unit: "24 MiB·2·3" is 24 MiB (masked, its unit with it),
     * not a figure of an unknown unit "MiB·" (issue 31: a measurement size masked in a
     * formula while the panel's "size" above showed it) */
    masked("= 24 MiB\u00b72\u00b73/(4\u00b766.8 ms)", "= ?\u00b72\u00b73/(4\u00b766.8 ms)", 1,
           &s);
    assert_string_equal(s.unit[0], "MiB");
    /* "8×4" is a shape (a product), no figure with the ratio's unit "×" */
    masked("8\u00d74 \u00d710", "8\u00d74 \u00d710", 0, &s);
    assert_string_equal(s.unit[0], "");
    /* no mask: a copy */
    char out[64];
    assert_int_equal(draw_mask_text("L = 524288", out, sizeof out), 0);
    assert_string_equal(out, "L = 524288");
}

/* styled_rows counts what styled_draw would take: a line that fits is one row; a wider one
 * wraps at its spaces, the rows after the first indented by two (counted by hand below). */
static void test_pl_rows(void **state)
{
    (void)state;
    struct styled_lines p = {.n = 0};
    styled_add(styled_new(&p), A_NORMAL, "aaa bbb ccc");
    assert_int_equal(styled_rows(&p, 11), 1);
    assert_int_equal(styled_rows(&p, 7), 2); /* "aaa bbb" | "  ccc" */
    assert_int_equal(styled_rows(&p, 6), 3); /* "aaa" | "  bbb" | "  ccc": "  bbb ccc" is 9 */
    struct styled_line *l = styled_new(&p);
    styled_add(l, A_NORMAL, "dispatch ");
    styled_add(l, A_BOLD, "busbw 1 MB/s");
    assert_int_equal(styled_rows(&p, 21), 2);     /* both fit */
    assert_int_equal(styled_rows(&p, 20), 1 + 2); /* "dispatch busbw 1" | "  MB/s" */
    styled_new(&p);                               /* an empty line is a row */
    assert_int_equal(styled_rows(&p, 21), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_pl_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
