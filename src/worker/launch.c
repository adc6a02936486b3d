/* launch.c - start and end a job for the UI (launch.h). The descendants of the child are
 * found through /proc (each process's parent), because a launcher may put its ranks in
 * process groups of their own; this process is their subreaper, so ranks whose launcher
 * died first stay below it and are found and reaped too. */
#include "worker/launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/usock.h"
#include "core/util.h"

#define LAUNCH_MAX_PIDS 4096

struct launch {
    pid_t pid;
    bool reaped;
    char sock[256];
    char log[256];
};

static void launch_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The parent of pid from /proc/PID/stat, or -1. */
static pid_t launch_ppid(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
    int ppid;
    if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1) return -1;
    return (pid_t)ppid;
}

/* root and every process descended from it, into out (at most max). */
static int launch_tree(pid_t root, pid_t *out, int max)
{
    int n = 0;
    out[n++] = root;
    DIR *d = opendir("/proc");
    if (!d) return n;
    pid_t all[LAUNCH_MAX_PIDS], par[LAUNCH_MAX_PIDS];
    int na = 0;
    struct dirent *e;
    while ((e = readdir(d)) && na < LAUNCH_MAX_PIDS) {
        char *end;
        long p = strtol(e->d_name, &end, 10);
        if (*end || p <= 0) continue;
        all[na] = (pid_t)p;
        par[na] = launch_ppid((pid_t)p);
        na++;
    }
    closedir(d);
    for (int i = 0; i < n && n < max; i++) /* breadth first over the parent links */
        for (int k = 0; k < na && n < max; k++)
            if (par[k] == out[i]) out[n++] = all[k];
    return n;
}

static bool launch_reap(struct launch *l, int *status)
{
    if (l->reaped) return true;
    int st;
    pid_t r = waitpid(l->pid, &st, WNOHANG);
    if (r == l->pid) {
        l->reaped = true;
        if (status) *status = st;
        return true;
    }
    return false;
}

/* The last non-empty line of the log. */
static void launch_last_line(const struct launch *l, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(l->log, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t k = strcspn(line, "\r\n");
        line[k] = '\0';
        if (k > 0) snprintf(out, n, "%.*s", (int)(n > 1 ? n - 1 : 0), line);
    }
    fclose(f);
}

int launch_start(const char *cmd, const char *backend, double timeout_s, struct launch **out,
                 int *fd, char *err, size_t errlen)
{
    *out = NULL;
    *fd = -1;
    char dir[200];
    int rc = usock_dir("--mpi", true, dir, sizeof dir, err, errlen);
    if (rc != CV_OK) return rc;
    char exe[512];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0) return cv_err(err, errlen, CV_EUNAVAIL, "--mpi: cannot find this program");
    exe[k] = '\0';
    struct launch *l = xcalloc(1, sizeof *l);
    snprintf(l->sock, sizeof l->sock, "%s/job-%d.sock", dir, (int)getpid());
    snprintf(l->log, sizeof l->log, "%s/job-%d.log", dir, (int)getpid());
    unlink(l->sock);
    int logfd = open(l->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (logfd < 0) {
        rc = cv_err(err, errlen, CV_EUNAVAIL, "--mpi: %s: %s", l->log, strerror(errno));
        free(l);
        return rc;
    }
    char script[1200];
    snprintf(script, sizeof script, "exec %s \"$@\"", cmd);
    /* Orphans of the launcher (ranks whose mpirun died) become our children, so
     * launch_stop() still finds and reaps them. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t pid = fork();
    if (pid < 0) {
        rc = cv_err(err, errlen, CV_EUNAVAIL, "--mpi: fork: %s", strerror(errno));
        close(logfd);
        free(l);
        return rc;
    }
    if (pid == 0) {
        setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0) dup2(nul, STDIN_FILENO);
        dup2(logfd, STDOUT_FILENO);
        dup2(logfd, STDERR_FILENO);
        execl("/bin/sh", "sh", "-c", script, "sh", exe, "serve", "--backend", backend,
              "--socket", l->sock, "--once", (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: no race with the first kill */
    close(logfd);
    l->pid = pid;
    double deadline = now_s() + timeout_s;
    for (;;) {
        int status;
        if (launch_reap(l, &status)) {
            char last[300];
            launch_last_line(l, last, sizeof last);
            rc = cv_err(err, errlen, CV_EUNAVAIL, "--mpi: the job ended before it listened%s%s",
                        last[0] ? ": " : "", last);
            launch_stop(l, 0);
            return rc;
        }
        if (access(l->sock, F_OK) == 0 &&
            usock_connect("--mpi", l->sock, fd, err, errlen) == CV_OK)
            break;
        if (now_s() > deadline) {
            rc = cv_err(err, errlen, CV_ETIMEOUT, "--mpi: the job did not listen within %.0f s",
                        timeout_s);
            launch_stop(l, 1.0);
            return rc;
        }
        launch_sleep_ms(50);
    }
    *out = l;
    return CV_OK;
}

bool launch_wait(struct launch *l, double s)
{
    double until = now_s() + s;
    while (!launch_reap(l, NULL)) {
        if (now_s() >= until) return false;
        launch_sleep_ms(20);
    }
    return true;
}

pid_t launch_pid(const struct launch *l)
{
    return l->pid;
}

int launch_rank_named(const char *s, const char *then)
{
    size_t tl = strlen(then);
    for (const char *p = strstr(s, "rank "); p; p = strstr(p + 5, "rank ")) {
        char *end;
        long v = strtol(p + 5, &end, 10);
        if (end > p + 5 && v >= 0 && v < 1000000 && strncmp(end, then, tl) == 0) return (int)v;
    }
    return -1;
}

int launch_blame(const struct launch *l, char *last, size_t n, bool *stalled)
{
    if (last && n) last[0] = '\0';
    if (stalled) *stalled = false;
    FILE *f = fopen(l->log, "r");
    if (!f) return -1;
    char line[512];
    int rank = -1;
    /* A rank the others named as stalled says more than mpirun's word on who ended first
     * (the ranks that named it end the job themselves). */
    while (fgets(line, sizeof line, f)) {
        int s = launch_rank_named(line, " stalled");
        if (s < 0) continue;
        line[strcspn(line, "\r\n")] = '\0';
        if (last) snprintf(last, n, "%s", line);
        if (stalled) *stalled = true;
        fclose(f);
        return s;
    }
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        size_t k = strcspn(line, "\r\n");
        line[k] = '\0';
        /* mpirun: "process rank 2 with PID ..."; srun: "task 2: Killed" */
        const char *p = strstr(line, "rank ");
        if (!p || p[5] < '0' || p[5] > '9') p = strstr(line, "task ");
        bool names = p && p[5] >= '0' && p[5] <= '9';
        if (rank < 0 && names) rank = atoi(p + 5);
        /* the line that names the rank, else the last one */
        if (k > 0 && last && (names || rank < 0)) snprintf(last, n, "%s", line);
    }
    fclose(f);
    return rank;
}

/* Reap every child that has ended; true when none is left. */
static bool launch_reap_all(struct launch *l)
{
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, WNOHANG);
        if (r == l->pid) l->reaped = true;
        if (r > 0) continue;
        return r < 0 && errno == ECHILD;
    }
}

/* Signal the launcher's group and every process below this one (the subreaper keeps the
 * orphans of a launcher that died as our children). */
static void launch_signal_all(struct launch *l, int sig)
{
    static pid_t tree[LAUNCH_MAX_PIDS];
    if (!l->reaped) kill(-l->pid, sig);
    int n = launch_tree(getpid(), tree, LAUNCH_MAX_PIDS);
    for (int i = 1; i < n; i++) /* tree[0] is this process */
        kill(tree[i], sig);
}

void launch_stop(struct launch *l, double grace_s)
{
    if (!l) return;
    /* A job told to shut down ends by itself: give it grace_s, then SIGTERM, then
     * SIGKILL. */
    double ends = now_s() + grace_s;
    while (!launch_reap_all(l) && now_s() < ends)
        launch_sleep_ms(20);
    launch_signal_all(l, SIGTERM);
    double until = now_s() + 2.0;
    while (!launch_reap_all(l) && now_s() < until)
        launch_sleep_ms(20);
    if (!launch_reap_all(l)) {
        launch_signal_all(l, SIGKILL);
        double hard = now_s() + 5.0;
        while (!launch_reap_all(l) && now_s() < hard)
            launch_sleep_ms(20);
    }
    unlink(l->sock);
    unlink(l->log);
    free(l);
}
