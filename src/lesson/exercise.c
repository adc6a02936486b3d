/* exercise.c - formulas (muParser's C API), units, variants and grading of lesson exercises.
 *
 * A formula sees only its exercise's params and a short list of functions: muParser's own
 * functions and constants are cleared and ours defined, and the parser (lesson.c) refuses
 * characters for assignment, comparison and strings, so a formula computes a number and
 * nothing else. Holds answers are never stored: ex_holds_expected builds the plan of the
 * slide's scene and runs the trace engine to the asked step, every time. */
#include "exercise.h"

#include <ctype.h>
#include <math.h>
#include <muParserDLL.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/init.h"
#include "../core/plan.h"
#include "../core/trace.h"
#include "../core/util.h"

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

int ex_formula_eval(const char *formula, const char *const *names, const double *vals, size_t n,
                    double *out, char *err, size_t errlen)
{
    if (!formula || !*formula) return cv_err(err, errlen, CV_EINVAL, "empty formula");
    if (strlen(formula) > LESSON_MAX_FORMULA)
        return cv_err(err, errlen, CV_EINVAL, "formula longer than %d characters",
                      LESSON_MAX_FORMULA);
    if (n > LESSON_MAX_PARAMS)
        return cv_err(err, errlen, CV_EINVAL, "more than %d variables", LESSON_MAX_PARAMS);
    /* names, numbers, + - * / ^ ( ) , and blanks: no assignment, comparison, ternary or
     * string reaches muParser */
    for (const char *p = formula; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch < 0x80 && (isalnum(ch) || strchr("_.+-*/^(), \t", ch))) continue;
        if (ch >= 0x20 && ch < 0x7f)
            return cv_err(err, errlen, CV_EINVAL, "character '%c' is not allowed in a formula",
                          ch);
        return cv_err(err, errlen, CV_EINVAL, "byte 0x%02x is not allowed in a formula", ch);
    }
    muParserHandle_t h = mupCreate(muBASETYPE_FLOAT);
    if (!h) return cv_err(err, errlen, CV_ENOMEM, "formula parser could not start");
    mupClearConst(h);
    mupClearFun(h);
    mupDefineFun1(h, "sqrt", f_sqrt, 1);
    mupDefineFun1(h, "log2", f_log2, 1);
    mupDefineFun1(h, "ln", f_ln, 1);
    mupDefineFun1(h, "exp", f_exp, 1);
    mupDefineFun1(h, "abs", f_abs, 1);
    mupDefineMultFun(h, "min", f_min, 1);
    mupDefineMultFun(h, "max", f_max, 1);
    double v[LESSON_MAX_PARAMS];
    int rc = CV_OK;
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
    {"times", DIM_NONE, 1, "x"},
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

/* ---- variants --------------------------------------------------------------------------- */

bool ex_has_variants(const struct lesson_exercise *ex)
{
    if (ex->type != LEX_NUMBER) return false;
    for (size_t i = 0; i < ex->nparams; i++)
        if (ex->params[i].ranged) return true;
    return false;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double round3(double x) /* to 3 significant digits */
{
    char b[32];
    snprintf(b, sizeof b, "%.2e", x);
    return strtod(b, NULL);
}

static int variant_eval(const struct lesson_exercise *ex, const double *vals, double *out,
                        char *err, size_t errlen)
{
    const char *names[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < ex->nparams; i++)
        names[i] = ex->params[i].name;
    int rc = ex_formula_eval(ex->formula, names, vals, ex->nparams, out, err, errlen);
    if (rc == CV_OK && !isfinite(*out))
        rc = cv_err(err, errlen, CV_EINVAL,
                    "the answer is not a finite number for these values");
    return rc;
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
    if (seed != 0) {
        if (!ex_has_variants(ex))
            return cv_err(err, errlen, CV_EINVAL,
                          "exercise %s has no param with a range: no variants", ex->id);
        /* the stream depends on the seed and the id (FNV-1a), not on the file's layout */
        uint64_t h = 0xcbf29ce484222325ULL;
        for (const char *p = ex->id; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
        uint64_t st = seed ^ h;
        for (size_t i = 0; i < ex->nparams; i++) {
            const struct lesson_param *p = &ex->params[i];
            if (!p->ranged) continue;
            double u = (double)(splitmix64(&st) >> 11) * 0x1.0p-53; /* [0, 1) */
            double x;
            if (p->integer) {
                double span = p->hi - p->lo + 1;
                x = p->lo + floor(u * span);
                if (x > p->hi) x = p->hi;
            } else {
                x = round3(p->lo + u * (p->hi - p->lo));
                if (x < p->lo || x > p->hi) x = round3((p->lo + p->hi) / 2);
                if (x < p->lo || x > p->hi) x = p->value;
            }
            v->param[i] = x;
        }
    }
    return variant_eval(ex, v->param, &v->answer, err, errlen);
}

void ex_prompt_format(const struct lesson_exercise *ex, const struct ex_variant *v, char *buf,
                      size_t n)
{
    if (!n) return;
    size_t len = 0;
    buf[0] = '\0';
    const char *p = ex->prompt ? ex->prompt : "";
    while (*p && len + 1 < n) {
        if (*p == '{') {
            const char *close = strchr(p, '}');
            size_t i;
            for (i = 0; close && i < ex->nparams; i++)
                if (strlen(ex->params[i].name) == (size_t)(close - p - 1) &&
                    strncmp(p + 1, ex->params[i].name, (size_t)(close - p - 1)) == 0)
                    break;
            if (close && i < ex->nparams) {
                char num[40];
                ex_format_number(v ? v->param[i] : ex->params[i].value, num, sizeof num);
                int k = snprintf(buf + len, n - len, "%s", num);
                if (k < 0 || (size_t)k >= n - len) {
                    len = n - 1;
                    break;
                }
                len += (size_t)k;
                p = close + 1;
                continue;
            }
        }
        buf[len++] = *p++;
    }
    buf[len < n ? len : n - 1] = '\0';
}

/* ---- holds ------------------------------------------------------------------------------ */

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
    size_t count = scene_count(s);
    int root = coll_is_rooted(s->coll) ? s->root : 0;
    struct plan p;
    int rc = plan_build(&p, s->coll, s->algo, s->op, s->nranks, count, root, err, errlen);
    if (rc != CV_OK) return rc;
    float *send[CV_MAX_RANKS] = {0};
    for (int r = 0; r < s->nranks; r++) {
        size_t ns = coll_send_count(s->coll, s->nranks, count, r, root);
        send[r] = xcalloc(ns ? ns : 1, sizeof(float));
        init_fill(s->init, s->coll, s->nranks, count, root, s->seed, r, send[r]);
    }
    struct trace t;
    rc = trace_run(&t, &p, send, err, errlen);
    if (rc == CV_OK) {
        size_t step = ex->step == SCENE_STEP_END || (size_t)ex->step > p.nsteps
                          ? p.nsteps
                          : (size_t)ex->step;
        size_t L = p.work_len;
        if (L > cap) {
            rc = cv_err(err, errlen, CV_ENOMEM, "rank %d holds %zu elements (more than %zu)",
                        ex->rank, L, cap);
        } else {
            const float *b = trace_buf(&t, step, ex->rank);
            const uint32_t *m = trace_mask(&t, step, ex->rank);
            for (size_t i = 0; i < L; i++) {
                vals[i] = b[i];
                has[i] = m[i] != 0;
            }
            *len = L;
        }
        trace_free(&t);
    }
    for (int r = 0; r < s->nranks; r++)
        free(send[r]);
    plan_free(&p);
    return rc;
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

static int grade_number(const struct lesson_exercise *ex, const struct ex_variant *v,
                        const char *in, struct ex_grade *g)
{
    double want = v ? v->answer : ex->answer;
    const char *end;
    double x;
    if (!*in) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "type a number%s%s", ex->units[0] ? " in " : "",
                 ex->units);
        return CV_OK;
    }
    if (!read_number(in, &x, &end)) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "'%.40s' is not a number", in);
        return CV_OK;
    }
    char unit[32];
    trim(end, unit, sizeof unit);
    const char *u = unit[0] ? unit : ex->units;
    enum ex_dim dim, want_dim = DIM_NONE;
    double scale, want_scale = 1;
    if (ex_unit_lookup(u, &dim, &scale, NULL) != CV_OK) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "unknown unit '%.20s'", u);
        return CV_OK;
    }
    ex_unit_lookup(ex->units, &want_dim, &want_scale, NULL);
    if (dim != want_dim) {
        g->verdict = EX_WRONG_UNIT;
        snprintf(g->msg, sizeof g->msg, "wrong unit: %s is %s; the answer is %s%s%s", u,
                 dim_name(dim), dim_name(want_dim), ex->units[0] ? " in " : "", ex->units);
        return CV_OK;
    }
    double got = x * scale / want_scale;
    double tol = ex->tolerance * fabs(want);
    char wnum[40], gnum[40];
    snprintf(wnum, sizeof wnum, "%.4g", want);
    if (want == floor(want) && fabs(want) < 1e15) ex_format_number(want, wnum, sizeof wnum);
    snprintf(gnum, sizeof gnum, "%.4g", got);
    if (fabs(got - want) <= tol || got == want) {
        g->verdict = EX_RIGHT;
        snprintf(g->msg, sizeof g->msg, "right: %s %s", wnum, ex->units);
    } else {
        g->verdict = EX_WRONG;
        snprintf(g->msg, sizeof g->msg, "not right: %s %s is too %s", gnum, ex->units,
                 got < want ? "low" : "high");
    }
    return CV_OK;
}

static int grade_choice(const struct lesson_exercise *ex, const char *in, struct ex_grade *g)
{
    long n;
    if (parse_long(in, 1, (long)ex->noptions, &n) != CV_OK) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "type the number of an option (1..%zu)", ex->noptions);
        return CV_OK;
    }
    if (n == ex->correct) {
        g->verdict = EX_RIGHT;
        snprintf(g->msg, sizeof g->msg, "right: %ld", n);
    } else {
        g->verdict = EX_WRONG;
        snprintf(g->msg, sizeof g->msg, "not right: option %ld", n);
    }
    return CV_OK;
}

#define HOLDS_MAX (SCENE_MAX_COUNT * CV_MAX_RANKS * 2)

static int grade_holds(const struct lesson_exercise *ex, const char *in, struct ex_grade *g)
{
    float want[HOLDS_MAX];
    bool has[HOLDS_MAX];
    size_t n;
    char err[200];
    int rc = ex_holds_expected(ex, want, has, HOLDS_MAX, &n, err, sizeof err);
    if (rc != CV_OK) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "cannot grade: %s", err);
        return rc;
    }
    size_t k = 0, differ = 0;
    const char *p = in;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '[' || *p == ']')
            p++;
        if (!*p) break;
        bool empty = false;
        double x = 0;
        if (*p == '.' && !isdigit((unsigned char)p[1])) {
            empty = true;
            p++;
        } else if (strncmp(p, "\xc2\xb7", 2) == 0) { /* middle dot */
            empty = true;
            p += 2;
        } else {
            const char *end;
            if (!read_number(p, &x, &end) || (*end && !strchr(" \t,[]", *end))) {
                g->verdict = EX_BAD_INPUT;
                snprintf(g->msg, sizeof g->msg,
                         "'%.20s' is not a value (numbers, '.' for an empty element)", p);
                return CV_OK;
            }
            p = end;
        }
        if (k < n) {
            bool ok = empty ? !has[k]
                            : has[k] && fabs(x - want[k]) <= 1e-3 * fmax(1.0, fabs(want[k]));
            if (!ok) differ++;
        }
        k++;
    }
    if (k != n) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "rank %d holds %zu elements; you typed %zu", ex->rank,
                 n, k);
        return CV_OK;
    }
    if (differ == 0) {
        g->verdict = EX_RIGHT;
        snprintf(g->msg, sizeof g->msg, "right: rank %d holds", ex->rank);
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(g->msg);
            char num[40];
            if (has[i])
                ex_format_number(want[i], num, sizeof num);
            else
                snprintf(num, sizeof num, ".");
            snprintf(g->msg + l, sizeof g->msg - l, " %s", num);
        }
    } else {
        g->verdict = EX_WRONG;
        snprintf(g->msg, sizeof g->msg, "not right: %zu of %zu elements differ", differ, n);
    }
    return CV_OK;
}

int ex_grade(const struct lesson_exercise *ex, const struct ex_variant *v, const char *input,
             struct ex_grade *g)
{
    char in[256];
    trim(input ? input : "", in, sizeof in);
    memset(g, 0, sizeof *g);
    switch (ex->type) {
    case LEX_NUMBER:
        return grade_number(ex, v, in, g);
    case LEX_CHOICE:
        return grade_choice(ex, in, g);
    case LEX_HOLDS:
        return grade_holds(ex, in, g);
    default:
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "unknown exercise type");
        return CV_EINVAL;
    }
}
