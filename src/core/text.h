/* text.h - small text helpers for the screens, with no curses in them so they can be unit
 * tested: display width of UTF-8 text (every glyph collviz draws is one column wide), fitting
 * text into a width, word wrapping, and the compact number format used inside rank boxes. */
#ifndef COLLVIZ_CORE_TEXT_H
#define COLLVIZ_CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Columns the UTF-8 string takes in a terminal (wcwidth: 2 for wide characters, 0 for
 * combining marks and other zero-width code points, 1 for the rest; an invalid byte is one
 * column). */
int text_width(const char *s);
/* The same for the first len bytes of s. */
int text_ncols(const char *s, size_t len);
/* Byte length of the first `cols` columns of s[0..len) (a wide character that would cross
 * the limit is left out; zero-width ones stay with the character before them). */
size_t text_nprefix(const char *s, size_t len, int cols);

/* Copy at most `width` columns of src into dst (size n). When src is longer, the last
 * column becomes an ellipsis ("…" in UTF-8 mode, "~" otherwise). Returns the columns used. */
int text_fit(char *dst, size_t n, const char *src, int width, bool utf8);

/* Byte offset of the first `cols` columns of s (stops at the end of s). */
size_t text_prefix_bytes(const char *s, int cols);

/* Word-wrap src to `width` columns. Writes at most max_lines lines, each NUL-terminated, into
 * lines[i]; a last line that cannot hold the rest ends in an ellipsis. Returns the lines
 * written (0..max_lines), so a caller may draw lines[0 .. return-1] and no further. */
int text_wrap(const char *src, int width, char lines[][256], int max_lines, bool utf8);
/* The lines the whole of src needs at `width` columns (what text_wrap would write with no
 * limit). */
int text_wrap_count(const char *src, int width);

/* s with a trailing counter " k/N" dropped, in place: "broadcast 3/3" is "broadcast" (where
 * the counts are an answer not given yet). */
void text_drop_counter(char *s);

/* A value as a student reads it: integers without decimals ("14", "-3"), others "%.3g". */
void text_value(char *buf, size_t n, float v);

/* Time in microseconds as "812 us", "12.3 ms", "1.23 s". */
void text_time_us(char *buf, size_t n, double us);

/* A bandwidth in GB/s (1e9 B/s) with three significant digits: "8.18", "0.0412", "412". */
void text_gbps(char *buf, size_t n, double gbps);

/* Write s to f for XML or HTML text and attributes: & < > " ' as entities, control
 * characters as spaces. */
void text_xml_escape(FILE *f, const char *s);

#endif
