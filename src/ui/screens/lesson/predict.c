/* predict.c - predict first: hide what open exercises ask (see predict.h). */
#include "ui/screens/lesson/predict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/trace.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "ui/app.h"
#include "ui/kit/draw.h"
#include "ui/screens/screens.h"

/* A panel figure (value, unit) equal to an unanswered number exercise's answer, within
 * its tolerance (at least 1%: panels round), in the exercise's unit or any unit of the
 * same kind; a figure without a unit (or with a word that is no unit) is compared as is. */
static bool predict_hit(double v, double half, const char *unit, void *ctx)
{
    const struct predict *p = ctx;
    /* W and the count are the scene's settings (in its header anyway): "Σ all 8" and
     * "8 ranks = 8 CPU threads" stay when an answer happens to be 8 */
    if (!unit[0] || strcmp(unit, "ranks") == 0 || strcmp(unit, "CPU") == 0)
        if (v == p->sc->nranks || v == (double)scene_count(p->sc)) return false;
    for (size_t k = 0; k < p->s->nex; k++) {
        const struct lesson_exercise *e = &p->s->ex[k];
        if (e->type != LEX_NUMBER || !p->open[k]) continue;
        double ans = p->answer[k];
        if (ans == 0 || !isfinite(ans)) continue;
        double cv = v, ch = half;
        enum ex_dim fd, ed;
        double sc;
        const char *canon;
        /* "40 MiB/rank": a per-something figure is in the unit before the '/' (but GB/s is
         * one unit) */
        char u[24];
        snprintf(u, sizeof u, "%s", unit);
        if (ex_unit_lookup(u, &fd, &sc, &canon) != CV_OK && strchr(u, '/'))
            *strchr(u, '/') = '\0';
        if (u[0] && ex_unit_lookup(u, &fd, &sc, &canon) == CV_OK &&
            ex_unit_lookup(e->units, &ed, &sc, &canon) == CV_OK && fd != DIM_NONE &&
            fd != DIM_COUNT) {
            char err[80];
            if (fd != ed || ex_unit_convert(v, u, e->units, &cv, err, sizeof err) != CV_OK ||
                ex_unit_convert(half, u, e->units, &ch, err, sizeof err) != CV_OK)
                continue;
        }
        double tol = e->tolerance > 0.01 ? e->tolerance : 0.01;
        if (fabs(cv - ans) <= fmax(tol * fabs(ans), ch * (1 + 1e-9))) return true;
    }
    return false;
}

/* The first step from which rank r's box shows what holds exercise e asks of its rank at
 * step `at` (the asked slots, or the whole box), or -1: an all-gather's end, where every
 * rank holds the same, and a rank that holds the asked values earlier (the next rank of a
 * ring) would otherwise give the answer away beside the hidden box. */
static long holds_same_from(const struct app *a, const struct lesson_exercise *e, long at,
                            int r)
{
    const struct trace *t = &a->trace;
    if (!t->plan || at < 0 || (size_t)at >= t->nsnap || e->rank >= t->plan->nranks ||
        r >= t->plan->nranks)
        return -1;
    size_t L = t->plan->work_len, lo = e->slots ? (size_t)e->slot_lo : 0;
    size_t hi = e->slots ? (size_t)e->slot_hi : L - 1;
    if (L == 0 || hi >= L || lo > hi) return -1;
    const float *want = trace_buf(t, (size_t)at, e->rank);
    const uint32_t *wm = trace_mask(t, (size_t)at, e->rank);
    for (size_t s = 0; s < t->nsnap; s++) {
        const float *got = trace_buf(t, s, r);
        const uint32_t *gm = trace_mask(t, s, r);
        bool same = true;
        for (size_t i = lo; i <= hi && same; i++)
            same = !wm[i] == !gm[i] && (!wm[i] || got[i] == want[i]);
        if (same) return (long)s;
    }
    return -1;
}

/* Before the scene is drawn: hide what unanswered exercises ask (the asked rank's box from
 * the asked step on, on the exercise's own scene; panel figures equal to an answer). */
void predict_begin(struct app *a, struct predict *p)
{
    const struct lesson_slide *s = p->s;
    a->hide_any = false;
    for (int r = 0; r < CV_MAX_RANKS; r++)
        a->hide_from[r] = -1;
    bool numbers = false;
    for (size_t k = 0; k < s->nex; k++) {
        const struct lesson_exercise *e = &s->ex[k];
        if (!p->open[k]) continue;
        if (e->type == LEX_NUMBER) numbers = true;
        if (e->type != LEX_HOLDS || e->rank < 0 || e->rank >= CV_MAX_RANKS) continue;
        if (screen_scene_diff(&a->sc, &e->scene) & ~(SF_STEP | SF_HL | SF_AUTOPLAY | SF_MEAS))
            continue; /* the student's own scene: not what is asked */
        long at = e->step == SCENE_STEP_END ? (long)app_nsteps(a) : e->step;
        for (int r = 0; r < a->sc.nranks && r < CV_MAX_RANKS; r++) {
            long from = holds_same_from(a, e, at, r);
            if (r == e->rank && (from < 0 || from > at)) from = at;
            if (from >= 0 && (a->hide_from[r] < 0 || from < a->hide_from[r]))
                a->hide_from[r] = from;
        }
        a->hide_any = true;
    }
    draw_set_mask(numbers ? predict_hit : NULL, p);
}

/* After: what was hidden (for the "answer first" line), nothing hidden elsewhere. */
int predict_end(struct app *a)
{
    int hits = draw_mask_hits();
    draw_set_mask(NULL, NULL);
    a->hide_any = false;
    return hits;
}
