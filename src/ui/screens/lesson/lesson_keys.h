/* lesson_keys.h - `lesson check`'s test that every key a slide tells the student to press
 * ("press `o`", "pressing 7 and 6", "Press m") is one the lesson player binds on that
 * slide (the key table of kit/keys.h on the player's surface, for the slide's screen), so
 * no instruction of a lesson can be silently ignored. */
#ifndef COLLVIZ_UI_SCREENS_LESSON_LESSON_KEYS_H
#define COLLVIZ_UI_SCREENS_LESSON_LESSON_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

/* Whether key code ch does something in the player on slide s (a scene key only where the
 * slide has a scene, and only for the screen it shows). */
bool lesson_keys_bound(const struct lesson_slide *s, int ch);

/* Append "file:line: ..." to errs for every key the narration or an exercise prompt of L
 * asks for that the player does not bind there (or a backticked name that is no key).
 * Returns how many were appended. */
size_t lesson_keys_check(const struct lesson *L, struct lesson_errors *errs);

/* The keys (curses codes, in order, at most cap) slide `slide` of L asks the student to
 * press that the player binds there: what the deck walker presses. Returns how many. */
size_t lesson_keys_asked(const struct lesson *L, size_t slide, int *keys, size_t cap);

#endif
