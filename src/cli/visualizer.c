/* visualizer.c - the options of the interactive programs: the visualizer (`collviz
 * [options]`) and the lesson player (`collviz lesson [FILE|ID]`), one table each (opt.h),
 * read into struct ui_opts and handed to ui/ui.c, which owns the terminal. */
#include "cli/cli.h"

#include <getopt.h>
#include <locale.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cli/opt.h"
#include "core/util.h"
#include "scene/scene.h"
#include "ui/screens/lesson/lesson_ui.h"
#include "ui/ui.h"

/* A scene option: "--ranks 8" is the word "ranks=8", --scene's value is words itself.
 * Words that do not parse are reported against their option right away. */
static int ui_scene_word(void *ctx, const struct opt *self, const char *v)
{
    struct ui_opts *u = ctx;
    const char *key = self->name;
    char one[600], err[240];
    if (strcmp(key, "scene") == 0) {
        snprintf(one, sizeof one, "%s", v);
    } else if (strchr(v, ' ') || strchr(v, '=')) {
        cv_eprintf("collviz: --%s: bad value '%s'\n", key, v);
        return 2;
    } else {
        snprintf(one, sizeof one, "%s=%s", key, v);
    }
    struct scene scratch;
    scene_default(&scratch);
    if (scene_parse(&scratch, one, err, sizeof err) != CV_OK &&
        strncmp(err, "scene: ", 7) == 0) {
        cv_eprintf("collviz: --%s: %s\n", key, err + 7);
        return 2;
    }
    if (strlen(u->words) + strlen(one) + 2 >= sizeof u->words) {
        cv_eprintf("collviz: --%s: too many scene words\n", key);
        return 2;
    }
    strcat(u->words, " ");
    strcat(u->words, one);
    return OPT_GO;
}

static int ui_set_log(void *ctx, const struct opt *self, const char *v)
{
    struct ui_opts *o = ctx;
    if (o->nlogs == UI_MAX_LOGS) {
        fprintf(stderr, "collviz: --nccl-log: at most %d files\n", UI_MAX_LOGS);
        return 2;
    }
    o->logs[o->nlogs++] = v;
    return OPT_GO;
}

static int ui_set_backend(void *ctx, const struct opt *self, const char *v)
{
    struct ui_opts *o = ctx;
    if (strcmp(v, "auto") != 0 && backend_kind_of(v) < 0) {
        cv_eprintf("collviz: --backend: unknown backend '%s' (auto, cpu, nccl)\n", v);
        return 2;
    }
    o->backend = v;
    o->backend_set = true;
    return OPT_GO;
}

static int ui_set_mpi(void *ctx, const struct opt *self, const char *v)
{
    if (!v[0]) {
        cv_eprintf("collviz: --mpi: empty launch command (e.g. \"mpirun -np 4\")\n");
        return 2;
    }
    ((struct ui_opts *)ctx)->mpi = v;
    return OPT_GO;
}

#define UI_FIELD(f) offsetof(struct ui_opts, f)
static const struct opt ui_table[] = {
    {"ranks", 0, "N", "world size shown, 1.." OPT_STR(CV_MAX_RANKS) " (default 4)",
     ui_scene_word, 0},
    {"backend", 0, "NAME", "auto, cpu or nccl (default auto)", ui_set_backend, 0},
    {"size", 0, "BYTES", "measurement size, 4K..16G, K/M/G suffixes (default 64M)",
     ui_scene_word, 0},
    {"collective", 0, "NAME", "start on this collective (default all_reduce)", ui_scene_word,
     0},
    {"algo", 0, "ALGO", "ring, tree, direct or owner", ui_scene_word, 0},
    {"op", 0, "OP", "sum, prod, min, max, avg", ui_scene_word, 0},
    {"root", 0, "R", "root rank of the rooted collectives", ui_scene_word, 0},
    {"count", 0, "N", "display-scale count (default: the lecture's)", ui_scene_word, 0},
    {"init", 0, "KIND", "lecture, seq, rank or random", ui_scene_word, 0},
    {"step", 0, "K", "start at step K (a number or end)", ui_scene_word, 0},
    {"scene", 0, "TEXT",
     "a scene, e.g. \"collective=all_to_all step=2\" or \"screen=parallel scheme=tp step=3\" "
     "(schemes ddp, tp, pp, zero1, zero2, zero3, moe; schedule=gpipe|1f1b, overlap=on|off) or "
     "\"screen=hierarchy\" (the "
     "lecture's tiers; step=1: its napkin math)",
     ui_scene_word, 0},
    {"no-measure", 0, NULL, "measure only on m / s, not on every scene change", opt_true,
     UI_FIELD(no_measure)},
    {"mpi", 0, "\"LAUNCH\"",
     "run the measurements in a job started as LAUNCH collviz serve (e.g. --mpi \"mpirun -np "
     "4\", --mpi \"srun -n 8\"); q ends it",
     ui_set_mpi, 0},
    {"connect", 0, "ADDRESS",
     "use a job started elsewhere with collviz serve (unix:PATH, or tcp:HOST:PORT with "
     "--token)",
     opt_string, UI_FIELD(connect)},
    {"token", 0, "TOKEN", "the token a TCP job printed", opt_string, UI_FIELD(token)},
    {"nccl-log", 0, "FILE...",
     "the topology screen of a real cluster's records: NCCL INFO logs and nccl-tests output "
     "(one file or several; no GPU)",
     ui_set_log, 0},
    {"no-color", 0, NULL, "monochrome (also when NO_COLOR is set)", opt_true,
     UI_FIELD(no_color)},
    {"no-colour", 0, NULL, NULL, opt_true, UI_FIELD(no_color)},
    {"ascii", 0, NULL, "ASCII drawing characters", opt_true, UI_FIELD(ascii)},
    {NULL, 0, NULL, NULL, NULL, 0},
};

static int ui_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    if (ch == ':')
        cv_eprintf("collviz: option '%s' needs a value\n", opt);
    else
        cv_eprintf("collviz: unknown option '%s' (try --help)\n", opt);
    return 2;
}

static const struct opt_cmd ui_cmd = {
    "collviz",
    ui_table,
    "usage: collviz [options]   (the interactive visualizer)\n",
    "Keys: press ? inside for the list.\n",
    ui_bad_option,
    NULL};

/* Parse options into the scene and opts. Returns -1 to go on, else an exit status.
 * Scene options become scene words ("--ranks 8" is "ranks=8"), applied in order with any
 * --scene text, and the combination is checked once at the end, so option order does not
 * matter ("--root 5 --ranks 8" is fine). */
static int ui_parse(int argc, char **argv, struct scene *sc, struct ui_opts *o)
{
    char err[240];
    int rc = opt_parse(&ui_cmd, argc, argv, o);
    if (rc != OPT_GO) return rc;
    for (; o->nlogs && optind < argc && o->nlogs < UI_MAX_LOGS; optind++)
        o->logs[o->nlogs++] = argv[optind]; /* --nccl-log FILE FILE...: the files after it */
    if (optind < argc) {
        cv_eprintf("collviz: unexpected argument '%s' (try --help)\n", argv[optind]);
        return 2;
    }
    if (o->mpi && o->connect) {
        cv_eprintf("collviz: --mpi and --connect exclude each other\n");
        return 2;
    }
    if (o->backend_set && o->connect) {
        cv_eprintf("collviz: --backend: the job at --connect has its own backend\n");
        return 2;
    }
    if (o->backend_set && !o->mpi && (backend_caps_of(o->backend) & BACKEND_CAP_PROCESSES)) {
        cv_eprintf("collviz: --backend mpi: the screens do not run as MPI ranks; start the job "
                   "with --mpi \"mpirun -np 4\" (or measure with mpirun -np N collviz "
                   "bench|trace|train ... --backend mpi)\n");
        return 2;
    }
    if (o->token && !o->connect) {
        cv_eprintf("collviz: --token goes with --connect tcp:HOST:PORT\n");
        return 2;
    }
    if (scene_parse(sc, o->words, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz: %s\n", strncmp(err, "scene: ", 7) == 0 ? err + 7 : err);
        return 2;
    }
    return -1;
}

int cli_visualizer_main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    struct ui_opts o = {.backend = "auto"};
    struct scene start;
    scene_default(&start);
    int rc = ui_parse(argc, argv, &start, &o);
    if (rc >= 0) return rc;
    return ui_start(&o, &start);
}

/* The lesson player's options: a few of the visualizer's, the same setters. */
static const struct opt ui_lesson_table[] = {
    {"backend", 0, "NAME", "auto, cpu or nccl (default auto)", ui_set_backend, 0},
    {"no-measure", 0, NULL, "measure only on m, not on every slide", opt_true,
     UI_FIELD(no_measure)},
    {"no-color", 0, NULL, "monochrome (also when NO_COLOR is set)", opt_true,
     UI_FIELD(no_color)},
    {"no-colour", 0, NULL, NULL, opt_true, UI_FIELD(no_color)},
    {"ascii", 0, NULL, "ASCII drawing characters", opt_true, UI_FIELD(ascii)},
    OPT_END,
};

static int ui_lesson_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    if (ch == ':')
        cv_eprintf("collviz lesson: option '%s' needs a value\n", opt);
    else
        cv_eprintf("collviz lesson: unknown option '%s' (try --help)\n", opt);
    return 2;
}

static const struct opt_cmd ui_lesson_cmd = {
    .prog = "lesson",
    .opts = ui_lesson_table,
    .usage = "usage: collviz lesson [FILE|ID] [options]   (the lesson player)\n"
             "  without FILE|ID: the list of lessons; with one: that lesson, at the saved\n"
             "  slide\n",
    .after = "The lessons: $COLLVIZ_LESSONS, else the first of ./lessons, lessons/ next to\n"
             "the program, ../share/collviz/lessons from its folder, the source tree's\n"
             "lessons/ and the installed share/collviz/lessons that holds NN-*.md files.\n"
             "verbs: collviz lesson check|show|variant|list (collviz lesson --help)\n"
             "Keys: press ? inside for the list; q leaves a lesson for the list, q there\n"
             "quits.\n",
    .bad_option = ui_lesson_bad_option,
};

int cli_lesson_player_main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    struct ui_opts o = {.backend = "auto"};
    int rc = opt_parse(&ui_lesson_cmd, argc, argv, &o);
    if (rc != OPT_GO) return rc;
    if (optind + 1 < argc) {
        cv_eprintf("collviz lesson: unexpected argument '%s' (one lesson at a time)\n",
                   argv[optind + 1]);
        return 2;
    }
    return ui_lesson_start(&o, optind < argc ? argv[optind] : NULL);
}
