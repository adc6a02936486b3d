/* test_worker.c - the backend thread, driven the way the UI drives it: post jobs, sleep in
 * poll() on the wake pipe with a deadline, pop results. MEASURE gives one checked row;
 * SWEEP one row per size with index/total and `last` only on the final one; CHECK
 * compares the backend against the trace (0 mismatches for every collective and
 * algorithm); cancel drops queued jobs and stops the running one; stop joins cleanly
 * (ASan's leak check covers what it frees). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/util.h"
#include "worker/worker.h"

static struct worker *start(void)
{
    struct backend *b;
    char err[256];
    assert_int_equal(backend_open("cpu", &b, err, sizeof err, NULL, 0), CV_OK);
    struct worker *w = worker_start(b, err, sizeof err);
    assert_non_null(w);
    assert_string_equal(worker_backend_name(w), "cpu");
    assert_ptr_equal(worker_backend(w), b);
    return w;
}

/* Wait in poll() for the next result, at most timeout_s. */
static int next_result(struct worker *w, struct result *r, double timeout_s)
{
    double deadline = now_s() + timeout_s;
    for (;;) {
        if (worker_poll(w, r))
            return 1;
        double left = deadline - now_s();
        if (left <= 0)
            return 0;
        struct pollfd pfd = {.fd = worker_fd(w), .events = POLLIN};
        poll(&pfd, 1, (int)(left * 1000) + 1);
    }
}

static struct job measure_job(enum coll c, size_t bytes, int iters)
{
    struct job j = {.kind = JOB_MEASURE};
    j.params = (struct bench_params){
        .coll = c, .algo = ALGO_RING, .op = OP_SUM, .nranks = 4, .bytes = bytes,
        .iters = iters, .warmup = 1, .check = true, .timeout_s = 0, /* worker: 30 s */
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
    assert_int_equal(r.row.bytes, 256 * 1024);
    assert_int_equal(r.row.count, 64 * 1024);
    assert_int_equal(r.row.wrong, 0);
    assert_string_equal(r.row.algo, "ring");
    assert_true(r.row.time_us > 0 && r.row.busbw > 0);
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
    j.kind = JOB_SWEEP;
    j.sweep_min = 4 * 1024;
    j.sweep_max = 64 * 1024;
    j.sweep_factor = 2;
    uint64_t id = worker_post(w, &j);
    size_t want = 4 * 1024;
    for (int i = 0; i < 5; i++, want *= 2) {
        struct result r;
        assert_int_equal(next_result(w, &r, 30), 1);
        assert_int_equal(r.job_id, id);
        assert_int_equal(r.kind, JOB_SWEEP);
        assert_int_equal(r.status, CV_OK);
        assert_int_equal(r.index, i);
        assert_int_equal(r.total, 5);
        assert_int_equal(r.last, i == 4);
        assert_int_equal(r.row.bytes, want);
        assert_int_equal(r.row.wrong, 0);
    }
    struct result r;
    assert_int_equal(next_result(w, &r, 0.2), 0);

    /* A size that fails ends the sweep there, with last set: 1 TiB .. 1 PiB would be 11
     * sizes, the first cannot fit. */
    j.sweep_min = (size_t)1 << 40;
    j.sweep_max = (size_t)1 << 50;
    j.sweep_factor = 2;
    worker_post(w, &j);
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.status, CV_ENOMEM);
    assert_int_equal(r.index, 0);
    assert_int_equal(r.total, 11);
    assert_true(r.last);
    assert_int_equal(next_result(w, &r, 0.2), 0);

    /* A bad sweep is one error result. */
    j.sweep_factor = 1.0;
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
                if (!algo_supported((enum coll)c, (enum algo)a))
                    continue;
                struct job j = {.kind = JOB_CHECK, .coll = (enum coll)c, .algo = (enum algo)a,
                                .op = coll_reduces((enum coll)c) ? OP_AVG : OP_SUM,
                                .nranks = W, .count = 7,
                                .root = coll_is_rooted((enum coll)c) ? W / 2 : 0,
                                .init = INIT_RANDOM, .seed = 42};
                worker_post(w, &j);
                posted++;
            }
    for (int i = 0; i < posted; i++) {
        struct result r;
        assert_int_equal(next_result(w, &r, 30), 1);
        assert_int_equal(r.kind, JOB_CHECK);
        if (r.status != CV_OK)
            fail_msg("check job %d: %s", i, r.err);
        assert_int_equal(r.mismatches, 0);
        assert_true(r.last);
    }
    /* An unsupported pair is reported, not run. */
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++)
            if (!algo_supported((enum coll)c, (enum algo)a)) {
                struct job j = {.kind = JOB_CHECK, .coll = (enum coll)c, .algo = (enum algo)a,
                                .nranks = 4, .count = 4, .init = INIT_LECTURE};
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
    assert_int_equal(r.row.wrong, 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measure),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_check_every_collective),
        cmocka_unit_test(test_cancel_drops_queue_and_stops_running),
        cmocka_unit_test(test_stop_while_running),
        cmocka_unit_test(test_many_results_before_polling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
