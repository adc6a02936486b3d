/* test_panel_stale.c - the collectives screen's measured panel shows only a measurement of
 * the scene on screen: a row measured for another collective (or size, or operation) is
 * never shown as this scene's, in the framed panel or the compact one a small terminal gets;
 * the room (the presenter) sees no figure of it at all, the explorer sees it marked stale.
 * Drawn off-screen (kit/svg.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offscreen_app.h"
#include "ui/screens/collectives/collstate.h"

static char *panel_text(struct app *a, bool compact)
{
    coll_state(a)->lay.panel_compact = compact;
    return offscreen_panel(a, (struct rect){0, 0, compact ? 2 : 12, 100});
}

static void test_stale_row(void **state)
{
    (void)state;
    struct svg_offscreen o;
    char err[200];
    struct app *a = offscreen_app(&o, 100, 14);
    struct scene sc = a->sc;
    sc.coll = COLL_REDUCE_SCATTER;
    assert_int_equal(app_set_scene(a, &sc, err, sizeof err), CV_OK);
    /* the last row: an all-reduce of the same size, 123.4 GB/s bus bandwidth */
    struct meas *m = &coll_state(a)->m; /* the screen's own, as a worker result sets it */
    m->have_row = true;
    m->row_params.coll = COLL_ALL_REDUCE;
    m->row_params.bytes = a->sc.meas_bytes;
    m->row_params.op = a->sc.op;
    m->row.bytes = a->sc.meas_bytes;
    m->row.nranks = 4;
    m->row.time_us = 1000;
    m->row.algbw = 61.7;
    m->row.busbw = 123.4;
    snprintf(m->row_backend, sizeof m->row_backend, "cpu");
    for (int room = 0; room < 2; room++)
        for (int compact = 0; compact < 2; compact++) {
            a->room = room;
            char *t = panel_text(a, compact);
            /* the room: no figure of it; the explorer: only marked stale */
            if (room && (strstr(t, "123") || strstr(t, "measured on")))
                fail_msg("the room's %s panel shows the all-reduce's row on a "
                         "reduce-scatter:\n%s",
                         compact ? "compact" : "framed", t);
            if (!strstr(t,
                        room ? "not measured for this scene" : "stale: measured for another"))
                fail_msg("%s%s panel does not say its row is another scene's:\n%s",
                         room ? "the room's " : "", compact ? "compact" : "framed", t);
            free(t);
        }
    /* the scene it was measured for: its figures */
    sc.coll = COLL_ALL_REDUCE;
    assert_int_equal(app_set_scene(a, &sc, err, sizeof err), CV_OK);
    m->row_params.bytes = a->sc.meas_bytes;
    m->row_params.op = a->sc.op;
    for (int compact = 0; compact < 2; compact++) {
        char *t = panel_text(a, compact);
        assert_non_null(strstr(t, "123"));
        free(t);
    }
    offscreen_app_free(a, &o);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_stale_row)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
