/* walk.h - the deck walker: every frame of every slide of a set of lessons drawn off-screen
 * (svg.h's private curses screen) by the lesson player and by the presenter, at a given
 * terminal size, and checked for two things a student or a room must never see:
 *
 *   - an exercise's answer before it is answered: on any screen of the exercise's own slide
 *     (unanswered) or of an earlier slide of its lesson. The answer forms are collected
 *     from the exercises themselves: a number exercise's answer as any figure of the same
 *     kind of unit the screen may print it in, at the rounding the screen printed
 *     (lesson/exercise.h's units); a holds exercise's values as a run of the numbers a box
 *     row shows, or spread over the boxes (each value in its slot of some box not hidden,
 *     not that rank's input); a choice exercise's right option as its text; a count
 *     (no unit) as a counter shows it: "step i/N" where the prompt counts steps, a transfer
 *     list's "+N more" (the step's transfers) where it counts messages, and every form the
 *     slice view could give a step count in (its ticks, "tick i/N" and "tick i of N" where N
 *     is the count or the ticks of a plan of that many steps, a row of tick numbers ending
 *     at it or with it alone masked, "14 ticks", "7 chunk steps", a link row of that many
 *     cells) or a message count (its links, "56 of 56 links"). What a slide gives
 *     is no answer: its scene's settings (ranks, count, measurement size), a piece of the
 *     question of one of its exercises (its prompt, at the numbers asked), and, for an
 *     answer asked later, a ratio's number without its unit ("32 rows" is not 32x); nor
 *     are a glyph strip's digits, each a micro-batch of its own ("3" then "2" is no 32). A
 *     holds answer's run may wrap from one row of text onto the next. A choice's `shows:`
 *     phrases (what its scene says once it tells the right option) count on every frame of
 *     its own slide, case ignored, run on from one row into the next pane by pane. Part of a
 *     holds answer counts too: a box left shown with one of its values in its slot, where the
 *     rest stand in hidden boxes (the values spread over the boxes, or the exercise's own
 *     scene at or after the asked step). So does a number answer the scene draws: the
 *     pipeline schedule's idle cells over all cells (the bubble fraction, countable).
 *   - (player) a number exercise asked at the lecture's numbers whose answer a frame of an
 *     earlier lesson showed (recall.h: it must start on a variant's numbers);
 *   - a cut line: a row whose text ends in "…" (the screens' text_fit), counted also
 *     apart where a blank row lies below it on the screen (room it could have wrapped
 *     into); and a text the frame's drawing cut at its width with words left over and no
 *     mark (kit/draw.h's draw_cut_count: a legend's "[ ] ou").
 *
 *   - a frame of a slide without its lesson's title, whole or short, on any row;
 *   - (player) a key hint that names a key doing nothing there: every item of the key bar and
 *     every "H: hint" and "Tab: exercise K of N" of the text, on every slide, with each of its
 *     exercises current and each number of hints shown, is pressed (its state put back
 *     after): a refusal ("this exercise has no hints") or another exercise than said counts.
 *
 * The frames: each step of the slide's scene, the scene alone (z) where the player shows
 * the text alone, and each page of the narration; in the player, every scene the keys the
 * narration asks for reach, in any order and number (`a` through every algorithm, with `+`),
 * and, where a holds exercise of the slide or a later one is open, the end of every scene one
 * stray key away (another collective, algorithm, count, op, root, input, ranks); where a step
 * or message count is asked on the slide or later, each view `V` reaches (slices, channels)
 * at the slide's ranks and up to four more (`+`), at its start, first tick and end, on the
 * student's numbers and the lecture's (`L`), their cut lines counted as every frame's;
 * the presenter's pages and steps, before and after each press of `r` (each exercise's
 * answer revealed to the room: a revealed answer is no early answer, and is never cut). No
 * backend runs and nothing is measured: the panel shows what it shows before any
 * measurement (the parallelism panel's napkin lines and what a rank holds, model figures
 * that need no run); from a parallelism scene's second frame on, the panel as it is once the
 * worker's training run of the scene's lecture configuration has finished (run here, one
 * step, once a configuration, and posted as the worker's result). Used by
 * tests/unit/test_deck_walk.c (make test) to keep both at zero. With WALK_DUMP=FILE in the
 * environment every frame read back is appended to FILE under a line naming it (view, size,
 * lesson, slide, its number in the deck, the frame). */
#ifndef COLLVIZ_UI_WALK_H
#define COLLVIZ_UI_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum walk_view { WALK_PLAYER, WALK_PRESENTER };
enum walk_kind {
    WALK_EARLY_NUMBER,
    WALK_EARLY_HOLDS,
    WALK_EARLY_CHOICE,
    WALK_CUT,
    WALK_RECALL,   /* the player asks at the lecture's numbers what an earlier lesson showed */
    WALK_CUT_FREE, /* a cut line with a blank row below it on the screen (room to wrap) */
    WALK_EARLY_DECK, /* (presenter) a later lesson's answer on a frame of the deck before it
                        (holds values, a number with a unit, a count of four digits up) */
    WALK_DEAD_KEY,   /* (player) a key hint, in the bar or the text, naming a key that does not
                        do what it says there (H where no hint is left, Tab "next" after the
                        last exercise) */
    WALK_PART_MASK,  /* a box drawn as "?" whose values the frame shows anyway: in a box not
                        hidden, or as a run in its text (a mask that hides nothing, and
                        puzzles) */
    WALK_NO_TITLE,   /* a frame of a slide that shows neither its lesson's title nor its short
                        title (lesson_short_title) on any row */
    WALK_NKINDS
};

struct walk_counts {
    long frames;
    long n[WALK_NKINDS];      /* findings of each kind (one per frame, exercise and kind) */
    long places[WALK_NKINDS]; /* distinct (slide, exercise or row text) of each kind */
};

/* Walk every lesson of path (a file or a folder of NN-*.md) in view at cols x rows. Each
 * finding is printed to log (NULL: not printed) as one line, at most max_log of them.
 * CV_OK, or an error (err) when the lessons cannot be read or the screen not opened. */
int walk_deck(const char *path, enum walk_view view, int cols, int rows, struct walk_counts *c,
              FILE *log, int max_log, char *err, size_t errlen);

const char *walk_kind_name(enum walk_kind k);

/* The figures the walk reads in one row of text (its box values and the digits of its glyph
 * strips blanked, each figure as the screens' masking sees it): up to max values into v, their
 * number returned. */
int walk_line_figures(const char *line, double *v, int max);

struct app;

/* A new app as the walks draw it (app_init's, in UTF-8 with the colour theme, measuring
 * nothing by itself, its backend's text set), for a caller that draws it off-screen (svg.h);
 * the caller ends it with app_free and free. */
struct app *walk_app(void);

#endif
