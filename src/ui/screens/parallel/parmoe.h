/* parmoe.h - the parallelism screen's mixture-of-experts view (parmoe.c), drawn from the
 * display-scale run of scene/par_moe.h: tokens per expert per rank, the all-to-all-v's
 * blocks, the drops and the dispatch/combine bytes, times and busbw measured, per layer. */
#ifndef COLLVIZ_UI_SCREENS_PARALLEL_PARMOE_H
#define COLLVIZ_UI_SCREENS_PARALLEL_PARMOE_H

#include <stdbool.h>
#include <stddef.h>

#include "scene/par_moe.h"
#include "ui/kit/draw.h"

struct app;
/* The view of layer `layer` in area: title, status, tables, the key bar. */
void par_moe_draw(struct app *a, struct rect area, const struct par_moe *m, int layer);

#endif
