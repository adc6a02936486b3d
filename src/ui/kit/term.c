/* term.c - the signals, curses start and end, flags, fatal hook, frame output and way out
 * the full-screen entry points share (see term.h).
 *
 * One write per frame: curses writes to the terminal through a descriptor of its own (a
 * duplicate of stdout), and its doupdate() makes many small write()s (it flushes its buffer
 * at every few cursor moves). term_update points that descriptor at a memory file for the
 * length of doupdate(), then writes what it holds to the terminal with one write(), inside
 * synchronized output (DEC mode 2026) where the terminal said at start that it has it. */
#include "ui/kit/term.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/util.h"

volatile sig_atomic_t term_signal;
bool term_curses_on;

void term_on_signal(int sig)
{
    term_signal = sig;
}

/* The frame's way out (term_update). */
static int term_fd = -1;   /* curses' own descriptor: the terminal, or the memory file */
static int term_tty = -1;  /* the terminal, kept while term_fd points at the memory file */
static int term_mem = -1;  /* the memory file a frame is written into; -1: direct writes */
static FILE *term_fp;      /* term_fd as the FILE newterm takes */
static bool term_in_frame; /* term_fd points at term_mem */
static bool term_sync;     /* the terminal reported synchronized output */
static char *term_buf;
static size_t term_cap;

/* curses' descriptor back on the terminal (the frame being written is dropped). */
static void term_frame_off(void)
{
    if (term_in_frame) dup2(term_tty, term_fd);
    term_in_frame = false;
}

void term_fatal_hook(void)
{
    term_frame_off();
    if (term_curses_on) {
        endwin();
        term_curses_on = false;
    }
}

/* Every signal whose default action ends the program and that someone may send to a
 * screen (Ctrl-C, Ctrl-\, kill, a hangup, a closed pipe, a stray alarm or user signal):
 * each is caught, so the loop restores the terminal before the program dies of it. The
 * one list for every full-screen program (visualizer, lesson, --present, notes). */
static const int term_ending_sigs[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                       SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM};

void term_block_signals(sigset_t *block, sigset_t *waitmask)
{
    sigemptyset(block);
    for (size_t i = 0; i < ARRAY_LEN(term_ending_sigs); i++)
        sigaddset(block, term_ending_sigs[i]);
    sigaddset(block, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, block, waitmask);
    for (size_t i = 0; i < ARRAY_LEN(term_ending_sigs); i++)
        sigdelset(waitmask, term_ending_sigs[i]);
    sigdelset(waitmask, SIGWINCH);
}

void term_catch_signals(void)
{
    struct sigaction sa = {.sa_handler = term_on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < ARRAY_LEN(term_ending_sigs); i++)
        sigaction(term_ending_sigs[i], &sa, NULL);
}

/* What term_end calls once the screen is gone (term_at_end); NULL none. */
static void (*term_end_hook)(void);

void term_at_end(void (*fn)(void))
{
    term_end_hook = fn;
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

/* Writes all of buf to fd: one write() unless the terminal takes less (or a signal cuts
 * it short). */
static void term_write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, buf, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return;
        buf += k;
        n -= (size_t)k;
    }
}

/* Does the text hold a reply to DA1, "CSI ? Ps ; ... c"? */
static bool term_has_da1(const char *s)
{
    for (const char *r = strstr(s, "\033[?"); r; r = strstr(r + 1, "\033[?")) {
        const char *q = r + 3;
        while ((*q >= '0' && *q <= '9') || *q == ';')
            q++;
        if (*q == 'c' && q > r + 3) return true;
    }
    return false;
}

bool term_sync_reply(const char *s)
{
    const char *r = strstr(s, "\033[?2026;");
    return r && (r[8] == '1' || r[8] == '2') && r[9] == '$' && r[10] == 'y';
}

/* Asks the terminal (DECRQM) whether it has synchronized output, mode 2026, and asks for
 * its attributes (DA1) after it: every terminal answers DA1, so its answer ends the wait
 * also where the first question is not understood (tmux 3.3a answers only DA1). No answer
 * at all within TERM_ASK_S: no. */
#define TERM_ASK_S 0.3
static bool term_ask_sync(void)
{
    if (!isatty(STDIN_FILENO) || !isatty(term_tty)) return false;
    static const char q[] = "\033[?2026$p\033[c";
    term_write_all(term_tty, q, sizeof q - 1);
    char buf[256];
    size_t len = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    buf[0] = '\0';
    while (len + 1 < sizeof buf && !term_has_da1(buf)) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        double left = TERM_ASK_S - (double)(t.tv_sec - t0.tv_sec) -
                      (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
        struct pollfd fd = {.fd = STDIN_FILENO, .events = POLLIN};
        if (left <= 0 || poll(&fd, 1, (int)(left * 1000) + 1) <= 0) break;
        ssize_t k = read(STDIN_FILENO, buf + len, sizeof buf - 1 - len);
        if (k <= 0) break;
        len += (size_t)k;
        buf[len] = '\0';
    }
    return term_sync_reply(buf);
}

int term_reply_len(const int *s, int n)
{
    static const int head[] = {27, '[', '?'};
    for (int i = 0; i < 3; i++) {
        if (i >= n) return -1;
        if (s[i] != head[i]) return 0;
    }
    int i = 3;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == ';'))
        i++;
    if (i == n) return -1;
    if (i == 3) return 0; /* no parameter: not an answer */
    if (s[i] == 'c') return i + 1;
    if (s[i] != '$') return 0;
    if (i + 1 == n) return -1;
    return s[i + 1] == 'y' ? i + 2 : 0;
}

/* An answer longer than this is not one of the terminal's (and is given back as keys). */
#define TERM_REPLY_MAX 64

int term_getch(void)
{
    for (;;) {
        int s[TERM_REPLY_MAX], n = 0, r = 0;
        s[n++] = getch();
        if (s[0] != 27) return s[0];
        /* what follows an Esc arrives with it (curses waits ESCDELAY for the rest) */
        while ((r = term_reply_len(s, n)) < 0 && n < TERM_REPLY_MAX) {
            int c = getch();
            if (c == ERR) break;
            s[n++] = c;
        }
        if (r > 0) continue; /* the terminal's answer: not a key */
        while (n > 1)
            ungetch(s[--n]); /* the rest, for the next calls, in order */
        return 27;
    }
}

/* curses' output on a descriptor of its own, and the memory file for the frames. */
static FILE *term_open_out(void)
{
    term_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (term_fd < 0) return NULL;
    term_tty = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    term_fp = fdopen(term_fd, "w");
    if (!term_fp || term_tty < 0) {
        if (term_fp)
            fclose(term_fp);
        else
            close(term_fd);
        if (term_tty >= 0) close(term_tty);
        term_fd = term_tty = -1;
        term_fp = NULL;
        return NULL;
    }
    term_mem = memfd_create("collviz-frame", MFD_CLOEXEC); /* -1: frames written directly */
    return term_fp;
}

static void term_close_out(void)
{
    term_frame_off();
    if (term_fp) fclose(term_fp);
    if (term_tty >= 0) close(term_tty);
    if (term_mem >= 0) close(term_mem);
    term_fp = NULL;
    term_fd = term_tty = term_mem = -1;
    free(term_buf);
    term_buf = NULL;
    term_cap = 0;
}

SCREEN *term_start(void)
{
    util_set_fatal_hook(term_fatal_hook);
    FILE *out = term_open_out();
    SCREEN *scr = out ? newterm(NULL, out, stdin) : NULL;
    if (!scr) {
        term_close_out();
        return NULL;
    }
    set_term(scr);
    term_curses_on = true;
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(50);
    curs_set(0);
    /* A frame is written whole: curses stops an update half-way when a key is waiting
     * (typeahead), which showed mixed frames while keys were held or a clicker pressed. */
    typeahead(-1);
    term_sync = term_ask_sync();
    flushinp(); /* keys pressed while the terminal was asked, with its answers */
    return scr;
}

bool term_has_sync(void)
{
    return term_sync;
}

/* A resize not yet seen by curses: doupdate() would ask the size of its descriptor, which
 * must then be the terminal. */
static bool term_resized(void)
{
    struct winsize ws;
    if (ioctl(term_tty, TIOCGWINSZ, &ws) != 0) return false;
    return ws.ws_row != LINES || ws.ws_col != COLS;
}

/* The frame curses wrote into the memory file, bracketed where the terminal has
 * synchronized output, in term_buf; its length, or -1. */
static ssize_t term_frame_bytes(void)
{
    off_t n = lseek(term_mem, 0, SEEK_CUR);
    if (n <= 0) return n < 0 ? -1 : 0;
    static const char on[] = "\033[?2026h", off[] = "\033[?2026l";
    size_t need = (size_t)n + sizeof on + sizeof off;
    if (need > term_cap) {
        char *b = realloc(term_buf, need);
        if (!b) return -1;
        term_buf = b;
        term_cap = need;
    }
    size_t at = 0;
    if (term_sync) {
        memcpy(term_buf, on, sizeof on - 1);
        at = sizeof on - 1;
    }
    ssize_t k = pread(term_mem, term_buf + at, (size_t)n, 0);
    if (k != (ssize_t)n) return -1;
    at += (size_t)n;
    if (term_sync) {
        memcpy(term_buf + at, off, sizeof off - 1);
        at += sizeof off - 1;
    }
    return (ssize_t)at;
}

static SCREEN *term_unseen;

SCREEN *term_set_unseen(SCREEN *s)
{
    SCREEN *was = term_unseen;
    term_unseen = s;
    return was;
}

/* Is the current screen the one nobody sees? */
static bool term_on_unseen(void)
{
    if (!term_unseen) return false;
    SCREEN *cur = set_term(NULL);
    if (cur) set_term(cur);
    return cur == term_unseen;
}

void term_update(void)
{
    if (term_on_unseen()) return;
    if (term_mem < 0 || term_tty < 0 || term_resized() || ftruncate(term_mem, 0) != 0 ||
        lseek(term_mem, 0, SEEK_SET) != 0 || dup2(term_mem, term_fd) < 0) {
        doupdate(); /* as curses writes it */
        return;
    }
    term_in_frame = true;
    doupdate();
    term_frame_off();
    ssize_t n = term_frame_bytes();
    if (n > 0) term_write_all(term_tty, term_buf, (size_t)n);
}

void term_refresh(void)
{
    if (term_on_unseen()) return;
    wnoutrefresh(stdscr);
    term_update();
}

void term_end(SCREEN *scr)
{
    term_frame_off();
    endwin();
    if (scr) delscreen(scr);
    term_close_out();
    term_curses_on = false;
    term_sync = false;
    util_set_fatal_hook(NULL);
    if (term_end_hook) term_end_hook();
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
