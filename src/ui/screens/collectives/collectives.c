/* collectives.c - the collectives screen's part of a scene change: the plan and trace of
 * the display-scale run (rebuilt when the collective or its input changes), the layout's
 * metrics, and the worker's jobs. A new collective, algorithm, op, root, world size or
 * measurement size cancels what the worker does and posts a display-scale JOB_CHECK
 * (trace vs backend on the same input) and (auto_measure) a JOB_MEASURE; new display
 * inputs (count, pattern) post only a new check. Results are matched by job id in meas.c.
 * Its own key actions (algorithm, op, root, count, input, measure, sweep, size) edit the
 * next scene, which app.c passes through the door. */
#include "ui/screens/collectives/collectives.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/init.h"
#include "core/sweep.h"
#include "core/util.h"
#include "ui/app.h"
#include "ui/screens/collectives/collstate.h"
#include "core/text.h"
#include "ui/kit/bigdigits.h"
#include "ui/kit/draw.h"

#define COLL_SWEEP_MIN ((size_t)4 << 10)
#define COLL_SWEEP_FACTOR 4.0
#define COLL_TIMEOUT_S 60.0

static const char *const coll_step0_what =
    "Before the first step: every rank's buffer holds its own input (the send buffer).";
static const char *const coll_single_what =
    "With one rank nothing has to move: the output is the input.";

const char *coll_model_note(void)
{
    return "one chunk a step is the teaching model; NCCL pipelines slices (v)";
}

/* The state is made on first use and kept until the program ends (app_free): the
 * measured row stays when another screen is shown (the hierarchy screen shows it). */
struct coll_screen *coll_state(struct app *a)
{
    struct coll_screen *cs = a->screen_state[SCREEN_COLLECTIVES];
    if (!cs) {
        cs = xcalloc(1, sizeof *cs);
        cs->cell_w = 1;
        meas_init(&cs->m);
        a->screen_state[SCREEN_COLLECTIVES] = cs;
    }
    return cs;
}

const struct coll_screen *coll_cstate(const struct app *a)
{
    static const struct coll_screen none = {.cell_w = 1, .m = {.check = CHECK_NONE}};
    const struct coll_screen *cs = a->screen_state[SCREEN_COLLECTIVES];
    return cs ? cs : &none;
}

static void coll_free_slices(struct app *a)
{
    struct coll_slices *st = &coll_state(a)->slices;
    if (st->have) {
        slice_tl_free(&st->tl);
        plan_free(&st->plan);
    }
    st->have = false;
}

const struct coll_slices *coll_slices(const struct app *a)
{
    const struct coll_slices *st = &coll_cstate(a)->slices;
    return a->sc.slice_view && st->have ? st : NULL;
}

/* The slice view's plan: the scene's collective refined into its slices and channels. It
 * shows which slice is where, not values, so it is built at a count where every chunk
 * holds at least one element per slice and channel (the display count is often one element
 * per chunk, which cannot be cut). */
static void coll_rebuild_slices(struct app *a)
{
    struct coll_screen *cs = coll_state(a);
    coll_free_slices(a);
    if (!a->sc.slice_view || !cs->have_trace) return;
    struct coll_slices *st = &cs->slices;
    const struct scene *s = &a->sc;
    size_t count = scene_count(s), pieces = (size_t)s->slices * (size_t)s->channels;
    const struct coll_info *ci = coll_info(s->coll);
    bool whole = ci && ci->count_kind == COLL_COUNT_WHOLE;
    size_t per = whole ? (size_t)s->nranks * pieces : pieces;
    if (count < per) count = per;
    st->count = count;
    struct plan base;
    if (scene_plan_build(s, &base, count, coll_root(a), cs->scene_err, sizeof cs->scene_err) !=
        CV_OK)
        return;
    int rc = plan_refine(&base, s->slices, s->channels, &st->plan, cs->scene_err,
                         sizeof cs->scene_err);
    plan_free(&base);
    if (rc != CV_OK) return;
    if (slice_tl_build(&st->tl, &st->plan, cs->scene_err, sizeof cs->scene_err) != CV_OK) {
        plan_free(&st->plan);
        return;
    }
    st->have = true;
}

void coll_slice_summary(const struct app *a, char *buf, size_t n)
{
    (void)a;
    snprintf(
        buf, n,
        "Chunk view (v): the teaching model. Slice view: how NCCL runs it; NCCL's chunk and "
        "slice sizes depend on its protocol (LL, LL128, Simple).");
}

bool coll_count_hidden(const struct app *a)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct coll_slices *sl = coll_slices(a);
    char t[48], m[64];
    snprintf(t, sizeof t, "%zu steps", cs->have_plan ? cs->plan.nsteps : 0);
    bool hide = cs->have_plan && draw_mask_text(t, m, sizeof m) > 0;
    if (sl && !hide) { /* the ticks, where an exercise counts them as steps */
        snprintf(t, sizeof t, "%d steps", sl->tl.nticks);
        hide = draw_mask_text(t, m, sizeof m) > 0;
    }
    return hide;
}

bool coll_links_hidden(const struct app *a)
{
    const struct coll_slices *sl = coll_slices(a);
    if (!sl) return false;
    int n = sl->tl.nlinks, c = sl->plan.nchannels > 0 ? sl->plan.nchannels : 1;
    char t[48], m[64];
    snprintf(t, sizeof t, "%d messages", n);
    bool hide = draw_mask_text(t, m, sizeof m) > 0;
    if (!hide && c > 1 && n % c == 0) { /* one channel's: the links of a step's messages */
        snprintf(t, sizeof t, "%d messages", n / c);
        hide = draw_mask_text(t, m, sizeof m) > 0;
    }
    return hide;
}

/* The slice view's narration for step k: before the first tick, or tick k of T; where the
 * step count is an open exercise's answer (coll_count_hidden), no count at all. */
static const char *coll_slice_what(const struct app *a, size_t k)
{
    struct coll_screen *cs = a->screen_state[SCREEN_COLLECTIVES]; /* coll_slices(a): made */
    struct coll_slices *st = &cs->slices;
    const struct slice_tl *t = &st->tl;
    const struct plan *p = &st->plan;
    char pieces[80];
    if (p->nchannels > 1)
        snprintf(pieces, sizeof pieces, "%d channels, each cutting its part into %d slices",
                 p->nchannels, p->nslices);
    else
        snprintf(pieces, sizeof pieces, "%d slices", p->nslices);
    bool hide = coll_count_hidden(a);
    if ((k == 0 || t->nticks == 0) && hide) {
        snprintf(st->what, sizeof st->what,
                 "Slice view (count %zu): every transfer is cut into %s; a slice moves on as "
                 "soon as the slice it needs has arrived, not after the whole step.",
                 st->count, pieces);
        return st->what;
    }
    if (k == 0 || t->nticks == 0) {
        snprintf(
            st->what, sizeof st->what,
            "Slice view (count %zu): every transfer is cut into %s; a slice moves on as soon "
            "as the slice it needs has arrived, not after the whole step (%d ticks, %zu chunk "
            "steps).",
            st->count, pieces, t->nticks, p->nsteps);
        return st->what;
    }
    int tick = (int)k - 1, busy = t->busy[tick];
    const char *phase =
        tick < t->fill ? "the pipeline is filling: the first slices are still "
                         "on their way, so some links wait"
        : tick >= t->nticks - t->drain
            ? "the pipeline drains: the last slices are finishing, links go idle"
            : "every link that will carry data is busy";
    char total[48]; /* a direct plan's links are its messages: a count asked */
    if (coll_links_hidden(a))
        snprintf(st->what, sizeof st->what, "Slice view%s: the links that carry a slice: %s.",
                 hide ? ""
                      : (snprintf(total, sizeof total, ", tick %d of %d", tick + 1, t->nticks),
                         total),
                 phase);
    else if (hide) /* the last tick's number is the count too: none */
        snprintf(st->what, sizeof st->what, "Slice view: %d of %d links carry a slice; %s.",
                 busy, t->nlinks, phase);
    else
        snprintf(st->what, sizeof st->what,
                 "Slice view, tick %d of %d: %d of %d links carry a slice; %s.", tick + 1,
                 t->nticks, busy, t->nlinks, phase);
    return st->what;
}

static void coll_free_derived(struct app *a)
{
    struct coll_screen *cs = coll_state(a);
    if (cs->have_trace) trace_free(&cs->trace);
    if (cs->have_plan) plan_free(&cs->plan);
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        free(cs->send[r]);
        cs->send[r] = NULL;
    }
    cs->have_trace = cs->have_plan = false;
}

void coll_folded_text(enum redop op, int n, bool utf8, char *buf, size_t len)
{
    switch (op) {
    case OP_SUM:
    case OP_AVG:
        snprintf(buf, len, "%s%d", utf8 ? "\u03a3" : "S", n);
        break;
    case OP_PROD:
        if (utf8)
            snprintf(buf, len, "\u220f%d", n);
        else
            snprintf(buf, len, "prod of %d", n);
        break;
    case OP_MIN:
        snprintf(buf, len, "min of %d", n);
        break;
    case OP_MAX:
        snprintf(buf, len, "max of %d", n);
        break;
    default:
        snprintf(buf, len, "%d ranks", n);
        break;
    }
}

int coll_root(const struct app *a)
{
    return coll_is_rooted(a->sc.coll) ? a->sc.root : 0;
}

const char *coll_what(const struct app *a, size_t step)
{
    const struct coll_screen *cs = coll_cstate(a);
    if (!cs->have_trace) return cs->scene_err;
    if (coll_slices(a)) return coll_slice_what(a, step);
    if (cs->plan.nsteps == 0) return coll_single_what;
    if (step == 0) return coll_step0_what;
    return cs->plan.steps[step - 1].what;
}

static const char *coll_op_symbol(const struct app *a)
{
    switch (a->sc.op) {
    case OP_SUM:
    case OP_AVG:
        return "+";
    case OP_PROD:
        return a->utf8 ? "\u00d7" : "*";
    case OP_MIN:
        return "min";
    case OP_MAX:
        return "max";
    default:
        return "?";
    }
}

void coll_xfer_text(const struct app *a, const struct xfer *x, size_t snap, char *buf, size_t n)
{
    const struct coll_screen *cs = coll_cstate(a);
    const char *arrow = a->utf8 ? "\u2500\u25b6" : "->";
    if (x->kind == XFER_SCALE) {
        snprintf(buf, n, "r%d  %s%d (avg)", x->dst, a->utf8 ? "\u00f7" : "/", cs->plan.nranks);
        return;
    }
    char what[32];
    if (x->chunk >= 0)
        snprintf(what, sizeof what, "chunk %d", x->chunk);
    else if (x->count == 1)
        snprintf(what, sizeof what, "el %zu", x->dst_off);
    else
        snprintf(what, sizeof what, "el %zu-%zu", x->dst_off, x->dst_off + x->count - 1);
    if (x->kind == XFER_REDUCE) {
        /* How many ranks the destination now folds in: the trace's mask after this step. */
        unsigned mask = 0;
        if (cs->have_trace && snap < cs->trace.nsnap)
            mask = trace_mask(&cs->trace, snap, x->dst)[x->dst_off];
        char folded[32];
        coll_folded_text(a->sc.op, __builtin_popcount(mask), a->utf8, folded, sizeof folded);
        snprintf(buf, n, "r%d %s r%d  %s (%s) %s", x->src, arrow, x->dst, what,
                 coll_op_symbol(a), folded);
    } else {
        snprintf(buf, n, "r%d %s r%d  %s", x->src, arrow, x->dst, what);
    }
}

/* The widest value of every snapshot, and the transfer list's widest entry, so the layout
 * does not move while stepping. */
static void coll_metrics(struct app *a)
{
    struct coll_screen *cs = coll_state(a);
    rows_memo_clear(&cs->rows_memo);
    cs->cell_w = 1;
    cs->big_cell_w = 1;
    cs->max_xfers = 0;
    cs->xfer_w = 10;
    cs->longest_what = coll_what(a, 0);
    if (!cs->have_trace) return;
    size_t L = cs->plan.work_len;
    /* a cell keeps its value from one snapshot to the next unless a step wrote it: only
     * the changed ones are formatted (an export of 16-rank scenes formatted ~10^5 values
     * a picture before) */
    for (size_t s = 0; s < cs->trace.nsnap; s++)
        for (int r = 0; r < cs->plan.nranks; r++) {
            const float *v = trace_buf(&cs->trace, s, r);
            const uint32_t *m = trace_mask(&cs->trace, s, r);
            const float *pv = s ? trace_buf(&cs->trace, s - 1, r) : NULL;
            const uint32_t *pm = s ? trace_mask(&cs->trace, s - 1, r) : NULL;
            for (size_t i = 0; i < L; i++) {
                if (!m[i]) continue;
                if (pv && pm[i] && memcmp(&pv[i], &v[i], sizeof v[i]) == 0) continue;
                char t[32];
                text_value(t, sizeof t, v[i]);
                int w = text_width(t), bw = big_width(t);
                if (w > cs->cell_w) cs->cell_w = w;
                if (bw < 0 || cs->big_cell_w < 0)
                    cs->big_cell_w = -1;
                else if (bw > cs->big_cell_w)
                    cs->big_cell_w = bw;
            }
        }
    for (size_t s = 0; s < cs->plan.nsteps; s++) {
        const struct step *st = &cs->plan.steps[s];
        if ((int)st->n > cs->max_xfers) cs->max_xfers = (int)st->n;
        for (size_t k = 0; k < st->n; k++) {
            char t[COLL_XFER_TEXT];
            coll_xfer_text(a, &cs->plan.x[st->first + k], s + 1, t, sizeof t);
            int w = text_width(t);
            if (w > cs->xfer_w) cs->xfer_w = w;
        }
        if (strlen(st->what) > strlen(cs->longest_what)) cs->longest_what = st->what;
    }
}

static void coll_rebuild(struct app *a)
{
    struct coll_screen *cs = coll_state(a);
    coll_free_derived(a);
    cs->scene_err[0] = '\0';
    struct scene *s = &a->sc;
    int root = coll_root(a);
    size_t count = scene_count(s);
    int rc = scene_plan_build(s, &cs->plan, count, root, cs->scene_err, sizeof cs->scene_err);
    if (rc == CV_OK) {
        cs->have_plan = true;
        for (int r = 0; r < s->nranks; r++) {
            size_t ns = coll_send_count(s->coll, s->nranks, count, r, root);
            cs->send[r] = xcalloc(ns ? ns : 1, sizeof(float));
            init_fill(s->init, s->coll, s->nranks, count, root, s->seed, r, cs->send[r]);
        }
        rc = trace_run(&cs->trace, &cs->plan, cs->send, cs->scene_err, sizeof cs->scene_err);
        cs->have_trace = rc == CV_OK;
    }
    if (!cs->have_trace && !cs->scene_err[0])
        snprintf(cs->scene_err, sizeof cs->scene_err, "%s", cv_status_name(rc));
    coll_metrics(a);
}

static struct bench_params coll_params(const struct app *a, int iters, int warmup)
{
    int nr = a->sc.nranks < a->max_ranks ? a->sc.nranks : a->max_ranks;
    int root = coll_root(a);
    return (struct bench_params){
        .coll = a->sc.coll,
        .algo = a->sc.algo,
        .algo_auto = false,
        .op = a->sc.op,
        .nranks = nr,
        .bytes = a->sc.meas_bytes,
        .root = root < nr ? root : 0,
        .iters = iters,
        .warmup = warmup,
        .check = true,
        .timeout_s = COLL_TIMEOUT_S,
    };
}

static void coll_post_check(struct app *a)
{
    struct coll_screen *cs = coll_state(a);
    if (!a->w || !cs->have_plan) return;
    if (a->sc.nranks > a->max_ranks) {
        char why[200];
        snprintf(why, sizeof why, "not checked: W=%d but %s runs %d rank%s", a->sc.nranks,
                 a->backend_name, a->max_ranks, a->max_ranks == 1 ? "" : "s");
        meas_check_skipped(&cs->m, why);
        return;
    }
    if (a->sc.ncounts) {
        /* The worker's check runs the uniform collective; the uneven one is checked by
         * `collviz trace all_to_all --counts ... --backend B`. */
        meas_check_skipped(&cs->m, "not checked here: all-to-all-v is checked by collviz trace "
                                   "--counts --backend");
        return;
    }
    struct job j = {
        .kind = JOB_CHECK,
        .check = {.coll = a->sc.coll,
                  .algo = a->sc.algo,
                  .op = a->sc.op,
                  .nranks = a->sc.nranks,
                  .count = scene_count(&a->sc),
                  .root = coll_root(a),
                  .init = a->sc.init,
                  .seed = a->sc.seed},
    };
    meas_check_posted(&cs->m, worker_post(a->w, &j));
}

static void coll_measure(struct app *a)
{
    struct coll_screen *cs = coll_state(a);
    if (!a->w) return;
    struct job j = {.kind = JOB_MEASURE, .measure = {.params = coll_params(a, 10, 2)}};
    meas_measure_posted(&cs->m, worker_post(a->w, &j), &j.measure.params, now_s());
}

/* The sizes a sweep visits: the worker's own count (core/sweep.h). */
static int coll_sweep_total(size_t lo, size_t hi, double f)
{
    return (int)sweep_count(&(struct sweep){.min = lo, .max = hi, .factor = f});
}

static void coll_sweep(struct app *a)
{
    struct coll_screen *cs = coll_state(a);
    if (!a->w) return;
    size_t lo = a->sc.meas_bytes < COLL_SWEEP_MIN ? a->sc.meas_bytes : COLL_SWEEP_MIN;
    struct job j = {.kind = JOB_SWEEP,
                    .sweep = {.params = coll_params(a, 10, 2),
                              .min = lo,
                              .max = a->sc.meas_bytes,
                              .factor = COLL_SWEEP_FACTOR}};
    meas_sweep_posted(&cs->m, worker_post(a->w, &j), &j.sweep.params,
                      coll_sweep_total(lo, a->sc.meas_bytes, COLL_SWEEP_FACTOR), now_s());
    /* The CPU ranks run sliced by default; the same sweep in whole chunks goes beside it
     * (latency-bound sizes on the left, bandwidth-bound on the right). NCCL slices by its
     * own protocol: one sweep. */
    if (backend_kind_of(a->backend_name) == BACKEND_CPU) {
        j.sweep.params.slices = 1;
        meas_whole_posted(&cs->m, worker_post(a->w, &j));
    }
}

void coll_hl_cells(const struct app *a, size_t step, unsigned char *out)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct scene *s = &a->sc;
    if (!cs->have_trace) return;
    size_t L = cs->plan.work_len;
    int W = cs->plan.nranks;
    memset(out, 0, (size_t)W * (L ? L : 1));
    if (s->hl == HL_CHUNK) {
        for (size_t k = 0; k < cs->plan.nx; k++) {
            const struct xfer *x = &cs->plan.x[k];
            if (x->chunk != s->hl_index) continue;
            for (size_t i = 0; i < x->count; i++) {
                if (x->kind != XFER_SCALE && x->src_off + i < L)
                    out[(size_t)x->src * L + x->src_off + i] = 1;
                if (x->dst_off + i < L) out[(size_t)x->dst * L + x->dst_off + i] = 1;
            }
        }
    } else if (s->hl == HL_TRANSFER && step > 0 && step <= cs->plan.nsteps) {
        const struct step *st = &cs->plan.steps[step - 1];
        if ((size_t)s->hl_index >= st->n) return;
        const struct xfer *x = &cs->plan.x[st->first + (size_t)s->hl_index];
        for (size_t i = 0; i < x->count; i++) {
            if (x->kind != XFER_SCALE && x->src_off + i < L)
                out[(size_t)x->src * L + x->src_off + i] = 1;
            if (x->dst_off + i < L) out[(size_t)x->dst * L + x->dst_off + i] = 1;
        }
    }
}

const char *coll_hl_missing(const struct app *a, size_t step, char *buf, size_t n)
{
    const struct coll_screen *cs = coll_cstate(a);
    const struct scene *s = &a->sc;
    buf[0] = '\0';
    if (!cs->have_trace) return buf;
    if (s->hl == HL_CHUNK) {
        for (size_t k = 0; k < cs->plan.nx; k++)
            if (cs->plan.x[k].chunk == s->hl_index) return buf;
        snprintf(buf, n, "highlight chunk:%d: this plan has no chunk %d", s->hl_index,
                 s->hl_index);
    } else if (s->hl == HL_TRANSFER && step > 0 && step <= cs->plan.nsteps &&
               (size_t)s->hl_index >= cs->plan.steps[step - 1].n) {
        snprintf(buf, n, "highlight transfer:%d: this step has %zu transfers", s->hl_index,
                 cs->plan.steps[step - 1].n);
    }
    return buf;
}

static size_t coll_nsteps(const struct app *a)
{
    const struct coll_screen *cs = coll_cstate(a);
    if (coll_slices(a)) return (size_t)coll_slices(a)->tl.nticks;
    return cs->have_trace ? cs->plan.nsteps : 0;
}

/* A plan's phases; the slice view's ticks are one phase. */
static size_t coll_phase_ends(const struct app *a, long *out, size_t max)
{
    const struct coll_screen *cs = coll_cstate(a);
    if (coll_slices(a) || !cs->have_trace) return 0;
    return plan_phase_ends(&cs->plan, out, max);
}

static void coll_apply(struct app *a, unsigned changed)
{
    struct coll_screen *cs = coll_state(a);
    if (changed & (SF_SCREEN | SF_COLL | SF_RANKS | SF_INPUT)) coll_rebuild(a);
    if (changed & (SF_SCREEN | SF_COLL | SF_RANKS | SF_INPUT | SF_VIEW)) coll_rebuild_slices(a);
    if (!a->w) return;
    if (changed & (SF_SCREEN | SF_COLL | SF_RANKS | SF_MEAS)) {
        app_cancel(a);
        cs->m.measure_err[0] = '\0';
        cs->m.sweep_err[0] = '\0';
        coll_post_check(a);
        if (a->auto_measure) coll_measure(a);
    } else if (changed & SF_INPUT) {
        coll_post_check(a);
    }
}

static bool coll_action(struct app *a, enum ui_action act, struct scene *next)
{
    struct coll_screen *cs = coll_state(a);
    const struct scene *s = &a->sc;
    switch (act) {
    case ACT_SCHEDULE:
        app_msg_keyed(a, "the schedule applies to pp", ACT_PARALLEL,
                      "opens the parallelism screen");
        return true;
    case ACT_OVERLAP:
        app_msg_keyed(a, "overlap applies to ddp", ACT_PARALLEL,
                      "opens the parallelism screen");
        return true;
    case ACT_ALGO: {
        for (int k = 1; k <= ALGO_COUNT; k++) {
            enum algo x = (enum algo)((s->algo + k) % ALGO_COUNT);
            if (algo_supported(s->coll, x)) {
                if (x != s->algo) {
                    next->algo = x;
                    next->step = 0;
                    return true;
                }
                break;
            }
        }
        snprintf(a->msg, sizeof a->msg, "%s has only the %s algorithm here",
                 coll_title(s->coll), algo_name(s->algo));
        return true;
    }
    case ACT_OP:
        if (!coll_reduces(s->coll)) {
            snprintf(a->msg, sizeof a->msg,
                     "%s does not reduce: the op applies to reduce, "
                     "reduce-scatter and all-reduce",
                     coll_title(s->coll));
            return true;
        }
        next->op = (enum redop)((s->op + 1) % OP_COUNT);
        return true; /* the step stays */
    case ACT_ROOT:
        if (!coll_is_rooted(s->coll)) {
            snprintf(a->msg, sizeof a->msg, "%s has no root", coll_title(s->coll));
            return true;
        }
        next->root = (s->root + 1) % s->nranks;
        next->step = 0;
        return true;
    case ACT_COUNT_UP:
    case ACT_COUNT_DOWN: {
        long c = (long)scene_count(s) + (act == ACT_COUNT_UP ? 1 : -1);
        if (c < 1 || c > SCENE_MAX_COUNT) {
            snprintf(a->msg, sizeof a->msg, "count stays within 1..%d at display scale",
                     SCENE_MAX_COUNT);
            return true;
        }
        next->count = (size_t)c;
        next->step = 0;
        return true;
    }
    case ACT_INIT:
        next->init = (enum init_kind)((s->init + 1) % (INIT_RANDOM + 1));
        return true; /* the step stays */
    case ACT_VIEW: {
        /* chunk view -> 2, 4, 8 slices -> 4 slices x 2 channels -> chunk view; a slice
         * view the scene set to other numbers goes back to the chunk view. */
        static const int preset[][2] = {{2, 1}, {4, 1}, {8, 1}, {4, 2}};
        int n = (int)ARRAY_LEN(preset), k = -1;
        for (int i = 0; i < n; i++)
            if (s->slices == preset[i][0] && s->channels == preset[i][1]) k = i;
        next->step = 0;
        if (!s->slice_view) {
            next->slice_view = true;
        } else if (k >= 0 && k + 1 < n) {
            next->slices = preset[k + 1][0];
            next->channels = preset[k + 1][1];
        } else {
            next->slice_view = false;
            next->slices = SCENE_DEFAULT_SLICES;
            next->channels = 1;
        }
        return true;
    }
    case ACT_MEASURE:
        if (!a->w)
            snprintf(a->msg, sizeof a->msg, "no backend to measure on");
        else if (meas_measuring(&cs->m))
            app_busy_msg(a, "already measuring");
        else
            coll_measure(a);
        return true;
    case ACT_SWEEP:
        if (!a->w)
            snprintf(a->msg, sizeof a->msg, "no backend to measure on");
        else if (meas_sweeping(&cs->m))
            app_busy_msg(a, "already sweeping");
        else
            coll_sweep(a);
        return true;
    case ACT_SIZE_DOWN:
    case ACT_SIZE_UP: {
        size_t b = act == ACT_SIZE_UP ? s->meas_bytes * 2 : s->meas_bytes / 2;
        if (b < SCENE_MEAS_MIN || b > SCENE_MEAS_MAX) {
            snprintf(a->msg, sizeof a->msg, "measurement size stays within 4 KiB..16 GiB");
            return true;
        }
        next->meas_bytes = b;
        /* Through the door now, so that a new size is measured even with --no-measure
         * (the key asks for it). */
        char err[200];
        if (app_set_scene(a, next, err, sizeof err) != CV_OK)
            snprintf(a->msg, sizeof a->msg, "%s", err);
        else if (!a->auto_measure)
            coll_measure(a);
        return true;
    }
    default:
        return false;
    }
}

static bool coll_result(struct app *a, const struct result *r)
{
    struct coll_screen *cs = a->screen_state[SCREEN_COLLECTIVES];
    return cs && meas_apply(&cs->m, r); /* no state: this screen posted nothing */
}

static bool coll_busy(const struct app *a)
{
    const struct coll_screen *cs = coll_cstate(a);
    return meas_measuring(&cs->m) || meas_sweeping(&cs->m) || cs->m.check == CHECK_PENDING;
}

static void coll_cancelled(struct app *a)
{
    struct coll_screen *cs = a->screen_state[SCREEN_COLLECTIVES];
    if (cs) meas_cancelled(&cs->m);
}

static const struct plan *coll_plan(const struct app *a)
{
    const struct coll_screen *cs = coll_cstate(a);
    return cs->have_plan ? &cs->plan : NULL;
}

static const struct trace *coll_trace(const struct app *a)
{
    const struct coll_screen *cs = coll_cstate(a);
    return cs->have_trace ? &cs->trace : NULL;
}

static bool coll_step_text(const struct app *a, long step, char *buf, size_t n)
{
    const struct coll_screen *cs = coll_cstate(a);
    if (!cs->have_trace || step < 0 || (size_t)step > app_nsteps(a)) return false;
    const char *phase = !coll_slices(a) && step >= 1 && (size_t)step <= cs->plan.nsteps
                            ? cs->plan.steps[step - 1].phase
                            : "";
    snprintf(buf, n, "%s %s", phase, coll_what(a, (size_t)step));
    return true;
}

static const struct meas *coll_meas(const struct app *a)
{
    const struct coll_screen *cs = a->screen_state[SCREEN_COLLECTIVES];
    return cs ? &cs->m : NULL;
}

static void coll_free_state(struct app *a)
{
    if (!a->screen_state[SCREEN_COLLECTIVES]) return;
    coll_free_derived(a);
    coll_free_slices(a);
    free(a->screen_state[SCREEN_COLLECTIVES]);
    a->screen_state[SCREEN_COLLECTIVES] = NULL;
}

const struct screen_ops screen_collectives = {
    .name = "collectives",
    .kind = SCREEN_COLLECTIVES,
    .scene_fields =
        SF_COLL | SF_RANKS | SF_INPUT | SF_STEP | SF_MEAS | SF_AUTOPLAY | SF_HL | SF_VIEW,
    .keys_on = KEYS_ON_COLL,
    .min_ranks = 1,
    .max_ranks = CV_MAX_RANKS,
    .apply = coll_apply,
    .nsteps = coll_nsteps,
    .phase_ends = coll_phase_ends,
    .rows_needed = coll_rows_needed,
    .action = coll_action,
    .draw = coll_draw,
    .result = coll_result,
    .busy = coll_busy,
    .cancelled = coll_cancelled,
    .help = coll_help,
    .free_state = coll_free_state,
    .plan = coll_plan,
    .trace = coll_trace,
    .step_text = coll_step_text,
    .meas = coll_meas,
};
