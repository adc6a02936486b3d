/* exercise_block.c - a slide's ```exercise blocks: one handler per key (number, choice and
 * holds exercises), the params and their ranges, the answer formula tried at the defaults
 * and at each range's ends (exercise.h evaluates it), and the holds exercises checked
 * against the slide's scene. Called by lesson.c. */
#include "lesson/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/util.h"
#include "lesson/exercise.h"

/* ---- exercise blocks -------------------------------------------------------------------- */

enum exkey {
    K_ID,
    K_TYPE,
    K_PROMPT,
    K_PARAM,
    K_ANSWER,
    K_UNITS,
    K_TOLERANCE,
    K_HINT,
    K_SOLUTION,
    K_OPTION,
    K_CORRECT,
    K_RANK,
    K_STEP,
    K_WHERE,
    K_WRONG,
    K_INTEGER,
    K_SLOTS,
    K_SHOWS,
    K_COUNT
};

/* A number that is k*step from base, for a whole k (up to rounding of decimal steps). */
static bool on_step(double x, double base, double step)
{
    double k = (x - base) / step;
    return fabs(k - round(k)) < 1e-6;
}

/* "A,B,C" (blanks allowed) into p->choices; false (error reported) when bad. */
static bool parse_choices(struct ctx *c, int line, const char *name, char *list,
                          struct lesson_param *p)
{
    p->nchoices = 0;
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        char num[64];
        double d;
        if (!lp_trim_copy(t, strlen(t), num, sizeof num) || !lp_parse_plain_number(num, &d)) {
            lp_perr(c, line, "param %s: bad choice '%.40s' (plain numbers separated by commas)",
                    name, t);
            return false;
        }
        if (p->nchoices >= LESSON_MAX_CHOICES) {
            lp_perr(c, line, "param %s: more than %d choices", name, LESSON_MAX_CHOICES);
            return false;
        }
        p->choices[p->nchoices++] = d;
    }
    if (p->nchoices < 2) {
        lp_perr(c, line, "param %s: choices: needs at least two values", name);
        return false;
    }
    return true;
}

/* The clauses after a param's value: range LO..HI, step S, integer, choices: A,B,C (last,
 * it takes the rest of the line). */
static bool parse_param_clauses(struct ctx *c, int line, const char *name, char *rest,
                                struct lesson_param *p, bool *explicit_int)
{
    char *ch = strstr(rest, "choices");
    if (ch) {
        char *list = ch + 7;
        *ch = '\0';
        while (*list == ' ' || *list == ':')
            list++;
        if (!parse_choices(c, line, name, list, p)) return false;
    }
    bool have_range = false;
    for (char *save = NULL, *t = strtok_r(rest, " \t", &save); t;
         t = strtok_r(NULL, " \t", &save)) {
        if (strcmp(t, "integer") == 0) {
            *explicit_int = true;
        } else if (strcmp(t, "range") == 0 || strcmp(t, "step") == 0) {
            bool range = t[0] == 'r';
            char *arg = strtok_r(NULL, " \t", &save);
            char *dots = arg && range ? strstr(arg, "..") : NULL;
            if (range && dots) {
                *dots = '\0';
                if (!lp_parse_plain_number(arg, &p->lo) ||
                    !lp_parse_plain_number(dots + 2, &p->hi)) {
                    lp_perr(c, line, "param %s: bad range '%s..%s' (plain numbers)", name, arg,
                            dots + 2);
                    return false;
                }
                have_range = true;
            } else if (!range && arg && lp_parse_plain_number(arg, &p->step) && p->step > 0) {
                /* a step */
            } else {
                lp_perr(c, line, "param %s: bad %s (expected %s)", name, t,
                        range ? "'range LO..HI'" : "'step S', S > 0");
                return false;
            }
        } else {
            lp_perr(c, line,
                    "param %s: unknown '%.40s' (range LO..HI, step S, integer, choices: A,B)",
                    name, t);
            return false;
        }
    }
    if (have_range && p->nchoices) {
        lp_perr(c, line, "param %s: give a range or choices, not both", name);
        return false;
    }
    if (p->step > 0 && !have_range) {
        lp_perr(c, line, "param %s: step needs a range", name);
        return false;
    }
    if (p->nchoices) {
        p->lo = p->hi = p->choices[0];
        bool found = false;
        for (size_t i = 0; i < p->nchoices; i++) {
            p->lo = fmin(p->lo, p->choices[i]);
            p->hi = fmax(p->hi, p->choices[i]);
            found |= p->choices[i] == p->value;
        }
        if (!found) {
            lp_perr(c, line, "param %s: value %g is not one of its choices", name, p->value);
            return false;
        }
    }
    p->ranged = have_range || p->nchoices;
    return true;
}

/* "NAME = VALUE [range LO..HI] [step S] [integer] [choices: A,B,C]" */
static bool parse_param(struct ctx *c, int line, const char *v, struct lesson_param *p)
{
    char buf[LESSON_MAX_LINE_BYTES + 1];
    snprintf(buf, sizeof buf, "%s", v);
    char *eq = strchr(buf, '=');
    if (!eq) {
        lp_perr(c, line, "param: expected 'NAME = VALUE' or 'NAME = VALUE range LO..HI'");
        return false;
    }
    *eq = '\0';
    char name[64];
    bool fits = lp_trim_copy(buf, strlen(buf), name, sizeof name);
    if (!fits || strlen(name) >= sizeof p->name) {
        char shown[40];
        const char *b = buf + strspn(buf, " \t");
        snprintf(shown, sizeof shown, "%.24s", b);
        lp_perr(c, line, "param: name '%s...' too long (at most %zu characters)", shown,
                sizeof p->name - 1);
        return false;
    }
    if (!name[0]) {
        lp_perr(c, line, "param: no name before '='");
        return false;
    }
    /* lower case as the format says, and upper case too: the lecture names its sizes
     * L, B and D */
    bool ok = isalpha((unsigned char)name[0]) || name[0] == '_';
    for (const char *q = name; *q; q++)
        if (!(isalnum((unsigned char)*q) || *q == '_') || (unsigned char)*q >= 0x80) ok = false;
    if (!ok || strcmp(name, "answer") == 0) {
        lp_perr(c, line,
                "param: bad name '%s' (letters, digits, '_', not starting with a digit; not "
                "'answer')",
                name);
        return false;
    }
    char *rest = eq + 1;
    while (*rest == ' ' || *rest == '\t')
        rest++;
    char val[128];
    size_t vl = strcspn(rest, " \t");
    if (vl >= sizeof val ||
        (memcpy(val, rest, vl), val[vl] = '\0', !lp_parse_plain_number(val, &p->value))) {
        lp_perr(c, line, "param %s: bad value '%.60s' (a plain number)", name, rest);
        return false;
    }
    p->lo = p->hi = p->value;
    p->ranged = false;
    p->step = 0;
    p->nchoices = 0;
    bool explicit_int = false;
    if (!parse_param_clauses(c, line, name, rest + vl, p, &explicit_int)) return false;
    if (p->ranged && !p->nchoices && !(p->lo <= p->value && p->value <= p->hi)) {
        lp_perr(c, line, "param %s: value %s is not within its range %g..%g", name, val, p->lo,
                p->hi);
        return false;
    }
    if (p->step > 0 &&
        (!on_step(p->value, p->lo, p->step) || !on_step(p->hi, p->lo, p->step))) {
        lp_perr(c, line, "param %s: value and range ends must be LO + k*step (step %g)", name,
                p->step);
        return false;
    }
    bool ints = lp_is_integer(p->value) && lp_is_integer(p->lo) && lp_is_integer(p->hi) &&
                (p->step == 0 || lp_is_integer(p->step));
    for (size_t i = 0; i < p->nchoices; i++)
        ints = ints && lp_is_integer(p->choices[i]);
    if (explicit_int && !ints) {
        lp_perr(c, line,
                "param %s: declared integer but its value, range, step or choices are not",
                name);
        return false;
    }
    memcpy(p->name, name, strlen(name) + 1); /* shorter than p->name: checked above */
    p->integer = ints;
    p->line = line;
    return true;
}

/* Evaluate e's formula at vals; on failure or a non-finite value, an error naming them. */
static bool formula_at(struct ctx *c, struct lesson_exercise *e, const double *vals, double *r)
{
    const char *names[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < e->nparams; i++)
        names[i] = e->params[i].name;
    char err[200];
    if (ex_formula_eval(e->formula, names, vals, e->nparams, r, err, sizeof err) != CV_OK) {
        lp_perr(c, e->answer_line, "answer: %s", err);
        return false;
    }
    if (isfinite(*r)) return true;
    char where[320] = "";
    size_t wl = 0;
    for (size_t j = 0; j < e->nparams; j++) {
        int k =
            snprintf(where + wl, sizeof where - wl, "%s%s=%g", j ? " " : "", names[j], vals[j]);
        if (k < 0 || (size_t)k >= sizeof where - wl) break;
        wl += (size_t)k;
    }
    lp_perr(c, e->answer_line, "answer: not a finite number (%g) at %s", *r,
            e->nparams ? where : "the defaults");
    return false;
}

/* Do vals meet e's where: conditions? A condition muParser refuses is an error (*bad). */
static bool where_holds(struct ctx *c, struct lesson_exercise *e, const double *vals, bool *bad)
{
    for (size_t w = 0; w < e->nwhere; w++) {
        bool ok = false;
        char err[200];
        if (ex_where_eval(e, w, vals, &ok, err, sizeof err) != CV_OK) {
            lp_perr(c, e->where_line[w], "where: %s", err);
            *bad = true;
            return false;
        }
        if (!ok) return false;
    }
    return true;
}

/* The answer at the defaults (which must meet every where: and, for an integer answer, be
 * whole), at each range's two ends (the others at their defaults), and with every ranged
 * param at its low end, then at its high end: all must be finite where the where:
 * conditions hold. The wrong: formulas must be finite at the defaults. */
static bool check_formula(struct ctx *c, struct lesson_exercise *e)
{
    double vals[LESSON_MAX_PARAMS], r;
    size_t n = e->nparams;
    bool bad = false;
    for (size_t j = 0; j < n; j++)
        vals[j] = e->params[j].value;
    if (!formula_at(c, e, vals, &r)) return false;
    e->answer = r;
    if (!where_holds(c, e, vals, &bad)) {
        if (!bad) lp_perr(c, e->line, "exercise: the defaults break a where: condition");
        return false;
    }
    if (e->integer && !(fabs(r - round(r)) <= 1e-9 * fmax(1.0, fabs(r)))) {
        lp_perr(c, e->answer_line,
                "answer: %g at the defaults, but the exercise says integer: yes", r);
        return false;
    }
    if (e->integer) e->answer = round(r);
    const char *names[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < n; i++)
        names[i] = e->params[i].name;
    for (size_t w = 0; w < e->nwrong; w++) {
        double t;
        char err[200];
        if (ex_formula_eval(e->wrong[w].formula, names, vals, n, &t, err, sizeof err) !=
            CV_OK) {
            lp_perr(c, e->wrong[w].line, "wrong: %s", err);
            return false;
        }
        if (!isfinite(t)) {
            lp_perr(c, e->wrong[w].line, "wrong: not a finite number at the defaults");
            return false;
        }
    }
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!e->params[i].ranged) continue;
        any = true;
        for (int end = 0; end < 2; end++) {
            for (size_t j = 0; j < n; j++)
                vals[j] = e->params[j].value;
            vals[i] = end ? e->params[i].hi : e->params[i].lo;
            if (where_holds(c, e, vals, &bad) && !formula_at(c, e, vals, &r)) return false;
            if (bad) return false;
        }
    }
    for (int end = 0; any && end < 2; end++) {
        for (size_t j = 0; j < n; j++)
            vals[j] = !e->params[j].ranged ? e->params[j].value
                      : end                ? e->params[j].hi
                                           : e->params[j].lo;
        if (where_holds(c, e, vals, &bad) && !formula_at(c, e, vals, &r)) return false;
        if (bad) return false;
    }
    return true;
}

/* Every {= expr} template an exercise shows must evaluate at its defaults. */
static bool check_templates(struct ctx *c, struct lesson_exercise *e, const int *key_line)
{
    char err[300];
    bool ok = true;
    if (ex_template_check(e, e->prompt, err, sizeof err) != CV_OK)
        lp_perr(c, key_line[K_PROMPT], "prompt: %s", err), ok = false;
    for (size_t i = 0; i < e->nhints; i++)
        if (ex_template_check(e, e->hints[i], err, sizeof err) != CV_OK)
            lp_perr(c, key_line[K_HINT], "hint %zu: %s", i + 1, err), ok = false;
    if (ex_template_check(e, e->solution, err, sizeof err) != CV_OK)
        lp_perr(c, key_line[K_SOLUTION], "solution: %s", err), ok = false;
    for (size_t i = 0; i < e->nwrong; i++)
        if (ex_template_check(e, e->wrong[i].msg, err, sizeof err) != CV_OK)
            lp_perr(c, e->wrong[i].line, "wrong: %s", err), ok = false;
    for (size_t i = 0; i < e->noptions; i++)
        if (e->option_why[i] &&
            ex_template_check(e, e->option_why[i], err, sizeof err) != CV_OK)
            lp_perr(c, key_line[K_OPTION], "option %zu: %s", i + 1, err), ok = false;
    return ok;
}

/* What lp_parse_exercise gathers while it reads an exercise block's lines. */
struct exparse {
    struct ctx *c;
    struct lesson_exercise e;
    struct vec_buf prompt, solution;
    size_t hcap, ocap;
};

/* One key's value handler: val is the value (NUL-terminated, vn bytes, the handler may cut
 * it), line its line; false when the value is bad (the handler has said why). */
typedef bool exkey_fn(struct exparse *p, int line, char *val, size_t vn);

/* id: the exercise's name, for grading and the player. */
static bool ex_key_id(struct exparse *p, int line, char *val, size_t vn)
{
    if (!lp_valid_id(val)) {
        lp_perr(p->c, line, "exercise: bad id '%s' (letters a-z, digits, '-')", val);
        return false;
    }
    memcpy(p->e.id, val, strlen(val) + 1); /* lp_valid_id: shorter than e.id */
    return true;
}

/* type: already read by exercise_type; here only an unknown one is refused. */
static bool ex_key_type(struct exparse *p, int line, char *val, size_t vn)
{
    if (p->e.type != LEX_TYPE_COUNT) return true;
    lp_perr(p->c, line, "exercise: bad type '%s' (number, choice or holds)", val);
    return false;
}

/* prompt: lines join with a space into one paragraph. */
static bool ex_key_prompt(struct exparse *p, int line, char *val, size_t vn)
{
    if (p->prompt.len) vec_buf_puts(&p->prompt, " ");
    vec_buf_puts(&p->prompt, val);
    return true;
}

/* param: one named parameter (default, range, step), each name once. */
static bool ex_key_param(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    if (e->nparams >= LESSON_MAX_PARAMS) {
        lp_perr(p->c, line, "exercise: too many params (at most %d)", LESSON_MAX_PARAMS);
        return false;
    }
    if (!parse_param(p->c, line, val, &e->params[e->nparams])) return false;
    for (size_t i = 0; i < e->nparams; i++)
        if (strcmp(e->params[i].name, e->params[e->nparams].name) == 0) {
            lp_perr(p->c, line, "param %s given twice (first at line %d)", e->params[i].name,
                    e->params[i].line);
            return false;
        }
    e->nparams++;
    return true;
}

/* A formula of key (answer:, where:, wrong:) is one value: muParser reads "1,2" as two
 * results and keeps the last, so a comma belongs inside a function's parentheses only.
 * False after the error at line. */
static bool one_value(struct exparse *p, int line, const char *key, const char *val)
{
    int depth = 0;
    for (size_t i = 0; val[i]; i++) {
        depth += val[i] == '(' ? 1 : val[i] == ')' ? -1 : 0;
        if (val[i] == ',' && depth <= 0) {
            lp_perr(p->c, line,
                    "%s: '%s' is more than one value (a comma only separates a function's "
                    "arguments, as in min(a, b))",
                    key, val);
            return false;
        }
    }
    return true;
}

/* answer: the formula, checked and evaluated later in check_formula. */
static bool ex_key_answer(struct exparse *p, int line, char *val, size_t vn)
{
    p->e.answer_line = line;
    if (!one_value(p, line, "answer", val)) return false;
    if (vn > LESSON_MAX_FORMULA) {
        lp_perr(p->c, line, "answer: formula too long (%zu characters; at most %d)", vn,
                LESSON_MAX_FORMULA);
        return false;
    }
    memcpy(p->e.formula, val, vn + 1);
    return true;
}

/* units: one of ex_unit_lookup's units, kept in its canonical spelling. */
static bool ex_key_units(struct exparse *p, int line, char *val, size_t vn)
{
    enum ex_dim dim;
    double scale;
    const char *canon;
    if (ex_unit_lookup(val, &dim, &scale, &canon) != CV_OK) {
        lp_perr(p->c, line,
                "units: unknown unit '%s' (GB/s GiB/s MB/s MiB/s TB/s Gb/s, s ms us ns, "
                "B KB MB GB TB KiB MiB GiB TiB, x)",
                val);
        return false;
    }
    snprintf(p->e.units, sizeof p->e.units, "%s", canon);
    return true;
}

/* tolerance: a percentage in (0, 100]. */
static bool ex_key_tolerance(struct exparse *p, int line, char *val, size_t vn)
{
    double t;
    char num[LESSON_MAX_LINE_BYTES + 1];
    memcpy(num, val, vn + 1);
    size_t n = strlen(num);
    if (n < 2 || num[n - 1] != '%' || (num[n - 1] = '\0', !lp_parse_plain_number(num, &t)) ||
        !(t > 0 && t <= 100)) {
        lp_perr(p->c, line, "tolerance: bad value '%.*s' (a percentage, e.g. 1%%)", (int)vn,
                val);
        return false;
    }
    p->e.tolerance = t / 100.0;
    return true;
}

/* hint: one more hint, shown in order. */
static bool ex_key_hint(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    if (e->nhints >= LESSON_MAX_HINTS) {
        lp_perr(p->c, line, "exercise: too many hints (at most %d)", LESSON_MAX_HINTS);
        return false;
    }
    /* each hint: line is one hint, shown alone; a line that goes on with the previous
     * hint's sentence (it ended without a stop, this one starts in lower case) would show
     * the student half a sentence */
    if (e->nhints > 0 && islower((unsigned char)val[0])) {
        const char *h = e->hints[e->nhints - 1];
        size_t n = strlen(h);
        while (n && h[n - 1] == ' ')
            n--;
        /* a line the author wrapped: long, or ending in a comma or semicolon ("bytes
         * first" then "then the factor" are two short hints) */
        if (n && !strchr(".!?:)", h[n - 1]) && (n >= 60 || strchr(",;", h[n - 1]))) {
            lp_perr(p->c, line,
                    "hint: this line goes on with the previous hint's sentence: each hint: "
                    "line is one hint, shown alone (write the hint on one line)");
            return false;
        }
    }
    VEC_GROW(e->hints, p->hcap, e->nhints + 1);
    e->hints[e->nhints++] = xstrdup(val);
    return true;
}

/* solution: lines join with newlines (an empty one is a paragraph break). */
static bool ex_key_solution(struct exparse *p, int line, char *val, size_t vn)
{
    if (p->solution.s) vec_buf_puts(&p->solution, "\n");
    vec_buf_puts(&p->solution, val);
    return true;
}

/* option: "text | why it is wrong", the why optional. */
static bool ex_key_option(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    bool ok = true;
    if (e->noptions >= LESSON_MAX_OPTIONS) {
        lp_perr(p->c, line, "exercise: too many options (at most %d)", LESSON_MAX_OPTIONS);
        return false;
    }
    VEC_GROW(e->options, p->ocap, e->noptions + 1);
    e->option_why = xrealloc(e->option_why, p->ocap * sizeof *e->option_why);
    char *bar = strstr(val, " | ");
    char text[LESSON_MAX_LINE_BYTES + 1], why[LESSON_MAX_LINE_BYTES + 1] = "";
    if (bar) {
        *bar = '\0';
        lp_trim_copy(bar + 3, strlen(bar + 3), why, sizeof why);
    }
    lp_trim_copy(val, strlen(val), text, sizeof text);
    if (!text[0]) {
        lp_perr(p->c, line, "option: empty text before ' | '");
        ok = false;
    }
    e->option_why[e->noptions] = why[0] ? xstrdup(why) : NULL;
    e->options[e->noptions++] = xstrdup(text);
    return ok;
}

/* where: one condition the params must meet, checked later in check_formula. */
static bool ex_key_where(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    if (e->nwhere >= LESSON_MAX_WHERE) {
        lp_perr(p->c, line, "exercise: too many where: lines (at most %d)", LESSON_MAX_WHERE);
        return false;
    }
    if (vn > LESSON_MAX_FORMULA) {
        lp_perr(p->c, line, "where: condition too long (at most %d characters)",
                LESSON_MAX_FORMULA);
        return false;
    }
    if (!one_value(p, line, "where", val)) return false;
    e->where_line[e->nwhere] = line;
    memcpy(e->where[e->nwhere++], val, vn + 1);
    return true;
}

/* wrong: "VALUE | message", a likely wrong answer and what it means. */
static bool ex_key_wrong(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    char *bar = strstr(val, " | ");
    char f[LESSON_MAX_LINE_BYTES + 1], m[LESSON_MAX_LINE_BYTES + 1] = "";
    if (bar) {
        *bar = '\0';
        lp_trim_copy(bar + 3, strlen(bar + 3), m, sizeof m);
    }
    lp_trim_copy(val, strlen(val), f, sizeof f);
    if (e->nwrong >= LESSON_MAX_WRONG) {
        lp_perr(p->c, line, "exercise: too many wrong: lines (at most %d)", LESSON_MAX_WRONG);
        return false;
    }
    if (!bar || !f[0] || !m[0]) {
        lp_perr(p->c, line,
                "wrong: expected 'VALUE | message' (VALUE: a formula over the "
                "params, in the exercise's units)");
        return false;
    }
    if (strlen(f) > LESSON_MAX_FORMULA) {
        lp_perr(p->c, line, "wrong: formula too long (at most %d characters)",
                LESSON_MAX_FORMULA);
        return false;
    }
    if (!one_value(p, line, "wrong", f)) return false;
    struct lesson_wrong *w = &e->wrong[e->nwrong++];
    memcpy(w->formula, f, strlen(f) + 1);
    w->msg = xstrdup(m);
    w->line = line;
    return true;
}

/* slots: the slot A, or the slots A..B, a holds answer may name. */
static bool ex_key_slots(struct exparse *p, int line, char *val, size_t vn)
{
    long lo, hi;
    char *dots = strstr(val, "..");
    if (dots) *dots = '\0';
    if (parse_long(val, 0, 1L << 16, &lo) != CV_OK ||
        (dots ? parse_long(dots + 2, lo, 1L << 16, &hi) : (hi = lo, CV_OK)) != CV_OK) {
        lp_perr(p->c, line, "slots: bad value (a slot number A or a range A..B, A <= B)");
        return false;
    }
    p->e.slots = true;
    p->e.slot_lo = (int)lo;
    p->e.slot_hi = (int)hi;
    return true;
}

/* shows: a phrase the scene says once it tells a choice's right option, or `nothing`. */
static bool ex_key_shows(struct exparse *p, int line, char *val, size_t vn)
{
    struct lesson_exercise *e = &p->e;
    char t[LESSON_MAX_LINE_BYTES + 1];
    lp_trim_copy(val, vn, t, sizeof t);
    bool nothing = strcmp(t, "nothing") == 0;
    if (nothing ? e->nshows > 0 : e->shows_line && !e->nshows) {
        lp_perr(p->c, line, "shows: `nothing` and a phrase both (the scene tells it or not)");
        return false;
    }
    if (!e->shows_line) e->shows_line = line;
    if (nothing) return true;
    if (e->nshows >= LESSON_MAX_SHOWS) {
        lp_perr(p->c, line, "exercise: too many shows: lines (at most %d)", LESSON_MAX_SHOWS);
        return false;
    }
    if (strlen(t) < 3 || strlen(t) >= LESSON_SHOWS_BYTES) {
        lp_perr(p->c, line, "shows: a phrase of 3..%d bytes, as the screen writes it",
                LESSON_SHOWS_BYTES - 1);
        return false;
    }
    memcpy(e->shows[e->nshows++], t, strlen(t) + 1);
    return true;
}

/* integer: yes or no, whether the answer is a whole number. */
static bool ex_key_integer(struct exparse *p, int line, char *val, size_t vn)
{
    if (strcmp(val, "yes") == 0)
        p->e.integer = true;
    else if (strcmp(val, "no") != 0) {
        lp_perr(p->c, line, "integer: bad value '%s' (yes or no)", val);
        return false;
    }
    return true;
}

/* correct: the number of the right option. */
static bool ex_key_correct(struct exparse *p, int line, char *val, size_t vn)
{
    long n;
    if (parse_long(val, 1, LESSON_MAX_OPTIONS, &n) != CV_OK) {
        lp_perr(p->c, line, "correct: bad value '%s' (the number of an option, 1..%d)", val,
                LESSON_MAX_OPTIONS);
        return false;
    }
    p->e.correct = (int)n;
    return true;
}

/* rank: the rank whose buffer a holds exercise asks about. */
static bool ex_key_rank(struct exparse *p, int line, char *val, size_t vn)
{
    long n;
    if (parse_long(val, 0, CV_MAX_RANKS - 1, &n) != CV_OK) {
        lp_perr(p->c, line, "rank: bad value '%s' (0..%d)", val, CV_MAX_RANKS - 1);
        return false;
    }
    p->e.rank = (int)n;
    return true;
}

/* step: the scene step a holds exercise asks about, a number or end. */
static bool ex_key_step(struct exparse *p, int line, char *val, size_t vn)
{
    long n;
    if (strcmp(val, "end") == 0)
        p->e.step = SCENE_STEP_END;
    else if (parse_long(val, 0, 1L << 20, &n) == CV_OK)
        p->e.step = n;
    else {
        lp_perr(p->c, line, "step: bad value '%s' (a step number or end)", val);
        return false;
    }
    return true;
}

/* The keys of an exercise block: may it repeat, does every type have it (else the types
 * that list it in their ops: lesson/types/), who reads its value. */
static const struct {
    const char *name;
    bool repeat;
    bool every; /* a key of every exercise */
    exkey_fn *fn;
} exkeys[K_COUNT] = {
    [K_ID] = {"id", false, true, ex_key_id},
    [K_TYPE] = {"type", false, true, ex_key_type},
    [K_PROMPT] = {"prompt", true, true, ex_key_prompt},
    [K_PARAM] = {"param", true, false, ex_key_param},
    [K_ANSWER] = {"answer", false, false, ex_key_answer},
    [K_UNITS] = {"units", false, false, ex_key_units},
    [K_TOLERANCE] = {"tolerance", false, false, ex_key_tolerance},
    [K_HINT] = {"hint", true, true, ex_key_hint},
    [K_SOLUTION] = {"solution", true, true, ex_key_solution},
    [K_OPTION] = {"option", true, false, ex_key_option},
    [K_CORRECT] = {"correct", false, false, ex_key_correct},
    [K_RANK] = {"rank", false, false, ex_key_rank},
    [K_STEP] = {"step", false, false, ex_key_step},
    [K_WHERE] = {"where", true, false, ex_key_where},
    [K_WRONG] = {"wrong", true, false, ex_key_wrong},
    [K_INTEGER] = {"integer", false, false, ex_key_integer},
    [K_SLOTS] = {"slots", false, false, ex_key_slots},
    [K_SHOWS] = {"shows", true, false, ex_key_shows},
};

/* The block's type: its first type: line, LEX_TYPE_COUNT if none or unknown. */
static enum lesson_ex_type exercise_type(struct ctx *c, size_t first, size_t last)
{
    enum lesson_ex_type type = LEX_TYPE_COUNT;
    int type_line = 0;
    for (size_t li = first; li < last; li++) {
        struct line l = lp_get_line(c, li);
        char key[32];
        const char *v;
        size_t vn;
        if (lp_split_kv(&l, key, sizeof key, &v, &vn) && strcmp(key, "type") == 0 &&
            !type_line) {
            type_line = l.no;
            for (int t = 0; t < LEX_TYPE_COUNT; t++)
                if (vn == strlen(lesson_ex_type_name((enum lesson_ex_type)t)) &&
                    memcmp(v, lesson_ex_type_name((enum lesson_ex_type)t), vn) == 0)
                    type = (enum lesson_ex_type)t;
        }
    }
    return type;
}

/* One line of the block: check its key, then hand its value to the key's handler. False
 * when the line is bad. */
static bool exercise_line(struct exparse *p, size_t li, int *key_line)
{
    struct ctx *c = p->c;
    struct line l = lp_get_line(c, li);
    if (lp_is_blank(l.s, l.n)) return true;
    size_t ind = 0;
    while (ind < l.n && (l.s[ind] == ' ' || l.s[ind] == '\t'))
        ind++;
    if (l.s[ind] == '#') return true;
    char key[32];
    const char *v;
    size_t vn;
    if (!lp_split_kv(&l, key, sizeof key, &v, &vn)) {
        lp_perr(c, l.no, "exercise: expected 'key: value'");
        return false;
    }
    int k = -1;
    for (int i = 0; i < K_COUNT; i++)
        if (strcmp(key, exkeys[i].name) == 0) k = i;
    if (k < 0) {
        lp_perr(c, l.no, "exercise: unknown key '%s'", key);
        return false;
    }
    if (key_line[k] && !exkeys[k].repeat) {
        lp_perr(c, l.no, "exercise: key '%s' given twice (first at line %d)", key, key_line[k]);
        return false;
    }
    if (!key_line[k]) key_line[k] = l.no;
    if (p->e.type != LEX_TYPE_COUNT && !exkeys[k].every &&
        !ex_type_has_key((int)p->e.type, exkeys[k].name)) {
        lp_perr(c, l.no, "exercise: '%s' is not a key of a %s exercise", key,
                lesson_ex_type_name(p->e.type));
        return false;
    }
    char val[LESSON_MAX_LINE_BYTES + 1];
    memcpy(val, v, vn);
    val[vn] = '\0';
    if (!val[0] && k != K_SOLUTION && k != K_UNITS) {
        lp_perr(c, l.no, "exercise: empty value for '%s'", key);
        return false;
    }
    return exkeys[k].fn(p, l.no, val, vn);
}

/* The keys every exercise, and each type, must have; for a number, its formula checks.
 * False when one is missing or wrong (each said at the block's opening line). */
static bool exercise_complete(struct ctx *c, struct lesson_exercise *e, const int *key_line,
                              int open)
{
    bool bad = false;
    static const int common_req[] = {K_ID, K_TYPE, K_PROMPT};
    for (size_t i = 0; i < ARRAY_LEN(common_req); i++)
        if (!key_line[common_req[i]]) {
            lp_perr(c, open, "exercise: missing '%s:'", exkeys[common_req[i]].name);
            bad = true;
        }
    if (e->type == LEX_TYPE_COUNT) return !bad;
    int t = (int)e->type;
    if (ex_type_has_key(t, "option") && e->noptions < LESSON_MIN_OPTIONS) {
        lp_perr(c, open, "exercise: a choice needs %d..%d 'option:' lines (has %zu)",
                LESSON_MIN_OPTIONS, LESSON_MAX_OPTIONS, e->noptions);
        bad = true;
    }
    for (int k = 0; k < K_COUNT; k++)
        if (!exkeys[k].every && !key_line[k] && ex_type_requires(t, exkeys[k].name)) {
            lp_perr(c, open, "exercise: missing '%s:'", exkeys[k].name);
            bad = true;
        }
    if (ex_type_has_key(t, "correct") && key_line[K_CORRECT] && e->correct > (int)e->noptions &&
        e->noptions >= LESSON_MIN_OPTIONS) {
        lp_perr(c, key_line[K_CORRECT], "correct: %d but there are %zu options", e->correct,
                e->noptions);
        bad = true;
    }
    if (ex_type_has_key(t, "answer") && !bad && e->formula[0]) bad = !check_formula(c, e);
    return !bad;
}

/* Free what an exercise that is not kept holds. */
static void exercise_free(struct lesson_exercise *e)
{
    for (size_t i = 0; i < e->nhints; i++)
        free(e->hints[i]);
    for (size_t i = 0; i < e->noptions; i++) {
        free(e->options[i]);
        free(e->option_why[i]);
    }
    for (size_t i = 0; i < e->nwrong; i++)
        free(e->wrong[i].msg);
    free(e->hints);
    free(e->options);
    free(e->option_why);
    free(e->prompt);
    free(e->solution);
}

/* Lines first..last (exclusive) of an ```exercise block opened at line open. */
void lp_parse_exercise(struct ctx *c, struct lesson_slide *S, size_t si, size_t first,
                       size_t last, int open, size_t *excap)
{
    struct exparse p = {.c = c};
    struct lesson_exercise *e = &p.e;
    e->line = open;
    e->slide = si;
    e->tolerance = 0.01;
    e->step = 0;
    int key_line[K_COUNT] = {0};
    bool bad = false;
    /* first the type, so every key can be checked against it */
    e->type = exercise_type(c, first, last);
    for (size_t li = first; li < last; li++)
        if (!exercise_line(&p, li, key_line)) bad = true;
    e->prompt = p.prompt.s ? vec_buf_take(&p.prompt) : NULL;
    e->solution = p.solution.s ? vec_buf_take(&p.solution) : NULL;
    /* required keys, at the block's opening line */
    if (!exercise_complete(c, e, key_line, open)) bad = true;
    if (!bad) bad = !check_templates(c, e, key_line);
    if (S->nex >= LESSON_MAX_EXERCISES) {
        lp_perr(c, open, "too many exercises on one slide (at most %d)", LESSON_MAX_EXERCISES);
        bad = true;
    }
    if (bad) {
        /* the slide is not kept either: free this exercise now */
        exercise_free(e);
        return;
    }
    VEC_GROW(S->ex, *excap, S->nex + 1);
    S->ex[S->nex++] = p.e;
}

/* holds exercises need the slide's scene (which may come after them on the slide); every
 * exercise learns how many ranks it has */
void lp_check_holds(struct ctx *c, struct lesson_slide *S)
{
    for (size_t i = 0; i < S->nex; i++) {
        struct lesson_exercise *e = &S->ex[i];
        e->scene_ranks = S->has_scene ? S->scene.nranks : 0;
        if (e->type != LEX_HOLDS) continue;
        if (!S->has_scene) {
            lp_perr(c, e->line, "holds: the slide has no ```scene block to ask about");
            continue;
        }
        if (S->scene.screen != SCREEN_COLLECTIVES) {
            lp_perr(c, e->line, "holds: the slide's scene is not a collectives scene");
            continue;
        }
        if (e->rank >= S->scene.nranks) {
            lp_perr(c, e->line, "holds: rank %d but the scene has %d ranks (0..%d)", e->rank,
                    S->scene.nranks, S->scene.nranks - 1);
            continue;
        }
        e->scene = S->scene;
        struct plan p;
        char err[200];
        size_t count = scene_count(&S->scene);
        int root = coll_is_rooted(S->scene.coll) ? S->scene.root : 0;
        if (scene_plan_build(&S->scene, &p, count, root, err, sizeof err) != CV_OK) {
            lp_perr(c, e->line, "holds: %s", err);
            continue;
        }
        if (e->step != SCENE_STEP_END && (size_t)e->step > p.nsteps)
            lp_perr(c, e->line, "holds: step %ld but the scene's plan has %zu steps", e->step,
                    p.nsteps);
        if (e->slots && (size_t)e->slot_hi >= p.work_len)
            lp_perr(c, e->line,
                    "holds: slots up to %d but rank %d's box has %zu elements (0..%zu)",
                    e->slot_hi, e->rank, p.work_len, p.work_len - 1);
        plan_free(&p);
    }
}
