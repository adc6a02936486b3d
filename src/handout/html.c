/* html.c - the lesson handout (see html.h). Narration HTML comes from md4c-html
 * with MD_FLAG_NOHTML, so a lesson's raw HTML is escaped, never interpreted; images would be
 * the only remote references md4c emits, so each <img> it writes becomes its alt text, and a
 * link stays a link only to http:, https:, mailto: or an #anchor (lesson_url_allowed): any
 * other (javascript:, data:, ...) becomes its text and its URL as text. The handout is built
 * in memory, at most EXPORT_MAX_BYTES, and written with every control character replaced. */
#include "handout/html.h"

#include <errno.h>
#include <md4c-html.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/util.h"
#include "core/vec.h"
#include "handout/handout.h"
#include "handout/paper_text.h"
#include "handout/pdf.h"
#include "lesson/exercise.h"

/* The largest handout written: the 13 lessons of lessons/ make about 9 MB together. */
#define EXPORT_MAX_BYTES HANDOUT_MAX_BYTES

static const char *const export_css =
    "body{font-family:system-ui,sans-serif;max-width:1240px;margin:2em auto;padding:0 1em;"
    "color:#1d1f24;line-height:1.5}"
    "section.slide{border-top:1px solid #ccd;padding:1em 0;page-break-inside:avoid}"
    "h2 .n{color:#556;font-weight:normal;margin-right:.4em}"
    "h2 .own{color:#556;font-weight:normal;font-size:.7em;margin-left:.6em}"
    "code{background:#eef;padding:0 .2em}"
    "figure{margin:1em 0}figure svg{max-width:100%;height:auto;border-radius:4px}"
    "figcaption{color:#556;font-size:.9em}svg text{white-space:pre}"
    "div.exercise{background:#f4f6fa;border-left:4px solid #568ce6;padding:.5em 1em;"
    "margin:1em 0}"
    "footer{color:#778;font-size:.85em;border-top:1px solid #ccd;padding-top:1em}";

struct export_buf {
    char *s;
    size_t n, cap;
};

static void export_append(const MD_CHAR *text, MD_SIZE size, void *user)
{
    struct export_buf *b = user;
    VEC_GROW(b->s, b->cap, b->n + size + 1);
    memcpy(b->s + b->n, text, size);
    b->n += size;
    b->s[b->n] = '\0';
}

/* An attribute value as a browser reads it: md4c writes &amp; &lt; &gt; &quot; and numeric
 * references; anything else is kept as written (and so fails lesson_url_allowed). */
static size_t export_attr_decode(const char *s, size_t n, char *out, size_t cap)
{
    static const struct {
        const char *name;
        char ch;
    } named[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap;) {
        if (s[i] == '&') {
            bool done = false;
            for (size_t k = 0; k < ARRAY_LEN(named) && !done; k++) {
                size_t l = strlen(named[k].name);
                if (i + l <= n && memcmp(s + i, named[k].name, l) == 0) {
                    out[o++] = named[k].ch;
                    i += l;
                    done = true;
                }
            }
            if (!done && i + 2 < n && s[i + 1] == '#') {
                char *end;
                bool hex = s[i + 2] == 'x' || s[i + 2] == 'X';
                unsigned long cp = strtoul(s + i + (hex ? 3 : 2), &end, hex ? 16 : 10);
                if (end < s + n && *end == ';' && cp < 0x80) {
                    out[o++] = (char)cp;
                    i = (size_t)(end - s) + 1;
                    done = true;
                }
            }
            if (done) continue;
        }
        out[o++] = s[i++];
    }
    out[o] = '\0';
    return o;
}

/* Write html to f with every <img ...> tag replaced by "[image: ALT]" (ALT is already
 * escaped by md4c), and every <a href="URL"> whose URL is not allowed replaced by its text
 * and " (URL)" (md4c links never nest, so the next </a> is its end). */
static void export_filter_html(FILE *f, const char *html)
{
    const char *p = html;
    const char *dropped = NULL; /* the href value of the link being shown as text */
    size_t dropped_n = 0;
    for (;;) {
        const char *img = strstr(p, "<img ");
        const char *a = strstr(p, "<a href=\"");
        const char *close = dropped ? strstr(p, "</a>") : NULL;
        const char *next = img;
        if (a && (!next || a < next)) next = a;
        if (close && (!next || close < next)) next = close;
        if (!next) {
            fputs(p, f);
            return;
        }
        fwrite(p, 1, (size_t)(next - p), f);
        if (next == close) {
            fputs(" (", f);
            fwrite(dropped, 1, dropped_n, f); /* attribute-escaped: safe as text */
            fputs(")", f);
            dropped = NULL;
            p = close + 4;
            continue;
        }
        if (next == a) {
            const char *v = a + 9, *q = strchr(v, '"'), *end = q ? strchr(q, '>') : NULL;
            if (!end) return; /* cannot happen with md4c's output; drop the rest */
            char url[2048];
            size_t n = export_attr_decode(v, (size_t)(q - v), url, sizeof url);
            if (lesson_url_allowed(url, n)) {
                fwrite(a, 1, (size_t)(end + 1 - a), f);
            } else {
                dropped = v;
                dropped_n = (size_t)(q - v);
            }
            p = end + 1;
            continue;
        }
        const char *end = strchr(img, '>');
        if (!end) return; /* cannot happen with md4c's output; drop the rest */
        const char *alt = strstr(img, " alt=\"");
        fputs("[image", f);
        if (alt && alt < end) {
            alt += 6;
            const char *q = strchr(alt, '"');
            if (q && q < end && q > alt) {
                fputs(": ", f);
                fwrite(alt, 1, (size_t)(q - alt), f);
            }
        }
        fputs("]", f);
        p = end + 1;
    }
}

static int export_markdown(FILE *f, const char *md, char *err, size_t errlen)
{
    struct export_buf b = {0};
    unsigned flags = MD_FLAG_NOHTML | MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH;
    if (md_html(md, (MD_SIZE)strlen(md), export_append, &b, flags, 0) != 0) {
        free(b.s);
        return cv_err(err, errlen, CV_EINVAL, "export: md4c could not render a slide");
    }
    if (b.s) { /* paper has no keys: the sentences that name one go (paper_text.h) */
        char *paper = paper_text_html(b.s);
        export_filter_html(f, paper);
        free(paper);
    }
    free(b.s);
    return CV_OK;
}

static void export_esc(FILE *f, const char *s)
{
    text_xml_escape(f, s ? s : "");
}

static void export_exercise(FILE *f, const struct lesson_exercise *ex)
{
    char *prompt = ex_prompt(ex, NULL); /* whole: never cut */
    fputs("<div class=\"exercise\"><strong>Exercise</strong> <code>", f);
    export_esc(f, ex->id);
    fputs("</code>: ", f);
    export_esc(f, prompt);
    free(prompt);
    char note[200];
    ex_paper_note(ex, false, note, sizeof note);
    if (note[0]) {
        fputs(" <em>(", f);
        export_esc(f, note);
        fputs(")</em>", f);
    }
    if (ex_type((int)ex->type)->lists_options) {
        fputs("<ol>", f);
        for (size_t i = 0; i < ex->noptions; i++) {
            fputs("<li>", f);
            export_esc(f, ex->options[i]);
            fputs("</li>", f);
        }
        fputs("</ol>", f);
    }
    fputs("</div>\n", f);
}

/* The slide's scene drawn for paper (handout.h), inline SVG, and what was measured. */
static void export_picture(FILE *f, const struct lesson_slide *s, int uniq,
                           const struct handout_opts *o, struct handout_meas *meas,
                           struct handout_glyphs *glyphs)
{
    struct print_pic p;
    char why[300];
    fputs("<figure>\n", f);
    if (handout_slide_pic(s, o->dark, &p, why, sizeof why) != CV_OK ||
        handout_inline_svg(f, &p, uniq, glyphs, why, sizeof why) != CV_OK) {
        fputs("<p class=\"noscene\"><em>No picture of this slide's scene: ", f);
        export_esc(f, why);
        fputs("</em></p>\n", f);
        p.ok = false;
    }
    if (p.ok) {
        fputs("<figcaption>Picture: ", f);
        export_esc(f, p.caption);
        fputs(".</figcaption>\n", f);
    }
    fputs("</figure>\n", f);
    print_pic_free(&p);
    if (handout_about_measurement(s)) {
        char t[800];
        handout_meas_text(meas, &s->scene, t, sizeof t);
        fputs("<p class=\"measured\"><strong>On this machine.</strong> ", f);
        export_esc(f, t);
        fputs("</p>\n", f);
    }
}

/* uniq: the slide's number in the deck, 1..N over the whole set, as the presenter
 * numbers it; beside the title, the lesson's own number. */
static int export_slide(FILE *f, const struct lesson *l, int lesson_no, size_t i, int uniq,
                        const struct handout_opts *o, struct handout_meas *meas,
                        struct handout_glyphs *glyphs, char *err, size_t errlen)
{
    const struct lesson_slide *s = &l->slides[i];
    char own[64];
    handout_own_number(lesson_no, i, own, sizeof own);
    fprintf(f,
            "<section class=\"slide\" id=\"%s-%zu\">\n<h2 id=\"slide-%d\"><span "
            "class=\"n\">%d</span>",
            l->id, i + 1, uniq, uniq);
    export_esc(f, s->title);
    fprintf(f, " <span class=\"own\">%s</span></h2>\n", own);
    int rc = export_markdown(f, s->markdown ? s->markdown : "", err, errlen);
    if (rc != CV_OK) return rc;
    if (s->has_scene) export_picture(f, s, uniq, o, meas, glyphs);
    for (size_t k = 0; k < s->nex; k++)
        export_exercise(f, &s->ex[k]);
    fputs("</section>\n", f);
    return CV_OK;
}

/* Copy the handout to out with every control character but '\n' and '\t' (md4c decodes
 * "&#27;" into a raw ESC; `lesson check` refuses those, this is the last guard), every C1
 * control and every byte that is not UTF-8 (md4c writes &#xD800; as an encoded surrogate,
 * a file name may hold anything) as U+FFFD: the handout is valid UTF-8, as it says. */
static void export_clean_write(FILE *out, const char *s, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        bool c0 = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
        bool c1 = c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
                  (unsigned char)s[i + 1] < 0xa0;
        if (!c0 && !c1) continue;
        cv_fwrite_utf8(out, s + from, i - from);
        fputs("\xef\xbf\xbd", out);
        if (c1) i++;
        from = i + 1;
    }
    cv_fwrite_utf8(out, s + from, n - from);
}

/* The handout into f (a memory stream whose size is *len): CV_OK, or CV_EINVAL when it
 * passes EXPORT_MAX_BYTES (a 16 KB lesson of 200 16-rank scenes would make 84 MB). */
static int export_html_doc(const struct lesson_set *set, const struct handout_opts *o, FILE *f,
                           const size_t *len, char *err, size_t errlen)
{
    struct handout_meas meas;
    handout_meas_init(&meas, o->backend);
    struct handout_glyphs *glyphs = handout_glyphs_new();
    int uniq = 0;
    const char *title = set->n == 1 && set->v[0].title ? set->v[0].title : "collviz lessons";
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    export_esc(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", export_css);
    for (size_t k = 0; k < set->n; k++) {
        const struct lesson *l = &set->v[k];
        fprintf(f, "<article id=\"%s\">\n<h1>", l->id);
        export_esc(f, l->title);
        fputs("</h1>\n", f);
        if (l->minutes > 0) fprintf(f, "<p><em>About %d minutes.</em></p>\n", l->minutes);
        for (size_t i = 0; i < l->nslides; i++) {
            int rc = export_slide(f, l, (int)k + 1, i, ++uniq, o, &meas, glyphs, err, errlen);
            if (rc != CV_OK) {
                handout_meas_close(&meas);
                handout_glyphs_free(glyphs);
                return rc;
            }
            fflush(f);
            if (*len > EXPORT_MAX_BYTES) {
                handout_meas_close(&meas);
                handout_glyphs_free(glyphs);
                return cv_err(err, errlen, CV_EINVAL,
                              "the handout would pass %zu MiB (the most a handout may be) at "
                              "slide %zu of %s (line %d): split the lesson or use fewer scenes",
                              EXPORT_MAX_BYTES >> 20, i + 1, l->path, l->slides[i].line);
            }
        }
        fputs("</article>\n", f);
    }
    char summary[600];
    handout_meas_summary(&meas, summary, sizeof summary);
    handout_meas_close(&meas);
    fputs("<footer>Handout written by <code>collviz lesson export</code>. ", f);
    export_esc(f, summary);
    fputs("</footer>\n", f);
    handout_glyphs_write(f, glyphs);
    handout_glyphs_free(glyphs);
    fputs("</body>\n</html>\n", f);
    return ferror(f) ? cv_err(err, errlen, CV_EINVAL, "export: write failed") : CV_OK;
}

int export_html_write(const struct lesson_set *set, const struct handout_opts *o, FILE *out,
                      char *err, size_t errlen)
{
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    if (!f) return cv_err(err, errlen, CV_ENOMEM, "export: no memory for the handout");
    int rc = export_html_doc(set, o, f, &len, err, errlen);
    if (fclose(f) != 0 && rc == CV_OK)
        rc = cv_err(err, errlen, CV_ENOMEM, "export: no memory for the handout");
    if (rc == CV_OK) {
        export_clean_write(out, doc, len);
        if (ferror(out)) rc = cv_err(err, errlen, CV_EBACKEND, "export: write failed");
    }
    free(doc);
    return rc;
}

int export_handout_run(const char *path, const struct handout_opts *ho, bool pdf,
                       const char *out)
{
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    if (lesson_set_add(&set, path, &errs) != CV_OK || set.n == 0) {
        for (size_t i = 0; i < errs.n; i++)
            cv_eprintf("%s\n", errs.msg[i]);
        if (errs.n == 0) cv_eprintf("collviz lesson export: %s: no lessons\n", path);
        lesson_errors_free(&errs);
        lesson_set_free(&set);
        return 2;
    }
    lesson_errors_free(&errs);
    for (size_t i = 0; i < set.n; i++) /* links the handout shows as text */
        for (size_t k = 0; k < set.v[i].warnings.n; k++)
            cv_eprintf("%s\n", set.v[i].warnings.msg[k]);
    FILE *f = pdf ? NULL : out ? fopen(out, "w") : stdout;
    if (!f && !pdf) {
        cv_eprintf("collviz lesson export: cannot write %s: %s\n", out, strerror(errno));
        lesson_set_free(&set);
        return 2;
    }
    char err[600] = "";
    int rc = pdf ? print_pdf_write(&set, ho, out, err, sizeof err)
                 : export_html_write(&set, ho, f, err, sizeof err);
    if (f && out && fclose(f) != 0 && rc == CV_OK)
        rc = cv_err(err, sizeof err, CV_EBACKEND, "cannot write %s: %s", out, strerror(errno));
    lesson_set_free(&set);
    print_release_fonts();
    if (rc != CV_OK) {
        cv_eprintf("collviz lesson export: %s\n", err);
        if (out) remove(out);
        return rc == CV_EINVAL ? 2 : 1;
    }
    return 0;
}
