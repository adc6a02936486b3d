/* notes.c - `collviz notes`: the options of the speaker's own terminal. The view itself,
 * which follows a running presenter, is ui/present/notes_view.c. */
#include "cli/cli.h"

#include <stdbool.h>
#include <stddef.h>

#include "core/util.h"
#include "cli/opt.h"
#include "ui/kit/keydoc.h"
#include "ui/present/notes_view.h"

struct notes_opts {
    const char *name;
    bool no_color, ascii;
};

#define NOTES_FIELD(f) offsetof(struct notes_opts, f)
static const struct opt notes_table[] = {
    {"name", 0, "NAME", "the presenter to follow (its --name; default \"default\")", opt_string,
     NOTES_FIELD(name)},
    {"no-color", 0, NULL, "monochrome (also when NO_COLOR is set)", opt_true,
     NOTES_FIELD(no_color)},
    {"ascii", 0, NULL, "ASCII drawing characters", opt_true, NOTES_FIELD(ascii)},
    OPT_END,
};

/* This terminal's keys, from the one key table (ui/kit/keys.h). */
static void notes_key_notes(FILE *f)
{
    fputc('\n', f);
    keys_doc_rows(f, KEYS_ON_NOTES);
}

static const struct opt_cmd notes_cmd = {
    .prog = "notes",
    .opts = notes_table,
    .usage = "usage: collviz notes [--name NAME] [--no-color] [--ascii]\n"
             "  Follows `collviz --present` on this machine: the current slide's speaker\n"
             "  note, the next slide, the slide number, the elapsed time and a clock.\n",
    .after =
        "  Also: the slide's exercise answers and solutions, the presenter's keys that\n"
        "  work now, and a countdown from the lessons' minutes:. A note longer than the\n"
        "  terminal scrolls: \"more\" marks where it goes on, and a new slide opens at the\n"
        "  top of its note. The presenter's keys (and a clicker's) stay the presenter's.\n",
    .notes = notes_key_notes,
    .bad_option = cli_quoted_bad_option,
};

int cli_notes_main(int argc, char **argv)
{
    struct notes_opts o = {.name = "default"};
    int rc = opt_parse(&notes_cmd, argc, argv, &o);
    if (rc != OPT_GO) return rc;
    if (optind < argc) {
        cv_eprintf("collviz notes: unexpected argument '%s' (try --help)\n", argv[optind]);
        return 2;
    }
    return notes_view_run(o.name, o.no_color, o.ascii);
}
