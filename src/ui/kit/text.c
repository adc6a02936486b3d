/* text.c - UTF-8 width, fitting, wrapping and number formats for the screens (see text.h).
 * Every glyph the UI uses (box drawing, arrows, middle dot, check marks, blocks) is a single
 * column wide, so counting code points is exact for our own text; labels that come from a
 * backend are plain ASCII. */
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool text_is_cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

int text_width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        if (!text_is_cont((unsigned char)*s)) w++;
    return w;
}

size_t text_prefix_bytes(const char *s, int cols)
{
    size_t i = 0;
    int w = 0;
    while (s[i]) {
        if (!text_is_cont((unsigned char)s[i])) {
            if (w == cols) break;
            w++;
        }
        i++;
    }
    return i;
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

int text_wrap(const char *src, int width, char lines[][256], int max_lines, bool utf8)
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
            while (*end && *end != ' ') {
                if (!text_is_cont((unsigned char)*end)) ww++;
                end++;
            }
            int need = w + (w ? 1 : 0) + ww;
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
