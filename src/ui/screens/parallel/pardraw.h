/* pardraw.h - drawing the parallelism screen (pardraw.c). */
#ifndef COLLVIZ_UI_SCREENS_PARALLEL_PARDRAW_H
#define COLLVIZ_UI_SCREENS_PARALLEL_PARDRAW_H

#include "ui/kit/draw.h"

struct app;

/* The screen in r: title, status, rank boxes, transfers, the pipeline's charts, the
 * sentence, the lecture-scale panel and (standalone) the key bar. */
void par_draw(struct app *a, struct rect r);
/* Where everything of the parallelism screen goes in r (PAR(a)->lay, shifted to r): what
 * par_draw draws into; false when r is too small. Pure: the layout test calls it. */
bool par_layout(struct app *a, struct rect r);
/* The fewest rows (at most rows) at which the scene at width cols shows all that it shows in
 * rows x cols, nothing less at any height between (screen_ops.rows_needed). */
int par_rows_needed(struct app *a, int cols, int rows);
/* The help overlay's legend lines for this screen. */
void par_help(const struct app *a, struct styled_lines *p, int width);

#endif
