/* panel.c - the collectives screen's measured panel: the backend, the check badge
 * (animation = backend), the last measurement's figures each saying what it is and where it
 * came from, the lecture's busbw formula with the numbers plugged in, and the busbw-vs-size
 * plot of a sweep. */
#include "ui/screens/collectives/panel.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "ui/app.h"
#include "core/text.h"
#include "ui/hierdraw.h"
#include "ui/screens/screens.h"
#include "ui/screens/collectives/collstate.h"
#include "ui/screens/collectives/measmodel.h"

static void panel_badge(const struct app *a, struct styled_line *l)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    const struct theme *th = &a->th;
    switch (m->check) {
    case CHECK_PASS:
        /* "cpu ranks" executed the drawn plan itself; another backend ran its own
         * algorithm, and a reduction in its own order may differ in the last bits. */
        styled_add(l, th->role[TH_OK], "%s animation = %s%s", a->g->ok, a->backend_name,
                   backend_kind_of(a->backend_name) == BACKEND_CPU ? " ranks" : "");
        styled_add(l, th->role[TH_DIM], " (%s)",
                   m->inexact ? "within float rounding" : "bit for bit");
        break;
    case CHECK_FAIL:
        styled_add(l, th->role[TH_BAD], "%s %ld element%s differ", a->g->bad, m->mismatches,
                   m->mismatches == 1 ? "" : "s");
        styled_add(l, th->role[TH_DIM], " (animation vs %s)", a->backend_name);
        break;
    case CHECK_PENDING:
        styled_status_add(l, th->role[TH_WARN], "%s checking animation vs %s", a->g->busy,
                          a->backend_name);
        break;
    case CHECK_ERROR:
        styled_add(l, th->role[TH_BAD], "%s check failed: %s", a->g->bad, m->check_msg);
        break;
    case CHECK_SKIPPED: /* why, and where it is checked instead: the speaker's */
        styled_status_add(l, th->role[TH_WARN], "%s", m->check_msg);
        break;
    case CHECK_NONE:
        styled_status_add(l, th->role[TH_DIM], "animation not checked yet");
        break;
    }
}

/* The fit of the last finished sweep (the α-β model through its points): CV_OK with *f, or
 * an error in err (fewer than two sizes, a degenerate fit). */
static int panel_fit(const struct app *a, struct model_fit *f, char *err, size_t errlen)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    if (meas_sweeping(m) || m->nsweep < 2)
        return cv_err(err, errlen, CV_EINVAL, "no finished sweep of 2 sizes or more");
    return mm_fit_rows(m->sweep_params.coll, m->sweep_params.algo, m->sweep[0].nranks, m->sweep,
                       m->nsweep, f, err, errlen);
}

/* α and β for the model beside the figures: the sweep's fit where there is one of the same
 * collective and world size, else the defaults mm_choose states. */
static void panel_model_params(const struct app *a, enum coll c, int W, struct mm_params *mp)
{
    const struct coll_screen *cs = coll_cstate(a);
    struct model_fit f;
    char err[160];
    const struct meas *m = &cs->m;
    bool fit = panel_fit(a, &f, err, sizeof err) == CV_OK && m->sweep_params.coll == c &&
               m->sweep[0].nranks == W;
    mm_choose(fit ? &f : NULL, screen_figure(a, SCREEN_FIG_MEMCPY_GBS), W,
              (backend_caps_of(a->backend_name) & BACKEND_CAP_GPU) != 0, a->utf8, mp);
    char *key = a->no_key_hints ? strstr(mp->text, " (sweep with s") : NULL;
    if (key && draw_room())
        *key = '\0'; /* "no sweep yet" is the notes' (panel_model) */
    else if (key)
        snprintf(key, sizeof mp->text - (size_t)(key - mp->text), " (no sweep yet)");
}

/* The model's time and busbw for the measured collective, size and W, labelled "model",
 * with where its α and β came from; after a sweep, the fit itself. */
static void panel_model(const struct app *a, struct styled_lines *p, int width)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    const struct theme *th = &a->th;
    const struct bench_result *row = &m->row;
    if (row->nranks < 2) return;
    enum coll c = m->row_params.coll;
    enum algo al;
    if (algo_parse(row->algo, &al) != 0) al = m->row_params.algo;
    struct mm_params mp;
    panel_model_params(a, c, row->nranks, &mp);
    struct model_cost mc;
    char err[200];
    struct styled_line *l = styled_new(p);
    styled_add(l, th->role[TH_PLOT] | A_BOLD, "model ");
    if (model_collective(c, al, row->nranks, row->bytes, mp.alpha_s, mp.beta_Bps, &mc, err,
                         sizeof err) != CV_OK) {
        styled_add(l, th->role[TH_WARN], "%s", err);
        return;
    }
    char t[32], bus[32];
    text_time_us(t, sizeof t, mc.time_s * 1e6);
    text_gbps(bus, sizeof bus, mc.busbw / 1e9);
    styled_add(l, th->role[TH_PLOT], "time %s  busbw %s GB/s", t, bus);
    styled_wrapped_max(p, th->role[TH_DIM], width, mp.text, 2);
    if (a->no_key_hints && draw_room() && mp.source != MM_FIT)
        styled_status(p, th->role[TH_DIM], "model: no sweep yet");
    /* A sweep whose fit cannot be used says why (the defaults above stand in). */
    if (m->nsweep >= 2 && !meas_sweeping(m) && mp.source != MM_FIT) {
        struct model_fit f;
        if (panel_fit(a, &f, err, sizeof err) != CV_OK) {
            styled_wrapped_max(p, th->role[TH_WARN], width, err, 2);
        } else if (!f.physical) {
            char t2[160];
            snprintf(t2, sizeof t2, "fit of the sweep not physical: %s %.3g us, 1/%s %.3g s/B",
                     a->utf8 ? "\u03b1" : "alpha", f.alpha_s * 1e6, a->utf8 ? "\u03b2" : "beta",
                     f.inv_beta);
            styled_wrapped_max(p, th->role[TH_WARN], width, t2, 2);
        }
    }
    if (!a->no_key_hints)
        styled_add(styled_new(p), th->role[TH_DIM], "what if on other links (model): y");
}

/* Is the last measurement's row of another scene than the one shown (another collective,
 * size or operation), or being replaced? */
static bool panel_row_stale(const struct app *a)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    return meas_measuring(m) || m->row_params.coll != a->sc.coll ||
           m->row_params.bytes != a->sc.meas_bytes || m->row_params.op != a->sc.op;
}

/* The figures of the last measurement, each saying what it is and where it came from. */
/* How the row was measured (the backend's words) and the model beside it: the panel's
 * details, drawn under the figures or, in two columns, where they fit whole. */
static void panel_details(const struct app *a, struct styled_lines *p, int width)
{
    const struct meas *m = &coll_cstate(a)->m;
    if (!m->have_row || (panel_row_stale(a) && a->room)) return;
    /* one line, wrapped where it is drawn: a paragraph is kept or left out whole */
    if (m->row.how[0]) styled_add(styled_new(p), a->th.role[TH_DIM], "%s", m->row.how);
    panel_model(a, p, width);
}

/* The measured row's figures; its details too when `details`. */
static void panel_numbers(const struct app *a, struct styled_lines *p, int width,
                          bool with_badge, bool details)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    const struct theme *th = &a->th;
    attr_t lab = th->role[TH_LABEL], num = th->role[TH_MEASURED];
    if (with_badge) panel_badge(a, styled_new(p));
    char size[32];
    if (meas_measuring(m)) {
        format_size(m->measure_params.bytes, size, sizeof size);
        struct styled_line *l = styled_status(p, th->role[TH_WARN], "measuring %s%s %.1f s",
                                              size, a->g->ell, now_s() - m->measure_started);
        char k[16];
        if (l && app_key_hint(a, ACT_CANCEL, k, sizeof k))
            styled_add(l, th->role[TH_DIM], " (%s cancels)", k);
    } else if (m->measure_err[0]) {
        /* wrapped, not cut: a refusal's reason ("needs 256 GiB of buffers; 22 GiB
         * available") is at its end */
        char t[sizeof m->measure_err + 16];
        snprintf(t, sizeof t, "measurement: %s", m->measure_err);
        styled_status_wrapped(p, th->role[TH_BAD], width, t, 4);
    }
    if (!m->have_row) {
        char k[16];
        if (!meas_measuring(m) && app_key_hint(a, ACT_MEASURE, k, sizeof k))
            styled_add(styled_new(p), th->role[TH_DIM], "not measured yet (%s measures)", k);
        else if (!meas_measuring(m)) /* a placeholder: the notes' in the room */
            styled_status(p, th->role[TH_DIM], "not measured yet");
        return;
    }
    const struct bench_result *row = &m->row;
    format_size(row->bytes, size, sizeof size);
    /* A row of another scene (a new measurement runs, or the scene changed since) is marked
     * stale and dimmed: never read as the shown scene's. */
    bool stale = panel_row_stale(a);
    if (stale && a->room) { /* the room: never another scene's figures, even while measuring */
        styled_add(styled_new(p), th->role[TH_DIM], "not measured for this scene");
        return;
    }
    if (stale) {
        num = th->role[TH_DIM];
        char st[120];
        app_keyed(a, st, sizeof st, "stale: measured for another scene", ACT_MEASURE,
                  "measures this one");
        styled_status_wrapped(
            p, th->role[TH_WARN], width,
            meas_measuring(m) ? "stale: the previous result, until this one is in" : st, 2);
    }
    struct styled_line *l = styled_new(p);
    styled_add(l, lab, "measured on %s: ", m->row_backend);
    styled_add(l, A_BOLD, "%s %s, W=%d", coll_title(m->row_params.coll), size, row->nranks);
    char t[32], alg[32], bus[32];
    text_time_us(t, sizeof t, row->time_us);
    text_gbps(alg, sizeof alg, row->algbw);
    text_gbps(bus, sizeof bus, row->busbw);
    l = styled_new(p);
    styled_add(l, lab, "time  ");
    styled_add(l, num, "%-10s", t);
    if (row->nranks < 2) {
        /* Nothing crosses between ranks: size/time is not a transfer rate (as the CLI says). */
        styled_wrapped_max(p, th->role[TH_WARN], width, meas_single_rank_note(), 3);
    } else {
        styled_add(l, lab, "algbw ");
        styled_add(l, num, "%s GB/s", alg);
        l = styled_new(p);
        styled_add(l, lab, "busbw ");
        styled_add(l, num | A_BOLD, "%s GB/s", bus);
        styled_add(l, th->role[TH_DIM], "  (GB = 10^9 B)");
        char sym[96], nums[160];
        meas_formula(m->row_params.coll, row->nranks, row->bytes, row->time_us, a->utf8, sym,
                     sizeof sym, nums, sizeof nums);
        styled_add(styled_new(p), A_NORMAL, "%s", sym);
        styled_add(styled_new(p), A_NORMAL, "  %s", nums);
    }
    l = styled_new(p);
    styled_add(l, lab, "#wrong ");
    if (row->wrong < 0)
        styled_add(l, th->role[TH_DIM], "not checked");
    else
        styled_add(l, row->wrong ? th->role[TH_BAD] : num, "%ld", row->wrong);
    styled_add(l, th->role[TH_DIM], "  algo %s", row->algo);
    /* NCCL_ALGO / NCCL_PROTO steer what NCCL measured: say so next to the figures. */
    char env[160];
    hw_nccl_env_text(&a->hw, env, sizeof env);
    if (env[0] && (backend_caps_of(m->row_backend) & BACKEND_CAP_LIB_ENV))
        styled_wrapped(p, th->role[TH_WARN], width, env);
    if (row->nranks != a->sc.nranks)
        styled_wrapped(
            p, th->role[TH_WARN], width,
            row->nranks < a->sc.nranks && a->max_ranks < a->sc.nranks
                ? "measured on fewer ranks than the animation shows (the backend has "
                  "no more)"
                : "measured at a different world size than the animation shows");
    if (details) panel_details(a, p, width);
}

/* Moves the last whole lines of p that do not fit in `rows` rows of width w to `out`. */
static void panel_spill(struct styled_lines *p, int w, int rows, struct styled_lines *out)
{
    int n = p->n;
    while (p->n > 1 && styled_rows(p, w) > rows)
        p->n--;
    for (int i = p->n; i < n; i++)
        out->l[out->n++] = p->l[i];
}

/* Draws p's whole lines in r; when they need more rows than r has, the last row says how
 * many lines are left out instead of a line cut off: in words to the speaker (status), as a
 * "more" mark, ⋯, to the room. Returns the rows used. */
static int panel_draw_told(const struct app *a, struct styled_lines *p, struct rect r)
{
    if (r.h <= 0) return 0;
    if (styled_rows(p, r.w) <= r.h) return styled_draw(p, 0, r);
    int n = p->n, keep = n;
    while (keep > 0) {
        p->n = keep;
        if (styled_rows(p, r.w) <= r.h - 1) break;
        keep--;
    }
    int used = keep ? styled_draw(p, 0, (struct rect){r.y, r.x, r.h - 1, r.w}) : 0;
    p->n = n;
    struct styled_lines more = {.n = 0};
    if (!styled_status(&more, a->th.role[TH_DIM], "+%d more line%s: a taller terminal",
                       n - keep, n - keep == 1 ? "" : "s"))
        styled_add(styled_new(&more), a->th.role[TH_DIM], "%s", a->utf8 ? "\u22ef" : "+");
    return used + styled_draw(&more, 0, (struct rect){r.y + used, r.x, 1, r.w});
}

/* What the backend's ranks are, and the measurement size; then, in at most note_lines
 * lines, why NCCL is not the backend ("nccl: unavailable — no usable GPU: ..."): a student
 * with no GPU sees at a glance why the CPU ranks run (b shows the whole reason). */
static void panel_backend(const struct app *a, struct styled_lines *p, int width,
                          int note_lines)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct theme *th = &a->th;
    char t[320];
    snprintf(t, sizeof t, "backend %s: %s", a->w ? a->backend_name : "none", a->backend_desc);
    styled_wrapped_max(p, th->role[TH_LABEL], width, t, cs->lay.panel_side ? 6 : 3);
    char size[32];
    format_size(a->sc.meas_bytes, size, sizeof size);
    struct styled_line *l = styled_new(p);
    styled_add(l, th->role[TH_DIM], "size ");
    styled_add(l, A_BOLD, "%s", size);
    char k1[16], k2[16];
    if (app_key_hint(a, ACT_SIZE_DOWN, k1, sizeof k1) &&
        app_key_hint(a, ACT_SIZE_UP, k2, sizeof k2))
        styled_add(l, th->role[TH_DIM], " (%s %s halve/double)", k1, k2);
    char note[300];
    hw_panel_note(&a->hw, a->utf8, note, sizeof note);
    if (note[0] && note_lines > 0 && !a->room) /* the room: the notes terminal says it */
        styled_wrapped_max(p, th->role[TH_WARN], width, note, note_lines);
}

/* The model's curve through the points: busbw of the fitted α-β model at each sweep size
 * into model_bus; false (and no curve) when there is no physical fit. */
static bool plot_model_curve(const struct app *a, double *model_bus)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    struct model_fit f;
    char err[160];
    if (panel_fit(a, &f, err, sizeof err) != CV_OK || !f.physical) return false;
    struct mm_params mp;
    mm_choose(&f, 0, m->sweep[0].nranks, false, a->utf8, &mp);
    size_t sizes[MEAS_SWEEP_MAX];
    for (int i = 0; i < m->nsweep; i++)
        sizes[i] = m->sweep[i].bytes;
    enum algo al;
    if (algo_parse(m->sweep[0].algo, &al) != 0) al = m->sweep_params.algo;
    mm_curve(m->sweep_params.coll, al, m->sweep[0].nranks, &mp, sizes, m->nsweep, model_bus);
    return true;
}

/* text wrapped at word boundaries into r's width, on as many of its rows as it needs (at
 * most r.h and 4); the rows used. */
static int plot_wrapped(const struct app *a, struct rect r, attr_t attr, const char *text)
{
    char lines[4][256];
    int max = r.h < 4 ? r.h : 4;
    int n = max > 0 ? text_wrap(text, r.w, lines, max, a->utf8) : 0;
    for (int i = 0; i < n; i++)
        draw_putf(r.y + i, r.x, r.w, attr, "%s", lines[i]);
    return n;
}

/* The plot's title line: the sweep's progress, the key that starts one, or what the plot
 * shows. False when there is no sweep to plot (nothing more to draw). */
static bool plot_title(const struct app *a, struct rect r, bool pair)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    const struct theme *th = &a->th;
    char lo[16], hi[16];
    meas_size_label(4096, lo, sizeof lo);
    meas_size_label(a->sc.meas_bytes, hi, sizeof hi);
    char kx[16], ks[16], cancels[32] = "";
    if (app_key_hint(a, ACT_CANCEL, kx, sizeof kx))
        snprintf(cancels, sizeof cancels, "  (%s cancels)", kx);
    if (meas_sweeping(m)) {
        char t[200];
        if (m->sweep_id || !pair)
            snprintf(t, sizeof t, "sweeping %d/%d %s %.1f s%s",
                     m->nsweep + 1 > m->sweep_total ? m->sweep_total : m->nsweep + 1,
                     m->sweep_total, a->g->ell, now_s() - m->sweep_started, cancels);
        else
            snprintf(t, sizeof t, "sweeping whole chunks %d/%d %s %.1f s%s",
                     m->nwhole + 1 > m->sweep_total ? m->sweep_total : m->nwhole + 1,
                     m->sweep_total, a->g->ell, now_s() - m->sweep_started, cancels);
        draw_put_status(r.y, r.x, r.w, th->role[TH_WARN], t);
    } else if (m->nsweep == 0) {
        /* the longest form that fits its rows whole, never one cut by "…" */
        char t[300], mid[120], shortest[64];
        if (app_key_hint(a, ACT_SWEEP, ks, sizeof ks)) {
            snprintf(t, sizeof t, "busbw vs size: press %s to sweep %s..%s", ks, lo, hi);
            snprintf(mid, sizeof mid, "busbw vs size: press %s", ks);
            snprintf(shortest, sizeof shortest, "%s: sweep", ks);
        } else if (draw_room()) { /* a placeholder, and an error: the notes' */
            draw_put_status(r.y, r.x, r.w, th->role[TH_DIM], "busbw vs size: no sweep yet");
            if (m->sweep_err[0]) {
                snprintf(t, sizeof t, "sweep: %s", m->sweep_err);
                draw_put_status(r.y, r.x, r.w, th->role[TH_BAD], t);
            }
            return false;
        } else {
            snprintf(t, sizeof t, "busbw vs size: no sweep yet");
            snprintf(mid, sizeof mid, "no sweep yet");
            snprintf(shortest, sizeof shortest, "no sweep");
        }
        int rows = r.h < 4 ? r.h : 4;
        if (text_wrap_count(t, r.w) > rows) snprintf(t, sizeof t, "%s", mid);
        if (text_wrap_count(t, r.w) > rows) snprintf(t, sizeof t, "%s", shortest);
        int used = plot_wrapped(a, r, th->role[TH_DIM], t);
        if (m->sweep_err[0] && r.h > used) {
            snprintf(t, sizeof t, "sweep: %s", m->sweep_err);
            plot_wrapped(a, (struct rect){r.y + used, r.x, r.h - used, r.w}, th->role[TH_BAD],
                         t);
        }
        return false;
    } else {
        draw_putf(r.y, r.x, r.w, th->role[TH_LABEL], "busbw GB/s vs size: %s, W=%d%s",
                  coll_title(m->sweep_params.coll), m->sweep[0].nranks,
                  m->sweep[0].nranks < 2 ? " (no transfer: not a rate)" : "");
    }
    return true;
}

/* The sliced and whole-chunk series' legend, on row y. */
static void plot_pair_legend(const struct app *a, struct rect r, int y)
{
    const struct theme *th = &a->th;
    int x = r.x;
    x += draw_putf(y, x, r.w, th->role[TH_PLOT], "%s", a->g->blocks[8]);
    x += draw_putf(y, x, r.x + r.w - x, th->role[TH_DIM], " sliced (default)  ");
    x += draw_putf(y, x, r.x + r.w - x, th->role[TH_LABEL], "%s", a->g->blocks[8]);
    draw_putf(y, x, r.x + r.w - x, th->role[TH_DIM], " whole chunks");
}

/* One bar barw columns wide at column x, e eighths of a row high, rows tall, up from base. */
static void plot_bar(const struct app *a, int base, int x, int barw, int rows, int e,
                     attr_t attr)
{
    for (int k = 0; k < rows; k++) {
        int fillv = e - k * 8;
        fillv = fillv < 0 ? 0 : fillv > 8 ? 8 : fillv;
        for (int c = 0; c < barw; c++)
            draw_put(base - k, x + c, 1, attr, a->g->blocks[fillv]);
    }
}

/* The bars (and the model's points) under the title, with the scale at the left and the
 * sizes below; *base is the bars' bottom row. False when they do not fit. */
static bool plot_bars(const struct app *a, struct rect r, const double *model_bus, bool curve,
                      bool pair, int *base_out)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    const struct theme *th = &a->th;
    double max = 0;
    for (int i = 0; i < m->nsweep; i++) {
        if (m->sweep[i].busbw > max) max = m->sweep[i].busbw;
        if (curve && model_bus[i] > max) max = model_bus[i];
    }
    for (int i = 0; i < m->nwhole; i++)
        if (m->whole[i].busbw > max) max = m->whole[i].busbw;
    int total = m->sweep_total > m->nsweep ? m->sweep_total : m->nsweep;
    char maxs[16];
    text_gbps(maxs, sizeof maxs, max);
    int gut = text_width(maxs) + 1;
    int colw = (r.w - gut) / total;
    if (colw > (pair ? 8 : 6)) colw = pair ? 8 : 6;
    if (colw < (pair ? 3 : 2)) return false;
    /* With the whole-chunk sweep beside it: two bars per size, sliced then whole. */
    int barw = pair ? (colw - 1) / 2 : colw - 1;
    bool wide = false;
    for (int i = 0; i < m->nsweep; i++) {
        char lab[16];
        meas_size_label(m->sweep[i].bytes, lab, sizeof lab);
        if (text_width(lab) >= colw) wide = true;
    }
    int rows = r.h - 2 - (curve ? 1 : 0); /* title above, size labels (and legend) below */
    if (rows < 2) return false;
    int base = r.y + 1 + rows - 1;
    *base_out = base;
    draw_put(r.y + 1, r.x, gut, th->role[TH_DIM], maxs);
    draw_put(base, r.x + gut - 2, 2, th->role[TH_DIM], "0");
    for (int i = 0; i < total; i++) {
        int cx = r.x + gut + i * colw;
        if (i < m->nsweep) {
            plot_bar(a, base, cx, barw, rows, meas_bar_eighths(m->sweep[i].busbw, max, rows),
                     th->role[TH_PLOT]);
            if (curve && model_bus[i] > 0) {
                /* The model's point: the row its busbw reaches, on the bar's middle. */
                int k = (meas_bar_eighths(model_bus[i], max, rows) + 7) / 8 - 1;
                if (k < 0) k = 0;
                if (k > rows - 1) k = rows - 1;
                draw_put(base - k, cx + (colw - 1) / 2, 1, th->role[TH_HL] | A_BOLD,
                         a->utf8 ? "\u25cf" : "*");
            }
        }
        if (pair && i < m->nwhole)
            plot_bar(a, base, cx + barw, barw, rows,
                     meas_bar_eighths(m->whole[i].busbw, max, rows), th->role[TH_LABEL]);
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
    return true;
}

/* busbw vs size from the last sweep: one bar per size, heights in eighths of a row. */
static void panel_plot(const struct app *a, struct rect r)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct meas *m = &cs->m;
    const struct theme *th = &a->th;
    if (r.h < 1 || r.w < 10) return;
    double model_bus[MEAS_SWEEP_MAX] = {0};
    bool curve = plot_model_curve(a, model_bus);
    bool pair = m->nwhole > 0 || m->whole_id != 0;
    if (!plot_title(a, r, pair)) return;
    /* The two series' legend on its own line, the plot below it. */
    if (pair && m->nsweep > 0 && r.h >= 5) {
        plot_pair_legend(a, r, r.y + 1);
        r.y++;
        r.h--;
    }
    if (m->nsweep == 0 || r.h < 4) return;
    int base;
    if (!plot_bars(a, r, model_bus, curve, pair, &base)) return;
    /* The model's legend under the size labels. */
    if (curve) {
        int w = draw_putf(base + 2, r.x, r.w, th->role[TH_HL] | A_BOLD, "%s",
                          a->utf8 ? "\u25cf" : "*");
        draw_put(base + 2, r.x + w, r.w - w, th->role[TH_DIM],
                 " model: the fit through these points");
    }
    if (m->sweep_err[0] && !meas_sweeping(m))
        draw_putf(r.y, r.x + r.w - 12 > r.x ? r.x + r.w - 12 : r.x, 12, th->role[TH_BAD],
                  "(%.10s)", m->sweep_err);
}

/* The panel in a line or two: the badge and the headline figure, then the backend. */
static void coll_panel_compact(const struct app *a, struct rect r)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct theme *th = &a->th;
    /* A line or two: the badge and the headline figure. */
    struct styled_lines p = {.n = 0};
    struct styled_line *ln = styled_new(&p);
    panel_badge(a, ln);
    bool stale = cs->m.have_row && panel_row_stale(a);
    if (stale && (a->room || !meas_measuring(&cs->m))) {
        /* another scene's figures are never read as this one's: the room sees none */
        styled_add(ln, th->role[TH_DIM], "  %s",
                   a->room ? "not measured for this scene"
                           : "stale: measured for another scene");
    } else if (cs->m.have_row) {
        char bus[32], size[32];
        text_gbps(bus, sizeof bus, cs->m.row.busbw);
        format_size(cs->m.row.bytes, size, sizeof size);
        if (cs->m.row.nranks < 2) {
            char t[32];
            text_time_us(t, sizeof t, cs->m.row.time_us);
            styled_add(ln, th->role[TH_LABEL], "  time ");
            styled_add(ln, th->role[TH_MEASURED], "%s", t);
            styled_add(ln, th->role[TH_WARN], " (W=1: no transfer)");
        } else {
            styled_add(ln, th->role[TH_LABEL], "  busbw ");
            styled_add(ln, th->role[TH_MEASURED], "%s GB/s", bus);
        }
        styled_add(ln, th->role[TH_DIM], " measured on %s, %s, W=%d", cs->m.row_backend, size,
                   cs->m.row.nranks);
    } else if (meas_measuring(&cs->m)) {
        styled_status_add(ln, th->role[TH_DIM], "  measuring");
    } else {
        styled_status_add(ln, th->role[TH_DIM], "  not measured yet");
    }
    char t[320];
    snprintf(t, sizeof t, "backend %s: %s", a->w ? a->backend_name : "none", a->backend_desc);
    styled_add(styled_new(&p), th->role[TH_DIM], "%s", t);
    styled_draw(&p, 0, (struct rect){r.y, r.x + 1, r.h, r.w - 2});
}

void coll_panel(const struct app *a, struct rect r)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct theme *th = &a->th;
    const struct layout *l = &cs->lay;
    if (r.h < 1) return;
    if (l->panel_compact) {
        coll_panel_compact(a, r);
        return;
    }
    char title[64];
    snprintf(title, sizeof title, "measured%s%s", a->g->sep,
             a->w ? a->backend_name : "no backend");
    draw_frame(r, a->th.role[TH_BORDER], title, th->role[TH_LABEL] | A_BOLD);
    struct rect in = {r.y + 1, r.x + 2, r.h - 2, r.w - 4};
    /* Why the preferred backend is not used (e.g. no GPU) comes last: it matters once. */
    struct styled_lines note = {.n = 0};
    if (a->backend_note[0])
        styled_wrapped_max(&note, th->role[TH_WARN], l->panel_side ? in.w : in.w / 2 - 3,
                           a->backend_note, l->panel_side ? 6 : 2);
    if (l->panel_side) {
        struct styled_lines p = {.n = 0};
        panel_backend(a, &p, in.w, 3);
        panel_badge(a, styled_new(&p));
        styled_new(&p);
        panel_numbers(a, &p, in.w, false, true);
        int used = panel_draw_told(a, &p, in);
        struct rect pr = {in.y + used + 1, in.x, in.h - used - 1 - (note.n ? note.n + 1 : 0),
                          in.w};
        if (pr.h > 8) pr.h = 8 + (pr.h - 8) / 3; /* a taller plot reads no better */
        panel_plot(a, pr);
        if (pr.h < 0) pr.h = 0;
        int below = pr.y + pr.h + 1;
        /* The what-if table of the measured collective on every link (model), where the
         * rows below the plot leave room for it and the note. */
        if (cs->m.have_row && cs->m.row.nranks >= 2) {
            static struct hier_lines w;
            enum algo al;
            if (algo_parse(cs->m.row.algo, &al) != 0) al = cs->m.row_params.algo;
            hier_whatif(cs->m.row_params.coll, al, cs->m.row.nranks, cs->m.row.bytes, a->utf8,
                        true, &w);
            if (in.y + in.h - below - (note.n ? note.n + 1 : 0) >= w.n)
                below += hier_lines_draw(a, &w, (struct rect){below, in.x, w.n, in.w}) + 1;
        }
        styled_draw(&note, 0, (struct rect){below, in.x, in.y + in.h - below, in.w});
    } else {
        /* Two columns: figures on the left; backend, then the plot (or the note while
         * there is no sweep) on the right. */
        int lw = in.w / 2 + 2;
        struct styled_lines left = {.n = 0}, right = {.n = 0};
        panel_numbers(a, &left, lw - 1, true, false);
        /* Figures that do not fit under each other go on at the right column's top, after
         * the backend; the details (how it was measured, the model) go under the figures
         * when they fit whole there, else on the right; where rows run out, the last row
         * says how many lines are left out (never a line silently cut off). */
        struct styled_lines spill = {.n = 0}, dl = {.n = 0}, dr = {.n = 0};
        panel_spill(&left, lw - 1, in.h, &spill);
        panel_details(a, &dl, lw - 1);
        panel_details(a, &dr, in.w - lw - 1);
        bool under = !spill.n && styled_rows(&left, lw - 1) + styled_rows(&dl, lw - 1) <= in.h;
        if (under)
            for (int i = 0; i < dl.n && left.n < (int)(sizeof left.l / sizeof left.l[0]); i++)
                left.l[left.n++] = dl.l[i];
        panel_draw_told(a, &left, (struct rect){in.y, in.x, in.h, lw - 1});
        /* The nccl line gets two lines until a sweep's plot needs the room. */
        bool plot = cs->m.nsweep > 0 || meas_sweeping(&cs->m);
        panel_backend(a, &right, in.w - lw - 1, plot ? 1 : 2);
        for (int i = 0; i < spill.n && right.n < (int)(sizeof right.l / sizeof right.l[0]); i++)
            right.l[right.n++] = spill.l[i];
        struct rect rr = {in.y, in.x + lw + 1, in.h, in.w - lw - 1};
        if (!under && dr.n) {
            if (styled_rows(&right, rr.w) + styled_rows(&dr, rr.w) <= rr.h)
                for (int i = 0; i < dr.n && right.n < (int)(sizeof right.l / sizeof right.l[0]);
                     i++)
                    right.l[right.n++] = dr.l[i];
            else
                styled_wrapped_max(&right, th->role[TH_DIM], rr.w,
                                   "how it was measured and the model: on a taller terminal",
                                   2);
        }
        int used = panel_draw_told(a, &right, rr);
        if (cs->m.nsweep == 0 && !meas_sweeping(&cs->m))
            used += styled_draw(&note, 0, (struct rect){rr.y + used, rr.x, rr.h - used, rr.w});
        panel_plot(a, (struct rect){rr.y + used, rr.x, rr.h - used, rr.w});
    }
}
