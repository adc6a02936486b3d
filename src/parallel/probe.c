/* probe.c - the display-scale recorder inside the training engine (see probe.h).
 *
 * Rank threads fill their own scratch record without a lock (each rank has one), and
 * commit it under the probe's mutex, where the logical clock is advanced. Pipeline
 * messages carry their sender's tick through a small table keyed by (src, dst, tag): the
 * sender commits before it sends, the receiver commits after its recv returned, so the
 * entry is always there when the receiver looks. */
#include "parallel/probe.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/vec.h"
#include "parallel/train.h"

struct probe_msg {
    int src, dst, tag, tick;
};

struct train_probe {
    int step;
    pthread_mutex_t mu;
    struct probe_rec *recs; /* [PROBE_MAX_RECS] */
    size_t n;
    bool overflow;
    int nticks;
    int clock[PROBE_MAX_RANKS]; /* last tick of each rank */
    int seq[PROBE_MAX_RANKS];
    struct probe_rec scratch[PROBE_MAX_RANKS];
    struct probe_rec pending[PROBE_MAX_RANKS][PROBE_MAX_PENDING];
    bool pending_used[PROBE_MAX_RANKS][PROBE_MAX_PENDING];
    struct probe_msg *msgs;
    size_t nmsg, capmsg;
};

struct train_probe *probe_new(int step)
{
    struct train_probe *p = xcalloc(1, sizeof *p);
    p->step = step;
    pthread_mutex_init(&p->mu, NULL);
    p->recs = xcalloc(PROBE_MAX_RECS, sizeof *p->recs);
    for (int r = 0; r < PROBE_MAX_RANKS; r++)
        p->clock[r] = -1;
    return p;
}

void probe_free(struct train_probe *p)
{
    if (!p) return;
    pthread_mutex_destroy(&p->mu);
    free(p->recs);
    free(p->msgs);
    free(p);
}

int probe_check_config(const struct train_config *c, char *err, size_t errlen)
{
    if (c->scheme == TRAIN_SINGLE)
        return cv_err(err, errlen, CV_EINVAL, "probe: records ddp, tp or pp, not single");
    if (c->nranks < 1 || c->nranks > PROBE_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "probe: ranks %d: display scale is 1..%d",
                      c->nranks, PROBE_MAX_RANKS);
    if (c->layers < 1 || c->layers > PROBE_MAX_LAYERS)
        return cv_err(err, errlen, CV_EINVAL, "probe: layers %d: display scale is 1..%d",
                      c->layers, PROBE_MAX_LAYERS);
    if (c->dim < 1 || (long)c->dim * c->dim > PROBE_MAT_MAX)
        return cv_err(err, errlen, CV_EINVAL, "probe: dim %d: display scale needs D*D <= %d",
                      c->dim, PROBE_MAT_MAX);
    if (c->batch < 1 || (long)c->batch * c->dim > PROBE_MAT_MAX)
        return cv_err(err, errlen, CV_EINVAL, "probe: batch %d: display scale needs B*D <= %d",
                      c->batch, PROBE_MAT_MAX);
    return CV_OK;
}

static int probe_cmp(const void *a, const void *b)
{
    const struct probe_rec *x = a, *y = b;
    if (x->tick != y->tick) return x->tick < y->tick ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void probe_finish(struct train_probe *p)
{
    if (p) qsort(p->recs, p->n, sizeof *p->recs, probe_cmp);
}

size_t probe_count(const struct train_probe *p)
{
    return p->n;
}

const struct probe_rec *probe_get(const struct train_probe *p, size_t i)
{
    return i < p->n ? &p->recs[i] : NULL;
}

int probe_nticks(const struct train_probe *p)
{
    return p->nticks;
}

int probe_step(const struct train_probe *p)
{
    return p->step;
}

bool probe_overflowed(const struct train_probe *p)
{
    return p->overflow;
}

static void probe_rec_init(struct probe_rec *r, int rank, enum probe_kind kind)
{
    memset(r, 0, sizeof *r);
    r->rank = rank;
    r->kind = kind;
    r->layer = -1;
    r->mb = -1;
    r->recv_from = r->send_to = -1;
    r->recv_tag = r->send_tag = -1;
}

static bool probe_on(const struct train_probe *p, int step, int rank)
{
    return p && step == p->step && rank >= 0 && rank < PROBE_MAX_RANKS;
}

struct probe_rec *probe_begin(struct train_probe *p, int step, int rank, enum probe_kind kind,
                              const char *fmt, ...)
{
    if (!probe_on(p, step, rank)) return NULL;
    struct probe_rec *r = &p->scratch[rank];
    probe_rec_init(r, rank, kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->label, sizeof r->label, fmt, ap);
    va_end(ap);
    return r;
}

static struct probe_mat *probe_new_mat(struct probe_rec *r, const char *name, int rows,
                                       int cols, enum probe_ref ref, int layer, int r0, int c0)
{
    if (!r || r->nmats >= PROBE_MAX_MATS || rows < 1 || cols < 1 ||
        (long)rows * cols > PROBE_MAT_MAX)
        return NULL;
    struct probe_mat *m = &r->mats[r->nmats++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->rows = rows;
    m->cols = cols;
    m->ref = ref;
    m->layer = layer;
    m->r0 = r0;
    m->c0 = c0;
    return m;
}

struct probe_mat *probe_add(struct probe_rec *r, const char *name, int rows, int cols,
                            const float *v, int ld, enum probe_ref ref, int layer, int r0,
                            int c0)
{
    struct probe_mat *m = probe_new_mat(r, name, rows, cols, ref, layer, r0, c0);
    if (!m) return NULL;
    for (int i = 0; i < rows; i++)
        memcpy(m->v + (size_t)i * cols, v + (size_t)i * ld, (size_t)cols * sizeof(float));
    return m;
}

void probe_mat_key(struct probe_mat *m)
{
    if (m) m->key = true;
}

struct probe_mat *probe_add_pieces(struct probe_rec *r, const char *name, int rows, int pcols,
                                   int pieces, const float *v, enum probe_ref ref, int layer,
                                   int r0, int c0)
{
    int cols = pcols * pieces;
    struct probe_mat *m = probe_new_mat(r, name, rows, cols, ref, layer, r0, c0);
    if (!m) return NULL;
    for (int k = 0; k < pieces; k++)
        for (int i = 0; i < rows; i++)
            memcpy(m->v + (size_t)i * cols + (size_t)k * pcols,
                   v + ((size_t)k * rows + i) * pcols, (size_t)pcols * sizeof(float));
    return m;
}

static struct probe_msg *probe_find_msg(struct train_probe *p, int src, int dst, int tag)
{
    for (size_t i = 0; i < p->nmsg; i++)
        if (p->msgs[i].src == src && p->msgs[i].dst == dst && p->msgs[i].tag == tag)
            return &p->msgs[i];
    return NULL;
}

void probe_commit(struct train_probe *p, struct probe_rec *r)
{
    if (!p || !r) return;
    pthread_mutex_lock(&p->mu);
    int rank = r->rank;
    int t = p->clock[rank];
    if (r->recv_from >= 0) {
        const struct probe_msg *m = probe_find_msg(p, r->recv_from, rank, r->recv_tag);
        if (m && m->tick > t) t = m->tick;
    }
    r->tick = t + 1;
    r->seq = p->seq[rank]++;
    p->clock[rank] = r->tick;
    if (r->tick + 1 > p->nticks) p->nticks = r->tick + 1;
    if (r->send_to >= 0) {
        *VEC_PUSH(p->msgs, p->nmsg, p->capmsg) =
            (struct probe_msg){rank, r->send_to, r->send_tag, r->tick};
    }
    if (p->n < PROBE_MAX_RECS)
        p->recs[p->n++] = *r;
    else
        p->overflow = true;
    pthread_mutex_unlock(&p->mu);
}

int probe_coll_begin(struct train_probe *p, int step, int rank, enum coll c, enum redop op,
                     size_t count, const float *in, size_t count_in, int view_rows,
                     int view_cols, int piece_cols, bool async, const char *label)
{
    if (!probe_on(p, step, rank) || count_in > PROBE_MAT_MAX) return -1;
    int slot = -1;
    for (int k = 0; k < PROBE_MAX_PENDING && slot < 0; k++)
        if (!p->pending_used[rank][k]) slot = k;
    if (slot < 0) return -1;
    p->pending_used[rank][slot] = true;
    struct probe_rec *r = &p->pending[rank][slot];
    probe_rec_init(r, rank, PROBE_COLL);
    snprintf(r->label, sizeof r->label, "%s", label);
    r->coll = c;
    r->op = op;
    r->count = count;
    r->view_rows = view_rows;
    r->view_cols = view_cols;
    r->piece_cols = piece_cols;
    r->async = async;
    probe_add(r, "in", 1, (int)count_in, in, (int)count_in, PROBE_REF_NONE, -1, 0, 0);
    return slot;
}

struct probe_rec *probe_coll_end(struct train_probe *p, int step, int rank, int slot,
                                 const float *out, size_t count_out)
{
    if (!probe_on(p, step, rank) || slot < 0 || slot >= PROBE_MAX_PENDING ||
        !p->pending_used[rank][slot])
        return NULL;
    p->pending_used[rank][slot] = false;
    struct probe_rec *r = &p->scratch[rank];
    *r = p->pending[rank][slot];
    if (count_out <= PROBE_MAT_MAX)
        probe_add(r, "out", 1, (int)count_out, out, (int)count_out, PROBE_REF_NONE, -1, 0, 0);
    return r;
}

/* ---- the single-device counterpart ---- */

void probe_reference(const struct train_config *cfg, int step, struct probe_reference *ref)
{
    int L = cfg->layers, D = cfg->dim, B = cfg->batch;
    size_t dd = (size_t)D * D, bd = (size_t)B * D;
    memset(ref, 0, sizeof *ref);
    ref->layers = L;
    ref->dim = D;
    ref->batch = B;
    struct mlp_ref r;
    mlp_ref_init(&r, L, D, B, cfg->seed);
    for (int s = 0; s < step; s++)
        mlp_ref_step(&r, &cfg->adamw, NULL, NULL);
    ref->x = mlp_alloc((size_t)(L + 1) * bd);
    ref->dx = mlp_alloc((size_t)(L + 1) * bd);
    ref->w = mlp_alloc((size_t)L * dd);
    ref->dw = mlp_alloc((size_t)L * dd);
    ref->wnew = mlp_alloc((size_t)L * dd);
    float *gz = mlp_alloc((size_t)L * bd), *dz = mlp_alloc(bd);
    memcpy(ref->w, r.w, (size_t)L * dd * sizeof(float));
    memcpy(ref->x, r.x, bd * sizeof(float)); /* the data */
    for (int l = 0; l < L; l++)
        mlp_layer_forward(B, D, D, ref->x + l * bd, ref->w + l * dd, D, gz + l * bd,
                          ref->x + (l + 1) * bd, D);
    ref->loss = mlp_loss_grad(ref->x + L * bd, bd, (double)bd, ref->dx + L * bd) / (double)bd;
    for (int l = L - 1; l >= 0; l--)
        mlp_layer_backward(B, D, D, ref->x + l * bd, ref->w + l * dd, gz + l * bd,
                           ref->dx + (l + 1) * bd, D, dz, ref->dw + l * dd, 0.0f,
                           ref->dx + l * bd);
    memcpy(ref->wnew, ref->w, (size_t)L * dd * sizeof(float));
    mlp_adamw(&cfg->adamw, r.t + 1, ref->wnew, ref->dw, r.m, r.v, (size_t)L * dd);
    free(gz);
    free(dz);
    mlp_ref_free(&r);
}

void probe_reference_free(struct probe_reference *ref)
{
    free(ref->x);
    free(ref->dx);
    free(ref->w);
    free(ref->dw);
    free(ref->wnew);
    memset(ref, 0, sizeof *ref);
}

double probe_mat_deviation(const struct probe_reference *ref, const struct probe_mat *m)
{
    if (!ref || !ref->x || m->ref == PROBE_REF_NONE || m->ref >= PROBE_REF_COUNT) return -1;
    int L = ref->layers, D = ref->dim, B = ref->batch;
    const float *base;
    int rows, lmax;
    switch (m->ref) {
    case PROBE_REF_X:
        base = ref->x, rows = B, lmax = L;
        break;
    case PROBE_REF_DX:
        base = ref->dx, rows = B, lmax = L;
        break;
    case PROBE_REF_W:
        base = ref->w, rows = D, lmax = L - 1;
        break;
    case PROBE_REF_DW:
        base = ref->dw, rows = D, lmax = L - 1;
        break;
    case PROBE_REF_WNEW:
        base = ref->wnew, rows = D, lmax = L - 1;
        break;
    default:
        return -1;
    }
    if (m->layer < 0 || m->layer > lmax || m->r0 < 0 || m->c0 < 0 || m->r0 + m->rows > rows ||
        m->c0 + m->cols > D)
        return -1;
    const float *t = base + (size_t)m->layer * rows * D;
    double dev = 0;
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++) {
            double d = fabs((double)m->v[i * m->cols + j] -
                            (double)t[(size_t)(m->r0 + i) * D + m->c0 + j]);
            if (!(d <= dev)) dev = isnan(d) ? INFINITY : d;
        }
    return dev;
}
