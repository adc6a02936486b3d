/* test_serve.c - `collviz serve` and its client without MPI: a job on the CPU backend in a
 * child process, reached through its private Unix socket with worker_connect(). A client
 * measures (rows with #wrong 0), sweeps, checks, trains (the whole summary, equal to a run
 * in this process) and cancels through the messages; a
 * malformed frame, a job before hello and a second UI are refused and the job keeps
 * serving; over TCP a wrong or missing token is refused in one line and the right one
 * works; a socket directory that is not private (mode 0777, a symlink) or a socket that is
 * not 0600 is refused before connecting; shutdown ends the job. Over TCP, 50 idle, half-
 * header, garbage and wrong-token connections never lock the UI out: the right token gets
 * in while they are still waiting (before their hello deadline), a wrong token is answered
 * only after serve's delay, and past serve's bound of waiting connections the oldest are
 * the ones closed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/util.h"
#include "worker/proto.h"
#include "worker/serve.h"
#include "worker/worker.h"
#include "next_result.h"

static char dir[256], sock[300];
static pid_t job;
static char tcp_addr[128], token[PROTO_TOKEN_MAX];
static double g_hello_timeout; /* serve_opts.hello_timeout_s of the next start_job */
static size_t g_room; /* > 0: the next start_job's child gets RLIMIT_AS = mapped + this */

/* Start `serve` in a child: Unix socket (tcp NULL) or TCP on an ephemeral port, whose
 * address and token are read from the child's stdout. */
static void start_job(const char *tcp)
{
    int out[2];
    assert_int_equal(pipe(out), 0);
    job = fork();
    assert_true(job >= 0);
    if (job == 0) {
        close(out[0]);
        dup2(out[1], STDOUT_FILENO);
        int nul = open("/dev/null", 1);
        if (!getenv("SERVE_STDERR")) dup2(nul, STDERR_FILENO);
        struct backend *b;
        char err[200];
        if (backend_open("cpu", &b, err, sizeof err, NULL, 0) != CV_OK) _exit(3);
        if (g_room) { /* `ulimit -v`: what the child maps now, and g_room more */
            FILE *st = fopen("/proc/self/status", "r");
            char l[200];
            size_t kib = 0;
            while (st && fgets(l, sizeof l, st))
                if (sscanf(l, "VmSize: %zu kB", &kib) == 1) break;
            if (st) fclose(st);
            struct rlimit rl = {kib * 1024 + g_room, kib * 1024 + g_room};
            if (!kib || setrlimit(RLIMIT_AS, &rl) != 0) _exit(4);
        }
        struct serve_opts o = {
            .socket = tcp ? NULL : sock, .tcp = tcp, .hello_timeout_s = g_hello_timeout};
        _exit(serve_run(b, &o));
    }
    close(out[1]);
    FILE *f = fdopen(out[0], "r");
    char line[300];
    assert_non_null(fgets(line, sizeof line, f));
    if (tcp) {
        assert_int_equal(sscanf(line, "collviz serve: listening on %127s", tcp_addr), 1);
        assert_non_null(fgets(line, sizeof line, f));
        assert_int_equal(sscanf(line, "collviz serve: token %64s", token), 1);
        assert_int_equal(strlen(token), 64);
    } else {
        char want[400];
        snprintf(want, sizeof want, "collviz serve: listening on unix:%s (backend cpu)\n",
                 sock);
        assert_string_equal(line, want);
    }
    fclose(f);
}

static void stop_job(void)
{
    kill(job, SIGTERM);
    int st;
    waitpid(job, &st, 0);
}

static struct worker *client(const char *addr, const char *tok, char *err, size_t n)
{
    int fd;
    bool tcp;
    if (serve_dial(addr, &fd, &tcp, err, n) != CV_OK) return NULL;
    return worker_connect(fd, tok, 10, err, n);
}

static struct job measure(size_t bytes)
{
    struct job j = {.kind = JOB_MEASURE};
    j.measure.params = (struct bench_params){.coll = COLL_ALL_REDUCE,
                                             .algo = ALGO_RING,
                                             .op = OP_SUM,
                                             .nranks = 4,
                                             .bytes = bytes,
                                             .iters = 3,
                                             .warmup = 1,
                                             .check = true,
                                             .timeout_s = 30};
    return j;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/collviz-test-serve-XXXXXX");
    assert_non_null(mkdtemp(dir)); /* 0700 */
    snprintf(sock, sizeof sock, "%s/job.sock", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (job > 0 && waitpid(job, NULL, WNOHANG) == 0) { /* a test that failed half way */
        kill(job, SIGKILL);
        waitpid(job, NULL, 0);
    }
    job = 0;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_measure_sweep_check(void **state)
{
    (void)state;
    start_job(NULL);
    struct stat st;
    assert_int_equal(lstat(sock, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    char err[300];
    char addr[320];
    snprintf(addr, sizeof addr, "unix:%s", sock);
    struct worker *w = client(addr, NULL, err, sizeof err);
    if (!w) fail_msg("connect: %s", err);
    assert_true(worker_remote(w));
    const struct worker_facts *f = worker_facts(w);
    assert_string_equal(f->name, "cpu");
    assert_int_equal(f->max_ranks, CV_MAX_RANKS);
    assert_non_null(strstr(f->desc[4], "4 ranks"));
    assert_non_null(strstr(f->where, "collviz serve"));

    struct job j = measure(64 * 1024);
    uint64_t id = worker_post(w, &j);
    assert_true(worker_busy(w));
    struct result r;
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.job_id, id);
    assert_int_equal(r.kind, JOB_MEASURE);
    if (r.status != CV_OK) fail_msg("measure: %s", r.err);
    assert_int_equal(r.measure.bytes, 64 * 1024);
    assert_int_equal(r.measure.count, 16 * 1024);
    assert_int_equal(r.measure.wrong, 0);
    assert_int_equal(r.measure.nranks, 4);
    assert_string_equal(r.measure.algo, "ring");
    assert_true(r.measure.busbw > 0);
    assert_string_equal(r.backend, "cpu");
    assert_false(worker_busy(w));

    struct job s = {.kind = JOB_SWEEP};
    s.sweep.params = measure(0).measure.params;
    s.sweep.min = 4096;
    s.sweep.max = 16384;
    s.sweep.factor = 2;
    id = worker_post(w, &s);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(next_result(w, &r, 30), 1);
        assert_int_equal(r.job_id, id);
        assert_int_equal(r.status, CV_OK);
        assert_int_equal(r.sweep.index, i);
        assert_int_equal(r.sweep.total, 3);
        assert_int_equal(r.sweep.row.bytes, (size_t)4096 << i);
        assert_int_equal(r.sweep.row.wrong, 0);
        assert_int_equal(r.last, i == 2);
    }

    struct job c = {.kind = JOB_CHECK,
                    .check = {.coll = COLL_ALL_GATHER,
                              .algo = ALGO_RING,
                              .nranks = 5,
                              .count = 7,
                              .init = INIT_RANDOM,
                              .seed = 3}};
    worker_post(w, &c);
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.status, CV_OK);
    assert_int_equal(r.check.mismatches, 0);

    /* TRAIN: the whole summary comes back, equal to a run in this process */
    struct job t = {.kind = JOB_TRAIN};
    train_config_default(&t.train.cfg);
    t.train.cfg.scheme = TRAIN_DDP;
    t.train.cfg.nranks = 2;
    t.train.cfg.layers = 2;
    t.train.cfg.dim = 32;
    t.train.cfg.batch = 8;
    t.train.cfg.steps = 2;
    id = worker_post(w, &t);
    assert_int_equal(next_result(w, &r, 60), 1);
    assert_int_equal(r.job_id, id);
    if (r.status != CV_OK) fail_msg("train: %s", r.err);
    assert_non_null(r.train.summary);
    struct train_summary *here = xcalloc(1, sizeof *here);
    assert_int_equal(train_summary_run(&t.train.cfg, here, NULL, err, sizeof err), CV_OK);
    assert_int_equal(r.train.summary->steps_done, 2);
    assert_int_equal(r.train.summary->nranks, here->nranks);
    for (int k = 0; k < 2; k++) {
        assert_true(r.train.summary->loss[k] == here->loss[k]);
        assert_true(r.train.summary->ref_loss[k] == here->ref_loss[k]);
    }
    assert_int_equal(r.train.summary->nevents, here->nevents);
    assert_true(r.train.summary->dev.within);
    free(here);
    result_free(&r);

    /* cancel: a long sweep queued behind another is dropped without a word, the running
     * one ends cancelled, and the worker goes idle */
    s.sweep.min = 1 << 20;
    s.sweep.max = 1 << 26;
    s.sweep.params.iters = 50;
    worker_post(w, &s);
    uint64_t dropped = worker_post(w, &s);
    assert_int_equal(next_result(w, &r, 60), 1); /* the first size of the first sweep */
    worker_cancel(w);
    double until = now_s() + 30;
    bool saw_cancel = false;
    while (now_s() < until && worker_busy(w)) {
        if (next_result(w, &r, 1)) {
            assert_true(r.job_id != dropped);
            if (r.status == CV_ECANCELLED) saw_cancel = true;
        }
    }
    assert_false(worker_busy(w));
    while (next_result(w, &r, 0.3))
        assert_true(r.job_id != dropped);
    (void)saw_cancel; /* the running sweep may have been between sizes */

    /* a second UI is refused while one is connected */
    struct worker *w2 = client(addr, NULL, err, sizeof err);
    assert_null(w2);
    assert_non_null(strstr(err, "another UI is connected"));

    /* shutdown ends the job */
    worker_shutdown_job(w);
    int stat;
    until = now_s() + 10;
    pid_t got = 0;
    while (now_s() < until && (got = waitpid(job, &stat, WNOHANG)) == 0)
        usleep(20000);
    assert_int_equal(got, job);
    assert_true(WIFEXITED(stat) && WEXITSTATUS(stat) == 0);
    assert_int_equal(access(sock, F_OK), -1); /* the socket is removed */
    char why[200];
    until = now_s() + 5;
    while (now_s() < until && !worker_lost(w, why, sizeof why))
        usleep(20000);
    assert_true(worker_lost(w, why, sizeof why));
    worker_stop(w);
}

/* Raw bytes to the job: returns what comes back before it closes (0 = closed at once). */
static size_t send_raw(const void *buf, size_t n, unsigned char *back, size_t cap)
{
    int fd;
    bool tcp;
    char err[200];
    assert_int_equal(serve_dial(sock, &fd, &tcp, err, sizeof err), CV_OK);
    assert_int_equal(send(fd, buf, n, MSG_NOSIGNAL), (ssize_t)n);
    size_t got = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        assert_int_equal(poll(&p, 1, 15000), 1); /* it answers or closes, never hangs */
        ssize_t r = recv(fd, back + got, cap - got, 0);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    return got;
}

static void measure_once(void)
{
    char err[300];
    struct worker *w = client(sock, NULL, err, sizeof err);
    if (!w) fail_msg("connect after a refusal: %s", err);
    struct job j = measure(4096);
    worker_post(w, &j);
    struct result r;
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.status, CV_OK);
    assert_int_equal(r.measure.wrong, 0);
    worker_stop(w);
}

static void test_malformed_refused(void **state)
{
    (void)state;
    start_job(NULL);
    unsigned char back[4096];
    /* garbage: closed without an answer */
    assert_int_equal(send_raw("GET / HTTP/1.0\r\n\r\n", 18, back, sizeof back), 0);
    measure_once();
    /* a header announcing more than the limit */
    unsigned char h[PROTO_HDR] = {'C',         'V', 'Z',  'P',  PROTO_VERSION, 0,
                                  PROTO_HELLO, 0,   0xff, 0xff, 0xff,          0x7f};
    assert_int_equal(send_raw(h, sizeof h, back, sizeof back), 0);
    measure_once();
    /* a job before hello: refused with a reason */
    struct proto_msg m = {.type = PROTO_JOB};
    m.job = measure(4096);
    unsigned char *f;
    size_t n;
    assert_int_equal(proto_encode(&m, &f, &n, NULL, 0), CV_OK);
    size_t got = send_raw(f, n, back, sizeof back);
    free(f);
    struct proto_msg ans;
    assert_int_equal(proto_decode(back, got, &ans, NULL, 0), CV_OK);
    assert_int_equal(ans.type, PROTO_REFUSED);
    assert_non_null(strstr(ans.refused.why, "before hello"));
    /* hello, then a job whose collective is out of range: closed after the facts */
    struct proto_msg hello = {.type = PROTO_HELLO};
    unsigned char *fh, *fj;
    size_t nh, nj;
    assert_int_equal(proto_encode(&hello, &fh, &nh, NULL, 0), CV_OK);
    assert_int_equal(proto_encode(&m, &fj, &nj, NULL, 0), CV_OK);
    fj[PROTO_HDR + 12] = 99; /* params.coll */
    unsigned char *both = xmalloc(nh + nj);
    memcpy(both, fh, nh);
    memcpy(both + nh, fj, nj);
    got = send_raw(both, nh + nj, back, sizeof back);
    assert_int_equal(proto_decode(back, got, &ans, NULL, 0), CV_OK); /* only the facts */
    assert_int_equal(ans.type, PROTO_FACTS);
    free(both);
    free(fh);
    free(fj);
    /* a header cut short, then the connection ends */
    assert_int_equal(send_raw("CVZP", 4, back, sizeof back), 0);
    measure_once(); /* still serving */
    stop_job();
}

static void test_tcp_token(void **state)
{
    (void)state;
    start_job("127.0.0.1:0");
    assert_int_equal(strncmp(tcp_addr, "tcp:127.0.0.1:", 14), 0);
    char err[300];
    struct worker *w = client(tcp_addr, "0000", err, sizeof err);
    assert_null(w);
    assert_non_null(strstr(err, "wrong token"));
    assert_null(strchr(err, '\n'));
    w = client(tcp_addr, "", err, sizeof err);
    assert_null(w);
    assert_non_null(strstr(err, "wrong token"));
    char almost[PROTO_TOKEN_MAX];
    snprintf(almost, sizeof almost, "%s", token);
    almost[63] = almost[63] == 'a' ? 'b' : 'a';
    assert_null(client(tcp_addr, almost, err, sizeof err));
    w = client(tcp_addr, token, err, sizeof err);
    if (!w) fail_msg("the right token: %s", err);
    struct job j = measure(4096);
    worker_post(w, &j);
    struct result r;
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.measure.wrong, 0);
    worker_stop(w);
    stop_job();
    /* constant-time compare: equal only when equal */
    assert_true(serve_token_equal("abc", "abc"));
    assert_false(serve_token_equal("abc", "abd"));
    assert_false(serve_token_equal("abc", "ab"));
    assert_false(serve_token_equal("abc", "abcd"));
    assert_false(serve_token_equal("abc", ""));
}

/* A raw TCP connection to the job, with `n` bytes of `buf` sent (blocking fd). */
static int tcp_raw(const void *buf, size_t n)
{
    int fd;
    bool tcp;
    char err[200];
    assert_int_equal(serve_dial(tcp_addr, &fd, &tcp, err, sizeof err), CV_OK);
    if (n) assert_int_equal(send(fd, buf, n, MSG_NOSIGNAL), (ssize_t)n);
    return fd;
}

/* Still open and unanswered: nothing to read, no hang-up. */
static bool still_waiting(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 0;
}

/* Closed by the job within `s` seconds (what came before the close is skipped). */
static bool closed_within(int fd, double s)
{
    double until = now_s() + s;
    unsigned char b[256];
    while (now_s() < until) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) == 1 && recv(fd, b, sizeof b, MSG_DONTWAIT) <= 0) return true;
    }
    return false;
}

/* Issue 17: one idle connection held serve's only UI place for 10 s, and half a header
 * stalled its whole loop. The hello deadline is long here (30 s), so "the UI got in while
 * the idle ones still wait" is an order, whatever the machine's load. */
static void test_tcp_lockout(void **state)
{
    (void)state;
    g_hello_timeout = 30;
    start_job("127.0.0.1:0");
    g_hello_timeout = 0;
    enum { IDLE = 20, HALF = 15, JUNK = 10, WRONG = 5 };
    int idle[IDLE + HALF], junk[JUNK], wrong[WRONG];
    for (int i = 0; i < IDLE + HALF; i++)
        idle[i] = tcp_raw("CVZP\x02", i < IDLE ? 0 : 5);
    for (int i = 0; i < JUNK; i++)
        junk[i] = tcp_raw("GET / HTTP/1.0\r\n\r\n", 18);
    struct proto_msg hello = {.type = PROTO_HELLO};
    snprintf(hello.hello.token, sizeof hello.hello.token, "%064d", 7);
    unsigned char *fh;
    size_t nh;
    assert_int_equal(proto_encode(&hello, &fh, &nh, NULL, 0), CV_OK);
    double wrong_sent = now_s();
    for (int i = 0; i < WRONG; i++)
        wrong[i] = tcp_raw(fh, nh);
    free(fh);
    /* the UI with the token: in, and answering, while all 35 idle ones still wait */
    char err[300];
    struct worker *w = client(tcp_addr, token, err, sizeof err);
    if (!w) fail_msg("the UI with the right token was kept out: %s", err);
    for (int i = 0; i < IDLE + HALF; i++)
        if (!still_waiting(idle[i]))
            fail_msg("idle connection %d was closed before the UI got in", i);
    struct job j = measure(4096);
    worker_post(w, &j);
    struct result r;
    assert_int_equal(next_result(w, &r, 30), 1);
    assert_int_equal(r.measure.wrong, 0);
    /* garbage is closed without an answer; a wrong token is answered after the delay */
    for (int i = 0; i < JUNK; i++) {
        assert_true(closed_within(junk[i], 20));
        close(junk[i]);
    }
    for (int i = 0; i < WRONG; i++) {
        struct proto_msg ans;
        char e[200];
        assert_int_equal(proto_recv(wrong[i], &ans, 20, e, sizeof e), CV_OK);
        assert_int_equal(ans.type, PROTO_REFUSED);
        assert_non_null(strstr(ans.refused.why, "wrong token"));
        close(wrong[i]);
    }
    assert_true(now_s() - wrong_sent >= 0.95); /* not before serve's 1 s delay */
    for (int i = 0; i < IDLE + HALF; i++)
        close(idle[i]);
    worker_stop(w);
    /* Past the 64 waiting places the oldest go first: of 74 idle ones and the UI, the 11
     * opened first are closed and the UI gets in. */
    enum { MANY = 74, WAIT_MAX = 64 };
    int many[MANY];
    for (int i = 0; i < MANY; i++)
        many[i] = tcp_raw(NULL, 0);
    w = client(tcp_addr, token, err, sizeof err);
    if (!w) fail_msg("the UI was kept out by %d idle connections: %s", MANY, err);
    for (int i = 0; i < MANY + 1 - WAIT_MAX; i++)
        if (!closed_within(many[i], 20))
            fail_msg("idle connection %d (of the oldest) is open", i);
    for (int i = MANY + 1 - WAIT_MAX; i < MANY; i++)
        if (!still_waiting(many[i]))
            fail_msg("idle connection %d (of the newest) was closed", i);
    for (int i = 0; i < MANY; i++)
        close(many[i]);
    worker_stop(w);
    stop_job();
}

static void test_not_private_refused(void **state)
{
    (void)state;
    char err[300];
    int fd;
    bool tcp;
    start_job(NULL);
    /* the directory opened to everyone */
    assert_int_equal(chmod(dir, 0777), 0);
    assert_int_equal(serve_dial(sock, &fd, &tcp, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "is not private"));
    assert_null(strchr(err, '\n'));
    assert_int_equal(chmod(dir, 0700), 0);
    /* the socket itself opened to the group */
    assert_int_equal(chmod(sock, 0660), 0);
    assert_int_equal(serve_dial(sock, &fd, &tcp, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "not our private socket"));
    assert_int_equal(chmod(sock, 0600), 0);
    /* a symlink in place of the directory */
    char link[300], via[400];
    snprintf(link, sizeof link, "%s-link", dir);
    unlink(link);
    assert_int_equal(symlink(dir, link), 0);
    snprintf(via, sizeof via, "%s/job.sock", link);
    assert_int_equal(serve_dial(via, &fd, &tcp, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "is not a directory"));
    unlink(link);
    /* nothing listening */
    assert_int_equal(
        serve_dial("unix:/nonexistent-dir-of-collviz/x.sock", &fd, &tcp, err, sizeof err),
        CV_EINVAL);
    assert_int_equal(serve_dial(sock, &fd, &tcp, err, sizeof err), CV_OK); /* all fine again */
    close(fd);
    stop_job();
    /* serve refuses a directory that is not private too */
    assert_int_equal(chmod(dir, 0755), 0);
    struct backend *b;
    assert_int_equal(backend_open("cpu", &b, err, sizeof err, NULL, 0), CV_OK);
    struct serve_opts o = {.socket = sock};
    assert_int_equal(serve_run(b, &o), 2);
    assert_int_equal(chmod(dir, 0700), 0);
}

/* A job's one result within `secs`: its status, its message in err. */
static int job_status(struct worker *w, const struct job *j, double secs, char *err, size_t n)
{
    uint64_t id = worker_post(w, j);
    struct result r;
    for (;;) {
        if (!next_result(w, &r, secs))
            fail_msg("no answer in %g s to job kind %d", secs, j->kind);
        if (r.job_id != id) continue;
        snprintf(err, n, "%s", r.err);
        int st = r.status;
        bool last = r.last || r.kind != JOB_SWEEP;
        result_free(&r);
        if (last || st != CV_OK) return st;
    }
}

/* refused(): the job is answered at once with CV_EINVAL (or CV_ENOMEM) naming `want`. */
static void refused(struct worker *w, const struct job *j, int status, const char *want)
{
    char err[300];
    double t0 = now_s();
    int st = job_status(w, j, 5, err, sizeof err);
    if (st != status || !strstr(err, want))
        fail_msg("job kind %d: status %d '%s', want %d '%s'", j->kind, st, err, status, want);
    if (now_s() - t0 > 2)
        fail_msg("job kind %d: refused only after %.1f s", j->kind, now_s() - t0);
}

/* Issue 29, item 3: every field of a protocol job is judged on the server with the CLI's
 * limits (the shared checks), so no job wedges the server: the sweep (min 4,
 * max 2^62, factor 1.000000000001) is refused at once, as are sizes past 16G, more than
 * 1,000 sizes, a scene past the trace's limit, a copy past 16G and a timeout past 1e6 s; the
 * job then still answers, and SIGTERM ends it even with a long job running. */
static void test_job_limits(void **state)
{
    (void)state;
    start_job(NULL);
    char err[300], addr[320];
    snprintf(addr, sizeof addr, "unix:%s", sock);
    struct worker *w = client(addr, NULL, err, sizeof err);
    if (!w) fail_msg("connect: %s", err);

    struct job s = {.kind = JOB_SWEEP};
    s.sweep.params = measure(0).measure.params;
    s.sweep.min = 4;
    s.sweep.max = (size_t)1 << 62;
    s.sweep.factor = 1.000000000001;
    refused(w, &s, CV_EINVAL, "sizes 4 B..");
    s.sweep.max = (size_t)16 << 30; /* within the sizes, but about 16e9 of them */
    refused(w, &s, CV_EINVAL, "more than 1000 sizes");
    s.sweep.min = 1024;
    s.sweep.max = (size_t)32 << 30;
    s.sweep.factor = 2;
    refused(w, &s, CV_EINVAL, "at most 16 GiB");
    s.sweep.max = 1 << 20;
    s.sweep.factor = 0.5; /* (NaN never reaches a job: the decoder refuses it) */
    refused(w, &s, CV_EINVAL, "factor");
    s.sweep.factor = 2;
    s.sweep.params.iters = 0;
    refused(w, &s, CV_EINVAL, "iterations");
    struct job m = measure((size_t)17 << 30);
    refused(w, &m, CV_EINVAL, "at most 16 GiB");
    m = measure(4096);
    m.measure.params.timeout_s = 1e9;
    refused(w, &m, CV_EINVAL, "timeout");
    m = measure(4096);
    m.measure.params.slices = 1 << 20;
    refused(w, &m, CV_EINVAL, "slices");
    struct job c = {.kind = JOB_CHECK,
                    .check = {.coll = COLL_ALL_TO_ALL,
                              .algo = ALGO_DIRECT,
                              .nranks = 16,
                              .count = (size_t)1 << 20}}; /* the protocol's largest */
    /* 3 GiB of buffers were allocated before the trace's limit was looked at */
    refused(w, &c, CV_ENOMEM, "over the limit of 16777216 values");
    struct job cp = {.kind = JOB_MEMCPY, .copy = {.bytes = (size_t)1 << 50, .reps = 1}};
    refused(w, &cp, CV_EINVAL, "at most 16 GiB");

    /* still serving */
    m = measure(4096);
    assert_int_equal(job_status(w, &m, 30, err, sizeof err), CV_OK);

    /* SIGTERM with a long job running: the process ends within seconds */
    s.sweep.params = measure(0).measure.params;
    s.sweep.params.iters = 1000000;
    s.sweep.min = 64 << 20;
    s.sweep.max = 128 << 20;
    s.sweep.factor = 2;
    worker_post(w, &s);
    usleep(300000);
    kill(job, SIGTERM);
    double until = now_s() + 5;
    int stat;
    pid_t got = 0;
    while (now_s() < until && (got = waitpid(job, &stat, WNOHANG)) == 0)
        usleep(20000);
    if (got != job) {
        kill(job, SIGKILL);
        waitpid(job, &stat, 0);
        fail_msg("serve still running 5 s after SIGTERM");
    }
    worker_stop(w);
}

/* Issue 29, item 1: under a memory limit (`ulimit -v`: what serve maps, and 200 MiB more)
 * a job whose buffers would pass it is refused with CV_ENOMEM naming the size, before
 * anything is allocated - a measurement, a sweep whose largest size would not fit (before
 * its first size runs), a copy, a training run; the job goes on serving. */
static void test_job_memory(void **state)
{
    (void)state;
    g_room = (size_t)200 << 20;
    start_job(NULL);
    g_room = 0;
    char err[300], addr[320];
    snprintf(addr, sizeof addr, "unix:%s", sock);
    struct worker *w = client(addr, NULL, err, sizeof err);
    if (!w) fail_msg("connect: %s", err);
    struct job m = measure((size_t)1 << 30); /* 4 ranks x 1 GiB */
    refused(w, &m, CV_ENOMEM, "needs 4 GiB of memory");
    struct job s = {.kind = JOB_SWEEP};
    s.sweep.params = measure(0).measure.params;
    s.sweep.min = 1 << 20;
    s.sweep.max = (size_t)1 << 30;
    s.sweep.factor = 4;
    refused(w, &s, CV_ENOMEM, "needs 4 GiB of memory");
    /* (a scene's trace, at most 16 Mi values, is judged the same way: trace_check, under
     * `ulimit -v` in tests/cli/test_mem_limit.sh) */
    struct job cp = {.kind = JOB_MEMCPY, .copy = {.bytes = (size_t)1 << 30, .reps = 1}};
    refused(w, &cp, CV_ENOMEM, "of memory");
    struct job t = {.kind = JOB_TRAIN};
    train_config_default(&t.train.cfg);
    t.train.cfg.scheme = TRAIN_SINGLE;
    t.train.cfg.nranks = 1;
    t.train.cfg.dim = 8192;
    refused(w, &t, CV_ENOMEM, "of memory");
    m = measure(4096);
    assert_int_equal(job_status(w, &m, 30, err, sizeof err), CV_OK);
    worker_shutdown_job(w);
    int stat;
    waitpid(job, &stat, 0);
    assert_true(WIFEXITED(stat) && WEXITSTATUS(stat) == 0);
    worker_stop(w);
}

/* Issue 29: a client of another protocol version got a bare close. It gets a refusal that
 * names both versions (in a frame of serve's version: a client of any version reads its
 * header and names both too), and serve goes on serving. */
static void test_other_version_refused(void **state)
{
    (void)state;
    start_job(NULL);
    struct proto_msg hello = {.type = PROTO_HELLO};
    unsigned char *fh;
    size_t nh;
    assert_int_equal(proto_encode(&hello, &fh, &nh, NULL, 0), CV_OK);
    const int other[] = {PROTO_VERSION - 1, PROTO_VERSION + 1, 300};
    for (size_t i = 0; i < 3; i++) {
        fh[4] = (unsigned char)(other[i] & 0xff);
        fh[5] = (unsigned char)(other[i] >> 8);
        unsigned char back[4096];
        size_t got = send_raw(fh, nh, back, sizeof back);
        struct proto_msg ans;
        char err[200] = "";
        if (proto_decode(back, got, &ans, err, sizeof err) != CV_OK)
            fail_msg("version %d: no refusal (%zu bytes back: %s)", other[i], got, err);
        assert_int_equal(ans.type, PROTO_REFUSED);
        char mine[32], theirs[32];
        snprintf(mine, sizeof mine, "version %d", PROTO_VERSION);
        snprintf(theirs, sizeof theirs, "version %d", other[i]);
        if (!strstr(ans.refused.why, mine) || !strstr(ans.refused.why, theirs))
            fail_msg("the refusal does not name both versions: %s", ans.refused.why);
    }
    free(fh);
    measure_once(); /* still serving */
    stop_job();
}

/* Seconds from sending a hello with tok on a new TCP connection to serve's first answer
 * (the facts when it is the right token, a refusal when not); *type: that answer's type. */
static double hello_answer_s(const char *tok, enum proto_type *type)
{
    struct proto_msg hello = {.type = PROTO_HELLO};
    snprintf(hello.hello.token, sizeof hello.hello.token, "%s", tok);
    unsigned char *fh;
    size_t nh;
    assert_int_equal(proto_encode(&hello, &fh, &nh, NULL, 0), CV_OK);
    int fd;
    bool tcp;
    char err[200];
    assert_int_equal(serve_dial(tcp_addr, &fd, &tcp, err, sizeof err), CV_OK);
    double t0 = now_s();
    assert_int_equal(send(fd, fh, nh, MSG_NOSIGNAL), (ssize_t)nh);
    struct proto_msg ans;
    assert_int_equal(proto_recv(fd, &ans, 20, err, sizeof err), CV_OK);
    double t = now_s() - t0;
    *type = ans.type;
    proto_msg_free(&ans);
    close(fd);
    free(fh);
    return t;
}

/* Issue 29: a wrong token was answered after 1 s, the right one at once - the delay told
 * which. Both are answered after the same delay. */
static void test_token_same_delay(void **state)
{
    (void)state;
    start_job("127.0.0.1:0");
    char wrong[PROTO_TOKEN_MAX];
    snprintf(wrong, sizeof wrong, "%s", token);
    wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
    enum proto_type t_right, t_wrong;
    double right_s = hello_answer_s(token, &t_right);
    double wrong_s = hello_answer_s(wrong, &t_wrong);
    assert_int_equal(t_right, PROTO_FACTS);
    assert_int_equal(t_wrong, PROTO_REFUSED);
    if (right_s < 0.9 || wrong_s < 0.9 || fabs(right_s - wrong_s) > 0.3)
        fail_msg("answered after %.3f s (right token) and %.3f s (wrong): not the same delay",
                 right_s, wrong_s);
    stop_job();
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_measure_sweep_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tcp_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tcp_lockout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_private_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_same_delay, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
