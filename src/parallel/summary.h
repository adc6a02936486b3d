/* summary.h - one training run at lecture scale boiled down to plain, fixed-size data: the
 * scheme's and the single device's loss per step, times, bytes, the deviation between
 * them, memory per rank, the napkin figures, the pipeline bubble and the last step's
 * timeline. This is what the worker hands the parallelism screen (JOB_TRAIN): no pointers,
 * so it can be copied through the worker's queue (and later sent between processes). */
#ifndef COLLVIZ_PARALLEL_SUMMARY_H
#define COLLVIZ_PARALLEL_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "core/timeline.h"
#include "parallel/train.h"

#define TSUM_MAX_STEPS 16
#define TSUM_MAX_EVENTS 512

struct train_summary {
    struct train_config cfg;
    int nranks;
    int steps_done;
    double loss[TSUM_MAX_STEPS];     /* measured: the scheme */
    double ref_loss[TSUM_MAX_STEPS]; /* measured: one device, same data and weights */
    double time_s[TSUM_MAX_STEPS];
    double comm_s[TSUM_MAX_STEPS];       /* mean per rank, own thread */
    double comm_async_s[TSUM_MAX_STEPS]; /* mean per rank, helper lane (overlapped DDP) */
    size_t comm_bytes[TSUM_MAX_STEPS];   /* busiest rank's bytes sent */
    double ref_time_s[TSUM_MAX_STEPS];
    struct train_deviation dev;
    double replica_max_diff;
    struct train_napkin napkin;
    double bubble_measured, bubble_model;       /* pp; negative otherwise */
    struct train_memory mem[CV_MAX_RANKS];      /* allocated, not measured */
    struct train_memory mem_peak[CV_MAX_RANKS]; /* live at the high-water mark */
    struct train_memory ref_mem;
    int ev_step; /* the step whose events follow (the last one) */
    int nevents;
    bool events_truncated;
    struct tl_event events[TSUM_MAX_EVENTS]; /* sorted by (rank, lane, t0), times from
                                                the step's start */
    char desc[160];
    double wall_s; /* the whole job: reference and scheme */
    /* moe, its last step (train.h's struct train_moe): the capacity (0: dropless), the
     * drops over all layers and ranks, the busiest rank's dispatch and combine bytes and
     * their busbw measured (bytes/s); all zero for other schemes */
    struct {
        int capacity;
        size_t dropped, dispatch_bytes, combine_bytes;
        double dispatch_busbw, combine_busbw;
    } moe;
};

/* Run cfg (at most TSUM_MAX_STEPS steps) and the single-device reference with the same
 * sizes, and fill *out. cancel may be NULL. Blocking: call it from a worker thread. */
int train_summary_run(const struct train_config *cfg, struct train_summary *out,
                      volatile int *cancel, char *err, size_t errlen);

#endif
