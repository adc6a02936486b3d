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
#include "lesson/types/types.h"

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
    assert_string_equal(msg, "right: 419.4 GB/s (\xe2\x89\x88 419.43 GB/s)");
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
    /* the end of the all-reduce, asked after step 3 (worked by hand: 0+10+20+30 = 60 ...) */
    assert_int_equal(grade(e, NULL, "60 64 68 72", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: that is rank 1 after step 6 (all-gather), not after "
                             "step 3 (reduce-scatter)");
    /* rank 1's input with init seq: 10 11 12 13 */
    assert_int_equal(grade(e, NULL, "10 11 12 13", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: that is rank 1's input, its box before step 1; after "
                             "step 3 it holds what the steps brought");
    assert_int_equal(grade(e, NULL, "10 64 46 17", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: element 3 differs (counting from 0, as the screen "
                             "numbers chunks)");
    assert_int_equal(grade(e, NULL, "0 64 46 13", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 2 of 4 elements differ (the first: element 0, "
                             "counting from 0)");
    /* the right values, another order (a student's review: only "4 of 4 elements differ") */
    assert_int_equal(grade(e, NULL, "64 10 46 16", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: the right values in the wrong order (element 0 first, "
                             "counting from 0); the box's order is the buffer's");
    assert_int_equal(grade(e, NULL, "10 64 46", msg, sizeof msg), EX_BAD_INPUT);
    assert_string_equal(msg, "rank 1 holds 4 elements; you typed 3");
    assert_int_equal(grade(e, NULL, "10 64 x 16", NULL, 0), EX_BAD_INPUT);
    lesson_free(&L);

    e = load("# H\n\n```scene\ncollective: all_reduce\n```\n\n"
             "```exercise\nid: h\ntype: holds\nprompt: p\nrank: 0\nstep: end\n```\n");
    assert_int_equal(grade(e, NULL, "6 10 14 18", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "6 10 14 19", msg, sizeof msg), EX_WRONG);
    assert_string_equal(
        msg, "not right: element 3 differs (counting from 0, as the screen numbers chunks)");
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
    char *p = ex_prompt(e, NULL);
    assert_string_equal(p, "209715200 elements, 8 ranks, 3.5 ms");
    free(p);
    struct ex_variant fixed = v0;
    fixed.param[0] = 1048576;
    fixed.param[1] = 4;
    fixed.param[2] = 0.25;
    p = ex_prompt(e, &fixed);
    assert_string_equal(p, "1048576 elements, 4 ranks, 0.25 ms");
    free(p);
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

/* Counts are exact and measures may be rounded (found by a student's review): 1268 is not
 * 1280 and 1280.5 is no count; 3.3 is 10/3 rounded to the digits typed, 3 and 3.4 are
 * not; a percentage typed for a ratio is named as such, and a ratio is never told of KiB
 * and KB. */
static void test_grade_counts_and_rounding(void **state)
{
    (void)state;
    char msg[400];
    const struct lesson_exercise *e =
        load("# C\n\n```exercise\nid: c\ntype: number\nprompt: p\nparam: n = 10\n"
             "answer: n * 128\nunits:\ninteger: yes\n```\n");
    assert_int_equal(grade(e, NULL, "1280", msg, sizeof msg), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "1268", msg, sizeof msg), EX_WRONG); /* 0.9% off */
    assert_string_equal(msg, "not right: 1268 is too low");
    assert_int_equal(grade(e, NULL, "1281", NULL, 0), EX_WRONG);
    assert_int_equal(grade(e, NULL, "1280.5", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 1280.5 is not a whole number; the answer is a count");
    assert_int_equal(grade(e, NULL, "1.28e3", NULL, 0), EX_RIGHT);
    lesson_free(&L);
    /* a count with a unit, typed exactly in another unit: whole only to rounding */
    e = load("# B\n\n```exercise\nid: b\ntype: number\nprompt: p\nparam: n = 67\n"
             "answer: n\nunits: MB\ninteger: yes\n```\n");
    assert_int_equal(grade(e, NULL, "0.067 GB", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "67000 KB", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "0.068 GB", NULL, 0), EX_WRONG);
    lesson_free(&L);

    e = load("# R\n\n```exercise\nid: r\ntype: number\nprompt: p\nparam: w = 4\n"
             "answer: 10 / 3\nunits: x\n```\n");
    assert_int_equal(grade(e, NULL, "3.3", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 3.3 (\xe2\x89\x88 3.333)");
    assert_int_equal(grade(e, NULL, "3.33", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "3.30", NULL, 0), EX_WRONG); /* 3.295..3.305 */
    assert_int_equal(grade(e, NULL, "3", NULL, 0), EX_WRONG);    /* one digit: 1% only */
    assert_int_equal(grade(e, NULL, "3.4", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 3.4 is too high"); /* no KiB for a ratio */
    assert_int_equal(grade(e, NULL, "83%", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: 83% is a percentage; the answer is a ratio (how many "
                             "times, x): write it as a plain number");
    /* 333% is 3.33 as a number, but a ratio is not written as a percent: named, not right */
    assert_int_equal(grade(e, NULL, "333.3%", msg, sizeof msg), EX_WRONG);
    assert_int_equal(grade(e, NULL, "333", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg,
                        "not right: 333. 100 times too high: that is the ratio written as a "
                        "percentage; the answer is how many times (x), a plain number");
    lesson_free(&L);

    /* a measure rounded: 1.875 GB typed as 1.9 (1.85..1.95), not as 2 */
    e = load("# M\n\n```exercise\nid: m\ntype: number\nprompt: p\nparam: a = 15\n"
             "answer: a / 8\nunits: GB\n```\n");
    assert_int_equal(grade(e, NULL, "1.9", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "1900 MB", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "2", NULL, 0), EX_WRONG);
    assert_int_equal(grade(e, NULL, "1.8", NULL, 0), EX_WRONG);
    lesson_free(&L);
}

/* Input forms (issue 18): thousands separators, exponents, fractions, percent, units glued
 * to the number, words after a count; the message echoes what was typed. */
static void test_grade_input_forms(void **state)
{
    (void)state;
    char msg[400];
    /* 4 * 128 * 1024 = 524288, a count: no unit */
    const struct lesson_exercise *e =
        load("# C\n\n```exercise\nid: c\ntype: number\nprompt: p\nparam: l = 4\n"
             "param: b = 128\nparam: d = 1024\nanswer: l * b * d\nunits:\ninteger: yes\n```\n");
    assert_true(e->answer == 524288.0 && e->integer);
    assert_int_equal(grade(e, NULL, "524,288", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 524,288");
    assert_int_equal(grade(e, NULL, "524288", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 524288"); /* no "x", nothing the student did not type */
    /* 5.2e5 is 0.82% below 524288: inside the 1% tolerance */
    assert_int_equal(grade(e, NULL, "5.2e5", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 5.2e5 (exactly 524288)");
    assert_int_equal(grade(e, NULL, "524288 elements", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "524288 x", NULL, 0), EX_RIGHT);
    assert_int_equal(grade(e, NULL, "52,4288", NULL, 0), EX_BAD_INPUT); /* not groups of 3 */
    assert_int_equal(grade(e, NULL, "5242,88", NULL, 0), EX_BAD_INPUT);
    assert_int_equal(grade(e, NULL, "524288 ms", NULL, 0), EX_WRONG_UNIT);
    lesson_free(&L);

    /* the bubble (P-1)/(M+P-1) = 3/7 = 0.428571... */
    e = load("# F\n\n```exercise\nid: f\ntype: number\nprompt: p\nparam: p = 4\nparam: m = 4\n"
             "answer: (p - 1) / (m + p - 1)\nunits:\n```\n");
    assert_int_equal(grade(e, NULL, "3/7", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 3/7");
    assert_int_equal(grade(e, NULL, "0.43", msg, sizeof msg), EX_RIGHT); /* 0.33% high */
    assert_string_equal(msg, "right: 0.43 (\xe2\x89\x88 0.4286)");
    /* a fraction in percent is named, not accepted: the question asks for a fraction */
    assert_int_equal(grade(e, NULL, "43%", msg, sizeof msg), EX_WRONG);
    assert_non_null(strstr(msg, "43% is a percentage; the question asks for a fraction"));
    assert_int_equal(grade(e, NULL, "1/2", msg, sizeof msg), EX_WRONG);
    assert_int_equal(grade(e, NULL, "3/0", NULL, 0), EX_BAD_INPUT);
    lesson_free(&L);

    /* 419.4304 GB/s */
    e = load(bw);
    assert_int_equal(grade(e, NULL, "0.42 TB/s", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 0.42 TB/s (\xe2\x89\x88 419.4 GB/s)");
    assert_int_equal(grade(e, NULL, "420GB/s", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 420GB/s (\xe2\x89\x88 419.4 GB/s)");
    /* control bytes are not echoed to the terminal */
    assert_int_equal(grade(e, NULL, "x\x1b[2J", msg, sizeof msg), EX_BAD_INPUT);
    assert_null(strchr(msg, '\x1b'));
    lesson_free(&L);

    /* 2 * 1e9 * 4 B / 400e9 B/s = 20 ms */
    e = load("# D\n\n```exercise\nid: d\ntype: number\nprompt: p\nparam: params = 1e9\n"
             "param: gbs = 400\nanswer: 2*params*4/(gbs*1e9)*1000\nunits: ms\n```\n");
    assert_int_equal(grade(e, NULL, "20ms", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 20ms");
    assert_int_equal(grade(e, NULL, "20", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 20 ms");
    lesson_free(&L);
}

static const char *diag(const struct lesson_exercise *e, const char *in, char *msg, size_t n)
{
    static struct ex_grade g;
    ex_grade(e, NULL, in, &g);
    assert_int_equal(g.verdict, EX_WRONG);
    if (msg) snprintf(msg, n, "%s", g.msg);
    return g.diagnosis;
}

/* The usual slips, each worked out from 419.4304 GB/s on W = 8 ranks. */
static void test_grade_diagnosis(void **state)
{
    (void)state;
    char msg[400];
    const struct lesson_exercise *e = load(bw);
    /* 0.4194 read in GB/s is 1000 times too low: it is the answer in TB/s */
    assert_string_equal(diag(e, "0.4194", msg, sizeof msg), "power-of-ten");
    /* ... or the question's 3.5 ms read as 3.5 s, which gives the very same number */
    assert_string_equal(msg, "not right: 0.4194 GB/s. 1000 times too low: that number is the "
                             "answer in TB/s, but it was read in GB/s; mind the unit; or that "
                             "reads the question's 3.5 ms as 3.5 s: a factor 1000 in the time; "
                             "mind the unit");
    /* 419430 GB/s: the answer in MB/s */
    assert_string_equal(diag(e, "419430", msg, sizeof msg), "power-of-ten");
    assert_non_null(strstr(msg, "the answer in MB/s"));
    assert_string_equal(diag(e, "4.194e11", NULL, 0), "power-of-ten"); /* B/s, 1e9 */
    /* GiB for GB: 419.43 / 1.073741824 = 390.6 typed as GB/s */
    assert_string_equal(diag(e, "390.6", msg, sizeof msg), "gib-vs-gb");
    assert_non_null(strstr(msg, "1 GiB = 1.07374 GB"));
    /* a factor W = 8: 419.43 / 8 = 52.43; 419.43 * 8 = 3355.4 */
    assert_string_equal(diag(e, "52.43", msg, sizeof msg), "factor-w");
    assert_non_null(strstr(msg, "one rank's share"));
    assert_string_equal(diag(e, "3355", msg, sizeof msg), "factor-w");
    assert_non_null(strstr(msg, "all ranks together"));
    /* the ring factor 7/8: 419.43 * 8/7 = 479.35 (left out), * 7/8 = 367.0 (applied twice) */
    assert_string_equal(diag(e, "479.3", msg, sizeof msg), "ring-factor");
    assert_non_null(strstr(msg, "is missing"));
    assert_string_equal(diag(e, "367", NULL, 0), "ring-factor");
    /* both directions / both halves: 838.86 and 209.72 */
    assert_string_equal(diag(e, "838.9", msg, sizeof msg), "factor-2");
    assert_non_null(strstr(msg, "twice the answer"));
    /* half: the formula's own factor 2 left out, said as that factor */
    assert_string_equal(diag(e, "209.7", msg, sizeof msg), "left-out-factor");
    assert_non_null(strstr(msg, "leaves out the factor 2"));
    /* nothing known: too high / too low, with the typed number */
    assert_string_equal(diag(e, "41.94", msg, sizeof msg), "too-low");
    assert_string_equal(msg, "not right: 41.94 GB/s is too low");
    assert_string_equal(diag(e, "600 GB/s", msg, sizeof msg), "too-high");
    assert_string_equal(msg, "not right: 600 GB/s is too high");
    lesson_free(&L);

    /* no param for W: a factor 8 is not called a factor W; a time in ms read as 0.02 */
    e = load("# D\n\n```exercise\nid: d\ntype: number\nprompt: p\nparam: gbs = 400\n"
             "answer: 8e9/(gbs*1e9)*1000\nunits: ms\n```\n");
    assert_true(fabs(e->answer - 20.0) < 1e-12);
    assert_string_equal(diag(e, "160", NULL, 0), "too-high");
    assert_string_equal(diag(e, "0.02", msg, sizeof msg), "power-of-ten");
    assert_non_null(strstr(msg, "the answer in s, but it was read in ms"));
    lesson_free(&L);
}

/* wrong: lines come first, with the variant's numbers in their message; a choice says why. */
static void test_grade_wrong_lines_and_whys(void **state)
{
    (void)state;
    char msg[400];
    /* busbw = 419.43; algbw = 838860800 B / 3.5 ms = 239.67 GB/s, which no generic slip
     * explains (ratio 4/7) */
    const struct lesson_exercise *e = load(
        "# B\n\n```exercise\nid: b\ntype: number\nprompt: p\n"
        "param: elements = 209715200\nparam: ranks = 8 choices: 2, 4, 8\n"
        "param: ms = 3.5\nanswer: elements*4*2*(ranks-1)/(ranks*ms/1000)/1e9\n"
        "units: GB/s\n"
        "wrong: elements*4/(ms/1000)/1e9 | That is algbw; multiply by {= 2*(ranks-1)/ranks}.\n"
        "wrong: elements*4*2*(ranks-1)/(ranks*ms/1000)/1e9/8 | Listed before W.\n```\n");
    assert_int_equal(e->nwrong, 2);
    assert_string_equal(diag(e, "239.7", msg, sizeof msg), "listed");
    assert_string_equal(msg, "not right: 239.7 GB/s. That is algbw; multiply by 1.75.");
    /* 419.43 / 8 = 52.43 matches the second wrong: line before the factor-W diagnosis */
    assert_string_equal(diag(e, "52.43", msg, sizeof msg), "listed");
    assert_string_equal(msg, "not right: 52.43 GB/s. Listed before W.");
    /* a variant's own trap: ranks = 4, algbw the same 239.67, message 2*3/4 = 1.5 */
    struct ex_variant v = {.seed = 9, .param = {209715200, 4, 3.5}};
    v.answer = 209715200.0 * 4 * 2 * 3 / (4 * 3.5 / 1000) / 1e9; /* 359.5 */
    struct ex_grade g;
    ex_grade(e, &v, "239.7", &g);
    assert_int_equal(g.verdict, EX_WRONG);
    assert_string_equal(g.msg, "not right: 239.7 GB/s. That is algbw; multiply by 1.5.");
    ex_grade(e, &v, "359.5", &g);
    assert_int_equal(g.verdict, EX_RIGHT);
    lesson_free(&L);

    e = load("# C\n\n```exercise\nid: c\ntype: choice\nprompt: p\n"
             "option: scatter | Each rank would get a different piece.\n"
             "option: broadcast\noption: gather\ncorrect: 2\n```\n");
    assert_string_equal(e->options[0], "scatter");
    assert_string_equal(e->option_why[0], "Each rank would get a different piece.");
    assert_null(e->option_why[1]);
    assert_string_equal(diag(e, "1", msg, sizeof msg), "option");
    assert_string_equal(msg, "not right: 1) scatter. Each rank would get a different piece.");
    assert_string_equal(diag(e, "3", msg, sizeof msg), "option");
    assert_string_equal(msg, "not right: 3) gather");
    assert_int_equal(grade(e, NULL, "2", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: 2) broadcast");
    lesson_free(&L);
}

/* Templates: {name}, {= expr} (with `answer`), unknown braces kept, in every text. */
static void test_templates(void **state)
{
    (void)state;
    const struct lesson_exercise *e =
        load("# T\n\n```exercise\nid: t\ntype: number\nprompt: {b} rows over {w} ranks {x}\n"
             "param: b = 128 range 24..1024 step 8\nparam: w = 4 choices: 2, 3, 4\n"
             "where: b % w == 0\nanswer: b / w\nunits:\ninteger: yes\n"
             "hint: {b}/{w} = {= b / w}; {= answer * 2} is twice; {= 1/3} a third\n"
             "solution: {b} / {w} = {= answer} rows\n```\n");
    char t[200];
    char *pr = ex_prompt(e, NULL);
    assert_string_equal(pr, "128 rows over 4 ranks {x}");
    free(pr);
    /* into a small place: cut on a character boundary, never half of one */
    const char *cjk = "\xe5\xb8\xaf\xe5\x9f\x9f {b}";
    for (size_t n = 1; n <= 12; n++) {
        char small[16];
        ex_text_format(e, NULL, cjk, small, n);
        const size_t whole[] = {0, 3, 6, 7, 8, 9, 10};
        size_t want = 0;
        for (size_t k = 0; k < 7; k++)
            if (whole[k] <= n - 1) want = whole[k];
        assert_int_equal(strlen(small), want);
        assert_memory_equal(small, "\xe5\xb8\xaf\xe5\x9f\x9f 128", want);
    }
    ex_text_format(e, NULL, e->hints[0], t, sizeof t);
    assert_string_equal(t, "128/4 = 32; 64 is twice; 0.3333 a third");
    struct ex_variant v = {.seed = 1, .param = {96, 3}, .answer = 32};
    ex_text_format(e, &v, e->solution, t, sizeof t);
    assert_string_equal(t, "96 / 3 = 32 rows");
    char num[40];
    ex_format_text_number(1.6e13, num, sizeof num); /* whole: in full */
    assert_string_equal(num, "16000000000000");
    ex_format_text_number(38836148148.1, num, sizeof num);
    assert_string_equal(num, "3.884e10");
    ex_format_text_number(0.0000152, num, sizeof num);
    assert_string_equal(num, "1.52e-5");
    ex_format_text_number(419.4304, num, sizeof num);
    assert_string_equal(num, "419.4");
    char err[200];
    assert_int_equal(ex_template_check(e, "{= b +* 2}", err, sizeof err), CV_EINVAL);
    assert_int_equal(ex_template_check(e, "{= b * 2} and {plain}", err, sizeof err), CV_OK);
    assert_int_equal(ex_template_check(e, "{= b", err, sizeof err), CV_EINVAL);
    lesson_free(&L);
}

/* The fastest link the lessons speak of: NVLink 5, 900 GB/s each way per GPU (lesson 02).
 * No collective's algbw or busbw exceeds what its links carry. */
#define LINK_MAX_GBS 900.0

/* Every number exercise with variants, 200 variants each: the lecture's own answer typed
 * into a variant is graded wrong (it is to be computed, not recalled: lesson 13's 20 ms
 * came back in variant 1), and a bandwidth answer is one a link can carry, at most
 * LINK_MAX_GBS (lesson 08's variant 1 asked for 1329.6 GB/s). */
static void test_variants_sane(void **state)
{
    (void)state;
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    size_t exercises = 0, variants = 0, recalled = 0, implausible = 0, bandwidths = 0;
    for (size_t l = 0; l < set.n; l++)
        for (size_t s = 0; s < set.v[l].nslides; s++)
            for (size_t e = 0; e < set.v[l].slides[s].nex; e++) {
                const struct lesson_exercise *ex = &set.v[l].slides[s].ex[e];
                if (!ex_has_variants(ex)) continue;
                exercises++;
                enum ex_dim dim = DIM_NONE;
                double scale = 1;
                assert_int_equal(ex_unit_lookup(ex->units, &dim, &scale, NULL), CV_OK);
                bandwidths += dim == DIM_BANDWIDTH;
                char lecture[48];
                snprintf(lecture, sizeof lecture, "%.9g", ex->answer);
                for (uint64_t seed = 1; seed <= 200; seed++) {
                    struct ex_variant v;
                    char err[200];
                    assert_int_equal(ex_variant(ex, seed, &v, err, sizeof err), CV_OK);
                    variants++;
                    struct ex_grade g;
                    assert_int_equal(ex_grade(ex, &v, lecture, &g), CV_OK);
                    if (g.verdict == EX_RIGHT) {
                        if (recalled++ < 10)
                            printf("%s seed %llu: the lecture's %s graded right (%.6g)\n",
                                   ex->id, (unsigned long long)seed, lecture, v.answer);
                    }
                    double gbs = v.answer * scale / 1e9;
                    if (dim == DIM_BANDWIDTH && !(gbs > 0 && gbs <= LINK_MAX_GBS)) {
                        if (implausible++ < 10)
                            printf("%s seed %llu: %.6g GB/s, beyond any link\n", ex->id,
                                   (unsigned long long)seed, gbs);
                    }
                }
            }
    printf("variants: %zu exercises (%zu with a bandwidth answer), %zu variants, %zu graded "
           "right with the lecture's answer, %zu beyond %g GB/s\n",
           exercises, bandwidths, variants, recalled, implausible, LINK_MAX_GBS);
    assert_true(exercises >= 30);
    assert_true(bandwidths >= 4);
    assert_int_equal(recalled, 0);
    assert_int_equal(implausible, 0);
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

/* Constraints: choices, step, integer, where: and an integer answer hold in every variant
 * (checked here by hand, not by ex_variant_check alone). */
static void test_variant_constraints(void **state)
{
    (void)state;
    /* replicas = gpus / (tp * pp): only whole numbers; gpus in powers of two, tp and pp in
     * their lists, and the where: keeps tp * pp <= gpus */
    const struct lesson_exercise *e =
        load("# R\n\n```exercise\nid: dp-replicas\ntype: number\nprompt: p\n"
             "param: gpus = 1024 choices: 64, 128, 256, 512, 1024\n"
             "param: tp = 8 choices: 2, 4, 8\nparam: pp = 4 choices: 1, 2, 4, 8, 16, 32\n"
             "param: ms = 1.5 range 0.5..3 step 0.25\nparam: k = 3 range 1..5 integer\n"
             "where: gpus % (tp * pp) == 0\nwhere: tp * pp <= gpus / 2\n"
             "answer: gpus / (tp * pp) + 0 * ms * k\nunits:\ninteger: yes\n```\n");
    assert_int_equal(e->params[0].nchoices, 5);
    assert_true(e->params[0].lo == 64 && e->params[0].hi == 1024 && e->params[0].ranged);
    assert_true(e->params[3].step == 0.25 && !e->params[3].integer);
    assert_true(e->params[4].integer);
    assert_true(e->answer == 32.0);
    int seen_pp32 = 0, seen_ms_quarter = 0;
    char err[300];
    for (uint64_t seed = 1; seed <= 500; seed++) {
        struct ex_variant v;
        assert_int_equal(ex_variant(e, seed, &v, err, sizeof err), CV_OK);
        double gpus = v.param[0], tp = v.param[1], pp = v.param[2], ms = v.param[3];
        double k = v.param[4];
        assert_true(gpus == 64 || gpus == 128 || gpus == 256 || gpus == 512 || gpus == 1024);
        assert_true(tp == 2 || tp == 4 || tp == 8);
        assert_true(pp == 1 || pp == 2 || pp == 4 || pp == 8 || pp == 16 || pp == 32);
        assert_true(fmod(gpus, tp * pp) == 0 && tp * pp <= gpus / 2);
        assert_true(v.answer == gpus / (tp * pp) && v.answer == floor(v.answer));
        /* ms on its quarter steps: 4*ms is a whole number in 2..12 */
        assert_true(4 * ms == floor(4 * ms) && ms >= 0.5 && ms <= 3);
        assert_true(k == floor(k) && k >= 1 && k <= 5);
        seen_pp32 += pp == 32;
        seen_ms_quarter += 4 * ms != 2 * floor(2 * ms);
        assert_int_equal(ex_variant_check(e, &v, err, sizeof err), CV_OK);
    }
    assert_true(seen_pp32 > 0);       /* only with gpus >= 512 and tp = 2 or 4... */
    assert_true(seen_ms_quarter > 0); /* the quarter steps are drawn too */
    /* ex_variant_check catches a variant that breaks a constraint */
    struct ex_variant bad = {.seed = 1, .param = {64, 8, 16, 1.5, 3}};
    assert_int_equal(ex_variant_check(e, &bad, err, sizeof err), CV_EINVAL);
    bad.param[2] = 3; /* not a choice */
    assert_int_equal(ex_variant_check(e, &bad, err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "pp = 3 breaks its declared range or choices");
    lesson_free(&L);

    /* M = (P-1)(1-f)/f is whole for these f only: integer: yes redraws the rest */
    e = load("# M\n\n```exercise\nid: m\ntype: number\nprompt: p\n"
             "param: p = 8 range 2..32\nparam: f = 0.1 range 0.05..0.5\n"
             "answer: (p - 1) * (1 - f) / f\nunits:\ninteger: yes\n```\n");
    for (uint64_t seed = 1; seed <= 200; seed++) {
        struct ex_variant v;
        assert_int_equal(ex_variant(e, seed, &v, err, sizeof err), CV_OK);
        double m = (v.param[0] - 1) * (1 - v.param[1]) / v.param[1];
        assert_true(fabs(m - round(m)) < 1e-9 && v.answer == round(m));
    }
    lesson_free(&L);

    /* a where: that keeps a few values of a range */
    e = load("# N\n\n```exercise\nid: n\ntype: number\nprompt: p\n"
             "param: a = 2 range 1..9 integer\nwhere: a < 3\nanswer: a\nunits:\n```\n");
    struct ex_variant v;
    assert_int_equal(ex_variant(e, 1, &v, err, sizeof err), CV_OK); /* a = 1 or 2 */
    assert_true(v.param[0] == 1 || v.param[0] == 2);
    lesson_free(&L);
}

/* holds with slots: only the asked output is graded (lesson 13, problem 2) */
static void test_grade_holds_slots(void **state)
{
    (void)state;
    char msg[400];
    /* seq inputs, ring all-reduce, after step 3 rank 2's box is 30 21 68 39 (by hand:
     * slot 2 = 2 + 12 + 22 + 32 = 68) */
    const struct lesson_exercise *e =
        load("# H\n\n```scene\ncollective: all_reduce\ninit: seq\ncount: 4\n```\n\n"
             "```exercise\nid: h\ntype: holds\nprompt: p\nrank: 2\nstep: 3\nslots: 2\n```\n");
    assert_int_equal(grade(e, NULL, "68", msg, sizeof msg), EX_RIGHT);
    assert_string_equal(msg, "right: rank 2 holds 68");
    assert_int_equal(grade(e, NULL, "30 21 68 39", msg, sizeof msg), EX_BAD_INPUT);
    assert_string_equal(msg, "the question asks for one value (slot 2); you typed 4");
    assert_int_equal(grade(e, NULL, "72", msg, sizeof msg), EX_WRONG);
    assert_string_equal(msg, "not right: that is not the value"); /* not "1 of 1 elements" */
    lesson_free(&L);
}

/* Predict first: the answer in a slide's text, in its own unit or another of its kind. */
/* The student walk's told choices, in the shipped lessons' words before they were
 * rewritten: each is caught (a paraphrase, a title, a phrase, the question's case with its
 * answer, five slides early), against the shipped exercise. And the rewritten words of
 * today's lessons are not (lesson check --strict over lessons/ checks every slide). */
static void test_choice_told_walk(void **state)
{
    (void)state;
    static const struct {
        const char *id, *text;
        bool title;
    } told[] = {
        /* lesson 14 slide 7: "One more gathered layer of memory; the bytes stay the same" */
        {"zero-prefetch-cost",
         "That takes a second layer-sized buffer (one more layer of peak memory) and a helper "
         "that runs the collectives beside the computation.",
         false},
        /* lesson 10 slide 2: "GELU works element by element, so it does not need ..." */
        {"tp-why-gelu-ok",
         "So each rank computes its own B x D/W block of the layer's output with no help at "
         "all, and applies GELU to it. GELU acts on each element separately, so applying it "
         "to a block is the same as applying it to the whole and then cutting.",
         false},
        /* lesson 10 slide 5's title: "reduce-scatter" */
        {"tp-backward-coll", "Backward: the all-gather turns into a reduce-scatter", true},
        /* lesson 08 slide 5: "The line under busbw plugs this run's S, W and t into ..." */
        {"panel-formula",
         "right under busbw, the lecture's formula with this run's numbers plugged in: S, W "
         "and t of the run you just made, giving the same busbw;",
         false},
        /* lesson 07 slide 5, for slide 6's "tree, because it needs far fewer steps ...": a
         * short tail after a colon stays with its clause */
        {"small-message-algo",
         "For tiny messages the \xce\xb1 terms decide and the tree wins: fewer steps.", false},
        /* lesson 03 slide 2, for slide 7's "broadcast" */
        {"rooted-which",
         "Where is it used? Rarely, but at a crucial moment: at the start of training, one "
         "rank loads the initial weights (or a checkpoint) and broadcasts them, so every "
         "replica starts from the same numbers.",
         false},
    };
    static const struct {
        const char *id, *text;
        bool title;
    } untold[] = {
        /* a question asks; "419,430,400" is no "400"; a title naming the slide's topic */
        {"moe-drop",
         "What becomes of a dropped token's output, given that the expert layer sits on a "
         "residual connection?",
         false},
        {"gib-smaller", "an all-reduce of 100 fp32 numbers, 419,430,400 bytes (about 419 MB)",
         false},
        {"rooted-which", "Broadcast: one copy becomes W copies", true},
    };
    struct lesson_set set;
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    size_t caught = 0;
    for (size_t i = 0; i < sizeof told / sizeof told[0]; i++) {
        const struct lesson_exercise *ex = lesson_set_find_exercise(&set, told[i].id, NULL);
        assert_non_null(ex);
        char found[80] = "";
        bool hit = ex_choice_told(ex, told[i].text, told[i].title, found, sizeof found);
        if (!hit) printf("%s: not caught: %s\n", told[i].id, told[i].text);
        caught += hit;
    }
    printf("told choices of the walk: %zu of %zu caught\n", caught,
           sizeof told / sizeof told[0]);
    assert_int_equal(caught, sizeof told / sizeof told[0]);
    for (size_t i = 0; i < sizeof untold / sizeof untold[0]; i++) {
        const struct lesson_exercise *ex = lesson_set_find_exercise(&set, untold[i].id, NULL);
        assert_non_null(ex);
        char found[80] = "";
        if (ex_choice_told(ex, untold[i].text, untold[i].title, found, sizeof found))
            fail_msg("%s: '%s' taken for telling ('%s')", untold[i].id, untold[i].text, found);
    }
    lesson_set_free(&set);
    lesson_errors_free(&errs);
}

static void test_answer_in_text(void **state)
{
    (void)state;
    char found[80];
    /* ring bytes per rank: 4194304 * 4 B * 2 * 3/4 = 25165824 B = 24 MiB */
    const struct lesson_exercise *e =
        load("# D\n\n```exercise\nid: d\ntype: number\nprompt: p\nparam: params = 4194304\n"
             "param: w = 4\nanswer: params * 4 * 2 * (w - 1) / w / 1048576\nunits: MiB\n```\n");
    assert_true(
        ex_answer_in_text(e, "the panel says sent/step 24 MiB here", found, sizeof found));
    assert_string_equal(found, "24 MiB");
    assert_true(ex_answer_in_text(e, "that is 25165824 B", found, sizeof found));
    assert_true(ex_answer_in_text(e, "about 25.2 MB", found, sizeof found)); /* 25.17 MB */
    assert_false(ex_answer_in_text(e, "it takes 24 ms", NULL, 0));           /* another kind */
    assert_false(ex_answer_in_text(e, "16 MiB of gradients", NULL, 0));
    assert_true(ex_answer_in_text(e, "the figure is 24.", NULL, 0));  /* bare: in MiB */
    assert_false(ex_answer_in_text(e, "on 24 ranks", NULL, 0));       /* counts another thing */
    assert_false(ex_answer_in_text(e, "boxes 12 24 36 48", NULL, 0)); /* a list of values */
    assert_false(ex_answer_in_text(e, "H24 or v2.24", NULL, 0));      /* inside words */
    lesson_free(&L);

    /* a count: 2 * (8 - 1) = 14 steps; "14 steps" gives it away */
    e = load("# S\n\n```exercise\nid: s\ntype: number\nprompt: p\nparam: w = 8\n"
             "answer: 2 * (w - 1)\nunits:\ninteger: yes\n```\n");
    assert_true(ex_answer_in_text(e, "it takes 14 steps", found, sizeof found));
    assert_string_equal(found, "14");
    assert_false(ex_answer_in_text(e, "it takes 15 steps", NULL, 0));
    /* a bare whole number is a value, not the count */
    assert_false(ex_answer_in_text(e, "rank 2 gets 14, rank 3 gets 18", NULL, 0));
    lesson_free(&L);

    /* a ratio: "8x" states it, "Lesson 8 showed" counts something else */
    e = load("# X\n\n```exercise\nid: x\ntype: number\nprompt: p\nparam: d = 1024\n"
             "answer: d / 128\nunits: x\n```\n");
    assert_true(ex_answer_in_text(e, "it moves 8x more", NULL, 0));
    assert_false(ex_answer_in_text(e, "Lesson 8 showed this", NULL, 0));
    assert_false(ex_answer_in_text(e, "not lesson 8's example", NULL, 0));
    assert_false(ex_answer_in_text(e, "as slide 8 says", NULL, 0));
    lesson_free(&L);

    e = load("# H\n\n```scene\ncollective: all_reduce\ninit: seq\ncount: 4\n```\n\n"
             "```exercise\nid: h\ntype: holds\nprompt: p\nrank: 2\nstep: end\n```\n");
    assert_true(ex_answer_in_text(e, "every rank ends with 60 64 68 72.", found, sizeof found));
    assert_string_equal(found, "60 64 68 72");
    assert_false(ex_answer_in_text(e, "every rank ends with 60 64 68.", NULL, 0));
    assert_true(ex_answer_in_text(e, "60, 64, 68, 72", NULL, 0)); /* commas too */
    assert_false(ex_answer_in_text(e, "0 10 are two", NULL, 0));
    lesson_free(&L);
}

/* The table of exercise types (lesson/types/) is whole: every type has its name, its
 * operations (none left NULL), the form of its answer and its keys; its keys are keys the
 * parser knows and lets that type have; the keys it must have are among them; the names are
 * distinct. */
static void test_type_table(void **state)
{
    (void)state;
    for (int t = 0; t < LEX_TYPE_COUNT; t++) {
        const struct exercise_type_ops *o = ex_type(t);
        assert_non_null(o->name);
        assert_true(o->name[0] != '\0');
        assert_string_equal(lesson_ex_type_name((enum lesson_ex_type)t), o->name);
        assert_non_null(o->grade);
        assert_non_null(o->answer);
        assert_non_null(o->how);
        assert_non_null(o->json);
        assert_int_not_equal(o->form, EX_ANSWER_UNSET); /* the early-answer checks read it */
        assert_non_null(o->keys);
        assert_non_null(o->required);
        for (int u = 0; u < t; u++)
            assert_string_not_equal(ex_type(u)->name, o->name);
        char req[256];
        snprintf(req, sizeof req, "%s", o->required);
        for (char *k = strtok(req, " "); k; k = strtok(NULL, " ")) {
            if (!ex_type_has_key(t, k))
                fprintf(stderr, "%s requires '%s', not its key\n", o->name, k);
            assert_true(ex_type_has_key(t, k));
        }
        /* each key of the type: the parser knows it and lets this type have it */
        char keys[256];
        snprintf(keys, sizeof keys, "%s", o->keys);
        for (char *k = strtok(keys, " "); k; k = strtok(NULL, " ")) {
            char text[512];
            snprintf(text, sizeof text,
                     "# L\n\n## S\n\n```exercise\nid: e\ntype: %s\nprompt: p\n%s: ?\n```\n",
                     o->name, k);
            struct lesson les;
            struct lesson_errors e = {0};
            lesson_parse("t.md", text, strlen(text), &les, &e);
            for (size_t i = 0; i < e.n; i++) {
                if (strstr(e.msg[i], "unknown key") || strstr(e.msg[i], "is not a key of"))
                    fprintf(stderr, "%s: %s\n", o->name, e.msg[i]);
                assert_null(strstr(e.msg[i], "unknown key"));
                assert_null(strstr(e.msg[i], "is not a key of"));
            }
            lesson_errors_free(&e);
            lesson_free(&les);
        }
    }
    /* an unknown type has a name and refuses to grade */
    struct lesson_exercise x = {.type = LEX_TYPE_COUNT};
    struct ex_grade g;
    assert_string_equal(lesson_ex_type_name(LEX_TYPE_COUNT), "?");
    assert_int_not_equal(ex_grade(&x, NULL, "1", &g), CV_OK);
    assert_int_equal(g.verdict, EX_BAD_INPUT);
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
        cmocka_unit_test(test_grade_input_forms),
        cmocka_unit_test(test_grade_counts_and_rounding),
        cmocka_unit_test(test_grade_diagnosis),
        cmocka_unit_test(test_grade_wrong_lines_and_whys),
        cmocka_unit_test(test_templates),
        cmocka_unit_test(test_variant_constraints),
        cmocka_unit_test(test_variants_sane),
        cmocka_unit_test(test_grade_holds_slots),
        cmocka_unit_test(test_answer_in_text),
        cmocka_unit_test(test_choice_told_walk),
        cmocka_unit_test(test_type_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
