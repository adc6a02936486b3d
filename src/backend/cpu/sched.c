/* sched.c - a refined plan laid out per CPU rank (see sched.h). */
#include "backend/cpu/sched.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/vec.h"

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

/* Group rank r's transfers (in execution order) into runs of reductions into one range
 * (fused by exec_xfers), and merge their waits: per other rank, the most any member
 * needs. */
void cpu_sched_build(struct cpu_sched *sc, const struct plan *p)
{
    int W = p->nranks;
    size_t nx = p->nx, first[CV_MAX_RANKS + 1] = {0}, fill[CV_MAX_RANKS] = {0};
    memset(sc, 0, sizeof *sc);
    sc->p = p;
    sc->idx = xmalloc((nx ? nx : 1) * sizeof *sc->idx);
    sc->items = xmalloc((nx ? nx : 1) * sizeof *sc->items);
    size_t capneed = nx + 16, nneed = 0, nitems = 0;
    sc->needs = xmalloc(capneed * sizeof *sc->needs);
    for (size_t i = 0; i < nx; i++) {
        const struct xfer *x = &p->x[i];
        first[x->by + 1]++;
        if (x->src != x->dst) {
            sc->sent[x->src] += x->count;
            sc->recv[x->dst] += x->count;
        }
    }
    for (int r = 0; r < W; r++) {
        sc->nown[r] = (uint32_t)first[r + 1];
        first[r + 1] += first[r];
    }
    for (size_t k = 0; k < nx; k++) {
        int r = p->x[p->order[k]].by;
        sc->idx[first[r] + fill[r]++] = p->order[k];
    }
    for (int r = 0; r < W; r++) {
        sc->item_first[r] = nitems;
        size_t j = first[r];
        while (j < first[r + 1]) {
            const struct xfer *x = &p->x[sc->idx[j]];
            size_t e = j + 1;
            while (e < first[r + 1] && x->kind == XFER_REDUCE) {
                const struct xfer *y = &p->x[sc->idx[e]];
                if (y->kind != XFER_REDUCE || y->dst != x->dst || y->dst_off != x->dst_off ||
                    y->count != x->count)
                    break;
                e++;
            }
            uint32_t need[CV_MAX_RANKS] = {0};
            for (size_t m = j; m < e; m++) {
                size_t i = sc->idx[m];
                const struct xfer *xm = &p->x[i];
                /* Another rank's buffer is touched only once that rank has arrived. */
                if (xm->src != r) need[xm->src] = max_u32(need[xm->src], 1);
                if (xm->dst != r) need[xm->dst] = max_u32(need[xm->dst], 1);
                for (size_t d = p->dep_first[i]; d < p->dep_first[i + 1]; d++) {
                    const struct xfer *y = &p->x[p->dep[d]];
                    if (y->by != r) need[y->by] = max_u32(need[y->by], (uint32_t)y->seq + 2);
                }
            }
            struct cpu_item *it = &sc->items[nitems++];
            *it = (struct cpu_item){.first = j, .n = e - j, .need_first = nneed};
            for (int q = 0; q < W; q++) {
                if (!need[q]) continue;
                *VEC_PUSH(sc->needs, nneed, capneed) = (struct cpu_need){q, need[q]};
                it->nneed++;
            }
            j = e;
        }
    }
    sc->item_first[W] = nitems;
}

void cpu_sched_free(struct cpu_sched *sc)
{
    free(sc->idx);
    free(sc->items);
    free(sc->needs);
    memset(sc, 0, sizeof *sc);
}
