/* predict.h - predict first: while an exercise of the slide is open, the scene drawn beside
 * it does not give its answer away; nor does any earlier slide of its lesson (the
 * exercises of later slides not answered yet: predict_add_later), whatever scene that slide
 * shows and whatever keys changed it. A holds exercise's box shows "?" from the asked step on
 * (and so does any other box that holds the same values, from the step it does, in their
 * slots of a longer box too, or anywhere in it for two values or more; every box holding one
 * of them in its slot from the step at which they stand spread over the boxes, one a rank, as
 * an all-reduce's finished chunks do mid-way; and, on the exercise's own scene, every box
 * showing one of them in its slot from the asked step on: no part of the answer stays beside
 * the hidden box); a panel figure equal to an open number exercise's answer (in any unit of
 * its kind, or rounded as panels round) shows "?", and so do a scene's counters where the
 * exercise counts that: the header's step ("step ?/?": the last step's number is the count,
 * and the phase's "3/3" is dropped), a transfer list's "+? more", the plan's "(6 steps)"; an
 * open choice's scene stops before the step that says one of its `shows:` phrases
 * (predict_hold_words, app_hold). Used
 * by the lesson player (open until the student answers) and the presenter (open until r reveals
 * the answers to the room). */
#ifndef COLLVIZ_UI_SCREENS_LESSON_PREDICT_H
#define COLLVIZ_UI_SCREENS_LESSON_PREDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

#define PREDICT_MAX_EX LESSON_MAX_EXERCISES
#define PREDICT_MAX_LATER 512 /* a whole deck's exercises (the presenter's later lessons) */

struct app;
struct predict {
    const struct lesson_slide *s;
    const struct scene *sc;        /* the scene shown: its own settings are never hidden */
    bool open[PREDICT_MAX_EX];     /* exercise k not answered yet */
    double answer[PREDICT_MAX_EX]; /* exercise k's answer (number exercises) */
    /* the exercises of the lesson's later slides not answered yet: a number's answer at
     * the numbers it asks with by default; a holds exercise's values, in any rank's box of
     * any scene (a rank's input excepted: the slide gives it), hidden while the box holds
     * them (as the slide's own exercise's values in a scene a key changed): a box whose
     * values moved on shows them, never a "?" beside boxes and text showing what it holds */
    const struct lesson_exercise *later[PREDICT_MAX_LATER];
    size_t nlater;
};

/* Add to p the exercises of L's slides after `slide` for which done(ctx, id) is false
 * (done NULL: none is done). */
void predict_add_later(struct predict *p, const struct lesson *L, size_t slide,
                       bool (*done)(const void *ctx, const char *id), const void *ctx);
/* Add to p every exercise of L (a later lesson of the presenter's deck) that is recognisable
 * on another lesson's screen and not done: a holds exercise's values, a number exercise's
 * answer with a unit (not a small whole one) or a count of four digits or more. */
void predict_add_lesson(struct predict *p, const struct lesson *L,
                        bool (*done)(const void *ctx, const char *id), const void *ctx);

/* Is the figure (v, half: its rounding, unit: the word after it) number exercise e's
 * answer at the lecture's numbers, as a screen shows it? A count without a unit only as a
 * count of what the prompt counts ("14 steps"); a small whole answer with a unit, and a
 * ratio of any size, only with that unit ("8x", "32x"). The rule for later slides' answers, and
 * recall.h's. */
bool predict_figure_is(const struct lesson_exercise *e, double v, double half,
                       const char *unit);

/* Is the figure (v, half, unit) one of scene sc's own settings: its ranks or count (no
 * unit, or "ranks"), its measurement size (a figure in bytes) where the screen says it
 * (collectives, hierarchy; not the parallelism screen, where that size is a rank's bytes)? A
 * setting is given, never an answer: the header and the panel show it, and a narration may say
 * it. */
bool predict_is_setting(const struct scene *sc, double v, double half, const char *unit);
/* Is e's answer a ratio (units x or %), recognisable on another slide only with its unit? */
bool predict_is_ratio(const struct lesson_exercise *e);

/* A choice's hold (app_hold): the `shows:` phrases of slide s's open choice exercises
 * (open[k]: exercise k not answered yet), into words[max]; how many. The player and the
 * presenter hold the slide's scene before the first step that says one. */
size_t predict_hold_words(const struct lesson_slide *s, const bool *open, const char **words,
                          size_t max);

/* Before the scene is drawn: what the open exercises ask is hidden (app.hide_from and the
 * figure mask); p must outlive the drawing. */
void predict_begin(struct app *a, struct predict *p);
/* After: the figures hidden (for an "answer first" line); nothing hidden elsewhere. */
int predict_end(struct app *a);

#endif
