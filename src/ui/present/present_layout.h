/* present_layout.h - the presenter's screen geometry as a pure function (unit-tested): a
 * slide's title (wrapped, never cut), its narration in a centred column of readable width, the
 * slide's scene below it, and a one-row footer, for any terminal from 80x24 up.
 *
 * Nothing is cut: the scene first shrinks to the rows its screen says it needs for all it
 * shows (app_rows_needed: four ranks' boxes need far fewer than a whole screen), at most its
 * screen's minimum (that screen then drops block digits and uses compact boxes by itself).
 * Where the whole narration fits above it, the slide is one page. Where it does not (a small
 * terminal), the scene's page shows the narration's lead: its first lines that fit, ending
 * where a block ends (never a paragraph's half, nor a question without its options), with the
 * slide's questions under it where they fit whole (the room is asked before the scene
 * answers), and the
 * whole narration is on text pages BEFORE the scene's page, every line on exactly one of them
 * (a page breaks at a blank line between blocks where one is near its end, and never inside
 * the question asked now where it fits a page). The slide opens on the scene's page (`entry`:
 * the clicker walks the scene, not the prose, and the speaker reads the rest from the notes
 * terminal) where that shows the question asked now, else on the text page that does (a
 * slide opens showing its question); one PageUp shows the text pages to the room. Where the
 * title and the scene do not fit together (80x24) the scene's page shows no title: the text
 * pages before it do, and the presenter's footer names the slide. An empty row under the
 * title and one above the scene, none where that saves a page. */
#ifndef COLLVIZ_UI_PRESENT_PRESENT_LAYOUT_H
#define COLLVIZ_UI_PRESENT_PRESENT_LAYOUT_H

#include <stdbool.h>

#include "ui/kit/rect.h"

#define PLAYOUT_MIN_COLS LAYOUT_MIN_COLS
#define PLAYOUT_MIN_ROWS LAYOUT_MIN_ROWS
/* The scene's screen drawn embedded may use its undrawn key bar's row (app.bar_row_free). */
#define PLAYOUT_SCENE_MIN (LAYOUT_MIN_ROWS - 1)
#define PLAYOUT_TEXT_MAX 88 /* narration column: readable line length */

/* The slide's questions in its narration: the quiz's prompts and options end it. */
struct present_layout_ask {
    int narr_end; /* the narration's own lines end here, the questions follow (0: none) */
    int from, to; /* the question the room is asked now: lines [from, to), to 0: the end */
};

struct present_layout_page {
    int from, to;         /* narration lines [from, to); on a scene's page after text pages, the
                             lead [0, to) */
    int ask_from, ask_to; /* and below it the slide's questions [ask_from, ask_to) (empty:
                             none, or in [from, to)) */
    bool with_scene;      /* the scene is on this page (the last page of a scene slide) */
    struct rect title, narr, scene; /* h = 0: not on this page */
};

struct present_layout {
    bool too_small;
    struct rect footer;
    int npages; /* at least 1 */
    int entry;  /* the page the slide opens on going forward: the scene's, else the one with
                   the question asked now, else the first */
    struct present_layout_page *page;
};

/* The slide's layout in a rows x cols terminal: scene_rows the rows its scene needs (0: no
 * scene; at most PLAYOUT_SCENE_MIN are asked: the screen's app_rows_needed of that height),
 * title_lines rows of wrapped title (at
 * present_layout_narr_width), narr_lines of narration, blank[i] true where line i is blank (a
 * good place to break a page; NULL = none), starts[i] true where line i starts a block that
 * stands alone (narr.h's starts: the lead may end before it; NULL = only at blank lines),
 * ask the slide's questions (NULL: none): where the lead leaves out the question asked now
 * and it fits whole, it is shown under the lead, the lead (never a question) shortened to
 * what still fits. out->page is allocated: present_layout_free. */
void present_layout_compute(int rows, int cols, int scene_rows, int title_lines, int narr_lines,
                            const bool *blank, const bool *starts,
                            const struct present_layout_ask *ask, struct present_layout *out);
void present_layout_free(struct present_layout *p);

/* The page the slide opens on shows the question asked now (ask) whole: beside the lead, or
 * in the whole narration. false without questions. */
bool present_layout_asks(const struct present_layout *p, const struct present_layout_ask *ask,
                         int narr_lines);

/* The narration column's width for a terminal of cols columns. */
int present_layout_narr_width(int cols);

#endif
