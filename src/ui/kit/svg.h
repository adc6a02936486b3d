/* svg.h - pictures of the screen, drawn from curses' own cells: a self-contained SVG (one
 * background rectangle per run of cells with the same background, one monospace <text> per
 * run of cells with the same style, the theme's colours resolved to RGB, XML-escaped) and a
 * plain-text copy. Used by the `e` key (any screen), the lesson HTML export and screenshots.
 *
 * Off-screen rendering: svg_offscreen_open starts a private curses screen of a fixed size
 * that writes to /dev/null, so a scene can be drawn and exported with no terminal at all; while
 * it is current, term_refresh sends nothing (term_set_unseen): drawing fills stdscr, which
 * is what is read back. */
#ifndef COLLVIZ_UI_KIT_SVG_H
#define COLLVIZ_UI_KIT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <curses.h>

/* The SVG's cell size in pixels and font size; the text of each run is stretched to exactly
 * its cells (textLength), so columns line up whatever monospace font the viewer has. */
#define SVG_CELL_W 10
#define SVG_CELL_H 20
#define SVG_FONT_PX 16

/* RGB of the default foreground and background (the dark theme of the screenshots). */
#define SVG_DEFAULT_FG 0xdcdfe4u
#define SVG_DEFAULT_BG 0x181a21u

/* The RGB a terminal colour number shows (0..15 the screenshots' palette, 16..255 the xterm
 * cube and grey ramp); -1 (the terminal's default) gives `deflt`. */
unsigned svg_rgb(int color, unsigned deflt);

/* Append s to the stream XML-escaped (& < > " '); control characters become spaces. */
void svg_xml_escape(FILE *f, const char *s);

/* Write window w (every cell) as an SVG document. `title` (may be NULL) becomes its <title>.
 * `standalone`: a file of its own, with an XML declaration and the SVG namespace; otherwise
 * an element to inline into HTML5, which needs neither. */
void svg_write(WINDOW *w, FILE *f, const char *title, bool standalone);
/* Write w's cells as text, one line per row, trailing spaces removed. */
void svg_write_text(WINDOW *w, FILE *f);

/* Write collviz-<screen>-<YYYYmmdd-HHMMSS>.svg and .txt for w into $COLLVIZ_EXPORT_DIR (or
 * the current directory); an existing name gets -2, -3 ... Never overwrites a file. CV_OK
 * with the .svg's path in name (the .txt beside it), or an error with a message. */
int svg_export_files(WINDOW *w, const char *screen, char *name, size_t n, char *err,
                     size_t errlen);

/* A private curses screen cols x rows writing to /dev/null (xterm-256color, colours on),
 * made current; close switches back to the screen that was current before. */
struct svg_offscreen {
    SCREEN *scr, *prev;
    SCREEN *unseen_prev; /* term_set_unseen's before this one */
    FILE *out, *in;
};
int svg_offscreen_open(struct svg_offscreen *o, int cols, int rows, char *err, size_t errlen);
void svg_offscreen_close(struct svg_offscreen *o);

#endif
