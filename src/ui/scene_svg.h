/* scene_svg.h - a scene drawn by collviz's own screen on an off-screen curses screen of a
 * fixed size and written as SVG (or text): the pictures of the lesson HTML export, and
 * `collviz svg --scene TEXT` for teachers who build their own slides. No backend runs: the
 * measured panel says so. */
#ifndef COLLVIZ_UI_SCENE_SVG_H
#define COLLVIZ_UI_SCENE_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "scene/scene.h"

#define SCENE_SVG_COLS 120
#define SCENE_SVG_ROWS 40

/* Draw *sc (its step as given; SCENE_STEP_END is the last) at cols x rows and write it to f
 * as SVG (inline: no XML declaration, for HTML) or as text. CV_OK or an error. */
int scene_svg_write(const struct scene *sc, int cols, int rows, bool text, bool inline_svg,
                    const char *title, FILE *f, char *err, size_t errlen);

/* *sc drawn as text on the curses screen that is current (a second screen cannot be
 * opened and closed beside a live one: ncurses' delscreen frees the other screen's windows
 * too), at its size, then erased: nothing is refreshed, the terminal never shows it. */
int scene_text_here(const struct scene *sc, FILE *f, char *err, size_t errlen);

/* `collviz svg --print`: the paper drawing of *sc (paper.h, dark: the dark theme) to
 * out by its extension (.svg, .png, .pdf) or as SVG on stdout when out is NULL; dump: the
 * text colour pairs the drawing used, "FG BG RATIO" a line, instead. Returns the exit
 * status: 0, or 1 with the error on stderr. (`collviz svg` itself is cli/svg.c.) */
int scene_svg_print(const struct scene *sc, bool dark, bool dump, const char *out);

#endif
