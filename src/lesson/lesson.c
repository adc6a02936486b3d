/* lesson.c - read a lesson file (lessons/README.md is the format) into struct lesson.
 *
 * Three passes over an untrusted buffer. (1) Bytes: size, NUL, UTF-8 and line length, each
 * error at its line; nothing else runs on a buffer that fails them. (2) Lines: the front
 * matter, then slides split at a `---` line that follows a blank line outside code fences;
 * in each slide the ```scene and ```exercise blocks are read as key: value lines and blanked
 * (spaces, so offsets and line numbers stay put). (3) md4c over what is left of each slide:
 * title, narration blocks and spans, speaker notes. Every error is collected as
 * "file:line: message"; parsing goes on after one so a teacher sees them all at once.
 *
 * This file holds passes (1) and (2), the slides and the whole file, and the sets of
 * lessons; a slide's parts are read by scene_block.c, exercise_block.c and narration.c
 * (parse.h is what they share). */
#include "lesson/lesson.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <md4c.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/plan.h"
#include "core/text.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/parse.h"
#include "sys/rfile.h"

#define LESSON_MAX_ERRORS 200 /* per file: past this one line says there are more */

/* ---- errors ----------------------------------------------------------------------------- */

void lesson_errors_free(struct lesson_errors *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->msg[i]);
    free(e->msg);
    *e = (struct lesson_errors){0};
}

static void errs_push(struct lesson_errors *e, char *msg)
{
    e->msg = xrealloc(e->msg, (e->n + 1) * sizeof *e->msg);
    e->msg[e->n++] = msg;
}

void lp_perr(struct ctx *c, int line, const char *fmt, ...)
{
    c->nerr++;
    if (c->nerr > LESSON_MAX_ERRORS + 1) return;
    char msg[600];
    if (c->nerr == LESSON_MAX_ERRORS + 1) {
        snprintf(msg, sizeof msg, "%s: too many errors; the rest are not shown", c->path);
        errs_push(c->errs, xstrdup(msg));
        return;
    }
    char text[480];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (line > 0)
        snprintf(msg, sizeof msg, "%s:%d: %s", c->path, line, text);
    else
        snprintf(msg, sizeof msg, "%s: %s", c->path, text);
    errs_push(c->errs, xstrdup(msg));
}

void lp_pwarn(struct ctx *c, int line, const char *fmt, ...)
{
    if (c->warns.n >= LESSON_MAX_ERRORS) return;
    char text[480], msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "%s:%d: warning: %s", c->path, line, text);
    errs_push(&c->warns, xstrdup(msg));
}

/* Line (1-based) of buffer offset off. */
int lp_line_of(const struct ctx *c, size_t off)
{
    size_t lo = 0, hi = c->nlines;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->lines[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    return (int)lo + 1;
}

/* ---- pass 1: bytes ---------------------------------------------------------------------- */

/* The caret name of a control character (ESC: "^["; DEL "^?"; C1 U+009B: "M-^["). */
void lp_control_name(unsigned cp, char *out, size_t n)
{
    if (cp >= 0x80)
        snprintf(out, n, "M-^%c", cp == 0x9f ? '?' : (char)(cp - 0x80 + 0x40));
    else
        snprintf(out, n, "^%c", cp == 0x7f ? '?' : (char)(cp + 0x40));
}

static bool check_bytes(struct ctx *c)
{
    bool ok = true;
    const unsigned char *s = (const unsigned char *)c->buf;
    for (size_t li = 0; li < c->nlines; li++) {
        size_t start = c->lines[li];
        size_t end = li + 1 < c->nlines ? c->lines[li + 1] : c->len;
        size_t content = end;
        if (content > start && s[content - 1] == '\n') content--;
        if (content > start && s[content - 1] == '\r') content--;
        int line = (int)li + 1;
        if (content - start > LESSON_MAX_LINE_BYTES) {
            lp_perr(c, line, "line too long (%zu bytes; at most %d)", content - start,
                    LESSON_MAX_LINE_BYTES);
            ok = false;
        }
        for (size_t i = start; i < end;) {
            if (s[i] == 0) {
                lp_perr(c, line, "NUL byte in the file (column %zu)", i - start + 1);
                ok = false;
                break;
            }
            size_t l = cv_utf8_len(s + i, end - i);
            if (!l) {
                lp_perr(c, line, "invalid UTF-8 (byte 0x%02x at column %zu)", s[i],
                        i - start + 1);
                ok = false;
                break;
            }
            /* control characters (but the tab, and the line's own CR LF): ESC, BEL and the
             * C1 set would reach a terminal as commands */
            unsigned cp = l == 2 ? ((s[i] & 0x1fu) << 6) | (s[i + 1] & 0x3fu) : s[i];
            bool ctl = (l == 1 && (cp < 0x20 || cp == 0x7f) && cp != '\t' && cp != '\n' &&
                        !(cp == '\r' && i == content)) ||
                       (l == 2 && cp >= 0x80 && cp < 0xa0);
            if (ctl) {
                char name[8];
                lp_control_name(cp, name, sizeof name);
                lp_perr(c, line, "control character %s (U+%04X) at column %zu", name, cp,
                        i - start + 1);
                ok = false;
                break;
            }
            i += l;
        }
    }
    return ok;
}

/* ---- helpers on lines ------------------------------------------------------------------- */

struct line lp_get_line(const struct ctx *c, size_t li)
{
    size_t start = c->lines[li];
    size_t end = li + 1 < c->nlines ? c->lines[li + 1] : c->len;
    if (end > start && c->buf[end - 1] == '\n') end--;
    if (end > start && c->buf[end - 1] == '\r') end--;
    return (struct line){c->buf + start, end - start, start, (int)li + 1};
}

struct line lp_uncommented(struct line l)
{
    for (size_t i = 0; i < l.n; i++)
        if (l.s[i] == '#' && (i == 0 || l.s[i - 1] == ' ' || l.s[i - 1] == '\t')) {
            l.n = i;
            break;
        }
    return l;
}

bool lp_is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t') return false;
    return true;
}

static bool line_is(const struct line *l, const char *w)
{
    return l->n == strlen(w) && memcmp(l->s, w, l->n) == 0;
}

/* Copy s[0..n) trimmed of blanks into out (size cap); false when it does not fit. */
bool lp_trim_copy(const char *s, size_t n, char *out, size_t cap)
{
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    if (n >= cap) return false;
    memcpy(out, s, n);
    out[n] = '\0';
    return true;
}

/* A code fence opening at l: its char, length and info word. */
static bool fence_open(const struct line *l, char *ch, size_t *flen, char *info, size_t infocap)
{
    size_t i = 0;
    while (i < l->n && i < 3 && l->s[i] == ' ')
        i++;
    if (i >= l->n || (l->s[i] != '`' && l->s[i] != '~')) return false;
    char f = l->s[i];
    size_t k = i;
    while (k < l->n && l->s[k] == f)
        k++;
    if (k - i < 3) return false;
    if (f == '`' && memchr(l->s + k, '`', l->n - k)) return false; /* not a fence */
    size_t j = k;
    while (j < l->n && (l->s[j] == ' ' || l->s[j] == '\t'))
        j++;
    size_t w = j;
    while (w < l->n && l->s[w] != ' ' && l->s[w] != '\t')
        w++;
    *ch = f;
    *flen = k - i;
    if (info) {
        size_t m = w - j < infocap - 1 ? w - j : infocap - 1;
        memcpy(info, l->s + j, m);
        info[m] = '\0';
    }
    return true;
}

static bool fence_close(const struct line *l, char ch, size_t flen)
{
    size_t i = 0;
    while (i < l->n && i < 3 && l->s[i] == ' ')
        i++;
    size_t k = i;
    while (k < l->n && l->s[k] == ch)
        k++;
    return k - i >= flen && lp_is_blank(l->s + k, l->n - k);
}

/* ---- value parsers ---------------------------------------------------------------------- */

bool lp_valid_id(const char *s)
{
    if (!*s || strlen(s) >= LESSON_ID_MAX) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-')) return false;
    return true;
}

/* A plain decimal number ("3.5", "-2", "1e9", "209715200"): no hex, inf or nan. */
bool lp_parse_plain_number(const char *s, double *out)
{
    if (!*s) return false;
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789.eE+-", *p)) return false;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(d)) return false;
    *out = d;
    return true;
}

bool lp_is_integer(double d)
{
    return d == floor(d) && fabs(d) < 9.007199254740992e15;
}

/* "key: value" → key and value (trimmed). false when there is no "key:" */
bool lp_split_kv(const struct line *l, char *key, size_t keycap, const char **val, size_t *vlen)
{
    const char *colon = memchr(l->s, ':', l->n);
    if (!colon) return false;
    if (!lp_trim_copy(l->s, (size_t)(colon - l->s), key, keycap)) return false;
    if (!key[0]) return false;
    for (const char *k = key; *k; k++)
        if (!(islower((unsigned char)*k) || *k == '_' || isdigit((unsigned char)*k)))
            return false;
    const char *v = colon + 1;
    size_t n = l->n - (size_t)(v - l->s);
    while (n && (*v == ' ' || *v == '\t'))
        v++, n--;
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    *val = v;
    *vlen = n;
    return true;
}

char *lp_dupn(const char *s, size_t n)
{
    char *r = xmalloc(n + 1);
    memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

/* ---- front matter ----------------------------------------------------------------------- */

/* Parse the front matter if line 1 is "---"; returns the index of the first body line. */
static size_t parse_front(struct ctx *c, struct lesson *L)
{
    if (c->nlines == 0) return 0;
    struct line first = lp_get_line(c, 0);
    if (!line_is(&first, "---")) return 0;
    size_t li = 1;
    int seen_line[5] = {0, 0, 0, 0, 0};
    static const char *const keys[5] = {"lesson", "title", "minutes", "summary", "short"};
    for (; li < c->nlines; li++) {
        struct line l = lp_get_line(c, li);
        if (line_is(&l, "---")) break;
        struct line t = lp_uncommented(l);
        if (lp_is_blank(t.s, t.n)) continue;
        char key[32];
        const char *v;
        size_t vn;
        if (!lp_split_kv(&t, key, sizeof key, &v, &vn)) {
            lp_perr(c, l.no,
                    "front matter: expected 'key: value' (keys: lesson, title, short, "
                    "minutes, summary)");
            continue;
        }
        int k = -1;
        for (int i = 0; i < 5; i++)
            if (strcmp(key, keys[i]) == 0) k = i;
        if (k < 0) {
            lp_perr(c, l.no,
                    "front matter: unknown key '%s' (keys: lesson, title, short, minutes, "
                    "summary)",
                    key);
            continue;
        }
        if (seen_line[k] && k != 3) { /* a summary goes on over several lines */
            lp_perr(c, l.no, "front matter: key '%s' given twice (first at line %d)", key,
                    seen_line[k]);
            continue;
        }
        seen_line[k] = l.no;
        char val[LESSON_MAX_LINE_BYTES + 1];
        memcpy(val, v, vn);
        val[vn] = '\0';
        if (k == 0) {
            if (!lp_valid_id(val))
                lp_perr(c, l.no, "front matter: bad lesson id '%s' (letters a-z, digits, '-')",
                        val);
            else
                memcpy(L->id, val, strlen(val) + 1); /* lp_valid_id: shorter than L->id */
        } else if (k == 1) {
            if (!val[0])
                lp_perr(c, l.no, "front matter: empty title");
            else {
                free(L->title);
                L->title = xstrdup(val);
            }
        } else if (k == 4) {
            if (!val[0] || text_width(val) > LESSON_SHORT_MAX)
                lp_perr(c, l.no, "front matter: short title '%s' is %d columns (1..%d)", val,
                        text_width(val), LESSON_SHORT_MAX);
            else {
                free(L->short_title);
                L->short_title = xstrdup(val);
            }
        } else if (k == 3) {
            size_t have = L->summary ? strlen(L->summary) : 0;
            if (have + vn + 2 > LESSON_MAX_SUMMARY) {
                lp_perr(c, l.no, "front matter: summary longer than %d bytes",
                        LESSON_MAX_SUMMARY);
            } else if (vn) {
                /* a word hyphenated at the line's end ("wider-" / "reaching") goes on
                 * without a space: "wider-reaching" */
                bool word = have >= 2 && L->summary[have - 1] == '-' &&
                            isalpha((unsigned char)L->summary[have - 2]) &&
                            isalpha((unsigned char)val[0]);
                L->summary = xrealloc(L->summary, have + vn + 2);
                snprintf(L->summary + have, vn + 2, "%s%s", have && !word ? " " : "", val);
            }
        } else {
            long m;
            if (parse_long(val, 1, LESSON_MAX_MINUTES, &m) != CV_OK)
                lp_perr(c, l.no, "front matter: bad minutes '%s' (1..%d)", val,
                        LESSON_MAX_MINUTES);
            else
                L->minutes = (int)m;
        }
    }
    if (li >= c->nlines) {
        lp_perr(c, 1, "front matter: no closing '---' line");
        return c->nlines;
    }
    return li + 1;
}

const char *lesson_short_title(const struct lesson *L)
{
    if (L->short_title) return L->short_title;
    if (L->title && L->title[0] && text_width(L->title) <= LESSON_SHORT_MAX) return L->title;
    return L->id;
}

/* ---- slides ----------------------------------------------------------------------------- */

static void slide_free(struct lesson_slide *S)
{
    free(S->title);
    for (size_t b = 0; b < S->nblocks; b++) {
        for (size_t k = 0; k < S->blocks[b].nspans; k++)
            free(S->blocks[b].spans[k].text);
        free(S->blocks[b].spans);
    }
    free(S->blocks);
    free(S->markdown);
    free(S->notes);
    for (size_t e = 0; e < S->nex; e++) {
        struct lesson_exercise *x = &S->ex[e];
        free(x->prompt);
        free(x->solution);
        for (size_t i = 0; i < x->nhints; i++)
            free(x->hints[i]);
        free(x->hints);
        for (size_t i = 0; i < x->noptions; i++) {
            free(x->options[i]);
            free(x->option_why[i]);
        }
        free(x->options);
        free(x->option_why);
        for (size_t i = 0; i < x->nwrong; i++)
            free(x->wrong[i].msg);
    }
    free(S->ex);
    memset(S, 0, sizeof *S);
}

/* Slide si from lines [first, last). */
static void parse_slide(struct ctx *c, struct lesson_slide *S, size_t si, size_t first,
                        size_t last)
{
    S->line = (int)first + 1;
    size_t base = c->lines[first];
    size_t end = last < c->nlines ? c->lines[last] : c->len;
    size_t len = end - base;
    char *text = xmalloc(len + 1);
    memcpy(text, c->buf + base, len);
    text[len] = '\0';
    size_t excap = 0;
    /* the scene and exercise blocks */
    for (size_t li = first; li < last; li++) {
        struct line l = lp_get_line(c, li);
        char ch, info[32];
        size_t flen;
        if (!fence_open(&l, &ch, &flen, info, sizeof info)) continue;
        size_t close = li + 1;
        while (close < last) {
            struct line cl = lp_get_line(c, close);
            if (fence_close(&cl, ch, flen)) break;
            close++;
        }
        bool ours = strcmp(info, "scene") == 0 || strcmp(info, "exercise") == 0;
        if (ours && close >= last) {
            lp_perr(c, l.no, "```%s block is never closed", info);
        } else if (strcmp(info, "scene") == 0) {
            if (S->scene_line)
                lp_perr(c, l.no, "a slide has at most one scene (the first is at line %d)",
                        S->scene_line);
            else {
                S->scene_line = l.no;
                lp_parse_scene(c, S, li + 1, close, l.no);
            }
        } else if (strcmp(info, "exercise") == 0) {
            lp_parse_exercise(c, S, si, li + 1, close, l.no, &excap);
        }
        if (ours) {
            size_t a = c->lines[li] - base;
            size_t b =
                (close < last ? (close + 1 < c->nlines ? c->lines[close + 1] : c->len) : end) -
                base;
            for (size_t k = a; k < b; k++)
                if (text[k] != '\n') text[k] = ' ';
        }
        li = close; /* past the block (a plain code block too: no fences inside it) */
    }
    lp_check_holds(c, S);
    lp_parse_narration(c, S, text, len, base);
    free(text);
    if (!S->title) {
        /* the first non-blank line, or the slide's first */
        int line = S->line;
        for (size_t li = first; li < last; li++) {
            struct line l = lp_get_line(c, li);
            if (!lp_is_blank(l.s, l.n)) {
                line = l.no;
                break;
            }
        }
        lp_perr(c, line, "slide %zu has no title (its first heading, e.g. '# Title')", si + 1);
    }
}

/* ---- the whole file --------------------------------------------------------------------- */

static void slug_of(const char *path, char *out, size_t n)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (isdigit((unsigned char)base[0]) && isdigit((unsigned char)base[1]) && base[2] == '-')
        base += 3;
    size_t len = strlen(base);
    if (len > 3 && strcmp(base + len - 3, ".md") == 0) len -= 3;
    if (len >= n) len = n - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

void lesson_free(struct lesson *l)
{
    for (size_t i = 0; i < l->nslides; i++)
        slide_free(&l->slides[i]);
    free(l->slides);
    free(l->title);
    free(l->short_title);
    free(l->summary);
    free(l->path);
    lesson_errors_free(&l->warnings);
    memset(l, 0, sizeof *l);
}

/* A fence left open by mistake is often "closed" by the next slide's ```exercise block,
 * taking the slides between: such a line (same fence) inside an open code block is that
 * mistake, said at the block's opening line (fline, 0-based). A block that shows a
 * lesson's blocks uses a longer fence (````). True when it said so. */
static bool fence_mistake(struct ctx *c, const struct line *l, char fch, size_t flen,
                          size_t fline)
{
    char ich, iinfo[32];
    size_t ilen;
    if (!fence_open(l, &ich, &ilen, iinfo, sizeof iinfo) || ich != fch || ilen != flen ||
        (strcmp(iinfo, "exercise") != 0 && strcmp(iinfo, "scene") != 0))
        return false;
    lp_perr(c, (int)fline + 1,
            "code block '%c%c%c' is still open at the ```%s block of line %d (close it first)",
            fch, fch, fch, iinfo, l->no);
    return true;
}

/* Exercise ids are unique in the file (and, in a set, across files: set_add_lesson). */
static void check_exercise_ids(struct ctx *c, const struct lesson *out)
{
    for (size_t s1 = 0; s1 < out->nslides; s1++)
        for (size_t e1 = 0; e1 < out->slides[s1].nex; e1++) {
            const struct lesson_exercise *x = &out->slides[s1].ex[e1];
            bool found = false;
            for (size_t s2 = 0; s2 <= s1 && !found; s2++)
                /* cppcheck-suppress arrayIndexThenCheck ; "s2 < s1" is no bounds check */
                for (size_t e2 = 0; e2 < out->slides[s2].nex && (s2 < s1 || e2 < e1); e2++)
                    if (strcmp(out->slides[s2].ex[e2].id, x->id) == 0) {
                        lp_perr(c, x->line, "exercise id '%s' is also used at line %d", x->id,
                                out->slides[s2].ex[e2].line);
                        found = true;
                        break;
                    }
        }
}

int lesson_parse(const char *path, const char *buf, size_t len, struct lesson *out,
                 struct lesson_errors *errs)
{
    memset(out, 0, sizeof *out);
    struct ctx c = {.path = path, .errs = errs, .buf = buf, .len = len};
    if (len > LESSON_MAX_FILE_BYTES) {
        lp_perr(&c, 0, "file too large (%zu bytes; at most %zu)", len, LESSON_MAX_FILE_BYTES);
        return CV_EINVAL;
    }
    size_t cap = 64;
    c.lines = xmalloc(cap * sizeof *c.lines);
    c.lines[c.nlines++] = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n' && i + 1 < len) {
            VEC_GROW(c.lines, cap, c.nlines + 1);
            c.lines[c.nlines++] = i + 1;
        }
    if (len == 0) c.nlines = 0;
    int rc = CV_EINVAL;
    if (!check_bytes(&c)) goto done;
    size_t ws = 0;
    while (ws < len && strchr(" \t\r\n", buf[ws]) && buf[ws])
        ws++;
    if (ws == len) {
        lp_perr(&c, 1, "empty file (a lesson needs at least one slide)");
        goto done;
    }
    out->path = xstrdup(path);
    size_t body = parse_front(&c, out);
    /* slides: split at "---" after a blank line, outside fences */
    size_t scap = 0, start = body;
    bool in_fence = false, prev_blank = true;
    char fch = 0, finfo[32] = "";
    size_t flen = 0, fline = 0;
    bool fwarned = false; /* the open fence's mistake is said */
    for (size_t li = body; li <= c.nlines; li++) {
        bool split = li == c.nlines;
        if (split && in_fence && !fwarned && strcmp(finfo, "scene") != 0 &&
            strcmp(finfo, "exercise") != 0)
            /* (a scene or exercise block says so itself, in parse_slide) */
            lp_perr(&c, (int)fline + 1,
                    "code block '%c%c%c' is never closed (it would take every later slide)",
                    fch, fch, fch);
        if (!split) {
            struct line l = lp_get_line(&c, li);
            if (in_fence) {
                if (fence_close(&l, fch, flen)) in_fence = false;
                if (in_fence && !fwarned) fwarned = fence_mistake(&c, &l, fch, flen, fline);
                prev_blank = false;
                continue;
            }
            if (fence_open(&l, &fch, &flen, finfo, sizeof finfo)) {
                in_fence = true;
                fline = li;
                fwarned = false;
                prev_blank = false;
                continue;
            }
            if (line_is(&l, "---") && prev_blank) split = true;
            prev_blank = lp_is_blank(l.s, l.n);
        }
        if (!split) continue;
        /* lines [start, li) are a slide unless all blank (before the first separator) */
        bool blank = true;
        for (size_t k = start; k < li && blank; k++) {
            struct line l = lp_get_line(&c, k);
            blank = lp_is_blank(l.s, l.n);
        }
        if (!(blank && (start == body || li == c.nlines))) {
            if (out->nslides >= LESSON_MAX_SLIDES) {
                lp_perr(&c, (int)start + 1, "too many slides (at most %d)", LESSON_MAX_SLIDES);
                break;
            }
            VEC_GROW(out->slides, scap, out->nslides + 1);
            struct lesson_slide *S = &out->slides[out->nslides++];
            memset(S, 0, sizeof *S);
            if (blank) {
                lp_perr(&c, (int)start + 1, "slide %zu is empty", out->nslides);
                S->line = (int)start + 1;
            } else
                parse_slide(&c, S, out->nslides - 1, start, li);
        }
        start = li + 1;
        prev_blank = true;
    }
    check_exercise_ids(&c, out);
    if (out->nslides == 0 && c.nerr == 0)
        lp_perr(&c, body < c.nlines ? (int)body + 1 : 1,
                "no slides (a lesson needs at least one)");
    if (!out->id[0]) {
        slug_of(path, out->id, sizeof out->id);
        if (!lp_valid_id(out->id))
            lp_perr(&c, 1,
                    "no 'lesson:' id in front matter and the file name gives no valid id "
                    "('%s': letters a-z, digits, '-')",
                    out->id);
    }
    if (!out->title && out->nslides && out->slides[0].title)
        out->title = xstrdup(out->slides[0].title);
    if (text_width(lesson_short_title(out)) > LESSON_SHORT_MAX)
        lp_perr(&c, 1,
                "the title is over %d columns and so is the lesson's id: give a short title "
                "(front matter short:) for the rows that hold no whole title",
                LESSON_SHORT_MAX);
    if (c.nerr == 0) rc = CV_OK;
    out->warnings = c.warns;
    c.warns = (struct lesson_errors){0};
done:
    lesson_errors_free(&c.warns);
    free(c.lines);
    if (rc != CV_OK) lesson_free(out);
    return rc;
}

int lesson_load_file(const char *path, struct lesson *out, struct lesson_errors *errs)
{
    memset(out, 0, sizeof *out);
    struct ctx c = {.path = path, .errs = errs};
    /* a FIFO or a device named as a lesson must not hang the open */
    char why[120];
    int fd = rfile_open(path, why, sizeof why);
    if (fd < 0) {
        lp_perr(&c, 0, "%s", why);
        return CV_EINVAL;
    }
    char *buf = xmalloc(LESSON_MAX_FILE_BYTES + 2);
    size_t n = 0;
    bool rerr = false;
    while (n < LESSON_MAX_FILE_BYTES + 1) {
        ssize_t k = read(fd, buf + n, LESSON_MAX_FILE_BYTES + 1 - n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) rerr = true;
        if (k <= 0) break;
        n += (size_t)k;
    }
    close(fd);
    if (rerr) {
        free(buf);
        lp_perr(&c, 0, "read error: %s", strerror(errno));
        return CV_EINVAL;
    }
    if (n > LESSON_MAX_FILE_BYTES) {
        free(buf);
        lp_perr(&c, 0, "file too large (more than %zu bytes)", LESSON_MAX_FILE_BYTES);
        return CV_EINVAL;
    }
    buf[n] = '\0';
    int rc = lesson_parse(path, buf, n, out, errs);
    free(buf);
    return rc;
}

/* ---- sets ------------------------------------------------------------------------------- */

void lesson_set_init(struct lesson_set *set)
{
    memset(set, 0, sizeof *set);
}

void lesson_set_free(struct lesson_set *set)
{
    for (size_t i = 0; i < set->n; i++)
        lesson_free(&set->v[i]);
    free(set->v);
    memset(set, 0, sizeof *set);
}

bool lesson_is_lesson_name(const char *name)
{
    size_t n = strlen(name);
    return n > 6 && isdigit((unsigned char)name[0]) && isdigit((unsigned char)name[1]) &&
           name[2] == '-' && strcmp(name + n - 3, ".md") == 0;
}

/* A lesson file is named NN-name.md or opens with its front matter (a "---" line); anything
 * else a shell glob brings along (a README, notes) is not one. A file that cannot be read
 * counts as a lesson: loading it then says why it cannot be read. */
bool lesson_file_is_lesson(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (lesson_is_lesson_name(base)) return true;
    char why[120];
    int fd = rfile_open(path, why, sizeof why);
    if (fd < 0) return true;
    char head[8];
    ssize_t k;
    do
        k = read(fd, head, sizeof head);
    while (k < 0 && errno == EINTR);
    close(fd);
    return k >= 3 && memcmp(head, "---", 3) == 0 && (k == 3 || strchr("\r\n \t", head[3]));
}

/* Whether name is the slug of path's file name (NN-slug.md), or that whole file name. */
static bool lesson_is_slug_of(const char *path, const char *name)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    if (strcmp(base, name) == 0) return true;
    if (bl < 6 || strcmp(base + bl - 3, ".md") != 0) return false;
    size_t sl = bl - 3 - 3; /* without "NN-" and ".md" */
    return strlen(name) == sl && strncmp(base + 3, name, sl) == 0;
}

const struct lesson *lesson_set_find(const struct lesson_set *set, const char *lesson_id)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->v[i].id, lesson_id) == 0) return &set->v[i];
    /* the file's slug or name names it too (05-allreduce-is-rs-plus-ag.md has the id
     * allreduce-decomposed), unless it is another lesson's id */
    for (size_t i = 0; i < set->n; i++)
        if (set->v[i].path && lesson_is_slug_of(set->v[i].path, lesson_id)) return &set->v[i];
    /* its number: "3" or "03" names 03-rooted-collectives.md */
    size_t nd = strspn(lesson_id, "0123456789");
    if (nd == 0 || nd > 2 || lesson_id[nd]) return NULL;
    int want = atoi(lesson_id);
    for (size_t i = 0; i < set->n; i++) {
        const char *path = set->v[i].path, *base = path ? strrchr(path, '/') : NULL;
        base = base ? base + 1 : path;
        if (base && lesson_is_lesson_name(base) &&
            (base[0] - '0') * 10 + (base[1] - '0') == want)
            return &set->v[i];
    }
    return NULL;
}

const struct lesson_exercise *lesson_set_find_exercise(const struct lesson_set *set,
                                                       const char *ex_id,
                                                       const struct lesson **lesson_out)
{
    for (size_t i = 0; i < set->n; i++)
        for (size_t s = 0; s < set->v[i].nslides; s++)
            for (size_t e = 0; e < set->v[i].slides[s].nex; e++)
                if (strcmp(set->v[i].slides[s].ex[e].id, ex_id) == 0) {
                    if (lesson_out) *lesson_out = &set->v[i];
                    return &set->v[i].slides[s].ex[e];
                }
    return NULL;
}

/* Add one parsed lesson, refusing ids already in the set. */
static int set_add_lesson(struct lesson_set *set, struct lesson *L, struct lesson_errors *errs)
{
    struct ctx c = {.path = L->path, .errs = errs};
    const struct lesson *dup = lesson_set_find(set, L->id);
    if (dup) lp_perr(&c, 1, "lesson id '%s' is also the id of %s", L->id, dup->path);
    for (size_t s = 0; s < L->nslides; s++)
        for (size_t e = 0; e < L->slides[s].nex; e++) {
            const struct lesson_exercise *x = &L->slides[s].ex[e];
            const struct lesson *other;
            const struct lesson_exercise *d = lesson_set_find_exercise(set, x->id, &other);
            if (d)
                lp_perr(&c, x->line, "exercise id '%s' is also used at %s:%d", x->id,
                        other->path, d->line);
        }
    if (c.nerr) {
        lesson_free(L);
        return CV_EINVAL;
    }
    set->v = xrealloc(set->v, (set->n + 1) * sizeof *set->v);
    set->v[set->n++] = *L;
    memset(L, 0, sizeof *L);
    return CV_OK;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int lesson_set_add(struct lesson_set *set, const char *path, struct lesson_errors *errs)
{
    struct stat st;
    struct ctx c = {.path = path, .errs = errs};
    if (stat(path, &st) != 0) {
        lp_perr(&c, 0, "cannot open: %s", strerror(errno));
        return CV_EINVAL;
    }
    if (!S_ISDIR(st.st_mode)) {
        struct lesson L;
        if (lesson_load_file(path, &L, errs) != CV_OK) return CV_EINVAL;
        return set_add_lesson(set, &L, errs);
    }
    DIR *d = opendir(path);
    if (!d) {
        lp_perr(&c, 0, "cannot open folder: %s", strerror(errno));
        return CV_EINVAL;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 1000)
        if (lesson_is_lesson_name(de->d_name)) {
            VEC_GROW(names, cap, n + 1);
            names[n++] = xstrdup(de->d_name);
        }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names); /* names is NULL when n is 0 */
    int rc = CV_OK;
    char *real_dir = realpath(path, NULL);
    for (size_t i = 0; i < n; i++) {
        size_t pl = strlen(path);
        char *full = xmalloc(pl + strlen(names[i]) + 2);
        sprintf(full, "%s%s%s", path, pl && path[pl - 1] == '/' ? "" : "/", names[i]);
        /* a link that leads out of the folder is not read: a lesson folder cannot make
         * collviz open another file */
        char *real = realpath(full, NULL);
        size_t dl = real_dir ? strlen(real_dir) : 0;
        if (!real || !real_dir || strncmp(real, real_dir, dl) != 0 || real[dl] != '/') {
            struct ctx fc = {.path = full, .errs = errs};
            lp_perr(&fc, 0, "%s",
                    real ? "leads outside the lessons folder: not read"
                         : "cannot resolve the file name");
            rc = CV_EINVAL;
        } else {
            struct lesson L;
            if (lesson_load_file(full, &L, errs) != CV_OK ||
                set_add_lesson(set, &L, errs) != CV_OK)
                rc = CV_EINVAL;
        }
        free(real);
        free(full);
        free(names[i]);
    }
    free(real_dir);
    free(names);
    return rc;
}

/* Whether dir holds a lesson (an NN-*.md file). */
static bool dir_has_lessons(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    bool any = false;
    for (struct dirent *e; !any && (e = readdir(d));)
        any = lesson_is_lesson_name(e->d_name);
    closedir(d);
    return any;
}

#ifndef COLLVIZ_SOURCE_DIR
#define COLLVIZ_SOURCE_DIR ""
#endif
#ifndef COLLVIZ_SHARE_DIR
#define COLLVIZ_SHARE_DIR "/usr/local/share/collviz"
#endif

bool lesson_default_dir(char *buf, size_t n)
{
    const char *env = getenv("COLLVIZ_LESSONS");
    if (env && *env) { /* asked for: that one, whatever it holds (its errors say why) */
        snprintf(buf, n, "%s", env);
        return true;
    }
    char exe[4096] = "", places[LESSON_DIR_PLACES][4200];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    int np = 0;
    snprintf(places[np++], sizeof places[0], "lessons");
    if (exe[0]) {
        snprintf(places[np++], sizeof places[0], "%s/lessons", exe);
        snprintf(places[np++], sizeof places[0], "%s/../share/collviz/lessons", exe);
    }
    if (COLLVIZ_SOURCE_DIR[0])
        snprintf(places[np++], sizeof places[0], "%s/lessons", COLLVIZ_SOURCE_DIR);
    snprintf(places[np++], sizeof places[0], "%s/lessons", COLLVIZ_SHARE_DIR);
    for (int i = 0; i < np; i++)
        if (dir_has_lessons(places[i])) {
            snprintf(buf, n, "%s", places[i]);
            return true;
        }
    /* none: where it looked, for the one line that says so */
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < np && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", places[i]);
    return false;
}
