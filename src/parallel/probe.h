/* probe.h - an optional recorder inside the training engine, for the parallelism screen:
 * at every stage boundary of one training step (a layer's forward or backward, a
 * collective, a pipeline micro-batch, the optimizer step) each rank leaves a small copy of
 * what it holds - weight shard, activations, gradients - with a label. The screen steps
 * through these records, so its frames are the real engine's numbers, not a cartoon.
 *
 * Display scale only: the probe refuses sizes whose tensors would not fit on a screen
 * (probe_check_config). With no probe (train_run) every hook is one NULL test.
 *
 * Ticks. Records are ordered by a logical clock: a compute record (or a collective) takes
 * one tick on its rank; a rank that receives a pipeline message cannot compute before
 * the tick its sender computed it. With compute taking one unit and messages free, this
 * is exactly the ideal unit-time schedule, so the frames of a pipeline step line up with
 * the model Gantt chart (pp: GPipe or 1F1B), and every SPMD scheme (ddp, tp) gets the
 * same tick on every rank for the same stage. The order does not depend on thread timing.
 *
 * Each record may name, for each matrix, the block of the single-device computation it
 * should equal (probe_ref); probe_reference computes those tensors at display scale with
 * the same arithmetic (mlp.h), so the screen can show "= one device" per frame. */
#ifndef COLLVIZ_PARALLEL_PROBE_H
#define COLLVIZ_PARALLEL_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/coll.h"
#include "parallel/mlp.h"

struct train_config;

#define PROBE_MAX_RANKS 4
#define PROBE_MAX_LAYERS 4
#define PROBE_MAT_MAX 64 /* values of one matrix: D·D and B·D must fit */
#define PROBE_MAX_MATS 6
#define PROBE_MAX_RECS 1024
#define PROBE_MAX_PENDING 8 /* collectives in flight on one rank (overlapped DDP) */

enum probe_kind {
    PROBE_START,   /* before the step: what the rank holds */
    PROBE_COMPUTE, /* a layer's (or stage's) forward or backward, the loss */
    PROBE_COLL,    /* a collective: mats[0] = input, mats[1] = output (raw buffers) */
    PROBE_OPTIM,   /* after AdamW */
};

/* Which single-device tensor a matrix is a block of. */
enum probe_ref {
    PROBE_REF_NONE, /* partial (a rank's own share before a reduction): no counterpart */
    PROBE_REF_X,    /* x_l, the input of layer l (x_L = the output), B×D */
    PROBE_REF_DX,   /* d loss / d x_l, B×D (dx_L = the loss gradient) */
    PROBE_REF_W,    /* W_l before the step, D×D */
    PROBE_REF_DW,   /* d loss / d W_l, D×D */
    PROBE_REF_WNEW, /* W_l after the step's AdamW update */
    PROBE_REF_COUNT
};

struct probe_mat {
    char name[24]; /* "W1[:,2:4]", "x2", "dW0" */
    int rows, cols;
    enum probe_ref ref;
    int layer;  /* of ref */
    int r0, c0; /* top-left of the block in the single-device tensor */
    bool key;   /* the matrix to keep when the screen has room for one per rank */
    float v[PROBE_MAT_MAX];
};

struct probe_rec {
    int rank, tick, seq; /* seq: the rank's record number */
    enum probe_kind kind;
    int layer; /* or -1 */
    int mb;    /* pipeline micro-batch or -1 */
    bool fwd;
    /* pipeline messages: received before this compute, sent after it (-1 = none) */
    int recv_from, recv_tag, send_to, send_tag;
    /* PROBE_COLL: what ran (plan: ring, as cpu_comm.c runs it), and how to show its working
     * buffer: view_rows × view_cols, laid out as pieces of view_rows × piece_cols one
     * after another (piece k = columns [k·piece_cols, (k+1)·piece_cols)); piece_cols ==
     * view_cols is plain row-major. */
    enum coll coll;
    enum redop op;
    size_t count;
    int view_rows, view_cols, piece_cols;
    bool async; /* ran on the helper lane, overlapped with backward */
    char label[160];
    int nmats;
    struct probe_mat mats[PROBE_MAX_MATS];
};

struct train_probe;

/* A probe recording training step `step` (0-based) of a run. */
struct train_probe *probe_new(int step);
void probe_free(struct train_probe *p);

/* Whether cfg is small enough to record (W, L, D, B within the limits above). CV_OK or
 * CV_EINVAL with one line naming the value. */
int probe_check_config(const struct train_config *cfg, char *err, size_t errlen);

/* After the run: the records sorted by (tick, rank). */
size_t probe_count(const struct train_probe *p);
const struct probe_rec *probe_get(const struct train_probe *p, size_t i);
int probe_nticks(const struct train_probe *p); /* largest tick + 1 (0 = none) */
int probe_step(const struct train_probe *p);
bool probe_overflowed(const struct train_probe *p); /* more than PROBE_MAX_RECS */

/* ---- recording (called by the schemes from their rank threads) ---- */

/* Start a record on the rank's own scratch slot; NULL when p is NULL or step is not the
 * probed one (so every call below may be given NULL). */
struct probe_rec *probe_begin(struct train_probe *p, int step, int rank, enum probe_kind kind,
                              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Append a rows × cols matrix read with row stride ld. */
struct probe_mat *probe_add(struct probe_rec *r, const char *name, int rows, int cols,
                            const float *v, int ld, enum probe_ref ref, int layer, int r0,
                            int c0);
/* Mark m (may be NULL) as the record's key matrix. */
void probe_mat_key(struct probe_mat *m);
/* The same from `pieces` blocks of rows × pcols laid out one after another (a collective's
 * piece layout), shown side by side as rows × (pieces·pcols). */
struct probe_mat *probe_add_pieces(struct probe_rec *r, const char *name, int rows, int pcols,
                                   int pieces, const float *v, enum probe_ref ref, int layer,
                                   int r0, int c0);
/* Assign the record its tick and store it. */
void probe_commit(struct train_probe *p, struct probe_rec *r);
/* After the rank threads are joined: sort the records by (tick, rank). */
void probe_finish(struct train_probe *p);

/* A collective: begin captures the input (count_in values) into a pending slot and
 * returns the slot (-1 when not recording); end captures the output (count_out values)
 * and returns the record, for the caller to add the result in its own shape and commit. */
int probe_coll_begin(struct train_probe *p, int step, int rank, enum coll c, enum redop op,
                     size_t count, const float *in, size_t count_in, int view_rows,
                     int view_cols, int piece_cols, bool async, const char *label);
struct probe_rec *probe_coll_end(struct train_probe *p, int step, int rank, int slot,
                                 const float *out, size_t count_out);

/* ---- the single-device counterpart ---- */

/* Every tensor of the probed step computed on one device with the same functions. */
struct probe_reference {
    int layers, dim, batch;
    float *x;    /* [L+1][B][D] */
    float *dx;   /* [L+1][B][D] */
    float *w;    /* [L][D][D] before the step */
    float *dw;   /* [L][D][D] */
    float *wnew; /* [L][D][D] after AdamW */
    double loss;
};

/* Run steps 0..step-1 of the reference trainer, then step `step` keeping every tensor. */
void probe_reference(const struct train_config *cfg, int step, struct probe_reference *ref);
void probe_reference_free(struct probe_reference *ref);

/* Largest |m - counterpart| over the matrix, or -1 when it has none (PROBE_REF_NONE) or
 * the block lies outside the reference. */
double probe_mat_deviation(const struct probe_reference *ref, const struct probe_mat *m);

#endif
