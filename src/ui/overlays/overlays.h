/* overlays.h - drawn over or instead of a screen (overlays.c). */
#ifndef COLLVIZ_UI_OVERLAYS_OVERLAYS_H
#define COLLVIZ_UI_OVERLAYS_OVERLAYS_H

#include "ui/kit/rect.h"

struct app;

/* The help: the current screen's keys and its legend, centred in r (the terminal). */
void overlay_help(struct app *a, struct rect r); /* sets a->help_page's bounds */
/* The backends and hardware overlay (b), centred in r. */
void overlay_hw(const struct app *a, struct rect r);
/* In place of a screen whose layout does not fit r: what it needs. */
void overlay_too_small(const struct app *a, struct rect r, int need_rows, int need_cols);

#endif
