/* mpi_comm.c - the MPI backend's one runtime (backend/comm.h): this process is one rank.
 *
 * Plans run step by step, the way the trace executor runs them: in step s this process posts
 * a receive for each transfer into its buffer and a send for each transfer out of it
 * (MPI_Irecv / MPI_Isend, the whole step at once), waits for all of them, then applies the
 * received pieces in plan order with the one transfer arithmetic (core/exec.h). The plan's
 * execution rule (no transfer reads what another destination writes in the same step) makes
 * sending straight from the working buffer safe, and applying in plan order makes the result
 * the trace's, bit for bit. A refined plan (--slices/--channels) runs the same way, with one
 * message per slice. run() with no plan runs MPI's own collective (MPI_Allreduce, ...), in
 * place on the working buffer where MPI allows it.
 *
 * Training's collectives run the same ring plans, so training moves its data the way the
 * screens draw it. send/recv are eager: send copies the message, starts an MPI_Isend on a
 * communicator of its own and returns; recv waits for the message with this tag from that
 * peer and refuses one of another size.
 *
 * Every wait has the communicator's deadline. A wait that passes it asks every other rank
 * "are you there?" on a communicator of its own (a roll call: each rank whose wait timed out
 * answers); the ranks that do not answer within a grace are the ones that stalled, and
 * last_error() names them: "rank 2 stalled: no answer for 5 s". The communicator is then
 * aborted (every call fails at once) and the MPI job is marked broken (backend/launcher.h), so
 * that closing the backend ends every process instead of waiting in MPI_Finalize for the
 * stalled one.
 *
 * MPI's own blocking collectives (run() with no plan: MPI_Allreduce, ...) are the figures
 * being compared, so no wait of ours is in them and they are never swapped for non-blocking
 * ones (another algorithm in Open MPI). A rank that stalls while the others wait inside one is
 * named by a watchdog thread instead (mpi_watchdog.c, MPI_THREAD_MULTIPLE only): each
 * process's watchdog answers the others' "how far are you?" with its main thread's native
 * call number, and the one whose main thread has been in a call past the deadline asks all
 * of them; the
 * ranks that have not begun that call, or do not answer within the grace, are named: "rank 2
 * stalled: did not join MPI_Allreduce for 3 s (the others wait in it)" or "rank 2 stalled: no
 * answer for 3 s (MPI_Allreduce)"; every rank in the call and answering, twice a deadline
 * apart: MPI made no progress, nobody is named. The main thread is still stuck in MPI, so the
 * watchdog ends the job itself: the job is marked broken, the verdict printed on stderr
 * ("collviz: rank 2 stalled: ..."; the UI reads it from the job's output, or serve's rank 0
 * tells it), then MPI_Abort. Without MPI_THREAD_MULTIPLE such a stall is noticed only by
 * serve's watchdog, unnamed.
 *
 * The proc_* operations combine what each process recorded (times, counters, events,
 * parameters) so that every process ends with the whole run's record; they have the same
 * deadline. */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/coll.h"
#include "core/exec.h"
#include "core/plan.h"
#include "core/util.h"
#include "core/vec.h"
#include "backend/mpi/mpi_backend.h"
#include "backend/launcher.h"
#include "backend/mpi/mpi_comm_priv.h"

struct mpi_plan_entry {
    enum coll coll;
    enum redop op;
    size_t count;
    struct plan p;
    size_t sent, recv; /* floats this rank sends / receives per run */
    size_t tmp;        /* mc_plan_recv_max */
};

struct mpi_pending {
    MPI_Request req;
    float *data;
    size_t bytes;
};

/* What prepare() makes for a job: every buffer a run needs, before its first message. */
struct mpi_prep {
    float *tmp; /* the most this rank receives in one step */
    MPI_Request *reqs;
    size_t nreq;
};

static struct mpi_comm *to_mc(struct comm *c)
{
    return (struct mpi_comm *)c;
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

/* An MPI call returned mrc: say which and why. */
static int mc_mpi_fail(struct mpi_comm *mc, int mrc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(mrc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "code %d", mrc);
    return mc_fail(mc, "mpi: %s failed: %s", what, msg);
}

/* Why the communicator was aborted; or, once, why the last call failed. A failure that
 * did not abort (a buffer this process could not have, a refused argument) is this
 * process's alone: run.c takes a communicator whose last_error() is not "" for a broken
 * one and makes a new one, which every process must do together, so such a message is
 * said once and then forgotten. */
static const char *mc_last_error(struct comm *c)
{
    struct mpi_comm *mc = to_mc(c);
    if (mc->aborted) return mc->err;
    snprintf(mc->said, sizeof mc->said, "%s", mc->err);
    mc->err[0] = '\0';
    return mc->said;
}

/* Every call after an abort fails at once with the reason of the abort. */
static inline int mc_dead(struct mpi_comm *mc)
{
    return CV_EBACKEND;
}

static void mc_abort(struct comm *c, const char *why)
{
    struct mpi_comm *mc = to_mc(c);
    if (mc->aborted) return;
    mc->aborted = true;
    if (!mc->err[0]) snprintf(mc->err, sizeof mc->err, "%s", why ? why : "aborted");
    /* The other processes are still in this communicator's collectives, or will be: the
     * job cannot go on, and closing MPI must end it rather than wait for them. */
    launcher_set_broken(-1, mc->err);
}

/* This communicator's rank r as a rank of MPI_COMM_WORLD (the one the screens show). */
int mc_world_rank(struct mpi_comm *mc, int r)
{
    MPI_Group g, wg;
    int out = r;
    if (MPI_Comm_group(mc->coll, &g) != MPI_SUCCESS) return r;
    if (MPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
        MPI_Group_translate_ranks(g, 1, &r, wg, &out);
        MPI_Group_free(&wg);
    }
    MPI_Group_free(&g);
    return out == MPI_UNDEFINED ? r : out;
}

/* How long a roll call waits for the others' answers, for a deadline of tmo seconds. */
double mc_grace(double tmo)
{
    double g = tmo / 2;
    return g < MC_GRACE_MIN_S ? MC_GRACE_MIN_S : g > MC_GRACE_MAX_S ? MC_GRACE_MAX_S : g;
}

/* Sleep s seconds, whatever signals come. */
void mc_nap_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* Append rank r to a list "1, 3" (*count ranks so far). */
void mc_rank_list(char *who, size_t n, int *count, int r)
{
    size_t L = strlen(who);
    snprintf(who + L, n - L, "%s%d", *count ? ", " : "", r);
    (*count)++;
}

/* Until every request of r[0..W) is done or `until` (now_s) passes, 1 ms apart; with d, the
 * watchdog d also answers the others' questions meanwhile. */
void mc_await(MPI_Request *r, int W, double until, struct mc_wd *d)
{
    for (;;) {
        if (d) mc_wd_answer(d); /* the others ask too, at about the same time */
        int open = 0;
        for (int q = 0; q < W; q++) {
            if (r[q] == MPI_REQUEST_NULL) continue;
            int done = 0;
            MPI_Test(&r[q], &done, MPI_STATUS_IGNORE);
            open += !done;
        }
        if (open == 0 || now_s() > until) return;
        mc_nap_s(d ? 5e-3 : 1e-3);
    }
}

/* A wait passed its deadline after `waited` seconds. Roll call: ask every other rank "are you
 * there?" on mc->ctl, where only ranks whose own waits timed out answer (they do this
 * same call), and wait a grace for the answers. The ranks that do not answer stalled (or
 * died): name them, abort the communicator, mark the job broken. */
static int mc_stalled(struct mpi_comm *mc, double waited, const char *what)
{
    static const int here = 1; /* outlives any send the roll call leaves behind */
    int W = mc->pub.nranks, me = mc->me;
    int *heard = xcalloc((size_t)W, sizeof *heard);
    MPI_Request *rr = xcalloc((size_t)W, sizeof *rr), *sr = xcalloc((size_t)W, sizeof *sr);
    for (int q = 0; q < W; q++) {
        rr[q] = sr[q] = MPI_REQUEST_NULL;
        if (q == me) continue;
        MPI_Irecv(&heard[q], 1, MPI_INT, q, MC_TAG_HERE, mc->ctl, &rr[q]);
        MPI_Isend(&here, 1, MPI_INT, q, MC_TAG_HERE, mc->ctl, &sr[q]);
    }
    mc_await(rr, W, now_s() + mc_grace(mc_timeout(mc)), NULL);
    char who[160] = "";
    int nmiss = 0, first = -1;
    for (int q = 0; q < W; q++) {
        if (rr[q] != MPI_REQUEST_NULL) {
            int wr = mc_world_rank(mc, q);
            mc_rank_list(who, sizeof who, &nmiss, wr);
            if (first < 0) first = wr;
            MPI_Cancel(&rr[q]);
            MPI_Request_free(&rr[q]);
        }
        if (sr[q] != MPI_REQUEST_NULL) MPI_Request_free(&sr[q]);
    }
    if (nmiss == 0) free(heard); /* else a cancel that came too late may still write it */
    free(rr);
    free(sr);
    if (nmiss)
        snprintf(mc->err, sizeof mc->err, "rank%s %s stalled: no answer for %.0f s (%s)",
                 nmiss > 1 ? "s" : "", who, waited, what);
    else
        snprintf(mc->err, sizeof mc->err,
                 "%s: no answer for %.0f s, yet every rank answers the roll call (they wait "
                 "on each other)",
                 what, waited);
    mc->aborted = true;
    launcher_set_broken(first, mc->err);
    return CV_ETIMEOUT;
}

/* An MPI call failed half way through a collective: the others cannot finish it. */
static int mc_broken(struct mpi_comm *mc, int mrc, const char *what)
{
    mc_mpi_fail(mc, mrc, what);
    mc_abort(&mc->pub, NULL);
    return CV_EBACKEND;
}

/* A run gave up on the point-to-point requests reqs[0..n) (a stall, a failed call): cancel
 * every one still open (never a collective's: MPI forbids cancelling those) and
 * wait a moment for each to complete, so that no receive is left that could write into a
 * buffer its owner is about to free. A request that does not complete (a receive already
 * matched to a message whose sender stalled half way, a send the stalled peer never takes)
 * strands the communicator: mc->stranded, and its buffers (the receive scratch, the working
 * buffers) are kept, not freed, until the job ends (an abandoned communicator is a broken
 * job's: mpi_comm_create makes no other, and closing the backend ends the process). */
static void mc_abandon(struct mpi_comm *mc, int n, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL) MPI_Cancel(&reqs[i]);
    mc_await(reqs, n, now_s() + MC_CANCEL_S, NULL);
    for (int i = 0; i < n; i++)
        if (reqs[i] != MPI_REQUEST_NULL) mc->stranded = true;
}

/* Wait for n requests until the communicator's deadline (which peer never answered is not
 * asked: in a ring every rank waits on its neighbour; the roll call finds who stalled). Polls
 * hard for a while (shared memory answers in microseconds), then gives the core away between
 * polls: ranks may outnumber cores (--oversubscribe). On failure the requests are still
 * open: a caller whose requests write into its buffers abandons them (mc_abandon). */
static int mc_waitall(struct mpi_comm *mc, int n, MPI_Request *reqs, const char *what)
{
    if (mc->aborted) return mc_dead(mc);
    double t0 = now_s(), tmo = mc_timeout(mc);
    double deadline = t0 + (tmo > 0 ? tmo : 1e9);
    for (unsigned spins = 0;; spins++) {
        int done = 0;
        int mrc = MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE);
        if (mrc != MPI_SUCCESS) return mc_broken(mc, mrc, what);
        if (done) return CV_OK;
        if (spins > 64) sched_yield();
        if ((spins & 255) == 0 && now_s() > deadline) return mc_stalled(mc, now_s() - t0, what);
    }
}

/* Posting the request reqs[n-1] of a step failed (mrc): the ones before it are abandoned. */
static int mc_post_failed(struct mpi_comm *mc, int mrc, const char *what, int n,
                          MPI_Request *reqs)
{
    reqs[n - 1] = MPI_REQUEST_NULL;
    int rc = mc_broken(mc, mrc, what);
    mc_abandon(mc, n, reqs);
    return rc;
}

/* Room for n requests in the communicator's own array (runs without a prepared job). */
static MPI_Request *mc_reqs(struct mpi_comm *mc, size_t n)
{
    return VEC_GROW(mc->reqs, mc->reqs_cap, n);
}

/* The most floats rank me receives in any one step of p (its scratch for a step). */
static size_t mc_plan_recv_max(const struct plan *p, int me)
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

/* Requests one step of p may have in flight: 2 x its most transfers. */
static size_t mc_plan_nreq(const struct plan *p)
{
    size_t nreq = 2;
    for (size_t s = 0; s < p->nsteps; s++)
        nreq = 2 * p->steps[s].n > nreq ? 2 * p->steps[s].n : nreq;
    return nreq;
}

/* Run plan p once on this rank's working buffer, step by step (see the top of the file).
 * tmp: mc_plan_recv_max floats; reqs: mc_plan_nreq. */
static int mc_plan_exec(struct mpi_comm *mc, const struct plan *p, float *buf, float *tmp,
                        MPI_Request *reqs)
{
    int me = mc->me;
    for (size_t s = 0; s < p->nsteps; s++) {
        const struct step *st = &p->steps[s];
        int nreq = 0, tag = (int)(s & 0x7fff), mrc;
        size_t off = 0;
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const struct xfer *x = &p->x[i];
            if (x->dst != me || x->src == me) continue;
            mrc = MPI_Irecv(tmp + off, (int)x->count, MPI_FLOAT, x->src, tag, mc->coll,
                            &reqs[nreq++]);
            if (mrc != MPI_SUCCESS) return mc_post_failed(mc, mrc, "MPI_Irecv", nreq, reqs);
            off += x->count;
        }
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const struct xfer *x = &p->x[i];
            if (x->src != me || x->dst == me) continue;
            mrc = MPI_Isend(buf + x->src_off, (int)x->count, MPI_FLOAT, x->dst, tag, mc->coll,
                            &reqs[nreq++]);
            if (mrc != MPI_SUCCESS) return mc_post_failed(mc, mrc, "MPI_Isend", nreq, reqs);
        }
        int rc = mc_waitall(mc, nreq, reqs, st->phase);
        if (rc != CV_OK) {
            mc_abandon(mc, nreq, reqs);
            return rc;
        }
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

static MPI_Op mc_op(enum redop op)
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

/* One call of MPI's own collective: the job's numbers, the communicator and the buffers
 * (send: the out-of-place input or NULL; work: the working buffer). */
struct mc_call {
    int W, me, root, n;
    size_t count;
    MPI_Comm cm;
    MPI_Op mop;
    const float *send;
    float *work;
};

static int mc_allreduce(const struct mc_call *a)
{
    return MPI_Allreduce(a->send ? (const void *)a->send : MPI_IN_PLACE, a->work, a->n,
                         MPI_FLOAT, a->mop, a->cm);
}

static int mc_allgather(const struct mc_call *a)
{
    return a->send ? MPI_Allgather(a->send, a->n, MPI_FLOAT, a->work, a->n, MPI_FLOAT, a->cm)
                   : MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a->work, a->n, MPI_FLOAT,
                                   a->cm);
}

static int mc_reduce_scatter_block(const struct mc_call *a)
{
    float *mine = a->work + (size_t)a->me * a->count;
    if (a->send) return MPI_Reduce_scatter_block(a->send, mine, a->n, MPI_FLOAT, a->mop, a->cm);
    int mrc = MPI_Reduce_scatter_block(MPI_IN_PLACE, a->work, a->n, MPI_FLOAT, a->mop, a->cm);
    /* in place, MPI leaves the rank's piece at the front; the layout has it at me*n */
    if (mrc == MPI_SUCCESS && a->me > 0) memmove(mine, a->work, a->count * sizeof(float));
    return mrc;
}

static int mc_bcast(const struct mc_call *a)
{
    if (a->send && a->me == a->root) memcpy(a->work, a->send, a->count * sizeof(float));
    return MPI_Bcast(a->work, a->n, MPI_FLOAT, a->root, a->cm);
}

static int mc_reduce(const struct mc_call *a)
{
    bool at_root = a->me == a->root;
    if (a->send)
        return MPI_Reduce(a->send, at_root ? a->work : NULL, a->n, MPI_FLOAT, a->mop, a->root,
                          a->cm);
    return at_root ? MPI_Reduce(MPI_IN_PLACE, a->work, a->n, MPI_FLOAT, a->mop, a->root, a->cm)
                   : MPI_Reduce(a->work, NULL, a->n, MPI_FLOAT, a->mop, a->root, a->cm);
}

static int mc_gather(const struct mc_call *a)
{
    bool at_root = a->me == a->root;
    if (a->send)
        return MPI_Gather(a->send, a->n, MPI_FLOAT, at_root ? a->work : NULL, a->n, MPI_FLOAT,
                          a->root, a->cm);
    return at_root ? MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a->work, a->n, MPI_FLOAT,
                                a->root, a->cm)
                   : MPI_Gather(a->work + (size_t)a->me * a->count, a->n, MPI_FLOAT, NULL, 0,
                                MPI_DATATYPE_NULL, a->root, a->cm);
}

static int mc_scatter(const struct mc_call *a)
{
    float *mine = a->work + (size_t)a->me * a->count;
    bool at_root = a->me == a->root;
    if (a->send)
        return MPI_Scatter(at_root ? a->send : NULL, a->n, MPI_FLOAT, mine, a->n, MPI_FLOAT,
                           a->root, a->cm);
    return at_root
               ? MPI_Scatter(a->work, a->n, MPI_FLOAT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                             a->root, a->cm)
               : MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, mine, a->n, MPI_FLOAT, a->root, a->cm);
}

static int mc_alltoall(const struct mc_call *a)
{
    return MPI_Alltoall(a->send ? a->send : a->work, a->n, MPI_FLOAT,
                        a->work + (size_t)a->W * a->count, a->n, MPI_FLOAT, a->cm);
}

/* MPI's collective for each of ours, by its MPI name (a collective without one runs its
 * plan as point-to-point messages only: mc_native refuses it). */
static const struct mc_native_call {
    const char *what;
    int (*call)(const struct mc_call *a);
} mc_natives[COLL_COUNT] = {
    [COLL_ALL_REDUCE] = {"MPI_Allreduce", mc_allreduce},
    [COLL_ALL_GATHER] = {"MPI_Allgather", mc_allgather},
    [COLL_REDUCE_SCATTER] = {"MPI_Reduce_scatter_block", mc_reduce_scatter_block},
    [COLL_BROADCAST] = {"MPI_Bcast", mc_bcast},
    [COLL_REDUCE] = {"MPI_Reduce", mc_reduce},
    [COLL_GATHER] = {"MPI_Gather", mc_gather},
    [COLL_SCATTER] = {"MPI_Scatter", mc_scatter},
    [COLL_ALL_TO_ALL] = {"MPI_Alltoall", mc_alltoall},
};

/* MPI's own collective on the working buffer (core/plan.h's layout): in place where MPI
 * allows it, as nccl-tests' in-place runs; all_to_all from its send half into its receive
 * half. With `send` (out of place, nccl-tests' first group) the input is read from there
 * and MPI is given both buffers; MPI_Bcast has one buffer, so the root copies its input
 * in first. These are MPI's blocking collectives, the ones whose speed is being compared:
 * no wait of ours is in them; the watchdog (above) keeps their deadline from another
 * thread. */
static int mc_native(struct mpi_comm *mc, const struct comm_job *j, const float *send,
                     float *work)
{
    int W = mc->pub.nranks, me = mc->me, root = j->root;
    const struct mc_native_call *nat =
        (unsigned)j->coll < COLL_COUNT && mc_natives[j->coll].call ? &mc_natives[j->coll]
                                                                   : NULL;
    if (!nat) return mc_fail(mc, "mpi: no such collective");
    const char *what = nat->what;
    struct mc_call call = {.W = W,
                           .me = me,
                           .root = root,
                           .n = (int)j->count,
                           .count = j->count,
                           .cm = mc->coll,
                           .mop = mc_op(j->op),
                           .send = send,
                           .work = work};
    mc_wd_enter(mc, what); /* its watchdog was started by mc_prepare */
#ifdef CV_TEST_HOOKS
    if (mc->stall_s > 0 && mc->stall_rank == -1) {
        double s = mc->stall_s;
        mc->stall_s = 0;
        mc_nap_s(s);
    }
#endif
    int mrc = nat->call(&call);
    int wrc = mc_wd_leave(mc);
    if (wrc != CV_OK) return wrc;
    if (mrc != MPI_SUCCESS) return mc_broken(mc, mrc, what);
    if (j->op == OP_AVG && coll_reduces(j->coll)) {
        float *out = work + coll_out_off(j->coll, W, j->count, me);
        size_t nr = coll_recv_count(j->coll, W, j->count, me, root);
        for (size_t i = 0; i < nr; i++)
            out[i] /= (float)W;
    }
    return CV_OK;
}

/* Grow a float scratch to n elements (kept between calls). */
static float *mc_scratch(struct mpi_comm *mc, float **p, size_t *cap, size_t n)
{
    if (*cap < n || !*p) {
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
    e->tmp = mc_plan_recv_max(&e->p, mc->me);
    *VEC_PUSH(mc->plans, mc->nplans, mc->plans_cap) = e;
    *out = e;
    return CV_OK;
}

/* One collective: in (send count) -> out (recv count), the work buffer being `cand` when it
 * is big enough (the caller's buffer, as NCCL's in-place conventions allow). */
static int mc_coll(struct mpi_comm *mc, int rank, enum coll c, enum redop op, size_t count,
                   const float *in, float *out, float *cand, size_t cand_len, const char *label)
{
    if (mc->aborted) return mc_dead(mc);
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
    MPI_Request *reqs = mc_reqs(mc, mc_plan_nreq(p));
    if (nin && work + in_off != in) memmove(work + in_off, in, nin * sizeof(float));
    rc = mc_plan_exec(mc, p, work, tmp, reqs);
    if (rc != CV_OK) {
        if (!mc->aborted) { /* a stall names the rank on its own; else say where */
            char why[sizeof mc->err];
            snprintf(why, sizeof why, "%s", mc->err);
            mc_fail(mc, "%s: %.200s", label ? label : coll_name(c), why);
        }
        return rc;
    }
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
    if (mc->aborted) return mc_dead(mc);
    if (rank != mc->me || peer < 0 || peer >= c->nranks || peer == rank)
        return mc_fail(mc, "rank %d: bad send to %d", rank, peer);
    if (tag < 0 || tag > mc->tag_ub || count > INT32_MAX)
        return mc_fail(mc, "rank %d: tag %d / %zu elements out of MPI's range", rank, tag,
                       count);
    double t0 = now_s();
    mc_reap(mc);
    float *copy = xmalloc((count ? count : 1) * sizeof(float));
    memcpy(copy, buf, count * sizeof(float));
    VEC_GROW(mc->pend, mc->pend_cap, mc->npend + 1);
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
    if (c->tl)
        timeline_add_p2p(c->tl, c->step[rank], rank, TL_SEND, label ? label : "send", peer, tag,
                         count * sizeof(float), NULL, t0, t0, now_s());
    return CV_OK;
}

static int mc_recv(struct comm *c, int rank, int peer, int tag, float *buf, size_t count,
                   const char *label)
{
    struct mpi_comm *mc = to_mc(c);
    if (mc->aborted) return mc_dead(mc);
    if (rank != mc->me || peer < 0 || peer >= c->nranks || peer == rank)
        return mc_fail(mc, "rank %d: bad recv from %d", rank, peer);
    double t0 = now_s();
    /* Wait for the message to be there (with the deadline), then check its size. */
    MPI_Status st;
    int there = 0;
    double deadline = t0 + mc_timeout(mc);
    bool waited = false;
    for (;;) {
        MPI_Iprobe(peer, tag, mc->p2p, &there, &st);
        if (there) break;
        waited = true;
        if (now_s() > deadline) {
            char what[80];
            snprintf(what, sizeof what, "%.40s from rank %d", label ? label : "recv", peer);
            return mc_stalled(mc, now_s() - t0, what);
        }
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
    if (c->tl)
        timeline_add_p2p(c->tl, c->step[rank], rank, TL_RECV, label ? label : "recv", peer, tag,
                         count * sizeof(float), waited ? "" : NULL, t0, t1, t2);
    return CV_OK;
}

static int mc_barrier(struct comm *c, int rank)
{
    struct mpi_comm *mc = to_mc(c);
    if (mc->aborted) return mc_dead(mc);
    MPI_Request req;
    int mrc = MPI_Ibarrier(mc->coll, &req);
    if (mrc != MPI_SUCCESS) return mc_mpi_fail(mc, mrc, "MPI_Ibarrier");
    return mc_waitall(mc, 1, &req, "barrier");
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

#ifdef CV_TEST_HOOKS
/* CV_TEST_PROC_STALL=RANK:CALL:SECONDS:TIMEOUT (test builds): rank RANK sleeps SECONDS before
 * its CALLth proc_* call, and every wait's deadline is TIMEOUT s, so that the others' waits in
 * that call time out. */
static void mc_test_proc_stall(struct mpi_comm *mc)
{
    if (++mc->proc_calls == mc->proc_stall_call && mc->me == mc->proc_stall_rank)
        mc_nap_s(mc->proc_stall_s);
}

/* A failed wait left req open: kept, for mc_test_drain (with CV_TEST_PROC_STALL only). */
static void mc_test_keep_open(struct mpi_comm *mc, MPI_Request req)
{
    int n = (int)(sizeof mc->test_open / sizeof mc->test_open[0]);
    if (mc->proc_stall_call > 0 && req != MPI_REQUEST_NULL && mc->test_nopen < n)
        mc->test_open[mc->test_nopen++] = req;
}

/* Before the communicator goes: wait (up to the stall and a margin) for the requests that
 * failed waits left open, so that the late rank's data land while this process lives, where
 * a buffer its owner freed or a frame that returned would be written (ASan's report). */
static void mc_test_drain(struct mpi_comm *mc)
{
    if (!mc->test_nopen) return;
    mc_await(mc->test_open, mc->test_nopen, now_s() + mc->proc_drain_s, NULL);
    int open = 0;
    for (int i = 0; i < mc->test_nopen; i++)
        open += mc->test_open[i] != MPI_REQUEST_NULL;
    fprintf(stderr, "collviz: test hook: %d of %d requests left open completed\n",
            mc->test_nopen - open, mc->test_nopen);
}
#endif

static void mc_destroy(struct comm *c)
{
    struct mpi_comm *mc = to_mc(c);
    mc_wd_stop(mc);
#ifdef CV_TEST_HOOKS
    mc_test_drain(mc);
#endif
    /* After an abort the peers may never take what is in flight: leave it to the end of
     * the job (launcher_stop ends it) rather than wait. */
    for (size_t i = 0; i < mc->npend; i++) {
        if (!mc->aborted) mc_waitall(mc, 1, &mc->pend[i].req, "an eager send");
        if (mc->aborted) continue; /* the buffer may still be read */
        free(mc->pend[i].data);
    }
    free(mc->pend);
    for (size_t i = 0; i < mc->nplans; i++) {
        plan_free(&mc->plans[i]->p);
        free(mc->plans[i]);
    }
    free(mc->plans);
    if (!mc->stranded) { /* else abandoned requests may still use them (mc_abandon) */
        free(mc->work);
        free(mc->tmp);
        free(mc->reqs);
    }
    if (!mc->aborted) {
        MPI_Comm_free(&mc->coll);
        MPI_Comm_free(&mc->p2p);
        MPI_Comm_free(&mc->ctl);
        if (mc->wd != MPI_COMM_NULL) MPI_Comm_free(&mc->wd);
    }
    free(mc);
}

/* ---- combining the processes' records (non-blocking, with the deadline) ----
 *
 * MPI cannot cancel a collective: one whose wait passed its deadline may still write (or
 * read) its buffers at any later moment, as soon as the late rank joins, long after the
 * helper returned. So no proc_* helper ever gives MPI its caller's memory: each copies the
 * record into a stage of its own, waits on the stage, and copies the result back only when
 * the wait succeeded. A stage whose wait failed is stranded: kept, reachable from a list,
 * never freed, until the process ends (a failed wait aborts the communicator and breaks the
 * job, so few are ever stranded). Whatever a helper returns, its caller may free, reuse or
 * leave (a frame's locals) every buffer it passed the moment the helper returns. */

struct mc_stage {
    struct mc_stage *next; /* on mc_stranded once stranded */
    _Alignas(16) unsigned char data[];
};
static struct mc_stage *mc_stranded;
static pthread_mutex_t mc_stranded_lock = PTHREAD_MUTEX_INITIALIZER;

/* A stage of `bytes` (a copy of `from` when not NULL). */
static void *mc_stage_new(const void *from, size_t bytes)
{
    struct mc_stage *st = xmalloc(sizeof *st + (bytes ? bytes : 1));
    st->next = NULL;
    if (from && bytes) memcpy(st->data, from, bytes);
    return st->data;
}

/* The wait on the request that used stage p ended with rc: free the stage when the request
 * is done with it (rc CV_OK, or req never posted: MPI_REQUEST_NULL), else strand it. */
static void mc_stage_end(void *p, int rc, MPI_Request req)
{
    struct mc_stage *st =
        (struct mc_stage *)((unsigned char *)p - offsetof(struct mc_stage, data));
    if (rc == CV_OK || req == MPI_REQUEST_NULL) {
        free(st);
        return;
    }
    pthread_mutex_lock(&mc_stranded_lock);
    st->next = mc_stranded;
    mc_stranded = st;
    pthread_mutex_unlock(&mc_stranded_lock);
}

/* Post one collective on a stage (post: an MPI_I* call that fills *req), wait for it. */
static int mc_stage_wait(struct mpi_comm *mc, int mrc, MPI_Request *req, const char *posting,
                         const char *what)
{
    if (mrc != MPI_SUCCESS) {
        *req = MPI_REQUEST_NULL;
        return mc_mpi_fail(mc, mrc, posting);
    }
    int rc = mc_waitall(mc, 1, req, what);
#ifdef CV_TEST_HOOKS
    if (rc != CV_OK) mc_test_keep_open(mc, *req);
#endif
    return rc;
}

static size_t mc_proc_size(enum comm_proc_type t)
{
    return t == COMM_PROC_F32 || t == COMM_PROC_INT ? 4 : 8;
}

static int mc_proc_sum(struct comm *c, void *buf, size_t n, enum comm_proc_type t)
{
    struct mpi_comm *mc = to_mc(c);
    MPI_Datatype dt = t == COMM_PROC_F32   ? MPI_FLOAT
                      : t == COMM_PROC_F64 ? MPI_DOUBLE
                      : t == COMM_PROC_INT ? MPI_INT
                                           : MPI_UINT64_T;
    if (mc->aborted) return mc_dead(mc);
#ifdef CV_TEST_HOOKS
    mc_test_proc_stall(mc);
#endif
    if (n > INT32_MAX) return mc_fail(mc, "proc_sum: %zu elements", n);
    if (n == 0) return CV_OK;
    size_t bytes = n * mc_proc_size(t);
    void *st = mc_stage_new(buf, bytes);
    MPI_Request req;
    int rc =
        mc_stage_wait(mc, MPI_Iallreduce(MPI_IN_PLACE, st, (int)n, dt, MPI_SUM, mc->coll, &req),
                      &req, "MPI_Iallreduce of the record", "combining the record");
    if (rc == CV_OK) memcpy(buf, st, bytes);
    mc_stage_end(st, rc, req);
    return rc;
}

static int mc_proc_max(struct comm *c, double *v)
{
    struct mpi_comm *mc = to_mc(c);
    if (mc->aborted) return mc_dead(mc);
#ifdef CV_TEST_HOOKS
    mc_test_proc_stall(mc);
#endif
    double *st = mc_stage_new(v, sizeof *v);
    MPI_Request req;
    int rc = mc_stage_wait(
        mc, MPI_Iallreduce(MPI_IN_PLACE, st, 1, MPI_DOUBLE, MPI_MAX, mc->coll, &req), &req,
        "MPI_Iallreduce", "the slowest rank's time");
    if (rc == CV_OK) *v = *st;
    mc_stage_end(st, rc, req);
    return rc;
}

static int mc_proc_bcast(struct comm *c, void *buf, size_t bytes, int root)
{
    struct mpi_comm *mc = to_mc(c);
    if (mc->aborted) return mc_dead(mc);
#ifdef CV_TEST_HOOKS
    mc_test_proc_stall(mc);
#endif
    if (bytes > INT32_MAX) return mc_fail(mc, "proc_bcast: %zu bytes", bytes);
    void *st = mc_stage_new(buf, bytes);
    MPI_Request req;
    int rc = mc_stage_wait(mc, MPI_Ibcast(st, (int)bytes, MPI_BYTE, root, mc->coll, &req), &req,
                           "MPI_Ibcast", "a broadcast of the record");
    if (rc == CV_OK && bytes) memcpy(buf, st, bytes);
    mc_stage_end(st, rc, req);
    return rc;
}

/* Every process's size (an int each), on one stage: [mine][W counts]. */
static int mc_proc_sizes(struct mpi_comm *mc, int my, int W, int *cnt)
{
    int *st = mc_stage_new(NULL, (size_t)(W + 1) * sizeof *st);
    st[0] = my;
    MPI_Request req;
    int rc =
        mc_stage_wait(mc, MPI_Iallgather(st, 1, MPI_INT, st + 1, 1, MPI_INT, mc->coll, &req),
                      &req, "MPI_Iallgather of the record sizes", "gathering the record sizes");
    if (rc == CV_OK) memcpy(cnt, st + 1, (size_t)W * sizeof *cnt);
    mc_stage_end(st, rc, req);
    return rc;
}

static int mc_proc_allgather(struct comm *c, const void *mine, size_t bytes, void **all,
                             size_t *counts)
{
    struct mpi_comm *mc = to_mc(c);
    int W = c->nranks;
    *all = NULL;
    if (mc->aborted) return mc_dead(mc);
#ifdef CV_TEST_HOOKS
    mc_test_proc_stall(mc);
#endif
    if (bytes > INT32_MAX) return mc_fail(mc, "proc_allgather: %zu bytes", bytes);
    int *cnt = xcalloc((size_t)W, sizeof *cnt);
    int rc = mc_proc_sizes(mc, (int)bytes, W, cnt);
    size_t total = 0;
    for (int r = 0; rc == CV_OK && r < W; r++) {
        total += (size_t)cnt[r];
        counts[r] = (size_t)cnt[r];
    }
    if (rc == CV_OK && total > INT32_MAX)
        rc = mc_fail(mc, "proc_allgather: %zu bytes in all", total);
    if (rc != CV_OK) {
        free(cnt);
        return rc;
    }
    /* One stage: the counts and displacements MPI reads, this process's bytes, the whole. */
    size_t head = 2 * (size_t)W * sizeof(int);
    unsigned char *st = mc_stage_new(NULL, head + bytes + total);
    int *scnt = (int *)st, *disp = scnt + W;
    for (int r = 0, at = 0; r < W; r++) {
        scnt[r] = cnt[r];
        disp[r] = at;
        at += cnt[r];
    }
    free(cnt);
    unsigned char *smine = st + head, *sall = smine + bytes;
    if (bytes) memcpy(smine, mine, bytes);
    MPI_Request req;
    rc = mc_stage_wait(mc,
                       MPI_Iallgatherv(smine, (int)bytes, MPI_BYTE, sall, scnt, disp, MPI_BYTE,
                                       mc->coll, &req),
                       &req, "MPI_Iallgatherv of the record", "gathering the record");
    if (rc == CV_OK) {
        *all = xmalloc(total ? total : 1);
        if (total) memcpy(*all, sall, total);
    }
    mc_stage_end(st, rc, req);
    return rc;
}

/* ---- the runtime side: backend/run.c's measurement and display-scale run ---- */

static int mc_buf_alloc(struct comm *c, int rank, size_t count, float **out)
{
    struct mpi_comm *mc = to_mc(c);
    *out = NULL;
    if (rank != mc->me) {
        mc_fail(mc, "rank %d: not this process's rank (%d)", rank, mc->me);
        return CV_EINVAL;
    }
    if (count > SIZE_MAX / sizeof(float) / CV_MAX_RANKS) {
        mc_fail(mc, "%zu elements: more than this machine can address", count);
        return CV_ENOMEM;
    }
    size_t bytes = (count ? count : 1) * sizeof(float);
    /* run.c checked the node's processes' buffers against the memory there is; this is the
     * last word before the pages are touched. */
    size_t avail = mem_available_bytes();
    if (avail && bytes > avail) {
        char a[32], b[32];
        format_size(bytes, a, sizeof a);
        format_size(avail, b, sizeof b);
        mc_fail(mc, "a working buffer of %s would not fit in the %s available", a, b);
        return CV_ENOMEM;
    }
    float *p = malloc(bytes);
    if (!p) {
        mc_fail(mc, "malloc of %zu B failed", bytes);
        return CV_ENOMEM;
    }
    memset(p, 0, bytes); /* first touch here, not in a timed run */
    *out = p;
    return CV_OK;
}

static void mc_buf_free(struct comm *c, int rank, float *buf)
{
    (void)rank;
    if (to_mc(c)->stranded) return; /* an abandoned send may still read it (mc_abandon) */
    free(buf);
}

static int mc_put(struct comm *c, int rank, float *buf, size_t off, const float *src,
                  size_t count)
{
    (void)c;
    (void)rank;
    if (count) memcpy(buf + off, src, count * sizeof(float));
    return CV_OK;
}

static int mc_get(struct comm *c, int rank, const float *buf, size_t off, float *dst,
                  size_t count)
{
    (void)c;
    (void)rank;
    if (count) memcpy(dst, buf + off, count * sizeof(float));
    return CV_OK;
}

static int mc_prepare(struct comm *c, struct comm_job *j)
{
    struct mpi_comm *mc = to_mc(c);
    int W = c->nranks;
    j->prep = NULL;
    if (j->count > INT32_MAX / (size_t)W)
        return cv_err(mc->err, sizeof mc->err, CV_ENOMEM,
                      "%zu elements per rank: more than MPI counts in an int", j->count);
    if (!j->plan) { /* MPI's own collective needs nothing of ours but its watchdog */
        mc_wd_start(mc);
        return CV_OK;
    }
    if (j->plan->nranks != W)
        return mc_fail(mc, "a plan for %d ranks on %d processes", j->plan->nranks, W);
    struct mpi_prep *pp = xcalloc(1, sizeof *pp);
    size_t tmp = mc_plan_recv_max(j->plan, mc->me);
    pp->tmp = malloc((tmp ? tmp : 1) * sizeof(float));
    pp->nreq = mc_plan_nreq(j->plan);
    pp->reqs = calloc(pp->nreq, sizeof *pp->reqs);
    if (!pp->tmp || !pp->reqs) {
        free(pp->tmp);
        free(pp->reqs);
        free(pp);
        return cv_err(mc->err, sizeof mc->err, CV_ENOMEM,
                      "%zu B of receive scratch: malloc failed", tmp * sizeof(float));
    }
    memset(pp->tmp, 0, (tmp ? tmp : 1) * sizeof(float));
    j->prep = pp;
    return CV_OK;
}

static void mc_unprepare(struct comm *c, struct comm_job *j)
{
    struct mpi_prep *pp = j->prep;
    if (!pp) return;
    j->prep = NULL;
    /* A request a run abandoned may still write the scratch (mc_abandon): kept, on purpose,
     * until the job ends. */
    if (to_mc(c)->stranded) return;
    free(pp->tmp);
    free(pp->reqs);
    free(pp);
}

static int mc_run(struct comm *c, int rank, const struct comm_job *j, float *work)
{
    struct mpi_comm *mc = to_mc(c);
    if (rank != mc->me)
        return mc_fail(mc, "rank %d: not this process's rank (%d)", rank, mc->me);
    if (mc->aborted) return mc_dead(mc);
#ifdef CV_TEST_HOOKS
    if (mc->stall_s > 0 && mc->me == mc->stall_rank) {
        double s = mc->stall_s;
        mc->stall_s = 0;
        mc_nap_s(s);
    }
#endif
    if (!j->plan) return mc_native(mc, j, NULL, work);
    const struct mpi_prep *pp = j->prep; /* run.c prepares every job first (comm.h) */
    if (!pp) return mc_fail(mc, "a plan run without prepare()");
    return mc_plan_exec(mc, j->plan, work, pp->tmp, pp->reqs);
}

/* Out of place: MPI's own collective is given both buffers; a plan reads its input from
 * the working buffer, so this rank copies it in first (as MPI's ring all-reduce does). */
static int mc_run_oop(struct comm *c, int rank, const struct comm_job *j, const float *send,
                      float *work)
{
    struct mpi_comm *mc = to_mc(c);
    if (rank != mc->me)
        return mc_fail(mc, "rank %d: not this process's rank (%d)", rank, mc->me);
    if (mc->aborted) return mc_dead(mc);
    if (!j->plan) return mc_native(mc, j, send, work);
    size_t ns = coll_send_count(j->coll, c->nranks, j->count, rank, j->root);
    if (ns)
        memcpy(work + coll_in_off(j->coll, c->nranks, j->count, rank), send,
               ns * sizeof(float));
    return mc_run(c, rank, j, work);
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
    .buf_alloc = mc_buf_alloc,
    .buf_free = mc_buf_free,
    .put = mc_put,
    .get = mc_get,
    .run = mc_run,
    .run_oop = mc_run_oop,
    .sync = NULL,
    .prepare = mc_prepare,
    .unprepare = mc_unprepare,
    .rank_noun = "MPI process",
    .slice_bytes = 0,
};

int mpi_comm_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                    char *err, size_t errlen)
{
    *out = NULL;
    int wme = 0, size = 0, me = 0;
    char why[256];
    /* After a stall the processes are no longer in step: a new communicator (made by all of
     * them together) would wait for ever for the ones that stalled. */
    if (launcher_broken(NULL, why, sizeof why))
        return cv_err(err, errlen, CV_EBACKEND, "the MPI job cannot go on: %.200s", why);
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    MPI_Comm base = cp->within_node ? mpi_backend_node(b) : MPI_COMM_WORLD;
    MPI_Comm_size(base, &size);
    MPI_Comm_rank(base, &me);
    int rc = CV_OK;
    if (cp->nranks != size)
        rc = cv_err(err, errlen, CV_EINVAL,
                    "--ranks %d: the mpi backend runs on the %d process%s %s", cp->nranks, size,
                    size == 1 ? "" : "es",
                    cp->within_node ? "of this node" : "the launcher started (-np)");
    else if (cp->async)
        rc = cv_err(err, errlen, CV_EINVAL,
                    "--overlap: not on the mpi backend (its calls are serialised; no "
                    "helper thread may run an all-reduce beside the rank)");
    if (rc != CV_OK) return rc;
    struct mpi_comm *mc = xcalloc(1, sizeof *mc);
    mc->pub.ops = &mpi_comm_ops;
    mc->pub.nranks = size;
    mc->pub.timeout_s = cp->timeout_s;
    mc->pub.tl = cp->tl;
    mc->pub.self = me;
    mc->me = me;
    mc->world_me = wme;
    MPI_Comm_dup(base, &mc->coll);
    MPI_Comm_dup(base, &mc->p2p);
    MPI_Comm_dup(base, &mc->ctl);
    mc->wd = MPI_COMM_NULL;
    if (launcher_thread_multiple()) { /* every process has the same thread level */
        MPI_Comm_dup(base, &mc->wd);
        MPI_Comm_set_errhandler(mc->wd, MPI_ERRORS_RETURN);
    }
    MPI_Comm_set_errhandler(mc->coll, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(mc->p2p, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(mc->ctl, MPI_ERRORS_RETURN);
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    mc->tag_ub = flag && ub ? *ub : 32767; /* the standard's minimum */
#ifdef CV_TEST_HOOKS
    /* CV_TEST_STALL=RANK:SECONDS[:TIMEOUT]: rank RANK sleeps SECONDS before its first run(),
     * and every wait's deadline is TIMEOUT s (so a test sees the stall named soon). RANK -1:
     * every rank sleeps inside its first native call, after the watchdog is told it entered
     * (mc_native): to the watchdogs, MPI itself is stuck. */
    const char *e = getenv("CV_TEST_STALL");
    double tmo = 0;
    mc->stall_rank = -1;
    if (e && sscanf(e, "%d:%lf:%lf", &mc->stall_rank, &mc->stall_s, &tmo) >= 2 && tmo > 0)
        mc->test_timeout_s = tmo;
    e = getenv("CV_TEST_PROC_STALL");
    mc->proc_stall_rank = -1;
    if (e &&
        sscanf(e, "%d:%d:%lf:%lf", &mc->proc_stall_rank, &mc->proc_stall_call,
               &mc->proc_stall_s, &tmo) == 4 &&
        tmo > 0) {
        mc->test_timeout_s = tmo;
        mc->proc_drain_s = 2 * mc->proc_stall_s + 5;
    }
#endif
    *out = &mc->pub;
    return CV_OK;
}
