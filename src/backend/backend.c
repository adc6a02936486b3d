/* backend.c - the registry of backends compiled in, and opening one by name.
 *
 * The CPU backend is always built, so "auto" always ends with a backend: NCCL when it was
 * built, opens, and can run at least two ranks; otherwise CPU, with the reason NCCL was
 * passed over (redis ae.c's "always have a fallback" habit). */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../core/util.h"
#include "cpu/cpu.h"

#ifdef HAVE_NCCL
extern const struct backend_ops nccl_backend_ops;
#endif

static const char *const backend_name_list[] = {
    "cpu",
#ifdef HAVE_NCCL
    "nccl",
#endif
    NULL,
};

const char *const *backend_names(void)
{
    return backend_name_list;
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

static int backend_open_nccl(struct backend **out, char *err, size_t errlen)
{
#ifdef HAVE_NCCL
    return backend_try(&nccl_backend_ops, out, err, errlen);
#else
    *out = NULL;
    return cv_err(err, errlen, CV_EUNAVAIL, "nccl: not built (no CUDA toolkit at build time)");
#endif
}

int backend_open(const char *name, struct backend **out, char *err, size_t errlen,
                 char *why_not, size_t why_not_len)
{
    *out = NULL;
    if (why_not && why_not_len) why_not[0] = '\0';
    if (!name) name = "auto";
    if (strcmp(name, "cpu") == 0) return backend_try(&cpu_backend_ops, out, err, errlen);
    if (strcmp(name, "nccl") == 0) return backend_open_nccl(out, err, errlen);
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
    int rc = backend_open_nccl(&b, why, sizeof why);
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
    return backend_try(&cpu_backend_ops, out, err, errlen);
}

void backend_close(struct backend *b)
{
    if (!b) return;
    if (b->ops && b->ops->close) b->ops->close(b);
    free(b);
}
