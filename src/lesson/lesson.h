/* lesson.h - lesson files (lessons/NN-slug.md, see lessons/README.md) read into plain data:
 * a lesson is a list of slides; a slide is a title, narration (styled blocks a terminal can
 * wrap, and the slide's Markdown for HTML), speaker notes, an optional scene and exercises.
 *
 * Pure C, no curses: the interactive player, the presenter, the HTML export and
 * `collviz lesson` all read lessons through this header. Lesson files are untrusted: every
 * limit below is checked, every problem becomes one "file:line: message" error (all of them
 * are collected, parsing does not stop at the first), and nothing in a lesson can run a
 * command or name a file to read.
 *
 * Exercises (grading, variants) are in exercise.h; progress (what a student has seen and
 * solved) in progress.h. */
#ifndef COLLVIZ_LESSON_LESSON_H
#define COLLVIZ_LESSON_LESSON_H

#include <stdbool.h>
#include <stddef.h>

#include "lesson/types/types.h"
#include "scene/scene.h"

/* Limits (a file over one is refused with an error at the offending line). */
#define LESSON_MAX_FILE_BYTES ((size_t)256 << 10)
#define LESSON_MAX_SLIDES 200
#define LESSON_MAX_LINE_BYTES 1000
#define LESSON_MAX_EXERCISES 32 /* per slide */
#define LESSON_MAX_FORMULA 256  /* characters of an answer formula */
#define LESSON_MAX_PARAMS 16
#define LESSON_MIN_OPTIONS 2
#define LESSON_MAX_OPTIONS 8
#define LESSON_MAX_HINTS 16
#define LESSON_MAX_SHOWS 4    /* a choice's `shows:` lines */
#define LESSON_SHOWS_BYTES 80 /* one `shows:` phrase, its NUL included */
#define LESSON_MAX_CHOICES 16 /* values of one param's choices: list */
#define LESSON_MAX_WHERE 8    /* where: conditions of one exercise */
#define LESSON_MAX_WRONG 8    /* wrong: traps of one exercise */
#define LESSON_ID_MAX 64      /* bytes of a lesson or exercise id, with the NUL */
#define LESSON_MAX_MINUTES 240
#define LESSON_MAX_SUMMARY 1200 /* bytes of a front matter summary, its lines joined */
#define LESSON_SHORT_MAX 28     /* columns of a lesson's short title (front matter short:) */

/* Errors: each one line "file:line: message" (or "file: message" without a line). */
struct lesson_errors {
    char **msg;
    size_t n;
};

/* ---- narration -------------------------------------------------------------------------- */

/* Style bits of a span (combined: bold italic is LSPAN_BOLD | LSPAN_ITALIC). */
enum {
    LSPAN_BOLD = 1,   /* **strong** */
    LSPAN_ITALIC = 2, /* *emphasis* */
    LSPAN_CODE = 4,   /* `inline code` */
    LSPAN_TERM = 64,  /* a glossary term's first use on its slide: never set by the parser,
                         only by glossary_mark_block (the player and the presenter show it
                         underlined; the handouts never mark) */
    /* a generated page's tone (the end page: missed, solved after a slip, none missed):
     * never set by the parser; the player colours it */
    LSPAN_BAD = 128,
    LSPAN_WARN = 256,
    LSPAN_OK = 512,
};

/* A run of text in one style. Text is UTF-8, never contains '\n' (soft line breaks become
 * one space; a hard break is a span with hard_break set and empty text). */
struct lesson_span {
    char *text;
    unsigned style;  /* LSPAN_* bits */
    bool hard_break; /* a forced line break before this span's text */
};

enum lesson_block_kind {
    LBLOCK_PARAGRAPH,
    LBLOCK_ITEM,    /* a list item's paragraph (depth = list nesting, 1 = top level) */
    LBLOCK_QUOTE,   /* a paragraph inside a block quote */
    LBLOCK_CODE,    /* a code block (not scene/exercise): one span per line, LSPAN_CODE */
    LBLOCK_HEADING, /* a heading after the slide's title (sub-heading) */
    LBLOCK_RULE,    /* a thematic break that is not a slide separator (no spans) */
};

/* One block of narration, to be wrapped to the screen's width by the renderer. */
struct lesson_block {
    enum lesson_block_kind kind;
    int depth;   /* list nesting for ITEM (1..), quote nesting for QUOTE (1..), else 0 */
    int ordinal; /* ITEM: its number in an ordered list, 0 for a bullet; HEADING: level */
    bool first;  /* ITEM: the item's first paragraph (draw the bullet/number only there) */
    struct lesson_span *spans;
    size_t nspans;
    int line; /* source line of the block's first text */
};

/* ---- exercises -------------------------------------------------------------------------- */

/* The exercise types: their table is EX_TYPES in lesson/types/types.h. */
#define LESSON_EX_TYPE_ENUM(e, name, ops) e,
enum lesson_ex_type { EX_TYPES(LESSON_EX_TYPE_ENUM) LEX_TYPE_COUNT };
#undef LESSON_EX_TYPE_ENUM

struct lesson_param {
    char name[32]; /* [a-z_][a-z0-9_]* */
    double value;  /* the default (the lecture's number) */
    double lo, hi; /* range for variants; lo == hi == value when not ranged */
    bool ranged;
    bool integer; /* declared `integer`, or default and both ends are integers: variants stay
                     integers */
    double step;  /* > 0: variants are lo + k*step (`step S`); 0 = none */
    double choices[LESSON_MAX_CHOICES]; /* `choices: 2,4,8`: variants draw one of these */
    size_t nchoices;
    int line;
};

/* A known trap of a number exercise (`wrong: FORMULA | message`): an answer equal to the
 * formula (within the exercise's tolerance) gets the message before any other diagnosis. */
struct lesson_wrong {
    char formula[LESSON_MAX_FORMULA + 1]; /* over the params, in the exercise's units */
    char *msg;                            /* may hold {name} and {= expr} templates */
    int line;
};

struct lesson_exercise {
    char id[LESSON_ID_MAX]; /* [a-z0-9-]+, unique across all lessons of a set */
    enum lesson_ex_type type;
    char *prompt; /* prompt: lines joined with single spaces; may name params as {name} and
                     computed values as {= expr} (prompt, hints, solution, wrong messages) */
    int line;     /* the ```exercise fence's line */
    size_t slide; /* index of the slide it is on */

    /* number */
    struct lesson_param params[LESSON_MAX_PARAMS];
    size_t nparams;
    char formula[LESSON_MAX_FORMULA + 1]; /* muParser syntax over the params */
    int answer_line;
    double answer;    /* the formula at the defaults (checked finite at load time) */
    char units[16];   /* canonical spelling: "GB/s", "ms", "x", "" ... */
    double tolerance; /* relative, e.g. 0.01 for "1%" */
    bool integer;     /* `integer: yes`: the answer is a count; no variant gives a fraction */
    char where[LESSON_MAX_WHERE][LESSON_MAX_FORMULA + 1]; /* conditions over the params */
    int where_line[LESSON_MAX_WHERE];
    size_t nwhere;
    struct lesson_wrong wrong[LESSON_MAX_WRONG];
    size_t nwrong;

    /* every type */
    char **hints; /* revealed one at a time */
    size_t nhints;
    char *solution; /* solution: lines joined with '\n', or NULL */

    /* choice */
    char **options;    /* the option's text (before a ` | `) */
    char **option_why; /* why it is wrong (after the ` | `), or NULL; noptions entries */
    size_t noptions;   /* 2..8 */
    int correct;       /* 1-based */
    /* `shows: PHRASE` (repeatable): words the scene says once it tells the right option ("which
     * stores it"); the player and the presenter hold the scene before the first step that says
     * one (predict.h) until the choice is answered. `shows: nothing`: the scene never tells
     * (shows_line set, nshows 0). */
    char shows[LESSON_MAX_SHOWS][LESSON_SHOWS_BYTES];
    size_t nshows;
    int shows_line; /* 0: no shows: line */

    /* holds: "what does rank `rank` hold after step `step`?" on the slide's scene */
    int rank;
    long step; /* 0..nsteps, or SCENE_STEP_END */
    /* `slots: A` or `slots: A..B`: only elements slot_lo..slot_hi of the box are asked (the
     * rank's output). false (a zeroed exercise too) = the whole box. */
    bool slots;
    int slot_lo, slot_hi;
    struct scene scene; /* a copy of the slide's scene (holds only) */
    /* every type: the ranks of the slide's scene (0: the slide has none), for the slip of a
     * student who takes the screen's W for the question's */
    int scene_ranks;
};

/* ---- slides and lessons ----------------------------------------------------------------- */

#define LESSON_STOPS_MAX 16

struct lesson_slide {
    char *title; /* the first heading's text, plain (styles dropped) */
    int line;    /* the slide's first line */
    int title_line;
    struct lesson_block *blocks; /* narration, without title, notes, scene and exercises */
    size_t nblocks;
    /* The slide's Markdown without the title heading, the ```scene and ```exercise blocks
     * and the speaker notes: render with md4c-html and MD_FLAG_NOHTML (raw HTML is shown as
     * text, never interpreted). */
    char *markdown;
    char *notes; /* speaker notes (every <!-- note: --> joined by "\n"), or NULL. Never shown
                    to a student or an audience. */
    int notes_line;
    int indented_note_line; /* a note indented four spaces (Markdown: code) taken as a note
                               anyway, so never shown; lesson check warns. 0 = none */
    bool has_scene;
    struct scene scene; /* from the default scene, not the previous slide's */
    int scene_line;
    /* The scene block's `stops: 0, 3, end`: the steps the presenter's clicker shows
     * (SCENE_STEP_END = the last), as written; nstops 0 = not given (the scene's phase
     * ends). Whether each is a step of the scene is `lesson check`'s (lesson_stops_check). */
    long stops[LESSON_STOPS_MAX];
    size_t nstops;
    int stops_line;
    struct lesson_exercise *ex;
    size_t nex;
};

struct lesson {
    char id[LESSON_ID_MAX]; /* front matter lesson:, default the file's slug */
    char *title;            /* front matter title:, default the first slide's title */
    char *short_title;      /* front matter short:, or NULL (lesson_short_title) */
    int minutes;            /* 0 = not given */
    char *summary;          /* front matter summary: lines joined with spaces, or NULL: what
                               the lesson taught, shown after its last slide */
    char *path;             /* the source file as given to the loader */
    struct lesson_slide *slides;
    size_t nslides;
    struct lesson_errors warnings; /* "file:line: warning: ..." (a link a handout drops) */
};
void lesson_errors_free(struct lesson_errors *e);

/* The lesson's title where a row has no room for the whole one (a slide's footer at 80
 * columns): front matter short:, else the title where it is at most LESSON_SHORT_MAX
 * columns, else the lesson's id. Never empty, never wider than LESSON_SHORT_MAX (the parser
 * refuses a lesson whose title and id are both wider and that has no short:): every slide
 * can show its lesson at any size. */
const char *lesson_short_title(const struct lesson *L);

/* Parse a lesson from memory; `path` names it in errors and its slug gives the default id.
 * Appends every error found to *errs. CV_OK and a filled *out, or CV_EINVAL (at least one
 * error appended) with *out empty. Never reads a file. */
int lesson_parse(const char *path, const char *buf, size_t len, struct lesson *out,
                 struct lesson_errors *errs);
/* Read and parse one file (refused when over LESSON_MAX_FILE_BYTES). */
int lesson_load_file(const char *path, struct lesson *out, struct lesson_errors *errs);
void lesson_free(struct lesson *l);

/* A set of lessons: one folder, ordered by their NN- prefix, or files named one by one. Ids
 * (lesson and exercise) are unique across the set. */
struct lesson_set {
    struct lesson *v;
    size_t n;
};
void lesson_set_init(struct lesson_set *set);
/* Add a file, or every `[0-9][0-9]-*.md` of a folder in NN order (README.md and others are
 * skipped). A lesson with errors is not added; its errors (and duplicate ids, at the line of
 * the second) go to *errs. CV_OK when nothing was added to *errs. */
int lesson_set_add(struct lesson_set *set, const char *path, struct lesson_errors *errs);
void lesson_set_free(struct lesson_set *set);
/* The lesson named by its id, else its file's slug or name, else its number ("3" or "03"
 * for 03-*.md). */
const struct lesson *lesson_set_find(const struct lesson_set *set, const char *lesson_id);
/* The exercise with this id, and the lesson it is in (lesson_out may be NULL). */
const struct lesson_exercise *lesson_set_find_exercise(const struct lesson_set *set,
                                                       const char *ex_id,
                                                       const struct lesson **lesson_out);

/* The lessons folder: $COLLVIZ_LESSONS when set; else the first of ./lessons, lessons/ next
 * to the program, ../share/collviz/lessons from the program's folder, the source tree's
 * lessons/ (built in) and the installed PREFIX/share/collviz/lessons that holds a lesson
 * (NN-*.md). false when none does: buf then lists where it looked, ", " between. */
#define LESSON_DIR_PLACES 6
bool lesson_default_dir(char *buf, size_t n);

/* True for a file name of the form NN-*.md (a lesson in a folder). */
bool lesson_is_lesson_name(const char *name);

/* True for a file that is a lesson: named NN-*.md, or opening with a front matter line "---"
 * (or one that cannot be read: loading it says why). A README a shell glob names is not. */
bool lesson_file_is_lesson(const char *path);

const char *lesson_ex_type_name(enum lesson_ex_type t); /* "number", "choice", "holds" */

/* True when a link to url (n bytes, entities already decoded) may stay a link in a handout:
 * only http:, https:, mailto: and in-document #anchors, in any case, after the blanks and
 * controls a browser skips. Everything else (javascript:, data:, vbscript:, relative paths)
 * is shown as text and `lesson check` warns. */
bool lesson_url_allowed(const char *url, size_t n);

#endif
