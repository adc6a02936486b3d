/* lesson_review.c - `collviz lesson review [--json]` (the mistakes kept in the progress file,
 * each graded again to say what it was; --json: the same as a list for scripts) and `collviz
 * lesson reset [ID]` (forget the progress of one lesson, or all of it, saying what went). The
 * progress file is untrusted: review reads it read-only (progress_peek) and prints its answers
 * escaped; reset refuses a file it cannot read rather than write over it. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "core/util.h"
#include "lesson/endpage.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "lesson/progress.h"

static bool want_help(int argc, char **argv, const char *usage)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return true;
        }
    return false;
}

/* The progress file read-only; CV_OK (a missing file is empty), else 2 after saying why. */
static int read_progress(struct progress *p, char *path, size_t n)
{
    char why[240] = "", warn[600] = "";
    memset(p, 0, sizeof *p);
    if (progress_default_path(path, n, why, sizeof why) != CV_OK)
        return cli_usage_error("no progress file: %s", why);
    if (progress_peek(p, path, warn, sizeof warn) != CV_OK) {
        fputs("collviz: ", stderr);
        cv_fputs_safe(stderr, warn, false);
        fputc('\n', stderr);
        return 2;
    }
    return CV_OK;
}

/* The shipped lessons (the default folder); its errors are the player's to report. */
static void load_lessons(struct lesson_set *set)
{
    char dir[4096];
    struct lesson_errors errs = {0};
    lesson_default_dir(dir, sizeof dir);
    lesson_set_init(set);
    lesson_set_add(set, dir, &errs);
    lesson_errors_free(&errs);
}

/* One wrong try graded again at its own numbers: what it was, and the prompt as it was
 * asked (its variant's numbers, not the lecture's). */
struct review_try {
    const struct progress_try *t;
    bool other_numbers;
    struct ex_grade g;
    char question[600];
};

/* One kept mistake, for the text and the JSON alike: where it is (e NULL: no longer in the
 * lessons), and every distinct wrong try graded again (tries, ntries). */
struct review_item {
    const struct progress_ex *px;
    const struct lesson *L;
    const struct lesson_exercise *e;
    struct review_try tries[PROGRESS_TRIES];
    size_t ntries;
};

static void review_grade(const struct lesson_set *set, const struct progress_ex *px,
                         struct review_item *it)
{
    memset(it, 0, sizeof *it);
    it->px = px;
    it->e = lesson_set_find_exercise(set, px->id, &it->L);
    for (size_t i = 0; it->e && i < px->ntries; i++) {
        struct review_try *r = &it->tries[it->ntries++];
        struct ex_variant v;
        char err[200];
        r->t = &px->tries[i];
        r->other_numbers =
            r->t->seed && ex_variant(it->e, r->t->seed, &v, err, sizeof err) == CV_OK;
        ex_grade(it->e, r->other_numbers ? &v : NULL, r->t->answer, &r->g);
        /* the whole prompt, not its id (JSON's), with every number it was asked with */
        char *pr = ex_prompt(it->e, r->other_numbers ? &v : NULL);
        size_t o = 0;
        for (const char *c = pr; *c && o + 1 < sizeof r->question; c++)
            if (*c != '`') r->question[o++] = *c;
        r->question[o] = '\0';
        free(pr);
    }
}

static void review_text(const struct review_item *it)
{
    const struct progress_ex *px = it->px;
    const struct progress_try *last = progress_last_try(px);
    if (!it->e) {
        cv_printf_safe("%s (lesson %s): no longer in the lessons; you answered '%s'\n", px->id,
                       px->lesson, last ? last->answer : "?");
        return;
    }
    /* the heading asks the question as the first try had it; a try at other numbers says
     * its own (every number of it: the answer is about those) */
    char q[600];
    if (it->ntries)
        snprintf(q, sizeof q, "%s", it->tries[0].question);
    else
        lesson_ex_question(it->e, q, sizeof q);
    cv_printf_safe("%s (slide %zu): %s%s\n", it->L->title ? it->L->title : it->L->id,
                   it->e->slide + 1, q, px->solved ? " (solved since)" : "");
    if (!it->ntries) {
        printf("  %d attempt%s, no answer kept\n", px->attempts, px->attempts == 1 ? "" : "s");
        return;
    }
    for (size_t i = 0; i < it->ntries; i++) {
        const struct review_try *r = &it->tries[i];
        if (i && strcmp(r->question, it->tries[i - 1].question) != 0)
            cv_printf_safe("  asked then: %s\n", r->question);
        cv_printf_safe("  you answered: %s%s\n  %s\n", r->t->answer,
                       r->other_numbers ? " (with other numbers than the lecture's)" : "",
                       r->g.msg);
    }
}

/* The JSON object of one mistake (docs/teaching.md lists its fields): the latest try as
 * answer, seed, message and diagnosis; every try in tries. */
static void review_json(cJSON *list, const struct review_item *it)
{
    const struct progress_ex *px = it->px;
    const struct progress_try *last = progress_last_try(px);
    const struct review_try *rl = it->ntries ? &it->tries[it->ntries - 1] : NULL;
    cJSON *o = cli_json_add_object(list, NULL);
    cli_json_str(o, "lesson", it->L ? it->L->id : px->lesson);
    if (it->e)
        cli_json_num(o, "slide", (double)(it->e->slide + 1));
    else
        cli_json_null(o, "slide");
    cli_json_str(o, "exercise", px->id);
    cli_json_str(o, "type", it->e ? lesson_ex_type_name(it->e->type) : NULL);
    cli_json_bool(o, "in_lessons", it->e != NULL);
    cli_json_num(o, "attempts", px->attempts);
    cli_json_bool(o, "solved_since", px->solved);
    cli_json_str(o, "answer", last ? last->answer : NULL);
    cli_json_num(o, "seed", last ? (double)last->seed : 0); /* 0: the lecture's numbers */
    /* as `lesson grade --format json` names them: the sentence, the slip's name */
    cli_json_str(o, "message", rl ? rl->g.msg : NULL);
    cli_json_str(o, "diagnosis", rl && rl->g.diagnosis[0] ? rl->g.diagnosis : NULL);
    cJSON *tries = cli_json_add_array(o, "tries");
    for (size_t i = 0; i < px->ntries; i++) {
        const struct review_try *r = i < it->ntries ? &it->tries[i] : NULL;
        cJSON *t = cli_json_add_object(tries, NULL);
        cli_json_str(t, "answer", px->tries[i].answer);
        cli_json_num(t, "seed", (double)px->tries[i].seed);
        cli_json_str(t, "question", r ? r->question : NULL);
        cli_json_str(t, "message", r ? r->g.msg : NULL);
        cli_json_str(t, "diagnosis", r && r->g.diagnosis[0] ? r->g.diagnosis : NULL);
    }
}

struct review_opts {
    bool json;
};

static int review_set_format(void *ctx, const struct opt *self, const char *v)
{
    (void)self;
    return cli_parse_format(v, &((struct review_opts *)ctx)->json) ? 2 : OPT_GO;
}

static const struct opt review_table[] = {
    {"json", 0, NULL,
     "a JSON list of the mistakes: lesson, slide, exercise, type, answer, seed, message "
     "(what it was), diagnosis (the latest wrong answer's), tries (every distinct wrong "
     "answer: answer, seed, question, message, diagnosis), attempts, solved_since, "
     "in_lessons",
     opt_true, offsetof(struct review_opts, json)},
    {"format", 0, "F", "text or json (json: the same as --json)", review_set_format, 0},
    OPT_END,
};

static int review_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    (void)c;
    return cli_option_error(ch, opt, NULL);
}

int cli_lesson_review(int argc, char **argv)
{
    struct review_opts o = {0};
    const struct opt_cmd cmd = {
        .prog = "lesson review",
        .opts = review_table,
        .usage = "usage: collviz lesson review [--json]\n"
                 "\n"
                 "The exercises you answered wrong (or have not solved after trying), from\n"
                 "$XDG_STATE_HOME/collviz/progress: the lesson, the slide, the question as\n"
                 "it was asked (its numbers), and each distinct wrong answer with what it\n"
                 "was (graded again, as the player would).\n",
        .after = "Exit status: 0 success, 2 bad input or an unreadable progress file.\n",
        .bad_option = review_bad_option};
    int rc = opt_parse(&cmd, argc, argv, &o);
    if (rc >= 0) return rc;
    if (optind < argc)
        return cli_usage_error("lesson review: unexpected argument '%s'", argv[optind]);
    char path[4096];
    struct lesson_set set;
    load_lessons(&set);
    struct progress p;
    rc = read_progress(&p, path, sizeof path);
    if (rc != CV_OK) {
        lesson_set_free(&set);
        return rc;
    }
    cJSON *list = o.json ? cli_json_array() : NULL;
    size_t shown = 0;
    for (size_t i = 0; i < p.nex; i++)
        if (p.ex[i].ntries || (!p.ex[i].solved && p.ex[i].attempts > 0)) {
            struct review_item it;
            review_grade(&set, &p.ex[i], &it);
            if (list)
                review_json(list, &it);
            else
                review_text(&it);
            shown++;
        }
    if (list)
        cli_json_print_pretty(list);
    else if (!shown)
        printf("no mistakes kept: nothing to review\n");
    progress_free(&p);
    lesson_set_free(&set);
    return 0;
}

int cli_lesson_reset(int argc, char **argv)
{
    if (want_help(argc, argv,
                  "usage: collviz lesson reset [ID]\n"
                  "\n"
                  "Forget your progress: of lesson ID (its id, file slug or number), or of\n"
                  "every lesson. Says what it cleared. The progress file is\n"
                  "$XDG_STATE_HOME/collviz/progress (default ~/.local/state/collviz/).\n"
                  "Exit status: 0 success, 2 bad input or an unreadable progress file.\n"))
        return 0;
    if (argc > 2) return cli_usage_error("lesson reset: unexpected argument '%s'", argv[2]);
    char path[4096], err[300];
    struct progress p;
    int rc = read_progress(&p, path, sizeof path);
    if (rc != CV_OK) return rc;
    const char *id = argc == 2 ? argv[1] : NULL;
    char idbuf[LESSON_ID_MAX] = "";
    if (id) {
        struct lesson_set set;
        load_lessons(&set);
        const struct lesson *L = lesson_set_find(&set, id);
        if (L)
            snprintf(idbuf, sizeof idbuf, "%s", L->id);
        else if (progress_lesson(&p, id, false)) /* a lesson no longer in the folder */
            snprintf(idbuf, sizeof idbuf, "%s", id);
        lesson_set_free(&set);
        if (!idbuf[0]) {
            progress_free(&p);
            return cli_usage_error("lesson reset: no lesson '%s' (collviz lesson list shows "
                                   "them)",
                                   id);
        }
        id = idbuf;
    }
    size_t nl = 0, ne = 0;
    progress_forget(&p, id, &nl, &ne);
    if (nl + ne == 0) {
        cv_printf_safe("no progress kept for %s%s: nothing cleared\n", id ? "lesson " : "",
                       id ? id : "any lesson");
        progress_free(&p);
        return 0;
    }
    rc = progress_save(&p, err, sizeof err);
    progress_free(&p);
    if (rc != CV_OK) return cli_usage_error("lesson reset: %s", err);
    cv_printf_safe("cleared %s%s (%zu lesson%s, %zu exercise%s) in %s\n",
                   id ? "lesson " : "every lesson's progress", id ? id : "", nl,
                   nl == 1 ? "" : "s", ne, ne == 1 ? "" : "s", path);
    return 0;
}
