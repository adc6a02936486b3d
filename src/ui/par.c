/* par.c - the parallelism screen's state: the display-scale view rebuilt when the scheme,
 * world size, schedule or overlap change, and the lecture-scale training posted to the
 * worker (see par.h). Results are matched by job id, so a late result for an old scheme
 * is never shown as the new one's. */
#include "par.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "app.h"

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
    c->overlap = a->sc.overlap;
    c->steps = PAR_LECTURE_STEPS;
    c->timeout_s = PAR_TIMEOUT_S;
    /* On the GPUs when the collectives run there (NCCL, 2+ GPUs) and there is one GPU per
     * rank; otherwise on CPU ranks (par_backend_note says why). */
    if (par_on_gpus(a)) c->backend = TRAIN_BACKEND_NCCL;
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
           x->overlap == y->overlap && x->seed == y->seed && x->backend == y->backend;
}

/* Shapes of every frame of every rank, and the longest sentence, for the layout. */
static void par_metrics(struct app *a)
{
    struct par_screen *p = a->par;
    const struct par_view *v = &p->view;
    int W = v->cfg.nranks;
    free(p->shapes);
    p->shapes = NULL;
    p->longest_what[0] = '\0';
    p->shapes_utf8 = a->utf8;
    if (!v->ok) return;
    p->shapes = xcalloc((size_t)v->nframes * W, sizeof *p->shapes);
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
        if (strlen(text) > longest) {
            longest = strlen(text);
            snprintf(p->longest_what, sizeof p->longest_what, "%s", text);
        }
    }
}

void par_rebuild(struct app *a)
{
    if (!a->par) a->par = xcalloc(1, sizeof *a->par);
    struct par_screen *p = a->par;
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
    long n = (long)par_nsteps(a);
    if (a->sc.step == SCENE_STEP_END || a->sc.step > n) a->sc.step = n;
}

void par_free(struct app *a)
{
    if (!a->par) return;
    if (a->par->built) par_view_free(&a->par->view);
    free(a->par->shapes);
    free(a->par);
    a->par = NULL;
}

size_t par_nsteps(const struct app *a)
{
    if (!a->par || !a->par->view.ok) return 0;
    return (size_t)a->par->view.nframes - 1;
}

void par_train(struct app *a)
{
    if (!a->par) a->par = xcalloc(1, sizeof *a->par);
    struct par_screen *p = a->par;
    if (!a->w) return;
    app_cancel(a); /* also whatever the collectives screen had asked */
    struct job j = {.kind = JOB_TRAIN};
    par_lecture_of(a, &j.train);
    p->train_cfg = j.train;
    p->train_err[0] = '\0';
    p->train_started = now_s();
    p->train_id = worker_post(a->w, &j);
}

void par_train_if_needed(struct app *a)
{
    if (!par_summary(a) && !par_training(a)) par_train(a);
}

const struct train_summary *par_summary(const struct app *a)
{
    if (!a->par) return NULL;
    struct train_config want;
    par_lecture_of(a, &want);
    int s = want.scheme;
    if (s < 0 || s >= TRAIN_SCHEME_COUNT || !a->par->have[s] ||
        !par_same_config(&a->par->sum[s].cfg, &want))
        return NULL;
    return &a->par->sum[s];
}

void par_cancelled(struct app *a)
{
    if (a->par) a->par->train_id = 0;
}

bool par_training(const struct app *a)
{
    return a->par && a->par->train_id != 0;
}

bool par_apply(struct app *a, const struct result *r)
{
    struct par_screen *p = a->par;
    if (!p || r->kind != JOB_TRAIN || r->job_id != p->train_id) return false;
    p->train_id = 0;
    int s = r->train.cfg.scheme;
    if (r->status == CV_OK && s >= 0 && s < TRAIN_SCHEME_COUNT) {
        p->sum[s] = r->train;
        p->have[s] = true;
        p->train_err[0] = '\0';
    } else {
        snprintf(p->train_err, sizeof p->train_err, "%s",
                 r->err[0] ? r->err : cv_status_name(r->status));
    }
    return true;
}
