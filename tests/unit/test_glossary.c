/* test_glossary.c - the glossary (lesson/glossary.h): the terms the lessons lean on are in
 * it (busbw, algbw, α-β, 1F1B, bubble, ZeRO, the init kind seq ...), each with a
 * definition; a slide's terms are found as whole words in the order of first use, never
 * inside another word; and every one of those terms is used by some shipped slide, so the
 * player's mark and its G key reach it. Terms linked from the narration (glossary_mark_block):
 * each term's first use on a slide, and only it, becomes a span of its own marked
 * LSPAN_TERM; the block's text is kept byte for byte, and the presenter's layout (narr.h)
 * breaks every shipped slide's lines exactly where it does unmarked, at many widths;
 * hostile text (escapes, terms glued to other words, a term at a hard break) is kept whole. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/glossary.h"
#include "lesson/lesson.h"
#include "ui/present/narr.h"

static const char *const required[] = {"busbw",  "algbw",       "α-β model",  "1F1B",
                                       "bubble", "ZeRO stages", "seq (init)", "GPipe",
                                       "NVLink", "DDP"};

static long find(const char *term)
{
    size_t n;
    const struct glossary_term *t = glossary_terms(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].term, term) == 0) return (long)i;
    return -1;
}

static void test_terms_defined(void **state)
{
    (void)state;
    size_t n;
    const struct glossary_term *t = glossary_terms(&n);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        assert_true(find(required[i]) >= 0);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(t[i].match[0]);
        assert_true(strlen(t[i].definition) > 40);
        assert_true(strlen(t[i].definition) < 500);
    }
}

static void test_found_as_words(void **state)
{
    (void)state;
    size_t used[8];
    size_t k = glossary_used("The busbw of an all-reduce, not its algbw; init `seq`.", used, 8);
    assert_int_equal(k, 4);
    assert_int_equal((long)used[0], find("busbw"));
    assert_int_equal((long)used[1], find("all-reduce"));
    assert_int_equal((long)used[2], find("algbw"));
    assert_int_equal((long)used[3], find("seq (init)"));
    /* inside other words, or capitals of a short word in lower case: not the term */
    assert_int_equal(glossary_used("a sequence of steps; the tp axis; bubbles", used, 8), 0);
    assert_int_equal(glossary_used("α-β says so; 1F1B too", used, 8), 2);
    assert_int_equal((long)used[0], find("α-β model"));
    assert_int_equal((long)used[1], find("1F1B"));
}

static void test_shipped_slides_use_them(void **state)
{
    (void)state;
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    size_t n, slides_marked = 0, nslides = 0;
    glossary_terms(&n);
    bool *seen = calloc(n, sizeof *seen);
    for (size_t l = 0; l < set.n; l++)
        for (size_t s = 0; s < set.v[l].nslides; s++) {
            size_t used[64], k = glossary_slide_terms(&set.v[l].slides[s], used, 64);
            for (size_t i = 0; i < k; i++)
                seen[used[i]] = true;
            slides_marked += k > 0;
            nslides++;
        }
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!seen[find(required[i])]) fail_msg("no shipped slide uses %s", required[i]);
    printf("glossary: %zu terms; %zu of %zu slides mark some\n", n, slides_marked, nslides);
    free(seen);
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

/* A block's text as it would read, hard breaks as '\n'. */
static char *block_text(const struct lesson_block *b)
{
    size_t cap = 1;
    for (size_t i = 0; i < b->nspans; i++)
        cap += strlen(b->spans[i].text) + 1;
    char *t = xcalloc(cap, 1);
    for (size_t i = 0; i < b->nspans; i++) {
        if (b->spans[i].hard_break) strcat(t, "\n");
        strcat(t, b->spans[i].text);
    }
    return t;
}

/* The marked spans' texts of blocks[0, n), joined by '|'. */
static void marked_text(const struct lesson_block *b, size_t n, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < b[i].nspans; j++)
            if (b[i].spans[j].style & LSPAN_TERM) {
                strncat(out, b[i].spans[j].text, cap - strlen(out) - 2);
                strcat(out, "|");
            }
}

/* Lines of the presenter's layout of the same blocks, marked and not: the same text and
 * width, line for line. */
static void same_lines(const struct lesson_block *a, const struct lesson_block *b, size_t n,
                       int width, bool airy, const char *where)
{
    struct narr x, y;
    narr_layout(a, n, width, airy, true, &x);
    narr_layout(b, n, width, airy, true, &y);
    if (x.n != y.n)
        fail_msg("%s at %d columns: %d lines unmarked, %d marked", where, width, x.n, y.n);
    for (int i = 0; i < x.n; i++) {
        char p[1024], q[1024];
        narr_line_text(&x.l[i], p, sizeof p);
        narr_line_text(&y.l[i], q, sizeof q);
        if (strcmp(p, q) != 0 || x.l[i].width != y.l[i].width)
            fail_msg("%s at %d columns, line %d: '%s' unmarked, '%s' marked", where, width,
                     i + 1, p, q);
    }
    narr_free(&x);
    narr_free(&y);
}

static void test_marks_keep_the_lines(void **state)
{
    (void)state;
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    static const int widths[] = {12, 20, 31, 44, 58, 77, 96, 140};
    size_t nslides = 0, with_marks = 0, marks = 0;
    for (size_t l = 0; l < set.n; l++)
        for (size_t k = 0; k < set.v[l].nslides; k++) {
            const struct lesson_slide *s = &set.v[l].slides[k];
            char where[200];
            snprintf(where, sizeof where, "%s slide %zu", set.v[l].id, k + 1);
            struct lesson_block *m = glossary_marked_copy(s->blocks, s->nblocks);
            size_t here = 0;
            bool term_seen[GLOSSARY_MAX_TERMS] = {false};
            for (size_t b = 0; b < s->nblocks; b++) {
                char *t0 = block_text(&s->blocks[b]), *t1 = block_text(&m[b]);
                if (strcmp(t0, t1) != 0) fail_msg("%s block %zu: text changed", where, b);
                free(t0);
                free(t1);
                for (size_t j = 0; j < m[b].nspans; j++) {
                    if (!(m[b].spans[j].style & LSPAN_TERM)) continue;
                    /* a term's spelling, whole, and once a slide */
                    size_t used[2];
                    assert_int_equal(glossary_used(m[b].spans[j].text, used, 2), 1);
                    if (term_seen[used[0]])
                        fail_msg("%s: '%s' marked twice", where, m[b].spans[j].text);
                    term_seen[used[0]] = true;
                    here++;
                }
            }
            for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
                same_lines(s->blocks, m, s->nblocks, widths[w], true, where);
                same_lines(s->blocks, m, s->nblocks, widths[w], false, where);
            }
            glossary_free_blocks(m, s->nblocks);
            nslides++;
            with_marks += here > 0;
            marks += here;
        }
    printf("glossary marks: %zu terms linked on %zu of %zu slides, every line unchanged\n",
           marks, with_marks, nslides);
    assert_true(with_marks * 10 >= nslides * 8); /* most slides link a term */
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

/* Hostile or awkward narration: its bytes stay, only whole first uses are marked. */
static void test_marks_hostile(void **state)
{
    (void)state;
    struct lesson_span sp[] = {
        {"\x1b[31mbusbw\x1b[0m xbusbw busbwx BUSBW", 0, false},
        {"busbw", LSPAN_BOLD, true}, /* a second use, at a hard break: not marked */
        {"", 0, true},
        {"1f1b and 1F1B, then 1F1B; α-β", LSPAN_CODE, true},
        {"all-reduce", LSPAN_ITALIC, false},
    };
    struct lesson_block b = {.kind = LBLOCK_PARAGRAPH, .spans = sp, .nspans = 5};
    struct lesson_block code = {.kind = LBLOCK_CODE, .spans = sp, .nspans = 1};
    struct lesson_block in[2] = {b, code};
    struct lesson_block *m = glossary_marked_copy(in, 2);
    char *t0 = block_text(&b), *t1 = block_text(&m[0]);
    assert_string_equal(t0, t1);
    free(t0);
    free(t1);
    char got[400];
    marked_text(m, 2, got, sizeof got);
    /* "\x1b[31mbusbw": the escape's 'm' is a word character, so not a whole word there;
     * BUSBW (any case for a lower-case spelling) is the first whole use */
    assert_string_equal(got, "BUSBW|1F1B|α-β|all-reduce|");
    /* the hard breaks stay on the spans that start the lines */
    size_t breaks = 0;
    for (size_t j = 0; j < m[0].nspans; j++)
        breaks += m[0].spans[j].hard_break;
    assert_int_equal(breaks, 3);
    assert_int_equal(m[1].nspans, 1);        /* a code block is left as it is */
    for (size_t j = 0; j < m[0].nspans; j++) /* styles kept, the mark added */
        if (strcmp(m[0].spans[j].text, "1F1B") == 0)
            assert_int_equal(m[0].spans[j].style, LSPAN_CODE | LSPAN_TERM);
    glossary_free_blocks(m, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_defined),
        cmocka_unit_test(test_found_as_words),
        cmocka_unit_test(test_shipped_slides_use_them),
        cmocka_unit_test(test_marks_keep_the_lines),
        cmocka_unit_test(test_marks_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
