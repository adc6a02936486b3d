/* trace.c - the trace executor: runs a plan on small host buffers through exec.c (the
 * same code the CPU backend runs) and keeps every rank's working buffer after every step,
 * with a per-element mask of the ranks whose input the element already contains. The UI
 * animates these snapshots and `collviz trace` prints them.
 *
 * Each step starts from a copy of the previous snapshot and every transfer reads its
 * source from the previous snapshot, so the result does not depend on the order in which
 * the ranks are run: this is what concurrent execution gives, given the plan's rule that
 * no transfer reads what another destination writes in the same step. A rank's own
 * transfers (a self copy, the final division of AVG) see its own earlier writes, as they
 * would on a real rank. */
#include "core/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec.h"
#include "core/util.h"

static size_t trace_index(const struct trace *t, size_t snap, int rank)
{
    return (snap * (size_t)t->plan->nranks + (size_t)rank) * t->plan->work_len;
}

static void trace_masks(const struct trace *t, size_t s)
{
    const struct plan *p = t->plan;
    const struct step *st = &p->steps[s];
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const struct xfer *x = &p->x[i];
        uint32_t *d = t->mask + trace_index(t, s + 1, x->dst) + x->dst_off;
        size_t src_snap = x->src == x->dst ? s + 1 : s;
        const uint32_t *m = t->mask + trace_index(t, src_snap, x->src) + x->src_off;
        switch (x->kind) {
        case XFER_COPY:
            if (d != m) memmove(d, m, x->count * sizeof *d);
            break;
        case XFER_REDUCE:
            for (size_t j = 0; j < x->count; j++)
                d[j] |= m[j];
            break;
        case XFER_SCALE:
            break;
        }
    }
}

double trace_rank_bytes(const struct plan *p, int nrecv)
{
    double n = 0;
    for (int r = 0; r < p->nranks; r++)
        n += (double)coll_send_count(p->coll, p->nranks, p->count, r, p->root) + 1 +
             nrecv * ((double)coll_recv_count(p->coll, p->nranks, p->count, r, p->root) + 1);
    return n * sizeof(float);
}

int trace_check(const struct plan *p, double extra, char *err, size_t errlen)
{
    size_t W = (size_t)p->nranks, L = p->work_len, nsnap = p->nsteps + 1;
    if (L && nsnap > TRACE_MAX_ELEMS / W / L)
        return cv_err(err, errlen, CV_ENOMEM,
                      "trace of %zu steps x %zu ranks x %zu elements is over the limit of %zu "
                      "values; use a smaller count",
                      p->nsteps, W, L, (size_t)TRACE_MAX_ELEMS);
    double need = (double)(nsnap * W * L) * (sizeof(float) + sizeof(uint32_t)) + extra;
    return mem_check(need, err, errlen, "a trace of %s on %zu ranks, count %zu",
                     coll_name(p->coll), W, p->count);
}

int trace_run(struct trace *t, const struct plan *p, float *const *send, char *err,
              size_t errlen)
{
    memset(t, 0, sizeof *t);
    int rc = trace_check(p, 0, err, errlen);
    if (rc != CV_OK) return rc;
    size_t W = (size_t)p->nranks, L = p->work_len, nsnap = p->nsteps + 1;
    size_t total = nsnap * W * L;
    t->plan = p;
    t->nsnap = nsnap;
    t->val = xcalloc(total, sizeof *t->val);
    t->mask = xcalloc(total, sizeof *t->mask);

    for (int r = 0; r < p->nranks; r++) {
        /* all-to-all-v: only the packed blocks; the padding after them holds nothing. */
        size_t n = plan_send_count(p, r);
        size_t off = coll_in_off(p->coll, p->nranks, p->count, r);
        if (n == 0) continue;
        memcpy(t->val + trace_index(t, 0, r) + off, send[r], n * sizeof(float));
        uint32_t *m = t->mask + trace_index(t, 0, r) + off;
        for (size_t i = 0; i < n; i++)
            m[i] = 1u << r;
    }

    float *bufs[CV_MAX_RANKS];
    for (size_t s = 0; s < p->nsteps; s++) {
        memcpy(t->val + trace_index(t, s + 1, 0), t->val + trace_index(t, s, 0),
               W * L * sizeof *t->val);
        memcpy(t->mask + trace_index(t, s + 1, 0), t->mask + trace_index(t, s, 0),
               W * L * sizeof *t->mask);
        for (int r = 0; r < p->nranks; r++) {
            for (int q = 0; q < p->nranks; q++)
                bufs[q] = t->val + trace_index(t, q == r ? s + 1 : s, q);
            exec_step_rank(p, s, r, bufs);
        }
        trace_masks(t, s);
    }
    return CV_OK;
}

void trace_free(struct trace *t)
{
    if (!t) return;
    free(t->val);
    free(t->mask);
    memset(t, 0, sizeof *t);
}

const float *trace_buf(const struct trace *t, size_t snap, int rank)
{
    return t->val + trace_index(t, snap, rank);
}

const uint32_t *trace_mask(const struct trace *t, size_t snap, int rank)
{
    return t->mask + trace_index(t, snap, rank);
}

void trace_output(const struct trace *t, int rank, float *out)
{
    const struct plan *p = t->plan;
    size_t n = coll_recv_count(p->coll, p->nranks, p->count, rank, p->root);
    size_t off = coll_out_off(p->coll, p->nranks, p->count, rank);
    if (n) memcpy(out, trace_buf(t, t->nsnap - 1, rank) + off, n * sizeof *out);
}
