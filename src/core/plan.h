/* plan.h - an algorithm is a plan: an ordered list of steps, each a set of transfers.
 *
 * The same plan is animated by the UI (through trace.h) and executed by the CPU backend
 * (through exec.h), so what is drawn is what runs. Offsets are element offsets into the
 * ranks' working buffers (see coll.h).
 *
 * Execution rule (what makes a plan safe to run with one thread per rank): within a step,
 * every transfer is executed by its destination rank, in plan order; no transfer of a step
 * reads a range that a transfer of another destination writes in that same step. Between
 * steps all ranks synchronise. Unit tests check this property for every plan. */
#ifndef COLLVIZ_PLAN_H
#define COLLVIZ_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "coll.h"

enum xfer_kind {
    XFER_COPY,   /* dst[i] = src[i] */
    XFER_REDUCE, /* dst[i] = dst[i] op src[i]  (op = plan op; AVG reduces with SUM) */
    XFER_SCALE,  /* local, src == dst: dst[i] = dst[i] / nranks  (the AVG epilogue) */
};

struct xfer {
    int src, dst;
    size_t src_off, dst_off, count;
    enum xfer_kind kind;
    int chunk; /* chunk label for display (ring chunk number), or -1 */
};

struct step {
    size_t first, n; /* transfers plan->x[first .. first+n) */
    char phase[40];  /* "reduce-scatter 2/3", "broadcast", "average" */
    char what[200];  /* one sentence saying what this step does, for the screen */
};

struct plan {
    enum coll coll;
    enum algo algo;
    enum redop op;
    int nranks;
    size_t count;
    int root;
    size_t work_len; /* == coll_work_len(coll, nranks, count) */
    struct step *steps;
    size_t nsteps;
    struct xfer *x;
    size_t nx;
    char summary[160]; /* "ring: reduce-scatter (3 steps) then all-gather (3 steps); chunk c
                          starts on rank c+1" */
};

/* Build the plan. nranks in 1..CV_MAX_RANKS, count >= 1, root in 0..nranks-1 (ignored for
 * unrooted collectives). An unsupported (collective, algorithm) pair is CV_EUNSUPPORTED
 * with a message naming the algorithms that do exist. Transfers of count 0 are omitted;
 * a plan may have zero steps (W = 1). */
int plan_build(struct plan *p, enum coll c, enum algo a, enum redop op, int nranks,
               size_t count, int root, char *err, size_t errlen);
void plan_free(struct plan *p);

/* Element range [start, end) of chunk k when n elements are split into `parts` balanced
 * chunks (sizes differ by at most one; some are empty when n < parts). */
void chunk_range(size_t n, int parts, int k, size_t *start, size_t *end);

#endif
