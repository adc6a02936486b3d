/* collstate.h - the collectives screen's own state, in a->screen_state[SCREEN_COLLECTIVES]:
 * the plan and trace of the display-scale run, the display metrics, the last layout, the
 * slice view and the measurements (check, measured row, sweep). Only the screen's own files
 * (src/ui/screens/collectives/) and its unit tests include this header; every other file
 * asks through screen_ops (trace, plan, meas: screens.h) or collectives.h, and
 * tests/cli/test_layers.sh fails when a file outside the screen includes it or struct app
 * holds these fields again. */
#ifndef COLLVIZ_UI_SCREENS_COLLECTIVES_COLLSTATE_H
#define COLLVIZ_UI_SCREENS_COLLECTIVES_COLLSTATE_H

#include <stdbool.h>

#include "core/plan.h"
#include "core/trace.h"
#include "ui/meas.h"
#include "ui/screens/collectives/collectives.h"
#include "ui/screens/collectives/layout.h"

struct app;

struct coll_screen {
    /* the collective's plan and trace (coll_rebuild, on a new collective or input) */
    bool have_plan, have_trace;
    struct plan plan;
    struct trace trace;
    float *send[CV_MAX_RANKS];
    char scene_err[200]; /* why there is no plan/trace, shown instead of the boxes */
    int cell_w;          /* widest value of any snapshot */
    int big_cell_w;      /* the same in block digits, -1 when one has no block glyphs (an
                            exponent, a NaN): then the screen keeps plain numbers */
    int max_xfers;       /* most transfers in one step */
    int xfer_w;          /* widest transfer entry */
    const char *longest_what;
    struct layout lay;          /* the last layout (coll_layout) */
    int big_sx;                 /* the block digits' width factor the last layout chose */
    struct coll_slices slices;  /* the slice view (v) */
    struct meas m;              /* fed only by the worker's results for this screen's jobs */
    struct rows_memo rows_memo; /* coll_rows_needed's answers for this plan (coll_metrics) */
};

/* The state, made on first use (the screen's apply, draw, actions). */
struct coll_screen *coll_state(struct app *a);
/* The state to read: before the screen was first used, an empty one (no plan, no trace,
 * nothing measured). */
const struct coll_screen *coll_cstate(const struct app *a);

#endif
