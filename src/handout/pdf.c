/* pdf.c - the PDF handout (see pdf.h). The document is laid out twice with the
 * same code on the same kind of surface: the first pass draws nothing and only learns on
 * which page every slide lands, the second draws, so the table of contents on the first
 * page can give page numbers. Text is placed line by line, so a paragraph longer than what
 * is left of a page continues on the next one instead of being cut. */
#include "handout/pdf.h"

#include <errno.h>

#include <cairo-pdf.h>
#include <glib.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/util.h"
#include "handout/handout.h"
#include "handout/paper_text.h"
#include "lesson/exercise.h"

#define PDF_INK 0x1a1a1a
#define PDF_DIM 0x555555
#define PDF_BOX 0xf1f3f7 /* an exercise's background; PDF_INK on it is 15.8:1 */
#define PDF_RULE 0x9a9a9a
#define PDF_MARGIN 50.0
#define PDF_FOOTER 24.0
#define PDF_FRAME_GAP 18.0 /* between the two slides of a page */
#define PDF_TWO_SCALE 0.72 /* two per page: each slide's frame drawn at this scale */
/* No text on paper smaller than this (points on the page). Two to a page the frame is
 * drawn at PDF_TWO_SCALE, so no size below 8.5 is used in a frame (8.5 x 0.72 = 6.1); a
 * picture is placed at a scale that keeps its smallest text at this, or gets a page of
 * its own. */
#define PDF_MIN_PT 6.0

/* Where the drawn pass's bytes go: the file, counted, cut at HANDOUT_MAX_BYTES. */
struct pdoc_sink {
    FILE *f;
    size_t n;
    bool over;   /* the next write would have passed the bound */
    bool failed; /* the file could not be written */
};

struct pdoc {
    struct pdoc_sink *sink; /* the drawn pass's; NULL while laying out */
    int over_slide;         /* 1-based: the slide whose page passed the bound; 0 none */
    cairo_surface_t *surf;
    cairo_t *cr;
    bool draw;    /* the second pass */
    bool measure; /* measuring one slide's height: no page breaks, nothing drawn */
    double pw, ph, y;
    int page;
    /* A page holds `frames` frames (1, or 2 for two slides per page), one above the other;
     * the layout works in the frame's coordinates (origin at its top left, drawn at
     * `scale`), and a "new page" is the next frame. */
    int frames, frame;
    double scale;
    bool blank; /* nothing placed in this frame yet */
    const struct handout_opts *o;
    struct handout_meas *meas;
    const char *title;
    int *slide_page; /* per deck slide, from the first pass */
    int sol_page;
    size_t nex;            /* exercises in the deck */
    double pic_h;          /* >= 0: the height the slide being measured gives its picture */
    struct print_pic *pic; /* per deck slide; rec NULL = none */
    int lesson_no;         /* the lesson being laid out, 1-based in the set */
    bool *pic_ok;
    char (*pic_err)[200];
};

static double pdoc_w(const struct pdoc *d)
{
    return (d->pw - 2 * PDF_MARGIN) / d->scale;
}

/* The frame's height on the page, in points. */
static double pdoc_frame_h(const struct pdoc *d)
{
    double body = d->ph - 2 * PDF_MARGIN - PDF_FOOTER;
    return d->frames == 1 ? body : (body - PDF_FRAME_GAP) / 2;
}

static double pdoc_bottom(const struct pdoc *d)
{
    return pdoc_frame_h(d) / d->scale;
}

static double pdoc_frame_top(const struct pdoc *d)
{
    return PDF_MARGIN + d->frame * (pdoc_frame_h(d) + PDF_FRAME_GAP);
}

static void pdoc_apply(struct pdoc *d)
{
    cairo_identity_matrix(d->cr);
    cairo_translate(d->cr, PDF_MARGIN, pdoc_frame_top(d));
    cairo_scale(d->cr, d->scale, d->scale);
}

static void pdoc_rgb(cairo_t *cr, uint32_t c)
{
    cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
                         (c & 0xff) / 255.0);
}

static bool pdoc_drawing(const struct pdoc *d)
{
    return d->draw && !d->measure;
}

/* The title, at most this many columns of it, then the page number: a long title ends in
 * an ellipsis on a character boundary, and the page number is always there. */
#define PDF_FOOTER_TITLE_COLS 90

static void pdoc_footer(struct pdoc *d)
{
    char title[PDF_FOOTER_TITLE_COLS * 4 + 8], t[sizeof title + 40];
    text_fit(title, sizeof title, d->title, PDF_FOOTER_TITLE_COLS, true);
    snprintf(t, sizeof t, "%s \u00b7 page %d", title, d->page);
    PangoLayout *l = pango_cairo_create_layout(d->cr);
    PangoFontDescription *f = pango_font_description_from_string("DejaVu Sans 7.5");
    pango_layout_set_font_description(l, f);
    pango_font_description_free(f);
    pango_layout_set_text(l, t, -1);
    int w, h;
    pango_layout_get_size(l, &w, &h);
    cairo_save(d->cr);
    cairo_identity_matrix(d->cr);
    pdoc_rgb(d->cr, PDF_DIM);
    cairo_move_to(d->cr, (d->pw - (double)w / PANGO_SCALE) / 2, d->ph - PDF_MARGIN);
    pango_cairo_show_layout(d->cr, l);
    cairo_restore(d->cr);
    g_object_unref(l);
}

/* The next frame: the lower half of this page, or a new page. */
static void pdoc_newpage(struct pdoc *d)
{
    if (d->measure) return;
    if (d->frame + 1 < d->frames) {
        d->frame++;
        if (d->draw) {
            double y = pdoc_frame_top(d) - PDF_FRAME_GAP / 2;
            cairo_save(d->cr);
            cairo_identity_matrix(d->cr);
            pdoc_rgb(d->cr, PDF_RULE);
            cairo_set_line_width(d->cr, 0.6);
            cairo_set_dash(d->cr, (double[]){4, 3}, 2, 0);
            cairo_move_to(d->cr, PDF_MARGIN, y);
            cairo_line_to(d->cr, d->pw - PDF_MARGIN, y);
            cairo_stroke(d->cr);
            cairo_restore(d->cr);
        }
    } else {
        if (d->draw) {
            pdoc_footer(d);
            cairo_show_page(d->cr);
        }
        d->page++;
        d->frame = 0;
    }
    d->y = 0;
    d->blank = true;
    pdoc_apply(d);
}

/* From the next page on, n frames a page. */
static void pdoc_set_frames(struct pdoc *d, int n)
{
    d->frame = d->frames - 1; /* the next frame is a new page */
    pdoc_newpage(d);
    d->frames = n;
    d->scale = n == 2 ? PDF_TWO_SCALE : 1.0;
    pdoc_apply(d);
}

/* Room for h more points on this page, or a new page. */
static void pdoc_need(struct pdoc *d, double h)
{
    if (d->measure || d->blank) return;
    if (d->y + h > pdoc_bottom(d)) pdoc_newpage(d);
}

/* Measuring what a part takes: drawn nowhere, without page breaks, from y = 0. */
struct pdoc_save {
    double y;
    bool blank, measure;
};

static struct pdoc_save pdoc_measure_begin(struct pdoc *d)
{
    struct pdoc_save s = {d->y, d->blank, d->measure};
    d->measure = true;
    d->y = 0;
    return s;
}

static double pdoc_measure_end(struct pdoc *d, struct pdoc_save s)
{
    double h = d->y;
    d->y = s.y;
    d->blank = s.blank;
    d->measure = s.measure;
    return h;
}

/* ---- text --------------------------------------------------------------------------- */

/* Append s to the markup m, escaped, as valid UTF-8 without control characters (C0, DEL
 * and C1): a lesson's text is never markup. */
static void pdoc_esc(GString *m, const char *s)
{
    gchar *v = g_utf8_make_valid(s ? s : "", -1);
    GString *clean = g_string_new(NULL);
    for (const gchar *p = v; *p; p = g_utf8_next_char(p)) {
        gunichar c = g_utf8_get_char(p);
        if (c < 0x20 || (c >= 0x7f && c < 0xa0))
            g_string_append_c(clean, ' ');
        else
            g_string_append_unichar(clean, c);
    }
    gchar *e = g_markup_escape_text(clean->str, -1);
    g_string_append(m, e);
    g_free(e);
    g_string_free(clean, TRUE);
    g_free(v);
}

static PangoLayout *pdoc_layout(struct pdoc *d, const char *markup, double size, bool mono,
                                double width)
{
    PangoLayout *l = pango_cairo_create_layout(d->cr);
    PangoFontDescription *f =
        pango_font_description_from_string(mono ? "DejaVu Sans Mono" : "DejaVu Sans");
    pango_font_description_set_absolute_size(f, size * PANGO_SCALE);
    pango_layout_set_font_description(l, f);
    pango_font_description_free(f);
    pango_layout_set_width(l, (int)(width * PANGO_SCALE));
    pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_markup(l, markup, -1);
    return l;
}

/* Place markup line by line at x = margin + indent, then leave `gap`. */
static void pdoc_markup(struct pdoc *d, const char *markup, double size, bool mono,
                        double indent, double gap, uint32_t colour)
{
    PangoLayout *l = pdoc_layout(d, markup, size, mono, pdoc_w(d) - indent);
    PangoLayoutIter *it = pango_layout_get_iter(l);
    do {
        PangoRectangle log;
        pango_layout_iter_get_line_extents(it, NULL, &log);
        double lh = (double)log.height / PANGO_SCALE;
        double base = (double)(pango_layout_iter_get_baseline(it) - log.y) / PANGO_SCALE;
        pdoc_need(d, lh);
        if (pdoc_drawing(d)) {
            pdoc_rgb(d->cr, colour);
            cairo_move_to(d->cr, indent + (double)log.x / PANGO_SCALE, d->y + base);
            pango_cairo_show_layout_line(d->cr, pango_layout_iter_get_line_readonly(it));
        }
        d->y += lh;
        d->blank = false;
    } while (pango_layout_iter_next_line(it));
    pango_layout_iter_free(it);
    g_object_unref(l);
    d->y += gap;
}

static void pdoc_plain(struct pdoc *d, const char *text, double size, double indent, double gap,
                       uint32_t colour, const char *wrap_open, const char *wrap_close)
{
    GString *m = g_string_new(wrap_open);
    pdoc_esc(m, text);
    g_string_append(m, wrap_close);
    pdoc_markup(d, m->str, size, false, indent, gap, colour);
    g_string_free(m, TRUE);
}

/* A narration block as markup: its spans with their styles. */
static void pdoc_spans(GString *m, const struct lesson_block *b)
{
    for (size_t i = 0; i < b->nspans; i++) {
        const struct lesson_span *sp = &b->spans[i];
        if (sp->hard_break) g_string_append_c(m, '\n');
        if (sp->style & LSPAN_BOLD) g_string_append(m, "<b>");
        if (sp->style & LSPAN_ITALIC) g_string_append(m, "<i>");
        if (sp->style & LSPAN_CODE) g_string_append(m, "<tt>");
        pdoc_esc(m, sp->text);
        if (sp->style & LSPAN_CODE) g_string_append(m, "</tt>");
        if (sp->style & LSPAN_ITALIC) g_string_append(m, "</i>");
        if (sp->style & LSPAN_BOLD) g_string_append(m, "</b>");
    }
}

static void pdoc_block(struct pdoc *d, const struct lesson_block *b)
{
    GString *m = g_string_new(NULL);
    double indent = 0, size = 10.5, gap = 6;
    bool mono = false;
    switch (b->kind) {
    case LBLOCK_ITEM:
        indent = 14.0 * b->depth;
        if (b->first && b->ordinal > 0)
            g_string_append_printf(m, "%d. ", b->ordinal);
        else if (b->first)
            g_string_append(m, "\u2022 ");
        gap = 3;
        break;
    case LBLOCK_QUOTE:
        indent = 14.0 * b->depth;
        g_string_append(m, "<i>");
        break;
    case LBLOCK_CODE:
        mono = true;
        size = 9;
        indent = 10;
        for (size_t i = 0; i < b->nspans; i++) {
            if (i) g_string_append_c(m, '\n');
            pdoc_esc(m, b->spans[i].text);
        }
        pdoc_markup(d, m->str, size, mono, indent, gap, PDF_INK);
        g_string_free(m, TRUE);
        return;
    case LBLOCK_HEADING:
        g_string_append(m, "<b>");
        size = 12;
        break;
    case LBLOCK_RULE:
        pdoc_need(d, 10);
        if (pdoc_drawing(d)) {
            pdoc_rgb(d->cr, PDF_RULE);
            cairo_set_line_width(d->cr, 0.6);
            cairo_move_to(d->cr, 0, d->y + 5);
            cairo_line_to(d->cr, pdoc_w(d), d->y + 5);
            cairo_stroke(d->cr);
        }
        d->y += 10;
        g_string_free(m, TRUE);
        return;
    case LBLOCK_PARAGRAPH:
        break;
    }
    pdoc_spans(m, b);
    if (b->kind == LBLOCK_QUOTE) g_string_append(m, "</i>");
    if (b->kind == LBLOCK_HEADING) g_string_append(m, "</b>");
    pdoc_markup(d, m->str, size, mono, indent, gap, PDF_INK);
    g_string_free(m, TRUE);
}

/* ---- pictures and exercises --------------------------------------------------------- */

static double pdoc_body_h(const struct pdoc *d)
{
    return pdoc_bottom(d);
}

/* The picture at scale s, its top at the current y, framed. */
static void pdoc_picture_at(struct pdoc *d, const struct print_pic *p, double s)
{
    pdoc_need(d, p->h * s + 4);
    if (pdoc_drawing(d)) {
        print_pic_paint(p, d->cr, 0, d->y, s);
        pdoc_rgb(d->cr, PDF_RULE);
        cairo_set_line_width(d->cr, 0.5);
        cairo_rectangle(d->cr, 0, d->y, p->w * s, p->h * s);
        cairo_stroke(d->cr);
    }
    d->y += p->h * s + 4;
    d->blank = false;
}

/* The largest scale, at most `most`, at which p fits the frame's width and height h. */
static double pdoc_fit(const struct pdoc *d, const struct print_pic *p, double h, double most)
{
    double s = most;
    if (p->w * s > pdoc_w(d)) s = pdoc_w(d) / p->w;
    if (p->h * s > h) s = h / p->h;
    return s;
}

static void pdoc_picture(struct pdoc *d, const struct print_pic *p, double maxh)
{
    pdoc_picture_at(d, p, pdoc_fit(d, p, maxh, 1.0));
}

/* A slide's picture: at its natural size when it fits maxh, never so small that its
 * smallest text falls under PDF_MIN_PT on the page: then it takes the frame's whole
 * height, and where even that is too small (two to a page, eight ranks), a page of its
 * own. Returns true when it got a page of its own (the caller goes back to two a page). */
static bool pdoc_slide_picture(struct pdoc *d, const struct print_pic *p, double maxh)
{
    double need = PDF_MIN_PT / ((p->min_pt > 0 ? p->min_pt : PDF_MIN_PT) * d->scale);
    double most = need > 1 ? need : 1;
    double s = pdoc_fit(d, p, maxh, most);
    if (s < need && !d->measure) s = pdoc_fit(d, p, pdoc_body_h(d), most);
    if (s >= need || d->measure) {
        pdoc_picture_at(d, p, s);
        return false;
    }
    if (d->frames == 2) {
        pdoc_set_frames(d, 1);
    } else if (!d->blank) {
        pdoc_newpage(d);
    }
    need = PDF_MIN_PT / (p->min_pt > 0 ? p->min_pt : PDF_MIN_PT);
    pdoc_picture_at(d, p, pdoc_fit(d, p, pdoc_body_h(d) - 30, need > 1 ? need : 1));
    return d->o->per_page == 2;
}

/* Boxes to write a holds answer in, one per element, or a box for a worked answer. */
static void pdoc_answer_space(struct pdoc *d, const struct lesson_exercise *ex)
{
    double h = ex_type((int)ex->type)->paper_space;
    if (h == 0) return;
    pdoc_need(d, h + 6);
    if (pdoc_drawing(d)) {
        pdoc_rgb(d->cr, PDF_RULE);
        cairo_set_line_width(d->cr, 0.7);
        size_t L = ex_paper_boxes(ex);
        if (L) {
            double cw = 30;
            if (L * cw > pdoc_w(d) - 20) cw = (pdoc_w(d) - 20) / (double)L;
            for (size_t i = 0; i < L; i++)
                cairo_rectangle(d->cr, 10 + (double)i * cw, d->y + 8, cw - 3, 26);
        } else {
            cairo_rectangle(d->cr, 10, d->y + 2, pdoc_w(d) - 20, h);
        }
        cairo_stroke(d->cr);
    }
    d->y += h + 8;
}

static void pdoc_solution(struct pdoc *d, const struct lesson_exercise *ex, bool with_pic)
{
    if (!d->measure) { /* an answer and its picture stay on one page when they fit one */
        struct pdoc_save sv = pdoc_measure_begin(d);
        pdoc_solution(d, ex, with_pic);
        double h = pdoc_measure_end(d, sv);
        if (h < pdoc_body_h(d)) pdoc_need(d, h);
    }
    char ans[800];
    handout_answer_text(ex, ans, sizeof ans);
    GString *m = g_string_new("<b>Answer:</b> ");
    pdoc_esc(m, ans);
    pdoc_markup(d, m->str, 10, false, 10, 3, PDF_INK);
    g_string_free(m, TRUE);
    if (ex->solution) { /* the numbers, not the lesson's {= ...} */
        char *sol = ex_text(ex, NULL, ex->solution);
        pdoc_plain(d, sol, 9.5, 10, 4, PDF_INK, "", "");
        free(sol);
    }
    if (with_pic && ex_answer_form(ex) == EX_ANSWER_VALUES) { /* the asked box, shown */
        struct print_pic p;
        char err[200];
        if (handout_reveal_pic(ex, d->o->dark, &p, err, sizeof err) == CV_OK) {
            pdoc_picture(d, &p, pdoc_body_h(d) * 0.4);
            pdoc_plain(d, "The scene at the asked step, the asked rank highlighted.", 8.5, 0, 2,
                       PDF_DIM, "<i>", "</i>");
            print_pic_free(&p);
        }
    }
    d->y += 4;
}

static void pdoc_exercise(struct pdoc *d, const struct lesson_exercise *ex, int slide_no,
                          size_t k)
{
    if (!d->measure) { /* an exercise stays on one page when it fits one */
        struct pdoc_save sv = pdoc_measure_begin(d);
        pdoc_exercise(d, ex, slide_no, k);
        double h = pdoc_measure_end(d, sv);
        if (h < pdoc_body_h(d)) pdoc_need(d, h);
    }
    char *prompt = ex_prompt(ex, NULL); /* whole: never cut */
    GString *m = g_string_new(NULL);
    g_string_append_printf(m, "<b>Exercise %d.%zu</b>  <span size='smaller'><tt>", slide_no,
                           k + 1);
    pdoc_esc(m, ex->id);
    g_string_append(m, "</tt></span>");
    pdoc_need(d, 60);
    pdoc_markup(d, m->str, 10.5, false, 0, 2, PDF_INK);
    g_string_truncate(m, 0);
    pdoc_esc(m, prompt);
    free(prompt);
    char note[200];
    ex_paper_note(ex, true, note, sizeof note);
    if (note[0]) {
        g_string_append(m, " <i>(");
        pdoc_esc(m, note);
        g_string_append(m, ")</i>");
    }
    pdoc_markup(d, m->str, 10, false, 10, 3, PDF_INK);
    for (size_t i = 0; ex_type((int)ex->type)->lists_options && i < ex->noptions; i++) {
        g_string_truncate(m, 0);
        g_string_append_printf(m, "\u2610 %zu. ", i + 1);
        pdoc_esc(m, ex->options[i]);
        pdoc_markup(d, m->str, 10, false, 20, 2, PDF_INK);
    }
    g_string_free(m, TRUE);
    pdoc_answer_space(d, ex);
    if (d->o->solutions == SOL_INLINE) pdoc_solution(d, ex, true);
}

/* ---- slides ------------------------------------------------------------------------- */

static void pdoc_slide(struct pdoc *d, const struct lesson *l, size_t i, int no);

/* The height a slide's picture may take: at most about half the frame, and, two to a page,
 * what the rest of the slide leaves of its frame (not under 0.4 of it), so a slide and
 * its exercises share one half-page when they can. */
static double pdoc_pic_h(struct pdoc *d, const struct lesson *l, size_t i, int no)
{
    double body = pdoc_body_h(d), most = body * (d->frames == 2 ? 0.6 : 0.55);
    if (d->frames == 1) return most;
    struct pdoc_save sv = pdoc_measure_begin(d);
    d->pic_h = 0;
    pdoc_slide(d, l, i, no);
    d->pic_h = -1;
    double rest = pdoc_measure_end(d, sv) + 8;
    double h = body - rest;
    /* not under 0.4 of the frame: a tall picture (8 ranks) squeezed beside its exercises
     * became unreadable (2-3 pt digits); the exercises move on instead */
    return h > most ? most : h < body * 0.4 ? body * 0.4 : h;
}

/* The slide's heading: the deck's number (the presenter's), the title, the lesson's own
 * number; and a PDF outline entry. */
static void pdoc_heading(struct pdoc *d, const struct lesson_slide *s, size_t i, int no)
{
    GString *m = g_string_new(NULL);
    g_string_append_printf(m, "<span foreground='#555555'>%d</span>  <b>", no);
    pdoc_esc(m, s->title);
    char own[64];
    handout_own_number(d->lesson_no, i, own, sizeof own);
    g_string_append_printf(m, "</b>  <span foreground='#555555' size='smaller'>%s</span>", own);
    pdoc_need(d, 80);
    if (pdoc_drawing(d)) {
        char dest[64];
        snprintf(dest, sizeof dest, "page=%d pos=[0 %.0f]", d->page,
                 pdoc_frame_top(d) + d->y * d->scale);
        char name[400];
        snprintf(name, sizeof name, "%d %s", no, s->title ? s->title : "");
        gchar *v = g_utf8_make_valid(name, -1);
        cairo_pdf_surface_add_outline(d->surf, CAIRO_PDF_OUTLINE_ROOT, v, dest, 0);
        g_free(v);
    }
    pdoc_markup(d, m->str, 14, false, 0, 6, PDF_INK);
    g_string_free(m, TRUE);
}

/* The slide's narration as paper prints it: without the sentences that name a key. */
static void pdoc_narration(struct pdoc *d, const struct lesson_slide *s)
{
    for (size_t b = 0; b < s->nblocks; b++) {
        struct lesson_block pb;
        if (!paper_text_block(&s->blocks[b], &pb)) continue;
        pdoc_block(d, &pb);
        paper_text_block_free(&pb);
    }
}

/* The slide's scene drawn for paper, with its caption in words; what was measured. */
static void pdoc_scene(struct pdoc *d, const struct lesson *l, size_t i, int no)
{
    const struct lesson_slide *s = &l->slides[i];
    const struct print_pic *p = &d->pic[no - 1];
    if (d->pic_ok[no - 1]) {
        double maxh = d->pic_h >= 0 ? d->pic_h : pdoc_pic_h(d, l, i, no);
        bool own_page = pdoc_slide_picture(d, p, maxh);
        pdoc_plain(d, p->caption, 8.5, 0, 6, PDF_DIM, "<i>Picture: ", ".</i>");
        if (own_page) pdoc_set_frames(d, 2);
    } else {
        pdoc_plain(d, d->pic_err[no - 1], 9, 0, 6, PDF_DIM, "<i>No picture: ", "</i>");
    }
    if (handout_about_measurement(s) && !d->o->notes) {
        char t[800];
        handout_meas_text(d->meas, &s->scene, t, sizeof t);
        pdoc_plain(d, t, 9, 0, 6, PDF_INK, "<b>On this machine.</b> ", "");
    }
}

/* The speaker's copy of a slide: its notes (the keys as the presenter shows them), then
 * each exercise's prompt, answer and solution. */
static void pdoc_speaker(struct pdoc *d, const struct lesson_slide *s, int no)
{
    if (s->notes && s->notes[0]) {
        pdoc_plain(d, "Speaker notes", 10.5, 0, 2, PDF_INK, "<b>", "</b>");
        char *note = xmalloc(8192);
        if (d->o->note_keys)
            d->o->note_keys(s, s->notes, note, 8192);
        else
            snprintf(note, 8192, "%s", s->notes);
        for (char *line = note, *next; line; line = next) {
            next = strchr(line, '\n');
            if (next) *next++ = '\0';
            if (line[0]) pdoc_plain(d, line, 10, 10, 3, PDF_INK, "", "");
        }
        free(note);
        d->y += 4;
    } else {
        pdoc_plain(d, "No speaker notes on this slide.", 9, 0, 6, PDF_DIM, "<i>", "</i>");
    }
    for (size_t k = 0; k < s->nex; k++) {
        char *prompt = ex_prompt(&s->ex[k], NULL); /* whole: never cut */
        GString *m = g_string_new(NULL);
        g_string_append_printf(m, "<b>Exercise %d.%zu</b>  ", no, k + 1);
        pdoc_esc(m, prompt);
        free(prompt);
        pdoc_need(d, 60);
        pdoc_markup(d, m->str, 10, false, 0, 2, PDF_INK);
        g_string_free(m, TRUE);
        pdoc_solution(d, &s->ex[k], true);
    }
}

static void pdoc_slide(struct pdoc *d, const struct lesson *l, size_t i, int no)
{
    const struct lesson_slide *s = &l->slides[i];
    if (i == 0) {
        pdoc_plain(d, l->title, 17, 0, 2, PDF_INK, "<b>", "</b>");
        if (l->minutes > 0) {
            char t[64];
            snprintf(t, sizeof t, "About %d minutes.", l->minutes);
            pdoc_plain(d, t, 9, 0, 4, PDF_DIM, "<i>", "</i>");
        }
        d->y += 4;
    }
    pdoc_heading(d, s, i, no);
    if (!d->o->notes) pdoc_narration(d, s);
    if (s->has_scene) pdoc_scene(d, l, i, no);
    if (d->o->notes) {
        pdoc_speaker(d, s, no);
        return;
    }
    for (size_t k = 0; k < s->nex; k++)
        pdoc_exercise(d, &s->ex[k], no, k);
}

/* Every slide starts in a frame of its own (a page, or half of one). */
static void pdoc_place(struct pdoc *d)
{
    if (!d->blank) pdoc_newpage(d);
}

/* ---- first page and solutions ------------------------------------------------------- */

static bool pdoc_solutions_at_end(const struct pdoc *d)
{
    return d->o->solutions == SOL_END && d->nex > 0 && !d->o->notes;
}

static void pdoc_toc_line(struct pdoc *d, const char *num, const char *title, int page,
                          bool bold)
{
    GString *m = g_string_new(bold ? "<b>" : "");
    pdoc_esc(m, title);
    g_string_append(m, bold ? "</b>" : "");
    PangoLayout *l = pdoc_layout(d, m->str, 9.5, false, pdoc_w(d) - 70);
    int w, h;
    pango_layout_get_size(l, &w, &h);
    double lh = (double)h / PANGO_SCALE;
    pdoc_need(d, lh);
    if (pdoc_drawing(d)) {
        pdoc_rgb(d->cr, PDF_INK);
        cairo_move_to(d->cr, 32, d->y);
        pango_cairo_show_layout(d->cr, l);
        char t[32];
        snprintf(t, sizeof t, "%d", page);
        const char *cols[2] = {num, page > 0 ? t : ""};
        for (int k = 0; k < 2; k++) {
            PangoLayout *n = pdoc_layout(d, cols[k], 9.5, false, 60);
            pango_layout_set_alignment(n, PANGO_ALIGN_RIGHT);
            pdoc_rgb(d->cr, k ? PDF_INK : PDF_DIM);
            cairo_move_to(d->cr, k ? pdoc_w(d) - 60 : -34, d->y);
            pango_cairo_show_layout(d->cr, n);
            g_object_unref(n);
        }
    }
    g_object_unref(l);
    g_string_free(m, TRUE);
    d->y += lh + 1.5;
    d->blank = false;
}

static void pdoc_front(struct pdoc *d, const struct lesson_set *set)
{
    pdoc_plain(d, d->title, 22, 0, 4, PDF_INK, "<b>", "</b>");
    char t[600];
    handout_meas_summary(d->meas, t, sizeof t);
    if (d->o->notes)
        pdoc_plain(d,
                   "The speaker's copy (collviz lesson export --notes): every slide's picture, "
                   "its speaker notes and its exercises' answers. Not for handing out. Slide "
                   "numbers are the presenter's; beside each, the lesson's own.",
                   9.5, 0, 2, PDF_DIM, "<b>", "</b>");
    else
        pdoc_plain(d,
                   "A handout written by collviz lesson export. Slide numbers are the "
                   "presenter's; beside each, the lesson's own.",
                   9.5, 0, 2, PDF_DIM, "", "");
    pdoc_plain(d, t, 9.5, 0, 12, PDF_DIM, "", "");
    pdoc_plain(d, "Contents", 14, 0, 6, PDF_INK, "<b>", "</b>");
    int no = 0;
    for (size_t k = 0; k < set->n; k++) {
        const struct lesson *l = &set->v[k];
        pdoc_toc_line(d, "", l->title, 0, true);
        for (size_t i = 0; i < l->nslides; i++) {
            char n[16];
            snprintf(n, sizeof n, "%d", no + 1);
            pdoc_toc_line(d, n, l->slides[i].title, d->slide_page[no], false);
            no++;
        }
        d->y += 4;
    }
    if (pdoc_solutions_at_end(d)) pdoc_toc_line(d, "", "Solutions", d->sol_page, true);
}

static void pdoc_solutions(struct pdoc *d, const struct lesson_set *set)
{
    pdoc_set_frames(d, 1);
    d->sol_page = d->page;
    pdoc_plain(d, "Solutions", 17, 0, 8, PDF_INK, "<b>", "</b>");
    int no = 0;
    for (size_t k = 0; k < set->n; k++)
        for (size_t i = 0; i < set->v[k].nslides; i++) {
            const struct lesson_slide *s = &set->v[k].slides[i];
            no++;
            for (size_t e = 0; e < s->nex; e++) {
                GString *m = g_string_new(NULL);
                g_string_append_printf(m, "<b>Exercise %d.%zu</b>  (slide %d, ", no, e + 1, no);
                pdoc_esc(m, s->title);
                g_string_append(m, ")");
                /* the heading goes with its answer: measured together, moved together
                 * (a heading alone at a page's foot, its answer overleaf, read as lost) */
                struct pdoc_save sv = pdoc_measure_begin(d);
                pdoc_markup(d, m->str, 10.5, false, 0, 2, PDF_INK);
                pdoc_solution(d, &s->ex[e], true);
                double h = pdoc_measure_end(d, sv);
                pdoc_need(d, h < pdoc_body_h(d) ? h : 50);
                pdoc_markup(d, m->str, 10.5, false, 0, 2, PDF_INK);
                g_string_free(m, TRUE);
                pdoc_solution(d, &s->ex[e], true);
            }
        }
}

/* ---- the document ------------------------------------------------------------------- */

static cairo_status_t pdoc_discard(void *closure, const unsigned char *data, unsigned int len)
{
    return CAIRO_STATUS_SUCCESS;
}

/* The bound: HANDOUT_MAX_BYTES; test builds (CV_TEST_HOOKS) only: a smaller one from
 * COLLVIZ_TEST_HANDOUT_MAX (bytes), so a test reaches it in seconds. */
static size_t pdoc_max_bytes(void)
{
#ifdef CV_TEST_HOOKS
    const char *e = getenv("COLLVIZ_TEST_HANDOUT_MAX");
    if (e && *e) return (size_t)strtoull(e, NULL, 10);
#endif
    return HANDOUT_MAX_BYTES;
}

static cairo_status_t pdoc_write(void *closure, const unsigned char *data, unsigned int len)
{
    struct pdoc_sink *k = closure;
    if (k->n + len > pdoc_max_bytes()) {
        k->over = true;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    k->n += len;
    if (fwrite(data, 1, len, k->f) != len) {
        k->failed = true;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static int pdoc_pass(struct pdoc *d, const struct lesson_set *set, const char *path)
{
    (void)path;
    d->surf = d->draw ? cairo_pdf_surface_create_for_stream(pdoc_write, d->sink, d->pw, d->ph)
                      : cairo_pdf_surface_create_for_stream(pdoc_discard, NULL, d->pw, d->ph);
    d->cr = cairo_create(d->surf);
    if (d->draw) {
        cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_TITLE, d->title);
        cairo_pdf_surface_set_metadata(d->surf, CAIRO_PDF_METADATA_CREATOR, "collviz");
    }
    d->page = 1;
    d->frames = 1;
    d->frame = 0;
    d->scale = 1.0;
    d->y = 0;
    d->blank = true;
    pdoc_apply(d);
    pdoc_front(d, set);
    pdoc_set_frames(d, d->o->per_page);
    int no = 0;
    for (size_t k = 0; k < set->n; k++)
        for (size_t i = 0; i < set->v[k].nslides; i++) {
            no++;
            d->lesson_no = (int)k + 1;
            if (d->sink && d->sink->over) break; /* a page before passed the bound */
            pdoc_place(d);
            d->slide_page[no - 1] = d->page;
            pdoc_slide(d, &set->v[k], i, no);
            if (d->sink && d->sink->over && !d->over_slide) d->over_slide = no;
        }
    if (d->sink && d->sink->over) {
        cairo_destroy(d->cr);
        cairo_surface_destroy(d->surf);
        return CV_ENOMEM;
    }
    if (pdoc_solutions_at_end(d)) pdoc_solutions(d, set);
    if (d->draw) pdoc_footer(d);
    cairo_destroy(d->cr);
    cairo_surface_finish(d->surf);
    cairo_status_t st = cairo_surface_status(d->surf);
    cairo_surface_destroy(d->surf);
    return st == CAIRO_STATUS_SUCCESS ? CV_OK : CV_EINVAL;
}

int print_pdf_write(const struct lesson_set *set, const struct handout_opts *o,
                    const char *path, char *err, size_t errlen)
{
    size_t n = 0;
    for (size_t k = 0; k < set->n; k++)
        n += set->v[k].nslides;
    struct handout_meas meas;
    handout_meas_init(&meas, o->backend);
    struct pdoc d = {
        .o = o,
        .meas = &meas,
        .pw = o->paper == PAPER_LETTER ? 612.0 : 595.276,
        .ph = o->paper == PAPER_LETTER ? 792.0 : 841.89,
        .title = set->n == 1 && set->v[0].title ? set->v[0].title : "collviz lessons",
        .pic_h = -1,
        .slide_page = xcalloc(n ? n : 1, sizeof(int)),
        .pic = xcalloc(n ? n : 1, sizeof(struct print_pic)),
        .pic_ok = xcalloc(n ? n : 1, sizeof(bool)),
        .pic_err = xcalloc(n ? n : 1, sizeof *d.pic_err),
    };
    gchar *title = g_utf8_make_valid(d.title, -1);
    d.title = title;
    size_t no = 0;
    for (size_t k = 0; k < set->n; k++)
        for (size_t i = 0; i < set->v[k].nslides; i++, no++) {
            const struct lesson_slide *s = &set->v[k].slides[i];
            d.nex += s->nex;
            if (s->has_scene)
                d.pic_ok[no] = handout_slide_pic(s, o->dark, &d.pic[no], d.pic_err[no],
                                                 sizeof d.pic_err[no]) == CV_OK;
        }
    int rc = pdoc_pass(&d, set, NULL);
    if (rc == CV_OK) {
        struct pdoc_sink sink = {.f = fopen(path, "wb")};
        if (!sink.f) {
            rc = cv_err(err, errlen, CV_EINVAL, "cannot write %s: %s", path, strerror(errno));
        } else {
            d.draw = true;
            d.sink = &sink;
            rc = pdoc_pass(&d, set, path);
            if (fclose(sink.f) != 0) sink.failed = true;
            if (sink.over) {
                /* the slide whose page passed it, and its lesson */
                size_t i = (size_t)(d.over_slide > 0 ? d.over_slide - 1 : 0), k = 0;
                while (k + 1 < set->n && i >= set->v[k].nslides)
                    i -= set->v[k++].nslides;
                const struct lesson *l = &set->v[k];
                if (i >= l->nslides) i = l->nslides ? l->nslides - 1 : 0;
                rc = cv_err(err, errlen, CV_EINVAL,
                            "the handout would pass %zu MiB (the most a handout may be) at "
                            "slide %zu of %s (line %d): split the lesson or use fewer scenes",
                            HANDOUT_MAX_BYTES >> 20, i + 1, l->path,
                            l->nslides ? l->slides[i].line : 0);
            } else if (rc != CV_OK || sink.failed) {
                rc = cv_err(err, errlen, CV_EINVAL, "cannot write %s", path);
            }
        }
    } else {
        cv_err(err, errlen, CV_EINVAL, "cairo could not lay out the handout");
    }
    for (size_t i = 0; i < n; i++)
        print_pic_free(&d.pic[i]);
    free(d.pic);
    free(d.pic_ok);
    free(d.pic_err);
    free(d.slide_page);
    g_free(title);
    handout_meas_close(&meas);
    return rc;
}
