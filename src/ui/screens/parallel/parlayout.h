/* parlayout.h - where everything goes on the parallelism screen, as a pure function of the
 * terminal size and the shapes of what the ranks show (no curses: unit-tested in
 * tests/unit/test_par_layout.c).
 *
 * Regions, top to bottom: title, status, the rank boxes (each holds its matrices, laid out
 * left to right and wrapped), the transfers or messages of the frame, the pipeline's two
 * Gantt charts (pp only: ideal schedule beside the measured timeline), the frame's
 * sentence, and the key bar. The measured panel sits beside on wide terminals and below
 * otherwise. The box size is the largest any frame needs, so nothing moves while
 * stepping. When room runs short the layout gives way in this order: the panel goes
 * below, then shrinks, boxes keep only their key matrix, the sentence takes one line and
 * the panel two, boxes lose their borders, and last of all tall matrices are cut to their
 * first rows (the box says so with an ellipsis row). */
#ifndef COLLVIZ_UI_SCREENS_PARALLEL_PARLAYOUT_H
#define COLLVIZ_UI_SCREENS_PARALLEL_PARLAYOUT_H

#include <stdbool.h>

#include "ui/kit/rect.h"
#include "scene/par_view.h"

#define PAR_CELL_W 3          /* "-83" */
#define PAR_MAT_GAP 2         /* columns between matrices in a box */
#define PAR_MAT_HEAD 2        /* name line, shape-and-scale line */
#define PAR_PANEL_H_MIN 6     /* the panel below: its least bordered height */
#define PAR_EMBED_MIN_ROWS 10 /* the fewest rows an embedded scene is laid out in */

/* The matrices one rank shows in one frame. */
struct par_shape {
    int n;
    int w[PROBE_MAX_MATS];     /* columns of the matrix block (values or its labels) */
    int rows[PROBE_MAX_MATS];  /* rows of values */
    int extra[PROBE_MAX_MATS]; /* lines besides the values: PAR_MAT_HEAD (+1 marker row) */
    bool key[PROBE_MAX_MATS];
};

/* Columns a matrix of `cols` values takes. */
int par_values_width(int cols);
/* The shape of n matrices as a box lays them out. */
void par_shape_of(const struct par_cells *c, int n, bool utf8, struct par_shape *s);

struct par_layout_content {
    int nranks;
    const struct par_shape *shapes; /* every (frame, rank) */
    int nshapes;
    int label_w;              /* the shortest box title that must fit ("r3") */
    int gantt_rows;           /* 0, or the rows the Gantt charts need */
    int gantt_w;              /* their narrowest width */
    int xfer_rows;            /* rows of transfers/messages wanted (>= 1) */
    const char *what;         /* the longest sentence */
    const char *const *whats; /* every frame's sentence (NULL: what alone): the sentence rows
                                 are the most any of them wraps to */
    int nwhats;
    int min_rows;     /* fewest rows laid out (0: LAYOUT_MIN_ROWS); embedded, the frame around
                         decides what fits (PAR_EMBED_MIN_ROWS at least) */
    int zoom;         /* the presenter's zoom (app.zoom): from 1 no panel, from 2 only the key
                         matrices, at 3 no transfer or sentence rows either (boxes and the pipeline
                         chart alone) */
    bool panel_short; /* the panel gives way to one line before anything else does (the
                         presenter, for a slide's question: app.panel_short) */
};

struct par_layout {
    bool too_small;
    int rows, cols;
    struct rect title, status, anim, xfers, gantt, what, panel, bar;
    struct rect box[PAR_MAX_RANKS];
    int grid_cols, grid_rows;
    int inner_w; /* width the matrices flow in */
    int row_cap; /* matrices taller than this show row_cap-1 rows and an ellipsis; 0 = none */
    bool key_only;
    bool borders;
    bool panel_side;
    bool panel_compact; /* panel of one or two plain lines */
    int what_lines;
};

/* Fill *out; returns false (out->too_small) when not even the tightest form fits. */
bool par_layout_compute(int rows, int cols, const struct par_layout_content *c,
                        struct par_layout *out);

/* Move every rectangle of l by (dy, dx) (the layout is computed at the origin). */
void par_layout_shift(struct par_layout *l, int dy, int dx);

/* Lay out shape s in width inner_w: positions (x, y) of each shown matrix relative to the
 * box's inside (x = -1 for matrices not shown); returns the height, *width the columns
 * used. */
int par_flow(const struct par_shape *s, int inner_w, bool key_only, int row_cap, int *xs,
             int *ys, int *width);
/* Rows of values shown for a matrix of `rows` under row_cap (the ellipsis row included). */
int par_rows_shown(int rows, int row_cap);

#endif
