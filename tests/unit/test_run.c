/* test_run.c - backend/run.c, the one measure and display-scale run of every backend, on a
 * communicator made for the test: W rank threads that execute the plan step by step with
 * exec_step_rank and a barrier between steps (the simplest correct runtime), with a
 * deadline on every wait. Independent of the real backends, so what is tested here is
 * run.c itself:
 *   - every collective with every algorithm, W = 1..5, checks with #wrong == 0, and the
 *     time, algbw and busbw follow coll.h's definitions;
 *   - run_small gives pattern_expected on every rank;
 *   - slices and channels reach the plan (result's slices/channels, "how" text);
 *   - algo_auto runs a trial and says so, then reuses the winner;
 *   - a cancel before or during the run gives CV_ECANCELLED promptly;
 *   - a stalled rank is named, the call returns, and the next call works on a new
 *     communicator;
 *   - a rank stalled inside its buffer swap (old buffer freed, the new one not yet made)
 *     when the call is cancelled and given up on: every buffer is freed once, by its one
 *     owner, and the next call works (issue 17's double free);
 *   - out of place (nccl-tests' first group): every collective and algorithm, W = 1..5,
 *     checks with #wrong == 0, the send buffer lies past the working buffer and is never
 *     written; a runtime that ignores the send buffer is caught by the check (#wrong > 0);
 *     a communicator without run_oop is refused, naming the backend;
 *   - bad parameters are refused with a message naming the value. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "backend/comm.h"
#include "host_copies.h"
#include "backend/run.h"
#include "core/coll.h"
#include "core/exec.h"
#include "core/init.h"
#include "core/plan.h"
#include "core/util.h"

/* ---- the test's communicator ---- */

struct step_comm {
    struct comm c;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    unsigned gen;
    bool aborted;
    char err[160];
    float *bufs[CV_MAX_RANKS];
    int runs; /* run() calls, all ranks */
};

static int g_created; /* communicators made */
/* Buffers the test's communicators hold, to see a free of one that is not (or no longer)
 * live: counted in g_bad_frees rather than freed, so the plain build sees it too. */
#define SC_MAX_LIVE 256
static pthread_mutex_t g_live_mu = PTHREAD_MUTEX_INITIALIZER;
static float *g_live[SC_MAX_LIVE];
static int g_bad_frees;
static int g_destroyed; /* communicators destroyed */
/* rank g_alloc_stall_rank's buf_alloc sleeps g_alloc_stall_s first (a slow first touch) */
static int g_alloc_stall_rank = -1;
static double g_alloc_stall_s;
static long g_sleep_ns; /* each run() sleeps this long first (the timing test) */
static float g_nudge;   /* each run() scales its rank's result by 1 + g_nudge */

static struct step_comm *sc_of(struct comm *c)
{
    return (struct step_comm *)c;
}

static void sc_abort(struct comm *c, const char *why)
{
    struct step_comm *s = sc_of(c);
    pthread_mutex_lock(&s->mu);
    if (!s->aborted) snprintf(s->err, sizeof s->err, "%s", why);
    s->aborted = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static const char *sc_last_error(struct comm *c)
{
    return sc_of(c)->err;
}

static int sc_barrier(struct comm *c, int rank)
{
    struct step_comm *s = sc_of(c);
    pthread_mutex_lock(&s->mu);
    if (s->aborted) {
        pthread_mutex_unlock(&s->mu);
        return CV_EBACKEND;
    }
    unsigned g = s->gen;
    if (++s->arrived == c->nranks) {
        s->arrived = 0;
        s->gen++;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        return CV_OK;
    }
    double t0 = now_s();
    while (s->gen == g && !s->aborted) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 5 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        if (s->gen == g && !s->aborted && now_s() - t0 > c->timeout_s) {
            snprintf(s->err, sizeof s->err, "rank %d waited %.1f s at a step barrier", rank,
                     c->timeout_s);
            s->aborted = true;
            pthread_cond_broadcast(&s->cv);
            pthread_mutex_unlock(&s->mu);
            return CV_ETIMEOUT;
        }
    }
    int rc = s->gen != g ? CV_OK : CV_EBACKEND;
    pthread_mutex_unlock(&s->mu);
    return rc;
}

static int sc_buf_alloc(struct comm *c, int rank, size_t count, float **out)
{
    if (rank == g_alloc_stall_rank && g_alloc_stall_s > 0) {
        struct timespec ts = {
            (time_t)g_alloc_stall_s,
            (long)((g_alloc_stall_s - (double)(time_t)g_alloc_stall_s) * 1e9)};
        nanosleep(&ts, NULL);
    }
    float *b = calloc(count, sizeof(float));
    sc_of(c)->bufs[rank] = b;
    *out = b;
    if (!b) return CV_ENOMEM;
    pthread_mutex_lock(&g_live_mu);
    for (int i = 0; i < SC_MAX_LIVE; i++)
        if (!g_live[i]) {
            g_live[i] = b;
            break;
        }
    pthread_mutex_unlock(&g_live_mu);
    return CV_OK;
}

static void sc_buf_free(struct comm *c, int rank, float *buf)
{
    if (sc_of(c)->bufs[rank] == buf) sc_of(c)->bufs[rank] = NULL;
    pthread_mutex_lock(&g_live_mu);
    int i = 0;
    while (i < SC_MAX_LIVE && g_live[i] != buf)
        i++;
    if (i < SC_MAX_LIVE)
        g_live[i] = NULL;
    else
        g_bad_frees++;
    pthread_mutex_unlock(&g_live_mu);
    if (i < SC_MAX_LIVE) free(buf);
}

static int sc_run(struct comm *c, int rank, const struct comm_job *j, float *work)
{
    struct step_comm *s = sc_of(c);
    if (!j->plan) return CV_EUNSUPPORTED;
    if (g_sleep_ns) {
        struct timespec ts = {0, g_sleep_ns};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&s->mu);
    s->runs++;
    pthread_mutex_unlock(&s->mu);
    for (size_t st = 0; st < j->plan->nsteps; st++) {
        int rc = sc_barrier(c, rank);
        if (rc != CV_OK) return rc;
        exec_step_rank(j->plan, st, rank, s->bufs);
    }
    int rc = sc_barrier(c, rank);
    if (rc == CV_OK && g_nudge != 0.0f) {
        size_t out = coll_out_off(j->coll, c->nranks, j->count, rank);
        size_t nr = coll_recv_count(j->coll, c->nranks, j->count, rank, j->root);
        for (size_t i = 0; i < nr; i++)
            work[out + i] *= 1.0f + g_nudge;
    }
    return rc;
}

/* Out of place as a plan runtime does it: the send buffer copied to the input's place in
 * the working buffer, then the plan (g_oop_ignore_send: the copy left out, a bug the check
 * must catch). Records where the send buffer was and whether it changed. */
static int g_oop_calls, g_oop_bad_place, g_oop_send_written;
static bool g_oop_ignore_send;
static int sc_run_oop(struct comm *c, int rank, const struct comm_job *j, const float *send,
                      float *work)
{
    size_t in = coll_in_off(j->coll, c->nranks, j->count, rank);
    size_t ns = coll_send_count(j->coll, c->nranks, j->count, rank, j->root);
    float *keep = malloc((ns ? ns : 1) * sizeof(float));
    memcpy(keep, send, ns * sizeof(float));
    bool bad_place = send < work + coll_work_len(j->coll, c->nranks, j->count);
    if (!g_oop_ignore_send && ns) memcpy(work + in, send, ns * sizeof(float));
    int rc = sc_run(c, rank, j, work);
    bool written = memcmp(keep, send, ns * sizeof(float)) != 0;
    free(keep);
    pthread_mutex_lock(&g_live_mu);
    g_oop_calls++;
    g_oop_bad_place += bad_place;
    g_oop_send_written += written;
    pthread_mutex_unlock(&g_live_mu);
    return rc;
}

static void sc_destroy(struct comm *c)
{
    struct step_comm *s = sc_of(c);
    pthread_mutex_lock(&g_live_mu);
    g_destroyed++;
    pthread_mutex_unlock(&g_live_mu);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

static const struct comm_ops sc_ops = {
    .name = "step",
    .barrier = sc_barrier,
    .abort = sc_abort,
    .last_error = sc_last_error,
    .destroy = sc_destroy,
    .buf_alloc = sc_buf_alloc,
    .buf_free = sc_buf_free,
    .put = host_put,
    .get = host_get,
    .run = sc_run,
    .run_oop = sc_run_oop,
    .rank_noun = "step thread",
    .slice_bytes = 0,
};

/* The same without run_oop: a runtime that runs in place only. */
static bool g_in_place_only;
static const struct comm_ops sc_ops_in_place = {
    .name = "step",
    .barrier = sc_barrier,
    .abort = sc_abort,
    .last_error = sc_last_error,
    .destroy = sc_destroy,
    .buf_alloc = sc_buf_alloc,
    .buf_free = sc_buf_free,
    .put = host_put,
    .get = host_get,
    .run = sc_run,
    .rank_noun = "step thread",
    .slice_bytes = 0,
};

static int sc_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                     char *err, size_t errlen)
{
    struct step_comm *s = calloc(1, sizeof *s);
    s->c.ops = g_in_place_only ? &sc_ops_in_place : &sc_ops;
    s->c.nranks = cp->nranks;
    s->c.timeout_s = cp->timeout_s;
    s->c.self = -1;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    g_created++;
    *out = &s->c;
    return CV_OK;
}

static int sc_max_ranks(struct backend *b)
{
    return CV_MAX_RANKS;
}

static const struct backend_ops step_backend = {
    .name = "step",
    .kind = BACKEND_CPU,
    .caps = BACKEND_CAP_EXACT_REDUCTION,
    .max_ranks = sc_max_ranks,
    .comm_create = sc_create,
};

/* The same runtime, declared as a library that reduces in an order of its own. */
static const struct backend_ops step_backend_own_order = {
    .name = "step",
    .kind = BACKEND_CPU,
    .caps = 0,
    .max_ranks = sc_max_ranks,
    .comm_create = sc_create,
};

static struct backend *open_step(void)
{
    struct backend *b = calloc(1, sizeof *b);
    b->ops = &step_backend;
    return b;
}

static void close_step(struct backend *b)
{
    backend_run_release(b);
    free(b);
}

static struct bench_params params(enum coll c, enum algo a, int W, size_t bytes)
{
    return (struct bench_params){.coll = c,
                                 .algo = a,
                                 .op = OP_SUM,
                                 .nranks = W,
                                 .bytes = bytes,
                                 .iters = 3,
                                 .warmup = 1,
                                 .check = true,
                                 .timeout_s = 10};
}

/* ---- tests ---- */

static void test_every_collective(void **state)
{
    struct backend *b = open_step();
    char err[256];
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            for (int W = 1; W <= 5; W++) {
                struct bench_params p =
                    params((enum coll)c, (enum algo)a, W, 12 * 1024 + 4 * W);
                struct bench_result r;
                int rc = backend_measure(b, &p, &r, NULL, err, sizeof err);
                if (rc != CV_OK) fail_msg("%s %s W=%d: %s", coll_name(c), algo_name(a), W, err);
                assert_int_equal(r.wrong, 0);
                assert_int_equal(r.nranks, W);
                size_t count = coll_count_for_bytes((enum coll)c, W, p.bytes, sizeof(float));
                assert_int_equal(r.bytes, coll_bytes((enum coll)c, W, count, sizeof(float)));
                assert_true(r.time_us > 0);
                assert_float_equal(r.algbw, (double)r.bytes / (r.time_us * 1e-6) / 1e9,
                                   r.algbw * 1e-9);
                assert_float_equal(r.busbw, r.algbw * coll_busbw_factor((enum coll)c, W),
                                   r.busbw * 1e-9 + 1e-12);
                assert_string_equal(r.algo, algo_name((enum algo)a));
            }
        }
    close_step(b);
}

static void test_out_of_place(void **state)
{
    struct backend *b = open_step();
    char err[256];
    g_oop_calls = g_oop_bad_place = g_oop_send_written = 0;
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            for (int W = 1; W <= 5; W++) {
                struct bench_params p =
                    params((enum coll)c, (enum algo)a, W, 12 * 1024 + 4 * W);
                p.out_of_place = true;
                struct bench_result r;
                int rc = backend_measure(b, &p, &r, NULL, err, sizeof err);
                if (rc != CV_OK) fail_msg("%s %s W=%d: %s", coll_name(c), algo_name(a), W, err);
                if (r.wrong != 0)
                    fail_msg("%s %s W=%d out of place: #wrong %ld", coll_name(c), algo_name(a),
                             W, r.wrong);
                assert_string_equal(r.algo, algo_name((enum algo)a));
            }
        }
    assert_true(g_oop_calls > 0);
    assert_int_equal(g_oop_bad_place, 0);    /* the send buffer lies past the working one */
    assert_int_equal(g_oop_send_written, 0); /* and is read only */
    /* A runtime that leaves the send buffer unread: the working buffer starts zeroed, so
     * the check sees every element of the result wrong. */
    g_oop_ignore_send = true;
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 3, 12 * 1024);
    p.out_of_place = true;
    struct bench_result r;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    g_oop_ignore_send = false;
    long want_wrong = 0; /* every element whose expected value is not 0 */
    for (int rk = 0; rk < 3; rk++)
        for (size_t i = 0; i < 12 * 1024 / 4; i++)
            want_wrong +=
                pattern_expected(COLL_ALL_REDUCE, OP_SUM, 3, 12 * 1024 / 4, 0, rk, i) != 0.0f;
    assert_true(want_wrong > 0);
    assert_int_equal(r.wrong, want_wrong);
    close_step(b);
    /* In place only: refused, naming the backend. */
    g_in_place_only = true;
    b = open_step();
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_EUNSUPPORTED);
    assert_non_null(strstr(err, "the step backend runs in place only"));
    p.out_of_place = false;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    close_step(b);
    g_in_place_only = false;
}

static void test_how_and_slices(void **state)
{
    struct backend *b = open_step();
    char err[256];
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 4, 64 * 1024);
    p.slices = 3;
    p.channels = 2;
    struct bench_result r;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    assert_int_equal(r.slices, 3);
    assert_int_equal(r.channels, 2);
    assert_non_null(strstr(r.how, "4 step threads, ring plan, 3 slices x 2 channels"));
    assert_non_null(strstr(r.how, "3 iters after 1 warm-up"));
    /* slices 0 with slice_bytes 0: whole chunks */
    p.slices = 0;
    p.channels = 0;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.slices, 1);
    assert_int_equal(r.channels, 1);
    /* one communicator for the world size, kept */
    int made = g_created;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(g_created, made);
    assert_true(backend_held_bytes(b) > 0);
    close_step(b);
}

/* time_us is per operation: 50 runs of at least 1 ms each give at least 1000 us, and far
 * less than the 50 ms the whole loop takes (the bound leaves 25x for a loaded machine). */
static void test_time_per_operation(void **state)
{
    struct backend *b = open_step();
    char err[256];
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 2, 1024);
    p.iters = 50;
    p.check = false;
    g_sleep_ns = 1000 * 1000;
    struct bench_result r;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    g_sleep_ns = 0;
    assert_true(r.time_us >= 1000.0);
    assert_true(r.time_us < 25.0 * 1000.0);
    assert_int_equal(r.wrong, -1); /* not checked */
    close_step(b);
}

/* The check is exact for a backend that reduces in the plan's order, and allows 1e-4
 * relative on avg for one that does not (NCCL's PreMulSum); a real error (1/16) is wrong
 * on both. */
static void test_check_tolerance(void **state)
{
    char err[256];
    struct bench_result r;
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 3, 3 * 1024);
    p.op = OP_AVG;
    struct backend *exact = open_step();
    struct backend *own = open_step();
    own->ops = &step_backend_own_order;
    g_nudge = 1e-6f;
    assert_int_equal(backend_measure(exact, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_true(r.wrong > 0);
    assert_int_equal(backend_measure(own, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    p.op = OP_SUM; /* sums of the integer patterns are exact in any order */
    assert_int_equal(backend_measure(own, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_true(r.wrong > 0);
    p.op = OP_AVG;
    g_nudge = 1.0f / 16.0f;
    assert_int_equal(backend_measure(own, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_true(r.wrong > 0);
    g_nudge = 0.0f;
    assert_int_equal(backend_measure(own, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    close_step(exact);
    close_step(own);
}

static void test_run_small(void **state)
{
    struct backend *b = open_step();
    char err[256];
    for (int c = 0; c < COLL_COUNT; c++) {
        int W = 4;
        size_t count = 3;
        int root = coll_is_rooted((enum coll)c) ? 1 : 0;
        struct plan p;
        assert_int_equal(plan_build(&p, (enum coll)c, coll_default_algo((enum coll)c), OP_SUM,
                                    W, count, root, err, sizeof err),
                         CV_OK);
        float *send[CV_MAX_RANKS], *recv[CV_MAX_RANKS];
        for (int r = 0; r < W; r++) {
            size_t ns = coll_send_count((enum coll)c, W, count, r, root);
            send[r] = calloc(ns + 1, sizeof(float));
            for (size_t i = 0; i < ns; i++)
                send[r][i] = pattern_value(OP_SUM, r, i);
            recv[r] =
                calloc(coll_recv_count((enum coll)c, W, count, r, root) + 1, sizeof(float));
        }
        if (backend_run_small(b, &p, send, recv, err, sizeof err) != CV_OK)
            fail_msg("%s: %s", coll_name(c), err);
        for (int r = 0; r < W; r++) {
            size_t nr = coll_recv_count((enum coll)c, W, count, r, root);
            for (size_t i = 0; i < nr; i++)
                assert_true(recv[r][i] ==
                            pattern_expected((enum coll)c, OP_SUM, W, count, root, r, i));
            free(send[r]);
            free(recv[r]);
        }
        plan_free(&p);
    }
    close_step(b);
}

static void test_auto(void **state)
{
    struct backend *b = open_step();
    char err[256];
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 4, 32 * 1024);
    p.algo_auto = true;
    struct bench_result r;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    assert_non_null(strstr(r.how, "; auto: "));
    assert_non_null(strstr(r.how, "won a trial of"));
    char first[16];
    snprintf(first, sizeof first, "%s", r.algo);
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_non_null(strstr(r.how, "(earlier trial)"));
    assert_string_equal(r.algo, first);
    close_step(b);
}

struct canceller {
    volatile int *flag;
    double after_s;
};

static void *cancel_later(void *arg)
{
    struct canceller *c = arg;
    struct timespec ts = {0, (long)(c->after_s * 1e9)};
    nanosleep(&ts, NULL);
    *c->flag = 1;
    return NULL;
}

static void test_cancel(void **state)
{
    struct backend *b = open_step();
    char err[256];
    volatile int cancel = 1;
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 4, 4 << 20);
    struct bench_result r;
    assert_int_equal(backend_measure(b, &p, &r, &cancel, err, sizeof err), CV_ECANCELLED);
    assert_string_equal(err, "cancelled");
    /* During a long run: many iterations of 4 MiB would take far longer than the wait. */
    cancel = 0;
    p.iters = 100000;
    struct canceller cc = {&cancel, 0.2};
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, &cc);
    double t0 = now_s();
    assert_int_equal(backend_measure(b, &p, &r, &cancel, err, sizeof err), CV_ECANCELLED);
    double took = now_s() - t0;
    pthread_join(th, NULL);
    assert_true(took < 5.0); /* returned, far from the 100000 iterations' time */
    /* and the next call works */
    cancel = 0;
    p.iters = 2;
    assert_int_equal(backend_measure(b, &p, &r, &cancel, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    close_step(b);
}

static void test_stalled_rank_named(void **state)
{
    struct backend *b = open_step();
    char err[256];
    struct bench_params p = params(COLL_ALL_GATHER, ALGO_RING, 4, 16 * 1024);
    p.timeout_s = 0.3;
    backend_test_stall(b, 2, 4.0);
    struct bench_result r;
    int made = g_created;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_ETIMEOUT);
    assert_non_null(strstr(err, "rank 2 stalled"));
    backend_test_stall(b, -1, 0);
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    assert_int_equal(g_created, made + 2); /* the stalled one was replaced */
    close_step(b);
    /* The stalled thread still sleeps on the leaked communicator; give it time to end
     * before the process does, so the sanitizers see no running thread. */
    struct timespec ts = {4, 0};
    nanosleep(&ts, NULL);
}

/* Issue 17: rank 2 stalls in buf_alloc, its old buffer already freed, while the call is
 * cancelled; the coordinator gives up on it and hands the communicator to the task. The
 * freed buffer must not be freed again (by the task's last rank), and the buffer the rank
 * makes late must be freed with the old communicator, not reach the next call's. */
static void test_stalled_in_buffer_swap(void **state)
{
    struct backend *b = open_step();
    char err[256];
    struct bench_result r;
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 4, 16 * 1024);
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_OK);
    int bad0 = g_bad_frees, destroyed0 = g_destroyed;
    g_alloc_stall_rank = 2;
    g_alloc_stall_s = 3.0; /* longer than run.c's 2 s grace after the abort */
    volatile int cancel = 0;
    struct canceller cc = {&cancel, 0.1};
    pthread_t th;
    pthread_create(&th, NULL, cancel_later, &cc);
    p.bytes = 256 * 1024; /* a bigger buffer: every rank frees its old one first */
    assert_int_equal(backend_measure(b, &p, &r, &cancel, err, sizeof err), CV_ECANCELLED);
    pthread_join(th, NULL);
    assert_string_equal(err, "cancelled");
    g_alloc_stall_rank = -1;
    /* Given up on (only then is a communicator destroyed before close), the rank ends on
     * its own and the last to leave destroys the communicator. Bounded wait (the stall is
     * 3 s; a busy machine may take longer). */
    for (int i = 0; i < 600; i++) {
        pthread_mutex_lock(&g_live_mu);
        bool gone = g_destroyed > destroyed0;
        pthread_mutex_unlock(&g_live_mu);
        if (gone) break;
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(g_destroyed, destroyed0 + 1);
    assert_int_equal(g_bad_frees, bad0);
    cancel = 0;
    assert_int_equal(backend_measure(b, &p, &r, &cancel, err, sizeof err), CV_OK);
    assert_int_equal(r.wrong, 0);
    close_step(b);
    assert_int_equal(g_bad_frees, bad0);
    pthread_mutex_lock(&g_live_mu);
    int live = 0;
    for (int i = 0; i < SC_MAX_LIVE; i++)
        live += g_live[i] != NULL;
    pthread_mutex_unlock(&g_live_mu);
    assert_int_equal(live, 0); /* and none leaked */
}

static void test_bad_params(void **state)
{
    struct backend *b = open_step();
    char err[256];
    struct bench_result r;
    struct bench_params p = params(COLL_ALL_REDUCE, ALGO_RING, 17, 1024);
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "ranks 17"));
    p = params(COLL_ALL_GATHER, ALGO_RING, 4, 8);
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "8 B"));
    p = params(COLL_ALL_REDUCE, ALGO_RING, 4, 1024);
    p.iters = 0;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_EINVAL);
    p = params(COLL_ALL_REDUCE, ALGO_RING, 4, 1024);
    p.native = true;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_EUNSUPPORTED);
    p = params(COLL_BROADCAST, ALGO_RING, 4, 1024);
    p.root = 4;
    assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "root 4"));
    close_step(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_collective),
        cmocka_unit_test(test_out_of_place),
        cmocka_unit_test(test_how_and_slices),
        cmocka_unit_test(test_run_small),
        cmocka_unit_test(test_auto),
        cmocka_unit_test(test_time_per_operation),
        cmocka_unit_test(test_check_tolerance),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_stalled_rank_named),
        cmocka_unit_test(test_stalled_in_buffer_swap),
        cmocka_unit_test(test_bad_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
