/* serve.c - `collviz serve`: run a job that obeys one UI (worker/serve.h). The UI starts it
 * itself with --mpi "LAUNCH", or attaches with --connect to one started elsewhere. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/util.h"
#include "worker/serve.h"
#include "cli/cli.h"
#include "cli/opt.h"

static const char serve_usage[] =
    "usage: collviz serve [options]\n"
    "Run the measurements for one UI that connects (collviz --connect ADDRESS, or\n"
    "started for you by collviz --mpi \"LAUNCH\"). Prints the address it listens on.\n";

/* What serve's options set: the job's options and the backend to open. */
struct serve_args {
    struct serve_opts o;
    const char *backend;
};

static int serve_set_backend(void *ctx, const struct opt *self, const char *v)
{
    if (backend_kind_of(v) < 0 && strcmp(v, "auto") != 0)
        return cli_usage_error("serve --backend: unknown backend '%s'", v);
    ((struct serve_args *)ctx)->backend = v;
    return OPT_GO;
}

static int serve_set_stall(void *ctx, const struct opt *self, const char *v)
{
    if (parse_double(v, 1, 86400, &((struct serve_args *)ctx)->o.stall_s) != CV_OK)
        return cli_usage_error("serve --stall: bad value '%s' (1..86400 s)", v);
    return OPT_GO;
}

static const struct opt serve_table[] = {
    {"backend", 0, "NAME",
     "cpu, nccl or mpi (default cpu); mpi: run it under a launcher, e.g. mpirun -np 4 collviz "
     "serve --backend mpi: rank 0 listens and hands each job to the other ranks",
     serve_set_backend, 0},
    {"socket", 0, "PATH",
     "the Unix socket (default: a private directory, $XDG_RUNTIME_DIR/collviz or "
     "/tmp/collviz-UID, mode 0700; the socket is 0600)",
     opt_string, offsetof(struct serve_args, o.socket)},
    {"tcp", 0, "[HOST:]PORT",
     "listen on TCP instead, on 127.0.0.1 unless HOST is given; a random token is printed and "
     "the UI must present it (--connect tcp:HOST:PORT --token TOKEN)",
     opt_string, offsetof(struct serve_args, o.tcp)},
    {"once", 0, NULL, "end when the first UI disconnects", opt_true,
     offsetof(struct serve_args, o.once)},
    {"stall", 0, "S",
     "mpi: a job of the ranks with no result for S s means a rank died or stalls: tell the UI "
     "and end (default 60, or twice the job's own timeout when longer)",
     serve_set_stall, 0},
    OPT_END,
};

/* serve's own words for a bad option (its tests check them). */
static int serve_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    if (ch == ':') return cli_usage_error("serve: %s needs a value", opt);
    return cli_usage_error("serve: unknown option '%s' (try --help)", opt);
}

static const struct opt_cmd serve_cmd = {
    .prog = "serve",
    .opts = serve_table,
    .usage = serve_usage,
    .bad_option = serve_bad_option,
};

int cli_serve_main(int argc, char **argv)
{
    struct serve_args a = {.backend = NULL};
    int rc = opt_parse(&serve_cmd, argc, argv, &a);
    if (rc != OPT_GO) return rc;
    if ((rc = cli_backend_for_job(&a.backend, "cpu")) != -1) return rc;
    struct serve_opts o = a.o;
    const char *backend = a.backend;
    if (optind < argc) return cli_usage_error("serve: unexpected argument '%s'", argv[optind]);
    if (o.socket && o.tcp)
        return cli_usage_error("serve: --socket and --tcp exclude each other");
    struct backend *b;
    char err[300];
    if (backend_open(backend, &b, err, sizeof err, NULL, 0) != CV_OK) {
        cv_eprintf("collviz serve: --backend %s: %s\n", backend, err);
        return 2;
    }
    /* Under a launcher every process runs this; cli_backend_for_job refused a backend that
     * runs in one process, and one that could not open across them said so above. */
    if (backend_proc_rank(b) != 0) return serve_follow(b); /* rank 0 talks to the UI */
    return serve_run(b, &o);
}
