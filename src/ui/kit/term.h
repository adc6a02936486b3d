/* term.h - what every full-screen entry point (the visualizer, the presenter, the speaker
 * notes) needs around curses: the signals it blocks and catches (a handler that only
 * records the signal), curses started and ended in the same modes, whether curses mode is
 * on, the fatal hook (util_set_fatal_hook) that ends curses mode first so the message is
 * readable, and the way out that dies of a caught signal once the terminal is restored.
 * One process runs one entry point, so one set of flags serves all. */
#ifndef COLLVIZ_UI_KIT_TERM_H
#define COLLVIZ_UI_KIT_TERM_H

#include <curses.h>
#include <signal.h>
#include <stdbool.h>

extern volatile sig_atomic_t term_signal; /* the last signal received, 0 = none */
extern bool term_curses_on;               /* set by term_start / term_end */

/* The handler for the signals that end a screen (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
 * SIGUSR2, SIGPIPE, SIGALRM): records the signal, nothing else. */
void term_on_signal(int sig);
/* For util_set_fatal_hook: endwin() if curses mode is on. */
void term_fatal_hook(void);

/* Blocks the signals that end a screen (term_on_signal's) and SIGWINCH in the calling
 * thread (threads started after inherit it) and sets *block to them and *waitmask to the
 * mask ppoll waits with (the previous mask less them). */
void term_block_signals(sigset_t *block, sigset_t *waitmask);
/* Installs term_on_signal for every signal that ends a screen. */
void term_catch_signals(void);
/* A function term_end calls once the screen is gone, to say on stderr what could not be
 * said under it (backend_logs_off_screen_end: where a library's log went); NULL: none. */
void term_at_end(void (*fn)(void));
/* True when stdin and stdout are terminals; else says on stderr that `who` ("the
 * interactive program", "collviz notes") needs one, and returns false (the caller exits 2). */
bool term_have_tty(const char *who);
/* Installs the fatal hook and starts curses on stdout/stdin: cbreak, no echo, no newline
 * translation, keypad, non-blocking reads, a 50 ms Esc delay, no cursor, no typeahead
 * check (an update is never cut short); then asks the terminal once whether it has
 * synchronized output (DECRQM for mode 2026, then DA1, whose answer ends the wait; at
 * most 0.3 s where nothing answers) and drops the keys typed meanwhile. NULL when the
 * terminal cannot be driven (the fatal hook stays installed; term_end(NULL) removes it). */
SCREEN *term_start(void);
/* The next key, as getch() gives it, with the terminal's answers to term_start's questions
 * left out: an answer that comes after the wait (a slow link, a loaded machine) reaches
 * curses as keys, "ESC [ ? 6 2 ; 2 2 c", whose ? opened the help and whose digits chose
 * collectives. ERR when no key is waiting. Use instead of getch(). */
int term_getch(void);
/* The length of the terminal's answer at the start of the n characters s (as getch gives
 * them): DA1's "CSI ? Ps ; ... c" or DECRPM's "CSI ? Ps ; Ps $ y"; 0 when s does not start
 * one, -1 when s is the start of one, cut short. */
int term_reply_len(const int *s, int n);
/* Whether the terminal answered that it has synchronized output (mode 2026 set or reset). */
bool term_has_sync(void);
/* True when s holds a DECRQM reply for mode 2026 that says the terminal has it: "CSI ? 2026
 * ; Ps $ y" with Ps 1 (set) or 2 (reset). */
bool term_sync_reply(const char *s);
/* doupdate() with the frame reaching the terminal in one write(), between CSI ? 2026 h and
 * CSI ? 2026 l where term_has_sync (nothing is written when nothing changed). Where a
 * resize is waiting to be seen by curses, or no memory file could be made, curses writes
 * the frame itself. Use instead of doupdate(); term_refresh() instead of refresh(). */
void term_update(void);
void term_refresh(void);
/* s is a screen nobody sees (svg_offscreen_open's): while it is the current one,
 * term_update and term_refresh send nothing (what is drawn stays in stdscr, where it is read
 * back). Returns the screen set before, to be set again after (NULL: none). */
SCREEN *term_set_unseen(SCREEN *s);
/* Ends curses mode (and frees scr when not NULL), removes the fatal hook, then calls the
 * function of term_at_end. */
void term_end(SCREEN *scr);
/* After term_end: with a signal caught, die of it as the shell expects (status 128+sig;
 * 128+sig is returned only where raising it did not end the process); else unblock the
 * signals of term_block_signals and return 0. */
int term_exit(const sigset_t *block);
/* As term_exit, for when a thread that cannot be joined is still running: flush stdio and
 * end the process without atexit handlers (status 0 where no signal was caught). */
_Noreturn void term_exit_now(const sigset_t *block);

#endif
