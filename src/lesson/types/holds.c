/* holds.c - the holds exercise: what a rank's buffer holds after a step of the slide's
 * scene (`rank:`, `step:`, `slots:`); the answer is never written in the lesson but
 * computed by running the scene (ex_holds_expected, exercise.c). A wrong answer is named
 * by running the scene again with one thing changed (another rank, another step, the
 * input, another op, a phase missing) and finding the values typed among those. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/types/types.h"

#define HOLDS_MAX (SCENE_MAX_COUNT * CV_MAX_RANKS * 2)

static bool value_eq(double got, bool got_has, double want, bool want_has)
{
    if (got_has != want_has) return false;
    return !want_has || fabs(got - want) <= 1e-3 * fmax(1.0, fabs(want));
}

/* The box of c (a copy of the exercise with one thing changed): is it the typed values
 * and not the right answer? */
static bool slip_is(const struct lesson_exercise *c, const double *typed, const bool *th,
                    size_t n, const float *want, const bool *has)
{
    float v[HOLDS_MAX];
    bool vh[HOLDS_MAX];
    size_t len;
    char err[120];
    if (ex_holds_expected(c, v, vh, HOLDS_MAX, &len, err, sizeof err) != CV_OK || len != n)
        return false;
    bool same_as_answer = true;
    for (size_t i = 0; i < n; i++) {
        if (!value_eq(typed[i], th[i], v[i], vh[i])) return false;
        if (!value_eq(v[i], vh[i], want[i], has[i])) same_as_answer = false;
    }
    return !same_as_answer;
}

/* The name of the phase that step s (1..) is in. */
static const char *phase_of(const struct ex_phase *ph, size_t nph, long s)
{
    for (size_t i = 0; i < nph; i++)
        if (s <= ph[i].end) return ph[i].name;
    return "?";
}

/* The rank's own piece left out: the answer with every element the rank started with (and
 * still holds unchanged) empty, as a student who counts only what arrives would type it
 * (the gather's root without its own slot). True, with the first such element in *first,
 * when that is the typed. */
static bool own_piece_dropped(const struct lesson_exercise *ex, const double *typed,
                              const bool *th, size_t n, const float *want, const bool *has,
                              size_t *first)
{
    float in[HOLDS_MAX];
    bool ih[HOLDS_MAX];
    size_t len;
    char err[120];
    struct lesson_exercise *c = xmalloc(sizeof *c);
    *c = *ex;
    c->step = 0;
    bool ok =
        ex_holds_expected(c, in, ih, HOLDS_MAX, &len, err, sizeof err) == CV_OK && len == n;
    free(c);
    /* where data only moves (an all-to-all copies its own block into its receive half),
     * the rank's own piece is any value it started with */
    bool moves = ex->scene.coll != COLL_REDUCE && ex->scene.coll != COLL_ALL_REDUCE &&
                 ex->scene.coll != COLL_REDUCE_SCATTER;
    bool dropped = false;
    for (size_t i = 0; ok && i < n; i++) {
        if (value_eq(typed[i], th[i], want[i], has[i])) continue;
        bool own = ih[i] && has[i] && value_eq(in[i], true, want[i], true);
        for (size_t k = 0; moves && has[i] && !own && k < n; k++)
            own = ih[k] && value_eq(in[k], true, want[i], true);
        if (own && !dropped) *first = i;
        dropped = dropped || own;
        ok = own && (!th[i] || typed[i] == 0); /* left empty, or 0 */
    }
    return ok && dropped;
}

/* The ring run the other way (its order reversed): is the rank's box then the typed? A
 * ring all-gather's rank r in reverse holds what rank r + s holds forward, so this comes
 * before another rank. On true, from[0] and from[1] are the ranks that send to it in the
 * reversed ring and in the real one. c is a copy of ex; it is left as ex. */
static bool ring_reversed(const struct lesson_exercise *ex, struct lesson_exercise *c,
                          const double *typed, const bool *th, size_t n, const float *want,
                          const bool *has, int *from)
{
    int W = ex->scene.nranks, fwd[CV_MAX_RANKS];
    if (ex->scene.algo != ALGO_RING || W < 3) return false;
    for (int i = 0; i < W; i++)
        fwd[i] = ex->scene.ring_n == W ? ex->scene.ring[i] : i;
    c->step = ex->step;
    c->rank = ex->rank;
    c->scene.ring_n = W;
    for (int i = 0; i < W; i++)
        c->scene.ring[i] = fwd[(W - i) % W];
    bool is = slip_is(c, typed, th, n, want, has);
    c->scene = ex->scene;
    if (!is) return false;
    int at = 0;
    while (at < W && fwd[at] != ex->rank)
        at++;
    from[0] = fwd[(at + 1) % W]; /* reversed: from the next in the ring */
    from[1] = fwd[(at + W - 1) % W];
    return true;
}

/* "after step 2 (the end)" where the question asks about the end, as its prompt says. */
static void step_words(const struct lesson_exercise *ex, long step, char *buf, size_t n)
{
    snprintf(buf, n, "after step %ld%s", step, ex->step == SCENE_STEP_END ? " (the end)" : "");
}

static bool misread(const struct lesson_exercise *ex, struct lesson_exercise *c,
                    const double *typed, const bool *th, size_t n, const float *want,
                    const bool *has, struct ex_grade *g);

/* The usual slips of a holds answer, each computed by the trace engine, in this order: the
 * rank's input, the rank's own piece left out, the rank one phase short, another rank at
 * the asked step, another op, the rank at another step, another rank's input. Fills g's
 * diagnosis and message; false when none is the typed. */
static bool diagnose(const struct lesson_exercise *ex, const double *typed, const bool *th,
                     size_t n, const float *want, const bool *has, struct ex_grade *g)
{
    long nsteps;
    struct ex_phase ph[32];
    size_t nph;
    char err[120];
    if (ex_holds_phases(ex, &nsteps, ph, ARRAY_LEN(ph), &nph, err, sizeof err) != CV_OK)
        return false;
    long asked = ex->step == SCENE_STEP_END || ex->step > nsteps ? nsteps : ex->step;
    struct lesson_exercise *c = xmalloc(sizeof *c);
    *c = *ex;
    c->step = 0;
    bool found = false;
    const char *R = "rank";
    char when[40];
    step_words(ex, asked, when, sizeof when);
    size_t own = 0;
    if (asked > 0 && slip_is(c, typed, th, n, want, has)) {
        found = true;
        ex_grade_wrong(g, "input",
                       "not right: that is %s %d's input, its box before step 1; %s it holds "
                       "what the steps brought",
                       R, ex->rank, when);
    } else if (own_piece_dropped(ex, typed, th, n, want, has, &own)) {
        found = true;
        ex_grade_wrong(
            g, "own-piece",
            "not right: that leaves out %s %d's own piece (element %zu, counting from "
            "0): %s",
            R, ex->rank, own + (ex->slots ? (size_t)ex->slot_lo : 0),
            ex->scene.coll == COLL_ALL_TO_ALL
                ? "an all-to-all sends a rank's own block to itself too, a local copy"
                : "a rank keeps what it started with; only the other pieces travel");
    }
    for (size_t i = nph; !found && i-- > 0;) {
        c->step = ph[i].end;
        if (ph[i].end >= asked || !slip_is(c, typed, th, n, want, has)) continue;
        found = true;
        ex_grade_wrong(
            g, "phase-short",
            "not right: one phase short: that is %s %d after the %s only (step %ld); "
            "the %s comes after it",
            R, ex->rank, ph[i].name, ph[i].end, phase_of(ph, nph, ph[i].end + 1));
    }
    int from[2];
    if (!found && ring_reversed(ex, c, typed, th, n, want, has, from)) {
        found = true;
        ex_grade_wrong(g, "ring-reversed",
                       "not right: that is the ring run the other way, %s %d receiving from "
                       "%s %d; in this ring %s %d receives from %s %d",
                       R, ex->rank, R, from[0], R, ex->rank, R, from[1]);
    }
    for (int r = 0; !found && r < ex->scene.nranks; r++) {
        c->rank = r;
        c->step = ex->step;
        if (r == ex->rank || !slip_is(c, typed, th, n, want, has)) continue;
        found = true;
        /* a box the steps never changed is that rank's input, whatever the step */
        c->step = 0;
        bool unchanged = asked > 0 && slip_is(c, typed, th, n, want, has);
        if (unchanged)
            ex_grade_wrong(
                g, "other-rank",
                "not right: that is %s %d's box, its own input, which no step changes; "
                "the question asks for %s %d, which the steps %s",
                R, r, R, ex->rank,
                ex->scene.coll == COLL_REDUCE || ex->scene.coll == COLL_ALL_REDUCE ||
                        ex->scene.coll == COLL_REDUCE_SCATTER
                    ? "combine into"
                    : "bring data to");
        else
            ex_grade_wrong(g, "other-rank",
                           "not right: that is %s %d's box %s; the question asks for %s %d", R,
                           r, when, R, ex->rank);
    }
    c->step = ex->step;
    c->rank = ex->rank;
    static const enum redop ops[] = {OP_SUM, OP_AVG, OP_MAX, OP_MIN, OP_PROD};
    for (size_t k = 0; !found && k < ARRAY_LEN(ops); k++) {
        c->scene.op = ops[k];
        if (ops[k] == ex->scene.op || !slip_is(c, typed, th, n, want, has)) continue;
        found = true;
        ex_grade_wrong(
            g, "op",
            "not right: those are the values with op=%s; this scene reduces with op=%s",
            redop_name(ops[k]), redop_name(ex->scene.op));
    }
    c->scene.op = ex->scene.op;
    for (long s = 1; !found && s <= nsteps; s++) {
        c->step = s;
        if (s == asked || !slip_is(c, typed, th, n, want, has)) continue;
        found = true;
        ex_grade_wrong(g, "other-step",
                       "not right: that is %s %d after step %ld (%s), not after step %ld (%s)",
                       R, ex->rank, s, phase_of(ph, nph, s), asked, phase_of(ph, nph, asked));
    }
    for (int r = 0; !found && asked > 0 && r < ex->scene.nranks; r++) {
        c->rank = r;
        c->step = 0;
        if (r == ex->rank || !slip_is(c, typed, th, n, want, has)) continue;
        found = true;
        ex_grade_wrong(
            g, "other-rank",
            "not right: that is rank %d's box before step 1, its input; the question "
            "asks for rank %d %s",
            r, ex->rank, when);
    }
    if (!found) found = misread(ex, c, typed, th, n, want, has, g);
    free(c);
    return found;
}

/* The element numbers typed for the values (0 1 2 3; with slots, the slots' own)? */
static bool typed_indices(const struct lesson_exercise *ex, const double *typed, const bool *th,
                          size_t n)
{
    size_t lo = ex->slots ? (size_t)ex->slot_lo : 0;
    for (size_t i = 0; i < n; i++)
        if (!th[i] || typed[i] != (double)(i + lo)) return false;
    return n >= 3;
}

/* One value typed in every element, and that value one element's answer: *k, which. */
static bool typed_repeated(const double *typed, const bool *th, size_t n, const float *want,
                           const bool *has, size_t *k)
{
    for (size_t i = 0; i < n; i++)
        if (!th[i] || typed[i] != typed[0]) return false;
    for (*k = 0; *k < n; (*k)++)
        if (value_eq(typed[0], true, want[*k], has[*k])) return n >= 2;
    return false;
}

/* The misreadings of the collective itself, after the engine's slips: the element numbers
 * for the values, one element's value in every element, and in a reduce-scatter or a
 * reduce, every element reduced (the all-reduce's box on the same inputs). c is a copy of
 * ex to change. */
static bool misread(const struct lesson_exercise *ex, struct lesson_exercise *c,
                    const double *typed, const bool *th, size_t n, const float *want,
                    const bool *has, struct ex_grade *g)
{
    size_t k, lo = ex->slots ? (size_t)ex->slot_lo : 0;
    bool reduces = ex->scene.coll == COLL_REDUCE || ex->scene.coll == COLL_ALL_REDUCE ||
                   ex->scene.coll == COLL_REDUCE_SCATTER;
    if (typed_indices(ex, typed, th, n)) {
        ex_grade_wrong(g, "indices",
                       "not right: those are the element numbers (%zu, %zu, %zu...), not the "
                       "values the elements hold",
                       lo, lo + 1, lo + 2);
        return true;
    }
    if (typed_repeated(typed, th, n, want, has, &k)) {
        ex_grade_wrong(g, "repeated",
                       "not right: that is element %zu's value in every element; %s", k + lo,
                       reduces ? "each element is reduced on its own, element i of every "
                                 "rank into element i"
                               : "each element holds its own value");
        return true;
    }
    if ((ex->scene.coll == COLL_REDUCE_SCATTER || ex->scene.coll == COLL_REDUCE) &&
        !ex->slots) {
        *c = *ex;
        c->scene.coll = COLL_ALL_REDUCE;
        c->scene.count =
            coll_work_len(ex->scene.coll, ex->scene.nranks, scene_count(&ex->scene));
        c->scene.algo = ALGO_RING;
        c->step = SCENE_STEP_END;
        if (slip_is(c, typed, th, n, want, has)) {
            ex_grade_wrong(
                g, "other-coll",
                "not right: that is what an all-reduce leaves rank %d, every element "
                "reduced over all the ranks; a %s %s",
                ex->rank, coll_title(ex->scene.coll),
                ex->scene.coll == COLL_REDUCE
                    ? "leaves the result on its root only"
                    : "completes only the rank's own slot: the rest of its box "
                      "are leftovers");
            return true;
        }
    }
    return false;
}

/* No slip fits: which elements differ, numbered as the screen numbers chunks and slots
 * (from 0; with slots, the slot's own number). */
static void wrong_elements(const struct lesson_exercise *ex, size_t n, size_t differ,
                           size_t first_bad, bool reordered, struct ex_grade *g)
{
    size_t el = first_bad + (ex->slots ? (size_t)ex->slot_lo : 0);
    const char *d = reordered ? "order" : "elements";
    if (n == 1)
        ex_grade_wrong(g, d, "not right: that is not the value");
    else if (reordered)
        ex_grade_wrong(g, d,
                       "not right: the right values in the wrong order (element %zu first, "
                       "counting from 0); the box's order is the buffer's",
                       el);
    else if (differ == 1)
        ex_grade_wrong(g, d,
                       "not right: element %zu differs (counting from 0, as the screen numbers "
                       "chunks)",
                       el);
    else
        ex_grade_wrong(
            g, d,
            "not right: %zu of %zu elements differ (the first: element %zu, counting "
            "from 0)",
            differ, n, el);
}

static int grade(const struct lesson_exercise *ex, const struct ex_variant *v, const char *in,
                 struct ex_grade *g)
{
    (void)v;
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
    size_t k = 0, differ = 0, first_bad = 0;
    double *typed = xcalloc(n + 1, sizeof *typed);
    bool *typed_has = xcalloc(n + 1, sizeof *typed_has);
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
            if (!ex_read_number(p, &x, &end) || (*end && !strchr(" \t,[]", *end))) {
                g->verdict = EX_BAD_INPUT;
                snprintf(g->msg, sizeof g->msg,
                         "'%.20s' is not a value (numbers, '.' for an empty element)", p);
                free(typed);
                free(typed_has);
                return CV_OK;
            }
            p = end;
        }
        if (k < n) {
            bool ok = value_eq(x, !empty, want[k], has[k]);
            if (!ok && differ++ == 0) first_bad = k;
            typed[k] = x;
            typed_has[k] = !empty;
        }
        k++;
    }
    /* the right values in another order: every typed one matches a wanted one, once */
    bool reordered = k == n && differ > 0;
    bool *used = xcalloc(n + 1, sizeof *used);
    for (size_t i = 0; reordered && i < n; i++) {
        bool found = false;
        for (size_t j = 0; j < n && !found; j++)
            if (!used[j] && value_eq(typed[i], typed_has[i], want[j], has[j]))
                used[j] = found = true;
        reordered = found;
    }
    free(used);
    if (k != n) {
        free(typed);
        free(typed_has);
        g->verdict = EX_BAD_INPUT;
        if (ex->slots && n == 1)
            snprintf(g->msg, sizeof g->msg,
                     "the question asks for one value (slot %d); you "
                     "typed %zu",
                     ex->slot_lo, k);
        else if (ex->slots)
            snprintf(g->msg, sizeof g->msg,
                     "the question asks for %zu values (slots %d..%d); "
                     "you typed %zu",
                     n, ex->slot_lo, ex->slot_hi, k);
        else
            snprintf(g->msg, sizeof g->msg, "rank %d holds %zu element%s; you typed %zu",
                     ex->rank, n, n == 1 ? "" : "s", k);
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
        if (reordered || !diagnose(ex, typed, typed_has, n, want, has, g))
            wrong_elements(ex, n, differ, first_bad, reordered, g);
    }
    free(typed);
    free(typed_has);
    return CV_OK;
}

/* The values, "." for an element with no data; "(why)" when the scene cannot be run. */
static void answer(const struct lesson_exercise *e, const struct ex_variant *v,
                   ex_number_fmt *fmt, char *buf, size_t n)
{
    (void)v;
    float *val = xcalloc(HOLDS_MAX, sizeof *val);
    bool *has = xcalloc(HOLDS_MAX, sizeof *has);
    size_t len = 0, o = 0;
    char err[160];
    if (ex_holds_expected(e, val, has, HOLDS_MAX, &len, err, sizeof err) != CV_OK) {
        snprintf(buf, n, "(%s)", err);
        len = 0;
    }
    for (size_t i = 0; i < len && o + 1 < n; i++) {
        char num[48];
        if (has[i])
            fmt(val[i], num, sizeof num);
        else
            snprintf(num, sizeof num, ".");
        int k = snprintf(buf + o, n - o, "%s%s", i ? " " : "", num);
        if (k < 0 || (size_t)k >= n - o) break;
        o += (size_t)k;
    }
    free(val);
    free(has);
}

static void how(const struct lesson_exercise *e, const struct ex_variant *v, char *buf,
                size_t n)
{
    (void)e;
    (void)v;
    snprintf(buf, n, "answer with the values, separated by spaces (. for an empty element)");
}

static void json(const struct lesson_exercise *e, struct cJSON *x)
{
    cJSON_AddNumberToObject(x, "rank", e->rank);
    if (e->step == SCENE_STEP_END)
        cJSON_AddStringToObject(x, "step", "end");
    else
        cJSON_AddNumberToObject(x, "step", (double)e->step);
    if (e->slots) {
        cJSON *sl = cJSON_AddArrayToObject(x, "slots"); /* [first, last]: the asked part */
        cJSON_AddItemToArray(sl, cJSON_CreateNumber(e->slot_lo));
        cJSON_AddItemToArray(sl, cJSON_CreateNumber(e->slot_hi));
    }
    float vals[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    bool has[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    size_t n;
    char err[200];
    if (ex_holds_expected(e, vals, has, ARRAY_LEN(vals), &n, err, sizeof err) == CV_OK) {
        cJSON *a = cJSON_AddArrayToObject(x, "answer");
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(a, has[i] ? cJSON_CreateNumber(vals[i]) : cJSON_CreateNull());
    } else {
        cJSON_AddStringToObject(x, "answer_error", err);
    }
}

/* The asked rank and step, and with boxes how to fill them. */
static void paper_note(const struct lesson_exercise *e, bool boxes, char *buf, size_t n)
{
    if (e->step == SCENE_STEP_END)
        snprintf(buf, n, "rank %d, at the end%s", e->rank,
                 boxes ? "; write one value per box, \u00b7 for an empty one" : "");
    else
        snprintf(buf, n, "rank %d, after step %ld%s", e->rank, e->step,
                 boxes ? "; one value per box, \u00b7 for an empty one" : "");
}

/* A box for each element of the rank's working buffer. */
static size_t paper_boxes(const struct lesson_exercise *e)
{
    return coll_work_len(e->scene.coll, e->scene.nranks, scene_count(&e->scene));
}

/* "Which values does rank 2 hold at the end?": the exercise's own rank and step, where the
 * prompt only said what to type ("Type all four values in rank 2's box at the end."). */
static void room_question(const struct lesson_exercise *e, char *buf, size_t n)
{
    char when[64], what[64] = "";
    if (e->step == SCENE_STEP_END)
        snprintf(when, sizeof when, "at the end");
    else
        snprintf(when, sizeof when, "after step %ld", e->step);
    if (e->slots && e->slot_lo == e->slot_hi)
        snprintf(what, sizeof what, " in element %d", e->slot_lo);
    else if (e->slots)
        snprintf(what, sizeof what, " in elements %d to %d", e->slot_lo, e->slot_hi);
    snprintf(buf, n, "Which values does rank %d hold%s %s?", e->rank, what, when);
}

const struct exercise_type_ops ex_type_holds = {
    .name = "holds",
    .keys = "rank step slots",
    .required = "rank step",
    .grade = grade,
    .answer = answer,
    .how = how,
    .json = json,
    .form = EX_ANSWER_VALUES,
    .lists_options = false,
    .paper_space = 46,
    .paper_note = paper_note,
    .paper_boxes = paper_boxes,
    .room_question = room_question,
};
