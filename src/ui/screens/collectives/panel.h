/* panel.h - the collectives screen's measured panel (panel.c). */
#ifndef COLLVIZ_UI_SCREENS_COLLECTIVES_PANEL_H
#define COLLVIZ_UI_SCREENS_COLLECTIVES_PANEL_H

#include "ui/kit/rect.h"

struct app;

/* The panel in r: framed when the layout gives it room, one or two plain lines when it is
 * compact (a->lay.panel_compact). */
void coll_panel(const struct app *a, struct rect r);

#endif
