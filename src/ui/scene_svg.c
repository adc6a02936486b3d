/* scene_svg.c - a scene as a picture, drawn off-screen by the screen that shows it (see
 * scene_svg.h). The app state is built as the interactive program builds it, without a
 * worker: the drawing code is the same, only the terminal is /dev/null. */
#include "ui/scene_svg.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ui/app.h"
#include "ui/kit/svg.h"
#include "ui/screens/screens.h"
#include "handout/paper.h"

/* *sc drawn on the current curses screen's stdscr (whole) and written to f. */
static int scene_draw_write(const struct scene *sc, bool color, bool text, bool inline_svg,
                            const char *title, FILE *f, char *err, size_t errlen)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    a->auto_measure = false;
    a->embedded = true; /* a picture of the scene: no key bar */
    a->utf8 = true;
    a->g = glyphs_get(true);
    theme_init(&a->th, color);
    a->color = a->th.color;
    int rc = app_set_scene(a, sc, err, errlen);
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
    return rc;
}

int scene_svg_write(const struct scene *sc, int cols, int rows, bool text, bool inline_svg,
                    const char *title, FILE *f, char *err, size_t errlen)
{
    int rc = scene_check(sc, err, errlen);
    if (rc != CV_OK) return rc;
    struct svg_offscreen o;
    rc = svg_offscreen_open(&o, cols, rows, err, errlen);
    if (rc != CV_OK) return rc;
    rc = scene_draw_write(sc, true, text, inline_svg, title, f, err, errlen);
    svg_offscreen_close(&o);
    if (rc != CV_OK) return rc;
    return ferror(f) ? cv_err(err, errlen, CV_EINVAL, "svg: write failed") : CV_OK;
}

int scene_text_here(const struct scene *sc, FILE *f, char *err, size_t errlen)
{
    int rc = scene_check(sc, err, errlen);
    if (rc != CV_OK) return rc;
    /* text only: the live screen's colours are left as they are (no start_color) */
    rc = scene_draw_write(sc, false, true, false, NULL, f, err, errlen);
    erase(); /* the next frame draws the whole screen again; nothing was refreshed */
    return rc;
}

int scene_svg_print(const struct scene *sc, bool dark, bool dump, const char *out)
{
    struct print_opts o;
    print_opts_default(&o);
    o.dark = dark;
    struct print_pic p;
    char err[300];
    if (print_pic_build(&p, sc, &o, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz svg: %s\n", err);
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
        cv_eprintf("collviz svg: %s\n", err);
        return 1;
    }
    return 0;
}
