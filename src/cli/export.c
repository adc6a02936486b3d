/* export.c - `collviz lesson export`: the options of a lesson's handout. The handout itself
 * (HTML or PDF, its pictures drawn for paper) is handout/html.c's and pdf.c's; the speaker's
 * copy (--notes) gets the presenter's keys in its notes from here, where the key table is. */
#include "cli/cli.h"

#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "backend/backend.h"
#include "core/util.h"
#include "cli/opt.h"
#include "handout/handout.h"
#include "handout/html.h"
#include "ui/kit/keys.h"
#include "ui/screens/screens.h"

struct export_opts {
    struct handout_opts ho;
    bool pdf;
    const char *out;
    const char *pdf_opt; /* the first option given that applies to --format pdf only */
};

/* An option of --format pdf's only was given (refused with html, never ignored). */
static void export_pdf_only(void *ctx, const char *name)
{
    struct export_opts *o = ctx;
    if (!o->pdf_opt) o->pdf_opt = name;
}

/* The speaker notes name the player's keys; the copy shows the presenter's, as `collviz
 * notes` does (the presenter's o is its overview: the operation is *). */
static void export_note_keys(const struct lesson_slide *s, const char *in, char *out, size_t n)
{
    const struct screen_ops *o = s->has_scene ? screen_ops_of(s->scene.screen) : NULL;
    keys_retarget_text(in, SURFACE_PLAYER, SURFACE_PRESENTER, o ? o->keys_on : 0, true, out, n);
}

static int export_set_format(void *ctx, const struct opt *self, const char *v)
{
    if (strcmp(v, "html") != 0 && strcmp(v, "pdf") != 0) {
        cv_eprintf("collviz lesson export: --format: bad value '%s' (html or pdf)\n", v);
        return 2;
    }
    ((struct export_opts *)ctx)->pdf = strcmp(v, "pdf") == 0;
    return OPT_GO;
}

/* A handout option's bad value: its message (handout.h's words) on one line. */
static int export_bad_value(const char *err)
{
    cv_eprintf("collviz lesson export: %s\n", err);
    return 2;
}

static int export_set_paper(void *ctx, const struct opt *self, const char *v)
{
    char err[200];
    export_pdf_only(ctx, "--paper");
    if (handout_parse_paper(v, &((struct export_opts *)ctx)->ho.paper, err, sizeof err) !=
        CV_OK)
        return export_bad_value(err);
    return OPT_GO;
}

static int export_set_per_page(void *ctx, const struct opt *self, const char *v)
{
    char err[200];
    long n;
    export_pdf_only(ctx, "--per-page");
    if (parse_long(v, 1, 2, &n) != CV_OK) {
        snprintf(err, sizeof err, "--per-page: bad value '%s' (1 or 2)", v);
        return export_bad_value(err);
    }
    ((struct export_opts *)ctx)->ho.per_page = (int)n;
    return OPT_GO;
}

static int export_set_solutions(void *ctx, const struct opt *self, const char *v)
{
    char err[200];
    struct export_opts *o = ctx;
    export_pdf_only(ctx, "--solutions");
    if (handout_parse_solutions(v, &o->ho.solutions, err, sizeof err) != CV_OK)
        return export_bad_value(err);
    return OPT_GO;
}

static int export_set_backend(void *ctx, const struct opt *self, const char *v)
{
    char err[200];
    if (backend_kind_of(v) < 0 && strcmp(v, "auto") != 0) {
        snprintf(err, sizeof err, "--backend: bad value '%s' (cpu, nccl, mpi or auto)", v);
        return export_bad_value(err);
    }
    ((struct export_opts *)ctx)->ho.backend = v;
    return OPT_GO;
}

static int export_set_notes(void *ctx, const struct opt *self, const char *v)
{
    export_pdf_only(ctx, "--notes");
    ((struct export_opts *)ctx)->ho.notes = true;
    return OPT_GO;
}

#define EXPORT_FIELD(f) offsetof(struct export_opts, f)
static const struct opt export_table[] = {
    {"format", 0, "html|pdf", "the handout's kind (default html)", export_set_format, 0},
    {"output", 'o', "FILE", "write to FILE (html: default standard output; pdf: needed)",
     opt_string, EXPORT_FIELD(out)},
    {"paper", 0, "a4|letter", "pdf: the page size (default a4)", export_set_paper, 0},
    {"per-page", 0, "1|2", "pdf: slides per page (default 1)", export_set_per_page, 0},
    {"solutions", 0, "end|none|inline", "pdf: where the solutions go (default end)",
     export_set_solutions, 0},
    {"backend", 0, "cpu|nccl|mpi|auto",
     "measure the measurement slides' scenes on this machine (default: made without "
     "measuring, and says so)",
     export_set_backend, 0},
    {"dark", 0, NULL, "the pictures in the dark theme (default: light)", opt_true,
     EXPORT_FIELD(ho.dark)},
    {"notes", 0, NULL,
     "pdf: the speaker's copy instead: every slide's picture, its speaker notes and its "
     "exercises' answers (not for handing out)",
     export_set_notes, 0},
    OPT_END,
};

static const struct opt_cmd export_cmd = {
    .prog = "lesson export",
    .opts = export_table,
    .usage = "usage: collviz lesson export PATH --format html [-o OUT.html] [options]\n"
             "       collviz lesson export PATH --format pdf -o OUT.pdf [options]\n"
             "  A handout of a lesson file (or of a folder of lessons, in order): every\n"
             "  slide's title and narration, the exercises' prompts, and a picture of every\n"
             "  slide's scene drawn for paper at the slide's own step (never past the step an\n"
             "  exercise on it asks about). Speaker notes are never included. html: one\n"
             "  self-contained file, pictures inline as SVG (standard output without -o).\n"
             "  pdf: a table of contents in the presenter's slide numbers, room to answer\n"
             "  every exercise, the solutions. Slides carry the presenter's numbers and the\n"
             "  lesson's own; a sentence that names a key is left out (paper has none).\n"
             "  --notes: the lecturer's copy, with the speaker notes and the answers.\n",
    .bad_option = cli_quoted_bad_option,
};

int cli_export_main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    struct export_opts o = {.pdf = false};
    handout_opts_default(&o.ho);
    int rc = opt_parse(&export_cmd, argc, argv, &o);
    if (rc != OPT_GO) return rc;
    const char *path = optind < argc ? argv[optind++] : NULL;
    if (!path) {
        cv_eprintf("collviz lesson export: which lesson? (collviz lesson export FILE "
                   "--format html -o OUT.html)\n");
        return 2;
    }
    if (optind < argc) {
        cv_eprintf("collviz lesson export: unexpected argument '%s' (try --help)\n",
                   argv[optind]);
        return 2;
    }
    if (o.pdf && !o.out) {
        cv_eprintf("collviz lesson export: --format pdf needs -o OUT.pdf\n");
        return 2;
    }
    if (o.pdf_opt && !o.pdf) {
        cv_eprintf("collviz lesson export: %s needs --format pdf\n", o.pdf_opt);
        return 2;
    }
    o.ho.note_keys = export_note_keys;
    return export_handout_run(path, &o.ho, o.pdf, o.out);
}
