/* test_lesson_feedback.c - every text a student reads about an exercise is readable: the
 * grading message of every slip of every exercise of every shipped lesson (number exercises
 * at their lecture's numbers and 20 variants, 1 in the ASan build: see VARIANTS; holds
 * exercises with every other rank's box, every other step and the input; every option of a
 * choice), the solution, the hints and the answer line. None holds a raw number of more
 * than 6 significant digits ("419430400", "13631488") or a power of ten used as a factor
 * ("× 1000000 / (50 × 1000000000)", the formula with its unit conversions written out):
 * numbers are written with units (1 MB, 50 GB/s) or in scientific form. Exempt: the
 * numbers the student typed (echoed), the question's own numbers as its prompt writes
 * them, and a count's exact answer (the student types it in full: 524288 elements). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "lesson/types/types.h"

#define MAXV 1024

/* The variants swept of each number exercise beside its lecture's numbers (seed 0), and
 * the fewest texts the sweep must check. The normal build sweeps 20 variants (62290 texts
 * on the shipped lessons): how readable a text is depends on the numbers drawn, so the
 * readability assertions are made over the whole sweep there. The ASan+UBSan build (make
 * test runs both) sweeps 1 (7406 texts): what it adds is the memory and UB checks, and the
 * lecture's numbers and one drawn variant run every exercise's grading, slips, solution,
 * hints and answer line; the other 19 run the same code with other numbers, and cost 30 s
 * of CPU there. */
#if defined(__SANITIZE_ADDRESS__)
#define VARIANTS 1
#define MIN_TEXTS 5000
#else
#define VARIANTS 20
#define MIN_TEXTS 40000
#endif

struct tally {
    size_t texts, bad, long_digits, power_factor;
};

/* Is the number token [s, e) one of the exempt texts' tokens (the same characters, as a
 * whole number there)? */
static bool token_in(const char *s, const char *e, const char *text)
{
    size_t len = (size_t)(e - s);
    for (const char *p = text; p && *p; p++) {
        if (strncmp(p, s, len) != 0) continue;
        bool before = p == text || !(isdigit((unsigned char)p[-1]) || p[-1] == '.');
        bool after = !(isdigit((unsigned char)p[len]) ||
                       (p[len] == '.' && isdigit((unsigned char)p[len + 1])));
        if (before && after) return true;
    }
    return false;
}

/* Significant digits of a number written s..e (mantissa only; an integer's trailing zeros
 * are not significant). */
static int sig_digits(const char *s, const char *e)
{
    const char *m = s;
    while (m < e && (isdigit((unsigned char)*m) || *m == '.'))
        m++;
    bool frac = memchr(s, '.', (size_t)(m - s)) != NULL;
    int n = 0, trailing = 0;
    bool seen = false;
    for (const char *p = s; p < m; p++) {
        if (*p == '.') continue;
        if (*p != '0') seen = true;
        if (!seen) continue;
        n++;
        trailing = *p == '0' ? trailing + 1 : 0;
    }
    return frac ? n : n - trailing;
}

/* A power of ten of 1000 or more (or 0.001 or less), in any notation. */
static bool big_power_of_ten(double x)
{
    if (!(x > 0)) return false;
    double l = log10(x);
    return fabs(l - round(l)) < 1e-9 && fabs(l) >= 3;
}

/* The previous and next non-blank characters around [s, e): is either an operator of a
 * product (× * /)? */
static bool is_factor(const char *text, const char *s, const char *e)
{
    const char *p = s;
    while (p > text && (p[-1] == ' ' || p[-1] == '('))
        p--;
    bool before =
        (p > text && (p[-1] == '*' || p[-1] == '/')) ||
        (p - text >= 2 && (unsigned char)p[-2] == 0xc3 && (unsigned char)p[-1] == 0x97);
    const char *q = e;
    while (*q == ' ' || *q == ')')
        q++;
    bool after =
        *q == '*' || *q == '/' || ((unsigned char)q[0] == 0xc3 && (unsigned char)q[1] == 0x97);
    return before || after;
}

/* Check text; exempt: the numbers of each of the NULL-ended list. */
static void check_text(struct tally *t, const char *id, const char *what, const char *text,
                       const char *const *exempt)
{
    t->texts++;
    const char *why = NULL, *at = NULL, *end = NULL;
    for (const char *p = text; *p && !why; p++) {
        if (!isdigit((unsigned char)*p)) continue;
        if (p > text && (isalpha((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '.' ||
                         isdigit((unsigned char)p[-1])))
            continue; /* "log2", "fp32", the middle of a number */
        const char *e = p;
        while (isdigit((unsigned char)*e) || (*e == '.' && isdigit((unsigned char)e[1])))
            e++;
        if ((*e == 'e' || *e == 'E') &&
            (isdigit((unsigned char)e[1]) ||
             ((e[1] == '-' || e[1] == '+') && isdigit((unsigned char)e[2])))) {
            e += 2;
            while (isdigit((unsigned char)*e))
                e++;
        }
        bool ex = false;
        for (size_t k = 0; exempt[k] && !ex; k++)
            ex = token_in(p, e, exempt[k]);
        if (!ex) {
            double x = strtod(p, NULL);
            bool sci = memchr(p, 'e', (size_t)(e - p)) || memchr(p, 'E', (size_t)(e - p));
            if (sig_digits(p, e) > 6) {
                why = "more than 6 significant digits";
                t->long_digits++;
            } else if (big_power_of_ten(x) && is_factor(text, p, e)) {
                why = "a power of ten as a factor";
                t->power_factor++;
            } else if (!sci && x >= 1e7) {
                why = "a raw number of 8 digits or more";
                t->long_digits++;
            }
            at = p;
            end = e;
        }
        p = e - 1;
    }
    if (why) {
        if (t->bad++ < 40)
            printf("%s %s: %s ('%.*s'): %s\n", id, what, why, (int)(end - at), at, text);
    }
}

static void check_grade(struct tally *t, const struct lesson_exercise *ex,
                        const struct ex_variant *v, const char *typed, const char *prompt,
                        const char *answer)
{
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    assert_int_equal(ex_grade(ex, v, typed, &g), CV_OK);
    const char *exempt[] = {typed, prompt, answer, NULL};
    char what[96];
    snprintf(what, sizeof what, "seed %llu '%s'", v ? (unsigned long long)v->seed : 0ULL,
             typed);
    check_text(t, ex->id, what, g.msg, exempt);
}

/* The texts every exercise shows: solution, hints, answer line. */
static void check_texts(struct tally *t, const struct lesson_exercise *ex,
                        const struct ex_variant *v, const char *prompt, const char *answer)
{
    const char *exempt[] = {prompt, answer, NULL};
    char *s = ex_text(ex, v, ex->solution);
    check_text(t, ex->id, "solution", s, exempt);
    free(s);
    for (size_t h = 0; h < ex->nhints; h++) {
        s = ex_text(ex, v, ex->hints[h]);
        check_text(t, ex->id, "hint", s, exempt);
        free(s);
    }
    char line[256];
    ex_answer_text(ex, v, NULL, line, sizeof line);
    check_text(t, ex->id, "answer", line, exempt);
}

/* A number exercise at v: its answer and every value a slip gives, typed. */
static void check_number(struct tally *t, const struct lesson_exercise *ex,
                         const struct ex_variant *v)
{
    char *prompt = ex_prompt(ex, v), answer[48], typed[64];
    ex_format_number(v->answer, answer, sizeof answer);
    /* an exact count is typed in full; a measure's answer is no exemption */
    const char *ans = ex->integer ? answer : "";
    check_texts(t, ex, v, prompt, ans);
    double vals[160];
    size_t n = 0;
    struct ex_formula_slip fs[64];
    size_t nf = ex_formula_slips(ex, v, fs, 64);
    for (size_t i = 0; i < nf; i++)
        vals[n++] = fs[i].value;
    static const double f[] = {
        1,    2,    0.5, 8,        0.125,        1000,        1e-3,
        1e6,  1e-6, 100, 1.048576, 1 / 1.048576, 1.073741824, 1 / 1.073741824,
        1.37, 0.63, 4,   0.25,     1.5,          2.0 / 3};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        vals[n++] = v->answer * f[i];
    const char *names[LESSON_MAX_PARAMS];
    double pv[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < ex->nparams; i++)
        names[i] = ex->params[i].name, pv[i] = v->param[i];
    for (size_t i = 0; i < ex->nparams && n + 4 < 160; i++)
        for (int k = 0; k < 4; k++) {
            static const double pf[] = {1000, 1e-3, 1.048576, 1 / 1.048576};
            double keep = pv[i], x;
            char err[120];
            pv[i] = keep * pf[k];
            if (ex_formula_eval(ex->formula, names, pv, ex->nparams, &x, err, sizeof err) ==
                    CV_OK &&
                isfinite(x))
                vals[n++] = x;
            pv[i] = keep;
        }
    for (size_t w = 0; w < ex->nwrong && n < 160; w++) {
        double x;
        char err[120];
        if (ex_formula_eval(ex->wrong[w].formula, names, pv, ex->nparams, &x, err,
                            sizeof err) == CV_OK &&
            isfinite(x))
            vals[n++] = x;
    }
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(vals[i])) continue;
        double x = ex->integer ? round(vals[i]) : vals[i];
        snprintf(typed, sizeof typed, "%.6g", x);
        check_grade(t, ex, v, typed, prompt, ans);
        if (ex->units[0]) {
            snprintf(typed, sizeof typed, "%.6g %s", x, ex->units);
            check_grade(t, ex, v, typed, prompt, ans);
        }
    }
    free(prompt);
}

static void box_typed(const float *v, const bool *has, size_t len, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < len && o + 32 < n; i++)
        o += (size_t)snprintf(buf + o, n - o, has[i] ? "%s%.9g" : "%s.", i ? " " : "",
                              has[i] ? v[i] : 0.0);
}

/* A holds exercise: every other rank's box at the asked step, the rank at every step. */
static void check_holds(struct tally *t, const struct lesson_exercise *ex)
{
    char *prompt = ex_prompt(ex, NULL);
    check_texts(t, ex, NULL, prompt, "");
    struct lesson_exercise *c = malloc(sizeof *c);
    assert_non_null(c);
    float v[MAXV];
    bool has[MAXV];
    size_t len;
    char err[200], typed[MAXV * 12];
    for (int r = 0; r < ex->scene.nranks; r++)
        for (long s = 0; s <= 16; s++) {
            *c = *ex;
            c->rank = r;
            c->step = s == 16 ? ex->step : s;
            if (ex_holds_expected(c, v, has, MAXV, &len, err, sizeof err) != CV_OK) continue;
            box_typed(v, has, len, typed, sizeof typed);
            check_grade(t, ex, NULL, typed, prompt, "");
        }
    free(c);
    free(prompt);
}

static void check_choice(struct tally *t, const struct lesson_exercise *ex)
{
    char *prompt = ex_prompt(ex, NULL);
    check_texts(t, ex, NULL, prompt, "");
    for (size_t o = 1; o <= ex->noptions; o++) {
        char typed[16];
        snprintf(typed, sizeof typed, "%zu", o);
        check_grade(t, ex, NULL, typed, prompt, "");
    }
    free(prompt);
}

static void test_feedback_readable(void **state)
{
    (void)state;
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    struct tally t = {0};
    size_t exercises = 0;
    for (size_t l = 0; l < set.n; l++)
        for (size_t s = 0; s < set.v[l].nslides; s++)
            for (size_t e = 0; e < set.v[l].slides[s].nex; e++) {
                const struct lesson_exercise *ex = &set.v[l].slides[s].ex[e];
                exercises++;
                if (ex->type == LEX_HOLDS) {
                    check_holds(&t, ex);
                    continue;
                }
                if (ex->type == LEX_CHOICE) {
                    check_choice(&t, ex);
                    continue;
                }
                uint64_t seeds = ex_has_variants(ex) ? VARIANTS : 0;
                for (uint64_t seed = 0; seed <= seeds; seed++) {
                    struct ex_variant v;
                    char err[200];
                    assert_int_equal(ex_variant(ex, seed, &v, err, sizeof err), CV_OK);
                    check_number(&t, ex, &v);
                }
            }
    printf("feedback: %zu exercises, %zu texts, %zu unreadable (%zu with long numbers, %zu "
           "with a power of ten as a factor)\n",
           exercises, t.texts, t.bad, t.long_digits, t.power_factor);
    assert_true(exercises >= 80);
    assert_true(t.texts > MIN_TEXTS);
    assert_int_equal(t.bad, 0);
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

/* The checker itself: what it must find and what it must let pass. */
static void test_checker(void **state)
{
    (void)state;
    const char *none[] = {NULL};
    static const struct {
        const char *text;
        size_t bad;
    } cases[] = {
        {"That leaves out the factor 1 × 1000000 / (50 × 1000000000)", 1},
        {"size = 419430400 bytes", 1},
        {"= 393216000000 bytes/s", 1},
        {"S / (50 × 1e9)", 1},
        {"1 MB / (50 GB/s) = 20 us", 0},
        {"3.884e10 bytes, log2(8) = 3, fp32, 524288 elements", 0},
        {"0.001 s is 1 ms", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tally t = {0};
        check_text(&t, "checker", "case", cases[i].text, none);
        if (t.bad != cases[i].bad) printf("checker: '%s': %zu\n", cases[i].text, t.bad);
        assert_int_equal(t.bad, cases[i].bad);
    }
    struct tally t = {0};
    const char *typed[] = {"13631488", NULL};
    check_text(&t, "checker", "echo", "not right: 13631488 is too high", typed);
    assert_int_equal(t.bad, 0);
}

/* A value as a solution writes it: whole numbers in full, others to 4 digits. */
static bool solution_names(const char *text, double x)
{
    char num[48];
    ex_format_text_number(x, num, sizeof num);
    return token_in(num, num + strlen(num), text);
}

/* Every holds exercise of a reduction (reduce, reduce-scatter, all-reduce) whose solution
 * speaks of partial sums: each asked value that is no partial sum, the slot's full
 * reduction (lesson 05's 60, rank 3's sum of ranks 1 to 3, which rank 0's 0 makes the whole
 * total) or the rank's own input never added to (lesson 04's 3), is named by its number
 * after the solution's opening list of the answer; a solution may not lump it in with "the
 * rest are partial sums". */
static void test_holds_solutions_say_what(void **state)
{
    (void)state;
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    size_t checked = 0, values = 0, unnamed = 0;
    for (size_t l = 0; l < set.n; l++)
        for (size_t s = 0; s < set.v[l].nslides; s++)
            for (size_t e = 0; e < set.v[l].slides[s].nex; e++) {
                const struct lesson_exercise *ex = &set.v[l].slides[s].ex[e];
                enum coll c = ex->scene.coll;
                if (ex->type != LEX_HOLDS || !ex->solution ||
                    !strstr(ex->solution, "partial") ||
                    (c != COLL_REDUCE && c != COLL_REDUCE_SCATTER && c != COLL_ALL_REDUCE))
                    continue;
                checked++;
                float v[MAXV], in[MAXV];
                bool has[MAXV], ih[MAXV];
                size_t len, ilen;
                char err[200];
                assert_int_equal(ex_holds_expected(ex, v, has, MAXV, &len, err, sizeof err),
                                 CV_OK);
                double total[MAXV], own[MAXV];
                struct lesson_exercise *cp = malloc(sizeof *cp);
                assert_non_null(cp);
                for (int r = 0; r < ex->scene.nranks; r++) {
                    *cp = *ex;
                    cp->rank = r;
                    cp->step = 0;
                    assert_int_equal(
                        ex_holds_expected(cp, in, ih, MAXV, &ilen, err, sizeof err), CV_OK);
                    assert_int_equal(ilen, len);
                    for (size_t i = 0; i < len; i++) {
                        double x = in[i];
                        if (r == ex->rank) own[i] = x;
                        switch (ex->scene.op) {
                        case OP_PROD:
                            total[i] = r ? total[i] * x : x;
                            break;
                        case OP_MIN:
                            total[i] = r ? fmin(total[i], x) : x;
                            break;
                        case OP_MAX:
                            total[i] = r ? fmax(total[i], x) : x;
                            break;
                        default: /* sum, and avg divided below */
                            total[i] = r ? total[i] + x : x;
                        }
                    }
                }
                free(cp);
                /* the solution after its opening list of the values */
                char *sol = ex_text(ex, NULL, ex->solution);
                const char *rest = sol;
                for (size_t i = 0; i < len; i++) {
                    char num[48];
                    ex_format_text_number(v[i], num, sizeof num);
                    while (*rest == ' ')
                        rest++;
                    if (has[i] && strncmp(rest, num, strlen(num)) == 0) rest += strlen(num);
                }
                for (size_t i = 0; i < len; i++) {
                    if (!has[i]) continue;
                    double t = ex->scene.op == OP_AVG ? total[i] / ex->scene.nranks : total[i];
                    bool full = fabs(v[i] - t) <= 1e-3 * fmax(1.0, fabs(t));
                    bool input = fabs(v[i] - own[i]) <= 1e-3 * fmax(1.0, fabs(own[i]));
                    values++;
                    if ((full || input) && !solution_names(rest, v[i])) {
                        unnamed++;
                        printf("%s: slot %zu holds %g, %s, but the solution says partial sums "
                               "without naming it: %s\n",
                               ex->id, i, v[i],
                               full ? "the slot's full reduction" : "the rank's own input",
                               sol);
                    }
                }
                free(sol);
            }
    printf("holds solutions: %zu speak of partial sums, %zu values, %zu not partial and not "
           "named\n",
           checked, values, unnamed);
    assert_true(checked >= 3);
    assert_int_equal(unnamed, 0);
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker),
        cmocka_unit_test(test_feedback_readable),
        cmocka_unit_test(test_holds_solutions_say_what),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
