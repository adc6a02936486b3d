/* holds.c - the holds exercise: what a rank's buffer holds after a step of the slide's
 * scene (`rank:`, `step:`, `slots:`); the answer is never written in the lesson but
 * computed by running the scene (ex_holds_expected, exercise.c). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/types/types.h"

#define HOLDS_MAX (SCENE_MAX_COUNT * CV_MAX_RANKS * 2)

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
            bool ok = empty ? !has[k]
                            : has[k] && fabs(x - want[k]) <= 1e-3 * fmax(1.0, fabs(want[k]));
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
            if (!used[j] && typed_has[i] == has[j] &&
                (!has[j] || fabs(typed[i] - want[j]) <= 1e-3 * fmax(1.0, fabs(want[j]))))
                used[j] = found = true;
        reordered = found;
    }
    free(used);
    free(typed);
    free(typed_has);
    if (k != n) {
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
            snprintf(g->msg, sizeof g->msg, "rank %d holds %zu elements; you typed %zu",
                     ex->rank, n, k);
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
        snprintf(g->diagnosis, sizeof g->diagnosis, "%s", reordered ? "order" : "elements");
        if (n == 1)
            snprintf(g->msg, sizeof g->msg, "not right: that is not the value");
        else if (reordered)
            snprintf(g->msg, sizeof g->msg,
                     "not right: the right values in the wrong order (element %zu first); "
                     "the box's order is the buffer's",
                     first_bad + 1);
        else if (differ == 1)
            snprintf(g->msg, sizeof g->msg, "not right: element %zu of %zu differs",
                     first_bad + 1, n);
        else
            snprintf(g->msg, sizeof g->msg,
                     "not right: %zu of %zu elements differ (the first: element %zu)", differ,
                     n, first_bad + 1);
    }
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

const struct exercise_type_ops ex_type_holds = {
    .name = "holds",
    .keys = "rank step slots",
    .required = "rank step",
    .grade = grade,
    .answer = answer,
    .how = how,
    .lists_options = false,
    .paper_space = 46,
};
