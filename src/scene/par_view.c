/* par_view.c - the parallelism screen's display-scale model: a real training step recorded
 * by the engine's probe, cut into frames, collectives expanded into their plan's steps
 * (see par_view.h). No curses: tests/unit/test_par_view.c checks it directly. */
#include "scene/par_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void par_display_config(enum train_scheme s, int W, enum pp_schedule sched, bool overlap,
                        struct train_config *c)
{
    train_config_default(c);
    c->scheme = s;
    c->nranks = W;
    c->steps = 1;
    c->timeout_s = 10;
    c->schedule = sched;
    c->overlap = overlap && s == TRAIN_DDP;
    c->prefetch = overlap && s == TRAIN_ZERO3; /* the same key: O */
    switch (s) {
    case TRAIN_TP: /* D=4 as the other schemes (6 for W=3): 4/W columns per rank */
        c->layers = 2;
        c->dim = W == 3 ? 6 : 4;
        c->batch = 4;
        break;
    case TRAIN_PP: /* the lecture's 4 layers split over the stages, 4 micro-batches */
        c->layers = 4;
        c->dim = 4;
        c->batch = 8;
        c->microbatches = 4;
        break;
    case TRAIN_ZERO1:
    case TRAIN_ZERO2:
    case TRAIN_ZERO3: /* as ddp, with D a multiple of W: a shard is D/W whole rows */
        c->layers = 2;
        c->dim = W == 3 ? 6 : 4;
        c->batch = 2 * W;
        break;
    default: /* ddp: two rows per rank */
        c->layers = 2;
        c->dim = 4;
        c->batch = 2 * W;
        break;
    }
}

/* ---- numbers ---- */

int par_exp_for(double maxabs)
{
    if (!(maxabs > 0) || !isfinite(maxabs)) return 0;
    int e = (int)floor(log10(maxabs)) - 1;
    if (llround(maxabs / pow(10.0, e)) > 99) e++;
    return e;
}

void par_cell_text(float v, int exp, char *buf, size_t n)
{
    if (!isfinite(v)) {
        snprintf(buf, n, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
        return;
    }
    long k = lround((double)v / pow(10.0, exp));
    snprintf(buf, n, "%ld", k);
}

void par_scale_text(int exp, bool utf8, char *buf, size_t n)
{
    if (exp == 0) {
        buf[0] = '\0';
        return;
    }
    if (!utf8) {
        snprintf(buf, n, "x1e%d", exp);
        return;
    }
    static const char *const sup[10] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                        "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
    char digits[16];
    snprintf(digits, sizeof digits, "%d", exp < 0 ? -exp : exp);
    size_t o = (size_t)snprintf(buf, n, "\u00d710%s", exp < 0 ? "\u207b" : "");
    for (const char *d = digits; *d && o + 4 < n; d++)
        o += (size_t)snprintf(buf + o, n - o, "%s", sup[*d - '0']);
}

void par_dev_text(double dev, char *buf, size_t n)
{
    if (dev == 0)
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "%.0e", dev);
}

void par_cells_head(const struct par_cells *c, bool utf8, char *name, size_t nn, char *shape,
                    size_t ns)
{
    const char *badge = "";
    if (c->dev >= 0)
        badge = c->dev <= PAR_DEV_TOL ? (utf8 ? " \u2713" : " ok") : (utf8 ? " \u2717" : " X");
    snprintf(name, nn, "%s%s", c->name, badge);
    char sc[32];
    par_scale_text(c->exp, utf8, sc, sizeof sc);
    snprintf(shape, ns, "%d%s%d%s%s", c->rows, utf8 ? "\u00d7" : "x", c->cols, sc[0] ? " " : "",
             sc);
}

static int par_exp_of(const float *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs((double)v[i]) > m) m = fabs((double)v[i]);
    return par_exp_for(m);
}

/* ---- building ---- */

static int par_nranks(const struct par_view *v)
{
    return v->cfg.nranks;
}

static bool par_tick_is_coll(const struct par_tick *t, int W)
{
    for (int r = 0; r < W; r++)
        if (!t->rec[r] || t->rec[r]->kind != PROBE_COLL || t->rec[r]->coll != t->rec[0]->coll ||
            t->rec[r]->count != t->rec[0]->count)
            return false;
    return true;
}

/* Run the collective's plan on the recorded inputs and compare its output with the
 * engine's. */
static void par_tick_trace(struct par_view *v, struct par_tick *t)
{
    int W = par_nranks(v);
    const struct probe_rec *r0 = t->rec[0];
    char err[200];
    t->engine_mismatch = -1;
    if (plan_build(&t->plan, r0->coll, ALGO_RING, r0->op, W, r0->count, 0, err, sizeof err) !=
        CV_OK)
        return;
    float in[PAR_MAX_RANKS][PROBE_MAT_MAX];
    float *send[PAR_MAX_RANKS];
    for (int r = 0; r < W; r++) {
        memcpy(in[r], t->rec[r]->mats[0].v, sizeof in[r]);
        send[r] = in[r];
    }
    if (trace_run(&t->trace, &t->plan, send, err, sizeof err) != CV_OK) {
        plan_free(&t->plan);
        return;
    }
    t->have_trace = true;
    double m = 0;
    size_t L = t->plan.work_len;
    for (size_t s = 0; s < t->trace.nsnap; s++)
        for (int r = 0; r < W; r++) {
            const float *b = trace_buf(&t->trace, s, r);
            const uint32_t *k = trace_mask(&t->trace, s, r);
            for (size_t i = 0; i < L; i++)
                if (k[i] && fabs((double)b[i]) > m) m = fabs((double)b[i]);
        }
    t->exp = par_exp_for(m);
    t->engine_mismatch = 0;
    for (int r = 0; r < W; r++) {
        size_t n = coll_recv_count(r0->coll, W, r0->count, r, 0);
        float out[PROBE_MAT_MAX];
        if (n > PROBE_MAT_MAX || t->rec[r]->nmats < 2 || (size_t)t->rec[r]->mats[1].cols != n) {
            t->engine_mismatch += (long)n;
            continue;
        }
        trace_output(&t->trace, r, out);
        for (size_t i = 0; i < n; i++)
            if (out[i] != t->rec[r]->mats[1].v[i]) t->engine_mismatch++;
    }
}

void par_view_build(struct par_view *v, const struct train_config *display)
{
    memset(v, 0, sizeof *v);
    v->cfg = *display;
    v->max_dev = -1;
    int W = display->nranks;
    if (W < PAR_MIN_RANKS || W > PAR_MAX_RANKS) {
        snprintf(v->err, sizeof v->err, "the parallelism screen shows %d..%d ranks, not %d",
                 PAR_MIN_RANKS, PAR_MAX_RANKS, W);
        return;
    }
    v->probe = probe_new(0);
    struct train_result res;
    int rc = train_run_probe(&v->cfg, v->probe, &res, NULL, v->err, sizeof v->err);
    if (rc != CV_OK) return;
    v->loss = res.steps_done > 0 ? res.steps[0].loss : 0;
    train_result_free(&res);
    if (probe_overflowed(v->probe)) {
        snprintf(v->err, sizeof v->err, "probe: more than %d records", PROBE_MAX_RECS);
        return;
    }
    probe_reference(&v->cfg, 0, &v->ref);

    /* Records come sorted by (tick, rank): one par_tick per tick that has any. */
    size_t n = probe_count(v->probe);
    v->ticks = xcalloc(n ? n : 1, sizeof *v->ticks);
    for (size_t i = 0; i < n; i++) {
        const struct probe_rec *r = probe_get(v->probe, i);
        if (v->nticks == 0 || v->ticks[v->nticks - 1].tick != r->tick)
            v->ticks[v->nticks++].tick = r->tick;
        v->ticks[v->nticks - 1].rec[r->rank] = r;
    }
    for (int t = 0; t < v->nticks; t++) {
        struct par_tick *tk = &v->ticks[t];
        tk->coll = par_tick_is_coll(tk, W);
        if (tk->coll) {
            par_tick_trace(v, tk);
            if (tk->engine_mismatch != 0) v->mismatches += tk->engine_mismatch;
        }
        int subs = tk->coll && tk->have_trace ? (int)tk->plan.nsteps : 0;
        for (int s = 0; s <= subs && v->nframes < PAR_MAX_FRAMES; s++)
            v->frames[v->nframes++] = (struct par_frame){t, s};
    }
    for (size_t i = 0; i < n; i++) {
        const struct probe_rec *r = probe_get(v->probe, i);
        for (int k = 0; k < r->nmats; k++) {
            double d = probe_mat_deviation(&v->ref, &r->mats[k]);
            if (d < 0) continue;
            v->nchecked++;
            if (d > v->max_dev) v->max_dev = d;
        }
    }
    if (v->cfg.scheme == TRAIN_PP)
        v->have_sched =
            psched_build(&v->sched, v->cfg.schedule, W, v->cfg.microbatches) == CV_OK;
    v->ok = v->nframes > 0;
    if (!v->ok && !v->err[0]) snprintf(v->err, sizeof v->err, "the probe recorded nothing");
}

void par_view_free(struct par_view *v)
{
    for (int t = 0; t < v->nticks; t++)
        if (v->ticks[t].have_trace) {
            trace_free(&v->ticks[t].trace);
            plan_free(&v->ticks[t].plan);
        }
    free(v->ticks);
    probe_free(v->probe);
    if (v->ref.x) probe_reference_free(&v->ref);
    memset(v, 0, sizeof *v);
}

/* ---- frames ---- */

static bool par_frame_valid(const struct par_view *v, int f)
{
    return v->ok && f >= 0 && f < v->nframes;
}

const struct par_tick *par_frame_tick(const struct par_view *v, int f)
{
    return par_frame_valid(v, f) ? &v->ticks[v->frames[f].tick] : NULL;
}

const struct step *par_frame_step(const struct par_view *v, int f)
{
    const struct par_tick *t = par_frame_tick(v, f);
    int sub = par_frame_valid(v, f) ? v->frames[f].sub : 0;
    if (!t || !t->have_trace || sub < 1 || (size_t)sub > t->plan.nsteps) return NULL;
    return &t->plan.steps[sub - 1];
}

const struct probe_rec *par_frame_rec(const struct par_view *v, int f, int r, bool *idle)
{
    if (idle) *idle = false;
    if (!par_frame_valid(v, f) || r < 0 || r >= par_nranks(v)) return NULL;
    int t = v->frames[f].tick;
    if (v->ticks[t].rec[r]) return v->ticks[t].rec[r];
    if (idle) *idle = true;
    for (int k = t - 1; k >= 0; k--)
        if (v->ticks[k].rec[r]) return v->ticks[k].rec[r];
    return NULL;
}

static void par_cells_from_mat(const struct par_view *v, const struct probe_mat *m,
                               struct par_cells *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", m->name);
    c->rows = m->rows;
    c->cols = m->cols;
    memcpy(c->v, m->v, sizeof c->v);
    c->exp = par_exp_of(m->v, (size_t)m->rows * m->cols);
    c->dev = probe_mat_deviation(&v->ref, m);
    c->key = m->key;
}

/* A collective's working buffer at snapshot `sub`, in its view shape. */
static void par_cells_from_trace(const struct par_view *v, const struct par_tick *t, int sub,
                                 int r, struct par_cells *c)
{
    const struct probe_rec *rec = t->rec[r];
    memset(c, 0, sizeof *c);
    const struct probe_mat *nat = rec->nmats > 2 ? &rec->mats[2] : NULL;
    snprintf(c->name, sizeof c->name, "%.31s", nat ? nat->name : coll_title(rec->coll));
    int R = rec->view_rows, C = rec->view_cols, pc = rec->piece_cols > 0 ? rec->piece_cols : C;
    c->rows = R;
    c->cols = C;
    c->masked = true;
    c->key = true;
    c->exp = t->exp;
    c->dev = -1;
    size_t L = t->plan.work_len;
    if ((size_t)R * C != L || (size_t)R * C > PROBE_MAT_MAX) return;
    const float *b = trace_buf(&t->trace, (size_t)sub, r);
    const uint32_t *k = trace_mask(&t->trace, (size_t)sub, r);
    unsigned char hl[PROBE_MAT_MAX] = {0};
    if (sub >= 1) {
        const struct step *st = &t->plan.steps[sub - 1];
        for (size_t x = 0; x < st->n; x++) {
            const struct xfer *xf = &t->plan.x[st->first + x];
            for (size_t i = 0; i < xf->count; i++) {
                if (xf->kind != XFER_SCALE && xf->src == r && xf->src_off + i < L)
                    hl[xf->src_off + i] |= PAR_HL_SRC;
                if (xf->dst == r && xf->dst_off + i < L) hl[xf->dst_off + i] |= PAR_HL_DST;
            }
        }
    }
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            size_t idx = (size_t)(j / pc) * R * pc + (size_t)i * pc + (size_t)(j % pc);
            c->v[i * C + j] = b[idx];
            c->mask[i * C + j] = k[idx];
            c->hl[i * C + j] = hl[idx];
        }
    if (pc < C) {
        c->mark_c0 = r * pc;
        c->mark_c1 = (r + 1) * pc;
        c->mark = rec->coll == COLL_REDUCE_SCATTER ? "out" : "in";
        /* The box shows the whole working buffer, its own slice marked: named by the
         * tensor ("dx1 partials"), not by the slice it keeps ("dx1[:,0:1]" over a 4x4). */
        if (nat && strchr(nat->name, '['))
            snprintf(c->name, sizeof c->name, "%.*s%s",
                     (int)(strchr(nat->name, '[') - nat->name), nat->name,
                     rec->coll == COLL_REDUCE_SCATTER ? " partials" : " pieces");
    }
    /* After the last step the buffer is the result: compare it with one device. */
    if ((size_t)sub == t->plan.nsteps && nat) c->dev = probe_mat_deviation(&v->ref, nat);
}

int par_frame_cells(const struct par_view *v, int f, int r, bool key_only,
                    struct par_cells *out, int max, bool *idle)
{
    const struct probe_rec *rec = par_frame_rec(v, f, r, idle);
    if (!rec || max < 1) return 0;
    const struct par_tick *t = par_frame_tick(v, f);
    if (t->coll && t->have_trace && t->rec[r] == rec) {
        par_cells_from_trace(v, t, v->frames[f].sub, r, &out[0]);
        return 1;
    }
    if (rec->kind == PROBE_COLL) {
        /* an idle rank whose latest record is a collective: its result */
        if (rec->nmats > 2) {
            par_cells_from_mat(v, &rec->mats[2], &out[0]);
            return 1;
        }
        return 0;
    }
    int n = 0;
    for (int k = 0; k < rec->nmats && n < max; k++)
        if (!key_only || rec->mats[k].key) par_cells_from_mat(v, &rec->mats[k], &out[n++]);
    return n;
}

double par_frame_dev(const struct par_view *v, int f)
{
    double worst = -1;
    for (int r = 0; r < par_nranks(v); r++) {
        struct par_cells c[PROBE_MAX_MATS];
        bool idle;
        int n = par_frame_cells(v, f, r, false, c, PROBE_MAX_MATS, &idle);
        if (idle) continue;
        for (int k = 0; k < n; k++)
            if (c[k].dev > worst) worst = c[k].dev;
    }
    return worst;
}

int par_frame_sched_col(const struct par_view *v, int f)
{
    const struct par_tick *t = par_frame_tick(v, f);
    if (!t || !v->have_sched) return -1;
    int col = t->tick - 1; /* tick 0 is the state before the step */
    return col >= 0 && col < v->sched.ticks ? col : -1;
}

/* ---- who takes part, and what moves ---- */

bool par_frame_rank_hot(const struct par_view *v, int f, int r, bool idle)
{
    if (idle) return false;
    const struct step *st = par_frame_step(v, f);
    const struct par_tick *t = par_frame_tick(v, f);
    if (!t) return false;
    if (!t->coll) return t->rec[r] && t->rec[r]->kind != PROBE_START;
    if (!st) return false;
    for (size_t k = 0; k < st->n; k++) {
        const struct xfer *x = &t->plan.x[st->first + k];
        if (x->src == r || x->dst == r) return true;
    }
    return false;
}

int par_frame_sends(const struct par_view *v, int f, struct par_send *out, int max)
{
    const struct par_tick *t = par_frame_tick(v, f);
    int n = 0;
    if (!t || t->coll) return 0;
    for (int s = 0; s < v->cfg.nranks && n < max; s++) {
        const struct probe_rec *rec = t->rec[s];
        if (!rec || rec->send_to < 0) continue;
        struct par_send *o = &out[n++];
        o->from = s;
        o->to = rec->send_to;
        o->mb = rec->mb;
        o->what[0] = '\0';
        for (int k = 0; k < rec->nmats; k++)
            if (rec->mats[k].key && rec->fwd)
                snprintf(o->what, sizeof o->what, "%s", rec->mats[k].name);
        if (!rec->fwd) snprintf(o->what, sizeof o->what, "dx%d", rec->layer);
    }
    return n;
}

const char *par_frame_quiet(const struct par_view *v, int f)
{
    const struct par_tick *t = par_frame_tick(v, f);
    const struct probe_rec *r0 = t ? t->rec[0] : NULL;
    if (v->cfg.scheme == TRAIN_PP) return "no messages this tick";
    if (r0 && r0->kind == PROBE_START) return "no communication yet";
    if (r0 && r0->kind == PROBE_OPTIM)
        return "no communication: every rank updates what it holds";
    return "no communication: every rank computes on what it holds";
}

/* ---- labels ---- */

int par_rank_label_forms(const struct par_view *v, int f, int r, bool idle, const char *sep,
                         char forms[][96])
{
    const struct train_config *c = &v->cfg;
    int nf = 0;
    if (c->scheme == TRAIN_PP) {
        size_t s0, s1;
        chunk_range((size_t)c->layers, c->nranks, r, &s0, &s1);
        char layers[24];
        if (s1 - s0 == 1)
            snprintf(layers, sizeof layers, "L%zu", s0);
        else
            snprintf(layers, sizeof layers, "L%zu-%zu", s0, s1 - 1);
        const struct probe_rec *rec = par_frame_rec(v, f, r, NULL);
        char act[40] = "";
        int col = par_frame_sched_col(v, f);
        if (idle)
            snprintf(act, sizeof act, "%s", col >= 0 ? "idle (bubble)" : "done");
        else if (rec && rec->kind == PROBE_COMPUTE)
            snprintf(act, sizeof act, "%s mb%d", rec->fwd ? "F" : "B", rec->mb);
        else if (rec && rec->kind == PROBE_OPTIM)
            snprintf(act, sizeof act, "AdamW");
        else
            snprintf(act, sizeof act, "holds");
        snprintf(forms[nf++], 96, "stage %d%s%s%s%s", r, sep, layers, sep, act);
        snprintf(forms[nf++], 96, "s%d%s%s", r, sep, act);
        if (idle) snprintf(forms[nf++], 96, "s%d%s%s", r, sep, col >= 0 ? "idle" : "done");
        snprintf(forms[nf++], 96, "stage %d", r);
        snprintf(forms[nf++], 96, "s%d", r);
        return nf;
    }
    if (c->scheme == TRAIN_TP) {
        int d = c->dim / c->nranks;
        if (d == 1) {
            snprintf(forms[nf++], 96, "rank %d%scolumn %d", r, sep, r);
            snprintf(forms[nf++], 96, "r%d%scol %d", r, sep, r);
        } else {
            snprintf(forms[nf++], 96, "rank %d%scolumns %d-%d", r, sep, r * d, r * d + d - 1);
            snprintf(forms[nf++], 96, "r%d%scols %d-%d", r, sep, r * d, r * d + d - 1);
        }
    } else {
        int b = c->batch / c->nranks;
        if (train_zero_stage(c->scheme)) {
            snprintf(forms[nf++], 96, "rank %d%srows %d-%d%sshard %d of %d", r, sep, r * b,
                     r * b + b - 1, sep, r, c->nranks);
            snprintf(forms[nf++], 96, "r%d%srows %d-%d%sshard %d", r, sep, r * b, r * b + b - 1,
                     sep, r);
        }
        snprintf(forms[nf++], 96, "rank %d%srows %d-%d", r, sep, r * b, r * b + b - 1);
        snprintf(forms[nf++], 96, "r%d%srows %d-%d", r, sep, r * b, r * b + b - 1);
    }
    snprintf(forms[nf++], 96, "rank %d", r);
    snprintf(forms[nf++], 96, "r%d", r);
    return nf;
}

/* What one pipeline stage does in this tick, for the sentence. */
static void par_pp_stage_text(const struct probe_rec *r, char *buf, size_t n)
{
    if (r->kind == PROBE_OPTIM) {
        snprintf(buf, n, "AdamW");
        return;
    }
    if (r->kind == PROBE_START) {
        snprintf(buf, n, "waits");
        return;
    }
    size_t o = (size_t)snprintf(buf, n, "%s mb%d", r->fwd ? "forward" : "backward", r->mb);
    if (r->send_to >= 0 && o < n)
        snprintf(buf + o, n - o, ", sends %s to s%d", r->fwd ? "activations" : "gradients",
                 r->send_to);
}

static void par_pp_text(const struct par_view *v, int f, char *buf, size_t n)
{
    const struct par_tick *t = par_frame_tick(v, f);
    int W = par_nranks(v);
    if (t->rec[0] && t->rec[0]->kind == PROBE_START) {
        snprintf(buf, n, "%s.", t->rec[0]->label);
        return;
    }
    size_t o = 0;
    int col = par_frame_sched_col(v, f);
    if (col >= 0)
        o += (size_t)snprintf(buf, n, "Tick %d of %d: ", col + 1, v->sched.ticks);
    else
        o += (size_t)snprintf(buf, n, "After the pipeline: ");
    int idle = 0;
    for (int r = 0; r < W && o < n; r++) {
        if (!t->rec[r]) {
            idle++;
            continue;
        }
        char what[96];
        par_pp_stage_text(t->rec[r], what, sizeof what);
        o += (size_t)snprintf(buf + o, n - o, "s%d %s; ", r, what);
    }
    if (o < n && idle) {
        bool in_span = col >= 0;
        o += (size_t)snprintf(buf + o, n - o, "%d stage%s idle%s. ", idle, idle == 1 ? "" : "s",
                              in_span ? ": the bubble" : " (done)");
    }
    /* The first busy stage's own words, for the detail. */
    for (int r = 0; r < W && o < n; r++)
        if (t->rec[r]) {
            snprintf(buf + o, n - o, "s%d: %s.", r, t->rec[r]->label);
            break;
        }
}

void par_frame_text(const struct par_view *v, int f, char *buf, size_t n)
{
    if (!par_frame_valid(v, f)) {
        snprintf(buf, n, "%s", v->err[0] ? v->err : "nothing recorded");
        return;
    }
    if (v->cfg.scheme == TRAIN_PP) {
        par_pp_text(v, f, buf, n);
        return;
    }
    const struct par_tick *t = par_frame_tick(v, f);
    const struct probe_rec *r0 = t->rec[0];
    if (!r0) {
        snprintf(buf, n, "rank 0 has no record at this tick");
        return;
    }
    const struct step *st = par_frame_step(v, f);
    if (t->coll && st) {
        snprintf(buf, n, "%s: %s", st->phase, st->what);
        return;
    }
    if (t->coll && t->have_trace)
        snprintf(buf, n, "%s. Inputs in place; the ring plan takes %zu steps.", r0->label,
                 t->plan.nsteps);
    else
        snprintf(buf, n, "%s.", r0->label);
}

void par_frame_title(const struct par_view *v, int f, char *buf, size_t n)
{
    const struct par_tick *t = par_frame_tick(v, f);
    if (!t) {
        snprintf(buf, n, "no frames");
        return;
    }
    if (v->cfg.scheme == TRAIN_PP) {
        int col = par_frame_sched_col(v, f);
        if (t->tick == 0)
            snprintf(buf, n, "before the step");
        else if (col >= 0)
            snprintf(buf, n, "pipeline tick %d/%d", col + 1, v->sched.ticks);
        else
            snprintf(buf, n, "after the pipeline: AdamW");
        return;
    }
    const struct probe_rec *r = t->rec[0];
    if (!r) {
        snprintf(buf, n, "tick %d", t->tick);
        return;
    }
    switch (r->kind) {
    case PROBE_START:
        snprintf(buf, n, "before the step");
        break;
    case PROBE_OPTIM:
        snprintf(buf, n, "AdamW step");
        break;
    case PROBE_COLL: {
        const char *nat = r->nmats > 2 ? r->mats[2].name : "";
        if (t->have_trace)
            snprintf(buf, n, "%s %s %d/%zu%s", coll_title(r->coll), nat, v->frames[f].sub,
                     t->plan.nsteps, r->async ? " (overlapped)" : "");
        else
            snprintf(buf, n, "%s %s", coll_title(r->coll), nat);
        break;
    }
    case PROBE_COMPUTE:
        if (r->layer < 0)
            snprintf(buf, n, "loss");
        else
            snprintf(buf, n, "layer %d %s", r->layer, r->fwd ? "forward" : "backward");
        break;
    }
}
