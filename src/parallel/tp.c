/* tp.c - tensor parallel training (the lecture's column split) on one rank.
 *
 * Every rank sees the whole batch; rank r holds columns [r·d, (r+1)·d) of every layer's
 * weights (D × d, d = D/W) and the AdamW state of that shard only.
 *
 * Forward, per layer: z = x @ W_r (B × d), a = gelu(z) (elementwise, so it can be applied
 * to the shard), then an all-gather of the B × d pieces: the gather buffer holds the W
 * pieces one after the other (piece k = columns of rank k), and concatenating them along
 * columns (torch.cat(dim=1)) rebuilds the full B × D input of the next layer.
 *
 * Backward: the all-gather's dual is a reduce-scatter. Each rank's shard contributes
 * dX_r = dZ_r @ W_r^T, a full B × D matrix, and the true input gradient is the sum over
 * ranks, dX = Σ_r dX_r. But a rank only needs the column block of dX that belongs to its
 * own shard of the previous layer (the block it all-gathered forward). So instead of an
 * all-reduce (which would hand every rank all of dX, at twice the traffic) we lay dX_r out
 * as W blocks, block k = dZ_r @ (rows k·d..(k+1)·d of W_r)^T = the columns of rank k, and
 * reduce-scatter them: rank k receives Σ_r block k = its columns of dX. Forward gathers
 * B·D/W per rank per layer; backward scatters the same amount — the two are duals.
 * The loss gradient 2x/(B·D) of the last layer needs no communication: every rank has
 * its own columns of the final activations. */
#include "parallel/schemes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

struct tp {
    int d;                /* columns per rank */
    float *w, *g, *m, *v; /* [L][D][d] */
    float *x;             /* [L+1][B][D]: full inputs of each layer, x[L] = final output */
    float *z;             /* [L][B][d]: gelu'(z), kept for backward */
    float *gather;        /* [W][B][d]: all-gather buffer (piece k from rank k) */
    float *part;          /* [W][B][d]: this rank's dX blocks, reduce-scattered */
    float *da, *dz;       /* [B][d] */
};

static int tp_setup(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    int L = c->layers, D = c->dim, B = c->batch, W = rs->nranks;
    struct tp *s = xcalloc(1, sizeof *s);
    rs->priv = s;
    s->d = D / W;
    size_t dd = (size_t)D * s->d, bd = (size_t)B * D, bdl = (size_t)B * s->d;
    struct dev *dv = rs->dev;
    s->w = dev_alloc(dv, (size_t)L * dd);
    s->g = dev_alloc(dv, (size_t)L * dd);
    s->m = dev_alloc(dv, (size_t)L * dd);
    s->v = dev_alloc(dv, (size_t)L * dd);
    s->x = dev_alloc(dv, (size_t)(L + 1) * bd);
    s->z = dev_alloc(dv, (size_t)L * bdl);
    s->gather = dev_alloc(dv, bd);
    s->part = dev_alloc(dv, bd);
    s->da = dev_alloc(dv, bdl);
    s->dz = dev_alloc(dv, bdl);
    for (int l = 0; l < L; l++)
        dev_init_weight_cols(dv, c->seed, l, D, rs->rank * s->d, s->d, s->w + (size_t)l * dd);
    dev_init_data_rows(dv, c->seed, B, D, 0, B, s->x);
    rs->mem.params = (size_t)L * dd * sizeof(float);
    rs->mem.grads = (size_t)L * dd * sizeof(float);
    rs->mem.optimizer = 2 * (size_t)L * dd * sizeof(float);
    rs->mem.activations =
        ((size_t)(L + 1) * bd + (size_t)L * bdl + 2 * bd + 2 * bdl) * sizeof(float);
    return CV_OK;
}

/* ---- display-scale probe (probe.h): a no-op unless the run records this step ---- */

static void tp_probe_start(struct rank_state *rs, const struct tp *s)
{
    int L = rs->cfg->layers, D = rs->cfg->dim, B = rs->cfg->batch, d = s->d, r = rs->rank;
    size_t dd = (size_t)D * d;
    struct probe_rec *pr =
        d == 1 ? probe_begin(rs->probe, rs->step, r, PROBE_START,
                             "before the step: rank r holds column r of every layer's weights, "
                             "and every rank the whole batch")
               : probe_begin(rs->probe, rs->step, r, PROBE_START,
                             "before the step: rank r holds columns %d*r to %d*r+%d of every "
                             "layer's weights, and every rank the whole batch",
                             d, d, d - 1);
    if (!pr) return;
    char nm[24];
    for (int l = 0; l < L; l++) {
        snprintf(nm, sizeof nm, "W%d[:,%d:%d]", l, r * d, r * d + d);
        struct probe_mat *m =
            probe_add(pr, nm, D, d, s->w + l * dd, d, PROBE_REF_W, l, 0, r * d);
        if (l == 0) probe_mat_key(m);
    }
    probe_add(pr, "x0", B, D, s->x, D, PROBE_REF_X, 0, 0, 0);
    probe_commit(rs->probe, pr);
}

static void tp_probe_forward(struct rank_state *rs, const struct tp *s, int l)
{
    int D = rs->cfg->dim, B = rs->cfg->batch, d = s->d, r = rs->rank;
    size_t dd = (size_t)D * d, bd = (size_t)B * D, bdl = (size_t)B * d;
    struct probe_rec *pr =
        probe_begin(rs->probe, rs->step, r, PROBE_COMPUTE,
                    "layer %d forward: each rank computes its %d column%s of x%d = gelu(x%d @ "
                    "its columns of W%d); gelu is elementwise, so a column shard suffices",
                    l, d, d == 1 ? "" : "s", l + 1, l, l);
    if (!pr) return;
    pr->layer = l;
    pr->fwd = true;
    char nm[24];
    snprintf(nm, sizeof nm, "x%d", l);
    probe_add(pr, nm, B, D, s->x + l * bd, D, PROBE_REF_X, l, 0, 0);
    snprintf(nm, sizeof nm, "W%d[:,%d:%d]", l, r * d, r * d + d);
    probe_add(pr, nm, D, d, s->w + l * dd, d, PROBE_REF_W, l, 0, r * d);
    snprintf(nm, sizeof nm, "x%d[:,%d:%d]", l + 1, r * d, r * d + d);
    probe_mat_key(
        probe_add(pr, nm, B, d, s->gather + (size_t)r * bdl, d, PROBE_REF_X, l + 1, 0, r * d));
    probe_commit(rs->probe, pr);
}

static void tp_probe_backward(struct rank_state *rs, const struct tp *s, int l)
{
    int D = rs->cfg->dim, B = rs->cfg->batch, W = rs->nranks, d = s->d, r = rs->rank;
    size_t dd = (size_t)D * d;
    struct probe_rec *pr = probe_begin(
        rs->probe, rs->step, r, PROBE_COMPUTE,
        l > 0 ? "layer %d backward: each rank's columns of dW%d are complete (it saw all "
                "rows); its share of dx%d = dz @ (its columns of W%d)^T needs the others'"
              : "layer %d backward: each rank's columns of dW%d are complete (it saw all "
                "rows); the data needs no gradient",
        l, l, l, l);
    if (!pr) return;
    pr->layer = l;
    char nm[24];
    snprintf(nm, sizeof nm, "dW%d[:,%d:%d]", l, r * d, r * d + d);
    probe_mat_key(probe_add(pr, nm, D, d, s->g + l * dd, d, PROBE_REF_DW, l, 0, r * d));
    if (l > 0) {
        snprintf(nm, sizeof nm, "dx%d (my share)", l);
        probe_add_pieces(pr, nm, B, d, W, s->part, PROBE_REF_NONE, l, 0, 0);
    }
    probe_commit(rs->probe, pr);
}

/* Layer l forward: this rank's columns, the all-gather of every rank's, their concat. */
static int tp_forward_layer(struct rank_state *rs, struct tp *s, int l)
{
    const struct train_config *c = rs->cfg;
    struct comm *cm = rs->comm;
    int D = c->dim, B = c->batch, W = rs->nranks, r = rs->rank, d = s->d;
    size_t dd = (size_t)D * d, bd = (size_t)B * D, bdl = (size_t)B * d;
    char label[32];
    double t0 = now_s();
    float *mine = s->gather + (size_t)r * bdl;
    dev_layer_forward(rs->dev, B, D, d, s->x + l * bd, s->w + l * dd, d, s->z + l * bdl, mine,
                      d);
    snprintf(label, sizeof label, "fwd L%d", l);
    rank_compute_event(rs, label, t0, -1);
    tp_probe_forward(rs, s, l);

    snprintf(label, sizeof label, "all-gather L%d", l);
    int slot = -1;
    if (rs->probe) {
        char lab[160];
        snprintf(lab, sizeof lab,
                 "all-gather x%d: every rank sends its %d column%s and receives the "
                 "others', then concatenates them into the full x%d",
                 l + 1, d, d == 1 ? "" : "s", l + 1);
        slot = probe_coll_begin(rs->probe, rs->step, r, COLL_ALL_GATHER, OP_SUM, bdl, mine, bdl,
                                B, D, d, false, lab);
    }
    int rc = cm->ops->all_gather(cm, r, mine, s->gather, bdl, label);
    if (rc != CV_OK) return rc;
    struct probe_rec *pr =
        probe_coll_end(rs->probe, rs->step, r, slot, s->gather, (size_t)W * bdl);

    t0 = now_s();
    float *next = s->x + (size_t)(l + 1) * bd;
    for (int k = 0; k < W; k++)
        dev_copy_rows(rs->dev, next + (size_t)k * d, D, s->gather + k * bdl, d, B, d);
    snprintf(label, sizeof label, "concat L%d", l);
    rank_compute_event(rs, label, t0, -1);
    if (pr) {
        pr->layer = l;
        char nm[24];
        snprintf(nm, sizeof nm, "x%d", l + 1);
        probe_mat_key(probe_add(pr, nm, B, D, next, D, PROBE_REF_X, l + 1, 0, 0));
        probe_commit(rs->probe, pr);
    }
    return CV_OK;
}

/* The loss, and the gradient of this rank's own output columns: no communication. */
static void tp_loss(struct rank_state *rs, struct tp *s)
{
    const struct train_config *c = rs->cfg;
    int L = c->layers, D = c->dim, B = c->batch, r = rs->rank, d = s->d;
    size_t bd = (size_t)B * D, bdl = (size_t)B * d;
    double t0 = now_s();
    /* Every rank holds the same full output; rank 0 reports the loss, each rank takes the
     * gradient of its own columns (still in the gather buffer's piece r). */
    rs->loss_sumsq = 0.0;
    if (r == 0) dev_loss_grad(rs->dev, s->x + L * bd, bd, (double)bd, NULL, &rs->loss_sumsq);
    dev_loss_grad(rs->dev, s->gather + (size_t)r * bdl, bdl, (double)bd, s->da, NULL);
    rank_compute_event(rs, "loss", t0, -1);
    struct probe_rec *pr =
        probe_begin(rs->probe, rs->step, r, PROBE_COMPUTE,
                    "loss: mean of x%d squared; each rank takes the gradient 2*x/(%d*%d) of "
                    "its own %d columns, no communication",
                    L, B, D, d);
    if (pr) {
        char nm[24];
        snprintf(nm, sizeof nm, "dx%d[:,%d:%d]", L, r * d, r * d + d);
        probe_mat_key(probe_add(pr, nm, B, d, s->da, d, PROBE_REF_DX, L, 0, r * d));
        probe_commit(rs->probe, pr);
    }
}

/* Layer l backward: this rank's weight gradient and, below the first layer, the
 * reduce-scatter of every rank's share of the input gradient. */
static int tp_backward_layer(struct rank_state *rs, struct tp *s, int l)
{
    const struct train_config *c = rs->cfg;
    struct comm *cm = rs->comm;
    int D = c->dim, B = c->batch, W = rs->nranks, r = rs->rank, d = s->d;
    size_t dd = (size_t)D * d, bd = (size_t)B * D, bdl = (size_t)B * d;
    char label[32];
    double t0 = now_s();
    const float *wl = s->w + l * dd;
    dev_layer_backward(rs->dev, B, D, d, s->x + l * bd, wl, s->z + l * bdl, s->da, d, s->dz,
                       s->g + l * dd, 0.0f, NULL);
    if (l > 0)
        for (int k = 0; k < W; k++)
            dev_gemm(rs->dev, false, true, B, d, d, s->dz, d, wl + (size_t)k * d * d, d, 0.0f,
                     s->part + k * bdl, d);
    snprintf(label, sizeof label, "bwd L%d", l);
    rank_compute_event(rs, label, t0, -1);
    tp_probe_backward(rs, s, l);
    if (l == 0) return CV_OK;
    snprintf(label, sizeof label, "reduce-scatter dX%d", l);
    int slot = -1;
    if (rs->probe) {
        char lab[160];
        snprintf(lab, sizeof lab,
                 "reduce-scatter dx%d: the sum over ranks of their shares, each rank "
                 "keeping its own %d columns (all-gather's dual)",
                 l, d);
        slot = probe_coll_begin(rs->probe, rs->step, r, COLL_REDUCE_SCATTER, OP_SUM, bdl,
                                s->part, (size_t)W * bdl, B, D, d, false, lab);
    }
    int rc = cm->ops->reduce_scatter(cm, r, s->part, s->da, bdl, OP_SUM, label);
    if (rc != CV_OK) return rc;
    struct probe_rec *pr = probe_coll_end(rs->probe, rs->step, r, slot, s->da, bdl);
    if (pr) {
        pr->layer = l;
        char nm[24];
        snprintf(nm, sizeof nm, "dx%d[:,%d:%d]", l, r * d, r * d + d);
        probe_mat_key(probe_add(pr, nm, B, d, s->da, d, PROBE_REF_DX, l, 0, r * d));
        probe_commit(rs->probe, pr);
    }
    return CV_OK;
}

/* AdamW on this rank's columns only. */
static void tp_update(struct rank_state *rs, struct tp *s)
{
    const struct train_config *c = rs->cfg;
    int L = c->layers, D = c->dim, W = rs->nranks, r = rs->rank, d = s->d;
    size_t dd = (size_t)D * d;
    double t0 = now_s();
    dev_adamw(rs->dev, &c->adamw, rs->step + 1, s->w, s->g, s->m, s->v, (size_t)L * dd);
    rank_compute_event(rs, "adamw", t0, -1);
    struct probe_rec *pr =
        probe_begin(rs->probe, rs->step, r, PROBE_OPTIM,
                    "AdamW on each rank's shard only: it updates its columns and keeps only "
                    "their optimizer state, 1/%d of the whole",
                    W);
    for (int l = 0; pr && l < L; l++) {
        char nm[24];
        snprintf(nm, sizeof nm, "W%d[:,%d:%d]", l, r * d, r * d + d);
        struct probe_mat *m =
            probe_add(pr, nm, D, d, s->w + l * dd, d, PROBE_REF_WNEW, l, 0, r * d);
        if (l == 0) probe_mat_key(m);
    }
    probe_commit(rs->probe, pr);
}

/* One tensor-parallel step: forward with an all-gather per layer, the loss, backward with a
 * reduce-scatter per layer, then the update. */
static int tp_step(struct rank_state *rs)
{
    struct tp *s = rs->priv;
    int L = rs->cfg->layers, rc;
    tp_probe_start(rs, s);
    for (int l = 0; l < L; l++)
        if ((rc = tp_forward_layer(rs, s, l)) != CV_OK) return rc;
    tp_loss(rs, s);
    for (int l = L - 1; l >= 0; l--)
        if ((rc = tp_backward_layer(rs, s, l)) != CV_OK) return rc;
    tp_update(rs, s);
    return CV_OK;
}

static void tp_params(struct rank_state *rs, float *full, double *replica_diff)
{
    struct tp *s = rs->priv;
    int L = rs->cfg->layers, D = rs->cfg->dim, d = s->d;
    (void)replica_diff;
    const float *w = dev_host_view(rs->dev, s->w, (size_t)L * D * d);
    for (int l = 0; l < L; l++)
        for (int i = 0; i < D; i++)
            memcpy(full + ((size_t)l * D + i) * D + (size_t)rs->rank * d,
                   w + ((size_t)l * D + i) * d, (size_t)d * sizeof(float));
    dev_host_view_done(rs->dev, w, s->w);
}

static void tp_cleanup(struct rank_state *rs)
{
    struct tp *s = rs->priv;
    if (!s) return;
    struct dev *dv = rs->dev;
    dev_free(dv, s->w);
    dev_free(dv, s->g);
    dev_free(dv, s->m);
    dev_free(dv, s->v);
    dev_free(dv, s->x);
    dev_free(dv, s->z);
    dev_free(dv, s->gather);
    dev_free(dv, s->part);
    dev_free(dv, s->da);
    dev_free(dv, s->dz);
    free(s);
    rs->priv = NULL;
}

const struct scheme_ops scheme_tp = {
    .setup = tp_setup,
    .step = tp_step,
    .params = tp_params,
    .cleanup = tp_cleanup,
};
