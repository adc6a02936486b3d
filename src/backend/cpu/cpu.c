/* cpu.c - the CPU backend: W persistent rank threads on shared memory, executing the
 * very plan the UI animates (core/plan.h), refined into slices (core/refine.c), each rank
 * waiting only for the slices it depends on - no barrier between steps.
 *
 * Threads. The rank threads are created once per world size and reused for every
 * measurement; they are recreated only when nranks changes, never inside a timed loop.
 * The caller (the worker thread) is the coordinator: it posts one command at a time
 * (allocate, fill, run, count, ...) and waits for every rank to finish it. Each rank
 * allocates its own working buffer (64-byte aligned) and touches it first, so on a
 * multi-socket machine its pages land on that thread's node.
 *
 * Execution. The plan is refined into slices (bench_params.slices; by default slices of
 * about CPU_SLICE_BYTES) and every rank r runs the transfers it owns (x.by == r) in the
 * plan's execution order, a group at a time (one slice's reductions into one range are
 * fused, as in exec_step_rank), through exec_xfers - the same arithmetic the trace
 * executor uses, so what is animated is what runs. Before a group it waits until every
 * rank it depends on has finished the transfers listed in the plan's dependencies; each
 * rank publishes how many of its transfers it has finished in a counter of its own
 * (struct cpu_flag), and a waiter spins briefly on it, then sleeps on it with a futex
 * (barrier.c) with a short timeout, so waiting does not hold a core that a rank still
 * working needs (4 or 16 ranks on 2 cores is the usual case here). The one barrier is
 * between iterations: an in-place iteration overwrites what the previous one's slowest
 * rank may still be reading.
 *
 * Cancel. A cancel lands within a slice: each rank reads the flag before every group; the
 * first rank that sees it stops the run for everyone (marks the barrier cancelled and
 * wakes every waiter), the coordinator does the same when it sees the flag while it waits,
 * and the per-rank loops outside a run (first touch of a new buffer, fill, check) poll it
 * every CPU_POLL_FLOATS elements.
 *
 * Deadlines. A rank waiting for a slice or at the barrier past params->timeout_s aborts the
 * run (every rank then returns CV_ETIMEOUT). The coordinator waits for each command with
 * its own progress deadline (no slice finished, no barrier passed and no rank done for
 * timeout_s + a grace), after which it aborts the run; if a rank still does not come back,
 * the pool is abandoned (threads detached, memory leaked) rather than letting the caller
 * hang. */
#include "cpu.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "../../core/coll.h"
#include "../../core/exec.h"
#include "../../core/init.h"
#include "../../core/plan.h"
#include "../../core/util.h"

#define CPU_DEFAULT_TIMEOUT_S 30.0
/* The most a rank spins at a barrier before sleeping on the futex, in pause instructions
 * (~19 ns each on the AMD EPYC this was tuned on); within it the budget adapts (barrier.c).
 * Spinning pays only while the rank being waited for runs on another core: with a core
 * per rank it arrives within microseconds; with more ranks than cores it is usually
 * waiting for the very core the spinner holds. Measured on the 2-core machine (64 KiB
 * all-reduce, direct, time per op, best of 3 on a loaded machine): a fixed 20000-pause
 * spin 310 us at W = 2 and 74 us at W = 4; no spinning 16 us and 35 us. */
#ifndef CPU_SPIN_DEDICATED
#define CPU_SPIN_DEDICATED 4000
#endif
#ifndef CPU_SPIN_SHARED
#define CPU_SPIN_SHARED 0 /* W = 4 on 2 cores, 64 KiB: best 35 us/op, vs 75 us spinning */
#endif

/* The default slice: small enough that a slice's reductions (W sources) and its copies run
 * in L2, large enough that waiting for and publishing it costs little next to moving it.
 * Measured on the 2-core Xeon VM (2 MiB L2 per core, machine shared with other jobs), owner
 * all-reduce 64 MiB on 4 ranks, busbw GB/s over three rounds: 1 MiB slices 1.6-4.6,
 * 256 KiB 2.0-7.0, 64 KiB 2.7-7.3, 16 KiB 2.3-2.9: the noise of the neighbours' load is
 * larger than the differences between 64 and 256 KiB. */
#ifndef CPU_SLICE_BYTES
#define CPU_SLICE_BYTES ((size_t)64 << 10)
#endif
/* The most transfers an auto-sliced plan may have (planning and dependency lists grow
 * with it; slices stay at least this many times fewer than PLAN_MAX_XFERS allows). */
#define CPU_AUTO_MAX_XFERS ((size_t)1 << 17)
/* A rank asleep on another rank's counter wakes at least this often to look for an abort
 * it may have missed (the abort also wakes it; this only closes the race). */
#define CPU_FLAG_POLL_S 0.05

#define CPU_AUTO_BUCKETS 64
#define CPU_HUGE ((size_t)2 << 20) /* transparent huge page size on x86-64 */

/* Extra time the coordinator allows beyond the ranks' own deadline before it acts. */
#define CPU_COORD_GRACE_S 2.0
/* How often the coordinator looks at the cancel flag while a run goes on (its wait on the
 * ranks wakes this often; otherwise every 0.25 s, which only serves the deadline). */
#define CPU_COORD_POLL_S 0.01
/* The per-rank loops over a buffer read the cancel flag every this many floats (16 MiB:
 * a few ms of memset or fill). */
#define CPU_POLL_FLOATS ((size_t)4 << 20)

enum cpu_cmd_kind {
    CPU_CMD_ALLOC, /* make the working buffer hold `len` floats (realloc by the owner) */
    CPU_CMD_FILL,  /* send region = pattern_value(op, r, i), the rest zero */
    CPU_CMD_LOAD,  /* send region = send[r], the rest zero */
    CPU_CMD_RUN,   /* warmup + iters executions of the plan; timed if iters > 0 */
    CPU_CMD_COUNT, /* wrong[r] = receive elements != pattern_expected() */
    CPU_CMD_STORE, /* recv[r] = receive region */
    CPU_CMD_EXIT,
};

/* A refined plan, laid out for the rank threads: rank r's groups are
 * items[item_first[r] .. item_first[r+1]); a group runs transfers idx[first .. first+n)
 * after waiting for needs[need_first .. +nneed): rank `rank` has finished `need` of its
 * transfers in this iteration. */
struct cpu_need {
    int rank;
    uint32_t need;
};

struct cpu_item {
    size_t first, n, need_first, nneed;
};

struct cpu_sched {
    const struct plan *p;
    size_t *idx;
    struct cpu_item *items;
    size_t item_first[CV_MAX_RANKS + 1];
    struct cpu_need *needs;
    uint32_t nown[CV_MAX_RANKS]; /* transfers per rank per iteration */
};

/* Rank r's progress counter: transfers finished in this command (all iterations). Padded
 * to a cache line so ranks publishing do not share one. */
struct cpu_flag {
    _Atomic uint32_t done;
    _Atomic int sleepers; /* ranks inside cpu_futex_wait on `done` */
    char pad[64 - sizeof(uint32_t) - sizeof(int)];
};

struct cpu_cmd {
    enum cpu_cmd_kind kind;
    const struct plan *plan;
    const struct cpu_sched *sched; /* CPU_CMD_RUN */
    size_t len;
    int warmup, iters;
    double timeout_s;
    volatile int *cancel;
    float *const *send;
    float **recv;
    int stall_rank; /* test seam: this rank sleeps stall_s before running */
    double stall_s;
};

struct cpu_pool;

struct cpu_rank {
    struct cpu_pool *pool;
    int rank;
    pthread_t th;
    int spin; /* this thread's adaptive barrier spin budget (barrier.c) */
};

struct cpu_pool {
    int nranks;
    struct cpu_rank ranks[CV_MAX_RANKS];
    float *buf[CV_MAX_RANKS]; /* each written only by its owner thread between commands */
    size_t cap[CV_MAX_RANKS]; /* floats allocated */
    struct cpu_barrier bar;
    struct cpu_flag flag[CV_MAX_RANKS];

    pthread_mutex_t mu;
    pthread_cond_t cmd_cv;  /* rank threads wait here for the next command */
    pthread_cond_t done_cv; /* the coordinator waits here for ranks to finish */
    uint64_t seq;           /* command sequence number */
    struct cpu_cmd cmd;
    int ndone;
    int rc[CV_MAX_RANKS];
    long wrong[CV_MAX_RANKS];
    double elapsed; /* rank 0's clock around the timed iterations */
};

struct cpu_state {
    struct cpu_pool *pool;
    int ncpus;
    int stall_rank; /* cpu_backend_test_stall() */
    double stall_s;
    unsigned abandoned; /* pools given up on (cpu_pool_abandon) */
    /* algo_auto's winners by collective, rank count and log2(bytes); -1 = not tried */
    signed char auto_pick[COLL_COUNT][CV_MAX_RANKS + 1][CPU_AUTO_BUCKETS];
};

/* ---- rank side ------------------------------------------------------------------- */

static void cpu_set_ftz(void)
{
#if defined(__x86_64__) || defined(__i386__)
    /* In-place iterations keep reducing the previous result; prod of powers of two can
     * underflow into denormals, which cost ~100x per element on x86. Flush-to-zero and
     * denormals-are-zero keep the timing honest (the check re-fills the inputs first). */
    _mm_setcsr(_mm_getcsr() | 0x8040);
#endif
}

static bool cpu_cancelled(volatile int *cancel)
{
    return cancel && *cancel;
}

static int cpu_rank_alloc(struct cpu_pool *pl, int r, size_t len, volatile int *cancel)
{
    /* Keep a buffer that is big enough unless it is more than 4x too big (a sweep that
     * went down in size should not hold on to GiBs). */
    if (pl->buf[r] && pl->cap[r] >= len && pl->cap[r] / 4 <= len) return CV_OK;
    free(pl->buf[r]);
    pl->buf[r] = NULL;
    pl->cap[r] = 0;
    void *p = NULL;
    size_t n = len ? len : 1, bytes = n * sizeof(float);
    /* 64-byte (cache line) alignment; buffers of 2 MiB and more are aligned to 2 MiB and
     * asked for transparent huge pages before the first touch: 512x fewer page faults
     * (first touch of 256 MiB measured 1.4-2.1 s instead of 2.8-3.3 s on these VMs) and
     * fewer TLB misses while the timed loop streams through them. */
    size_t align = bytes >= CPU_HUGE ? CPU_HUGE : 64;
    if (posix_memalign(&p, align, bytes) != 0) return CV_ENOMEM;
#ifdef MADV_HUGEPAGE
    if (align == CPU_HUGE)
        madvise(p, bytes - bytes % CPU_HUGE, MADV_HUGEPAGE); /* a hint: failure is fine */
#endif
    /* First touch, by the owner: seconds for GiBs of fresh pages, so in pieces with the
     * cancel flag read between them. A buffer touched only in part is given back. */
    for (size_t i = 0; i < n; i += CPU_POLL_FLOATS) {
        if (cpu_cancelled(cancel)) {
            free(p);
            return CV_ECANCELLED;
        }
        size_t k = n - i < CPU_POLL_FLOATS ? n - i : CPU_POLL_FLOATS;
        memset((float *)p + i, 0, k * sizeof(float));
    }
    pl->buf[r] = p;
    pl->cap[r] = n;
    return CV_OK;
}

/* The buffer is left part-filled when cancelled; every run fills it again first. */
static int cpu_rank_fill(struct cpu_pool *pl, int r, const struct plan *p, float *const *send,
                         volatile int *cancel)
{
    float *b = pl->buf[r];
    size_t in = coll_in_off(p->coll, p->nranks, p->count, r);
    size_t n = coll_send_count(p->coll, p->nranks, p->count, r, p->root);
    memset(b, 0, in * sizeof(float));
    if (send) {
        if (n) memcpy(b + in, send[r], n * sizeof(float));
    } else {
        for (size_t i0 = 0; i0 < n; i0 += CPU_POLL_FLOATS) {
            if (cpu_cancelled(cancel)) return CV_ECANCELLED;
            size_t i1 = n - i0 < CPU_POLL_FLOATS ? n : i0 + CPU_POLL_FLOATS;
            for (size_t i = i0; i < i1; i++)
                b[in + i] = pattern_value(p->op, r, i);
        }
    }
    memset(b + in + n, 0, (p->work_len - in - n) * sizeof(float));
    return CV_OK;
}

/* Stop the run for every rank: the barrier answers `why` from now on, and every rank
 * asleep on a counter is woken to see it. */
static void cpu_pool_stop(struct cpu_pool *pl, int why)
{
    if (why == CV_ECANCELLED)
        cpu_barrier_cancel(&pl->bar);
    else
        cpu_barrier_abort(&pl->bar);
    for (int e = 0; e < pl->nranks; e++)
        cpu_futex_wake_all(&pl->flag[e].done);
}

static bool cpu_flag_reached(struct cpu_flag *f, uint32_t want)
{
    return (int32_t)(atomic_load(&f->done) - want) >= 0; /* wrap-safe */
}

/* Wait until rank e has finished `want` transfers, or the run is stopped, or `tmo`
 * seconds pass (then stop it: CV_ETIMEOUT). */
static int cpu_wait_flag(struct cpu_pool *pl, int e, uint32_t want, double tmo)
{
    struct cpu_flag *f = &pl->flag[e];
    if (cpu_flag_reached(f, want)) return CV_OK;
    for (int i = 0; i < pl->bar.spin_max; i++) {
        cpu_pause();
        if (cpu_flag_reached(f, want)) return CV_OK;
    }
    double deadline = now_s() + tmo;
    for (;;) {
        int why = cpu_barrier_aborted(&pl->bar);
        if (why != CV_OK) return why;
        uint32_t v = atomic_load(&f->done);
        if ((int32_t)(v - want) >= 0) return CV_OK;
        double now = now_s();
        if (now >= deadline) {
            cpu_pool_stop(pl, CV_ETIMEOUT);
            return cpu_barrier_aborted(&pl->bar);
        }
        /* Announce, then sleep only if the counter is still v: the publisher adds before
         * it reads `sleepers` (both sequentially consistent), so one of the two sees the
         * other. */
        atomic_fetch_add(&f->sleepers, 1);
        double until = now + CPU_FLAG_POLL_S < deadline ? now + CPU_FLAG_POLL_S : deadline;
        cpu_futex_wait(&f->done, v, until);
        atomic_fetch_sub(&f->sleepers, 1);
    }
}

/* One execution of the plan by rank r (iteration `it` of this command), then the barrier
 * between iterations. */
static int cpu_rank_run_plan(struct cpu_pool *pl, int r, const struct cpu_cmd *c, uint32_t it,
                             int *spin)
{
    const struct cpu_sched *sc = c->sched;
    struct cpu_flag *mine = &pl->flag[r];
    int rc;
    for (size_t k = sc->item_first[r]; k < sc->item_first[r + 1]; k++) {
        const struct cpu_item *item = &sc->items[k];
        if (cpu_cancelled(c->cancel)) {
            cpu_pool_stop(pl, CV_ECANCELLED);
            return cpu_barrier_aborted(&pl->bar);
        }
        if ((rc = cpu_barrier_aborted(&pl->bar)) != CV_OK) return rc;
        for (size_t d = item->need_first; d < item->need_first + item->nneed; d++) {
            const struct cpu_need *nd = &sc->needs[d];
            rc = cpu_wait_flag(pl, nd->rank, it * sc->nown[nd->rank] + nd->need, c->timeout_s);
            if (rc != CV_OK) return rc;
        }
        exec_xfers(sc->p, &sc->idx[item->first], item->n, pl->buf);
        atomic_fetch_add(&mine->done, (uint32_t)item->n);
        if (atomic_load(&mine->sleepers) > 0) cpu_futex_wake_all(&mine->done);
    }
    return cpu_barrier_wait(&pl->bar, now_s() + c->timeout_s, c->cancel, spin);
}

static int cpu_rank_run(struct cpu_pool *pl, int r, const struct cpu_cmd *c)
{
    double tmo = c->timeout_s;
    int *spin = &pl->ranks[r].spin;
    int rc;
    if (r == c->stall_rank && c->stall_s > 0) {
        /* A late rank, in slices: it still comes back once the run is aborted, the way a
         * rank in a long wait comes back when it is woken. */
        double until = now_s() + c->stall_s;
        while (now_s() < until && cpu_barrier_aborted(&pl->bar) == CV_OK) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    uint32_t it = 0;
    for (int k = 0; k < c->warmup; k++)
        if ((rc = cpu_rank_run_plan(pl, r, c, it++, spin)) != CV_OK) return rc;
    if (c->iters <= 0) return CV_OK;
    /* The lecture's method: everyone arrives, start the clock, run, everyone arrives (the
     * barrier that ends each iteration), stop the clock. */
    if ((rc = cpu_barrier_wait(&pl->bar, now_s() + tmo, c->cancel, spin)) != CV_OK) return rc;
    double t0 = now_s();
    for (int k = 0; k < c->iters; k++)
        if ((rc = cpu_rank_run_plan(pl, r, c, it++, spin)) != CV_OK) return rc;
    if (r == 0) pl->elapsed = now_s() - t0;
    return CV_OK;
}

static int cpu_rank_count(struct cpu_pool *pl, int r, const struct plan *p,
                          volatile int *cancel, long *wrong_out)
{
    const float *b = pl->buf[r] + coll_out_off(p->coll, p->nranks, p->count, r);
    size_t n = coll_recv_count(p->coll, p->nranks, p->count, r, p->root);
    long wrong = 0;
    for (size_t j0 = 0; j0 < n; j0 += CPU_POLL_FLOATS) {
        if (cpu_cancelled(cancel)) return CV_ECANCELLED;
        size_t j1 = n - j0 < CPU_POLL_FLOATS ? n : j0 + CPU_POLL_FLOATS;
        for (size_t j = j0; j < j1; j++)
            if (b[j] != pattern_expected(p->coll, p->op, p->nranks, p->count, p->root, r, j))
                wrong++;
    }
    *wrong_out = wrong;
    return CV_OK;
}

static void *cpu_rank_main(void *arg)
{
    struct cpu_rank *me = arg;
    struct cpu_pool *pl = me->pool;
    int r = me->rank;
    uint64_t seen = 0;
    char name[16];
    snprintf(name, sizeof name, "cv-rank-%d", r);
    pthread_setname_np(pthread_self(), name);
    cpu_set_ftz();
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        while (pl->seq == seen)
            pthread_cond_wait(&pl->cmd_cv, &pl->mu);
        seen = pl->seq;
        struct cpu_cmd c = pl->cmd;
        pthread_mutex_unlock(&pl->mu);

        int rc = CV_OK;
        long wrong = 0;
        switch (c.kind) {
        case CPU_CMD_ALLOC:
            rc = cpu_rank_alloc(pl, r, c.len, c.cancel);
            break;
        case CPU_CMD_FILL:
            rc = cpu_rank_fill(pl, r, c.plan, NULL, c.cancel);
            break;
        case CPU_CMD_LOAD:
            rc = cpu_rank_fill(pl, r, c.plan, c.send, NULL);
            break;
        case CPU_CMD_RUN:
            rc = cpu_rank_run(pl, r, &c);
            break;
        case CPU_CMD_COUNT:
            rc = cpu_rank_count(pl, r, c.plan, c.cancel, &wrong);
            break;
        case CPU_CMD_STORE: {
            const struct plan *p = c.plan;
            size_t n = coll_recv_count(p->coll, p->nranks, p->count, r, p->root);
            if (n)
                memcpy(c.recv[r], pl->buf[r] + coll_out_off(p->coll, p->nranks, p->count, r),
                       n * sizeof(float));
            break;
        }
        case CPU_CMD_EXIT:
            free(pl->buf[r]);
            pl->buf[r] = NULL;
            pl->cap[r] = 0;
            break;
        }

        pthread_mutex_lock(&pl->mu);
        pl->rc[r] = rc;
        pl->wrong[r] = wrong;
        if (++pl->ndone == pl->nranks) pthread_cond_signal(&pl->done_cv);
        pthread_mutex_unlock(&pl->mu);
        if (c.kind == CPU_CMD_EXIT) return NULL;
    }
}

/* ---- coordinator side ------------------------------------------------------------ */

static void cpu_abs_time(struct timespec *ts, double s)
{
    /* The condvars run on CLOCK_MONOTONIC, like now_s(). */
    ts->tv_sec = (time_t)s;
    ts->tv_nsec = (long)((s - (double)ts->tv_sec) * 1e9);
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

static void cpu_pool_abandon(struct cpu_state *st)
{
    /* A rank that neither finished nor answered the abort: we cannot free memory it may
     * still touch (the pool, its buffers, measure()'s plan), so all of it is left to the
     * stuck thread and the next call builds a fresh pool. */
    struct cpu_pool *pl = st->pool;
    for (int r = 0; r < pl->nranks; r++)
        pthread_detach(pl->ranks[r].th);
    st->pool = NULL;
    st->abandoned++;
}

/* How long the coordinator lets a command go without progress before it acts. A run is a
 * collective: the ranks abort it themselves after timeout_s waiting. The other
 * commands are each rank's own loops over its buffer, which cannot deadlock, only be
 * slow; they get the default plus a worst case of 10 MB/s (a swapping machine). */
static double cpu_cmd_limit(const struct cpu_cmd *c)
{
    if (c->kind == CPU_CMD_RUN) return c->timeout_s + CPU_COORD_GRACE_S;
    size_t len = c->plan ? c->plan->work_len : c->len;
    return CPU_DEFAULT_TIMEOUT_S + (double)len * sizeof(float) / 10e6;
}

/* Anything that moves while a run makes progress: barriers passed, transfers finished. */
static uint64_t cpu_pool_progress(struct cpu_pool *pl)
{
    uint64_t n = atomic_load(&pl->bar.gen);
    for (int e = 0; e < pl->nranks; e++)
        n += atomic_load(&pl->flag[e].done);
    return n;
}

/* Post a command to every rank and wait until all are done. Returns the first non-OK
 * rank status (CV_ETIMEOUT wins over CV_ECANCELLED: an aborted run is the bigger news). */
static int cpu_pool_do(struct cpu_state *st, const struct cpu_cmd *c, char *err, size_t errlen)
{
    struct cpu_pool *pl = st->pool;
    pthread_mutex_lock(&pl->mu);
    pl->cmd = *c;
    pl->ndone = 0;
    pl->seq++;
    if (c->kind == CPU_CMD_RUN) /* every rank is idle: counters start from 0 */
        for (int e = 0; e < pl->nranks; e++)
            atomic_store(&pl->flag[e].done, 0);
    pthread_cond_broadcast(&pl->cmd_cv);

    double limit = cpu_cmd_limit(c);
    double last_progress = now_s();
    uint64_t last_gen = cpu_pool_progress(pl);
    int last_done = 0;
    bool aborted = false, cancel_sent = false;
    /* Only a run has ranks waiting on each other; the other commands poll the flag in
     * their own loops. */
    bool watch_cancel = c->kind == CPU_CMD_RUN && c->cancel;
    while (pl->ndone < pl->nranks) {
        struct timespec ts;
        double now = now_s();
        cpu_abs_time(&ts, now + (watch_cancel && !cancel_sent ? CPU_COORD_POLL_S : 0.25));
        pthread_cond_timedwait(&pl->done_cv, &pl->mu, &ts);
        if (watch_cancel && !cancel_sent && *c->cancel) {
            /* Ranks waiting leave now; the others before their next slice. */
            cpu_pool_stop(pl, CV_ECANCELLED);
            cancel_sent = true;
        }
        uint64_t gen = cpu_pool_progress(pl);
        now = now_s();
        if (gen != last_gen || pl->ndone != last_done) {
            last_gen = gen;
            last_done = pl->ndone;
            last_progress = now;
        } else if (!aborted && now - last_progress > limit) {
            cpu_pool_stop(pl, CV_ETIMEOUT);
            aborted = true;
            last_progress = now;
        } else if (aborted && now - last_progress > limit) {
            pthread_mutex_unlock(&pl->mu);
            cpu_pool_abandon(st);
            return cv_err(
                err, errlen, CV_ETIMEOUT,
                "a CPU rank thread made no progress for %.1f s and did not answer the "
                "abort; its threads were abandoned",
                2 * limit);
        }
    }
    int rc = CV_OK;
    for (int r = 0; r < pl->nranks; r++)
        if (pl->rc[r] != CV_OK && (rc == CV_OK || pl->rc[r] == CV_ETIMEOUT)) rc = pl->rc[r];
    pthread_mutex_unlock(&pl->mu);
    if (rc == CV_ETIMEOUT || rc == CV_ECANCELLED || aborted || cancel_sent)
        cpu_barrier_reset(&pl->bar); /* every rank is idle again */
    if (aborted && rc == CV_OK) rc = CV_ETIMEOUT;
    /* Said here, once, for every caller (measure, its auto trial, run_small): a timeout
     * names itself and the deadline it missed. */
    if (rc == CV_ETIMEOUT && c->kind == CPU_CMD_RUN && c->plan)
        cv_err(err, errlen, rc,
               "timed out: %s on %d CPU threads, a rank waited longer than the deadline of "
               "%.3g s for a slice or at the barrier; run aborted",
               coll_name(c->plan->coll), pl->nranks, c->timeout_s);
    return rc;
}

static void cpu_pool_destroy(struct cpu_state *st)
{
    struct cpu_pool *pl = st->pool;
    if (!pl) return;
    struct cpu_cmd c = {.kind = CPU_CMD_EXIT};
    if (cpu_pool_do(st, &c, NULL, 0) != CV_OK && !st->pool) return; /* abandoned */
    for (int r = 0; r < pl->nranks; r++)
        pthread_join(pl->ranks[r].th, NULL);
    pthread_mutex_destroy(&pl->mu);
    pthread_cond_destroy(&pl->cmd_cv);
    pthread_cond_destroy(&pl->done_cv);
    free(pl);
    st->pool = NULL;
}

static int cpu_pool_ensure(struct cpu_state *st, int nranks, char *err, size_t errlen)
{
    if (st->pool && st->pool->nranks == nranks) return CV_OK;
    cpu_pool_destroy(st);
    struct cpu_pool *pl = xcalloc(1, sizeof *pl);
    pl->nranks = nranks;
    cpu_barrier_init(&pl->bar, nranks,
                     nranks <= st->ncpus ? CPU_SPIN_DEDICATED : CPU_SPIN_SHARED);
    pthread_mutex_init(&pl->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&pl->cmd_cv, NULL);
    pthread_cond_init(&pl->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    for (int r = 0; r < nranks; r++) {
        pl->ranks[r].pool = pl;
        pl->ranks[r].rank = r;
        pl->ranks[r].spin = pl->bar.spin_max / 2;
        int e = pthread_create(&pl->ranks[r].th, NULL, cpu_rank_main, &pl->ranks[r]);
        if (e != 0) {
            pl->nranks = r; /* stop the ones that did start */
            st->pool = pl;
            cpu_pool_destroy(st);
            return cv_err(err, errlen, CV_EBACKEND, "cannot start CPU rank thread %d: %s", r,
                          strerror(e));
        }
    }
    st->pool = pl;
    return CV_OK;
}

static size_t cpu_held(const struct cpu_state *st)
{
    size_t n = 0;
    if (st->pool)
        for (int r = 0; r < st->pool->nranks; r++)
            n += st->pool->cap[r] * sizeof(float);
    return n;
}

/* Allocate every rank's buffer for plan p, refusing first if it cannot fit. */
static int cpu_prepare(struct cpu_state *st, const struct plan *p, size_t bytes,
                       volatile int *cancel, char *err, size_t errlen)
{
    int W = p->nranks;
    size_t len = p->work_len;
    if (len > SIZE_MAX / sizeof(float) / (size_t)W)
        return cv_err(err, errlen, CV_ENOMEM, "%s on %d ranks: buffer size overflows",
                      coll_name(p->coll), W);
    size_t need = (size_t)W * len * sizeof(float);
    size_t avail = mem_available_bytes();
    size_t held = cpu_held(st); /* freed or reused by the reallocation */
    if (avail && need > avail + held) {
        char s[32], n[32], a[32];
        format_size(bytes, s, sizeof s);
        format_size(need, n, sizeof n);
        format_size(avail + held, a, sizeof a);
        return cv_err(err, errlen, CV_ENOMEM,
                      "%s %s on %d ranks needs %s of buffers; %s available", s,
                      coll_name(p->coll), W, n, a);
    }
    int rc = cpu_pool_ensure(st, W, err, errlen);
    if (rc != CV_OK) return rc;
    struct cpu_cmd c = {.kind = CPU_CMD_ALLOC, .len = len, .cancel = cancel};
    rc = cpu_pool_do(st, &c, err, errlen);
    if (rc == CV_ENOMEM) {
        char n[32];
        format_size(need, n, sizeof n);
        return cv_err(err, errlen, rc, "allocating %s of buffers for %d ranks failed", n, W);
    }
    return rc;
}

/* ---- a plan ready to run: built, refined, laid out per rank ----------------------- */

struct cpu_prog {
    struct plan base, plan; /* plan_build's, and its refinement (what runs) */
    struct cpu_sched sched;
};

/* Group rank r's transfers (in execution order) into runs of reductions into one range
 * (fused by exec_xfers), and merge their waits: per other rank, the most of its
 * transfers any member needs finished. */
static void cpu_sched_build(struct cpu_sched *sc, const struct plan *p)
{
    int W = p->nranks;
    size_t nx = p->nx, first[CV_MAX_RANKS + 1] = {0}, fill[CV_MAX_RANKS] = {0};
    memset(sc, 0, sizeof *sc);
    sc->p = p;
    sc->idx = xmalloc((nx ? nx : 1) * sizeof *sc->idx);
    sc->items = xmalloc((nx ? nx : 1) * sizeof *sc->items);
    size_t capneed = nx + 16, nneed = 0, nitems = 0;
    sc->needs = xmalloc(capneed * sizeof *sc->needs);
    for (size_t i = 0; i < nx; i++)
        first[p->x[i].by + 1]++;
    for (int r = 0; r < W; r++) {
        sc->nown[r] = (uint32_t)first[r + 1];
        first[r + 1] += first[r];
    }
    for (size_t k = 0; k < nx; k++) {
        int r = p->x[p->order[k]].by;
        sc->idx[first[r] + fill[r]++] = p->order[k];
    }
    for (int r = 0; r < W; r++) {
        sc->item_first[r] = nitems;
        size_t j = first[r];
        while (j < first[r + 1]) {
            const struct xfer *x = &p->x[sc->idx[j]];
            size_t e = j + 1;
            while (e < first[r + 1] && x->kind == XFER_REDUCE) {
                const struct xfer *y = &p->x[sc->idx[e]];
                if (y->kind != XFER_REDUCE || y->dst != x->dst || y->dst_off != x->dst_off ||
                    y->count != x->count)
                    break;
                e++;
            }
            uint32_t need[CV_MAX_RANKS] = {0};
            for (size_t m = j; m < e; m++) {
                size_t i = sc->idx[m];
                for (size_t d = p->dep_first[i]; d < p->dep_first[i + 1]; d++) {
                    const struct xfer *y = &p->x[p->dep[d]];
                    if (y->by != r && y->seq + 1 > need[y->by])
                        need[y->by] = (uint32_t)y->seq + 1;
                }
            }
            struct cpu_item *it = &sc->items[nitems++];
            *it = (struct cpu_item){.first = j, .n = e - j, .need_first = nneed};
            for (int q = 0; q < W; q++) {
                if (!need[q]) continue;
                if (nneed == capneed) {
                    capneed *= 2;
                    sc->needs = xrealloc(sc->needs, capneed * sizeof *sc->needs);
                }
                sc->needs[nneed++] = (struct cpu_need){q, need[q]};
                it->nneed++;
            }
            j = e;
        }
    }
    sc->item_first[W] = nitems;
}

static void cpu_sched_free(struct cpu_sched *sc)
{
    free(sc->idx);
    free(sc->items);
    free(sc->needs);
    memset(sc, 0, sizeof *sc);
}

/* The default number of slices: the largest transfer cut into pieces of about
 * CPU_SLICE_BYTES, as long as the plan stays within CPU_AUTO_MAX_XFERS transfers. */
static int cpu_auto_slices(const struct plan *p)
{
    size_t most = 0;
    for (size_t i = 0; i < p->nx; i++)
        if (p->x[i].count > most) most = p->x[i].count;
    size_t per = CPU_SLICE_BYTES / sizeof(float);
    size_t n = (most + per - 1) / per;
    size_t cap = p->nx ? CPU_AUTO_MAX_XFERS / p->nx : 1;
    if (n > cap) n = cap;
    if (n > PLAN_MAX_SLICES) n = PLAN_MAX_SLICES;
    return n < 1 ? 1 : (int)n;
}

/* Refine `base` (taken over: freed by cpu_prog_free) and lay it out for the ranks. */
static int cpu_prog_from(struct cpu_prog *g, int slices, int channels, char *err, size_t errlen)
{
    if (slices <= 0) slices = cpu_auto_slices(&g->base);
    if (channels <= 0) channels = 1;
    int rc = plan_refine(&g->base, slices, channels, &g->plan, err, errlen);
    if (rc != CV_OK) {
        plan_free(&g->base);
        return rc;
    }
    cpu_sched_build(&g->sched, &g->plan);
    return CV_OK;
}

static int cpu_prog_make(struct cpu_prog *g, enum coll c, enum algo a, enum redop op, int W,
                         size_t count, int root, int slices, int channels, char *err,
                         size_t errlen)
{
    memset(g, 0, sizeof *g);
    int rc = plan_build(&g->base, c, a, op, W, count, root, err, errlen);
    if (rc != CV_OK) return rc;
    return cpu_prog_from(g, slices, channels, err, errlen);
}

static void cpu_prog_free(struct cpu_prog *g)
{
    cpu_sched_free(&g->sched);
    plan_free(&g->plan);
    plan_free(&g->base);
}

/* ---- the algorithm the CPU runs fastest (algo_auto) ------------------------------- */

/* Why measure instead of a table. On shared memory a transfer is a pass over memory, so
 * what decides is memory traffic and cache reuse, not message count. On paper the direct
 * algorithms move the least: a direct reduce-scatter reads every source chunk once and
 * folds all W-1 sources into the destination while it is in cache, where a ring writes a
 * partial sum back on each of its W-1 steps and reads it again on the next, with 2(W-1)
 * barriers instead of 2. In practice the ring's partial sums are often still in cache
 * when the next rank reads them, and which wins depends on the reduction kernels, the
 * cache sizes and the load: on the project's 2-core VM (4 ranks, all_reduce 64 MiB,
 * interleaved runs) ring and direct alternated as the faster one, 4.1-7.3 GB/s busbw each.
 * So auto runs a short trial of every algorithm the collective has, on the real buffers
 * at the real size (two interleaved rounds of up to 5 iterations each, the fastest
 * round counts), and keeps the winner for that collective, rank count and size (within a
 * power of two) for the life of the backend. r->algo and r->how say which ran. */
#define CPU_TRIAL_ITERS 5
#define CPU_TRIAL_ROUNDS 2

static int cpu_size_bucket(size_t bytes)
{
    int b = 0;
    while (bytes > 1 && b < CPU_AUTO_BUCKETS - 1) {
        bytes >>= 1;
        b++;
    }
    return b;
}

/* What auto did, for r->how: "...; auto: ring won a trial of 3". */
static void cpu_auto_how(char *buf, size_t n, enum algo a, int ntried)
{
    if (ntried > 1)
        snprintf(buf, n, "; auto: %s won a trial of %d", algo_name(a), ntried);
    else if (ntried == 1)
        snprintf(buf, n, "; auto: %s (the only one)", algo_name(a));
    else
        snprintf(buf, n, "; auto: %s (earlier trial)", algo_name(a));
}

/* *ntried: how many algorithms the trial ran (1: there is only one; 0: cached). */
static int cpu_pick_algo(struct cpu_state *st, const struct bench_params *bp, size_t count,
                         int root, double tmo, volatile int *cancel, enum algo *out,
                         int *ntried, char *err, size_t errlen)
{
    signed char *cached = &st->auto_pick[bp->coll][bp->nranks][cpu_size_bucket(bp->bytes)];
    *ntried = 0;
    if (*cached >= 0) {
        *out = (enum algo) * cached;
        return CV_OK;
    }
    struct cpu_prog *progs = xcalloc(ALGO_COUNT, sizeof *progs);
    enum algo algos[ALGO_COUNT];
    int n = 0, rc = CV_OK;
    for (int a = 0; a < ALGO_COUNT; a++)
        if (algo_supported(bp->coll, (enum algo)a)) {
            rc = cpu_prog_make(&progs[n], bp->coll, (enum algo)a, bp->op, bp->nranks, count,
                               root, bp->slices, bp->channels, err, errlen);
            if (rc != CV_OK) goto out;
            algos[n++] = (enum algo)a;
        }
    if (n == 0) {
        rc = cv_err(err, errlen, CV_EUNSUPPORTED, "%s has no algorithm", coll_name(bp->coll));
        goto out;
    }
    double best[ALGO_COUNT];
    for (int i = 0; i < n; i++)
        best[i] = INFINITY;
    if (n > 1) {
        size_t S = coll_bytes(bp->coll, bp->nranks, count, sizeof(float));
        /* Every algorithm of a collective has the same working buffer (coll_work_len). */
        if ((rc = cpu_prepare(st, &progs[0].plan, S, cancel, err, errlen)) != CV_OK) goto out;
        struct cpu_cmd c = {.kind = CPU_CMD_FILL, .plan = &progs[0].plan, .cancel = cancel};
        if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto out;
        int iters = bp->iters < CPU_TRIAL_ITERS ? bp->iters : CPU_TRIAL_ITERS;
        for (int round = 0; round < CPU_TRIAL_ROUNDS; round++)
            for (int i = 0; i < n; i++) {
                c = (struct cpu_cmd){.kind = CPU_CMD_RUN,
                                     .plan = &progs[i].plan,
                                     .sched = &progs[i].sched,
                                     .warmup = 1,
                                     .iters = iters,
                                     .timeout_s = tmo,
                                     .cancel = cancel};
                if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto out;
                if (st->pool->elapsed < best[i]) best[i] = st->pool->elapsed;
            }
    }
    int win = 0;
    for (int i = 1; i < n; i++)
        if (best[i] < best[win]) win = i;
    *out = algos[win];
    *ntried = n;
    if (n > 1) *cached = (signed char)algos[win];
out:
    for (int i = 0; i < n; i++)
        cpu_prog_free(&progs[i]);
    free(progs);
    return rc;
}

/* ---- backend_ops ----------------------------------------------------------------- */

static int cpu_open(struct backend *b, char *err, size_t errlen)
{
    struct cpu_state *st = xcalloc(1, sizeof *st);
    st->ncpus = cpu_count_cores();
    st->stall_rank = -1;
    memset(st->auto_pick, -1, sizeof st->auto_pick);
    b->priv = st;
    return CV_OK;
}

static void cpu_close(struct backend *b)
{
    struct cpu_state *st = b->priv;
    if (!st) return;
    cpu_pool_destroy(st);
    free(st);
    b->priv = NULL;
}

static int cpu_max_ranks(struct backend *b)
{
    return CV_MAX_RANKS;
}

#ifdef CV_TEST_HOOKS
/* Test hook, compiled only into the test builds (`make test` adds -DCV_TEST_HOOKS to the
 * ASan+UBSan build, build/asan; the program `make` builds and `make install` installs never
 * has it, and install refuses a binary carrying the marker below). It exists so the tests
 * can see the #wrong count fail: with CV_TEST_CORRUPT=RANK:ELEM in the environment, the
 * check run's result on rank RANK gets element ELEM of its receive buffer changed (+1)
 * before it is counted, so #wrong must come out as exactly 1. An environment variable
 * rather than an API call so that the same hook reaches the backend through `collviz
 * bench` and through the visualizer's measured panel. Without the define the variable is
 * never read (tests/unit/test_cpu_backend.c checks that too). */
__attribute__((used)) static const char cv_test_hooks_marker[] = "collviz-test-hooks:built-in";

static void cpu_test_corrupt(struct cpu_pool *pl, const struct plan *p)
{
    const char *e = getenv("CV_TEST_CORRUPT");
    int r;
    size_t j;
    if (!e || sscanf(e, "%d:%zu", &r, &j) != 2 || r < 0 || r >= p->nranks) return;
    if (j >= coll_recv_count(p->coll, p->nranks, p->count, r, p->root)) return;
    pl->buf[r][coll_out_off(p->coll, p->nranks, p->count, r) + j] += 1.0f;
}
#endif

static int cpu_measure(struct backend *b, const struct bench_params *bp,
                       struct bench_result *res, volatile int *cancel, char *err, size_t errlen)
{
    struct cpu_state *st = b->priv;
    int W = bp->nranks;
    if (W < 1 || W > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the CPU backend runs 1..%d", W,
                      CV_MAX_RANKS);
    if (bp->iters < 1 || bp->warmup < 0)
        return cv_err(err, errlen, CV_EINVAL, "iterations %d / warm-up %d: need >= 1 / >= 0",
                      bp->iters, bp->warmup);
    if (cancel && *cancel) return cv_err(err, errlen, CV_ECANCELLED, "cancelled");
    size_t count = coll_count_for_bytes(bp->coll, W, bp->bytes, sizeof(float));
    if (count == 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "%zu B is less than one float per rank for %s on %d ranks", bp->bytes,
                      coll_name(bp->coll), W);
    double tmo = bp->timeout_s > 0 ? bp->timeout_s : CPU_DEFAULT_TIMEOUT_S;
    int root = coll_is_rooted(bp->coll) ? bp->root : 0;
    enum algo a = bp->algo;
    int ntried = 0, rc;
    if (bp->algo_auto && (rc = cpu_pick_algo(st, bp, count, root, tmo, cancel, &a, &ntried, err,
                                             errlen)) != CV_OK)
        return rc == CV_ECANCELLED ? cv_err(err, errlen, rc, "cancelled") : rc;

    struct cpu_prog *g = xcalloc(1, sizeof *g); /* leaked with an abandoned pool */
    rc = cpu_prog_make(g, bp->coll, a, bp->op, W, count, root, bp->slices, bp->channels, err,
                       errlen);
    if (rc != CV_OK) {
        free(g);
        return rc;
    }
    const struct plan *pp = &g->plan;
    unsigned abandoned_before = st->abandoned;
    size_t S = coll_bytes(bp->coll, W, count, sizeof(float));
    rc = cpu_prepare(st, pp, S, cancel, err, errlen);
    if (rc == CV_ECANCELLED) goto fail;
    if (rc != CV_OK) goto out;

    struct cpu_cmd c = {.kind = CPU_CMD_FILL, .plan = pp, .cancel = cancel};
    if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
    c = (struct cpu_cmd){.kind = CPU_CMD_RUN,
                         .plan = pp,
                         .sched = &g->sched,
                         .warmup = bp->warmup,
                         .iters = bp->iters,
                         .timeout_s = tmo,
                         .cancel = cancel,
                         .stall_rank = st->stall_rank,
                         .stall_s = st->stall_s};
    if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
    double t = st->pool->elapsed / bp->iters;

    long wrong = -1;
    if (bp->check) {
        /* In-place iterations changed the values; check one run from fresh inputs. */
        c = (struct cpu_cmd){.kind = CPU_CMD_FILL, .plan = pp, .cancel = cancel};
        if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
        c = (struct cpu_cmd){.kind = CPU_CMD_RUN,
                             .plan = pp,
                             .sched = &g->sched,
                             .warmup = 1,
                             .timeout_s = tmo,
                             .cancel = cancel};
        if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
#ifdef CV_TEST_HOOKS
        cpu_test_corrupt(st->pool, pp); /* every rank is idle between commands */
#endif
        c = (struct cpu_cmd){.kind = CPU_CMD_COUNT, .plan = pp, .cancel = cancel};
        if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
        wrong = 0;
        for (int r = 0; r < W; r++)
            wrong += st->pool->wrong[r];
    }

    memset(res, 0, sizeof *res);
    res->bytes = S;
    res->count = S / sizeof(float);
    res->time_us = t * 1e6;
    res->algbw = t > 0 ? (double)S / t / 1e9 : 0.0;
    res->busbw = res->algbw * coll_busbw_factor(bp->coll, W);
    res->wrong = wrong;
    res->nranks = W;
    snprintf(res->algo, sizeof res->algo, "%s", algo_name(a));
    res->slices = pp->nslices;
    res->channels = pp->nchannels;
    char autohow[48] = "", how[256];
    if (bp->algo_auto) cpu_auto_how(autohow, sizeof autohow, a, ntried);
    char pieces[40];
    if (pp->nchannels > 1)
        snprintf(pieces, sizeof pieces, "%d slices x %d channels", pp->nslices, pp->nchannels);
    else
        snprintf(pieces, sizeof pieces, "%d slice%s", pp->nslices, pp->nslices == 1 ? "" : "s");
    snprintf(how, sizeof how, "%d CPU thread%s, %s, %d iters after %d warm-up, %s%s", W,
             W == 1 ? "" : "s", bp->coll == COLL_ALL_TO_ALL ? "out-of-place" : "in-place",
             bp->iters, bp->warmup, pieces, autohow);
    /* Fits unless the iteration counts run to millions; then the tail is cut. */
    size_t hl = strlen(how) < sizeof res->how ? strlen(how) : sizeof res->how - 1;
    memcpy(res->how, how, hl);
    res->how[hl] = '\0';
    goto out;

fail:
    if (rc == CV_ECANCELLED) cv_err(err, errlen, rc, "cancelled");
out:
    /* An abandoned pool's stuck rank may still read the plan: leak it with the pool. */
    if (st->abandoned == abandoned_before) {
        cpu_prog_free(g);
        free(g);
    }
    return rc;
}

static int cpu_run_small(struct backend *b, const struct plan *p, float *const *send,
                         float **recv, char *err, size_t errlen)
{
    struct cpu_state *st = b->priv;
    if (p->nranks < 1 || p->nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the CPU backend runs 1..%d", p->nranks,
                      CV_MAX_RANKS);
    double tmo = CPU_DEFAULT_TIMEOUT_S;
    /* A plan that is refined already (slices, channels, dependencies) runs as it is;
     * a plain one as whole chunks. */
    struct cpu_prog *g = xcalloc(1, sizeof *g); /* leaked with an abandoned pool */
    const struct plan *pp = p;
    int rc = CV_OK;
    if (p->order) {
        cpu_sched_build(&g->sched, p);
    } else {
        rc = plan_refine(p, 1, 1, &g->plan, err, errlen);
        if (rc != CV_OK) {
            free(g);
            return rc;
        }
        cpu_sched_build(&g->sched, &g->plan);
        pp = &g->plan;
    }
    unsigned abandoned_before = st->abandoned;
    rc = cpu_prepare(st, pp, coll_bytes(pp->coll, pp->nranks, pp->count, sizeof(float)), NULL,
                     err, errlen);
    if (rc != CV_OK) goto out;
    struct cpu_cmd c = {.kind = CPU_CMD_LOAD, .plan = pp, .send = send};
    if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto out;
    c = (struct cpu_cmd){
        .kind = CPU_CMD_RUN, .plan = pp, .sched = &g->sched, .warmup = 1, .timeout_s = tmo};
    if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto out;
    c = (struct cpu_cmd){.kind = CPU_CMD_STORE, .plan = pp, .recv = recv};
    rc = cpu_pool_do(st, &c, err, errlen);
out:
    if (st->abandoned == abandoned_before) {
        cpu_sched_free(&g->sched);
        plan_free(&g->plan);
        free(g);
    }
    return rc;
}

static void cpu_describe(struct backend *b, int nranks, char *buf, size_t n)
{
    struct cpu_state *st = b->priv;
    snprintf(buf, n, "%d rank%s = %d CPU thread%s on %d core%s (pthreads, shared memory)",
             nranks, nranks == 1 ? "" : "s", nranks, nranks == 1 ? "" : "s", st->ncpus,
             st->ncpus == 1 ? "" : "s");
}

static void cpu_rank_label(struct backend *b, int rank, char *buf, size_t n)
{
    snprintf(buf, n, "cpu thread");
}

size_t cpu_backend_held_bytes(struct backend *b)
{
    return cpu_held(b->priv);
}

void cpu_backend_test_stall(struct backend *b, int rank, double seconds)
{
    struct cpu_state *st = b->priv;
    st->stall_rank = rank;
    st->stall_s = seconds;
}

const struct backend_ops cpu_backend_ops = {
    .name = "cpu",
    .kind = BACKEND_CPU,
    .caps = BACKEND_CAP_EXACT_REDUCTION,
    .open = cpu_open,
    .close = cpu_close,
    .max_ranks = cpu_max_ranks,
    .measure = cpu_measure,
    .run_small = cpu_run_small,
    .describe = cpu_describe,
    .rank_label = cpu_rank_label,
};
