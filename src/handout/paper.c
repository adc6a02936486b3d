/* paper.c - scenes drawn for paper with cairo and pango (see paper.h). A picture is
 * first drawn onto a cairo recording surface, which measures its ink (the crop); each output
 * (SVG, PNG, PDF, a handout's page) then gets the same drawing again, straight onto its own
 * surface. Every text goes through pd_text, which records the colour pair it used: the
 * contrast test reads those, not a list kept by hand. */
#include "handout/paper.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/init.h"
#include "core/plan.h"
#include "core/tiers.h"
#include "core/trace.h"
#include "core/util.h"
#include "core/vec.h"
#include "core/text.h"

/* ---- themes ------------------------------------------------------------------------- */

/* Light: dark text on pastel cells; dark: light text on deep cells. Rank colours follow the
 * screen's order of hues (blue, orange, green, magenta, ...). */
static const struct print_theme theme_light = {
    .name = "light",
    .bg = 0xffffff,
    .ink = 0x1a1a1a,
    .dim = 0x555555,
    .accent = 0xb3261e,
    .cell_ink = 0x111111,
    .empty = 0xf4f4f4,
    .partial = 0xf3e0b5,
    .complete = 0xa8dcb0,
    .hidden = 0xe4e4e4,
    .rank_fill = {0xd6e4fa, 0xfcdcc4, 0xd4efd4, 0xf5d2e6, 0xe3d8f6, 0xfbefb0, 0xcdeeee,
                  0xe6e6e6},
    .rank_ink = {0x1f4e9c, 0x9a3c00, 0x1c6b1c, 0x9c1f63, 0x5b3a9c, 0x6e5300, 0x0b6363,
                 0x444444},
};
static const struct print_theme theme_dark = {
    .name = "dark",
    .bg = 0x1b1d22,
    .ink = 0xf0f0f0,
    .dim = 0xb8b8b8,
    .accent = 0xff8a80,
    .cell_ink = 0xf8f8f8,
    .empty = 0x2a2d33,
    .partial = 0x5a4720,
    .complete = 0x2e7d32,
    .hidden = 0x3a3d44,
    .rank_fill = {0x1f3a66, 0x6b3410, 0x1f4d1f, 0x5e1a40, 0x3d2a66, 0x554500, 0x0f4d4d,
                  0x3c3c3c},
    .rank_ink = {0x8fb8ff, 0xffb37a, 0x8fdc8f, 0xf5a3cf, 0xc3a8ff, 0xf0d264, 0x7fdcdc,
                 0xcccccc},
};

const struct print_theme *print_theme_get(bool dark)
{
    return dark ? &theme_dark : &theme_light;
}

static double pd_lin(uint32_t c, int shift)
{
    double v = (double)((c >> shift) & 0xff) / 255.0;
    return v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double pd_lum(uint32_t c)
{
    return 0.2126 * pd_lin(c, 16) + 0.7152 * pd_lin(c, 8) + 0.0722 * pd_lin(c, 0);
}

double print_contrast(uint32_t a, uint32_t b)
{
    double la = pd_lum(a), lb = pd_lum(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

void print_opts_default(struct print_opts *o)
{
    memset(o, 0, sizeof *o);
}

/* ---- drawing primitives ------------------------------------------------------------- */

struct pd {
    cairo_t *cr;
    const struct print_theme *th;
    struct print_pic *pic;
};

enum { PD_LEFT, PD_CENTRE, PD_RIGHT };
enum { PD_PLAIN = 0, PD_BOLD = 1, PD_MONO = 2, PD_ITALIC = 4 };

static void pd_rgb(cairo_t *cr, uint32_t c)
{
    cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
                         (c & 0xff) / 255.0);
}

static void pd_pair(struct pd *d, uint32_t fg, uint32_t bg)
{
    struct print_pic *p = d->pic;
    for (size_t i = 0; i < p->npairs; i++)
        if (p->pair[i].fg == fg && p->pair[i].bg == bg) return;
    if (p->npairs < PRINT_MAX_PAIRS) p->pair[p->npairs++] = (struct print_pair){fg, bg};
}

/* Few sizes: cairo's SVG holds one set of glyph outlines per font and size, so every size
 * saved makes each inline picture of a handout smaller. */
static double pd_size(double size, int style)
{
    if (style & PD_MONO) return 9.5; /* the values (PD_VALUE_PT) and the legend's dot */
    if (size >= 11.5) return 12;
    if (size >= 9.75) return 10;
    return size < 7.75 ? 7 : 8.5;
}

static PangoLayout *pd_layout(struct pd *d, const char *t, double size, int style, double maxw)
{
    size = pd_size(size, style);
    PangoLayout *l = pango_cairo_create_layout(d->cr);
    PangoFontDescription *f = pango_font_description_from_string(
        style & PD_MONO ? "DejaVu Sans Mono" : "DejaVu Sans");
    pango_font_description_set_absolute_size(f, size * PANGO_SCALE);
    if (style & PD_BOLD) pango_font_description_set_weight(f, PANGO_WEIGHT_BOLD);
    if (style & PD_ITALIC) pango_font_description_set_style(f, PANGO_STYLE_ITALIC);
    pango_layout_set_font_description(l, f);
    pango_font_description_free(f);
    if (maxw > 0) {
        pango_layout_set_width(l, (int)(maxw * PANGO_SCALE));
        pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
    }
    pango_layout_set_text(l, t, -1);
    return l;
}

static void pd_measure(struct pd *d, const char *t, double size, int style, double *w,
                       double *h)
{
    PangoLayout *l = pd_layout(d, t, size, style, 0);
    int pw, ph;
    pango_layout_get_size(l, &pw, &ph);
    *w = (double)pw / PANGO_SCALE;
    *h = (double)ph / PANGO_SCALE;
    g_object_unref(l);
}

/* Draw t with its top at y; x is its left edge, centre or right edge by align. maxw > 0
 * wraps. Returns the height used; *wout (may be NULL) the width. */
static double pd_text(struct pd *d, double x, double y, const char *t, double size, int style,
                      uint32_t fg, uint32_t bg, double maxw, int align, double *wout)
{
    PangoLayout *l = pd_layout(d, t, size, style, maxw);
    int pw, ph;
    pango_layout_get_size(l, &pw, &ph);
    double w = (double)pw / PANGO_SCALE, h = (double)ph / PANGO_SCALE;
    if (maxw > 0) {
        PangoRectangle ink, log;
        pango_layout_get_extents(l, &ink, &log);
        w = (double)log.width / PANGO_SCALE;
    }
    double left = align == PD_CENTRE ? x - w / 2 : align == PD_RIGHT ? x - w : x;
    pd_rgb(d->cr, fg);
    cairo_move_to(d->cr, left, y);
    pango_cairo_show_layout(d->cr, l);
    g_object_unref(l);
    pd_pair(d, fg, bg);
    if (wout) *wout = w;
    return h;
}

static void pd_rect(struct pd *d, double x, double y, double w, double h, uint32_t fill)
{
    cairo_rectangle(d->cr, x, y, w, h);
    pd_rgb(d->cr, fill);
    cairo_fill(d->cr);
}

static void pd_frame(struct pd *d, double x, double y, double w, double h, uint32_t c,
                     double lw)
{
    cairo_rectangle(d->cr, x, y, w, h);
    pd_rgb(d->cr, c);
    cairo_set_line_width(d->cr, lw);
    cairo_stroke(d->cr);
}

/* ---- the collectives screen --------------------------------------------------------- */

#define PD_CELL_H 17.0
#define PD_CELL_GAP 3.0
#define PD_PER_LINE 16
#define PD_VALUE_PT 9.5
#define PD_MAX_ARROWS 24

enum { PC_SRC = 1, PC_DST = 2, PC_POINTED = 4 };

struct pcoll {
    const struct scene *sc;
    struct plan plan;
    struct trace trace;
    float *send[CV_MAX_RANKS];
    size_t step;
    uint32_t hidden; /* ranks whose values an exercise asks for: drawn as "?" */
    int root;
    unsigned char *hl; /* [nranks][work_len] PC_* */
    /* geometry */
    double width;           /* of the rank rows */
    double label_w, cw;     /* label column, cell */
    double cells_x, rows_y; /* where the first cell of rank 0 is */
    double row_h;
    size_t per_line, lines;
};

static uint32_t pc_fill(const struct pd *d, const struct pcoll *c, uint32_t mask)
{
    if (mask == 0) return d->th->empty;
    if ((mask & (mask - 1)) == 0)
        return d->th->rank_fill[__builtin_ctz(mask) % PRINT_RANK_COLOURS];
    uint32_t all = c->plan.nranks >= 32 ? ~0u : (1u << c->plan.nranks) - 1;
    return (mask & all) == all ? d->th->complete : d->th->partial;
}

static uint32_t pc_rank_ink(const struct pd *d, int r)
{
    return d->th->rank_ink[r % PRINT_RANK_COLOURS];
}

static void pc_mark_xfer(const struct pcoll *c, const struct xfer *x, unsigned char bit)
{
    size_t L = c->plan.work_len;
    for (size_t i = 0; i < x->count; i++) {
        if (x->kind != XFER_SCALE && x->src_off + i < L)
            c->hl[(size_t)x->src * L + x->src_off + i] |= bit == PC_DST ? PC_SRC : bit;
        if (x->dst_off + i < L) c->hl[(size_t)x->dst * L + x->dst_off + i] |= bit;
    }
}

/* What the step reads and writes, and what the scene points at (highlight=). */
static void pc_highlights(struct pcoll *c)
{
    size_t L = c->plan.work_len;
    c->hl = xcalloc((size_t)c->plan.nranks * (L ? L : 1), 1);
    const struct step *st = c->step > 0 ? &c->plan.steps[c->step - 1] : NULL;
    for (size_t k = 0; st && k < st->n; k++)
        pc_mark_xfer(c, &c->plan.x[st->first + k], PC_DST);
    if (c->sc->hl == HL_CHUNK) {
        for (size_t k = 0; k < c->plan.nx; k++)
            if (c->plan.x[k].chunk == c->sc->hl_index)
                pc_mark_xfer(c, &c->plan.x[k], PC_POINTED);
    } else if (c->sc->hl == HL_TRANSFER && st && (size_t)c->sc->hl_index < st->n) {
        pc_mark_xfer(c, &c->plan.x[st->first + (size_t)c->sc->hl_index], PC_POINTED);
    }
}

static int pc_tag(const struct pcoll *c, int r, size_t i)
{
    const struct scene *s = c->sc;
    size_t count = scene_count(s);
    size_t in0 = coll_in_off(s->coll, s->nranks, count, r);
    size_t inn = coll_send_count(s->coll, s->nranks, count, r, c->root);
    size_t out0 = coll_out_off(s->coll, s->nranks, count, r);
    size_t outn = coll_recv_count(s->coll, s->nranks, count, r, c->root);
    return (i >= in0 && i < in0 + inn ? 1 : 0) | (i >= out0 && i < out0 + outn ? 2 : 0);
}

static double pc_header(struct pd *d, struct pcoll *c, double y, double maxw)
{
    const struct scene *s = c->sc;
    char t[400];
    int n = snprintf(t, sizeof t, "%s \u00b7 %s \u00b7 %d ranks", coll_title(s->coll),
                     algo_name(s->algo), s->nranks);
    if (coll_reduces(s->coll))
        n += snprintf(t + n, sizeof t - (size_t)n, " \u00b7 %s", redop_name(s->op));
    if (coll_is_rooted(s->coll))
        snprintf(t + n, sizeof t - (size_t)n, " \u00b7 root %d", s->root);
    y += pd_text(d, 0, y, t, 12, PD_BOLD, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL);
    if (c->step == 0)
        snprintf(t, sizeof t,
                 "step 0 of %zu \u00b7 before the first step (every rank holds its input)",
                 c->plan.nsteps);
    else
        snprintf(t, sizeof t, "step %zu of %zu \u00b7 %s", c->step, c->plan.nsteps,
                 c->plan.steps[c->step - 1].phase);
    y += pd_text(d, 0, y + 2, t, 10.5, PD_BOLD, d->th->accent, d->th->bg, maxw, PD_LEFT, NULL) +
         2;
    if (c->step > 0)
        y += pd_text(d, 0, y + 1, c->plan.steps[c->step - 1].what, 9, PD_PLAIN, d->th->dim,
                     d->th->bg, maxw, PD_LEFT, NULL) +
             1;
    return y + 8;
}

/* The cell width: the widest value of the drawn snapshot, "?" and "·" included. */
static void pc_geometry(struct pd *d, struct pcoll *c, double y)
{
    size_t L = c->plan.work_len;
    double w, h, maxw = 0;
    for (int r = 0; r < c->plan.nranks; r++) {
        const float *v = trace_buf(&c->trace, c->step, r);
        for (size_t i = 0; i < L; i++) {
            char t[32];
            text_value(t, sizeof t, v[i]);
            pd_measure(d, t, PD_VALUE_PT, PD_MONO, &w, &h);
            if (w > maxw) maxw = w;
        }
    }
    c->cw = (maxw < 12 ? 12 : maxw) + 8;
    char lab[32];
    snprintf(lab, sizeof lab, "rank %d", c->plan.nranks - 1);
    pd_measure(d, lab, 10, PD_BOLD, &w, &h);
    c->label_w = w + 10;
    c->per_line = L < PD_PER_LINE ? (L ? L : 1) : PD_PER_LINE;
    c->lines = L ? (L + c->per_line - 1) / c->per_line : 1;
    c->cells_x = c->label_w + 6;
    c->rows_y = y;
    c->row_h = (double)c->lines * (PD_CELL_H + PD_CELL_GAP) + 22;
    c->width = c->cells_x + (double)c->per_line * (c->cw + PD_CELL_GAP) + 4;
}

static void pc_cell_pos(const struct pcoll *c, int r, size_t i, double *x, double *y)
{
    *x = c->cells_x + 3 + (double)(i % c->per_line) * (c->cw + PD_CELL_GAP);
    *y = c->rows_y + (double)r * c->row_h + 4 +
         (double)(i / c->per_line) * (PD_CELL_H + PD_CELL_GAP);
}

/* A partial reduction also carries a corner mark, so it reads apart from a rank's own
 * colour without telling hues apart. */
static void pd_partial_mark(struct pd *d, double x, double y)
{
    cairo_new_path(d->cr);
    cairo_move_to(d->cr, x, y);
    cairo_line_to(d->cr, x + 6, y);
    cairo_line_to(d->cr, x, y + 6);
    cairo_close_path(d->cr);
    pd_rgb(d->cr, d->th->ink);
    cairo_fill(d->cr);
}

static void pc_cell(struct pd *d, const struct pcoll *c, int r, size_t i, bool hidden)
{
    size_t L = c->plan.work_len;
    const float *v = trace_buf(&c->trace, c->step, r);
    const uint32_t *m = trace_mask(&c->trace, c->step, r);
    unsigned char hl = c->hl[(size_t)r * L + i];
    double x, y;
    pc_cell_pos(c, r, i, &x, &y);
    uint32_t fill = hidden ? d->th->hidden : pc_fill(d, c, m[i]);
    pd_rect(d, x, y, c->cw, PD_CELL_H, fill);
    char t[32];
    if (hidden)
        snprintf(t, sizeof t, "?");
    else if (m[i] == 0)
        snprintf(t, sizeof t, "\u00b7");
    else
        text_value(t, sizeof t, v[i]);
    uint32_t ink = m[i] == 0 && !hidden ? d->th->dim : d->th->cell_ink;
    int style = PD_MONO | (!hidden && m[i] && fill == d->th->complete ? PD_BOLD : 0);
    pd_text(d, x + c->cw - 4, y + 2.5, t, PD_VALUE_PT, style, ink, fill, 0, PD_RIGHT, NULL);
    if (hidden) return;
    if (fill == d->th->partial) pd_partial_mark(d, x, y);
    if (hl & PC_DST) pd_frame(d, x + 1, y + 1, c->cw - 2, PD_CELL_H - 2, d->th->ink, 2.0);
    if ((hl & PC_SRC) && !(hl & PC_DST)) {
        cairo_set_dash(d->cr, (double[]){2.0, 1.5}, 2, 0);
        pd_frame(d, x + 1, y + 1, c->cw - 2, PD_CELL_H - 2, d->th->ink, 1.2);
        cairo_set_dash(d->cr, NULL, 0, 0);
    }
    if (hl & PC_POINTED)
        pd_frame(d, x - 1.5, y - 1.5, c->cw + 3, PD_CELL_H + 3, d->th->accent, 1.6);
}

/* The send ("in") and receive ("out") buffers under a rank's cells, as labelled rules. */
static void pc_marks(struct pd *d, const struct pcoll *c, int r)
{
    size_t L = c->plan.work_len;
    static const char *const lab[] = {"", "in", "out", "in = out"};
    size_t i = 0;
    while (i < L) {
        int tag = pc_tag(c, r, i);
        size_t j = i;
        while (j + 1 < L && pc_tag(c, r, j + 1) == tag && (j + 1) % c->per_line != 0)
            j++;
        if (tag) {
            double x0, y0, x1, y1;
            pc_cell_pos(c, r, i, &x0, &y0);
            pc_cell_pos(c, r, j, &x1, &y1);
            double yy = y0 + PD_CELL_H + 3, xe = x1 + c->cw;
            pd_rgb(d->cr, tag == 1 ? d->th->dim : d->th->ink);
            cairo_set_line_width(d->cr, 0.8);
            cairo_move_to(d->cr, x0, yy - 1.5);
            cairo_line_to(d->cr, x0, yy);
            cairo_line_to(d->cr, xe, yy);
            cairo_line_to(d->cr, xe, yy - 1.5);
            cairo_stroke(d->cr);
            pd_text(d, (x0 + xe) / 2, yy + 0.5, lab[tag], 7, PD_PLAIN,
                    tag == 1 ? d->th->dim : d->th->ink, d->th->bg, 0, PD_CENTRE, NULL);
        }
        i = j + 1;
    }
}

static void pc_ranks(struct pd *d, const struct pcoll *c)
{
    for (int r = 0; r < c->plan.nranks; r++) {
        bool hidden = (c->hidden >> r) & 1;
        bool pointed = c->sc->hl == HL_RANK && c->sc->hl_index == r;
        double y = c->rows_y + (double)r * c->row_h;
        char lab[32];
        snprintf(lab, sizeof lab, "rank %d", r);
        pd_text(d, 0, y + 5, lab, 10, PD_BOLD, pointed ? d->th->accent : pc_rank_ink(d, r),
                d->th->bg, 0, PD_LEFT, NULL);
        if (hidden)
            pd_text(d, 0, y + 18, "exercise", 7.5, PD_ITALIC, d->th->accent, d->th->bg, 0,
                    PD_LEFT, NULL);
        double bw = (double)c->per_line * (c->cw + PD_CELL_GAP) + 3;
        double bh = (double)c->lines * (PD_CELL_H + PD_CELL_GAP) + 5;
        cairo_rectangle(d->cr, c->cells_x, y + 1, bw, bh);
        pd_rgb(d->cr, pointed ? d->th->accent : d->th->dim);
        cairo_set_line_width(d->cr, pointed ? 2.0 : 0.8);
        cairo_stroke(d->cr);
        for (size_t i = 0; i < c->plan.work_len; i++)
            pc_cell(d, c, r, i, hidden);
        if (!hidden) pc_marks(d, c, r);
    }
}

/* The step's transfers as arrows in a gutter right of the boxes: from the source rank's
 * row to the destination's, one lane per transfer, coloured by the source. */
static double pc_arrows(struct pd *d, const struct pcoll *c)
{
    if (c->step == 0) return c->width;
    const struct step *st = &c->plan.steps[c->step - 1];
    double x0 = c->width + 4, lane = 0;
    for (size_t k = 0; k < st->n && lane < PD_MAX_ARROWS; k++) {
        const struct xfer *x = &c->plan.x[st->first + k];
        if (x->kind == XFER_SCALE || x->src == x->dst) continue;
        double ys = c->rows_y + (double)x->src * c->row_h + 6 + (double)(k % 3) * 3;
        double yd = c->rows_y + (double)x->dst * c->row_h + 12 - (double)(k % 3) * 3;
        double xl = x0 + 8 + lane * 7;
        pd_rgb(d->cr, pc_rank_ink(d, x->src));
        cairo_set_line_width(d->cr, 1.3);
        cairo_new_path(d->cr); /* pango leaves a current point: no line from it */
        cairo_arc(d->cr, x0 - 2, ys, 1.8, 0, 2 * M_PI);
        cairo_fill(d->cr);
        cairo_move_to(d->cr, x0 - 2, ys);
        cairo_line_to(d->cr, xl, ys);
        cairo_line_to(d->cr, xl, yd);
        cairo_line_to(d->cr, x0 + 2, yd);
        cairo_stroke(d->cr);
        cairo_move_to(d->cr, x0 - 2, yd);
        cairo_line_to(d->cr, x0 + 4, yd - 3);
        cairo_line_to(d->cr, x0 + 4, yd + 3);
        cairo_close_path(d->cr);
        cairo_fill(d->cr);
        lane++;
    }
    return x0 + 12 + lane * 7;
}

static void pc_xfer_text(const struct pcoll *c, const struct xfer *x, char *buf, size_t n)
{
    if (x->kind == XFER_SCALE) {
        snprintf(buf, n, "rank %d divides by %d (average)", x->dst, c->plan.nranks);
        return;
    }
    char what[48];
    if (x->chunk >= 0)
        snprintf(what, sizeof what, "chunk %d", x->chunk);
    else if (x->count == 1)
        snprintf(what, sizeof what, "element %zu", x->dst_off);
    else
        snprintf(what, sizeof what, "elements %zu-%zu", x->dst_off, x->dst_off + x->count - 1);
    snprintf(buf, n, "rank %d \u2192 rank %d: %s, %s", x->src, x->dst, what,
             x->kind == XFER_REDUCE ? "reduced into it" : "copied");
}

/* The step's transfers as text, in up to three columns. */
static double pc_xfer_list(struct pd *d, const struct pcoll *c, double y, double maxw)
{
    if (c->step == 0) {
        const char *t = c->plan.nsteps ? "No transfers yet." : "No transfers: one rank.";
        return y +
               pd_text(d, 0, y, t, 9, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
               6;
    }
    const struct step *st = &c->plan.steps[c->step - 1];
    y += pd_text(d, 0, y, "This step's transfers:", 9, PD_BOLD, d->th->ink, d->th->bg, 0,
                 PD_LEFT, NULL);
    size_t show = st->n < 30 ? st->n : 29;
    int cols = show > 8 ? 3 : show > 4 ? 2 : 1;
    double colw = maxw / cols;
    size_t rows = (show + (size_t)cols - 1) / (size_t)cols;
    /* a row is as tall as its tallest entry: an entry that wraps in a narrow column
     * ("rank 1 -> rank 0: chunk 0, reduced into it") pushes the next row down */
    double rowy[31] = {0};
    for (size_t k = 0; k < show; k++) {
        char t[160];
        pc_xfer_text(c, &c->plan.x[st->first + k], t, sizeof t);
        PangoLayout *l = pd_layout(d, t, 8.5, PD_PLAIN, colw - 4);
        int pw, ph;
        pango_layout_get_size(l, &pw, &ph);
        g_object_unref(l);
        double h = (double)ph / PANGO_SCALE + 1;
        size_t r = k % rows;
        if (h > rowy[r + 1]) rowy[r + 1] = h;
    }
    for (size_t r = 1; r <= rows; r++)
        rowy[r] += rowy[r - 1];
    for (size_t k = 0; k < show; k++) {
        char t[160];
        const struct xfer *x = &c->plan.x[st->first + k];
        pc_xfer_text(c, x, t, sizeof t);
        double xx = (double)(k / rows) * colw, yy = y + 2 + rowy[k % rows];
        pd_text(d, xx, yy, t, 8.5, PD_PLAIN, pc_rank_ink(d, x->src), d->th->bg, colw - 4,
                PD_LEFT, NULL);
    }
    y += 2 + rowy[rows];
    if (show < st->n) {
        char t[64];
        snprintf(t, sizeof t, "and %zu more", st->n - show);
        y += pd_text(d, 0, y, t, 8.5, PD_ITALIC, d->th->dim, d->th->bg, 0, PD_LEFT, NULL);
    }
    return y + 6;
}

/* One legend entry: a swatch (fill, optional frame style) and its words. */
static double pc_legend_item(struct pd *d, double x, double y, uint32_t fill, int frame,
                             const char *sym, const char *words)
{
    pd_rect(d, x, y, 16, 11, fill);
    if (frame == 1) pd_frame(d, x + 0.5, y + 0.5, 15, 10, d->th->ink, 1.6);
    if (frame == 2) {
        cairo_set_dash(d->cr, (double[]){2.0, 1.5}, 2, 0);
        pd_frame(d, x + 0.5, y + 0.5, 15, 10, d->th->ink, 1.0);
        cairo_set_dash(d->cr, NULL, 0, 0);
    }
    if (frame == 3) pd_frame(d, x - 1, y - 1, 18, 13, d->th->accent, 1.4);
    if (frame == 4) pd_partial_mark(d, x, y);
    if (sym)
        pd_text(d, x + 8, y + 0.5, sym, 7, PD_MONO, d->th->cell_ink, fill, 0, PD_CENTRE, NULL);
    double w;
    pd_text(d, x + 20, y, words, 8, PD_PLAIN, d->th->ink, d->th->bg, 0, PD_LEFT, &w);
    return 20 + w + 12;
}

static double pc_legend(struct pd *d, const struct pcoll *c, double y, double maxw)
{
    int W = c->plan.nranks;
    double lw;
    pd_text(d, 0, y, "Legend \u00b7 data of", 8, PD_BOLD, d->th->ink, d->th->bg, 0, PD_LEFT,
            &lw);
    double x = lw + 6;
    for (int r = 0; r < W && r < PRINT_RANK_COLOURS; r++) {
        char t[16];
        snprintf(t, sizeof t, "r%d", r);
        x += pc_legend_item(d, x, y, d->th->rank_fill[r], 0, NULL, t) - 6;
    }
    if (W > PRINT_RANK_COLOURS) {
        pd_text(d, x, y, "(colours repeat every 8 ranks)", 8, PD_ITALIC, d->th->dim, d->th->bg,
                0, PD_LEFT, &lw);
        x += lw + 8;
    }
    y += 16;
    x = 0;
    struct {
        uint32_t fill;
        int frame;
        const char *sym, *words;
        bool want;
    } it[] = {
        {d->th->partial, 4, NULL, "partial reduction", coll_reduces(c->sc->coll)},
        {d->th->complete, 0, NULL, "reduction of every rank", coll_reduces(c->sc->coll)},
        {d->th->empty, 0, "\u00b7", "no data yet", true},
        {d->th->bg, 1, NULL, "written by this step", c->step > 0},
        {d->th->bg, 2, NULL, "sent by this step", c->step > 0},
        {d->th->bg, 3, NULL, "highlighted", c->sc->hl != HL_NONE},
    };
    for (size_t k = 0; k < sizeof it / sizeof it[0]; k++) {
        if (!it[k].want) continue;
        double w, h;
        pd_measure(d, it[k].words, 8, PD_PLAIN, &w, &h);
        if (x > 0 && x + 32 + w > maxw) {
            x = 0;
            y += 15;
        }
        x += pc_legend_item(d, x, y, it[k].fill, it[k].frame, it[k].sym, it[k].words);
    }
    return y + 14;
}

static size_t pc_resolve(long step, size_t nsteps)
{
    return step < 0 || (size_t)step > nsteps ? nsteps : (size_t)step;
}

static void pc_free(struct pcoll *c)
{
    free(c->hl);
    trace_free(&c->trace);
    plan_free(&c->plan);
    for (int r = 0; r < CV_MAX_RANKS; r++)
        free(c->send[r]);
}

static int pd_collectives(struct pd *d, const struct scene *sc, const struct print_opts *o,
                          char *err, size_t errlen)
{
    struct pcoll c = {.sc = sc};
    size_t count = scene_count(sc);
    c.root = coll_is_rooted(sc->coll) ? sc->root : 0;
    int rc = scene_plan_build(sc, &c.plan, count, c.root, err, errlen);
    if (rc != CV_OK) return rc;
    for (int r = 0; r < sc->nranks; r++) {
        size_t ns = coll_send_count(sc->coll, sc->nranks, count, r, c.root);
        c.send[r] = xcalloc(ns ? ns : 1, sizeof(float));
        init_fill(sc->init, sc->coll, sc->nranks, count, c.root, sc->seed, r, c.send[r]);
    }
    rc = trace_run(&c.trace, &c.plan, c.send, err, errlen);
    if (rc != CV_OK) {
        plan_free(&c.plan);
        for (int r = 0; r < sc->nranks; r++)
            free(c.send[r]);
        return rc;
    }
    c.step = pc_resolve(sc->step, c.plan.nsteps);
    for (size_t k = 0; k < o->nasked; k++) {
        size_t s = pc_resolve(o->asked[k].step, c.plan.nsteps);
        if (c.step > s) c.step = s;
    }
    for (size_t k = 0; k < o->nasked; k++)
        if (pc_resolve(o->asked[k].step, c.plan.nsteps) == c.step && o->asked[k].rank >= 0 &&
            o->asked[k].rank < c.plan.nranks)
            c.hidden |= 1u << o->asked[k].rank;
    d->pic->step = (long)c.step;
    d->pic->nsteps = (long)c.plan.nsteps;
    pc_highlights(&c);
    pc_geometry(d, &c, 0);
    /* the header wraps to the picture's width, which the rows decide */
    double hw = c.width + 40 > 360 ? c.width + 40 : 360;
    double y = pc_header(d, &c, 0, hw);
    c.rows_y = y;
    pc_ranks(d, &c);
    double right = pc_arrows(d, &c);
    double maxw = right > hw ? right : hw;
    y = c.rows_y + (double)c.plan.nranks * c.row_h + 4;
    if (sc->slice_view)
        y += pd_text(d, 0, y,
                     "(The screen shows this scene's slice view; paper shows the chunk "
                     "view of the same plan.)",
                     8.5, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
             4;
    y = pc_xfer_list(d, &c, y, maxw);
    pc_legend(d, &c, y, maxw);
    pc_free(&c);
    return CV_OK;
}

/* ---- the parallelism and hierarchy screens: simpler pictures ------------------------ */

static double pd_note(struct pd *d, double y, double maxw)
{
    return y +
           pd_text(d, 0, y,
                   "A simplified picture for paper: the scheme's layout, not the screen's "
                   "animation.",
                   8, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
           6;
}

/* What the scheme moves (the picture's second line). */
static void pd_scheme_line(const struct scene *sc, char *t, size_t n)
{
    switch (sc->scheme) {
    case TRAIN_PP:
        snprintf(t, n, "schedule %s \u00b7 micro-batches flow stage to stage",
                 sc->schedule == PP_1F1B ? "1F1B" : "GPipe");
        break;
    case TRAIN_DDP:
        snprintf(t, n, "gradients all-reduced%s",
                 sc->overlap ? ", overlapped with the backward pass"
                             : " after the backward pass");
        break;
    case TRAIN_TP:
        snprintf(t, n, "activations exchanged inside every layer");
        break;
    case TRAIN_ZERO1:
        snprintf(t, n,
                 "gradients reduce-scattered, each rank updates its shard, weights "
                 "all-gathered");
        break;
    case TRAIN_ZERO2:
        snprintf(t, n,
                 "each layer's gradients reduce-scattered as backward makes them; "
                 "weights all-gathered");
        break;
    case TRAIN_ZERO3:
        snprintf(t, n, "each layer's weights all-gathered before its forward and backward%s",
                 sc->overlap ? ", the next one prefetched" : "");
        break;
    case TRAIN_MOE:
        snprintf(t, n,
                 "tokens sent to their experts' ranks and back: two uneven all-to-alls "
                 "per layer");
        break;
    default:
        snprintf(t, n, "one device");
    }
}

/* What rank r of W holds under the scheme (a box's lines). */
static void pd_rank_holds(const struct scene *sc, int r, int W, char *t, size_t n)
{
    switch (sc->scheme) {
    case TRAIN_TP:
        snprintf(t, n, "slice %d of %d of every\nlayer's weights\nthe whole batch", r + 1, W);
        break;
    case TRAIN_PP:
        snprintf(t, n, "stage %d of %d:\nits own layers only\nmicro-batches in turn", r + 1, W);
        break;
    case TRAIN_ZERO1:
        snprintf(t, n, "all the weights and\ngradients; AdamW state\nshard %d of %d", r + 1, W);
        break;
    case TRAIN_ZERO2:
        snprintf(t, n, "all the weights;\ngradients and AdamW\nstate: shard %d of %d", r + 1,
                 W);
        break;
    case TRAIN_ZERO3:
        snprintf(t, n,
                 "weights, gradients,\nAdamW state: shard %d\nof %d (a layer whole\n"
                 "only while in use)",
                 r + 1, W);
        break;
    case TRAIN_MOE:
        snprintf(t, n,
                 "its 1/%d of the experts\nthe dense layers and\nrouters; batch shard "
                 "%d",
                 W, r + 1);
        break;
    default:
        snprintf(t, n, "all the weights\nbatch shard %d of %d\nits own gradients", r + 1, W);
    }
}

/* One box per rank with what that rank holds under the scheme (shards per rank). */
static void pd_parallel(struct pd *d, const struct scene *sc)
{
    int W = sc->nranks;
    char t[300];
    snprintf(t, sizeof t, "%s \u00b7 %d ranks", train_scheme_title(sc->scheme), W);
    double maxw = 130.0 * W > 360 ? 130.0 * W : 360;
    double y = pd_text(d, 0, 0, t, 12, PD_BOLD, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 2;
    pd_scheme_line(sc, t, sizeof t);
    y += pd_text(d, 0, y, t, 10, PD_BOLD, d->th->accent, d->th->bg, maxw, PD_LEFT, NULL);
    y = pd_note(d, y + 2, maxw);
    double bw = 120, bh = sc->scheme == TRAIN_ZERO3 ? 74 : 64;
    for (int r = 0; r < W; r++) {
        double x = (double)r * (bw + 10);
        uint32_t fill = d->th->rank_fill[r % PRINT_RANK_COLOURS];
        pd_rect(d, x, y, bw, bh, fill);
        pd_frame(d, x, y, bw, bh, d->th->dim, 0.8);
        snprintf(t, sizeof t, "rank %d", r);
        pd_text(d, x + 6, y + 4, t, 10, PD_BOLD, d->th->cell_ink, fill, 0, PD_LEFT, NULL);
        pd_rank_holds(sc, r, W, t, sizeof t);
        pd_text(d, x + 6, y + 20, t, 8.5, PD_PLAIN, d->th->cell_ink, fill, bw - 10, PD_LEFT,
                NULL);
        if (sc->scheme == TRAIN_PP && r + 1 < W) {
            pd_rgb(d->cr, d->th->ink);
            cairo_set_line_width(d->cr, 1.3);
            cairo_move_to(d->cr, x + bw + 1, y + bh / 2);
            cairo_line_to(d->cr, x + bw + 6, y + bh / 2);
            cairo_stroke(d->cr);
            cairo_move_to(d->cr, x + bw + 9, y + bh / 2);
            cairo_line_to(d->cr, x + bw + 5, y + bh / 2 - 3);
            cairo_line_to(d->cr, x + bw + 5, y + bh / 2 + 3);
            cairo_close_path(d->cr);
            cairo_fill(d->cr);
        }
    }
}

/* The tier table: every tier with what it connects and the lecture's figure. */
static void pd_hierarchy(struct pd *d, const struct scene *sc)
{
    double maxw = 480;
    double y = pd_text(d, 0, 0, "The memory and link hierarchy, fastest first", 12, PD_BOLD,
                       d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) +
               2;
    y = pd_note(d, y, maxw);
    static const char *const head[] = {"tier", "connects", "bandwidth (lecture's figure)"};
    const double colx[] = {0, 140, 330}, colw[] = {136, 186, 150};
    for (int k = 0; k < 3; k++)
        pd_text(d, colx[k] + 4, y, head[k], 9, PD_BOLD, d->th->ink, d->th->bg, colw[k], PD_LEFT,
                NULL);
    y += 14;
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct tier *ti = tier_get((enum tier_id)t);
        const char *cell[] = {ti->name, ti->connects, ti->bw_text};
        double h = 0;
        for (int k = 0; k < 3; k++) {
            double w, hh;
            PangoLayout *l = pd_layout(d, cell[k], 8.5, PD_PLAIN, colw[k] - 6);
            int pw, ph;
            pango_layout_get_size(l, &pw, &ph);
            g_object_unref(l);
            (void)w;
            hh = (double)ph / PANGO_SCALE;
            if (hh > h) h = hh;
        }
        uint32_t fill = t % 2 ? d->th->bg : d->th->empty;
        pd_rect(d, 0, y, colx[2] + colw[2], h + 6, fill);
        for (int k = 0; k < 3; k++)
            pd_text(d, colx[k] + 4, y + 3, cell[k], 8.5, k == 0 ? PD_BOLD : PD_PLAIN,
                    d->th->cell_ink, fill, colw[k] - 6, PD_LEFT, NULL);
        y += h + 6;
    }
    (void)sc;
}

/* ---- the picture -------------------------------------------------------------------- */

/* Draw sc into cr at the picture's own coordinates; records into p (pairs, step). */
static int pd_draw(cairo_t *cr, const struct scene *sc, const struct print_opts *o,
                   struct print_pic *p, char *err, size_t errlen)
{
    struct pd d = {.cr = cr, .th = print_theme_get(o->dark), .pic = p};
    if (sc->screen == SCREEN_COLLECTIVES) return pd_collectives(&d, sc, o, err, errlen);
    if (sc->screen == SCREEN_PARALLEL)
        pd_parallel(&d, sc);
    else
        pd_hierarchy(&d, sc);
    return CV_OK;
}

/* The drawing is measured on a recording surface (its ink extents crop it) and drawn again
 * onto each target: cairo 1.16 leaks when a recording surface is painted into a PDF. */
int print_pic_build(struct print_pic *p, const struct scene *sc, const struct print_opts *o,
                    char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    int rc = scene_check(sc, err, errlen);
    if (rc != CV_OK) return rc;
    if (o)
        p->opts = *o;
    else
        print_opts_default(&p->opts);
    p->sc = *sc;
    p->bg = print_theme_get(p->opts.dark)->bg;
    p->step = p->nsteps = -1;
    cairo_surface_t *rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(rec);
    rc = pd_draw(cr, &p->sc, &p->opts, p, err, errlen);
    cairo_destroy(cr);
    double x, y, w, h;
    cairo_recording_surface_ink_extents(rec, &x, &y, &w, &h);
    cairo_surface_destroy(rec);
    if (rc != CV_OK) return rc;
    const double m = 6;
    p->x = floor(x - m);
    p->y = floor(y - m);
    p->w = ceil(w + 2 * m);
    p->h = ceil(h + 2 * m);
    p->ok = true;
    return CV_OK;
}

void print_pic_free(struct print_pic *p)
{
    p->ok = false;
}

void print_pic_paint(const struct print_pic *p, cairo_t *cr, double x, double y, double scale)
{
    if (!p->ok) return;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, scale, scale);
    cairo_rectangle(cr, 0, 0, p->w, p->h);
    pd_rgb(cr, p->bg);
    cairo_fill(cr);
    cairo_translate(cr, -p->x, -p->y);
    struct print_pic scratch = *p; /* the same drawing again: what it records is dropped */
    char err[200];
    pd_draw(cr, &p->sc, &p->opts, &scratch, err, sizeof err);
    cairo_restore(cr);
}

static int pd_finish(cairo_surface_t *s, const struct print_pic *p, double scale, char *err,
                     size_t errlen)
{
    cairo_t *cr = cairo_create(s);
    print_pic_paint(p, cr, 0, 0, scale);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    cairo_status_t st = cairo_surface_status(s);
    if (st != CAIRO_STATUS_SUCCESS)
        return cv_err(err, errlen, CV_EINVAL, "cairo: %s", cairo_status_to_string(st));
    return CV_OK;
}

static bool pd_ends(const char *s, const char *ext)
{
    size_t n = strlen(s), k = strlen(ext);
    return n >= k && strcasecmp(s + n - k, ext) == 0;
}

int print_pic_write(const struct print_pic *p, const char *path, char *err, size_t errlen)
{
    int rc;
    if (pd_ends(path, ".png")) {
        cairo_surface_t *s =
            cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(p->w * 2), (int)(p->h * 2));
        rc = pd_finish(s, p, 2.0, err, errlen);
        if (rc == CV_OK && cairo_surface_write_to_png(s, path) != CAIRO_STATUS_SUCCESS)
            rc = cv_err(err, errlen, CV_EINVAL, "cannot write %s", path);
        cairo_surface_destroy(s);
        return rc;
    }
    cairo_surface_t *s = pd_ends(path, ".pdf") ? cairo_pdf_surface_create(path, p->w, p->h)
                                               : cairo_svg_surface_create(path, p->w, p->h);
    rc = pd_finish(s, p, 1.0, err, errlen);
    cairo_surface_finish(s);
    if (rc == CV_OK && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
        rc = cv_err(err, errlen, CV_EINVAL, "cannot write %s", path);
    cairo_surface_destroy(s);
    return rc;
}

struct pd_mem {
    char *s;
    size_t n, cap;
};

static cairo_status_t pd_mem_write(void *closure, const unsigned char *data, unsigned int len)
{
    struct pd_mem *m = closure;
    VEC_GROW(m->s, m->cap, m->n + len + 1);
    memcpy(m->s + m->n, data, len);
    m->n += len;
    m->s[m->n] = '\0';
    return CAIRO_STATUS_SUCCESS;
}

int print_pic_svg(const struct print_pic *p, char **out, size_t *len, char *err, size_t errlen)
{
    struct pd_mem m = {0};
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(pd_mem_write, &m, p->w, p->h);
    int rc = pd_finish(s, p, 1.0, err, errlen);
    cairo_surface_finish(s);
    cairo_surface_destroy(s);
    if (rc != CV_OK || !m.s) {
        free(m.s);
        return rc != CV_OK ? rc : cv_err(err, errlen, CV_EINVAL, "cairo wrote no SVG");
    }
    *out = m.s;
    *len = m.n;
    return CV_OK;
}

void print_release_fonts(void)
{
    pango_cairo_font_map_set_default(NULL);
}

/* LeakSanitizer (the ASan test builds) reads this: fontconfig keeps its configuration for
 * the life of the process and frees it only in FcFini, which cannot run while cairo's font
 * caches still hold its patterns. Nothing else is suppressed. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}

/* ... and says nothing of it on standard error (a command's errors stay one line). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}
