/* trace.h - the trace executor: runs a plan on small host buffers and keeps a snapshot of
 * every rank's working buffer after every step, plus, per element, the set of ranks whose
 * input it already contains (a bit mask; 0 = the element holds no data yet). This is what
 * the UI animates and `collviz trace` prints. */
#ifndef COLLVIZ_CORE_TRACE_H
#define COLLVIZ_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"

struct trace {
    const struct plan *plan;
    size_t nsnap;   /* plan->nsteps + 1: snapshot 0 is before the first step */
    float *val;     /* [nsnap][nranks][work_len] */
    uint32_t *mask; /* same shape; bit r set = contains rank r's input */
};

/* send[r]: rank r's send buffer (coll_send_count elements). Refuses traces larger than
 * TRACE_MAX_ELEMS values in all with CV_ENOMEM and a message. */
#define TRACE_MAX_ELEMS ((size_t)1 << 24)
/* Before anything of plan p's trace is allocated: CV_OK when the trace stays under
 * TRACE_MAX_ELEMS and its buffers, with `extra` bytes more that the caller will hold beside
 * them (the ranks' send, reference and output buffers), fit in memory (mem_check); else
 * CV_ENOMEM and one line naming the size. trace_run checks it too, with extra 0. */
int trace_check(const struct plan *p, double extra, char *err, size_t errlen);
/* Bytes of the display-scale buffers beside a trace: every rank's send buffer and `nrecv`
 * receive-sized ones. */
double trace_rank_bytes(const struct plan *p, int nrecv);
int trace_run(struct trace *t, const struct plan *p, float *const *send, char *err,
              size_t errlen);
void trace_free(struct trace *t);

const float *trace_buf(const struct trace *t, size_t snap, int rank);
const uint32_t *trace_mask(const struct trace *t, size_t snap, int rank);
/* Rank's receive buffer after the last step (coll_recv_count elements). */
void trace_output(const struct trace *t, int rank, float *out);

#endif
