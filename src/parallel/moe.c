/* moe.c - mixture of experts trained expert parallel on one rank of the communicator, and
 * its single-device reference (moe.h describes the model).
 *
 * Rank r takes rows [r·n, (r+1)·n) of the batch (n = B/W), holds every dense layer and
 * router (data parallel: their gradients are all-reduced) and experts [r·E/W, (r+1)·E/W)
 * of every block (expert parallel: only this rank's tokens' gradients reach them, so they
 * need no reduction). The loss is normalised by the whole batch (B·D), so the SUM of the
 * ranks' dense gradients is the batch's gradient.
 *
 * One MoE layer, forward: the router picks each token's top-k experts (moe_route, with
 * the capacity counted over this rank's n tokens); the kept (token, expert) pairs are
 * packed by destination rank, then expert, then token (a 0/1 matrix product, exact); the
 * counts are exchanged first (an all-to-all of E/W numbers per pair), since a rank cannot
 * know what it will receive; then the tokens (an all-to-all-v: uneven blocks, pairwise
 * in the order of plan_build_a2av, a block of 0 sends nothing); each expert runs on the
 * rows it received; the results go back by the reverse all-to-all-v (combine) and are
 * added to the residual weighted by the gates (a product with the gate matrix). Backward
 * runs the two exchanges the other way round: the outputs' gradients go to the experts
 * (as the dispatch did), the inputs' gradients come back (as the combine did). */
#include "parallel/moe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/util.h"
#include "parallel/schemes.h"

int moe_expert_stream(int layer, int experts, int e)
{
    return 0x200000 + layer * experts + e;
}

void moe_init_expert(uint64_t seed, int layer, int experts, int e, int dim, float *w)
{
    mlp_init_weights(seed, moe_expert_stream(layer, experts, e), dim, w);
}

void moe_init_router(uint64_t seed, int layer, int dim, int experts, float *r)
{
    struct mlp_rng g;
    mlp_rng_seed(&g, seed, 0x300000u + (uint64_t)layer);
    double sc = 1.0 / sqrt((double)dim);
    for (size_t i = 0; i < (size_t)dim * experts; i++)
        r[i] = (float)(mlp_rng_normal(&g) * sc);
}

size_t moe_route(const float *logits, int n, int E, int K, int cap, float *probs, int *top,
                 float *gate, unsigned char *kept, size_t *routed, size_t *kept_n)
{
    for (int t = 0; t < n; t++) {
        const float *lg = logits + (size_t)t * E;
        float *p = probs + (size_t)t * E;
        double mx = lg[0], sum = 0;
        for (int e = 1; e < E; e++)
            if (lg[e] > mx) mx = lg[e];
        for (int e = 0; e < E; e++)
            sum += exp((double)lg[e] - mx);
        for (int e = 0; e < E; e++)
            p[e] = (float)(exp((double)lg[e] - mx) / sum);
        for (int k = 0; k < K; k++) { /* the k-th largest not yet taken */
            int best = -1;
            for (int e = 0; e < E; e++) {
                bool taken = false;
                for (int j = 0; j < k; j++)
                    taken |= top[(size_t)t * K + j] == e;
                if (!taken && (best < 0 || p[e] > p[best])) best = e;
            }
            top[(size_t)t * K + k] = best;
            gate[(size_t)t * K + k] = p[best];
            routed[best]++;
        }
    }
    size_t *load = xcalloc((size_t)E, sizeof *load), dropped = 0;
    for (int k = 0; k < K; k++)
        for (int t = 0; t < n; t++) {
            int e = top[(size_t)t * K + k];
            bool ok = cap == 0 || load[e] < (size_t)cap;
            kept[(size_t)t * K + k] = ok;
            if (ok) {
                load[e]++;
                kept_n[e]++;
            } else {
                dropped++;
            }
        }
    free(load);
    return dropped;
}

/* d logits of a softmax from d probs: p ⊙ (dp - Σ p·dp), one row of E. */
static void softmax_backward(const float *p, const double *dp, int E, float *dlog)
{
    double dot = 0;
    for (int e = 0; e < E; e++)
        dot += (double)p[e] * dp[e];
    for (int e = 0; e < E; e++)
        dlog[e] = (float)((double)p[e] * (dp[e] - dot));
}

/* ---- the expert-parallel scheme ---- */

struct moe_blk {           /* one block's routing and exchange, kept for its backward */
    float *probs, *gate;   /* host [n][E], [n][K] */
    int *top, *slot;       /* host [n][K]; slot: row in the packed send buffer or -1 */
    unsigned char *kept;   /* host [n][K] */
    size_t *srows, *rrows; /* host [W]: rows sent to / received from each rank */
    size_t *rcnt;          /* host [W][El]: rows from rank s for local expert j */
    size_t S;              /* rows sent in all (kept assignments of this rank's tokens) */
};

struct moe {
    int n, E, K, El, cap, S, R; /* S = n·K, R = W·n·min(K, El): the largest exchanges */
    float *w, *gw, *mw, *vw;    /* dense [L][D][D] */
    float *r, *gr, *mr, *vr;    /* routers [L][D][E] */
    float *e, *ge, *me, *ve;    /* this rank's experts [L][El][D][D] */
    float *x, *h, *z;           /* x [L+1][n][D], h and gelu' z [L][n][D] */
    float *P, *G;               /* [L][S][n] dispatch (0/1), [L][n][S] gates */
    float *back;                /* [L][S][D] the experts' results, returned */
    float *ein, *ez, *eout;     /* [L][R][D] received tokens, gelu', expert outputs */
    float *logits, *sendb, *da, *dh, *dz, *dback, *dsend, *deout, *dein, *mm, *dlog;
    float *cnt_s, *cnt_r, *zero; /* [W][El] counts out and in; [D][D] zeros */
    float *hostmat;              /* host scratch for P, G: max(S·n, n·S) */
    /* NCCL: [send W·c | receive W·c], c = ceil(max(S, R)·D / W), the working buffer of
     * the communicator's all-to-all-v (NULL elsewhere) */
    float *stage;
    size_t stage_count;
    struct moe_blk *blk; /* [L] */
};

static void moe_alloc_blocks(struct moe *s, int L, int W)
{
    s->blk = xcalloc((size_t)L, sizeof *s->blk);
    for (int l = 0; l < L; l++) {
        struct moe_blk *b = &s->blk[l];
        b->probs = xcalloc((size_t)s->n * s->E, sizeof(float));
        b->gate = xcalloc((size_t)s->S, sizeof(float));
        b->top = xcalloc((size_t)s->S, sizeof(int));
        b->slot = xcalloc((size_t)s->S, sizeof(int));
        b->kept = xcalloc((size_t)s->S, 1);
        b->srows = xcalloc((size_t)W, sizeof(size_t));
        b->rrows = xcalloc((size_t)W, sizeof(size_t));
        b->rcnt = xcalloc((size_t)W * s->El, sizeof(size_t));
    }
}

static void moe_init_params(struct rank_state *rs, struct moe *s)
{
    const struct train_config *c = rs->cfg;
    int L = c->layers, D = c->dim, E = s->E;
    size_t dd = (size_t)D * D, de = (size_t)D * E;
    struct dev *dv = rs->dev;
    float *hr = xmalloc(de * sizeof(float));
    for (int l = 0; l < L; l++) {
        dev_init_weight_cols(dv, c->seed, l, D, 0, D, s->w + l * dd);
        moe_init_router(c->seed, l, D, E, hr);
        dv->ops->upload(dv, s->r + l * de, hr, de);
        for (int j = 0; j < s->El; j++)
            dev_init_weight_cols(dv, c->seed, moe_expert_stream(l, E, rs->rank * s->El + j), D,
                                 0, D, s->e + ((size_t)l * s->El + j) * dd);
    }
    free(hr);
}

static int moe_setup(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    int L = c->layers, D = c->dim, W = rs->nranks;
    struct moe *s = xcalloc(1, sizeof *s);
    rs->priv = s;
    s->n = c->batch / W;
    s->E = c->experts;
    s->K = c->topk;
    s->El = c->experts / W;
    s->cap = train_moe_capacity(c, s->n);
    s->S = s->n * s->K;
    s->R = W * s->n * (s->K < s->El ? s->K : s->El);
    size_t dd = (size_t)D * D, de = (size_t)D * s->E, nd = (size_t)s->n * D;
    size_t ed = (size_t)L * s->El * dd, sd = (size_t)s->S * D, rd = (size_t)s->R * D;
    struct dev *dv = rs->dev;
    float **par[] = {&s->w, &s->gw, &s->mw, &s->vw};
    for (int i = 0; i < 4; i++)
        *par[i] = dev_alloc(dv, (size_t)L * dd);
    float **rou[] = {&s->r, &s->gr, &s->mr, &s->vr};
    for (int i = 0; i < 4; i++)
        *rou[i] = dev_alloc(dv, (size_t)L * de);
    float **exs[] = {&s->e, &s->ge, &s->me, &s->ve};
    for (int i = 0; i < 4; i++)
        *exs[i] = dev_alloc(dv, ed);
    s->x = dev_alloc(dv, (size_t)(L + 1) * nd);
    s->h = dev_alloc(dv, (size_t)L * nd);
    s->z = dev_alloc(dv, (size_t)L * nd);
    s->P = dev_alloc(dv, (size_t)L * s->S * s->n);
    s->G = dev_alloc(dv, (size_t)L * s->S * s->n);
    s->back = dev_alloc(dv, (size_t)L * sd);
    s->ein = dev_alloc(dv, (size_t)L * rd);
    s->ez = dev_alloc(dv, (size_t)L * rd);
    s->eout = dev_alloc(dv, (size_t)L * rd);
    size_t zr = (size_t)(s->R > s->n ? s->R : s->n) * D;
    s->logits = dev_alloc(dv, (size_t)s->n * s->E);
    s->dlog = dev_alloc(dv, (size_t)s->n * s->E);
    s->sendb = dev_alloc(dv, sd);
    s->da = dev_alloc(dv, nd);
    s->dh = dev_alloc(dv, nd);
    s->dz = dev_alloc(dv, zr);
    s->dback = dev_alloc(dv, sd);
    s->dsend = dev_alloc(dv, sd);
    s->deout = dev_alloc(dv, rd);
    s->dein = dev_alloc(dv, rd);
    s->mm = dev_alloc(dv, (size_t)s->n * s->S);
    s->cnt_s = dev_alloc(dv, (size_t)W * s->El);
    s->cnt_r = dev_alloc(dv, (size_t)W * s->El);
    s->zero = dev_alloc(dv, dd);
    s->hostmat = xcalloc((size_t)s->S * s->n, sizeof(float));
    size_t stage = 0;
    if (backend_kind_caps(c->backend) & BACKEND_CAP_GPU) {
        size_t most = (size_t)(s->S > s->R ? s->S : s->R) * D;
        s->stage_count = (most + W - 1) / W;
        stage = 2 * W * s->stage_count;
        s->stage = dev_alloc(dv, stage);
    }
    moe_alloc_blocks(s, L, W);
    moe_init_params(rs, s);
    dev_init_data_rows(dv, c->seed, c->batch, D, rs->rank * s->n, s->n, s->x);
    rs->mem.params = ((size_t)L * (dd + de) + ed) * sizeof(float);
    rs->mem.grads = rs->mem.params;
    rs->mem.optimizer = 2 * rs->mem.params;
    rs->mem.activations = ((size_t)(3 * L + 1 + 2) * nd + (size_t)L * sd + 3 * (size_t)L * rd +
                           2 * (size_t)L * s->S * s->n + stage) *
                          sizeof(float);
    rs->mem.comm = 0;
    return CV_OK;
}

/* moe_a2av on NCCL, whose point-to-point connects neighbours only: the communicator's
 * all-to-all-v (one group of ncclSend/ncclRecv per rank, backend/nccl/nccl_comm.c) at the
 * packed offsets of a plan holding this rank's row and column of the counts, through the stage
 * buffer. */
static int moe_a2av_nccl(struct rank_state *rs, const float *send, const size_t *srows,
                         float *recv, const size_t *rrows, int cols, const char *label,
                         size_t *sent)
{
    struct moe *s = rs->priv;
    struct comm *cm = rs->comm;
    int r = rs->rank, W = rs->nranks;
    size_t vc[CV_MAX_RANKS * CV_MAX_RANKS] = {0}, ns = 0, nr = 0;
    for (int q = 0; q < W; q++) {
        vc[(size_t)r * W + q] = srows[q] * cols;
        vc[(size_t)q * W + r] = rrows[q] * cols;
        ns += srows[q];
        nr += rrows[q];
        if (q != r) *sent += srows[q] * cols * sizeof(float);
    }
    if (ns) dev_copy_rows(rs->dev, s->stage, cols, send, cols, (int)ns, cols);
    struct plan p;
    memset(&p, 0, sizeof p);
    p.coll = COLL_ALL_TO_ALL;
    p.nranks = W;
    p.count = s->stage_count;
    p.vcounts = vc;
    struct comm_job j = {
        .plan = &p, .coll = COLL_ALL_TO_ALL, .op = OP_SUM, .count = s->stage_count};
    double t0 = now_s();
    int rc = cm->ops->run(cm, r, &j, s->stage);
    if (rc == CV_OK && cm->ops->sync) rc = cm->ops->sync(cm, r);
    if (rs->tl) {
        struct tl_event *e =
            timeline_add(rs->tl, rs->step, r, 0, TL_COLLECTIVE, label, t0, now_s());
        e->bytes = *sent;
    }
    if (rc == CV_OK && nr)
        dev_copy_rows(rs->dev, recv, cols, s->stage + W * s->stage_count, cols, (int)nr, cols);
    return rc;
}

/* The all-to-all-v of rows of `cols` floats: srows[d] rows to rank d (packed in rank
 * order in send), rrows[q] rows from rank q (packed in rank order into recv). Pairwise as
 * plan_build_a2av: at step k send to r+k, receive from r-k; the own block is a copy.
 * *secs and *bytes (may be NULL) get the time and the bytes sent to other ranks added;
 * with secs the ranks meet at a barrier before the exchange and again after it, and the
 * time runs from the first to the rank's last receive. The second barrier keeps every rank
 * out of its next compute until all have exchanged: on fewer cores than ranks a rank that
 * went on early took the core a slower rank's exchange needed, and that wait counted as
 * the exchange's (0.04 GB/s at W = 4 on 2 cores, against 1.2 GB/s between barriers). The
 * wait to leave the second barrier is not counted: it is the scheduler's, after the
 * exchange. */
static int moe_a2av(struct rank_state *rs, const float *send, const size_t *srows, float *recv,
                    const size_t *rrows, int cols, int tag, const char *label, double *secs,
                    size_t *bytes)
{
    struct comm *cm = rs->comm;
    int r = rs->rank, W = rs->nranks, rc = CV_OK;
    size_t soff[CV_MAX_RANKS + 1], roff[CV_MAX_RANKS + 1];
    soff[0] = roff[0] = 0;
    for (int q = 0; q < W; q++) {
        soff[q + 1] = soff[q] + srows[q];
        roff[q + 1] = roff[q] + rrows[q];
    }
    /* A timed exchange starts together on every rank (as nccl-tests' iterations do), so
     * its time is the exchange's, not a peer's compute that the first receive would wait
     * out. */
    if (secs) {
        rs->dev->ops->sync(rs->dev);
        if ((rc = cm->ops->barrier(cm, r)) != CV_OK) return rc;
    }
    double t0 = now_s();
    size_t sent = 0;
    if (backend_kind_caps(rs->cfg->backend) & BACKEND_CAP_GPU) {
        rc = moe_a2av_nccl(rs, send, srows, recv, rrows, cols, label, &sent);
        rs->dev->ops->sync(rs->dev);
        if (secs) *secs += now_s() - t0;
        if (secs && rc == CV_OK) rc = cm->ops->barrier(cm, r);
        if (bytes) *bytes += sent;
        return rc;
    }
    if (srows[r])
        dev_copy_rows(rs->dev, recv + roff[r] * cols, cols, send + soff[r] * cols, cols,
                      (int)srows[r], cols);
    for (int k = 1; k < W && rc == CV_OK; k++) {
        int to = (r + k) % W, from = (r - k + W) % W;
        if (srows[to]) {
            rc = cm->ops->send(cm, r, to, tag, send + soff[to] * cols, srows[to] * cols, label);
            sent += srows[to] * cols * sizeof(float);
        }
        if (rc == CV_OK && rrows[from])
            rc = cm->ops->recv(cm, r, from, tag, recv + roff[from] * cols, rrows[from] * cols,
                               label);
    }
    rs->dev->ops->sync(rs->dev);
    if (secs) *secs += now_s() - t0;
    if (secs && rc == CV_OK) rc = cm->ops->barrier(cm, r);
    if (bytes) *bytes += sent;
    return rc;
}

/* Route block l's tokens and pack them: slots, per-rank rows, P and G uploaded, the send
 * buffer filled. */
static void moe_route_pack(struct rank_state *rs, struct moe *s, int l)
{
    int D = rs->cfg->dim, W = rs->nranks, n = s->n, E = s->E, K = s->K, r = rs->rank;
    struct moe_blk *b = &s->blk[l];
    struct dev *dv = rs->dev;
    struct train_moe *st = rs->moe;
    size_t *routed = st->routed + ((size_t)l * W + r) * E,
           *kept = st->kept + ((size_t)l * W + r) * E;
    memset(routed, 0, (size_t)E * sizeof *routed);
    memset(kept, 0, (size_t)E * sizeof *kept);
    const float *lg = dev_host_view(dv, s->logits, (size_t)n * E);
    size_t dropped =
        moe_route(lg, n, E, K, s->cap, b->probs, b->top, b->gate, b->kept, routed, kept);
    dev_host_view_done(dv, lg, s->logits);
    st->dropped_last[r] += dropped;
    st->dropped_total[r] += dropped;
    /* The send order: destination rank, its local expert, token. */
    b->S = 0;
    float *cnt = xcalloc((size_t)W * s->El, sizeof(float));
    for (int t = 0; t < n * K; t++)
        b->slot[t] = -1;
    for (int d = 0; d < W; d++) {
        b->srows[d] = 0;
        for (int j = 0; j < s->El; j++)
            for (int t = 0; t < n; t++)
                for (int k = 0; k < K; k++)
                    if (b->kept[t * K + k] && b->top[t * K + k] == d * s->El + j) {
                        b->slot[t * K + k] = (int)b->S++;
                        b->srows[d]++;
                        cnt[d * s->El + j] += 1.0f;
                    }
    }
    size_t S = b->S;
    float *m = s->hostmat;
    memset(m, 0, S * n * sizeof(float));
    for (int t = 0; t < n * K; t++)
        if (b->slot[t] >= 0) m[(size_t)b->slot[t] * n + t / K] = 1.0f; /* P: S×n */
    if (S) dv->ops->upload(dv, s->P + (size_t)l * s->S * n, m, S * n);
    memset(m, 0, S * n * sizeof(float));
    for (int t = 0; t < n * K; t++)
        if (b->slot[t] >= 0) m[(size_t)(t / K) * S + b->slot[t]] = b->gate[t]; /* G: n×S */
    if (S) dv->ops->upload(dv, s->G + (size_t)l * s->S * n, m, S * n);
    dv->ops->upload(dv, s->cnt_s, cnt, (size_t)W * s->El);
    free(cnt);
    if (S)
        dev_gemm(dv, false, false, (int)S, D, n, s->P + (size_t)l * s->S * n, n,
                 s->h + (size_t)l * n * D, D, 0.0f, s->sendb, D);
    (void)D;
}

/* The counts' all-to-all: E/W numbers to each rank, what it will receive from each. */
static int moe_counts(struct rank_state *rs, struct moe *s, int l)
{
    int W = rs->nranks, El = s->El;
    struct moe_blk *b = &s->blk[l];
    size_t ones[CV_MAX_RANKS];
    for (int q = 0; q < W; q++)
        ones[q] = 1;
    size_t bytes = 0;
    int rc = moe_a2av(rs, s->cnt_s, ones, s->cnt_r, ones, El, 1, "a2a counts", NULL, &bytes);
    if (rc != CV_OK) return rc;
    rs->moe->counts_bytes[rs->rank] += bytes;
    const float *cr = dev_host_view(rs->dev, s->cnt_r, (size_t)W * El);
    for (int q = 0; q < W; q++) {
        b->rrows[q] = 0;
        for (int j = 0; j < El; j++) {
            b->rcnt[q * El + j] = (size_t)cr[q * El + j];
            b->rrows[q] += b->rcnt[q * El + j];
        }
    }
    dev_host_view_done(rs->dev, cr, s->cnt_r);
    return CV_OK;
}

static int moe_block_forward(struct rank_state *rs, struct moe *s, int l)
{
    int D = rs->cfg->dim, W = rs->nranks, n = s->n, r = rs->rank;
    size_t dd = (size_t)D * D, nd = (size_t)n * D, rd = (size_t)s->R * D;
    struct dev *dv = rs->dev;
    struct moe_blk *b = &s->blk[l];
    char label[32];
    double t0 = now_s();
    float *h = s->h + l * nd;
    dev_layer_forward(dv, n, D, D, s->x + l * nd, s->w + l * dd, D, s->z + l * nd, h, D);
    dev_gemm(dv, false, false, n, s->E, D, h, D, s->r + (size_t)l * D * s->E, s->E, 0.0f,
             s->logits, s->E);
    moe_route_pack(rs, s, l);
    snprintf(label, sizeof label, "fwd L%d route", l);
    rank_compute_event(rs, label, t0, -1);
    int rc = moe_counts(rs, s, l);
    snprintf(label, sizeof label, "dispatch L%d", l);
    float *ein = s->ein + l * rd, *ez = s->ez + l * rd, *eout = s->eout + l * rd;
    if (rc == CV_OK)
        rc = moe_a2av(rs, s->sendb, b->srows, ein, b->rrows, D, 2, label,
                      &rs->moe->dispatch_s[r], &rs->moe->dispatch_bytes[r]);
    if (rc != CV_OK) return rc;
    t0 = now_s();
    size_t off = 0;
    for (int q = 0; q < W; q++)
        for (int j = 0; j < s->El; j++) {
            int cnt = (int)b->rcnt[q * s->El + j];
            if (cnt)
                dev_layer_forward(dv, cnt, D, D, ein + off * D,
                                  s->e + ((size_t)l * s->El + j) * dd, D, ez + off * D,
                                  eout + off * D, D);
            off += (size_t)cnt;
        }
    snprintf(label, sizeof label, "experts L%d", l);
    rank_compute_event(rs, label, t0, -1);
    snprintf(label, sizeof label, "combine L%d", l);
    float *back = s->back + (size_t)l * s->S * D;
    rc = moe_a2av(rs, eout, b->rrows, back, b->srows, D, 3, label, &rs->moe->combine_s[r],
                  &rs->moe->combine_bytes[r]);
    if (rc != CV_OK) return rc;
    t0 = now_s();
    float *y = s->x + (l + 1) * nd;
    dev_copy_rows(dv, y, D, h, D, n, D);
    if (b->S)
        dev_gemm(dv, false, false, n, D, (int)b->S, s->G + (size_t)l * s->S * n, (int)b->S,
                 back, D, 1.0f, y, D);
    snprintf(label, sizeof label, "fwd L%d gates", l);
    rank_compute_event(rs, label, t0, -1);
    return CV_OK;
}

/* The gates' and the router's gradients: dp from the gate gradients, the softmax's
 * backward, dR = hᵀ dlog and dh += dlog Rᵀ. */
static void moe_router_backward(struct rank_state *rs, struct moe *s, int l, const float *mm)
{
    int D = rs->cfg->dim, n = s->n, E = s->E, K = s->K;
    struct moe_blk *b = &s->blk[l];
    struct dev *dv = rs->dev;
    double *dp = xcalloc((size_t)E, sizeof *dp);
    float *dlog = xcalloc((size_t)n * E, sizeof *dlog);
    for (int t = 0; t < n; t++) {
        for (int e = 0; e < E; e++)
            dp[e] = 0;
        for (int k = 0; k < K; k++) {
            int sl = b->slot[t * K + k];
            if (sl >= 0) dp[b->top[t * K + k]] += mm[(size_t)t * b->S + sl];
        }
        softmax_backward(b->probs + (size_t)t * E, dp, E, dlog + (size_t)t * E);
    }
    dv->ops->upload(dv, s->dlog, dlog, (size_t)n * E);
    free(dp);
    free(dlog);
    float *h = s->h + (size_t)l * n * D, *R = s->r + (size_t)l * D * E;
    dev_gemm(dv, true, false, D, E, n, h, D, s->dlog, E, 0.0f, s->gr + (size_t)l * D * E, E);
    dev_gemm(dv, false, true, n, D, E, s->dlog, E, R, E, 1.0f, s->dh, D);
}

/* The experts' backward on the rows this rank received; an expert that got none has a
 * zero gradient. */
static void moe_experts_backward(struct rank_state *rs, struct moe *s, int l)
{
    int D = rs->cfg->dim, W = rs->nranks;
    size_t dd = (size_t)D * D, rd = (size_t)s->R * D;
    struct moe_blk *b = &s->blk[l];
    struct dev *dv = rs->dev;
    bool *used = xcalloc((size_t)s->El, sizeof *used);
    size_t off = 0;
    for (int q = 0; q < W; q++)
        for (int j = 0; j < s->El; j++) {
            int cnt = (int)b->rcnt[q * s->El + j];
            size_t ej = ((size_t)l * s->El + j) * dd;
            if (cnt) {
                dev_layer_backward(dv, cnt, D, D, s->ein + l * rd + off * D, s->e + ej,
                                   s->ez + l * rd + off * D, s->deout + off * D, D, s->dz,
                                   s->ge + ej, used[j] ? 1.0f : 0.0f, s->dein + off * D);
                used[j] = true;
            }
            off += (size_t)cnt;
        }
    for (int j = 0; j < s->El; j++)
        if (!used[j])
            dev_copy_rows(dv, s->ge + ((size_t)l * s->El + j) * dd, D, s->zero, D, D, D);
    free(used);
}

/* Block l backward: dy in s->da on entry, dx (l > 0) in s->da on return. */
static int moe_block_backward(struct rank_state *rs, struct moe *s, int l)
{
    int D = rs->cfg->dim, n = s->n;
    size_t dd = (size_t)D * D, nd = (size_t)n * D;
    struct dev *dv = rs->dev;
    struct moe_blk *b = &s->blk[l];
    int S = (int)b->S;
    char label[32];
    double t0 = now_s();
    dev_copy_rows(dv, s->dh, D, s->da, D, n, D);
    float *G = s->G + (size_t)l * s->S * n, *P = s->P + (size_t)l * s->S * n;
    if (S) {
        dev_gemm(dv, true, false, S, D, n, G, S, s->da, D, 0.0f, s->dback, D);
        dev_gemm(dv, false, true, n, S, D, s->da, D, s->back + (size_t)l * s->S * D, D, 0.0f,
                 s->mm, S);
    }
    snprintf(label, sizeof label, "bwd L%d gates", l);
    rank_compute_event(rs, label, t0, -1);
    snprintf(label, sizeof label, "bwd combine L%d", l);
    int rc = moe_a2av(rs, s->dback, b->srows, s->deout, b->rrows, D, 4, label, NULL, NULL);
    if (rc != CV_OK) return rc;
    t0 = now_s();
    moe_experts_backward(rs, s, l);
    snprintf(label, sizeof label, "bwd experts L%d", l);
    rank_compute_event(rs, label, t0, -1);
    snprintf(label, sizeof label, "bwd dispatch L%d", l);
    rc = moe_a2av(rs, s->dein, b->rrows, s->dsend, b->srows, D, 5, label, NULL, NULL);
    if (rc != CV_OK) return rc;
    t0 = now_s();
    if (S) dev_gemm(dv, true, false, n, D, S, P, n, s->dsend, D, 1.0f, s->dh, D);
    const float *mm = S ? dev_host_view(dv, s->mm, (size_t)n * S) : NULL;
    moe_router_backward(rs, s, l, mm);
    if (mm) dev_host_view_done(dv, mm, s->mm);
    dev_layer_backward(dv, n, D, D, s->x + l * nd, s->w + l * dd, s->z + l * nd, s->dh, D,
                       s->dz, s->gw + l * dd, 0.0f, l > 0 ? s->da : NULL);
    snprintf(label, sizeof label, "bwd L%d", l);
    rank_compute_event(rs, label, t0, -1);
    return CV_OK;
}

static int moe_step(struct rank_state *rs)
{
    const struct train_config *c = rs->cfg;
    struct moe *s = rs->priv;
    struct comm *cm = rs->comm;
    int L = c->layers, D = c->dim, r = rs->rank;
    size_t dd = (size_t)D * D, nd = (size_t)s->n * D, de = (size_t)D * s->E;
    struct train_moe *st = rs->moe;
    st->dispatch_s[r] = st->combine_s[r] = 0;
    st->dispatch_bytes[r] = st->combine_bytes[r] = 0;
    st->counts_bytes[r] = 0;
    st->dropped_last[r] = 0; /* each rank its own entries: no rank writes another's */
    int rc = CV_OK;
    for (int l = 0; l < L && rc == CV_OK; l++)
        rc = moe_block_forward(rs, s, l);
    if (rc != CV_OK) return rc;
    double t0 = now_s();
    dev_loss_grad(rs->dev, s->x + L * nd, nd, (double)c->batch * D, s->da, &rs->loss_sumsq);
    rank_compute_event(rs, "loss", t0, -1);
    for (int l = L - 1; l >= 0 && rc == CV_OK; l--)
        rc = moe_block_backward(rs, s, l);
    char label[32];
    for (int l = 0; l < L && rc == CV_OK; l++) {
        snprintf(label, sizeof label, "all-reduce dW%d", l);
        rc = cm->ops->all_reduce(cm, r, s->gw + l * dd, dd, OP_SUM, label);
    }
    if (rc == CV_OK)
        rc = cm->ops->all_reduce(cm, r, s->gr, (size_t)L * de, OP_SUM, "all-reduce dR");
    if (rc != CV_OK) return rc;
    t0 = now_s();
    int t = rs->step + 1;
    dev_adamw(rs->dev, &c->adamw, t, s->w, s->gw, s->mw, s->vw, (size_t)L * dd);
    dev_adamw(rs->dev, &c->adamw, t, s->r, s->gr, s->mr, s->vr, (size_t)L * de);
    dev_adamw(rs->dev, &c->adamw, t, s->e, s->ge, s->me, s->ve, (size_t)L * s->El * dd);
    rank_compute_event(rs, "adamw", t0, -1);
    return CV_OK;
}

static void moe_params(struct rank_state *rs, float *full, double *replica_diff)
{
    struct moe *s = rs->priv;
    const struct train_config *c = rs->cfg;
    size_t L = (size_t)c->layers, D = (size_t)c->dim, dd = D * D, E = (size_t)s->E;
    size_t nw = L * dd, nr = L * D * E, ne = (size_t)s->El * dd;
    const float *w = dev_host_view(rs->dev, s->w, nw);
    scheme_replica_fold(w, full, nw, rs->rank == 0, replica_diff);
    dev_host_view_done(rs->dev, w, s->w);
    const float *rt = dev_host_view(rs->dev, s->r, nr);
    scheme_replica_fold(rt, full + nw + L * E * dd, nr, rs->rank == 0, replica_diff);
    dev_host_view_done(rs->dev, rt, s->r);
    const float *ex = dev_host_view(rs->dev, s->e, L * ne);
    for (size_t l = 0; l < L; l++)
        memcpy(full + nw + (l * E + (size_t)rs->rank * s->El) * dd, ex + l * ne,
               ne * sizeof(float));
    dev_host_view_done(rs->dev, ex, s->e);
}

static void moe_cleanup(struct rank_state *rs)
{
    struct moe *s = rs->priv;
    if (!s) return;
    struct dev *dv = rs->dev;
    float *bufs[] = {s->w,   s->gw,   s->mw,    s->vw,     s->r,     s->gr,
                     s->mr,  s->vr,   s->e,     s->ge,     s->me,    s->ve,
                     s->x,   s->h,    s->z,     s->P,      s->G,     s->back,
                     s->ein, s->ez,   s->eout,  s->logits, s->sendb, s->da,
                     s->dh,  s->dz,   s->dback, s->dsend,  s->deout, s->dein,
                     s->mm,  s->dlog, s->cnt_s, s->cnt_r,  s->zero,  s->stage};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        dev_free(dv, bufs[i]);
    for (int l = 0; s->blk && l < rs->cfg->layers; l++) {
        struct moe_blk *b = &s->blk[l];
        free(b->probs);
        free(b->gate);
        free(b->top);
        free(b->slot);
        free(b->kept);
        free(b->srows);
        free(b->rrows);
        free(b->rcnt);
    }
    free(s->blk);
    free(s->hostmat);
    free(s);
    rs->priv = NULL;
}

const struct scheme_ops scheme_moe = {
    .setup = moe_setup,
    .step = moe_step,
    .params = moe_params,
    .cleanup = moe_cleanup,
};

/* ---- the single-device reference: the whole batch, every expert, no exchange ---- */

struct moe_ref {
    struct train_config c;
    int G, ng, cap, t;
    float *w, *gw, *mw, *vw, *r, *gr, *mr, *vr, *e, *ge, *me, *ve;
    float *x, *h, *z;       /* [L+1][B][D], [L][B][D] x2 */
    float *probs, *gate;    /* [L][B][E], [L][B][K] */
    int *top;               /* [L][B][K] */
    unsigned char *kept;    /* [L][B][K] */
    int *who;               /* [L][B·K] the assignment (t·K + k) of each expert row */
    size_t *eoff;           /* [L][E+1] expert e's rows: eoff[e]..eoff[e+1] */
    float *ein, *ez, *eout; /* [L][B·K][D] */
    float *logits, *dy, *dh, *dz, *dout, *din, *dlog;
};

struct moe_ref *moe_ref_new(const struct train_config *c)
{
    struct moe_ref *m = xcalloc(1, sizeof *m);
    m->c = *c;
    size_t L = (size_t)c->layers, D = (size_t)c->dim, B = (size_t)c->batch,
           E = (size_t)c->experts, K = (size_t)c->topk, dd = D * D;
    m->G = c->moe_groups > 0 ? c->moe_groups : 1;
    m->ng = c->batch / m->G;
    m->cap = train_moe_capacity(c, m->ng);
    float **p4[] = {&m->w, &m->gw, &m->mw, &m->vw};
    for (int i = 0; i < 4; i++)
        *p4[i] = mlp_alloc(L * dd);
    float **r4[] = {&m->r, &m->gr, &m->mr, &m->vr};
    for (int i = 0; i < 4; i++)
        *r4[i] = mlp_alloc(L * D * E);
    float **e4[] = {&m->e, &m->ge, &m->me, &m->ve};
    for (int i = 0; i < 4; i++)
        *e4[i] = mlp_alloc(L * E * dd);
    for (size_t l = 0; l < L; l++) {
        mlp_init_weights(c->seed, (int)l, (int)D, m->w + l * dd);
        moe_init_router(c->seed, (int)l, (int)D, (int)E, m->r + l * D * E);
        for (size_t e = 0; e < E; e++)
            moe_init_expert(c->seed, (int)l, (int)E, (int)e, (int)D, m->e + (l * E + e) * dd);
    }
    m->x = mlp_alloc((L + 1) * B * D);
    m->h = mlp_alloc(L * B * D);
    m->z = mlp_alloc(L * B * D);
    mlp_init_data(c->seed, (int)B, (int)D, m->x);
    m->probs = mlp_alloc(L * B * E);
    m->gate = mlp_alloc(L * B * K);
    m->top = xcalloc(L * B * K, sizeof(int));
    m->kept = xcalloc(L * B * K, 1);
    m->who = xcalloc(L * B * K, sizeof(int));
    m->eoff = xcalloc(L * (E + 1), sizeof(size_t));
    m->ein = mlp_alloc(L * B * K * D);
    m->ez = mlp_alloc(L * B * K * D);
    m->eout = mlp_alloc(L * B * K * D);
    m->logits = mlp_alloc(B * E);
    m->dlog = mlp_alloc(B * E);
    m->dy = mlp_alloc(B * D);
    m->dh = mlp_alloc(B * D);
    m->dz = mlp_alloc(B * K * D);
    m->dout = mlp_alloc(B * K * D);
    m->din = mlp_alloc(B * K * D);
    return m;
}

/* Block l forward on the whole batch: the dense layer and the router group by group (the
 * ranks' rows), then each expert on every token kept for it, added with its gate. */
static void ref_block_forward(struct moe_ref *m, size_t l, struct train_moe *st)
{
    const struct train_config *c = &m->c;
    size_t D = (size_t)c->dim, B = (size_t)c->batch, E = (size_t)c->experts,
           K = (size_t)c->topk, dd = D * D, ng = (size_t)m->ng;
    float *x = m->x + l * B * D, *h = m->h + l * B * D, *y = m->x + (l + 1) * B * D;
    float *probs = m->probs + l * B * E, *gate = m->gate + l * B * K;
    int *top = m->top + l * B * K;
    unsigned char *kept = m->kept + l * B * K;
    for (int g = 0; g < m->G; g++) {
        size_t o = (size_t)g * ng;
        mlp_layer_forward((int)ng, (int)D, (int)D, x + o * D, m->w + l * dd, (int)D,
                          m->z + l * B * D + o * D, h + o * D, (int)D);
        mlp_gemm(false, false, (int)ng, (int)E, (int)D, h + o * D, (int)D, m->r + l * D * E,
                 (int)E, 0.0f, m->logits + o * E, (int)E);
        size_t *routed = st->routed + (l * m->G + g) * E, *kn = st->kept + (l * m->G + g) * E;
        memset(routed, 0, E * sizeof(size_t));
        memset(kn, 0, E * sizeof(size_t));
        size_t dropped =
            moe_route(m->logits + o * E, (int)ng, (int)E, (int)K, m->cap, probs + o * E,
                      top + o * K, gate + o * K, kept + o * K, routed, kn);
        st->dropped_last[g] += dropped;
        st->dropped_total[g] += dropped;
    }
    memcpy(y, h, B * D * sizeof(float));
    size_t *eoff = m->eoff + l * (E + 1);
    int *who = m->who + l * B * K;
    size_t rows = 0;
    for (size_t e = 0; e < E; e++) {
        eoff[e] = rows;
        for (size_t a = 0; a < B * K; a++)
            if (kept[a] && (size_t)top[a] == e) {
                who[rows] = (int)a;
                memcpy(m->ein + (l * B * K + rows) * D, h + (a / K) * D, D * sizeof(float));
                rows++;
            }
        size_t cnt = rows - eoff[e], o = l * B * K + eoff[e];
        if (cnt)
            mlp_layer_forward((int)cnt, (int)D, (int)D, m->ein + o * D, m->e + (l * E + e) * dd,
                              (int)D, m->ez + o * D, m->eout + o * D, (int)D);
        for (size_t i = 0; i < cnt; i++) {
            size_t a = (size_t)who[eoff[e] + i];
            for (size_t d = 0; d < D; d++)
                y[(a / K) * D + d] += gate[a] * m->eout[(o + i) * D + d];
        }
    }
    eoff[E] = rows;
}

/* Block l backward: dy in m->dy on entry, dx in m->dy on return. */
static void ref_block_backward(struct moe_ref *m, size_t l)
{
    const struct train_config *c = &m->c;
    size_t D = (size_t)c->dim, B = (size_t)c->batch, E = (size_t)c->experts,
           K = (size_t)c->topk, dd = D * D;
    size_t *eoff = m->eoff + l * (E + 1);
    int *who = m->who + l * B * K;
    float *gate = m->gate + l * B * K, *h = m->h + l * B * D;
    double *dgate = xcalloc(B * K, sizeof *dgate);
    memcpy(m->dh, m->dy, B * D * sizeof(float));
    for (size_t e = 0; e < E; e++) {
        size_t cnt = eoff[e + 1] - eoff[e], o = l * B * K + eoff[e];
        float *ge = m->ge + (l * E + e) * dd;
        if (!cnt) {
            memset(ge, 0, dd * sizeof(float));
            continue;
        }
        for (size_t i = 0; i < cnt; i++) {
            size_t a = (size_t)who[eoff[e] + i], t = a / K;
            double dot = 0;
            for (size_t d = 0; d < D; d++) {
                dot += (double)m->dy[t * D + d] * m->eout[(o + i) * D + d];
                m->dout[i * D + d] = gate[a] * m->dy[t * D + d];
            }
            dgate[a] = dot;
        }
        mlp_layer_backward((int)cnt, (int)D, (int)D, m->ein + o * D, m->e + (l * E + e) * dd,
                           m->ez + o * D, m->dout, (int)D, m->dz, ge, 0.0f, m->din);
        for (size_t i = 0; i < cnt; i++) {
            size_t t = (size_t)who[eoff[e] + i] / K;
            for (size_t d = 0; d < D; d++)
                m->dh[t * D + d] += m->din[i * D + d];
        }
    }
    double *dp = xcalloc(E, sizeof *dp);
    for (size_t t = 0; t < B; t++) {
        memset(dp, 0, E * sizeof *dp);
        for (size_t k = 0; k < K; k++)
            if (m->kept[l * B * K + t * K + k])
                dp[m->top[l * B * K + t * K + k]] += dgate[t * K + k];
        softmax_backward(m->probs + l * B * E + t * E, dp, (int)E, m->dlog + t * E);
    }
    free(dp);
    free(dgate);
    mlp_gemm(true, false, (int)D, (int)E, (int)B, h, (int)D, m->dlog, (int)E, 0.0f,
             m->gr + l * D * E, (int)E);
    mlp_gemm(false, true, (int)B, (int)D, (int)E, m->dlog, (int)E, m->r + l * D * E, (int)E,
             1.0f, m->dh, (int)D);
    mlp_layer_backward((int)B, (int)D, (int)D, m->x + l * B * D, m->w + l * dd,
                       m->z + l * B * D, m->dh, (int)D, m->dz, m->gw + l * dd, 0.0f,
                       l > 0 ? m->dy : NULL);
}

double moe_ref_step(struct moe_ref *m, struct train_moe *st)
{
    const struct train_config *c = &m->c;
    size_t L = (size_t)c->layers, D = (size_t)c->dim, B = (size_t)c->batch,
           E = (size_t)c->experts;
    for (int g = 0; g < m->G; g++)
        st->dropped_last[g] = 0;
    for (size_t l = 0; l < L; l++)
        ref_block_forward(m, l, st);
    double sumsq = mlp_loss_grad(m->x + L * B * D, B * D, (double)(B * D), m->dy);
    for (size_t l = L; l-- > 0;)
        ref_block_backward(m, l);
    m->t++;
    mlp_adamw(&c->adamw, m->t, m->w, m->gw, m->mw, m->vw, L * D * D);
    mlp_adamw(&c->adamw, m->t, m->r, m->gr, m->mr, m->vr, L * D * E);
    mlp_adamw(&c->adamw, m->t, m->e, m->ge, m->me, m->ve, L * E * D * D);
    return sumsq / (double)(B * D);
}

void moe_ref_params(const struct moe_ref *m, float *out)
{
    size_t L = (size_t)m->c.layers, D = (size_t)m->c.dim, E = (size_t)m->c.experts;
    memcpy(out, m->w, L * D * D * sizeof(float));
    memcpy(out + L * D * D, m->e, L * E * D * D * sizeof(float));
    memcpy(out + L * D * D + L * E * D * D, m->r, L * D * E * sizeof(float));
}

void moe_ref_free(struct moe_ref *m)
{
    if (!m) return;
    float *bufs[] = {m->w,    m->gw,    m->mw,   m->vw,  m->r,    m->gr,   m->mr,
                     m->vr,   m->e,     m->ge,   m->me,  m->ve,   m->x,    m->h,
                     m->z,    m->probs, m->gate, m->ein, m->ez,   m->eout, m->logits,
                     m->dlog, m->dy,    m->dh,   m->dz,  m->dout, m->din};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        free(bufs[i]);
    free(m->top);
    free(m->kept);
    free(m->who);
    free(m->eoff);
    free(m);
}
