/* rect.h - a rectangle of terminal cells, the unit every screen draws into. Pure data and
 * arithmetic (no curses), so the layouts that produce rectangles are unit-tested alone. */
#ifndef COLLVIZ_UI_KIT_RECT_H
#define COLLVIZ_UI_KIT_RECT_H

#include <stdbool.h>

/* The smallest rectangle a scene's screen lays itself out in (a standalone terminal or a
 * lesson's scene pane); below it the screen shows only a notice. */
#define LAYOUT_MIN_COLS 80
#define LAYOUT_MIN_ROWS 24

struct rect {
    int y, x, h, w;
};

/* Whether two rectangles share a cell (for tests and assertions). */
bool rect_overlap(struct rect a, struct rect b);

/* r moved by (dy, dx): layouts compute at the origin, screens draw at their rect. */
struct rect rect_shift(struct rect r, int dy, int dx);

#endif
