/* present_slide.h - a slide as the presenter lays it out, without a terminal: its narration
 * with the quiz (present/quiz.h) and the presenter's keys in place of the player's, wrapped at
 * the narration column's width (ui/present/narr.h), its title wrapped, and the pages of
 * present_layout.h. Pure (no curses screen): the presenter draws it, and the deck's tests
 * count its pages and stops (tests/unit/test_clicker.c). */
#ifndef COLLVIZ_UI_PRESENT_PRESENT_SLIDE_H
#define COLLVIZ_UI_PRESENT_PRESENT_SLIDE_H

#include <stdbool.h>

#include "lesson/lesson.h"
#include "present/quiz.h"
#include "ui/present/narr.h"
#include "ui/present/present_layout.h"

#define PRES_TITLE_MAX 6 /* rows of a wrapped title */

struct present_slide {
    struct quiz quiz;
    struct narr narr;
    bool *blank;  /* narr.n entries: an empty line (a page may break there) */
    bool *starts; /* narr.n entries: a block standing alone starts (narr_line.starts) */
    int ask;      /* the first line of the quiz's questions in narr (0: none) */
    int *ex_ask;  /* quiz.nex + 1 entries: the first line of each exercise's question, then
                     narr.n */
    int *ex_ans;  /* quiz.nex entries: the first line of each exercise's revealed answer (its
                     question's end where it is not revealed) */
    bool answer_only; /* beside the scene: the answer r revealed last alone (the question
                         after it does not fit there with it): present_slide_pages */
    size_t asking;    /* the exercise whose question the room is asked now (the presenter's
                         first unrevealed, the last when all are): present_slide_pages */
    char title[PRES_TITLE_MAX][256];
    int ntitle;
    int narr_w; /* the width it was wrapped at */
    bool utf8;
    bool tight; /* narr has no empty line between blocks (present_slide_pages) */
};

/* The narration and title of slide s for a terminal cols wide (with the answers of its
 * first nrevealed exercises). Free with present_slide_free. */
void present_slide_text(const struct lesson_slide *s, size_t nrevealed, int cols, bool utf8,
                        struct present_slide *out);
void present_slide_free(struct present_slide *ps);
/* Its narration laid out without the empty lines between blocks (a page that must fit). */
void present_slide_tighten(struct present_slide *ps);
/* The sentences of slide s's narration that ask for a key, which the room's screen leaves
 * out: for the speaker (the notes terminal), with the presenter's keys. "" when none. */
void present_slide_keys(const struct lesson_slide *s, bool utf8, char *buf, size_t n);
/* Its pages in a rows x cols terminal (cols as given to present_slide_text); scene_rows:
 * the rows the slide's scene needs (present_layout_compute; 0: no scene), scene_short the
 * rows it needs with its measured panel at one line (app_rows_needed_short): used where
 * scene_rows leaves no room beside the scene for the question (true: laid out so, the scene
 * to be drawn with app.panel_short). The question asked
 * beside the scene is exercise ps->asking's alone (one at a time, as `r` reveals them), its
 * prompt and options. Where the narration
 * without its empty lines between blocks takes fewer pages (a small terminal), or shows more
 * of itself beside the scene on the page the slide opens on, ps->narr is laid out so
 * (ps->tight), else with them: that costs the room only air, never a word. */
bool present_slide_pages(struct present_slide *ps, int rows, int cols, int scene_rows,
                         int scene_short, struct present_layout *out);

/* The narration's words that page pg (of present_slide_pages' layout) does not show, for the
 * speaker: a block's lines joined by a space, blocks apart by an empty line; "" when the page
 * shows it all. */
/* The question of exercise ps->asking in ps->narr (its lines, trailing empty ones left out;
 * narr_end 0 when the slide has none), after the answer of the exercise before it where that
 * is revealed: what r revealed last stays beside the scene, wrapped as the narration is. */
struct present_layout_ask present_slide_ask(const struct present_slide *ps);

void present_slide_unshown(const struct present_slide *ps, const struct present_layout_page *pg,
                           char *buf, size_t n);

#endif
