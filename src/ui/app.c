/* app.c - what the actions do to the state: scene changes rebuild the plan and trace and
 * post fresh jobs to the worker; steps and play only move through the trace (see app.h).
 *
 * The parallelism screen (par.h) shares the steps, play, ranks and measure actions; its
 * own actions (scheme, schedule, overlap) rebuild its display-scale view and post a
 * lecture-scale training run (JOB_TRAIN) unless one for that configuration is at hand.
 *
 * Jobs: a scene change (collective, algorithm, ranks, op, root) cancels whatever the worker
 * is doing and posts a display-scale JOB_CHECK (trace vs backend on the same input) and a
 * JOB_MEASURE at the measurement size. Changing only the display inputs (count, pattern)
 * posts a new check behind whatever runs. Results are matched by job id in meas.c, so a
 * late result for an old scene is never shown as the new one's. */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/init.h"
#include "../core/sweep.h"
#include "../core/util.h"
#include "text.h"

#define APP_PLAY_PERIOD_S 1.0
#define APP_REFRESH_MS 250 /* while a job runs: the elapsed-time display */
#define APP_SWEEP_MIN ((size_t)4 << 10)
#define APP_SWEEP_FACTOR 4.0
#define APP_MEAS_MIN SCENE_MEAS_MIN
#define APP_MEAS_MAX SCENE_MEAS_MAX
#define APP_TIMEOUT_S 60.0

static const char *const app_step0_what =
    "Before the first step: every rank's buffer holds its own input (the send buffer).";
static const char *const app_single_what =
    "With one rank nothing has to move: the output is the input.";

void app_init(struct app *a)
{
    memset(a, 0, sizeof *a);
    scene_default(&a->sc);
    meas_init(&a->m);
    a->auto_measure = true;
    a->cell_w = 1;
}

static void app_free_derived(struct app *a)
{
    if (a->have_trace) trace_free(&a->trace);
    if (a->have_plan) plan_free(&a->plan);
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        free(a->send[r]);
        a->send[r] = NULL;
    }
    a->have_trace = a->have_plan = false;
}

void app_free(struct app *a)
{
    app_free_derived(a);
    par_free(a);
}

static int app_root(const struct app *a)
{
    return coll_is_rooted(a->sc.coll) ? a->sc.root : 0;
}

size_t app_nsteps(const struct app *a)
{
    if (a->sc.screen == SCREEN_PARALLEL) return par_nsteps(a);
    return a->have_trace ? a->plan.nsteps : 0;
}

size_t app_step(const struct app *a)
{
    size_t n = app_nsteps(a);
    if (a->sc.step < 0 || (size_t)a->sc.step > n) return n;
    return (size_t)a->sc.step;
}

const char *app_what(const struct app *a, size_t step)
{
    if (!a->have_trace) return a->scene_err;
    if (a->plan.nsteps == 0) return app_single_what;
    if (step == 0) return app_step0_what;
    return a->plan.steps[step - 1].what;
}

static const char *app_op_symbol(const struct app *a)
{
    switch (a->sc.op) {
    case OP_SUM:
    case OP_AVG:
        return "+";
    case OP_PROD:
        return a->utf8 ? "\u00d7" : "*";
    case OP_MIN:
        return "min";
    case OP_MAX:
        return "max";
    default:
        return "?";
    }
}

void app_xfer_text(const struct app *a, const struct xfer *x, size_t snap, char *buf, size_t n)
{
    const char *arrow = a->utf8 ? "\u2500\u25b6" : "->";
    if (x->kind == XFER_SCALE) {
        snprintf(buf, n, "r%d  %s%d (avg)", x->dst, a->utf8 ? "\u00f7" : "/", a->plan.nranks);
        return;
    }
    char what[32];
    if (x->chunk >= 0)
        snprintf(what, sizeof what, "chunk %d", x->chunk);
    else if (x->count == 1)
        snprintf(what, sizeof what, "el %zu", x->dst_off);
    else
        snprintf(what, sizeof what, "el %zu-%zu", x->dst_off, x->dst_off + x->count - 1);
    if (x->kind == XFER_REDUCE) {
        /* How many ranks the destination now sums: the trace's mask after this step. */
        unsigned mask = 0;
        if (a->have_trace && snap < a->trace.nsnap)
            mask = trace_mask(&a->trace, snap, x->dst)[x->dst_off];
        snprintf(buf, n, "r%d %s r%d  %s (%s) %s%d", x->src, arrow, x->dst, what,
                 app_op_symbol(a), a->utf8 ? "\u03a3" : "S", __builtin_popcount(mask));
    } else {
        snprintf(buf, n, "r%d %s r%d  %s", x->src, arrow, x->dst, what);
    }
}

/* The widest value of every snapshot, and the transfer list's widest entry, so the layout
 * does not move while stepping. */
static void app_metrics(struct app *a)
{
    a->cell_w = 1;
    a->max_xfers = 0;
    a->xfer_w = 10;
    a->longest_what = app_what(a, 0);
    if (!a->have_trace) return;
    size_t L = a->plan.work_len;
    for (size_t s = 0; s < a->trace.nsnap; s++)
        for (int r = 0; r < a->plan.nranks; r++) {
            const float *v = trace_buf(&a->trace, s, r);
            const uint32_t *m = trace_mask(&a->trace, s, r);
            for (size_t i = 0; i < L; i++) {
                if (!m[i]) continue;
                char t[32];
                text_value(t, sizeof t, v[i]);
                int w = text_width(t);
                if (w > a->cell_w) a->cell_w = w;
            }
        }
    for (size_t s = 0; s < a->plan.nsteps; s++) {
        const struct step *st = &a->plan.steps[s];
        if ((int)st->n > a->max_xfers) a->max_xfers = (int)st->n;
        for (size_t k = 0; k < st->n; k++) {
            char t[APP_XFER_TEXT];
            app_xfer_text(a, &a->plan.x[st->first + k], s + 1, t, sizeof t);
            int w = text_width(t);
            if (w > a->xfer_w) a->xfer_w = w;
        }
        if (strlen(st->what) > strlen(a->longest_what)) a->longest_what = st->what;
    }
}

void app_rebuild(struct app *a)
{
    if (a->sc.screen == SCREEN_PARALLEL) {
        par_rebuild(a);
        return;
    }
    app_free_derived(a);
    a->scene_err[0] = '\0';
    struct scene *s = &a->sc;
    int root = app_root(a);
    size_t count = scene_count(s);
    int rc = plan_build(&a->plan, s->coll, s->algo, s->op, s->nranks, count, root, a->scene_err,
                        sizeof a->scene_err);
    if (rc == CV_OK) {
        a->have_plan = true;
        for (int r = 0; r < s->nranks; r++) {
            size_t ns = coll_send_count(s->coll, s->nranks, count, r, root);
            a->send[r] = xcalloc(ns ? ns : 1, sizeof(float));
            init_fill(s->init, s->coll, s->nranks, count, root, s->seed, r, a->send[r]);
        }
        rc = trace_run(&a->trace, &a->plan, a->send, a->scene_err, sizeof a->scene_err);
        a->have_trace = rc == CV_OK;
    }
    if (!a->have_trace && !a->scene_err[0])
        snprintf(a->scene_err, sizeof a->scene_err, "%s", cv_status_name(rc));
    if (s->step == SCENE_STEP_END || (a->have_trace && (size_t)s->step > a->plan.nsteps))
        s->step = (long)app_nsteps(a);
    app_metrics(a);
}

void app_backend_text(struct app *a)
{
    int W = a->sc.nranks;
    if (!a->w) {
        snprintf(a->backend_desc, sizeof a->backend_desc, "none: the animation runs alone");
        for (int r = 0; r < W; r++)
            snprintf(a->rank_label[r], sizeof a->rank_label[r], "rank %d", r);
        return;
    }
    struct backend *b = worker_backend(a->w);
    int nr = W < a->max_ranks ? W : a->max_ranks;
    b->ops->describe(b, nr, a->backend_desc, sizeof a->backend_desc);
    for (int r = 0; r < W; r++) {
        if (r < a->max_ranks) {
            char l[40];
            b->ops->rank_label(b, r, l, sizeof l);
            snprintf(a->rank_label[r], sizeof a->rank_label[r], "rank %d%s%s", r,
                     a->utf8 ? " \u00b7 " : " - ", l);
        } else {
            snprintf(a->rank_label[r], sizeof a->rank_label[r], "rank %d (animation only)", r);
        }
    }
}

static struct bench_params app_params(const struct app *a, int iters, int warmup)
{
    int nr = a->sc.nranks < a->max_ranks ? a->sc.nranks : a->max_ranks;
    int root = app_root(a);
    return (struct bench_params){
        .coll = a->sc.coll,
        .algo = a->sc.algo,
        .algo_auto = false,
        .op = a->sc.op,
        .nranks = nr,
        .bytes = a->sc.meas_bytes,
        .root = root < nr ? root : 0,
        .iters = iters,
        .warmup = warmup,
        .check = true,
        .timeout_s = APP_TIMEOUT_S,
    };
}

static void app_post_check(struct app *a)
{
    if (!a->w || !a->have_plan) return;
    if (a->sc.nranks > a->max_ranks) {
        char why[200];
        snprintf(why, sizeof why, "not checked: W=%d but %s runs %d rank%s", a->sc.nranks,
                 a->backend_name, a->max_ranks, a->max_ranks == 1 ? "" : "s");
        meas_check_skipped(&a->m, why);
        return;
    }
    struct job j = {
        .kind = JOB_CHECK,
        .coll = a->sc.coll,
        .algo = a->sc.algo,
        .op = a->sc.op,
        .nranks = a->sc.nranks,
        .count = scene_count(&a->sc),
        .root = app_root(a),
        .init = a->sc.init,
        .seed = a->sc.seed,
    };
    meas_check_posted(&a->m, worker_post(a->w, &j));
}

void app_measure(struct app *a)
{
    if (!a->w) return;
    struct job j = {.kind = JOB_MEASURE, .params = app_params(a, 10, 2)};
    meas_measure_posted(&a->m, worker_post(a->w, &j), &j.params, now_s());
}

/* The sizes a sweep visits: the worker's own count (core/sweep.h). */
static int app_sweep_total(size_t lo, size_t hi, double f)
{
    return (int)sweep_count(&(struct sweep){.min = lo, .max = hi, .factor = f});
}

void app_sweep(struct app *a)
{
    if (!a->w) return;
    size_t lo = a->sc.meas_bytes < APP_SWEEP_MIN ? a->sc.meas_bytes : APP_SWEEP_MIN;
    struct job j = {.kind = JOB_SWEEP,
                    .params = app_params(a, 10, 2),
                    .sweep_min = lo,
                    .sweep_max = a->sc.meas_bytes,
                    .sweep_factor = APP_SWEEP_FACTOR};
    meas_sweep_posted(&a->m, worker_post(a->w, &j), &j.params,
                      app_sweep_total(lo, a->sc.meas_bytes, APP_SWEEP_FACTOR), now_s());
}

void app_cancel(struct app *a)
{
    if (a->w) worker_cancel(a->w);
    meas_cancelled(&a->m);
    par_cancelled(a);
}

void app_post_jobs(struct app *a, bool measure)
{
    if (!a->w) return;
    if (a->sc.screen == SCREEN_PARALLEL) {
        if (measure && a->auto_measure) par_train_if_needed(a);
        return;
    }
    app_cancel(a);
    a->m.measure_err[0] = '\0';
    a->m.sweep_err[0] = '\0';
    app_post_check(a);
    if (measure && a->auto_measure) app_measure(a);
}

/* A new scene: rebuild, start at `step`, and check/measure it. */
static void app_scene_changed(struct app *a, long step, bool measure)
{
    a->sc.step = step;
    a->playing = false;
    app_rebuild(a);
    app_backend_text(a);
    if (a->sc.screen == SCREEN_PARALLEL)
        app_post_jobs(a, measure);
    else if (measure)
        app_post_jobs(a, true);
    else
        app_post_check(a);
}

/* Between the collectives and the parallelism screen. The parallelism screen shows 2..4
 * ranks at display scale; a world size outside that becomes 4. */
static void app_toggle_parallel(struct app *a)
{
    struct scene *s = &a->sc;
    if (s->screen == SCREEN_PARALLEL) {
        s->screen = SCREEN_COLLECTIVES;
        app_cancel(a);
        app_scene_changed(a, 0, true);
        return;
    }
    app_cancel(a);
    s->screen = SCREEN_PARALLEL;
    if (s->nranks < SCENE_PAR_MIN_RANKS || s->nranks > SCENE_PAR_MAX_RANKS) {
        snprintf(a->msg, sizeof a->msg, "the parallelism screen shows %d..%d ranks: W=4",
                 SCENE_PAR_MIN_RANKS, SCENE_PAR_MAX_RANKS);
        s->nranks = 4;
    }
    if (s->root >= s->nranks) s->root = 0;
    app_scene_changed(a, 0, true);
}

/* Actions of the collectives screen that mean nothing on the parallelism screen. */
static bool app_par_refuses(struct app *a, enum ui_action act)
{
    switch (act) {
    case ACT_ALGO:
    case ACT_OP:
    case ACT_ROOT:
    case ACT_COUNT_UP:
    case ACT_COUNT_DOWN:
    case ACT_INIT:
    case ACT_SWEEP:
    case ACT_SIZE_UP:
    case ACT_SIZE_DOWN:
        snprintf(a->msg, sizeof a->msg,
                 "that key is for the collectives screen (p goes back to it)");
        return true;
    default:
        return false;
    }
}

/* The parallelism screen's own actions; false when act is not one of them. */
static bool app_par_do(struct app *a, enum ui_action act)
{
    struct scene *s = &a->sc;
    switch (act) {
    case ACT_SCHEME:
        if (s->screen != SCREEN_PARALLEL) {
            app_toggle_parallel(a);
            return true;
        }
        /* ddp -> tp -> pp -> ddp (single is the reference, not a screen) */
        s->scheme = (enum train_scheme)(s->scheme % (TRAIN_SCHEME_COUNT - 1) + 1);
        app_scene_changed(a, 0, true);
        return true;
    case ACT_SCHEDULE:
        if (s->screen != SCREEN_PARALLEL || s->scheme != TRAIN_PP) {
            snprintf(a->msg, sizeof a->msg, "the schedule applies to pp (%s)",
                     s->screen != SCREEN_PARALLEL ? "p opens the parallelism screen"
                                                  : "n switches scheme");
            return true;
        }
        s->schedule = (enum pp_schedule)((s->schedule + 1) % PP_SCHEDULE_COUNT);
        app_scene_changed(a, 0, true);
        return true;
    case ACT_OVERLAP:
        if (s->screen != SCREEN_PARALLEL || s->scheme != TRAIN_DDP) {
            snprintf(a->msg, sizeof a->msg, "overlap applies to ddp (%s)",
                     s->screen != SCREEN_PARALLEL ? "p opens the parallelism screen"
                                                  : "n switches scheme");
            return true;
        }
        s->overlap = !s->overlap;
        app_scene_changed(a, 0, true);
        return true;
    default:
        return false;
    }
}

static void app_set_coll(struct app *a, enum coll c)
{
    a->sc.screen = SCREEN_COLLECTIVES;
    a->sc.coll = c;
    if (!algo_supported(c, a->sc.algo)) a->sc.algo = coll_default_algo(c);
    a->sc.count = 0;
    if (a->sc.root >= a->sc.nranks) a->sc.root = 0;
    app_scene_changed(a, 0, true);
}

static void app_set_step(struct app *a, long step)
{
    long n = (long)app_nsteps(a);
    a->sc.step = step < 0 ? 0 : step > n ? n : step;
}

bool app_do(struct app *a, enum ui_action act, double now)
{
    struct scene *s = &a->sc;
    if (app_par_do(a, act)) return true;
    if (s->screen == SCREEN_PARALLEL && app_par_refuses(a, act)) return true;
    switch (act) {
    case ACT_PARALLEL:
        app_toggle_parallel(a);
        break;
    case ACT_SCHEME:
    case ACT_SCHEDULE:
    case ACT_OVERLAP:
        break; /* app_par_do */
    case ACT_COLL_1:
    case ACT_COLL_2:
    case ACT_COLL_3:
    case ACT_COLL_4:
    case ACT_COLL_5:
    case ACT_COLL_6:
    case ACT_COLL_7:
    case ACT_COLL_8:
        /* The key table lists them in the lecture's order, which is enum coll's order. */
        app_set_coll(a, (enum coll)(act - ACT_COLL_1));
        break;
    case ACT_COLL_NEXT:
        app_set_coll(a, (enum coll)((s->coll + 1) % COLL_COUNT));
        break;
    case ACT_NEXT:
        a->playing = false;
        app_set_step(a, (long)app_step(a) + 1);
        break;
    case ACT_PREV:
        a->playing = false;
        app_set_step(a, (long)app_step(a) - 1);
        break;
    case ACT_FIRST:
        a->playing = false;
        app_set_step(a, 0);
        break;
    case ACT_LAST:
        a->playing = false;
        app_set_step(a, (long)app_nsteps(a));
        break;
    case ACT_PLAY:
        a->playing = !a->playing;
        if (a->playing) {
            if (app_step(a) >= app_nsteps(a)) app_set_step(a, 0);
            a->next_tick = now + APP_PLAY_PERIOD_S;
        }
        break;
    case ACT_ALGO: {
        int n = 0;
        for (int k = 1; k <= ALGO_COUNT; k++) {
            enum algo x = (enum algo)((s->algo + k) % ALGO_COUNT);
            if (algo_supported(s->coll, x)) {
                if (x != s->algo) {
                    s->algo = x;
                    n++;
                }
                break;
            }
        }
        if (!n)
            snprintf(a->msg, sizeof a->msg, "%s has only the %s algorithm here",
                     coll_title(s->coll), algo_name(s->algo));
        else
            app_scene_changed(a, 0, true);
        break;
    }
    case ACT_RANKS_UP:
    case ACT_RANKS_DOWN: {
        int W = s->nranks + (act == ACT_RANKS_UP ? 1 : -1);
        int lo = 1, hi = CV_MAX_RANKS;
        if (s->screen == SCREEN_PARALLEL) lo = SCENE_PAR_MIN_RANKS, hi = SCENE_PAR_MAX_RANKS;
        if (W < lo || W > hi) {
            snprintf(a->msg, sizeof a->msg, "ranks stay within %d..%d%s", lo, hi,
                     s->screen == SCREEN_PARALLEL ? " on the parallelism screen" : "");
            break;
        }
        s->nranks = W;
        if (s->root >= W) s->root = W - 1;
        app_scene_changed(a, 0, true);
        break;
    }
    case ACT_OP:
        if (!coll_reduces(s->coll)) {
            snprintf(a->msg, sizeof a->msg,
                     "%s does not reduce: the op applies to reduce, "
                     "reduce-scatter and all-reduce",
                     coll_title(s->coll));
            break;
        }
        s->op = (enum redop)((s->op + 1) % OP_COUNT);
        app_scene_changed(a, (long)app_step(a), true);
        break;
    case ACT_ROOT:
        if (!coll_is_rooted(s->coll)) {
            snprintf(a->msg, sizeof a->msg, "%s has no root", coll_title(s->coll));
            break;
        }
        s->root = (s->root + 1) % s->nranks;
        app_scene_changed(a, 0, true);
        break;
    case ACT_COUNT_UP:
    case ACT_COUNT_DOWN: {
        long c = (long)scene_count(s) + (act == ACT_COUNT_UP ? 1 : -1);
        if (c < 1 || c > SCENE_MAX_COUNT) {
            snprintf(a->msg, sizeof a->msg, "count stays within 1..%d at display scale",
                     SCENE_MAX_COUNT);
            break;
        }
        s->count = (size_t)c;
        app_scene_changed(a, 0, false);
        break;
    }
    case ACT_INIT:
        s->init = (enum init_kind)((s->init + 1) % (INIT_RANDOM + 1));
        app_scene_changed(a, (long)app_step(a), false);
        break;
    case ACT_MEASURE:
        if (s->screen == SCREEN_PARALLEL) {
            if (!a->w)
                snprintf(a->msg, sizeof a->msg, "no worker to train on");
            else if (par_training(a))
                snprintf(a->msg, sizeof a->msg, "already training (x cancels)");
            else
                par_train(a);
        } else if (!a->w)
            snprintf(a->msg, sizeof a->msg, "no backend to measure on");
        else if (meas_measuring(&a->m))
            snprintf(a->msg, sizeof a->msg, "already measuring (x cancels)");
        else
            app_measure(a);
        break;
    case ACT_SWEEP:
        if (!a->w)
            snprintf(a->msg, sizeof a->msg, "no backend to measure on");
        else if (meas_sweeping(&a->m))
            snprintf(a->msg, sizeof a->msg, "already sweeping (x cancels)");
        else
            app_sweep(a);
        break;
    case ACT_CANCEL:
        if (a->w && par_training(a)) {
            app_cancel(a);
            snprintf(a->msg, sizeof a->msg, "training cancelled");
        } else if (a->w &&
                   (worker_busy(a->w) || meas_measuring(&a->m) || meas_sweeping(&a->m))) {
            app_cancel(a);
            snprintf(a->msg, sizeof a->msg, "measurement cancelled");
        }
        break;
    case ACT_SIZE_DOWN:
    case ACT_SIZE_UP: {
        size_t b = act == ACT_SIZE_UP ? a->sc.meas_bytes * 2 : a->sc.meas_bytes / 2;
        if (b < APP_MEAS_MIN || b > APP_MEAS_MAX) {
            snprintf(a->msg, sizeof a->msg, "measurement size stays within 4 KiB..16 GiB");
            break;
        }
        a->sc.meas_bytes = b;
        app_post_jobs(a, true);
        if (!a->auto_measure) app_measure(a);
        break;
    }
    case ACT_BACKENDS:
        a->hw_open = !a->hw_open;
        a->help = false;
        break;
    case ACT_HELP:
        a->help = !a->help;
        a->hw_open = false;
        break;
    case ACT_CLOSE:
        a->help = a->hw_open = false;
        break;
    case ACT_QUIT:
        return false;
    case ACT_NONE:
    case ACT_COUNT:
        break;
    }
    return true;
}

bool app_result(struct app *a, const struct result *r)
{
    if (r->kind == JOB_TRAIN) return par_apply(a, r);
    return meas_apply(&a->m, r);
}

bool app_tick(struct app *a, double now)
{
    if (!a->playing || now < a->next_tick) return false;
    app_set_step(a, (long)app_step(a) + 1);
    if (app_step(a) >= app_nsteps(a)) a->playing = false;
    a->next_tick = now + APP_PLAY_PERIOD_S;
    return true;
}

int app_timeout_ms(const struct app *a, double now)
{
    int t = -1;
    if (a->playing) {
        double d = (a->next_tick - now) * 1000.0;
        t = d < 0 ? 0 : (int)d + 1;
    }
    bool busy = meas_measuring(&a->m) || meas_sweeping(&a->m) || a->m.check == CHECK_PENDING ||
                par_training(a);
    if (busy && (t < 0 || t > APP_REFRESH_MS)) t = APP_REFRESH_MS;
    return t;
}
