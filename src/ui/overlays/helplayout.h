/* helplayout.h - the help overlay's pages as a pure function (unit-tested in
 * tests/unit/test_helplayout.c): key rows are never cut. Their columns are as wide as the
 * widest row needs; when every row and the screen's legend fit in one box it is one page as
 * before, otherwise the rows go on pages of full columns (PgDn / PgUp turn them) and the
 * legend comes under the last page's rows, or on a page of its own when they leave no
 * room. */
#ifndef COLLVIZ_UI_OVERLAYS_HELPLAYOUT_H
#define COLLVIZ_UI_OVERLAYS_HELPLAYOUT_H

#define HELP_COLW_MAX 40 /* a column no wider than this when the rows need less */

struct help_layout {
    int ncol, colw;  /* columns of key rows and their width (key names and help) */
    int per_col;     /* rows in each column of a page */
    int per_page;    /* key rows on a page: ncol * per_col */
    int npages;      /* at least 1 */
    int legend_page; /* the page that shows the legend, under its rows */
    int gap;         /* a blank row between the rows and the legend */
};

/* The help for an H x W area (the screen's key bar stays below it): nrows key rows, the
 * widest needing entry_w columns (key names and text), a legend of legend_h lines. */
void help_layout_compute(int H, int W, int nrows, int entry_w, int legend_h,
                         struct help_layout *out);
/* The key rows [*from, *to) of page k (clamped to the pages) and the rows of each of its
 * columns (*per_col: a short last page spreads its rows evenly over the columns). */
void help_layout_rows(const struct help_layout *l, int nrows, int k, int *from, int *to,
                      int *per_col);

#endif
