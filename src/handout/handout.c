/* handout.c - the handout formats' shared rules (see handout.h). */
#include "handout/handout.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend/backend.h"
#include "backend/run.h"
#include "core/text.h"
#include "core/util.h"
#include "handout/paper_text.h"
#include "lesson/exercise.h"

void handout_opts_default(struct handout_opts *o)
{
    memset(o, 0, sizeof *o);
    o->paper = PAPER_A4;
    o->per_page = 1;
    o->solutions = SOL_END;
}

int handout_parse_paper(const char *s, enum handout_paper *out, char *err, size_t errlen)
{
    if (strcasecmp(s, "a4") == 0)
        *out = PAPER_A4;
    else if (strcasecmp(s, "letter") == 0)
        *out = PAPER_LETTER;
    else
        return cv_err(err, errlen, CV_EINVAL, "--paper: bad value '%s' (a4 or letter)", s);
    return CV_OK;
}

int handout_parse_solutions(const char *s, enum handout_solutions *out, char *err,
                            size_t errlen)
{
    if (strcmp(s, "end") == 0)
        *out = SOL_END;
    else if (strcmp(s, "none") == 0)
        *out = SOL_NONE;
    else if (strcmp(s, "inline") == 0)
        *out = SOL_INLINE;
    else
        return cv_err(err, errlen, CV_EINVAL,
                      "--solutions: bad value '%s' (end, none or inline)", s);
    return CV_OK;
}

/* ---- pictures ----------------------------------------------------------------------- */

void handout_slide_opts(const struct lesson_slide *s, bool dark, struct print_opts *o)
{
    print_opts_default(o);
    o->dark = dark;
    for (size_t k = 0; k < s->nex; k++) {
        const struct lesson_exercise *ex = &s->ex[k];
        enum ex_answer_form form = ex_answer_form(ex); /* what the picture must not show */
        if (form == EX_ANSWER_VALUES && o->nasked < PRINT_MAX_ASKED) {
            o->asked[o->nasked].step = ex->step;
            o->asked[o->nasked].rank = ex->rank;
            o->nasked++;
        }
        if (form == EX_ANSWER_NUMBER && o->nhide < PRINT_MAX_ASKED)
            o->hide[o->nhide++] = ex->answer;
    }
}

int handout_slide_pic(const struct lesson_slide *s, bool dark, struct print_pic *p, char *err,
                      size_t errlen)
{
    struct print_opts o;
    handout_slide_opts(s, dark, &o);
    struct scene sc = s->scene;
    sc.autoplay = 0;
    return print_pic_build(p, &sc, &o, err, errlen);
}

int handout_reveal_pic(const struct lesson_exercise *ex, bool dark, struct print_pic *p,
                       char *err, size_t errlen)
{
    struct print_opts o;
    print_opts_default(&o);
    o.dark = dark;
    struct scene sc = ex->scene;
    sc.step = ex->step;
    sc.autoplay = 0;
    sc.hl = HL_RANK;
    sc.hl_index = ex->rank;
    return print_pic_build(p, &sc, &o, err, errlen);
}

bool handout_about_measurement(const struct lesson_slide *s)
{
    if (!s->has_scene || s->scene.screen != SCREEN_COLLECTIVES || !s->markdown) return false;
    return strcasestr(s->markdown, "measur") || strcasestr(s->markdown, "the panel");
}

/* ---- measuring ---------------------------------------------------------------------- */

void handout_meas_init(struct handout_meas *m, const char *backend)
{
    memset(m, 0, sizeof *m);
    m->backend = backend;
}

void handout_meas_close(struct handout_meas *m)
{
    if (m->b) backend_close(m->b);
    m->b = NULL;
}

static bool meas_same(const struct scene *a, const struct scene *b)
{
    return a->coll == b->coll && a->algo == b->algo && a->op == b->op &&
           a->nranks == b->nranks && a->root == b->root && a->meas_bytes == b->meas_bytes;
}

static void meas_run(struct handout_meas *m, const struct scene *sc, char *buf, size_t n)
{
    if (sc->nranks > m->max_ranks) {
        snprintf(buf, n,
                 "Not measured: backend %s runs at most %d ranks here, the scene has %d.",
                 m->backend, m->max_ranks, sc->nranks);
        return;
    }
    struct bench_params bp = {
        .coll = sc->coll,
        .algo = sc->algo,
        .op = sc->op,
        .nranks = sc->nranks,
        .bytes = sc->meas_bytes,
        .root = coll_is_rooted(sc->coll) ? sc->root : 0,
        .iters = 5,
        .warmup = 1,
        .check = true,
        .timeout_s = 60,
    };
    struct bench_result r;
    memset(&r, 0, sizeof r);
    char err[300] = "";
    volatile int cancel = 0;
    if (backend_measure(m->b, &bp, &r, &cancel, err, sizeof err) != CV_OK) {
        snprintf(buf, n, "Not measured: %s.", err);
        return;
    }
    char desc[200] = "", t[40], size[40];
    if (m->b->ops->describe) m->b->ops->describe(m->b, sc->nranks, desc, sizeof desc);
    text_time_us(t, sizeof t, r.time_us);
    format_size(r.bytes, size, sizeof size);
    char wrong[40];
    if (r.wrong < 0)
        snprintf(wrong, sizeof wrong, "not checked");
    else
        snprintf(wrong, sizeof wrong, "%ld wrong", r.wrong);
    snprintf(buf, n,
             "Measured on the machine that made this handout (backend %s: %s): %s %s on "
             "%d ranks, %s: %s per operation, algbw %.3g GB/s, busbw %.3g GB/s, %s. How: %s.",
             m->backend, desc, coll_title(sc->coll), r.algo, r.nranks, size, t, r.algbw,
             r.busbw, wrong, r.how[0] ? r.how : "the backend's timed loop");
}

void handout_meas_text(struct handout_meas *m, const struct scene *sc, char *buf, size_t n)
{
    if (!m->backend) {
        snprintf(buf, n,
                 "This handout was made without measuring: the figures the screen's panel "
                 "measures for this scene (time, algbw, busbw) are not on paper. Make it with "
                 "--backend cpu (or nccl) to print this machine's figures here.");
        return;
    }
    for (size_t i = 0; i < m->ncache; i++)
        if (meas_same(&m->cache[i].sc, sc)) {
            snprintf(buf, n, "%s", m->cache[i].text);
            return;
        }
    if (!m->tried) {
        m->tried = true;
        if (backend_open(m->backend, &m->b, m->open_err, sizeof m->open_err, NULL, 0) != CV_OK)
            m->b = NULL;
        else
            m->max_ranks = m->b->ops->max_ranks ? m->b->ops->max_ranks(m->b) : CV_MAX_RANKS;
    }
    if (!m->b)
        snprintf(buf, n, "Not measured: backend %s could not start (%s).", m->backend,
                 m->open_err);
    else
        meas_run(m, sc, buf, n);
    if (m->ncache < sizeof m->cache / sizeof m->cache[0]) {
        m->cache[m->ncache].sc = *sc;
        snprintf(m->cache[m->ncache].text, sizeof m->cache[m->ncache].text, "%s", buf);
        m->ncache++;
    }
}

void handout_meas_summary(const struct handout_meas *m, char *buf, size_t n)
{
    if (!m->backend)
        snprintf(buf, n,
                 "Made without measuring (no --backend): every picture is the "
                 "teaching model, drawn from collviz's trace of each scene.");
    else if (m->tried && !m->b)
        snprintf(buf, n,
                 "Measuring was asked for (--backend %s) but the backend could not "
                 "start: %s.",
                 m->backend, m->open_err);
    else
        snprintf(buf, n,
                 "The measurement slides show figures measured with backend %s on "
                 "the machine that made this handout; the pictures are the teaching "
                 "model, drawn from collviz's trace of each scene.",
                 m->backend);
}

/* ---- numbers ------------------------------------------------------------------------ */

void handout_own_number(int lesson_no, size_t i, char *buf, size_t n)
{
    snprintf(buf, n, "lesson %d, slide %zu", lesson_no, i + 1);
}

/* ---- answers ------------------------------------------------------------------------ */

void handout_answer_text(const struct lesson_exercise *ex, char *buf, size_t n)
{
    ex_answer_text(ex, NULL, paper_text_number, buf, n);
}

/* ---- inline SVG --------------------------------------------------------------------- */

/* cairo names its glyphs and clips "glyph0-0", "clip1" in every SVG: inline in one HTML
 * page those ids would collide, so each picture's get a prefix of their own. */
struct handout_glyphs {
    GHashTable *index; /* a glyph's outline (its <symbol>'s content) -> 1 + its number */
    GPtrArray *outline;
};

struct handout_glyphs *handout_glyphs_new(void)
{
    struct handout_glyphs *g = xcalloc(1, sizeof *g);
    g->index = g_hash_table_new(g_str_hash, g_str_equal);
    g->outline = g_ptr_array_new_with_free_func(g_free);
    return g;
}

void handout_glyphs_free(struct handout_glyphs *g)
{
    if (!g) return;
    g_hash_table_destroy(g->index);
    g_ptr_array_free(g->outline, TRUE);
    free(g);
}

void handout_glyphs_write(FILE *f, const struct handout_glyphs *g)
{
    if (!g || g->outline->len == 0) return;
    fputs("<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
          "<defs>\n",
          f);
    for (guint i = 0; i < g->outline->len; i++)
        fprintf(f, "<symbol overflow=\"visible\" id=\"cvg%u\">%s</symbol>\n", i,
                (const char *)g_ptr_array_index(g->outline, i));
    fputs("</defs></svg>\n", f);
}

/* svg without its glyph <symbol>s (cairo's ids "glyph..."), each interned in g; local maps
 * the picture's glyph ids to g's ("cvg<N>"). A new string. */
static char *svg_take_glyphs(const char *svg, struct handout_glyphs *g, GHashTable *local)
{
    GString *out = g_string_sized_new(strlen(svg));
    const char *s = svg, *sym;
    while ((sym = strstr(s, "<symbol "))) {
        const char *gt = strchr(sym, '>'), *end = gt ? strstr(gt, "</symbol>") : NULL;
        const char *id = strstr(sym, " id=\"");
        if (!end || !id || id > gt || strncmp(id + 5, "glyph", 5) != 0) {
            g_string_append_len(out, s, (gssize)(sym - s) + 8);
            s = sym + 8;
            continue;
        }
        g_string_append_len(out, s, sym - s);
        char *body = g_strndup(gt + 1, (gsize)(end - gt - 1));
        gpointer at = g_hash_table_lookup(g->index, body);
        if (!at) {
            g_ptr_array_add(g->outline, body);
            at = GUINT_TO_POINTER(g->outline->len);
            g_hash_table_insert(g->index, body, at);
        } else {
            g_free(body);
        }
        const char *q = strchr(id + 5, '"');
        g_hash_table_insert(local, g_strndup(id + 5, (gsize)(q - id - 5)),
                            g_strdup_printf("cvg%u", GPOINTER_TO_UINT(at) - 1));
        s = end + 9;
    }
    g_string_append(out, s);
    return g_string_free(out, FALSE);
}

int handout_inline_svg(FILE *f, const struct print_pic *p, int uniq, struct handout_glyphs *g,
                       char *err, size_t errlen)
{
    char *cairo_svg;
    size_t len;
    int rc = print_pic_svg(p, &cairo_svg, &len, err, errlen);
    if (rc != CV_OK) return rc;
    GHashTable *local = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    char *svg = svg_take_glyphs(cairo_svg, g, local);
    free(cairo_svg);
    const char *s = strstr(svg, "<svg");
    if (!s) {
        g_free(svg);
        g_hash_table_destroy(local);
        return cv_err(err, errlen, CV_EINVAL, "cairo wrote no <svg> element");
    }
    /* HTML gives inline SVG its namespaces: the xmlns attributes (the only "http://" in
     * cairo's output) go, so the page names no address at all. */
    fputs("<svg", f);
    s += 4;
    for (;;) {
        while (*s == ' ')
            s++;
        if (strncmp(s, "xmlns", 5) != 0) break;
        const char *q = strchr(s, '"');
        q = q ? strchr(q + 1, '"') : NULL;
        if (!q) break;
        s = q + 1;
    }
    fputc(' ', f);
    char pre[32];
    snprintf(pre, sizeof pre, "p%d-", uniq);
    static const char *const refs[] = {"id=\"", "href=\"#", "url(#"};
    /* the next place of each pattern, searched again only once passed: one pass over the
     * picture, not one per reference (a 16-rank scene has thousands; that took 0.3 s) */
    const char *next[3];
    for (int k = 0; k < 3; k++)
        next[k] = strstr(s, refs[k]);
    for (;;) {
        int which = -1;
        for (int k = 0; k < 3; k++)
            if (next[k] && (which < 0 || next[k] < next[which])) which = k;
        if (which < 0) {
            fputs(s, f);
            break;
        }
        size_t rl = strlen(refs[which]);
        fwrite(s, 1, (size_t)(next[which] - s) + rl, f);
        s = next[which] + rl;
        /* a glyph: the page's shared one, else this picture's own id */
        const char *q = which == 1 ? strchr(s, '"') : NULL;
        char *ref = q ? g_strndup(s, (gsize)(q - s)) : NULL;
        const char *shared = ref ? g_hash_table_lookup(local, ref) : NULL;
        if (shared) {
            fputs(shared, f);
            s = q;
        } else {
            fputs(pre, f);
        }
        g_free(ref);
        for (int k = 0; k < 3; k++)
            if (next[k] && next[k] < s) next[k] = strstr(s, refs[k]);
    }
    g_free(svg);
    g_hash_table_destroy(local);
    return ferror(f) ? cv_err(err, errlen, CV_EINVAL, "export: write failed") : CV_OK;
}
