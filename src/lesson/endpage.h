/* endpage.h - a lesson's end page as narration blocks: what it taught (the front matter's
 * summary) and its exercises that were missed, each with the words its caller gives. The
 * player (n after the last slide: the student's progress, each wrong answer's diagnosis) and
 * the presenter (E: the exercises not answered in the room) lay the same blocks out. Pure C,
 * no terminal. */
#ifndef COLLVIZ_LESSON_ENDPAGE_H
#define COLLVIZ_LESSON_ENDPAGE_H

#include <stddef.h>

#include "lesson/lesson.h"

/* Whether exercise e was missed: NULL when not (it is left off the page), else the words
 * after "slide N, " ("not answered"), or "" where the heading says them for every item (the
 * item is "slide N: question", a line shorter: the room's end page fits 80x24); *tone
 * (LSPAN_BAD when not set) colours its item; *detail may get one more line ("" for none).
 */
typedef const char *(*lesson_end_fn)(const void *ctx, const struct lesson_exercise *e,
                                     char *detail, size_t n, unsigned *tone);

/* The page's blocks after its title: "What it taught", the summary, `missed_heading`, an item
 * per exercise missed (its detail under it), or `none_missed` (or "none: this lesson has no
 * exercises"). An item names its exercise's slide by the number its reader sees and types:
 * first_slide is the number of the lesson's first slide (1 in the player, where a lesson
 * counts its own slides; in the presenter, its place in the deck, whose numbers the footer
 * shows and go-to takes). *nblocks: how many; free with glossary_free_blocks
 * (lesson/glossary.h). */
struct lesson_block *lesson_end_blocks(const struct lesson *L, size_t first_slide,
                                       const char *missed_heading, const char *none_missed,
                                       lesson_end_fn missed, const void *ctx, size_t *nblocks);

/* The words a student or the room knows exercise e by (its id is for files and notes): the
 * prompt's question at the lecture's numbers (its last sentence ending in "?", with the
 * sentence before it when short), or its first sentence; backticks dropped. Into buf. */
void lesson_ex_question(const struct lesson_exercise *e, char *buf, size_t n);

#endif
