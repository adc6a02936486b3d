/* model.c - `collviz model`: the α-β cost model (core/model.h) of one collective, read off
 * the same plan `collviz trace` prints and the screens animate, on a tier of the lecture's
 * hierarchy (core/tiers.h) or with α and β given; `--tier list` prints the hierarchy;
 * `--fit` measures a sweep with bench's own loop (cli/bench.h) and fits α and β to it.
 *
 * Everything this prints is labelled: "model" for the model's figures, "lecture" for the
 * tiers' stated bandwidths, "model assumption" for the per-tier α, "measured" for the
 * sweep's rows. Text or JSON (cJSON). Exit status: 0 done, 1 a sweep failed or its fit is
 * not physical, 2 bad input (one line on stderr naming the value). */
#include "cli/cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/bench.h"
#include "core/coll.h"
#include "core/model.h"
#include "core/plan.h"
#include "core/tiers.h"
#include "core/util.h"
#include "cli/json.h"
#include "cli/opt.h"

struct model_opts {
    enum coll coll;
    bool coll_given;
    enum algo algo;
    bool algo_given;
    int ranks;
    size_t bytes;
    double alpha_s, beta_Bps;
    bool alpha_given, beta_given;
    enum tier_id tier;
    bool tier_given, tier_all, tier_list;
    bool json;
};

static const char model_usage[] =
    "usage: collviz model COLLECTIVE [--algo A] [--ranks W] [--size S]\n"
    "                     [--alpha-us A --beta-gbs B | --tier NAME|all] [--format F]\n"
    "       collviz model --tier list [--format F]\n"
    "       collviz model --fit COLLECTIVE [bench options]\n"
    "\n"
    "The alpha-beta cost model of a collective, read off the plan that `collviz trace`\n"
    "prints and the screens animate (a model, not a measurement):\n"
    "  T = sum over the plan's steps of (alpha + the bytes the busiest rank sends or\n"
    "      receives in that step / beta)\n"
    "with nccl-tests' size S, algbw = S/T and busbw = algbw * the collective's factor.\n";

static int model_parse_double(const char *s, double *out)
{
    return parse_double(s, -HUGE_VAL, HUGE_VAL, out);
}

static void model_link_keys(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct tier *x = tier_get((enum tier_id)t);
        if (!x->link) continue;
        int k = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", x->key);
        if (k < 0 || (size_t)k >= n - len) break;
        len += (size_t)k;
    }
}

/* The setters of model's table (opt.h): OPT_GO, or 2 after the bad value's line. */
static int set_algo(void *ctx, const struct opt *self, const char *v)
{
    struct model_opts *o = ctx;
    if (algo_parse(v, &o->algo) != CV_OK)
        return cli_usage_error("--algo %s: need ring, tree or direct", v);
    o->algo_given = true;
    return OPT_GO;
}

static int set_ranks(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_ranks(v, &((struct model_opts *)ctx)->ranks) ? 2 : OPT_GO;
}

static int set_size(void *ctx, const struct opt *self, const char *v)
{
    struct model_opts *o = ctx;
    if (parse_size(v, &o->bytes) != CV_OK || o->bytes == 0)
        return cli_usage_error("--size %s: not a size > 0 (bytes, or with K/M/G/T: 64M)", v);
    if (o->bytes > MODEL_MAX_BYTES)
        return cli_usage_error("--size %s: above the model's limit of 1 PiB", v);
    return OPT_GO;
}

static int set_alpha(void *ctx, const struct opt *self, const char *v)
{
    struct model_opts *o = ctx;
    double d;
    if (model_parse_double(v, &d) != CV_OK || d < 0 || d > 1e9)
        return cli_usage_error("--alpha-us %s: need microseconds >= 0", v);
    o->alpha_s = d * 1e-6;
    o->alpha_given = true;
    return OPT_GO;
}

static int set_beta(void *ctx, const struct opt *self, const char *v)
{
    struct model_opts *o = ctx;
    double d;
    if (model_parse_double(v, &d) != CV_OK || d <= 0 || d > 1e9)
        return cli_usage_error("--beta-gbs %s: need GB/s > 0", v);
    o->beta_Bps = d * 1e9;
    o->beta_given = true;
    return OPT_GO;
}

static int set_tier(void *ctx, const struct opt *self, const char *v)
{
    struct model_opts *o = ctx;
    char keys[80];
    o->tier_given = true;
    if (strcmp(v, "list") == 0) {
        o->tier_list = true;
    } else if (strcmp(v, "all") == 0) {
        o->tier_all = true;
    } else if (tier_parse(v, &o->tier) != 0) {
        tier_keys(keys, sizeof keys);
        return cli_usage_error("--tier %s: unknown (tiers: %s; or all, list)", v, keys);
    } else if (!tier_get(o->tier)->link) {
        model_link_keys(keys, sizeof keys);
        return cli_usage_error("--tier %s: %s is memory, not a link between ranks; "
                               "the model needs a link (%s)",
                               v, tier_get(o->tier)->name, keys);
    }
    return OPT_GO;
}

static int set_format(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_format(v, &((struct model_opts *)ctx)->json) ? 2 : OPT_GO;
}

/* A command line with --fit never reaches this table's parse (cli_model_main sends it to
 * model_fit_main, which parses bench's options): only an abbreviation of it (--fi) does. */
static int set_fit(void *ctx, const struct opt *self, const char *v)
{
    return cli_usage_error("--fit: write it in full (collviz model --fit COLLECTIVE ...)");
}

static const struct opt model_table[] = {
    {"algo", 0, "A", "ring, tree or direct (default: ring where it exists, else direct)",
     set_algo, 0},
    {"ranks", 0, "W", "ranks, 1.." OPT_STR(CV_MAX_RANKS) " (default 4)", set_ranks, 0},
    {"size", 0, "S", "nccl-tests' size in bytes, K/M/G/T suffixes (default 64M)", set_size, 0},
    {"alpha-us", 0, "A", "alpha, microseconds per step (with --beta-gbs)", set_alpha, 0},
    {"beta-gbs", 0, "B", "beta, GB/s (1e9 bytes/s) each way per rank (with --alpha-us)",
     set_beta, 0},
    {"tier", 0, "NAME",
     "alpha and beta of a tier of the lecture's hierarchy (default nvlink); all: one row per "
     "link; list: the hierarchy itself (the tiers are named below)",
     set_tier, 0},
    {"fit", 0, NULL,
     "measure a sweep with bench's options (collviz bench --help; default -b 4K -e 4M -f 4 "
     "and the ring) and fit alpha and beta",
     set_fit, 0},
    {"format", 0, "F", "text or json (default text)", set_format, 0},
    {NULL, 0, NULL, NULL, NULL, 0},
};

/* The tiers --tier takes, from the tier table. */
static void model_notes(FILE *f)
{
    char keys[80];
    tier_keys(keys, sizeof keys);
    fprintf(f, "\nTiers (--tier): %s\n", keys);
}

static const struct opt_cmd model_cmd = {
    .prog = "model",
    .opts = model_table,
    .usage = model_usage,
    .after = "Exit status: 0 done, 1 a sweep failed or its fit is not physical, 2 bad input.\n",
    .notes = model_notes,
};

/* Returns -1 to go on, 0 after --help, 2 on bad input. */
static int model_parse(int argc, char **argv, struct model_opts *o)
{
    *o = (struct model_opts){.ranks = 4, .bytes = (size_t)64 << 20, .tier = TIER_NVLINK};
    int rc = opt_parse(&model_cmd, argc, argv, o);
    if (rc != OPT_GO) return rc;
    if (o->alpha_given != o->beta_given)
        return cli_usage_error("%s: give --alpha-us and --beta-gbs together",
                               o->alpha_given ? "--alpha-us" : "--beta-gbs");
    if (o->alpha_given && o->tier_given)
        return cli_usage_error("--tier: give a tier or --alpha-us/--beta-gbs, not both");
    if (o->tier_list) {
        if (optind < argc)
            return cli_usage_error("--tier list: takes no collective, got '%s'", argv[optind]);
        return -1;
    }
    if (optind >= argc) return cli_usage_error("model: name a collective (e.g. all_reduce)");
    if (optind + 1 < argc)
        return cli_usage_error("model: one collective only, got '%s' too", argv[optind + 1]);
    if (coll_parse(argv[optind], &o->coll) != CV_OK) {
        char names[400];
        cli_coll_names(names, sizeof names, ", ");
        return cli_usage_error("model: unknown collective '%s' (%s)", argv[optind], names);
    }
    o->coll_given = true;
    if (!o->algo_given) o->algo = coll_default_algo(o->coll);
    return -1;
}

/* ---- output helpers ------------------------------------------------------------------ */

/* A number, or null where it is not finite (NAN marks "not meaningful", e.g. no time). */
static void json_num(cJSON *o, const char *key, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static const char *model_factor_text(enum coll c)
{
    const struct coll_info *ci = coll_info(c);
    return ci ? ci->busbw_text : "?";
}

/* ---- the model of one collective ------------------------------------------------------ */

struct model_source {
    double alpha_s, beta_Bps;
    const char *tier_key; /* NULL when α and β were given */
    char alpha_text[160], beta_text[160];
};

static void model_source_for(const struct model_opts *o, enum tier_id t, struct model_source *s)
{
    memset(s, 0, sizeof *s);
    if (o->alpha_given) {
        s->alpha_s = o->alpha_s;
        s->beta_Bps = o->beta_Bps;
        snprintf(s->alpha_text, sizeof s->alpha_text, "given (--alpha-us)");
        snprintf(s->beta_text, sizeof s->beta_text, "given (--beta-gbs)");
        return;
    }
    const struct tier *x = tier_get(t);
    s->alpha_s = x->model_alpha_s;
    s->beta_Bps = x->each_way_Bps;
    s->tier_key = x->key;
    snprintf(s->alpha_text, sizeof s->alpha_text, "tier %s, %s", x->key, x->alpha_note);
    snprintf(s->beta_text, sizeof s->beta_text, "tier %s, %s", x->key, x->beta_note);
}

/* The model plus its per-step breakdown; CV_* with err on failure. */
static int model_one(const struct model_opts *o, const struct model_source *src,
                     struct model_cost *m, struct plan *p, char *err, size_t errlen)
{
    int rc = model_collective(o->coll, o->algo, o->ranks, o->bytes, src->alpha_s, src->beta_Bps,
                              m, err, errlen);
    if (rc != CV_OK) return rc;
    return plan_build(p, o->coll, o->algo, OP_SUM, o->ranks, m->count, 0, err, errlen);
}

static cJSON *model_json_one(const struct model_cost *m, const struct plan *p,
                             const struct model_source *src)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "collective", coll_name(m->coll));
    cJSON_AddStringToObject(o, "algo", algo_name(m->algo));
    cJSON_AddNumberToObject(o, "ranks", m->nranks);
    cJSON_AddNumberToObject(o, "bytes", (double)m->bytes);
    cJSON_AddNumberToObject(o, "count", (double)m->count);
    if (src->tier_key)
        cJSON_AddStringToObject(o, "tier", src->tier_key);
    else
        cJSON_AddNullToObject(o, "tier");
    cJSON_AddNumberToObject(o, "alpha_us", m->alpha_s * 1e6);
    cJSON_AddNumberToObject(o, "beta_gbs", m->beta_Bps / 1e9);
    cJSON_AddStringToObject(o, "alpha_source", src->alpha_text);
    cJSON_AddStringToObject(o, "beta_source", src->beta_text);
    cJSON_AddNumberToObject(o, "steps", m->steps);
    cJSON_AddNumberToObject(o, "wire_bytes", (double)m->wire_bytes);
    cJSON_AddNumberToObject(o, "time_us", m->time_s * 1e6);
    json_num(o, "algbw_gbs", m->time_s > 0 ? m->algbw / 1e9 : NAN);
    json_num(o, "busbw_gbs", m->time_s > 0 ? m->busbw / 1e9 : NAN);
    cJSON_AddNumberToObject(o, "busbw_factor", coll_busbw_factor(m->coll, m->nranks));
    cJSON *steps = cJSON_AddArrayToObject(o, "per_step");
    for (size_t s = 0; s < p->nsteps; s++) {
        size_t b = model_step_bytes(p, s, sizeof(float));
        cJSON *st = cJSON_CreateObject();
        cJSON_AddStringToObject(st, "phase", p->steps[s].phase);
        cJSON_AddNumberToObject(st, "bytes", (double)b);
        cJSON_AddNumberToObject(st, "time_us",
                                b ? (m->alpha_s + (double)b / m->beta_Bps) * 1e6 : 0.0);
        cJSON_AddItemToArray(steps, st);
    }
    cJSON_AddStringToObject(o, "source", "model");
    return o;
}

static void model_print_text(const struct model_cost *m, const struct plan *p,
                             const struct model_source *src)
{
    char sz[32];
    format_size(m->bytes, sz, sizeof sz);
    printf("# collviz model: the alpha-beta model of the plan `collviz trace` shows; "
           "source: model, not measured\n");
    printf("# T = sum over steps of (alpha + bytes of the busiest rank's port in the step / "
           "beta)\n");
    printf("collective   %s\n", coll_name(m->coll));
    printf("algo         %s\n", algo_name(m->algo));
    printf("ranks        %d\n", m->nranks);
    printf("bytes        %zu  (%s, count %zu: nccl-tests' size S)\n", m->bytes, sz, m->count);
    printf("alpha_us     %.6g  (%s)\n", m->alpha_s * 1e6, src->alpha_text);
    printf("beta_gbs     %.6g  (%s)\n", m->beta_Bps / 1e9, src->beta_text);
    printf("steps        %d  (steps that cross between ranks; a local step such as avg's "
           "divide costs nothing)\n",
           m->steps);
    printf("wire_bytes   %zu  (the busiest port's bytes, summed over the steps)\n",
           m->wire_bytes);
    printf("time_us      %.6g  (model)\n", m->time_s * 1e6);
    if (m->time_s > 0) {
        printf("algbw_gbs    %.6g  (model: S / T)\n", m->algbw / 1e9);
        printf("busbw_gbs    %.6g  (model: algbw * %s = %.4g)\n", m->busbw / 1e9,
               model_factor_text(m->coll), coll_busbw_factor(m->coll, m->nranks));
    } else {
        printf("# with %d rank nothing crosses between ranks: no bandwidth to speak of\n",
               m->nranks);
    }
    if (p->nsteps == 0) return;
    printf("#\n# %4s  %-22s %14s %12s\n", "step", "phase", "port bytes", "time(us)");
    for (size_t s = 0; s < p->nsteps; s++) {
        size_t b = model_step_bytes(p, s, sizeof(float));
        printf("  %4zu  %-22s %14zu %12.6g%s\n", s + 1, p->steps[s].phase, b,
               b ? (m->alpha_s + (double)b / m->beta_Bps) * 1e6 : 0.0,
               b ? "" : "  (local: costs nothing)");
    }
}

static int model_run_one(const struct model_opts *o)
{
    struct model_source src;
    model_source_for(o, o->tier, &src);
    struct model_cost m;
    struct plan p;
    char err[256];
    int rc = model_one(o, &src, &m, &p, err, sizeof err);
    if (rc != CV_OK) return cli_usage_error("%s", err);
    if (o->json)
        cli_json_print_pretty(model_json_one(&m, &p, &src));
    else
        model_print_text(&m, &p, &src);
    plan_free(&p);
    return 0;
}

/* --tier all: the same collective on every link of the hierarchy. */
static int model_run_tiers(const struct model_opts *o)
{
    cJSON *root = o->json ? cJSON_CreateObject() : NULL, *rows = NULL;
    if (root) {
        cJSON_AddStringToObject(root, "source", "model");
        rows = cJSON_AddArrayToObject(root, "rows");
    }
    bool header = false;
    for (int t = 0; t < TIER_COUNT; t++) {
        if (!tier_get((enum tier_id)t)->link) continue;
        struct model_source src;
        model_source_for(o, (enum tier_id)t, &src);
        struct model_cost m;
        struct plan p;
        char err[256];
        int rc = model_one(o, &src, &m, &p, err, sizeof err);
        if (rc != CV_OK) {
            cJSON_Delete(root);
            return cli_usage_error("%s", err);
        }
        if (root) {
            cJSON_AddItemToArray(rows, model_json_one(&m, &p, &src));
        } else {
            if (!header) {
                char sz[32];
                format_size(m.bytes, sz, sizeof sz);
                printf("# collviz model: %s, %s, %d ranks, S = %zu B (%s) on each link of the "
                       "lecture's hierarchy\n",
                       coll_name(m.coll), algo_name(m.algo), m.nranks, m.bytes, sz);
                printf("# source: model (alpha: model assumption per tier; beta: the lecture's "
                       "figure each way)\n");
                printf("# %-9s %10s %10s %6s %14s %12s %12s\n", "tier", "alpha(us)",
                       "beta(GB/s)", "steps", "time(us)", "algbw(GB/s)", "busbw(GB/s)");
                header = true;
            }
            printf("  %-9s %10.4g %10.4g %6d %14.6g %12.6g %12.6g\n", src.tier_key,
                   m.alpha_s * 1e6, m.beta_Bps / 1e9, m.steps, m.time_s * 1e6, m.algbw / 1e9,
                   m.busbw / 1e9);
        }
        plan_free(&p);
    }
    if (root) cli_json_print_pretty(root);
    return 0;
}

/* --tier list: the hierarchy itself. */
static int model_list_tiers(bool json)
{
    cJSON *root = json ? cJSON_CreateObject() : NULL, *arr = NULL;
    if (root) arr = cJSON_AddArrayToObject(root, "tiers");
    if (!json) {
        printf("# The lecture's hierarchy, fastest first. Bandwidths: the lecture's figures "
               "(not measured here).\n"
               "# alpha, beta: what `collviz model` assumes on each link (model).\n");
        printf("# %-8s %-28s %-11s %10s %10s  %s\n", "tier", "name", "bandwidth", "alpha(us)",
               "beta(GB/s)", "ratio to the next tier down");
    }
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct tier *x = tier_get((enum tier_id)t);
        enum tier_id next = TIER_COUNT;
        enum tier_basis basis = TIER_EACH_WAY;
        double ratio = tier_ratio_to_next((enum tier_id)t, &next, &basis);
        if (root) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "key", x->key);
            cJSON_AddStringToObject(o, "name", x->name);
            cJSON_AddStringToObject(o, "connects", x->connects);
            if (x->bw_Bps > 0)
                cJSON_AddNumberToObject(o, "bw_bytes_per_s", x->bw_Bps);
            else
                cJSON_AddNullToObject(o, "bw_bytes_per_s");
            cJSON_AddStringToObject(o, "bw_text", x->bw_text);
            cJSON_AddStringToObject(o, "bw_note", x->bw_note);
            cJSON_AddStringToObject(o, "source", x->source);
            cJSON_AddBoolToObject(o, "link", x->link);
            if (x->link) {
                cJSON_AddNumberToObject(o, "model_alpha_us", x->model_alpha_s * 1e6);
                cJSON_AddNumberToObject(o, "model_beta_gbs", x->each_way_Bps / 1e9);
                cJSON_AddStringToObject(o, "alpha_note", x->alpha_note);
                cJSON_AddStringToObject(o, "beta_note", x->beta_note);
                cJSON_AddNumberToObject(o, "each_way_gbs", x->each_way_Bps / 1e9);
                cJSON_AddStringToObject(o, "vendor", x->vendor);
            }
            if (ratio > 0) {
                cJSON_AddNumberToObject(o, "ratio_to_next", ratio);
                cJSON_AddStringToObject(o, "next", tier_get(next)->key);
                cJSON_AddStringToObject(o, "ratio_basis", tier_basis_words(basis));
            } else {
                cJSON_AddNullToObject(o, "ratio_to_next");
            }
            cJSON_AddItemToArray(arr, o);
            continue;
        }
        char a[16] = "-", b[16] = "-", r[64] = "";
        if (x->link) {
            snprintf(a, sizeof a, "%.3g", x->model_alpha_s * 1e6);
            snprintf(b, sizeof b, "%.4g", x->each_way_Bps / 1e9);
        }
        if (ratio > 0)
            snprintf(r, sizeof r, "%.3gx %s %s", ratio, tier_get(next)->key,
                     tier_basis_words(basis));
        printf("  %-8s %-28s %-11s %10s %10s  %s\n", x->key, x->name, x->bw_text, a, b, r);
    }
    if (root) {
        cli_json_print_pretty(root);
        return 0;
    }
    printf("#\n");
    for (int t = 0; t < TIER_COUNT; t++) {
        const struct tier *x = tier_get((enum tier_id)t);
        printf("# %-8s connects %s; %s: %s (%s)\n", x->key, x->connects, x->source, x->bw_text,
               x->bw_note);
        if (x->link) printf("# %-8s %s; %s\n", "", x->alpha_note, x->beta_note);
        if (x->link) printf("# %-8s %s\n", "", x->vendor);
    }
    return 0;
}

/* ---- --fit: a measured sweep, and α and β fitted to it --------------------------------- */

/* bench's options for a fit: bench_parse on the command line without --fit, then the
 * fit's defaults (-b 4K -e 4M -f 4, the ring). Returns -1 to go on, else the exit status. */
static int fit_parse(int argc, char **argv, struct bench_opts *o)
{
    char **args = xcalloc((size_t)argc + 1, sizeof *args);
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--fit") == 0) continue;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            free(args);
            opt_print_help(stdout, &model_cmd);
            return 0;
        }
        args[n++] = argv[i];
    }
    int rc = bench_parse(n, args, o, "model --fit");
    free(args);
    if (rc >= 0) return rc;
    if (o->all)
        return cli_usage_error("model --fit all: fit one collective at a time (e.g. "
                               "all_reduce)");
    if (!o->algo_given) {
        o->algo_auto = false;
        o->algo = coll_default_algo(o->coll);
    }
    if (!o->minb_set && !o->maxb_set) {
        o->minb = 4096;
        o->maxb = (size_t)4 << 20;
        if (!o->factor_set && !o->step) o->factor = 4.0;
        size_t need = coll_bytes(o->coll, o->ranks, 1, sizeof(float));
        if (o->minb < need) o->minb = need;
    }
    if (o->minb == o->maxb)
        return cli_usage_error("model --fit: one size (%zu B); a fit needs at least 2: give -b "
                               "and a larger -e",
                               o->minb);
    return -1;
}

/* A measured sweep's rows: each one's algorithm (algos[i]), and its α-β fit (*f, pts[i]:
 * model_fit_sizes, the path a record's rows take too); *wrong adds up #wrong and
 * *nccl_note says NCCL chose its own algorithms (the model then counts the ring's). */
static int fit_points(const struct bench_opts *o, const struct bench_sweep *sw,
                      struct model_point *pts, enum algo *algos, struct model_fit *f,
                      long *wrong, bool *nccl_note)
{
    size_t *bytes = xcalloc(sw->nrows + 1, sizeof *bytes);
    double *times = xcalloc(sw->nrows + 1, sizeof *times);
    for (size_t i = 0; i < sw->nrows; i++) {
        const struct bench_result *r = &sw->rows[i].r;
        if (r->wrong > 0) *wrong += r->wrong;
        if (algo_parse(r->algo, &algos[i]) != CV_OK) {
            algos[i] = coll_default_algo(o->coll);
            *nccl_note = true;
        }
        bytes[i] = r->bytes;
        times[i] = r->time_us * 1e-6;
    }
    char err[256];
    int rc = model_fit_sizes(o->coll, algos, sw->ranks, bytes, times, sw->nrows, pts, f, err,
                             sizeof err);
    free(bytes);
    free(times);
    if (rc != CV_OK) {
        cv_eprintf("collviz: model --%s\n", err);
        return 1;
    }
    return 0;
}

/* The fit as one JSON document: its figures and every point beside the model's. */
static void fit_print_json(const struct bench_opts *o, const struct bench_sweep *sw,
                           const struct model_fit *f, const struct model_point *pts,
                           const enum algo *algos)
{
    double factor = coll_busbw_factor(o->coll, sw->ranks);
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "collective", coll_name(o->coll));
    cJSON_AddStringToObject(root, "algo", o->algo_auto ? "auto" : algo_name(o->algo));
    cJSON_AddStringToObject(root, "backend", sw->backend);
    cJSON_AddNumberToObject(root, "ranks", sw->ranks);
    cJSON_AddNumberToObject(root, "alpha_us", f->alpha_s * 1e6);
    if (f->inv_beta > 0)
        cJSON_AddNumberToObject(root, "beta_gbs", f->beta_Bps / 1e9);
    else
        cJSON_AddNullToObject(root, "beta_gbs");
    cJSON_AddNumberToObject(root, "inv_beta_s_per_byte", f->inv_beta);
    cJSON_AddNumberToObject(root, "r2", f->r2);
    cJSON_AddNumberToObject(root, "rel_rms", f->rel_rms);
    cJSON_AddBoolToObject(root, "physical", f->physical);
    cJSON_AddStringToObject(root, "source", "fit of measured points (model)");
    cJSON *arr = cJSON_AddArrayToObject(root, "points");
    for (size_t i = 0; i < sw->nrows; i++) {
        const struct bench_result *r = &sw->rows[i].r;
        double mt = f->alpha_s * pts[i].steps + f->inv_beta * (double)pts[i].wire_bytes;
        cJSON *p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "bytes", (double)r->bytes);
        cJSON_AddStringToObject(p, "algo", algo_name(algos[i]));
        cJSON_AddNumberToObject(p, "steps", pts[i].steps);
        cJSON_AddNumberToObject(p, "wire_bytes", (double)pts[i].wire_bytes);
        cJSON_AddNumberToObject(p, "time_us", r->time_us);
        cJSON_AddNumberToObject(p, "busbw_gbs", r->busbw);
        cJSON_AddNumberToObject(p, "model_time_us", mt * 1e6);
        json_num(p, "model_busbw_gbs", mt > 0 ? (double)r->bytes / mt * factor / 1e9 : NAN);
        cJSON_AddItemToArray(arr, p);
    }
    cli_json_print_pretty(root);
}

/* The fit as text: every point beside the model's, then the fitted figures. */
static void fit_print_text(const struct bench_opts *o, const struct bench_sweep *sw,
                           const struct model_fit *f, const struct model_point *pts,
                           const enum algo *algos, bool nccl_note)
{
    double factor = coll_busbw_factor(o->coll, sw->ranks);
    printf("#\n# fit: t = steps*alpha + port bytes/beta over the %zu measured sizes above "
           "(least squares in relative error)%s\n",
           sw->nrows,
           nccl_note ? "; NCCL chose its own algorithms, the model counts the ring's" : "");
    printf("# %10s %7s %6s %14s %13s %12s %13s %12s\n", "size(B)", "algo", "steps",
           "port bytes", "measured(us)", "model(us)", "meas busbw", "model busbw");
    for (size_t i = 0; i < sw->nrows; i++) {
        const struct bench_result *r = &sw->rows[i].r;
        double mt = f->alpha_s * pts[i].steps + f->inv_beta * (double)pts[i].wire_bytes;
        double mbus = mt > 0 ? (double)r->bytes / mt * factor / 1e9 : NAN;
        printf("  %10zu %7s %6d %14zu %13.6g %12.6g %13.4g %12.4g\n", r->bytes,
               algo_name(algos[i]), pts[i].steps, pts[i].wire_bytes, r->time_us, mt * 1e6,
               r->busbw, mbus);
    }
    printf("alpha_us     %.6g  (fitted, per step)\n", f->alpha_s * 1e6);
    if (f->inv_beta > 0)
        printf("beta_gbs     %.6g  (fitted, each way per rank)\n", f->beta_Bps / 1e9);
    else
        printf("beta_gbs     none  (fitted 1/beta = %.6g s/B <= 0)\n", f->inv_beta);
    printf("r2           %.6f\n", f->r2);
    printf("rel_rms      %.4g  (root mean square of (measured - model) / measured)\n",
           f->rel_rms);
}

static int model_fit_main(int argc, char **argv)
{
    struct bench_opts o;
    int rc = fit_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    struct bench_sweep sw;
    rc = bench_sweep(&o, &sw);
    if (rc != 0) {
        bench_sweep_free(&sw);
        return rc;
    }
    long wrong = 0;
    bool nccl_note = false;
    struct model_point *pts = xcalloc(sw.nrows + 1, sizeof *pts);
    enum algo *algos = xcalloc(sw.nrows + 1, sizeof *algos);
    struct model_fit f;
    rc = fit_points(&o, &sw, pts, algos, &f, &wrong, &nccl_note);
    if (rc == 0) {
        if (o.json)
            fit_print_json(&o, &sw, &f, pts, algos);
        else
            fit_print_text(&o, &sw, &f, pts, algos, nccl_note);
    }
    free(pts);
    free(algos);
    bench_sweep_free(&sw);
    if (rc != 0) return rc;
    if (!f.physical) {
        cv_eprintf("collviz: model --fit: fit not physical: alpha = %.6g us, 1/beta = %.6g s/B "
                   "(need alpha >= 0 and beta > 0); the timings do not follow the model here\n",
                   f.alpha_s * 1e6, f.inv_beta);
        return 1;
    }
    if (wrong > 0) {
        if (!cli_stdout_quiet()) /* rank 0 says it for the job */
            cv_eprintf("collviz: model --fit: %ld wrong element%s in the sweep\n", wrong,
                       wrong == 1 ? "" : "s");
        return 1;
    }
    return 0;
}

int cli_model_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--fit") == 0) return model_fit_main(argc, argv);
    struct model_opts o;
    int rc = model_parse(argc, argv, &o);
    if (rc >= 0) return rc;
    if (o.tier_list) return model_list_tiers(o.json);
    if (o.tier_all) return model_run_tiers(&o);
    return model_run_one(&o);
}
