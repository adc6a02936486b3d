/* test_serve_mpi.c - `collviz serve --backend mpi` as 4 processes under mpirun, reached the
 * way the UI reaches it (worker_connect on its Unix socket), running MPI's own MPI_Allreduce
 * (bench_params.native, `--algo mpi`) while rank 2 stalls (test hook CV_TEST_STALL=2:30:3:
 * rank 2 sleeps 30 s before its first run, every deadline is 3 s). The others wait inside
 * MPI_Allreduce; the watchdog threads name rank 2, and rank 0 tells the client before the
 * job ends: the client's worker is lost with "rank 2 stalled: did not join MPI_Allreduce",
 * well before the sleeper wakes, and no process of the job is left.
 * Needs the test hooks (the ASan build), the mpi backend and mpirun; skips otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "worker/serve.h"
#include "worker/worker.h"
#include "next_result.h"

#if defined(CV_TEST_HOOKS) && defined(HAVE_MPI)

/* The collviz binary of this build: ../collviz from this test's own path. */
static bool find_collviz(char *out, size_t n)
{
    char self[512];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return false;
    self[k] = '\0';
    snprintf(out, n, "%s/../collviz", dirname(self));
    return access(out, X_OK) == 0;
}

static bool have_mpirun(void)
{
    return system("command -v mpirun >/dev/null 2>&1") == 0;
}

/* Every process in group pg has ended (mpirun and the ranks it started), within secs. */
static bool group_gone(pid_t pg, double secs)
{
    for (double t0 = now_s(); now_s() - t0 < secs;) {
        if (kill(-pg, 0) != 0 && errno == ESRCH) return true;
        usleep(100000);
    }
    return false;
}

static void test_stall_in_native_allreduce_named_to_the_client(void **state)
{
    (void)state;
    char bin[600];
    if (!find_collviz(bin, sizeof bin) || !have_mpirun()) {
        print_message("SKIP: no mpirun or no collviz next to this test\n");
        skip();
    }
    char dir[] = "/tmp/collviz-test-serve-mpi-XXXXXX";
    assert_non_null(mkdtemp(dir)); /* 0700 */
    char sock[300], log[300];
    snprintf(sock, sizeof sock, "%s/job.sock", dir);
    snprintf(log, sizeof log, "%s/job.log", dir);
    pid_t job = fork();
    assert_true(job >= 0);
    if (job == 0) {
        setpgid(0, 0);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        setenv("CV_TEST_STALL", "2:30:3", 1);
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        setenv("OMPI_MCA_btl", "self,vader", 1);
        execlp("mpirun", "mpirun", "--oversubscribe", "--bind-to", "none", "-x",
               "CV_TEST_STALL", "-x", "ASAN_OPTIONS", "-np", "4", bin, "serve", "--backend",
               "mpi", "--socket", sock, (char *)NULL);
        _exit(127);
    }
    setpgid(job, job);
    /* rank 0 listens once MPI is up */
    struct stat st;
    double t0 = now_s();
    while (lstat(sock, &st) != 0 && now_s() - t0 < 60)
        usleep(100000);
    char err[300] = "";
    struct worker *w = NULL;
    char addr[320];
    snprintf(addr, sizeof addr, "unix:%s", sock);
    int fd = -1;
    bool tcp = false;
    if (lstat(sock, &st) == 0 && serve_dial(addr, &fd, &tcp, err, sizeof err) == CV_OK)
        w = worker_connect(fd, NULL, 20, err, sizeof err);
    if (!w) {
        kill(-job, SIGKILL);
        waitpid(job, NULL, 0);
        fail_msg("no job to connect to: %s", err);
    }
    assert_true(worker_facts(w)->multiprocess);
    struct job j = {.kind = JOB_MEASURE};
    j.measure.params = (struct bench_params){.coll = COLL_ALL_REDUCE,
                                             .algo = ALGO_RING,
                                             .op = OP_SUM,
                                             .nranks = 4,
                                             .bytes = 64 * 1024,
                                             .iters = 2,
                                             .warmup = 1,
                                             .check = true,
                                             .timeout_s = 30,
                                             .native = true};
    t0 = now_s();
    worker_post(w, &j);
    char why[300] = "";
    struct result r;
    while (!worker_lost(w, why, sizeof why) && now_s() - t0 < 25) {
        if (next_result(w, &r, 0.2)) result_free(&r);
    }
    double took = now_s() - t0;
    worker_stop(w);
    int status = 0;
    bool ended = false;
    for (double t1 = now_s(); now_s() - t1 < 15;) {
        if (waitpid(job, &status, WNOHANG) == job) {
            ended = true;
            break;
        }
        usleep(100000);
    }
    bool gone = ended && group_gone(job, 10);
    if (!ended || !gone) {
        kill(-job, SIGKILL);
        if (!ended) waitpid(job, NULL, 0);
    }
    char cmd[400];
    char out[2000] = "";
    FILE *lf = fopen(log, "r");
    if (lf) {
        size_t n = fread(out, 1, sizeof out - 1, lf);
        out[n] = '\0';
        fclose(lf);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) print_message("could not remove %s\n", dir);
    if (!strstr(why, "rank 2 stalled: did not join MPI_Allreduce for 3 s"))
        fail_msg("the client was told '%s' after %.1f s; the job said:\n%s", why, took, out);
    assert_true(took < 15); /* the deadline (3 s) and a grace, not the sleeper's 30 s */
    assert_null(strstr(why, "rank 0 stalled"));
    assert_null(strstr(why, "rank 1 stalled"));
    assert_null(strstr(why, "rank 3 stalled"));
    assert_true(ended);
    assert_true(WIFEXITED(status) ? WEXITSTATUS(status) != 0 : true); /* the job failed */
    assert_true(gone); /* no process of the job left */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stall_in_native_allreduce_named_to_the_client),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

static void test_needs_hooks_and_mpi(void **state)
{
    (void)state;
    print_message("SKIP: needs the test hooks (ASan build) and the mpi backend\n");
    skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_needs_hooks_and_mpi),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
