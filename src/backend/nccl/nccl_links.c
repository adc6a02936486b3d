/* nccl_links.c - the link type NCCL reports (nccl_links.h): the private log file NCCL
 * writes its INFO log to, read back for the links a run went over (summarised by the
 * caller's function: records/reclinks.c's).
 *
 * The log file. NCCL reads NCCL_DEBUG, NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE once, at its
 * first log call (inside the first communicator's initialisation), and opens the file
 * then with fopen(path, "w"), line-buffered, for the rest of the process. So the variables
 * are set when the backend opens, before any NCCL call, and the file is created here first
 * (mode 0600, in a directory of mode 0700) and kept open: NCCL's fopen truncates and writes
 * the same file, and it is read back through this descriptor even after the last close has
 * removed the file and its directory. The variables go with the file, so that a first log
 * call after it (a file NCCL had not opened yet) cannot fall back to the terminal for want
 * of the file; if NCCL never wrote to it, the next open makes a new one.
 *
 * A program collviz starts inherits the variables; COLLVIZ_NCCL_DEBUG_FILE, set to the same
 * path, tells a collviz child that they were set by collviz, not by the user. */
#include "backend/nccl/nccl_links.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

/* ---- the log file ----------------------------------------------------------------------- */

#define NL_READ_MAX ((size_t)8 << 20) /* the connections come early: read the first 8 MiB */
#define NL_MARK "COLLVIZ_NCCL_DEBUG_FILE"

static struct {
    pthread_mutex_t mu;
    int refs;
    bool decided; /* the first begin looked at the environment */
    bool user;    /* the user set user_var: their log, not read */
    bool ours;    /* fd is the log NCCL was pointed at */
    bool removed; /* the file and directory are gone (fd still reads it) */
    int fd;
    char user_var[24];
    char why[160]; /* no log: why */
    char dir[PATH_MAX - 32], path[PATH_MAX];
} nl = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static void nl_unset_env(void)
{
    unsetenv("NCCL_DEBUG");
    unsetenv("NCCL_DEBUG_SUBSYS");
    unsetenv("NCCL_DEBUG_FILE");
    unsetenv(NL_MARK);
}

/* A directory for the private one: absolute, usable, and without the '%' NCCL expands. */
static bool nl_dir_ok(const char *d)
{
    return d && d[0] == '/' && !strchr(d, '%') && strlen(d) < sizeof nl.dir - 32 &&
           access(d, W_OK | X_OK) == 0;
}

/* A new private directory (mode 0700) named PREFIX-XXXXXX in $XDG_RUNTIME_DIR (when
 * runtime_dir), $TMPDIR or /tmp, the first that nl_dir_ok accepts, into dir; says which
 * folder it chose in *base; false (errno set) when mkdtemp failed. */
static bool nl_mkdtemp(bool runtime_dir, const char *prefix, char *dir, size_t n,
                       const char **base)
{
    const char *b = runtime_dir ? getenv("XDG_RUNTIME_DIR") : NULL;
    if (!nl_dir_ok(b)) b = getenv("TMPDIR");
    if (!nl_dir_ok(b)) b = "/tmp";
    *base = b;
    snprintf(dir, n, "%s/%s-XXXXXX", b, prefix); /* mkdtemp's template */
    return mkdtemp(dir) != NULL;
}

static void nl_make_log(void)
{
    const char *base;
    if (!nl_mkdtemp(true, "collviz-nccl", nl.dir, sizeof nl.dir, &base)) {
        snprintf(nl.why, sizeof nl.why, "not read (no private log: mkdtemp in %.80s: %s)", base,
                 strerror(errno));
        return;
    }
    snprintf(nl.path, sizeof nl.path, "%s/nccl-info.log", nl.dir);
    nl.fd = open(nl.path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (nl.fd < 0) {
        snprintf(nl.why, sizeof nl.why, "not read (no private log: %s)", strerror(errno));
        rmdir(nl.dir);
        return;
    }
    setenv("NCCL_DEBUG", "INFO", 1);
    /* INIT carries the connection lines (logged as INIT|P2P, INIT|SHM, INIT|NET) and the
     * NVLS line; GRAPH the topology search's path type. */
    setenv("NCCL_DEBUG_SUBSYS", "INIT,GRAPH", 1);
    setenv("NCCL_DEBUG_FILE", nl.path, 1);
    setenv(NL_MARK, nl.path, 1);
    nl.ours = true;
    nl.removed = false;
}

static off_t nl_size(void)
{
    struct stat st;
    return nl.fd >= 0 && fstat(nl.fd, &st) == 0 ? st.st_size : 0;
}

bool nccl_links_user_log_to_file(char *path, size_t n)
{
    const char *d = getenv("NCCL_DEBUG"), *f = getenv("NCCL_DEBUG_FILE");
    if (!d || !*d || (f && *f)) return false;
    const char *base;
    char dir[sizeof nl.dir];
    if (!nl_mkdtemp(false, "collviz-nccl-debug", dir, sizeof dir, &base)) return false;
    snprintf(path, n, "%s/nccl.log", dir);
    setenv("NCCL_DEBUG_FILE", path, 1);
    return true;
}

void nccl_links_log_begin(void)
{
    pthread_mutex_lock(&nl.mu);
    nl.refs++;
    /* A removed file NCCL never wrote: start again with a new one (see the top). */
    if (nl.decided && nl.ours && nl.removed && nl_size() == 0) {
        close(nl.fd);
        nl.fd = -1;
        nl.ours = false;
        nl.decided = false;
    }
    if (!nl.decided) {
        nl.decided = true;
        nl.why[0] = '\0';
        const char *d = getenv("NCCL_DEBUG"), *f = getenv("NCCL_DEBUG_FILE");
        const char *mark = getenv(NL_MARK);
        bool inherited = mark && f && strcmp(mark, f) == 0;
        if (!inherited && ((d && *d) || (f && *f))) {
            nl.user = true;
            snprintf(nl.user_var, sizeof nl.user_var, "%s",
                     d && *d ? "NCCL_DEBUG" : "NCCL_DEBUG_FILE");
        } else {
            nl.user = false;
            nl_make_log();
        }
    }
    pthread_mutex_unlock(&nl.mu);
}

void nccl_links_log_end(void)
{
    pthread_mutex_lock(&nl.mu);
    if (nl.refs > 0) nl.refs--;
    if (nl.refs == 0 && nl.ours && !nl.removed) {
        unlink(nl.path);
        rmdir(nl.dir);
        nl.removed = true;
        nl_unset_env();
    }
    pthread_mutex_unlock(&nl.mu);
}

/* The first NL_READ_MAX bytes of the file open on fd, on the heap (NULL: no memory). */
static char *nl_read_fd(int fd, size_t *len)
{
    struct stat st;
    size_t want = fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    if (want > NL_READ_MAX) want = NL_READ_MAX;
    char *text = malloc(want + 1);
    size_t got = 0;
    while (text && got < want) {
        ssize_t r = pread(fd, text + got, want - got, (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    *len = got;
    return text;
}

#ifdef CV_TEST_HOOKS
/* Test hook: COLLVIZ_TEST_NCCL_LOG names a file that stands in for NCCL's log. */
static int nl_test_log(char **text, size_t *len, char *src, size_t n)
{
    const char *path = getenv("COLLVIZ_TEST_NCCL_LOG");
    if (!path || !*path) return 1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(src, n, "no NCCL log: test hook COLLVIZ_TEST_NCCL_LOG: %.100s: %s", path,
                 strerror(errno));
        return -1;
    }
    *text = nl_read_fd(fd, len);
    close(fd);
    const char *base = strrchr(path, '/');
    snprintf(src, n, "test hook: %.100s stands in for NCCL's log", base ? base + 1 : path);
    return *text ? 0 : -1;
}
#endif

int nccl_links_log_read(char **text, size_t *len, char *src, size_t n)
{
    *text = NULL;
    *len = 0;
#ifdef CV_TEST_HOOKS
    int t = nl_test_log(text, len, src, n);
    if (t <= 0) return t;
#endif
    int rc = -1;
    pthread_mutex_lock(&nl.mu);
    if (!nl.decided)
        snprintf(src, n, "no NCCL log: NCCL has not been opened");
    else if (nl.user)
        snprintf(src, n, "no NCCL log: not read (%s is set by you: the log is yours)",
                 nl.user_var);
    else if (!nl.ours)
        snprintf(src, n, "no NCCL log: %s", nl.why[0] ? nl.why : "not read (no private log)");
    else if (!(*text = nl_read_fd(nl.fd, len)))
        snprintf(src, n, "no NCCL log: out of memory");
    else if (*len == 0)
        snprintf(src, n,
                 "no NCCL log yet: NCCL writes it at its first collective (m measures)");
    else {
        snprintf(src, n, "this machine's NCCL INFO log (this run)");
        rc = 0;
    }
    if (rc != 0) {
        free(*text);
        *text = NULL;
        *len = 0;
    }
    pthread_mutex_unlock(&nl.mu);
    return rc;
}

void nccl_links_log_text(int nranks, backend_log_summary_fn summarise, char *buf, size_t n)
{
    if (n) buf[0] = '\0';
    pthread_mutex_lock(&nl.mu);
    if (!nl.decided) {
        /* no backend opened yet: nothing to say */
    } else if (nl.user) {
        snprintf(buf, n, "not read (%s is set by you)", nl.user_var);
    } else if (!nl.ours) {
        snprintf(buf, n, "%s", nl.why[0] ? nl.why : "not read (no private log)");
    } else {
        size_t got = 0;
        char *text = nl_read_fd(nl.fd, &got);
        char sum[256];
        if (text && summarise && summarise(text, got, sum, sizeof sum) > 0)
            snprintf(buf, n, "%s (NCCL INFO log)", sum);
        else if (nranks == 1)
            snprintf(buf, n, "none: one rank connects to nobody");
        else
            snprintf(buf, n, "no connections in NCCL's INFO log yet");
        free(text);
    }
    pthread_mutex_unlock(&nl.mu);
}
