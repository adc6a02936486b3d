/* launcher.h - the job a launcher started (mpirun, srun, MPICH's hydra): whether one
 * started this process, where the process stands in the job (rank, size, its node), the
 * job's broken flag, and the few collectives over every process of it that a backend uses
 * to bootstrap and that the job side (worker/serve.c) uses to hand out work.
 *
 * Backend-neutral: the backends and the code above backend/ use this, never the launching
 * library's own header. The backend that brings a launcher implements it (MPI:
 * mpi/mpi_launcher.c, built with HAVE_MPI, which starts MPI once per process however many
 * backends ask); without one, launcher.c's stand-in says none is built, and this process is
 * the whole job: rank 0 of 1, whose collectives change nothing. No <mpi.h> here. */
#ifndef COLLVIZ_BACKEND_LAUNCHER_H
#define COLLVIZ_BACKEND_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/comm.h"

/* True when this build has a launcher's library (MPI); false: launcher.c's stand-in. */
bool launcher_built(void);

struct launcher_where {
    int rank, size;             /* in MPI_COMM_WORLD */
    int local_rank, local_size; /* among the processes of this node (MPI_COMM_TYPE_SHARED) */
    int nhosts;
    char host[64];
};

/* True when an MPI launcher (Open MPI's, a PMI/PMIx one such as srun or MPICH's hydra)
 * started this process: the environment says so before MPI is initialised. */
bool launcher_launched(void);
/* The job a launcher started this process in, read from the environment alone, in any
 * build and before any library starts: size, the number of processes, and the variable that
 * says it (var, value; NULL when no launcher's variable is set, size 1); who, the launcher in
 * words; mpi, whether it is one whose job an MPI library joins (mpirun, MPICH's hydra, srun
 * with PMI) rather than torchrun's. A value that is not a count (1..2^31-1) gives size 0. */
struct launcher_job {
    int size;
    const char *var, *value, *who;
    bool mpi;
};
void launcher_job_of_env(struct launcher_job *j);

/* Start the launcher's library (MPI; or count one more user of it) and say where this process
 * is. CV_OK or CV_EUNAVAIL with a message. */
int launcher_start(struct launcher_where *w, char *err, size_t errlen);
/* One user fewer. MPI, if launcher_start initialised it, is finalised at process exit when
 * no user is left (so every process's output is written before any exits, and a backend
 * may be opened again). When the job is broken (below), the last user ends the whole job
 * with MPI_Abort at once: MPI_Finalize would wait for the ranks that stalled. */
void launcher_stop(void);

/* True when MPI runs with MPI_THREAD_MULTIPLE (a second thread may call it while the first
 * waits in a collective): mpi_watchdog.c, the watchdog of MPI's own collectives, needs it. */
bool launcher_thread_multiple(void);
/* This process has a loop that looks at launcher_broken() at least every within_s seconds
 * and then ends the job itself, telling whoever listens why (collviz serve's rank 0); 0:
 * none. A thread that finds the job broken while the process's own thread is stuck in MPI
 * leaves it that long to do so before it ends the job with MPI_Abort. */
void launcher_set_watched(double within_s);
double launcher_watched(void);

/* The job cannot go on: a rank stalled (rank: the first one named, in MPI_COMM_WORLD; -1
 * when none is) or a communicator was aborted. The first call's words are kept. */
void launcher_set_broken(int rank, const char *why);
/* True once the job is broken; *rank and why (may be NULL) say which rank and why. */
bool launcher_broken(int *rank, char *why, size_t n);

/* Over MPI_COMM_WORLD (every process calls them at the same point): */
int launcher_bcast(void *buf, size_t bytes, int root);
/* Element-wise sum over every process of the job, in place (n elements of type t). */
int launcher_sum(void *buf, size_t n, enum comm_proc_type t);
int launcher_max_int(int *v);
/* Every rank's `bytes` bytes, concatenated in rank order (all holds size * bytes). */
int launcher_allgather(const void *mine, void *all, size_t bytes);

#endif
