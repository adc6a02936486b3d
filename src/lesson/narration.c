/* narration.c - what is left of a slide after its scene and exercise blocks, read with md4c:
 * the title, narration blocks and styled spans a terminal can wrap, the slide's Markdown for
 * HTML, speaker notes, and the warnings about links a handout will not keep. Called by
 * lesson.c. */
#include "lesson/parse.h"

#include <ctype.h>
#include <md4c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- narration with md4c ---------------------------------------------------------------- */

struct md {
    struct ctx *c;
    struct lesson_slide *S;
    const char *text; /* the slide text md4c reads (scene/exercise blanked) */
    size_t base;      /* its offset in the file buffer */
    size_t len;
    size_t bcap, scap;
    struct lesson_block *cur; /* the block spans go to, or NULL */
    int quote, list;          /* nesting */
    int li_ordinal[64];       /* per list depth: next number (0 = bullet) */
    bool item_first;
    int em, strong, code;
    bool in_title, title_done, in_heading, in_code, in_html_block, in_table;
    int table_cells;
    struct vec_buf title;
    int title_first_line, title_last_line;
    struct vec_buf html; /* raw HTML being collected (a comment may come in pieces) */
    size_t html_off;
    const char *html_end; /* end of the last raw HTML piece in the source */
    struct vec_buf notes;
    /* byte ranges (in text) to delete from the slide's Markdown: notes */
    size_t (*cut)[2];
    size_t ncut, cutcap;
    bool pending_break;
    bool code_line_open; /* the code block's current line has its span */
    /* a link whose URL a handout will not keep: warned at the line of its first text */
    bool bad_link;
    char bad_url[80];
    int bad_url_line;  /* the URL's own line when it is in the source, else 0 */
    char bad_title[8]; /* the control character in the link's title, "" if none */
};

static int md_line(struct md *m, const char *p)
{
    size_t off = (p >= m->text && p <= m->text + m->len) ? (size_t)(p - m->text) : 0;
    return lp_line_of(m->c, m->base + off);
}

static void md_close(struct md *m)
{
    if (m->cur && m->cur->nspans == 0) m->S->nblocks--; /* an empty block is dropped */
    m->cur = NULL;
    m->scap = 0;
    m->pending_break = false;
}

static void md_open(struct md *m, enum lesson_block_kind kind, int ordinal)
{
    md_close(m);
    struct lesson_slide *S = m->S;
    VEC_GROW(S->blocks, m->bcap, S->nblocks + 1);
    struct lesson_block *b = &S->blocks[S->nblocks++];
    *b = (struct lesson_block){.kind = kind, .ordinal = ordinal, .line = 0};
    if (kind == LBLOCK_ITEM) {
        b->depth = m->list;
        b->first = m->item_first;
        if (!m->item_first) b->ordinal = 0;
        m->item_first = false;
    } else if (kind == LBLOCK_QUOTE) {
        b->depth = m->quote;
    }
    m->cur = b;
}

/* The block text goes to when none is open (tight list items have no paragraph). */
static void md_need_block(struct md *m)
{
    if (m->cur) return;
    if (m->list > 0) {
        int d = m->list < 64 ? m->list : 63;
        md_open(m, LBLOCK_ITEM, m->li_ordinal[d] ? m->li_ordinal[d] - 1 : 0);
    } else if (m->quote > 0)
        md_open(m, LBLOCK_QUOTE, 0);
    else
        md_open(m, LBLOCK_PARAGRAPH, 0);
}

static void md_add_span(struct md *m, const char *s, size_t n, unsigned style, bool hard,
                        const char *src)
{
    md_need_block(m);
    struct lesson_block *b = m->cur;
    if (!b->line) b->line = md_line(m, src);
    if (m->pending_break) {
        hard = true;
        m->pending_break = false;
    }
    /* a space where a cut comment met a space: one is enough */
    if (!hard && n && s[0] == ' ' && b->nspans) {
        const char *prev = b->spans[b->nspans - 1].text;
        size_t pl = strlen(prev);
        if (pl && prev[pl - 1] == ' ') s++, n--;
    }
    if (!n && !hard) return;
    /* merge with the previous span of the same style */
    if (!hard && b->nspans && b->spans[b->nspans - 1].style == style) {
        struct lesson_span *sp = &b->spans[b->nspans - 1];
        size_t old = strlen(sp->text);
        sp->text = xrealloc(sp->text, old + n + 1);
        memcpy(sp->text + old, s, n);
        sp->text[old + n] = '\0';
        return;
    }
    VEC_GROW(b->spans, m->scap, b->nspans + 1);
    b->spans[b->nspans++] = (struct lesson_span){lp_dupn(s, n), style, hard};
}

static unsigned md_style(const struct md *m)
{
    return (m->strong ? LSPAN_BOLD : 0u) | (m->em ? LSPAN_ITALIC : 0u) |
           (m->code ? LSPAN_CODE : 0u);
}

/* A raw HTML piece: comments are notes ("<!-- note: ...") or ignored; anything else is
 * shown as text. Collected until a comment is complete. */
static void md_html_flush(struct md *m, bool final)
{
    while (m->html.len) {
        char *h = m->html.s;
        if (strncmp(h, "<!--", 4) == 0) {
            char *end = strstr(h + 4, "-->");
            if (!end) {
                if (!final) return; /* wait for the rest */
                end = h + m->html.len;
                /* it would silently take the rest of the slide (into the notes, or away) */
                const char *b = h + 4;
                while (*b == ' ' || *b == '\t' || *b == '\n')
                    b++;
                lp_perr(m->c, lp_line_of(m->c, m->base + m->html_off),
                        "%s is never closed with '-->' (it would hide the rest of the slide)",
                        strncmp(b, "note:", 5) == 0 ? "speaker note '<!-- note:'"
                                                    : "HTML comment '<!--'");
            }
            const char *body = h + 4;
            while (*body == ' ' || *body == '\t' || *body == '\n')
                body++;
            if (strncmp(body, "note:", 5) == 0) {
                body += 5;
                size_t n = (size_t)(end - body);
                while (n && strchr(" \t\n", *body))
                    body++, n--;
                while (n && strchr(" \t\n", body[n - 1]))
                    n--;
                if (m->notes.len) vec_buf_puts(&m->notes, "\n");
                if (!m->S->notes_line)
                    m->S->notes_line = lp_line_of(m->c, m->base + m->html_off);
                for (size_t i = 0; i < n; i++) /* CRLF files: notes end lines with '\n' */
                    if (body[i] != '\r') vec_buf_append(&m->notes, body + i, 1);
            }
            size_t used = (size_t)(end - h) + (*end ? 3 : 0);
            VEC_GROW(m->cut, m->cutcap, m->ncut + 1);
            m->cut[m->ncut][0] = m->html_off;
            m->cut[m->ncut][1] = m->html_off + used;
            m->ncut++;
            memmove(h, h + used, m->html.len - used + 1);
            m->html.len -= used;
            m->html_off += used;
            continue;
        }
        /* other raw HTML: text, up to the next comment */
        char *next = strstr(h + 1, "<!--");
        size_t n = next ? (size_t)(next - h) : m->html.len;
        if (!next && !final && m->in_html_block) return;
        /* split at newlines: each line its own hard-broken piece */
        size_t i = 0;
        while (i < n) {
            size_t j = i;
            while (j < n && h[j] != '\n')
                j++;
            if (!lp_is_blank(h + i, j - i)) {
                md_add_span(m, h + i, j - i, md_style(m), i > 0 && m->cur && m->cur->nspans,
                            m->text + m->html_off + i);
            }
            i = j + 1;
        }
        memmove(h, h + n, m->html.len - n + 1);
        m->html.len -= n;
        m->html_off += n;
    }
}

static int md_enter_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    switch (type) {
    case MD_BLOCK_QUOTE:
        md_close(m);
        m->quote++;
        break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        md_close(m);
        m->list++;
        if (m->list < 64)
            m->li_ordinal[m->list] =
                type == MD_BLOCK_OL ? (int)((MD_BLOCK_OL_DETAIL *)detail)->start : 0;
        break;
    case MD_BLOCK_LI:
        md_close(m);
        m->item_first = true;
        if (m->list > 0 && m->list < 64 && m->li_ordinal[m->list]) m->li_ordinal[m->list]++;
        break;
    case MD_BLOCK_HR:
        md_open(m, LBLOCK_RULE, 0);
        /* a rule has no spans but is kept: give it a line and close it by hand */
        m->cur = NULL;
        break;
    case MD_BLOCK_H:
        md_close(m);
        m->in_heading = true;
        if (!m->title_done) {
            m->in_title = true;
        } else {
            md_open(m, LBLOCK_HEADING, (int)((MD_BLOCK_H_DETAIL *)detail)->level);
        }
        break;
    case MD_BLOCK_CODE:
        md_open(m, LBLOCK_CODE, 0);
        m->in_code = true;
        m->code_line_open = false;
        break;
    case MD_BLOCK_HTML:
        md_close(m);
        m->in_html_block = true;
        break;
    case MD_BLOCK_P:
        if (m->list > 0) {
            bool first = m->item_first;
            md_close(m);
            m->item_first = first;
            int d = m->list < 64 ? m->list : 63;
            md_open(m, LBLOCK_ITEM, m->li_ordinal[d] ? m->li_ordinal[d] - 1 : 0);
        } else if (m->quote > 0)
            md_open(m, LBLOCK_QUOTE, 0);
        else
            md_open(m, LBLOCK_PARAGRAPH, 0);
        break;
    case MD_BLOCK_TABLE:
        md_open(m, LBLOCK_PARAGRAPH, 0);
        m->in_table = true;
        break;
    case MD_BLOCK_TR:
        if (m->cur && m->cur->nspans) m->pending_break = true;
        m->table_cells = 0;
        break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        if (m->table_cells++) md_add_span(m, " | ", 3, 0, false, NULL);
        break;
    default:
        break;
    }
    return 0;
}

static int md_leave_block(MD_BLOCKTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    (void)detail;
    switch (type) {
    case MD_BLOCK_QUOTE:
        md_close(m);
        m->quote--;
        break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        md_close(m);
        m->list--;
        break;
    case MD_BLOCK_LI:
    case MD_BLOCK_P:
    case MD_BLOCK_CODE:
        md_html_flush(m, true);
        md_close(m);
        m->in_code = false;
        break;
    case MD_BLOCK_H:
        md_html_flush(m, true);
        if (m->in_title) {
            m->in_title = false;
            m->title_done = true;
        } else
            md_close(m);
        m->in_heading = false;
        break;
    case MD_BLOCK_HTML:
        md_html_flush(m, true);
        md_close(m);
        m->in_html_block = false;
        break;
    case MD_BLOCK_TABLE:
        md_close(m);
        m->in_table = false;
        break;
    default:
        break;
    }
    return 0;
}

static size_t decode_entity(const char *s, size_t n, char *out);

bool lesson_url_allowed(const char *url, size_t n)
{
    /* as a browser reads it: leading blanks and controls skipped, tabs and line ends inside
     * dropped, the scheme in any case */
    size_t i = 0;
    while (i < n && (unsigned char)url[i] <= 0x20)
        i++;
    char head[8];
    size_t k = 0;
    for (; i < n && k < sizeof head; i++) {
        char ch = url[i];
        if (ch == '\t' || ch == '\n' || ch == '\r') continue;
        head[k++] = (char)tolower((unsigned char)ch);
    }
    static const char *const ok[] = {"http:", "https:", "mailto:", "#"};
    for (size_t j = 0; j < ARRAY_LEN(ok); j++) {
        size_t l = strlen(ok[j]);
        /* cppcheck-suppress uninitvar ; l <= k: only the k bytes written are compared */
        if (k >= l && memcmp(head, ok[j], l) == 0) return true;
    }
    return false;
}

/* A link's URL with its entities decoded (what a browser would follow) into out. */
static void md_attr_text(const MD_ATTRIBUTE *a, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; a->substr_offsets[i] < a->size; i++) {
        const char *p = a->text + a->substr_offsets[i];
        size_t n = a->substr_offsets[i + 1] - a->substr_offsets[i];
        char ent[8];
        if (a->substr_types[i] == MD_TEXT_ENTITY) {
            n = decode_entity(p, n, ent);
            p = ent;
        }
        for (size_t k = 0; k < n && o + 1 < cap; k++)
            out[o++] = p[k];
    }
    out[o] = '\0';
}

static int md_enter_span(MD_SPANTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    if (type == MD_SPAN_A) {
        const MD_SPAN_A_DETAIL *a = detail;
        char url[LESSON_MAX_LINE_BYTES + 1];
        md_attr_text(&a->href, url, sizeof url);
        if (!lesson_url_allowed(url, strlen(url))) {
            m->bad_link = true;
            char shown[sizeof m->bad_url];
            cv_safe_text(url, shown, sizeof shown, false);
            snprintf(m->bad_url, sizeof m->bad_url, "%s", shown);
            bool in_src = a->href.text >= m->text && a->href.text < m->text + m->len;
            m->bad_url_line = in_src ? md_line(m, a->href.text) : 0;
        }
        /* the title becomes an attribute of the handout: no control characters there
         * either ("&#27;" decoded is an ESC) */
        char title[LESSON_MAX_LINE_BYTES + 1];
        md_attr_text(&a->title, title, sizeof title);
        for (const unsigned char *t = (const unsigned char *)title; *t; t++)
            if ((*t < 0x20 && *t != '\t') || *t == 0x7f ||
                (t[0] == 0xc2 && t[1] >= 0x80 && t[1] < 0xa0)) {
                lp_control_name(t[0] == 0xc2 ? t[1] : t[0], m->bad_title, sizeof m->bad_title);
                break; /* said at the line of the link's text (md_link_problems) */
            }
    }
    if (type == MD_SPAN_EM) m->em++;
    if (type == MD_SPAN_STRONG) m->strong++;
    if (type == MD_SPAN_CODE) m->code++;
    return 0;
}

static void md_warn_link(struct md *m, int line)
{
    lp_pwarn(m->c, line,
             "link to '%s' is not kept in handouts (only http:, https:, mailto: and #anchors); "
             "it is shown as text",
             m->bad_url);
    m->bad_link = false;
}

/* What md_enter_span found wrong with a link, said at `line`. */
static void md_link_problems(struct md *m, int line)
{
    if (m->bad_link) md_warn_link(m, line);
    if (m->bad_title[0]) {
        lp_perr(m->c, line, "control character %s in a link's title", m->bad_title);
        m->bad_title[0] = '\0';
    }
}

static int md_leave_span(MD_SPANTYPE type, void *detail, void *ud)
{
    struct md *m = ud;
    (void)detail;
    if (type == MD_SPAN_A) md_link_problems(m, m->bad_url_line ? m->bad_url_line : m->S->line);
    if (type == MD_SPAN_EM && m->em) m->em--;
    if (type == MD_SPAN_STRONG && m->strong) m->strong--;
    if (type == MD_SPAN_CODE && m->code) m->code--;
    return 0;
}

/* &amp; &#8212; ... → UTF-8 into out (at least 8 bytes); unknown entities stay as written. */
static size_t decode_entity(const char *s, size_t n, char *out)
{
    static const struct {
        const char *name, *utf8;
    } named[] = {
        {"&amp;", "&"},
        {"&lt;", "<"},
        {"&gt;", ">"},
        {"&quot;", "\""},
        {"&apos;", "'"},
        {"&nbsp;", "\xc2\xa0"},
        {"&mdash;", "\xe2\x80\x94"},
        {"&ndash;", "\xe2\x80\x93"},
        {"&middot;", "\xc2\xb7"},
        {"&times;", "\xc3\x97"},
        {"&colon;", ":"},
        {"&Tab;", "\t"},
        {"&NewLine;", "\n"},
    };
    for (size_t i = 0; i < ARRAY_LEN(named); i++)
        if (strlen(named[i].name) == n && memcmp(named[i].name, s, n) == 0) {
            strcpy(out, named[i].utf8);
            return strlen(out);
        }
    if (n >= 4 && s[1] == '#' && n < 16) {
        char num[16];
        memcpy(num, s + 2, n - 3);
        num[n - 3] = '\0';
        char *end;
        unsigned long cp = (num[0] == 'x' || num[0] == 'X') ? strtoul(num + 1, &end, 16)
                                                            : strtoul(num, &end, 10);
        if (*end == '\0' && end != num) {
            if (cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
            if (cp < 0x80) {
                out[0] = (char)cp;
                return 1;
            } else if (cp < 0x800) {
                out[0] = (char)(0xc0 | (cp >> 6));
                out[1] = (char)(0x80 | (cp & 0x3f));
                return 2;
            } else if (cp < 0x10000) {
                out[0] = (char)(0xe0 | (cp >> 12));
                out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                out[2] = (char)(0x80 | (cp & 0x3f));
                return 3;
            }
            out[0] = (char)(0xf0 | (cp >> 18));
            out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
            out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
            out[3] = (char)(0x80 | (cp & 0x3f));
            return 4;
        }
    }
    size_t k = n < 8 ? n : 8;
    memcpy(out, s, k);
    return k;
}

static int md_text(MD_TEXTTYPE type, const MD_CHAR *text, MD_SIZE size, void *ud)
{
    struct md *m = ud;
    bool in_src = text >= m->text && text + size <= m->text + m->len;
    if ((m->bad_link || m->bad_title[0]) && in_src) md_link_problems(m, md_line(m, text));
    if (type == MD_TEXT_HTML) {
        /* the buffer is always the exact source from html_off on (line ends, quote marks
         * and all), so the byte ranges cut from the Markdown are exact */
        if (!in_src && m->html.len && m->html_end)
            return 0; /* md4c's own "\n" between lines: the source's line end comes next */
        if (!m->html.len)
            m->html_off = in_src ? (size_t)(text - m->text) : 0;
        else if (in_src && m->html_end && text > m->html_end)
            vec_buf_append(&m->html, m->html_end, (size_t)(text - m->html_end));
        vec_buf_append(&m->html, text, size);
        m->html_end = in_src ? text + size : NULL;
        md_html_flush(m, false);
        return 0;
    }
    /* a comment may be open across a soft break: the next piece brings the line end */
    if (m->html.len && type == MD_TEXT_SOFTBR) return 0;
    md_html_flush(m, true);
    char ent[8];
    const char *s = text;
    size_t n = size;
    if (type == MD_TEXT_ENTITY) {
        n = decode_entity(text, size, ent);
        s = ent;
        unsigned char b0 = (unsigned char)ent[0], b1 = (unsigned char)ent[1];
        bool ctl = (n == 1 && (b0 < 0x20 || b0 == 0x7f) && b0 != '\t') ||
                   (n == 2 && b0 == 0xc2 && b1 < 0xa0);
        if (ctl) { /* "&#27;" is as much an ESC as the byte */
            char name[8];
            lp_control_name(n == 1 ? b0 : b1, name, sizeof name);
            lp_perr(m->c, md_line(m, text), "control character %s written as %.*s", name,
                    (int)size, text);
            s = "\xef\xbf\xbd";
            n = 3;
        }
    } else if (type == MD_TEXT_SOFTBR) {
        s = " ";
        n = 1;
    } else if (type == MD_TEXT_NULLCHAR) {
        s = "\xef\xbf\xbd";
        n = 3;
    }
    if (m->in_title) {
        int line = md_line(m, text);
        if (!m->title_first_line) m->title_first_line = line;
        if (type != MD_TEXT_BR && type != MD_TEXT_SOFTBR) m->title_last_line = line;
        if (type == MD_TEXT_BR)
            vec_buf_puts(&m->title, " ");
        else
            vec_buf_append(&m->title, s, n);
        return 0;
    }
    if (type == MD_TEXT_BR) {
        md_need_block(m);
        m->pending_break = m->cur->nspans > 0;
        return 0;
    }
    if (m->in_code) { /* one span per line; an empty line is an empty span */
        size_t i = 0;
        while (i <= n) {
            size_t j = i;
            while (j < n && s[j] != '\n')
                j++;
            md_need_block(m);
            struct lesson_block *b = m->cur;
            if (!b->line) b->line = md_line(m, text + i);
            if (j > i || (j < n && !m->code_line_open)) {
                if (m->code_line_open && b->nspans) {
                    struct lesson_span *sp = &b->spans[b->nspans - 1];
                    size_t old = strlen(sp->text);
                    sp->text = xrealloc(sp->text, old + (j - i) + 1);
                    memcpy(sp->text + old, s + i, j - i);
                    sp->text[old + (j - i)] = '\0';
                } else {
                    VEC_GROW(b->spans, m->scap, b->nspans + 1);
                    b->spans[b->nspans] =
                        (struct lesson_span){lp_dupn(s + i, j - i), LSPAN_CODE, b->nspans > 0};
                    b->nspans++;
                    m->code_line_open = true;
                }
            }
            if (j >= n) break;
            m->code_line_open = false; /* the '\n' ends the line */
            i = j + 1;
        }
        return 0;
    }
    md_add_span(m, s, n, md_style(m), false, text);
    return 0;
}

/* A speaker note indented four spaces or more is, to Markdown, a code block: the room
 * would see it. Each such line's indent moves to its end (the same bytes, so offsets into
 * text stay right) and S->indented_note_line records the first (lesson check warns). Lines
 * inside a fenced code block are left alone. */
static void unindent_notes(struct ctx *c, struct lesson_slide *S, char *text, size_t len,
                           size_t base)
{
    bool fence = false;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t k = i;
        int col = 0;
        while (k < e && (text[k] == ' ' || text[k] == '\t'))
            col += text[k++] == '\t' ? 4 - col % 4 : 1;
        if (e - k >= 3 &&
            (strncmp(text + k, "```", 3) == 0 || strncmp(text + k, "~~~", 3) == 0))
            fence = !fence;
        const char *b = text + k + 4;
        while (k + 4 <= e && b < text + e && (*b == ' ' || *b == '\t'))
            b++;
        if (!fence && col >= 4 && e - k > 4 && strncmp(text + k, "<!--", 4) == 0 &&
            (size_t)(text + e - b) >= 5 && strncmp(b, "note:", 5) == 0) {
            size_t ind = k - i;
            memmove(text + i, text + k, e - k);
            memset(text + e - ind, ' ', ind);
            if (!S->indented_note_line) S->indented_note_line = lp_line_of(c, base + i);
        }
        i = e + 1;
    }
}

/* Narration, title and notes of slide S from text (the slide with its scene and exercise
 * blocks blanked), which starts at offset base of the file. */
void lp_parse_narration(struct ctx *c, struct lesson_slide *S, char *text, size_t len,
                        size_t base)
{
    unindent_notes(c, S, text, len, base);
    struct md m = {.c = c, .S = S, .text = text, .base = base, .len = len};
    MD_PARSER parser = {
        .abi_version = 0,
        .flags = MD_FLAG_TABLES,
        .enter_block = md_enter_block,
        .leave_block = md_leave_block,
        .enter_span = md_enter_span,
        .leave_span = md_leave_span,
        .text = md_text,
    };
    md_parse(text, (MD_SIZE)len, &parser, &m);
    md_html_flush(&m, true);
    md_close(&m);
    /* trim the last span of blocks of trailing blanks (soft breaks before a comment) */
    if (m.title_done && m.title.len) {
        char t[LESSON_MAX_LINE_BYTES * 2 + 1];
        if (lp_trim_copy(m.title.s, m.title.len, t, sizeof t) && t[0]) {
            S->title = xstrdup(t);
            S->title_line = m.title_first_line;
        }
    }
    free(m.title.s);
    S->notes = m.notes.len ? vec_buf_take(&m.notes) : NULL;
    free(m.notes.s);
    free(m.html.s);

    /* the Markdown for HTML: without the notes and the title's lines */
    for (size_t i = 0; i < m.ncut; i++)
        for (size_t k = m.cut[i][0]; k < m.cut[i][1] && k < len; k++)
            if (text[k] != '\n') text[k] = '\x01';
    free(m.cut);
    if (S->title) {
        int first = m.title_first_line, last = m.title_last_line;
        if (last < first) last = first;
        for (int ln = first; ln <= last + 1; ln++) {
            if (ln < 1 || (size_t)ln > c->nlines) continue;
            size_t a = c->lines[ln - 1];
            size_t b = (size_t)ln < c->nlines ? c->lines[ln] : c->len;
            if (a < base || b > base + len) continue;
            bool underline = ln == last + 1;
            if (underline) { /* a setext underline */
                struct line l = lp_get_line(c, (size_t)ln - 1);
                size_t i = 0;
                while (i < l.n && l.s[i] == ' ')
                    i++;
                char u = i < l.n ? l.s[i] : 0;
                if (u != '=' && u != '-') continue;
                while (i < l.n && (l.s[i] == u || l.s[i] == ' '))
                    i++;
                if (i != l.n) continue;
            }
            for (size_t k = a; k < b; k++)
                if (text[k - base] != '\n') text[k - base] = '\x01';
        }
    }
    struct vec_buf md = {0};
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n')
            j++;
        bool blank = true;
        for (size_t k = i; k < j; k++)
            if (text[k] != '\x01' && text[k] != ' ' && text[k] != '\t' && text[k] != '\r')
                blank = false;
        if (blank) {
            /* blank (or blanked: a scene, an exercise, a note, the title): one empty line
             * for any number of them */
            if (md.len &&
                !(md.len >= 2 && md.s[md.len - 1] == '\n' && md.s[md.len - 2] == '\n'))
                vec_buf_puts(&md, "\n");
        } else {
            for (size_t k = i; k < j; k++)
                if (text[k] != '\x01' && !(text[k] == '\r' && k + 1 == j))
                    vec_buf_append(&md, text + k, 1);
            vec_buf_puts(&md, "\n");
        }
        i = j + 1;
    }
    /* trim blank lines at both ends */
    char *s = md.s ? md.s : "";
    size_t n = md.len;
    size_t start = 0;
    while (start < n) {
        size_t e = start;
        while (e < n && s[e] != '\n')
            e++;
        if (!lp_is_blank(s + start, e - start)) break;
        start = e + 1;
    }
    while (n > start && strchr(" \t\r\n", s[n - 1]))
        n--;
    S->markdown = n > start ? lp_dupn(s + start, n - start) : xstrdup("");
    free(md.s);
}
