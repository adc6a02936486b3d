/* worker.c - the backend thread (redis bio.c's shape): the UI posts jobs to a locked
 * queue and sleeps in poll(); this thread runs them on the backend it owns and hands each
 * result back through a second locked queue plus one byte on a wake pipe.
 *
 * Results are copied out under the lock, so the UI never sees a half-written one. Jobs
 * are plain data. Cancelling drops the queued jobs and raises a flag that the backend's
 * measure() polls (the CPU ranks at every step, NCCL between iterations); the running job
 * then ends with CV_ECANCELLED.
 * Every wait on the backend has a deadline (params.timeout_s, 30 s when 0), which the
 * backend enforces, so worker_stop() always returns.
 *
 * JOB_CHECK holds the backend's display-scale output against the trace: bit for bit where
 * the backend runs the same plan in the same order (CPU), within float rounding where it
 * reduces in an order of its own (NCCL), and the result says which of the two it was. */
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/plan.h"
#include "../core/sweep.h"
#include "../core/trace.h"
#include "../core/util.h"

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
    struct backend *b;
    pthread_t th;
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
    r->total = 1;
    r->last = true;
    r->row.wrong = -1;
    snprintf(r->backend, sizeof r->backend, "%s", w->b->ops->name);
}

/* ---- jobs ------------------------------------------------------------------------- */

static void worker_fix_params(struct bench_params *p)
{
    if (p->timeout_s <= 0 || !isfinite(p->timeout_s)) p->timeout_s = WORKER_DEFAULT_TIMEOUT_S;
}

static void worker_do_measure(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    struct bench_params p = j->params;
    worker_fix_params(&p);
    r.status = w->b->ops->measure(w->b, &p, &r.row, &w->cancel, r.err, sizeof r.err);
    worker_post_result(w, &r);
}

static void worker_do_sweep(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    struct sweep sw = {.min = j->sweep_min, .max = j->sweep_max, .factor = j->sweep_factor};
    if (!sweep_valid(&sw)) {
        r.status = cv_err(r.err, sizeof r.err, CV_EINVAL,
                          "sweep %zu..%zu B by x%g: need 0 < min <= max and factor > 1",
                          j->sweep_min, j->sweep_max, j->sweep_factor);
        worker_post_result(w, &r);
        return;
    }
    int total = (int)sweep_count(&sw);
    struct bench_params p = j->params;
    worker_fix_params(&p);
    int index = 0;
    size_t s;
    for (bool more = sweep_first(&sw, &s); more; more = sweep_next(&sw, &s)) {
        worker_result_init(w, j, &r);
        r.index = index;
        r.total = total;
        p.bytes = s;
        if (w->cancel)
            r.status = cv_err(r.err, sizeof r.err, CV_ECANCELLED, "cancelled");
        else
            r.status = w->b->ops->measure(w->b, &p, &r.row, &w->cancel, r.err, sizeof r.err);
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

static void worker_do_check(struct worker *w, const struct job *j)
{
    struct result r;
    worker_result_init(w, j, &r);
    struct plan p;
    r.status = plan_build(&p, j->coll, j->algo, j->op, j->nranks, j->count, j->root, r.err,
                          sizeof r.err);
    if (r.status != CV_OK) {
        worker_post_result(w, &r);
        return;
    }
    int W = j->nranks;
    bool exact = worker_check_exact(w->b->ops->name, j->coll, j->op);
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
        r.status = w->b->ops->run_small(w->b, &p, send, got, r.err, sizeof r.err);
    }
    if (r.status == CV_OK)
        for (int k = 0; k < W; k++)
            r.mismatches += worker_compare_outputs(
                want[k], got[k], mag[k], coll_recv_count(j->coll, W, j->count, k, p.root), W,
                exact, &r.inexact);
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
    struct result *r = xmalloc(sizeof *r); /* ~50 KB: not on this thread's stack twice */
    worker_result_init(w, j, r);
    snprintf(r->backend, sizeof r->backend, "%s", backend_kind_name(j->train.backend));
    r->status = train_summary_run(&j->train, &r->train, &w->cancel, r->err, sizeof r->err);
    worker_post_result(w, r);
    free(r);
}

int worker_memcpy_measure(size_t bytes, int reps, volatile int *cancel,
                          struct memcpy_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (bytes == 0 || reps < 1)
        return cv_err(err, errlen, CV_EINVAL, "memcpy: %zu B x %d: need bytes and reps > 0",
                      bytes, reps);
    size_t avail = mem_available_bytes();
    if (bytes > SIZE_MAX / 4 || (avail && 2 * bytes > avail / 2))
        return cv_err(err, errlen, CV_ENOMEM,
                      "memcpy: 2 x %zu B would not fit in half the memory available", bytes);
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
    size_t bytes = j->copy_bytes ? j->copy_bytes : (size_t)64 << 20;
    int reps = j->copy_reps ? j->copy_reps : 5;
    r.status = worker_memcpy_measure(bytes, reps, &w->cancel, &r.copy, r.err, sizeof r.err);
    worker_post_result(w, &r);
}

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

        switch (n->job.kind) {
        case JOB_MEASURE:
            worker_do_measure(w, &n->job);
            break;
        case JOB_SWEEP:
            worker_do_sweep(w, &n->job);
            break;
        case JOB_CHECK:
            worker_do_check(w, &n->job);
            break;
        case JOB_TRAIN:
            worker_do_train(w, &n->job);
            break;
        case JOB_MEMCPY:
            worker_do_memcpy(w, &n->job);
            break;
        default: {
            struct result r;
            worker_result_init(w, &n->job, &r);
            r.status =
                cv_err(r.err, sizeof r.err, CV_EINVAL, "unknown job kind %d", (int)n->job.kind);
            worker_post_result(w, &r);
        }
        }
        free(n);
        pthread_mutex_lock(&w->mu);
        w->running = false;
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* ---- API -------------------------------------------------------------------------- */

/* On failure the backend is not taken: the caller still owns (and closes) it. */
struct worker *worker_start(struct backend *b, char *err, size_t errlen)
{
    int fds[2];
    if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
        cv_err(err, errlen, CV_EBACKEND, "worker: pipe: %s", strerror(errno));
        return NULL;
    }
    struct worker *w = xcalloc(1, sizeof *w);
    w->b = b;
    w->wake_rd = fds[0];
    w->wake_wr = fds[1];
    w->next_id = 1;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    int e = pthread_create(&w->th, NULL, worker_main, w);
    if (e != 0) {
        cv_err(err, errlen, CV_EBACKEND, "worker: cannot start thread: %s", strerror(e));
        close(fds[0]);
        close(fds[1]);
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return NULL;
    }
    return w;
}

int worker_fd(const struct worker *w)
{
    return w->wake_rd;
}

uint64_t worker_post(struct worker *w, const struct job *j)
{
    struct worker_job *n = xmalloc(sizeof *n);
    n->job = *j;
    n->next = NULL;
    pthread_mutex_lock(&w->mu);
    uint64_t id = w->next_id++;
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

static void worker_drop_jobs(struct worker *w)
{
    while (w->jhead) {
        struct worker_job *n = w->jhead;
        w->jhead = n->next;
        free(n);
    }
    w->jtail = NULL;
}

void worker_cancel(struct worker *w)
{
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
    bool busy = w->running || w->jhead != NULL;
    pthread_mutex_unlock(&w->mu);
    return busy;
}

void worker_stop(struct worker *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    worker_drop_jobs(w);
    if (w->running) w->cancel = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    backend_close(w->b);
    while (w->rhead) {
        struct worker_res *n = w->rhead;
        w->rhead = n->next;
        free(n);
    }
    close(w->wake_rd);
    close(w->wake_wr);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

const char *worker_backend_name(const struct worker *w)
{
    return w->b->ops->name;
}

struct backend *worker_backend(struct worker *w)
{
    return w->b;
}
