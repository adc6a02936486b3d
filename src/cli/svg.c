/* svg.c - `collviz svg`: the arguments of a scene's picture. The drawing is
 * ui/scene_svg.c's (the terminal screen, or --print's paper drawing); this file reads
 * the options, checks their combination and opens the output. */
#include "cli/cli.h"

#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "cli/opt.h"
#include "ui/scene_svg.h"

struct svg_opts {
    struct scene sc;
    const char *out;
    bool text, print, dark, dump;
    long cols, rows;
};

static int svg_set_scene(void *ctx, const struct opt *self, const char *v)
{
    char err[300];
    if (scene_parse(&((struct svg_opts *)ctx)->sc, v, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz svg: --scene: %s\n",
                   strncmp(err, "scene: ", 7) == 0 ? err + 7 : err);
        return 2;
    }
    return OPT_GO;
}

/* --size COLSxROWS: 20..1000 columns, 5..1000 rows. */
static int svg_set_size(void *ctx, const struct opt *self, const char *v)
{
    struct svg_opts *o = ctx;
    const char *x = strchr(v, 'x');
    char cs[16] = "", rs[16] = "";
    if (x && x - v < 16 && strlen(x + 1) < 16) {
        memcpy(cs, v, (size_t)(x - v));
        snprintf(rs, sizeof rs, "%s", x + 1);
    }
    if (!x || parse_long(cs, 20, 1000, &o->cols) != CV_OK ||
        parse_long(rs, 5, 1000, &o->rows) != CV_OK) {
        cv_eprintf("collviz svg: --size: bad value '%s' (COLSxROWS, e.g. 120x40)\n", v);
        return 2;
    }
    return OPT_GO;
}

#define SVG_FIELD(f) offsetof(struct svg_opts, f)
static const struct opt svg_table[] = {
    {"scene", 0, "TEXT", "the scene's words (as the visualizer's --scene)", svg_set_scene, 0},
    {"size", 0, "COLSxROWS",
     "the screen drawn (default " OPT_STR(SCENE_SVG_COLS) "x" OPT_STR(SCENE_SVG_ROWS) ")",
     svg_set_size, 0},
    {"text", 0, NULL, "plain text instead of SVG", opt_true, SVG_FIELD(text)},
    {"print", 0, NULL,
     "the paper drawing instead (what handouts use): SVG, or PNG or PDF when -o ends in .png "
     "or .pdf",
     opt_true, SVG_FIELD(print)},
    {"dark", 0, NULL, "--print: the dark theme (default: light, for paper)", opt_true,
     SVG_FIELD(dark)},
    {"dump-colours", 0, NULL,
     "--print: list every text colour pair the drawing used, \"FG BG RATIO\" (WCAG "
     "contrast), instead of the picture",
     opt_true, SVG_FIELD(dump)},
    {"output", 'o', "FILE", "write to FILE (default: standard output)", opt_string,
     SVG_FIELD(out)},
    OPT_END,
};

static const struct opt_cmd svg_cmd = {
    .prog = "svg",
    .opts = svg_table,
    .usage = "usage: collviz svg --scene TEXT [--text] [--size COLSxROWS] [-o FILE]\n"
             "       collviz svg --scene TEXT --print [--dark] [--dump-colours] [-o FILE]\n"
             "  Draw a scene (the --scene words of the visualizer, e.g.\n"
             "  \"collective=all_reduce step=end\") off-screen and write it as SVG (or text):\n"
             "  the terminal screen as it looks.\n",
    .bad_option = cli_quoted_bad_option,
};

/* The options' combination: 2 with its line when they clash, else -1. */
static int svg_check(const struct svg_opts *o)
{
    char err[300];
    if (scene_check(&o->sc, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz svg: %s\n", err);
        return 2;
    }
    if ((o->dark || o->dump) && !o->print) {
        cv_eprintf("collviz svg: %s needs --print\n", o->dark ? "--dark" : "--dump-colours");
        return 2;
    }
    if (o->print && o->text) {
        cv_eprintf("collviz svg: --print and --text: choose one\n");
        return 2;
    }
    return -1;
}

int cli_svg_main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    struct svg_opts o = {.cols = SCENE_SVG_COLS, .rows = SCENE_SVG_ROWS};
    scene_default(&o.sc);
    int rc = opt_parse(&svg_cmd, argc, argv, &o);
    if (rc != OPT_GO) return rc;
    if (optind < argc) {
        cv_eprintf("collviz svg: unexpected argument '%s' (try --help)\n", argv[optind]);
        return 2;
    }
    if ((rc = svg_check(&o)) >= 0) return rc;
    if (o.print) return scene_svg_print(&o.sc, o.dark, o.dump, o.out);
    FILE *f = o.out ? fopen(o.out, "w") : stdout;
    if (!f) {
        cv_eprintf("collviz svg: cannot write %s: %s\n", o.out, strerror(errno));
        return 2;
    }
    char title[600], err[300];
    scene_format(&o.sc, title, sizeof title);
    rc = scene_svg_write(&o.sc, (int)o.cols, (int)o.rows, o.text, false, title, f, err,
                         sizeof err);
    if (o.out && fclose(f) != 0 && rc == CV_OK)
        rc = cv_err(err, sizeof err, CV_EINVAL, "cannot write %s: %s", o.out, strerror(errno));
    if (rc != CV_OK) {
        cv_eprintf("collviz svg: %s\n", err);
        return 1;
    }
    return 0;
}
