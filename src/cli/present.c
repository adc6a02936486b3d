/* present.c - `collviz --present PATH`: the presenter's options. The talk itself (the
 * deck, the room's screen, the speaker notes' socket) is ui/present/present.c. */
#include "cli/cli.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/util.h"
#include "cli/opt.h"
#include "ui/kit/keydoc.h"
#include "ui/present/present.h"

int cli_present_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--present") == 0 || strncmp(argv[i], "--present=", 10) == 0)
            return 1;
    return 0;
}

static int present_set_auto(void *ctx, const struct opt *self, const char *v)
{
    double s;
    if (parse_double(v, 1, 3600, &s) != CV_OK) {
        cv_eprintf("collviz: --auto: bad value '%s' (seconds, 1..3600)\n", v);
        return 2;
    }
    ((struct present_opts *)ctx)->auto_s = s;
    return OPT_GO;
}

static int present_set_backend(void *ctx, const struct opt *self, const char *v)
{
    if (strcmp(v, "auto") != 0 && backend_kind_of(v) < 0) {
        cv_eprintf("collviz: --backend: unknown backend '%s' (auto, cpu, nccl)\n", v);
        return 2;
    }
    ((struct present_opts *)ctx)->backend = v;
    return OPT_GO;
}

static int present_set_export_dir(void *ctx, const struct opt *self, const char *v)
{
    if (!v[0]) {
        cv_eprintf("collviz: --export-dir: empty folder name\n");
        return 2;
    }
    ((struct present_opts *)ctx)->export_dir = v;
    return OPT_GO;
}

static int present_set_minutes(void *ctx, const struct opt *self, const char *v)
{
    char *end;
    long m = strtol(v, &end, 10);
    if (end == v || *end || m < 1 || m > 10000) {
        cv_eprintf("collviz: --minutes: '%s' is not a talk length in minutes (1..10000)\n", v);
        return 2;
    }
    ((struct present_opts *)ctx)->minutes = (int)m;
    return OPT_GO;
}

#define PRESENT_FIELD(f) offsetof(struct present_opts, f)
static const struct opt present_table[] = {
    {"present", 0, "PATH", "the lesson file, or folder of lessons", opt_string,
     PRESENT_FIELD(path)},
    {"name", 0, "NAME",
     "the name `collviz notes --name NAME` follows (default \"default\"); several presenters "
     "need different names",
     opt_string, PRESENT_FIELD(name)},
    {"auto", 0, "SECONDS",
     "advance to the next slide every SECONDS (any key pauses, a resumes)", present_set_auto,
     0},
    {"backend", 0, "NAME", "auto, cpu or nccl, for the scenes' measurements (default auto)",
     present_set_backend, 0},
    {"no-measure", 0, NULL, "measure only when asked, not on every scene", opt_true,
     PRESENT_FIELD(no_measure)},
    {"no-big-digits", 0, NULL, "start with block digits off (d toggles)", opt_true,
     PRESENT_FIELD(no_big_digits)},
    {"start", 0, "N|TITLE",
     "start at slide N, or the first whose title has TITLE (default: slide 1)", opt_string,
     PRESENT_FIELD(start)},
    {"resume", 0, NULL, "start where this deck was left, with its clock", opt_true,
     PRESENT_FIELD(resume)},
    {"minutes", 0, "N",
     "the talk's length for the notes' countdown (default: the lessons' "
     "minutes:)",
     present_set_minutes, 0},
    {"export-dir", 0, "DIR", "where e writes (default $XDG_DATA_HOME/collviz/exports)",
     present_set_export_dir, 0},
    {"no-color", 0, NULL, "monochrome (also when NO_COLOR is set)", opt_true,
     PRESENT_FIELD(no_color)},
    {"ascii", 0, NULL, "ASCII drawing characters", opt_true, PRESENT_FIELD(ascii)},
    OPT_END,
};

static int present_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    if (ch == ':')
        cv_eprintf("collviz: option '%s' needs a value\n", opt);
    else
        cv_eprintf("collviz: --present: unknown option '%s' (try --present x --help)\n", opt);
    return 2;
}

/* The keys, from the one key table (ui/kit/keys.h), as the presenter reads them. */
static void present_key_notes(FILE *f)
{
    fputc('\n', f);
    keys_doc_surface(f, SURFACE_PRESENTER);
}

static const struct opt_cmd present_cmd = {
    .prog = "--present",
    .opts = present_table,
    .usage = "usage: collviz --present PATH [PATH...] [options]\n"
             "  Present lesson files or folders of lessons, in order, as one deck, full "
             "screen.\n",
    .after = "Speaker notes, answers, the keys and a countdown: `collviz notes` in another\n"
             "terminal.\n",
    .notes = present_key_notes,
    .bad_option = present_bad_option,
};

int cli_present_main(int argc, char **argv)
{
    struct present_opts o = {.name = "default", .backend = "auto"};
    /* --present --help: the help, not a lesson named --help */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            opt_print_help(stdout, &present_cmd);
            return 0;
        }
    int rc = opt_parse(&present_cmd, argc, argv, &o);
    if (rc != OPT_GO) return rc;
    /* more lesson files or folders after the first: one deck, in the order given */
    o.more = (const char *const *)(argv + optind);
    o.nmore = argc - optind;
    if (!o.path || !o.path[0]) {
        cv_eprintf("collviz: --present needs a lesson file or folder\n");
        return 2;
    }
    return present_run(&o);
}
