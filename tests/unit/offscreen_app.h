/* offscreen_app.h - the unit tests' app drawn off-screen (kit/svg.h): app_init's app, in
 * UTF-8 with the colour theme, on a private curses screen of cols x rows, and what a
 * drawing left on that screen read back as text. Shared by the tests that draw parts of a
 * screen without a terminal (test_panel_fit, test_panel_stale, test_coll_keys). Include
 * after <cmocka.h>. */
#ifndef COLLVIZ_TEST_OFFSCREEN_APP_H
#define COLLVIZ_TEST_OFFSCREEN_APP_H

#include <stdio.h>
#include <stdlib.h>

#include "core/util.h"
#include "ui/app.h"
#include "ui/kit/draw.h"
#include "ui/kit/svg.h"
#include "ui/screens/collectives/panel.h"

/* The app on a new off-screen terminal o of cols x rows; offscreen_app_free ends both. */
static inline struct app *offscreen_app(struct svg_offscreen *o, int cols, int rows)
{
    char err[200];
    assert_int_equal(svg_offscreen_open(o, cols, rows, err, sizeof err), CV_OK);
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    a->utf8 = true;
    a->g = glyphs_get(true);
    theme_init(&a->th, false);
    return a;
}

static inline void offscreen_app_free(struct app *a, struct svg_offscreen *o)
{
    app_free(a);
    free(a);
    svg_offscreen_close(o);
}

/* A clear screen to draw on. */
static inline void offscreen_clear(struct app *a)
{
    draw_begin(a->g, a->utf8);
    erase();
}

/* The screen's text, one line a row (svg_write_text); the caller frees it. Not inlined:
 * inlined, GCC takes a pointer into the text for one to the local holding it
 * (-Wdangling-pointer). */
__attribute__((noinline, unused)) static char *offscreen_text(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_write_text(stdscr, f);
    fclose(f);
    return text;
}

/* The collectives screen's measured panel drawn alone in r, as text. */
static inline char *offscreen_panel(struct app *a, struct rect r)
{
    offscreen_clear(a);
    coll_panel(a, r);
    return offscreen_text();
}

#endif
