/* test_predict_cache.c - predict first hides what a holds exercise asks as it is now, not
 * what an exercise once at the same address asked (ui/screens/lesson/predict.h): a lesson
 * freed and another parsed may put another exercise at a freed exercise's address with the
 * same scene but another rank or step (lessons 05 and 13 ask ranks 2 and 0 of the same
 * ring all-reduce at the end and at step 3). For every exercise of the slide, asked after
 * every other one at the same address, the boxes hidden are those a fresh copy of it (at an
 * address never asked before) hides. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/lesson.h"
#include "ui/app.h"
#include "ui/screens/lesson/predict.h"

static const char lesson_text[] = "---\n"
                                  "lesson: predict-cache\n"
                                  "title: Predict first, one address\n"
                                  "---\n"
                                  "\n"
                                  "# One ring all-reduce, asked four ways\n"
                                  "\n"
                                  "Answer first.\n"
                                  "\n"
                                  "```scene\n"
                                  "collective: all_reduce\n"
                                  "algo: ring\n"
                                  "ranks: 4\n"
                                  "count: 4\n"
                                  "init: seq\n"
                                  "step: 0\n"
                                  "```\n"
                                  "\n"
                                  "```exercise\n"
                                  "id: r2-mid\n"
                                  "type: holds\n"
                                  "prompt: What does rank 2 hold after step 3?\n"
                                  "rank: 2\n"
                                  "step: 3\n"
                                  "solution: see the box.\n"
                                  "```\n"
                                  "\n"
                                  "```exercise\n"
                                  "id: r2-end\n"
                                  "type: holds\n"
                                  "prompt: What does rank 2 hold at the end?\n"
                                  "rank: 2\n"
                                  "step: end\n"
                                  "solution: see the box.\n"
                                  "```\n"
                                  "\n"
                                  "```exercise\n"
                                  "id: r0-end\n"
                                  "type: holds\n"
                                  "prompt: What does rank 0 hold at the end?\n"
                                  "rank: 0\n"
                                  "step: end\n"
                                  "solution: see the box.\n"
                                  "```\n"
                                  "\n"
                                  "```exercise\n"
                                  "id: r3-mid\n"
                                  "type: holds\n"
                                  "prompt: What does rank 3 hold after step 3?\n"
                                  "rank: 3\n"
                                  "step: 3\n"
                                  "solution: see the box.\n"
                                  "```\n";

/* The boxes predict first hides on slide s with exercise e (copied into the slide's one
 * exercise, at *at) open: hide_from of every rank. */
static void hidden(struct app *a, const struct lesson_slide *s, struct lesson_exercise *at,
                   const struct lesson_exercise *e, long *from)
{
    *at = *e;
    struct lesson_slide one = *s;
    one.ex = at;
    one.nex = 1;
    struct predict p = {.s = &one, .sc = &a->sc};
    p.open[0] = true;
    predict_begin(a, &p);
    for (int r = 0; r < CV_MAX_RANKS; r++)
        from[r] = a->hide_from[r];
    predict_end(a);
}

static void test_same_address(void **state)
{
    (void)state;
    struct lesson L;
    struct lesson_errors errs = {0};
    assert_int_equal(
        lesson_parse("predict-cache.md", lesson_text, strlen(lesson_text), &L, &errs), CV_OK);
    assert_int_equal(L.nslides, 1);
    const struct lesson_slide *s = &L.slides[0];
    assert_int_equal(s->nex, 4);
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    char err[200];
    assert_int_equal(app_set_scene(a, &s->scene, err, sizeof err), CV_OK);
    struct lesson_exercise *shared = xcalloc(1, sizeof *shared);
    size_t differ = 0;
    for (size_t i = 0; i < s->nex; i++) {
        /* a fresh address: nothing asked at it before */
        struct lesson_exercise *fresh = xcalloc(1, sizeof *fresh);
        long want[CV_MAX_RANKS];
        hidden(a, s, fresh, &s->ex[i], want);
        for (size_t j = 0; j < s->nex; j++) {
            if (j == i) continue;
            long got[CV_MAX_RANKS], before[CV_MAX_RANKS];
            hidden(a, s, shared, &s->ex[j], before);
            hidden(a, s, shared, &s->ex[i], got);
            for (int r = 0; r < a->sc.nranks; r++) {
                if (got[r] != want[r])
                    fail_msg("%s asked after %s at one address: rank %d hidden from %ld, "
                             "alone from %ld",
                             s->ex[i].id, s->ex[j].id, r, got[r], want[r]);
                differ += before[r] != want[r];
            }
        }
        free(fresh);
    }
    /* the exercises hide different boxes: a stale answer would show */
    assert_true(differ > 0);
    printf("predict cache: %zu exercises, each after every other at one address (%zu "
           "ranks hidden otherwise by the one before)\n",
           s->nex, differ);
    free(shared);
    app_free(a);
    free(a);
    lesson_free(&L);
    lesson_errors_free(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_address),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
