/* timeline.c - recording and flattening the per-rank event timeline (see timeline.h). */
#include "core/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/vec.h"

static const char *const tl_kind_names[TL_KIND_COUNT] = {
    [TL_COMPUTE] = "compute",       [TL_SEND] = "send", [TL_RECV] = "recv",
    [TL_COLLECTIVE] = "collective", [TL_IDLE] = "idle",
};

const char *tl_kind_name(enum tl_kind k)
{
    return (k >= 0 && k < TL_KIND_COUNT) ? tl_kind_names[k] : "?";
}

void timeline_init(struct timeline *tl, int nranks, int nsteps)
{
    memset(tl, 0, sizeof *tl);
    tl->nranks = nranks;
    tl->nsteps = nsteps;
    tl->lanes = xcalloc((size_t)nranks * TL_LANES, sizeof *tl->lanes);
    tl->step_start =
        xcalloc((size_t)(nsteps > 0 ? nsteps : 1) * (size_t)nranks, sizeof(double));
}

void timeline_free(struct timeline *tl)
{
    if (tl->lanes)
        for (int i = 0; i < tl->nranks * TL_LANES; i++)
            free(tl->lanes[i].ev);
    free(tl->lanes);
    free(tl->step_start);
    memset(tl, 0, sizeof *tl);
}

struct tl_event *timeline_add(struct timeline *tl, int step, int rank, int lane,
                              enum tl_kind kind, const char *label, double t0, double t1)
{
    struct tl_lane *ln = &tl->lanes[rank * TL_LANES + lane];
    struct tl_event *e = VEC_PUSH(ln->ev, ln->n, ln->cap);
    memset(e, 0, sizeof *e);
    e->step = step;
    e->rank = rank;
    e->lane = lane;
    e->kind = kind;
    e->peer = -1;
    e->mb = -1;
    e->tag = -1;
    e->t0 = t0;
    e->t1 = t1 < t0 ? t0 : t1;
    snprintf(e->label, sizeof e->label, "%s", label ? label : "");
    return e;
}

void timeline_add_p2p(struct timeline *tl, int step, int rank, enum tl_kind kind,
                      const char *label, int peer, int tag, size_t bytes,
                      const char *wait_label, double t_wait, double t0, double t1)
{
    if (wait_label) {
        char lab[40];
        if (!*wait_label) snprintf(lab, sizeof lab, "wait %.26s", label ? label : "");
        struct tl_event *w = timeline_add(tl, step, rank, 0, TL_IDLE,
                                          *wait_label ? wait_label : lab, t_wait, t0);
        if (kind == TL_RECV) {
            w->peer = peer;
            w->tag = tag;
        }
    }
    struct tl_event *e = timeline_add(tl, step, rank, 0, kind, label, t0, t1);
    e->peer = peer;
    e->tag = tag;
    e->bytes = bytes;
}

static int tl_cmp(const void *a, const void *b)
{
    const struct tl_event *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
    return 0;
}

struct tl_event *timeline_flatten(const struct timeline *tl, size_t *n)
{
    size_t total = 0;
    for (int i = 0; i < tl->nranks * TL_LANES; i++)
        total += tl->lanes[i].n;
    struct tl_event *out = xmalloc((total ? total : 1) * sizeof *out);
    size_t k = 0;
    for (int i = 0; i < tl->nranks * TL_LANES; i++) {
        if (tl->lanes[i].n) memcpy(out + k, tl->lanes[i].ev, tl->lanes[i].n * sizeof *out);
        k += tl->lanes[i].n;
    }
    /* One origin per step (the earliest rank to start it) keeps ranks comparable: the
     * clock is the same monotonic clock in every thread. */
    for (size_t i = 0; i < total; i++) {
        int s = out[i].step;
        double base = 0;
        if (s >= 0 && s < tl->nsteps) {
            base = tl->step_start[(size_t)s * tl->nranks];
            for (int r = 1; r < tl->nranks; r++)
                if (tl->step_start[(size_t)s * tl->nranks + r] < base)
                    base = tl->step_start[(size_t)s * tl->nranks + r];
        }
        out[i].t0 -= base;
        out[i].t1 -= base;
    }
    qsort(out, total, sizeof *out, tl_cmp);
    *n = total;
    return out;
}
