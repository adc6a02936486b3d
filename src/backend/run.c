/* run.c - measure a collective and run it at display scale on a backend's communicator
 * (see run.h): one loop for every backend.
 *
 * A call is a task. The calling thread is the coordinator: it builds the plan (plan_build,
 * then plan_refine into slices and channels), lets the communicator prepare it, and then
 * either starts one thread per rank (ranks that are threads of this process) or runs this
 * process's own rank itself (ranks that are processes). Each rank keeps its working buffer
 * between calls (allocated on its own thread, so the first touch puts the pages near it),
 * fills its input with the test pattern (core/init.h), runs the warm-up, a barrier, the
 * timed iterations, a barrier again, and for the check one more run from fresh inputs
 * whose result it compares with pattern_expected().
 *
 * Time is the host clock around the timed iterations after sync and barrier, the slowest
 * rank's (nccl-tests' convention); bandwidths follow coll.h (algbw = S / t, busbw = algbw
 * x coll_busbw_factor).
 *
 * Cancel and stalls. The ranks look at the caller's cancel flag between iterations, and
 * the communicator asks between slices (comm_job.cancelled); the coordinator watches it
 * too; whoever sees it set aborts the communicator. The flag is the caller's, read only
 * while the call lasts: before returning, the coordinator withdraws it and waits for any
 * reader in the middle of a read (task_withdraw_cancel), so a rank given up on never
 * reads it after the caller has gone. Every wait inside a communicator has
 * its deadline (timeout_s) and aborts the communicator when it passes, so the other ranks
 * come back at once. A rank that still does not come back a grace period after an abort
 * is named in the error and given up on: its thread is left to finish on its own with
 * the communicator, the task and the ranks' buffers, which the last rank to leave frees
 * (the next call makes a new communicator), rather than letting the caller hang.
 *
 * Buffers have one owner at a time. Between calls they are the run state's; a task takes
 * them all when it starts and, once every rank is done, gives them back. While the task
 * runs only rank r touches its buffer (it may free and remake it), so a rank given up on in
 * the middle of that swap frees nothing twice: the task keeps the buffers and the last to
 * leave it frees them with their communicator. Ranks that are
 * processes cannot stop alone (every process must run the same collectives), so there a cancel
 * takes effect between calls. */
#include "backend/run.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/coll.h"
#include "core/init.h"
#include "core/plan.h"
#include "core/util.h"
#include "kernels/pattern.h"
#include "backend/comm.h"

#define RUN_DEFAULT_TIMEOUT_S 30.0
/* How long the coordinator waits for ranks after an abort before it gives up on them. */
#define RUN_GRACE_S 2.0
/* How often the coordinator looks at the cancel flag and the communicator. */
#define RUN_POLL_S 0.005
/* Inputs are written and results read in pieces of this many floats (256 KiB), with a look
 * at the cancel flag between pieces. */
#define RUN_CHUNK ((size_t)1 << 16)
#define RUN_AUTO_BUCKETS 64
/* algo_auto's trial: rounds of up to this many iterations of every algorithm, interleaved;
 * each algorithm's fastest round counts. */
#define RUN_TRIAL_ITERS 5
#define RUN_TRIAL_ROUNDS 2
/* A library that reduces in an order of its own (BACKEND_CAP_EXACT_REDUCTION not set)
 * gives sum, prod, min and max of the integer patterns exactly in any order, but not avg:
 * NCCL multiplies each input by 1/W before summing, which for W not a power of two differs
 * from sum/W in the last bits. A real error changes an element of these patterns by at
 * least 1/16, far above this tolerance. */
#define RUN_AVG_TOL 1e-4f

struct run_state {
    struct comm *comm;
    int nranks;
    bool within_node;
    float *buf[CV_MAX_RANKS]; /* each rank's working buffer, kept between calls */
    size_t cap[CV_MAX_RANKS]; /* floats */
    unsigned abandoned;       /* communicators given up on with a stalled rank */
    int stall_rank;           /* backend_test_stall() */
    double stall_s;
    /* algo_auto's winners by collective, rank count and log2(bytes); -1 = not tried */
    signed char auto_pick[COLL_COUNT][CV_MAX_RANKS + 1][RUN_AUTO_BUCKETS];
};

enum task_kind { TASK_MEASURE, TASK_TRIAL, TASK_SMALL };

/* One call, shared by its rank threads. Freed by whoever leaves it last, so a rank given
 * up on can still finish with it. */
struct run_task {
    enum task_kind kind;
    struct comm *c;
    struct run_state *rs;
    int W;
    struct comm_job jobs[ALGO_COUNT]; /* TASK_TRIAL: one per algorithm; else jobs[0] */
    struct plan base[ALGO_COUNT], plan[ALGO_COUNT];
    int njobs;
    size_t work_len; /* floats of each rank's buffer (with the send part when oop) */
    /* Out of place (bench_params.out_of_place): the rank's send buffer is the same
     * allocation from send_off on (after the working buffer, 256-byte aligned), so the
     * buffers keep one owner as they are (see the top). */
    bool oop;
    size_t send_off;
    int warmup, iters;
    bool check;
    float tol;          /* the check's, kernel_pattern_matches() */
    float *const *send; /* TASK_SMALL */
    float **recv;
    /* The caller's cancel flag while the call lasts, then NULL (task_withdraw_cancel);
     * `readers` counts ranks in the middle of reading it. */
    volatile int *_Atomic cancel;
    atomic_int readers;
    /* Set once a cancel was seen (by anyone), or the task was given up on. */
    volatile int stop;
    int stall_rank;
    double stall_s;

    int rc[CV_MAX_RANKS];
    /* run() calls each rank has started, and what they were when the communicator
     * failed: the ranks behind the others then are the ones that held them up. */
    atomic_int entered[CV_MAX_RANKS];
    int entered_at_failure[CV_MAX_RANKS];
    double secs[CV_MAX_RANKS][ALGO_COUNT]; /* TASK_MEASURE: [r][0] */
    long wrong[CV_MAX_RANKS];

    /* The ranks' working buffers while the task runs (taken from the run state, given
     * back when every rank is done); buf[r] and cap[r] are rank r's alone meanwhile. */
    float *buf[CV_MAX_RANKS];
    size_t cap[CV_MAX_RANKS]; /* floats */
    /* Given up on with a stalled rank: the communicator and the buffers stay the task's,
     * destroyed when the last rank leaves it. */
    bool abandoned;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done[CV_MAX_RANKS];
    int ndone;
    int refs; /* rank threads still running + the coordinator */
};

struct rank_arg {
    struct run_task *t;
    int rank;
};

static struct run_state *run_state_of(struct backend *b)
{
    if (!b->run) {
        struct run_state *rs = xcalloc(1, sizeof *rs);
        rs->stall_rank = -1;
        memset(rs->auto_pick, -1, sizeof rs->auto_pick);
        b->run = rs;
    }
    return b->run;
}

static bool comm_failed(struct comm *c)
{
    const char *e = c->ops->last_error ? c->ops->last_error(c) : NULL;
    return e && *e;
}

static void rs_drop_comm(struct run_state *rs, bool handed_over)
{
    if (!rs->comm) return;
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        if (rs->buf[r] && !handed_over) rs->comm->ops->buf_free(rs->comm, r, rs->buf[r]);
        rs->buf[r] = NULL;
        rs->cap[r] = 0;
    }
    if (!handed_over) rs->comm->ops->destroy(rs->comm);
    rs->comm = NULL;
    rs->nranks = 0;
}

/* The backend's communicator for W ranks, made once and kept; a new one after a failure. */
static int run_comm(struct backend *b, int W, bool within_node, double timeout_s,
                    struct comm **out, char *err, size_t errlen)
{
    struct run_state *rs = run_state_of(b);
    if (rs->comm &&
        (rs->nranks != W || rs->within_node != within_node || comm_failed(rs->comm)))
        rs_drop_comm(rs, false);
    if (!rs->comm) {
        if (!b->ops->comm_create)
            return cv_err(err, errlen, CV_EUNSUPPORTED, "the %s backend has no communicator",
                          b->ops->name);
        struct comm_params cp = {.nranks = W,
                                 .traffic = COMM_TRAFFIC_COLL, /* run(): collectives */
                                 .timeout_s = timeout_s,
                                 .within_node = within_node};
        int rc = b->ops->comm_create(b, &cp, &rs->comm, err, errlen);
        if (rc != CV_OK) {
            rs->comm = NULL;
            return rc;
        }
        if (!rs->comm->ops->run || !rs->comm->ops->buf_alloc) {
            rs_drop_comm(rs, false);
            return cv_err(err, errlen, CV_EUNSUPPORTED,
                          "the %s backend's communicator cannot run a measurement",
                          b->ops->name);
        }
        rs->nranks = W;
        rs->within_node = within_node;
    }
    rs->comm->timeout_s = timeout_s;
    *out = rs->comm;
    return CV_OK;
}

/* Ranks that are processes never stop alone (see the top): their task has no cancel. */
static bool task_cancelled(struct run_task *t)
{
    if (t->stop) return true;
    if (t->c->self >= 0) return false;
    atomic_fetch_add(&t->readers, 1);
    volatile int *flag = atomic_load(&t->cancel);
    bool set = flag && *flag;
    atomic_fetch_sub(&t->readers, 1);
    if (set) t->stop = 1;
    return set;
}

/* comm_job.cancelled */
static bool job_cancelled(void *ctx)
{
    return task_cancelled(ctx);
}

/* Before the call returns: no rank reads the caller's flag from now on. A reader that
 * loaded the pointer before it was withdrawn is counted in `readers` until it is done;
 * one that comes later loads NULL (sequentially consistent atomics). */
static void task_withdraw_cancel(struct run_task *t)
{
    atomic_store(&t->cancel, NULL);
    while (atomic_load(&t->readers) > 0)
        sched_yield();
}

/* ---- plans --------------------------------------------------------------------------- */

/* Job i of task t: the plan of algorithm a, refined as asked; or the library's own
 * collective (native, or a backend that picks its own algorithm). */
static int task_add_job(struct run_task *t, const struct bench_params *bp, unsigned caps,
                        enum algo a, size_t count, int root, char *err, size_t errlen)
{
    int i = t->njobs;
    struct comm_job *j = &t->jobs[i];
    *j = (struct comm_job){.coll = bp->coll,
                           .op = bp->op,
                           .count = count,
                           .root = root,
                           .cancelled = job_cancelled,
                           .cancel_ctx = t};
    if (bp->native) {
        t->njobs++;
        return CV_OK;
    }
    int rc = plan_build_ring(&t->base[i], bp->coll, a, bp->op, t->W, count, root,
                             bp->ring_n ? bp->ring_order : NULL, err, errlen);
    if (rc != CV_OK) return rc;
    if (caps & BACKEND_CAP_OWN_ALGO) {
        j->plan = &t->base[i];
        t->njobs++;
        return CV_OK;
    }
    int slices = bp->slices > 0
                     ? bp->slices
                     : plan_auto_slices(&t->base[i], t->c->slice_bytes,
                                        /* ranks in one memory: a shared step spreads */
                                        t->c->self < 0 ? plan_min_pieces(&t->base[i]) : 1);
    int channels = bp->channels > 0 ? bp->channels : 1;
    rc = plan_refine(&t->base[i], slices, channels, &t->plan[i], err, errlen);
    if (rc != CV_OK) {
        plan_free(&t->base[i]);
        return rc;
    }
    j->plan = &t->plan[i];
    t->njobs++;
    return CV_OK;
}

static struct run_task *task_new(enum task_kind kind, struct run_state *rs, struct comm *c,
                                 int W)
{
    struct run_task *t = xcalloc(1, sizeof *t);
    t->kind = kind;
    t->rs = rs;
    t->c = c;
    t->W = W;
    t->stall_rank = -1;
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->refs = 1;
    return t;
}

static int task_prepare(struct run_task *t, char *err, size_t errlen)
{
    for (int i = 0; i < t->njobs; i++) {
        if (!t->c->ops->prepare) continue;
        int rc = t->c->ops->prepare(t->c, &t->jobs[i]);
        if (rc != CV_OK) {
            const char *e = t->c->ops->last_error ? t->c->ops->last_error(t->c) : "";
            return cv_err(err, errlen, rc, "preparing the plan failed%s%s", e && *e ? ": " : "",
                          e ? e : "");
        }
    }
    return CV_OK;
}

static void task_free(struct run_task *t)
{
    for (int i = 0; i < t->njobs; i++) {
        if (t->c->ops->unprepare && t->jobs[i].prep) t->c->ops->unprepare(t->c, &t->jobs[i]);
        plan_free(&t->plan[i]);
        plan_free(&t->base[i]);
    }
    if (t->abandoned) {
        for (int r = 0; r < CV_MAX_RANKS; r++)
            if (t->buf[r]) t->c->ops->buf_free(t->c, r, t->buf[r]);
        t->c->ops->destroy(t->c);
    }
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    free(t);
}

/* Drop one reference; the last one frees the task. */
static void task_unref(struct run_task *t)
{
    pthread_mutex_lock(&t->mu);
    bool last = --t->refs == 0;
    pthread_mutex_unlock(&t->mu);
    if (last) task_free(t);
}

/* ---- one rank ------------------------------------------------------------------------ */

/* A rank that sees the cancel flag stops every rank: the others would wait for it. */
static int rank_cancel(struct run_task *t)
{
    if (t->c->self < 0) t->c->ops->abort(t->c, "cancelled");
    return CV_ECANCELLED;
}

/* Rank r's buffer, grown if too small: the task's (see the top), touched by rank r only. */
static int rank_buffer(struct run_task *t, int r, float **out)
{
    struct comm *c = t->c;
    size_t len = t->work_len ? t->work_len : 1;
    if (t->cap[r] < len) {
        float *old = t->buf[r];
        t->buf[r] = NULL;
        t->cap[r] = 0;
        if (old) c->ops->buf_free(c, r, old);
        float *nb = NULL;
        int rc = c->ops->buf_alloc(c, r, len, &nb);
        if (rc != CV_OK) {
            if (nb) c->ops->buf_free(c, r, nb);
            return rc;
        }
        t->buf[r] = nb;
        t->cap[r] = len;
    }
    *out = t->buf[r];
    return CV_OK;
}

/* The working buffer: zero, with rank r's input (the test pattern, or send[r]) in place;
 * out of place, the working buffer all zero and the input in the send part. */
static int rank_fill(struct run_task *t, int r, float *buf, const struct comm_job *j)
{
    struct comm *c = t->c;
    size_t in = t->oop ? t->send_off : coll_in_off(j->coll, t->W, j->count, r);
    size_t ns = coll_send_count(j->coll, t->W, j->count, r, j->root);
    size_t piece = t->work_len < RUN_CHUNK ? t->work_len : RUN_CHUNK;
    float *host = xmalloc((piece ? piece : 1) * sizeof(float));
    int rc = CV_OK;
    for (size_t off = 0; off < t->work_len && rc == CV_OK; off += piece) {
        size_t n = t->work_len - off < piece ? t->work_len - off : piece;
        for (size_t i = 0; i < n; i++) {
            size_t e = off + i;
            if (e < in || e >= in + ns)
                host[i] = 0.0f;
            else if (t->send)
                host[i] = t->send[r][e - in];
            else
                host[i] = pattern_value(j->op, r, e - in);
        }
        rc = c->ops->put(c, r, buf, off, host, n);
        if (rc == CV_OK && task_cancelled(t)) rc = rank_cancel(t);
    }
    free(host);
    return rc;
}

static int rank_sync(struct run_task *t, int r)
{
    return t->c->ops->sync ? t->c->ops->sync(t->c, r) : CV_OK;
}

/* One run of job j: in place on buf, or out of place from its send part. */
static int rank_run(struct run_task *t, int r, const struct comm_job *j, float *buf)
{
    if (t->oop) return t->c->ops->run_oop(t->c, r, j, buf + t->send_off, buf);
    return t->c->ops->run(t->c, r, j, buf);
}

/* warmup runs, then the timed ones between barriers; *secs = this rank's time per run. */
static int rank_timed(struct run_task *t, int r, float *buf, const struct comm_job *j,
                      int warmup, int iters, double *secs)
{
    struct comm *c = t->c;
    int rc = CV_OK;
    for (int i = 0; i < warmup && rc == CV_OK; i++) {
        if (task_cancelled(t)) return rank_cancel(t);
        atomic_fetch_add(&t->entered[r], 1);
        rc = rank_run(t, r, j, buf);
    }
    if (rc == CV_OK) rc = rank_sync(t, r);
    if (rc == CV_OK && iters > 0) rc = c->ops->barrier(c, r);
    if (rc != CV_OK || iters == 0) return rc;
    if (r == t->stall_rank && t->stall_s > 0) {
        /* Test seam: a rank that stops answering (it does not look at aborts). */
        struct timespec ts = {(time_t)t->stall_s,
                              (long)((t->stall_s - (double)(time_t)t->stall_s) * 1e9)};
        nanosleep(&ts, NULL);
    }
    double t0 = now_s();
    for (int i = 0; i < iters && rc == CV_OK; i++) {
        if (task_cancelled(t)) return rank_cancel(t);
        atomic_fetch_add(&t->entered[r], 1);
        rc = rank_run(t, r, j, buf);
    }
    if (rc == CV_OK) rc = rank_sync(t, r);
    if (rc == CV_OK) rc = c->ops->barrier(c, r);
    *secs = (now_s() - t0) / iters; /* per operation, as bench_result.time_us says */
    return rc;
}

#ifdef CV_TEST_HOOKS
/* Test hook, compiled only into the test builds (`make test` adds -DCV_TEST_HOOKS to its
 * ASan+UBSan builds; the program `make` builds and `make install` installs never has it,
 * and install refuses a binary carrying the marker below). With CV_TEST_CORRUPT=RANK:ELEM
 * in the environment, element ELEM of rank RANK's checked result is changed (+1) before it
 * is counted, so #wrong must come out as exactly 1: the tests see the check fail, through
 * `collviz bench` and through the visualizer's panel alike. */
__attribute__((used)) static const char cv_test_hooks_marker[] = "collviz-test-hooks:built-in";

static size_t test_corrupt_elem(int rank)
{
    const char *e = getenv("CV_TEST_CORRUPT");
    int r;
    size_t j;
    if (!e || sscanf(e, "%d:%zu", &r, &j) != 2 || r != rank) return SIZE_MAX;
    return j;
}
#endif

/* Elements of rank r's result that differ from the pattern's expected values. */
static int rank_count_wrong(struct run_task *t, int r, const float *buf,
                            const struct comm_job *j, long *wrong)
{
    struct comm *c = t->c;
    size_t out = coll_out_off(j->coll, t->W, j->count, r);
    size_t nr = coll_recv_count(j->coll, t->W, j->count, r, j->root);
    size_t piece = nr < RUN_CHUNK ? nr : RUN_CHUNK;
    float *host = xmalloc((piece ? piece : 1) * sizeof(float));
#ifdef CV_TEST_HOOKS
    size_t corrupt = test_corrupt_elem(r);
#endif
    long n_wrong = 0;
    int rc = CV_OK;
    for (size_t off = 0; off < nr && rc == CV_OK; off += piece) {
        size_t n = nr - off < piece ? nr - off : piece;
        rc = c->ops->get(c, r, buf, out + off, host, n);
        for (size_t i = 0; rc == CV_OK && i < n; i++) {
            float v = host[i];
#ifdef CV_TEST_HOOKS
            if (off + i == corrupt) v += 1.0f;
#endif
            float want = pattern_expected(j->coll, j->op, t->W, j->count, j->root, r, off + i);
            if (!kernel_pattern_matches(v, want, t->tol)) n_wrong++;
        }
        if (rc == CV_OK && task_cancelled(t)) rc = rank_cancel(t);
    }
    free(host);
    *wrong = n_wrong;
    return rc;
}

static int rank_work(struct run_task *t, int r)
{
    struct comm *c = t->c;
    float *buf;
    /* Failed before this rank asked: buf_alloc's own refusal (which says why in
     * last_error) is then not what failed. */
    bool failed_before = comm_failed(c);
    int rc = rank_buffer(t, r, &buf);
    if (rc != CV_OK) {
        /* After another rank's abort the failure is its echo, not a want of memory. */
        if (failed_before) return CV_EBACKEND;
        if (c->self < 0) c->ops->abort(c, "a rank could not allocate its working buffer");
        return rc;
    }
    const struct comm_job *j = &t->jobs[0];
    switch (t->kind) {
    case TASK_SMALL: {
        if ((rc = rank_fill(t, r, buf, j)) != CV_OK) return rc;
        if ((rc = c->ops->run(c, r, j, buf)) != CV_OK) return rc;
        if ((rc = rank_sync(t, r)) != CV_OK) return rc;
        size_t nr = coll_recv_count(j->coll, t->W, j->count, r, j->root);
        return nr ? c->ops->get(c, r, buf, coll_out_off(j->coll, t->W, j->count, r), t->recv[r],
                                nr)
                  : CV_OK;
    }
    case TASK_TRIAL: {
        /* Every algorithm of a collective has the same working buffer (coll_work_len). */
        if ((rc = rank_fill(t, r, buf, j)) != CV_OK) return rc;
        for (int i = 0; i < t->njobs; i++)
            t->secs[r][i] = INFINITY;
        for (int round = 0; round < RUN_TRIAL_ROUNDS; round++)
            for (int i = 0; i < t->njobs; i++) {
                double s = 0;
                if ((rc = rank_timed(t, r, buf, &t->jobs[i], 1, t->iters, &s)) != CV_OK)
                    return rc;
                if (s < t->secs[r][i]) t->secs[r][i] = s;
            }
        return CV_OK;
    }
    case TASK_MEASURE:
        if ((rc = rank_fill(t, r, buf, j)) != CV_OK) return rc;
        if ((rc = rank_timed(t, r, buf, j, t->warmup, t->iters, &t->secs[r][0])) != CV_OK)
            return rc;
        t->wrong[r] = -1;
        if (!t->check) return CV_OK;
        /* In-place iterations changed the values; check one run from fresh inputs (out of
         * place too: the result area is zeroed, so an old right answer cannot pass). */
        if ((rc = rank_fill(t, r, buf, j)) != CV_OK) return rc;
        if ((rc = rank_run(t, r, j, buf)) != CV_OK) return rc;
        if ((rc = rank_sync(t, r)) != CV_OK) return rc;
        return rank_count_wrong(t, r, buf, j, &t->wrong[r]);
    }
    return CV_EINVAL;
}

static void *rank_main(void *arg)
{
    struct rank_arg *a = arg;
    struct run_task *t = a->t;
    int r = a->rank;
    free(a);
    int rc = rank_work(t, r);
    if (rc != CV_OK && !comm_failed(t->c)) {
        /* The others would wait for this rank at their next exchange. */
        char why[64];
        snprintf(why, sizeof why, "rank %d failed (status %d)", r, rc);
        t->c->ops->abort(t->c, why);
    }
    /* Done and the reference dropped at once: once every rank is done, the coordinator
     * holds the last reference, so the task (and what it prepared on the communicator)
     * is freed on its thread before the communicator can change. Only a rank given up on
     * frees it late, on a communicator that is never destroyed. */
    pthread_mutex_lock(&t->mu);
    t->rc[r] = rc;
    t->done[r] = true;
    t->ndone++;
    bool last = --t->refs == 0;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    if (last) task_free(t);
    return NULL;
}

/* ---- the coordinator ----------------------------------------------------------------- */

static void abs_time(struct timespec *ts, double s)
{
    clock_gettime(CLOCK_REALTIME, ts);
    double ns = (double)ts->tv_nsec + s * 1e9;
    ts->tv_sec += (time_t)(ns / 1e9);
    ts->tv_nsec = (long)fmod(ns, 1e9);
}

/* The status of the whole task from the ranks': a cancel wins, then the first failure that
 * is not the echo of another's abort. */
static int task_status(struct run_task *t, int nr)
{
    if (task_cancelled(t)) return CV_ECANCELLED;
    int worst = CV_OK;
    for (int r = 0; r < nr; r++) {
        int rc = t->rc[r];
        if (rc == CV_OK) continue;
        if (worst == CV_OK || worst == CV_EBACKEND) worst = rc;
    }
    return worst;
}

static int task_error(struct run_task *t, int rc, const char *lost, char *err, size_t errlen)
{
    if (rc == CV_ECANCELLED) return cv_err(err, errlen, rc, "cancelled");
    const char *e = t->c->ops->last_error ? t->c->ops->last_error(t->c) : "";
    if (rc == CV_ENOMEM && !(e && *e))
        return cv_err(err, errlen, rc, "a rank could not allocate its working buffer");
    return cv_err(err, errlen, rc, "%s%s%s", e && *e ? e : "the run failed", *lost ? "; " : "",
                  lost);
}

/* "rank 2 was behind the others (had started 1 run, they up to 2)", when the communicator
 * failed while fewer than half the ranks had started fewer runs than the rest (a rank
 * that held the others up); "" otherwise (a deadline too short for anyone, say). */
static void task_laggards(const struct run_task *t, char *buf, size_t n)
{
    buf[0] = '\0';
    int lo = INT32_MAX, hi = 0;
    for (int r = 0; r < t->W; r++) {
        if (t->entered_at_failure[r] < lo) lo = t->entered_at_failure[r];
        if (t->entered_at_failure[r] > hi) hi = t->entered_at_failure[r];
    }
    if (t->W < 2 || hi == lo) return;
    char who[64] = "";
    int k = 0;
    for (int r = 0; r < t->W; r++)
        if (t->entered_at_failure[r] == lo) {
            size_t l = strlen(who);
            snprintf(who + l, sizeof who - l, "%s%d", k ? ", " : "", r);
            k++;
        }
    if (2 * k >= t->W) return;
    snprintf(buf, n, "rank%s %s %s behind the others (had started %d run%s, they up to %d)",
             k > 1 ? "s" : "", who, k > 1 ? "were" : "was", lo, lo == 1 ? "" : "s", hi);
}

/* The run state's buffers become the task's (before any rank starts) ... */
static void task_take_buffers(struct run_task *t)
{
    struct run_state *rs = t->rs;
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        t->buf[r] = rs->buf[r];
        t->cap[r] = rs->cap[r];
        rs->buf[r] = NULL;
        rs->cap[r] = 0;
    }
}

/* ... and go back once every rank is done with them (never for a task given up on). */
static void task_give_back_buffers(struct run_task *t)
{
    struct run_state *rs = t->rs;
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        rs->buf[r] = t->buf[r];
        rs->cap[r] = t->cap[r];
        t->buf[r] = NULL;
        t->cap[r] = 0;
    }
}

static int task_run_ranks(struct run_task *t, char *err, size_t errlen);

/* Run task t on its ranks; returns the combined status, err says why on failure. On return
 * the task may only be read (not freed) by the caller, who drops its reference. */
static int task_run(struct run_task *t, char *err, size_t errlen)
{
    int rc = task_prepare(t, err, errlen);
    if (rc != CV_OK) return rc;
    task_take_buffers(t);
    rc = task_run_ranks(t, err, errlen);
    if (!t->abandoned) task_give_back_buffers(t);
    return rc;
}

static int task_run_ranks(struct run_task *t, char *err, size_t errlen)
{
    struct comm *c = t->c;
    int rc;
    if (c->self >= 0) {
        /* This process is one rank: every process runs the same calls. */
        int r = c->self;
        rc = rank_work(t, r);
        t->rc[r] = rc;
        double worst = rc;
        if (c->ops->proc_max && c->ops->proc_max(c, &worst) != CV_OK && rc == CV_OK)
            rc = CV_EBACKEND;
        if (rc == CV_OK && worst != CV_OK)
            return cv_err(err, errlen, (int)worst, "another rank of the job failed the run");
        if (rc != CV_OK) return task_error(t, rc, "", err, errlen);
        return CV_OK;
    }
    int started = 0;
    for (int r = 0; r < t->W; r++) {
        struct rank_arg *a = xcalloc(1, sizeof *a);
        a->t = t;
        a->rank = r;
        pthread_mutex_lock(&t->mu);
        t->refs++;
        pthread_mutex_unlock(&t->mu);
        pthread_t th;
        if (pthread_create(&th, NULL, rank_main, a) != 0) {
            free(a);
            pthread_mutex_lock(&t->mu);
            t->refs--;
            t->rc[r] = CV_EBACKEND;
            t->done[r] = true;
            t->ndone++;
            pthread_mutex_unlock(&t->mu);
            c->ops->abort(c, "cannot start a rank thread");
            continue;
        }
        pthread_detach(th);
        started++;
    }
    (void)started;
    bool cancel_sent = false;
    double aborted_at = 0;
    pthread_mutex_lock(&t->mu);
    while (t->ndone < t->W) {
        struct timespec ts;
        abs_time(&ts, RUN_POLL_S);
        pthread_cond_timedwait(&t->cv, &t->mu, &ts);
        if (t->ndone == t->W) break;
        pthread_mutex_unlock(&t->mu);
        if (!cancel_sent && task_cancelled(t)) {
            c->ops->abort(c, "cancelled");
            cancel_sent = true;
        }
        if (aborted_at == 0 && comm_failed(c)) {
            aborted_at = now_s();
            for (int r = 0; r < t->W; r++)
                t->entered_at_failure[r] = atomic_load(&t->entered[r]);
        }
        pthread_mutex_lock(&t->mu);
        if (aborted_at > 0 && now_s() - aborted_at > RUN_GRACE_S) break;
    }
    char lost[96] = "";
    int nlost = 0;
    for (int r = 0; r < t->W; r++)
        if (!t->done[r]) {
            size_t l = strlen(lost);
            snprintf(lost + l, sizeof lost - l, "%s%d", nlost ? ", " : "", r);
            nlost++;
        }
    pthread_mutex_unlock(&t->mu);
    if (nlost) {
        /* Given up on: the stalled threads keep the communicator, the task and their
         * buffers until they return; the next call makes a new communicator. */
        char what[160];
        snprintf(what, sizeof what,
                 "rank%s %s stalled (no answer %.0f s after the abort; given up on)",
                 nlost > 1 ? "s" : "", lost, RUN_GRACE_S);
        struct run_state *rs = t->rs;
        rs->abandoned++;
        pthread_mutex_lock(&t->mu);
        t->abandoned = true; /* the task keeps the buffers: task_free frees them */
        pthread_mutex_unlock(&t->mu);
        rs_drop_comm(rs, true);
        rc = task_cancelled(t) ? CV_ECANCELLED : CV_ETIMEOUT;
        task_withdraw_cancel(t);
        t->stop = 1;
        return task_error(t, rc, what, err, errlen);
    }
    rc = task_status(t, t->W);
    if (rc == CV_OK) return CV_OK;
    char behind[160] = "";
    if (rc == CV_ETIMEOUT && aborted_at > 0) task_laggards(t, behind, sizeof behind);
    return task_error(t, rc, behind, err, errlen);
}

/* ---- measure ------------------------------------------------------------------------- */

static int size_bucket(size_t bytes)
{
    int b = 0;
    while (bytes > 1 && b < RUN_AUTO_BUCKETS - 1) {
        bytes >>= 1;
        b++;
    }
    return b;
}

/* The slowest rank's time (over processes too). */
static int task_max_secs(struct run_task *t, int i, double *out)
{
    struct comm *c = t->c;
    double worst = 0;
    if (c->self >= 0) {
        worst = t->secs[c->self][i];
        if (c->ops->proc_max && c->ops->proc_max(c, &worst) != CV_OK) return CV_EBACKEND;
    } else {
        for (int r = 0; r < t->W; r++)
            if (t->secs[r][i] > worst) worst = t->secs[r][i];
    }
    *out = worst;
    return CV_OK;
}

/* Refuse, before allocating, buffers this machine's memory cannot hold (host memory; a GPU
 * communicator checks its device's in buf_alloc). */
static int check_memory(struct backend *b, struct run_state *rs, const struct bench_params *bp,
                        size_t work_len, int W, char *err, size_t errlen)
{
    if (b->ops->caps & BACKEND_CAP_GPU) return CV_OK;
    int local = W;
    if (rs->comm && rs->comm->self >= 0) local = b->ops->node_ranks ? b->ops->node_ranks(b) : 1;
    if (work_len > SIZE_MAX / sizeof(float) / (size_t)(local ? local : 1))
        return cv_err(err, errlen, CV_ENOMEM, "%s on %d ranks: buffer size overflows",
                      coll_name(bp->coll), W);
    double need = (double)local * (double)work_len * sizeof(float);
    double held = 0;
    for (int r = 0; r < CV_MAX_RANKS; r++)
        held += (double)rs->cap[r] * sizeof(float); /* freed or reused */
    char s[32];
    format_size(bp->bytes, s, sizeof s);
    return mem_check(need > held ? need - held : 0, err, errlen, "%s %s on %d ranks%s", s,
                     coll_name(bp->coll), W, held > 0 ? " (beyond the buffers it holds)" : "");
}

/* algo_auto: a short trial of every algorithm the collective has, at the real size; the
 * winner is kept for the collective, rank count and size (within a power of two). */
static int pick_algo(struct backend *b, struct run_state *rs, struct comm *c,
                     const struct bench_params *bp, size_t count, int root,
                     volatile int *cancel, enum algo *out, int *ntried, char *err,
                     size_t errlen)
{
    signed char *cached = &rs->auto_pick[bp->coll][bp->nranks][size_bucket(bp->bytes)];
    *ntried = 0;
    if (*cached >= 0) {
        *out = (enum algo) * cached;
        return CV_OK;
    }
    struct run_task *t = task_new(TASK_TRIAL, rs, c, bp->nranks);
    t->cancel = cancel;
    t->iters = bp->iters < RUN_TRIAL_ITERS ? bp->iters : RUN_TRIAL_ITERS;
    t->work_len = coll_work_len(bp->coll, bp->nranks, count);
    enum algo algos[ALGO_COUNT];
    int rc = CV_OK;
    for (int a = 0; a < ALGO_COUNT && rc == CV_OK; a++)
        if (algo_supported(bp->coll, (enum algo)a)) {
            algos[t->njobs] = (enum algo)a;
            rc = task_add_job(t, bp, b->ops->caps, (enum algo)a, count, root, err, errlen);
        }
    if (rc == CV_OK && t->njobs == 0)
        rc = cv_err(err, errlen, CV_EUNSUPPORTED, "%s has no algorithm", coll_name(bp->coll));
    if (rc == CV_OK && t->njobs == 1) {
        *out = algos[0];
        *ntried = 1;
        task_unref(t);
        return CV_OK;
    }
    if (rc == CV_OK) rc = task_run(t, err, errlen);
    int win = 0;
    double best = INFINITY;
    for (int i = 0; rc == CV_OK && i < t->njobs; i++) {
        double s;
        if ((rc = task_max_secs(t, i, &s)) != CV_OK)
            cv_err(err, errlen, rc, "combining the trial's times failed");
        else if (s < best) {
            best = s;
            win = i;
        }
    }
    if (rc == CV_OK) {
        *out = algos[win];
        *ntried = t->njobs;
        *cached = (signed char)algos[win];
    }
    task_unref(t);
    return rc;
}

/* "4 CPU threads" / "4 MPI processes" / "1 GPU". */
static void ranks_phrase(const struct comm *c, int W, bool within_node, char *buf, size_t n)
{
    const char *noun = c->ops->rank_noun ? c->ops->rank_noun : "rank";
    size_t l = strlen(noun);
    const char *plural = W == 1 ? "" : (l && noun[l - 1] == 's') ? "es" : "s";
    snprintf(buf, n, "%d %s%s%s", W, noun, plural, within_node ? " of 1 node" : "");
}

static void fill_result(struct backend *b, const struct comm *c, const struct bench_params *bp,
                        const struct comm_job *j, enum algo a, int ntried, size_t count,
                        double t, long wrong, struct bench_result *res)
{
    int W = bp->nranks;
    size_t S = coll_bytes(bp->coll, W, count, sizeof(float));
    memset(res, 0, sizeof *res);
    res->bytes = S;
    res->count = S / sizeof(float);
    res->time_us = t * 1e6;
    res->algbw = t > 0 ? (double)S / t / 1e9 : 0.0;
    res->busbw = res->algbw * coll_busbw_factor(bp->coll, W);
    res->wrong = wrong;
    res->nranks = W;
    bool own = !j->plan || (b->ops->caps & BACKEND_CAP_OWN_ALGO);
    snprintf(res->algo, sizeof res->algo, "%s", own ? b->ops->name : algo_name(a));
    const struct plan *p = j->plan;
    res->slices = own ? 0 : p->nslices;
    res->channels = own ? 0 : p->nchannels;
    char who[48], what[64], autohow[48] = "";
    ranks_phrase(c, W, bp->within_node, who, sizeof who);
    if (own)
        snprintf(what, sizeof what, "%s's own collective", b->ops->name);
    else if (p->nchannels > 1)
        snprintf(what, sizeof what, "%s plan, %d slices x %d channels", algo_name(a),
                 p->nslices, p->nchannels);
    else
        snprintf(what, sizeof what, "%s plan, %d slice%s", algo_name(a), p->nslices,
                 p->nslices == 1 ? "" : "s");
    if (bp->algo_auto && !own) {
        if (ntried > 1)
            snprintf(autohow, sizeof autohow, "; auto: %s won a trial of %d", algo_name(a),
                     ntried);
        else if (ntried == 1)
            snprintf(autohow, sizeof autohow, "; auto: %s (the only one)", algo_name(a));
        else
            snprintf(autohow, sizeof autohow, "; auto: %s (earlier trial)", algo_name(a));
    }
    char how[256];
    snprintf(how, sizeof how, "%s, %s, %d iters after %d warm-up%s", who, what, bp->iters,
             bp->warmup, autohow);
    /* Fits unless the counts run to millions; then the tail is cut. */
    size_t hl = strlen(how) < sizeof res->how ? strlen(how) : sizeof res->how - 1;
    memcpy(res->how, how, hl);
    res->how[hl] = '\0';
}

int backend_check_measure(struct backend *b, const struct bench_params *bp, char *err,
                          size_t errlen)
{
    int W = bp->nranks;
    int maxr = b->ops->max_ranks ? b->ops->max_ranks(b) : CV_MAX_RANKS;
    if (!(b->ops->caps & BACKEND_CAP_PROCESSES) && (W < 1 || W > maxr))
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the %s backend runs 1..%d", W,
                      b->ops->name, maxr);
    if (W < 1 || W > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: need 1..%d", W, CV_MAX_RANKS);
    size_t count = coll_count_for_bytes(bp->coll, W, bp->bytes, sizeof(float));
    if (count == 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "%zu B is less than one float per rank for %s on %d ranks", bp->bytes,
                      coll_name(bp->coll), W);
    return check_memory(b, run_state_of(b), bp, coll_work_len(bp->coll, W, count), W, err,
                        errlen);
}

int backend_measure(struct backend *b, const struct bench_params *bp, struct bench_result *res,
                    volatile int *cancel, char *err, size_t errlen)
{
    int W = bp->nranks;
    int maxr = b->ops->max_ranks ? b->ops->max_ranks(b) : CV_MAX_RANKS;
    if (!(b->ops->caps & BACKEND_CAP_PROCESSES) && (W < 1 || W > maxr))
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the %s backend runs 1..%d", W,
                      b->ops->name, maxr);
    if (bp->iters < 1 || bp->warmup < 0)
        return cv_err(err, errlen, CV_EINVAL, "iterations %d / warm-up %d: need >= 1 / >= 0",
                      bp->iters, bp->warmup);
    if (bp->native && !(b->ops->caps & BACKEND_CAP_NATIVE_COLL))
        return cv_err(err, errlen, CV_EUNSUPPORTED,
                      "the %s backend has no collectives of its own", b->ops->name);
    if (cancel && *cancel) return cv_err(err, errlen, CV_ECANCELLED, "cancelled");
    size_t count = coll_count_for_bytes(bp->coll, W, bp->bytes, sizeof(float));
    if (count == 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "%zu B is less than one float per rank for %s on %d ranks", bp->bytes,
                      coll_name(bp->coll), W);
    int root = coll_is_rooted(bp->coll) ? bp->root : 0;
    if (root < 0 || root >= W)
        return cv_err(err, errlen, CV_EINVAL, "root %d: no such rank of %d", root, W);
    double tmo = bp->timeout_s > 0 ? bp->timeout_s : RUN_DEFAULT_TIMEOUT_S;
    struct run_state *rs = run_state_of(b);
    size_t work_len = coll_work_len(bp->coll, W, count), send_off = 0;
    if (bp->out_of_place) {
        size_t most = 0; /* the largest send buffer of any rank (the root's, rooted) */
        for (int r = 0; r < W; r++) {
            size_t ns = coll_send_count(bp->coll, W, count, r, root);
            if (ns > most) most = ns;
        }
        send_off = (work_len + 63) & ~(size_t)63; /* 256-byte aligned, as cudaMalloc's */
        work_len = send_off + most;
    }
    int rc = check_memory(b, rs, bp, work_len, W, err, errlen);
    if (rc != CV_OK) return rc;
    struct comm *c;
    if ((rc = run_comm(b, W, bp->within_node, tmo, &c, err, errlen)) != CV_OK) return rc;
    if (bp->out_of_place && !c->ops->run_oop)
        return cv_err(err, errlen, CV_EUNSUPPORTED, "the %s backend runs in place only",
                      b->ops->name);

    enum algo a = bp->algo;
    int ntried = 0;
    bool own = bp->native || (b->ops->caps & BACKEND_CAP_OWN_ALGO);
    if (bp->algo_auto) a = coll_default_algo(bp->coll);
    if (bp->algo_auto && !own &&
        (rc = pick_algo(b, rs, c, bp, count, root, cancel, &a, &ntried, err, errlen)) != CV_OK)
        return rc;
    if (rs->comm != c && (rc = run_comm(b, W, bp->within_node, tmo, &c, err, errlen)) != CV_OK)
        return rc;

    struct run_task *t = task_new(TASK_MEASURE, rs, c, W);
    t->cancel = cancel;
    t->warmup = bp->warmup;
    t->iters = bp->iters;
    t->check = bp->check;
    t->tol =
        bp->op == OP_AVG && !(b->ops->caps & BACKEND_CAP_EXACT_REDUCTION) ? RUN_AVG_TOL : 0;
    t->work_len = work_len;
    t->oop = bp->out_of_place;
    t->send_off = send_off;
    t->stall_rank = rs->stall_rank;
    t->stall_s = rs->stall_s;
    rc = task_add_job(t, bp, b->ops->caps, a, count, root, err, errlen);
    if (rc == CV_OK) rc = task_run(t, err, errlen);
    double secs = 0;
    long wrong = -1;
    if (rc == CV_OK && (rc = task_max_secs(t, 0, &secs)) != CV_OK)
        cv_err(err, errlen, rc, "combining the ranks' times failed");
    if (rc == CV_OK && bp->check) {
        if (c->self >= 0) {
            double w = (double)t->wrong[c->self];
            if (c->ops->proc_sum && c->ops->proc_sum(c, &w, 1, COMM_PROC_F64) != CV_OK)
                rc = cv_err(err, errlen, CV_EBACKEND, "combining the ranks' checks failed");
            wrong = (long)w;
        } else {
            wrong = 0;
            for (int r = 0; r < W; r++)
                wrong += t->wrong[r];
        }
    }
    if (rc == CV_OK) fill_result(b, c, bp, &t->jobs[0], a, ntried, count, secs, wrong, res);
    task_unref(t);
    return rc;
}

/* ---- display scale ------------------------------------------------------------------- */

int backend_run_small(struct backend *b, const struct plan *p, float *const *send, float **recv,
                      char *err, size_t errlen)
{
    int W = p->nranks;
    int maxr = b->ops->max_ranks ? b->ops->max_ranks(b) : CV_MAX_RANKS;
    if (!(b->ops->caps & BACKEND_CAP_PROCESSES) && (W < 1 || W > maxr))
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the %s backend runs 1..%d", W,
                      b->ops->name, maxr);
    struct run_state *rs = run_state_of(b);
    struct comm *c;
    int rc = run_comm(b, W, false, RUN_DEFAULT_TIMEOUT_S, &c, err, errlen);
    if (rc != CV_OK) return rc;
    struct run_task *t = task_new(TASK_SMALL, rs, c, W);
    t->send = send;
    t->recv = recv;
    t->work_len = coll_work_len(p->coll, W, p->count);
    struct comm_job *j = &t->jobs[0];
    *j = (struct comm_job){.coll = p->coll,
                           .op = p->op,
                           .count = p->count,
                           .root = p->root,
                           .cancelled = job_cancelled,
                           .cancel_ctx = t};
    t->njobs = 1;
    /* A plan refined already (slices, channels, dependencies) runs as it is; a plain one
     * as whole chunks. */
    if (p->order || (b->ops->caps & BACKEND_CAP_OWN_ALGO))
        j->plan = p;
    else if ((rc = plan_refine(p, 1, 1, &t->plan[0], err, errlen)) == CV_OK)
        j->plan = &t->plan[0];
    if (rc == CV_OK) rc = task_run(t, err, errlen);
    if (rc == CV_OK && c->self >= 0) {
        /* Every process gets every rank's result (display scale: a few floats). */
        for (int r = 0; r < W && rc == CV_OK; r++) {
            size_t n = coll_recv_count(p->coll, W, p->count, r, p->root);
            if (n && c->ops->proc_bcast(c, recv[r], n * sizeof(float), r) != CV_OK)
                rc = cv_err(err, errlen, CV_EBACKEND, "gathering rank %d's result failed", r);
        }
    }
    task_unref(t);
    return rc;
}

size_t backend_held_bytes(struct backend *b)
{
    struct run_state *rs = b->run;
    if (!rs) return 0;
    size_t n = 0;
    for (int r = 0; r < CV_MAX_RANKS; r++)
        n += rs->cap[r] * sizeof(float);
    if (rs->comm && rs->comm->ops->mem_bytes)
        for (int r = 0; r < rs->nranks; r++)
            if (rs->comm->self < 0 || rs->comm->self == r)
                n += rs->comm->ops->mem_bytes(rs->comm, r);
    return n;
}

void backend_test_stall(struct backend *b, int rank, double seconds)
{
    struct run_state *rs = run_state_of(b);
    rs->stall_rank = rank;
    rs->stall_s = seconds;
}

void backend_run_release(struct backend *b)
{
    struct run_state *rs = b->run;
    if (!rs) return;
    rs_drop_comm(rs, false);
    free(rs);
    b->run = NULL;
}
