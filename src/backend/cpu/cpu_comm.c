/* cpu_comm.c - the CPU backend's one runtime: the shared-memory communicator of its ranks
 * (W threads of this process), which training's collectives and point-to-point, and the
 * measurement and the display-scale run (backend/run.c, through run()) all go through.
 *
 * The executor. Every collective - all_reduce, all_gather, reduce_scatter for training, and
 * run() of any plan for a measurement - is a refined plan (core/plan.h, plan_refine) laid
 * out per rank (sched.c) and run by one executor, exec_sched() below: each rank runs the
 * transfers it owns (x.by == rank) in the plan's execution order, a group at a time,
 * through exec_xfers - the arithmetic the trace executor uses, so what is animated is what
 * runs, bit for bit. Before a group it waits only for the ranks it depends on: each rank
 * publishes its progress in a counter of its own per lane (struct cpu_flag: +1 when it
 * arrives with its input in place, +1 per transfer finished), and a waiter spins briefly on
 * it, then sleeps on it with a futex (barrier.c) with a short timeout, so waiting does not
 * hold a core that a rank still working needs (4 or 16 ranks on 2 cores is the usual case
 * here). No barrier between steps; the one barrier (barrier.c's) ends the collective, so a
 * rank does not hand its buffer back to the caller (who writes into it next) while another
 * rank may still read or write it.
 *
 * Lanes. Lane 0 is the ranks' own threads. Lane 1 is one helper thread per rank, which
 * runs iall_reduce and icollective requests in issue order; having its own counters,
 * barrier and buffer table, it can run a collective while lane 0 computes (DDP's
 * overlapped gradient all-reduce, ZeRO stage 3's prefetched all-gathers). Every rank enters a
 * lane's collectives in the same order, so each can keep its own copy of where every counter
 * stood when the current collective began.
 *
 * Buffers. Training's collectives work in the caller's buffer whenever the layout allows
 * (always, for all_reduce, all_gather and reduce_scatter), otherwise in a per-rank scratch
 * buffer. run() works in a buffer from buf_alloc: 64-byte aligned, buffers of 2 MiB and more
 * aligned to 2 MiB and asked for transparent huge pages, first touched by the rank's own
 * thread (its pages land on that thread's node); run.c keeps it between calls.
 *
 * Point-to-point. One mailbox per ordered pair (src, dst): a bounded FIFO of message
 * slots whose buffers are kept and reused. send copies into a slot (eager, as MPI and
 * NCCL do for messages that fit their buffers), so pipeline stages that send to each other
 * at the same moment cannot deadlock.
 *
 * Deadlines and abort. Every wait has a deadline (comm.timeout_s, read at each wait). A
 * rank that passes it aborts the communicator, naming the rank it waited for; an abort
 * (also comm->ops->abort: a cancel) sets the abort flag, aborts both lanes' barriers, wakes
 * every counter's sleepers and broadcasts every condition variable, so all ranks return
 * at once; a rank in the middle of a collective stops before its next group (within a
 * slice). */
#include "backend/cpu/cpu_comm.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "core/exec.h"
#include "core/plan.h"
#include "core/util.h"
#include "core/vec.h"
#include "sys/deadline.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/sched.h"

#define MBOX_SLOTS 64
/* The most a rank spins at the barrier or on a counter before sleeping on the futex, in
 * pause instructions (~19 ns each on the AMD EPYC this was tuned on); at the barrier the
 * budget adapts (barrier.c). Spinning pays only while the rank being waited for runs on
 * another core: with a core per rank it arrives within microseconds; with more ranks than
 * cores it is usually waiting for the very core the spinner holds. Measured on the 2-core
 * machine (64 KiB all-reduce, direct, time per op, best of 3 on a loaded machine): a fixed
 * 20000-pause spin 310 us at W = 2 and 74 us at W = 4; no spinning 16 us and 35 us. */
#ifndef CPU_SPIN_DEDICATED
#define CPU_SPIN_DEDICATED 4000
#endif
#ifndef CPU_SPIN_SHARED
#define CPU_SPIN_SHARED 0 /* W = 4 on 2 cores, 64 KiB: best 35 us/op, vs 75 us spinning */
#endif
/* A rank asleep on another rank's counter wakes at least this often to look at the clock
 * and the abort flag (an abort also moves the counter and wakes it at once). */
#define CPU_FLAG_POLL_S 0.05
/* What an abort adds to every counter (see cpu_abort). */
#define CPU_FLAG_ABORT_JUMP ((uint32_t)1 << 30)
/* Loops over a whole buffer (first touch) look for an abort every this many floats
 * (16 MiB: a few ms of memset). */
#define CPU_POLL_FLOATS ((size_t)4 << 20)

/* Rank r's progress counter on a lane. Padded to a cache line so ranks publishing do not
 * share one. */
struct cpu_flag {
    _Atomic uint32_t done;
    _Atomic int sleepers; /* ranks inside cpu_futex_wait on `done` */
    char pad[64 - sizeof(uint32_t) - sizeof(int)];
};

/* What one rank keeps of a lane for itself (padded: written on every collective). */
struct lane_rank {
    /* Where every rank's counter stood when this rank's current collective began. */
    uint32_t base[CV_MAX_RANKS];
    _Atomic uint32_t bar_in; /* barriers entered: names the ranks a timed-out one waits for */
    _Atomic int waiting;     /* e + 1 while asleep on rank e's counter, else 0 */
    int spin;                /* adaptive barrier spin budget (barrier.c) */
    char pad[128 - CV_MAX_RANKS * sizeof(uint32_t) - sizeof(uint32_t) - 2 * sizeof(int)];
};

struct lane {
    struct cpu_barrier bar;
    struct cpu_flag flag[CV_MAX_RANKS];
    struct lane_rank rk[CV_MAX_RANKS];
    float *bufs[CV_MAX_RANKS]; /* each rank's working buffer, published before arriving */
    float *scratch[CV_MAX_RANKS];
    size_t scratch_len[CV_MAX_RANKS];
};

/* A collective training calls, planned once for its (collective, op, count). */
struct plan_entry {
    enum coll coll;
    enum redop op;
    size_t count;
    struct plan p; /* plan_build's plan refined into slices (what runs) */
    struct cpu_sched sched;
    char what[48]; /* "all_reduce (ring)" */
};

/* What prepare() makes of a job: its schedule (j->prep). */
struct cpu_prep {
    struct plan own; /* the refinement of a plan that came unrefined */
    bool has_own;
    struct cpu_sched sched;
    char what[48];
};

struct mbox_msg {
    int tag;
    size_t count;
    float *data;
    size_t cap;
};

struct mbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct mbox_msg q[MBOX_SLOTS];
    size_t head, n;
    size_t mem; /* bytes of slot buffers */
};

struct comm_req {
    int rank, step;
    enum coll kind;    /* all-reduce (buf), all-gather or reduce-scatter (send, buf) */
    const float *send; /* all-gather, reduce-scatter: the input; buf is the output */
    float *buf;
    size_t count;
    enum redop op;
    char label[32];
    int status;
    bool done;
    struct comm_req *next;
};

struct helper {
    struct cpu_comm *cc;
    int rank;
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct comm_req *head, *tail;
    bool stop;
};

struct cpu_comm {
    struct comm pub;
    enum algo algo;
    pthread_mutex_t plan_mu;
    struct plan_entry **plans;
    size_t nplans, plans_cap;
    struct lane lanes[2];
    struct mbox *mbox; /* [src * nranks + dst] */
    struct helper helpers[CV_MAX_RANKS];
    bool async;
    struct comm_stats stats[CV_MAX_RANKS][2];
    atomic_int aborted;
    pthread_mutex_t err_mu;
    char err[256];
};

static struct cpu_comm *to_cc(struct comm *c)
{
    return (struct cpu_comm *)c;
}

static bool is_aborted(struct cpu_comm *cc)
{
    return atomic_load_explicit(&cc->aborted, memory_order_acquire) != 0;
}

static void broadcast_locked(pthread_mutex_t *mu, pthread_cond_t *cv)
{
    pthread_mutex_lock(mu);
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(mu);
}

static void cpu_abort(struct comm *c, const char *why)
{
    struct cpu_comm *cc = to_cc(c);
    pthread_mutex_lock(&cc->err_mu);
    if (!cc->err[0]) snprintf(cc->err, sizeof cc->err, "%s", why);
    pthread_mutex_unlock(&cc->err_mu);
    bool first = atomic_exchange_explicit(&cc->aborted, 1, memory_order_seq_cst) == 0;
    int w = c->nranks;
    for (int l = 0; l < 2; l++) {
        struct lane *ln = &cc->lanes[l];
        cpu_barrier_abort(&ln->bar);
        for (int e = 0; e < w; e++) {
            /* Move every counter (once: the jump must stay below 2^31 for the wrap-safe
             * compare), so a waiter between its last look at the abort flag and its futex
             * sleep finds the word changed and does not sleep through the wake below. The
             * counters mean nothing after an abort: every waiter looks at the flag first. */
            if (first) atomic_fetch_add(&ln->flag[e].done, CPU_FLAG_ABORT_JUMP);
            cpu_futex_wake_all(&ln->flag[e].done);
        }
    }
    for (int i = 0; i < w * w; i++)
        broadcast_locked(&cc->mbox[i].mu, &cc->mbox[i].cv);
    for (int r = 0; r < w; r++)
        broadcast_locked(&cc->helpers[r].mu, &cc->helpers[r].cv);
}

static const char *cpu_last_error(struct comm *c)
{
    return to_cc(c)->err;
}

static int fail_aborted(struct cpu_comm *cc)
{
    (void)cc;
    return CV_EBACKEND;
}

/* Abort with a formatted reason and return status. */
static int fail(struct cpu_comm *cc, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct cpu_comm *cc, int status, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cpu_abort(&cc->pub, msg);
    return status;
}

/* The rank that holds up a wait for rank e: e, or, while e itself waits for another
 * rank's counter, the rank at the end of that chain. */
static int culprit(struct lane *ln, int e, int nranks)
{
    for (int hops = 0; hops < nranks; hops++) {
        int w = atomic_load(&ln->rk[e].waiting);
        if (w <= 0) break;
        e = w - 1;
    }
    return e;
}

/* The lane's barrier for `rank`, ending collective `what` (NULL: the barrier op). A
 * deadline that passes aborts the communicator, naming the ranks that had not come (those
 * that have entered fewer barriers on this lane). */
static int lane_barrier(struct cpu_comm *cc, struct lane *ln, int rank, const char *what)
{
    if (is_aborted(cc)) return fail_aborted(cc);
    struct lane_rank *me = &ln->rk[rank];
    uint32_t mine = atomic_fetch_add(&me->bar_in, 1) + 1;
    double tmo = cc->pub.timeout_s;
    int rc = cpu_barrier_wait(&ln->bar, now_s() + tmo, NULL, &me->spin);
    if (rc == CV_OK) return CV_OK;
    if (is_aborted(cc)) return fail_aborted(cc);
    /* Late: not at the barrier yet, or the rank one that is not is waiting for. */
    int W = cc->pub.nranks;
    bool is_late[CV_MAX_RANKS] = {false};
    for (int e = 0; e < W; e++)
        if ((int32_t)(atomic_load(&ln->rk[e].bar_in) - mine) < 0)
            is_late[culprit(ln, e, W)] = true;
    char nums[128] = "";
    size_t n = 0;
    int nlate = 0;
    for (int e = 0; e < W; e++) {
        if (!is_late[e]) continue;
        if (n < sizeof nums)
            n += (size_t)snprintf(nums + n, sizeof nums - n, "%s%d", nlate ? ", " : "", e);
        nlate++;
    }
    char late[160];
    if (nlate == 0) /* they came just as the deadline passed */
        snprintf(late, sizeof late, "the other ranks");
    else
        snprintf(late, sizeof late, "rank%s %s", nlate > 1 ? "s" : "", nums);
    if (!what)
        return fail(cc, CV_ETIMEOUT,
                    "a barrier of %d CPU threads timed out: rank %d waited more than the "
                    "deadline of %.3g s for %s",
                    W, rank, tmo, late);
    return fail(cc, CV_ETIMEOUT,
                "%s on %d CPU threads timed out: rank %d waited more than the deadline of "
                "%.3g s for %s at the barrier that ends it",
                what, W, rank, tmo, late);
}

static bool flag_reached(struct cpu_flag *f, uint32_t want)
{
    return (int32_t)(atomic_load(&f->done) - want) >= 0; /* wrap-safe */
}

/* Wait until rank e's counter on the lane reaches `want`, or the communicator is aborted,
 * or the deadline passes (then abort it, naming e). */
static int wait_flag(struct cpu_comm *cc, struct lane *ln, int rank, int e, uint32_t want,
                     const char *what)
{
    struct cpu_flag *f = &ln->flag[e];
    if (flag_reached(f, want)) return CV_OK;
    for (int i = 0; i < ln->bar.spin_max; i++) {
        cpu_pause();
        if (flag_reached(f, want)) return CV_OK;
    }
    double tmo = cc->pub.timeout_s, deadline = now_s() + tmo;
    _Atomic int *waiting = &ln->rk[rank].waiting;
    atomic_store(waiting, e + 1);
    for (;;) {
        int rc = CV_OK;
        uint32_t v = atomic_load(&f->done);
        if (is_aborted(cc))
            rc = fail_aborted(cc);
        else if ((int32_t)(v - want) >= 0)
            rc = CV_OK;
        else if (now_s() >= deadline)
            rc = CV_ETIMEOUT;
        else
            rc = -1; /* sleep on */
        if (rc == CV_ETIMEOUT) {
            int who = culprit(ln, e, cc->pub.nranks);
            char through[48] = "";
            if (who != e)
                snprintf(through, sizeof through, " (through rank %d, which waits for it)", e);
            /* Still marked as waiting while the abort is made: a rank that times out on us
             * at the same moment and wins the race to abort follows the chain to `who`
             * instead of naming us. */
            rc = fail(cc, CV_ETIMEOUT,
                      "%s on %d CPU threads timed out: rank %d waited more than the deadline "
                      "of %.3g s for rank %d%s",
                      what, cc->pub.nranks, rank, tmo, who, through);
            atomic_store(waiting, 0);
            return rc;
        }
        if (rc != -1) {
            atomic_store(waiting, 0);
            return rc;
        }
        double now = now_s();
        /* Announce, then sleep only if the counter is still v: the publisher adds before
         * it reads `sleepers` (both sequentially consistent), so one of the two sees the
         * other. */
        atomic_fetch_add(&f->sleepers, 1);
        double until = now + CPU_FLAG_POLL_S < deadline ? now + CPU_FLAG_POLL_S : deadline;
        cpu_futex_wait(&f->done, v, until);
        atomic_fetch_sub(&f->sleepers, 1);
    }
}

static void publish(struct cpu_flag *f, uint32_t n)
{
    atomic_fetch_add(&f->done, n);
    if (atomic_load(&f->sleepers) > 0) cpu_futex_wake_all(&f->done);
}

static void cpu_abort(struct comm *c, const char *why);

/* The executor: rank's part of one collective on lane ln, in `work` (its input in place).
 * Every rank of the lane calls it for the same schedule. The job (NULL for training's
 * collectives) is asked before every slice whether it was cancelled: if so, the rank stops
 * everyone at once. */
static int exec_sched(struct cpu_comm *cc, struct lane *ln, int rank,
                      const struct cpu_sched *sc, float *work, const char *what,
                      const struct comm_job *job)
{
    if (is_aborted(cc)) return fail_aborted(cc);
    int W = cc->pub.nranks;
    struct lane_rank *me = &ln->rk[rank];
    struct cpu_flag *mine = &ln->flag[rank];
    ln->bufs[rank] = work;
    publish(mine, 1); /* arrived: the buffer is published and holds the input */
    for (size_t k = sc->item_first[rank]; k < sc->item_first[rank + 1]; k++) {
        const struct cpu_item *item = &sc->items[k];
        if (job && job->cancelled && job->cancelled(job->cancel_ctx)) {
            cpu_abort(&cc->pub, "cancelled");
            return CV_ECANCELLED;
        }
        if (is_aborted(cc)) return fail_aborted(cc);
        for (size_t d = item->need_first; d < item->need_first + item->nneed; d++) {
            const struct cpu_need *nd = &sc->needs[d];
            int rc = wait_flag(cc, ln, rank, nd->rank, me->base[nd->rank] + nd->need, what);
            if (rc != CV_OK) return rc;
        }
        /* A counter reached by an abort's jump is no reason to run. */
        if (item->nneed && is_aborted(cc)) return fail_aborted(cc);
        exec_xfers(sc->p, &sc->idx[item->first], item->n, ln->bufs);
        publish(mine, (uint32_t)item->n);
    }
    for (int e = 0; e < W; e++)
        me->base[e] += 1 + sc->nown[e];
    return lane_barrier(cc, ln, rank, what);
}

/* The plan for (coll, op, count), built, refined into the communicator's slices and laid
 * out once, shared by all ranks and both lanes; never changed after it is published. */
static int get_plan(struct cpu_comm *cc, enum coll c, enum redop op, size_t count,
                    struct plan_entry **out)
{
    int w = cc->pub.nranks;
    pthread_mutex_lock(&cc->plan_mu);
    for (size_t i = 0; i < cc->nplans; i++) {
        struct plan_entry *e = cc->plans[i];
        if (e->coll == c && e->op == op && e->count == count) {
            pthread_mutex_unlock(&cc->plan_mu);
            *out = e;
            return CV_OK;
        }
    }
    struct plan_entry *e = xcalloc(1, sizeof *e);
    char err[200];
    struct plan base;
    int rc = plan_build(&base, c, cc->algo, op, w, count, 0, err, sizeof err);
    if (rc == CV_OK) {
        rc = plan_refine(&base,
                         plan_auto_slices(&base, cc->pub.slice_bytes, plan_min_pieces(&base)),
                         1, &e->p, err, sizeof err);
        plan_free(&base); /* the refined plan has its own copies */
    }
    if (rc != CV_OK) {
        pthread_mutex_unlock(&cc->plan_mu);
        free(e);
        return fail(cc, rc, "%s plan: %s", coll_name(c), err);
    }
    e->coll = c;
    e->op = op;
    e->count = count;
    cpu_sched_build(&e->sched, &e->p);
    snprintf(e->what, sizeof e->what, "%s (%s)", coll_name(c), algo_name(cc->algo));
    *VEC_PUSH(cc->plans, cc->nplans, cc->plans_cap) = e;
    pthread_mutex_unlock(&cc->plan_mu);
    *out = e;
    return CV_OK;
}

static float *lane_scratch(struct lane *ln, int rank, size_t n)
{
    if (ln->scratch_len[rank] < n) {
        free(ln->scratch[rank]);
        ln->scratch[rank] = xmalloc(n * sizeof(float));
        ln->scratch_len[rank] = n;
    }
    return ln->scratch[rank];
}

static void count_coll(struct cpu_comm *cc, int li, int rank, const struct cpu_sched *sc)
{
    const struct plan *p = sc->p;
    struct comm_stats *st = &cc->stats[rank][li];
    st->bytes_sent += sc->sent[rank] * sizeof(float);
    st->bytes_recv += sc->recv[rank] * sizeof(float);
    st->coll_bytes[p->coll] += coll_bytes(p->coll, p->nranks, p->count, sizeof(float));
}

/* One collective on lane `li` for `rank`: in (send count elements) -> out (recv count
 * elements). cand/cand_len: a caller buffer that may serve as the working buffer. */
static int run_coll(struct cpu_comm *cc, int li, int rank, int step, enum coll c, enum redop op,
                    size_t count, const float *in, float *out, float *cand, size_t cand_len,
                    const char *label)
{
    if (is_aborted(cc)) return fail_aborted(cc);
    double t0 = now_s();
    struct plan_entry *pe = NULL;
    int rc = get_plan(cc, c, op, count, &pe);
    if (rc != CV_OK) return rc;
    const struct plan *p = &pe->p;
    int w = cc->pub.nranks;
    struct lane *ln = &cc->lanes[li];
    size_t in_off = coll_in_off(c, w, count, rank), out_off = coll_out_off(c, w, count, rank);
    size_t nin = coll_send_count(c, w, count, rank, 0);
    size_t nout = coll_recv_count(c, w, count, rank, 0);
    float *work =
        (cand && cand_len >= p->work_len) ? cand : lane_scratch(ln, rank, p->work_len);
    if (nin && work + in_off != in) memmove(work + in_off, in, nin * sizeof(float));
    rc = exec_sched(cc, ln, rank, &pe->sched, work, pe->what, NULL);
    if (rc != CV_OK) return rc;
    if (nout && work + out_off != out) memmove(out, work + out_off, nout * sizeof(float));
    count_coll(cc, li, rank, &pe->sched);
    if (cc->pub.tl) {
        struct tl_event *e = timeline_add(cc->pub.tl, step, rank, li, TL_COLLECTIVE,
                                          label ? label : coll_name(c), t0, now_s());
        e->bytes = pe->sched.sent[rank] * sizeof(float);
    }
    return CV_OK;
}

static int check_rank(struct cpu_comm *cc, int rank)
{
    if (rank < 0 || rank >= cc->pub.nranks)
        return fail(cc, CV_EINVAL, "rank %d out of range 0..%d", rank, cc->pub.nranks - 1);
    return CV_OK;
}

static int cpu_all_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                          const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return run_coll(cc, 0, rank, c->step[rank], COLL_ALL_REDUCE, op, count, buf, buf, buf,
                    count, label);
}

static int cpu_all_gather(struct comm *c, int rank, const float *send, float *recv,
                          size_t count, const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return run_coll(cc, 0, rank, c->step[rank], COLL_ALL_GATHER, OP_SUM, count, send, recv,
                    recv, (size_t)c->nranks * count, label);
}

static int cpu_reduce_scatter(struct comm *c, int rank, float *send, float *recv, size_t count,
                              enum redop op, const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return run_coll(cc, 0, rank, c->step[rank], COLL_REDUCE_SCATTER, op, count, send, recv,
                    send, (size_t)c->nranks * count, label);
}

static int cpu_comm_barrier(struct comm *c, int rank)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return lane_barrier(cc, &cc->lanes[0], rank, NULL);
}

static int check_peer(struct cpu_comm *cc, int rank, int peer)
{
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    if (peer < 0 || peer >= cc->pub.nranks || peer == rank)
        return fail(cc, CV_EINVAL, "rank %d: bad peer %d", rank, peer);
    return CV_OK;
}

static int cpu_send(struct comm *c, int rank, int peer, int tag, const float *buf, size_t count,
                    const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_peer(cc, rank, peer);
    if (rc != CV_OK) return rc;
    if (is_aborted(cc)) return fail_aborted(cc);
    struct mbox *mb = &cc->mbox[rank * c->nranks + peer];
    double t0 = now_s();
    bool waited = false;
    pthread_mutex_lock(&mb->mu);
    struct timespec dl = deadline_after(c->timeout_s);
    while (mb->n == MBOX_SLOTS && !is_aborted(cc)) {
        waited = true;
        if (pthread_cond_timedwait(&mb->cv, &mb->mu, &dl) == ETIMEDOUT && mb->n == MBOX_SLOTS) {
            pthread_mutex_unlock(&mb->mu);
            return fail(cc, CV_ETIMEOUT, "rank %d: mailbox to rank %d stayed full for %.1f s",
                        rank, peer, c->timeout_s);
        }
    }
    if (is_aborted(cc)) {
        pthread_mutex_unlock(&mb->mu);
        return fail_aborted(cc);
    }
    double t1 = now_s();
    struct mbox_msg *m = &mb->q[(mb->head + mb->n) % MBOX_SLOTS];
    if (m->cap < count) {
        mb->mem -= m->cap * sizeof(float);
        free(m->data);
        m->data = xmalloc((count ? count : 1) * sizeof(float));
        m->cap = count;
        mb->mem += m->cap * sizeof(float);
    }
    memcpy(m->data, buf, count * sizeof(float));
    m->tag = tag;
    m->count = count;
    mb->n++;
    pthread_cond_broadcast(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
    double t2 = now_s();
    struct comm_stats *st = &cc->stats[rank][0];
    st->bytes_sent += count * sizeof(float);
    st->p2p_bytes += count * sizeof(float);
    if (c->tl)
        timeline_add_p2p(c->tl, c->step[rank], rank, TL_SEND, label ? label : "send", peer, tag,
                         count * sizeof(float), waited ? "send: mailbox full" : NULL, t0, t1,
                         t2);
    return CV_OK;
}

static int cpu_recv(struct comm *c, int rank, int peer, int tag, float *buf, size_t count,
                    const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_peer(cc, rank, peer);
    if (rc != CV_OK) return rc;
    if (is_aborted(cc)) return fail_aborted(cc);
    struct mbox *mb = &cc->mbox[peer * c->nranks + rank];
    double t0 = now_s();
    bool waited = false;
    pthread_mutex_lock(&mb->mu);
    struct timespec dl = deadline_after(c->timeout_s);
    while (mb->n == 0 && !is_aborted(cc)) {
        waited = true;
        if (pthread_cond_timedwait(&mb->cv, &mb->mu, &dl) == ETIMEDOUT && mb->n == 0) {
            pthread_mutex_unlock(&mb->mu);
            return fail(cc, CV_ETIMEOUT,
                        "rank %d waited more than %.1f s for tag %d from rank %d", rank,
                        c->timeout_s, tag, peer);
        }
    }
    if (is_aborted(cc)) {
        pthread_mutex_unlock(&mb->mu);
        return fail_aborted(cc);
    }
    double t1 = now_s();
    struct mbox_msg *m = &mb->q[mb->head];
    if (m->tag != tag || m->count != count) {
        int mtag = m->tag;
        size_t mcount = m->count;
        pthread_mutex_unlock(&mb->mu);
        return fail(cc, CV_EBACKEND,
                    "rank %d expected tag %d (%zu elements) from rank %d, got tag %d (%zu)",
                    rank, tag, count, peer, mtag, mcount);
    }
    memcpy(buf, m->data, count * sizeof(float));
    mb->head = (mb->head + 1) % MBOX_SLOTS;
    /* An empty queue starts again at slot 0, so the few slots a pipeline keeps busy are
     * reused (their buffers already faulted in) instead of rotating through all of them. */
    if (--mb->n == 0) mb->head = 0;
    pthread_cond_broadcast(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
    double t2 = now_s();
    cc->stats[rank][0].bytes_recv += count * sizeof(float);
    if (c->tl)
        timeline_add_p2p(c->tl, c->step[rank], rank, TL_RECV, label ? label : "recv", peer, tag,
                         count * sizeof(float), waited ? "" : NULL, t0, t1, t2);
    return CV_OK;
}

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    struct cpu_comm *cc = h->cc;
    for (;;) {
        pthread_mutex_lock(&h->mu);
        /* Idle waiting for work is not a wait on a collective; it wakes each second to
         * notice shutdown even if a broadcast was missed. */
        while (!h->head && !h->stop) {
            struct timespec dl = deadline_after(1.0);
            pthread_cond_timedwait(&h->cv, &h->mu, &dl);
        }
        if (!h->head) {
            pthread_mutex_unlock(&h->mu);
            break;
        }
        struct comm_req *r = h->head;
        h->head = r->next;
        if (!h->head) h->tail = NULL;
        pthread_mutex_unlock(&h->mu);

        size_t w = (size_t)cc->pub.nranks;
        int rc = r->kind == COLL_ALL_GATHER
                     ? run_coll(cc, 1, h->rank, r->step, r->kind, OP_SUM, r->count, r->send,
                                r->buf, r->buf, w * r->count, r->label)
                 : r->kind == COLL_REDUCE_SCATTER
                     ? run_coll(cc, 1, h->rank, r->step, r->kind, r->op, r->count, r->send,
                                r->buf, (float *)r->send, w * r->count, r->label)
                     : run_coll(cc, 1, h->rank, r->step, COLL_ALL_REDUCE, r->op, r->count,
                                r->buf, r->buf, r->buf, r->count, r->label);

        pthread_mutex_lock(&h->mu);
        r->status = rc;
        r->done = true;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
    }
    return NULL;
}

/* Queue one request on the rank's helper (which runs them in issue order). */
static int cpu_istart(struct comm *c, int rank, enum coll kind, const float *send, float *buf,
                      size_t count, enum redop op, const char *label, struct comm_req **req)
{
    struct cpu_comm *cc = to_cc(c);
    *req = NULL;
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    if (!cc->async)
        return fail(cc, CV_EUNSUPPORTED, "%s: communicator made without helpers",
                    kind == COLL_ALL_REDUCE ? "iall_reduce" : "icollective");
    if (kind != COLL_ALL_REDUCE && kind != COLL_ALL_GATHER && kind != COLL_REDUCE_SCATTER)
        return fail(cc, CV_EINVAL, "icollective: %s has no asynchronous form", coll_name(kind));
    if (is_aborted(cc)) return fail_aborted(cc);
    struct comm_req *r = xcalloc(1, sizeof *r);
    r->rank = rank;
    r->step = c->step[rank];
    r->kind = kind;
    r->send = send;
    r->buf = buf;
    r->count = count;
    r->op = op;
    snprintf(r->label, sizeof r->label, "%s", label ? label : coll_name(kind));
    struct helper *h = &cc->helpers[rank];
    pthread_mutex_lock(&h->mu);
    if (h->tail)
        h->tail->next = r;
    else
        h->head = r;
    h->tail = r;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    *req = r;
    return CV_OK;
}

static int cpu_iall_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                           const char *label, struct comm_req **req)
{
    return cpu_istart(c, rank, COLL_ALL_REDUCE, buf, buf, count, op, label, req);
}

static int cpu_icollective(struct comm *c, int rank, enum coll kind, const float *send,
                           float *recv, size_t count, enum redop op, const char *label,
                           struct comm_req **req)
{
    if (kind == COLL_ALL_REDUCE) {
        *req = NULL;
        return fail(to_cc(c), CV_EINVAL, "icollective: all-reduce is iall_reduce");
    }
    return cpu_istart(c, rank, kind, send, recv, count, op, label, req);
}

static int cpu_wait(struct comm *c, int rank, struct comm_req *r)
{
    struct cpu_comm *cc = to_cc(c);
    if (!r) return CV_EINVAL;
    struct helper *h = &cc->helpers[r->rank];
    double t0 = now_s();
    bool waited = false;
    int rc = CV_OK;
    pthread_mutex_lock(&h->mu);
    struct timespec dl = deadline_after(c->timeout_s);
    while (!r->done) {
        waited = true;
        if (pthread_cond_timedwait(&h->cv, &h->mu, &dl) == ETIMEDOUT && !r->done) {
            pthread_mutex_unlock(&h->mu);
            rc = fail(cc, CV_ETIMEOUT, "rank %d: %s still running after %.1f s", rank, r->label,
                      c->timeout_s);
            /* The helper still owns the request; the abort makes it finish quickly. */
            pthread_mutex_lock(&h->mu);
            dl = deadline_after(c->timeout_s);
            while (!r->done)
                if (pthread_cond_timedwait(&h->cv, &h->mu, &dl) == ETIMEDOUT) break;
            bool done = r->done;
            pthread_mutex_unlock(&h->mu);
            if (done) free(r);
            return rc;
        }
    }
    pthread_mutex_unlock(&h->mu);
    double t1 = now_s();
    rc = r->status;
    if (waited && c->tl) {
        char lab[40];
        snprintf(lab, sizeof lab, "wait %.26s", r->label);
        timeline_add(c->tl, c->step[rank], rank, 0, TL_IDLE, lab, t0, t1);
    }
    free(r);
    return rc;
}

static void cpu_stats(struct comm *c, int rank, struct comm_stats *out)
{
    struct cpu_comm *cc = to_cc(c);
    memset(out, 0, sizeof *out);
    for (int l = 0; l < 2; l++) {
        const struct comm_stats *s = &cc->stats[rank][l];
        out->bytes_sent += s->bytes_sent;
        out->bytes_recv += s->bytes_recv;
        out->p2p_bytes += s->p2p_bytes;
        for (int k = 0; k < COLL_COUNT; k++)
            out->coll_bytes[k] += s->coll_bytes[k];
    }
}

static void cpu_reset_stats(struct comm *c, int rank)
{
    memset(to_cc(c)->stats[rank], 0, sizeof to_cc(c)->stats[rank]);
}

/* ---- the runtime side (backend/run.c) --------------------------------------------- */

static size_t cpu_mem_bytes(struct comm *c, int rank)
{
    struct cpu_comm *cc = to_cc(c);
    size_t total = 0;
    for (int l = 0; l < 2; l++)
        total += cc->lanes[l].scratch_len[rank] * sizeof(float);
    /* A mailbox's buffers hold messages for its receiver. */
    for (int src = 0; src < c->nranks; src++) {
        struct mbox *mb = &cc->mbox[src * c->nranks + rank];
        pthread_mutex_lock(&mb->mu);
        total += mb->mem;
        pthread_mutex_unlock(&mb->mu);
    }
    return total;
}

/* A zeroed buffer of count floats, touched first by this thread (the rank's), in pieces
 * with a look for an abort between them: the first touch of GiBs takes seconds. CV_ENOMEM
 * only when the memory cannot be had: after an abort the buffer is returned untouched (the
 * rank's next call fails as aborted, which is the news, not a lack of memory). */
static int cpu_buf_alloc(struct comm *c, int rank, size_t count, float **out)
{
    struct cpu_comm *cc = to_cc(c);
    *out = NULL;
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    size_t n = count ? count : 1;
    if (n > SIZE_MAX / sizeof(float))
        return fail(cc, CV_ENOMEM, "rank %d: a buffer of %zu floats overflows", rank, count);
    size_t bytes = n * sizeof(float);
    /* huge_alloc: 2 MiB pages for large buffers; first touch of 256 MiB measured 1.4-2.1 s
     * instead of 2.8-3.3 s on these VMs, and fewer TLB misses in the timed loop. */
    void *v = huge_alloc(bytes);
    if (!v) {
        char s[32];
        format_size(bytes, s, sizeof s);
        return fail(cc, CV_ENOMEM, "rank %d: allocating %s failed", rank, s);
    }
    float *p = v;
    for (size_t i = 0; i < n && !is_aborted(cc); i += CPU_POLL_FLOATS) {
        size_t k = n - i < CPU_POLL_FLOATS ? n - i : CPU_POLL_FLOATS;
        memset(p + i, 0, k * sizeof(float));
    }
    *out = p;
    return CV_OK;
}

static void cpu_buf_free(struct comm *c, int rank, float *buf)
{
    free(buf);
}

static int cpu_put(struct comm *c, int rank, float *buf, size_t off, const float *src,
                   size_t count)
{
    if (count) memcpy(buf + off, src, count * sizeof(float));
    return CV_OK;
}

static int cpu_get(struct comm *c, int rank, const float *buf, size_t off, float *dst,
                   size_t count)
{
    if (count) memcpy(dst, buf + off, count * sizeof(float));
    return CV_OK;
}

/* The schedule of the job's refined plan; a plan that comes unrefined (a trace's) runs as
 * whole chunks. */
static int cpu_prepare(struct comm *c, struct comm_job *j)
{
    struct cpu_comm *cc = to_cc(c);
    j->prep = NULL;
    if (!j->plan)
        return fail(cc, CV_EUNSUPPORTED,
                    "the CPU backend has no collective library of its own");
    if (j->plan->nranks != c->nranks)
        return fail(cc, CV_EINVAL, "a plan for %d ranks on a communicator of %d",
                    j->plan->nranks, c->nranks);
    struct cpu_prep *g = xcalloc(1, sizeof *g);
    const struct plan *p = j->plan;
    if (!p->order) {
        char err[200];
        int rc = plan_refine(p, 1, 1, &g->own, err, sizeof err);
        if (rc != CV_OK) {
            free(g);
            return fail(cc, rc, "%s plan: %s", coll_name(p->coll), err);
        }
        g->has_own = true;
        p = &g->own;
    }
    cpu_sched_build(&g->sched, p);
    snprintf(g->what, sizeof g->what, "%s (%s)", coll_name(p->coll), algo_name(p->algo));
    j->prep = g;
    return CV_OK;
}

static void cpu_unprepare(struct comm *c, struct comm_job *j)
{
    struct cpu_prep *g = j->prep;
    if (!g) return;
    cpu_sched_free(&g->sched);
    if (g->has_own) plan_free(&g->own);
    free(g);
    j->prep = NULL;
}

/* In-place iterations keep reducing the previous result; prod of powers of two can
 * underflow into denormals, which cost ~100x per element on x86. Flush-to-zero and
 * denormals-are-zero, for run() only (the measurement: the check refills the inputs
 * first), keep the timing honest; the caller's own setting is given back after. */
static unsigned ftz_enter(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned old = _mm_getcsr();
    if ((old & 0x8040) != 0x8040) _mm_setcsr(old | 0x8040);
    return old;
#else
    return 0;
#endif
}

static void ftz_leave(unsigned old)
{
#if defined(__x86_64__) || defined(__i386__)
    if ((old & 0x8040) != 0x8040) _mm_setcsr(old);
#else
    (void)old;
#endif
}

static int cpu_run(struct comm *c, int rank, const struct comm_job *j, float *work)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    const struct cpu_prep *g = j->prep;
    if (!g) return fail(cc, CV_EINVAL, "run: the job was not prepared");
    unsigned csr = ftz_enter();
    rc = exec_sched(cc, &cc->lanes[0], rank, &g->sched, work, g->what, j);
    ftz_leave(csr);
    if (rc == CV_OK) count_coll(cc, 0, rank, &g->sched);
    return rc;
}

/* Out of place: the plan reads its input from the working buffer, so the rank copies its
 * send buffer there first (what MPI's ring all-reduce does with two buffers), before it
 * publishes its arrival: no rank reads it sooner. The copy is part of the time. */
static int cpu_run_oop(struct comm *c, int rank, const struct comm_job *j, const float *send,
                       float *work)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    size_t in = coll_in_off(j->coll, c->nranks, j->count, rank);
    size_t ns = coll_send_count(j->coll, c->nranks, j->count, rank, j->root);
    if (ns) memcpy(work + in, send, ns * sizeof(float));
    return cpu_run(c, rank, j, work);
}

static void cpu_destroy(struct comm *c)
{
    if (!c) return;
    struct cpu_comm *cc = to_cc(c);
    int w = c->nranks;
    for (int r = 0; r < w; r++) {
        struct helper *h = &cc->helpers[r];
        if (!h->started) continue;
        pthread_mutex_lock(&h->mu);
        h->stop = true;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->th, NULL);
        /* Requests never waited for (a rank that failed) are freed here. */
        struct comm_req *q = h->head;
        while (q) {
            struct comm_req *next = q->next;
            free(q);
            q = next;
        }
    }
    for (int r = 0; r < w; r++) {
        pthread_mutex_destroy(&cc->helpers[r].mu);
        pthread_cond_destroy(&cc->helpers[r].cv);
    }
    for (int i = 0; i < w * w; i++) {
        for (int k = 0; k < MBOX_SLOTS; k++)
            free(cc->mbox[i].q[k].data);
        pthread_mutex_destroy(&cc->mbox[i].mu);
        pthread_cond_destroy(&cc->mbox[i].cv);
    }
    free(cc->mbox);
    for (int l = 0; l < 2; l++)
        for (int r = 0; r < w; r++)
            free(cc->lanes[l].scratch[r]);
    for (size_t i = 0; i < cc->nplans; i++) {
        cpu_sched_free(&cc->plans[i]->sched);
        plan_free(&cc->plans[i]->p);
        free(cc->plans[i]);
    }
    free(cc->plans);
    pthread_mutex_destroy(&cc->plan_mu);
    pthread_mutex_destroy(&cc->err_mu);
    free(cc);
}

static const struct comm_ops cpu_comm_ops = {
    .name = "cpu",
    .all_reduce = cpu_all_reduce,
    .all_gather = cpu_all_gather,
    .reduce_scatter = cpu_reduce_scatter,
    .send = cpu_send,
    .recv = cpu_recv,
    .barrier = cpu_comm_barrier,
    .iall_reduce = cpu_iall_reduce,
    .icollective = cpu_icollective,
    .wait = cpu_wait,
    .stats = cpu_stats,
    .reset_stats = cpu_reset_stats,
    .mem_bytes = cpu_mem_bytes,
    .abort = cpu_abort,
    .last_error = cpu_last_error,
    .destroy = cpu_destroy,
    .buf_alloc = cpu_buf_alloc,
    .buf_free = cpu_buf_free,
    .put = cpu_put,
    .get = cpu_get,
    .run = cpu_run,
    .run_oop = cpu_run_oop,
    .sync = NULL,
    .prepare = cpu_prepare,
    .unprepare = cpu_unprepare,
    .rank_noun = "CPU thread",
    .slice_bytes = CPU_SLICE_BYTES,
};

/* The cores this process may run on (taskset/cgroup cpusets count, offline ones not). */
int cpu_count_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int comm_cpu_create(struct comm **out, int nranks, enum algo algo, bool async, double timeout_s,
                    struct timeline *tl, char *err, size_t errlen)
{
    *out = NULL;
    if (nranks < 1 || nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the CPU backend runs 1..%d", nranks,
                      CV_MAX_RANKS);
    if (!(timeout_s > 0))
        return cv_err(err, errlen, CV_EINVAL, "timeout %g s must be positive", timeout_s);
    if ((int)algo < 0 || algo >= ALGO_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "algorithm %d unknown", (int)algo);
    struct cpu_comm *cc = xcalloc(1, sizeof *cc);
    cc->pub.ops = &cpu_comm_ops;
    cc->pub.nranks = nranks;
    cc->pub.self = -1;
    cc->pub.timeout_s = timeout_s;
    cc->pub.tl = tl;
    cc->pub.priv = cc;
    cc->algo = algo;
    cc->async = async;
    atomic_init(&cc->aborted, 0);
    pthread_mutex_init(&cc->plan_mu, NULL);
    pthread_mutex_init(&cc->err_mu, NULL);
    /* With a core per rank a slice's wait costs a spin of microseconds and slicing lets the
     * ranks pipeline. With more ranks than cores a waiting rank sleeps and another is
     * switched in: every slice's wait becomes a futex sleep and wake-up (perf stat, 64 MiB
     * ring all-reduce, 4 ranks on 2 cores, 25 runs: 63,720 context switches sliced at 64
     * KiB, 2,507 in whole chunks), and the pipelining needs cores there are none of; so
     * there the default is whole chunks, as before the runtime was merged (9b21375). */
    bool dedicated = nranks <= cpu_count_cores();
    cc->pub.slice_bytes = dedicated ? CPU_SLICE_BYTES : 0;
    int spin_max = dedicated ? CPU_SPIN_DEDICATED : CPU_SPIN_SHARED;
    for (int l = 0; l < 2; l++) {
        cpu_barrier_init(&cc->lanes[l].bar, nranks, spin_max);
        for (int r = 0; r < nranks; r++)
            cc->lanes[l].rk[r].spin = spin_max / 2;
    }
    cc->mbox = xcalloc((size_t)nranks * nranks, sizeof *cc->mbox);
    for (int i = 0; i < nranks * nranks; i++) {
        pthread_mutex_init(&cc->mbox[i].mu, NULL);
        deadline_cond_init(&cc->mbox[i].cv);
    }
    for (int r = 0; r < nranks; r++) {
        struct helper *h = &cc->helpers[r];
        h->cc = cc;
        h->rank = r;
        pthread_mutex_init(&h->mu, NULL);
        deadline_cond_init(&h->cv);
    }
    if (async) {
        for (int r = 0; r < nranks; r++) {
            struct helper *h = &cc->helpers[r];
            if (pthread_create(&h->th, NULL, helper_main, h) != 0) {
                cpu_destroy(&cc->pub);
                return cv_err(err, errlen, CV_EBACKEND, "cannot start communication helper %d",
                              r);
            }
            h->started = true;
        }
    }
    *out = &cc->pub;
    return CV_OK;
}
