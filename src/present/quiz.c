/* quiz.c - exercises as a quiz in the presenter (see quiz.h). */
#include "present/quiz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"

static struct lesson_block *quiz_add(struct quiz *q, enum lesson_block_kind kind, int ordinal)
{
    q->v = xrealloc(q->v, (q->n + 1) * sizeof *q->v);
    struct lesson_block *b = &q->v[q->n++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->ordinal = ordinal;
    b->depth = kind == LBLOCK_ITEM ? 1 : 0;
    b->first = true;
    return b;
}

static void quiz_span(struct lesson_block *b, unsigned style, const char *text)
{
    b->spans = xrealloc(b->spans, (b->nspans + 1) * sizeof *b->spans);
    b->spans[b->nspans++] = (struct lesson_span){.text = xstrdup(text), .style = style};
}

/* A prompt as the room reads it: the room does not type, so a sentence that tells the
 * student what to type ("Type all four slots, with . for a slot that holds nothing yet.")
 * goes; the question stays. Sentences end at ". ", "? ", "! " (or the end). */
static void quiz_room_prompt(char *t)
{
    static const char *const typing[] = {"Type ", "Enter ", "Write ", "(Type ", "(Enter "};
    char *out = t, *p = t;
    bool dropped = false;
    while (*p) {
        char *e = p;
        while (*e && !((*e == '.' || *e == '?' || *e == '!') && (e[1] == ' ' || !e[1])))
            e++;
        if (*e) e++;
        /* a sentence of its own, or the rest of one cut at "with ." (lowercase) */
        bool drop = dropped && *p >= 'a' && *p <= 'z';
        for (size_t i = 0; i < ARRAY_LEN(typing); i++)
            if (strncmp(p, typing[i], strlen(typing[i])) == 0) drop = true;
        dropped = drop;
        size_t n = (size_t)(e - p);
        if (!drop) {
            memmove(out, p, n);
            out += n;
        }
        p = e;
        while (*p == ' ')
            p++;
        if (!drop && *p) *out++ = ' ';
    }
    while (out > t && out[-1] == ' ')
        out--;
    *out = '\0';
}

/* A question for the room where the prompt only said what to type ("Type all four values
 * in rank 2's box at the end."): a holds exercise's own rank and step ("Which values does
 * rank 2 hold at the end?"); other types keep their prompt. */
static char *quiz_room_question(const struct lesson_exercise *e, const char *prompt)
{
    const struct exercise_type_ops *o = ex_type((int)e->type);
    if (!o->room_question) return xstrdup(prompt);
    char t[200];
    o->room_question(e, t, sizeof t);
    return xstrdup(t);
}

/* quiz_build with the questions of exercises 0..upto (the later ones not asked yet). */
static void quiz_build_upto(const struct lesson_slide *s, size_t nrevealed, bool solutions,
                            size_t upto, struct quiz *out)
{
    memset(out, 0, sizeof *out);
    out->nslide = out->n = s->nblocks;
    out->v = xcalloc(s->nblocks + 1, sizeof *out->v);
    if (s->nblocks) memcpy(out->v, s->blocks, s->nblocks * sizeof *s->blocks);
    out->ex_block = xcalloc(s->nex + 1, sizeof *out->ex_block);
    out->ans_block = xcalloc(s->nex + 1, sizeof *out->ans_block);
    out->nex = s->nex;
    for (size_t k = 0; k < s->nex; k++) {
        const struct lesson_exercise *e = &s->ex[k];
        char t[2048];
        out->ex_block[k] = out->n;
        if (k > upto) continue; /* not asked yet: nothing of it */
        struct lesson_block *b = quiz_add(out, LBLOCK_PARAGRAPH, 0);
        if (s->nex > 1)
            snprintf(t, sizeof t, "Exercise %zu of %zu: ", k + 1, s->nex);
        else
            snprintf(t, sizeof t, "Exercise: ");
        quiz_span(b, LSPAN_BOLD, t);
        char *prompt = ex_prompt(e, NULL); /* whole: never cut */
        char *room = xstrdup(prompt);
        quiz_room_prompt(room);
        if (!room[0]) { /* the prompt was all typing: the question asked of the room */
            free(room);
            room = quiz_room_question(e, prompt);
        }
        quiz_span(b, 0, room);
        free(room);
        free(prompt);
        for (size_t i = 0; ex_type((int)e->type)->lists_options && i < e->noptions; i++)
            quiz_span(quiz_add(out, LBLOCK_ITEM, (int)i + 1), 0, e->options[i]);
        if (k >= nrevealed) continue;
        out->ans_block[k] = out->n;
        b = quiz_add(out, LBLOCK_PARAGRAPH, 0);
        if (s->nex > 1)
            snprintf(t, sizeof t, "Answer %zu of %zu: ", k + 1, s->nex);
        else
            snprintf(t, sizeof t, "Answer: ");
        quiz_span(b, LSPAN_BOLD, t);
        ex_answer_text(e, NULL, NULL, t, sizeof t);
        quiz_span(b, LSPAN_BOLD, t);
        if (!e->solution || !solutions) continue;
        /* The worked solution reflowed: its lines joined, an empty line starts a paragraph. */
        char *sol = ex_text(e, NULL, e->solution); /* the numbers, not {= ...} */
        bool first = true;
        for (char *para = sol; para;) {
            char *end = strstr(para, "\n\n");
            if (end) *end = '\0';
            for (char *c = para; *c; c++)
                if (*c == '\n') *c = ' ';
            if (*para) {
                b = quiz_add(out, LBLOCK_PARAGRAPH, 0);
                if (first) quiz_span(b, LSPAN_ITALIC, "Solution: ");
                quiz_span(b, 0, para);
                first = false;
            }
            para = end ? end + 2 : NULL;
        }
        free(sol);
    }
}

void quiz_build(const struct lesson_slide *s, size_t nrevealed, bool solutions,
                struct quiz *out)
{
    quiz_build_upto(s, nrevealed, solutions, (size_t)-1, out);
}

void quiz_build_room(const struct lesson_slide *s, size_t nrevealed, struct quiz *out)
{
    quiz_build_upto(s, nrevealed, false, nrevealed, out);
}

void quiz_own_slide(struct quiz *q)
{
    if (q->own_slide) return;
    for (size_t i = 0; i < q->nslide; i++) {
        struct lesson_block *b = &q->v[i];
        struct lesson_span *sp = xcalloc(b->nspans + 1, sizeof *sp);
        for (size_t j = 0; j < b->nspans; j++) {
            sp[j] = b->spans[j];
            sp[j].text = xstrdup(b->spans[j].text);
        }
        b->spans = sp;
    }
    q->own_slide = true;
}

void quiz_free(struct quiz *q)
{
    for (size_t i = q->own_slide ? 0 : q->nslide; i < q->n; i++) {
        for (size_t j = 0; j < q->v[i].nspans; j++)
            free(q->v[i].spans[j].text);
        free(q->v[i].spans);
    }
    free(q->v);
    free(q->ex_block);
    free(q->ans_block);
    memset(q, 0, sizeof *q);
}

void quiz_notes(const struct lesson_slide *s, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < s->nex && o + 1 < n; k++) {
        const struct lesson_exercise *e = &s->ex[k];
        char ans[1024], label[32] = "Answer";
        ex_answer_text(e, NULL, NULL, ans, sizeof ans);
        if (s->nex > 1) snprintf(label, sizeof label, "Answer %zu", k + 1);
        char *sol = ex_text(e, NULL, e->solution ? e->solution : "");
        int w = snprintf(buf + o, n - o, "%s%s: %s%s%s", k ? "\n\n" : "", label, ans,
                         e->solution ? "\n\nSolution: " : "", sol);
        free(sol);
        if (w < 0 || (size_t)w >= n - o) {
            buf[o + cv_utf8_cut(buf + o, n - o - 1)] = '\0'; /* never half a character */
            break;
        }
        o += (size_t)w;
    }
}
