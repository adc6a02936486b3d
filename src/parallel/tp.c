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
#include "schemes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

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
    s->w = mlp_alloc((size_t)L * dd);
    s->g = mlp_alloc((size_t)L * dd);
    s->m = mlp_alloc((size_t)L * dd);
    s->v = mlp_alloc((size_t)L * dd);
    s->x = mlp_alloc((size_t)(L + 1) * bd);
    s->z = mlp_alloc((size_t)L * bdl);
    s->gather = mlp_alloc(bd);
    s->part = mlp_alloc(bd);
    s->da = mlp_alloc(bdl);
    s->dz = mlp_alloc(bdl);
    for (int l = 0; l < L; l++)
        mlp_init_weight_cols(c->seed, l, D, rs->rank * s->d, s->d, s->w + (size_t)l * dd);
    mlp_init_data(c->seed, B, D, s->x);
    rs->mem.params = (size_t)L * dd * sizeof(float);
    rs->mem.grads = (size_t)L * dd * sizeof(float);
    rs->mem.optimizer = 2 * (size_t)L * dd * sizeof(float);
    rs->mem.activations =
        ((size_t)(L + 1) * bd + (size_t)L * bdl + 2 * bd + 2 * bdl) * sizeof(float);
    return CV_OK;
}

static int tp_step(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    struct tp *s = rs->priv;
    struct comm *cm = rs->comm;
    int L = c->layers, D = c->dim, B = c->batch, W = rs->nranks, r = rs->rank, d = s->d;
    size_t dd = (size_t)D * d, bd = (size_t)B * D, bdl = (size_t)B * d;
    char label[32];
    int rc;

    for (int l = 0; l < L; l++) {
        double t0 = now_s();
        float *mine = s->gather + (size_t)r * bdl;
        mlp_layer_forward(B, D, d, s->x + l * bd, s->w + l * dd, d, s->z + l * bdl, mine, d);
        snprintf(label, sizeof label, "fwd L%d", l);
        rank_compute_event(rs, label, t0, -1);

        snprintf(label, sizeof label, "all-gather L%d", l);
        rc = cm->ops->all_gather(cm, r, mine, s->gather, bdl, label);
        if (rc != CV_OK) return rc;

        t0 = now_s();
        float *next = s->x + (size_t)(l + 1) * bd;
        for (int k = 0; k < W; k++)
            for (int i = 0; i < B; i++)
                memcpy(next + (size_t)i * D + (size_t)k * d,
                       s->gather + k * bdl + (size_t)i * d, (size_t)d * sizeof(float));
        snprintf(label, sizeof label, "concat L%d", l);
        rank_compute_event(rs, label, t0, -1);
    }

    double t0 = now_s();
    /* Every rank holds the same full output; rank 0 reports the loss, each rank takes the
     * gradient of its own columns (still in the gather buffer's piece r). */
    rs->loss_sumsq = r == 0 ? mlp_loss_grad(s->x + L * bd, bd, (double)bd, NULL) : 0.0;
    float scale = (float)(2.0 / (double)bd);
    const float *own = s->gather + (size_t)r * bdl;
    for (size_t i = 0; i < bdl; i++)
        s->da[i] = scale * own[i];
    rank_compute_event(rs, "loss", t0, -1);

    for (int l = L - 1; l >= 0; l--) {
        t0 = now_s();
        const float *wl = s->w + l * dd;
        mlp_layer_backward(B, D, d, s->x + l * bd, wl, s->z + l * bdl, s->da, d, s->dz,
                           s->g + l * dd, 0.0f, NULL);
        if (l > 0)
            for (int k = 0; k < W; k++)
                mlp_gemm(false, true, B, d, d, s->dz, d, wl + (size_t)k * d * d, d, 0.0f,
                         s->part + k * bdl, d);
        snprintf(label, sizeof label, "bwd L%d", l);
        rank_compute_event(rs, label, t0, -1);
        if (l > 0) {
            snprintf(label, sizeof label, "reduce-scatter dX%d", l);
            rc = cm->ops->reduce_scatter(cm, r, s->part, s->da, bdl, OP_SUM, label);
            if (rc != CV_OK) return rc;
        }
    }

    t0 = now_s();
    mlp_adamw(&c->adamw, rs->step + 1, s->w, s->g, s->m, s->v, (size_t)L * dd);
    rank_compute_event(rs, "adamw", t0, -1);
    return CV_OK;
}

static void tp_params(struct rank_state *rs, float *full, double *replica_diff)
{
    struct tp *s = rs->priv;
    int L = rs->cfg->layers, D = rs->cfg->dim, d = s->d;
    (void)replica_diff;
    for (int l = 0; l < L; l++)
        for (int i = 0; i < D; i++)
            memcpy(full + ((size_t)l * D + i) * D + (size_t)rs->rank * d,
                   s->w + ((size_t)l * D + i) * d, (size_t)d * sizeof(float));
}

static void tp_cleanup(struct rank_state *rs)
{
    struct tp *s = rs->priv;
    if (!s) return;
    free(s->w);
    free(s->g);
    free(s->m);
    free(s->v);
    free(s->x);
    free(s->z);
    free(s->gather);
    free(s->part);
    free(s->da);
    free(s->dz);
    free(s);
    rs->priv = NULL;
}

const struct scheme_ops scheme_tp = {
    .setup = tp_setup,
    .step = tp_step,
    .params = tp_params,
    .cleanup = tp_cleanup,
};
