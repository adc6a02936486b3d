/* train.h - train the lecture's MLP with one of the parallel schemes and return plain
 * data: per-step loss and timings, bytes moved per rank, the event timeline of every rank,
 * memory allocated per rank, the napkin-math figures and the final parameters. The CLI
 * (`collviz train`) and the UI's parallelism screen both call train_run(); nothing here
 * prints or draws.
 *
 * Schemes (the lecture's three cuts, on W ranks):
 *   single - the reference: one device, whole batch (mlp.h's mlp_ref);
 *   ddp    - data parallel: each rank B/W rows, full parameters and its own AdamW state;
 *            gradients all-reduced with AVG (optionally overlapped with the backward pass);
 *   tp     - tensor parallel: every rank all rows, a D×D/W column shard of every layer;
 *            activations all-gathered every layer, input gradients reduce-scattered;
 *   pp     - pipeline parallel: contiguous layers per stage, M micro-batches, GPipe or
 *            1F1B, activations and gradients sent point to point between stages;
 *   zero1..3 - ZeRO (zero.c): data parallel like ddp, with the AdamW state (1), also the
 *            gradients (2), also the weights (3, FSDP's full shard) cut into W shards per
 *            layer; reduce-scatter + all-gather instead of the all-reduce.
 *   moe    - mixture of experts (moe.c): every block is a dense layer, then an MoE layer
 *            (a router, top-k of E experts, E/W experts per rank); data parallel for the
 *            dense layers and routers, tokens sent to their experts' ranks and back with
 *            all-to-all-v (dispatch and combine).
 *
 * Every scheme is checked against the reference (train_compare): the only difference is
 * the order of float additions (a matmul split over ranks or micro-batches, gradients
 * summed by a ring), so they agree within TRAIN_TOL_*, not bitwise. */
#ifndef COLLVIZ_PARALLEL_TRAIN_H
#define COLLVIZ_PARALLEL_TRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "parallel/mlp.h"
#include "core/timeline.h"
#include "core/scheme.h"

/* 1, 2 or 3 for the ZeRO schemes, 0 for the others. */
int train_zero_stage(enum train_scheme s);

/* Agreement with the single-device reference. Float reassociation (a sum over ranks,
 * micro-batches or column blocks in a different order) changes results by a few ulps per
 * step; AdamW normalises updates, so parameter differences stay near lr·(relative
 * gradient error), far below these bounds at every size we test. */
#define TRAIN_TOL_LOSS_REL 1e-4
#define TRAIN_TOL_PARAM_ABS 1e-5

/* On GPUs (backend nccl) the run is compared with the same reference, computed on the
 * CPU. Beyond reassociation the two then differ by the implementations of the math:
 * cuBLAS sgemm's blocking (TF32 is switched off, so still fp32 products and sums), CUDA's
 * erff/expf (within 2 ulp, glibc's within 1), and the AdamW kernel's algebraically equal
 * form (kernels/trainmath.h divides by the bias corrections, mlp.c multiplies by their
 * precomputed inverses). Each is a few ulps per operation, like reassociation, so the
 * expected deviation is of the same order as on CPU ranks; the bounds are ten times the
 * CPU ones because they have not yet been measured on a GPU (collviz train --check prints
 * the measured deviation). */
#define TRAIN_TOL_GPU_LOSS_REL 1e-3
#define TRAIN_TOL_GPU_PARAM_ABS 1e-4

/* Where the ranks run is a backend kind (backend/backend.h): BACKEND_CPU, threads of this
 * process (cpu_comm.h); BACKEND_NCCL, one GPU each (nccl_comm.h, dev_cuda.h; only with
 * HAVE_NCCL); BACKEND_MPI, one process each (backend/mpi, run with train_run_on and the
 * opened backend). The single-device reference always runs on the CPU. */
struct train_config {
    enum train_scheme scheme;
    int nranks; /* W (pp: stages P); single: 1 */
    int layers, dim, batch, steps;
    int microbatches; /* pp: M */
    enum pp_schedule schedule;
    bool overlap; /* ddp: all-reduce each layer's gradient as backward makes it */
    /* zero3: gather the next layer on the helper lane while this one computes (two
     * gathered-layer slots), its gradient's reduce-scatter queued there too */
    bool prefetch;
    uint64_t seed;
    double timeout_s; /* deadline of any one communication wait */
    struct adamw_cfg adamw;
    enum backend_kind backend; /* default (zero) BACKEND_CPU */
    /* nranks is the world the launcher started (mpirun -np), not --ranks: the checks'
     * messages name it so */
    bool ranks_from_launcher;
    /* moe: E experts per block (a multiple of W), top-k K (1..E), capacity factor C: an
     * expert takes at most ceil(C·n·K/E) of the n = B/W tokens of one rank's rows (the
     * group), later ones are dropped; C = 0 is dropless. Ignored by other schemes. */
    int experts, topk;
    double capacity;
    /* The single-device reference of a moe run (train_reference_of): route the batch in
     * moe_groups groups of B/moe_groups rows, as the run's ranks do, so the capacities
     * and drops are the run's. 0: not a moe reference. */
    int moe_groups;
};

/* The lecture's sizes: L=4, D=1024, B=128, W=4, M=4, GPipe, 5 steps, seed 0, AdamW
 * defaults, 60 s deadline; moe: E=8, K=2, C=1.0. */
void train_config_default(struct train_config *c);
/* CV_OK, or CV_EINVAL / CV_ENOMEM with one line naming the bad value. Uneven layer splits
 * in pp are handled (stages differ by at most one layer); L < P is refused. */
int train_config_check(const struct train_config *c, char *err, size_t errlen);
/* The single-device reference of a run: the same model, data and steps, scheme single on
 * one CPU rank (whatever backend the run itself uses). */
struct train_config train_reference_of(const struct train_config *c);

struct train_step_stat {
    double loss;         /* of this step's forward pass, before the update */
    double time_s;       /* earliest rank's start to the last rank's end */
    double cpu_s;        /* CPU time of the ranks' own threads in the step, summed
                            (CLOCK_THREAD_CPUTIME_ID; helper lanes not counted) */
    double comm_s;       /* mean over ranks: time the rank's own thread spent in
                            communication calls (collectives, send, recv, waiting) */
    double comm_async_s; /* mean over ranks: time of collectives on the helper lane
                            (overlapped DDP); 0 otherwise */
    size_t comm_bytes;   /* max over ranks of bytes sent to other ranks */
};

/* Bytes allocated for one rank, by purpose ("allocated", not measured RSS). */
struct train_memory {
    size_t params, grads, optimizer, activations, comm;
};
size_t train_memory_total(const struct train_memory *m);

/* The memory model of a data-parallel scheme (ddp, zero1..3) for one rank, fp32 weights and
 * gradients and AdamW's two moments: with Ψ = L·W·s parameters, s = ceil(D²/W) the shard
 * of one layer (a layer padded with zeros to W equal shards; Ψ = L·D² when W divides D²):
 *   ddp    params 4Ψ,      grads 4Ψ,              optimizer 8Ψ
 *   zero1  params 4Ψ,      grads 4Ψ,              optimizer 8Ψ/W
 *   zero2  params 4Ψ,      grads 4Ψ/W + 4W·s,     optimizer 8Ψ/W  (one layer's bucket)
 *   zero3  params 4Ψ/W + 4W·s (the gathered layer; two with --prefetch),
 *          grads 4Ψ/W, optimizer 8Ψ/W
 * and activations (2L+3)·(B/W)·D floats (zero3: + D of scratch; zero: + W·s - D² zeros,
 * written over a gradient's padding before its reduce-scatter). alloc is what the rank
 * holds; peak its live buffers at their high-water mark, the same: zero3's one gathered-
 * layer slot holds the gathered weights and, once they are released, the layer's full
 * gradient (so one layer, not two, is added), and it is live in every layer's forward
 * and backward. comm (the communicator's own buffers) is not modelled: 0. CV_EINVAL for
 * other schemes. */
int train_memory_model(const struct train_config *c, struct train_memory *alloc,
                       struct train_memory *peak);

/* The lecture's napkin math next to what was counted. Elements "into the collective" are
 * nccl-tests' S / 4: an all-gather's whole output, an all-reduce's buffer. */
struct train_napkin {
    size_t tp_model_elems;   /* model: L·B·D, tensor parallel's forward all-gathers */
    size_t ddp_model_elems;  /* model: L·D², DDP's gradient all-reduce */
    size_t all_gather_elems; /* counted on rank 0 in the last step */
    size_t reduce_scatter_elems;
    size_t all_reduce_elems;
    /* model: bytes one rank sends per step (ring formulas); ddp 2(W-1)/W·4Ψ, zero1/2 the
     * same (reduce-scatter + all-gather), zero3 3(W-1)/W·4Ψ (two all-gathers) */
    size_t wire_model_bytes;
    size_t wire_bytes; /* counted: max over ranks, last step */
};

/* Parameters of a run in train_result.params: L·D² dense weights ([L][D][D]); moe adds
 * the experts [L][E][D][D] and the routers [L][D][E] after them. */
size_t train_param_count(const struct train_config *c);

/* The experts' capacity per group (rank) of n tokens: ceil(C·n·K/E), 0 when C = 0
 * (dropless). */
int train_moe_capacity(const struct train_config *c, int n);

/* What a moe run routed and moved, its last step (G groups: the ranks, or the
 * reference's moe_groups). Counted: every number is counted by the ranks as they route
 * and exchange; the times are each rank's wall clock around its own exchange. */
struct train_moe {
    int groups, experts, topk, capacity; /* capacity: train_moe_capacity, 0 dropless */
    size_t *routed;       /* [L][G][E] group g's tokens whose top-k choices include expert e */
    size_t *kept;         /* [L][G][E] of those, taken within the capacity (the rest dropped) */
    size_t *dropped_last; /* [G] assignments dropped in the last step, all blocks */
    size_t *dropped_total; /* [G] all steps */
    /* Per rank, last step, summed over the blocks: bytes of tokens sent to other ranks
     * (the rank's own tokens for its own experts are copied, not counted) and seconds
     * from entering the exchange to its last receive, for the forward dispatch (tokens
     * to the experts) and combine (results back); the backward's two exchanges mirror
     * them. NULL for the reference. */
    size_t *dispatch_bytes, *combine_bytes; /* [G] */
    double *dispatch_s, *combine_s;         /* [G] */
    size_t *counts_bytes; /* [G] the counts' all-to-all, bytes sent, last step */
};
/* Measured bus bandwidth of an exchange in bytes/s: the busiest rank's bytes over the
 * slowest rank's time (for uniform blocks, nccl-tests' all-to-all busbw: the send
 * buffer's (W-1)/W over the time); 0 when nothing moved. */
double train_moe_busbw(const size_t *bytes, const double *secs, int n);

struct train_result {
    struct train_config cfg;
    int nranks; /* ranks that ran (1 for single) */
    int steps_done;
    struct train_step_stat *steps; /* [steps_done] */
    size_t *bytes_sent;            /* [steps_done][nranks] */
    size_t *bytes_recv;            /* [steps_done][nranks] */
    struct train_memory *mem;      /* [nranks] */
    /* [nranks] the rank's live buffers at their high-water mark within a step, by kind
     * (the kinds' sum is the peak); the same as mem where nothing is freed in a step. */
    struct train_memory *mem_peak;
    struct tl_event *events; /* every step, sorted by (step, rank, lane, t0) */
    size_t nevents;
    struct train_napkin napkin;
    /* pp: fraction of the pipeline span (first forward to last backward) a stage is not
     * computing, mean over stages and over steps after the first; model (P-1)/(M+P-1).
     * Negative for other schemes. */
    double bubble_measured, bubble_model;
    double replica_max_diff; /* ddp: largest |rank r param - rank 0 param| (0 = in sync) */
    float *params;           /* [L][D][D] final weights, assembled from the ranks */
    char desc[160];          /* "4 ranks = 4 CPU threads on 2 cores; ring plans" */
    struct train_moe moe;    /* moe and its reference; all zero otherwise */
};

/* Run cfg->steps training steps. `cancel` (may be NULL) is polled between steps: set
 * means stop with CV_ECANCELLED (the result keeps the finished steps). On error err holds
 * one line and the result is freed. Sets OpenBLAS to one thread per call (process-wide).
 * Blocking: call it from a worker thread, never from the UI thread. */
int train_run(const struct train_config *cfg, struct train_result *res, volatile int *cancel,
              char *err, size_t errlen);
void train_result_free(struct train_result *r);

/* The same on an opened backend whose ranks are processes (BACKEND_MPI: cfg->backend must be
 * its kind): every process calls it with the same configuration, runs its own rank, and all
 * end with the whole run's result (the ranks' records combined over the backend). b NULL is
 * train_run. */
int train_run_on(struct backend *b, const struct train_config *cfg, struct train_result *res,
                 volatile int *cancel, char *err, size_t errlen);

/* The same with a display-scale probe (probe.h) recording one step of every rank; the
 * configuration must pass probe_check_config. probe NULL is train_run. Within the probe's
 * limits a run takes milliseconds, so the parallelism screen calls it on the UI thread. */
struct train_probe;
int train_run_probe(const struct train_config *cfg, struct train_probe *probe,
                    struct train_result *res, volatile int *cancel, char *err, size_t errlen);

/* The events of one step: a contiguous run of r->events (they are sorted by step first);
 * *n = 0 and NULL when the step has none. */
const struct tl_event *train_step_events(const struct train_result *r, int step, size_t *n);
/* Seconds rank spent in each kind of event in one step on lane `lane` (for a per-rank bar
 * of compute / send / recv / collective / idle). */
void train_rank_breakdown(const struct train_result *r, int step, int rank, int lane,
                          double out[TL_KIND_COUNT]);

struct train_deviation {
    double loss_rel;                    /* max over steps of |loss - ref| / |ref| */
    int loss_step;                      /* where */
    double param_abs;                   /* max |param - ref param| after the last step */
    bool within;                        /* both under the tolerances below */
    double tol_loss_rel, tol_param_abs; /* TRAIN_TOL_* (CPU ranks) or TRAIN_TOL_GPU_* */
    /* moe: entries of routed/kept (last step) that differ from the reference's; any is
     * a failure, since both route the same tokens with the same rule */
    size_t moe_routing_diff;
};
/* a and ref must have the same layers, dim and steps. The tolerances follow
 * a->cfg.backend. moe: all train_param_count parameters are compared, and the routing. */
void train_compare(const struct train_result *a, const struct train_result *ref,
                   struct train_deviation *d);

#endif
