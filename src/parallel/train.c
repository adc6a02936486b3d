/* train.c - the training driver (see train.h): validates a configuration, opens the
 * communicator and the ranks' devices (CPU threads over shared memory, or - with HAVE_NCCL
 * and backend nccl - one GPU per rank with NCCL: nccl_comm.h, dev_cuda.h), runs one thread
 * per rank through the scheme's setup and steps, and turns what the ranks recorded into
 * plain data: losses, step and communication times, bytes, memory, napkin math, the
 * pipeline bubble and the assembled weights. The schemes see only comm_ops and dev_ops,
 * so the same ddp.c / tp.c / pp.c run on either backend.
 *
 * The GPU path has NOT been run on a GPU: it was written and compiled on a machine
 * without one; `make gpu-test` (tests/gpu/run.sh) is how it gets verified.
 *
 * Step protocol on every rank: barrier, note the start time, reset the byte counters,
 * step(), note the end time and the counters. The loss is only reported, never needed by
 * training, so it is not communicated: each rank leaves the sum of squares of its share of
 * the final activations and the driver adds them up afterwards (PyTorch's DDP does not
 * all-reduce the loss either). */
#include "parallel/train.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "parallel/moe.h"
#include "parallel/schemes.h"
#include "device/dev.h"

void scheme_replica_fold(const float *w, float *full, size_t n, bool first, double *diff)
{
    if (first) {
        memcpy(full, w, n * sizeof(float));
        return;
    }
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)w[i] - (double)full[i]);
        if (d > *diff) *diff = d;
    }
}

int train_zero_stage(enum train_scheme s)
{
    return s == TRAIN_ZERO1 ? 1 : s == TRAIN_ZERO2 ? 2 : s == TRAIN_ZERO3 ? 3 : 0;
}

size_t train_memory_total(const struct train_memory *m)
{
    return m->params + m->grads + m->optimizer + m->activations + m->comm;
}

int train_memory_model(const struct train_config *c, struct train_memory *alloc,
                       struct train_memory *peak)
{
    int z = train_zero_stage(c->scheme);
    if (c->scheme != TRAIN_DDP && !z) return CV_EINVAL;
    size_t W = (size_t)c->nranks, L = (size_t)c->layers, D = (size_t)c->dim;
    size_t s = (D * D + W - 1) / W, layer = 4 * W * s; /* a padded layer, bytes */
    size_t psi4 = L * (z ? layer : 4 * D * D);         /* 4Ψ */
    struct train_memory a = {
        .params = z == 3 ? psi4 / W + (c->prefetch ? 2 : 1) * layer : psi4,
        .grads = z == 0 || z == 1 ? psi4
                 : z == 2         ? psi4 / W + layer
                                  : psi4 / W,
        .optimizer = z ? 2 * psi4 / W : 2 * psi4,
        .activations = 4 * ((2 * L + 3) * (size_t)(c->batch / c->nranks) * D +
                            (z == 3 ? D : 0) + (z ? W * s - D * D : 0)),
    };
    *alloc = a;
    /* Every buffer is live at the peak: stage 3's slot holds the gathered weights or,
     * once they are released, the layer's full gradient, never both, so it counts once
     * (as the weights: the gather comes first). */
    *peak = a;
    return CV_OK;
}

struct train_config train_reference_of(const struct train_config *c)
{
    struct train_config ref = *c;
    ref.scheme = TRAIN_SINGLE;
    ref.nranks = 1;
    ref.backend = BACKEND_CPU;
    ref.prefetch = false;
    ref.moe_groups = c->scheme == TRAIN_MOE ? c->nranks : 0;
    return ref;
}

void train_config_default(struct train_config *c)
{
    memset(c, 0, sizeof *c);
    c->scheme = TRAIN_DDP;
    c->nranks = 4;
    c->layers = 4;
    c->dim = 1024;
    c->batch = 128;
    c->steps = 5;
    c->microbatches = 4;
    c->schedule = PP_GPIPE;
    c->overlap = false;
    c->seed = 0;
    c->timeout_s = 60.0;
    adamw_default(&c->adamw);
    c->experts = 8;
    c->topk = 2;
    c->capacity = 1.0;
}

size_t train_param_count(const struct train_config *c)
{
    size_t L = (size_t)c->layers, D = (size_t)c->dim, n = L * D * D;
    if (c->scheme == TRAIN_MOE || c->moe_groups > 0)
        n += L * (size_t)c->experts * D * D + L * D * (size_t)c->experts;
    return n;
}

int train_moe_capacity(const struct train_config *c, int n)
{
    if (!(c->capacity > 0)) return 0;
    return (int)ceil(c->capacity * (double)n * c->topk / c->experts);
}

double train_moe_busbw(const size_t *bytes, const double *secs, int n)
{
    size_t b = 0;
    double t = 0;
    for (int i = 0; i < n; i++) {
        if (bytes[i] > b) b = bytes[i];
        if (secs[i] > t) t = secs[i];
    }
    return b && t > 0 ? (double)b / t : 0;
}

/* The routing record of a moe run or its reference: G groups. */
static void moe_stats_init(struct train_moe *m, const struct train_config *c, int G)
{
    size_t L = (size_t)c->layers, E = (size_t)c->experts;
    m->groups = G;
    m->experts = c->experts;
    m->topk = c->topk;
    m->capacity = train_moe_capacity(c, c->batch / G);
    m->routed = xcalloc(L * G * E, sizeof(size_t));
    m->kept = xcalloc(L * G * E, sizeof(size_t));
    m->dropped_last = xcalloc((size_t)G, sizeof(size_t));
    m->dropped_total = xcalloc((size_t)G, sizeof(size_t));
    m->dispatch_bytes = xcalloc((size_t)G, sizeof(size_t));
    m->combine_bytes = xcalloc((size_t)G, sizeof(size_t));
    m->counts_bytes = xcalloc((size_t)G, sizeof(size_t));
    m->dispatch_s = xcalloc((size_t)G, sizeof(double));
    m->combine_s = xcalloc((size_t)G, sizeof(double));
}

static void moe_stats_free(struct train_moe *m)
{
    free(m->routed);
    free(m->kept);
    free(m->dropped_last);
    free(m->dropped_total);
    free(m->dispatch_bytes);
    free(m->combine_bytes);
    free(m->counts_bytes);
    free(m->dispatch_s);
    free(m->combine_s);
    memset(m, 0, sizeof *m);
}

/* Every process's own entries of the record summed into everyone's (MPI). */
static int moe_stats_combine(struct comm *c, struct train_moe *m, size_t L)
{
    const struct comm_ops *o = c->ops;
    size_t G = (size_t)m->groups, E = (size_t)m->experts;
    int rc = o->proc_sum(c, m->routed, L * G * E, COMM_PROC_U64);
    if (rc == CV_OK) rc = o->proc_sum(c, m->kept, L * G * E, COMM_PROC_U64);
    size_t *u[] = {m->dropped_last, m->dropped_total, m->dispatch_bytes, m->combine_bytes,
                   m->counts_bytes};
    for (int i = 0; i < 5 && rc == CV_OK; i++)
        rc = o->proc_sum(c, u[i], G, COMM_PROC_U64);
    if (rc == CV_OK) rc = o->proc_sum(c, m->dispatch_s, G, COMM_PROC_F64);
    if (rc == CV_OK) rc = o->proc_sum(c, m->combine_s, G, COMM_PROC_F64);
    return rc;
}

/* The calling thread's CPU time: a step's CPU seconds over its wall seconds say how many
 * cores its ranks actually had (on a shared machine, fewer than it has). */
static double thread_cpu_s(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int ranks_of(const struct train_config *c)
{
    return c->scheme == TRAIN_SINGLE ? 1 : c->nranks;
}

/* Bytes every rank together allocates, an upper bound used to refuse sizes that would
 * not fit before anything is allocated. */
static double estimate_bytes(const struct train_config *c)
{
    double W = ranks_of(c), L = c->layers, D = c->dim, B = c->batch;
    double params = 4.0 * L * D * D * 4; /* weights, grads, m, v */
    double acts = (2 * L + 4) * B * D;
    switch (c->scheme) {
    case TRAIN_SINGLE:
        break;
    case TRAIN_DDP:
        params *= W;
        break;
    case TRAIN_TP:
        acts *= W;
        break;
    case TRAIN_PP:
        break;
    case TRAIN_MOE: /* dense + routers replicated, experts once, activations per slot */
        params = 4.0 * 4 * (L * D * D * W + L * c->experts * D * D);
        acts = (3 * L + 3) * B * D + 6.0 * L * B * c->topk * D + 2.0 * L * B * B * c->topk / W;
        break;
    default: /* zero: at most DDP's */
        params *= W;
        break;
    }
    /* the weights gathered at the end, the comm's buffers */
    return params + acts * 4 + L * D * D * 4 + 2 * B * D * 4 * W;
}

/* How the checks name the rank count: the option, or the launcher's world. */
static void ranks_named(const struct train_config *c, char *buf, size_t n)
{
    if (c->ranks_from_launcher)
        snprintf(buf, n, "the job's %d process%s (mpirun -np %d)", c->nranks,
                 c->nranks == 1 ? "" : "es", c->nranks);
    else
        snprintf(buf, n, "--ranks %d", c->nranks);
}

/* moe's own values: E a multiple of W (E/W experts each), K in 1..E, C in [0, 64]. */
static int moe_config_check(const struct train_config *c, const char *W, char *err,
                            size_t errlen)
{
    if (c->experts < 1 || c->experts > 256)
        return cv_err(err, errlen, CV_EINVAL, "--experts %d: must be 1..256", c->experts);
    if (c->experts % c->nranks)
        return cv_err(err, errlen, CV_EINVAL,
                      "--experts %d is not divisible by %s (moe gives every rank "
                      "experts/ranks experts)",
                      c->experts, W);
    if (c->topk < 1 || c->topk > c->experts)
        return cv_err(err, errlen, CV_EINVAL, "--topk %d: must be 1..--experts (%d)", c->topk,
                      c->experts);
    if (!(c->capacity >= 0 && c->capacity <= 64))
        return cv_err(err, errlen, CV_EINVAL,
                      "--capacity %g: must be 0 (dropless) or a factor in (0, 64]",
                      c->capacity);
    return CV_OK;
}

/* Each thread that runs an sgemm maps OpenBLAS's work buffer, whole, and one that cannot
 * (ulimit -v) retries for ever: checked against the address space left beside the run's
 * own `need`, not against the RAM (the buffer is mostly never touched). The threads: every
 * CPU rank of this process and the reference run's (a GPU rank's products are cuBLAS's). */
static int blas_room_check(const struct train_config *c, double need, char *err, size_t errlen)
{
    size_t buf = mlp_blas_buffer_bytes();
    if (!buf || (backend_kind_caps(c->backend) & BACKEND_CAP_GPU)) return CV_OK;
    int threads = (backend_kind_caps(c->backend) & BACKEND_CAP_PROCESSES) ? 1 : ranks_of(c);
    if (c->scheme != TRAIN_SINGLE) threads++;
    size_t room = mem_address_room();
    if (need + (double)threads * (double)buf <= (double)room) return CV_OK;
    char W[64], blas[32], left[32], per[32];
    ranks_named(c, W, sizeof W);
    format_size((size_t)threads * buf, blas, sizeof blas);
    format_size(room, left, sizeof left);
    format_size(buf, per, sizeof per);
    return cv_err(err, errlen, CV_ENOMEM,
                  "%s on %s: %d thread%s running sgemm need%s %s of address space (OpenBLAS "
                  "maps %s in each) beside the run's own; ulimit -v leaves %s",
                  train_scheme_name(c->scheme), W, threads, threads == 1 ? "" : "s",
                  threads == 1 ? "s" : "", blas, per, left);
}

int train_config_check(const struct train_config *c, char *err, size_t errlen)
{
    char W[64];
    ranks_named(c, W, sizeof W);
    if (c->scheme < 0 || c->scheme >= TRAIN_SCHEME_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "unknown scheme %d", (int)c->scheme);
    if (c->nranks < 1 || c->nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "--ranks %d: must be 1..%d", c->nranks,
                      CV_MAX_RANKS);
    if (c->layers < 1 || c->layers > 1024)
        return cv_err(err, errlen, CV_EINVAL, "--layers %d: must be 1..1024", c->layers);
    if (c->dim < 1 || c->dim > 65536)
        return cv_err(err, errlen, CV_EINVAL, "--dim %d: must be 1..65536", c->dim);
    if (c->batch < 1 || c->batch > 1 << 20)
        return cv_err(err, errlen, CV_EINVAL, "--batch %d: must be 1..%d", c->batch, 1 << 20);
    if (c->steps < 1 || c->steps > 1000000)
        return cv_err(err, errlen, CV_EINVAL, "--steps %d: must be 1..1000000", c->steps);
    if (!(c->timeout_s > 0) || !isfinite(c->timeout_s))
        return cv_err(err, errlen, CV_EINVAL, "timeout %g s: must be a positive number",
                      c->timeout_s);
    const float hyper[] = {c->adamw.lr, c->adamw.beta1, c->adamw.beta2, c->adamw.eps,
                           c->adamw.weight_decay};
    static const char *const hyper_name[] = {"learning rate", "beta1", "beta2", "eps",
                                             "weight decay"};
    for (size_t i = 0; i < sizeof hyper / sizeof hyper[0]; i++)
        if (!isfinite(hyper[i]) || hyper[i] < 0)
            return cv_err(err, errlen, CV_EINVAL, "AdamW %s %g: must be a finite number >= 0",
                          hyper_name[i], (double)hyper[i]);
    if (c->backend < 0 || c->backend >= BACKEND_KIND_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "unknown backend %d", (int)c->backend);
    if ((backend_kind_caps(c->backend) & BACKEND_CAP_GPU) && c->scheme == TRAIN_SINGLE)
        return cv_err(err, errlen, CV_EINVAL,
                      "single is the CPU reference trainer; on one GPU use ddp --ranks 1");
    if ((backend_kind_caps(c->backend) & BACKEND_CAP_PROCESSES) && c->scheme == TRAIN_SINGLE)
        return cv_err(err, errlen, CV_EINVAL,
                      "single is the CPU reference trainer; on one process use ddp with -np 1");
    if (c->overlap && train_zero_stage(c->scheme))
        return cv_err(err, errlen, CV_EINVAL,
                      "--overlap applies to ddp, not %s (zero3 overlaps its gathers with "
                      "--prefetch)",
                      train_scheme_name(c->scheme));
    if (c->prefetch && c->scheme != TRAIN_ZERO3)
        return cv_err(err, errlen, CV_EINVAL,
                      "--prefetch applies to zero3 (%s keeps whole layers: nothing to gather)",
                      train_scheme_name(c->scheme));
    if (c->scheme == TRAIN_MOE) {
        int rc = moe_config_check(c, W, err, errlen);
        if (rc != CV_OK) return rc;
    }
    switch (c->scheme) {
    case TRAIN_MOE:
    case TRAIN_DDP:
    case TRAIN_ZERO1:
    case TRAIN_ZERO2:
    case TRAIN_ZERO3:
        if (c->batch % c->nranks)
            return cv_err(err, errlen, CV_EINVAL,
                          "--batch %d is not divisible by %s (%s gives every rank "
                          "batch/ranks rows)",
                          c->batch, W, train_scheme_name(c->scheme));
        break;
    case TRAIN_TP:
        if (c->dim % c->nranks)
            return cv_err(err, errlen, CV_EINVAL,
                          "--dim %d is not divisible by %s (tp splits every layer "
                          "into dim/ranks columns)",
                          c->dim, W);
        break;
    case TRAIN_PP:
        if (c->schedule < 0 || c->schedule >= PP_SCHEDULE_COUNT)
            return cv_err(err, errlen, CV_EINVAL, "unknown schedule %d", (int)c->schedule);
        if (c->layers < c->nranks)
            return cv_err(err, errlen, CV_EINVAL,
                          "--layers %d is fewer than %s (pp needs at least one "
                          "layer per stage)",
                          c->layers, W);
        if (c->microbatches < 1 || c->microbatches > c->batch)
            return cv_err(err, errlen, CV_EINVAL, "--microbatches %d: must be 1..batch (%d)",
                          c->microbatches, c->batch);
        if (c->batch % c->microbatches)
            return cv_err(err, errlen, CV_EINVAL,
                          "--batch %d is not divisible by --microbatches %d", c->batch,
                          c->microbatches);
        break;
    default:
        break;
    }
    /* On GPUs the ranks' buffers are device memory (a cudaMalloc that fails is reported
     * as such); the host holds only the assembled weights. */
    double need = (backend_kind_caps(c->backend) & BACKEND_CAP_GPU)
                      ? 2.0 * c->layers * (double)c->dim * c->dim * sizeof(float)
                      : estimate_bytes(c);
    /* a fifth spare: the ranks' threads, the allocator's slack */
    need = need > 4e12 ? 0x1p62 : 1.25 * need;
    int rc = mem_check(need, err, errlen, "--layers %d --dim %d --batch %d", c->layers, c->dim,
                       c->batch);
    return rc != CV_OK ? rc : blas_room_check(c, need, err, errlen);
}

/* ---- the rank threads ---- */

struct run {
    const struct train_config *cfg;
    const struct scheme_ops *ops;
    struct comm *comm;
    struct timeline tl;
    struct rank_state *rs;   /* [W] */
    int *rc;                 /* [W] */
    double *t_start, *t_end; /* [steps][W] absolute */
    double *cpu;             /* [steps][W] the rank thread's CPU seconds in the step */
    double *pipe_end;        /* [steps][W] absolute (pp) */
    double *sumsq;           /* [steps][W] */
    size_t *sent, *recvd;    /* [steps][W] */
    struct train_moe moe;    /* moe and its reference: the routing record */
    struct comm_stats last;  /* rank 0's counters of the last step */
    volatile int *cancel;
    atomic_int stop;                /* rank 0 saw the cancel flag */
    atomic_int steps_done;          /* written by rank 0 */
    struct dev *devs[CV_MAX_RANKS]; /* GPU devices (backend nccl); NULL on CPU ranks */
    char gpu_desc[64];
};

struct rank_arg {
    struct run *run;
    int rank;
};

void rank_compute_event(struct rank_state *rs, const char *label, double t0, int mb)
{
    if (!rs->tl) return;
    /* On a GPU the work is only queued: wait for it, so the event ends when the compute
     * did (a no-op on the CPU). */
    rs->dev->ops->sync(rs->dev);
    struct tl_event *e =
        timeline_add(rs->tl, rs->step, rs->rank, 0, TL_COMPUTE, label, t0, now_s());
    e->mb = mb;
}

static void *rank_main(void *arg)
{
    struct rank_arg *ra = arg;
    struct run *run = ra->run;
    int r = ra->rank, W = run->comm->nranks;
    struct rank_state *rs = &run->rs[r];
    struct comm *cm = run->comm;
    /* Rank threads are left to the scheduler. Pinned round-robin (rank r on core r mod n)
     * a 4-rank DDP step took 62-70 ms instead of 38-46 ms on 2 busy cores: ranks move in
     * lock step, and a pair pinned to a core that another process is using stalls all. */
    int rc = run->ops->setup(rs);
    /* Device math reports errors only through its sticky status (dev.h). */
    if (rc == CV_OK && dev_status(rs->dev, rs->err, sizeof rs->err) != CV_OK)
        rc = rs->dev->status;
    for (int s = 0; rc == CV_OK && s < run->cfg->steps; s++) {
        if (r == 0 && run->cancel && *run->cancel) atomic_store(&run->stop, 1);
        rc = cm->ops->barrier(cm, r);
        if (rc != CV_OK || atomic_load(&run->stop)) break;
        rs->step = s;
        cm->step[r] = s;
        cm->ops->reset_stats(cm, r);
        size_t k = (size_t)s * W + r;
        run->t_start[k] = now_s();
        run->tl.step_start[k] = run->t_start[k];
        double c0 = thread_cpu_s();
        rc = run->ops->step(rs);
        /* A device error comes first: a communication failure after it is its consequence. */
        if (dev_status(rs->dev, rs->err, sizeof rs->err) != CV_OK) rc = rs->dev->status;
        run->cpu[k] = thread_cpu_s() - c0; /* read inside the step's wall interval */
        run->t_end[k] = now_s();
        if (rc != CV_OK) break;
        run->pipe_end[k] = rs->pipe_end;
        run->sumsq[k] = rs->loss_sumsq;
        struct comm_stats st;
        cm->ops->stats(cm, r, &st);
        run->sent[k] = st.bytes_sent;
        run->recvd[k] = st.bytes_recv;
        if (r == 0) {
            run->last = st;
            atomic_store(&run->steps_done, s + 1);
        }
    }
    if (rc != CV_OK) cm->ops->abort(cm, rs->err[0] ? rs->err : "a rank failed");
    rs->mem.comm = cm->ops->mem_bytes(cm, r);
    if (train_memory_total(&rs->mem_peak) == 0) rs->mem_peak = rs->mem;
    rs->mem_peak.comm = rs->mem.comm;
    run->rc[r] = rc;
    return NULL;
}

/* ---- the single-device reference as a scheme of its own ---- */

struct ref_hook {
    struct timeline *tl;
    int step;
};

static void ref_phase(void *ctx, const char *label, double t0, double t1)
{
    struct ref_hook *h = ctx;
    timeline_add(h->tl, h->step, 0, 0, TL_COMPUTE, label, t0, t1);
}

/* The reference of a moe run: moe_ref on the whole batch, its routing recorded. */
static int run_single_moe(const struct train_config *cfg, struct run *run, float *params)
{
    struct moe_ref *m = moe_ref_new(cfg);
    struct rank_state *rs = &run->rs[0];
    size_t L = (size_t)cfg->layers, D = (size_t)cfg->dim, B = (size_t)cfg->batch,
           K = (size_t)cfg->topk;
    rs->mem.params = train_param_count(cfg) * sizeof(float);
    rs->mem.grads = rs->mem.params;
    rs->mem.optimizer = 2 * rs->mem.params;
    rs->mem.activations = ((3 * L + 4) * B * D + 3 * L * B * K * D) * sizeof(float);
    rs->mem_peak = rs->mem;
    int rc = CV_OK;
    for (int s = 0; s < cfg->steps; s++) {
        if (run->cancel && *run->cancel) {
            rc = CV_ECANCELLED;
            break;
        }
        run->t_start[s] = now_s();
        run->tl.step_start[s] = run->t_start[s];
        double loss = moe_ref_step(m, &run->moe);
        run->t_end[s] = now_s();
        timeline_add(&run->tl, s, 0, 0, TL_COMPUTE, "moe step", run->t_start[s], run->t_end[s]);
        run->sumsq[s] = loss * (double)(B * D);
        atomic_store(&run->steps_done, s + 1);
    }
    moe_ref_params(m, params);
    moe_ref_free(m);
    return rc;
}

static int run_single(const struct train_config *cfg, struct run *run, float *params)
{
    if (cfg->moe_groups > 0) return run_single_moe(cfg, run, params);
    struct mlp_ref ref;
    mlp_ref_init(&ref, cfg->layers, cfg->dim, cfg->batch, cfg->seed);
    struct rank_state *rs = &run->rs[0];
    size_t dd = (size_t)cfg->dim * cfg->dim, bd = (size_t)cfg->batch * cfg->dim;
    rs->mem.params = (size_t)cfg->layers * dd * sizeof(float);
    rs->mem.grads = rs->mem.params;
    rs->mem.optimizer = 2 * rs->mem.params;
    rs->mem.activations = ((size_t)(2 * cfg->layers + 1) + 2) * bd * sizeof(float);
    rs->mem_peak = rs->mem;
    int rc = CV_OK;
    for (int s = 0; s < cfg->steps; s++) {
        if (run->cancel && *run->cancel) {
            rc = CV_ECANCELLED;
            break;
        }
        struct ref_hook h = {&run->tl, s};
        run->t_start[s] = now_s();
        run->tl.step_start[s] = run->t_start[s];
        double c0 = thread_cpu_s();
        double loss = mlp_ref_step(&ref, &cfg->adamw, ref_phase, &h);
        run->cpu[s] = thread_cpu_s() - c0;
        run->t_end[s] = now_s();
        run->sumsq[s] = loss * (double)bd;
        atomic_store(&run->steps_done, s + 1);
    }
    memcpy(params, ref.w, (size_t)cfg->layers * dd * sizeof(float));
    mlp_ref_free(&ref);
    return rc;
}

/* ---- turning the record into results ---- */

static void fill_step_stats(struct train_result *res, const struct run *run)
{
    int W = res->nranks;
    double norm = (double)res->cfg.batch * res->cfg.dim;
    for (int s = 0; s < res->steps_done; s++) {
        struct train_step_stat *st = &res->steps[s];
        double sum = 0, t0 = 0, t1 = 0, cpu = 0;
        size_t maxb = 0;
        for (int r = 0; r < W; r++) {
            size_t k = (size_t)s * W + r;
            sum += run->sumsq[k];
            cpu += run->cpu[k];
            if (r == 0 || run->t_start[k] < t0) t0 = run->t_start[k];
            if (r == 0 || run->t_end[k] > t1) t1 = run->t_end[k];
            res->bytes_sent[k] = run->sent[k];
            res->bytes_recv[k] = run->recvd[k];
            if (run->sent[k] > maxb) maxb = run->sent[k];
        }
        st->loss = sum / norm;
        st->time_s = t1 - t0;
        st->cpu_s = cpu;
        st->comm_bytes = maxb;
    }
    for (size_t i = 0; i < res->nevents; i++) {
        const struct tl_event *e = &res->events[i];
        if (e->step < 0 || e->step >= res->steps_done || e->kind == TL_COMPUTE) continue;
        if (e->lane == 0)
            res->steps[e->step].comm_s += (e->t1 - e->t0) / W;
        else
            res->steps[e->step].comm_async_s += (e->t1 - e->t0) / W;
    }
}

/* Pipeline bubble from the timeline: per stage, the share of the span from the step's
 * start to the last stage's last backward in which it was not computing a micro-batch. */
static void fill_bubble(struct train_result *res, const struct run *run)
{
    int P = res->nranks, M = res->cfg.microbatches;
    res->bubble_model = (double)(P - 1) / (double)(M + P - 1);
    int first = res->steps_done > 1 ? 1 : 0; /* step 0 warms caches and allocators */
    double total = 0;
    int n = 0;
    for (int s = first; s < res->steps_done; s++) {
        double start = 0, end = 0;
        for (int r = 0; r < P; r++) {
            size_t k = (size_t)s * P + r;
            if (r == 0 || run->t_start[k] < start) start = run->t_start[k];
            if (r == 0 || run->pipe_end[k] > end) end = run->pipe_end[k];
        }
        double span = end - start;
        if (span <= 0) continue;
        for (int r = 0; r < P; r++) {
            double busy = 0;
            for (size_t i = 0; i < res->nevents; i++) {
                const struct tl_event *e = &res->events[i];
                if (e->step == s && e->rank == r && e->kind == TL_COMPUTE && e->mb >= 0)
                    busy += e->t1 - e->t0;
            }
            total += 1.0 - busy / span;
            n++;
        }
    }
    res->bubble_measured = n ? total / n : -1;
}

static void fill_napkin(struct train_result *res, const struct run *run)
{
    const struct train_config *c = &res->cfg;
    size_t L = (size_t)c->layers, D = (size_t)c->dim, B = (size_t)c->batch,
           W = (size_t)res->nranks;
    struct train_napkin *nk = &res->napkin;
    nk->tp_model_elems = L * B * D;
    nk->ddp_model_elems = L * D * D;
    nk->all_gather_elems = run->last.coll_bytes[COLL_ALL_GATHER] / sizeof(float);
    nk->reduce_scatter_elems = run->last.coll_bytes[COLL_REDUCE_SCATTER] / sizeof(float);
    nk->all_reduce_elems = run->last.coll_bytes[COLL_ALL_REDUCE] / sizeof(float);
    /* Ring formulas, per rank per step: all-reduce sends 2(W-1)/W of the buffer,
     * all-gather and reduce-scatter (W-1)/W of the whole output/input; a pipeline stage
     * sends B·D forward (unless last) and B·D backward (unless first), the busiest stage
     * both. */
    switch (c->scheme) {
    case TRAIN_DDP:
        nk->wire_model_bytes = 2 * (W - 1) * L * D * D / W * sizeof(float);
        break;
    case TRAIN_TP:
        nk->wire_model_bytes = (2 * L - 1) * (W - 1) * B * D / W * sizeof(float);
        break;
    case TRAIN_PP:
        nk->wire_model_bytes = (W == 1 ? 0 : W == 2 ? 1 : 2) * B * D * sizeof(float);
        break;
    case TRAIN_ZERO1:
    case TRAIN_ZERO2:
    case TRAIN_ZERO3: {
        /* Per layer: a reduce-scatter and one all-gather (stage 3: two) of W shards of
         * s = ceil(D²/W), each sending (W-1)·s elements. */
        size_t sh = (D * D + W - 1) / W, ags = c->scheme == TRAIN_ZERO3 ? 2 : 1;
        nk->wire_model_bytes = (1 + ags) * (W - 1) * L * sh * sizeof(float);
        break;
    }
    default:
        nk->wire_model_bytes = 0;
        break;
    }
    size_t maxb = 0;
    if (res->steps_done > 0)
        for (int r = 0; r < res->nranks; r++) {
            size_t b = res->bytes_sent[(size_t)(res->steps_done - 1) * res->nranks + r];
            if (b > maxb) maxb = b;
        }
    nk->wire_bytes = maxb;
}

static void describe(struct train_result *res, const char *gpu_desc, struct backend *b)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if ((backend_kind_caps(res->cfg.backend) & BACKEND_CAP_PROCESSES) && b) {
        char d[100];
        b->ops->describe(b, res->nranks, d, sizeof d);
        snprintf(res->desc, sizeof res->desc, "%s; %s plans over MPI_Isend/Irecv", d,
                 algo_name(ALGO_RING));
        return;
    }
    if (backend_kind_caps(res->cfg.backend) & BACKEND_CAP_GPU) {
        bool emu = backend_caps_of("nccl") & BACKEND_CAP_EMULATED;
        snprintf(res->desc, sizeof res->desc,
                 "%d ranks = %d GPUs (%s); NCCL%s; cuBLAS fp32 (no TF32)%s; collective bytes: "
                 "ring model",
                 res->nranks, res->nranks, gpu_desc, emu ? " emulated" : "",
                 emu ? " emulated" : "");
        return;
    }
    const char *blas =
#ifdef HAVE_OPENBLAS
        "OpenBLAS sgemm, 1 thread per rank";
#else
        "plain C matmul";
#endif
    if (res->cfg.scheme == TRAIN_SINGLE)
        snprintf(res->desc, sizeof res->desc, "1 CPU thread on %ld cores; %s", cores, blas);
    else
        snprintf(res->desc, sizeof res->desc,
                 "%d ranks = %d CPU threads on %ld cores; %s plans; %s", res->nranks,
                 res->nranks, cores, algo_name(ALGO_RING), blas);
}

void train_result_free(struct train_result *r)
{
    free(r->steps);
    free(r->bytes_sent);
    free(r->bytes_recv);
    free(r->mem);
    free(r->mem_peak);
    free(r->events);
    free(r->params);
    moe_stats_free(&r->moe);
    memset(r, 0, sizeof *r);
}

/* ---- GPUs (backend nccl) ---- */

static void close_gpus(struct run *run)
{
    for (int r = 0; r < CV_MAX_RANKS; r++)
        if (run->devs[r]) {
            run->devs[r]->ops->destroy(run->devs[r]);
            run->devs[r] = NULL;
        }
}

/* One device per rank this process runs, then the NCCL backend's communicator for them
 * (its comm_create, made here, in the driver thread, before any rank thread starts). b is
 * the opened NCCL backend, or NULL: one is opened here (*own, closed by the caller). */
static int open_gpus(struct backend *b, struct run *run, int W, struct comm_params *cp,
                     struct backend **own, char *err, size_t errlen)
{
    if (!dev_gpu_built())
        return cv_err(
            err, errlen, CV_EUNAVAIL,
            "GPU training is not built (no CUDA toolkit and NCCL found at build time)");
    int rc;
    if (!b) {
        int n = dev_gpu_count(err, errlen);
        if (n < 0) return -n;
        if ((rc = backend_open("nccl", own, err, errlen, NULL, 0)) != CV_OK) return rc;
        b = *own;
    }
    bool mp = backend_multiprocess(b);
    int usable = b->ops->max_ranks(b);
    if (mp && W != usable)
        return cv_err(err, errlen, CV_EINVAL,
                      "--ranks %d: across processes NCCL trains on the %d process%s the "
                      "launcher started, one GPU each",
                      W, usable, usable == 1 ? "" : "es");
    if (!mp && usable < W)
        return cv_err(err, errlen, CV_EUNAVAIL,
                      "--ranks %d needs %d GPUs (one per rank), %d usable", W, W, usable);
    int lo = mp ? backend_proc_rank(b) : 0, hi = mp ? lo + 1 : W;
    rc = CV_OK;
    for (int r = lo; r < hi && rc == CV_OK; r++)
        rc = dev_gpu_create(&run->devs[r], backend_rank_device(b, r), err, errlen);
    cp->devs = run->devs;
    if (rc == CV_OK) rc = b->ops->comm_create(b, cp, &run->comm, err, errlen);
    if (rc != CV_OK) {
        close_gpus(run);
        return rc;
    }
    /* the name the backend read when it opened (lo is this process's first rank) */
    char name[256];
    backend_device_name(b, backend_rank_device(b, lo), name, sizeof name);
    snprintf(run->gpu_desc, sizeof run->gpu_desc, "%.63s", name);
    return CV_OK;
}

static void run_free(struct run *run)
{
    timeline_free(&run->tl);
    free(run->rs);
    free(run->rc);
    free(run->t_start);
    free(run->t_end);
    free(run->cpu);
    free(run->pipe_end);
    free(run->sumsq);
    free(run->sent);
    free(run->recvd);
    moe_stats_free(&run->moe);
}

static int train_run_impl(struct backend *b, const struct train_config *cfg,
                          struct train_probe *probe, struct train_result *res,
                          volatile int *cancel, char *err, size_t errlen);

int train_run(const struct train_config *cfg, struct train_result *res, volatile int *cancel,
              char *err, size_t errlen)
{
    return train_run_impl(NULL, cfg, NULL, res, cancel, err, errlen);
}

int train_run_on(struct backend *b, const struct train_config *cfg, struct train_result *res,
                 volatile int *cancel, char *err, size_t errlen)
{
    if (b && b->ops->kind != cfg->backend)
        return cv_err(err, errlen, CV_EINVAL, "the configuration asks for backend %s, not %s",
                      backend_kind_name(cfg->backend), b->ops->name);
    return train_run_impl(b, cfg, NULL, res, cancel, err, errlen);
}

int train_run_probe(const struct train_config *cfg, struct train_probe *probe,
                    struct train_result *res, volatile int *cancel, char *err, size_t errlen)
{
    return train_run_impl(NULL, cfg, probe, res, cancel, err, errlen);
}

/* Ranks that are processes: every process ran its own rank; combine the records so that
 * every process holds the whole run's (see comm.h's proc_* operations). */
static int combine_processes(struct run *run, const struct train_config *cfg, int W,
                             struct train_result *res)
{
    struct comm *c = run->comm;
    const struct comm_ops *o = c->ops;
    int me = c->self, rc = CV_OK;
    size_t ns = (size_t)cfg->steps * W;
    _Static_assert(sizeof(size_t) == 8, "size_t records are summed as 64-bit integers");
    int done = atomic_load(&run->steps_done);
    if (rc == CV_OK) rc = o->proc_bcast(c, &done, sizeof done, 0);
    atomic_store(&run->steps_done, done);
    if (rc == CV_OK) rc = o->proc_sum(c, run->t_start, ns, COMM_PROC_F64);
    if (rc == CV_OK) rc = o->proc_sum(c, run->t_end, ns, COMM_PROC_F64);
    if (rc == CV_OK) rc = o->proc_sum(c, run->cpu, ns, COMM_PROC_F64);
    if (rc == CV_OK) rc = o->proc_sum(c, run->pipe_end, ns, COMM_PROC_F64);
    if (rc == CV_OK) rc = o->proc_sum(c, run->sumsq, ns, COMM_PROC_F64);
    if (rc == CV_OK) rc = o->proc_sum(c, run->sent, ns, COMM_PROC_U64);
    if (rc == CV_OK) rc = o->proc_sum(c, run->recvd, ns, COMM_PROC_U64);
    if (rc == CV_OK) rc = o->proc_sum(c, run->tl.step_start, ns, COMM_PROC_F64);
    if (rc == CV_OK) rc = o->proc_bcast(c, &run->last, sizeof run->last, 0);
    /* Memory: allocated and peak, five kinds each, per rank. */
    _Static_assert(sizeof(struct train_memory) == 5 * sizeof(size_t), "five size_t kinds");
    size_t per = 2 * sizeof(struct train_memory);
    unsigned char *mem = xcalloc((size_t)W, per);
    memcpy(mem + (size_t)me * per, &run->rs[me].mem, sizeof run->rs[me].mem);
    memcpy(mem + (size_t)me * per + per / 2, &run->rs[me].mem_peak, per / 2);
    if (rc == CV_OK) rc = o->proc_sum(c, mem, (size_t)W * 10, COMM_PROC_U64);
    for (int r = 0; r < W; r++) {
        memcpy(&run->rs[r].mem, mem + (size_t)r * per, per / 2);
        memcpy(&run->rs[r].mem_peak, mem + (size_t)r * per + per / 2, per / 2);
    }
    free(mem);

    /* Events: this rank's lanes to every process. */
    size_t nmine = 0;
    for (int l = 0; l < TL_LANES; l++)
        nmine += run->tl.lanes[me * TL_LANES + l].n;
    struct tl_event *ev = xcalloc(nmine + 1, sizeof *ev), *all = NULL;
    size_t k = 0;
    for (int l = 0; l < TL_LANES; l++) {
        const struct tl_lane *ln = &run->tl.lanes[me * TL_LANES + l];
        if (ln->n) memcpy(ev + k, ln->ev, ln->n * sizeof *ev);
        k += ln->n;
    }
    size_t counts[CV_MAX_RANKS];
    if (rc == CV_OK) rc = o->proc_allgather(c, ev, nmine * sizeof *ev, (void **)&all, counts);
    if (rc == CV_OK) {
        size_t at = 0;
        for (int r = 0; r < W; r++) {
            size_t n = counts[r] / sizeof *ev;
            for (size_t i = 0; r != me && i < n; i++) {
                const struct tl_event *e = &all[at + i];
                if (e->rank != r || e->lane < 0 || e->lane >= TL_LANES) continue;
                struct tl_event *d = timeline_add(&run->tl, e->step, r, e->lane, e->kind,
                                                  e->label, e->t0, e->t1);
                *d = *e;
            }
            at += n;
        }
    }
    free(all);
    free(ev);

    /* Parameters: rank 0's to everyone, then each rank's own part added (the parts are
     * disjoint, so the sum is exact); DDP's replicas are compared with rank 0's. */
    size_t np = train_param_count(cfg);
    float *p = res->params;
    memset(p, 0, np * sizeof(float));
    double diff = 0;
    if (me == 0) run->ops->params(&run->rs[0], p, &diff);
    if (rc == CV_OK) rc = o->proc_bcast(c, p, np * sizeof(float), 0);
    if (rc == CV_OK && me != 0) {
        float *p0 = xmalloc(np * sizeof(float));
        memcpy(p0, p, np * sizeof(float));
        run->ops->params(&run->rs[me], p, &diff);
        for (size_t i = 0; i < np; i++)
            p[i] -= p0[i];
        free(p0);
    }
    if (rc == CV_OK) rc = o->proc_sum(c, p, np, COMM_PROC_F32);
    if (rc == CV_OK) rc = o->proc_max(c, &diff);
    res->replica_max_diff = diff;
    if (rc == CV_OK && cfg->scheme == TRAIN_MOE)
        rc = moe_stats_combine(c, &run->moe, (size_t)cfg->layers);
    return rc;
}

/* What a scheme's ranks call on the communicator (comm_params.traffic), so a backend makes
 * only that (NCCL: a pipeline gets no collectives communicator). DDP: all_reduce, or
 * iall_reduce with --overlap; TP: all_gather and reduce_scatter; PP: send/recv only. None
 * of them needs more: each step starts at the communicator's barrier (host or MPI, always
 * there), the loss is summed by the driver from each rank's share, the weights come back
 * from each rank's device (params), and across processes the records are combined with
 * the proc_* operations (MPI). */
static unsigned scheme_traffic(enum train_scheme s)
{
    switch (s) {
    case TRAIN_DDP:
    case TRAIN_TP:
    case TRAIN_ZERO1:
    case TRAIN_ZERO2:
    case TRAIN_ZERO3:
        return COMM_TRAFFIC_COLL;
    case TRAIN_PP:
        return COMM_TRAFFIC_P2P;
    case TRAIN_MOE: /* all-to-alls as point-to-point; dense and router gradients reduced */
        return COMM_TRAFFIC_COLL | COMM_TRAFFIC_P2P;
    default:
        return 0; /* single: no communicator */
    }
}

/* The run's shared state for W ranks: the timeline, the per-rank and per-step records. */
static void run_init(struct run *run, const struct train_config *cfg, struct train_probe *probe,
                     volatile int *cancel, int W)
{
    size_t ns = (size_t)cfg->steps * W;
    memset(run, 0, sizeof *run);
    run->cfg = cfg;
    run->cancel = cancel;
    atomic_init(&run->stop, 0);
    atomic_init(&run->steps_done, 0);
    timeline_init(&run->tl, W, cfg->steps);
    run->rs = xcalloc((size_t)W, sizeof *run->rs);
    run->rc = xcalloc((size_t)W, sizeof *run->rc);
    run->t_start = xcalloc(ns, sizeof(double));
    run->t_end = xcalloc(ns, sizeof(double));
    run->cpu = xcalloc(ns, sizeof(double));
    run->pipe_end = xcalloc(ns, sizeof(double));
    run->sumsq = xcalloc(ns, sizeof(double));
    run->sent = xcalloc(ns, sizeof(size_t));
    run->recvd = xcalloc(ns, sizeof(size_t));
    for (int r = 0; r < W; r++) {
        run->rs[r].cfg = cfg;
        run->rs[r].rank = r;
        run->rs[r].nranks = W;
        run->rs[r].tl = &run->tl;
        run->rs[r].probe = probe;
        run->rs[r].dev = dev_cpu();
        run->rs[r].moe = &run->moe;
    }
    if (cfg->scheme == TRAIN_MOE || cfg->moe_groups > 0)
        moe_stats_init(&run->moe, cfg, cfg->scheme == TRAIN_MOE ? W : cfg->moe_groups);
}

/* The communicator the scheme's ranks share, on *b (opened here into *own_b when none was
 * given, and then *b is it). */
static int open_comm(struct backend **b, struct run *run, struct train_probe *probe, int W,
                     struct backend **own_b, char *err, size_t errlen)
{
    const struct train_config *cfg = run->cfg;
    int rc = CV_OK;
    bool async = (cfg->scheme == TRAIN_DDP && cfg->overlap) ||
                 (cfg->scheme == TRAIN_ZERO3 && cfg->prefetch);
    struct comm_params cp = {.nranks = W,
                             .traffic = scheme_traffic(cfg->scheme),
                             .async = async,
                             .timeout_s = cfg->timeout_s,
                             .tl = &run->tl};
    /* Every scheme runs on the backend's own runtime, its communicator (comm_create):
     * the one the measurements use. */
    if (probe && cfg->backend != BACKEND_CPU) {
        rc = cv_err(err, errlen, CV_EINVAL,
                    "the display-scale probe reads host memory: CPU ranks only");
    } else if (backend_kind_caps(cfg->backend) & BACKEND_CAP_GPU) {
        rc = open_gpus(*b, run, W, &cp, own_b, err, errlen);
    } else if (!*b && (backend_kind_caps(cfg->backend) & BACKEND_CAP_PROCESSES)) {
        rc = cv_err(err, errlen, CV_EINVAL,
                    "training on %s needs the opened backend (train_run_on)",
                    backend_kind_name(cfg->backend));
    } else {
        if (!*b && (rc = backend_open(backend_kind_name(cfg->backend), own_b, err, errlen, NULL,
                                      0)) == CV_OK)
            *b = *own_b;
        if (*b) rc = (*b)->ops->comm_create(*b, &cp, &run->comm, err, errlen);
    }
    return rc;
}

/* Run ranks lo..hi-1, a thread each, and wait for them; an error only if one cannot start. */
static int run_rank_threads(struct run *run, int W, int lo, int hi, char *err, size_t errlen)
{
    int rc = CV_OK;
    pthread_t *th = xcalloc((size_t)W, sizeof *th);
    struct rank_arg *args = xcalloc((size_t)W, sizeof *args);
    int started = lo;
    for (int r = lo; r < hi; r++) {
        args[r] = (struct rank_arg){run, r};
        if (pthread_create(&th[r], NULL, rank_main, &args[r]) != 0) {
            run->comm->ops->abort(run->comm, "cannot start a rank thread");
            rc = cv_err(err, errlen, CV_EBACKEND, "cannot start rank thread %d", r);
            break;
        }
        started++;
    }
    for (int r = lo; r < started; r++)
        pthread_join(th[r], NULL);
    free(th);
    free(args);
    return rc;
}

/* The first failed rank of lo..hi-1, said with the scheme and where its ranks ran. */
static int rank_error(struct run *run, int lo, int hi, char *err, size_t errlen)
{
    const struct train_config *cfg = run->cfg;
    int rc = CV_OK;
    for (int r = lo; r < hi && rc == CV_OK; r++)
        if (run->rc[r] != CV_OK) {
            rc = run->rc[r];
            const char *why =
                run->rs[r].err[0] ? run->rs[r].err : run->comm->ops->last_error(run->comm);
            cv_err(err, errlen, rc, "%s on %s: %s", train_scheme_name(cfg->scheme),
                   (backend_kind_caps(cfg->backend) & BACKEND_CAP_GPU)         ? "GPUs (nccl)"
                   : (backend_kind_caps(cfg->backend) & BACKEND_CAP_PROCESSES) ? "mpi processes"
                                                                               : "cpu ranks",
                   why);
        }
    return rc;
}

/* A parallel scheme's whole run: its communicator, its rank threads, their parameters
 * gathered into res, and everything opened for it closed again. */
static int run_parallel(struct backend **b, struct run *run, struct train_probe *probe, int W,
                        struct train_result *res, char *err, size_t errlen)
{
    const struct train_config *cfg = run->cfg;
    run->ops = cfg->scheme == TRAIN_DDP   ? &scheme_ddp
               : cfg->scheme == TRAIN_TP  ? &scheme_tp
               : cfg->scheme == TRAIN_PP  ? &scheme_pp
               : cfg->scheme == TRAIN_MOE ? &scheme_moe
                                          : &scheme_zero;
    struct backend *own_b = NULL; /* a backend opened for this run (none was given) */
    int rc = open_comm(b, run, probe, W, &own_b, err, errlen);
    if (rc != CV_OK) {
        backend_close(own_b);
        return rc;
    }
    for (int r = 0; r < W; r++) {
        run->rs[r].comm = run->comm;
        if (run->devs[r]) run->rs[r].dev = run->devs[r];
    }
    /* The ranks this process runs: all of them, or its own when ranks are processes. */
    int lo = run->comm->self >= 0 ? run->comm->self : 0;
    int hi = run->comm->self >= 0 ? run->comm->self + 1 : W;
    rc = run_rank_threads(run, W, lo, hi, err, errlen);
    probe_finish(probe);
    if (rc == CV_OK) rc = rank_error(run, lo, hi, err, errlen);
    if (rc == CV_OK && atomic_load(&run->stop)) rc = CV_ECANCELLED;
    if (rc == CV_OK && run->comm->self >= 0) {
        rc = combine_processes(run, cfg, W, res);
        if (rc != CV_OK)
            cv_err(err, errlen, rc, "combining the ranks' records: %s",
                   run->comm->ops->last_error(run->comm));
    } else if (rc == CV_OK || rc == CV_ECANCELLED) {
        for (int r = 0; r < W; r++)
            run->ops->params(&run->rs[r], res->params, &res->replica_max_diff);
    }
    for (int r = lo; r < hi; r++)
        run->ops->cleanup(&run->rs[r]);
    run->comm->ops->destroy(run->comm);
    run->comm = NULL;
    close_gpus(run);
    backend_close(own_b);
    return rc;
}

/* The result's records of a finished (or cancelled) run: per step, per rank, the events. */
static void fill_result(struct train_result *res, struct run *run, struct backend *b, int W)
{
    const struct train_config *cfg = run->cfg;
    size_t ns = (size_t)cfg->steps * W;
    res->steps_done = atomic_load(&run->steps_done);
    res->steps = xcalloc((size_t)cfg->steps, sizeof *res->steps);
    res->bytes_sent = xcalloc(ns, sizeof(size_t));
    res->bytes_recv = xcalloc(ns, sizeof(size_t));
    res->mem = xcalloc((size_t)W, sizeof *res->mem);
    res->mem_peak = xcalloc((size_t)W, sizeof *res->mem_peak);
    for (int r = 0; r < W; r++) {
        res->mem[r] = run->rs[r].mem;
        res->mem_peak[r] = run->rs[r].mem_peak;
    }
    res->events = timeline_flatten(&run->tl, &res->nevents);
    fill_step_stats(res, run);
    fill_napkin(res, run);
    if (cfg->scheme == TRAIN_PP) fill_bubble(res, run);
    res->moe = run->moe; /* the record moves to the result */
    memset(&run->moe, 0, sizeof run->moe);
    describe(res, run->gpu_desc, b);
}

/* Check cfg, run it (single or a parallel scheme), and fill res from what it recorded. */
static int train_run_impl(struct backend *b, const struct train_config *cfg,
                          struct train_probe *probe, struct train_result *res,
                          volatile int *cancel, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    int rc = train_config_check(cfg, err, errlen);
    if (rc != CV_OK) return rc;
    if (probe && (rc = probe_check_config(cfg, err, errlen)) != CV_OK) return rc;
    int W = ranks_of(cfg);
    struct run run;
    run_init(&run, cfg, probe, cancel, W);

    res->cfg = *cfg;
    res->nranks = W;
    res->params = xcalloc(train_param_count(cfg), sizeof(float));
    res->bubble_measured = res->bubble_model = -1;
    /* Several rank threads each calling a multi-threaded sgemm would oversubscribe the
     * cores and make timings noisy; one BLAS thread per rank is the fair comparison. */
    mlp_blas_threads(1);

    if (cfg->scheme == TRAIN_SINGLE)
        rc = run_single(cfg, &run, res->params);
    else
        rc = run_parallel(&b, &run, probe, W, res, err, errlen);

    if (rc != CV_OK && rc != CV_ECANCELLED) {
        run_free(&run);
        train_result_free(res);
        return rc;
    }
    fill_result(res, &run, b, W);
    run_free(&run);
    if (rc == CV_ECANCELLED)
        cv_err(err, errlen, rc, "cancelled after %d of %d steps", res->steps_done, cfg->steps);
    return rc;
}

const struct tl_event *train_step_events(const struct train_result *r, int step, size_t *n)
{
    size_t i = 0;
    while (i < r->nevents && r->events[i].step < step)
        i++;
    size_t j = i;
    while (j < r->nevents && r->events[j].step == step)
        j++;
    *n = j - i;
    return j > i ? &r->events[i] : NULL;
}

void train_rank_breakdown(const struct train_result *r, int step, int rank, int lane,
                          double out[TL_KIND_COUNT])
{
    for (int k = 0; k < TL_KIND_COUNT; k++)
        out[k] = 0;
    size_t n;
    const struct tl_event *e = train_step_events(r, step, &n);
    for (size_t i = 0; i < n; i++)
        if (e[i].rank == rank && e[i].lane == lane) out[e[i].kind] += e[i].t1 - e[i].t0;
}

void train_compare(const struct train_result *a, const struct train_result *ref,
                   struct train_deviation *d)
{
    memset(d, 0, sizeof *d);
    int n = a->steps_done < ref->steps_done ? a->steps_done : ref->steps_done;
    for (int s = 0; s < n; s++) {
        double den = fabs(ref->steps[s].loss) > 1e-30 ? fabs(ref->steps[s].loss) : 1e-30;
        double rel = fabs(a->steps[s].loss - ref->steps[s].loss) / den;
        if (!(rel <= d->loss_rel)) { /* NaN counts as the worst */
            d->loss_rel = isnan(rel) ? INFINITY : rel;
            d->loss_step = s;
        }
    }
    size_t np = train_param_count(&a->cfg);
    if (train_param_count(&ref->cfg) < np) np = train_param_count(&ref->cfg);
    const struct train_moe *ma = &a->moe, *mr = &ref->moe;
    if (ma->routed && mr->routed && ma->groups == mr->groups && ma->experts == mr->experts) {
        size_t nr = (size_t)a->cfg.layers * ma->groups * ma->experts;
        for (size_t i = 0; i < nr; i++)
            d->moe_routing_diff +=
                (ma->routed[i] != mr->routed[i]) + (ma->kept[i] != mr->kept[i]);
    } else if (ma->routed || mr->routed) {
        d->moe_routing_diff = 1; /* one has routing the other lacks */
    }
    for (size_t i = 0; i < np; i++) {
        double diff = fabs((double)a->params[i] - (double)ref->params[i]);
        if (!(diff <= d->param_abs)) d->param_abs = isnan(diff) ? INFINITY : diff;
    }
    bool gpu = backend_kind_caps(a->cfg.backend) & BACKEND_CAP_GPU;
    d->tol_loss_rel = gpu ? TRAIN_TOL_GPU_LOSS_REL : TRAIN_TOL_LOSS_REL;
    d->tol_param_abs = gpu ? TRAIN_TOL_GPU_PARAM_ABS : TRAIN_TOL_PARAM_ABS;
    d->within = n == ref->steps_done && n == a->steps_done && d->loss_rel <= d->tol_loss_rel &&
                d->param_abs <= d->tol_param_abs && d->moe_routing_diff == 0;
}
