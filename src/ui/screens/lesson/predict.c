/* predict.c - predict first: hide what open exercises ask (see predict.h). */
#include "ui/screens/lesson/predict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/trace.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/types/types.h"
#include "ui/app.h"
#include "ui/kit/draw.h"
#include "ui/screens/screens.h"

/* Is the figure (v, half, unit) exercise e's answer ans? */
static bool predict_same(const struct lesson_exercise *e, double ans, double v, double half,
                         const char *unit)
{
    if (ans == 0 || !isfinite(ans)) return false;
    double cv = v, ch = half;
    enum ex_dim fd, ed;
    double sc;
    const char *canon;
    /* "40 MiB/rank": a per-something figure is in the unit before the '/' (but GB/s is
     * one unit) */
    char u[24];
    snprintf(u, sizeof u, "%s", unit);
    if (ex_unit_lookup(u, &fd, &sc, &canon) != CV_OK && strchr(u, '/')) *strchr(u, '/') = '\0';
    if (u[0] && ex_unit_lookup(u, &fd, &sc, &canon) == CV_OK &&
        ex_unit_lookup(e->units, &ed, &sc, &canon) == CV_OK && fd != DIM_NONE &&
        fd != DIM_COUNT) {
        char err[80];
        if (fd != ed || ex_unit_convert(v, u, e->units, &cv, err, sizeof err) != CV_OK ||
            ex_unit_convert(half, u, e->units, &ch, err, sizeof err) != CV_OK)
            return false;
    }
    double tol = e->tolerance > 0.01 ? e->tolerance : 0.01;
    return fabs(cv - ans) <= fmax(tol * fabs(ans), ch * (1 + 1e-9));
}

/* Does unit (a word after a figure) spell the same unit as the exercise's, canonically? */
static bool predict_unit_is(const struct lesson_exercise *e, const char *unit)
{
    enum ex_dim d1, d2;
    double sc;
    const char *c1, *c2;
    return unit[0] && ex_unit_lookup(e->units, &d1, &sc, &c1) == CV_OK &&
           ex_unit_lookup(unit, &d2, &sc, &c2) == CV_OK && strcmp(c1, c2) == 0;
}

bool predict_is_ratio(const struct lesson_exercise *e)
{
    enum ex_dim d;
    double sc;
    const char *c;
    return e->units[0] && ex_unit_lookup(e->units, &d, &sc, &c) == CV_OK &&
           (strcmp(c, "x") == 0 || strcmp(c, "%") == 0);
}

bool predict_is_setting(const struct scene *sc, double v, double half, const char *unit)
{
    if (!sc) return false;
    if (!unit[0] || strcmp(unit, "ranks") == 0 || strcmp(unit, "CPU") == 0)
        if (v == sc->nranks || v == (double)scene_count(sc)) return true;
    enum ex_dim d;
    double scale, b, hb;
    char err[80];
    /* the measurement size is a setting only where the screen says it ("size 64 MiB",
     * "64 MiB on each link"): on the parallelism screen a figure of that size is something
     * else (the bytes a rank holds), an answer where an exercise asks it */
    bool said = sc->screen == SCREEN_COLLECTIVES || sc->screen == SCREEN_HIERARCHY;
    return said && unit[0] && sc->meas_bytes &&
           ex_unit_lookup(unit, &d, &scale, NULL) == CV_OK && d == DIM_BYTES &&
           ex_unit_convert(v, unit, "B", &b, err, sizeof err) == CV_OK &&
           ex_unit_convert(half, unit, "B", &hb, err, sizeof err) == CV_OK &&
           fabs(b - (double)sc->meas_bytes) <= fmax(hb, 0.5);
}

/* A later slide's answer: a count without a unit ("14") is on screens as other things (a
 * value in a box): it is hidden only as a count of what its prompt counts ("14 steps"); a
 * small whole answer with a unit only with that unit ("8x"), and so is a ratio of any size:
 * a bare "32" is a box value, a row count or another exercise's count, "32x" the ratio. */
bool predict_figure_is(const struct lesson_exercise *e, double v, double half, const char *unit)
{
    double ans = e->answer;
    bool whole = ans == round(ans);
    if (whole && !e->units[0] && fabs(ans) < 1000 &&
        !(unit[0] && e->prompt && strcasestr(e->prompt, unit)))
        return false; /* four digits or more ("524288"): no rank, step or box value */
    if (predict_is_ratio(e) && !predict_unit_is(e, unit)) return false;
    if (whole && fabs(ans) < 10 && e->units[0] && !predict_unit_is(e, unit)) return false;
    return predict_same(e, ans, v, half, unit);
}

/* A panel figure (value, unit) equal to an unanswered number exercise's answer, within
 * its tolerance (at least 1%: panels round), in the exercise's unit or any unit of the
 * same kind; a figure without a unit (or with a word that is no unit) is compared as is. */
static bool predict_hit(double v, double half, const char *unit, void *ctx)
{
    const struct predict *p = ctx;
    /* the scene's settings (in its header anyway): "Σ all 8" and "8 ranks = 8 CPU threads"
     * stay when an answer happens to be 8, the panel's "size 64 MiB" when it is 64 MiB */
    if (predict_is_setting(p->sc, v, half, unit)) return false;
    /* a scene's counters ("6 steps" of its header, "56 messages" of a transfer list):
     * an answer only where the exercise counts that */
    bool counter = strcmp(unit, "steps") == 0 || strcmp(unit, "messages") == 0;
    for (size_t k = 0; k < p->s->nex; k++) {
        const struct lesson_exercise *e = &p->s->ex[k];
        if (counter && (e->units[0] || !e->prompt ||
                        !strcasestr(e->prompt, unit[0] == 's' ? "step" : "message")))
            continue;
        if (ex_answer_form(e) == EX_ANSWER_NUMBER && p->open[k] &&
            predict_same(e, p->answer[k], v, half, unit))
            return true;
    }
    for (size_t k = 0; k < p->nlater; k++)
        if (ex_answer_form(p->later[k]) == EX_ANSWER_NUMBER &&
            predict_figure_is(p->later[k], v, half, unit))
            return true;
    return false;
}

/* The first step from which rank r's box shows what holds exercise e asks of its rank at
 * step `at` (the asked slots, or the whole box), or -1: an all-gather's end, where every
 * rank holds the same, and a rank that holds the asked values earlier (the next rank of a
 * ring) would otherwise give the answer away beside the hidden box. A box that holds them
 * as its own input, unchanged, does not count: the inputs are what the exercise gives (a
 * tree's max is rank 3's 30, which rank 3 holds from the start). */
static long holds_same_from(const struct app *a, const struct lesson_exercise *e, long at,
                            int r)
{
    const struct trace *t = screen_trace(a);
    if (!t || !t->plan || at < 0 || (size_t)at >= t->nsnap || e->rank >= t->plan->nranks ||
        r >= t->plan->nranks)
        return -1;
    size_t L = t->plan->work_len, lo = e->slots ? (size_t)e->slot_lo : 0;
    size_t hi = e->slots ? (size_t)e->slot_hi : L - 1;
    if (L == 0 || hi >= L || lo > hi) return -1;
    const float *want = trace_buf(t, (size_t)at, e->rank);
    const uint32_t *wm = trace_mask(t, (size_t)at, e->rank);
    const float *in = trace_buf(t, 0, r);
    const uint32_t *im = trace_mask(t, 0, r);
    for (size_t s = 0; s < t->nsnap; s++) {
        const float *got = trace_buf(t, s, r);
        const uint32_t *gm = trace_mask(t, s, r);
        bool same = true, input = true;
        for (size_t i = lo; i <= hi && same; i++) {
            same = !wm[i] == !gm[i] && (!wm[i] || got[i] == want[i]);
            input = input && !gm[i] == !im[i] && (!gm[i] || got[i] == in[i]);
        }
        if (same && !input) return (long)s;
    }
    return -1;
}

/* ---- a holds exercise's values in any scene ------------------------------------------ */

#define PREDICT_BOX 512
struct predict_want {
    const struct lesson_exercise *e;
    /* what the values were computed from (ex_holds_expected reads the scene, the rank, the
     * step and the slots): a lesson freed and another parsed may put another exercise at
     * e's address, with the same scene but another rank or step */
    struct scene sc;
    int rank, slot_lo, slot_hi;
    long step;
    bool slots;
    bool ok;
    size_t len;
    float v[PREDICT_BOX];
    bool has[PREDICT_BOX];
};
#define PREDICT_CACHE 96
static struct predict_want predict_cache[PREDICT_CACHE];
static size_t predict_ncache, predict_next;

/* Is w computed for e as it is now? */
static bool predict_want_is(const struct predict_want *w, const struct lesson_exercise *e)
{
    return w->e == e && w->rank == e->rank && w->step == e->step && w->slots == e->slots &&
           w->slot_lo == e->slot_lo && w->slot_hi == e->slot_hi &&
           memcmp(&w->sc, &e->scene, sizeof e->scene) == 0;
}

/* What holds exercise e asks (its rank's box at its step of its own scene), computed once
 * per exercise, scene, rank, step and slots. */
static const struct predict_want *predict_want_of(const struct lesson_exercise *e)
{
    for (size_t i = 0; i < predict_ncache; i++)
        if (predict_want_is(&predict_cache[i], e)) return &predict_cache[i];
    struct predict_want *w;
    if (predict_ncache < PREDICT_CACHE)
        w = &predict_cache[predict_ncache++];
    else
        w = &predict_cache[predict_next++ % PREDICT_CACHE];
    w->e = e;
    w->sc = e->scene;
    w->rank = e->rank;
    w->step = e->step;
    w->slots = e->slots;
    w->slot_lo = e->slot_lo;
    w->slot_hi = e->slot_hi;
    char err[200];
    w->ok = ex_holds_expected(e, w->v, w->has, PREDICT_BOX, &w->len, err, sizeof err) == CV_OK;
    /* ex_holds_expected gives the asked slots from v[0]: here they stand in their slots
     * (v[lo..hi], nothing before), as the boxes hold them */
    size_t lo = e->slots ? (size_t)e->slot_lo : 0;
    if (w->ok && lo > 0) {
        if (lo + w->len > PREDICT_BOX) {
            w->ok = false;
            return w;
        }
        memmove(w->v + lo, w->v, w->len * sizeof w->v[0]);
        memmove(w->has + lo, w->has, w->len * sizeof w->has[0]);
        memset(w->has, 0, lo * sizeof w->has[0]);
        w->len += lo;
    }
    return w;
}

/* Does rank r's box at snapshot s of t hold w's asked slots lo..hi, o slots further on? */
static bool predict_box_at(const struct trace *t, size_t s, int r, const struct predict_want *w,
                           size_t lo, size_t hi, size_t o)
{
    const float *got = trace_buf(t, s, r);
    const uint32_t *gm = trace_mask(t, s, r);
    for (size_t i = lo; i <= hi; i++)
        if (!w->has[i] != !gm[i + o] || (w->has[i] && got[i + o] != w->v[i])) return false;
    return true;
}

/* One asked value (an asked slot past the end of a box of one: another collective's
 * output, the reduce-scatter's component): the first step at which rank r's box of one
 * holds it, or -1 (never, or some rank's input holds it: a slide gives its inputs). */
static long predict_one_from(const struct trace *t, int r, float v)
{
    for (int q = 0; q < t->plan->nranks; q++)
        if (trace_mask(t, 0, q)[0] && trace_buf(t, 0, q)[0] == v) return -1;
    for (size_t s = 0; s < t->nsnap; s++)
        if (trace_mask(t, s, r)[0] && trace_buf(t, s, r)[0] == v) return (long)s;
    return -1;
}

/* The first step from which rank r's box in the scene shown holds what holds exercise e
 * asks (the values, in their slots), whatever the scene: another collective, another
 * step, an operation the narration has the student switch to. -1: never, or the values
 * are some rank's input (a slide gives its inputs), or fewer than min_data are asked with
 * data (on another slide a single value is no box to recognise; on the exercise's own,
 * changed by a key, it is). */
static long predict_values_from(const struct app *a, const struct lesson_exercise *e, int r,
                                size_t min_data)
{
    const struct trace *t = screen_trace(a);
    if (!t || !t->plan || r >= t->plan->nranks || t->nsnap == 0) return -1;
    const struct predict_want *w = predict_want_of(e);
    size_t L = t->plan->work_len;
    /* a box as long or longer (another count: the reduce's 6 is slot 0 of "6 10" too) */
    if (!w->ok || w->len == 0 || L == 0 || L > PREDICT_BOX) return -1;
    size_t lo = e->slots ? (size_t)e->slot_lo : 0,
           hi = e->slots ? (size_t)e->slot_hi : w->len - 1;
    if (lo == hi && lo < w->len && w->has[lo] && min_data <= 1 && L == 1)
        return predict_one_from(t, r, w->v[lo]);
    if (hi >= L || hi >= w->len || lo > hi) return -1;
    size_t data = 0;
    for (size_t i = lo; i <= hi; i++)
        data += w->has[i];
    if (data < min_data) return -1;
    /* two values or more are recognised anywhere in a longer box ("0 10 20 30" in an
     * all-to-all's "0 1 2 3 0 10 20 30"); one only in its slot */
    size_t last = data >= 2 ? L - 1 - hi : 0;
    for (size_t o = 0; o <= last; o++)
        for (int q = 0; q < t->plan->nranks; q++)
            if (predict_box_at(t, 0, q, w, lo, hi, o)) return -1;
    for (size_t s = 0; s < t->nsnap; s++)
        for (size_t o = 0; o <= last; o++)
            if (predict_box_at(t, s, r, w, lo, hi, o)) return (long)s;
    return -1;
}

/* Hide rank r's box from step `from` until `to` (exclusive; -1: to the end), with what it
 * hides already (one span from the first step to the last). */
static void predict_hide_span(struct app *a, int r, long from, long to)
{
    if (from < 0 || r < 0 || r >= CV_MAX_RANKS) return;
    if (a->hide_from[r] < 0)
        a->hide_to[r] = to;
    else if (a->hide_to[r] >= 0)
        a->hide_to[r] = to < 0 || to > a->hide_to[r] ? to : a->hide_to[r];
    if (a->hide_from[r] < 0 || from < a->hide_from[r]) a->hide_from[r] = from;
    a->hide_any = true;
}

static void predict_hide(struct app *a, int r, long from)
{
    predict_hide_span(a, r, from, -1);
}

/* A later exercise's values in rank r's box (predict_values_from, from two values up): hidden
 * while the box holds them, not after: a box whose values moved on (an all-reduce's rank 2
 * from the reduce-scatter's "3 3 14 12" to the "6 10 14 18" every box shows) is no answer, and
 * a "?" beside three boxes showing what it holds would only puzzle. */
static void predict_hide_while(struct app *a, const struct lesson_exercise *e, int r,
                               size_t min_data)
{
    long from = predict_values_from(a, e, r, min_data);
    const struct trace *t = screen_trace(a);
    if (from < 0 || !t) return;
    const struct predict_want *w = predict_want_of(e);
    size_t L = t->plan->work_len, lo = e->slots ? (size_t)e->slot_lo : 0,
           hi = e->slots ? (size_t)e->slot_hi : w->len - 1;
    size_t data = 0;
    for (size_t i = lo; i <= hi && i < w->len; i++)
        data += w->has[i];
    size_t last = data >= 2 && L > hi ? L - 1 - hi : 0;
    if (hi >= L || hi >= w->len) { /* a box of one holding an asked slot: as found */
        predict_hide(a, r, from);
        return;
    }
    long to = -1;
    for (size_t s = (size_t)from + 1; s < t->nsnap && to < 0; s++) {
        bool holds = false;
        for (size_t o = 0; o <= last && !holds; o++)
            holds = predict_box_at(t, s, r, w, lo, hi, o);
        if (!holds) to = (long)s;
    }
    predict_hide_span(a, r, from, to);
}

/* Does rank q show asked value i of w at snapshot st: the value in its slot, and not the
 * rank's input there (a slide gives its inputs)? */
static bool predict_shows(const struct trace *t, size_t st, int q, const struct predict_want *w,
                          size_t i)
{
    const float *v = trace_buf(t, st, q), *in = trace_buf(t, 0, q);
    const uint32_t *m = trace_mask(t, st, q), *im = trace_mask(t, 0, q);
    return w->has[i] && m[i] && v[i] == w->v[i] && !(im[i] && in[i] == w->v[i]);
}

/* A holds answer spread over the boxes: from the first step at which every asked value
 * (two or more) stands in its slot of some box (the finished chunks of an all-reduce's middle
 * frame, one a rank; hidden or not: the one left shown would be part of the answer beside
 * the hidden ones), the boxes that show one of them are hidden. */
static void predict_spread(struct app *a, const struct lesson_exercise *e)
{
    const struct trace *t = screen_trace(a);
    if (!t || !t->plan || t->nsnap == 0) return;
    const struct predict_want *w = predict_want_of(e);
    size_t L = t->plan->work_len;
    /* a longer box too (more elements: the values stand in the same slots) */
    if (!w->ok || w->len == 0 || L == 0 || L > PREDICT_BOX) return;
    size_t lo = e->slots ? (size_t)e->slot_lo : 0,
           hi = e->slots ? (size_t)e->slot_hi : w->len - 1;
    if (hi >= L || hi >= w->len || lo > hi) return;
    size_t data = 0;
    for (size_t i = lo; i <= hi; i++)
        data += w->has[i];
    if (data < 2) return;
    int W = t->plan->nranks < CV_MAX_RANKS ? t->plan->nranks : CV_MAX_RANKS;
    for (size_t st = 0; st < t->nsnap; st++) {
        size_t seen = 0;
        for (size_t i = lo; i <= hi; i++) {
            bool any = false;
            for (int q = 0; q < W && !any; q++) /* hidden or not: the rest would tell */
                any = predict_shows(t, st, q, w, i);
            seen += any;
        }
        if (seen < data) continue;
        for (int q = 0; q < W; q++)
            for (size_t s2 = st; s2 < t->nsnap; s2++) {
                bool one = false;
                for (size_t i = lo; i <= hi && !one; i++)
                    one = predict_shows(t, s2, q, w, i);
                if (one) {
                    predict_hide(a, q, (long)s2);
                    break;
                }
            }
        return;
    }
}

/* Part of a holds answer, on its own scene: from the asked step on, a box that shows any of
 * the asked values in its slot (not the rank's input there) gives that part away beside the
 * hidden asked box (the ring's finished chunk 72 in rank 3's slot 3 at step 4, when rank 0's
 * box at step 4 is asked). Each such box is hidden from the first step, at or after the
 * asked one, at which it shows one; earlier frames stay: they are what the student reasons
 * from. */
static void predict_partial(struct app *a, const struct lesson_exercise *e, long at)
{
    const struct trace *t = screen_trace(a);
    if (!t || !t->plan || t->nsnap == 0 || at < 0) return;
    const struct predict_want *w = predict_want_of(e);
    size_t L = t->plan->work_len;
    /* the own scene's box: as long, or (asked slots) reaching at most to its end */
    if (!w->ok || (e->slots ? w->len > L : w->len != L) || L == 0 || L > PREDICT_BOX) return;
    size_t lo = e->slots ? (size_t)e->slot_lo : 0, hi = e->slots ? (size_t)e->slot_hi : L - 1;
    if (hi >= L || lo > hi) return;
    int W = t->plan->nranks < CV_MAX_RANKS ? t->plan->nranks : CV_MAX_RANKS;
    for (int q = 0; q < W; q++)
        for (size_t s2 = (size_t)at; s2 < t->nsnap; s2++) {
            bool one = false;
            for (size_t i = lo; i <= hi && !one; i++)
                one = predict_shows(t, s2, q, w, i);
            if (one) {
                predict_hide(a, q, (long)s2);
                break;
            }
        }
}

/* Does the scene shown differ from e's own only in its step (and pace, highlight, size)? */
static bool predict_own_scene(const struct app *a, const struct lesson_exercise *e)
{
    return !(screen_scene_diff(&a->sc, &e->scene) & ~(SF_STEP | SF_HL | SF_AUTOPLAY | SF_MEAS));
}

void predict_add_later(struct predict *p, const struct lesson *L, size_t slide,
                       bool (*done)(const void *ctx, const char *id), const void *ctx)
{
    for (size_t s = slide + 1; L && s < L->nslides; s++)
        for (size_t k = 0; k < L->slides[s].nex; k++) {
            const struct lesson_exercise *e = &L->slides[s].ex[k];
            if (done && done(ctx, e->id)) continue;
            if (p->nlater < PREDICT_MAX_LATER) p->later[p->nlater++] = e;
        }
}

void predict_add_lesson(struct predict *p, const struct lesson *L,
                        bool (*done)(const void *ctx, const char *id), const void *ctx)
{
    for (size_t s = 0; L && s < L->nslides; s++)
        for (size_t k = 0; k < L->slides[s].nex; k++) {
            const struct lesson_exercise *e = &L->slides[s].ex[k];
            if (done && done(ctx, e->id)) continue;
            if (ex_answer_distinct(e) && p->nlater < PREDICT_MAX_LATER)
                p->later[p->nlater++] = e;
        }
}

/* Before the scene is drawn: hide what unanswered exercises ask (the asked rank's box from
 * the asked step on, on the exercise's own scene; any box holding what a holds exercise of
 * the slide or a later one asks; panel figures equal to an answer). */
void predict_begin(struct app *a, struct predict *p)
{
    const struct lesson_slide *s = p->s;
    a->hide_any = false;
    for (int r = 0; r < CV_MAX_RANKS; r++)
        a->hide_from[r] = a->hide_to[r] = -1;
    bool numbers = false;
    for (size_t k = 0; k < s->nex; k++) {
        const struct lesson_exercise *e = &s->ex[k];
        if (!p->open[k]) continue;
        if (ex_answer_form(e) == EX_ANSWER_NUMBER) numbers = true;
        if (ex_answer_form(e) != EX_ANSWER_VALUES || e->rank < 0 || e->rank >= CV_MAX_RANKS)
            continue;
        if (!predict_own_scene(a, e)) {
            /* the student's own scene (a key changed it): wherever it shows the values */
            for (int r = 0; r < a->sc.nranks && r < CV_MAX_RANKS; r++)
                predict_hide_while(a, e, r, 1);
            predict_spread(a, e);
            continue;
        }
        long at = e->step == SCENE_STEP_END ? (long)app_nsteps(a) : e->step;
        for (int r = 0; r < a->sc.nranks && r < CV_MAX_RANKS; r++) {
            long from = holds_same_from(a, e, at, r);
            if (r == e->rank && (from < 0 || from > at)) from = at;
            if (from >= 0) predict_hide(a, r, from);
        }
        a->hide_any = true;
        predict_spread(a, e);
        predict_partial(a, e, at);
    }
    for (size_t k = 0; k < p->nlater; k++) {
        const struct lesson_exercise *e = p->later[k];
        if (ex_answer_form(e) == EX_ANSWER_NUMBER) numbers = true;
        if (ex_answer_form(e) != EX_ANSWER_VALUES) continue;
        for (int r = 0; r < a->sc.nranks && r < CV_MAX_RANKS; r++)
            predict_hide_while(a, e, r, 2);
        predict_spread(a, e);
        if (predict_own_scene(a, e))
            predict_partial(a, e, e->step == SCENE_STEP_END ? (long)app_nsteps(a) : e->step);
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

size_t predict_hold_words(const struct lesson_slide *s, const bool *open, const char **words,
                          size_t max)
{
    size_t n = 0;
    for (size_t k = 0; s && k < s->nex; k++)
        for (size_t i = 0; open[k] && i < s->ex[k].nshows && n < max; i++)
            words[n++] = s->ex[k].shows[i];
    return n;
}
