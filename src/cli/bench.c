/* bench.c - `collviz bench`: measure collectives on a backend and print nccl-tests' own
 * table (cli/ntfmt.h: its header lines, devices, the out-of-place and in-place groups of
 * time, algbw, busbw and #wrong, "# Out of bounds values", "# Avg bus bandwidth"), so labs'
 * scripts and `collviz nccl` read it as they read nccl-tests'; or one JSON object. Each size
 * is measured twice, as nccl-tests does: out of place (the input in a send buffer of its
 * own) and in place. The algorithm is the same for the whole table: each collective's
 * default (ring where it has one) unless --algo says otherwise. No UI: it posts MEASURE
 * jobs to the same worker thread the interactive screens use, so progress, cancel
 * (Ctrl-C) and the deadlines come from the one implementation.
 *
 * On NCCL the header also carries the hardware block (backend_hardware: GPUs, memory, PCI ids,
 * peer access, versions, NCCL_ALGO / NCCL_PROTO), in JSON as the "hardware" string (null
 * for backends without one), because a figure means little without the machine it
 * came from; NCCL_ALGO / NCCL_PROTO, when set, are repeated on each section's header,
 * since they change which algorithm produced the rows below it. Each section's header also
 * says which links the library reported the ranks were connected by ("# link: "; NCCL's
 * INFO log), known only once the section's first row has run; in JSON each row's "link"
 * (null for backends that report none: CPU, MPI).
 *
 * Exit status: 0 every result checked out, 1 some #wrong > 0 (or a run failed), 2 bad
 * input (one line on stderr), 130 interrupted. */
#include "cli/bench.h"

#include "cli/cli.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/coll.h"
#include "core/sweep.h"
#include "core/util.h"
#include "cli/json.h"
#include "cli/ntfmt.h"
#include "cli/opt.h"
#include "worker/worker.h"

static volatile sig_atomic_t bench_interrupted;

static void bench_on_sigint(int sig)
{
    (void)sig;
    bench_interrupted = 1;
}

static const char bench_usage[] =
    "usage: collviz bench COLLECTIVE|all [options]\n"
    "\n"
    "Measure collectives on a backend and print nccl-tests' table as nccl-tests " NT_VERSION
    " prints\n"
    "it: size count type redop root, then time(us) algbw busbw #wrong out of place and\n"
    "again in place, # Out of bounds values and # Avg bus bandwidth; GB/s = 1e9 bytes/s,\n"
    "algbw = size/time and busbw = algbw * the collective's nccl-tests factor.\n";

static void bench_notes(FILE *f)
{
    cli_coll_help(f, "or all (one section each)");
}

static void bench_algo_list(enum coll c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int a = 0; a < ALGO_COUNT; a++)
        if (algo_supported(c, (enum algo)a) && len < n)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "",
                                    algo_name((enum algo)a));
}

/* The setters of bench's table (opt.h): OPT_GO, or 2 after the bad value's line. */
static int set_ranks(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    o->ranks_given = true;
    return cli_parse_ranks(v, &o->ranks) ? 2 : OPT_GO;
}

/* -b / -e: a size, and the text typed for messages. */
static int set_bytes(const char *v, char letter, size_t *to, bool *set, const char **arg)
{
    if (parse_size(v, to) != CV_OK)
        return cli_usage_error("-%c %s: not a size (bytes, or with K/M/G: 64M)", letter, v);
    *set = true;
    *arg = v;
    return OPT_GO;
}

static int set_minbytes(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    return set_bytes(v, 'b', &o->minb, &o->minb_set, &o->minb_arg);
}

static int set_maxbytes(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    return set_bytes(v, 'e', &o->maxb, &o->maxb_set, &o->maxb_arg);
}

static int set_stepfactor(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    if (parse_double(v, 1.0, 1e6, &o->factor) != CV_OK || o->factor <= 1.0)
        return cli_usage_error("-f %s: need a factor > 1", v);
    o->factor_set = true;
    return OPT_GO;
}

static int set_stepbytes(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    if (parse_size(v, &o->step) != CV_OK || o->step == 0)
        return cli_usage_error("-i %s: need a step > 0 bytes (K/M/G allowed)", v);
    return OPT_GO;
}

/* A whole number lo..hi into *out, else "-L V: need WHAT". */
static int set_long(const char *v, char letter, long lo, long hi, const char *what, int *out)
{
    long x;
    if (parse_long(v, lo, hi, &x) != CV_OK)
        return cli_usage_error("-%c %s: need %s", letter, v, what);
    *out = (int)x;
    return OPT_GO;
}

static int set_iters(void *ctx, const struct opt *self, const char *v)
{
    return set_long(v, 'n', 1, 1000000, "1..1000000 iterations",
                    &((struct bench_opts *)ctx)->iters);
}

static int set_warmup(void *ctx, const struct opt *self, const char *v)
{
    return set_long(v, 'w', 0, 1000000, "0..1000000 warm-up iterations",
                    &((struct bench_opts *)ctx)->warmup);
}

static int set_check(void *ctx, const struct opt *self, const char *v)
{
    int c = 1;
    int rc = set_long(v, 'c', 0, 1, "0 or 1", &c);
    ((struct bench_opts *)ctx)->check = c == 1;
    return rc;
}

static int set_op(void *ctx, const struct opt *self, const char *v)
{
    if (redop_parse(v, &((struct bench_opts *)ctx)->op) != CV_OK)
        return cli_usage_error("-o %s: need sum, prod, min, max or avg", v);
    return OPT_GO;
}

static int set_root(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    long x;
    if (parse_long(v, 0, CV_MAX_RANKS - 1, &x) != CV_OK)
        return cli_usage_error("-r %s: need a rank 0..%d", v, CV_MAX_RANKS - 1);
    o->root = (int)x;
    o->root_given = true;
    return OPT_GO;
}

static int set_algo(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    o->algo_given = true;
    o->algo_default = false;
    o->native = false;
    if (strcmp(v, "auto") == 0) {
        o->algo_auto = true;
    } else if (strcmp(v, "mpi") == 0) {
        o->algo_auto = false;
        o->native = true;
    } else if (algo_parse(v, &o->algo) == CV_OK) {
        o->algo_auto = false;
    } else {
        return cli_usage_error("--algo %s: need ring, tree, direct, owner, auto or mpi", v);
    }
    return OPT_GO;
}

static int set_slices(void *ctx, const struct opt *self, const char *v)
{
    long x;
    if (parse_long(v, 0, PLAN_MAX_SLICES, &x) != CV_OK)
        return cli_usage_error("--slices %s: need 0..%d (0: the default)", v, PLAN_MAX_SLICES);
    ((struct bench_opts *)ctx)->slices = (int)x;
    return OPT_GO;
}

static int set_channels(void *ctx, const struct opt *self, const char *v)
{
    long x;
    if (parse_long(v, 1, 64, &x) != CV_OK)
        return cli_usage_error("--channels %s: need 1..64", v);
    ((struct bench_opts *)ctx)->channels = (int)x;
    return OPT_GO;
}

static int set_ring_order(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    return cli_parse_ring_order(v, o->ring, &o->ring_n) ? 2 : OPT_GO;
}

static int set_ring_from(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    return cli_ring_order_from(v, o->ring, &o->ring_n) ? 2 : OPT_GO;
}

static int set_timeout(void *ctx, const struct opt *self, const char *v)
{
    struct bench_opts *o = ctx;
    if (parse_double(v, 0.0, 1e6, &o->timeout_s) != CV_OK || o->timeout_s <= 0)
        return cli_usage_error("-T %s: need a timeout > 0 seconds", v);
    return OPT_GO;
}

static int set_format(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_format(v, &((struct bench_opts *)ctx)->json) ? 2 : OPT_GO;
}

static const struct opt bench_table[] = {
    {"backend", 0, "B",
     "auto, cpu, nccl or mpi (default auto: nccl with 2+ GPUs, else cpu; with --ranks above "
     "the GPU count, cpu). mpi: one rank per process, run as "
     "mpirun -np N collviz bench ... --backend mpi (rank 0 prints)",
     opt_string, offsetof(struct bench_opts, backend)},
    {"ranks", 0, "N",
     "ranks, 1.." OPT_STR(CV_MAX_RANKS) " (default 4; auto on NCCL: the GPU count if fewer)",
     set_ranks, 0},
    {"minbytes", 'b', "SIZE", "smallest size S, K/M/G suffixes (powers of 1024; default 64M)",
     set_minbytes, 0},
    {"maxbytes", 'e', "SIZE", "largest size (default: the same as -b)", set_maxbytes, 0},
    {"stepfactor", 'f', "F", "multiply the size by F between rows (default 2)", set_stepfactor,
     0},
    {"stepbytes", 'i', "SIZE", "add SIZE between rows instead", set_stepbytes, 0},
    {"iters", 'n', "N", "timed iterations (default 20)", set_iters, 0},
    {"warmup_iters", 'w', "N", "untimed iterations first (default 5)", set_warmup, 0},
    {"check", 'c', "0|1", "check the result and count #wrong (default 1)", set_check, 0},
    {"op", 'o', "OP", "sum, prod, min, max or avg (default sum)", set_op, 0},
    {"root", 'r', "R", "root of the rooted collectives (default 0)", set_root, 0},
    {"algo", 0, "A",
     "ring, tree, direct, owner, for the whole table (default: ring, or direct where there is "
     "no ring); auto: the fastest in a trial at each size; mpi: MPI's own collective "
     "(MPI_Allreduce, ...)",
     set_algo, 0},
    {"within-node", 0, NULL,
     "mpi: run on the ranks of one node only (a sub-communicator), not across nodes", opt_true,
     offsetof(struct bench_opts, within_node)},
    {"slices", 0, "N",
     "CPU: cut every transfer into N slices, each rank waiting only for the slices it needs "
     "(default 0: slices of about 64 KiB; 1: whole chunks, as the chunk picture shows)",
     set_slices, 0},
    {"channels", 0, "C", "CPU: split every transfer over C channels (default 1)", set_channels,
     0},
    {"ring-order", 0, "\"R...\"",
     "cpu, mpi: the ring plans in this order, a permutation of the ranks (\"0 7 6 5 4 3 2 "
     "1\"; implies --algo ring)",
     set_ring_order, 0},
    {"ring-order-from", 0, "LOG[:CHANNEL]",
     "the ring NCCL logged for CHANNEL (default 0) in LOG", set_ring_from, 0},
    {"timeout", 'T', "S", "abort a collective stuck for S seconds (default 30)", set_timeout,
     0},
    {"format", 0, "F", "text or json (default text)", set_format, 0},
    {NULL, 0, NULL, NULL, NULL, 0},
};

/* The collective operand and the options' combinations, after the parse. */
static int bench_check_args(int argc, char **argv, struct bench_opts *o, const char *prog)
{
    if (optind >= argc)
        return cli_usage_error("%s: name a collective (e.g. all_reduce) or all", prog);
    if (optind + 1 < argc)
        return cli_usage_error("%s: one collective only, got '%s' too", prog, argv[optind + 1]);
    const char *name = argv[optind];
    if (strcmp(name, "all") == 0)
        o->all = true;
    else if (coll_parse(name, &o->coll) != CV_OK) {
        char names[400];
        cli_coll_names(names, sizeof names, ", ");
        return cli_usage_error("%s: unknown collective '%s' (%s, all)", prog, name, names);
    }
    if (o->step && o->factor_set) return cli_usage_error("-i: give -f or -i, not both");
    if (o->minb_set && !o->maxb_set) o->maxb = o->minb;
    if (o->maxb_set && !o->minb_set && o->minb > o->maxb) o->minb = o->maxb;
    if (o->maxb < o->minb)
        return cli_usage_error("-e %s: smaller than -b %s", o->maxb_arg ? o->maxb_arg : "64M",
                               o->minb_arg ? o->minb_arg : "64M");
    if (o->maxb > SWEEP_MAX_BYTES) /* the largest size a screen measures too (SCENE_MEAS_MAX) */
        return cli_usage_error("%s %s: at most 16G", o->maxb_set ? "-e" : "-b",
                               o->maxb_set ? o->maxb_arg : o->minb_arg);
    if (o->ring_n) {
        if (!o->algo_given) { /* a ring order means the ring */
            o->algo_auto = false;
            o->algo_default = false;
            o->algo = ALGO_RING;
        }
        if (o->algo_auto || o->native || o->algo != ALGO_RING)
            return cli_usage_error(
                "--ring-order: only the ring plans have a ring (--algo ring)");
        if (!o->ranks_given) o->ranks = o->ring_n;
        if (o->ring_n != o->ranks)
            return cli_usage_error("--ring-order: %d ranks in the order, --ranks %d", o->ring_n,
                                   o->ranks);
    }
    /* A processes backend's world size is known once it is open (bench_sweep checks). */
    bool processes = backend_caps_of(o->backend) & BACKEND_CAP_PROCESSES;
    if (!processes && o->root >= o->ranks &&
        (o->root_given || o->all || coll_is_rooted(o->coll)))
        return cli_usage_error("-r %d: no such rank with --ranks %d", o->root, o->ranks);
    return -1;
}

int bench_parse(int argc, char **argv, struct bench_opts *o, const char *prog)
{
    *o = (struct bench_opts){
        .ranks = 4,
        .minb = (size_t)64 << 20,
        .maxb = (size_t)64 << 20,
        .factor = 2.0,
        .iters = 20,
        .warmup = 5,
        .check = true,
        .op = OP_SUM,
        .algo_default = true,
        .timeout_s = 30.0,
    };
    const struct opt_cmd cmd = {
        prog,
        bench_table,
        bench_usage,
        "Exit status: 0 all results right, 1 some #wrong > 0 or a run failed, 2 bad input.\n",
        NULL,
        bench_notes};
    int rc = opt_parse(&cmd, argc, argv, o);
    if (rc != OPT_GO) return rc;
    if ((rc = cli_backend_for_job(&o->backend, "auto")) != -1) return rc;
    return bench_check_args(argc, argv, o, prog);
}

/* The backend's hardware block, one fact a line, or NULL when it has none (the CPU
 * backend's one line is its `ranks:` description). Read before the worker thread takes
 * the backend over. Caller frees. */
static char *bench_hardware(const struct backend *b)
{
    int len = backend_hardware(b, NULL, 0);
    if (len <= 0) return NULL;
    char *text = xmalloc((size_t)len + 1);
    backend_hardware(b, text, (size_t)len + 1);
    return text;
}

/* "NCCL_ALGO=Ring NCCL_PROTO=Simple" for the settings that are set, "" when none is. */
static void bench_nccl_env(const struct backend *b, char *buf, size_t n)
{
    char algo[64], proto[64];
    backend_lib_env(b, algo, sizeof algo, proto, sizeof proto);
    if (algo[0] && proto[0])
        snprintf(buf, n, "NCCL_ALGO=%s NCCL_PROTO=%s", algo, proto);
    else if (algo[0])
        snprintf(buf, n, "NCCL_ALGO=%s", algo);
    else if (proto[0])
        snprintf(buf, n, "NCCL_PROTO=%s", proto);
    else if (n)
        buf[0] = '\0';
}

/* The hardware block in the text header: "# hardware: " on the first line, aligned below. */
static void bench_print_hardware(const char *hw)
{
    const char *line = hw;
    bool first = true;
    while (*line) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        printf("# %s%.*s\n", first ? "hardware: " : "          ", len, line);
        first = false;
        line += len + (nl ? 1 : 0);
    }
}

/* time and bandwidths to 6 significant digits, as nccl-tests prints them. */

/* One of nccl-tests' groups (out of place, or in place): time, algbw, busbw, #wrong. */
static void json_group(cJSON *o, const struct bench_result *r)
{
    cli_json_real(o, "time_us", r->time_us, 6);
    cli_json_real(o, "algbw", r->algbw, 6);
    cli_json_real(o, "busbw", r->busbw, 6);
    if (r->wrong < 0)
        cli_json_null(o, "wrong");
    else
        cli_json_num(o, "wrong", (double)r->wrong);
}
static void bench_print_json(const char *backend, int ranks, const char *hardware,
                             const struct bench_opts *opts, const struct bench_row *rows,
                             size_t n)
{
    cJSON *d = cli_json_object();
    cli_json_str(d, "backend", backend);
    cli_json_num(d, "ranks", ranks);
    cli_json_str(d, "hardware", hardware);
    if (opts->ring_n) { /* --ring-order: the ring plans' order; null: 0, 1, ..., W-1 */
        cJSON *ro = cli_json_add_array(d, "ring_order");
        for (int i = 0; i < opts->ring_n; i++)
            cli_json_num(ro, NULL, opts->ring[i]);
    } else {
        cli_json_null(d, "ring_order");
    }
    cJSON *arr = cli_json_add_array(d, "rows");
    for (size_t i = 0; i < n; i++) {
        const struct bench_result *r = &rows[i].r;
        enum coll c = rows[i].coll;
        cJSON *o = cli_json_add_object(arr, NULL);
        cli_json_str(o, "collective", coll_name(c));
        cli_json_str(o, "algorithm", r->algo);
        cli_json_num(o, "size", (double)r->bytes);
        cli_json_num(
            o, "count",
            (double)coll_count_for_bytes(c, rows[i].r.nranks, r->bytes, sizeof(float)));
        cli_json_str(o, "type", "float");
        cli_json_str(o, "redop", coll_reduces(c) ? redop_name(rows[i].op) : "none");
        cli_json_num(o, "root", coll_is_rooted(c) ? rows[i].root : -1);
        json_group(o, r);
        /* nccl-tests' second group; the fields above are its first (out of place) */
        if (rows[i].has_ip) {
            const struct bench_result *q = &rows[i].ip;
            json_group(cli_json_add_object(o, "in_place"), q);
        } else {
            cli_json_null(o, "in_place");
        }
        if (r->slices > 0) {
            cli_json_num(o, "slices", r->slices);
            cli_json_num(o, "channels", r->channels);
        } else {
            cli_json_null(o, "slices");
            cli_json_null(o, "channels");
        }
        /* The text's "# link: " value, as read right after this row ran (the text shows
         * the section's first row's); null where the backend reports no links. */
        if (r->link[0])
            cli_json_str(o, "link", r->link);
        else
            cli_json_null(o, "link");
    }
    cli_json_print(cli_json_stdout(), d);
}

/* Wait for the worker's next result, or the deadline, or Ctrl-C. 1 = got one, 0 = the
 * deadline passed, -1 = interrupted. */
static int bench_wait(struct worker *w, struct result *out, double deadline)
{
    for (;;) {
        if (worker_poll(w, out)) return 1;
        if (bench_interrupted) return -1;
        double left = deadline - now_s();
        if (left <= 0) return 0;
        struct pollfd pfd = {.fd = worker_fd(w), .events = POLLIN};
        poll(&pfd, 1, left > 0.2 ? 200 : (int)(left * 1000) + 1);
    }
}

/* Cancel the running job and collect its (cancelled) result, so the worker is idle. */
static void bench_cancel_and_drain(struct worker *w, double limit_s)
{
    worker_cancel(w);
    struct result r;
    double deadline = now_s() + limit_s;
    while (worker_busy(w) && now_s() < deadline) {
        struct pollfd pfd = {.fd = worker_fd(w), .events = POLLIN};
        poll(&pfd, 1, 100);
        while (worker_poll(w, &r)) {
        }
    }
}

static void bench_progress_clear(bool tty)
{
    if (tty) fputs("\r\033[K", stderr);
}

/* The collectives to run (colls, *ncoll), with a note for each one --all skips: -1, or the
 * usage error's exit status. */
static int bench_colls(const struct bench_opts *o, enum coll *colls, int *ncoll,
                       char (*notes)[160], int *nnotes)
{
    for (int c = 0; c < COLL_COUNT; c++) {
        if (!o->all && (enum coll)c != o->coll) continue;
        if (!o->algo_auto && !o->algo_default && !o->native &&
            !algo_supported((enum coll)c, o->algo)) {
            char has[64];
            bench_algo_list((enum coll)c, has, sizeof has);
            if (!o->all)
                return cli_usage_error("--algo %s: %s has no %s algorithm (has: %s)",
                                       algo_name(o->algo), coll_name((enum coll)c),
                                       algo_name(o->algo), has);
            snprintf(notes[(*nnotes)++], sizeof notes[0],
                     "%s: skipped, no %s algorithm (has: %s)", coll_name((enum coll)c),
                     algo_name(o->algo), has);
            continue;
        }
        size_t need = coll_bytes((enum coll)c, o->ranks, 1, sizeof(float));
        if (o->minb < need)
            return cli_usage_error("-b %s: %s on %d ranks needs at least %zu B (one float per "
                                   "rank)",
                                   o->minb_arg ? o->minb_arg : "64M", coll_name((enum coll)c),
                                   o->ranks, need);
        colls[(*ncoll)++] = (enum coll)c;
    }
    return -1;
}

/* The sizes of the sweep (sizes, *nsizes), judged by sweep_check as a protocol job's are:
 * -1, or the usage error's exit status. */
static int bench_sizes(const struct bench_opts *o, size_t *sizes, int *nsizes)
{
    struct sweep sw = {.min = o->minb, .max = o->maxb, .factor = o->factor, .step = o->step};
    size_t n, s;
    char err[200];
    if (sweep_check(&sw, &n, err, sizeof err) != CV_OK)
        return cli_usage_error("-b %s -e %s: %s", o->minb_arg ? o->minb_arg : "64M",
                               o->maxb_arg ? o->maxb_arg : "64M", err);
    for (bool more = sweep_first(&sw, &s); more && *nsizes < SWEEP_MAX_SIZES;
         more = sweep_next(&sw, &s))
        sizes[(*nsizes)++] = s;
    return -1;
}

/* A backend whose ranks are processes: this run's world is its processes (*maxr; o->ranks
 * set to it), or those of this node with --within-node. -1, or the exit status. */
static int bench_check_procs(struct bench_opts *o, struct backend *b, int *maxr)
{
    int rc;
    /* Every process runs this same command; only rank 0 prints results. */
    if (backend_proc_rank(b) != 0 && cli_quiet_stdout() != 0)
        return cli_usage_error("--backend %s: cannot silence rank %d's output", o->backend,
                               backend_proc_rank(b));
    if (o->within_node && b->ops->node_ranks) {
        *maxr = b->ops->node_ranks(b);
    } else if (o->within_node) {
        rc = cli_usage_error("--within-node: the %s backend cannot (mpi can)", b->ops->name);
        return rc;
    }
    if (o->ranks_given && o->ranks != *maxr) {
        /* Every rank finds the same: rank 0 says it. */
        rc = backend_proc_rank(b)
                 ? 2
                 : cli_usage_error("--ranks %d: the %s backend runs on the %d process%s %s",
                                   o->ranks, b->ops->name, *maxr, *maxr == 1 ? "" : "es",
                                   o->within_node ? "of this node"
                                                  : "the launcher started (-np)");
        return rc;
    }
    o->ranks = *maxr;
    if (o->root >= o->ranks) {
        rc = backend_proc_rank(b)
                 ? 2
                 : cli_usage_error("-r %d: no such rank of %d", o->root, o->ranks);
        return rc;
    }
    return -1;
}

/* Open the backend (*bp) and check the options against it: the world size, --within-node,
 * --ring-order, --algo mpi; auto with more ranks than GPUs falls back to CPU ranks (why
 * says so). -1 with *bp open, or the exit status with it closed. */
static int bench_open(struct bench_opts *o, struct backend **bp, char *why, size_t whylen)
{
    struct backend *b;
    char err[256];
    int rc;
    if (backend_open(o->backend, &b, err, sizeof err, why, whylen) != CV_OK)
        return cli_usage_error("--backend %s", err);
    int maxr = b->ops->max_ranks(b);
    if (backend_multiprocess(b)) {
        rc = bench_check_procs(o, b, &maxr);
        if (rc >= 0) {
            backend_close(b);
            return rc;
        }
    } else if (o->within_node) {
        rc = cli_usage_error("--within-node: the %s backend has no nodes (mpi has)",
                             b->ops->name);
        backend_close(b);
        return rc;
    }
    if (o->ring_n && (b->ops->caps & BACKEND_CAP_OWN_ALGO)) {
        rc = cli_usage_error("--ring-order: the %s backend orders its own rings (cpu and mpi "
                             "run the plan)",
                             b->ops->name);
        backend_close(b);
        return rc;
    }
    if (o->ring_n && o->ring_n != o->ranks) {
        rc = backend_proc_rank(b) ? 2
                                  : cli_usage_error("--ring-order: %d ranks in the order, %d "
                                                    "ranks in the run",
                                                    o->ring_n, o->ranks);
        backend_close(b);
        return rc;
    }
    if (o->native && !(b->ops->caps & BACKEND_CAP_NATIVE_COLL)) {
        rc = cli_usage_error("--algo mpi: the %s backend cannot run MPI's own collectives "
                             "(--backend mpi can)",
                             b->ops->name);
        backend_close(b);
        return rc;
    }
    if (o->ranks > maxr && strcmp(o->backend, "auto") == 0 &&
        (b->ops->caps & BACKEND_CAP_GPU)) {
        /* NCCL puts one rank on each GPU. Ranks asked for run on CPU ranks; the default
         * world size (meant for CPU ranks) shrinks to the GPUs. */
        if (o->ranks_given) {
            snprintf(why, whylen, "nccl: %d GPU%s for %d ranks (one rank per GPU)", maxr,
                     maxr == 1 ? "" : "s", o->ranks);
            backend_close(b);
            if (backend_open("cpu", &b, err, sizeof err, NULL, 0) != CV_OK)
                return cli_usage_error("--backend %s", err);
            maxr = b->ops->max_ranks(b);
        } else {
            snprintf(why, whylen, "nccl on its %d GPUs: %d ranks, not the default %d", maxr,
                     maxr, o->ranks);
            o->ranks = maxr;
            if (o->root >= o->ranks) {
                backend_close(b);
                return cli_usage_error("-r %d: no such rank with %d GPUs (give --ranks to use "
                                       "CPU ranks)",
                                       o->root, o->ranks);
            }
        }
    }
    if (o->ranks > maxr) {
        rc = cli_usage_error("--ranks %d: the %s backend can run at most %d rank%s here",
                             o->ranks, b->ops->name, maxr, maxr == 1 ? "" : "s");
        backend_close(b);
        return rc;
    }
    *bp = b;
    return -1;
}

/* The whole range is checked before the first size runs: the largest one's buffers
 * must fit in this machine's memory (an 8G step refused after 4G had run is too late).
 * -1, or the exit status (b is left open). */
static int bench_check_memory(const struct bench_opts *o, struct backend *b,
                              const enum coll *colls, int ncoll, const size_t *sizes,
                              int nsizes)
{
    if (!(b->ops->caps & BACKEND_CAP_GPU) && nsizes > 0) {
        size_t top = sizes[nsizes - 1];
        int local = backend_multiprocess(b) ? (b->ops->node_ranks ? b->ops->node_ranks(b) : 1)
                                            : o->ranks;
        for (int i = 0; i < ncoll; i++) {
            size_t count = coll_count_for_bytes(colls[i], o->ranks, top, sizeof(float));
            double need = (double)local * (double)coll_work_len(colls[i], o->ranks, count) *
                          sizeof(float);
            char t[32], err[300];
            format_size(top, t, sizeof t);
            if (mem_check(need, err, sizeof err, "%s %s on %d ranks", t, coll_name(colls[i]),
                          o->ranks) == CV_OK)
                continue;
            return backend_proc_rank(b) /* every rank finds the same: rank 0 says it */
                       ? 2
                       : cli_usage_error(
                             "%s %s: %s (nothing was run)", o->maxb_set ? "-e" : "-b",
                             o->maxb_set ? o->maxb_arg : (o->minb_arg ? o->minb_arg : "64M"),
                             err);
        }
    }
    return -1;
}

/* The algorithm of the whole table, in words. */
static const char *bench_algo_text(const struct bench_opts *o)
{
    if (o->algo_auto) return "auto (the fastest in a trial at each size)";
    if (o->native) return "mpi (MPI's own collectives)";
    if (o->algo_default) return "each collective's default (ring; direct where it has no ring)";
    return algo_name(o->algo);
}

/* The text output's opening lines, collviz's own: backend, ranks, hardware, options, notes
 * (in JSON the notes go to stderr). nccl-tests' lines follow, one block per collective. */
static void bench_print_preamble(const struct bench_opts *o, const char *backend_name,
                                 const char *why, const char *describe, const char *hardware,
                                 char (*notes)[160], int nnotes)
{
    if (!o->json) {
        printf("# collviz bench: nccl-tests " NT_VERSION "'s table and lines (one block per "
               "collective); GB/s = 1e9 bytes/s,\n"
               "#   algbw = size/time, busbw = algbw * factor; each size run out of place, "
               "then in place\n");
        printf("# backend: %s%s%s%s\n", backend_name, why[0] ? "  (auto: " : "", why,
               why[0] ? ")" : "");
        printf("# ranks:   %s\n", describe);
        if (hardware) bench_print_hardware(hardware);
        printf("# options: %d iters, %d warm-up, check %s, op %s, algo %s, timeout %g s\n",
               o->iters, o->warmup, o->check ? "on" : "off", redop_name(o->op),
               bench_algo_text(o), o->timeout_s);
        if (o->ring_n) {
            printf("# ring order:");
            for (int i = 0; i < o->ring_n; i++)
                printf(" %d", o->ring[i]);
            printf(" (each rank sends to the next in it)\n");
        }
        if (o->ranks == 1)
            printf("# note: with 1 rank nothing crosses between ranks (most plans have no "
                   "steps):\n"
                   "#       algbw and busbw below are not transfer rates\n");
        for (int i = 0; i < nnotes; i++)
            printf("# %s\n", notes[i]);
        fflush(stdout);
    } else {
        for (int i = 0; i < nnotes; i++)
            cv_eprintf("collviz: note: %s\n", notes[i]);
    }
}

/* nccl-tests' device lines for the ranks this process runs ("#  Rank  0 Group  0 Pid ...
 * on HOST device D [BUSID] NAME"), read before the worker takes the backend over. A rank
 * without a device (a CPU thread) has device -1 and bus "none"; a GPU's bus id is the
 * driver's ("?" where the backend does not say). Ranks of other processes are counted in
 * one line, not listed.
 * Caller frees. */
static char *bench_devices(struct backend *b, int ranks)
{
    char host[64];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "?");
    host[sizeof host - 1] = '\0';
    for (char *h = host; *h; h++) /* one word, printable */
        if (*h <= ' ' || *h >= 0x7f) *h = '?';
    int pid = (int)getpid(), me = backend_proc_rank(b), others = 0;
    bool multi = backend_multiprocess(b);
    size_t cap = (size_t)(ranks + 1) * 256, len = 0;
    char *out = xmalloc(cap);
    out[0] = '\0';
    for (int r = 0; r < ranks; r++) {
        int dev = backend_rank_device(b, r);
        if (multi && dev < 0 && r != me) {
            others++;
            continue;
        }
        char name[96] = "", bus[32] = "";
        if (dev >= 0) {
            backend_device_name(b, dev, name, sizeof name);
            backend_device_busid(b, dev, bus, sizeof bus);
        } else if (b->ops->rank_label)
            b->ops->rank_label(b, r, name, sizeof name);
        if (!name[0]) snprintf(name, sizeof name, "%s rank", b->ops->name);
        nt_device_line(out + len, cap - len, r, 0, pid, host, dev,
                       dev < 0  ? "none"
                       : bus[0] ? bus
                                : "?",
                       name);
        len += strlen(out + len);
    }
    if (others)
        snprintf(out + len, cap - len,
                 "#  (%d more rank%s in the job's other processes: not listed here)\n", others,
                 others == 1 ? "" : "s");
    return out;
}

/* Measure collective c at `bytes` on the worker, out of place or in place: 0 with the result
 * in *r, else the exit status (interrupted, no result in time, or the run failed: said on
 * stderr). */
static int bench_measure_one(struct worker *w, const struct bench_opts *o, enum coll c,
                             size_t bytes, bool oop, const char *sz, bool tty, struct result *r)
{
    struct job j = {.kind = JOB_MEASURE};
    j.measure.params = (struct bench_params){
        .coll = c,
        .algo = o->algo_default ? coll_default_algo(c) : o->algo,
        .algo_auto = o->algo_auto,
        .op = o->op,
        .nranks = o->ranks,
        .bytes = bytes,
        .root = coll_is_rooted(c) ? o->root : 0,
        .iters = o->iters,
        .warmup = o->warmup,
        .check = o->check,
        .timeout_s = o->timeout_s,
        .slices = o->slices,
        .channels = o->channels,
        .native = o->native,
        .within_node = o->within_node,
        .ring_n = o->ring_n,
        /* all_to_all's working buffer is send | receive already: out of place as it is */
        .out_of_place = oop && coll_in_place(c),
    };
    memcpy(j.measure.params.ring_order, o->ring, sizeof o->ring);
    worker_post(w, &j);
    /* The backend aborts a collective stuck for -T seconds at any one wait; this
     * outer deadline only guards against a backend that breaks that promise. */
    double limit = 60.0 + 4.0 * o->timeout_s * (o->iters + o->warmup + 3);
    int got = bench_wait(w, r, now_s() + limit);
    bench_progress_clear(tty);
    if (got < 0) {
        bench_cancel_and_drain(w, 2 * o->timeout_s + 5);
        cv_eprintf("collviz: interrupted\n");
        return 130;
    }
    if (got == 0) {
        bench_cancel_and_drain(w, 2 * o->timeout_s + 5);
        cv_eprintf("collviz: %s %s%s: no result after %.0f s; cancelled\n", coll_name(c), sz,
                   oop ? " out of place" : " in place", limit);
        return 1;
    }
    if (r->status != CV_OK) {
        bool bad_input =
            r->status == CV_ENOMEM || r->status == CV_EINVAL || r->status == CV_EUNSUPPORTED;
        cv_eprintf("collviz: %s %s: %s\n", coll_name(c), sz, r->err);
        return bad_input ? 2 : 1;
    }
    return 0;
}

/* collviz's lines about a collective's table, printed once its first size has run (m: the
 * out-of-place result), then nccl-tests' column header. caps: the backend's (an algorithm
 * of its own, steered by NCCL_ALGO). */
static void bench_print_section(const struct bench_opts *o, enum coll c,
                                const struct bench_result *m, const char *nccl_env,
                                unsigned caps)
{
    char factor[48];
    if (strcmp(coll_info(c)->busbw_text, "1") == 0)
        snprintf(factor, sizeof factor, "1");
    else
        snprintf(factor, sizeof factor, "%s = %.4g", coll_info(c)->busbw_text,
                 coll_busbw_factor(c, o->ranks));
    /* The backend's own auto note is about the first row; the auto line after the rows
     * says what ran at each size. */
    char how[sizeof m->how];
    snprintf(how, sizeof how, "%s", m->how);
    char *autonote = strstr(how, "; auto:");
    if (autonote)
        snprintf(autonote, sizeof how - (size_t)(autonote - how),
                 "; algo auto: the fastest in a trial at each size");
    printf("# %s: busbw factor %s; measured: %s\n", coll_name(c), factor, how);
    if (o->algo_auto)
        printf("# %s: algorithm: auto, per size (listed after the rows)\n", coll_name(c));
    else
        printf("# %s: algorithm: %s%s%s for every row, out of place and in place\n",
               coll_name(c), m->algo,
               (caps & BACKEND_CAP_OWN_ALGO) && !o->native ? " (the library's own choice" : "",
               !(caps & BACKEND_CAP_OWN_ALGO) || o->native ? ""
               : (caps & BACKEND_CAP_LIB_ENV)              ? ": NCCL_ALGO steers it)"
                                                           : ")");
    printf("# %s: out-of-place: the input in a buffer of its own (a plan copies it in first); "
           "in-place: one buffer\n",
           coll_name(c));
    if (!coll_in_place(c))
        printf("# %s: in-place: N/A, not run (collviz's all_to_all buffer is send | "
               "receive: out of place, its one form)\n",
               coll_name(c));
    if (!o->check) printf("# %s: #wrong: N/A, validation off (-c 0)\n", coll_name(c));
    /* What the library said it connected the ranks with (NCCL: read from its
     * INFO log after this first row, since it connects at the first call). */
    if (m->link[0]) printf("# link: %s\n", m->link);
    if (nccl_env[0])
        printf("# %s: %s set in the environment: NCCL's choice of algorithm / "
               "protocol is forced for these rows\n",
               coll_name(c), nccl_env);
    nt_print_header(stdout);
}

static struct nt_group bench_group(const struct bench_result *m, bool measured)
{
    struct nt_group g = {.measured = measured, .wrong = -1};
    if (!measured) return g;
    g.time_us = m->time_us;
    g.algbw = m->algbw;
    g.busbw = m->busbw;
    g.wrong = m->wrong;
    return g;
}

/* nccl-tests' count column: the API count (elements per rank for all_gather and the like),
 * not size / 4. */
static size_t bench_count(const struct bench_opts *o, enum coll c, size_t bytes)
{
    return coll_count_for_bytes(c, o->ranks, bytes, sizeof(float));
}

/* One row of text output: the two groups, in nccl-tests' columns. */
static void bench_print_row(const struct bench_opts *o, const struct bench_row *row)
{
    enum coll c = row->coll;
    struct nt_group g1 = bench_group(&row->r, true), g2 = bench_group(&row->ip, row->has_ip);
    char line[256];
    nt_row(line, sizeof line, row->r.bytes, bench_count(o, c, row->r.bytes), "float",
           coll_reduces(c) ? redop_name(o->op) : "none", coll_is_rooted(c) ? o->root : -1, &g1,
           &g2);
    fputs(line, stdout);
    fflush(stdout);
}

/* After a collective's rows: collviz's lines (auto's choices, the lecture's formula with
 * the largest all-reduce's figures), then nccl-tests' footer. */
static void bench_print_end(const struct bench_opts *o, enum coll c,
                            const struct bench_row *rows, size_t n)
{
    if (n == 0) return;
    if (o->algo_auto) {
        printf("# %s: algo auto chose (size: out-of-place/in-place):", coll_name(c));
        for (size_t i = 0; i < n; i++)
            printf(" %zu:%s/%s", rows[i].r.bytes, rows[i].r.algo,
                   rows[i].has_ip ? rows[i].ip.algo : "-");
        printf("\n");
    }
    const struct bench_result *m = &rows[n - 1].r;
    if (c == COLL_ALL_REDUCE) {
        int W = o->ranks;
        double ms = m->time_us / 1e3;
        double gbs = (double)m->bytes * 2.0 * (W - 1) / (W * ms * 1e-3) / 1e9;
        printf("# lecture: size*2(W-1)/(W*duration) = %zu B * 2*%d / (%d * %.4g ms) = "
               "%.3g GB/s (= busbw, out of place)\n",
               m->bytes, W - 1, W, ms, gbs);
    }
    /* nccl-tests: a group with #wrong > 0 counts one; the average is over every group
     * measured, out of place and in place. */
    int errors = 0, nbw = 0;
    double bw = 0;
    for (size_t i = 0; i < n; i++) {
        errors += rows[i].r.wrong > 0;
        bw += rows[i].r.busbw;
        nbw++;
        if (rows[i].has_ip) {
            errors += rows[i].ip.wrong > 0;
            bw += rows[i].ip.busbw;
            nbw++;
        }
    }
    nt_print_footer(stdout, errors, bw / nbw, nt_program(c));
    fflush(stdout);
}

int bench_sweep(struct bench_opts *op, struct bench_sweep *out)
{
    struct bench_opts o = *op;
    int rc;
    memset(out, 0, sizeof *out);

    /* The collectives to run, and the sizes. */
    enum coll colls[COLL_COUNT];
    int ncoll = 0;
    char notes[COLL_COUNT][160];
    int nnotes = 0;
    rc = bench_colls(&o, colls, &ncoll, notes, &nnotes);
    if (rc >= 0) return rc;
    size_t sizes[SWEEP_MAX_SIZES];
    int nsizes = 0;
    rc = bench_sizes(&o, sizes, &nsizes);
    if (rc >= 0) return rc;

    /* The backend, and the options checked against it and this machine's memory. */
    struct backend *b = NULL;
    char err[256], why[256];
    rc = bench_open(&o, &b, why, sizeof why);
    if (rc >= 0) return rc;
    rc = bench_check_memory(&o, b, colls, ncoll, sizes, nsizes);
    if (rc >= 0) {
        backend_close(b);
        return rc;
    }
    char describe[200];
    b->ops->describe(b, o.ranks, describe, sizeof describe);
    char backend_name[16];
    snprintf(backend_name, sizeof backend_name, "%s", b->ops->name);
    char *hardware = bench_hardware(b);
    char nccl_env[160];
    bench_nccl_env(b, nccl_env, sizeof nccl_env);
    char *devices = bench_devices(b, o.ranks);
    unsigned caps = b->ops->caps;
    /* nccl-tests' nThread: the ranks this process runs, one thread each (nGpus 1). */
    int nthread = backend_multiprocess(b) ? 1 : o.ranks;
    struct worker *w = worker_start(b, err, sizeof err);
    if (!w) {
        free(hardware);
        free(devices);
        backend_close(b);
        cv_eprintf("collviz: %s\n", err);
        return 1;
    }

    bool tty = isatty(STDERR_FILENO);
    struct sigaction sa = {.sa_handler = bench_on_sigint}, old_int;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    bench_interrupted = 0;

    bench_print_preamble(&o, backend_name, why, describe, hardware, notes, nnotes);

    /* Every (collective, size): out of place, then in place (nccl-tests' order). */
    struct bench_row *rows = xcalloc((size_t)ncoll * (size_t)nsizes + 1, sizeof *rows);
    size_t nrows = 0;
    int total = ncoll * nsizes, done = 0, exit_rc = 0;
    for (int ci = 0; ci < ncoll && exit_rc == 0; ci++) {
        enum coll c = colls[ci];
        bool has_ip = coll_in_place(c);
        size_t first = nrows;
        if (!o.json) {
            printf("#\n");
            nt_print_start(stdout, nt_program(c), nthread, 1, sizes[0], sizes[nsizes - 1],
                           o.step ? 0 : o.factor, o.step, o.warmup, o.iters, o.check);
            fputs(devices, stdout);
            fflush(stdout);
        }
        for (int si = 0; si < nsizes && exit_rc == 0; si++) {
            char sz[32];
            format_size(sizes[si], sz, sizeof sz);
            if (tty) {
                fprintf(stderr, "\r\033[K[%d/%d] %s %s ...", done + 1, total, coll_name(c), sz);
                fflush(stderr);
            }
            struct result r, ri;
            exit_rc = bench_measure_one(w, &o, c, sizes[si], true, sz, tty, &r);
            if (exit_rc) break;
            if (has_ip) exit_rc = bench_measure_one(w, &o, c, sizes[si], false, sz, tty, &ri);
            if (exit_rc) break;
            done++;
            rows[nrows] = (struct bench_row){
                .coll = c, .op = o.op, .root = o.root, .r = r.measure, .has_ip = has_ip};
            if (has_ip) rows[nrows].ip = ri.measure;
            nrows++;
            if (o.json) continue;
            if (si == 0) bench_print_section(&o, c, &r.measure, nccl_env, caps);
            bench_print_row(&o, &rows[nrows - 1]);
        }
        if (!o.json && exit_rc == 0) bench_print_end(&o, c, rows + first, nrows - first);
    }
    bench_progress_clear(tty);
    sigaction(SIGINT, &old_int, NULL);
    worker_stop(w);
    free(devices);

    out->rows = rows;
    out->nrows = nrows;
    out->hardware = hardware;
    out->ranks = o.ranks;
    snprintf(out->backend, sizeof out->backend, "%s", backend_name);
    *op = o;
    return exit_rc;
}

void bench_sweep_free(struct bench_sweep *s)
{
    free(s->rows);
    free(s->hardware);
    memset(s, 0, sizeof *s);
}

int cli_bench_main(int argc, char **argv)
{
    struct bench_opts o;
    int rc = bench_parse(argc, argv, &o, "bench");
    if (rc >= 0) return rc;
    if (o.json) cli_json_claim_stdout();
    struct bench_sweep sw;
    int exit_rc = bench_sweep(&o, &sw);

    long wrong_total = 0;
    for (size_t i = 0; i < sw.nrows; i++)
        wrong_total += (sw.rows[i].r.wrong > 0 ? sw.rows[i].r.wrong : 0) +
                       (sw.rows[i].has_ip && sw.rows[i].ip.wrong > 0 ? sw.rows[i].ip.wrong : 0);
    if (o.json && exit_rc != 2 && exit_rc != 130)
        bench_print_json(sw.backend, sw.ranks, sw.hardware, &o, sw.rows, sw.nrows);
    bench_sweep_free(&sw);
    if (exit_rc) return exit_rc;
    if (wrong_total > 0) {
        /* every process counted the same elements; rank 0 says it once */
        if (!cli_stdout_quiet())
            cv_eprintf("collviz: bench: %ld wrong element%s\n", wrong_total,
                       wrong_total == 1 ? "" : "s");
        return 1;
    }
    return 0;
}
