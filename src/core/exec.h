/* exec.h - the one implementation of a transfer's arithmetic, shared by the trace
 * executor (display scale) and the CPU backend's rank threads (measurement scale), so the
 * two cannot disagree about what a step does. */
#ifndef COLLVIZ_CORE_EXEC_H
#define COLLVIZ_CORE_EXEC_H

#include <stdint.h>

#include "core/plan.h"

/* Execute every transfer of step `s` whose destination is `rank`, in plan order.
 * bufs[r] is rank r's working buffer (plan->work_len floats). Consecutive reductions of a
 * step into the same destination range are fused: up to three sources in one pass, more
 * in cache-sized tiles; the per-element order of operations is exactly plan order, so the
 * result is bit-identical to applying the transfers one by one. */
void exec_step_rank(const struct plan *p, size_t s, int rank, float *const *bufs);

/* Apply one transfer (any destination). */
void exec_xfer(const struct plan *p, const struct xfer *x, float *dst_buf,
               const float *src_buf);

/* Run the transfers p->x[idx[0]], ..., p->x[idx[n-1]] in that order (any ranks), fusing
 * consecutive reductions into the same destination range like exec_step_rank (same bits
 * as running them one by one). This is how a CPU rank thread runs one slice's group. */
void exec_xfers(const struct plan *p, const size_t *idx, size_t n, float *const *bufs);

/* Run a refined plan (plan_refine: dependencies and order filled) on one thread the way
 * the CPU backend's rank threads run it: rank r takes the transfers with by == r in
 * p->order, one after the other, and may run one once every transfer of another rank in
 * its dependency list has run - nothing else is waited for. Which ready rank goes next is
 * drawn from `seed` (0: round robin), so a test can try many interleavings. Returns CV_OK,
 * or CV_EINVAL when no rank can go on (a dependency cycle: a bug in the plan). */
int exec_plan_deps(const struct plan *p, float *const *bufs, uint64_t seed);

#endif
