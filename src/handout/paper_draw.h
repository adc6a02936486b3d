/* paper_draw.h - what the paper pictures' drawers share inside handout/: the drawing
 * primitives and the themes (paper.c), the collectives screen (paper_coll.c), the
 * parallelism screen (paper_par.c).
 *
 * Black and white. A handout is photocopied, so nothing is said by colour alone. A rank is
 * its label ("rank 2", "r2"), its fill and its hatching: even ranks a light fill, odd ranks
 * a dark one, so two ranks side by side (a ring's neighbours, chunks r and r+1) differ in
 * luminance by more than 3:1 in grey (the themes in paper.c); and each rank its own
 * hatching (none, /,
 * -, \, dots, x, |, +), so ranks two apart, of the same luminance, still differ. What a
 * scene points at is drawn heavier (PD_HL_WIDTH) and carries the marker PD_MARK. A step's
 * transfers are arrows in lanes of their own (no two share a segment), each with its
 * number, the same number as its line in the list beneath. Every text is >= 8.5 points
 * (pd_size) and, in colour and converted to grey, >= 4.5:1 against what it is drawn on
 * (the pairs are recorded: tests read them). */
#ifndef COLLVIZ_HANDOUT_PAPER_DRAW_H
#define COLLVIZ_HANDOUT_PAPER_DRAW_H

#include <cairo.h>
#include <pango/pangocairo.h>
#include <stdbool.h>
#include <stdint.h>

#include "handout/paper.h"

struct pd {
    cairo_t *cr;
    const struct print_theme *th;
    struct print_pic *pic;
};

enum { PD_LEFT, PD_CENTRE, PD_RIGHT };
enum { PD_PLAIN = 0, PD_BOLD = 1, PD_MONO = 2, PD_ITALIC = 4 };

#define PD_VALUE_PT 9.5  /* a value in a cell (monospace) */
#define PD_HL_WIDTH 2.6  /* the outline of what the scene points at */
#define PD_MARK "\u2605" /* ★, before what the scene points at, and in the legend */

void pd_rgb(cairo_t *cr, uint32_t c);
/* Record that text fg was drawn on bg (the contrast tests read these). */
void pd_pair(struct pd *d, uint32_t fg, uint32_t bg);
PangoLayout *pd_layout(struct pd *d, const char *t, double size, int style, double maxw);
void pd_measure(struct pd *d, const char *t, double size, int style, double *w, double *h);
/* Draw t with its top at y; x is its left edge, centre or right edge by align. maxw > 0
 * wraps. Returns the height used; *wout (may be NULL) the width. */
double pd_text(struct pd *d, double x, double y, const char *t, double size, int style,
               uint32_t fg, uint32_t bg, double maxw, int align, double *wout);
void pd_rect(struct pd *d, double x, double y, double w, double h, uint32_t fill);
void pd_frame(struct pd *d, double x, double y, double w, double h, uint32_t c, double lw);
/* An arrow head at (x, y) pointing in direction (dx, dy) (a unit vector). */
void pd_head(struct pd *d, double x, double y, double dx, double dy, uint32_t c);
/* A circled number (a transfer's), centred at (cx, cy). Returns its diameter. */
double pd_badge(struct pd *d, double cx, double cy, int n, uint32_t ink);

/* ---- ranks ---- */

/* A cell holding rank r's data: its fill and hatching; the colour for text on it is
 * pd_rank_text. */
void pd_rank_cell(struct pd *d, double x, double y, double w, double h, int r);
uint32_t pd_rank_fill(const struct pd *d, int r);
uint32_t pd_rank_text(const struct pd *d, int r);
/* Rank r's ink on the page (its labels and arrows), and its arrows' dash pattern. */
uint32_t pd_rank_ink(const struct pd *d, int r);
void pd_rank_dash(struct pd *d, int r);
/* Record the pairs of text in colour fg on rank r's cell (its fill and its hatching). */
void pd_rank_pairs(struct pd *d, int r, uint32_t fg);
/* "Legend · data of [r0] r0 [r1] r1 ..." at (0, y), the labels "<prefix><rank>": each
 * swatch (rank r's cell, 16 x 11) ends 4 points before its label, where the tests look for
 * it. Returns the y below. */
double pd_rank_legend(struct pd *d, double y, int nranks, double maxw, const char *lead,
                      const char *prefix);

/* The partial-reduction corner mark. */
void pd_partial_mark(struct pd *d, double x, double y);

/* ---- the screens ---- */

int pd_collectives(struct pd *d, const struct scene *sc, const struct print_opts *o, char *err,
                   size_t errlen);
int pd_parallel(struct pd *d, const struct scene *sc, char *err, size_t errlen);

#endif
