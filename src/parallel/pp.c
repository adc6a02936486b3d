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
#include "parallel/schemes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/util.h"

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
    int bwd_done;       /* backward micro-batches finished in this step (for the probe) */
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
    struct dev *dv = rs->dev;
    s->w = dev_alloc(dv, (size_t)s->nl * dd);
    s->g = dev_alloc(dv, (size_t)s->nl * dd);
    s->m = dev_alloc(dv, (size_t)s->nl * dd);
    s->v = dev_alloc(dv, (size_t)s->nl * dd);
    for (int j = 0; j < s->nl; j++)
        dev_init_weight_cols(dv, c->seed, s->l0 + j, D, 0, D, s->w + (size_t)j * dd);
    bool last = st == P - 1;
    size_t act = 0;
    if (st == 0) {
        s->data = dev_alloc(dv, (size_t)c->batch * D);
        dev_init_data_rows(dv, c->seed, c->batch, D, 0, c->batch, s->data);
        act += (size_t)c->batch * D;
    }
    s->slots = xcalloc((size_t)s->nslots, sizeof *s->slots);
    for (int k = 0; k < s->nslots; k++) {
        s->slots[k].x = dev_alloc(dv, (size_t)s->nl * bd);
        s->slots[k].z = dev_alloc(dv, (size_t)s->nl * bd);
        act += 2 * (size_t)s->nl * bd;
        if (last) {
            s->slots[k].dout = dev_alloc(dv, bd);
            act += bd;
        }
    }
    s->out = dev_alloc(dv, bd);
    s->da = dev_alloc(dv, bd);
    s->dz = dev_alloc(dv, bd);
    act += 3 * bd;
    s->ops = xmalloc(2 * (size_t)M * sizeof *s->ops);
    s->grad_started = xcalloc((size_t)s->nl, sizeof *s->grad_started);
    pp_schedule_build(s, c->schedule, st, P, M);
    rs->mem.params = (size_t)s->nl * dd * sizeof(float);
    rs->mem.grads = (size_t)s->nl * dd * sizeof(float);
    rs->mem.optimizer = 2 * (size_t)s->nl * dd * sizeof(float);
    rs->mem.activations = act * sizeof(float);
    /* Sends in flight: at most M activations up and M gradients down, each B/M x D. */
    if (P > 1 && rs->comm->ops->reserve_send)
        return rs->comm->ops->reserve_send(rs->comm, st, bd, 2 * M);
    return CV_OK;
}

static int pp_tag(const struct rank_state *rs, int dir, int mb)
{
    return (2 * rs->step + dir) * rs->cfg->microbatches + mb;
}

/* ---- display-scale probe (probe.h): a no-op unless the run records this step ---- */

static void pp_probe_layers(const struct pp *s, char *buf, size_t n)
{
    if (s->nl == 1)
        snprintf(buf, n, "layer %d", s->l0);
    else
        snprintf(buf, n, "layers %d-%d", s->l0, s->l0 + s->nl - 1);
}

/* Before the step (what the stage holds) or after AdamW (its updated layers). */
static void pp_probe_weights(struct rank_state *rs, const struct pp *s, enum probe_kind kind)
{
    const struct train_config *c = rs->cfg;
    int D = c->dim, st = rs->rank;
    size_t dd = (size_t)D * D;
    char layers[32];
    pp_probe_layers(s, layers, sizeof layers);
    struct probe_rec *pr =
        kind == PROBE_START
            ? probe_begin(rs->probe, rs->step, st, kind, "before the step: stage %d holds %s%s",
                          st, layers,
                          st == 0 ? " and the batch" : "; it waits for micro-batches")
            : probe_begin(rs->probe, rs->step, st, kind,
                          "AdamW: stage %d updates only its own %s with gradients summed "
                          "over the %d micro-batches",
                          st, layers, c->microbatches);
    if (!pr) return;
    for (int j = 0; j < s->nl; j++) {
        char nm[24];
        snprintf(nm, sizeof nm, "W%d", s->l0 + j);
        struct probe_mat *m =
            probe_add(pr, nm, D, D, s->w + j * dd, D,
                      kind == PROBE_START ? PROBE_REF_W : PROBE_REF_WNEW, s->l0 + j, 0, 0);
        if (j == 0) probe_mat_key(m);
    }
    if (kind == PROBE_START && st == 0)
        probe_add(pr, "x0", c->batch, D, s->data, D, PROBE_REF_X, 0, 0, 0);
    probe_commit(rs->probe, pr);
}

/* After a micro-batch's forward (before the last stage turns its output into the loss
 * gradient); the caller commits. */
static struct probe_rec *pp_probe_forward(struct rank_state *rs, const struct pp *s, int mb,
                                          const float *in, const float *out)
{
    const struct train_config *c = rs->cfg;
    int D = c->dim, st = rs->rank, P = rs->nranks, b = s->b;
    bool last = st == P - 1;
    char layers[32], from[32], to[40];
    pp_probe_layers(s, layers, sizeof layers);
    if (st == 0)
        snprintf(from, sizeof from, "read from the batch");
    else
        snprintf(from, sizeof from, "received from stage %d", st - 1);
    if (last)
        snprintf(to, sizeof to, "the loss gradient starts its backward");
    else
        snprintf(to, sizeof to, "sent on to stage %d", st + 1);
    struct probe_rec *pr = probe_begin(rs->probe, rs->step, st, PROBE_COMPUTE,
                                       "forward of micro-batch %d (rows %d-%d) through %s: "
                                       "input %s, output %s",
                                       mb, mb * b, mb * b + b - 1, layers, from, to);
    if (!pr) return NULL;
    pr->fwd = true;
    pr->mb = mb;
    pr->layer = s->l0;
    if (st > 0) {
        pr->recv_from = st - 1;
        pr->recv_tag = pp_tag(rs, 0, mb);
    }
    if (!last) {
        pr->send_to = st + 1;
        pr->send_tag = pp_tag(rs, 0, mb);
    }
    char nm[24];
    snprintf(nm, sizeof nm, "x%d", s->l0);
    probe_add(pr, nm, b, D, in, D, PROBE_REF_X, s->l0, mb * b, 0);
    snprintf(nm, sizeof nm, "x%d", s->l0 + s->nl);
    probe_mat_key(probe_add(pr, nm, b, D, out, D, PROBE_REF_X, s->l0 + s->nl, mb * b, 0));
    return pr;
}

/* Before a micro-batch's backward: the incoming gradient (the buffer is overwritten by the
 * outgoing one). */
static struct probe_rec *pp_probe_backward_begin(struct rank_state *rs, const struct pp *s,
                                                 int mb, const float *dout)
{
    const struct train_config *c = rs->cfg;
    int D = c->dim, st = rs->rank, P = rs->nranks, b = s->b;
    char layers[32], from[40], to[40];
    pp_probe_layers(s, layers, sizeof layers);
    if (st == P - 1)
        snprintf(from, sizeof from, "from the loss");
    else
        snprintf(from, sizeof from, "received from stage %d", st + 1);
    if (st == 0)
        snprintf(to, sizeof to, "the data needs no gradient");
    else
        snprintf(to, sizeof to, "dx%d sent back to stage %d", s->l0, st - 1);
    struct probe_rec *pr = probe_begin(rs->probe, rs->step, st, PROBE_COMPUTE,
                                       "backward of micro-batch %d through %s: gradient %s; "
                                       "weight gradients accumulate; %s",
                                       mb, layers, from, to);
    if (!pr) return NULL;
    pr->mb = mb;
    pr->layer = s->l0;
    if (st < P - 1) {
        pr->recv_from = st + 1;
        pr->recv_tag = pp_tag(rs, 1, mb);
    }
    if (st > 0) {
        pr->send_to = st - 1;
        pr->send_tag = pp_tag(rs, 1, mb);
    }
    char nm[24];
    snprintf(nm, sizeof nm, "dx%d", s->l0 + s->nl);
    probe_add(pr, nm, b, D, dout, D, PROBE_REF_DX, s->l0 + s->nl, mb * b, 0);
    return pr;
}

static void pp_probe_backward_end(struct rank_state *rs, const struct pp *s,
                                  struct probe_rec *pr, int mb, const float *dx)
{
    if (!pr) return;
    const struct train_config *c = rs->cfg;
    int D = c->dim, M = c->microbatches, b = s->b;
    size_t dd = (size_t)D * D;
    /* Summed over the micro-batches so far: the batch's gradient once all M are in. */
    bool done = s->bwd_done == M;
    for (int j = 0; j < s->nl; j++) {
        char nm[24];
        snprintf(nm, sizeof nm, "dW%d (%d/%d)", s->l0 + j, s->bwd_done, M);
        struct probe_mat *m = probe_add(pr, nm, D, D, s->g + j * dd, D,
                                        done ? PROBE_REF_DW : PROBE_REF_NONE, s->l0 + j, 0, 0);
        if (j == 0 && !dx) probe_mat_key(m); /* stage 0 sends nothing back */
    }
    if (dx) {
        char nm[24];
        snprintf(nm, sizeof nm, "dx%d", s->l0);
        /* what the stage sends back: the key of a pipeline frame */
        probe_mat_key(probe_add(pr, nm, b, D, dx, D, PROBE_REF_DX, s->l0, mb * b, 0));
    }
    probe_commit(rs->probe, pr);
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
        dev_layer_forward(rs->dev, b, D, D, xj, s->w + j * dd, D, sl->z + j * bd, a, D);
    }
    struct probe_rec *pr = pp_probe_forward(rs, s, mb, in, last ? sl->dout : s->out);
    if (last) { /* the output becomes its own loss gradient in place */
        double sumsq = 0;
        dev_loss_grad(rs->dev, sl->dout, bd, (double)c->batch * D, sl->dout, &sumsq);
        rs->loss_sumsq += sumsq;
    }
    snprintf(label, sizeof label, "F mb%d", mb);
    rank_compute_event(rs, label, t0, mb);
    if (pr) {
        if (last) {
            char nm[24];
            snprintf(nm, sizeof nm, "dx%d", c->layers);
            probe_add(pr, nm, b, D, sl->dout, D, PROBE_REF_DX, c->layers, mb * b, 0);
        }
        probe_commit(rs->probe, pr);
    }
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
    struct probe_rec *pr = pp_probe_backward_begin(rs, s, mb, da);
    double t0 = now_s();
    const float *in0 = st == 0 ? s->data + (size_t)mb * bd : sl->x;
    for (int j = s->nl - 1; j >= 0; j--) {
        const float *xj = j == 0 ? in0 : sl->x + j * bd;
        /* The data needs no gradient; every other input gradient is needed. */
        bool need_dx = j > 0 || st > 0;
        dev_layer_backward(rs->dev, b, D, D, xj, s->w + j * dd, sl->z + j * bd, da, D, s->dz,
                           s->g + j * dd, s->grad_started[j] ? 1.0f : 0.0f,
                           need_dx ? da : NULL);
        s->grad_started[j] = true;
    }
    snprintf(label, sizeof label, "B mb%d", mb);
    rank_compute_event(rs, label, t0, mb);
    s->bwd_done++;
    pp_probe_backward_end(rs, s, pr, mb, st > 0 ? da : NULL);
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
    s->bwd_done = 0;
    pp_probe_weights(rs, s, PROBE_START);
    for (int i = 0; i < s->nops; i++) {
        int rc =
            s->ops[i].fwd ? pp_forward(rs, s, s->ops[i].mb) : pp_backward(rs, s, s->ops[i].mb);
        if (rc != CV_OK) return rc;
    }
    rs->pipe_end = now_s();
    double t0 = now_s();
    dev_adamw(rs->dev, &c->adamw, rs->step + 1, s->w, s->g, s->m, s->v,
              (size_t)s->nl * c->dim * c->dim);
    rank_compute_event(rs, "adamw", t0, -1);
    pp_probe_weights(rs, s, PROBE_OPTIM);
    return CV_OK;
}

static void pp_params(struct rank_state *rs, float *full, double *replica_diff)
{
    struct pp *s = rs->priv;
    size_t dd = (size_t)rs->cfg->dim * rs->cfg->dim;
    (void)replica_diff;
    rs->dev->ops->download(rs->dev, full + (size_t)s->l0 * dd, s->w, (size_t)s->nl * dd);
}

static void pp_cleanup(struct rank_state *rs)
{
    struct pp *s = rs->priv;
    if (!s) return;
    struct dev *dv = rs->dev;
    for (int k = 0; k < s->nslots; k++) {
        dev_free(dv, s->slots[k].x);
        dev_free(dv, s->slots[k].z);
        dev_free(dv, s->slots[k].dout);
    }
    free(s->slots);
    dev_free(dv, s->w);
    dev_free(dv, s->g);
    dev_free(dv, s->m);
    dev_free(dv, s->v);
    dev_free(dv, s->data);
    dev_free(dv, s->out);
    dev_free(dv, s->da);
    dev_free(dv, s->dz);
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
