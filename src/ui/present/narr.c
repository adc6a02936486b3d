/* narr.c - narration layout (see narr.h). A block is first cut into words, each word a list
 * of (style, bytes) pieces, since a word can change style in its middle ("**all**-reduce");
 * words are then placed greedily on lines of the width left after the block's prefix. */
#include "ui/present/narr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/text.h"

/* Widths in terminal columns, from the one counter (text.h). */
static int narr_cols(const char *s, size_t len)
{
    return text_ncols(s, len);
}

/* Byte length of the first `cols` columns of s[0..len). */
static size_t narr_prefix(const char *s, size_t len, int cols)
{
    return text_nprefix(s, len, cols);
}

static void narr_add_seg(struct narr_line *l, unsigned style, const char *s, size_t len)
{
    if (len == 0) return;
    /* Same style as the last segment: extend it. */
    if (l->nseg > 0 && l->seg[l->nseg - 1].style == style) {
        struct narr_seg *g = &l->seg[l->nseg - 1];
        size_t old = strlen(g->text);
        g->text = xrealloc(g->text, old + len + 1);
        memcpy(g->text + old, s, len);
        g->text[old + len] = '\0';
    } else {
        l->seg = xrealloc(l->seg, (size_t)(l->nseg + 1) * sizeof *l->seg);
        char *t = xmalloc(len + 1);
        memcpy(t, s, len);
        t[len] = '\0';
        l->seg[l->nseg++] = (struct narr_seg){style, t};
    }
    l->width += narr_cols(s, len);
}

static struct narr_line *narr_new_line(struct narr *n)
{
    n->l = xrealloc(n->l, (size_t)(n->n + 1) * sizeof *n->l);
    struct narr_line *l = &n->l[n->n++];
    memset(l, 0, sizeof *l);
    return l;
}

struct narr_piece {
    unsigned style;
    const char *s;
    size_t len;
};

struct narr_word {
    struct narr_piece *p;
    int np, cols;
    bool brk; /* a hard line break before this word */
};

/* Words of a block's spans. */
static int narr_words(const struct lesson_block *b, struct narr_word **out)
{
    struct narr_word *w = NULL;
    int nw = 0;
    bool open = false, pending_break = false;
    for (size_t i = 0; i < b->nspans; i++) {
        const struct lesson_span *sp = &b->spans[i];
        if (sp->hard_break) {
            pending_break = true;
            open = false;
        }
        const char *p = sp->text ? sp->text : "";
        while (*p) {
            if (*p == ' ') {
                open = false;
                p++;
                continue;
            }
            size_t len = strcspn(p, " ");
            if (!open) {
                w = xrealloc(w, (size_t)(nw + 1) * sizeof *w);
                w[nw++] = (struct narr_word){.brk = pending_break};
                pending_break = false;
                open = true;
            }
            struct narr_word *cw = &w[nw - 1];
            cw->p = xrealloc(cw->p, (size_t)(cw->np + 1) * sizeof *cw->p);
            cw->p[cw->np++] = (struct narr_piece){sp->style & (7u | LSPAN_TERM), p, len};
            cw->cols += narr_cols(p, len);
            p += len;
        }
    }
    *out = w;
    return nw;
}

/* The prefix of a block's first line and of its continuation lines. */
static void narr_prefix_of(const struct lesson_block *b, bool utf8, char *first, char *cont,
                           size_t n)
{
    first[0] = cont[0] = '\0';
    switch (b->kind) {
    case LBLOCK_ITEM: {
        int indent = 2 * (b->depth > 1 ? b->depth - 1 : 0);
        char mark[16];
        if (b->ordinal > 0)
            snprintf(mark, sizeof mark, "%d.", b->ordinal);
        else
            snprintf(mark, sizeof mark, "%s", utf8 ? "\u2022" : "*");
        int mw = narr_cols(mark, strlen(mark));
        snprintf(first, n, "%*s%s ", indent, "", b->first ? mark : "");
        if (!b->first) snprintf(first, n, "%*s", indent + mw + 1, "");
        snprintf(cont, n, "%*s", indent + mw + 1, "");
        break;
    }
    case LBLOCK_QUOTE: {
        size_t o = 0;
        for (int d = 0; d < (b->depth > 0 ? b->depth : 1) && o + 5 < n; d++)
            o += (size_t)snprintf(first + o, n - o, "%s ", utf8 ? "\u2502" : "|");
        snprintf(cont, n, "%s", first);
        break;
    }
    case LBLOCK_CODE:
        snprintf(first, n, "    ");
        snprintf(cont, n, "    ");
        break;
    default:
        break;
    }
}

static void narr_block(const struct lesson_block *b, int width, bool utf8, struct narr *out)
{
    if (b->kind == LBLOCK_RULE) {
        struct narr_line *l = narr_new_line(out);
        for (int i = 0; i < width; i++)
            narr_add_seg(l, NARR_RULE, utf8 ? "\u2500" : "-", utf8 ? 3 : 1);
        return;
    }
    char first[64], cont[64];
    narr_prefix_of(b, utf8, first, cont, sizeof first);
    unsigned mark_style = b->kind == LBLOCK_ITEM || b->kind == LBLOCK_QUOTE ? NARR_MARK : 0;
    unsigned extra = b->kind == LBLOCK_HEADING ? NARR_HEADING : 0;
    if (b->kind == LBLOCK_CODE) {
        /* One line per span, never wrapped: cut at the width. */
        for (size_t i = 0; i < b->nspans; i++) {
            struct narr_line *l = narr_new_line(out);
            narr_add_seg(l, 0, cont, strlen(cont));
            const char *t = b->spans[i].text ? b->spans[i].text : "";
            int room = width - l->width;
            if (room < 0) room = 0;
            narr_add_seg(l, LSPAN_CODE, t, narr_prefix(t, strlen(t), room));
        }
        return;
    }
    struct narr_word *w;
    int nw = narr_words(b, &w);
    struct narr_line *l = narr_new_line(out);
    narr_add_seg(l, mark_style, first, strlen(first));
    bool empty = true;
    unsigned last_style = 0;
    for (int i = 0; i < nw; i++) {
        bool fits = l->width + (empty ? 0 : 1) + w[i].cols <= width;
        if (!empty && (w[i].brk || !fits)) {
            l = narr_new_line(out);
            narr_add_seg(l, 0, cont, strlen(cont));
            empty = true;
        }
        /* The space between two words keeps only the styles both sides share, so an
         * underline or code background does not run into plain text. */
        if (!empty) narr_add_seg(l, (w[i].p[0].style & last_style) | extra, " ", 1);
        /* A word wider than the whole line is cut over several lines. */
        for (int k = 0; k < w[i].np; k++) {
            const char *s = w[i].p[k].s;
            size_t len = w[i].p[k].len;
            while (len > 0) {
                int room = width - l->width;
                if (room <= 0) {
                    l = narr_new_line(out);
                    narr_add_seg(l, 0, cont, strlen(cont));
                    room = width - l->width;
                    if (room <= 0) room = 1;
                }
                size_t take = narr_prefix(s, len, room);
                narr_add_seg(l, w[i].p[k].style | extra, s, take);
                s += take;
                len -= take;
            }
        }
        empty = false;
        last_style = w[i].p[w[i].np - 1].style;
        free(w[i].p);
    }
    free(w);
}

void narr_layout(const struct lesson_block *b, size_t nb, int width, bool blank_between,
                 bool utf8, struct narr *out)
{
    memset(out, 0, sizeof *out);
    if (width < 8) width = 8;
    for (size_t i = 0; i < nb; i++) {
        /* List items of one list and the lines of one quote stay together. */
        bool tight = i > 0 && b[i].kind == b[i - 1].kind &&
                     (b[i].kind == LBLOCK_ITEM || b[i].kind == LBLOCK_CODE);
        bool intro = i > 0 && b[i].kind == LBLOCK_ITEM && b[i - 1].kind == LBLOCK_PARAGRAPH;
        int sep = out->n;
        if (i > 0 && blank_between && !tight) narr_new_line(out)->with_next = intro;
        int first = out->n;
        narr_block(&b[i], width, utf8, out);
        if (i > 0 && !tight && !intro && first < out->n) out->l[first].starts = true;
        for (int k = sep; k < out->n; k++)
            out->l[k].block = (int)i;
    }
}

void narr_free(struct narr *n)
{
    for (int i = 0; i < n->n; i++) {
        for (int k = 0; k < n->l[i].nseg; k++)
            free(n->l[i].seg[k].text);
        free(n->l[i].seg);
    }
    free(n->l);
    memset(n, 0, sizeof *n);
}

void narr_line_text(const struct narr_line *l, char *buf, size_t n)
{
    size_t o = 0;
    if (n) buf[0] = '\0';
    for (int k = 0; k < l->nseg && o + 1 < n; k++)
        o += (size_t)snprintf(buf + o, n - o, "%s", l->seg[k].text);
}

static attr_t narr_attr(unsigned style, const struct narr_attrs *a)
{
    attr_t r = a->normal;
    if (style & NARR_RULE) return a->rule;
    if (style & NARR_MARK) return a->mark;
    if (style & NARR_HEADING) r |= a->heading;
    if (style & LSPAN_BOLD) r |= a->bold;
    if (style & LSPAN_ITALIC) r |= a->italic;
    if (style & LSPAN_CODE) r |= a->code;
    if (style & LSPAN_TERM) r |= a->term;
    return r;
}

int narr_draw(WINDOW *w, const struct narr *n, int from, int y, int x, int h,
              const struct narr_attrs *a)
{
    int drawn = 0;
    for (int i = from; i < n->n && drawn < h; i++, drawn++) {
        wmove(w, y + drawn, x);
        for (int k = 0; k < n->l[i].nseg; k++) {
            wattrset(w, narr_attr(n->l[i].seg[k].style, a));
            waddstr(w, n->l[i].seg[k].text);
        }
    }
    wattrset(w, A_NORMAL);
    return drawn;
}
