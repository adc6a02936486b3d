/* overlays.c - what is drawn over or instead of a screen: the help (?), the backends and
 * hardware overlay (b; hw.c gathers its lines) and the notice for a rect too small for the
 * screen. */
#include "ui/overlays/overlays.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "ui/app.h"
#include "core/text.h"
#include "ui/screens/screens.h"
#include "ui/overlays/helplayout.h"

/* The help overlay: every row of the key table that belongs to this screen (in as many
 * columns as the height needs, never cut: pages where they do not all fit, helplayout.h),
 * then the screen's legend (screen_ops.help). */
void overlay_help(struct app *a, struct rect t)
{
    const struct theme *th = &a->th;
    const struct screen_ops *o = a->frame ? a->frame : app_screen(a);
    int H = t.h, Wd = t.w;
    const struct key_row *rows[ACT_COUNT];
    int rows_n = 0;
    /* A frame (the player) lists its own rows and then the shown screen's scene keys,
     * each with only the keys that reach it there. */
    unsigned screen_on = app_screen(a)->keys_on;
    for (int i = 0; i < ACT_COUNT; i++) {
        const struct key_row *k = &keys_table()[i];
        if ((k->screens & o->keys_on) ||
            (a->frame && (k->screens & screen_on) && keys_is_scene_action(k->action) &&
             keys_key_on(k->action, a->surface, screen_on)))
            rows[rows_n++] = k;
    }
    struct styled_lines p = {.n = 0};
    int legend_w = Wd - 6 < 76 ? Wd - 6 : 76;
    if (o->help) o->help(a, &p, legend_w);
    int kw = 11, entry_w = 0;
    for (int i = 0; i < rows_n; i++) {
        int ew = kw + text_width(rows[i]->help);
        if (ew > entry_w) entry_w = ew;
    }
    struct help_layout hl;
    help_layout_compute(H, Wd, rows_n, entry_w, p.n, &hl);
    if (a->help_page >= hl.npages) a->help_page = hl.npages - 1;
    if (a->help_page < 0) a->help_page = 0;
    a->help_npages = hl.npages;
    int pg = a->help_page, from, to, per_col;
    help_layout_rows(&hl, rows_n, pg, &from, &to, &per_col);
    bool legend = pg == hl.legend_page && p.n > 0;
    int w = hl.ncol * hl.colw + 4;
    for (int i = 0; legend && i < p.n; i++)
        if (styled_width(&p.l[i]) + 4 > w) w = styled_width(&p.l[i]) + 4;
    if (w > Wd) w = Wd;
    int h = per_col + (legend ? (per_col > 0 ? hl.gap : 0) + p.n : 0) + 2;
    if (h > H - 1) h = H - 1;
    struct rect r = {t.y + (H - 1 - h) / 2, t.x + (Wd - w) / 2, h, w};
    draw_fill(r, A_NORMAL);
    char title[96];
    if (hl.npages > 1)
        snprintf(title, sizeof title, "help %d/%d: keys (PgDn PgUp pages, ? or Esc closes)",
                 pg + 1, hl.npages);
    else
        snprintf(title, sizeof title, "help: keys (? or Esc closes)");
    draw_frame(r, th->role[TH_LABEL] | A_BOLD, title, A_BOLD);
    for (int i = from; i < to; i++) {
        int c = (i - from) / per_col, k = (i - from) % per_col;
        int y = r.y + 1 + k, x = r.x + 2 + c * hl.colw;
        char names[64];
        keys_row_names_on(rows[i], a->surface, screen_on, a->utf8, names, sizeof names);
        /* keys wider than their column ("0 Backspace") are never cut: their text moves
         * right instead, and is the one shortened */
        int nw = text_width(names), hx = nw + 1 > kw ? nw + 1 : kw;
        if (hx > hl.colw - 4) hx = hl.colw - 4;
        draw_put(y, x, hx - 1, th->role[TH_BAR_KEY] | th->role[TH_LABEL], names);
        char fit[128];
        text_fit(fit, sizeof fit, rows[i]->help, hl.colw - hx - 1, a->utf8);
        draw_put(y, x + hx, hl.colw - hx - 1, A_NORMAL, fit);
    }
    if (!legend) return;
    int y = r.y + 1 + (per_col > 0 ? per_col + hl.gap : 0);
    struct rect lr = {y, r.x + 2, r.y + r.h - 1 - y, r.w - 4};
    styled_draw(&p, 0, lr);
}

/* The backends and hardware overlay (b): every backend compiled in with its status, the
 * machine the CPU ranks run on, and for NCCL the GPUs, their peer access and the versions,
 * or why NCCL is not there (hw.h builds the lines). */
void overlay_hw(const struct app *a, struct rect t)
{
    int H = t.h, Wd = t.w;
    const struct theme *th = &a->th;
    const char *title = "backends and hardware (b or Esc closes)";
    int maxw = Wd - 2 < 104 ? Wd - 2 : 104;
    if (maxw < 24 || H < 6) return;
    struct hw_line lines[96];
    int n = hw_lines(&a->hw, a->w ? a->backend_desc : "", a->utf8, maxw - 4, lines,
                     (int)ARRAY_LEN(lines));
    int w = text_width(title) + 4;
    for (int i = 0; i < n; i++)
        if (text_width(lines[i].text) + 4 > w) w = text_width(lines[i].text) + 4;
    if (w > maxw) w = maxw;
    int h = n + 2 < H - 1 ? n + 2 : H - 1;
    struct rect r = {t.y + (H - 1 - h) / 2, t.x + (Wd - w) / 2, h, w};
    draw_fill(r, A_NORMAL);
    draw_frame(r, th->role[TH_LABEL] | A_BOLD, title, A_BOLD);
    int rows = h - 2;
    for (int i = 0; i < n && i < rows; i++) {
        int y = r.y + 1 + i;
        if (i == rows - 1 && n > rows) {
            draw_putf(y, r.x + 2, w - 4, th->role[TH_DIM],
                      "%s %d more line%s (a taller terminal "
                      "shows them)",
                      a->g->ell, n - rows + 1, n - rows + 1 == 1 ? "" : "s");
            break;
        }
        attr_t at = A_NORMAL;
        switch (lines[i].style) {
        case HW_HEAD_OK:
            at = th->role[TH_OK] | A_BOLD;
            break;
        case HW_HEAD:
            at = A_BOLD;
            break;
        case HW_HEAD_WARN:
            at = th->role[TH_WARN] | A_BOLD;
            break;
        case HW_TEXT:
            at = A_NORMAL;
            break;
        case HW_DIM:
            at = th->role[TH_DIM];
            break;
        }
        draw_put(y, r.x + 2, w - 4, at, lines[i].text);
    }
}

void overlay_too_small(const struct app *a, struct rect r, int need_rows, int need_cols)
{
    char t[96];
    snprintf(t, sizeof t, "terminal too small: %dx%d, need %dx%d", r.w, r.h, need_cols,
             need_rows);
    if (a->embedded)
        snprintf(t, sizeof t, "too small for this scene: %dx%d, needs %dx%d", r.w, r.h,
                 need_cols, need_rows);
    int w = text_width(t);
    int x = w < r.w ? (r.w - w) / 2 : 0;
    draw_put(r.y + r.h / 2, r.x + x, r.w, A_BOLD, t);
    if (r.h > 2 && !a->embedded) {
        const char *q = "q quits";
        draw_put(r.y + r.h / 2 + 1, r.x + ((r.w - 7) / 2 > 0 ? (r.w - 7) / 2 : 0), r.w,
                 A_NORMAL, q);
    }
}
