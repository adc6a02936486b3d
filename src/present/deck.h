/* deck.h - where the presenter is in a talk, and how the clicker moves it: pure functions
 * over (slide, step) with no curses and no lessons, so every key's effect is unit tested.
 *
 * A slide is pages of narration (present_layout.h: where the narration does not fit beside
 * the scene, its text pages come before the scene's; most slides have one page) and then its
 * scene's steps, all shown on the last page. The scene has stops: the frames worth showing
 * to a room (the author's `stops:`, else the ends of the scene's phases: "after
 * reduce-scatter", "end"; deck_stops). The clicker's forward (PageDown, Space) walks the
 * stops, then enters the next slide on its entry page (DECK_PAGE_ENTRY: the scene's page,
 * with the narration's lead; a slide without a scene, its first page) at the step its scene
 * starts at, the step its narration describes: a slide costs one press and one for each
 * stop after its start, however small the terminal. Backward (PageUp) walks the stops down,
 * then the text pages (the whole narration, for the room to read) back to the first, then
 * enters the previous slide at its last page and step; forward from a text page turns the
 * pages, then shows the scene's page again at the step it was at. The arrows (→ ←) do the
 * same through every step, for the live demo. Skip (F5, Esc: a clicker's "start/stop"
 * button sends one or the other) shows the scene's end, and from there goes to the next
 * slide: any slide is left in at most two presses. Whole-slide moves (n, p, Home, End, g N
 * Enter) enter a slide on its entry page at its start. A slide without a scene has 0 steps. */
#ifndef COLLVIZ_PRESENT_DECK_H
#define COLLVIZ_PRESENT_DECK_H

#include <stdbool.h>
#include <stddef.h>

#define DECK_STEP_START (-2) /* entering forward: the step the slide's scene gives */
#define DECK_STEP_END (-1)   /* entering backward: the scene's last step */
#define DECK_PAGE_END (-1)   /* entering backward: the slide's last page */
#define DECK_PAGE_ENTRY (-2) /* entering forward: the slide's entry page (present_layout.h) */

enum deck_move {
    DECK_NEXT,       /* next page, next stop, else next slide (on its entry page) */
    DECK_PREV,       /* previous stop, previous page, else previous slide at its end */
    DECK_STEP_NEXT,  /* next page, next step, else next slide */
    DECK_STEP_PREV,  /* previous step, previous page, else previous slide at its end */
    DECK_SKIP,       /* the last page at the scene's end; there already: next slide */
    DECK_NEXT_SLIDE, /* n */
    DECK_PREV_SLIDE, /* p */
    DECK_FIRST,      /* Home */
    DECK_LAST,       /* End */
    DECK_GOTO,       /* g N Enter: slide N (1-based) */
};

struct deck_pos {
    size_t slide; /* 0-based */
    long step;    /* 0..nsteps, or DECK_STEP_START / DECK_STEP_END when entering a slide */
    int page;     /* 0..npages-1, or DECK_PAGE_END / DECK_PAGE_ENTRY when entering a slide */
};

/* The slide being moved through: its scene's steps (0..nsteps, 0 without a scene), its
 * narration pages (at least 1) and its stops (ascending steps in 0..nsteps; NULL: every
 * step is a stop). */
struct deck_slide {
    long nsteps;
    int npages;
    const long *stops;
    size_t nstops;
};

/* The position after `m` from `cur` (whose step and page are resolved) in slide d, one of
 * nslides. goto_n is the 1-based slide for DECK_GOTO. Returns false when the move goes
 * nowhere (past either end, a slide number out of range); *out is then cur. */
bool deck_move_in(struct deck_pos cur, const struct deck_slide *d, size_t nslides,
                  enum deck_move m, long goto_n, struct deck_pos *out);

#define DECK_STOPS_MAX 64
#define DECK_STOP_END (-1) /* in an author's marks: the scene's last step */
/* A slide's stops into out[DECK_STOPS_MAX], ascending, each once; returns how many. marks:
 * the author's (`stops:`, DECK_STOP_END = the last step), used as given when nmarks > 0;
 * else phase_ends (the screen's: the last step of each phase, the end among them) from the
 * start on, else the end alone. The step the scene starts at (start, resolved) is always one: a
 * slide is entered there. Steps outside 0..nsteps are dropped. */
size_t deck_stops(const long *marks, size_t nmarks, const long *phase_ends, size_t nphase,
                  long start, long nsteps, long *out);

/* The steps of a scene (0..nsteps) that narration text names ("step 3", "after 3 of its 6
 * steps", "stop after step 3"; from the step the scene starts at, start (resolved; -1:
 * none), "step forward once", "step twice", "press → 3 times"), into out[max], ascending,
 * each once; returns how many. Each is a clicker stop, shown as the narration says (never
 * left out for a later slide's answer): the clicker stops where the narration says to step. */
size_t deck_named_steps(const char *text, long start, long nsteps, long *out, size_t max);

/* deck_move_in with every step a stop (nsteps, npages: the slide's). */
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
