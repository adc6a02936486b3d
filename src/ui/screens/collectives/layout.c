/* layout.c - the collectives screen's geometry as a pure function (see layout.h). The
 * caller passes the widest value, the most transfers of any step and the longest step
 * sentence, so the layout stays still while the student steps through a plan. */
#include "ui/screens/collectives/layout.h"

#include <string.h>

#include "core/text.h"

#define BOX_MIN_W 12    /* "┌ rank 15 ┐" and a little room */
#define ROW_LABEL_W 6   /* "r15 │ " in LAYOUT_ROWS */
#define XFER_GAP 2      /* columns between transfer entries */
#define XFER_MAX_ROWS 4 /* more than this many rows of transfers: "+N more" */
#define PANEL_H_MAX 10
#define PANEL_H_MIN LAYOUT_PANEL_H_MIN
#define PANEL_COMPACT_BELOW 5 /* shorter panels have no border */
#define WHAT_MAX_LINES 3
#define WHAT_GROW_LINES 4 /* each of sentence and summary where rows are free (draw_what) */

/* One arrangement of the rank buffers inside the animation region. */
struct fit {
    enum layout_mode mode;
    int gc, gr; /* grid of boxes (ROWS: 1 column, n rows) */
    int bw, bh; /* one box (ROWS: width, lines per rank) */
    int per_line, lines;
    size_t shown;
    bool marks;
    bool full; /* every value of every rank visible */
    int gap;   /* columns between values */
};

static int div_up(size_t a, size_t b)
{
    return (int)((a + b - 1) / b);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Values shown when `cap` cells are available: all of them, or cap-1 and an ellipsis cell. */
static size_t layout_shown(size_t work_len, size_t cap)
{
    if (cap >= work_len) return work_len;
    return cap > 1 ? cap - 1 : 0;
}

/* The best grid of boxes in aw x bh. Arrangements that show every value win (the one with
 * the fewest lines of values per box, then the fewest rows of boxes); with truncate=true
 * and no such arrangement, the one that shows the most values. */
static bool fit_boxes(int aw, int bh, int n, size_t L, int cw, int ch, int label_w, bool marks,
                      bool truncate, struct fit *best)
{
    bool found = false;
    int prev_gc = 0;
    for (int gr = 1; gr <= n; gr++) {
        int gc = div_up((size_t)n, (size_t)gr);
        if (gc == prev_gc) continue;
        prev_gc = gc;
        gr = div_up((size_t)n, (size_t)gc);
        int bw_max = (aw - (gc - 1)) / gc;
        int min_w = cw + 4 > BOX_MIN_W ? cw + 4 : BOX_MIN_W;
        if (bw_max < min_w) continue;
        int per_line = (bw_max - 3) / (cw + 1);
        int lines = div_up(L, (size_t)per_line);
        if (marks && lines > 1)
            continue; /* a marker row only reads unambiguously under a single line */
        int h = 2 + lines * ch + (marks ? 1 : 0);
        struct fit f = {.mode = LAYOUT_BOXES, .gc = gc, .gr = gr, .marks = marks};
        if (gr * h <= bh) {
            f.full = true;
            f.lines = lines;
            f.shown = L;
        } else {
            if (!truncate) continue;
            f.lines = (bh / gr - 2 - (marks ? 1 : 0)) / ch;
            if (f.lines < 1) continue;
            f.shown = layout_shown(L, (size_t)f.lines * (size_t)per_line);
            if (f.shown == 0) continue;
        }
        /* As wide as the values (or the label) need, not wider: big terminals get
         * compact boxes, centred, rather than long empty ones. */
        /* Two columns between values where that costs no extra line: numbers (and their
         * coloured backgrounds) read apart more easily. */
        f.gap = 1;
        int per2 = (bw_max - 4 + 2) / (cw + 2);
        if (f.full && per2 >= 1 && div_up(L, (size_t)per2) == div_up(L, (size_t)per_line))
            f.gap = 2;
        int step = cw + f.gap;
        size_t in_line = L < (size_t)per_line ? L : (size_t)per_line;
        if (f.gap == 2 && in_line > (size_t)per2) in_line = (size_t)per2;
        int natural = 4 + (int)in_line * step - f.gap;
        int want = label_w + 4 > natural ? label_w + 4 : natural;
        f.bw = want < bw_max ? want : bw_max;
        f.per_line = (f.bw - 4 + f.gap) / step;
        if (f.full) f.lines = div_up(L, (size_t)f.per_line);
        if (f.full && f.lines > 1) {
            /* Wrapped values in even lines: 16 values in two lines of 8, so the
             * all-to-all's receive half (the second 8) is one line, not 4 + 4. */
            f.per_line = div_up(L, (size_t)f.lines);
            int nat = 4 + f.per_line * step - f.gap;
            int w = label_w + 4 > nat ? label_w + 4 : nat;
            if (w < f.bw) f.bw = w;
        }
        f.bh = 2 + f.lines * ch + (marks ? 1 : 0);
        if (f.full) {
            /* Fewest value lines per box (rows of numbers read best), then fewest rows
             * of boxes. A truncating candidate never beats a full one. */
            if (!found || !best->full || f.lines < best->lines ||
                (f.lines == best->lines && f.gr < best->gr))
                *best = f;
            found = true;
            continue;
        }
        if (found && best->full) continue;
        if (!found || f.shown > best->shown) {
            *best = f;
            found = true;
        }
    }
    return found;
}

/* One line (or a few) per rank: "r3 │ 6 10 14 18". */
static bool fit_rows(int aw, int bh, int n, size_t L, int cw, int ch, bool truncate,
                     struct fit *f)
{
    int per_line = (aw - ROW_LABEL_W - 1 + 1) / (cw + 1); /* -1: the closing ']' slot */
    if (per_line < 1 || bh < n * ch) return false;
    int lines = div_up(L, (size_t)per_line);
    *f = (struct fit){
        .mode = LAYOUT_ROWS, .gc = 1, .gr = n, .bw = aw, .per_line = per_line, .gap = 1};
    if (n * lines * ch <= bh) {
        f->full = true;
        f->lines = lines;
        f->shown = L;
    } else {
        if (!truncate) return false;
        f->lines = bh / (n * ch);
        f->shown = layout_shown(L, (size_t)f->lines * (size_t)per_line);
        if (f->shown == 0) return false;
    }
    f->bh = f->lines * ch;
    return true;
}

/* Transfer entries per row in width w. */
static int xfer_per_row(int w, int xfer_w)
{
    int k = (w + XFER_GAP) / (xfer_w + XFER_GAP);
    return k < 1 ? 1 : k;
}

enum stage { STAGE_BOXES_MARKS, STAGE_BOXES, STAGE_ROWS, STAGE_SQUEEZE, STAGE_TRUNCATE };

static int xfer_rows_wanted(enum stage st, int aw, const struct layout_content *c)
{
    int xper = xfer_per_row(aw, c->xfer_w);
    int xr_need = c->nxfers > 0 ? div_up((size_t)c->nxfers, (size_t)xper) : 1;
    return st == STAGE_TRUNCATE ? 1 : clampi(xr_need, 1, XFER_MAX_ROWS);
}

/* Try to place the animation in aw x ah at one stage, with every transfer row it wants
 * (whole) or as few as one (!whole); on success fill *f and the rows given to the transfer
 * list. */
static bool fit_anim(enum stage st, bool whole, int aw, int ah, int n, size_t L,
                     const struct layout_content *c, bool legend, struct fit *f, int *xr_out)
{
    int ch = c->cell_h > 1 ? c->cell_h : 1;
    int xr_want = xfer_rows_wanted(st, aw, c);
    for (int xr = xr_want; xr >= (whole ? xr_want : 1); xr--) {
        int bh = ah - xr - (legend ? 1 : 0);
        if (bh < 1) continue;
        bool ok = false;
        switch (st) {
        case STAGE_BOXES_MARKS:
            ok = fit_boxes(aw, bh, n, L, c->cell_w, ch, c->label_w, true, false, f);
            break;
        case STAGE_BOXES:
            ok = fit_boxes(aw, bh, n, L, c->cell_w, ch, c->label_w, false, false, f);
            break;
        case STAGE_ROWS:
        case STAGE_SQUEEZE:
            ok = fit_boxes(aw, bh, n, L, c->cell_w, ch, c->label_w, true, false, f) ||
                 fit_boxes(aw, bh, n, L, c->cell_w, ch, c->label_w, false, false, f) ||
                 fit_rows(aw, bh, n, L, c->cell_w, ch, false, f);
            break;
        case STAGE_TRUNCATE: {
            struct fit a, b;
            bool ha = fit_boxes(aw, bh, n, L, c->cell_w, ch, c->label_w, false, true, &a);
            bool hb = fit_rows(aw, bh, n, L, c->cell_w, ch, true, &b);
            if (ha && (!hb || a.shown >= b.shown))
                *f = a;
            else if (hb)
                *f = b;
            ok = ha || hb;
            break;
        }
        }
        if (ok) {
            *xr_out = xr;
            return true;
        }
    }
    return false;
}

static int what_lines(const char *what, int width)
{
    if (!what || !*what) return 1;
    int n = text_wrap_count(what, width - 2);
    return clampi(n, 1, WHAT_MAX_LINES);
}

void layout_cell_pos(const struct layout *l, int r, size_t i, int *y, int *x)
{
    const struct rect *b = &l->box[r];
    int line = (int)(i / (size_t)l->per_line), col = (int)(i % (size_t)l->per_line);
    int step = l->cell_w + (l->cell_gap > 0 ? l->cell_gap : 1);
    line *= l->cell_h > 1 ? l->cell_h : 1;
    if (l->mode == LAYOUT_ROWS) {
        *y = b->y + line;
        *x = b->x + ROW_LABEL_W + col * step;
    } else {
        *y = b->y + 1 + line;
        *x = b->x + 2 + col * step;
    }
}

int layout_compute(int rows, int cols, int nranks, size_t work_len,
                   const struct layout_content *c, struct layout *out)
{
    memset(out, 0, sizeof *out);
    out->rows = rows;
    out->cols = cols;
    /* Cells at least two wide: single digits stay apart and a one-cell run of the in/out
     * marker row still has room for "out" or "i/o". */
    out->cell_w = c->cell_w < 2 ? 2 : c->cell_w;
    out->cell_h = c->cell_h > 1 ? c->cell_h : 1;
    int min_rows = c->min_rows > 0 ? c->min_rows : LAYOUT_MIN_ROWS;
    if (min_rows < LAYOUT_EMBED_MIN_ROWS) min_rows = LAYOUT_EMBED_MIN_ROWS;
    if (rows < min_rows || cols < LAYOUT_MIN_COLS || nranks < 1 || nranks > CV_MAX_RANKS) {
        out->mode = LAYOUT_TOO_SMALL;
        return out->mode;
    }
    struct layout_content cc = *c;
    cc.cell_w = out->cell_w;
    if (cc.xfer_w < 1) cc.xfer_w = 1;
    size_t L = work_len ? work_len : 1;

    out->title = (struct rect){0, 0, 1, cols};
    out->status = (struct rect){1, 0, 1, cols};
    out->bar = (struct rect){rows - 1, 0, 1, cols};
    int top = 2, bottom = rows - 1; /* the free band is rows [top, bottom) */

    out->panel_side = cols >= LAYOUT_SIDE_COLS && !c->no_panel;
    int aw = cols, pw = 0;
    if (out->panel_side) {
        pw = clampi(cols * 34 / 100, 44, 64);
        aw = cols - pw - 1;
    }

    struct fit f = {0};
    int xr = 1, ph = 0, wh = 1;
    bool legend = true, done = false;
    int wh_full = what_lines(c->what, aw);
    int sum_full = c->summary && *c->summary ? what_lines(c->summary, aw) : 0;
    /* Each stage: the measured panel shrinks (to its least height) before the transfer list
     * loses a row to "+N more", and both before the stage gives way to the next. */
    for (int k = 0; k < 2 * (STAGE_TRUNCATE + 1) && !done; k++) {
        int st = k / 2;
        bool squeeze = st >= STAGE_SQUEEZE, whole = k % 2 == 0;
        wh = squeeze ? 1 : wh_full + sum_full;
        out->what_lines = squeeze ? 1 : wh_full;
        legend = !squeeze;
        int ph_hi = out->panel_side || c->no_panel ? 0 : squeeze ? 1 : PANEL_H_MAX;
        int ph_lo = out->panel_side || c->no_panel ? 0
                    : squeeze || c->panel_short    ? 1
                                                   : PANEL_H_MIN;
        for (ph = ph_hi; ph >= ph_lo && !done; ph--) {
            int ah = bottom - top - wh - ph;
            if (ah >= 1 &&
                fit_anim((enum stage)st, whole, aw, ah, nranks, L, &cc, legend, &f, &xr))
                done = true;
        }
        if (done) ph++; /* the loop stepped past the height that fitted */
    }
    if (!done) { /* not even one value per rank fits: treat as too small */
        out->mode = LAYOUT_TOO_SMALL;
        return out->mode;
    }

    out->mode = f.mode;
    out->grid_cols = f.gc;
    out->grid_rows = f.gr;
    out->per_line = f.per_line;
    out->value_lines = f.lines;
    out->shown = f.shown;
    out->marks = f.mode == LAYOUT_BOXES && f.marks;
    out->cell_gap = f.gap > 0 ? f.gap : 1;
    out->xfer_cols = xfer_per_row(aw, cc.xfer_w);
    out->xfer_rows = xr;

    int boxes_h = f.gr * f.bh;
    int band = bottom - top - ph;
    int need = boxes_h + (legend ? 1 : 0) + xr + wh;
    int spare = band - need;
    /* Spare rows go first to the sentence and the summary a squeeze cut to one line (never
     * a line cut by "…" above free rows), then become breathing room: */
    int wh_all =
        c->what && *c->what ? clampi(text_wrap_count(c->what, aw - 2), 1, WHAT_GROW_LINES) : 1;
    int sum_all = c->summary && *c->summary
                      ? clampi(text_wrap_count(c->summary, aw - 2), 0, WHAT_GROW_LINES)
                      : 0;
    if (spare > 0 && wh < wh_all + sum_all) {
        int grow = clampi(wh_all + sum_all - wh, 0, spare);
        wh += grow;
        spare -= grow;
        out->what_lines = wh < wh_all ? wh : wh_all;
    }
    /* Spare rows become breathing room: above the boxes, between boxes and legend, before
     * the sentence; the rest stays at the bottom of the band. */
    int g1 = spare >= 1 ? 1 : 0, g2 = spare >= 2 ? 1 : 0, g3 = spare >= 3 ? 1 : 0;

    int y = top + g1;
    out->anim = (struct rect){top, 0, band - wh - (g3 ? 1 : 0), aw};
    int grid_w = f.mode == LAYOUT_ROWS ? aw : f.gc * f.bw + (f.gc - 1);
    int x0 = (aw - grid_w) / 2;
    for (int r = 0; r < nranks; r++) {
        int gy = r / f.gc, gx = r % f.gc;
        out->box[r] = (struct rect){y + gy * f.bh, x0 + gx * (f.bw + 1), f.bh, f.bw};
    }
    y += boxes_h + g2;
    if (legend) {
        out->legend = (struct rect){y, 0, 1, aw};
        y++;
    }
    out->xfers = (struct rect){y, 0, xr, aw};
    y += xr + g3;
    out->what = (struct rect){y, 0, wh, aw};
    if (out->panel_side) {
        out->panel = (struct rect){top, cols - pw, bottom - top, pw};
    } else {
        out->panel = (struct rect){bottom - ph, 0, ph, cols};
    }
    out->panel_compact = out->panel.h < PANEL_COMPACT_BELOW;
    return out->mode;
}

void layout_shift(struct layout *l, int dy, int dx)
{
    struct rect *all[] = {&l->title, &l->status, &l->anim,  &l->legend,
                          &l->xfers, &l->what,   &l->panel, &l->bar};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        *all[i] = rect_shift(*all[i], dy, dx);
    for (int r = 0; r < CV_MAX_RANKS; r++)
        l->box[r] = rect_shift(l->box[r], dy, dx);
}
