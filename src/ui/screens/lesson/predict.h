/* predict.h - predict first: while an exercise of the slide is open, the scene drawn beside
 * it does not give its answer away. A holds exercise's box shows "?" from the asked step on
 * (and so does any other box that holds the same values, from the step it does); a panel
 * figure equal to an open number exercise's answer (in any unit of its kind, or rounded as
 * panels round) shows "?". Used by the lesson player (open until the student answers) and
 * the presenter (open until r reveals the answers to the room). */
#ifndef COLLVIZ_UI_SCREENS_LESSON_PREDICT_H
#define COLLVIZ_UI_SCREENS_LESSON_PREDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

#define PREDICT_MAX_EX LESSON_MAX_EXERCISES

struct app;
struct predict {
    const struct lesson_slide *s;
    const struct scene *sc;        /* the scene shown: its own settings are never hidden */
    bool open[PREDICT_MAX_EX];     /* exercise k not answered yet */
    double answer[PREDICT_MAX_EX]; /* exercise k's answer (number exercises) */
};

/* Before the scene is drawn: what the open exercises ask is hidden (app.hide_from and the
 * figure mask); p must outlive the drawing. */
void predict_begin(struct app *a, struct predict *p);
/* After: the figures hidden (for an "answer first" line); nothing hidden elsewhere. */
int predict_end(struct app *a);

#endif
