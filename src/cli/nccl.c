/* nccl.c - `collviz nccl FILE...`: what a real cluster's own records say (records/records.h),
 * as text or one JSON object: NCCL's version, the ranks and their hosts, each channel's ring
 * (with its node crossings) and tree, the links with their class, nccl-tests' rows and
 * the α-β fit of each test (records/recfit.h).
 *
 * Files are untrusted: each is read up to REC_MAX_BYTES (a larger one is refused), what
 * cannot be read is a "file:line:" line on stderr, and the exit status is 2 only when
 * nothing at all could be read. Every string printed comes from the parser, which keeps
 * printable ASCII only; JSON escaping is cJSON's. */
#include "cli/cli.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/coll.h"
#include "core/text.h"
#include "core/util.h"
#include "cli/json.h"
#include "cli/runcmp.h"
#include "cli/opt.h"
#include "records/records.h"
#include "records/recfile.h"
#include "records/recfit.h"
#include "records/recsay.h"
#include "records/recview.h"

static const char nccl_usage[] =
    "usage: collviz nccl FILE... [--format text|json]\n"
    "       collviz nccl A B [--compare] [--format text|json]\n"
    "\n"
    "Reads NCCL INFO logs (NCCL_DEBUG=INFO, any NCCL_DEBUG_SUBSYS) and nccl-tests\n"
    "output, one file or several (one per node), in any mix, and prints what they\n"
    "say: the NCCL version, ranks and hosts, each channel's ring in NCCL's order with\n"
    "its node crossings, the trees, each link with its class (nvlink, pcie, shm, ib,\n"
    "roce, socket, net-plugin, network, unknown: from what NCCL says), and\n"
    "nccl-tests' rows with the alpha-beta model fitted to each test's out-of-place\n"
    "times (as collviz model --fit fits).\n"
    "\n"
    "Two files that each hold a run of nccl-tests (its table, or collviz bench's) are\n"
    "compared instead: the out-of-place busbw at each size, B/A, and the sizes where B is\n"
    "slower than A by more than the spread (the larger of the two runs' |out-of-place -\n"
    "in-place| busbw at that size). Runs of different tests are refused.\n";

struct nccl_opts {
    bool json;
    bool compare;
};

static int nccl_set_format(void *ctx, const struct opt *self, const char *v)
{
    return cli_parse_format(v, &((struct nccl_opts *)ctx)->json) ? 2 : OPT_GO;
}

static const struct opt nccl_table[] = {
    {"format", 0, "F", "text or json (default text)", nccl_set_format, 0},
    {"compare", 0, NULL,
     "compare run B with run A (the default for two files that each hold a run of "
     "nccl-tests)",
     opt_true, offsetof(struct nccl_opts, compare)},
    {NULL, 0, NULL, NULL, NULL, 0},
};

static const struct opt_cmd nccl_cmd = {
    "nccl",
    nccl_table,
    nccl_usage,
    "What is missing or odd (a line cut or spliced, ranks that printed nothing) is a\n"
    "\"warning:\" line of the finding, on stdout (JSON: \"warnings\"); a file that could\n"
    "not be opened or a line that could not be read is a FILE[:LINE]: line on stderr.\n"
    "Exit status: 0 read (some lines perhaps not: said as above),\n"
    "2 nothing could be read, the record is larger than the reader holds (said with\n"
    "where), or bad options.\n",
    NULL,
    NULL};

int cli_nccl_read(struct rec_log *L, const char *path)
{
    char err[200];
    int n = rec_read_file(L, path, err, sizeof err);
    if (n < 0) rec_note_error(L, "%s: %s", path, err); /* said with the others, no line */
    return n;
}

int cli_ring_order_from(const char *arg, int *ring, int *n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", arg);
    long chan = 0;
    char *colon = strrchr(path, ':');
    if (colon && colon[1]) { /* LOG:CHANNEL, when what follows the last ':' is a number */
        char *end;
        long v = strtol(colon + 1, &end, 10);
        if (*end == '\0' && v >= 0) {
            if (v >= REC_MAX_CHANNELS)
                return cli_usage_error("--ring-order-from %s: channel %ld: must be 0..%d", arg,
                                       v, REC_MAX_CHANNELS - 1);
            chan = v;
            *colon = '\0';
        }
    }
    struct rec_log *L = rec_new();
    char err[200];
    int got = rec_read_file(L, path, err, sizeof err);
    rec_finish(L);
    int rc = 0;
    /* the ring of one communicator, the largest (recview.h), not the first of any */
    struct rec_view mv;
    rec_view_make(L, rec_main_comm(L), &mv);
    const struct rec_ring *g = &mv.v.rings[chan];
    if (got < 0)
        rc = cli_usage_error("--ring-order-from %s: %s", arg, err);
    else if (!g->order)
        rc = cli_usage_error("--ring-order-from %s: %s has no ring of channel %ld", arg, path,
                             chan);
    else if (g->n > CV_MAX_RANKS)
        rc = cli_usage_error("--ring-order-from %s: channel %ld's ring has %d ranks; collviz "
                             "runs at most %d",
                             arg, chan, g->n, CV_MAX_RANKS);
    else {
        memcpy(ring, g->order, (size_t)g->n * sizeof *ring);
        *n = g->n;
    }
    rec_view_free(&mv);
    rec_free(L);
    return rc;
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void json_num_or_null(cJSON *o, const char *key, double v, int digits)
{
    if (isnan(v))
        cli_json_null(o, key);
    else
        cli_json_real(o, key, v, digits);
}

static void json_meas(cJSON *row, const char *key, const struct rec_meas *m)
{
    cJSON *o = cli_json_add_object(row, key);
    cli_json_real(o, "time_us", m->time_us, 8);
    cli_json_real(o, "algbw", m->algbw, 8);
    cli_json_real(o, "busbw", m->busbw, 8);
    json_num_or_null(o, "wrong", m->wrong, 15);
    json_num_or_null(o, "error", m->error, 8);
}

/* The rings and trees of L (a record, or one communicator's view) under these keys. */
static void json_rings_trees(cJSON *root, const struct rec_log *L, const char *rings_key,
                             const char *trees_key)
{
    cJSON *rings = cli_json_add_object(root, rings_key);
    cJSON *trees = cli_json_add_object(root, trees_key);
    char key[16];
    for (int c = 0; c < REC_MAX_CHANNELS; c++) {
        snprintf(key, sizeof key, "%d", c);
        const struct rec_ring *g = &L->rings[c];
        if (g->order) {
            cJSON *a = cli_json_add_array(rings, key);
            for (int i = 0; i < g->n; i++)
                cli_json_num(a, NULL, g->order[i]);
        }
        const struct rec_tree *t = &L->trees[c];
        if (!t->n) continue;
        cJSON *o = cli_json_add_object(trees, key);
        for (int r = 0; r < t->n; r++) {
            if (!t->node[r].set) continue;
            char rk[16];
            snprintf(rk, sizeof rk, "%d", r);
            cJSON *n = cli_json_add_object(o, rk);
            cli_json_num(n, "up", t->node[r].up);
            cJSON *d = cli_json_add_array(n, "down");
            for (int i = 0; i < t->node[r].ndown; i++)
                cli_json_num(d, NULL, t->node[r].down[i]);
        }
    }
}

static void json_links(cJSON *root, const struct rec_log *L)
{
    cJSON *links = cli_json_add_array(root, "links");
    for (int i = 0; i < L->nlinks; i++) {
        const struct rec_link *k = &L->links[i];
        cJSON *o = cli_json_add_object(links, NULL);
        cli_json_num(o, "channel", k->channel);
        cli_json_num(o, "from", k->from);
        cli_json_num(o, "to", k->to);
        cli_json_str(o, "via", k->via);
        cli_json_str(o, "class", rec_class_name(k->cls));
    }
}

/* "fit": the α-β model fitted to the test's out-of-place times (recfit.h: the path of
 * `model --fit`), or null with "fit_error" saying why there is none. */
static void json_fit(cJSON *o, const struct rec_log *L, const struct rec_test *t)
{
    struct rec_fit fit;
    rec_fit_test(L, t, false, &fit);
    if (!fit.ok) {
        cli_json_null(o, "fit");
        cli_json_str(o, "fit_error", fit.why);
        return;
    }
    cJSON *f = cli_json_add_object(o, "fit");
    cli_json_str(f, "source", "model: alpha-beta fit of the measured out-of-place rows");
    cli_json_str(f, "algo", algo_name(fit.algo));
    cli_json_num(f, "ranks", fit.nranks);
    cli_json_num(f, "rows", fit.nrows);
    cli_json_num(f, "rows_skipped", fit.skipped);
    cli_json_real(f, "alpha_us", fit.f.alpha_s * 1e6, 8);
    if (fit.f.inv_beta > 0)
        cli_json_real(f, "beta_gbps", fit.f.beta_Bps / 1e9, 8);
    else
        cli_json_null(f, "beta_gbps");
    cli_json_real(f, "r2", fit.f.r2, 8);
    cli_json_real(f, "rel_rms", fit.f.rel_rms, 8);
    cJSON_AddBoolToObject(f, "physical", fit.f.physical);
    cli_json_null(o, "fit_error");
}

static void json_tests(cJSON *root, const struct rec_log *L)
{
    cJSON *tests = cli_json_add_array(root, "tests");
    for (int i = 0; i < L->ntests; i++) {
        const struct rec_test *t = &L->tests[i];
        cJSON *o = cli_json_add_object(tests, NULL);
        cli_json_str(o, "collective", t->collective[0] ? t->collective : NULL);
        cli_json_str(o, "type", t->type[0] ? t->type : NULL);
        cli_json_str(o, "redop", t->redop[0] ? t->redop : NULL);
        cJSON_AddBoolToObject(o, "one_rank_runs", t->one_rank);
        cJSON *rows = cli_json_add_array(o, "rows");
        for (int r = 0; r < t->nrows; r++) {
            cJSON *row = cli_json_add_object(rows, NULL);
            cli_json_num(row, "size", t->rows[r].size);
            cli_json_num(row, "count", t->rows[r].count);
            json_meas(row, "oop", &t->rows[r].oop);
            json_meas(row, "ip", &t->rows[r].ip);
        }
        json_num_or_null(o, "avg_busbw", t->avg_busbw, 8);
        json_fit(o, L, t);
    }
}

static void json_int_or_null(cJSON *o, const char *key, int v)
{
    if (v >= 0)
        cli_json_num(o, key, v);
    else
        cli_json_null(o, key);
}

/* A view's ranks (records/recview.h): each rank some line named, with its host (its own
 * process's, or a P2P/SHM peer's: one host), device, bus id and GPU as the record says;
 * the same for the record's one picture and each communicator's, as the screen draws it. */
static void json_ranks(cJSON *o, const char *key, const struct rec_log *V)
{
    cJSON *ranks = cli_json_add_array(o, key);
    for (int r = 0; r <= V->maxrank && r < V->rank_slots; r++) {
        const struct rec_rank *k = &V->ranks[r];
        if (!k->known) continue;
        cJSON *x = cli_json_add_object(ranks, NULL);
        cli_json_num(x, "rank", r);
        cli_json_str(x, "host", k->host[0] ? k->host : NULL);
        if (k->device >= 0)
            cli_json_num(x, "device", k->device);
        else
            cli_json_null(x, "device");
        cli_json_str(x, "busid", k->busid[0] ? k->busid : NULL);
        cli_json_str(x, "gpu", k->gpu[0] ? k->gpu : NULL);
        int m = rec_rank_machine(V, r);
        if (m > 0) cli_json_num(x, "machine", m);
    }
}

/* "communicators": each as the text shows it (records/reccomm.h). */
static void json_comms(cJSON *root, const struct rec_log *L)
{
    cJSON *a = cli_json_add_array(root, "communicators");
    for (int c = 0; c < L->ncomms; c++) {
        const struct rec_facts *f = &L->comms[c];
        cJSON *o = cli_json_add_object(a, NULL);
        cli_json_str(o, "id", f->id[0] ? f->id : NULL);
        json_int_or_null(o, "nranks", f->nranks);
        json_int_or_null(o, "nnodes", f->nnodes);
        cJSON *h = cli_json_add_array(o, "hosts");
        for (int i = 0; i < f->nhosts; i++)
            cli_json_str(h, NULL, rec_host_name(L, f->hosts[i]));
        cJSON *r = cli_json_add_array(o, "ranks_seen");
        for (int k = 0; k < f->seen_cap * 8; k++)
            if (rec_facts_has(f, k)) cli_json_num(r, NULL, k);
        int nr = rec_facts_nrings(f);
        json_int_or_null(o, "rings", nr > 0 ? nr : -1);
        json_int_or_null(o, "channels", f->channels);
        cJSON_AddBoolToObject(o, "trees", f->trees);
        cJSON *t = cli_json_add_array(o, "transports");
        for (int i = 0; i < f->ntransports; i++)
            cli_json_str(t, NULL, f->transports[i]);
        cJSON *fe = cli_json_add_array(o, "features");
        if (f->features & REC_FEAT_GDRDMA) cli_json_str(fe, NULL, "gdrdma");
        if (f->features & REC_FEAT_PXN) cli_json_str(fe, NULL, "pxn");
        if (f->features & REC_FEAT_NVLS) cli_json_str(fe, NULL, "nvls");
        /* its own rings, trees and links (records/recview.h) */
        struct rec_view w;
        rec_view_make(L, c, &w);
        json_ranks(o, "ranks", &w.v);
        json_rings_trees(o, &w.v, "ring_orders", "tree_nodes");
        json_links(o, &w.v);
        cJSON_AddBoolToObject(o, "rings_from_links", rec_rings_from_links(L, c));
        rec_view_free(&w);
    }
}

/* "chose": what NCCL chose, a sentence per collective (records/recsay.h). */
static void json_chose(cJSON *o, const struct rec_tuning *T)
{
    char fn[16][24], say[16][REC_SAY_LEN];
    int nsay = rec_say_tuning(T, fn, say, 16);
    cJSON *chose = cli_json_add_array(o, "chose");
    for (int i = 0; i < nsay; i++) {
        cJSON *x = cli_json_add_object(chose, NULL);
        cli_json_str(x, "function", fn[i][0] ? fn[i] : NULL);
        cli_json_str(x, "sentence", say[i]);
    }
}

static void json_tuning(cJSON *root, const struct rec_log *L)
{
    const struct rec_tuning *T = &L->tuning;
    if (!T->any) {
        cli_json_null(root, "tuning");
        return;
    }
    cJSON *o = cli_json_add_object(root, "tuning");
    int n = T->ncols < 0 ? -T->ncols : T->ncols;
    cJSON *al = cli_json_add_array(o, "algorithms");
    cJSON *pr = cli_json_add_array(o, "protocols");
    for (int i = 0; i < n; i++) { /* each name once, in column order */
        bool a = T->algos[i][0] != '\0', p = T->ncols > 0 && T->protos[i][0] != '\0';
        for (int j = 0; j < i; j++) {
            if (strcmp(T->algos[j], T->algos[i]) == 0) a = false;
            if (strcmp(T->protos[j], T->protos[i]) == 0) p = false;
        }
        if (a) cli_json_str(al, NULL, T->algos[i]);
        if (p) cli_json_str(pr, NULL, T->protos[i]);
    }
    cJSON *th = cli_json_add_array(o, "max_nthreads");
    for (int i = 0; i < T->nnthreads; i++)
        cli_json_num(th, NULL, T->nthreads[i]);
    cJSON *fn = cli_json_add_object(o, "functions");
    for (int i = 0; i < T->nfns; i++) {
        cJSON *cells = cli_json_add_array(fn, T->fns[i].name);
        for (int k = 0; k < T->fns[i].ncell; k++) {
            cJSON *c = cJSON_CreateArray();
            cJSON_AddItemToArray(c, cJSON_CreateNumber(T->fns[i].cell[k][0]));
            cJSON_AddItemToArray(c, cJSON_CreateNumber(T->fns[i].cell[k][1]));
            cJSON_AddItemToArray(cells, c);
        }
    }
    cJSON *ch = cli_json_add_array(o, "choices");
    for (int i = 0; i < T->nchoices; i++) {
        const struct rec_tune_choice *c = &T->choices[i];
        cJSON *x = cli_json_add_object(ch, NULL);
        cli_json_str(x, "function", c->fn[0] ? c->fn : NULL);
        cli_json_num(x, "bytes", c->bytes);
        cli_json_str(x, "algorithm", rec_tune_algo(c->algo));
        cli_json_str(x, "protocol", rec_tune_proto(c->proto));
        json_num_or_null(x, "time_us", c->time_us, 12);
    }
    cli_json_num(o, "choices_dropped", T->choices_dropped);
    json_chose(o, T);
    cJSON *m = cli_json_add_object(o, "enabled_matrix");
    for (int i = 0; i < T->nmrows; i++) {
        cJSON *x = cli_json_add_object(m, T->mrows[i].name);
        cJSON *p = cli_json_add_array(x, "protocols");
        cJSON *a = cli_json_add_array(x, "algorithms");
        for (int k = 0; k < T->nmcols; k++)
            if (T->mrows[i].on >> k & 1)
                cli_json_str(k < T->mproto_cols ? p : a, NULL, T->mcols[k]);
    }
}

/* "job": what the job's framework says of it and its communicators grouped in words. */
static void json_job(cJSON *root, const struct rec_log *L)
{
    struct rec_jobsay J;
    rec_say_job(L, &J);
    cJSON *o = cli_json_add_object(root, "job");
    json_int_or_null(o, "world_size", J.world);
    cli_json_str(o, "world_size_from", J.world_from);
    json_int_or_null(o, "processes", J.procs);
    cJSON *g = cli_json_add_array(o, "groups");
    for (int i = 0; i < J.ngroups; i++) {
        const struct rec_group *r = &J.groups[i];
        cJSON *x = cli_json_add_object(g, NULL);
        cli_json_str(x, "role", r->role);
        json_int_or_null(x, "nranks", r->nranks);
        cli_json_str(x, "span", rec_span_name(r->span));
        json_int_or_null(x, "nnodes", r->span == REC_SPAN_ONE ? 1 : r->nnodes);
        cli_json_num(x, "seen", r->seen);
        json_int_or_null(x, "expected", r->expected);
    }
    cli_json_str(o, "summary", J.sentence[0] ? J.sentence : NULL);
}

static void json_graph(cJSON *root, const struct rec_log *L)
{
    const struct rec_graph *g = &L->graph;
    if (!g->npatterns && !g->nvls_heads) {
        cli_json_null(root, "graph");
        return;
    }
    cJSON *o = cli_json_add_object(root, "graph");
    cJSON *a = cli_json_add_array(o, "patterns");
    for (int i = 0; i < g->npatterns; i++) {
        const struct rec_pattern *p = &g->patterns[i];
        cJSON *x = cli_json_add_object(a, NULL);
        cli_json_num(x, "pattern", p->pattern);
        cli_json_num(x, "crossnic", p->crossnic);
        cli_json_num(x, "nchannels", p->nchannels);
        cli_json_real(x, "bw_intra", p->bw_intra, 8);
        cli_json_real(x, "bw_inter", p->bw_inter, 8);
        cli_json_str(x, "type_intra", p->type_intra);
        cli_json_str(x, "type_inter", p->type_inter);
        cli_json_num(x, "same_channels", p->same_channels);
        cli_json_num(x, "channel_lines", p->channel_lines);
    }
    cli_json_num(o, "nvls_heads", g->nvls_heads);
}

/* The warnings, then what could not be read (the lines said on stderr, "not_read"): the JSON
 * alone tells all that the text and stderr tell. */
static void json_warnings(cJSON *root, const struct rec_log *L)
{
    cJSON *w = cli_json_add_array(root, "warnings");
    for (int i = 0; i < L->nwarnings; i++) {
        cJSON *o = cli_json_add_object(w, NULL);
        cli_json_str(o, "code", rec_wcode_name(L->wcodes[i]));
        cli_json_str(o, "message", L->warnings[i]);
    }
    for (int i = 0; i < L->nerrors; i++) {
        cJSON *o = cli_json_add_object(w, NULL);
        cli_json_str(o, "code", "not_read");
        cli_json_str(o, "message", L->errors[i]);
    }
    char more[64];
    if (L->errors_dropped) {
        snprintf(more, sizeof more, "%d more errors not shown", L->errors_dropped);
        cJSON *o = cli_json_add_object(w, NULL);
        cli_json_str(o, "code", "not_read");
        cli_json_str(o, "message", more);
    }
    if (L->warnings_dropped) {
        snprintf(more, sizeof more, "%d more warnings not shown", L->warnings_dropped);
        cJSON *o = cli_json_add_object(w, NULL);
        cli_json_str(o, "code", "other");
        cli_json_str(o, "message", more);
    }
}

static cJSON *nccl_json(const struct rec_log *L)
{
    cJSON *root = cli_json_object();
    cli_json_str(root, "library", L->library[0] ? L->library : NULL);
    cli_json_str(root, "version", L->version[0] ? L->version : NULL);
    cli_json_str(root, "launcher", rec_launcher_name(L->launcher));
    cJSON *px = cli_json_add_array(root, "prefixes");
    for (int b = 0; b < REC_PFX_N; b++)
        if (L->prefixes >> b & 1) cli_json_str(px, NULL, rec_prefix_name(b));
    json_job(root, L);
    json_comms(root, L);
    json_tuning(root, L);
    json_graph(root, L);
    cli_json_str(root, "nccl_version", L->version[0] ? L->version : NULL);
    /* a count the record proves, else null and the floor it shows: as the text says it */
    int nranks, nnodes;
    bool floor;
    rec_size(L, &nranks, &floor, &nnodes);
    if (nranks >= 0 && !floor)
        cli_json_num(root, "nranks", nranks);
    else
        cli_json_null(root, "nranks");
    if (nranks >= 0 && floor) cli_json_num(root, "nranks_at_least", nranks);
    if (nnodes >= 0)
        cli_json_num(root, "nnodes", nnodes);
    else
        cli_json_null(root, "nnodes");
    cJSON *h = cli_json_add_array(root, "hosts");
    for (int i = 0; i < L->nhostnames; i++)
        if (L->host_lines[i] > 0 || rec_host_in_tests(L, i))
            cli_json_str(h, NULL, L->hostnames[i]);
    /* one communicator's ranks, rings and trees (recview.h: the largest), never a mix */
    int main_comm = rec_main_comm(L);
    struct rec_view mv;
    rec_view_make(L, main_comm, &mv);
    json_ranks(root, "ranks", &mv.v);
    json_rings_trees(root, &mv.v, "rings", "trees");
    rec_view_free(&mv);
    json_int_or_null(root, "rings_of", main_comm);
    json_links(root, L);
    json_tests(root, L);
    json_warnings(root, L);
    return root;
}

/* ---- text ----------------------------------------------------------------------------- */

/* "node01[0 3 1 2] -> node02[4 7 5 6] -> back": the ring as runs of one host's ranks. */
/* Decimal v at b (v >= 0 or -1..); returns the end. A job's trees are a few MB of numbers:
 * printf's parsing of its format for each one was most of the time spent printing them. */
static char *put_int(char *b, int v)
{
    char t[12];
    int n = 0;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do
        t[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0) *b++ = '-';
    while (n)
        *b++ = t[--n];
    return b;
}

static void text_said(const char *head, const char *words);

/* A channel's head ("  channel  5:" or "  channels 0..15:"), its words to follow at 80
 * columns, continued under the first. */
static void text_channel_head(struct cli_words *w, int c, int last)
{
    char head[40];
    if (last > c)
        snprintf(head, sizeof head, "  channels %d..%d:", c, last);
    else
        snprintf(head, sizeof head, "  channel %2d:", c);
    cli_words_start(w, head, 0);
    w->indent = 13;
}

static void text_ring(const struct rec_log *L, int c, int last)
{
    const struct rec_ring *g = &L->rings[c];
    struct cli_words w;
    char buf[96];
    text_channel_head(&w, c, last);
    for (int i = 0; i < g->n; i++) {
        *put_int(buf, g->order[i]) = '\0';
        cli_words_add(&w, buf);
    }
    cli_words_end(&w);
    /* host[ranks] -> host[ranks] ...: a word per rank, the host before its first */
    cli_words_start(&w, "            ", 0);
    w.indent = 13;
    buf[0] = '\0';
    char node[2][96]; /* this rank's node and the one before (records.h: rec_node_name) */
    bool any = false;
    for (int i = 0; i < g->n; i++) {
        const char *h = rec_node_name(L, g->order[i], node[i & 1], sizeof node[i & 1]);
        if (h != node[i & 1]) snprintf(node[i & 1], sizeof node[i & 1], "%s", h[0] ? h : "?");
        h = node[i & 1];
        bool new_host = !any || strcmp(node[(i + 1) & 1], h) != 0;
        if (buf[0]) {
            if (new_host) strcat(buf, "]");
            cli_words_add(&w, buf);
            if (new_host) cli_words_add(&w, "->");
        }
        char *b = buf;
        if (new_host) b += snprintf(buf, sizeof buf, "%.78s[", h);
        *put_int(b, g->order[i]) = '\0';
        any = true;
    }
    strcat(buf, "]");
    cli_words_add(&w, buf);
    int x = rec_ring_crossings(L, c);
    const char *tail[] = {" (node", "crossings", "unknown:", "a",   "rank's", "host",
                          "is",     "not",       "in",       "the", "log)"};
    if (x < 0) {
        for (size_t i = 0; i < sizeof tail / sizeof *tail; i++)
            cli_words_add(&w, tail[i]);
    } else {
        snprintf(buf, sizeof buf, "%d node crossing%s", x, x == 1 ? "" : "s");
        const char *back[] = {"->", "back:", buf};
        for (size_t i = 0; i < sizeof back / sizeof *back; i++)
            cli_words_add(&w, back[i]);
    }
    cli_words_end(&w);
}

static bool tree_same(const struct rec_tree *a, const struct rec_tree *b)
{
    if (a->n != b->n) return false;
    for (int r = 0; r < a->n; r++) {
        const struct rec_tnode *x = &a->node[r], *y = &b->node[r];
        if (x->set != y->set) return false;
        if (x->set && (x->up != y->up || x->ndown != y->ndown ||
                       memcmp(x->down, y->down, (size_t)x->ndown * sizeof x->down[0]) != 0))
            return false;
    }
    return true;
}

static void text_trees(const struct rec_log *L)
{
    bool any = false;
    char buf[160];
    for (int c = 0; c < REC_MAX_CHANNELS; c++) {
        const struct rec_tree *t = &L->trees[c];
        if (!t->n) continue;
        if (!any) printf("trees (rank -> its children; up -1 is the root):\n");
        any = true;
        int last = c; /* channels in a row with the same tree: one entry */
        while (last + 1 < REC_MAX_CHANNELS && tree_same(&L->trees[last + 1], t))
            last++;
        struct cli_words w;
        text_channel_head(&w, c, last);
        for (int r = 0; r < t->n; r++) {
            const struct rec_tnode *n = &t->node[r];
            if (!n->set) continue;
            char *b = buf;
            b = put_int(b, r);
            if (n->up < 0) memcpy(b, "(root)", 6), b += 6;
            memcpy(b, "->[", 3), b += 3;
            for (int i = 0; i < n->ndown && i < REC_MAX_TREE_DOWN; i++) {
                if (i) *b++ = ',';
                b = put_int(b, n->down[i]);
            }
            *b++ = ']';
            *b = '\0';
            cli_words_add(&w, buf);
        }
        cli_words_end(&w);
        c = last;
    }
}

static void text_links(const struct rec_log *L)
{
    if (!L->nlinks) return;
    printf("links (%d, by transport):\n", L->nlinks);
    bool *done = xcalloc((size_t)L->nlinks, sizeof *done);
    for (int i = 0; i < L->nlinks; i++) {
        if (done[i]) continue;
        int n = 0;
        for (int j = i; j < L->nlinks; j++)
            if (!done[j] && strcmp(L->links[j].via, L->links[i].via) == 0 &&
                L->links[j].cls == L->links[i].cls)
                done[j] = true, n++;
        printf("  %-32s %-10s %d\n", L->links[i].via, rec_class_name(L->links[i].cls), n);
    }
    free(done);
}

/* The α-β fit of the test's out-of-place times, labelled as the model it is. */
static void text_test_fit(const struct rec_log *L, const struct rec_test *t)
{
    struct rec_fit fit;
    rec_fit_test(L, t, false, &fit);
    char said[400];
    if (!fit.ok) {
        snprintf(said, sizeof said, "fit: none (%s)", fit.why);
        text_said(NULL, said);
        return;
    }
    snprintf(said, sizeof said,
             "fit (model: t = steps*alpha + port bytes/beta, %s plan on %d ranks, least "
             "squares over %d measured out-of-place rows%s):",
             algo_name(fit.algo), fit.nranks, fit.nrows,
             fit.skipped ? ", smaller ones left out" : "");
    text_said(NULL, said);
    printf("    alpha %.4g us per step, ", fit.f.alpha_s * 1e6);
    if (fit.f.inv_beta > 0)
        printf("beta %.4g GB/s", fit.f.beta_Bps / 1e9);
    else
        printf("beta none (1/beta %.3g s/B <= 0)", fit.f.inv_beta);
    printf(", R^2 %.4f%s\n", fit.f.r2, fit.f.physical ? "" : "  (not physical)");
}

static void text_tests(const struct rec_log *L)
{
    for (int i = 0; i < L->ntests; i++) {
        const struct rec_test *t = &L->tests[i];
        char head[120], rows[80];
        /* ", float sum", ", float" or nothing: a type or redop the table lacks is not said */
        snprintf(head, sizeof head, "nccl-tests %s%s%s%s%s",
                 t->collective[0] ? t->collective : "(collective not named)",
                 t->type[0] || t->redop[0] ? ", " : "", t->type,
                 t->type[0] && t->redop[0] ? " " : "", t->redop);
        snprintf(rows, sizeof rows, "%d rows (%s)%s", t->nrows,
                 t->old_header ? "old table: error is the largest error" : "#wrong",
                 t->one_rank ? " of 1-rank runs" : "");
        text_said(head, rows);
        printf("  %12s %10s %8s %8s %10s %8s %8s\n", "size (B)", "oop us", "algbw", "busbw",
               "ip us", "algbw", "busbw");
        for (int r = 0; r < t->nrows; r++) {
            const struct rec_row *w = &t->rows[r];
            printf("  %12.0f %10.2f %8.2f %8.2f %10.2f %8.2f %8.2f\n", w->size, w->oop.time_us,
                   w->oop.algbw, w->oop.busbw, w->ip.time_us, w->ip.algbw, w->ip.busbw);
        }
        if (!isnan(t->avg_busbw)) printf("  avg busbw %.4g GB/s\n", t->avg_busbw);
        text_test_fit(L, t);
    }
}

/* A sentence at 80 columns: "head: " then the words, continued two spaces in; with head
 * NULL, an item of a list: two spaces in, continued four. */
static void text_said(const char *head, const char *words)
{
    char buf[1400], lines[16][256];
    snprintf(buf, sizeof buf, "%s%s%s", head ? head : "", head ? ": " : "", words);
    int in = head ? 0 : 2;
    int n = text_wrap(buf, 78 - in, lines, 16, false);
    for (int i = 0; i < n; i++)
        printf("%*s%s\n", in + (i ? 2 : 0), "", lines[i]);
}

/* Several communicators: each on its line (records/reccomm.h), since their rank numbers
 * overlap and one list of ranks, rings or trees would mix them. */
static void text_comms(const struct rec_log *L)
{
    printf("communicators (%d; each has its own rank numbers):\n", L->ncomms);
    for (int c = 0; c < L->ncomms; c++) {
        const struct rec_facts *f = &L->comms[c];
        char line[512] = "";
        size_t n = 0;
#define ADD(...)                                                                               \
    n += (size_t)snprintf(line + n, n < sizeof line ? sizeof line - n : 0, __VA_ARGS__)
        ADD("%s", f->id[0] ? f->id : "(no commId)");
        if (f->nranks >= 0) ADD(", %d rank%s", f->nranks, f->nranks == 1 ? "" : "s");
        if (f->nnodes >= 0) ADD(" on %d node%s", f->nnodes, f->nnodes == 1 ? "" : "s");
        for (int i = 0; i < f->nhosts && n < sizeof line; i++)
            ADD("%s%s", i ? " " : " (", rec_host_name(L, f->hosts[i]));
        if (f->nhosts) ADD(")");
        int nr = rec_facts_nrings(f);
        if (nr > 0) ADD(", %d ring%s", nr, nr == 1 ? "" : "s");
        if (f->trees) ADD(", trees");
        for (int i = 0; i < f->ntransports && n < sizeof line; i++)
            ADD("%s%s", i ? " " : ", ", f->transports[i]);
        if (rec_rings_from_links(L, c)) ADD(", rings read from its link lines");
#undef ADD
        text_said(NULL, line);
    }
    text_said(NULL, "(one list of ranks, rings and trees would mix them: --format json gives "
                    "each communicator's)");
}

/* Every host that printed a line or that nccl-tests' device list names, whether or not a
 * rank on it is known (the JSON's "hosts"). */
static void text_hosts(const struct rec_log *L)
{
    struct cli_words w;
    bool any = false;
    for (int i = 0; i < L->nhostnames; i++) {
        if (L->host_lines[i] <= 0 && !rec_host_in_tests(L, i)) continue;
        if (!any) cli_words_start(&w, "hosts:", 0);
        any = true;
        cli_words_add(&w, L->hostnames[i]);
    }
    if (any) cli_words_end(&w);
}

/* The ranks, rings and trees of a record of one communicator. */
static void text_one_comm(const struct rec_log *L)
{
    for (int r = 0; r <= L->maxrank; r++) {
        const struct rec_rank *k = &L->ranks[r];
        if (!k->known || (!k->host[0] && k->device < 0 && !k->busid[0])) continue;
        /* within 80 columns: what follows a long host name goes on to the next line */
        char head[112], word[96], node[96];
        const char *host = rec_node_name(L, r, node, sizeof node);
        snprintf(head, sizeof head, "rank %4d  %-20s", r, host[0] ? host : "?");
        struct cli_words w;
        cli_words_start(&w, head, 2);
        w.any = true;  /* the first word may wrap too */
        w.indent = 13; /* under the host */
        if (k->device >= 0) {
            snprintf(word, sizeof word, "device %d", k->device);
            cli_words_add(&w, word);
        }
        if (k->busid[0]) {
            snprintf(word, sizeof word, "bus %s", k->busid);
            cli_words_add(&w, word);
        }
        if (k->gpu[0]) cli_words_add(&w, k->gpu);
        cli_words_end(&w);
    }
    bool any = false;
    for (int c = 0; c < REC_MAX_CHANNELS; c++) {
        const struct rec_ring *g = &L->rings[c];
        if (!g->order) continue;
        if (!any) printf("rings (NCCL's order; host[ranks] in that order):\n");
        any = true;
        int last = c; /* channels in a row with the same ring: one entry */
        while (last + 1 < REC_MAX_CHANNELS && L->rings[last + 1].order &&
               L->rings[last + 1].n == g->n &&
               memcmp(L->rings[last + 1].order, g->order, (size_t)g->n * sizeof(int)) == 0)
            last++;
        text_ring(L, c, last);
        c = last;
    }
    text_trees(L);
}

/* The warnings, one per kind of message: the same message at several lines of a file is
 * said once with its lines ("... (lines 10, 11, 165 and 20 more)"). */
static void text_warnings(const struct rec_log *L)
{
    bool *done = xcalloc((size_t)L->nwarnings + 1, sizeof *done);
    for (int i = 0; i < L->nwarnings; i++) {
        if (done[i]) continue;
        /* "file:line: message": the message after the ": " that ends the line number */
        const char *w = L->warnings[i], *c1 = strstr(w, ": ");
        const char *m = c1 && c1 > w && isdigit((unsigned char)c1[-1]) ? c1 + 2 : NULL;
        const char *c0 = m ? memrchr(w, ':', (size_t)(c1 - w)) : NULL;
        if (!m || !c0) {
            text_said("warning", w);
            continue;
        }
        size_t flen = (size_t)(c0 - w), k = 0;
        char at[200] = "";
        int n = 0;
        for (int j = i; j < L->nwarnings; j++) {
            const char *v = L->warnings[j], *d1 = strstr(v, ": ");
            if (done[j] || !d1 || strncmp(v, w, flen + 1) != 0 || strcmp(d1 + 2, m) != 0)
                continue;
            done[j] = true;
            if (n < 6 && k < sizeof at)
                k += (size_t)snprintf(at + k, sizeof at - k, "%s%.*s", n ? ", " : "",
                                      (int)(d1 - (v + flen + 1)), v + flen + 1);
            n++;
        }
        char msg[1400];
        snprintf(msg, sizeof msg, "%.*s: %s (line%s %s%s)", (int)flen, w, m, n > 1 ? "s" : "",
                 at, n > 6 ? " and more" : "");
        if (n > 6) {
            size_t e = strlen(msg) - 1;
            snprintf(msg + e, sizeof msg - e, ": %d in all)", n);
        }
        text_said("warning", msg);
    }
    free(done);
}

/* NCCL_DEBUG_SUBSYS=GRAPH: each pattern NCCL's search settled on, as the JSON's "graph"
 * gives it; alike lines of several processes once, with their count. Pattern numbers are
 * NCCL's (its graph.h: NCCL_TOPO_PATTERN_*). */
static void text_graph(const struct rec_graph *g)
{
    static const char *const names[] = {"",     "tree", "split tree",    "tree",
                                        "ring", "NVLS", "CollNet direct"};
    if (!g->npatterns && !g->nvls_heads) return;
    printf("graph search (NCCL_DEBUG_SUBSYS=GRAPH):\n");
    for (int i = 0; i < g->npatterns; i++) {
        const struct rec_pattern *p = &g->patterns[i];
        int same = 1;
        bool before = false;
        for (int k = 0; k < g->npatterns; k++) {
            const struct rec_pattern *q = &g->patterns[k];
            bool alike = q->pattern == p->pattern && q->nchannels == p->nchannels &&
                         q->crossnic == p->crossnic && q->same_channels == p->same_channels &&
                         q->bw_intra == p->bw_intra && q->bw_inter == p->bw_inter &&
                         strcmp(q->type_intra, p->type_intra) == 0 &&
                         strcmp(q->type_inter, p->type_inter) == 0;
            if (alike && k < i) before = true;
            if (alike && k > i) same++;
        }
        if (before) continue;
        char line[256], times[32] = "";
        if (same > 1) snprintf(times, sizeof times, " (%d lines alike)", same);
        snprintf(line, sizeof line,
                 "pattern %d%s%s%s: %d channel%s at %g/%g GB/s (intra/inter), paths %s/%s, "
                 "crossNic %d, sameChannels %d%s",
                 p->pattern, p->pattern > 0 && p->pattern <= 6 ? " (" : "",
                 p->pattern > 0 && p->pattern <= 6 ? names[p->pattern] : "",
                 p->pattern > 0 && p->pattern <= 6 ? ")" : "", p->nchannels,
                 p->nchannels == 1 ? "" : "s", p->bw_intra, p->bw_inter, p->type_intra,
                 p->type_inter, p->crossnic, p->same_channels, times);
        text_said(NULL, line);
    }
    if (g->nvls_heads) {
        char line[64];
        snprintf(line, sizeof line, "NVLS heads: %d lines", g->nvls_heads);
        text_said(NULL, line);
    }
}

static void nccl_text(const struct rec_log *L)
{
    /* the library as the record names it (records.h: "NCCL", "RCCL", "" when it does not) */
    char head[400];
    size_t k = (size_t)snprintf(head, sizeof head, "%s %s",
                                L->library[0] ? L->library : "library not named",
                                L->version[0] ? L->version : "(version not in the records)");
    char size[REC_SAY_LEN];
    if (L->ncomms > 1)
        cv_cat(head, sizeof head, k, ", %d communicators", L->ncomms);
    else if (rec_say_size(L, size, sizeof size)) /* as the topology screen's title says it */
        cv_cat(head, sizeof head, k, "%s%s", strncmp(size, "on ", 3) ? ", " : " ", size);
    char lines[8][256];
    int nl = text_wrap(head, 78, lines, 8, false);
    for (int i = 0; i < nl; i++)
        printf("%*s%s\n", i ? 2 : 0, "", lines[i]);
    struct rec_jobsay J;
    rec_say_job(L, &J);
    if (J.sentence[0]) text_said("job", J.sentence);
    const char *launcher = rec_launcher_name(L->launcher);
    if (launcher) printf("launcher: %s\n", launcher);
    text_hosts(L);
    char fn[16][24], say[16][REC_SAY_LEN];
    int nsay = rec_say_tuning(&L->tuning, fn, say, 16);
    for (int i = 0; i < nsay; i++)
        text_said(fn[i][0] ? fn[i] : "tuning (collective not named)", say[i]);
    text_graph(&L->graph);
    if (L->ncomms > 1)
        text_comms(L);
    else
        text_one_comm(L);
    text_links(L);
    text_tests(L);
    text_warnings(L);
}

/* A record of nccl-tests rows only, none of which could be read: not shown as a record of
 * tables without rows (each refused line is on stderr already). */
static bool nccl_rows_lost(const struct rec_log *L)
{
    int rows = 0;
    for (int i = 0; i < L->ntests; i++)
        rows += L->tests[i].nrows;
    if (rows > 0 || L->rows_refused == 0 || L->nccl_lines) return false;
    cv_eprintf("collviz: nccl: none of the %d lines of nccl-tests rows could be read (the "
               "lines above say why): no table is shown\n",
               L->rows_refused);
    return true;
}

static void nccl_print_errors(const struct rec_log *L)
{
    for (int i = 0; i < L->nerrors; i++)
        cv_eprintf("%s\n", L->errors[i]);
    if (L->errors_dropped) cv_eprintf("(%d more errors not shown)\n", L->errors_dropped);
}

/* Two files: each read alone; runs of nccl-tests both (or --compare) are compared. -1 when
 * they are to be read as one record instead, else the exit status. */
static int nccl_two(const struct nccl_opts *o, const char *pa, const char *pb)
{
    struct rec_log *A = rec_new(), *B = rec_new();
    char ea[200], eb[200]; /* said only when comparing: a merge reads the files again */
    int na = rec_read_file(A, pa, ea, sizeof ea), nb = rec_read_file(B, pb, eb, sizeof eb);
    rec_finish(A);
    rec_finish(B);
    int rc = -1;
    if (o->compare || (cli_nccl_is_run(A) && cli_nccl_is_run(B))) {
        if (na < 0 || nb < 0) {
            rc = cli_usage_error("nccl: %s: %s", na < 0 ? pa : pb, na < 0 ? ea : eb);
        } else {
            nccl_print_errors(A);
            nccl_print_errors(B);
            rc = cli_nccl_compare(pa, A, pb, B, o->json);
        }
    }
    rec_free(A);
    rec_free(B);
    return rc;
}

int cli_nccl_main(int argc, char **argv)
{
    struct nccl_opts o = {false, false};
    int rc = opt_parse(&nccl_cmd, argc, argv, &o);
    if (rc != OPT_GO) return rc;
    if (optind >= argc) return cli_usage_error("nccl: no FILE given (try collviz nccl --help)");
    if (o.compare && argc - optind != 2)
        return cli_usage_error("nccl --compare: two files, A and B (got %d)", argc - optind);
    char why[1200];
    if (!rec_distinct_files((const char *const *)argv + optind, argc - optind, why,
                            sizeof why)) {
        cv_eprintf("collviz: nccl: %s\n", why);
        return 2;
    }
    bool copy = argc - optind == 2 && rec_same_text(argv[optind], argv[optind + 1]);
    if (copy && o.compare) {
        cv_eprintf("collviz: nccl: %s is the same record as %s: nothing to compare\n",
                   argv[optind + 1], argv[optind]);
        return 2;
    }
    /* (a copy is read once, as one record: rec_read_file says so) */
    if (argc - optind == 2 && !copy && (rc = nccl_two(&o, argv[optind], argv[optind + 1])) >= 0)
        return rc;
    if (!rec_one_job((const char *const *)argv + optind, argc - optind, why, sizeof why)) {
        cv_eprintf("collviz: nccl: %s\n", why);
        return 2;
    }
    struct rec_log *L = rec_new();
    int unopened = 0; /* files refused at open, each already named on its own line */
    for (int i = optind; i < argc; i++)
        unopened += cli_nccl_read(L, argv[i]) < 0;
    rec_finish(L);
    nccl_print_errors(L);
    if (L->too_large[0]) { /* never a partial record shown as if whole */
        cv_eprintf("collviz: nccl: %s\n", L->too_large);
        rec_free(L);
        return 2;
    }
    if (L->lines == 0 && !L->nccl_lines) {
        if (unopened < argc - optind)
            cv_eprintf("collviz: nccl: nothing could be read: no NCCL or nccl-tests lines\n");
        rec_free(L);
        return 2;
    }
    if (nccl_rows_lost(L)) {
        rec_free(L);
        return 2;
    }
    rc = 0;
    if (o.json) {
        if (cli_json_print(stdout, nccl_json(L)) != 0) rc = 1;
    } else {
        nccl_text(L);
    }
    rec_free(L);
    return rc;
}
