/* test_serve_mpi.c - `collviz serve --backend mpi` as 4 processes under mpirun, reached the
 * way the UI reaches it (worker_connect on its Unix socket), running MPI's own MPI_Allreduce
 * (bench_params.native, `--algo mpi`) while rank 2 stalls (test hook CV_TEST_STALL=2:30:3:
 * rank 2 sleeps 30 s before its first run, every deadline is 3 s). The others wait inside
 * MPI_Allreduce; the watchdog threads name rank 2, and rank 0 tells the client before the
 * job ends: the client's worker is lost with "rank 2 stalled: did not join MPI_Allreduce",
 * well before the sleeper wakes, and no process of the job is left. A broadcast of a job
 * that fails (test hook CV_TEST_BCAST_FAIL=RANK:N), on rank 0 or on another rank, ends the
 * job with a line saying so, never a hang.
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

/* A job of `collviz serve --backend mpi` on 4 processes, started with the test hook
 * VAR=VALUE, and a client connected to it. */
struct mpi_job {
    char dir[64], sock[300], log[300];
    pid_t pid;
    struct worker *w;
    int status;     /* the job's, once ended */
    bool ended;     /* mpirun ended */
    bool gone;      /* and every process of the job with it */
    char out[2000]; /* what the job said (stdout and stderr) */
};

static void job_start(struct mpi_job *jb, const char *var, const char *value)
{
    memset(jb, 0, sizeof *jb);
    snprintf(jb->dir, sizeof jb->dir, "/tmp/collviz-test-serve-mpi-XXXXXX");
    assert_non_null(mkdtemp(jb->dir)); /* 0700 */
    snprintf(jb->sock, sizeof jb->sock, "%s/job.sock", jb->dir);
    snprintf(jb->log, sizeof jb->log, "%s/job.log", jb->dir);
    char bin[600];
    assert_true(find_collviz(bin, sizeof bin));
    jb->pid = fork();
    assert_true(jb->pid >= 0);
    if (jb->pid == 0) {
        setpgid(0, 0);
        int fd = open(jb->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        setenv(var, value, 1);
        setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        setenv("OMPI_MCA_btl", "self,vader", 1);
        execlp("mpirun", "mpirun", "--oversubscribe", "--bind-to", "none", "-x", var, "-x",
               "ASAN_OPTIONS", "-np", "4", bin, "serve", "--backend", "mpi", "--socket",
               jb->sock, (char *)NULL);
        _exit(127);
    }
    setpgid(jb->pid, jb->pid);
    /* rank 0 listens once MPI is up */
    struct stat st;
    double t0 = now_s();
    while (lstat(jb->sock, &st) != 0 && now_s() - t0 < 60)
        usleep(100000);
    char err[300] = "";
    char addr[320];
    snprintf(addr, sizeof addr, "unix:%s", jb->sock);
    int fd = -1;
    bool tcp = false;
    if (lstat(jb->sock, &st) == 0 && serve_dial(addr, &fd, &tcp, err, sizeof err) == CV_OK)
        jb->w = worker_connect(fd, NULL, 20, err, sizeof err);
    if (!jb->w) {
        kill(-jb->pid, SIGKILL);
        waitpid(jb->pid, NULL, 0);
        fail_msg("no job to connect to: %s", err);
    }
    assert_true(worker_facts(jb->w)->multiprocess);
}

/* An all-reduce of 64 KiB on the 4 ranks (MPI's own MPI_Allreduce when native). */
static void job_post_allreduce(struct mpi_job *jb, bool native)
{
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
                                             .native = native};
    worker_post(jb->w, &j);
}

/* Wait up to secs for the client's worker to be lost (why), counting the results that
 * came meanwhile and keeping the first failed one's err; then stop the client, wait for the
 * job to end and collect what it said. */
static double job_wait_lost(struct mpi_job *jb, double secs, char *why, size_t n, int *results,
                            char *failed, size_t fn)
{
    double t0 = now_s();
    struct result r;
    why[0] = '\0';
    *results = 0;
    if (failed) failed[0] = '\0';
    while (!worker_lost(jb->w, why, n) && now_s() - t0 < secs) {
        if (next_result(jb->w, &r, 0.2)) {
            (*results)++;
            if (failed && !failed[0] && r.status != CV_OK) snprintf(failed, fn, "%s", r.err);
            result_free(&r);
        }
    }
    double took = now_s() - t0;
    worker_stop(jb->w);
    jb->w = NULL;
    for (double t1 = now_s(); now_s() - t1 < 15;) {
        if (waitpid(jb->pid, &jb->status, WNOHANG) == jb->pid) {
            jb->ended = true;
            break;
        }
        usleep(100000);
    }
    jb->gone = jb->ended && group_gone(jb->pid, 10);
    if (!jb->ended || !jb->gone) {
        kill(-jb->pid, SIGKILL);
        if (!jb->ended) waitpid(jb->pid, NULL, 0);
    }
    FILE *lf = fopen(jb->log, "r");
    if (lf) {
        size_t k = fread(jb->out, 1, sizeof jb->out - 1, lf);
        jb->out[k] = '\0';
        fclose(lf);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", jb->dir);
    if (system(cmd) != 0) print_message("could not remove %s\n", jb->dir);
    return took;
}

static bool skip_without_mpirun(void)
{
    char bin[600];
    if (find_collviz(bin, sizeof bin) && have_mpirun()) return false;
    print_message("SKIP: no mpirun or no collviz next to this test\n");
    return true;
}

static void test_stall_in_native_allreduce_named_to_the_client(void **state)
{
    (void)state;
    if (skip_without_mpirun()) skip();
    struct mpi_job jb;
    job_start(&jb, "CV_TEST_STALL", "2:30:3");
    job_post_allreduce(&jb, true);
    char why[300];
    int results = 0;
    double took = job_wait_lost(&jb, 25, why, sizeof why, &results, NULL, 0);
    if (!strstr(why, "rank 2 stalled: did not join MPI_Allreduce for 3 s"))
        fail_msg("the client was told '%s' after %.1f s; the job said:\n%s", why, took, jb.out);
    assert_true(took < 15); /* the deadline (3 s) and a grace, not the sleeper's 30 s */
    assert_null(strstr(why, "rank 0 stalled"));
    assert_null(strstr(why, "rank 1 stalled"));
    assert_null(strstr(why, "rank 3 stalled"));
    assert_true(jb.ended);
    assert_true(WIFEXITED(jb.status) ? WEXITSTATUS(jb.status) != 0 : true); /* the job failed */
    assert_true(jb.gone); /* no process of the job left */
}

/* Rank 0's broadcast of the job to the others fails (CV_TEST_BCAST_FAIL=0:1: its first
 * launcher_bcast, the job's length): the job is not run, its result says why, the client
 * is told the job is lost with the same words, and the job ends, the others included
 * (they wait in the broadcast and would wait for ever). */
static void test_rank0_broadcast_failure_ends_the_job(void **state)
{
    (void)state;
    if (skip_without_mpirun()) skip();
    struct mpi_job jb;
    job_start(&jb, "CV_TEST_BCAST_FAIL", "0:1");
    job_post_allreduce(&jb, false);
    char why[300], failed[300];
    int results = 0;
    double took = job_wait_lost(&jb, 25, why, sizeof why, &results, failed, sizeof failed);
    const char *want = "rank 0 could not broadcast the job to the other ranks";
    if (!strstr(why, want))
        fail_msg("the client was told '%s' after %.1f s; the job said:\n%s", why, took, jb.out);
    if (results > 0 && !strstr(failed, want))
        fail_msg("the job's result: '%s'; the job said:\n%s", failed, jb.out);
    assert_non_null(strstr(jb.out, want)); /* the job's own log says so too */
    assert_true(jb.ended);
    assert_true(WIFEXITED(jb.status) ? WEXITSTATUS(jb.status) != 0 : true);
    assert_true(jb.gone);
}

/* Rank 2 does not hear the job's bytes (CV_TEST_BCAST_FAIL=2:2: its second broadcast):
 * it says so, naming itself, and the job ends rather than leave rank 0 and the others
 * waiting for it; the client is told its job is lost. */
static void test_follower_broadcast_failure_ends_the_job(void **state)
{
    (void)state;
    if (skip_without_mpirun()) skip();
    struct mpi_job jb;
    job_start(&jb, "CV_TEST_BCAST_FAIL", "2:2");
    job_post_allreduce(&jb, false);
    char why[300];
    int results = 0;
    double took = job_wait_lost(&jb, 25, why, sizeof why, &results, NULL, 0);
    if (!strstr(jb.out, "collviz serve: rank 2 lost rank 0's jobs (MPI_Bcast of a job failed)"))
        fail_msg(
            "rank 2 did not say it lost the job; after %.1f s the client was told '%s' and "
            "the job said:\n%s",
            took, why, jb.out);
    assert_true(why[0] != '\0'); /* the client's worker is lost, not left waiting */
    assert_true(jb.ended);
    assert_true(WIFEXITED(jb.status) ? WEXITSTATUS(jb.status) != 0 : true);
    assert_true(jb.gone);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stall_in_native_allreduce_named_to_the_client),
        cmocka_unit_test(test_rank0_broadcast_failure_ends_the_job),
        cmocka_unit_test(test_follower_broadcast_failure_ends_the_job),
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
