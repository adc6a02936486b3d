/* app.h - the interactive program's state, shared by ui.c (options, terminal, event loop),
 * app.c (scene changes, actions, jobs for the worker) and draw.c (everything on screen);
 * the parallelism screen keeps its own part in par.h (par.c, pardraw.c).
 *
 * The state is a scene (scene.h) plus what is derived from it: the plan, the trace of every
 * step, and the display metrics the layout needs. Measured figures live in `meas` and come
 * only from the worker. Only the main thread touches any of this. */
#ifndef COLLVIZ_UI_APP_H
#define COLLVIZ_UI_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/plan.h"
#include "../core/trace.h"
#include "../worker/worker.h"
#include "hw.h"
#include "keys.h"
#include "layout.h"
#include "meas.h"
#include "par.h"
#include "../scene/scene.h"
#include "theme.h"

#define APP_BAR_MAX 32
#define APP_XFER_TEXT 64

struct app {
    struct scene sc;

    /* derived from the scene by app_rebuild() */
    bool have_plan, have_trace;
    struct plan plan;
    struct trace trace;
    float *send[CV_MAX_RANKS];
    char scene_err[200]; /* why there is no plan/trace, shown instead of the boxes */
    int cell_w;          /* widest value of any snapshot */
    int max_xfers;       /* most transfers in one step */
    int xfer_w;          /* widest transfer entry */
    const char *longest_what;

    /* backend, through the worker only */
    struct worker *w;
    char backend_name[16];
    char backend_desc[200]; /* "4 ranks = 4 CPU threads on 2 cores ..." */
    char backend_note[240]; /* why there is no backend or worker */
    struct hw_info hw;      /* the machine and every backend's status (the b overlay) */
    int max_ranks;          /* of the backend; 0 = none */
    char rank_label[CV_MAX_RANKS][64];
    bool auto_measure; /* measure whenever the scene changes */
    struct meas m;
    struct par_screen *par; /* the parallelism screen, allocated when first shown */

    /* view */
    bool playing;
    double next_tick; /* now_s() of the next auto-advance */
    bool help;
    bool hw_open; /* the backends and hardware overlay (b) */
    bool utf8, color;
    struct theme th;
    const struct glyphs *g;
    char msg[200]; /* one-line notice in the status row, cleared by the next key */
    struct layout lay;
    struct bar_item bar[APP_BAR_MAX];
    int nbar;
};

/* Scene changes. */
void app_init(struct app *a);
void app_free(struct app *a);
/* Rebuild plan, trace and metrics from a->sc; resolves step=end. */
void app_rebuild(struct app *a);
/* Post a JOB_CHECK and (if auto_measure) a JOB_MEASURE for the current scene, cancelling
 * whatever was outstanding. */
void app_post_jobs(struct app *a, bool measure);
void app_measure(struct app *a);
void app_sweep(struct app *a);
void app_cancel(struct app *a);
/* Refresh backend_desc and rank labels for the current world size. */
void app_backend_text(struct app *a);

/* Perform one action from the key table. Returns false when the program should quit. */
bool app_do(struct app *a, enum ui_action act, double now);

/* Apply one worker result (a measurement or a training run); true when the screen changed. */
bool app_result(struct app *a, const struct result *r);

/* Advance one step if playing and the tick is due; returns true if the screen changed. */
bool app_tick(struct app *a, double now);
/* Milliseconds until the next timed event (play tick, elapsed-time refresh), -1 = none. */
int app_timeout_ms(const struct app *a, double now);

/* The number of steps and the current one. */
size_t app_nsteps(const struct app *a);
size_t app_step(const struct app *a);

/* Text of transfer x as the list shows it: "r0 ─▶ r1  chunk 3 (+) Σ2". */
void app_xfer_text(const struct app *a, const struct xfer *x, size_t snap, char *buf, size_t n);
/* The sentence for the current step (step 0 has its own). */
const char *app_what(const struct app *a, size_t step);

/* Draw the whole screen (draw.c). */
void draw_screen(struct app *a);

/* Drawing primitives of draw.c, shared with the parallelism screen (pardraw.c). */
int draw_put(int y, int x, int maxw, attr_t attr, const char *s);
int draw_putf(int y, int x, int maxw, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void draw_fill(struct rect r, attr_t attr);
/* A border around r with an optional title in its top edge. */
void draw_frame(const struct app *a, struct rect r, attr_t attr, const char *title,
                attr_t title_attr);
/* The key bar of the screen `screen` (KEYS_ON_*), the help overlay, the too-small notice. */
void draw_key_bar(struct app *a, struct rect r, unsigned screen);
void draw_help_overlay(const struct app *a, int rows, int cols);
void draw_hw_overlay(const struct app *a, int rows, int cols);
void draw_too_small_notice(const struct app *a, int rows, int cols);

/* A line of differently styled pieces (panels, legends). */
struct seg {
    attr_t attr;
    char text[200];
};
struct pline {
    struct seg seg[16];
    int n;
};
struct plines {
    struct pline l[48];
    int n;
};
struct pline *pl_new(struct plines *p);
void pl_add(struct pline *l, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Word-wrapped text in one style, at most max lines. */
void pl_wrapped_max(struct plines *p, attr_t attr, int width, const char *text, int max);
int pl_width(const struct pline *l);
void pl_draw_line(const struct pline *l, int y, int x, int w);
/* Lines [from, from+r.h) of p into r; returns the lines drawn. */
int pl_draw(const struct plines *p, int from, struct rect r);

#endif
