/* quiz.h - a slide's exercises run as a quiz in the room: the presenter adds each exercise's
 * prompt (with the lecture's numbers) and, for a choice, its options to the slide's
 * narration; a key reveals the answer and the worked solution under it. The notes terminal
 * gets the answers and solutions from the start (quiz_notes). Pure (no curses). */
#ifndef COLLVIZ_PRESENT_QUIZ_H
#define COLLVIZ_PRESENT_QUIZ_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

/* The slide's narration blocks followed by its exercises' blocks. v[0, nslide) are the
 * slide's own (shallow copies); the rest are owned. */
struct quiz {
    struct lesson_block *v;
    size_t n, nslide;
    bool own_slide;    /* quiz_own_slide: v[0, nslide) are deep copies too */
    size_t *ex_block;  /* nex entries: the first block of each exercise (its prompt) */
    size_t *ans_block; /* nex entries: the block of each exercise's answer (0: not revealed) */
    size_t nex;
};

/* Build the blocks of slide s: each exercise's prompt as the room reads it (a sentence that
 * says what to type goes: the room does not type), a choice's options, and for the first
 * nrevealed exercises the answer ("Answer: ...", "Answer 2 of 3: ..." where the slide has
 * several), and with `solutions` the worked solution under it (the
 * presenter leaves it to the speaker's notes: the answer stays one line, beside the scene). */
void quiz_build(const struct lesson_slide *s, size_t nrevealed, bool solutions,
                struct quiz *out);
/* The room's quiz: as quiz_build without solutions, but one question at a time: the answers
 * of the first nrevealed exercises and the question of the next one, none after it (a
 * question the room is not asked yet is not on the screen: revealing one answer never
 * leaves another exercise's question beside it). ex_block of the later ones: n. */
void quiz_build_room(const struct lesson_slide *s, size_t nrevealed, struct quiz *out);
void quiz_free(struct quiz *q);
/* Make the slide's own blocks deep copies, so that their spans' text may be changed. */
void quiz_own_slide(struct quiz *q);

/* The answer of an exercise as a student would write it: ex_answer_text (lesson/types). */

/* For the speaker: every exercise's answer and solution, one after another ("" when the
 * slide has none). */
void quiz_notes(const struct lesson_slide *s, char *buf, size_t n);

#endif
