/* mpi_backend.h - the MPI backend (built with HAVE_MPI): every rank is an MPI process started
 * by a launcher (mpirun, srun). Its communicator runs the animated plans' transfers with MPI
 * point-to-point (so the ring drawn is the ring that ran) and, for comparison, MPI's own
 * collectives (`--algo mpi`). Every process runs the same command; results are agreed over
 * MPI, so every process returns the same row and only rank 0 prints. */
#ifndef COLLVIZ_BACKEND_MPI_MPI_BACKEND_H
#define COLLVIZ_BACKEND_MPI_MPI_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "core/plan.h"
#include "backend/comm.h"
#include "backend/backend.h"

extern const struct backend_ops mpi_backend_ops;

/* True when this process was started by an MPI launcher (Open MPI's, a PMI/PMIx one such as
 * srun or MPICH's hydra): the environment says so before MPI is initialised. The fact is
 * mpi_launcher.c's (launcher_launched), below this file. */
bool mpi_launched(void);

/* The backend's one runtime (mpi_comm.c): this process is rank `self`; what training,
 * the measurement and the display-scale run (backend/run.c) run on. */
int mpi_comm_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                    char *err, size_t errlen);

/* The processes of this one's node (MPI_COMM_TYPE_SHARED), made when b opened. */
MPI_Comm mpi_backend_node(const struct backend *b);

/* The line printed when --backend mpi runs without a launcher. */
#define MPI_LAUNCH_HINT                                                                        \
    "not started by an MPI launcher; run it as: mpirun -np N collviz bench|trace|train ... "   \
    "--backend mpi"

#endif
