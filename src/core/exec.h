/* exec.h - the one implementation of a transfer's arithmetic, shared by the trace
 * executor (display scale) and the CPU backend's rank threads (measurement scale), so the
 * two cannot disagree about what a step does. */
#ifndef COLLVIZ_EXEC_H
#define COLLVIZ_EXEC_H

#include "plan.h"

/* Execute every transfer of step `s` whose destination is `rank`, in plan order.
 * bufs[r] is rank r's working buffer (plan->work_len floats). Consecutive reductions of a
 * step into the same destination range are fused: up to three sources in one pass, more
 * in cache-sized tiles; the per-element order of operations is exactly plan order, so the
 * result is bit-identical to applying the transfers one by one. */
void exec_step_rank(const struct plan *p, size_t s, int rank, float *const *bufs);

/* Apply one transfer (any destination). */
void exec_xfer(const struct plan *p, const struct xfer *x, float *dst_buf,
               const float *src_buf);

#endif
