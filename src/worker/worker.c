/* worker.c - the backend thread (redis bio.c's shape): the UI posts jobs to a locked
 * queue and sleeps in poll(); this thread runs them on the backend it owns and hands each
 * result back through a second locked queue plus one byte on a wake pipe.
 *
 * Results are copied out under the lock, so the UI never sees a half-written one. Jobs
 * are plain data. Cancelling drops the queued jobs and raises a flag that the backend's
 * measure() polls (the CPU ranks at every step, NCCL between iterations); the running job
 * then ends with CV_ECANCELLED.
 *
 * A remote worker (worker_connect) has no backend: posting sends a job message, cancelling
 * a cancel message, and a reader thread turns the job's result messages into the same
 * result queue and wake-up; a lost job (a lost message, the end of the stream, a malformed
 * frame) marks it lost. It counts the jobs it sent and not yet finished for worker_busy().
 * Every wait on the backend has a deadline (params.timeout_s, 30 s when 0), which the
 * backend enforces, so worker_stop() always returns.
 *
 * JOB_CHECK holds the backend's display-scale output against the trace: bit for bit where
 * the backend runs the same plan in the same order (CPU), within float rounding where it
 * reduces in an order of its own (NCCL), and the result says which of the two it was. */
#include "worker/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <poll.h>
#include <sys/socket.h>

#include "backend/run.h"
#include "core/plan.h"
#include "core/sweep.h"
#include "core/trace.h"
#include "core/util.h"
#include "records/reclinks.h"
#include "worker/proto.h"

#define WORKER_DEFAULT_TIMEOUT_S 30.0

struct worker_job {
    struct job job;
    struct worker_job *next;
};

struct worker_res {
    struct result res;
    struct worker_res *next;
};

struct worker {
    struct backend *b; /* local: the backend this thread owns; remote: NULL */
    struct worker_facts facts;
    pthread_t th; /* local: runs the jobs; remote: reads the job's messages */
    /* remote (worker_connect): the socket, jobs sent and not finished, the id below which a
     * cancel dropped the jobs, and why the job is gone */
    bool remote;
    int sock;
    int outstanding;
    uint64_t cancel_below;
    bool lost;
    char lost_why[240];
    bool report_dropped; /* serve: a cancel answers each dropped job with a result */
    worker_job_hook hook;
    void *hook_ctx;
    worker_agree_fn agree; /* jobs of several processes: a sweep's cancel, agreed */
    void *agree_ctx;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct worker_job *jhead, *jtail;
    struct worker_res *rhead, *rtail;
    uint64_t next_id;
    bool running;
    bool stopping;
    volatile int cancel; /* polled by the backend while it measures */
    int wake_rd, wake_wr;
};

/* ---- results ---------------------------------------------------------------------- */

static void worker_drain_pipe(struct worker *w)
{
    char buf[256];
    while (read(w->wake_rd, buf, sizeof buf) > 0) {
    }
}

static void worker_post_result(struct worker *w, const struct result *r)
{
    struct worker_res *n = xmalloc(sizeof *n);
    n->res = *r;
    n->next = NULL;
    pthread_mutex_lock(&w->mu);
    if (w->rtail)
        w->rtail->next = n;
    else
        w->rhead = n;
    w->rtail = n;
    if (r->last)
        w->running = false; /* a reader who sees the last result also sees an idle worker */
    /* One byte per result. If the pipe is full the reader has bytes pending anyway, so a
     * failed non-blocking write loses no wake-up. Under the lock, so the reader's drain
     * when the queue empties cannot race with it. */
    char one = 1;
    ssize_t unused = write(w->wake_wr, &one, 1);
    (void)unused;
    pthread_mutex_unlock(&w->mu);
}

static void worker_result_init(struct worker *w, const struct job *j, struct result *r)
{
    memset(r, 0, sizeof *r);
    r->job_id = j->id;
    r->kind = j->kind;
    r->status = CV_OK;
    r->last = true;
    if (j->kind == JOB_MEASURE) r->measure.wrong = -1;
    snprintf(r->backend, sizeof r->backend, "%s", w->facts.name);
}

void result_free(struct result *r)
{
    if (r->kind == JOB_TRAIN) {
        free(r->train.summary);
        r->train.summary = NULL;
    }
    if (r->kind == JOB_LIBLOG) {
        free(r->liblog.text);
        r->liblog.text = NULL;
    }
}

/* ---- jobs ------------------------------------------------------------------------- */

/* The CLI's limits on one measurement (bench's options: -n, -w, -T, -r, --slices,
 * --channels, a size up to 16 GiB), for a job from any side. `sized`: bytes is the job's. */
static int params_check(const struct bench_params *p, bool sized, char *err, size_t errlen)
{
    if ((unsigned)p->coll >= COLL_COUNT || (unsigned)p->algo >= ALGO_COUNT ||
        (unsigned)p->op >= OP_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "collective %d / algorithm %d / op %d: unknown",
                      (int)p->coll, (int)p->algo, (int)p->op);
    if (p->nranks < 1 || p->nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: need 1..%d", p->nranks, CV_MAX_RANKS);
    if (sized && (p->bytes == 0 || p->bytes > SWEEP_MAX_BYTES))
        return cv_err(err, errlen, CV_EINVAL, "size %zu B: need 1 B .. at most 16 GiB",
                      p->bytes);
    if (p->iters < 1 || p->iters > 1000000 || p->warmup < 0 || p->warmup > 1000000)
        return cv_err(err, errlen, CV_EINVAL,
                      "iterations %d / warm-up %d: need 1..1000000 / 0..1000000", p->iters,
                      p->warmup);
    if (!(p->timeout_s >= 0 && p->timeout_s <= 1e6)) /* 0: the default; NaN is refused */
        return cv_err(err, errlen, CV_EINVAL, "timeout %g s: need 0..1e6 (0: the default)",
                      p->timeout_s);
    if (p->root < 0 || (coll_is_rooted(p->coll) && p->root >= p->nranks))
        return cv_err(err, errlen, CV_EINVAL, "root %d: no such rank of %d", p->root,
                      p->nranks);
    if (p->slices < 0 || p->slices > PLAN_MAX_SLICES || p->channels < 0 || p->channels > 64)
        return cv_err(err, errlen, CV_EINVAL, "slices %d / channels %d: need 0..%d / 0..64",
                      p->slices, p->channels, PLAN_MAX_SLICES);
    if (p->ring_n < 0 || p->ring_n > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ring order of %d ranks", p->ring_n);
    return CV_OK;
}

int job_check(const struct job *j, char *err, size_t errlen)
{
    size_t n;
    switch (j->kind) {
    case JOB_MEASURE:
        return params_check(&j->measure.params, true, err, errlen);
    case JOB_SWEEP: {
        int rc = params_check(&j->sweep.params, false, err, errlen);
        if (rc != CV_OK) return rc;
        struct sweep sw = {.min = j->sweep.min, .max = j->sweep.max, .factor = j->sweep.factor};
        return sweep_check(&sw, &n, err, errlen);
    }
    case JOB_CHECK: { /* trace's --ranks, --count, --root */
        const struct job_check *c = &j->check;
        if ((unsigned)c->coll >= COLL_COUNT || (unsigned)c->algo >= ALGO_COUNT ||
            (unsigned)c->op >= OP_COUNT || (unsigned)c->init > INIT_RANDOM)
            return cv_err(err, errlen, CV_EINVAL,
                          "scene: unknown collective, algorithm, op "
                          "or inputs");
        if (c->nranks < 1 || c->nranks > CV_MAX_RANKS)
            return cv_err(err, errlen, CV_EINVAL, "scene: ranks %d: need 1..%d", c->nranks,
                          CV_MAX_RANKS);
        if (c->count < 1 || c->count > TRACE_MAX_ELEMS)
            return cv_err(err, errlen, CV_EINVAL, "scene: count %zu: need 1..%zu", c->count,
                          (size_t)TRACE_MAX_ELEMS);
        if (c->root < 0 || (coll_is_rooted(c->coll) && c->root >= c->nranks))
            return cv_err(err, errlen, CV_EINVAL, "scene: root %d: no such rank of %d", c->root,
                          c->nranks);
        return CV_OK;
    }
    case JOB_TRAIN:
        return train_config_check(&j->train.cfg, err, errlen);
    case JOB_MEMCPY:
        if (j->copy.bytes > SWEEP_MAX_BYTES || j->copy.reps < 0 || j->copy.reps > 1000)
            return cv_err(err, errlen, CV_EINVAL,
                          "memcpy %zu B x %d: need at most 16 GiB, 0..1000 times",
                          j->copy.bytes, j->copy.reps);
        return CV_OK;
    case JOB_LIBLOG:
        return CV_OK;
    }
    return cv_err(err, errlen, CV_EINVAL, "unknown job kind %d", (int)j->kind);
}

static void worker_fix_params(struct bench_params *p)
{
    if (p->timeout_s <= 0 || !isfinite(p->timeout_s)) p->timeout_s = WORKER_DEFAULT_TIMEOUT_S;
}

/* The flag a measurement polls: none for a job of several processes, where one process
 * cannot stop alone inside a size (the others would wait for it); a sweep of them stops
 * between sizes instead (worker_set_agree). */
static volatile int *worker_cancel_flag(struct worker *w)
{
    return w->facts.multiprocess ? NULL : &w->cancel;
}

static void worker_do_measure(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    struct bench_params p = j->measure.params;
    worker_fix_params(&p);
    r.status =
        backend_measure(w->b, &p, &r.measure, worker_cancel_flag(w), r.err, sizeof r.err);
    if (r.status == CV_OK)
        backend_links(w->b, p.nranks, rec_links_summary, r.measure.link, sizeof r.measure.link);
    worker_post_result(w, &r);
}

static void worker_do_liblog(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    if (backend_lib_log(w->b, &r.liblog.text, &r.liblog.len, r.liblog.src,
                        sizeof r.liblog.src) != 0)
        r.status = cv_err(r.err, sizeof r.err, CV_EUNAVAIL, "%s", r.liblog.src);
    worker_post_result(w, &r);
}

static void worker_do_sweep(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    struct sweep sw = {.min = j->sweep.min, .max = j->sweep.max, .factor = j->sweep.factor};
    r.sweep.total = 1;
    r.sweep.row.wrong = -1;
    if (!sweep_valid(&sw)) {
        r.status = cv_err(r.err, sizeof r.err, CV_EINVAL,
                          "sweep %zu..%zu B by x%g: need 0 < min <= max and factor > 1",
                          j->sweep.min, j->sweep.max, j->sweep.factor);
        worker_post_result(w, &r);
        return;
    }
    int total = (int)sweep_count(&sw);
    struct bench_params p = j->sweep.params;
    worker_fix_params(&p);
    /* The largest size's buffers are judged before the first size runs (in one process:
     * the ranks of a job of several could judge their nodes differently, and each size is
     * still judged as it comes). */
    p.bytes = j->sweep.max;
    if (!w->facts.multiprocess &&
        (r.status = backend_check_measure(w->b, &p, r.err, sizeof r.err)) != CV_OK) {
        r.last = true;
        worker_post_result(w, &r);
        return;
    }
    int index = 0;
    size_t s;
    for (bool more = sweep_first(&sw, &s); more; more = sweep_next(&sw, &s)) {
        worker_result_init(w, j, &r);
        r.sweep.index = index;
        r.sweep.total = total;
        r.sweep.row.wrong = -1;
        p.bytes = s;
        /* A job of several processes stops only where every process stops: between two
         * sizes, on rank 0's word (worker_set_agree); one that skipped a size alone would
         * leave the others waiting in it. */
        bool stop = w->facts.multiprocess
                        ? index > 0 && w->agree && w->agree(w->agree_ctx, w->cancel != 0)
                        : w->cancel != 0;
        if (stop)
            r.status = cv_err(r.err, sizeof r.err, CV_ECANCELLED,
                              "cancelled after %d of %d sizes", index, total);
        else
            r.status = backend_measure(w->b, &p, &r.sweep.row, worker_cancel_flag(w), r.err,
                                       sizeof r.err);
        if (r.status == CV_OK)
            backend_links(w->b, p.nranks, rec_links_summary, r.sweep.row.link,
                          sizeof r.sweep.row.link);
        /* A failed size ends the sweep: the larger ones would fail the same way. */
        r.last = index + 1 == total || r.status != CV_OK;
        worker_post_result(w, &r);
        if (r.last) break;
        index++;
    }
}

bool worker_check_exact(const char *backend, enum coll c, enum redop op)
{
    if (backend_caps_of(backend) & BACKEND_CAP_EXACT_REDUCTION) return true;
    if (!coll_reduces(c)) return true;
    return op == OP_MIN || op == OP_MAX;
}

long worker_compare_outputs(const float *want, const float *got, const float *mag, size_t n,
                            int nranks, bool exact, long *inexact)
{
    long bad = 0;
    /* The rounding of W-1 additions (or multiplications) in any order, plus avg's scaling,
     * stays below W units in the last place of the largest magnitude involved. */
    double tol = (double)(nranks > 1 ? nranks : 1) * FLT_EPSILON;
    for (size_t i = 0; i < n; i++) {
        float a = want[i], b = got[i];
        if (a == b || (isnan(a) && isnan(b))) continue;
        if (!exact && isfinite(a) && isfinite(b)) {
            double scale = fmax(fmax(fabs((double)a), fabs((double)b)), 1.0);
            if (mag && isfinite(mag[i])) scale = fmax(scale, fabs((double)mag[i]));
            if (fabs((double)a - (double)b) <= tol * scale) {
                if (inexact) (*inexact)++;
                continue;
            }
        }
        bad++;
    }
    return bad;
}

static void worker_free_bufs(float **bufs, int n)
{
    for (int k = 0; k < n; k++) {
        free(bufs[k]);
        bufs[k] = NULL;
    }
}

static void worker_do_check(struct worker *w, const struct job *jb)
{
    struct result r;
    worker_result_init(w, jb, &r);
    const struct job_check *j = &jb->check;
    struct plan p;
    r.status = plan_build(&p, j->coll, j->algo, j->op, j->nranks, j->count, j->root, r.err,
                          sizeof r.err);
    if (r.status != CV_OK) {
        worker_post_result(w, &r);
        return;
    }
    int W = j->nranks;
    bool exact = worker_check_exact(w->facts.name, j->coll, j->op);
    r.status = trace_check(&p, trace_rank_bytes(&p, exact ? 2 : 4), r.err, sizeof r.err);
    if (r.status != CV_OK) {
        plan_free(&p);
        worker_post_result(w, &r);
        return;
    }
    float *send[CV_MAX_RANKS], *want[CV_MAX_RANKS], *got[CV_MAX_RANKS];
    float *absin[CV_MAX_RANKS] = {NULL}, *mag[CV_MAX_RANKS] = {NULL};
    for (int k = 0; k < W; k++) {
        size_t ns = coll_send_count(j->coll, W, j->count, k, p.root);
        size_t nr = coll_recv_count(j->coll, W, j->count, k, p.root);
        send[k] = xcalloc(ns ? ns : 1, sizeof(float));
        want[k] = xcalloc(nr ? nr : 1, sizeof(float));
        got[k] = xcalloc(nr ? nr : 1, sizeof(float));
        init_fill(j->init, j->coll, W, j->count, p.root, j->seed, k, send[k]);
        if (!exact) {
            absin[k] = xcalloc(ns ? ns : 1, sizeof(float));
            mag[k] = xcalloc(nr ? nr : 1, sizeof(float));
            for (size_t i = 0; i < ns; i++)
                absin[k][i] = fabsf(send[k][i]);
        }
    }
    /* The tolerance's scale: the same reduction over the inputs' magnitudes. */
    if (!exact) ref_compute(j->coll, j->op, W, j->count, p.root, absin, mag);
    struct trace t;
    r.status = trace_run(&t, &p, send, r.err, sizeof r.err);
    if (r.status == CV_OK) {
        for (int k = 0; k < W; k++)
            trace_output(&t, k, want[k]);
        trace_free(&t);
        r.status = backend_run_small(w->b, &p, send, got, r.err, sizeof r.err);
    }
    if (r.status == CV_OK)
        for (int k = 0; k < W; k++)
            r.check.mismatches += worker_compare_outputs(
                want[k], got[k], mag[k], coll_recv_count(j->coll, W, j->count, k, p.root), W,
                exact, &r.check.inexact);
    worker_free_bufs(send, W);
    worker_free_bufs(want, W);
    worker_free_bufs(got, W);
    worker_free_bufs(absin, W);
    worker_free_bufs(mag, W);
    plan_free(&p);
    worker_post_result(w, &r);
}

/* Training runs on rank threads of its own (CPU ranks, or one per GPU with its own NCCL
 * communicators); the collectives' backend is not involved. It polls the same cancel flag
 * between steps. */
static void worker_do_train(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    snprintf(r.backend, sizeof r.backend, "%s", backend_kind_name(j->train.cfg.backend));
    r.train.summary = xcalloc(1, sizeof *r.train.summary); /* ~47 KB: on the heap */
    r.status =
        train_summary_run(&j->train.cfg, r.train.summary, &w->cancel, r.err, sizeof r.err);
    worker_post_result(w, &r); /* the summary goes with it */
}

int worker_memcpy_measure(size_t bytes, int reps, volatile int *cancel,
                          struct memcpy_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (bytes == 0 || reps < 1)
        return cv_err(err, errlen, CV_EINVAL, "memcpy: %zu B x %d: need bytes and reps > 0",
                      bytes, reps);
    /* at most half of what is free: the copy is timed, not paged */
    int rc0 = mem_check(4.0 * (double)bytes, err, errlen,
                        "memcpy of 2 x %zu B, with as much again spare,", bytes);
    if (rc0 != CV_OK) return rc0;
    char *src = xmalloc(bytes), *dst = xmalloc(bytes);
    /* First touch on this thread, so page faults are not timed. */
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    double best = 0;
    int rc = CV_OK;
    for (int i = 0; i < reps; i++) {
        if (cancel && *cancel) {
            rc = cv_err(err, errlen, CV_ECANCELLED, "cancelled");
            break;
        }
        double t0 = now_s();
        memcpy(dst, src, bytes);
        double t = now_s() - t0;
        /* Read one byte back, so the copy cannot be dropped as dead. */
        if (((volatile char *)dst)[bytes - 1] != 1) {
            rc = cv_err(err, errlen, CV_EBACKEND, "memcpy: the copy came out wrong");
            break;
        }
        if (t > 0 && (best == 0 || t < best)) best = t;
    }
    free(src);
    free(dst);
    if (rc != CV_OK) return rc;
    if (!(best > 0))
        return cv_err(err, errlen, CV_EBACKEND, "memcpy: too fast for the clock at %zu B",
                      bytes);
    char sz[32];
    format_size(bytes, sz, sizeof sz);
    out->bytes = bytes;
    out->reps = reps;
    out->best_s = best;
    out->gbs = (double)bytes / best / 1e9;
    snprintf(out->how, sizeof out->how,
             "memcpy of %s in host memory on the backend thread, best of %d, bytes copied per "
             "second",
             sz, reps);
    return CV_OK;
}

static void worker_do_memcpy(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    size_t bytes = j->copy.bytes ? j->copy.bytes : (size_t)64 << 20;
    int reps = j->copy.reps ? j->copy.reps : 5;
    r.status = worker_memcpy_measure(bytes, reps, &w->cancel, &r.copy, r.err, sizeof r.err);
    worker_post_result(w, &r);
}

static void worker_run_job(struct worker *w, const struct job *j);

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    pthread_setname_np(pthread_self(), "cv-worker");
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->jhead && !w->stopping)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stopping) break;
        struct worker_job *n = w->jhead;
        w->jhead = n->next;
        if (!w->jhead) w->jtail = NULL;
        w->running = true;
        w->cancel = 0; /* a cancel issued before this job was taken was for older jobs */
        pthread_mutex_unlock(&w->mu);

        /* the job's one result, should the hook refuse it (as a sweep's first size) */
        struct result refused;
        worker_result_init(w, &n->job, &refused);
        if (n->job.kind == JOB_SWEEP) {
            refused.sweep.total = 1;
            refused.sweep.row.wrong = -1;
        }
        /* every field judged before the job runs, or goes to the other ranks */
        refused.status = job_check(&n->job, refused.err, sizeof refused.err);
        if (w->hook && refused.status == CV_OK)
            refused.status = w->hook(w->hook_ctx, &n->job, refused.err, sizeof refused.err);
        if (refused.status == CV_OK)
            worker_run_job(w, &n->job);
        else
            worker_post_result(w, &refused);
        free(n);
        pthread_mutex_lock(&w->mu);
        w->running = false;
    }
    pthread_mutex_unlock(&w->mu);
    char err[200];
    if (w->hook) w->hook(w->hook_ctx, NULL, err, sizeof err); /* its failure ends the job */
    return NULL;
}

/* One job on this thread; its results go to the result queue. */
static void worker_run_job(struct worker *w, const struct job *j)
{
    switch (j->kind) {
    case JOB_MEASURE:
        worker_do_measure(w, j);
        break;
    case JOB_SWEEP:
        worker_do_sweep(w, j);
        break;
    case JOB_CHECK:
        worker_do_check(w, j);
        break;
    case JOB_TRAIN:
        worker_do_train(w, j);
        break;
    case JOB_MEMCPY:
        worker_do_memcpy(w, j);
        break;
    case JOB_LIBLOG:
        worker_do_liblog(w, j);
        break;
    default: {
        struct result r;
        worker_result_init(w, j, &r);
        r.status = cv_err(r.err, sizeof r.err, CV_EINVAL, "unknown job kind %d", (int)j->kind);
        worker_post_result(w, &r);
    }
    }
}

/* ---- API -------------------------------------------------------------------------- */

static struct worker *worker_new(char *err, size_t errlen)
{
    int fds[2];
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
        cv_err(err, errlen, CV_EBACKEND, "worker: pipe: %s", strerror(errno));
        return NULL;
    }
    struct worker *w = xcalloc(1, sizeof *w);
    w->wake_rd = fds[0];
    w->wake_wr = fds[1];
    w->next_id = 1;
    w->sock = -1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    return w;
}

static void worker_free(struct worker *w)
{
    while (w->rhead) {
        struct worker_res *n = w->rhead;
        w->rhead = n->next;
        result_free(&n->res);
        free(n);
    }
    close(w->wake_rd);
    close(w->wake_wr);
    if (w->sock >= 0) close(w->sock);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

/* On failure the backend is not taken: the caller still owns (and closes) it. */
struct worker *worker_start(struct backend *b, char *err, size_t errlen)
{
    struct worker *w = worker_new(err, errlen);
    if (!w) return NULL;
    w->b = b;
    worker_facts_fill(b, &w->facts);
    snprintf(w->facts.where, sizeof w->facts.where, "this process");
    int e = pthread_create(&w->th, NULL, worker_main, w);
    if (e != 0) {
        cv_err(err, errlen, CV_EBACKEND, "worker: cannot start thread: %s", strerror(e));
        worker_free(w);
        return NULL;
    }
    return w;
}

void worker_set_job_hook(struct worker *w, worker_job_hook fn, void *ctx)
{
    pthread_mutex_lock(&w->mu);
    w->hook = fn;
    w->hook_ctx = ctx;
    pthread_mutex_unlock(&w->mu);
}

void worker_set_agree(struct worker *w, worker_agree_fn fn, void *ctx)
{
    pthread_mutex_lock(&w->mu);
    w->agree = fn;
    w->agree_ctx = ctx;
    pthread_mutex_unlock(&w->mu);
}

int worker_run_here(struct backend *b, const struct job *j, worker_agree_fn agree, void *ctx,
                    char *err, size_t errlen)
{
    struct worker *w = worker_new(err, errlen);
    if (!w) return CV_EBACKEND;
    w->b = b;
    w->agree = agree;
    w->agree_ctx = ctx;
    worker_facts_fill(b, &w->facts);
    worker_run_job(w, j);
    int rc = CV_OK;
    struct result r;
    while (worker_poll(w, &r)) {
        if (rc == CV_OK && r.status != CV_OK) rc = cv_err(err, errlen, r.status, "%s", r.err);
        result_free(&r);
    }
    worker_free(w); /* not the backend: the caller's */
    return rc;
}

void worker_report_dropped(struct worker *w)
{
    w->report_dropped = true;
}

int worker_fd(const struct worker *w)
{
    return w->wake_rd;
}

static void worker_set_lost(struct worker *w, const char *why)
{
    pthread_mutex_lock(&w->mu);
    if (!w->lost && !w->stopping) {
        w->lost = true;
        snprintf(w->lost_why, sizeof w->lost_why, "%s", why);
        char one = 1;
        ssize_t unused = write(w->wake_wr, &one, 1);
        (void)unused;
    }
    pthread_mutex_unlock(&w->mu);
}

static uint64_t worker_enqueue(struct worker *w, const struct job *j, uint64_t id);

void worker_post_id(struct worker *w, const struct job *j)
{
    worker_enqueue(w, j, j->id ? j->id : (uint64_t)-1);
}

uint64_t worker_post(struct worker *w, const struct job *j)
{
    if (w->remote) {
        struct proto_msg *m = xcalloc(1, sizeof *m);
        m->type = PROTO_JOB;
        m->job = *j;
        pthread_mutex_lock(&w->mu);
        uint64_t id = w->next_id++;
        m->job.id = id;
        w->outstanding++;
        pthread_mutex_unlock(&w->mu);
        char err[240];
        if (proto_send(w->sock, m, err, sizeof err) != CV_OK) worker_set_lost(w, err);
        free(m);
        return id;
    }
    return worker_enqueue(w, j, 0);
}

/* Local workers: queue j under id (0: the next of this worker's own). */
static uint64_t worker_enqueue(struct worker *w, const struct job *j, uint64_t id)
{
    struct worker_job *n = xmalloc(sizeof *n);
    n->job = *j;
    n->next = NULL;
    pthread_mutex_lock(&w->mu);
    if (!id) id = w->next_id++;
    n->job.id = id;
    if (w->jtail)
        w->jtail->next = n;
    else
        w->jhead = n;
    w->jtail = n;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return id;
}

/* Under the lock. With report_dropped (serve), each dropped job is answered with a
 * cancelled result, so the UI on the other side knows it will hear no more of it. */
static void worker_drop_jobs(struct worker *w)
{
    while (w->jhead) {
        struct worker_job *n = w->jhead;
        w->jhead = n->next;
        if (w->report_dropped) {
            struct worker_res *rn = xcalloc(1, sizeof *rn);
            worker_result_init(w, &n->job, &rn->res);
            rn->res.status =
                cv_err(rn->res.err, sizeof rn->res.err, CV_ECANCELLED, WORKER_DROPPED_TEXT);
            if (w->rtail)
                w->rtail->next = rn;
            else
                w->rhead = rn;
            w->rtail = rn;
            char one = 1;
            ssize_t unused = write(w->wake_wr, &one, 1);
            (void)unused;
        }
        free(n);
    }
    w->jtail = NULL;
}

void worker_cancel(struct worker *w)
{
    if (w->remote) {
        pthread_mutex_lock(&w->mu);
        w->cancel_below = w->next_id;
        pthread_mutex_unlock(&w->mu);
        struct proto_msg m = {.type = PROTO_CANCEL};
        char err[240];
        if (proto_send(w->sock, &m, err, sizeof err) != CV_OK) worker_set_lost(w, err);
        return;
    }
    pthread_mutex_lock(&w->mu);
    worker_drop_jobs(w);
    if (w->running) w->cancel = 1;
    pthread_mutex_unlock(&w->mu);
}

int worker_poll(struct worker *w, struct result *out)
{
    pthread_mutex_lock(&w->mu);
    struct worker_res *n = w->rhead;
    if (n) {
        w->rhead = n->next;
        if (!w->rhead) w->rtail = NULL;
        *out = n->res;
    }
    if (!w->rhead) {
        worker_drain_pipe(w);
    } else {
        char c;
        ssize_t unused = read(w->wake_rd, &c, 1);
        (void)unused;
    }
    pthread_mutex_unlock(&w->mu);
    free(n);
    return n != NULL;
}

bool worker_busy(struct worker *w)
{
    pthread_mutex_lock(&w->mu);
    bool busy = w->remote ? w->outstanding > 0 && !w->lost : w->running || w->jhead != NULL;
    pthread_mutex_unlock(&w->mu);
    return busy;
}

bool worker_stop_within(struct worker *w, double secs)
{
    if (!w) return true;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    worker_drop_jobs(w);
    if (w->running) w->cancel = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (w->remote) shutdown(w->sock, SHUT_RDWR); /* wakes the reader */
    if (secs > 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double end = (double)ts.tv_sec + ts.tv_nsec / 1e9 + secs;
        ts.tv_sec = (time_t)end;
        ts.tv_nsec = (long)((end - (double)ts.tv_sec) * 1e9);
        if (pthread_timedjoin_np(w->th, NULL, &ts) != 0) return false;
    } else {
        pthread_join(w->th, NULL);
    }
    if (w->b) backend_close(w->b);
    worker_free(w);
    return true;
}

void worker_stop(struct worker *w)
{
    worker_stop_within(w, 0);
}

const char *worker_backend_name(const struct worker *w)
{
    return w->facts.name;
}

bool worker_remote(const struct worker *w)
{
    return w->remote;
}

const struct worker_facts *worker_facts(const struct worker *w)
{
    return &w->facts;
}

bool worker_lost(struct worker *w, char *why, size_t n)
{
    pthread_mutex_lock(&w->mu);
    bool lost = w->lost;
    if (lost && why) snprintf(why, n, "%s", w->lost_why);
    pthread_mutex_unlock(&w->mu);
    return lost;
}

void worker_shutdown_job(struct worker *w)
{
    if (!w || !w->remote) return;
    struct proto_msg m = {.type = PROTO_SHUTDOWN};
    proto_send(w->sock, &m, NULL, 0);
}

/* ---- remote ----------------------------------------------------------------------- */

/* Reads the job's messages until the connection ends: results go to the result queue as a
 * local worker's would; a lost rank, the end of the stream or a malformed message marks
 * the worker lost. */
static void *worker_reader(void *arg)
{
    struct worker *w = arg;
    pthread_setname_np(pthread_self(), "cv-remote");
    struct proto_msg *m = xmalloc(sizeof *m);
    for (;;) {
        char err[240];
        int rc = proto_recv(w->sock, m, 10.0, err, sizeof err);
        if (rc != CV_OK) {
            worker_set_lost(w, rc == CV_EUNAVAIL ? "the job closed the connection" : err);
            break;
        }
        if (m->type == PROTO_RESULT) {
            struct result *r = &m->result;
            pthread_mutex_lock(&w->mu);
            if (r->last && w->outstanding > 0) w->outstanding--;
            bool dropped = r->job_id < w->cancel_below && r->status == CV_ECANCELLED &&
                           strcmp(r->err, WORKER_DROPPED_TEXT) == 0;
            pthread_mutex_unlock(&w->mu);
            if (dropped)
                result_free(r); /* as a local cancel, a dropped job says nothing */
            else
                worker_post_result(w, r); /* takes what r owns */
        } else if (m->type == PROTO_LOST) {
            worker_set_lost(w, m->lost.why);
            break;
        } else {
            snprintf(err, sizeof err, "proto: unexpected %s message from the job",
                     proto_type_name(m->type));
            proto_msg_free(m);
            worker_set_lost(w, err);
            break;
        }
    }
    free(m);
    return NULL;
}

struct worker *worker_connect(int fd, const char *token, double timeout_s, char *err,
                              size_t errlen)
{
    struct worker *w = worker_new(err, errlen);
    if (!w) {
        close(fd);
        return NULL;
    }
    w->remote = true;
    w->sock = fd;
    struct proto_msg *m = xcalloc(1, sizeof *m);
    m->type = PROTO_HELLO;
    if (token && strlen(token) >= sizeof m->hello.token) {
        cv_err(err, errlen, CV_EINVAL, "--token: longer than %d characters",
               PROTO_TOKEN_MAX - 1);
        goto fail;
    }
    snprintf(m->hello.token, sizeof m->hello.token, "%s", token ? token : "");
    /* A job that refuses us may close before reading the hello: its refusal is still
     * there to read, and says more than the failed send. */
    char send_err[240] = "";
    int sent = proto_send(fd, m, send_err, sizeof send_err);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, (int)(timeout_s * 1000)) <= 0) {
        cv_err(err, errlen, CV_ETIMEOUT, "the job did not answer within %.0f s", timeout_s);
        goto fail;
    }
    int rc = proto_recv(fd, m, timeout_s, err, errlen);
    if (rc != CV_OK) {
        if (sent != CV_OK) cv_err(err, errlen, sent, "%s", send_err);
        goto fail;
    }
    if (m->type == PROTO_REFUSED) {
        cv_err(err, errlen, CV_EINVAL, "the job refused the connection: %s", m->refused.why);
        goto fail;
    }
    if (m->type != PROTO_FACTS) {
        cv_err(err, errlen, CV_EINVAL, "proto: expected the job's facts, got a %s message",
               proto_type_name(m->type));
        proto_msg_free(m);
        goto fail;
    }
    w->facts = m->facts;
    free(m);
    int e = pthread_create(&w->th, NULL, worker_reader, w);
    if (e != 0) {
        cv_err(err, errlen, CV_EBACKEND, "worker: cannot start thread: %s", strerror(e));
        worker_free(w);
        return NULL;
    }
    return w;
fail:
    free(m);
    worker_free(w);
    return NULL;
}
