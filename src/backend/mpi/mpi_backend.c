/* mpi_backend.c - the MPI backend: one rank per MPI process.
 *
 * What the backend is (the processes, their hosts, the MPI library) lives here; what it runs
 * lives in its communicator (mpi_comm.c): measurements and the display-scale run go through
 * backend/run.c onto it, as training does. A plan runs there step by step with
 * MPI_Isend/Irecv, so the ring drawn is the ring that ran; `--algo mpi`
 * (bench_params.native) runs MPI's own collective instead (MPI_Allreduce, MPI_Allgather,
 * ...) for comparison. Every process runs the same calls; results are agreed over MPI, so
 * every process returns the same row. */
#include "backend/mpi/mpi_backend.h"
#include "backend/launcher.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#define MPI_HOST_LEN 64

struct mpi_state {
    int rank, size;
    int local_rank, local_size; /* within this node (MPI_COMM_TYPE_SHARED) */
    int nhosts;
    MPI_Comm node;               /* the ranks of this process's node */
    char (*hosts)[MPI_HOST_LEN]; /* [size]: every rank's host name */
    char version[64];
};

bool mpi_launched(void)
{
    return launcher_launched();
}

static int mpi_open(struct backend *b, char *err, size_t errlen)
{
    if (!mpi_launched()) return cv_err(err, errlen, CV_EINVAL, "mpi: %s", MPI_LAUNCH_HINT);
    struct launcher_where where;
    char why[200];
    if (launcher_start(&where, why, sizeof why) != CV_OK)
        return cv_err(err, errlen, CV_EUNAVAIL, "mpi: %s", why);
    struct mpi_state *st = xcalloc(1, sizeof *st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &st->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &st->size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, st->rank, MPI_INFO_NULL,
                        &st->node);
    MPI_Comm_set_errhandler(st->node, MPI_ERRORS_RETURN);
    MPI_Comm_rank(st->node, &st->local_rank);
    MPI_Comm_size(st->node, &st->local_size);
    int leader = st->local_rank == 0;
    MPI_Allreduce(&leader, &st->nhosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    char me[MPI_HOST_LEN] = "";
    if (gethostname(me, sizeof me - 1) != 0) snprintf(me, sizeof me, "?");
    me[MPI_HOST_LEN - 1] = '\0';
    st->hosts = xcalloc((size_t)st->size, sizeof *st->hosts);
    MPI_Allgather(me, MPI_HOST_LEN, MPI_CHAR, st->hosts, MPI_HOST_LEN, MPI_CHAR,
                  MPI_COMM_WORLD);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0'; /* "Open MPI v4.1.4" */
    snprintf(st->version, sizeof st->version, "%.63s", lib);
    b->priv = st;
    return CV_OK;
}

static void mpi_close(struct backend *b)
{
    struct mpi_state *st = b->priv;
    if (!st) return;
    free(st->hosts);
    MPI_Comm_free(&st->node);
    launcher_stop();
    free(st);
    b->priv = NULL;
}

static int mpi_max_ranks(struct backend *b)
{
    struct mpi_state *st = b->priv;
    return st->size;
}

static int mpi_proc_rank(struct backend *b)
{
    struct mpi_state *st = b->priv;
    return st->rank;
}

MPI_Comm mpi_backend_node(const struct backend *b)
{
    const struct mpi_state *st = b->priv;
    return st->node;
}

static int mpi_node_ranks(struct backend *b)
{
    struct mpi_state *st = b->priv;
    return st->local_size;
}

static void mpi_describe(struct backend *b, int nranks, char *buf, size_t n)
{
    struct mpi_state *st = b->priv;
    snprintf(buf, n, "mpi: %d process%s on %d host%s (%s%s), %s%s", st->size,
             st->size == 1 ? "" : "es", st->nhosts, st->nhosts == 1 ? "" : "s", st->hosts[0],
             st->nhosts > 1 ? ", ..." : "", st->version,
             launcher_thread_multiple() ? ""
                                        : " (no MPI_THREAD_MULTIPLE: a rank that stalls in "
                                          "MPI's own collectives is not named)");
}

static void mpi_rank_label(struct backend *b, int rank, char *buf, size_t n)
{
    struct mpi_state *st = b->priv;
    if (rank < 0 || rank >= st->size)
        snprintf(buf, n, "mpi process");
    else
        snprintf(buf, n, "%s process", st->hosts[rank]);
}

const struct backend_ops mpi_backend_ops = {
    .name = "mpi",
    .kind = BACKEND_MPI,
    .caps = BACKEND_CAP_EXACT_REDUCTION | BACKEND_CAP_PROCESSES | BACKEND_CAP_NATIVE_COLL,
    .open = mpi_open,
    .close = mpi_close,
    .max_ranks = mpi_max_ranks,
    .describe = mpi_describe,
    .rank_label = mpi_rank_label,
    .proc_rank = mpi_proc_rank,
    .node_ranks = mpi_node_ranks,
    .comm_create = mpi_comm_create,
};
