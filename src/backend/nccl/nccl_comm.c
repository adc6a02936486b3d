/* nccl_comm.c - comm.h's communicator on NCCL (see nccl_comm.h), built only with HAVE_NCCL.
 * This is its run half; creating and connecting it is nccl_comm_init.c (nccl_comm_priv.h is
 * what the two share).
 *
 * NOT YET RUN ON A GPU: written on machines without one. `make test` runs it on emulated
 * devices (tests/fakegpu: NCCL's documented semantics, lazy connection included), where
 * every scheme matches the CPU reference; nothing about real NCCL timing or its kernels is
 * claimed until tests/gpu/run.sh's training section (`make gpu-test`) has run on GPUs.
 *
 * Communicators. In one process all are made by ncclCommInitAll from the creating (main)
 * thread, before the rank threads start; across processes (under an MPI launcher) each is
 * joined with ncclCommInitRank, rank 0 making its ncclUniqueId and MPI broadcasting it.
 * After that each rank's handles are used only by its own thread (NCCL communicators are
 * not thread-safe), except destroy, which runs after the threads have ended. Cliques,
 * each its own communicator per GPU:
 *   COLL   - every collective: lane 0's, and the async lane's iall_reduce (DDP overlap),
 *            all on one stream per rank (the "coll" stream: the device's own stream, or a
 *            second one when the async lane is asked for, so iall_reduce runs beside the
 *            compute). comm.h has every rank enter collectives in the same order, so one
 *            communicator on one stream keeps them in that order on every rank;
 *   UP0/UP1, DOWN0/DOWN1 - point-to-point, see below.
 * Only the cliques the run asks for are made (comm_nccl_cfg.coll, .p2p): COLL for a
 * measurement, DDP with or without overlap and TP (1 communicator per GPU), the four
 * point-to-point ones alone for a pipeline (4 per GPU: its stages enter no collective; the
 * barrier is the host's, or MPI's across processes). A collective on a communicator made
 * without COLL fails with CV_EINVAL saying so, before any NCCL call. NCCL serialises the
 * kernels of one communicator whatever their streams, so each point-to-point role needs a
 * communicator of its own (below).
 *
 * The runtime side (comm.h's buf_alloc .. sync, for backend/run.c): working buffers are
 * device memory of the rank's GPU (checked against cudaMemGetInfo before allocating),
 * put/get are cudaMemcpy after the rank's queued work has finished (waited for with the
 * deadline), and run() queues NCCL's own collective for the job on the coll stream and
 * returns; sync() waits for it. Every buffer is allocated before the first collective.
 *
 * Point-to-point. comm.h promises eager sends: send returns at once and two neighbours
 * may send to each other at the same moment (1F1B does). ncclSend blocks its stream until
 * the peer's ncclRecv runs, so a send and a later recv on one stream would deadlock that
 * crossing. Here a send copies the message into a staging buffer on the compute stream and
 * queues ncclSend on a stream of its own that waits for the copy: the host returns at once,
 * the caller may reuse its buffer, and the send completes whenever the peer receives. Each
 * direction and sender parity has its own clique (UP0: messages going up from even ranks,
 * UP1 from odd ranks, DOWN0/DOWN1 going down), so on every rank each communicator has one
 * role (send up, receive from below, send down, receive from above) on one stream, and
 * messages of a pair arrive in send order. A recv first waits (host, deadline) for the
 * sender's (tag, count) - a protocol check NCCL itself cannot make - then queues ncclRecv
 * on its own stream and waits for it. Across processes there is no host mailbox between
 * the ranks: the (tag, count) check is not made, and ncclRecv is queued at once (NCCL
 * itself requires the counts to match). Only neighbours (r, r±1) can be connected this
 * way, which is what the pipeline uses; other pairs are refused.
 *
 * Waiting and deadlines (nccl-tests' testStreamSynchronize): every wait polls
 * cudaStreamQuery on the streams and ncclCommGetAsyncError on the rank's communicators
 * against comm->timeout_s. A failure or a missed deadline sets the shared abort flag with
 * the reason; every rank that sees it calls ncclCommAbort on its own communicators (which
 * releases NCCL kernels stuck waiting for a peer) and returns CV_EBACKEND. Communicators a
 * rank never got to abort are aborted by destroy. Streams that do not drain within
 * NCCL_DRAIN_S after an abort mark the device wedged, so its buffers are never freed under
 * running kernels. Across processes the abort flag is this process's own: the other
 * processes see their NCCL waits fail or miss their own deadlines. The barrier across
 * processes is an MPI collective (no deadline of its own).
 *
 * Timeline. Host timestamps around synchronised calls: a collective's event runs from
 * the moment the rank's earlier compute had finished to the moment the collective had
 * finished (the host waited for both), so it is the collective's time on the GPU plus a
 * polling delay of microseconds. A send's event is only its enqueueing (the copy to the
 * staging buffer); the transfer shows in the receiver's recv event, which lasts from
 * issuing the recv until the data had arrived (waiting for the sender included). Async
 * all-reduces are timed with CUDA events on their stream, placed on the host clock from a
 * base event recorded when the request was issued.
 *
 * Bytes. NCCL picks its own algorithm (ring, tree, NVLS...) and does not report wire
 * bytes, so bytes_sent/bytes_recv of a collective are the ring model's per-rank figures
 * (all-reduce 2(W-1)/W of the buffer, all-gather and reduce-scatter (W-1)/W of the whole);
 * coll_bytes (nccl-tests' S) and point-to-point bytes are exact. */
#include "backend/nccl/nccl_comm.h"

#ifdef HAVE_NCCL

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "core/plan.h"
#include "core/util.h"
#include "core/vec.h"
#include "device/dev_cuda.h"
#include "sys/deadline.h"
#include "backend/nccl/nccl_comm_priv.h"
#include "backend/nccl/nccl_info.h"
#ifdef HAVE_MPI
#include "backend/launcher.h"
#endif

/* ncclScatter, ncclGather and ncclAlltoAll exist from NCCL 2.28.3; before that (or when
 * NCCL_BACKEND_FORCE_P2P is defined, so tests/gpu can exercise this path on a new NCCL
 * too) they are built from grouped ncclSend/ncclRecv, as nccl-tests did. */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 3) && !defined(NCCL_BACKEND_FORCE_P2P)
#define NCCL_HAVE_ROOTED_P2P_COLLS 1
#else
#define NCCL_HAVE_ROOTED_P2P_COLLS 0
#endif

/* What stays free on each GPU after a working buffer: NCCL's own allocations (its
 * connections are made at creation, but a collective of a kind not run before may still
 * allocate) and the CUDA context's. */
#define NCCL_MEM_HEADROOM ((size_t)512 << 20)

struct comm_req {
    int rank, step;
    cudaEvent_t base, start, end;
    double t_base;
    size_t bytes;
    char label[32];
};

/* Set once a rank's streams did not drain after an abort: kernels that never finish hold
 * that GPU, so no communicator is made again in this process. */
atomic_int gpus_wedged;

static struct nccl_comm *to_nc(struct comm *c)
{
    return (struct nccl_comm *)c;
}

/* ---- errors and aborting ---- */

static bool is_aborted(struct nccl_comm *nc)
{
    return atomic_load(&nc->aborted) != 0;
}

/* Set the abort flag with the first reason and wake every host wait. */
static void set_abort(struct nccl_comm *nc, const char *why)
{
    pthread_mutex_lock(&nc->err_mu);
    if (!nc->err[0]) snprintf(nc->err, sizeof nc->err, "%s", why);
    pthread_mutex_unlock(&nc->err_mu);
    atomic_store(&nc->aborted, 1);
    pthread_mutex_lock(&nc->bar_mu);
    pthread_cond_broadcast(&nc->bar_cv);
    pthread_mutex_unlock(&nc->bar_mu);
    int w = nc->pub.nranks;
    for (int i = 0; nc->mq && i < w * w; i++) {
        pthread_mutex_lock(&nc->mq[i].mu);
        pthread_cond_broadcast(&nc->mq[i].cv);
        pthread_mutex_unlock(&nc->mq[i].mu);
    }
}

/* The stream the rank's collectives are queued on. */
cudaStream_t coll_stream(const struct nccl_rank *rk)
{
    return rk->side ? rk->side : rk->compute;
}

static bool stream_idle(cudaStream_t s)
{
    return !s || cudaStreamQuery(s) != cudaErrorNotReady;
}

/* Whether the rank's streams finish within `limit_s`. */
static bool drained(struct nccl_rank *rk, double limit_s)
{
    cudaStream_t s[6] = {rk->compute,   rk->side,    rk->send_up,
                         rk->send_down, rk->recv_up, rk->recv_down};
    double t0 = now_s();
    for (;;) {
        bool busy = false;
        for (int i = 0; i < 6; i++)
            if (!stream_idle(s[i])) busy = true;
        if (!busy) return true;
        if (now_s() - t0 > limit_s) return false;
        struct timespec ts = {0, 100 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Give the rank's streams NCCL_DRAIN_S to finish after an abort; otherwise its device is
 * wedged (its memory must not be freed under running kernels). */
static void drain_rank(struct nccl_rank *rk)
{
    if (drained(rk, NCCL_DRAIN_S)) return;
    rk->wedged = true;
    if (rk->dev) dev_cuda_mark_wedged(rk->dev);
    atomic_store(&gpus_wedged, 1);
}

/* Called only by the rank's own thread (or destroy, after the threads ended). */
void abort_own(struct nccl_comm *nc, int rank)
{
    struct nccl_rank *rk = &nc->rk[rank];
    if (rk->aborted_own) return;
    rk->aborted_own = true;
    cudaSetDevice(rk->gpu);
    for (int k = 0; k < CL_COUNT; k++)
        if (rk->comm[k]) ncclCommAbort(rk->comm[k]);
    memset(rk->comm, 0, sizeof rk->comm);
    drain_rank(rk);
}

/* Fail this rank's call: abort everything with the message, return status. */
static int fail(struct nccl_comm *nc, int rank, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct nccl_comm *nc, int rank, int status, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    set_abort(nc, msg);
    abort_own(nc, rank);
    return status;
}

static int fail_aborted(struct nccl_comm *nc, int rank)
{
    abort_own(nc, rank);
    return CV_EBACKEND;
}

static int cuda_ck(struct nccl_comm *nc, int rank, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return CV_OK;
    return fail(nc, rank, CV_EBACKEND, "%s on GPU %d (rank %d): %s (%s)", what,
                nc->rk[rank].gpu, rank, cudaGetErrorName(e), cudaGetErrorString(e));
}

static int nccl_ck(struct nccl_comm *nc, int rank, ncclResult_t r, ncclComm_t comm,
                   const char *what)
{
    if (r == ncclSuccess) return CV_OK;
    const char *detail = comm ? ncclGetLastError(comm) : NULL;
    return fail(nc, rank, r == ncclInvalidArgument ? CV_EINVAL : CV_EBACKEND,
                "%s on rank %d: %s%s%s", what, rank, ncclGetErrorString(r),
                detail && *detail ? ": " : "", detail ? detail : "");
}

static void nap(double waited_s)
{
    /* Spin for the first millisecond (small operations finish in microseconds), then
     * poll every 50 us so a long wait does not burn a core. */
    if (waited_s < 1e-3) return;
    struct timespec ts = {0, 50 * 1000};
    nanosleep(&ts, NULL);
}

/* Wait until stream `s` is idle (or, when ev is given, until event ev has completed),
 * polling it, the rank's communicators' async errors, the abort flag and the deadline. The
 * deadline is pushed back each time one of run()'s collectives completes. */
static int wait_until(struct nccl_comm *nc, int rank, cudaStream_t s, cudaEvent_t ev,
                      const char *what)
{
    struct nccl_rank *rk = &nc->rk[rank];
    double t0 = now_s(), deadline = t0 + nc->pub.timeout_s;
    for (;;) {
        if (is_aborted(nc)) return fail_aborted(nc, rank);
        cudaError_t e = ev ? cudaEventQuery(ev) : cudaStreamQuery(s);
        if (e == cudaSuccess) return CV_OK;
        if (e != cudaErrorNotReady) return cuda_ck(nc, rank, e, what);
        while (rk->prog_done < rk->prog_issued &&
               cudaEventQuery(rk->prog[rk->prog_done % NCCL_PROGRESS_EVENTS]) == cudaSuccess) {
            rk->prog_done++;
            deadline = now_s() + nc->pub.timeout_s;
        }
        for (int k = 0; k < CL_COUNT; k++) {
            ncclResult_t ae = ncclSuccess;
            if (rk->comm[k] && ncclCommGetAsyncError(rk->comm[k], &ae) == ncclSuccess &&
                ae != ncclSuccess && ae != ncclInProgress)
                return nccl_ck(nc, rank, ae, rk->comm[k], what);
        }
        if (now_s() > deadline)
            return fail(nc, rank, CV_ETIMEOUT,
                        "%s on rank %d did not finish within %g s; NCCL communicators aborted",
                        what, rank, nc->pub.timeout_s);
        nap(now_s() - t0);
    }
}

static int wait_stream(struct nccl_comm *nc, int rank, cudaStream_t s, const char *what)
{
    return wait_until(nc, rank, s, NULL, what);
}

/* ---- collectives (lane 0, compute stream) ---- */

static int enter(struct nccl_comm *nc, int rank)
{
    if (rank < 0 || rank >= nc->pub.nranks) {
        /* No rank of ours to abort from this thread: the others see the flag. */
        char msg[64];
        snprintf(msg, sizeof msg, "rank %d out of range 0..%d", rank, nc->pub.nranks - 1);
        set_abort(nc, msg);
        return CV_EINVAL;
    }
    if (!nc->rk[rank].live) {
        char msg[80];
        snprintf(msg, sizeof msg, "rank %d is not run by this process (rank %d is)", rank,
                 nc->pub.self);
        set_abort(nc, msg);
        return CV_EINVAL;
    }
    if (is_aborted(nc)) return fail_aborted(nc, rank);
    return cuda_ck(nc, rank, cudaSetDevice(nc->rk[rank].gpu), "cudaSetDevice");
}

/* A collective on a communicator made without the COLL clique: refused, naming the call. */
static int check_coll(struct nccl_comm *nc, int rank, const char *what)
{
    if (nc->coll) return CV_OK;
    return fail(nc, rank, CV_EINVAL,
                "rank %d: %s on a communicator made without collectives (the run asked for "
                "point-to-point only)",
                rank, what);
}

static int to_nccl_op(enum redop op, ncclRedOp_t *out)
{
    switch (op) {
    case OP_SUM:
        *out = ncclSum;
        return CV_OK;
    case OP_PROD:
        *out = ncclProd;
        return CV_OK;
    case OP_MIN:
        *out = ncclMin;
        return CV_OK;
    case OP_MAX:
        *out = ncclMax;
        return CV_OK;
    case OP_AVG:
        *out = ncclAvg;
        return CV_OK;
    default:
        return CV_EINVAL;
    }
}

static void coll_done(struct nccl_comm *nc, int rank, int lane, int step, enum coll c,
                      size_t count, const char *label, double t0, double t1)
{
    struct comm_stats *st = &nc->rk[rank].stats[lane];
    size_t wire = coll_wire_bytes(c, nc->pub.nranks, count, sizeof(float));
    st->bytes_sent += wire;
    st->bytes_recv += wire;
    st->coll_bytes[c] += coll_bytes(c, nc->pub.nranks, count, sizeof(float));
    if (nc->pub.tl) {
        struct tl_event *e = timeline_add(nc->pub.tl, step, rank, lane, TL_COLLECTIVE,
                                          label ? label : coll_name(c), t0, t1);
        e->bytes = wire;
    }
}

/* One rank's part of a collective, queued on stream s: its numbers, sb its input and rb
 * its result (both inside its working buffer, or the caller's buffers). */
struct nc_call {
    ncclRedOp_t rop;
    size_t count;
    int root, rank, w;
    const float *sb;
    float *rb;
    ncclComm_t cm;
    cudaStream_t s;
};

static ncclResult_t nc_bcast(const struct nc_call *a)
{
    return ncclBroadcast(a->sb, a->rb, a->count, ncclFloat, a->root, a->cm, a->s);
}

static ncclResult_t nc_reduce(const struct nc_call *a)
{
    return ncclReduce(a->sb, a->rb, a->count, ncclFloat, a->rop, a->root, a->cm, a->s);
}

static ncclResult_t nc_allgather(const struct nc_call *a)
{
    return ncclAllGather(a->sb, a->rb, a->count, ncclFloat, a->cm, a->s);
}

static ncclResult_t nc_reducescatter(const struct nc_call *a)
{
    return ncclReduceScatter(a->sb, a->rb, a->count, ncclFloat, a->rop, a->cm, a->s);
}

static ncclResult_t nc_allreduce(const struct nc_call *a)
{
    return ncclAllReduce(a->sb, a->rb, a->count, ncclFloat, a->rop, a->cm, a->s);
}

#if NCCL_HAVE_ROOTED_P2P_COLLS
static ncclResult_t nc_scatter(const struct nc_call *a)
{
    return ncclScatter(a->sb, a->rb, a->count, ncclFloat, a->root, a->cm, a->s);
}

static ncclResult_t nc_gather(const struct nc_call *a)
{
    return ncclGather(a->sb, a->rb, a->count, ncclFloat, a->root, a->cm, a->s);
}

static ncclResult_t nc_alltoall(const struct nc_call *a)
{
    return ncclAlltoAll(a->sb, a->rb, a->count, ncclFloat, a->cm, a->s);
}
#else
/* The send/recv forms nccl-tests used before NCCL 2.28.3, in one group: block q of the
 * root's (scatter) or of every rank's (all-to-all) input goes to rank q, and what comes
 * from rank q lands at block q of the result. */
static ncclResult_t nc_group_end(ncclResult_t x)
{
    ncclResult_t end = ncclGroupEnd();
    return x != ncclSuccess ? x : end;
}

static ncclResult_t nc_scatter(const struct nc_call *a)
{
    ncclResult_t x = ncclGroupStart();
    if (x != ncclSuccess) return x;
    if (a->rank == a->root)
        for (int q = 0; q < a->w && x == ncclSuccess; q++)
            x = ncclSend(a->sb + (size_t)q * a->count, a->count, ncclFloat, q, a->cm, a->s);
    if (x == ncclSuccess) x = ncclRecv(a->rb, a->count, ncclFloat, a->root, a->cm, a->s);
    return nc_group_end(x);
}

static ncclResult_t nc_gather(const struct nc_call *a)
{
    ncclResult_t x = ncclGroupStart();
    if (x != ncclSuccess) return x;
    x = ncclSend(a->sb, a->count, ncclFloat, a->root, a->cm, a->s);
    if (a->rank == a->root)
        for (int q = 0; q < a->w && x == ncclSuccess; q++)
            x = ncclRecv(a->rb + (size_t)q * a->count, a->count, ncclFloat, q, a->cm, a->s);
    return nc_group_end(x);
}

static ncclResult_t nc_alltoall(const struct nc_call *a)
{
    ncclResult_t x = ncclGroupStart();
    if (x != ncclSuccess) return x;
    for (int q = 0; q < a->w && x == ncclSuccess; q++) {
        x = ncclSend(a->sb + (size_t)q * a->count, a->count, ncclFloat, q, a->cm, a->s);
        if (x == ncclSuccess)
            x = ncclRecv(a->rb + (size_t)q * a->count, a->count, ncclFloat, q, a->cm, a->s);
    }
    return nc_group_end(x);
}
#endif

/* NCCL's call for each of our collectives (NULL: NCCL has none; nc_run_from refuses it). */
static ncclResult_t (*const nc_enqueue[COLL_COUNT])(const struct nc_call *a) = {
    [COLL_BROADCAST] = nc_bcast,      [COLL_REDUCE] = nc_reduce,
    [COLL_ALL_GATHER] = nc_allgather, [COLL_REDUCE_SCATTER] = nc_reducescatter,
    [COLL_ALL_REDUCE] = nc_allreduce, [COLL_SCATTER] = nc_scatter,
    [COLL_GATHER] = nc_gather,        [COLL_ALL_TO_ALL] = nc_alltoall,
};

/* Queue collective c (a->...) with NCCL's call for it; ncclInvalidArgument when none. */
static ncclResult_t enqueue_coll(enum coll c, const struct nc_call *a)
{
    if ((unsigned)c >= COLL_COUNT || !nc_enqueue[c]) return ncclInvalidArgument;
    return nc_enqueue[c](a);
}

/* Run one collective on the coll stream: wait for the compute before it (so its time is
 * not counted), enqueue, wait. */
static int run_coll(struct nccl_comm *nc, int rank, enum coll c, size_t count, enum redop op,
                    const float *send, float *recv, const char *label)
{
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    if ((rc = check_coll(nc, rank, coll_name(c))) != CV_OK) return rc;
    struct nccl_rank *rk = &nc->rk[rank];
    ncclRedOp_t nop = ncclSum;
    if (coll_reduces(c) && to_nccl_op(op, &nop) != CV_OK)
        return fail(nc, rank, CV_EINVAL, "unknown reduction op %d", (int)op);
    if ((rc = wait_stream(nc, rank, rk->compute, "compute before a collective")) != CV_OK)
        return rc;
    double t0 = now_s();
    ncclComm_t cm = rk->comm[CL_COLL];
    cudaStream_t s = coll_stream(rk);
    struct nc_call call = {.rop = nop,
                           .count = count,
                           .rank = rank,
                           .w = nc->pub.nranks,
                           .sb = send,
                           .rb = recv,
                           .cm = cm,
                           .s = s};
    ncclResult_t r = enqueue_coll(c, &call);
    if ((rc = nccl_ck(nc, rank, r, cm, coll_name(c))) != CV_OK) return rc;
    if ((rc = wait_stream(nc, rank, s, coll_name(c))) != CV_OK) return rc;
    coll_done(nc, rank, 0, nc->pub.step[rank], c, count, label, t0, now_s());
    return CV_OK;
}

static int nc_all_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                         const char *label)
{
    return run_coll(to_nc(c), rank, COLL_ALL_REDUCE, count, op, buf, buf, label);
}

static int nc_all_gather(struct comm *c, int rank, const float *send, float *recv, size_t count,
                         const char *label)
{
    return run_coll(to_nc(c), rank, COLL_ALL_GATHER, count, OP_SUM, send, recv, label);
}

static int nc_reduce_scatter(struct comm *c, int rank, float *send, float *recv, size_t count,
                             enum redop op, const char *label)
{
    return run_coll(to_nc(c), rank, COLL_REDUCE_SCATTER, count, op, send, recv, label);
}

/* ---- point-to-point ---- */

static int check_peer(struct nccl_comm *nc, int rank, int peer)
{
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    if (peer < 0 || peer >= nc->pub.nranks || peer == rank)
        return fail(nc, rank, CV_EINVAL, "rank %d: peer %d is not another rank", rank, peer);
    if (peer != rank - 1 && peer != rank + 1)
        return fail(nc, rank, CV_EUNSUPPORTED,
                    "rank %d: NCCL send/recv here connects neighbouring ranks only (peer %d)",
                    rank, peer);
    if (!nc->p2p) return fail(nc, rank, CV_EINVAL, "communicator made without point-to-point");
    return CV_OK;
}

static int stage_new(struct nccl_comm *nc, int rank, size_t n, struct stage_buf **out);

/* A staging buffer of at least n floats whose last send has completed. */
static int stage_get(struct nccl_comm *nc, int rank, size_t n, struct stage_buf **out)
{
    struct nccl_rank *rk = &nc->rk[rank];
    for (size_t i = 0; i < rk->nstage; i++) {
        struct stage_buf *b = &rk->stage[i];
        if (b->cap >= n && (!b->used || cudaEventQuery(b->done) == cudaSuccess)) {
            *out = b;
            return CV_OK;
        }
    }
    return stage_new(nc, rank, n, out);
}

/* A new staging buffer of n floats (the rank's array of them grows: earlier pointers into
 * it are stale afterwards). */
static int stage_new(struct nccl_comm *nc, int rank, size_t n, struct stage_buf **out)
{
    struct nccl_rank *rk = &nc->rk[rank];
    rk->stage = xrealloc(rk->stage, (rk->nstage + 1) * sizeof *rk->stage);
    struct stage_buf *b = &rk->stage[rk->nstage];
    memset(b, 0, sizeof *b);
    int rc = cuda_ck(nc, rank, cudaMalloc((void **)&b->p, (n ? n : 1) * sizeof(float)),
                     "cudaMalloc (send staging)");
    if (rc != CV_OK) return rc;
    rc = cuda_ck(nc, rank, cudaEventCreateWithFlags(&b->done, cudaEventDisableTiming),
                 "cudaEventCreate");
    if (rc != CV_OK) {
        cudaFree(b->p);
        return rc;
    }
    b->cap = n ? n : 1;
    rk->nstage++;
    rk->stage_bytes += b->cap * sizeof(float);
    *out = b;
    return CV_OK;
}

/* Every staging buffer the rank's sends will need, made before its first send. */
static int nc_reserve_send(struct comm *c, int rank, size_t count, int nbufs)
{
    struct nccl_comm *nc = to_nc(c);
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    struct stage_buf *b;
    while (rc == CV_OK && nc->rk[rank].nstage < (size_t)nbufs)
        rc = stage_new(nc, rank, count, &b);
    return rc;
}

static void meta_push(struct meta_q *q, int tag, size_t count)
{
    pthread_mutex_lock(&q->mu);
    if (q->head + q->n == q->cap) {
        if (q->head > 0) {
            memmove(q->tag, q->tag + q->head, q->n * sizeof *q->tag);
            memmove(q->count, q->count + q->head, q->n * sizeof *q->count);
            q->head = 0;
        } else { /* two arrays of one capacity */
            size_t cap = q->cap;
            VEC_GROW(q->tag, cap, q->n + 1);
            q->count = xrealloc(q->count, cap * sizeof *q->count);
            q->cap = cap;
        }
    }
    q->tag[q->head + q->n] = tag;
    q->count[q->head + q->n] = count;
    q->n++;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

static int nc_send(struct comm *c, int rank, int peer, int tag, const float *buf, size_t count,
                   const char *label)
{
    struct nccl_comm *nc = to_nc(c);
    int rc = check_peer(nc, rank, peer);
    if (rc != CV_OK) return rc;
    struct nccl_rank *rk = &nc->rk[rank];
    double t0 = now_s();
    bool up = peer == rank + 1;
    ncclComm_t cm = rk->comm[(up ? CL_UP0 : CL_DOWN0) + rank % 2];
    cudaStream_t s = up ? rk->send_up : rk->send_down;
    struct stage_buf *b;
    if ((rc = stage_get(nc, rank, count, &b)) != CV_OK) return rc;
    /* The copy runs on the compute stream behind whatever produced buf; the send stream
     * waits for it, so the caller may overwrite buf as soon as we return. */
    if ((rc = cuda_ck(nc, rank,
                      cudaMemcpyAsync(b->p, buf, count * sizeof(float),
                                      cudaMemcpyDeviceToDevice, rk->compute),
                      "send staging copy")) != CV_OK ||
        (rc = cuda_ck(nc, rank, cudaEventRecord(rk->ev_copy, rk->compute),
                      "cudaEventRecord")) != CV_OK ||
        (rc = cuda_ck(nc, rank, cudaStreamWaitEvent(s, rk->ev_copy, 0),
                      "cudaStreamWaitEvent")) != CV_OK)
        return rc;
    if ((rc = nccl_ck(nc, rank, ncclSend(b->p, count, ncclFloat, peer, cm, s), cm,
                      "ncclSend")) != CV_OK)
        return rc;
    if ((rc = cuda_ck(nc, rank, cudaEventRecord(b->done, s), "cudaEventRecord")) != CV_OK)
        return rc;
    b->used = true;
    if (!nc->mp) meta_push(&nc->mq[rank * c->nranks + peer], tag, count);
    struct comm_stats *st = &rk->stats[0];
    st->bytes_sent += count * sizeof(float);
    st->p2p_bytes += count * sizeof(float);
    if (c->tl)
        timeline_add_p2p(c->tl, c->step[rank], rank, TL_SEND, label ? label : "send", peer, tag,
                         count * sizeof(float), NULL, t0, t0, now_s());
    return CV_OK;
}

/* In one process: wait for the sender's (tag, count) (it says the message was sent) and
 * check it against what the receiver expects. */
static int recv_meta(struct nccl_comm *nc, int rank, int peer, int tag, size_t count)
{
    struct comm *c = &nc->pub;
    struct meta_q *q = &nc->mq[peer * c->nranks + rank];
    pthread_mutex_lock(&q->mu);
    struct timespec dl = deadline_after(c->timeout_s);
    while (q->n == 0 && !is_aborted(nc)) {
        if (pthread_cond_timedwait(&q->cv, &q->mu, &dl) == ETIMEDOUT && q->n == 0) {
            pthread_mutex_unlock(&q->mu);
            return fail(nc, rank, CV_ETIMEOUT,
                        "rank %d waited more than %.1f s for tag %d from rank %d", rank,
                        c->timeout_s, tag, peer);
        }
    }
    if (is_aborted(nc)) {
        pthread_mutex_unlock(&q->mu);
        return fail_aborted(nc, rank);
    }
    int mtag = q->tag[q->head];
    size_t mcount = q->count[q->head];
    q->head++;
    if (--q->n == 0) q->head = 0;
    pthread_mutex_unlock(&q->mu);
    if (mtag != tag || mcount != count)
        return fail(nc, rank, CV_EBACKEND,
                    "rank %d expected tag %d (%zu elements) from rank %d, got tag %d (%zu)",
                    rank, tag, count, peer, mtag, mcount);
    return CV_OK;
}

static int nc_recv(struct comm *c, int rank, int peer, int tag, float *buf, size_t count,
                   const char *label)
{
    struct nccl_comm *nc = to_nc(c);
    int rc = check_peer(nc, rank, peer);
    if (rc != CV_OK) return rc;
    struct nccl_rank *rk = &nc->rk[rank];
    double t0 = now_s();
    if (!nc->mp && (rc = recv_meta(nc, rank, peer, tag, count)) != CV_OK) return rc;
    bool from_below = peer == rank - 1;
    /* The sender's clique: messages going up from `peer` travel in UP<peer parity>. */
    ncclComm_t cm = rk->comm[(from_below ? CL_UP0 : CL_DOWN0) + peer % 2];
    cudaStream_t s = from_below ? rk->recv_up : rk->recv_down;
    /* buf may still be read by queued compute: receive only after it. */
    if ((rc = wait_stream(nc, rank, rk->compute, "compute before a recv")) != CV_OK) return rc;
    if ((rc = nccl_ck(nc, rank, ncclRecv(buf, count, ncclFloat, peer, cm, s), cm,
                      "ncclRecv")) != CV_OK)
        return rc;
    if ((rc = wait_stream(nc, rank, s, label ? label : "recv")) != CV_OK) return rc;
    double t1 = now_s();
    rk->stats[0].bytes_recv += count * sizeof(float);
    if (c->tl)
        timeline_add_p2p(c->tl, c->step[rank], rank, TL_RECV, label ? label : "recv", peer, tag,
                         count * sizeof(float), NULL, t0, t0, t1);
    return CV_OK;
}

/* ---- barrier ---- */

/* Across processes: an MPI collective that also tells every process whether one of them
 * has aborted (so a failed rank does not leave the others in the barrier). */
static int mp_barrier(struct nccl_comm *nc, int rank)
{
#ifdef HAVE_MPI
    int bad = is_aborted(nc) ? 1 : 0;
    if (launcher_max_int(&bad) != CV_OK)
        return fail(nc, rank, CV_EBACKEND, "rank %d: the MPI barrier failed", rank);
    if (bad) {
        if (!is_aborted(nc))
            return fail(nc, rank, CV_EBACKEND, "another process of the job failed");
        return fail_aborted(nc, rank);
    }
    return CV_OK;
#else
    return fail(nc, rank, CV_EUNSUPPORTED, "ranks as processes need MPI (not built)");
#endif
}

static int nc_barrier(struct comm *c, int rank)
{
    struct nccl_comm *nc = to_nc(c);
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    struct nccl_rank *rk = &nc->rk[rank];
    /* Everything this rank queued, sends included (their receivers have all received by
     * the time they reach the barrier, so this cannot wait on anyone who waits on us). */
    cudaStream_t s[6] = {rk->compute,   rk->side,    rk->send_up,
                         rk->send_down, rk->recv_up, rk->recv_down};
    for (int i = 0; i < 6 && rc == CV_OK; i++)
        if (s[i]) rc = wait_stream(nc, rank, s[i], "barrier");
    if (rc != CV_OK) return rc;
    if (nc->mp) return mp_barrier(nc, rank);
    pthread_mutex_lock(&nc->bar_mu);
    unsigned gen = nc->bar_gen;
    if (++nc->bar_arrived == c->nranks) {
        nc->bar_arrived = 0;
        nc->bar_gen++;
        pthread_cond_broadcast(&nc->bar_cv);
        pthread_mutex_unlock(&nc->bar_mu);
        return CV_OK;
    }
    struct timespec dl = deadline_after(c->timeout_s);
    while (gen == nc->bar_gen && !is_aborted(nc)) {
        if (pthread_cond_timedwait(&nc->bar_cv, &nc->bar_mu, &dl) == ETIMEDOUT &&
            gen == nc->bar_gen) {
            pthread_mutex_unlock(&nc->bar_mu);
            return fail(nc, rank, CV_ETIMEOUT, "rank %d waited more than %.1f s at a barrier",
                        rank, c->timeout_s);
        }
    }
    bool ok = gen != nc->bar_gen;
    pthread_mutex_unlock(&nc->bar_mu);
    return ok ? CV_OK : fail_aborted(nc, rank);
}

/* ---- async all-reduce (lane 1: the second stream, the collectives' clique) ---- */

static int nc_istart(struct comm *c, int rank, enum coll kind, const float *send, float *buf,
                     size_t count, enum redop op, const char *label, struct comm_req **reqp);

static int nc_iall_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                          const char *label, struct comm_req **reqp)
{
    return nc_istart(c, rank, COLL_ALL_REDUCE, buf, buf, count, op, label, reqp);
}

static int nc_icollective(struct comm *c, int rank, enum coll kind, const float *send,
                          float *recv, size_t count, enum redop op, const char *label,
                          struct comm_req **reqp)
{
    *reqp = NULL;
    if (kind != COLL_ALL_GATHER && kind != COLL_REDUCE_SCATTER)
        return fail(to_nc(c), rank, CV_EINVAL, "icollective: %s has no asynchronous form",
                    coll_name(kind));
    return nc_istart(c, rank, kind, send, recv, count, op, label, reqp);
}

/* Queue one collective on the side stream after the compute queued so far (lane 1). */
static int nc_istart(struct comm *c, int rank, enum coll kind, const float *send, float *buf,
                     size_t count, enum redop op, const char *label, struct comm_req **reqp)
{
    struct nccl_comm *nc = to_nc(c);
    *reqp = NULL;
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    /* (an async lane is made only with the collectives: comm_nccl_create) */
    if (!nc->async) return fail(nc, rank, CV_EINVAL, "communicator made without async lane");
    struct nccl_rank *rk = &nc->rk[rank];
    ncclRedOp_t nop;
    if (to_nccl_op(op, &nop) != CV_OK)
        return fail(nc, rank, CV_EINVAL, "unknown reduction op %d", (int)op);
    struct comm_req *q = xcalloc(1, sizeof *q);
    q->rank = rank;
    q->step = c->step[rank];
    q->bytes = coll_wire_bytes(kind, c->nranks, count, sizeof(float));
    snprintf(q->label, sizeof q->label, "%s", label ? label : coll_name(kind));
    if ((rc = cuda_ck(nc, rank, cudaEventCreate(&q->base), "cudaEventCreate")) != CV_OK ||
        (rc = cuda_ck(nc, rank, cudaEventCreate(&q->start), "cudaEventCreate")) != CV_OK ||
        (rc = cuda_ck(nc, rank, cudaEventCreate(&q->end), "cudaEventCreate")) != CV_OK)
        goto out;
    /* The base event closes the compute that produced buf; its host time anchors the
     * lane-1 event times (CUDA event times are relative to each other only). */
    if ((rc = cuda_ck(nc, rank, cudaEventRecord(q->base, rk->compute), "cudaEventRecord")) !=
            CV_OK ||
        (rc = wait_stream(nc, rank, rk->compute, "compute before an async all-reduce")) !=
            CV_OK)
        goto out;
    q->t_base = now_s();
    ncclComm_t cm = rk->comm[CL_COLL];
    struct nc_call call = {.rop = nop,
                           .count = count,
                           .rank = rank,
                           .w = c->nranks,
                           .sb = send,
                           .rb = buf,
                           .cm = cm,
                           .s = rk->side};
    if ((rc = cuda_ck(nc, rank, cudaStreamWaitEvent(rk->side, q->base, 0),
                      "cudaStreamWaitEvent")) != CV_OK ||
        (rc = cuda_ck(nc, rank, cudaEventRecord(q->start, rk->side), "cudaEventRecord")) !=
            CV_OK ||
        (rc = nccl_ck(nc, rank, enqueue_coll(kind, &call), cm, "NCCL collective (async)")) !=
            CV_OK ||
        (rc = cuda_ck(nc, rank, cudaEventRecord(q->end, rk->side), "cudaEventRecord")) != CV_OK)
        goto out;
    rk->stats[1].coll_bytes[kind] += coll_bytes(kind, c->nranks, count, sizeof(float));
    rk->stats[1].bytes_sent += q->bytes;
    rk->stats[1].bytes_recv += q->bytes;
    *reqp = q;
    return CV_OK;
out:
    if (q->base) cudaEventDestroy(q->base);
    if (q->start) cudaEventDestroy(q->start);
    if (q->end) cudaEventDestroy(q->end);
    free(q);
    return rc;
}

static int nc_wait(struct comm *c, int rank, struct comm_req *q)
{
    struct nccl_comm *nc = to_nc(c);
    if (!q) return CV_OK;
    int rc = enter(nc, rank);
    double t0 = now_s();
    bool waited = rc == CV_OK && cudaEventQuery(q->end) == cudaErrorNotReady;
    if (rc == CV_OK) rc = wait_until(nc, rank, NULL, q->end, q->label);
    double t1 = now_s();
    if (rc == CV_OK && c->tl) {
        if (waited) {
            char lab[40];
            snprintf(lab, sizeof lab, "wait %.26s", q->label);
            timeline_add(c->tl, q->step, rank, 0, TL_IDLE, lab, t0, t1);
        }
        float ms0 = 0, ms1 = 0;
        if (cudaEventElapsedTime(&ms0, q->base, q->start) == cudaSuccess &&
            cudaEventElapsedTime(&ms1, q->base, q->end) == cudaSuccess) {
            struct tl_event *e = timeline_add(c->tl, q->step, rank, 1, TL_COLLECTIVE, q->label,
                                              q->t_base + ms0 * 1e-3, q->t_base + ms1 * 1e-3);
            e->bytes = q->bytes;
        }
    }
    cudaEventDestroy(q->base);
    cudaEventDestroy(q->start);
    cudaEventDestroy(q->end);
    free(q);
    return rc;
}

/* ---- counters, abort, destroy ---- */

static void nc_stats(struct comm *c, int rank, struct comm_stats *out)
{
    struct nccl_comm *nc = to_nc(c);
    memset(out, 0, sizeof *out);
    for (int li = 0; li < 2; li++) {
        const struct comm_stats *s = &nc->rk[rank].stats[li];
        out->bytes_sent += s->bytes_sent;
        out->bytes_recv += s->bytes_recv;
        out->p2p_bytes += s->p2p_bytes;
        for (int k = 0; k < COLL_COUNT; k++)
            out->coll_bytes[k] += s->coll_bytes[k];
    }
}

static void nc_reset_stats(struct comm *c, int rank)
{
    memset(to_nc(c)->rk[rank].stats, 0, sizeof to_nc(c)->rk[rank].stats);
}

/* Our staging buffers only (buf_alloc's working buffers are their caller's to count;
 * NCCL's own channel buffers are not reported by NCCL). */
static size_t nc_mem_bytes(struct comm *c, int rank)
{
    return to_nc(c)->rk[rank].stage_bytes;
}

static void nc_abort(struct comm *c, const char *why)
{
    set_abort(to_nc(c), why ? why : "aborted");
}

/* "" while nothing has failed (backend/run.c takes a message as a failed communicator). */
static const char *nc_last_error(struct comm *c)
{
    return to_nc(c)->err;
}

void nc_destroy(struct comm *c)
{
    struct nccl_comm *nc = to_nc(c);
    if (!nc) return;
    int w = c->nranks;
    for (int r = 0; r < w; r++) {
        struct nccl_rank *rk = &nc->rk[r];
        if (!rk->live) continue;
        if (cudaSetDevice(rk->gpu) != cudaSuccess) continue;
        /* Sends may still be in flight (their receivers take them after the sender has
         * finished its part): let them complete, within the deadline, before destroying. */
        if (!is_aborted(nc) && !drained(rk, c->timeout_s))
            set_abort(nc, "NCCL work still running at destroy");
        if (is_aborted(nc)) {
            abort_own(nc, r);
        } else {
            for (int k = 0; k < CL_COUNT; k++)
                if (rk->comm[k]) ncclCommDestroy(rk->comm[k]);
            memset(rk->comm, 0, sizeof rk->comm);
        }
    }
    for (int r = 0; r < w; r++) {
        struct nccl_rank *rk = &nc->rk[r];
        if (!rk->live || cudaSetDevice(rk->gpu) != cudaSuccess) continue;
        /* After an abort that left kernels running, nothing that synchronises is called. */
        bool wedged = rk->wedged;
        for (size_t i = 0; i < rk->nstage && !wedged; i++) {
            cudaFree(rk->stage[i].p);
            cudaEventDestroy(rk->stage[i].done);
        }
        free(rk->stage);
        for (size_t i = 0; i < rk->nwork && !wedged; i++)
            cudaFree(rk->work[i].p);
        free(rk->work);
        if (!wedged) {
            cudaStream_t s[5] = {rk->side, rk->send_up, rk->send_down, rk->recv_up,
                                 rk->recv_down};
            for (int i = 0; i < 5; i++)
                if (s[i]) cudaStreamDestroy(s[i]);
            if (rk->own_compute && rk->compute) cudaStreamDestroy(rk->compute);
            for (int i = 0; i < NCCL_PROGRESS_EVENTS; i++)
                if (rk->prog[i]) cudaEventDestroy(rk->prog[i]);
            if (rk->ev_copy) cudaEventDestroy(rk->ev_copy);
        }
    }
    for (int i = 0; nc->mq && i < w * w; i++) {
        pthread_mutex_destroy(&nc->mq[i].mu);
        pthread_cond_destroy(&nc->mq[i].cv);
        free(nc->mq[i].tag);
        free(nc->mq[i].count);
    }
    free(nc->mq);
    pthread_mutex_destroy(&nc->bar_mu);
    pthread_cond_destroy(&nc->bar_cv);
    pthread_mutex_destroy(&nc->err_mu);
    free(nc);
}

/* ---- the runtime side (backend/run.c) ---- */

/* Record why a call failed without aborting the communicator (a buffer that does not fit
 * leaves it usable). */
static void note_error(struct nccl_comm *nc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note_error(struct nccl_comm *nc, const char *fmt, ...)
{
    if (is_aborted(nc)) return; /* the abort's reason stays */
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&nc->err_mu);
    vsnprintf(nc->err, sizeof nc->err, fmt, ap);
    pthread_mutex_unlock(&nc->err_mu);
    va_end(ap);
}

/* Device memory of the rank's GPU, refused before allocating when it would not leave
 * NCCL_MEM_HEADROOM free. Every element starts as NaN (all bits set), so one NCCL never
 * wrote counts as wrong. */
static int nc_buf_alloc(struct comm *c, int rank, size_t count, float **out)
{
    struct nccl_comm *nc = to_nc(c);
    *out = NULL;
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc; /* an abort's echo, or a rank not ours: no want of memory */
    struct nccl_rank *rk = &nc->rk[rank];
    size_t n = count ? count : 1;
    if (n > (SIZE_MAX - NCCL_MEM_HEADROOM) / sizeof(float)) {
        note_error(nc, "%zu elements on GPU %d overflow memory sizes", count, rk->gpu);
        return CV_ENOMEM;
    }
    size_t need = n * sizeof(float), free_b = 0, total_b = 0;
    cudaError_t e = cudaMemGetInfo(&free_b, &total_b);
    if (e != cudaSuccess) {
        note_error(nc, "cudaMemGetInfo on GPU %d: %s (%s)", rk->gpu, cudaGetErrorName(e),
                   cudaGetErrorString(e));
        return CV_EBACKEND;
    }
    if (free_b < NCCL_MEM_HEADROOM || need > free_b - NCCL_MEM_HEADROOM) {
        char s_need[32], s_free[32], s_room[32];
        format_size(need, s_need, sizeof s_need);
        format_size(free_b, s_free, sizeof s_free);
        format_size(NCCL_MEM_HEADROOM, s_room, sizeof s_room);
        note_error(nc, "rank %d needs %s on GPU %d, which has %s free (keeping %s for NCCL)",
                   rank, s_need, rk->gpu, s_free, s_room);
        return CV_ENOMEM;
    }
    float *p = NULL;
    e = cudaMalloc((void **)&p, need);
    if (e == cudaSuccess) e = cudaMemsetAsync(p, 0xff, need, coll_stream(rk));
    if (e != cudaSuccess) {
        if (p) cudaFree(p);
        note_error(nc, "cudaMalloc of %zu bytes on GPU %d: %s (%s)", need, rk->gpu,
                   cudaGetErrorName(e), cudaGetErrorString(e));
        return e == cudaErrorMemoryAllocation ? CV_ENOMEM : CV_EBACKEND;
    }
    rk->work = xrealloc(rk->work, (rk->nwork + 1) * sizeof *rk->work);
    rk->work[rk->nwork++] = (struct work_buf){p, need};
    /* No wait for the memset here: put and get wait for this stream first (nc_copy), and a
     * deadline passed there is reported as one (CV_ETIMEOUT), not as a want of memory. */
    *out = p;
    return CV_OK;
}

static void nc_buf_free(struct comm *c, int rank, float *buf)
{
    struct nccl_comm *nc = to_nc(c);
    if (!buf || rank < 0 || rank >= c->nranks || !nc->rk[rank].live) return;
    struct nccl_rank *rk = &nc->rk[rank];
    if (rk->wedged) return; /* cudaFree would wait for kernels that never finish */
    if (cudaSetDevice(rk->gpu) != cudaSuccess) return;
    for (size_t i = 0; i < rk->nwork; i++)
        if (rk->work[i].p == buf) {
            rk->work[i] = rk->work[--rk->nwork];
            break;
        }
    cudaFree(buf);
}

/* Copies wait for the rank's queued work first (with the deadline), so a copy never
 * blocks on a collective that is stuck. */
static int nc_copy(struct comm *c, int rank, void *dst, const void *src, size_t count,
                   enum cudaMemcpyKind kind)
{
    struct nccl_comm *nc = to_nc(c);
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    bool in = kind == cudaMemcpyHostToDevice;
    if ((rc = wait_stream(nc, rank, coll_stream(&nc->rk[rank]),
                          in ? "work before a copy in" : "work before a copy out")) != CV_OK)
        return rc;
    if (!count) return CV_OK;
    return cuda_ck(nc, rank, cudaMemcpy(dst, src, count * sizeof(float), kind),
                   in ? "cudaMemcpy (host to device)" : "cudaMemcpy (device to host)");
}

static int nc_put(struct comm *c, int rank, float *buf, size_t off, const float *src,
                  size_t count)
{
    return nc_copy(c, rank, buf + off, src, count, cudaMemcpyHostToDevice);
}

static int nc_get(struct comm *c, int rank, const float *buf, size_t off, float *dst,
                  size_t count)
{
    return nc_copy(c, rank, dst, buf + off, count, cudaMemcpyDeviceToHost);
}

/* All-to-all-v (a plan with per-pair counts, core/plan.h): NCCL has no collective for
 * it, so, as nccl-tests' alltoall and every MoE dispatch on NCCL do, one group of
 * ncclSend/ncclRecv, one pair per peer (blocks of 0 left out), at the plan's packed
 * offsets: block q of the send half goes to rank q, what rank q sends lands after the
 * blocks of ranks 0..q-1. */
static ncclResult_t enqueue_a2av(const struct plan *p, int rank, const float *sb, float *rb,
                                 ncclComm_t cm, cudaStream_t s)
{
    size_t w = (size_t)p->nranks, me = (size_t)rank, so = 0, ro = 0;
    ncclResult_t x = ncclGroupStart();
    if (x != ncclSuccess) return x;
    for (size_t q = 0; q < w && x == ncclSuccess; q++) {
        size_t ns = p->vcounts[me * w + q], nr = p->vcounts[q * w + me];
        if (ns) x = ncclSend(sb + so, ns, ncclFloat, (int)q, cm, s);
        if (x == ncclSuccess && nr) x = ncclRecv(rb + ro, nr, ncclFloat, (int)q, cm, s);
        so += ns;
        ro += nr;
    }
    ncclResult_t end = ncclGroupEnd();
    return x != ncclSuccess ? x : end;
}

/* NCCL's own collective for the job (it picks its algorithm: the plan's steps are not
 * run), queued on the rank's coll stream; sync() waits for it. send: the input (out of
 * place), or NULL for the working buffer's (in place, NCCL's in-place pointers). */
static int nc_run_from(struct comm *c, int rank, const struct comm_job *j, const float *send,
                       float *work)
{
    struct nccl_comm *nc = to_nc(c);
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    int w = c->nranks;
    if ((unsigned)j->coll >= COLL_COUNT)
        return fail(nc, rank, CV_EINVAL, "unknown collective %d", (int)j->coll);
    if ((rc = check_coll(nc, rank, coll_name(j->coll))) != CV_OK) return rc;
    if (coll_is_rooted(j->coll) && (j->root < 0 || j->root >= w))
        return fail(nc, rank, CV_EINVAL, "root %d is not a rank of %d", j->root, w);
    ncclRedOp_t nop = ncclSum;
    if (coll_reduces(j->coll) && to_nccl_op(j->op, &nop) != CV_OK)
        return fail(nc, rank, CV_EINVAL, "unknown reduction op %d", (int)j->op);
    struct nccl_rank *rk = &nc->rk[rank];
    ncclComm_t cm = rk->comm[CL_COLL];
    const float *sb = send ? send : work + coll_in_off(j->coll, w, j->count, rank);
    float *rb = work + coll_out_off(j->coll, w, j->count, rank);
    bool v = j->plan && j->plan->vcounts && j->coll == COLL_ALL_TO_ALL;
    struct nc_call call = {.rop = nop,
                           .count = j->count,
                           .root = j->root,
                           .rank = rank,
                           .w = w,
                           .sb = sb,
                           .rb = rb,
                           .cm = cm,
                           .s = coll_stream(rk)};
    ncclResult_t x = v ? enqueue_a2av(j->plan, rank, sb, rb, cm, coll_stream(rk))
                       : enqueue_coll(j->coll, &call);
    if ((rc = nccl_ck(nc, rank, x, cm, coll_name(j->coll))) != CV_OK) return rc;
    /* A progress mark, unless the ring is full (then the next one marks more). */
    if (rk->prog[0] && rk->prog_issued - rk->prog_done < NCCL_PROGRESS_EVENTS) {
        cudaEvent_t ev = rk->prog[rk->prog_issued % NCCL_PROGRESS_EVENTS];
        if ((rc = cuda_ck(nc, rank, cudaEventRecord(ev, coll_stream(rk)), "cudaEventRecord")) !=
            CV_OK)
            return rc;
        rk->prog_issued++;
    }
    struct comm_stats *st = &rk->stats[0];
    st->coll_bytes[j->coll] += coll_bytes(j->coll, w, j->count, sizeof(float));
    return CV_OK;
}

static int nc_run(struct comm *c, int rank, const struct comm_job *j, float *work)
{
    return nc_run_from(c, rank, j, NULL, work);
}

/* Out of place: NCCL is given the two buffers, as nccl-tests' first group. */
static int nc_run_oop(struct comm *c, int rank, const struct comm_job *j, const float *send,
                      float *work)
{
    return nc_run_from(c, rank, j, send, work);
}

static int nc_sync(struct comm *c, int rank)
{
    struct nccl_comm *nc = to_nc(c);
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    return wait_stream(nc, rank, coll_stream(&nc->rk[rank]), "a collective");
}

/* ---- across processes (comm.h's proc_*): MPI over every process of the job ---- */

#ifdef HAVE_MPI
static int nc_proc_sum(struct comm *c, void *buf, size_t n, enum comm_proc_type t)
{
    (void)c;
    return launcher_sum(buf, n, t);
}

static int nc_proc_max(struct comm *c, double *v)
{
    /* The largest double through the processes' values side by side. */
    int w = c->nranks;
    double *all = xcalloc((size_t)w, sizeof *all);
    int rc = launcher_allgather(v, all, sizeof *v);
    for (int r = 0; rc == CV_OK && r < w; r++)
        if (all[r] > *v || isnan(all[r])) *v = all[r];
    free(all);
    return rc;
}

static int nc_proc_bcast(struct comm *c, void *buf, size_t bytes, int root)
{
    (void)c;
    return launcher_bcast(buf, bytes, root);
}

static int nc_proc_allgather(struct comm *c, const void *mine, size_t bytes, void **all,
                             size_t *counts)
{
    int w = c->nranks;
    *all = NULL;
    unsigned long long my = bytes, sizes[CV_MAX_RANKS];
    int rc = launcher_allgather(&my, sizes, sizeof my);
    if (rc != CV_OK) return rc;
    size_t total = 0;
    for (int r = 0; r < w; r++)
        total += counts[r] = (size_t)sizes[r];
    char *out = xmalloc(total ? total : 1);
    size_t at = 0;
    for (int r = 0; rc == CV_OK && r < w; r++) {
        if (r == c->self && bytes) memcpy(out + at, mine, bytes);
        if (counts[r]) rc = launcher_bcast(out + at, counts[r], r);
        at += counts[r];
    }
    if (rc != CV_OK) {
        free(out);
        return rc;
    }
    *all = out;
    return CV_OK;
}
#endif

#define NCCL_COMM_OPS                                                                          \
    .name = "nccl", .all_reduce = nc_all_reduce, .all_gather = nc_all_gather,                  \
    .reduce_scatter = nc_reduce_scatter, .send = nc_send, .recv = nc_recv,                     \
    .barrier = nc_barrier, .iall_reduce = nc_iall_reduce, .icollective = nc_icollective,       \
    .wait = nc_wait, .stats = nc_stats, .reset_stats = nc_reset_stats,                         \
    .mem_bytes = nc_mem_bytes, .reserve_send = nc_reserve_send, .abort = nc_abort,             \
    .last_error = nc_last_error, .destroy = nc_destroy, .buf_alloc = nc_buf_alloc,             \
    .buf_free = nc_buf_free, .put = nc_put, .get = nc_get, .run = nc_run,                      \
    .run_oop = nc_run_oop, .sync = nc_sync, .rank_noun = "GPU", .slice_bytes = 0

/* Every rank a thread of this process. */
const struct comm_ops nccl_comm_ops = {NCCL_COMM_OPS};

#ifdef HAVE_MPI
/* Every rank a process: the records are combined over MPI. */
const struct comm_ops nccl_comm_ops_mp = {
    NCCL_COMM_OPS,
    .proc_sum = nc_proc_sum,
    .proc_max = nc_proc_max,
    .proc_bcast = nc_proc_bcast,
    .proc_allgather = nc_proc_allgather,
};
#endif

#endif
