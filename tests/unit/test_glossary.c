/* test_glossary.c - the glossary (lesson/glossary.h): the terms the lessons lean on are in
 * it (busbw, algbw, α-β, 1F1B, bubble, ZeRO, the init kind seq ...), each with a
 * definition; a slide's terms are found as whole words in the order of first use, never
 * inside another word; and every one of those terms is used by some shipped slide, so the
 * player's mark and its G key reach it. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_defined),
        cmocka_unit_test(test_found_as_words),
        cmocka_unit_test(test_shipped_slides_use_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
