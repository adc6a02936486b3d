/* mpi_watchdog.c - the watchdog of the MPI communicator's native calls (mpi_comm.c): a
 * thread that names the rank that stalled while the others wait inside one of MPI's own
 * blocking collectives, and then ends the job. Built only with HAVE_MPI. */
#include "backend/mpi/mpi_comm_priv.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "backend/launcher.h"

/* ---- the watchdog of MPI's own collectives ----
 *
 * A rank that stalls while the others wait inside a blocking MPI collective (MPI_Allreduce,
 * ...) cannot be named by them: they are inside MPI, not in a wait of ours. With
 * MPI_THREAD_MULTIPLE each process runs a watchdog thread on a communicator of its own
 * (mc->wd). The main thread publishes its native call number, whether it is inside that call,
 * the call's name and when it entered (atomics; the verdict comes back as text behind the
 * atomic flag wd_fired). The watchdog wakes every MC_WD_POLL_S: it answers the other
 * watchdogs' questions ("where are you?": the published state) and, when its own main thread
 * has been inside one call past the deadline, asks every other rank. A rank that does not
 * answer within the grace (mc_stalled's rule) or that answers from behind (it has not begun
 * that call) is named. The main thread is still stuck in MPI, so the watchdog ends the job
 * itself: it marks the job broken (serve's rank 0 tells the UI), prints the verdict on
 * stderr, and calls MPI_Abort. */

/* The watchdog's standing questions and the answers it owes. */
struct mc_wd {
    struct mpi_comm *mc;
    unsigned long long ask; /* an asker's state (not used; the message is the question) */
    MPI_Request askr;
    unsigned long long *reply; /* per asker: the answer in flight */
    MPI_Request *replyr;
    unsigned round; /* this rank's roll calls so far: the question is round % MC_WD_ROUNDS */
    /* The call in which every rank last answered from inside it: asked again one deadline
     * later before MPI itself is blamed (a job being torn down wakes a stopped process,
     * which then answers: one such round names nobody wrongly). */
    unsigned long long all_in;
};

/* Answer every question that has come: this rank's published state. */
void mc_wd_answer(struct mc_wd *d)
{
    struct mpi_comm *mc = d->mc;
    for (;;) {
        int done = 0;
        MPI_Status st;
        if (d->askr == MPI_REQUEST_NULL) return;
        if (MPI_Test(&d->askr, &done, &st) != MPI_SUCCESS || !done) return;
        int q = st.MPI_SOURCE;
        if (q >= 0 && q < mc->pub.nranks && d->ask < MC_WD_ROUNDS) {
            int sent = 1;
            if (d->replyr[q] != MPI_REQUEST_NULL)
                MPI_Test(&d->replyr[q], &sent, MPI_STATUS_IGNORE);
            if (sent) { /* else the asker has not taken the last answer: it is stuck itself */
                d->reply[q] = atomic_load(&mc->wd_state);
                MPI_Isend(&d->reply[q], 1, MPI_UNSIGNED_LONG_LONG, q,
                          MC_TAG_ANSWER + (int)d->ask, mc->wd, &d->replyr[q]);
            }
        }
        if (MPI_Irecv(&d->ask, 1, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE, MC_TAG_ASK, mc->wd,
                      &d->askr) != MPI_SUCCESS)
            d->askr = MPI_REQUEST_NULL;
    }
}

/* This rank's main thread has been in native call `state` (state >> 1) since entered_s,
 * past the deadline. Ask every other rank where it is; false when the call ended meanwhile (no
 * verdict), else the verdict is in mc->wd_err and *first is the first rank named (-1). */
static bool mc_wd_roll_call(struct mc_wd *d, unsigned long long state, double entered_s,
                            int *first, bool *zero_ok)
{
    struct mpi_comm *mc = d->mc;
    int W = mc->pub.nranks, me = mc->me;
    /* The question is the round's number, and the answer comes with the tag of that round:
     * an answer that came after its round's grace (the receive was cancelled) is left
     * unread, not taken for this round's. Static: outlives any send left behind. */
    static const unsigned long long questions[MC_WD_ROUNDS] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                               8, 9, 10, 11, 12, 13, 14, 15};
    int round = (int)(d->round++ % MC_WD_ROUNDS);
    double waited = now_s() - entered_s;
    const char *what = atomic_load(&mc->wd_what);
    unsigned long long *ans = xcalloc((size_t)W, sizeof *ans);
    MPI_Request *ar = xcalloc((size_t)W, sizeof *ar), *sr = xcalloc((size_t)W, sizeof *sr);
    for (int q = 0; q < W; q++) {
        ar[q] = sr[q] = MPI_REQUEST_NULL;
        if (q == me) continue;
        MPI_Irecv(&ans[q], 1, MPI_UNSIGNED_LONG_LONG, q, MC_TAG_ANSWER + round, mc->wd, &ar[q]);
        MPI_Isend(&questions[round], 1, MPI_UNSIGNED_LONG_LONG, q, MC_TAG_ASK, mc->wd, &sr[q]);
    }
    mc_await(ar, W, now_s() + mc_grace(atomic_load(&mc->wd_deadline_s)), d);
    char noans[120] = "", behind[120] = "", all[160] = "";
    int nno = 0, nbehind = 0, nall = 0;
    unsigned long long mine = state >> 1, stuck = mine;
    /* The call the job is stuck in is the earliest one a rank is inside: a rank that left
     * an earlier call (a broadcast's root) and waits in the next is not the one to judge;
     * the ranks inside the earlier call passed their deadline first and judge it. */
    for (int q = 0; q < W; q++)
        if (q != me && ar[q] == MPI_REQUEST_NULL && (ans[q] & 1) && (ans[q] >> 1) < stuck)
            stuck = ans[q] >> 1;
    *first = -1;
    *zero_ok = false;
    for (int q = 0; q < W; q++) {
        if (q == me) continue;
        int wr = mc_world_rank(mc, q);
        if (wr == 0) *zero_ok = ar[q] == MPI_REQUEST_NULL && (ans[q] >> 1) >= mine;
        if (ar[q] != MPI_REQUEST_NULL) {
            mc_rank_list(noans, sizeof noans, &nno, wr);
            mc_rank_list(all, sizeof all, &nall, wr);
            if (*first < 0) *first = wr;
            MPI_Cancel(&ar[q]);
            MPI_Request_free(&ar[q]);
        } else if ((ans[q] >> 1) < mine) { /* it has not begun the call the others are in */
            mc_rank_list(behind, sizeof behind, &nbehind, wr);
            mc_rank_list(all, sizeof all, &nall, wr);
            if (*first < 0) *first = wr;
        }
        if (sr[q] != MPI_REQUEST_NULL) MPI_Request_free(&sr[q]);
    }
    if (nno == 0) free(ans); /* else a cancel that came too late may still write it */
    free(ar);
    free(sr);
    /* The call ended while the others answered (whoever was late joined it), or the job is
     * stuck in an earlier call than this rank's. */
    if (atomic_load(&mc->wd_state) != state || stuck < mine) return false;
    if (nall == 0 && d->all_in != state) {
        d->all_in = state;
        return false;
    }
    if (nall == 0)
        snprintf(mc->wd_err, sizeof mc->wd_err,
                 "%s: no progress for %.0f s, yet every rank is in it and answers (MPI itself "
                 "is stuck; no rank to name)",
                 what, waited);
    else if (nno == 0)
        snprintf(mc->wd_err, sizeof mc->wd_err,
                 "rank%s %s stalled: did not join %s for %.0f s (the others wait in it)",
                 nall > 1 ? "s" : "", all, what, waited);
    else if (nbehind == 0)
        snprintf(mc->wd_err, sizeof mc->wd_err, "rank%s %s stalled: no answer for %.0f s (%s)",
                 nall > 1 ? "s" : "", all, waited, what);
    else
        snprintf(mc->wd_err, sizeof mc->wd_err,
                 "ranks %.60s stalled: %.50s did not join %s, %.50s gave no answer, for %.0f s",
                 all, behind, what, noans, waited);
    return true;
}

/* The verdict is given and the main thread is stuck in MPI: end the job. */
static void mc_wd_end_job(struct mc_wd *d, int first, bool zero_ok)
{
    struct mpi_comm *mc = d->mc;
    atomic_store(&mc->wd_fired, true); /* the main thread reads wd_err only after this */
    launcher_set_broken(first, mc->wd_err);
    fprintf(stderr, "collviz: %s\n", mc->wd_err);
    fflush(stderr);
    int wme = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &wme);
    /* Rank 0 says it to the UI when one listens (serve ends the job itself within `watched`
     * seconds); the others leave rank 0 a while to do so when it answered and is not the one
     * named: its word reaches the UI straight, not through the job's output. */
    double wait_s = wme == 0 ? launcher_watched() : zero_ok ? MC_WD_BACKUP_S : 0;
    if (wait_s > 0) {
        wait_s += wme == 0 ? 2.0 : 0;
        for (double t0 = now_s(); now_s() - t0 < wait_s;) {
            mc_wd_answer(d);
            mc_nap_s(MC_WD_POLL_S);
        }
    }
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

/* Without MPI_THREAD_MULTIPLE (no mc->wd) the watchdog may not call MPI while the main
 * thread is inside it: it cannot ask who stalled, only see that its own process has been in
 * one call past the deadline and a grace. It says so and ends this process (mpirun then ends
 * the job), rather than let the job wait for ever. Rank 0 under serve leaves serve its
 * `watched` seconds to tell the UI first. */
static void *mc_wd_lone(void *arg)
{
    struct mpi_comm *mc = arg;
    while (!atomic_load(&mc->wd_stop)) {
        unsigned long long st = atomic_load(&mc->wd_state);
        double tmo = atomic_load(&mc->wd_deadline_s);
        double waited = now_s() - atomic_load(&mc->wd_entered_s);
        if ((st & 1) && tmo > 0 && waited > tmo + mc_grace(tmo)) {
            snprintf(mc->wd_err, sizeof mc->wd_err,
                     "%s: no progress for %.0f s; which rank stalled cannot be asked (the MPI "
                     "library does not provide MPI_THREAD_MULTIPLE)",
                     atomic_load(&mc->wd_what), waited);
            atomic_store(&mc->wd_fired, true);
            launcher_set_broken(-1, mc->wd_err);
            fprintf(stderr, "collviz: %s\n", mc->wd_err);
            double wait_s = mc->world_me == 0 ? launcher_watched() : 0;
            if (wait_s > 0) mc_nap_s(wait_s + 2.0);
            fflush(NULL);
            _exit(1);
        }
        mc_nap_s(MC_WD_POLL_S);
    }
    return NULL;
}

static void *mc_wd_main(void *arg)
{
    struct mpi_comm *mc = arg;
    int W = mc->pub.nranks;
    struct mc_wd d = {.mc = mc, .askr = MPI_REQUEST_NULL};
    d.reply = xcalloc((size_t)W, sizeof *d.reply);
    d.replyr = xcalloc((size_t)W, sizeof *d.replyr);
    for (int q = 0; q < W; q++)
        d.replyr[q] = MPI_REQUEST_NULL;
    if (MPI_Irecv(&d.ask, 1, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE, MC_TAG_ASK, mc->wd,
                  &d.askr) != MPI_SUCCESS)
        d.askr = MPI_REQUEST_NULL;
    unsigned long long judged = 0; /* the call last asked about */
    double next_ask = 0;           /* and when it may be asked about again */
    while (!atomic_load(&mc->wd_stop)) {
        mc_wd_answer(&d);
        unsigned long long st = atomic_load(&mc->wd_state);
        double tmo = atomic_load(&mc->wd_deadline_s), now = now_s();
        if ((st & 1) && tmo > 0 && now - atomic_load(&mc->wd_entered_s) > tmo &&
            (st != judged || now >= next_ask)) {
            judged = st;
            next_ask = now + tmo;
            int first = -1;
            bool zero_ok = false;
            if (mc_wd_roll_call(&d, st, atomic_load(&mc->wd_entered_s), &first, &zero_ok))
                mc_wd_end_job(&d, first, zero_ok);
        }
        mc_nap_s(MC_WD_POLL_S);
    }
    if (d.askr != MPI_REQUEST_NULL) {
        MPI_Cancel(&d.askr);
        MPI_Wait(&d.askr, MPI_STATUS_IGNORE);
    }
    bool left = false;
    for (int q = 0; q < W; q++) {
        if (d.replyr[q] == MPI_REQUEST_NULL) continue;
        int done = 0;
        MPI_Test(&d.replyr[q], &done, MPI_STATUS_IGNORE);
        if (!done) {
            MPI_Request_free(&d.replyr[q]);
            left = true;
        }
    }
    if (!left) free(d.reply); /* else an answer may still be read from it */
    free(d.replyr);
    return NULL;
}

/* Start the watchdog (main thread; once per communicator): mc_wd_main, or mc_wd_lone
 * without MPI_THREAD_MULTIPLE. */
void mc_wd_start(struct mpi_comm *mc)
{
    if (mc->wd_on || mc->pub.nranks < 2) return;
    if (pthread_create(&mc->wd_thread, NULL, mc->wd == MPI_COMM_NULL ? mc_wd_lone : mc_wd_main,
                       mc) != 0)
        return;
    pthread_setname_np(mc->wd_thread, "collviz-mpi-wd");
    mc->wd_on = true;
}

void mc_wd_stop(struct mpi_comm *mc)
{
    if (!mc->wd_on) return;
    atomic_store(&mc->wd_stop, true);
    pthread_join(mc->wd_thread, NULL);
    mc->wd_on = false;
}

/* The main thread enters native call `what` / has left it. */
void mc_wd_enter(struct mpi_comm *mc, const char *what)
{
    double tmo = mc_timeout(mc);
    atomic_store(&mc->wd_what, what);
    atomic_store(&mc->wd_deadline_s, tmo > 0 ? tmo : 0);
    atomic_store(&mc->wd_entered_s, now_s());
    unsigned long long st = atomic_load(&mc->wd_state);
    atomic_store(&mc->wd_state, ((st >> 1) + 1) << 1 | 1);
}

/* Left it: CV_OK, or the watchdog's verdict when it gave one (the job is ending). */
int mc_wd_leave(struct mpi_comm *mc)
{
    atomic_fetch_and(&mc->wd_state, ~1ULL);
    if (!atomic_load(&mc->wd_fired)) return CV_OK;
    snprintf(mc->err, sizeof mc->err, "%s", mc->wd_err);
    mc->aborted = true;
    return CV_ETIMEOUT;
}
