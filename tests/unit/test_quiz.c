/* test_quiz.c - exercises run as a quiz: the prompt with the lecture's numbers (and a
 * choice's options) follows the narration, the answer and the reflowed worked solution only
 * once revealed, and the speaker's copy has them all. Answers are worked out here by hand.
 * Every shipped exercise asks the room a question: no sentence of what to type is left
 * (issue 31 §3), and a prompt that was only typing becomes the exercise's own question. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "present/quiz.h"

static const char *LESSON =
    "# Bandwidth\n"
    "\n"
    "Some narration.\n"
    "\n"
    "```exercise\n"
    "id: q-algbw\n"
    "type: number\n"
    "prompt: {elements} fp32 elements take {ms} ms. What is the algbw?\n"
    "param: elements = 104857600\n"
    "param: ms = 1.6\n"
    "answer: elements * 4 / (ms / 1000) / 1e9\n"
    "units: GB/s\n"
    "solution: 419,430,400 bytes in 0.0016 s\n"
    "solution: is 262.1 GB/s: {= elements * 4} bytes over {ms} ms.\n"
    "```\n"
    "\n"
    "```exercise\n"
    "id: q-steps\n"
    "type: choice\n"
    "prompt: How many steps? Type the option's number.\n"
    "option: 2\n"
    "option: 3\n"
    "correct: 2\n"
    "```\n";

/* Block i's text, its spans joined. */
static void text_of(const struct lesson_block *b, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t i = 0; i < b->nspans; i++)
        strncat(out, b->spans[i].text, n - strlen(out) - 1);
}

static int find(const struct quiz *q, const char *what)
{
    char t[2000];
    for (size_t i = 0; i < q->n; i++) {
        text_of(&q->v[i], t, sizeof t);
        if (strstr(t, what)) return (int)i;
    }
    return -1;
}

static void test_quiz(void **state)
{
    (void)state;
    struct lesson L;
    struct lesson_errors e = {0};
    assert_int_equal(lesson_parse("t.md", LESSON, strlen(LESSON), &L, &e), CV_OK);
    const struct lesson_slide *s = &L.slides[0];
    assert_int_equal(s->nex, 2);
    struct quiz q;
    quiz_build(s, 0, true, &q);
    assert_int_equal(q.nslide, s->nblocks);
    /* The prompt with its numbers, after the slide's own narration; the options as items. */
    int p = find(&q, "104857600 fp32 elements take 1.6 ms. What is the algbw?");
    assert_true(p >= (int)s->nblocks);
    assert_true(find(&q, "Some narration.") < p);
    assert_true(find(&q, "Exercise 1 of 2: ") == p);
    int c = find(&q, "How many steps?");
    assert_true(c > p);
    /* the room does not type: the prompt's typing sentence is not on the projector */
    assert_int_equal(find(&q, "Type the option"), -1);
    assert_int_equal(q.v[c + 1].kind, LBLOCK_ITEM);
    assert_int_equal(q.v[c + 2].ordinal, 2);
    assert_int_equal(find(&q, "Answer"), -1); /* not before the reveal */
    assert_int_equal(find(&q, "262.1"), -1);
    quiz_free(&q);
    /* r once: the first exercise's answer alone (104857600 * 4 B / 1.6 ms = 262.144 GB/s) */
    quiz_build(s, 1, true, &q);
    assert_true(find(&q, "262.144 GB/s") > p);
    assert_int_equal(find(&q, "option 2: 3"), -1);
    quiz_free(&q);
    /* r twice: the second's too (option 2, "3") */
    quiz_build(s, 2, true, &q);
    assert_true(find(&q, "262.144 GB/s") > p);
    assert_true(find(&q, "option 2: 3") > c);
    /* its templates filled (the projector showed "{= elements * 4}" raw) */
    int sol = find(&q, "Solution: 419,430,400 bytes in 0.0016 s is 262.1 GB/s: 419430400 "
                       "bytes over 1.6 ms.");
    assert_true(sol > 0); /* the solution's two lines reflowed into one paragraph */
    quiz_free(&q);
    char ans[64];
    ex_answer_text(&s->ex[0], NULL, NULL, ans, sizeof ans);
    assert_string_equal(ans, "262.144 GB/s");
    char notes[2000];
    quiz_notes(s, notes, sizeof notes);
    assert_non_null(strstr(notes, "Answer 1: 262.144 GB/s"));
    assert_non_null(strstr(notes, "Answer 2: option 2: 3"));
    assert_non_null(strstr(notes, "Solution: 419,430,400"));
    assert_non_null(strstr(notes, "419430400 bytes over 1.6 ms"));
    assert_null(strstr(notes, "{"));
    lesson_free(&L);
    lesson_errors_free(&e);
}

/* The room's prompt of every exercise of the shipped lessons: a question, never "Type ...". */
static void test_room_prompts(void **state)
{
    (void)state;
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    regex_t typing;
    assert_int_equal(regcomp(&typing, "(^|[.?!] )\\(?(Type|Enter|Write|type|enter) ",
                             REG_EXTENDED | REG_NOSUB),
                     0);
    size_t asked = 0;
    bool saw_rs = false;
    for (size_t l = 0; l < set.n; l++)
        for (size_t k = 0; k < set.v[l].nslides; k++) {
            const struct lesson_slide *s = &set.v[l].slides[k];
            struct quiz q;
            quiz_build(s, 0, false, &q);
            for (size_t i = q.nslide; i < q.n; i++) {
                const struct lesson_block *b = &q.v[i];
                if (b->nspans != 2 || strncmp(b->spans[0].text, "Exercise", 8) != 0) continue;
                const char *t = b->spans[1].text;
                asked++;
                if (regexec(&typing, t, 0, NULL, 0) == 0)
                    fail_msg("%s slide %zu: the room is told to type: %s", set.v[l].id, k + 1,
                             t);
                if (strlen(t) < 10)
                    fail_msg("%s slide %zu: no question for the room: '%s'", set.v[l].id, k + 1,
                             t);
                if (strcmp(t, "Which values does rank 2 hold at the end?") == 0) saw_rs = true;
            }
            quiz_free(&q);
        }
    size_t nex = 0;
    for (size_t l = 0; l < set.n; l++)
        for (size_t k = 0; k < set.v[l].nslides; k++)
            nex += set.v[l].slides[k].nex;
    printf("room prompts: %zu of %zu exercises asked as questions\n", asked, nex);
    assert_int_equal(asked, nex);
    assert_true(saw_rs); /* lesson 04's "Type all four values in rank 2's box at the end" */
    regfree(&typing);
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_quiz),
                                       cmocka_unit_test(test_room_prompts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
