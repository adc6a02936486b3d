/* collectives.h - the collectives screen (screens.h entry `screen_collectives`): one box per
 * rank stepping through a collective's plan, its transfers and sentence, and the measured
 * panel. collectives.c: what the scene change rebuilds (plan, trace, display metrics), the
 * jobs it posts (check, measure, sweep) and the screen's own actions; colldraw.c draws it,
 * panel.c the measured panel. */
#ifndef COLLVIZ_UI_SCREENS_COLLECTIVES_COLLECTIVES_H
#define COLLVIZ_UI_SCREENS_COLLECTIVES_COLLECTIVES_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "core/plan.h"
#include "core/slice_timeline.h"
#include "ui/screens/screens.h"

struct app;
struct layout;

/* The screen's state is its own (collstate.h, included by this folder's files alone): other
 * files ask through screen_ops (screen_plan, screen_trace, screen_meas) or the functions
 * below. */
extern const struct screen_ops screen_collectives;

#define COLL_XFER_TEXT 64 /* bytes of one transfer's text (coll_xfer_text) */

/* Text of transfer x as the list shows it: "r3 ─▶ r0  chunk 0 (+) Σ4". */
void coll_xfer_text(const struct app *a, const struct xfer *x, size_t snap, char *buf,
                    size_t n);
/* How many ranks' inputs a reduced value holds, named by the op: "Σ3" (sum, avg: a sum of
 * 3 ranks' values, avg divides only at the end), "∏3" / "prod of 3", "max of 3",
 * "min of 3". ASCII mode writes "S3". */
void coll_folded_text(enum redop op, int n, bool utf8, char *buf, size_t len);
/* The sentence for a step of the current plan (step 0 and a plan without steps have their
 * own). */
const char *coll_what(const struct app *a, size_t step);
/* What the animation simplifies, for the help (one line at 80 columns): one chunk per rank
 * per step is the teaching model; NCCL pipelines slices over channels, which the slice view
 * (v) shows. */
const char *coll_model_note(void);
/* The slice view's summary: the chunk view is the teaching model, the slice/channel view is
 * how NCCL runs it, NCCL's chunk and slice sizes depend on its protocol. (NCCL_PROTO /
 * NCCL_ALGO, when set, are shown on the status line.) */
void coll_slice_summary(const struct app *a, char *buf, size_t n);
/* Predict first: is the scene's step count an open exercise's answer (the figure mask, while
 * a lesson draws the scene, hides "N steps" of the plan's steps or of the slice view's
 * ticks)? Then no form it could be read from is drawn: the header's "step ?/?" or "tick
 * ?/?", no tick numbers, no tick not played yet, no count in the step's sentence. */
bool coll_count_hidden(const struct app *a);
/* Likewise the slice view's links (a direct plan's are its messages, one channel's or all):
 * "+? more links", no count of them in the sentence. */
bool coll_links_hidden(const struct app *a);
/* The rank whose root-ness matters: the scene's root for rooted collectives, else 0. */
int coll_root(const struct app *a);

/* Which cells the scene's highlight points at in snapshot `step`: out[r * work_len + i] = 1
 * (out has nranks * work_len bytes). HL_CHUNK: every cell any transfer of that chunk reads
 * or writes, on every rank that holds it; HL_TRANSFER: the cells that transfer of this step
 * reads and writes; HL_RANK is drawn on the box frame, not on cells. */
void coll_hl_cells(const struct app *a, size_t step, unsigned char *out);
/* "" when the highlight exists in this plan/step, else a sentence saying it does not. */
const char *coll_hl_missing(const struct app *a, size_t step, char *buf, size_t n);

/* The slice view's state (screen_state[SCREEN_COLLECTIVES]): the plan refined into the
 * scene's slices and channels, and its picture (core/slice_timeline.h). */
struct coll_slices {
    bool have;
    struct plan plan;
    struct slice_tl tl;
    size_t count; /* the count the picture is built at (see coll_rebuild_slices) */
    char what[400];
};
/* The slice view's state when the scene shows it and it could be built, else NULL. */
const struct coll_slices *coll_slices(const struct app *a);

/* Draw the screen into r (colldraw.c). */
void coll_draw(struct app *a, struct rect r);
/* Where everything of the collectives screen goes in r (a->lay, shifted to r): what
 * coll_draw draws into; false when r is too small. Pure: the layout test calls it. */
bool coll_layout(struct app *a, struct rect r);
/* The layout coll_layout last made (in the rect it was given). */
const struct layout *coll_laid_out(const struct app *a);
/* The fewest rows (at most rows) at which the scene at width cols shows all that it shows in
 * rows x cols, nothing less at any height between (screen_ops.rows_needed). */
int coll_rows_needed(struct app *a, int cols, int rows);
/* The help overlay's legend lines for this screen (colldraw.c). */
void coll_help(const struct app *a, struct styled_lines *p, int width);

#endif
