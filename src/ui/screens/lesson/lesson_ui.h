/* lesson_ui.h - the lesson player: a frame (struct screen_ops, a->frame) that draws a
 * slide's narration beside the slide's scene, the scene drawn by its own screen into a rect
 * through the one door (app_set_scene), with the slide's exercises under the narration;
 * and the list of lessons with the student's progress. Speaker notes are never shown.
 *
 * Keys (KEYS_ON_LESSON rows of kit/keys.h): n / p slides, → ← PgDn PgUp Home End the
 * scene's steps, Space play, Enter answers the current exercise (a line of input: Enter
 * submits, Esc cancels), Tab the next exercise of the slide, H the next hint, v new
 * numbers (number exercises with ranges), L the lecture's numbers again (an exercise whose
 * answer an earlier lesson showed starts on a variant's: recall.h), S gives up and shows the
 * answer and solution, ↑ ↓ (k j) scroll the narration, Esc back to the list, q quits. Every
 * scene key of the explorer works on the slide's scene (app_scene_action; where the player's
 * keys clash the scene keeps N scheme, P parallel, V view, J/K napkin field), and 0 or
 * Backspace brings the slide's own scene back. Progress (slides seen, the slide to resume at,
 * exercises solved) is saved after every change, atomically, through lesson/progress.h.
 * lesson_ui.c: state and keys; lesson_draw.c: drawing. */
#ifndef COLLVIZ_UI_SCREENS_LESSON_LESSON_UI_H
#define COLLVIZ_UI_SCREENS_LESSON_LESSON_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "lesson/progress.h"
#include "ui/screens/screens.h"

struct app;

extern const struct screen_ops screen_lesson;

/* What a student did with one exercise of the current slide (not kept across slides; the
 * progress file keeps attempts and solved). */
struct lesson_ex_state {
    uint64_t seed; /* variant: 0 = the lecture's numbers */
    struct ex_variant var;
    int hints_shown;
    bool gave_up; /* S: answer and solution shown */
    bool right;   /* answered right on this visit */
    bool graded;  /* verdict holds a grade */
    enum ex_verdict verdict_kind;
    char verdict[400];
};

struct lesson_ui {
    struct lesson_set set;
    char dir[1024]; /* the lessons folder (list mode) */
    bool from_list; /* opened without FILE|ID: Esc goes back to the list */
    bool in_list;   /* showing the list */
    size_t sel;     /* the list's selection */
    const struct lesson *L;
    size_t slide;
    bool scene_ok;       /* the slide's scene is shown */
    char scene_err[240]; /* why a slide's scene is not shown ("" when it has none) */
    struct lesson_ex_state *ex;
    size_t cur;   /* current exercise of the slide */
    bool editing; /* the input line takes the keys */
    char input[256];
    int scroll;       /* first narration line shown */
    int ex_line;      /* where the exercise section starts in the narration (last draw) */
    bool show_ex;     /* scroll so the exercise section shows (after Enter, H, S, v) */
    bool hid_box;     /* the last draw hid a box an exercise asks about (predict first) */
    bool scene_alone; /* z: the slide's scene over the whole terminal */
    bool glossary;    /* G: the glossary in the narration's place, the slide's terms first;
                         G or Esc closes it */
    bool at_end;      /* n on the last slide: the lesson's end page (summary, exercises
                         missed) in the narration's place; p goes back */
    int scroll_max;   /* the last draw's largest scroll (the narration's last page) */
    bool hid_figures; /* ... and scene figures equal to a number exercise's answer */
    bool terms_plain; /* no glossary term underlined (tests compare the lines both ways) */
    bool *recall;     /* L's exercises in order: answer seen in an earlier lesson (recall.h) */
    struct lesson_terms *terms; /* the slide's glossary terms and marked narration, made once
                                   a slide rather than once a frame (lesson_draw.c); NULL:
                                   made at each draw */
    size_t nrecall;
    struct progress prog;
    bool have_prog;
    char warn[400]; /* lessons with errors, progress not saved: shown in the list/title */
};

/* Load the lessons and make the player a's frame: target NULL = the list of the lessons
 * folder (lesson/lesson.h's lesson_default_dir); a path to a lesson
 * file, or a lesson id in that folder = that lesson, resuming at its saved slide. CV_OK, or
 * CV_EINVAL with one line in err (a bad file: its first error, "file:line: message"). */
int lesson_ui_open(struct app *a, const char *target, char *err, size_t errlen);

/* Whether key act does something in the player u (a struct lesson_ui) now: H where the
 * exercise has a hint left, Enter and S where it is open, v where it has variants, the step
 * keys where a scene is shown...; the bar and the hints name only those. q is "lessons"
 * (*label) in a lesson opened from the list. keys.h's keys_bar_fn. */
bool lesson_ui_key_works(const void *ctx, enum ui_action act, const char **label);

/* Predict first for the current slide's open choices (app_hold with their `shows:`
 * phrases): set on entering a slide and at every draw, released once each is answered. */
void lesson_ui_hold(struct app *a);

/* The player's state (a->frame_state). */
struct lesson_ui *lesson_ui_of(const struct app *a);

/* Where a slide goes in r (pure; lesson_draw.c): the narration beside the scene from
 * 112x25, above it from 80x31, else (compact: 80x24, 100x30) the text alone with a line
 * saying z shows the scene; scene_alone (z) gives the scene the whole of r. */
struct lesson_layout {
    struct rect narr, scene; /* w == 0: not shown */
    int rule_x;              /* the rule between them (0: none) */
    bool compact;            /* the text alone though the slide has a scene */
    bool scene_alone;
};
void lesson_layout(struct rect r, bool has_scene, bool scene_alone, struct lesson_layout *out);

/* Every line of a slide's narration pane at `width` columns (title, narration, scene
 * error, the current exercise), as lesson_draw shows them; *ex_line: where the exercise
 * starts. Free v->l. */
struct lesson_lines {
    struct styled_line *l;
    int n, cap;
};
void lesson_slide_lines(const struct app *a, const struct lesson_ui *u, int width,
                        struct lesson_lines *v, int *ex_line);

/* The glossary terms of one slide of one lesson, kept between frames (lesson_draw.c): the
 * lessons of a player never change while it is open, so a lesson and a slide index name them.
 * lesson_terms_free(NULL) does nothing. */
struct lesson_terms *lesson_terms_new(void);
void lesson_terms_free(struct lesson_terms *t);

/* Draw the frame into r (lesson_draw.c). */
void lesson_draw(struct app *a, struct rect r);
void lesson_help(const struct app *a, struct styled_lines *p, int width);

#endif
