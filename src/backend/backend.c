/* backend.c - the registry of backends compiled in, and opening one by name.
 *
 * The CPU backend is always built, so "auto" always ends with a backend: NCCL when it was
 * built, opens, and can run at least two ranks; otherwise CPU, with the reason NCCL was
 * passed over (redis ae.c's "always have a fallback" habit). */
#include "backend/backend.h"
#include "backend/launcher.h"
#include "backend/run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/nccl/nccl_links.h"

#ifdef HAVE_NCCL
#include "backend/nccl/nccl_info.h"
extern const struct backend_ops nccl_backend_ops;
#endif
#ifdef HAVE_MPI
#include "backend/mpi/mpi_backend.h"
#endif

/* The registry: one row per backend this program knows, built or not. ops is NULL when
 * the backend was not compiled in, and not_built says why. */
static const struct backend_entry {
    const char *name;
    enum backend_kind kind;
    unsigned caps; /* the same as ops->caps; here too for a backend that was not built */
    const struct backend_ops *ops;
    const char *not_built;
} backend_table[BACKEND_KIND_COUNT] = {
    [BACKEND_CPU] = {"cpu", BACKEND_CPU, BACKEND_CAP_EXACT_REDUCTION, &cpu_backend_ops, NULL},
    [BACKEND_NCCL] = {"nccl", BACKEND_NCCL,
                      BACKEND_CAP_GPU | BACKEND_CAP_OWN_ALGO | BACKEND_CAP_LIB_ENV,
#ifdef HAVE_NCCL
                      &nccl_backend_ops,
#else
                      NULL,
#endif
                      "not built (no CUDA toolkit at build time)"},
    [BACKEND_MPI] = {"mpi", BACKEND_MPI,
                     BACKEND_CAP_EXACT_REDUCTION | BACKEND_CAP_PROCESSES |
                         BACKEND_CAP_NATIVE_COLL,
#ifdef HAVE_MPI
                     &mpi_backend_ops,
#else
                     NULL,
#endif
                     "not built (no MPI: mpicc / libopenmpi-dev at build time)"},
};

static const char *backend_name_list[BACKEND_KIND_COUNT + 1];
static pthread_once_t backend_names_once = PTHREAD_ONCE_INIT;

static void backend_names_init(void)
{
    int n = 0;
    for (int k = 0; k < BACKEND_KIND_COUNT; k++)
        if (backend_table[k].ops) backend_name_list[n++] = backend_table[k].name;
    backend_name_list[n] = NULL;
}

const char *const *backend_names(void)
{
    pthread_once(&backend_names_once, backend_names_init);
    return backend_name_list;
}

int backend_kind_of(const char *name)
{
    for (int k = 0; name && k < BACKEND_KIND_COUNT; k++)
        if (strcmp(name, backend_table[k].name) == 0) return k;
    return -1;
}

const char *backend_kind_name(enum backend_kind k)
{
    return (unsigned)k < BACKEND_KIND_COUNT ? backend_table[k].name : "?";
}

unsigned backend_caps_of(const char *name)
{
    int k = backend_kind_of(name);
    if (k < 0) return 0u;
    unsigned caps = backend_table[k].caps;
#ifdef HAVE_NCCL
    if (k == BACKEND_NCCL && nccl_emulated()) caps |= BACKEND_CAP_EMULATED;
#endif
    return caps;
}

unsigned backend_kind_caps(enum backend_kind k)
{
    return k >= 0 && k < BACKEND_KIND_COUNT ? backend_caps_of(backend_table[k].name) : 0u;
}

int backend_hardware(const struct backend *b, char *buf, size_t n)
{
    if (n) buf[0] = '\0';
    return b && b->ops->hardware ? b->ops->hardware(b, buf, n) : -1;
}

void backend_lib_env(const struct backend *b, char *algo, size_t algo_n, char *proto,
                     size_t proto_n)
{
    if (algo_n) algo[0] = '\0';
    if (proto_n) proto[0] = '\0';
    if (b && b->ops->lib_env) b->ops->lib_env(b, algo, algo_n, proto, proto_n);
}

void backend_links(const struct backend *b, int nranks, backend_log_summary_fn summarise,
                   char *buf, size_t n)
{
    if (n) buf[0] = '\0';
    if (b && b->ops->links) b->ops->links(b, nranks, summarise, buf, n);
}

int backend_lib_log(const struct backend *b, char **text, size_t *len, char *src, size_t n)
{
    *text = NULL;
    *len = 0;
    if (b && b->ops->lib_log) return b->ops->lib_log(b, text, len, src, n);
    snprintf(src, n, "no NCCL log: not a GPU run (backend %s)", b ? b->ops->name : "none");
    return -1;
}

int backend_rank_device(const struct backend *b, int rank)
{
    return b && b->ops->rank_device ? b->ops->rank_device(b, rank) : -1;
}

void backend_device_name(const struct backend *b, int dev, char *buf, size_t n)
{
    if (n) buf[0] = '\0';
    if (b && b->ops->device_name && dev >= 0) b->ops->device_name(b, dev, buf, n);
}

void backend_build_text(enum backend_kind k, char *buf, size_t n)
{
    if (n) buf[0] = '\0';
#ifdef HAVE_NCCL
    if (k == BACKEND_NCCL) nccl_build_text(buf, n);
#else
    (void)k;
#endif
}

/* Open one backend; on failure err gets "<name>: unavailable - <reason>". */
static int backend_try(const struct backend_ops *ops, struct backend **out, char *err,
                       size_t errlen)
{
    struct backend *b = xcalloc(1, sizeof *b);
    b->ops = ops;
    char why[200] = "";
    int rc = ops->open(b, why, sizeof why);
    if (rc != CV_OK) {
        free(b);
        *out = NULL;
        /* The backend says why; say which backend, unless it already did. */
        size_t nl = strlen(ops->name);
        if (strncasecmp(why, ops->name, nl) == 0 && why[nl] == ':')
            return cv_err(err, errlen, rc, "%s", why);
        return cv_err(err, errlen, rc, "%s: unavailable - %s", ops->name,
                      why[0] ? why : cv_status_name(rc));
    }
    *out = b;
    return CV_OK;
}

static int backend_open_kind(enum backend_kind k, struct backend **out, char *err,
                             size_t errlen)
{
    const struct backend_entry *e = &backend_table[k];
    if (!e->ops) {
        *out = NULL;
        return cv_err(err, errlen, CV_EUNAVAIL, "%s: %s", e->name, e->not_built);
    }
    return backend_try(e->ops, out, err, errlen);
}

int backend_open(const char *name, struct backend **out, char *err, size_t errlen,
                 char *why_not, size_t why_not_len)
{
    *out = NULL;
    if (why_not && why_not_len) why_not[0] = '\0';
    if (!name) name = "auto";
    int kind = backend_kind_of(name);
    if (kind >= 0) return backend_open_kind((enum backend_kind)kind, out, err, errlen);
    if (strcmp(name, "auto") != 0) {
        char have[64] = "";
        for (const char *const *n = backend_names(); *n; n++) {
            strncat(have, *n, sizeof have - strlen(have) - 1);
            strncat(have, ", ", sizeof have - strlen(have) - 1);
        }
        strncat(have, "auto", sizeof have - strlen(have) - 1);
        return cv_err(err, errlen, CV_EINVAL, "%s: unknown backend (have: %s)", name, have);
    }

    struct backend *b = NULL;
    char why[200];
    int rc = backend_open_kind(BACKEND_NCCL, &b, why, sizeof why);
    if (rc == CV_OK) {
        int n = b->ops->max_ranks(b);
        if (n >= 2) {
            *out = b;
            return CV_OK;
        }
        snprintf(why, sizeof why, "nccl: only %d GPU usable (a collective needs 2)", n);
        backend_close(b);
    }
    if (why_not && why_not_len) snprintf(why_not, why_not_len, "%s", why);
    return backend_open_kind(BACKEND_CPU, out, err, errlen);
}

int backend_for_job(const char *asked, const char **out, char *err, size_t errlen)
{
    struct launcher_job j;
    launcher_job_of_env(&j);
    *out = asked;
    if (!j.var || j.size == 1) return CV_OK;
    if (j.size == 0)
        return cv_err(err, errlen, CV_EINVAL, "%s=%s: not a number of processes", j.var,
                      j.value);
    int k = asked ? backend_kind_of(asked) : -1;
    if (asked && k < 0 && strcmp(asked, "auto") != 0) return CV_OK; /* backend_open says */
    if (!j.mpi)
        return cv_err(err, errlen, CV_EINVAL,
                      "started by %s as one of %d processes (%s=%s), a job no backend here "
                      "joins: run under mpirun or srun with --backend mpi",
                      j.who, j.size, j.var, j.value);
    bool built = launcher_built() && backend_table[BACKEND_MPI].ops;
    if (k >= 0 && (backend_table[k].caps & BACKEND_CAP_PROCESSES ||
                   (k == BACKEND_NCCL && launcher_built())))
        return CV_OK; /* its own open says when it cannot */
    if (k >= 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "--backend %s runs in one process: under %s's %d processes (%s=%s) it "
                      "would run %d separate jobs; use --backend mpi%s",
                      asked, j.who, j.size, j.var, j.value, j.size,
                      backend_table[BACKEND_NCCL].ops ? " (or nccl)" : "");
    if (!built)
        return cv_err(err, errlen, CV_EINVAL,
                      "started by %s as one of %d processes (%s=%s), but this build has no "
                      "MPI to join them (rebuild with libopenmpi-dev)",
                      j.who, j.size, j.var, j.value);
    struct backend *b = NULL;
    char why[200];
    if (backend_open_kind(BACKEND_NCCL, &b, why, sizeof why) == CV_OK) {
        bool across = backend_multiprocess(b);
        backend_close(b);
        if (across) {
            *out = "nccl";
            return CV_OK;
        }
    }
    *out = "mpi";
    return CV_OK;
}

int backend_proc_rank(const struct backend *b)
{
    return b && b->ops->proc_rank ? b->ops->proc_rank((struct backend *)b) : 0;
}

bool backend_multiprocess(const struct backend *b)
{
    if (!b) return false;
    if (b->ops->caps & BACKEND_CAP_PROCESSES) return true;
    return b->ops->proc_count && b->ops->proc_count((struct backend *)b) > 1;
}

void backend_close(struct backend *b)
{
    if (!b) return;
    backend_run_release(b);
    if (b->ops && b->ops->close) b->ops->close(b);
    free(b);
}

static char backend_log_path[600]; /* the user's NCCL log, sent off the screen; "" none */

void backend_logs_off_screen(void)
{
    /* (without a directory the log stays on stdout, as NCCL would have it) */
    if (!backend_log_path[0])
        nccl_links_user_log_to_file(backend_log_path, sizeof backend_log_path);
}

void backend_logs_off_screen_end(void)
{
    if (!backend_log_path[0]) return;
    struct stat st;
    if (stat(backend_log_path, &st) == 0) {
        cv_eprintf("collviz: NCCL's log (your NCCL_DEBUG=%s) is in %s\n", getenv("NCCL_DEBUG"),
                   backend_log_path);
    } else {
        *strrchr(backend_log_path, '/') = '\0';
        rmdir(backend_log_path);
    }
    backend_log_path[0] = '\0';
}
