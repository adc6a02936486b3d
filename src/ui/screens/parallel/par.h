/* par.h - the parallelism screen (screens.h entry `screen_parallel`): its state (the
 * display-scale view of scene/par_view.h and the lecture-scale run the worker trains), what the
 * actions do on it (par.c) and how it is drawn (pardraw.c).
 *
 * Two scales, both real. Display scale: the scheme trains the lecture's MLP at a size
 * whose every number fits in a box, on the UI thread (milliseconds), and the screen steps
 * through what each rank held. Lecture scale: L=4, D=1024, B=128, W ranks, 5 steps, run
 * on the worker thread (JOB_TRAIN, seconds) next to the single device, for the measured
 * panel: loss against one device, time, bytes against the napkin math, memory, and for the
 * pipeline the measured timeline beside the ideal schedule. */
#ifndef COLLVIZ_UI_SCREENS_PARALLEL_PAR_H
#define COLLVIZ_UI_SCREENS_PARALLEL_PAR_H

#include <stdbool.h>
#include <stdint.h>

#include "parallel/summary.h"
#include "worker/worker.h"
#include "ui/screens/screens.h"
#include "ui/screens/parallel/parlayout.h"
#include "ui/screens/parallel/parmoe.h"
#include "scene/par_view.h"

struct app;

extern const struct screen_ops screen_parallel;

/* The screen's state, kept in a->screen_state[SCREEN_PARALLEL] (NULL until first shown). */
#define PAR(a) ((struct par_screen *)(a)->screen_state[SCREEN_PARALLEL])

#define PAR_LECTURE_STEPS 5

struct par_screen {
    struct par_view view;
    bool built;
    struct train_config built_for; /* the display configuration of `view` */
    struct par_shape *shapes;      /* [nframes][W], for the layout (glyph mode `shapes_utf8`) */
    bool shapes_utf8;
    char longest_what[600];
    char **whats; /* every frame's sentence (nwhats), for the rows the layout gives them */
    int nwhats;
    struct par_layout lay;
    struct rows_memo rows_memo; /* par_rows_needed's answers for this view (par_metrics) */

    /* the lecture-scale runs, through the worker only: the last finished one of each
     * scheme is kept, so switching back and forth does not train again */
    uint64_t train_id; /* outstanding JOB_TRAIN, 0 = none */
    double train_started;
    struct train_config train_cfg; /* what was asked */
    bool have[TRAIN_SCHEME_COUNT];
    struct train_summary sum[TRAIN_SCHEME_COUNT];
    char train_err[200]; /* of the last run of train_cfg, "" if none */

    /* moe: its own view (parmoe.h), built for moe_w ranks (0: not built) */
    struct par_moe moe;
    int moe_w;
};

/* The display and lecture-scale configurations of the scene's scheme. */
void par_display_of(const struct app *a, struct train_config *c);
void par_lecture_of(const struct app *a, struct train_config *c);
/* Whether the lecture-scale run goes to the GPUs (the collectives' backend is NCCL and
 * there is a GPU per rank), and the words for where it runs: "nccl", "cpu ranks", or
 * "cpu ranks (more ranks than GPUs)". A finished run is shown only for the configuration
 * it ran (backend included), so these words are also where the shown figures came from:
 * every label of the screen that says where something ran uses them. */
bool par_on_gpus(const struct app *a);
const char *par_backend_note(const struct app *a);

/* Allocate the state on first use; build the view for the scene when it changed. */
void par_rebuild(struct app *a);
void par_free(struct app *a);
/* Number of frames - 1 (the last step index), 0 before a view exists. */
size_t par_nsteps(const struct app *a);
/* The last frame of each phase of the step (screen_ops.phase_ends). */
size_t par_phase_ends(const struct app *a, long *out, size_t max);

/* Post a JOB_TRAIN for the scene (cancelling what the worker runs); no-op without one.
 * par_train_if_needed posts only when no finished or running run matches the scene (a run
 * for another configuration is cancelled). */
void par_train(struct app *a);
void par_train_if_needed(struct app *a);
/* The finished lecture-scale run of the scene's configuration, or NULL. */
const struct train_summary *par_summary(const struct app *a);
/* The outstanding job was cancelled. */
void par_cancelled(struct app *a);
bool par_training(const struct app *a);
/* Apply a worker result; true when it belonged to the outstanding training job. */
bool par_apply(struct app *a, const struct result *r);

#endif
