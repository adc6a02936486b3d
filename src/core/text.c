/* text.c - UTF-8 width, fitting, wrapping and number formats for the screens (see text.h).
 * Widths are terminal columns (wcwidth), counted here only: a teacher's narration may hold
 * wide characters, and every other module measures through text_width / text_ncols. */
#include "core/text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static bool text_is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* The code point at s[0..len) and its byte length (an invalid byte: itself, 1 byte). */
static unsigned text_decode(const unsigned char *s, size_t len, size_t *nb)
{
    unsigned c = s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || n > len) {
        *nb = 1;
        return c;
    }
    unsigned cp = n == 1 ? c : c & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) {
        if (!text_is_cont(s[i])) {
            *nb = 1;
            return c;
        }
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    *nb = n;
    return cp;
}

/* Terminal columns of one code point: libc's wcwidth where the locale knows it, else the
 * same classes from Unicode's East Asian Width and combining ranges (the locale of a unit
 * test or a C-locale run knows no characters beyond ASCII). */
static int text_cp_cols(unsigned cp)
{
    if (cp < 0x80) return cp >= 0x20 && cp != 0x7F ? 1 : 0;
    int w = wcwidth((wchar_t)cp);
    if (w >= 0) return w;
    static const unsigned zero[][2] = {
        {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x0610, 0x061A},
        {0x064B, 0x065F}, {0x0E31, 0x0E31}, {0x0E34, 0x0E3A}, {0x1AB0, 0x1AFF},
        {0x1DC0, 0x1DFF}, {0x200B, 0x200F}, {0x202A, 0x202E}, {0x2060, 0x2064},
        {0x20D0, 0x20FF}, {0xFE00, 0xFE0F}, {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF},
    };
    static const unsigned wide[][2] = {
        {0x1100, 0x115F},   {0x231A, 0x231B},   {0x2329, 0x232A},   {0x23E9, 0x23EC},
        {0x25FD, 0x25FE},   {0x2614, 0x2615},   {0x2648, 0x2653},   {0x26AA, 0x26AB},
        {0x26BD, 0x26BE},   {0x26F5, 0x26F5},   {0x26FA, 0x26FA},   {0x2705, 0x2705},
        {0x270A, 0x270B},   {0x274C, 0x274C},   {0x2753, 0x2755},   {0x2795, 0x2797},
        {0x2B1B, 0x2B1C},   {0x2E80, 0x303E},   {0x3041, 0x33FF},   {0x3400, 0x4DBF},
        {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},   {0xA960, 0xA97F},   {0xAC00, 0xD7A3},
        {0xF900, 0xFAFF},   {0xFE10, 0xFE19},   {0xFE30, 0xFE6F},   {0xFF00, 0xFF60},
        {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F900, 0x1F9FF},
        {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
    };
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        if (cp >= zero[i][0] && cp <= zero[i][1]) return 0;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (cp >= wide[i][0] && cp <= wide[i][1]) return 2;
    return 1;
}

int text_ncols(const char *s, size_t len)
{
    int w = 0;
    for (size_t i = 0; i < len && s[i];) {
        size_t nb;
        w += text_cp_cols(text_decode((const unsigned char *)s + i, len - i, &nb));
        i += nb;
    }
    return w;
}

int text_width(const char *s)
{
    return text_ncols(s, strlen(s));
}

size_t text_nprefix(const char *s, size_t len, int cols)
{
    size_t i = 0;
    int w = 0;
    while (i < len && s[i]) {
        size_t nb;
        int cw = text_cp_cols(text_decode((const unsigned char *)s + i, len - i, &nb));
        if (w + cw > cols) break;
        w += cw;
        i += nb;
    }
    return i;
}

size_t text_prefix_bytes(const char *s, int cols)
{
    return text_nprefix(s, strlen(s), cols);
}

int text_fit(char *dst, size_t n, const char *src, int width, bool utf8)
{
    if (n == 0) return 0;
    if (width <= 0) {
        dst[0] = '\0';
        return 0;
    }
    int w = text_width(src);
    if (w <= width) {
        snprintf(dst, n, "%s", src);
        return w;
    }
    const char *ell = utf8 ? "\u2026" : "~";
    size_t keep = text_prefix_bytes(src, width - 1);
    size_t ell_len = strlen(ell);
    if (keep + ell_len + 1 > n) keep = n > ell_len + 1 ? n - ell_len - 1 : 0;
    while (keep > 0 && text_is_cont((unsigned char)src[keep]))
        keep--;
    memcpy(dst, src, keep);
    memcpy(dst + keep, ell, ell_len + 1);
    return text_width(dst);
}

/* Both: count every line; write the first max_lines of them (lines may be NULL when
 * max_lines is 0). */
static int wrap(const char *src, int width, char lines[][256], int max_lines, bool utf8)
{
    if (width < 1) width = 1;
    int count = 0;
    const char *p = src;
    while (*p == ' ')
        p++;
    while (*p) {
        /* Take as many whole words as fit in `width` columns. */
        const char *end = p, *best = NULL;
        int w = 0;
        while (*end) {
            const char *word = end;
            int ww = 0;
            while (*end && *end != ' ')
                end++;
            ww = text_ncols(word, (size_t)(end - word));
            /* the spaces before it as they are: a run of two is two columns on the line */
            int need = w + (best ? (int)(word - best) : 0) + ww;
            if (need > width) {
                end = word;
                break;
            }
            w = need;
            best = end;
            while (*end == ' ')
                end++;
            if (!*end) break;
        }
        size_t len;
        const char *next;
        if (!best) { /* one word wider than the line: cut it */
            len = text_prefix_bytes(p, width);
            next = p + len;
        } else {
            len = (size_t)(best - p);
            next = best;
        }
        if (count < max_lines) {
            if (count == max_lines - 1 && *next && next[strspn(next, " ")]) {
                /* The last line we may write: end it with an ellipsis over the rest. */
                text_fit(lines[count], 256, p, width, utf8);
            } else {
                if (len > 255) len = 255;
                memcpy(lines[count], p, len);
                lines[count][len] = '\0';
            }
        }
        count++;
        p = next;
        while (*p == ' ')
            p++;
    }
    return count;
}

int text_wrap(const char *src, int width, char lines[][256], int max_lines, bool utf8)
{
    if (max_lines <= 0) return 0;
    int n = wrap(src, width, lines, max_lines, utf8);
    return n < max_lines ? n : max_lines;
}

int text_wrap_count(const char *src, int width)
{
    return wrap(src, width, NULL, 0, true);
}

void text_value(char *buf, size_t n, float v)
{
    if (isfinite(v) && v == nearbyintf(v) && fabsf(v) < 1e7f) {
        /* whole numbers by hand: the screens format every cell of every step, and
         * snprintf's "%.0f" was most of a scene's drawing time */
        long k = (long)v; /* exact: |v| < 1e7; -0 becomes 0 */
        char t[16];
        size_t o = sizeof t;
        bool neg = k < 0;
        unsigned long u = neg ? (unsigned long)-k : (unsigned long)k;
        do {
            t[--o] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (neg) t[--o] = '-';
        snprintf(buf, n, "%.*s", (int)(sizeof t - o), t + o);
    } else {
        snprintf(buf, n, "%.3g", (double)v);
    }
}

void text_time_us(char *buf, size_t n, double us)
{
    if (us < 1000.0)
        snprintf(buf, n, "%.3g us", us);
    else if (us < 1e6)
        snprintf(buf, n, "%.3g ms", us / 1e3);
    else
        snprintf(buf, n, "%.3g s", us / 1e6);
}

void text_gbps(char *buf, size_t n, double gbps)
{
    if (gbps >= 100.0)
        snprintf(buf, n, "%.0f", gbps);
    else
        snprintf(buf, n, "%.3g", gbps);
}

void text_xml_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
        }
    }
}

void text_drop_counter(char *s)
{
    size_t n = strlen(s), i = n;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i == n || i == 0 || s[i - 1] != '/') return;
    size_t j = --i;
    while (i > 0 && isdigit((unsigned char)s[i - 1]))
        i--;
    if (i == j || i == 0 || s[i - 1] != ' ') return;
    s[i - 1] = '\0';
}
