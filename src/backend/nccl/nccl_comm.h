/* nccl_comm.h - the communicator of comm.h on NCCL (built only with HAVE_NCCL): one GPU per
 * rank. In one process every rank is a thread of it (comm.self = -1) and the communicators
 * are made with ncclCommInitAll; under an MPI launcher every rank is a process (comm.self
 * = its rank) and each communicator is joined with ncclCommInitRank, its ncclUniqueId made
 * by rank 0 and broadcast over MPI. Each rank's collectives are queued on a stream of its
 * GPU and waited for with the communicator's deadline.
 *
 * This is the NCCL backend's one runtime: nccl_backend.c's comm_create makes it for training
 * (devs set: the collectives queue behind each rank's compute) and for backend/run.c's
 * measurement and display-scale run (devs NULL: a stream of its own per rank).
 *
 * NOT YET RUN ON A GPU: written on machines without one and run in `make test` on emulated
 * devices (tests/fakegpu); `make gpu-test` (tests/gpu/run.sh) verifies it on GPUs. */
#ifndef COLLVIZ_BACKEND_NCCL_NCCL_COMM_H
#define COLLVIZ_BACKEND_NCCL_NCCL_COMM_H

#ifdef HAVE_NCCL

#include <stdbool.h>
#include <stddef.h>

#include "backend/comm.h"
#include "device/dev.h"

struct comm_nccl_cfg {
    int nranks;
    /* -1: every rank is a thread of this process; otherwise this process's rank (under an
     * MPI launcher, built with HAVE_MPI), the only one it runs. */
    int self;
    /* gpus[r]: rank r's GPU, for the ranks this process runs (only gpus[self] is read
     * across processes). Ignored where devs is given (the device's GPU). */
    const int *gpus;
    /* devs[r]: rank r's device (dev_cuda_create), whose stream the collectives queue
     * behind; NULL: the communicator makes a stream of its own on each rank's GPU. Across
     * processes only devs[self] is read. */
    struct dev *const *devs;
    /* What the run calls; only the communicators it needs are made, and a call of a kind
     * not asked for fails (CV_EINVAL, saying so). */
    bool coll;  /* collectives: all_reduce .. reduce_scatter, run() */
    bool async; /* iall_reduce (DDP overlap; needs coll) */
    bool p2p;   /* send/recv (pipeline stages: neighbouring ranks only, r and r±1) */
    double timeout_s;
    struct timeline *tl; /* may be NULL */
};

/* Makes the communicators (NCCL connects lazily: every connection the run uses is made
 * here, before any rank runs). Free with c->ops->destroy(c), after the rank threads have
 * ended and before the devices are destroyed. */
int comm_nccl_create(struct comm **out, const struct comm_nccl_cfg *cfg, char *err,
                     size_t errlen);

#endif
#endif
