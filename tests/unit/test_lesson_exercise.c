/* test_lesson_exercise.c - exercises: formulas against values worked out by hand here (the
 * lecture's three number problems), the function whitelist, unit conversion, grading of
 * number/choice/holds answers, variants (deterministic, varying, in range, integers stay
 * integers) and holds answers from the trace engine against hand-computed buffers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"

static double eval(const char *f, size_t n, const char *const *names, const double *vals)
{
    double r = NAN;
    char err[200];
    int rc = ex_formula_eval(f, names, vals, n, &r, err, sizeof err);
    if (rc != CV_OK) fprintf(stderr, "%s: %s\n", f, err);
    assert_int_equal(rc, CV_OK);
    return r;
}

static void test_lecture_formulas(void **state)
{
    (void)state;
    /* effective bandwidth: 209715200 elements * 4 B = 838860800 B; the ring moves
     * 2*(8-1)/8 of it: 1468006400 B in 3.5 ms = 419430400000 B/s = 419.4304 GB/s */
    const char *n1[] = {"elements", "ranks", "ms"};
    double v1[] = {209715200, 8, 3.5};
    double r = eval("elements*4*2*(ranks-1)/(ranks*ms/1000)/1e9", 3, n1, v1);
    assert_true(fabs(r - 419.4304) < 1e-9);
    /* ddp sync: 2 * 1e9 params * 4 B = 8e9 B over 400e9 B/s = 0.02 s = 20 ms */
    const char *n2[] = {"params", "bytes_per_param", "gbs"};
    double v2[] = {1e9, 4, 400};
    r = eval("2*params*bytes_per_param/(gbs*1e9)*1000", 3, n2, v2);
    assert_true(fabs(r - 20.0) < 1e-12);
    /* tp vs ddp: L*D^2 / (L*B*D) = D/B = 1024/128 = 8 */
    const char *n3[] = {"L", "B", "D"};
    double v3[] = {4, 128, 1024};
    r = eval("(L*D^2)/(L*B*D)", 3, n3, v3);
    assert_true(r == 8.0);
}

static void test_formula_functions(void **state)
{
    (void)state;
    const char *n[] = {"x"};
    double v[] = {16};
    assert_true(eval("sqrt(x)", 1, n, v) == 4.0);
    assert_true(eval("log2(x)", 1, n, v) == 4.0);
    assert_true(fabs(eval("ln(exp(2))", 1, n, v) - 2.0) < 1e-15);
    assert_true(eval("min(3, x, 2)", 1, n, v) == 2.0);
    assert_true(eval("max(3, x, 2)", 1, n, v) == 16.0);
    assert_true(eval("abs(-x)", 1, n, v) == 16.0);
    assert_true(eval("2^10", 1, n, v) == 1024.0);
    assert_true(eval("-x + (x - 1) * 2", 1, n, v) == 14.0);
    /* everything else is refused: other functions, constants, unknown names */
    static const char *const refused[] = {"sin(x)", "_pi", "y", "", "x +", "sum(1,2)", "rnd()"};
    for (size_t i = 0; i < ARRAY_LEN(refused); i++) {
        double r;
        char err[200] = "";
        assert_int_equal(ex_formula_eval(refused[i], n, v, 1, &r, err, sizeof err), CV_EINVAL);
        assert_true(err[0] != '\0');
    }
    char longf[300];
    memset(longf, '1', 257);
    longf[257] = '\0';
    double r;
    char err[200];
    assert_int_equal(ex_formula_eval(longf, n, v, 1, &r, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "formula longer than 256 characters");
    /* division by zero is a value (inf), the caller decides: the parser refuses it */
    assert_true(isinf(eval("1/(x-16)", 1, n, v)));
}

static void test_units(void **state)
{
    (void)state;
    double out;
    char err[120];
    assert_int_equal(ex_unit_convert(1, "GiB/s", "GB/s", &out, err, sizeof err), CV_OK);
    assert_true(fabs(out - 1.073741824) < 1e-15);
    assert_int_equal(ex_unit_convert(20, "ms", "s", &out, err, sizeof err), CV_OK);
    assert_true(fabs(out - 0.02) < 1e-15);
    assert_int_equal(ex_unit_convert(20, "ms", "us", &out, err, sizeof err), CV_OK);
    assert_true(fabs(out - 20000) < 1e-9);
    assert_int_equal(ex_unit_convert(20, "ms", "\xc2\xb5s", &out, err, sizeof err), CV_OK);
    assert_true(fabs(out - 20000) < 1e-9);
    assert_int_equal(ex_unit_convert(5, "ns", "us", &out, err, sizeof err), CV_OK);
    assert_true(fabs(out - 0.005) < 1e-15);
    assert_int_equal(ex_unit_convert(8, "Gb/s", "GB/s", &out, err, sizeof err), CV_OK);
    assert_true(out == 1.0); /* 8 gigabits = 1 gigabyte */
    assert_int_equal(ex_unit_convert(1, "TB/s", "MB/s", &out, err, sizeof err), CV_OK);
    assert_true(out == 1e6);
    assert_int_equal(ex_unit_convert(1, "MiB/s", "MB/s", &out, err, sizeof err), CV_OK);
    assert_true(out == 1.048576);
    assert_int_equal(ex_unit_convert(1, "TiB", "GiB", &out, err, sizeof err), CV_OK);
    assert_true(out == 1024.0);
    assert_int_equal(ex_unit_convert(3, "KB", "B", &out, err, sizeof err), CV_OK);
    assert_true(out == 3000.0);
    assert_int_equal(ex_unit_convert(8, "times", "x", &out, err, sizeof err), CV_OK);
    assert_true(out == 8.0);
    assert_int_equal(ex_unit_convert(1, "ms", "GB", &out, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "ms is a time, GB is a size in bytes");
    assert_int_equal(ex_unit_convert(1, "parsecs", "s", &out, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "unknown unit 'parsecs'");
}

/* A lesson made of one slide with the given body; the first exercise. */
static struct lesson L;
static const struct lesson_exercise *load(const char *body)
{
    struct lesson_errors e = {0};
    int rc = lesson_parse("t.md", body, strlen(body), &L, &e);
    for (size_t i = 0; i < e.n; i++)
        fprintf(stderr, "%s\n", e.msg[i]);
    assert_int_equal(rc, CV_OK);
    lesson_errors_free(&e);
    for (size_t s = 0; s < L.nslides; s++)
        if (L.slides[s].nex) return &L.slides[s].ex[0];
    fail();
    return NULL;
}

static const char bw[] = "# B\n\n```exercise\nid: effective-bandwidth\ntype: number\n"
                         "prompt: {elements} elements, {ranks} ranks, {ms} ms\n"
                         "param: elements = 209715200 range 1048576..1073741824\n"
                         "param: ranks = 8 range 2..64\n"
                         "param: ms = 3.5 range 0.5..20\n"
                         "answer: elements*4*2*(ranks-1)/(ranks*ms/1000)/1e9\n"
                         "units: GB/s\n```\n";

static enum ex_verdict grade(const struct lesson_exercise *e, const struct ex_variant *v,
                             const char *in, char *msg, size_t n)
{
    struct ex_grade g;
    ex_grade(e, v, in, &g);
    if (msg) snprintf(msg, n, "%s", g.msg);
    return g.verdict;
}

static void test_grade_number(void **state)
{
    (void)state;
    const struct lesson_exercise *e = load(bw);
    char msg[400];
    assert_int_equal(grade(e, NULL, "419.4", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 419.4 GB/s");
    assert_int_equal(grade(e, NULL, " 419.43 GB/s ", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "419GB/s", NULL, 0), EX_RIGHT);
    /* 390.6 GiB/s * 1.073741824 = 419.40 GB/s, inside 1% */
    assert_int_equal(grade(e, NULL, "390.6 GiB/s", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "0.4194 TB/s", NULL, 0), EX_RIGHT);
    /* 3355.4 Gb/s / 8 = 419.43 GB/s */
    assert_int_equal(grade(e, NULL, "3355.4 Gb/s", NULL, 0), EX_RIGHT);
    /* 1% tolerance: 415.2 is 1.01% low, 423.7 is 1.02% high */
    assert_int_equal(grade(e, NULL, "415.2", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 415.2 GB/s is too low");
    assert_int_equal(grade(e, NULL, "423.7", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 423.7 GB/s is too high");
    assert_int_equal(grade(e, NULL, "419.4 GiB/s", NULL, 0), EX_WRONG); /* 450.3 GB/s */
    assert_int_equal(grade(e, NULL, "3.5 ms", msg, sizeof msg), EX_WRONG_UNIT);
    assert_string_equal(msg, "wrong unit: ms is a time; the answer is a bandwidth in GB/s");
    assert_int_equal(grade(e, NULL, "419 GB", NULL, 0), EX_WRONG_UNIT);
    assert_int_equal(grade(e, NULL, "", msg, sizeof msg), EX_BAD_INPUT);
    assert_string_equal(msg, "type a number in GB/s");
    assert_int_equal(grade(e, NULL, "fast", msg, sizeof msg), EX_BAD_INPUT);
    assert_string_equal(msg,
                        "'fast' is not a number (e.g. 420, 524,288, 5.2e5, 3/7, 0.42 TB/s)");
    assert_int_equal(grade(e, NULL, "419 furlongs/s", msg, sizeof msg), EX_BAD_INPUT);
    assert_string_equal(msg, "unknown unit 'furlongs/s'");
    assert_int_equal(grade(e, NULL, "inf", NULL, 0), EX_BAD_INPUT);
    assert_int_equal(grade(e, NULL, "nan", NULL, 0), EX_BAD_INPUT);
    lesson_free(&L);

    e = load("# D\n\n```exercise\nid: ddp-sync\ntype: number\nprompt: p\n"
             "param: params = 1e9\nparam: bytes_per_param = 4\nparam: gbs = 400\n"
             "answer: 2*params*bytes_per_param/(gbs*1e9)*1000\nunits: ms\n```\n");
    assert_true(fabs(e->answer - 20.0) < 1e-12);
    assert_int_equal(grade(e, NULL, "20", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "0.02 s", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "20000 us", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "20000 \xc2\xb5s", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "2e7 ns", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "2", NULL, 0), EX_WRONG);
    lesson_free(&L);

    e = load("# T\n\n```exercise\nid: tp-vs-ddp\ntype: number\nprompt: p\n"
             "param: L = 4\nparam: B = 128\nparam: D = 1024\n"
             "answer: (L*D^2)/(L*B*D)\nunits: x\n```\n");
    assert_true(e->answer == 8.0);
    assert_int_equal(grade(e, NULL, "8", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "8x", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "8 times", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "8 ms", NULL, 0), EX_WRONG_UNIT);
    assert_int_equal(grade(e, NULL, "4", NULL, 0), EX_WRONG);
    lesson_free(&L);
}

static void test_grade_choice(void **state)
{
    (void)state;
    const struct lesson_exercise *e =
        load("# C\n\n```exercise\nid: c\ntype: choice\nprompt: p\noption: a\noption: b\n"
             "option: c\ncorrect: 3\n```\n");
    char msg[400];
    assert_int_equal(grade(e, NULL, "3", msg, sizeof msg), EX_RIGHT);
    assert_int_equal(grade(e, NULL, " 3 ", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "1", NULL, 0), EX_WRONG);
    assert_int_equal(grade(e, NULL, "4", msg, sizeof msg), EX_BAD_INPUT);
    assert_string_equal(msg, "type the number of an option (1..3)");
    assert_int_equal(grade(e, NULL, "c", NULL, 0), EX_BAD_INPUT);
    lesson_free(&L);
}

static void expect_holds(const char *scene, int rank, const char *step, const float *want,
                         const bool *has, size_t n)
{
    char body[600];
    snprintf(body, sizeof body,
             "# H\n\n```scene\n%s```\n\n```exercise\nid: h\ntype: holds\nprompt: p\nrank: "
             "%d\nstep: %s\n```\n",
             scene, rank, step);
    const struct lesson_exercise *e = load(body);
    float vals[64];
    bool got_has[64];
    size_t len = 0;
    char err[200];
    assert_int_equal(ex_holds_expected(e, vals, got_has, 64, &len, err, sizeof err), CV_OK);
    assert_int_equal(len, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got_has[i], has[i]);
        if (has[i]) assert_true(vals[i] == want[i]);
    }
    lesson_free(&L);
}

static void test_holds_expected(void **state)
{
    (void)state;
    static const bool all[4] = {true, true, true, true};
    /* the lecture's inputs (rank r holds r, r+1, r+2, r+3... see init.c): at the end every
     * rank holds the sums 6 10 14 18 */
    static const float lecture_end[4] = {6, 10, 14, 18};
    for (int r = 0; r < 4; r++)
        expect_holds("collective: all_reduce\n", r, "end", lecture_end, all, 4);
    /* seq inputs: rank r element i = 10r + i; the sum of element i is 60 + 4i */
    static const float seq_end[4] = {60, 64, 68, 72};
    expect_holds("collective: all_reduce\ninit: seq\ncount: 4\n", 2, "end", seq_end, all, 4);
    expect_holds("collective: all_reduce\ninit: seq\ncount: 4\n", 2, "6", seq_end, all, 4);
    /* after the reduce-scatter phase (step 3), by hand: chunk c starts on rank c+1 and is
     * added to on ranks c+2, c+3, c. On rank 1: chunk 0 only its own 10; chunk 1 complete,
     * 64; chunk 2 ranks 3+0+1 = 32+2+12 = 46; chunk 3 ranks 0+1 = 3+13 = 16. */
    static const float seq_rs1[4] = {10, 64, 46, 16};
    expect_holds("collective: all_reduce\ninit: seq\ncount: 4\n", 1, "3", seq_rs1, all, 4);
    /* before any step: the rank's own input */
    static const float seq_0[4] = {30, 31, 32, 33};
    expect_holds("collective: all_reduce\ninit: seq\ncount: 4\n", 3, "0", seq_0, all, 4);
    /* all-gather, lecture inputs (rank r sends r), step 0: only the rank's own slot */
    static const float ag0[4] = {0, 0, 2, 0};
    static const bool ag0_has[4] = {false, false, true, false};
    expect_holds("collective: all_gather\ncount: 1\n", 2, "0", ag0, ag0_has, 4);
}

static void test_grade_holds(void **state)
{
    (void)state;
    char msg[400];
    const struct lesson_exercise *e =
        load("# H\n\n```scene\ncollective: all_reduce\ninit: seq\ncount: 4\n```\n\n"
             "```exercise\nid: rs-then-ag\ntype: holds\nprompt: p\nrank: 1\nstep: 3\n```\n");
    assert_int_equal(grade(e, NULL, "10 64 46 16", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: rank 1 holds 10 64 46 16");
    assert_int_equal(grade(e, NULL, "[10, 64, 46, 16]", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "10,64,46,16.0", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "60 64 68 72", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 3 of 4 elements differ");
    assert_int_equal(grade(e, NULL, "10 64 46", msg, sizeof msg), EX_BAD_INPUT);
    assert_string_equal(msg, "rank 1 holds 4 elements; you typed 3");
    assert_int_equal(grade(e, NULL, "10 64 x 16", NULL, 0), EX_BAD_INPUT);
    lesson_free(&L);

    e = load("# H\n\n```scene\ncollective: all_reduce\n```\n\n"
             "```exercise\nid: h\ntype: holds\nprompt: p\nrank: 0\nstep: end\n```\n");
    assert_int_equal(grade(e, NULL, "6 10 14 18", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "6 10 14 19", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 1 of 4 elements differ");
    lesson_free(&L);

    e = load("# H\n\n```scene\ncollective: all_gather\ncount: 1\n```\n\n"
             "```exercise\nid: h\ntype: holds\nprompt: p\nrank: 2\nstep: 0\n```\n");
    assert_int_equal(grade(e, NULL, ". . 2 .", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: rank 2 holds . . 2 .");
    assert_int_equal(grade(e, NULL, "\xc2\xb7 \xc2\xb7 2 \xc2\xb7", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "0 0 2 0", NULL, 0), EX_WRONG); /* empty is not 0 */
    lesson_free(&L);
}

static void test_variants(void **state)
{
    (void)state;
    const struct lesson_exercise *e = load(bw);
    assert_true(ex_has_variants(e));
    struct ex_variant v0, a, b, c;
    char err[200];
    assert_int_equal(ex_variant(e, 0, &v0, err, sizeof err), CV_OK);
    assert_true(v0.param[0] == 209715200 && v0.param[1] == 8 && v0.param[2] == 3.5);
    assert_true(v0.answer == e->answer);
    assert_int_equal(ex_variant(e, 1, &a, err, sizeof err), CV_OK);
    assert_int_equal(ex_variant(e, 1, &b, err, sizeof err), CV_OK);
    assert_int_equal(ex_variant(e, 2, &c, err, sizeof err), CV_OK);
    assert_memory_equal(a.param, b.param, sizeof a.param); /* deterministic */
    assert_true(a.answer == b.answer);
    assert_true(memcmp(a.param, c.param, 3 * sizeof(double)) != 0); /* varying */
    int differs_from_default = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        struct ex_variant v;
        assert_int_equal(ex_variant(e, seed, &v, err, sizeof err), CV_OK);
        for (size_t i = 0; i < 3; i++) {
            assert_true(v.param[i] >= e->params[i].lo && v.param[i] <= e->params[i].hi);
        }
        assert_true(v.param[0] == floor(v.param[0])); /* integers stay integers */
        assert_true(v.param[1] == floor(v.param[1]));
        /* ms: 3 significant digits */
        char s[40];
        snprintf(s, sizeof s, "%.2e", v.param[2]);
        assert_true(strtod(s, NULL) == v.param[2]);
        /* the answer is the same formula, computed here in C */
        double want =
            v.param[0] * 4 * 2 * (v.param[1] - 1) / (v.param[1] * v.param[2] / 1000) / 1e9;
        assert_true(fabs(v.answer - want) <= 1e-12 * want);
        differs_from_default += v.param[1] != 8;
        /* a variant is graded against its own answer */
        char in[64];
        snprintf(in, sizeof in, "%.6g", v.answer);
        struct ex_grade g;
        ex_grade(e, &v, in, &g);
        assert_int_equal(g.verdict, EX_RIGHT);
    }
    assert_true(differs_from_default > 150);
    /* the prompt names the variant's numbers */
    char p[200];
    ex_prompt_format(e, NULL, p, sizeof p);
    assert_string_equal(p, "209715200 elements, 8 ranks, 3.5 ms");
    struct ex_variant fixed = v0;
    fixed.param[0] = 1048576;
    fixed.param[1] = 4;
    fixed.param[2] = 0.25;
    ex_prompt_format(e, &fixed, p, sizeof p);
    assert_string_equal(p, "1048576 elements, 4 ranks, 0.25 ms");
    lesson_free(&L);

    /* no range, no variants (seed 0 is still the defaults) */
    e = load("# T\n\n```exercise\nid: t\ntype: number\nprompt: p\nparam: a = 2\n"
             "answer: a*3\nunits: x\n```\n");
    assert_false(ex_has_variants(e));
    assert_int_equal(ex_variant(e, 0, &v0, err, sizeof err), CV_OK);
    assert_true(v0.answer == 6.0);
    assert_int_equal(ex_variant(e, 5, &v0, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "exercise t has no param with a range: no variants");
    lesson_free(&L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lecture_formulas),
        cmocka_unit_test(test_formula_functions),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_grade_number),
        cmocka_unit_test(test_grade_choice),
        cmocka_unit_test(test_holds_expected),
        cmocka_unit_test(test_grade_holds),
        cmocka_unit_test(test_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
