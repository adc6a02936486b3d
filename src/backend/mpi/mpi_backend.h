/* mpi_backend.h - the MPI backend (built with HAVE_MPI): every rank is an MPI process started
 * by a launcher (mpirun, srun). It runs the animated plans' transfers with MPI point-to-point
 * (so the ring drawn is the ring that ran) and, for comparison, MPI's own collectives
 * (`--algo mpi`). Every process runs the same command; results are agreed over MPI, so every
 * process returns the same row and only rank 0 prints. */
#ifndef COLLVIZ_BACKEND_MPI_H
#define COLLVIZ_BACKEND_MPI_H

#include <stdbool.h>
#include <stddef.h>

#include <mpi.h>

#include "../../core/plan.h"
#include "../comm.h"
#include "../backend.h"

extern const struct backend_ops mpi_backend_ops;

/* True when this process was started by an MPI launcher (Open MPI's, a PMI/PMIx one such as
 * srun or MPICH's hydra): the environment says so before MPI is initialised. */
bool mpi_launched(void);

/* Run plan p once on rank me's working buffer (p->work_len floats), step by step: the
 * transfers of a step as MPI_Irecv/MPI_Isend on comm, then the received pieces applied in
 * plan order. tmp: mpi_plan_recv_max(p, me) floats; reqs: room for 2 * the most transfers of
 * any step. A wait longer than timeout_s fails (CV_ETIMEOUT). */
int mpi_plan_run(const struct plan *p, int me, MPI_Comm comm, float *buf, float *tmp,
                 MPI_Request *reqs, double timeout_s, char *err, size_t errlen);
size_t mpi_plan_recv_max(const struct plan *p, int me);
/* MPI_Waitall with a deadline (polls; yields the core between polls). */
int mpi_wait_all(int n, MPI_Request *reqs, double timeout_s, const char *what, char *err,
                 size_t errlen);

/* The training communicator on MPI (mpi_comm.c): this process is rank `self`. */
int mpi_comm_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                    char *err, size_t errlen);

/* The line printed when --backend mpi runs without a launcher. */
#define MPI_LAUNCH_HINT                                                                        \
    "not started by an MPI launcher; run it as: mpirun -np N collviz bench|trace|train ... "   \
    "--backend mpi"

#endif
