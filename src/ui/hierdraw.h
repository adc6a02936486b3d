/* hierdraw.h - drawing the hierarchy's styled lines (ui/hiertext.h) into a rectangle, each
 * piece in its style (the theme's colours for lecture, measured and model figures): the
 * hierarchy screen's pages and the collectives screen's what-if table share it, so neither
 * screen includes the other's header. */
#ifndef COLLVIZ_UI_HIERDRAW_H
#define COLLVIZ_UI_HIERDRAW_H

#include "ui/hiertext.h"
#include "ui/kit/rect.h"

struct app;

/* Draw lines into r (clipped at its right edge, a cut line ending in an ellipsis); returns
 * the rows used. */
int hier_lines_draw(const struct app *a, const struct hier_lines *p, struct rect r);

#endif
