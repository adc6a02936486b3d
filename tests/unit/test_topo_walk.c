/* test_topo_walk.c - the topology screen (collviz --nccl-log) drawn off-screen for every
 * record of the corpus (tests/records/) at 80x24, 100x30 and 120x40: its first view, every
 * channel ({ and }), the trees (d), each communicator (u) and each nccl-tests table (T).
 * No text may be cut at the screen's edge with words left over (kit/draw.h's
 * draw_cut_count: the drawing itself counts a text it cut with words past the width and no
 * mark): a sentence wider than the screen wraps at its spaces. Nor may its title say "0
 * ranks". The records are the tests' own files; nothing here knows what they say. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "core/util.h"
#include "records/recfile.h"
#include "records/records.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "ui/kit/draw.h"
#include "ui/kit/keys.h"
#include "ui/kit/svg.h"
#include "ui/screens/topology/topology.h"
#include "ui/walk.h"

#include "record_names.h"

static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}};

static void press(struct app *a, int ch)
{
    enum ui_action act = app_key_action(a, ch);
    if (act == ACT_NONE) return;
    a->msg[0] = '\0';
    app_do(a, act, now_s());
}

/* Draw the record's screens at this size; returns the cuts, each printed. */
static long walk_record(const char *name, int cols, int rows)
{
    char path[600], err[400];
    snprintf(path, sizeof path, "%s/%s", DIR_RECORDS, name);
    struct rec_log *L = rec_new();
    rec_read_file(L, path, err, sizeof err);
    rec_finish(L);
    struct app *a = walk_app();
    topo_adopt_record(a, L, name);
    struct scene next = a->sc;
    next.screen = SCREEN_TOPOLOGY;
    next.step = 0;
    next.ring_n = 0;
    char why[200];
    app_set_scene(a, &next, why, sizeof why);
    /* the first view, then each key's: channels, trees, communicators, tables */
    static const char keys[] = "\0}}}{dd}duuuTTTT";
    long cuts = 0;
    for (size_t i = 0; i < sizeof keys - 1; i++) {
        if (keys[i]) press(a, keys[i]);
        const char *last;
        long before = draw_cut_count(NULL);
        frame_draw(a);
        long n = draw_cut_count(&last) - before;
        if (n > 0)
            printf("topo walk %s %dx%d after '%c': %ld cut, e.g. \"%s\"\n", name, cols, rows,
                   keys[i] ? keys[i] : '-', n, last);
        cuts += n;
        /* the title never states a size of 0 ranks (a record that names no rank states
         * none; records.h: sizes as proven) */
        char title[512] = "";
        mvinnstr(0, 0, title, (int)sizeof title - 1);
        if (strstr(title, " 0 ranks") || strstr(title, " 0 rank ")) {
            printf("topo walk %s %dx%d: the title says 0 ranks: %s\n", name, cols, rows, title);
            cuts++;
        }
    }
    app_free(a);
    free(a);
    return cuts;
}

static void test_topo_walk(void **state)
{
    (void)state;
    DIR *d = opendir(DIR_RECORDS);
    assert_non_null(d);
    char *names[256];
    int n = record_names(d, names, 256);
    assert_true(n >= 30);
    long cuts = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct svg_offscreen o;
        char err[200];
        assert_int_equal(svg_offscreen_open(&o, sizes[s][0], sizes[s][1], err, sizeof err), 0);
        long here = 0;
        for (int i = 0; i < n; i++)
            here += walk_record(names[i], sizes[s][0], sizes[s][1]);
        svg_offscreen_close(&o);
        printf("topo walk %dx%d: %d records, %ld texts cut mid-sentence\n", sizes[s][0],
               sizes[s][1], n, here);
        cuts += here;
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    assert_int_equal(cuts, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_topo_walk)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
