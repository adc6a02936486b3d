/* test_worker_memcpy.c - JOB_MEMCPY, the hierarchy screen's "this machine's memory"
 * measurement: the direct call's figures agree with each other (gbs = bytes / best time),
 * bad sizes are refused before allocating, a set cancel flag stops it, and the job posted to
 * a worker comes back with its own kind and the size asked for. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <poll.h>
#include <string.h>

#include "backend/backend.h"
#include "core/util.h"
#include "worker/worker.h"

static void test_direct(void **state)
{
    (void)state;
    struct memcpy_result m;
    char err[200];
    assert_int_equal(worker_memcpy_measure((size_t)4 << 20, 3, NULL, &m, err, sizeof err),
                     CV_OK);
    assert_int_equal(m.bytes, (size_t)4 << 20);
    assert_int_equal(m.reps, 3);
    assert_true(m.best_s > 0 && m.gbs > 0);
    assert_true(fabs(m.gbs - (double)m.bytes / m.best_s / 1e9) <= 1e-12 * m.gbs);
    assert_string_equal(m.how, "memcpy of 4 MiB in host memory on the backend thread, best of "
                               "3, bytes copied per second");

    assert_int_equal(worker_memcpy_measure(0, 3, NULL, &m, err, sizeof err), CV_EINVAL);
    assert_int_equal(worker_memcpy_measure(4096, 0, NULL, &m, err, sizeof err), CV_EINVAL);
    assert_int_equal(worker_memcpy_measure(SIZE_MAX / 8, 1, NULL, &m, err, sizeof err),
                     CV_ENOMEM);
    assert_non_null(strstr(err, "needs more than 8 EiB of memory; "));
    volatile int cancel = 1;
    assert_int_equal(worker_memcpy_measure(4096, 3, &cancel, &m, err, sizeof err),
                     CV_ECANCELLED);
    assert_true(m.gbs == 0);
}

static void test_job(void **state)
{
    (void)state;
    struct backend *b;
    char err[256];
    assert_int_equal(backend_open("cpu", &b, err, sizeof err, NULL, 0), CV_OK);
    struct worker *w = worker_start(b, err, sizeof err);
    assert_non_null(w);
    struct job j = {.kind = JOB_MEMCPY, .copy = {.bytes = (size_t)1 << 20, .reps = 2}};
    uint64_t id = worker_post(w, &j);
    struct result r;
    double deadline = now_s() + 30;
    int got = 0;
    while (!got && now_s() < deadline) {
        got = worker_poll(w, &r);
        if (!got) {
            struct pollfd pfd = {.fd = worker_fd(w), .events = POLLIN};
            poll(&pfd, 1, 100);
        }
    }
    assert_true(got);
    assert_int_equal(r.job_id, id);
    assert_int_equal(r.kind, JOB_MEMCPY);
    assert_int_equal(r.status, CV_OK);
    assert_true(r.last);
    assert_int_equal(r.copy.bytes, (size_t)1 << 20);
    assert_int_equal(r.copy.reps, 2);
    assert_true(r.copy.gbs > 0);
    worker_stop(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_direct),
        cmocka_unit_test(test_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
