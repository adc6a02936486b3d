/* nccl_comm_init.c - the init half of the NCCL communicator (nccl_comm.h's
 * comm_nccl_create): the configuration checked, one communicator per GPU for each clique
 * the run asks for (ncclCommInitAll in one process, ncclCommInitRank across processes), the
 * streams and events, and every connection set up before any rank thread starts. The run
 * half, and the design of both, is nccl_comm.c. Built only with HAVE_NCCL. */
#include "backend/nccl/nccl_comm.h"

#ifdef HAVE_NCCL

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "core/util.h"
#include "sys/deadline.h"
#include "device/dev_cuda.h"
#include "backend/nccl/nccl_comm_priv.h"
#include "backend/nccl/nccl_info.h"
#ifdef HAVE_MPI
#include "backend/launcher.h"
#endif

/* ---- creation (main thread) ---- */

static int init_fail(ncclResult_t r, const char *call, int w, char *err, size_t errlen)
{
    const char *detail = ncclGetLastError(NULL);
    return cv_err(err, errlen, CV_EBACKEND, "%s (%d ranks): %s%s%s", call, w,
                  ncclGetErrorString(r), detail && *detail ? ": " : "", detail ? detail : "");
}

/* One communicator per GPU for clique k: ncclCommInitAll in one process; across processes
 * rank 0's ncclUniqueId over MPI and ncclCommInitRank (every process calls this at the
 * same point, clique by clique in the same order). */
static int make_clique(struct nccl_comm *nc, enum clique k, const int *gpus, char *err,
                       size_t errlen)
{
    int w = nc->pub.nranks;
    if (nc->mp) {
#ifdef HAVE_MPI
        int me = nc->pub.self;
        ncclUniqueId id;
        memset(&id, 0, sizeof id);
        ncclResult_t ir = me == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
        int bad = ir != ncclSuccess;
        if (launcher_max_int(&bad) != CV_OK || bad)
            return cv_err(err, errlen, CV_EBACKEND, "ncclGetUniqueId failed on rank 0%s%s",
                          ir != ncclSuccess ? ": " : "",
                          ir != ncclSuccess ? ncclGetErrorString(ir) : "");
        if (launcher_bcast(&id, sizeof id, 0) != CV_OK)
            return cv_err(err, errlen, CV_EBACKEND, "MPI_Bcast of the ncclUniqueId failed");
        cudaError_t e = cudaSetDevice(gpus[me]);
        if (e != cudaSuccess)
            return cv_err(err, errlen, CV_EBACKEND, "cudaSetDevice(%d): %s (%s)", gpus[me],
                          cudaGetErrorName(e), cudaGetErrorString(e));
        ncclComm_t cm = NULL;
        ncclResult_t r = ncclCommInitRank(&cm, w, id, me);
        if (r != ncclSuccess) return init_fail(r, "ncclCommInitRank", w, err, errlen);
        nc->rk[me].comm[k] = cm;
        return CV_OK;
#else
        return cv_err(err, errlen, CV_EUNSUPPORTED, "ranks as processes need MPI (not built)");
#endif
    }
    ncclComm_t comms[CV_MAX_RANKS] = {0};
    ncclResult_t r = ncclCommInitAll(comms, w, gpus);
    if (r != ncclSuccess) return init_fail(r, "ncclCommInitAll", w, err, errlen);
    for (int i = 0; i < w; i++)
        nc->rk[i].comm[k] = comms[i];
    return CV_OK;
}

static int make_stream(cudaStream_t *s, char *err, size_t errlen)
{
    cudaError_t e = cudaStreamCreateWithFlags(s, cudaStreamNonBlocking);
    if (e == cudaSuccess) return CV_OK;
    *s = NULL;
    return cv_err(err, errlen, CV_EBACKEND, "cudaStreamCreateWithFlags: %s (%s)",
                  cudaGetErrorName(e), cudaGetErrorString(e));
}

/* ---- connecting (main thread, at creation) ----
 *
 * NCCL connects lazily: the first collective on a communicator, and the first send or
 * receive between two of its ranks, set the connection up inside the call, and the calling
 * thread blocks there until the peers enter the same setup. The rank threads issue their
 * calls independently, and a receiver waits for the sender's (tag, count) before it calls
 * ncclRecv, so a first ncclSend would block its thread for good. Every communicator is
 * therefore connected here, before any rank thread starts: this one thread (across
 * processes: every process, for its own rank), one group per clique, a one-element call on
 * each connection the run uses, waited for with the deadline. */
static int connect_clique(struct nccl_comm *nc, enum clique k, float *const *scratch, char *err,
                          size_t errlen)
{
    int w = nc->pub.nranks;
    bool up = k == CL_UP0 || k == CL_UP1;
    int parity = k == CL_UP1 || k == CL_DOWN1;
    cudaStream_t used[CV_MAX_RANKS] = {0};
    ncclResult_t r = ncclGroupStart();
    for (int i = 0; r == ncclSuccess && i < w; i++) {
        struct nccl_rank *rk = &nc->rk[i];
        if (!rk->live) continue;
        ncclComm_t cm = rk->comm[k];
        if (k == CL_COLL) {
            used[i] = coll_stream(rk);
            r = ncclAllReduce(scratch[i], scratch[i], 1, ncclFloat, ncclSum, cm, used[i]);
            continue;
        }
        /* The roles nc_send and nc_recv give this clique: ranks of its parity send (up or
         * down), their neighbours in that direction receive. */
        int to = up ? i + 1 : i - 1, from = up ? i - 1 : i + 1;
        if (i % 2 == parity && to >= 0 && to < w) {
            used[i] = up ? rk->send_up : rk->send_down;
            r = ncclSend(scratch[i], 1, ncclFloat, to, cm, used[i]);
        } else if (from >= 0 && from < w && from % 2 == parity) {
            used[i] = up ? rk->recv_up : rk->recv_down;
            r = ncclRecv(scratch[i] + 1, 1, ncclFloat, from, cm, used[i]);
        }
    }
    ncclResult_t end = ncclGroupEnd();
    if (r == ncclSuccess) r = end;
    if (r != ncclSuccess)
        return cv_err(err, errlen, CV_EBACKEND, "connecting the NCCL communicators: %s%s%s",
                      ncclGetErrorString(r), *ncclGetLastError(NULL) ? ": " : "",
                      ncclGetLastError(NULL));
    double deadline = now_s() + nc->pub.timeout_s;
    for (int i = 0; i < w; i++)
        for (;;) {
            cudaError_t e = used[i] ? cudaStreamQuery(used[i]) : cudaSuccess;
            if (e == cudaSuccess) break;
            if (e != cudaErrorNotReady)
                return cv_err(err, errlen, CV_EBACKEND,
                              "connecting the NCCL communicators on GPU %d: %s (%s)",
                              nc->rk[i].gpu, cudaGetErrorName(e), cudaGetErrorString(e));
            if (now_s() > deadline)
                return cv_err(err, errlen, CV_ETIMEOUT,
                              "connecting the NCCL communicators took more than %g s",
                              nc->pub.timeout_s);
            struct timespec ts = {0, 50 * 1000};
            nanosleep(&ts, NULL);
        }
    return CV_OK;
}

static int connect_all(struct nccl_comm *nc, char *err, size_t errlen)
{
    int w = nc->pub.nranks, rc = CV_OK;
    float *scratch[CV_MAX_RANKS] = {0};
    for (int i = 0; rc == CV_OK && i < w; i++) {
        if (!nc->rk[i].live) continue;
        cudaError_t e = cudaSetDevice(nc->rk[i].gpu);
        if (e == cudaSuccess) e = cudaMalloc((void **)&scratch[i], 2 * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemsetAsync(scratch[i], 0, 2 * sizeof(float), coll_stream(&nc->rk[i]));
        if (e != cudaSuccess)
            rc = cv_err(err, errlen, CV_EBACKEND, "connecting on GPU %d: %s (%s)",
                        nc->rk[i].gpu, cudaGetErrorName(e), cudaGetErrorString(e));
    }
    for (int k = 0; rc == CV_OK && k < CL_COUNT; k++)
        if (k == CL_COLL ? nc->coll : nc->p2p)
            rc = connect_clique(nc, (enum clique)k, scratch, err, errlen);
    if (rc != CV_OK) {
        /* A half-made connection may have kernels waiting: abort them all first. */
        for (int i = 0; i < w; i++)
            if (nc->rk[i].live) abort_own(nc, i);
    }
    for (int i = 0; i < w; i++)
        if (scratch[i] && !nc->rk[i].wedged && cudaSetDevice(nc->rk[i].gpu) == cudaSuccess)
            cudaFree(scratch[i]);
    return rc;
}

int comm_nccl_create(struct comm **out, const struct comm_nccl_cfg *cfg, char *err,
                     size_t errlen)
{
    *out = NULL;
    int nranks = cfg->nranks;
    if (nranks < 1 || nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "nranks %d: must be 1..%d", nranks, CV_MAX_RANKS);
    if (!(cfg->timeout_s > 0))
        return cv_err(err, errlen, CV_EINVAL, "timeout %g s: must be positive", cfg->timeout_s);
    if (cfg->self >= nranks)
        return cv_err(err, errlen, CV_EINVAL, "process rank %d of %d ranks", cfg->self, nranks);
    if (cfg->async && !cfg->coll)
        return cv_err(err, errlen, CV_EINVAL,
                      "an async lane (iall_reduce) asked for without collectives");
    if (atomic_load(&gpus_wedged))
        return cv_err(err, errlen, CV_EBACKEND,
                      "GPU streams still busy %.0f s after ncclCommAbort; restart collviz",
                      NCCL_DRAIN_S);
#ifndef HAVE_MPI
    if (cfg->self >= 0)
        return cv_err(err, errlen, CV_EUNSUPPORTED, "ranks as processes need MPI (not built)");
#endif
    struct nccl_comm *nc = xcalloc(1, sizeof *nc);
    nc->mp = cfg->self >= 0;
    nc->ops = nccl_comm_ops;
#ifdef HAVE_MPI
    if (nc->mp) nc->ops = nccl_comm_ops_mp;
#endif
    /* "measured: 2 emulated GPUs, ..." on tests/fakegpu's devices, never "GPUs" there. */
    if (nccl_emulated()) nc->ops.rank_noun = "emulated GPU";
    nc->pub.ops = &nc->ops;
    nc->pub.nranks = nranks;
    nc->pub.self = cfg->self;
    nc->pub.timeout_s = cfg->timeout_s;
    nc->pub.tl = cfg->tl;
    nc->pub.priv = nc;
    nc->coll = cfg->coll;
    nc->async = cfg->async;
    nc->p2p = cfg->p2p && nranks > 1;
    atomic_init(&nc->aborted, 0);
    pthread_mutex_init(&nc->bar_mu, NULL);
    deadline_cond_init(&nc->bar_cv);
    pthread_mutex_init(&nc->err_mu, NULL);
    nc->mq = xcalloc((size_t)nranks * nranks, sizeof *nc->mq);
    for (int i = 0; i < nranks * nranks; i++) {
        pthread_mutex_init(&nc->mq[i].mu, NULL);
        deadline_cond_init(&nc->mq[i].cv);
    }
    int gpus[CV_MAX_RANKS] = {0};
    int lo = nc->mp ? cfg->self : 0, hi = nc->mp ? cfg->self + 1 : nranks;
    int rc = CV_OK;
    for (int r = lo; r < hi; r++) {
        struct nccl_rank *rk = &nc->rk[r];
        rk->live = true;
        if (cfg->devs) {
            rk->dev = cfg->devs[r];
            rk->gpu = dev_cuda_gpu(rk->dev);
            rk->compute = dev_cuda_stream(rk->dev);
        } else {
            rk->gpu = cfg->gpus ? cfg->gpus[r] : r;
        }
        gpus[r] = rk->gpu;
    }
    /* Streams first: connecting queues on them. */
    for (int r = lo; rc == CV_OK && r < hi; r++) {
        struct nccl_rank *rk = &nc->rk[r];
        cudaError_t e = cudaSetDevice(rk->gpu);
        if (e != cudaSuccess) {
            rc = cv_err(err, errlen, CV_EBACKEND, "cudaSetDevice(%d): %s (%s)", rk->gpu,
                        cudaGetErrorName(e), cudaGetErrorString(e));
            break;
        }
        if (!rk->dev) {
            rc = make_stream(&rk->compute, err, errlen);
            rk->own_compute = rc == CV_OK;
        }
        if (rc == CV_OK && nc->async) rc = make_stream(&rk->side, err, errlen);
        for (int i = 0; rc == CV_OK && i < NCCL_PROGRESS_EVENTS; i++)
            if ((e = cudaEventCreateWithFlags(&rk->prog[i], cudaEventDisableTiming)) !=
                cudaSuccess)
                rc = cv_err(err, errlen, CV_EBACKEND, "cudaEventCreate: %s (%s)",
                            cudaGetErrorName(e), cudaGetErrorString(e));
        if (rc == CV_OK && nc->p2p) {
            rc = make_stream(&rk->send_up, err, errlen);
            if (rc == CV_OK) rc = make_stream(&rk->send_down, err, errlen);
            if (rc == CV_OK) rc = make_stream(&rk->recv_up, err, errlen);
            if (rc == CV_OK) rc = make_stream(&rk->recv_down, err, errlen);
            if (rc == CV_OK && (e = cudaEventCreateWithFlags(
                                    &rk->ev_copy, cudaEventDisableTiming)) != cudaSuccess)
                rc = cv_err(err, errlen, CV_EBACKEND, "cudaEventCreate: %s (%s)",
                            cudaGetErrorName(e), cudaGetErrorString(e));
        }
    }
    /* Across processes every process must make the same cliques in the same order, even
     * one whose streams failed: it then reports after the others have joined. */
    int rc_streams = rc;
    if (nc->mp) rc = CV_OK;
    if (rc == CV_OK && nc->coll) rc = make_clique(nc, CL_COLL, gpus, err, errlen);
    for (int k = CL_UP0; rc == CV_OK && nc->p2p && k <= CL_DOWN1; k++)
        rc = make_clique(nc, (enum clique)k, gpus, err, errlen);
    if (rc == CV_OK && rc_streams != CV_OK) rc = rc_streams;
    if (rc == CV_OK) rc = connect_all(nc, err, errlen);
    if (rc != CV_OK) {
        nc_destroy(&nc->pub);
        return rc;
    }
    *out = &nc->pub;
    return CV_OK;
}

#endif
