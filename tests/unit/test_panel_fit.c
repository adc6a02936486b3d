/* test_panel_fit.c - the collectives screen's framed measured panel never cuts a paragraph:
 * at every height from the smallest framed panel up, in two columns (an 80- or 100-column
 * terminal) and in one (the side panel), the measured row's details (how it was measured,
 * in the backend's words, and the model beside it) are either drawn whole or named as left
 * out; so are the figures (the last of them, #wrong, is shown or the lines left out are
 * counted). Drawn off-screen (kit/svg.h). */
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

/* The panel's text, its rows joined by spaces with runs of blanks and frame glyphs
 * squeezed, so a wrapped sentence reads as one. */
static char *panel_words(struct app *a, int h, int w, bool side)
{
    coll_state(a)->lay.panel_compact = false;
    coll_state(a)->lay.panel_side = side;
    return offscreen_panel(a, (struct rect){0, 0, h, w});
}

/* Does the text hold the words of `want` in order, each column's row read on its own? In
 * two columns a paragraph's rows are not next to each other in a screen row, so the check
 * is per column: every word of `want` appears, and the first and last words both. */
static bool has_words(const char *text, const char *want)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", want);
    for (char *save = NULL, *wd = strtok_r(buf, " ", &save); wd;
         wd = strtok_r(NULL, " ", &save))
        if (!strstr(text, wd)) return false;
    return true;
}

static void test_details_whole_or_named(void **state)
{
    (void)state;
    struct svg_offscreen o;
    struct app *a = offscreen_app(&o, 120, 40);
    struct meas *m = &coll_state(a)->m;
    m->have_row = true;
    m->row_params.coll = a->sc.coll;
    m->row_params.bytes = a->sc.meas_bytes;
    m->row_params.op = a->sc.op;
    m->row.bytes = a->sc.meas_bytes;
    m->row.nranks = a->sc.nranks;
    m->row.time_us = 63100;
    m->row.algbw = 1.06;
    m->row.busbw = 1.6;
    snprintf(m->row.algo, sizeof m->row.algo, "ring");
    snprintf(m->row_backend, sizeof m->row_backend, "cpu");
    const char *how = "4 CPU threads, ring plan, 1 slice, 10 iters after 2 warm-up";
    snprintf(m->row.how, sizeof m->row.how, "%s", how);
    int widths[] = {80, 100, 42};
    int whole = 0, named = 0;
    for (int wi = 0; wi < 3; wi++)
        for (int h = 5; h <= 30; h++) {
            bool side = widths[wi] < 60;
            char *t = panel_words(a, h, widths[wi], side);
            bool head = strstr(t, "4 CPU threads") != NULL;
            bool all = has_words(t, how) && strstr(t, "warm-up") != NULL;
            bool said = strstr(t, "taller terminal") != NULL;
            if (side && !head) { /* the side panel: figures first, details when rows are left */
                free(t);
                continue;
            }
            if (head && !all)
                fail_msg("%dx%d panel: the details are cut:\n%s", widths[wi], h, t);
            if (!side && !head && !said)
                fail_msg("%dx%d panel: the details are left out unnamed:\n%s", widths[wi], h,
                         t);
            /* the figures: the last of them shown, or the lines left out counted */
            if (!side && !strstr(t, "#wrong") && !strstr(t, "more line"))
                fail_msg("%dx%d panel: figures left out unnamed:\n%s", widths[wi], h, t);
            whole += all;
            named += said;
            free(t);
        }
    /* both cases happen: small panels name them, tall ones show them */
    assert_true(whole > 0);
    assert_true(named > 0);
    offscreen_app_free(a, &o);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_details_whole_or_named)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
