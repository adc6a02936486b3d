/* term.c - the signal flag, curses flag and fatal hook the full-screen entry points share
 * (see term.h). */
#include "term.h"

#include <curses.h>

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
