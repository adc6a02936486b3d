/* schemes.h - the internal interface between the training driver (train.c) and the
 * parallel schemes (ddp.c, tp.c, pp.c, zero.c, moe.c). The driver starts one thread per rank,
 * calls the scheme's setup in that thread (so every buffer is first touched by the rank that
 * uses it), then step() once per training step between barriers, and finally params() from the
 * driver thread, rank by rank, to assemble the trained weights. */
#ifndef COLLVIZ_PARALLEL_SCHEMES_H
#define COLLVIZ_PARALLEL_SCHEMES_H

#include <stddef.h>

#include "backend/comm.h"
#include "device/dev.h"
#include "parallel/probe.h"
#include "parallel/train.h"

struct rank_state {
    const struct train_config *cfg;
    int rank, nranks;
    int step; /* the step being run */
    struct comm *comm;
    struct dev *dev; /* where the rank's buffers live and its math runs (dev.h) */
    struct timeline *tl;
    struct train_memory mem;      /* filled by setup (comm is added by the driver) */
    struct train_memory mem_peak; /* live buffers at their high-water mark; all zero: the
                                     same as mem (nothing freed within a step) */
    double loss_sumsq;            /* step(): sum of squares of this rank's share of the final
                                     activations (0 if it holds none); loss = Σ / (B·D) */
    double pipe_end;           /* pp: when this stage finished its last backward (absolute) */
    struct train_probe *probe; /* display-scale recorder (probe.h), usually NULL */
    struct train_moe *moe;     /* moe: the run's routing record; a rank writes only its own
                                  entries (rank r's row of routed/kept, [r] of the rest) */
    void *priv;                /* the scheme's own state */
    char err[200];             /* a scheme's own error (not a communicator's) */
};

struct scheme_ops {
    int (*setup)(struct rank_state *rs);
    int (*step)(struct rank_state *rs);
    /* Write this rank's part of the full [L][D][D] weights; where ranks hold replicas
     * (DDP), rank 0 writes and the others raise *replica_diff to their largest
     * difference from it. */
    void (*params)(struct rank_state *rs, float *full, double *replica_diff);
    void (*cleanup)(struct rank_state *rs);
};

/* A replica's n weights w into full: rank 0 (first) copies them, the others raise *diff to
 * their largest |w - full| (train.c; DDP's and ZeRO 1-2's params). */
void scheme_replica_fold(const float *w, float *full, size_t n, bool first, double *diff);

extern const struct scheme_ops scheme_ddp;
extern const struct scheme_ops scheme_tp;
extern const struct scheme_ops scheme_pp;
extern const struct scheme_ops scheme_zero; /* zero1, zero2, zero3 (cfg->scheme says) */
extern const struct scheme_ops scheme_moe;  /* moe.c */

/* Record a compute event on the rank's lane 0 from t0 to now (mb: micro-batch or -1). */
void rank_compute_event(struct rank_state *rs, const char *label, double t0, int mb);

#endif
