/* test_predict_given.c - predict first hides only the answer, never what an exercise gives
 * (ui/screens/lesson/predict.h). A rank's input is the exercise's given data ("the inputs are
 * 10·rank"): a box that shows its own input, unchanged, at any step is never hidden, except
 * the asked box itself from the asked step on (its answer may be its input, as a broadcast's
 * root keeps its buffer). Checked on every slide of every shipped lesson with a holds
 * exercise, with the slide's exercises and its lesson's later ones open, as the player opens
 * them: every rank, every step. The expected boxes are read off the trace itself (step 0 is
 * the input), not from predict.c's reasoning. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "lesson/types/types.h"
#include "ui/app.h"
#include "ui/screens/lesson/predict.h"
#include "ui/screens/screens.h"

/* Does rank r's box at step st hold its input, every slot as at step 0? */
static bool box_is_input(const struct trace *t, size_t st, int r)
{
    size_t L = t->plan->work_len;
    const float *v = trace_buf(t, st, r), *in = trace_buf(t, 0, r);
    const uint32_t *m = trace_mask(t, st, r), *im = trace_mask(t, 0, r);
    for (size_t i = 0; i < L; i++)
        if (!m[i] != !im[i] || (m[i] && v[i] != in[i])) return false;
    return true;
}

/* Is rank r at step st the box an open holds exercise of the slide asks, at or after its
 * step? */
static bool asked_box(const struct app *a, const struct lesson_slide *s, int r, size_t st)
{
    for (size_t k = 0; k < s->nex; k++) {
        const struct lesson_exercise *e = &s->ex[k];
        if (ex_answer_form(e) != EX_ANSWER_VALUES || e->rank != r) continue;
        long at = e->step == SCENE_STEP_END ? (long)app_nsteps(a) : e->step;
        if ((long)st >= at) return true;
    }
    return false;
}

static void test_given_never_hidden(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("lessons/[0-9]*.md", 0, NULL, &g), 0);
    size_t slides = 0, boxes = 0, bad = 0;
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    for (size_t f = 0; f < g.gl_pathc; f++) {
        struct lesson L;
        struct lesson_errors errs = {0};
        assert_int_equal(lesson_load_file(g.gl_pathv[f], &L, &errs), CV_OK);
        for (size_t si = 0; si < L.nslides; si++) {
            const struct lesson_slide *s = &L.slides[si];
            bool holds = false;
            for (size_t k = 0; k < s->nex; k++)
                holds |= ex_answer_form(&s->ex[k]) == EX_ANSWER_VALUES;
            if (!holds) continue;
            char err[200];
            if (app_set_scene(a, &s->scene, err, sizeof err) != CV_OK) continue;
            const struct trace *t = screen_trace(a);
            if (!t || !t->plan || t->nsnap == 0) continue;
            static struct predict p;
            memset(&p, 0, sizeof p);
            p.s = s;
            p.sc = &a->sc;
            for (size_t k = 0; k < s->nex && k < PREDICT_MAX_EX; k++)
                p.open[k] = true;
            predict_add_later(&p, &L, si, NULL, NULL);
            predict_begin(a, &p);
            slides++;
            for (int r = 0; r < a->sc.nranks && r < CV_MAX_RANKS; r++)
                for (size_t st = 0; st < t->nsnap; st++) {
                    boxes++;
                    bool hid = a->hide_from[r] >= 0 && (long)st >= a->hide_from[r];
                    if (!hid || !box_is_input(t, st, r) || asked_box(a, s, r, st)) continue;
                    if (bad++ < 20)
                        print_message("%s slide %zu (%s): rank %d's input hidden at step %zu\n",
                                      g.gl_pathv[f], si + 1, s->title, r, st);
                }
            predict_end(a);
        }
        lesson_free(&L);
        lesson_errors_free(&errs);
    }
    globfree(&g);
    app_free(a);
    free(a);
    printf("predict given: %zu slides with holds exercises, %zu boxes, %zu inputs hidden\n",
           slides, boxes, bad);
    assert_true(slides > 10);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_given_never_hidden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
