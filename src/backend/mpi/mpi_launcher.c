/* mpi_launcher.c - the launcher (backend/launcher.h) of an MPI job: starting MPI once per
 * process, the job's broken flag and the few collectives the backends use to
 * bootstrap (see backend/launcher.h). */
#include "backend/launcher.h"

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

static pthread_mutex_t boot_mu = PTHREAD_MUTEX_INITIALIZER;
static int boot_users;
static bool boot_initialised; /* by us, so we finalise */
static bool boot_broken;      /* launcher_set_broken */
static int boot_broken_rank = -1;
static char boot_broken_why[256];
static bool boot_multiple;    /* MPI_THREAD_MULTIPLE provided */
static double boot_watched_s; /* launcher_set_watched */

/* MPI_Finalize waits at process exit, not when the last backend closes: the output that
 * follows the close (rank 0's JSON, its closing line) must be written before any process
 * ends, because mpirun ends the whole job as soon as one process exits with a nonzero
 * status, rank 0 included if it is still writing. */
static void launcher_at_exit(void)
{
    pthread_mutex_lock(&boot_mu);
    if (boot_initialised && boot_users == 0) {
        fflush(NULL);
        if (boot_broken) MPI_Abort(MPI_COMM_WORLD, 1); /* as in launcher_stop */
        MPI_Finalize();
        boot_initialised = false;
    }
    pthread_mutex_unlock(&boot_mu);
}

/* A launcher (mpirun, srun, mpiexec) leaves one of these in every process it starts. */
bool launcher_built(void)
{
    return true;
}

bool launcher_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                       "PMI_SIZE", "MPI_LOCALNRANKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i])) return true;
    return false;
}

int launcher_start(struct launcher_where *w, char *err, size_t errlen)
{
    pthread_mutex_lock(&boot_mu);
    int inited = 0, fin = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    if (fin) {
        pthread_mutex_unlock(&boot_mu);
        return cv_err(err, errlen, CV_EUNAVAIL, "MPI was finalised already in this process");
    }
    if (!inited) {
        int provided = 0;
        /* The CLI and the UI call a backend from their worker thread, one call at a time:
         * serialised calls are enough for that. MPI_THREAD_MULTIPLE lets a watchdog thread
         * name a rank that stalls while the others wait in one of MPI's own blocking
         * collectives (mpi_watchdog.c); without it those stalls are not named. */
        int want = MPI_THREAD_MULTIPLE;
#ifdef CV_TEST_HOOKS
        /* CV_TEST_MPI_THREAD=serialized (test builds): as with an MPI library that has no
         * MPI_THREAD_MULTIPLE. */
        const char *lvl = getenv("CV_TEST_MPI_THREAD");
        if (lvl && strcmp(lvl, "serialized") == 0) want = MPI_THREAD_SERIALIZED;
#endif
        if (MPI_Init_thread(NULL, NULL, want, &provided) != MPI_SUCCESS) {
            pthread_mutex_unlock(&boot_mu);
            return cv_err(err, errlen, CV_EUNAVAIL, "MPI_Init_thread failed");
        }
        boot_initialised = true;
        atexit(launcher_at_exit);
        if (provided < MPI_THREAD_SERIALIZED) {
            pthread_mutex_unlock(&boot_mu);
            return cv_err(err, errlen, CV_EUNAVAIL,
                          "the MPI library cannot be called from a worker thread "
                          "(MPI_THREAD_SERIALIZED not provided)");
        }
        boot_multiple = provided >= MPI_THREAD_MULTIPLE;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    } else {
        int provided = 0;
        MPI_Query_thread(&provided);
        boot_multiple = provided >= MPI_THREAD_MULTIPLE;
    }
    boot_users++;
    pthread_mutex_unlock(&boot_mu);

    memset(w, 0, sizeof *w);
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &w->local_rank);
    MPI_Comm_size(node, &w->local_size);
    MPI_Comm_free(&node);
    int leader = w->local_rank == 0;
    MPI_Allreduce(&leader, &w->nhosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (gethostname(w->host, sizeof w->host - 1) != 0) snprintf(w->host, sizeof w->host, "?");
    w->host[sizeof w->host - 1] = '\0';
    return CV_OK;
}

void launcher_stop(void)
{
    pthread_mutex_lock(&boot_mu);
    if (boot_users > 0 && --boot_users == 0 && boot_initialised && boot_broken) {
        fflush(NULL);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#ifdef CV_TEST_HOOKS
    /* CV_TEST_LINGER=SECONDS (test builds only): rank 0 takes that long after its last
     * backend closes, as a slow writer of its output would; the other ranks, which may
     * exit with an error status, must not end it meanwhile (launcher_at_exit). */
    const char *linger = getenv("CV_TEST_LINGER");
    int me = -1;
    if (linger && boot_users == 0 && boot_initialised) MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0) usleep((useconds_t)(atof(linger) * 1e6));
#endif
    pthread_mutex_unlock(&boot_mu);
}

bool launcher_thread_multiple(void)
{
    pthread_mutex_lock(&boot_mu);
    bool m = boot_multiple;
    pthread_mutex_unlock(&boot_mu);
    return m;
}

void launcher_set_watched(double within_s)
{
    pthread_mutex_lock(&boot_mu);
    boot_watched_s = within_s;
    pthread_mutex_unlock(&boot_mu);
}

double launcher_watched(void)
{
    pthread_mutex_lock(&boot_mu);
    double w = boot_watched_s;
    pthread_mutex_unlock(&boot_mu);
    return w;
}

void launcher_set_broken(int rank, const char *why)
{
    pthread_mutex_lock(&boot_mu);
    if (!boot_broken) {
        boot_broken = true;
        boot_broken_rank = rank;
        snprintf(boot_broken_why, sizeof boot_broken_why, "%s", why ? why : "");
    } else if (boot_broken_rank < 0 && rank >= 0) {
        /* a named rank says more than an abort without one */
        boot_broken_rank = rank;
        snprintf(boot_broken_why, sizeof boot_broken_why, "%s", why ? why : "");
    }
    pthread_mutex_unlock(&boot_mu);
}

bool launcher_broken(int *rank, char *why, size_t n)
{
    pthread_mutex_lock(&boot_mu);
    bool b = boot_broken;
    if (rank) *rank = boot_broken_rank;
    if (why && n) snprintf(why, n, "%s", boot_broken_why);
    pthread_mutex_unlock(&boot_mu);
    return b;
}

#ifdef CV_TEST_HOOKS
/* CV_TEST_BCAST_FAIL=RANK:N (test builds only): on rank RANK, the Nth call of
 * launcher_bcast (from 1) fails without calling MPI, as a broadcast whose MPI_Bcast
 * returned an error would; the others are left waiting in theirs. */
static bool launcher_test_bcast_fails(void)
{
    static int calls;
    const char *v = getenv("CV_TEST_BCAST_FAIL");
    int rank = -1, nth = 0, me = -1;
    if (!v || sscanf(v, "%d:%d", &rank, &nth) != 2) return false;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    return me == rank && ++calls == nth;
}
#endif

int launcher_bcast(void *buf, size_t bytes, int root)
{
    if (bytes > INT32_MAX) return CV_EINVAL;
#ifdef CV_TEST_HOOKS
    if (launcher_test_bcast_fails()) return CV_EBACKEND;
#endif
    return MPI_Bcast(buf, (int)bytes, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS
               ? CV_OK
               : CV_EBACKEND;
}

int launcher_sum(void *buf, size_t n, enum comm_proc_type t)
{
    if (n > INT32_MAX) return CV_EINVAL;
    if (n == 0) return CV_OK;
    MPI_Datatype dt = t == COMM_PROC_F32   ? MPI_FLOAT
                      : t == COMM_PROC_F64 ? MPI_DOUBLE
                      : t == COMM_PROC_INT ? MPI_INT
                                           : MPI_UINT64_T;
    return MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, dt, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS
               ? CV_OK
               : CV_EBACKEND;
}

int launcher_max_int(int *v)
{
    return MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS
               ? CV_OK
               : CV_EBACKEND;
}

int launcher_allgather(const void *mine, void *all, size_t bytes)
{
    if (bytes > INT32_MAX) return CV_EINVAL;
    return MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
                         MPI_COMM_WORLD) == MPI_SUCCESS
               ? CV_OK
               : CV_EBACKEND;
}
