/* refine.c - slices and channels: turn a plan's whole-chunk transfers into slice transfers
 * with explicit dependencies, the way NCCL runs a collective (several channels, each
 * pipelining its data in slices), and give every transfer a place in its rank's execution
 * order and a tick in the slice view. The CPU backend runs plans through this (waiting
 * only on the dependencies, never on a barrier between steps), the trace command prints
 * it, and the slice view animates the ticks.
 *
 * Dependencies. Every transfer reads one range (its source; a reduction also reads its
 * destination) and writes one. Transfer i must wait for every earlier transfer (in plan
 * order) that wrote what i reads or read or wrote what i writes. Each rank runs its own
 * transfers one after the other in its execution order (below), so it is enough to wait,
 * per rank, for the such transfer that rank runs last: that is the dependency list (at
 * most one entry per rank). It is computed by cutting each rank's buffer at every
 * transfer's range boundary into segments that no transfer splits, and keeping per segment
 * and per rank the writer and the reader that rank runs last. Within a step, transfers run by
 * different ranks never touch the same range where one writes it (plan.h), so plan order and
 * step-by-step order agree.
 *
 * Execution order. A transfer's "pass" is its slice number, raised to its dependencies'
 * passes; every rank runs its transfers in (pass, plan order). Every dependency has a
 * smaller or equal pass and a smaller plan index, so a rank never waits for something
 * that comes after it in its own order, and the transfer that is first in (pass, index)
 * among the ones not yet run always has what it needs: no deadlock. For a ring it means
 * slice 0 goes through every step, then slice 1, ... (NCCL's loop); for the owner
 * all-reduce, slice k is reduced and written out before slice k+1 is read. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/util.h"
#include "core/vec.h"

#define PLAN_MAX_CHANNELS 64

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Index of `off` in the sorted, unique bd[0..n). */
static size_t seg_find(const size_t *bd, size_t n, size_t off)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bd[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct order_key {
    size_t pass, index;
};

static int cmp_key(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->pass != y->pass) return x->pass < y->pass ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* *slot = whichever of *slot and cand (1 + a transfer index, 0 = none) comes later in
 * execution order, (pass, index). A rank runs its transfers in that order, so waiting for
 * its latest conflicting one is waiting for all of them: readers of a range do not depend
 * on each other, and an earlier reader can have the later pass. */
static void key_max(uint32_t *slot, uint32_t cand, const size_t *pass)
{
    if (!cand) return;
    if (!*slot) {
        *slot = cand;
        return;
    }
    size_t a = *slot - 1, b = cand - 1;
    /* cppcheck-suppress arrayIndexThenCheck ; "b > a" orders transfers, no bounds check */
    if (pass[b] > pass[a] || (pass[b] == pass[a] && b > a)) *slot = cand;
}

/* Every buffer's segment boundaries: the sorted, distinct offsets where a transfer of p
 * starts or ends in it (bd[r][0..nbd[r]), and segbase[r], the first segment of rank r in
 * one numbering of all ranks' segments. */
struct segments {
    size_t *bd[CV_MAX_RANKS], nbd[CV_MAX_RANKS];
    size_t segbase[CV_MAX_RANKS + 1];
};

static void plan_segments(const struct plan *p, struct segments *sg)
{
    int W = p->nranks;
    size_t nx = p->nx;
    /* cppcheck-suppress ctuuninitvar ; sg is the output: each field written, then read */
    size_t **bd = sg->bd, *nbd = sg->nbd, *segbase = sg->segbase, cap[CV_MAX_RANKS] = {0};
    for (int r = 0; r < W; r++) {
        bd[r] = NULL;
        nbd[r] = 0;
    }
    for (size_t i = 0; i < nx; i++) {
        const struct xfer *x = &p->x[i];
        int rk[2] = {x->src, x->dst};
        size_t at[2] = {x->src_off, x->dst_off};
        for (int k = 0; k < 2; k++) {
            int r = rk[k];
            VEC_GROW(bd[r], cap[r], nbd[r] + 2);
            bd[r][nbd[r]++] = at[k];
            bd[r][nbd[r]++] = at[k] + x->count;
        }
    }
    segbase[0] = 0;
    for (int r = 0; r < W; r++) {
        size_t n = 0;
        if (nbd[r]) {
            qsort(bd[r], nbd[r], sizeof *bd[r], cmp_size);
            for (size_t i = 0; i < nbd[r]; i++)
                if (n == 0 || bd[r][i] != bd[r][n - 1]) bd[r][n++] = bd[r][i];
        }
        nbd[r] = n;
        segbase[r + 1] = segbase[r] + (n ? n - 1 : 0);
    }
}

/* Each transfer's dependencies (p->dep_first, p->dep) and its pass (returned, one per
 * transfer): the slice it belongs to, raised to the pass of anything it waits for. */
static size_t *plan_deps(struct plan *p, const struct segments *sg)
{
    int W = p->nranks;
    size_t nx = p->nx;
    size_t *const *bd = sg->bd;
    const size_t *nbd = sg->nbd, *segbase = sg->segbase;
    /* Per segment and rank: 1 + index of the last transfer run by that rank that wrote
     * (lw) or read (lr) it; 0 = none. */
    size_t nseg = segbase[W];
    uint32_t *lw = xcalloc(nseg * (size_t)W + 1, sizeof *lw);
    uint32_t *lr = xcalloc(nseg * (size_t)W + 1, sizeof *lr);

    p->dep_first = xmalloc((nx + 1) * sizeof *p->dep_first);
    size_t ndep = 0, capdep = nx + 16;
    p->dep = xmalloc(capdep * sizeof *p->dep);
    size_t *pass = xmalloc((nx ? nx : 1) * sizeof *pass);
    for (size_t i = 0; i < nx; i++) {
        const struct xfer *x = &p->x[i];
        uint32_t best[CV_MAX_RANKS] = {0};
        size_t s0 = segbase[x->src] + seg_find(bd[x->src], nbd[x->src], x->src_off);
        size_t s1 = segbase[x->src] + seg_find(bd[x->src], nbd[x->src], x->src_off + x->count);
        size_t d0 = segbase[x->dst] + seg_find(bd[x->dst], nbd[x->dst], x->dst_off);
        size_t d1 = segbase[x->dst] + seg_find(bd[x->dst], nbd[x->dst], x->dst_off + x->count);
        for (size_t g = s0; g < s1; g++)
            for (int e = 0; e < W; e++)
                key_max(&best[e], lw[g * W + e], pass);
        for (size_t g = d0; g < d1; g++)
            for (int e = 0; e < W; e++) {
                key_max(&best[e], lw[g * W + e], pass);
                key_max(&best[e], lr[g * W + e], pass);
            }
        p->dep_first[i] = ndep;
        pass[i] = (size_t)x->slice;
        for (int e = 0; e < W; e++) {
            if (!best[e]) continue;
            size_t j = best[e] - 1;
            *VEC_PUSH(p->dep, ndep, capdep) = j;
            if (pass[j] > pass[i]) pass[i] = pass[j];
        }
        for (size_t g = s0; g < s1; g++)
            key_max(&lr[g * W + x->by], (uint32_t)(i + 1), pass);
        for (size_t g = d0; g < d1; g++)
            key_max(&lw[g * W + x->by], (uint32_t)(i + 1), pass);
    }
    p->dep_first[nx] = ndep;
    free(lw);
    free(lr);

    return pass;
}

/* Execution order: (pass, plan index); each transfer's seq among its rank's. */
static void plan_order(struct plan *p, const size_t *pass)
{
    size_t nx = p->nx;
    struct order_key *key = xmalloc((nx ? nx : 1) * sizeof *key);
    for (size_t i = 0; i < nx; i++)
        key[i] = (struct order_key){pass[i], i};
    qsort(key, nx, sizeof *key, cmp_key);
    p->order = xmalloc((nx ? nx : 1) * sizeof *p->order);
    size_t seq[CV_MAX_RANKS] = {0};
    for (size_t k = 0; k < nx; k++) {
        size_t i = key[k].index;
        p->order[k] = i;
        p->x[i].seq = seq[p->x[i].by]++;
    }
    free(key);
}

/* Ticks (the slice view's model): one slice per link (src, dst, channel) per tick; a slice
 * goes one tick after everything it depends on. Taken in execution order, so a link
 * carries its slices in the order its sender runs them. */
static void plan_ticks(struct plan *p)
{
    int W = p->nranks;
    size_t nx = p->nx;
    size_t nlinks = (size_t)W * (size_t)W * (size_t)p->nchannels;
    int *link_free = xcalloc(nlinks, sizeof *link_free);
    size_t last[CV_MAX_RANKS];
    for (int r = 0; r < W; r++)
        last[r] = SIZE_MAX;
    p->nticks = 0;
    for (size_t k = 0; k < nx; k++) {
        size_t i = p->order[k];
        struct xfer *x = &p->x[i];
        size_t l = ((size_t)x->src * (size_t)W + (size_t)x->dst) * (size_t)p->nchannels +
                   (size_t)x->channel;
        /* Reductions into one range that its rank runs back to back arrive together, on
         * their own links, and are folded in one pass (exec_xfers): one tick, not one
         * each. */
        const struct xfer *prev = last[x->by] == SIZE_MAX ? NULL : &p->x[last[x->by]];
        bool fused = prev && x->kind == XFER_REDUCE && prev->kind == XFER_REDUCE &&
                     prev->dst == x->dst && prev->dst_off == x->dst_off &&
                     prev->count == x->count;
        last[x->by] = i;
        int t = link_free[l];
        for (size_t d = p->dep_first[i]; d < p->dep_first[i + 1]; d++) {
            const struct xfer *y = &p->x[p->dep[d]];
            int after = fused && y == prev ? y->tick : y->tick + 1;
            if (after > t) t = after;
        }
        x->tick = t;
        link_free[l] = t + 1;
        if (t + 1 > p->nticks) p->nticks = t + 1;
    }
    free(link_free);
}

/* Dependencies, execution order, seq and ticks for p's transfers (see the top). */
static void plan_schedule(struct plan *p)
{
    struct segments sg;
    plan_segments(p, &sg);
    size_t *pass = plan_deps(p, &sg);
    for (int r = 0; r < p->nranks; r++)
        free(sg.bd[r]);
    plan_order(p, pass);
    free(pass);
    plan_ticks(p);
}

int plan_min_pieces(const struct plan *p)
{
    if (p->count / (size_t)p->nranks < PLAN_SHARE_MIN_COUNT) return 1;
    for (size_t s = 0; s < p->nsteps; s++)
        if (p->steps[s].shared) return p->nranks;
    return 1;
}

int plan_auto_slices(const struct plan *p, size_t slice_bytes, int least)
{
    if (least < 1) least = 1;
    if (slice_bytes == 0) return least;
    size_t most = 0;
    for (size_t i = 0; i < p->nx; i++)
        if (p->x[i].count > most) most = p->x[i].count;
    size_t per = slice_bytes / sizeof(float);
    if (per == 0) per = 1;
    size_t n = (most + per - 1) / per;
    size_t cap = p->nx ? PLAN_AUTO_MAX_XFERS / p->nx : 1;
    if (n > cap) n = cap;
    if (n > PLAN_MAX_SLICES) n = PLAN_MAX_SLICES;
    return n < (size_t)least ? least : (int)n;
}

int plan_refine(const struct plan *in, int slices, int channels, struct plan *out, char *err,
                size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (slices < 1 || slices > PLAN_MAX_SLICES)
        return cv_err(err, errlen, CV_EINVAL, "slices %d: must be 1..%d", slices,
                      PLAN_MAX_SLICES);
    if (channels < 1 || channels > PLAN_MAX_CHANNELS)
        return cv_err(err, errlen, CV_EINVAL, "channels %d: must be 1..%d", channels,
                      PLAN_MAX_CHANNELS);
    size_t pieces = (size_t)slices * (size_t)channels, n = 0;
    for (size_t i = 0; i < in->nx; i++)
        n += in->x[i].count < pieces ? in->x[i].count : pieces;
    if (n > PLAN_MAX_XFERS)
        return cv_err(err, errlen, CV_EINVAL,
                      "%d slices x %d channels: %zu transfers, more than the %zu a plan may "
                      "have; use fewer slices",
                      slices, channels, n, (size_t)PLAN_MAX_XFERS);
    *out = *in;
    out->steps = xmalloc((in->nsteps ? in->nsteps : 1) * sizeof *out->steps);
    out->x = xmalloc((n ? n : 1) * sizeof *out->x);
    out->dep_first = out->dep = out->order = NULL;
    if (in->vcounts) {
        size_t w = (size_t)in->nranks;
        out->vcounts = xmalloc(w * w * sizeof *out->vcounts);
        memcpy(out->vcounts, in->vcounts, w * w * sizeof *out->vcounts);
    }
    out->nslices = slices;
    out->nchannels = channels;
    size_t nx = 0;
    for (size_t s = 0; s < in->nsteps; s++) {
        const struct step *st = &in->steps[s];
        out->steps[s] = *st;
        out->steps[s].first = nx;
        for (int c = 0; c < channels; c++)
            for (int k = 0; k < slices; k++)
                for (size_t i = st->first; i < st->first + st->n; i++) {
                    const struct xfer *x = &in->x[i];
                    size_t cs, ce, ks, ke;
                    chunk_range(x->count, channels, c, &cs, &ce);
                    chunk_range(ce - cs, slices, k, &ks, &ke);
                    if (ke == ks) continue;
                    struct xfer *y = &out->x[nx++];
                    *y = *x;
                    y->src_off += cs + ks;
                    y->dst_off += cs + ks;
                    y->count = ke - ks;
                    y->slice = k;
                    y->channel = c;
                    /* one piece: its own runner, as unrefined (slices = channels = 1
                     * gives the same transfers) */
                    if (st->shared && slices * channels > 1)
                        y->by = (c * slices + k) % in->nranks;
                    y->tick = 0;
                    y->seq = 0;
                }
        out->steps[s].n = nx - out->steps[s].first;
    }
    out->nx = nx;
    plan_schedule(out);
    return CV_OK;
}
