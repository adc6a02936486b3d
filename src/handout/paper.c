/* paper.c - scenes drawn for paper with cairo and pango (see paper.h): the themes, the
 * drawing primitives every screen's drawer shares (paper_draw.h), the hierarchy's table and
 * the picture itself. A picture is first drawn onto a cairo recording surface, which
 * measures its ink (the crop); each output (SVG, PNG, PDF, a handout's page) then gets the
 * same drawing again, straight onto its own surface. Every text goes through pd_text,
 * which records the colour pair it used and its size: the contrast and size tests read
 * those, not a list kept by hand. The collectives screen is paper_coll.c, the parallelism
 * screen paper_par.c. */
#include "handout/paper.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/tiers.h"
#include "core/util.h"
#include "core/vec.h"
#include "handout/paper_draw.h"

/* ---- themes ------------------------------------------------------------------------- */

/* Rank colours follow the screen's order of hues (blue, orange, green, magenta, ...), each
 * at one of two luminances: light for even ranks (dark text on them), dark for odd ranks
 * (white text; the dark theme the other way round). In grey, neighbouring ranks differ by
 * more than 4:1 in both themes, and every text on a fill or its hatching keeps >= 4.5:1;
 * tests/unit/test_print.c checks both, in colour and converted to grey. */
static const struct print_theme theme_light = {
    .name = "light",
    .bg = 0xffffff,
    .ink = 0x1a1a1a,
    .dim = 0x555555,
    .accent = 0xb3261e,
    .cell_ink = 0x111111,
    .empty = 0xf4f4f4,
    .partial = 0xf0d9a8,
    .complete = 0x7fbf8a,
    .hidden = 0xe4e4e4,
    .rank_fill = {0xd3e1f4, 0x9d521c, 0xcfe8cf, 0xad3a7d, 0xe4dbf1, 0x7a6615, 0xbfeaea,
                  0x656565},
    .rank_text = {0x111111, 0xffffff, 0x111111, 0xffffff, 0x111111, 0xffffff, 0x111111,
                  0xffffff},
    .rank_hatch = {0x949eab, 0x562d0f, 0x91a291, 0x5f2045, 0xa099a9, 0x43380c, 0x86a4a4,
                   0x383838},
    .rank_ink = {0x1f4e9c, 0x9a3c00, 0x1c6b1c, 0x9c1f63, 0x5b3a9c, 0x6e5300, 0x0b6363,
                 0x444444},
};
static const struct print_theme theme_dark = {
    .name = "dark",
    .bg = 0x1b1d22,
    .ink = 0xf0f0f0,
    .dim = 0xb8b8b8,
    .accent = 0xff8a80,
    .cell_ink = 0xf8f8f8,
    .empty = 0x2a2d33,
    .partial = 0x5a4720,
    .complete = 0x2e7d32,
    .hidden = 0x3a3d44,
    .rank_fill = {0x163258, 0xe59d69, 0x1c3a1c, 0xdc96bf, 0x3c235e, 0xd0ad25, 0x133939,
                  0xadadad},
    .rank_text = {0xf8f8f8, 0x111111, 0xf8f8f8, 0x111111, 0xf8f8f8, 0x111111, 0xf8f8f8,
                  0x111111},
    .rank_hatch = {0x0c1c30, 0xc4865a, 0x0f200f, 0xbd81a4, 0x211334, 0xb2941f, 0x0a1f1f,
                   0x949494},
    .rank_ink = {0x8fb8ff, 0xffb37a, 0x8fdc8f, 0xf5a3cf, 0xc3a8ff, 0xf0d264, 0x7fdcdc,
                 0xcccccc},
};

const struct print_theme *print_theme_get(bool dark)
{
    return dark ? &theme_dark : &theme_light;
}

static double pd_lin(uint32_t c, int shift)
{
    double v = (double)((c >> shift) & 0xff) / 255.0;
    return v <= 0.03928 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

static double pd_lum(uint32_t c)
{
    return 0.2126 * pd_lin(c, 16) + 0.7152 * pd_lin(c, 8) + 0.0722 * pd_lin(c, 0);
}

double print_contrast(uint32_t a, uint32_t b)
{
    double la = pd_lum(a), lb = pd_lum(b);
    return la > lb ? (la + 0.05) / (lb + 0.05) : (lb + 0.05) / (la + 0.05);
}

uint32_t print_grey(uint32_t c)
{
    double v = 0.30 * ((c >> 16) & 0xff) + 0.59 * ((c >> 8) & 0xff) + 0.11 * (c & 0xff);
    uint32_t g = (uint32_t)(v + 0.5);
    if (g > 255) g = 255;
    return g << 16 | g << 8 | g;
}

double print_contrast_grey(uint32_t a, uint32_t b)
{
    return print_contrast(print_grey(a), print_grey(b));
}

void print_opts_default(struct print_opts *o)
{
    memset(o, 0, sizeof *o);
}

bool print_opts_hides(const struct print_opts *o, double x)
{
    for (size_t i = 0; i < o->nhide; i++)
        if (fabs(x - o->hide[i]) <= 0.01 * fabs(o->hide[i])) return true;
    return false;
}

/* ---- drawing primitives ------------------------------------------------------------- */

void pd_rgb(cairo_t *cr, uint32_t c)
{
    cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
                         (c & 0xff) / 255.0);
}

void pd_pair(struct pd *d, uint32_t fg, uint32_t bg)
{
    struct print_pic *p = d->pic;
    for (size_t i = 0; i < p->npairs; i++)
        if (p->pair[i].fg == fg && p->pair[i].bg == bg) return;
    if (p->npairs < PRINT_MAX_PAIRS) p->pair[p->npairs++] = (struct print_pair){fg, bg};
}

/* Few sizes: cairo's SVG holds one set of glyph outlines per font and size, so every size
 * saved makes each inline picture of a handout smaller. None under 8.5: two slides to a
 * page the handout draws a frame at 0.72, and 8.5 x 0.72 is still over 6 points. */
static double pd_size(double size, int style)
{
    if (style & PD_MONO) return 9.5; /* the values (PD_VALUE_PT) and the legend's dot */
    if (size >= 11.5) return 12;
    if (size >= 9.75) return 10;
    return 8.5;
}

PangoLayout *pd_layout(struct pd *d, const char *t, double size, int style, double maxw)
{
    size = pd_size(size, style);
    PangoLayout *l = pango_cairo_create_layout(d->cr);
    /* Unhinted metrics: the picture is measured on a recording surface and drawn on a PDF,
     * SVG or image one, whose default hinting differs; hinted widths once wrapped a line
     * on paper that fit when measured, and the crop cut the picture's last line. */
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(pango_layout_get_context(l), fo);
    cairo_font_options_destroy(fo);
    pango_layout_context_changed(l);
    PangoFontDescription *f = pango_font_description_from_string(
        style & PD_MONO ? "DejaVu Sans Mono" : "DejaVu Sans");
    pango_font_description_set_absolute_size(f, size * PANGO_SCALE);
    if (style & PD_BOLD) pango_font_description_set_weight(f, PANGO_WEIGHT_BOLD);
    if (style & PD_ITALIC) pango_font_description_set_style(f, PANGO_STYLE_ITALIC);
    pango_layout_set_font_description(l, f);
    pango_font_description_free(f);
    if (maxw > 0) {
        pango_layout_set_width(l, (int)(maxw * PANGO_SCALE));
        pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
    }
    pango_layout_set_text(l, t, -1);
    return l;
}

void pd_measure(struct pd *d, const char *t, double size, int style, double *w, double *h)
{
    PangoLayout *l = pd_layout(d, t, size, style, 0);
    int pw, ph;
    pango_layout_get_size(l, &pw, &ph);
    *w = (double)pw / PANGO_SCALE;
    *h = (double)ph / PANGO_SCALE;
    g_object_unref(l);
}

/* Draw t with its top at y; x is its left edge, centre or right edge by align. maxw > 0
 * wraps. Returns the height used; *wout (may be NULL) the width. */
double pd_text(struct pd *d, double x, double y, const char *t, double size, int style,
               uint32_t fg, uint32_t bg, double maxw, int align, double *wout)
{
    PangoLayout *l = pd_layout(d, t, size, style, maxw);
    int pw, ph;
    pango_layout_get_size(l, &pw, &ph);
    double w = (double)pw / PANGO_SCALE, h = (double)ph / PANGO_SCALE;
    if (maxw > 0) {
        PangoRectangle ink, log;
        pango_layout_get_extents(l, &ink, &log);
        w = (double)log.width / PANGO_SCALE;
    }
    double left = align == PD_CENTRE ? x - w / 2 : align == PD_RIGHT ? x - w : x;
    pd_rgb(d->cr, fg);
    cairo_move_to(d->cr, left, y);
    pango_cairo_show_layout(d->cr, l);
    g_object_unref(l);
    pd_pair(d, fg, bg);
    if (d->pic->opts.on_text) d->pic->opts.on_text(d->pic->opts.text_ctx, t);
    double pt = pd_size(size, style);
    if (d->pic->min_pt <= 0 || pt < d->pic->min_pt) d->pic->min_pt = pt;
    if (wout) *wout = w;
    return h;
}

void pd_rect(struct pd *d, double x, double y, double w, double h, uint32_t fill)
{
    cairo_rectangle(d->cr, x, y, w, h);
    pd_rgb(d->cr, fill);
    cairo_fill(d->cr);
}

void pd_frame(struct pd *d, double x, double y, double w, double h, uint32_t c, double lw)
{
    cairo_rectangle(d->cr, x, y, w, h);
    pd_rgb(d->cr, c);
    cairo_set_line_width(d->cr, lw);
    cairo_stroke(d->cr);
}

void pd_head(struct pd *d, double x, double y, double dx, double dy, uint32_t c)
{
    const double len = 5.5, half = 2.8;
    cairo_new_path(d->cr);
    cairo_move_to(d->cr, x, y);
    cairo_line_to(d->cr, x - dx * len - dy * half, y - dy * len + dx * half);
    cairo_line_to(d->cr, x - dx * len + dy * half, y - dy * len - dx * half);
    cairo_close_path(d->cr);
    pd_rgb(d->cr, c);
    cairo_fill(d->cr);
}

double pd_badge(struct pd *d, double cx, double cy, int n, uint32_t ink)
{
    char t[16];
    snprintf(t, sizeof t, "%d", n);
    double w, h;
    pd_measure(d, t, 8.5, PD_BOLD, &w, &h);
    double r = (w > h * 0.75 ? w : h * 0.75) / 2 + 1.0;
    cairo_new_path(d->cr);
    cairo_arc(d->cr, cx, cy, r, 0, 2 * M_PI);
    pd_rgb(d->cr, d->th->bg);
    cairo_fill_preserve(d->cr);
    pd_rgb(d->cr, ink);
    cairo_set_line_width(d->cr, 0.9);
    cairo_stroke(d->cr);
    pd_text(d, cx, cy - h / 2, t, 8.5, PD_BOLD, ink, d->th->bg, 0, PD_CENTRE, NULL);
    return 2 * r;
}

/* ---- ranks -------------------------------------------------------------------------- */

uint32_t pd_rank_fill(const struct pd *d, int r)
{
    return d->th->rank_fill[r % PRINT_RANK_COLOURS];
}

uint32_t pd_rank_text(const struct pd *d, int r)
{
    return d->th->rank_text[r % PRINT_RANK_COLOURS];
}

uint32_t pd_rank_ink(const struct pd *d, int r)
{
    return d->th->rank_ink[r % PRINT_RANK_COLOURS];
}

void pd_rank_pairs(struct pd *d, int r, uint32_t fg)
{
    pd_pair(d, fg, pd_rank_fill(d, r));
    if (r % PRINT_RANK_COLOURS) pd_pair(d, fg, d->th->rank_hatch[r % PRINT_RANK_COLOURS]);
}

/* Lines across (x, y, w, h) at `angle` (0: horizontal, 90: vertical, 45: /, 135: \), one
 * every `gap` points. */
static void pd_lines(cairo_t *cr, double x, double y, double w, double h, int angle, double gap)
{
    if (angle == 0)
        for (double yy = y + gap / 2; yy < y + h; yy += gap) {
            cairo_move_to(cr, x, yy);
            cairo_line_to(cr, x + w, yy);
        }
    else if (angle == 90)
        for (double xx = x + gap / 2; xx < x + w; xx += gap) {
            cairo_move_to(cr, xx, y);
            cairo_line_to(cr, xx, y + h);
        }
    else
        for (double k = -h; k < w + h; k += gap) {
            /* anchored at the page's origin, so hatching lines up across cells */
            double x0 = floor((x - h) / gap) * gap + k;
            if (angle == 45) {
                cairo_move_to(cr, x0, y + h);
                cairo_line_to(cr, x0 + h, y);
            } else {
                cairo_move_to(cr, x0, y);
                cairo_line_to(cr, x0 + h, y + h);
            }
        }
}

/* Rank r's hatching over (x, y, w, h): none, /, -, \\, dots, x, |, + by r mod 8 (ranks
 * two apart share a luminance: their hatchings differ most, and survive a copier). */
static void pd_hatch(struct pd *d, double x, double y, double w, double h, int r)
{
    int k = r % PRINT_RANK_COLOURS;
    if (k == 0) return;
    cairo_t *cr = d->cr;
    cairo_save(cr);
    cairo_new_path(cr);
    cairo_rectangle(cr, x, y, w, h);
    cairo_clip(cr);
    cairo_new_path(cr);
    pd_rgb(cr, d->th->rank_hatch[k]);
    cairo_set_line_width(cr, 0.9);
    const double gap = 3.6;
    switch (k) {
    case 1:
        pd_lines(cr, x, y, w, h, 45, gap);
        break;
    case 2:
        pd_lines(cr, x, y, w, h, 0, gap);
        break;
    case 3:
        pd_lines(cr, x, y, w, h, 135, gap);
        break;
    case 5:
        pd_lines(cr, x, y, w, h, 45, gap * 1.4);
        pd_lines(cr, x, y, w, h, 135, gap * 1.4);
        break;
    case 6:
        pd_lines(cr, x, y, w, h, 90, gap);
        break;
    case 7:
        pd_lines(cr, x, y, w, h, 0, gap * 1.4);
        pd_lines(cr, x, y, w, h, 90, gap * 1.4);
        break;
    default: /* 4: dots */
        for (double yy = floor(y / 4.0) * 4.0 + 2.0; yy < y + h + 1; yy += 4.0)
            for (double xx = floor(x / 4.0) * 4.0 + 2.0; xx < x + w + 1; xx += 4.0) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, xx, yy, 1.1, 0, 2 * M_PI);
            }
        cairo_fill(cr);
        break;
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

void pd_rank_cell(struct pd *d, double x, double y, double w, double h, int r)
{
    pd_rect(d, x, y, w, h, pd_rank_fill(d, r));
    pd_hatch(d, x, y, w, h, r);
}

void pd_rank_dash(struct pd *d, int r)
{
    static const double dashed[] = {4.0, 2.0}, dotted[] = {1.2, 1.6},
                        dashdot[] = {4.0, 1.5, 1.2, 1.5};
    switch (r % 4) {
    case 1:
        cairo_set_dash(d->cr, dashed, 2, 0);
        break;
    case 2:
        cairo_set_dash(d->cr, dotted, 2, 0);
        break;
    case 3:
        cairo_set_dash(d->cr, dashdot, 4, 0);
        break;
    default:
        cairo_set_dash(d->cr, NULL, 0, 0);
    }
}

void pd_partial_mark(struct pd *d, double x, double y)
{
    cairo_new_path(d->cr);
    cairo_move_to(d->cr, x, y);
    cairo_line_to(d->cr, x + 6, y);
    cairo_line_to(d->cr, x, y + 6);
    cairo_close_path(d->cr);
    pd_rgb(d->cr, d->th->ink);
    cairo_fill(d->cr);
}

double pd_rank_legend(struct pd *d, double y, int nranks, double maxw, const char *lead,
                      const char *prefix)
{
    double lw, x;
    pd_text(d, 0, y, lead, 8.5, PD_BOLD, d->th->ink, d->th->bg, 0, PD_LEFT, &lw);
    x = lw + 8;
    for (int r = 0; r < nranks && r < PRINT_RANK_COLOURS; r++) {
        char t[16];
        snprintf(t, sizeof t, "%s%d", prefix, r);
        double w, h;
        pd_measure(d, t, 8.5, PD_PLAIN, &w, &h);
        if (x + 20 + w > maxw && x > lw + 8) {
            x = lw + 8;
            y += 15;
        }
        pd_rank_cell(d, x, y + 0.5, 16, 11, r);
        pd_frame(d, x, y + 0.5, 16, 11, d->th->dim, 0.5);
        pd_text(d, x + 20, y, t, 8.5, PD_PLAIN, pd_rank_ink(d, r), d->th->bg, 0, PD_LEFT, &w);
        x += 20 + w + 10;
    }
    if (nranks > PRINT_RANK_COLOURS)
        pd_text(d, x, y, "(fills repeat every 8 ranks: read the labels)", 8.5, PD_ITALIC,
                d->th->dim, d->th->bg, 0, PD_LEFT, NULL);
    d->pic->elems |= PE_LEGEND;
    return y + 16;
}

/* ---- the hierarchy screen ------------------------------------------------------------ */

/* The tier table: every tier with what it connects and the lecture's figure. */
static void pd_hierarchy(struct pd *d, const struct scene *sc)
{
    double maxw = 480;
    double y = pd_text(d, 0, 0, "The memory and link hierarchy, fastest first", 12, PD_BOLD,
                       d->th->ink, d->th->bg, maxw, PD_LEFT, NULL) +
               2;
    y += pd_text(d, 0, y,
                 "The lecture's figures, the same table as the screen's (the screen adds "
                 "this machine's measured ones).",
                 8.5, PD_ITALIC, d->th->dim, d->th->bg, maxw, PD_LEFT, NULL) +
         6;
    static const char *const head[] = {"tier", "connects", "bandwidth (lecture's figure)"};
    const double colx[] = {0, 140, 330}, colw[] = {136, 186, 150};
    for (int k = 0; k < 3; k++)
        pd_text(d, colx[k] + 4, y, head[k], 9, PD_BOLD, d->th->ink, d->th->bg, colw[k], PD_LEFT,
                NULL);
    y += 14;
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct tier *ti = tier_get((enum tier_id)t);
        const char *cell[] = {ti->name, ti->connects, ti->bw_text};
        double h = 0;
        for (int k = 0; k < 3; k++) {
            double w, hh;
            PangoLayout *l = pd_layout(d, cell[k], 8.5, PD_PLAIN, colw[k] - 6);
            int pw, ph;
            pango_layout_get_size(l, &pw, &ph);
            g_object_unref(l);
            (void)w;
            hh = (double)ph / PANGO_SCALE;
            if (hh > h) h = hh;
        }
        uint32_t fill = t % 2 ? d->th->bg : d->th->empty;
        pd_rect(d, 0, y, colx[2] + colw[2], h + 6, fill);
        for (int k = 0; k < 3; k++)
            pd_text(d, colx[k] + 4, y + 3, cell[k], 8.5, k == 0 ? PD_BOLD : PD_PLAIN,
                    d->th->cell_ink, fill, colw[k] - 6, PD_LEFT, NULL);
        y += h + 6;
    }
    (void)sc;
    d->pic->elems |= PE_TIERS;
    snprintf(d->pic->caption, sizeof d->pic->caption,
             "the memory and link hierarchy: every tier, fastest first, with the lecture's "
             "bandwidth");
}

/* ---- the picture -------------------------------------------------------------------- */

/* Draw sc into cr at the picture's own coordinates; records into p (pairs, step). */
static int pd_draw(cairo_t *cr, const struct scene *sc, const struct print_opts *o,
                   struct print_pic *p, char *err, size_t errlen)
{
    struct pd d = {.cr = cr, .th = print_theme_get(o->dark), .pic = p};
    if (sc->screen == SCREEN_COLLECTIVES) return pd_collectives(&d, sc, o, err, errlen);
    if (sc->screen == SCREEN_PARALLEL) return pd_parallel(&d, sc, err, errlen);
    pd_hierarchy(&d, sc);
    return CV_OK;
}

/* The drawing is measured on a recording surface (its ink extents crop it) and drawn again
 * onto each target: cairo 1.16 leaks when a recording surface is painted into a PDF. */
int print_pic_build(struct print_pic *p, const struct scene *sc, const struct print_opts *o,
                    char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    int rc = scene_check(sc, err, errlen);
    if (rc != CV_OK) return rc;
    if (o)
        p->opts = *o;
    else
        print_opts_default(&p->opts);
    p->sc = *sc;
    p->bg = print_theme_get(p->opts.dark)->bg;
    p->step = p->nsteps = -1;
    cairo_surface_t *rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
    cairo_t *cr = cairo_create(rec);
    rc = pd_draw(cr, &p->sc, &p->opts, p, err, errlen);
    cairo_destroy(cr);
    double x, y, w, h;
    cairo_recording_surface_ink_extents(rec, &x, &y, &w, &h);
    cairo_surface_destroy(rec);
    if (rc != CV_OK) return rc;
    const double m = 6;
    p->x = floor(x - m);
    p->y = floor(y - m);
    p->w = ceil(w + 2 * m);
    p->h = ceil(h + 2 * m);
    p->ok = true;
    return CV_OK;
}

void print_pic_free(struct print_pic *p)
{
    p->ok = false;
}

void print_pic_paint(const struct print_pic *p, cairo_t *cr, double x, double y, double scale)
{
    if (!p->ok) return;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, scale, scale);
    cairo_rectangle(cr, 0, 0, p->w, p->h);
    pd_rgb(cr, p->bg);
    cairo_fill(cr);
    cairo_translate(cr, -p->x, -p->y);
    struct print_pic scratch = *p; /* the same drawing again: what it records is dropped */
    char err[200];
    pd_draw(cr, &p->sc, &p->opts, &scratch, err, sizeof err);
    cairo_restore(cr);
}

static int pd_finish(cairo_surface_t *s, const struct print_pic *p, double scale, char *err,
                     size_t errlen)
{
    cairo_t *cr = cairo_create(s);
    print_pic_paint(p, cr, 0, 0, scale);
    cairo_destroy(cr);
    cairo_surface_flush(s);
    cairo_status_t st = cairo_surface_status(s);
    if (st != CAIRO_STATUS_SUCCESS)
        return cv_err(err, errlen, CV_EINVAL, "cairo: %s", cairo_status_to_string(st));
    return CV_OK;
}

static bool pd_ends(const char *s, const char *ext)
{
    size_t n = strlen(s), k = strlen(ext);
    return n >= k && strcasecmp(s + n - k, ext) == 0;
}

int print_pic_write(const struct print_pic *p, const char *path, char *err, size_t errlen)
{
    int rc;
    if (pd_ends(path, ".png")) {
        cairo_surface_t *s =
            cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)(p->w * 2), (int)(p->h * 2));
        rc = pd_finish(s, p, 2.0, err, errlen);
        if (rc == CV_OK && cairo_surface_write_to_png(s, path) != CAIRO_STATUS_SUCCESS)
            rc = cv_err(err, errlen, CV_EINVAL, "cannot write %s", path);
        cairo_surface_destroy(s);
        return rc;
    }
    cairo_surface_t *s = pd_ends(path, ".pdf") ? cairo_pdf_surface_create(path, p->w, p->h)
                                               : cairo_svg_surface_create(path, p->w, p->h);
    rc = pd_finish(s, p, 1.0, err, errlen);
    cairo_surface_finish(s);
    if (rc == CV_OK && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
        rc = cv_err(err, errlen, CV_EINVAL, "cannot write %s", path);
    cairo_surface_destroy(s);
    return rc;
}

struct pd_mem {
    char *s;
    size_t n, cap;
};

static cairo_status_t pd_mem_write(void *closure, const unsigned char *data, unsigned int len)
{
    struct pd_mem *m = closure;
    VEC_GROW(m->s, m->cap, m->n + len + 1);
    memcpy(m->s + m->n, data, len);
    m->n += len;
    m->s[m->n] = '\0';
    return CAIRO_STATUS_SUCCESS;
}

int print_pic_svg(const struct print_pic *p, char **out, size_t *len, char *err, size_t errlen)
{
    struct pd_mem m = {0};
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(pd_mem_write, &m, p->w, p->h);
    int rc = pd_finish(s, p, 1.0, err, errlen);
    cairo_surface_finish(s);
    cairo_surface_destroy(s);
    if (rc != CV_OK || !m.s) {
        free(m.s);
        return rc != CV_OK ? rc : cv_err(err, errlen, CV_EINVAL, "cairo wrote no SVG");
    }
    *out = m.s;
    *len = m.n;
    return CV_OK;
}

void print_release_fonts(void)
{
    pango_cairo_font_map_set_default(NULL);
}

/* LeakSanitizer (the ASan test builds) reads this: fontconfig keeps its configuration for
 * the life of the process and frees it only in FcFini, which cannot run while cairo's font
 * caches still hold its patterns. Nothing else is suppressed. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libfontconfig.so\n";
}

/* ... and says nothing of it on standard error (a command's errors stay one line). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "print_suppressions=0";
}
