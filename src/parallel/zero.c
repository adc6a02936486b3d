/* zero.c - ZeRO stages 1-3 (stage 3 = FSDP's full shard) on one rank of the communicator.
 *
 * Data parallel like ddp.c: rank r trains on rows [r·B/W, (r+1)·B/W) with its loss
 * normalised by its own rows, so the mean of the W gradients is the batch's gradient. What
 * differs is what a rank keeps. Every layer's D² weights are cut into W equal shards of
 * s = ceil(D²/W) elements (the layer padded with zeros to W·s: padding has zero weights
 * and zero gradients, so AdamW leaves it zero); rank r owns shard r of every layer.
 *
 *   stage 1 - full weights and gradients, AdamW state of the own shards only. After
 *             backward, each layer's gradient is reduce-scattered with AVG (rank r gets the
 *             mean of shard r), AdamW updates the own shard, and an all-gather of the
 *             updated shards makes the full weights again.
 *   stage 2 - also the gradients: backward writes a layer's full gradient into one
 *             layer-sized bucket and reduce-scatters it at once into the own gradient
 *             shard; only the shards are kept.
 *   stage 3 - also the weights: only the shards are kept. Before a layer's forward, and
 *             again before its backward, its weights are all-gathered into one layer-sized
 *             slot and released after use. In backward the slot holds the gathered weights
 *             while the input gradient is made, then (weights released) the layer's full
 *             gradient, reduce-scattered at once: one gathered layer live at a time.
 *
 * Reduce-scatter + all-gather move what an all-reduce moves (2(W-1)/W of the buffer), so
 * stages 1 and 2 cost DDP's bytes; stage 3's second all-gather makes it 1.5x.
 *
 * Memory is counted as it is allocated and as buffers go live and are released (struct
 * zmem), so the rank's allocated bytes and its peak are the engine's own count, compared
 * with train_memory_model in tests/unit/test_train_zero.c. */
#include "parallel/schemes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

enum zkind { ZK_PARAMS, ZK_GRADS, ZK_OPT, ZK_ACTS, ZK_COUNT };

/* The rank's buffers by kind: allocated, live now, and live at the high-water mark. */
struct zmem {
    size_t alloc[ZK_COUNT], live[ZK_COUNT], peak[ZK_COUNT];
    size_t peak_total;
};

/* One collective of the step: run at once, or (async) queued on the rank's helper lane
 * (--prefetch) and finished by zop_finish, which waits and records the probe frame. */
struct zop {
    enum coll kind;
    int layer, pslot;
    enum probe_ref ref; /* all-gather: W or WNEW */
    float *out;
    struct comm_req *req;
    bool pending;
};

struct zero {
    int stage, n;  /* n: rows of this rank */
    size_t s, lay; /* shard and padded layer (W·s) elements */
    float *w;      /* stage 1, 2: [L][lay] full weights; stage 3: [L][s] shards */
    float *g;      /* stage 1: [L][lay]; stage 2, 3: [L][s] shards */
    float *m, *v;  /* [L][s] AdamW state of the own shards */
    /* stage 2: slots[0] is the gradient bucket; stage 3: the gathered layers [lay], one,
     * or two with --prefetch (the next layer's gather lands in the other) */
    float *slots[2];
    int nslots;
    bool prefetch;
    struct zop *ops;        /* stage 3: [L] reduce-scatters, then one gather per slot (rc_of) */
    int rc_of;              /* = L */
    float *x, *z, *da, *dz; /* activations as in ddp.c */
    float *scratch;         /* stage 3: [D], see zero_backward_split */
    size_t pad;             /* lay - D²: padding elements at the end of a layer */
    float *zeros;           /* [pad] zeros, written over a gradient's padding */
    struct zmem mem;
};

static void zmem_note_peak(struct zmem *z)
{
    size_t t = 0;
    for (int k = 0; k < ZK_COUNT; k++)
        t += z->live[k];
    if (t > z->peak_total) {
        z->peak_total = t;
        memcpy(z->peak, z->live, sizeof z->peak);
    }
}

/* n floats of kind k; live from now when `live` (else when zmem_take says). */
static float *zalloc(struct zero *s, struct dev *dv, enum zkind k, size_t n, bool live)
{
    s->mem.alloc[k] += n * sizeof(float);
    if (live) {
        s->mem.live[k] += n * sizeof(float);
        zmem_note_peak(&s->mem);
    }
    return dev_alloc(dv, n);
}

/* The stage-3 slot goes live as kind k (gathered weights or a full gradient) / is freed. */
static void zmem_take(struct zmem *z, enum zkind k, size_t n)
{
    z->live[k] += n * sizeof(float);
    zmem_note_peak(z);
}

static void zmem_release(struct zmem *z, enum zkind k, size_t n)
{
    z->live[k] -= n * sizeof(float);
}

static struct train_memory zmem_out(const size_t v[ZK_COUNT])
{
    return (struct train_memory){.params = v[ZK_PARAMS],
                                 .grads = v[ZK_GRADS],
                                 .optimizer = v[ZK_OPT],
                                 .activations = v[ZK_ACTS]};
}

/* Elements of the real layer (not padding) in rank r's shard: s, fewer, or none. */
static size_t zero_own(const struct zero *s, size_t dd, int r)
{
    size_t lo = (size_t)r * s->s;
    return lo >= dd ? 0 : dd - lo < s->s ? dd - lo : s->s;
}

static int zero_setup(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    int L = c->layers, D = c->dim, W = rs->nranks, r = rs->rank;
    struct zero *s = xcalloc(1, sizeof *s);
    rs->priv = s;
    s->stage = train_zero_stage(c->scheme);
    s->n = c->batch / W;
    size_t dd = (size_t)D * D, nd = (size_t)s->n * D;
    s->s = (dd + (size_t)W - 1) / (size_t)W;
    s->lay = (size_t)W * s->s;
    struct dev *dv = rs->dev;
    size_t full = (size_t)L * s->lay, shards = (size_t)L * s->s;
    s->w = zalloc(s, dv, ZK_PARAMS, s->stage == 3 ? shards : full, true);
    s->g = zalloc(s, dv, ZK_GRADS, s->stage == 1 ? full : shards, true);
    s->m = zalloc(s, dv, ZK_OPT, shards, true);
    s->v = zalloc(s, dv, ZK_OPT, shards, true);
    /* Stage 2's bucket is always in use; stage 3's slots only while a layer is gathered. */
    s->prefetch = s->stage == 3 && c->prefetch;
    s->nslots = s->prefetch ? 2 : 1;
    if (s->stage == 2) s->slots[0] = zalloc(s, dv, ZK_GRADS, s->lay, true);
    for (int k = 0; s->stage == 3 && k < s->nslots; k++)
        s->slots[k] = zalloc(s, dv, ZK_PARAMS, s->lay, false);
    s->rc_of = L;
    s->ops = xcalloc((size_t)L + 2, sizeof *s->ops);
    if (s->prefetch && !rs->comm->ops->icollective)
        return cv_err(rs->err, sizeof rs->err, CV_EUNSUPPORTED,
                      "--prefetch: the %s communicator has no helper lane",
                      rs->comm->ops->name);
    s->x = zalloc(s, dv, ZK_ACTS, (size_t)(L + 1) * nd, true);
    s->z = zalloc(s, dv, ZK_ACTS, (size_t)L * nd, true);
    s->da = zalloc(s, dv, ZK_ACTS, nd, true);
    s->dz = zalloc(s, dv, ZK_ACTS, nd, true);
    if (s->stage == 3) s->scratch = zalloc(s, dv, ZK_ACTS, (size_t)D, true);
    s->pad = s->lay - dd;
    if (s->pad) s->zeros = zalloc(s, dv, ZK_ACTS, s->pad, true);

    /* The full layer is generated and the rank keeps what its stage keeps: the same
     * numbers as every other scheme's. */
    float *tmp = dev_alloc(dv, s->lay);
    size_t own = zero_own(s, dd, r);
    for (int l = 0; l < L; l++) {
        if (s->stage == 3) {
            dev_init_weight_cols(dv, c->seed, l, D, 0, D, tmp);
            if (own)
                dev_copy_rows(dv, s->w + (size_t)l * s->s, (int)s->s, tmp + (size_t)r * s->s,
                              (int)s->s, 1, (int)own);
        } else {
            dev_init_weight_cols(dv, c->seed, l, D, 0, D, s->w + (size_t)l * s->lay);
        }
    }
    dev_free(dv, tmp);
    dev_init_data_rows(dv, c->seed, c->batch, D, r * s->n, s->n, s->x);
    rs->mem = zmem_out(s->mem.alloc);
    return CV_OK;
}

/* ---- display-scale probe (probe.h): a no-op unless the run records this step ---- */

/* Shard r of layer l is rows [r·D/W, (r+1)·D/W) of W_l when W divides D (the display
 * configurations): the probe shows it as that block. */
static void zprobe_shard(struct probe_rec *pr, const char *base, int l, int r, int W, int D,
                         const float *v, enum probe_ref ref)
{
    int rows = D / W;
    char nm[24];
    snprintf(nm, sizeof nm, "%s%d[%d:%d,:]", base, l, r * rows, r * rows + rows);
    probe_add(pr, nm, rows, D, v, D, ref, l, r * rows, 0);
}

static void zprobe_start(struct rank_state *rs, const struct zero *s)
{
    int L = rs->cfg->layers, D = rs->cfg->dim, W = rs->nranks, r = rs->rank;
    struct probe_rec *pr =
        s->stage == 3
            ? probe_begin(rs->probe, rs->step, r, PROBE_START,
                          "before the step: rank r holds only shard r (1/%d) of every layer's "
                          "weights, its gradient shard and AdamW state; its own %d rows",
                          W, s->n)
            : probe_begin(rs->probe, rs->step, r, PROBE_START,
                          "before the step: every rank holds all %d layers%s, but AdamW "
                          "state for its own shard (1/%d) only; its own %d rows",
                          L, s->stage == 2 ? " (gradients: its shard only)" : "", W, s->n);
    if (!pr) return;
    char nm[24];
    for (int l = 0; l < L; l++) {
        if (s->stage == 3) {
            zprobe_shard(pr, "W", l, r, W, D, s->w + (size_t)l * s->s, PROBE_REF_W);
        } else {
            snprintf(nm, sizeof nm, "W%d", l);
            probe_add(pr, nm, D, D, s->w + (size_t)l * s->lay, D, PROBE_REF_W, l, 0, 0);
        }
    }
    probe_mat_key(probe_add(pr, "x0", s->n, D, s->x, D, PROBE_REF_X, 0, r * s->n, 0));
    probe_commit(rs->probe, pr);
}

static void zprobe_forward(struct rank_state *rs, const struct zero *s, int l, const float *wl)
{
    int D = rs->cfg->dim, n = s->n, r = rs->rank;
    size_t nd = (size_t)n * D;
    struct probe_rec *pr = probe_begin(
        rs->probe, rs->step, r, PROBE_COMPUTE,
        s->stage == 3 ? "layer %d forward on each rank's own %d rows with the gathered W%d, "
                        "which is freed right after"
                      : "layer %d forward on each rank's own %d rows with its full W%d",
        l, n, l);
    if (!pr) return;
    pr->layer = l;
    pr->fwd = true;
    char nm[24];
    snprintf(nm, sizeof nm, "x%d", l);
    probe_add(pr, nm, n, D, s->x + l * nd, D, PROBE_REF_X, l, r * n, 0);
    snprintf(nm, sizeof nm, "W%d", l);
    probe_add(pr, nm, D, D, wl, D, PROBE_REF_W, l, 0, 0);
    snprintf(nm, sizeof nm, "x%d", l + 1);
    probe_mat_key(
        probe_add(pr, nm, n, D, s->x + (l + 1) * nd, D, PROBE_REF_X, l + 1, r * n, 0));
    probe_commit(rs->probe, pr);
}

static void zprobe_backward(struct rank_state *rs, const struct zero *s, int l, const float *gl)
{
    int D = rs->cfg->dim, n = s->n, r = rs->rank;
    struct probe_rec *pr = probe_begin(rs->probe, rs->step, r, PROBE_COMPUTE,
                                       "layer %d backward: each rank gets the full dW%d from "
                                       "its own %d rows only, so the ranks' dW%d differ",
                                       l, l, n, l);
    if (!pr) return;
    pr->layer = l;
    char nm[24];
    snprintf(nm, sizeof nm, "dW%d", l);
    probe_mat_key(probe_add(pr, nm, D, D, gl, D, PROBE_REF_NONE, l, 0, 0));
    if (l > 0) {
        snprintf(nm, sizeof nm, "dx%d", l);
        probe_add(pr, nm, n, D, s->da, D, PROBE_REF_NONE, l, r * n, 0);
    }
    probe_commit(rs->probe, pr);
}

/* ---- the collectives, each with its probe record ---- */

static int zop_finish(struct rank_state *rs, struct zero *s, struct zop *o)
{
    if (!o->pending) return CV_OK;
    o->pending = false;
    int rc = CV_OK;
    if (o->req) rc = rs->comm->ops->wait(rs->comm, rs->rank, o->req);
    o->req = NULL;
    if (rc != CV_OK) return rc;
    int D = rs->cfg->dim, l = o->layer;
    bool ag = o->kind == COLL_ALL_GATHER;
    struct probe_rec *pr =
        probe_coll_end(rs->probe, rs->step, rs->rank, o->pslot, o->out, ag ? s->lay : s->s);
    if (!pr) return CV_OK;
    pr->layer = l;
    char nm[24];
    snprintf(nm, sizeof nm, "W%d", l);
    if (ag)
        probe_mat_key(probe_add(pr, nm, D, D, o->out, D, o->ref, l, 0, 0));
    else {
        zprobe_shard(pr, "dW", l, rs->rank, rs->nranks, D, o->out, PROBE_REF_DW);
        probe_mat_key(&pr->mats[pr->nmats - 1]);
    }
    probe_commit(rs->probe, pr);
    return CV_OK;
}

/* All-gather layer l's shards (mine: this rank's, in place or not) into full, or
 * reduce-scatter its full gradient `mine` (averaged) into this rank's shard `full`. */
static int zop_start(struct rank_state *rs, struct zero *s, enum coll kind, int l,
                     const float *mine, float *full, const char *why, enum probe_ref ref,
                     bool async, struct zop *o)
{
    struct comm *cm = rs->comm;
    int D = rs->cfg->dim, W = rs->nranks, r = rs->rank;
    bool ag = kind == COLL_ALL_GATHER;
    *o = (struct zop){.kind = kind, .layer = l, .pslot = -1, .ref = ref, .out = full};
    char label[32], lab[160];
    snprintf(label, sizeof label, ag ? "all-gather W%d" : "reduce-scatter dW%d", l);
    if (rs->probe) {
        if (ag)
            snprintf(lab, sizeof lab,
                     "all-gather W%d %s%s: every rank sends its shard and receives the "
                     "others', rebuilding the full W%d",
                     l, why, async ? " (prefetched)" : "", l);
        else
            snprintf(lab, sizeof lab,
                     "reduce-scatter dW%d with AVG%s: each rank keeps only its shard, the "
                     "mean of the %d ranks' gradients there",
                     l, async ? " (on the helper lane)" : "", W);
        o->pslot = probe_coll_begin(rs->probe, rs->step, r, kind, ag ? OP_SUM : OP_AVG, s->s,
                                    mine, ag ? s->s : s->lay, D, D, D, async, lab);
    }
    /* A reduce-scatter leaves its input buffer unspecified, and backward writes only the
     * D² real elements of a layer: clear the padding, so what is summed there is zero
     * (not the last collective's leftovers) and the padded weights stay zero. */
    if (!ag && s->pad)
        dev_copy_rows(rs->dev, (float *)mine + (s->lay - s->pad), (int)s->pad, s->zeros,
                      (int)s->pad, 1, (int)s->pad);
    int rc;
    if (async)
        rc = cm->ops->icollective(cm, r, kind, mine, full, s->s, ag ? OP_SUM : OP_AVG, label,
                                  &o->req);
    else if (ag)
        rc = cm->ops->all_gather(cm, r, mine, full, s->s, label);
    else
        rc = cm->ops->reduce_scatter(cm, r, (float *)mine, full, s->s, OP_AVG, label);
    if (rc != CV_OK) return rc;
    o->pending = true;
    return async ? CV_OK : zop_finish(rs, s, o);
}

static int zero_gather(struct rank_state *rs, struct zero *s, int l, const float *mine,
                       float *full, const char *why, enum probe_ref ref)
{
    struct zop o;
    return zop_start(rs, s, COLL_ALL_GATHER, l, mine, full, why, ref, false, &o);
}

static int zero_scatter(struct rank_state *rs, struct zero *s, int l, float *full, float *out)
{
    struct zop o;
    return zop_start(rs, s, COLL_REDUCE_SCATTER, l, full, out, "", PROBE_REF_NONE, false, &o);
}

/* ---- the step ---- */

/* Stage 3's backward of layer l in the order that needs one gathered layer at a time:
 * dz = da ⊙ gelu'(z) (the device's layer backward, run with a 1-wide input so its own
 * weight gradient is a D-float scratch), dx = dz W^T while the gathered weights are live,
 * then - weights released - the full dW = x^T dz into the same slot. The same products
 * as mlp_layer_backward, in another order. */
static void zero_backward_split(struct rank_state *rs, struct zero *s, int l, float *slot)
{
    int D = rs->cfg->dim, n = s->n;
    size_t nd = (size_t)n * D;
    struct dev *dv = rs->dev;
    dev_layer_backward(dv, n, 1, D, s->dz, slot, s->z + l * nd, s->da, D, s->dz, s->scratch,
                       0.0f, NULL);
    if (l > 0) dev_gemm(dv, false, true, n, D, D, s->dz, D, slot, D, 0.0f, s->da, D);
    zmem_release(&s->mem, ZK_PARAMS, s->lay);
    zmem_take(&s->mem, ZK_GRADS, s->lay);
    dev_gemm(dv, true, false, D, D, n, s->x + l * nd, D, s->dz, D, 0.0f, slot, D);
}

/* Wait for every collective still queued (after a failure: so none is left writing into
 * our buffers); the first error wins. */
static int zero_drain(struct rank_state *rs, struct zero *s, int rc)
{
    for (int i = 0; i < rs->cfg->layers + 2; i++) {
        int wrc = zop_finish(rs, s, &s->ops[i]);
        if (rc == CV_OK) rc = wrc;
    }
    return rc;
}

/* Stage 3 gathers layer l into slot l mod nslots: at once before use, or (--prefetch, two
 * slots) queued on the helper lane one layer ahead, so it runs during the layer before. */
static int zero3_gather(struct rank_state *rs, struct zero *s, int l, const char *why)
{
    zmem_take(&s->mem, ZK_PARAMS, s->lay);
    return zop_start(rs, s, COLL_ALL_GATHER, l, s->w + (size_t)l * s->s,
                     s->slots[l % s->nslots], why, PROBE_REF_W, s->prefetch,
                     &s->ops[s->rc_of + l % s->nslots]);
}

static int zero3_forward(struct rank_state *rs, struct zero *s)
{
    int L = rs->cfg->layers, D = rs->cfg->dim, n = s->n;
    size_t nd = (size_t)n * D;
    char label[32];
    int rc = s->prefetch ? zero3_gather(rs, s, 0, "for forward") : CV_OK;
    for (int l = 0; l < L && rc == CV_OK; l++) {
        if (!s->prefetch)
            rc = zero3_gather(rs, s, l, "for forward");
        else if (l + 1 < L)
            rc = zero3_gather(rs, s, l + 1, "for forward");
        if (rc == CV_OK) rc = zop_finish(rs, s, &s->ops[s->rc_of + l % s->nslots]);
        if (rc != CV_OK) break;
        const float *wl = s->slots[l % s->nslots];
        double t0 = now_s();
        dev_layer_forward(rs->dev, n, D, D, s->x + l * nd, wl, D, s->z + l * nd,
                          s->x + (l + 1) * nd, D);
        snprintf(label, sizeof label, "fwd L%d", l);
        rank_compute_event(rs, label, t0, -1);
        zprobe_forward(rs, s, l, wl);
        zmem_release(&s->mem, ZK_PARAMS, s->lay);
    }
    return zero_drain(rs, s, rc);
}

/* Backward: gather, input gradient, the layer's full gradient into the same slot, its
 * reduce-scatter. With --prefetch the reduce-scatter is queued too, and the next gather
 * goes into the other slot behind it (the helper runs requests in issue order, so the
 * reduce-scatter has read the slot before the gather writes it). */
static int zero3_backward(struct rank_state *rs, struct zero *s)
{
    int L = rs->cfg->layers;
    char label[32];
    int grads_live = 0;
    int rc = s->prefetch ? zero3_gather(rs, s, L - 1, "for backward") : CV_OK;
    for (int l = L - 1; l >= 0 && rc == CV_OK; l--) {
        float *slot = s->slots[l % s->nslots];
        if (!s->prefetch) {
            rc = zero3_gather(rs, s, l, "for backward");
        } else if (l > 0) {
            if (l + 1 < L) { /* the other slot's gradient is scattered before it is reused */
                zmem_release(&s->mem, ZK_GRADS, s->lay);
                grads_live--;
            }
            rc = zero3_gather(rs, s, l - 1, "for backward");
        }
        if (rc == CV_OK) rc = zop_finish(rs, s, &s->ops[s->rc_of + l % s->nslots]);
        if (rc != CV_OK) break;
        double t0 = now_s();
        zero_backward_split(rs, s, l, slot);
        grads_live++;
        snprintf(label, sizeof label, "bwd L%d", l);
        rank_compute_event(rs, label, t0, -1);
        zprobe_backward(rs, s, l, slot);
        rc = zop_start(rs, s, COLL_REDUCE_SCATTER, l, slot, s->g + (size_t)l * s->s, "",
                       PROBE_REF_NONE, s->prefetch, &s->ops[l]);
        if (!s->prefetch) {
            zmem_release(&s->mem, ZK_GRADS, s->lay);
            grads_live--;
        }
    }
    rc = zero_drain(rs, s, rc);
    for (; grads_live > 0; grads_live--)
        zmem_release(&s->mem, ZK_GRADS, s->lay);
    return rc;
}

static int zero_forward(struct rank_state *rs, struct zero *s)
{
    int L = rs->cfg->layers, D = rs->cfg->dim, n = s->n;
    size_t nd = (size_t)n * D;
    char label[32];
    if (s->stage == 3) return zero3_forward(rs, s);
    for (int l = 0; l < L; l++) {
        const float *wl = s->w + (size_t)l * s->lay;
        double t0 = now_s();
        dev_layer_forward(rs->dev, n, D, D, s->x + l * nd, wl, D, s->z + l * nd,
                          s->x + (l + 1) * nd, D);
        snprintf(label, sizeof label, "fwd L%d", l);
        rank_compute_event(rs, label, t0, -1);
        zprobe_forward(rs, s, l, wl);
    }
    return CV_OK;
}

/* Stages 1 and 2 (stage 3: zero3_backward). */
static int zero_backward(struct rank_state *rs, struct zero *s)
{
    int L = rs->cfg->layers, D = rs->cfg->dim, n = s->n, r = rs->rank;
    size_t nd = (size_t)n * D;
    char label[32];
    if (s->stage == 3) return zero3_backward(rs, s);
    for (int l = L - 1; l >= 0; l--) {
        double t0 = now_s();
        float *gl = s->stage == 1 ? s->g + (size_t)l * s->lay : s->slots[0];
        dev_layer_backward(rs->dev, n, D, D, s->x + l * nd, s->w + (size_t)l * s->lay,
                           s->z + l * nd, s->da, D, s->dz, gl, 0.0f, l > 0 ? s->da : NULL);
        snprintf(label, sizeof label, "bwd L%d", l);
        rank_compute_event(rs, label, t0, -1);
        zprobe_backward(rs, s, l, gl);
        if (s->stage == 1) continue; /* stage 1 reduce-scatters after backward */
        int rc = zero_scatter(rs, s, l, gl, s->g + (size_t)l * s->s);
        if (rc != CV_OK) return rc;
    }
    for (int l = 0; s->stage == 1 && l < L; l++) {
        float *gl = s->g + (size_t)l * s->lay;
        int rc = zero_scatter(rs, s, l, gl, gl + (size_t)r * s->s);
        if (rc != CV_OK) return rc;
    }
    return CV_OK;
}

static int zero_step(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    struct zero *s = rs->priv;
    int L = c->layers, D = c->dim, n = s->n, W = rs->nranks, r = rs->rank;
    size_t nd = (size_t)n * D;

    zprobe_start(rs, s);
    int rc = zero_forward(rs, s);
    if (rc != CV_OK) return rc;
    double t0 = now_s();
    dev_loss_grad(rs->dev, s->x + L * nd, nd, (double)nd, s->da, &rs->loss_sumsq);
    rank_compute_event(rs, "loss", t0, -1);
    struct probe_rec *lr = probe_begin(rs->probe, rs->step, r, PROBE_COMPUTE,
                                       "loss: mean of x%d squared over each rank's %d rows; "
                                       "the gradient dx%d = 2*x%d/(%d*%d) starts backward",
                                       L, n, L, L, n, D);
    if (lr) {
        char nm[24];
        snprintf(nm, sizeof nm, "x%d", L);
        probe_add(lr, nm, n, D, s->x + L * nd, D, PROBE_REF_X, L, r * n, 0);
        snprintf(nm, sizeof nm, "dx%d", L); /* by this rank's rows: not yet the batch's */
        probe_mat_key(probe_add(lr, nm, n, D, s->da, D, PROBE_REF_NONE, L, r * n, 0));
        probe_commit(rs->probe, lr);
    }
    if ((rc = zero_backward(rs, s)) != CV_OK) return rc;

    /* AdamW on the own shards (elementwise, so shard by shard is the whole update). */
    t0 = now_s();
    for (int l = 0; l < L; l++) {
        size_t wo = s->stage == 3 ? (size_t)l * s->s : (size_t)l * s->lay + (size_t)r * s->s;
        size_t go = s->stage == 1 ? (size_t)l * s->lay + (size_t)r * s->s : (size_t)l * s->s;
        dev_adamw(rs->dev, &c->adamw, rs->step + 1, s->w + wo, s->g + go, s->m + l * s->s,
                  s->v + l * s->s, s->s);
    }
    rank_compute_event(rs, "adamw", t0, -1);
    struct probe_rec *pr =
        probe_begin(rs->probe, rs->step, r, PROBE_OPTIM,
                    "AdamW on each rank's own shard only, with the optimizer state only it "
                    "keeps: 1/%d of the update each%s",
                    W, s->stage == 3 ? "" : "; an all-gather then shares the new weights");
    for (int l = 0; pr && l < L; l++) {
        size_t wo = s->stage == 3 ? (size_t)l * s->s : (size_t)l * s->lay + (size_t)r * s->s;
        zprobe_shard(pr, "W", l, r, W, D, s->w + wo, PROBE_REF_WNEW);
        if (l == 0) probe_mat_key(&pr->mats[pr->nmats - 1]);
    }
    probe_commit(rs->probe, pr);
    /* Stages 1 and 2 keep full weights: gather the updated shards (in place). */
    for (int l = 0; s->stage < 3 && l < L; l++) {
        float *wl = s->w + (size_t)l * s->lay;
        if ((rc = zero_gather(rs, s, l, wl + (size_t)r * s->s, wl, "after AdamW",
                              PROBE_REF_WNEW)) != CV_OK)
            return rc;
    }
    rs->mem_peak = zmem_out(s->mem.peak);
    return CV_OK;
}

static void zero_params(struct rank_state *rs, float *full, double *replica_diff)
{
    struct zero *s = rs->priv;
    int L = rs->cfg->layers, D = rs->cfg->dim, r = rs->rank;
    size_t dd = (size_t)D * D;
    if (s->stage == 3) {
        /* Each rank writes its own shards; the rest of a layer is the others'. */
        const float *w = dev_host_view(rs->dev, s->w, (size_t)L * s->s);
        size_t own = zero_own(s, dd, r);
        for (int l = 0; l < L && own; l++)
            memcpy(full + (size_t)l * dd + (size_t)r * s->s, w + (size_t)l * s->s,
                   own * sizeof(float));
        dev_host_view_done(rs->dev, w, s->w);
        return;
    }
    /* Stages 1, 2: replicas, compared with rank 0's as DDP's are. */
    const float *w = dev_host_view(rs->dev, s->w, (size_t)L * s->lay);
    for (int l = 0; l < L; l++)
        scheme_replica_fold(w + (size_t)l * s->lay, full + (size_t)l * dd, dd, r == 0,
                            replica_diff);
    dev_host_view_done(rs->dev, w, s->w);
}

static void zero_cleanup(struct rank_state *rs)
{
    struct zero *s = rs->priv;
    if (!s) return;
    struct dev *dv = rs->dev;
    float *bufs[] = {s->w, s->g, s->m,  s->v,  s->slots[0], s->slots[1],
                     s->x, s->z, s->da, s->dz, s->scratch,  s->zeros};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        dev_free(dv, bufs[i]);
    free(s->ops);
    free(s);
    rs->priv = NULL;
}

const struct scheme_ops scheme_zero = {
    .setup = zero_setup,
    .step = zero_step,
    .params = zero_params,
    .cleanup = zero_cleanup,
};
