/* present_layout.h - the presenter's screen geometry as a pure function (unit-tested): a
 * slide's title (wrapped, never cut), its narration in a centred column of readable width, the
 * slide's scene below it, and a one-row footer, for any terminal from 80x24 up.
 *
 * Nothing is cut: when the narration and the scene do not fit together, the scene first
 * shrinks to the rows its screen says it needs for all it shows (app_rows_needed: four
 * ranks' boxes need far fewer than a whole screen), at most its screen's minimum (that screen
 * then drops block digits and uses compact boxes by itself), and only then is the narration
 * split into pages. Pages come BEFORE the scene's steps: each page is one clicker step,
 * text-only pages first, and the last page shows the rest of the narration (what fits) with the
 * scene, whose steps follow (an empty row under the title and one above the scene, none where
 * that saves a page). A page breaks at a blank line between blocks where one is near the end
 * of the page. Where the title and the scene do not fit together (80x24) the scene's page
 * shows no title: the text pages before it do. */
#ifndef COLLVIZ_UI_PRESENT_PRESENT_LAYOUT_H
#define COLLVIZ_UI_PRESENT_PRESENT_LAYOUT_H

#include <stdbool.h>

#include "ui/kit/rect.h"

#define PLAYOUT_MIN_COLS LAYOUT_MIN_COLS
#define PLAYOUT_MIN_ROWS LAYOUT_MIN_ROWS
/* The scene's screen drawn embedded may use its undrawn key bar's row (app.bar_row_free). */
#define PLAYOUT_SCENE_MIN (LAYOUT_MIN_ROWS - 1)
#define PLAYOUT_TEXT_MAX 88 /* narration column: readable line length */

struct present_layout_page {
    int from, to;    /* narration lines [from, to) */
    bool with_scene; /* the scene is on this page (the last page of a scene slide) */
    struct rect title, narr, scene; /* h = 0: not on this page */
};

struct present_layout {
    bool too_small;
    struct rect footer;
    int npages; /* at least 1 */
    struct present_layout_page *page;
};

/* The slide's layout in a rows x cols terminal: scene_rows the rows its scene needs (0: no
 * scene; at most PLAYOUT_SCENE_MIN are asked: the screen's app_rows_needed of that height),
 * title_lines rows of wrapped title (at
 * present_layout_narr_width), narr_lines of narration, blank[i] true where line i is blank (a
 * good place to break a page; NULL = none). out->page is allocated: present_layout_free. */
void present_layout_compute(int rows, int cols, int scene_rows, int title_lines, int narr_lines,
                            const bool *blank, struct present_layout *out);
void present_layout_free(struct present_layout *p);

/* The narration column's width for a terminal of cols columns. */
int present_layout_narr_width(int cols);

#endif
