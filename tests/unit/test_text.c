/* test_text.c - terminal widths (core/text.h), counted in one place: wide characters take two
 * columns, combining marks none, and fitting, prefixes and wrapping respect that (issue
 * 18: a teacher's narration with wide characters must lay out right). Expected widths are
 * Unicode's East Asian Width classes, written out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "core/text.h"

static void test_widths(void **state)
{
    (void)state;
    assert_int_equal(text_width("abc"), 3);
    assert_int_equal(text_width("Gr\u00f6\u00dfe"), 5);          /* Größe */
    assert_int_equal(text_width("\u6f22\u5b57"), 4);             /* 漢字 */
    assert_int_equal(text_width("e\u0301"), 1);                  /* e + acute */
    assert_int_equal(text_width("\u2192\u00b7\u2502\u2026"), 4); /* our glyphs */
    assert_int_equal(text_width("\uff21"), 2);                   /* fullwidth A */
    assert_int_equal(text_width("\xf0\x9f\x98\x80"), 2);         /* an emoji */
    assert_int_equal(text_ncols("\u6f22\u5b57abc", 3), 2);       /* first 3 bytes */
    /* a wide character that would cross the limit stays out */
    assert_int_equal(text_prefix_bytes("a\u6f22b", 2), 1);
    assert_int_equal(text_prefix_bytes("a\u6f22b", 3), 4);
    assert_int_equal(text_prefix_bytes("e\u0301x", 1), 3); /* the mark stays with its e */
}

static void test_fit_and_wrap(void **state)
{
    (void)state;
    char out[64];
    assert_int_equal(text_fit(out, sizeof out, "\u6f22\u5b57\u6f22\u5b57", 5, true), 5);
    assert_string_equal(out, "\u6f22\u5b57\u2026");
    char lines[4][256];
    /* 漢字漢字 (8 columns) and 漢字 (4): a line of 9 takes the first word only */
    int n = text_wrap("\u6f22\u5b57\u6f22\u5b57 \u6f22\u5b57", 9, lines, 4, true);
    assert_int_equal(n, 2);
    assert_string_equal(lines[0], "\u6f22\u5b57\u6f22\u5b57");
    assert_string_equal(lines[1], "\u6f22\u5b57");
    n = text_wrap("\u6f22\u5b57\u6f22\u5b57 \u6f22\u5b57", 13, lines, 4, true);
    assert_int_equal(n, 1);
    /* a run of spaces between words is kept, and counted: "ab  cd" is 6 columns, wider
     * than 5 (a sentence's two spaces after its full stop once made a line too wide, which
     * the notes terminal then cut) */
    n = text_wrap("ab  cd ef", 5, lines, 4, true);
    assert_int_equal(n, 2);
    assert_string_equal(lines[0], "ab");
    assert_string_equal(lines[1], "cd ef");
    assert_int_equal(text_wrap_count("ab  cd ef", 5), 2);
    n = text_wrap("ab  cd ef", 6, lines, 4, true);
    assert_int_equal(n, 2);
    assert_string_equal(lines[0], "ab  cd");
}

/* a phase's counter dropped where the step count is an answer: only a trailing " k/N" */
static void test_drop_counter(void **state)
{
    (void)state;
    static const char *const in[][2] = {{"broadcast 3/3", "broadcast"},
                                        {"reduce-scatter 12/15", "reduce-scatter"},
                                        {"average", "average"},
                                        {"3/3", "3/3"},
                                        {"step 1/", "step 1/"},
                                        {"a /3", "a /3"},
                                        {"", ""}};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        char b[64];
        snprintf(b, sizeof b, "%s", in[i][0]);
        text_drop_counter(b);
        assert_string_equal(b, in[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_fit_and_wrap),
        cmocka_unit_test(test_drop_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
