/* types.h - the exercise types: one struct exercise_type_ops per type, one file each
 * (number.c, choice.c, holds.c), and their table (types.c). Every caller that does something
 * different per type (grading, the answer's text, the line that says how to answer, the
 * options under the prompt, whether its numbers have variants, what a handout says after
 * the prompt and the space and boxes it leaves for the answer, the room's question) asks
 * the table, so a new type is its file, its line in EX_TYPES below, its docs and its test.
 *
 * lesson.h makes `enum lesson_ex_type` from EX_TYPES: LEX_NUMBER, LEX_CHOICE, LEX_HOLDS and
 * LEX_TYPE_COUNT. The parser (exercise_block.c) reads the type's name from here. */
#ifndef COLLVIZ_LESSON_TYPES_TYPES_H
#define COLLVIZ_LESSON_TYPES_TYPES_H

#include <stdbool.h>
#include <stddef.h>

/* The table: X(enum name, the name written after `type:`, its ops). Order is the enum's. */
#define EX_TYPES(X)                                                                            \
    X(LEX_NUMBER, "number", ex_type_number)                                                    \
    X(LEX_CHOICE, "choice", ex_type_choice)                                                    \
    X(LEX_HOLDS, "holds", ex_type_holds)

struct lesson_exercise;
struct ex_variant;
struct ex_grade;
struct cJSON;

/* How a type's answer can show before it is asked, on a screen or in a lesson's text: what
 * the checks that it does not look for (the deck walk's answers shown early, `lesson
 * check`'s answers told in narration, titles and solutions, predict first's hiding). Every
 * type has one (test_type_table: none is EX_ANSWER_UNSET), so a new type is checked as the
 * type whose answer looks like its own. */
enum ex_answer_form {
    EX_ANSWER_UNSET,  /* no type: test_type_table fails */
    EX_ANSWER_NUMBER, /* a number and its unit: answer, units, tolerance (the number type) */
    EX_ANSWER_VALUES, /* what a box holds: ex_holds_expected (rank, step, slots: holds) */
    EX_ANSWER_OPTION, /* the words of the right option: options[correct - 1] (choice) */
};

/* Writes a number of an answer: ex_format_number on screens, paper_text_number on paper. */
typedef void ex_number_fmt(double x, char *buf, size_t n);

struct exercise_type_ops {
    const char *name; /* as written after `type:` in a lesson */
    /* The block's keys of this type, besides those of every exercise (id, type, prompt,
     * hint, solution), space-separated; and those of them it must have. The parser
     * (exercise_block.c) reads each key's value the same way for every type that has it. */
    const char *keys;
    const char *required;
    /* Grade in (already trimmed) against v (NULL = defaults); fills g. CV_OK, or an error
     * code when the exercise itself cannot be graded (g->msg says why). */
    int (*grade)(const struct lesson_exercise *ex, const struct ex_variant *v, const char *in,
                 struct ex_grade *g);
    /* The right answer as one line of text ("419.4 GB/s", "option 2: ring", "60 64 . ."),
     * its numbers written by fmt (never NULL here). */
    void (*answer)(const struct lesson_exercise *ex, const struct ex_variant *v,
                   ex_number_fmt *fmt, char *buf, size_t n);
    /* The line under the prompt that says how to answer (the player's). */
    void (*how)(const struct lesson_exercise *ex, const struct ex_variant *v, char *buf,
                size_t n);
    /* Its own fields in `lesson show --format json` (the type's keys, and its answer), added
     * to x, which has id, type, line and prompt already. */
    void (*json)(const struct lesson_exercise *ex, struct cJSON *x);
    enum ex_answer_form form; /* how its answer looks (never EX_ANSWER_UNSET) */
    bool lists_options;       /* the prompt's lines: the options, numbered, under it */
    bool variants;            /* its numbers drawn anew for a seed (ex_variant, --seed) */
    double paper_space;       /* points a PDF handout leaves to write the answer in (0: none) */
    /* NULL, or what a handout says after the prompt, in brackets there ("answer in GB/s",
     * "rank 2, at the end"); boxes: the PDF's, which leaves a box for each value
     * (paper_boxes) and says how to fill them. */
    void (*paper_note)(const struct lesson_exercise *ex, bool boxes, char *buf, size_t n);
    /* NULL, or how many boxes a PDF handout draws to write the answer in, one a value (else
     * one box, paper_space high). */
    size_t (*paper_boxes)(const struct lesson_exercise *ex);
    /* NULL, or the question the room is asked (the presenter's quiz) where the prompt only
     * said what to type. */
    void (*room_question)(const struct lesson_exercise *ex, char *buf, size_t n);
};

#define EX_TYPE_DECLARE(e, name, ops) extern const struct exercise_type_ops ops;
EX_TYPES(EX_TYPE_DECLARE)
#undef EX_TYPE_DECLARE

/* The ops of type t (never NULL: an unknown t gets ops whose grade refuses it). */
const struct exercise_type_ops *ex_type(int t);

/* How ex's answer looks (ex_type(ex->type)->form; EX_ANSWER_UNSET for an unknown type). */
enum ex_answer_form ex_answer_form(const struct lesson_exercise *ex);

/* Does type t's block have key (its keys), must it (required)? */
bool ex_type_has_key(int t, const char *key);
bool ex_type_requires(int t, const char *key);

/* What a handout says after ex's prompt (its type's paper_note; "" for none), and how many
 * boxes a PDF leaves for its answer (paper_boxes; 0: one box). */
void ex_paper_note(const struct lesson_exercise *ex, bool boxes, char *buf, size_t n);
size_t ex_paper_boxes(const struct lesson_exercise *ex);

/* The right answer of ex as one line (ex_type(ex->type)->answer), at v (NULL = the
 * lecture's numbers); its numbers written by fmt (NULL = ex_format_number). */
void ex_answer_text(const struct lesson_exercise *ex, const struct ex_variant *v,
                    ex_number_fmt *fmt, char *buf, size_t n);

/* Shared by the types' files, written once in exercise.c: a plain number ("1e3", "-2.5"),
 * and the number type's grading (it shares units and number reading with the variants). */
bool ex_read_number(const char *s, double *out, const char **end);
int ex_grade_number(const struct lesson_exercise *ex, const struct ex_variant *v,
                    const char *in, struct ex_grade *g);

#endif
