/* train.c - `collviz train`: train the lecture's MLP with one of the parallel schemes
 * (single, ddp, tp, pp) on CPU ranks or, with --backend nccl, on one GPU per rank (NCCL;
 * built with HAVE_NCCL, not yet run on a real GPU - `make gpu-test` checks it) and print
 * per-step loss, step time, communication time and bytes, memory per rank, the napkin math and
 * the pipeline bubble — as text or as one JSON object. --check also runs the single-device
 * reference and reports the largest deviation (exit 1 beyond tolerance). Everything comes from
 * parallel/train.h, the same API the UI's parallelism screen uses. */
#include "cli/cli.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/launcher.h"
#include "core/util.h"
#include "device/dev.h"
#include "cli/json.h"
#include "cli/opt.h"
#include "parallel/train.h"
#include "cli/train_moe.h"

struct train_opts {
    struct train_config cfg;
    bool ranks_set;
    const char *backend;
    struct backend *b; /* opened for --backend mpi (the ranks are its processes) */
    bool check;
    bool json;
    bool timeline;
    /* The options given that apply to one scheme only (--experts, --topk, --capacity: moe;
     * --microbatches, --schedule: pp): refused with any other scheme, never ignored. */
    struct train_scoped {
        const char *name;
        enum train_scheme scheme;
    } scoped[8];
    int nscoped;
};

/* Option `name` (of scheme's only) was given. */
static void train_scoped(struct train_opts *o, const char *name, enum train_scheme scheme)
{
    for (int i = 0; i < o->nscoped; i++)
        if (strcmp(o->scoped[i].name, name) == 0) return;
    if (o->nscoped < (int)(sizeof o->scoped / sizeof o->scoped[0]))
        o->scoped[o->nscoped++] = (struct train_scoped){name, scheme};
}

static const char train_usage[] =
    "usage: collviz train single|ddp|tp|pp|zero1|zero2|zero3|moe [options]\n"
    "\n"
    "Train the lecture's MLP (L layers of DxD weights, x = gelu(x @ W), loss = mean(x^2),\n"
    "AdamW lr 1e-3) with one of the lecture's three cuts on CPU ranks (threads that run\n"
    "the same collective plans the visualizer animates):\n"
    "  single  one device, the whole batch (the reference)\n"
    "  ddp     data parallel: batch split over ranks, gradients all-reduced (AVG)\n"
    "  tp      tensor parallel: every layer split by columns, activations all-gathered\n"
    "          forward, input gradients reduce-scattered backward\n"
    "  pp      pipeline parallel: layers split by depth, micro-batches sent stage to stage\n"
    "  zero1   ZeRO stage 1: data parallel, AdamW state sharded over the ranks; gradients\n"
    "          reduce-scattered, own shard updated, weights all-gathered\n"
    "  zero2   ZeRO stage 2: also the gradients sharded (each layer's reduce-scattered\n"
    "          as backward makes it)\n"
    "  zero3   ZeRO stage 3 (FSDP full shard): also the weights; each layer all-gathered\n"
    "          before its forward and again before its backward, freed after use\n"
    "  moe     mixture of experts: a router and E experts after every layer, the\n"
    "          experts split over the ranks (E/W each); tokens sent to their experts\n"
    "          and back with uneven all-to-alls (dispatch and combine)\n";

static int parse_int_opt(const char *name, const char *v, long lo, long hi, int *out)
{
    long x;
    if (parse_long(v, lo, hi, &x) != CV_OK)
        return cli_usage_error("train: --%s '%s': expected an integer %ld..%ld", name, v, lo,
                               hi);
    *out = (int)x;
    return OPT_GO;
}

/* The setters of train's table (opt.h): OPT_GO, or 2 after the bad value's line. */
static int set_ranks(void *ctx, const struct opt *self, const char *v)
{
    struct train_opts *o = ctx;
    o->ranks_set = true;
    return parse_int_opt(self->name, v, 1, CV_MAX_RANKS, &o->cfg.nranks);
}

static int set_layers(void *ctx, const struct opt *self, const char *v)
{
    return parse_int_opt(self->name, v, 1, 1024, &((struct train_opts *)ctx)->cfg.layers);
}

static int set_dim(void *ctx, const struct opt *self, const char *v)
{
    return parse_int_opt(self->name, v, 1, 65536, &((struct train_opts *)ctx)->cfg.dim);
}

static int set_batch(void *ctx, const struct opt *self, const char *v)
{
    return parse_int_opt(self->name, v, 1, 1 << 20, &((struct train_opts *)ctx)->cfg.batch);
}

static int set_steps(void *ctx, const struct opt *self, const char *v)
{
    return parse_int_opt(self->name, v, 1, 1000000, &((struct train_opts *)ctx)->cfg.steps);
}

static int set_microbatches(void *ctx, const struct opt *self, const char *v)
{
    train_scoped(ctx, "--microbatches", TRAIN_PP);
    return parse_int_opt(self->name, v, 1, 1 << 20,
                         &((struct train_opts *)ctx)->cfg.microbatches);
}

static int set_schedule(void *ctx, const struct opt *self, const char *v)
{
    train_scoped(ctx, "--schedule", TRAIN_PP);
    if (pp_schedule_parse(v, &((struct train_opts *)ctx)->cfg.schedule) != CV_OK)
        return cli_usage_error("train: --schedule '%s': expected gpipe or 1f1b", v);
    return OPT_GO;
}

static int set_backend(void *ctx, const struct opt *self, const char *v)
{
    if (strcmp(v, "auto") != 0 && backend_kind_of(v) < 0)
        return cli_usage_error("train: --backend '%s': expected cpu, auto, nccl or mpi", v);
    ((struct train_opts *)ctx)->backend = v;
    return OPT_GO;
}

static int set_seed(void *ctx, const struct opt *self, const char *v)
{
    if (parse_u64(v, &((struct train_opts *)ctx)->cfg.seed) != CV_OK)
        return cli_usage_error("train: --seed '%s': expected a non-negative integer", v);
    return OPT_GO;
}

static int set_timeout(void *ctx, const struct opt *self, const char *v)
{
    double t;
    if (parse_double(v, 0, 86400, &t) != CV_OK || !(t > 0))
        return cli_usage_error("train: --timeout '%s': expected seconds in (0, 86400]", v);
    ((struct train_opts *)ctx)->cfg.timeout_s = t;
    return OPT_GO;
}

static int set_experts(void *ctx, const struct opt *self, const char *v)
{
    struct train_opts *o = ctx;
    train_scoped(o, "--experts", TRAIN_MOE);
    return parse_int_opt(self->name, v, 1, 256, &o->cfg.experts);
}

static int set_topk(void *ctx, const struct opt *self, const char *v)
{
    struct train_opts *o = ctx;
    train_scoped(o, "--topk", TRAIN_MOE);
    return parse_int_opt(self->name, v, 1, 256, &o->cfg.topk);
}

static int set_capacity(void *ctx, const struct opt *self, const char *v)
{
    struct train_opts *o = ctx;
    double c;
    train_scoped(o, "--capacity", TRAIN_MOE);
    if (parse_double(v, 0, 64, &c) != CV_OK || !(c >= 0))
        return cli_usage_error("train: --capacity '%s': expected 0 (dropless) or a factor "
                               "in (0, 64]",
                               v);
    o->cfg.capacity = c;
    return OPT_GO;
}

static int set_format(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_format(v, &((struct train_opts *)ctx)->json) ? 2 : OPT_GO;
}

#define TRAIN_FIELD(f) offsetof(struct train_opts, f)
/* --check's tolerances in its help (parallel/train.h) */
#define TRAIN_TOL_CPU                                                                          \
    "loss rel " OPT_STR(TRAIN_TOL_LOSS_REL) ", params abs " OPT_STR(TRAIN_TOL_PARAM_ABS)
#define TRAIN_TOL_GPU OPT_STR(TRAIN_TOL_GPU_LOSS_REL) " and " OPT_STR(TRAIN_TOL_GPU_PARAM_ABS)
static const struct opt train_table[] = {
    {"ranks", 0, "N", "ranks (pp: stages), 1.." OPT_STR(CV_MAX_RANKS) " (default 4; single: 1)",
     set_ranks, 0},
    {"layers", 0, "L", "layers (default 4)", set_layers, 0},
    {"dim", 0, "D", "hidden dimension (default 1024)", set_dim, 0},
    {"batch", 0, "B", "batch rows (default 128)", set_batch, 0},
    {"steps", 0, "S", "training steps (default 5)", set_steps, 0},
    {"microbatches", 0, "M", "pp: micro-batches (default 4)", set_microbatches, 0},
    {"schedule", 0, "S", "pp: gpipe or 1f1b (default gpipe)", set_schedule, 0},
    {"overlap", 0, NULL, "ddp: all-reduce each gradient as backward produces it", opt_true,
     TRAIN_FIELD(cfg.overlap)},
    {"prefetch", 0, NULL,
     "zero3: gather the next layer's weights while this layer computes (and queue the "
     "gradients' reduce-scatters beside)",
     opt_true, TRAIN_FIELD(cfg.prefetch)},
    {"experts", 0, "E", "moe: experts per layer, a multiple of the ranks (default 8)",
     set_experts, 0},
    {"topk", 0, "K", "moe: experts each token is sent to, 1..E (default 2)", set_topk, 0},
    {"capacity", 0, "C",
     "moe: an expert takes at most ceil(C*n*K/E) of a rank's n tokens, the rest are dropped "
     "(passed through); 0 is dropless (default 1.0)",
     set_capacity, 0},
    {"backend", 0, "B",
     "cpu, nccl or auto (default cpu). nccl: one GPU per rank with NCCL and cuBLAS (needs "
     "--ranks GPUs; single stays the CPU reference); auto: nccl when --ranks GPUs are "
     "usable, else cpu, saying why. mpi: one rank per MPI process, run as "
     "mpirun -np N collviz train ... --backend mpi (rank 0 prints; --ranks defaults to N)",
     set_backend, 0},
    {"seed", 0, "S", "seed of the weights and data (default 0)", set_seed, 0},
    {"timeout", 0, "SEC", "deadline of any one communication wait (default 60)", set_timeout,
     0},
    {"check", 0, NULL,
     "also run the single-device reference (on the CPU) and report the largest deviation; "
     "exit 1 beyond tolerance (" TRAIN_TOL_CPU "; on GPUs " TRAIN_TOL_GPU ")",
     opt_true, TRAIN_FIELD(check)},
    {"timeline", 0, NULL, "also print every rank's events (compute/send/recv/collective/idle)",
     opt_true, TRAIN_FIELD(timeline)},
    {"format", 0, "FMT", "text or json (default text)", set_format, 0},
    {NULL, 0, NULL, NULL, NULL, 0},
};

/* train's own words for a bad option (its tests check them). */
static int train_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    if (ch == ':') return cli_usage_error("%s: %s needs a value", c->prog, opt);
    return cli_usage_error("%s: unknown option '%s' (try --help)", c->prog, opt);
}

static const struct opt_cmd train_cmd = {
    "train",          train_table,
    train_usage,      "Exit status: 0 ok, 1 --check failed or the run failed, 2 bad input.\n",
    train_bad_option, NULL};

/* The one argument, the scheme, into o->cfg (single: one rank). Returns -1 to go on, 2 on
 * bad input. */
static int train_scheme_arg(int argc, char **argv, struct train_opts *o)
{
    if (optind >= argc)
        return cli_usage_error(
            "train: which scheme? single, ddp, tp, pp, zero1, zero2, zero3 or moe "
            "(try --help)");
    if (optind + 1 < argc)
        return cli_usage_error("train: unexpected argument '%s'", argv[optind + 1]);
    if (train_scheme_parse(argv[optind], &o->cfg.scheme) != CV_OK)
        return cli_usage_error(
            "train: unknown scheme '%s': expected single, ddp, tp, pp, zero1, "
            "zero2, zero3 or moe",
            argv[optind]);
    if (o->cfg.scheme == TRAIN_SINGLE) {
        if (o->ranks_set && o->cfg.nranks != 1)
            return cli_usage_error("train: --ranks %d: single runs on one device",
                                   o->cfg.nranks);
        o->cfg.nranks = 1;
    }
    return -1;
}

/* Returns -1 to go on, 0 after --help, 2 on bad input (one line printed). */
static int train_parse(int argc, char **argv, struct train_opts *o)
{
    train_config_default(&o->cfg);
    o->backend = NULL;
    int rc = opt_parse(&train_cmd, argc, argv, o);
    if (rc != OPT_GO) return rc;
    if ((rc = cli_backend_for_job(&o->backend, "cpu")) != -1) return rc;
    rc = train_scheme_arg(argc, argv, o);
    for (int i = 0; rc == -1 && i < o->nscoped; i++)
        if (o->scoped[i].scheme != o->cfg.scheme)
            return cli_usage_error("train: %s applies to %s, not %s", o->scoped[i].name,
                                   train_scheme_name(o->scoped[i].scheme),
                                   train_scheme_name(o->cfg.scheme));
    return rc;
}

/* cpu: CPU ranks. nccl: one GPU per rank, refused (exit 2, one line) with the reason
 * when NCCL cannot open - the CUDA error without a usable GPU, "not built" without
 * HAVE_NCCL - or when there are fewer GPUs than ranks. auto: nccl when it could run,
 * else cpu with the reason in the note. Sets o->cfg.backend. */
static int train_backend(struct train_opts *o, char *note, size_t n)
{
    note[0] = '\0';
    o->cfg.backend = BACKEND_CPU;
    if (backend_kind_of(o->backend) == BACKEND_CPU) return -1;
    if (backend_caps_of(o->backend) & BACKEND_CAP_PROCESSES) {
        char err[256];
        if (backend_open(o->backend, &o->b, err, sizeof err, NULL, 0) != CV_OK)
            return cli_usage_error("train: --backend %s", err);
        int world = o->b->ops->max_ranks(o->b), me = backend_proc_rank(o->b);
        /* Every process runs this command; rank 0 prints, and says what every rank finds. */
        if (me != 0 && cli_quiet_stdout() != 0)
            return cli_usage_error("train: cannot silence rank %d's output", me);
        if (o->ranks_set && o->cfg.nranks != world)
            return me ? 2
                      : cli_usage_error("train: --ranks %d: the mpi backend runs on the %d "
                                        "process%s the launcher started (-np)",
                                        o->cfg.nranks, world, world == 1 ? "" : "es");
        if (o->cfg.overlap || o->cfg.prefetch)
            return me ? 2
                      : cli_usage_error("train: %s: not on the mpi backend (its MPI "
                                        "calls are serialised: no helper thread beside the "
                                        "rank)",
                                        o->cfg.overlap ? "--overlap" : "--prefetch");
        o->cfg.nranks = world;
        o->cfg.ranks_from_launcher = !o->ranks_set;
        o->cfg.backend = (enum backend_kind)backend_kind_of(o->backend);
        if (train_config_check(&o->cfg, err, sizeof err) != CV_OK)
            return me ? 2 : cli_usage_error("train: %s", err);
        return -1;
    }
    bool want_nccl = backend_caps_of(o->backend) & BACKEND_CAP_GPU;
    if (o->cfg.scheme == TRAIN_SINGLE) {
        if (want_nccl)
            return cli_usage_error("train: --backend nccl: single is the CPU reference "
                                   "trainer; on one GPU use ddp --ranks 1");
        snprintf(note, n, "auto chose cpu (single is the CPU reference trainer)");
        return -1;
    }
    struct backend *b = NULL;
    char err[256] = "";
    int rc = backend_open("nccl", &b, err, sizeof err, NULL, 0);
    int gpus = 0;
    bool across = false;
    int me = 0;
    if (b) {
        gpus = b->ops->max_ranks(b);
        across = backend_multiprocess(b);
        me = backend_proc_rank(b);
    }
    /* Under an MPI launcher NCCL is one GPU per process, every process one rank: the world
     * is the launcher's, and rank 0 prints. */
    if (rc == CV_OK && across) {
        if (me != 0 && cli_quiet_stdout() != 0) {
            backend_close(b);
            return cli_usage_error("train: cannot silence rank %d's output", me);
        }
        if (o->ranks_set && o->cfg.nranks != gpus) {
            snprintf(err, sizeof err,
                     "--ranks %d: across processes NCCL trains on the %d process%s the "
                     "launcher started (-np), one GPU each",
                     o->cfg.nranks, gpus, gpus == 1 ? "" : "es");
            rc = CV_EINVAL;
        } else {
            o->cfg.nranks = gpus;
            o->cfg.ranks_from_launcher = !o->ranks_set;
            if (train_config_check(&o->cfg, err, sizeof err) != CV_OK) rc = CV_EINVAL;
        }
    }
    if (rc == CV_OK && gpus < o->cfg.nranks) {
        snprintf(err, sizeof err, "--ranks %d needs %d GPUs (one per rank), %d usable",
                 o->cfg.nranks, o->cfg.nranks, gpus);
        rc = CV_EUNAVAIL;
    }
    if (rc == CV_OK && !dev_gpu_built()) {
        snprintf(err, sizeof err, "GPU training is not built (HAVE_NCCL was off)");
        rc = CV_EUNAVAIL;
    }
    if (rc != CV_OK) backend_close(b);
    if (want_nccl) {
        if (rc != CV_OK) return me ? 2 : cli_usage_error("train: --backend nccl: %s", err);
        o->b = b; /* training runs on this backend's communicator */
        o->cfg.backend = b->ops->kind;
        return -1;
    }
    if (rc != CV_OK) {
        snprintf(note, n, "auto chose cpu (%.200s)", err);
        return -1;
    }
    o->b = b;
    o->cfg.backend = b->ops->kind;
    snprintf(note, n, "auto chose nccl (%d GPUs usable)", gpus);
    return -1;
}

static size_t mem_total(const struct train_memory *m)
{
    return train_memory_total(m);
}

static void json_memory(cJSON *o, const struct train_memory *m)
{
    cli_json_num(o, "params", (double)m->params);
    cli_json_num(o, "grads", (double)m->grads);
    cli_json_num(o, "optimizer", (double)m->optimizer);
    cli_json_num(o, "activations", (double)m->activations);
    cli_json_num(o, "comm", (double)m->comm);
    cli_json_num(o, "total", (double)mem_total(m));
}

/* Times, losses and ratios to 9 significant digits; byte and element counts exact. */
static void print_json(FILE *f, const struct train_result *r, const struct train_deviation *dev,
                       bool timeline, const char *note)
{
    const struct train_config *c = &r->cfg;
    /* On NCCL a collective's bytes are not counted (NCCL reports none): they are the ring
     * model's, and their keys say so ("_model"); point-to-point bytes (pp) are counted. */
    bool bytes_model =
        (backend_kind_caps(c->backend) & BACKEND_CAP_GPU) && c->scheme != TRAIN_PP;
    cJSON *d = cli_json_object();
    cli_json_str(d, "scheme", train_scheme_name(c->scheme));
    cli_json_str(d, "backend", backend_kind_name(c->backend));
    cli_json_num(d, "ranks", r->nranks);
    cli_json_num(d, "layers", c->layers);
    cli_json_num(d, "dim", c->dim);
    cli_json_num(d, "batch", c->batch);
    cli_json_num(d, "seed", (double)c->seed);
    if (c->scheme == TRAIN_PP) {
        cli_json_num(d, "microbatches", c->microbatches);
        cli_json_str(d, "schedule", pp_schedule_name(c->schedule));
    }
    if (c->scheme == TRAIN_DDP) cli_json_bool(d, "overlap", c->overlap);
    if (c->scheme == TRAIN_ZERO3) cli_json_bool(d, "prefetch", c->prefetch);
    cli_json_str(d, "description", r->desc);
    if (note[0]) cli_json_str(d, "backend_note", note);
    cJSON *steps = cli_json_add_array(d, "steps");
    for (int s = 0; s < r->steps_done; s++) {
        const struct train_step_stat *st = &r->steps[s];
        cJSON *o = cli_json_add_object(steps, NULL);
        cli_json_num(o, "step", s);
        cli_json_real(o, "loss", st->loss, 9);
        cli_json_real(o, "time_s", st->time_s, 9);
        cli_json_real(o, "comm_s", st->comm_s, 9);
        cli_json_real(o, "cpu_s", st->cpu_s, 9);
        cli_json_real(o, "comm_async_s", st->comm_async_s, 9);
        cli_json_num(o, bytes_model ? "comm_bytes_model" : "comm_bytes",
                     (double)st->comm_bytes);
        cJSON *per = cli_json_add_array(o, bytes_model ? "comm_bytes_per_rank_model"
                                                       : "comm_bytes_per_rank");
        for (int k = 0; k < r->nranks; k++)
            cli_json_num(per, NULL, (double)r->bytes_sent[(size_t)s * r->nranks + k]);
    }
    cJSON *mem = cli_json_add_array(d, "memory_per_rank");
    struct train_memory ma, mp;
    bool modelled = train_memory_model(c, &ma, &mp) == CV_OK;
    for (int k = 0; k < r->nranks; k++) {
        cJSON *o = cli_json_add_object(mem, NULL);
        cli_json_num(o, "rank", k);
        json_memory(o, &r->mem[k]);
        json_memory(cli_json_add_object(o, "peak"), &r->mem_peak[k]);
        if (modelled) {
            json_memory(cli_json_add_object(o, "model"), &ma);
            json_memory(cli_json_add_object(o, "peak_model"), &mp);
        }
    }
    cli_json_str(d, "memory_note",
                 "bytes allocated per rank (peak: its live buffers at their high-water mark "
                 "in a step), counted by the engine, not measured RSS; model: fp32 weights "
                 "and gradients, AdamW's two moments, the communicator's buffers not "
                 "modelled");
    const char *wire_key =
        bytes_model ? "wire_ring_model_bytes_per_rank" : "wire_measured_bytes_per_rank";
    if (c->scheme == TRAIN_TP || c->scheme == TRAIN_DDP) {
        const struct train_napkin *nk = &r->napkin;
        size_t measured = c->scheme == TRAIN_TP ? nk->all_gather_elems : nk->all_reduce_elems;
        cJSON *o = cli_json_add_object(d, "napkin");
        cli_json_num(o, "tp_model_elements", (double)nk->tp_model_elems);
        cli_json_num(o, "ddp_model_elements", (double)nk->ddp_model_elems);
        cli_json_real(o, "ratio_model", (double)c->dim / c->batch, 9);
        cli_json_num(
            o, "model_elements",
            (double)(c->scheme == TRAIN_TP ? nk->tp_model_elems : nk->ddp_model_elems));
        cli_json_num(o, "measured_elements", (double)measured);
        cli_json_num(o, "all_gather_elements", (double)nk->all_gather_elems);
        cli_json_num(o, "reduce_scatter_elements", (double)nk->reduce_scatter_elems);
        cli_json_num(o, "all_reduce_elements", (double)nk->all_reduce_elems);
        cli_json_num(o, "wire_model_bytes_per_rank", (double)nk->wire_model_bytes);
        cli_json_num(o, wire_key, (double)nk->wire_bytes);
    }
    if (train_zero_stage(c->scheme)) {
        const struct train_napkin *nk = &r->napkin;
        cJSON *o = cli_json_add_object(d, "napkin");
        cli_json_num(o, "all_gather_elements", (double)nk->all_gather_elems);
        cli_json_num(o, "reduce_scatter_elements", (double)nk->reduce_scatter_elems);
        cli_json_num(o, "wire_model_bytes_per_rank", (double)nk->wire_model_bytes);
        cli_json_num(o, wire_key, (double)nk->wire_bytes);
    }
    if (c->scheme == TRAIN_PP) {
        cli_json_real(d, "bubble_measured", r->bubble_measured, 9);
        cli_json_real(d, "bubble_model", r->bubble_model, 9);
        cli_json_num(d, "wire_model_bytes_per_rank", (double)r->napkin.wire_model_bytes);
        cli_json_num(d, wire_key, (double)r->napkin.wire_bytes);
    }
    if (c->scheme == TRAIN_MOE) train_moe_json(d, r, dev);
    if (dev) {
        cJSON *o = cli_json_add_object(d, "max_deviation");
        cli_json_real(o, "loss_rel", dev->loss_rel, 9);
        cli_json_real(o, "param_abs", dev->param_abs, 9);
        cli_json_real(o, "tolerance_loss_rel", dev->tol_loss_rel, 9);
        cli_json_real(o, "tolerance_param_abs", dev->tol_param_abs, 9);
        cli_json_bool(o, "within", dev->within);
    }
    if (timeline) {
        cJSON *tl = cli_json_add_array(d, "timeline");
        for (size_t i = 0; i < r->nevents; i++) {
            const struct tl_event *e = &r->events[i];
            cJSON *o = cli_json_add_object(tl, NULL);
            cli_json_num(o, "step", e->step);
            cli_json_num(o, "rank", e->rank);
            cli_json_num(o, "lane", e->lane);
            cli_json_str(o, "kind", tl_kind_name(e->kind));
            cli_json_str(o, "label", e->label);
            cli_json_real(o, "t0", e->t0, 9);
            cli_json_real(o, "t1", e->t1, 9);
            cli_json_num(o, "bytes", (double)e->bytes);
            cli_json_num(o, "peer", e->peer);
            cli_json_num(o, "mb", e->mb);
        }
    }
    cli_json_print(f, d);
}

static void fmt_time(double s, char *buf, size_t n)
{
    if (s < 1e-3)
        snprintf(buf, n, "%.1f us", s * 1e6);
    else if (s < 1)
        snprintf(buf, n, "%.2f ms", s * 1e3);
    else
        snprintf(buf, n, "%.3f s", s);
}

static void text_memory(FILE *f, const char *who, const struct train_memory *m)
{
    char p[24], g[24], o[24], ac[24], cm[24], t[24];
    format_size(m->params, p, sizeof p);
    format_size(m->grads, g, sizeof g);
    format_size(m->optimizer, o, sizeof o);
    format_size(m->activations, ac, sizeof ac);
    format_size(m->comm, cm, sizeof cm);
    format_size(mem_total(m), t, sizeof t);
    fprintf(f, "    %-6s: params %s, grads %s, optimizer %s, activations %s, comm %s = %s\n",
            who, p, g, o, ac, cm, t);
}

/* Memory per rank, allocated and peak, and the model where there is one. */
static void print_memory(FILE *f, const struct train_result *r)
{
    const struct train_config *c = &r->cfg;
    fputs("  memory per rank (allocated, counted by the engine; peak: live buffers at their\n"
          "  high-water mark in a step):\n",
          f);
    for (int k = 0; k < r->nranks; k++) {
        char who[24];
        snprintf(who, sizeof who, "rank %d", k);
        text_memory(f, who, &r->mem[k]);
        text_memory(f, "  peak", &r->mem_peak[k]);
    }
    struct train_memory ma, mp;
    if (train_memory_model(c, &ma, &mp) == CV_OK) {
        text_memory(f, "model", &ma);
        text_memory(f, "  peak", &mp);
        fputs("    (model: fp32 weights and gradients 4+4 bytes, AdamW moments 8 bytes per "
              "parameter;\n     the communicator's buffers not modelled)\n",
              f);
    }
}

static void print_text(FILE *f, const struct train_result *r, const struct train_deviation *dev,
                       bool timeline, const char *note)
{
    const struct train_config *c = &r->cfg;
    char a[32], b[32], d[32], e[32];
    fprintf(f, "collviz train %s: %s", train_scheme_name(c->scheme),
            train_scheme_title(c->scheme));
    if (c->scheme == TRAIN_PP)
        fprintf(f, ", %d stages, %d micro-batches, %s", r->nranks, c->microbatches,
                pp_schedule_name(c->schedule));
    if (c->scheme == TRAIN_DDP && c->overlap)
        fputs(", gradient all-reduce overlapped with backward", f);
    if (c->scheme == TRAIN_ZERO3 && c->prefetch)
        fputs(", next layer's all-gather prefetched on the helper lane", f);
    fprintf(f, "\n  backend %s: %s%s%s\n", backend_kind_name(c->backend), r->desc,
            note[0] ? "; " : "", note);
    fprintf(f,
            "  model: %d layers of %dx%d, batch %d, gelu, loss mean(x^2), AdamW lr %g, seed "
            "%llu\n\n",
            c->layers, c->dim, c->dim, c->batch, (double)c->adamw.lr,
            (unsigned long long)c->seed);
    bool async =
        (c->scheme == TRAIN_DDP && c->overlap) || (c->scheme == TRAIN_ZERO3 && c->prefetch);
    fprintf(f, "  %4s  %-14s %10s %12s%s %12s\n", "step", "loss", "time", "comm",
            async ? " comm(overlap)" : "", "sent/rank");
    for (int s = 0; s < r->steps_done; s++) {
        const struct train_step_stat *st = &r->steps[s];
        fmt_time(st->time_s, a, sizeof a);
        fmt_time(st->comm_s, b, sizeof b);
        fmt_time(st->comm_async_s, e, sizeof e);
        format_size(st->comm_bytes, d, sizeof d);
        fprintf(f, "  %4d  %-14.9g %10s %12s", s, st->loss, a, b);
        if (async) fprintf(f, " %13s", e);
        fprintf(f, " %12s\n", d);
    }
    fputs(
        "  (time: first rank's start to last rank's end; comm: mean per rank of time its own\n"
        "   thread spent in communication calls; sent/rank: the busiest rank's bytes)\n",
        f);
    bool emu = backend_caps_of("nccl") & BACKEND_CAP_EMULATED;
    if ((backend_kind_caps(c->backend) & BACKEND_CAP_GPU) && emu)
        fputs(
            "  (emulated devices (tests/fakegpu): times are host clocks of the emulation, not\n"
            "   GPU time; a collective's sent bytes are the ring model's)\n",
            f);
    else if (backend_kind_caps(c->backend) & BACKEND_CAP_GPU)
        fputs(
            "  (GPU: times are host clocks around calls that waited for the GPU; a\n"
            "   collective's sent bytes are the ring model's, NCCL does not report its own)\n",
            f);
    fputc('\n', f);
    print_memory(f, r);
    const struct train_napkin *nk = &r->napkin;
    if (c->scheme == TRAIN_TP || c->scheme == TRAIN_DDP) {
        fprintf(f, "\n  napkin math per step (elements into the collective):\n");
        fprintf(f,
                "    model: tp forward all-gathers L*B*D = %zu, ddp gradient all-reduce L*D^2 "
                "= %zu,"
                " ratio D/B = %.3g\n",
                nk->tp_model_elems, nk->ddp_model_elems, (double)c->dim / c->batch);
        if (c->scheme == TRAIN_TP)
            fprintf(f, "    counted: all-gather %zu, reduce-scatter (backward) %zu\n",
                    nk->all_gather_elems, nk->reduce_scatter_elems);
        else
            fprintf(f, "    counted: all-reduce %zu\n", nk->all_reduce_elems);
    }
    if (train_zero_stage(c->scheme))
        fprintf(f,
                "\n  per step (elements into the collective, counted): reduce-scatter %zu, "
                "all-gather %zu\n  model: %s moves %s per rank\n",
                nk->reduce_scatter_elems, nk->all_gather_elems, train_scheme_name(c->scheme),
                c->scheme == TRAIN_ZERO3 ? "3*Psi*(W-1)/W floats (1.5x DDP: two all-gathers "
                                           "and one reduce-scatter per layer)"
                                         : "2*Psi*(W-1)/W floats (reduce-scatter + "
                                           "all-gather, as DDP's all-reduce)");
    if (c->scheme == TRAIN_MOE) {
        train_moe_print_text(f, r);
    } else if (c->scheme != TRAIN_SINGLE) {
        format_size(nk->wire_model_bytes, a, sizeof a);
        format_size(nk->wire_bytes, b, sizeof b);
        /* On GPUs only point-to-point bytes are counted; collectives' are the ring model. */
        bool counted =
            !(backend_kind_caps(c->backend) & BACKEND_CAP_GPU) || c->scheme == TRAIN_PP;
        fprintf(f,
                "  bytes sent by the busiest rank per step: model %s (%zu B), %s %s (%zu B)\n",
                a, nk->wire_model_bytes, counted ? "counted" : "ring model per NCCL call", b,
                nk->wire_bytes);
    }
    if (c->scheme == TRAIN_PP)
        fprintf(f,
                "  bubble: measured %.3f (idle share of the pipeline span, mean over stages), "
                "model (P-1)/(M+P-1) = %.3f\n",
                r->bubble_measured, r->bubble_model);
    if (dev)
        fprintf(
            f,
            "\n  check against the single-device reference: max loss deviation %.3g (relative, "
            "step %d), max parameter deviation %.3g (absolute); tolerance %.0e / %.0e: %s\n",
            dev->loss_rel, dev->loss_step, dev->param_abs, dev->tol_loss_rel,
            dev->tol_param_abs, dev->within ? "ok" : "FAILED");
    if (dev && c->scheme == TRAIN_MOE)
        fprintf(f,
                "  routing (tokens per expert per rank, kept and dropped) against the "
                "reference's: %s\n",
                dev->moe_routing_diff ? "DIFFERENT" : "the same");
    if (timeline) {
        fputs("\n  timeline (seconds from the step's start):\n", f);
        for (size_t i = 0; i < r->nevents; i++) {
            const struct tl_event *ev = &r->events[i];
            fprintf(f, "    step %d rank %d lane %d %-10s %-22s %10.6f %10.6f %10zu B\n",
                    ev->step, ev->rank, ev->lane, tl_kind_name(ev->kind), ev->label, ev->t0,
                    ev->t1, ev->bytes);
        }
    }
}

static int train_main(struct train_opts *op, const char *note);

/* Whether the rank count is the launcher's: no --ranks, and the mpi backend, or a GPU
 * backend under a launcher (its world size in the environment). */
static bool launcher_decides(const struct train_opts *o)
{
    if (o->ranks_set || o->cfg.scheme == TRAIN_SINGLE) return false;
    enum backend_kind k = backend_kind_of(o->backend);
    if (backend_kind_caps(k) & BACKEND_CAP_PROCESSES) return true;
    if (k == BACKEND_CPU) return false;
    struct launcher_job j;
    launcher_job_of_env(&j);
    return j.var != NULL;
}

int cli_train_main(int argc, char **argv)
{
    struct train_opts o;
    memset(&o, 0, sizeof o);
    int rc = train_parse(argc, argv, &o);
    if (rc != -1) return rc;
    if (o.json) cli_json_claim_stdout();
    char err[300];
    /* Under a launcher the mpi backend's (and NCCL's across processes) rank count is the
     * job's world, known once the backend is open: train_backend checks then. */
    if (!launcher_decides(&o) && train_config_check(&o.cfg, err, sizeof err) != CV_OK)
        return cli_usage_error("train: %s", err);
    char note[300];
    rc = train_backend(&o, note, sizeof note);
    if (rc == -1 && o.cfg.backend == BACKEND_CPU && launcher_decides(&o) &&
        train_config_check(&o.cfg, err, sizeof err) != CV_OK)
        rc = cli_usage_error("train: %s", err); /* auto fell back to CPU ranks */
    if (rc != -1) {
        backend_close(o.b);
        return rc;
    }
    rc = train_main(&o, note);
    backend_close(o.b);
    return rc;
}

static int train_main(struct train_opts *op, const char *note)
{
    struct train_opts o = *op;
    char err[300];
    int rc;
    struct train_result res;
    rc = train_run_on(o.b, &o.cfg, &res, NULL, err, sizeof err);
    if (rc != CV_OK) {
        cv_eprintf("collviz: train: %s\n", err);
        return rc == CV_EINVAL || rc == CV_ENOMEM ? 2 : 1;
    }
    struct train_deviation dev;
    bool have_dev = false;
    /* Across processes every one holds the whole result; rank 0 checks and prints. */
    if (o.check && backend_proc_rank(o.b) == 0) {
        struct train_config rc_cfg = train_reference_of(&o.cfg);
        struct train_result ref;
        rc = train_run(&rc_cfg, &ref, NULL, err, sizeof err);
        if (rc != CV_OK) {
            train_result_free(&res);
            cv_eprintf("collviz: train: reference: %s\n", err);
            return 1;
        }
        train_compare(&res, &ref, &dev);
        have_dev = true;
        train_result_free(&ref);
    }
    if (o.json)
        print_json(cli_json_stdout(), &res, have_dev ? &dev : NULL, o.timeline, note);
    else
        print_text(stdout, &res, have_dev ? &dev : NULL, o.timeline, note);
    train_result_free(&res);
    return have_dev && !dev.within ? 1 : 0;
}
