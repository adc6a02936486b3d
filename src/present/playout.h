/* playout.h - the presenter's screen geometry as a pure function (unit-tested): a title row,
 * the narration in a centred column of readable width, the slide's scene below it (the
 * scene's screen needs at least LAYOUT_MIN_COLS x LAYOUT_MIN_ROWS), and a one-row footer.
 * Below the minimum the presenter shows only a centred message. */
#ifndef COLLVIZ_PRESENT_PLAYOUT_H
#define COLLVIZ_PRESENT_PLAYOUT_H

#include <stdbool.h>

#include "../ui/kit/rect.h"

#define PLAYOUT_MIN_COLS LAYOUT_MIN_COLS
#define PLAYOUT_MIN_ROWS (LAYOUT_MIN_ROWS + 6) /* title, a gap, 3 narration rows, footer */
#define PLAYOUT_TEXT_MAX 88                    /* narration column: readable line length */

struct playout {
    bool too_small;
    struct rect title, narr, scene, footer;
};

/* rows x cols terminal; has_scene: the slide shows a scene; narr_lines: lines the narration
 * needs at width playout_narr_width(cols). Without a scene the narration is centred
 * vertically; with one the scene gets every row the narration does not need (at least the
 * screen's minimum) and the narration may be cut. */
void playout_compute(int rows, int cols, bool has_scene, int narr_lines, struct playout *out);

/* The narration column's width for a terminal of cols columns. */
int playout_narr_width(int cols);

#endif
