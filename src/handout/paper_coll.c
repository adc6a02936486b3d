/* paper_coll.c - the collectives screen drawn for paper (paper.h, paper_draw.h): a row of
 * cells per rank with what it holds at the scene's step, from the scene's plan and the
 * trace engine, as the screen shows it; the step's transfers as numbered arrows in lanes
 * of their own and the same numbers in the list beneath; the legend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/init.h"
#include "core/plan.h"
#include "core/text.h"
#include "core/trace.h"
#include "core/util.h"
#include "handout/paper_draw.h"

#define PD_CELL_H 17.0
#define PD_CELL_GAP 3.0
#define PD_PER_LINE 16
#define PD_MAX_ARROWS 16 /* arrows drawn; the list numbers every transfer */
#define PD_LANE 13.0     /* between two arrows' vertical lanes: a badge fits between */

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

/* The rank whose data alone a value holds, or -1 (none, or a reduction of several). */
static int pc_owner(uint32_t mask)
{
    return mask && (mask & (mask - 1)) == 0 ? __builtin_ctz(mask) : -1;
}

static uint32_t pc_fill(const struct pd *d, const struct pcoll *c, uint32_t mask)
{
    if (mask == 0) return d->th->empty;
    if (pc_owner(mask) >= 0) return pd_rank_fill(d, pc_owner(mask));
    uint32_t all = c->plan.nranks >= 32 ? ~0u : (1u << c->plan.nranks) - 1;
    return (mask & all) == all ? d->th->complete : d->th->partial;
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

/* What the scene points at, in words ("rank 2", "chunk 1", "transfer 3"), or "". */
static void pc_pointed_words(const struct pcoll *c, char *t, size_t n)
{
    const struct scene *s = c->sc;
    if (s->hl == HL_RANK)
        snprintf(t, n, "rank %d", s->hl_index);
    else if (s->hl == HL_CHUNK)
        snprintf(t, n, "chunk %d", s->hl_index);
    else if (s->hl == HL_TRANSFER)
        snprintf(t, n, "transfer %d", s->hl_index + 1);
    else
        t[0] = '\0';
}

/* The caption: "all-reduce (avg), ring, 4 ranks, after step 3 of 6". */
static void pc_caption(const struct pcoll *c, char *t, size_t n)
{
    const struct scene *s = c->sc;
    int o = snprintf(t, n, "%s", coll_title(s->coll));
    if (coll_reduces(s->coll) && s->op != OP_SUM)
        o += snprintf(t + o, n - (size_t)o, " (%s)", redop_name(s->op));
    o += snprintf(t + o, n - (size_t)o, ", %s, %d rank%s", algo_name(s->algo), s->nranks,
                  s->nranks == 1 ? "" : "s");
    if (coll_is_rooted(s->coll)) o += snprintf(t + o, n - (size_t)o, ", root %d", s->root);
    if (c->plan.nsteps == 0)
        o += snprintf(t + o, n - (size_t)o, ", no steps");
    else if (c->step == 0)
        o += snprintf(t + o, n - (size_t)o, ", before the first of %zu steps", c->plan.nsteps);
    else
        o += snprintf(t + o, n - (size_t)o, ", after step %zu of %zu", c->step, c->plan.nsteps);
    for (int r = 0; r < c->plan.nranks && o > 0 && (size_t)o < n; r++)
        if ((c->hidden >> r) & 1)
            o += snprintf(t + o, n - (size_t)o, ", rank %d hidden (the exercise asks for it)",
                          r);
    char pointed[48];
    pc_pointed_words(c, pointed, sizeof pointed);
    if (pointed[0] && o > 0 && (size_t)o < n)
        snprintf(t + o, n - (size_t)o, ", %s highlighted", pointed);
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
    char pointed[48];
    pc_pointed_words(c, pointed, sizeof pointed);
    if (pointed[0]) {
        snprintf(t, sizeof t, "%s look at %s", PD_MARK, pointed);
        y +=
            pd_text(d, 0, y + 2, t, 9, PD_BOLD, d->th->accent, d->th->bg, maxw, PD_LEFT, NULL) +
            2;
        d->pic->elems |= PE_HIGHLIGHT;
    }
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
    snprintf(lab, sizeof lab, "%s rank %d", PD_MARK, c->plan.nranks - 1);
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

/* The outlines of a cell: written by this step (heavy, on the cell's edge so it shows on a
 * dark fill too), read by it (dashed), pointed at by the scene (heaviest, outside, in the
 * accent colour, with the marker's triangle in its corner). */
static void pc_cell_frames(struct pd *d, const struct pcoll *c, double x, double y,
                           unsigned char hl)
{
    if (hl & PC_DST) pd_frame(d, x, y, c->cw, PD_CELL_H, d->th->ink, 2.0);
    if ((hl & PC_SRC) && !(hl & PC_DST)) {
        cairo_set_dash(d->cr, (double[]){2.0, 1.5}, 2, 0);
        pd_frame(d, x, y, c->cw, PD_CELL_H, d->th->ink, 1.2);
        cairo_set_dash(d->cr, NULL, 0, 0);
    }
    if (hl & PC_POINTED) {
        double m = 1.0 + PD_HL_WIDTH / 2;
        pd_frame(d, x - m, y - m, c->cw + 2 * m, PD_CELL_H + 2 * m, d->th->accent, PD_HL_WIDTH);
        cairo_new_path(d->cr);
        cairo_move_to(d->cr, x + c->cw + m + 1, y - m - 1);
        cairo_line_to(d->cr, x + c->cw + m + 1, y + 5);
        cairo_line_to(d->cr, x + c->cw - 5, y - m - 1);
        cairo_close_path(d->cr);
        pd_rgb(d->cr, d->th->accent);
        cairo_fill(d->cr);
        d->pic->elems |= PE_HIGHLIGHT;
    }
}

static void pc_cell(struct pd *d, const struct pcoll *c, int r, size_t i, bool hidden)
{
    size_t L = c->plan.work_len;
    const float *v = trace_buf(&c->trace, c->step, r);
    const uint32_t *m = trace_mask(&c->trace, c->step, r);
    unsigned char hl = c->hl[(size_t)r * L + i];
    double x, y;
    pc_cell_pos(c, r, i, &x, &y);
    int owner = hidden ? -1 : pc_owner(m[i]);
    uint32_t fill = hidden ? d->th->hidden : pc_fill(d, c, m[i]);
    uint32_t ink = d->th->cell_ink;
    if (owner >= 0) {
        pd_rank_cell(d, x, y, c->cw, PD_CELL_H, owner);
        ink = pd_rank_text(d, owner);
        pd_rank_pairs(d, owner, ink);
    } else {
        pd_rect(d, x, y, c->cw, PD_CELL_H, fill);
        if (m[i] == 0 && !hidden) ink = d->th->dim;
    }
    char t[32];
    if (hidden)
        snprintf(t, sizeof t, "?");
    else if (m[i] == 0)
        snprintf(t, sizeof t, "\u00b7");
    else
        text_value(t, sizeof t, v[i]);
    int style = PD_MONO | (!hidden && m[i] && fill == d->th->complete ? PD_BOLD : 0);
    pd_text(d, x + c->cw - 4, y + 2.5, t, PD_VALUE_PT, style, ink, fill, 0, PD_RIGHT, NULL);
    if (hidden) return;
    if (m[i]) d->pic->elems |= PE_VALUES;
    if (fill == d->th->partial) pd_partial_mark(d, x, y);
    pc_cell_frames(d, c, x, y, hl);
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
            pd_text(d, (x0 + xe) / 2, yy + 0.5, lab[tag], 8.5, PD_PLAIN,
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
        char lab[48];
        snprintf(lab, sizeof lab, "%s%srank %d", pointed ? PD_MARK : "", pointed ? " " : "", r);
        pd_text(d, 0, y + 5, lab, 10, PD_BOLD, pointed ? d->th->accent : pd_rank_ink(d, r),
                d->th->bg, 0, PD_LEFT, NULL);
        if (hidden)
            pd_text(d, 0, y + 18, "exercise", 8.5, PD_ITALIC, d->th->accent, d->th->bg, 0,
                    PD_LEFT, NULL);
        double bw = (double)c->per_line * (c->cw + PD_CELL_GAP) + 3;
        double bh = (double)c->lines * (PD_CELL_H + PD_CELL_GAP) + 5;
        cairo_rectangle(d->cr, c->cells_x, y + 1, bw, bh);
        pd_rgb(d->cr, pointed ? d->th->accent : d->th->dim);
        cairo_set_line_width(d->cr, pointed ? PD_HL_WIDTH : 0.8);
        cairo_stroke(d->cr);
        if (pointed) d->pic->elems |= PE_HIGHLIGHT;
        for (size_t i = 0; i < c->plan.work_len; i++)
            pc_cell(d, c, r, i, hidden);
        if (!hidden) pc_marks(d, c, r);
    }
    d->pic->elems |= PE_RANK_BOXES;
}

/* The arrows of the step: which transfers get one (not a rank's own scaling, not to
 * itself), at most PD_MAX_ARROWS. */
static bool pc_arrowed(const struct xfer *x)
{
    return x->kind != XFER_SCALE && x->src != x->dst;
}

/* The y of the k-th of n stubs of a rank's row: every arrow that leaves or enters the row
 * has a height of its own, so no two horizontal segments lie on each other. */
static double pc_stub_y(const struct pcoll *c, int r, int k, int n)
{
    double top = c->rows_y + (double)r * c->row_h + 4, room = c->row_h - 10;
    double gap = n > 1 ? room / (n - 1) : 0;
    if (gap > 3.2) gap = 3.2;
    return top + k * gap;
}

/* The step's transfers as arrows in a gutter right of the boxes: from the source rank's
 * row to the destination's, each in a vertical lane of its own, with its number (the
 * list's) on the lane, the source rank's colour and dash; the one the scene points at
 * heavier and in the accent colour. Returns the picture's right edge. */
static double pc_arrows(struct pd *d, const struct pcoll *c)
{
    if (c->step == 0) return c->width;
    const struct step *st = &c->plan.steps[c->step - 1];
    int nstub[CV_MAX_RANKS] = {0}, used[CV_MAX_RANKS] = {0}, drawn = 0;
    for (size_t k = 0; k < st->n && drawn < PD_MAX_ARROWS; k++) {
        const struct xfer *x = &c->plan.x[st->first + k];
        if (!pc_arrowed(x)) continue;
        nstub[x->src]++;
        nstub[x->dst]++;
        drawn++;
    }
    double x0 = c->width + 4;
    int lane = 0;
    for (size_t k = 0; k < st->n && lane < drawn; k++) {
        const struct xfer *x = &c->plan.x[st->first + k];
        if (!pc_arrowed(x)) continue;
        bool pointed = c->sc->hl == HL_TRANSFER && (size_t)c->sc->hl_index == k;
        double ys = pc_stub_y(c, x->src, used[x->src]++, nstub[x->src]);
        double yd = pc_stub_y(c, x->dst, used[x->dst]++, nstub[x->dst]);
        double xl = x0 + 10 + lane * PD_LANE;
        uint32_t ink = pointed ? d->th->accent : pd_rank_ink(d, x->src);
        pd_rgb(d->cr, ink);
        cairo_new_path(d->cr); /* pango leaves a current point: no line from it */
        cairo_arc(d->cr, x0 - 2, ys, 1.8, 0, 2 * M_PI);
        cairo_fill(d->cr);
        cairo_set_line_width(d->cr, pointed ? PD_HL_WIDTH : 1.2);
        pd_rank_dash(d, x->src);
        cairo_move_to(d->cr, x0 - 2, ys);
        cairo_line_to(d->cr, xl, ys);
        cairo_line_to(d->cr, xl, yd);
        cairo_line_to(d->cr, x0 + 4, yd);
        cairo_stroke(d->cr);
        cairo_set_dash(d->cr, NULL, 0, 0);
        pd_head(d, x0 - 1, yd, -1, 0, ink);
        pd_badge(d, xl, (ys + yd) / 2, (int)k + 1, ink);
        lane++;
    }
    if (lane) d->pic->elems |= PE_ARROWS;
    return x0 + 10 + lane * PD_LANE + 4;
}

static void pc_xfer_text(const struct pcoll *c, size_t k, const struct xfer *x, char *buf,
                         size_t n)
{
    bool pointed = c->sc->hl == HL_TRANSFER && (size_t)c->sc->hl_index == k;
    int o = snprintf(buf, n, "%s%zu  ", pointed ? PD_MARK " " : "", k + 1);
    if (x->kind == XFER_SCALE) {
        snprintf(buf + o, n - (size_t)o, "rank %d divides by %d (average)", x->dst,
                 c->plan.nranks);
        return;
    }
    char what[48];
    if (x->chunk >= 0)
        snprintf(what, sizeof what, "chunk %d", x->chunk);
    else if (x->count == 1)
        snprintf(what, sizeof what, "element %zu", x->dst_off);
    else
        snprintf(what, sizeof what, "elements %zu-%zu", x->dst_off, x->dst_off + x->count - 1);
    snprintf(buf + o, n - (size_t)o, "rank %d \u2192 rank %d: %s, %s", x->src, x->dst, what,
             x->kind == XFER_REDUCE ? "reduced into it" : "copied");
}

/* The step's transfers as text, numbered as their arrows, in up to three columns. */
static double pc_xfer_list(struct pd *d, const struct pcoll *c, double y, double maxw)
{
    if (c->step == 0) {
        const char *t = c->plan.nsteps ? "No transfers yet." : "No transfers: one rank.";
        return y +
               pd_text(d, 0, y, t, 9, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
               6;
    }
    const struct step *st = &c->plan.steps[c->step - 1];
    size_t arrowed = 0;
    for (size_t k = 0; k < st->n; k++)
        arrowed += pc_arrowed(&c->plan.x[st->first + k]);
    char head[120];
    if (arrowed > PD_MAX_ARROWS)
        snprintf(head, sizeof head,
                 "This step's transfers (numbered as their arrows; arrows for the first %d):",
                 PD_MAX_ARROWS);
    else
        snprintf(head, sizeof head, "This step's transfers (the numbers on the arrows):");
    y += pd_text(d, 0, y, head, 9, PD_BOLD, d->th->ink, d->th->bg, 0, PD_LEFT, NULL);
    size_t show = st->n < 30 ? st->n : 29;
    int cols = show > 8 ? 3 : show > 4 ? 2 : 1;
    double colw = maxw / cols;
    size_t rows = (show + (size_t)cols - 1) / (size_t)cols;
    /* a row is as tall as its tallest entry: an entry that wraps in a narrow column
     * ("rank 1 -> rank 0: chunk 0, reduced into it") pushes the next row down */
    double rowy[31] = {0};
    for (size_t k = 0; k < show; k++) {
        char t[160];
        pc_xfer_text(c, k, &c->plan.x[st->first + k], t, sizeof t);
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
        pc_xfer_text(c, k, x, t, sizeof t);
        bool pointed = c->sc->hl == HL_TRANSFER && (size_t)c->sc->hl_index == k;
        double xx = (double)(k / rows) * colw, yy = y + 2 + rowy[k % rows];
        pd_text(d, xx, yy, t, 8.5, pointed ? PD_BOLD : PD_PLAIN,
                pointed ? d->th->accent : pd_rank_ink(d, x->src), d->th->bg, colw - 4, PD_LEFT,
                NULL);
    }
    y += 2 + rowy[rows];
    if (show < st->n) {
        char t[64];
        snprintf(t, sizeof t, "and %zu more", st->n - show);
        y += pd_text(d, 0, y, t, 8.5, PD_ITALIC, d->th->dim, d->th->bg, 0, PD_LEFT, NULL);
    }
    d->pic->elems |= PE_XFER_LIST;
    return y + 6;
}

/* One legend entry: a swatch (fill, optional frame style) and its words. */
static double pc_legend_item(struct pd *d, double x, double y, uint32_t fill, int frame,
                             const char *sym, const char *words)
{
    pd_rect(d, x, y, 16, 11, fill);
    if (frame == 1) pd_frame(d, x, y, 16, 11, d->th->ink, 2.0);
    if (frame == 2) {
        cairo_set_dash(d->cr, (double[]){2.0, 1.5}, 2, 0);
        pd_frame(d, x, y, 16, 11, d->th->ink, 1.2);
        cairo_set_dash(d->cr, NULL, 0, 0);
    }
    if (frame == 3) pd_frame(d, x - 1.5, y - 1.5, 19, 14, d->th->accent, PD_HL_WIDTH);
    if (frame == 4) pd_partial_mark(d, x, y);
    if (sym) {
        uint32_t ink = frame == 3 ? d->th->accent : d->th->dim;
        pd_text(d, x + 8, y - 1, sym, 8.5, frame == 3 ? PD_BOLD : PD_MONO, ink, fill, 0,
                PD_CENTRE, NULL);
    }
    double w;
    pd_text(d, x + 22, y, words, 8.5, PD_PLAIN, d->th->ink, d->th->bg, 0, PD_LEFT, &w);
    return 22 + w + 12;
}

static double pc_legend(struct pd *d, const struct pcoll *c, double y, double maxw)
{
    y = pd_rank_legend(d, y, c->plan.nranks, maxw, "Legend \u00b7 data of", "r");
    double x = 0;
    struct {
        uint32_t fill;
        int frame;
        const char *sym, *words;
        bool want;
    } it[] = {
        {d->th->partial, 4, NULL, "partial reduction", coll_reduces(c->sc->coll)},
        {d->th->complete, 0, NULL, "reduction of every rank (bold)", coll_reduces(c->sc->coll)},
        {d->th->empty, 0, "\u00b7", "no data yet", true},
        {d->th->bg, 1, NULL, "written by this step", c->step > 0},
        {d->th->bg, 2, NULL, "sent by this step", c->step > 0},
        {d->th->bg, 3, PD_MARK, "highlighted", c->sc->hl != HL_NONE},
    };
    for (size_t k = 0; k < sizeof it / sizeof it[0]; k++) {
        if (!it[k].want) continue;
        double w, h;
        pd_measure(d, it[k].words, 8.5, PD_PLAIN, &w, &h);
        if (x > 0 && x + 34 + w > maxw) {
            x = 0;
            y += 16;
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

/* The scene's plan run by the trace engine on its inputs; the step drawn (never past a
 * step an exercise asks about) and the ranks hidden for it. */
static int pc_run(struct pcoll *c, const struct print_opts *o, char *err, size_t errlen)
{
    const struct scene *sc = c->sc;
    size_t count = scene_count(sc);
    c->root = coll_is_rooted(sc->coll) ? sc->root : 0;
    int rc = scene_plan_build(sc, &c->plan, count, c->root, err, errlen);
    if (rc != CV_OK) return rc;
    for (int r = 0; r < sc->nranks; r++) {
        size_t ns = coll_send_count(sc->coll, sc->nranks, count, r, c->root);
        c->send[r] = xcalloc(ns ? ns : 1, sizeof(float));
        init_fill(sc->init, sc->coll, sc->nranks, count, c->root, sc->seed, r, c->send[r]);
    }
    rc = trace_run(&c->trace, &c->plan, c->send, err, errlen);
    if (rc != CV_OK) return rc;
    c->step = pc_resolve(sc->step, c->plan.nsteps);
    for (size_t k = 0; k < o->nasked; k++) {
        size_t s = pc_resolve(o->asked[k].step, c->plan.nsteps);
        if (c->step > s) c->step = s;
    }
    for (size_t k = 0; k < o->nasked; k++)
        if (pc_resolve(o->asked[k].step, c->plan.nsteps) == c->step && o->asked[k].rank >= 0 &&
            o->asked[k].rank < c->plan.nranks)
            c->hidden |= 1u << o->asked[k].rank;
    return CV_OK;
}

int pd_collectives(struct pd *d, const struct scene *sc, const struct print_opts *o, char *err,
                   size_t errlen)
{
    struct pcoll c = {.sc = sc};
    int rc = pc_run(&c, o, err, errlen);
    if (rc != CV_OK) {
        pc_free(&c);
        return rc;
    }
    d->pic->step = (long)c.step;
    d->pic->nsteps = (long)c.plan.nsteps;
    pc_caption(&c, d->pic->caption, sizeof d->pic->caption);
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
