/* scene_svg.c - a scene as a picture, drawn off-screen by the screen that shows it (see
 * scene_svg.h). The app state is built as the interactive program builds it, without a
 * worker: the drawing code is the same, only the terminal is /dev/null. */
#include "scene_svg.h"

#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "../ui/app.h"
#include "../ui/kit/svg.h"
#include "../ui/screens/screens.h"
#include "print_draw.h"

int scene_svg_write(const struct scene *sc, int cols, int rows, bool text, bool inline_svg,
                    const char *title, FILE *f, char *err, size_t errlen)
{
    int rc = scene_check(sc, err, errlen);
    if (rc != CV_OK) return rc;
    struct svg_offscreen o;
    rc = svg_offscreen_open(&o, cols, rows, err, errlen);
    if (rc != CV_OK) return rc;
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    a->auto_measure = false;
    a->embedded = true; /* a picture of the scene: no key bar */
    a->utf8 = true;
    a->g = glyphs_get(true);
    theme_init(&a->th, true);
    a->color = a->th.color;
    rc = app_set_scene(a, sc, err, errlen);
    if (rc == CV_OK) {
        app_backend_text(a);
        draw_begin(a->g, a->utf8);
        erase();
        app_screen(a)->draw(a, (struct rect){0, 0, rows, cols});
        if (text)
            svg_write_text(stdscr, f);
        else
            svg_write(stdscr, f, title, !inline_svg);
    }
    app_free(a);
    free(a);
    svg_offscreen_close(&o);
    if (rc != CV_OK) return rc;
    return ferror(f) ? cv_err(err, errlen, CV_EINVAL, "svg: write failed") : CV_OK;
}

/* --print: the paper drawing (print_draw.h), to a file by its extension or SVG on stdout;
 * --dump-colours lists the text colour pairs the drawing used. */
static int scene_svg_print(const struct scene *sc, bool dark, bool dump, const char *out)
{
    struct print_opts o;
    print_opts_default(&o);
    o.dark = dark;
    struct print_pic p;
    char err[300];
    if (print_pic_build(&p, sc, &o, err, sizeof err) != CV_OK) {
        fprintf(stderr, "collviz svg: %s\n", err);
        print_release_fonts();
        return 1;
    }
    int rc = CV_OK;
    if (dump) {
        for (size_t i = 0; i < p.npairs; i++)
            printf("#%06x #%06x %.2f\n", (unsigned)p.pair[i].fg, (unsigned)p.pair[i].bg,
                   print_contrast(p.pair[i].fg, p.pair[i].bg));
    } else if (out) {
        rc = print_pic_write(&p, out, err, sizeof err);
    } else {
        char *svg;
        size_t len;
        rc = print_pic_svg(&p, &svg, &len, err, sizeof err);
        if (rc == CV_OK) {
            fwrite(svg, 1, len, stdout);
            free(svg);
        }
    }
    print_pic_free(&p);
    print_release_fonts();
    if (rc != CV_OK) {
        fprintf(stderr, "collviz svg: %s\n", err);
        return 1;
    }
    return 0;
}

static void scene_svg_usage(FILE *f)
{
    fprintf(f,
            "usage: collviz svg --scene TEXT [--text] [--size COLSxROWS] [-o FILE]\n"
            "       collviz svg --scene TEXT --print [--dark] [--dump-colours] [-o FILE]\n"
            "  Draw a scene (the --scene words of the visualizer, e.g.\n"
            "  \"collective=all_reduce step=end\") off-screen and write it as SVG (or text):\n"
            "  the terminal screen as it looks.\n"
            "  --size COLSxROWS   the screen drawn (default %dx%d)\n"
            "  --text             plain text instead of SVG\n"
            "  --print            the paper drawing instead (what handouts use): SVG, or PNG\n"
            "                     or PDF when -o ends in .png or .pdf\n"
            "  --dark             --print: the dark theme (default: light, for paper)\n"
            "  --dump-colours     --print: list every text colour pair the drawing used,\n"
            "                     \"FG BG RATIO\" (WCAG contrast), instead of the picture\n"
            "  -o FILE            write to FILE (default: standard output)\n",
            SCENE_SVG_COLS, SCENE_SVG_ROWS);
}

int scene_svg_main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    static const struct option opts[] = {{"scene", required_argument, NULL, 's'},
                                         {"size", required_argument, NULL, 'z'},
                                         {"text", no_argument, NULL, 't'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"print", no_argument, NULL, 'p'},
                                         {"dark", no_argument, NULL, 'd'},
                                         {"dump-colours", no_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    struct scene sc;
    scene_default(&sc);
    const char *out = NULL;
    bool text = false, print = false, dark = false, dump = false;
    long cols = SCENE_SVG_COLS, rows = SCENE_SVG_ROWS;
    char err[300];
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (scene_parse(&sc, optarg, err, sizeof err) != CV_OK) {
                cv_eprintf("collviz svg: --scene: %s\n",
                           strncmp(err, "scene: ", 7) == 0 ? err + 7 : err);
                return 2;
            }
            break;
        case 'z': {
            char *x = strchr(optarg, 'x');
            char cs[16] = "", rs[16] = "";
            if (x && x - optarg < 16 && strlen(x + 1) < 16) {
                memcpy(cs, optarg, (size_t)(x - optarg));
                snprintf(rs, sizeof rs, "%s", x + 1);
            }
            if (!x || parse_long(cs, 20, 1000, &cols) != CV_OK ||
                parse_long(rs, 5, 1000, &rows) != CV_OK) {
                cv_eprintf("collviz svg: --size: bad value '%s' (COLSxROWS, e.g. 120x40)\n",
                           optarg);
                return 2;
            }
            break;
        }
        case 't':
            text = true;
            break;
        case 'p':
            print = true;
            break;
        case 'd':
            dark = true;
            break;
        case 'c':
            dump = true;
            break;
        case 'o':
            out = optarg;
            break;
        case 'h':
            scene_svg_usage(stdout);
            return 0;
        case ':':
            cv_eprintf("collviz svg: option '%s' needs a value\n", argv[optind - 1]);
            return 2;
        default:
            cv_eprintf("collviz svg: unknown option '%s' (try --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        cv_eprintf("collviz svg: unexpected argument '%s' (try --help)\n", argv[optind]);
        return 2;
    }
    if (scene_check(&sc, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz svg: %s\n", err);
        return 2;
    }
    if ((dark || dump) && !print) {
        fprintf(stderr, "collviz svg: %s needs --print\n", dark ? "--dark" : "--dump-colours");
        return 2;
    }
    if (print && text) {
        fprintf(stderr, "collviz svg: --print and --text: choose one\n");
        return 2;
    }
    if (print) return scene_svg_print(&sc, dark, dump, out);
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        cv_eprintf("collviz svg: cannot write %s: %s\n", out, strerror(errno));
        return 2;
    }
    char title[600];
    scene_format(&sc, title, sizeof title);
    int rc = scene_svg_write(&sc, (int)cols, (int)rows, text, false, title, f, err, sizeof err);
    if (out && fclose(f) != 0 && rc == CV_OK)
        rc = cv_err(err, sizeof err, CV_EINVAL, "cannot write %s: %s", out, strerror(errno));
    if (rc != CV_OK) {
        cv_eprintf("collviz svg: %s\n", err);
        return 1;
    }
    return 0;
}
