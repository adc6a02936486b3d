/* ddp.c - data parallel training (the lecture's DDP) on one rank of the communicator.
 *
 * Rank r takes rows [r·B/W, (r+1)·B/W) of the batch, holds every layer's full weights and
 * its own AdamW state, and trains normally on its rows with the loss normalised by its own
 * rows (mean over (B/W)·D). Averaging the W gradients (all-reduce with AVG) then gives
 * exactly the gradient of the mean over the whole batch, so every rank applies the same
 * update and the replicas stay identical (a ring all-reduce hands every rank the same
 * reduced bytes).
 *
 * Without --overlap the gradients are all-reduced after the backward pass, one layer at a
 * time, as in the lecture's loop. With --overlap each layer's gradient all-reduce is
 * started on the rank's communication helper as soon as backward has produced it
 * (last layer first), so it runs while backward computes the earlier layers; the step
 * waits for all of them before AdamW. */
#include "parallel/schemes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct ddp {
    int n;                /* rows of this rank */
    float *w, *g, *m, *v; /* [L][D][D] */
    float *x, *z;         /* x: [L+1][n][D] (x[0] = this rank's rows); z: [L][n][D] gelu'(z) */
    float *da, *dz;       /* [n][D] */
    struct comm_req **reqs; /* [L] overlapped all-reduces in flight */
};

static int ddp_setup(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    int L = c->layers, D = c->dim, W = rs->nranks;
    struct ddp *s = xcalloc(1, sizeof *s);
    rs->priv = s;
    s->n = c->batch / W;
    size_t dd = (size_t)D * D, nd = (size_t)s->n * D;
    struct dev *dv = rs->dev;
    s->w = dev_alloc(dv, (size_t)L * dd);
    s->g = dev_alloc(dv, (size_t)L * dd);
    s->m = dev_alloc(dv, (size_t)L * dd);
    s->v = dev_alloc(dv, (size_t)L * dd);
    s->x = dev_alloc(dv, (size_t)(L + 1) * nd);
    s->z = dev_alloc(dv, (size_t)L * nd);
    s->da = dev_alloc(dv, nd);
    s->dz = dev_alloc(dv, nd);
    s->reqs = xcalloc((size_t)L, sizeof *s->reqs);
    for (int l = 0; l < L; l++)
        dev_init_weight_cols(dv, c->seed, l, D, 0, D, s->w + (size_t)l * dd);
    /* Every rank draws the same batch and keeps its own rows (data[start:end]). */
    dev_init_data_rows(dv, c->seed, c->batch, D, rs->rank * s->n, s->n, s->x);
    rs->mem.params = (size_t)L * dd * sizeof(float);
    rs->mem.grads = (size_t)L * dd * sizeof(float);
    rs->mem.optimizer = 2 * (size_t)L * dd * sizeof(float);
    rs->mem.activations = ((size_t)(2 * L + 1) + 2) * nd * sizeof(float);
    return CV_OK;
}

/* ---- display-scale probe (probe.h): a no-op unless the run records this step ---- */

static void ddp_probe_forward(struct rank_state *rs, const struct ddp *s, int l)
{
    int D = rs->cfg->dim, n = s->n, r = rs->rank;
    size_t dd = (size_t)D * D, nd = (size_t)n * D;
    struct probe_rec *pr =
        probe_begin(rs->probe, rs->step, r, PROBE_COMPUTE,
                    "layer %d forward on each rank's own %d rows: x%d = gelu(x%d @ W%d) with "
                    "its full copy of W%d; no communication",
                    l, n, l + 1, l, l, l);
    if (!pr) return;
    pr->layer = l;
    pr->fwd = true;
    char nm[24];
    snprintf(nm, sizeof nm, "x%d", l);
    probe_add(pr, nm, n, D, s->x + l * nd, D, PROBE_REF_X, l, r * n, 0);
    snprintf(nm, sizeof nm, "W%d", l);
    probe_add(pr, nm, D, D, s->w + l * dd, D, PROBE_REF_W, l, 0, 0);
    snprintf(nm, sizeof nm, "x%d", l + 1);
    probe_mat_key(
        probe_add(pr, nm, n, D, s->x + (l + 1) * nd, D, PROBE_REF_X, l + 1, r * n, 0));
    probe_commit(rs->probe, pr);
}

/* After layer l's backward: the gradient from this rank's rows only (normalised by them),
 * so it is not yet the batch's gradient. */
static void ddp_probe_backward(struct rank_state *rs, const struct ddp *s, int l)
{
    int D = rs->cfg->dim, n = s->n, r = rs->rank;
    size_t dd = (size_t)D * D;
    struct probe_rec *pr = probe_begin(
        rs->probe, rs->step, r, PROBE_COMPUTE,
        "layer %d backward: each rank gets dW%d from its own %d rows only, so the ranks' "
        "dW%d differ%s",
        l, l, n, l, rs->cfg->overlap ? "; its all-reduce starts now on the helper lane" : "");
    if (!pr) return;
    pr->layer = l;
    char nm[24];
    snprintf(nm, sizeof nm, "dW%d", l);
    probe_mat_key(probe_add(pr, nm, D, D, s->g + l * dd, D, PROBE_REF_NONE, l, 0, 0));
    if (l > 0) {
        snprintf(nm, sizeof nm, "dx%d", l);
        probe_add(pr, nm, n, D, s->da, D, PROBE_REF_NONE, l, r * n, 0);
    }
    probe_commit(rs->probe, pr);
}

static int ddp_probe_coll_begin(struct rank_state *rs, const struct ddp *s, int l, bool async)
{
    int D = rs->cfg->dim;
    size_t dd = (size_t)D * D;
    if (!rs->probe || rs->step != probe_step(rs->probe)) return -1;
    char lab[160];
    snprintf(lab, sizeof lab,
             "all-reduce dW%d with AVG%s: every rank ends with the mean of the %d ranks' "
             "gradients, the gradient of the whole batch",
             l, async ? " (overlapped with backward)" : "", rs->nranks);
    return probe_coll_begin(rs->probe, rs->step, rs->rank, COLL_ALL_REDUCE, OP_AVG, dd,
                            s->g + l * dd, dd, D, D, D, async, lab);
}

static void ddp_probe_coll_end(struct rank_state *rs, const struct ddp *s, int l, int slot)
{
    int D = rs->cfg->dim;
    size_t dd = (size_t)D * D;
    struct probe_rec *pr =
        probe_coll_end(rs->probe, rs->step, rs->rank, slot, s->g + l * dd, dd);
    if (!pr) return;
    pr->layer = l;
    char nm[24];
    snprintf(nm, sizeof nm, "dW%d", l);
    probe_mat_key(probe_add(pr, nm, D, D, s->g + l * dd, D, PROBE_REF_DW, l, 0, 0));
    probe_commit(rs->probe, pr);
}

static int ddp_step(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    struct ddp *s = rs->priv;
    struct comm *cm = rs->comm;
    int L = c->layers, D = c->dim, n = s->n, r = rs->rank;
    size_t dd = (size_t)D * D, nd = (size_t)n * D;
    char label[32];
    int rc = CV_OK;

    struct probe_rec *pr = probe_begin(rs->probe, rs->step, r, PROBE_START,
                                       "before the step: every rank holds all %d layers (a "
                                       "replica) and its own %d rows of the batch",
                                       L, n);
    for (int l = 0; pr && l < L; l++) {
        snprintf(label, sizeof label, "W%d", l);
        probe_add(pr, label, D, D, s->w + l * dd, D, PROBE_REF_W, l, 0, 0);
    }
    probe_mat_key(probe_add(pr, "x0", n, D, s->x, D, PROBE_REF_X, 0, r * n, 0));
    probe_commit(rs->probe, pr);

    for (int l = 0; l < L; l++) {
        double t0 = now_s();
        dev_layer_forward(rs->dev, n, D, D, s->x + l * nd, s->w + l * dd, D, s->z + l * nd,
                          s->x + (l + 1) * nd, D);
        snprintf(label, sizeof label, "fwd L%d", l);
        rank_compute_event(rs, label, t0, -1);
        ddp_probe_forward(rs, s, l);
    }
    double t0 = now_s();
    dev_loss_grad(rs->dev, s->x + L * nd, nd, (double)nd, s->da, &rs->loss_sumsq);
    rank_compute_event(rs, "loss", t0, -1);
    pr = probe_begin(rs->probe, rs->step, r, PROBE_COMPUTE,
                     "loss: mean of x%d squared over each rank's %d rows; the gradient dx%d = "
                     "2*x%d/(%d*%d) starts backward",
                     L, n, L, L, n, D);
    if (pr) {
        char nm[24];
        snprintf(nm, sizeof nm, "x%d", L);
        probe_add(pr, nm, n, D, s->x + L * nd, D, PROBE_REF_X, L, r * n, 0);
        /* Normalised by this rank's rows, not the batch: W times the single-device
         * gradient until the all-reduce averages. */
        snprintf(nm, sizeof nm, "dx%d", L);
        probe_mat_key(probe_add(pr, nm, n, D, s->da, D, PROBE_REF_NONE, L, r * n, 0));
        probe_commit(rs->probe, pr);
    }

    int issued = L; /* lowest layer whose all-reduce was started */
    int slot[PROBE_MAX_LAYERS];
    for (int l = L - 1; l >= 0; l--) {
        t0 = now_s();
        dev_layer_backward(rs->dev, n, D, D, s->x + l * nd, s->w + l * dd, s->z + l * nd, s->da,
                           D, s->dz, s->g + l * dd, 0.0f, l > 0 ? s->da : NULL);
        snprintf(label, sizeof label, "bwd L%d", l);
        rank_compute_event(rs, label, t0, -1);
        ddp_probe_backward(rs, s, l);
        if (c->overlap) {
            snprintf(label, sizeof label, "all-reduce dW%d", l);
            if (l < PROBE_MAX_LAYERS) slot[l] = ddp_probe_coll_begin(rs, s, l, true);
            rc = cm->ops->iall_reduce(cm, r, s->g + l * dd, dd, OP_AVG, label, &s->reqs[l]);
            if (rc != CV_OK) break;
            issued = l;
        }
    }
    if (c->overlap) {
        /* Wait for every request that was started, even after a failure, so none is left
         * pointing at our gradients. */
        for (int l = L - 1; l >= issued; l--) {
            int wrc = cm->ops->wait(cm, r, s->reqs[l]);
            s->reqs[l] = NULL;
            if (rc == CV_OK) rc = wrc;
            if (rc == CV_OK && l < PROBE_MAX_LAYERS) ddp_probe_coll_end(rs, s, l, slot[l]);
        }
    } else {
        for (int l = 0; l < L && rc == CV_OK; l++) {
            snprintf(label, sizeof label, "all-reduce dW%d", l);
            int sl = ddp_probe_coll_begin(rs, s, l, false);
            rc = cm->ops->all_reduce(cm, r, s->g + l * dd, dd, OP_AVG, label);
            if (rc == CV_OK) ddp_probe_coll_end(rs, s, l, sl);
        }
    }
    if (rc != CV_OK) return rc;

    t0 = now_s();
    dev_adamw(rs->dev, &c->adamw, rs->step + 1, s->w, s->g, s->m, s->v, (size_t)L * dd);
    rank_compute_event(rs, "adamw", t0, -1);
    pr = probe_begin(rs->probe, rs->step, r, PROBE_OPTIM,
                     "AdamW: every rank applies the same averaged gradients to its own "
                     "replica, so the replicas stay identical");
    for (int l = 0; pr && l < L; l++) {
        snprintf(label, sizeof label, "W%d", l);
        struct probe_mat *m =
            probe_add(pr, label, D, D, s->w + l * dd, D, PROBE_REF_WNEW, l, 0, 0);
        if (l == 0) probe_mat_key(m);
    }
    probe_commit(rs->probe, pr);
    return CV_OK;
}

static void ddp_params(struct rank_state *rs, float *full, double *replica_diff)
{
    struct ddp *s = rs->priv;
    size_t n = (size_t)rs->cfg->layers * rs->cfg->dim * rs->cfg->dim;
    const float *w = dev_host_view(rs->dev, s->w, n);
    scheme_replica_fold(w, full, n, rs->rank == 0, replica_diff);
    dev_host_view_done(rs->dev, w, s->w);
}

static void ddp_cleanup(struct rank_state *rs)
{
    struct ddp *s = rs->priv;
    if (!s) return;
    struct dev *dv = rs->dev;
    dev_free(dv, s->w);
    dev_free(dv, s->g);
    dev_free(dv, s->m);
    dev_free(dv, s->v);
    dev_free(dv, s->x);
    dev_free(dv, s->z);
    dev_free(dv, s->da);
    dev_free(dv, s->dz);
    free(s->reqs);
    free(s);
    rs->priv = NULL;
}

const struct scheme_ops scheme_ddp = {
    .setup = ddp_setup,
    .step = ddp_step,
    .params = ddp_params,
    .cleanup = ddp_cleanup,
};
