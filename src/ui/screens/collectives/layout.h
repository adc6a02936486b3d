/* layout.h - where everything goes on the collectives screen, as a pure function of the
 * terminal size and what there is to show (no curses: unit-tested in tests/unit/test_layout.c).
 *
 * Regions, top to bottom: title bar, status line (step, phase, plan summary), the animation
 * (rank boxes, a colour legend, the current step's transfers), the step's sentence, and the
 * bottom key bar. The measured panel sits beside the animation on wide terminals and below
 * it otherwise. When space runs short the layout gives way in this order: fewer transfer
 * rows, a smaller measured panel, no in/out marker rows, one line per rank instead of boxes,
 * a one-line panel and sentence, and last of all truncated buffers (the box says so). */
#ifndef COLLVIZ_UI_SCREENS_COLLECTIVES_LAYOUT_H
#define COLLVIZ_UI_SCREENS_COLLECTIVES_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "ui/kit/rect.h"

#define LAYOUT_SIDE_COLS 120 /* from this width the measured panel goes beside */
#define LAYOUT_PANEL_H_MIN 4 /* the measured panel below: its least height before a squeeze */
#define LAYOUT_EMBED_MIN_ROWS 8 /* the fewest rows an embedded scene is laid out in */

enum layout_mode {
    LAYOUT_TOO_SMALL, /* below 80x24: the screen shows only a message */
    LAYOUT_BOXES,     /* a grid of bordered rank boxes */
    LAYOUT_ROWS,      /* one line (or a few) per rank, no borders: many ranks, little room */
};

/* What there is to show, beyond the terminal size and the buffers' shape. */
struct layout_content {
    int cell_w;          /* columns of the widest value in any snapshot (at least 2 are used) */
    int cell_h;          /* rows of one value: 0 or 1 = text, BIG_H = block digits */
    int label_w;         /* columns of the widest box label ("rank 2 · cpu thread") */
    int nxfers;          /* transfers in the current step */
    int xfer_w;          /* columns of one transfer entry */
    const char *what;    /* the step's sentence (wrapped into the sentence region) */
    const char *summary; /* the plan's summary, shown under the sentence when there is room */
    bool no_panel;       /* no measured panel (the presenter's zoom): its room goes to boxes */
    bool panel_short;    /* the panel gives way to one line before anything else does (the
                          * presenter, for a slide's question: app.panel_short) */
    int min_rows;        /* fewest rows laid out (0: LAYOUT_MIN_ROWS); embedded, the frame
                          * around decides what fits (LAYOUT_EMBED_MIN_ROWS at least) */
};

struct layout {
    enum layout_mode mode;
    int rows, cols;
    struct rect title, status, anim, legend, xfers, what, panel, bar;
    bool panel_side;               /* panel beside the animation (else below it) */
    bool panel_compact;            /* panel too short for a border: plain lines */
    int grid_cols, grid_rows;      /* boxes */
    struct rect box[CV_MAX_RANKS]; /* per rank: a box (BOXES) or its lines (ROWS) */
    int per_line;                  /* values per line inside a box / row */
    int value_lines;               /* lines of values per rank */
    size_t shown;                  /* values shown per rank (< work_len: the rest is elided) */
    bool marks;                    /* BOXES: a marker row saying which cells are in / out */
    int cell_w;
    int cell_h;               /* rows of one value (1, or BIG_H for block digits) */
    int cell_gap;             /* columns between values: 2 where there is room, else 1 */
    int xfer_cols, xfer_rows; /* transfer entries per row, rows of entries */
    int what_lines;           /* lines of `what` for the sentence; the rest of it: summary */
};

/* Fill *out. Returns out->mode. work_len = coll_work_len() (values per rank). */
int layout_compute(int rows, int cols, int nranks, size_t work_len,
                   const struct layout_content *c, struct layout *out);

/* The x of value cell i of rank r's box/row, and its line (for drawing highlights). */
void layout_cell_pos(const struct layout *l, int r, size_t i, int *y, int *x);

/* Move every rectangle of l by (dy, dx): layout_compute works at the origin, the screen
 * draws wherever its rect is. */
void layout_shift(struct layout *l, int dy, int dx);

#endif
