/* parmoe.c - the parallelism screen's mixture-of-experts view (parmoe.h). Unlike the
 * other schemes it does not step through matrices: what a student should see of an MoE
 * layer is where its tokens went. Per layer (the step keys move between layers): each
 * rank's tokens per expert (kept, and routed where some were dropped) with each expert's
 * load against its capacity, the all-to-all-v's uneven blocks, the drops, and the
 * dispatch/combine bytes, times and busbw, all from one real training step at display
 * scale, checked against one device. */
#include "ui/screens/parallel/parmoe.h"

#include <stdio.h>
#include <string.h>

#include "core/tiers.h"
#include "core/util.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "core/text.h"
#include "ui/screens/parallel/par.h"

/* A bar of v out of most, w (<= 8) cells long at most, in eighths, padded with spaces
 * to w cells, into buf (n >= 64). */
static const char *moe_bar(const struct app *a, size_t v, size_t most, int w, char *buf,
                           size_t n)
{
    int eighths = most ? (int)((v * (size_t)w * 8 + most / 2) / most) : 0;
    buf[0] = '\0';
    int cells = 0;
    for (; eighths >= 8; eighths -= 8, cells++)
        snprintf(buf + strlen(buf), n - strlen(buf), "%s", a->g->blocks[8]);
    if (eighths > 0) {
        snprintf(buf + strlen(buf), n - strlen(buf), "%s", a->g->blocks[eighths]);
        cells++;
    }
    snprintf(buf + strlen(buf), n - strlen(buf), "%*s", w - cells, "");
    return buf;
}

static void moe_tokens(const struct app *a, const struct par_moe *m, int layer,
                       struct styled_lines *p)
{
    const struct theme *th = &a->th;
    int El = m->E / m->W;
    struct styled_line *l = styled_new(p);
    styled_add(l, A_BOLD, "tokens per expert, layer %d", layer + 1);
    styled_add(l, th->role[TH_DIM], " (kept; kept/routed where some were dropped)");
    l = styled_new(p);
    styled_add(l, th->role[TH_LABEL], "%-9s", "expert");
    for (int e = 0; e < m->E; e++) {
        char nm[32];
        snprintf(nm, sizeof nm, "e%d@r%d", e, e / El);
        styled_add(l, th->rank[e / El], "%s%-6s", e && e % El == 0 ? "| " : "", nm);
    }
    size_t load[PAR_MOE_MAX_E] = {0}, most = 1;
    for (int g = 0; g < m->W; g++) {
        l = styled_new(p);
        styled_add(l, th->rank[g], "rank %-4d", g);
        for (int e = 0; e < m->E; e++) {
            char v[16];
            size_t k = m->kept[layer][g][e], r = m->routed[layer][g][e];
            if (k == r)
                snprintf(v, sizeof v, "%zu", k);
            else
                snprintf(v, sizeof v, "%zu/%zu", k, r);
            styled_add(l, k == r ? A_NORMAL : th->role[TH_WARN], "%s%-6s",
                       e && e % El == 0 ? "| " : "", v);
            load[e] += k;
        }
    }
    for (int e = 0; e < m->E; e++)
        if (load[e] > most) most = load[e];
    l = styled_new(p);
    styled_add(l, th->role[TH_LABEL], "%-9s", "load");
    for (int e = 0; e < m->E; e++) {
        char bar[64];
        styled_add(l, th->rank[e / El], "%s%-2zu%s ", e && e % El == 0 ? "| " : "", load[e],
                   moe_bar(a, load[e], most, 3, bar, sizeof bar));
    }
    l = styled_new(p);
    if (m->capacity)
        styled_add(l, th->role[TH_DIM],
                   "capacity ceil(%g*%d*%d/%d) = %d tokens per expert from each rank's %d rows",
                   m->capacity_factor, m->B / m->W, m->K, m->E, m->capacity, m->B / m->W);
}

static void moe_blocks(const struct app *a, const struct par_moe *m, int layer, bool compact,
                       struct styled_lines *p)
{
    const struct theme *th = &a->th;
    struct styled_line *l = styled_new(p);
    styled_add(l, A_BOLD, "all-to-all-v blocks, layer %d", layer + 1);
    styled_add(l, th->role[TH_DIM],
               compact ? " (tokens; the diagonal stays home)"
                       : " (tokens from rank to rank; the diagonal stays home)");
    size_t most = 1, b[PAR_MOE_MAX_W][PAR_MOE_MAX_W] = {{0}};
    for (int g = 0; g < m->W; g++)
        for (int q = 0; q < m->W; q++) {
            b[g][q] = par_moe_block(m, layer, g, q);
            if (b[g][q] > most) most = b[g][q];
        }
    for (int g = 0; g < m->W; g++) {
        l = styled_new(p);
        styled_add(l, th->rank[g], "from r%-3d", g);
        for (int q = 0; q < m->W; q++) {
            char bar[64];
            styled_add(l, q == g ? th->role[TH_DIM] : th->rank[g], " to r%d %2zu %s", q,
                       b[g][q], moe_bar(a, b[g][q], most, 4, bar, sizeof bar));
        }
    }
}

/* The worker's lecture-scale run (par.h), when there is one for this W. */
static void moe_lecture(const struct app *a, struct styled_lines *p)
{
    const struct theme *th = &a->th;
    const struct train_summary *s = par_summary(a);
    struct styled_line *l = styled_new(p);
    styled_add(l, A_BOLD, "lecture scale ");
    styled_add(l, th->role[TH_DIM], "L=4 D=1024 B=128 E=%d top-2 C=1.0, %s: ", 2 * a->sc.nranks,
               par_backend_note(a));
    if (!s) {
        const char *err = PAR(a) ? PAR(a)->train_err : "";
        if (par_training(a))
            styled_status_add(l, th->role[TH_WARN], "training on the worker...");
        else if (err[0])
            styled_status_add(l, th->role[TH_BAD], "%.150s", err);
        else {
            char k[16]; /* only a key that trains it here (the presenter's m may not) */
            if (!a->no_key_hints && app_key_hint(a, ACT_MEASURE, k, sizeof k))
                styled_add(l, th->role[TH_DIM], "%s trains it (or collviz train moe --check)",
                           k);
            else
                styled_status_add(l, th->role[TH_DIM],
                                  "not trained yet (collviz train moe --check)");
        }
        return;
    }
    char d[24], c[24];
    tier_format_bw(s->moe.dispatch_busbw, d, sizeof d);
    tier_format_bw(s->moe.combine_busbw, c, sizeof c);
    styled_add(l, th->role[TH_MEASURED], "dispatch busbw %s, combine %s, %zu dropped", d, c,
               s->moe.dropped);
    l = styled_new(p);
    bool ok = s->dev.within;
    styled_add(l, th->role[ok ? TH_OK : TH_BAD],
               "  %s loss and weights = one device, routing %s", ok ? a->g->ok : a->g->bad,
               s->dev.moe_routing_diff ? "differs" : "the same");
    styled_add(l, th->role[TH_DIM], " (measured as above, last of %d steps)", s->steps_done);
}

/* One exchange's busbw and the two figures it is made of: the busiest rank's bytes over
 * the slowest rank's time (train_moe_busbw), each with its rank. */
static void moe_exchange_short(const struct app *a, struct styled_line *l, const size_t *by,
                               const double *s, double busbw, int W)
{
    const struct theme *th = &a->th;
    int most = 0, slowest = 0;
    for (int g = 1; g < W; g++) {
        if (by[g] > by[most]) most = g;
        if (s[g] > s[slowest]) slowest = g;
    }
    char bw[24], b[24], t[24];
    tier_format_bw(busbw, bw, sizeof bw);
    format_size(by[most], b, sizeof b);
    text_time_us(t, sizeof t, s[slowest] * 1e6);
    styled_add(l, th->role[TH_MEASURED], "busbw %s = %s ", bw, b);
    styled_add(l, th->rank[most], "(r%d, most)", most);
    styled_add(l, th->role[TH_MEASURED], " / %s ", t);
    styled_add(l, th->rank[slowest], "(r%d, slowest)", slowest);
}

/* compact: for a short or narrow screen (each exchange's figures on one line, shorter
 * notes); the same figures. */
static void moe_traffic(const struct app *a, const struct par_moe *m, bool compact,
                        struct styled_lines *p)
{
    const struct theme *th = &a->th;
    struct styled_line *l = styled_new(p);
    size_t all = (size_t)PAR_MOE_LAYERS * m->B * m->K;
    styled_add(l, A_BOLD, "dropped ");
    styled_add(l, m->dropped ? th->role[TH_WARN] : A_NORMAL,
               compact ? "%zu of %zu assignments, both layers"
                       : "%zu of %zu token-expert assignments this step, both layers",
               m->dropped, all);
    styled_add(l, th->role[TH_DIM],
               compact ? " (passed through)" : " (passed through unchanged)");
    for (int k = 0; k < 2; k++) {
        const size_t *by = k ? m->combine_bytes : m->dispatch_bytes;
        const double *s = k ? m->combine_s : m->dispatch_s;
        l = styled_new(p);
        styled_add(l, A_BOLD, "%-9s", k ? "combine" : "dispatch");
        if (!m->timed) { /* --no-measure: the bytes (the routing's), no times */
            for (int g = 0; g < m->W; g++) {
                char b[24];
                format_size(by[g], b, sizeof b);
                styled_add(l, th->rank[g], "r%d ", g);
                styled_add(l, A_NORMAL, "%s  ", b);
            }
            continue;
        }
        if (compact) {
            moe_exchange_short(a, l, by, s, k ? m->combine_busbw : m->dispatch_busbw, m->W);
            continue;
        }
        for (int g = 0; g < m->W; g++) {
            char b[24], t[24];
            format_size(by[g], b, sizeof b);
            text_time_us(t, sizeof t, s[g] * 1e6);
            styled_add(l, th->rank[g], "r%d ", g);
            styled_add(l, th->role[TH_MEASURED], "%s %s  ", b, t);
        }
        char bw[24];
        tier_format_bw(k ? m->combine_busbw : m->dispatch_busbw, bw, sizeof bw);
        styled_add(l, th->role[TH_MEASURED], "busbw %s", bw);
    }
    l = styled_new(p);
    if (!m->timed) {
        char k[16], how[48] = "";
        if (!a->no_key_hints && app_key_hint(a, ACT_MEASURE, k, sizeof k))
            snprintf(how, sizeof how, " (%s times it)", k);
        styled_add(l, th->role[TH_DIM],
                   "bytes to other ranks, both layers (a token: %d B); not timed: measuring is "
                   "off%s",
                   m->D * 4, how);
    } else if (compact) {
        styled_add(l, th->role[TH_DIM],
                   "measured on cpu ranks (a token: %d B): bytes to other ranks; time from a "
                   "barrier to the last receive; both layers",
                   m->D * 4);
    } else {
        styled_add(l, th->role[TH_DIM],
                   "measured on cpu ranks, display scale (a token: %d floats, %d B): bytes to "
                   "other ranks counted; ",
                   m->D, m->D * 4);
        styled_add(
            l, th->role[TH_DIM],
            "time from a barrier to the rank's last receive; busbw = busiest rank's bytes "
            "/ slowest rank's time, both layers");
    }
    moe_lecture(a, p);
}

/* The view's lines: in full, or compact where the full ones would not fit r. */
static void moe_lines(struct app *a, const struct par_moe *m, int layer, struct rect r,
                      struct styled_lines *p)
{
    for (int compact = 0; compact < 2; compact++) {
        p->n = 0;
        moe_tokens(a, m, layer, p);
        if (!compact) styled_new(p);
        moe_blocks(a, m, layer, compact, p);
        if (!compact) styled_new(p);
        moe_traffic(a, m, compact, p);
        if (styled_rows(p, r.w) <= r.h) return;
    }
}

void par_moe_draw(struct app *a, struct rect area, const struct par_moe *m, int layer)
{
    const struct theme *th = &a->th;
    if (area.h < 4) return;
    struct rect title = {area.y, area.x, 1, area.w};
    draw_fill(title, th->role[TH_TITLE]);
    char t[256];
    snprintf(t, sizeof t, " collviz%sparallelism%s%s%sW=%d%sdisplay L=%d D=%d B=%d E=%d top-%d",
             a->g->sep, a->g->sep, train_scheme_title(TRAIN_MOE), a->g->sep, a->sc.nranks,
             a->g->sep, PAR_MOE_LAYERS, m->D, m->B, m->E, m->K);
    if (text_width(t) > area.w) /* narrow: the scheme first, as the other schemes do */
        snprintf(t, sizeof t, " %s%sW=%d%sL=%d D=%d B=%d E=%d top-%d",
                 train_scheme_title(TRAIN_MOE), a->g->sep, a->sc.nranks, a->g->sep,
                 PAR_MOE_LAYERS, m->D, m->B, m->E, m->K);
    draw_put(area.y, area.x, area.w, th->role[TH_TITLE], t);
    int y = area.y + 1, x = area.x + 1, end = area.x + area.w;
    if (!m->ok) {
        draw_put(y, x, end - x, th->role[TH_BAD], m->err);
    } else {
        x += draw_putf(y, x, end - x, th->role[TH_STEP], "layer %d/%d", layer + 1,
                       PAR_MOE_LAYERS);
        char d[32];
        snprintf(d, sizeof d, "%.1e", m->param_abs);
        x += draw_putf(y, x, end - x, th->role[m->same ? TH_OK : TH_BAD],
                       "  %s = one device (routing %s, params max |d| %s)",
                       m->same ? a->g->ok : a->g->bad, m->routing_diff ? "differs" : "same", d);
        if (a->msg[0]) draw_put(y, x + 2, end - x - 2, th->role[TH_WARN], a->msg);
        struct styled_lines p = {.n = 0};
        /* below the title and the status line; above the key bar, which an embedded
         * screen (the presenter) does not draw */
        struct rect body = {area.y + 2, area.x + 1, area.h - (a->embedded ? 2 : 3), area.w - 2};
        moe_lines(a, m, layer, body, &p);
        styled_draw(&p, 0, body);
    }
    frame_bar(a, (struct rect){area.y + area.h - 1, area.x, 1, area.w}, KEYS_ON_PAR);
}
