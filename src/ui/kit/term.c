/* term.c - the signals, curses start and end, flags, fatal hook and way out the
 * full-screen entry points share (see term.h). */
#include "term.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>
#include "../../backend/nccl/nccl_links.h"
#include "../../core/util.h"

volatile sig_atomic_t term_signal;
bool term_curses_on;

void term_on_signal(int sig)
{
    term_signal = sig;
}

void term_fatal_hook(void)
{
    if (term_curses_on) {
        endwin();
        term_curses_on = false;
    }
}

void term_block_signals(sigset_t *block, sigset_t *waitmask)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH};
    sigemptyset(block);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(block, sigs[i]);
    pthread_sigmask(SIG_BLOCK, block, waitmask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigdelset(waitmask, sigs[i]);
}

void term_catch_signals(void)
{
    struct sigaction sa = {.sa_handler = term_on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static char nccl_log_path[600]; /* the user's NCCL log, sent off the screen; "" none */

void term_nccl_log_off_screen(void)
{
    /* (without a directory the log stays on stdout, as NCCL would have it) */
    if (!nccl_log_path[0]) nccl_links_user_log_to_file(nccl_log_path, sizeof nccl_log_path);
}

/* The user's NCCL log, once the screen is gone: named if NCCL wrote it, else its directory
 * goes. */
static void term_nccl_log_say(void)
{
    if (!nccl_log_path[0]) return;
    struct stat st;
    if (stat(nccl_log_path, &st) == 0) {
        cv_eprintf("collviz: NCCL's log (your NCCL_DEBUG=%s) is in %s\n", getenv("NCCL_DEBUG"),
                   nccl_log_path);
    } else {
        *strrchr(nccl_log_path, '/') = '\0';
        rmdir(nccl_log_path);
    }
    nccl_log_path[0] = '\0';
}

bool term_have_tty(const char *who)
{
    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) return true;
    /* Without a terminal the screen cannot be drawn nor keys read (and a loop on a closed
     * input would spin): say so instead. */
    cv_eprintf("collviz: %s needs a terminal on stdin and stdout (collviz trace, bench, train "
               "and lesson show|list work without one)\n",
               who);
    return false;
}

SCREEN *term_start(void)
{
    util_set_fatal_hook(term_fatal_hook);
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) return NULL;
    set_term(scr);
    term_curses_on = true;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(50);
    curs_set(0);
    return scr;
}

void term_end(SCREEN *scr)
{
    endwin();
    if (scr) delscreen(scr);
    term_curses_on = false;
    util_set_fatal_hook(NULL);
    term_nccl_log_say();
}

/* Terminal restored: die of the signal as the shell expects. */
static void term_raise(int sig, const sigset_t *block)
{
    signal(sig, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, block, NULL);
    raise(sig);
}

int term_exit(const sigset_t *block)
{
    int sig = term_signal;
    if (sig) {
        term_raise(sig, block);
        return 128 + sig;
    }
    pthread_sigmask(SIG_UNBLOCK, block, NULL);
    return 0;
}

_Noreturn void term_exit_now(const sigset_t *block)
{
    fflush(NULL);
    int sig = term_signal;
    if (sig) term_raise(sig, block);
    _exit(0);
}
