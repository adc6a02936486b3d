/* par.c - the parallelism screen's entry in the table of screens and its state: the
 * display-scale view rebuilt when the scheme, world size, schedule or overlap change, the
 * lecture-scale training posted to the worker, and its own key actions (see par.h). Results are
 * matched by job id, so a late result for an old scheme is never shown as the new one's. */
#include "ui/screens/parallel/par.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ui/app.h"
#include "ui/screens/parallel/pardraw.h"

#define PAR_TIMEOUT_S 60.0

void par_display_of(const struct app *a, struct train_config *c)
{
    par_display_config(a->sc.scheme, a->sc.nranks, a->sc.schedule, a->sc.overlap, c);
}

void par_lecture_of(const struct app *a, struct train_config *c)
{
    train_config_default(c);
    c->scheme = a->sc.scheme;
    c->nranks = a->sc.nranks;
    c->schedule = a->sc.schedule;
    /* O: DDP's overlap, or ZeRO stage 3's prefetch (the same idea: the helper lane) */
    c->overlap = a->sc.overlap && a->sc.scheme == TRAIN_DDP;
    c->prefetch = a->sc.overlap && a->sc.scheme == TRAIN_ZERO3;
    c->steps = PAR_LECTURE_STEPS;
    c->experts = 2 * a->sc.nranks; /* moe: E a multiple of W, 8 at the lecture's W = 4 */
    c->timeout_s = PAR_TIMEOUT_S;
    /* On the GPUs when the collectives run there (NCCL, 2+ GPUs) and there is one GPU per
     * rank; otherwise on CPU ranks (par_backend_note says why). */
    if (par_on_gpus(a)) c->backend = (enum backend_kind)backend_kind_of(a->backend_name);
}

bool par_on_gpus(const struct app *a)
{
    return (backend_caps_of(a->backend_name) & BACKEND_CAP_GPU) && a->sc.nranks <= a->max_ranks;
}

const char *par_backend_note(const struct app *a)
{
    if (par_on_gpus(a)) return "nccl";
    if (backend_caps_of(a->backend_name) & BACKEND_CAP_GPU)
        return "cpu ranks (more ranks than GPUs)";
    return "cpu ranks";
}

static bool par_same_config(const struct train_config *x, const struct train_config *y)
{
    return x->scheme == y->scheme && x->nranks == y->nranks && x->layers == y->layers &&
           x->dim == y->dim && x->batch == y->batch && x->steps == y->steps &&
           x->microbatches == y->microbatches && x->schedule == y->schedule &&
           x->overlap == y->overlap && x->prefetch == y->prefetch && x->seed == y->seed &&
           x->backend == y->backend && x->experts == y->experts;
}

static void par_free_whats(struct par_screen *p)
{
    for (int i = 0; i < p->nwhats; i++)
        free(p->whats[i]);
    free(p->whats);
    p->whats = NULL;
    p->nwhats = 0;
}

/* Shapes of every frame of every rank, and every sentence, for the layout. */
static void par_metrics(struct app *a)
{
    struct par_screen *p = PAR(a);
    const struct par_view *v = &p->view;
    int W = v->cfg.nranks;
    rows_memo_clear(&p->rows_memo);
    free(p->shapes);
    p->shapes = NULL;
    par_free_whats(p);
    p->longest_what[0] = '\0';
    p->shapes_utf8 = a->utf8;
    if (!v->ok) return;
    p->shapes = xcalloc((size_t)v->nframes * W, sizeof *p->shapes);
    p->whats = xcalloc((size_t)v->nframes, sizeof *p->whats);
    size_t longest = 0;
    for (int f = 0; f < v->nframes; f++) {
        for (int r = 0; r < W; r++) {
            struct par_cells c[PROBE_MAX_MATS];
            bool idle;
            int n = par_frame_cells(v, f, r, false, c, PROBE_MAX_MATS, &idle);
            par_shape_of(c, n, a->utf8, &p->shapes[(size_t)f * W + r]);
        }
        char text[sizeof p->longest_what];
        par_frame_text(v, f, text, sizeof text);
        p->whats[p->nwhats++] = xstrdup(text);
        if (strlen(text) > longest) {
            longest = strlen(text);
            snprintf(p->longest_what, sizeof p->longest_what, "%s", text);
        }
    }
}

void par_rebuild(struct app *a)
{
    if (!PAR(a)) a->screen_state[SCREEN_PARALLEL] = xcalloc(1, sizeof(struct par_screen));
    struct par_screen *p = PAR(a);
    if (a->sc.scheme == TRAIN_MOE) { /* its own view, one display-scale step */
        if (p->moe_w != a->sc.nranks) {
            par_moe_build(&p->moe, a->sc.nranks);
            p->moe.timed = a->auto_measure; /* --no-measure: its routing, not its times */
            p->moe_w = a->sc.nranks;
        }
        return;
    }
    struct train_config want;
    par_display_of(a, &want);
    if (!p->built || !par_same_config(&want, &p->built_for)) {
        if (p->built) par_view_free(&p->view);
        par_view_build(&p->view, &want);
        p->built = true;
        p->built_for = want;
        par_metrics(a);
    } else if (p->shapes_utf8 != a->utf8) {
        par_metrics(a);
    }
}

void par_free(struct app *a)
{
    if (!PAR(a)) return;
    if (PAR(a)->built) par_view_free(&PAR(a)->view);
    free(PAR(a)->shapes);
    par_free_whats(PAR(a));
    free(PAR(a));
    a->screen_state[SCREEN_PARALLEL] = NULL;
}

size_t par_nsteps(const struct app *a)
{
    if (PAR(a) && a->sc.scheme == TRAIN_MOE) return PAR(a)->moe.ok ? PAR_MOE_LAYERS - 1 : 0;
    if (!PAR(a) || !PAR(a)->view.ok) return 0;
    return (size_t)PAR(a)->view.nframes - 1;
}

/* The phases of a training step, the presenter's stops: before the step, the forward pass
 * (with the loss and the collectives it waits on: tensor parallel's all-reduces, ZeRO-3's
 * all-gathers), the backward pass (with its collectives), the gradients' collectives after
 * the last compute (data parallel's all-reduce), the optimizer; pp: before, the pipeline,
 * after. */
enum { PAR_PH_START, PAR_PH_FWD, PAR_PH_BWD, PAR_PH_SYNC, PAR_PH_OPTIM };

static int par_frame_kind(const struct par_view *v, int f, const struct probe_rec **r)
{
    const struct par_tick *t = par_frame_tick(v, f);
    *r = t ? t->rec[0] : NULL;
    return *r ? (int)(*r)->kind : -1;
}

size_t par_phase_ends(const struct app *a, long *out, size_t max)
{
    if (!PAR(a) || a->sc.scheme == TRAIN_MOE || !PAR(a)->view.ok) return 0;
    const struct par_view *v = &PAR(a)->view;
    int n = v->nframes, last_compute = -1;
    int *ph = xcalloc((size_t)n + 1, sizeof *ph);
    const struct probe_rec *r;
    for (int f = 0; f < n; f++)
        if (par_frame_kind(v, f, &r) == PROBE_COMPUTE) last_compute = f;
    bool backward = false;
    for (int f = 0; f < n; f++) {
        const struct par_tick *t = par_frame_tick(v, f);
        if (v->cfg.scheme == TRAIN_PP) {
            ph[f] = !t || t->tick == 0               ? PAR_PH_START
                    : par_frame_sched_col(v, f) >= 0 ? PAR_PH_FWD
                                                     : PAR_PH_OPTIM;
            continue;
        }
        switch (par_frame_kind(v, f, &r)) {
        case PROBE_COMPUTE:
            if (!r->fwd && r->layer >= 0) backward = true;
            ph[f] = backward ? PAR_PH_BWD : PAR_PH_FWD;
            break;
        case PROBE_COLL:
            ph[f] = f > last_compute ? PAR_PH_SYNC : backward ? PAR_PH_BWD : PAR_PH_FWD;
            break;
        case PROBE_OPTIM:
            ph[f] = PAR_PH_OPTIM;
            break;
        default:
            ph[f] = f > 0 ? ph[f - 1] : PAR_PH_START;
            break;
        }
    }
    size_t k = 0;
    for (int f = 0; f < n && k < max; f++)
        if (f + 1 == n || ph[f] != ph[f + 1]) out[k++] = f;
    free(ph);
    return k;
}

void par_train(struct app *a)
{
    if (!PAR(a)) a->screen_state[SCREEN_PARALLEL] = xcalloc(1, sizeof(struct par_screen));
    struct par_screen *p = PAR(a);
    if (!a->w) return;
    app_cancel(a); /* also whatever the collectives screen had asked */
    struct job j = {.kind = JOB_TRAIN};
    par_lecture_of(a, &j.train.cfg);
    p->train_cfg = j.train.cfg;
    p->train_err[0] = '\0';
    p->train_started = now_s();
    p->train_id = worker_post(a->w, &j);
}

void par_train_if_needed(struct app *a)
{
    if (par_summary(a)) return;
    if (par_training(a)) {
        /* A run of another configuration (switching schemes quickly) gives way. */
        struct train_config want;
        par_lecture_of(a, &want);
        if (par_same_config(&PAR(a)->train_cfg, &want)) return;
    }
    par_train(a);
}

const struct train_summary *par_summary(const struct app *a)
{
    if (!PAR(a)) return NULL;
    struct train_config want;
    par_lecture_of(a, &want);
    int s = want.scheme;
    if (s < 0 || s >= TRAIN_SCHEME_COUNT || !PAR(a)->have[s] ||
        !par_same_config(&PAR(a)->sum[s].cfg, &want))
        return NULL;
    return &PAR(a)->sum[s];
}

void par_cancelled(struct app *a)
{
    if (PAR(a)) PAR(a)->train_id = 0;
}

bool par_training(const struct app *a)
{
    return PAR(a) && PAR(a)->train_id != 0;
}

bool par_apply(struct app *a, const struct result *r)
{
    struct par_screen *p = PAR(a);
    if (!p || r->kind != JOB_TRAIN || r->job_id != p->train_id) return false;
    p->train_id = 0;
    const struct train_summary *sum = r->train.summary;
    int s = sum ? (int)sum->cfg.scheme : -1;
    if (r->status == CV_OK && s >= 0 && s < TRAIN_SCHEME_COUNT) {
        p->sum[s] = *sum;
        p->have[s] = true;
        p->train_err[0] = '\0';
    } else {
        snprintf(p->train_err, sizeof p->train_err, "%s",
                 r->err[0] ? r->err : cv_status_name(r->status));
    }
    return true;
}

/* ---- the screen's entry ---- */

static void par_apply_scene(struct app *a, unsigned changed)
{
    if (!(changed & (SF_SCREEN | SF_RANKS | SF_PAR))) return;
    par_rebuild(a);
    if (a->w && a->auto_measure) par_train_if_needed(a);
}

static bool par_action(struct app *a, enum ui_action act, struct scene *next)
{
    const struct scene *s = &a->sc;
    switch (act) {
    case ACT_SCHEME:
        /* ddp -> tp -> pp -> zero1 -> zero2 -> zero3 -> moe -> ddp (single is the reference,
         * not a screen); O means prefetch on zero3, so it does not carry over to it */
        next->scheme = (enum train_scheme)(s->scheme % (TRAIN_SCHEME_COUNT - 1) + 1);
        if (next->scheme == TRAIN_ZERO3) next->overlap = false;
        next->step = 0;
        return true;
    case ACT_SCHEDULE:
        if (s->scheme != TRAIN_PP) {
            app_msg_keyed(a, "the schedule applies to pp", ACT_SCHEME, "switches scheme");
            return true;
        }
        /* the step kept (clamped to the new timeline): the same moment, compared */
        next->schedule = (enum pp_schedule)((s->schedule + 1) % PP_SCHEDULE_COUNT);
        return true;
    case ACT_OVERLAP:
        if (s->scheme != TRAIN_DDP && s->scheme != TRAIN_ZERO3) {
            app_msg_keyed(a, "overlap applies to ddp, prefetch to zero3", ACT_SCHEME,
                          "switches scheme");
            return true;
        }
        next->overlap = !s->overlap; /* the step kept, as the schedule's */
        return true;
    case ACT_MEASURE:
        if (s->scheme == TRAIN_MOE) { /* its display-scale step is measured again too */
            par_moe_build(&PAR(a)->moe, a->sc.nranks);
            PAR(a)->moe.timed = true;
        }
        if (!a->w)
            snprintf(a->msg, sizeof a->msg, "no worker to train on");
        else if (par_training(a))
            app_busy_msg(a, "already training");
        else
            par_train(a);
        return true;
    case ACT_CANCEL:
        if (!(a->w && par_training(a))) return false;
        app_cancel(a);
        snprintf(a->msg, sizeof a->msg, "training cancelled");
        return true;
    case ACT_ALGO:
    case ACT_OP:
    case ACT_ROOT:
    case ACT_COUNT_UP:
    case ACT_COUNT_DOWN:
    case ACT_INIT:
    case ACT_SWEEP:
    case ACT_SIZE_UP:
    case ACT_SIZE_DOWN:
        app_msg_keyed(a, "that key is for the collectives screen", ACT_PARALLEL,
                      "goes back to it");
        return true;
    default:
        return false;
    }
}

static bool par_result(struct app *a, const struct result *r)
{
    return par_apply(a, r);
}

static bool par_busy(const struct app *a)
{
    return par_training(a);
}

/* A frame's title (the status line's "reduce-scatter dx1[:,0:1] 3/3") and sentence. */
static bool par_step_text(const struct app *a, long step, char *buf, size_t n)
{
    const struct par_screen *p = PAR(a);
    if (!p || a->sc.scheme == TRAIN_MOE || !p->view.ok || step < 0 || step >= p->nwhats)
        return false;
    char title[96];
    par_frame_title(&p->view, (int)step, title, sizeof title);
    snprintf(buf, n, "%s %s", title, p->whats[step]);
    return true;
}

const struct screen_ops screen_parallel = {
    .name = "parallelism",
    .kind = SCREEN_PARALLEL,
    .scene_fields = SF_RANKS | SF_PAR | SF_STEP | SF_AUTOPLAY | SF_HL,
    .keys_on = KEYS_ON_PAR,
    .min_ranks = SCENE_PAR_MIN_RANKS,
    .max_ranks = SCENE_PAR_MAX_RANKS,
    .apply = par_apply_scene,
    .nsteps = par_nsteps,
    .phase_ends = par_phase_ends,
    .rows_needed = par_rows_needed,
    .action = par_action,
    .draw = par_draw,
    .result = par_result,
    .busy = par_busy,
    .cancelled = par_cancelled,
    .help = par_help,
    .free_state = par_free,
    .step_text = par_step_text,
};
