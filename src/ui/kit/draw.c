/* draw.c - the drawing kit (see draw.h): clipped text, frames, styled lines, the key bar. */
#include "ui/kit/draw.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/text.h"

/* The glyph mode of the frame being drawn (draw_begin; drawing happens on one thread). */
static bool draw_utf8 = true;
static const struct glyphs *draw_glyphs;

/* The frame is the room's (draw_set_room), and the status said in it (draw_status_said). */
#define DRAW_STATUS_MAX 16
static bool draw_is_room;
static char draw_status_text[DRAW_STATUS_MAX][200];
static const char *draw_status_ptr[DRAW_STATUS_MAX];
static int draw_nstatus;

void draw_begin(const struct glyphs *g, bool utf8)
{
    draw_glyphs = g;
    draw_utf8 = utf8;
    draw_is_room = false;
    draw_nstatus = 0;
}

void draw_set_room(bool room)
{
    draw_is_room = room;
}

bool draw_room(void)
{
    return draw_is_room;
}

/* Keep one text of status (once). */
static void draw_status_keep(const char *s)
{
    if (!s[0]) return;
    for (int i = 0; i < draw_nstatus; i++)
        if (strcmp(draw_status_text[i], s) == 0) return;
    if (draw_nstatus >= DRAW_STATUS_MAX) return;
    snprintf(draw_status_text[draw_nstatus], sizeof draw_status_text[0], "%s", s);
    draw_status_ptr[draw_nstatus] = draw_status_text[draw_nstatus];
    draw_nstatus++;
}

const char *const *draw_status_said(int *n)
{
    *n = draw_nstatus;
    return draw_status_ptr;
}

/* Draw UTF-8 text at (y, x), at most maxw columns. Returns the columns drawn. */
static long draw_cuts;
static char draw_cut_text[160];

long draw_cut_count(const char **last)
{
    if (last) *last = draw_cut_text;
    return draw_cuts;
}

int draw_put(int y, int x, int maxw, attr_t attr, const char *s)
{
    if (maxw <= 0 || y < 0 || x < 0) return 0;
    size_t nb = text_prefix_bytes(s, maxw);
    if (s[nb + strspn(s + nb, " ")]) { /* words past the width: cut without a mark */
        draw_cuts++;
        snprintf(draw_cut_text, sizeof draw_cut_text, "%s", s);
    }
    attrset(attr);
    mvaddnstr(y, x, s, (int)nb);
    attrset(A_NORMAL);
    int w = text_width(s);
    return w < maxw ? w : maxw;
}

int draw_putf(int y, int x, int maxw, attr_t attr, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_put_masked(y, x, maxw, attr, buf);
}

void draw_fill(struct rect r, attr_t attr)
{
    attrset(attr);
    for (int y = r.y; y < r.y + r.h; y++)
        mvhline(y, r.x, ' ', r.w);
    attrset(A_NORMAL);
}

/* A border around r, with an optional title in the top edge. */
void draw_frame(struct rect r, attr_t attr, const char *title, attr_t title_attr)
{
    const struct glyphs *g = draw_glyphs;
    if (r.w < 2 || r.h < 2) return;
    attrset(attr);
    for (int x = r.x + 1; x < r.x + r.w - 1; x++) {
        mvaddstr(r.y, x, g->h);
        mvaddstr(r.y + r.h - 1, x, g->h);
    }
    for (int y = r.y + 1; y < r.y + r.h - 1; y++) {
        mvaddstr(y, r.x, g->v);
        mvaddstr(y, r.x + r.w - 1, g->v);
    }
    mvaddstr(r.y, r.x, g->tl);
    mvaddstr(r.y, r.x + r.w - 1, g->tr);
    mvaddstr(r.y + r.h - 1, r.x, g->bl);
    mvaddstr(r.y + r.h - 1, r.x + r.w - 1, g->br);
    attrset(A_NORMAL);
    if (title && r.w > 4) {
        char t[256];
        snprintf(t, sizeof t, " %s ", title);
        char fit[256];
        text_fit(fit, sizeof fit, t, r.w - 2, draw_utf8);
        draw_put(r.y, r.x + 1, r.w - 2, title_attr, fit);
    }
}

struct styled_line *styled_new(struct styled_lines *p)
{
    if (p->n >= (int)ARRAY_LEN(p->l)) return &p->l[p->n - 1];
    struct styled_line *l = &p->l[p->n++];
    l->n = 0;
    return l;
}

void styled_add(struct styled_line *l, attr_t attr, const char *fmt, ...)
{
    if (l->n >= (int)ARRAY_LEN(l->seg)) return;
    struct seg *s = &l->seg[l->n++];
    s->attr = attr;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text, sizeof s->text, fmt, ap);
    va_end(ap);
}

struct styled_line *styled_status(struct styled_lines *p, attr_t attr, const char *fmt, ...)
{
    char t[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    draw_status_keep(t);
    if (draw_is_room) return NULL;
    struct styled_line *l = styled_new(p);
    styled_add(l, attr, "%s", t);
    return l;
}

void styled_status_add(struct styled_line *l, attr_t attr, const char *fmt, ...)
{
    char t[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    /* a piece after others ("  measuring") is kept without its leading spaces */
    draw_status_keep(t + strspn(t, " "));
    if (!draw_is_room) styled_add(l, attr, "%s", t);
}

void styled_status_wrapped(struct styled_lines *p, attr_t attr, int width, const char *text,
                           int max)
{
    draw_status_keep(text);
    if (!draw_is_room) styled_wrapped_max(p, attr, width, text, max);
}

int draw_put_status(int y, int x, int maxw, attr_t attr, const char *s)
{
    draw_status_keep(s);
    return draw_is_room ? 0 : draw_put_masked(y, x, maxw, attr, s);
}

void styled_wrapped_max(struct styled_lines *p, attr_t attr, int width, const char *text,
                        int max)
{
    char lines[6][256];
    if (max > 6) max = 6;
    int n = text_wrap(text, width, lines, max, draw_utf8);
    for (int i = 0; i < n && i < max; i++)
        styled_add(styled_new(p), attr, "%s", lines[i]);
}

void styled_wrapped(struct styled_lines *p, attr_t attr, int width, const char *text)
{
    styled_wrapped_max(p, attr, width, text, 6);
}

int styled_width(const struct styled_line *l)
{
    int w = 0;
    for (int i = 0; i < l->n; i++)
        w += text_width(l->seg[i].text);
    return w;
}

static draw_mask_fn draw_mask;
static void *draw_mask_ctx;
static int draw_mask_count;

void draw_set_mask(draw_mask_fn fn, void *ctx)
{
    draw_mask = fn;
    draw_mask_ctx = ctx;
    draw_mask_count = 0;
}

int draw_mask_hits(void)
{
    return draw_mask_count;
}

static bool mask_name_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '.' || c >= 0x80;
}

/* Half a unit of the last digit of the figure num (digits, '.', an exponent) when it has
 * two significant digits or more, else 0. */
static double mask_half(const char *num)
{
    int sig = 0, decimals = 0;
    bool nonzero = false, frac = false;
    const char *p = num;
    for (; isdigit((unsigned char)*p) || *p == '.'; p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        nonzero = nonzero || *p != '0';
        if (nonzero) sig++;
        if (frac) decimals++;
    }
    long ex = *p == 'e' || *p == 'E' ? strtol(p + 1, NULL, 10) : 0;
    return sig >= 2 ? 0.5 * pow(10.0, (double)(ex - decimals)) : 0;
}

/* The figure at s (a digit not glued to a name, nor a setting's "W=4"): its value, the half
 * unit of its last digit (mask_half; 0 for a fraction) and its length; 0 when none. */
static size_t mask_number(const char *s, double *v, double *half)
{
    char num[64];
    size_t i = 0, o = 0;
    while (o + 1 < sizeof num) {
        if (isdigit((unsigned char)s[i])) {
            num[o++] = s[i++];
        } else if (s[i] == ',' && o > 0 && isdigit((unsigned char)s[i + 1]) &&
                   isdigit((unsigned char)s[i + 2]) && isdigit((unsigned char)s[i + 3]) &&
                   !isdigit((unsigned char)s[i + 4])) {
            i++; /* 524,288 */
        } else if (s[i] == '.' && isdigit((unsigned char)s[i + 1]) && !strchr(num, '.')) {
            num[o++] = s[i++];
        } else if ((s[i] == 'e' || s[i] == 'E') &&
                   (isdigit((unsigned char)s[i + 1]) || ((s[i + 1] == '-' || s[i + 1] == '+') &&
                                                         isdigit((unsigned char)s[i + 2])))) {
            num[o++] = s[i++];
            num[o++] = s[i++];
        } else {
            break;
        }
        num[o] = '\0';
    }
    num[o] = '\0';
    if (o == 0) return 0;
    *v = strtod(num, NULL);
    *half = mask_half(num);
    /* "3/7" is the figure 3/7 (a fraction the answer may be given as) */
    if (s[i] == '/' && isdigit((unsigned char)s[i + 1])) {
        double d, dh;
        size_t dl = mask_number(s + i + 1, &d, &dh);
        if (dl && d != 0) {
            *v /= d;
            *half = 0;
            i += 1 + dl;
        }
    }
    return i;
}

/* The figure at s + i (an N/M) follows a counter's name ("step 3/6", "tick 5/10", "page
 * 1/2", "slide 4/9", "frame 6/12") or a parenthesis ("dW0 (2/4)"): a place in a
 * sequence, never an answer. */
static bool mask_counter(const char *s, size_t i)
{
    static const char *const words[] = {"step", "tick", "page", "slide", "frame",
                                        "Step", "Tick", "Page", "Slide", "Frame"};
    if (i > 0 && s[i - 1] == '(') return true; /* "dW0 (2/4)": the 2nd of 4 */
    if (i < 2 || s[i - 1] != ' ') return false;
    size_t end = i - 1, start = end;
    while (start > 0 && isalpha((unsigned char)s[start - 1]))
        start--;
    if (start > 0 && s[start - 1] == '/') return false; /* "sent/step 24 MiB" */
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strlen(words[k]) == end - start && strncmp(s + start, words[k], end - start) == 0)
            return true;
    return false;
}

/* The bytes of u that are a unit of measure whose prefix tells a magnitude: bytes or bits
 * (B, KiB, MB, Gb...), seconds (s, ms, us, µs, ns), either per second (GB/s), or a factor
 * (x); "MiB" of "MiB/rank". 0 when u is none. */
static size_t mask_measure_unit(const char *u)
{
    char t[24];
    snprintf(t, sizeof t, "%s", u);
    size_t l = strlen(t);
    if (l > 2 && strcmp(t + l - 2, "/s") == 0) t[l -= 2] = '\0';
    char *slash = strchr(t, '/');
    if (slash) *slash = '\0'; /* "MiB/rank": the unit, per something */
    size_t keep = slash ? (size_t)(slash - t) : strlen(u);
    if (strcmp(t, "x") == 0) return keep;
    const char *p = t;
    if (strncmp(p, "\xc2\xb5", 2) == 0 || strncmp(p, "\xce\xbc", 2) == 0)
        p += 2; /* µ */
    else if (*p && strchr("KMGTPkmun", *p) && p[1])
        p++;
    if (*p == 'i' && p != t) p++;
    return (p[0] == 'B' || p[0] == 'b' || p[0] == 's') && !p[1] ? keep : 0;
}

int draw_mask_text(const char *s, char *out, size_t n)
{
    size_t o = 0;
    int hits = 0;
    if (n == 0) return 0;
    for (size_t i = 0; s[i] && o + 1 < n;) {
        double v, half = 0;
        size_t len = 0;
        if (draw_mask && isdigit((unsigned char)s[i]) &&
            (i == 0 || (!mask_name_char((unsigned char)s[i - 1]) && s[i - 1] != '=')))
            len = mask_number(s + i, &v, &half);
        if (len == 0) {
            out[o++] = s[i++];
            continue;
        }
        if (memchr(s + i, '/', len) &&
            mask_counter(s, i)) { /* "tick 5/10", "page 1/2": where one is, not a figure */
            size_t c = len < n - 1 - o ? len : n - 1 - o;
            memcpy(out + o, s + i, c);
            o += c;
            i += len;
            continue;
        }
        /* the unit: right after it or after one space, letters (and / or µ); a product's
         * "·" ends it ("64 MB·2·3/(4·66.8 ms)": the unit is MB) */
        const char *u = s + i + len;
        if (*u == ' ') u++;
        char unit[24];
        size_t ul = 0;
        while ((isalpha((unsigned char)u[ul]) || (ul > 0 && u[ul] == '/') ||
                (unsigned char)u[ul] >= 0x80) &&
               strncmp(u + ul, "\u00b7", 2) != 0 && ul + 1 < sizeof unit) {
            unit[ul] = u[ul];
            ul++;
        }
        unit[ul] = '\0';
        /* "8×4", "8x4": a shape (a product), not a ratio "8×" */
        if ((strcmp(unit, "\u00d7") == 0 || strcmp(unit, "x") == 0) &&
            isdigit((unsigned char)u[ul]))
            unit[0] = '\0';
        if (draw_mask(v, half, unit, draw_mask_ctx)) {
            out[o++] = '?';
            hits++;
            /* "? KiB" would still give the answer's magnitude: a unit of measure goes with
             * its figure ("? steps" keeps what it counts) */
            size_t mu = mask_measure_unit(unit);
            if (mu) len = (size_t)(u + mu - (s + i));
        } else {
            size_t c = len < n - 1 - o ? len : n - 1 - o;
            memcpy(out + o, s + i, c);
            o += c;
        }
        i += len;
    }
    out[o] = '\0';
    draw_mask_count += hits;
    return hits;
}

int draw_put_masked(int y, int x, int maxw, attr_t attr, const char *s)
{
    if (!draw_mask) return draw_put(y, x, maxw, attr, s);
    char t[1024];
    draw_mask_text(s, t, sizeof t);
    return draw_put(y, x, maxw, attr, t);
}

int draw_words(int y, int x, int w, int rows, attr_t attr, const char *s)
{
    char lines[8][256];
    if (rows > 8) rows = 8;
    if (rows < 1 || w < 1) return 0;
    int n = text_wrap(s, w, lines, rows, draw_utf8);
    for (int i = 0; i < n; i++)
        draw_put_masked(y + i, x, w, attr, lines[i]);
    return n;
}

void styled_draw_line(const struct styled_line *l, int y, int x, int w)
{
    int used = 0;
    for (int i = 0; i < l->n && used < w; i++)
        used += draw_put_masked(y, x + used, w - used, l->seg[i].attr, l->seg[i].text);
}

/* A line wider than w, wrapped at its spaces onto at most maxrows rows (the rest indented
 * by two columns), each word in its piece's style; drawn, or (draw false) only counted.
 * Returns the rows used. */
static int styled_wrap(const struct styled_line *l, int y, int x, int w, int maxrows, bool draw)
{
    int row = 0, col = 0;
    for (int i = 0; i < l->n; i++) {
        const char *t = l->seg[i].text;
        while (*t) {
            size_t sp = strspn(t, " ");
            size_t wl = strcspn(t + sp, " ");
            char word[200];
            snprintf(word, sizeof word, "%.*s", (int)wl, t + sp);
            int ww = text_width(word);
            if (col > 0 && col + (int)sp + ww > w && ww > 0) {
                if (++row >= maxrows) return row;
                col = 2; /* the spaces before the word stay at the end of the last row */
            } else if (sp && (col > 0 || i > 0)) {
                char pad[64];
                snprintf(pad, sizeof pad, "%*s", (int)(sp < 60 ? sp : 60), "");
                col += draw ? draw_put(y + row, x + col, w - col, l->seg[i].attr, pad)
                            : (int)(sp < 60 ? sp : 60);
            }
            col += draw ? draw_put_masked(y + row, x + col, w - col, l->seg[i].attr, word) : ww;
            t += sp + wl;
        }
    }
    return row + 1;
}

/* Lines [from, ...) of p into the rectangle, a line wider than it wrapped (never cut while
 * rows are left); returns the rows used. */
int styled_draw(const struct styled_lines *p, int from, struct rect r)
{
    int k = 0;
    for (int i = from; k < r.h && i < p->n; i++) {
        if (styled_width(&p->l[i]) <= r.w) {
            styled_draw_line(&p->l[i], r.y + k, r.x, r.w);
            k++;
        } else {
            k += styled_wrap(&p->l[i], r.y + k, r.x, r.w, r.h - k, true);
        }
    }
    return k;
}

int styled_rows(const struct styled_lines *p, int w)
{
    int k = 0;
    for (int i = 0; i < p->n; i++)
        k += styled_width(&p->l[i]) <= w ? 1 : styled_wrap(&p->l[i], 0, 0, w, INT_MAX, false);
    return k;
}

int draw_key_bar(const struct theme *th, bool utf8, struct rect r, unsigned keys_on,
                 struct bar_item *bar, int max)
{
    return draw_key_bar_where(th, utf8, r, keys_on, NULL, NULL, bar, max);
}

int draw_key_bar_where(const struct theme *th, bool utf8, struct rect r, unsigned keys_on,
                       keys_bar_fn works, const void *ctx, struct bar_item *bar, int max)
{
    int n = keys_bar_where(r.w - 1, utf8, keys_on, works, ctx, bar, max);
    for (int i = 0; i < n; i++) {
        const struct bar_item *b = &bar[i];
        int kw = draw_put(r.y, r.x + b->x, b->w, th->role[TH_BAR_KEY], b->keys);
        draw_put(r.y, r.x + b->x + kw, b->w - kw, th->role[TH_BAR_LABEL], " ");
        draw_put(r.y, r.x + b->x + kw + 1, b->w - kw - 1, th->role[TH_BAR_LABEL], b->label);
    }
    return n;
}

void styled_colour_legend(struct styled_lines *p, const struct theme *th,
                          const struct glyphs *g, const char *ranks_note,
                          const char *marks_note)
{
    struct styled_line *l = styled_new(p);
    styled_add(l, A_BOLD, "colours ");
    for (int k = 0; k < 4; k++)
        styled_add(l, th->rank[k] | A_BOLD, "r%d ", k);
    styled_add(l, A_NORMAL, "%s", ranks_note);
    l = styled_new(p);
    styled_add(l, A_NORMAL, "        ");
    styled_add(l, th->role[TH_REDUCED], " %s ", g->sigma);
    styled_add(l, A_NORMAL, " partial reduction (several ranks)  ");
    styled_add(l, th->role[TH_COMPLETE], " %s ", g->sigma);
    styled_add(l, A_NORMAL, " all ranks reduced");
    l = styled_new(p);
    styled_add(l, A_NORMAL, "        ");
    styled_add(l, th->role[TH_DST], "written");
    styled_add(l, A_NORMAL, "/");
    styled_add(l, th->role[TH_SRC], "sent");
    styled_add(l, A_NORMAL, "%s", marks_note);
}
