/* colldraw.h - drawing the collectives screen (colldraw.c). The entry points coll_draw and
 * coll_help are declared in collectives.h, the screen's one public header; this header
 * exists so colldraw.c has its own. */
#ifndef COLLVIZ_UI_SCREENS_COLLECTIVES_COLLDRAW_H
#define COLLVIZ_UI_SCREENS_COLLECTIVES_COLLDRAW_H

#include "ui/screens/collectives/collectives.h"

#endif
