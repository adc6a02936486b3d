/* parlayout.c - the parallelism screen's geometry as a pure function (see parlayout.h). */
#include "ui/screens/parallel/parlayout.h"

#include <string.h>

#include "core/text.h"

#define PANEL_SIDE_MIN_COLS 150 /* the panel's loss table and napkin lines need ~56 columns */
#define PANEL_SIDE_W_MIN 58
#define PANEL_SIDE_W_MAX 70
#define PANEL_H_MAX 12
#define PANEL_H_MIN PAR_PANEL_H_MIN
#define PANEL_COMPACT_H 2
#define WHAT_GROW_LINES 8 /* the sentence's rows where rows are free (par_what draws 8) */

int par_values_width(int cols)
{
    return cols * (PAR_CELL_W + 1) - 1;
}

void par_shape_of(const struct par_cells *c, int n, bool utf8, struct par_shape *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < n && k < PROBE_MAX_MATS; k++) {
        char name[64], shape[64];
        par_cells_head(&c[k], utf8, name, sizeof name, shape, sizeof shape);
        int w = par_values_width(c[k].cols);
        if (text_width(name) > w) w = text_width(name);
        if (text_width(shape) > w) w = text_width(shape);
        s->w[k] = w;
        s->rows[k] = c[k].rows;
        s->extra[k] = PAR_MAT_HEAD + (c[k].mark && c[k].mark_c1 > c[k].mark_c0 ? 1 : 0);
        s->key[k] = c[k].key;
        s->n = k + 1;
    }
}

int par_rows_shown(int rows, int row_cap)
{
    return row_cap <= 0 || rows <= row_cap ? rows : row_cap;
}

int par_flow(const struct par_shape *s, int inner_w, bool key_only, int row_cap, int *xs,
             int *ys, int *width)
{
    int x = 0, y = 0, lineh = 0, maxw = 0;
    for (int k = 0; k < s->n; k++) {
        if (key_only && !s->key[k]) {
            if (xs) xs[k] = ys[k] = -1;
            continue;
        }
        int w = s->w[k], h = s->extra[k] + par_rows_shown(s->rows[k], row_cap);
        if (x > 0 && x + w > inner_w) {
            y += lineh + 1;
            x = 0;
            lineh = 0;
        }
        if (xs) {
            xs[k] = x;
            ys[k] = y;
        }
        if (x + w > maxw) maxw = x + w;
        x += w + PAR_MAT_GAP;
        if (h > lineh) lineh = h;
    }
    if (width) *width = maxw;
    return y + lineh;
}

/* The widest single matrix and the natural (unwrapped) width over every shape. */
static void par_widths(const struct par_layout_content *c, bool key_only, int *widest,
                       int *natural)
{
    *widest = *natural = 1;
    for (int i = 0; i < c->nshapes; i++) {
        const struct par_shape *s = &c->shapes[i];
        int w;
        par_flow(s, 1 << 20, key_only, 0, NULL, NULL, &w);
        if (w > *natural) *natural = w;
        for (int k = 0; k < s->n; k++)
            if ((!key_only || s->key[k]) && s->w[k] > *widest) *widest = s->w[k];
    }
}

static int par_flow_height(const struct par_layout_content *c, int inner_w, bool key_only,
                           int row_cap)
{
    int h = 0;
    for (int i = 0; i < c->nshapes; i++) {
        int hi = par_flow(&c->shapes[i], inner_w, key_only, row_cap, NULL, NULL, NULL);
        if (hi > h) h = hi;
    }
    return h;
}

static int par_tallest(const struct par_layout_content *c, bool key_only)
{
    int t = 1;
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].n; k++)
            if ((!key_only || c->shapes[i].key[k]) && c->shapes[i].rows[k] > t)
                t = c->shapes[i].rows[k];
    return t;
}

struct par_try {
    bool side, key_only, borders, squeeze;
    int row_cap;
    bool what_cut; /* the sentence squeezed to one line (the last resort) */
};

/* One grid of boxes a try can have: gr rows of gc boxes, each bw x bh, inner_w inside. */
struct par_grid {
    int gr, gc, bw, bh, inner;
};

/* What no height changes, found once a layout: the sentence's lines at each width the
 * tries have (the whole width, or beside the side panel), the matrices' widths with every
 * matrix and with the key ones only. */
struct par_once {
    int what_w[2], what_n[2]; /* [side]: the width (-1: not found yet), its lines */
    int widest[2], natural[2];
    bool have_widths[2]; /* [key_only] */
};

static int par_what_lines(const struct par_layout_content *c, int width, int max);

static int par_once_what(struct par_once *o, const struct par_layout_content *c, bool side,
                         int aw)
{
    if (o->what_w[side] != aw) {
        o->what_w[side] = aw;
        o->what_n[side] = par_what_lines(c, aw, WHAT_GROW_LINES);
    }
    return o->what_n[side];
}

/* The grids a try allows in aw columns, whatever the height (grids[W], how many): for a
 * number of rows of boxes, the fewest columns that hold every rank (2x2 rather than 3+1). */
static int par_grids(const struct par_layout_content *c, const struct par_try *t, int aw,
                     struct par_once *o, struct par_grid *grids)
{
    int W = c->nranks, n = 0, prev_gc = 0, k = t->key_only;
    if (!o->have_widths[k]) {
        par_widths(c, t->key_only, &o->widest[k], &o->natural[k]);
        o->have_widths[k] = true;
    }
    int widest = o->widest[k], natural = o->natural[k];
    int pad = t->borders ? 4 : 1; /* "│ " and " │", or one column apart */
    for (int gr = 1; gr <= W; gr++) {
        int gc = (W + gr - 1) / gr;
        if (gc == prev_gc) continue;
        prev_gc = gc;
        int bw_max = (aw - (gc - 1)) / gc;
        int inner = bw_max - pad;
        if (inner < widest || bw_max < c->label_w + (t->borders ? 4 : 0)) continue;
        if (inner > natural) inner = natural;
        int bw = inner + pad;
        int lw = c->label_w + (t->borders ? 4 : 0);
        if (bw < lw) bw = lw;
        int h = par_flow_height(c, inner, t->key_only, t->row_cap);
        grids[n++] = (struct par_grid){gr, gc, bw, h + (t->borders ? 2 : 1), inner};
    }
    return n;
}

/* Place the boxes in ah rows: of the grids (par_grids), the one that takes the fewest rows
 * in all (wide boxes wrap their matrices less); on a tie the one with fewer rows of boxes. */
static const struct par_grid *par_fit_boxes(const struct par_grid *grids, int n, int ah)
{
    const struct par_grid *best = NULL;
    for (int i = 0; i < n; i++) {
        int h = grids[i].gr * grids[i].bh;
        if (h > ah || (best && h >= best->gr * best->bh)) continue;
        best = &grids[i];
    }
    return best;
}

static int par_what_lines(const struct par_layout_content *c, int width, int max)
{
    int n = c->what && *c->what ? text_wrap_count(c->what, width - 2) : 1;
    for (int i = 0; c->whats && i < c->nwhats; i++) {
        int k = c->whats[i] ? text_wrap_count(c->whats[i], width - 2) : 1;
        if (k > n) n = k;
    }
    return n < 1 ? 1 : n > max ? max : n;
}

bool par_layout_compute(int rows, int cols, const struct par_layout_content *c,
                        struct par_layout *out)
{
    memset(out, 0, sizeof *out);
    out->rows = rows;
    out->cols = cols;
    out->too_small = true;
    int W = c->nranks;
    int min_rows = c->min_rows > 0 ? c->min_rows : LAYOUT_MIN_ROWS;
    if (min_rows < PAR_EMBED_MIN_ROWS) min_rows = PAR_EMBED_MIN_ROWS;
    if (rows < min_rows || cols < LAYOUT_MIN_COLS || W < 1 || W > PAR_MAX_RANKS) return false;
    out->title = (struct rect){0, 0, 1, cols};
    out->status = (struct rect){1, 0, 1, cols};
    out->bar = (struct rect){rows - 1, 0, 1, cols};
    int top = 2, bottom = rows - 1;
    int xr = c->xfer_rows < 1 ? 1 : c->xfer_rows;

    int tallest = par_tallest(c, true);
    struct par_try tries[8 + 2 * 16];
    int nt = 0;
    tries[nt++] = (struct par_try){true, false, true, false, 0, false};
    tries[nt++] = (struct par_try){false, false, true, false, 0, false};
    tries[nt++] = (struct par_try){false, true, true, false, 0, false};
    /* The squeezes keep the whole sentence (never a line cut by "…"); only where no
     * squeeze holds it does it take one line, with the boxes' tall matrices cut last. */
    for (int cut = 0; cut < 2; cut++) {
        tries[nt++] = (struct par_try){false, true, true, true, 0, cut};
        tries[nt++] = (struct par_try){false, true, false, true, 0, cut};
        for (int cap = tallest - 1; cap >= 2 && nt < (int)(sizeof tries / sizeof tries[0]);
             cap--)
            tries[nt++] = (struct par_try){false, true, false, true, cap, cut};
    }

    struct par_once once = {.what_w = {-1, -1}};
    for (int i = 0; i < nt; i++) {
        const struct par_try *t = &tries[i];
        if (t->side && (cols < PANEL_SIDE_MIN_COLS || c->zoom >= 1)) continue;
        if (!t->key_only && c->zoom >= 2) continue;
        int pw = 0, aw = cols;
        if (t->side) {
            pw = cols * 36 / 100;
            pw = pw < PANEL_SIDE_W_MIN   ? PANEL_SIDE_W_MIN
                 : pw > PANEL_SIDE_W_MAX ? PANEL_SIDE_W_MAX
                                         : pw;
            aw = cols - pw - 1;
        }
        if (c->gantt_rows > 0 && c->gantt_w > aw) continue;
        int full = c->zoom >= 3 ? 0 : par_once_what(&once, c, t->side, aw);
        int wl = c->zoom >= 3 ? 0 : t->what_cut ? 1 : full;
        int xrows = c->zoom >= 3 ? 0 : t->squeeze ? 1 : xr;
        int compact = c->panel_short ? 1 : PANEL_COMPACT_H;
        int ph_hi = t->side || c->zoom >= 1 ? 0 : t->squeeze ? compact : PANEL_H_MAX;
        int ph_lo = t->side || c->zoom >= 1        ? 0
                    : t->squeeze || c->panel_short ? compact
                                                   : PANEL_H_MIN;
        struct par_grid grids[PAR_MAX_RANKS];
        int ngrids = -1; /* not found yet */
        for (int ph = ph_hi; ph >= ph_lo; ph--) {
            int ah = bottom - top - ph - c->gantt_rows - xrows - wl;
            if (ah < 1) continue;
            if (ngrids < 0) ngrids = par_grids(c, t, aw, &once, grids);
            const struct par_grid *g = par_fit_boxes(grids, ngrids, ah);
            if (!g) continue;
            int gc = g->gc, bw = g->bw, bh = g->bh, inner = g->inner;
            int gr = (W + gc - 1) / gc;
            out->too_small = false;
            out->grid_cols = gc;
            out->grid_rows = gr;
            out->inner_w = inner;
            out->row_cap = t->row_cap;
            out->key_only = t->key_only;
            out->borders = t->borders;
            out->panel_side = t->side;
            out->panel_compact = !t->side && ph < PANEL_H_MIN;
            /* Spare rows go first to the sentence a squeeze cut to one line (never a line
             * cut by "…" above free rows); then one above the boxes, one under them, one
             * before the sentence. */
            int spare = ah - gr * bh;
            if (spare > 0 && wl < full) {
                int grow = full - wl < spare ? full - wl : spare;
                wl += grow;
                spare -= grow;
            }
            out->what_lines = wl;
            int g1 = spare >= 1, g2 = spare >= 2, g3 = spare >= 3;
            int y = top + g1;
            int grid_w = gc * bw + (gc - 1);
            int x0 = (aw - grid_w) / 2;
            for (int r = 0; r < W; r++)
                out->box[r] =
                    (struct rect){y + (r / gc) * bh, x0 + (r % gc) * (bw + 1), bh, bw};
            out->anim = (struct rect){top, 0, g1 + gr * bh, aw};
            y += gr * bh + g2;
            out->xfers = (struct rect){y, 0, xrows, aw};
            y += xrows;
            if (c->gantt_rows > 0) {
                out->gantt = (struct rect){y, 0, c->gantt_rows, aw};
                y += c->gantt_rows;
            }
            y += g3;
            out->what = (struct rect){y, 0, wl, aw};
            if (t->side)
                out->panel = (struct rect){top, cols - pw, bottom - top, pw};
            else
                out->panel = (struct rect){bottom - ph, 0, ph, cols};
            return true;
        }
    }
    return false;
}

void par_layout_shift(struct par_layout *l, int dy, int dx)
{
    struct rect *all[] = {&l->title, &l->status, &l->anim,  &l->xfers,
                          &l->gantt, &l->what,   &l->panel, &l->bar};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        *all[i] = rect_shift(*all[i], dy, dx);
    for (int r = 0; r < PAR_MAX_RANKS; r++)
        l->box[r] = rect_shift(l->box[r], dy, dx);
}
