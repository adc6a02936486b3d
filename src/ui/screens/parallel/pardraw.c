/* pardraw.c - everything the parallelism screen puts on the terminal, from par.h's state
 * and the geometry par_layout_compute() decides.
 *
 * Reading the screen. Each rank (pipeline: stage) has a box with the matrices it holds in
 * this frame of a real display-scale training step: names like x2 (layer 2's input), W1,
 * dW0, dx1, a column shard as W1[:,2:4]; under the name the shape and the power of ten
 * the integers are shown in ("83" under ×10⁻² is 0.83). A check mark after a name says
 * the matrix equals the single-device computation's (within PAR_DEV_TOL). In a
 * collective the box shows its working buffer coloured by whose input each value holds,
 * as on the collectives screen, with this plan step's writes reversed and sends
 * underlined. The pipeline adds its ideal schedule (model) beside the measured timeline.
 * The panel holds the lecture-scale run, everything labelled measured or model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ui/screens/parallel/pardraw.h"

#include "ui/app.h"
#include "ui/frame.h"
#include "ui/overlays/overlays.h"
#include "core/text.h"
#include "ui/screens/parallel/par.h"

/* ---- small helpers ---- */

static int par_frame_of(const struct app *a)
{
    return (int)app_step(a);
}

static const char *par_delta(const struct app *a)
{
    return a->utf8 ? "\u0394" : "d";
}

static const char *par_le(const struct app *a)
{
    return a->utf8 ? "\u2264" : "<=";
}

static void par_size(size_t b, char *buf, size_t n)
{
    format_size(b, buf, n);
}

static void par_time(double s, char *buf, size_t n)
{
    text_time_us(buf, n, s * 1e6);
}

/* ---- title and status ---- */

static void par_title(const struct app *a, struct rect r)
{
    const struct par_view *v = &PAR(a)->view;
    const struct train_config *c = &v->cfg;
    attr_t t = a->th.role[TH_TITLE];
    draw_fill(r, t);
    char extra[64] = "";
    if (a->sc.scheme == TRAIN_PP)
        snprintf(extra, sizeof extra, " M=%d%s%s", c->microbatches, a->g->sep,
                 pp_schedule_name(a->sc.schedule));
    else if (a->sc.scheme == TRAIN_DDP && a->sc.overlap)
        snprintf(extra, sizeof extra, "%soverlap on", a->g->sep);
    else if (a->sc.scheme == TRAIN_ZERO3 && a->sc.overlap)
        snprintf(extra, sizeof extra, "%sprefetch on", a->g->sep);
    char left[320];
    snprintf(left, sizeof left, " collviz%sparallelism%s%s%sW=%d%sdisplay L=%d D=%d B=%d%s",
             a->g->sep, a->g->sep, train_scheme_title(a->sc.scheme), a->g->sep, a->sc.nranks,
             a->g->sep, c->layers, c->dim, c->batch, extra);
    if (text_width(left) > r.w) /* narrow (a lesson's pane): the program's name goes first */
        snprintf(left, sizeof left, " %s%sW=%d%sL=%d D=%d B=%d%s",
                 train_scheme_title(a->sc.scheme), a->g->sep, a->sc.nranks, a->g->sep,
                 c->layers, c->dim, c->batch, extra);
    char right[64];
    snprintf(right, sizeof right, "backend: %s ", a->w ? a->backend_name : "none");
    int rw = text_width(right);
    int lw = draw_put(r.y, r.x, r.w, t, left);
    if (lw + rw + 2 <= r.w) draw_put(r.y, r.x + r.w - rw, rw, t, right);
}

static void par_status(const struct app *a, struct rect r)
{
    const struct par_view *v = &PAR(a)->view;
    int f = par_frame_of(a);
    int x = r.x + 1, end = r.x + r.w;
    x += draw_putf(r.y, x, end - x, a->th.role[TH_STEP], "frame %d/%d", v->ok ? f + 1 : 0,
                   v->ok ? v->nframes : 0);
    if (v->ok) {
        char title[96];
        par_frame_title(v, f, title, sizeof title);
        x += draw_putf(r.y, x, end - x, a->th.role[TH_LABEL], "  %s", title);
        double dev = par_frame_dev(v, f);
        if (dev >= 0) {
            char d[32];
            par_dev_text(dev, d, sizeof d);
            bool ok = dev <= PAR_DEV_TOL;
            char full[96]; /* the deviation where it fits, else the verdict alone */
            snprintf(full, sizeof full, "  %s = one device (max |%s| %s)",
                     ok ? a->g->ok : a->g->bad, par_delta(a), d);
            if (text_width(full) > end - x)
                snprintf(full, sizeof full, "  %s = one device", ok ? a->g->ok : a->g->bad);
            x += draw_put_masked(r.y, x, end - x, a->th.role[ok ? TH_OK : TH_BAD], full);
        }
    }
    char play[32];
    snprintf(play, sizeof play, "  %s playing", a->g->play);
    if (a->playing) x += draw_put_status(r.y, x, end - x, a->th.role[TH_WARN], play);
    if (a->msg[0]) {
        char fit[512];
        text_fit(fit, sizeof fit, a->msg, end - x - 2, a->utf8);
        draw_put_status(r.y, x + 2, end - x - 2, a->th.role[TH_WARN], fit);
    }
}

/* ---- rank boxes ---- */

static void par_box_label(const struct app *a, int r, int f, bool idle, int width, char *buf,
                          size_t n)
{
    char forms[PAR_LABEL_FORMS][96];
    int nf = par_rank_label_forms(&PAR(a)->view, f, r, idle, a->g->sep, forms);
    for (int k = 0; k < nf; k++)
        if (text_width(forms[k]) <= width) {
            snprintf(buf, n, "%.95s", forms[k]);
            return;
        }
    snprintf(buf, n, "r%d", r);
}

/* The marker row under a collective buffer: "╰─in─╯" over this rank's piece. */
static void par_mark(const struct app *a, const struct par_cells *c, int y, int x)
{
    int x0 = x + c->mark_c0 * (PAR_CELL_W + 1);
    int w = (c->mark_c1 - c->mark_c0) * (PAR_CELL_W + 1) - 1;
    int lw = text_width(c->mark);
    attr_t at = a->th.role[TH_LABEL];
    if (w < lw + 2) {
        draw_put(y, x0 + (w - lw > 0 ? (w - lw) / 2 : 0), w > lw ? w : lw, at, c->mark);
        return;
    }
    char buf[256] = "";
    size_t o = 0;
    int left = (w - 2 - lw) / 2, right = w - 2 - lw - left;
    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_l);
    for (int k = 0; k < left && o < sizeof buf; k++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_h);
    o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", c->mark);
    for (int k = 0; k < right && o < sizeof buf; k++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_h);
    if (o < sizeof buf) snprintf(buf + o, sizeof buf - o, "%s", a->g->mark_r);
    draw_put(y, x0, w, at, buf);
}

/* One matrix at (y, x): name and badge, shape and scale, the values. */
static void par_matrix(const struct app *a, const struct par_cells *c, int y, int x, int w,
                       int row_cap, bool dim)
{
    const struct theme *th = &a->th;
    char name[64], shape[64];
    par_cells_head(c, a->utf8, name, sizeof name, shape, sizeof shape);
    size_t nl = strlen(c->name);
    attr_t dimat = dim ? A_DIM : 0;
    int used = draw_put(y, x, w, th->role[TH_LABEL] | A_BOLD | dimat, c->name);
    if (name[nl])
        draw_put(y, x + used, w - used,
                 th->role[c->dev <= PAR_DEV_TOL ? TH_OK : TH_BAD] | dimat, name + nl);
    draw_put(y + 1, x, w, th->role[TH_DIM], shape);
    int shown = par_rows_shown(c->rows, row_cap);
    bool cut = shown < c->rows;
    int W = a->sc.nranks;
    for (int i = 0; i < shown; i++) {
        int yy = y + PAR_MAT_HEAD + i;
        if (cut && i == shown - 1) {
            draw_putf(yy, x, w, th->role[TH_DIM], "%*s %s %d more row%s", PAR_CELL_W - 1,
                      a->utf8 ? "\u22ee" : ":", a->g->ell, c->rows - i,
                      c->rows - i == 1 ? "" : "s");
            break;
        }
        for (int j = 0; j < c->cols; j++) {
            int k = i * c->cols + j;
            char t[24], cell[32];
            attr_t at = dimat;
            if (c->masked && c->mask[k] == 0) {
                snprintf(t, sizeof t, "%s", a->g->dot);
                at |= th->role[TH_EMPTY];
            } else {
                par_cell_text(c->v[k], c->exp, t, sizeof t);
                if (c->masked) at |= theme_mask_attr(th, c->mask[k], W);
            }
            if (c->masked && (c->hl[k] & PAR_HL_DST))
                at |= th->role[TH_DST];
            else if (c->masked && (c->hl[k] & PAR_HL_SRC))
                at |= th->role[TH_SRC];
            int pad = PAR_CELL_W - text_width(t);
            snprintf(cell, sizeof cell, "%*s%s", pad > 0 ? pad : 0, "", t);
            draw_put(yy, x + j * (PAR_CELL_W + 1), PAR_CELL_W, at, cell);
        }
    }
    if (c->mark && c->mark_c1 > c->mark_c0) par_mark(a, c, y + PAR_MAT_HEAD + shown, x);
}

static void par_boxes(const struct app *a)
{
    const struct par_screen *p = PAR(a);
    const struct par_view *v = &p->view;
    const struct par_layout *l = &p->lay;
    int f = par_frame_of(a);
    for (int r = 0; r < v->cfg.nranks; r++) {
        struct rect b = l->box[r];
        struct par_cells c[PROBE_MAX_MATS];
        bool idle = false;
        int n = par_frame_cells(v, f, r, l->key_only, c, PROBE_MAX_MATS, &idle);
        bool hot = par_frame_rank_hot(v, f, r, idle);
        bool pointed = a->sc.hl == HL_RANK && a->sc.hl_index == r;
        char label[128];
        int iy, ix;
        if (l->borders) {
            par_box_label(a, r, f, idle, b.w - 4, label, sizeof label);
            draw_frame(b,
                       pointed ? a->th.role[TH_HL]
                       : hot   ? a->th.role[TH_BORDER_HOT]
                               : a->th.role[TH_BORDER],
                       label, a->th.rank[r] | A_BOLD);
            iy = b.y + 1;
            ix = b.x + 2;
        } else {
            par_box_label(a, r, f, idle, b.w, label, sizeof label);
            draw_put(b.y, b.x, b.w,
                     pointed ? a->th.role[TH_HL]
                             : a->th.rank[r] | A_BOLD | (hot ? A_UNDERLINE : 0),
                     label);
            iy = b.y + 1;
            ix = b.x;
        }
        struct par_shape s;
        par_shape_of(c, n, a->utf8, &s);
        int xs[PROBE_MAX_MATS], ys[PROBE_MAX_MATS], used;
        par_flow(&s, l->inner_w, false, l->row_cap, xs, ys, &used);
        for (int k = 0; k < n; k++)
            if (xs[k] >= 0)
                par_matrix(a, &c[k], iy + ys[k], ix + xs[k], s.w[k], l->row_cap, idle);
        if (n == 0)
            draw_put(iy, ix, l->inner_w, a->th.role[TH_DIM], idle ? "idle" : "nothing yet");
    }
}

/* ---- transfers and messages ---- */

static void par_xfer_text(const struct app *a, const struct par_tick *t, const struct xfer *x,
                          char *buf, size_t n)
{
    if (x->kind == XFER_SCALE) {
        snprintf(buf, n, "r%d %s%d (avg)", x->dst, a->utf8 ? "\u00f7" : "/", t->plan.nranks);
        return;
    }
    char what[32];
    if (x->chunk >= 0)
        snprintf(what, sizeof what, "chunk %d", x->chunk);
    else
        snprintf(what, sizeof what, "%zu values", x->count);
    snprintf(buf, n, "r%d %s r%d %s%s", x->src, a->g->arrow, x->dst, what,
             x->kind == XFER_REDUCE ? " (+)" : "");
}

/* Entries laid out in columns, "+N more" when they do not fit. */
static void par_entries(const struct app *a, struct rect r, char (*items)[96], int n, int row0)
{
    int w = 10;
    for (int k = 0; k < n; k++)
        if (text_width(items[k]) > w) w = text_width(items[k]);
    int colw = w + 3;
    int per = r.w / colw > 0 ? r.w / colw : 1;
    int slots = per * (r.h - row0);
    int show = n <= slots ? n : slots - 1;
    int x0 = r.x + (r.w - (n < per ? n : per) * colw) / 2;
    if (x0 < r.x) x0 = r.x;
    for (int k = 0; k < show; k++)
        draw_put(r.y + row0 + k / per, x0 + (k % per) * colw, colw - 1, A_NORMAL, items[k]);
    if (show < n && show >= 0)
        draw_putf(r.y + row0 + show / per, x0 + (show % per) * colw, colw, a->th.role[TH_DIM],
                  "+%d more", n - show);
}

static void par_xfers(const struct app *a, struct rect r)
{
    const struct par_view *v = &PAR(a)->view;
    int f = par_frame_of(a);
    const struct par_tick *t = par_frame_tick(v, f);
    if (!t || r.h < 1) return;
    const struct theme *th = &a->th;
    char items[64][96];
    int n = 0;
    int row0 = 0;
    if (t->coll) {
        const struct step *st = par_frame_step(v, f);
        int sub = v->frames[f].sub;
        if (!st) {
            char k[16];
            if (app_key_hint(a, ACT_NEXT, k, sizeof k))
                draw_putf(r.y, r.x + 1, r.w - 1, th->role[TH_DIM],
                          "each rank's input is in place; %s runs step 1 of the ring plan", k);
            else
                draw_putf(r.y, r.x + 1, r.w - 1, th->role[TH_DIM],
                          "each rank's input is in place; step 1 of the ring plan is next");
            return;
        }
        if ((size_t)sub == t->plan.nsteps && r.h >= 2) {
            if (t->engine_mismatch == 0) {
                char ok[160];
                snprintf(ok, sizeof ok,
                         "%s the engine's own result: the cpu ranks ran this ring plan on "
                         "these inputs, bit for bit",
                         a->g->ok);
                if (text_width(ok) > r.w - 1) /* a narrow pane: the same claim, shorter */
                    snprintf(ok, sizeof ok, "%s = the cpu ranks' own run, bit for bit",
                             a->g->ok);
                draw_put(r.y, r.x + 1, r.w - 1, th->role[TH_OK], ok);
            } else
                draw_putf(r.y, r.x + 1, r.w - 1, th->role[TH_BAD],
                          "%s %ld values differ from the engine's result", a->g->bad,
                          t->engine_mismatch);
            row0 = 1;
        }
        for (size_t k = 0; k < st->n && n < 64; k++)
            par_xfer_text(a, t, &t->plan.x[st->first + k], items[n++], sizeof items[0]);
        par_entries(a, r, items, n, row0);
        return;
    }
    struct par_send sends[PAR_MAX_RANKS];
    int ns = par_frame_sends(v, f, sends, PAR_MAX_RANKS);
    for (int s = 0; s < ns && n < 64; s++)
        snprintf(items[n++], sizeof items[0], "s%d %s s%d %s mb%d", sends[s].from, a->g->arrow,
                 sends[s].to, sends[s].what, sends[s].mb);
    if (n) {
        par_entries(a, r, items, n, 0);
        return;
    }
    const char *msg = par_frame_quiet(v, f);
    draw_put(r.y, r.x + 1, r.w - 1, th->role[TH_DIM], msg);
}

/* ---- the pipeline: ideal schedule beside the measured timeline ---- */

/* The first of n texts (longest first) that fits w columns whole, else "": a legend is
 * shortened, never cut; the whole legend is in the help overlay (par_help). */
static const char *par_fit(const char *const *v, int n, int w)
{
    for (int i = 0; i < n; i++)
        if (text_width(v[i]) <= w) return v[i];
    return "";
}

static void par_gantt_ideal(const struct app *a, struct rect r, int tw)
{
    const struct par_view *v = &PAR(a)->view;
    const struct psched *s = &v->sched;
    const struct theme *th = &a->th;
    int col = par_frame_sched_col(v, par_frame_of(a));
    /* the title whole: shorter where the ticks narrowed (par_gantt) */
    char title[2][96];
    if (col >= 0) {
        snprintf(title[0], sizeof title[0], "ideal schedule (model), tick %d/%d", col + 1,
                 s->ticks);
        snprintf(title[1], sizeof title[1], "ideal (model), tick %d/%d", col + 1, s->ticks);
    } else {
        snprintf(title[0], sizeof title[0], "ideal schedule (model), %d ticks", s->ticks);
        snprintf(title[1], sizeof title[1], "ideal (model), %d ticks", s->ticks);
    }
    const char *titles[] = {title[0], title[1]};
    draw_put(r.y, r.x, r.w, th->role[TH_LABEL] | A_BOLD, par_fit(titles, 2, r.w));
    for (int st = 0; st < s->stages; st++) {
        int y = r.y + 1 + st;
        draw_putf(y, r.x, 4, a->th.rank[st] | A_BOLD, "s%d", st);
        for (int t = 0; t < s->ticks; t++) {
            const struct psched_cell *c = &s->cell[st][t];
            char txt[8];
            attr_t at;
            if (c->kind == PSCHED_IDLE) {
                snprintf(txt, sizeof txt, "%s", tw >= 3 ? " \u00b7 " : "\u00b7 ");
                if (!a->utf8) snprintf(txt, sizeof txt, "%s", tw >= 3 ? " . " : ". ");
                at = th->role[TH_DIM];
            } else {
                snprintf(txt, sizeof txt, tw >= 3 ? "%c%-2d" : "%c%d",
                         c->kind == PSCHED_FWD ? 'F' : 'B', c->mb);
                at = (c->kind == PSCHED_FWD ? A_REVERSE : A_REVERSE | A_BOLD);
            }
            if (t == col) at = (at & ~A_DIM) | th->role[TH_DST] | A_UNDERLINE;
            draw_put(y, r.x + 4 + t * tw, tw, at, txt);
        }
    }
    const char *leg[] = {a->utf8 ? "F/B: fwd/bwd of a micro-batch, \u00b7 idle (bubble)"
                                 : "F/B: fwd/bwd of a micro-batch, . idle (bubble)",
                         a->utf8 ? "F/B fwd/bwd, \u00b7 idle" : "F/B fwd/bwd, . idle"};
    draw_put(r.y + 1 + s->stages, r.x, r.w, th->role[TH_DIM],
             par_fit(leg, (int)ARRAY_LEN(leg), r.w));
}

/* The measured timeline's glyphs, each with its words at three lengths: the chart draws
 * only these and its legend (and the help's) is made from this table, so the legend names
 * every glyph the chart draws at any width (the send's ">" once went unnamed). */
enum par_mg { PMG_FB, PMG_MB, PMG_WAIT, PMG_SEND, PMG_ADAMW, PMG_N };
#define PMG_WORDS 3
static const struct {
    const char *utf8, *ascii;
    const char *words[PMG_WORDS]; /* longest first */
} par_mg[PMG_N] = {
    [PMG_FB] = {"F/B", "F/B", {"computing forward/backward", "compute", "fwd/bwd"}},
    [PMG_MB] = {"0-9", "0-9", {"where micro-batch n's F or B starts", "micro-batch", "mb"}},
    [PMG_WAIT] = {"\u00b7", ".", {"waiting in recv", "recv wait", "wait"}},
    [PMG_SEND] = {">", ">", {"sending on", "send", "send"}},
    [PMG_ADAMW] = {"A", "A", {"the AdamW update", "AdamW", "AdamW"}},
};

static const char *par_mg_glyph(const struct app *a, enum par_mg g)
{
    return a->utf8 ? par_mg[g].utf8 : par_mg[g].ascii;
}

/* The legend at length k (0 the longest): every glyph with its words. */
static void par_mg_legend(const struct app *a, int k, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int g = 0; g < PMG_N && o < n; g++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s %s", g ? (k < 2 ? ", " : " ") : "",
                              par_mg_glyph(a, (enum par_mg)g), par_mg[g].words[k]);
}

/* What stage `st` did at time t of the measured step: the event covering it on lane 0. */
static const struct tl_event *par_event_at(const struct train_summary *sum, int st, double t)
{
    for (int i = 0; i < sum->nevents; i++) {
        const struct tl_event *e = &sum->events[i];
        if (e->rank == st && e->lane == 0 && e->t0 <= t && t < e->t1) return e;
    }
    return NULL;
}

static void par_gantt_measured(const struct app *a, struct rect r)
{
    const struct theme *th = &a->th;
    const struct train_summary *sum = par_summary(a);
    int P = a->sc.nranks;
    if (!sum) {
        draw_put(r.y, r.x, r.w, th->role[TH_LABEL] | A_BOLD, "measured timeline");
        if (par_training(a))
            draw_put_status(r.y + 1, r.x, r.w, th->role[TH_DIM],
                            "training at lecture scale...");
        else /* a placeholder: the notes' in the room */
            draw_put_status(r.y + 1, r.x, r.w, th->role[TH_DIM],
                            a->no_key_hints ? "not trained yet" : "not trained yet (m trains)");
        return;
    }
    double span = 0;
    for (int i = 0; i < sum->nevents; i++)
        if (sum->events[i].lane == 0 && sum->events[i].t1 > span) span = sum->events[i].t1;
    char t[32];
    par_time(span, t, sizeof t);
    draw_putf(r.y, r.x, r.w, th->role[TH_LABEL] | A_BOLD, "measured, step %d of %d: %s",
              sum->ev_step + 1, sum->steps_done, t);
    int cw = r.w - 4;
    if (cw < 4 || span <= 0) return;
    for (int st = 0; st < P && st < sum->nranks; st++) {
        int y = r.y + 1 + st;
        draw_putf(y, r.x, 4, a->th.rank[st] | A_BOLD, "s%d", st);
        const struct tl_event *prev = NULL;
        for (int k = 0; k < cw; k++) {
            double tm = (k + 0.5) * span / cw;
            const struct tl_event *e = par_event_at(sum, st, tm);
            char txt[8] = " ";
            attr_t at = A_NORMAL;
            if (!e) {
                snprintf(txt, sizeof txt, "%s", par_mg_glyph(a, PMG_WAIT));
                at = th->role[TH_DIM];
            } else if (e->kind == TL_COMPUTE && e->mb >= 0) {
                bool fwd = e->label[0] == 'F';
                /* the micro-batch at the start of each event, its letter elsewhere */
                if (e != prev)
                    snprintf(txt, sizeof txt, "%d", e->mb % 10);
                else
                    snprintf(txt, sizeof txt, "%c", fwd ? 'F' : 'B');
                at = fwd ? A_REVERSE : A_REVERSE | A_BOLD;
            } else if (e->kind == TL_COMPUTE) {
                snprintf(txt, sizeof txt, "%s", par_mg_glyph(a, PMG_ADAMW));
                at = th->role[TH_LABEL];
            } else if (e->kind == TL_RECV || e->kind == TL_IDLE) {
                snprintf(txt, sizeof txt, "%s", par_mg_glyph(a, PMG_WAIT));
                at = th->role[TH_WARN];
            } else { /* a send (or a collective): the activations or gradients leaving */
                snprintf(txt, sizeof txt, "%s", par_mg_glyph(a, PMG_SEND));
                at = th->role[TH_DIM];
            }
            draw_put(y, r.x + 4 + k, 1, at, txt);
            prev = e;
        }
    }
    char leg[PMG_WORDS][200];
    const char *legs[PMG_WORDS];
    for (int k = 0; k < PMG_WORDS; k++) {
        par_mg_legend(a, k, leg[k], sizeof leg[k]);
        legs[k] = leg[k];
    }
    draw_put(r.y + 1 + P, r.x, r.w, th->role[TH_DIM], par_fit(legs, PMG_WORDS, r.w));
}

static void par_gantt(const struct app *a, struct rect r)
{
    const struct par_view *v = &PAR(a)->view;
    if (r.h < 3 || !v->have_sched) return;
    const struct psched *s = &v->sched;
    /* narrower ticks where the measured chart would not hold its shortest legend whole */
    char least[200];
    par_mg_legend(a, PMG_WORDS - 1, least, sizeof least);
    int tw = 3;
    int iw = 4 + s->ticks * tw;
    if (iw + 4 + text_width(least) > r.w) {
        tw = 2;
        iw = 4 + s->ticks * tw;
    }
    struct rect left = {r.y, r.x + 1, r.h - 1, iw};
    struct rect right = {r.y, r.x + 1 + iw + 3, r.h - 1, r.w - iw - 4};
    par_gantt_ideal(a, left, tw);
    par_gantt_measured(a, right);
    /* the bubble: model, counted in the ideal chart, measured */
    const struct theme *th = &a->th;
    int P = s->stages, M = s->micro;
    int y = r.y + r.h - 1, x = r.x + 1;
    x += draw_putf(y, x, r.x + r.w - x, th->role[TH_LABEL], "bubble ");
    x += draw_putf(y, x, r.x + r.w - x, A_NORMAL, "model (P-1)/(M+P-1) = %d/%d = %.2f", P - 1,
                   M + P - 1, psched_bubble_formula(P, M));
    const struct train_summary *sum = par_summary(a);
    if (sum && sum->bubble_measured >= 0) {
        x += draw_putf(y, x, r.x + r.w - x, th->role[TH_DIM], "   ");
        x += draw_putf(y, x, r.x + r.w - x, th->role[TH_MEASURED] | A_BOLD, "measured %.2f",
                       sum->bubble_measured);
        /* Shorter where it must be, but always saying where it ran. */
        char full[200], mid[160], shortest[120];
        snprintf(full, sizeof full, " (idle share of the span, %s, steps 2-%d)",
                 par_backend_note(a), sum->steps_done);
        snprintf(mid, sizeof mid, " (idle share of the span, %s)", par_backend_note(a));
        snprintf(shortest, sizeof shortest, " (idle share, %s)", par_backend_note(a));
        const char *why[] = {full, mid, shortest, " (idle share)"};
        draw_put(y, x, r.x + r.w - x, th->role[TH_DIM],
                 par_fit(why, (int)ARRAY_LEN(why), r.x + r.w - x));
    }
}

/* ---- the sentence ---- */

static void par_what(const struct app *a, struct rect r)
{
    const struct par_view *v = &PAR(a)->view;
    char text[800];
    par_frame_text(v, par_frame_of(a), text, sizeof text);
    char lines[8][256];
    int max = r.h < 8 ? r.h : 8;
    int n = text_wrap(text, r.w - 2, lines, max, a->utf8);
    for (int i = 0; i < n && i < max; i++)
        draw_put(r.y + i, r.x + 1, r.w - 2, v->ok ? A_BOLD : a->th.role[TH_BAD], lines[i]);
}

/* ---- the measured panel ---- */

static size_t par_pgo(const struct train_memory *m)
{
    return m->params + m->grads + m->optimizer;
}

/* ZeRO's two models: bytes per step against DDP's, and the weights + gradients + AdamW
 * state a rank holds against DDP's (train_memory_model). l: the first line to fill. */
static void par_zero_model_lines(const struct app *a, const struct train_config *c,
                                 struct styled_lines *p, struct styled_line *l)
{
    attr_t mod = a->th.role[TH_DIM];
    bool z3 = c->scheme == TRAIN_ZERO3;
    styled_add(l, mod, "model: sends %d%s(W-1)/W floats/step, %s DDP", z3 ? 3 : 2,
               a->utf8 ? "\u03a8" : "Psi", z3 ? "1.5x" : "=");
    struct train_config d = *c;
    d.scheme = TRAIN_DDP;
    d.prefetch = false;
    struct train_memory za, zp, da, dp;
    if (train_memory_model(c, &za, &zp) != CV_OK || train_memory_model(&d, &da, &dp) != CV_OK)
        return;
    char zb[24], db[24];
    par_size(par_pgo(&zp), zb, sizeof zb);
    par_size(par_pgo(&da), db, sizeof db);
    styled_add(styled_new(p), mod, "model: w+g+AdamW %s/rank (DDP %s)", zb, db);
}

/* A bar of `width` cells, full = DDP's, for a rank's weights + gradients + AdamW state. */
static void par_mem_bar(const struct app *a, struct styled_line *l, size_t v, size_t full,
                        int width)
{
    int n = full ? (int)((double)v / (double)full * width + 0.5) : 0;
    if (n > width) n = width;
    char bar[256] = "";
    size_t o = 0;
    for (int i = 0; i < width && o + 4 < sizeof bar; i++)
        o += (size_t)snprintf(bar + o, sizeof bar - o, "%s",
                              i < n ? (a->utf8 ? "█" : "#") : (a->utf8 ? "░" : "."));
    styled_add(l, a->th.role[TH_MEASURED], "%s", bar);
}

static void par_panel_state(const struct app *a, struct styled_lines *p, int width)
{
    const struct par_screen *ps = PAR(a);
    const struct theme *th = &a->th;
    struct train_config want;
    par_lecture_of(a, &want);
    /* no worker thread: nothing is trained, but the napkin math below needs no run */
    if (!a->w)
        styled_wrapped_max(p, th->role[TH_WARN], width,
                           "no worker thread: only the display-scale run is shown", 2);
    else if (par_training(a)) {
        struct styled_line *l = styled_status(
            p, th->role[TH_WARN], "%s training %s at lecture scale%s %.1f s", a->g->busy,
            train_scheme_name(ps->train_cfg.scheme), a->g->ell, now_s() - ps->train_started);
        char k[16];
        if (l && app_key_hint(a, ACT_CANCEL, k, sizeof k))
            styled_add(l, th->role[TH_DIM], " (%s cancels)", k);
    } else if (ps->train_err[0] && ps->train_cfg.scheme == want.scheme &&
               ps->train_cfg.nranks == want.nranks) {
        char t[260];
        snprintf(t, sizeof t, "training: %s", ps->train_err);
        styled_status_wrapped(p, th->role[TH_BAD], width, t, 3);
    } else if (a->w && !par_summary(a)) {
        styled_status(p, th->role[TH_DIM],
                      a->no_key_hints ? "not trained yet" : "not trained yet (m trains)");
    }
    if (par_summary(a)) return;
    /* Before a run: the napkin math, which needs no measurement. */
    const char *dot = a->utf8 ? "\u00b7" : "*";
    size_t L = (size_t)want.layers, D = (size_t)want.dim, B = (size_t)want.batch;
    int P = want.nranks, M = want.microbatches;
    struct styled_line *l = styled_new(p);
    if (want.scheme == TRAIN_PP)
        styled_add(l, th->role[TH_DIM], "model: bubble (P-1)/(M+P-1) = %d/%d = %.2f", P - 1,
                   M + P - 1, (double)(P - 1) / (M + P - 1));
    else if (train_zero_stage(want.scheme)) {
        par_zero_model_lines(a, &want, p, l);
        return;
    } else {
        styled_add(l, th->role[TH_DIM], "model: TP all-gathers L%sB%sD = %zu per step", dot,
                   dot, L * B * D);
        styled_add(styled_new(p), th->role[TH_DIM],
                   "model: DDP all-reduces L%sD%s = %zu per step", dot,
                   a->utf8 ? "\u00b2" : "^2", L * D * D);
    }
    /* what a rank holds, before any run measures it (ZeRO's line above says the same) */
    struct train_memory all, peak, dall, dpeak;
    struct train_config d = want;
    d.scheme = TRAIN_DDP;
    if (train_memory_model(&d, &dall, &dpeak) != CV_OK) return;
    /* fp32 weights and gradients and AdamW's two moments, 16 bytes a parameter: TP holds
     * 1/W of every layer, PP its stage's layers (the most any stage has) */
    size_t held = par_pgo(&dall);
    if (want.scheme == TRAIN_TP)
        held = 16 * L * ((D * D + (size_t)P - 1) / (size_t)P);
    else if (want.scheme == TRAIN_PP)
        held = 16 * ((L + (size_t)P - 1) / (size_t)P) * D * D;
    else if (train_memory_model(&want, &all, &peak) == CV_OK)
        held = par_pgo(&all);
    char mb[24], db[24];
    par_size(held, mb, sizeof mb);
    par_size(par_pgo(&dall), db, sizeof db);
    if (want.scheme == TRAIN_DDP)
        styled_add(styled_new(p), th->role[TH_DIM],
                   "model: w+g+AdamW %s/rank (a whole replica)", mb);
    else
        styled_add(styled_new(p), th->role[TH_DIM], "model: w+g+AdamW %s/rank (DDP %s)", mb,
                   db);
    (void)width;
}

/* Loss per step against one device, and the deviation. */
static void par_panel_loss(const struct app *a, const struct train_summary *s,
                           struct styled_lines *p, int width)
{
    const struct theme *th = &a->th;
    attr_t lab = th->role[TH_LABEL], num = th->role[TH_MEASURED];
    const char *name = train_scheme_name(s->cfg.scheme);
    bool comm = width >= 56, time = width >= 46;
    struct styled_line *l = styled_new(p);
    styled_add(l, lab, "step  loss %-10s loss 1 device", name);
    if (time) styled_add(l, lab, "  time");
    if (comm) styled_add(l, lab, "     comm");
    for (int k = 0; k < s->steps_done; k++) {
        char t[32], c[32];
        par_time(s->time_s[k], t, sizeof t);
        par_time(s->comm_s[k], c, sizeof c);
        l = styled_new(p);
        styled_add(l, A_NORMAL, "%4d  ", k);
        styled_add(l, num, "%-15.8g", s->loss[k]);
        styled_add(l, num, "%-15.8g", s->ref_loss[k]);
        if (time) styled_add(l, num, "%-9s", t);
        if (comm) styled_add(l, num, "%s", c);
    }
    char d[32], pd[32];
    par_dev_text(s->dev.loss_rel, d, sizeof d);
    par_dev_text(s->dev.param_abs, pd, sizeof pd);
    /* The tolerances the comparison used: wider on GPUs (cuBLAS and NCCL sum in their
     * own orders), see train.h. */
    bool lok = s->dev.loss_rel <= s->dev.tol_loss_rel,
         pok = s->dev.param_abs <= s->dev.tol_param_abs;
    l = styled_new(p);
    styled_add(l, th->role[lok ? TH_OK : TH_BAD] | A_BOLD,
               "%s same loss as 1 device: ", lok ? a->g->ok : a->g->bad);
    styled_add(l, A_NORMAL, "rel. %s %s %s %.0e", par_delta(a), d, par_le(a),
               s->dev.tol_loss_rel);
    l = styled_new(p);
    styled_add(l, th->role[pok ? TH_OK : TH_BAD],
               "%s same weights after %d steps: ", pok ? a->g->ok : a->g->bad, s->steps_done);
    styled_add(l, A_NORMAL, "|%s| %s %s %.0e", par_delta(a), pd, par_le(a),
               s->dev.tol_param_abs);
}

/* How the bytes sent were obtained: counted at each send on CPU ranks and for the
 * pipeline's NCCL sends; for NCCL collectives, which report no bytes, the ring model's
 * (the run's description line says so too). */
static const char *par_bytes_how(const struct train_summary *s)
{
    return (backend_kind_caps(s->cfg.backend) & BACKEND_CAP_GPU) && s->cfg.scheme != TRAIN_PP
               ? "ring model"
               : "measured";
}

/* Bytes per step, the napkin math, communication time. */
static void par_panel_traffic(const struct app *a, const struct train_summary *s,
                              struct styled_lines *p, int width)
{
    const struct theme *th = &a->th;
    attr_t lab = th->role[TH_LABEL], num = th->role[TH_MEASURED], mod = th->role[TH_DIM];
    const struct train_napkin *nk = &s->napkin;
    const char *dot = a->utf8 ? "\u00b7" : "*";
    const char *sq = a->utf8 ? "\u00b2" : "^2";
    int last = s->steps_done - 1;
    char mb[32], mm[32];
    par_size(nk->wire_bytes, mb, sizeof mb);
    par_size(nk->wire_model_bytes, mm, sizeof mm);
    struct styled_line *l = styled_new(p);
    styled_add(l, lab, "sent per step, busiest rank: ");
    styled_add(l, num | A_BOLD, "%s", mb);
    styled_add(l, A_NORMAL, " %s", par_bytes_how(s));
    l = styled_new(p);
    if (s->cfg.scheme == TRAIN_PP)
        styled_add(l, mod, "  %s model (B%sD floats each way per stage boundary)", mm,
                   a->utf8 ? "\u00b7" : "*");
    else if (train_zero_stage(s->cfg.scheme))
        styled_add(l, mod, "  %s model: %d%s(W-1)/W floats, %s DDP's", mm,
                   s->cfg.scheme == TRAIN_ZERO3 ? 3 : 2, a->utf8 ? "\u03a8" : "Psi",
                   s->cfg.scheme == TRAIN_ZERO3 ? "1.5x" : "=");
    else
        styled_add(l, mod, "  %s model (ring formulas)", mm);
    size_t L = (size_t)s->cfg.layers, D = (size_t)s->cfg.dim, B = (size_t)s->cfg.batch;
    if (s->cfg.scheme == TRAIN_TP || s->cfg.scheme == TRAIN_DDP) {
        bool tp = s->cfg.scheme == TRAIN_TP;
        l = styled_new(p);
        styled_add(l, lab, "into %s per step: ", tp ? "all-gathers" : "all-reduces");
        styled_add(l, num | A_BOLD, "%zu", tp ? nk->all_gather_elems : nk->all_reduce_elems);
        styled_add(l, A_NORMAL, " measured");
        l = styled_new(p);
        if (tp)
            styled_add(l, mod, "  L%sB%sD = %zu%s%zu%s%zu = %zu model", dot, dot, L, dot, B,
                       dot, D, nk->tp_model_elems);
        else
            styled_add(l, mod, "  L%sD%s = %zu%s%zu%s = %zu model", dot, sq, L, dot, D, sq,
                       nk->ddp_model_elems);
        l = styled_new(p);
        if (tp)
            styled_add(l, mod, "  DDP: L%sD%s = %zu, D/B = %g%s more (model)", dot, sq,
                       nk->ddp_model_elems, (double)D / (double)B, a->utf8 ? "\u00d7" : "x");
        else
            styled_add(l, mod, "  TP: L%sB%sD = %zu, D/B = %g%s less (model)", dot, dot,
                       nk->tp_model_elems, (double)D / (double)B, a->utf8 ? "\u00d7" : "x");
    }
    if (train_zero_stage(s->cfg.scheme)) {
        l = styled_new(p);
        styled_add(l, lab, "into RS ");
        styled_add(l, num | A_BOLD, "%zu", nk->reduce_scatter_elems);
        styled_add(l, lab, ", AG ");
        styled_add(l, num | A_BOLD, "%zu", nk->all_gather_elems);
        styled_add(l, A_NORMAL, " measured");
        if (width >= 62) styled_add(l, mod, " (L%sD%s = %zu)", dot, sq, L * D * D);
    }
    if (last >= 0) {
        char c[32], st[32];
        par_time(s->comm_s[last], c, sizeof c);
        par_time(s->time_s[last], st, sizeof st);
        l = styled_new(p);
        styled_add(l, lab, "comm ");
        styled_add(l, num, "%s", c);
        styled_add(l, A_NORMAL, " of ");
        styled_add(l, num, "%s", st);
        styled_add(l, mod, "/step (measured, mean)");
        if (s->comm_async_s[last] > 0) {
            par_time(s->comm_async_s[last], c, sizeof c);
            l = styled_new(p);
            styled_add(l, mod, "  + ");
            styled_add(l, num, "%s", c);
            styled_add(l, mod, " overlapped on the helper lane");
        }
    }
    (void)width;
}

/* Memory per rank, by purpose, next to one device's. */
static void par_mem_row(struct styled_line *l, attr_t attr, const struct train_memory *m,
                        bool comm)
{
    char v[4][24];
    par_size(m->params, v[0], sizeof v[0]);
    par_size(m->grads, v[1], sizeof v[1]);
    par_size(m->optimizer, v[2], sizeof v[2]);
    par_size(m->activations + (comm ? m->comm : 0), v[3], sizeof v[3]);
    styled_add(l, attr, "%-9s%-9s%-9s%s", v[0], v[1], v[2], v[3]);
}

/* ZeRO: the model row, and each rank's weights + gradients + AdamW state at its peak as a
 * bar against DDP's (model). */
static void par_panel_zero_memory(const struct app *a, const struct train_summary *s,
                                  struct styled_lines *p, int width)
{
    attr_t mod = a->th.role[TH_DIM];
    struct train_config d = s->cfg;
    d.scheme = TRAIN_DDP;
    d.prefetch = false;
    struct train_memory za, zp, da, dp;
    if (train_memory_model(&s->cfg, &za, &zp) != CV_OK ||
        train_memory_model(&d, &da, &dp) != CV_OK)
        return;
    struct styled_line *l = styled_new(p);
    styled_add(l, mod, "  model     ");
    par_mem_row(l, mod, &za, false);
    char db[24];
    par_size(par_pgo(&da), db, sizeof db);
    int bw = width - 34 > 20 ? 20 : width - 34;
    for (int r = 0; bw >= 4 && r < s->nranks && r < CV_MAX_RANKS; r++) {
        size_t v = par_pgo(&s->mem_peak[r]);
        int same_to = r;
        while (same_to + 1 < s->nranks && par_pgo(&s->mem_peak[same_to + 1]) == v)
            same_to++;
        char who[32], b[24];
        if (same_to > r)
            snprintf(who, sizeof who, "r%d-%d", r, same_to);
        else
            snprintf(who, sizeof who, "r%d", r);
        l = styled_new(p);
        styled_add(l, A_BOLD, "  %-6s", who);
        par_mem_bar(a, l, v, par_pgo(&da), bw);
        par_size(v, b, sizeof b);
        styled_add(l, a->th.role[TH_MEASURED], " %s", b);
        styled_add(l, mod, " of DDP's %s", db);
        r = same_to;
    }
}

static void par_panel_memory(const struct app *a, const struct train_summary *s,
                             struct styled_lines *p, int width)
{
    const struct theme *th = &a->th;
    struct styled_line *l = styled_new(p);
    bool zero = train_zero_stage(s->cfg.scheme) != 0;
    styled_add(l, th->role[TH_LABEL],
               zero ? "memory (allocated = peak, counted)" : "memory (allocated)");
    l = styled_new(p);
    styled_add(l, th->role[TH_DIM], "            params   grads    optim    act");
    int W = s->nranks;
    for (int r = 0; r < W && r < CV_MAX_RANKS; r++) {
        const struct train_memory *m = &s->mem[r];
        int same_to = r;
        while (same_to + 1 < W && memcmp(&s->mem[same_to + 1], m, sizeof *m) == 0)
            same_to++;
        l = styled_new(p);
        char who[32];
        if (same_to > r)
            snprintf(who, sizeof who, "r%d-%d", r, same_to);
        else
            snprintf(who, sizeof who, "r%d", r);
        styled_add(l, A_BOLD, "  %-10s", who);
        par_mem_row(l, A_NORMAL, m, true);
        r = same_to;
    }
    if (zero) {
        par_panel_zero_memory(a, s, p, width);
        return;
    }
    l = styled_new(p);
    styled_add(l, th->role[TH_DIM], "  1 device  ");
    par_mem_row(l, th->role[TH_DIM], &s->ref_mem, false);
    (void)width;
}

/* "ddp W=4 L=4 D=1024 B=128, 5 steps" */
static void par_panel_config(const struct app *a, char *t, size_t n)
{
    struct train_config c;
    par_lecture_of(a, &c);
    char pp[32] = "";
    if (c.scheme == TRAIN_PP)
        snprintf(pp, sizeof pp, " M=%d %s", c.microbatches,
                 c.schedule == PP_GPIPE ? "GPipe" : "1F1B");
    snprintf(t, n, "%s W=%d L=%d D=%d B=%d%s, %d steps", train_scheme_name(c.scheme), c.nranks,
             c.layers, c.dim, c.batch, pp, c.steps);
}

static void par_panel_desc(const struct app *a, struct styled_lines *p, int width)
{
    const struct train_summary *s = par_summary(a);
    if (s) styled_wrapped_max(p, a->th.role[TH_DIM], width, s->desc, 2);
}

/* The panel in a few lines, most important first, for short panels. */
static void par_panel_summary(const struct app *a, const struct train_summary *s,
                              struct styled_lines *p)
{
    const struct theme *th = &a->th;
    attr_t num = th->role[TH_MEASURED], mod = th->role[TH_DIM];
    const char *dot = a->utf8 ? "\u00b7" : "*";
    char d[32], pd[32], mb[32], mm[32];
    par_dev_text(s->dev.loss_rel, d, sizeof d);
    par_dev_text(s->dev.param_abs, pd, sizeof pd);
    par_size(s->napkin.wire_bytes, mb, sizeof mb);
    par_size(s->napkin.wire_model_bytes, mm, sizeof mm);
    struct styled_line *l = styled_new(p);
    styled_add(l, th->role[s->dev.within ? TH_OK : TH_BAD] | A_BOLD,
               "%s same loss as one device", s->dev.within ? a->g->ok : a->g->bad);
    styled_add(l, A_NORMAL, " (rel. %s %s %s %.0e), weights |%s| %s", par_delta(a), d,
               par_le(a), s->dev.tol_loss_rel, par_delta(a), pd);
    l = styled_new(p);
    styled_add(l, A_NORMAL, "sent/step ");
    styled_add(l, num | A_BOLD, "%s %s", mb, par_bytes_how(s));
    styled_add(l, mod, ", %s model", mm);
    int last = s->steps_done - 1;
    if (last >= 0) {
        char t[32], c[32];
        par_time(s->time_s[last], t, sizeof t);
        par_time(s->comm_s[last], c, sizeof c);
        styled_add(l, A_NORMAL, "   step ");
        styled_add(l, num, "%s", t);
        styled_add(l, A_NORMAL, ", comm ");
        styled_add(l, num, "%s", c);
    }
    const struct train_napkin *nk = &s->napkin;
    size_t D = (size_t)s->cfg.dim, B = (size_t)s->cfg.batch;
    if (s->cfg.scheme == TRAIN_TP || s->cfg.scheme == TRAIN_DDP) {
        bool tp = s->cfg.scheme == TRAIN_TP;
        l = styled_new(p);
        styled_add(l, A_NORMAL, "%s ", tp ? "all-gather" : "all-reduce");
        styled_add(l, num | A_BOLD, "%zu", tp ? nk->all_gather_elems : nk->all_reduce_elems);
        styled_add(l, A_NORMAL, " el/step measured");
        if (tp)
            styled_add(l, mod, ", L%sB%sD = %zu model; DDP: L%sD%s, D/B = %g%s more", dot, dot,
                       nk->tp_model_elems, dot, a->utf8 ? "\u00b2" : "^2",
                       (double)D / (double)B, a->utf8 ? "\u00d7" : "x");
        else
            styled_add(l, mod, ", L%sD%s = %zu model; TP: L%sB%sD, D/B = %g%s less", dot,
                       a->utf8 ? "\u00b2" : "^2", nk->ddp_model_elems, dot, dot,
                       (double)D / (double)B, a->utf8 ? "\u00d7" : "x");
    }
    if (train_zero_stage(s->cfg.scheme)) {
        l = styled_new(p);
        styled_add(l, A_NORMAL, "RS ");
        styled_add(l, num | A_BOLD, "%zu", nk->reduce_scatter_elems);
        styled_add(l, A_NORMAL, " + AG ");
        styled_add(l, num | A_BOLD, "%zu", nk->all_gather_elems);
        styled_add(l, A_NORMAL, " el/step measured");
        styled_add(l, mod,
                   s->cfg.scheme == TRAIN_ZERO3 ? ", 1.5x DDP (model)" : ", = DDP (model)");
        struct train_config dc = s->cfg;
        dc.scheme = TRAIN_DDP;
        dc.prefetch = false;
        struct train_memory za, zp, da, dp;
        if (train_memory_model(&s->cfg, &za, &zp) == CV_OK &&
            train_memory_model(&dc, &da, &dp) == CV_OK) {
            char v[3][24];
            par_size(par_pgo(&s->mem_peak[0]), v[0], sizeof v[0]);
            par_size(par_pgo(&zp), v[1], sizeof v[1]);
            par_size(par_pgo(&da), v[2], sizeof v[2]);
            l = styled_new(p);
            styled_add(l, A_NORMAL, "r0 weights+grads+AdamW at peak ");
            styled_add(l, num | A_BOLD, "%s", v[0]);
            styled_add(l, mod, " (model %s; DDP %s)", v[1], v[2]);
            return;
        }
    }
    const struct train_memory *m = &s->mem[0];
    char v[4][24];
    par_size(m->params, v[0], sizeof v[0]);
    par_size(m->grads, v[1], sizeof v[1]);
    par_size(m->optimizer, v[2], sizeof v[2]);
    par_size(m->activations + m->comm, v[3], sizeof v[3]);
    l = styled_new(p);
    styled_add(l, A_NORMAL, "memory r0: params %s grads %s optim %s act %s", v[0], v[1], v[2],
               v[3]);
    par_size(s->ref_mem.params, v[0], sizeof v[0]);
    styled_add(l, mod, " (allocated; 1 device: params %s)", v[0]);
}

static void par_panel(const struct app *a, struct rect r)
{
    const struct par_layout *l = &PAR(a)->lay;
    const struct theme *th = &a->th;
    const struct train_summary *s = par_summary(a);
    char cfg[128];
    par_panel_config(a, cfg, sizeof cfg);
    if (r.h < 1) return;
    if (l->panel_compact) {
        struct styled_lines p = {.n = 0};
        par_panel_state(a, &p, r.w - 2);
        if (s)
            par_panel_summary(a, s, &p);
        else
            styled_add(styled_new(&p), th->role[TH_DIM], "lecture scale: %s", cfg);
        styled_draw(&p, 0, (struct rect){r.y, r.x + 1, r.h, r.w - 2});
        return;
    }
    char title[192];
    snprintf(title, sizeof title, "measured on %s%slecture scale: %s", par_backend_note(a),
             a->g->sep, cfg);
    /* a title the frame cannot hold whole: the scale goes inside, where lines wrap */
    bool scale_inside = text_width(title) + 2 > r.w - 2;
    if (scale_inside) snprintf(title, sizeof title, "measured on %s", par_backend_note(a));
    draw_frame(r, th->role[TH_BORDER], title, th->role[TH_LABEL] | A_BOLD);
    struct rect in = {r.y + 1, r.x + 2, r.h - 2, r.w - 4};
    if (scale_inside && in.h > 1) {
        struct styled_lines sl = {.n = 0};
        styled_wrapped_max(&sl, th->role[TH_DIM], in.w, cfg, 2);
        int used = styled_draw(&sl, 0, in);
        in.y += used;
        in.h -= used;
    }
    if (l->panel_side) {
        struct styled_lines p = {.n = 0};
        par_panel_state(a, &p, in.w);
        if (s) {
            par_panel_loss(a, s, &p, in.w);
            styled_new(&p);
            par_panel_traffic(a, s, &p, in.w);
            styled_new(&p);
            par_panel_memory(a, s, &p, in.w);
            styled_new(&p);
            par_panel_desc(a, &p, in.w);
        }
        styled_draw(&p, 0, in);
        return;
    }
    /* Below the animation: a few summary lines when short, else columns. */
    if (in.h < 9 || in.w < 90) {
        struct styled_lines p = {.n = 0};
        par_panel_state(a, &p, in.w);
        if (s) par_panel_summary(a, s, &p);
        styled_draw(&p, 0, in);
        return;
    }
    struct styled_lines c1 = {.n = 0}, c2 = {.n = 0}, c3 = {.n = 0};
    int ncol = in.w >= 150 ? 3 : 2;
    int cw = (in.w - 2 * (ncol - 1)) / ncol;
    par_panel_state(a, &c1, cw);
    if (s) {
        par_panel_loss(a, s, &c1, cw);
        par_panel_traffic(a, s, &c2, cw);
        struct styled_lines *mem = ncol == 3 ? &c3 : &c2;
        par_panel_memory(a, s, mem, cw);
        if (ncol == 3 || c2.n + 2 < in.h) par_panel_desc(a, mem, cw);
    }
    styled_draw(&c1, 0, (struct rect){in.y, in.x, in.h, cw});
    styled_draw(&c2, 0, (struct rect){in.y, in.x + cw + 2, in.h, cw});
    if (ncol == 3) styled_draw(&c3, 0, (struct rect){in.y, in.x + 2 * (cw + 2), in.h, cw});
}

/* ---- the screen ---- */

/* The layout of the scene at rows x cols (rows counting the free key bar row, embedded)
 * into *out; false when it does not fit. PAR(a) is built. */
static bool par_layout_at(const struct app *a, int rows, int cols, struct par_layout *out)
{
    const struct par_screen *p = PAR(a);
    const struct par_view *v = &p->view;
    int W = v->cfg.nranks;
    struct par_layout_content c = {
        .nranks = W,
        .shapes = p->shapes,
        .nshapes = v->ok ? v->nframes * W : 0,
        .label_w = 2,
        .xfer_rows = 2,
        .what = v->ok ? p->longest_what : v->err,
        .whats = v->ok ? (const char *const *)p->whats : NULL,
        .nwhats = v->ok ? p->nwhats : 0,
        .zoom = v->ok || a->zoom < 3 ? a->zoom : 2, /* an error keeps its sentence row */
        /* embedded (the presenter), the frame around says how many rows it gives */
        .min_rows = a->bar_row_free ? PAR_EMBED_MIN_ROWS : 0,
        .panel_short = a->panel_short,
    };
    if (v->have_sched) {
        c.gantt_rows = v->sched.stages + 3;
        c.gantt_w = 4 + v->sched.ticks * 2 + 3 + 4 + 24;
    }
    return par_layout_compute(rows, cols, &c, out);
}

bool par_layout(struct app *a, struct rect area)
{
    if (!PAR(a) || PAR(a)->shapes_utf8 != a->utf8) par_rebuild(a);
    struct par_screen *p = PAR(a);
    /* Embedded, the key bar's row is not drawn: the layout may use it, just below area. */
    if (!par_layout_at(a, area.h + (a->bar_row_free ? 1 : 0), area.w, &p->lay)) return false;
    par_layout_shift(&p->lay, area.y, area.x);
    return true;
}

/* Layout x shows all that layout y shows: every matrix and value row the boxes show, every
 * transfer row and sentence line, the charts, the panel at its least bordered height (or as
 * compact as it was; one plain line where the presenter asks with a short panel:
 * app.panel_short). Box borders and the blank rows between regions may go. */
static bool par_shows_all(const struct par_layout *x, const struct par_layout *y,
                          bool panel_short)
{
    int panel_min = y->panel.h < PAR_PANEL_H_MIN ? y->panel.h : PAR_PANEL_H_MIN;
    if (panel_short && panel_min > 1) panel_min = 1;
    return x->key_only <= y->key_only &&
           (x->row_cap == 0 || (y->row_cap && x->row_cap >= y->row_cap)) &&
           x->what_lines >= y->what_lines && x->xfers.h >= y->xfers.h &&
           x->gantt.h == y->gantt.h && x->panel_side == y->panel_side &&
           (x->panel_side || x->panel.h >= panel_min) &&
           (panel_short || x->panel_compact <= y->panel_compact);
}

/* The fewest rows that show all that rows x cols shows: every height from there up to rows
 * shows all that rows shows (the frame may give any). */
static int par_rows_search(const struct app *a, int cols, int rows)
{
    int extra = a->bar_row_free ? 1 : 0;
    struct par_layout ref, at;
    if (!par_layout_at(a, rows + extra, cols, &ref)) return rows;
    int need = rows;
    for (int h = rows - 1; h + extra >= PAR_EMBED_MIN_ROWS; h--) {
        if (!par_layout_at(a, h + extra, cols, &at) ||
            !par_shows_all(&at, &ref, a->panel_short))
            break;
        need = h;
    }
    return need;
}

int par_rows_needed(struct app *a, int cols, int rows)
{
    struct par_screen *p = PAR(a);
    /* the mixture of experts' view lays itself out; a zoom asks for the largest boxes */
    if (a->sc.scheme == TRAIN_MOE || !p || p->shapes_utf8 != a->utf8 || a->zoom > 0)
        return rows;
    int need = rows;
    /* what the layouts below read: the view and its metrics (par_metrics clears the memo)
     * and the app's flags (the memo's key) */
    if (rows_memo_get(&p->rows_memo, a, cols, rows, 0, &need)) return need;
    need = par_rows_search(a, cols, rows);
    rows_memo_put(&p->rows_memo, a, cols, rows, 0, need);
    return need;
}

void par_draw(struct app *a, struct rect area)
{
    if (a->sc.scheme == TRAIN_MOE) {
        if (!PAR(a)) par_rebuild(a);
        /* embedded (the presenter) its bar's row is free: 80x23 holds what 80x24 does */
        if (area.h + (a->bar_row_free ? 1 : 0) < LAYOUT_MIN_ROWS || area.w < LAYOUT_MIN_COLS) {
            a->nbar = 0;
            overlay_too_small(a, area, LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS);
            return;
        }
        par_moe_draw(a, area, &PAR(a)->moe, par_frame_of(a));
        return;
    }
    if (!par_layout(a, area)) {
        a->nbar = 0;
        overlay_too_small(a, area, LAYOUT_MIN_ROWS, LAYOUT_MIN_COLS);
        return;
    }
    struct par_screen *p = PAR(a);
    const struct par_view *v = &p->view;
    const struct par_layout *l = &p->lay;
    par_title(a, l->title);
    par_status(a, l->status);
    if (v->ok) {
        par_boxes(a);
        if (l->xfers.h > 0) par_xfers(a, l->xfers);
        if (l->gantt.h > 0) par_gantt(a, l->gantt);
    }
    if (l->what.h > 0) par_what(a, l->what); /* (zoom 3 takes its rows away) */
    if (l->panel.h > 0) par_panel(a, l->panel);
    frame_bar(a, l->bar, KEYS_ON_PAR);
}

/* The help overlay's legend for this screen: colours, how values are written, where the
 * panel's figures come from. */
void par_help(const struct app *a, struct styled_lines *p, int width)
{
    const struct theme *th = &a->th;
    char ranks[200], marks[200];
    snprintf(ranks, sizeof ranks, "%s a value holding that rank's input only", a->g->ell);
    snprintf(marks, sizeof marks, " by this step  %s no data", a->g->dot);
    styled_colour_legend(p, th, a->g, ranks, marks);
    struct styled_line *l = styled_new(p);
    styled_add(l, A_BOLD, "values  ");
    styled_add(l, A_NORMAL, "83 under %s is 0.83; ",
               a->utf8 ? "\u00d710\u207b\u00b2" : "x1e-2");
    styled_add(l, th->role[TH_OK], "%s", a->g->ok);
    styled_add(l, A_NORMAL, " equals the single-device value");
    const struct train_summary *s = par_summary(a);
    char t[400];
    snprintf(t, sizeof t, "panel   %s on %s at lecture scale; \"model\" marks formulas",
             s ? "measured" : "to be measured", par_backend_note(a));
    styled_wrapped_max(p, A_NORMAL, width, t, 2);
    if (a->sc.scheme != TRAIN_PP) return;
    /* The pipeline chart's legend in full (the chart shortens it on small terminals). */
    char mg[200];
    par_mg_legend(a, 0, mg, sizeof mg);
    snprintf(t, sizeof t,
             "pipeline  ideal: F/B = forward/backward of micro-batch n, %s idle (the bubble); "
             "measured: %s; bubble measured = idle share of the span, steps 2 on",
             a->utf8 ? "\u00b7" : ".", mg);
    styled_wrapped_max(p, A_NORMAL, width, t, 4);
}
