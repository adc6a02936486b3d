/* comm_nccl.h - the communicator of comm.h on NCCL (built only with HAVE_NCCL): one
 * process, one thread per rank, one GPU per rank. Each rank's collectives are queued on
 * its device's stream (dev_cuda.h), right behind its compute, and waited for with the
 * communicator's deadline.
 *
 * NOT YET RUN ON A GPU: written on machines without one and run in `make test` on emulated
 * devices (tests/fakegpu); `make gpu-test` (tests/gpu/run.sh) verifies it on GPUs. */
#ifndef COLLVIZ_COMM_NCCL_H
#define COLLVIZ_COMM_NCCL_H

#ifdef HAVE_NCCL

#include <stdbool.h>
#include <stddef.h>

#include "../comm.h"
#include "../../parallel/dev.h"

/* devs[r]: rank r's GPU device (dev_cuda_create), one GPU each. Makes the communicators
 * with ncclCommInitAll from the calling thread, before any rank thread starts. async:
 * also a second stream and communicator per rank for iall_reduce (DDP overlap). p2p: also
 * the communicators for send/recv (pipeline stages; NCCL send/recv here connect
 * neighbouring ranks only, r and r±1). tl may be NULL. Free with c->ops->destroy(c), after
 * the rank threads have ended and before the devices are destroyed. */
int comm_nccl_create(struct comm **out, int nranks, struct dev *const *devs, bool async,
                     bool p2p, double timeout_s, struct timeline *tl, char *err, size_t errlen);

#endif
#endif
