/* test_worker.c - the backend thread, driven the way the UI drives it: post jobs, sleep in
 * poll() on the wake pipe with a deadline, pop results. MEASURE gives one checked row;
 * SWEEP one row per size with index/total and `last` only on the final one; CHECK
 * compares the backend against the trace (0 mismatches for every collective and
 * algorithm); cancel drops queued jobs and stops the running one; stop joins cleanly
 * (ASan's leak check covers what it frees). The check's comparison rule: bit for bit on
 * the CPU backend, within float rounding for a reduction on another backend, shown on
 * worker_compare_outputs directly and end to end with a fake backend whose results are
 * one unit in the last place off. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/comm.h"
#include "host_copies.h"
#include "core/util.h"
#include "worker/worker.h"
#include "next_result.h"

static struct worker *start(void)
{
    struct backend *b;
    char err[256];
    assert_int_equal(backend_open("cpu", &b, err, sizeof err, NULL, 0), CV_OK);
    struct worker *w = worker_start(b, err, sizeof err);
    assert_non_null(w);
    assert_string_equal(worker_backend_name(w), "cpu");
    /* the UI's copy of the backend's facts */
    const struct worker_facts *f = worker_facts(w);
    assert_string_equal(f->name, "cpu");
    assert_int_equal(f->max_ranks, b->ops->max_ranks(b));
    char d[FACTS_DESC_MAX];
    b->ops->describe(b, 4, d, sizeof d);
    assert_string_equal(f->desc[4], d);
    assert_string_equal(f->where, "this process");
    return w;
}

static struct job measure_job(enum coll c, size_t bytes, int iters)
{
    struct job j = {.kind = JOB_MEASURE};
    j.measure.params = (struct bench_params){
        .coll = c,
        .algo = ALGO_RING,
        .op = OP_SUM,
        .nranks = 4,
        .bytes = bytes,
        .iters = iters,
        .warmup = 1,
        .check = true,
        .timeout_s = 0, /* worker: 30 s */
    };
    return j;
}

static void test_measure(void **state)
{
    (void)state;
    struct worker *w = start();
    int fl = fcntl(worker_fd(w), F_GETFL);
    assert_true(fl & O_NONBLOCK);
    assert_true(fcntl(worker_fd(w), F_GETFD) & FD_CLOEXEC);

    struct job j = measure_job(COLL_ALL_REDUCE, 256 * 1024, 3);
    uint64_t id = worker_post(w, &j);
    struct result r;
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.job_id, id);
    assert_int_equal(r.kind, JOB_MEASURE);
    assert_int_equal(r.status, CV_OK);
    assert_true(r.last);
    assert_string_equal(r.backend, "cpu");
    assert_int_equal(r.measure.bytes, 256 * 1024);
    assert_int_equal(r.measure.count, 64 * 1024);
    assert_int_equal(r.measure.wrong, 0);
    assert_string_equal(r.measure.algo, "ring");
    assert_true(r.measure.time_us > 0 && r.measure.busbw > 0);
    assert_false(worker_busy(w));
    /* One byte per result: nothing left to wake for. */
    assert_int_equal(worker_poll(w, &r), 0);
    struct pollfd pfd = {.fd = worker_fd(w), .events = POLLIN};
    assert_int_equal(poll(&pfd, 1, 0), 0);

    /* An error comes back as a result too. */
    j = measure_job(COLL_ALL_GATHER, 4, 1);
    id = worker_post(w, &j);
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.job_id, id);
    assert_int_equal(r.status, CV_EINVAL);
    assert_true(strlen(r.err) > 0);
    assert_true(r.last);
    worker_stop(w);
}

static void test_sweep(void **state)
{
    (void)state;
    struct worker *w = start();
    struct job j = measure_job(COLL_REDUCE_SCATTER, 0, 2);
    j.kind = JOB_SWEEP; /* params as the measure's: the same place in both kinds */
    j.sweep.params = measure_job(COLL_REDUCE_SCATTER, 0, 2).measure.params;
    j.sweep.min = 4 * 1024;
    j.sweep.max = 64 * 1024;
    j.sweep.factor = 2;
    uint64_t id = worker_post(w, &j);
    size_t want = 4 * 1024;
    for (int i = 0; i < 5; i++, want *= 2) {
        struct result r;
        assert_int_equal(next_result(w, &r, 30), 1);
        assert_int_equal(r.job_id, id);
        assert_int_equal(r.kind, JOB_SWEEP);
        assert_int_equal(r.status, CV_OK);
        assert_int_equal(r.sweep.index, i);
        assert_int_equal(r.sweep.total, 5);
        assert_int_equal(r.last, i == 4);
        assert_int_equal(r.sweep.row.bytes, want);
        assert_int_equal(r.sweep.row.wrong, 0);
    }
    struct result r;
    assert_int_equal(next_result(w, &r, 0.2), 0);

    /* A sweep past the one sweep rule's largest size (16 GiB) is refused whole before its
     * first size runs, with last set: 1 TiB .. 1 PiB. */
    j.sweep.min = (size_t)1 << 40;
    j.sweep.max = (size_t)1 << 50;
    j.sweep.factor = 2;
    worker_post(w, &j);
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.status, CV_EINVAL);
    assert_non_null(strstr(r.err, "sizes 1 TiB..1024 TiB: at most 16 GiB"));
    assert_true(r.last);
    assert_int_equal(next_result(w, &r, 0.2), 0);

    /* A bad sweep is one error result. */
    j.sweep.factor = 1.0;
    worker_post(w, &j);
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.status, CV_EINVAL);
    assert_true(r.last);
    worker_stop(w);
}

static void test_check_every_collective(void **state)
{
    (void)state;
    struct worker *w = start();
    int posted = 0;
    for (int W = 1; W <= 5; W++)
        for (int c = 0; c < COLL_COUNT; c++)
            for (int a = 0; a < ALGO_COUNT; a++) {
                if (!algo_supported((enum coll)c, (enum algo)a)) continue;
                struct job j = {.kind = JOB_CHECK,
                                .check = {.coll = (enum coll)c,
                                          .algo = (enum algo)a,
                                          .op = coll_reduces((enum coll)c) ? OP_AVG : OP_SUM,
                                          .nranks = W,
                                          .count = 7,
                                          .root = coll_is_rooted((enum coll)c) ? W / 2 : 0,
                                          .init = INIT_RANDOM,
                                          .seed = 42}};
                worker_post(w, &j);
                posted++;
            }
    for (int i = 0; i < posted; i++) {
        struct result r;
        assert_int_equal(next_result(w, &r, 30), 1);
        assert_int_equal(r.kind, JOB_CHECK);
        if (r.status != CV_OK) fail_msg("check job %d: %s", i, r.err);
        assert_int_equal(r.check.mismatches, 0);
        assert_int_equal(r.check.inexact, 0); /* the CPU ranks: bit for bit */
        assert_true(r.last);
    }
    /* An unsupported pair is reported, not run. */
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++)
            if (!algo_supported((enum coll)c, (enum algo)a)) {
                struct job j = {.kind = JOB_CHECK,
                                .check = {.coll = (enum coll)c,
                                          .algo = (enum algo)a,
                                          .nranks = 4,
                                          .count = 4,
                                          .init = INIT_LECTURE}};
                worker_post(w, &j);
                struct result r;
                assert_int_equal(next_result(w, &r, 30), 1);
                assert_int_equal(r.status, CV_EUNSUPPORTED);
            }
    worker_stop(w);
}

static void test_cancel_drops_queue_and_stops_running(void **state)
{
    (void)state;
    struct worker *w = start();
    struct job big = measure_job(COLL_ALL_REDUCE, 16 * 1024, 1000000);
    uint64_t id = worker_post(w, &big);
    struct job small = measure_job(COLL_ALL_REDUCE, 4096, 1);
    for (int i = 0; i < 5; i++)
        worker_post(w, &small);
    assert_true(worker_busy(w));
    /* Let the big one start. */
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double t0 = now_s();
    worker_cancel(w);
    struct result r;
    assert_int_equal(next_result(w, &r, 10), 1);
    assert_true(now_s() - t0 < 5);
    assert_int_equal(r.job_id, id);
    assert_int_equal(r.status, CV_ECANCELLED);
    assert_true(r.last);
    /* The queued ones are gone: no more results, and the worker goes idle. */
    assert_int_equal(next_result(w, &r, 0.3), 0);
    assert_false(worker_busy(w));

    /* A cancel with nothing running does not poison the next job. */
    worker_cancel(w);
    uint64_t id2 = worker_post(w, &small);
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.job_id, id2);
    assert_int_equal(r.status, CV_OK);
    assert_int_equal(r.measure.wrong, 0);
    worker_stop(w);
}

static void test_stop_while_running(void **state)
{
    (void)state;
    struct worker *w = start();
    struct job big = measure_job(COLL_ALL_REDUCE, 16 * 1024, 1000000);
    worker_post(w, &big);
    worker_post(w, &big);
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    double t0 = now_s();
    worker_stop(w); /* cancels, joins, closes the backend, frees unread results */
    assert_true(now_s() - t0 < 5);
}

static void test_many_results_before_polling(void **state)
{
    (void)state;
    struct worker *w = start();
    uint64_t ids[20];
    for (int i = 0; i < 20; i++) {
        struct job j = measure_job(COLL_BROADCAST, 4096, 1);
        ids[i] = worker_post(w, &j);
    }
    double deadline = now_s() + 30;
    while (worker_busy(w) && now_s() < deadline) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    assert_false(worker_busy(w));
    /* Results come out in order, one per job, and the pipe drains with the queue. */
    for (int i = 0; i < 20; i++) {
        struct result r;
        assert_int_equal(next_result(w, &r, 1), 1);
        assert_int_equal(r.job_id, ids[i]);
        assert_int_equal(r.status, CV_OK);
    }
    struct pollfd pfd = {.fd = worker_fd(w), .events = POLLIN};
    assert_int_equal(poll(&pfd, 1, 0), 0);
    worker_stop(w);
}

static void test_check_rule(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++)
        for (int op = 0; op < OP_COUNT; op++) {
            /* The CPU backend runs the trace's own plan: always exact. */
            assert_true(worker_check_exact("cpu", (enum coll)c, (enum redop)op));
            bool loose =
                coll_reduces((enum coll)c) && (op == OP_SUM || op == OP_AVG || op == OP_PROD);
            assert_int_equal(worker_check_exact("nccl", (enum coll)c, (enum redop)op), !loose);
        }
}

static void test_compare_outputs(void **state)
{
    (void)state;
    float want[4] = {6.0f, 0.0f, -3.0f, NAN};
    float got[4] = {nextafterf(6.0f, INFINITY), nextafterf(0.0f, 1.0f),
                    nextafterf(-3.0f, -INFINITY), NAN};
    long inexact = 0;
    /* Exact: three elements one ulp off are three mismatches; two NaNs are equal. */
    assert_int_equal(worker_compare_outputs(want, got, NULL, 4, 4, true, &inexact), 3);
    assert_int_equal(inexact, 0);
    /* Within rounding: none is a mismatch, three are counted as inexact. */
    assert_int_equal(worker_compare_outputs(want, got, NULL, 4, 4, false, &inexact), 0);
    assert_int_equal(inexact, 3);
    /* A real error is never rounding: 1/16 off at 1, 1 off at 6, a NaN, an infinity. */
    float w2[4] = {1.0f, 6.0f, 2.0f, 5.0f};
    float g2[4] = {1.0f + 1.0f / 16, 7.0f, NAN, INFINITY};
    inexact = 0;
    assert_int_equal(worker_compare_outputs(w2, g2, NULL, 4, 16, false, &inexact), 4);
    assert_int_equal(inexact, 0);
    /* The bound is W * FLT_EPSILON * max(|want|, |got|, mag, 1): at 1000 and W = 4, 3 ulp
     * (3 * 2^-14) pass and 40 ulp do not. */
    float w3[2] = {1000.0f, 1000.0f};
    float g3[2] = {1000.0f + 3 * 0x1p-14f, 1000.0f + 40 * 0x1p-14f};
    assert_int_equal(worker_compare_outputs(w3, g3, NULL, 2, 4, false, NULL), 1);
    /* A sum that cancels to 0 carries the rounding of its terms: 1e-5 off 0 is beyond
     * 4 * FLT_EPSILON on its own, within it when the terms summed to 100 in magnitude. */
    float w4[1] = {0.0f}, g4[1] = {1e-5f}, m4[1] = {100.0f};
    assert_int_equal(worker_compare_outputs(w4, g4, NULL, 1, 4, false, NULL), 1);
    assert_int_equal(worker_compare_outputs(w4, g4, m4, 1, 4, false, NULL), 0);
    /* The magnitude never loosens an exact comparison. */
    assert_int_equal(worker_compare_outputs(w4, g4, m4, 1, 4, true, NULL), 1);
}

/* A test-only backend: its communicator's run() computes the right answer from the
 * definitions (rank 0 runs the reference on every rank's input, the others wait at a
 * barrier) and then moves every element `fake_ulps` units in the last place up (or adds
 * fake_add), the way a backend that reduces in another order may end a bit off. */
static int fake_ulps;
static float fake_add;

struct fake_comm {
    struct comm c;
    pthread_barrier_t bar;
    float *work[CV_MAX_RANKS];
    float *out[CV_MAX_RANKS]; /* the reference's result per rank (rank 0 fills) */
};

static int fake_open(struct backend *b, char *err, size_t errlen)
{
    return CV_OK;
}

static int fake_max_ranks(struct backend *b)
{
    return CV_MAX_RANKS;
}

static int fake_barrier(struct comm *c, int rank)
{
    pthread_barrier_wait(&((struct fake_comm *)c)->bar);
    return CV_OK;
}

static int fake_buf_alloc(struct comm *c, int rank, size_t count, float **out)
{
    *out = calloc(count, sizeof(float));
    return *out ? CV_OK : CV_ENOMEM;
}

static void fake_buf_free(struct comm *c, int rank, float *buf)
{
    free(buf);
}

static int fake_run(struct comm *c, int rank, const struct comm_job *j, float *work)
{
    struct fake_comm *fc = (struct fake_comm *)c;
    int W = c->nranks;
    fc->work[rank] = work;
    fake_barrier(c, rank);
    if (rank == 0) {
        const float *send[CV_MAX_RANKS];
        for (int r = 0; r < W; r++) {
            send[r] = fc->work[r] + coll_in_off(j->coll, W, j->count, r);
            fc->out[r] =
                calloc(coll_recv_count(j->coll, W, j->count, r, j->root) + 1, sizeof(float));
        }
        ref_compute(j->coll, j->op, W, j->count, j->root, (float *const *)send, fc->out);
    }
    fake_barrier(c, rank);
    size_t n = coll_recv_count(j->coll, W, j->count, rank, j->root);
    float *mine = work + coll_out_off(j->coll, W, j->count, rank);
    for (size_t i = 0; i < n; i++) {
        float v = fc->out[rank][i];
        for (int k = 0; k < fake_ulps; k++)
            v = nextafterf(v, INFINITY);
        mine[i] = v + fake_add;
    }
    fake_barrier(c, rank);
    free(fc->out[rank]);
    return CV_OK;
}

static void fake_abort(struct comm *c, const char *why)
{
}

static const char *fake_last_error(struct comm *c)
{
    return "";
}

static void fake_destroy(struct comm *c)
{
    pthread_barrier_destroy(&((struct fake_comm *)c)->bar);
    free(c);
}

static const struct comm_ops fake_comm_ops = {
    .name = "fake",
    .barrier = fake_barrier,
    .abort = fake_abort,
    .last_error = fake_last_error,
    .destroy = fake_destroy,
    .buf_alloc = fake_buf_alloc,
    .buf_free = fake_buf_free,
    .put = host_put,
    .get = host_get,
    .run = fake_run,
    .rank_noun = "fake rank",
};

static int fake_comm_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                            char *err, size_t errlen)
{
    struct fake_comm *fc = xcalloc(1, sizeof *fc);
    fc->c.ops = &fake_comm_ops;
    fc->c.nranks = cp->nranks;
    fc->c.timeout_s = cp->timeout_s;
    fc->c.self = -1;
    pthread_barrier_init(&fc->bar, NULL, (unsigned)cp->nranks);
    *out = &fc->c;
    return CV_OK;
}

static const struct backend_ops fake_gpu_ops = {
    .name = "fakegpu",
    .open = fake_open,
    .max_ranks = fake_max_ranks,
    .comm_create = fake_comm_create,
};
/* The same backend under the CPU's name: held to the CPU's bit-for-bit rule. */
static const struct backend_ops fake_cpu_ops = {
    .name = "cpu",
    .open = fake_open,
    .max_ranks = fake_max_ranks,
    .comm_create = fake_comm_create,
};

static struct result check_on(const struct backend_ops *ops, enum coll c, enum redop op)
{
    struct backend *b = xcalloc(1, sizeof *b);
    b->ops = ops;
    char err[200];
    struct worker *w = worker_start(b, err, sizeof err);
    assert_non_null(w);
    struct job j = {.kind = JOB_CHECK,
                    .check = {.coll = c,
                              .algo = ALGO_RING,
                              .op = op,
                              .nranks = 4,
                              .count = 7,
                              .init = INIT_RANDOM,
                              .seed = 7}};
    worker_post(w, &j);
    struct result r;
    assert_int_equal(next_result(w, &r, 30), 1);
    worker_stop(w); /* closes (frees) b */
    assert_int_equal(r.status, CV_OK);
    return r;
}

static void test_check_with_fake_backend(void **state)
{
    (void)state;
    /* One ulp off everywhere: all-reduce (4 ranks x 7 elements) passes within rounding on
     * the non-CPU backend, and fails element by element under the CPU's exact rule. */
    fake_ulps = 1;
    fake_add = 0.0f;
    struct result r = check_on(&fake_gpu_ops, COLL_ALL_REDUCE, OP_SUM);
    assert_string_equal(r.backend, "fakegpu");
    assert_int_equal(r.check.mismatches, 0);
    assert_int_equal(r.check.inexact, 28);
    r = check_on(&fake_gpu_ops, COLL_REDUCE_SCATTER, OP_AVG);
    assert_int_equal(r.check.mismatches, 0);
    assert_int_equal(r.check.inexact, 28);
    r = check_on(&fake_cpu_ops, COLL_ALL_REDUCE, OP_SUM);
    assert_int_equal(r.check.mismatches, 28);
    assert_int_equal(r.check.inexact, 0);
    /* Moving data and min/max have no rounding to excuse: exact on any backend. */
    r = check_on(&fake_gpu_ops, COLL_ALL_GATHER, OP_SUM);
    assert_int_equal(r.check.mismatches, 4 * 4 * 7);
    r = check_on(&fake_gpu_ops, COLL_ALL_REDUCE, OP_MAX);
    assert_int_equal(r.check.mismatches, 28);
    /* Bit for bit from the fake too: exact and not inexact. */
    fake_ulps = 0;
    r = check_on(&fake_gpu_ops, COLL_ALL_REDUCE, OP_SUM);
    assert_int_equal(r.check.mismatches, 0);
    assert_int_equal(r.check.inexact, 0);
    /* A real error (a quarter off) is a mismatch under the tolerance too. */
    fake_add = 0.25f;
    r = check_on(&fake_gpu_ops, COLL_ALL_REDUCE, OP_SUM);
    assert_int_equal(r.check.mismatches, 28);
    assert_int_equal(r.check.inexact, 0);
    fake_add = 0.0f;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measure),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_check_every_collective),
        cmocka_unit_test(test_cancel_drops_queue_and_stops_running),
        cmocka_unit_test(test_stop_while_running),
        cmocka_unit_test(test_many_results_before_polling),
        cmocka_unit_test(test_check_rule),
        cmocka_unit_test(test_compare_outputs),
        cmocka_unit_test(test_check_with_fake_backend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
