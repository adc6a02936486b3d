/* test_narr.c - narration layout: word wrap across style changes, bullets and numbers with
 * hanging indents, quote bars, code lines, hard breaks, over-long words, rules, and blank
 * lines between blocks; exact text of every line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "ui/present/narr.h"

#define SPAN(t, s)                                                                             \
    {                                                                                          \
        (char *)(t), (s), false                                                                \
    }
#define BRK(t, s)                                                                              \
    {                                                                                          \
        (char *)(t), (s), true                                                                 \
    }

static void expect_lines(const struct narr *n, const char *const *want, int nwant)
{
    char buf[512];
    for (int i = 0; i < n->n && i < nwant; i++) {
        narr_line_text(&n->l[i], buf, sizeof buf);
        if (strcmp(buf, want[i]) != 0) fail_msg("line %d: '%s', wanted '%s'", i, buf, want[i]);
    }
    assert_int_equal(n->n, nwant);
}

static void test_paragraph_styles(void **state)
{
    (void)state;
    struct lesson_span sp[] = {SPAN("The ring ", 0), SPAN("all", LSPAN_BOLD),
                               SPAN("-reduce moves ", 0), SPAN("2(W-1)/W", LSPAN_CODE),
                               SPAN(" of the data.", 0)};
    struct lesson_block b = {.kind = LBLOCK_PARAGRAPH, .spans = sp, .nspans = 5};
    struct narr n;
    narr_layout(&b, 1, 20, false, true, &n);
    const char *want[] = {"The ring all-reduce", "moves 2(W-1)/W of", "the data."};
    expect_lines(&n, want, 3);
    for (int i = 0; i < n.n; i++)
        assert_true(n.l[i].width <= 20);
    /* "all" is bold inside the word "all-reduce". */
    assert_int_equal(n.l[0].nseg, 3);
    assert_string_equal(n.l[0].seg[0].text, "The ring ");
    assert_int_equal(n.l[0].seg[1].style, LSPAN_BOLD);
    assert_string_equal(n.l[0].seg[1].text, "all");
    assert_int_equal(n.l[0].seg[2].style, 0);
    assert_string_equal(n.l[0].seg[2].text, "-reduce");
    assert_string_equal(n.l[1].seg[0].text, "moves "); /* the space is not code */
    assert_string_equal(n.l[1].seg[1].text, "2(W-1)/W");
    assert_int_equal(n.l[1].seg[1].style, LSPAN_CODE);
    narr_free(&n);
}

static void test_lists_quotes_code(void **state)
{
    (void)state;
    struct lesson_span a[] = {SPAN("every rank sends one chunk per step", 0)};
    struct lesson_span c[] = {SPAN("second", 0)};
    struct lesson_span d[] = {SPAN("nested item", LSPAN_ITALIC)};
    struct lesson_span q[] = {SPAN("bandwidth is what matters here", 0)};
    struct lesson_span code[] = {
        SPAN("ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s);", LSPAN_CODE),
        SPAN("x = 1;", LSPAN_CODE)};
    struct lesson_span h[] = {SPAN("Cost", 0)};
    struct lesson_block b[] = {
        {.kind = LBLOCK_ITEM, .depth = 1, .ordinal = 0, .first = true, .spans = a, .nspans = 1},
        {.kind = LBLOCK_ITEM, .depth = 1, .ordinal = 0, .first = true, .spans = c, .nspans = 1},
        {.kind = LBLOCK_ITEM, .depth = 2, .ordinal = 3, .first = true, .spans = d, .nspans = 1},
        {.kind = LBLOCK_QUOTE, .depth = 1, .spans = q, .nspans = 1},
        {.kind = LBLOCK_CODE, .spans = code, .nspans = 2},
        {.kind = LBLOCK_RULE},
        {.kind = LBLOCK_HEADING, .ordinal = 2, .spans = h, .nspans = 1},
    };
    struct narr n;
    narr_layout(b, 7, 24, true, true, &n);
    const char *want[] = {
        "\u2022 every rank sends one",
        "  chunk per step",
        "\u2022 second",
        "  3. nested item",
        "",
        "\u2502 bandwidth is what",
        "\u2502 matters here",
        "",
        "    ncclAllReduce(buf, b", /* code is cut, never wrapped */
        "    x = 1;",
        "",
        "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500"
        "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500",
        "",
        "Cost",
    };
    expect_lines(&n, want, 14);
    assert_int_equal(n.l[0].seg[0].style, NARR_MARK);
    assert_int_equal(n.l[13].seg[0].style, NARR_HEADING);
    assert_int_equal(n.l[11].seg[0].style, NARR_RULE);

    for (int i = 0; i < n.n; i++) /* no paragraph introduces these lists */
        assert_false(n.l[i].with_next);
    narr_free(&n);

    /* A question and its options (a quiz) stay on one page: the blank line between a
     * paragraph and the list after it is no place to break; between paragraphs it is. */
    struct lesson_block qz[] = {
        {.kind = LBLOCK_PARAGRAPH, .spans = q, .nspans = 1},
        {.kind = LBLOCK_ITEM, .depth = 1, .ordinal = 1, .first = true, .spans = c, .nspans = 1},
        {.kind = LBLOCK_PARAGRAPH, .spans = h, .nspans = 1},
        {.kind = LBLOCK_PARAGRAPH, .spans = c, .nspans = 1},
    };
    narr_layout(qz, 4, 40, true, true, &n);
    const char *qwant[] = {
        "bandwidth is what matters here", "", "1. second", "", "Cost", "", "second"};
    expect_lines(&n, qwant, 7);
    assert_true(n.l[1].with_next);
    assert_false(n.l[3].with_next);
    assert_false(n.l[5].with_next);
    /* A slide's lead may end before a block that stands alone (lines 4 and 6), never between
     * a question and its options (line 2); each line knows its block, a blank one the next. */
    const bool starts[] = {false, false, false, false, true, false, true};
    const int block[] = {0, 1, 1, 2, 2, 3, 3};
    for (int i = 0; i < 7; i++) {
        assert_int_equal(n.l[i].starts, starts[i]);
        assert_int_equal(n.l[i].block, block[i]);
    }
    narr_free(&n);
    /* Without the empty lines (the tight layout) the same blocks start alike. */
    narr_layout(qz, 4, 40, false, true, &n);
    expect_lines(
        &n, (const char *[]){"bandwidth is what matters here", "1. second", "Cost", "second"},
        4);
    assert_false(n.l[1].starts);
    assert_true(n.l[2].starts && n.l[3].starts);
    assert_int_equal(n.l[3].block, 3);
    narr_free(&n);

    /* ASCII marks. */
    narr_layout(b, 1, 40, false, false, &n);
    const char *ascii[] = {"* every rank sends one chunk per step"};
    expect_lines(&n, ascii, 1);
    narr_free(&n);
}

static void test_breaks_and_long_words(void **state)
{
    (void)state;
    struct lesson_span sp[] = {SPAN("first line", 0), BRK("second", 0),
                               SPAN(" supercalifragilisticexpialidocious!", 0)};
    struct lesson_block b = {.kind = LBLOCK_PARAGRAPH, .spans = sp, .nspans = 3};
    struct narr n;
    narr_layout(&b, 1, 12, false, true, &n);
    const char *want[] = {"first line", "second", "supercalifra", "gilisticexpi",
                          "alidocious!"};
    expect_lines(&n, want, 5);
    narr_free(&n);
    /* UTF-8 counts columns, not bytes: 10 arrows fit in 10 columns. */
    struct lesson_span u[] = {
        SPAN("\u2192\u2192\u2192\u2192\u2192 \u2192\u2192\u2192\u2192", 0)};
    struct lesson_block ub = {.kind = LBLOCK_PARAGRAPH, .spans = u, .nspans = 1};
    narr_layout(&ub, 1, 10, false, true, &n);
    assert_int_equal(n.n, 1);
    assert_int_equal(n.l[0].width, 10);
    narr_free(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paragraph_styles),
        cmocka_unit_test(test_lists_quotes_code),
        cmocka_unit_test(test_breaks_and_long_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
