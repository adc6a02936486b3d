/* cpu_backend.c - the CPU backend: W threads of this process on shared memory. Its runtime is
 * its communicator (cpu_comm.c): training talks to it, and backend/run.c measures and runs the
 * display-scale collectives on it, through run() of the very plan the UI animates, refined
 * into slices and executed per rank with per-rank progress counters (no barrier between
 * steps). What is left here is the backend's face: open and close, how many ranks, what a
 * rank is, and the communicator for a world size. */
#include "backend/cpu/cpu_backend.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "backend/comm.h"
#include "backend/cpu/cpu_comm.h"

/* A wait inside the runtime gives up after this long when the caller sets no deadline. */
#define CPU_DEFAULT_TIMEOUT_S 30.0

struct cpu_state {
    int ncpus;
};

static int cpu_open(struct backend *b, char *err, size_t errlen)
{
    struct cpu_state *st = xcalloc(1, sizeof *st);
    st->ncpus = cpu_count_cores();
    b->priv = st;
    return CV_OK;
}

static void cpu_close(struct backend *b)
{
    free(b->priv);
    b->priv = NULL;
}

static int cpu_max_ranks(struct backend *b)
{
    return CV_MAX_RANKS;
}

static void cpu_describe(struct backend *b, int nranks, char *buf, size_t n)
{
    struct cpu_state *st = b->priv;
    snprintf(buf, n, "%d rank%s = %d CPU thread%s on %d core%s (pthreads, shared memory)",
             nranks, nranks == 1 ? "" : "s", nranks, nranks == 1 ? "" : "s", st->ncpus,
             st->ncpus == 1 ? "" : "s");
}

static void cpu_rank_label(struct backend *b, int rank, char *buf, size_t n)
{
    snprintf(buf, n, "cpu thread");
}

/* The plans' algorithm is cp->algo (ring, the lecture's, when zero); run() executes
 * whatever plan it is given. */
static int cpu_comm_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                           char *err, size_t errlen)
{
    double tmo = cp->timeout_s > 0 ? cp->timeout_s : CPU_DEFAULT_TIMEOUT_S;
    return comm_cpu_create(out, cp->nranks, cp->algo, cp->async, tmo, cp->tl, err, errlen);
}

const struct backend_ops cpu_backend_ops = {
    .name = "cpu",
    .kind = BACKEND_CPU,
    .caps = BACKEND_CAP_EXACT_REDUCTION,
    .open = cpu_open,
    .close = cpu_close,
    .max_ranks = cpu_max_ranks,
    .describe = cpu_describe,
    .rank_label = cpu_rank_label,
    .comm_create = cpu_comm_create,
};
