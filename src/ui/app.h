/* app.h - the interactive program's state and its one door, app_set_scene().
 *
 * Where each file of src/ui/ stands and what it holds: docs/architecture.md (the one room
 * map of the whole source tree).
 *
 * The state is a scene (scene.h) plus what is derived from it, each screen's own (the
 * collectives screen's plan, trace, layout and measurements are its own: collstate.h),
 * the backend every screen measures on and how the scene is viewed. Only app_set_scene
 * changes the scene: key actions, the command line's --scene and options, play and
 * lessons all build the next scene and pass it through the door, which checks it, works
 * out what changed and lets the screen rebuild and post jobs. Measured figures come only
 * from the worker. Only the main thread touches any of this. */
#ifndef COLLVIZ_UI_APP_H
#define COLLVIZ_UI_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "scene/scene.h"
#include "worker/worker.h"
#include "ui/kit/draw.h"
#include "ui/kit/keys.h"
#include "ui/kit/theme.h"
#include "ui/overlays/hw.h"

#define APP_BAR_MAX 32

#define APP_ZOOM_MAX 3 /* struct app.zoom */

#define APP_HOLD_MAX 32       /* phrases a choice's hold looks for (app_hold) */
#define APP_PLAY_PERIOD_S 1.0 /* seconds a step while playing, unless the scene says */

struct app {
    /* Shared: what is shown (the collective, ranks, sizes, screen...). Every screen reads it,
     * and the keys, the lesson player and the presenter change it, only through the door. */
    struct scene sc;
    bool have_scene; /* sc has been through app_set_scene once */

    /* Each screen's own derived state (screens.h), NULL until it is first used: the
     * collectives screen's plan, trace, layout and measurements (collectives/collstate.h),
     * the topology's record... Other screens, the lesson player and the presenter ask for
     * what they show of it through screen_ops (screen_trace, screen_meas...). */
    void *screen_state[SCREEN_KIND_COUNT];
    /* A frame around the scene's screen (the lesson player, screens/lesson/): it draws the
     * whole terminal, embedding the screen in a rect, and has the first word on keys. NULL =
     * the scene's screen alone. */
    const struct screen_ops *frame;
    void *frame_state;

    /* The backend, through the worker only. Shared: one worker runs every screen's jobs,
     * and the panel, the b overlay and the notes name it. */
    struct worker *w;
    char backend_name[16];
    char backend_desc[200]; /* "4 ranks = 4 CPU threads on 2 cores ..." */
    char backend_note[240]; /* why there is no backend or worker */
    struct hw_info hw;      /* the machine and every backend's status (the b overlay) */
    int max_ranks;          /* of the backend; 0 = none */
    char rank_label[CV_MAX_RANKS][64];
    bool auto_measure; /* measure whenever the scene changes */

    /* view */
    bool playing;
    double next_tick;   /* now_s() of the next auto-advance */
    long play_stop;     /* > 0: playing ends at this step (the presenter's next stop) */
    double play_period; /* > 0: seconds a step while playing to play_stop */
    bool help;
    int help_page, help_npages; /* the help's page (PgDn / PgUp) and how many it has */
    bool hw_open;               /* the backends and hardware overlay (b) */
    bool embedded; /* the screen is drawn inside a frame (a lesson): no key bar of its own */
    enum keys_surface surface; /* where keys are read (kit/keys.h): hints name its keys */
    bool big_digits; /* per-rank values in block digits where they fit (the presenter) */
    int zoom; /* the presenter's zoom, 0..APP_ZOOM_MAX: 1 hides the measured panel, 2 also
                 draws block digits twice as wide, 3 shows only the rank boxes, digits twice
                 as wide and tall (each the largest that fits) */
    bool no_key_hints; /* an audience's screen (the presenter): no text names a key */
    bool room;         /* the audience's screen (the presenter): no text for the speaker or a
                          developer either (a key's complaint, why a backend cannot run, a command
                          to type); the presenter sends those to the notes terminal */
    bool bar_row_free; /* embedded (the presenter): the screen's layout counts the undrawn
                          key bar's row, so a scene fits one row under LAYOUT_MIN_ROWS */
    bool panel_short;  /* rows_needed may count the measured panel at one line: the presenter
                          asks so when a slide's question does not fit beside the scene (the
                          backend's figures are on the notes terminal) */
    /* Predict first (set by the lesson player around drawing a slide's scene): rank r's
     * values are drawn as "?" from step hide_from[r] on, until step hide_to[r] (exclusive;
     * -1: to the end), while hide_any (app_box_hidden). */
    bool hide_any;
    long hide_from[CV_MAX_RANKS];
    long hide_to[CV_MAX_RANKS];
    /* Predict first for a choice (app_hold): while nhold > 0 the scene stays before the first
     * step whose words (screen_ops.step_text) say one of hold_words; hold_step is the last
     * step it may show, -1 when none says one (or step 0 does: nothing to stop before). */
    const char *hold_words[APP_HOLD_MAX];
    size_t nhold;
    long hold_step;
    bool utf8, color;
    struct theme th;
    const struct glyphs *g;
    char msg[200];      /* one-line notice in the status row, cleared by the next key */
    struct rect bar_at; /* where the key bar was drawn (mouse clicks) */
    struct bar_item bar[APP_BAR_MAX];
    int nbar;
};

void app_init(struct app *a);
void app_free(struct app *a);

/* The door: make *next the shown scene. Checks it (scene_check; a screen kind this build
 * lacks is refused), works out what changed, and lets the screen rebuild and post jobs:
 * a new collective, algorithm, op, root, world size or measurement size cancels what the
 * worker runs and checks and (auto_measure) measures again; new display inputs post a new
 * check; a step or highlight changes only what is drawn. step=end and steps past the end
 * become the last step. A scene with autoplay > 0 starts playing on entry (any change but
 * step, highlight and size). On error nothing changes: CV_EINVAL / CV_EUNSUPPORTED with a
 * message in err. */
int app_set_scene(struct app *a, const struct scene *next, char *err, size_t errlen);

/* Cancel whatever the worker is doing (every screen is told). */
void app_cancel(struct app *a);
/* Take w as the UI's worker: the backend's name, ranks and b-overlay facts come from its
 * facts (`requested` is --backend, why the reason NCCL was passed over). */
void app_use_worker(struct app *a, struct worker *w, const char *requested, const char *why);
/* Open backend `name` and start a's worker on it, as the interactive entry points do: auto
 * falls back to the CPU ranks; without a backend or a worker the animation runs alone
 * (backend_note says why; the panel's nccl line and the b overlay say why NCCL was passed
 * over). Returns CV_OK, except with strict_nccl where `name` is an NCCL backend that cannot
 * open: then its error in err, nothing recorded. */
int app_open_backend(struct app *a, const char *name, bool strict_nccl, char *err,
                     size_t errlen);
/* Stop the worker (after the terminal is restored): cancel what it runs and wait up to
 * wait_s seconds for it to notice; the CPU ranks notice within a step, NCCL only between
 * iterations, and one iteration at GiB sizes can take seconds, so quitting does not wait
 * for that. Returns false when it was still busy: the caller then ends the process without
 * joining it. */
bool app_stop_worker(struct app *a, double wait_s);
/* Refresh backend_desc and rank labels for the current world size. */
void app_backend_text(struct app *a);
/* The screen of the current scene (never NULL once a scene is set). */
const struct screen_ops *app_screen(const struct app *a);

/* Perform one action from the key table (through the screen's own actions, then the
 * common ones, then the door). Returns false when the program should quit. */
bool app_do(struct app *a, enum ui_action act, double now);

/* ---- the shared scene keys: one handler for the explorer, the player and the presenter --
 * A surface reads a key with app_key_action (its own rows win: the player's n is the next
 * slide) and hands every scene action to app_scene_action, so each scene key of the
 * explorer works on any scene a surface shows, through the one door. */

/* The action of key ch on a->surface while the shown screen's rows apply. */
enum ui_action app_key_action(const struct app *a, int ch);
/* Perform scene action act (keys_is_scene_action) on the shown scene: the shown screen's own
 * action, else app.c's common ones, the new scene through app_set_scene; a->msg may say why
 * nothing changed ("ranks stay within 1..16"). false, nothing done, when act is not a scene
 * action (a surface's own key, help, quit...). */
bool app_scene_action(struct app *a, enum ui_action act, double now);
/* Both: true when ch is a scene key on a->surface and was performed. */
bool app_scene_key(struct app *a, int ch, double now);
/* The name of the key that does act on a->surface ("s"), or NULL when no key does there:
 * a hint naming a key is shown only when this is not NULL. */
const char *app_key_hint(const struct app *a, enum ui_action act, char *buf, int n);

/* a->msg = what ("already measuring") and, where a key cancels on a->surface, "(x cancels)". */
void app_busy_msg(struct app *a, const char *what);
/* buf = text and, where a key does act on a->surface, " (K does)" with K that key ("the
 * schedule applies to pp (P opens the parallelism screen)"); on an audience's screen
 * (no_key_hints), or where no key does act, the text alone. app_msg_keyed writes a->msg. */
void app_keyed(const struct app *a, char *buf, size_t n, const char *text, enum ui_action act,
               const char *does);
void app_msg_keyed(struct app *a, const char *text, enum ui_action act, const char *does);

/* Apply one worker result; true when the screen changed. */
bool app_result(struct app *a, const struct result *r);

/* Advance one step if playing and the tick is due; returns true if the screen changed. */
bool app_tick(struct app *a, double now);
/* Milliseconds until the next timed event (play tick, elapsed-time refresh), -1 = none. */
int app_timeout_ms(const struct app *a, double now);

/* The number of steps of the current screen and the current one. */
size_t app_nsteps(const struct app *a);
/* The shown screen's phase ends (screen_ops.phase_ends; 0 when it has none). */
size_t app_phase_ends(const struct app *a, long *out, size_t max);
size_t app_step(const struct app *a);
/* The fewest rows (at most rows) the shown scene needs at width cols to show all that it
 * shows in rows x cols (screen_ops.rows_needed; rows when the screen does not say). */
int app_rows_needed(struct app *a, int cols, int rows);
/* The same with the measured panel at one line (app.panel_short): at most app_rows_needed. */
int app_rows_needed_short(struct app *a, int cols, int rows);

/* Hold the scene before the first step whose words say one of words[0..n) (a choice's
 * `shows:` phrases, case ignored; the screen's step_text), for this scene and every scene
 * set after it, until app_hold(a, NULL, 0): app_set_scene and play stop there, and a step
 * asked past it says "answer first" (a->msg, not in the room). The words must outlive the
 * hold. The current step is brought back to the hold at once. */
void app_hold(struct app *a, const char *const *words, size_t n);

/* Is rank r's box drawn as "?" at step, while hide_any (predict first: hide_from, hide_to;
 * after the drawing, what it hid)? */
bool app_box_hidden(const struct app *a, int r, long step);

#endif
