/* present_layout.c - the presenter's geometry and narration pages (see present_layout.h). */
#include "ui/present/present_layout.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

int present_layout_narr_width(int cols)
{
    int w = cols - 8;
    if (w > PLAYOUT_TEXT_MAX) w = PLAYOUT_TEXT_MAX;
    return w < 20 ? 20 : w;
}

static bool is_blank(const bool *blank, int i)
{
    return blank && blank[i];
}

static int skip_blank(const bool *blank, int from, int n)
{
    while (from < n && is_blank(blank, from))
        from++;
    return from;
}

/* The end of a page starting at line from with room for cap lines: all the rest, else a
 * blank line in the page's second half (a break between blocks), else cap lines. */
static int page_end(const bool *blank, int from, int cap, int n)
{
    if (n - from <= cap) return n;
    int end = from + cap;
    for (int j = end; j > from + cap / 2; j--)
        if (is_blank(blank, j)) return j;
    return end;
}

static struct present_layout_page *new_page(struct present_layout *p)
{
    p->page = xrealloc(p->page, (size_t)(p->npages + 1) * sizeof *p->page);
    struct present_layout_page *pg = &p->page[p->npages++];
    memset(pg, 0, sizeof *pg);
    return pg;
}

/* The lead: the narration's first lines that fit in keep rows and end where a block does
 * (before a blank line, or before a line that starts a block standing alone). */
static int lead_end(const bool *blank, const bool *starts, int n, int keep)
{
    for (int k = keep < n ? keep : n; k > 0; k--) {
        if (k < n && !is_blank(blank, k) && !(starts && starts[k])) continue;
        while (k > 0 && is_blank(blank, k - 1))
            k--;
        return k;
    }
    return 0;
}

/* Text pages (capacity cap rows from row top) until what is left fits in keep rows. The
 * question asked now, lines [qf, qe) (qe <= qf: none), is never split where it fits a page:
 * a page that would end inside it ends before it. */
static int text_pages(struct present_layout *p, const bool *blank, int n, int top, int cap,
                      int keep, struct rect title, int nx, int nw, int qf, int qe)
{
    int from = 0;
    for (;;) {
        from = skip_blank(blank, from, n);
        if (n - from <= keep) return from;
        int to = page_end(blank, from, cap, n);
        if (qe > qf && qe - qf <= cap && to > qf && to < qe)
            to = from < qf ? qf : (qe - from <= cap ? qe : to);
        struct present_layout_page *pg = new_page(p);
        pg->from = from;
        pg->to = to;
        pg->title = title;
        pg->narr = (struct rect){top, nx, to - from, nw};
        from = to;
    }
}

/* The page a slide opens on shows the question asked now, lines [qf, qe) (qe <= qf: none):
 * the scene's page where it shows it whole, else the text page that does (with the title;
 * PageDown then shows the scene). A scene's page without a title opens as it is: the footer
 * names the slide (present.c), or present.c opens it on its last text page. */
static void layout_entry(struct present_layout *out, int qf, int qe)
{
    const struct present_layout_page *pg = &out->page[out->entry];
    if (qe <= qf || (pg->from <= qf && pg->to >= qe) ||
        (pg->ask_from <= qf && pg->ask_to >= qe && pg->ask_to > pg->ask_from))
        return;
    for (int i = out->entry - 1; i >= 0; i--)
        if (out->page[i].from <= qf && out->page[i].to >= qe) {
            out->entry = i;
            return;
        }
}

/* The layout with gap empty rows (0 or 1) under the title and above the scene. */
static void layout_gap(int rows, int cols, int scene_rows, int title_lines, int narr_lines,
                       const bool *blank, const bool *starts,
                       const struct present_layout_ask *ask, int gap,
                       struct present_layout *out)
{
    present_layout_free(out);
    if (rows < PLAYOUT_MIN_ROWS || cols < PLAYOUT_MIN_COLS) {
        out->too_small = true;
        return;
    }
    int nw = present_layout_narr_width(cols), nx = (cols - nw) / 2;
    int band = rows - 1; /* rows [0, band) hold title, narration and scene */
    int T = title_lines < 1 ? 1 : title_lines, n = narr_lines < 0 ? 0 : narr_lines;
    int top = T + gap, cap = band - top;
    if (cap < 1) {
        out->too_small = true;
        return;
    }
    out->footer = (struct rect){rows - 1, 0, 1, cols};
    struct rect title = {0, nx, T, nw};
    if (scene_rows <= 0) {
        text_pages(out, blank, n, top, cap, 0, title, nx, nw, 0, 0);
        if (out->npages == 0) new_page(out)->title = title;
        if (out->npages == 1) { /* one page: vertically centred, never above its row */
            struct present_layout_page *pg = &out->page[0];
            pg->narr.y = top + (cap - pg->narr.h) / 3;
        }
        return;
    }
    int need = scene_rows < PLAYOUT_SCENE_MIN ? scene_rows : PLAYOUT_SCENE_MIN;
    bool with_title = top + need <= band;
    int keep = with_title ? band - top - need - gap : 0;
    if (keep < 0) keep = 0;
    int first = skip_blank(blank, 0, n);
    bool shared = with_title && n - first <= keep; /* all of it beside the scene: one page */
    int qa = ask ? ask->narr_end : 0, qf = ask ? ask->from : 0,
        qe = ask && ask->to > 0 ? ask->to : n;
    if (!(qa > 0 && qa < n && qf >= qa && qe > qf && qe <= n)) qa = qf = qe = 0; /* none */
    if (!shared) { /* the whole narration on text pages, for reading back (PageUp) */
        text_pages(out, blank, n, top, cap, 0, title, nx, nw, qf, qe);
        if (!with_title && out->npages == 0) new_page(out)->title = title; /* a title page */
    }
    struct present_layout_page *pg = new_page(out);
    pg->with_scene = true;
    out->entry = out->npages - 1;
    if (!with_title) { /* the scene alone: the text pages before it had the title */
        pg->scene = (struct rect){0, 0, band, cols};
        layout_entry(out, qf, qe);
        return;
    }
    pg->from = shared ? first : 0;
    pg->to = shared ? n : lead_end(blank, starts, n, keep);
    if (!shared && qe > qf && qe - qf <= keep) {
        /* the question asked now, whole, under as much of the lead as still fits: the room
         * sees what it is asked before the scene answers it */
        int sep = is_blank(blank, qf - 1) ? 1 : 0;
        pg->to = lead_end(blank, starts, qa, keep - (qe - qf) - sep);
        pg->ask_from = pg->to > 0 ? qf - sep : qf;
        pg->ask_to = qe;
    }
    pg->title = title;
    int h = pg->to - pg->from + pg->ask_to - pg->ask_from;
    pg->narr = (struct rect){top, nx, h, nw};
    int y = top + (h > 0 ? h + gap : 0);
    pg->scene = (struct rect){y, 0, band - y, cols};
    layout_entry(out, qf, qe);
}

void present_layout_compute(int rows, int cols, int scene_rows, int title_lines, int narr_lines,
                            const bool *blank, const bool *starts,
                            const struct present_layout_ask *ask, struct present_layout *out)
{
    layout_gap(rows, cols, scene_rows, title_lines, narr_lines, blank, starts, ask, 1, out);
    if (out->too_small || out->npages < 2 || scene_rows <= 0) return;
    /* The empty rows under the title and above the scene go where that shows the slide's
     * questions beside the scene, saves a page or shows more of the narration there (the
     * title is bold, the scene's title bar sets it apart). */
    struct present_layout tight = {0};
    layout_gap(rows, cols, scene_rows, title_lines, narr_lines, blank, starts, ask, 0, &tight);
    bool asks = present_layout_asks(out, ask, narr_lines),
         tight_asks = present_layout_asks(&tight, ask, narr_lines);
    if (tight_asks != asks ? tight_asks > asks
        : tight.npages != out->npages
            ? tight.npages < out->npages
            : tight.page[tight.entry].narr.h > out->page[out->entry].narr.h) {
        present_layout_free(out);
        *out = tight;
    } else {
        present_layout_free(&tight);
    }
}

bool present_layout_asks(const struct present_layout *p, const struct present_layout_ask *ask,
                         int narr_lines)
{
    if (!ask || ask->narr_end <= 0 || ask->narr_end >= narr_lines || p->too_small ||
        p->npages < 1)
        return false;
    int qf = ask->from, qe = ask->to > 0 ? ask->to : narr_lines;
    /* beside the scene: its page (the last), where the slide has one */
    const struct present_layout_page *e =
        p->page[p->npages - 1].with_scene ? &p->page[p->npages - 1] : &p->page[p->entry];
    return (e->ask_from <= qf && e->ask_to >= qe && e->ask_to > e->ask_from) ||
           (e->from <= qf && e->to >= qe);
}

void present_layout_free(struct present_layout *p)
{
    free(p->page);
    memset(p, 0, sizeof *p);
}
