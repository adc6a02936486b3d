/* recall.h - recall is not prediction. A number exercise whose answer at the lecture's
 * numbers an earlier lesson of the set already put on screen (a figure of one of its
 * slides' scenes, drawn off-screen as the player draws it at the slide's step and at the
 * scene's end, hierarchy's napkin page included; or a figure of its narration) is asked
 * with its own variant's numbers by default, so the student computes rather than
 * remembers; the lecture's numbers stay one key away (L). Only answers with a unit ("419
 * GB/s", "20 ms", "8x") or counts of four digits or more ("524288" elements): a small count or
 * a fraction ("7 steps", "1/2") is on other lessons' screens as something else. Exercises
 * without ranged parameters have no other numbers and keep the lecture's. */
#ifndef COLLVIZ_UI_SCREENS_LESSON_RECALL_H
#define COLLVIZ_UI_SCREENS_LESSON_RECALL_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

/* seen[i] (n entries: L's exercises, slide by slide, in order) = exercise i is a number
 * exercise with variants whose lecture answer a lesson of set before L showed. L must be
 * one of set's lessons (else nothing is seen). */
void recall_mark(const struct lesson_set *set, const struct lesson *L, bool *seen, size_t n);

#endif
