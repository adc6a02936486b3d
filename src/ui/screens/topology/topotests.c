/* topotests.c - the nccl-tests view of the topology screen (see topotests.h). The points
 * are the file's rows as they are; the curve and the figures under it are the model's. */
#include "ui/screens/topology/topotests.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/util.h"
#include "records/recfit.h"
#include "ui/app.h"
#include "ui/screens/topology/topology.h"
#include "ui/screens/topology/topotext.h"

/* The test's heading: which test of how many, and what it is. */
static void tests_heading(const struct app *a, struct rect r, const struct rec_test *t, int k)
{
    char s[200];
    for (int scale = 1; scale >= 0; scale--) { /* "(log scale)" only where it fits */
        snprintf(s, sizeof s, "nccl-tests %s%s%s %s (test %d of %d): busbw GB/s vs size%s",
                 t->collective[0] ? t->collective : "(collective not named)",
                 t->type[0] ? ", " : "", t->type, t->redop, k + 1, topo_record(a)->ntests,
                 scale ? " (log scale)" : "");
        if (text_width(s) <= r.w) break;
    }
    draw_words(r.y, r.x, r.w, 1, A_BOLD, s);
}

/* The fit's line(s): α, β, R² of the model through the out-of-place rows, or why none. */
static int tests_fit_line(const struct app *a, struct rect r, const struct rec_fit *f)
{
    if (r.h < 1) return 0;
    const char *al = a->utf8 ? "\u03b1" : "alpha", *be = a->utf8 ? "\u03b2" : "beta";
    const char *r2 = a->utf8 ? "R\u00b2" : "R^2";
    if (!f->ok) {
        char s[300];
        snprintf(s, sizeof s, "no fit: %s", f->why);
        return draw_words(r.y, r.x, r.w, r.h, a->th.role[TH_WARN], s);
    }
    char beta[48];
    if (f->f.inv_beta > 0)
        snprintf(beta, sizeof beta, "%s %.4g GB/s", be, f->f.beta_Bps / 1e9);
    else
        snprintf(beta, sizeof beta, "%s none (1/%s <= 0)", be, be);
    char what[160];
    snprintf(what, sizeof what,
             "fit of the %d measured out-of-place rows, %s plan on %d ranks%s", f->nrows,
             algo_name(f->algo), f->nranks, f->f.physical ? "" : " (not physical)");
    int x = r.x + draw_putf(r.y, r.x, r.w, a->th.role[TH_PLOT] | A_BOLD,
                            "model: %s %.4g us/step, %s, %s %.4f", al, f->f.alpha_s * 1e6, beta,
                            r2, f->f.r2);
    /* Beside the figures when it fits, else on the next row. */
    if (x + 2 + (int)strlen(what) <= r.x + r.w) {
        draw_putf(r.y, x, r.x + r.w - x, a->th.role[TH_DIM], "  %s", what);
        return 1;
    }
    if (r.h < 2) return 1;
    draw_put(r.y + 1, r.x, r.w, a->th.role[TH_DIM], what);
    return 2;
}

struct tests_axes {
    double lo, hi, max; /* sizes, busbw GB/s */
    int gut, pw, ph;    /* gutter, plot width, plot height */
    struct rect r;      /* the plot's rows and columns, scale and labels outside */
};

static void tests_point(const struct app *a, const struct tests_axes *ax, double size,
                        double bus, const char *glyph, attr_t at)
{
    int c = topo_plot_col(size, ax->lo, ax->hi, ax->pw);
    int row = topo_plot_row(bus, ax->max, ax->ph);
    draw_put(ax->r.y + ax->ph - 1 - row, ax->r.x + c, 1, at, glyph);
}

/* The axes for test t in r (false: nothing to plot or no room), with the scale drawn. */
static bool tests_axes(const struct app *a, const struct rec_test *t, const struct rec_fit *f,
                       struct rect r, struct tests_axes *ax)
{
    memset(ax, 0, sizeof *ax);
    ax->lo = INFINITY;
    for (int i = 0; i < t->nrows; i++) {
        const struct rec_row *w = &t->rows[i];
        if (!(w->size > 0)) continue;
        if (w->size < ax->lo) ax->lo = w->size;
        if (w->size > ax->hi) ax->hi = w->size;
        if (w->oop.busbw > ax->max) ax->max = w->oop.busbw;
        if (w->ip.busbw > ax->max) ax->max = w->ip.busbw;
    }
    if (!(ax->hi > ax->lo) || !(ax->max > 0)) return false;
    /* The model's curve may rise above the points; the scale holds it too. */
    for (int i = 0; i < t->nrows; i++) {
        double m = rec_fit_busbw(f, t->rows[i].size);
        if (m > ax->max) ax->max = m;
    }
    char maxs[24];
    snprintf(maxs, sizeof maxs, "%.4g", ax->max);
    ax->gut = (int)strlen(maxs) + 1;
    ax->pw = r.w - ax->gut;
    ax->ph = r.h - 1; /* the size labels below */
    if (ax->pw < 16 || ax->ph < 3) return false;
    ax->r = (struct rect){r.y, r.x + ax->gut, ax->ph, ax->pw};
    draw_put(r.y, r.x, ax->gut, a->th.role[TH_DIM], maxs);
    draw_put(r.y + ax->ph - 1, r.x + ax->gut - 2, 1, a->th.role[TH_DIM], "0");
    for (int y = 0; y < ax->ph; y++)
        draw_put(r.y + y, r.x + ax->gut - 1, 1, a->th.role[TH_DIM], a->utf8 ? "\u2502" : "|");
    /* Size labels: the ends and the middle, where they do not run into each other. */
    char lo[16], hi[16], mid[16];
    format_size((size_t)ax->lo, lo, sizeof lo);
    format_size((size_t)ax->hi, hi, sizeof hi);
    double ms = topo_plot_size_at(ax->pw / 2, ax->lo, ax->hi, ax->pw);
    format_size((size_t)exp2(round(log2(ms))), mid, sizeof mid);
    int yl = r.y + ax->ph, hw = (int)strlen(hi), mw = (int)strlen(mid);
    draw_put(yl, ax->r.x, ax->pw, a->th.role[TH_DIM], lo);
    int mx = ax->r.x + topo_plot_col(exp2(round(log2(ms))), ax->lo, ax->hi, ax->pw) - mw / 2;
    if (mx > ax->r.x + (int)strlen(lo) + 1 && mx + mw + 1 < ax->r.x + ax->pw - hw)
        draw_put(yl, mx, mw, a->th.role[TH_DIM], mid);
    draw_put(yl, ax->r.x + ax->pw - hw, hw, a->th.role[TH_DIM], hi);
    return true;
}

/* The legend: what each mark is, and where the points come from. */
static void tests_legend(const struct app *a, struct rect r, bool curve)
{
    int x = r.x;
    x += draw_put(r.y, x, r.w, a->th.role[TH_MEASURED] | A_BOLD, "o");
    x += draw_put(r.y, x, r.x + r.w - x, a->th.role[TH_DIM], " out-of-place  ");
    x += draw_put(r.y, x, r.x + r.w - x, a->th.role[TH_LABEL] | A_BOLD, "+");
    x += draw_put(r.y, x, r.x + r.w - x, a->th.role[TH_DIM], " in-place  * both  ");
    x += draw_put(r.y, x, r.x + r.w - x, a->th.role[TH_DIM], "measured (from the file)");
    if (curve) {
        x += draw_put(r.y, x, r.x + r.w - x, a->th.role[TH_DIM], "  ");
        x += draw_put(r.y, x, r.x + r.w - x, a->th.role[TH_PLOT], a->utf8 ? "\u00b7" : ".");
        draw_put(r.y, x, r.x + r.w - x, a->th.role[TH_DIM], " model");
    }
}

void topo_tests_draw(const struct app *a, struct rect r, int k)
{
    const struct rec_log *L = topo_record(a);
    if (!L || k < 0 || k >= L->ntests || r.h < 1) return;
    const struct rec_test *t = &L->tests[k];
    struct rec_fit f;
    rec_fit_test(L, t, false, &f);
    tests_heading(a, r, t, k);
    if (r.h < 8) {
        tests_fit_line(a, (struct rect){r.y + 1, r.x, r.h - 1, r.w}, &f);
        return;
    }
    struct tests_axes ax;
    struct rect pr = {r.y + 1, r.x, r.h - 4, r.w};
    if (!tests_axes(a, t, &f, pr, &ax)) {
        draw_putf(r.y + 1, r.x, r.w, a->th.role[TH_WARN], "%d row%s: not enough sizes to plot",
                  t->nrows, t->nrows == 1 ? "" : "s");
    } else {
        bool curve = f.ok && f.f.physical;
        for (int c = 0; curve && c < ax.pw; c++) {
            double s = topo_plot_size_at(c, ax.lo, ax.hi, ax.pw);
            double m = rec_fit_busbw(&f, s);
            if (m > 0) tests_point(a, &ax, s, m, a->utf8 ? "\u00b7" : ".", a->th.role[TH_PLOT]);
        }
        for (int i = 0; i < t->nrows; i++) {
            const struct rec_row *w = &t->rows[i];
            if (!(w->size > 0)) continue;
            bool same = topo_plot_row(w->ip.busbw, ax.max, ax.ph) ==
                        topo_plot_row(w->oop.busbw, ax.max, ax.ph);
            tests_point(a, &ax, w->size, w->ip.busbw, "+", a->th.role[TH_LABEL] | A_BOLD);
            tests_point(a, &ax, w->size, w->oop.busbw, same ? "*" : "o",
                        a->th.role[TH_MEASURED] | A_BOLD);
        }
        tests_legend(a, (struct rect){r.y + r.h - 3, r.x, 1, r.w}, curve);
    }
    tests_fit_line(a, (struct rect){r.y + r.h - 2, r.x, 2, r.w}, &f);
}
