/* helplayout.c - the help overlay's columns and pages (see helplayout.h). */
#include "ui/overlays/helplayout.h"

#include <string.h>

static int div_up(int a, int b)
{
    return (a + b - 1) / b;
}

void help_layout_compute(int H, int W, int nrows, int entry_w, int legend_h,
                         struct help_layout *out)
{
    memset(out, 0, sizeof *out);
    int inner = W - 6 < 10 ? 10 : W - 6; /* the box's border and margins */
    int need = entry_w + 1 > inner ? inner : entry_w + 1;
    int fit = inner / need;            /* columns side by side without cutting a row */
    int avail = H - 3 < 1 ? 1 : H - 3; /* rows inside the border, above the key bar */
    int n = nrows < 0 ? 0 : nrows;
    out->npages = 1;
    /* One page with the legend: a gap row if it still fits. */
    for (int gap = 1; gap >= 0; gap--) {
        int rows = avail - gap - legend_h;
        if (rows < 1 || fit * rows < n) continue;
        out->ncol = n > 0 ? div_up(n, rows) : 1;
        out->per_col = n > 0 ? div_up(n, out->ncol) : 0;
        out->per_page = n > 0 ? n : 1;
        out->gap = gap;
        break;
    }
    if (out->ncol == 0) { /* pages of full columns; the legend under the last, or alone */
        out->ncol = fit;
        out->per_col = avail;
        out->per_page = fit * avail;
        int kp = div_up(n, out->per_page);
        int last = n - (kp - 1) * out->per_page;
        int last_h = div_up(last, fit) < avail ? div_up(last, fit) : avail;
        out->gap = 1;
        out->npages = kp;
        out->legend_page = kp - 1;
        if (last_h + 1 + legend_h > avail && legend_h > 0) {
            out->npages = kp + 1;
            out->legend_page = kp;
        }
    }
    int colw = inner / out->ncol;
    int cap = need > HELP_COLW_MAX ? need : HELP_COLW_MAX;
    out->colw = colw > cap ? cap : colw;
}

void help_layout_rows(const struct help_layout *l, int nrows, int k, int *from, int *to,
                      int *per_col)
{
    if (k < 0) k = 0;
    if (k >= l->npages) k = l->npages - 1;
    int f = k * l->per_page, t = f + l->per_page;
    *from = f < nrows ? f : nrows;
    *to = t < nrows ? t : nrows;
    int cnt = *to - *from;
    *per_col = cnt > 0 ? div_up(cnt, l->ncol) : 0;
    if (*per_col > l->per_col) *per_col = l->per_col;
}
