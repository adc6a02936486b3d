/* paper_par.c - the parallelism screen drawn for paper (paper.h, paper_draw.h), from the
 * same data the screen draws (scene/par_view.h: a real display-scale training step cut into
 * frames; scene/par_sched.h: the pipeline's ideal schedule; scene/par_moe.h: the MoE step's
 * routing), at the scene's step, with the screen's labels and numbers:
 *   - every scheme: a box per rank (pipeline: stage) labelled as the screen labels it
 *     ("rank 0 · rows 0-1 · shard 0 of 4"), with the matrices it holds in the frame, a
 *     collective's working buffer filled by whose data each value holds; the frame's
 *     transfers (or pipeline messages) as numbered arrows over the boxes, and their list;
 *   - pp: the schedule as a Gantt chart (forward and backward of each micro-batch, the idle
 *     cells of the bubble hatched, the frame's tick marked) with the bubble's fraction, for
 *     the scene's schedule and, for comparison, the other;
 *   - zero: what each rank keeps of the weights, the gradients and the AdamW state, whole
 *     or as its shard, from the trainer's memory model;
 *   - moe: tokens per expert per rank, the all-to-all's uneven blocks with their counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "handout/paper_draw.h"
#include "parallel/train.h"
#include "scene/par_moe.h"
#include "scene/par_view.h"

#define PP_CELL_H 13.0
#define PP_LANE 13.0
#define PP_BOX_PAD 6.0
#define PP_BOX_GAP 10.0

struct ppar {
    const struct scene *sc;
    struct par_view v;
    int f, W;
    double cw;                    /* a value's cell */
    double bx[PAR_MAX_RANKS], bw; /* boxes: left edges, width */
    double inner;                 /* the width a box's matrices flow in */
    double by, bh;                /* their top and height */
    int narrows;                  /* transfers or messages drawn as arrows */
};

/* ---- the header -------------------------------------------------------------------- */

static void pp_config_words(const struct ppar *p, char *t, size_t n)
{
    const struct train_config *c = &p->v.cfg;
    if (c->scheme == TRAIN_PP)
        snprintf(t, n, " \u00b7 M=%d \u00b7 %s", c->microbatches,
                 c->schedule == PP_1F1B ? "1F1B" : "GPipe");
    else if (c->scheme == TRAIN_DDP && c->overlap)
        snprintf(t, n, " \u00b7 overlap on");
    else if (c->scheme == TRAIN_ZERO3 && c->prefetch)
        snprintf(t, n, " \u00b7 prefetch on");
    else
        t[0] = '\0';
}

/* "data parallel (DDP), 4 ranks, frame 14 of 23: all-reduce dW0 7/7" */
static void pp_caption(const struct ppar *p, char *t, size_t n)
{
    const struct train_config *c = &p->v.cfg;
    char title[96];
    par_frame_title(&p->v, p->f, title, sizeof title);
    int o = snprintf(t, n, "%s", train_scheme_title(c->scheme));
    if (c->scheme == TRAIN_PP)
        o += snprintf(t + o, n - (size_t)o, ", %s, %d stages, %d micro-batches",
                      c->schedule == PP_1F1B ? "1F1B" : "GPipe", c->nranks, c->microbatches);
    else
        o += snprintf(t + o, n - (size_t)o, ", %d ranks", c->nranks);
    if (c->overlap) o += snprintf(t + o, n - (size_t)o, ", overlap on");
    if (c->prefetch) o += snprintf(t + o, n - (size_t)o, ", prefetch on");
    o += snprintf(t + o, n - (size_t)o, ", frame %d of %d: %s", p->f + 1, p->v.nframes, title);
    if (p->sc->hl == HL_RANK && o > 0 && (size_t)o < n)
        snprintf(t + o, n - (size_t)o, ", %s %d highlighted",
                 c->scheme == TRAIN_PP ? "stage" : "rank", p->sc->hl_index);
}

static double pp_header(struct pd *d, struct ppar *p, double maxw)
{
    const struct train_config *c = &p->v.cfg;
    char t[400], extra[64], title[96];
    pp_config_words(p, extra, sizeof extra);
    snprintf(t, sizeof t, "%s \u00b7 %d %s \u00b7 display scale L=%d D=%d B=%d%s",
             train_scheme_title(c->scheme), c->nranks,
             c->scheme == TRAIN_PP ? "stages" : "ranks", c->layers, c->dim, c->batch, extra);
    double y = pd_text(d, 0, 0, t, 12, PD_BOLD, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL);
    par_frame_title(&p->v, p->f, title, sizeof title);
    snprintf(t, sizeof t, "frame %d of %d \u00b7 %s", p->f + 1, p->v.nframes, title);
    double dev = par_frame_dev(&p->v, p->f);
    if (dev >= 0 && dev <= PAR_DEV_TOL)
        snprintf(t + strlen(t), sizeof t - strlen(t), " \u00b7 \u2713 = one device");
    y += pd_text(d, 0, y + 2, t, 10.5, PD_BOLD, d->th->accent, d->th->bg, maxw, PD_LEFT, NULL) +
         2;
    char what[800];
    par_frame_text(&p->v, p->f, what, sizeof what);
    y +=
        pd_text(d, 0, y + 1, what, 9, PD_PLAIN, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) + 1;
    if (p->sc->hl == HL_RANK) {
        snprintf(t, sizeof t, "%s look at %s %d", PD_MARK,
                 c->scheme == TRAIN_PP ? "stage" : "rank", p->sc->hl_index);
        y +=
            pd_text(d, 0, y + 2, t, 9, PD_BOLD, d->th->accent, d->th->bg, maxw, PD_LEFT, NULL) +
            2;
    }
    return y + 6;
}

/* ---- matrices ---------------------------------------------------------------------- */

static double pp_mat_h(const struct par_cells *c)
{
    return 12 + 11 + c->rows * PP_CELL_H + (c->mark && c->mark_c1 > c->mark_c0 ? 13 : 0) + 6;
}

/* The cell width of every matrix of the frame: the widest value, at least "-99". */
static void pp_measure(struct pd *d, struct ppar *p)
{
    double w, h, most;
    pd_measure(d, "-99", PD_VALUE_PT, PD_MONO, &most, &h);
    for (int r = 0; r < p->W; r++) {
        struct par_cells c[PROBE_MAX_MATS];
        bool idle;
        int n = par_frame_cells(&p->v, p->f, r, false, c, PROBE_MAX_MATS, &idle);
        for (int k = 0; k < n; k++)
            for (int i = 0; i < c[k].rows * c[k].cols; i++) {
                char t[24];
                par_cell_text(c[k].v[i], c[k].exp, t, sizeof t);
                pd_measure(d, t, PD_VALUE_PT, PD_MONO, &w, &h);
                if (w > most) most = w;
            }
    }
    p->cw = most + 6;
}

static void pp_cell(struct pd *d, const struct ppar *p, const struct par_cells *c, int k,
                    double x, double y, bool idle)
{
    char t[24];
    uint32_t ink = idle ? d->th->dim : d->th->cell_ink, fill = d->th->bg;
    int owner = -1;
    if (c->masked && c->mask[k] == 0) {
        fill = d->th->empty;
        ink = d->th->dim;
        snprintf(t, sizeof t, "\u00b7");
    } else {
        par_cell_text(c->v[k], c->exp, t, sizeof t);
        if (c->masked) {
            uint32_t m = c->mask[k], all = (1u << p->W) - 1;
            owner = (m & (m - 1)) == 0 ? __builtin_ctz(m) : -1;
            fill = owner >= 0         ? pd_rank_fill(d, owner)
                   : (m & all) == all ? d->th->complete
                                      : d->th->partial;
        }
    }
    if (owner >= 0) {
        pd_rank_cell(d, x, y, p->cw, PP_CELL_H, owner);
        ink = pd_rank_text(d, owner);
        pd_rank_pairs(d, owner, ink);
    } else {
        pd_rect(d, x, y, p->cw, PP_CELL_H, fill);
        if (!c->masked) pd_frame(d, x, y, p->cw, PP_CELL_H, d->th->empty, 0.6);
    }
    int style = PD_MONO | (c->masked && fill == d->th->complete ? PD_BOLD : 0);
    pd_text(d, x + p->cw - 3, y + 0.5, t, PD_VALUE_PT, style, ink, fill, 0, PD_RIGHT, NULL);
    if (c->masked && fill == d->th->partial) pd_partial_mark(d, x, y);
    if (c->masked && (c->hl[k] & PAR_HL_DST))
        pd_frame(d, x, y, p->cw, PP_CELL_H, d->th->ink, 2);
    else if (c->masked && (c->hl[k] & PAR_HL_SRC)) {
        cairo_set_dash(d->cr, (double[]){2.0, 1.5}, 2, 0);
        pd_frame(d, x, y, p->cw, PP_CELL_H, d->th->ink, 1.2);
        cairo_set_dash(d->cr, NULL, 0, 0);
    }
}

/* One matrix at (x, y): its name with the one-device check, shape and scale, the values,
 * the rank's own piece marked under them ("in", "out"). Returns its height. */
static double pp_matrix(struct pd *d, const struct ppar *p, const struct par_cells *c, double x,
                        double y, bool idle)
{
    char name[64], shape[64];
    par_cells_head(c, true, name, sizeof name, shape, sizeof shape);
    pd_text(d, x, y, name, 8.5, PD_BOLD, idle ? d->th->dim : d->th->ink, d->th->bg, 0, PD_LEFT,
            NULL);
    pd_text(d, x, y + 11, shape, 8.5, PD_PLAIN, d->th->dim, d->th->bg, 0, PD_LEFT, NULL);
    double top = y + 23;
    for (int i = 0; i < c->rows; i++)
        for (int j = 0; j < c->cols; j++)
            pp_cell(d, p, c, i * c->cols + j, x + j * p->cw, top + i * PP_CELL_H, idle);
    if (c->mark && c->mark_c1 > c->mark_c0) {
        double x0 = x + c->mark_c0 * p->cw, x1 = x + c->mark_c1 * p->cw;
        double yy = top + c->rows * PP_CELL_H + 2;
        pd_rgb(d->cr, d->th->ink);
        cairo_set_line_width(d->cr, 0.8);
        cairo_new_path(d->cr);
        cairo_move_to(d->cr, x0 + 1, yy - 1.5);
        cairo_line_to(d->cr, x0 + 1, yy);
        cairo_line_to(d->cr, x1 - 1, yy);
        cairo_line_to(d->cr, x1 - 1, yy - 1.5);
        cairo_stroke(d->cr);
        pd_text(d, (x0 + x1) / 2, yy, c->mark, 8.5, PD_PLAIN, d->th->ink, d->th->bg, 0,
                PD_CENTRE, NULL);
    }
    d->pic->elems |= PE_MATRICES | PE_VALUES;
    return pp_mat_h(c);
}

/* ---- rank boxes -------------------------------------------------------------------- */

/* Rank r's label: the longest of the screen's forms that fits `room` points (the screen
 * picks the longest that fits its box the same way), the marker first when pointed at. */
static void pp_label(struct pd *d, const struct ppar *p, int r, bool idle, double room,
                     char *buf, size_t n)
{
    char forms[PAR_LABEL_FORMS][96];
    int nf = par_rank_label_forms(&p->v, p->f, r, idle, " \u00b7 ", forms);
    bool pointed = p->sc->hl == HL_RANK && p->sc->hl_index == r;
    int k = 0;
    for (; k < nf - 1; k++) {
        char t[128];
        double w, h;
        snprintf(t, sizeof t, "%s%s%.95s", pointed ? PD_MARK : "", pointed ? " " : "",
                 forms[k]);
        pd_measure(d, t, 8.5, PD_BOLD, &w, &h);
        if (w <= room) break;
    }
    snprintf(buf, n, "%s%s%.95s", pointed ? PD_MARK : "", pointed ? " " : "", forms[k]);
}

/* A matrix's width: its columns, or its shape line when that is wider. */
static double pp_mat_w(struct pd *d, const struct ppar *p, const struct par_cells *c)
{
    double w = c->cols * p->cw, nw, nh;
    char name[64], shape[64];
    par_cells_head(c, true, name, sizeof name, shape, sizeof shape);
    pd_measure(d, shape, 8.5, PD_PLAIN, &nw, &nh);
    return nw > w ? nw : w;
}

/* Where each matrix of a box goes: left to right, a new row when the next would pass
 * `inner` (the screen's boxes flow the same way). xs, ys from the box's content corner;
 * returns the height used, *wout the width. */
static double pp_flow(struct pd *d, const struct ppar *p, const struct par_cells *c, int n,
                      double inner, double *xs, double *ys, double *wout)
{
    double x = 0, y = 0, rowh = 0, w = 0;
    for (int k = 0; k < n; k++) {
        double mw = pp_mat_w(d, p, &c[k]), mh = pp_mat_h(&c[k]);
        if (x > 0 && x + mw > inner) {
            y += rowh;
            x = rowh = 0;
        }
        xs[k] = x;
        ys[k] = y;
        if (x + mw > w) w = x + mw;
        x += mw + 10;
        if (mh > rowh) rowh = mh;
    }
    if (wout) *wout = w;
    return y + rowh;
}

/* The boxes' geometry: the row of W boxes about PP_ROW_W wide, each at least as wide as
 * its widest matrix (and PP_LABEL_ROOM for the label), its matrices flowed in it; as tall
 * as the tallest. */
#define PP_LABEL_ROOM 100.0
#define PP_ROW_W 470.0
static void pp_box_geometry(struct pd *d, struct ppar *p, double y)
{
    double inner = (PP_ROW_W - (p->W - 1) * PP_BOX_GAP) / p->W - 2 * PP_BOX_PAD;
    double w = PP_LABEL_ROOM, h = 0;
    for (int r = 0; r < p->W; r++) {
        struct par_cells c[PROBE_MAX_MATS];
        double xs[PROBE_MAX_MATS], ys[PROBE_MAX_MATS], fw;
        bool idle;
        int n = par_frame_cells(&p->v, p->f, r, false, c, PROBE_MAX_MATS, &idle);
        double mh = pp_flow(d, p, c, n, inner, xs, ys, &fw);
        if (fw > w) w = fw;
        if (mh > h) h = mh;
    }
    p->inner = w;
    p->bw = w + 2 * PP_BOX_PAD;
    p->bh = h + 18 + PP_BOX_PAD;
    p->by = y;
    for (int r = 0; r < p->W; r++)
        p->bx[r] = r * (p->bw + PP_BOX_GAP);
}

static void pp_boxes(struct pd *d, const struct ppar *p)
{
    for (int r = 0; r < p->W; r++) {
        struct par_cells c[PROBE_MAX_MATS];
        bool idle;
        int n = par_frame_cells(&p->v, p->f, r, false, c, PROBE_MAX_MATS, &idle);
        bool pointed = p->sc->hl == HL_RANK && p->sc->hl_index == r;
        bool hot = par_frame_rank_hot(&p->v, p->f, r, idle);
        double x = p->bx[r], y = p->by;
        if (idle) cairo_set_dash(d->cr, (double[]){3.0, 2.0}, 2, 0);
        pd_frame(d, x, y, p->bw, p->bh,
                 pointed ? d->th->accent
                 : hot   ? d->th->ink
                         : d->th->dim,
                 pointed ? PD_HL_WIDTH
                 : hot   ? 1.4
                         : 0.8);
        cairo_set_dash(d->cr, NULL, 0, 0);
        if (pointed) d->pic->elems |= PE_HIGHLIGHT;
        pd_rank_cell(d, x + PP_BOX_PAD, y + 5, 10, 10, r);
        pd_frame(d, x + PP_BOX_PAD, y + 5, 10, 10, d->th->dim, 0.5);
        char label[128];
        pp_label(d, p, r, idle, p->bw - 2 * PP_BOX_PAD - 14, label, sizeof label);
        pd_text(d, x + PP_BOX_PAD + 14, y + 4, label, 8.5, PD_BOLD,
                pointed ? d->th->accent : pd_rank_ink(d, r), d->th->bg, 0, PD_LEFT, NULL);
        double xs[PROBE_MAX_MATS], ys[PROBE_MAX_MATS];
        pp_flow(d, p, c, n, p->inner, xs, ys, NULL);
        for (int k = 0; k < n; k++)
            pp_matrix(d, p, &c[k], x + PP_BOX_PAD + xs[k], y + 20 + ys[k], idle);
        if (n == 0)
            pd_text(d, x + PP_BOX_PAD, y + 20, idle ? "idle" : "nothing yet", 8.5, PD_ITALIC,
                    d->th->dim, d->th->bg, 0, PD_LEFT, NULL);
    }
    d->pic->elems |= PE_RANK_BOXES;
}

/* ---- transfers and messages -------------------------------------------------------- */

struct pp_arrow {
    int from, to;
    char text[96];
};

/* The frame's transfers (a collective's plan step) or pipeline messages, in the screen's
 * words ("r0 → r1 chunk 2 (+)", "s0 → s1 x1 mb0"). */
static int pp_arrow_list(const struct ppar *p, struct pp_arrow *a, int max)
{
    const struct par_tick *t = par_frame_tick(&p->v, p->f);
    const struct step *st = par_frame_step(&p->v, p->f);
    int n = 0;
    if (t && t->coll && st) {
        for (size_t k = 0; k < st->n && n < max; k++) {
            const struct xfer *x = &t->plan.x[st->first + k];
            struct pp_arrow *o = &a[n++];
            o->from = x->src;
            o->to = x->dst;
            if (x->kind == XFER_SCALE) {
                o->from = o->to = -1;
                snprintf(o->text, sizeof o->text, "r%d \u00f7%d (avg)", x->dst, t->plan.nranks);
            } else if (x->chunk >= 0)
                snprintf(o->text, sizeof o->text, "r%d \u2192 r%d chunk %d%s", x->src, x->dst,
                         x->chunk, x->kind == XFER_REDUCE ? " (+)" : "");
            else
                snprintf(o->text, sizeof o->text, "r%d \u2192 r%d %zu values%s", x->src, x->dst,
                         x->count, x->kind == XFER_REDUCE ? " (+)" : "");
        }
        return n;
    }
    struct par_send s[PAR_MAX_RANKS];
    int ns = par_frame_sends(&p->v, p->f, s, PAR_MAX_RANKS);
    for (int k = 0; k < ns && n < max; k++) {
        a[n] = (struct pp_arrow){.from = s[k].from, .to = s[k].to};
        snprintf(a[n].text, sizeof a[n].text, "s%d \u2192 s%d %s mb%d", s[k].from, s[k].to,
                 s[k].what, s[k].mb);
        n++;
    }
    return n;
}

/* The arrows over the boxes, one lane each (the first the lowest), from the source box's
 * top to the destination's, each leg at its own x, the number on the lane. */
static void pp_arrows(struct pd *d, const struct ppar *p, const struct pp_arrow *a, int n)
{
    int out[PAR_MAX_RANKS] = {0}, in[PAR_MAX_RANKS] = {0}, lane = 0;
    for (int k = 0; k < n; k++) {
        if (a[k].from < 0) continue;
        double y = p->by - 8 - lane * PP_LANE;
        double xs = p->bx[a[k].from] + p->bw / 2 - 10 - 5 * out[a[k].from]++;
        double xd = p->bx[a[k].to] + p->bw / 2 + 6 + 5 * in[a[k].to]++;
        uint32_t ink = pd_rank_ink(d, a[k].from);
        pd_rgb(d->cr, ink);
        cairo_set_line_width(d->cr, 1.2);
        pd_rank_dash(d, a[k].from);
        cairo_new_path(d->cr);
        cairo_move_to(d->cr, xs, p->by);
        cairo_line_to(d->cr, xs, y);
        cairo_line_to(d->cr, xd, y);
        cairo_line_to(d->cr, xd, p->by - 5);
        cairo_stroke(d->cr);
        cairo_set_dash(d->cr, NULL, 0, 0);
        pd_head(d, xd, p->by - 0.5, 0, 1, ink);
        pd_badge(d, (xs + xd) / 2, y, k + 1, ink);
        lane++;
    }
    if (lane) d->pic->elems |= PE_ARROWS;
}

static int pp_lanes(const struct pp_arrow *a, int n)
{
    int lanes = 0;
    for (int k = 0; k < n; k++)
        lanes += a[k].from >= 0;
    return lanes;
}

/* The list under the boxes, numbered as the arrows; after a collective's last step, that
 * the trace equals what the engine's ranks computed. */
static double pp_arrow_text(struct pd *d, const struct ppar *p, const struct pp_arrow *a, int n,
                            double y, double maxw)
{
    const struct par_tick *t = par_frame_tick(&p->v, p->f);
    int sub = p->v.frames[p->f].sub;
    if (t && t->coll && t->have_trace && (size_t)sub == t->plan.nsteps && sub > 0) {
        const char *ok = t->engine_mismatch == 0
                             ? "\u2713 the engine's own result: the cpu ranks ran this ring "
                               "plan on these inputs, bit for bit"
                             : "\u2717 some values differ from the engine's result";
        y +=
            pd_text(d, 0, y, ok, 8.5, PD_PLAIN, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 3;
    }
    if (n == 0) {
        const char *msg = par_frame_quiet(&p->v, p->f);
        if (t && t->coll && sub == 0)
            msg = "each rank's input is in place; step 1 of the ring plan is next";
        return y +
               pd_text(d, 0, y, msg, 8.5, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT,
                       NULL) +
               6;
    }
    double x = 0, lh = 0;
    for (int k = 0; k < n; k++) {
        char e[128];
        snprintf(e, sizeof e, "%d  %s", k + 1, a[k].text);
        double w, h;
        pd_measure(d, e, 8.5, PD_PLAIN, &w, &h);
        if (x > 0 && x + w > maxw) {
            x = 0;
            y += lh + 2;
        }
        uint32_t ink = a[k].from >= 0 ? pd_rank_ink(d, a[k].from) : d->th->ink;
        pd_text(d, x, y, e, 8.5, PD_PLAIN, ink, d->th->bg, 0, PD_LEFT, NULL);
        x += w + 16;
        lh = h;
    }
    d->pic->elems |= PE_XFER_LIST;
    return y + lh + 6;
}

/* ---- the pipeline's schedule ------------------------------------------------------- */

static int pp_gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* One Gantt chart of s at (0, y): a row per stage, a column per tick; F and B cells with
 * their micro-batch, the idle cells (the bubble) hatched; column `now` outlined and
 * marked. Returns the y below. */
static double pp_gantt(struct pd *d, const struct psched *s, double y, int now,
                       const char *title)
{
    y += pd_text(d, 0, y, title, 9, PD_BOLD, d->th->ink, d->th->bg, 0, PD_LEFT, NULL) + 3;
    const double lw = 22, cw = 20, ch = 14;
    if (now >= 0) {
        double x = lw + now * cw;
        pd_text(d, x + cw / 2, y - 1, "\u25bc now", 8.5, PD_BOLD, d->th->accent, d->th->bg, 0,
                PD_LEFT, NULL);
        y += 11;
    }
    for (int st = 0; st < s->stages; st++) {
        double yy = y + st * ch;
        char lab[16];
        snprintf(lab, sizeof lab, "s%d", st);
        pd_text(d, 0, yy + 1, lab, 8.5, PD_BOLD, pd_rank_ink(d, st), d->th->bg, 0, PD_LEFT,
                NULL);
        for (int t = 0; t < s->ticks; t++) {
            const struct psched_cell *c = &s->cell[st][t];
            double x = lw + t * cw;
            char txt[8];
            if (c->kind == PSCHED_IDLE) { /* the bubble: white, hatched */
                pd_rect(d, x, yy, cw, ch, d->th->bg);
                cairo_save(d->cr);
                cairo_new_path(d->cr);
                cairo_rectangle(d->cr, x, yy, cw, ch);
                cairo_clip(d->cr);
                cairo_new_path(d->cr);
                pd_rgb(d->cr, d->th->dim);
                cairo_set_line_width(d->cr, 0.7);
                for (double k = -ch; k < cw; k += 4) {
                    cairo_move_to(d->cr, x + k, yy + ch);
                    cairo_line_to(d->cr, x + k + ch, yy);
                }
                cairo_stroke(d->cr);
                cairo_restore(d->cr);
            } else { /* forward light, backward dark */
                bool f = c->kind == PSCHED_FWD;
                uint32_t fill = f ? d->th->hidden : d->th->dim;
                uint32_t ink = f ? d->th->cell_ink : d->th->bg;
                pd_rect(d, x, yy, cw, ch, fill);
                snprintf(txt, sizeof txt, "%c%d", f ? 'F' : 'B', c->mb);
                pd_text(d, x + cw / 2, yy + 1, txt, 8.5, f ? PD_PLAIN : PD_BOLD, ink, fill, 0,
                        PD_CENTRE, NULL);
            }
            pd_frame(d, x, yy, cw, ch, d->th->dim, 0.4);
        }
    }
    if (now >= 0)
        pd_frame(d, lw + now * cw - 1, y - 1, cw + 2, s->stages * ch + 2, d->th->accent,
                 PD_HL_WIDTH);
    d->pic->elems |= PE_GANTT | PE_BUBBLE;
    return y + s->stages * ch + 6;
}

/* The bubble in words: the model's formula and the chart's own count, as a fraction;
 * `key`: and what the cells mean. */
static double pp_bubble(struct pd *d, const struct psched *s, double y, double maxw, bool key)
{
    int P = s->stages, M = s->micro, idle = 0;
    for (int st = 0; st < P; st++)
        idle += s->idle[st];
    int all = P * s->ticks, g = pp_gcd(idle, all), gf = pp_gcd(P - 1, M + P - 1);
    char t[300];
    if (print_opts_hides(&d->pic->opts, psched_bubble(s)) ||
        print_opts_hides(&d->pic->opts, psched_bubble_formula(P, M)))
        snprintf(t, sizeof t,
                 "bubble (hatched): %d idle cells of %d; its fraction is the exercise's to "
                 "work out (model: (P\u22121)/(M+P\u22121))",
                 idle, all);
    else
        snprintf(t, sizeof t,
                 "bubble (hatched): %d idle cells of %d = %d/%d \u2248 %.2f; model "
                 "(P\u22121)/(M+P\u22121) = %d/%d \u2248 %.2f",
                 idle, all, g ? idle / g : 0, g ? all / g : 0, psched_bubble(s), (P - 1) / gf,
                 (M + P - 1) / gf, psched_bubble_formula(P, M));
    y += pd_text(d, 0, y, t, 8.5, PD_PLAIN, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 2;
    if (!key) return y + 6;
    return y +
           pd_text(d, 0, y,
                   "F/B n: forward / backward of micro-batch n, one tick each; messages "
                   "take no time (the ideal schedule, a model)",
                   8.5, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
           8;
}

static double pp_schedules(struct pd *d, const struct ppar *p, double y, double maxw)
{
    if (!p->v.have_sched) return y;
    const struct psched *s = &p->v.sched;
    int col = par_frame_sched_col(&p->v, p->f);
    char t[160];
    const char *name = s->sched == PP_1F1B ? "1F1B" : "GPipe";
    if (col >= 0)
        snprintf(t, sizeof t, "ideal schedule (model), %s, tick %d of %d", name, col + 1,
                 s->ticks);
    else
        snprintf(t, sizeof t, "ideal schedule (model), %s, %d ticks", name, s->ticks);
    y = pp_gantt(d, s, y, col, t);
    y = pp_bubble(d, s, y, maxw, true);
    struct psched other;
    enum pp_schedule o = s->sched == PP_1F1B ? PP_GPIPE : PP_1F1B;
    if (psched_build(&other, o, s->stages, s->micro) != CV_OK) return y;
    snprintf(t, sizeof t, "for comparison, the other schedule: %s (model), %d ticks",
             o == PP_1F1B ? "1F1B" : "GPipe", other.ticks);
    y = pp_gantt(d, &other, y, -1, t);
    return pp_bubble(d, &other, y, maxw, false);
}

/* ---- what a ZeRO rank keeps -------------------------------------------------------- */

/* One kind of state of rank r: a bar of W shards, those the rank holds filled with their
 * owner's fill, and words ("whole", "shard 2 of 4", "shard 2 of 4 + 1 layer"). */
static void pp_keep_cell(struct pd *d, double x, double y, int r, int W, size_t bytes,
                         size_t ddp)
{
    const double sw = 10, sh = 10;
    bool whole = bytes >= ddp;
    for (int k = 0; k < W; k++) {
        double xx = x + k * sw;
        if (whole || k == r)
            pd_rank_cell(d, xx, y + 1, sw, sh, k);
        else
            pd_rect(d, xx, y + 1, sw, sh, d->th->empty);
        pd_frame(d, xx, y + 1, sw, sh, d->th->dim, 0.5);
    }
    char t[64];
    if (whole)
        snprintf(t, sizeof t, "whole");
    else if (bytes > ddp / (size_t)W)
        snprintf(t, sizeof t, "shard %d of %d + 1 layer", r, W);
    else
        snprintf(t, sizeof t, "shard %d of %d", r, W);
    pd_text(d, x + W * sw + 4, y, t, 8.5, PD_PLAIN, d->th->ink, d->th->bg, 0, PD_LEFT, NULL);
}

/* The table: a row per rank, a column per kind of state (weights, gradients, AdamW state),
 * from the trainer's memory model against DDP's (train_memory_model: whole when equal, a
 * shard otherwise, with the gathered layer or gradient bucket the model adds). */
static double pp_keeps(struct pd *d, const struct ppar *p, double y, double maxw)
{
    struct train_config dc = p->v.cfg;
    dc.scheme = TRAIN_DDP;
    dc.prefetch = false;
    struct train_memory z, zp, dd, dp;
    if (train_memory_model(&p->v.cfg, &z, &zp) != CV_OK ||
        train_memory_model(&dc, &dd, &dp) != CV_OK)
        return y;
    char t[200];
    snprintf(t, sizeof t,
             "What each rank keeps between steps (the trainer's memory model; a bar: the %d "
             "shards, filled where the rank holds them)",
             p->W);
    y += pd_text(d, 0, y, t, 9, PD_BOLD, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 4;
    static const char *const kind[3] = {"weights", "gradients", "AdamW state"};
    const size_t zb[3] = {z.params, z.grads, z.optimizer},
                 db[3] = {dd.params, dd.grads, dd.optimizer};
    const double lw = 50, colw = 150;
    for (int k = 0; k < 3; k++)
        pd_text(d, lw + k * colw, y, kind[k], 8.5, PD_BOLD, d->th->ink, d->th->bg, 0, PD_LEFT,
                NULL);
    y += 13;
    for (int r = 0; r < p->W; r++) {
        snprintf(t, sizeof t, "rank %d", r);
        pd_text(d, 0, y, t, 8.5, PD_BOLD, pd_rank_ink(d, r), d->th->bg, 0, PD_LEFT, NULL);
        for (int k = 0; k < 3; k++)
            pp_keep_cell(d, lw + k * colw, y, r, p->W, zb[k], db[k]);
        y += 14;
    }
    d->pic->elems |= PE_KEEPS;
    return y + 6;
}

/* ---- the legend -------------------------------------------------------------------- */

static double pp_legend(struct pd *d, const struct ppar *p, double y, double maxw)
{
    bool pp = p->v.cfg.scheme == TRAIN_PP;
    y = pd_rank_legend(d, y, p->W, maxw, pp ? "Legend \u00b7 stages" : "Legend \u00b7 data of",
                       pp ? "s" : "r");
    const char *const words[] = {
        "in a collective's buffer, a value's fill says whose data it holds; \u00b7 no data "
        "yet; corner mark: a partial sum; bold: summed over every rank; heavy outline: "
        "written by this step; dashed: sent by it",
        "heavy box: the rank takes part in this frame; dashed box: idle; values are integers "
        "in the power of ten under the matrix's name (n under \u00d710\u207b\u00b2 is n "
        "hundredths); \u2713: equal to one device's",
        PD_MARK " and the heaviest outline: what the scene points at",
    };
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        if ((k == 0 && pp) || (k == 2 && p->sc->hl == HL_NONE)) continue;
        y += pd_text(d, 0, y, words[k], 8.5, PD_PLAIN, d->th->dim, d->th->bg, maxw, PD_LEFT,
                     NULL) +
             1;
    }
    return y;
}

/* ---- mixture of experts ------------------------------------------------------------ */

static double pp_moe_tokens(struct pd *d, const struct par_moe *m, int layer, double y,
                            double maxw)
{
    char t[200];
    snprintf(t, sizeof t,
             "tokens per expert, layer %d (kept; kept/routed where some were "
             "dropped)",
             layer + 1);
    y += pd_text(d, 0, y, t, 9, PD_BOLD, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 3;
    int El = m->E / m->W;
    const double lw = 48, cw = 42, ch = 14;
    for (int e = 0; e < m->E; e++) {
        int owner = e / El;
        double x = lw + e * cw;
        pd_rank_cell(d, x + 1, y + 1, 8, 8, owner);
        snprintf(t, sizeof t, "e%d@r%d", e, owner);
        pd_text(d, x + 11, y, t, 8.5, PD_PLAIN, pd_rank_ink(d, owner), d->th->bg, 0, PD_LEFT,
                NULL);
    }
    y += 12;
    size_t load[PAR_MOE_MAX_E] = {0};
    for (int g = 0; g <= m->W; g++) {
        snprintf(t, sizeof t, g < m->W ? "rank %d" : "load", g);
        pd_text(d, 0, y + 1, t, 8.5, PD_BOLD, g < m->W ? pd_rank_ink(d, g) : d->th->ink,
                d->th->bg, 0, PD_LEFT, NULL);
        for (int e = 0; e < m->E; e++) {
            double x = lw + e * cw;
            if (g < m->W) {
                size_t k = m->kept[layer][g][e], r = m->routed[layer][g][e];
                load[e] += k;
                if (k == r)
                    snprintf(t, sizeof t, "%zu", k);
                else
                    snprintf(t, sizeof t, "%zu/%zu", k, r);
            } else {
                snprintf(t, sizeof t, "%zu", load[e]);
            }
            pd_frame(d, x, y, cw - 2, ch, d->th->empty, 0.6);
            pd_text(d, x + cw - 6, y + 1, t, 8.5, g < m->W ? PD_MONO : PD_MONO | PD_BOLD,
                    d->th->cell_ink, d->th->bg, 0, PD_RIGHT, NULL);
        }
        y += ch;
    }
    if (m->capacity) {
        snprintf(t, sizeof t,
                 "capacity ceil(%g\u00b7%d\u00b7%d/%d) = %d tokens per expert from each rank's "
                 "%d rows",
                 m->capacity_factor, m->B / m->W, m->K, m->E, m->capacity, m->B / m->W);
        y +=
            pd_text(d, 0, y + 2, t, 8.5, PD_PLAIN, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
            2;
    }
    d->pic->elems |= PE_MOE_TOKENS;
    return y + 8;
}

/* The all-to-all's blocks: tokens from rank to rank, the diagonal staying home, with what
 * each rank sends and receives. */
static double pp_moe_blocks(struct pd *d, const struct par_moe *m, int layer, double y,
                            double maxw)
{
    char t[200];
    snprintf(t, sizeof t,
             "the all-to-all of layer %d (dispatch): tokens from rank to rank, uneven; the "
             "diagonal stays home",
             layer + 1);
    y += pd_text(d, 0, y, t, 9, PD_BOLD, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 3;
    const double lw = 52, cw = 44, ch = 15;
    for (int q = 0; q <= m->W; q++) {
        snprintf(t, sizeof t, q < m->W ? "to r%d" : "sends", q);
        pd_text(d, lw + q * cw + cw - 6, y, t, 8.5, PD_BOLD,
                q < m->W ? pd_rank_ink(d, q) : d->th->ink, d->th->bg, 0, PD_RIGHT, NULL);
    }
    y += 12;
    size_t recv[PAR_MOE_MAX_W] = {0};
    for (int g = 0; g <= m->W; g++) {
        snprintf(t, sizeof t, g < m->W ? "from r%d" : "receives", g);
        pd_text(d, 0, y + 1, t, 8.5, PD_BOLD, g < m->W ? pd_rank_ink(d, g) : d->th->ink,
                d->th->bg, 0, PD_LEFT, NULL);
        size_t sent = 0;
        for (int q = 0; q < m->W; q++) {
            double x = lw + q * cw;
            size_t b = g < m->W ? par_moe_block(m, layer, g, q) : recv[q];
            if (g < m->W && q != g) {
                sent += b;
                recv[q] += b;
            }
            bool home = g == q;
            if (g < m->W && !home) {
                pd_rank_cell(d, x, y, cw - 4, ch, g);
                pd_rank_pairs(d, g, pd_rank_text(d, g));
            } else {
                pd_rect(d, x, y, cw - 4, ch, home ? d->th->empty : d->th->bg);
            }
            snprintf(t, sizeof t, home && g < m->W ? "(%zu)" : "%zu", b);
            uint32_t ink = g < m->W && !home ? pd_rank_text(d, g)
                           : home            ? d->th->dim
                                             : d->th->cell_ink;
            pd_text(d, x + cw - 8, y + 1, t, 8.5, PD_MONO, ink,
                    g < m->W && !home ? pd_rank_fill(d, g)
                    : home            ? d->th->empty
                                      : d->th->bg,
                    0, PD_RIGHT, NULL);
        }
        if (g < m->W) {
            snprintf(t, sizeof t, "%zu", sent);
            pd_text(d, lw + m->W * cw + cw - 6, y + 1, t, 8.5, PD_MONO | PD_BOLD,
                    d->th->cell_ink, d->th->bg, 0, PD_RIGHT, NULL);
        }
        y += ch + 2;
    }
    d->pic->elems |= PE_MOE_BLOCKS | PE_VALUES;
    return y + 6;
}

static double pp_moe_traffic(struct pd *d, const struct par_moe *m, double y, double maxw)
{
    char t[300];
    size_t all = (size_t)PAR_MOE_LAYERS * m->B * m->K;
    snprintf(t, sizeof t,
             "dropped: %zu of %zu token-expert assignments this step, both layers (passed "
             "through unchanged)",
             m->dropped, all);
    y += pd_text(d, 0, y, t, 8.5, PD_PLAIN, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 2;
    for (int k = 0; k < 2; k++) {
        const size_t *by = k ? m->combine_bytes : m->dispatch_bytes;
        int o = snprintf(t, sizeof t,
                         "%s bytes to other ranks, both layers:", k ? "combine" : "dispatch");
        for (int g = 0; g < m->W && o > 0 && (size_t)o < sizeof t; g++) {
            char b[24];
            format_size(by[g], b, sizeof b);
            o += snprintf(t + o, sizeof t - (size_t)o, "  r%d %s", g, b);
        }
        y += pd_text(d, 0, y, t, 8.5, PD_PLAIN, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) + 2;
    }
    snprintf(t, sizeof t,
             "counted in a real display-scale step on cpu ranks (a token: %d floats, %d B), "
             "%s one device (routing and weights); the screen adds the times measured",
             m->D, m->D * 4, m->same ? "\u2713 equal to" : "\u2717 not equal to");
    return y + pd_text(d, 0, y, t, 8.5, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
           6;
}

static int pp_moe(struct pd *d, const struct scene *sc, char *err, size_t errlen)
{
    struct par_moe m;
    par_moe_build(&m, sc->nranks);
    if (!m.ok) return cv_err(err, errlen, CV_EINVAL, "the MoE step did not run: %s", m.err);
    int layer = sc->step < 0 || sc->step >= PAR_MOE_LAYERS ? PAR_MOE_LAYERS - 1 : (int)sc->step;
    double maxw = 48 + 42.0 * m.E > 400 ? 48 + 42.0 * m.E : 400;
    char t[300];
    snprintf(t, sizeof t, "%s \u00b7 %d ranks \u00b7 display scale L=%d D=%d B=%d E=%d top-%d",
             train_scheme_title(TRAIN_MOE), m.W, PAR_MOE_LAYERS, m.D, m.B, m.E, m.K);
    double y = pd_text(d, 0, 0, t, 12, PD_BOLD, d->th->ink, d->th->bg, maxw, PD_LEFT, NULL);
    snprintf(t, sizeof t, "layer %d of %d \u00b7 tokens sent to their experts' ranks and back",
             layer + 1, PAR_MOE_LAYERS);
    y += pd_text(d, 0, y + 2, t, 10.5, PD_BOLD, d->th->accent, d->th->bg, maxw, PD_LEFT, NULL) +
         8;
    y = pp_moe_tokens(d, &m, layer, y, maxw);
    y = pp_moe_blocks(d, &m, layer, y, maxw);
    y = pp_moe_traffic(d, &m, y, maxw);
    pd_rank_legend(d, y, m.W, maxw, "Legend \u00b7 tokens of", "r");
    snprintf(d->pic->caption, sizeof d->pic->caption,
             "%s, %d ranks, %d experts, top-%d, layer %d of %d: tokens per expert and the "
             "all-to-all's blocks",
             train_scheme_title(TRAIN_MOE), m.W, m.E, m.K, layer + 1, PAR_MOE_LAYERS);
    d->pic->step = layer;
    d->pic->nsteps = PAR_MOE_LAYERS - 1;
    d->pic->elems |= PE_RANK_BOXES;
    return CV_OK;
}

/* ---- the picture ------------------------------------------------------------------- */

static void pp_body(struct pd *d, struct ppar *p)
{
    pp_measure(d, p);
    struct pp_arrow a[64];
    int n = pp_arrow_list(p, a, 64);
    pp_box_geometry(d, p, 0);
    double boxes_w = p->bx[p->W - 1] + p->bw;
    double maxw = boxes_w > 420 ? boxes_w : 420;
    double y = pp_header(d, p, maxw);
    p->by = y + 10 + pp_lanes(a, n) * PP_LANE;
    pp_arrows(d, p, a, n);
    pp_boxes(d, p);
    y = p->by + p->bh + 8;
    y = pp_arrow_text(d, p, a, n, y, maxw);
    if (p->v.cfg.scheme == TRAIN_PP) y = pp_schedules(d, p, y, maxw);
    if (train_zero_stage(p->v.cfg.scheme)) y = pp_keeps(d, p, y, maxw);
    pp_legend(d, p, y + 2, maxw);
}

int pd_parallel(struct pd *d, const struct scene *sc, char *err, size_t errlen)
{
    if (sc->scheme == TRAIN_MOE) return pp_moe(d, sc, err, errlen);
    struct ppar p = {.sc = sc, .W = sc->nranks};
    struct train_config cfg;
    par_display_config(sc->scheme, sc->nranks, sc->schedule, sc->overlap, &cfg);
    par_view_build(&p.v, &cfg);
    if (!p.v.ok) {
        int rc =
            cv_err(err, errlen, CV_EINVAL, "the display-scale step did not run: %s", p.v.err);
        par_view_free(&p.v);
        return rc;
    }
    p.f = sc->step < 0 || sc->step >= p.v.nframes ? p.v.nframes - 1 : (int)sc->step;
    d->pic->step = p.f;
    d->pic->nsteps = p.v.nframes - 1;
    pp_caption(&p, d->pic->caption, sizeof d->pic->caption);
    pp_body(d, &p);
    par_view_free(&p.v);
    return CV_OK;
}
