/* walk.c - the deck walker (see walk.h): the player and the presenter drive their own
 * drawing code onto an off-screen curses screen; every frame is read back cell by cell and
 * checked against the answers of the exercises not answered yet. */
#include "ui/walk.h"

#include <stdint.h>

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/trace.h"
#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "lesson/types/types.h"
#include "scene/par_sched.h"
#include "scene/par_view.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "ui/kit/svg.h"
#include "ui/present/present.h"
#include "ui/screens/lesson/lesson_keys.h"
#include "ui/screens/lesson/lesson_ui.h"
#include "ui/screens/lesson/predict.h"
#include "ui/screens/parallel/par.h"
#include "ui/screens/screens.h"

#define WALK_VALS 64

struct walk_fig;

/* One exercise's answer forms. */
struct walk_ans {
    const struct lesson_exercise *e;
    size_t slide, k;        /* its slide, and its place among the slide's exercises */
    double vals[WALK_VALS]; /* holds: the asked values with data, in box order */
    size_t nvals, lo;       /* lo: the first asked slot */
    bool single;            /* holds: one value with data (its own slide only) */
    bool distinct;          /* number: walk_distinct, found once */
    char choice[256];       /* choice: the right option's text, backticks dropped */
};

struct walk {
    enum walk_view view;
    int cols, rows;
    struct walk_counts *c;
    FILE *log;
    int max_log, logged;
    const struct lesson *L; /* the answers' lesson */
    const struct app *app;  /* the one drawing */
    /* the player: the whole set, and which number exercises (flat, in set order) a frame
     * of an earlier lesson showed the lecture answer of */
    const struct lesson_set *set;
    const struct lesson_set *deck; /* the presenter: the deck's lessons, in its order */
    size_t lesson;                 /* set index of the lesson walked */
    bool *seen_before;
    struct walk_ans *ans;
    size_t nans;
    char **seen; /* places already counted: "kind|lesson|slide|what" */
    size_t nseen, capseen;
    char frame[160]; /* the frame, for the log: "slide 3 step 2 (scene alone)" */
    size_t revealed; /* (presenter) the slide's exercises r has revealed to the room */
    long cuts_seen;  /* draw_cut_count before the frame */
    /* the screen read back */
    char *text;
    char *line[256];
    int nlines;
    /* each line's figures (walk_figs), found once a frame: every number exercise and
     * every later lesson's answer is compared with the same figures */
    struct walk_fig *figs;
    bool figs_done[256];
};

const char *walk_kind_name(enum walk_kind k)
{
    static const char *const n[WALK_NKINDS] = {"number answer early",
                                               "holds answer early",
                                               "choice answer early",
                                               "cut line",
                                               "answer shown in an earlier lesson",
                                               "cut line above a blank row",
                                               "a later lesson's answer early",
                                               "key hint that does nothing",
                                               "box hidden beside its values shown",
                                               "slide without its lesson's title"};
    return k < WALK_NKINDS ? n[k] : "?";
}

/* ---- the answers ---------------------------------------------------------------------- */

#define WALK_LATER ((size_t)1 << 30) /* a later lesson's slide: after every slide here */

static bool walk_distinct(const struct lesson_exercise *e);

/* Exercise e's answer forms, asked on slide `slide`. */
static void walk_collect_one(struct walk_ans *a, const struct lesson_exercise *e, size_t slide,
                             size_t k)
{
    a->e = e;
    a->slide = slide;
    a->k = k;
    a->distinct = ex_answer_form(e) == EX_ANSWER_NUMBER && walk_distinct(e);
    if (ex_answer_form(e) == EX_ANSWER_VALUES) {
        float v[WALK_VALS * 4];
        bool has[WALK_VALS * 4];
        size_t len = 0;
        char err[200];
        if (ex_holds_expected(e, v, has, ARRAY_LEN(v), &len, err, sizeof err) != CV_OK) return;
        /* the asked slots only, from v[0] (exercise.h): slot lo is v[0] */
        size_t data = 0;
        a->lo = e->slots ? (size_t)e->slot_lo : 0;
        for (size_t i = 0; i < len && a->nvals < WALK_VALS; i++) {
            a->vals[a->nvals++] = has[i] ? v[i] : NAN;
            data += has[i];
        }
        a->single = data < 2; /* one value: only on its own slide, a box of one */
    } else if (ex_answer_form(e) == EX_ANSWER_OPTION && e->correct >= 1 &&
               (size_t)e->correct <= e->noptions) {
        size_t o = 0;
        for (const char *p = e->options[e->correct - 1]; *p && o + 1 < sizeof a->choice; p++)
            if (*p != '`' && *p != '*') a->choice[o++] = *p;
        a->choice[o] = '\0';
    }
}

/* The answers of L's exercises; in the presenter, of the deck's later lessons' too (the deck
 * is one talk: lesson 9's panel may not show lesson 10's answer). */
static void walk_collect(struct walk *w, const struct lesson *L)
{
    free(w->ans);
    w->nans = 0;
    w->L = L;
    size_t li = 0, nl = 1;
    const struct lesson *v = L;
    if (w->deck) {
        while (li < w->deck->n && strcmp(w->deck->v[li].id, L->id) != 0)
            li++;
        if (li < w->deck->n)
            v = w->deck->v, nl = w->deck->n;
        else
            li = 0;
    }
    size_t n = 0;
    for (size_t l = li; l < nl; l++)
        for (size_t s = 0; s < v[l].nslides; s++)
            n += v[l].slides[s].nex;
    w->ans = xcalloc(n ? n : 1, sizeof *w->ans);
    for (size_t l = li; l < nl; l++)
        for (size_t s = 0; s < v[l].nslides; s++)
            for (size_t k = 0; k < v[l].slides[s].nex; k++)
                walk_collect_one(&w->ans[w->nans++], &v[l].slides[s].ex[k],
                                 l == li ? s : WALK_LATER, k);
}

/* ---- reading the screen back ---------------------------------------------------------- */

static void walk_read(struct walk *w)
{
    free(w->text);
    w->text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&w->text, &len);
    if (!f) return;
    svg_write_text(stdscr, f);
    fclose(f);
    w->nlines = 0;
    memset(w->figs_done, 0, sizeof w->figs_done);
    for (char *p = w->text; p && *p && w->nlines < (int)ARRAY_LEN(w->line);) {
        w->line[w->nlines++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        p = nl + 1;
    }
}

/* ---- findings ----------------------------------------------------------------------- */

static bool walk_first(struct walk *w, const char *key)
{
    for (size_t i = 0; i < w->nseen; i++)
        if (strcmp(w->seen[i], key) == 0) return false;
    if (w->nseen == w->capseen) {
        w->capseen = w->capseen ? 2 * w->capseen : 64;
        w->seen = xrealloc(w->seen, w->capseen * sizeof *w->seen);
    }
    w->seen[w->nseen++] = xstrdup(key);
    return true;
}

static void walk_found(struct walk *w, enum walk_kind k, size_t slide, const char *what,
                       const char *line)
{
    w->c->n[k]++;
    char key[600];
    snprintf(key, sizeof key, "%d|%s|%zu|%.500s", (int)k, w->L->id, slide, what);
    if (!walk_first(w, key)) return;
    w->c->places[k]++;
    if (w->log && w->logged < w->max_log) {
        w->logged++;
        fprintf(w->log, "%s %dx%d %s slide %zu %s: %s: %s | %s\n",
                w->view == WALK_PLAYER ? "player" : "presenter", w->cols, w->rows, w->L->id,
                slide + 1, w->frame, walk_kind_name(k), what, line);
    }
}

/* ---- numbers -------------------------------------------------------------------------- */

struct walk_fig {
    double v[128], half[128];
    char unit[128][24];
    /* the unit as ex_unit_lookup knows it (a rate's "/..." dropped where only the rest is a
     * unit: "GB/s/rank"), its kind and canonical name (DIM_NONE, NULL: no unit known) */
    char lu[128][24];
    enum ex_dim dim[128];
    const char *canon[128];
    int n;
};

static bool walk_fig_rec(double v, double half, const char *unit, void *ctx)
{
    struct walk_fig *f = ctx;
    if (f->n < 128) {
        int i = f->n++;
        f->v[i] = v;
        f->half[i] = half;
        snprintf(f->unit[i], sizeof f->unit[0], "%s", unit);
        char *u = f->lu[i];
        snprintf(u, sizeof f->lu[0], "%s", unit);
        double sc;
        f->dim[i] = DIM_NONE;
        f->canon[i] = NULL;
        if (ex_unit_lookup(u, &f->dim[i], &sc, &f->canon[i]) != CV_OK && strchr(u, '/'))
            *strchr(u, '/') = '\0';
        if (ex_unit_lookup(u, &f->dim[i], &sc, &f->canon[i]) != CV_OK)
            f->dim[i] = DIM_NONE, f->canon[i] = NULL;
    }
    return false;
}

static void walk_blank_boxes(const char *line, char *out, size_t n);

/* The figures of line y of the frame read back: its box values blanked (walk_blank_boxes),
 * then each figure with its unit as the screens' masking sees it. */
static const struct walk_fig *walk_figs(struct walk *w, int y)
{
    if (!w->figs) w->figs = xcalloc(ARRAY_LEN(w->line), sizeof *w->figs);
    struct walk_fig *f = &w->figs[y];
    if (!w->figs_done[y]) {
        char out[2048], blank[2048];
        f->n = 0;
        walk_blank_boxes(w->line[y], blank, sizeof blank);
        draw_set_mask(walk_fig_rec, f);
        draw_mask_text(blank, out, sizeof out);
        draw_set_mask(NULL, NULL);
        w->figs_done[y] = true;
    }
    return f;
}

int walk_line_figures(const char *line, double *v, int max)
{
    struct walk_fig *f = xcalloc(1, sizeof *f);
    char out[2048], blank[2048];
    walk_blank_boxes(line, blank, sizeof blank);
    draw_set_mask(walk_fig_rec, f);
    draw_mask_text(blank, out, sizeof out);
    draw_set_mask(NULL, NULL);
    int n = f->n < max ? f->n : max;
    for (int i = 0; i < n; i++)
        v[i] = f->v[i];
    free(f);
    return n;
}

/* Is the figure (v, half, unit) the number exercise e's answer as a screen prints it? A
 * figure of a unit of a measured kind (bandwidth, time, bytes) is converted to the
 * exercise's unit; a count or ratio is compared as printed. A small whole answer (below
 * 10) is everywhere on a screen (ranks, steps): only counted with the exercise's own unit
 * word after it ("8x"); so is a ratio of any size asked later (not on the slide shown): a
 * bare "32" there is a box value, a row count, another exercise's count. */
static bool walk_num_hit(const struct lesson_exercise *e, double ans, const struct walk_fig *f,
                         int fi, bool later)
{
    if (ans == 0 || !isfinite(ans)) return false;
    double v = f->v[fi], half = f->half[fi];
    const char *unit = f->unit[fi], *u = f->lu[fi], *fcanon = f->canon[fi];
    enum ex_dim fd = f->dim[fi];
    /* the exercise's unit, looked up once for as long as the exercises asked have it */
    static char e_units[sizeof e->units];
    static enum ex_dim ed;
    static const char *canon;
    static bool have_e;
    if (!have_e || strcmp(e_units, e->units) != 0) {
        double sc;
        ed = DIM_NONE;
        canon = NULL;
        if (ex_unit_lookup(e->units, &ed, &sc, &canon) != CV_OK) ed = DIM_NONE;
        snprintf(e_units, sizeof e_units, "%s", e->units);
        have_e = true;
    }
    bool measured = ed == DIM_BANDWIDTH || ed == DIM_TIME || ed == DIM_BYTES;
    double cv = v, ch = half;
    if (measured) {
        char err[80];
        if (fd != ed || ex_unit_convert(v, u, e->units, &cv, err, sizeof err) != CV_OK ||
            ex_unit_convert(half, u, e->units, &ch, err, sizeof err) != CV_OK)
            return false;
    } else {
        if (fd == DIM_BANDWIDTH || fd == DIM_TIME || fd == DIM_BYTES) return false;
        bool whole = ans == round(ans), small = fabs(ans) < 10 && whole;
        /* a count ("14"): only as a count of what the prompt counts ("14 steps"), or where
         * it has four digits or more ("524288": no rank, step or box value is that) */
        if (whole && !e->units[0] && fabs(ans) < 1000 &&
            !(strlen(unit) > 2 && e->prompt && strcasestr(e->prompt, unit)))
            return false; /* "7.0 r7>r0", "56 of 56": a short word counts nothing */
        bool same_unit = fcanon && canon && strcmp(fcanon, canon) == 0;
        if (small && e->units[0] && !same_unit) return false;
        if (later && canon && (strcmp(canon, "x") == 0 || strcmp(canon, "%") == 0) &&
            !same_unit)
            return false;
    }
    double tol = e->tolerance > 0.01 ? e->tolerance : 0.01;
    return fabs(cv - ans) <= fmax(tol * fabs(ans), ch * (1 + 1e-9));
}

/* Is number exercise e's answer recognisable on another lesson's screen: a figure with a
 * unit (not a small whole one: "4 GPUs"), or a count of four digits or more? A small count
 * or a fraction ("7 steps", "3/7") is on other lessons' screens as something else. */
static bool walk_distinct(const struct lesson_exercise *e)
{
    double ans = e->answer;
    bool whole = ans == round(ans);
    if (predict_is_ratio(e)) return true; /* "8x": compared with its unit only */
    if (e->units[0]) return !(whole && fabs(ans) < 10);
    return whole && fabs(ans) >= 1000;
}

/* The runs of box values in a line: numbers separated only by spaces and the no-data
 * marks ("·", "."), which become NaN; a border, a word or any other mark ends a run. A
 * single value must be the whole run (a box of one element). Calls
 * true when the asked box (want, NaN for no data) is one of them. */
static bool walk_holds_in(const char *s, const double *want, size_t nw)
{
    double run[256];
    int n = 0;
    bool opened = false; /* the run began at a box's left border (or a bracket) */
    for (size_t i = 0;;) {
        unsigned char ch = (unsigned char)s[i];
        bool num = (isdigit(ch) || (ch == '-' && isdigit((unsigned char)s[i + 1]))) &&
                   (i == 0 || s[i - 1] == ' ');
        if (num && n == 0) {
            size_t b = i;
            while (b > 0 && s[b - 1] == ' ')
                b--;
            opened =
                (b >= 3 && strncmp(s + b - 3, "\u2502", 3) == 0) || (b > 0 && s[b - 1] == '[');
        }
        if (num) {
            char *end;
            double v = strtod(s + i, &end);
            if (*end == '\0' || *end == ' ') {
                if (n < 256) run[n++] = v;
                i = (size_t)(end - s);
                continue;
            }
            if (*end && strchr(",.;:)", *end)) { /* "… 46 16, which": the run's last */
                if (n < 256) run[n++] = v;
                i = (size_t)(end - s);
                ch = (unsigned char)s[i];
            }
        }
        if (ch == ' ') {
            i++;
            continue;
        }
        if (strncmp(s + i, "\u00b7", 2) == 0 || (ch == '.' && (s[i + 1] == ' ' || !s[i + 1]))) {
            if (n < 256) run[n++] = NAN;
            i += ch == '.' ? 1 : 2;
            continue;
        }
        /* the run ends here: does the asked box appear in it, no-data marks included? A
         * single value only as a box of one, between its borders ("│ 6 │", not "el 6") */
        bool closed = strncmp(s + i, "\u2502", 3) == 0 || ch == ']';
        for (int a = 0; a + (int)nw <= n && (nw > 1 || (n == 1 && opened && closed)); a++) {
            size_t j = 0;
            for (; j < nw; j++) {
                double g = run[a + (int)j], x = want[j];
                if (isnan(x) != isnan(g)) break;
                if (!isnan(x) && fabs(g - x) > 1e-3 * fmax(1, fabs(x))) break;
            }
            if (j == nw) return true;
        }
        n = 0;
        if (!ch) return false;
        i++;
    }
}

/* The asked values as a run wrapped from row y onto row y + 1 (a narration's "every box
 * reads 60 64 / 68 72"): the two rows joined, each run's values counted once. */
static bool walk_holds_wrapped(const struct walk *w, int y, const double *want, size_t nw)
{
    if (nw < 2 || y + 1 >= w->nlines) return false;
    const char *a = w->line[y], *b = w->line[y + 1];
    size_t la = strlen(a);
    while (la > 0 && a[la - 1] == ' ')
        la--;
    b += strspn(b, " ");
    if (la == 0 || !*b || !isdigit((unsigned char)a[la - 1])) return false;
    char joined[1024];
    snprintf(joined, sizeof joined, "%.*s %s", (int)la, a, b);
    return walk_holds_in(joined, want, nw);
}

/* s's panes (the text between the rule glyphs "│" of a row), each with its runs of
 * blanks made one space: into seg[max] of n bytes each; how many. */
static int walk_panes(const char *s, char (*seg)[600], int max)
{
    int k = 0;
    size_t o = 0;
    seg[0][0] = '\0';
    for (const char *p = s; *p && k < max;) {
        if (strncmp(p, "\u2502", 3) == 0) {
            seg[k++][o] = '\0';
            o = 0;
            if (k < max) seg[k][0] = '\0';
            p += 3;
            continue;
        }
        if (*p == ' ' && (o == 0 || seg[k][o - 1] == ' ')) {
            p++;
            continue;
        }
        if (o + 1 < sizeof seg[0]) seg[k][o++] = *p;
        p++;
    }
    if (k < max) seg[k++][o] = '\0';
    return k;
}

/* Does row y (or row y run on into row y + 1, pane by pane: a sentence wraps) say one of
 * choice e's `shows:` phrases, case ignored? */
static bool walk_shows_hit(const struct walk *w, int y, const struct lesson_exercise *e)
{
    if (!e->nshows) return false;
    static char a[8][600], b[8][600];
    int na = walk_panes(w->line[y], a, 8);
    int nb = y + 1 < w->nlines ? walk_panes(w->line[y + 1], b, 8) : 0;
    for (int i = 0; i < na; i++) {
        char joined[1300];
        size_t la = strlen(a[i]);
        while (la && a[i][la - 1] == ' ')
            la--;
        snprintf(joined, sizeof joined, "%.*s %s", (int)la, a[i],
                 nb == na ? b[i] + (b[i][0] == ' ') : "");
        for (size_t k = 0; k < e->nshows; k++)
            if (strcasestr(joined, e->shows[k])) return true;
    }
    return false;
}

/* The length of the strip glyph at p (pardraw.c's measured timeline: a micro-batch's digit,
 * F, B, A, the send's ">", the wait's "\u00b7" or "."), 0 where p holds none. */
static size_t walk_glyph_len(const char *p)
{
    if (isdigit((unsigned char)*p) || strchr("FBA>.", *p)) return *p ? 1 : 0;
    return strncmp(p, "\u00b7", 2) == 0 ? 2 : 0;
}

/* Does p in s follow a stage's label ("s2" and spaces, the label a word of its own), as a
 * strip's glyphs do whatever they are? */
static bool walk_after_stage(const char *s, const char *p)
{
    const char *b = p;
    while (b > s && b[-1] == ' ')
        b--;
    if (b == p) return false;
    const char *d = b;
    while (d > s && isdigit((unsigned char)d[-1]))
        d--;
    if (d == b || d == s || d[-1] != 's') return false;
    return d - 1 == s || !isalnum((unsigned char)d[-2]);
}

/* s with the digits of its glyph runs blanked. A glyph strip draws one glyph a cell, a
 * micro-batch's number (mod 10) where its event starts: two short events side by side read
 * "32" though each digit is a token of its own. A glyph run is a maximal run of strip glyphs
 * holding a digit that is not shaped as a figure (digits, a decimal part or a full stop, a
 * unit "B"): ">>32BB>", "B3F", "\u00b71\u00b7"; or any run after a stage's label ("s1  3232",
 * a strip of one-cell events). A figure ("32", "1.5", "128B", "32.") is left as it is. */
static void walk_blank_glyphs(char *s)
{
    for (char *p = s; *p;) {
        size_t g = walk_glyph_len(p);
        if (!g) {
            p++;
            continue;
        }
        char *q = p;
        bool digit = false;
        while ((g = walk_glyph_len(q)) > 0) {
            digit = digit || isdigit((unsigned char)*q);
            q += g;
        }
        /* figure-shaped: digits, then "." and digits, then at most one "B" */
        const char *f = p;
        while (f < q && isdigit((unsigned char)*f))
            f++;
        bool figure = f > p;
        if (figure && f < q && *f == '.' && f + 1 < q && isdigit((unsigned char)f[1]))
            for (f++; f < q && isdigit((unsigned char)*f);)
                f++;
        if (figure && f < q && *f == '.' && f + 1 == q) f++; /* a sentence's full stop */
        if (figure && f < q && *f == 'B') f++;
        figure = figure && f == q && !walk_after_stage(s, p);
        if (digit && !figure)
            for (char *r = p; r < q; r++)
                if (isdigit((unsigned char)*r)) *r = ' ';
        p = q;
    }
}

/* line with its box values blanked (a segment between borders holding only numbers and
 * no-data marks) and its glyph runs' digits (walk_blank_glyphs): a value in a rank's box is
 * a holds answer, not a number answer; a strip's digits are micro-batches. */
static void walk_blank_boxes(const char *line, char *out, size_t n)
{
    snprintf(out, n, "%s", line);
    const char *bar = "\u2502";
    char *seg = out;
    for (;;) {
        char *end = strstr(seg, bar);
        char *stop = end ? end : seg + strlen(seg);
        bool values = false, other = false;
        for (char *p = seg; p < stop; p++) {
            if (isdigit((unsigned char)*p))
                values = true;
            else if (*p != ' ' && *p != '-' && *p != '.' && (unsigned char)*p < 0x80)
                other = true;
            else if ((unsigned char)*p >= 0x80 && strncmp(p, "\u00b7", 2) != 0 &&
                     (unsigned char)*p != 0xb7)
                other = true;
        }
        if (values && !other)
            for (char *p = seg; p < stop; p++)
                if (isdigit((unsigned char)*p)) *p = ' ';
        if (!end) break;
        seg = end + strlen(bar);
    }
    walk_blank_glyphs(out);
    /* a run of three or more numbers separated by spaces ("giving 6 10 14 18"): values */
    for (char *p = out; *p;) {
        if (!isdigit((unsigned char)*p) || (p > out && p[-1] != ' ')) {
            p++;
            continue;
        }
        char *q = p;
        int nn = 0;
        char *last = p;
        while (isdigit((unsigned char)*q)) {
            while (isdigit((unsigned char)*q))
                q++;
            nn++;
            last = q;
            if (*q != ' ' || !isdigit((unsigned char)q[1])) break;
            q++;
        }
        if (nn >= 3)
            for (char *r = p; r < last; r++)
                if (isdigit((unsigned char)*r)) *r = ' ';
        p = last > p ? last : p + 1;
    }
}

/* Are a holds answer's values some rank's input in the scene shown? A slide gives its
 * inputs: a box showing one is no answer given away (predict.h's rule too). */
static bool walk_is_input(const struct walk *w, const struct walk_ans *a)
{
    const struct trace *t = w->app ? screen_trace(w->app) : NULL;
    if (!t || !t->plan || t->nsnap == 0) return false;
    if (a->lo + a->nvals > t->plan->work_len) return false;
    for (int q = 0; q < t->plan->nranks; q++) {
        const float *v = trace_buf(t, 0, q);
        const uint32_t *m = trace_mask(t, 0, q);
        size_t i = 0;
        for (; i < a->nvals; i++) {
            bool has = !isnan(a->vals[i]);
            if (has != !!m[a->lo + i] || (has && v[a->lo + i] != a->vals[i])) break;
        }
        if (i == a->nvals) return true;
    }
    return false;
}

/* Are the boxes on this frame: rank 0's box label, or its row? */
static bool walk_boxes_shown(const struct walk *w)
{
    for (int y = 0; y < w->nlines; y++) {
        const char *l = w->line[y] + strspn(w->line[y], " ");
        if (strstr(l, "\u250c rank 0 ") || strncmp(l, "r0  \u2502", 7) == 0) return true;
    }
    return false;
}

/* Holds answer a spread over the boxes of the scene drawn: each asked value (two or more;
 * one on the exercise's own slide, where a key changed its scene: the reduce's 6 in slot 0
 * of "6 10" at count 2) in its slot of some box that was not hidden, and not that rank's
 * input there. The values
 * come from the scene's trace; which boxes were hidden, from the drawing just done. */
static bool walk_spread(const struct walk *w, const struct walk_ans *a, bool own)
{
    const struct app *ap = w->app;
    const struct trace *t = ap ? screen_trace(ap) : NULL;
    if (!t || !t->plan || t->nsnap == 0) return false;
    if (!walk_boxes_shown(w)) return false;
    size_t st = app_step(ap), data = 0, seen = 0;
    if (st >= t->nsnap || a->lo + a->nvals > t->plan->work_len) return false;
    size_t n_data = 0;
    for (size_t i = 0; i < a->nvals; i++)
        n_data += !isnan(a->vals[i]);
    if (n_data < 2 && !own) return false;
    bool data_one = n_data == 1;
    for (size_t i = 0; i < a->nvals; i++) {
        if (isnan(a->vals[i])) continue;
        data++;
        bool any = false;
        for (int q = 0; q < t->plan->nranks && q < CV_MAX_RANKS && !any; q++) {
            if (app_box_hidden(ap, q, (long)st)) continue;
            if (data_one && q != a->e->rank) continue; /* one value: the asked rank's box */
            size_t k = a->lo + i;
            const float *v = trace_buf(t, st, q), *in = trace_buf(t, 0, q);
            const uint32_t *m = trace_mask(t, st, q), *im = trace_mask(t, 0, q);
            any = m[k] && v[k] == a->vals[i] && !(im[k] && in[k] == a->vals[i]);
        }
        seen += any;
    }
    return (data >= 2 || (own && data == 1)) && seen == data;
}

/* Does a box of the frame (rank q, at snapshot st) show asked value i of a in its slot, not
 * that rank's input there? */
static bool walk_shows(const struct trace *t, size_t st, int q, const struct walk_ans *a,
                       size_t i)
{
    size_t k = a->lo + i;
    const float *v = trace_buf(t, st, q), *in = trace_buf(t, 0, q);
    const uint32_t *m = trace_mask(t, st, q), *im = trace_mask(t, 0, q);
    return !isnan(a->vals[i]) && m[k] && v[k] == a->vals[i] && !(im[k] && in[k] == a->vals[i]);
}

/* Part of holds answer a beside hidden boxes: a box not hidden that shows one of the asked
 * values in its slot (not that rank's input there) where, on the exercise's own scene (the
 * scene shown differs from it in its step alone), the asked step is reached (rank 3's
 * finished 72 beside rank 0's hidden box, when rank 0's box at step 4 is asked), or where
 * every asked value (two or more) stands in its slot of some box, hidden or not (a
 * reduce-scatter's 68 on rank 2 beside the hidden 60, 64 and 72 of an all-reduce's end). */
static bool walk_partial(const struct walk *w, const struct walk_ans *a)
{
    const struct app *ap = w->app;
    const struct trace *t = ap ? screen_trace(ap) : NULL;
    const struct lesson_exercise *e = a->e;
    if (!t || !t->plan || t->nsnap == 0 || a->lo + a->nvals > t->plan->work_len) return false;
    size_t st = app_step(ap);
    if (st >= t->nsnap || !walk_boxes_shown(w)) return false;
    int W = t->plan->nranks < CV_MAX_RANKS ? t->plan->nranks : CV_MAX_RANKS;
    bool own =
        !(screen_scene_diff(&ap->sc, &e->scene) & ~(SF_STEP | SF_HL | SF_AUTOPLAY | SF_MEAS));
    size_t at = e->step == SCENE_STEP_END ? app_nsteps(ap) : (size_t)e->step;
    bool part = own && st >= at;
    if (!part) { /* spread over the boxes, hidden or not */
        size_t data = 0, seen = 0;
        for (size_t i = 0; i < a->nvals; i++) {
            if (isnan(a->vals[i])) continue;
            data++;
            bool any = false;
            for (int q = 0; q < W && !any; q++)
                any = walk_shows(t, st, q, a, i);
            seen += any;
        }
        part = data >= 2 && seen == data;
    }
    if (!part) return false;
    for (int q = 0; q < W; q++) {
        if (app_box_hidden(ap, q, (long)st)) continue;
        for (size_t i = 0; i < a->nvals; i++)
            if (walk_shows(t, st, q, a, i)) return true;
    }
    return false;
}

/* Is n a form of step count ans on the frame: ans itself, or, in the slice view of a plan
 * of ans steps, its ticks (the frames the view steps through: 2 slices make 14 of 7)? */
static bool walk_count_form(const struct walk *w, double ans, long n)
{
    const struct app *ap = w->app;
    if (n == (long)ans) return true;
    const struct plan *pl = ap && ap->sc.slice_view ? screen_plan(ap) : NULL;
    return pl && pl->nsteps == (size_t)ans && n == (long)app_nsteps(ap);
}

/* The slice view's grid and sentence as they give a step count (walk_count_form): a row of
 * tick numbers ending at one ("tick 1 2 ... 14") or with one masked among them
 * ("6 ? 8": the 7 it hides is there), a link row with as many cells (more than the three
 * ticks a hidden count leaves: columns to count), "14 ticks", "7 chunk steps", "tick 5 of
 * 14". */
static bool walk_count_grid(const struct walk *w, double ans, const char *line)
{
    const char *s = line + strspn(line, " ");
    if (strncmp(s, "tick ", 5) == 0 && isdigit((unsigned char)s[5 + strspn(s + 5, " ")])) {
        long prev = -1, last = -1;
        int n = 0;
        bool gap = false;
        for (const char *p = s + 5; *p;) {
            p += strspn(p, " ");
            if (*p == '?') {
                gap = prev >= 0;
                p++;
                continue;
            }
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p) break;
            if (gap && v == prev + 2 && walk_count_form(w, ans, prev + 1)) return true;
            gap = false;
            prev = last = v;
            n++;
            p = end;
        }
        if (n >= 2 && walk_count_form(w, ans, last)) return true;
    }
    const struct app *ap = w->app;
    if (ap && ap->sc.slice_view && strncmp(s, "r0", 2) == 0 && strstr(s, "▶")) {
        int cells = 0;
        for (const char *p = strstr(s, "▶"); *p; p++)
            cells += (isdigit((unsigned char)*p) && p[1] == '.') || strncmp(p, "·", 2) == 0;
        if (cells > 3 && walk_count_form(w, ans, cells)) return true;
    }
    for (const char *p = line; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > line && isdigit((unsigned char)p[-1])))
            continue;
        char *end;
        long v = strtol(p, &end, 10);
        if (strncmp(end, " ticks", 6) == 0 || strncmp(end, " chunk steps", 12) == 0 ||
            strncmp(end, " steps", 6) == 0)
            if (walk_count_form(w, ans, v)) return true;
        if (p >= line + 5 && strncmp(p - 5, "tick ", 5) == 0 && strncmp(end, " of ", 4) == 0 &&
            walk_count_form(w, ans, strtol(end + 4, NULL, 10)))
            return true;
        p = end - 1;
    }
    return false;
}

/* A count answer the frame gives by its counters: a header's or footer's "step i/N" (N
 * steps; "tick i/N" of the slice view) where the prompt counts steps, any form of that
 * count the slice view shows (walk_count_grid), and a transfer list's "+N more" beside the
 * entries shown (the step's transfers, from the scene's trace) where it counts messages. */
static bool walk_count_hit(const struct walk *w, const struct lesson_exercise *e, double ans,
                           const char *line)
{
    if (e->units[0] || !e->prompt || ans != round(ans) || ans < 1) return false;
    const struct app *ap = w->app;
    /* the last step's index is the count too: "step 6/?" at the end of a 6-step scene */
    bool at_end =
        ap && app_step(ap) == app_nsteps(ap) && walk_count_form(w, ans, (long)app_nsteps(ap));
    if (strcasestr(e->prompt, "steps")) { /* it counts steps (not "in one step, ...") */
        static const char *const words[] = {"step ", "tick "};
        for (size_t k = 0; k < ARRAY_LEN(words); k++)
            for (const char *p = strstr(line, words[k]); p; p = strstr(p + 1, words[k])) {
                long i, n;
                int used = 0;
                if (sscanf(p + 5, "%ld/%ld%n", &i, &n, &used) == 2 && used > 0 &&
                    walk_count_form(w, ans, n))
                    return true;
                if (sscanf(p + 5, "%ld/%n", &i, &used) == 1 && used > 0 && at_end &&
                    walk_count_form(w, ans, i))
                    return true;
            }
        if (walk_count_grid(w, ans, line)) return true;
    }
    if (strcasestr(e->prompt, "message") && ap && ap->sc.slice_view)
        for (const char *p = line; *p; p++) { /* the slice view's links: "56 of 56 links" */
            if (!isdigit((unsigned char)*p) || (p > line && isdigit((unsigned char)p[-1])))
                continue;
            char *end;
            long v = strtol(p, &end, 10), of;
            int used = 0;
            if ((strncmp(end, " links", 6) == 0 && v == (long)ans) ||
                (sscanf(end, " of %ld links%n", &of, &used) == 1 && used > 0 &&
                 of == (long)ans))
                return true;
            p = end - 1;
        }
    const struct trace *t = ap ? screen_trace(ap) : NULL;
    if ((strcasestr(e->prompt, "message") || strcasestr(e->prompt, "transfer")) && t &&
        strstr(line, " more")) {
        const struct plan *pl = t->plan; /* the trace's plan: the screen's plan */
        size_t st = app_step(ap);
        if (st == 0 || st > pl->nsteps) return false;
        long n = (long)pl->steps[st - 1].n, more;
        for (const char *p = strchr(line, '+'); p; p = strchr(p + 1, '+'))
            if (sscanf(p, "+%ld more", &more) == 1 && n == (long)ans) return true;
    }
    return false;
}

/* A number exercise's answer the scene draws rather than prints: the pipeline schedule's
 * grid of the parallelism screen, whose idle cells over all cells are the bubble fraction
 * (count them and the answer is there, whatever figure the panel hides). */
static bool walk_drawn_hit(const struct walk *w, double ans, double tol)
{
    const struct app *ap = w->app;
    if (!ap || ap->sc.screen != SCREEN_PARALLEL || ap->sc.scheme != TRAIN_PP) return false;
    struct train_config cfg;
    par_display_config(TRAIN_PP, ap->sc.nranks, ap->sc.schedule, ap->sc.overlap, &cfg);
    struct psched *ps = xcalloc(1, sizeof *ps);
    bool hit = psched_build(ps, cfg.schedule, ap->sc.nranks, cfg.microbatches) == CV_OK &&
               fabs(psched_bubble(ps) - ans) <= fmax(tol, 0.01) * fabs(ans);
    free(ps);
    return hit;
}

/* A box the frame drew as "?" (two values or more with data) whose values the frame shows
 * anyway: a box not hidden holding the same in every slot, or a row of its text with them
 * as a run ("every rank ends with 6 10 14 18" beside three boxes of 6 10 14 18 and a "?"
 * one). Partly masked: the mask hides nothing, or the rest gives it away. */
static void walk_part_mask(struct walk *w, size_t slide)
{
    const struct app *ap = w->app;
    const struct trace *t = ap ? screen_trace(ap) : NULL;
    if (!t || !t->plan || t->nsnap == 0 || !walk_boxes_shown(w)) return;
    size_t st = app_step(ap), L = t->plan->work_len;
    if (st >= t->nsnap || L == 0 || L > WALK_VALS) return;
    int W = t->plan->nranks < CV_MAX_RANKS ? t->plan->nranks : CV_MAX_RANKS;
    for (int q = 0; q < W; q++) {
        if (!app_box_hidden(ap, q, (long)st)) continue;
        const float *v = trace_buf(t, st, q);
        const uint32_t *m = trace_mask(t, st, q);
        double want[WALK_VALS];
        size_t data = 0;
        for (size_t i = 0; i < L; i++) {
            want[i] = m[i] ? v[i] : NAN;
            data += m[i] != 0;
        }
        if (data < 2) continue;
        const char *where = NULL;
        for (int q2 = 0; q2 < W && !where; q2++) {
            if (q2 == q || app_box_hidden(ap, q2, (long)st)) continue;
            const float *v2 = trace_buf(t, st, q2), *in = trace_buf(t, 0, q2);
            const uint32_t *m2 = trace_mask(t, st, q2), *im = trace_mask(t, 0, q2);
            size_t i = 0, given = 0;
            for (; i < L && !m[i] == !m2[i] && (!m[i] || v[i] == v2[i]); i++)
                given += !m[i] || (im[i] && in[i] == v[i]);
            /* the same as a box showing its own input: given (a broadcast's root) */
            if (i == L && given < L) where = "another box";
        }
        /* the narration's text, left of any border (the boxes' rows are above; an answer r
         * revealed is the open exercises' mask's business) */
        for (int y = 0; y < w->nlines && !where; y++) {
            char text[1024];
            snprintf(text, sizeof text, "%s", w->line[y]);
            char *bar = strstr(text, "\u2502");
            if (bar) *bar = '\0';
            if (!strstr(text, "Answer") && walk_holds_in(text, want, L)) where = w->line[y];
        }
        if (where) {
            char what[80];
            snprintf(what, sizeof what, "rank %d's box", q);
            walk_found(w, WALK_PART_MASK, slide, what, where);
        }
    }
}

/* ---- one frame ----------------------------------------------------------------------- */

/* s with its runs of spaces made one, a box border ("\u2502") dropped, and no space at its ends
 */
static void walk_squeeze(const char *s, char *out, size_t n)
{
    const char *bar = "\u2502";
    size_t o = 0;
    for (; *s && o + 1 < n; s++) {
        bool space = *s == ' ' || *s == '\n';
        if (strncmp(s, bar, strlen(bar)) == 0) {
            s += strlen(bar) - 1;
            space = true;
        }
        if (space && (o == 0 || out[o - 1] == ' ')) continue;
        out[o++] = space ? ' ' : *s;
    }
    while (o > 0 && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
}

static bool walk_is_border(const char *p)
{
    static const char *const b[] = {"\u2502", "\u2503", "\u2510", "\u2518", "\u2551", "|"};
    for (size_t i = 0; i < ARRAY_LEN(b); i++)
        if (strncmp(p, b[i], strlen(b[i])) == 0) return true;
    return false;
}

/* A "…" that ends a run of text: at the end of the row, before two spaces, or before
 * spaces and a border. */
static bool walk_cut(const char *line)
{
    const char *ell = "\u2026";
    for (const char *p = strstr(line, ell); p; p = strstr(p + 1, ell)) {
        const char *q = p + strlen(ell);
        if (!*q || strncmp(q, "  ", 2) == 0) return true;
        while (*q == ' ')
            q++;
        if (!*q || walk_is_border(q)) return true;
    }
    return false;
}

/* A row of the screen's own status: the top row (the player's lesson, slide and score; the
 * presenter's title) and the bottom rows (the presenter's footer; the player's message or
 * hint row and key bar). Any "…" there is a cut, whatever follows it (" 00:02"). */
static bool walk_status_row(const struct walk *w, int y)
{
    int bottom = w->view == WALK_PLAYER ? 2 : 1;
    return y == 0 || y >= w->nlines - bottom;
}

/* Is line the slice view's row of tick numbers ("tick  13  14  15 ...")? Its run of
 * consecutive numbers counts ticks: no box's values (a holds answer such as 15 16 17 18
 * reads in any long enough count), though a step count may (walk_count_hit). */
static bool walk_tick_row(const struct walk *w, const char *line)
{
    if (!w->app || !w->app->sc.slice_view) return false;
    const char *p = line + strspn(line, " ");
    if (strncmp(p, "tick ", 5) != 0) return false;
    p += 5;
    p += strspn(p, " ");
    return isdigit((unsigned char)*p);
}

/* The answer number exercise a is asked with: in the player, on its own slide, the
 * variant the student is given; else the lecture's. */
static double walk_asked(const struct walk *w, const struct walk_ans *a, size_t slide)
{
    if (w->view != WALK_PLAYER || a->slide != slide || !w->app) return a->e->answer;
    const struct lesson_ui *u = lesson_ui_of(w->app);
    const struct lesson_slide *S = &u->L->slides[slide];
    for (size_t k = 0; k < S->nex; k++)
        if (&S->ex[k] == a->e) return u->ex[k].seed ? u->ex[k].var.answer : a->e->answer;
    return a->e->answer;
}

/* Does the frame show the scene's measurement size as its setting (unmasked)?
 * Only there is a figure of that size given: a figure that merely equals it where the frame
 * does not say it (a parallel panel's "DDP 64 MiB", the bytes a rank holds) is an answer. */
static bool walk_setting_shown(struct walk *w)
{
    for (int y = 0; y < w->nlines; y++) {
        /* the collectives' panel "size 64 MiB", the hierarchy's "64 MiB on each link" */
        if (!strstr(w->line[y], "size ") && !strstr(w->line[y], " on each link")) continue;
        const struct walk_fig *f = walk_figs(w, y);
        for (int i = 0; i < f->n; i++)
            if (f->dim[i] == DIM_BYTES &&
                predict_is_setting(&w->app->sc, f->v[i], f->half[i], f->unit[i]))
                return true;
    }
    return false;
}

/* Is the figure (v, half, unit) on row y given, not answered: one of the scene's own
 * settings (its ranks, count, measurement size: predict.h), or part of the question of one
 * of the slide's exercises (the row is a piece of its prompt, at the numbers asked: "each
 * step also spends 20 ms communicating" is that exercise's data)? */
static bool walk_given(struct walk *w, size_t slide, int y, double v, double half,
                       const char *unit)
{
    if (w->app && predict_is_setting(&w->app->sc, v, half, unit) &&
        (!unit[0] || walk_setting_shown(w)))
        return true;
    char row[1024];
    walk_squeeze(w->line[y], row, sizeof row);
    if (strlen(row) < 12 || slide >= w->L->nslides) return false;
    const struct lesson_slide *S = &w->L->slides[slide];
    bool given = false;
    for (size_t k = 0; k < S->nex && !given; k++) {
        const struct ex_variant *var = NULL;
        if (w->view == WALK_PLAYER && w->app) {
            const struct lesson_ui *u = lesson_ui_of(w->app);
            if (u->L == w->L && u->ex[k].seed) var = &u->ex[k].var;
        }
        char *p = ex_prompt(&S->ex[k], var);
        size_t n = strlen(p) + 1;
        char *q = xmalloc(n);
        walk_squeeze(p, q, n);
        given = strstr(q, row) != NULL;
        free(q);
        free(p);
    }
    return given;
}

/* The frame's figures against the lecture answers of the later lessons' number exercises. */
static void walk_mark_later(struct walk *w)
{
    for (int y = 0; y < w->nlines; y++) {
        const struct walk_fig *f = walk_figs(w, y);
        size_t flat = 0;
        for (size_t l = 0; l < w->set->n; l++)
            for (size_t s = 0; s < w->set->v[l].nslides; s++)
                for (size_t k = 0; k < w->set->v[l].slides[s].nex; k++, flat++) {
                    const struct lesson_exercise *e = &w->set->v[l].slides[s].ex[k];
                    /* a small count or a fraction ("7 steps", "1/2") is on every other
                     * lesson's screens as something else: walk_distinct answers only */
                    if (l <= w->lesson || ex_answer_form(e) != EX_ANSWER_NUMBER ||
                        !walk_distinct(e) || w->seen_before[flat])
                        continue;
                    for (int i = 0; i < f->n && !w->seen_before[flat]; i++)
                        w->seen_before[flat] = walk_num_hit(e, e->answer, f, i, true);
                    if (w->seen_before[flat] && w->log && getenv("WALK_SEEN"))
                        fprintf(w->log, "seen %s (%s) in %s %s: %s\n", e->id, w->set->v[l].id,
                                w->L->id, w->frame, w->line[y]);
                }
    }
}

/* On slide k of the lesson walked: a number exercise whose lecture answer an earlier
 * lesson showed, asked at the lecture's numbers. */
static void walk_recall(struct walk *w, const struct lesson_ui *u, size_t slide)
{
    size_t flat = 0;
    for (size_t l = 0; l < w->lesson; l++)
        for (size_t s = 0; s < w->set->v[l].nslides; s++)
            flat += w->set->v[l].slides[s].nex;
    for (size_t s = 0; s < slide; s++)
        flat += w->set->v[w->lesson].slides[s].nex;
    const struct lesson_slide *S = &u->L->slides[slide];
    for (size_t k = 0; k < S->nex; k++)
        if (w->seen_before[flat + k] && u->ex[k].seed == 0) {
            snprintf(w->frame, sizeof w->frame, "exercise %zu", k + 1);
            walk_found(w, WALK_RECALL, slide, S->ex[k].id,
                       ex_has_variants(&S->ex[k]) ? "has variants" : "has no variants");
        }
}

/* What a real lecture's panel shows once the worker's training run finishes: the run of the
 * parallelism scene's lecture configuration (at one step, not the lecture's 5: its model
 * lines, D/B and the bytes a rank holds, are the same), posted into the screen's state as
 * the worker's result is (par_apply). Kept for the whole test: one run a configuration. */
static bool walk_same_cfg(const struct train_config *x, const struct train_config *y)
{
    return x->scheme == y->scheme && x->nranks == y->nranks && x->layers == y->layers &&
           x->dim == y->dim && x->batch == y->batch && x->steps == y->steps &&
           x->microbatches == y->microbatches && x->schedule == y->schedule &&
           x->overlap == y->overlap && x->prefetch == y->prefetch && x->seed == y->seed &&
           x->backend == y->backend && x->experts == y->experts && x->topk == y->topk &&
           x->capacity == y->capacity;
}

static void walk_trained(struct app *a)
{
    static struct train_summary *done[64];
    static size_t ndone;
    if (!a || a->sc.screen != SCREEN_PARALLEL || !PAR(a) || par_summary(a)) return;
    struct train_config want;
    par_lecture_of(a, &want);
    if (want.scheme < 0 || want.scheme >= TRAIN_SCHEME_COUNT) return;
    struct train_summary *s = NULL;
    for (size_t i = 0; i < ndone && !s; i++)
        if (walk_same_cfg(&done[i]->cfg, &want)) s = done[i];
    if (!s && ndone < ARRAY_LEN(done)) {
        struct train_config one = want;
        one.steps = 1;
        s = xcalloc(1, sizeof *s);
        char err[200];
        if (train_summary_run(&one, s, NULL, err, sizeof err) != CV_OK) {
            free(s);
            return;
        }
        s->cfg = want;
        done[ndone++] = s;
    }
    if (!s) return;
    PAR(a)->sum[want.scheme] = *s;
    PAR(a)->have[want.scheme] = true;
}

/* A frame of a slide shows its lesson's title, whole or short (lesson_short_title), on some
 * row: a student or a room that looks up knows which lesson this is. */
static void walk_title(struct walk *w, size_t slide)
{
    /* the list of lessons is no slide; an answer r revealed to the room takes the footer's
     * room (present.c) until the next press */
    if (strncmp(w->frame, "the list", 8) == 0 || w->revealed) return;
    const char *t = w->L->title ? w->L->title : "", *s = lesson_short_title(w->L);
    for (int y = 0; y < w->nlines; y++)
        if ((t[0] && strstr(w->line[y], t)) || strstr(w->line[y], s)) return;
    char what[300];
    snprintf(what, sizeof what, "neither \"%s\" nor its short title", t);
    walk_found(w, WALK_NO_TITLE, slide, what, w->nlines ? w->line[w->nlines - 1] : "");
}

static void walk_check(struct walk *w, size_t slide)
{
    w->c->frames++;
    walk_read(w);
    static FILE *dump;
    if (!dump && getenv("WALK_DUMP")) dump = fopen(getenv("WALK_DUMP"), "a");
    if (dump) {
        size_t deckno = slide + 1;
        if (w->deck)
            for (size_t l = 0; l < w->deck->n && strcmp(w->deck->v[l].id, w->L->id) != 0; l++)
                deckno += w->deck->v[l].nslides;
        fprintf(dump, "=== %s %dx%d %s slide %zu deck %zu %s\n",
                w->view == WALK_PLAYER ? "player" : "presenter", w->cols, w->rows, w->L->id,
                slide + 1, deckno, w->frame);
        for (int y = 0; y < w->nlines; y++)
            fprintf(dump, "%s\n", w->line[y]);
        fflush(dump);
    }
    const char *last;
    long cuts = draw_cut_count(&last);
    if (cuts > w->cuts_seen) {
        char what[200];
        snprintf(what, sizeof what, "cut without a mark: %s", last);
        walk_found(w, WALK_CUT, slide, what, last);
    }
    w->cuts_seen = cuts;
    for (int y = 0; y < w->nlines; y++)
        if (walk_cut(w->line[y]) || (walk_status_row(w, y) && strstr(w->line[y], "\u2026"))) {
            char t[300];
            /* a status row: one place a slide (its step and clock change by the frame) */
            snprintf(t, sizeof t, "%s",
                     walk_status_row(w, y) ? (y ? "the bottom status row" : "the top row")
                                           : w->line[y]);
            /* the place: the row's text without the spaces around it */
            char *s = t;
            while (*s == ' ')
                s++;
            walk_found(w, WALK_CUT, slide, s, w->line[y]);
            /* a blank row under it (the key bar's row aside): there was room to wrap */
            bool blank = false;
            for (int b = y + 1; b < w->nlines - 1 && !blank; b++)
                blank = w->line[b][strspn(w->line[b], " ")] == '\0';
            if (blank) walk_found(w, WALK_CUT_FREE, slide, s, w->line[y]);
        }
    walk_title(w, slide);
    if (w->set) walk_mark_later(w);
    for (size_t k = 0; k < w->nans; k++) {
        const struct walk_ans *a = &w->ans[k];
        if (a->slide < slide) continue; /* asked before: answered or not, it was asked */
        if (a->slide == slide && a->k < w->revealed) continue; /* r showed it to the room */
        const struct lesson_exercise *e = a->e;
        for (int y = 0; y < w->nlines; y++) {
            const char *line = w->line[y];
            if (ex_answer_form(e) == EX_ANSWER_NUMBER) {
                if (a->slide == WALK_LATER && !a->distinct) break;
                const struct walk_fig *f = walk_figs(w, y);
                bool hit = false;
                double ans = walk_asked(w, a, slide);
                for (int i = 0; i < f->n && !hit; i++)
                    hit = walk_num_hit(e, ans, f, i, a->slide != slide) &&
                          !walk_given(w, slide, y, f->v[i], f->half[i], f->unit[i]);
                if (a->slide != WALK_LATER) hit = hit || walk_count_hit(w, e, ans, line);
                if (!hit && y == 0 && a->slide != WALK_LATER && !e->units[0] &&
                    walk_drawn_hit(w, ans, e->tolerance)) {
                    char what[300];
                    snprintf(what, sizeof what, "%s (the schedule's idle cells)", e->id);
                    walk_found(w, WALK_EARLY_NUMBER, slide, what, line);
                    break;
                }
                if (hit) {
                    walk_found(w, a->slide == WALK_LATER ? WALK_EARLY_DECK : WALK_EARLY_NUMBER,
                               slide, e->id, line);
                    break;
                }
            } else if (ex_answer_form(e) == EX_ANSWER_VALUES && a->nvals >= 1 &&
                       (!a->single || a->slide == slide) && !walk_is_input(w, a) &&
                       !walk_tick_row(w, line)) {
                if (walk_holds_in(line, a->vals, a->nvals) ||
                    walk_holds_wrapped(w, y, a->vals, a->nvals)) {
                    walk_found(w, a->slide == WALK_LATER ? WALK_EARLY_DECK : WALK_EARLY_HOLDS,
                               slide, e->id, line);
                    break;
                }
                if (y == 0 && walk_spread(w, a, a->slide == slide)) {
                    char what[300];
                    snprintf(what, sizeof what, "%s (its values over the boxes)", e->id);
                    walk_found(w, a->slide == WALK_LATER ? WALK_EARLY_DECK : WALK_EARLY_HOLDS,
                               slide, what, line);
                    break;
                }
                if (y == 0 && walk_partial(w, a)) {
                    char what[300];
                    snprintf(what, sizeof what, "%s (part of it, beside the hidden box)",
                             e->id);
                    walk_found(w, a->slide == WALK_LATER ? WALK_EARLY_DECK : WALK_EARLY_HOLDS,
                               slide, what, line);
                    break;
                }
            } else if (ex_answer_form(e) == EX_ANSWER_OPTION &&
                       ((a->slide == slide && walk_shows_hit(w, y, e)) ||
                        (a->slide > slide && strchr(a->choice, '=') &&
                         strstr(line, a->choice)))) {
                walk_found(w, WALK_EARLY_CHOICE, slide, e->id, line);
                break;
            }
        }
    }
    walk_part_mask(w, slide);
    /* the next frame: as after the worker's run finished */
    walk_trained((struct app *)w->app);
}

/* ---- the player ---------------------------------------------------------------------- */

static void walk_key(struct app *a, int ch)
{
    if (a->frame && a->frame->key && a->frame->key(a, ch)) return;
    enum ui_action act = app_key_action(a, ch);
    if (act == ACT_NONE) return;
    a->msg[0] = '\0';
    app_do(a, act, now_s());
}

struct app *walk_app(void)
{
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    a->auto_measure = false;
    a->utf8 = true;
    a->g = glyphs_get(true);
    theme_init(&a->th, true);
    a->color = a->th.color;
    app_backend_text(a);
    return a;
}

static void walk_set_step(struct app *a, long st)
{
    struct scene next = a->sc;
    next.step = st;
    a->playing = false;
    char err[200];
    app_set_scene(a, &next, err, sizeof err);
}

/* Every frame of the slide's scene (and the scene alone where the text is alone). */
static void walk_steps(struct walk *w, struct app *a, struct lesson_ui *u, size_t k,
                       const char *how)
{
    long n = u->scene_ok ? (long)app_nsteps(a) : 0;
    struct lesson_layout lay;
    lesson_layout((struct rect){0, 0, w->rows, w->cols}, true, false, &lay);
    for (long st = 0; st <= n; st++) {
        if (u->scene_ok) walk_set_step(a, st);
        u->scroll = 0;
        u->scene_alone = false;
        frame_draw(a);
        snprintf(w->frame, sizeof w->frame, "%sstep %ld", how, st);
        walk_check(w, k);
        if (u->scene_ok && lay.compact) {
            u->scene_alone = true;
            frame_draw(a);
            snprintf(w->frame, sizeof w->frame, "%sstep %ld (scene alone)", how, st);
            walk_check(w, k);
            u->scene_alone = false;
        }
    }
}

#define WALK_STATES 32

/* Scenes a and b alike but for their step and pace? */
static bool walk_same_scene(const struct scene *a, const struct scene *b)
{
    struct scene x = *a, y = *b;
    x.step = y.step = 0;
    x.autoplay = y.autoplay = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

/* The keys the slide asks the student to press (op, algorithm, ranks ...): every scene they
 * reach, pressed in any order and any number of times (a key that cycles, as `a` through
 * the algorithms, and its combinations with the others: tree at W=8), each walked frame by
 * frame; then the slide's own scene again. Keys that leave the slide, answer, give up, write
 * files or measure are not pressed. */
static void walk_keys(struct walk *w, struct app *a, struct lesson_ui *u, size_t k)
{
    int keys[16], use[16];
    size_t n = lesson_keys_asked(u->L, k, keys, 16), nuse = 0;
    for (size_t i = 0; i < n; i++) {
        int ch = keys[i];
        if (strchr("npqSHvLz0jkmeb?\t\r\n\033", ch) || ch == KEY_ENTER || ch == KEY_UP ||
            ch == KEY_DOWN || ch == KEY_LEFT || ch == KEY_RIGHT || ch == KEY_NPAGE ||
            ch == KEY_PPAGE || ch == KEY_HOME || ch == KEY_END || ch == KEY_BACKSPACE ||
            ch == ' ' || ch > 255)
            continue;
        use[nuse++] = ch;
    }
    if (!nuse) return;
    struct scene *seen = xcalloc(WALK_STATES, sizeof *seen);
    char(*how)[64] = xcalloc(WALK_STATES, sizeof *how);
    size_t ns = 0;
    seen[ns++] = a->sc;
    for (size_t q = 0; q < ns; q++)
        for (size_t i = 0; i < nuse && ns < WALK_STATES; i++) {
            struct scene from = seen[q];
            char err[200];
            if (app_set_scene(a, &from, err, sizeof err) != CV_OK) continue;
            walk_key(a, use[i]);
            bool known = false;
            for (size_t j = 0; j < ns && !known; j++)
                known = walk_same_scene(&seen[j], &a->sc);
            if (known) continue;
            seen[ns] = a->sc;
            char next[sizeof how[0]]; /* how[q] and how[ns] differ (q < ns): one at a time */
            snprintf(next, sizeof next, "%s%c ", how[q], use[i]);
            memcpy(how[ns], next, sizeof next);
            walk_steps(w, a, u, k, how[ns]);
            ns++;
        }
    free(how);
    free(seen);
    walk_key(a, '0');
}

/* The keys a student presses on any slide without being asked (the scene's own: another
 * collective, algorithm, count, op, root, input, ranks; the parallelism screen's schedule
 * and overlap), each once from the slide's scene, then End: where a holds exercise of the
 * slide or a later one is open, the end of every scene one key away shows none of it (the
 * reduce's 6 in slot 0 of "6 10" after c). One frame a key: the walk stays fast. */
static void walk_stray_keys(struct walk *w, struct app *a, struct lesson_ui *u, size_t k)
{
    bool holds = false;
    for (size_t s = k; s < u->L->nslides && !holds; s++)
        for (size_t e = 0; e < u->L->slides[s].nex && !holds; e++)
            holds = ex_answer_form(&u->L->slides[s].ex[e]) == EX_ANSWER_VALUES;
    if (!holds || !u->scene_ok) return;
    static const char keys[] = "12345678a+-orcCigO";
    struct lesson_layout lay;
    lesson_layout((struct rect){0, 0, w->rows, w->cols}, true, false, &lay);
    struct scene from = a->sc;
    for (const char *c = keys; *c; c++) {
        char err[200];
        if (app_set_scene(a, &from, err, sizeof err) != CV_OK) break;
        walk_key(a, *c);
        if (walk_same_scene(&from, &a->sc)) continue;
        walk_set_step(a, (long)app_nsteps(a));
        u->scroll = 0;
        u->scene_alone = lay.compact;
        frame_draw(a);
        snprintf(w->frame, sizeof w->frame, "%c End%s", *c,
                 lay.compact ? " (scene alone)" : "");
        walk_check(w, k);
        u->scene_alone = false;
    }
    walk_key(a, '0');
}

/* Does an exercise of slide k or a later one of the lesson count steps (a number without a
 * unit whose prompt says "step")? */
static bool walk_counts_steps(const struct lesson *L, size_t k)
{
    for (size_t s = k; s < L->nslides; s++)
        for (size_t e = 0; e < L->slides[s].nex; e++) {
            const struct lesson_exercise *x = &L->slides[s].ex[e];
            if (ex_answer_form(x) == EX_ANSWER_NUMBER && !x->units[0] && x->prompt &&
                strcasestr(x->prompt, "step"))
                return true;
        }
    return false;
}

/* Where a step count is asked on slide k or later: the views a student may switch to (`V`:
 * slices, channels), at the slide's ranks and up to four more (`+`), each at its start,
 * its first tick and its end; on slide k's exercises' own numbers, then the lecture's (`L`).
 * Whatever form the count takes there (tick numbers, ticks, columns) is a count answer. */
static void walk_views(struct walk *w, struct app *a, struct lesson_ui *u, size_t k)
{
    if (!u->scene_ok || a->sc.screen != SCREEN_COLLECTIVES || !walk_counts_steps(u->L, k))
        return;
    struct lesson_layout lay;
    lesson_layout((struct rect){0, 0, w->rows, w->cols}, true, false, &lay);
    for (int lecture = 0; lecture < 2; lecture++) {
        if (lecture) walk_key(a, 'L');
        walk_key(a, '0');
        for (int more = 0; more <= 4; more++) {
            for (int i = 0; i < more; i++)
                walk_key(a, '+');
            for (int v = 0; v < 6; v++) {
                walk_key(a, 'V');
                if (!a->sc.slice_view) break;
                long n = (long)app_nsteps(a);
                long at[3] = {0, 1, n};
                for (int j = 0; j < 3; j++) {
                    if (at[j] > n) continue;
                    walk_set_step(a, at[j]);
                    u->scroll = 0;
                    u->scene_alone = lay.compact;
                    frame_draw(a);
                    snprintf(w->frame, sizeof w->frame, "%s+x%d V x%d step %ld%s",
                             lecture ? "L " : "", more, v + 1, at[j],
                             lay.compact ? " (scene alone)" : "");
                    walk_check(w, k);
                    u->scene_alone = false;
                }
            }
            walk_key(a, '0');
        }
    }
    walk_key(a, '0');
}

/* Press act in the player as it stands and put everything back: whether it did its thing
 * (no refusal said, and for Tab: the exercise it went to, in *went). */
static bool walk_press(struct app *a, struct lesson_ui *u, enum ui_action act, size_t *went)
{
    const struct lesson_slide *s = &u->L->slides[u->slide];
    if (keys_is_step_action(act)) return u->scene_ok && app_nsteps(a) > 0; /* a scene to step */
    switch (act) {
    case ACT_ANSWER:
    case ACT_HINT:
    case ACT_VARIANT:
    case ACT_SOLUTION:
    case ACT_EX_NEXT:
    case ACT_LECTURE:
        break;
    default:
        return true; /* the slide, help, quit...: always something */
    }
    struct lesson_ex_state keep = s->nex ? u->ex[u->cur] : (struct lesson_ex_state){0};
    size_t cur = u->cur;
    bool show = u->show_ex, editing = u->editing, alone = u->scene_alone;
    int scroll = u->scroll;
    a->msg[0] = '\0';
    struct scene next = a->sc;
    a->frame->action(a, act, &next);
    bool ok = a->msg[0] == '\0';
    if (went) *went = u->cur;
    a->msg[0] = '\0';
    u->cur = cur;
    if (s->nex) u->ex[cur] = keep;
    u->show_ex = show;
    u->editing = editing;
    u->input[0] = '\0';
    u->scene_alone = alone;
    u->scroll = scroll;
    return ok;
}

/* The key hints of the frame drawn (the bar's items, the text's "H: hint" and "Tab: ..."):
 * each pressed. */
static void walk_key_hints(struct walk *w, struct app *a, struct lesson_ui *u, size_t k)
{
    walk_read(w);
    const struct lesson_slide *s = &u->L->slides[k];
    char what[160];
    for (int i = 0; i < a->nbar; i++)
        if (!walk_press(a, u, a->bar[i].action, NULL)) {
            snprintf(what, sizeof what, "the bar's \"%s %s\"", a->bar[i].keys, a->bar[i].label);
            walk_found(w, WALK_DEAD_KEY, k, what, w->nlines ? w->line[w->nlines - 1] : "");
        }
    for (int y = 0; y < w->nlines; y++) {
        const char *l = w->line[y];
        if (strstr(l, "H: hint") && !walk_press(a, u, ACT_HINT, NULL))
            walk_found(w, WALK_DEAD_KEY, k, "the text's \"H: hint\"", l);
        if (strstr(l, "Tab: the next exercise") && u->cur + 1 >= s->nex)
            walk_found(w, WALK_DEAD_KEY, k, "\"Tab: the next exercise\" after the last", l);
        const char *t = strstr(l, "Tab: exercise ");
        size_t said = t ? strtoul(t + 14, NULL, 10) : 0, went = 0;
        if (t && (!walk_press(a, u, ACT_EX_NEXT, &went) || went + 1 != said))
            walk_found(w, WALK_DEAD_KEY, k, "the text's \"Tab: exercise K\"", l);
    }
}

/* Slide k's key hints with each exercise current and each number of its hints shown. */
static void walk_slide_hints(struct walk *w, struct app *a, struct lesson_ui *u, size_t k)
{
    const struct lesson_slide *s = &u->L->slides[k];
    size_t cur = u->cur;
    for (size_t e = 0; e < (s->nex ? s->nex : 1); e++) {
        u->cur = e;
        size_t nh = s->nex ? s->ex[e].nhints : 0;
        for (size_t h = 0; h <= nh; h++) {
            if (s->nex) u->ex[e].hints_shown = (int)h;
            u->show_ex = s->nex > 0; /* the exercise's lines on screen */
            u->scroll = 0;
            frame_draw(a);
            walk_key_hints(w, a, u, k);
        }
        if (s->nex) u->ex[e].hints_shown = 0;
    }
    u->cur = cur;
    u->scroll = 0;
    u->show_ex = false;
    /* the player's longest notices, shown whole at every size (never "…") */
    static const char *const notes[] = {
        "already training (x cancels)",
        "overlap applies to ddp, prefetch to zero3 (N switches scheme)",
        "only number exercises with ranged parameters have variants",
        "progress not saved: cannot write /home/someone/.local/state/collviz/progress: "
        "No space left on device"};
    for (size_t i = 0; i < ARRAY_LEN(notes); i++) {
        snprintf(a->msg, sizeof a->msg, "%s", notes[i]);
        frame_draw(a);
        snprintf(w->frame, sizeof w->frame, "notice %zu", i + 1);
        walk_check(w, k);
    }
    a->msg[0] = '\0';
}

static int walk_player_lesson(struct walk *w, const char *file, char *err, size_t errlen)
{
    struct app *a = walk_app();
    int rc = lesson_ui_open(a, file, err, errlen);
    if (rc != CV_OK) {
        app_free(a);
        free(a);
        return rc;
    }
    struct lesson_ui *u = lesson_ui_of(a);
    w->app = a;
    if (u->have_prog) { /* a student who has answered nothing; nothing saved */
        progress_free(&u->prog);
        u->have_prog = false;
    }
    u->warn[0] = '\0';
    a->frame->apply(a, SF_ALL);
    walk_collect(w, u->L);
    if (w->set && w->lesson == 0) { /* the list of lessons, each chosen in turn */
        const struct lesson *L = u->L;
        for (size_t i = 0; i < u->set.n; i++) {
            u->in_list = true;
            u->sel = i;
            frame_draw(a);
            snprintf(w->frame, sizeof w->frame, "the list, lesson %zu chosen", i + 1);
            walk_check(w, 0);
        }
        u->in_list = false;
        u->L = L;
        frame_draw(a);
    }
    for (size_t k = 0; k < u->L->nslides; k++) {
        if (k > 0) walk_key(a, 'n');
        if (u->slide != k) {
            rc = cv_err(err, errlen, CV_EINVAL, "walk: n did not reach slide %zu of %s", k + 1,
                        u->L->id);
            break;
        }
        if (w->set) walk_recall(w, u, k);
        walk_steps(w, a, u, k, "");
        walk_slide_hints(w, a, u, k);
        walk_keys(w, a, u, k);
        walk_stray_keys(w, a, u, k);
        walk_views(w, a, u, k);
        /* the narration's later pages */
        int page = w->rows > 8 ? w->rows - 6 : 1;
        for (int sc = page; sc <= u->scroll_max && sc > 0; sc += page) {
            u->scroll = sc;
            frame_draw(a);
            snprintf(w->frame, sizeof w->frame, "narration line %d", sc + 1);
            walk_check(w, k);
            if (sc < u->scroll_max && sc + page > u->scroll_max) sc = u->scroll_max - page;
        }
        u->scroll = 0;
    }
    w->app = NULL;
    app_free(a);
    free(a);
    return rc;
}

/* ---- the presenter ----------------------------------------------------------------- */

static void walk_pres_frame(void *ctx, const struct lesson *L, size_t slide, int page,
                            long step, size_t revealed)
{
    struct walk *w = ctx;
    if (w->L != L) walk_collect(w, L);
    int n = snprintf(w->frame, sizeof w->frame, "page %d", page + 1);
    if (step >= 0) n += snprintf(w->frame + n, sizeof w->frame - (size_t)n, " step %ld", step);
    if (revealed)
        snprintf(w->frame + n, sizeof w->frame - (size_t)n, " (r: %zu revealed)", revealed);
    w->revealed = revealed;
    walk_check(w, slide);
    w->revealed = 0;
}

/* ---- the deck ------------------------------------------------------------------------ */

int walk_deck(const char *path, enum walk_view view, int cols, int rows, struct walk_counts *c,
              FILE *log, int max_log, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    struct walk w = {.view = view,
                     .cols = cols,
                     .rows = rows,
                     .c = c,
                     .log = log,
                     .max_log = max_log,
                     .cuts_seen = draw_cut_count(NULL)};
    struct svg_offscreen o;
    int rc = svg_offscreen_open(&o, cols, rows, err, errlen);
    if (rc != CV_OK) return rc;
    if (view == WALK_PRESENTER) {
        struct app *a = walk_app();
        a->embedded = true;
        a->no_key_hints = true;
        a->room = true; /* the room's screen, as the presenter draws it */
        a->bar_row_free = true;
        a->surface = SURFACE_PRESENTER;
        a->big_digits = true;
        w.app = a;
        struct lesson_set deck;
        struct lesson_errors errs = {0};
        lesson_set_init(&deck);
        if (lesson_set_add(&deck, path, &errs) == CV_OK && !errs.n) w.deck = &deck;
        rc = present_walk(path, a, walk_pres_frame, &w, err, errlen);
        lesson_errors_free(&errs);
        lesson_set_free(&deck);
        app_free(a);
        free(a);
    } else {
        struct lesson_set set;
        struct lesson_errors errs = {0};
        lesson_set_init(&set);
        rc = lesson_set_add(&set, path, &errs);
        if (rc != CV_OK || errs.n)
            rc = cv_err(err, errlen, CV_EINVAL, "%s",
                        errs.n ? errs.msg[0] : "cannot read the lessons");
        size_t nex = 0;
        for (size_t i = 0; i < set.n; i++)
            for (size_t k = 0; k < set.v[i].nslides; k++)
                nex += set.v[i].slides[k].nex;
        w.set = &set;
        w.seen_before = xcalloc(nex ? nex : 1, sizeof *w.seen_before);
        /* a folder: each lesson opened by its id from it, as the list opens it (the
         * player knows the lessons before it) */
        struct stat st;
        bool dir = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
        const char *was = getenv("COLLVIZ_LESSONS");
        char *keep = was ? xstrdup(was) : NULL;
        if (dir) setenv("COLLVIZ_LESSONS", path, 1);
        for (size_t i = 0; rc == CV_OK && i < set.n; i++) {
            w.lesson = i;
            rc = walk_player_lesson(&w, dir ? set.v[i].id : set.v[i].path, err, errlen);
        }
        if (dir && keep)
            setenv("COLLVIZ_LESSONS", keep, 1);
        else if (dir)
            unsetenv("COLLVIZ_LESSONS");
        free(keep);
        free(w.seen_before);
        lesson_errors_free(&errs);
        lesson_set_free(&set);
    }
    svg_offscreen_close(&o);
    for (size_t i = 0; i < w.nseen; i++)
        free(w.seen[i]);
    free(w.seen);
    free(w.ans);
    free(w.text);
    free(w.figs);
    return rc;
}
