/* lesson.c - read a lesson file (lessons/README.md is the format) into struct lesson.
 *
 * Three passes over an untrusted buffer. (1) Bytes: size, NUL, UTF-8 and line length, each
 * error at its line; nothing else runs on a buffer that fails them. (2) Lines: the front
 * matter, then slides split at a `---` line that follows a blank line outside code fences;
 * in each slide the ```scene and ```exercise blocks are read as key: value lines and blanked
 * (spaces, so offsets and line numbers stay put). (3) md4c over what is left of each slide:
 * title, narration blocks and spans, speaker notes. Every error is collected as
 * "file:line: message"; parsing goes on after one so a teacher sees them all at once. */
#include "lesson.h"

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

#include "../core/plan.h"
#include "../core/util.h"
#include "exercise.h"

#define LESSON_MAX_ERRORS 200 /* per file: past this one line says there are more */

/* ---- small growable buffers ------------------------------------------------------------- */

struct sbuf {
    char *p;
    size_t n, cap;
};

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1)
            cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_add(struct sbuf *b, const char *s)
{
    sb_addn(b, s, strlen(s));
}

static char *sb_take(struct sbuf *b) /* the string (never NULL); b is emptied */
{
    char *s = b->p ? b->p : xstrdup("");
    *b = (struct sbuf){0};
    return s;
}

#define GROW(arr, n, cap)                                                                      \
    do {                                                                                       \
        if ((n) >= (cap)) {                                                                    \
            (cap) = (cap) ? (cap)*2 : 8;                                                       \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));                                    \
        }                                                                                      \
    } while (0)

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

struct ctx {
    const char *path;
    struct lesson_errors *errs;
    size_t nerr; /* errors of this file */
    /* line starts of the whole buffer, for offset -> line */
    const char *buf;
    size_t len;
    size_t *lines; /* lines[i] = offset of line i+1 */
    size_t nlines;
    struct lesson_errors warns; /* "file:line: warning: ..." (the lesson still loads) */
};

static void perr(struct ctx *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void perr(struct ctx *c, int line, const char *fmt, ...)
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

static void pwarn(struct ctx *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void pwarn(struct ctx *c, int line, const char *fmt, ...)
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
static int line_of(const struct ctx *c, size_t off)
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
static void control_name(unsigned cp, char *out, size_t n)
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
            perr(c, line, "line too long (%zu bytes; at most %d)", content - start,
                 LESSON_MAX_LINE_BYTES);
            ok = false;
        }
        for (size_t i = start; i < end;) {
            if (s[i] == 0) {
                perr(c, line, "NUL byte in the file (column %zu)", i - start + 1);
                ok = false;
                break;
            }
            size_t l = cv_utf8_len(s + i, end - i);
            if (!l) {
                perr(c, line, "invalid UTF-8 (byte 0x%02x at column %zu)", s[i], i - start + 1);
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
                control_name(cp, name, sizeof name);
                perr(c, line, "control character %s (U+%04X) at column %zu", name, cp,
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

struct line {
    const char *s; /* not NUL-terminated */
    size_t n;      /* without "\n" and a trailing "\r" */
    size_t off;    /* offset in the buffer */
    int no;        /* 1-based */
};

static struct line get_line(const struct ctx *c, size_t li)
{
    size_t start = c->lines[li];
    size_t end = li + 1 < c->nlines ? c->lines[li + 1] : c->len;
    if (end > start && c->buf[end - 1] == '\n') end--;
    if (end > start && c->buf[end - 1] == '\r') end--;
    return (struct line){c->buf + start, end - start, start, (int)li + 1};
}

static bool is_blank(const char *s, size_t n)
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
static bool trim_copy(const char *s, size_t n, char *out, size_t cap)
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
    return k - i >= flen && is_blank(l->s + k, l->n - k);
}

/* ---- value parsers ---------------------------------------------------------------------- */

static bool valid_id(const char *s)
{
    if (!*s || strlen(s) >= LESSON_ID_MAX) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-')) return false;
    return true;
}

/* A plain decimal number ("3.5", "-2", "1e9", "209715200"): no hex, inf or nan. */
static bool parse_plain_number(const char *s, double *out)
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

static bool is_integer(double d)
{
    return d == floor(d) && fabs(d) < 9.007199254740992e15;
}

/* "key: value" → key and value (trimmed). false when there is no "key:" */
static bool split_kv(const struct line *l, char *key, size_t keycap, const char **val,
                     size_t *vlen)
{
    const char *colon = memchr(l->s, ':', l->n);
    if (!colon) return false;
    if (!trim_copy(l->s, (size_t)(colon - l->s), key, keycap)) return false;
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

static char *dupn(const char *s, size_t n)
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
    struct line first = get_line(c, 0);
    if (!line_is(&first, "---")) return 0;
    size_t li = 1;
    int seen_line[3] = {0, 0, 0};
    static const char *const keys[3] = {"lesson", "title", "minutes"};
    for (; li < c->nlines; li++) {
        struct line l = get_line(c, li);
        if (line_is(&l, "---")) break;
        /* a '#' after a blank (or at the start) begins a comment */
        size_t n = l.n;
        for (size_t i = 0; i < l.n; i++)
            if (l.s[i] == '#' && (i == 0 || l.s[i - 1] == ' ' || l.s[i - 1] == '\t')) {
                n = i;
                break;
            }
        struct line t = l;
        t.n = n;
        if (is_blank(t.s, t.n)) continue;
        char key[32];
        const char *v;
        size_t vn;
        if (!split_kv(&t, key, sizeof key, &v, &vn)) {
            perr(c, l.no, "front matter: expected 'key: value' (keys: lesson, title, minutes)");
            continue;
        }
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(key, keys[i]) == 0) k = i;
        if (k < 0) {
            perr(c, l.no, "front matter: unknown key '%s' (keys: lesson, title, minutes)", key);
            continue;
        }
        if (seen_line[k]) {
            perr(c, l.no, "front matter: key '%s' given twice (first at line %d)", key,
                 seen_line[k]);
            continue;
        }
        seen_line[k] = l.no;
        char val[LESSON_MAX_LINE_BYTES + 1];
        memcpy(val, v, vn);
        val[vn] = '\0';
        if (k == 0) {
            if (!valid_id(val))
                perr(c, l.no, "front matter: bad lesson id '%s' (letters a-z, digits, '-')",
                     val);
            else
                memcpy(L->id, val, strlen(val) + 1); /* valid_id: shorter than L->id */
        } else if (k == 1) {
            if (!val[0])
                perr(c, l.no, "front matter: empty title");
            else {
                free(L->title);
                L->title = xstrdup(val);
            }
        } else {
            long m;
            if (parse_long(val, 1, LESSON_MAX_MINUTES, &m) != CV_OK)
                perr(c, l.no, "front matter: bad minutes '%s' (1..%d)", val,
                     LESSON_MAX_MINUTES);
            else
                L->minutes = (int)m;
        }
    }
    if (li >= c->nlines) {
        perr(c, 1, "front matter: no closing '---' line");
        return c->nlines;
    }
    return li + 1;
}

/* ---- scene blocks ----------------------------------------------------------------------- */

static const char *const scene_keys[] = {
    "screen",  "collective", "algo",     "op",        "ranks",  "count",
    "root",    "init",       "seed",     "step",      "scheme", "schedule",
    "overlap", "size",       "autoplay", "highlight", "counts",
};

/* The key a scene_check message is about ("ranks 20 out of range" → ranks). */
static const char *scene_msg_key(const char *msg)
{
    static const struct {
        const char *word, *key;
    } map[] = {
        {"ranks", "ranks"},       {"count", "count"},         {"root", "root"},
        {"algorithm", "algo"},    {"step", "step"},           {"size", "size"},
        {"autoplay", "autoplay"}, {"highlight", "highlight"}, {"scheme", "scheme"},
    };
    for (size_t i = 0; i < ARRAY_LEN(map); i++) {
        size_t n = strlen(map[i].word);
        if (strncmp(msg, map[i].word, n) == 0 && (msg[n] == ' ' || msg[n] == ':'))
            return map[i].key;
    }
    return NULL;
}

/* Lines first..last (exclusive) of a ```scene block opened at line `open`. */
static void parse_scene(struct ctx *c, struct lesson_slide *S, size_t first, size_t last,
                        int open)
{
    int key_line[ARRAY_LEN(scene_keys)] = {0};
    struct sbuf words = {0};
    bool bad = false;
    for (size_t li = first; li < last; li++) {
        struct line l = get_line(c, li);
        size_t n = l.n;
        for (size_t i = 0; i < l.n; i++)
            if (l.s[i] == '#' && (i == 0 || l.s[i - 1] == ' ' || l.s[i - 1] == '\t')) {
                n = i;
                break;
            }
        struct line t = l;
        t.n = n;
        if (is_blank(t.s, t.n)) continue;
        char key[32];
        const char *v;
        size_t vn;
        if (!split_kv(&t, key, sizeof key, &v, &vn)) {
            perr(c, l.no, "scene: expected 'key: value'");
            bad = true;
            continue;
        }
        int k = -1;
        for (size_t i = 0; i < ARRAY_LEN(scene_keys); i++)
            if (strcmp(key, scene_keys[i]) == 0) k = (int)i;
        if (k < 0) {
            perr(c, l.no, "scene: unknown key '%s'", key);
            bad = true;
            continue;
        }
        if (key_line[k]) {
            perr(c, l.no, "scene: key '%s' given twice (first at line %d)", key, key_line[k]);
            bad = true;
            continue;
        }
        key_line[k] = l.no;
        if (vn == 0 || memchr(v, ' ', vn) || memchr(v, '\t', vn) || vn > 100) {
            perr(c, l.no, "scene: bad value '%.*s' for %s", (int)(vn > 100 ? 100 : vn), v, key);
            bad = true;
            continue;
        }
        char word[160];
        snprintf(word, sizeof word, "%s=%.*s", key, (int)vn, v);
        /* the value alone, on a default scene: a word that does not parse is this line's
         * error; a combination that does not hold is decided below, on the whole block */
        struct scene scratch;
        scene_default(&scratch);
        char err[200];
        if (scene_parse(&scratch, word, err, sizeof err) != CV_OK &&
            strncmp(err, "scene:", 6) == 0) {
            perr(c, l.no, "%s", err);
            bad = true;
            continue;
        }
        if (words.n) sb_add(&words, " ");
        sb_add(&words, word);
    }
    struct scene sc;
    scene_default(&sc);
    if (!bad) {
        char err[200];
        if (scene_parse(&sc, words.p ? words.p : "", err, sizeof err) != CV_OK) {
            const char *key = scene_msg_key(err);
            int line = open;
            for (size_t i = 0; key && i < ARRAY_LEN(scene_keys); i++)
                if (strcmp(scene_keys[i], key) == 0 && key_line[i]) line = key_line[i];
            if (key && strcmp(key, "algo") == 0 && line == open && key_line[1])
                line = key_line[1]; /* the collective's line when algo was not given */
            perr(c, line, "scene: %s", err);
        } else {
            S->scene = sc;
            S->has_scene = true;
        }
    }
    free(words.p);
}

/* ---- exercise blocks -------------------------------------------------------------------- */

enum exkey {
    K_ID,
    K_TYPE,
    K_PROMPT,
    K_PARAM,
    K_ANSWER,
    K_UNITS,
    K_TOLERANCE,
    K_HINT,
    K_SOLUTION,
    K_OPTION,
    K_CORRECT,
    K_RANK,
    K_STEP,
    K_WHERE,
    K_WRONG,
    K_INTEGER,
    K_SLOTS,
    K_COUNT
};

const char *lesson_ex_type_name(enum lesson_ex_type t)
{
    static const char *const n[LEX_TYPE_COUNT] = {"number", "choice", "holds"};
    return (unsigned)t < LEX_TYPE_COUNT ? n[t] : "?";
}

/* A number that is k*step from base, for a whole k (up to rounding of decimal steps). */
static bool on_step(double x, double base, double step)
{
    double k = (x - base) / step;
    return fabs(k - round(k)) < 1e-6;
}

/* "A,B,C" (blanks allowed) into p->choices; false (error reported) when bad. */
static bool parse_choices(struct ctx *c, int line, const char *name, char *list,
                          struct lesson_param *p)
{
    p->nchoices = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        char num[64];
        double d;
        if (!trim_copy(t, strlen(t), num, sizeof num) || !parse_plain_number(num, &d)) {
            perr(c, line, "param %s: bad choice '%.40s' (plain numbers separated by commas)",
                 name, t);
            return false;
        }
        if (p->nchoices >= LESSON_MAX_CHOICES) {
            perr(c, line, "param %s: more than %d choices", name, LESSON_MAX_CHOICES);
            return false;
        }
        p->choices[p->nchoices++] = d;
    }
    if (p->nchoices < 2) {
        perr(c, line, "param %s: choices: needs at least two values", name);
        return false;
    }
    return true;
}

/* The clauses after a param's value: range LO..HI, step S, integer, choices: A,B,C (last,
 * it takes the rest of the line). */
static bool parse_param_clauses(struct ctx *c, int line, const char *name, char *rest,
                                struct lesson_param *p, bool *explicit_int)
{
    char *ch = strstr(rest, "choices");
    if (ch) {
        char *list = ch + 7;
        *ch = '\0';
        while (*list == ' ' || *list == ':')
            list++;
        if (!parse_choices(c, line, name, list, p)) return false;
    }
    bool have_range = false;
    for (char *save = NULL, *t = strtok_r(rest, " \t", &save); t;
         t = strtok_r(NULL, " \t", &save)) {
        if (strcmp(t, "integer") == 0) {
            *explicit_int = true;
        } else if (strcmp(t, "range") == 0 || strcmp(t, "step") == 0) {
            bool range = t[0] == 'r';
            char *arg = strtok_r(NULL, " \t", &save);
            char *dots = arg && range ? strstr(arg, "..") : NULL;
            if (range && dots) {
                *dots = '\0';
                if (!parse_plain_number(arg, &p->lo) || !parse_plain_number(dots + 2, &p->hi)) {
                    perr(c, line, "param %s: bad range '%s..%s' (plain numbers)", name, arg,
                         dots + 2);
                    return false;
                }
                have_range = true;
            } else if (!range && arg && parse_plain_number(arg, &p->step) && p->step > 0) {
                /* a step */
            } else {
                perr(c, line, "param %s: bad %s (expected %s)", name, t,
                     range ? "'range LO..HI'" : "'step S', S > 0");
                return false;
            }
        } else {
            perr(c, line,
                 "param %s: unknown '%.40s' (range LO..HI, step S, integer, choices: A,B)",
                 name, t);
            return false;
        }
    }
    if (have_range && p->nchoices) {
        perr(c, line, "param %s: give a range or choices, not both", name);
        return false;
    }
    if (p->step > 0 && !have_range) {
        perr(c, line, "param %s: step needs a range", name);
        return false;
    }
    if (p->nchoices) {
        p->lo = p->hi = p->choices[0];
        bool found = false;
        for (size_t i = 0; i < p->nchoices; i++) {
            p->lo = fmin(p->lo, p->choices[i]);
            p->hi = fmax(p->hi, p->choices[i]);
            found |= p->choices[i] == p->value;
        }
        if (!found) {
            perr(c, line, "param %s: value %g is not one of its choices", name, p->value);
            return false;
        }
    }
    p->ranged = have_range || p->nchoices;
    return true;
}

/* "NAME = VALUE [range LO..HI] [step S] [integer] [choices: A,B,C]" */
static bool parse_param(struct ctx *c, int line, const char *v, struct lesson_param *p)
{
    char buf[LESSON_MAX_LINE_BYTES + 1];
    snprintf(buf, sizeof buf, "%s", v);
    char *eq = strchr(buf, '=');
    if (!eq) {
        perr(c, line, "param: expected 'NAME = VALUE' or 'NAME = VALUE range LO..HI'");
        return false;
    }
    *eq = '\0';
    char name[64];
    bool fits = trim_copy(buf, strlen(buf), name, sizeof name);
    if (!fits || strlen(name) >= sizeof p->name) {
        char shown[40];
        const char *b = buf + strspn(buf, " \t");
        snprintf(shown, sizeof shown, "%.24s", b);
        perr(c, line, "param: name '%s...' too long (at most %zu characters)", shown,
             sizeof p->name - 1);
        return false;
    }
    if (!name[0]) {
        perr(c, line, "param: no name before '='");
        return false;
    }
    /* lower case as the format says, and upper case too: the lecture names its sizes
     * L, B and D */
    bool ok = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (const char *q = name; *q; q++)
        if (!(isalnum((unsigned char)*q) || *q == '_') || (unsigned char)*q >= 0x80) ok = false;
    if (!ok || strcmp(name, "answer") == 0) {
        perr(c, line,
             "param: bad name '%s' (letters, digits, '_', not starting with a digit; not "
             "'answer')",
             name);
        return false;
    }
    char *rest = eq + 1;
    while (*rest == ' ' || *rest == '\t')
        rest++;
    char val[128];
    size_t vl = strcspn(rest, " \t");
    if (vl >= sizeof val ||
        (memcpy(val, rest, vl), val[vl] = '\0', !parse_plain_number(val, &p->value))) {
        perr(c, line, "param %s: bad value '%.60s' (a plain number)", name, rest);
        return false;
    }
    p->lo = p->hi = p->value;
    p->ranged = false;
    p->step = 0;
    p->nchoices = 0;
    bool explicit_int = false;
    if (!parse_param_clauses(c, line, name, rest + vl, p, &explicit_int)) return false;
    if (p->ranged && !p->nchoices && !(p->lo <= p->value && p->value <= p->hi)) {
        perr(c, line, "param %s: value %s is not within its range %g..%g", name, val, p->lo,
             p->hi);
        return false;
    }
    if (p->step > 0 &&
        (!on_step(p->value, p->lo, p->step) || !on_step(p->hi, p->lo, p->step))) {
        perr(c, line, "param %s: value and range ends must be LO + k*step (step %g)", name,
             p->step);
        return false;
    }
    bool ints = is_integer(p->value) && is_integer(p->lo) && is_integer(p->hi) &&
                (p->step == 0 || is_integer(p->step));
    for (size_t i = 0; i < p->nchoices; i++)
        ints = ints && is_integer(p->choices[i]);
    if (explicit_int && !ints) {
        perr(c, line,
             "param %s: declared integer but its value, range, step or choices are not", name);
        return false;
    }
    memcpy(p->name, name, strlen(name) + 1); /* shorter than p->name: checked above */
    p->integer = ints;
    p->line = line;
    return true;
}

/* Evaluate e's formula at vals; on failure or a non-finite value, an error naming them. */
static bool formula_at(struct ctx *c, struct lesson_exercise *e, const double *vals, double *r)
{
    const char *names[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < e->nparams; i++)
        names[i] = e->params[i].name;
    char err[200];
    if (ex_formula_eval(e->formula, names, vals, e->nparams, r, err, sizeof err) != CV_OK) {
        perr(c, e->answer_line, "answer: %s", err);
        return false;
    }
    if (isfinite(*r)) return true;
    char where[320] = "";
    size_t wl = 0;
    for (size_t j = 0; j < e->nparams; j++) {
        int k =
            snprintf(where + wl, sizeof where - wl, "%s%s=%g", j ? " " : "", names[j], vals[j]);
        if (k < 0 || (size_t)k >= sizeof where - wl) break;
        wl += (size_t)k;
    }
    perr(c, e->answer_line, "answer: not a finite number (%g) at %s", *r,
         e->nparams ? where : "the defaults");
    return false;
}

/* Do vals meet e's where: conditions? A condition muParser refuses is an error (*bad). */
static bool where_holds(struct ctx *c, struct lesson_exercise *e, const double *vals, bool *bad)
{
    const char *names[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < e->nparams; i++)
        names[i] = e->params[i].name;
    for (size_t w = 0; w < e->nwhere; w++) {
        bool ok = false;
        char err[200];
        if (ex_condition_eval(e->where[w], names, vals, e->nparams, &ok, err, sizeof err) !=
            CV_OK) {
            perr(c, e->where_line[w], "where: %s", err);
            *bad = true;
            return false;
        }
        if (!ok) return false;
    }
    return true;
}

/* The answer at the defaults (which must meet every where: and, for an integer answer, be
 * whole), at each range's two ends (the others at their defaults), and with every ranged
 * param at its low end, then at its high end: all must be finite where the where:
 * conditions hold. The wrong: formulas must be finite at the defaults. */
static bool check_formula(struct ctx *c, struct lesson_exercise *e)
{
    double vals[LESSON_MAX_PARAMS], r;
    size_t n = e->nparams;
    bool bad = false;
    for (size_t j = 0; j < n; j++)
        vals[j] = e->params[j].value;
    if (!formula_at(c, e, vals, &r)) return false;
    e->answer = r;
    if (!where_holds(c, e, vals, &bad)) {
        if (!bad) perr(c, e->line, "exercise: the defaults break a where: condition");
        return false;
    }
    if (e->integer && !(fabs(r - round(r)) <= 1e-9 * fmax(1.0, fabs(r)))) {
        perr(c, e->answer_line,
             "answer: %g at the defaults, but the exercise says integer: yes", r);
        return false;
    }
    if (e->integer) e->answer = round(r);
    const char *names[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < n; i++)
        names[i] = e->params[i].name;
    for (size_t w = 0; w < e->nwrong; w++) {
        double t;
        char err[200];
        if (ex_formula_eval(e->wrong[w].formula, names, vals, n, &t, err, sizeof err) !=
            CV_OK) {
            perr(c, e->wrong[w].line, "wrong: %s", err);
            return false;
        }
        if (!isfinite(t)) {
            perr(c, e->wrong[w].line, "wrong: not a finite number at the defaults");
            return false;
        }
    }
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!e->params[i].ranged) continue;
        any = true;
        for (int end = 0; end < 2; end++) {
            for (size_t j = 0; j < n; j++)
                vals[j] = e->params[j].value;
            vals[i] = end ? e->params[i].hi : e->params[i].lo;
            if (where_holds(c, e, vals, &bad) && !formula_at(c, e, vals, &r)) return false;
            if (bad) return false;
        }
    }
    for (int end = 0; any && end < 2; end++) {
        for (size_t j = 0; j < n; j++)
            vals[j] = !e->params[j].ranged ? e->params[j].value
                      : end                ? e->params[j].hi
                                           : e->params[j].lo;
        if (where_holds(c, e, vals, &bad) && !formula_at(c, e, vals, &r)) return false;
        if (bad) return false;
    }
    return true;
}

/* Every {= expr} template an exercise shows must evaluate at its defaults. */
static bool check_templates(struct ctx *c, struct lesson_exercise *e, const int *key_line)
{
    char err[300];
    bool ok = true;
    if (ex_template_check(e, e->prompt, err, sizeof err) != CV_OK)
        perr(c, key_line[K_PROMPT], "prompt: %s", err), ok = false;
    for (size_t i = 0; i < e->nhints; i++)
        if (ex_template_check(e, e->hints[i], err, sizeof err) != CV_OK)
            perr(c, key_line[K_HINT], "hint %zu: %s", i + 1, err), ok = false;
    if (ex_template_check(e, e->solution, err, sizeof err) != CV_OK)
        perr(c, key_line[K_SOLUTION], "solution: %s", err), ok = false;
    for (size_t i = 0; i < e->nwrong; i++)
        if (ex_template_check(e, e->wrong[i].msg, err, sizeof err) != CV_OK)
            perr(c, e->wrong[i].line, "wrong: %s", err), ok = false;
    for (size_t i = 0; i < e->noptions; i++)
        if (e->option_why[i] &&
            ex_template_check(e, e->option_why[i], err, sizeof err) != CV_OK)
            perr(c, key_line[K_OPTION], "option %zu: %s", i + 1, err), ok = false;
    return ok;
}

/* What parse_exercise gathers while it reads an exercise block's lines. */
struct exparse {
    struct ctx *c;
    struct lesson_exercise e;
    struct sbuf prompt, solution;
    size_t hcap, ocap;
};

/* One key's value handler: val is the value (NUL-terminated, vn bytes, the handler may cut
 * it), line its line; false when the value is bad (the handler has said why). */
typedef bool exkey_fn(struct exparse *p, int line, char *val, size_t vn);

/* id: the exercise's name, for grading and the player. */
static bool ex_key_id(struct exparse *p, int line, char *val, size_t vn)
{
    if (!valid_id(val)) {
        perr(p->c, line, "exercise: bad id '%s' (letters a-z, digits, '-')", val);
        return false;
    }
    memcpy(p->e.id, val, strlen(val) + 1); /* valid_id: shorter than e.id */
    return true;
}

/* type: already read by exercise_type; here only an unknown one is refused. */
static bool ex_key_type(struct exparse *p, int line, char *val, size_t vn)
{
    if (p->e.type != LEX_TYPE_COUNT) return true;
    perr(p->c, line, "exercise: bad type '%s' (number, choice or holds)", val);
    return false;
}

/* prompt: lines join with a space into one paragraph. */
static bool ex_key_prompt(struct exparse *p, int line, char *val, size_t vn)
{
    if (p->prompt.n) sb_add(&p->prompt, " ");
    sb_add(&p->prompt, val);
    return true;
}

/* param: one named parameter (default, range, step), each name once. */
static bool ex_key_param(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    if (e->nparams >= LESSON_MAX_PARAMS) {
        perr(p->c, line, "exercise: too many params (at most %d)", LESSON_MAX_PARAMS);
        return false;
    }
    if (!parse_param(p->c, line, val, &e->params[e->nparams])) return false;
    for (size_t i = 0; i < e->nparams; i++)
        if (strcmp(e->params[i].name, e->params[e->nparams].name) == 0) {
            perr(p->c, line, "param %s given twice (first at line %d)", e->params[i].name,
                 e->params[i].line);
            return false;
        }
    e->nparams++;
    return true;
}

/* answer: the formula, checked and evaluated later in check_formula. */
static bool ex_key_answer(struct exparse *p, int line, char *val, size_t vn)
{
    p->e.answer_line = line;
    /* muParser reads "1,2" as two results and keeps the last: a comma belongs inside a
     * function's parentheses only */
    int depth = 0;
    for (size_t i = 0; i < vn; i++) {
        depth += val[i] == '(' ? 1 : val[i] == ')' ? -1 : 0;
        if (val[i] == ',' && depth <= 0) {
            perr(p->c, line,
                 "answer: '%s' is more than one value (a comma only separates a function's "
                 "arguments, as in min(a, b))",
                 val);
            return false;
        }
    }
    if (vn > LESSON_MAX_FORMULA) {
        perr(p->c, line, "answer: formula too long (%zu characters; at most %d)", vn,
             LESSON_MAX_FORMULA);
        return false;
    }
    memcpy(p->e.formula, val, vn + 1);
    return true;
}

/* units: one of ex_unit_lookup's units, kept in its canonical spelling. */
static bool ex_key_units(struct exparse *p, int line, char *val, size_t vn)
{
    enum ex_dim dim;
    double scale;
    const char *canon;
    if (ex_unit_lookup(val, &dim, &scale, &canon) != CV_OK) {
        perr(p->c, line,
             "units: unknown unit '%s' (GB/s GiB/s MB/s MiB/s TB/s Gb/s, s ms us ns, "
             "B KB MB GB TB KiB MiB GiB TiB, x)",
             val);
        return false;
    }
    snprintf(p->e.units, sizeof p->e.units, "%s", canon);
    return true;
}

/* tolerance: a percentage in (0, 100]. */
static bool ex_key_tolerance(struct exparse *p, int line, char *val, size_t vn)
{
    double t;
    char num[LESSON_MAX_LINE_BYTES + 1];
    memcpy(num, val, vn + 1);
    size_t n = strlen(num);
    if (n < 2 || num[n - 1] != '%' || (num[n - 1] = '\0', !parse_plain_number(num, &t)) ||
        !(t > 0 && t <= 100)) {
        perr(p->c, line, "tolerance: bad value '%.*s' (a percentage, e.g. 1%%)", (int)vn, val);
        return false;
    }
    p->e.tolerance = t / 100.0;
    return true;
}

/* hint: one more hint, shown in order. */
static bool ex_key_hint(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    if (e->nhints >= LESSON_MAX_HINTS) {
        perr(p->c, line, "exercise: too many hints (at most %d)", LESSON_MAX_HINTS);
        return false;
    }
    GROW(e->hints, e->nhints, p->hcap);
    e->hints[e->nhints++] = xstrdup(val);
    return true;
}

/* solution: lines join with newlines (an empty one is a paragraph break). */
static bool ex_key_solution(struct exparse *p, int line, char *val, size_t vn)
{
    if (p->solution.p) sb_add(&p->solution, "\n");
    sb_add(&p->solution, val);
    return true;
}

/* option: "text | why it is wrong", the why optional. */
static bool ex_key_option(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    bool ok = true;
    if (e->noptions >= LESSON_MAX_OPTIONS) {
        perr(p->c, line, "exercise: too many options (at most %d)", LESSON_MAX_OPTIONS);
        return false;
    }
    GROW(e->options, e->noptions, p->ocap);
    e->option_why = xrealloc(e->option_why, p->ocap * sizeof *e->option_why);
    char *bar = strstr(val, " | ");
    char text[LESSON_MAX_LINE_BYTES + 1], why[LESSON_MAX_LINE_BYTES + 1] = "";
    if (bar) {
        *bar = '\0';
        trim_copy(bar + 3, strlen(bar + 3), why, sizeof why);
    }
    trim_copy(val, strlen(val), text, sizeof text);
    if (!text[0]) {
        perr(p->c, line, "option: empty text before ' | '");
        ok = false;
    }
    e->option_why[e->noptions] = why[0] ? xstrdup(why) : NULL;
    e->options[e->noptions++] = xstrdup(text);
    return ok;
}

/* where: one condition the params must meet, checked later in check_formula. */
static bool ex_key_where(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    if (e->nwhere >= LESSON_MAX_WHERE) {
        perr(p->c, line, "exercise: too many where: lines (at most %d)", LESSON_MAX_WHERE);
        return false;
    }
    if (vn > LESSON_MAX_FORMULA) {
        perr(p->c, line, "where: condition too long (at most %d characters)",
             LESSON_MAX_FORMULA);
        return false;
    }
    e->where_line[e->nwhere] = line;
    memcpy(e->where[e->nwhere++], val, vn + 1);
    return true;
}

/* wrong: "VALUE | message", a likely wrong answer and what it means. */
static bool ex_key_wrong(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    char *bar = strstr(val, " | ");
    char f[LESSON_MAX_LINE_BYTES + 1], m[LESSON_MAX_LINE_BYTES + 1] = "";
    if (bar) {
        *bar = '\0';
        trim_copy(bar + 3, strlen(bar + 3), m, sizeof m);
    }
    trim_copy(val, strlen(val), f, sizeof f);
    if (e->nwrong >= LESSON_MAX_WRONG) {
        perr(p->c, line, "exercise: too many wrong: lines (at most %d)", LESSON_MAX_WRONG);
        return false;
    }
    if (!bar || !f[0] || !m[0]) {
        perr(p->c, line,
             "wrong: expected 'VALUE | message' (VALUE: a formula over the "
             "params, in the exercise's units)");
        return false;
    }
    if (strlen(f) > LESSON_MAX_FORMULA) {
        perr(p->c, line, "wrong: formula too long (at most %d characters)", LESSON_MAX_FORMULA);
        return false;
    }
    struct lesson_wrong *w = &e->wrong[e->nwrong++];
    memcpy(w->formula, f, strlen(f) + 1);
    w->msg = xstrdup(m);
    w->line = line;
    return true;
}

/* slots: the slot A, or the slots A..B, a holds answer may name. */
static bool ex_key_slots(struct exparse *p, int line, char *val, size_t vn)
{
    long lo, hi;
    char *dots = strstr(val, "..");
    if (dots) *dots = '\0';
    if (parse_long(val, 0, 1L << 16, &lo) != CV_OK ||
        (dots ? parse_long(dots + 2, lo, 1L << 16, &hi) : (hi = lo, CV_OK)) != CV_OK) {
        perr(p->c, line, "slots: bad value (a slot number A or a range A..B, A <= B)");
        return false;
    }
    p->e.slots = true;
    p->e.slot_lo = (int)lo;
    p->e.slot_hi = (int)hi;
    return true;
}

/* integer: yes or no, whether the answer is a whole number. */
static bool ex_key_integer(struct exparse *p, int line, char *val, size_t vn)
{
    if (strcmp(val, "yes") == 0)
        p->e.integer = true;
    else if (strcmp(val, "no") != 0) {
        perr(p->c, line, "integer: bad value '%s' (yes or no)", val);
        return false;
    }
    return true;
}

/* correct: the number of the right option. */
static bool ex_key_correct(struct exparse *p, int line, char *val, size_t vn)
{
    long n;
    if (parse_long(val, 1, LESSON_MAX_OPTIONS, &n) != CV_OK) {
        perr(p->c, line, "correct: bad value '%s' (the number of an option, 1..%d)", val,
             LESSON_MAX_OPTIONS);
        return false;
    }
    p->e.correct = (int)n;
    return true;
}

/* rank: the rank whose buffer a holds exercise asks about. */
static bool ex_key_rank(struct exparse *p, int line, char *val, size_t vn)
{
    long n;
    if (parse_long(val, 0, CV_MAX_RANKS - 1, &n) != CV_OK) {
        perr(p->c, line, "rank: bad value '%s' (0..%d)", val, CV_MAX_RANKS - 1);
        return false;
    }
    p->e.rank = (int)n;
    return true;
}

/* step: the scene step a holds exercise asks about, a number or end. */
static bool ex_key_step(struct exparse *p, int line, char *val, size_t vn)
{
    long n;
    if (strcmp(val, "end") == 0)
        p->e.step = SCENE_STEP_END;
    else if (parse_long(val, 0, 1L << 20, &n) == CV_OK)
        p->e.step = n;
    else {
        perr(p->c, line, "step: bad value '%s' (a step number or end)", val);
        return false;
    }
    return true;
}

/* The keys of an exercise block: may it repeat, which types have it, who reads its value. */
static const struct {
    const char *name;
    bool repeat;
    unsigned types; /* bit per lesson_ex_type; 7 = all */
    exkey_fn *fn;
} exkeys[K_COUNT] = {
    [K_ID] = {"id", false, 7, ex_key_id},
    [K_TYPE] = {"type", false, 7, ex_key_type},
    [K_PROMPT] = {"prompt", true, 7, ex_key_prompt},
    [K_PARAM] = {"param", true, 1 << LEX_NUMBER, ex_key_param},
    [K_ANSWER] = {"answer", false, 1 << LEX_NUMBER, ex_key_answer},
    [K_UNITS] = {"units", false, 1 << LEX_NUMBER, ex_key_units},
    [K_TOLERANCE] = {"tolerance", false, 1 << LEX_NUMBER, ex_key_tolerance},
    [K_HINT] = {"hint", true, 7, ex_key_hint},
    [K_SOLUTION] = {"solution", true, 7, ex_key_solution},
    [K_OPTION] = {"option", true, 1 << LEX_CHOICE, ex_key_option},
    [K_CORRECT] = {"correct", false, 1 << LEX_CHOICE, ex_key_correct},
    [K_RANK] = {"rank", false, 1 << LEX_HOLDS, ex_key_rank},
    [K_STEP] = {"step", false, 1 << LEX_HOLDS, ex_key_step},
    [K_WHERE] = {"where", true, 1 << LEX_NUMBER, ex_key_where},
    [K_WRONG] = {"wrong", true, 1 << LEX_NUMBER, ex_key_wrong},
    [K_INTEGER] = {"integer", false, 1 << LEX_NUMBER, ex_key_integer},
    [K_SLOTS] = {"slots", false, 1 << LEX_HOLDS, ex_key_slots},
};

/* The block's type: its first type: line, LEX_TYPE_COUNT if none or unknown. */
static enum lesson_ex_type exercise_type(struct ctx *c, size_t first, size_t last)
{
    enum lesson_ex_type type = LEX_TYPE_COUNT;
    int type_line = 0;
    for (size_t li = first; li < last; li++) {
        struct line l = get_line(c, li);
        char key[32];
        const char *v;
        size_t vn;
        if (split_kv(&l, key, sizeof key, &v, &vn) && strcmp(key, "type") == 0 && !type_line) {
            type_line = l.no;
            for (int t = 0; t < LEX_TYPE_COUNT; t++)
                if (vn == strlen(lesson_ex_type_name((enum lesson_ex_type)t)) &&
                    memcmp(v, lesson_ex_type_name((enum lesson_ex_type)t), vn) == 0)
                    type = (enum lesson_ex_type)t;
        }
    }
    return type;
}

/* One line of the block: check its key, then hand its value to the key's handler. False
 * when the line is bad. */
static bool exercise_line(struct exparse *p, size_t li, int *key_line)
{
    struct ctx *c = p->c;
    struct line l = get_line(c, li);
    if (is_blank(l.s, l.n)) return true;
    size_t ind = 0;
    while (ind < l.n && (l.s[ind] == ' ' || l.s[ind] == '\t'))
        ind++;
    if (l.s[ind] == '#') return true;
    char key[32];
    const char *v;
    size_t vn;
    if (!split_kv(&l, key, sizeof key, &v, &vn)) {
        perr(c, l.no, "exercise: expected 'key: value'");
        return false;
    }
    int k = -1;
    for (int i = 0; i < K_COUNT; i++)
        if (strcmp(key, exkeys[i].name) == 0) k = i;
    if (k < 0) {
        perr(c, l.no, "exercise: unknown key '%s'", key);
        return false;
    }
    if (key_line[k] && !exkeys[k].repeat) {
        perr(c, l.no, "exercise: key '%s' given twice (first at line %d)", key, key_line[k]);
        return false;
    }
    if (!key_line[k]) key_line[k] = l.no;
    if (p->e.type != LEX_TYPE_COUNT && !(exkeys[k].types & (1u << p->e.type))) {
        perr(c, l.no, "exercise: '%s' is not a key of a %s exercise", key,
             lesson_ex_type_name(p->e.type));
        return false;
    }
    char val[LESSON_MAX_LINE_BYTES + 1];
    memcpy(val, v, vn);
    val[vn] = '\0';
    if (!val[0] && k != K_SOLUTION && k != K_UNITS) {
        perr(c, l.no, "exercise: empty value for '%s'", key);
        return false;
    }
    return exkeys[k].fn(p, l.no, val, vn);
}

/* The keys every exercise, and each type, must have; for a number, its formula checks.
 * False when one is missing or wrong (each said at the block's opening line). */
static bool exercise_complete(struct ctx *c, struct lesson_exercise *e, const int *key_line,
                              int open)
{
    bool bad = false;
    static const int common_req[] = {K_ID, K_TYPE, K_PROMPT};
    for (size_t i = 0; i < ARRAY_LEN(common_req); i++)
        if (!key_line[common_req[i]]) {
            perr(c, open, "exercise: missing '%s:'", exkeys[common_req[i]].name);
            bad = true;
        }
    if (e->type == LEX_NUMBER) {
        if (!key_line[K_ANSWER]) perr(c, open, "exercise: missing 'answer:'"), bad = true;
        if (!key_line[K_UNITS]) perr(c, open, "exercise: missing 'units:'"), bad = true;
        if (!bad && e->formula[0]) bad = !check_formula(c, e);
    } else if (e->type == LEX_CHOICE) {
        if (e->noptions < LESSON_MIN_OPTIONS) {
            perr(c, open, "exercise: a choice needs %d..%d 'option:' lines (has %zu)",
                 LESSON_MIN_OPTIONS, LESSON_MAX_OPTIONS, e->noptions);
            bad = true;
        }
        if (!key_line[K_CORRECT]) {
            perr(c, open, "exercise: missing 'correct:'");
            bad = true;
        } else if (e->correct > (int)e->noptions && e->noptions >= LESSON_MIN_OPTIONS) {
            perr(c, key_line[K_CORRECT], "correct: %d but there are %zu options", e->correct,
                 e->noptions);
            bad = true;
        }
    } else if (e->type == LEX_HOLDS) {
        if (!key_line[K_RANK]) perr(c, open, "exercise: missing 'rank:'"), bad = true;
        if (!key_line[K_STEP]) perr(c, open, "exercise: missing 'step:'"), bad = true;
    }
    return !bad;
}

/* Free what an exercise that is not kept holds. */
static void exercise_free(struct lesson_exercise *e)
{
    for (size_t i = 0; i < e->nhints; i++)
        free(e->hints[i]);
    for (size_t i = 0; i < e->noptions; i++) {
        free(e->options[i]);
        free(e->option_why[i]);
    }
    for (size_t i = 0; i < e->nwrong; i++)
        free(e->wrong[i].msg);
    free(e->hints);
    free(e->options);
    free(e->option_why);
    free(e->prompt);
    free(e->solution);
}

/* Lines first..last (exclusive) of an ```exercise block opened at line open. */
static void parse_exercise(struct ctx *c, struct lesson_slide *S, size_t si, size_t first,
                           size_t last, int open, size_t *excap)
{
    struct exparse p = {.c = c};
    struct lesson_exercise *e = &p.e;
    e->line = open;
    e->slide = si;
    e->tolerance = 0.01;
    e->step = 0;
    int key_line[K_COUNT] = {0};
    bool bad = false;
    /* first the type, so every key can be checked against it */
    e->type = exercise_type(c, first, last);
    for (size_t li = first; li < last; li++)
        if (!exercise_line(&p, li, key_line)) bad = true;
    e->prompt = p.prompt.p ? sb_take(&p.prompt) : NULL;
    e->solution = p.solution.p ? sb_take(&p.solution) : NULL;
    /* required keys, at the block's opening line */
    if (!exercise_complete(c, e, key_line, open)) bad = true;
    if (!bad) bad = !check_templates(c, e, key_line);
    if (S->nex >= LESSON_MAX_EXERCISES) {
        perr(c, open, "too many exercises on one slide (at most %d)", LESSON_MAX_EXERCISES);
        bad = true;
    }
    if (bad) {
        /* the slide is not kept either: free this exercise now */
        exercise_free(e);
        return;
    }
    GROW(S->ex, S->nex, *excap);
    S->ex[S->nex++] = p.e;
}

/* holds exercises need the slide's scene (which may come after them on the slide) */
static void check_holds(struct ctx *c, struct lesson_slide *S)
{
    for (size_t i = 0; i < S->nex; i++) {
        struct lesson_exercise *e = &S->ex[i];
        if (e->type != LEX_HOLDS) continue;
        if (!S->has_scene) {
            perr(c, e->line, "holds: the slide has no ```scene block to ask about");
            continue;
        }
        if (S->scene.screen != SCREEN_COLLECTIVES) {
            perr(c, e->line, "holds: the slide's scene is not a collectives scene");
            continue;
        }
        if (e->rank >= S->scene.nranks) {
            perr(c, e->line, "holds: rank %d but the scene has %d ranks (0..%d)", e->rank,
                 S->scene.nranks, S->scene.nranks - 1);
            continue;
        }
        e->scene = S->scene;
        struct plan p;
        char err[200];
        size_t count = scene_count(&S->scene);
        int root = coll_is_rooted(S->scene.coll) ? S->scene.root : 0;
        if (scene_plan_build(&S->scene, &p, count, root, err, sizeof err) != CV_OK) {
            perr(c, e->line, "holds: %s", err);
            continue;
        }
        if (e->step != SCENE_STEP_END && (size_t)e->step > p.nsteps)
            perr(c, e->line, "holds: step %ld but the scene's plan has %zu steps", e->step,
                 p.nsteps);
        if (e->slots && (size_t)e->slot_hi >= p.work_len)
            perr(c, e->line,
                 "holds: slots up to %d but rank %d's box has %zu elements (0..%zu)",
                 e->slot_hi, e->rank, p.work_len, p.work_len - 1);
        plan_free(&p);
    }
}

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
    struct sbuf title;
    int title_first_line, title_last_line;
    struct sbuf html; /* raw HTML being collected (a comment may come in pieces) */
    size_t html_off;
    const char *html_end; /* end of the last raw HTML piece in the source */
    struct sbuf notes;
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
    return line_of(m->c, m->base + off);
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
    GROW(S->blocks, S->nblocks, m->bcap);
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
    GROW(b->spans, b->nspans, m->scap);
    b->spans[b->nspans++] = (struct lesson_span){dupn(s, n), style, hard};
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
    while (m->html.n) {
        char *h = m->html.p;
        if (strncmp(h, "<!--", 4) == 0) {
            char *end = strstr(h + 4, "-->");
            if (!end) {
                if (!final) return; /* wait for the rest */
                end = h + m->html.n;
                /* it would silently take the rest of the slide (into the notes, or away) */
                const char *b = h + 4;
                while (*b == ' ' || *b == '\t' || *b == '\n')
                    b++;
                perr(m->c, line_of(m->c, m->base + m->html_off),
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
                if (m->notes.n) sb_add(&m->notes, "\n");
                if (!m->S->notes_line) m->S->notes_line = line_of(m->c, m->base + m->html_off);
                for (size_t i = 0; i < n; i++) /* CRLF files: notes end lines with '\n' */
                    if (body[i] != '\r') sb_addn(&m->notes, body + i, 1);
            }
            size_t used = (size_t)(end - h) + (*end ? 3 : 0);
            GROW(m->cut, m->ncut, m->cutcap);
            m->cut[m->ncut][0] = m->html_off;
            m->cut[m->ncut][1] = m->html_off + used;
            m->ncut++;
            memmove(h, h + used, m->html.n - used + 1);
            m->html.n -= used;
            m->html_off += used;
            continue;
        }
        /* other raw HTML: text, up to the next comment */
        char *next = strstr(h + 1, "<!--");
        size_t n = next ? (size_t)(next - h) : m->html.n;
        if (!next && !final && m->in_html_block) return;
        /* split at newlines: each line its own hard-broken piece */
        size_t i = 0;
        while (i < n) {
            size_t j = i;
            while (j < n && h[j] != '\n')
                j++;
            if (!is_blank(h + i, j - i)) {
                md_add_span(m, h + i, j - i, md_style(m), i > 0 && m->cur && m->cur->nspans,
                            m->text + m->html_off + i);
            }
            i = j + 1;
        }
        memmove(h, h + n, m->html.n - n + 1);
        m->html.n -= n;
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
                control_name(t[0] == 0xc2 ? t[1] : t[0], m->bad_title, sizeof m->bad_title);
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
    pwarn(m->c, line,
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
        perr(m->c, line, "control character %s in a link's title", m->bad_title);
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
        if (!in_src && m->html.n && m->html_end)
            return 0; /* md4c's own "\n" between lines: the source's line end comes next */
        if (!m->html.n)
            m->html_off = in_src ? (size_t)(text - m->text) : 0;
        else if (in_src && m->html_end && text > m->html_end)
            sb_addn(&m->html, m->html_end, (size_t)(text - m->html_end));
        sb_addn(&m->html, text, size);
        m->html_end = in_src ? text + size : NULL;
        md_html_flush(m, false);
        return 0;
    }
    /* a comment may be open across a soft break: the next piece brings the line end */
    if (m->html.n && type == MD_TEXT_SOFTBR) return 0;
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
            control_name(n == 1 ? b0 : b1, name, sizeof name);
            perr(m->c, md_line(m, text), "control character %s written as %.*s", name,
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
            sb_add(&m->title, " ");
        else
            sb_addn(&m->title, s, n);
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
                    GROW(b->spans, b->nspans, m->scap);
                    b->spans[b->nspans] =
                        (struct lesson_span){dupn(s + i, j - i), LSPAN_CODE, b->nspans > 0};
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
            if (!S->indented_note_line) S->indented_note_line = line_of(c, base + i);
        }
        i = e + 1;
    }
}

/* Narration, title and notes of slide S from text (the slide with its scene and exercise
 * blocks blanked), which starts at offset base of the file. */
static void parse_narration(struct ctx *c, struct lesson_slide *S, char *text, size_t len,
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
    if (m.title_done && m.title.n) {
        char t[LESSON_MAX_LINE_BYTES * 2 + 1];
        if (trim_copy(m.title.p, m.title.n, t, sizeof t) && t[0]) {
            S->title = xstrdup(t);
            S->title_line = m.title_first_line;
        }
    }
    free(m.title.p);
    S->notes = m.notes.n ? sb_take(&m.notes) : NULL;
    free(m.notes.p);
    free(m.html.p);

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
                struct line l = get_line(c, (size_t)ln - 1);
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
    struct sbuf md = {0};
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
            if (md.n && !(md.n >= 2 && md.p[md.n - 1] == '\n' && md.p[md.n - 2] == '\n'))
                sb_add(&md, "\n");
        } else {
            for (size_t k = i; k < j; k++)
                if (text[k] != '\x01' && !(text[k] == '\r' && k + 1 == j))
                    sb_addn(&md, text + k, 1);
            sb_add(&md, "\n");
        }
        i = j + 1;
    }
    /* trim blank lines at both ends */
    char *s = md.p ? md.p : "";
    size_t n = md.n;
    size_t start = 0;
    while (start < n) {
        size_t e = start;
        while (e < n && s[e] != '\n')
            e++;
        if (!is_blank(s + start, e - start)) break;
        start = e + 1;
    }
    while (n > start && strchr(" \t\r\n", s[n - 1]))
        n--;
    S->markdown = n > start ? dupn(s + start, n - start) : xstrdup("");
    free(md.p);
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
        struct line l = get_line(c, li);
        char ch, info[32];
        size_t flen;
        if (!fence_open(&l, &ch, &flen, info, sizeof info)) continue;
        size_t close = li + 1;
        while (close < last) {
            struct line cl = get_line(c, close);
            if (fence_close(&cl, ch, flen)) break;
            close++;
        }
        bool ours = strcmp(info, "scene") == 0 || strcmp(info, "exercise") == 0;
        if (ours && close >= last) {
            perr(c, l.no, "```%s block is never closed", info);
        } else if (strcmp(info, "scene") == 0) {
            if (S->scene_line)
                perr(c, l.no, "a slide has at most one scene (the first is at line %d)",
                     S->scene_line);
            else {
                S->scene_line = l.no;
                parse_scene(c, S, li + 1, close, l.no);
            }
        } else if (strcmp(info, "exercise") == 0) {
            parse_exercise(c, S, si, li + 1, close, l.no, &excap);
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
    check_holds(c, S);
    parse_narration(c, S, text, len, base);
    free(text);
    if (!S->title) {
        /* the first non-blank line, or the slide's first */
        int line = S->line;
        for (size_t li = first; li < last; li++) {
            struct line l = get_line(c, li);
            if (!is_blank(l.s, l.n)) {
                line = l.no;
                break;
            }
        }
        perr(c, line, "slide %zu has no title (its first heading, e.g. '# Title')", si + 1);
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
    perr(c, (int)fline + 1,
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
                for (size_t e2 = 0; e2 < out->slides[s2].nex && (s2 < s1 || e2 < e1); e2++)
                    if (strcmp(out->slides[s2].ex[e2].id, x->id) == 0) {
                        perr(c, x->line, "exercise id '%s' is also used at line %d", x->id,
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
        perr(&c, 0, "file too large (%zu bytes; at most %zu)", len, LESSON_MAX_FILE_BYTES);
        return CV_EINVAL;
    }
    size_t cap = 64;
    c.lines = xmalloc(cap * sizeof *c.lines);
    c.lines[c.nlines++] = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n' && i + 1 < len) {
            GROW(c.lines, c.nlines, cap);
            c.lines[c.nlines++] = i + 1;
        }
    if (len == 0) c.nlines = 0;
    int rc = CV_EINVAL;
    if (!check_bytes(&c)) goto done;
    size_t ws = 0;
    while (ws < len && strchr(" \t\r\n", buf[ws]) && buf[ws])
        ws++;
    if (ws == len) {
        perr(&c, 1, "empty file (a lesson needs at least one slide)");
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
            perr(&c, (int)fline + 1,
                 "code block '%c%c%c' is never closed (it would take every later slide)", fch,
                 fch, fch);
        if (!split) {
            struct line l = get_line(&c, li);
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
            prev_blank = is_blank(l.s, l.n);
        }
        if (!split) continue;
        /* lines [start, li) are a slide unless all blank (before the first separator) */
        bool blank = true;
        for (size_t k = start; k < li && blank; k++) {
            struct line l = get_line(&c, k);
            blank = is_blank(l.s, l.n);
        }
        if (!(blank && (start == body || li == c.nlines))) {
            if (out->nslides >= LESSON_MAX_SLIDES) {
                perr(&c, (int)start + 1, "too many slides (at most %d)", LESSON_MAX_SLIDES);
                break;
            }
            GROW(out->slides, out->nslides, scap);
            struct lesson_slide *S = &out->slides[out->nslides++];
            memset(S, 0, sizeof *S);
            if (blank) {
                perr(&c, (int)start + 1, "slide %zu is empty", out->nslides);
                S->line = (int)start + 1;
            } else
                parse_slide(&c, S, out->nslides - 1, start, li);
        }
        start = li + 1;
        prev_blank = true;
    }
    check_exercise_ids(&c, out);
    if (out->nslides == 0 && c.nerr == 0)
        perr(&c, body < c.nlines ? (int)body + 1 : 1,
             "no slides (a lesson needs at least one)");
    if (!out->id[0]) {
        slug_of(path, out->id, sizeof out->id);
        if (!valid_id(out->id))
            perr(&c, 1,
                 "no 'lesson:' id in front matter and the file name gives no valid id "
                 "('%s': letters a-z, digits, '-')",
                 out->id);
    }
    if (!out->title && out->nslides && out->slides[0].title)
        out->title = xstrdup(out->slides[0].title);
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
    /* O_NONBLOCK: a FIFO or a device named as a lesson must not hang the open */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        perr(&c, 0, "cannot open: %s", strerror(errno));
        return CV_EINVAL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        perr(&c, 0, "not a regular file");
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
        perr(&c, 0, "read error: %s", strerror(errno));
        return CV_EINVAL;
    }
    if (n > LESSON_MAX_FILE_BYTES) {
        free(buf);
        perr(&c, 0, "file too large (more than %zu bytes)", LESSON_MAX_FILE_BYTES);
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
    if (dup) perr(&c, 1, "lesson id '%s' is also the id of %s", L->id, dup->path);
    for (size_t s = 0; s < L->nslides; s++)
        for (size_t e = 0; e < L->slides[s].nex; e++) {
            const struct lesson_exercise *x = &L->slides[s].ex[e];
            const struct lesson *other;
            const struct lesson_exercise *d = lesson_set_find_exercise(set, x->id, &other);
            if (d)
                perr(&c, x->line, "exercise id '%s' is also used at %s:%d", x->id, other->path,
                     d->line);
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
        perr(&c, 0, "cannot open: %s", strerror(errno));
        return CV_EINVAL;
    }
    if (!S_ISDIR(st.st_mode)) {
        struct lesson L;
        if (lesson_load_file(path, &L, errs) != CV_OK) return CV_EINVAL;
        return set_add_lesson(set, &L, errs);
    }
    DIR *d = opendir(path);
    if (!d) {
        perr(&c, 0, "cannot open folder: %s", strerror(errno));
        return CV_EINVAL;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 1000)
        if (lesson_is_lesson_name(de->d_name)) {
            GROW(names, n, cap);
            names[n++] = xstrdup(de->d_name);
        }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
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
            perr(&fc, 0, "%s",
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

void lesson_default_dir(char *buf, size_t n)
{
    const char *env = getenv("COLLVIZ_LESSONS");
    snprintf(buf, n, "%s", env && *env ? env : "lessons");
}
