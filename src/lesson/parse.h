/* parse.h - private to the lesson parser (lesson.c, the file and its slides) and the readers
 * of a slide's parts it calls: scene_block.c (```scene), exercise_block.c (```exercise) and
 * narration.c (md4c over the rest). What they share: the parse context with its error list,
 * the buffer's lines and small value parsers. Not for use outside
 * src/lesson/ (lesson.h is the module's door); its functions carry the lp_ prefix (lesson
 * parse), since the library links them beside every other module. */
#ifndef COLLVIZ_LESSON_PARSE_H
#define COLLVIZ_LESSON_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/util.h"
#include "core/vec.h" /* the growable arrays and strings */
#include "lesson/lesson.h"

/* ---- errors (lesson.c) ------------------------------------------------------------------ */

struct ctx {
    const char *path;
    struct lesson_errors *errs;
    size_t nerr; /* errors of this file */
    /* line starts of the whole buffer, for offset -> line */
    const char *buf;
    size_t len;
    size_t *lines; /* lines[i] = offset of line i+1 */
    size_t nlines;
    struct lesson_errors warns; /* "file:line: warning: ..." (the lesson still loads) */
};

void lp_perr(struct ctx *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void lp_pwarn(struct ctx *c, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Line (1-based) of buffer offset off. */
int lp_line_of(const struct ctx *c, size_t off);
/* The caret name of a control character (ESC: "^["; DEL "^?"; C1 U+009B: "M-^["). */
void lp_control_name(unsigned cp, char *out, size_t n);

/* ---- helpers on lines (lesson.c) -------------------------------------------------------- */

struct line {
    const char *s; /* not NUL-terminated */
    size_t n;      /* without "\n" and a trailing "\r" */
    size_t off;    /* offset in the buffer */
    int no;        /* 1-based */
};

struct line lp_get_line(const struct ctx *c, size_t li);
/* l up to a comment: a '#' at the start or after a blank begins one (front matter, scenes) */
struct line lp_uncommented(struct line l);
bool lp_is_blank(const char *s, size_t n);
/* Copy s[0..n) trimmed of blanks into out (size cap); false when it does not fit. */
bool lp_trim_copy(const char *s, size_t n, char *out, size_t cap);

/* ---- value parsers (lesson.c) ----------------------------------------------------------- */

bool lp_valid_id(const char *s);
/* A plain decimal number ("3.5", "-2", "1e9", "209715200"): no hex, inf or nan. */
bool lp_parse_plain_number(const char *s, double *out);
bool lp_is_integer(double d);
/* "key: value" → key and value (trimmed). false when there is no "key:" */
bool lp_split_kv(const struct line *l, char *key, size_t keycap, const char **val,
                 size_t *vlen);
char *lp_dupn(const char *s, size_t n);

/* ---- a slide's parts, called by lesson.c's parse_slide ---------------------------------- */

/* scene_block.c: lines first..last (exclusive) of a ```scene block opened at line `open`. */
void lp_parse_scene(struct ctx *c, struct lesson_slide *S, size_t first, size_t last, int open);
/* exercise_block.c: an ```exercise block's lines into S->ex (excap: its capacity). */
void lp_parse_exercise(struct ctx *c, struct lesson_slide *S, size_t si, size_t first,
                       size_t last, int open, size_t *excap);
/* exercise_block.c: the slide's holds exercises against its scene. */
void lp_check_holds(struct ctx *c, struct lesson_slide *S);
/* narration.c: md4c over the slide's text (scene and exercise blocks blanked). */
void lp_parse_narration(struct ctx *c, struct lesson_slide *S, char *text, size_t len,
                        size_t base);

#endif
