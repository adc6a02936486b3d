/* paper_text.c - a lesson's text for paper: sentences that name a key left out, numbers
 * at a precision a reader can use (see paper_text.h). */
#include "handout/paper_text.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "core/vec.h"

/* ---- naming a key ------------------------------------------------------------------ */

static const char *const arrows[] = {"\u2192", "\u2190", "\u2191", "\u2193"};

static bool pt_is_arrow(const char *s, size_t n)
{
    for (size_t k = 0; k < ARRAY_LEN(arrows); k++)
        if (n >= strlen(arrows[k]) && memcmp(s, arrows[k], strlen(arrows[k])) == 0) return true;
    return false;
}

/* A code span's text that is a key: one printable character, or a key's name. */
static bool pt_code_is_key(const char *s, size_t n)
{
    while (n && s[0] == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    if (n == 1) return s[0] > ' ' && s[0] < 0x7f;
    if (pt_is_arrow(s, n) && n == strlen(arrows[0])) return true;
    static const char *const names[] = {
        "enter", "return", "esc",  "escape", "tab",      "space", "backspace", "home",
        "end",   "pgup",   "pgdn", "pageup", "pagedown", "up",    "down",      "left",
        "right", "f1",     "f2",   "f3",     "f4",       "f5",    "f6",        "f7",
        "f8",    "f9",     "f10",  "f11",    "f12"};
    for (size_t k = 0; k < ARRAY_LEN(names); k++)
        if (strlen(names[k]) == n && strncasecmp(s, names[k], n) == 0) return true;
    return false;
}

static bool pt_word_at(const char *s, size_t n, size_t i, const char *w)
{
    size_t l = strlen(w);
    if (i + l > n || strncasecmp(s + i, w, l) != 0) return false;
    bool start = i == 0 || !isalpha((unsigned char)s[i - 1]);
    bool end = i + l == n || !isalpha((unsigned char)s[i + l]);
    return start && end;
}

/* "with →", "with the right arrow", "arrow key(s)". */
static bool pt_arrow_phrase(const char *s, size_t n, size_t i)
{
    if (pt_word_at(s, n, i, "with")) {
        size_t j = i + 4;
        while (j < n && s[j] == ' ')
            j++;
        if (pt_is_arrow(s + j, n - j)) return true;
        static const char *const dirs[] = {"the right arrow", "the left arrow", "the up arrow",
                                           "the down arrow"};
        for (size_t k = 0; k < ARRAY_LEN(dirs); k++)
            if (j + strlen(dirs[k]) <= n && strncasecmp(s + j, dirs[k], strlen(dirs[k])) == 0)
                return true;
    }
    return pt_word_at(s, n, i, "arrow") && i + 10 <= n &&
           strncasecmp(s + i, "arrow key", 9) == 0;
}

bool paper_text_names_key(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '`') {
            const char *e = memchr(s + i + 1, '`', n - i - 1);
            if (!e) break;
            if (pt_code_is_key(s + i + 1, (size_t)(e - s - i - 1))) return true;
            i = (size_t)(e - s);
            continue;
        }
        static const char *const press[] = {"press", "presses", "pressing", "pressed"};
        for (size_t k = 0; k < ARRAY_LEN(press); k++)
            if (pt_word_at(s, n, i, press[k])) return true;
        if (pt_arrow_phrase(s, n, i)) return true;
    }
    return false;
}

static bool pt_mentions_key(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pt_word_at(s, n, i, "key") || pt_word_at(s, n, i, "keys")) return true;
    return false;
}

/* ---- sentences --------------------------------------------------------------------- */

/* The reading of a paragraph: its text with code spans between backticks; at[i] is the
 * byte of the pieces R[i] came from (SIZE_MAX: a backtick added here). */
struct pt_read {
    char *r;
    size_t *at;
    size_t n, cap, capat;
};

static void pt_put(struct pt_read *rd, char c, size_t at)
{
    VEC_GROW(rd->r, rd->cap, rd->n + 2);
    VEC_GROW(rd->at, rd->capat, rd->n + 1);
    rd->r[rd->n] = c;
    rd->at[rd->n++] = at;
    rd->r[rd->n] = '\0';
}

static size_t pt_sentence_end(const struct pt_read *rd, size_t i)
{
    bool code = false;
    for (; i < rd->n; i++) {
        char c = rd->r[i];
        if (c == '`' && rd->at[i] == SIZE_MAX) code = !code;
        if (code || (c != '.' && c != '!' && c != '?')) continue;
        size_t j = i + 1;
        while (j < rd->n && (rd->r[j] == ')' || rd->r[j] == '"'))
            j++;
        if (j < rd->n && !isspace((unsigned char)rd->r[j])) continue;
        while (j < rd->n && isspace((unsigned char)rd->r[j]))
            j++;
        return j;
    }
    return rd->n;
}

static void pt_drop(const struct pt_read *rd, size_t a, size_t b, bool *keep)
{
    for (size_t i = a; i < b; i++)
        if (rd->at[i] != SIZE_MAX) keep[rd->at[i]] = false;
}

/* A sentence [a, b) that names a key: only its parentheses that do when what is left says
 * something and names none; else all of it. Returns true when all of it went. */
static bool pt_drop_sentence(const struct pt_read *rd, size_t a, size_t b, bool *keep)
{
    char *rest = xmalloc(b - a + 1);
    size_t rn = 0, cut[8][2], ncut = 0;
    for (size_t i = a; i < b; i++) {
        if (rd->r[i] == '(' && ncut < 8) {
            size_t depth = 0, j = i;
            for (; j < b; j++) {
                depth += rd->r[j] == '(';
                if (rd->r[j] == ')' && --depth == 0) break;
            }
            if (j < b && paper_text_names_key(rd->r + i, j + 1 - i)) {
                size_t s = i;
                while (s > a && rd->r[s - 1] == ' ')
                    s--;
                cut[ncut][0] = s, cut[ncut][1] = j + 1, ncut++;
                if (rn > 0 && rest[rn - 1] == ' ') rn--;
                i = j;
                continue;
            }
        }
        rest[rn++] = rd->r[i];
    }
    bool says = false;
    for (size_t i = 0; i < rn; i++)
        says |= isalnum((unsigned char)rest[i]) != 0;
    bool whole = !ncut || !says || paper_text_names_key(rest, rn);
    free(rest);
    if (whole) {
        pt_drop(rd, a, b, keep);
        return true;
    }
    for (size_t k = 0; k < ncut; k++)
        pt_drop(rd, cut[k][0], cut[k][1], keep);
    return false;
}

size_t paper_text_keep(const struct paper_piece *p, size_t np, bool *keep)
{
    struct pt_read rd = {0};
    size_t off = 0, dropped = 0;
    for (size_t k = 0; k < np; k++) {
        for (size_t i = 0; i < p[k].n; i++)
            keep[off + i] = true;
        if (p[k].kind == PAPER_CODE) pt_put(&rd, '`', SIZE_MAX);
        if (p[k].kind != PAPER_MARKUP)
            for (size_t i = 0; i < p[k].n; i++)
                pt_put(&rd, p[k].s[i], off + i);
        if (p[k].kind == PAPER_CODE) pt_put(&rd, '`', SIZE_MAX);
        off += p[k].n;
    }
    bool went = false; /* a sentence naming a key went: "the key" after it means it */
    for (size_t a = 0; a < rd.n;) {
        size_t b = pt_sentence_end(&rd, a);
        if (paper_text_names_key(rd.r + a, b - a)) {
            went |= pt_drop_sentence(&rd, a, b, keep);
            dropped++;
        } else if (went && pt_mentions_key(rd.r + a, b - a)) {
            pt_drop(&rd, a, b, keep);
            dropped++;
        }
        a = b;
    }
    free(rd.r);
    free(rd.at);
    return dropped;
}

/* ---- narration blocks --------------------------------------------------------------- */

bool paper_text_block(const struct lesson_block *b, struct lesson_block *out)
{
    *out = *b;
    out->spans = xcalloc(b->nspans ? b->nspans : 1, sizeof *out->spans);
    struct paper_piece *p = xcalloc(b->nspans ? b->nspans : 1, sizeof *p);
    size_t total = 0;
    for (size_t i = 0; i < b->nspans; i++) {
        const struct lesson_span *sp = &b->spans[i];
        p[i] = (struct paper_piece){sp->text, strlen(sp->text),
                                    sp->style & LSPAN_CODE ? PAPER_CODE : PAPER_TEXT};
        total += p[i].n;
    }
    bool *keep = xcalloc(total ? total : 1, 1);
    if (b->kind != LBLOCK_CODE)
        paper_text_keep(p, b->nspans, keep);
    else
        memset(keep, 1, total);
    bool any = false, space = true; /* the block starts as if after a space */
    size_t off = 0;
    for (size_t i = 0; i < b->nspans; i++) {
        out->spans[i] = b->spans[i];
        char *t = xmalloc(p[i].n + 1);
        size_t o = 0;
        for (size_t j = 0; j < p[i].n; j++) {
            char c = p[i].s[j];
            if (!keep[off + j] || (c == ' ' && space && b->kind != LBLOCK_CODE)) continue;
            t[o++] = c;
            space = c == ' ';
            any |= c != ' ';
        }
        t[o] = '\0';
        out->spans[i].text = t;
        off += p[i].n;
    }
    free(keep);
    free(p);
    if (!any || b->kind == LBLOCK_RULE) {
        paper_text_block_free(out);
        return b->kind == LBLOCK_RULE;
    }
    return true;
}

void paper_text_block_free(struct lesson_block *b)
{
    for (size_t i = 0; i < b->nspans; i++)
        free(b->spans[i].text);
    free(b->spans);
    b->spans = NULL;
    b->nspans = 0;
}

/* ---- HTML ------------------------------------------------------------------------- */

static bool pt_inline_tag(const char *tag, size_t n)
{
    static const char *const inl[] = {"code", "em", "strong", "a", "del", "u",   "span", "img",
                                      "br",   "b",  "i",      "s", "sub", "sup", "kbd"};
    size_t i = 1 + (n > 1 && tag[1] == '/');
    size_t l = 0;
    while (i + l < n && isalnum((unsigned char)tag[i + l]))
        l++;
    for (size_t k = 0; k < ARRAY_LEN(inl); k++)
        if (strlen(inl[k]) == l && strncasecmp(tag + i, inl[k], l) == 0) return true;
    return false;
}

/* Flush the pieces of one block, its bytes kept or not, to out. */
static void pt_flush(struct paper_piece *p, size_t *np, struct pt_read *out)
{
    size_t total = 0;
    for (size_t k = 0; k < *np; k++)
        total += p[k].n;
    bool *keep = xcalloc(total ? total : 1, 1);
    paper_text_keep(p, *np, keep);
    size_t off = 0;
    for (size_t k = 0; k < *np; k++)
        for (size_t i = 0; i < p[k].n; i++, off++)
            if (keep[off]) pt_put(out, p[k].s[i], 0);
    free(keep);
    *np = 0;
}

/* Remove every `open` (only blanks) `close` from s, in place; returns how many. */
static int pt_drop_pair(char *s, const char *open, const char *close)
{
    int n = 0;
    char *o = s;
    size_t ol = strlen(open), cl = strlen(close);
    for (const char *q = s; *q;) {
        if (strncmp(q, open, ol) == 0) {
            const char *e = q + ol;
            while (*e == ' ' || *e == '\n')
                e++;
            if (strncmp(e, close, cl) == 0) {
                q = e + cl;
                if (*q == '\n' && (o == s || o[-1] == '\n')) q++;
                n++;
                continue;
            }
        }
        *o++ = *q++;
    }
    *o = '\0';
    return n;
}

/* Drop the elements the filter emptied: inline ones first ("<code></code>"), then the
 * paragraphs and list items left with nothing. */
static void pt_drop_empty(char *s)
{
    static const char *const pairs[][2] = {{"<code>", "</code>"},     {"<em>", "</em>"},
                                           {"<strong>", "</strong>"}, {"<del>", "</del>"},
                                           {"<p>", "</p>"},           {"<li>", "</li>"}};
    for (int again = 1; again;) {
        again = 0;
        for (size_t k = 0; k < ARRAY_LEN(pairs); k++)
            again += pt_drop_pair(s, pairs[k][0], pairs[k][1]);
    }
}

char *paper_text_html(const char *html)
{
    struct pt_read out = {0};
    struct paper_piece *p = NULL;
    size_t np = 0, cap = 0;
    bool code = false;
    const char *s = html;
    pt_put(&out, '\0', 0); /* out.r is a string even when html is empty */
    out.n = 0;
    while (*s) {
        if (*s == '<') {
            const char *e = strchr(s, '>');
            size_t n = e ? (size_t)(e - s) + 1 : strlen(s);
            if (strncmp(s, "<pre", 4) == 0) { /* not narration: as it is, to its end */
                pt_flush(p, &np, &out);
                const char *end = strstr(s, "</pre>");
                n = end ? (size_t)(end - s) + 6 : strlen(s);
                for (size_t i = 0; i < n; i++)
                    pt_put(&out, s[i], 0);
                s += n;
                continue;
            }
            if (!pt_inline_tag(s, n)) {
                pt_flush(p, &np, &out);
                for (size_t i = 0; i < n; i++)
                    pt_put(&out, s[i], 0);
                s += n;
                continue;
            }
            if (strncmp(s, "<code", 5) == 0) code = true;
            if (strncmp(s, "</code", 6) == 0) code = false;
            VEC_GROW(p, cap, np + 1);
            p[np++] = (struct paper_piece){s, n, PAPER_MARKUP};
            s += n;
            continue;
        }
        size_t n = strcspn(s, "<");
        VEC_GROW(p, cap, np + 1);
        p[np++] = (struct paper_piece){s, n, code ? PAPER_CODE : PAPER_TEXT};
        s += n;
    }
    pt_flush(p, &np, &out);
    free(p);
    free(out.at);
    pt_drop_empty(out.r);
    return out.r;
}

/* ---- numbers ---------------------------------------------------------------------- */

/* x as p/q with 2 <= q <= 12, |p| < 100, in lowest terms; false when it is not one (a
 * ratio of small counts, like a bubble's 3/7; not 250/3 for 83.3). */
static bool pt_fraction(double x, long *p, long *q)
{
    for (long d = 2; d <= 12; d++) {
        double v = x * (double)d, r = round(v);
        if (fabs(v - r) > 1e-9 * (fabs(v) > 1 ? fabs(v) : 1) || fabs(r) >= 100) continue;
        long a = labs((long)r), b = d;
        while (b) {
            long t = a % b;
            a = b;
            b = t;
        }
        if (a != 1) continue;
        *p = (long)r;
        *q = d;
        return true;
    }
    return false;
}

/* Three significant digits, in plain notation from 0.001 up (whole numbers from 100). */
static void pt_sig3(double x, char *buf, size_t n)
{
    double a = fabs(x);
    if (a >= 100)
        snprintf(buf, n, "%.0f", x);
    else if (a >= 1e-3)
        snprintf(buf, n, "%.*f", a >= 10 ? 1 : a >= 1 ? 2 : 2 - (int)floor(log10(a)), x);
    else
        snprintf(buf, n, "%.3g", x);
    /* no trailing zeros after the point ("0.50" -> "0.5", "2.00" -> "2") */
    if (strchr(buf, '.') && !strchr(buf, 'e')) {
        size_t l = strlen(buf);
        while (l > 0 && buf[l - 1] == '0')
            buf[--l] = '\0';
        if (l > 0 && buf[l - 1] == '.') buf[--l] = '\0';
    }
}

void paper_text_number(double x, char *buf, size_t n)
{
    if (!isfinite(x)) {
        snprintf(buf, n, "%g", x);
        return;
    }
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, n, "%.0f", x);
        return;
    }
    char d[64];
    pt_sig3(x, d, sizeof d);
    long p, q;
    if (pt_fraction(x, &p, &q) && strtod(d, NULL) != x)
        snprintf(buf, n, "%ld/%ld \u2248 %s", p, q, d);
    else
        snprintf(buf, n, "%s", d);
}
