/* worker.h - the backend thread. One worker owns one backend; the UI posts jobs to a
 * mutex+condvar queue and is woken by one byte on a pipe when a result is ready (redis
 * bio.c's shape). Jobs and results are tagged unions of plain data (no pointers into UI
 * state; proto.h encodes them as messages). The UI never waits on a measurement and never
 * holds the backend: what it shows about the backend comes from the facts copied out when
 * the worker starts (struct worker_facts).
 *
 * Transport seam: worker_start() runs the jobs on a thread of this process;
 * worker_connect() sends them over a socket to a job started elsewhere (`collviz serve`,
 * serve.h), with the same messages both ways. The rest of the API is the same for both. */
#ifndef COLLVIZ_WORKER_WORKER_H
#define COLLVIZ_WORKER_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "core/init.h"
#include "parallel/summary.h"

enum job_kind {
    JOB_MEASURE, /* one size: params */
    JOB_SWEEP,   /* sizes from sweep_min to sweep_max (x sweep_factor); one result per size */
    JOB_CHECK,   /* display scale: trace vs backend on the same small input */
    JOB_TRAIN,   /* train the lecture's MLP (train) and the single device: result.train */
    JOB_MEMCPY,  /* this host's memory copy bandwidth on the worker thread: result.copy */
    JOB_LIBLOG,  /* the library's own log (NCCL's INFO log): result.liblog; of a remote job,
                  * its rank 0 process's (the protocol carries its first PROTO_LIBLOG_MAX) */
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

/* One struct per job kind; struct job is the tagged union of them. */
struct job_measure {
    struct bench_params params;
};
struct job_sweep {
    struct bench_params params; /* params.bytes is set per size */
    size_t min, max;            /* sizes from min to max (x factor) */
    double factor;
};
struct job_check { /* the display-scale scene */
    enum coll coll;
    enum algo algo;
    enum redop op;
    int nranks;
    size_t count;
    int root;
    enum init_kind init;
    uint64_t seed;
};
/* Runs on CPU ranks of its own (backend/cpu/cpu_comm.h), not on the backend. */
struct job_train {
    struct train_config cfg;
};
struct job_memcpy { /* bytes per copy (0 = 64 MiB) and repetitions (0 = 5) */
    size_t bytes;
    int reps;
};

struct job {
    enum job_kind kind;
    uint64_t id; /* set by worker_post */
    union {
        struct job_measure measure;
        struct job_sweep sweep;
        struct job_check check;
        struct job_train train;
        struct job_memcpy copy;
    };
};

/* A result: the fields every kind has, then the kind's own (the job's kind). TRAIN's
 * summary (~47 KB) lives on the heap, so a result stays small: result_free() releases it,
 * result_move() hands it to another owner. */
struct result_sweep {
    struct bench_result row;
    int index, total; /* this is row index of total */
};
struct result_check {
    long mismatches; /* elements where backend != trace (0 = equal) */
    long inexact;    /* elements that differ only by float rounding, allowed where
                      * worker_check_exact() is false; 0 = bit for bit */
};
struct result_train {
    struct train_summary *summary; /* NULL when the run failed */
};
struct result_liblog {
    char *text; /* on the heap (result_free); NULL when there is none (status, err: why) */
    size_t len;
    char src[200]; /* what it is: "this machine's NCCL INFO log (this run)" */
};

struct result {
    uint64_t job_id;
    enum job_kind kind;
    int status; /* CV_OK or an error */
    char err[200];
    bool last; /* the job's final result */
    char backend[16];
    union {
        struct bench_result measure; /* MEASURE */
        struct result_sweep sweep;   /* SWEEP */
        struct result_check check;   /* CHECK */
        struct result_train train;   /* TRAIN */
        struct memcpy_result copy;   /* MEMCPY */
        struct result_liblog liblog; /* LIBLOG */
    };
};

/* Release what a result owns (TRAIN's summary, LIBLOG's text) and zero the pointer. */
void result_free(struct result *r);

/* What the UI may know about the backend, copied out once when the worker starts (and
 * sent as a message by a remote job). */
#define FACTS_DESC_MAX 200
#define FACTS_LABEL_MAX 48
#define FACTS_TEXT_MAX 4096
#define FACTS_WHERE_MAX 160
struct worker_facts {
    char name[16];     /* "cpu", "nccl", "mpi" */
    int kind;          /* enum backend_kind */
    unsigned caps;     /* enum backend_cap bits */
    int max_ranks;     /* 1..CV_MAX_RANKS */
    bool multiprocess; /* the ranks are processes of a launcher's job (mpi; nccl under MPI) */
    char desc[CV_MAX_RANKS + 1][FACTS_DESC_MAX]; /* describe() for n ranks, n = 1..max_ranks */
    char label[CV_MAX_RANKS][FACTS_LABEL_MAX];   /* rank_label() of rank r < max_ranks */
    bool have_nccl_info;                         /* the NCCL fields below are filled */
    char nccl_text[FACTS_TEXT_MAX]; /* nccl_backend_info(): GPUs, peers, versions */
    char nccl_algo[64], nccl_proto[64];
    char where[FACTS_WHERE_MAX]; /* where the job runs: "this process", "job on unix:PATH" */
};

/* Copy b's facts into *f (calls describe/rank_label for every size and rank). */
void worker_facts_fill(struct backend *b, struct worker_facts *f);

struct worker;

/* Start the thread with an opened backend (ownership passes to the worker). */
struct worker *worker_start(struct backend *b, char *err, size_t errlen);
/* The read end of the wake pipe, for poll(). */
int worker_fd(const struct worker *w);
/* Queue a job; returns its id. */
uint64_t worker_post(struct worker *w, const struct job *j);
/* Called on the worker thread before each job (j) and once as the thread ends (j NULL),
 * before the backend is closed. serve hands each job to the other processes of an MPI job
 * this way, so that every process calls the backend together. CV_OK, or an error with err
 * said: then the job is not run and its one result carries that error (the other
 * processes never heard of it). Set before the first post. */
typedef int (*worker_job_hook)(void *ctx, const struct job *j, char *err, size_t errlen);
void worker_set_job_hook(struct worker *w, worker_job_hook fn, void *ctx);
/* Jobs of several processes (serve.c): called by every process of the job between two
 * sizes of a sweep, with this process's wish to stop (its cancel flag; rank 0's is the
 * UI's); returns rank 0's wish, the same on every process, so that all of them stop at the
 * same size (a process that skipped a size would leave the others waiting in it). Without
 * one, a sweep of several processes runs every size. Set before the first post. */
typedef bool (*worker_agree_fn)(void *ctx, bool stop);
void worker_set_agree(struct worker *w, worker_agree_fn fn, void *ctx);
/* Run one job on b on the calling thread, as a worker would (the other processes of an MPI
 * job, serve.c), agreeing on a sweep's cancel with `agree` (may be NULL); the results are
 * dropped, the first failure is returned with its err. */
int worker_run_here(struct backend *b, const struct job *j, worker_agree_fn agree, void *ctx,
                    char *err, size_t errlen);

/* serve: queue a job that keeps the id it came with (the remote UI's). */
void worker_post_id(struct worker *w, const struct job *j);
/* Drop queued jobs and ask the running one to stop at its next iteration. */
void worker_cancel(struct worker *w);
/* Pop one result if any (drains the wake pipe as needed): 1 popped, 0 none. */
int worker_poll(struct worker *w, struct result *out);
/* True while a job is queued or running. */
bool worker_busy(struct worker *w);
/* Cancel everything, join the thread, close the backend. */
void worker_stop(struct worker *w);
/* worker_stop that waits at most secs (> 0) for the running job to end: false when it has
 * not (the worker is then left as it is: the caller is about to end the process). */
bool worker_stop_within(struct worker *w, double secs);
const char *worker_backend_name(const struct worker *w);
/* The backend's facts (never NULL). */
const struct worker_facts *worker_facts(const struct worker *w);

/* A worker whose jobs run in a remote job (`collviz serve`) reached through fd, a connected
 * stream socket (taken over: closed by worker_stop). Sends the hello (token may be "" or
 * NULL) and waits up to timeout_s for the job's facts. NULL with err on failure (fd is then
 * closed). */
struct worker *worker_connect(int fd, const char *token, double timeout_s, char *err,
                              size_t errlen);
/* True for a worker made by worker_connect. */
bool worker_remote(const struct worker *w);
/* Remote workers: true once the job is gone (a rank lost, the connection closed, a
 * malformed message); why says so in one line ("rank 2 lost: ..."). Local: always false. */
bool worker_lost(struct worker *w, char *why, size_t n);
/* serve: a cancel answers each queued job it drops with a CV_ECANCELLED result whose err is
 * WORKER_DROPPED_TEXT (a remote UI counts its jobs by their last results). */
#define WORKER_DROPPED_TEXT "cancelled before it ran"
void worker_report_dropped(struct worker *w);
/* Remote workers: ask the job to end (a shutdown message) before worker_stop. */
void worker_shutdown_job(struct worker *w);

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

/* The one judge of a job's fields, wherever the job comes from (a screen, `bench`, a
 * protocol job to `serve`): the command line's limits (bench's sizes, sweeps of at most
 * 1,000 sizes up to 16 GiB, iterations, timeouts; trace's ranks and count; train's
 * train_config_check). CV_OK, or CV_EINVAL and one line in err. The worker runs it before
 * each job, before the job goes to the other processes of an MPI job. */
int job_check(const struct job *j, char *err, size_t errlen);

/* JOB_MEMCPY's measurement, callable directly: copy `bytes` from one buffer to another
 * `reps` times on the calling thread and keep the best. CV_ENOMEM (before allocating) when
 * the two buffers would not fit in the memory available; CV_EINVAL for bytes or reps of 0;
 * CV_ECANCELLED when *cancel is set between copies. */
int worker_memcpy_measure(size_t bytes, int reps, volatile int *cancel,
                          struct memcpy_result *out, char *err, size_t errlen);

#endif
