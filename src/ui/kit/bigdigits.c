/* bigdigits.c - the block-glyph font and its measurements (see bigdigits.h). */
#include "ui/kit/bigdigits.h"

#include <string.h>

struct big_glyph {
    char c;
    int w;
    const char *rows[BIG_H]; /* '#' = ink */
};

static const struct big_glyph big_font[] = {
    {'0', 3, {"###", "# #", "# #", "# #", "###"}},
    {'1', 3, {"## ", " # ", " # ", " # ", "###"}},
    {'2', 3, {"###", "  #", "###", "#  ", "###"}},
    {'3', 3, {"###", "  #", "###", "  #", "###"}},
    {'4', 3, {"# #", "# #", "###", "  #", "  #"}},
    {'5', 3, {"###", "#  ", "###", "  #", "###"}},
    {'6', 3, {"###", "#  ", "###", "# #", "###"}},
    {'7', 3, {"###", "  #", "  #", "  #", "  #"}},
    {'8', 3, {"###", "# #", "###", "# #", "###"}},
    {'9', 3, {"###", "# #", "###", "  #", "###"}},
    {'-', 3, {"   ", "   ", "###", "   ", "   "}},
    {' ', 3, {"   ", "   ", "   ", "   ", "   "}},
    {'.', 1, {" ", " ", " ", " ", "#"}},
};

static const struct big_glyph *big_glyph(char c)
{
    for (size_t i = 0; i < sizeof big_font / sizeof big_font[0]; i++)
        if (big_font[i].c == c) return &big_font[i];
    return NULL;
}

int big_width(const char *s)
{
    int w = 0;
    for (const char *p = s; *p; p++) {
        const struct big_glyph *g = big_glyph(*p);
        if (!g) return -1;
        w += g->w + (p == s ? 0 : BIG_GAP);
    }
    return w;
}

bool big_fits(const char *s, int w, int h)
{
    int bw = big_width(s);
    return bw >= 0 && bw <= w && h >= BIG_H;
}

int big_width_all(const char *const *s, int n, int sep)
{
    int w = 0;
    for (int i = 0; i < n; i++) {
        int k = big_width(s[i]);
        if (k < 0) return -1;
        w += k + (i ? sep : 0);
    }
    return w;
}

bool big_row(const char *s, int r, bool utf8, char *out, size_t n)
{
    int bw = big_width(s);
    size_t cell = utf8 ? 3 : 1; /* bytes of an ink cell */
    if (n) out[0] = '\0';
    if (bw < 0 || r < 0 || r >= BIG_H || (size_t)bw * cell + 1 > n) return false;
    size_t o = 0;
    for (const char *p = s; *p; p++) {
        const struct big_glyph *g = big_glyph(*p);
        if (p != s)
            for (int k = 0; k < BIG_GAP; k++)
                out[o++] = ' ';
        for (int k = 0; k < g->w; k++) {
            if (g->rows[r][k] != '#') {
                out[o++] = ' ';
            } else if (utf8) {
                memcpy(out + o, "\u2588", 3);
                o += 3;
            } else {
                out[o++] = '#';
            }
        }
    }
    out[o] = '\0';
    return true;
}

int big_draw(WINDOW *w, int y, int x, const char *s, attr_t attr, bool utf8)
{
    return big_draw_ink(w, y, x, s, attr, utf8 ? "\u2588" : "#");
}

int big_draw_ink(WINDOW *w, int y, int x, const char *s, attr_t attr, const char *ink)
{
    return big_draw_scaled(w, y, x, s, attr, ink, 1, 1);
}

int big_width_scaled(const char *s, int sx)
{
    int bw = big_width(s);
    return bw < 0 || sx < 1 ? -1 : bw * sx;
}

int big_draw_scaled(WINDOW *w, int y, int x, const char *s, attr_t attr, const char *ink,
                    int sx, int sy)
{
    int bw = big_width_scaled(s, sx);
    if (bw < 0 || sy < 1) return -1;
    int cx = x;
    for (const char *p = s; *p; p++) {
        const struct big_glyph *g = big_glyph(*p);
        if (p != s) cx += BIG_GAP * sx;
        for (int r = 0; r < BIG_H * sy; r++)
            for (int k = 0; k < g->w * sx; k++)
                if (g->rows[r / sy][k / sx] == '#') {
                    wattrset(w, attr);
                    mvwaddstr(w, y + r, cx + k, ink);
                }
        cx += g->w * sx;
    }
    wattrset(w, A_NORMAL);
    return bw;
}
