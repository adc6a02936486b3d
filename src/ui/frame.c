/* frame.c - the whole terminal: the current scene's screen in the terminal's rect, then
 * the help or hardware overlay on top (see frame.h). */
#include "ui/frame.h"

#include <curses.h>

#include "ui/app.h"
#include "ui/kit/draw.h"
#include "ui/kit/term.h"
#include "ui/overlays/overlays.h"
#include "ui/screens/screens.h"

void frame_bar(struct app *a, struct rect r, unsigned keys_on)
{
    if (a->embedded) return;
    a->bar_at = r;
    a->nbar = draw_key_bar(&a->th, a->utf8, r, keys_on, a->bar, APP_BAR_MAX);
}

void frame_draw(struct app *a)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    draw_begin(a->g, a->utf8);
    erase();
    struct rect all = {0, 0, rows, cols};
    a->nbar = 0;
    if (a->frame)
        a->frame->draw(a, all);
    else
        app_screen(a)->draw(a, all);
    if (rows >= LAYOUT_MIN_ROWS && cols >= LAYOUT_MIN_COLS) {
        if (a->help) overlay_help(a, all);
        if (a->hw_open) overlay_hw(a, all);
    }
    term_refresh(); /* one write per frame */
}
