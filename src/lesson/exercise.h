/* exercise.h - exercises of a lesson: answer formulas (muParser), units, variants and
 * grading. Pure C. Number answers come from the exercise's formula, holds answers from
 * running the slide's scene through the plan and the trace engine: nothing here trusts an
 * answer key written in the lesson. */
#ifndef COLLVIZ_LESSON_EXERCISE_H
#define COLLVIZ_LESSON_EXERCISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lesson/lesson.h"

/* ---- formulas --------------------------------------------------------------------------- */

/* Evaluate `formula` with the variables names[i] = vals[i] (only those; functions sqrt,
 * log2, ln, exp, abs, floor, ceil, round, min, max; operators + - * / ^ % (remainder) and
 * parentheses). CV_OK and *out (which
 * may be non-finite: the caller decides), or CV_EINVAL with muParser's message. The formula
 * is at most LESSON_MAX_FORMULA characters. */
int ex_formula_eval(const char *formula, const char *const *names, const double *vals, size_t n,
                    double *out, char *err, size_t errlen);
/* A `where:` condition over the same variables: a formula that may also compare (< <= > >=
 * == !=), combine (&& ||) and take a remainder (%). *holds: its value is not zero. */
int ex_condition_eval(const char *cond, const char *const *names, const double *vals, size_t n,
                      bool *holds, char *err, size_t errlen);

/* ---- units ------------------------------------------------------------------------------ */

enum ex_dim { DIM_NONE, DIM_BANDWIDTH, DIM_TIME, DIM_BYTES, DIM_COUNT };

/* Look up a unit spelling ("GB/s", "GiB/s", "ms", "us", "µs", "MiB", "x", "times", "").
 * *dim and *scale (the unit in its dimension's base: bytes/s, s, bytes, 1) and the
 * canonical spelling. CV_EINVAL for an unknown unit. */
int ex_unit_lookup(const char *unit, enum ex_dim *dim, double *scale, const char **canon);

/* Convert value from one unit to another of the same dimension. CV_EINVAL (message) for an
 * unknown unit or different dimensions. */
int ex_unit_convert(double value, const char *from, const char *to, double *out, char *err,
                    size_t errlen);

/* The unit a prompt writes right after param i's "{name}" ("{mb} MB", "{a} µs"): one of
 * bytes, bandwidth or time, into unit (n bytes); false when none. */
bool ex_param_unit(const struct lesson_exercise *ex, size_t i, char *unit, size_t n);

/* ---- variants --------------------------------------------------------------------------- */

/* The numbers of one variant of a number exercise. seed 0 = the defaults (the lecture's
 * numbers). seed > 0: every ranged param is drawn by a PRNG seeded with the seed and the
 * exercise id: one of its choices, or lo + k*step, or an integer of [lo, hi] (integer
 * params), else a number of [lo, hi] rounded to 3 significant digits; unranged params keep
 * their default. A draw that breaks a `where:` condition, or whose answer is not finite or
 * (for an `integer` answer) not a whole number, or whose answer is the lecture's
 * (ex_lecture_answer), is drawn again. */
struct ex_variant {
    uint64_t seed;
    double param[LESSON_MAX_PARAMS]; /* in the order of ex->params */
    double answer;                   /* the formula at these params */
    int draws;                       /* the draws it took (where: rejects the others) */
};
bool ex_has_variants(const struct lesson_exercise *ex); /* number with >= 1 ranged param */
/* Does ex's where: condition w hold at vals (one a param)? The condition sees the params and
 * `answer`, the formula's value there (NaN where it has none): `where: answer <= 900`
 * keeps a variant's bandwidth within the links the lesson speaks of. CV_OK and *holds, or
 * CV_EINVAL with muParser's message. */
int ex_where_eval(const struct lesson_exercise *ex, size_t w, const double *vals, bool *holds,
                  char *err, size_t errlen);
/* Is answer the lecture's own (ex->answer): equal for a count, else within twice the
 * tolerance (at least 0.1%)? A variant never asks it: a student would recall, not compute. */
bool ex_lecture_answer(const struct lesson_exercise *ex, double answer);
/* CV_OK, or CV_EINVAL (message) when no draw meets the constraints. */
int ex_variant(const struct lesson_exercise *ex, uint64_t seed, struct ex_variant *v, char *err,
               size_t errlen);
/* Check a variant against everything its exercise declares: each param in its range, on its
 * step, one of its choices, an integer where declared; every where: condition; a finite
 * answer equal to the formula, a whole number where declared. CV_OK or CV_EINVAL naming the
 * first broken constraint. */
int ex_variant_check(const struct lesson_exercise *ex, const struct ex_variant *v, char *err,
                     size_t errlen);

/* Text an exercise shows (prompt, hint, solution line, wrong message) with its templates
 * filled from v (NULL = defaults): {name} is a param's value, {= expr} a formula over the
 * params and `answer` (muParser, as answers), written like ex_format_text_number. A {...}
 * that is neither stays as it is. The whole text, however long: a new string the caller
 * frees (a prompt is never cut). */
char *ex_text(const struct lesson_exercise *ex, const struct ex_variant *v, const char *text);
/* ex_text into buf (n bytes), for a line that must fit a fixed place (a grading message):
 * cut on a character boundary. */
void ex_text_format(const struct lesson_exercise *ex, const struct ex_variant *v,
                    const char *text, char *buf, size_t n);
/* CV_OK when every {= expr} of text evaluates at the defaults; else CV_EINVAL naming it. */
int ex_template_check(const struct lesson_exercise *ex, const char *text, char *err,
                      size_t errlen);
/* A computed number as a template writes it: whole numbers in full, others with 4
 * significant digits (419.4, 0.4286, 3.884e10, 1.5e-5). */
void ex_format_text_number(double x, char *buf, size_t n);

/* The prompt with its templates filled (ex_text; a {name} of a param is written like a
 * student would: 209715200, 3.5, 1e+09 as 1000000000): a new string the caller frees. */
char *ex_prompt(const struct lesson_exercise *ex, const struct ex_variant *v);
/* A number as the player and JSON show it: integers in full, others with up to 6
 * significant digits. */
void ex_format_number(double x, char *buf, size_t n);

/* ---- holds ------------------------------------------------------------------------------ */

/* What rank ex->rank holds after step ex->step of ex->scene: the rank's working buffer as
 * the screen shows it, its asked slots only (vals[0] is slot ex->slot_lo when ex->slots;
 * the whole buffer without). vals[i] and has[i] (false = the element holds no data yet,
 * shown "."); *len elements, at most cap. Built from plan_build + trace_run every time. */
int ex_holds_expected(const struct lesson_exercise *ex, float *vals, bool *has, size_t cap,
                      size_t *len, char *err, size_t errlen);

/* The phases of a holds exercise's scene: *nsteps, and for each phase its last step (1..)
 * and its name without the "k/n" count ("reduce-scatter", then "all-gather"). */
struct ex_phase {
    long end;
    char name[40];
};
int ex_holds_phases(const struct lesson_exercise *ex, long *nsteps, struct ex_phase *ph,
                    size_t max, size_t *nph, char *err, size_t errlen);

/* ---- grading ---------------------------------------------------------------------------- */

enum ex_verdict {
    EX_RIGHT,
    EX_WRONG,
    EX_WRONG_UNIT, /* a number in a unit of another dimension */
    EX_BAD_INPUT,  /* not an answer at all (empty, not a number, unknown unit, ...) */
};
const char *ex_verdict_name(enum ex_verdict v); /* "right", "wrong", "wrong unit", ... */

struct ex_grade {
    enum ex_verdict verdict;
    char msg[400]; /* one line for the student, e.g. "right: 419.4 GB/s" */
    /* what the mistake looks like, for scripts: "" (right, or nothing known), "listed" (an
     * exercise's own wrong: line), "power-of-ten", "power-of-1024" (the answer in another
     * unit), "gib-vs-gb", "param-unit" (one of the
     * question's numbers in a confused unit), "factor-w", "ring-factor", a formula's slip
     * (ex_formula_slip's codes), "scene-ranks", "other-plan-steps", "phase-short", "ring-steps"
     * (a question about steps), "factor-2", "bits-vs-bytes", "percent", "too-high",
     * "too-low", "option" (a wrong choice); holds: "input", "own-piece", "phase-short",
     * "ring-reversed", "other-rank", "op", "other-step" (a slip computed by the engine),
     * "order", "elements" (none of those) */
    char diagnosis[24];
    /* number: the value the named slip gives at the question's numbers (NAN: none named) */
    double slip;
};

/* Grade a student's answer. number: "419", "419.4 GB/s", "390 GiB/s", "0.02 s", "524,288",
 * "5.2e5", "3/7", "43%"; choice: "2" (1-based); holds: "60 64 68 72" or "60, 64, ., ."
 * ("." or "·" for an empty element). v: the variant asked (NULL = defaults; ignored for
 * choice and holds). A wrong number is checked against the exercise's wrong: lines, then
 * the usual slips (a power of ten, GiB for GB, a factor W, (W-1)/W or 2), before "too
 * high/low". The message echoes what the student typed (control bytes as '?'). */
int ex_grade(const struct lesson_exercise *ex, const struct ex_variant *v, const char *input,
             struct ex_grade *g);
/* A wrong answer said: g's verdict EX_WRONG, its diagnosis (struct ex_grade's words) and
 * the student's line, printf-style. Every grader's named mistakes are written with it. */
void ex_grade_wrong(struct ex_grade *g, const char *diagnosis, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A slip the exercise's own formula invites (slips.c), at the numbers of v (NULL: the
 * defaults): a term of a sum left out ("left-out-term"), a factor or a division of a
 * product left out, or adjacent factors in one param together ("left-out-factor"), a
 * product term of a sum counted twice ("twice-term"), every term of a sum divided by a
 * param only some of them are ("all-divided"), X where the formula has X - 1
 * ("minus-one"), one term of three or more alone ("only-term"), a count of the formula or
 * an integer param without a unit one more or fewer ("off-by-one"), a first part of the
 * product read in thousands, millions... ("partial-result"). value: what the
 * formula gives with the slip; msg: the slip in the question's numbers ("That leaves out
 * the term 4 × 1900 × 1900: the answer adds it to the rest"). */
struct ex_formula_slip {
    double value;
    char code[24];
    char msg[300];
};
/* The formula slips of ex at v whose value differs from the answer, each said once (two may
 * give one value): at most cap, outermost first. 0 for an exercise that is no number or a
 * formula this cannot read. */
size_t ex_formula_slips(const struct lesson_exercise *ex, const struct ex_variant *v,
                        struct ex_formula_slip *out, size_t cap);
/* How many of those slips give a value within near (relative, > 0) of v's answer: a slip
 * the grader would take for the answer. ex_variant draws again where there is one. */
size_t ex_formula_slips_near(const struct lesson_exercise *ex, const struct ex_variant *v,
                             double near);

/* Is a number exercise's answer (want) a fraction: no unit, no count, at most 1 in size?
 * A fraction is answered as a plain number ("0.43", "3/7"): "43%" is named a percent slip,
 * never accepted, as is "43" (the percent without its sign). */
bool ex_is_fraction(const struct lesson_exercise *ex, double want);

/* ---- predict first ---------------------------------------------------------------------- */

/* Does text (a slide's narration or title, as the student reads it) give away ex's answer
 * at its defaults? number: a number in text equal to the answer within its tolerance, read
 * in the unit written after it (one of the same kind, converted) or, with none, in the
 * exercise's unit; a number followed by a unit of another kind, a bare number in a list of
 * values ("6 10 14 18") and, for an answer with a unit, a number followed by another word
 * ("8 ranks") do not count. holds: the rank's values (at least three with data) as a run
 * of numbers in text, or its distinct computed values (not a whole number from -9 to 9,
 * not a scene input; at least three of them) each stated as a bare number anywhere in
 * text, in any order. choice: never. When
 * true, *found (size n) is the piece of text that shows it. */
bool ex_answer_in_text(const struct lesson_exercise *ex, const char *text, char *found,
                       size_t n);

/* Is ex's answer recognisable on another lesson's screen or in its text: a holds exercise's
 * values; a number exercise's answer with a unit (not a small whole one: "4 GPUs"), or a
 * count of four digits or more ("524288")? A small count or a fraction ("7 steps", "3/7")
 * is elsewhere something else. */
bool ex_answer_distinct(const struct lesson_exercise *ex);

/* Are holds exercise ex's asked values (those with data, in order) some rank's input in
 * scene sc (its boxes before step 1)? A slide gives its scene's inputs: a narration that
 * states them states no answer. */
bool ex_holds_is_input_of(const struct lesson_exercise *ex, const struct scene *sc);

/* Does text (a narration, or a slide's title) tell a choice exercise's right option
 * (told.c)? True when one sentence of it (a short tail after ':' or ';' kept with its
 * clause) restates the option: in words (at least two of
 * its words, not stopwords, stemmed: "ranks" is "rank", "plugged" "plug"; half of them or
 * more, one of them a word no wrong option has, more than any wrong option), or as a
 * phrase (three of its words or more, half of them, in its order: "one more layer of peak
 * memory"); or states the question's case with its answer (two of the prompt's words and
 * words only the right option has, four or more in all, more of its words than of any
 * wrong one's; a title: one of the prompt's words and half of the option's own, and it may
 * name a wrong one too). *found (size n): the sentence's start.
 * Not a choice: false. */
bool ex_choice_told(const struct lesson_exercise *ex, const char *text, bool title, char *found,
                    size_t n);
/* The first ".." of text that ends a word and a sentence (after a word, before a blank, a
 * quote, a bracket or the end): a doubled full stop; NULL when there is none. An ellipsis
 * ("...") and a range ("1..64", "10r .. 10r+3") are none. */
const char *ex_double_stop(const char *text);

/* A number written in words at s ("eighty", "eighty-three", "two hundred", "a thousand",
 * "a dozen"): *out, *ulp (the unit of its last stated digit: 10 for "eighty", 100 for "two
 * hundred") and *end after it; false when s starts no such number. */
bool ex_number_words(const char *s, double *out, double *ulp, const char **end);
/* How a number is hedged by the words just before p in text: "about 80", "≈ 400" (about),
 * "more than eighty", "over 100" (above), "less than", "nearly", "almost" (below), or none. */
enum ex_hedge { EX_HEDGE_NONE, EX_HEDGE_ABOUT, EX_HEDGE_ABOVE, EX_HEDGE_BELOW };
enum ex_hedge ex_hedge_before(const char *text, const char *p);
/* The unit of the last significant digit of the number written from s to end: 10 for "80",
 * 1 for "83", 0.1 for "1.6", 1000 for "2,000". */
double ex_number_ulp(const char *s, const char *end);
/* Does a number stated as `stated` to `ulp`, hedged by h, state answer? about (or none):
 * within half a ulp; above: answer in [stated, stated + ulp); below: (stated - ulp,
 * stated]. "more than eighty" states 83.3; "about 400" states 393. */
bool ex_hedged_match(enum ex_hedge h, double stated, double ulp, double answer);

#endif
