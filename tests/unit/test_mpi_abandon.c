/* test_mpi_abandon.c - a rank of the mpi backend that gives up on a plan run (its peer
 * stalled) frees no buffer an MPI receive of that run can still write into. Two processes
 * under mpirun: rank 1 sleeps 6 s before its run (test hook CV_TEST_STALL=1:6:0.5, every
 * deadline 0.5 s), rank 0 names it stalled after the deadline and the roll call's grace
 * (2 s), releases the job (unprepare) and its working buffer, and then stays in MPI (a
 * barrier) while rank 1 wakes and sends its first step: that message matches the receive
 * rank 0 posted and abandoned, and must not land in freed memory (ASan:
 * heap-use-after-free). Both ranks must reach the barrier's end and say so; no sanitizer
 * report. Needs the test hooks (the ASan build), the mpi backend and mpirun; skips
 * otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"

#if defined(CV_TEST_HOOKS) && defined(HAVE_MPI)
#include <mpi.h>

#include "backend/backend.h"
#include "backend/comm.h"
#include "core/plan.h"

#define COUNT 1024 /* floats per rank: 2 KiB a ring step, sent eagerly */

/* One rank of the job (under mpirun): run an all-reduce plan that the peer's stall makes
 * fail, release everything as run.c does, then wait in MPI for the peer. */
static int child(void)
{
    char err[300];
    struct backend *b = NULL;
    if (backend_open("mpi", &b, err, sizeof err, NULL, 0) != CV_OK) {
        fprintf(stderr, "backend_open: %s\n", err);
        return 1;
    }
    struct comm_params cp = {.nranks = 2, .traffic = COMM_TRAFFIC_COLL, .timeout_s = 30};
    struct comm *c = NULL;
    if (b->ops->comm_create(b, &cp, &c, err, sizeof err) != CV_OK) {
        fprintf(stderr, "comm_create: %s\n", err);
        return 1;
    }
    struct plan p;
    if (plan_build(&p, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, 2, COUNT, 0, err, sizeof err) !=
        CV_OK) {
        fprintf(stderr, "plan_build: %s\n", err);
        return 1;
    }
    int me = c->self;
    struct comm_job j = {.plan = &p, .coll = COLL_ALL_REDUCE, .op = OP_SUM, .count = COUNT};
    float *work = NULL;
    if (c->ops->prepare(c, &j) != CV_OK ||
        c->ops->buf_alloc(c, me, p.work_len, &work) != CV_OK) {
        fprintf(stderr, "prepare: %s\n", c->ops->last_error(c));
        return 1;
    }
    int rc = c->ops->run(c, me, &j, work);
    printf("rank %d run: %d (%s)\n", me, rc, c->ops->last_error(c));
    c->ops->unprepare(c, &j);
    c->ops->buf_free(c, me, work);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD); /* rank 1's late message arrives meanwhile */
    printf("rank %d done\n", me);
    fflush(stdout);
    /* The job is broken (a stall was named): closing MPI would abort it. */
    _exit(0);
}

static void test_abandoned_receive_frees_nothing_it_writes(void **state)
{
    (void)state;
    if (system("command -v mpirun >/dev/null 2>&1") != 0) skip();
    char self[512], log[] = "/tmp/collviz-test-mpi-abandon-XXXXXX";
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(k > 0);
    self[k] = '\0';
    int fd = mkstemp(log);
    assert_true(fd >= 0);
    double t0 = now_s();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        setenv("CV_TEST_STALL", "1:6:0.5", 1);
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        setenv("OMPI_MCA_btl", "self,vader", 1);
        execlp("mpirun", "mpirun", "--oversubscribe", "--bind-to", "none", "-x",
               "CV_TEST_STALL", "-x", "ASAN_OPTIONS", "-np", "2", self, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    int status = 0;
    bool ended = false;
    while (!ended && now_s() - t0 < 40) {
        ended = waitpid(pid, &status, WNOHANG) == pid;
        if (!ended) usleep(100000);
    }
    if (!ended) {
        kill(-pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    char out[8000];
    ssize_t n = pread(fd, out, sizeof out - 1, 0);
    close(fd);
    unlink(log);
    out[n > 0 ? n : 0] = '\0';
    assert_true(ended);
    if (strstr(out, "AddressSanitizer") || strstr(out, "runtime error"))
        fail_msg("a sanitizer report:\n%s", out);
    if (!strstr(out, "rank 1 stalled")) fail_msg("rank 1's stall was not named:\n%s", out);
    if (!strstr(out, "rank 0 done") || !strstr(out, "rank 1 done"))
        fail_msg("a rank did not get through:\n%s", out);
}

int main(void)
{
    if (getenv("OMPI_COMM_WORLD_SIZE")) return child();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abandoned_receive_frees_nothing_it_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

static void skip_test(void **state)
{
    (void)state;
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(skip_test)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
