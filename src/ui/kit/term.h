/* term.h - what every full-screen entry point (the visualizer, the presenter, the speaker
 * notes) needs around curses: a signal handler that only records the signal, whether curses
 * mode is on, and the fatal hook (util_set_fatal_hook) that ends curses mode first so the
 * message is readable. One process runs one entry point, so one set of flags serves all. */
#ifndef COLLVIZ_UI_KIT_TERM_H
#define COLLVIZ_UI_KIT_TERM_H

#include <signal.h>
#include <stdbool.h>

extern volatile sig_atomic_t term_signal; /* the last signal received, 0 = none */
extern bool term_curses_on;               /* set by the entry point around initscr/endwin */

/* The handler for SIGINT, SIGTERM, SIGHUP: records the signal, nothing else. */
void term_on_signal(int sig);
/* For util_set_fatal_hook: endwin() if curses mode is on. */
void term_fatal_hook(void);

#endif
