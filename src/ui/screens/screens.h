/* screens.h - the table of screens. A screen is one `struct screen_ops` entry: what it
 * shows of the scene, which keys it lists, how it applies a new scene, its own actions, how
 * it draws into a rectangle and which worker results are its own. app.c knows screens only
 * through this table, and a screen knows the program only through app.h.
 *
 * Adding a screen (e.g. the hierarchy screen, SCREEN_HIERARCHY in scene.h):
 *   1. a folder src/ui/screens/NAME/ with NAME.c/NAME.h defining
 *      `const struct screen_ops screen_NAME = {...}` (look at collectives/collectives.c);
 *      its derived state goes in a->screen_state[kind] (allocated in apply, released in
 *      free_state);
 *   2. one line in screens.c's table: [SCREEN_KIND] = &screen_NAME;
 *   3. its key rows in kit/keys.h (a KEYS_ON_* bit of its own, set in keys_on), then
 *      `make docs` to write them into docs/guide.md's key table (make test fails until
 *      then); the Makefile's SRC_LIB wildcard covers src/ui/screens/<any>/.
 * A scene naming a screen kind that has no entry is refused by app_set_scene with a message
 * ("not in this build"), never drawn as another screen. */
#ifndef COLLVIZ_UI_SCREENS_SCREENS_H
#define COLLVIZ_UI_SCREENS_SCREENS_H

#include <stdbool.h>
#include <stddef.h>

#include "scene/scene.h"
#include "worker/worker.h"
#include "ui/kit/draw.h"
#include "ui/kit/keys.h"
#include "ui/kit/rect.h"

struct app;
struct meas;
struct plan;
struct rec_log;
struct trace;

/* Groups of scene fields, for "what changed" (screen_scene_diff) and what a screen uses. */
#define SF_SCREEN (1u << 0)
#define SF_COLL (1u << 1)  /* collective, algorithm, op, root */
#define SF_RANKS (1u << 2) /* nranks */
#define SF_INPUT (1u << 3) /* count, init, seed: the display-scale input */
#define SF_STEP (1u << 4)
#define SF_PAR (1u << 5)  /* scheme, schedule, overlap */
#define SF_MEAS (1u << 6) /* meas_bytes */
#define SF_AUTOPLAY (1u << 7)
#define SF_HL (1u << 8)   /* highlight kind and index */
#define SF_VIEW (1u << 9) /* chunk or slice view, slices, channels */
#define SF_ALL 0x3ffu

/* A figure one screen measures and another shows (a screen never includes another's header;
 * tests/cli/test_layers.sh checks it): asked through screen_figure. */
enum screen_figure {
    SCREEN_FIG_MEMCPY_GBS, /* this host's memcpy bandwidth, GB/s (the hierarchy screen's) */
};

struct screen_ops {
    const char *name;
    enum screen_kind kind;
    unsigned scene_fields; /* SF_* this screen shows; changes elsewhere need nothing */
    unsigned keys_on;      /* KEYS_ON_*: its rows in the key bar and the help */
    int min_ranks, max_ranks;
    /* a->sc was just set by app_set_scene; `changed` (SF_*) says what differs from the
     * scene before (SF_ALL when the screen was entered): rebuild what is derived, post or
     * cancel jobs. The step is resolved (step=end, clamping) after this returns. */
    void (*apply)(struct app *a, unsigned changed);
    size_t (*nsteps)(const struct app *a); /* steps 0..nsteps */
    /* Optional: the last step of each phase of what is shown ("after reduce-scatter",
     * "end"), ascending, into out[max]; how many. The presenter's clicker stops there when
     * the slide's author marked no stops (deck.h). NULL or 0: the last step alone. */
    size_t (*phase_ends)(const struct app *a, long *out, size_t max);
    /* Optional: the fewest rows (at most rows) in which the scene drawn embedded at width
     * cols shows all that it shows in rows x cols, at every height from there up to rows:
     * the presenter puts the narration on the scene's page when both fit. NULL: rows. A
     * screen may remember its answers (struct rows_memo): the presenter asks every frame. */
    int (*rows_needed)(struct app *a, int cols, int rows);
    /* A key action of this screen: change *next (a copy of a->sc; the caller passes it
     * through app_set_scene) and/or set a->msg. false: not this screen's action (the
     * common actions of app.c take it). */
    bool (*action)(struct app *a, enum ui_action act, struct scene *next);
    /* Draw into r only (a terminal, or a lesson's scene pane). With a->embedded the key
     * bar row is left to the frame around. */
    void (*draw)(struct app *a, struct rect r);
    /* A worker result: true when it was this screen's and the screen changed. */
    bool (*result)(struct app *a, const struct result *r);
    bool (*busy)(const struct app *a); /* a job of this screen runs (timed refresh) */
    void (*cancelled)(struct app *a);  /* the worker was told to drop everything */
    /* The help's legend lines under the key list, at most `width` columns each. */
    void (*help)(const struct app *a, struct styled_lines *p, int width);
    void (*free_state)(struct app *a);
    /* Optional: the screen is being entered from another one (its key, through app.c's
     * common actions): post what it needs first and say where it starts (next->step). */
    void (*enter)(struct app *a, struct scene *next);
    /* Frames only (a->frame): a raw key (curses code) before it becomes an action, for a
     * line of text input; true = taken. */
    bool (*key)(struct app *a, int ch);
    /* Optional: a figure this screen measured (enum screen_figure), 0 when it has none. */
    double (*figure)(const struct app *a, enum screen_figure f);
    /* Optional: the real cluster's record this screen holds (--nccl-log), NULL none. */
    const struct rec_log *(*record)(const struct app *a);
    /* Optional, with record: the communicator of it the screen shows (an index into its
     * comms), -1 when it shows none in particular. */
    int (*record_comm)(const struct app *a);
    /* Optional: the plan this screen steps through and its trace (every rank's values at
     * every step), NULL none: the lesson player checks a prediction against the trace, the
     * presenter's highlight counts the plan's chunks and transfers, the deck walk both. */
    const struct plan *(*plan)(const struct app *a);
    const struct trace *(*trace)(const struct app *a);
    /* Optional: the words the screen says of step `step` of what it shows (its header's
     * phase or title and the step's sentence: "all-gather 1/3 Every rank r sends its fully
     * reduced chunk r to rank r+1, which stores it."), into buf; false: none. A choice's hold
     * reads them (app_hold): the scene stops before the step that tells its answer. */
    bool (*step_text)(const struct app *a, long step, char *buf, size_t n);
    /* Optional: the measurements this screen holds (check, measured row, sweep), NULL
     * none: the hierarchy screen shows the collectives screen's last all-reduce. */
    const struct meas *(*meas)(const struct app *a);
};

/* The entry of a screen kind, or NULL when this build has none. */
const struct screen_ops *screen_ops_of(enum screen_kind k);
/* A figure as the screen that measures it knows it (the first screen of the table that has
 * it), 0 when none has it yet. */
double screen_figure(const struct app *a, enum screen_figure f);
/* The real cluster's record a screen holds (the first of the table that has one), NULL. */
const struct rec_log *screen_record(const struct app *a);
/* The communicator of that record its screen shows, -1 none chosen. */
int screen_record_comm(const struct app *a);

/* The plan, trace and measurements a screen holds (the first of the table that has one,
 * shown or not: the collectives screen's last ones), NULL none. */
const struct plan *screen_plan(const struct app *a);
const struct trace *screen_trace(const struct app *a);
const struct meas *screen_meas(const struct app *a);

/* A screen's last answers to rows_needed, kept until what they were found from changes:
 * each is keyed by the size asked, the app's flags every layout reads (zoom, the short
 * panel, the free bar row, block digits, UTF-8) and one number of the screen's own
 * (`extra`: what it reads from the app besides them, e.g. the rank labels' width); the
 * screen clears the memo wherever it rebuilds what its layout is computed from. */
struct rows_memo {
    int n, next;
    struct rows_memo_entry {
        int cols, rows, extra, zoom;
        unsigned flags;
        int need;
    } e[4];
};
bool rows_memo_get(const struct rows_memo *m, const struct app *a, int cols, int rows,
                   int extra, int *need);
void rows_memo_put(struct rows_memo *m, const struct app *a, int cols, int rows, int extra,
                   int need);
void rows_memo_clear(struct rows_memo *m);

/* SF_* bits of the fields in which a and b differ. */
unsigned screen_scene_diff(const struct scene *a, const struct scene *b);

#endif
