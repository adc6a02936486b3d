/* pp.c - pipeline parallel training (the lecture's split by depth) on one stage.
 *
 * Stage s holds a contiguous run of layers (chunk_range: when P does not divide L the
 * first L mod P stages get one layer more). The batch is cut into M micro-batches of B/M
 * rows; stage 0 reads them from the data, every other stage receives them from stage
 * s-1, and stage s sends its output to s+1. Backward runs the other way: the last stage
 * starts from the loss gradient (2x/(B·D), the mean over the whole batch), every stage
 * sends the gradient of its input to s-1. Weight gradients are accumulated over the
 * micro-batches, then every stage takes one AdamW step on its own layers.
 *
 * Schedules (the order of F(m) and B(m) on each stage):
 *   GPipe: F0 F1 .. F(M-1), then B(M-1) .. B0: every micro-batch's activations are kept
 *          until the backward phase, M slots of them.
 *   1F1B:  min(P-s-1, M) warm-up forwards, then alternate one forward and one backward,
 *          then the remaining backwards: at most P-s micro-batches are in flight on stage
 *          s, so only that many activation slots are allocated (the memory it saves).
 * Both have the same bubble, (P-1)/(M+P-1) of the span under equal stage times.
 *
 * Message tags: (2·step + dir)·M + m, dir 0 for activations, 1 for gradients, so every
 * send can be paired with its recv on the timeline. */
#include "schemes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/plan.h"
#include "../core/util.h"

struct pp_slot {
    float *x;    /* [nl][b][D]: input of each local layer (x[0] unused on stage 0) */
    float *z;    /* [nl][b][D]: gelu'(z) of each local layer */
    float *dout; /* last stage: [b][D] loss gradient of the micro-batch */
};

struct pp_op {
    bool fwd;
    int mb;
};

struct pp {
    int l0, nl; /* first layer and number of layers on this stage */
    int b;      /* rows per micro-batch */
    int nslots;
    float *w, *g, *m, *v; /* [nl][D][D] */
    float *data;          /* stage 0: [B][D] */
    struct pp_slot *slots;
    float *out;        /* [b][D]: output of a non-last stage's forward, sent on */
    float *da, *dz;    /* [b][D] */
    struct pp_op *ops; /* [2M] the schedule of this stage */
    int nops;
    bool *grad_started; /* [nl]: accumulate (beta 1) after the first micro-batch */
};

static void pp_schedule_build(struct pp *s, enum pp_schedule sched, int stage, int P, int M)
{
    int k = 0;
    if (sched == PP_GPIPE) {
        for (int m = 0; m < M; m++)
            s->ops[k++] = (struct pp_op){true, m};
        for (int m = M - 1; m >= 0; m--)
            s->ops[k++] = (struct pp_op){false, m};
    } else {
        int warm = P - stage - 1 < M ? P - stage - 1 : M;
        for (int m = 0; m < warm; m++)
            s->ops[k++] = (struct pp_op){true, m};
        for (int i = 0; i < M - warm; i++) {
            s->ops[k++] = (struct pp_op){true, warm + i};
            s->ops[k++] = (struct pp_op){false, i};
        }
        for (int m = M - warm; m < M; m++)
            s->ops[k++] = (struct pp_op){false, m};
    }
    s->nops = k;
}

static int pp_setup(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    int D = c->dim, P = rs->nranks, M = c->microbatches, st = rs->rank;
    struct pp *s = xcalloc(1, sizeof *s);
    rs->priv = s;
    size_t start, end;
    chunk_range((size_t)c->layers, P, st, &start, &end);
    s->l0 = (int)start;
    s->nl = (int)(end - start);
    s->b = c->batch / M;
    int warm_cap = P - st < M ? P - st : M;
    s->nslots = c->schedule == PP_GPIPE ? M : warm_cap;
    size_t dd = (size_t)D * D, bd = (size_t)s->b * D;
    s->w = mlp_alloc((size_t)s->nl * dd);
    s->g = mlp_alloc((size_t)s->nl * dd);
    s->m = mlp_alloc((size_t)s->nl * dd);
    s->v = mlp_alloc((size_t)s->nl * dd);
    for (int j = 0; j < s->nl; j++)
        mlp_init_weights(c->seed, s->l0 + j, D, s->w + (size_t)j * dd);
    bool last = st == P - 1;
    size_t act = 0;
    if (st == 0) {
        s->data = mlp_alloc((size_t)c->batch * D);
        mlp_init_data(c->seed, c->batch, D, s->data);
        act += (size_t)c->batch * D;
    }
    s->slots = xcalloc((size_t)s->nslots, sizeof *s->slots);
    for (int k = 0; k < s->nslots; k++) {
        s->slots[k].x = mlp_alloc((size_t)s->nl * bd);
        s->slots[k].z = mlp_alloc((size_t)s->nl * bd);
        act += 2 * (size_t)s->nl * bd;
        if (last) {
            s->slots[k].dout = mlp_alloc(bd);
            act += bd;
        }
    }
    s->out = mlp_alloc(bd);
    s->da = mlp_alloc(bd);
    s->dz = mlp_alloc(bd);
    act += 3 * bd;
    s->ops = xmalloc(2 * (size_t)M * sizeof *s->ops);
    s->grad_started = xcalloc((size_t)s->nl, sizeof *s->grad_started);
    pp_schedule_build(s, c->schedule, st, P, M);
    rs->mem.params = (size_t)s->nl * dd * sizeof(float);
    rs->mem.grads = (size_t)s->nl * dd * sizeof(float);
    rs->mem.optimizer = 2 * (size_t)s->nl * dd * sizeof(float);
    rs->mem.activations = act * sizeof(float);
    return CV_OK;
}

static int pp_tag(const struct rank_state *rs, int dir, int mb)
{
    return (2 * rs->step + dir) * rs->cfg->microbatches + mb;
}

static int pp_forward(struct rank_state *rs, struct pp *s, int mb)
{
    const struct train_config *c = rs->cfg;
    struct comm *cm = rs->comm;
    int D = c->dim, st = rs->rank, P = rs->nranks, b = s->b;
    size_t bd = (size_t)b * D, dd = (size_t)D * D;
    struct pp_slot *sl = &s->slots[mb % s->nslots];
    char label[32];
    const float *in;
    if (st == 0) {
        in = s->data + (size_t)mb * bd;
    } else {
        snprintf(label, sizeof label, "recv act mb%d", mb);
        int rc = cm->ops->recv(cm, st, st - 1, pp_tag(rs, 0, mb), sl->x, bd, label);
        if (rc != CV_OK) return rc;
        in = sl->x;
    }
    double t0 = now_s();
    bool last = st == P - 1;
    for (int j = 0; j < s->nl; j++) {
        const float *xj = j == 0 ? in : sl->x + j * bd;
        float *a = j + 1 < s->nl ? sl->x + (j + 1) * bd : last ? sl->dout : s->out;
        mlp_layer_forward(b, D, D, xj, s->w + j * dd, D, sl->z + j * bd, a, D);
    }
    if (last) /* the output becomes its own loss gradient in place */
        rs->loss_sumsq += mlp_loss_grad(sl->dout, bd, (double)c->batch * D, sl->dout);
    snprintf(label, sizeof label, "F mb%d", mb);
    rank_compute_event(rs, label, t0, mb);
    if (!last) {
        snprintf(label, sizeof label, "send act mb%d", mb);
        return cm->ops->send(cm, st, st + 1, pp_tag(rs, 0, mb), s->out, bd, label);
    }
    return CV_OK;
}

static int pp_backward(struct rank_state *rs, struct pp *s, int mb)
{
    const struct train_config *c = rs->cfg;
    struct comm *cm = rs->comm;
    int D = c->dim, st = rs->rank, P = rs->nranks, b = s->b;
    size_t bd = (size_t)b * D, dd = (size_t)D * D;
    struct pp_slot *sl = &s->slots[mb % s->nslots];
    char label[32];
    float *da;
    if (st == P - 1) {
        da = sl->dout;
    } else {
        snprintf(label, sizeof label, "recv grad mb%d", mb);
        int rc = cm->ops->recv(cm, st, st + 1, pp_tag(rs, 1, mb), s->da, bd, label);
        if (rc != CV_OK) return rc;
        da = s->da;
    }
    double t0 = now_s();
    const float *in0 = st == 0 ? s->data + (size_t)mb * bd : sl->x;
    for (int j = s->nl - 1; j >= 0; j--) {
        const float *xj = j == 0 ? in0 : sl->x + j * bd;
        /* The data needs no gradient; every other input gradient is needed. */
        bool need_dx = j > 0 || st > 0;
        mlp_layer_backward(b, D, D, xj, s->w + j * dd, sl->z + j * bd, da, D, s->dz,
                           s->g + j * dd, s->grad_started[j] ? 1.0f : 0.0f,
                           need_dx ? da : NULL);
        s->grad_started[j] = true;
    }
    snprintf(label, sizeof label, "B mb%d", mb);
    rank_compute_event(rs, label, t0, mb);
    if (st > 0) {
        snprintf(label, sizeof label, "send grad mb%d", mb);
        return cm->ops->send(cm, st, st - 1, pp_tag(rs, 1, mb), da, bd, label);
    }
    return CV_OK;
}

static int pp_step(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    struct pp *s = rs->priv;
    memset(s->grad_started, 0, (size_t)s->nl * sizeof *s->grad_started);
    rs->loss_sumsq = 0;
    for (int i = 0; i < s->nops; i++) {
        int rc =
            s->ops[i].fwd ? pp_forward(rs, s, s->ops[i].mb) : pp_backward(rs, s, s->ops[i].mb);
        if (rc != CV_OK) return rc;
    }
    rs->pipe_end = now_s();
    double t0 = now_s();
    mlp_adamw(&c->adamw, rs->step + 1, s->w, s->g, s->m, s->v, (size_t)s->nl * c->dim * c->dim);
    rank_compute_event(rs, "adamw", t0, -1);
    return CV_OK;
}

static void pp_params(struct rank_state *rs, float *full, double *replica_diff)
{
    struct pp *s = rs->priv;
    size_t dd = (size_t)rs->cfg->dim * rs->cfg->dim;
    (void)replica_diff;
    memcpy(full + (size_t)s->l0 * dd, s->w, (size_t)s->nl * dd * sizeof(float));
}

static void pp_cleanup(struct rank_state *rs)
{
    struct pp *s = rs->priv;
    if (!s) return;
    for (int k = 0; k < s->nslots; k++) {
        free(s->slots[k].x);
        free(s->slots[k].z);
        free(s->slots[k].dout);
    }
    free(s->slots);
    free(s->w);
    free(s->g);
    free(s->m);
    free(s->v);
    free(s->data);
    free(s->out);
    free(s->da);
    free(s->dz);
    free(s->ops);
    free(s->grad_started);
    free(s);
    rs->priv = NULL;
}

const struct scheme_ops scheme_pp = {
    .setup = pp_setup,
    .step = pp_step,
    .params = pp_params,
    .cleanup = pp_cleanup,
};
