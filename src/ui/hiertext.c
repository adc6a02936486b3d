/* hiertext.c - the hierarchy screen's text (see hiertext.h): the ladder of tiers with this
 * machine's measured figures, the napkin panel and the what-if table, as styled lines. */
#include "ui/hiertext.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/model.h"
#include "core/napkin.h"
#include "core/util.h"
#include "core/text.h"
#include "records/recview.h"

/* ---- lines ------------------------------------------------------------------------------ */

struct hier_line *hier_line_new(struct hier_lines *p)
{
    if (p->n >= (int)ARRAY_LEN(p->l)) return NULL;
    struct hier_line *l = &p->l[p->n++];
    l->n = 0;
    l->wrap = false;
    return l;
}

void hier_add(struct hier_line *l, enum hier_style st, const char *fmt, ...)
{
    if (!l || l->n >= HIER_SEGS) return;
    struct hier_seg *s = &l->seg[l->n++];
    s->style = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text, sizeof s->text, fmt, ap);
    va_end(ap);
}

void hier_line_text(const struct hier_line *l, char *buf, size_t n)
{
    size_t len = 0;
    if (n == 0) return;
    buf[0] = '\0';
    for (int i = 0; i < l->n && len + 1 < n; i++) {
        int k = snprintf(buf + len, n - len, "%s", l->seg[i].text);
        if (k < 0) break;
        len += (size_t)k;
        if (len >= n) len = n - 1;
    }
}

/* A line of several pieces wider than width: the pieces laid out word by word, each
 * keeping its style; a continuation line is indented two more than the line. */
static void hier_wrap_segs(const struct hier_line *l, int width, struct hier_lines *out)
{
    const char *t0 = l->seg[0].text;
    int indent = 0;
    while (t0[indent] == ' ')
        indent++;
    struct hier_line *o = hier_line_new(out);
    if (!o) return;
    int used = indent, pad = indent; /* pad: spaces before the line's first piece */
    for (int k = 0; k < l->n; k++) {
        const char *t = l->seg[k].text + (k == 0 ? indent : 0);
        while (*t) {
            int room = width - used;
            size_t nb = room > 0 ? text_prefix_bytes(t, room) : 0, cut = nb;
            if (!t[nb]) { /* the rest fits */
                hier_add(o, l->seg[k].style, "%*s%s", pad, "", t);
                used += text_width(t);
                pad = 0;
                break;
            }
            while (cut > 0 && t[cut] != ' ')
                cut--;
            if (cut == 0 && o->n > 0) { /* the next word starts a new line */
                o = hier_line_new(out);
                if (!o) return;
                used = pad = indent + 2;
                while (*t == ' ')
                    t++;
                continue;
            }
            if (cut == 0) cut = nb ? nb : strlen(t); /* one word wider than the row */
            hier_add(o, l->seg[k].style, "%*s%.*s", pad, "", (int)cut, t);
            char piece[400];
            snprintf(piece, sizeof piece, "%.*s", (int)cut, t);
            used += text_width(piece);
            pad = 0;
            t += cut;
            while (*t == ' ')
                t++;
            if (!*t) break;
            o = hier_line_new(out);
            if (!o) return;
            used = pad = indent + 2;
        }
    }
}

void hier_wrap(const struct hier_lines *in, int width, bool utf8, struct hier_lines *out)
{
    out->n = 0;
    for (int i = 0; i < in->n; i++) {
        const struct hier_line *l = &in->l[i];
        int total = 0;
        for (int k = 0; k < l->n; k++)
            total += text_width(l->seg[k].text);
        if (width < 20 || total <= width) {
            struct hier_line *o = hier_line_new(out);
            if (!o) return;
            *o = *l;
            continue;
        }
        if (!l->wrap || l->n != 1) {
            hier_wrap_segs(l, width, out);
            continue;
        }
        const char *t = l->seg[0].text;
        int indent = 0;
        while (t[indent] == ' ')
            indent++;
        char rows[8][256];
        int n = text_wrap(t + indent, width - indent - 2, rows, 8, utf8);
        for (int k = 0; k < n && k < 8; k++) {
            struct hier_line *o = hier_line_new(out);
            if (!o) return;
            hier_add(o, l->seg[0].style, "%*s%s", indent + (k ? 2 : 0), "", rows[k]);
        }
    }
}

static bool hier_line_goes(const struct hier_line *l, int zoom)
{
    bool all_dim = l->n > 0, warn = false;
    for (int k = 0; k < l->n; k++) {
        if (l->seg[k].style != HS_DIM) all_dim = false;
        if (l->seg[k].style == HS_WARN) warn = true;
    }
    return (zoom >= 1 && all_dim) || (zoom >= 2 && warn);
}

void hier_zoom_lines(struct hier_lines *p, int zoom)
{
    int n = 0;
    for (int i = 0; i < p->n; i++)
        if (!hier_line_goes(&p->l[i], zoom)) {
            if (n != i) p->l[n] = p->l[i];
            n++;
        }
    p->n = n;
}

/* ---- formatting ------------------------------------------------------------------------- */

static void fmt_bw(double Bps, char *buf, size_t n)
{
    tier_format_bw(Bps, buf, n);
}

static void fmt_time(double s, char *buf, size_t n)
{
    text_time_us(buf, n, s * 1e6);
}

/* 524288 -> "524,288"; values from 1e15 up in %.3g. */
static void fmt_count(double v, char *buf, size_t n)
{
    if (!(v < 1e15) || v < 0) {
        snprintf(buf, n, "%.3g", v);
        return;
    }
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", v);
    size_t nd = strlen(digits), o = 0;
    for (size_t i = 0; i < nd && o + 2 < n; i++) {
        if (i && (nd - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

/* "×" or "x", "·" or "*", "−" or "-", "↓" or "v", "²" or "^2", "α" or "alpha", "β" or "beta" */
static const char *g_times(bool u)
{
    return u ? "\u00d7" : "x";
}
static const char *g_dot(bool u)
{
    return u ? "\u00b7" : "*";
}
static const char *g_minus(bool u)
{
    return u ? "\u2212" : "-";
}
static const char *g_down(bool u)
{
    return u ? "\u2193" : "v";
}
static const char *g_sq(bool u)
{
    return u ? "\u00b2" : "^2";
}
static const char *g_alpha(bool u)
{
    return u ? "\u03b1" : "alpha";
}
static const char *g_psi(bool u)
{
    return u ? "\u03a8" : "Psi";
}

static const char *g_beta(bool u)
{
    return u ? "\u03b2" : "beta";
}

/* ---- the ladder -------------------------------------------------------------------------- */

enum tier_id hier_tier_for_link(const char *link)
{
    if (!link) return TIER_PCIE;
    if (strstr(link, "NET/Socket")) return TIER_ETHERNET; /* NCCL's TCP transport */
    if (strstr(link, "NET/")) return TIER_IB;
    if (strstr(link, "NVL") || strstr(link, "NVLink") || strstr(link, "nvlink"))
        return TIER_NVLINK;
    if (strstr(link, "NET") || strstr(link, "IB") || strstr(link, "InfiniBand")) return TIER_IB;
    return TIER_PCIE;
}

enum tier_id hier_tier_for_mpi(bool across_nodes, const char *transport)
{
    if (!across_nodes) return TIER_NVLINK;
    if (transport && (strstr(transport, "tcp") || strstr(transport, "TCP")))
        return TIER_ETHERNET;
    return TIER_IB;
}

int hier_tier_for_class(enum rec_class c)
{
    switch (c) {
    case REC_NVLINK:
        return TIER_NVLINK;
    case REC_PCIE:
    case REC_SHM:
        return TIER_PCIE;
    case REC_IB:
    case REC_ROCE:
    case REC_NET: /* NET/IB: InfiniBand or RoCE, both the InfiniBand tier's */
        return TIER_IB;
    case REC_SOCKET:
        return TIER_ETHERNET;
    default:
        return -1;
    }
}

/* The row of largest busbw in a test, into *bus and how (out-of-place or in-place). */
static void record_peak(const struct rec_test *t, double *bus, char *how, size_t n)
{
    for (int i = 0; i < t->nrows; i++) {
        const struct rec_row *r = &t->rows[i];
        for (int ip = 0; ip < 2; ip++) {
            double b = ip ? r->ip.busbw : r->oop.busbw;
            if (!(b > *bus)) continue;
            *bus = b;
            char sz[32];
            format_size(r->size >= 0 && r->size < 1e18 ? (size_t)r->size : 0, sz, sizeof sz);
            snprintf(how, n, "nccl-tests %s %s at %s, %s",
                     t->collective[0] ? t->collective : "(collective not named)", t->type, sz,
                     ip ? "in-place" : "out-of-place");
        }
    }
}

void hier_record_from(const struct rec_log *L, int comm, struct hier_record *out)
{
    memset(out, 0, sizeof *out);
    out->slowest = TIER_COUNT;
    if (!L) return;
    out->loaded = true;
    /* one communicator's links (the one chosen, else records/recview.h's largest), never
     * several mixed */
    struct rec_view w;
    rec_view_make(L, comm >= 0 && comm < L->ncomms ? comm : rec_main_comm(L), &w);
    for (int i = 0; i < w.v.nlinks; i++) {
        enum rec_class c = w.v.links[i].cls;
        if ((unsigned)c > REC_UNKNOWN) continue;
        out->cls[c]++;
        int t = hier_tier_for_class(c);
        if (t >= 0 && (out->slowest == TIER_COUNT || t > (int)out->slowest))
            out->slowest = (enum tier_id)t;
    }
    rec_view_free(&w);
    /* The busbw: the all-reduce's when the record has one (the ring's figure), else the
     * first test's. */
    int k = -1;
    for (int i = 0; i < L->ntests && k < 0; i++)
        if (strcmp(L->tests[i].collective, "all_reduce") == 0) k = i;
    if (k < 0 && L->ntests > 0) k = 0;
    if (k >= 0) record_peak(&L->tests[k], &out->busbw_gbs, out->how, sizeof out->how);
}

/* A measured figure's ratio to the lecture's tier t, like with like (tiers.h): a busbw
 * against the link's rate each way; a copy, as the traffic it makes (each byte read and
 * written), against the memory's total; nothing where there is no like figure. A thousand
 * and more written out whole. */
static void ladder_ratio(struct hier_line *l, enum tier_id t, enum tier_measure k, double Bps,
                         bool utf8)
{
    double r = tier_ratio_measured(t, k, Bps);
    if (!(r > 0)) return;
    const char *key = tier_get(t)->key, *x = g_times(utf8);
    const char *basis = k == TIER_MEASURED_COPY ? "" : " each way";
    if (k == TIER_MEASURED_COPY) {
        char v[32];
        fmt_bw(2 * Bps, v, sizeof v);
        hier_add(l, HS_DIM, "; it reads and writes %s", v);
    }
    if (r >= 1000)
        hier_add(l, HS_DIM, "; the lecture's %s%s is %.0f%s that", key, basis, r, x);
    else if (r >= 1)
        hier_add(l, HS_DIM, "; the lecture's %s%s is %.3g%s that", key, basis, r, x);
    else
        hier_add(l, HS_DIM, "; %.3g%s the lecture's %s%s", 1 / r, x, key, basis);
}

/* Under tier t: the record's connections at it, by class, and its busbw beside the slowest
 * tier it uses. */
static void ladder_record(const struct hier_record *rec, enum tier_id t, bool utf8,
                          struct hier_lines *out)
{
    struct hier_line *l = NULL;
    for (int c = 0; c <= REC_UNKNOWN; c++) {
        if (!rec->cls[c] || hier_tier_for_class((enum rec_class)c) != (int)t) continue;
        if (!l) {
            l = hier_line_new(out);
            hier_add(l, HS_MEASURED, "    %s the record's links:", utf8 ? "◀" : "<");
        }
        hier_add(l, HS_TEXT, " %s %d", rec_class_name((enum rec_class)c), rec->cls[c]);
        if (c == REC_SHM) hier_add(l, HS_DIM, " (through host memory)");
        if (c == REC_ROCE) hier_add(l, HS_DIM, " (RDMA over Ethernet)");
    }
    if (t != rec->slowest || !(rec->busbw_gbs > 0)) return;
    char v[32];
    fmt_bw(rec->busbw_gbs * 1e9, v, sizeof v);
    l = hier_line_new(out);
    hier_add(l, HS_DIM, "    the record, busbw: ");
    hier_add(l, HS_MEASURED, "%s", v);
    hier_add(l, HS_DIM, " measured (from the file)");
    ladder_ratio(l, t, TIER_MEASURED_BUSBW, rec->busbw_gbs * 1e9, utf8);
    struct hier_line *h = hier_line_new(out);
    hier_add(h, HS_DIM, "      how: %s", rec->how);
    if (h) h->wrap = true;
}

/* A record whose links name no tier: its busbw after the ladder, and why it stands alone. */
static void ladder_record_untiered(const struct hier_record *rec, struct hier_lines *out)
{
    int other = rec->cls[REC_NET_PLUGIN] + rec->cls[REC_UNKNOWN];
    struct hier_line *l = hier_line_new(out);
    hier_add(l, HS_DIM, "  the record: ");
    if (rec->busbw_gbs > 0) {
        char v[32];
        fmt_bw(rec->busbw_gbs * 1e9, v, sizeof v);
        hier_add(l, HS_MEASURED, "%s", v);
        hier_add(l, HS_DIM, " busbw measured (from the file); ");
    }
    hier_add(l, HS_WARN, "%s",
             other ? "its links (net-plugin, unknown) do not say which tier they are"
                   : "no link lines in it say which tier its links are");
}

static const char *figure_label(int which)
{
    static const char *const labels[] = {
        "memcpy",
        "CPU ranks' all-reduce busbw",
        "NCCL all-reduce busbw",
        "MPI busbw in one node",
        "MPI busbw across nodes",
    };
    return labels[which];
}

static void ladder_figure(const struct hier_figure *f, int which, const struct hier_measured *m,
                          bool utf8, struct hier_lines *out)
{
    if (m->measured_only && f->state != HM_DONE) return; /* the room: measured figures only */
    struct hier_line *l = hier_line_new(out);
    hier_add(l, HS_DIM, "    this machine, %s: ", figure_label(which));
    char v[32];
    switch (f->state) {
    case HM_NONE:
        hier_add(l, HS_WARN, "not measured yet");
        if (m->measure_key[0]) hier_add(l, HS_DIM, "; %s measures it", m->measure_key);
        if (f->how[0]) {
            struct hier_line *h = hier_line_new(out);
            hier_add(h, HS_DIM, "      %s", f->how);
            if (h) h->wrap = true;
        }
        break;
    case HM_RUNNING:
        hier_add(l, HS_DIM, "measuring%s", utf8 ? "\u2026" : "...");
        break;
    case HM_DONE: {
        fmt_bw(f->gbs * 1e9, v, sizeof v);
        hier_add(l, HS_MEASURED, "%s", v);
        hier_add(l, HS_DIM, " measured");
        ladder_ratio(l, f->at, which == 0 ? TIER_MEASURED_COPY : TIER_MEASURED_BUSBW,
                     f->gbs * 1e9, utf8);
        struct hier_line *h = hier_line_new(out);
        hier_add(h, HS_DIM, "      how: %s", f->how);
        if (h) h->wrap = true;
        break;
    }
    case HM_FAILED:
        hier_add(l, HS_WARN, "measurement failed: %s", f->how);
        break;
    case HM_NA:
        hier_add(l, HS_WARN, "not measured: %s", f->how);
        break;
    }
}

void hier_ladder(const struct hier_measured *m, bool utf8, bool detail, struct hier_lines *out)
{
    out->n = 0;
    struct hier_line *l = hier_line_new(out);
    hier_add(l, HS_TITLE, "The hierarchy, fastest first");
    hier_add(l, HS_DIM, "  (");
    hier_add(l, HS_LECTURE, "lecture");
    hier_add(l, HS_DIM, ": its figures, ");
    hier_add(l, HS_MEASURED, "measured");
    hier_add(l, HS_DIM, ": this machine)");
    const struct hier_figure *figs[5] = {&m->copy, &m->cpu_ar, &m->nccl, &m->mpi_node,
                                         &m->mpi_net};
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct tier *x = tier_get((enum tier_id)t);
        l = hier_line_new(out);
        hier_add(l, HS_TIER, "%-26s", x->name);
        hier_add(l, HS_LECTURE, " %-9s", x->bw_text);
        hier_add(l, HS_DIM, " %s", x->source);
        enum tier_id next;
        enum tier_basis basis;
        double r = tier_ratio_to_next((enum tier_id)t, &next, &basis);
        if (r > 0) {
            hier_add(l, HS_DIM, "  %s ", g_down(utf8));
            hier_add(l, HS_LECTURE, "%.3g%s", r, g_times(utf8));
            /* the basis always said: links each way, a memory over a link in total */
            hier_add(l, HS_DIM, " slower %s: %s", tier_basis_words(basis), tier_get(next)->key);
        } else if (t + 1 < TIER_COUNT) {
            hier_add(l, HS_DIM, "  %s no figure to compare", g_down(utf8));
        }
        /* The record's links right under the lecture's figure for their tier. */
        if (m->rec.loaded) ladder_record(&m->rec, (enum tier_id)t, utf8, out);
        if (detail) {
            l = hier_line_new(out);
            hier_add(l, HS_DIM, "    %s; %s", x->connects, x->bw_note);
            /* the rate each way every ratio of a link uses, its source named, where the
             * stated figure is not already it (NVLink's adds both directions) */
            if (x->link && x->each_way_Bps != x->bw_Bps) {
                char e[32];
                fmt_bw(x->each_way_Bps, e, sizeof e);
                l = hier_line_new(out);
                hier_add(l, HS_DIM, "    each way: %s (%s)", e, x->vendor);
                if (l) l->wrap = true;
            }
        }
        for (int k = 0; k < 5; k++)
            if (figs[k]->at == (enum tier_id)t) ladder_figure(figs[k], k, m, utf8, out);
    }
    if (m->rec.loaded && m->rec.slowest == TIER_COUNT) ladder_record_untiered(&m->rec, out);
}

/* ---- napkin math ------------------------------------------------------------------------ */

static const struct {
    const char *name;
    double lo, hi, def;
    bool doubles; /* double / halve, else step by one */
} fields[NF_COUNT] = {
    [NF_SIZE] = {"size", 4, 1099511627776.0, 200.0 * 1024 * 1024 * 4, true},
    [NF_W] = {"W", 2, CV_MAX_RANKS, 8, false},
    [NF_DURATION] = {"duration", 1e-6, 100, 3.5e-3, true},
    [NF_PARAMS] = {"params", 1e3, 1e13, 1e9, true},
    [NF_BYTES] = {"bytes each", 1, 8, 4, true},
    [NF_BW] = {"bandwidth", 1e6, 1e13, 400e9, true},
    [NF_L] = {"L", 1, 1024, 4, true},
    [NF_B] = {"B", 1, 65536, 128, true},
    [NF_D] = {"D", 1, 65536, 1024, true},
    [NF_M] = {"micro-batches", 1, 65536, 4, false},
};

void hier_napkin_defaults(struct hier_napkin_inputs *in)
{
    for (int f = 0; f < NF_COUNT; f++)
        in->v[f] = fields[f].def;
    in->sel = 0;
}

void hier_napkin_change(struct hier_napkin_inputs *in, int dir)
{
    int f = in->sel;
    if (f < 0 || f >= NF_COUNT || dir == 0) return;
    double v = in->v[f];
    if (fields[f].doubles)
        v = dir > 0 ? v * 2 : v / 2;
    else
        v = dir > 0 ? v + 1 : v - 1;
    if (v < fields[f].lo) v = fields[f].lo;
    if (v > fields[f].hi) v = fields[f].hi;
    if (f == NF_M && v > in->v[NF_B]) v = in->v[NF_B];
    in->v[f] = v;
    if (in->v[NF_M] > in->v[NF_B]) in->v[NF_M] = in->v[NF_B];
}

void hier_napkin_select(struct hier_napkin_inputs *in, int dir)
{
    in->sel = ((in->sel + (dir > 0 ? 1 : -1)) % NF_COUNT + NF_COUNT) % NF_COUNT;
}

const char *hier_napkin_field_name(enum hier_napkin_field f)
{
    return (unsigned)f < NF_COUNT ? fields[f].name : "?";
}

void hier_napkin_field_value(const struct hier_napkin_inputs *in, enum hier_napkin_field f,
                             char *buf, size_t n)
{
    double v = (unsigned)f < NF_COUNT ? in->v[f] : 0;
    switch (f) {
    case NF_SIZE:
        format_size((size_t)v, buf, n);
        break;
    case NF_DURATION:
        fmt_time(v, buf, n);
        break;
    case NF_BW:
        fmt_bw(v, buf, n);
        break;
    case NF_PARAMS:
        if (v >= 1e9)
            snprintf(buf, n, "%.4gB", v / 1e9);
        else if (v >= 1e6)
            snprintf(buf, n, "%.4gM", v / 1e6);
        else
            snprintf(buf, n, "%.4gK", v / 1e3);
        break;
    default:
        snprintf(buf, n, "%.0f", v);
        break;
    }
}

static void hier_napkin_field(struct hier_line *l, const struct hier_napkin_inputs *in,
                              enum hier_napkin_field f)
{
    char v[32];
    hier_napkin_field_value(in, f, v, sizeof v);
    hier_add(l, HS_DIM, " %s ", fields[f].name);
    hier_add(l, in->sel == (int)f ? HS_FIELD_SEL : HS_FIELD, "[%s]", v);
}

/* The links of the hierarchy, for the per-link tables. */
static int link_tiers(enum tier_id *out)
{
    int n = 0;
    for (int t = 0; t < TIER_COUNT; t++)
        if (tier_get((enum tier_id)t)->link) out[n++] = (enum tier_id)t;
    return n;
}

/* ZeRO: the paper's worked example, mixed precision (fp16 weights and gradients, K = 12
 * bytes of Adam state per parameter), 7.5B parameters on 64 GPUs. */
static void hier_napkin_zero(bool utf8, struct hier_lines *out)
{
    struct napkin_zero z;
    napkin_zero_memory(7.5e9, 12, 64, &z);
    struct hier_line *l = hier_line_new(out);
    hier_add(l, HS_TEXT, "ZeRO memory per GPU ");
    hier_add(l, HS_MODEL, "(model)");
    hier_add(l, HS_DIM, ": (2+2+K)%s, K=12, %s=7.5B, 64 GPUs", g_psi(utf8), g_psi(utf8));
    l = hier_line_new(out);
    hier_add(l, HS_DIM, "  DDP ");
    hier_add(l, HS_MODEL, "%.3g GB", z.ddp / 1e9);
    hier_add(l, HS_DIM, "  stage 1 ");
    hier_add(l, HS_MODEL, "%.3g GB", z.stage1 / 1e9);
    hier_add(l, HS_DIM, "  stage 2 ");
    hier_add(l, HS_MODEL, "%.3g GB", z.stage2 / 1e9);
    hier_add(l, HS_DIM, "  stage 3 ");
    hier_add(l, HS_MODEL, "%.2g GB", z.stage3 / 1e9);
}

void hier_napkin(const struct hier_napkin_inputs *in, bool utf8, struct hier_lines *out)
{
    out->n = 0;
    const double *v = in->v;
    int W = (int)v[NF_W];
    char a[32], b[32], c[32];
    struct hier_line *l = hier_line_new(out);
    hier_add(l, HS_TITLE, "Napkin math");
    hier_add(l, HS_DIM, "  (the lecture's calculations; the inputs start at its numbers)");

    /* Effective bandwidth. */
    l = hier_line_new(out);
    hier_add(l, HS_TEXT, "effective bandwidth ");
    hier_napkin_field(l, in, NF_SIZE);
    hier_napkin_field(l, in, NF_W);
    hier_napkin_field(l, in, NF_DURATION);
    l = hier_line_new(out);
    fmt_bw(napkin_effective_bw(v[NF_SIZE], W, v[NF_DURATION]), a, sizeof a);
    fmt_bw(2 * v[NF_SIZE] / v[NF_DURATION], b, sizeof b);
    hier_add(l, HS_DIM, "  = size%s2(W%s1)/(W%sduration) = ", g_dot(utf8), g_minus(utf8),
             g_dot(utf8));
    hier_add(l, HS_TEXT, "%s", a);
    hier_add(l, HS_DIM, "; large W: 2%ssize/duration = %s", g_dot(utf8), b);

    /* DDP sync time. */
    l = hier_line_new(out);
    hier_add(l, HS_TEXT, "DDP sync per step   ");
    hier_napkin_field(l, in, NF_PARAMS);
    hier_napkin_field(l, in, NF_BYTES);
    hier_napkin_field(l, in, NF_BW);
    l = hier_line_new(out);
    fmt_time(napkin_ddp_sync_s(v[NF_PARAMS], v[NF_BYTES], v[NF_BW], W), a, sizeof a);
    fmt_time(napkin_ddp_sync_s(v[NF_PARAMS], v[NF_BYTES], v[NF_BW], 0), b, sizeof b);
    hier_add(l, HS_DIM, "  = 2(W%s1)/W%sparams%sbytes/bandwidth = ", g_minus(utf8), g_dot(utf8),
             g_dot(utf8));
    hier_add(l, HS_TEXT, "%s", a);
    hier_add(l, HS_DIM, " on %d ranks   (large W: %s)", W, b);

    /* TP vs DDP elements. */
    l = hier_line_new(out);
    hier_add(l, HS_TEXT, "TP vs DDP elements  ");
    hier_napkin_field(l, in, NF_L);
    hier_napkin_field(l, in, NF_B);
    hier_napkin_field(l, in, NF_D);
    l = hier_line_new(out);
    double tp = napkin_tp_elements(v[NF_L], v[NF_B], v[NF_D]);
    double dp = napkin_ddp_elements(v[NF_L], v[NF_D]);
    fmt_count(tp, a, sizeof a);
    fmt_count(dp, b, sizeof b);
    hier_add(l, HS_DIM, "  TP: L%sB%sD = ", g_dot(utf8), g_dot(utf8));
    hier_add(l, HS_TEXT, "%s", a);
    hier_add(l, HS_DIM, " per forward   DDP: L%sD%s = ", g_dot(utf8), g_sq(utf8));
    hier_add(l, HS_TEXT, "%s", b);
    hier_add(l, HS_DIM, " per step");
    l = hier_line_new(out);
    if (dp >= tp)
        hier_add(l, HS_DIM,
                 "  DDP moves D/B = %.3g%s the elements, yet TP waits on its own "
                 "every layer",
                 dp / tp, g_times(utf8));
    else
        hier_add(l, HS_DIM,
                 "  TP moves B/D = %.3g%s the elements, and waits on them every layer", tp / dp,
                 g_times(utf8));

    /* The schemes on every link. */
    l = hier_line_new(out);
    hier_add(l, HS_TEXT, "per step on each link ");
    hier_add(l, HS_MODEL, "(model)");
    hier_add(l, HS_DIM, ", forward, W ranks,");
    hier_napkin_field(l, in, NF_M);
    l = hier_line_new(out);
    hier_add(l, HS_DIM, "  %-9s %-18s %-20s %s", "link", "DDP 1 all-reduce", "TP L all-gathers",
             "PP one boundary");
    l = hier_line_new(out);
    hier_add(l, HS_DIM, "  %-9s %-18s %-20s %s", "", "overlaps backward", "blocks every layer",
             "overlaps compute");
    enum tier_id links[TIER_COUNT];
    int nl = link_tiers(links);
    for (int i = 0; i < nl; i++) {
        const struct tier *t = tier_get(links[i]);
        struct napkin_schemes s;
        char err[160];
        l = hier_line_new(out);
        hier_add(l, HS_TIER, "  %-9s ", t->key);
        if (napkin_schemes((int)v[NF_L], (int)v[NF_B], (int)v[NF_D], W, (int)v[NF_M],
                           t->model_alpha_s, t->each_way_Bps, &s, err, sizeof err) != CV_OK) {
            hier_add(l, HS_WARN, "%s", err);
            continue;
        }
        fmt_time(s.ddp.time_s, a, sizeof a);
        fmt_time(s.tp.time_s, b, sizeof b);
        fmt_time(s.pp.time_s, c, sizeof c);
        hier_add(l, HS_MODEL, "%-18s %-20s %s", a, b, c);
    }
    l = hier_line_new(out);
    hier_add(l, HS_DIM,
             "  TP's time sits on the critical path of every layer: it needs the fast "
             "links;");
    l = hier_line_new(out);
    hier_add(l, HS_DIM,
             "  DDP's hides behind backward, PP's behind other micro-batches' work.");
    l = hier_line_new(out);
    hier_add(l, HS_DIM,
             "  %s assumed per link, %s the lecture's figure each way (see the ladder)",
             g_alpha(utf8), g_beta(utf8));

    hier_napkin_zero(utf8, out);
}

/* ---- what-if ---------------------------------------------------------------------------- */

void hier_whatif(enum coll c, enum algo a, int W, size_t bytes, bool utf8, bool narrow,
                 struct hier_lines *out)
{
    out->n = 0;
    char sz[32];
    format_size(bytes, sz, sizeof sz);
    struct hier_line *l = hier_line_new(out);
    if (narrow) {
        hier_add(l, HS_TITLE, "What if");
        hier_add(l, HS_DIM, ": the same on each link ");
        hier_add(l, HS_MODEL, "(model)");
    } else {
        hier_add(l, HS_TITLE, "What if");
        hier_add(l, HS_DIM, ": %s, %s, %d ranks, %s on each link ", coll_title(c), algo_name(a),
                 W, sz);
        hier_add(l, HS_MODEL, "(model)");
        l = hier_line_new(out);
        hier_add(l, HS_DIM, "  %-9s %8s %10s %10s %10s", "link", g_alpha(utf8), g_beta(utf8),
                 "time", "busbw");
    }
    enum tier_id links[TIER_COUNT];
    int nl = link_tiers(links);
    for (int i = 0; i < nl; i++) {
        const struct tier *t = tier_get(links[i]);
        struct model_cost m;
        char err[160];
        if (model_collective(c, a, W, bytes, t->model_alpha_s, t->each_way_Bps, &m, err,
                             sizeof err) != CV_OK) {
            out->n = 1;
            l = hier_line_new(out);
            hier_add(l, HS_WARN, "  %s", err);
            return;
        }
        char al[16], be[16], tm[24], bb[24];
        fmt_time(t->model_alpha_s, al, sizeof al);
        fmt_bw(t->each_way_Bps, be, sizeof be);
        fmt_time(m.time_s, tm, sizeof tm);
        if (m.time_s > 0)
            fmt_bw(m.busbw, bb, sizeof bb);
        else
            snprintf(bb, sizeof bb, "-");
        l = hier_line_new(out);
        hier_add(l, HS_TIER, "  %-9s ", t->key);
        if (narrow) {
            hier_add(l, HS_MODEL, "%8s  busbw %s", tm, bb);
        } else {
            hier_add(l, HS_DIM, "%8s %10s ", al, be);
            hier_add(l, HS_MODEL, "%10s %10s", tm, bb);
        }
    }
}
