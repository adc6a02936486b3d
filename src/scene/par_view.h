/* par_view.h - the parallelism screen's display-scale model, without curses (the screen and
 * the handouts' paper pictures both draw from it): it trains the
 * lecture's MLP at a size whose every number fits on screen (train_run_probe with a
 * probe, on the UI thread: a few milliseconds at these sizes), turns the engine's records
 * into frames, and says what each rank holds in each frame.
 *
 * Frames. Records come with a logical tick (probe.h); a frame is one tick, except that a
 * collective (all ranks in the same collective at the same tick) is stepped through its
 * plan: the trace executor (core/trace.h) runs the very ring plan cpu_comm.c ran, on the
 * inputs the engine recorded, and its last snapshot is checked against the engine's
 * output (par_tick.engine_mismatch). Pipeline ticks line up with the ideal unit-time
 * schedule (par_sched.h): at tick t a stage either computes one micro-batch or is idle.
 *
 * Values are shown as integers with a per-matrix power of ten ("83 ×10⁻²" for 0.83),
 * two significant digits of the largest value; collectives keep one scale over all their
 * steps so numbers do not jump while stepping. */
#ifndef COLLVIZ_SCENE_PAR_VIEW_H
#define COLLVIZ_SCENE_PAR_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"
#include "core/trace.h"
#include "parallel/probe.h"
#include "parallel/train.h"
#include "scene/par_sched.h"

#define PAR_MIN_RANKS 2
#define PAR_MAX_RANKS PROBE_MAX_RANKS
#define PAR_MAX_FRAMES 1024

enum { PAR_HL_SRC = 1, PAR_HL_DST = 2 };

/* One matrix as the screen shows it. */
struct par_cells {
    char name[32];
    int rows, cols;
    float v[PROBE_MAT_MAX];
    uint32_t mask[PROBE_MAT_MAX];    /* masked: the ranks whose input each value holds */
    unsigned char hl[PROBE_MAT_MAX]; /* PAR_HL_*: sent / written by this plan step */
    bool masked;                     /* a collective's working buffer */
    int exp;                         /* values shown as round(v / 10^exp) */
    double dev;                      /* largest |value - single device|, -1 = none */
    bool key;
    int mark_c0, mark_c1; /* columns of this rank's piece (in: all-gather, out: reduce-
                             scatter); mark_c1 <= mark_c0 = none */
    const char *mark;     /* "in" or "out" */
};

struct par_tick {
    const struct probe_rec *rec[PAR_MAX_RANKS]; /* NULL: the rank does nothing (bubble) */
    int tick;
    bool coll;
    struct plan plan;
    struct trace trace;
    bool have_trace;
    int exp;              /* one scale for every snapshot of the trace */
    long engine_mismatch; /* values where the trace's output differs from the engine's */
};

struct par_frame {
    int tick; /* index into par_view.ticks */
    int sub;  /* collective: snapshot 0..nsteps of its plan; otherwise 0 */
};

struct par_view {
    struct train_config cfg; /* display scale */
    bool ok;
    char err[200];
    struct train_probe *probe;
    struct probe_reference ref;
    struct par_tick *ticks;
    int nticks;
    struct par_frame frames[PAR_MAX_FRAMES];
    int nframes;
    struct psched sched; /* pp: the ideal schedule of cfg */
    bool have_sched;
    double loss;     /* the display run's loss (probed step) */
    double max_dev;  /* largest deviation from one device over every checked matrix */
    int nchecked;    /* matrices with a single-device counterpart */
    long mismatches; /* sum of engine_mismatch: trace vs engine, should be 0 */
};

/* The display-scale configuration of a scheme at W ranks: tiny L, D, B (and M), one step,
 * AdamW defaults, seed 0. */
void par_display_config(enum train_scheme s, int W, enum pp_schedule sched, bool overlap,
                        struct train_config *c);

/* Train at display scale and build the frames. On failure v->ok is false and v->err says
 * why (the view is still safe to free and draw). */
void par_view_build(struct par_view *v, const struct train_config *display);
void par_view_free(struct par_view *v);

/* The frame's tick, and its records. */
const struct par_tick *par_frame_tick(const struct par_view *v, int f);
/* The plan step a collective frame shows (NULL for snapshot 0 and other frames). */
const struct step *par_frame_step(const struct par_view *v, int f);
/* Fill out[0..max) with what rank r shows in frame f; returns how many. key_only keeps
 * the key matrices. A rank with no record at this tick shows its latest earlier record
 * (*idle set true). */
int par_frame_cells(const struct par_view *v, int f, int r, bool key_only,
                    struct par_cells *out, int max, bool *idle);
/* The record rank r shows in frame f (its own at this tick, or its latest earlier one),
 * or NULL before its first. */
const struct probe_rec *par_frame_rec(const struct par_view *v, int f, int r, bool *idle);

/* The frame's sentence: the engine's label (rank 0's for the SPMD schemes), a plan step's
 * sentence for a collective, what every stage does for a pipeline tick. */
void par_frame_text(const struct par_view *v, int f, char *buf, size_t n);
/* Short form for the status line: "layer 1 forward", "all-gather x2 3/4", "tick 5". */
void par_frame_title(const struct par_view *v, int f, char *buf, size_t n);
/* Largest deviation from one device among the matrices of frame f (over all ranks), or -1
 * when none has a counterpart. */
double par_frame_dev(const struct par_view *v, int f);
/* The ideal-schedule column of frame f (pp), or -1 before/after the span. */
int par_frame_sched_col(const struct par_view *v, int f);

/* The ways the screen names rank r's box in frame f, longest first: "rank 0 · rows 0-1 ·
 * shard 0 of 4", "stage 1 · L1 · F mb2", "rank 2 · columns 2" ... "r0" (0-based ranks,
 * rows, columns, shards, stages and micro-batches, as every label of the screen); sep
 * joins the parts. The screen takes the longest that fits its box; paper the longest.
 * Returns how many (<= PAR_LABEL_FORMS). */
#define PAR_LABEL_FORMS 8
int par_rank_label_forms(const struct par_view *v, int f, int r, bool idle, const char *sep,
                         char forms[][96]);

/* Whether rank r takes part in frame f: a transfer of the collective step touches it, or
 * it computes (idle: it has no record at this tick). */
bool par_frame_rank_hot(const struct par_view *v, int f, int r, bool idle);
/* The pipeline messages sent in frame f: stage `from` sends `what` of micro-batch mb to
 * stage `to` ("x1", or "dx2" going back). Returns how many (<= max). */
struct par_send {
    int from, to, mb;
    char what[24];
};
int par_frame_sends(const struct par_view *v, int f, struct par_send *out, int max);
/* What a frame without a collective or message says: "no communication: every rank
 * computes on what it holds", "no messages this tick"... */
const char *par_frame_quiet(const struct par_view *v, int f);

/* ---- numbers ---- */

/* The power of ten that shows maxabs with two significant digits (|round| <= 99). */
int par_exp_for(double maxabs);
/* "83", "-7", "0" */
void par_cell_text(float v, int exp, char *buf, size_t n);
/* "×10⁻²" (utf8) or "x1e-2"; "" for exp 0. */
void par_scale_text(int exp, bool utf8, char *buf, size_t n);
/* A deviation as "6e-08" ("0" when exactly 0). */
void par_dev_text(double dev, char *buf, size_t n);

/* Agreement with one device shown per matrix: within this, a check mark. */
#define PAR_DEV_TOL 1e-5
/* The two header lines of a matrix: its name with the one-device badge ("x2 ✓"), and its
 * shape with the scale ("4×8 ×10⁻²"). */
void par_cells_head(const struct par_cells *c, bool utf8, char *name, size_t nn, char *shape,
                    size_t ns);

#endif
