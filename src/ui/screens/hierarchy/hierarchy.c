/* hierarchy.c - the hierarchy screen (see hierarchy.h): its entry in the table of screens,
 * its state, the measurements it posts to the worker (JOB_MEMCPY and an all-reduce
 * JOB_MEASURE, matched by job id) and its drawing. Every figure on it is the lecture's,
 * measured here (with how), or the model's; ui/hiertext.c words them and ui/hierdraw.c
 * draws those words. */
#include "ui/screens/hierarchy/hierarchy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "ui/hierdraw.h"
#include "ui/meas.h"
#include "core/text.h"
#include "ui/overlays/overlays.h"

#define HIER(a) ((struct hier_screen *)(a)->screen_state[SCREEN_HIERARCHY])
#define HIER_TIMEOUT_S 60.0
#define HIER_COPY_BYTES ((size_t)64 << 20)
#define HIER_COPY_REPS 5
#define HIER_WIDE 176         /* at least this many columns: both pages side by side */
#define HIER_EMBED_MIN_ROWS 8 /* the fewest rows an embedded scene is drawn in */
#define HIER_SHOWS_DETAIL 1u  /* the ladder's detail lines */
#define HIER_SHOWS_WHATIF 2u  /* the what-if table under the ladder */

static struct hier_screen *hier_state(struct app *a)
{
    if (!HIER(a)) {
        struct hier_screen *h = xcalloc(1, sizeof *h);
        hier_napkin_defaults(&h->napkin);
        a->screen_state[SCREEN_HIERARCHY] = h;
    }
    return HIER(a);
}

static double hier_screen_figure(const struct app *a, enum screen_figure f)
{
    if (f != SCREEN_FIG_MEMCPY_GBS) return 0.0;
    const struct hier_screen *h = HIER(a);
    return h && h->copy.state == HM_DONE ? h->copy.gbs : 0.0;
}

/* ---- the figures ------------------------------------------------------------------------ */

static void hier_fig_from(struct hier_figure *f, const struct hier_result *r)
{
    f->state = r->state;
    f->gbs = r->gbs;
    snprintf(f->how, sizeof f->how, "%s", r->how);
}

static void hier_fig_na(struct hier_figure *f, const char *why)
{
    f->state = HM_NA;
    snprintf(f->how, sizeof f->how, "%s", why);
}

static void hier_collectives_row(const struct app *a, struct hier_figure *ar);
static void hier_nccl_link(const struct app *a, const struct hier_screen *h,
                           struct hier_figure *f);

void hier_figures(const struct app *a, struct hier_measured *m)
{
    memset(m, 0, sizeof *m);
    char k[8]; /* "" on the room's screen: no key named */
    snprintf(m->measure_key, sizeof m->measure_key, "%s",
             app_key_hint(a, ACT_MEASURE, k, sizeof k) ? k : "");
    m->copy.at = TIER_HBM;
    m->cpu_ar.at = TIER_NVLINK; /* ranks inside one machine */
    m->nccl.at = TIER_NVLINK;
    m->mpi_node.at = hier_tier_for_mpi(false, NULL);
    m->mpi_net.at = hier_tier_for_mpi(true, NULL);
    hier_record_from(screen_record(a), screen_record_comm(a), &m->rec);
    m->measured_only = a->room;
    hier_fig_na(&m->mpi_node, a->room ? "MPI within one node: not run here"
                                      : "mpirun ... bench --within-node");
    hier_fig_na(&m->mpi_net, "needs MPI ranks on 2+ hosts");
    const struct hier_screen *h = HIER(a);
    if (!a->w) {
        hier_fig_na(&m->copy, "no backend thread (the animation runs alone)");
        hier_fig_na(&m->cpu_ar, "no backend (the animation runs alone)");
        hier_fig_na(&m->nccl,
                    a->no_key_hints ? "no GPU in use here" : "no GPU in use here (b says why)");
        return;
    }
    if (h) hier_fig_from(&m->copy, &h->copy);
    bool nccl = (backend_caps_of(a->backend_name) & BACKEND_CAP_GPU) != 0;
    struct hier_figure *ar = nccl ? &m->nccl : &m->cpu_ar;
    if (nccl)
        hier_fig_na(&m->cpu_ar, "the backend is NCCL (--backend cpu)");
    else
        hier_fig_na(&m->nccl,
                    a->no_key_hints ? "no GPU in use here" : "no GPU in use here (b says why)");
    ar->state = HM_NONE;
    if (h && h->ar.state != HM_NONE) {
        hier_fig_from(ar, &h->ar);
    } else {
        hier_collectives_row(a, ar);
    }
    if (nccl) hier_nccl_link(a, h, ar);
}

/* NCCL's figure says which links NCCL reported it connected the GPUs with (its INFO log,
 * read after each measurement: NCCL connects at the first collective) and, when the log
 * said, stands at their tier: NET/Socket beside ethernet, NET/... beside InfiniBand, a
 * path over PCIe (or through host memory) beside PCIe; NVLink, or NVLink-or-PCIe peer
 * access where the log gave no path, stays beside NVLink. */
static void hier_nccl_link(const struct app *a, const struct hier_screen *h,
                           struct hier_figure *f)
{
    const char *link = "";
    const struct meas *cm = screen_meas(a); /* the collectives screen's, NULL none yet */
    if (f->state == HM_DONE)
        link = h && h->ar.state == HM_DONE ? h->ar.link : cm ? cm->row.link : "";
    else if (f->state != HM_NONE)
        return; /* measuring, failed: that is what the line says */
    size_t len = strlen(f->how);
    snprintf(f->how + len, sizeof f->how - len, "%slink: %s", len ? "; " : "",
             link[0] ? link : "read after the first NCCL measurement");
    if (strstr(link, "(NCCL INFO log)")) f->at = hier_tier_for_link(link);
}

/* The collectives screen's last all-reduce, where this screen measured none. */
static void hier_collectives_row(const struct app *a, struct hier_figure *ar)
{
    const struct meas *cm = screen_meas(a);
    if (cm && cm->have_row && cm->row_params.coll == COLL_ALL_REDUCE && cm->row.nranks >= 2 &&
        cm->row.wrong <= 0 && strcmp(cm->row_backend, a->backend_name) == 0) {
        char sz[32];
        format_size(cm->row.bytes, sz, sizeof sz);
        ar->state = HM_DONE;
        ar->gbs = cm->row.busbw;
        snprintf(ar->how, sizeof ar->how,
                 "all-reduce of %s on %d ranks (%s), on the collectives "
                 "screen: %s",
                 sz, cm->row.nranks, cm->row.algo, cm->row.how);
    }
}

/* ---- measuring ------------------------------------------------------------------------- */

/* Post the measurements: the memory copy (when `copy`, or while it has no figure) and the
 * all-reduce at the scene's world size and size. */
static void hier_measure(struct app *a, bool copy)
{
    struct hier_screen *h = hier_state(a);
    if (!a->w) {
        snprintf(a->msg, sizeof a->msg, "no backend to measure on");
        return;
    }
    app_cancel(a); /* whatever another screen had asked gives way */
    if (copy || h->copy.state != HM_DONE) {
        struct job j = {.kind = JOB_MEMCPY,
                        .copy = {.bytes = HIER_COPY_BYTES, .reps = HIER_COPY_REPS}};
        h->copy_id = worker_post(a->w, &j);
        h->copy.state = HM_RUNNING;
    }
    int W = a->sc.nranks < a->max_ranks ? a->sc.nranks : a->max_ranks;
    if (W < 2) {
        h->ar.state = HM_FAILED;
        snprintf(h->ar.how, sizeof h->ar.how, "an all-reduce needs 2 ranks (+ adds ranks)");
        return;
    }
    struct job m = {.kind = JOB_MEASURE};
    m.measure.params = (struct bench_params){
        .coll = COLL_ALL_REDUCE,
        .algo_auto = true,
        .op = OP_SUM,
        .nranks = W,
        .bytes = a->sc.meas_bytes,
        .iters = 10,
        .warmup = 2,
        .check = true,
        .timeout_s = HIER_TIMEOUT_S,
    };
    h->ar_id = worker_post(a->w, &m);
    h->ar.state = HM_RUNNING;
}

static bool hier_result(struct app *a, const struct result *r)
{
    struct hier_screen *h = HIER(a);
    if (!h) return false;
    if (r->kind == JOB_MEMCPY && r->job_id == h->copy_id && h->copy_id) {
        h->copy_id = 0;
        snprintf(h->copy.backend, sizeof h->copy.backend, "%s", r->backend);
        if (r->status == CV_OK) {
            h->copy.state = HM_DONE;
            h->copy.gbs = r->copy.gbs;
            snprintf(h->copy.how, sizeof h->copy.how, "%s", r->copy.how);
        } else {
            h->copy.state = HM_FAILED;
            snprintf(h->copy.how, sizeof h->copy.how, "%s",
                     r->err[0] ? r->err : cv_status_name(r->status));
        }
        return true;
    }
    if (r->kind == JOB_MEASURE && r->job_id == h->ar_id && h->ar_id) {
        h->ar_id = 0;
        snprintf(h->ar.backend, sizeof h->ar.backend, "%s", r->backend);
        if (r->status == CV_OK && r->measure.wrong <= 0) {
            char sz[32];
            format_size(r->measure.bytes, sz, sizeof sz);
            h->ar.state = HM_DONE;
            h->ar.gbs = r->measure.busbw;
            snprintf(h->ar.how, sizeof h->ar.how, "all-reduce of %s on %d ranks (%s), %s", sz,
                     r->measure.nranks, r->measure.algo, r->measure.how);
            snprintf(h->ar.link, sizeof h->ar.link, "%s", r->measure.link);
        } else {
            h->ar.state = HM_FAILED;
            if (r->status == CV_OK)
                snprintf(h->ar.how, sizeof h->ar.how, "%ld wrong elements", r->measure.wrong);
            else
                snprintf(h->ar.how, sizeof h->ar.how, "%s",
                         r->err[0] ? r->err : cv_status_name(r->status));
        }
        return true;
    }
    return false;
}

static void hier_cancelled(struct app *a)
{
    struct hier_screen *h = HIER(a);
    if (!h) return;
    if (h->copy_id) {
        h->copy_id = 0;
        h->copy.state = HM_FAILED;
        snprintf(h->copy.how, sizeof h->copy.how, "%s",
                 a->no_key_hints ? "cancelled" : "cancelled (m measures again)");
    }
    if (h->ar_id) {
        h->ar_id = 0;
        h->ar.state = HM_FAILED;
        snprintf(h->ar.how, sizeof h->ar.how, "%s",
                 a->no_key_hints ? "cancelled" : "cancelled (m measures again)");
    }
}

static bool hier_busy(const struct app *a)
{
    const struct hier_screen *h = HIER(a);
    return h && (h->copy_id || h->ar_id);
}

static void hier_free(struct app *a)
{
    free(HIER(a));
    a->screen_state[SCREEN_HIERARCHY] = NULL;
}

/* ---- the screen's entry ------------------------------------------------------------------ */

static void hier_apply(struct app *a, unsigned changed)
{
    struct hier_screen *h = hier_state(a);
    if (!a->w || !a->auto_measure) return;
    /* On entry, measure what was never measured; a new world size or size measures the
     * all-reduce again (the memory copy does not depend on them). */
    bool never = h->copy.state == HM_NONE && h->ar.state == HM_NONE;
    if (changed & SF_SCREEN) {
        if (never) hier_measure(a, true);
    } else if (changed & (SF_RANKS | SF_MEAS)) {
        hier_measure(a, false);
    }
}

static size_t hier_nsteps(const struct app *a)
{
    (void)a;
    return 1; /* step 0: the ladder, step 1: the napkin math */
}

/* The ladder is the one stop: the napkin math (step 1) is another page, shown with → where
 * the talk wants it, not on the clicker's way (its figures answer later lessons). */
static size_t hier_phase_ends(const struct app *a, long *out, size_t max)
{
    (void)a;
    if (max < 1) return 0;
    out[0] = 0;
    return 1;
}

static bool hier_action(struct app *a, enum ui_action act, struct scene *next)
{
    struct hier_screen *h = hier_state(a);
    switch (act) {
    case ACT_FIELD_NEXT:
    case ACT_FIELD_PREV:
        hier_napkin_select(&h->napkin, act == ACT_FIELD_NEXT ? 1 : -1);
        next->step = 1; /* show the napkin page */
        return true;
    case ACT_VALUE_UP:
    case ACT_VALUE_DOWN:
        hier_napkin_change(&h->napkin, act == ACT_VALUE_UP ? 1 : -1);
        next->step = 1;
        return true;
    case ACT_MEASURE:
        if (hier_busy(a))
            app_busy_msg(a, "already measuring");
        else
            hier_measure(a, true);
        return true;
    case ACT_SIZE_UP:
    case ACT_SIZE_DOWN: {
        size_t s = a->sc.meas_bytes;
        s = act == ACT_SIZE_UP ? s * 2 : s / 2;
        if (s < SCENE_MEAS_MIN || s > SCENE_MEAS_MAX) {
            snprintf(a->msg, sizeof a->msg, "the measurement size stays within 4 KiB..16 GiB");
            return true;
        }
        next->meas_bytes = s;
        return true;
    }
    case ACT_ALGO:
    case ACT_OP:
    case ACT_ROOT:
    case ACT_COUNT_UP:
    case ACT_COUNT_DOWN:
    case ACT_INIT:
    case ACT_SWEEP:
        app_msg_keyed(a, "that key is for the collectives screen", ACT_HIERARCHY,
                      "goes back to it");
        return true;
    default:
        return false;
    }
}

/* ---- drawing ----------------------------------------------------------------------------- */

static void hier_title(const struct app *a, struct rect r)
{
    attr_t t = a->th.role[TH_TITLE];
    draw_fill(r, t);
    char left[200], right[64];
    snprintf(left, sizeof left,
             " collviz%shierarchy%sthe lecture's tiers, this machine measured, napkin math",
             a->g->sep, a->g->sep);
    snprintf(right, sizeof right, "backend: %s ", a->w ? a->backend_name : "none");
    int rw = text_width(right);
    int lw = draw_put(r.y, r.x, r.w, t, left);
    if (lw + rw + 2 <= r.w) draw_put(r.y, r.x + r.w - rw, rw, t, right);
}

static void hier_status(const struct app *a, struct rect r, bool both)
{
    const struct theme *th = &a->th;
    size_t step = app_step(a);
    if (a->msg[0]) {
        draw_put(r.y, r.x, r.w, th->role[TH_WARN], a->msg);
        return;
    }
    const char *arrow = a->utf8 ? "\u2192" : "->", *back = a->utf8 ? "\u2190" : "<-";
    if (both)
        draw_putf(r.y, r.x, r.w, th->role[TH_STEP], "step %zu/1: both pages side by side",
                  step);
    else if (a->no_key_hints)
        draw_putf(r.y, r.x, r.w, th->role[TH_STEP], "step %zu/1: %s", step,
                  step == 0 ? "the ladder and what if" : "napkin math");
    else if (step == 0)
        draw_putf(r.y, r.x, r.w, th->role[TH_STEP],
                  "step 0/1: the ladder and what if (%s napkin math)", arrow);
    else {
        /* the keys that pick a field here (the player's up/down scroll its text: J/K) */
        char dn[16], up[16], fields[48] = "";
        if (app_key_hint(a, ACT_FIELD_NEXT, dn, sizeof dn) &&
            app_key_hint(a, ACT_FIELD_PREV, up, sizeof up))
            snprintf(fields, sizeof fields, "%s/%s picks a field, ", up, dn);
        draw_putf(r.y, r.x, r.w, th->role[TH_STEP],
                  "step 1/1: napkin math, %s< > changes it (%s ladder)", fields, back);
    }
}

/* Zoomed, the room the dropped lines leave goes between the lines that stay: one empty
 * line after each, where all of them still fit in `rows`. */
static void hier_spread(const struct app *a, struct hier_lines *p, int rows)
{
    int n = p->n, cap = (int)(sizeof p->l / sizeof p->l[0]);
    if (a->zoom < 1 || n < 2 || 2 * n - 1 > rows || 2 * n - 1 > cap) return;
    for (int i = n - 1; i >= 0; i--) {
        p->l[2 * i] = p->l[i];
        if (i > 0) p->l[2 * i - 1] = (struct hier_line){.n = 0};
    }
    p->n = 2 * n - 1;
}

/* The ladder page in w x h: the ladder into *p (with detail lines when they fit), then the
 * what-if table of the scene's collective into *wl when there is room (wl->n 0: none). The
 * presenter's zoom drops the details and the what-if table from 1, and more
 * (hier_zoom_lines). The rows it takes; *shows: HIER_SHOWS_* of what it holds. */
static int hier_ladder_lay(const struct app *a, int w, int h, struct hier_lines *p,
                           struct hier_lines *wl, unsigned *shows)
{
    static struct hier_lines raw;
    struct hier_measured m;
    hier_figures(a, &m);
    *shows = a->zoom < 1 ? HIER_SHOWS_DETAIL : 0;
    hier_ladder(&m, a->utf8, a->zoom < 1, &raw);
    hier_zoom_lines(&raw, a->zoom);
    hier_wrap(&raw, w, a->utf8, p);
    if (p->n > h) {
        *shows = 0;
        hier_ladder(&m, a->utf8, false, &raw);
        hier_zoom_lines(&raw, a->zoom);
        hier_wrap(&raw, w, a->utf8, p);
    }
    wl->n = 0;
    int used = p->n;
    if (a->zoom >= 1) return used;
    hier_whatif(a->sc.coll, a->sc.algo, a->sc.nranks, a->sc.meas_bytes, a->utf8, false, wl);
    if (used + 1 + wl->n > h) {
        wl->n = 0;
        return used;
    }
    *shows |= HIER_SHOWS_WHATIF;
    return used + 1 + wl->n;
}

static void hier_page_ladder(const struct app *a, struct rect r)
{
    static struct hier_lines p, w;
    unsigned shows;
    hier_ladder_lay(a, r.w, r.h, &p, &w, &shows);
    hier_spread(a, &p, r.h);
    int used = hier_lines_draw(a, &p, r);
    if (w.n > 0) {
        struct rect wr = {r.y + used + 1, r.x, r.h - used - 1, r.w};
        hier_lines_draw(a, &w, wr);
    }
}

/* The rows the body of a screen rows x cols takes for the page shown (both side by side
 * where they are); *shows: what the ladder page holds. The presenter lays out its page again
 * at each step: the napkin page may take other rows than the ladder's. */
static int hier_body_rows(const struct app *a, int cols, int rows, unsigned *shows)
{
    static struct hier_lines p, w, nap;
    int bw = cols - 2, bh = rows - 3 - (a->embedded ? 0 : 1);
    bool both = cols >= HIER_WIDE;
    if (both) bw = bw / 2 - 1;
    int used = 0;
    *shows = 0;
    if (both || app_step(a) == 0) used = hier_ladder_lay(a, bw, bh, &p, &w, shows);
    if (!both && app_step(a) == 0) return used;
    hier_napkin(&HIER(a)->napkin, a->utf8, &nap);
    hier_zoom_lines(&nap, a->zoom);
    return used > nap.n ? used : nap.n;
}

/* The fewest rows that show all that rows x cols shows (screen_ops.rows_needed): the title
 * and status rows and the taller of the two pages; with app.panel_short, the fewest that show
 * the ladder without its detail lines. */
static int hier_rows_needed(struct app *a, int cols, int rows)
{
    if (a->zoom > 0 || !HIER(a) || !a->embedded) return rows;
    unsigned ref, at;
    int used = hier_body_rows(a, cols, rows, &ref), need = rows;
    if (used > rows - 3) return rows;
    for (int h = rows - 1; h + (a->bar_row_free ? 1 : 0) >= HIER_EMBED_MIN_ROWS; h--) {
        /* short (app_rows_needed_short: a slide's question needs the rows): the tiers'
         * detail lines may go, the ladder and its figures stay */
        if (hier_body_rows(a, cols, h, &at) > h - 3 || (at != ref && !a->panel_short)) break;
        need = h;
    }
    return need;
}

static void hier_page_napkin(const struct app *a, struct rect r)
{
    static struct hier_lines p;
    hier_napkin(&HIER(a)->napkin, a->utf8, &p);
    hier_zoom_lines(&p, a->zoom);
    hier_spread(a, &p, r.h);
    hier_lines_draw(a, &p, r);
}

static void hier_draw(struct app *a, struct rect area)
{
    hier_state(a);
    int bar = a->embedded ? 0 : 1;
    /* embedded (the presenter) the frame gives the rows hier_rows_needed asked for */
    int min_rows = a->embedded && a->bar_row_free ? HIER_EMBED_MIN_ROWS : LAYOUT_MIN_ROWS;
    if (area.h + (a->bar_row_free ? 1 : 0) < min_rows || area.w < LAYOUT_MIN_COLS) {
        a->nbar = 0;
        overlay_too_small(a, area, min_rows, LAYOUT_MIN_COLS);
        return;
    }
    struct rect title = {area.y, area.x, 1, area.w};
    struct rect status = {area.y + 1, area.x + 1, 1, area.w - 2};
    struct rect body = {area.y + 3, area.x + 1, area.h - 3 - bar, area.w - 2};
    bool both = area.w >= HIER_WIDE;
    hier_title(a, title);
    hier_status(a, status, both);
    if (both) {
        int lw = body.w / 2 - 1;
        struct rect left = {body.y, body.x, body.h, lw};
        struct rect right = {body.y, body.x + lw + 2, body.h, body.w - lw - 2};
        hier_page_ladder(a, left);
        hier_page_napkin(a, right);
    } else if (app_step(a) == 0) {
        hier_page_ladder(a, body);
    } else {
        hier_page_napkin(a, body);
    }
    if (bar) frame_bar(a, (struct rect){area.y + area.h - 1, area.x, 1, area.w}, KEYS_ON_HIER);
}

/* The help's legend: what the three labels mean, and the pages. Every line fits in `width`
 * (the overlay sizes itself to its widest line). */
static void hier_help(const struct app *a, struct styled_lines *p, int width)
{
    const struct theme *th = &a->th;
    static const char *const words[][2] = {
        {"lecture  ", "a figure the lecture states, not measured here"},
        {"measured ", "on this machine, with how (m: memcpy, all-reduce)"},
        {"model    ", "the alpha-beta model of the plans: alpha assumed per link,"},
        {"         ", "beta the lecture's figure each way"},
        {"pages    ", "step 0: ladder and what-if; step 1: napkin math"},
        {"record   ", "--nccl-log: its links under their tiers, its busbw (from"},
        {"         ", "the file) beside the slowest: a ring runs at its slowest hop"},
    };
    const attr_t at[] = {A_BOLD, th->role[TH_MEASURED] | A_BOLD, th->role[TH_PLOT], A_NORMAL,
                         A_BOLD, th->role[TH_MEASURED] | A_BOLD, A_NORMAL};
    for (size_t i = 0; i < ARRAY_LEN(words); i++) {
        struct styled_line *l = styled_new(p);
        char fit[128];
        styled_add(l, at[i], "%s", words[i][0]);
        text_fit(fit, sizeof fit, words[i][1], width - 9, a->utf8);
        styled_add(l, A_NORMAL, "%s", fit);
    }
}

const struct screen_ops screen_hierarchy = {
    .name = "hierarchy",
    .kind = SCREEN_HIERARCHY,
    .scene_fields = SF_RANKS | SF_MEAS | SF_STEP | SF_COLL,
    .keys_on = KEYS_ON_HIER,
    .min_ranks = 1,
    .max_ranks = CV_MAX_RANKS,
    .apply = hier_apply,
    .nsteps = hier_nsteps,
    .phase_ends = hier_phase_ends,
    .action = hier_action,
    .draw = hier_draw,
    .rows_needed = hier_rows_needed,
    .result = hier_result,
    .busy = hier_busy,
    .cancelled = hier_cancelled,
    .help = hier_help,
    .free_state = hier_free,
    .figure = hier_screen_figure,
};
