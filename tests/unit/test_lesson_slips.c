/* test_lesson_slips.c - every holds exercise of every shipped lesson: each usual slip's
 * answer is made by the trace engine (the asked rank's input, another rank at the asked
 * step, the asked rank at every other step, the scene with another op, a ring run the other
 * way) and graded; the
 * diagnosis must name a slip whose values are the ones typed (the rank, the step or the
 * op it says), never only "N elements differ". Prints how many slips were graded.
 * And every number exercise whose answer is a fraction or a ratio: the answer written as a
 * percent without its sign ("50" for 0.5) is named a percent slip, not "too high", and the
 * answer written as a percent with its sign ("333%" for 3.33x, "43%" for the fraction 0.43)
 * is named, never accepted.
 * And every number exercise, at its lecture's numbers and at 40 variants: no usual slip (a
 * factor W, the ring's (W-1)/W either way, a factor 2, each of its own `wrong:` traps),
 * typed as a student would, is graded right, however wide the tolerance (lesson 05 took
 * 6598 MB, 2S, for 6572 MB at W = 256).
 * And every number exercise with a unit: its answer, and each of its question's numbers,
 * read in a confused unit (MiB for MB, GiB for GB, ms for µs), is named (no "too high").
 * And every slip named is the nearest one, within the exercise's tolerance. */
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
#include "core/plan.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "scene/scene.h"

#define MAXV 1024

/* The shipped lessons (lessons/) into set, which the caller frees. */
static void shipped(struct lesson_set *set)
{
    struct lesson_errors errs = {0};
    lesson_set_init(set);
    assert_int_equal(lesson_set_add(set, "lessons", &errs), CV_OK);
    lesson_errors_free(&errs);
}

/* A walk over the shipped exercises of one type, in the deck's order (exercise_next); for a
 * number exercise over its numbers too (variant_next): seed 0, the lecture's, then 1 to
 * seeds where it has variants (every_seed: where it has none too, a seed that gives no
 * numbers passed over); and over the values of its usual slips at each (slip_next). The
 * caller sets the first five fields (keep NULL: every exercise of the type). */
struct walk {
    const struct lesson_set *set;
    enum lesson_ex_type type;
    bool (*keep)(const struct lesson_exercise *ex);
    uint64_t seeds;
    bool every_seed;
    const struct lesson_exercise *ex; /* the exercise */
    struct ex_variant v;              /* its numbers (variant_next) */
    double sv[96], x;    /* the slip values at v, and the one at hand (slip_next) */
    size_t nsv, isv;     /* how many, and the next one's index */
    size_t exercises;    /* the exercises walked so far */
    size_t l, s, e;      /* the next exercise's place */
    uint64_t seed, last; /* the next seed and the exercise's last */
};

static bool exercise_next(struct walk *w)
{
    while (w->l < w->set->n) {
        const struct lesson *L = &w->set->v[w->l];
        if (w->s >= L->nslides) {
            w->l++, w->s = 0, w->e = 0;
            continue;
        }
        if (w->e >= L->slides[w->s].nex) {
            w->s++, w->e = 0;
            continue;
        }
        const struct lesson_exercise *ex = &L->slides[w->s].ex[w->e++];
        if (ex->type != w->type || (w->keep && !w->keep(ex))) continue;
        w->ex = ex;
        w->exercises++;
        return true;
    }
    return false;
}

static size_t slip_values(const struct lesson_exercise *ex, const struct ex_variant *v,
                          double *out, size_t cap);

static bool variant_next(struct walk *w)
{
    for (;;) {
        if (!w->ex || w->seed > w->last) {
            if (!exercise_next(w)) return false;
            w->seed = 0;
            w->last = w->every_seed || ex_has_variants(w->ex) ? w->seeds : 0;
        }
        char err[200];
        int rc = ex_variant(w->ex, w->seed++, &w->v, err, sizeof err);
        if (w->every_seed) {
            if (rc != CV_OK) continue;
        } else {
            assert_int_equal(rc, CV_OK);
        }
        return true;
    }
}

static bool slip_next(struct walk *w)
{
    while (w->isv >= w->nsv) {
        if (!variant_next(w)) return false;
        w->nsv = slip_values(w->ex, &w->v, w->sv, 96);
        w->isv = 0;
    }
    w->x = w->sv[w->isv++];
    return true;
}

struct box {
    float v[MAXV];
    bool has[MAXV];
    size_t len;
};

/* The box of ex with rank, step (0 = the input) and op changed, from the engine; with rev,
 * its ring run the other way (0, W-1, ..., 1). */
static bool box_of(const struct lesson_exercise *ex, int rank, long step, enum redop op,
                   bool rev, struct box *b)
{
    struct lesson_exercise *c = malloc(sizeof *c);
    assert_non_null(c);
    *c = *ex;
    c->rank = rank;
    c->step = step;
    c->scene.op = op;
    if (rev) {
        assert_int_equal(ex->scene.ring_n, 0); /* the shipped scenes' rings are 0..W-1 */
        c->scene.ring_n = ex->scene.nranks;
        for (int i = 0; i < ex->scene.nranks; i++)
            c->scene.ring[i] = (ex->scene.nranks - i) % ex->scene.nranks;
    }
    char err[200];
    bool ok = ex_holds_expected(c, b->v, b->has, MAXV, &b->len, err, sizeof err) == CV_OK;
    free(c);
    return ok;
}

static bool box_eq(const struct box *a, const struct box *b)
{
    if (a->len != b->len) return false;
    for (size_t i = 0; i < a->len; i++)
        if (a->has[i] != b->has[i] ||
            (a->has[i] && fabs(a->v[i] - b->v[i]) > 1e-3 * fmax(1.0, fabs(b->v[i]))))
            return false;
    return true;
}

static void box_text(const struct box *b, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < b->len && o + 32 < n; i++) {
        if (b->has[i])
            o += (size_t)snprintf(buf + o, n - o, "%s%.9g", i ? " " : "", b->v[i]);
        else
            o += (size_t)snprintf(buf + o, n - o, "%s.", i ? " " : "");
    }
}

struct slip {
    const char *code;
    int rank;
    long step;
    enum redop op;
    bool rev; /* the ring run the other way */
};

/* Does the diagnosis g name slip s (its code and the rank, step or op that makes it)? */
static bool names(const struct ex_grade *g, const struct slip *s)
{
    char want[80];
    if (strcmp(g->diagnosis, s->code) != 0) return false;
    if (strcmp(s->code, "other-rank") == 0)
        snprintf(want, sizeof want, "rank %d's box", s->rank);
    else if (strcmp(s->code, "op") == 0)
        snprintf(want, sizeof want, "op=%s;", redop_name(s->op));
    else if (strcmp(s->code, "other-step") == 0)
        snprintf(want, sizeof want, "after step %ld (", s->step);
    else if (strcmp(s->code, "phase-short") == 0)
        snprintf(want, sizeof want, "only (step %ld)", s->step);
    else if (strcmp(s->code, "ring-reversed") == 0)
        snprintf(want, sizeof want, "the ring run the other way, rank %d receiving", s->rank);
    else
        snprintf(want, sizeof want, "input");
    return strstr(g->msg, want) != NULL;
}

static void test_every_slip_named(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, named = 0, reversed = 0;
    static const enum redop ops[] = {OP_SUM, OP_AVG, OP_MAX, OP_MIN, OP_PROD};
    struct walk w = {.set = &set, .type = LEX_HOLDS};
    while (exercise_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        struct plan p;
        char err[200];
        const struct scene *sc = &ex->scene;
        assert_int_equal(scene_plan_build(sc, &p, scene_count(sc),
                                          coll_is_rooted(sc->coll) ? sc->root : 0, err,
                                          sizeof err),
                         CV_OK);
        long nsteps = (long)p.nsteps, ends[64];
        size_t nends = plan_phase_ends(&p, ends, 64);
        plan_free(&p);
        long asked = ex->step == SCENE_STEP_END || ex->step > nsteps ? nsteps : ex->step;
        /* every slip this exercise can have */
        struct slip sl[256];
        size_t ns = 0;
        sl[ns++] = (struct slip){"input", ex->rank, 0, sc->op, false};
        for (size_t i = 0; i < nends; i++)
            if (ends[i] < asked)
                sl[ns++] = (struct slip){"phase-short", ex->rank, ends[i], sc->op, false};
        for (int r = 0; r < sc->nranks; r++)
            if (r != ex->rank) sl[ns++] = (struct slip){"other-rank", r, asked, sc->op, false};
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
            if (ops[k] != sc->op)
                sl[ns++] = (struct slip){"op", ex->rank, ex->step, ops[k], false};
        for (long t = 1; t <= nsteps && ns < 255; t++)
            if (t != asked) sl[ns++] = (struct slip){"other-step", ex->rank, t, sc->op, false};
        if (sc->algo == ALGO_RING && sc->nranks > 2)
            sl[ns++] = (struct slip){"ring-reversed", ex->rank, ex->step, sc->op, true};
        struct box right, *bx = calloc(ns, sizeof *bx);
        assert_non_null(bx);
        assert_true(box_of(ex, ex->rank, ex->step, sc->op, false, &right));
        for (size_t i = 0; i < ns; i++)
            assert_true(box_of(ex, sl[i].rank, sl[i].step, sl[i].op, sl[i].rev, &bx[i]));
        for (size_t i = 0; i < ns; i++) {
            if (box_eq(&bx[i], &right)) continue; /* not a slip here */
            char text[MAXV * 12];
            box_text(&bx[i], text, sizeof text);
            struct ex_grade g;
            memset(&g, 0, sizeof g);
            assert_int_equal(ex_grade(ex, NULL, text, &g), CV_OK);
            graded++;
            reversed += sl[i].rev;
            bool ok = false; /* any slip with these very values may be the one named */
            for (size_t j = 0; j < ns && !ok; j++)
                ok = box_eq(&bx[j], &bx[i]) && names(&g, &sl[j]);
            if (ok)
                named++;
            else
                printf("%s: %s (%s rank %d step %ld op %s) got: %s\n", ex->id, text, sl[i].code,
                       sl[i].rank, sl[i].step, redop_name(sl[i].op), g.msg);
        }
        free(bx);
    }
    printf("holds slips: %zu exercises, %zu slips graded (%zu rings run the other way), %zu "
           "named\n",
           w.exercises, graded, reversed, named);
    assert_true(w.exercises >= 20);
    assert_true(graded > w.exercises);
    assert_int_equal(named, graded);
    lesson_set_free(&set);
}

static void expect_percent(const struct lesson_exercise *ex, const char *text, size_t *named)
{
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    assert_int_equal(ex_grade(ex, NULL, text, &g), CV_OK);
    if (g.verdict == EX_WRONG && strcmp(g.diagnosis, "percent") == 0 &&
        (strstr(g.msg, "percent") || strstr(g.msg, "percentage")))
        (*named)++;
    else
        printf("%s: '%s' got %s (%s): %s\n", ex->id, text, ex_verdict_name(g.verdict),
               g.diagnosis, g.msg);
}

static void test_percent_named(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t asked = 0, named = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER};
    while (exercise_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        bool ratio = strcmp(ex->units, "x") == 0;
        bool fraction = !ex->units[0] && !ex->integer && fabs(ex->answer) <= 1;
        if (!ratio && !fraction) continue;
        char text[64];
        snprintf(text, sizeof text, "%.6g", ex->answer * 100); /* no sign */
        expect_percent(ex, text, &named);
        asked++;
        /* with its sign, a percent is named too: "43%" is not the fraction 0.43 */
        snprintf(text, sizeof text, "%.6g%%", ex->answer * 100);
        expect_percent(ex, text, &named);
        asked++;
    }
    printf("percent slips: %zu asked, %zu named\n", asked, named);
    assert_true(asked >= 8);
    assert_int_equal(named, asked);
    lesson_set_free(&set);
}

/* The exercise's world size at v, from a param named like one (0 when none). */
static double world_of(const struct lesson_exercise *ex, const struct ex_variant *v)
{
    static const char *const names[] = {"w", "W", "ranks", "nranks", "world"};
    for (size_t i = 0; i < ex->nparams; i++)
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (strcmp(ex->params[i].name, names[k]) == 0) return v->param[i];
    return 0;
}

/* Grade text (a slip of ex at v, not its answer): counts it, prints it when right. */
static void expect_not_right(const struct lesson_exercise *ex, const struct ex_variant *v,
                             const char *text, size_t *graded, size_t *accepted)
{
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    assert_int_equal(ex_grade(ex, v, text, &g), CV_OK);
    (*graded)++;
    if (g.verdict == EX_RIGHT) {
        (*accepted)++;
        printf("%s seed %llu: slip '%s' graded right (answer %.9g): %s\n", ex->id,
               (unsigned long long)v->seed, text, v->answer, g.msg);
    }
}

static void test_no_slip_right(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, accepted = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 40};
    while (variant_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        char text[64];
        double W = world_of(ex, &v), want = v.answer;
        double f[6] = {2, 0.5, 0, 0, 0, 0};
        size_t nf = 2;
        if (W > 2) {
            f[nf++] = W, f[nf++] = 1 / W;
            f[nf++] = (W - 1) / W, f[nf++] = W / (W - 1);
        }
        for (size_t i = 0; i < nf; i++) {
            double slip = want * f[i];
            if (fabs(slip - want) <= 1e-9 * fabs(want)) continue;
            snprintf(text, sizeof text, "%.6g", slip);
            expect_not_right(ex, &v, text, &graded, &accepted);
        }
        for (size_t k = 0; k < ex->nwrong; k++) {
            char tmpl[300];
            snprintf(tmpl, sizeof tmpl, "{= %s}", ex->wrong[k].formula);
            char *t = ex_text(ex, &v, tmpl);
            double slip = strtod(t, NULL);
            /* a trap equal to the answer at these numbers is no slip here */
            if (fabs(slip - want) > 1e-3 * fabs(want))
                expect_not_right(ex, &v, t, &graded, &accepted);
            free(t);
        }
    }
    printf("number slips: %zu exercises, %zu slips graded, %zu graded right\n", w.exercises,
           graded, accepted);
    assert_true(w.exercises >= 40);
    assert_true(graded > w.exercises);
    assert_int_equal(accepted, 0);
    lesson_set_free(&set);
}

/* Does msg say something of ex at v: one of its numbers as the question writes it, its
 * unit, or the form of its answer (a fraction, a ratio)? A message that fits every
 * exercise alike ("a link's two directions" on a question about reading memory) does not. */
static bool about_exercise(const struct lesson_exercise *ex, const struct ex_variant *v,
                           const struct ex_grade *g)
{
    if (strcmp(g->diagnosis, "listed") == 0) return true; /* the lesson's own words */
    for (size_t i = 0; i < ex->nparams; i++) {
        char num[48];
        ex_format_number(v->param[i], num, sizeof num);
        if (strstr(g->msg, num)) return true;
    }
    if (ex->units[0] && strstr(g->msg, ex->units)) return true;
    /* a number the prompt writes at v ("on 8 ranks" where the param is k, 8 = 2^k) */
    char *prompt = ex_prompt(ex, v);
    bool in_prompt = false;
    for (const char *p = prompt; *p && !in_prompt; p++) {
        if (!isdigit((unsigned char)*p) || (p > prompt && isalnum((unsigned char)p[-1])))
            continue;
        char num[32], said[40];
        size_t k = strspn(p, "0123456789.");
        snprintf(num, sizeof num, "%.*s", (int)(k < 31 ? k : 31), p);
        snprintf(said, sizeof said, " %s ", num);
        in_prompt = k > 0 && num[k - 1] != '.' && strstr(g->msg, said);
        p += k ? k - 1 : 0;
    }
    free(prompt);
    if (in_prompt) return true;
    return strcmp(g->diagnosis, "percent") == 0 &&
           (strstr(g->msg, "fraction") || strstr(g->msg, "ratio"));
}

/* The values a student's slip on ex at v gives: the formula's own (a term or a factor left
 * out, every term divided, W for W - 1) and the usual factors (2, W, (W-1)/W, 8 for a size
 * or a bandwidth, 1000^k, 100 for a fraction or a ratio). At most cap. */
static size_t slip_values(const struct lesson_exercise *ex, const struct ex_variant *v,
                          double *out, size_t cap)
{
    struct ex_formula_slip fs[64];
    size_t n = 0, nf = ex_formula_slips(ex, v, fs, 64);
    for (size_t i = 0; i < nf && n < cap; i++)
        out[n++] = fs[i].value;
    double W = world_of(ex, v), want = v->answer;
    double f[24] = {2, 0.5, 1000, 0.001, 1e6, 1e-6};
    size_t k = 6;
    if (W > 2) f[k++] = W, f[k++] = 1 / W, f[k++] = (W - 1) / W, f[k++] = W / (W - 1);
    enum ex_dim dim = DIM_NONE;
    ex_unit_lookup(ex->units, &dim, NULL, NULL);
    if (dim == DIM_BYTES || dim == DIM_BANDWIDTH) f[k++] = 8, f[k++] = 0.125;
    if (strcmp(ex->units, "x") == 0 || ex_is_fraction(ex, want)) f[k++] = 100;
    for (size_t i = 0; i < k && n < cap; i++)
        out[n++] = want * f[i];
    return n;
}

static void test_slips_said_of_exercise(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, named = 0, about = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 10};
    while (slip_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        char text[64];
        /* a slip the tolerance cannot tell from the answer is no slip here */
        if (!isfinite(w.x) ||
            fabs(w.x - v.answer) <= 2.5 * fmax(ex->tolerance, 0.005) * fabs(v.answer) ||
            (ex->integer && w.x != round(w.x)))
            continue;
        snprintf(text, sizeof text, "%.6g", w.x);
        struct ex_grade g;
        memset(&g, 0, sizeof g);
        assert_int_equal(ex_grade(ex, &v, text, &g), CV_OK);
        if (g.verdict != EX_WRONG) continue; /* bad input: "1e-06" etc. */
        graded++;
        bool nm = strcmp(g.diagnosis, "too-high") != 0 && strcmp(g.diagnosis, "too-low") != 0;
        bool ab = nm && about_exercise(ex, &v, &g);
        named += nm;
        about += ab;
        if (!ab)
            printf("%s seed %llu: '%s' (answer %.6g): %s: %s\n", ex->id,
                   (unsigned long long)v.seed, text, v.answer, g.diagnosis, g.msg);
    }
    printf("number slips said of their exercise: %zu exercises, %zu slips graded, %zu named, "
           "%zu in the exercise's own terms\n",
           w.exercises, graded, named, about);
    assert_true(w.exercises >= 40);
    assert_true(graded > 10 * w.exercises);
    assert_int_equal(named, graded);
    assert_int_equal(about, graded);
    lesson_set_free(&set);
}

/* A slip a walk met: typed on exercise id (at variant seed where it is a number one), the
 * diagnosis code it must get and what its message must say. */
struct slip_case {
    const char *id;
    uint64_t seed;
    const char *typed, *code, *says;
};

/* c's typed answer graded into g. */
static void grade_case(const struct lesson_set *set, const struct slip_case *c,
                       struct ex_grade *g)
{
    const struct lesson_exercise *ex = lesson_set_find_exercise(set, c->id, NULL);
    assert_non_null(ex);
    struct ex_variant v;
    char err[200];
    bool number = ex->type == LEX_NUMBER;
    if (number) assert_int_equal(ex_variant(ex, c->seed, &v, err, sizeof err), CV_OK);
    memset(g, 0, sizeof *g);
    assert_int_equal(ex_grade(ex, number ? &v : NULL, c->typed, g), CV_OK);
}

/* Each case graded on the shipped lessons; those misnamed printed and counted: a diagnosis
 * other than the case's code, a message without its words, or one that says any of never[]
 * (NULL-ended); with wrong_only, a verdict other than wrong too. */
static size_t slips_misnamed(const struct slip_case *cases, size_t n, bool wrong_only,
                             const char *const *never)
{
    struct lesson_set set;
    shipped(&set);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct ex_grade g;
        grade_case(&set, &cases[i], &g);
        bool off = (wrong_only && g.verdict != EX_WRONG) ||
                   strcmp(g.diagnosis, cases[i].code) != 0 || !strstr(g.msg, cases[i].says);
        for (size_t k = 0; never[k]; k++)
            off = off || strstr(g.msg, never[k]);
        if (off) {
            printf("%s seed %llu '%s': %s: %s\n", cases[i].id,
                   (unsigned long long)cases[i].seed, cases[i].typed, g.diagnosis, g.msg);
            bad++;
        }
    }
    lesson_set_free(&set);
    return bad;
}

/* The walks' instances, each a slip of its formula named as such. */
static void test_formula_slips_named(void **state)
{
    (void)state;
    static const struct slip_case cases[] = {
        /* M = (P-1)/f - (P-1); (P-1)/f = 70 is M + P - 1: the P - 1 not subtracted */
        {"pp-microbatches-needed", 0, "70", "left-out-term", "the term 8 \xe2\x88\x92 1"},
        /* 4ψ + 4ψ + 8ψ/W at ψ = 518, W = 15: 16ψ/W = 552.5 divides the whole by W */
        {"zero-stage1-mem", 1, "552.5", "all-divided", "every term by 15"},
        /* (16·L·d²/W + 4·d²)/2^20 at L = 47, d = 1900, W = 22: without 4·d², 117.7 MiB */
        {"zero-stage3-mem", 1, "117.7", "left-out-term", "4 \xc3\x97 1900 \xc3\x97 1900"},
        /* 2b + 14b/n at b = 92.9, n = 42: 16b/n = 35.39 divides the fp16 weights too */
        {"zero-paper-stage2", 1, "35.4", "all-divided", "every term by 42"},
    };
    struct lesson_set set;
    shipped(&set);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ex_grade g;
        grade_case(&set, &cases[i], &g);
        if (strcmp(g.diagnosis, cases[i].code) != 0 || !strstr(g.msg, cases[i].says))
            printf("%s '%s': %s: %s\n", cases[i].id, cases[i].typed, g.diagnosis, g.msg);
        assert_string_equal(g.diagnosis, cases[i].code);
        assert_non_null(strstr(g.msg, cases[i].says));
    }
    lesson_set_free(&set);
}

/* The student walk's slips (lesson, slide: typed), each worked out by hand, and named by a
 * rule that knows nothing of the exercise: never "too high"/"too low", never a cause that
 * only happens to give the number. */
static void test_walk_slips_named(void **state)
{
    (void)state;
    static const struct slip_case cases[] = {
        /* L07 s1: the tree all-reduce on 8 ranks takes 2 log2 8 = 6 steps; 14 = 2(8 - 1)
         * is the ring's count on the same ranks */
        {"tree-steps", 0, "14", "other-plan-steps", "ring all-reduce on 8 ranks"},
        /* L07 s5: ring 2(W-1)a + 2(W-1)/W S/b = 70 + 35 us; 90 = 70 + 20 writes the
         * bandwidth term as S/b = 1 MB / 50 GB/s, the ring's 2(W-1)/W left out */
        {"alpha-beta-ring", 0, "90", "left-out-factor",
         "the factor 2 \xc3\x97 (8 \xe2\x88\x92 1) / 8 of"},
        /* L14 s5 (variant 1: L = 15, D = 3039, W = 59): stage 3 sends 3 collectives a
         * layer, 1559 MiB; 1039 = 2/3 of it is DDP's two (the solution's own figure) */
        {"zero-stage3-bytes", 1, "1039", "off-by-one", "takes 2 where the answer has 3"},
        /* L14 s1 (variant 1: 82.4 million parameters): 4 + 4 + 8 bytes each, 1318.4 MB;
         * 329.6 = 4 x 82.4 counts the fp32 weights only */
        {"zero-ddp-bytes", 1, "329.6", "only-term", "only the term 4 \xc3\x97 82.4 million"},
        /* L10 s3 (variant 1: L = 53, B = 128, D = 2048): 53 x 128 x 2048 = 13893632;
         * 13631488 = 52 x 128 x 2048, one layer's all-gather fewer */
        {"tp-allgather-elements", 1, "13631488", "off-by-one",
         "uses 52 where the question has 53"},
        /* L10 s6: 64 GB over 8 ranks is 8 GB; 16 = 64 / 4 divides by the slide's scene's
         * 4 ranks (the narration's "16 MiB instead of 64" at W = 4) */
        {"tp-memory-share", 0, "16", "scene-ranks", "W = 4, the ranks of the slide's scene"},
        /* L14 s2 (variant 1: 518 million, W = 15): 4Y + 4Y + 8Y/W = 4420 MB; 552.5 =
         * 16Y/W divides the weights and gradients too. answer / 8 is the same number at
         * W = 15 by chance: bits for bytes is not said */
        {"zero-stage1-mem", 1, "552.5", "all-divided", "every term by 15"},
        /* L11 s4: M = (P-1)/f - (P-1) = 70 - 7 = 63; 70 is M + P - 1, the slots of the
         * whole step, P - 1 not subtracted */
        {"pp-microbatches-needed", 0, "70", "left-out-term", "the term 8 \xe2\x88\x92 1"},
        /* L08 s4: 104857600 x 4 B x 6 / 6.4 ms = 393.2 GB/s; 419 is the size,
         * 104857600 x 4 = 419.4 million bytes, typed as the answer */
        {"lecture-busbw", 0, "419", "partial-result", "104857600 \xc3\x97 4 = 419.4 million"},
    };
    static const char *const never[] = {"bits", "too high", "too low", NULL};
    assert_int_equal(slips_misnamed(cases, sizeof cases / sizeof cases[0], true, never), 0);
}

/* The unit of a param as its prompt writes it: the unit word right after "{name}" ("{mb}
 * MB", "{alpha_us} µs"), or "" when the prompt gives none. */
static void param_unit(const struct lesson_exercise *ex, size_t i, char *unit, size_t n)
{
    char tag[40];
    unit[0] = '\0';
    snprintf(tag, sizeof tag, "{%s}", ex->params[i].name);
    const char *p = ex->prompt ? strstr(ex->prompt, tag) : NULL;
    if (!p) return;
    p += strlen(tag);
    while (*p == ' ')
        p++;
    size_t k = 0;
    while (p[k] && p[k] != ' ' && p[k] != ',' && p[k] != '.' && p[k] != ')' && p[k] != ';' &&
           p[k] != '?' && k + 1 < n)
        k++;
    snprintf(unit, n, "%.*s", (int)k, p);
    if (ex_unit_lookup(unit, NULL, NULL, NULL) != CV_OK || !strcmp(unit, "x") || !unit[0] ||
        !strcmp(unit, "%"))
        unit[0] = '\0';
}

/* The unit-confusion factor of a unit: a binary prefix read for a decimal one (MiB for MB:
 * 1.048576, GiB for GB: 1.073741824, KiB for KB, TiB for TB) or a time read in the next
 * unit (ms for µs: 1000); 0 for none. */
static double confusion_factor(const char *unit)
{
    enum ex_dim dim = DIM_NONE;
    if (ex_unit_lookup(unit, &dim, NULL, NULL) != CV_OK) return 0;
    if (dim == DIM_TIME) return 1000;
    if (dim != DIM_BYTES && dim != DIM_BANDWIDTH) return 0;
    switch (unit[0]) {
    case 'K':
        return 1.024;
    case 'M':
        return 1.048576;
    case 'G':
        return unit[1] == 'b' ? 0 : 1.073741824;
    case 'T':
        return 1.099511627776;
    }
    return 0;
}

/* Grade text on ex at v: counts a slip graded "too high"/"too low" or right, printing it. */
static void expect_named(const struct lesson_exercise *ex, const struct ex_variant *v,
                         const char *text, const char *what, size_t *graded, size_t *plain)
{
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    assert_int_equal(ex_grade(ex, v, text, &g), CV_OK);
    if (g.verdict == EX_BAD_INPUT) return;
    (*graded)++;
    if (g.verdict == EX_RIGHT || !strcmp(g.diagnosis, "too-high") ||
        !strcmp(g.diagnosis, "too-low")) {
        (*plain)++;
        printf("%s seed %llu: %s '%s' (answer %.6g): %s\n", ex->id, (unsigned long long)v->seed,
               what, text, v->answer, g.msg);
    }
}

/* Has ex a unit of some kind (a size, a time, a bandwidth)? */
static bool has_unit(const struct lesson_exercise *ex)
{
    enum ex_dim dim = DIM_NONE;
    return ex_unit_lookup(ex->units, &dim, NULL, NULL) == CV_OK && dim != DIM_NONE;
}

/* Every number exercise with a unit, at its numbers and 10 variants: its answer read in the
 * binary twin of a decimal unit (MiB for MB, GiB for GB) or a power of 1000 off, either way,
 * and each of its params given with a unit read in the confused unit (1 MB as 1 MiB, 5 µs
 * as 5 ms), either way: each is named, never "too high"/"too low". Lesson 07's 106.7 µs
 * (1 MB read as 1 MiB in the ring's time) was "too high". */
static void test_unit_confusions_named(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, plain = 0, params = 0;
    static const double answer_f[] = {1.048576, 1.073741824, 1000};
    struct walk w = {.set = &set, .type = LEX_NUMBER, .keep = has_unit, .seeds = 10};
    while (variant_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        char err[200], text[64], what[80];
        for (size_t i = 0; i < 3; i++)
            for (int inv = 0; inv < 2; inv++) {
                double x = inv ? v.answer / answer_f[i] : v.answer * answer_f[i];
                if (ex->integer && x != round(x)) continue;
                snprintf(text, sizeof text, "%.6g", x);
                snprintf(what, sizeof what, "answer %s %g", inv ? "/" : "x", answer_f[i]);
                expect_named(ex, &v, text, what, &graded, &plain);
            }
        const char *names[LESSON_MAX_PARAMS];
        double vals[LESSON_MAX_PARAMS];
        for (size_t i = 0; i < ex->nparams; i++)
            names[i] = ex->params[i].name, vals[i] = v.param[i];
        for (size_t i = 0; i < ex->nparams; i++) {
            char unit[24];
            param_unit(ex, i, unit, sizeof unit);
            double f = confusion_factor(unit);
            for (int inv = 0; f > 0 && inv < 2; inv++) {
                double keep = vals[i], x;
                vals[i] = inv ? keep / f : keep * f;
                int rc =
                    ex_formula_eval(ex->formula, names, vals, ex->nparams, &x, err, sizeof err);
                vals[i] = keep;
                /* a slip the tolerance cannot tell from the answer is none */
                if (rc != CV_OK || !isfinite(x) ||
                    fabs(x - v.answer) <= 2.5 * fmax(ex->tolerance, 0.005) * fabs(v.answer) ||
                    (ex->integer && x != round(x)))
                    continue;
                params++;
                snprintf(text, sizeof text, "%.6g", x);
                snprintf(what, sizeof what, "%s %s %s %g", ex->params[i].name, unit,
                         inv ? "/" : "x", f);
                expect_named(ex, &v, text, what, &graded, &plain);
            }
        }
    }
    printf("unit confusions: %zu exercises with a unit, %zu slips graded (%zu of a param), "
           "%zu graded plainly too high/low or right\n",
           w.exercises, graded, params, plain);
    assert_true(w.exercises >= 20);
    assert_true(params >= w.exercises);
    assert_int_equal(plain, 0);
    lesson_set_free(&set);
}

/* The walk's instances of a wrong slip blamed: each now names the slip that gives the typed
 * value, the nearest one. */
static void test_nearest_slip_named(void **state)
{
    (void)state;
    static const struct slip_case cases[] = {
        /* 2b + 14b/n at b = 101, n = 92 is 217.4; 419 is 4b + 14b/n = 419.4 (the term 2b
         * counted twice, 0.1% off), not 2 x 217.4 = 434.7 (3.6% off), "exactly twice" */
        {"zero-paper-stage2", 40, "419", "twice-term", "2 \xc3\x97 101 billion twice"},
        /* tree: 2 log2(8) 5 + 2 S/beta = 30 + 40; 50 leaves out the 2 of the bandwidth term
         * (one direction of the tree), and, by the same number, log2(8) of the latency term:
         * both are said */
        {"alpha-beta-tree", 0, "50", "left-out-factor",
         "log2(8) of 2 \xc3\x97 log2(8) \xc3\x97 5"},
        {"alpha-beta-tree", 0, "50", "left-out-factor", "the factor 2 of 2 \xc3\x97 1 MB"},
        /* lesson 07's ring at 1 MB read as 1 MiB: 70 + 35 x 1.048576 = 106.7 us */
        {"alpha-beta-ring", 0, "106.7", "param-unit", "1 MiB"},
        /* a ring all-gather run the other way: rank 0 gets rank 1's block, then rank 2's */
        {"tp-ag-rank0-step2", 0, "0 1 10 11 20 21 . .", "ring-reversed", "the other way"},
    };
    static const char *const never[] = {"Exactly", NULL};
    assert_int_equal(slips_misnamed(cases, sizeof cases / sizeof cases[0], false, never), 0);
}

/* Half a unit of the last significant digit of text ("35": 0.5, "160.05": 0.005, "1.5e+06":
 * 5e4), as the grader reads a typed number's precision. */
static double half_digit(const char *text)
{
    const char *e = strpbrk(text, "eE");
    size_t len = e ? (size_t)(e - text) : strlen(text);
    const char *dot = memchr(text, '.', len);
    int exp10 = e ? atoi(e + 1) : 0;
    if (dot) return 0.5 * pow(10, exp10 - (int)(len - (size_t)(dot - text) - 1));
    size_t zeros = 0;
    while (zeros < len && text[len - 1 - zeros] == '0')
        zeros++;
    return 0.5 * pow(10, exp10 + (int)zeros);
}

/* Every number exercise at its numbers and 10 variants, every slip value it invites typed:
 * the slip named gives a value within the exercise's tolerance of the typed (g.slip), and no
 * slip the test knows gives a value nearer the typed by more than the digits typed can
 * tell. */
static void test_named_slip_is_nearest(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, far = 0, nearer = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 10};
    while (slip_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        const double *sv = w.sv;
        char text[64];
        if (!isfinite(w.x) || w.x == 0) continue;
        snprintf(text, sizeof text, "%.6g", w.x);
        double typed = strtod(text, NULL);
        struct ex_grade g;
        memset(&g, 0, sizeof g);
        assert_int_equal(ex_grade(ex, &v, text, &g), CV_OK);
        if (g.verdict != EX_WRONG || !isfinite(g.slip)) continue;
        graded++;
        double d = fabs(typed - g.slip);
        if (d > fmax(ex->tolerance, 1e-6) * fabs(g.slip) * (1 + 1e-9)) {
            far++;
            printf("%s seed %llu: '%s' named %s, whose value %.6g is not "
                   "within the tolerance: %s\n",
                   ex->id, (unsigned long long)v.seed, text, g.diagnosis, g.slip, g.msg);
        }
        for (size_t k = 0; k < w.nsv; k++)
            if (isfinite(sv[k]) && fabs(typed - sv[k]) < d - half_digit(text)) {
                nearer++;
                printf("%s seed %llu: '%s' named %s (%.6g) where a slip gives "
                       "%.6g: %s\n",
                       ex->id, (unsigned long long)v.seed, text, g.diagnosis, g.slip, sv[k],
                       g.msg);
                break;
            }
    }
    printf("named slips: %zu graded, %zu named beyond the tolerance, %zu with a nearer slip\n",
           graded, far, nearer);
    assert_true(graded > 100);
    assert_int_equal(far, 0);
    assert_int_equal(nearer, 0);
    lesson_set_free(&set);
}

/* Every formula slip of every shipped number exercise (its numbers and 5 variants), typed:
 * two diagnoses joined read as one sentence (no capital after "; or", no "?;" or ".;");
 * every holds exercise answered with too few and too many values: the count agrees with its
 * noun. Before the join was made one sentence: 107 of 402 joined messages (of 1565), and 3
 * "holds 1 elements". */
static int slip_join_bad(const char *m)
{
    const char *p = strstr(m, "; or ");
    bool cap = p && p[5] >= 'A' && p[5] <= 'Z' && p[6] >= 'a' && p[6] <= 'z';
    return cap || strstr(m, "?;") || strstr(m, ".;");
}

static void test_slip_messages_read(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t said = 0, joined = 0, bad = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 5, .every_seed = true};
    while (variant_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        struct ex_formula_slip fs[64];
        size_t nf = ex_formula_slips(ex, &v, fs, 64);
        for (size_t i = 0; i < nf; i++) {
            char typed[64];
            snprintf(typed, sizeof typed, "%.6g", fs[i].value);
            struct ex_grade g;
            memset(&g, 0, sizeof g);
            if (ex_grade(ex, &v, typed, &g) != CV_OK || g.verdict == EX_RIGHT) continue;
            said++;
            joined += strstr(g.msg, "; or ") != NULL;
            if (slip_join_bad(g.msg)) {
                if (bad++ < 8) printf("%s '%s': %s\n", ex->id, typed, g.msg);
            }
        }
    }
    /* a holds answer of the wrong length: the count agrees with its noun ("1 element") */
    struct walk h = {.set = &set, .type = LEX_HOLDS};
    while (exercise_next(&h)) {
        const struct lesson_exercise *ex = h.ex;
        for (const char *typed = "1"; typed;
             typed = *typed == '1' && !typed[1] ? "1 2 3 4 5 6 7 8 9 10 11 12 13" : NULL) {
            struct ex_grade g;
            memset(&g, 0, sizeof g);
            assert_int_equal(ex_grade(ex, NULL, typed, &g), CV_OK);
            said++;
            if (strstr(g.msg, " 1 elements") || strstr(g.msg, " 1 values")) {
                if (bad++ < 8) printf("%s '%s': %s\n", ex->id, typed, g.msg);
            }
        }
    }
    printf("slip messages: %zu said, %zu joined, %zu not one sentence\n", said, joined, bad);
    assert_true(said > 50);
    assert_int_equal(bad, 0);
    lesson_set_free(&set);
}

/* Is g's diagnosis a unit slip: a code of the answer or a number read in another unit, and
 * a message that says so ("unit"; without a unit, "power of ten" or "of 1024")? A step of
 * the working, "too high" or a factor of the formula that only happens to give the number
 * is not. */
static bool unit_slip_named(const struct ex_grade *g, bool has_dim)
{
    static const char *const codes[] = {"power-of-ten", "power-of-1024", "gib-vs-gb",
                                        "param-unit"};
    bool code = false;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        code = code || strcmp(g->diagnosis, codes[i]) == 0;
    return g->verdict == EX_WRONG && code &&
           (strstr(g->msg, "unit") || (!has_dim && strstr(g->msg, "a power of ")));
}

/* Every number exercise at its numbers and 20 variants: its answer off by 1000 or 1000000
 * either way (GB/s for TB/s: 0.419 for 419 GB/s), and, with bytes or a bandwidth, by 1024
 * or 1048576 either way (512 for 512 KiB where MiB is asked), typed to 3 and to 6
 * significant digits: the diagnosis names a unit slip. Before: 0.419 for 419.4 GB/s was "a
 * step of the working", 512 for 0.5 MiB "too high". */
static void test_unit_slips_named(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, named = 0;
    static const double f[] = {1000, 1e-3, 1e6, 1e-6, 1024, 1.0 / 1024, 1048576, 1.0 / 1048576};
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 20};
    while (variant_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        enum ex_dim dim = DIM_NONE;
        ex_unit_lookup(ex->units, &dim, NULL, NULL);
        bool bytes = dim == DIM_BYTES || dim == DIM_BANDWIDTH;
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
            if (i >= 4 && !bytes) continue;
            double x = v.answer * f[i];
            if (x == 0 || (ex->integer && x != round(x))) continue;
            for (int digits = 3; digits <= 6; digits += 3) {
                char text[64];
                snprintf(text, sizeof text, "%.*g", digits, x);
                struct ex_grade g;
                memset(&g, 0, sizeof g);
                assert_int_equal(ex_grade(ex, &v, text, &g), CV_OK);
                if (g.verdict == EX_BAD_INPUT) continue;
                graded++;
                if (unit_slip_named(&g, dim != DIM_NONE))
                    named++;
                else
                    printf("%s seed %llu: '%s' (answer %.6g x %g): %s: %s\n", ex->id,
                           (unsigned long long)v.seed, text, v.answer, f[i], g.diagnosis,
                           g.msg);
            }
        }
    }
    printf("unit slips: %zu exercises, %zu graded, %zu named a unit slip\n", w.exercises,
           graded, named);
    assert_true(w.exercises >= 40);
    assert_true(graded > 4 * w.exercises);
    assert_int_equal(named, graded);
    lesson_set_free(&set);
}

/* Does ex ask how many steps a ring collective takes (a count, "step" and "ring" in its
 * prompt at v)? Its collective in *c, its ranks in *W. */
static bool asks_ring_steps(const struct lesson_exercise *ex, const struct ex_variant *v,
                            enum coll *c, int *W)
{
    if (!ex->integer || ex->units[0]) return false;
    char *p = ex_prompt(ex, v);
    bool ring = strstr(p, "step") && strstr(p, "ring ");
    size_t best = 0;
    for (int k = 0; ring && k < COLL_COUNT; k++) {
        const char *t = coll_title((enum coll)k), *at = strstr(p, t);
        if (at && strlen(t) > best) best = strlen(t), *c = (enum coll)k;
    }
    *W = (int)world_of(ex, v);
    free(p);
    return ring && best > 0 && *W >= 3;
}

/* Every exercise that asks a ring collective's step count, at its numbers and 20 variants:
 * W typed for each phase's W - 1 (16 for the ring all-reduce's 14 on 8 ranks: 2 phases of
 * 8) is named as that (the ring takes W - 1 steps a phase), never as the ring's byte
 * factor (W-1)/W, which is about what a rank sends, not how many steps. The phases are
 * counted from the engine's plan. */
static void test_ring_steps_named(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, named = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 20};
    while (variant_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        enum coll c = COLL_ALL_REDUCE;
        int W;
        if (!asks_ring_steps(ex, &v, &c, &W)) continue;
        struct plan p;
        char err[200], text[32], says[64];
        int wr = W < CV_MAX_RANKS ? W : CV_MAX_RANKS; /* the engine's most; phases alike */
        assert_int_equal(
            plan_build(&p, c, ALGO_RING, OP_SUM, wr, (size_t)wr * 4, 0, err, sizeof err),
            CV_OK);
        long ends[64];
        size_t nph = plan_phase_ends(&p, ends, 64);
        assert_true(nph >= 1);
        assert_int_equal((long)p.nsteps, (long)nph * (wr - 1)); /* W - 1 a phase */
        plan_free(&p);
        snprintf(text, sizeof text, "%d", (int)nph * W);
        snprintf(says, sizeof says,
                 "W\xe2\x88\x92"
                 "1 = %d steps a phase",
                 W - 1);
        struct ex_grade g;
        memset(&g, 0, sizeof g);
        assert_int_equal(ex_grade(ex, &v, text, &g), CV_OK);
        graded++;
        bool ok =
            g.verdict == EX_WRONG &&
            (strcmp(g.diagnosis, "ring-steps") == 0 || strcmp(g.diagnosis, "listed") == 0) &&
            (strstr(g.msg, says) || strcmp(g.diagnosis, "listed") == 0) &&
            !strstr(g.msg, "(W-1)/W");
        if (ok)
            named++;
        else
            printf("%s seed %llu: '%s' (answer %.6g): %s: %s\n", ex->id,
                   (unsigned long long)v.seed, text, v.answer, g.diagnosis, g.msg);
    }
    printf("ring steps: %zu exercises, %zu graded, %zu named W-1 a phase\n", w.exercises,
           graded, named);
    assert_true(graded >= 20);
    assert_int_equal(named, graded);
    lesson_set_free(&set);
}

/* half_digit of the number that s starts with (what follows it, " MiB)", left out). */
static double half_digit_num(const char *s)
{
    char num[64];
    size_t k = strspn(s, "0123456789.e-+");
    snprintf(num, sizeof num, "%.*s", (int)(k < 63 ? k : 63), s);
    return half_digit(num);
}

/* Significant digits of a number as text ("131.45": 5, "420": 2, "0.042": 2). */
static int sig_of(const char *s)
{
    int n = 0, zeros = 0;
    bool seen = false, frac = false;
    for (const char *p = s; isdigit((unsigned char)*p) || *p == '.'; p++) {
        if (*p == '.') {
            frac = true;
            continue;
        }
        if (*p != '0') seen = true;
        if (!seen) continue;
        n++;
        zeros = *p == '0' ? zeros + 1 : 0;
    }
    return frac ? n : n - zeros;
}

/* Every number exercise at its numbers and 20 variants, its answer typed rounded to 2..7
 * significant digits: when graded right, the answer the message shows beside it never
 * contradicts the typed: "exactly X" is the answer (to 1e-9), "≈ X" is the answer rounded
 * to X's digits, and X has more digits than the typed (or 6, the most a message says). Before:
 * 131.45 was answered "exactly 131.5 MiB", and 3.3 "exactly 3.333" for 10/3. */
static void test_right_answer_shown(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t right = 0, bad = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 20};
    while (variant_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        for (int d = 2; d <= 7; d++) {
            char text[64];
            snprintf(text, sizeof text, "%.*g", d, v.answer);
            if (strchr(text, 'e')) continue;
            struct ex_grade g;
            memset(&g, 0, sizeof g);
            assert_int_equal(ex_grade(ex, &v, text, &g), CV_OK);
            if (g.verdict != EX_RIGHT) continue;
            right++;
            const char *ex_at = strstr(g.msg, "(exactly "),
                       *ap = strstr(g.msg, "(\xe2\x89\x88 ");
            bool ok = true;
            if (ex_at) {
                double x = strtod(ex_at + 9, NULL);
                ok = fabs(x - v.answer) <= 1e-9 * fabs(v.answer);
            } else if (ap) {
                const char *num = ap + 5;
                double x = strtod(num, NULL), half = half_digit_num(num);
                ok = fabs(x - v.answer) <= half * (1 + 1e-9) &&
                     (sig_of(num) > sig_of(text) || sig_of(num) >= 6);
            }
            if (!ok) {
                bad++;
                printf("%s seed %llu: '%s' (answer %.10g): %s\n", ex->id,
                       (unsigned long long)v.seed, text, v.answer, g.msg);
            }
        }
    }
    printf("right answers: %zu graded right, %zu shown contradicting the typed\n", right, bad);
    assert_true(right > 100);
    assert_int_equal(bad, 0);
    lesson_set_free(&set);
}

/* Grade x on ex at v as typed to 6 digits: counts it, and prints it when graded right. */
static void expect_slip_wrong(const struct lesson_exercise *ex, const struct ex_variant *v,
                              double x, const char *what, size_t *graded, size_t *right)
{
    char text[64];
    if (!isfinite(x) || fabs(x - v->answer) <= 1e-9 * fabs(v->answer) ||
        (ex->integer && x != round(x)))
        return; /* no slip here: the formula gives the answer whatever is left out */
    snprintf(text, sizeof text, "%.6g", x);
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    assert_int_equal(ex_grade(ex, v, text, &g), CV_OK);
    if (g.verdict == EX_BAD_INPUT) return;
    (*graded)++;
    if (g.verdict == EX_RIGHT) {
        (*right)++;
        printf("%s seed %llu: %s = '%s' graded right (answer %.6g): %s\n", ex->id,
               (unsigned long long)v->seed, what, text, v->answer, g.msg);
    }
}

/* Every number exercise at 40 variants (the lecture's numbers are the lecture's: not
 * drawn): no slip a student can make gives a value the grader accepts. The slips, made
 * here from the lesson's text: each parenthesized part of the formula left out (replaced
 * by 1: "(w - 1)" at W = 2 is 1), W typed for each "w - 1", and each of the lesson's own
 * wrong: lines alone or with the ring's (W-1)/W (or W) also left out or put in twice
 * (lesson 08's all-gather at W = 2: one rank's size as S and no (W-1)/W gives the
 * answer). */
static void test_variants_keep_slips_apart(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, right = 0;
    struct walk w = {.set = &set, .type = LEX_NUMBER, .seeds = 40};
    while (variant_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct ex_variant v = w.v;
        if (v.seed == 0) continue;
        const char *names[LESSON_MAX_PARAMS];
        char err[200];
        for (size_t i = 0; i < ex->nparams; i++)
            names[i] = ex->params[i].name;
        const char *f = ex->formula;
        for (const char *p = f; *p; p++) {
            if (*p != '(' || (p > f && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
                continue; /* a function's arguments are no factor */
            int depth = 0;
            const char *q = p;
            for (; *q; q++) {
                depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
                if (depth == 0) break;
            }
            if (!*q) break;
            char alt[400], what[200];
            snprintf(alt, sizeof alt, "%.*s1%s", (int)(p - f), f, q + 1);
            snprintf(what, sizeof what, "%.*s left out", (int)(q + 1 - p), p);
            double x;
            if (ex_formula_eval(alt, names, v.param, ex->nparams, &x, err, sizeof err) == CV_OK)
                expect_slip_wrong(ex, &v, x, what, &graded, &right);
        }
        double W = world_of(ex, &v);
        struct ex_variant lec;
        assert_int_equal(ex_variant(ex, 0, &lec, err, sizeof err), CV_OK);
        double LW = world_of(ex, &lec);
        for (size_t k = 0; k < ex->nwrong; k++) {
            char tmpl[300];
            snprintf(tmpl, sizeof tmpl, "{= %s}", ex->wrong[k].formula);
            char *t = ex_text(ex, &v, tmpl);
            double x = strtod(t, NULL);
            free(t);
            t = ex_text(ex, &lec, tmpl);
            double lx = strtod(t, NULL);
            free(t);
            const double fs[] = {1, W > 1 ? W / (W - 1) : 1, W > 1 ? (W - 1) / W : 1,
                                 W > 1 ? W : 1, W > 1 ? 1 / W : 1};
            const double lfs[] = {1, LW > 1 ? LW / (LW - 1) : 1, LW > 1 ? (LW - 1) / LW : 1,
                                  LW > 1 ? LW : 1, LW > 1 ? 1 / LW : 1};
            for (size_t i = 0; i < sizeof fs / sizeof fs[0]; i++) {
                if (i > 0 && fs[i] == 1) continue;
                /* the line's slip undone (one rank's S, times W): the answer at the
                 * lecture's numbers too, no slip */
                if (i > 0 && fabs(lx * lfs[i] - lec.answer) <= 1e-3 * fabs(lec.answer))
                    continue;
                char what[80];
                snprintf(what, sizeof what, "wrong: line %zu x %g", k + 1, fs[i]);
                expect_slip_wrong(ex, &v, x * fs[i], what, &graded, &right);
            }
        }
    }
    printf("variants' slips: %zu exercises, %zu slips graded, %zu graded right\n", w.exercises,
           graded, right);
    assert_true(graded > 1000);
    assert_int_equal(right, 0);
    lesson_set_free(&set);
}

/* Grade the box b on ex; counts it and, unless the diagnosis has code and says says,
 * prints it. */
static void expect_holds(const struct lesson_exercise *ex, const struct box *b,
                         const char *code, const char *says, size_t *graded, size_t *named)
{
    char text[MAXV * 12];
    box_text(b, text, sizeof text);
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    assert_int_equal(ex_grade(ex, NULL, text, &g), CV_OK);
    if (g.verdict == EX_RIGHT) return; /* the slip is the answer here */
    (*graded)++;
    /* or a slip the engine computes that gives these very values (0 1 2 3 is rank 0's
     * input with init: seq) */
    static const char *const engine[] = {"input", "own-piece",  "phase-short",  "other-rank",
                                         "op",    "other-step", "ring-reversed"};
    bool other = false;
    for (size_t i = 0; i < sizeof engine / sizeof engine[0]; i++)
        other = other || strcmp(g.diagnosis, engine[i]) == 0;
    if ((strcmp(g.diagnosis, code) == 0 && strstr(g.msg, says)) || other)
        (*named)++;
    else
        printf("%s: '%s' (%s) got %s: %s\n", ex->id, text, code, g.diagnosis, g.msg);
}

/* Every holds exercise of the shipped lessons, with the answers a student who misreads the
 * collective types, each made here from the collective's meaning, not by the grader's
 * engine: the element numbers 0, 1, 2... (slots' own numbers) for the values; one element's
 * value in every element (64 64 64 64 for 60 64 68 72); in a reduce-scatter or a reduce,
 * every element reduced over all the ranks' inputs (6 10 14 18, the all-reduce's box); in
 * an all-to-all, the rank's own block left out of its receive half ('.'). Each is named by
 * what it is (or by an engine slip that gives the very values: 0 1 2 3 is rank 0's input
 * with init: seq), never "N of M elements differ". Before: 7 of 87 named. */
static void test_holds_misreadings_named(void **state)
{
    (void)state;
    struct lesson_set set;
    shipped(&set);
    size_t graded = 0, named = 0;
    struct walk w = {.set = &set, .type = LEX_HOLDS};
    while (exercise_next(&w)) {
        const struct lesson_exercise *ex = w.ex;
        const struct scene *sc = &ex->scene;
        struct box right, t;
        assert_true(box_of(ex, ex->rank, ex->step, sc->op, false, &right));
        size_t lo = ex->slots ? (size_t)ex->slot_lo : 0;
        if (right.len >= 3) { /* the element numbers */
            t = right;
            for (size_t i = 0; i < t.len; i++)
                t.v[i] = (float)(i + lo), t.has[i] = true;
            expect_holds(ex, &t, "indices", "element numbers", &graded, &named);
        }
        for (size_t k = 0; right.len >= 3 && k < right.len; k++) { /* one repeated */
            if (!right.has[k]) continue;
            bool seen = false; /* a value two elements hold: said of the first */
            for (size_t j = 0; j < k; j++)
                seen = seen || (right.has[j] && right.v[j] == right.v[k]);
            if (seen) continue;
            bool differs = false;
            for (size_t i = 0; i < right.len; i++)
                differs = differs || !right.has[i] || right.v[i] != right.v[k];
            if (!differs) continue;
            t = right;
            for (size_t i = 0; i < t.len; i++)
                t.v[i] = right.v[k], t.has[i] = true;
            char says[40];
            snprintf(says, sizeof says, "element %zu's", k + lo);
            expect_holds(ex, &t, "repeated", says, &graded, &named);
        }
        if ((sc->coll == COLL_REDUCE_SCATTER || sc->coll == COLL_REDUCE) && !ex->slots) {
            /* every element reduced over the ranks' inputs (each rank's box at step 0) */
            struct box in;
            t = right;
            for (int r = 0; r < sc->nranks; r++) {
                assert_true(box_of(ex, r, 0, sc->op, false, &in));
                if (in.len != t.len) break;
                for (size_t i = 0; i < t.len; i++) {
                    float x = in.v[i];
                    if (r == 0)
                        t.v[i] = x;
                    else if (sc->op == OP_MAX)
                        t.v[i] = fmaxf(t.v[i], x);
                    else if (sc->op == OP_MIN)
                        t.v[i] = fminf(t.v[i], x);
                    else if (sc->op == OP_PROD)
                        t.v[i] *= x;
                    else
                        t.v[i] += x;
                    t.has[i] = true;
                }
                if (r == sc->nranks - 1 && sc->op == OP_AVG)
                    for (size_t i = 0; i < t.len; i++)
                        t.v[i] /= (float)sc->nranks;
            }
            if (in.len == t.len)
                expect_holds(ex, &t, "other-coll", "all-reduce", &graded, &named);
        }
        if (sc->coll == COLL_ALL_TO_ALL && !ex->slots && sc->ncounts == 0) {
            /* the receive half's slot of the rank itself left empty */
            size_t half = right.len / 2, blk = half / (size_t)sc->nranks;
            t = right;
            bool any = false;
            for (size_t i = half + (size_t)ex->rank * blk;
                 i < half + (size_t)(ex->rank + 1) * blk; i++)
                any = any || t.has[i], t.has[i] = false;
            if (any) expect_holds(ex, &t, "own-piece", "own", &graded, &named);
        }
    }
    printf("holds misreadings: %zu exercises, %zu graded, %zu named\n", w.exercises, graded,
           named);
    assert_true(graded >= 2 * w.exercises);
    assert_int_equal(named, graded);
    lesson_set_free(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_slip_named),
        cmocka_unit_test(test_percent_named),
        cmocka_unit_test(test_no_slip_right),
        cmocka_unit_test(test_slips_said_of_exercise),
        cmocka_unit_test(test_formula_slips_named),
        cmocka_unit_test(test_walk_slips_named),
        cmocka_unit_test(test_unit_confusions_named),
        cmocka_unit_test(test_nearest_slip_named),
        cmocka_unit_test(test_named_slip_is_nearest),
        cmocka_unit_test(test_slip_messages_read),
        cmocka_unit_test(test_unit_slips_named),
        cmocka_unit_test(test_ring_steps_named),
        cmocka_unit_test(test_right_answer_shown),
        cmocka_unit_test(test_variants_keep_slips_apart),
        cmocka_unit_test(test_holds_misreadings_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
