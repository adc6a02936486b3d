/* bigdigits.h - numbers in large block glyphs for the back row of a lecture hall: every
 * digit, '-' and ' ' is 3 columns by 5 rows of "█" ('#' in ASCII mode), '.' is 1 column,
 * glyphs are one column apart. Whether a text fits is a pure function (no curses), so a
 * screen can decide before drawing and fall back to plain text. */
#ifndef COLLVIZ_UI_KIT_BIGDIGITS_H
#define COLLVIZ_UI_KIT_BIGDIGITS_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#define BIG_H 5   /* rows of every glyph */
#define BIG_GAP 1 /* columns between glyphs */

/* Columns s takes in block glyphs, or -1 when a character of s has no glyph (only
 * "0123456789-. " have one). The empty string takes 0. */
int big_width(const char *s);

/* True when s can be drawn in block glyphs within w columns and h rows. */
bool big_fits(const char *s, int w, int h);

/* Columns that n texts take side by side, `sep` columns apart; -1 when one has no glyphs. */
int big_width_all(const char *const *s, int n, int sep);

/* Row r (0..BIG_H-1) of s as text, ink as "█" (or '#' when !utf8) and blanks as spaces,
 * exactly big_width(s) columns. Returns false (out = "") when s has no glyphs or r is out of
 * range or out is too small. */
bool big_row(const char *s, int r, bool utf8, char *out, size_t n);

/* Draw s with its top-left corner at (y, x) of w in attr; only ink cells are written, so
 * the background shows through. Returns the columns used or -1 (nothing drawn). */
int big_draw(WINDOW *w, int y, int x, const char *s, attr_t attr, bool utf8);
/* The same with `ink` (one character, UTF-8) for the ink cells: a shaded ink ("▓") marks a
 * value while keeping its digits' shape. */
int big_draw_ink(WINDOW *w, int y, int x, const char *s, attr_t attr, const char *ink);

/* The same glyphs sx times as wide and sy times as tall (each ink cell an sx x sy block, the
 * gaps scaled too): the presenter's zoom. A terminal cell is about twice as tall as wide, so
 * sx = 2, sy = 1 gives square strokes. big_width_scaled is big_width(s) * sx, or -1 when s
 * has no glyphs or sx < 1; big_draw_scaled returns it (-1: nothing drawn, also for sy < 1). */
int big_width_scaled(const char *s, int sx);
int big_draw_scaled(WINDOW *w, int y, int x, const char *s, attr_t attr, const char *ink,
                    int sx, int sy);

#endif
