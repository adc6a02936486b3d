/* slips.c - the slips a number exercise's own formula invites, computed from the formula:
 * a term of a sum left out or counted twice, a factor of a product left out (or a division not
 * made), every term of a sum divided by a param only some are divided by, W where the formula
 * has W - 1. Each is named in the exercise's own numbers ("That leaves out the term 4 × 1900 ×
 * 1900"), so a diagnosis is about the quantity the question asks for, not about the usual
 * suspects. Pure C: the formula is parsed here into a small tree (the same grammar muParser
 * reads, as exercise_block.c allows it) and evaluated with each slip applied. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/vec.h"
#include "lesson/exercise.h"

enum fnode_kind { FN_NUM, FN_VAR, FN_FUNC, FN_NEG, FN_SUM, FN_PROD, FN_POW, FN_MOD };

#define FN_KIDS 16

struct fnode {
    enum fnode_kind kind;
    double num;   /* FN_NUM */
    int var;      /* FN_VAR: the param's index */
    char name[8]; /* FN_FUNC */
    size_t nk;    /* children */
    struct fnode *k[FN_KIDS];
    bool inv[FN_KIDS]; /* FN_SUM: subtracted; FN_PROD: divided by */
};

struct fparse {
    const char *p;
    const struct lesson_exercise *ex;
    bool bad;
};

static void fnode_free(struct fnode *n)
{
    if (!n) return;
    for (size_t i = 0; i < n->nk; i++)
        fnode_free(n->k[i]);
    free(n);
}

static struct fnode *fnode_new(enum fnode_kind kind)
{
    struct fnode *n = xcalloc(1, sizeof *n);
    n->kind = kind;
    return n;
}

static void skip_blank(struct fparse *f)
{
    while (*f->p == ' ' || *f->p == '\t')
        f->p++;
}

static void add_kid(struct fparse *f, struct fnode *n, struct fnode *k, bool inv)
{
    if (!k || n->nk == FN_KIDS) {
        f->bad = true;
        fnode_free(k);
        return;
    }
    n->inv[n->nk] = inv;
    n->k[n->nk++] = k;
}

static struct fnode *parse_sum(struct fparse *f);
static struct fnode *parse_unary(struct fparse *f);

/* a name: a param, or a function and its arguments */
static struct fnode *parse_name(struct fparse *f)
{
    const char *b = f->p;
    while (isalnum((unsigned char)*f->p) || *f->p == '_')
        f->p++;
    size_t len = (size_t)(f->p - b);
    skip_blank(f);
    if (*f->p == '(') {
        struct fnode *n = fnode_new(FN_FUNC);
        snprintf(n->name, sizeof n->name, "%.*s", (int)(len < 7 ? len : 7), b);
        f->p++;
        do {
            if (*f->p == ',') f->p++;
            add_kid(f, n, parse_sum(f), false);
            skip_blank(f);
        } while (*f->p == ',' && !f->bad);
        if (*f->p == ')')
            f->p++;
        else
            f->bad = true;
        return n;
    }
    for (size_t i = 0; i < f->ex->nparams; i++)
        if (strlen(f->ex->params[i].name) == len &&
            strncmp(f->ex->params[i].name, b, len) == 0) {
            struct fnode *n = fnode_new(FN_VAR);
            n->var = (int)i;
            return n;
        }
    f->bad = true;
    return NULL;
}

static struct fnode *parse_primary(struct fparse *f)
{
    skip_blank(f);
    if (*f->p == '(') {
        f->p++;
        struct fnode *n = parse_sum(f);
        skip_blank(f);
        if (*f->p == ')')
            f->p++;
        else
            f->bad = true;
        return n;
    }
    if (isdigit((unsigned char)*f->p) || *f->p == '.') {
        char *e;
        struct fnode *n = fnode_new(FN_NUM);
        n->num = strtod(f->p, &e);
        if (e == f->p) f->bad = true;
        f->p = e;
        return n;
    }
    if (isalpha((unsigned char)*f->p) || *f->p == '_') return parse_name(f);
    f->bad = true;
    return NULL;
}

static struct fnode *parse_pow(struct fparse *f)
{
    struct fnode *b = parse_primary(f);
    skip_blank(f);
    if (*f->p != '^' || f->bad) return b;
    f->p++;
    struct fnode *n = fnode_new(FN_POW);
    add_kid(f, n, b, false);
    add_kid(f, n, parse_unary(f), false);
    return n;
}

static struct fnode *parse_unary(struct fparse *f)
{
    skip_blank(f);
    if (*f->p == '-' || *f->p == '+') {
        bool neg = *f->p++ == '-';
        struct fnode *k = parse_unary(f);
        if (!neg) return k;
        struct fnode *n = fnode_new(FN_NEG);
        add_kid(f, n, k, false);
        return n;
    }
    return parse_pow(f);
}

static struct fnode *parse_prod(struct fparse *f)
{
    struct fnode *first = parse_unary(f), *n = NULL;
    for (skip_blank(f); !f->bad && (*f->p == '*' || *f->p == '/' || *f->p == '%');
         skip_blank(f)) {
        char op = *f->p++;
        struct fnode *k = parse_unary(f);
        if (op == '%') { /* a remainder binds like a product; no slip inside it */
            struct fnode *m = fnode_new(FN_MOD);
            add_kid(f, m, n ? n : first, false);
            add_kid(f, m, k, false);
            n = NULL;
            first = m;
            continue;
        }
        if (!n) {
            n = fnode_new(FN_PROD);
            add_kid(f, n, first, false);
        }
        add_kid(f, n, k, op == '/');
    }
    return n ? n : first;
}

static struct fnode *parse_sum(struct fparse *f)
{
    struct fnode *first = parse_prod(f), *n = NULL;
    for (skip_blank(f); !f->bad && (*f->p == '+' || *f->p == '-'); skip_blank(f)) {
        char op = *f->p++;
        if (!n) {
            n = fnode_new(FN_SUM);
            add_kid(f, n, first, false);
        }
        add_kid(f, n, parse_prod(f), op == '-');
    }
    return n ? n : first;
}

/* ---- evaluation with one slip applied --------------------------------------------------- */

enum fslip_kind {
    FS_NONE,
    FS_DROP,
    FS_TWICE,
    FS_ALL_DIV,
    FS_NO_MINUS_ONE,
    FS_DROP_RUN, /* the factors i..j-1 of a product left out together */
    FS_ONLY,     /* a sum's term i alone */
    FS_SHIFT,    /* a number (at) or a param (var) off by delta */
};

struct fslip_at {
    enum fslip_kind kind;
    const struct fnode *at; /* the sum or product changed; FS_SHIFT: the number, or NULL */
    size_t i;               /* FS_DROP: the child left out; FS_TWICE: counted twice */
    int var;                /* FS_ALL_DIV: the param every term is divided by; FS_SHIFT */
    size_t j;               /* FS_DROP_RUN: the run's end */
    double delta;           /* FS_SHIFT */
};

static bool divides_by(const struct fnode *term, int var)
{
    if (term->kind != FN_PROD) return false;
    for (size_t i = 0; i < term->nk; i++)
        if (term->inv[i] && term->k[i]->kind == FN_VAR && term->k[i]->var == var) return true;
    return false;
}

static double feval(const struct fnode *n, const double *vals, const struct fslip_at *s);

static double eval_func(const struct fnode *n, const double *vals, const struct fslip_at *s)
{
    double a = n->nk ? feval(n->k[0], vals, s) : NAN;
    if (strcmp(n->name, "min") == 0 || strcmp(n->name, "max") == 0) {
        bool mx = n->name[1] == 'a';
        for (size_t i = 1; i < n->nk; i++) {
            double b = feval(n->k[i], vals, s);
            a = mx ? fmax(a, b) : fmin(a, b);
        }
        return a;
    }
    static const struct {
        const char *name;
        double (*f)(double);
    } fns[] = {{"sqrt", sqrt}, {"log2", log2},   {"ln", log},    {"exp", exp},
               {"abs", fabs},  {"floor", floor}, {"ceil", ceil}, {"round", round}};
    for (size_t i = 0; i < ARRAY_LEN(fns); i++)
        if (strcmp(n->name, fns[i].name) == 0) return fns[i].f(a);
    return NAN;
}

static double feval(const struct fnode *n, const double *vals, const struct fslip_at *s)
{
    switch (n->kind) {
    case FN_NUM:
        return s->kind == FS_SHIFT && s->at == n ? n->num + s->delta : n->num;
    case FN_VAR:
        return s->kind == FS_SHIFT && !s->at && s->var == n->var ? vals[n->var] + s->delta
                                                                 : vals[n->var];
    case FN_FUNC:
        return eval_func(n, vals, s);
    case FN_NEG:
        return -feval(n->k[0], vals, s);
    case FN_POW:
        return pow(feval(n->k[0], vals, s), feval(n->k[1], vals, s));
    case FN_MOD:
        return fmod(feval(n->k[0], vals, s), feval(n->k[1], vals, s));
    case FN_SUM:
    case FN_PROD:
        break;
    }
    bool sum = n->kind == FN_SUM;
    if (s->at == n && s->kind == FS_NO_MINUS_ONE) return vals[n->k[0]->var];
    double acc = sum ? 0 : 1;
    for (size_t i = 0; i < n->nk; i++) {
        if (s->at == n && s->kind == FS_DROP && s->i == i) continue;
        if (s->at == n && s->kind == FS_DROP_RUN && i >= s->i && i < s->j) continue;
        if (s->at == n && s->kind == FS_ONLY && s->i != i) continue;
        double x = feval(n->k[i], vals, s);
        if (s->at == n && s->kind == FS_TWICE && s->i == i) x *= 2;
        if (s->at == n && s->kind == FS_ALL_DIV && !divides_by(n->k[i], s->var))
            x /= vals[s->var];
        if (sum)
            acc += n->inv[i] ? -x : x;
        else
            acc = n->inv[i] ? acc / x : acc * x;
    }
    return acc;
}

/* ---- rendering in the question's numbers ------------------------------------------------ */

/* A formula is rendered as the student reads the question: each param with the unit its
 * prompt writes after it ("1 MB", "50 GB/s", "7 billion"), and the formula's unit
 * conversions (a power of 1000, of 1024) left out: "2 × (8 − 1) / 8 × 1 MB / (50 GB/s)",
 * never "1 × 1000000 / (50 × 1000000000) × 1000000". */
struct rctx {
    const double *vals;
    const struct lesson_exercise *ex;
};

/* A unit conversion of the formula: a number that is a power of 1000 (1000, 1e6, 1e-9) or
 * of 1024 (1024, 1048576, 1073741824). */
static bool unit_const(const struct fnode *n)
{
    if (n->kind != FN_NUM || !(n->num > 0)) return false;
    double l = log10(n->num) / 3, b = log2(n->num) / 10;
    return (fabs(l - round(l)) < 1e-9 && round(l) != 0) ||
           (fabs(b - round(b)) < 1e-9 && round(b) >= 1);
}

/* The node as it reads without its unit conversions: a product with one factor left (not
 * a divisor) is that factor. */
static const struct fnode *eff(const struct fnode *n)
{
    if (n->kind != FN_PROD) return n;
    const struct fnode *one = NULL;
    size_t kept = 0, at = 0;
    for (size_t i = 0; i < n->nk; i++)
        if (!unit_const(n->k[i])) kept++, one = n->k[i], at = i;
    return kept == 1 && !n->inv[at] ? eff(one) : n;
}

/* Param var's value as the prompt writes it, with its unit or scale word: "1 MB". */
static void param_label(const struct rctx *c, int var, char *buf, size_t n)
{
    char num[48], unit[24] = "";
    ex_format_number(c->vals[var], num, sizeof num);
    if (!ex_param_unit(c->ex, (size_t)var, unit, sizeof unit)) {
        unit[0] = '\0';
        /* "{b} billion parameters": the scale word the formula's 1e9 stands for */
        static const char *const words[] = {"thousand", "million", "billion", "trillion"};
        char tag[40];
        snprintf(tag, sizeof tag, "{%s} ", c->ex->params[var].name);
        const char *p = c->ex->prompt ? strstr(c->ex->prompt, tag) : NULL;
        for (size_t i = 0; p && i < ARRAY_LEN(words); i++)
            if (strncmp(p + strlen(tag), words[i], strlen(words[i])) == 0)
                snprintf(unit, sizeof unit, "%s", words[i]);
    }
    snprintf(buf, n, "%s%s%s", num, unit[0] ? " " : "", unit);
}

static int prec(const struct fnode *n, const struct rctx *c)
{
    n = eff(n);
    switch (n->kind) {
    case FN_SUM:
        return 1;
    case FN_PROD:
    case FN_MOD:
        return 2;
    case FN_NEG:
        return 3;
    case FN_POW:
        return 4;
    case FN_VAR: {
        char l[80]; /* "50 GB/s" divides as a whole: "/ (50 GB/s)" */
        param_label(c, n->var, l, sizeof l);
        return strchr(l, '/') ? 2 : 5;
    }
    default:
        return 5;
    }
}

static void render(const struct fnode *n, const struct rctx *c, struct vec_buf *b);

static void render_kid(const struct fnode *k, int min_prec, const struct rctx *c,
                       struct vec_buf *b)
{
    bool par = prec(k, c) < min_prec;
    if (par) vec_buf_puts(b, "(");
    render(eff(k), c, b);
    if (par) vec_buf_puts(b, ")");
}

static void render(const struct fnode *n, const struct rctx *c, struct vec_buf *b)
{
    char num[80];
    n = eff(n);
    switch (n->kind) {
    case FN_NUM:
        ex_format_number(n->num, num, sizeof num);
        vec_buf_puts(b, num);
        return;
    case FN_VAR:
        param_label(c, n->var, num, sizeof num);
        vec_buf_puts(b, num);
        return;
    case FN_FUNC:
        vec_buf_puts(b, n->name);
        vec_buf_puts(b, "(");
        for (size_t i = 0; i < n->nk; i++) {
            if (i) vec_buf_puts(b, ", ");
            render(n->k[i], c, b);
        }
        vec_buf_puts(b, ")");
        return;
    case FN_NEG:
        vec_buf_puts(b, "\xe2\x88\x92"); /* − */
        render_kid(n->k[0], 4, c, b);
        return;
    case FN_POW:
    case FN_MOD:
        render_kid(n->k[0], 5, c, b);
        vec_buf_puts(b, n->kind == FN_POW ? "^" : " % ");
        render_kid(n->k[1], 5, c, b);
        return;
    case FN_SUM:
    case FN_PROD:
        break;
    }
    bool sum = n->kind == FN_SUM, first = true;
    for (size_t i = 0; i < n->nk; i++) {
        if (!sum && unit_const(n->k[i])) continue; /* a unit conversion: not said */
        if (!first)
            vec_buf_puts(b, sum ? (n->inv[i] ? " \xe2\x88\x92 " : " + ")
                                : (n->inv[i] ? " / " : " \xc3\x97 "));
        else if (!sum && n->inv[i])
            vec_buf_puts(b, "1 / ");
        first = false;
        /* a divisor that is itself a product keeps its parentheses: a / (b × c) */
        render_kid(n->k[i], sum ? (n->inv[i] ? 2 : 1) : (n->inv[i] ? 3 : 2), c, b);
    }
    if (first) vec_buf_puts(b, "1"); /* only unit conversions */
}

static char *render_str(const struct fnode *n, const struct rctx *c)
{
    struct vec_buf b = {0};
    vec_buf_puts(&b, "");
    render(n, c, &b);
    return vec_buf_take(&b);
}

/* Child i of product n with the factor next to it, as they stand in n: "2 × (8 − 1)"
 * (a unit conversion is no neighbour). */
static char *render_pair(const struct fnode *n, size_t i, const struct rctx *c)
{
    size_t a = i, z = i;
    for (size_t j = i + 1; j < n->nk && z == i; j++)
        if (!unit_const(n->k[j])) z = j;
    for (size_t j = i; z == i && j-- > 0;)
        if (!unit_const(n->k[j])) a = j;
    struct vec_buf b = {0};
    vec_buf_puts(&b, "");
    if (a > 0 && n->inv[a]) vec_buf_puts(&b, "1 / ");
    render_kid(n->k[a], 3, c, &b);
    if (z != a) {
        vec_buf_puts(&b, n->inv[z] ? " / " : " \xc3\x97 ");
        render_kid(n->k[z], 3, c, &b);
    }
    return vec_buf_take(&b);
}

/* ---- the slips -------------------------------------------------------------------------- */

struct fslip_list {
    struct ex_formula_slip *v;
    size_t n, cap;
    const double *vals;
    double want;
    const struct fnode *root;
    struct rctx rc; /* how the slips are said */
    double near;    /* > 0: count the slips within near (relative) of want, keep none */
    size_t nnear;
    const double *lvals; /* with near: the lecture's numbers */
};

static void slip_push(struct fslip_list *L, const struct fslip_at *s, const char *code,
                      const char *msg)
{
    double x = feval(L->root, L->vals, s);
    if (L->near > 0) {
        /* a slip that gives the answer at the lecture's numbers too is no slip (L that
         * cancels, one layer more): only one this variant's numbers make is counted */
        double lx = feval(L->root, L->lvals, s), lw = L->rc.ex->answer;
        /* a count one off (8 bytes of state as 9) is a slip only where it is the answer
         * exactly: within the tolerance it is the tolerance's to allow */
        double near = s->kind == FS_SHIFT ? 1e-9 : L->near;
        L->nnear += isfinite(x) && fabs(x - L->want) <= near * fabs(L->want) &&
                    !(isfinite(lx) && fabs(lx - lw) <= near * fabs(lw));
        return;
    }
    bool differs = isfinite(x) && fabs(x - L->want) > 1e-6 * fmax(1e-300, fabs(L->want));
    /* two slips may give one value (2 × 3 × 5 + 20 and 2 × 1 × 5 + 40): both are kept,
     * so that the grader can say both */
    for (size_t i = 0; differs && i < L->n; i++)
        differs = strcmp(L->v[i].msg, msg) != 0;
    if (differs && L->n < L->cap) {
        struct ex_formula_slip *o = &L->v[L->n++];
        o->value = x;
        snprintf(o->code, sizeof o->code, "%s", code);
        snprintf(o->msg, sizeof o->msg, "%s", msg);
    }
}

/* Every term of sum n divided by a param some of its terms are divided by, not all. */
static void slips_all_div(struct fslip_list *L, const struct fnode *n)
{
    for (size_t i = 0; i < n->nk; i++) {
        const struct fnode *t = n->k[i];
        if (t->kind != FN_PROD) continue;
        for (size_t j = 0; j < t->nk; j++) {
            if (!t->inv[j] || t->k[j]->kind != FN_VAR) continue;
            int var = t->k[j]->var;
            bool first = true, all = true;
            for (size_t q = 0; q < n->nk; q++) {
                all = all && divides_by(n->k[q], var);
                if (q < i && divides_by(n->k[q], var)) first = false;
            }
            if (all || !first) continue;
            char *x = render_str(t->k[j], &L->rc), *term = render_str(t, &L->rc);
            struct fslip_at s = {FS_ALL_DIV, n, 0, var, 0, 0};
            char m[300];
            snprintf(m, sizeof m,
                     "That divides every term by %s; the answer divides only some of them (as "
                     "%s): the others stay whole",
                     x, term);
            slip_push(L, &s, "all-divided", m);
            free(x);
            free(term);
        }
    }
}

/* A unit conversion of product n left out (its child i): a power of 1000 is said by the
 * grader as the answer in another unit (power-of-ten), so only a power of 1024 is said
 * here, as the conversion it is. */
static void slip_unit_const(struct fslip_list *L, const struct fnode *n, size_t i)
{
    double c = n->k[i]->num, scale = 0;
    int bits = (int)round(log2(c));
    if (fabs(c - ldexp(1.0, bits)) > 0 || bits % 10 != 0) return;
    const char *canon = NULL;
    enum ex_dim dim = DIM_NONE;
    ex_unit_lookup(L->rc.ex->units, &dim, &scale, &canon);
    struct fslip_at s = {FS_DROP, n, i, 0, 0, 0};
    char m[300];
    if (n->inv[i] && scale == c && canon)
        snprintf(m, sizeof m,
                 "That leaves out the division by 2^%d that turns %s into %s: mind the unit",
                 bits, dim == DIM_BANDWIDTH ? "bytes/s" : "bytes", canon);
    else
        snprintf(m, sizeof m, "That leaves out a unit conversion, the %s 2^%d: mind the units",
                 n->inv[i] ? "division by" : "factor", bits);
    slip_push(L, &s, "left-out-factor", m);
}

/* Does n use param var; does it use no param but var? */
static bool uses_var(const struct fnode *n, int var)
{
    if (n->kind == FN_VAR) return n->var == var;
    for (size_t i = 0; i < n->nk; i++)
        if (uses_var(n->k[i], var)) return true;
    return false;
}

static bool only_var(const struct fnode *n, int var)
{
    if (n->kind == FN_VAR) return n->var == var;
    for (size_t i = 0; i < n->nk; i++)
        if (!only_var(n->k[i], var)) return false;
    return true;
}

/* The factors i..j-1 of product n as they stand there: "2 × (8 − 1) / 8". */
static char *render_run(const struct fnode *n, size_t i, size_t j, const struct rctx *c)
{
    struct vec_buf b = {0};
    vec_buf_puts(&b, "");
    bool first = true;
    for (size_t q = i; q < j; q++) {
        if (unit_const(n->k[q])) continue; /* a unit conversion: not said */
        if (!first)
            vec_buf_puts(&b, n->inv[q] ? " / " : " \xc3\x97 ");
        else if (n->inv[q])
            vec_buf_puts(&b, "1 / ");
        first = false;
        render_kid(n->k[q], n->inv[q] ? 3 : 2, c, &b);
    }
    return vec_buf_take(&b);
}

/* A product's factors in one param left out together: the ring's 2 × (8 − 1) / 8 of its
 * bandwidth term, as a student who writes S / β for it. A run of adjacent factors (two or
 * more) that use one param and numbers only, not the whole product. */
static void slips_runs(struct fslip_list *L, const struct fnode *n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n->nk; i++)
        kept += !unit_const(n->k[i]);
    for (size_t v = 0; v < L->rc.ex->nparams; v++)
        for (size_t i = 0; i < n->nk;) {
            size_t j = i;
            bool uses = false;
            while (j < n->nk && !unit_const(n->k[j]) && only_var(n->k[j], (int)v)) {
                uses = uses || uses_var(n->k[j], (int)v);
                j++;
            }
            if (j - i >= 2 && j - i < kept && uses) {
                char *run = render_run(n, i, j, &L->rc), *whole = render_str(n, &L->rc);
                struct fslip_at s = {FS_DROP_RUN, n, i, 0, j, 0};
                char m[300];
                snprintf(m, sizeof m, "That leaves out the factor %s of %s", run, whole);
                slip_push(L, &s, "left-out-factor", m);
                free(run);
                free(whole);
            }
            i = j > i ? j : i + 1;
        }
}

/* One term of a sum of three or more alone, the others left out: the weights' 4 bytes of
 * 4 + 4 + 8. */
static void slips_only(struct fslip_list *L, const struct fnode *n)
{
    if (n->nk < 3) return;
    char *whole = render_str(n, &L->rc);
    for (size_t i = 0; i < n->nk; i++) {
        if (n->inv[i]) continue;
        struct vec_buf kb = {0};
        vec_buf_puts(&kb, "");
        render_kid(n->k[i], 1, &L->rc, &kb);
        char *k = vec_buf_take(&kb);
        struct fslip_at s = {FS_ONLY, n, i, 0, 0, 0};
        char m[300];
        snprintf(m, sizeof m, "That counts only the term %s of %s: the answer adds the others",
                 k, whole);
        slip_push(L, &s, "only-term", m);
        free(k);
    }
    free(whole);
}

/* A count of the formula off by one: a whole number from 2 to 16 that multiplies (3
 * collectives a layer taken as DDP's 2), one more or (from 3) one fewer. */
static void slips_count_shift(struct fslip_list *L, const struct fnode *n)
{
    char *whole = NULL;
    for (size_t i = 0; i < n->nk; i++) {
        const struct fnode *k = n->k[i];
        if (k->kind != FN_NUM || unit_const(k) || k->num != round(k->num) || k->num < 2 ||
            k->num > 16)
            continue;
        if (!whole) whole = render_str(n, &L->rc);
        for (int d = -1; d <= 1; d += 2) {
            if (d < 0 && k->num < 3) continue;
            struct fslip_at s = {FS_SHIFT, k, 0, 0, 0, d};
            char m[300];
            snprintf(m, sizeof m,
                     "That takes %g where the answer has %g (the %s %g of %s): a count one %s",
                     k->num + d, k->num, n->inv[i] ? "division by" : "factor", k->num, whole,
                     d < 0 ? "too few" : "too many");
            slip_push(L, &s, "off-by-one", m);
        }
    }
    free(whole);
}

/* A count of the question off by one: an integer param without a unit (layers, ranks,
 * stages) one more or one fewer (the last layer's all-gather left out). */
static void slips_param_shift(struct fslip_list *L)
{
    const struct lesson_exercise *ex = L->rc.ex;
    for (size_t v = 0; v < ex->nparams; v++) {
        char unit[24];
        /* W + 1 ranks is no slip anyone makes (W for W − 1 is minus-one's) */
        static const char *const world[] = {"w", "W", "ranks", "nranks", "world"};
        bool is_world = false;
        for (size_t k = 0; k < ARRAY_LEN(world); k++)
            is_world = is_world || strcmp(ex->params[v].name, world[k]) == 0;
        if (is_world || !ex->params[v].integer || L->vals[v] < 2 ||
            !uses_var(L->root, (int)v) || ex_param_unit(ex, v, unit, sizeof unit))
            continue;
        for (int d = -1; d <= 1; d += 2) {
            struct fslip_at s = {FS_SHIFT, NULL, 0, (int)v, 0, d};
            char m[300], a[48], b[48];
            ex_format_number(L->vals[v] + d, a, sizeof a);
            ex_format_number(L->vals[v], b, sizeof b);
            snprintf(m, sizeof m, "That uses %s where the question has %s: a count one %s", a,
                     b, d < 0 ? "too few" : "too many");
            slip_push(L, &s, "off-by-one", m);
        }
    }
}

/* The working stopped early: a first part of the formula's product, a large number read
 * in thousands, millions or billions (104857600 × 4 = 419.4 million, the size in MB, typed
 * as the bandwidth). The value is that part's, so the slip is said as such. */
static void slips_partial(struct fslip_list *L)
{
    static const char *const scale[] = {"thousand", "million", "billion", "trillion"};
    const struct fnode *n = L->root;
    if (n->kind != FN_PROD) return;
    size_t kept = 0;
    for (size_t i = 0; i < n->nk; i++)
        kept += !unit_const(n->k[i]);
    size_t seen = 0;
    for (size_t j = 0; j + 1 < n->nk; j++) {
        if (unit_const(n->k[j])) continue;
        if (++seen < 2 || seen >= kept) continue;
        struct fslip_at s = {FS_DROP_RUN, n, j + 1, 0, n->nk, 0};
        double x = feval(n, L->vals, &s);
        int k = 0;
        while (k < 4 && fabs(x) >= 1000)
            x /= 1000, k++;
        if (k == 0 || fabs(x) < 1) continue;
        char *part = render_run(n, 0, j + 1, &L->rc), num[48];
        ex_format_text_number(x, num, sizeof num);
        char m[300];
        snprintf(m, sizeof m,
                 "That is %s = %s %s: a step of the working (in %ss), not its end; the answer "
                 "goes on from there",
                 part, num, scale[k - 1], scale[k - 1]);
        free(part);
        /* the value typed is the part in its scale, not the formula's */
        if (L->n < L->cap && isfinite(x) && fabs(x - L->want) > 1e-6 * fabs(L->want)) {
            struct ex_formula_slip *o = &L->v[L->n++];
            o->value = x;
            snprintf(o->code, sizeof o->code, "%s", "partial-result");
            snprintf(o->msg, sizeof o->msg, "%s", m);
        }
    }
}

static void slips_here(struct fslip_list *L, const struct fnode *n)
{
    if (n->kind == FN_SUM && n->nk == 2 && n->inv[1] && n->k[0]->kind == FN_VAR &&
        n->k[1]->kind == FN_NUM && n->k[1]->num == 1) {
        char *x = render_str(n->k[0], &L->rc), *xm = render_str(n, &L->rc);
        struct fslip_at s = {FS_NO_MINUS_ONE, n, 0, 0, 0, 0};
        char m[300];
        snprintf(m, sizeof m, "That uses %s where the answer has %s", x, xm);
        slip_push(L, &s, "minus-one", m);
        free(x);
        free(xm);
    }
    if ((n->kind != FN_SUM && n->kind != FN_PROD) || n->nk < 2) return;
    for (size_t i = 0; i < n->nk; i++) {
        if (n->kind == FN_PROD && unit_const(n->k[i])) {
            slip_unit_const(L, n, i);
            continue;
        }
        /* 1 − f without f is the factor (1 − f) left out, said as such */
        if (n->kind == FN_SUM && n->nk == 2 && n->k[1 - i]->kind == FN_NUM &&
            n->k[1 - i]->num == 1)
            continue;
        /* the child as it stands in n: (1 − 0.1) keeps its parentheses in a product */
        struct vec_buf kb = {0};
        vec_buf_puts(&kb, "");
        render_kid(n->k[i], n->kind == FN_SUM ? 1 : 3, &L->rc, &kb);
        char *k = vec_buf_take(&kb);
        struct fslip_at s = {FS_DROP, n, i, 0, 0, 0};
        char m[300];
        /* inside the formula, say where: "the factor 8 of 8 × 3.5 / 1000"; a bare number
         * of the whole formula, with its neighbour: "the factor 2 of 2 × (8 − 1)" */
        char *whole = n != L->root ? render_str(n, &L->rc)
                      : n->kind == FN_PROD && n->k[i]->kind == FN_NUM
                          ? render_pair(n, i, &L->rc)
                          : NULL;
        if (whole && strcmp(whole, k) == 0) { /* the rest was unit conversions */
            free(whole);
            whole = NULL;
        }
        if (n->kind == FN_SUM)
            snprintf(m, sizeof m, "That leaves out the term %s%s%s%s", k, whole ? " of " : "",
                     whole ? whole : "",
                     n->inv[i] ? ", which the answer subtracts" : ": the answer adds it");
        else
            snprintf(m, sizeof m, "That leaves out the %s %s%s%s",
                     n->inv[i] ? "division by" : "factor", k, whole ? " of " : "",
                     whole ? whole : "");
        slip_push(L, &s, n->kind == FN_SUM ? "left-out-term" : "left-out-factor", m);
        /* a term counted twice (4 × 72.2 for 2 × 72.2): a product, not a bare number or
         * param (W − 2, 2W − 1 are no slips anyone makes) */
        if (n->kind == FN_SUM && n->k[i]->kind == FN_PROD) {
            struct fslip_at t = {FS_TWICE, n, i, 0, 0, 0};
            snprintf(m, sizeof m, "That counts the term %s twice%s%s: the answer %s it once", k,
                     whole ? " in " : "", whole ? whole : "", n->inv[i] ? "subtracts" : "adds");
            slip_push(L, &t, "twice-term", m);
        }
        free(whole);
        free(k);
    }
    if (n->kind == FN_SUM) slips_all_div(L, n);
    if (n->kind == FN_SUM) slips_only(L, n);
    if (n->kind == FN_PROD) {
        slips_runs(L, n);
        slips_count_shift(L, n);
    }
}

/* The slips of n, then of its children: the outer slip first (leaving out the term
 * 4 × d × d explains an answer better than leaving out one d of it, which gives nearly
 * the same number). */
static void slips_walk(struct fslip_list *L, const struct fnode *n)
{
    slips_here(L, n);
    for (size_t i = 0; i < n->nk; i++)
        slips_walk(L, n->k[i]);
}

/* The slips of ex at v into out (at most cap); with near > 0, none kept: the number of
 * slips whose value lies within near (relative) of the answer. */
static size_t formula_slips(const struct lesson_exercise *ex, const struct ex_variant *v,
                            struct ex_formula_slip *out, size_t cap, double near)
{
    if (ex->type != LEX_NUMBER || !ex->formula[0]) return 0;
    struct fparse f = {ex->formula, ex, false};
    struct fnode *root = parse_sum(&f);
    skip_blank(&f);
    double vals[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < ex->nparams; i++)
        vals[i] = v ? v->param[i] : ex->params[i].value;
    double want = v ? v->answer : ex->answer, lvals[LESSON_MAX_PARAMS];
    for (size_t i = 0; i < ex->nparams; i++)
        lvals[i] = ex->params[i].value;
    struct fslip_at none = {FS_NONE, NULL, 0, 0, 0, 0};
    size_t n = 0;
    /* the tree must compute what muParser computes, or it names nothing */
    if (root && !f.bad && !*f.p &&
        fabs(feval(root, vals, &none) - want) <= 1e-9 * fmax(1.0, fabs(want))) {
        struct fslip_list L = {out, 0, cap, vals, want, root, {vals, ex}, near, 0, lvals};
        slips_walk(&L, root);
        slips_param_shift(&L);
        if (near > 0)
            n = L.nnear;
        else {
            slips_partial(&L); /* its value is in thousands, millions...: not the answer's */
            n = L.n;
        }
    }
    fnode_free(root);
    return n;
}

size_t ex_formula_slips(const struct lesson_exercise *ex, const struct ex_variant *v,
                        struct ex_formula_slip *out, size_t cap)
{
    return formula_slips(ex, v, out, cap, 0);
}

size_t ex_formula_slips_near(const struct lesson_exercise *ex, const struct ex_variant *v,
                             double near)
{
    return near > 0 ? formula_slips(ex, v, NULL, 0, near) : 0;
}
