/* mpi_comm_priv.h - private to the MPI communicator (mpi_comm.c) and the watchdog of MPI's
 * own blocking collectives (mpi_watchdog.c): the communicator's state, its message tags and
 * timings, and the calls each takes from the other. Built only with HAVE_MPI; the rest of
 * the backend makes the communicator through mpi_backend.h's mpi_comm_create. */
#ifndef COLLVIZ_BACKEND_MPI_MPI_COMM_PRIV_H
#define COLLVIZ_BACKEND_MPI_MPI_COMM_PRIV_H

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "backend/comm.h"

#define MC_TAG_HERE 1    /* the roll call's messages, on mc->ctl */
#define MC_TAG_ASK 2     /* the watchdog's roll call, on mc->wd: "where are you?" */
#define MC_TAG_ANSWER 3  /* and its answer: the asked rank's wd_state, tag 3 + the round */
#define MC_WD_ROUNDS 16  /* rounds told apart: an answer too late for its round is not read */
#define MC_WD_POLL_S 0.1 /* the watchdog looks this often */
/* A named stall: how long a rank other than 0 leaves rank 0 to end the job (and tell the UI)
 * before it ends the job itself. */
#define MC_WD_BACKUP_S 5.0
#define MC_GRACE_MIN_S 2.0 /* how long a roll call waits for the others' answers */
#define MC_GRACE_MAX_S 10.0
#define MC_CANCEL_S 0.5 /* how long abandoned requests get to complete once cancelled */

struct mpi_plan_entry;
struct mpi_pending;

struct mpi_comm {
    struct comm pub;
    int me;
    MPI_Comm coll, p2p, ctl; /* plans and proc_*; eager send/recv; the roll call */
    struct mpi_plan_entry **plans;
    size_t nplans, plans_cap;
    float *work, *tmp;
    size_t work_cap, tmp_cap;
    MPI_Request *reqs;
    size_t reqs_cap;
    struct mpi_pending *pend;
    size_t npend, pend_cap;
    struct comm_stats stats;
    size_t held;  /* bytes of scratch and in-flight messages */
    size_t peak;  /* the most `held` has been */
    size_t bufs;  /* bytes of working buffers from buf_alloc */
    int tag_ub;   /* MPI_TAG_UB: the largest tag this MPI carries */
    int world_me; /* this process's rank in MPI_COMM_WORLD */
    bool aborted;
    bool stranded; /* a request given up on did not complete: keep the buffers (mc_abandon) */
    /* The watchdog of MPI's own blocking collectives (mc_wd_*): a thread of its own on a
     * communicator of its own (MPI_THREAD_MULTIPLE only). The main thread publishes where
     * it is; the watchdog reads it, answers the other ranks' watchdogs and, when the main
     * thread has been in one call past the deadline, finds who did not join it. */
    MPI_Comm wd;
    pthread_t wd_thread;
    bool wd_on;                    /* the thread runs (main thread's word) */
    atomic_bool wd_stop;           /* main thread -> watchdog: end */
    atomic_ullong wd_state;        /* native calls begun << 1 | inside one now */
    _Atomic double wd_entered_s;   /* when the main thread entered it (now_s) */
    _Atomic double wd_deadline_s;  /* that call's deadline (mc_timeout; 0: none) */
    _Atomic(const char *) wd_what; /* its name: "MPI_Allreduce" */
    atomic_bool wd_fired;          /* the watchdog gave a verdict: wd_err */
    char wd_err[256];              /* written before wd_fired (release) */
#ifdef CV_TEST_HOOKS
    int stall_rank; /* CV_TEST_STALL=RANK:SECONDS[:TIMEOUT]: this rank sleeps before its */
    double stall_s; /* first run(), and every wait's deadline is TIMEOUT; RANK -1: every */
                    /* rank sleeps inside its first MPI collective, as if MPI were stuck */
    double test_timeout_s;
    int proc_stall_rank; /* CV_TEST_PROC_STALL=RANK:CALL:SECONDS:TIMEOUT: this rank sleeps */
    int proc_stall_call; /* before its CALLth proc_* call (from 1); the requests the others' */
    double proc_stall_s; /* failed waits leave open are kept and, when the communicator is */
    int proc_calls;      /* destroyed, waited for (mc_test_drain) */
    double proc_drain_s;
    MPI_Request test_open[8];
    int test_nopen;
#endif
    char err[256];
    char said[256]; /* mc_last_error's copy */
};

/* The deadline of one wait (the test seam may shorten it). */
static inline double mc_timeout(const struct mpi_comm *mc)
{
#ifdef CV_TEST_HOOKS
    if (mc->test_timeout_s > 0) return mc->test_timeout_s;
#endif
    return mc->pub.timeout_s;
}

/* ---- mpi_comm.c, for the watchdog ---- */

/* This communicator's rank r as a rank of MPI_COMM_WORLD (the one the screens show). */
int mc_world_rank(struct mpi_comm *mc, int r);
/* How long a roll call waits for the others' answers, for a deadline of tmo seconds. */
double mc_grace(double tmo);
/* Sleep s seconds, whatever signals come. */
void mc_nap_s(double s);
/* Append rank r to a list "1, 3" (*count ranks so far). */
void mc_rank_list(char *who, size_t n, int *count, int r);
struct mc_wd;
/* Until every request of r[0..W) is done or `until` (now_s) passes; with d, the watchdog d
 * also answers the others' questions meanwhile. */
void mc_await(MPI_Request *r, int W, double until, struct mc_wd *d);

/* ---- mpi_watchdog.c, for the communicator ---- */

/* Answer every question that has come: this rank's published state. */
void mc_wd_answer(struct mc_wd *d);
/* Start the watchdog (main thread; once per communicator) / stop it. */
void mc_wd_start(struct mpi_comm *mc);
void mc_wd_stop(struct mpi_comm *mc);
/* The main thread enters native call `what` / has left it: CV_OK, or the watchdog's
 * verdict when it gave one (the job is ending). */
void mc_wd_enter(struct mpi_comm *mc, const char *what);
int mc_wd_leave(struct mpi_comm *mc);

#endif
