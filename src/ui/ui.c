/* ui.c - the interactive program: the terminal's lifetime and the event loop (its options
 * are read by cli/visualizer.c into struct ui_opts).
 *
 * Only this thread calls curses. It sleeps in ppoll() on the keyboard and the worker's wake
 * pipe, with a timeout only while something is timed (play, a running measurement's clock),
 * so an idle screen costs no CPU. Signal handlers only set a flag. SIGINT, SIGTERM, SIGHUP
 * and SIGWINCH are blocked everywhere except inside that ppoll (which unblocks them
 * atomically), so a signal can never slip in between checking the flag and going to sleep;
 * the worker and the backend's rank threads inherit the blocked mask. The loop then
 * restores the terminal and lets the signal take its usual effect. SIGWINCH runs ncurses'
 * own handler and arrives as KEY_RESIZE. */
#include "ui/ui.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <time.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "worker/launch.h"
#include "worker/serve.h"
#include "core/util.h"
#include "records/recfile.h"
#include "records/recsay.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "ui/screens/lesson/lesson_ui.h"
#include "ui/screens/screens.h"
#include "ui/screens/topology/topology.h"
#include "ui/screens/topology/topotext.h"
#include "ui/kit/term.h"

/* The job the UI started (--mpi), ended with the UI. */
static struct launch *ui_launch;
#define UI_CONNECT_TIMEOUT_S 10.0
#define UI_LAUNCH_TIMEOUT_S 120.0
/* The backend of the job --mpi starts, unless --backend says: the one whose ranks are a
 * launcher's processes (MPI's; built or not: a build without it says so), else the CPU
 * ranks. */
static const char *ui_job_backend(void)
{
    for (int k = 0; k < BACKEND_KIND_COUNT; k++)
        if (backend_kind_caps((enum backend_kind)k) & BACKEND_CAP_PROCESSES)
            return backend_kind_name((enum backend_kind)k);
    return "cpu";
}

/* --mpi / --connect: the worker talks to a job (worker/serve.h). Fails with one line and
 * status 2: the user asked for that job, so no silent local fallback at start. */
static int ui_open_remote(struct app *a, const struct ui_opts *o)
{
    char err[300];
    int fd;
    int rc;
    bool tcp = false;
    if (o->mpi)
        rc = launch_start(o->mpi, o->backend_set ? o->backend : ui_job_backend(),
                          UI_LAUNCH_TIMEOUT_S, &ui_launch, &fd, err, sizeof err);
    else
        rc = serve_dial(o->connect, &fd, &tcp, err, sizeof err);
    if (rc == CV_OK && tcp && !o->token) {
        close(fd);
        snprintf(err, sizeof err, "--connect %s: a TCP job needs --token (serve printed it)",
                 o->connect);
        rc = CV_EINVAL;
    }
    struct worker *w = NULL;
    if (rc == CV_OK) {
        w = worker_connect(fd, o->token, UI_CONNECT_TIMEOUT_S, err, sizeof err);
        if (!w) rc = CV_EUNAVAIL;
    }
    if (rc != CV_OK) {
        cv_eprintf("collviz: %s\n", err);
        launch_stop(ui_launch, 0);
        ui_launch = NULL;
        return 2;
    }
    app_use_worker(a, w, worker_facts(w)->name, "");
    return -1;
}

/* Open the backend and start the worker (or reach the job), with the UI's signals blocked
 * so every thread created here inherits a mask that leaves them to the main thread. */
static int ui_open_backend(struct app *a, const struct ui_opts *o)
{
    if (o->mpi || o->connect) return ui_open_remote(a, o);
    backend_logs_off_screen();
    term_at_end(backend_logs_off_screen_end);
    char err[200];
    if (app_open_backend(a, o->backend, true, err, sizeof err) != CV_OK) {
        const char *reason = err;
        if (strncmp(reason, "nccl: ", 6) == 0) reason += 6;
        if (strncmp(reason, "unavailable - ", 14) == 0) reason += 14;
        cv_eprintf("collviz: --backend nccl: unavailable - %s\n", reason);
        return 2;
    }
    return -1;
}

static bool ui_start_curses(struct app *a, bool want_color)
{
    if (!term_start()) return false;
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED, NULL);
    mouseinterval(0);
    theme_init(&a->th, want_color);
    a->color = a->th.color;
    return true;
}

/* The help's pages: PgDn, → or Space the next, PgUp or ← the previous (the overlay takes
 * no other action while open). */
static bool ui_help_page_key(struct app *a, int ch)
{
    if (ch == KEY_NPAGE || ch == KEY_RIGHT || ch == ' ') {
        if (a->help_page + 1 < a->help_npages) a->help_page++;
        return true;
    }
    if (ch == KEY_PPAGE || ch == KEY_LEFT) {
        if (a->help_page > 0) a->help_page--;
        return true;
    }
    return false;
}

static void ui_handle_key(struct app *a, int ch, bool *quit)
{
    if (ch == KEY_RESIZE) {
        clearok(stdscr, TRUE);
        return;
    }
    enum ui_action act;
    if (ch == KEY_MOUSE) {
        MEVENT ev;
        if (getmouse(&ev) != OK || a->nbar == 0 || ev.y != a->bar_at.y) return;
        act = keys_bar_hit(a->bar, a->nbar, ev.x - a->bar_at.x);
    } else {
        if (a->help && !a->hw_open && ui_help_page_key(a, ch)) return;
        if (a->frame && a->frame->key && !a->help && !a->hw_open && a->frame->key(a, ch))
            return;
        act = app_key_action(a, ch);
    }
    if (act == ACT_NONE) return;
    a->msg[0] = '\0';
    if ((a->help || a->hw_open) && act != ACT_HELP && act != ACT_BACKENDS && act != ACT_CLOSE &&
        act != ACT_QUIT)
        return; /* an overlay takes no other actions: Esc, ? or b closes it */
    if (!app_do(a, act, now_s())) *quit = true;
}

/* Stop the worker after the terminal is restored. The CPU ranks notice a cancel within a
 * step, but NCCL only between iterations, and one iteration at GiB sizes can take
 * seconds; quitting must not wait for that. Returns false when the worker was still busy
 * after UI_STOP_WAIT_S: the caller then ends the process without joining it. */
#define UI_STOP_WAIT_S 3.0
static bool ui_stop_worker(struct app *a)
{
    if (a->w && worker_remote(a->w)) {
        worker_shutdown_job(a->w); /* q ends the whole job */
        worker_stop(a->w);
        a->w = NULL;
    }
    if (ui_launch) {
        launch_stop(ui_launch, UI_STOP_WAIT_S);
        ui_launch = NULL;
    }
    return app_stop_worker(a, UI_STOP_WAIT_S);
}

/* The job behind a remote worker is gone (a rank died or stalled, the connection broke):
 * say which rank where the launcher's words tell, end what is left of the job, and go on
 * with CPU ranks in this process. */
static bool ui_job_lost(struct app *a)
{
    char why[240];
    if (!worker_remote(a->w) || !worker_lost(a->w, why, sizeof why)) return false;
    app_cancel(a);
    worker_stop(a->w);
    a->w = NULL;
    char said[300] = "";
    if (ui_launch) launch_wait(ui_launch, UI_STOP_WAIT_S); /* its last words name the rank */
    bool stalled = false;
    int rank = ui_launch ? launch_blame(ui_launch, said, sizeof said, &stalled) : -1;
    launch_stop(ui_launch, 0);
    ui_launch = NULL;
    char lost[240], note[480];
    /* The job said which rank itself ("rank 2 stalled: ...", "rank 2 lost"); a rank 0
     * that stalled cannot, and its message names none: then the others' words in the
     * job's output do. */
    bool named =
        launch_rank_named(why, " stalled") >= 0 || launch_rank_named(why, " lost") >= 0;
    if (named)
        snprintf(lost, sizeof lost, "%s", why);
    else if (rank >= 0 && stalled) /* "collviz: mpi rank 1: rank 0 stalled: no answer ..." */
        snprintf(lost, sizeof lost, "rank %d stalled", rank);
    else if (rank >= 0) /* the launcher's words (mpirun: "process rank 2 ... exited") */
        snprintf(lost, sizeof lost, "rank %d lost", rank);
    else
        snprintf(lost, sizeof lost, "job lost (%.200s)", why);
    snprintf(note, sizeof note, "%s%s%.200s", lost, rank >= 0 && !named ? " - " : "",
             rank >= 0 && !named ? said : "");
    char err[200];
    struct backend *b = NULL;
    struct worker *w = NULL;
    if (backend_open("cpu", &b, err, sizeof err, NULL, 0) == CV_OK) {
        w = worker_start(b, err, sizeof err);
        if (!w) backend_close(b);
    }
    if (w) {
        app_use_worker(a, w, "cpu", "");
        snprintf(a->msg, sizeof a->msg, "%.120s: the job is over; on local CPU ranks now",
                 lost);
    } else {
        a->max_ranks = 0;
        a->backend_name[0] = '\0';
        snprintf(a->msg, sizeof a->msg, "%.120s: the job is over (no local backend)", lost);
    }
    snprintf(a->backend_note, sizeof a->backend_note, "%.239s", note);
    app_backend_text(a);
    return true;
}

static void ui_loop(struct app *a, const sigset_t *waitmask)
{
    bool quit = false, dirty = true;
    while (!quit && !term_signal) {
        if (dirty) {
            frame_draw(a);
            dirty = false;
        }
        int timeout = app_timeout_ms(a, now_s());
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                                {.fd = a->w ? worker_fd(a->w) : -1, .events = POLLIN}};
        struct timespec ts = {timeout / 1000, (long)(timeout % 1000) * 1000000L};
        int rc = ppoll(fds, a->w ? 2 : 1, timeout >= 0 ? &ts : NULL, waitmask);
        if (rc < 0 && errno != EINTR) break;
        if (term_signal) break;
        if (rc < 0 || (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            int ch;
            while (!quit && (ch = term_getch()) != ERR) {
                ui_handle_key(a, ch, &quit);
                dirty = true;
            }
            /* The terminal went away (a closed pty reports POLLIN too, with reads of 0
             * bytes). Break now: ppoll would return at once for ever, and a signal
             * unblocked only inside a ppoll that returns ready is never delivered. */
            if (fds[0].revents & (POLLHUP | POLLERR)) break;
        }
        if (a->w) {
            struct result r;
            while (worker_poll(a->w, &r)) {
                if (app_result(a, &r)) dirty = true;
                result_free(&r);
            }
            if (ui_job_lost(a)) dirty = true;
        }
        if (app_tick(a, now_s())) dirty = true;
        if (rc == 0) dirty = true; /* a timed refresh: the running job's clock */
    }
}

/* Everything after the options: the backend, the terminal, the first scene (or the frame's
 * start), the loop, and putting the terminal back. start = NULL: a frame (a->frame) is set
 * and starts itself (its apply). Frees a. */
static int ui_run(struct app *a, const struct ui_opts *o, const struct scene *start)
{
    int rc;
    a->auto_measure = !o->no_measure;
    const char *nc = getenv("NO_COLOR");
    bool want_color = !o->no_color && !(nc && nc[0]);
    a->utf8 = !o->ascii && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    a->g = glyphs_get(a->utf8);

    /* Blocked from here on (threads started below inherit it); waitmask is what ppoll
     * waits with. */
    sigset_t block, waitmask;
    term_block_signals(&block, &waitmask);
    hw_probe_machine(&a->hw);
    rc = ui_open_backend(a, o);
    if (rc >= 0) {
        pthread_sigmask(SIG_UNBLOCK, &block, NULL);
        app_free(a);
        free(a);
        return rc;
    }

    if (!term_have_tty("the interactive program")) {
        ui_stop_worker(a);
        pthread_sigmask(SIG_UNBLOCK, &block, NULL);
        app_free(a);
        free(a);
        return 2;
    }
    if (!ui_start_curses(a, want_color)) {
        cv_eprintf("collviz: cannot start the terminal UI (TERM=%s)\n",
                   getenv("TERM") ? getenv("TERM") : "unset");
        ui_stop_worker(a);
        pthread_sigmask(SIG_UNBLOCK, &block, NULL);
        app_free(a);
        free(a);
        return 1;
    }
    term_catch_signals();

    /* The options' scene goes through the same door as every later change. */
    char err[240];
    if (start && app_set_scene(a, start, err, sizeof err) != CV_OK) {
        term_end(NULL);
        cv_eprintf("collviz: %s\n", err);
        ui_stop_worker(a);
        pthread_sigmask(SIG_UNBLOCK, &block, NULL);
        app_free(a);
        free(a);
        return 2;
    }
    if (!start && a->frame && a->frame->apply) a->frame->apply(a, SF_ALL);
    ui_loop(a, &waitmask);

    term_end(NULL);
    /* A collective still running in the worker: end the process without joining it (and
     * without atexit handlers racing with it). The terminal is already back. */
    if (!ui_stop_worker(a)) term_exit_now(&block);
    app_free(a);
    free(a);
    return term_exit(&block);
}

/* --nccl-log: the files read into one record; 2 with one line naming the bad file when one
 * cannot be read or holds nothing NCCL wrote (*out NULL), else -1 and the record. */
static int ui_read_log_files(const struct ui_opts *o, struct rec_log **out)
{
    struct rec_log *L = rec_new();
    *out = NULL;
    for (int i = 0; i < o->nlogs; i++) {
        char err[200];
        int before = L->nerrors;
        int n = rec_read_file(L, o->logs[i], err, sizeof err);
        if (n <= 0) {
            cv_eprintf("collviz: --nccl-log %s: %s\n", o->logs[i],
                       n < 0                 ? err
                       : L->nerrors > before ? L->errors[before]
                                             : "no NCCL INFO or nccl-tests lines in it");
            rec_free(L);
            return 2;
        }
    }
    if (L->too_large[0]) {
        fprintf(stderr, "collviz: --nccl-log: %s\n", L->too_large);
        rec_free(L);
        return 2;
    }
    rec_finish(L);
    int rows = 0; /* nccl-tests' rows alone (no device lines): the screen shows the tests */
    for (int i = 0; i < L->ntests; i++)
        rows += L->tests[i].nrows;
    if (topo_nranks(L) == 0 && rows == 0) {
        cv_eprintf("collviz: --nccl-log %s: the record names no rank (no comm, ring, tree or "
                   "nccl-tests device lines) and holds no nccl-tests row\n",
                   o->logs[0]);
        rec_free(L);
        return 2;
    }
    *out = L;
    return -1;
}

/* --nccl-log: read the files before the terminal is taken and give the record to the
 * topology screen; 2 with one line naming the bad file, -1 on success. */
static int ui_read_logs(struct app *a, const struct ui_opts *o, struct scene *start)
{
    if (!o->nlogs) return -1;
    char why[1200];
    if (!rec_one_job(o->logs, o->nlogs, why, sizeof why)) {
        cv_eprintf("collviz: --nccl-log: %s\n", why);
        return 2;
    }
    struct rec_log *L;
    int rc = ui_read_log_files(o, &L);
    if (rc >= 0) return rc;
    char source[200];
    const char *base = strrchr(o->logs[0], '/');
    if (o->nlogs > 1)
        snprintf(source, sizeof source, "%.120s and %d more", base ? base + 1 : o->logs[0],
                 o->nlogs - 1);
    else
        snprintf(source, sizeof source, "%.120s", base ? base + 1 : o->logs[0]);
    for (char *c = source; *c; c++) /* a file name is shown: printable ASCII only */
        if (*c < 0x20 || *c > 0x7e) *c = '?';
    topo_adopt_record(a, L, source);
    start->screen = SCREEN_TOPOLOGY;
    start->step = 0;
    start->ring_n = 0;
    return -1;
}

int ui_start(const struct ui_opts *o, struct scene *start)
{
    setlocale(LC_ALL, "");
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    int rc = ui_read_logs(a, o, start);
    if (rc >= 0) {
        app_free(a);
        free(a);
        return rc;
    }
    if (!screen_ops_of(start->screen)) {
        cv_eprintf("collviz: screen %s is not in this build\n",
                   screen_kind_name(start->screen));
        app_free(a);
        free(a);
        return 2;
    }
    return ui_run(a, o, start);
}

int ui_lesson_start(const struct ui_opts *o, const char *target)
{
    setlocale(LC_ALL, "");
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    char err[600];
    if (lesson_ui_open(a, target, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz lesson: %s\n", err);
        app_free(a);
        free(a);
        return 2;
    }
    return ui_run(a, o, NULL);
}
