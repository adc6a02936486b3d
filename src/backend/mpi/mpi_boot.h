/* mpi_boot.h - MPI for the backends that need only a little of it (built with HAVE_MPI):
 * starting MPI once per process however many backends ask (counted; finalised at exit once
 * the last lets go), where this process stands in the job (rank, size, its node), and the few
 * collectives a backend uses to bootstrap and to agree on results. No <mpi.h> here, so the
 * NCCL backend can use it without MPI's headers in its own. */
#ifndef COLLVIZ_BACKEND_MPI_MPI_BOOT_H
#define COLLVIZ_BACKEND_MPI_MPI_BOOT_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/comm.h"

struct mpi_where {
    int rank, size;             /* in MPI_COMM_WORLD */
    int local_rank, local_size; /* among the processes of this node (MPI_COMM_TYPE_SHARED) */
    int nhosts;
    char host[64];
};

/* True when an MPI launcher (Open MPI's, a PMI/PMIx one such as srun or MPICH's hydra)
 * started this process: the environment says so before MPI is initialised. */
bool mpi_boot_launched(void);
/* Start MPI (or count one more user of it) and say where this process is. CV_OK or
 * CV_EUNAVAIL with a message. */
int mpi_boot_start(struct mpi_where *w, char *err, size_t errlen);
/* One user fewer. MPI, if mpi_boot_start initialised it, is finalised at process exit when
 * no user is left (so every process's output is written before any exits, and a backend
 * may be opened again). When the job is broken (below), the last user ends the whole job
 * with MPI_Abort at once: MPI_Finalize would wait for the ranks that stalled. */
void mpi_boot_stop(void);

/* True when MPI runs with MPI_THREAD_MULTIPLE (a second thread may call it while the first
 * waits in a collective): mpi_watchdog.c, the watchdog of MPI's own collectives, needs it. */
bool mpi_boot_thread_multiple(void);
/* This process has a loop that looks at mpi_boot_broken() at least every within_s seconds
 * and then ends the job itself, telling whoever listens why (collviz serve's rank 0); 0:
 * none. A thread that finds the job broken while the process's own thread is stuck in MPI
 * leaves it that long to do so before it ends the job with MPI_Abort. */
void mpi_boot_set_watched(double within_s);
double mpi_boot_watched(void);

/* The job cannot go on: a rank stalled (rank: the first one named, in MPI_COMM_WORLD; -1
 * when none is) or a communicator was aborted. The first call's words are kept. */
void mpi_boot_set_broken(int rank, const char *why);
/* True once the job is broken; *rank and why (may be NULL) say which rank and why. */
bool mpi_boot_broken(int *rank, char *why, size_t n);

/* Over MPI_COMM_WORLD (every process calls them at the same point): */
int mpi_boot_bcast(void *buf, size_t bytes, int root);
/* Element-wise sum over every process of the job, in place (n elements of type t). */
int mpi_boot_sum(void *buf, size_t n, enum comm_proc_type t);
int mpi_boot_max_int(int *v);
/* Every rank's `bytes` bytes, concatenated in rank order (all holds size * bytes). */
int mpi_boot_allgather(const void *mine, void *all, size_t bytes);

#endif
