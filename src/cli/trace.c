/* trace.c - `collviz trace`: print a collective's plan step by step with every rank's
 * buffer after each step, as a readable handout (text) or as one JSON object for scripts.
 * It is the same plan and the same trace executor the interactive screens animate, and
 * it checks the final buffers against the plain reference (ref_compute); exit status 1
 * says they differ.
 *
 * With --slices/--channels it prints the refined plan (core/refine.c) instead: every
 * transfer with its slice, channel, the rank that runs it, its tick in the slice view and
 * the transfers it waits for, and it checks that the refined plan's result is the
 * unrefined plan's, bit for bit, both step by step and run by its dependencies alone
 * (exec_plan_deps, what the CPU rank threads do). */
#include "cli/cli.h"

#include <float.h>
#include <langinfo.h>
#include <locale.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec.h"
#include "core/init.h"
#include "core/plan.h"
#include "core/slice_timeline.h"
#include "core/trace.h"
#include "backend/backend.h"
#include "backend/run.h"
#include "core/util.h"
#include "cli/json.h"
#include "cli/opt.h"

struct trace_opts {
    enum coll coll;
    int nranks;
    size_t count;
    bool count_set;
    int root;
    enum redop op;
    enum algo algo;
    bool algo_set;
    enum init_kind init;
    uint64_t seed;
    bool json;
    int slices, channels; /* 0 = not given: the plan as plan_build makes it */
    bool ranks_set;
    const char *root_arg;
    const char *backend;    /* --backend: also run the plan there (NULL: only the trace) */
    int ring[CV_MAX_RANKS]; /* --ring-order / --ring-order-from: the ring plans' order */
    int ring_n;             /* 0: not given (0, 1, ..., W-1) */
    /* --counts: all-to-all-v, counts[s*ncounts + d] elements from rank s to rank d. */
    size_t counts[CV_MAX_RANKS * CV_MAX_RANKS];
    int ncounts; /* 0: not given (the uniform all_to_all) */
};

static const char trace_usage[] =
    "usage: collviz trace COLLECTIVE [options]\n"
    "\n"
    "Print the plan of a collective step by step: which rank sends which chunk to whom,\n"
    "and every rank's buffer after each step (display scale: a few elements per rank).\n"
    "The result is checked against a plain reference implementation.\n";

static void trace_notes(FILE *f)
{
    cli_coll_help(f, "(all-gather etc. are accepted too)");
}

/* --counts "a,b;c,d": 0, or 2 after one line naming the bad value. */
static int trace_parse_counts(const char *arg, struct trace_opts *o)
{
    char err[200];
    if (plan_parse_counts(arg, o->counts, &o->ncounts, err, sizeof err) == CV_OK) return 0;
    return cli_usage_error("--%s", err);
}

/* --counts against the other options (2 and one line when they clash; -1: go on). */
static int trace_check_counts(struct trace_opts *o)
{
    if (!o->ncounts) return -1;
    if (o->coll != COLL_ALL_TO_ALL)
        return cli_usage_error("--counts: per-pair counts are all_to_all's, not %s",
                               coll_name(o->coll));
    if (o->count_set)
        return cli_usage_error("--counts: give either --count or --counts, not both");
    if (o->ring_n) return cli_usage_error("--counts: all-to-all-v has no ring order");
    if (o->ranks_set && o->nranks != o->ncounts)
        return cli_usage_error("--ranks %d: the --counts matrix has %d rows", o->nranks,
                               o->ncounts);
    o->nranks = o->ncounts;
    return -1;
}

/* The setters of trace's table (opt.h): OPT_GO, or 2 after the bad value's line. */
static int set_ranks(void *ctx, const struct opt *self, const char *v)
{
    struct trace_opts *o = ctx;
    long x;
    if (parse_long(v, 1, CV_MAX_RANKS, &x) != CV_OK)
        return cli_usage_error("--ranks %s: must be 1..%d", v, CV_MAX_RANKS);
    o->nranks = (int)x;
    o->ranks_set = true;
    return OPT_GO;
}

static int set_count(void *ctx, const struct opt *self, const char *v)
{
    struct trace_opts *o = ctx;
    long x;
    if (parse_long(v, 0, (long)TRACE_MAX_ELEMS, &x) != CV_OK)
        return cli_usage_error("--count %s: must be a whole number 1..%zu", v,
                               (size_t)TRACE_MAX_ELEMS);
    if (x == 0) return cli_usage_error("--count 0: must be at least 1");
    o->count = (size_t)x;
    o->count_set = true;
    return OPT_GO;
}

static int set_op(void *ctx, const struct opt *self, const char *v)
{
    if (redop_parse(v, &((struct trace_opts *)ctx)->op) != 0)
        return cli_usage_error("--op %s: must be sum, prod, min, max or avg", v);
    return OPT_GO;
}

static int set_algo(void *ctx, const struct opt *self, const char *v)
{
    struct trace_opts *o = ctx;
    if (algo_parse(v, &o->algo) != 0)
        return cli_usage_error("--algo %s: must be ring, tree, direct or owner", v);
    o->algo_set = true;
    return OPT_GO;
}

static int set_init(void *ctx, const struct opt *self, const char *v)
{
    if (init_parse(v, &((struct trace_opts *)ctx)->init) != 0)
        return cli_usage_error("--init %s: must be lecture, seq, rank or random", v);
    return OPT_GO;
}

static int set_seed(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_seed(v, &((struct trace_opts *)ctx)->seed) ? 2 : OPT_GO;
}

static int set_format(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_format(v, &((struct trace_opts *)ctx)->json) ? 2 : OPT_GO;
}

static int set_slices(void *ctx, const struct opt *self, const char *v)
{
    long x;
    if (parse_long(v, 1, PLAN_MAX_SLICES, &x) != CV_OK)
        return cli_usage_error("--slices %s: must be 1..%d", v, PLAN_MAX_SLICES);
    ((struct trace_opts *)ctx)->slices = (int)x;
    return OPT_GO;
}

static int set_channels(void *ctx, const struct opt *self, const char *v)
{
    long x;
    if (parse_long(v, 1, 64, &x) != CV_OK)
        return cli_usage_error("--channels %s: must be 1..64", v);
    ((struct trace_opts *)ctx)->channels = (int)x;
    return OPT_GO;
}

static int set_ring_order(void *ctx, const struct opt *self, const char *v)
{
    struct trace_opts *o = ctx;
    return cli_parse_ring_order(v, o->ring, &o->ring_n) ? 2 : OPT_GO;
}

static int set_ring_from(void *ctx, const struct opt *self, const char *v)
{
    struct trace_opts *o = ctx;
    return cli_ring_order_from(v, o->ring, &o->ring_n) ? 2 : OPT_GO;
}

static int set_counts(void *ctx, const struct opt *self, const char *v)
{
    return trace_parse_counts(v, ctx) ? 2 : OPT_GO;
}

static const struct opt trace_table[] = {
    {"ranks", 0, "N", "number of ranks, 1.." OPT_STR(CV_MAX_RANKS) " (default 4)", set_ranks,
     0},
    {"count", 0, "C", "the NCCL count argument (default: the lecture's demo size)", set_count,
     0},
    {"root", 0, "R", "root rank of the rooted collectives (default 0)", opt_string,
     offsetof(struct trace_opts, root_arg)},
    {"op", 0, "OP", "sum, prod, min, max or avg (default sum)", set_op, 0},
    {"algo", 0, "ALGO", "ring, tree, direct or owner (default ring where it exists)", set_algo,
     0},
    {"init", 0, "KIND", "lecture, seq (10*rank+i), rank, random (default lecture)", set_init,
     0},
    {"seed", 0, "S", "seed for --init random (default 1)", set_seed, 0},
    {"slices", 0, "N",
     "refine: cut every transfer into N slices, with the dependencies that let ranks run "
     "without a step barrier",
     set_slices, 0},
    {"channels", 0, "C", "refine: split every transfer over C channels (1..64)", set_channels,
     0},
    {"ring-order", 0, "\"R...\"",
     "the ring in this order, a permutation of the ranks, e.g. \"0 7 6 5 4 3 2 1\": each rank "
     "sends to the next one in it (ring plans; --ranks defaults to its length)",
     set_ring_order, 0},
    {"ring-order-from", 0, "LOG[:CHANNEL]",
     "the ring NCCL logged for CHANNEL (default 0) in LOG (an NCCL INFO log: collviz nccl LOG "
     "shows its rings)",
     set_ring_from, 0},
    {"counts", 0, "\"a,b;c,d\"",
     "all_to_all only: all-to-all-v with per-pair counts, row r = how many elements rank r "
     "sends to each rank (W rows of W whole numbers, 0 allowed; --ranks defaults to W)",
     set_counts, 0},
    {"format", 0, "FMT", "text or json (default text)", set_format, 0},
    {"backend", 0, "B",
     "also run the collective on backend B (cpu, nccl, mpi) and compare its receive buffers "
     "with the trace's (mpi: run as "
     "mpirun -np N collviz trace ... --backend mpi; rank 0 prints)",
     opt_string, offsetof(struct trace_opts, backend)},
    {NULL, 0, NULL, NULL, NULL, 0},
};

/* bad options in trace's words: "OPT: unknown option (try --help)" */
static int trace_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    return cli_option_error(ch, opt, NULL);
}

static const struct opt_cmd trace_cmd = {
    .prog = "trace",
    .opts = trace_table,
    .usage = trace_usage,
    .notes = trace_notes,
    .after =
        "Exit status: 0 the trace matches the reference (and, refined, the unrefined plan\n"
        "bit for bit), 1 it does not, 2 bad input.\n",
    .bad_option = trace_bad_option,
};

/* Parse argv into o; on bad input print one line and return 2, after --help 0, else -1
 * (go on). */
static int trace_parse(int argc, char **argv, struct trace_opts *o)
{
    *o = (struct trace_opts){.nranks = 4, .op = OP_SUM, .init = INIT_LECTURE, .seed = 1};
    int rc = opt_parse(&trace_cmd, argc, argv, o);
    if (rc != OPT_GO) return rc;
    char names[400];
    cli_coll_names(names, sizeof names, ", ");
    if (optind >= argc) return cli_usage_error("trace: which collective? (one of: %s)", names);
    if (optind + 1 < argc) return cli_usage_error("%s: unexpected argument", argv[optind + 1]);
    if (coll_parse(argv[optind], &o->coll) != 0)
        return cli_usage_error("%s: unknown collective (one of: %s)", argv[optind], names);
    if (o->ring_n && !o->ranks_set) o->nranks = o->ring_n;
    return trace_check_counts(o);
}

/* What depends on the number of ranks, checked once it is known (a processes backend sets
 * it to its world size): the root, the algorithm, the default count. */
static int trace_finish_opts(struct trace_opts *o)
{
    const char *root_arg = o->root_arg;
    if (root_arg) {
        long v;
        if (parse_long(root_arg, 0, o->nranks - 1, &v) != CV_OK)
            return cli_usage_error("--root %s: must be 0..%d", root_arg, o->nranks - 1);
        o->root = (int)v;
    }
    if (!o->algo_set)
        o->algo = coll_default_algo(o->coll);
    else if (!algo_supported(o->coll, o->algo)) {
        char err[160];
        struct plan p;
        plan_build(&p, o->coll, o->algo, o->op, o->nranks, 1, 0, err, sizeof err);
        return cli_usage_error("--algo %s: %s", algo_name(o->algo), err);
    }
    if (!o->count_set) o->count = coll_default_count(o->coll, o->nranks);
    if (o->ncounts && o->nranks != o->ncounts)
        return cli_usage_error("--counts: %d rows, but the run has %d ranks", o->ncounts,
                               o->nranks);
    if (o->ring_n) {
        if (o->algo != ALGO_RING)
            return cli_usage_error("--ring-order: the %s algorithm has no ring (--algo ring)",
                                   algo_name(o->algo));
        if (o->ring_n != o->nranks)
            return cli_usage_error("--ring-order: %d ranks in the order, %d ranks in the run",
                                   o->ring_n, o->nranks);
        char err[200];
        struct plan p;
        if (plan_build_ring(&p, o->coll, o->algo, o->op, o->nranks, 1, o->root, o->ring, err,
                            sizeof err) != CV_OK)
            return cli_usage_error("--ring-order: %s", err);
        plan_free(&p);
    }
    return -1;
}

/* ---- shared by both formats ---------------------------------------------------------- */

struct run {
    struct trace_opts o;
    struct plan plan; /* what is printed: refined when --slices/--channels */
    struct plan base; /* plan_build's plan, when refined */
    bool refined;
    bool same_as_unrefined; /* refined: every output bit equals the unrefined plan's */
    bool deps_same;         /* refined: run by dependencies alone, the same bits */
    struct trace trace;
    float *send[CV_MAX_RANKS];
    float *ref[CV_MAX_RANKS];
    float *out[CV_MAX_RANKS];
    bool equal;       /* every output element within tolerance of the reference */
    size_t exact;     /* output elements bitwise equal to the reference */
    size_t total;     /* output elements */
    double tolerance; /* relative; 0 = exact */
    /* --backend: the same collective run there. */
    struct backend *b;
    char bdesc[200];
    float *bout[CV_MAX_RANKS];
    bool bexact;  /* the backend reduces in plan order: bits must equal the trace's */
    bool bequal;  /* its output equals the trace's (bitwise when bexact, else within
                     the reference tolerance) */
    size_t bsame; /* elements bitwise equal to the trace's */
};

static const char *kind_name(enum xfer_kind k)
{
    switch (k) {
    case XFER_COPY:
        return "copy";
    case XFER_REDUCE:
        return "reduce";
    case XFER_SCALE:
        return "scale";
    }
    return "?";
}

/* Reductions in a different order than the reference round differently once values
 * leave the range where float arithmetic is exact (big products, huge counts). Each of
 * the two orders is within (W-1) roundings of the true value, so they differ by at most
 * 2(W-1) * 2^-24 < W * FLT_EPSILON relative. Copies must match exactly. */
static void run_check(struct run *R)
{
    const struct plan *p = &R->plan;
    R->tolerance = coll_reduces(p->coll) ? p->nranks * (double)FLT_EPSILON : 0.0;
    R->equal = true;
    R->exact = R->total = 0;
    for (int r = 0; r < p->nranks; r++) {
        size_t n = coll_recv_count(p->coll, p->nranks, p->count, r, p->root);
        for (size_t j = 0; j < n; j++) {
            float a = R->out[r][j], b = R->ref[r][j];
            R->total++;
            if (memcmp(&a, &b, sizeof a) == 0 || a == b) {
                R->exact++;
                continue;
            }
            if (!(fabs((double)a - b) <= R->tolerance * fabs((double)b))) R->equal = false;
        }
    }
}

/* Element values are floats: 9 significant digits print each one exactly. */
static void emit_json(struct run *R)
{
    const struct plan *p = &R->plan;
    const struct trace *t = &R->trace;
    cJSON *d = cli_json_object();
    cli_json_str(d, "collective", coll_name(p->coll));
    cli_json_str(d, "algorithm", algo_name(p->algo));
    cli_json_num(d, "ranks", p->nranks);
    cli_json_num(d, "count", (double)p->count);
    cli_json_num(d, "root", p->root);
    cli_json_str(d, "op", redop_name(p->op));
    cli_json_str(d, "init", init_name(R->o.init));
    cli_json_num(d, "seed", (double)R->o.seed);
    cli_json_num(d, "work_len", (double)p->work_len);
    cli_json_str(d, "summary", p->summary);
    cJSON *ro = cli_json_add_array(d, "ring_order"); /* the ring plans' order */
    for (int i = 0; i < p->nranks; i++)
        cli_json_num(ro, NULL, p->ring[i]);
    if (R->refined) {
        cli_json_num(d, "slices", p->nslices);
        cli_json_num(d, "channels", p->nchannels);
        cli_json_num(d, "ticks", p->nticks);
        cli_json_num(d, "transfers", (double)p->nx);
    }
    if (p->vcounts) {
        cJSON *cm = cli_json_add_array(d, "counts"); /* all-to-all-v: row s, column d */
        for (int r = 0; r < p->nranks; r++) {
            cJSON *row = cli_json_add_array(cm, NULL);
            for (int q = 0; q < p->nranks; q++)
                cli_json_num(row, NULL, (double)p->vcounts[r * p->nranks + q]);
        }
    }
    cJSON *input = cli_json_add_array(d, "input");
    for (int r = 0; r < p->nranks; r++) {
        cJSON *a = cli_json_add_array(input, NULL);
        size_t n = plan_send_count(p, r);
        for (size_t i = 0; i < n; i++)
            cli_json_real(a, NULL, R->send[r][i], 9);
    }
    cJSON *steps = cli_json_add_array(d, "steps");
    for (size_t s = 0; s < p->nsteps; s++) {
        const struct step *st = &p->steps[s];
        cJSON *o = cli_json_add_object(steps, NULL);
        cli_json_num(o, "index", (double)(s + 1));
        cli_json_str(o, "phase", st->phase);
        cli_json_str(o, "what", st->what);
        cJSON *xs = cli_json_add_array(o, "transfers");
        for (size_t i = st->first; i < st->first + st->n; i++) {
            const struct xfer *x = &p->x[i];
            cJSON *xo = cli_json_add_object(xs, NULL);
            cli_json_num(xo, "src", x->src);
            cli_json_num(xo, "dst", x->dst);
            cli_json_num(xo, "src_offset", (double)x->src_off);
            cli_json_num(xo, "dst_offset", (double)x->dst_off);
            cli_json_num(xo, "count", (double)x->count);
            cli_json_bool(xo, "reduce", x->kind == XFER_REDUCE);
            cli_json_str(xo, "kind", kind_name(x->kind));
            cli_json_num(xo, "chunk", x->chunk);
            if (R->refined) {
                cli_json_num(xo, "index", (double)i);
                cli_json_num(xo, "slice", x->slice);
                cli_json_num(xo, "channel", x->channel);
                cli_json_num(xo, "by", x->by);
                cli_json_num(xo, "tick", x->tick);
                cli_json_num(xo, "order", (double)x->seq);
                cJSON *deps = cli_json_add_array(xo, "depends_on");
                for (size_t k = p->dep_first[i]; k < p->dep_first[i + 1]; k++)
                    cli_json_num(deps, NULL, (double)p->dep[k]);
            }
        }
        cJSON *bufs = cli_json_add_array(o, "buffers");
        for (int r = 0; r < p->nranks; r++) {
            const float *v = trace_buf(t, s + 1, r);
            const uint32_t *m = trace_mask(t, s + 1, r);
            cJSON *a = cli_json_add_array(bufs, NULL);
            for (size_t i = 0; i < p->work_len; i++) {
                if (m[i])
                    cli_json_real(a, NULL, v[i], 9);
                else
                    cli_json_null(a, NULL);
            }
        }
    }
    cJSON *output = cli_json_add_array(d, "output");
    for (int r = 0; r < p->nranks; r++) {
        cJSON *a = cli_json_add_array(output, NULL);
        size_t n = plan_recv_count(p, r);
        for (size_t i = 0; i < n; i++)
            cli_json_real(a, NULL, R->out[r][i], 9);
    }
    cJSON *check = cli_json_add_object(d, "check");
    cli_json_bool(check, "reference_equal", R->equal);
    cli_json_num(check, "exact_elements", (double)R->exact);
    cli_json_num(check, "elements", (double)R->total);
    cli_json_real(check, "tolerance", R->tolerance, 9);
    if (R->refined) {
        cli_json_bool(check, "unrefined_equal", R->same_as_unrefined);
        cli_json_bool(check, "dependency_order_equal", R->deps_same);
    }
    if (R->b) {
        cJSON *bo = cli_json_add_object(d, "backend");
        cli_json_str(bo, "name", R->b->ops->name);
        cli_json_str(bo, "ranks", R->bdesc);
        cJSON *bout = cli_json_add_array(bo, "output");
        for (int r = 0; r < p->nranks; r++) {
            cJSON *a = cli_json_add_array(bout, NULL);
            size_t n = plan_recv_count(p, r);
            for (size_t i = 0; i < n; i++)
                cli_json_real(a, NULL, R->bout[r][i], 9);
        }
        cli_json_bool(bo, "bitwise_expected", R->bexact);
        cli_json_num(bo, "same_bits_elements", (double)R->bsame);
        cli_json_bool(bo, "trace_equal", R->bequal);
    }
    cli_json_print(cli_json_stdout(), d);
}

/* The slice view as text: one row per link, one column per tick (up to TEXT_MAX_TICKS). */
#define TEXT_MAX_TICKS 48
static void text_slice_view(const struct plan *p)
{
    struct slice_tl t;
    if (slice_tl_build(&t, p, NULL, 0) != CV_OK) return;
    int shown = t.nticks < TEXT_MAX_TICKS ? t.nticks : TEXT_MAX_TICKS, w = 3;
    for (long i = 0; i < (long)p->nx; i++) {
        char cell[16];
        slice_tl_label(p, i, cell, sizeof cell);
        if ((int)strlen(cell) > w) w = (int)strlen(cell);
    }
    printf("\nslice view (a model: each link carries one slice per tick, and a slice leaves "
           "one tick after what it needs; cell = chunk.slice, /k = division of slice k):\n");
    printf("  %-14s", "tick");
    for (int k = 0; k < shown; k++)
        printf(" %*d", w, k);
    printf("\n");
    for (int l = 0; l < t.nlinks; l++) {
        const struct slice_link *L = &t.links[l];
        char name[40];
        if (L->src == L->dst)
            snprintf(name, sizeof name, "rank %d", L->src);
        else
            snprintf(name, sizeof name, "%d -> %d", L->src, L->dst);
        if (p->nchannels > 1) {
            size_t len = strlen(name);
            snprintf(name + len, sizeof name - len, " ch%d", L->channel);
        }
        printf("  %-14s", name);
        for (int k = 0; k < shown; k++) {
            char cell[16];
            slice_tl_label(p, t.cells[(size_t)l * (size_t)t.nticks + (size_t)k].x, cell,
                           sizeof cell);
            printf(" %*s", w, cell[0] ? cell : ".");
        }
        printf("\n");
    }
    printf("  %-14s", "links busy");
    for (int k = 0; k < shown; k++)
        printf(" %*d", w, t.busy[k]);
    printf("\n");
    if (shown < t.nticks)
        printf("  (ticks %d..%d not shown; --format json lists every transfer's tick)\n", shown,
               t.nticks - 1);
    printf("  %d ticks of one slice each; fill %d, drain %d (ticks with fewer links busy than "
           "the busiest); the chunk view has %zu steps of one chunk each\n",
           t.nticks, t.fill, t.drain, p->nsteps);
    slice_tl_free(&t);
}

/* Refined plans: the unrefined plan's outputs (trace) against the refined one's, step by
 * step (R->out) and by dependencies alone, bit for bit. */
static int run_refined_checks(struct run *R, char *err, size_t errlen)
{
    const struct plan *p = &R->plan;
    int W = p->nranks;
    struct trace t;
    int rc = trace_run(&t, &R->base, R->send, err, errlen);
    if (rc != CV_OK) return rc;
    float *work[CV_MAX_RANKS];
    for (int r = 0; r < W; r++) {
        work[r] = xcalloc(p->work_len + 1, sizeof(float));
        size_t n = coll_send_count(p->coll, W, p->count, r, p->root);
        memcpy(work[r] + coll_in_off(p->coll, W, p->count, r), R->send[r], n * sizeof(float));
    }
    R->deps_same = exec_plan_deps(p, work, 0) == CV_OK;
    R->same_as_unrefined = true;
    for (int r = 0; r < W; r++) {
        size_t n = coll_recv_count(p->coll, W, p->count, r, p->root);
        float *want = xcalloc(n + 1, sizeof(float));
        trace_output(&t, r, want);
        if (n && memcmp(want, R->out[r], n * sizeof(float)) != 0) R->same_as_unrefined = false;
        if (n && memcmp(want, work[r] + coll_out_off(p->coll, W, p->count, r),
                        n * sizeof(float)) != 0)
            R->deps_same = false;
        free(want);
        free(work[r]);
    }
    trace_free(&t);
    return CV_OK;
}

/* ---- text ------------------------------------------------------------------------------ */

/* Where the printed buffer gets a '|': between the two halves of all_to_all's buffer, and,
 * where pieces hold more than one element, between the slots of a W*count layout or the
 * chunks a ring or chain cuts the buffer into. */
static bool text_boundary(const struct plan *p, size_t i)
{
    if (i == 0) return false;
    const struct coll_info *ci = coll_info(p->coll);
    if (ci && ci->work_w == 2) {                     /* send half | receive half */
        if (p->vcounts) return i == p->work_len / 2; /* blocks differ from rank to rank */
        return i == p->work_len / 2 || (p->count > 1 && i % p->count == 0);
    }
    if (ci && ci->work_w == 1) return p->count > 1 && i % p->count == 0; /* W slots */
    if (p->algo == ALGO_TREE || p->count <= (size_t)p->nranks) return false;
    if (p->algo == ALGO_DIRECT && p->coll != COLL_ALL_REDUCE) return false;
    for (int k = 1; k < p->nranks; k++) {
        size_t s, e;
        chunk_range(p->count, p->nranks, k, &s, &e);
        if (s == i) return true;
    }
    return false;
}

struct text_style {
    const char *empty; /* the glyph for an element that holds nothing yet */
    int width;         /* columns per element */
};

static void text_value(char *buf, size_t n, float v)
{
    snprintf(buf, n, "%.6g", v);
}

static void text_row(const struct plan *p, const struct text_style *ts, const float *v,
                     const uint32_t *m, size_t start, size_t n, bool boundaries)
{
    fputs("[", stdout);
    for (size_t i = 0; i < n; i++) {
        if (boundaries && text_boundary(p, start + i)) fputs(" |", stdout);
        char cell[32];
        if (m && !m[i]) {
            /* The glyph may be several bytes but is one column wide. */
            printf(" %*s%s", ts->width - 1, "", ts->empty);
        } else {
            text_value(cell, sizeof cell, v[i]);
            printf(" %*s", ts->width, cell);
        }
    }
    fputs(" ]\n", stdout);
}

static void text_layout(const struct plan *p)
{
    size_t n = p->count, L = p->work_len;
    int W = p->nranks;
    printf("working buffer: %zu element%s per rank", L, L == 1 ? "" : "s");
    if (p->vcounts) { /* all-to-all-v: the blocks differ from rank to rank */
        printf(" = send half (its blocks packed in destination order) | receive half "
               "(what arrives, packed in source order); the rest of each half is unused\n"
               "counts (row r = elements rank r sends to rank 0, 1, ...):\n");
        for (int r = 0; r < W; r++) {
            printf("  rank %-2d", r);
            for (int q = 0; q < W; q++)
                printf(" %4zu", p->vcounts[r * W + q]);
            printf("   sends %zu, receives %zu\n", plan_send_count(p, r),
                   plan_recv_count(p, r));
        }
        return;
    }
    char t[200];
    coll_layout_text(p->coll, W, n, t, sizeof t);
    printf("%s\n", t);
}

static void text_xfer(const struct plan *p, const struct xfer *x)
{
    char chunk[24] = "", range[64], action[40];
    if (x->chunk >= 0) snprintf(chunk, sizeof chunk, "chunk %d", x->chunk);
    if (x->src_off == x->dst_off)
        snprintf(range, sizeof range, "[%zu..%zu)", x->dst_off, x->dst_off + x->count);
    else
        snprintf(range, sizeof range, "[%zu..%zu) -> [%zu..%zu)", x->src_off,
                 x->src_off + x->count, x->dst_off, x->dst_off + x->count);
    switch (x->kind) {
    case XFER_COPY:
        snprintf(action, sizeof action, "copy");
        break;
    case XFER_REDUCE:
        snprintf(action, sizeof action, "%s",
                 p->op == OP_PROD  ? "multiply"
                 : p->op == OP_MIN ? "min"
                 : p->op == OP_MAX ? "max"
                                   : "add");
        break;
    case XFER_SCALE:
        snprintf(action, sizeof action, "divide by %d", p->nranks);
        break;
    }
    if (x->kind == XFER_SCALE)
        printf("    rank %d              %-9s %-14s %s", x->dst, chunk, range, action);
    else
        printf("    rank %d -> rank %-3d  %-9s %-14s %s", x->src, x->dst, chunk, range, action);
    if (p->order) {
        size_t i = (size_t)(x - p->x);
        printf("  #%zu slice %d", i, x->slice);
        if (p->nchannels > 1) printf(" ch %d", x->channel);
        if (x->by != x->dst) printf(" run by %d", x->by);
        printf(" tick %d", x->tick);
        if (p->dep_first[i] == p->dep_first[i + 1]) printf(", waits for nothing");
        for (size_t d = p->dep_first[i]; d < p->dep_first[i + 1]; d++)
            printf("%s#%zu", d == p->dep_first[i] ? ", waits for " : " ", p->dep[d]);
    }
    printf("\n");
}

static void emit_text(struct run *R, bool utf8)
{
    const struct plan *p = &R->plan;
    const struct trace *t = &R->trace;
    int W = p->nranks;
    struct text_style ts = {.empty = utf8 ? "\xc2\xb7" : ".", .width = 1};
    /* Column width: the widest value anywhere in the trace. */
    for (size_t s = 0; s < t->nsnap; s++)
        for (int r = 0; r < W; r++) {
            const float *v = trace_buf(t, s, r);
            for (size_t i = 0; i < p->work_len; i++) {
                char cell[32];
                text_value(cell, sizeof cell, v[i]);
                int len = (int)strlen(cell);
                ts.width = len > ts.width ? len : ts.width;
            }
        }

    if (p->vcounts)
        printf("all-to-all-v on %d rank%s, per-pair counts (blocks padded to %zu)", W,
               W == 1 ? "" : "s", p->count);
    else
        printf("%s on %d rank%s, count %zu", coll_title(p->coll), W, W == 1 ? "" : "s",
               p->count);
    if (coll_is_rooted(p->coll)) printf(", root %d", p->root);
    if (coll_reduces(p->coll)) printf(", op %s", redop_name(p->op));
    printf(", algorithm %s\n", algo_name(p->algo));
    printf("%s\n", p->summary);
    if (R->o.ring_n) {
        printf("ring order:");
        for (int i = 0; i < W; i++)
            printf(" %d", p->ring[i]);
        printf(" (each rank sends to the next; given by --ring-order%s)\n",
               p->algo == ALGO_RING ? "" : ", unused by this algorithm");
    }
    if (R->refined)
        printf("refined into %d slice%s x %d channel%s: %zu transfers; each waits only for "
               "the transfers listed (#index), not for the whole step; slice view: %d ticks, "
               "one slice per link per tick (a model)\n",
               p->nslices, p->nslices == 1 ? "" : "s", p->nchannels,
               p->nchannels == 1 ? "" : "s", p->nx, p->nticks);
    bool shared = false;
    for (size_t s = 0; s < p->nsteps; s++)
        shared = shared || p->steps[s].shared;
    if (R->refined && shared && p->nslices * p->nchannels > 1)
        printf("shared steps: piece j of every transfer (j = channel x slices + slice) is run "
               "by rank j mod %d, so the ranks share the work (\"run by\")\n",
               W);
    text_layout(p);
    printf("inputs: %s", init_name(R->o.init));
    if (R->o.init == INIT_RANDOM) printf(" (seed %llu)", (unsigned long long)R->o.seed);
    printf("; '%s' marks an element that holds no data yet\n\n", ts.empty);

    printf("before step 1 (send buffers copied in):\n");
    for (int r = 0; r < W; r++) {
        printf("  rank %-2d ", r);
        text_row(p, &ts, trace_buf(t, 0, r), trace_mask(t, 0, r), 0, p->work_len, true);
    }
    for (size_t s = 0; s < p->nsteps; s++) {
        const struct step *st = &p->steps[s];
        printf("\nstep %zu/%zu  %s\n  %s\n", s + 1, p->nsteps, st->phase, st->what);
        for (size_t i = st->first; i < st->first + st->n; i++)
            text_xfer(p, &p->x[i]);
        for (int r = 0; r < W; r++) {
            printf("  rank %-2d ", r);
            text_row(p, &ts, trace_buf(t, s + 1, r), trace_mask(t, s + 1, r), 0, p->work_len,
                     true);
        }
    }
    if (p->nsteps == 0) printf("\n(no steps: nothing has to move)\n");
    if (R->refined && p->nx > 0) text_slice_view(p);
    printf("\noutput (receive buffers):\n");
    for (int r = 0; r < W; r++) {
        size_t n = plan_recv_count(p, r);
        printf("  rank %-2d ", r);
        if (n == 0)
            printf("(receives nothing)\n");
        else
            text_row(p, &ts, R->out[r], NULL, coll_out_off(p->coll, W, p->count, r), n, false);
    }
    if (R->refined) {
        printf("\nsame as the unrefined plan, bit for bit: %s\n",
               R->same_as_unrefined ? "yes" : "no");
        printf("run by dependencies alone (no step barrier), the same bits: %s\n",
               R->deps_same ? "yes" : "no");
    }
    if (R->b) {
        printf("\nran on the %s backend (%s):\n", R->b->ops->name, R->bdesc);
        if (R->bexact)
            printf("  the same bits as the trace, every rank: %s (%zu of %zu elements)\n",
                   R->bequal ? "yes" : "no", R->bsame, R->total);
        else
            printf("  equal to the trace within %.2g relative: %s (%zu of %zu elements the "
                   "same bits; this backend reduces in its own order)\n",
                   R->tolerance, R->bequal ? "yes" : "no", R->bsame, R->total);
    }
    printf("\nmatches the plain reference: %s", R->equal ? "yes" : "no");
    if (R->exact == R->total)
        printf(" (exactly)\n");
    else
        printf(" (%zu of %zu elements exact, the rest within %.2g relative: a different "
               "reduction order rounds differently)\n",
               R->exact, R->total, R->tolerance);
}

/* --backend: open it; a processes backend (mpi) sets the number of ranks to its world size
 * and silences every rank but 0. Returns -1 to go on, or the exit status. */
static int trace_open_backend(struct run *R)
{
    struct trace_opts *o = &R->o;
    char err[256], why[256];
    if (backend_open(o->backend, &R->b, err, sizeof err, why, sizeof why) != CV_OK)
        return cli_usage_error("--backend %s", err);
    struct backend *b = R->b;
    int maxr = b->ops->max_ranks(b);
    if (backend_multiprocess(b)) {
        if (backend_proc_rank(b) != 0 && cli_quiet_stdout() != 0)
            return cli_usage_error("--backend %s: cannot silence rank %d's output", o->backend,
                                   backend_proc_rank(b));
        if (o->ranks_set && o->nranks != maxr)
            return backend_proc_rank(b)
                       ? 2
                       : cli_usage_error(
                             "--ranks %d: the %s backend runs on the %d process%s the "
                             "launcher started (-np)",
                             o->nranks, b->ops->name, maxr, maxr == 1 ? "" : "es");
        if (maxr > CV_MAX_RANKS)
            return cli_usage_error("--backend %s: %d processes; trace shows at most %d ranks",
                                   o->backend, maxr, CV_MAX_RANKS);
        o->nranks = maxr;
    } else if (o->nranks > maxr) {
        return cli_usage_error("--ranks %d: the %s backend can run at most %d rank%s here",
                               o->nranks, b->ops->name, maxr, maxr == 1 ? "" : "s");
    }
    R->bexact = b->ops->caps & BACKEND_CAP_EXACT_REDUCTION;
    b->ops->describe(b, o->nranks, R->bdesc, sizeof R->bdesc);
    return -1;
}

/* Run the plan (or, on a backend with its own algorithm, the collective) on the backend
 * and compare its receive buffers with the trace's. */
static int trace_on_backend(struct run *R, char *err, size_t errlen)
{
    const struct plan *p = &R->plan;
    int W = p->nranks;
    for (int r = 0; r < W; r++) {
        size_t nr = coll_recv_count(p->coll, W, p->count, r, p->root);
        R->bout[r] = xcalloc(nr ? nr : 1, sizeof(float));
    }
    int rc = backend_run_small(R->b, p, R->send, R->bout, err, errlen);
    if (rc != CV_OK) return rc;
    R->bequal = true;
    R->bsame = 0;
    for (int r = 0; r < W; r++) {
        size_t n = coll_recv_count(p->coll, W, p->count, r, p->root);
        for (size_t j = 0; j < n; j++) {
            float a = R->bout[r][j], t = R->out[r][j];
            if (memcmp(&a, &t, sizeof a) == 0) {
                R->bsame++;
                continue;
            }
            if (R->bexact || !(fabs((double)a - t) <= R->tolerance * fabs((double)t)))
                R->bequal = false;
        }
    }
    return CV_OK;
}

static int trace_main(struct run *R);

int cli_trace_main(int argc, char **argv)
{
    struct run R;
    memset(&R, 0, sizeof R);
    int rc = trace_parse(argc, argv, &R.o);
    if (rc >= 0) return rc;
    if ((rc = cli_backend_for_job(&R.o.backend, NULL)) != -1) return rc;
    if (R.o.json) cli_json_claim_stdout();
    if (R.o.backend && (rc = trace_open_backend(&R)) >= 0) {
        backend_close(R.b);
        return rc;
    }
    rc = trace_finish_opts(&R.o);
    if (rc < 0) rc = trace_main(&R);
    backend_close(R.b);
    return rc;
}

static int trace_main(struct run *RP)
{
    struct run R = *RP;
    int rc;

    bool utf8 = false;
    if (!R.o.json) {
        if (setlocale(LC_ALL, "")) utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
        setlocale(LC_NUMERIC, "C"); /* numbers always with a '.' */
    }

    char err[300];
    struct trace_opts *o = &R.o;
    if (o->ncounts) {
        rc = plan_build_a2av(&R.plan, o->nranks, o->counts, err, sizeof err);
        o->count = R.plan.count; /* the padded block: W*count holds every row and column */
    } else {
        rc = plan_build_ring(&R.plan, o->coll, o->algo, o->op, o->nranks, o->count, o->root,
                             o->ring_n ? o->ring : NULL, err, sizeof err);
    }
    if (rc != CV_OK) return cli_usage_error("%s", err);
    if (o->slices || o->channels) {
        R.base = R.plan;
        rc = plan_refine(&R.base, o->slices ? o->slices : 1, o->channels ? o->channels : 1,
                         &R.plan, err, sizeof err);
        if (rc != CV_OK) {
            plan_free(&R.base);
            return cli_usage_error("%s", err);
        }
        R.refined = true;
    }
    int W = o->nranks;
    /* Every size is checked before the first buffer: the trace's snapshots and, beside
     * them, each rank's send, reference, output and backend buffers. */
    rc = trace_check(&R.plan, trace_rank_bytes(&R.plan, 3), err, sizeof err);
    if (rc != CV_OK) {
        plan_free(&R.plan);
        plan_free(&R.base);
        return cli_usage_error("--count %zu: %s", o->count, err);
    }
    for (int r = 0; r < W; r++) {
        size_t ns = coll_send_count(o->coll, W, o->count, r, o->root);
        size_t nr = coll_recv_count(o->coll, W, o->count, r, o->root);
        R.send[r] = xcalloc(ns ? ns : 1, sizeof(float));
        R.ref[r] = xcalloc(nr ? nr : 1, sizeof(float));
        R.out[r] = xcalloc(nr ? nr : 1, sizeof(float));
        init_fill(o->init, o->coll, W, o->count, o->root, o->seed, r, R.send[r]);
        /* all-to-all-v: the rank sends its row's worth; the rest is padding (zeros). */
        for (size_t i = plan_send_count(&R.plan, r); i < ns; i++)
            R.send[r][i] = 0.0f;
    }
    int status = 0;
    rc = trace_run(&R.trace, &R.plan, R.send, err, sizeof err);
    if (rc != CV_OK) {
        status = cli_usage_error("--count %zu: %s", o->count, err);
    } else {
        if (R.plan.vcounts)
            ref_all_to_all_v(W, R.plan.vcounts, R.send, R.ref,
                             coll_recv_count(o->coll, W, o->count, 0, 0));
        else
            ref_compute(o->coll, o->op, W, o->count, o->root, R.send, R.ref);
        for (int r = 0; r < W; r++)
            trace_output(&R.trace, r, R.out[r]);
        run_check(&R);
        if (R.refined && run_refined_checks(&R, err, sizeof err) != CV_OK) {
            status = cli_usage_error("--count %zu: %s", o->count, err);
            goto done;
        }
        if (R.b && (rc = trace_on_backend(&R, err, sizeof err)) != CV_OK) {
            cv_eprintf("collviz: trace: on the %s backend: %s\n", R.b->ops->name, err);
            status = rc == CV_EINVAL ? 2 : 1;
            goto done;
        }
        if (o->json)
            emit_json(&R);
        else
            emit_text(&R, utf8);
        status = R.equal && (!R.refined || (R.same_as_unrefined && R.deps_same)) &&
                         (!R.b || R.bequal)
                     ? 0
                     : 1;
        if (fflush(stdout) != 0) {
            cv_eprintf("collviz: trace: cannot write the output\n");
            status = 1;
        }
    }
done:
    trace_free(&R.trace);
    plan_free(&R.plan);
    plan_free(&R.base);
    for (int r = 0; r < W; r++) {
        free(R.send[r]);
        free(R.ref[r]);
        free(R.out[r]);
        free(R.bout[r]);
    }
    return status;
}
