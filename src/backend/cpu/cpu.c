/* cpu.c - the CPU backend: W persistent rank threads on shared memory, executing the
 * very plan the UI animates (core/plan.h), step by step, with a barrier between steps.
 *
 * Threads. The rank threads are created once per world size and reused for every
 * measurement; they are recreated only when nranks changes, never inside a timed loop.
 * The caller (the worker thread) is the coordinator: it posts one command at a time
 * (allocate, fill, run, count, ...) and waits for every rank to finish it. Each rank
 * allocates its own working buffer (64-byte aligned) and touches it first, so on a
 * multi-socket machine its pages land on that thread's node.
 *
 * Execution. In step s rank r calls exec_step_rank(p, s, r, bufs) - the same arithmetic the
 * trace executor uses, so what is animated is what runs - then waits on the step barrier
 * (barrier.c). Plans obey the rule that a transfer is executed by its destination and no
 * transfer of a step reads what another destination writes in that step (plan.h), so one
 * barrier per step is all the synchronisation needed.
 *
 * Cancel. A cancel lands within about one step's time, whatever the size: the flag is
 * read at every step barrier (by the last rank to arrive, for everyone), the coordinator
 * polls it while it waits and aborts the barrier so ranks already waiting leave at once,
 * a rank skips the steps of a run that is over, and the per-rank loops outside a run
 * (first touch of a new buffer, fill, check) poll it every CPU_POLL_FLOATS elements.
 * Measured on the 2-core VM, 1 GiB all-gather on 5 ranks: 0.02-0.2 s from cancel to
 * return; when the flag was read only between iterations (and not in the fill and check
 * loops), 0.1-5.5 s, and the run sometimes finished regardless (~36 s was reported once).
 *
 * Deadlines. A rank waiting on the barrier past params->timeout_s aborts the run (every
 * rank then returns CV_ETIMEOUT). The coordinator waits for each command with its own
 * progress deadline (no barrier generation and no rank finishing for timeout_s + a grace),
 * after which it aborts the barrier; if a rank still does not come back, the pool is
 * abandoned (threads detached, memory leaked) rather than letting the caller hang. */
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

struct cpu_cmd {
    enum cpu_cmd_kind kind;
    const struct plan *plan;
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

static int cpu_rank_run(struct cpu_pool *pl, int r, const struct cpu_cmd *c)
{
    const struct plan *p = c->plan;
    float *const *bufs = pl->buf;
    double tmo = c->timeout_s;
    int *spin = &pl->ranks[r].spin;
    int rc;
    if (r == c->stall_rank && c->stall_s > 0) {
        /* A late rank, in slices: it still comes back once the run is aborted, the way a
         * rank in a long step comes back at its next barrier. */
        double until = now_s() + c->stall_s;
        while (now_s() < until && cpu_barrier_aborted(&pl->bar) == CV_OK) {
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    /* One execution of the plan. Every step barrier is where the cancel flag is read (by
     * the last rank to arrive, for everyone), so a cancel lands within a step. A rank
     * skips a step once the run was aborted (cancel or deadline, seen by the coordinator).
     * A plan without steps (W = 1) still passes one barrier. */
#define CPU_RUN_ONCE()                                                                         \
    do {                                                                                       \
        for (size_t s = 0; s < p->nsteps; s++) {                                               \
            if ((rc = cpu_barrier_aborted(&pl->bar)) != CV_OK) return rc;                      \
            exec_step_rank(p, s, r, bufs);                                                     \
            rc = cpu_barrier_wait(&pl->bar, now_s() + tmo, c->cancel, spin);                   \
            if (rc != CV_OK) return rc;                                                        \
        }                                                                                      \
        if (p->nsteps == 0 &&                                                                  \
            (rc = cpu_barrier_wait(&pl->bar, now_s() + tmo, c->cancel, spin)) != CV_OK)        \
            return rc;                                                                         \
    } while (0)

    for (int it = 0; it < c->warmup; it++)
        CPU_RUN_ONCE();
    if (c->iters <= 0) return CV_OK;
    /* The lecture's method: everyone arrives, start the clock, run, everyone arrives,
     * stop the clock. */
    if ((rc = cpu_barrier_wait(&pl->bar, now_s() + tmo, c->cancel, spin)) != CV_OK) return rc;
    double t0 = now_s();
    for (int it = 0; it < c->iters; it++)
        CPU_RUN_ONCE();
    if ((rc = cpu_barrier_wait(&pl->bar, now_s() + tmo, NULL, spin)) != CV_OK) return rc;
    if (r == 0) pl->elapsed = now_s() - t0;
    return CV_OK;
#undef CPU_RUN_ONCE
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
 * collective: the ranks abort it themselves after timeout_s at a barrier. The other
 * commands are each rank's own loops over its buffer, which cannot deadlock, only be
 * slow; they get the default plus a worst case of 10 MB/s (a swapping machine). */
static double cpu_cmd_limit(const struct cpu_cmd *c)
{
    if (c->kind == CPU_CMD_RUN) return c->timeout_s + CPU_COORD_GRACE_S;
    size_t len = c->plan ? c->plan->work_len : c->len;
    return CPU_DEFAULT_TIMEOUT_S + (double)len * sizeof(float) / 10e6;
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
    pthread_cond_broadcast(&pl->cmd_cv);

    double limit = cpu_cmd_limit(c);
    double last_progress = now_s();
    uint32_t last_gen = atomic_load(&pl->bar.gen);
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
            /* Ranks already at a barrier leave now; the others at their next one. */
            cpu_barrier_cancel(&pl->bar);
            cancel_sent = true;
        }
        uint32_t gen = atomic_load(&pl->bar.gen);
        now = now_s();
        if (gen != last_gen || pl->ndone != last_done) {
            last_gen = gen;
            last_done = pl->ndone;
            last_progress = now;
        } else if (!aborted && now - last_progress > limit) {
            cpu_barrier_abort(&pl->bar);
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
               "%.3g s at a step barrier; run aborted",
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
    struct plan plans[ALGO_COUNT];
    enum algo algos[ALGO_COUNT];
    int n = 0, rc = CV_OK;
    for (int a = 0; a < ALGO_COUNT; a++)
        if (algo_supported(bp->coll, (enum algo)a)) {
            rc = plan_build(&plans[n], bp->coll, (enum algo)a, bp->op, bp->nranks, count, root,
                            err, errlen);
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
        if ((rc = cpu_prepare(st, &plans[0], S, cancel, err, errlen)) != CV_OK) goto out;
        struct cpu_cmd c = {.kind = CPU_CMD_FILL, .plan = &plans[0], .cancel = cancel};
        if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto out;
        int iters = bp->iters < CPU_TRIAL_ITERS ? bp->iters : CPU_TRIAL_ITERS;
        for (int round = 0; round < CPU_TRIAL_ROUNDS; round++)
            for (int i = 0; i < n; i++) {
                c = (struct cpu_cmd){.kind = CPU_CMD_RUN,
                                     .plan = &plans[i],
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
        plan_free(&plans[i]);
    return rc;
}

/* ---- backend_ops ----------------------------------------------------------------- */

/* The cores this process may run on (taskset/cgroup cpusets count, offline ones not). */
static int cpu_count_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

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

    struct plan p;
    rc = plan_build(&p, bp->coll, a, bp->op, W, count, root, err, errlen);
    if (rc != CV_OK) return rc;
    unsigned abandoned_before = st->abandoned;
    size_t S = coll_bytes(bp->coll, W, count, sizeof(float));
    rc = cpu_prepare(st, &p, S, cancel, err, errlen);
    if (rc == CV_ECANCELLED) goto fail;
    if (rc != CV_OK) goto out;

    struct cpu_cmd c = {.kind = CPU_CMD_FILL, .plan = &p, .cancel = cancel};
    if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
    c = (struct cpu_cmd){.kind = CPU_CMD_RUN,
                         .plan = &p,
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
        c = (struct cpu_cmd){.kind = CPU_CMD_FILL, .plan = &p, .cancel = cancel};
        if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
        c = (struct cpu_cmd){
            .kind = CPU_CMD_RUN, .plan = &p, .warmup = 1, .timeout_s = tmo, .cancel = cancel};
        if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) goto fail;
#ifdef CV_TEST_HOOKS
        cpu_test_corrupt(st->pool, &p); /* every rank is idle between commands */
#endif
        c = (struct cpu_cmd){.kind = CPU_CMD_COUNT, .plan = &p, .cancel = cancel};
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
    char autohow[48] = "", how[256];
    if (bp->algo_auto) cpu_auto_how(autohow, sizeof autohow, a, ntried);
    snprintf(how, sizeof how,
             "%d CPU thread%s, %s, %d iters after %d warm-up, "
             "barrier both sides%s",
             W, W == 1 ? "" : "s", bp->coll == COLL_ALL_TO_ALL ? "out-of-place" : "in-place",
             bp->iters, bp->warmup, autohow);
    /* Fits unless the iteration counts run to millions; then the tail is cut. */
    size_t hl = strlen(how) < sizeof res->how ? strlen(how) : sizeof res->how - 1;
    memcpy(res->how, how, hl);
    res->how[hl] = '\0';
    goto out;

fail:
    if (rc == CV_ECANCELLED) cv_err(err, errlen, rc, "cancelled");
out:
    /* An abandoned pool's stuck rank may still read the plan: leak it with the pool. */
    if (st->abandoned == abandoned_before) plan_free(&p);
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
    int rc = cpu_prepare(st, p, coll_bytes(p->coll, p->nranks, p->count, sizeof(float)), NULL,
                         err, errlen);
    if (rc != CV_OK) return rc;
    struct cpu_cmd c = {.kind = CPU_CMD_LOAD, .plan = p, .send = send};
    if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) return rc;
    c = (struct cpu_cmd){.kind = CPU_CMD_RUN, .plan = p, .warmup = 1, .timeout_s = tmo};
    if ((rc = cpu_pool_do(st, &c, err, errlen)) != CV_OK) return rc;
    c = (struct cpu_cmd){.kind = CPU_CMD_STORE, .plan = p, .recv = recv};
    return cpu_pool_do(st, &c, err, errlen);
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
