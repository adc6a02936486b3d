/* endpage.c - a lesson's end page as narration blocks (endpage.h). */
#include "lesson/endpage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"

struct end_blocks {
    struct lesson_block *v;
    size_t n, cap;
};

static struct lesson_block *end_add(struct end_blocks *b, enum lesson_block_kind kind,
                                    bool first)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 8;
        b->v = xrealloc(b->v, b->cap * sizeof *b->v);
    }
    struct lesson_block *k = &b->v[b->n++];
    memset(k, 0, sizeof *k);
    k->kind = kind;
    k->depth = kind == LBLOCK_ITEM ? 1 : 0;
    k->first = first;
    return k;
}

static void end_span(struct lesson_block *k, unsigned style, const char *text)
{
    k->spans = xrealloc(k->spans, (k->nspans + 1) * sizeof *k->spans);
    k->spans[k->nspans++] = (struct lesson_span){xstrdup(text), style, false};
}

/* The start of the sentence that ends at end (after the previous ". ", "? " or "! "). */
static const char *end_sentence_start(const char *text, const char *end)
{
    const char *p = end;
    while (p > text && !((p[-1] == ' ') && p - 1 > text && strchr(".?!", p[-2])))
        p--;
    return p;
}

void lesson_ex_question(const struct lesson_exercise *e, char *buf, size_t n)
{
    char *pr = ex_prompt(e, NULL);
    /* backticks and runs of spaces out: the words as read */
    size_t o = 0;
    for (const char *q = pr; *q; q++)
        if (*q != '`' && !(*q == ' ' && (o == 0 || pr[o - 1] == ' '))) pr[o++] = *q;
    pr[o] = '\0';
    const char *end = strrchr(pr, '?');
    const char *from = pr;
    if (end) {
        end++;
        from = end_sentence_start(pr, end - 1);
        /* a short question ("Which is right?") with the sentence before it */
        if (end - from < 40 && from > pr) from = end_sentence_start(pr, from - 2);
    } else {
        end = pr + strcspn(pr, ".");
        if (*end) end++;
    }
    snprintf(buf, n, "%.*s", (int)(end - from), from);
    free(pr);
}

struct lesson_block *lesson_end_blocks(const struct lesson *L, size_t first_slide,
                                       const char *missed_heading, const char *none_missed,
                                       lesson_end_fn missed, const void *ctx, size_t *nblocks)
{
    struct end_blocks b = {0};
    end_span(end_add(&b, LBLOCK_PARAGRAPH, false), LSPAN_BOLD, "What it taught");
    end_span(end_add(&b, LBLOCK_PARAGRAPH, false), 0,
             L->summary ? L->summary : "(no summary in the lesson)");
    end_span(end_add(&b, LBLOCK_PARAGRAPH, false), LSPAN_BOLD, missed_heading);
    size_t nex = 0, nmissed = 0;
    for (size_t k = 0; k < L->nslides; k++)
        for (size_t i = 0; i < L->slides[k].nex; i++) {
            const struct lesson_exercise *e = &L->slides[k].ex[i];
            char detail[700] = "", t[900], q[600];
            nex++;
            unsigned tone = LSPAN_BAD;
            const char *what = missed(ctx, e, detail, sizeof detail, &tone);
            if (!what) continue;
            nmissed++;
            lesson_ex_question(e, q, sizeof q);
            snprintf(t, sizeof t, "slide %zu%s%s: %s", first_slide + e->slide,
                     what[0] ? ", " : "", what, q);
            end_span(end_add(&b, LBLOCK_ITEM, true), tone, t);
            if (detail[0]) end_span(end_add(&b, LBLOCK_ITEM, false), 0, detail);
        }
    if (!nmissed)
        end_span(end_add(&b, LBLOCK_PARAGRAPH, false), nex ? LSPAN_OK : 0,
                 nex ? none_missed : "none: this lesson has no exercises");
    *nblocks = b.n;
    return b.v;
}
