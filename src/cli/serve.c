/* serve.c - `collviz serve`: run a job that obeys one UI (worker/serve.h). The UI starts it
 * itself with --mpi "LAUNCH", or attaches with --connect to one started elsewhere. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../core/util.h"
#include "../worker/serve.h"
#include "cli.h"

static void serve_usage(FILE *f)
{
    fprintf(f,
            "usage: collviz serve [options]\n"
            "Run the measurements for one UI that connects (collviz --connect ADDRESS, or\n"
            "started for you by collviz --mpi \"LAUNCH\"). Prints the address it listens on.\n"
            "  --backend NAME   cpu, nccl or mpi (default cpu); mpi: run it under a launcher,\n"
            "                   e.g. mpirun -np 4 collviz serve --backend mpi: rank 0\n"
            "                   listens and hands each job to the other ranks\n"
            "  --socket PATH    the Unix socket (default: a private directory,\n"
            "                   $XDG_RUNTIME_DIR/collviz or /tmp/collviz-UID, mode 0700;\n"
            "                   the socket is 0600)\n"
            "  --tcp [HOST:]PORT  listen on TCP instead, on 127.0.0.1 unless HOST is given;\n"
            "                   a random token is printed and the UI must present it\n"
            "                   (--connect tcp:HOST:PORT --token TOKEN)\n"
            "  --once           end when the first UI disconnects\n"
            "  --stall S        mpi: a job of the ranks with no result for S s means a rank\n"
            "                   died or stalls: tell the UI and end (default 60, or twice\n"
            "                   the job's own timeout when longer)\n"
            "  -h, --help       this text\n");
}

int cli_serve_main(int argc, char **argv)
{
    enum { O_BACKEND = 1000, O_SOCKET, O_TCP, O_ONCE, O_STALL };
    static const struct option opts[] = {{"backend", required_argument, NULL, O_BACKEND},
                                         {"socket", required_argument, NULL, O_SOCKET},
                                         {"tcp", required_argument, NULL, O_TCP},
                                         {"once", no_argument, NULL, O_ONCE},
                                         {"stall", required_argument, NULL, O_STALL},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    struct serve_opts o = {0};
    const char *backend = "cpu";
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_BACKEND:
            backend = optarg;
            if (backend_kind_of(backend) < 0 && strcmp(backend, "auto") != 0)
                return cli_usage_error("serve --backend: unknown backend '%s'", backend);
            break;
        case O_SOCKET:
            o.socket = optarg;
            break;
        case O_TCP:
            o.tcp = optarg;
            break;
        case O_ONCE:
            o.once = true;
            break;
        case O_STALL: {
            if (parse_double(optarg, 1, 86400, &o.stall_s) != CV_OK)
                return cli_usage_error("serve --stall: bad value '%s' (1..86400 s)", optarg);
            break;
        }
        case 'h':
            serve_usage(stdout);
            return 0;
        case ':':
            return cli_usage_error("serve: %s needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("serve: unknown option '%s' (try --help)", argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error("serve: unexpected argument '%s'", argv[optind]);
    if (o.socket && o.tcp)
        return cli_usage_error("serve: --socket and --tcp exclude each other");
    struct backend *b;
    char err[300];
    if (backend_open(backend, &b, err, sizeof err, NULL, 0) != CV_OK) {
        cv_eprintf("collviz serve: --backend %s: %s\n", backend, err);
        return 2;
    }
    /* Under a launcher every process runs this; only a backend whose ranks are the
     * launcher's processes (mpi, nccl under MPI) makes them one job. */
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                            "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof size_vars / sizeof size_vars[0]; i++) {
        const char *v = getenv(size_vars[i]);
        if (v && atoi(v) > 1 && !backend_multiprocess(b)) {
            backend_close(b);
            return cli_usage_error("serve: %s processes were launched (%s=%s) but backend "
                                   "%s runs in one: use --backend mpi (or nccl)",
                                   v, size_vars[i], v, backend);
        }
    }
    if (backend_proc_rank(b) != 0) return serve_follow(b); /* rank 0 talks to the UI */
    return serve_run(b, &o);
}
