/* meas.h - the measurement state, fed only by worker results, and the text shown of it
 * (times, bandwidths, the lecture's busbw formula with the numbers plugged in), shared by
 * the collectives screen's measured panel, the hierarchy screen and app.c. No curses,
 * so the arithmetic of what the panel prints is unit-tested (tests/unit/test_meas.c).
 *
 * Every number here came from a backend: a result whose job id is not the one the UI is
 * waiting for is stale (the scene changed since) and is dropped. */
#ifndef COLLVIZ_UI_MEAS_H
#define COLLVIZ_UI_MEAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/worker.h"

#define MEAS_SWEEP_MAX 24

enum meas_check {
    CHECK_NONE,
    CHECK_PENDING,
    CHECK_PASS,
    CHECK_FAIL,
    CHECK_ERROR,
    CHECK_SKIPPED,
};

struct meas {
    /* display-scale check: trace vs backend */
    uint64_t check_id;
    enum meas_check check;
    long mismatches;
    long inexact; /* elements equal only within float rounding (result.inexact) */
    char check_msg[200];

    /* one measurement */
    uint64_t measure_id;
    struct bench_params measure_params; /* what was asked (coll, op, nranks, bytes) */
    double measure_started;             /* now_s() when posted */
    bool have_row;
    struct bench_params row_params; /* what the shown row was asked as */
    struct bench_result row;
    char row_backend[16];
    char measure_err[200]; /* last measurement's error, "" if none */

    /* sweep: busbw vs size */
    uint64_t sweep_id;
    struct bench_params sweep_params;
    double sweep_started;
    int nsweep, sweep_total;
    struct bench_result sweep[MEAS_SWEEP_MAX];
    char sweep_err[200];
    /* the same sweep in whole chunks (CPU: --slices 1), beside the sliced one above, so the
     * plot compares the two; 0 sizes when the backend does not slice (NCCL) */
    uint64_t whole_id;
    int nwhole;
    struct bench_result whole[MEAS_SWEEP_MAX];
};

void meas_init(struct meas *m);

/* Record that a job was posted (the UI calls these right after worker_post). */
void meas_check_posted(struct meas *m, uint64_t id);
void meas_check_skipped(struct meas *m, const char *why);
void meas_measure_posted(struct meas *m, uint64_t id, const struct bench_params *p, double now);
void meas_sweep_posted(struct meas *m, uint64_t id, const struct bench_params *p, int total,
                       double now);
/* The whole-chunk companion of the sweep just posted. */
void meas_whole_posted(struct meas *m, uint64_t id);
/* Everything outstanding was cancelled (by the user or a scene change). */
void meas_cancelled(struct meas *m);

/* Apply one worker result. Returns true when it belonged to an outstanding job. */
bool meas_apply(struct meas *m, const struct result *r);

bool meas_measuring(const struct meas *m); /* a MEASURE is outstanding */
bool meas_sweeping(const struct meas *m);  /* a SWEEP (or its whole-chunk one) is outstanding */

/* The lecture's busbw formula for collective c, in two lines:
 *   sym: "busbw = S·2(W−1)/(W·t)"                    (all-reduce)
 *        "busbw = algbw·(W−1)/W"                     (all-gather, reduce-scatter, ...)
 *        "busbw = algbw·1"                           (broadcast, reduce)
 *   num: the same with the measured numbers plugged in and the result, e.g.
 *        "= 67.1 MB·2·3/(4·12.3 ms) = 8.18 GB/s".
 * The result printed in num is computed from S, t and W here, so a test can compare it
 * with the backend's own busbw. ASCII mode uses * - x instead of · − ×. */
void meas_formula(enum coll c, int nranks, size_t bytes, double time_us, bool utf8, char *sym,
                  size_t symlen, char *num, size_t numlen);
/* busbw from S, t and W by the formula above (GB/s, 1e9 B/s). */
double meas_busbw(enum coll c, int nranks, size_t bytes, double time_us);

/* What the panel says instead of algbw and busbw when the run had one rank: nothing
 * crosses between ranks, so size/time is not a transfer rate (the CLI's bench prints the
 * same warning). */
const char *meas_single_rank_note(void);

/* Short size label for the sweep axis: "4K", "256K", "64M", "1G". */
void meas_size_label(size_t bytes, char *buf, size_t n);

/* Height of a bar in eighths of a row: value/max of rows*8, at least 1 for value > 0. */
int meas_bar_eighths(double value, double max, int rows);

#endif
