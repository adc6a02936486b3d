/* lesson_review.c - `collviz lesson review` (the mistakes kept in the progress file, each
 * graded again to say what it was) and `collviz lesson reset [ID]` (forget the progress of
 * one lesson, or all of it, saying what went). The progress file is untrusted: review reads
 * it read-only (progress_peek) and prints its answers escaped; reset refuses a file it
 * cannot read rather than write over it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/util.h"
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

/* One kept mistake: the answer, and what it was, graded again at its own numbers. */
static void review_one(const struct lesson_set *set, const struct progress_ex *px)
{
    const struct lesson *L = NULL;
    const struct lesson_exercise *e = lesson_set_find_exercise(set, px->id, &L);
    if (!e) {
        cv_printf_safe("%s (lesson %s): no longer in the lessons; you answered '%s'\n", px->id,
                       px->lesson, px->wrong[0] ? px->wrong : "?");
        return;
    }
    cv_printf_safe("%s, slide %zu: %s (%s)%s\n", L->id, e->slide + 1, e->id,
                   lesson_ex_type_name(e->type), px->solved ? " - solved since" : "");
    if (!px->wrong[0]) {
        printf("  %d attempt%s, no answer kept\n", px->attempts, px->attempts == 1 ? "" : "s");
        return;
    }
    struct ex_variant v;
    char err[200];
    bool var = px->wrong_seed && ex_variant(e, px->wrong_seed, &v, err, sizeof err) == CV_OK;
    struct ex_grade g;
    memset(&g, 0, sizeof g);
    ex_grade(e, var ? &v : NULL, px->wrong, &g);
    cv_printf_safe("  you answered: %s%s\n  %s\n", px->wrong,
                   var ? " (with other numbers than the lecture's)" : "", g.msg);
}

int cli_lesson_review(int argc, char **argv)
{
    if (want_help(argc, argv,
                  "usage: collviz lesson review\n"
                  "\n"
                  "The exercises you answered wrong (or have not solved after trying), from\n"
                  "$XDG_STATE_HOME/collviz/progress: the lesson, the slide, your last wrong\n"
                  "answer and what it was (graded again, as the player would).\n"
                  "Exit status: 0 success, 2 bad input or an unreadable progress file.\n"))
        return 0;
    if (argc > 1) return cli_usage_error("lesson review: unexpected argument '%s'", argv[1]);
    char path[4096];
    struct lesson_set set;
    load_lessons(&set);
    struct progress p;
    int rc = read_progress(&p, path, sizeof path);
    if (rc != CV_OK) {
        lesson_set_free(&set);
        return rc;
    }
    size_t shown = 0;
    for (size_t i = 0; i < p.nex; i++)
        if (p.ex[i].wrong[0] || (!p.ex[i].solved && p.ex[i].attempts > 0)) {
            review_one(&set, &p.ex[i]);
            shown++;
        }
    if (!shown) printf("no mistakes kept: nothing to review\n");
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
