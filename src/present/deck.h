/* deck.h - where the presenter is in a talk, and how the clicker moves it: pure functions
 * over (slide, step) with no curses and no lessons, so every key's effect is unit tested.
 *
 * A slide is pages of narration (present_layout.h: they come before the scene's steps; most
 * slides have one) and then its scene's steps, all shown on the last page. Forward (PageDown,
 * →, Space) walks the pages, then the scene steps up to its last, then enters the next slide at
 * its first page and the step its scene starts at; backward (PageUp, ←) walks the steps down
 * to 0, then the pages back to the first, then enters the previous slide at its last page and
 * step. Whole-slide moves (n, p, Home, End, g N Enter) enter a slide at its start. A slide
 * without a scene has 0 steps. */
#ifndef COLLVIZ_PRESENT_DECK_H
#define COLLVIZ_PRESENT_DECK_H

#include <stdbool.h>
#include <stddef.h>

#define DECK_STEP_START (-2) /* entering forward: the step the slide's scene gives */
#define DECK_STEP_END (-1)   /* entering backward: the scene's last step */
#define DECK_PAGE_END (-1)   /* entering backward: the slide's last page */

enum deck_move {
    DECK_NEXT,       /* next step, else next slide */
    DECK_PREV,       /* previous step, else previous slide at its end */
    DECK_NEXT_SLIDE, /* n */
    DECK_PREV_SLIDE, /* p */
    DECK_FIRST,      /* Home */
    DECK_LAST,       /* End */
    DECK_GOTO,       /* g N Enter: slide N (1-based) */
};

struct deck_pos {
    size_t slide; /* 0-based */
    long step;    /* 0..nsteps, or DECK_STEP_START / DECK_STEP_END when entering a slide */
    int page;     /* 0..npages-1, or DECK_PAGE_END when entering a slide backward */
};

/* The position after `m` from `cur` (whose step and page are resolved: 0..nsteps, nsteps the
 * current slide's scene steps; 0..npages-1, npages >= 1 its narration pages). goto_n is the
 * 1-based slide for DECK_GOTO. Returns false when the move goes nowhere (past either end, a
 * slide number out of range); *out is then cur. */
bool deck_move(struct deck_pos cur, long nsteps, int npages, size_t nslides, enum deck_move m,
               long goto_n, struct deck_pos *out);

/* Resolve an entering step against the slide's scene: START gives `start` (the scene's step,
 * itself SCENE_STEP_END = -1 meaning the last), END gives nsteps; clamps to 0..nsteps. */
long deck_resolve(long step, long start, long nsteps);

/* The "g N Enter" prompt: digits accumulate, Backspace removes one, Enter finishes, any
 * other key cancels. */
struct deck_goto {
    bool active;
    char digits[8];
};
enum deck_goto_result { DECK_GOTO_MORE, DECK_GOTO_DONE, DECK_GOTO_CANCEL };
/* Feed one key (ncurses code; '\n', '\r' and KEY_ENTER finish; 8, 127 and KEY_BACKSPACE
 * erase). On DONE, *n is the number typed (0 when none). */
enum deck_goto_result deck_goto_key(struct deck_goto *g, int ch, long *n);

#endif
