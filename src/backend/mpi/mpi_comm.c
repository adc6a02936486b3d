/* mpi_comm.c - the training communicator (backend/comm.h) on MPI: this process is one rank.
 *
 * Collectives run the same ring plans as the CPU ranks' communicator, executed with MPI
 * point-to-point (mpi_plan_run), so training moves its data the way the screens draw it
 * and reduces in the same order. send/recv are eager: send copies the message, starts an
 * MPI_Isend on a communicator of its own and returns; recv waits for the message with this
 * tag from that peer and refuses one of another size. Every wait has the communicator's
 * deadline; a rank that fails or passes it says why on stderr and ends the whole job
 * (MPI_Abort), since the other processes would otherwise wait for it.
 *
 * The proc_* operations combine what each process recorded (times, counters, events,
 * parameters) so that every process ends with the whole run's record. */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/coll.h"
#include "../../core/plan.h"
#include "../../core/util.h"
#include "mpi_backend.h"

struct mpi_plan_entry {
    enum coll coll;
    enum redop op;
    size_t count;
    struct plan p;
    size_t sent, recv; /* floats this rank sends / receives per run */
    size_t tmp;        /* mpi_plan_recv_max */
};

struct mpi_pending {
    MPI_Request req;
    float *data;
    size_t bytes;
};

struct mpi_comm {
    struct comm pub;
    int me;
    MPI_Comm coll, p2p;
    struct mpi_plan_entry **plans;
    size_t nplans, plans_cap;
    float *work, *tmp;
    size_t work_cap, tmp_cap;
    MPI_Request *reqs;
    size_t reqs_cap;
    struct mpi_pending *pend;
    size_t npend, pend_cap;
    struct comm_stats stats;
    size_t held; /* bytes of scratch and in-flight messages */
    size_t peak; /* the most `held` has been */
    int tag_ub;  /* MPI_TAG_UB: the largest tag this MPI carries */
    char err[256];
};

static struct mpi_comm *to_mc(struct comm *c)
{
    return (struct mpi_comm *)c;
}

static void mc_abort(struct comm *c, const char *why)
{
    struct mpi_comm *mc = to_mc(c);
    fprintf(stderr, "collviz: mpi rank %d: %s; ending the MPI job\n", mc->me, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int mc_fail(struct mpi_comm *mc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int mc_fail(struct mpi_comm *mc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mc->err, sizeof mc->err, fmt, ap);
    va_end(ap);
    return CV_EBACKEND;
}

static const char *mc_last_error(struct comm *c)
{
    return to_mc(c)->err[0] ? to_mc(c)->err : "no error";
}

/* Grow a float scratch to n elements (kept between calls). */
static float *mc_scratch(struct mpi_comm *mc, float **p, size_t *cap, size_t n)
{
    if (*cap < n) {
        mc->held -= *cap * sizeof(float);
        free(*p);
        *p = xmalloc((n ? n : 1) * sizeof(float));
        *cap = n;
        mc->held += n * sizeof(float);
        if (mc->held > mc->peak) mc->peak = mc->held;
    }
    return *p;
}

static int mc_plan(struct mpi_comm *mc, enum coll c, enum redop op, size_t count,
                   struct mpi_plan_entry **out)
{
    for (size_t i = 0; i < mc->nplans; i++) {
        struct mpi_plan_entry *e = mc->plans[i];
        if (e->coll == c && e->op == op && e->count == count) {
            *out = e;
            return CV_OK;
        }
    }
    struct mpi_plan_entry *e = xcalloc(1, sizeof *e);
    char err[200];
    if (plan_build(&e->p, c, ALGO_RING, op, mc->pub.nranks, count, 0, err, sizeof err) !=
        CV_OK) {
        free(e);
        return mc_fail(mc, "%s plan: %s", coll_name(c), err);
    }
    e->coll = c;
    e->op = op;
    e->count = count;
    for (size_t i = 0; i < e->p.nx; i++) {
        const struct xfer *x = &e->p.x[i];
        if (x->src == x->dst) continue;
        if (x->src == mc->me) e->sent += x->count;
        if (x->dst == mc->me) e->recv += x->count;
    }
    e->tmp = mpi_plan_recv_max(&e->p, mc->me);
    if (mc->nplans == mc->plans_cap) {
        mc->plans_cap = mc->plans_cap ? 2 * mc->plans_cap : 8;
        mc->plans = xrealloc(mc->plans, mc->plans_cap * sizeof *mc->plans);
    }
    mc->plans[mc->nplans++] = e;
    *out = e;
    return CV_OK;
}

/* One collective: in (send count) -> out (recv count), the work buffer being `cand` when it
 * is big enough (the caller's buffer, as NCCL's in-place conventions allow). */
static int mc_coll(struct mpi_comm *mc, int rank, enum coll c, enum redop op, size_t count,
                   const float *in, float *out, float *cand, size_t cand_len, const char *label)
{
    if (rank != mc->me)
        return mc_fail(mc, "rank %d called on the process of rank %d", rank, mc->me);
    double t0 = now_s();
    struct mpi_plan_entry *e = NULL;
    int rc = mc_plan(mc, c, op, count, &e);
    if (rc != CV_OK) return rc;
    const struct plan *p = &e->p;
    int w = mc->pub.nranks;
    size_t in_off = coll_in_off(c, w, count, rank), out_off = coll_out_off(c, w, count, rank);
    size_t nin = coll_send_count(c, w, count, rank, 0);
    size_t nout = coll_recv_count(c, w, count, rank, 0);
    float *work = cand && cand_len >= p->work_len
                      ? cand
                      : mc_scratch(mc, &mc->work, &mc->work_cap, p->work_len);
    float *tmp = mc_scratch(mc, &mc->tmp, &mc->tmp_cap, e->tmp);
    size_t nreq = 2;
    for (size_t s = 0; s < p->nsteps; s++)
        nreq = 2 * p->steps[s].n > nreq ? 2 * p->steps[s].n : nreq;
    if (mc->reqs_cap < nreq) {
        mc->reqs = xrealloc(mc->reqs, nreq * sizeof *mc->reqs);
        mc->reqs_cap = nreq;
    }
    if (nin && work + in_off != in) memmove(work + in_off, in, nin * sizeof(float));
    char err[200];
    rc = mpi_plan_run(p, rank, mc->coll, work, tmp, mc->reqs, mc->pub.timeout_s, err,
                      sizeof err);
    if (rc != CV_OK) return mc_fail(mc, "%s: %s", label ? label : coll_name(c), err);
    if (nout && work + out_off != out) memmove(out, work + out_off, nout * sizeof(float));
    mc->stats.bytes_sent += e->sent * sizeof(float);
    mc->stats.bytes_recv += e->recv * sizeof(float);
    mc->stats.coll_bytes[c] += coll_bytes(c, w, count, sizeof(float));
    if (mc->pub.tl) {
        struct tl_event *ev =
            timeline_add(mc->pub.tl, mc->pub.step[rank], rank, 0, TL_COLLECTIVE,
                         label ? label : coll_name(c), t0, now_s());
        ev->bytes = e->sent * sizeof(float);
    }
    return CV_OK;
}

static int mc_all_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                         const char *label)
{
    return mc_coll(to_mc(c), rank, COLL_ALL_REDUCE, op, count, buf, buf, buf, count, label);
}

static int mc_all_gather(struct comm *c, int rank, const float *send, float *recv, size_t count,
                         const char *label)
{
    return mc_coll(to_mc(c), rank, COLL_ALL_GATHER, OP_SUM, count, send, recv, recv,
                   (size_t)c->nranks * count, label);
}

static int mc_reduce_scatter(struct comm *c, int rank, float *send, float *recv, size_t count,
                             enum redop op, const char *label)
{
    return mc_coll(to_mc(c), rank, COLL_REDUCE_SCATTER, op, count, send, recv, send,
                   (size_t)c->nranks * count, label);
}

/* Free the eager sends that have left. */
static void mc_reap(struct mpi_comm *mc)
{
    size_t k = 0;
    for (size_t i = 0; i < mc->npend; i++) {
        int done = 0;
        MPI_Test(&mc->pend[i].req, &done, MPI_STATUS_IGNORE);
        if (done) {
            mc->held -= mc->pend[i].bytes;
            free(mc->pend[i].data);
        } else {
            mc->pend[k++] = mc->pend[i];
        }
    }
    mc->npend = k;
}

static int mc_send(struct comm *c, int rank, int peer, int tag, const float *buf, size_t count,
                   const char *label)
{
    struct mpi_comm *mc = to_mc(c);
    if (rank != mc->me || peer < 0 || peer >= c->nranks || peer == rank)
        return mc_fail(mc, "rank %d: bad send to %d", rank, peer);
    if (tag < 0 || tag > mc->tag_ub || count > INT32_MAX)
        return mc_fail(mc, "rank %d: tag %d / %zu elements out of MPI's range", rank, tag,
                       count);
    double t0 = now_s();
    mc_reap(mc);
    float *copy = xmalloc((count ? count : 1) * sizeof(float));
    memcpy(copy, buf, count * sizeof(float));
    if (mc->npend == mc->pend_cap) {
        mc->pend_cap = mc->pend_cap ? 2 * mc->pend_cap : 16;
        mc->pend = xrealloc(mc->pend, mc->pend_cap * sizeof *mc->pend);
    }
    struct mpi_pending *pd = &mc->pend[mc->npend];
    int mrc = MPI_Isend(copy, (int)count, MPI_FLOAT, peer, tag, mc->p2p, &pd->req);
    if (mrc != MPI_SUCCESS) {
        free(copy);
        return mc_fail(mc, "rank %d: MPI_Isend to %d failed", rank, peer);
    }
    pd->data = copy;
    pd->bytes = count * sizeof(float);
    mc->held += pd->bytes;
    if (mc->held > mc->peak) mc->peak = mc->held;
    mc->npend++;
    mc->stats.bytes_sent += count * sizeof(float);
    mc->stats.p2p_bytes += count * sizeof(float);
    if (c->tl) {
        struct tl_event *e = timeline_add(c->tl, c->step[rank], rank, 0, TL_SEND,
                                          label ? label : "send", t0, now_s());
        e->peer = peer;
        e->tag = tag;
        e->bytes = count * sizeof(float);
    }
    return CV_OK;
}

static int mc_recv(struct comm *c, int rank, int peer, int tag, float *buf, size_t count,
                   const char *label)
{
    struct mpi_comm *mc = to_mc(c);
    if (rank != mc->me || peer < 0 || peer >= c->nranks || peer == rank)
        return mc_fail(mc, "rank %d: bad recv from %d", rank, peer);
    double t0 = now_s();
    /* Wait for the message to be there (with the deadline), then check its size. */
    MPI_Status st;
    int there = 0;
    double deadline = t0 + c->timeout_s;
    bool waited = false;
    for (;;) {
        MPI_Iprobe(peer, tag, mc->p2p, &there, &st);
        if (there) break;
        waited = true;
        if (now_s() > deadline)
            return mc_fail(mc, "rank %d waited %g s for tag %d from rank %d", rank,
                           c->timeout_s, tag, peer);
        sched_yield();
    }
    double t1 = now_s();
    int got = 0;
    MPI_Get_count(&st, MPI_FLOAT, &got);
    if ((size_t)got != count)
        return mc_fail(mc, "rank %d expected %zu elements with tag %d from rank %d, got %d",
                       rank, count, tag, peer, got);
    if (MPI_Recv(buf, got, MPI_FLOAT, peer, tag, mc->p2p, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return mc_fail(mc, "rank %d: MPI_Recv from %d failed", rank, peer);
    double t2 = now_s();
    mc->stats.bytes_recv += count * sizeof(float);
    if (c->tl) {
        if (waited) {
            char lab[40];
            snprintf(lab, sizeof lab, "wait %.26s", label ? label : "recv");
            struct tl_event *e =
                timeline_add(c->tl, c->step[rank], rank, 0, TL_IDLE, lab, t0, t1);
            e->peer = peer;
            e->tag = tag;
        }
        struct tl_event *e = timeline_add(c->tl, c->step[rank], rank, 0, TL_RECV,
                                          label ? label : "recv", t1, t2);
        e->peer = peer;
        e->tag = tag;
        e->bytes = count * sizeof(float);
    }
    return CV_OK;
}

static int mc_barrier(struct comm *c, int rank)
{
    struct mpi_comm *mc = to_mc(c);
    MPI_Request req;
    if (MPI_Ibarrier(mc->coll, &req) != MPI_SUCCESS)
        return mc_fail(mc, "rank %d: MPI_Ibarrier failed", rank);
    char err[200];
    if (mpi_wait_all(1, &req, c->timeout_s, "barrier", err, sizeof err) != CV_OK)
        return mc_fail(mc, "rank %d: %s", rank, err);
    return CV_OK;
}

static int mc_iall_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                          const char *label, struct comm_req **req)
{
    (void)buf;
    (void)count;
    (void)op;
    (void)label;
    *req = NULL;
    return mc_fail(to_mc(c), "rank %d: overlapped all-reduce is not available on mpi", rank);
}

static int mc_wait(struct comm *c, int rank, struct comm_req *req)
{
    (void)req;
    return mc_fail(to_mc(c), "rank %d: nothing to wait for on mpi", rank);
}

static void mc_stats(struct comm *c, int rank, struct comm_stats *out)
{
    (void)rank;
    *out = to_mc(c)->stats;
}

static void mc_reset_stats(struct comm *c, int rank)
{
    (void)rank;
    memset(&to_mc(c)->stats, 0, sizeof to_mc(c)->stats);
}

static size_t mc_mem_bytes(struct comm *c, int rank)
{
    (void)rank;
    return to_mc(c)->peak;
}

static void mc_destroy(struct comm *c)
{
    struct mpi_comm *mc = to_mc(c);
    char err[200];
    for (size_t i = 0; i < mc->npend; i++) {
        if (mpi_wait_all(1, &mc->pend[i].req, c->timeout_s, "an eager send", err, sizeof err) !=
            CV_OK)
            mc_abort(c, err);
        free(mc->pend[i].data);
    }
    free(mc->pend);
    for (size_t i = 0; i < mc->nplans; i++) {
        plan_free(&mc->plans[i]->p);
        free(mc->plans[i]);
    }
    free(mc->plans);
    free(mc->work);
    free(mc->tmp);
    free(mc->reqs);
    MPI_Comm_free(&mc->coll);
    MPI_Comm_free(&mc->p2p);
    free(mc);
}

/* ---- combining the processes' records ---- */

static int mc_proc_sum(struct comm *c, void *buf, size_t n, enum comm_proc_type t)
{
    MPI_Datatype dt = t == COMM_PROC_F32   ? MPI_FLOAT
                      : t == COMM_PROC_F64 ? MPI_DOUBLE
                      : t == COMM_PROC_INT ? MPI_INT
                                           : MPI_UINT64_T;
    if (n > INT32_MAX) return mc_fail(to_mc(c), "proc_sum: %zu elements", n);
    if (n == 0) return CV_OK;
    int mrc = MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, dt, MPI_SUM, to_mc(c)->coll);
    return mrc == MPI_SUCCESS ? CV_OK : mc_fail(to_mc(c), "MPI_Allreduce of the record failed");
}

static int mc_proc_max(struct comm *c, double *v)
{
    int mrc = MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_MAX, to_mc(c)->coll);
    return mrc == MPI_SUCCESS ? CV_OK : mc_fail(to_mc(c), "MPI_Allreduce failed");
}

static int mc_proc_bcast(struct comm *c, void *buf, size_t bytes, int root)
{
    if (bytes > INT32_MAX) return mc_fail(to_mc(c), "proc_bcast: %zu bytes", bytes);
    int mrc = MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, to_mc(c)->coll);
    return mrc == MPI_SUCCESS ? CV_OK : mc_fail(to_mc(c), "MPI_Bcast failed");
}

static int mc_proc_allgather(struct comm *c, const void *mine, size_t bytes, void **all,
                             size_t *counts)
{
    struct mpi_comm *mc = to_mc(c);
    int W = c->nranks;
    if (bytes > INT32_MAX) return mc_fail(mc, "proc_allgather: %zu bytes", bytes);
    int my = (int)bytes, *cnt = xcalloc((size_t)W, sizeof *cnt),
        *disp = xcalloc((size_t)W, sizeof *disp);
    MPI_Allgather(&my, 1, MPI_INT, cnt, 1, MPI_INT, mc->coll);
    size_t total = 0;
    for (int r = 0; r < W; r++) {
        disp[r] = (int)total;
        total += (size_t)cnt[r];
        counts[r] = (size_t)cnt[r];
    }
    int rc = CV_OK;
    if (total > INT32_MAX) {
        rc = mc_fail(mc, "proc_allgather: %zu bytes in all", total);
    } else {
        *all = xmalloc(total ? total : 1);
        if (MPI_Allgatherv(mine, my, MPI_BYTE, *all, cnt, disp, MPI_BYTE, mc->coll) !=
            MPI_SUCCESS)
            rc = mc_fail(mc, "MPI_Allgatherv of the record failed");
    }
    free(cnt);
    free(disp);
    return rc;
}

static const struct comm_ops mpi_comm_ops = {
    .name = "mpi",
    .all_reduce = mc_all_reduce,
    .all_gather = mc_all_gather,
    .reduce_scatter = mc_reduce_scatter,
    .send = mc_send,
    .recv = mc_recv,
    .barrier = mc_barrier,
    .iall_reduce = mc_iall_reduce,
    .wait = mc_wait,
    .stats = mc_stats,
    .reset_stats = mc_reset_stats,
    .mem_bytes = mc_mem_bytes,
    .abort = mc_abort,
    .last_error = mc_last_error,
    .destroy = mc_destroy,
    .proc_sum = mc_proc_sum,
    .proc_max = mc_proc_max,
    .proc_bcast = mc_proc_bcast,
    .proc_allgather = mc_proc_allgather,
};

int mpi_comm_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                    char *err, size_t errlen)
{
    *out = NULL;
    int size = 0, me = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    (void)b;
    if (cp->nranks != size)
        return cv_err(err, errlen, CV_EINVAL,
                      "--ranks %d: the mpi backend runs on the %d process%s the launcher "
                      "started (-np)",
                      cp->nranks, size, size == 1 ? "" : "es");
    if (cp->async)
        return cv_err(err, errlen, CV_EINVAL,
                      "--overlap: not on the mpi backend (its calls are serialised; no "
                      "helper thread may run an all-reduce beside the rank)");
    struct mpi_comm *mc = xcalloc(1, sizeof *mc);
    mc->pub.ops = &mpi_comm_ops;
    mc->pub.nranks = size;
    mc->pub.timeout_s = cp->timeout_s;
    mc->pub.tl = cp->tl;
    mc->pub.self = me;
    mc->me = me;
    MPI_Comm_dup(MPI_COMM_WORLD, &mc->coll);
    MPI_Comm_dup(MPI_COMM_WORLD, &mc->p2p);
    MPI_Comm_set_errhandler(mc->coll, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(mc->p2p, MPI_ERRORS_RETURN);
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    mc->tag_ub = flag && ub ? *ub : 32767; /* the standard's minimum */
    *out = &mc->pub;
    return CV_OK;
}
