/* lesson.c - `collviz lesson`: check lesson files, show one as JSON, compute an exercise's
 * variant, list the lessons with the student's progress. The interactive player is the
 * UI's; this file only reads lessons through src/lesson (the same parser the player uses).
 *
 *   collviz lesson check [--strict] PATH...      every error as file:line: message
 *   collviz lesson show FILE [--format json] [--notes]
 *   collviz lesson variant ID [--seed S] [--format json]
 *   collviz lesson grade ID [--seed S] ANSWER [--format json]
 *   collviz lesson list
 *   collviz lesson export PATH --format html -o OUT.html   (cli/export.c) */
#include "cli/cli.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/util.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "lesson/progress.h"
#include "lesson/types/types.h"
#include "core/text.h"
#include "ui/screens/lesson/lesson_keys.h"
#include "ui/app.h"

static void lesson_usage(FILE *f)
{
    fprintf(f,
            "usage: collviz lesson VERB [options]   (VERB --help for its options)\n"
            "       collviz lesson [FILE|ID|NN] [--backend B] [--no-measure] [--no-color] "
            "[--ascii]\n"
            "                          the interactive player: the list of lessons, or one\n"
            "                          lesson at its saved slide (keys: ? inside)\n"
            "\n"
            "Verbs:\n"
            "  check PATH...      check lesson files or folders; every error as "
            "file:line: message\n"
            "  show FILE          the parsed lesson (--format json for scripts)\n"
            "  variant ID         an exercise's numbers for a seed (--seed S)\n"
            "  grade ID ANSWER    grade one answer as the player would (--seed S)\n"
            "  list               the lessons with your progress\n"
            "  export PATH        a handout: --format html -o OUT.html (self-contained)\n"
            "  review             your past mistakes, each with what it was\n"
            "  reset [ID]         forget your progress: of one lesson, or of all\n"
            "\n"
            "The lessons: $COLLVIZ_LESSONS, else the first of ./lessons, lessons/ next to the\n"
            "program, ../share/collviz/lessons from its folder, the source tree's lessons/\n"
            "and the installed share/collviz/lessons that holds NN-*.md files.\n"
            "The lesson format is described in lessons/README.md.\n"
            "Exit status: 0 success, 2 bad input or a lesson with errors.\n");
}

/* Messages quote file names and lesson text: control characters are shown, never sent. */
static void print_errors(const struct lesson_errors *e)
{
    for (size_t i = 0; i < e->n; i++) {
        cv_fputs_safe(stderr, e->msg[i], false);
        fputc('\n', stderr);
    }
}

/* The verbs' options: each verb's table takes the entries below that it has. */
struct verb_opts {
    bool json, notes, strict;
    uint64_t seed;
    bool seed_set;
};

static int verb_set_format(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_format(v, &((struct verb_opts *)ctx)->json) ? 2 : OPT_GO;
}

static int verb_set_seed(void *ctx, const struct opt *self, const char *v)
{
    struct verb_opts *o = ctx;
    if (cli_parse_seed(v, &o->seed) != 0) return 2;
    o->seed_set = true;
    return OPT_GO;
}

#define VERB_FORMAT                                                                            \
    {                                                                                          \
        "format", 0, "F", "text or json (default text)", verb_set_format, 0                    \
    }
#define VERB_SEED                                                                              \
    {                                                                                          \
        "seed", 0, "S", "the variant's seed (default 0: the lecture's numbers)",               \
            verb_set_seed, 0                                                                   \
    }

/* bad options in the verbs' words: "OPT: unknown option (try --help)" */
static int verb_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    return cli_option_error(ch, opt, NULL);
}

/* Parse a verb's options with its table; usage and after are its --help around them.
 * Returns -1 to go on, else an exit status. */
static int verb_parse(int argc, char **argv, struct verb_opts *o, const char *verb,
                      const struct opt *table, const char *usage, const char *after)
{
    *o = (struct verb_opts){0};
    const struct opt_cmd cmd = {.prog = verb,
                                .opts = table,
                                .usage = usage,
                                .after = after,
                                .bad_option = verb_bad_option};
    return opt_parse(&cmd, argc, argv, o);
}

/* The lessons of the lessons folder (lesson_default_dir: $COLLVIZ_LESSONS, ./lessons, next to
 * the program...; its path in dir) into *set, problems in *errs. 0, or 2 after the one line
 * saying where it looked when no folder holds a lesson (*set empty). */
static int load_default_set(char *dir, size_t n, struct lesson_set *set,
                            struct lesson_errors *errs)
{
    lesson_set_init(set);
    if (!lesson_default_dir(dir, n))
        return cli_usage_error(
            "no lessons found: looked in %s (set COLLVIZ_LESSONS to a folder "
            "of NN-*.md lessons)",
            dir);
    lesson_set_add(set, dir, errs);
    return 0;
}

/* ---- check ------------------------------------------------------------------------------ */

#define CHECK_VARIANTS 200

static void push_msg(struct lesson_errors *e, const char *msg)
{
    e->msg = xrealloc(e->msg, (e->n + 1) * sizeof *e->msg);
    e->msg[e->n++] = xstrdup(msg);
}

/* The draws `lesson check` spends on one lesson's variants, all exercises together: 200
 * variants of 125 exercises whose where: takes 2 draws each on average (seconds). A
 * lesson past it is an error at the exercise where it ran out: its where: rejects most
 * draws (a student's variant would take as long). */
#define CHECK_MAX_DRAWS 50000

/* A scene block's `stops:` name steps of its scene: the scene is built as the presenter
 * builds it (no backend) and each stop must be in 0..its last step. */
static void check_stops(const struct lesson *L, struct lesson_errors *errs)
{
    struct app *a = NULL;
    for (size_t s = 0; s < L->nslides; s++) {
        const struct lesson_slide *S = &L->slides[s];
        if (!S->has_scene || !S->nstops) continue;
        if (!a) {
            a = xcalloc(1, sizeof *a);
            app_init(a);
            a->embedded = true;
        }
        struct scene sc = S->scene;
        char err[240], msg[600];
        if (app_set_scene(a, &sc, err, sizeof err) != CV_OK) continue; /* said elsewhere */
        long n = (long)app_nsteps(a);
        for (size_t k = 0; k < S->nstops; k++)
            if (S->stops[k] != SCENE_STEP_END && S->stops[k] > n) {
                snprintf(msg, sizeof msg,
                         "%s:%d: scene: stops: %ld, but the scene's last step is %ld (0..%ld, "
                         "or end)",
                         L->path, S->stops_line, S->stops[k], n, n);
                push_msg(errs, msg);
                break;
            }
    }
    if (a) {
        app_free(a);
        free(a);
    }
}

/* A bandwidth answer's variants must stay within a link: one of its where: conditions
 * names `answer`. Other answers need no bound. */
static bool answer_bounded(const struct lesson_exercise *x)
{
    enum ex_dim dim = DIM_NONE;
    if (ex_unit_lookup(x->units, &dim, NULL, NULL) != CV_OK || dim != DIM_BANDWIDTH)
        return true;
    for (size_t w = 0; w < x->nwhere; w++)
        for (const char *p = strstr(x->where[w], "answer"); p; p = strstr(p + 1, "answer"))
            if ((p == x->where[w] || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
                !(isalnum((unsigned char)p[6]) || p[6] == '_'))
                return true;
    return false;
}

/* Seeds 1..CHECK_VARIANTS of every exercise with variants: each must be drawn and meet its
 * constraints (ex_variant_check). One error per exercise, at its first bad seed. */
static void check_variants(const struct lesson *L, struct lesson_errors *errs)
{
    long draws = 0;
    for (size_t s = 0; s < L->nslides; s++)
        for (size_t e = 0; e < L->slides[s].nex; e++) {
            const struct lesson_exercise *x = &L->slides[s].ex[e];
            if (!ex_has_variants(x)) continue;
            if (!answer_bounded(x)) {
                char msg[600];
                snprintf(msg, sizeof msg,
                         "%s:%d: exercise %s: its variants' bandwidth is unbounded: add a "
                         "where: on answer (answer <= 900, NVLink's GB/s each way, or the "
                         "fastest link the lesson speaks of)",
                         L->path, x->line, x->id);
                push_msg(errs, msg);
            }
            for (uint64_t seed = 1; seed <= CHECK_VARIANTS; seed++) {
                struct ex_variant v;
                char err[300], msg[800];
                int rc = ex_variant(x, seed, &v, err, sizeof err);
                draws += v.draws;
                if (draws > CHECK_MAX_DRAWS) {
                    snprintf(msg, sizeof msg,
                             "%s:%d: exercise %s: the variants' where: rejects most draws: "
                             "the lesson's variants took more than %d draws (at variant "
                             "--seed %llu); loosen where: or narrow the ranges",
                             L->path, x->line, x->id, CHECK_MAX_DRAWS,
                             (unsigned long long)seed);
                    push_msg(errs, msg);
                    return;
                }
                if (rc != CV_OK || ex_variant_check(x, &v, err, sizeof err) != CV_OK) {
                    snprintf(msg, sizeof msg, "%s:%d: exercise %s, variant --seed %llu: %s",
                             L->path, x->line, x->id, (unsigned long long)seed, err);
                    push_msg(errs, msg);
                    break;
                }
            }
        }
}

/* The text of a narration block as the student reads it (spans joined). */
static char *block_text(const struct lesson_block *B)
{
    size_t len = 1;
    for (size_t k = 0; k < B->nspans; k++)
        len += strlen(B->spans[k].text) + 1;
    char *t = xmalloc(len), *o = t;
    for (size_t k = 0; k < B->nspans; k++) {
        if (B->spans[k].hard_break) *o++ = ' ';
        size_t l = strlen(B->spans[k].text);
        memcpy(o, B->spans[k].text, l);
        o += l;
    }
    *o = '\0';
    return t;
}

/* Does text name a choice exercise's right option (a short one, as a whole phrase)? */
static bool choice_in_text(const struct lesson_exercise *y, const char *text, char *found,
                           size_t n)
{
    if (ex_answer_form(y) != EX_ANSWER_OPTION || y->correct < 1 ||
        (size_t)y->correct > y->noptions)
        return false;
    const char *opt = y->options[y->correct - 1];
    size_t ol = strlen(opt);
    if (ol < 3 || ol > 40) return false;
    for (const char *p = text; *p; p++) {
        if (strncasecmp(p, opt, ol) != 0) continue;
        bool starts = p == text || !isalnum((unsigned char)p[-1]);
        bool ends = !isalnum((unsigned char)p[ol]);
        if (starts && ends) {
            snprintf(found, n, "%s", opt);
            return true;
        }
    }
    return false;
}

/* Where slide t's title or narration shows exercise x's answer (ex_answer_in_text): the
 * line, with the text in found; 0 when it does not. */
static int answer_line(const struct lesson_slide *T, const struct lesson_exercise *x,
                       char *found, size_t n)
{
    if (ex_answer_in_text(x, T->title, found, n)) return T->title_line;
    for (size_t b = 0; b < T->nblocks; b++) {
        char *t = block_text(&T->blocks[b]);
        bool hit = ex_answer_in_text(x, t, found, n);
        free(t);
        if (hit) return T->blocks[b].line;
    }
    /* the values may be spread over the slide's paragraphs: read them as one text */
    size_t len = strlen(T->title) + 2;
    char **parts = xcalloc(T->nblocks + 1, sizeof *parts);
    for (size_t b = 0; b < T->nblocks; b++) {
        parts[b] = block_text(&T->blocks[b]);
        len += strlen(parts[b]) + 1;
    }
    char *all = xmalloc(len), *o = all;
    o += sprintf(o, "%s ", T->title);
    for (size_t b = 0; b < T->nblocks; b++) {
        o += sprintf(o, "%s ", parts[b]);
        free(parts[b]);
    }
    free(parts);
    bool hit = ex_answer_in_text(x, all, found, n);
    free(all);
    return hit ? (T->nblocks ? T->blocks[0].line : T->title_line) : 0;
}

/* Predict first: a slide whose title or narration shows the answer of one of its own
 * exercises, or of an exercise on a later slide of the lesson (ex_answer_in_text), gets a
 * warning. */
static void check_answers_shown(const struct lesson *L, struct lesson_errors *warns)
{
    for (size_t s = 0; s < L->nslides; s++) {
        const struct lesson_slide *S = &L->slides[s];
        for (size_t e = 0; e < S->nex; e++) {
            const struct lesson_exercise *x = &S->ex[e];
            char found[80], msg[800];
            for (size_t t = 0; t <= s; t++) {
                int line = answer_line(&L->slides[t], x, found, sizeof found);
                if (!line) continue;
                if (t == s)
                    snprintf(msg, sizeof msg,
                             "%s:%d: warning: slide %zu shows the answer of its exercise %s "
                             "before it is asked ('%s')",
                             L->path, line, s + 1, x->id, found);
                else
                    snprintf(msg, sizeof msg,
                             "%s:%d: warning: slide %zu shows the answer of exercise %s, "
                             "asked later on slide %zu ('%s')",
                             L->path, line, t + 1, x->id, s + 1, found);
                push_msg(warns, msg);
            }
            /* a solution shown before a later exercise of the slide is asked */
            for (size_t later = e + 1; x->solution && later < S->nex; later++) {
                const struct lesson_exercise *y = &S->ex[later];
                char *sol = ex_text(x, NULL, x->solution);
                bool hit = ex_answer_in_text(y, sol, found, sizeof found) ||
                           choice_in_text(y, sol, found, sizeof found);
                free(sol);
                if (!hit) continue;
                snprintf(msg, sizeof msg,
                         "%s:%d: warning: the solution of exercise %s answers exercise %s, "
                         "asked after it ('%s')",
                         L->path, x->line, x->id, y->id, found);
                push_msg(warns, msg);
            }
        }
    }
}

/* Does found (a figure ex_answer_in_text found) carry a unit: a word or sign after its
 * number ("64 MiB", "32x"), not a bare number ("32", "2")? */
static bool found_has_unit(const char *found)
{
    for (const char *p = found; *p; p++)
        if (!isdigit((unsigned char)*p) && !strchr(" .,-+", *p)) return true;
    return false;
}

/* Is found (a figure with a unit) slide T's own measurement size (its scene's `size`)? */
static bool found_is_size(const struct lesson_slide *T, const char *found)
{
    char *end;
    double v = strtod(found, &end), b;
    char err[80];
    while (*end == ' ')
        end++;
    return T->has_scene && ex_unit_convert(v, end, "B", &b, err, sizeof err) == CV_OK &&
           fabs(b - (double)T->scene.meas_bytes) < 0.5;
}

/* Are holds exercises x and y asking the same box: the same values, empty slots alike? */
static bool same_holds(const struct lesson_exercise *x, const struct lesson_exercise *y)
{
    float a[SCENE_MAX_COUNT * CV_MAX_RANKS * 2], b[SCENE_MAX_COUNT * CV_MAX_RANKS * 2];
    bool ha[ARRAY_LEN(a)], hb[ARRAY_LEN(b)];
    size_t na = 0, nb = 0;
    char err[200];
    if (ex_holds_expected(x, a, ha, ARRAY_LEN(a), &na, err, sizeof err) != CV_OK ||
        ex_holds_expected(y, b, hb, ARRAY_LEN(b), &nb, err, sizeof err) != CV_OK)
        return false;
    size_t lx = x->slots ? (size_t)x->slot_lo : 0, hx = x->slots ? (size_t)x->slot_hi + 1 : na;
    size_t ly = y->slots ? (size_t)y->slot_lo : 0, hy = y->slots ? (size_t)y->slot_hi + 1 : nb;
    if (hx > na || hy > nb || hx - lx != hy - ly) return false;
    for (size_t i = 0; i < hx - lx; i++)
        if (ha[lx + i] != hb[ly + i] || (ha[lx + i] && a[lx + i] != b[ly + i])) return false;
    return true;
}

/* Predict first across lessons: the set is one course (the presenter's deck, the player's
 * list). A later lesson's exercise whose answer is recognisable elsewhere (ex_answer_distinct)
 * must not be stated by an earlier lesson's title or narration, nor be the answer of an
 * earlier lesson's exercise (asked again, it is recalled, not predicted): each is a
 * warning. What a slide gives is no answer: its scene's inputs and measurement size. A
 * number answer with a unit counts only stated with one ("64 MiB", "32x": a bare 32 is
 * another count). */
static void check_later_lessons(const struct lesson_set *set, struct lesson_errors *warns)
{
    for (size_t i = 0; i < set->n; i++) {
        const struct lesson *L = &set->v[i];
        for (size_t j = i + 1; j < set->n; j++)
            for (size_t s = 0; s < set->v[j].nslides; s++)
                for (size_t k = 0; k < set->v[j].slides[s].nex; k++) {
                    const struct lesson_exercise *y = &set->v[j].slides[s].ex[k];
                    if (!ex_answer_distinct(y)) continue;
                    bool num = ex_answer_form(y) == EX_ANSWER_NUMBER;
                    char found[80], msg[800];
                    for (size_t t = 0; t < L->nslides; t++) {
                        const struct lesson_slide *T = &L->slides[t];
                        int line = answer_line(T, y, found, sizeof found);
                        if (!line ||
                            (num && (!found_has_unit(found) || found_is_size(T, found))))
                            continue;
                        if (!num && T->has_scene && ex_holds_is_input_of(y, &T->scene))
                            continue;
                        snprintf(msg, sizeof msg,
                                 "%s:%d: warning: slide %zu states the answer of exercise %s "
                                 "of the later lesson %s ('%s'): say it in other numbers",
                                 L->path, line, t + 1, y->id, set->v[j].id, found);
                        push_msg(warns, msg);
                    }
                    for (size_t t = 0; t < L->nslides; t++)
                        for (size_t e = 0; e < L->slides[t].nex; e++) {
                            const struct lesson_exercise *x = &L->slides[t].ex[e];
                            char ans[400];
                            if (x->type != y->type) continue;
                            ex_answer_text(x, NULL, NULL, ans, sizeof ans);
                            if (num ? !ex_answer_in_text(y, ans, found, sizeof found) ||
                                          !found_has_unit(found)
                                    : !same_holds(x, y))
                                continue;
                            snprintf(msg, sizeof msg,
                                     "%s:%d: warning: exercise %s of the later lesson %s asks "
                                     "again what exercise %s answered ('%s'): ask it with "
                                     "other numbers",
                                     L->path, x->line, y->id, set->v[j].id, x->id,
                                     num ? found : ans);
                            push_msg(warns, msg);
                        }
                }
    }
}

/* Predict first for a choice: no title or narration the student reads before it (every
 * slide of the lesson up to it, and its own slide above it) tells its right option
 * (ex_choice_told). Lesson 03 told on slide 2 what its slide 7 asks. */
static void check_choices_told(const struct lesson *L, struct lesson_errors *warns)
{
    for (size_t s = 0; s < L->nslides; s++)
        for (size_t e = 0; e < L->slides[s].nex; e++) {
            const struct lesson_exercise *x = &L->slides[s].ex[e];
            if (ex_answer_form(x) != EX_ANSWER_OPTION) continue;
            for (size_t t = 0; t <= s; t++) {
                const struct lesson_slide *T = &L->slides[t];
                char found[80] = "", msg[800];
                int line =
                    ex_choice_told(x, T->title, true, found, sizeof found) ? T->title_line : 0;
                for (size_t b = 0; !line && b < T->nblocks; b++) {
                    if (t == s && T->blocks[b].line > x->line) break;
                    if (T->blocks[b].kind == LBLOCK_CODE) continue;
                    char *txt = block_text(&T->blocks[b]);
                    if (ex_choice_told(x, txt, false, found, sizeof found))
                        line = T->blocks[b].line;
                    free(txt);
                }
                if (!line) continue;
                snprintf(msg, sizeof msg,
                         "%s:%d: warning: slide %zu tells the right option of exercise %s "
                         "(asked on slide %zu) before it is asked ('%s'): ask, do not tell",
                         L->path, line, t + 1, x->id, s + 1, found);
                push_msg(warns, msg);
            }
        }
}

/* One text the student reads: a doubled full stop in it is a warning at line. */
static void double_stop_at(const struct lesson *L, int line, const char *what, const char *text,
                           struct lesson_errors *warns)
{
    const char *p = ex_double_stop(text);
    if (!p) return;
    const char *b = p - (p - text > 30 ? 30 : p - text);
    while (b > text && (*b & 0xc0) == 0x80)
        b--;
    char msg[800];
    snprintf(msg, sizeof msg, "%s:%d: warning: %s has a doubled full stop: '%.*s'", L->path,
             line, what, (int)(p + 2 - b), b);
    push_msg(warns, msg);
}

/* Every text an exercise shows, at its defaults, and a wrong choice's verdict as the
 * grader composes it from the option and its why. */
static void double_stops_exercise(const struct lesson *L, const struct lesson_exercise *x,
                                  struct lesson_errors *warns)
{
    const char *texts[4 + LESSON_MAX_WRONG] = {x->prompt, x->solution};
    size_t nt = 2;
    for (size_t w = 0; w < x->nwrong; w++)
        texts[nt++] = x->wrong[w].msg;
    for (size_t i = 0; i < nt; i++) {
        char *t = ex_text(x, NULL, texts[i]);
        double_stop_at(L, x->line, "an exercise's text", t, warns);
        free(t);
    }
    for (size_t h = 0; h < x->nhints; h++)
        double_stop_at(L, x->line, "a hint", x->hints[h], warns);
    for (size_t k = 0; k < x->noptions; k++) {
        char in[24];
        struct ex_grade g;
        snprintf(in, sizeof in, "%zu", k + 1);
        if (ex_grade(x, NULL, in, &g) == CV_OK)
            double_stop_at(L, x->line, "the verdict on an option", g.msg, warns);
    }
}

/* No doubled full stop ("..", not "...") in any text a student or the speaker reads. */
static void check_double_stops(const struct lesson *L, struct lesson_errors *warns)
{
    if (L->summary) double_stop_at(L, 1, "the summary", L->summary, warns);
    for (size_t s = 0; s < L->nslides; s++) {
        const struct lesson_slide *S = &L->slides[s];
        double_stop_at(L, S->title_line, "the title", S->title, warns);
        for (size_t b = 0; b < S->nblocks; b++) {
            if (S->blocks[b].kind == LBLOCK_CODE) continue;
            char *t = block_text(&S->blocks[b]);
            double_stop_at(L, S->blocks[b].line, "the narration", t, warns);
            free(t);
        }
        if (S->notes) double_stop_at(L, S->notes_line, "a speaker note", S->notes, warns);
        for (size_t e = 0; e < S->nex; e++)
            double_stops_exercise(L, &S->ex[e], warns);
    }
}

/* Every wrong option of a choice says why it is wrong (its text after ` | `): a student who
 * picks it learns more than "not right". */
static void check_option_whys(const struct lesson *L, struct lesson_errors *warns)
{
    for (size_t s = 0; s < L->nslides; s++)
        for (size_t i = 0; i < L->slides[s].nex; i++) {
            const struct lesson_exercise *x = &L->slides[s].ex[i];
            if (!ex_type_has_key((int)x->type, "option")) continue; /* a type with options */
            for (size_t k = 0; k < x->noptions; k++) {
                if ((int)k + 1 == x->correct || (x->option_why && x->option_why[k])) continue;
                char msg[700];
                snprintf(msg, sizeof msg,
                         "%s:%d: warning: exercise %s: wrong option %zu has no why (write "
                         "`option: text | why it is wrong`)",
                         L->path, x->line, x->id, k + 1);
                push_msg(warns, msg);
            }
        }
}

/* Does the text a student sees on slide S before answering (its title, narration, every
 * exercise's prompt, options and hints) say phrase, case ignored? */
static bool slide_says(const struct lesson_slide *S, const char *phrase)
{
    if (S->title && strcasestr(S->title, phrase)) return true;
    for (size_t b = 0; b < S->nblocks; b++) {
        char *t = block_text(&S->blocks[b]);
        bool hit = strcasestr(t, phrase) != NULL;
        free(t);
        if (hit) return true;
    }
    for (size_t e = 0; e < S->nex; e++) {
        const struct lesson_exercise *x = &S->ex[e];
        if (x->prompt && strcasestr(x->prompt, phrase)) return true;
        for (size_t k = 0; k < x->noptions; k++)
            if (strcasestr(x->options[k], phrase)) return true;
        for (size_t h = 0; h < x->nhints; h++)
            if (strcasestr(x->hints[h], phrase)) return true;
    }
    return false;
}

/* Predict first for a choice: a scene that steps on from where the slide opens it may come
 * to say the right option; `shows:` names what it then says, and the player and the
 * presenter hold the scene before it. A choice on such a slide says it (or `shows: nothing`);
 * a phrase the slide's own text says would hold nothing apart (and tells the answer). */
static void check_choice_shows(const struct lesson *L, struct lesson_errors *warns)
{
    for (size_t s = 0; s < L->nslides; s++) {
        const struct lesson_slide *S = &L->slides[s];
        for (size_t i = 0; i < S->nex; i++) {
            const struct lesson_exercise *x = &S->ex[i];
            if (!ex_type_has_key((int)x->type, "shows")) continue;
            char msg[700];
            for (size_t k = 0; k < x->nshows; k++)
                if (slide_says(S, x->shows[k])) {
                    snprintf(msg, sizeof msg,
                             "%s:%d: warning: exercise %s: shows: \"%s\" is in the slide's own "
                             "text: name words only the scene says once it tells the answer",
                             L->path, x->shows_line, x->id, x->shows[k]);
                    push_msg(warns, msg);
                }
            if (x->shows_line || !S->has_scene || S->scene.step == SCENE_STEP_END) continue;
            snprintf(
                msg, sizeof msg,
                "%s:%d: warning: exercise %s: the slide's scene steps on from step %ld and "
                "may come to tell this choice's answer: write `shows:` with what the "
                "screen then says (the scene is held before it until the choice is "
                "answered), or `shows: nothing`",
                L->path, x->line, x->id, S->scene.step);
            push_msg(warns, msg);
        }
    }
}

static const struct opt lesson_check_table[] = {
    {"strict", 0, NULL, "warnings count as errors", opt_true,
     offsetof(struct verb_opts, strict)},
    OPT_END,
};

static int lesson_check(int argc, char **argv)
{
    struct verb_opts o;
    int rc = verb_parse(
        argc, argv, &o, "lesson check", lesson_check_table,
        "usage: collviz lesson check [--strict] PATH...\n"
        "\n"
        "Check lesson files, or every NN-*.md lesson of a folder: front matter, slides,\n"
        "scenes, exercises (formulas evaluated at their defaults and range ends, holds\n"
        "exercises run on their scene), ids unique across all the lessons named, and\n"
        "every key the narration tells the student to press bound by the player there,\n"
        "and 200 variants of every exercise with variants (each within its constraints,\n"
        "with a finite answer, a whole number where the exercise says integer: yes, not\n"
        "the lecture's answer; a bandwidth answer bounded by a where: on answer).\n"
        "Warns where a slide's title or narration shows the answer of its own exercise\n"
        "or of an exercise on a later slide of the lesson or of a later lesson named\n"
        "with it, where a later lesson asks again what an exercise answered, where a\n"
        "wrong option of a choice does not say why it is wrong, where the narration\n"
        "above a choice restates its right option, where a choice on a slide whose\n"
        "scene steps on has no shows: line (or one the slide's own text says), and on\n"
        "a doubled full stop in any text.\n"
        "Prints every error and warning as file:line: message (on stderr) and one ok\n"
        "line per valid lesson (on stdout).\n",
        "Exit status: 0 all valid, 2 any error (or, with --strict, any warning).\n");
    if (rc >= 0) return rc;
    if (optind >= argc) return cli_usage_error("lesson check: which files or folders?");
    struct lesson_set set;
    lesson_set_init(&set);
    struct lesson_errors errs = {0}, warns = {0};
    for (int i = optind; i < argc; i++) {
        size_t before = set.n, nerr = errs.n;
        lesson_set_add(&set, argv[i], &errs);
        if (set.n == before && errs.n == nerr) {
            char msg[600];
            snprintf(msg, sizeof msg, "%s: no lessons here (lesson files are named NN-*.md)",
                     argv[i]);
            push_msg(&errs, msg);
        }
        for (size_t k = before; k < set.n; k++) {
            const struct lesson *L = &set.v[k];
            size_t nex = 0, bad = errs.n;
            for (size_t s = 0; s < L->nslides; s++)
                nex += L->slides[s].nex;
            lesson_keys_check(L, &errs); /* a key the player ignores */
            check_variants(L, &errs);
            check_stops(L, &errs);
            check_answers_shown(L, &warns);
            check_option_whys(L, &warns);
            check_choice_shows(L, &warns);
            check_choices_told(L, &warns);
            check_double_stops(L, &warns);
            for (size_t s = 0; s < L->nslides; s++) /* shown as code by Markdown */
                if (L->slides[s].indented_note_line) {
                    char msg[700];
                    snprintf(msg, sizeof msg,
                             "%s:%d: warning: a speaker note indented four spaces (a code "
                             "block in Markdown) is taken as a note and never shown; indent "
                             "it less",
                             L->path, L->slides[s].indented_note_line);
                    push_msg(&warns, msg);
                }
            if (errs.n == bad)
                cv_printf_safe("%s: ok (lesson %s, %zu slide%s, %zu exercise%s)\n", L->path,
                               L->id, L->nslides, L->nslides == 1 ? "" : "s", nex,
                               nex == 1 ? "" : "s");
        }
    }
    check_later_lessons(&set, &warns);
    fflush(stdout);
    size_t link_warns = 0; /* links a handout shows as text (lesson/narration.c) */
    for (size_t k = 0; k < set.n; k++) {
        print_errors(&set.v[k].warnings);
        link_warns += set.v[k].warnings.n;
    }
    print_errors(&errs);
    print_errors(&warns);
    rc = errs.n || (o.strict && (warns.n || link_warns)) ? 2 : 0;
    lesson_errors_free(&errs);
    lesson_errors_free(&warns);
    lesson_set_free(&set);
    return rc;
}

/* ---- show ------------------------------------------------------------------------------- */

static const char *block_kind_name(enum lesson_block_kind k)
{
    switch (k) {
    case LBLOCK_PARAGRAPH:
        return "paragraph";
    case LBLOCK_ITEM:
        return "item";
    case LBLOCK_QUOTE:
        return "quote";
    case LBLOCK_CODE:
        return "code";
    case LBLOCK_HEADING:
        return "heading";
    case LBLOCK_RULE:
        return "rule";
    }
    return "?";
}

/* "hints" and "solution" of e with the numbers of v (NULL = defaults) */
static void add_texts(cJSON *x, const struct lesson_exercise *e, const struct ex_variant *v)
{
    cJSON *hs = cJSON_AddArrayToObject(x, "hints");
    for (size_t i = 0; i < e->nhints; i++) {
        char *t = ex_text(e, v, e->hints[i]);
        cJSON_AddItemToArray(hs, cJSON_CreateString(t));
        free(t);
    }
    if (e->solution) {
        char *t = ex_text(e, v, e->solution);
        cJSON_AddStringToObject(x, "solution", t);
        free(t);
    } else {
        cJSON_AddNullToObject(x, "solution");
    }
}

static cJSON *exercise_json(const struct lesson_exercise *e)
{
    cJSON *x = cJSON_CreateObject();
    cJSON_AddStringToObject(x, "id", e->id);
    cJSON_AddStringToObject(x, "type", lesson_ex_type_name(e->type));
    cJSON_AddNumberToObject(x, "line", e->line);
    char *prompt = ex_prompt(e, NULL); /* whole: never cut */
    cJSON_AddStringToObject(x, "prompt", prompt);
    free(prompt);
    ex_type((int)e->type)->json(e, x); /* its own fields */
    add_texts(x, e, NULL);
    return x;
}

static cJSON *lesson_json(const struct lesson *L, bool notes)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "id", L->id);
    cJSON_AddStringToObject(root, "title", L->title ? L->title : "");
    if (L->minutes)
        cJSON_AddNumberToObject(root, "minutes", L->minutes);
    else
        cJSON_AddNullToObject(root, "minutes");
    if (L->summary)
        cJSON_AddStringToObject(root, "summary", L->summary);
    else
        cJSON_AddNullToObject(root, "summary");
    cJSON_AddStringToObject(root, "path", L->path);
    cJSON *slides = cJSON_AddArrayToObject(root, "slides");
    for (size_t i = 0; i < L->nslides; i++) {
        const struct lesson_slide *S = &L->slides[i];
        cJSON *sj = cJSON_CreateObject();
        cJSON_AddNumberToObject(sj, "index", (double)i);
        cJSON_AddNumberToObject(sj, "line", S->line);
        cJSON_AddStringToObject(sj, "title", S->title);
        cJSON *nar = cJSON_AddArrayToObject(sj, "narration");
        for (size_t b = 0; b < S->nblocks; b++) {
            const struct lesson_block *B = &S->blocks[b];
            cJSON *bj = cJSON_CreateObject();
            cJSON_AddStringToObject(bj, "kind", block_kind_name(B->kind));
            cJSON_AddNumberToObject(bj, "line", B->line);
            if (B->kind == LBLOCK_ITEM || B->kind == LBLOCK_QUOTE)
                cJSON_AddNumberToObject(bj, "depth", B->depth);
            if (B->kind == LBLOCK_ITEM) {
                cJSON_AddNumberToObject(bj, "ordinal", B->ordinal);
                cJSON_AddBoolToObject(bj, "first", B->first);
            }
            if (B->kind == LBLOCK_HEADING) cJSON_AddNumberToObject(bj, "level", B->ordinal);
            cJSON *spans = cJSON_AddArrayToObject(bj, "spans");
            for (size_t k = 0; k < B->nspans; k++) {
                const struct lesson_span *sp = &B->spans[k];
                cJSON *spj = cJSON_CreateObject();
                cJSON_AddStringToObject(spj, "text", sp->text);
                if (sp->style & LSPAN_BOLD) cJSON_AddTrueToObject(spj, "bold");
                if (sp->style & LSPAN_ITALIC) cJSON_AddTrueToObject(spj, "italic");
                if (sp->style & LSPAN_CODE) cJSON_AddTrueToObject(spj, "code");
                if (sp->hard_break) cJSON_AddTrueToObject(spj, "break");
                cJSON_AddItemToArray(spans, spj);
            }
            cJSON_AddItemToArray(nar, bj);
        }
        cJSON_AddStringToObject(sj, "markdown", S->markdown);
        if (S->has_scene) {
            char sc[512];
            scene_format(&S->scene, sc, sizeof sc);
            cJSON_AddStringToObject(sj, "scene", sc);
        } else {
            cJSON_AddNullToObject(sj, "scene");
        }
        if (notes) {
            if (S->notes)
                cJSON_AddStringToObject(sj, "notes", S->notes);
            else
                cJSON_AddNullToObject(sj, "notes");
        }
        cJSON *ex = cJSON_AddArrayToObject(sj, "exercises");
        for (size_t e = 0; e < S->nex; e++)
            cJSON_AddItemToArray(ex, exercise_json(&S->ex[e]));
        cJSON_AddItemToArray(slides, sj);
    }
    return root;
}

static void show_text(const struct lesson *L, bool notes)
{
    cv_printf_safe("%s  (lesson %s", L->title ? L->title : "", L->id);
    if (L->minutes) cv_printf_safe(", %d minutes", L->minutes);
    cv_printf_safe(")\n");
    for (size_t i = 0; i < L->nslides; i++) {
        const struct lesson_slide *S = &L->slides[i];
        cv_printf_safe("\n[%zu] %s\n", i + 1, S->title);
        for (size_t b = 0; b < S->nblocks; b++) {
            const struct lesson_block *B = &S->blocks[b];
            if (B->kind == LBLOCK_RULE) {
                cv_printf_safe("  ----\n");
                continue;
            }
            cv_printf_safe("  ");
            if (B->kind == LBLOCK_ITEM && B->first && B->ordinal)
                cv_printf_safe("%*s%d. ", (B->depth - 1) * 2, "", B->ordinal);
            else if (B->kind == LBLOCK_ITEM)
                cv_printf_safe("%*s%s", (B->depth - 1) * 2, "", B->first ? "- " : "  ");
            if (B->kind == LBLOCK_QUOTE) cv_printf_safe("> ");
            for (size_t k = 0; k < B->nspans; k++) {
                if (B->spans[k].hard_break) cv_printf_safe("\n  ");
                cv_printf_safe("%s", B->spans[k].text);
            }
            cv_printf_safe("\n");
        }
        if (S->has_scene) {
            char sc[512];
            scene_format(&S->scene, sc, sizeof sc);
            cv_printf_safe("  scene: %s\n", sc);
        }
        if (notes && S->notes) cv_printf_safe("  notes: %s\n", S->notes);
        for (size_t e = 0; e < S->nex; e++) {
            const struct lesson_exercise *x = &S->ex[e];
            char num[40];
            char *prompt = ex_prompt(x, NULL); /* whole: never cut */
            cv_printf_safe("  exercise %s (%s): %s\n", x->id, lesson_ex_type_name(x->type),
                           prompt);
            free(prompt);
            if (ex_answer_form(x) == EX_ANSWER_NUMBER) {
                ex_format_number(x->answer, num, sizeof num);
                cv_printf_safe("    answer: %s %s\n", num, x->units);
            }
        }
    }
}

static const struct opt lesson_show_table[] = {
    VERB_FORMAT,
    {"notes", 0, NULL, "also the speaker notes", opt_true, offsetof(struct verb_opts, notes)},
    OPT_END,
};

static int lesson_show(int argc, char **argv)
{
    struct verb_opts o;
    int rc = verb_parse(
        argc, argv, &o, "lesson show", lesson_show_table,
        "usage: collviz lesson show FILE [--format text|json] [--notes]\n"
        "\n"
        "Print the parsed lesson: slides, titles, narration, scenes (as scene words),\n"
        "exercises with their answers computed. Speaker notes only with --notes\n"
        "(they are for the teacher, never for the audience's screen).\n",
        "Exit status: 0 success, 2 bad input or a lesson with errors.\n");
    if (rc >= 0) return rc;
    if (optind >= argc) return cli_usage_error("lesson show: which file?");
    if (optind + 1 < argc) return cli_usage_error("%s: unexpected argument", argv[optind + 1]);
    struct lesson L;
    struct lesson_errors errs = {0};
    if (lesson_load_file(argv[optind], &L, &errs) != CV_OK) {
        print_errors(&errs);
        lesson_errors_free(&errs);
        return 2;
    }
    if (o.json) {
        cli_json_print_pretty(lesson_json(&L, o.notes));
    } else {
        show_text(&L, o.notes);
    }
    lesson_free(&L);
    return 0;
}

/* ---- variant ---------------------------------------------------------------------------- */

static const struct opt lesson_variant_table[] = {
    VERB_SEED,
    VERB_FORMAT,
    OPT_END,
};

static int lesson_variant(int argc, char **argv)
{
    struct verb_opts o;
    int rc = verb_parse(
        argc, argv, &o, "lesson variant", lesson_variant_table,
        "usage: collviz lesson variant ID [--seed S] [--format text|json]\n"
        "\n"
        "The numbers of exercise ID for seed S: S = 0 (the default) gives the\n"
        "lecture's own numbers; another seed draws every param that has a range.\n"
        "Lessons are read from $COLLVIZ_LESSONS, else the first of ./lessons, lessons/ next\n"
        "to the program, ../share/collviz/lessons from its folder, the source tree's\n"
        "lessons/ and the installed share/collviz/lessons that holds NN-*.md files.\n"
        "Prints the variant's prompt, numbers, answer, hints and solution (all with the\n"
        "variant's own numbers).\n"
        "JSON: {\"id\", \"lesson\", \"seed\", \"prompt\", \"params\": {name: value}, "
        "\"answer\",\n"
        "\"units\", \"hints\", \"solution\"}.\n",
        "Exit status: 0 success, 2 bad input.\n");
    if (rc >= 0) return rc;
    if (optind >= argc) return cli_usage_error("lesson variant: which exercise id?");
    if (optind + 1 < argc) return cli_usage_error("%s: unexpected argument", argv[optind + 1]);
    const char *id = argv[optind];
    char dir[4096];
    struct lesson_set set;
    struct lesson_errors errs = {0};
    if (load_default_set(dir, sizeof dir, &set, &errs)) return 2;
    const struct lesson *L = NULL;
    const struct lesson_exercise *e = lesson_set_find_exercise(&set, id, &L);
    rc = 0;
    if (!e) {
        rc = cli_usage_error("no exercise '%s' in the lessons of %s%s", id, dir,
                             errs.n ? " (some have errors: collviz lesson check)" : "");
    } else if (!ex_type((int)e->type)->variants) {
        rc =
            cli_usage_error("exercise %s is a %s exercise: only number exercises have variants",
                            id, lesson_ex_type_name(e->type));
    } else {
        struct ex_variant v;
        char err[200];
        if (ex_variant(e, o.seed, &v, err, sizeof err) != CV_OK) {
            rc = cli_usage_error("%s --seed %llu: %s", id, (unsigned long long)o.seed, err);
        } else {
            char *prompt = ex_prompt(e, &v); /* whole: never cut */
            if (o.json) {
                cJSON *j = cJSON_CreateObject();
                cJSON_AddStringToObject(j, "id", e->id);
                cJSON_AddStringToObject(j, "lesson", L->id);
                cJSON_AddNumberToObject(j, "seed", (double)o.seed);
                cJSON_AddStringToObject(j, "prompt", prompt);
                cJSON *ps = cJSON_AddObjectToObject(j, "params");
                for (size_t i = 0; i < e->nparams; i++)
                    cJSON_AddNumberToObject(ps, e->params[i].name, v.param[i]);
                cJSON_AddNumberToObject(j, "answer", v.answer);
                cJSON_AddStringToObject(j, "units", e->units);
                add_texts(j, e, &v);
                cli_json_print_pretty(j);
            } else {
                char num[40];
                cv_printf_safe("%s\n", prompt);
                for (size_t i = 0; i < e->nparams; i++) {
                    ex_format_number(v.param[i], num, sizeof num);
                    cv_printf_safe("  %s = %s\n", e->params[i].name, num);
                }
                ex_format_number(v.answer, num, sizeof num);
                cv_printf_safe("answer: %s%s%s\n", num, e->units[0] ? " " : "", e->units);
                for (size_t i = 0; i < e->nhints; i++) {
                    char *t = ex_text(e, &v, e->hints[i]);
                    cv_printf_safe("hint %zu: %s\n", i + 1, t);
                    free(t);
                }
                if (e->solution) {
                    char *t = ex_text(e, &v, e->solution);
                    for (char *save = NULL, *l = strtok_r(t, "\n", &save); l;
                         l = strtok_r(NULL, "\n", &save))
                        cv_printf_safe("%s%s\n", l == t ? "solution: " : "          ", l);
                    free(t);
                }
            }
            free(prompt);
        }
    }
    lesson_errors_free(&errs);
    lesson_set_free(&set);
    return rc;
}

/* ---- grade ------------------------------------------------------------------------------ */

static const struct opt lesson_grade_table[] = {
    VERB_SEED,
    VERB_FORMAT,
    OPT_END,
};

static int lesson_grade(int argc, char **argv)
{
    struct verb_opts o;
    int rc = verb_parse(
        argc, argv, &o, "lesson grade", lesson_grade_table,
        "usage: collviz lesson grade ID [--seed S] [--format text|json] [--] ANSWER...\n"
        "\n"
        "Grade one answer to exercise ID as the player would: the variant of seed S\n"
        "(0, the default: the lecture's numbers), the same diagnosis of a wrong answer.\n"
        "The words of ANSWER are joined by spaces (60 64 68 72 for a holds exercise);\n"
        "put -- before an answer that starts with '-'.\n"
        "Lessons are read from $COLLVIZ_LESSONS, else the first of ./lessons, lessons/ next\n"
        "to the program, ../share/collviz/lessons from its folder, the source tree's\n"
        "lessons/ and the installed share/collviz/lessons that holds NN-*.md files.\n"
        "JSON: {\"id\", \"seed\", \"correct\", \"verdict\", \"message\", \"diagnosis\"}\n"
        "(diagnosis: \"\" when right, else what the mistake looks like: listed,\n"
        "power-of-ten, power-of-1024, gib-vs-gb, percent, factor-w, ring-factor,\n"
        "left-out-term, left-out-factor, all-divided, minus-one, ring-steps, factor-2,\n"
        "bits-vs-bytes, too-high, too-low, option, wrong-unit; holds: input, own-piece,\n"
        "phase-short, other-rank, op, other-step, order, elements).\n",
        "Exit status: 0 right, 1 wrong (a wrong number, option, unit or values), 2 bad\n"
        "input (no such exercise, a seed without a variant, an answer that is not one).\n");
    if (rc >= 0) return rc;
    if (optind >= argc) return cli_usage_error("lesson grade: which exercise id?");
    if (optind + 1 >= argc)
        return cli_usage_error("lesson grade %s: which answer?", argv[optind]);
    const char *id = argv[optind];
    char answer[512] = "";
    for (int i = optind + 1; i < argc; i++) {
        size_t l = strlen(answer);
        if (l + strlen(argv[i]) + 2 > sizeof answer)
            return cli_usage_error("lesson grade: the answer is longer than %zu bytes",
                                   sizeof answer - 2);
        snprintf(answer + l, sizeof answer - l, "%s%s", l ? " " : "", argv[i]);
    }
    char dir[4096];
    struct lesson_set set;
    struct lesson_errors errs = {0};
    if (load_default_set(dir, sizeof dir, &set, &errs)) return 2;
    const struct lesson_exercise *e = lesson_set_find_exercise(&set, id, NULL);
    struct ex_variant v;
    char err[300];
    rc = 0;
    if (!e) {
        rc = cli_usage_error("no exercise '%s' in the lessons of %s%s", id, dir,
                             errs.n ? " (some have errors: collviz lesson check)" : "");
    } else if (o.seed && !ex_type((int)e->type)->variants) {
        rc = cli_usage_error("exercise %s is a %s exercise: only number exercises have "
                             "variants (--seed)",
                             id, lesson_ex_type_name(e->type));
    } else if (ex_type((int)e->type)->variants &&
               ex_variant(e, o.seed, &v, err, sizeof err) != CV_OK) {
        rc = cli_usage_error("%s --seed %llu: %s", id, (unsigned long long)o.seed, err);
    } else {
        struct ex_grade g;
        ex_grade(e, ex_type((int)e->type)->variants ? &v : NULL, answer, &g);
        if (g.verdict == EX_WRONG_UNIT) snprintf(g.diagnosis, sizeof g.diagnosis, "wrong-unit");
        if (o.json) {
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "id", e->id);
            cJSON_AddNumberToObject(j, "seed", (double)o.seed);
            cJSON_AddBoolToObject(j, "correct", g.verdict == EX_RIGHT);
            cJSON_AddStringToObject(j, "verdict", ex_verdict_name(g.verdict));
            cJSON_AddStringToObject(j, "message", g.msg);
            cJSON_AddStringToObject(j, "diagnosis", g.diagnosis);
            cli_json_print_pretty(j);
        } else {
            cv_printf_safe("%s\n", g.msg);
        }
        rc = g.verdict == EX_RIGHT ? 0 : g.verdict == EX_BAD_INPUT ? 2 : 1;
    }
    lesson_errors_free(&errs);
    lesson_set_free(&set);
    return rc;
}

/* ---- list ------------------------------------------------------------------------------- */

static const struct opt lesson_list_table[] = {OPT_END};

/* The columns the list must fit in: the terminal's (stdout), else $COLUMNS, else 0 (no
 * bound: the one-line table a script reads). */
static int list_width(void)
{
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    char *end;
    long v = c ? strtol(c, &end, 10) : 0;
    return c && *c && !*end && v >= 20 && v <= 10000 ? (int)v : 0;
}

/* s wrapped at w columns, each line after `indent` spaces (a word longer than a line is
 * broken, never cut). */
static void list_wrapped(const char *s, int w, int indent)
{
    char lines[32][256];
    int n = text_wrap(s, w - indent, lines, 32, true);
    for (int i = 0; i < n; i++)
        cv_printf_safe("%*s%s\n", indent, "", lines[i]);
}

static int lesson_list(int argc, char **argv)
{
    struct verb_opts o;
    int rc = verb_parse(
        argc, argv, &o, "lesson list", lesson_list_table,
        "usage: collviz lesson list\n"
        "\n"
        "The lessons (collviz lesson --help says where they are read from) in order:\n"
        "file, id (collviz lesson ID opens it; the file's slug works too), title, length,\n"
        "and your\n"
        "progress from $XDG_STATE_HOME/collviz/progress (default ~/.local/state/collviz/).\n",
        "Exit status: 0 success, 2 bad input or no lessons.\n");
    if (rc >= 0) return rc;
    if (optind < argc) return cli_usage_error("%s: unexpected argument", argv[optind]);
    char dir[4096];
    struct lesson_set set;
    struct lesson_errors errs = {0};
    if (load_default_set(dir, sizeof dir, &set, &errs)) return 2;
    if (set.n == 0) {
        print_errors(&errs);
        lesson_errors_free(&errs);
        lesson_set_free(&set);
        return cli_usage_error("no lessons in %s", dir);
    }
    struct progress pr = {0};
    char path[4096], warn[600] = "";
    bool have_progress = progress_default_path(path, sizeof path, NULL, 0) == CV_OK;
    if (have_progress) progress_peek(&pr, path, warn, sizeof warn); /* read-only */
    if (warn[0]) {
        fputs("collviz: ", stderr);
        cv_fputs_safe(stderr, warn, false);
        fputc('\n', stderr);
    }
    /* Columns as wide as their widest entry, in terminal columns (titles may be UTF-8):
     * the file, the id (what `collviz lesson ID` takes), the title. */
    int wf = 4, wi = 2, wt = 5;
    for (size_t i = 0; i < set.n; i++) {
        const struct lesson *L = &set.v[i];
        const char *base = strrchr(L->path, '/');
        base = base ? base + 1 : L->path;
        if (text_width(base) > wf) wf = text_width(base);
        if (text_width(L->id) > wi) wi = text_width(L->id);
        if (text_width(L->title ? L->title : L->id) > wt)
            wt = text_width(L->title ? L->title : L->id);
    }
    /* a table wider than the terminal: each lesson as a block of lines that fit */
    int width = list_width();
    bool table = width == 0 || wf + wi + wt + 2 * 4 + 7 + 42 <= width; /* 42: the progress */
    if (table)
        printf("%-*s  %-*s  %-*s  %7s  progress\n", wf, "file", wi, "id", wt, "title",
               "length");
    for (size_t i = 0; i < set.n; i++) {
        const struct lesson *L = &set.v[i];
        const char *base = strrchr(L->path, '/');
        base = base ? base + 1 : L->path;
        const char *title = L->title ? L->title : L->id;
        size_t nex = 0;
        for (size_t s = 0; s < L->nslides; s++)
            nex += L->slides[s].nex;
        const struct progress_lesson *pl =
            have_progress ? progress_lesson(&pr, L->id, false) : NULL;
        size_t seen = 0, solved = 0;
        for (size_t s = 0; s < L->nslides; s++)
            seen += progress_seen(pl, s);
        for (size_t s = 0; s < L->nslides; s++)
            for (size_t e = 0; e < L->slides[s].nex; e++)
                solved += have_progress && progress_solved(&pr, L->slides[s].ex[e].id);
        char minutes[24] = "";
        if (L->minutes) snprintf(minutes, sizeof minutes, "%d min", L->minutes);
        if (!table) {
            char line[1024];
            snprintf(line, sizeof line, "%s  %s%s%s", L->id, base, minutes[0] ? ", " : "",
                     minutes);
            list_wrapped(line, width, 0);
            list_wrapped(title, width, 4);
            snprintf(line, sizeof line, "seen %zu/%zu slides, solved %zu/%zu exercises", seen,
                     L->nslides, solved, nex);
            list_wrapped(line, width, 4);
            continue;
        }
        /* %-*s pads bytes, not columns: pad by the title's width in columns */
        cv_printf_safe(
            "%-*s  %-*s  %s%*s  %7s  seen %zu/%zu slides, solved %zu/%zu exercises\n", wf, base,
            wi, L->id, title, wt - text_width(title), "", minutes, seen, L->nslides, solved,
            nex);
    }
    if (errs.n) {
        fflush(stdout);
        char msg[9000];
        snprintf(msg, sizeof msg, "%zu problem%s in %s (not listed): collviz lesson check %s",
                 errs.n, errs.n == 1 ? "" : "s", dir, dir);
        fputs("collviz: ", stderr);
        cv_fputs_safe(stderr, msg, false);
        fputc('\n', stderr);
    }
    progress_free(&pr);
    lesson_errors_free(&errs);
    lesson_set_free(&set);
    return 0;
}

/* ---- dispatch --------------------------------------------------------------------------- */

int cli_lesson_main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        lesson_usage(stdout);
        return 0;
    }
    if (argc >= 2) {
        if (strcmp(argv[1], "check") == 0) return lesson_check(argc - 1, argv + 1);
        if (strcmp(argv[1], "show") == 0) return lesson_show(argc - 1, argv + 1);
        if (strcmp(argv[1], "variant") == 0) return lesson_variant(argc - 1, argv + 1);
        if (strcmp(argv[1], "grade") == 0) return lesson_grade(argc - 1, argv + 1);
        if (strcmp(argv[1], "list") == 0) return lesson_list(argc - 1, argv + 1);
        if (strcmp(argv[1], "export") == 0) return cli_export_main(argc - 1, argv + 1);
        if (strcmp(argv[1], "review") == 0) return cli_lesson_review(argc - 1, argv + 1);
        if (strcmp(argv[1], "reset") == 0) return cli_lesson_reset(argc - 1, argv + 1);
    }
    /* no verb, or a FILE/ID: the interactive player (src/ui/screens/lesson/) */
    return cli_lesson_player_main(argc, argv);
}
