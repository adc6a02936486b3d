/* lesson_draw.c - what the lesson player puts on the terminal (see lesson_ui.h): the list
 * of lessons with progress, or a slide: a title row, the narration (styled paragraphs,
 * lists, quotes and code wrapped to the pane, scrollable) with the slide's exercises under
 * it, beside (or, on a narrow terminal, above) the slide's scene drawn by that scene's own
 * screen into its rect, and the key bar. Speaker notes are never drawn. */
#include "ui/screens/lesson/lesson_draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/endpage.h"
#include "lesson/glossary.h"
#include "lesson/types/types.h"
#include "core/vec.h"
#include "ui/app.h"
#include "ui/kit/draw.h"
#include "core/text.h"
#include "ui/overlays/overlays.h"
#include "ui/screens/lesson/lesson_ui.h"
#include "ui/screens/lesson/predict.h"

#define NARR_MIN_W 32 /* narration beside the scene from this width on */
#define NARR_MAX_W 72
#define NARR_STACK_MIN_H 6 /* narration above the scene: at least this many rows */

/* ---- styled lines that grow ---- */

/* struct lesson_lines (lesson_ui.h): styled lines that grow */

static struct styled_line *ll_new(struct lesson_lines *v)
{
    if (v->n == v->cap) { /* the new places zeroed, as the lines' owners expect */
        size_t cap = (size_t)v->cap, old = cap;
        VEC_GROW(v->l, cap, (size_t)v->n + 1);
        memset(v->l + old, 0, (cap - old) * sizeof *v->l);
        v->cap = (int)cap;
    }
    struct styled_line *l = &v->l[v->n++];
    l->n = 0;
    return l;
}

/* Append text to the line in attr, merging with the last piece when the style is the same
 * (and when the line has no room for another piece). */
static void ll_put(struct styled_line *l, attr_t attr, const char *text, size_t len)
{
    struct seg *s = l->n ? &l->seg[l->n - 1] : NULL;
    if (!s || (s->attr != attr && l->n < (int)ARRAY_LEN(l->seg))) {
        s = &l->seg[l->n++];
        s->attr = attr;
        s->text[0] = '\0';
    }
    size_t have = strlen(s->text);
    if (have + len >= sizeof s->text) /* never half a character */
        len = cv_utf8_cut(text, sizeof s->text - 1 - have);
    memcpy(s->text + have, text, len);
    s->text[have + len] = '\0';
}

/* A word-wrapping writer: words of any style flow into lines of `width` columns, each line
 * starting with `lead` (first line) or `indent` (the rest). */
struct flow {
    struct lesson_lines *v;
    struct styled_line *cur;
    int width, col;
    const char *indent;
    attr_t indent_attr;
    bool pending_space;
};

static void flow_line(struct flow *f, const char *lead)
{
    f->cur = ll_new(f->v);
    f->col = 0;
    f->pending_space = false;
    const char *p = lead ? lead : f->indent;
    if (p && p[0]) {
        ll_put(f->cur, f->indent_attr, p, strlen(p));
        f->col = text_width(p);
    }
}

/* A word of any length (w, len bytes; a CJK sentence is one word): never cut short. */
static void flow_word(struct flow *f, attr_t attr, const char *w, size_t len)
{
    int ww = text_ncols(w, len);
    int lead = f->indent ? text_width(f->indent) : 0;
    if (f->col + (f->pending_space ? 1 : 0) + ww > f->width && f->col > lead)
        flow_line(f, NULL);
    if (f->pending_space && f->col > lead) {
        ll_put(f->cur, attr, " ", 1);
        f->col++;
    }
    f->pending_space = false;
    /* a word wider than the line is cut into line-long pieces, on character boundaries */
    const char *p = w;
    size_t left = len;
    while (text_ncols(p, left) > f->width - f->col && f->width - f->col > 0) {
        size_t nb = text_nprefix(p, left, f->width - f->col);
        if (nb == 0) break;
        ll_put(f->cur, attr, p, nb);
        p += nb;
        left -= nb;
        flow_line(f, NULL);
    }
    ll_put(f->cur, attr, p, left);
    f->col += text_ncols(p, left);
}

static void flow_text(struct flow *f, attr_t attr, const char *t)
{
    while (*t) {
        if (*t == ' ' || *t == '\t' || *t == '\n') {
            f->pending_space = true;
            t++;
            continue;
        }
        size_t n = strcspn(t, " \t\n");
        flow_word(f, attr, t, n);
        t += n;
    }
}

static attr_t span_attr(const struct app *a, unsigned style, attr_t base)
{
    attr_t at = base;
    if (style & LSPAN_BOLD) at |= A_BOLD;
    if (style & LSPAN_ITALIC) at |= A_ITALIC;
    if (style & LSPAN_CODE) at = a->th.role[TH_LABEL] | (base & A_BOLD);
    if (style & LSPAN_TERM) at |= A_UNDERLINE; /* a glossary term's first use (G) */
    /* the end page's tones: missed, solved after a slip, none missed */
    if (style & LSPAN_BAD) at = a->th.role[TH_BAD] | (at & A_BOLD);
    if (style & LSPAN_WARN) at = a->th.role[TH_WARN] | (at & A_BOLD);
    if (style & LSPAN_OK) at = a->th.role[TH_OK] | (at & A_BOLD);
    return at;
}

/* A word glued from pieces of several spans ("**all**-reduce", "`x`:") is placed as one:
 * it moves to the next line whole, never leaving its "." or "-reduce" behind. */
struct glued {
    attr_t attr[16];
    const char *text[16]; /* pieces of the spans' own text, of any length */
    size_t len[16];
    int n;
};

static void glued_flush(struct flow *f, struct glued *g)
{
    if (g->n == 0) return;
    int ww = 0;
    for (int i = 0; i < g->n; i++)
        ww += text_ncols(g->text[i], g->len[i]);
    int lead = f->indent ? text_width(f->indent) : 0;
    if (f->col + (f->pending_space ? 1 : 0) + ww > f->width && f->col > lead) {
        flow_line(f, NULL);
        f->pending_space = false;
    }
    for (int i = 0; i < g->n; i++) {
        flow_word(f, g->attr[i], g->text[i], g->len[i]);
        f->pending_space = false;
    }
    g->n = 0;
}

static void flow_spans(struct flow *f, const struct app *a, const struct lesson_block *b,
                       attr_t base)
{
    struct glued g = {.n = 0};
    for (size_t i = 0; i < b->nspans; i++) {
        const struct lesson_span *s = &b->spans[i];
        if (s->hard_break) {
            glued_flush(f, &g);
            flow_line(f, NULL);
        }
        attr_t at = span_attr(a, s->style, base);
        for (const char *t = s->text; *t;) {
            if (*t == ' ' || *t == '\t' || *t == '\n') {
                glued_flush(f, &g);
                f->pending_space = true;
                t++;
                continue;
            }
            size_t n = strcspn(t, " \t\n");
            if (g.n == (int)ARRAY_LEN(g.text)) glued_flush(f, &g);
            g.text[g.n] = t;
            g.len[g.n] = n;
            g.attr[g.n++] = at;
            t += n;
        }
    }
    glued_flush(f, &g);
}

static void ll_text(struct lesson_lines *v, attr_t attr, int width, const char *lead,
                    const char *indent, const char *text)
{
    struct flow f = {.v = v, .width = width, .indent = indent, .indent_attr = attr};
    flow_line(&f, lead);
    flow_text(&f, attr, text);
}

/* ---- the narration ---- */

/* Narration blocks wrapped at width: the slide's, the end page's. */
static void flow_blocks(const struct app *a, const struct lesson_block *blocks, size_t nblocks,
                        struct lesson_lines *v, int width)
{
    const struct theme *th = &a->th;
    for (size_t i = 0; i < nblocks; i++) {
        const struct lesson_block *b = &blocks[i];
        const struct lesson_block *nb = i + 1 < nblocks ? &blocks[i + 1] : NULL;
        char lead[64], indent[64];
        struct flow f = {.v = v, .width = width, .indent_attr = A_NORMAL};
        switch (b->kind) {
        case LBLOCK_PARAGRAPH:
            f.indent = "";
            flow_line(&f, "");
            flow_spans(&f, a, b, A_NORMAL);
            ll_new(v);
            break;
        case LBLOCK_HEADING:
            f.indent = "";
            flow_line(&f, "");
            flow_spans(&f, a, b, A_BOLD);
            ll_new(v);
            break;
        case LBLOCK_ITEM: {
            int d = b->depth > 0 ? b->depth - 1 : 0;
            if (d > 6) d = 6;
            char bullet[16];
            if (b->ordinal > 0)
                snprintf(bullet, sizeof bullet, "%d. ", b->ordinal);
            else
                snprintf(bullet, sizeof bullet, "%s ", a->utf8 ? "\u2022" : "*");
            snprintf(indent, sizeof indent, "%*s", 2 * d + text_width(bullet), "");
            snprintf(lead, sizeof lead, "%*s%s", 2 * d, "", b->first ? bullet : "");
            if (!b->first) snprintf(lead, sizeof lead, "%s", indent);
            f.indent = indent;
            flow_line(&f, lead);
            flow_spans(&f, a, b, A_NORMAL);
            if (!nb || nb->kind != LBLOCK_ITEM) ll_new(v);
            break;
        }
        case LBLOCK_QUOTE: {
            int d = b->depth > 0 ? b->depth : 1;
            if (d > 4) d = 4;
            size_t o = 0;
            for (int k = 0; k < d; k++)
                o += (size_t)snprintf(indent + o, sizeof indent - o, "%s ",
                                      a->utf8 ? "\u2502" : "|");
            f.indent = indent;
            f.indent_attr = th->role[TH_DIM];
            flow_line(&f, indent);
            flow_spans(&f, a, b, th->role[TH_DIM]);
            if (!nb || nb->kind != LBLOCK_QUOTE) ll_new(v);
            break;
        }
        case LBLOCK_CODE:
            for (size_t k = 0; k < b->nspans; k++) {
                struct styled_line *l = ll_new(v);
                char fit[256];
                text_fit(fit, sizeof fit, b->spans[k].text, width - 2, a->utf8);
                ll_put(l, A_NORMAL, "  ", 2);
                ll_put(l, th->role[TH_LABEL], fit, strlen(fit));
            }
            ll_new(v);
            break;
        case LBLOCK_RULE: {
            struct styled_line *l = ll_new(v);
            for (int k = 0; k < width && k < 60; k++)
                ll_put(l, th->role[TH_DIM], a->g->h, strlen(a->g->h));
            ll_new(v);
            break;
        }
        }
    }
}

struct lesson_terms {
    const struct lesson *L; /* NULL: nothing kept yet */
    size_t slide;
    struct lesson_block *marked; /* the slide's blocks, the terms marked (glossary.h) */
    size_t nblocks;
    size_t used[GLOSSARY_MAX_TERMS]; /* glossary_slide_terms, in the order of first use */
    size_t nused;
};

struct lesson_terms *lesson_terms_new(void)
{
    return xcalloc(1, sizeof(struct lesson_terms));
}

static void lesson_terms_drop(struct lesson_terms *t)
{
    glossary_free_blocks(t->marked, t->nblocks);
    *t = (struct lesson_terms){0};
}

void lesson_terms_free(struct lesson_terms *t)
{
    if (!t) return;
    lesson_terms_drop(t);
    free(t);
}

/* Slide k of L's terms in t, made when t holds another slide's. */
static const struct lesson_terms *lesson_terms_at(struct lesson_terms *t,
                                                  const struct lesson *L, size_t k)
{
    if (t->L == L && t->slide == k) return t;
    lesson_terms_drop(t);
    const struct lesson_slide *s = &L->slides[k];
    t->marked = glossary_marked_copy(s->blocks, s->nblocks);
    t->nblocks = s->nblocks;
    t->nused = glossary_slide_terms(s, t->used, GLOSSARY_MAX_TERMS);
    t->L = L;
    t->slide = k;
    return t;
}

/* The slide's narration, each glossary term underlined at its first use (the spans cut at
 * the term's edges only: the lines break where they would unmarked). */
static void narr_blocks(const struct app *a, const struct lesson_ui *u,
                        const struct lesson_slide *s, struct lesson_lines *v, int width)
{
    if (u->terms_plain) {
        flow_blocks(a, s->blocks, s->nblocks, v, width);
    } else if (u->terms) {
        flow_blocks(a, lesson_terms_at(u->terms, u->L, u->slide)->marked, s->nblocks, v, width);
    } else {
        struct lesson_block *marked = glossary_marked_copy(s->blocks, s->nblocks);
        flow_blocks(a, marked, s->nblocks, v, width);
        glossary_free_blocks(marked, s->nblocks);
    }
}

static const char *verdict_glyph(const struct app *a, enum ex_verdict k)
{
    return k == EX_RIGHT ? a->g->ok : k == EX_WRONG ? a->g->bad : "!";
}

static bool ex_recalled(const struct lesson_ui *u, const struct lesson_exercise *e);

/* Which numbers a number exercise with variants is asked with, and the keys to others. */
static void ex_numbers_note(const struct lesson_ui *u, const struct lesson_exercise *e,
                            const struct lesson_ex_state *st, char *t, size_t n)
{
    if (st->seed)
        snprintf(t, n, "; variant %llu (v: other numbers, L: the lecture's)%s",
                 (unsigned long long)st->seed,
                 ex_recalled(u, e) && st->seed == 1
                     ? ": the lecture's answer was on screen in an earlier lesson"
                     : "");
    else
        snprintf(t, n, "; the lecture's numbers (v: other numbers)");
}

/* Is e one whose lecture answer an earlier lesson showed (recall.h)? */
static bool ex_recalled(const struct lesson_ui *u, const struct lesson_exercise *e)
{
    size_t i = 0;
    for (size_t s = 0; s < u->L->nslides; s++)
        for (size_t k = 0; k < u->L->slides[s].nex; k++, i++)
            if (&u->L->slides[s].ex[k] == e) return i < u->nrecall && u->recall[i];
    return false;
}

/* The current exercise: prompt (with this variant's numbers), options, hints revealed,
 * the input line, the verdict, and after a right answer or giving up the answer and the
 * solution. */
static void narr_exercise(const struct app *a, const struct lesson_ui *u,
                          const struct lesson_slide *s, struct lesson_lines *v, int width)
{
    const struct theme *th = &a->th;
    const struct lesson_exercise *e = &s->ex[u->cur];
    const struct lesson_ex_state *st = &u->ex[u->cur];
    char t[1200];
    struct styled_line *l = ll_new(v);
    snprintf(t, sizeof t, "exercise %zu of %zu", u->cur + 1, s->nex);
    ll_put(l, th->role[TH_STEP], t, strlen(t));
    snprintf(t, sizeof t, "  %s", lesson_ex_type_name(e->type));
    ll_put(l, th->role[TH_DIM], t, strlen(t));
    if (!st->right && u->have_prog && progress_solved(&u->prog, e->id)) {
        char head[64];
        snprintf(head, sizeof head, "exercise %zu of %zu  %s", u->cur + 1, s->nex,
                 lesson_ex_type_name(e->type));
        snprintf(t, sizeof t, "  %s solved before", a->g->ok);
        if (text_width(head) + text_width(t) > width) /* its own line, never cut */
            l = ll_new(v);
        ll_put(l, th->role[TH_OK], t + (l->n ? 0 : 2), strlen(t + (l->n ? 0 : 2)));
    }
    char *prompt = ex_prompt(e, st->seed ? &st->var : NULL); /* whole: never cut */
    ll_text(v, A_BOLD, width, "", "", prompt);
    free(prompt);
    if (ex_type((int)e->type)->lists_options)
        for (size_t k = 0; k < e->noptions; k++) {
            char lead[32];
            snprintf(lead, sizeof lead, "  %zu) ", k + 1);
            ll_text(v, A_NORMAL, width, lead, "     ", e->options[k]);
        }
    ex_type((int)e->type)->how(e, st->seed ? &st->var : NULL, t, sizeof t);
    /* a number with variants: which numbers these are, and v for others */
    if (ex_has_variants(e)) ex_numbers_note(u, e, st, t + strlen(t), sizeof t - strlen(t));
    ll_text(v, th->role[TH_DIM], width, "", "", t);
    for (int k = 0; k < st->hints_shown && (size_t)k < e->nhints; k++) {
        char lead[24];
        snprintf(lead, sizeof lead, "hint %d: ", k + 1);
        char *hint = ex_text(e, st->seed ? &st->var : NULL, e->hints[k]);
        ll_text(v, th->role[TH_WARN], width, lead, "        ", hint);
        free(hint);
    }
    if (!(st->right || st->gave_up) && ex_answer_form(e) == EX_ANSWER_VALUES && u->hid_box)
        ll_text(v, th->role[TH_WARN], width, "", "",
                "answer first: the asked box shows ? until you answer or give up");
    if (!(st->right || st->gave_up) && ex_answer_form(e) == EX_ANSWER_NUMBER && u->hid_figures)
        ll_text(v, th->role[TH_WARN], width, "", "",
                "answer first: the scene shows ? for figures equal to the answer");
    if (u->editing) {
        l = ll_new(v);
        ll_put(l, th->role[TH_LABEL] | A_BOLD, "> ", 2);
        char fit[300];
        /* the end of what is typed stays visible */
        const char *in = u->input;
        while (text_width(in) > width - 4 && *in)
            in += text_prefix_bytes(in, 1) ? text_prefix_bytes(in, 1) : 1;
        snprintf(fit, sizeof fit, "%s", in);
        ll_put(l, A_BOLD, fit, strlen(fit));
        ll_put(l, A_REVERSE, " ", 1);
        ll_text(v, th->role[TH_DIM], width, "", "", "Enter submits, Esc cancels");
    } else if (!st->graded && !st->gave_up) {
        ll_text(v, th->role[TH_DIM], width, "", "",
                lesson_ui_key_works(u, ACT_HINT, NULL)
                    ? "Enter: answer, H: hint, S: give up (shows the answer)"
                    : "Enter: answer, S: give up (shows the answer)");
    }
    if (st->graded) {
        attr_t at = st->verdict_kind == EX_RIGHT   ? th->role[TH_OK]
                    : st->verdict_kind == EX_WRONG ? th->role[TH_BAD]
                                                   : th->role[TH_WARN];
        char lead[16];
        snprintf(lead, sizeof lead, "%s ", verdict_glyph(a, st->verdict_kind));
        ll_text(v, at, width, lead, "  ", st->verdict);
        if (!st->right && !st->gave_up)
            ll_text(v, th->role[TH_DIM], width, "", "",
                    lesson_ui_key_works(u, ACT_HINT, NULL)
                        ? "Enter: try again, H: hint, S: give up"
                        : "Enter: try again, S: give up");
    }
    if (st->right || st->gave_up) {
        char exp[600];
        ex_answer_text(e, st->seed ? &st->var : NULL, NULL, exp, sizeof exp);
        snprintf(t, sizeof t, "%s%s",
                 st->right ? "the answer: " : "gave up; the answer: ", exp);
        ll_text(v, th->role[TH_LABEL] | A_BOLD, width, "", "", t);
        if (e->solution) {
            /* the variant's own numbers in the worked steps */
            char *sol = ex_text(e, st->seed ? &st->var : NULL, e->solution);
            /* the lesson's lines are one paragraph, re-wrapped to the pane; an empty line
             * (two newlines) starts the next */
            bool first = true;
            for (char *para = sol; para && *para;) {
                char *brk = strstr(para, "\n\n");
                if (brk) *brk = '\0';
                for (char *nl = strchr(para, '\n'); nl; nl = strchr(nl, '\n'))
                    *nl = ' ';
                if (*para) {
                    ll_text(v, A_NORMAL, width, first ? "solution: " : "          ",
                            "          ", para);
                    first = false;
                }
                para = brk ? brk + 2 : NULL;
            }
            free(sol);
        }
    }
    if (s->nex > 1) { /* Tab goes round: after the last, the first */
        char tab[64];
        snprintf(tab, sizeof tab, "Tab: exercise %zu of %zu", (u->cur + 1) % s->nex + 1,
                 s->nex);
        ll_text(v, th->role[TH_DIM], width, "", "", tab);
    }
}

/* Every line of the slide's narration pane; *ex_line: where the exercise starts. */
/* The end page's word on exercise e (lesson/endpage.h): missed when not solved, or solved
 * after a wrong answer; the last wrong answer graded again says what it was. */
static const char *end_missed(const void *ctx, const struct lesson_exercise *e, char *detail,
                              size_t n, unsigned *tone)
{
    const struct lesson_ui *u = ctx;
    const struct progress_ex *px = u->have_prog ? progress_exercise(&u->prog, e->id) : NULL;
    const struct progress_try *t = progress_last_try(px);
    if (px && px->solved && !t) return NULL; /* right at the first try */
    const char *what = px && px->solved ? "solved after a wrong answer"
                       : px             ? "not solved"
                                        : "not answered";
    if (px && px->solved) *tone = LSPAN_WARN; /* solved, after a slip */
    if (!t) return what;
    struct ex_variant var;
    char err[160];
    bool has_var = t->seed && ex_variant(e, t->seed, &var, err, sizeof err) == CV_OK;
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    ex_grade(e, has_var ? &var : NULL, t->answer, &g);
    snprintf(detail, n, "you answered %s: %s", t->answer, g.msg);
    return what;
}

/* The lesson's end page (n on its last slide): what it taught (the front matter's
 * summary) and the exercises missed, each with its diagnosis; the presenter's E page is the
 * same blocks (lesson_end_blocks). */
static void end_lines(const struct app *a, const struct lesson_ui *u, struct lesson_lines *v,
                      int width)
{
    const struct lesson *L = u->L;
    char t[600];
    snprintf(t, sizeof t, "End of the lesson: %s", L->title ? L->title : L->id);
    ll_text(v, A_BOLD | A_UNDERLINE, width, "", "", t);
    ll_new(v);
    size_t nb;
    struct lesson_block *b = lesson_end_blocks(
        L, 1, "Exercises missed", "none: every exercise solved without a wrong answer",
        end_missed, u, &nb);
    flow_blocks(a, b, nb, v, width);
    glossary_free_blocks(b, nb);
    ll_text(v, a->th.role[TH_DIM], width, "", "",
            "p: back to the last slide; collviz lesson review lists every lesson's mistakes");
}

/* The glossary page (G): the slide's terms first, then every other one, each with its
 * definition: the blocks the presenter's G shows (glossary_page_blocks). *at: 0, the top. */
static void glossary_lines(const struct app *a, const struct lesson_ui *u,
                           struct lesson_lines *v, int width, int *at)
{
    size_t used[GLOSSARY_MAX_TERMS], nb;
    size_t k = glossary_slide_terms(&u->L->slides[u->slide], used, GLOSSARY_MAX_TERMS);
    ll_text(v, A_BOLD | A_UNDERLINE, width, "", "", "Glossary");
    ll_text(v, a->th.role[TH_DIM], width, "", "",
            "the slide's terms first; G or Esc: back to the slide; j/k scroll");
    ll_new(v);
    *at = 0;
    struct lesson_block *b = glossary_page_blocks(used, k, &nb);
    flow_blocks(a, b, nb, v, width);
    glossary_free_blocks(b, nb);
}

/* The glossary's terms the slide uses, marked, after its narration: G opens the glossary at
 * the first of them. */
static void narr_terms(const struct app *a, const struct lesson_ui *u,
                       const struct lesson_slide *s, struct lesson_lines *v, int width)
{
    size_t mine[16], n, nt;
    const size_t *used = mine;
    if (u->terms) {
        const struct lesson_terms *kept = lesson_terms_at(u->terms, u->L, u->slide);
        used = kept->used;
        n = kept->nused < 16 ? kept->nused : 16; /* the line names the first 16 */
    } else {
        n = glossary_slide_terms(s, mine, 16);
    }
    if (!n) return;
    const struct glossary_term *t = glossary_terms(&nt);
    char line[1200];
    size_t o = (size_t)snprintf(line, sizeof line, "terms (G: glossary): ");
    for (size_t i = 0; i < n && o + 64 < sizeof line; i++)
        o +=
            (size_t)snprintf(line + o, sizeof line - o, "%s%s", i ? ", " : "", t[used[i]].term);
    ll_text(v, a->th.role[TH_LABEL], width, "", "  ", line);
    ll_new(v);
}

static void narr_lines(const struct app *a, const struct lesson_ui *u, struct lesson_lines *v,
                       int width, int *ex_line)
{
    const struct lesson_slide *s = &u->L->slides[u->slide];
    if (u->glossary) {
        glossary_lines(a, u, v, width, ex_line);
        return;
    }
    if (u->at_end) {
        end_lines(a, u, v, width);
        *ex_line = v->n;
        return;
    }
    ll_text(v, A_BOLD | A_UNDERLINE, width, "", "", s->title); /* wrapped, never cut */
    ll_new(v);
    narr_blocks(a, u, s, v, width);
    narr_terms(a, u, s, v, width);
    if (u->scene_err[0]) {
        ll_text(v, a->th.role[TH_WARN], width, "", "", u->scene_err);
        ll_new(v);
    }
    *ex_line = v->n;
    if (s->nex) narr_exercise(a, u, s, v, width);
}

/* ---- predict first ---- */

/* Whether the student has answered exercise k of the slide (right, gave up, or solved on
 * an earlier visit): only then may the scene show its answer. */
static bool ex_answered(const struct lesson_ui *u, const struct lesson_slide *s, size_t k)
{
    const struct lesson_ex_state *st = &u->ex[k];
    return st->right || st->gave_up || (u->have_prog && progress_solved(&u->prog, s->ex[k].id));
}

static bool player_solved(const void *ctx, const char *id)
{
    const struct lesson_ui *u = ctx;
    return u->have_prog && progress_solved(&u->prog, id);
}

/* Fill p for the slide's exercises as the student stands: open until answered; a number
 * exercise's answer at the student's variant; the later slides' exercises not solved. */
static void player_predict(const struct lesson_ui *u, const struct lesson_slide *s,
                           const struct scene *sc, struct predict *p)
{
    memset(p, 0, sizeof *p);
    p->s = s;
    p->sc = sc;
    for (size_t k = 0; k < s->nex && k < PREDICT_MAX_EX; k++) {
        const struct lesson_ex_state *st = &u->ex[k];
        p->open[k] = !ex_answered(u, s, k);
        p->answer[k] = st->seed ? st->var.answer : s->ex[k].answer;
    }
    predict_add_later(p, u->L, u->slide, player_solved, u);
}

/* ---- the list ---- */

/* One lesson of the list: its number, its title wrapped into title_w columns (every word
 * kept), its length and progress on the right of the first row. Returns its rows. */
#define LIST_TITLE_ROWS 4
struct list_item {
    char num[24], right[96];
    char lines[LIST_TITLE_ROWS][256];
    int n;
};

static void list_item(struct lesson_ui *u, size_t i, int w, bool utf8, struct list_item *it)
{
    const struct lesson *L = &u->set.v[i];
    size_t nex = 0, solved = 0, seen = 0;
    for (size_t s = 0; s < L->nslides; s++)
        for (size_t e = 0; e < L->slides[s].nex; e++) {
            nex++;
            if (u->have_prog && progress_solved(&u->prog, L->slides[s].ex[e].id)) solved++;
        }
    const struct progress_lesson *pl =
        u->have_prog ? progress_lesson(&u->prog, L->id, false) : NULL;
    if (pl) seen = progress_seen_count(pl);
    char mins[16] = "";
    if (L->minutes) snprintf(mins, sizeof mins, "%d min", L->minutes);
    snprintf(it->num, sizeof it->num, "%2zu.", i + 1);
    snprintf(it->right, sizeof it->right, "%6s  %2zu/%zu seen  %zu/%zu solved", mins, seen,
             L->nslides, solved, nex);
    /* marker, number and a space before the title; two spaces before the right part */
    int title_w = w - text_width(it->right) - 2 - 2 - 4 - 2;
    if (title_w < 16) { /* narrow: the progress in short */
        snprintf(it->right, sizeof it->right, "%zu/%zu %zu/%zu", seen, L->nslides, solved, nex);
        title_w = w - text_width(it->right) - 2 - 2 - 4 - 2;
    }
    const char *title = L->title ? L->title : L->id;
    it->n = text_wrap(title, title_w > 4 ? title_w : 4, it->lines, LIST_TITLE_ROWS, utf8);
    if (it->n < 1) it->n = 1, it->lines[0][0] = '\0';
}

/* The list of lessons: each numbered, its title whole (wrapped), the chosen one in view. */
static void draw_list(struct app *a, struct rect r)
{
    struct lesson_ui *u = lesson_ui_of(a);
    const struct theme *th = &a->th;
    draw_fill((struct rect){r.y, r.x, 1, r.w}, th->role[TH_TITLE]);
    char t[1200];
    snprintf(t, sizeof t, " collviz lessons%s%s", a->g->sep, u->dir);
    if (text_width(t) > r.w)
        snprintf(t, sizeof t, " collviz lessons"); /* the folder gives way */
    draw_put(r.y, r.x, r.w, th->role[TH_TITLE], t);
    int y = r.y + 2;
    if (u->warn[0]) {
        char lines[3][256];
        int n = text_wrap(u->warn, r.w - 2, lines, 3, a->utf8);
        for (int i = 0; i < n; i++)
            draw_put(y++, r.x + 1, r.w - 2, th->role[TH_WARN], lines[i]);
        y++;
    }
    int rows = r.y + r.h - 2 - y, w = r.w - 2;
    if (rows < 1 || u->set.n == 0) return;
    struct list_item *it = xcalloc(u->set.n, sizeof *it);
    int all = 0;
    for (size_t i = 0; i < u->set.n; i++) {
        list_item(u, i, w, a->utf8, &it[i]);
        all += it[i].n;
    }
    /* more lessons than rows: the last row says how many are below ("↓ 2 more") */
    int end_y = r.y + r.h - 2;
    if (all > rows && rows > 1) rows--, end_y--;
    /* the first lesson shown: the chosen one's last row in view */
    size_t top = 0;
    for (int used = 0;; top++) {
        used = 0;
        for (size_t i = top; i <= u->sel && i < u->set.n; i++)
            used += it[i].n;
        if (used <= rows || top >= u->sel) break;
    }
    int y0 = y;
    size_t shown_end = top;
    for (size_t i = top; i < u->set.n && y - y0 < rows; i++) {
        bool sel = i == u->sel;
        attr_t at = sel ? A_REVERSE | A_BOLD : A_NORMAL;
        int h = it[i].n;
        if (y + h > end_y) break; /* a lesson is shown whole or not at all */
        shown_end = i + 1;
        if (sel) draw_fill((struct rect){y, r.x + 1, h, r.w - 2}, A_REVERSE);
        int rw = text_width(it[i].right);
        char lead[32];
        snprintf(lead, sizeof lead, "%s %s ", sel ? a->g->play : " ", it[i].num);
        int lw = draw_put(y, r.x + 1, w, at, lead);
        for (int k = 0; k < h; k++)
            draw_put(y + k, r.x + 1 + lw, w - lw - rw - 2, at, it[i].lines[k]);
        draw_put(y, r.x + r.w - rw - 1, rw, sel ? at : th->role[TH_DIM], it[i].right);
        y += h;
    }
    free(it);
    /* what is out of view, above and below, with the key that brings it */
    char mark[96];
    if (top > 0) {
        snprintf(mark, sizeof mark, "%s %zu more above (%s)", a->utf8 ? "\u2191" : "^", top,
                 a->utf8 ? "\u2191" : "Up");
        draw_put(y0 - 1, r.x + 1, r.w - 2, th->role[TH_STEP] | A_BOLD, mark);
    }
    if (shown_end < u->set.n) {
        snprintf(mark, sizeof mark, "%s %zu more below (%s)", a->utf8 ? "\u2193" : "v",
                 u->set.n - shown_end, a->utf8 ? "\u2193" : "Down");
        draw_put(end_y, r.x + 1, r.w - 2, th->role[TH_STEP] | A_BOLD, mark);
    }
    if (a->msg[0]) draw_put(r.y + r.h - 2, r.x + 1, r.w - 2, th->role[TH_WARN], a->msg);
    const char *keys = a->utf8 ? "\u2191\u2193 choose   Enter open   ? help   q quit"
                               : "Up/Down choose   Enter open   ? help   q quit";
    draw_fill((struct rect){r.y + r.h - 1, r.x, 1, r.w}, th->role[TH_BAR_LABEL]);
    draw_put(r.y + r.h - 1, r.x + 1, r.w - 2, th->role[TH_BAR_LABEL], keys);
    a->nbar = 0;
}

/* ---- a slide ---- */

void lesson_layout(struct rect r, bool has_scene, bool scene_alone, struct lesson_layout *out)
{
    *out = (struct lesson_layout){.scene_alone = has_scene && scene_alone};
    int body_h = r.h - 2; /* between the title row and the bar */
    if (out->scene_alone) {
        /* z: the scene over the whole terminal (its own title row; the bar stays ours) */
        out->scene = r;
    } else if (has_scene && r.w - LAYOUT_MIN_COLS >= NARR_MIN_W && r.h - 1 >= LAYOUT_MIN_ROWS) {
        int nw = r.w - LAYOUT_MIN_COLS;
        if (nw > NARR_MAX_W) nw = NARR_MAX_W;
        out->narr = (struct rect){r.y + 1, r.x + 1, body_h, nw - 3};
        out->scene = (struct rect){r.y + 1, r.x + nw, r.h - 1, r.w - nw};
        out->rule_x = r.x + nw - 1;
    } else if (has_scene && r.h - 1 - LAYOUT_MIN_ROWS >= NARR_STACK_MIN_H &&
               r.w >= LAYOUT_MIN_COLS) {
        int sh = LAYOUT_MIN_ROWS;
        out->narr = (struct rect){r.y + 1, r.x + 1, r.h - 1 - sh, r.w - 2};
        out->scene = (struct rect){r.y + r.h - sh, r.x, sh, r.w};
    } else {
        /* compact (80x24, 100x30): the text alone, paged; z shows the scene alone */
        int w = r.w - 2 > 100 ? 100 : r.w - 2;
        out->narr = (struct rect){r.y + 1, r.x + (r.w - w) / 2, body_h, w};
        out->compact = has_scene;
        if (out->compact) out->narr.h--; /* the line that says z shows the scene */
    }
}

void lesson_slide_lines(const struct app *a, const struct lesson_ui *u, int width,
                        struct lesson_lines *v, int *ex_line)
{
    narr_lines(a, u, v, width, ex_line);
}

/* The narration into r, scrolled (u->scroll), with a visible "more" line when it goes on
 * below: nothing is lost silently, ↓ or j shows the rest. */
static void draw_narration(struct app *a, struct lesson_ui *u, const struct lesson_slide *s,
                           struct rect narr)
{
    const struct theme *th = &a->th;
    struct lesson_lines v = {0};
    int ex_line = 0;
    narr_lines(a, u, &v, narr.w, &ex_line);
    int textw = narr.w;
    if (v.n > narr.h && narr.w > 2) {
        /* it scrolls: the last column is the ↑ mark's, never over a word */
        free(v.l);
        v = (struct lesson_lines){0};
        textw = narr.w - 1;
        narr_lines(a, u, &v, textw, &ex_line);
    }
    int rows = narr.h;
    if (v.n > narr.h && narr.h > 1) rows = narr.h - 1; /* the more line */
    int max = v.n - rows;
    if (max < 0) max = 0;
    if ((u->show_ex || u->editing) && s->nex && !u->glossary) {
        /* what the student just did (answer, hint, solution) is at the end, and the line
         * being typed stays in view (after a resize too) */
        u->scroll = max;
        u->show_ex = false;
    }
    if (u->scroll > max) u->scroll = max;
    if (u->scroll < 0) u->scroll = 0;
    u->ex_line = ex_line;
    u->scroll_max = max;
    for (int k = 0; k < rows && u->scroll + k < v.n; k++)
        styled_draw_line(&v.l[u->scroll + k], narr.y + k, narr.x, textw);
    if (u->scroll > 0)
        draw_put(narr.y, narr.x + narr.w - 1, 1, th->role[TH_DIM], a->utf8 ? "\u2191" : "^");
    if (rows < narr.h) {
        char t[120];
        int below = v.n - (u->scroll + rows);
        if (below > 0)
            snprintf(t, sizeof t, "%s more %s %d line%s (%s j)", a->g->h,
                     a->utf8 ? "\u2193" : "v", below, below == 1 ? "" : "s",
                     a->utf8 ? "\u2193" : "Down");
        else
            snprintf(t, sizeof t, "%s the end %s (%s k: back up)", a->g->h, a->g->h,
                     a->utf8 ? "\u2191" : "Up");
        draw_put(narr.y + rows, narr.x, narr.w, th->role[TH_STEP] | A_BOLD, t);
    }
    free(v.l);
}

static void draw_slide(struct app *a, struct rect r)
{
    struct lesson_ui *u = lesson_ui_of(a);
    const struct theme *th = &a->th;
    const struct lesson_slide *s = &u->L->slides[u->slide];
    struct lesson_layout lay;
    lesson_layout(r, u->scene_ok, u->scene_alone, &lay);
    char low[600] = ""; /* a message too long for the title row */
    if (!lay.scene_alone) {
        /* title row: lesson, slide, progress; the status message at its right */
        draw_fill((struct rect){r.y, r.x, 1, r.w}, th->role[TH_TITLE]);
        char t[600];
        size_t nex = 0, solved = 0;
        for (size_t k = 0; k < u->L->nslides; k++)
            for (size_t e = 0; e < u->L->slides[k].nex; e++) {
                nex++;
                if (u->have_prog && progress_solved(&u->prog, u->L->slides[k].ex[e].id))
                    solved++;
            }
        if (u->at_end)
            snprintf(t, sizeof t, "the end%s%zu/%zu solved", a->g->sep, solved, nex);
        else
            snprintf(t, sizeof t, "slide %zu/%zu%s%zu/%zu solved", u->slide + 1, u->L->nslides,
                     a->g->sep, solved, nex);
        /* the lesson's title only where it fits whole (the slide number never goes) */
        char full[700];
        snprintf(full, sizeof full, " %s%s%s", u->L->title ? u->L->title : u->L->id, a->g->sep,
                 t);
        const char *note = a->msg[0] ? a->msg : u->warn;
        char back[80] = "";
        if (!note[0] && u->scene_ok && s->has_scene &&
            screen_scene_diff(&a->sc, &s->scene) & ~(SF_STEP | SF_HL | SF_AUTOPLAY)) {
            char k[16];
            if (app_key_hint(a, ACT_SCENE_RESET, k, sizeof k))
                snprintf(back, sizeof back, "your own scene (%s: the slide's)", k);
            note = back;
        }
        /* The lesson's title stays whenever it fits with the slide number (a student who
         * presses a key must still see where they are); a message that does not fit beside
         * it goes whole above the key bar. Only a row too narrow for the title drops it. */
        if (text_width(full) > r.w)
            snprintf(full, sizeof full, " %s%s%s", lesson_short_title(u->L), a->g->sep, t);
        if (text_width(full) > r.w) snprintf(full, sizeof full, " %s", t);
        int used = draw_put(r.y, r.x, r.w, th->role[TH_TITLE], full);
        if (note[0] && used + 3 + text_width(note) <= r.w)
            draw_put(r.y, r.x + used + 2, r.w - used - 3, th->role[TH_TITLE] | A_BOLD, note);
        else if (note[0]) /* whole, above the key bar (never cut) */
            snprintf(low, sizeof low, "%s", note);
    }
    if (lay.rule_x > 0)
        for (int y = r.y + 1; y < r.y + r.h - 1; y++)
            draw_put(y, lay.rule_x, 1, th->role[TH_BORDER], a->g->v);
    if (lay.compact) {
        char k[16], m[200];
        snprintf(m, sizeof m,
                 "%s z: the slide's scene (this terminal holds the text or the scene)",
                 a->utf8 ? "\u25b8" : ">");
        (void)k;
        draw_put(lay.narr.y + lay.narr.h, lay.narr.x, lay.narr.w, th->role[TH_WARN], m);
    }
    if (lay.scene.w > 0) {
        struct predict pr;
        player_predict(u, s, &a->sc, &pr);
        predict_begin(a, &pr);
        bool boxes = a->hide_any;
        /* the notice is the player's to show (whole: its title row or above the bar), not
         * the scene header's, where it would be cut */
        char keep[sizeof a->msg];
        memcpy(keep, a->msg, sizeof keep);
        a->msg[0] = '\0';
        app_screen(a)->draw(a, lay.scene);
        memcpy(a->msg, keep, sizeof keep);
        u->hid_figures = predict_end(a) > 0;
        u->hid_box = boxes;
    } else if (!lay.scene_alone) {
        /* the scene is not drawn: nothing of it is on screen to hide (z shows it, hidden
         * as it would be beside the text) */
        u->hid_figures = u->hid_box = false;
    }
    if (lay.narr.w > 0) draw_narration(a, u, s, lay.narr);
    /* the key bar over the whole width; in the scene alone, what z does and any notice */
    struct rect bar = {r.y + r.h - 1, r.x, 1, r.w};
    draw_fill(bar, A_NORMAL);
    a->bar_at = bar;
    if (lay.scene_alone) {
        a->nbar = 0;
        char t[300];
        /* the lesson's short title too: this page has no title row */
        const char *lt = lesson_short_title(u->L);
        snprintf(t, sizeof t, " %s%sslide %zu/%zu  z: back to the text  %s", lt, a->g->sep,
                 u->slide + 1, u->L->nslides, a->msg);
        if (text_width(t) > bar.w) { /* the notice above the bar, whole */
            snprintf(low, sizeof low, "%s", a->msg);
            snprintf(t, sizeof t, " %s%sslide %zu/%zu  z: back to the text", lt, a->g->sep,
                     u->slide + 1, u->L->nslides);
        }
        if (text_width(t) > bar.w)
            snprintf(t, sizeof t, " slide %zu/%zu  z: back to the text", u->slide + 1,
                     u->L->nslides);
        draw_put(bar.y, bar.x, bar.w, th->role[TH_BAR_LABEL], t);
    } else {
        a->nbar = draw_key_bar_where(th, a->utf8, bar, KEYS_ON_LESSON, lesson_ui_key_works, u,
                                     a->bar, APP_BAR_MAX);
    }
    if (low[0]) { /* the message wrapped into the rows above the bar, over the text */
        char lines[3][256];
        int n = text_wrap(low, r.w - 2, lines, 3, a->utf8);
        for (int i = 0; i < n; i++) {
            int y = bar.y - n + i;
            draw_fill((struct rect){y, r.x, 1, r.w}, th->role[TH_TITLE]);
            draw_put(y, r.x + 1, r.w - 2, th->role[TH_TITLE] | A_BOLD, lines[i]);
        }
    }
}

void lesson_draw(struct app *a, struct rect r)
{
    struct lesson_ui *u = lesson_ui_of(a);
    if (r.w < 40 || r.h < 10) {
        a->nbar = 0;
        overlay_too_small(a, r, 10, 40);
        return;
    }
    lesson_ui_hold(a);
    if (u->in_list || !u->L || u->L->nslides == 0)
        draw_list(a, r);
    else
        draw_slide(a, r);
}

void lesson_help(const struct app *a, struct styled_lines *p, int width)
{
    styled_wrapped_max(
        p, A_NORMAL, width,
        "lesson  the slide's scene is drawn by its own screen; Enter answers the "
        "current exercise (Enter submits, Esc cancels the input line)",
        3);
    char t[300];
    const struct lesson_ui *u = lesson_ui_of(a);
    if (u && u->have_prog)
        snprintf(t, sizeof t, "progress  saved after every slide and answer in %.200s",
                 u->prog.path);
    else
        snprintf(t, sizeof t, "progress  not kept here (no $XDG_STATE_HOME or $HOME)");
    styled_wrapped_max(p, A_NORMAL, width, t, 2);
}
