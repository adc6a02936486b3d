/* position.h - where a talk was: the presenter's position per deck, kept in
 * $XDG_STATE_HOME/collviz/present-HASH.pos (HASH: of the deck's real path and --name; default
 * ~/.local/state), written atomically after every move so a crash (kill -9) loses nothing;
 * and the folder `e` writes pictures to. Also the pure look-ups that find a slide again
 * after a reload and jump by title. */
#ifndef COLLVIZ_PRESENT_POSITION_H
#define COLLVIZ_PRESENT_POSITION_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/lesson.h"

struct position {
    char lesson[LESSON_ID_MAX]; /* the slide's lesson id and title: found again after edits */
    char title[256];
    long slide; /* 0-based, what it was when saved */
    int page;
    long step;
    long elapsed_s; /* the talk's clock */
    int zoom;       /* the presenter's + / - zoom (0..99 as read; the presenter clamps) */
};

/* The state file for deck_path (the path given to --present) presented under --name `name`
 * (two rooms showing one deck keep two places). CV_EINVAL with a message when neither
 * XDG_STATE_HOME nor HOME is set or the deck does not exist. */
int position_path(const char *deck_path, const char *name, char *buf, size_t n, char *err,
                  size_t errlen);
/* CV_OK and *st; CV_ENOENT-like CV_EUNAVAIL when there is none; CV_EINVAL for a file that
 * does not parse (err says which line). */
int position_load(const char *file, struct position *st, char *err, size_t errlen);
/* Write atomically (temporary file and rename), creating the folder 0700. */
int position_save(const char *file, const struct position *st, char *err, size_t errlen);

/* The folder `e` writes to: dir_opt (--export-dir), else $COLLVIZ_EXPORT_DIR, else
 * $XDG_DATA_HOME/collviz/exports, else ~/.local/share/collviz/exports. */
int position_export_dir(const char *dir_opt, char *buf, size_t n, char *err, size_t errlen);
/* mkdir -p path (0700 for what is made). */
int position_mkdirs(const char *path, char *err, size_t errlen);

/* One slide as the look-ups see it. */
struct position_key {
    const char *lesson, *title;
};
/* The slide to show after a reload: the one with the same lesson id and title (the nearest
 * to `old` when several), else the nearest slide of the same lesson to `old`, else `old`
 * clamped to the deck. n >= 1. */
size_t position_find(const struct position_key *k, size_t n, const char *lesson,
                     const char *title, size_t old);
/* The first slide after `from` (wrapping round) whose title contains `what` (ASCII case
 * ignored); false when none does. */
bool position_search(const struct position_key *k, size_t n, size_t from, const char *what,
                     size_t *out);

#endif
