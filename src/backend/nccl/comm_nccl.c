/* comm_nccl.c - comm.h's communicator on NCCL (see comm_nccl.h), built only with HAVE_NCCL.
 *
 * NOT YET RUN ON A GPU: written on machines without one. `make test` runs it on emulated
 * devices (tests/fakegpu: NCCL's documented semantics, lazy connection included), where
 * every scheme matches the CPU reference; nothing about real NCCL timing or its kernels is
 * claimed until tests/gpu/run.sh's training section (`make gpu-test`) has run on GPUs.
 *
 * Communicators. All made by ncclCommInitAll from the creating (main) thread, before the
 * rank threads start; after that each rank's handles are used only by its own thread
 * (NCCL communicators are not thread-safe), except destroy, which runs after the threads
 * have ended. Several cliques, each its own ncclCommInitAll:
 *   COLL   - lane 0 collectives, on the rank's compute stream (the device's stream);
 *   ASYNC  - iall_reduce, on a second stream per rank (lane 1, DDP overlap);
 *   UP0/UP1, DOWN0/DOWN1 - point-to-point, see below.
 * A clique per use keeps every communicator on exactly one stream, so no ordering between
 * streams of one communicator is ever needed.
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
 * on its own stream and waits for it. Only neighbours (r, r±1) can be connected this way,
 * which is what the pipeline uses; other pairs are refused.
 *
 * Waiting and deadlines (nccl-tests' testStreamSynchronize): every wait polls
 * cudaStreamQuery on the streams and ncclCommGetAsyncError on the rank's communicators
 * against comm->timeout_s. A failure or a missed deadline sets the shared abort flag with
 * the reason; every rank that sees it calls ncclCommAbort on its own communicators (which
 * releases NCCL kernels stuck waiting for a peer) and returns CV_EBACKEND. Communicators a
 * rank never got to abort are aborted by destroy. Streams that do not drain within
 * NCCL_DRAIN_S after an abort mark the device wedged, so its buffers are never freed under
 * running kernels.
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
#include "comm_nccl.h"

#ifdef HAVE_NCCL

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "../../core/util.h"
#include "../../parallel/dev_cuda.h"
#include "../../core/wait.h"

#define NCCL_DRAIN_S 5.0

enum clique { CL_COLL, CL_ASYNC, CL_UP0, CL_UP1, CL_DOWN0, CL_DOWN1, CL_COUNT };

struct stage_buf {
    float *p;
    size_t cap;       /* floats */
    cudaEvent_t done; /* recorded after the ncclSend that reads it */
    bool used;        /* has carried a send (done is meaningful) */
};

/* (tag, count) of the messages of one ordered pair, sent but not yet received. */
struct meta_q {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int *tag;
    size_t *count;
    size_t head, n, cap;
};

struct nccl_rank {
    struct dev *dev;
    int gpu;
    cudaStream_t compute; /* the device's stream */
    ncclComm_t comm[CL_COUNT];
    bool aborted_own;  /* this rank's communicators were aborted */
    bool wedged;       /* its streams did not drain after the abort */
    cudaStream_t side; /* ASYNC */
    cudaStream_t send_up, send_down, recv_up, recv_down; /* p2p roles */
    cudaEvent_t ev_copy;                                 /* staging copy done */
    struct stage_buf *stage;
    size_t nstage;
    size_t stage_bytes;
    struct comm_stats stats[2];
};

struct comm_req {
    int rank, step;
    cudaEvent_t base, start, end;
    double t_base;
    size_t bytes;
    char label[32];
};

struct nccl_comm {
    struct comm pub;
    bool async, p2p;
    struct nccl_rank rk[CV_MAX_RANKS];
    struct meta_q *mq; /* [src * nranks + dst] */
    /* host barrier */
    pthread_mutex_t bar_mu;
    pthread_cond_t bar_cv;
    int bar_arrived;
    unsigned bar_gen;
    atomic_int aborted;
    pthread_mutex_t err_mu;
    char err[256];
};

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

static bool stream_idle(cudaStream_t s)
{
    return !s || cudaStreamQuery(s) != cudaErrorNotReady;
}

/* Give the rank's streams NCCL_DRAIN_S to finish after an abort; otherwise its device is
 * wedged (its memory must not be freed under running kernels). */
static void drain_rank(struct nccl_rank *rk)
{
    cudaStream_t s[6] = {rk->compute,   rk->side,    rk->send_up,
                         rk->send_down, rk->recv_up, rk->recv_down};
    double t0 = now_s();
    for (;;) {
        bool busy = false;
        for (int i = 0; i < 6; i++)
            if (!stream_idle(s[i])) busy = true;
        if (!busy) return;
        if (now_s() - t0 > NCCL_DRAIN_S) {
            rk->wedged = true;
            dev_cuda_mark_wedged(rk->dev);
            return;
        }
        struct timespec ts = {0, 100 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Called only by the rank's own thread (or destroy, after the threads ended). */
static void abort_own(struct nccl_comm *nc, int rank)
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
 * polling it, the rank's communicators' async errors, the abort flag and the deadline. */
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
    if (is_aborted(nc)) return fail_aborted(nc, rank);
    return cuda_ck(nc, rank, cudaSetDevice(nc->rk[rank].gpu), "cudaSetDevice");
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

/* The ring model's bytes one rank sends (and receives) in collective c (see the header). */
static size_t ring_bytes(enum coll c, int w, size_t count)
{
    size_t W = (size_t)w, b = count * sizeof(float);
    switch (c) {
    case COLL_ALL_REDUCE:
        return 2 * (W - 1) * b / W;
    case COLL_ALL_GATHER:
        return (W - 1) * b; /* count = one rank's piece */
    case COLL_REDUCE_SCATTER:
        return (W - 1) * b;
    default:
        return 0;
    }
}

static void coll_done(struct nccl_comm *nc, int rank, int lane, int step, enum coll c,
                      size_t count, const char *label, double t0, double t1)
{
    struct comm_stats *st = &nc->rk[rank].stats[lane];
    size_t wire = ring_bytes(c, nc->pub.nranks, count);
    st->bytes_sent += wire;
    st->bytes_recv += wire;
    st->coll_bytes[c] += coll_bytes(c, nc->pub.nranks, count, sizeof(float));
    if (nc->pub.tl) {
        struct tl_event *e = timeline_add(nc->pub.tl, step, rank, lane, TL_COLLECTIVE,
                                          label ? label : coll_name(c), t0, t1);
        e->bytes = wire;
    }
}

/* Run one collective on the compute stream: wait for the compute before it (so its time
 * is not counted), enqueue, wait. */
static int run_coll(struct nccl_comm *nc, int rank, enum coll c, size_t count, enum redop op,
                    const float *send, float *recv, const char *label)
{
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    struct nccl_rank *rk = &nc->rk[rank];
    ncclRedOp_t nop = ncclSum;
    if (coll_reduces(c) && to_nccl_op(op, &nop) != CV_OK)
        return fail(nc, rank, CV_EINVAL, "unknown reduction op %d", (int)op);
    if ((rc = wait_stream(nc, rank, rk->compute, "compute before a collective")) != CV_OK)
        return rc;
    double t0 = now_s();
    ncclComm_t cm = rk->comm[CL_COLL];
    ncclResult_t r;
    switch (c) {
    case COLL_ALL_REDUCE:
        r = ncclAllReduce(send, recv, count, ncclFloat, nop, cm, rk->compute);
        break;
    case COLL_ALL_GATHER:
        r = ncclAllGather(send, recv, count, ncclFloat, cm, rk->compute);
        break;
    case COLL_REDUCE_SCATTER:
        r = ncclReduceScatter(send, recv, count, ncclFloat, nop, cm, rk->compute);
        break;
    default:
        return fail(nc, rank, CV_EINVAL, "collective %s is not used by training", coll_name(c));
    }
    if ((rc = nccl_ck(nc, rank, r, cm, coll_name(c))) != CV_OK) return rc;
    if ((rc = wait_stream(nc, rank, rk->compute, coll_name(c))) != CV_OK) return rc;
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
        } else {
            q->cap = q->cap ? 2 * q->cap : 16;
            q->tag = xrealloc(q->tag, q->cap * sizeof *q->tag);
            q->count = xrealloc(q->count, q->cap * sizeof *q->count);
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
    meta_push(&nc->mq[rank * c->nranks + peer], tag, count);
    struct comm_stats *st = &rk->stats[0];
    st->bytes_sent += count * sizeof(float);
    st->p2p_bytes += count * sizeof(float);
    if (c->tl) {
        struct tl_event *e = timeline_add(c->tl, c->step[rank], rank, 0, TL_SEND,
                                          label ? label : "send", t0, now_s());
        e->peer = peer;
        e->tag = tag;
        e->bytes = count * sizeof(float);
    }
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
    /* The sender's (tag, count) first: it says the message was sent, and lets us check it. */
    struct meta_q *q = &nc->mq[peer * c->nranks + rank];
    pthread_mutex_lock(&q->mu);
    struct timespec dl = wait_deadline_after(c->timeout_s);
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
    if (c->tl) {
        struct tl_event *e = timeline_add(c->tl, c->step[rank], rank, 0, TL_RECV,
                                          label ? label : "recv", t0, t1);
        e->peer = peer;
        e->tag = tag;
        e->bytes = count * sizeof(float);
    }
    return CV_OK;
}

/* ---- barrier ---- */

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
    pthread_mutex_lock(&nc->bar_mu);
    unsigned gen = nc->bar_gen;
    if (++nc->bar_arrived == c->nranks) {
        nc->bar_arrived = 0;
        nc->bar_gen++;
        pthread_cond_broadcast(&nc->bar_cv);
        pthread_mutex_unlock(&nc->bar_mu);
        return CV_OK;
    }
    struct timespec dl = wait_deadline_after(c->timeout_s);
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

/* ---- async all-reduce (lane 1: its own stream and clique) ---- */

static int nc_iall_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                          const char *label, struct comm_req **reqp)
{
    struct nccl_comm *nc = to_nc(c);
    *reqp = NULL;
    int rc = enter(nc, rank);
    if (rc != CV_OK) return rc;
    if (!nc->async) return fail(nc, rank, CV_EINVAL, "communicator made without async lane");
    struct nccl_rank *rk = &nc->rk[rank];
    ncclRedOp_t nop;
    if (to_nccl_op(op, &nop) != CV_OK)
        return fail(nc, rank, CV_EINVAL, "unknown reduction op %d", (int)op);
    struct comm_req *q = xcalloc(1, sizeof *q);
    q->rank = rank;
    q->step = c->step[rank];
    q->bytes = ring_bytes(COLL_ALL_REDUCE, c->nranks, count);
    snprintf(q->label, sizeof q->label, "%s", label ? label : "all_reduce");
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
    ncclComm_t cm = rk->comm[CL_ASYNC];
    if ((rc = cuda_ck(nc, rank, cudaStreamWaitEvent(rk->side, q->base, 0),
                      "cudaStreamWaitEvent")) != CV_OK ||
        (rc = cuda_ck(nc, rank, cudaEventRecord(q->start, rk->side), "cudaEventRecord")) !=
            CV_OK ||
        (rc = nccl_ck(nc, rank, ncclAllReduce(buf, buf, count, ncclFloat, nop, cm, rk->side),
                      cm, "ncclAllReduce (async)")) != CV_OK ||
        (rc = cuda_ck(nc, rank, cudaEventRecord(q->end, rk->side), "cudaEventRecord")) != CV_OK)
        goto out;
    rk->stats[1].coll_bytes[COLL_ALL_REDUCE] +=
        coll_bytes(COLL_ALL_REDUCE, c->nranks, count, sizeof(float));
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
        if (waited) timeline_add(c->tl, q->step, rank, 0, TL_IDLE, "wait all-reduce", t0, t1);
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

/* Our staging buffers only: NCCL's own channel buffers are not reported by NCCL. */
static size_t nc_mem_bytes(struct comm *c, int rank)
{
    return to_nc(c)->rk[rank].stage_bytes;
}

static void nc_abort(struct comm *c, const char *why)
{
    set_abort(to_nc(c), why ? why : "aborted");
}

static const char *nc_last_error(struct comm *c)
{
    struct nccl_comm *nc = to_nc(c);
    return nc->err[0] ? nc->err : "no error";
}

static void nc_destroy(struct comm *c)
{
    struct nccl_comm *nc = to_nc(c);
    if (!nc) return;
    int w = c->nranks;
    for (int r = 0; r < w; r++) {
        struct nccl_rank *rk = &nc->rk[r];
        if (!rk->dev) continue;
        if (cudaSetDevice(rk->gpu) != cudaSuccess) continue;
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
        if (!rk->dev || cudaSetDevice(rk->gpu) != cudaSuccess) continue;
        /* After an abort that left kernels running, nothing that synchronises is called. */
        bool wedged = rk->wedged;
        for (size_t i = 0; i < rk->nstage && !wedged; i++) {
            cudaFree(rk->stage[i].p);
            cudaEventDestroy(rk->stage[i].done);
        }
        free(rk->stage);
        if (!wedged) {
            cudaStream_t s[5] = {rk->side, rk->send_up, rk->send_down, rk->recv_up,
                                 rk->recv_down};
            for (int i = 0; i < 5; i++)
                if (s[i]) cudaStreamDestroy(s[i]);
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

static const struct comm_ops nccl_comm_ops = {
    .name = "nccl",
    .all_reduce = nc_all_reduce,
    .all_gather = nc_all_gather,
    .reduce_scatter = nc_reduce_scatter,
    .send = nc_send,
    .recv = nc_recv,
    .barrier = nc_barrier,
    .iall_reduce = nc_iall_reduce,
    .wait = nc_wait,
    .stats = nc_stats,
    .reset_stats = nc_reset_stats,
    .mem_bytes = nc_mem_bytes,
    .reserve_send = nc_reserve_send,
    .abort = nc_abort,
    .last_error = nc_last_error,
    .destroy = nc_destroy,
};

/* ---- creation (main thread) ---- */

static int make_clique(struct nccl_comm *nc, enum clique k, const int *gpus, char *err,
                       size_t errlen)
{
    int w = nc->pub.nranks;
    ncclComm_t comms[CV_MAX_RANKS] = {0};
    ncclResult_t r = ncclCommInitAll(comms, w, gpus);
    if (r != ncclSuccess)
        return cv_err(err, errlen, CV_EBACKEND, "ncclCommInitAll (%d ranks): %s%s%s", w,
                      ncclGetErrorString(r), ncclGetLastError(NULL) ? ": " : "",
                      ncclGetLastError(NULL) ? ncclGetLastError(NULL) : "");
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
 * therefore connected here, before any rank thread starts: this one thread, one group per
 * clique, a one-element call on each connection the run uses, waited for with the
 * deadline. */
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
        ncclComm_t cm = rk->comm[k];
        if (k == CL_COLL || k == CL_ASYNC) {
            used[i] = k == CL_COLL ? rk->compute : rk->side;
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
        cudaError_t e = cudaSetDevice(nc->rk[i].gpu);
        if (e == cudaSuccess) e = cudaMalloc((void **)&scratch[i], 2 * sizeof(float));
        if (e == cudaSuccess)
            e = cudaMemsetAsync(scratch[i], 0, 2 * sizeof(float), nc->rk[i].compute);
        if (e != cudaSuccess)
            rc = cv_err(err, errlen, CV_EBACKEND, "connecting on GPU %d: %s (%s)",
                        nc->rk[i].gpu, cudaGetErrorName(e), cudaGetErrorString(e));
    }
    for (int k = 0; rc == CV_OK && k < CL_COUNT; k++)
        if (nc->rk[0].comm[k]) rc = connect_clique(nc, (enum clique)k, scratch, err, errlen);
    if (rc != CV_OK) {
        /* A half-made connection may have kernels waiting: abort them all first. */
        for (int i = 0; i < w; i++)
            abort_own(nc, i);
    }
    for (int i = 0; i < w; i++)
        if (scratch[i] && !nc->rk[i].wedged && cudaSetDevice(nc->rk[i].gpu) == cudaSuccess)
            cudaFree(scratch[i]);
    return rc;
}

int comm_nccl_create(struct comm **out, int nranks, struct dev *const *devs, bool async,
                     bool p2p, double timeout_s, struct timeline *tl, char *err, size_t errlen)
{
    *out = NULL;
    if (nranks < 1 || nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "nranks %d: must be 1..%d", nranks, CV_MAX_RANKS);
    if (!(timeout_s > 0))
        return cv_err(err, errlen, CV_EINVAL, "timeout %g s: must be positive", timeout_s);
    struct nccl_comm *nc = xcalloc(1, sizeof *nc);
    nc->pub.ops = &nccl_comm_ops;
    nc->pub.nranks = nranks;
    nc->pub.self = -1;
    nc->pub.timeout_s = timeout_s;
    nc->pub.tl = tl;
    nc->pub.priv = nc;
    nc->async = async;
    nc->p2p = p2p && nranks > 1;
    atomic_init(&nc->aborted, 0);
    pthread_mutex_init(&nc->bar_mu, NULL);
    wait_cond_init_monotonic(&nc->bar_cv);
    pthread_mutex_init(&nc->err_mu, NULL);
    nc->mq = xcalloc((size_t)nranks * nranks, sizeof *nc->mq);
    for (int i = 0; i < nranks * nranks; i++) {
        pthread_mutex_init(&nc->mq[i].mu, NULL);
        wait_cond_init_monotonic(&nc->mq[i].cv);
    }
    int gpus[CV_MAX_RANKS];
    for (int r = 0; r < nranks; r++) {
        struct nccl_rank *rk = &nc->rk[r];
        rk->dev = devs[r];
        rk->gpu = dev_cuda_gpu(devs[r]);
        rk->compute = dev_cuda_stream(devs[r]);
        gpus[r] = rk->gpu;
    }
    int rc = make_clique(nc, CL_COLL, gpus, err, errlen);
    if (rc == CV_OK && nc->async) rc = make_clique(nc, CL_ASYNC, gpus, err, errlen);
    for (int k = CL_UP0; rc == CV_OK && nc->p2p && k <= CL_DOWN1; k++)
        rc = make_clique(nc, (enum clique)k, gpus, err, errlen);
    for (int r = 0; rc == CV_OK && r < nranks; r++) {
        struct nccl_rank *rk = &nc->rk[r];
        cudaError_t e = cudaSetDevice(rk->gpu);
        if (e != cudaSuccess) {
            rc = cv_err(err, errlen, CV_EBACKEND, "cudaSetDevice(%d): %s (%s)", rk->gpu,
                        cudaGetErrorName(e), cudaGetErrorString(e));
            break;
        }
        if (nc->async) rc = make_stream(&rk->side, err, errlen);
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
    if (rc == CV_OK) rc = connect_all(nc, err, errlen);
    if (rc != CV_OK) {
        nc_destroy(&nc->pub);
        return rc;
    }
    *out = &nc->pub;
    return CV_OK;
}

#endif
