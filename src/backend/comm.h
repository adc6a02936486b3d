/* comm.h - the communicator the training schemes talk to: collectives, point-to-point and
 * a barrier, as a table of operations (struct comm_ops) so the CPU ranks of this machine
 * and, later, NCCL on GPUs can sit behind the same calls.
 *
 * Calling convention: every call is made by one rank (`rank` argument) from that rank's
 * own thread; a collective is entered by all ranks with the same arguments, in the same
 * order, like NCCL and MPI. Buffers are the caller's. Every call records its own event on
 * the rank's timeline (lane 0; async collectives on lane 1) with `label`, and counts the
 * bytes it moved. Every wait has a deadline (comm->timeout_s); a wait that passes it, or
 * any failure, aborts the whole communicator so the other ranks return at once instead
 * of waiting out their own deadlines. After an abort every call returns CV_EBACKEND and
 * last_error() says why.
 *
 * This is the one runtime of each backend: training (the schemes above) talks to it, and so do
 * the measurement and the display-scale run (backend/run.c), through run() below. The CPU
 * communicator (cpu/cpu_comm.c) executes the core plans (core/plan.h, exec.h) — the very
 * plans the visualizer animates — on the ranks' buffers; the MPI one (mpi/mpi_comm.c)
 * runs the same plans with MPI point-to-point, one rank per process; the NCCL one
 * (nccl/nccl_comm.c) queues NCCL's own collectives on each rank's GPU stream. */
#ifndef COLLVIZ_BACKEND_COMM_H
#define COLLVIZ_BACKEND_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "core/timeline.h"

/* What one rank moved, counted as it was moved. */
struct comm_stats {
    size_t bytes_sent; /* bytes this rank's data crossed to another rank */
    size_t bytes_recv; /* bytes that arrived in this rank's buffers from another rank */
    /* nccl-tests' S (coll_bytes) summed over the collectives this rank entered, per kind:
     * the "elements moved into the collective" of the lecture's napkin math, times 4. */
    size_t coll_bytes[COLL_COUNT];
    size_t p2p_bytes; /* payload bytes this rank sent point-to-point */
};

struct comm;
struct comm_req; /* an asynchronous collective in flight */

/* Element types of the proc_* operations. */
enum comm_proc_type { COMM_PROC_F32, COMM_PROC_F64, COMM_PROC_U64, COMM_PROC_INT };

/* What a backend's communicator for training is asked for (backend_ops.comm_create). */
struct dev;
struct plan;

/* The kinds of traffic a run asks its communicator for (comm_params.traffic). The barrier
 * and the proc_* operations are always there. */
enum comm_traffic {
    COMM_TRAFFIC_COLL = 1 << 0, /* collectives: all_reduce, all_gather, reduce_scatter,
                                 * iall_reduce, and run() (the measurement runtime) */
    COMM_TRAFFIC_P2P = 1 << 1,  /* send/recv (pipeline stages) */
};

struct comm_params {
    int nranks;
    /* COMM_TRAFFIC_* bits: what the run will call. A backend may make only what is asked
     * for (NCCL: no collectives communicator without COMM_TRAFFIC_COLL, none for
     * point-to-point without COMM_TRAFFIC_P2P); a call of a kind not asked for then fails
     * with CV_EINVAL and a message saying so. CPU and MPI make everything either way. */
    unsigned traffic;
    bool async; /* iall_reduce / icollective needed (DDP overlap, ZeRO prefetch; with
                   COMM_TRAFFIC_COLL) */
    double timeout_s;
    struct timeline *tl; /* may be NULL */
    /* The plans' algorithm for the collectives training calls (CPU, MPI; ALGO_RING, the
     * lecture's, when zero). NCCL picks its own. */
    enum algo algo;
    /* Processes backend: only the ranks of this process's node (--within-node). */
    bool within_node;
    /* NCCL training: devs[r] is rank r's GPU device (device/dev_cuda.h), whose stream
     * the collectives are queued behind. NULL for measurements: the communicator then
     * makes its own stream on GPU r (under MPI: on this process's GPU). */
    struct dev *const *devs;
};

/* One collective for run(): the plan that is animated, or (plan NULL) the library's own
 * collective (MPI_Allreduce, ...: BACKEND_CAP_NATIVE_COLL). A backend that chooses its own
 * algorithm (BACKEND_CAP_OWN_ALGO: NCCL) runs its own for the plan's collective and ignores
 * the plan's steps. */
struct comm_job {
    const struct plan *plan;
    enum coll coll;
    enum redop op;
    size_t count; /* elements per rank, as in core/plan.h */
    int root;
    void *prep; /* the communicator's, from prepare() (NULL without one) */
    /* NULL, or asked by the communicator while the job runs (e.g. before each slice):
     * true means stop at once with CV_ECANCELLED (and abort, so the other ranks stop
     * too). Whoever cancels also aborts the communicator, so asking only makes a cancel
     * land sooner. Cheap: a few atomic loads. */
    bool (*cancelled)(void *ctx);
    void *cancel_ctx;
};

struct comm_ops {
    const char *name; /* "cpu" */
    /* In place on buf (count elements). AVG divides the sum by nranks. */
    int (*all_reduce)(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                      const char *label);
    /* send: count elements; recv: nranks*count, rank r's piece lands at recv + r*count.
     * send may be recv + rank*count (in place). */
    int (*all_gather)(struct comm *c, int rank, const float *send, float *recv, size_t count,
                      const char *label);
    /* send: nranks*count elements, piece k destined for rank k; recv: count elements, the
     * reduction of every rank's piece `rank`. send is used as the working buffer: its
     * contents are unspecified afterwards. recv may be send + rank*count. */
    int (*reduce_scatter)(struct comm *c, int rank, float *send, float *recv, size_t count,
                          enum redop op, const char *label);
    /* Eager (buffered) point-to-point: send copies the message out and returns, so two
     * stages may send to each other at the same time; recv blocks until the message from
     * `peer` with this tag arrives. Messages between a pair arrive in send order; a recv
     * whose tag or count differs from the next message is a protocol error. */
    int (*send)(struct comm *c, int rank, int peer, int tag, const float *buf, size_t count,
                const char *label);
    int (*recv)(struct comm *c, int rank, int peer, int tag, float *buf, size_t count,
                const char *label);
    int (*barrier)(struct comm *c, int rank);
    /* Start an all-reduce on the rank's communication helper (lane 1) and return at once.
     * Requests run in issue order; buf must stay untouched until wait() returns. */
    int (*iall_reduce)(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                       const char *label, struct comm_req **req);
    /* The same for an all-gather or a reduce-scatter (kind COLL_ALL_GATHER or
     * COLL_REDUCE_SCATTER; send, recv, count and op as in all_gather / reduce_scatter), in
     * the same queue: ZeRO stage 3's prefetch. send and recv belong to the request until
     * wait() returns. NULL where a backend has no helper lane (MPI). */
    int (*icollective)(struct comm *c, int rank, enum coll kind, const float *send, float *recv,
                       size_t count, enum redop op, const char *label, struct comm_req **req);
    /* Block (an "idle" event on lane 0 when it had to wait) until req is done; frees req. */
    int (*wait)(struct comm *c, int rank, struct comm_req *req);
    /* Optional (NULL: nothing to do): make, before the first message, what `nbufs` sends of
     * up to `count` elements in flight at once need (NCCL: device staging buffers, so no
     * cudaMalloc runs while other ranks' kernels may be in flight). */
    int (*reserve_send)(struct comm *c, int rank, size_t count, int nbufs);
    /* Counters of this rank since the last reset (read them only when the rank is idle). */
    void (*stats)(struct comm *c, int rank, struct comm_stats *out);
    void (*reset_stats)(struct comm *c, int rank);
    /* Bytes of memory the communicator holds for this rank (working buffers, mailboxes). */
    size_t (*mem_bytes)(struct comm *c, int rank);
    void (*abort)(struct comm *c, const char *why);
    const char *(*last_error)(struct comm *c);
    void (*destroy)(struct comm *c);
    /* Only where ranks are processes (comm.self >= 0; NULL otherwise): combine what every
     * process recorded, called by every process at the same point. proc_sum: element-wise
     * sum over processes, in place (a record each process filled only in its own rank's
     * places, zeros elsewhere, becomes the whole record, exactly). proc_max: the largest
     * *v. proc_bcast: bytes from the process of rank `root`. proc_allgather: every
     * process's `bytes` bytes, concatenated in rank order into *all (caller frees),
     * counts[r] = rank r's bytes. Whatever one returns (a timeout too), the buffers passed
     * are the caller's again when it returns: nothing still in flight refers to them. */
    int (*proc_sum)(struct comm *c, void *buf, size_t n, enum comm_proc_type t);
    int (*proc_max)(struct comm *c, double *v);
    int (*proc_bcast)(struct comm *c, void *buf, size_t bytes, int root);
    int (*proc_allgather)(struct comm *c, const void *mine, size_t bytes, void **all,
                          size_t *counts);

    /* ---- The runtime side: what backend/run.c's measure and run_small need. ---- */
    /* A working buffer of `count` floats for this rank in *out (CPU, MPI: host memory;
     * NCCL: memory of the rank's GPU). CV_ENOMEM, with last_error() saying why, when the
     * memory cannot be had: sizes are checked against the memory there is before anything
     * is allocated, so a buffer too large for the machine fails here rather than later.
     * Any other failure is the communicator's own (CV_EBACKEND after an abort, say): not a
     * want of memory. */
    int (*buf_alloc)(struct comm *c, int rank, size_t count, float **out);
    void (*buf_free)(struct comm *c, int rank, float *buf);
    /* Host memory to and from a working buffer: count floats at element offset off. */
    int (*put)(struct comm *c, int rank, float *buf, size_t off, const float *src,
               size_t count);
    int (*get)(struct comm *c, int rank, const float *buf, size_t off, float *dst,
               size_t count);
    /* Run one collective on the rank's working buffer `work`, laid out as core/plan.h
     * says (coll_work_len elements: the rank's input at coll_in_off, its result at
     * coll_out_off). May return before the work has finished where the backend queues it
     * (NCCL); sync() waits. */
    int (*run)(struct comm *c, int rank, const struct comm_job *j, float *work);
    /* The same collective out of place, as nccl-tests' first group runs it: the rank's
     * input is `send` (coll_send_count elements, never written), not the working buffer's
     * coll_in_off; the result lands in `work` at coll_out_off as run()'s does. What each
     * backend does with two buffers is its own (NCCL and MPI's collectives take both;
     * a plan copies the input into its working buffer first, as MPI's ring all-reduce
     * does). NULL: the backend runs in place only. */
    int (*run_oop)(struct comm *c, int rank, const struct comm_job *j, const float *send,
                   float *work);
    /* Wait until everything this rank queued has finished (NULL: nothing is queued). */
    int (*sync)(struct comm *c, int rank);
    /* Optional: called for a job before any rank run()s it, by one thread of each process
     * while none of its ranks runs; may set j->prep (the CPU: each rank's schedule of the
     * refined plan). unprepare() undoes it after the last run. */
    int (*prepare)(struct comm *c, struct comm_job *j);
    void (*unprepare)(struct comm *c, struct comm_job *j);
    /* What a rank is, for "measured how?": "CPU thread", "MPI process", "GPU". */
    const char *rank_noun;
    /* The slice size a measurement refines the plan into when bench_params.slices is 0
     * (0: whole chunks), where every rank has a core of its own; comm.slice_bytes is what
     * a communicator made on this machine uses. */
    size_t slice_bytes;
};

struct comm {
    const struct comm_ops *ops;
    int nranks;
    double timeout_s;    /* deadline of any one wait */
    struct timeline *tl; /* where events go (may be NULL: nothing recorded) */
    /* The timeline step each rank's events are filed under; rank r sets step[r] itself
     * as it starts a step (its helper reads it only for requests issued after that). */
    int step[CV_MAX_RANKS];
    /* The one rank this process runs when ranks are processes (MPI); -1 when every rank is
     * a thread of this process (CPU, NCCL in one process). */
    int self;
    /* This communicator's default slice (0: whole chunks), set by comm_create from
     * ops->slice_bytes and the machine: the CPU backend slices only while its ranks have a
     * core each (cpu_comm.c says why). */
    size_t slice_bytes;
    void *priv;
};

#endif
