/* app.c - the state's one door and the actions every screen shares (see app.h).
 *
 * app_set_scene checks the next scene, works out which fields changed (screens.h: SF_*),
 * cancels the worker when the screen changes, and hands the rest to the screen's apply,
 * which rebuilds what it derives and posts its jobs (results are matched by job id, so a
 * late result for an old scene is never shown as the new one's). app_do asks the screen
 * first, then the common actions below; both only edit a copy of the scene, and the copy
 * goes through the door. Play advances the step through the door too. */
#include "ui/app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "core/util.h"
#include "ui/kit/svg.h"
#include "ui/overlays/hw.h"
#include "ui/screens/screens.h"

#define APP_REFRESH_MS 250 /* while a job runs: the elapsed-time display */

void app_init(struct app *a)
{
    memset(a, 0, sizeof *a);
    scene_default(&a->sc);
    a->auto_measure = true;
    a->hold_step = -1;
}

void app_free(struct app *a)
{
    if (a->frame && a->frame->free_state) a->frame->free_state(a);
    for (int k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct screen_ops *o = screen_ops_of((enum screen_kind)k);
        if (o && o->free_state) o->free_state(a);
    }
}

const struct screen_ops *app_screen(const struct app *a)
{
    const struct screen_ops *o = screen_ops_of(a->sc.screen);
    return o ? o : screen_ops_of(SCREEN_COLLECTIVES);
}

size_t app_nsteps(const struct app *a)
{
    return app_screen(a)->nsteps(a);
}

size_t app_phase_ends(const struct app *a, long *out, size_t max)
{
    const struct screen_ops *o = app_screen(a);
    return o->phase_ends ? o->phase_ends(a, out, max) : 0;
}

int app_rows_needed(struct app *a, int cols, int rows)
{
    const struct screen_ops *o = app_screen(a);
    if (!o->rows_needed) return rows;
    int n = o->rows_needed(a, cols, rows);
    return n < 1 || n > rows ? rows : n;
}

int app_rows_needed_short(struct app *a, int cols, int rows)
{
    bool was = a->panel_short;
    a->panel_short = true;
    int n = app_rows_needed(a, cols, rows);
    a->panel_short = was;
    return n;
}

size_t app_step(const struct app *a)
{
    size_t n = app_nsteps(a);
    if (a->sc.step < 0 || (size_t)a->sc.step > n) return n;
    return (size_t)a->sc.step;
}

static double app_play_period(const struct app *a)
{
    if (a->play_stop > 0 && a->play_period > 0) return a->play_period;
    return a->sc.autoplay > 0 ? a->sc.autoplay : APP_PLAY_PERIOD_S;
}

void app_backend_text(struct app *a)
{
    int W = a->sc.nranks;
    if (!a->w) {
        snprintf(a->backend_desc, sizeof a->backend_desc, "the animation runs alone");
        for (int r = 0; r < W; r++)
            snprintf(a->rank_label[r], sizeof a->rank_label[r], "rank %d", r);
        return;
    }
    const struct worker_facts *f = worker_facts(a->w);
    int nr = W < a->max_ranks ? W : a->max_ranks;
    if (nr < 1) nr = 1;
    snprintf(a->backend_desc, sizeof a->backend_desc, "%s", f->desc[nr]);
    for (int r = 0; r < W; r++) {
        if (r < a->max_ranks) {
            snprintf(a->rank_label[r], sizeof a->rank_label[r], "rank %d%s%.40s", r,
                     a->utf8 ? " \u00b7 " : " - ", f->label[r]);
        } else {
            snprintf(a->rank_label[r], sizeof a->rank_label[r], "rank %d (animation only)", r);
        }
    }
}

int app_open_backend(struct app *a, const char *name, bool strict_nccl, char *errbuf,
                     size_t errlen)
{
    char err[200] = "", why[200] = "";
    struct backend *b = NULL;
    int rc = backend_open(name, &b, err, sizeof err, why, sizeof why);
    if (rc != CV_OK && strict_nccl && (backend_caps_of(name) & BACKEND_CAP_GPU)) {
        snprintf(errbuf, errlen, "%s", err);
        return rc;
    }
    if (rc != CV_OK && strcmp(name, "auto") == 0) {
        snprintf(why, sizeof why, "%s", err);
        rc = backend_open("cpu", &b, err, sizeof err, NULL, 0);
    }
    if (rc != CV_OK) {
        hw_record_backend(&a->hw, name, NULL, why);
        snprintf(a->backend_note, sizeof a->backend_note, "no backend: %s (animation only)",
                 err);
        return CV_OK;
    }
    struct worker *w = worker_start(b, err, sizeof err);
    if (!w) {
        backend_close(b);
        hw_record_backend(&a->hw, name, NULL, why);
        snprintf(a->backend_note, sizeof a->backend_note, "no worker: %s (animation only)",
                 err);
    } else {
        app_use_worker(a, w, name, why);
    }
    return CV_OK;
}

bool app_stop_worker(struct app *a, double wait_s)
{
    if (!a->w) return true;
    worker_cancel(a->w);
    double until = now_s() + wait_s;
    while (worker_busy(a->w) && now_s() < until) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (worker_busy(a->w)) return false;
    worker_stop(a->w);
    a->w = NULL;
    return true;
}

void app_use_worker(struct app *a, struct worker *w, const char *requested, const char *why)
{
    a->w = w;
    const struct worker_facts *f = worker_facts(w);
    hw_record_backend(&a->hw, requested, f, why);
    snprintf(a->backend_name, sizeof a->backend_name, "%s", f->name);
    a->max_ranks = f->max_ranks;
    a->backend_note[0] = '\0';
}

void app_cancel(struct app *a)
{
    if (a->w) worker_cancel(a->w);
    for (int k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct screen_ops *o = screen_ops_of((enum screen_kind)k);
        if (o && o->cancelled) o->cancelled(a);
    }
}

/* The last step the scene may show under the hold (app_hold), -1 for no hold. */
static long app_hold_find(const struct app *a)
{
    const struct screen_ops *o = app_screen(a);
    if (!a->nhold || !o || !o->step_text) return -1;
    long n = (long)app_nsteps(a);
    for (long st = 0; st <= n; st++) {
        char t[1200];
        if (!o->step_text(a, st, t, sizeof t)) continue;
        for (size_t i = 0; i < a->nhold; i++)
            if (strcasestr(t, a->hold_words[i])) return st - 1;
    }
    return -1;
}

/* Keep the step at or before the hold; true when it was past it. */
static bool app_hold_clamp(struct app *a)
{
    a->hold_step = app_hold_find(a);
    if (a->hold_step < 0 || a->sc.step <= a->hold_step) return false;
    a->sc.step = a->hold_step;
    a->playing = false;
    if (!a->room)
        snprintf(a->msg, sizeof a->msg,
                 "answer first: the next step of this scene tells the answer");
    return true;
}

void app_hold(struct app *a, const char *const *words, size_t n)
{
    a->nhold = 0;
    for (size_t i = 0; i < n && a->nhold < APP_HOLD_MAX; i++)
        a->hold_words[a->nhold++] = words[i];
    a->hold_step = -1;
    if (a->have_scene) app_hold_clamp(a);
}

int app_set_scene(struct app *a, const struct scene *next, char *err, size_t errlen)
{
    int rc = scene_check(next, err, errlen);
    if (rc != CV_OK) return rc;
    const struct screen_ops *o = screen_ops_of(next->screen);
    if (!o)
        return cv_err(err, errlen, CV_EUNSUPPORTED, "screen %s is not in this build",
                      screen_kind_name(next->screen));
    if (next->nranks < o->min_ranks || next->nranks > o->max_ranks)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the %s screen shows %d..%d ranks",
                      next->nranks, o->name, o->min_ranks, o->max_ranks);
    unsigned changed = a->have_scene ? screen_scene_diff(&a->sc, next) : SF_ALL;
    if (!changed) return CV_OK;
    if ((changed & SF_SCREEN) && a->have_scene) app_cancel(a);
    a->sc = *next;
    a->have_scene = true;
    if (changed & (SF_SCREEN | SF_RANKS)) app_backend_text(a);
    o->apply(a, (changed & SF_SCREEN) ? SF_ALL : changed);
    long n = (long)o->nsteps(a);
    if (a->sc.step == SCENE_STEP_END || a->sc.step > n) a->sc.step = n;
    bool held = app_hold_clamp(a);
    if (held || a->hold_step >= 0) n = a->hold_step; /* play ends at the hold */
    if (changed & ~(SF_STEP | SF_HL | SF_MEAS)) {
        /* A new scene: play stops, or starts when the scene asks for it. */
        a->playing = a->sc.autoplay > 0 && a->sc.step < n;
        a->play_stop = 0;
        a->next_tick = now_s() + app_play_period(a);
    }
    return CV_OK;
}

/* After a change of world size or screen: the root and a rank highlight stay in range, and
 * a ring order of another size is dropped. */
static void app_fit_ranks(struct scene *s)
{
    if (s->root >= s->nranks) s->root = s->nranks - 1;
    if (s->hl == HL_RANK && s->hl_index >= s->nranks) s->hl = HL_NONE;
    if (s->ring_n != s->nranks) s->ring_n = 0; /* a record's ring fits its own size only */
}

static void app_step_to(const struct app *a, struct scene *next, long step)
{
    long n = (long)app_nsteps(a);
    next->step = step < 0 ? 0 : step > n ? n : step;
}

/* The keys that move to another screen (p, n, y, t); false: act is none of them. */
static bool app_switch_screen(struct app *a, enum ui_action act, struct scene *next)
{
    switch (act) {
    case ACT_SCHEME: /* n on another screen opens the parallelism screen, as p does */
    case ACT_PARALLEL:
        next->step = 0;
        if (a->sc.screen == SCREEN_PARALLEL) {
            next->screen = SCREEN_COLLECTIVES;
            break;
        }
        next->screen = SCREEN_PARALLEL;
        if (next->nranks < SCENE_PAR_MIN_RANKS || next->nranks > SCENE_PAR_MAX_RANKS) {
            snprintf(a->msg, sizeof a->msg, "the parallelism screen shows %d..%d ranks: W=4",
                     SCENE_PAR_MIN_RANKS, SCENE_PAR_MAX_RANKS);
            next->nranks = 4;
        }
        app_fit_ranks(next);
        break;
    case ACT_HIERARCHY: /* y: the hierarchy screen, and back to the collectives */
        next->step = 0;
        next->screen = a->sc.screen == SCREEN_HIERARCHY ? SCREEN_COLLECTIVES : SCREEN_HIERARCHY;
        break;
    case ACT_TOPOLOGY: /* t: the record's topology screen (its own action leaves it) */
        next->screen = SCREEN_TOPOLOGY;
        break;
    default:
        return false;
    }
    /* the screen entered prepares itself (the topology screen asks for its record) */
    const struct screen_ops *to = screen_ops_of(next->screen);
    if (next->screen != a->sc.screen && to && to->enter) to->enter(a, next);
    return true;
}

/* A number key's collective (the key table follows enum coll's order, the lecture's), or the
 * next one: its screen, at step 0, with an algorithm and root it has. */
static void app_pick_coll(struct scene *next, enum coll c)
{
    next->screen = SCREEN_COLLECTIVES;
    next->coll = c;
    if (!algo_supported(c, next->algo)) next->algo = coll_default_algo(c);
    next->count = 0;
    next->step = 0;
    if (next->root >= next->nranks) next->root = 0;
}

/* The actions every screen shares; the screen's own action had the first word. */
static void app_common(struct app *a, enum ui_action act, struct scene *next, double now)
{
    const struct screen_ops *o = app_screen(a);
    if (app_switch_screen(a, act, next)) return;
    if (act == ACT_COLL_NEXT || keys_coll_of(act) >= 0) {
        app_pick_coll(next, act == ACT_COLL_NEXT ? (enum coll)((a->sc.coll + 1) % COLL_COUNT)
                                                 : (enum coll)keys_coll_of(act));
        return;
    }
    switch (act) {
    case ACT_NEXT:
        a->playing = false;
        app_step_to(a, next, (long)app_step(a) + 1);
        break;
    case ACT_PREV:
        a->playing = false;
        app_step_to(a, next, (long)app_step(a) - 1);
        break;
    case ACT_FIRST:
        a->playing = false;
        app_step_to(a, next, 0);
        break;
    case ACT_LAST:
        a->playing = false;
        app_step_to(a, next, (long)app_nsteps(a));
        break;
    case ACT_PLAY:
        a->playing = !a->playing;
        if (a->playing) {
            if (app_step(a) >= app_nsteps(a)) app_step_to(a, next, 0);
            a->next_tick = now + app_play_period(a);
        }
        break;
    case ACT_RANKS_UP:
    case ACT_RANKS_DOWN: {
        int W = next->nranks + (act == ACT_RANKS_UP ? 1 : -1);
        if (W < o->min_ranks || W > o->max_ranks) {
            snprintf(a->msg, sizeof a->msg, "ranks stay within %d..%d%s", o->min_ranks,
                     o->max_ranks, a->sc.screen == SCREEN_COLLECTIVES ? "" : " on this screen");
            break;
        }
        next->nranks = W;
        next->step = 0;
        app_fit_ranks(next);
        break;
    }
    case ACT_CANCEL: {
        bool busy = false;
        for (int k = 0; k < SCREEN_KIND_COUNT; k++) {
            const struct screen_ops *s = screen_ops_of((enum screen_kind)k);
            if (s && s->busy && s->busy(a)) busy = true;
        }
        if (a->w && (busy || worker_busy(a->w))) {
            app_cancel(a);
            snprintf(a->msg, sizeof a->msg, "measurement cancelled");
        }
        break;
    }
    case ACT_BACKENDS:
        a->hw_open = !a->hw_open;
        a->help = false;
        break;
    case ACT_HELP:
        a->help = !a->help;
        a->help_page = 0;
        a->hw_open = false;
        break;
    case ACT_EXPORT: {
        /* The screen as last drawn (this key has not redrawn it yet). */
        char name[600], err[300];
        if (svg_export_files(stdscr, o->name, name, sizeof name, err, sizeof err) == CV_OK)
            snprintf(a->msg, sizeof a->msg, "wrote %.180s and .txt",
                     strncmp(name, "./", 2) == 0 ? name + 2 : name);
        else
            snprintf(a->msg, sizeof a->msg, "%.199s", err);
        break;
    }
    case ACT_CLOSE:
        a->help = a->hw_open = false;
        break;
    default:
        /* Another screen's key: say where it belongs. */
        {
            char t[100];
            snprintf(t, sizeof t, "that key is not for the %s screen", o->name);
            app_msg_keyed(a, t, ACT_HELP, "lists its keys");
        }
        break;
    }
}

/* The shown screen's action, else the common ones; the edited copy through the door. */
static void app_perform(struct app *a, enum ui_action act, double now)
{
    /* Actions edit `next`; one that went through the door itself (a lesson's slide) has
     * left next as it was, so only a change against `before` is passed on. */
    const struct scene before = a->sc;
    struct scene next = a->sc;
    const struct screen_ops *o = app_screen(a);
    if (!o->action || !o->action(a, act, &next)) app_common(a, act, &next, now);
    if (screen_scene_diff(&before, &next)) {
        char err[200];
        if (app_set_scene(a, &next, err, sizeof err) != CV_OK)
            snprintf(a->msg, sizeof a->msg, "%s", err);
    }
}

bool app_do(struct app *a, enum ui_action act, double now)
{
    if (act == ACT_QUIT) { /* the frame may take q (the player: a lesson back to its list) */
        struct scene next = a->sc;
        return a->frame && a->frame->action && !a->help && !a->hw_open &&
               a->frame->action(a, act, &next);
    }
    if (act == ACT_NONE || act == ACT_COUNT) return true;
    if (a->frame && a->frame->action) {
        const struct scene before = a->sc;
        struct scene next = a->sc;
        if (a->frame->action(a, act, &next)) { /* the frame (the lesson player) took it */
            char err[200];
            if (screen_scene_diff(&before, &next) &&
                app_set_scene(a, &next, err, sizeof err) != CV_OK)
                snprintf(a->msg, sizeof a->msg, "%s", err);
            return true;
        }
    }
    app_perform(a, act, now);
    return true;
}

enum ui_action app_key_action(const struct app *a, int ch)
{
    return keys_action_surface(ch, a->surface, app_screen(a)->keys_on);
}

bool app_scene_action(struct app *a, enum ui_action act, double now)
{
    if (!keys_is_scene_action(act)) return false;
    app_perform(a, act, now);
    return true;
}

bool app_scene_key(struct app *a, int ch, double now)
{
    return app_scene_action(a, app_key_action(a, ch), now);
}

const char *app_key_hint(const struct app *a, enum ui_action act, char *buf, int n)
{
    if (a->no_key_hints) return NULL; /* an audience's screen names no key at all */
    return keys_hint(act, a->surface, app_screen(a)->keys_on, a->utf8, buf, n);
}

void app_busy_msg(struct app *a, const char *what)
{
    char k[16];
    if (app_key_hint(a, ACT_CANCEL, k, sizeof k))
        snprintf(a->msg, sizeof a->msg, "%.150s (%s cancels)", what, k);
    else
        snprintf(a->msg, sizeof a->msg, "%.150s", what);
}

void app_keyed(const struct app *a, char *buf, size_t n, const char *text, enum ui_action act,
               const char *does)
{
    char k[16];
    if (app_key_hint(a, act, k, sizeof k))
        snprintf(buf, n, "%s (%s %s)", text, k, does);
    else
        snprintf(buf, n, "%s", text);
}

void app_msg_keyed(struct app *a, const char *text, enum ui_action act, const char *does)
{
    app_keyed(a, a->msg, sizeof a->msg, text, act, does);
}

bool app_result(struct app *a, const struct result *r)
{
    for (int k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct screen_ops *o = screen_ops_of((enum screen_kind)k);
        if (o && o->result && o->result(a, r)) return true;
    }
    return false;
}

bool app_tick(struct app *a, double now)
{
    if (!a->playing || now < a->next_tick) return false;
    struct scene next = a->sc;
    app_step_to(a, &next, (long)app_step(a) + 1);
    char err[200];
    app_set_scene(a, &next, err, sizeof err);
    if (app_step(a) >= app_nsteps(a)) a->playing = false;
    if (a->hold_step >= 0 && (long)app_step(a) >= a->hold_step) a->playing = false;
    if (a->play_stop > 0 && (long)app_step(a) >= a->play_stop) a->playing = false;
    if (!a->playing) a->play_stop = 0;
    a->next_tick = now + app_play_period(a);
    return true;
}

int app_timeout_ms(const struct app *a, double now)
{
    int t = -1;
    if (a->playing) {
        double d = (a->next_tick - now) * 1000.0;
        t = d < 0 ? 0 : (int)d + 1;
    }
    bool busy = false;
    for (int k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct screen_ops *o = screen_ops_of((enum screen_kind)k);
        if (o && o->busy && o->busy(a)) busy = true;
    }
    if (busy && (t < 0 || t > APP_REFRESH_MS)) t = APP_REFRESH_MS;
    return t;
}

bool app_box_hidden(const struct app *a, int r, long step)
{
    return r >= 0 && r < CV_MAX_RANKS && a->hide_from[r] >= 0 && step >= a->hide_from[r] &&
           (a->hide_to[r] < 0 || step < a->hide_to[r]);
}
