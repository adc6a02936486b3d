/* exercise.c - formulas (muParser's C API), units, variants and grading of lesson exercises.
 *
 * A formula sees only its exercise's params and a short list of functions: muParser's own
 * functions and constants are cleared and ours defined, and the parser (exercise_block.c)
 * refuses characters for assignment, comparison and strings, so a formula computes a number and
 * nothing else. Holds answers are never stored: ex_holds_expected builds the plan of the
 * slide's scene and runs the trace engine to the asked step, every time. */
#include "lesson/exercise.h"

#include <ctype.h>
#include <math.h>
#include <muParserDLL.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/init.h"
#include "core/plan.h"
#include "core/trace.h"
#include "core/rng.h"
#include "core/util.h"
#include "core/vec.h"
#include "lesson/types/types.h"

/* ---- formulas --------------------------------------------------------------------------- */

static muFloat_t f_sqrt(muFloat_t x)
{
    return sqrt(x);
}
static muFloat_t f_log2(muFloat_t x)
{
    return log2(x);
}
static muFloat_t f_ln(muFloat_t x)
{
    return log(x);
}
static muFloat_t f_exp(muFloat_t x)
{
    return exp(x);
}
static muFloat_t f_abs(muFloat_t x)
{
    return fabs(x);
}
static muFloat_t f_floor(muFloat_t x)
{
    return floor(x);
}
static muFloat_t f_ceil(muFloat_t x)
{
    return ceil(x);
}
static muFloat_t f_round(muFloat_t x)
{
    return round(x);
}
static muFloat_t f_min(const muFloat_t *v, muInt_t n)
{
    muFloat_t m = n > 0 ? v[0] : NAN;
    for (muInt_t i = 1; i < n; i++)
        if (v[i] < m) m = v[i];
    return m;
}
static muFloat_t f_max(const muFloat_t *v, muInt_t n)
{
    muFloat_t m = n > 0 ? v[0] : NAN;
    for (muInt_t i = 1; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

static muFloat_t f_mod(muFloat_t a, muFloat_t b)
{
    return fmod(a, b);
}

/* The characters a formula may hold; a condition may also compare and combine. A lone '='
 * (muParser's assignment) is refused. */
static int formula_chars(const char *f, bool cond, char *err, size_t errlen)
{
    for (const char *p = f; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x80 && (isalnum(ch) || strchr("_.+-*/^(),% \t", ch))) continue;
        if (cond && ch < 0x80 && strchr("<>!&|", ch)) continue;
        if (cond && ch == '=' && ((p > f && strchr("<>!=", p[-1])) || p[1] == '=')) continue;
        if (ch >= 0x20 && ch < 0x7f)
            return cv_err(err, errlen, CV_EINVAL, "character '%c' is not allowed in a %s", ch,
                          cond ? "condition" : "formula");
        return cv_err(err, errlen, CV_EINVAL, "byte 0x%02x is not allowed in a %s", ch,
                      cond ? "condition" : "formula");
    }
    return CV_OK;
}

static int formula_run(const char *formula, bool cond, const char *const *names,
                       const double *vals, size_t n, double *out, char *err, size_t errlen)
{
    if (!formula || !*formula) return cv_err(err, errlen, CV_EINVAL, "empty formula");
    if (strlen(formula) > LESSON_MAX_FORMULA)
        return cv_err(err, errlen, CV_EINVAL, "formula longer than %d characters",
                      LESSON_MAX_FORMULA);
    if (n > LESSON_MAX_PARAMS + 1)
        return cv_err(err, errlen, CV_EINVAL, "more than %d variables", LESSON_MAX_PARAMS + 1);
    /* names, numbers, + - * / ^ % ( ) , and blanks: no assignment, ternary or string
     * reaches muParser (and comparisons only in a condition) */
    int rc = formula_chars(formula, cond, err, errlen);
    if (rc != CV_OK) return rc;
    muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
    if (!h) return cv_err(err, errlen, CV_ENOMEM, "formula parser could not start");
    mupClearConst(h);
    mupClearFun(h);
    mupDefineFun1(h, "sqrt", f_sqrt, 1);
    mupDefineFun1(h, "log2", f_log2, 1);
    mupDefineFun1(h, "ln", f_ln, 1);
    mupDefineFun1(h, "exp", f_exp, 1);
    mupDefineFun1(h, "abs", f_abs, 1);
    mupDefineFun1(h, "floor", f_floor, 1);
    mupDefineFun1(h, "ceil", f_ceil, 1);
    mupDefineFun1(h, "round", f_round, 1);
    mupDefineMultFun(h, "min", f_min, 1);
    mupDefineMultFun(h, "max", f_max, 1);
    mupDefineOprt(h, "%", f_mod, 6 /* muParser's multiplication level */, muOPRT_ASCT_LEFT, 1);
    double v[LESSON_MAX_PARAMS + 1];
    for (size_t i = 0; i < n; i++) {
        v[i] = vals[i];
        mupDefineVar(h, names[i], &v[i]);
        if (mupError(h)) {
            rc = cv_err(err, errlen, CV_EINVAL, "bad variable name '%s': %s", names[i],
                        mupGetErrorMsg(h));
            break;
        }
    }
    if (rc == CV_OK) {
        mupSetExpr(h, formula);
        double r = mupEval(h);
        if (mupError(h)) {
            const char *msg = mupGetErrorMsg(h);
            /* muParser's messages end with a position; keep them on one line */
            char m[200];
            snprintf(m, sizeof m, "%s", msg ? msg : "error");
            for (char *p = m; *p; p++)
                if (*p == '\n' || *p == '\r') *p = ' ';
            rc = cv_err(err, errlen, CV_EINVAL, "%s", m);
        } else {
            *out = r;
        }
    }
    mupRelease(h);
    return rc;
}

int ex_formula_eval(const char *formula, const char *const *names, const double *vals, size_t n,
                    double *out, char *err, size_t errlen)
{
    return formula_run(formula, false, names, vals, n, out, err, errlen);
}

int ex_condition_eval(const char *cond, const char *const *names, const double *vals, size_t n,
                      bool *holds, char *err, size_t errlen)
{
    double r = 0;
    int rc = formula_run(cond, true, names, vals, n, &r, err, errlen);
    if (rc == CV_OK) *holds = r != 0 && !isnan(r);
    return rc;
}

/* ---- units ------------------------------------------------------------------------------ */

static const struct unit {
    const char *name;
    enum ex_dim dim;
    double scale;
    const char *canon;
} units[] = {
    {"GB/s", DIM_BANDWIDTH, 1e9, "GB/s"},
    {"GiB/s", DIM_BANDWIDTH, 1073741824.0, "GiB/s"},
    {"MB/s", DIM_BANDWIDTH, 1e6, "MB/s"},
    {"MiB/s", DIM_BANDWIDTH, 1048576.0, "MiB/s"},
    {"TB/s", DIM_BANDWIDTH, 1e12, "TB/s"},
    {"Gb/s", DIM_BANDWIDTH, 1e9 / 8, "Gb/s"},
    {"s", DIM_TIME, 1, "s"},
    {"ms", DIM_TIME, 1e-3, "ms"},
    {"us", DIM_TIME, 1e-6, "us"},
    {"\xc2\xb5s", DIM_TIME, 1e-6, "us"}, /* micro sign */
    {"\xce\xbcs", DIM_TIME, 1e-6, "us"}, /* greek mu */
    {"ns", DIM_TIME, 1e-9, "ns"},
    {"B", DIM_BYTES, 1, "B"},
    {"KB", DIM_BYTES, 1e3, "KB"},
    {"MB", DIM_BYTES, 1e6, "MB"},
    {"GB", DIM_BYTES, 1e9, "GB"},
    {"TB", DIM_BYTES, 1e12, "TB"},
    {"KiB", DIM_BYTES, 1024.0, "KiB"},
    {"MiB", DIM_BYTES, 1048576.0, "MiB"},
    {"GiB", DIM_BYTES, 1073741824.0, "GiB"},
    {"TiB", DIM_BYTES, 1099511627776.0, "TiB"},
    {"x", DIM_NONE, 1, "x"},
    {"\xc3\x97", DIM_NONE, 1, "x"}, /* multiplication sign */
    {"times", DIM_NONE, 1, "x"},
    {"%", DIM_NONE, 0.01, "%"},
    {"", DIM_NONE, 1, ""},
};

static const char *dim_name(enum ex_dim d)
{
    static const char *const n[DIM_COUNT] = {"a plain number", "a bandwidth", "a time",
                                             "a size in bytes"};
    return (unsigned)d < DIM_COUNT ? n[d] : "?";
}

int ex_unit_lookup(const char *unit, enum ex_dim *dim, double *scale, const char **canon)
{
    for (size_t i = 0; i < ARRAY_LEN(units); i++)
        if (strcmp(unit, units[i].name) == 0) {
            if (dim) *dim = units[i].dim;
            if (scale) *scale = units[i].scale;
            if (canon) *canon = units[i].canon;
            return CV_OK;
        }
    return CV_EINVAL;
}

int ex_unit_convert(double value, const char *from, const char *to, double *out, char *err,
                    size_t errlen)
{
    enum ex_dim df, dt;
    double sf, st;
    if (ex_unit_lookup(from, &df, &sf, NULL) != CV_OK)
        return cv_err(err, errlen, CV_EINVAL, "unknown unit '%s'", from);
    if (ex_unit_lookup(to, &dt, &st, NULL) != CV_OK)
        return cv_err(err, errlen, CV_EINVAL, "unknown unit '%s'", to);
    if (df != dt)
        return cv_err(err, errlen, CV_EINVAL, "%s is %s, %s is %s", from, dim_name(df), to,
                      dim_name(dt));
    *out = value * sf / st;
    return CV_OK;
}

/* ---- numbers ---------------------------------------------------------------------------- */

void ex_format_number(double x, char *buf, size_t n)
{
    if (!isfinite(x))
        snprintf(buf, n, "%g", x);
    else if (x == floor(x) && fabs(x) < 1e15)
        snprintf(buf, n, "%.0f", x);
    else
        snprintf(buf, n, "%.6g", x);
}

/* A student's number at the start of s: digits, one '.', an exponent; *end after it. */
static bool read_number(const char *s, double *out, const char **end)
{
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    const char *digits = p;
    while (isdigit((unsigned char)*p) || *p == '.')
        p++;
    if (p == digits) return false;
    if ((*p == 'e' || *p == 'E') &&
        (isdigit((unsigned char)p[1]) ||
         ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
        p += 2;
        while (isdigit((unsigned char)*p))
            p++;
    }
    char tmp[64];
    size_t len = (size_t)(p - s);
    if (len >= sizeof tmp) return false;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *e;
    double d = strtod(tmp, &e);
    if (*e || !isfinite(d)) return false;
    *out = d;
    *end = p;
    return true;
}

bool ex_read_number(const char *s, double *out, const char **end)
{
    return read_number(s, out, end);
}

/* ---- variants --------------------------------------------------------------------------- */

bool ex_has_variants(const struct lesson_exercise *ex)
{
    if (ex->type != LEX_NUMBER) return false;
    for (size_t i = 0; i < ex->nparams; i++)
        if (ex->params[i].ranged) return true;
    return false;
}

static double round3(double x) /* to 3 significant digits */
{
    char b[32];
    snprintf(b, sizeof b, "%.2e", x);
    return strtod(b, NULL);
}

static size_t var_names(const struct lesson_exercise *ex, const char **names)
{
    for (size_t i = 0; i < ex->nparams; i++)
        names[i] = ex->params[i].name;
    return ex->nparams;
}

/* The question's names and their values as asked: the variant's (v), or the lecture's. */
static size_t var_values(const struct lesson_exercise *ex, const struct ex_variant *v,
                         const char **names, double *vals)
{
    size_t n = var_names(ex, names);
    for (size_t i = 0; i < n; i++)
        vals[i] = v ? v->param[i] : ex->params[i].value;
    return n;
}

static bool is_whole(double x)
{
    return isfinite(x) && fabs(x - round(x)) <= 1e-9 * fmax(1.0, fabs(x));
}

int ex_where_eval(const struct lesson_exercise *ex, size_t w, const double *vals, bool *holds,
                  char *err, size_t errlen)
{
    const char *names[LESSON_MAX_PARAMS + 1];
    double v[LESSON_MAX_PARAMS + 1];
    size_t n = var_names(ex, names);
    memcpy(v, vals, n * sizeof *v);
    char e2[8];
    if (ex_formula_eval(ex->formula, names, vals, n, &v[n], e2, sizeof e2) != CV_OK)
        v[n] = NAN; /* no answer here: a condition on it does not hold */
    names[n] = "answer";
    return ex_condition_eval(ex->where[w], names, v, n + 1, holds, err, errlen);
}

bool ex_lecture_answer(const struct lesson_exercise *ex, double answer)
{
    if (ex->integer) return answer == ex->answer;
    double tol = fmax(ex->tolerance, 0.001);
    return fabs(answer - ex->answer) <= 2 * tol * fmax(fabs(answer), fabs(ex->answer));
}

/* The answer at vals, and whether vals meet the exercise's where: conditions and integer
 * answer. CV_EINVAL (message) when not. */
static int variant_eval(const struct lesson_exercise *ex, const double *vals, double *out,
                        char *err, size_t errlen)
{
    const char *names[LESSON_MAX_PARAMS];
    size_t n = var_names(ex, names);
    for (size_t w = 0; w < ex->nwhere; w++) {
        bool ok = false;
        int rc = ex_where_eval(ex, w, vals, &ok, err, errlen);
        if (rc != CV_OK) return rc;
        if (!ok)
            return cv_err(err, errlen, CV_EINVAL, "the condition 'where: %s' does not hold",
                          ex->where[w]);
    }
    int rc = ex_formula_eval(ex->formula, names, vals, n, out, err, errlen);
    if (rc == CV_OK && !isfinite(*out))
        rc = cv_err(err, errlen, CV_EINVAL,
                    "the answer is not a finite number for these values");
    if (rc == CV_OK && ex->integer) {
        if (!is_whole(*out))
            return cv_err(err, errlen, CV_EINVAL, "the answer %.6g is not a whole number",
                          *out);
        *out = round(*out);
    }
    return rc;
}

static double draw_param(const struct lesson_param *p, uint64_t *st)
{
    double u = (double)(rng_splitmix64(st) >> 11) * 0x1.0p-53; /* [0, 1) */
    if (p->nchoices) {
        size_t k = (size_t)(u * (double)p->nchoices);
        return p->choices[k < p->nchoices ? k : p->nchoices - 1];
    }
    if (p->step > 0) {
        double nsteps = round((p->hi - p->lo) / p->step);
        double k = floor(u * (nsteps + 1));
        if (k > nsteps) k = nsteps;
        char b[40]; /* lo + k*step without the binary noise of a decimal step */
        snprintf(b, sizeof b, "%.12g", p->lo + k * p->step);
        return strtod(b, NULL);
    }
    if (p->integer) {
        double x = p->lo + floor(u * (p->hi - p->lo + 1));
        return x > p->hi ? p->hi : x;
    }
    double x = round3(p->lo + u * (p->hi - p->lo));
    if (x < p->lo || x > p->hi) x = round3((p->lo + p->hi) / 2);
    if (x < p->lo || x > p->hi) x = p->value;
    return x;
}

#define VARIANT_DRAWS 2000

static double world_size(const struct lesson_exercise *ex, const struct ex_variant *v);
static bool wrong_value(const struct lesson_exercise *ex, size_t w, const char *const *names,
                        const double *vals, size_t np, double *trap);

/* Does a slip at v give a value the grader would take for the answer (within twice the
 * tolerance, at least 0.2%)? The slips: the formula's own (slips.c: a factor left out, W
 * for W - 1...), and each of the exercise's wrong: lines alone or with the ring's (W-1)/W
 * or W also left out or put in twice (an all-gather's one rank as S and no (W-1)/W is the
 * answer at W = 2). Such a variant does not test what its slips would show: it is drawn
 * again. Its reason in why. */
static bool variant_slip_is_answer(const struct lesson_exercise *ex, const struct ex_variant *v,
                                   char *why, size_t n)
{
    double near = fmax(ex->tolerance, 0.001);
    if (ex_formula_slips_near(ex, v, near) > 0) {
        snprintf(why, n, "a slip of the formula gives the answer %.6g", v->answer);
        return true;
    }
    const char *names[LESSON_MAX_PARAMS];
    double vals[LESSON_MAX_PARAMS], lvals[LESSON_MAX_PARAMS];
    size_t np = var_values(ex, v, names, vals);
    var_values(ex, NULL, names, lvals);
    double W = world_size(ex, v), LW = world_size(ex, NULL);
    const double f[] = {1, W > 1 ? W / (W - 1) : 1, W > 1 ? (W - 1) / W : 1, W > 1 ? W : 1,
                        W > 1 ? 1 / W : 1};
    const double lf[] = {1, LW > 1 ? LW / (LW - 1) : 1, LW > 1 ? (LW - 1) / LW : 1,
                         LW > 1 ? LW : 1, LW > 1 ? 1 / LW : 1};
    for (size_t w = 0; w < ex->nwrong; w++) {
        double trap, ltrap;
        if (!wrong_value(ex, w, names, vals, np, &trap)) continue;
        bool lok = wrong_value(ex, w, names, lvals, np, &ltrap);
        for (size_t i = 0; i < ARRAY_LEN(f); i++)
            /* a second slip that undoes the line's own (one rank's S, times W) gives the
             * answer at the lecture's numbers too: that is the answer's form, no slip */
            if (fabs(trap * f[i] - v->answer) <= near * fabs(v->answer) &&
                !(i > 0 && lok &&
                  fabs(ltrap * lf[i] - ex->answer) <= near * fabs(ex->answer))) {
                snprintf(why, n, "the wrong: line %zu gives the answer %.6g", w + 1, v->answer);
                return true;
            }
    }
    return false;
}

int ex_variant(const struct lesson_exercise *ex, uint64_t seed, struct ex_variant *v, char *err,
               size_t errlen)
{
    memset(v, 0, sizeof *v);
    v->seed = seed;
    if (ex->type != LEX_NUMBER)
        return cv_err(err, errlen, CV_EINVAL, "exercise %s is a %s exercise: no variants",
                      ex->id, lesson_ex_type_name(ex->type));
    for (size_t i = 0; i < ex->nparams; i++)
        v->param[i] = ex->params[i].value;
    if (seed == 0) return variant_eval(ex, v->param, &v->answer, err, errlen);
    if (!ex_has_variants(ex))
        return cv_err(err, errlen, CV_EINVAL,
                      "exercise %s has no param with a range: no variants", ex->id);
    /* the stream depends on the seed and the id (FNV-1a), not on the file's layout */
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const char *p = ex->id; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
    uint64_t st = seed ^ h;
    char why[200] = "";
    for (int draw = 0; draw < VARIANT_DRAWS; draw++) {
        for (size_t i = 0; i < ex->nparams; i++)
            if (ex->params[i].ranged) v->param[i] = draw_param(&ex->params[i], &st);
        v->draws = draw + 1;
        if (variant_eval(ex, v->param, &v->answer, why, sizeof why) != CV_OK) continue;
        /* the lecture's own answer again would be recalled, not computed */
        if (ex_lecture_answer(ex, v->answer)) {
            snprintf(why, sizeof why, "the answer %.6g is the lecture's", v->answer);
            continue;
        }
        if (!variant_slip_is_answer(ex, v, why, sizeof why)) return CV_OK;
    }
    return cv_err(err, errlen, CV_EINVAL, "exercise %s: no variant in %d draws (last: %s)",
                  ex->id, VARIANT_DRAWS, why);
}

int ex_variant_check(const struct lesson_exercise *ex, const struct ex_variant *v, char *err,
                     size_t errlen)
{
    for (size_t i = 0; i < ex->nparams; i++) {
        const struct lesson_param *p = &ex->params[i];
        double x = v->param[i];
        bool ok = isfinite(x) && x >= p->lo && x <= p->hi;
        if (ok && p->integer) ok = x == floor(x);
        if (ok && p->step > 0)
            ok = fabs((x - p->lo) / p->step - round((x - p->lo) / p->step)) < 1e-6;
        bool in = !p->nchoices;
        for (size_t k = 0; k < p->nchoices; k++)
            in |= p->choices[k] == x;
        if (!ok || !in)
            return cv_err(err, errlen, CV_EINVAL, "%s = %g breaks its declared range%s",
                          p->name, x,
                          p->nchoices   ? " or choices"
                          : p->step > 0 ? " or step"
                                        : "");
    }
    double a;
    int rc = variant_eval(ex, v->param, &a, err, errlen);
    if (rc != CV_OK) return rc;
    if (!(fabs(a - v->answer) <= 1e-12 * fmax(1.0, fabs(a))))
        return cv_err(err, errlen, CV_EINVAL, "the answer %.6g is not the formula's %.6g",
                      v->answer, a);
    if (v->seed && ex_lecture_answer(ex, a))
        return cv_err(err, errlen, CV_EINVAL,
                      "the answer %.6g is the lecture's %.6g (within twice the tolerance)", a,
                      ex->answer);
    return CV_OK;
}

#define NOT_TEMPLATE (-1)

/* ---- templates -------------------------------------------------------------------------- */

void ex_format_text_number(double x, char *buf, size_t n)
{
    if (!isfinite(x)) {
        snprintf(buf, n, "%g", x);
    } else if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(buf, n, "%.0f", x);
    } else {
        snprintf(buf, n, "%.4g", x);
        /* 3.884e+10 as 3.884e10, the way the lessons write it */
        char *e = strchr(buf, 'e');
        if (e) {
            char *d = e + 1;
            bool neg = *d == '-';
            if (*d == '+' || *d == '-') d++;
            while (*d == '0' && d[1])
                d++;
            char exp[8];
            snprintf(exp, sizeof exp, "%s%.5s", neg ? "-" : "", d);
            snprintf(e + 1, n - (size_t)(e + 1 - buf), "%s", exp);
        }
    }
}

/* The value of the template {inner} (inner without the braces): CV_OK and *out, or
 * NOT_TEMPLATE (-1) when it is not a template (text in braces), CV_EINVAL when {= expr} is bad.
 */
static int template_value(const struct lesson_exercise *ex, const struct ex_variant *v,
                          const char *inner, size_t len, double *out, bool *is_param, char *err,
                          size_t errlen)
{
    *is_param = false;
    if (len && inner[0] == '=') {
        char f[LESSON_MAX_FORMULA + 1];
        if (len - 1 > LESSON_MAX_FORMULA)
            return cv_err(err, errlen, CV_EINVAL, "template longer than %d characters",
                          LESSON_MAX_FORMULA);
        memcpy(f, inner + 1, len - 1);
        f[len - 1] = '\0';
        const char *names[LESSON_MAX_PARAMS + 1];
        double vals[LESSON_MAX_PARAMS + 1];
        size_t n = var_values(ex, v, names, vals);
        names[n] = "answer";
        vals[n++] = v ? v->answer : ex->answer;
        int rc = formula_run(f, false, names, vals, n, out, err, errlen);
        if (rc == CV_OK && !isfinite(*out))
            rc = cv_err(err, errlen, CV_EINVAL, "{%s} is not a finite number", f);
        return rc;
    }
    for (size_t i = 0; i < ex->nparams; i++)
        if (strlen(ex->params[i].name) == len && strncmp(inner, ex->params[i].name, len) == 0) {
            *out = v ? v->param[i] : ex->params[i].value;
            *is_param = true;
            return CV_OK;
        }
    return NOT_TEMPLATE;
}

char *ex_text(const struct lesson_exercise *ex, const struct ex_variant *v, const char *text)
{
    struct vec_buf b = {0};
    vec_buf_puts(&b, ""); /* "" rather than NULL for an empty text */
    const char *p = text ? text : "";
    while (*p) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        double x;
        bool is_param;
        char err[8];
        if (close && template_value(ex, v, p + 1, (size_t)(close - p - 1), &x, &is_param, err,
                                    sizeof err) == CV_OK) {
            char num[48];
            if (is_param)
                ex_format_number(x, num, sizeof num);
            else
                ex_format_text_number(x, num, sizeof num);
            vec_buf_puts(&b, num);
            p = close + 1;
            continue;
        }
        /* the text up to the next '{' (a '{' that is no template is text too) */
        const char *next = strchr(p + 1, '{');
        size_t k = next ? (size_t)(next - p) : strlen(p);
        vec_buf_append(&b, p, k);
        p += k;
    }
    return vec_buf_take(&b);
}

void ex_text_format(const struct lesson_exercise *ex, const struct ex_variant *v,
                    const char *text, char *buf, size_t n)
{
    if (!n) return;
    char *t = ex_text(ex, v, text);
    size_t k = cv_utf8_cut(t, n - 1); /* never half a character */
    memcpy(buf, t, k);
    buf[k] = '\0';
    free(t);
}

int ex_template_check(const struct lesson_exercise *ex, const char *text, char *err,
                      size_t errlen)
{
    for (const char *p = text ? strchr(text, '{') : NULL; p; p = strchr(p + 1, '{')) {
        const char *close = strchr(p, '}');
        if (!close) {
            if (p[1] == '=') return cv_err(err, errlen, CV_EINVAL, "'{=' without its '}'");
            break;
        }
        if (p[1] != '=') continue;
        double x;
        bool is_param;
        char e2[200];
        if (template_value(ex, NULL, p + 1, (size_t)(close - p - 1), &x, &is_param, e2,
                           sizeof e2) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "template {%.*s}: %s", (int)(close - p - 1),
                          p + 1, e2);
    }
    return CV_OK;
}

char *ex_prompt(const struct lesson_exercise *ex, const struct ex_variant *v)
{
    return ex_text(ex, v, ex->prompt);
}

/* ---- holds ------------------------------------------------------------------------------ */

/* Run ex's scene at display scale: its plan in *p, every step's buffers in *t (the caller
 * frees both when CV_OK comes back). */
static int holds_trace(const struct lesson_exercise *ex, struct plan *p, struct trace *t,
                       char *err, size_t errlen)
{
    const struct scene *s = &ex->scene;
    size_t count = scene_count(s);
    int root = coll_is_rooted(s->coll) ? s->root : 0;
    int rc = scene_plan_build(s, p, count, root, err, errlen);
    if (rc != CV_OK) return rc;
    float *send[CV_MAX_RANKS] = {0};
    for (int r = 0; r < s->nranks; r++) {
        size_t ns = coll_send_count(s->coll, s->nranks, count, r, root);
        send[r] = xcalloc(ns ? ns : 1, sizeof(float));
        init_fill(s->init, s->coll, s->nranks, count, root, s->seed, r, send[r]);
    }
    rc = trace_run(t, p, send, err, errlen); /* copies the send buffers */
    for (int r = 0; r < s->nranks; r++)
        free(send[r]);
    if (rc != CV_OK) plan_free(p);
    return rc;
}

/* What `rank` holds in ex's asked slots (all of them without slots) at snapshot `step` of
 * trace t of plan p: values in vals, whether each holds anything in has. */
static int holds_read(const struct lesson_exercise *ex, const struct plan *p,
                      const struct trace *t, size_t step, int rank, float *vals, bool *has,
                      size_t cap, size_t *len, char *err, size_t errlen)
{
    size_t L = p->work_len;
    if (L > cap)
        return cv_err(err, errlen, CV_ENOMEM, "rank %d holds %zu elements (more than %zu)",
                      rank, L, cap);
    const float *b = trace_buf(t, step, rank);
    const uint32_t *m = trace_mask(t, step, rank);
    /* slots: only the asked output, as the lecture grades it */
    size_t lo = ex->slots ? (size_t)ex->slot_lo : 0;
    size_t hi = ex->slots ? (size_t)ex->slot_hi : L - 1;
    if (hi >= L || lo > hi)
        return cv_err(err, errlen, CV_EINVAL, "slots %zu..%zu but rank %d holds %zu elements",
                      lo, hi, rank, L);
    for (size_t i = lo; i <= hi; i++) {
        vals[i - lo] = b[i];
        has[i - lo] = m[i] != 0;
    }
    *len = hi - lo + 1;
    return CV_OK;
}

int ex_holds_expected(const struct lesson_exercise *ex, float *vals, bool *has, size_t cap,
                      size_t *len, char *err, size_t errlen)
{
    if (ex->type != LEX_HOLDS)
        return cv_err(err, errlen, CV_EINVAL, "exercise %s is not a holds exercise", ex->id);
    const struct scene *s = &ex->scene;
    if (s->screen != SCREEN_COLLECTIVES)
        return cv_err(err, errlen, CV_EINVAL,
                      "the exercise's scene is not a collectives scene");
    if (ex->rank < 0 || ex->rank >= s->nranks)
        return cv_err(err, errlen, CV_EINVAL, "rank %d out of range (0..%d)", ex->rank,
                      s->nranks - 1);
    struct plan p;
    struct trace t;
    int rc = holds_trace(ex, &p, &t, err, errlen);
    if (rc != CV_OK) return rc;
    size_t step =
        ex->step == SCENE_STEP_END || (size_t)ex->step > p.nsteps ? p.nsteps : (size_t)ex->step;
    rc = holds_read(ex, &p, &t, step, ex->rank, vals, has, cap, len, err, errlen);
    trace_free(&t);
    plan_free(&p);
    return rc;
}

/* The values the ranks start with (step 0 of ex's scene, in ex's asked slots), from one run
 * of the scene for all ranks: those are given to the student, so naming them gives nothing
 * away. Returns how many, at most cap; 0 when the scene does not run. */
static size_t holds_inputs(const struct lesson_exercise *ex, double *in, size_t cap)
{
    if (ex->type != LEX_HOLDS || ex->scene.screen != SCREEN_COLLECTIVES) return 0;
    struct plan p;
    struct trace t;
    char err[200];
    if (holds_trace(ex, &p, &t, err, sizeof err) != CV_OK) return 0;
    float v[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    bool has[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    size_t n = 0;
    for (int r = 0; r < ex->scene.nranks; r++) {
        size_t len = 0;
        if (holds_read(ex, &p, &t, 0, r, v, has, ARRAY_LEN(v), &len, err, sizeof err) != CV_OK)
            continue;
        for (size_t i = 0; i < len && n < cap; i++)
            if (has[i]) in[n++] = v[i];
    }
    trace_free(&t);
    plan_free(&p);
    return n;
}

int ex_holds_phases(const struct lesson_exercise *ex, long *nsteps, struct ex_phase *ph,
                    size_t max, size_t *nph, char *err, size_t errlen)
{
    const struct scene *s = &ex->scene;
    if (ex->type != LEX_HOLDS || s->screen != SCREEN_COLLECTIVES)
        return cv_err(err, errlen, CV_EINVAL, "exercise %s is not a holds exercise", ex->id);
    int root = coll_is_rooted(s->coll) ? s->root : 0;
    struct plan p;
    int rc = scene_plan_build(s, &p, scene_count(s), root, err, errlen);
    if (rc != CV_OK) return rc;
    long ends[64];
    size_t n = plan_phase_ends(&p, ends, ARRAY_LEN(ends));
    *nsteps = (long)p.nsteps;
    *nph = 0;
    for (size_t i = 0; i < n && *nph < max; i++) {
        struct ex_phase *f = &ph[(*nph)++];
        f->end = ends[i];
        /* the label without its "k/n" count: "reduce-scatter 3/3" is "reduce-scatter" */
        const char *l = p.steps[ends[i] - 1].phase;
        size_t len = strlen(l);
        const char *sp = strrchr(l, ' ');
        if (sp && strchr(sp, '/') && isdigit((unsigned char)sp[1])) len = (size_t)(sp - l);
        snprintf(f->name, sizeof f->name, "%.*s", (int)len, l);
    }
    plan_free(&p);
    return CV_OK;
}

/* ---- grading ---------------------------------------------------------------------------- */

const char *ex_verdict_name(enum ex_verdict v)
{
    switch (v) {
    case EX_RIGHT:
        return "right";
    case EX_WRONG:
        return "wrong";
    case EX_WRONG_UNIT:
        return "wrong unit";
    case EX_BAD_INPUT:
        return "bad input";
    }
    return "?";
}

static void trim(const char *in, char *out, size_t n)
{
    while (*in == ' ' || *in == '\t')
        in++;
    size_t len = strlen(in);
    while (len && (in[len - 1] == ' ' || in[len - 1] == '\t' || in[len - 1] == '\n' ||
                   in[len - 1] == '\r'))
        len--;
    if (len >= n) len = n - 1;
    memcpy(out, in, len);
    out[len] = '\0';
}

/* The student's text as it is echoed: control bytes (and DEL) shown as '?', at most 60
 * bytes (cut at a character's start). */
static void echo_copy(const char *in, char *out, size_t n)
{
    size_t k = 0;
    for (const char *p = in; *p && k + 1 < n && k < 60; p++) {
        unsigned char ch = (unsigned char)*p;
        if (k >= 56 && (ch & 0xc0) != 0x80) break;
        out[k++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    out[k] = '\0';
}

/* A number answer at the start of s: "524,288" (commas between groups of three digits),
 * "5.2e5", a fraction "3/7" or "1/2"; *end after it. */
static bool read_answer_number(const char *s, double *out, const char **end)
{
    const char *p = s, *e;
    double x;
    if (strchr(s, ',') && strchr(s, ',') < s + strcspn(s, " \t/")) {
        /* thousands separators: 1 to 3 digits, then groups of exactly 3 */
        char tmp[64];
        size_t k = 0, lead = 0;
        if (*p == '+' || *p == '-') tmp[k++] = *p++;
        while (isdigit((unsigned char)*p) && k < 8)
            tmp[k++] = *p++, lead++;
        if (lead == 0 || lead > 3) return false;
        while (*p == ',') {
            for (int i = 1; i <= 3; i++)
                if (!isdigit((unsigned char)p[i])) return false;
            if (isdigit((unsigned char)p[4]) || k + 3 >= 40) return false;
            memcpy(tmp + k, p + 1, 3);
            k += 3;
            p += 4;
        }
        if (*p == '.') {
            tmp[k++] = *p++;
            while (isdigit((unsigned char)*p) && k + 1 < sizeof tmp)
                tmp[k++] = *p++;
        }
        tmp[k] = '\0';
        x = strtod(tmp, NULL);
    } else {
        if (!read_number(s, &x, &e)) return false;
        p = e;
    }
    /* a fraction: "3/7" (not "3 GB/s": the '/' must be followed by a digit) */
    if (*p == '/' && isdigit((unsigned char)p[1])) {
        double d;
        if (!read_number(p + 1, &d, &e) || d == 0) return false;
        x /= d;
        p = e;
    }
    if (!isfinite(x)) return false;
    *out = x;
    *end = p;
    return true;
}

/* Is got within the exercise's tolerance of want? */
static bool near(double got, double want, double tol)
{
    return got == want || fabs(got - want) <= tol * fabs(want);
}

/* Half a unit of the last digit of the number that starts `s` ("3.3": 0.05, "1.9e3": 50,
 * "1900": 50, its trailing zeros not counted), when it has at least two significant
 * digits; 0 otherwise (one digit, a fraction "3/7", thousands groups, a percent: no stated
 * precision), and 0 unless it has an exponent where `exponent_only` (a count: 1300 is not
 * 1280, 1.3e3 is). A student who rounds the answer to the digits typed is right. */
static double typed_half_digit(const char *s, bool exponent_only)
{
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    int sig = 0, decimals = 0, zeros = 0; /* zeros: trailing, before any '.' */
    bool seen_nonzero = false, frac = false;
    for (; isdigit((unsigned char)*p) || (*p == '.' && !frac); p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        if (*p != '0') seen_nonzero = true;
        if (seen_nonzero) sig++;
        if (frac) decimals++;
        zeros = *p == '0' && !frac ? zeros + 1 : frac ? zeros : 0;
    }
    long ex = 0;
    bool has_ex = *p == 'e' || *p == 'E';
    if (has_ex) {
        char *e;
        ex = strtol(p + 1, &e, 10);
        if (e == p + 1) return 0;
        p = e;
    }
    if (!frac && !has_ex) {
        sig -= zeros;
        ex += zeros;
    }
    while (*p == ' ')
        p++;
    if (sig < 2 || *p == '/' || *p == ',' || *p == '%' || (exponent_only && !has_ex)) return 0;
    return 0.5 * pow(10.0, (double)(ex - decimals));
}

/* The significant digits of the number typed at s ("131.45": 5, "420": 2, "5.2e5": 2). */
static int typed_sig(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    int sig = 0, zeros = 0;
    bool seen = false, frac = false;
    for (; isdigit((unsigned char)*p) || (*p == '.' && !frac) || (*p == ',' && !frac); p++) {
        if (*p == '.') frac = true;
        if (!isdigit((unsigned char)*p)) continue;
        if (*p != '0') seen = true;
        if (!seen) continue;
        sig++;
        zeros = *p == '0' ? zeros + 1 : 0;
    }
    return frac ? sig : sig - zeros;
}

/* The answer as it is said beside a right one, in at most 6 significant digits (more do not
 * read): exactly where that many write it exactly (524288, 0.5, 419.43 when it is); else
 * rounded to one digit more than the typed (at least 4), and "≈" said: 131.454 beside a
 * typed 131.45, never "exactly 131.5". True when buf is exact. */
static bool answer_beside(double want, int sig, char *buf, size_t n)
{
    int p = sig + 1 < 4 ? 4 : sig + 1 > 6 ? 6 : sig + 1;
    if (want == floor(want) && fabs(want) < 1e15) {
        ex_format_text_number(want, buf, n);
        return true;
    }
    for (int q = p; q <= 6; q++) {
        char t[48];
        snprintf(t, sizeof t, "%.*g", q, want);
        if (strtod(t, NULL) == want && !strchr(t, 'e')) {
            snprintf(buf, n, "%s", t);
            return true;
        }
    }
    char t[48];
    snprintf(t, sizeof t, "%#.*g", p, want); /* 19.10: its zero is a digit said */
    if (strchr(t, 'e'))
        ex_format_text_number(want, buf, n); /* 3.884e10, the lessons' way */
    else
        snprintf(buf, n, "%s", t);
    return false;
}

#define FORMULA_SLIPS 64

/* The world size of a variant, when the exercise has a param for it. */
static double world_size(const struct lesson_exercise *ex, const struct ex_variant *v)
{
    static const char *const w_names[] = {"w", "W", "ranks", "nranks", "world"};
    for (size_t i = 0; i < ex->nparams; i++)
        for (size_t k = 0; k < ARRAY_LEN(w_names); k++)
            if (strcmp(ex->params[i].name, w_names[k]) == 0)
                return v ? v->param[i] : ex->params[i].value;
    return 0;
}

/* A unit of dimension dim whose scale is `scale` (within 0.1%): its spelling, or NULL. */
static const char *unit_with_scale(enum ex_dim dim, double scale)
{
    for (size_t i = 0; i < ARRAY_LEN(units); i++)
        if (units[i].dim == dim && units[i].dim != DIM_NONE && units[i].name[0] &&
            strcmp(units[i].name, units[i].canon) == 0 &&
            fabs(units[i].scale - scale) <= 1e-3 * scale)
            return units[i].name;
    return NULL;
}

/* The value of the exercise's wrong: line w at these parameters, when it has a finite one. */
static bool wrong_value(const struct lesson_exercise *ex, size_t w, const char *const *names,
                        const double *vals, size_t np, double *trap)
{
    char err[8];
    return ex_formula_eval(ex->wrong[w].formula, names, vals, np, trap, err, sizeof err) ==
               CV_OK &&
           isfinite(*trap);
}

/* The question's numbers, as its prompt shows them: "192, 8" (the params its prompt names,
 * at most four), or "" when it names none. */
static void question_numbers(const struct lesson_exercise *ex, const struct ex_variant *v,
                             char *buf, size_t n)
{
    size_t o = 0, k = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ex->nparams && k < 4 && o + 40 < n; i++) {
        char tag[40], num[40];
        snprintf(tag, sizeof tag, "{%s}", ex->params[i].name);
        if (!ex->prompt || !strstr(ex->prompt, tag)) continue;
        ex_format_number(v ? v->param[i] : ex->params[i].value, num, sizeof num);
        o += (size_t)snprintf(buf + o, n - o, "%s%s", k++ ? ", " : "", num);
    }
}

/* How far the nearest known slip lies from want: the exercise's own `wrong:` traps and the
 * usual slips diagnose_slip names (a factor W, the ring's (W-1)/W, a factor 2, the binary
 * twin of the answer's unit: GiB for GB); HUGE_VAL when none differs from want. A tolerance
 * wider than half of it would grade a slip right (2S for 2S(W-1)/W at W = 256 is 0.4% off), so
 * the grader keeps the answer strictly nearer want than any slip. */
static double nearest_slip_gap(const struct lesson_exercise *ex, const struct ex_variant *v,
                               double want)
{
    double f[12];
    size_t nf = 0;
    double W = world_size(ex, v);
    if (W > 2) {
        f[nf++] = W, f[nf++] = 1 / W;
        f[nf++] = (W - 1) / W, f[nf++] = W / (W - 1);
    }
    f[nf++] = 2, f[nf++] = 0.5;
    enum ex_dim dim = DIM_NONE;
    ex_unit_lookup(ex->units, &dim, NULL, NULL);
    /* the binary twin of the answer's own unit (GiB for GB): the slip its unit invites */
    double bin = ex->units[0] == 'G'                          ? 1.073741824
                 : ex->units[0] == 'M'                        ? 1.048576
                 : ex->units[0] == 'K' || ex->units[0] == 'k' ? 1.024
                                                              : 0;
    if ((dim == DIM_BYTES || dim == DIM_BANDWIDTH) && bin > 0) f[nf++] = bin, f[nf++] = 1 / bin;
    double gap = HUGE_VAL;
    for (size_t i = 0; i < nf; i++) {
        double d = fabs(want * f[i] - want);
        if (d > 0 && d < gap) gap = d;
    }
    const char *names[LESSON_MAX_PARAMS];
    double vals[LESSON_MAX_PARAMS];
    size_t np = var_values(ex, v, names, vals);
    for (size_t w = 0; w < ex->nwrong; w++) {
        double trap;
        if (!wrong_value(ex, w, names, vals, np, &trap)) continue;
        double d = fabs(trap - want);
        if (d > 1e-9 * fmax(1.0, fabs(want)) && d < gap) gap = d;
    }
    return gap;
}

/* ---- a wrong number's slips ------------------------------------------------------------- */

/* Which slip is said first where two give the typed number alike (lower first). */
enum slip_spec {
    SPEC_LISTED,  /* the exercise's own wrong: line */
    SPEC_UNIT,    /* the answer in a confused unit: a power of ten, a percent, GiB for GB */
    SPEC_PARAM,   /* one of the question's numbers read in a confused unit */
    SPEC_WORLD,   /* a factor W or (W-1)/W */
    SPEC_FORMULA, /* a term or a factor of the exercise's own formula (slips.c) */
    SPEC_FACTOR,  /* a factor 2, bits for bytes */
    SPEC_PARTIAL, /* a step of the working typed as the answer (slips.c's partial-result) */
};

/* A slip that may explain a wrong number: the value it gives at the question's numbers. */
struct num_slip {
    double value;
    enum slip_spec spec;
    char code[24];
    char msg[320];
};

struct num_slips {
    struct num_slip *v;
    size_t n, cap;
};

static void slip_add(struct num_slips *S, double value, enum slip_spec spec, const char *code,
                     const char *msg)
{
    if (!isfinite(value) || S->n == S->cap) return;
    struct num_slip *s = &S->v[S->n++];
    s->value = value;
    s->spec = spec;
    snprintf(s->code, sizeof s->code, "%s", code);
    snprintf(s->msg, sizeof s->msg, "%s", msg);
}

/* The exercise's own traps: each wrong: line's value, with its message. */
static void slips_listed(const struct lesson_exercise *ex, const struct ex_variant *v,
                         struct num_slips *S)
{
    const char *names[LESSON_MAX_PARAMS];
    double vals[LESSON_MAX_PARAMS];
    size_t np = var_values(ex, v, names, vals);
    for (size_t w = 0; w < ex->nwrong; w++) {
        double trap;
        char msg[320];
        if (!wrong_value(ex, w, names, vals, np, &trap)) continue;
        ex_text_format(ex, v, ex->wrong[w].msg, msg, sizeof msg);
        slip_add(S, trap, SPEC_LISTED, "listed", msg);
    }
}

/* The binary twin of a decimal unit of bytes or bandwidth ("MiB" for "MB", "GB/s" for
 * "GiB/s") and the ratio of the larger to the smaller (1.048576); NULL when it has none. */
static const char *binary_twin(const char *unit, double *f)
{
    static const struct {
        const char *a, *b;
        double f;
    } twins[] = {{"KB", "KiB", 1.024},
                 {"MB", "MiB", 1.048576},
                 {"GB", "GiB", 1.073741824},
                 {"TB", "TiB", 1.099511627776},
                 {"MB/s", "MiB/s", 1.048576},
                 {"GB/s", "GiB/s", 1.073741824},
                 {"TB/s", "TiB/s", 1.099511627776}};
    for (size_t i = 0; i < ARRAY_LEN(twins); i++) {
        *f = twins[i].f;
        if (strcmp(unit, twins[i].a) == 0) return twins[i].b;
        if (strcmp(unit, twins[i].b) == 0) return twins[i].a;
    }
    return NULL;
}

/* A time unit 1000 times larger (up) or smaller than unit: "ms" for "us"; NULL at an end. */
static const char *time_step(const char *unit, bool up)
{
    static const char *const t[] = {"ns", "\xc2\xb5s", "ms", "s"};
    const char *canon = NULL;
    if (ex_unit_lookup(unit, NULL, NULL, &canon) != CV_OK) return NULL;
    for (int i = 0; i < 4; i++)
        if (strcmp(canon, i == 1 ? "us" : t[i]) == 0) {
            int k = up ? i + 1 : i - 1;
            return k >= 0 && k < 4 ? t[k] : NULL;
        }
    return NULL;
}

bool ex_param_unit(const struct lesson_exercise *ex, size_t i, char *unit, size_t n)
{
    char tag[40];
    snprintf(tag, sizeof tag, "{%s}", ex->params[i].name);
    const char *p = ex->prompt ? strstr(ex->prompt, tag) : NULL;
    if (!p) return false;
    for (p += strlen(tag); *p == ' ';)
        p++;
    size_t k = strcspn(p, " ,.;:)?!");
    if (k == 0 || k >= n) return false;
    snprintf(unit, n, "%.*s", (int)k, p);
    enum ex_dim dim = DIM_NONE;
    return ex_unit_lookup(unit, &dim, NULL, NULL) == CV_OK && dim != DIM_NONE;
}

/* The formula's value with param i at x instead (the others at v's numbers). */
static bool value_with(const struct lesson_exercise *ex, const struct ex_variant *v, size_t i,
                       double x, double *out)
{
    const char *names[LESSON_MAX_PARAMS];
    double vals[LESSON_MAX_PARAMS];
    size_t np = var_values(ex, v, names, vals);
    vals[i] = x;
    char err[8];
    return ex_formula_eval(ex->formula, names, vals, np, out, err, sizeof err) == CV_OK &&
           isfinite(*out);
}

/* One of the question's numbers read in a confused unit: a size or a rate in the binary
 * twin of its unit (1 MB as 1 MiB) or converted to it and used unconverted, a time in the
 * unit 1000 times larger or smaller (5 µs as 5 ms). Both ways, each said with the number. */
static void slips_param_units(const struct lesson_exercise *ex, const struct ex_variant *v,
                              struct num_slips *S)
{
    for (size_t i = 0; i < ex->nparams; i++) {
        char unit[24], num[40], other[40], msg[320];
        if (!ex_param_unit(ex, i, unit, sizeof unit)) continue;
        double p = v ? v->param[i] : ex->params[i].value, f = 0, x;
        ex_format_number(p, num, sizeof num);
        const char *twin = binary_twin(unit, &f);
        bool binary = twin && strchr(unit, 'i');
        for (int up = 0; up < 2; up++) {
            if (twin) {
                /* up: the number read as the larger unit's count, or its count in the
                 * smaller unit used as it stands */
                if (!value_with(ex, v, i, up ? p * f : p / f, &x)) continue;
                ex_format_number(up ? p * f : p / f, other, sizeof other);
                if (up != binary)
                    snprintf(msg, sizeof msg,
                             "That reads the question's %s %s as %s %s: 1 %s is %.4g %s, not "
                             "1; mind which of the two the question gives",
                             num, unit, num, twin, binary ? unit : twin, f,
                             binary ? twin : unit);
                else
                    snprintf(msg, sizeof msg,
                             "That uses %s, the question's %s %s counted in %s, where the "
                             "answer takes the number in %s as the question gives it",
                             other, num, unit, twin, unit);
                slip_add(S, x, SPEC_PARAM, "param-unit", msg);
                continue;
            }
            const char *t = time_step(unit, up);
            if (!t || !value_with(ex, v, i, up ? p * 1000 : p / 1000, &x)) continue;
            snprintf(msg, sizeof msg,
                     "That reads the question's %s %s as %s %s: a factor 1000 in the time; "
                     "mind the unit",
                     num, unit, num, t);
            slip_add(S, x, SPEC_PARAM, "param-unit", msg);
        }
    }
}

/* A power of a unit step in words: 1000, "a million", "1024 × 1024". */
static void factor_words(int k, bool binary, char *buf, size_t n)
{
    static const char *const w[2][4] = {
        {"1000", "a million", "a billion", "a trillion"},
        {"1024", "1024 \xc3\x97 1024", "1024\xc2\xb3", "1024\xe2\x81\xb4"}};
    snprintf(buf, n, "%s", k >= 1 && k <= 4 ? w[binary][k - 1] : "?");
}

/* The answer in a unit 1000^k (or, with bytes, 1024^k) away: said in the unit the number
 * would be right in ("the answer in TB/s, read in GB/s"), or as a unit slip of the
 * answer's own unit where no unit has that scale (500 for 0.5 MiB), or, without a unit,
 * as a power of ten (or of 1024) slipped. */
static void slip_answer_scale(const struct lesson_exercise *ex, const struct ex_variant *v,
                              double want, const char *typed_unit, int e, bool binary,
                              struct num_slips *S)
{
    enum ex_dim dim = DIM_NONE;
    double want_scale = 1, typed_scale = 1, f = pow(binary ? 1024.0 : 1000.0, e);
    char msg[320], fw[32];
    ex_unit_lookup(ex->units, &dim, &want_scale, NULL);
    if (ex_unit_lookup(typed_unit, NULL, &typed_scale, NULL) != CV_OK) typed_scale = want_scale;
    factor_words(abs(e), binary, fw, sizeof fw);
    const char *hl = f > 1 ? "high" : "low";
    const char *other = unit_with_scale(dim, typed_scale / f);
    const char *mine = unit_with_scale(dim, typed_scale);
    if (other && mine)
        snprintf(msg, sizeof msg,
                 "%s times too %s: that number is the answer in %s, but it was read in %s; "
                 "mind the unit",
                 fw, hl, other, mine);
    else if (dim != DIM_NONE && mine)
        snprintf(msg, sizeof msg,
                 "%s times too %s: a unit slip, a power of %s off; the answer is in %s%s", fw,
                 hl, binary ? "1024" : "1000", mine,
                 !binary && strchr(mine, 'i') ? ", and a binary unit steps by 1024, not 1000"
                                              : "");
    else {
        char q[96];
        question_numbers(ex, v, q, sizeof q);
        snprintf(msg, sizeof msg,
                 "%s times too %s: a power of %s slipped (%s); check the size of each "
                 "number%s%s",
                 fw, hl, binary ? "1024" : "ten",
                 binary ? "Ki, Mi, Gi" : "thousand, million, billion",
                 q[0] ? " from the question's " : "", q);
    }
    slip_add(S, want * f, SPEC_UNIT, binary ? "power-of-1024" : "power-of-ten", msg);
}

/* The answer in a confused unit: off by a power of 1000 (said in the unit the number would
 * be right in), with bytes or a bandwidth a power of 1024 (512 for 512 KiB where MiB is
 * asked), a percent for a fraction or a ratio or the reverse, a binary unit for a decimal
 * one (MiB for MB: with bytes, said as such; with a time, a size or a rate of the question
 * read so). */
static void slips_answer_units(const struct lesson_exercise *ex, const struct ex_variant *v,
                               double want, const char *typed_unit, struct num_slips *S)
{
    enum ex_dim dim = DIM_NONE;
    char msg[320];
    ex_unit_lookup(ex->units, &dim, NULL, NULL);
    for (int e = -4; e <= 4; e++) {
        if (e == 0) continue;
        slip_answer_scale(ex, v, want, typed_unit, e, false, S);
        if (dim == DIM_BYTES || dim == DIM_BANDWIDTH)
            slip_answer_scale(ex, v, want, typed_unit, e, true, S);
    }
    /* a fraction or a ratio written as a percent without its sign ("50" for 0.5, "333"
     * for 3.33x), or a percent written as a fraction ("0.5" for 50%) */
    bool ratio = strcmp(ex->units, "x") == 0, pct = strcmp(ex->units, "%") == 0;
    if ((ex_is_fraction(ex, want) || ratio) && strcmp(typed_unit, "%") != 0)
        slip_add(S, want * 100, SPEC_UNIT, "percent",
                 ratio ? "100 times too high: that is the ratio written as a percentage; the "
                         "answer is how many times (x), a plain number"
                       : "100 times too high: that is the answer in percent; the question "
                         "asks for a fraction (a quarter is 0.25, not 25)");
    if (pct && strcmp(typed_unit, "%") == 0)
        slip_add(S, want / 100, SPEC_UNIT, "percent",
                 "100 times too low: that is the answer as a fraction; the question asks "
                 "for a percentage (0.25 is 25%)");
    static const struct {
        double f;
        const char *a, *b;
    } bin[] = {{1.073741824, "GiB", "GB"}, {1.048576, "MiB", "MB"}, {1.024, "KiB", "KB"}};
    for (size_t i = 0; dim != DIM_NONE && i < ARRAY_LEN(bin); i++) {
        if (dim == DIM_BYTES || dim == DIM_BANDWIDTH)
            snprintf(msg, sizeof msg,
                     "Off by %.4g, the ratio of a %s to a %s (1 %s = %.6g %s): a binary unit "
                     "where a decimal one is meant, or the reverse",
                     bin[i].f, bin[i].a, bin[i].b, bin[i].a, bin[i].f, bin[i].b);
        else
            snprintf(msg, sizeof msg,
                     "Off by %.4g, the ratio of a %s to a %s (1 %s = %.6g %s): a size or a "
                     "rate read in binary units where the question's are decimal, or the "
                     "reverse",
                     bin[i].f, bin[i].a, bin[i].b, bin[i].a, bin[i].f, bin[i].b);
        slip_add(S, want * bin[i].f, SPEC_UNIT, "gib-vs-gb", msg);
        slip_add(S, want / bin[i].f, SPEC_UNIT, "gib-vs-gb", msg);
    }
}

/* Does ex ask how many steps something takes (an integer without a unit, "how many steps"
 * in its prompt at v)? */
static bool asks_steps(const struct lesson_exercise *ex, const struct ex_variant *v)
{
    if (!ex->integer || ex->units[0]) return false;
    char *prompt = ex_prompt(ex, v);
    bool asks = strcasestr(prompt, "how many steps") != NULL;
    free(prompt);
    return asks;
}

/* The factors every collective exercise invites: W (one rank against all ranks) and the
 * ring's (W-1)/W, each way. */
static void slips_world(const struct lesson_exercise *ex, const struct ex_variant *v,
                        double want, struct num_slips *S)
{
    double W = world_size(ex, v);
    char msg[320];
    if (!(W > 2)) return;
    snprintf(msg, sizeof msg,
             "%g times too high, a factor W = %g: all ranks together where one rank is meant, "
             "or W multiplied in once too often?",
             W, W);
    slip_add(S, want * W, SPEC_WORLD, "factor-w", msg);
    snprintf(msg, sizeof msg,
             "%g times too low, a factor W = %g: one rank's share where all ranks together "
             "are meant, or W divided out once too often?",
             W, W);
    slip_add(S, want / W, SPEC_WORLD, "factor-w", msg);
    /* the ring's (W-1)/W is a share of the bytes; a count of steps has none */
    for (int missing = 0; missing < 2 && !asks_steps(ex, v); missing++) {
        snprintf(msg, sizeof msg,
                 "Off by (W-1)/W = %g/%g: the ring's factor (W-1)/W is %s; each rank sends "
                 "W-1 of its W pieces",
                 W - 1, W, missing ? "missing" : "in there once too often");
        slip_add(S, missing ? want * W / (W - 1) : want * (W - 1) / W, SPEC_WORLD,
                 "ring-factor", msg);
    }
}

/* A factor 2 (said where the question has an all-reduce or a link, and in the question's
 * numbers; "exactly" only when it is), or 8 for a size or a bandwidth (bits for bytes). */
static void slips_factor(const struct lesson_exercise *ex, const struct ex_variant *v,
                         double want, double got, struct num_slips *S)
{
    const char *p = ex->prompt ? ex->prompt : "";
    bool ar = strstr(p, "all-reduce") || strstr(p, "allreduce");
    bool link = strstr(p, "link") || strstr(p, "direction");
    char q[96], msg[320];
    question_numbers(ex, v, q, sizeof q);
    for (int hi = 0; hi < 2; hi++) {
        double x = hi ? 2 * want : want / 2;
        bool exact = fabs(got - x) <= 1e-9 * fabs(x);
        const char *why_ar = hi ? " Both halves of the all-reduce counted where one is asked?"
                                : " A ring all-reduce is a reduce-scatter plus an all-gather: "
                                  "one half left out?";
        const char *why_link = hi ? " Both directions of a link where one is asked?"
                                  : " One direction of a link where both are asked?";
        snprintf(msg, sizeof msg,
                 "%s %s the answer: a factor 2 %s.%s%s Go through your working%s%s again",
                 exact ? "Exactly" : "About", hi ? "twice" : "half",
                 hi ? "too many" : "missing", ar ? why_ar : "", link ? why_link : "",
                 q[0] ? " from the question's " : "", q);
        slip_add(S, x, SPEC_FACTOR, "factor-2", msg);
    }
    enum ex_dim dim = DIM_NONE;
    ex_unit_lookup(ex->units, &dim, NULL, NULL);
    for (int hi = 0; (dim == DIM_BYTES || dim == DIM_BANDWIDTH) && hi < 2; hi++) {
        snprintf(msg, sizeof msg,
                 "8 times too %s: a byte is 8 bits, and the answer is in %s (bytes): %s",
                 hi ? "high" : "low", ex->units,
                 hi ? "that number counts bits" : "that number divides by 8 once too often");
        slip_add(S, hi ? want * 8 : want / 8, SPEC_FACTOR, "bits-vs-bytes", msg);
    }
}

/* The index of the exercise's world-size param, or -1. */
static int world_param(const struct lesson_exercise *ex)
{
    static const char *const w_names[] = {"w", "W", "ranks", "nranks", "world"};
    for (size_t i = 0; i < ex->nparams; i++)
        for (size_t k = 0; k < ARRAY_LEN(w_names); k++)
            if (strcmp(ex->params[i].name, w_names[k]) == 0) return (int)i;
    return -1;
}

/* The screen's W for the question's: the formula with the ranks of the slide's scene where
 * the question has its own (64 GB over the scene's 4 ranks for the question's 8). */
static void slips_scene_ranks(const struct lesson_exercise *ex, const struct ex_variant *v,
                              struct num_slips *S)
{
    int wi = world_param(ex);
    double x;
    if (wi < 0 || ex->scene_ranks < 2) return;
    double W = v ? v->param[wi] : ex->params[wi].value;
    if (W == ex->scene_ranks || !value_with(ex, v, (size_t)wi, ex->scene_ranks, &x)) return;
    char msg[320];
    snprintf(msg, sizeof msg,
             "That takes W = %d, the ranks of the slide's scene, where the question has %g",
             ex->scene_ranks, W);
    slip_add(S, x, SPEC_FORMULA, "scene-ranks", msg);
}

/* The ranks a question names: its world-size param, else "8 ranks" (or GPUs) in its
 * prompt; 0 when none. */
static int question_ranks(const struct lesson_exercise *ex, const struct ex_variant *v,
                          const char *prompt)
{
    double W = world_size(ex, v);
    if (W >= 2 && W <= CV_MAX_RANKS && W == floor(W)) return (int)W;
    for (const char *p = prompt; *p; p++) {
        char *e;
        if (!isdigit((unsigned char)*p) || (p > prompt && isalnum((unsigned char)p[-1])))
            continue;
        long n = strtol(p, &e, 10);
        if ((strncmp(e, " ranks", 6) == 0 || strncmp(e, " GPUs", 5) == 0) && n >= 2 &&
            n <= CV_MAX_RANKS)
            return (int)n;
    }
    return 0;
}

/* The collective a prompt names ("tree all-reduce"): the longest of the lecture's
 * spellings found in it. */
static bool question_coll(const char *prompt, enum coll *c)
{
    size_t best = 0;
    for (int k = 0; k < COLL_COUNT; k++) {
        const char *t = coll_title((enum coll)k);
        size_t len = strlen(t);
        const char *at = strstr(prompt, t);
        if (at && len > best && (at == prompt || !isalpha((unsigned char)at[-1])) &&
            !isalpha((unsigned char)at[len])) {
            best = len;
            *c = (enum coll)k;
        }
    }
    return best > 0;
}

/* A ring's phases counted W steps each where the ring takes W - 1 (16 for the ring
 * all-reduce's 14 on 8 ranks): each phase moves the W - 1 pieces a rank does not hold
 * yet. The phases are the engine's ring plan's. */
static void slip_ring_phase(enum coll c, int W, struct num_slips *S)
{
    /* the phases are counted on as many ranks as the engine draws; a ring has as many on
     * any W */
    int w = W < CV_MAX_RANKS ? W : CV_MAX_RANKS;
    struct plan p;
    char err[200];
    if (W < 3 ||
        plan_build(&p, c, ALGO_RING, OP_SUM, w, (size_t)w * 4, 0, err, sizeof err) != CV_OK)
        return;
    long ends[64];
    size_t nph = plan_phase_ends(&p, ends, ARRAY_LEN(ends));
    plan_free(&p);
    for (size_t i = 0; i < nph; i++)
        if (ends[i] - (i ? ends[i - 1] : 0) != w - 1) return; /* not W - 1 a phase */
    char msg[320], phases[48] = "";
    if (nph > 1)
        snprintf(phases, sizeof phases, ", and the %s has %zu phases", coll_title(c), nph);
    snprintf(msg, sizeof msg,
             "That counts W = %d steps a phase: the ring takes W\xe2\x88\x92"
             "1 = %d steps a phase, not W: each rank already holds its own piece, so only "
             "the W\xe2\x88\x92"
             "1 others travel, one a step%s",
             W, W - 1, phases);
    slip_add(S, (double)nph * W, SPEC_FORMULA, "ring-steps", msg);
}

/* A count of steps (an integer answer to a question about steps): another plan's count, or
 * one phase of a plan only, or a ring's phase counted W steps, on the question's ranks, from
 * the plans the engine builds (14 for the tree's 6 on 8 ranks is the ring's). */
static void slips_steps(const struct lesson_exercise *ex, const struct ex_variant *v,
                        struct num_slips *S)
{
    if (!ex->integer || ex->units[0]) return;
    char *prompt = ex_prompt(ex, v);
    enum coll c = COLL_ALL_REDUCE;
    int W = question_ranks(ex, v, prompt);
    bool named = strstr(prompt, "step") && question_coll(prompt, &c), asks = named && W >= 2;
    bool ring = asks_steps(ex, v) && (strstr(prompt, "ring") || ex->scene.algo == ALGO_RING);
    free(prompt);
    /* the question's ranks, more than the engine draws too */
    double Wq = world_size(ex, v);
    if (named && ring)
        slip_ring_phase(c, Wq >= 3 && Wq == floor(Wq) && Wq < 1e6 ? (int)Wq : W, S);
    for (int a = 0; asks && a < ALGO_COUNT; a++) {
        struct plan p;
        char err[200], msg[320];
        if (plan_build(&p, c, (enum algo)a, OP_SUM, W, (size_t)W * 4, 0, err, sizeof err) !=
            CV_OK)
            continue;
        long ends[64];
        size_t nph = plan_phase_ends(&p, ends, ARRAY_LEN(ends));
        snprintf(msg, sizeof msg,
                 "That is the step count of the %s %s on %d ranks: each plan takes its own",
                 algo_name((enum algo)a), coll_title(c), W);
        slip_add(S, (double)p.nsteps, SPEC_FORMULA, "other-plan-steps", msg);
        if (nph >= 2) {
            const char *l = p.steps[ends[0] - 1].phase;
            const char *sp = strrchr(l, ' ');
            size_t len = sp && strchr(sp, '/') ? (size_t)(sp - l) : strlen(l);
            snprintf(msg, sizeof msg,
                     "That is the %s %s's first phase only (%.*s) on %d ranks: it goes on",
                     algo_name((enum algo)a), coll_title(c), (int)len, l, W);
            slip_add(S, (double)ends[0], SPEC_FORMULA, "phase-short", msg);
        }
        plan_free(&p);
    }
}

/* Every slip of ex at v that gives a value other than want. */
static void slips_all(const struct lesson_exercise *ex, const struct ex_variant *v, double want,
                      double got, const char *typed_unit, struct num_slips *S)
{
    slips_listed(ex, v, S);
    slips_param_units(ex, v, S);
    /* the engine's plans first: of two slips with one value, "the ring takes W - 1 steps a
     * phase" says more than the formula's "8 where the answer has 8 - 1" */
    slips_steps(ex, v, S);
    struct ex_formula_slip *fs = xcalloc(FORMULA_SLIPS, sizeof *fs);
    size_t nfs = ex_formula_slips(ex, v, fs, FORMULA_SLIPS);
    for (size_t i = 0; i < nfs; i++)
        slip_add(S, fs[i].value,
                 strcmp(fs[i].code, "partial-result") == 0 ? SPEC_PARTIAL : SPEC_FORMULA,
                 fs[i].code, fs[i].msg);
    free(fs);
    slips_scene_ranks(ex, v, S);
    slips_answer_units(ex, v, want, typed_unit, S);
    slips_world(ex, v, want, S);
    slips_factor(ex, v, want, got, S);
}

/* Two diagnoses of one value as one sentence: "a; or b", a's closing "?" or "." dropped,
 * b's first word lowercased ("Exactly half" -> "exactly half"; "W = 4" stays). */
static void slip_join(char *msg, size_t n, const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 0 && (a[la - 1] == '?' || a[la - 1] == '.'))
        la--;
    bool lower = isupper((unsigned char)b[0]) && islower((unsigned char)b[1]);
    snprintf(msg, n, "%.*s; or %c%s", (int)la, a, lower ? tolower((unsigned char)b[0]) : b[0],
             b[0] ? b + 1 : "");
}

/* The slip a wrong number got is: among the slips whose value lies within tol (relative)
 * of got, the nearest; of slips equally near, the most specific; a second slip with the
 * same value is said too ("...; or that leaves out ..."). False when none lies within
 * tol. */
static bool diagnose_slip(const struct lesson_exercise *ex, const struct ex_variant *v,
                          double got, double want, const char *typed_unit, double tol,
                          double rounding, struct ex_grade *g, char *msg, size_t n)
{
    /* a percent for a ratio (an efficiency for a speed-up): no value to compare */
    if (strcmp(typed_unit, "%") == 0 && strcmp(ex->units, "%") != 0) {
        double want_scale = 1;
        ex_unit_lookup(ex->units, NULL, &want_scale, NULL);
        snprintf(g->diagnosis, sizeof g->diagnosis, "percent");
        snprintf(msg, n, "As a plain number that is %g; the answer is %s", got * want_scale,
                 ex->units[0] ? "a ratio, not a percentage" : "a number, not a percentage");
        return true;
    }
    struct num_slips S = {xcalloc(FORMULA_SLIPS * 2, sizeof *S.v), 0, FORMULA_SLIPS * 2};
    slips_all(ex, v, want, got, typed_unit, &S);
    /* the nearest; of those equally near, the most specific; of two of one kind that the
     * digits typed cannot tell apart (117.7 for 117.73 and 117.74), the first (slips.c
     * gives the outer slip first) */
    const struct num_slip *best = NULL, *also = NULL;
    double dbest = HUGE_VAL;
    for (size_t i = 0; i < S.n; i++) {
        const struct num_slip *s = &S.v[i];
        double a = fabs(got - s->value), d = a / fmax(fabs(s->value), 1e-300);
        if (fabs(s->value - want) <= 1e-9 * fmax(fabs(want), 1e-300) || d > tol) continue;
        /* two slips of one kind that the digits typed cannot tell apart: the first */
        if (best && s->spec == best->spec && a <= rounding * (1 + 1e-9) &&
            fabs(got - best->value) <= rounding * (1 + 1e-9))
            continue;
        if (!best || d < dbest - 1e-12 || (fabs(d - dbest) <= 1e-12 && s->spec < best->spec)) {
            best = s;
            dbest = d;
        }
    }
    /* another slip that gives the very same value in other words is said too (not beside
     * the lesson's own words) */
    bool generic_best = best && (best->spec == SPEC_WORLD || best->spec == SPEC_FACTOR);
    for (size_t i = 0; best && best->spec != SPEC_LISTED && i < S.n && !also; i++)
        if (&S.v[i] != best && strcmp(S.v[i].msg, best->msg) != 0 &&
            /* a usual factor (8 for bits, W) that only happens to give the value is not
             * said beside a slip of this question's own terms */
            (generic_best || (S.v[i].spec != SPEC_WORLD && S.v[i].spec != SPEC_FACTOR)) &&
            fabs(S.v[i].value - best->value) <= 1e-9 * fabs(best->value))
            also = &S.v[i];
    if (best) {
        snprintf(g->diagnosis, sizeof g->diagnosis, "%s", best->code);
        g->slip = best->value;
        if (also && strcmp(also->msg, best->msg) != 0)
            slip_join(msg, n, best->msg, also->msg);
        else
            snprintf(msg, n, "%s", best->msg);
    }
    free(S.v);
    return best != NULL;
}

bool ex_is_fraction(const struct lesson_exercise *ex, double want)
{
    return !ex->units[0] && !ex->integer && fabs(want) <= 1;
}

/* Words only (letters, blanks, '-'): what a count counts, not a unit. */
static bool noun(const char *s)
{
    if (!isalpha((unsigned char)*s)) return false;
    for (; *s; s++)
        if (!isalpha((unsigned char)*s) && *s != ' ' && *s != '-') return false;
    return true;
}

int ex_grade_number(const struct lesson_exercise *ex, const struct ex_variant *v,
                    const char *in, struct ex_grade *g)
{
    double want = v ? v->answer : ex->answer;
    const char *end;
    double x;
    char echo[64];
    echo_copy(in, echo, sizeof echo);
    if (!*in) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "type a number%s%s", ex->units[0] ? " in " : "",
                 ex->units);
        return CV_OK;
    }
    if (!read_answer_number(in, &x, &end)) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg,
                 "'%s' is not a number (e.g. 420, 524,288, 5.2e5, 3/7, 0.42 TB/s)", echo);
        return CV_OK;
    }
    char unit[32];
    trim(end, unit, sizeof unit);
    const char *u = unit[0] ? unit : ex->units;
    enum ex_dim dim, want_dim = DIM_NONE;
    double scale, want_scale = 1;
    char eu[40];
    echo_copy(u, eu, 24);
    ex_unit_lookup(ex->units, &want_dim, &want_scale, NULL);
    if (ex_unit_lookup(u, &dim, &scale, NULL) != CV_OK && want_dim == DIM_NONE && noun(u)) {
        /* a count or a ratio: "7 steps", "32 replicas" name what is counted */
        u = ex->units;
        unit[0] = '\0';
        ex_unit_lookup(u, &dim, &scale, NULL);
    }
    if (ex_unit_lookup(u, &dim, &scale, NULL) != CV_OK) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "unknown unit '%s'", eu);
        return CV_OK;
    }
    if (dim != want_dim) {
        g->verdict = EX_WRONG_UNIT;
        snprintf(g->msg, sizeof g->msg, "wrong unit: %s is %s; the answer is %s%s%s", eu,
                 dim_name(dim), dim_name(want_dim), ex->units[0] ? " in " : "", ex->units);
        return CV_OK;
    }
    double got = x * scale / want_scale;
    if (ex->integer && !is_whole(got)) {
        ex_grade_wrong(g, "not-whole",
                       "not right: %s is not a whole number; the answer is a count", echo);
        return CV_OK;
    }
    if (strcmp(u, "%") == 0 && (strcmp(ex->units, "x") == 0 || ex_is_fraction(ex, want))) {
        /* 333% is no way to write 3.33x: a ratio is how many times, not a percentage; and
         * 43% is no way to write the fraction 0.43 the question asks for */
        if (strcmp(ex->units, "x") == 0)
            ex_grade_wrong(g, "percent",
                           "not right: %s is a percentage; the answer is a ratio (how many "
                           "times, x): write it as a plain number",
                           echo);
        else
            ex_grade_wrong(g, "percent",
                           "not right: %s is a percentage; the question asks for a fraction (a "
                           "quarter is 0.25, not 25%%): write it as a plain number",
                           echo);
        return CV_OK;
    }
    double rounding = typed_half_digit(in, ex->integer) * scale / want_scale;
    /* the echo: what was typed, with the exercise's unit when none was typed and the unit
     * is a real one (a count or a ratio echoes the bare number) */
    char shown[100];
    bool real_unit = want_dim != DIM_NONE;
    snprintf(shown, sizeof shown, "%s%s%s", echo, !unit[0] && real_unit ? " " : "",
             !unit[0] && real_unit ? ex->units : "");
    /* a count is exact (1268 is not 1280) unless written to fewer digits (5.2e5 for
     * 524288); a measure is right within the tolerance, or rounded to the digits typed */
    bool rounded = fabs(got - want) <= rounding * (1 + 1e-9);
    bool right =
        /* a count typed in another unit (0.067 GB for 67 MB) is whole only to rounding */
        ex->integer ? round(got) == want || rounded : near(got, want, ex->tolerance) || rounded;
    /* a known slip is never right: the answer must be nearer want than any slip */
    bool too_close = right && !(fabs(got - want) < nearest_slip_gap(ex, v, want) / 2);
    right = right && !too_close;
    too_close = too_close && rounded; /* typed to too few digits to tell the two apart */
    if (right) {
        g->verdict = EX_RIGHT;
        char wnum[48];
        bool exact = answer_beside(want, typed_sig(in), wnum, sizeof wnum);
        /* nothing to add where the typed is the answer (3/7) or what would be said */
        if (fabs(got - want) <= 1e-12 * fmax(fabs(want), 1e-300) ||
            fabs(got - strtod(wnum, NULL)) <= 1e-12 * fabs(got))
            snprintf(g->msg, sizeof g->msg, "right: %s", shown);
        else
            snprintf(g->msg, sizeof g->msg, "right: %s (%s %s%s%s)", shown,
                     exact ? "exactly" : "\xe2\x89\x88", wnum, real_unit ? " " : "",
                     real_unit ? ex->units : "");
        return CV_OK;
    }
    g->verdict = EX_WRONG;
    char why[360];
    /* a slip is named when its value lies within the exercise's tolerance of the typed (or
     * of the digits typed) */
    double tol = fmax(ex->tolerance, got != 0 ? rounding / fabs(got) : 0);
    if (!diagnose_slip(ex, v, got, want, unit[0] ? unit : ex->units, tol, rounding, g, why,
                       sizeof why)) {
        ex_grade_wrong(g, got < want ? "too-low" : "too-high", "not right: %s is too %s%s",
                       shown, got < want ? "low" : "high",
                       too_close ? " (nearer a usual slip than the answer: type more digits)"
                                 : "");
        return CV_OK;
    }
    int k = snprintf(g->msg, sizeof g->msg, "not right: %s. %s", shown, why);
    if (too_close && k > 0 && (size_t)k < sizeof g->msg)
        snprintf(g->msg + k, sizeof g->msg - (size_t)k, "%s",
                 " (If you made no slip: type more digits; rounded like this, the answer "
                 "and the slip look alike.)");
    return CV_OK;
}

void ex_grade_wrong(struct ex_grade *g, const char *diagnosis, const char *fmt, ...)
{
    g->verdict = EX_WRONG;
    snprintf(g->diagnosis, sizeof g->diagnosis, "%s", diagnosis);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->msg, sizeof g->msg, fmt, ap);
    va_end(ap);
}

int ex_grade(const struct lesson_exercise *ex, const struct ex_variant *v, const char *input,
             struct ex_grade *g)
{
    char in[256];
    trim(input ? input : "", in, sizeof in);
    memset(g, 0, sizeof *g);
    g->slip = NAN;
    return ex_type((int)ex->type)->grade(ex, v, in, g);
}

/* ---- predict first ---------------------------------------------------------------------- */

/* The numbers of text, each with the unit written right after it (or ""): at most cap.
 * With words, numbers written in words count too ("eighty times"). Each knows how it is
 * hedged ("about 80", "more than eighty") and the unit of its last stated digit. */
struct text_num {
    double x;
    const char *start, *end; /* the number and its unit in text */
    char unit[16];
    double ulp;          /* the unit of the last stated digit: 10 for "80" and "eighty" */
    enum ex_hedge hedge; /* "about", "more than"... just before it */
    bool worded;         /* written in words */
};

/* The number at p (a word's start), digits or (with words) words: CV_OK with *x, *end. */
static bool text_number_at(const char *text, const char *p, bool words, struct text_num *t,
                           const char **end)
{
    bool boundary = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '.' ||
                                   p[-1] == '_' || p[-1] == '^');
    if (!boundary) return false;
    t->worded = false;
    if (isdigit((unsigned char)*p)) {
        /* "524,288" is one number; "60, 64" two */
        if (!read_answer_number(p, &t->x, end) && !read_number(p, &t->x, end)) return false;
        if ((*end)[-1] == '.') (*end)--; /* "... 72." ends a sentence, not the number */
        t->ulp = ex_number_ulp(p, *end);
        return true;
    }
    if (!words || !isalpha((unsigned char)*p) || !ex_number_words(p, &t->x, &t->ulp, end))
        return false;
    t->worded = true;
    return true;
}

static size_t text_numbers(const char *text, bool words, struct text_num *out, size_t cap)
{
    size_t k = 0;
    for (const char *p = text; *p && k < cap;) {
        const char *end;
        struct text_num *t = &out[k];
        if (!text_number_at(text, p, words, t, &end)) {
            p++;
            continue;
        }
        k++;
        t->start = p;
        t->hedge = ex_hedge_before(text, p);
        t->unit[0] = '\0';
        const char *u = end;
        if (*u == ' ') u++;
        /* the longest unit spelled right there, ending at a word's end */
        size_t best = 0;
        for (size_t i = 0; i < ARRAY_LEN(units); i++) {
            size_t l = strlen(units[i].name);
            if (l > best && strncmp(u, units[i].name, l) == 0 &&
                !isalnum((unsigned char)u[l]) && l < sizeof t->unit) {
                best = l;
                memcpy(t->unit, units[i].name, l + 1);
            }
        }
        t->end = best ? u + best : end;
        p = end;
    }
    return k;
}

/* Is the number at p (in text) the number of a place: "lesson 8", "Slide 3", "step 4"? */
static bool text_names_place(const char *text, const char *p)
{
    static const char *const words[] = {"lesson",   "slide", "step",   "problem",
                                        "exercise", "part",  "chapter"};
    if (p - text < 2 || p[-1] != ' ') return false;
    const char *end = p - 1, *b = end;
    while (b > text && isalpha((unsigned char)b[-1]))
        b--;
    if (b > text && b[-1] == '/') return false; /* "sent/step 24 MiB": a rate */
    for (size_t i = 0; i < ARRAY_LEN(words); i++)
        if ((size_t)(end - b) == strlen(words[i]) && strncasecmp(b, words[i], end - b) == 0)
            return true;
    return false;
}

static void found_copy(const char *a, const char *b, char *found, size_t n)
{
    if (found && n) snprintf(found, n, "%.*s", (int)(b - a < 60 ? b - a : 60), a);
}

#define TEXT_NUMS 256

/* A box value a text may name by chance: a whole number from -9 to 9 (a rank, a slot, a
 * step, a count of ranks). Anything else (10 and up, a fraction) is a value to compute. */
static bool trivial_value(double v)
{
    return v == round(v) && fabs(v) < 10;
}

/* Is v one of in[0..n) (holds_inputs: the values some rank starts with)? */
static bool input_value(const double *in, size_t n, double v)
{
    for (size_t i = 0; i < n; i++)
        if (fabs(in[i] - v) <= 1e-3 * fmax(1.0, fabs(v))) return true;
    return false;
}

/* The distinct computed values of a holds answer (want[0..m)), at least three of them,
 * each stated somewhere in text as a bare number (not "slide 3", not "64 GB"), in any
 * order and wherever they stand: "rank 0 has 60 in slot 0, rank 1 64 in slot 1, rank 2 68,
 * rank 3 72" gives away the box 60 64 68 72 as surely as the row does. Computed: not a
 * tiny value (a whole number from -9 to 9 stands in every text) and not one of the inputs
 * (a text states those; an answer that only moves them is caught as a run). */
static bool holds_values_scattered(const struct lesson_exercise *ex, const double *want,
                                   size_t m, const char *text, const struct text_num *t,
                                   size_t nt, char *found, size_t n)
{
    double d[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    size_t nd = 0, nin = 0;
    const size_t capin = SCENE_MAX_COUNT * CV_MAX_RANKS * 2 * CV_MAX_RANKS;
    double *in = NULL; /* the inputs, read once at the first value that needs them */
    for (size_t i = 0; i < m; i++) {
        if (trivial_value(want[i])) continue;
        if (!in) {
            in = xmalloc(capin * sizeof *in);
            nin = holds_inputs(ex, in, capin);
        }
        if (input_value(in, nin, want[i])) continue;
        bool dup = false;
        for (size_t k = 0; k < nd && !dup; k++)
            dup = fabs(d[k] - want[i]) <= 1e-3 * fmax(1.0, fabs(want[i]));
        if (!dup) d[nd++] = want[i];
    }
    free(in);
    if (nd < 3) return false;
    const char *first = NULL, *last = NULL;
    for (size_t k = 0; k < nd; k++) {
        bool seen = false;
        for (size_t i = 0; i < nt && !seen; i++) {
            if (t[i].unit[0] || text_names_place(text, t[i].start)) continue;
            if (fabs(t[i].x - d[k]) > 1e-3 * fmax(1.0, fabs(d[k]))) continue;
            seen = true;
            if (!first || t[i].start < first) first = t[i].start;
            if (!last || t[i].end > last) last = t[i].end;
        }
        if (!seen) return false;
    }
    found_copy(first, last, found, n);
    return true;
}

bool ex_answer_in_text(const struct lesson_exercise *ex, const char *text, char *found,
                       size_t n)
{
    if (!text || ex_answer_form(ex) == EX_ANSWER_OPTION) return false;
    struct text_num *t = xcalloc(TEXT_NUMS, sizeof *t);
    size_t nt = text_numbers(text, ex_answer_form(ex) == EX_ANSWER_NUMBER, t, TEXT_NUMS);
    bool hit = false;
    if (ex_answer_form(ex) == EX_ANSWER_NUMBER) {
        enum ex_dim want_dim = DIM_NONE;
        double want_scale = 1;
        ex_unit_lookup(ex->units, &want_dim, &want_scale, NULL);
        for (size_t i = 0; i < nt && !hit; i++) {
            enum ex_dim d = want_dim;
            double sc = want_scale;
            if (t[i].unit[0] && ex_unit_lookup(t[i].unit, &d, &sc, NULL) != CV_OK) continue;
            if (d != want_dim) continue;
            /* a bare number in a list of values ("6 10 14 18": what boxes hold) is not a
             * statement of the answer */
            bool listed = !t[i].unit[0] &&
                          ((i > 0 && t[i - 1].end + 1 == t[i].start && *t[i - 1].end == ' ') ||
                           (i + 1 < nt && t[i].end + 1 == t[i + 1].start && *t[i].end == ' '));
            if (listed) continue;
            /* "8 ranks" counts something else when the answer has a unit */
            const char *w = t[i].end;
            while (*w == ' ')
                w++;
            if (!t[i].unit[0] && (want_dim != DIM_NONE || ex->units[0]) &&
                (isalpha((unsigned char)*w) || (*w == '\'' && isalpha((unsigned char)w[1]))))
                continue; /* "8 ranks", "Lesson 8 showed", "lesson 8's" for an 8x answer */
            if (text_names_place(text, t[i].start)) continue; /* "lesson 8", "slide 3" */
            /* a count without a unit is stated as a count of something ("14 steps"); a
             * bare whole number is a value ("rank 2 gets 14,") */
            if (!t[i].unit[0] && !ex->units[0] && ex->answer == round(ex->answer) &&
                !isalpha((unsigned char)*w))
                continue;
            /* stated approximately: "more than eighty times", "about 400 GB/s", "eighty
             * times" (a round number in words; "one" or "two" alone is exact) */
            bool approx = (t[i].hedge != EX_HEDGE_NONE || (t[i].worded && t[i].ulp >= 10)) &&
                          ex_hedged_match(t[i].hedge, t[i].x * sc / want_scale,
                                          t[i].ulp * sc / want_scale, ex->answer);
            if (approx || near(t[i].x * sc / want_scale, ex->answer, ex->tolerance)) {
                hit = true;
                found_copy(t[i].start, t[i].end, found, n);
            }
        }
    } else if (ex_answer_form(ex) == EX_ANSWER_VALUES) {
        float v[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
        bool has[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
        size_t len = 0, m = 0;
        char err[200];
        double want[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
        if (ex_holds_expected(ex, v, has, ARRAY_LEN(v), &len, err, sizeof err) == CV_OK)
            for (size_t i = 0; i < len; i++)
                if (has[i]) want[m++] = v[i];
        /* two values ("0 10") are too common to mean the answer */
        for (size_t i = 0; m >= 3 && i + m <= nt && !hit; i++) {
            size_t j = 0;
            while (j < m && fabs(t[i + j].x - want[j]) <= 1e-3 * fmax(1.0, fabs(want[j])))
                j++;
            if (j == m) {
                hit = true;
                found_copy(t[i].start, t[i + m - 1].end, found, n);
            }
        }
        if (!hit) hit = holds_values_scattered(ex, want, m, text, t, nt, found, n);
    }
    free(t);
    return hit;
}

bool ex_answer_distinct(const struct lesson_exercise *ex)
{
    if (ex_answer_form(ex) == EX_ANSWER_VALUES) return true;
    if (ex_answer_form(ex) != EX_ANSWER_NUMBER) return false;
    bool whole = ex->answer == round(ex->answer);
    /* a ratio of any size is recognisable with its unit ("D/B = 8x"): the screens' masks
     * and the walk compare a ratio only with that unit */
    enum ex_dim d;
    double sc;
    const char *c;
    if (ex->units[0] && ex_unit_lookup(ex->units, &d, &sc, &c) == CV_OK &&
        (strcmp(c, "x") == 0 || strcmp(c, "%") == 0))
        return true;
    return ex->units[0] ? !(whole && fabs(ex->answer) < 10) : whole && fabs(ex->answer) >= 1000;
}

/* The values with data of what ex asks (at most cap), or 0. */
static size_t holds_data(const struct lesson_exercise *ex, double *out, size_t cap)
{
    float v[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    bool has[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    size_t len = 0, n = 0;
    char err[200];
    if (ex_holds_expected(ex, v, has, ARRAY_LEN(v), &len, err, sizeof err) != CV_OK) return 0;
    for (size_t i = 0; i < len && n < cap; i++)
        if (has[i]) out[n++] = v[i];
    return n;
}

bool ex_holds_is_input_of(const struct lesson_exercise *ex, const struct scene *sc)
{
    if (ex_answer_form(ex) != EX_ANSWER_VALUES || sc->screen != SCREEN_COLLECTIVES)
        return false;
    double want[SCENE_MAX_COUNT * CV_MAX_RANKS * 2], got[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    size_t nw = holds_data(ex, want, ARRAY_LEN(want));
    if (nw == 0) return false;
    for (int r = 0; r < sc->nranks; r++) {
        struct lesson_exercise in = *ex;
        in.scene = *sc;
        in.rank = r;
        in.step = 0;
        in.slots = false;
        size_t ng = holds_data(&in, got, ARRAY_LEN(got));
        for (size_t a = 0; a + nw <= ng; a++) {
            size_t i = 0;
            while (i < nw && got[a + i] == want[i])
                i++;
            if (i == nw) return true;
        }
    }
    return false;
}
