/* launcher.c - what the environment says of a launcher's job (launcher_job_of_env, in every
 * build), and the stand-in launcher (backend/launcher.h) of a build without one (no MPI):
 * nothing launched this process, it is the whole job (rank 0 of 1), and every collective
 * over the job leaves the data as it is. With HAVE_MPI the launcher is mpi/mpi_launcher.c
 * and only launcher_job_of_env is here. */
#include "backend/launcher.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

/* In every build. The order: the MPI launchers' own variables first (mpirun under srun sets
 * both); srun's step size, not SLURM_NTASKS, which a batch script that runs collviz once
 * also has; torchrun's last. */
void launcher_job_of_env(struct launcher_job *j)
{
    static const struct {
        const char *var, *who;
        bool mpi;
    } vars[] = {
        {"OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun", true},
        {"PMI_SIZE", "a PMI launcher (MPICH's mpiexec, srun --mpi=pmi2)", true},
        {"SLURM_STEP_NUM_TASKS", "srun", false},
        {"WORLD_SIZE", "torchrun", false},
    };
    *j = (struct launcher_job){.size = 1};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i].var);
        if (!v) continue;
        j->var = vars[i].var;
        j->value = v;
        j->who = vars[i].who;
        /* srun's tasks are an MPI job when its PMI or PMIx set them up */
        j->mpi = vars[i].mpi || getenv("PMIX_RANK") || getenv("PMI_RANK");
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        j->size = (errno || end == v || *end || n < 1 || n > INT_MAX) ? 0 : (int)n;
        return;
    }
}

#ifndef HAVE_MPI
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

static pthread_mutex_t launcher_mu = PTHREAD_MUTEX_INITIALIZER;
static bool launcher_is_broken;
static int launcher_broken_rank = -1;
static char launcher_broken_why[256];
static double launcher_watched_s;

bool launcher_built(void)
{
    return false;
}

bool launcher_launched(void)
{
    return false;
}

int launcher_start(struct launcher_where *w, char *err, size_t errlen)
{
    (void)w;
    return cv_err(err, errlen, CV_EUNAVAIL, "this build has no launcher (built without MPI)");
}

void launcher_stop(void)
{
}

bool launcher_thread_multiple(void)
{
    return true; /* one process: no other thread waits in a collective of the job */
}

void launcher_set_watched(double within_s)
{
    pthread_mutex_lock(&launcher_mu);
    launcher_watched_s = within_s;
    pthread_mutex_unlock(&launcher_mu);
}

double launcher_watched(void)
{
    pthread_mutex_lock(&launcher_mu);
    double w = launcher_watched_s;
    pthread_mutex_unlock(&launcher_mu);
    return w;
}

void launcher_set_broken(int rank, const char *why)
{
    pthread_mutex_lock(&launcher_mu);
    if (!launcher_is_broken || (launcher_broken_rank < 0 && rank >= 0)) {
        launcher_is_broken = true;
        launcher_broken_rank = rank;
        snprintf(launcher_broken_why, sizeof launcher_broken_why, "%s", why ? why : "");
    }
    pthread_mutex_unlock(&launcher_mu);
}

bool launcher_broken(int *rank, char *why, size_t n)
{
    pthread_mutex_lock(&launcher_mu);
    bool b = launcher_is_broken;
    if (rank) *rank = launcher_broken_rank;
    if (why && n) snprintf(why, n, "%s", launcher_broken_why);
    pthread_mutex_unlock(&launcher_mu);
    return b;
}

int launcher_bcast(void *buf, size_t bytes, int root)
{
    (void)buf;
    (void)bytes;
    return root == 0 ? CV_OK : CV_EINVAL;
}

int launcher_sum(void *buf, size_t n, enum comm_proc_type t)
{
    (void)buf;
    (void)n;
    (void)t;
    return CV_OK;
}

int launcher_max_int(int *v)
{
    (void)v;
    return CV_OK;
}

int launcher_allgather(const void *mine, void *all, size_t bytes)
{
    if (bytes) memcpy(all, mine, bytes);
    return CV_OK;
}
#endif
