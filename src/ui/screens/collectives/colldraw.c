/* colldraw.c - everything the collectives screen draws into its rect, from the state in
 * app.h and the geometry layout_compute() decides (the measured panel is panel.c). Drawing
 * is a pure function of the state: the loop erases and redraws everything, and ncurses
 * sends only what changed.
 *
 * Reading a rank box: each value is coloured by whose input it contains (one colour per
 * rank; a partial reduction and the full reduction have their own styles), values written
 * by the current step are in reverse video and values sent by it are underlined, and the
 * marker row under the values says which cells are the send buffer ("in") and the receive
 * buffer ("out") of the collective.
 *
 * The slice view (v) replaces the rank boxes with a time-step picture of the refined plan:
 * one row per link, one column per tick, in each cell the slice on that link then
 * ("chunk.slice", coloured by chunk); the current tick's column is marked, later ticks are
 * dim, so stepping shows the pipeline fill, run and drain. */
#include "ui/screens/collectives/colldraw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "ui/kit/bigdigits.h"
#include "core/text.h"
#include "ui/overlays/overlays.h"
#include "ui/screens/collectives/collectives.h"
#include "ui/screens/collectives/collstate.h"
#include "ui/screens/collectives/panel.h"

/* ---- title and status --------------------------------------------------------------- */

static void draw_title(const struct app *a, struct rect r)
{
    const struct scene *s = &a->sc;
    attr_t t = a->th.role[TH_TITLE];
    draw_fill(r, t);
    char root[16], op[16];
    snprintf(root, sizeof root, coll_is_rooted(s->coll) ? "%d" : "-", s->root);
    snprintf(op, sizeof op, "%s", coll_reduces(s->coll) ? redop_name(s->op) : "-");
    char left[256];
    snprintf(left, sizeof left, " collviz%s%s%salgo=%s%sW=%d%scount=%zu%sop=%s%sroot=%s",
             a->g->sep, s->ncounts ? "all-to-all-v" : coll_title(s->coll), a->g->sep,
             algo_name(s->algo), a->g->sep, s->nranks, a->g->sep, scene_count(s), a->g->sep, op,
             a->g->sep, root);
    if (text_width(left) > r.w) /* narrow: the program's name goes, every setting stays */
        snprintf(left, sizeof left, " %s%salgo=%s%sW=%d%scount=%zu%sop=%s%sroot=%s",
                 s->ncounts ? "all-to-all-v" : coll_title(s->coll), a->g->sep,
                 algo_name(s->algo), a->g->sep, s->nranks, a->g->sep, scene_count(s), a->g->sep,
                 op, a->g->sep, root);
    char right[64];
    snprintf(right, sizeof right, "backend: %s ", a->w ? a->backend_name : "none");
    int rw = text_width(right);
    int lw = draw_put(r.y, r.x, r.w, t, left);
    if (lw + rw + 2 <= r.w) draw_put(r.y, r.x + r.w - rw, rw, t, right);
}

static void draw_status(const struct app *a, struct rect r)
{
    const struct coll_screen *cs = coll_cstate(a);
    size_t step = app_step(a), n = app_nsteps(a);
    int x = r.x + 1, end = r.x + r.w;
    const struct coll_slices *sl = coll_slices(a);
    if (sl) {
        if (coll_count_hidden(a))
            x += draw_put(r.y, x, end - x, a->th.role[TH_STEP], "tick ?/?");
        else
            x += draw_putf(r.y, x, end - x, a->th.role[TH_STEP], "tick %zu/%zu", step, n);
        x += draw_putf(
            r.y, x, end - x, a->th.role[TH_LABEL], "  slice view: %d slice%s x %d channel%s%s",
            sl->plan.nslices, sl->plan.nslices == 1 ? "" : "s", sl->plan.nchannels,
            sl->plan.nchannels == 1 ? "" : "s", a->no_key_hints ? "" : " (v: chunk view)");
        char play[32];
        snprintf(play, sizeof play, "  %s playing", a->g->play);
        if (a->playing) x += draw_put_status(r.y, x, end - x, a->th.role[TH_WARN], play);
        /* What forces NCCL's algorithm or protocol, since the picture stands for NCCL. */
        char env[160];
        hw_nccl_env_text(&a->hw, env, sizeof env);
        if (env[0] && !a->msg[0])
            x += draw_putf(r.y, x, end - x, a->th.role[TH_WARN], "  %s", env);
        if (a->msg[0]) {
            char fit[512];
            text_fit(fit, sizeof fit, a->msg, end - x - 2, a->utf8);
            draw_put_status(r.y, x + 2, end - x - 2, a->th.role[TH_WARN], fit);
        }
        return;
    }
    /* predict first: a step count an open exercise asks for is "?", and so are the
     * counters that give it: the step's own number (the last one is the count) and the
     * phase's "3/3" (levels up and down: the tree's count) */
    char total[48], masked[64];
    snprintf(total, sizeof total, "%zu steps", n);
    bool hide = draw_mask_text(total, masked, sizeof masked) > 0;
    if (hide)
        x += draw_put(r.y, x, end - x, a->th.role[TH_STEP], "step ?/?");
    else
        x += draw_putf(r.y, x, end - x, a->th.role[TH_STEP], "step %zu/%zu", step, n);
    if (cs->have_trace && step > 0) {
        char phase[sizeof cs->plan.steps[0].phase];
        snprintf(phase, sizeof phase, "%s", cs->plan.steps[step - 1].phase);
        if (hide) text_drop_counter(phase);
        x += draw_putf(r.y, x, end - x, a->th.role[TH_LABEL], "  %s", phase);
    }
    char play[32];
    snprintf(play, sizeof play, "  %s playing", a->g->play);
    if (a->playing) x += draw_put_status(r.y, x, end - x, a->th.role[TH_WARN], play);
    char fit[512], missing[160];
    coll_hl_missing(a, step, missing, sizeof missing);
    if ((a->msg[0] || missing[0]) && !a->room) {
        text_fit(fit, sizeof fit, a->msg[0] ? a->msg : missing, end - x - 2, a->utf8);
        draw_put_status(r.y, x + 2, end - x - 2, a->th.role[TH_WARN], fit);
    } else if (cs->have_plan && cs->lay.what.h <= cs->lay.what_lines &&
               text_width(cs->plan.summary) <= end - x - 2) {
        /* the summary beside the step where it fits whole; never cut */
        draw_put_masked(r.y, x + 2, end - x - 2, a->th.role[TH_DIM], cs->plan.summary);
    }
}

/* ---- rank boxes --------------------------------------------------------------------- */

enum { HL_SRC = 1, HL_DST = 2, HL_POINTED = 4 };

/* Which elements the current step reads and writes, per rank. */
static unsigned char *draw_highlights(const struct app *a, size_t step)
{
    const struct coll_screen *cs = coll_cstate(a);
    size_t L = cs->plan.work_len;
    unsigned char *hl = xcalloc((size_t)cs->plan.nranks * (L ? L : 1), 1);
    if (step == 0) return hl;
    const struct step *st = &cs->plan.steps[step - 1];
    for (size_t k = 0; k < st->n; k++) {
        const struct xfer *x = &cs->plan.x[st->first + k];
        for (size_t i = 0; i < x->count; i++) {
            if (x->kind != XFER_SCALE && x->src_off + i < L)
                hl[(size_t)x->src * L + x->src_off + i] |= HL_SRC;
            if (x->dst_off + i < L) hl[(size_t)x->dst * L + x->dst_off + i] |= HL_DST;
        }
    }
    return hl;
}

/* 1 = in the send buffer, 2 = in the receive buffer (3 = both). */
static int draw_tag(const struct app *a, int r, size_t i)
{
    const struct scene *s = &a->sc;
    size_t count = scene_count(s);
    int root = coll_is_rooted(s->coll) ? s->root : 0;
    size_t in0 = coll_in_off(s->coll, s->nranks, count, r);
    size_t inn = coll_send_count(s->coll, s->nranks, count, r, root);
    size_t out0 = coll_out_off(s->coll, s->nranks, count, r);
    size_t outn = coll_recv_count(s->coll, s->nranks, count, r, root);
    return (i >= in0 && i < in0 + inn ? 1 : 0) | (i >= out0 && i < out0 + outn ? 2 : 0);
}

/* A value in block digits, right-aligned in its cell_w x BIG_H tile. The digits always show
 * in the value's colour on the terminal's background: a colour pair with a background of its
 * own (partial and full reductions) is drawn reversed, so its background colour becomes the
 * ink. What the step does to the value shades its digits, never the gaps between their
 * strokes (a filled tile blurs the digits for the back row): written (reverse) "▓", sent
 * (underline) "▒" ('%' and '+' in ASCII). */
static void draw_big_value(const struct app *a, int y, int x, const char *t, unsigned mask,
                           attr_t at)
{
    const struct coll_screen *cs = coll_cstate(a);
    int cw = cs->lay.cell_w, sy = cs->lay.cell_h / BIG_H, sx = cs->big_sx > 0 ? cs->big_sx : 1;
    short f = -1, b = -1;
    if (PAIR_NUMBER(at) > 0) pair_content((short)PAIR_NUMBER(at), &f, &b);
    attr_t ink = (at & ~(A_REVERSE | A_UNDERLINE)) ^ (b >= 0 ? A_REVERSE : 0);
    const char *glyph = a->utf8 ? "\u2588" : "#";
    if (at & A_REVERSE)
        glyph = a->utf8 ? "\u2593" : "%";
    else if (at & A_UNDERLINE)
        glyph = a->utf8 ? "\u2592" : "+";
    if (mask == 0)
        draw_put(y + cs->lay.cell_h / 2, x + cw - 1, 1, at, t);
    else
        big_draw_scaled(stdscr, y, x + cw - big_width_scaled(t, sx), t, ink, glyph, sx, sy);
}

static void draw_value(const struct app *a, int y, int x, float v, unsigned mask,
                       unsigned char hl)
{
    const struct coll_screen *cs = coll_cstate(a);
    char t[32], cell[40];
    attr_t at = theme_mask_attr(&a->th, mask, cs->plan.nranks);
    if (mask == 0)
        snprintf(t, sizeof t, "%s", a->g->dot);
    else
        text_value(t, sizeof t, v);
    if (hl & HL_POINTED) at = a->th.role[TH_HL];
    if (hl & HL_DST)
        at |= a->th.role[TH_DST];
    else if (hl & HL_SRC)
        at |= a->th.role[TH_SRC];
    int cw = cs->lay.cell_w;
    if (cs->lay.cell_h >= BIG_H) {
        draw_big_value(a, y, x, t, mask, at);
        return;
    }
    int pad = cw - text_width(t);
    snprintf(cell, sizeof cell, "%*s%s", pad > 0 ? pad : 0, "", t);
    draw_put(y, x, cw, at, cell);
}

/* The marker row: runs of cells with the same in/out tag drawn as "╰─in─╯". A run owns its
 * cells and half of the gaps around them, so neighbouring runs never touch. Every run gets
 * its brackets, with the longest label that fits inside them: "in=out", "i=o", then one
 * character ("╰o─╯", "╰=─╯"); a bare word between bracketed runs ("out i/o ╰─out─╯") read
 * as one label. Only a run narrower than 3 columns gets a bare character. */
static bool marks_abbrev; /* a one-character form was drawn: the legend explains it */

static void draw_marks(const struct app *a, int r, int y)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct layout *l = &cs->lay;
    static const char *const forms[][3] = {
        {"", "", ""}, {"in", "i", "i"}, {"out", "o", "o"}, {"in=out", "i=o", "="}};
    int gap = l->cell_gap > 0 ? l->cell_gap : 1;
    size_t n = l->shown;
    size_t i = 0;
    while (i < n) {
        int tag = draw_tag(a, r, i);
        size_t j = i;
        while (j + 1 < n && draw_tag(a, r, j + 1) == tag)
            j++;
        if (tag) {
            int y0, x0, y1, x1;
            layout_cell_pos(l, r, i, &y0, &x0);
            layout_cell_pos(l, r, j, &y1, &x1);
            x0 -= gap / 2;
            int w = x1 + l->cell_w + (gap - gap / 2) - x0;
            attr_t at = tag == 1 ? a->th.role[TH_DIM] : a->th.role[TH_LABEL];
            const char *lab = forms[tag][2];
            for (int f = 0; f < 3; f++)
                if (text_width(forms[tag][f]) + 2 <= w) {
                    lab = forms[tag][f];
                    break;
                }
            int lw = text_width(lab);
            if (lab == forms[tag][2] && tag == 3) marks_abbrev = true;
            if (w >= lw + 2) {
                char buf[512] = "";
                size_t o = 0;
                int left = (w - 2 - lw) / 2, right = w - 2 - lw - left;
                o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_l);
                for (int k = 0; k < left; k++)
                    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_h);
                o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", lab);
                for (int k = 0; k < right; k++)
                    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_h);
                snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_r);
                draw_put(y, x0, w, at, buf);
            } else {
                draw_put(y, x0 + (w - lw) / 2, w, at, lab);
            }
        }
        i = j + 1;
    }
}

/* Without a marker row: brackets around the receive buffer, "[6 10 14 18]". */
static void draw_brackets(const struct app *a, int r)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct layout *l = &cs->lay;
    attr_t at = a->th.role[TH_LABEL];
    for (size_t i = 0; i < l->shown; i++) {
        bool out = draw_tag(a, r, i) & 2;
        if (!out) continue;
        int y, x;
        bool first = i == 0 || !(draw_tag(a, r, i - 1) & 2) || (i % (size_t)l->per_line) == 0;
        bool last = i + 1 == l->shown || !(draw_tag(a, r, i + 1) & 2) ||
                    ((i + 1) % (size_t)l->per_line) == 0;
        layout_cell_pos(l, r, i, &y, &x);
        if (first) draw_put(y, x - 1, 1, at, "[");
        if (last) draw_put(y, x + l->cell_w, 1, at, "]");
    }
}

/* The longest form of a rank's label that fits: "rank 2 · cpu thread", "r2 · cpu thread",
 * "rank 2", "r2"; a truncated buffer adds "(12 of 32)". */
static void draw_box_label(const struct app *a, int r, int width, char *buf, size_t n)
{
    const struct coll_screen *cs = coll_cstate(a);
    char forms[4][96];
    const char *rest = a->rank_label[r];
    char head[24];
    snprintf(head, sizeof head, "rank %d", r);
    if (strncmp(rest, head, strlen(head)) == 0) rest += strlen(head);
    snprintf(forms[0], sizeof forms[0], "rank %d%s", r, rest);
    snprintf(forms[1], sizeof forms[1], "r%d%s", r, rest);
    snprintf(forms[2], sizeof forms[2], "rank %d", r);
    snprintf(forms[3], sizeof forms[3], "r%d", r);
    size_t L = cs->plan.work_len;
    for (int k = 0; k < 4; k++) {
        if (cs->lay.shown < L)
            snprintf(buf, n, "%s (%zu of %zu)", forms[k], cs->lay.shown, L);
        else
            snprintf(buf, n, "%s", forms[k]);
        if (text_width(buf) <= width) return;
    }
    snprintf(buf, n, "%s", forms[3]);
}

static bool draw_rank_hot(const unsigned char *hl, int r, size_t L)
{
    for (size_t i = 0; i < L; i++)
        if (hl[(size_t)r * L + i]) return true;
    return false;
}

static void draw_ranks(const struct app *a)
{
    const struct coll_screen *cs = coll_cstate(a);
    marks_abbrev = false;
    const struct layout *l = &cs->lay;
    size_t step = app_step(a);
    size_t L = cs->plan.work_len;
    unsigned char *hl = draw_highlights(a, step);
    /* what the scene points at (highlight=...) */
    unsigned char *pt = xcalloc((size_t)cs->plan.nranks * (L ? L : 1), 1);
    coll_hl_cells(a, step, pt);
    for (size_t k = 0; k < (size_t)cs->plan.nranks * L; k++)
        if (pt[k]) hl[k] |= HL_POINTED;
    free(pt);
    for (int r = 0; r < cs->plan.nranks; r++) {
        struct rect b = l->box[r];
        const float *v = trace_buf(&cs->trace, step, r);
        const uint32_t *m = trace_mask(&cs->trace, step, r);
        bool hot = draw_rank_hot(hl, r, L);
        bool pointed = a->sc.hl == HL_RANK && a->sc.hl_index == r;
        attr_t fa = pointed ? a->th.role[TH_HL]
                    : hot   ? a->th.role[TH_BORDER_HOT]
                            : a->th.role[TH_BORDER];
        if (l->mode == LAYOUT_BOXES) {
            char label[512];
            draw_box_label(a, r, b.w - 4, label, sizeof label);
            draw_frame(b, fa, label, pointed ? a->th.role[TH_HL] : a->th.rank[r] | A_BOLD);
        } else {
            draw_putf(b.y, b.x, 4, pointed ? a->th.role[TH_HL] : a->th.rank[r] | A_BOLD, "r%d",
                      r);
            draw_put(b.y, b.x + 4, 1, fa, a->g->v);
        }
        /* predict first: the box an unanswered exercise asks about stays "?" */
        bool hidden = a->hide_any && app_box_hidden(a, r, (long)step);
        for (size_t i = 0; i < l->shown; i++) {
            int y, x;
            layout_cell_pos(l, r, i, &y, &x);
            if (hidden)
                draw_put(y + (l->cell_h > 1 ? l->cell_h / 2 : 0), x + l->cell_w - 1, 1,
                         a->th.role[TH_WARN] | A_BOLD, "?");
            else
                draw_value(a, y, x, v[i], m[i], hl[(size_t)r * L + i]);
        }
        if (l->shown < L) {
            int y, x;
            layout_cell_pos(l, r, l->shown, &y, &x);
            draw_put(y, x, l->cell_w, a->th.role[TH_DIM], a->g->ell);
        }
        if (l->marks)
            draw_marks(a, r, b.y + 1 + l->value_lines * l->cell_h);
        else
            draw_brackets(a, r);
    }
    free(hl);
}

/* The colour legend as one line; short: the ranks as a range ("r0…r7"), as for many. */
static void legend_line(const struct app *a, bool short_ranks, struct styled_line *out)
{
    const struct coll_screen *cs = coll_cstate(a);
    struct styled_line pl = {.n = 0};
    const struct theme *th = &a->th;
    int W = a->sc.nranks;
    styled_add(&pl, th->role[TH_DIM], "data of ");
    if (W <= 8 && !short_ranks) {
        for (int k = 0; k < W; k++)
            styled_add(&pl, th->rank[k] | A_BOLD, "r%d ", k);
    } else {
        styled_add(&pl, th->rank[0] | A_BOLD, "r0");
        styled_add(&pl, th->role[TH_DIM], "%s", a->g->ell);
        styled_add(&pl, th->rank[W - 1] | A_BOLD, "r%d ", W - 1);
    }
    if (coll_reduces(a->sc.coll)) {
        styled_add(&pl, th->role[TH_REDUCED], "%s partial", a->g->sigma);
        styled_add(&pl, th->role[TH_COMPLETE], " %s all %d ", a->g->sigma, W);
    }
    styled_add(&pl, A_NORMAL, " %s empty  ", a->g->dot);
    if (cs->lay.cell_h >= BIG_H) /* block digits: the digits' ink says it (draw_big_value) */
        styled_add(&pl, A_NORMAL, "%s written %s sent", a->utf8 ? "\u2593" : "%",
                   a->utf8 ? "\u2592" : "+");
    else {
        styled_add(&pl, th->role[TH_DST], "written");
        styled_add(&pl, A_NORMAL, " ");
        styled_add(&pl, th->role[TH_SRC], "sent");
    }
    if (!cs->lay.marks) styled_add(&pl, th->role[TH_LABEL], "  [ ] output");
    if (cs->lay.marks && marks_abbrev) styled_add(&pl, th->role[TH_LABEL], "  = in=out");
    *out = pl;
}

/* The legend in r's row: whole, never cut (the ranks as a range where they do not fit one
 * by one: 8 ranks at 80 columns). */
static void draw_legend(const struct app *a, struct rect r)
{
    if (r.h < 1) return;
    struct styled_line pl;
    legend_line(a, false, &pl);
    if (styled_width(&pl) > r.w) legend_line(a, true, &pl);
    int w = styled_width(&pl);
    styled_draw_line(&pl, r.y, r.x + (w < r.w ? (r.w - w) / 2 : 0), r.w);
}

/* Does transfer x of step `step` touch a box predict first hides at that step? */
static bool xfer_hidden(const struct app *a, const struct xfer *x, size_t step)
{
    if (!a->hide_any) return false;
    const int ends[2] = {x->src, x->dst};
    for (int i = 0; i < 2; i++)
        if (app_box_hidden(a, ends[i], (long)step)) return true; /* hide_any: above */
    return false;
}

static void draw_xfers(const struct app *a, struct rect r)
{
    const struct coll_screen *cs = coll_cstate(a);
    size_t step = app_step(a);
    const struct layout *l = &cs->lay;
    if (step == 0 || !cs->have_trace) {
        const char *t = app_nsteps(a) ? "no transfers yet: press \u2192 (or l) to run step 1"
                                      : "no transfers";
        if (!a->utf8 && app_nsteps(a)) t = "no transfers yet: press Right (or l) to run step 1";
        if (a->no_key_hints && app_nsteps(a)) t = "no transfers yet: step 1 is next";
        draw_put(r.y, r.x + 1, r.w - 1, a->th.role[TH_DIM], t);
        return;
    }
    const struct step *st = &cs->plan.steps[step - 1];
    int slots = l->xfer_rows * l->xfer_cols;
    int n = (int)st->n;
    int show = n <= slots ? n : slots - 1;
    int colw = cs->xfer_w + 2;
    int x0 = r.x + (r.w - (l->xfer_cols * colw - 2)) / 2;
    if (x0 < r.x) x0 = r.x;
    for (int k = 0; k < show; k++) {
        const struct xfer *x = &cs->plan.x[st->first + (size_t)k];
        int y = r.y + k / l->xfer_cols, cx = x0 + (k % l->xfer_cols) * colw;
        char t[COLL_XFER_TEXT];
        coll_xfer_text(a, x, step, t, sizeof t);
        /* predict first: a transfer into or out of a box shown as "?" would say what it
         * holds (which chunk lands where, how many ranks it folds in): only who sends to
         * whom stays */
        if (xfer_hidden(a, x, step)) {
            char head[48];
            if (x->kind == XFER_SCALE)
                snprintf(head, sizeof head, "r%d  ?", x->dst);
            else
                snprintf(head, sizeof head, "r%d %s r%d  ?", x->src, a->g->arrow, x->dst);
            snprintf(t, sizeof t, "%s", head);
        }
        if (a->sc.hl == HL_TRANSFER && a->sc.hl_index == k) {
            /* the entry the scene points at, arrow and all, in one emphasis */
            draw_put(y, cx, cs->xfer_w, a->th.role[TH_HL], t);
            continue;
        }
        if (x->kind == XFER_SCALE) {
            draw_put(y, cx, cs->xfer_w, a->th.rank[x->dst] | A_BOLD, t);
            continue;
        }
        char head[32];
        snprintf(head, sizeof head, "r%d %s r%d", x->src, a->g->arrow, x->dst);
        int cxx = cx;
        cxx += draw_putf(y, cxx, 4, a->th.rank[x->src] | A_BOLD, "r%d", x->src);
        cxx += draw_putf(y, cxx, 4, a->th.role[TH_DIM], " %s ", a->g->arrow);
        cxx += draw_putf(y, cxx, 4, a->th.rank[x->dst] | A_BOLD, "r%d", x->dst);
        draw_put(y, cxx, cs->xfer_w - (cxx - cx), A_NORMAL, t + strlen(head));
    }
    if (show < n) {
        int y = r.y + show / l->xfer_cols, cx = x0 + (show % l->xfer_cols) * colw;
        /* predict first: the entries shown plus "+N more" would give a count an open
         * exercise asks for (the messages of a step) */
        char total[48], masked[64];
        snprintf(total, sizeof total, "%d messages", n);
        if (draw_mask_text(total, masked, sizeof masked) > 0)
            draw_put(y, cx, colw, a->th.role[TH_DIM], "+? more");
        else
            draw_putf(y, cx, colw, a->th.role[TH_DIM], "+%d more", n - show);
    }
}

/* ---- the slice view ----------------------------------------------------------------- */

/* Links x ticks in rect r: a header of tick numbers, one row per link, the current tick's
 * column (step k shows tick k-1 as the one running) in reverse video. Too many ticks for
 * the width: a window of them that keeps the current one in view; too many links: the
 * first rows and "+n more links". Cells are chunk.slice names, never figures (no mask). Where
 * the step count is an open exercise's answer (coll_count_hidden) the grid would count it:
 * no tick numbers, and only the last ticks played (End would show them all: columns to
 * count). */
static void draw_slices(const struct app *a, const struct coll_slices *sl, struct rect r)
{
    const struct slice_tl *t = &sl->tl;
    const struct plan *p = &sl->plan;
    if (r.h < 3 || r.w < 20) return;
    int cur = (int)app_step(a) - 1; /* -1: before the first tick */
    int cw = 3;
    for (long i = 0; i < (long)p->nx; i++) {
        char c[16];
        slice_tl_label(p, i, c, sizeof c);
        if ((int)strlen(c) > cw) cw = (int)strlen(c);
    }
    int labw = p->nchannels > 1 ? 13 : 9;
    int fit = (r.w - labw - 1) / (cw + 1);
    if (fit < 1) return;
    int first = 0;
    if (t->nticks > fit && cur >= fit / 2) first = cur - fit / 2;
    if (first > t->nticks - fit) first = t->nticks - fit > 0 ? t->nticks - fit : 0;
    int last = first + fit < t->nticks ? first + fit : t->nticks;
    bool hide = coll_count_hidden(a);
    if (hide) {
        first = cur > 2 ? cur - 2 : 0;
        last = cur + 1;
    }
    int x0 = r.x + 1 + labw;
    draw_put(r.y, r.x + 1, labw, a->th.role[TH_DIM], "tick");
    for (int k = first; k < last && !hide; k++) {
        attr_t at = k == cur ? a->th.role[TH_STEP] | A_REVERSE : a->th.role[TH_DIM];
        char num[16]; /* right-aligned in cw columns */
        int nw = snprintf(num, sizeof num, "%d", k + 1), pad = cw > nw ? cw - nw : 0;
        draw_put(r.y, x0 + (k - first) * (cw + 1) + pad, cw + 1 - pad, at, num);
    }
    int rows = r.h - 1;
    int shown = t->nlinks <= rows ? t->nlinks : rows - 1;
    for (int l = 0; l < shown; l++) {
        const struct slice_link *L = &t->links[l];
        int y = r.y + 1 + l;
        char name[40];
        if (L->src == L->dst)
            snprintf(name, sizeof name, "r%d", L->src);
        else
            snprintf(name, sizeof name, "r%d%sr%d", L->src, a->g->arrow, L->dst);
        int nx = draw_putf(y, r.x + 1, labw, a->th.rank[L->src] | A_BOLD, "%s", name);
        if (p->nchannels > 1)
            draw_putf(y, r.x + 1 + nx, labw - nx, a->th.role[TH_DIM], " c%d", L->channel);
        for (int k = first; k < last; k++) {
            long x = t->cells[(size_t)l * (size_t)t->nticks + (size_t)k].x;
            char c[16];
            slice_tl_label(p, x, c, sizeof c);
            attr_t at;
            if (x < 0) {
                at = a->th.role[TH_DIM];
                snprintf(c, sizeof c, "%s", a->g->dot);
            } else {
                int chunk = p->x[x].chunk;
                at = chunk >= 0 ? a->th.rank[chunk % CV_MAX_RANKS] : a->th.rank[p->x[x].dst];
                if (k == cur)
                    at |= A_REVERSE | A_BOLD;
                else if (k > cur)
                    at = a->th.role[TH_DIM];
            }
            int cx = x0 + (k - first) * (cw + 1);
            int pad = cw - text_width(c);
            draw_put(y, cx + (pad > 0 ? pad : 0), cw, at, c);
        }
    }
    if (shown < t->nlinks) { /* the links of a direct plan are its messages: a count asked */
        if (coll_links_hidden(a))
            draw_put(r.y + 1 + shown, r.x + 1, r.w - 2, a->th.role[TH_DIM], "+? more links");
        else
            draw_putf(r.y + 1 + shown, r.x + 1, r.w - 2, a->th.role[TH_DIM], "+%d more links",
                      t->nlinks - shown);
    }
}

/* The slice view's legend line. */
static void coll_slices_legend_text(const struct coll_slices *sl, char *buf, size_t n)
{
    snprintf(buf, n, "cell = chunk.slice; model: 1 slice per link per tick; fill %d, drain %d",
             sl->tl.fill, sl->tl.drain);
}

/* What the current tick moves, as its lead ("tick 3 moves:") and entries (" r0>r1 0.1(+)")
 * into e[max]; how many entries (0 before the first tick: the lead says so). */
#define SLICE_MOVES_MAX 256
static int coll_slices_moves(const struct app *a, const struct coll_slices *sl, char *lead,
                             size_t ln, char (*e)[48], int max)
{
    const struct slice_tl *t = &sl->tl;
    int cur = (int)app_step(a) - 1;
    if (cur < 0) {
        snprintf(lead, ln, "%s",
                 a->no_key_hints ? "no slice has moved yet: tick 1 is next"
                 : a->utf8       ? "no slice has moved yet: press \u2192 (or l) for tick 1"
                                 : "no slice has moved yet: press Right (or l) for tick 1");
        return 0;
    }
    if (coll_count_hidden(a)) /* the last tick's number is the count */
        snprintf(lead, ln, "this tick moves:");
    else
        snprintf(lead, ln, "tick %d moves:", cur + 1);
    int n = 0;
    for (int l = 0; l < t->nlinks && n < max; l++) {
        long x = t->cells[(size_t)l * (size_t)t->nticks + (size_t)cur].x;
        if (x < 0) continue;
        const struct xfer *y = &sl->plan.x[x];
        char c[16];
        slice_tl_label(&sl->plan, x, c, sizeof c);
        if (y->kind == XFER_SCALE)
            snprintf(e[n++], sizeof e[0], " r%d %s", y->dst, c);
        else
            snprintf(e[n++], sizeof e[0], " r%d>r%d %s%s", y->src, y->dst, c,
                     y->kind == XFER_REDUCE ? "(+)" : "");
    }
    if (n == 0) snprintf(lead + strlen(lead), ln - strlen(lead), " nothing (every link waits)");
    return n;
}

/* The moves of the tick laid into rows of width w, whole entries only: the lead and the
 * entries that fit, and where some do not, a last row ending in SLICE_REST (the grid's column
 * of the tick shows them, where its rows hold their links). Writes at most max rows into out
 * (NULL: counts them); how many rows it takes. */
#define SLICE_REST " (and more)"
static int coll_slices_moves_rows(const char *lead, char (*e)[48], int ne, int w, int max,
                                  char (*out)[256])
{
    int rows = 0, k = 0, restw = text_width(SLICE_REST);
    while (rows < max) {
        char row[256];
        size_t o = (size_t)snprintf(row, sizeof row, "%s", rows == 0 ? lead : "");
        int used = text_width(row);
        bool last = rows + 1 == max;
        int tail = used; /* the last row: do all the entries left fit without the marker? */
        for (int i = k; last && i < ne; i++)
            tail += text_width(tail ? e[i] : e[i] + 1);
        bool mark = last && tail > w;
        while (k < ne) {
            int ew = text_width(rows == 0 || used ? e[k] : e[k] + 1); /* no space to open */
            int need = ew + (mark ? restw : 0); /* room kept for the marker */
            if (used + need > w && used > 0) break;
            o += (size_t)snprintf(row + o, sizeof row - o, "%s",
                                  rows == 0 || used ? e[k] : e[k] + 1);
            used += ew;
            k++;
        }
        if (last && k < ne) snprintf(row + o, sizeof row - o, "%s", SLICE_REST);
        if (out) snprintf(out[rows], sizeof out[0], "%s", row);
        rows++;
        if (k >= ne) break;
    }
    return rows;
}

/* The slice view in the band of the boxes, legend and transfers and the sentence's rows
 * below it (band, what), top to bottom: the grid, the legend line, the tick's moves (whole
 * entries; "(and more)" where some do not fit) and the step's sentence whole, then the
 * summary where it fits whole; the grid has the rows left (its links past them counted:
 * "+N more links"). No line is cut. */
static void draw_slice_view(const struct app *a, const struct coll_slices *sl, struct rect band,
                            struct rect what)
{
    int y0 = band.y, y1 = what.y + what.h > band.y + band.h ? what.y + what.h : band.y + band.h;
    int w = (what.w < band.w ? what.w : band.w) - 2, h = y1 - y0;
    if (w < 20 || h < 4) return;
    char sent[12][256], sum[6][256], leg[4][256], summary[400], legend[160], lead[96];
    static char e[SLICE_MOVES_MAX][48], mv[16][256];
    const char *text = coll_what(a, app_step(a));
    /* the sentence whole (cut only where the band holds nothing else: h rows) */
    int ns = text_wrap(text, w, sent, h - 1 < 12 ? h - 1 : 12, a->utf8);
    coll_slice_summary(a, summary, sizeof summary);
    int nm = text_wrap_count(summary, w) <= 6 ? text_wrap(summary, w, sum, 6, a->utf8) : 0;
    coll_slices_legend_text(sl, legend, sizeof legend);
    int nl = text_wrap_count(legend, w) <= 4 ? text_wrap(legend, w, leg, 4, a->utf8) : 0;
    int ne = coll_slices_moves(a, sl, lead, sizeof lead, e, SLICE_MOVES_MAX);
    int full = coll_slices_moves_rows(lead, e, ne, w, 16, NULL);
    int grid_min = 3, grid_all = sl->tl.nlinks + 1;
    /* what the rows hold, in the order it gives way: the summary, the legend, the moves
     * beyond their first row, then the grid's links beyond its least */
    int left = h - ns - grid_min;
    int nmv = full <= left - 1 ? full : left >= 1 ? left : 0;
    if (nmv < 1 && left >= 1) nmv = 1;
    left -= nmv;
    if (nl > left) nl = 0;
    left -= nl;
    int grid = grid_min + (left > grid_all - grid_min ? grid_all - grid_min : left);
    if (grid > grid_all) grid = grid_all;
    if (grid > h - ns - nl - nmv) grid = h - ns - nl - nmv; /* a band too low for the least */
    left -= grid - grid_min;
    if (nmv < full && left > 0) { /* rows the grid does not need: more of the moves */
        int more = full - nmv < left ? full - nmv : left;
        nmv += more;
        left -= more;
    }
    if (nm > left - 1) nm = 0; /* a blank row above it, or none at all */
    nmv = coll_slices_moves_rows(lead, e, ne, w, nmv, mv);
    int y = y0;
    draw_slices(a, sl, (struct rect){y, band.x, grid, band.w});
    y += grid;
    for (int i = 0; i < nl; i++)
        draw_put(y++, band.x + 1, w, a->th.role[TH_DIM], leg[i]);
    for (int i = 0; i < nmv; i++)
        draw_put(y++, band.x + 1, w, A_NORMAL, mv[i]);
    /* the sentence under the moves, a blank row between where one is left */
    int ys = y + (y1 - y - ns - (nm ? nm + 1 : 0) >= 1 ? 1 : 0);
    for (int i = 0; i < ns; i++)
        draw_put(ys + i, what.x + 1, w, A_BOLD, sent[i]);
    for (int i = 0; i < nm; i++)
        draw_put(ys + ns + 1 + i, what.x + 1, w, a->th.role[TH_LABEL], sum[i]);
}

/* The step's sentence, then (room permitting) the plan's summary; in the slice view the
 * summary says which view is the teaching model and which is how NCCL runs it. */
static void draw_what(const struct app *a, struct rect r)
{
    const struct coll_screen *cs = coll_cstate(a);
    char lines[4][256]; /* 4 rows of the sentence, then 4 of the summary */
    int wl = cs->lay.what_lines < r.h ? cs->lay.what_lines : r.h;
    int max = wl < 4 ? wl : 4;
    int n = text_wrap(coll_what(a, app_step(a)), r.w - 2, lines, max, a->utf8);
    for (int i = 0; i < n && i < max; i++)
        draw_put(r.y + i, r.x + 1, r.w - 2, A_BOLD, lines[i]);
    int sh = r.h - wl;
    if (sh > 0 && cs->have_plan) {
        n = text_wrap(cs->plan.summary, r.w - 2, lines, sh < 4 ? sh : 4, a->utf8);
        for (int i = 0; i < n && i < sh && i < 4; i++) /* "(6 steps)": an answer is "?" */
            draw_put_masked(r.y + wl + i, r.x + 1, r.w - 2, a->th.role[TH_DIM], lines[i]);
    }
}

/* Layout x shows all that layout y shows: every value of every rank, the in/out marks,
 * the legend, every transfer row, the whole sentence and summary, the measured panel at
 * the least height the layout gives it (bordered where it was; one plain line where the
 * presenter asks with a short panel: app.panel_short). Block digits may give way to plain
 * ones and the blank rows between regions may go: the room reads the same. */
static bool shows_all(const struct layout *x, const struct layout *y, bool panel_short)
{
    int panel_min = y->panel.h < LAYOUT_PANEL_H_MIN ? y->panel.h : LAYOUT_PANEL_H_MIN;
    if (panel_short && panel_min > 1) panel_min = 1;
    return x->mode == y->mode && x->shown >= y->shown && x->marks >= y->marks &&
           x->legend.h >= y->legend.h && x->xfer_cols == y->xfer_cols &&
           x->xfer_rows >= y->xfer_rows && x->what_lines >= y->what_lines &&
           x->what.h >= y->what.h && x->panel_side == y->panel_side &&
           (x->panel_side || x->panel.h >= panel_min) &&
           (panel_short || x->panel_compact <= y->panel_compact);
}

/* The widest rank label. */
static int coll_label_w(const struct app *a)
{
    int w = 0;
    for (int k = 0; k < a->sc.nranks; k++) {
        int lw = text_width(a->rank_label[k]);
        if (lw > w) w = lw;
    }
    return w;
}

/* The layout of the scene at rows x w (rows counting the free key bar row) into *out, with
 * the block digits' width factor it chose in *big_sx; false when it does not fit. */
static bool coll_layout_at(const struct app *a, int rows, int w, struct layout *out,
                           int *big_sx)
{
    const struct coll_screen *cs = coll_cstate(a);
    struct layout_content c = {
        .cell_w = cs->cell_w,
        .label_w = 0,
        .nxfers = cs->max_xfers,
        .xfer_w = cs->xfer_w,
        .what = cs->longest_what,
        .summary = cs->have_plan ? cs->plan.summary : NULL,
        /* Embedded in the presenter, the scene may share the page with the narration:
         * the frame around says how many rows it gives (coll_rows_needed). */
        .min_rows = a->bar_row_free ? LAYOUT_EMBED_MIN_ROWS : 0,
        .panel_short = a->panel_short,
    };
    c.label_w = coll_label_w(a);
    size_t L = cs->have_trace ? cs->plan.work_len : 1;
    /* The presenter's zoom: from 1 no measured panel, at 3 only the rank boxes (no
     * transfer list or sentence: their rows shrink to one each and stay empty). */
    c.no_panel = a->zoom >= 1;
    if (a->zoom >= 3) {
        c.nxfers = 0;
        c.what = c.summary = NULL;
    }
    /* Block digits (the presenter's back row) when every value of every rank still shows
     * in boxes and (unzoomed) nothing the plain layout shows gives way for them; zoom 2 first
     * tries them twice as wide (square strokes), zoom 3 twice as wide and twice as tall; the
     * largest that fits, else the plain layout. */
    static const int sizes[][2] = {{2, 2}, {2, 1}, {1, 1}};
    bool big = false;
    int cw1 = a->big_digits && cs->have_trace ? cs->big_cell_w : -1;
    struct layout plain;
    if (cw1 > 0) layout_compute(rows, w, a->sc.nranks, L, &c, &plain);
    size_t from = a->zoom >= 3 ? 0 : a->zoom == 2 ? 1 : 2;
    for (size_t k = from; cw1 > 0 && k < ARRAY_LEN(sizes) && !big; k++) {
        struct layout_content bc = c;
        bc.cell_w = cw1 * sizes[k][0];
        bc.cell_h = BIG_H * sizes[k][1];
        *big_sx = sizes[k][0];
        big = layout_compute(rows, w, a->sc.nranks, L, &bc, out) == LAYOUT_BOXES &&
              out->shown == L && (a->zoom > 0 || shows_all(out, &plain, false));
    }
    if (!big) layout_compute(rows, w, a->sc.nranks, L, &c, out);
    return out->mode != LAYOUT_TOO_SMALL;
}

bool coll_layout(struct app *a, struct rect r)
{
    struct coll_screen *cs = coll_state(a);
    /* Embedded, the key bar's row is not drawn: the layout may use it, just below r. */
    int rows = r.h + (a->bar_row_free ? 1 : 0);
    if (!coll_layout_at(a, rows, r.w, &cs->lay, &cs->big_sx)) return false;
    layout_shift(&cs->lay, r.y, r.x);
    return true;
}

const struct layout *coll_laid_out(const struct app *a)
{
    return &coll_cstate(a)->lay;
}

/* The fewest rows that show all that rows x cols shows: every height from there up to rows
 * shows all that rows shows (the frame may give any). */
static int coll_rows_search(const struct app *a, int cols, int rows)
{
    int extra = a->bar_row_free ? 1 : 0, sx = 0; /* the block digits' factor: not compared */
    struct layout ref, at;
    if (!coll_layout_at(a, rows + extra, cols, &ref, &sx)) return rows;
    int need = rows;
    /* Every height from need up to rows shows all that rows shows: the frame may give any. */
    for (int h = rows - 1; h + extra >= LAYOUT_EMBED_MIN_ROWS; h--) {
        if (!coll_layout_at(a, h + extra, cols, &at, &sx) ||
            !shows_all(&at, &ref, a->panel_short))
            break;
        need = h;
    }
    return need;
}

int coll_rows_needed(struct app *a, int cols, int rows)
{
    /* The slice grid takes the band's every row; a zoom asks for the largest digits. */
    if (coll_slices(a) || a->zoom > 0) return rows;
    /* what the layouts read: the plan, trace and metrics (coll_metrics clears the memo), the
     * rank labels' width and the app's flags (the memo's key) */
    struct coll_screen *cs = coll_state(a);
    int need, lw = coll_label_w(a);
    if (rows_memo_get(&cs->rows_memo, a, cols, rows, lw, &need)) return need;
    need = coll_rows_search(a, cols, rows);
    rows_memo_put(&cs->rows_memo, a, cols, rows, lw, need);
    return need;
}

/* The collectives screen: rank boxes, transfers, sentence, measured panel. */
void coll_draw(struct app *a, struct rect r)
{
    struct coll_screen *cs = coll_state(a);
    if (!coll_layout(a, r)) {
        a->nbar = 0;
        overlay_too_small(a, r, LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS);
        return;
    }
    draw_title(a, cs->lay.title);
    draw_status(a, cs->lay.status);
    const struct coll_slices *sl = coll_slices(a);
    if (sl) {
        /* The grid, legend, moves and sentence take the band of the rank boxes, legend and
         * transfers and the sentence's rows (draw_slice_view). */
        draw_slice_view(a, sl, cs->lay.anim, cs->lay.what);
    } else if (cs->have_trace) {
        draw_ranks(a);
        if (a->zoom < 3) {
            draw_legend(a, cs->lay.legend);
            draw_xfers(a, cs->lay.xfers);
        }
    } else {
        draw_put(cs->lay.anim.y + 1, cs->lay.anim.x + 2, cs->lay.anim.w - 2, a->th.role[TH_BAD],
                 cs->scene_err);
    }
    if (a->zoom < 3 && !sl) draw_what(a, cs->lay.what);
    coll_panel(a, cs->lay.panel);
    frame_bar(a, cs->lay.bar, KEYS_ON_COLL);
}

/* The help overlay's legend for this screen: colours, marks, what the panel holds, and
 * what the animation simplifies. */
void coll_help(const struct app *a, struct styled_lines *p, int width)
{
    char ranks[200], marks[200];
    snprintf(ranks, sizeof ranks, "%s that rank's input only  in/out: send/receive buffer",
             a->g->ell);
    snprintf(marks, sizeof marks, " this step  %s no data  panel: measured; GB/s = 10^9 B/s",
             a->g->dot);
    styled_colour_legend(p, &a->th, a->g, ranks, marks);
    char note[300];
    snprintf(note, sizeof note, "model   %s", coll_model_note());
    styled_wrapped_max(p, A_NORMAL, width, note, 2);
}
