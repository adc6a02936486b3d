/* recsay.c - a record's facts in words (recsay.h): the job's groups of ranks and NCCL's
 * per-size choices. Only what the record says: a role (TP, PP, DP) is named only when the
 * job's framework names its ranks' roles, a count of groups is "seen" unless the world
 * size says how many there are, and a switch between two choices is placed between the
 * two sizes logged on either side of it. */
#include "records/recsay.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"
#include "records/reccomm.h"
#include "records/recfile.h"
#include "records/recfit.h"
#include "records/records.h"

const char *rec_span_name(enum rec_span s)
{
    switch (s) {
    case REC_SPAN_ONE:
        return "one-node";
    case REC_SPAN_ACROSS:
        return "across-nodes";
    case REC_SPAN_SEVERAL:
        return "several-nodes";
    default:
        return "unknown";
    }
}

static void say(char *buf, const char *fmt, ...)
{
    size_t n = strlen(buf);
    if (n + 1 >= REC_SAY_LEN) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, REC_SAY_LEN - n, fmt, ap);
    va_end(ap);
}

static bool has_net(const struct rec_facts *f)
{
    for (int i = 0; i < f->ntransports; i++)
        if (strncmp(f->transports[i], "NET/", 4) == 0) return true;
    return false;
}

static enum rec_span comm_span(const struct rec_facts *f)
{
    if (f->nnodes == 1) return REC_SPAN_ONE;
    if (f->nnodes > 1) return f->nnodes == f->nranks ? REC_SPAN_ACROSS : REC_SPAN_SEVERAL;
    return REC_SPAN_UNKNOWN;
}

/* The group of communicators of f's size and span, made when new. A communicator whose
 * nodes the record does not say joins the one group of its size whose span is known, when
 * its links agree (a network link only where that group crosses nodes). */
static struct rec_group *group_of(struct rec_jobsay *J, const struct rec_facts *f)
{
    enum rec_span sp = comm_span(f);
    struct rec_group *only = NULL;
    int nsize = 0;
    for (int i = 0; i < J->ngroups; i++) {
        struct rec_group *g = &J->groups[i];
        if (g->nranks != f->nranks) continue;
        if (g->span == sp && (sp != REC_SPAN_SEVERAL || g->nnodes == f->nnodes)) return g;
        if (g->span != REC_SPAN_UNKNOWN) only = g, nsize++;
    }
    if (sp == REC_SPAN_UNKNOWN && nsize == 1 && f->nranks > 0 &&
        (only->span != REC_SPAN_ONE || !has_net(f)))
        return only;
    if (J->ngroups == REC_SAY_GROUPS) return NULL;
    struct rec_group *g = &J->groups[J->ngroups++];
    *g = (struct rec_group){NULL, f->nranks, sp, f->nnodes, 0, -1};
    return g;
}

/* The roles' sizes: vLLM names each rank's DP, PP and TP rank, so each size is at least
 * the largest rank seen + 1 and their product is the world size. When exactly one choice of
 * sizes fits, those are the sizes; else none (a line cut or deduplicated away hides ranks,
 * so a largest rank seen is only a bound). */
static bool role_sizes(const struct rec_job *jb, int size[3])
{
    int lo[3] = {jb->tp, jb->pp, jb->dp}, found = 0, w = jb->world;
    if (w <= 0 || lo[0] < 1 || lo[1] < 1 || lo[2] < 1) return false;
    for (int t = lo[0]; t <= w; t++) {
        if (w % t) continue;
        for (int p = lo[1]; p <= w / t; p++) {
            if ((w / t) % p || w / t / p < lo[2]) continue;
            if (++found > 1) return false;
            size[0] = t, size[1] = p, size[2] = w / t / p;
        }
    }
    return found == 1;
}

/* Roles: a group whose size is one role's (and no other's) takes its name, and the world
 * size says how many such groups there are. */
static void name_roles(const struct rec_log *L, struct rec_jobsay *J)
{
    const char *name[] = {"TP", "PP", "DP"};
    int size[3];
    if (!role_sizes(&L->job, size)) return;
    for (int r = 0; r < 3; r++) {
        bool alone = size[r] >= 2;
        for (int o = 0; o < 3; o++)
            if (o != r && size[o] == size[r]) alone = false;
        if (!alone) continue;
        for (int i = 0; i < J->ngroups; i++)
            if (J->groups[i].nranks == size[r]) {
                J->groups[i].role = name[r];
                J->groups[i].expected = L->job.world / size[r];
            }
    }
}

static void span_words(const struct rec_group *g, char *buf, size_t n)
{
    int many = g->expected > 0 ? g->expected : g->seen;
    switch (g->span) {
    case REC_SPAN_ONE:
        snprintf(buf, n, "%s", many > 1 ? "one node each" : "on one node");
        break;
    case REC_SPAN_ACROSS:
        snprintf(buf, n, "across %d nodes, one rank on each", g->nnodes);
        break;
    case REC_SPAN_SEVERAL:
        snprintf(buf, n, "over %d nodes", g->nnodes);
        break;
    default:
        snprintf(buf, n, "nodes not in the record");
    }
}

static void job_sentence(struct rec_jobsay *J)
{
    char *s = J->sentence, where[48];
    s[0] = '\0';
    if (J->world > 0) say(s, "world size %d (%s says so)", J->world, J->world_from);
    if (J->procs > 0 && strcmp(J->procs_from, "srun") == 0)
        say(s, "%ssrun: %d tasks", s[0] ? "; " : "", J->procs);
    else if (J->procs > 0)
        say(s, "%smpirun -np %d", s[0] ? "; " : "", J->procs);
    for (int i = 0; i < J->ngroups; i++) {
        const struct rec_group *g = &J->groups[i];
        say(s, "%s", s[0] ? "; " : "");
        span_words(g, where, sizeof where);
        if (g->role) {
            say(s, "%s %d x %d (%s", g->role, g->nranks, g->expected, where);
            if (g->seen < g->expected) say(s, "; %d of the %d seen", g->seen, g->expected);
            say(s, ")");
            continue;
        }
        const char *what = g->seen == 1 ? " communicator" : " communicators";
        if (g->nranks > 0)
            say(s, "%d%s of %d rank%s (%s)", g->seen, what, g->nranks,
                g->nranks == 1 ? "" : "s", where);
        else
            say(s, "%d%s of a size not in the record", g->seen, what);
    }
}

void rec_say_job(const struct rec_log *L, struct rec_jobsay *J)
{
    memset(J, 0, sizeof *J);
    J->world = L->job.world;
    J->world_from = L->job.world > 0 ? L->job.world_from : NULL;
    if (J->world <= 0 && (J->world = rec_launch_ranks(L)) > 0) /* with the rows' busbw */
        J->world_from = strcmp(L->job.procs_from, "srun") == 0 ? "srun" : "mpirun -np";
    J->procs = L->job.procs;
    J->procs_from = L->job.procs_from;
    for (int c = 0; c < L->ncomms; c++) {
        const struct rec_facts *f = &L->comms[c];
        if (f->nranks < 0 && f->nnodes < 0 && !f->id[0]) continue; /* nothing to count */
        struct rec_group *g = group_of(J, f);
        if (g) g->seen++;
    }
    name_roles(L, J);
    job_sentence(J);
}

/* ---- the tuner's choices ----------------------------------------------------------- */

static void size_words(double b, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = b;
    while (u < 4 && v >= 1024)
        v /= 1024, u++;
    if (v == floor(v))
        snprintf(buf, n, "%.0f %s", v, unit[u]);
    else
        snprintf(buf, n, "%.4g %s", v, unit[u]);
}

static int by_bytes(const void *a, const void *b)
{
    const struct rec_tune_choice *x = *(const struct rec_tune_choice *const *)a;
    const struct rec_tune_choice *y = *(const struct rec_tune_choice *const *)b;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static void pick_name(const struct rec_tune_choice *c, char *buf, size_t n)
{
    const char *a = rec_tune_algo(c->algo), *p = rec_tune_proto(c->proto);
    snprintf(buf, n, "%s/%s", a ? a : "(unknown algorithm)", p ? p : "(unknown protocol)");
}

/* One collective's choices c[0..n) in size order, as a sentence: each run of one choice
 * by the sizes logged at its ends ("Tree/LL up to 64 KiB, then Ring/Simple from 128 KiB":
 * the switch lies between the two). */
static void tune_sentence(const struct rec_tune_choice **c, int n, char *s)
{
    char a[48], b[48], lo[24], hi[24];
    s[0] = '\0';
    pick_name(c[0], a, sizeof a);
    size_words(c[0]->bytes, lo, sizeof lo);
    size_words(c[n - 1]->bytes, hi, sizeof hi);
    if (n == 1) {
        say(s, "NCCL chose %s for %s (the one size logged)", a, lo);
        return;
    }
    say(s, "NCCL chose");
    int runs = 0;
    for (int i = 0, j; i < n; i = j) {
        pick_name(c[i], a, sizeof a);
        for (j = i + 1; j < n; j++) {
            pick_name(c[j], b, sizeof b);
            if (strcmp(a, b) != 0) break;
        }
        size_words(c[i]->bytes, lo, sizeof lo);
        size_words(c[j - 1]->bytes, hi, sizeof hi);
        if (i == 0 && j == n)
            say(s, " %s at every size logged (%s to %s", a, lo, hi);
        else if (i == 0)
            say(s, " %s up to %s", a, hi);
        else if (j == n)
            say(s, ", then %s from %s", a, lo);
        else if (j - i == 1)
            say(s, ", %s at %s", a, lo);
        else
            say(s, ", %s from %s to %s", a, lo, hi);
        runs++;
    }
    say(s, "%s%d sizes logged)", runs == 1 ? ", " : " (", n);
}

int rec_say_tuning(const struct rec_tuning *T, char fn[][24], char say_[][REC_SAY_LEN], int max)
{
    int nf = 0;
    const struct rec_tune_choice **c = malloc((size_t)(T->nchoices + 1) * sizeof *c);
    if (!c) return 0;
    for (int i = 0; i < T->nchoices && nf < max; i++) {
        bool done = false;
        for (int k = 0; k < nf; k++)
            if (strcmp(fn[k], T->choices[i].fn) == 0) done = true;
        if (done) continue;
        snprintf(fn[nf], 24, "%s", T->choices[i].fn);
        int n = 0;
        for (int j = i; j < T->nchoices; j++)
            if (strcmp(T->choices[j].fn, T->choices[i].fn) == 0) c[n++] = &T->choices[j];
        qsort(c, (size_t)n, sizeof *c, by_bytes);
        tune_sentence(c, n, say_[nf]);
        nf++;
    }
    free(c);
    return nf;
}

/* ---- files of one job ------------------------------------------------------------- */

/* The leading x.y.z of a version ("2.21.5+cuda12.4" -> "2.21.5"). */
static void xyz(const char *v, char *out, size_t n)
{
    size_t k = strspn(v, "0123456789.");
    snprintf(out, n, "%.*s", (int)(k < n ? k : n - 1), v);
}

static bool comm_has_id(const struct rec_log *L, const char *id)
{
    for (int c = 0; c < L->ncomms; c++)
        if (strcmp(L->comms[c].id, id) == 0) return true;
    return false;
}

static bool comm_has_size(const struct rec_log *L, int n)
{
    for (int c = 0; c < L->ncomms; c++)
        if (L->comms[c].nranks == n) return true;
    return false;
}

/* The kind of a launcher, 0 unknown: "mpi" (a rank tag or an mpirun of unknown kind) may
 * be Open MPI's. */
static int launcher_kind(enum rec_launcher l)
{
    return l == REC_LAUNCH_HYDRA ? REC_LAUNCH_OPEN_RTE : (int)l;
}

/* One communicator's rank runs on one host: a rank that A places on one host and B on
 * another says two jobs. Only where each record is of one communicator whose rank numbers
 * are its own (several communicators reuse rank numbers, one per group, on other hosts). */
static bool rank_on_two_hosts(const struct rec_log *A, const struct rec_log *B, char *why,
                              size_t n)
{
    if (A->ncomms > 1 || B->ncomms > 1) return false;
    if (A->ncomms == 1 && B->ncomms == 1 && strcmp(A->comms[0].id, B->comms[0].id) != 0)
        return false;
    int top = A->maxrank < B->maxrank ? A->maxrank : B->maxrank;
    for (int r = 0; r <= top; r++) {
        const char *ha = A->ranks[r].host, *hb = B->ranks[r].host;
        if (ha[0] && hb[0] && strcmp(ha, hb) != 0) {
            snprintf(why, n, "rank %d on host %.60s vs %.60s", r, ha, hb);
            return true;
        }
    }
    return false;
}

/* Why A and B cannot be one job's, into why; false when nothing says so. */
static bool not_one_job(const struct rec_log *A, const struct rec_log *B, char *why, size_t n)
{
    if (A->library[0] && B->library[0] && strcmp(A->library, B->library) != 0) {
        snprintf(why, n, "%s vs %s", A->library, B->library);
        return true;
    }
    char va[32], vb[32];
    xyz(A->version, va, sizeof va);
    xyz(B->version, vb, sizeof vb);
    if (va[0] && vb[0] && strcmp(va, vb) != 0) {
        snprintf(why, n, "NCCL versions %s vs %s", va, vb);
        return true;
    }
    const char *ida = NULL, *idb = NULL;
    bool shared = false;
    for (int c = 0; c < A->ncomms; c++)
        if (A->comms[c].id[0]) {
            ida = A->comms[c].id;
            shared = shared || comm_has_id(B, ida);
        }
    for (int c = 0; c < B->ncomms && !idb; c++)
        if (B->comms[c].id[0]) idb = B->comms[c].id;
    if (ida && idb && !shared) {
        snprintf(why, n, "no commId in common: %s vs %s", ida, idb);
        return true;
    }
    int sa = -1, sb = -1;
    shared = false;
    for (int c = 0; c < A->ncomms; c++)
        if (A->comms[c].nranks > 0) {
            sa = A->comms[c].nranks;
            shared = shared || comm_has_size(B, sa);
        }
    for (int c = 0; c < B->ncomms && sb < 0; c++)
        if (B->comms[c].nranks > 0) sb = B->comms[c].nranks;
    if (sa > 0 && sb > 0 && !shared) {
        snprintf(why, n, "no communicator size in common: %d vs %d ranks", sa, sb);
        return true;
    }
    if (launcher_kind(A->launcher) && launcher_kind(B->launcher) &&
        launcher_kind(A->launcher) != launcher_kind(B->launcher)) {
        snprintf(why, n, "launched by %s vs %s", rec_launcher_name(A->launcher),
                 rec_launcher_name(B->launcher));
        return true;
    }
    return rank_on_two_hosts(A, B, why, n);
}

bool rec_distinct_files(const char *const *paths, int n, char *msg, size_t len)
{
    for (int i = 1; i < n; i++) {
        struct stat si;
        if (stat(paths[i], &si) != 0) continue;
        for (int j = 0; j < i; j++) {
            struct stat sj;
            if (stat(paths[j], &sj) == 0 && sj.st_dev == si.st_dev && sj.st_ino == si.st_ino) {
                snprintf(msg, len, "%s and %s are the same file: give each file once", paths[j],
                         paths[i]);
                return false;
            }
        }
    }
    return true;
}

bool rec_one_job(const char *const *paths, int n, char *msg, size_t len)
{
    if (n < 2) return true;
    if (!rec_distinct_files(paths, n, msg, len)) return false;
    struct rec_log **L = calloc((size_t)n, sizeof *L);
    bool ok = L != NULL;
    for (int i = 0; ok && i < n; i++) {
        char err[200];
        L[i] = rec_new();
        if (rec_read_file(L[i], paths[i], err, sizeof err) < 0) {
            rec_free(L[i]);
            L[i] = NULL;
            continue;
        }
        rec_finish(L[i]);
        for (int j = 0; ok && j < i; j++) {
            char why[160];
            if (L[j] && not_one_job(L[j], L[i], why, sizeof why)) {
                snprintf(msg, len,
                         "%s and %s are not one job's record (%s): read them one "
                         "at a time",
                         paths[j], paths[i], why);
                ok = false;
            }
        }
    }
    for (int i = 0; L && i < n; i++)
        rec_free(L[i]);
    free(L);
    return ok;
}

void rec_size(const struct rec_log *L, int *nranks_out, bool *floor_out, int *nnodes_out)
{
    int nranks = L->nranks, nnodes = L->nnodes;
    bool floor = L->nranks_floor;
    if (L->ncomms == 1 && (nranks < 0 || floor) && L->comms[0].nranks >= 0)
        nranks = L->comms[0].nranks, floor = false;
    int launched = nranks < 0 || floor ? rec_launch_ranks(L) : -1;
    if (launched > 0) /* the launcher's, proven by the rows (recfit.h) */
        nranks = launched, floor = false;
    if (nranks < 0 && L->ncomms <= 1 && L->maxrank >= 0) { /* ranks named, their count not */
        nranks = L->maxrank + 1, floor = true;
        for (int r = L->ncomms ? rec_facts_next(&L->comms[0], 0) : -1; r >= 0;
             r = rec_facts_next(&L->comms[0], r + 1))
            nranks = r + 1 > nranks ? r + 1 : nranks;
    }
    if (L->ncomms == 1 && nnodes < 0) nnodes = L->comms[0].nnodes;
    *nranks_out = nranks;
    *floor_out = floor;
    *nnodes_out = nnodes;
}

bool rec_say_size(const struct rec_log *L, char *buf, size_t cap)
{
    int nranks, nnodes;
    bool floor;
    rec_size(L, &nranks, &floor, &nnodes);
    size_t k = 0;
    buf[0] = '\0';
    if (nranks > 0)
        k = cv_cat(buf, cap, k, "%s%d rank%s", floor ? "at least " : "", nranks,
                   nranks == 1 ? "" : "s");
    int placed = 0; /* hosts that printed (each ran a process of the job): a view's own */
    for (int i = 0; L->comm_view && i < L->comms[0].nhosts; i++) {
        int h = L->comms[0].hosts[i];
        placed += L->host_lines[h] > 0 || rec_host_in_tests(L, h);
    }
    for (int h = 0; !L->comm_view && L->ncomms <= 1 && h < L->nhostnames; h++)
        placed += L->host_lines[h] > 0 || rec_host_in_tests(L, h);
    if (placed > 0) placed += L->machines_more; /* machines sharing a name (records.h) */
    const char *sep = k ? " " : "";
    if (L->ncomms <= 1 && nnodes >= 0)
        k = cv_cat(buf, cap, k, "%son %d node%s", sep, nnodes, nnodes == 1 ? "" : "s");
    else if (placed > 0) /* not every rank's host is known: the nodes seen are a floor */
        k = cv_cat(buf, cap, k, "%son at least %d node%s", sep, placed, placed == 1 ? "" : "s");
    return k > 0;
}
