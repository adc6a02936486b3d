/* mpi_backend.c - the MPI backend: one rank per MPI process.
 *
 * A plan runs step by step, the way the trace executor runs it: in step s every process
 * posts a receive for each transfer into its buffer and a send for each transfer out of it
 * (MPI_Irecv / MPI_Isend, the whole step at once), waits for all of them, then applies the
 * received pieces in plan order with the one transfer arithmetic (core/exec.h). The plan's
 * execution rule (no transfer reads what another destination writes in the same step) makes
 * sending straight from the working buffer safe, and applying in plan order makes the result
 * the trace's, bit for bit. A refined plan (--slices/--channels) runs the same way, with one
 * message per slice.
 *
 * `--algo mpi` (bench_params.native) runs MPI's own collective instead (MPI_Allreduce,
 * MPI_Allgather, MPI_Reduce_scatter_block, MPI_Bcast, MPI_Reduce, MPI_Gather, MPI_Scatter,
 * MPI_Alltoall), out of place, for comparison.
 *
 * Timing: MPI_Barrier before and after the timed loop, MPI_Wtime, the maximum over ranks.
 * #wrong is summed over ranks. Every process returns the same result row. */
#include "mpi_backend.h"
#include "mpi_boot.h"

#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/exec.h"
#include "../../core/init.h"
#include "../../core/plan.h"
#include "../../core/util.h"

#define MPI_HOST_LEN 64

struct mpi_state {
    int rank, size;
    int local_rank, local_size; /* within this node (MPI_COMM_TYPE_SHARED) */
    int nhosts;
    MPI_Comm node;               /* the ranks of this process's node */
    char (*hosts)[MPI_HOST_LEN]; /* [size]: every rank's host name */
    char version[64];
    /* Buffers of the last measurement, kept for the next one of the same size. */
    float *buf, *tmp, *out;
    size_t buf_cap, tmp_cap, out_cap;
};

bool mpi_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                       "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return true;
    return false;
}

static int mpi_fail(char *err, size_t errlen, int mrc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mrc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "code %d", mrc);
    return cv_err(err, errlen, CV_EBACKEND, "mpi: %s failed: %s", what, msg);
}

static int mpi_open(struct backend *b, char *err, size_t errlen)
{
    if (!mpi_launched()) return cv_err(err, errlen, CV_EINVAL, "mpi: %s", MPI_LAUNCH_HINT);
    struct mpi_where where;
    char why[200];
    if (mpi_boot_start(&where, why, sizeof why) != CV_OK)
        return cv_err(err, errlen, CV_EUNAVAIL, "mpi: %s", why);
    struct mpi_state *st = xcalloc(1, sizeof *st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &st->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &st->size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, st->rank, MPI_INFO_NULL,
                        &st->node);
    MPI_Comm_set_errhandler(st->node, MPI_ERRORS_RETURN);
    MPI_Comm_rank(st->node, &st->local_rank);
    MPI_Comm_size(st->node, &st->local_size);
    int leader = st->local_rank == 0;
    MPI_Allreduce(&leader, &st->nhosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char me[MPI_HOST_LEN] = "";
    if (gethostname(me, sizeof me - 1) != 0) snprintf(me, sizeof me, "?");
    me[MPI_HOST_LEN - 1] = '\0';
    st->hosts = xcalloc((size_t)st->size, sizeof *st->hosts);
    MPI_Allgather(me, MPI_HOST_LEN, MPI_CHAR, st->hosts, MPI_HOST_LEN, MPI_CHAR,
                  MPI_COMM_WORLD);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0'; /* "Open MPI v4.1.4" */
    snprintf(st->version, sizeof st->version, "%.63s", lib);
    b->priv = st;
    return CV_OK;
}

static void mpi_close(struct backend *b)
{
    struct mpi_state *st = b->priv;
    if (!st) return;
    free(st->buf);
    free(st->tmp);
    free(st->out);
    free(st->hosts);
    MPI_Comm_free(&st->node);
    mpi_boot_stop();
    free(st);
    b->priv = NULL;
}

static int mpi_max_ranks(struct backend *b)
{
    struct mpi_state *st = b->priv;
    return st->size;
}

static int mpi_proc_rank(struct backend *b)
{
    struct mpi_state *st = b->priv;
    return st->rank;
}

static int mpi_node_ranks(struct backend *b)
{
    struct mpi_state *st = b->priv;
    return st->local_size;
}

/* Grow *p to hold n floats (contents not kept). */
static int mpi_reserve(float **p, size_t *cap, size_t n)
{
    if (n <= *cap && *p) return CV_OK;
    free(*p);
    *p = malloc((n ? n : 1) * sizeof(float));
    *cap = *p ? n : 0;
    return *p ? CV_OK : CV_ENOMEM;
}

int mpi_wait_all(int n, MPI_Request *reqs, double timeout_s, const char *what, char *err,
                 size_t errlen)
{
    double deadline = now_s() + (timeout_s > 0 ? timeout_s : 1e9);
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        int mrc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (mrc != MPI_SUCCESS) return mpi_fail(err, errlen, mrc, what);
        if (done) return CV_OK;
        /* Poll hard for a while (shared memory answers in microseconds), then give the
         * core away between polls: ranks may outnumber cores (--oversubscribe). */
        if (spins > 64) sched_yield();
        if ((spins & 255) == 0 && now_s() > deadline)
            return cv_err(err, errlen, CV_ETIMEOUT, "mpi: %s: no answer after %g s", what,
                          timeout_s);
    }
}

/* The most floats this rank receives in any one step of p (its scratch for a step). */
size_t mpi_plan_recv_max(const struct plan *p, int me)
{
    size_t most = 0;
    for (size_t s = 0; s < p->nsteps; s++) {
        size_t n = 0;
        for (size_t i = p->steps[s].first; i < p->steps[s].first + p->steps[s].n; i++)
            if (p->x[i].dst == me && p->x[i].src != me) n += p->x[i].count;
        most = n > most ? n : most;
    }
    return most;
}

int mpi_plan_run(const struct plan *p, int me, MPI_Comm comm, float *buf, float *tmp,
                 MPI_Request *reqs, double timeout_s, char *err, size_t errlen)
{
    for (size_t s = 0; s < p->nsteps; s++) {
        const struct step *st = &p->steps[s];
        int nreq = 0, tag = (int)(s & 0x7fff), mrc;
        size_t off = 0;
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const struct xfer *x = &p->x[i];
            if (x->dst != me || x->src == me) continue;
            mrc = MPI_Irecv(tmp + off, (int)x->count, MPI_FLOAT, x->src, tag, comm,
                            &reqs[nreq++]);
            if (mrc != MPI_SUCCESS) return mpi_fail(err, errlen, mrc, "MPI_Irecv");
            off += x->count;
        }
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const struct xfer *x = &p->x[i];
            if (x->src != me || x->dst == me) continue;
            mrc = MPI_Isend(buf + x->src_off, (int)x->count, MPI_FLOAT, x->dst, tag, comm,
                            &reqs[nreq++]);
            if (mrc != MPI_SUCCESS) return mpi_fail(err, errlen, mrc, "MPI_Isend");
        }
        int rc = mpi_wait_all(nreq, reqs, timeout_s, st->phase, err, errlen);
        if (rc != CV_OK) return rc;
        off = 0;
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const struct xfer *x = &p->x[i];
            if (x->dst != me) continue;
            if (x->src == me) {
                exec_xfer(p, x, buf, buf);
            } else {
                struct xfer y = *x;
                y.src_off = 0;
                exec_xfer(p, &y, buf, tmp + off);
                off += x->count;
            }
        }
    }
    return CV_OK;
}

static MPI_Op mpi_op_of(enum redop op)
{
    switch (op) {
    case OP_PROD:
        return MPI_PROD;
    case OP_MIN:
        return MPI_MIN;
    case OP_MAX:
        return MPI_MAX;
    default:
        return MPI_SUM; /* SUM, and AVG before its division */
    }
}

/* MPI's own collective: input at buf + coll_in_off, result in out (coll_recv_count). */
static int mpi_run_native(enum coll c, enum redop op, int W, size_t count, int root, int me,
                          MPI_Comm comm, float *buf, float *out, char *err, size_t errlen)
{
    const float *in = buf + coll_in_off(c, W, count, me);
    int n = (int)count, mrc;
    MPI_Op mop = mpi_op_of(op);
    const char *what;
    switch (c) {
    case COLL_ALL_REDUCE:
        what = "MPI_Allreduce";
        mrc = MPI_Allreduce(in, out, n, MPI_FLOAT, mop, comm);
        break;
    case COLL_ALL_GATHER:
        what = "MPI_Allgather";
        mrc = MPI_Allgather(in, n, MPI_FLOAT, out, n, MPI_FLOAT, comm);
        break;
    case COLL_REDUCE_SCATTER:
        what = "MPI_Reduce_scatter_block";
        mrc = MPI_Reduce_scatter_block(in, out, n, MPI_FLOAT, mop, comm);
        break;
    case COLL_BROADCAST:
        what = "MPI_Bcast";
        if (me == root) memcpy(out, in, count * sizeof(float));
        mrc = MPI_Bcast(out, n, MPI_FLOAT, root, comm);
        break;
    case COLL_REDUCE:
        what = "MPI_Reduce";
        mrc = MPI_Reduce(in, out, n, MPI_FLOAT, mop, root, comm);
        break;
    case COLL_GATHER:
        what = "MPI_Gather";
        mrc = MPI_Gather(in, n, MPI_FLOAT, out, n, MPI_FLOAT, root, comm);
        break;
    case COLL_SCATTER:
        what = "MPI_Scatter";
        mrc = MPI_Scatter(in, n, MPI_FLOAT, out, n, MPI_FLOAT, root, comm);
        break;
    case COLL_ALL_TO_ALL:
        what = "MPI_Alltoall";
        mrc = MPI_Alltoall(in, n, MPI_FLOAT, out, n, MPI_FLOAT, comm);
        break;
    default:
        return cv_err(err, errlen, CV_EINVAL, "mpi: no such collective");
    }
    if (mrc != MPI_SUCCESS) return mpi_fail(err, errlen, mrc, what);
    if (op == OP_AVG && coll_reduces(c)) {
        size_t nr = coll_recv_count(c, W, count, me, root);
        for (size_t i = 0; i < nr; i++)
            out[i] /= (float)W;
    }
    return CV_OK;
}

/* One run (plan or native), on this rank's buffers. */
struct mpi_run {
    const struct plan *plan; /* NULL: native */
    enum coll coll;
    enum redop op;
    int W, me, root;
    size_t count;
    MPI_Comm comm;
    float *buf, *tmp, *out;
    MPI_Request *reqs;
    double timeout_s;
};

static int mpi_run_once(const struct mpi_run *r, char *err, size_t errlen)
{
    if (r->plan)
        return mpi_plan_run(r->plan, r->me, r->comm, r->buf, r->tmp, r->reqs, r->timeout_s, err,
                            errlen);
    return mpi_run_native(r->coll, r->op, r->W, r->count, r->root, r->me, r->comm, r->buf,
                          r->out, err, errlen);
}

static void mpi_fill(const struct mpi_run *r, size_t work_len)
{
    size_t in = coll_in_off(r->coll, r->W, r->count, r->me);
    size_t n = coll_send_count(r->coll, r->W, r->count, r->me, r->root);
    memset(r->buf, 0, work_len * sizeof(float));
    for (size_t i = 0; i < n; i++)
        r->buf[in + i] = pattern_value(r->op, r->me, i);
}

static long mpi_count_wrong(const struct mpi_run *r)
{
    size_t n = coll_recv_count(r->coll, r->W, r->count, r->me, r->root);
    const float *res = r->plan ? r->buf + coll_out_off(r->coll, r->W, r->count, r->me) : r->out;
#ifdef CV_TEST_HOOKS
    /* The test hook of the CPU backend (CV_TEST_CORRUPT=RANK:ELEM, see cpu.c): the result
     * of rank RANK gets element ELEM changed before it is counted. */
    const char *e = getenv("CV_TEST_CORRUPT");
    int cr;
    size_t cj;
    if (e && sscanf(e, "%d:%zu", &cr, &cj) == 2 && cr == r->me && cj < n)
        ((float *)res)[cj] += 1.0f;
#endif
    long wrong = 0;
    for (size_t j = 0; j < n; j++)
        if (res[j] != pattern_expected(r->coll, r->op, r->W, r->count, r->root, r->me, j))
            wrong++;
    return wrong;
}

static int mpi_measure(struct backend *b, const struct bench_params *bp,
                       struct bench_result *res, volatile int *cancel, char *err, size_t errlen)
{
    struct mpi_state *st = b->priv;
    MPI_Comm comm = bp->within_node ? st->node : MPI_COMM_WORLD;
    int W = bp->within_node ? st->local_size : st->size;
    int me = bp->within_node ? st->local_rank : st->rank;
    if (bp->nranks != W)
        return cv_err(err, errlen, CV_EINVAL,
                      "ranks %d: the mpi backend runs on the %d process%s %s", bp->nranks, W,
                      W == 1 ? "" : "es",
                      bp->within_node ? "of this node" : "the launcher started (-np)");
    if (bp->iters < 1 || bp->warmup < 0)
        return cv_err(err, errlen, CV_EINVAL, "iterations %d / warm-up %d: need >= 1 / >= 0",
                      bp->iters, bp->warmup);
    size_t count = coll_count_for_bytes(bp->coll, W, bp->bytes, sizeof(float));
    if (count == 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "%zu B is less than one float per rank for %s on %d ranks", bp->bytes,
                      coll_name(bp->coll), W);
    if (count > INT32_MAX / (size_t)W)
        return cv_err(err, errlen, CV_ENOMEM, "%zu B: more elements than MPI counts in an int",
                      bp->bytes);
    int root = coll_is_rooted(bp->coll) ? bp->root : 0;
    if (root >= W)
        return cv_err(err, errlen, CV_EINVAL, "root %d: no such rank of %d", root, W);
    enum algo a = bp->algo_auto ? coll_default_algo(bp->coll) : bp->algo;

    struct plan base = {0}, refined = {0};
    const struct plan *p = NULL;
    int rc = CV_OK;
    size_t work_len = coll_work_len(bp->coll, W, count);
    if (!bp->native) {
        rc = plan_build(&base, bp->coll, a, bp->op, W, count, root, err, errlen);
        if (rc != CV_OK) return rc;
        p = &base;
        if (bp->slices > 1 || bp->channels > 1) {
            rc = plan_refine(&base, bp->slices > 1 ? bp->slices : 1,
                             bp->channels > 1 ? bp->channels : 1, &refined, err, errlen);
            if (rc != CV_OK) goto out;
            p = &refined;
        }
    }
    /* Every buffer the run needs, before its first message. */
    size_t tmp_len = p ? mpi_plan_recv_max(p, me) : 0;
    size_t out_len = p ? 0 : coll_recv_count(bp->coll, W, count, me, root);
    size_t nreq = 2;
    for (size_t s = 0; p && s < p->nsteps; s++)
        nreq = 2 * p->steps[s].n > nreq ? 2 * p->steps[s].n : nreq;
    int ok = mpi_reserve(&st->buf, &st->buf_cap, work_len) == CV_OK &&
             mpi_reserve(&st->tmp, &st->tmp_cap, tmp_len) == CV_OK &&
             mpi_reserve(&st->out, &st->out_cap, out_len) == CV_OK;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        char s[32];
        format_size(bp->bytes, s, sizeof s);
        rc = cv_err(err, errlen, CV_ENOMEM, "%s %s: a rank could not allocate its buffers", s,
                    coll_name(bp->coll));
        goto out;
    }
    MPI_Request *reqs = xcalloc(nreq, sizeof *reqs);
    struct mpi_run r = {.plan = p,
                        .coll = bp->coll,
                        .op = bp->op,
                        .W = W,
                        .me = me,
                        .root = root,
                        .count = count,
                        .comm = comm,
                        .buf = st->buf,
                        .tmp = st->tmp,
                        .out = st->out,
                        .reqs = reqs,
                        .timeout_s = bp->timeout_s};
    (void)cancel; /* every process must run the same iterations: a cancel is a signal the
                     launcher forwards to all of them */
    mpi_fill(&r, work_len);
    for (int i = 0; i < bp->warmup && rc == CV_OK; i++)
        rc = mpi_run_once(&r, err, errlen);
    double t = 0;
    if (rc == CV_OK) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        for (int i = 0; i < bp->iters && rc == CV_OK; i++)
            rc = mpi_run_once(&r, err, errlen);
        MPI_Barrier(comm);
        double mine = (MPI_Wtime() - t0) / bp->iters;
        MPI_Allreduce(&mine, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
    }
    long wrong = -1;
    if (rc == CV_OK && bp->check) {
        /* In-place iterations changed the values; check one run from fresh inputs. */
        mpi_fill(&r, work_len);
        rc = mpi_run_once(&r, err, errlen);
        long mine = rc == CV_OK ? mpi_count_wrong(&r) : 0;
        MPI_Allreduce(&mine, &wrong, 1, MPI_LONG, MPI_SUM, comm);
    }
    free(reqs);
    if (rc != CV_OK) goto out;

    size_t S = coll_bytes(bp->coll, W, count, sizeof(float));
    memset(res, 0, sizeof *res);
    res->bytes = S;
    res->count = S / sizeof(float);
    res->time_us = t * 1e6;
    res->algbw = t > 0 ? (double)S / t / 1e9 : 0.0;
    res->busbw = res->algbw * coll_busbw_factor(bp->coll, W);
    res->wrong = wrong;
    res->nranks = W;
    snprintf(res->algo, sizeof res->algo, "%s", p ? algo_name(a) : "mpi");
    res->slices = p ? p->nslices : 0;
    res->channels = p ? p->nchannels : 0;
    const char *where = bp->within_node ? " of 1 node" : "";
    if (p)
        snprintf(res->how, sizeof res->how,
                 "%d MPI processes%s, plan as MPI_Isend/Irecv, %d slice%s, %d iters after %d "
                 "warm-up",
                 W % 1000, where, p->nslices % 100000, p->nslices == 1 ? "" : "s",
                 bp->iters % 10000000, bp->warmup % 10000000);
    else
        snprintf(res->how, sizeof res->how,
                 "%d MPI processes%s, MPI's own collective, out-of-place, %d iters after %d "
                 "warm-up",
                 W % 1000, where, bp->iters % 10000000, bp->warmup % 10000000);
out:
    plan_free(&refined);
    plan_free(&base);
    return rc;
}

static int mpi_run_small(struct backend *b, const struct plan *p, float *const *send,
                         float **recv, char *err, size_t errlen)
{
    struct mpi_state *st = b->priv;
    int W = p->nranks, me = st->rank;
    if (W != st->size)
        return cv_err(err, errlen, CV_EINVAL,
                      "ranks %d: the mpi backend runs on the %d process%s the launcher started "
                      "(-np)",
                      W, st->size, st->size == 1 ? "" : "es");
    float *buf = xcalloc(p->work_len ? p->work_len : 1, sizeof(float));
    float *tmp = xcalloc(mpi_plan_recv_max(p, me) + 1, sizeof(float));
    size_t nreq = 2;
    for (size_t s = 0; s < p->nsteps; s++)
        nreq = 2 * p->steps[s].n > nreq ? 2 * p->steps[s].n : nreq;
    MPI_Request *reqs = xcalloc(nreq, sizeof *reqs);
    size_t ns = coll_send_count(p->coll, W, p->count, me, p->root);
    if (ns) memcpy(buf + coll_in_off(p->coll, W, p->count, me), send[me], ns * sizeof(float));
    int rc = mpi_plan_run(p, me, MPI_COMM_WORLD, buf, tmp, reqs, 60.0, err, errlen);
    int mine = rc, worst = rc;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* errors are > 0 */
    if (rc == CV_OK && worst != CV_OK)
        rc = cv_err(err, errlen, CV_EBACKEND, "mpi: another rank failed the run");
    if (rc == CV_OK) {
        /* Every process gets every rank's receive buffer (display scale: a few floats). */
        size_t nr = coll_recv_count(p->coll, W, p->count, me, p->root);
        if (nr)
            memcpy(recv[me], buf + coll_out_off(p->coll, W, p->count, me), nr * sizeof(float));
        for (int r = 0; r < W && rc == CV_OK; r++) {
            size_t n = coll_recv_count(p->coll, W, p->count, r, p->root);
            int mrc =
                n ? MPI_Bcast(recv[r], (int)n, MPI_FLOAT, r, MPI_COMM_WORLD) : MPI_SUCCESS;
            if (mrc != MPI_SUCCESS) rc = mpi_fail(err, errlen, mrc, "MPI_Bcast");
        }
    }
    free(reqs);
    free(tmp);
    free(buf);
    return rc;
}

static void mpi_describe(struct backend *b, int nranks, char *buf, size_t n)
{
    struct mpi_state *st = b->priv;
    snprintf(buf, n, "mpi: %d process%s on %d host%s (%s%s), %s", st->size,
             st->size == 1 ? "" : "es", st->nhosts, st->nhosts == 1 ? "" : "s", st->hosts[0],
             st->nhosts > 1 ? ", ..." : "", st->version);
}

static void mpi_rank_label(struct backend *b, int rank, char *buf, size_t n)
{
    struct mpi_state *st = b->priv;
    if (rank < 0 || rank >= st->size)
        snprintf(buf, n, "mpi process");
    else
        snprintf(buf, n, "%s process", st->hosts[rank]);
}

const struct backend_ops mpi_backend_ops = {
    .name = "mpi",
    .kind = BACKEND_MPI,
    .caps = BACKEND_CAP_EXACT_REDUCTION | BACKEND_CAP_PROCESSES | BACKEND_CAP_NATIVE_COLL,
    .open = mpi_open,
    .close = mpi_close,
    .max_ranks = mpi_max_ranks,
    .measure = mpi_measure,
    .run_small = mpi_run_small,
    .describe = mpi_describe,
    .rank_label = mpi_rank_label,
    .proc_rank = mpi_proc_rank,
    .node_ranks = mpi_node_ranks,
    .comm_create = mpi_comm_create,
};
