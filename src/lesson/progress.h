/* progress.h - what a student has done: per lesson, the current slide, the slides seen and
 * the exercises solved; per exercise, the attempts. Kept in a small text file keyed by
 * lesson id and exercise id (never by line numbers, so editing a lesson keeps progress):
 * $XDG_STATE_HOME/collviz/progress, by default ~/.local/state/collviz/progress.
 *
 * Saving writes a temporary file in the same folder, fsyncs it and renames it over the old
 * one, so a crash leaves either the old or the new file. A file that does not parse is
 * renamed aside by the player (progress.corrupt-<time>) with one line of warning; a
 * read-only command only warns; a newer format version is refused and left alone. */
#ifndef COLLVIZ_LESSON_PROGRESS_H
#define COLLVIZ_LESSON_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

struct progress_lesson {
    char id[LESSON_ID_MAX];
    int current;                                     /* slide index the student was on */
    unsigned char seen[(LESSON_MAX_SLIDES + 7) / 8]; /* bit i = slide i seen */
};

#define PROGRESS_ANSWER_MAX 64
#define PROGRESS_TRIES 8

/* A wrong answer (printable bytes only) and the seed of the numbers it answered (0: the
 * lecture's): `lesson review` grades it again to say what it was. */
struct progress_try {
    char answer[PROGRESS_ANSWER_MAX];
    unsigned long long seed;
};

struct progress_ex {
    char id[LESSON_ID_MAX];
    char lesson[LESSON_ID_MAX];
    int attempts;
    bool solved;
    /* the distinct wrong answers, oldest first (the last is the latest), at most
     * PROGRESS_TRIES: the oldest goes when one more comes */
    struct progress_try tries[PROGRESS_TRIES];
    size_t ntries;
};

struct progress {
    char path[4096]; /* the file it is loaded from and saved to */
    struct progress_lesson *lessons;
    size_t nlessons;
    struct progress_ex *ex;
    size_t nex;
};

/* $XDG_STATE_HOME/collviz/progress (or $HOME/.local/state/collviz/progress). CV_EINVAL
 * when neither variable is set. */
int progress_default_path(char *buf, size_t n, char *err, size_t errlen);

/* Load from path for the player, who saves (a missing file is an empty progress). A corrupt
 * file is renamed aside (path.corrupt-<time>, never over an earlier backup) and *warn (if
 * non-NULL) gets one line saying so; *warn is "" otherwise. CV_OK, or CV_EINVAL with *warn's
 * line when the path is too long or the file is of a newer format version (left as it is:
 * keep no progress then, so nothing writes over it). */
int progress_load(struct progress *p, const char *path, char *warn, size_t warnlen);
/* Load for a read-only command (lesson list): as progress_load, but never moves a file: a
 * corrupt one is CV_EINVAL with its line in *warn, as a newer one is. p is empty then. */
int progress_peek(struct progress *p, const char *path, char *warn, size_t warnlen);
/* Write atomically, creating the folder (0700) when missing. */
int progress_save(const struct progress *p, char *err, size_t errlen);
void progress_free(struct progress *p);

/* The lesson's entry, created when missing (create) or NULL. */
struct progress_lesson *progress_lesson(struct progress *p, const char *lesson_id, bool create);
/* Slide `slide` of the lesson is current and seen; the lesson becomes the last visited
 * (entries are kept least recently visited first: pointers from progress_lesson move). */
void progress_visit(struct progress *p, const char *lesson_id, size_t slide);
/* The id of the lesson visited last, or NULL. */
const char *progress_last_lesson(const struct progress *p);
size_t progress_seen_count(const struct progress_lesson *pl);
bool progress_seen(const struct progress_lesson *pl, size_t slide);

/* An attempt at an exercise: attempts + 1, solved when right (solved stays solved). */
void progress_attempt(struct progress *p, const char *lesson_id, const char *ex_id, bool right);
/* A wrong answer to an exercise at the numbers of seed (cut to PROGRESS_ANSWER_MAX - 1
 * bytes, control bytes as '?'): kept after the earlier ones, or, when it was given before at
 * those numbers, moved to the end as the latest. */
void progress_mistake(struct progress *p, const char *lesson_id, const char *ex_id,
                      const char *answer, unsigned long long seed);
/* Forget a lesson's progress (lesson_id) or all of it (NULL): its slides and its
 * exercises. *lessons and *exercises (may be NULL): how many entries went. */
void progress_forget(struct progress *p, const char *lesson_id, size_t *lessons,
                     size_t *exercises);
const struct progress_ex *progress_exercise(const struct progress *p, const char *ex_id);
/* The latest wrong answer of e, or NULL when none is kept. */
const struct progress_try *progress_last_try(const struct progress_ex *e);
bool progress_solved(const struct progress *p, const char *ex_id);
/* Exercises of lesson_id solved (as recorded). */
size_t progress_solved_count(const struct progress *p, const char *lesson_id);

#endif
