/* bench.h - the measuring half of `collviz bench`, shared with `collviz model --fit`: parse
 * bench's options, then run the sweep (one MEASURE job per collective and size on the
 * worker thread, printing nccl-tests' text table as it goes unless JSON was asked for) and
 * keep the rows. One bench loop, whoever prints the result. */
#ifndef COLLVIZ_CLI_BENCH_H
#define COLLVIZ_CLI_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "core/coll.h"

struct bench_opts {
    const char *backend;
    int ranks;
    bool ranks_given;
    size_t minb, maxb;
    bool minb_set, maxb_set;
    const char *minb_arg, *maxb_arg; /* as typed, for messages */
    double factor;
    size_t step; /* -i: additive step; 0 = multiply by factor */
    bool factor_set;
    int iters, warmup;
    bool check;
    enum redop op;
    int root;
    bool root_given; /* -r was on the command line */
    bool algo_auto;
    /* No --algo: each collective's own default (coll_default_algo: ring where it has one),
     * fixed for the whole table. */
    bool algo_default;
    enum algo algo;
    bool algo_given;  /* --algo was on the command line */
    bool native;      /* --algo mpi: the library's own collectives (MPI_Allreduce, ...) */
    bool within_node; /* --within-node: only the ranks of this process's node */
    double timeout_s;
    int slices, channels; /* CPU: 0 = the backend's default */
    bool json;
    bool all;
    enum coll coll;
    int ring[CV_MAX_RANKS]; /* --ring-order / --ring-order-from; ring_n 0: not given */
    int ring_n;
};

/* One measured row, kept for JSON (which is printed whole at the end): nccl-tests' two
 * groups, out of place (r) and in place (ip; has_ip false where collviz has no in-place
 * form: all_to_all). */
struct bench_row {
    enum coll coll;
    enum redop op;
    int root;
    struct bench_result r;
    struct bench_result ip;
    bool has_ip;
};

/* What a sweep produced. */
struct bench_sweep {
    struct bench_row *rows;
    size_t nrows;
    char backend[16]; /* the backend that ran: "cpu", "nccl" */
    int ranks;        /* the ranks that ran (auto on NCCL may shrink the default) */
    char *hardware;   /* the backend's hardware block, or NULL (see bench.c) */
};

/* Parse bench's options (argv[0] is the subcommand; `prog` names it in messages). Returns -1
 * to go on, 0 after --help (bench's usage printed), 2 on bad input (one line on stderr). */
int bench_parse(int argc, char **argv, struct bench_opts *o, const char *prog);

/* Run the sweep o describes; the text table goes to stdout unless o->json. Returns bench's
 * exit status (0 ran, 1 a run failed, 2 bad input, 130 interrupted); the rows measured so far
 * are in *out either way (free with bench_sweep_free). o->ranks is updated to what ran. */
int bench_sweep(struct bench_opts *o, struct bench_sweep *out);
void bench_sweep_free(struct bench_sweep *s);

#endif
