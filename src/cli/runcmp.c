/* runcmp.c - `collviz nccl A B`: two runs of the same nccl-tests test (nccl-tests' own
 * output, or `collviz bench`'s, which is the same table) compared size by size.
 *
 * What is compared: the out-of-place busbw (nccl-tests' first group) at each size both runs
 * have, and B/A. What counts as slower: B's busbw below A's by more than the spread, where
 * the spread at a size is the larger of the two runs' |out-of-place busbw - in-place
 * busbw| there: two measurements of the same size, moments apart, in the same run, so
 * what they differ by is at least what the run itself varies (a real difference between
 * the two groups only widens it: the test errs towards calling nothing slower). Where
 * neither run has an in-place figure at a size (N/A), the spread there is unknown and no
 * verdict is given. The average busbw of each run (nccl-tests' "# Avg bus bandwidth") is
 * compared too.
 *
 * Two records of different tests (collective, type or reduction), or one without any
 * nccl-tests rows, are refused: exit 2, one line. */
#include "cli/runcmp.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll.h"
#include "core/util.h"
#include "cli/cli.h"
#include "cli/json.h"

#define CMP_SPREAD_TEXT                                                                        \
    "at each size, the larger of the two runs' |out-of-place busbw - in-place busbw| (two "    \
    "measurements of that size in one run); B is slower where A's busbw - B's > the spread"

/* A test's collective as collviz names it ("alltoall" -> "all_to_all"), else as written. */
static const char *cmp_coll(const struct rec_test *t)
{
    enum coll c;
    if (coll_parse(t->collective, &c) == 0) return coll_name(c);
    return t->collective[0] ? t->collective : "(collective not named)";
}

static bool cmp_same_test(const struct rec_test *a, const struct rec_test *b)
{
    return strcmp(cmp_coll(a), cmp_coll(b)) == 0 && strcmp(a->type, b->type) == 0 &&
           strcmp(a->redop, b->redop) == 0;
}

/* The tests of L that have rows (a header without rows is not a run). */
static int cmp_tests(const struct rec_log *L, const struct rec_test **out, int max)
{
    int n = 0;
    for (int i = 0; i < L->ntests && n < max; i++)
        if (L->tests[i].nrows > 0) out[n++] = &L->tests[i];
    return n;
}

/* The row of t at `size`, or NULL (the last one when a size repeats: nccl-tests -N). */
static const struct rec_row *cmp_row(const struct rec_test *t, double size)
{
    const struct rec_row *r = NULL;
    for (int i = 0; i < t->nrows; i++)
        if (t->rows[i].size == size) r = &t->rows[i];
    return r;
}

static double cmp_spread1(const struct rec_row *r)
{
    if (isnan(r->oop.busbw) || isnan(r->ip.busbw)) return NAN;
    return fabs(r->oop.busbw - r->ip.busbw);
}

struct cmp_line {
    double size, a, b, ratio, spread;
    int slower; /* 1 slower, 0 not, -1 unknown (no spread) */
};

/* The sizes both have, in A's order, compared. Returns how many (lines[] has room for
 * a->nrows). */
static int cmp_lines(const struct rec_test *a, const struct rec_test *b, struct cmp_line *out)
{
    int n = 0;
    for (int i = 0; i < a->nrows; i++) {
        double size = a->rows[i].size;
        if (cmp_row(a, size) != &a->rows[i]) continue; /* a repeated size: its last row */
        const struct rec_row *rb = cmp_row(b, size), *ra = &a->rows[i];
        if (!rb) continue;
        struct cmp_line *l = &out[n++];
        l->size = size;
        l->a = ra->oop.busbw;
        l->b = rb->oop.busbw;
        l->ratio = l->a > 0 ? l->b / l->a : NAN;
        double sa = cmp_spread1(ra), sb = cmp_spread1(rb);
        l->spread = isnan(sa) ? sb : isnan(sb) ? sa : fmax(sa, sb);
        l->slower = isnan(l->spread) ? -1 : (l->a - l->b > l->spread);
    }
    return n;
}

/* Sizes of x that y lacks, into out (room for x->nrows). */
static int cmp_only(const struct rec_test *x, const struct rec_test *y, double *out)
{
    int n = 0;
    for (int i = 0; i < x->nrows; i++)
        if (!cmp_row(y, x->rows[i].size) && cmp_row(x, x->rows[i].size) == &x->rows[i])
            out[n++] = x->rows[i].size;
    return n;
}

static void text_sizes(const char *what, const double *s, int n)
{
    if (!n) return;
    struct cli_words w;
    char head[64], v[32];
    snprintf(head, sizeof head, "%s:", what);
    cli_words_start(&w, head, 2);
    for (int i = 0; i < n; i++) {
        snprintf(v, sizeof v, "%.0f", s[i]);
        cli_words_add(&w, v);
    }
    cli_words_end(&w);
}

static void cmp_text_test(const struct rec_test *a, const struct rec_test *b)
{
    struct cmp_line *l = xcalloc((size_t)a->nrows + 1, sizeof *l);
    double *only =
        xcalloc((size_t)(a->nrows > b->nrows ? a->nrows : b->nrows) + 1, sizeof *only);
    int n = cmp_lines(a, b, l);
    printf("%s%s%s%s%s: %d size%s in both\n", cmp_coll(a),
           a->type[0] || a->redop[0] ? ", " : "", a->type, a->type[0] && a->redop[0] ? " " : "",
           a->redop, n, n == 1 ? "" : "s");
    printf("  %14s %10s %10s %7s %9s\n", "size (B)", "A busbw", "B busbw", "B/A", "spread");
    int nslow = 0, nunknown = 0;
    for (int i = 0; i < n; i++) {
        printf("  %14.0f %10.2f %10.2f %7.3f ", l[i].size, l[i].a, l[i].b, l[i].ratio);
        if (isnan(l[i].spread))
            printf("%9s  spread unknown (no in-place group)\n", "N/A");
        else
            printf("%9.2f%s\n", l[i].spread, l[i].slower ? "  B slower" : "");
        nslow += l[i].slower == 1;
        nunknown += l[i].slower < 0;
    }
    if (!n) {
        printf("  no size in both: nothing compared\n");
    } else if (nslow) {
        char head[80];
        snprintf(head, sizeof head, "B slower than A beyond the spread at %d size%s", nslow,
                 nslow == 1 ? "" : "s");
        double *slow = xcalloc((size_t)n + 1, sizeof *slow);
        int k = 0;
        for (int i = 0; i < n; i++)
            if (l[i].slower == 1) slow[k++] = l[i].size;
        text_sizes(head, slow, k);
        free(slow);
    } else {
        printf("  B slower than A beyond the spread at no size%s\n",
               nunknown ? " (of those with a spread)" : "");
    }
    text_sizes("only in A", only, cmp_only(a, b, only));
    text_sizes("only in B", only, cmp_only(b, a, only));
    if (!isnan(a->avg_busbw) && !isnan(b->avg_busbw))
        printf("  avg busbw: A %.4g, B %.4g GB/s (B/A %.3f)\n", a->avg_busbw, b->avg_busbw,
               a->avg_busbw > 0 ? b->avg_busbw / a->avg_busbw : NAN);
    free(only);
    free(l);
}

static void json_num_or_null(cJSON *o, const char *key, double v)
{
    if (isnan(v))
        cli_json_null(o, key);
    else
        cli_json_real(o, key, v, 8);
}

static void json_sizes(cJSON *o, const char *key, const double *s, int n)
{
    cJSON *a = cli_json_add_array(o, key);
    for (int i = 0; i < n; i++)
        cli_json_num(a, NULL, s[i]);
}

static void cmp_json_test(cJSON *tests, const struct rec_test *a, const struct rec_test *b)
{
    struct cmp_line *l = xcalloc((size_t)a->nrows + 1, sizeof *l);
    double *only =
        xcalloc((size_t)(a->nrows > b->nrows ? a->nrows : b->nrows) + 1, sizeof *only);
    int n = cmp_lines(a, b, l);
    cJSON *o = cli_json_add_object(tests, NULL);
    cli_json_str(o, "collective", cmp_coll(a));
    cli_json_str(o, "type", a->type);
    cli_json_str(o, "redop", a->redop);
    cJSON *rows = cli_json_add_array(o, "rows");
    cJSON *slow = cJSON_CreateArray();
    for (int i = 0; i < n; i++) {
        cJSON *r = cli_json_add_object(rows, NULL);
        cli_json_num(r, "size", l[i].size);
        json_num_or_null(r, "a_busbw", l[i].a);
        json_num_or_null(r, "b_busbw", l[i].b);
        json_num_or_null(r, "ratio", l[i].ratio);
        json_num_or_null(r, "spread", l[i].spread);
        if (l[i].slower < 0)
            cli_json_null(r, "b_slower");
        else
            cJSON_AddBoolToObject(r, "b_slower", l[i].slower == 1);
        if (l[i].slower == 1) cJSON_AddItemToArray(slow, cJSON_CreateNumber(l[i].size));
    }
    cJSON_AddItemToObject(o, "b_slower_sizes", slow);
    json_sizes(o, "only_in_a", only, cmp_only(a, b, only));
    json_sizes(o, "only_in_b", only, cmp_only(b, a, only));
    json_num_or_null(o, "a_avg_busbw", a->avg_busbw);
    json_num_or_null(o, "b_avg_busbw", b->avg_busbw);
    json_num_or_null(o, "avg_ratio", a->avg_busbw > 0 ? b->avg_busbw / a->avg_busbw : NAN);
    free(only);
    free(l);
}

int cli_nccl_compare(const char *pa, const struct rec_log *A, const char *pb,
                     const struct rec_log *B, bool json)
{
    const struct rec_test *ta[REC_MAX_TESTS], *tb[REC_MAX_TESTS];
    int na = cmp_tests(A, ta, REC_MAX_TESTS), nb = cmp_tests(B, tb, REC_MAX_TESTS);
    if (!na || !nb)
        return cli_usage_error("nccl: %s has no nccl-tests rows: nothing to compare with %s",
                               na ? pb : pa, na ? pa : pb);
    for (int i = 0; i < (na > nb ? na : nb); i++) {
        if (i < na && i < nb && cmp_same_test(ta[i], tb[i])) continue;
        if (i >= na || i >= nb)
            return cli_usage_error(
                "nccl: %s holds %d test%s, %s %d: not runs of the same tests", pa, na,
                na == 1 ? "" : "s", pb, nb);
        return cli_usage_error("nccl: %s is %s (%s %s), %s is %s (%s %s): not the same test",
                               pa, cmp_coll(ta[i]), ta[i]->type, ta[i]->redop, pb,
                               cmp_coll(tb[i]), tb[i]->type, tb[i]->redop);
    }
    int common = 0; /* sizes in both, all tests: none is nothing compared, never "no slower" */
    for (int i = 0; i < na; i++) {
        struct cmp_line *l = xcalloc((size_t)ta[i]->nrows + 1, sizeof *l);
        common += cmp_lines(ta[i], tb[i], l);
        free(l);
    }
    if (!common)
        return cli_usage_error("nccl: %s and %s have no message size in common: nothing to "
                               "compare",
                               pa, pb);
    if (json) {
        cJSON *root = cli_json_object();
        cli_json_str(root, "a", pa);
        cli_json_str(root, "b", pb);
        if (A->nranks >= 0)
            cli_json_num(root, "a_nranks", A->nranks);
        else
            cli_json_null(root, "a_nranks");
        if (B->nranks >= 0)
            cli_json_num(root, "b_nranks", B->nranks);
        else
            cli_json_null(root, "b_nranks");
        cli_json_str(root, "compared", "out-of-place busbw (GB/s), B/A");
        cli_json_str(root, "spread", CMP_SPREAD_TEXT);
        cJSON *tests = cli_json_add_array(root, "tests");
        for (int i = 0; i < na; i++)
            cmp_json_test(tests, ta[i], tb[i]);
        return cli_json_print(stdout, root) != 0 ? 1 : 0;
    }
    cv_printf_safe("nccl-tests runs compared:\n  A = %s\n  B = %s\n", pa, pb); /* any bytes */
    if (A->nranks >= 0 && B->nranks >= 0 && A->nranks != B->nranks)
        printf("note: A ran on %d ranks, B on %d\n", A->nranks, B->nranks);
    struct cli_words w; /* at 80 columns, a word at a time */
    cli_words_start(&w, "out-of-place busbw (GB/s) at each size, B/A; spread:", 0);
    char spread[] = CMP_SPREAD_TEXT;
    for (char *t = strtok(spread, " "); t; t = strtok(NULL, " "))
        cli_words_add(&w, t);
    cli_words_end(&w);
    for (int i = 0; i < na; i++)
        cmp_text_test(ta[i], tb[i]);
    return 0;
}

bool cli_nccl_is_run(const struct rec_log *L)
{
    for (int i = 0; i < L->ntests; i++)
        if (L->tests[i].nrows > 0) return true;
    return false;
}
