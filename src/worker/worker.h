/* worker.h - the backend thread. One worker owns one backend; the UI posts jobs to a
 * mutex+condvar queue and is woken by one byte on a pipe when a result is ready (redis
 * bio.c's shape). Jobs and results are plain data (no pointers into UI state), so the same
 * protocol can later travel between MPI processes. The UI never waits on a measurement. */
#ifndef COLLVIZ_WORKER_H
#define COLLVIZ_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "../core/init.h"
#include "../parallel/summary.h"

enum job_kind {
    JOB_MEASURE, /* one size: params */
    JOB_SWEEP,   /* sizes from sweep_min to sweep_max (x sweep_factor); one result per size */
    JOB_CHECK,   /* display scale: trace vs backend on the same small input */
    JOB_TRAIN,   /* train the lecture's MLP (train) and the single device: result.train */
    JOB_MEMCPY,  /* this host's memory copy bandwidth on the worker thread: result.copy */
};

/* JOB_MEMCPY's result: the best of `reps` memcpy calls of `bytes` between two buffers that
 * this thread first touched, timed around each call alone. */
struct memcpy_result {
    size_t bytes;
    int reps;
    double best_s;
    double gbs;    /* bytes copied per second / 1e9 (a copy reads and writes each byte) */
    char how[160]; /* how it was measured, for the screen */
};

struct job {
    enum job_kind kind;
    uint64_t id; /* set by worker_post */
    struct bench_params params;
    size_t sweep_min, sweep_max;
    double sweep_factor;
    /* JOB_CHECK: the display-scale scene */
    enum coll coll;
    enum algo algo;
    enum redop op;
    int nranks;
    size_t count;
    int root;
    enum init_kind init;
    uint64_t seed;
    /* JOB_TRAIN: runs on CPU ranks of its own (parallel/comm_cpu.h), not on the backend */
    struct train_config train;
    /* JOB_MEMCPY: bytes per copy (0 = 64 MiB) and repetitions (0 = 5) */
    size_t copy_bytes;
    int copy_reps;
};

struct result {
    uint64_t job_id;
    enum job_kind kind;
    int status; /* CV_OK or an error */
    char err[200];
    struct bench_result row; /* MEASURE, SWEEP */
    int index, total;        /* SWEEP progress: this is row index of total */
    bool last;               /* the job's final result */
    long mismatches;         /* CHECK: elements where backend != trace (0 = equal) */
    long inexact; /* CHECK: elements that differ only by float rounding, allowed where
                   * worker_check_exact() is false; 0 = bit for bit */
    char backend[16];
    struct train_summary train; /* TRAIN */
    struct memcpy_result copy;  /* MEMCPY */
};

struct worker;

/* Start the thread with an opened backend (ownership passes to the worker). */
struct worker *worker_start(struct backend *b, char *err, size_t errlen);
/* The read end of the wake pipe, for poll(). */
int worker_fd(const struct worker *w);
/* Queue a job; returns its id. */
uint64_t worker_post(struct worker *w, const struct job *j);
/* Drop queued jobs and ask the running one to stop at its next iteration. */
void worker_cancel(struct worker *w);
/* Pop one result if any (drains the wake pipe as needed): 1 popped, 0 none. */
int worker_poll(struct worker *w, struct result *out);
/* True while a job is queued or running. */
bool worker_busy(struct worker *w);
/* Cancel everything, join the thread, close the backend. */
void worker_stop(struct worker *w);
const char *worker_backend_name(const struct worker *w);

/* JOB_CHECK's rule: must the backend's display-scale output equal the trace bit for bit?
 * Yes on the CPU backend (it executes the very plan the trace ran, in the same order), for
 * collectives that only move data, and for min/max (exact in any order). No for sum, avg
 * and prod on any other backend: NCCL reduces in its own order, and its avg multiplies
 * each input by 1/W before summing, so the last bits may differ. */
bool worker_check_exact(const char *backend, enum coll c, enum redop op);

/* Compare n elements of the trace's output (want) with the backend's (got). exact: every
 * element must be the same float (two NaNs count as equal). Otherwise an element may also
 * differ by float rounding: |want - got| <= nranks * FLT_EPSILON * max(|want|, |got|,
 * mag, 1), where mag[i] (NULL = 0) is the size of what was reduced into element i: the
 * same reduction over |inputs| (sum of |x| for sum, that / W for avg, product of |x| for
 * prod), so a sum that cancels to near 0 still gets the rounding its terms carry. Returns
 * the elements that differ by more; *inexact (may be NULL) is increased by those that
 * differ within the tolerance. */
long worker_compare_outputs(const float *want, const float *got, const float *mag, size_t n,
                            int nranks, bool exact, long *inexact);
struct backend *worker_backend(struct worker *w); /* for describe/rank_label only */

/* JOB_MEMCPY's measurement, callable directly: copy `bytes` from one buffer to another
 * `reps` times on the calling thread and keep the best. CV_ENOMEM (before allocating) when
 * the two buffers would not fit in the memory available; CV_EINVAL for bytes or reps of 0;
 * CV_ECANCELLED when *cancel is set between copies. */
int worker_memcpy_measure(size_t bytes, int reps, volatile int *cancel,
                          struct memcpy_result *out, char *err, size_t errlen);

#endif
