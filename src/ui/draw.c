/* draw.c - everything the collectives screen puts on the terminal, from the state in app.h
 * and the geometry layout_compute() decides. Its primitives (draw_put, draw_frame, the
 * pl_* styled lines, the key bar and help) are shared with the parallelism screen
 * (pardraw.c) through app.h. Drawing is a pure function of the state: the
 * loop erases and redraws everything, and ncurses sends only what changed.
 *
 * Reading a rank box: each value is coloured by whose input it contains (one colour per
 * rank; a partial reduction and the full reduction have their own styles), values written
 * by the current step are in reverse video and values sent by it are underlined, and the
 * marker row under the values says which cells are the send buffer ("in") and the receive
 * buffer ("out") of the collective. */
#include "app.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "text.h"

/* ---- primitives --------------------------------------------------------------------- */

/* Draw UTF-8 text at (y, x), at most maxw columns. Returns the columns drawn. */
int draw_put(int y, int x, int maxw, attr_t attr, const char *s)
{
    if (maxw <= 0 || y < 0 || x < 0) return 0;
    size_t nb = text_prefix_bytes(s, maxw);
    attrset(attr);
    mvaddnstr(y, x, s, (int)nb);
    attrset(A_NORMAL);
    int w = text_width(s);
    return w < maxw ? w : maxw;
}

int draw_putf(int y, int x, int maxw, attr_t attr, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_put(y, x, maxw, attr, buf);
}

void draw_fill(struct rect r, attr_t attr)
{
    attrset(attr);
    for (int y = r.y; y < r.y + r.h; y++)
        mvhline(y, r.x, ' ', r.w);
    attrset(A_NORMAL);
}

/* A border around r, with an optional title in the top edge. */
void draw_frame(const struct app *a, struct rect r, attr_t attr, const char *title,
                attr_t title_attr)
{
    const struct glyphs *g = a->g;
    if (r.w < 2 || r.h < 2) return;
    attrset(attr);
    for (int x = r.x + 1; x < r.x + r.w - 1; x++) {
        mvaddstr(r.y, x, g->h);
        mvaddstr(r.y + r.h - 1, x, g->h);
    }
    for (int y = r.y + 1; y < r.y + r.h - 1; y++) {
        mvaddstr(y, r.x, g->v);
        mvaddstr(y, r.x + r.w - 1, g->v);
    }
    mvaddstr(r.y, r.x, g->tl);
    mvaddstr(r.y, r.x + r.w - 1, g->tr);
    mvaddstr(r.y + r.h - 1, r.x, g->bl);
    mvaddstr(r.y + r.h - 1, r.x + r.w - 1, g->br);
    attrset(A_NORMAL);
    if (title && r.w > 4) {
        char t[256];
        snprintf(t, sizeof t, " %s ", title);
        char fit[256];
        text_fit(fit, sizeof fit, t, r.w - 2, a->utf8);
        draw_put(r.y, r.x + 1, r.w - 2, title_attr, fit);
    }
}

struct pline *pl_new(struct plines *p)
{
    if (p->n >= (int)ARRAY_LEN(p->l)) return &p->l[p->n - 1];
    struct pline *l = &p->l[p->n++];
    l->n = 0;
    return l;
}

void pl_add(struct pline *l, attr_t attr, const char *fmt, ...)
{
    if (l->n >= (int)ARRAY_LEN(l->seg)) return;
    struct seg *s = &l->seg[l->n++];
    s->attr = attr;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text, sizeof s->text, fmt, ap);
    va_end(ap);
}

/* One wrapped line of text in one style; long text continues on further lines. */
/* The glyph mode of the screen being drawn, for the ellipsis of wrapped panel text (set by
 * draw_screen; drawing happens on one thread). */
static bool draw_utf8 = true;

void pl_wrapped_max(struct plines *p, attr_t attr, int width, const char *text, int max)
{
    char lines[6][256];
    if (max > 6) max = 6;
    int n = text_wrap(text, width, lines, max, draw_utf8);
    for (int i = 0; i < n && i < max; i++)
        pl_add(pl_new(p), attr, "%s", lines[i]);
}

static void pl_wrapped(struct plines *p, attr_t attr, int width, const char *text)
{
    pl_wrapped_max(p, attr, width, text, 6);
}

int pl_width(const struct pline *l)
{
    int w = 0;
    for (int i = 0; i < l->n; i++)
        w += text_width(l->seg[i].text);
    return w;
}

void pl_draw_line(const struct pline *l, int y, int x, int w)
{
    int used = 0;
    for (int i = 0; i < l->n && used < w; i++)
        used += draw_put(y, x + used, w - used, l->seg[i].attr, l->seg[i].text);
}

/* Lines [from, from+h) of p into the rectangle; returns the lines drawn. */
int pl_draw(const struct plines *p, int from, struct rect r)
{
    int k = 0;
    for (; k < r.h && from + k < p->n; k++)
        pl_draw_line(&p->l[from + k], r.y + k, r.x, r.w);
    return k;
}

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
             a->g->sep, coll_title(s->coll), a->g->sep, algo_name(s->algo), a->g->sep,
             s->nranks, a->g->sep, scene_count(s), a->g->sep, op, a->g->sep, root);
    char right[64];
    snprintf(right, sizeof right, "backend: %s ", a->w ? a->backend_name : "none");
    int rw = text_width(right);
    int lw = draw_put(r.y, r.x, r.w, t, left);
    if (lw + rw + 2 <= r.w) draw_put(r.y, r.x + r.w - rw, rw, t, right);
}

static void draw_status(const struct app *a, struct rect r)
{
    size_t step = app_step(a), n = app_nsteps(a);
    int x = r.x + 1, end = r.x + r.w;
    x += draw_putf(r.y, x, end - x, a->th.role[TH_STEP], "step %zu/%zu", step, n);
    if (a->have_trace && step > 0)
        x += draw_putf(r.y, x, end - x, a->th.role[TH_LABEL], "  %s",
                       a->plan.steps[step - 1].phase);
    if (a->playing)
        x += draw_putf(r.y, x, end - x, a->th.role[TH_WARN], "  %s playing", a->g->play);
    char fit[512];
    if (a->msg[0]) {
        text_fit(fit, sizeof fit, a->msg, end - x - 2, a->utf8);
        draw_put(r.y, x + 2, end - x - 2, a->th.role[TH_WARN], fit);
    } else if (a->have_plan && a->lay.what.h <= a->lay.what_lines) {
        text_fit(fit, sizeof fit, a->plan.summary, end - x - 2, a->utf8);
        draw_put(r.y, x + 2, end - x - 2, a->th.role[TH_DIM], fit);
    }
}

/* ---- rank boxes --------------------------------------------------------------------- */

enum { HL_SRC = 1, HL_DST = 2 };

/* Which elements the current step reads and writes, per rank. */
static unsigned char *draw_highlights(const struct app *a, size_t step)
{
    size_t L = a->plan.work_len;
    unsigned char *hl = xcalloc((size_t)a->plan.nranks * (L ? L : 1), 1);
    if (step == 0) return hl;
    const struct step *st = &a->plan.steps[step - 1];
    for (size_t k = 0; k < st->n; k++) {
        const struct xfer *x = &a->plan.x[st->first + k];
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

static void draw_value(const struct app *a, int y, int x, float v, unsigned mask,
                       unsigned char hl)
{
    char t[32], cell[40];
    attr_t at = theme_mask_attr(&a->th, mask, a->plan.nranks);
    if (mask == 0)
        snprintf(t, sizeof t, "%s", a->g->dot);
    else
        text_value(t, sizeof t, v);
    if (hl & HL_DST)
        at |= a->th.role[TH_DST];
    else if (hl & HL_SRC)
        at |= a->th.role[TH_SRC];
    int cw = a->lay.cell_w;
    int pad = cw - text_width(t);
    snprintf(cell, sizeof cell, "%*s%s", pad > 0 ? pad : 0, "", t);
    draw_put(y, x, cw, at, cell);
}

/* The marker row: runs of cells with the same in/out tag drawn as "╰─in─╯". A run owns its
 * cells and half of the gaps around them, so neighbouring runs never touch; a run too
 * narrow for its bracketed label gets the bare label, then a short one ("i/o"). */
static void draw_marks(const struct app *a, int r, int y)
{
    const struct layout *l = &a->lay;
    static const char *const full[] = {"", "in", "out", "in=out"};
    static const char *const shrt[] = {"", "in", "out", "i/o"};
    static const char *const one[] = {"", "i", "o", "*"};
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
            const char *lab = full[tag];
            int lw = text_width(lab);
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
                if (w < lw) lab = (int)strlen(shrt[tag]) <= w ? shrt[tag] : one[tag];
                draw_put(y, x0 + (w - text_width(lab)) / 2, w, at, lab);
            }
        }
        i = j + 1;
    }
}

/* Without a marker row: brackets around the receive buffer, "[6 10 14 18]". */
static void draw_brackets(const struct app *a, int r)
{
    const struct layout *l = &a->lay;
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
    char forms[4][96];
    const char *rest = a->rank_label[r];
    char head[24];
    snprintf(head, sizeof head, "rank %d", r);
    if (strncmp(rest, head, strlen(head)) == 0) rest += strlen(head);
    snprintf(forms[0], sizeof forms[0], "rank %d%s", r, rest);
    snprintf(forms[1], sizeof forms[1], "r%d%s", r, rest);
    snprintf(forms[2], sizeof forms[2], "rank %d", r);
    snprintf(forms[3], sizeof forms[3], "r%d", r);
    size_t L = a->plan.work_len;
    for (int k = 0; k < 4; k++) {
        if (a->lay.shown < L)
            snprintf(buf, n, "%s (%zu of %zu)", forms[k], a->lay.shown, L);
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
    const struct layout *l = &a->lay;
    size_t step = app_step(a);
    size_t L = a->plan.work_len;
    unsigned char *hl = draw_highlights(a, step);
    for (int r = 0; r < a->plan.nranks; r++) {
        struct rect b = l->box[r];
        const float *v = trace_buf(&a->trace, step, r);
        const uint32_t *m = trace_mask(&a->trace, step, r);
        bool hot = draw_rank_hot(hl, r, L);
        if (l->mode == LAYOUT_BOXES) {
            char label[512];
            draw_box_label(a, r, b.w - 4, label, sizeof label);
            attr_t fa = hot ? a->th.role[TH_BORDER_HOT] : a->th.role[TH_BORDER];
            draw_frame(a, b, fa, label, a->th.rank[r] | A_BOLD);
        } else {
            draw_putf(b.y, b.x, 4, a->th.rank[r] | A_BOLD, "r%d", r);
            draw_put(b.y, b.x + 4, 1, hot ? a->th.role[TH_BORDER_HOT] : a->th.role[TH_BORDER],
                     a->g->v);
        }
        for (size_t i = 0; i < l->shown; i++) {
            int y, x;
            layout_cell_pos(l, r, i, &y, &x);
            draw_value(a, y, x, v[i], m[i], hl[(size_t)r * L + i]);
        }
        if (l->shown < L) {
            int y, x;
            layout_cell_pos(l, r, l->shown, &y, &x);
            draw_put(y, x, l->cell_w, a->th.role[TH_DIM], a->g->ell);
        }
        if (l->marks)
            draw_marks(a, r, b.y + 1 + l->value_lines);
        else
            draw_brackets(a, r);
    }
    free(hl);
}

static void draw_legend(const struct app *a, struct rect r)
{
    if (r.h < 1) return;
    struct pline pl = {.n = 0};
    const struct theme *th = &a->th;
    int W = a->sc.nranks;
    pl_add(&pl, th->role[TH_DIM], "data of ");
    if (W <= 8) {
        for (int k = 0; k < W; k++)
            pl_add(&pl, th->rank[k] | A_BOLD, "r%d ", k);
    } else {
        pl_add(&pl, th->rank[0] | A_BOLD, "r0");
        pl_add(&pl, th->role[TH_DIM], "%s", a->g->ell);
        pl_add(&pl, th->rank[W - 1] | A_BOLD, "r%d ", W - 1);
    }
    if (coll_reduces(a->sc.coll)) {
        pl_add(&pl, th->role[TH_REDUCED], "%s partial", a->g->sigma);
        pl_add(&pl, th->role[TH_COMPLETE], " %s all %d ", a->g->sigma, W);
    }
    pl_add(&pl, A_NORMAL, " %s empty  ", a->g->dot);
    pl_add(&pl, th->role[TH_DST], "written");
    pl_add(&pl, A_NORMAL, " ");
    pl_add(&pl, th->role[TH_SRC], "sent");
    if (!a->lay.marks) pl_add(&pl, th->role[TH_LABEL], "  [ ] output");
    int w = pl_width(&pl);
    pl_draw_line(&pl, r.y, r.x + (w < r.w ? (r.w - w) / 2 : 0), r.w);
}

static void draw_xfers(const struct app *a, struct rect r)
{
    size_t step = app_step(a);
    const struct layout *l = &a->lay;
    if (step == 0 || !a->have_trace) {
        const char *t = app_nsteps(a) ? "no transfers yet: press \u2192 (or l) to run step 1"
                                      : "no transfers";
        if (!a->utf8 && app_nsteps(a)) t = "no transfers yet: press Right (or l) to run step 1";
        draw_put(r.y, r.x + 1, r.w - 1, a->th.role[TH_DIM], t);
        return;
    }
    const struct step *st = &a->plan.steps[step - 1];
    int slots = l->xfer_rows * l->xfer_cols;
    int n = (int)st->n;
    int show = n <= slots ? n : slots - 1;
    int colw = a->xfer_w + 2;
    int x0 = r.x + (r.w - (l->xfer_cols * colw - 2)) / 2;
    if (x0 < r.x) x0 = r.x;
    for (int k = 0; k < show; k++) {
        const struct xfer *x = &a->plan.x[st->first + (size_t)k];
        int y = r.y + k / l->xfer_cols, cx = x0 + (k % l->xfer_cols) * colw;
        char t[APP_XFER_TEXT];
        app_xfer_text(a, x, step, t, sizeof t);
        if (x->kind == XFER_SCALE) {
            draw_put(y, cx, a->xfer_w, a->th.rank[x->dst] | A_BOLD, t);
            continue;
        }
        char head[32];
        snprintf(head, sizeof head, "r%d %s r%d", x->src, a->g->arrow, x->dst);
        int cxx = cx;
        cxx += draw_putf(y, cxx, 4, a->th.rank[x->src] | A_BOLD, "r%d", x->src);
        cxx += draw_putf(y, cxx, 4, a->th.role[TH_DIM], " %s ", a->g->arrow);
        cxx += draw_putf(y, cxx, 4, a->th.rank[x->dst] | A_BOLD, "r%d", x->dst);
        draw_put(y, cxx, a->xfer_w - (cxx - cx), A_NORMAL, t + strlen(head));
    }
    if (show < n) {
        int y = r.y + show / l->xfer_cols, cx = x0 + (show % l->xfer_cols) * colw;
        draw_putf(y, cx, colw, a->th.role[TH_DIM], "+%d more", n - show);
    }
}

/* The step's sentence, then (room permitting) the plan's summary. */
static void draw_what(const struct app *a, struct rect r)
{
    char lines[4][256];
    int wl = a->lay.what_lines < r.h ? a->lay.what_lines : r.h;
    int max = wl < 4 ? wl : 4;
    int n = text_wrap(app_what(a, app_step(a)), r.w - 2, lines, max, a->utf8);
    for (int i = 0; i < n && i < max; i++)
        draw_put(r.y + i, r.x + 1, r.w - 2, A_BOLD, lines[i]);
    int sh = r.h - wl;
    if (sh > 0 && a->have_plan) {
        n = text_wrap(a->plan.summary, r.w - 2, lines, sh < 4 ? sh : 4, a->utf8);
        for (int i = 0; i < n && i < sh && i < 4; i++)
            draw_put(r.y + wl + i, r.x + 1, r.w - 2, a->th.role[TH_DIM], lines[i]);
    }
}

/* ---- measured panel ----------------------------------------------------------------- */

static void panel_badge(const struct app *a, struct pline *l)
{
    const struct meas *m = &a->m;
    const struct theme *th = &a->th;
    switch (m->check) {
    case CHECK_PASS:
        /* "cpu ranks" executed the drawn plan itself; another backend ran its own
         * algorithm, and a reduction in its own order may differ in the last bits. */
        pl_add(l, th->role[TH_OK], "%s animation = %s%s", a->g->ok, a->backend_name,
               backend_kind_of(a->backend_name) == BACKEND_CPU ? " ranks" : "");
        pl_add(l, th->role[TH_DIM], " (%s)",
               m->inexact ? "within float rounding" : "bit for bit");
        break;
    case CHECK_FAIL:
        pl_add(l, th->role[TH_BAD], "%s %ld element%s differ", a->g->bad, m->mismatches,
               m->mismatches == 1 ? "" : "s");
        pl_add(l, th->role[TH_DIM], " (animation vs %s)", a->backend_name);
        break;
    case CHECK_PENDING:
        pl_add(l, th->role[TH_WARN], "%s checking animation vs %s", a->g->busy,
               a->backend_name);
        break;
    case CHECK_ERROR:
        pl_add(l, th->role[TH_BAD], "%s check failed: %s", a->g->bad, m->check_msg);
        break;
    case CHECK_SKIPPED:
        pl_add(l, th->role[TH_WARN], "%s", m->check_msg);
        break;
    case CHECK_NONE:
        pl_add(l, th->role[TH_DIM], "animation not checked yet");
        break;
    }
}

/* The figures of the last measurement, each saying what it is and where it came from. */
static void panel_numbers(const struct app *a, struct plines *p, int width, bool with_badge)
{
    const struct meas *m = &a->m;
    const struct theme *th = &a->th;
    attr_t lab = th->role[TH_LABEL], num = th->role[TH_MEASURED];
    if (with_badge) panel_badge(a, pl_new(p));
    char size[32];
    if (meas_measuring(m)) {
        format_size(m->measure_params.bytes, size, sizeof size);
        struct pline *l = pl_new(p);
        pl_add(l, th->role[TH_WARN], "measuring %s%s %.1f s", size, a->g->ell,
               now_s() - m->measure_started);
        pl_add(l, th->role[TH_DIM], " (x cancels)");
    } else if (m->measure_err[0]) {
        struct pline *l = pl_new(p);
        pl_add(l, th->role[TH_BAD], "measurement: %s", m->measure_err);
    }
    if (!m->have_row) {
        if (!meas_measuring(m))
            pl_add(pl_new(p), th->role[TH_DIM], "not measured yet (m measures)");
        return;
    }
    const struct bench_result *row = &m->row;
    format_size(row->bytes, size, sizeof size);
    struct pline *l = pl_new(p);
    pl_add(l, lab, "measured on %s: ", m->row_backend);
    pl_add(l, A_BOLD, "%s %s, W=%d", coll_title(m->row_params.coll), size, row->nranks);
    char t[32], alg[32], bus[32];
    text_time_us(t, sizeof t, row->time_us);
    text_gbps(alg, sizeof alg, row->algbw);
    text_gbps(bus, sizeof bus, row->busbw);
    l = pl_new(p);
    pl_add(l, lab, "time  ");
    pl_add(l, num, "%-10s", t);
    pl_add(l, lab, "algbw ");
    pl_add(l, num, "%s GB/s", alg);
    l = pl_new(p);
    pl_add(l, lab, "busbw ");
    pl_add(l, num | A_BOLD, "%s GB/s", bus);
    pl_add(l, th->role[TH_DIM], "  (GB = 10^9 B)");
    char sym[96], nums[160];
    meas_formula(m->row_params.coll, row->nranks, row->bytes, row->time_us, a->utf8, sym,
                 sizeof sym, nums, sizeof nums);
    pl_add(pl_new(p), A_NORMAL, "%s", sym);
    pl_add(pl_new(p), A_NORMAL, "  %s", nums);
    l = pl_new(p);
    pl_add(l, lab, "#wrong ");
    if (row->wrong < 0)
        pl_add(l, th->role[TH_DIM], "not checked");
    else
        pl_add(l, row->wrong ? th->role[TH_BAD] : num, "%ld", row->wrong);
    pl_add(l, th->role[TH_DIM], "  algo %s", row->algo);
    /* NCCL_ALGO / NCCL_PROTO steer what NCCL measured: say so next to the figures. */
    char env[160];
    hw_nccl_env_text(&a->hw, env, sizeof env);
    if (env[0] && (backend_caps_of(m->row_backend) & BACKEND_CAP_NCCL_ENV))
        pl_wrapped(p, th->role[TH_WARN], width, env);
    if (row->nranks != a->sc.nranks)
        pl_wrapped(p, th->role[TH_WARN], width,
                   row->nranks < a->sc.nranks && a->max_ranks < a->sc.nranks
                       ? "measured on fewer ranks than the animation shows (the backend has "
                         "no more)"
                       : "measured at a different world size than the animation shows");
    if (row->how[0]) pl_wrapped(p, th->role[TH_DIM], width, row->how);
}

/* What the backend's ranks are, and the measurement size; then, in at most note_lines
 * lines, why NCCL is not the backend ("nccl: unavailable — no usable GPU: ..."): a student
 * with no GPU sees at a glance why the CPU ranks run (b shows the whole reason). */
static void panel_backend(const struct app *a, struct plines *p, int width, int note_lines)
{
    const struct theme *th = &a->th;
    char t[320];
    snprintf(t, sizeof t, "backend %s: %s", a->w ? a->backend_name : "none", a->backend_desc);
    pl_wrapped_max(p, th->role[TH_LABEL], width, t, a->lay.panel_side ? 6 : 2);
    char size[32];
    format_size(a->sc.meas_bytes, size, sizeof size);
    struct pline *l = pl_new(p);
    pl_add(l, th->role[TH_DIM], "size ");
    pl_add(l, A_BOLD, "%s", size);
    pl_add(l, th->role[TH_DIM], " ([ ] halve/double)");
    char note[300];
    hw_panel_note(&a->hw, a->utf8, note, sizeof note);
    if (note[0] && note_lines > 0)
        pl_wrapped_max(p, th->role[TH_WARN], width, note, note_lines);
}

/* busbw vs size from the last sweep: one bar per size, heights in eighths of a row. */
static void panel_plot(const struct app *a, struct rect r)
{
    const struct meas *m = &a->m;
    const struct theme *th = &a->th;
    if (r.h < 1 || r.w < 10) return;
    char lo[16], hi[16];
    meas_size_label(4096, lo, sizeof lo);
    meas_size_label(a->sc.meas_bytes, hi, sizeof hi);
    if (meas_sweeping(m)) {
        draw_putf(r.y, r.x, r.w, th->role[TH_WARN], "sweeping %d/%d %s %.1f s  (x cancels)",
                  m->nsweep + 1 > m->sweep_total ? m->sweep_total : m->nsweep + 1,
                  m->sweep_total, a->g->ell, now_s() - m->sweep_started);
    } else if (m->nsweep == 0) {
        draw_putf(r.y, r.x, r.w, th->role[TH_DIM], "busbw vs size: press s to sweep %s..%s", lo,
                  hi);
        if (m->sweep_err[0] && r.h > 1)
            draw_putf(r.y + 1, r.x, r.w, th->role[TH_BAD], "sweep: %s", m->sweep_err);
        return;
    } else {
        draw_putf(r.y, r.x, r.w, th->role[TH_LABEL], "busbw GB/s vs size: %s, W=%d",
                  coll_title(m->sweep_params.coll), m->sweep[0].nranks);
    }
    if (m->nsweep == 0 || r.h < 4) return;
    double max = 0;
    for (int i = 0; i < m->nsweep; i++)
        if (m->sweep[i].busbw > max) max = m->sweep[i].busbw;
    int total = m->sweep_total > m->nsweep ? m->sweep_total : m->nsweep;
    char maxs[16];
    text_gbps(maxs, sizeof maxs, max);
    int gut = text_width(maxs) + 1;
    int colw = (r.w - gut) / total;
    if (colw > 6) colw = 6;
    if (colw < 2) return;
    bool wide = false;
    for (int i = 0; i < m->nsweep; i++) {
        char lab[16];
        meas_size_label(m->sweep[i].bytes, lab, sizeof lab);
        if (text_width(lab) >= colw) wide = true;
    }
    int rows = r.h - 2; /* title above, size labels below */
    int base = r.y + 1 + rows - 1;
    draw_put(r.y + 1, r.x, gut, th->role[TH_DIM], maxs);
    draw_put(base, r.x + gut - 2, 2, th->role[TH_DIM], "0");
    for (int i = 0; i < total; i++) {
        int cx = r.x + gut + i * colw;
        if (i < m->nsweep) {
            int e = meas_bar_eighths(m->sweep[i].busbw, max, rows);
            for (int k = 0; k < rows; k++) {
                int fillv = e - k * 8;
                fillv = fillv < 0 ? 0 : fillv > 8 ? 8 : fillv;
                for (int c = 0; c < colw - 1; c++)
                    draw_put(base - k, cx + c, 1, th->role[TH_PLOT], a->g->blocks[fillv]);
            }
        }
        char lab[16];
        size_t b = i < m->nsweep ? m->sweep[i].bytes : 0;
        if (b)
            meas_size_label(b, lab, sizeof lab);
        else
            snprintf(lab, sizeof lab, "%s", a->g->dot);
        /* Labels wider than a column: every other one, each using two columns. */
        if (!wide || i % 2 == 0)
            draw_put(base + 1, cx, wide ? 2 * colw : colw, th->role[TH_DIM], lab);
    }
    if (m->sweep_err[0] && !meas_sweeping(m))
        draw_putf(r.y, r.x + r.w - 12 > r.x ? r.x + r.w - 12 : r.x, 12, th->role[TH_BAD],
                  "(%.10s)", m->sweep_err);
}

static void draw_panel(const struct app *a, struct rect r)
{
    const struct theme *th = &a->th;
    const struct layout *l = &a->lay;
    if (r.h < 1) return;
    if (l->panel_compact) {
        /* A line or two: the badge and the headline figure. */
        struct plines p = {.n = 0};
        struct pline *ln = pl_new(&p);
        panel_badge(a, ln);
        if (a->m.have_row) {
            char bus[32], size[32];
            text_gbps(bus, sizeof bus, a->m.row.busbw);
            format_size(a->m.row.bytes, size, sizeof size);
            pl_add(ln, th->role[TH_LABEL], "  busbw ");
            pl_add(ln, th->role[TH_MEASURED], "%s GB/s", bus);
            pl_add(ln, th->role[TH_DIM], " measured on %s, %s, W=%d", a->m.row_backend, size,
                   a->m.row.nranks);
        } else {
            pl_add(ln, th->role[TH_DIM], "  %s",
                   meas_measuring(&a->m) ? "measuring" : "not measured yet");
        }
        char t[320];
        snprintf(t, sizeof t, "backend %s: %s", a->w ? a->backend_name : "none",
                 a->backend_desc);
        pl_add(pl_new(&p), th->role[TH_DIM], "%s", t);
        pl_draw(&p, 0, (struct rect){r.y, r.x + 1, r.h, r.w - 2});
        return;
    }
    char title[64];
    snprintf(title, sizeof title, "measured%s%s", a->g->sep,
             a->w ? a->backend_name : "no backend");
    draw_frame(a, r, a->th.role[TH_BORDER], title, th->role[TH_LABEL] | A_BOLD);
    struct rect in = {r.y + 1, r.x + 2, r.h - 2, r.w - 4};
    /* Why the preferred backend is not used (e.g. no GPU) comes last: it matters once. */
    struct plines note = {.n = 0};
    if (a->backend_note[0])
        pl_wrapped_max(&note, th->role[TH_WARN], l->panel_side ? in.w : in.w / 2 - 3,
                       a->backend_note, l->panel_side ? 6 : 2);
    if (l->panel_side) {
        struct plines p = {.n = 0};
        panel_backend(a, &p, in.w, 3);
        panel_badge(a, pl_new(&p));
        pl_new(&p);
        panel_numbers(a, &p, in.w, false);
        int used = pl_draw(&p, 0, in);
        struct rect pr = {in.y + used + 1, in.x, in.h - used - 1 - (note.n ? note.n + 1 : 0),
                          in.w};
        if (pr.h > 8) pr.h = 8 + (pr.h - 8) / 3; /* a taller plot reads no better */
        panel_plot(a, pr);
        if (pr.h < 0) pr.h = 0;
        pl_draw(&note, 0,
                (struct rect){pr.y + pr.h + 1, in.x, in.y + in.h - pr.y - pr.h - 1, in.w});
    } else {
        /* Two columns: figures on the left; backend, then the plot (or the note while
         * there is no sweep) on the right. */
        int lw = in.w / 2 + 2;
        struct plines left = {.n = 0}, right = {.n = 0};
        panel_numbers(a, &left, lw - 1, true);
        pl_draw(&left, 0, (struct rect){in.y, in.x, in.h, lw - 1});
        /* The nccl line gets two lines until a sweep's plot needs the room. */
        bool plot = a->m.nsweep > 0 || meas_sweeping(&a->m);
        panel_backend(a, &right, in.w - lw - 1, plot ? 1 : 2);
        struct rect rr = {in.y, in.x + lw + 1, in.h, in.w - lw - 1};
        int used = pl_draw(&right, 0, rr);
        if (a->m.nsweep == 0 && !meas_sweeping(&a->m))
            used += pl_draw(&note, 0, (struct rect){rr.y + used, rr.x, rr.h - used, rr.w});
        panel_plot(a, (struct rect){rr.y + used, rr.x, rr.h - used, rr.w});
    }
}

/* ---- help overlay, bar, too-small --------------------------------------------------- */

/* The help overlay: every row of the key table that belongs to this screen (in as many
 * columns as the height needs), then the colour legend. */
void draw_help_overlay(const struct app *a, int H, int Wd)
{
    const struct theme *th = &a->th;
    unsigned screen = a->sc.screen == SCREEN_PARALLEL ? KEYS_ON_PAR : KEYS_ON_COLL;
    const struct key_row *rows[ACT_COUNT];
    int rows_n = 0;
    for (int i = 0; i < ACT_COUNT; i++)
        if (keys_table()[i].screens & screen) rows[rows_n++] = &keys_table()[i];
    int LEGEND_H = a->sc.screen == SCREEN_PARALLEL ? 5 : 4;
    int avail = H - 1 - 2 - 1 - LEGEND_H; /* bar, border, gap above the legend */
    if (avail < 1) avail = 1;
    int ncol = (rows_n + avail - 1) / avail;
    int per_col = (rows_n + ncol - 1) / ncol;
    int colw = (Wd - 6) / ncol;
    if (colw > 40) colw = 40;
    int w = ncol * colw + 4;
    int h = per_col + LEGEND_H + 3;
    if (h > H - 1) h = H - 1;
    struct rect r = {(H - 1 - h) / 2, (Wd - w) / 2, h, w};
    draw_fill(r, A_NORMAL);
    draw_frame(a, r, th->role[TH_LABEL] | A_BOLD, "help: keys (? or Esc closes)", A_BOLD);
    int kw = 11;
    for (int i = 0; i < rows_n; i++) {
        int c = i / per_col, k = i % per_col;
        int y = r.y + 1 + k, x = r.x + 2 + c * colw;
        char names[64];
        keys_row_names(rows[i], a->utf8, names, sizeof names);
        draw_put(y, x, kw - 1, th->role[TH_BAR_KEY] | th->role[TH_LABEL], names);
        char fit[128];
        text_fit(fit, sizeof fit, rows[i]->help, colw - kw - 1, a->utf8);
        draw_put(y, x + kw, colw - kw - 1, A_NORMAL, fit);
    }
    int y = r.y + 2 + per_col;
    struct rect lr = {y, r.x + 2, r.y + r.h - 1 - y, r.w - 4};
    struct plines p = {.n = 0};
    struct pline *l = pl_new(&p);
    pl_add(l, A_BOLD, "colours ");
    for (int k = 0; k < 4 && k < CV_MAX_RANKS; k++)
        pl_add(l, th->rank[k] | A_BOLD, "r%d ", k);
    pl_add(l, A_NORMAL, "%s a value holding that rank's input only", a->g->ell);
    l = pl_new(&p);
    pl_add(l, A_NORMAL, "        ");
    pl_add(l, th->role[TH_REDUCED], " %s ", a->g->sigma);
    pl_add(l, A_NORMAL, " partial reduction (several ranks)  ");
    pl_add(l, th->role[TH_COMPLETE], " %s ", a->g->sigma);
    pl_add(l, A_NORMAL, " all ranks reduced");
    l = pl_new(&p);
    pl_add(l, A_NORMAL, "        ");
    pl_add(l, th->role[TH_DST], "written");
    pl_add(l, A_NORMAL, "/");
    pl_add(l, th->role[TH_SRC], "sent");
    if (a->sc.screen == SCREEN_PARALLEL) {
        pl_add(l, A_NORMAL, " by this step  %s no data", a->g->dot);
        l = pl_new(&p);
        pl_add(l, A_BOLD, "values  ");
        pl_add(l, A_NORMAL, "83 under %s is 0.83; ",
               a->utf8 ? "\u00d710\u207b\u00b2" : "x1e-2");
        pl_add(l, th->role[TH_OK], "%s", a->g->ok);
        pl_add(l, A_NORMAL, " equals the single-device value");
    } else {
        pl_add(l, A_NORMAL, " by this step  %s no data  in/out: send/receive buffer",
               a->g->dot);
    }
    l = pl_new(&p);
    pl_add(l, A_BOLD, "panel   ");
    if (a->sc.screen == SCREEN_PARALLEL)
        pl_add(l, A_NORMAL, "measured on cpu ranks at lecture scale; \"model\" marks formulas");
    else
        pl_add(l, A_NORMAL, "figures measured by the backend; GB/s = 10^9 B/s");
    pl_draw(&p, 0, lr);
}

/* The backends and hardware overlay (b): every backend compiled in with its status, the
 * machine the CPU ranks run on, and for NCCL the GPUs, their peer access and the versions,
 * or why NCCL is not there (hw.h builds the lines). */
void draw_hw_overlay(const struct app *a, int H, int Wd)
{
    const struct theme *th = &a->th;
    const char *title = "backends and hardware (b or Esc closes)";
    int maxw = Wd - 2 < 104 ? Wd - 2 : 104;
    if (maxw < 24 || H < 6) return;
    struct hw_line lines[96];
    int n = hw_lines(&a->hw, a->w ? a->backend_desc : "", a->utf8, maxw - 4, lines,
                     (int)ARRAY_LEN(lines));
    int w = text_width(title) + 4;
    for (int i = 0; i < n; i++)
        if (text_width(lines[i].text) + 4 > w) w = text_width(lines[i].text) + 4;
    if (w > maxw) w = maxw;
    int h = n + 2 < H - 1 ? n + 2 : H - 1;
    struct rect r = {(H - 1 - h) / 2, (Wd - w) / 2, h, w};
    draw_fill(r, A_NORMAL);
    draw_frame(a, r, th->role[TH_LABEL] | A_BOLD, title, A_BOLD);
    int rows = h - 2;
    for (int i = 0; i < n && i < rows; i++) {
        int y = r.y + 1 + i;
        if (i == rows - 1 && n > rows) {
            draw_putf(y, r.x + 2, w - 4, th->role[TH_DIM],
                      "%s %d more line%s (a taller terminal "
                      "shows them)",
                      a->g->ell, n - rows + 1, n - rows + 1 == 1 ? "" : "s");
            break;
        }
        attr_t at = A_NORMAL;
        switch (lines[i].style) {
        case HW_HEAD_OK:
            at = th->role[TH_OK] | A_BOLD;
            break;
        case HW_HEAD:
            at = A_BOLD;
            break;
        case HW_HEAD_WARN:
            at = th->role[TH_WARN] | A_BOLD;
            break;
        case HW_TEXT:
            at = A_NORMAL;
            break;
        case HW_DIM:
            at = th->role[TH_DIM];
            break;
        }
        draw_put(y, r.x + 2, w - 4, at, lines[i].text);
    }
}

void draw_key_bar(struct app *a, struct rect r, unsigned screen)
{
    a->nbar = keys_bar_for(r.w - 1, a->utf8, screen, a->bar, APP_BAR_MAX);
    for (int i = 0; i < a->nbar; i++) {
        const struct bar_item *b = &a->bar[i];
        int kw = draw_put(r.y, r.x + b->x, b->w, a->th.role[TH_BAR_KEY], b->keys);
        draw_put(r.y, r.x + b->x + kw, b->w - kw, a->th.role[TH_BAR_LABEL], " ");
        draw_put(r.y, r.x + b->x + kw + 1, b->w - kw - 1, a->th.role[TH_BAR_LABEL], b->label);
    }
}

void draw_too_small_notice(const struct app *a, int rows, int cols)
{
    char t[96];
    snprintf(t, sizeof t, "terminal too small: %dx%d, need %dx%d", cols, rows, LAYOUT_MIN_COLS,
             LAYOUT_MIN_ROWS);
    int w = text_width(t);
    int x = w < cols ? (cols - w) / 2 : 0;
    draw_put(rows / 2, x, cols, A_BOLD, t);
    if (rows > 2) {
        const char *q = "q quits";
        draw_put(rows / 2 + 1, (cols - 7) / 2 > 0 ? (cols - 7) / 2 : 0, cols, A_NORMAL, q);
    }
}

/* The collectives screen: rank boxes, transfers, sentence, measured panel. */
static void draw_collectives(struct app *a, int rows, int cols)
{
    struct layout_content c = {
        .cell_w = a->cell_w,
        .label_w = 0,
        .nxfers = a->max_xfers,
        .xfer_w = a->xfer_w,
        .what = a->longest_what,
        .summary = a->have_plan ? a->plan.summary : NULL,
    };
    for (int r = 0; r < a->sc.nranks; r++) {
        int w = text_width(a->rank_label[r]);
        if (w > c.label_w) c.label_w = w;
    }
    size_t L = a->have_trace ? a->plan.work_len : 1;
    layout_compute(rows, cols, a->sc.nranks, L, &c, &a->lay);
    if (a->lay.mode == LAYOUT_TOO_SMALL) {
        a->nbar = 0;
        draw_too_small_notice(a, rows, cols);
        return;
    }
    draw_title(a, a->lay.title);
    draw_status(a, a->lay.status);
    if (a->have_trace) {
        draw_ranks(a);
        draw_legend(a, a->lay.legend);
        draw_xfers(a, a->lay.xfers);
    } else {
        draw_put(a->lay.anim.y + 1, 2, a->lay.anim.w - 2, a->th.role[TH_BAD], a->scene_err);
    }
    draw_what(a, a->lay.what);
    draw_panel(a, a->lay.panel);
    draw_key_bar(a, a->lay.bar, KEYS_ON_COLL);
    if (a->help) draw_help_overlay(a, rows, cols);
    if (a->hw_open) draw_hw_overlay(a, rows, cols);
}

/* One function per screen kind (scene.h); later screens add their case here. */
void draw_screen(struct app *a)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    draw_utf8 = a->utf8;
    erase();
    switch (a->sc.screen) {
    case SCREEN_PARALLEL:
        par_draw(a, rows, cols);
        break;
    case SCREEN_COLLECTIVES:
    case SCREEN_HIERARCHY: /* its own screen is still to come: the collectives meanwhile */
    case SCREEN_KIND_COUNT:
        draw_collectives(a, rows, cols);
        break;
    }
    refresh();
}
