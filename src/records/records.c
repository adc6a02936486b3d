/* records.c - the reader of NCCL INFO logs and nccl-tests output (records.h).
 *
 * One pass over each file, a line at a time. Each line is first made safe (printable ASCII,
 * Open MPI's "[1,5]<stdout>:" tags cut out wherever they are, since mpirun interleaves
 * ranks' output in the middle of a table row), then recognised by what it holds, never by
 * position: "NCCL version", "NCCL INFO" / "NCCL WARN" with any prefix before them, and
 * nccl-tests' '#' lines and rows. Which class a link is comes from what NCCL said about it
 * and its host (the NIC list's /IB or /RoCE, the graph's path type, NVLS), decided in
 * rec_finish once every file is in, since those lines may come after the links. */
#include "records/records.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "records/recview.h"

const char *rec_class_name(enum rec_class c)
{
    static const char *const names[] = {"nvlink", "pcie",       "shm",     "ib",     "roce",
                                        "socket", "net-plugin", "network", "unknown"};
    return (unsigned)c <= REC_UNKNOWN ? names[c] : "unknown";
}

/* ---- messages ------------------------------------------------------------------------- */

const char *rec_wcode_name(enum rec_wcode c)
{
    static const char *const names[REC_W_N] = {"other",
                                               "cut_line",
                                               "spliced",
                                               "wrapped",
                                               "partial",
                                               "deduplicated",
                                               "init_failed",
                                               "nccl_warn",
                                               "escape",
                                               "mixed_forms",
                                               "prose",
                                               "table_interleaved",
                                               "table_no_header",
                                               "unreadable_prefix",
                                               "table_side_by_side",
                                               "rank_twice",
                                               "host_placeholder",
                                               "joined",
                                               "collective_contradiction"};
    return (unsigned)c < REC_W_N ? names[c] : "other";
}

/* Returns the index of the message added, -1 when it was there already or dropped. */
static int rec_msg(char ***list, int *n, int *dropped, const char *fmt, va_list ap)
{
    char buf[256];
    vsnprintf(buf, sizeof buf, fmt, ap);
    for (int i = 0; i < *n; i++)
        if (strcmp((*list)[i], buf) == 0) return -1;
    if (*n >= REC_MAX_MSGS) {
        (*dropped)++;
        return -1;
    }
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = xstrdup(buf);
    return *n - 1;
}

__attribute__((format(printf, 4, 5))) static void rec_error(struct rec_log *L, const char *name,
                                                            long line, const char *fmt, ...)
{
    char f[320];
    snprintf(f, sizeof f, "%s:%ld: %s", name, line, fmt);
    va_list ap;
    va_start(ap, fmt);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    rec_msg(&L->errors, &L->nerrors, &L->errors_dropped, f, ap);
#pragma GCC diagnostic pop
    va_end(ap);
}

/* A warning with its code; the first of each code is always kept (past REC_MAX_MSGS). */
__attribute__((format(printf, 3, 4))) static void
rec_warn_c(struct rec_log *L, enum rec_wcode code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int i = rec_msg(&L->warnings, &L->nwarnings, &L->warnings_dropped, fmt, ap);
    va_end(ap);
    if (i < 0 && !(L->wseen >> code & 1) && L->nwarnings >= REC_MAX_MSGS) {
        char buf[256];
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        L->warnings = xrealloc(L->warnings, (size_t)(L->nwarnings + 1) * sizeof *L->warnings);
        L->warnings[L->nwarnings] = xstrdup(buf);
        i = L->nwarnings++;
    }
    if (i >= 0) {
        L->wcodes = xrealloc(L->wcodes, (size_t)L->nwarnings);
        L->wcodes[i] = (unsigned char)code;
    }
    L->wseen |= 1u << code;
}

#define rec_warn(L, ...) rec_warn_c(L, REC_W_OTHER, __VA_ARGS__)

void rec_note_cut(struct rec_log *L, const char *fmt, ...)
{
    char m[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    rec_warn_c(L, REC_W_CUT, "%s", m);
}

void rec_note(struct rec_log *L, const char *fmt, ...)
{
    char m[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    /* kept past REC_MAX_MSGS: one a file given, never lost among a full list's */
    L->warnings = xrealloc(L->warnings, (size_t)(L->nwarnings + 1) * sizeof *L->warnings);
    L->warnings[L->nwarnings] = xstrdup(m);
    L->wcodes = xrealloc(L->wcodes, (size_t)L->nwarnings + 1);
    L->wcodes[L->nwarnings++] = (unsigned char)REC_W_OTHER;
    L->wseen |= 1u << REC_W_OTHER;
}

void rec_note_error(struct rec_log *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rec_msg(&L->errors, &L->nerrors, &L->errors_dropped, fmt, ap);
    va_end(ap);
}

/* ---- small scanners (on a NUL-terminated, made-safe line) ----------------------------- */

static const char *skip_sp(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A non-negative decimal of at most maxd digits at *p; -1 when there is none (or more). */
static long scan_uint(const char **p, int maxd)
{
    const char *s = *p;
    long v = 0;
    int d = 0;
    while (isdigit((unsigned char)*s)) {
        if (++d > maxd) return -1;
        v = v * 10 + (*s++ - '0');
    }
    if (d == 0) return -1;
    *p = s;
    return v;
}

/* An integer, possibly -1 style negative. */
static bool scan_int(const char **p, int maxd, long *v)
{
    const char *s = *p;
    bool neg = *s == '-';
    if (neg) s++;
    long u = scan_uint(&s, maxd);
    if (u < 0) return false;
    *v = neg ? -u : u;
    *p = s;
    return true;
}

/* strstr(s, w) in the line being read (s in it), asked only where its marks (recline.h:
 * `bit`, the mark of w) say w may be: most lines hold none of the texts searched for. An
 * exact mark's first place, when at s or after it, is strstr's answer. */
static const char *find(const struct rec_log *L, unsigned bit, const char *s, const char *w)
{
    const struct rec_line *ln = &L->ln;
    if (!(ln->marks & bit)) return NULL;
    if (bit & REC_MK_EXACT) {
        const char *f = ln->line + ln->first[__builtin_ctz(bit)];
        if (f >= s) return f;
    }
    return strstr(s, w);
}

static bool starts(const char *s, const char *lit)
{
    while (*lit) /* a byte at a time: most lines differ at the first */
        if (*s++ != *lit++) return false;
    return true;
}

/* src into out[n], cut to fit, as snprintf's "%s" would (without its cost a line). */
static void copy_str(char *out, size_t n, const char *src)
{
    size_t k = strlen(src);
    if (k >= n) k = n - 1;
    memcpy(out, src, k);
    out[k] = '\0';
}

/* Copy the word at s (up to a space, or any char in stop) into out[n]. */
static const char *copy_word(const char *s, const char *stop, char *out, size_t n)
{
    size_t k = 0;
    while (*s && *s != ' ' && *s != '\t' && !strchr(stop, *s)) {
        if (k + 1 < n) out[k++] = *s;
        s++;
    }
    if (n) out[k] = '\0';
    return s;
}

/* ---- the structures ------------------------------------------------------------------- */

static void file_free(struct rec_file *F);

struct rec_log *rec_new(void)
{
    struct rec_log *L = xcalloc(1, sizeof *L);
    L->nranks = -1;
    L->nnodes = -1;
    L->maxrank = -1;
    L->cur_test = -1;
    L->tests_unit = -1;
    L->dev_unit = -1;
    L->unit = -1;
    L->last_pattern = -1;
    L->job.world = -1;
    L->job.procs = -1;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        L->ring_unit[c] = -1;
    return L;
}

void rec_free(struct rec_log *L)
{
    if (!L) return;
    for (int i = 0; i < L->nread; i++)
        free(L->read[i].path);
    free(L->read);
    for (int c = 0; c < REC_MAX_CHANNELS; c++) {
        free(L->rings[c].order);
        free(L->trees[c].node);
    }
    for (int t = 0; t < L->ntests; t++)
        free(L->tests[t].rows);
    for (int i = 0; i < L->nerrors; i++)
        free(L->errors[i]);
    for (int i = 0; i < L->nwarnings; i++)
        free(L->warnings[i]);
    free(L->errors);
    free(L->warnings);
    free(L->links);
    for (int i = 0; i < L->nxrings; i++)
        free(L->xrings[i].order);
    free(L->xrings);
    free(L->xtrees);
    rec_ctopo_free(L);
    free(L->ranks);
    free(L->nets);
    for (int i = 0; i < L->nvias; i++)
        free(L->vias[i]);
    free(L->vias);
    rec_map_free(&L->viamap);
    for (int i = 0; i < L->nunits; i++) {
        rec_facts_free(&L->units[i].f);
        rec_map_free(&L->units[i].links);
    }
    free(L->units);
    free(L->blk_claims);
    for (int i = 0; i < L->ncomms; i++)
        rec_facts_free(&L->comms[i]);
    free(L->comms);
    for (int i = 0; i < L->nhostnames; i++)
        free(L->hostnames[i]);
    free(L->hostnames);
    free(L->host_lines);
    free(L->wcodes);
    rec_map_free(&L->threads);
    rec_map_free(&L->procs);
    rec_map_free(&L->ptrs);
    rec_map_free(&L->hostmap);
    rec_map_free(&L->linkmap);
    file_free(L->file);
    free(L);
}

/* The unit of the line being read (reccomm.h), NULL when the line has none. */
static struct rec_facts *cur_facts(struct rec_log *L)
{
    return L->unit >= 0 ? &L->units[L->unit].f : NULL;
}

static void claim_rank(struct rec_log *L, long r)
{
    if (L->unit < 0 || r < 0 || r >= REC_MAX_RANKS) return;
    struct rec_unit *u = &L->units[L->unit];
    if (u->tests) return;
    if (u->rank < 0) u->rank = (int)r;
    rec_facts_seen(&u->f, r);
    rec_facts_printed(&u->f, r);
}

static void seen_rank(struct rec_log *L, long r)
{
    struct rec_facts *f = cur_facts(L);
    if (f) rec_facts_seen(f, r);
}

static void add_kind(struct rec_log *L, unsigned k)
{
    struct rec_facts *f = cur_facts(L);
    if (f) f->kinds |= k;
}

static bool rank_slots(struct rec_log *L, long n, const char *what, long value);

static struct rec_rank *rank_at(struct rec_log *L, long r)
{
    if (r < 0 || r >= REC_MAX_RANKS) return NULL;
    if (r >= L->rank_slots && !rank_slots(L, r + 1, "rank %ld", r)) return NULL;
    if (r > L->maxrank) L->maxrank = (int)r;
    L->ranks[r].known = true;
    return &L->ranks[r];
}

/* What host `host`'s lines said about its network: one entry a host id, every host, after
 * the entry of lines without a host (nets[0]). */
static struct rec_host_net *host_net(struct rec_log *L, const char *host)
{
    int id = rec_host_id(L, host, true) + 1;
    if (id >= L->nnets) {
        int n = L->nnets ? L->nnets : 16;
        while (n <= id)
            n *= 2;
        L->nets = xrealloc(L->nets, (size_t)n * sizeof *L->nets);
        memset(L->nets + L->nnets, 0, (size_t)(n - L->nnets) * sizeof *L->nets);
        L->nnets = n;
    }
    struct rec_host_net *h = &L->nets[id];
    if (!h->host[0]) snprintf(h->host, sizeof h->host, "%s", host);
    return h;
}

/* The interned copy of via[0..n): equal transports are one pointer. */
static const char *via_intern(struct rec_log *L, const char *via, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)via[i]) * 1099511628211ULL;
    for (uint64_t k = h;; k = k * 6364136223846793005ULL + 1) { /* probes past collisions */
        int id = rec_map_get(&L->viamap, k);
        if (id < 0) {
            if (L->nvias % 16 == 0)
                L->vias = xrealloc(L->vias, (size_t)(L->nvias + 16) * sizeof *L->vias);
            char *c = xmalloc(n + 1);
            memcpy(c, via, n);
            c[n] = '\0';
            L->vias[L->nvias] = c;
            rec_map_put(&L->viamap, k, L->nvias++);
            return c;
        }
        if (strncmp(L->vias[id], via, n) == 0 && L->vias[id][n] == '\0') return L->vias[id];
    }
}

/* ---- NCCL INFO lines ------------------------------------------------------------------ */

struct rec_ctx {
    struct rec_log *L;
    const char *name;
    long line;
    char host[64];
    int host_id;        /* -1 none */
    char last_host[64]; /* the last header's host name ("" none) */
    int last_host_id;   /* its id: a file's lines come from a few hosts, in runs */
    /* headers of spliced lines whose text is still owed (struct rec_line's owner_*): a
     * headerless line of NCCL's text is theirs */
    struct rec_owner {
        char host[64];
        long pid, tid, line;
        int dev;
    } owners[8];
    int nowners;
};

/* The file being read, between rec_parse_begin and rec_parse_end. */
struct rec_file {
    struct rec_ctx x;
    char name[1024];
    char *buf;   /* one cleaned line */
    char *piece; /* one of its joined lines (rec_parse_lines), NULL until one is */
    char *carry; /* a joined line's last piece, cut: the next line's start may end it */
    size_t ncarry;
    int got;
    bool last_read;
};

/* Rank r printed the line being read: it is on the line's host. NCCL's rank 0 prints the
 * ring orders; the middle rank of "Ring 00 : 7 -> 0 -> 1" prints that line. */
static void printer_host(struct rec_log *L, long r)
{
    const struct rec_ctx *x = &L->file->x;
    if (!x->host[0]) return;
    struct rec_rank *rk = rank_at(L, r);
    if (rk && !rk->host[0]) snprintf(rk->host, sizeof rk->host, "%s", x->host);
}

/* A ring-order line is printed by rank 0 alone (NCCL prints it where rank == 0, the ring
 * starting at itself): rank 0, when the line names it, is on the line's host. */
static void ring_printer_host(struct rec_log *L, const int *order, int n)
{
    for (int i = 0; i < n; i++)
        if (order[i] == 0) {
            printer_host(L, 0);
            return;
        }
}

/* The line names ranks up to maxr: not of a unit that has fewer (reccomm.h). */
static void fit_unit(struct rec_log *L, long maxr, int net)
{
    if (L->unit < 0) return;
    int u = rec_unit_fitting(L, L->unit, maxr, net);
    if (u < 0) {
        const struct rec_unit *a = &L->units[L->unit];
        u = rec_unit_fresh(L, a->host, a->pid, L->ln.tid);
    }
    L->unit = u;
}

/* A ring order of this line's unit: printed by its rank 0. */
static void ring_facts(struct rec_log *L, long chan, const int *order, int n)
{
    int maxr = 0;
    for (int i = 0; i < n; i++)
        maxr = order[i] > maxr ? order[i] : maxr;
    fit_unit(L, maxr, -1);
    struct rec_facts *f = cur_facts(L);
    ring_printer_host(L, order, n);
    if (!f) return;
    claim_rank(L, order[0]);
    for (int i = 0; i < n; i++)
        rec_facts_seen(f, order[i]);
    if (chan >= 0 && chan < (long)sizeof f->rings * 8)
        f->rings[chan >> 3] |= (unsigned char)(1u << (chan & 7));
    if (f->nranks < 0) f->nranks = n;
    f->kinds |= REC_KIND_RING;
}

/* A record larger than this reader holds: said once, with where, and the record is refused
 * (rec_log.too_large), never read in part. */
__attribute__((format(printf, 2, 3))) static void too_large(struct rec_ctx *x, const char *fmt,
                                                            ...)
{
    struct rec_log *L = x->L;
    if (L->too_large[0]) return;
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(L->too_large, sizeof L->too_large,
             "%s:%ld: %s: larger than this reader holds (ranks 0..%d and what memory holds, "
             "%d channels, %d tables of %d rows)",
             x->name, x->line, what, REC_LAST_RANK, REC_MAX_CHANNELS, REC_MAX_TESTS,
             REC_MAX_ROWS);
}

/* Room for `more` bytes more of what the record keeps (ranks, rings, trees, links): within
 * the memory available (mem_check) and within REC_KEEP_FLOOR + REC_KEEP_PER_BYTE x the text
 * read so far, so that a few lines naming a huge rank cannot take the machine. Else the
 * record is refused (too_large), naming `what` and the bytes it needs. */
static bool room(struct rec_log *L, size_t more, const char *what, long value)
{
    size_t want = L->kept + more;
    size_t budget = REC_KEEP_FLOOR + REC_KEEP_PER_BYTE * L->text_bytes;
    char w[96], err[200] = "";
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(w, sizeof w, what, value); /* what: a constant with one %ld */
#pragma GCC diagnostic pop
    if (want <= budget && mem_check((double)want, err, sizeof err, "%s", w) == 0) {
        L->kept = want;
        return true;
    }
    char need[32];
    format_size(want, need, sizeof need);
    if (err[0])
        too_large(&L->file->x, "%s", err);
    else
        too_large(&L->file->x,
                  "%s: the record would keep %s (more than %zu MiB + %d x its text)", w, need,
                  REC_KEEP_FLOOR >> 20, REC_KEEP_PER_BYTE);
    return false;
}

/* L->ranks grown to at least n slots (new ones unknown); false when that is too large. */
static bool rank_slots(struct rec_log *L, long n, const char *what, long value)
{
    if (n <= L->rank_slots) return true;
    if (n > REC_MAX_RANKS) return false;
    long cap = L->rank_slots ? L->rank_slots : 64;
    while (cap < n)
        cap *= 2;
    if (cap > REC_MAX_RANKS) cap = REC_MAX_RANKS;
    if (!room(L, (size_t)(cap - L->rank_slots) * sizeof *L->ranks, what, value)) return false;
    L->ranks = xrealloc(L->ranks, (size_t)cap * sizeof *L->ranks);
    memset(L->ranks + L->rank_slots, 0, (size_t)(cap - L->rank_slots) * sizeof *L->ranks);
    for (long r = L->rank_slots; r < cap; r++)
        L->ranks[r].device = -1;
    L->rank_slots = (int)cap;
    return true;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A second ring of channel chan: the record's rings keep the first; another unit's (another
 * communicator's, maybe) is kept for its communicator's picture (recview.h). Owns order. */
static void other_ring(struct rec_log *L, long chan, int *order, int n)
{
    const struct rec_ring *g = &L->rings[chan];
    if (g->n != n || memcmp(g->order, order, (size_t)n * sizeof *order) != 0)
        rec_warn(L,
                 "channel %ld has a second, different ring order (another "
                 "communicator?): the first is kept",
                 chan);
    if (L->unit < 0 || L->unit == L->ring_unit[chan]) {
        free(order);
        return;
    }
    if (L->nxrings == L->capxrings) {
        L->capxrings = L->capxrings ? 2 * L->capxrings : 16;
        L->xrings = xrealloc(L->xrings, (size_t)L->capxrings * sizeof *L->xrings);
    }
    L->xrings[L->nxrings++] =
        (struct rec_xring){.unit = L->unit,
                           .chan = (int)chan,
                           .n = n,
                           .order = xrealloc(order, (size_t)n * sizeof *order)};
}

static void cut_warn(struct rec_ctx *x, const char *what)
{
    rec_warn_c(x->L, REC_W_CUT, "%s:%ld: cut: %s that is not whole is not read", x->name,
               x->line, what);
}

/* NCCL's rings.cc prints a ring order with dumpLine: up to 2.18 at most RING_PRINT_MAX ranks,
 * each " %3d" (a line of exactly that many is cut there, or whole by chance); from 2.19 in
 * 128 bytes, ending in "..." when cut. Either way what is printed is not the ring. */
#define RING_PRINT_MAX 20

/* The ranks of p (" %Nd" each) as printed widths; true when the last is narrower than all
 * the others, which share one width: the paste cut the line inside its last rank. */
static bool ring_last_cut(const char *p)
{
    int w = -1, n = 0, last = 0;
    while (*p) {
        const char *s = p;
        while (*p == ' ')
            p++;
        while (isdigit((unsigned char)*p))
            p++;
        if (p == s) return false;
        if (n >= 1 && w < 0) w = last;
        if (n >= 2 && last != w) return false;
        last = (int)(p - s);
        n++;
    }
    return n >= 3 && last < w;
}

/* A ring order cut at NCCL's print limit: its ranks are seen, the communicator has at least
 * n of them, but no ring is drawn from it. */
static void ring_at_limit(struct rec_ctx *x, long chan, int *order, int n, bool dots)
{
    struct rec_log *L = x->L;
    int maxr = 0;
    for (int i = 0; i < n; i++)
        maxr = order[i] > maxr ? order[i] : maxr;
    if (rank_at(L, maxr)) {
        fit_unit(L, maxr, -1);
        ring_printer_host(L, order, n);
        struct rec_facts *f = cur_facts(L);
        if (f) {
            claim_rank(L, order[0]);
            for (int i = 0; i < n; i++)
                rec_facts_seen(f, order[i]);
            f->kinds |= REC_KIND_RING;
        }
    }
    free(order);
    if (L->ring_cut_said) return;
    L->ring_cut_said = true;
    if (dots)
        rec_warn_c(L, REC_W_PARTIAL,
                   "%s:%ld: channel %ld's ring order ends in \"...\": NCCL prints a ring in "
                   "128 bytes, so its rings are cut and not drawn",
                   x->name, x->line, chan);
    else
        rec_warn_c(L, REC_W_PARTIAL,
                   "%s:%ld: channel %ld's ring order lists %d ranks: NCCL prints at most %d "
                   "ranks of a ring, so its rings may be cut and are not drawn",
                   x->name, x->line, chan, n, RING_PRINT_MAX);
}

/* "Channel 00/16 :    0   3   1   2" (or 2.4's "Channel 00 :    0   1"): p after " : ". */
static void ring_line(struct rec_ctx *x, long chan, const char *p, bool dots)
{
    struct rec_log *L = x->L;
    if (ring_last_cut(p)) {
        cut_warn(x, "a channel line");
        return;
    }
    /* a line holds at most REC_MAX_LINE / 2 ranks ("0 1 2 ...") */
    int *order = xmalloc((REC_MAX_LINE / 2 + 1) * sizeof *order), n = 0;
    p = skip_sp(p);
    while (*p) {
        long r = scan_uint(&p, REC_RANK_DIGITS);
        if (r < 0 || r >= REC_MAX_RANKS) {
            if (r >= REC_MAX_RANKS)
                too_large(x, "channel %ld's ring: rank %ld", chan, r);
            else
                rec_error(L, x->name, x->line, "channel %ld's ring: a rank out of 0..%d", chan,
                          REC_LAST_RANK);
            free(order);
            return;
        }
        order[n++] = (int)r;
        p = skip_sp(p);
    }
    int *sorted = xmalloc((size_t)(n + 1) * sizeof *sorted);
    memcpy(sorted, order, (size_t)n * sizeof *order);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_int);
    for (int i = 1; i < n; i++)
        if (sorted[i] == sorted[i - 1]) {
            rec_error(L, x->name, x->line, "channel %ld's ring lists rank %d twice", chan,
                      sorted[i]);
            n = 0;
            break;
        }
    int top = n ? sorted[n - 1] : 0;
    free(sorted);
    struct rec_facts *uf = cur_facts(L);
    if (n > 0 && (dots || (n == RING_PRINT_MAX && !(uf && uf->nranks == n)))) {
        ring_at_limit(x, chan, order, n, dots);
        return;
    }
    /* "Channel 00 :" and nothing: no ring; room for its ranks, else refused */
    if (n == 0 || !rank_at(L, top) ||
        !room(L, (size_t)n * sizeof *order, "a ring of %ld ranks", (long)n)) {
        free(order);
        return;
    }
    ring_facts(L, chan, order, n); /* the unit it is of: L->unit from here */
    struct rec_ring *g = &L->rings[chan];
    if (g->order) {
        other_ring(L, chan, order, n);
        return;
    }
    g->order = xrealloc(order, (size_t)n * sizeof *order);
    order = g->order;
    g->n = n;
    L->ring_unit[chan] = L->unit;
    for (int i = 0; i < n; i++)
        rank_at(L, order[i]);
    L->ring_printer = true; /* rank 0 prints the rings */
}

/* "0[160]" or "0": a rank with an optional bracket. */
static bool peer(const char **p, long *r)
{
    long v = scan_uint(p, REC_RANK_DIGITS);
    if (v < 0) return false;
    if (**p == '[') {
        const char *q = strchr(*p, ']');
        if (!q) return false;
        *p = q + 1;
    }
    *r = v;
    return true;
}

/* Is via[0..n) a whole transport as NCCL prints it ("P2P/IPC/read", "SHM/direct/direct",
 * "direct shared memory", "NET/IB/0/GDRDMA", "NET/IB/0(8)/GDRDMA", "NET/AWS Libfabric/1",
 * "P2P/direct pointer", "NVLS", "CollNet...")? A line cut at "via P" is not. */
static bool whole_via(const char *v, size_t n)
{
    char w[64];
    if (n >= sizeof w) return false;
    memcpy(w, v, n);
    w[n] = '\0';
    if (strcmp(w, "direct shared memory") == 0 || strcmp(w, "shared memory") == 0) return true;
    if (starts(w, "SHM/") || strcmp(w, "SHM") == 0) {
        const char *q = w + 3;
        while (*q ==
               '/') { /* "SHM/direct/direct", "SHM/CE/direct", the emulation's "SHM/fakegpu" */
            q++;
            if (!isalpha((unsigned char)*q)) return false;
            while (isalpha((unsigned char)*q))
                q++;
        }
        return *q == '\0';
    }
    if (starts(w, "P2P/")) {
        static const char *const kinds[] = {"IPC",    "CUMEM",    "direct pointer",
                                            "direct", "indirect", "MNNVL"};
        const char *q = w + 4;
        bool ok = false;
        for (size_t i = 0; i < sizeof kinds / sizeof *kinds && !ok; i++)
            if (starts(q, kinds[i])) q += strlen(kinds[i]), ok = true;
        while (ok && *q == '/') {
            q++;
            if (starts(q, "read"))
                q += 4;
            else if (starts(q, "CE"))
                q += 2;
            else if (starts(q, "direct"))
                q += 6;
            else
                ok = false;
        }
        return ok && (*q == '\0' || starts(q, " pointer"));
    }
    if (starts(w, "NET/")) { /* NET/<name>/<dev>[(<proxy>)][/GDRDMA][/Shared] */
        const char *sl = strchr(w + 4, '/');
        if (!sl || sl == w + 4) return false;
        const char *q = sl + 1;
        if (!isdigit((unsigned char)*q)) return false;
        while (isdigit((unsigned char)*q))
            q++;
        if (*q == '(') {
            q++;
            if (!isdigit((unsigned char)*q)) return false;
            while (isdigit((unsigned char)*q))
                q++;
            if (*q++ != ')') return false;
        }
        while (*q == '/') {
            q++;
            if (starts(q, "GDRDMA"))
                q += 6;
            else if (starts(q, "Shared"))
                q += 6;
            else
                return false;
        }
        return *q == '\0';
    }
    return strcmp(w, "NVLS") == 0 || starts(w, "CollNet") || starts(w, "NVLS/");
}

static void link_facts(struct rec_log *L, long chan, long from, long to, bool recv,
                       const char *via, size_t vn)
{
    if (L->unit >= 0)
        L->unit =
            rec_unit_connecting(L, L->unit, L->ln.dev, recv ? to : from, from > to ? from : to);
    fit_unit(L, from > to ? from : to, strncmp(via, "NET/", 4) == 0);
    struct rec_facts *f = cur_facts(L);
    if (!f) return;
    claim_rank(L, recv ? to : from);
    rec_facts_seen(f, from);
    rec_facts_seen(f, to);
    char v[64];
    size_t n = vn < 63 ? vn : 63;
    memcpy(v, via, n);
    v[n] = '\0';
    if (!starts(v, "NET/")) { /* P2P and SHM join GPUs of one host */
        rec_facts_placed(f, from);
        rec_facts_placed(f, to);
    }
    if (chan == 0) rec_facts_next0(f, from, to);
    rec_facts_transport(f, v);
    if (strstr(v, "/GDRDMA")) f->features |= REC_FEAT_GDRDMA;
    if (starts(v, "NET/") && strchr(v, '(')) f->features |= REC_FEAT_PXN;
    f->kinds |= REC_KIND_LINK;
}

/* RCCL ends link and tree lines with " comm 0x55d0... nRanks 08[ busId c8000]": cut off
 * (its pointer chose the line's unit already). */
static size_t rccl_suffix(struct rec_log *L, const char *p, size_t n)
{
    const char *c = find(L, REC_MK_COMM, p, " comm 0x");
    if (!c || (size_t)(c - p) >= n) return n;
    const char *q = c + 8;
    while (isxdigit((unsigned char)*q))
        q++;
    if (!starts(q, " nRanks ")) return n;
    q += 8;
    long nr = scan_uint(&q, 6);
    if (nr <= 0) return n;
    L->rccl = true;
    struct rec_facts *f = cur_facts(L);
    if (f && f->nranks < 0) f->nranks = (int)nr;
    return (size_t)(c - p);
}

static void link_line(struct rec_ctx *x, long chan, long conn, const char *p)
{
    struct rec_log *L = x->L;
    long from, to;
    p = skip_sp(p);
    if (!peer(&p, &from) || !starts(p, " -> ")) goto cut;
    p += 4;
    if (!peer(&p, &to)) goto cut;
    const char *via = find(L, REC_MK_VIA, p, " via ");
    if (!via) goto cut;
    via = skip_sp(via + 5);
    size_t vn = rccl_suffix(L, via, strlen(via));
    while (vn && via[vn - 1] == ' ')
        vn--;
    if (vn == 0 || !whole_via(via, vn)) goto cut;
    if (from >= REC_MAX_RANKS || to >= REC_MAX_RANKS) {
        too_large(x, "a link of rank %ld to %ld", from, to);
        return;
    }
    if (!rank_at(L, from > to ? from : to)) return; /* too large: said */
    struct rec_link k = {.channel = (int)chan,
                         .conn = (int)conn,
                         .from = (int)from,
                         .to = (int)to,
                         .via = via_intern(L, via, vn < 47 ? vn : 47),
                         .host = rec_host_name(L, x->host_id),
                         .host_id = x->host_id,
                         .cls = REC_UNKNOWN,
                         .comm = -1};
    /* NCCL sets up a connection's send side on the sender and its receive side on the
     * receiver: the line's host is the sender's, or the receiver's for "[receive]" */
    const char *rv = find(L, REC_MK_RECEIVE, p, "[receive]");
    bool recv = rv && rv < via;
    link_facts(L, chan, from, to, recv, via, vn);
    k.unit = L->unit; /* its unit as link_facts found it */
    struct rec_rank *rk = &L->ranks[recv ? to : from];
    rk->known = true;
    if (!rk->host[0]) copy_str(rk->host, sizeof rk->host, x->host);
    /* a connection's send and receive lines: one link (found by a hash of its fields, so a
     * large job's links cost what they are, not their square) */
    uint64_t key = (uint64_t)(uint32_t)k.channel * 0x9e3779b97f4a7c15ULL ^
                   (uint64_t)(uint32_t)k.conn * 0xc2b2ae3d27d4eb4fULL ^
                   ((uint64_t)(uint32_t)k.from << 32 | (uint32_t)k.to);
    for (const char *c = k.via; *c; c++)
        key = (key ^ (unsigned char)*c) * 1099511628211ULL;
    /* each unit's own: two communicators may have links alike (their rank numbers are their
     * own); one communicator's two lines of a connection are one link after rec_finish. In
     * the unit's own map, small and at hand while its lines are read (the lines of no unit
     * in the record's) */
    key = (key ^ (uint64_t)(uint32_t)k.unit) * 0xff51afd7ed558ccdULL;
    struct rec_map *lm = k.unit >= 0 ? &L->units[k.unit].links : &L->linkmap;
    for (uint64_t probe = key;; probe = probe * 6364136223846793005ULL + 1) {
        int i = rec_map_get(lm, probe);
        if (i < 0) break;
        const struct rec_link *o = &L->links[i];
        if (o->channel == k.channel && o->conn == k.conn && o->from == k.from &&
            o->to == k.to && o->via == k.via && o->unit == k.unit)
            return;
        key = probe * 6364136223846793005ULL + 1; /* another link with this hash: next */
    }
    if (L->nlinks == REC_MAX_LINKS) {
        too_large(x, "more than %d links", REC_MAX_LINKS);
        return;
    }
    if (L->nlinks == L->caplinks) {
        int more = L->caplinks ? L->caplinks : 64;
        if (!room(L, (size_t)more * (sizeof *L->links + 4 * sizeof(uint64_t)), "link %ld",
                  L->nlinks + 1L))
            return;
        L->caplinks += more;
        L->links = xrealloc(L->links, (size_t)L->caplinks * sizeof *L->links);
    }
    rec_map_put(lm, key, L->nlinks);
    L->links[L->nlinks++] = k;
    rank_at(L, from);
    rank_at(L, to);
    return;
cut:
    rec_warn_c(L, REC_W_CUT, "%s:%ld: cut: a link line that is not whole is not read", x->name,
               x->line);
}

/* 2.7's "Ring 00 : 7 -> 0 -> 1": the printing rank (the middle) and its neighbours. */
static bool neighbours(struct rec_ctx *x, const char *p)
{
    long r[3];
    p = skip_sp(p);
    for (int i = 0; i < 3; i++) {
        if (!peer(&p, &r[i])) return false;
        if (i < 2) {
            if (!starts(p, " -> ")) return false;
            p += 4;
        }
    }
    if (*skip_sp(p)) return false;
    if (!rank_at(x->L, r[0] > r[2] ? (r[0] > r[1] ? r[0] : r[1]) : (r[2] > r[1] ? r[2] : r[1])))
        return true; /* too large: said */
    printer_host(x->L, r[1]);
    claim_rank(x->L, r[1]);
    for (int i = 0; i < 3; i++)
        seen_rank(x->L, r[i]);
    add_kind(x->L, REC_KIND_RING);
    x->L->neighbour_lines++;
    return true;
}

/* The NCCL 2.x minor version from which each transport family's link lines carry the
 * connection index ("Channel 00/0 :" rather than "Channel 00 :"), from NCCL's own format
 * strings (src/transport/shm.cc, p2p.cc, net.cc, 2.7 to 2.30; RCCL's are the same): SHM
 * never, P2P from 2.14, NET from 2.12. So 2.14+ print SHM links without the index beside
 * P2P and NET links with it, and 2.12-2.13 P2P without beside NET with. */
static const struct {
    const char *via;
    int fam;        /* index in rec_log.forms */
    int slash_from; /* 0: never */
} link_forms[] = {
    {"SHM", 0, 0},
    {"direct shared memory", 0, 0},
    {"P2P", 1, 14},
    {"NET/", 2, 12},
};

/* The transport family of a link's "via" text, -1 none known. */
static int link_family(const char *via)
{
    for (size_t i = 0; i < sizeof link_forms / sizeof *link_forms; i++)
        if (starts(via, link_forms[i].via)) return link_forms[i].fam;
    return -1;
}

/* Whether the link forms seen need two NCCL versions: one family in both forms, or forms
 * of different families whose versions do not meet. */
static bool link_forms_clash(const struct rec_log *L)
{
    int lo = 7, hi = 1000;
    for (size_t i = 0; i < sizeof link_forms / sizeof *link_forms; i++) {
        int f = L->forms[link_forms[i].fam], from = link_forms[i].slash_from;
        if (f == 3) return true;
        if (from == 0) continue; /* a form no NCCL prints says no version */
        if (f & 1) lo = from > lo ? from : lo;
        if (f & 2) hi = from - 1 < hi ? from - 1 : hi;
    }
    return lo > hi;
}

/* "Channel NN[/MM] : ..." or "Ring NN : ...", p after the keyword. */
static bool channel_line(struct rec_ctx *x, const char *p, bool ring_kw)
{
    long chan = scan_uint(&p, 4), conn = -1;
    if (chan < 0) return false;
    if (*p == '/') {
        p++;
        conn = scan_uint(&p, 4);
        if (conn < 0) {
            if (!*p) cut_warn(x, "a channel line");
            return !*p;
        }
    }
    if (!starts(p, " : ")) {
        if (!*p || starts(" : ", p)) cut_warn(x, "a channel line");
        return false;
    }
    p += 3;
    bool arrow = find(x->L, REC_MK_ARROW, p, "->") != NULL;
    if (!arrow && !ring_kw) {
        const char *q = skip_sp(p);
        size_t len = strlen(q);
        bool dots = len >= 3 && strcmp(q + len - 3, "...") == 0;
        for (const char *e = q + len - (dots ? 3 : 0); q < e; q++)
            if (!isdigit((unsigned char)*q) && *q != ' ') {
                cut_warn(x, "a channel line");
                return true;
            }
        if (chan >= REC_MAX_CHANNELS) {
            too_large(x, "channel %ld", chan);
            return true;
        }
        /* a ring order line's "/16" is the channel count */
        struct rec_facts *f = cur_facts(x->L);
        if (f && conn > 0) f->channels = (int)conn;
        if (dots) {
            char *t = xmalloc(len + 1);
            memcpy(t, skip_sp(p), len - 3);
            t[len - 3] = '\0';
            ring_line(x, chan, t, true);
            free(t);
        } else
            ring_line(x, chan, p, false);
        return true;
    }
    const char *via = find(x->L, REC_MK_VIA, p, " via ");
    if (!via) {
        if (ring_kw && neighbours(x, p)) return true;
        cut_warn(x, "a link line");
        return true;
    }
    /* the link lines' "/0" is a connection index; a ring line's "/16" the channel count.
     * Forms are kept per transport family (see link_forms) */
    int fam = link_family(via + 5);
    if (!ring_kw && fam >= 0) x->L->forms[fam] |= conn >= 0 ? 1 : 2;
    link_line(x, chan, ring_kw ? -1 : conn, p);
    return true;
}

static bool tree_part(const char **pp, int *down, int *ndown, long *me, long *up, bool up_first)
{
    const char *p = *pp;
    long v;
    *ndown = 0;
    if (up_first) {
        if (!scan_int(&p, REC_RANK_DIGITS, up) || !starts(p, "->")) return false;
        p += 2;
        if (!scan_int(&p, REC_RANK_DIGITS, me) || !starts(p, "->")) return false;
        p += 2;
    }
    for (int i = 0; i < REC_MAX_TREE_DOWN; i++) {
        if (!scan_int(&p, REC_RANK_DIGITS, &v)) return false;
        if (v >= 0) down[(*ndown)++] = (int)v;
        if (*p != '/') break;
        p++;
    }
    if (!up_first) {
        if (!starts(p, "->")) return false;
        p += 2;
        if (!scan_int(&p, REC_RANK_DIGITS, me) || !starts(p, "->")) return false;
        p += 2;
        if (!scan_int(&p, REC_RANK_DIGITS, up)) return false;
    }
    *pp = p;
    return true;
}

/* Another unit's tree entry for a rank the record's trees have: kept for its communicator's
 * picture (recview.h); false when the record may not keep more. */
static bool other_tree(struct rec_log *L, long chan, long me, const struct rec_tnode *node)
{
    if (L->nxtrees == L->capxtrees) {
        int more = L->capxtrees ? L->capxtrees : 16;
        if (!room(L, (size_t)more * sizeof *L->xtrees, "a tree's rank %ld", me)) return false;
        L->capxtrees += more;
        L->xtrees = xrealloc(L->xtrees, (size_t)L->capxtrees * sizeof *L->xtrees);
    }
    L->xtrees[L->nxtrees++] =
        (struct rec_xtree){.unit = L->unit, .chan = (int)chan, .me = (int)me, .node = *node};
    return true;
}

/* "Trees [0] 1/-1/-1->0->-1 [1] ...", 2.6/2.7's "[0] 1/-1/-1->0->7|7->0->1/-1/-1" and 2.4's
 * "[0] -1->0->1/-1/-1" (init.cc: " [%d] %d->%d->%d/%d/%d", up, rank, down[0..2]). */
/* A Trees line cut: the whole entries before the cut are read (any), the cut one (of
 * channel chan, -1 not known) is not; the warning says which. */
static void trees_cut(struct rec_ctx *x, bool any, long chan)
{
    if (!any) {
        cut_warn(x, "a Trees line");
        return;
    }
    char which[40] = "the last entry";
    if (chan >= 0) snprintf(which, sizeof which, "channel %ld's entry", chan);
    rec_warn_c(x->L, REC_W_CUT,
               "%s:%ld: cut: a Trees line ends inside %s: the entries before it are read, "
               "that one is not",
               x->name, x->line, which);
}

static bool trees_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    bool any = false;
    long last_chan = -1;
    for (p = skip_sp(p); *p == '['; p = skip_sp(p)) {
        p++;
        long chan = scan_uint(&p, 4), me, up, me2, up2;
        last_chan = chan;
        int down[REC_MAX_TREE_DOWN], nd, down2[REC_MAX_TREE_DOWN], nd2;
        if (chan < 0 || *p != ']') goto bad;
        p = skip_sp(p + 1);
        const char *e = p; /* 2.5+: down/down/down->rank->up; 2.4: up->rank->down/down/down */
        if (!(tree_part(&e, down, &nd, &me, &up, false) && (!*e || *e == ' ' || *e == '|')) &&
            !tree_part((e = p, &e), down, &nd, &me, &up, true))
            goto bad;
        p = e;
        if (*p == '|') {
            p++;
            if (!tree_part(&p, down2, &nd2, &me2, &up2, true)) goto bad;
            if (me2 != me || up2 != up || nd2 != nd ||
                memcmp(down, down2, sizeof(int) * (size_t)nd))
                rec_warn(L, "channel %ld: rank %ld's two trees differ (the first is shown)",
                         chan, me);
        }
        if (*p && *p != ' ') goto bad;
        if (chan >= REC_MAX_CHANNELS || me >= REC_MAX_RANKS || up >= REC_MAX_RANKS) {
            too_large(x, "a tree of channel %ld, rank %ld", chan, me);
            return true;
        }
        if (me < 0) goto bad;
        for (int i = 0; i < nd; i++)
            if (down[i] >= REC_MAX_RANKS) goto bad;
        struct rec_tree *t = &L->trees[chan];
        if (me >= t->cap) { /* doubling: a job's ranks come in order */
            int cap = t->cap ? t->cap : 64;
            while (cap <= me)
                cap *= 2;
            if (!room(L, (size_t)(cap - t->cap) * sizeof *t->node, "a tree's rank %ld", me))
                return true;
            t->node = xrealloc(t->node, (size_t)cap * sizeof *t->node);
            memset(t->node + t->cap, 0, (size_t)(cap - t->cap) * sizeof *t->node);
            t->cap = cap;
        }
        if (me >= t->n) t->n = (int)me + 1;
        struct rec_tnode *node = &t->node[me], got = {.set = true,
                                                      .unit = L->unit,
                                                      .up = up < 0 ? -1 : (int)up,
                                                      .ndown = nd};
        memcpy(got.down, down, sizeof down);
        if (!node->set)
            *node = got;
        else if (L->unit >= 0 && node->unit != L->unit && !other_tree(L, chan, me, &got))
            return true;
        struct rec_rank *rk = rank_at(L, me);
        if (rk && !rk->host[0]) snprintf(rk->host, sizeof rk->host, "%s", x->host);
        struct rec_facts *f = cur_facts(L);
        if (f) {
            claim_rank(L, me);
            if (up >= 0) rec_facts_seen(f, up);
            for (int i = 0; i < nd; i++)
                rec_facts_seen(f, down[i]);
            f->trees = true;
            f->kinds |= REC_KIND_TREES;
        }
        any = true;
    }
    if (*p && !starts(p, "comm 0x")) trees_cut(x, any, -1);
    return any;
bad:
    if (!*p || strlen(p) < 12) { /* the line ends inside an entry: cut, not wrong */
        trees_cut(x, any, last_chan);
        if (any) {
            struct rec_facts *f = cur_facts(L);
            if (f) f->trees = true;
        }
        return true;
    }
    rec_error(L, x->name, x->line,
              "a Trees entry that does not read as down/down/down->rank->up");
    return true;
}

/* " key N" in a comm line; -1 when absent. */
/* A comm line's fields, each found where strstr would find it first (" rank" may be the
 * start of " ranks"), in one pass over the line's blanks: the line is read once, not once a
 * key (the keys all start with a blank). */
enum { CK_RANK, CK_NRANKS, CK_NRANKS2, CK_NNODES, CK_LOCAL, CK_COMMID, CK_DEV, CK_BUSID, CK_N };
static const char *const comm_keys[CK_N] = {" rank",       " nranks",    " nRanks",  " nNodes",
                                            " localRanks", " commId 0x", " cudaDev", " busId "};

static void comm_scan(const char *c, const char **at)
{
    for (int i = 0; i < CK_N; i++)
        at[i] = NULL;
    /* the keys by their first letter: 'r' 0, 'n' 1..3, 'l' 4, 'c' 5..6, 'b' 7 */
    static const signed char lo[128] = {['r'] = CK_RANK + 1,
                                        ['n'] = CK_NRANKS + 1,
                                        ['l'] = CK_LOCAL + 1,
                                        ['c'] = CK_COMMID + 1,
                                        ['b'] = CK_BUSID + 1};
    static const signed char hi[128] = {
        ['r'] = CK_RANK, ['n'] = CK_NNODES, ['l'] = CK_LOCAL, ['c'] = CK_DEV, ['b'] = CK_BUSID};
    for (const char *p = strchr(c, ' '); p; p = strchr(p + 1, ' ')) {
        unsigned char f = (unsigned char)p[1];
        if (f >= 128 || !lo[f]) continue;
        for (int i = lo[f] - 1; i <= hi[f]; i++)
            if (!at[i] && starts(p, comm_keys[i])) at[i] = p;
    }
}

/* The number after key i (" rank 5"), -1 when none. */
static long comm_field(const char *const *at, int i, int base)
{
    const char *k = at[i];
    if (!k) return -1;
    k += strlen(comm_keys[i]);
    if (*k != ' ') return -1;
    char *end;
    long v = strtol(k + 1, &end, base);
    return end == k + 1 || v < 0 || v > 0x7fffffffL ? -1 : v;
}

/* "comm 0x... rank 10 nRanks 16 nNodes 2 localRanks 8 ..." and "comm 0x... rank 0 nranks 2
 * cudaDev 0 nvmlDev 0 busId 48000 ... - Init COMPLETE". */
static bool comm_fields(struct rec_ctx *x, const char *c);

static bool comm_line(struct rec_ctx *x, const char *p)
{
    const char *c = strstr(p, "comm 0x");
    return c && comm_fields(x, c);
}

/* NCCL 2.3's "rank 0 nranks 3" (no comm pointer before it), whole. */
static bool old_rank_line(struct rec_ctx *x, const char *p)
{
    long r, n;
    int end = 0;
    if (sscanf(p, "rank %ld nranks %ld%n", &r, &n, &end) != 2 || *skip_sp(p + end))
        return false;
    char buf[64];
    snprintf(buf, sizeof buf, " rank %ld nranks %ld", r, n);
    return comm_fields(x, buf);
}

/* The fields after "comm 0x..." (or a line's own " rank N nranks M"): the rank, its
 * communicator's size and what else the line says of them. */
static bool comm_fields(struct rec_ctx *x, const char *c)
{
    struct rec_log *L = x->L;
    const char *at[CK_N];
    comm_scan(c, at);
    long rank = comm_field(at, CK_RANK, 10);
    long nr = comm_field(at, CK_NRANKS, 10);
    if (nr < 0) nr = comm_field(at, CK_NRANKS2, 10);
    if (rank < 0 || nr <= 0) return false;
    if (nr > REC_MAX_RANKS) {
        too_large(x, "a communicator of %ld ranks", nr);
        return true;
    }
    if (!rank_slots(L, nr, "a communicator of %ld ranks", nr)) return true;
    if (rank >= nr) {
        rec_error(L, x->name, x->line, "comm line: rank %ld of %ld", rank, nr);
        return true;
    }
    struct rec_facts *f = cur_facts(L);
    if (f) {
        claim_rank(L, rank);
        if (f->nranks < 0) f->nranks = (int)nr;
        long fnn = comm_field(at, CK_NNODES, 10);
        if (fnn > 0 && fnn <= nr) f->nnodes = (int)fnn;
        long lr = comm_field(at, CK_LOCAL, 10);
        if (lr > 0 && lr <= nr) f->localranks = (int)lr;
        const char *id = at[CK_COMMID];
        if (id) copy_word(id + 8, "", f->id, sizeof f->id);
        f->kinds |= REC_KIND_COMM;
    }
    if (L->nranks >= 0 && L->nranks != nr) L->commsizes_differ = true;
    if ((int)nr > L->nranks) L->nranks = (int)nr;
    long nn = comm_field(at, CK_NNODES, 10);
    if (nn > 0 && nn <= nr) L->nnodes = (int)nn;
    struct rec_rank *rk = rank_at(L, rank);
    if (!rk->host[0]) snprintf(rk->host, sizeof rk->host, "%s", x->host);
    long dev = comm_field(at, CK_DEV, 10);
    if (dev >= 0 && rk->device < 0) rk->device = (int)dev;
    if (dev >= 0 && L->unit >= 0 && L->units[L->unit].device < 0)
        L->units[L->unit].device = (int)dev;
    const char *b = at[CK_BUSID];
    if (b && !rk->busid[0]) copy_word(b + 7, "", rk->busid, sizeof rk->busid);
    return true;
}

/* "NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_3:1/IB ; OOB ...": each device's link layer. */
static void ib_devices(struct rec_ctx *x, const char *p)
{
    struct rec_host_net *h = host_net(x->L, x->host);
    if (!h) return;
    for (const char *q = strchr(p, '['); q; q = strchr(q + 1, '[')) {
        const char *s = q + 1;
        long d = scan_uint(&s, 2);
        if (d < 0 || *s != ']' || d >= (long)sizeof h->ib_ll) continue;
        const char *end = strchr(s, ' ');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        char w[80];
        snprintf(w, sizeof w, "%.*s", (int)n, s);
        size_t wl = strlen(w);
        if (wl >= 5 && strcmp(w + wl - 5, "/RoCE") == 0)
            h->ib_ll[d] = 'R';
        else if (wl >= 3 && strcmp(w + wl - 3, "/IB") == 0)
            h->ib_ll[d] = 'I';
    }
}

/* "Pattern 4, crossNic 0, nChannels 8, bw 40.000000/40.000000, type NVL/PIX, ..." */
static void pattern_line(struct rec_ctx *x, const char *p)
{
    const char *t = strstr(p, ", type ");
    if (!t) return;
    char w[8];
    copy_word(t + 7, "/,", w, sizeof w);
    if (!w[0]) return;
    for (const char *c = w; *c; c++)
        if (!isupper((unsigned char)*c) && !isdigit((unsigned char)*c)) return;
    struct rec_host_net *h = host_net(x->L, x->host);
    if (!h) return;
    for (int i = 0; i < h->npath; i++)
        if (strcmp(h->path[i], w) == 0) return;
    if (h->npath < 4) snprintf(h->path[h->npath++], sizeof h->path[0], "%s", w);
}

/* ---- GRAPH and TUNING ------------------------------------------------------------------ */

/* "Pattern 5, crossNic 0, nChannels 7, bw 3.000000/3.000000, type NVL/PHB, sameChannels 0",
 * 2.6-2.18's "..., speed 12.000000/12.000000, ..." */
static void graph_pattern(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    struct rec_graph *g = &L->graph;
    if (g->npatterns == (int)(sizeof g->patterns / sizeof *g->patterns)) return;
    struct rec_pattern t = {0};
    char ti[8] = "", tx[8] = "";
    /* 2.6-2.18 say "speed %f/%f" where 2.19+ say "bw %f/%f" (search.cc), same order */
    char bw[8] = "";
    if (sscanf(p,
               "Pattern %d, crossNic %d, nChannels %d, %7[a-z] %lf/%lf, type "
               "%7[A-Z0-9]/%7[A-Z0-9], "
               "sameChannels %d",
               &t.pattern, &t.crossnic, &t.nchannels, bw, &t.bw_intra, &t.bw_inter, ti, tx,
               &t.same_channels) != 9 ||
        (strcmp(bw, "bw") != 0 && strcmp(bw, "speed") != 0))
        return;
    snprintf(t.type_intra, sizeof t.type_intra, "%s", ti);
    snprintf(t.type_inter, sizeof t.type_inter, "%s", tx);
    t.host_id = x->host_id; /* its printer: its channel lines are the same thread's */
    t.pid = L->ln.pid;
    t.tid = L->ln.tid;
    g->patterns[g->npatterns] = t;
    L->last_pattern = g->npatterns++;
}

/* " 0 : NET/1 GPU/0 GPU/0 ... NET/1": a channel of the last pattern the same thread printed
 * (processes print their searches at once, lines interleaved), up to its nChannels. */
static bool graph_channel(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    struct rec_pattern *pt = NULL;
    for (int i = L->graph.npatterns - 1; i >= 0 && !pt; i--) {
        struct rec_pattern *q = &L->graph.patterns[i];
        if (q->host_id == x->host_id && q->pid == L->ln.pid && q->tid == L->ln.tid)
            pt = q->channel_lines < q->nchannels ? q : NULL, i = pt ? i : -1;
    }
    if (!pt) return false;
    p = skip_sp(p);
    if (scan_uint(&p, 4) < 0 || !starts(p, " : ")) return false;
    p += 3;
    int n = 0;
    while (*(p = skip_sp(p))) {
        char w[16];
        p = copy_word(p, "", w, sizeof w);
        const char *sl = strchr(w, '/');
        if (!sl || sl == w || !isdigit((unsigned char)sl[1])) return false;
        n++;
    }
    if (!n) return false;
    pt->channel_lines++;
    return true;
}

/* The cells of "  Algorithm   |  Tree  |  Ring  | ..." after the first '|', into w[max]. */
static int bar_cells(const char *p, char w[][24], int max)
{
    const char *q = strchr(p, '|');
    int n = 0;
    while (q && n < max) {
        const char *e = strchr(q + 1, '|');
        const char *b = skip_sp(q + 1);
        size_t k = e ? (size_t)(e - b) : strlen(b);
        while (k && b[k - 1] == ' ')
            k--;
        if (!e && k == 0) break;
        snprintf(w[n++], 24, "%.*s", (int)(k < 23 ? k : 23), b);
        q = e;
    }
    return n;
}

const char *rec_tune_algo(int i)
{
    static const char *const n[] = {"Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                                    "NVLSTree", "PAT"};
    return i >= 0 && i < 7 ? n[i] : NULL;
}

const char *rec_tune_proto(int i)
{
    static const char *const n[] = {"LL", "LL128", "Simple"};
    return i >= 0 && i < 3 ? n[i] : NULL;
}

/* An algorithm or protocol as a choice line names it: an index ("Algo 1") or, from 2.23, a
 * name ("Algo COLLNET_DIRECT", "proto SIMPLE"); -1 for one not known, -2 for no token. */
static int tune_index(const char **q, const char *(*name)(int))
{
    char w[24];
    size_t n = 0;
    while (**q && **q != ' ' && n + 1 < sizeof w)
        w[n++] = *(*q)++;
    w[n] = '\0';
    if (n == 0) return -2;
    char *end;
    long v = strtol(w, &end, 10);
    if (*end == '\0') return v >= 0 && name((int)v) ? (int)v : -1;
    for (int i = 0; name(i); i++) { /* the name without '_', in any case */
        const char *a = name(i), *b = w;
        while (*a && *b) {
            if (*b == '_') {
                b++;
                continue;
            }
            if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) break;
            a++, b++;
        }
        if (!*a && !*b) return i;
    }
    return -1;
}

/* A per-size choice: "8589934592 Bytes -> Algo 1 proto 2 time 86069.968750" (rank 0's,
 * 2.19-2.22), "AllGather: 37756928 Bytes -> Algo 1 proto 2 time 2860.208008", and 2.23+'s
 * "Broadcast:    32768 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..0}". A choice
 * already kept (a training job repeats its sizes) is kept once. */
static bool tuning_choice(struct rec_tuning *T, const char *p)
{
    struct rec_tune_choice c = {.time_us = NAN};
    const char *q = p, *colon = strchr(p, ':');
    if (isupper((unsigned char)*p) && colon && colon - p < (long)sizeof c.fn) {
        for (const char *k = p; k < colon; k++)
            if (!isalnum((unsigned char)*k)) return false;
        snprintf(c.fn, sizeof c.fn, "%.*s", (int)(colon - p), p);
        q = skip_sp(colon + 1);
    }
    if (!isdigit((unsigned char)*q)) return false;
    char *end;
    c.bytes = strtod(q, &end);
    if (!starts(end, " Bytes -> Algo ")) return false;
    q = end + 15;
    c.algo = tune_index(&q, rec_tune_algo);
    if (c.algo == -2 || !starts(q, " proto ")) return true; /* cut: not data */
    q += 7;
    c.proto = tune_index(&q, rec_tune_proto);
    if (c.proto == -2) return true;
    if (starts(q, " time ")) c.time_us = strtod(q + 6, NULL);
    T->any = true;
    for (int i = 0; i < T->nchoices; i++) {
        const struct rec_tune_choice *o = &T->choices[i];
        if (o->bytes == c.bytes && o->algo == c.algo && o->proto == c.proto &&
            strcmp(o->fn, c.fn) == 0)
            return true;
    }
    if (T->nchoices < (int)(sizeof T->choices / sizeof *T->choices))
        T->choices[T->nchoices++] = c;
    else
        T->choices_dropped++;
    return true;
}

/* NCCL_DEBUG_SUBSYS=TUNING: the table (2.19+: "Algorithm |", "Protocol |"; before:
 * "Latency/AlgBw | Tree/    LL | ..."), "Max NThreads |", a function's latency/bandwidth
 * row, and the per-size choices (tuning_choice). */
static bool tuning_line(struct rec_log *L, const char *p)
{
    struct rec_tuning *T = &L->tuning;
    p = skip_sp(p);
    char w[REC_TUNE_COLS][24];
    if (tuning_choice(T, p)) return true;
    if (!strchr(p, '|')) return false;
    int n = bar_cells(p, w, REC_TUNE_COLS);
    if (starts(p, "Algorithm ")) { /* each algorithm spans its protocols' columns */
        T->any = true;
        for (int i = 0; i < n; i++)
            snprintf(T->algos[i], sizeof T->algos[i], "%.15s", w[i]);
        if (n > T->ncols && !T->ncols) T->ncols = -n; /* algorithms only, as yet */
        return true;
    }
    if (starts(p, "Protocol ")) {
        T->any = true;
        /* Every algorithm spans the same number of protocol columns; a row that does not
         * divide among them (cut, or not NCCL's) names no column's algorithm. */
        int na = T->ncols < 0 ? -T->ncols : 0;
        int per = na && n >= na && n % na == 0 ? n / na : 0;
        if (na && !per)
            rec_warn_c(L, REC_W_CUT,
                       "cut: a TUNING Protocol row of %d columns under %d algorithms: the "
                       "columns' algorithms are not read",
                       n, na);
        char al[REC_TUNE_COLS][16];
        for (int i = 0; i < na; i++)
            memcpy(al[i], T->algos[i], 16);
        for (int i = 0; i < n; i++) {
            snprintf(T->protos[i], sizeof T->protos[i], "%.7s", w[i]);
            snprintf(T->algos[i], sizeof T->algos[i], "%.15s", per ? al[i / per] : "");
        }
        T->ncols = n;
        return true;
    }
    if (starts(p, "Latency/AlgBw ")) {
        T->any = true;
        for (int i = 0; i < n; i++) {
            char *sl = strchr(w[i], '/');
            if (!sl) continue;
            *sl = '\0';
            snprintf(T->algos[i], sizeof T->algos[i], "%.15s", w[i]);
            snprintf(T->protos[i], sizeof T->protos[i], "%.7s", skip_sp(sl + 1));
        }
        T->ncols = n;
        return true;
    }
    if (starts(p, "Max NThreads ")) {
        T->any = true;
        T->nnthreads = 0;
        for (int i = 0; i < n; i++)
            T->nthreads[T->nnthreads++] = atoi(w[i]);
        return true;
    }
    /* "    Broadcast |     0.0/   0.0 | ...": a function's row */
    const char *bar = strchr(p, '|');
    char name[24];
    copy_word(p, "|", name, sizeof name);
    if (!isupper((unsigned char)name[0]) || skip_sp(p + strlen(name)) != bar || n == 0)
        return false;
    if (T->nfns == (int)(sizeof T->fns / sizeof *T->fns)) return true;
    struct rec_tune_fn *fn = &T->fns[T->nfns];
    memset(fn, 0, sizeof *fn);
    snprintf(fn->name, sizeof fn->name, "%s", name);
    for (int i = 0; i < n; i++) {
        double a, b;
        if (sscanf(w[i], "%lf/ %lf", &a, &b) != 2) return false;
        fn->cell[i][0] = a;
        fn->cell[i][1] = b;
        fn->ncell++;
    }
    T->nfns++;
    T->any = true;
    return true;
}

/* 2.27's "Enabled NCCL Func/Proto/Algo Matrix:" and the plain lines after it:
 * "     Function |       LL     LL128    Simple   |          Tree           Ring ..." and
 * "    Broadcast |        0         0         1   |             0              1 ...". */
static bool matrix_line(struct rec_log *L, const char *p)
{
    struct rec_tuning *T = &L->tuning;
    p = skip_sp(p);
    const char *bar = strchr(p, '|');
    const char *bar2 = bar ? strchr(bar + 1, '|') : NULL;
    if (!bar2) {
        T->matrix_state = 0;
        return false;
    }
    char w[REC_TUNE_COLS][16];
    int n = 0, nproto = 0;
    for (const char *q = bar + 1; *(q = skip_sp(q)) && n < REC_TUNE_COLS;) {
        if (*q == '|') {
            nproto = n;
            q++;
            continue;
        }
        q = copy_word(q, "|", w[n++], sizeof w[0]);
    }
    if (starts(p, "Function ")) {
        for (int i = 0; i < n; i++)
            memcpy(T->mcols[i], w[i], sizeof w[0]);
        T->nmcols = n;
        T->mproto_cols = nproto;
        T->matrix_state = 2;
        T->any = true;
        return true;
    }
    if (T->matrix_state != 2 || n != T->nmcols) {
        T->matrix_state = 0;
        return false;
    }
    if (T->nmrows == (int)(sizeof T->mrows / sizeof *T->mrows)) return true;
    struct rec_tune_mrow *r = &T->mrows[T->nmrows++];
    copy_word(p, "|", r->name, sizeof r->name);
    r->on = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(w[i], "1") == 0) r->on |= 1u << i;
    return true;
}

/* NCCL_GRAPH's per-channel "Tree 1 : 1 -> 3 -> 2/-1/-1" (connect.cc: "Tree %d : %d -> %d ->
 * %d/%d/%d", channel, up, rank, down[0..2]): read as the Trees entry "[1] 1->3->2/-1/-1". */
static bool tree_line(struct rec_ctx *x, const char *p)
{
    char t[96];
    size_t k = (size_t)snprintf(t, sizeof t, "[");
    for (; *p && k + 1 < sizeof t; p++) {
        if (starts(p, " : ")) {
            t[k++] = ']';
            t[k++] = ' ';
            p += 2;
        } else if (starts(p, " -> ")) {
            t[k++] = '-';
            t[k++] = '>';
            p += 3;
        } else {
            t[k++] = *p;
        }
    }
    t[k] = '\0';
    if (*p || !strchr(t, ']')) {
        cut_warn(x, "a Tree line");
        return true;
    }
    return trees_line(x, t);
}

static bool info_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    if (find(L, REC_MK_COMPLETE, p, "Init COMPLETE")) L->init_complete++;
    /* NCCL's error trace, "init.cc:1089 -> 3": an error code returned through init */
    const char *ic = find(L, REC_MK_INITCC, p, "init.cc:");
    if (!ic) ic = find(L, REC_MK_INITCC, p, "init.cu:");
    if (ic && !L->init_error[0]) {
        const char *q = ic + 8;
        long line = scan_uint(&q, 6), code = 0;
        if (line >= 0 && starts(q, " -> ")) {
            q += 4;
            if (scan_int(&q, 4, &code) && code != 0)
                snprintf(L->init_error, sizeof L->init_error, "%.8s%ld -> %ld", ic, line, code);
        }
        return true;
    }
    if (starts(p, "Channel ")) return channel_line(x, p + 8, false);
    if (starts(p, "Ring ")) return channel_line(x, p + 5, true);
    if (starts(p, "Trees ")) return trees_line(x, p + 6);
    if (starts(p, "Tree ") && isdigit((unsigned char)p[5])) return tree_line(x, p + 5);
    if (find(L, REC_MK_COMM, p, "comm 0x") && comm_line(x, p)) return true;
    if (starts(p, "rank ") && old_rank_line(x, p)) return true;
    if (starts(p, "Using network ")) {
        struct rec_host_net *h = host_net(L, x->host);
        if (h) copy_word(p + 14, "", h->net, sizeof h->net);
        return true;
    }
    if (starts(p, "NET/IB") && strstr(p, "Using [")) {
        ib_devices(x, p);
        return true;
    }
    if (starts(p, "Pattern ")) {
        pattern_line(x, p);
        graph_pattern(x, p);
        return true;
    }
    if (L->last_pattern >= 0 && graph_channel(x, p)) return true;
    struct rec_facts *f = cur_facts(L);
    if (find(L, REC_MK_NVLS_MC, p, "NVLS multicast support is available")) {
        struct rec_host_net *h = host_net(L, x->host);
        if (h) h->nvls = true;
        L->nvls = true;
        if (f) f->features |= REC_FEAT_NVLS;
        return true;
    }
    if (starts(p, "NVLS Head ")) { /* "NVLS Head  0:  0  8": a head rank per node */
        const char *q = strchr(p, ':');
        L->graph.nvls_heads++;
        if (f) f->features |= REC_FEAT_NVLS;
        for (q = q ? q + 1 : p + strlen(p); *(q = skip_sp(q));) {
            long r = scan_uint(&q, 6);
            if (r < 0) break;
            seen_rank(L, r);
        }
        return true;
    }
    if (starts(p, "Connected NVLS")) {
        if (f) f->features |= REC_FEAT_NVLS;
        return true;
    }
    if (isdigit((unsigned char)*p) && strstr(p, " coll channels")) {
        /* "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, ..." */
        const char *q = p;
        long nc = scan_uint(&q, 4);
        const char *nv = strstr(p, " nvls channels");
        if (f) {
            if (nc > 0) f->channels = (int)nc;
            f->kinds |= REC_KIND_NCHANNELS;
            if (nv) {
                const char *b = nv;
                while (b > p && isdigit((unsigned char)b[-1]))
                    b--;
                if (strtol(b, NULL, 10) > 0) f->features |= REC_FEAT_NVLS;
            }
        }
        return true;
    }
    if (tuning_line(L, p)) return true;
    if (starts(p, "Enabled NCCL Func/Proto/Algo Matrix")) {
        L->tuning.matrix_state = 1;
        L->tuning.any = true;
        return true;
    }
    if (starts(p, "Connected all"))
        add_kind(L, REC_KIND_CONNECTED);
    else if (starts(p, "P2P Chunksize"))
        add_kind(L, REC_KIND_CHUNK);
    else if (find(L, REC_MK_ENV, p, " set by environment to "))
        add_kind(L, REC_KIND_ENV);
    else if (starts(p, "Setting affinity"))
        add_kind(L, REC_KIND_AFFINITY);
    else if (starts(p, "threadThresholds"))
        add_kind(L, REC_KIND_THRESH);
    return starts(p, "NVLS ") || starts(p, "CollNet") || starts(p, "Connected all");
}

/* ---- nccl-tests ----------------------------------------------------------------------- */

/* "#  Rank  0 Group  0 Pid 422771 on HOST device  0 [0x0f] NVIDIA H800" (and the older form
 * without Group). */
/* How many device lines before this one, in its list (lines in a row), claimed rank r:
 * nccl-tests built without MPI and started by a launcher runs one single-rank job a
 * process, each printing "Rank 0"; two jobs' outputs pasted together do the same. */
static int device_claims(struct rec_ctx *x, long r, const char *host)
{
    struct rec_log *L = x->L;
    if ((x->line != L->blk_line + 1 || L->file != L->blk_file) && L->blk_cap)
        memset(L->blk_claims, 0, (size_t)L->blk_cap);
    L->blk_line = x->line;
    L->blk_file = L->file;
    if (r >= L->blk_cap) {
        long cap = L->blk_cap ? L->blk_cap : 64;
        while (cap <= r)
            cap *= 2;
        L->blk_claims = xrealloc(L->blk_claims, (size_t)cap);
        memset(L->blk_claims + L->blk_cap, 0, (size_t)(cap - L->blk_cap));
        L->blk_cap = (int)cap;
    }
    int k = L->blk_claims[r];
    if (k < 255) L->blk_claims[r]++;
    if (k > 0)
        rec_warn_c(L, REC_W_RANK_TWICE,
                   "%s:%ld: rank %ld claimed again (on %s) in one list of devices: separate "
                   "runs, each its own communicator (nccl-tests without MPI under a "
                   "launcher runs one a process)",
                   x->name, x->line, r, host);
    return k;
}

/* A device line cut before its host ("#  Rank 12 Group  0 Pid   1889 on   worke"), right
 * after the list's other lines: its rank is named, its host is not, and the list does not
 * end here (its length is not the job's). */
static bool device_line_cut(struct rec_ctx *x, long r)
{
    struct rec_log *L = x->L;
    if (!rank_at(L, r)) {
        too_large(x, "nccl-tests' rank %ld", r);
        return true;
    }
    rec_facts_seen(&L->units[L->dev_unit].f, r);
    L->dev_line = x->line;
    rec_warn_c(L, REC_W_CUT,
               "%s:%ld: cut: rank %ld's device line ends before its host: the rank is read, "
               "its host is not",
               x->name, x->line, r);
    return true;
}

/* The process a device line puts its rank in ("Pid 422771 on HOST"), the first line's:
 * what joins the list to the NCCL lines of the same processes (reccomm.c). */
static void device_process(struct rec_log *L, struct rec_rank *rk, const char *p,
                           const char *on)
{
    const char *pid = strstr(p, " Pid ");
    if (rk->list_pid || !pid || pid > on) return;
    pid = skip_sp(pid + 5);
    long v = scan_uint(&pid, 10);
    char h[64];
    copy_word(skip_sp(on + 4), "", h, sizeof h);
    int hid = rec_host_id(L, h, false);
    if (v <= 0 || hid < 0) return;
    rk->list_pid = v;
    rk->list_host = hid + 1;
    rk->list_no = L->dev_lists;
}

static bool device_line(struct rec_ctx *x, const char *p)
{
    p = skip_sp(p);
    if (!starts(p, "Rank ")) return false;
    p = skip_sp(p + 5);
    long r = scan_uint(&p, REC_RANK_DIGITS);
    const char *on = strstr(p, " on ");
    const char *dv = on ? strstr(on, " device ") : NULL;
    if (r >= 0 && !dv && x->L->dev_unit >= 0 && *p == ' ') return device_line_cut(x, r);
    if (r < 0 || !dv) return false;
    struct rec_rank *rk = rank_at(x->L, r);
    if (!rk) {
        too_large(x, "nccl-tests' rank %ld", r);
        return true;
    }
    {
        struct rec_log *L = x->L;
        char h[64];
        copy_word(skip_sp(on + 4), "", h, sizeof h);
        int hid = rec_host_id(L, h, true);
        int ti = rec_tests_unit_k(L, device_claims(x, r, h));
        struct rec_unit *u = &L->units[ti];
        rec_facts_seen(&u->f, r);
        rec_facts_host(&u->f, hid);
        /* a list goes on while device lines follow one another (another run's list
         * starting ends this one) */
        if (L->dev_unit >= 0 && L->dev_unit != ti) L->units[L->dev_unit].list_open = false;
        if (L->dev_unit < 0) L->dev_lists++;
        L->dev_unit = ti;
        L->dev_line = x->line;
        u->list_open = true;
    }
    if (!rk->host[0]) copy_word(skip_sp(on + 4), "", rk->host, sizeof rk->host);
    device_process(x->L, rk, p, on);
    const char *q = skip_sp(dv + 8);
    if (q[0] == '-' && q[1] == '1' && !isdigit((unsigned char)q[2])) q += 2; /* no device */
    long d = scan_uint(&q, 5);
    if (d >= 0 && rk->device < 0) rk->device = (int)d;
    q = skip_sp(q);
    if (*q == '[') {
        char b[24];
        q = copy_word(q + 1, "]", b, sizeof b);
        if (!rk->busid[0]) snprintf(rk->busid, sizeof rk->busid, "%s", b);
        if (*q == ']') q++;
    }
    q = skip_sp(q);
    if (*q && !rk->gpu[0]) snprintf(rk->gpu, sizeof rk->gpu, "%s", q);
    return true;
}

static struct rec_test *new_test(struct rec_ctx *x, const char *type, const char *redop);

/* The words of a table's line, '|' a separator as a space is (tables pasted side by side
 * with one), into w[max]; a lone '#' (a right-hand table's comment mark) is no word. Returns
 * how many, max + 1 when there were more. */
static int table_words(const char *p, char (*w)[32], int max)
{
    int n = 0;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '|')
            p++;
        if (!*p) break;
        const char *b = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '|')
            p++;
        if (p - b == 1 && *b == '#') continue;
        if (n == max) return max + 1;
        snprintf(w[n++], sizeof w[0], "%.*s", (int)(p - b), b);
    }
    return n;
}

/* nccl-tests' column names across its versions: 1.x's "bytes N type op ... res" are 2.x's
 * "size count type redop ... error". */
static const char *column_name(const char *w)
{
    static const char *const alias[][2] = {
        {"bytes", "size"}, {"N", "count"}, {"op", "redop"}, {"res", "error"}};
    for (size_t i = 0; i < sizeof alias / sizeof *alias; i++)
        if (strcmp(w, alias[i][0]) == 0) return alias[i][1];
    return w;
}

/* The column names of "#  size  count  type  redop  root  time  algbw  busbw  #wrong ...";
 * the same columns again after them are tables pasted side by side (hdr_copies). */
static void header_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    char w[REC_HDR_WORDS][32];
    int n = table_words(p, w, REC_HDR_WORDS);
    if (n > REC_HDR_WORDS) n = REC_HDR_WORDS;
    L->hdr_n = 0;
    L->hdr_ms = false;
    L->hdr_made = false;
    L->cur_test = -1;
    for (int i = 0; i < n; i++)
        snprintf(L->hdr[L->hdr_n++], sizeof L->hdr[0], "%.9s", column_name(w[i]));
    L->hdr_copies = 1;
    for (int j = 1; j < n; j++) { /* the first column again: the next table's */
        if (strcmp(L->hdr[j], L->hdr[0]) != 0 || n % j) continue;
        bool same = true;
        for (int i = j; i < n && same; i++)
            same = strcmp(L->hdr[i], L->hdr[i % j]) == 0;
        if (same) L->hdr_copies = n / j, L->hdr_n = j;
        break;
    }
    /* a header is a table, rows or not (a run that failed, a header inside NCCL's log) */
    L->side_first = L->ntests;
    for (int k = 0; k < L->hdr_copies; k++)
        if (new_test(x, "", "") && k == 0) L->group_first = L->cur_test;
    if (L->hdr_copies > 1) {
        L->cur_test = L->side_first;
        rec_warn_c(L, REC_W_SIDE_BY_SIDE,
                   "%s:%ld: %d tables side by side: read as %d runs, left to right", x->name,
                   x->line, L->hdr_copies, L->hdr_copies);
    }
    L->interleaved = false;
}

static int hdr_col(const struct rec_log *L, const char *name)
{
    for (int i = 0; i < L->hdr_n; i++)
        if (strcmp(L->hdr[i], name) == 0) return i;
    return -1;
}

static bool num_field(const char *w, double *v, bool na_ok)
{
    if (na_ok && strcmp(w, "N/A") == 0) {
        *v = NAN;
        return true;
    }
    char *end;
    *v = strtod(w, &end);
    return end != w && *end == '\0' && isfinite(*v);
}

static struct rec_test *new_test(struct rec_ctx *x, const char *type, const char *redop)
{
    struct rec_log *L = x->L;
    if (L->ntests == REC_MAX_TESTS) {
        too_large(x, "more than %d nccl-tests tables", REC_MAX_TESTS);
        return NULL;
    }
    struct rec_test *t = &L->tests[L->ntests];
    memset(t, 0, sizeof *t);
    snprintf(t->collective, sizeof t->collective, "%s", L->pending_coll);
    snprintf(t->type, sizeof t->type, "%s", type);
    snprintf(t->redop, sizeof t->redop, "%s", redop);
    t->old_header = hdr_col(L, "error") >= 0;
    t->avg_busbw = NAN;
    L->cur_test = L->ntests++;
    return t;
}

static bool meas(const char (*w)[32], int at, bool old, double ms, struct rec_meas *m)
{
    double e;
    /* N/A in time, algbw and busbw: a group that was not run (collviz bench's in-place
     * all_to_all); NAN, as an unchecked #wrong is. */
    if (!num_field(w[at], &m->time_us, true) || !num_field(w[at + 1], &m->algbw, true) ||
        !num_field(w[at + 2], &m->busbw, true) || !num_field(w[at + 3], &e, true))
        return false;
    m->time_us *= ms;
    m->wrong = old ? NAN : e;
    m->error = old ? e : NAN;
    return true;
}

/* A row's line that no table takes: said, and counted (a record whose rows are all refused
 * is not shown as a record without rows). */
__attribute__((format(printf, 2, 3))) static void row_refused(struct rec_ctx *x,
                                                              const char *fmt, ...)
{
    char m[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    x->L->rows_refused++;
    rec_error(x->L, x->name, x->line, "%s", m);
}

/* The table a row of (type, redop, size) goes to: the current one, or, when sizes go down
 * (two runs writing one terminal), the first run of the header's it continues. */
static struct rec_test *row_table(struct rec_ctx *x, const char *type, const char *redop,
                                  double size)
{
    struct rec_log *L = x->L;
    struct rec_test *t = L->cur_test >= 0 ? &L->tests[L->cur_test] : NULL;
    if (t && t->nrows == 0 && !t->type[0] && !t->redop[0]) { /* the header's table */
        /* a table's words are short ("float", "sum"); a longer one is cut, on purpose */
        snprintf(t->type, sizeof t->type, "%.*s", (int)sizeof t->type - 1, type);
        snprintf(t->redop, sizeof t->redop, "%.*s", (int)sizeof t->redop - 1, redop);
    }
    /* (a row of another type or operation is another table: not a run's row out of turn) */
    if (t && t->nrows > 0 && strcmp(t->type, type) == 0 && strcmp(t->redop, redop) == 0 &&
        (L->interleaved || size < t->rows[t->nrows - 1].size)) {
        bool down = size < t->rows[t->nrows - 1].size;
        t = NULL;
        for (int k = L->group_first; k < L->ntests && !t; k++) {
            struct rec_test *o = &L->tests[k];
            if (strcmp(o->type, type) == 0 && strcmp(o->redop, redop) == 0 &&
                (o->nrows == 0 || o->rows[o->nrows - 1].size <= size))
                t = o, L->cur_test = k;
        }
        if (down) {
            L->interleaved = true;
            rec_warn_c(L, REC_W_INTERLEAVED,
                       "%s:%ld: rows of several runs in one table (sizes go down): each row "
                       "read as part of the run it continues",
                       x->name, x->line);
        }
    }
    if (!t || strcmp(t->type, type) != 0 || strcmp(t->redop, redop) != 0)
        t = new_test(x, type, redop);
    return t;
}

/* One table's row of the header's hdr_n columns (w[]: alltoall's empty redop filled in). */
static void row_words(struct rec_ctx *x, char (*w)[32])
{
    struct rec_log *L = x->L;
    int ty = hdr_col(L, "type"), ro = hdr_col(L, "redop"), tcol = hdr_col(L, "time");
    const char *type = ty >= 0 && ty < tcol ? w[ty] : "";
    const char *redop = ro >= 0 && ro < tcol ? w[ro] : "";
    double size = strtod(w[0], NULL);
    struct rec_test *t;
    if (L->hdr_copies > 1) { /* side by side: the table of its place */
        t = &L->tests[L->cur_test];
        if (t->nrows == 0) {
            snprintf(t->type, sizeof t->type, "%.*s", (int)sizeof t->type - 1, type);
            snprintf(t->redop, sizeof t->redop, "%.*s", (int)sizeof t->redop - 1, redop);
        }
    } else {
        t = row_table(x, type, redop, size);
    }
    if (!t) return;
    struct rec_row r;
    bool old = t->old_header;
    double ms = L->hdr_ms ? 1000.0 : 1.0;
    if (!num_field(w[0], &r.size, false) || !num_field(w[1], &r.count, false) ||
        !meas((const char(*)[32])w, tcol, old, ms, &r.oop) ||
        !meas((const char(*)[32])w, tcol + 4, old, ms, &r.ip)) {
        row_refused(x, "a row with a field that is not a number");
        return;
    }
    if (t->nrows == REC_MAX_ROWS) {
        too_large(x, "more than %d rows in a table", REC_MAX_ROWS);
        return;
    }
    if (t->nrows % 64 == 0)
        t->rows = xrealloc(t->rows, (size_t)(t->nrows + 64) * sizeof *t->rows);
    t->rows[t->nrows++] = r;
}

static bool headless_row(struct rec_ctx *x, const char *p, bool say);

/* Do the n fields w[] begin a row of the current header (a number in every column but
 * type and redop), side by side as many times as the header is? A row cut short does. */
static bool row_prefix(const struct rec_log *L, char (*w)[32], int n)
{
    int hn = L->hdr_n, ty = hdr_col(L, "type"), ro = hdr_col(L, "redop");
    double v;
    if (n < 1 || hn < 1) return false;
    for (int i = 0; i < n; i++) {
        int c = i % hn;
        if (c == ty || c == ro) continue;
        if (!num_field(w[i], &v, c > 1)) return false;
    }
    return true;
}

/* A row under the current header: size count type redop [root] then two groups of time,
 * algbw, busbw and #wrong (or error); hdr_copies of them side by side. */
static void row_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    char w[REC_HDR_WORDS + 1][32];
    int n = table_words(p, w, REC_HDR_WORDS), hn = L->hdr_n, copies = L->hdr_copies;
    int ro = hdr_col(L, "redop"), tcol = hdr_col(L, "time");
    if (n == copies * (hn - 1) && ro >= 0 && ro < tcol) { /* alltoall's empty redop */
        for (int k = copies - 1; k >= 0; k--) {
            memmove(w[k * hn], w[k * (hn - 1)], (size_t)(hn - 1) * sizeof w[0]);
            memmove(w[k * hn + ro + 1], w[k * hn + ro], (size_t)(hn - 1 - ro) * sizeof w[0]);
            w[k * hn + ro][0] = '\0';
        }
        n = copies * hn;
    }
    if (n != copies * hn || tcol < 2 || tcol + 8 != hn) {
        /* a header made from another row's shape gives way to this row's own */
        if (L->hdr_made && headless_row(x, p, false)) return;
        if (n < copies * hn && tcol >= 2 && tcol + 8 == hn && row_prefix(L, w, n)) {
            /* a row cut short: not data; the tables side by side it holds whole are read */
            for (int k = 0; k < n / hn; k++) {
                if (copies > 1) L->cur_test = L->side_first + k;
                row_words(x, w + k * hn);
            }
            if (copies > 1) L->cur_test = L->side_first;
            rec_warn_c(L, REC_W_CUT, "%s:%ld: cut: a row of %d fields under a header of %d: %s",
                       x->name, x->line, n, copies * hn,
                       n >= hn ? "the tables it holds whole are read, the rest is not"
                               : "it is not read");
            return;
        }
        row_refused(x, "a row of %d fields under a header of %d%s", n > REC_HDR_WORDS ? -1 : n,
                    copies * hn, copies > 1 ? " (tables side by side)" : "");
        return;
    }
    for (int k = 0; k < copies; k++) {
        if (copies > 1) L->cur_test = L->side_first + k;
        row_words(x, w + k * hn);
    }
    if (copies > 1) L->cur_test = L->side_first;
}

/* Does w[0..m) read as one nccl-tests row: size count type, then up to two of redop (a
 * word) and root (an integer), then 8 numbers (time algbw busbw #wrong-or-error, twice; N/A
 * may stand for any of them)? Returns the header it implies in hdr (NULL: no). */
static bool row_shape(char (*w)[32], int m, char *hdr, size_t cap)
{
    double v;
    int lead = m - 8;
    if (lead < 3 || lead > 5) return false;
    if (!num_field(w[0], &v, false) || !num_field(w[1], &v, false) || num_field(w[2], &v, true))
        return false;
    bool redop = false, root = false, old = false;
    for (int i = 3; i < lead; i++) {
        bool num = num_field(w[i], &v, false);
        if (num && !root && v == (long)v) /* a root, after any redop */
            root = true;
        else if (!num && !redop && !root)
            redop = true;
        else
            return false;
    }
    for (int i = lead; i < m; i++) {
        if (!num_field(w[i], &v, true)) return false;
        if ((i - lead) % 4 == 3 && (strchr(w[i], '.') || strchr(w[i], 'e'))) old = true;
    }
    const char *g = old ? "time algbw busbw error" : "time algbw busbw #wrong";
    snprintf(hdr, cap, "size count type%s%s %s %s", redop ? " redop" : "", root ? " root" : "",
             g, g);
    return true;
}

/* A row with no header before it (the header was not copied): nccl-tests' columns, when
 * the row has their shape (row_shape), once or side by side. */
static bool headless_row(struct rec_ctx *x, const char *p, bool say)
{
    char w[REC_HDR_WORDS + 1][32], hdr[120], h2[120];
    int n = table_words(p, w, REC_HDR_WORDS), copies = 0;
    for (int m = 11; m <= 13 && !copies; m++) {
        if (n < m || n % m || !row_shape(w, m, hdr, sizeof hdr)) continue;
        copies = n / m;
        for (int k = 1; k < copies && copies; k++) /* each table its own shape, the same */
            if (!row_shape(w + k * m, m, h2, sizeof h2) || strcmp(h2, hdr) != 0) copies = 0;
    }
    if (!copies) return false;
    if (say || !x->L->hdr_made)
        rec_warn_c(x->L, REC_W_NO_HEADER,
                   "%s:%ld: nccl-tests rows without their header: read as nccl-tests' columns",
                   x->name, x->line);
    char all[REC_HDR_WORDS * 32];
    size_t k = 0;
    for (int c = 0; c < copies && k < sizeof all; c++)
        k += (size_t)snprintf(all + k, sizeof all - k, "%s ", hdr);
    header_line(x, all);
    x->L->hdr_made = true;
    row_line(x, p);
    return true;
}

/* A line that starts like a row (a number, and at least 8 numbers in all) but that no
 * header or row shape reads: said, never dropped in silence. */
static bool row_like(const char *p)
{
    char w[REC_HDR_WORDS + 1][32];
    int n = table_words(p, w, REC_HDR_WORDS), nums = 0;
    double v;
    for (int i = 0; i < n && i <= REC_HDR_WORDS - 1; i++)
        nums += num_field(w[i], &v, true);
    return n > 0 && num_field(w[0], &v, false) && nums >= 8;
}

static bool hash_body(struct rec_ctx *x, const char *p);

static bool hash_line(struct rec_ctx *x, const char *p)
{
    return hash_body(x, skip_sp(p + 1));
}

/* A comment line of nccl-tests' after its '#' (or where a viewer stripped it). */
static bool hash_body(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    if (starts(p, "Collective test starting: ")) {
        char c[32];
        copy_word(skip_sp(p + 26), "", c, sizeof c);
        size_t n = strlen(c);
        if (n > 5 && strcmp(c + n - 5, "_perf") == 0) c[n - 5] = '\0';
        snprintf(L->pending_coll, sizeof L->pending_coll, "%s", c);
        L->cur_test = -1;
        L->hdr_n = 0;
        return true;
    }
    if (starts(p, "Collective test concluded")) {
        L->cur_test = -1;
        L->hdr_n = 0;
        return true;
    }
    if (starts(p, "Avg bus bandwidth")) {
        const char *c = strchr(p, ':');
        double v;
        char w[32];
        if (c && L->ntests > 0) {
            copy_word(skip_sp(c + 1), "", w, sizeof w);
            if (num_field(w, &v, false)) L->tests[L->ntests - 1].avg_busbw = v;
        }
        return true;
    }
    if (starts(p, "Rank ")) return device_line(x, p);
    /* collviz bench under MPI lists its own process's ranks, then "(3 more ranks in the
     * job's other processes: not listed here)" */
    if (*p == '(' && strstr(p, " more rank") && strstr(p, "not listed")) {
        const char *q = p + 1;
        long more = scan_uint(&q, REC_RANK_DIGITS);
        if (more > 0 && L->tests_unit >= 0) {
            L->tests_more += (int)more;
            rec_warn_c(L, REC_W_PARTIAL,
                       "%s:%ld: the list of devices names some ranks only (%ld more are in "
                       "the job, their hosts not in the record)",
                       x->name, x->line, more);
        }
        return true;
    }
    if ((starts(p, "size ") || starts(p, "bytes ")) && strstr(p, "busbw")) {
        header_line(x, p);
        return true;
    }
    if (L->hdr_n > 0 && strstr(p, "(B)")) {
        L->hdr_ms = strstr(p, "(ms)") != NULL;
        return true;
    }
    return false;
}

/* ---- a line --------------------------------------------------------------------------- */

static void warn_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    if (L->first_warn[0]) return;
    p = skip_sp(p);
    snprintf(L->first_warn, sizeof L->first_warn, "%s%s%s", x->host, x->host[0] ? ": " : "", p);
    L->first_warn_line = (int)(x->line > 0x7fffffff ? 0x7fffffff : x->line);
}

/* "NCCL version 2.21.5+cuda12.4", "RCCL version 2.20.5+hip6.2 HEAD:45b618a+",
 * "RCCL version : 2.x": the library's banner, anywhere in the line. */
static bool version_line(struct rec_ctx *x, const char *s)
{
    struct rec_log *L = x->L;
    const char *v = find(L, REC_MK_VERSION, s, "NCCL version ");
    bool rccl = false;
    if (!v) {
        v = find(L, REC_MK_VERSION, s, "RCCL version ");
        rccl = v != NULL;
    }
    if (!v) return false;
    v += 13;
    if (rccl && starts(v, ": ")) v += 2;
    if (!isdigit((unsigned char)*v)) return false;
    char ver[sizeof L->version];
    const char *end = copy_word(v, "", ver, sizeof ver);
    if ((size_t)(end - v) >= sizeof ver) /* never shown cut without saying so */
        rec_warn(L, "the %s version is longer than %zu characters: %s... (cut)",
                 rccl ? "RCCL" : "NCCL", sizeof ver - 1, ver);
    if (rccl) L->rccl = true;
    if (!L->version[0])
        snprintf(L->version, sizeof L->version, "%s", ver);
    else if (strcmp(L->version, ver) != 0)
        rec_warn(L, "two NCCL versions: %s and %s", L->version, ver);
    return true;
}

/* nccl-tests' "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902": the
 * library's version code (NCCL_VERSION_CODE: x*10000 + y*100 + z since 2.9, x*1000 + y*100
 * + z before). */
static void tests_version(struct rec_log *L, const char *p)
{
    const char *c = strstr(p, "nccl-library=");
    if (!c) return;
    c += 13;
    long code = scan_uint(&c, 7);
    if (code <= 0) return;
    long x, y, z;
    if (code >= 10000)
        x = code / 10000, y = code % 10000 / 100, z = code % 100;
    else
        x = code / 1000, y = code % 1000 / 100, z = code % 100;
    snprintf(L->tests_version, sizeof L->tests_version, "%ld.%ld.%ld", x, y, z);
}

/* The number after a command line's option word (" -np 40"), -1 when none. */
static long option_number(const char *p, const char *opt)
{
    for (const char *o = strstr(p, opt); o; o = strstr(o + 1, opt)) {
        const char *q = o + strlen(opt);
        if (*q != ' ' && *q != '=') continue;
        q = skip_sp(q + 1);
        long v = scan_uint(&q, 7);
        if (v > 0 && (*q == ' ' || *q == '\0')) return v;
    }
    return -1;
}

/* What the job's framework says of it: vLLM's "rank 15 in world size 16 is assigned as DP
 * rank 0, PP rank 1, TP rank 7" (parallel_state.py), anywhere in a line (spliced ones
 * too). */
static void job_line(struct rec_log *L, const char *p)
{
    const char *w = strstr(p, " in world size ");
    if (!w) return;
    const char *q = w + 15;
    long world = scan_uint(&q, 7);
    if (world <= 0 || !starts(q, " is assigned as ")) return;
    struct rec_job *J = &L->job;
    if (J->world < 0) {
        J->world = (int)world;
        snprintf(J->world_from, sizeof J->world_from, "vLLM");
    }
    static const char *const role[] = {"DP rank ", "PP rank ", "TP rank "};
    int *size[] = {&J->dp, &J->pp, &J->tp};
    for (int i = 0; i < 3; i++) {
        const char *r = strstr(q, role[i]);
        if (!r) continue;
        r += strlen(role[i]);
        long v = scan_uint(&r, 7);
        if (v >= 0 && v < world && v + 1 > *size[i]) *size[i] = (int)v + 1;
    }
}

/* srun's tasks: -n/--ntasks, else -N/--nodes times --ntasks-per-node (one task a node
 * when it is not said, as srun starts them); -1 when the line says neither. */
static long srun_tasks(const char *m)
{
    long n = option_number(m, " --ntasks");
    if (n < 0) n = option_number(m, " -n");
    if (n > 0) return n;
    long nodes = option_number(m, " --nodes");
    if (nodes < 0) nodes = option_number(m, " -N");
    long per = option_number(m, " --ntasks-per-node");
    return nodes > 0 ? nodes * (per > 0 ? per : 1) : -1;
}

/* nccl-tests runs -g GPUs in each of -t threads of a process: the ranks a process runs,
 * when line p (the launcher's, or the line its '\' continues onto) names an nccl-tests
 * program. */
static void command_per_proc(struct rec_log *L, const char *p)
{
    if (L->job.procs <= 0 || !strstr(p, "_perf")) return;
    long g = option_number(p, " -g"), t = option_number(p, " -t");
    L->job.per_proc = (int)((g > 0 ? g : 1) * (t > 0 ? t : 1));
}

/* Does line p end in a shell's line continuation ('\')? */
static bool continues(const char *p)
{
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\r'))
        n--;
    return n && p[n - 1] == '\\';
}

/* A command line that names the launcher: "mpirun --mca ...", "srun -l ...". */
static void command_line(struct rec_log *L, const char *p)
{
    if (L->job.cmd_open) { /* the launcher's line goes on here */
        L->job.cmd_open = continues(p);
        if (!L->job.per_proc) command_per_proc(L, p);
    }
    const char *m = strstr(p, "mpirun ");
    if (!m) m = strstr(p, "mpiexec ");
    const char *sr = strstr(p, "srun ");
    if (sr && sr != p && sr[-1] != ' ' && sr[-1] != '/') sr = NULL;
    if (m && (m == p || m[-1] == ' ' || m[-1] == '/') && L->job.procs < 0) {
        /* Open MPI takes each of -np, --np, -n and --n */
        static const char *const npopt[] = {" -np", " --np", " -n", " --n"};
        long np = -1;
        for (size_t i = 0; i < sizeof npopt / sizeof *npopt && np < 0; i++)
            np = option_number(m, npopt[i]);
        if (np > 0) L->job.procs = (int)np;
        snprintf(L->job.procs_from, sizeof L->job.procs_from, "mpirun");
        command_per_proc(L, m);
        L->job.cmd_open = continues(m);
    } else if (sr && L->job.procs < 0) {
        long n = srun_tasks(sr);
        if (n > 0 && n <= REC_MAX_RANKS) L->job.procs = (int)n;
        snprintf(L->job.procs_from, sizeof L->job.procs_from, "srun");
        command_per_proc(L, sr);
        L->job.cmd_open = continues(sr);
    }
    if (L->launcher) return;
    if (m && (m == p || m[-1] == ' ' || m[-1] == '/')) {
        L->launcher =
            strstr(p, "--mca") || strstr(p, "openmpi") ? REC_LAUNCH_OPEN_RTE : REC_LAUNCH_HYDRA;
        return;
    }
    if (starts(p, "srun ") || strstr(p, " srun ")) L->launcher = REC_LAUNCH_SLURM;
    if (starts(p, "torchrun ") || strstr(p, " torchrun ")) L->launcher = REC_LAUNCH_TORCHRUN;
}

/* "nranks 8" / "nRanks 16" in a comm line, -1 when none */
static long said_nranks(const struct rec_log *L, const char *msg)
{
    const char *k = find(L, REC_MK_NRANKS, msg, " nranks ");
    if (!k) k = find(L, REC_MK_NRANKS, msg, " nRanks ");
    if (!k) return -1;
    k += 8;
    return scan_uint(&k, 7);
}

/* "comm 0x7f..." anywhere in the message: the line's communicator pointer. */
static uint64_t comm_ptr(const struct rec_log *L, const char *msg)
{
    const char *c = find(L, REC_MK_COMM, msg, "comm 0x");
    if (!c || (c > msg && c[-1] != ' ')) return 0;
    c += 7;
    uint64_t v = 0;
    int n = 0;
    for (; isxdigit((unsigned char)*c) && n < 16; c++, n++)
        v = v * 16 +
            (uint64_t)(isdigit((unsigned char)*c) ? *c - '0' : (tolower(*c) - 'a' + 10));
    return n ? v : 0;
}

/* The host of a header: for a spliced line the name may carry the end of the other line
 * ("166015g183"): a known host that ends it is taken, else none. */
static int header_host(struct rec_ctx *x, const struct rec_line *ln)
{
    struct rec_log *L = x->L;
    if (!ln->host[0]) return -1;
    if (!ln->glued) {
        if (x->last_host[0] && strcmp(ln->host, x->last_host) == 0) return x->last_host_id;
        x->last_host_id = rec_host_id(L, ln->host, true);
        copy_str(x->last_host, sizeof x->last_host, ln->host);
        return x->last_host_id;
    }
    int id = rec_host_id(L, ln->host, false);
    if (id >= 0) return id;
    size_t n = strlen(ln->host);
    for (int i = 0; i < L->nhostnames; i++) {
        size_t k = strlen(L->hostnames[i]);
        if (k < n && strcmp(ln->host + n - k, L->hostnames[i]) == 0) return i;
    }
    return -1;
}

/* "13] 1/-1/-1->0->-1 [14] ...": the rest of a Trees line */
static bool wrapped_trees(const char *p)
{
    if (scan_uint(&p, 4) < 0 || !starts(p, "] ")) return false;
    p += 2;
    long v;
    return scan_int(&p, REC_RANK_DIGITS, &v) && (*p == '/' || starts(p, "->"));
}

/* nccl-tests' table title and units lines without their '#' ("out-of-place   in-place",
 * "(B)    (elements)   ...  (us)  (GB/s)"): read as with it, never prose. */
static bool hashless_title(struct rec_log *L, const char *p)
{
    bool title = starts(p, "out-of-place") && strstr(p, "in-place");
    bool units = starts(p, "(B)") && strstr(p, "(elements)");
    if (!title && !units) return false;
    L->prefixes |= REC_PFX_HASHLESS;
    if (units && L->hdr_n > 0) L->hdr_ms = strstr(p, "(ms)") != NULL;
    return true;
}

/* A shell command that sets the environment first: "NAME=VALUE ... PROGRAM ...", one or
 * more assignments (a value quoted or not), then a word that is none. */
static bool shell_command(const char *p)
{
    int sets = 0;
    for (;;) {
        const char *q = p;
        if (!isalpha((unsigned char)*q) && *q != '_') break;
        while (isalnum((unsigned char)*q) || *q == '_')
            q++;
        if (*q != '=') break;
        for (q++; *q && *q != ' ' && *q != '\t'; q++) /* the value, quotes kept whole */
            if (*q == '\'' || *q == '"') {
                const char *e = strchr(q + 1, *q);
                if (!e) return false;
                q = e;
            }
        sets++;
        p = skip_sp(q);
    }
    return sets > 0 && *p && *p != '#';
}

/* The start of an NCCL INFO message, in a line that has no header: NCCL's text whose
 * header is elsewhere (a spliced line's) or was cut off. A command line is none. */
static bool nccl_text(const char *p)
{
    if (shell_command(p)) return false;
    static const char *const forms[] = {
        "Trees [",        "comm 0x",   "Connected all ", "Connected NVLS",   "Bootstrap :",
        "NET/",           "NCCL_",     "Init COMPLETE",  "Init START",       "Setting affinity",
        "Using network ", "P2P Chunk", "NVLS multicast", "cudaDriverVersion"};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
        if (starts(p, forms[i])) return true;
    const char *q = NULL;
    if (starts(p, "Ring ")) q = p + 5;
    if (starts(p, "Channel ")) q = p + 8;
    if (starts(p, "Tree ")) q = p + 5;
    return q && isdigit((unsigned char)*q);
}

/* A spliced line whose first header had no text: that header's text is owed. */
static void owe(struct rec_ctx *x, const struct rec_line *ln)
{
    if (!ln->nccl || !ln->owner) return;
    int n = (int)(sizeof x->owners / sizeof *x->owners);
    if (x->nowners == n) { /* the oldest is forgotten */
        memmove(x->owners, x->owners + 1, (size_t)(n - 1) * sizeof *x->owners);
        x->nowners--;
    }
    struct rec_owner *o = &x->owners[x->nowners++];
    memcpy(o->host, ln->owner_host, sizeof o->host);
    o->pid = ln->owner_pid;
    o->tid = ln->owner_tid;
    o->dev = ln->owner_dev;
    o->line = x->line;
}

/* A line with no header that holds NCCL's text is read as the text a spliced line's first
 * header owes: right after that line, its header's; else the one header still owing text.
 * Said either way; with no such header (or several), it is not read, and said. */
static void headerless(struct rec_ctx *x, struct rec_line *ln)
{
    struct rec_log *L = x->L;
    const char *p = skip_sp(ln->body);
    if (ln->nccl || !nccl_text(p)) return;
    int k = -1;
    if (x->nowners > 0 && x->owners[x->nowners - 1].line == x->line - 1)
        k = x->nowners - 1;
    else if (x->nowners == 1)
        k = 0;
    if (k < 0) {
        rec_warn_c(L, REC_W_CUT, "%s:%ld: NCCL's text without its header: not read", x->name,
                   x->line);
        return;
    }
    struct rec_owner o = x->owners[k];
    memmove(x->owners + k, x->owners + k + 1, (size_t)(x->nowners - k - 1) * sizeof o);
    x->nowners--;
    rec_warn_c(L, REC_W_SPLICED,
               "%s:%ld: NCCL's text without its header: read as that of line %ld's first "
               "header (%s%spid %ld), spliced there without its text",
               x->name, x->line, o.line, o.host, o.host[0] ? " " : "", o.pid);
    ln->nccl = true;
    ln->warn = ln->glued = false;
    memcpy(ln->host, o.host, sizeof ln->host);
    ln->pid = o.pid;
    ln->tid = o.tid;
    ln->dev = o.dev;
    ln->msg = p;
}

static bool one_line(struct rec_ctx *x, char *s)
{
    struct rec_log *L = x->L;
    struct rec_line *ln = &L->ln;
    rec_line_split(s, ln);
    owe(x, ln);
    headerless(x, ln);
    if (L->wrap_open && ln->nccl) L->wrap_open = false;
    L->prefixes |= ln->prefixes;
    if (ln->launcher && !L->launcher) L->launcher = ln->launcher;
    if (ln->dedup)
        rec_warn_c(L, REC_W_DEDUP,
                   "%s:%ld: Ray deduplicated lines (\"[repeated Nx across cluster]\"): lines "
                   "of other processes are not in the record",
                   x->name, x->line);
    if (ln->cut)
        rec_warn_c(L, REC_W_CUT, "%s:%ld: cut: a line ends inside its form", x->name, x->line);
    if (ln->spliced)
        rec_warn_c(L, REC_W_SPLICED,
                   "%s:%ld: spliced: another process's output runs into this line", x->name,
                   x->line);
    if (ln->unreadable)
        rec_warn_c(L, REC_W_UNREADABLE,
                   "%s:%ld: an NCCL line after text that is no known prefix: the text is "
                   "not read",
                   x->name, x->line);
    if (ln->placeholder && !L->placeholder_said) {
        L->placeholder_said = true;
        rec_warn_c(L, REC_W_PLACEHOLDER,
                   "%s:%ld: the host name is a placeholder put in by hand: the lines' hosts "
                   "are not known",
                   x->name, x->line);
    }
    bool got = version_line(x, ln->body);
    L->unit = -1;
    if (ln->nccl) {
        L->nccl_lines = true;
        int h = header_host(x, ln);
        copy_str(x->host, sizeof x->host, rec_host_name(L, h));
        x->host_id = h;
        if (h >= 0) {
            L->host_lines[h]++;
            if (x->line == 1 && L->nfirst < (int)(sizeof L->first_hosts / sizeof(int)))
                L->first_hosts[L->nfirst++] = h;
        }
        if (ln->pid >= 0 || h >= 0 || ln->dev >= 0)
            L->unit = rec_unit_for(L, h, ln->pid, ln->tid, comm_ptr(L, ln->msg), ln->dedup,
                                   find(L, REC_MK_START, ln->msg, "Init START") != NULL,
                                   said_nranks(L, ln->msg));
        if (!ln->warn) {
            bool r = info_line(x, ln->msg);
            if (find(L, REC_MK_COMPLETE, ln->msg, "Init COMPLETE")) rec_unit_done(L, L->unit);
            return r || got;
        }
        warn_line(x, ln->msg);
        return true;
    }
    const char *p = skip_sp(ln->body);
    /* a line broken in two by a terminal copy: an opening "(" alone, or a Trees line's
     * second half ("  13] 1/-1/-1->0->-1 [14] ...") */
    if (L->wrap_open || (isdigit((unsigned char)*p) && wrapped_trees(p)))
        rec_warn_c(L, REC_W_WRAPPED, "%s:%ld: a line broken in two: its pieces are not read",
                   x->name, x->line);
    L->wrap_open = strcmp(p, "(") == 0;
    if (L->tuning.matrix_state && matrix_line(L, p)) return true;
    if (*p == '#') {
        if (strstr(p, "nccl-library=")) tests_version(L, p);
        return hash_line(x, p) || got;
    }
    if (starts(p, "rccl-tests: Version")) {
        L->rccl = true;
        return true;
    }
    /* nccl-tests' comment lines with their '#' stripped (as some log viewers show them) */
    if (starts(p, "Rank ") &&
        (L->dev_unit >= 0 || (strstr(p, " Pid ") && strstr(p, " device ")))) {
        L->prefixes |= REC_PFX_HASHLESS;
        return device_line(x, p);
    }
    if (starts(p, "Avg bus bandwidth") || starts(p, "Out of bounds values")) {
        L->prefixes |= REC_PFX_HASHLESS;
        return hash_body(x, p);
    }
    if (starts(p, "size ") && strstr(p, "busbw") && strstr(p, "count")) {
        L->prefixes |= REC_PFX_HASHLESS;
        header_line(x, p);
        return true;
    }
    if (hashless_title(L, p)) return true;
    if (L->hdr_n > 0 && isdigit((unsigned char)*p)) {
        row_line(x, p);
        return true;
    }
    if (isdigit((unsigned char)*p) && headless_row(x, p, true)) return true;
    if (isdigit((unsigned char)*p) && row_like(p)) {
        row_refused(x, "a line of numbers that is no nccl-tests row (no header before it, "
                       "and not the columns of any nccl-tests version)");
        return true;
    }
    command_line(L, p);
    job_line(L, p);
    if (L->ntests > 0 && *p && !ln->nccl && L->cur_test >= 0)
        rec_warn_c(L, REC_W_PROSE,
                   "%s:%ld: text that is no log line between nccl-tests' tables: not read",
                   x->name, x->line);
    /* a command line naming the test ("./build/all_reduce_perf -b 8 ..."), before its table */
    const char *perf = strstr(p, "_perf");
    if (perf && !L->pending_coll[0] && (perf[5] == ' ' || perf[5] == '\0')) {
        const char *b = perf;
        while (b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
            b--;
        snprintf(L->pending_coll, sizeof L->pending_coll, "%.*s", (int)(perf - b), b);
    }
    return got;
}

static void file_free(struct rec_file *F)
{
    if (F) {
        free(F->buf);
        free(F->piece);
        free(F->carry);
    }
    free(F);
}

void rec_parse_begin(struct rec_log *L, const char *name)
{
    struct rec_file *F = L->file ? L->file : xcalloc(1, sizeof *F);
    L->file = F;
    snprintf(F->name, sizeof F->name, "%s", name);
    F->x = (struct rec_ctx){.L = L, .name = F->name};
    if (!F->buf) F->buf = xmalloc(REC_MAX_LINE + 1);
    F->got = 0;
    F->last_read = true;
    L->dev_unit = -1; /* a list that ended with the last file stays open */
    /* a new file starts outside any table */
    L->hdr_n = 0;
    L->cur_test = -1;
    L->pending_coll[0] = '\0';
    L->tuning.matrix_state = 0;
}

/* A list of devices ends at the first line after it that is not blank and no device
 * line: the list is then whole (nccl-tests prints "#" after it). One that runs to the end
 * of its file may have been cut there. */
static void list_goes_on(struct rec_log *L, const struct rec_file *F)
{
    if (L->dev_unit < 0 || L->dev_line == F->x.line || !*skip_sp(F->buf)) return;
    L->units[L->dev_unit].list_open = false;
    L->dev_unit = -1;
}

/* Read one cleaned line (in buf, which it may change). */
static void read_one(struct rec_log *L, struct rec_file *F, char *buf)
{
    F->x.host[0] = '\0';
    F->x.host_id = -1;
    F->last_read = one_line(&F->x, buf);
    if (F->last_read) F->got++;
    list_goes_on(L, F);
}

/* Where NCCL's header "host:pid:tid [dev] NCCL INFO" starts, given its "] NCCL " at q in
 * line (after its first character); NULL when what is before q is not that header after a
 * blank. */
static const char *header_back(const char *line, const char *q)
{
    const char *b = q;
    while (b > line && isdigit((unsigned char)b[-1]))
        b--;
    if (b == q || b - line < 2 || b[-1] != '[' || b[-2] != ' ') return NULL;
    b -= 2;
    for (int k = 0; k < 2; k++) { /* ":tid", ":pid" */
        const char *d = b;
        while (b > line && isdigit((unsigned char)b[-1]))
            b--;
        if (b == d || b == line || b[-1] != ':') return NULL;
        b--;
    }
    const char *h = b; /* a host name's characters, a blank before it */
    while (h > line &&
           (isalnum((unsigned char)h[-1]) || h[-1] == '-' || h[-1] == '.' || h[-1] == '_'))
        h--;
    return h > line && h < b && isspace((unsigned char)h[-1]) ? h : NULL;
}

/* A web page's copy joins lines: NCCL lines one after another on one line, blanks
 * between. The places where another line starts (a whole header after two blanks or more,
 * with an NCCL line before it on the line, or, the first, a piece of a line without a
 * header of its own), into at[max]; returns how many. Spliced lines (a header run into the
 * text before it, or after one blank) are not joined lines: one_line warns about those. */
static int joined_at(const char *line, const char **at, int max)
{
    int n = 0;
    const char *from = line, *seen = strstr(line, "NCCL ");
    for (const char *q = strstr(line + 1, "] NCCL "); q && n < max;
         q = strstr(q + 1, "] NCCL ")) {
        size_t rest = strlen(q + 2); /* the last header may be cut ("NCCL I") */
        size_t k = rest < 9 ? rest : 9;
        if (strncmp(q + 2, "NCCL INFO", k) != 0 && strncmp(q + 2, "NCCL WARN", k) != 0)
            continue;
        const char *h = header_back(line, q);
        /* a copy pads the lines it joins: two blanks at least (processes' output spliced
         * into one line has one, or none) */
        if (!h || h - from < 3 || h[-2] != ' ') continue;
        /* before it: a line of NCCL's, or (the first) a piece of one wrapped: blanks before
         * the header, and no header of its own */
        bool nccl_before = seen && seen < h;
        bool piece = n == 0 && (!seen || seen > h);
        if (!nccl_before && !piece) continue;
        at[n++] = h;
        from = h;
    }
    return n;
}

/* Read a piece [b, b + len) of a cleaned line as a line of its own. */
static void read_piece(struct rec_log *L, struct rec_file *F, const char *b, size_t len)
{
    unsigned prefixes = L->ln.prefixes; /* what cleaning the whole line removed */
    memcpy(F->piece, b, len);
    F->piece[len] = '\0';
    memset(&L->ln, 0, sizeof L->ln);
    L->ln.prefixes = prefixes;
    L->ln.line = F->piece;
    L->ln.marks = rec_line_marks(F->piece, &L->ln);
    read_one(L, F, F->piece);
    L->ln.prefixes = prefixes;
}

/* The piece carried from the line before, read: ended by [b, b + len) (a line the copy
 * wrapped inside one of its words) when len > 0, else as it is. */
static void read_carry(struct rec_log *L, struct rec_file *F, const char *b, size_t len)
{
    char *c = F->carry;
    size_t n = F->ncarry;
    F->carry = NULL;
    if (n + len > REC_MAX_LINE) len = 0;
    char *t = xmalloc(n + len + 1);
    memcpy(t, c, n);
    memcpy(t + n, b, len);
    free(c);
    read_piece(L, F, t, n + len);
    free(t);
}

/* Read the joined lines of F->buf, split at at[0..n). A first piece that is no line of
 * its own (text with no NCCL header) ends the piece carried from the line before (the copy
 * wrapped there: "... NCCL I" then "NFO Channel ..."); the last piece is carried to the
 * next line, which may end it. */
static void read_joined(struct rec_log *L, struct rec_file *F, const char **at, int n)
{
    if (!F->piece) F->piece = xmalloc(REC_MAX_LINE + 1);
    if (n > 0 && !(L->wseen >> REC_W_JOINED & 1))
        rec_warn_c(L, REC_W_JOINED,
                   "%s:%ld: joined: several log lines on one line (a web page's copy?): each "
                   "is read from its NCCL header on",
                   F->name, F->x.line);
    const char *b = F->buf;
    for (int i = 0; i <= n; i++) {
        const char *e = i < n ? at[i] : b + strlen(b);
        size_t len = (size_t)(e - b);
        while (len && b[len - 1] == ' ')
            len--;
        if (i == 0 && F->carry) {
            bool ends = len && !memmem(b, len, "NCCL ", 5);
            read_carry(L, F, b, ends ? len : 0);
            if (ends) {
                b = e;
                continue;
            }
        }
        if (i == n && n > 0 && len) { /* perhaps wrapped: the next line may end it */
            F->carry = xmalloc(len);
            memcpy(F->carry, b, len);
            F->ncarry = len;
        } else if (len || n == 0) {
            read_piece(L, F, b, len);
        }
        b = e;
    }
}

void rec_parse_lines(struct rec_log *L, const char *text, size_t len)
{
    struct rec_file *F = L->file;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        F->x.line++;
        L->text_bytes += (size_t)(e - p) + 1;
        if ((size_t)(e - p) > REC_MAX_LINE) {
            rec_error(L, F->name, F->x.line, "a line of %zu bytes (the limit is %d): skipped",
                      (size_t)(e - p), REC_MAX_LINE);
        } else {
            memset(&L->ln, 0, sizeof L->ln);
            /* blanks at a line's start are a paste's (a quoted or indented log): never data;
             * but CloudWatch's "  | time | " prefix begins with its own, and a joined line's
             * piece wrapped onto this one ("via" | " NET/IB/0") keeps its blank */
            const char *b = p;
            while (b < e && (*b == ' ' || *b == '\t'))
                b++;
            if (F->carry || (b < e && *b == '|')) b = p;
            rec_line_clean(b, e, F->buf, &L->ln);
            if (b > p && b < e && (L->ln.marks & REC_MK_HDR) && !L->indent_said) {
                L->indent_said = true; /* said once: a paste indents every line alike */
                rec_warn(L,
                         "%s:%ld: lines indented as pasted: their leading blanks are "
                         "left out",
                         F->name, F->x.line);
            }
            if (L->ln.marks & REC_MK_RCCL) L->rccl = true; /* RCCL's own words (recline.c) */
            const char *at[REC_MAX_JOINED];
            /* (after a joined line, a line that starts with the end of its last) */
            bool may = L->ln.marks & (F->carry ? REC_MK_HDR : REC_MK_HDR2);
            int n = may ? joined_at(F->buf, at, REC_MAX_JOINED) : 0;
            if (n > 0 || F->carry)
                read_joined(L, F, at, n);
            else
                read_one(L, F, F->buf);
        }
        p = nl ? nl + 1 : end;
    }
}

int rec_parse_end(struct rec_log *L, bool ends_in_newline)
{
    struct rec_file *F = L->file;
    if (F->carry) read_carry(L, F, "", 0);
    if (!ends_in_newline && F->x.line > 0) /* read or not, the line may be cut */
        rec_warn_c(L, REC_W_CUT, "%s:%ld: cut: the last line is incomplete (no newline)",
                   F->name, F->x.line);
    L->lines += F->got;
    return F->got;
}

int rec_parse(struct rec_log *L, const char *name, const char *text, size_t len)
{
    if (!text) return 0;
    if (len > REC_MAX_BYTES) {
        rec_error(L, name, 0, "larger than %zu MiB: not read", REC_MAX_BYTES >> 20);
        return 0;
    }
    rec_parse_begin(L, name);
    rec_parse_lines(L, text, len);
    return rec_parse_end(L, len == 0 || text[len - 1] == '\n');
}

/* ---- after the last file -------------------------------------------------------------- */

static enum rec_class classify(const struct rec_log *L, const struct rec_link *k)
{
    const char *v = k->via;
    const struct rec_host_net *h = k->host_id + 1 < L->nnets ? &L->nets[k->host_id + 1] : NULL;
    if (starts(v, "SHM/") || starts(v, "direct shared memory") || starts(v, "shared memory"))
        return REC_SHM;
    if (starts(v, "NET/Socket")) return REC_SOCKET;
    if (starts(v, "NET/IB/")) {
        const char *q = v + 7;
        long d = scan_uint(&q, 2);
        if (h && d >= 0 && d < (long)sizeof h->ib_ll) {
            if (h->ib_ll[d] == 'R') return REC_ROCE;
            if (h->ib_ll[d] == 'I') return REC_IB;
        }
        /* the verbs transport runs on both: the NIC list says which; without it the
         * connection line still says the hop is the network's */
        return REC_NET;
    }
    if (starts(v, "NET/")) return REC_NET_PLUGIN;
    if (starts(v, "NVLS")) return REC_NVLINK;
    if (starts(v, "P2P/")) {
        /* NCCL reads from a peer (".../read") only over NVLink; MNNVL is multi-node NVLink;
         * otherwise the graph's path type or NVLS of the printing host says which. */
        if (strstr(v, "/read") || strstr(v, "MNNVL")) return REC_NVLINK;
        if (!h) return REC_UNKNOWN;
        if (h->nvls) return REC_NVLINK;
        int nvl = 0, pci = 0;
        for (int i = 0; i < h->npath; i++) {
            const char *t = h->path[i];
            if (strcmp(t, "NVL") == 0 || strcmp(t, "NVB") == 0)
                nvl++;
            else if (strcmp(t, "PIX") == 0 || strcmp(t, "PXB") == 0 || strcmp(t, "PHB") == 0 ||
                     strcmp(t, "SYS") == 0)
                pci++;
        }
        if (nvl && !pci) return REC_NVLINK;
        if (pci && !nvl) return REC_PCIE;
    }
    return REC_UNKNOWN;
}

/* A channel without a ring line, or whose ring line NCCL cut (its dumpLine prints into 128
 * bytes, src/graph/rings.cc: about 27 ranks): its ring from its link lines (rec_links_ring,
 * recview.h); tree connections of the same channel (printed too since 2.7) break that, and
 * then nothing is guessed. */
static void ring_from_links(struct rec_log *L, int c)
{
    struct rec_ring *g = &L->rings[c];
    int len = 0;
    int *order = rec_links_ring(L->links, NULL, L->nlinks, c, L->maxrank + 1, L->nranks,
                                g->order ? g : NULL, &len);
    if (!order) return;
    bool cut = g->order != NULL;
    free(g->order);
    g->order = order;
    g->n = len;
    L->rings_from_links = true;
    if (cut)
        rec_warn(L,
                 "channel %d's ring line lists the first ranks only (NCCL prints 128 bytes "
                 "of it): its ring is read from its link lines",
                 c);
    else
        rec_warn(L, "channel %d's ring is read from its link lines (no ring line)", c);
}

/* "0..7, 9, 12..15" for the ranks in set[0..n). */
static void rank_ranges(const bool *set, int n, char *buf, size_t cap)
{
    size_t o = 0;
    for (int r = 0; r < n;) {
        if (!set[r]) {
            r++;
            continue;
        }
        int s = r;
        while (r < n && set[r])
            r++;
        o = cv_cat(buf, cap, o, "%s%d", o ? ", " : "", s);
        if (r - 1 > s) o = cv_cat(buf, cap, o, "..%d", r - 1);
    }
}

static void warn_partial(struct rec_log *L)
{
    if (L->nranks <= 0) return;
    bool *printed = xcalloc((size_t)L->nranks, sizeof *printed);
    int np = 0;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        for (int r = 0; r < L->trees[c].n && r < L->nranks; r++)
            if (L->trees[c].node[r].set && !printed[r]) printed[r] = true, np++;
    for (int r = 0; r < L->nranks; r++)
        if (L->ranks[r].host[0] && !printed[r]) printed[r] = true, np++;
    if (L->ring_printer && !printed[0]) printed[0] = true, np++;
    if (np > 0 && np < L->nranks) {
        char b[160];
        rank_ranges(printed, L->nranks, b, sizeof b);
        rec_warn_c(L, REC_W_PARTIAL, "lines of ranks %s only (of %s%d)", b,
                   L->nranks_floor ? "at least " : "", L->nranks);
    }
    free(printed);
}

/* A file's first line may start inside its host name ("pgds-aihub0007" of
 * "tpgds-aihub0007"): a host seen on that line only, which ends another host's name, is that
 * host. */
static void first_line_hosts(struct rec_log *L)
{
    for (int i = 0; i < L->nfirst; i++) {
        int h = L->first_hosts[i];
        if (L->host_lines[h] != 1) continue;
        const char *a = L->hostnames[h];
        size_t n = strlen(a);
        for (int k = 0; k < L->nhostnames; k++) {
            size_t m = strlen(L->hostnames[k]);
            if (k == h || m <= n || strcmp(L->hostnames[k] + m - n, a) != 0) continue;
            for (int u = 0; u < L->nunits; u++)
                if (L->units[u].host == h) rec_unit_rehost(L, u, k);
            for (int r = 0; r <= L->maxrank; r++) /* the ranks that line placed */
                if (strcmp(L->ranks[r].host, a) == 0)
                    snprintf(L->ranks[r].host, sizeof L->ranks[r].host, "%s", L->hostnames[k]);
            L->host_lines[h] = 0;
            rec_warn_c(L, REC_W_CUT, "cut: a file's first line starts inside host %s's name",
                       L->hostnames[k]);
            break;
        }
    }
}

/* The size a list of devices (unit u's) proves: the job's only when it lists ranks 0..n-1
 * and ends before its file does (one that names a rank beyond its length, or runs to the
 * end of the text or into a cut line, may have been cut: its size is at least its largest
 * rank + 1, not known); -1 when it proves none. */
static int list_size(const struct rec_log *L, int u)
{
    const struct rec_facts *f = &L->units[u].f;
    int n = 0, top = -1;
    for (int r = rec_facts_next(f, 0); r >= 0; r = rec_facts_next(f, r + 1))
        n++, top = r;
    if (n == 0 || top >= n || L->units[u].list_open) return -1;
    return n + (u == L->tests_unit ? L->tests_more : 0);
}

/* A communicator that states its channels ("Channel 00/04 :") and prints some of their
 * ring lines: the channels with none are said ("channels 2 of 0-3 have no ring line"),
 * as ranges; a record cut or pasted in part loses them. */
static void warn_missing_channels(struct rec_log *L)
{
    for (int c = 0; c < L->ncomms; c++) {
        const struct rec_facts *f = &L->comms[c];
        int n = f->channels < REC_MAX_CHANNELS ? f->channels : REC_MAX_CHANNELS;
        if (n <= 0 || rec_facts_nrings(f) == 0) continue;
        char list[160] = "";
        size_t k = 0;
        int missing = 0;
        for (int ch = 0; ch < n; ch++) {
            if (f->rings[ch >> 3] >> (ch & 7) & 1) continue;
            int end = ch;
            while (end + 1 < n && !(f->rings[(end + 1) >> 3] >> ((end + 1) & 7) & 1))
                end++;
            if (k + 24 < sizeof list)
                k = cv_cat(list, sizeof list, k, end > ch ? "%s%d..%d" : "%s%d", k ? ", " : "",
                           ch, end);
            missing += end - ch + 1;
            ch = end;
        }
        if (!missing) continue;
        char who[48] = "";
        if (L->ncomms > 1) snprintf(who, sizeof who, "communicator %d: ", c + 1);
        rec_warn(L, "%schannel%s %s of 0-%d ha%s no ring line (cut?)", who,
                 missing == 1 ? "" : "s", list, n - 1, missing == 1 ? "s" : "ve");
    }
}

/* A communicator counted as on its hosts (every rank placed) is on their machines: a host
 * name several machines share counts each of them that holds a rank of it. */
static void comm_machines(struct rec_log *L)
{
    if (!L->machines_more) return;
    for (int c = 0; c < L->ncomms; c++) {
        struct rec_facts *f = &L->comms[c];
        if (f->nnodes < 0 || f->nnodes != f->nhosts) continue;
        int more = 0;
        for (int m = 1; m < 256; m++) {
            int had = 0;
            for (int h = 0; h < f->nhosts; h++) {
                bool on = false;
                for (int r = rec_facts_next(f, 0); r >= 0 && r < L->rank_slots && !on;
                     r = rec_facts_next(f, r + 1))
                    on = L->ranks[r].machine == m && L->ranks[r].list_host - 1 == f->hosts[h];
                had += on;
            }
            if (!had) break;
            more += had;
        }
        f->nnodes += more;
    }
}

static void finish_comms(struct rec_log *L)
{
    for (int u = 0; u < L->nunits; u++)
        if (L->units[u].tests) L->units[u].f.nranks = list_size(L, u);
    free(L->blk_claims);
    L->blk_claims = NULL;
    L->blk_cap = 0;
    first_line_hosts(L);
    rec_comm_finish(L);
    comm_machines(L);
    warn_missing_channels(L);
    if (L->rccl)
        snprintf(L->library, sizeof L->library, "RCCL");
    else if (L->nccl_lines || L->version[0] || L->tests_version[0])
        snprintf(L->library, sizeof L->library, "NCCL");
    if (!L->version[0] && L->tests_version[0])
        snprintf(L->version, sizeof L->version, "%s", L->tests_version);
    if (L->prefixes & REC_PFX_ANSI)
        rec_warn_c(L, REC_W_ESCAPE, "terminal colour codes in the text (removed)");
    if (link_forms_clash(L))
        rec_warn_c(L, REC_W_MIXED,
                   "link lines in two NCCL versions' forms (\"Channel 00/0 :\" and "
                   "\"Channel 00 :\"): hosts run different NCCL versions?");
    for (int c = 0; c < L->ncomms; c++) {
        const struct rec_facts *f = &L->comms[c];
        int printing = 0, unseen = 0, top = -1;
        bool *pr = xcalloc((size_t)f->seen_cap * 8 + 1, sizeof *pr);
        for (int i = 0; i < L->nunits; i++) {
            const struct rec_unit *u = &L->units[i];
            if (u->group != c) continue;
            /* ranks are numbered from 0: a communicator that names rank R has at least
             * R + 1 */
            if (u->tests) {
                for (int r = rec_facts_next(&u->f, 0); r >= 0 && r < f->seen_cap * 8;
                     r = rec_facts_next(&u->f, r + 1))
                    if (!pr[r]) pr[r] = true, top = r > top ? r : top;
            } else if (u->rank >= 0 && u->rank < f->seen_cap * 8 && !pr[u->rank]) {
                pr[u->rank] = true, top = u->rank > top ? u->rank : top;
            }
        }
        /* the ranks that printed (a process may print for several: one thread a GPU) */
        for (int r = f->printed_lo * 8; r < f->printed_cap * 8 && r < f->seen_cap * 8; r++)
            if (rec_facts_printed_has(f, r)) pr[r] = true;
        for (int r = 0; r < f->seen_cap * 8; r++)
            printing += pr[r];
        for (int r = rec_facts_next(f, 0); r >= 0; r = rec_facts_next(f, r + 1)) {
            unseen += !pr[r];
            top = r > top ? r : top;
        }
        free(pr);
        if ((f->nranks > 0 && printing < f->nranks) || unseen)
            rec_warn_c(L, REC_W_PARTIAL,
                       "communicator %d%s%s: the lines of %d rank%s only (of %s%d)", c + 1,
                       f->id[0] ? " " : "", f->id, printing, printing == 1 ? "" : "s",
                       f->nranks > 0 ? "" : "at least ", f->nranks > 0 ? f->nranks : top + 1);
    }
}

/* NCCL lines were read, but none of them names a rank, a ring or a link (bootstrap and
 * plugin lines only): said, with the hosts that printed them, never "no NCCL lines". */
static void no_topology(struct rec_log *L)
{
    int n = L->nhostnames;
    char names[160] = "";
    size_t k = 0;
    for (int i = 0; i < n && i < 8 && k < sizeof names; i++)
        k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "",
                              L->hostnames[i]);
    if (k >= sizeof names) names[sizeof names - 1] = '\0';
    rec_warn(L, "NCCL lines, but none that show ranks, rings or links (hosts: %s%s)",
             n ? names : "none named", n > 8 ? ", ..." : "");
}

/* ---- a table's collective against its own evidence ----------------------------------- */

static bool word_in(const char *w, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(w, *set) == 0) return true;
    return false;
}

/* busbw/algbw of test t's rows, where every row with an algbw to divide by (>= 1 GB/s) says
 * the same (printed to 2 decimals: within 0.006 (1 + r) / algbw of the best row's r); -1
 * where no row says it or rows disagree. */
static double rows_ratio(const struct rec_test *t)
{
    double r = -1, best = 0;
    for (int i = 0; i < t->nrows; i++)
        if (t->rows[i].oop.algbw >= 1 && t->rows[i].oop.algbw > best &&
            isfinite(t->rows[i].oop.busbw)) {
            best = t->rows[i].oop.algbw;
            r = t->rows[i].oop.busbw / best;
        }
    for (int i = 0; i < t->nrows && r >= 0; i++) {
        const struct rec_meas *m[2] = {&t->rows[i].oop, &t->rows[i].ip};
        for (int k = 0; k < 2; k++)
            if (m[k]->algbw >= 1 && isfinite(m[k]->busbw) &&
                fabs(m[k]->busbw / m[k]->algbw - r) > 0.006 * (1 + r) / m[k]->algbw)
                return -1;
    }
    return r;
}

/* A redop column with a reduction (sum, prod, max, min, avg) under a collective that reduces
 * nothing (a command line's X_perf names a file's first run; a lab's file can hold another
 * run; sendrecv is not one: nccl-tests' sendrecv_perf prints each reduction it runs) is a
 * contradiction: the rows' busbw/algbw names the collective where it can (a
 * reduction's ratio above 1 is all_reduce's 2(n-1)/n, below 1 reduce_scatter's (n-1)/n;
 * 1 is reduce's, or all_reduce's of 2 ranks), else the table's is not named. Warned either
 * way. */
static void tests_named(struct rec_log *L)
{
    static const char *const ops[] = {"sum", "prod", "max", "min", "avg", NULL};
    /* (not sendrecv: nccl-tests' sendrecv_perf runs, and prints, each reduction) */
    static const char *const plain[] = {"all_gather", "broadcast", "alltoall",
                                        "gather",     "scatter",   NULL};
    for (int i = 0; i < L->ntests; i++) {
        struct rec_test *t = &L->tests[i];
        if (!word_in(t->redop, ops) || !word_in(t->collective, plain)) continue;
        double r = rows_ratio(t);
        const char *c = r > 1.01 && r < 2   ? "all_reduce"
                        : r > 0 && r < 0.99 ? "reduce_scatter"
                                            : NULL;
        double n = !c ? 0 : r > 1 ? 2 / (2 - r) : 1 / (1 - r);
        char was[sizeof t->collective];
        snprintf(was, sizeof was, "%s", t->collective);
        snprintf(t->collective, sizeof t->collective, "%s", c ? c : "");
        if (c)
            rec_warn_c(L, REC_W_COLL_CONTRA,
                       "table %d: redop %s, but %s reduces nothing: busbw/algbw %.3f = %s, "
                       "n = %.0f: %s",
                       i + 1, t->redop, was, r, r > 1 ? "2(n-1)/n" : "(n-1)/n", n, c);
        else
            rec_warn_c(
                L, REC_W_COLL_CONTRA,
                "table %d: redop %s, but %s reduces nothing: the collective is not named",
                i + 1, t->redop, was);
    }
}

/* busbw 0 on every row with an algbw (>= 0.02) is a 1-rank run's (every busbw factor is 0 at 1
 * rank): under a launcher, each process ran alone, and rows of one size repeated are
 * separate runs, not one table of the launcher's job. */
static void tests_alone(struct rec_log *L)
{
    for (int i = 0; i < L->ntests; i++) {
        struct rec_test *t = &L->tests[i];
        int moving = 0;
        bool zero = true, repeated = false;
        for (int r = 0; r < t->nrows; r++) {
            const struct rec_meas *m[2] = {&t->rows[r].oop, &t->rows[r].ip};
            for (int k = 0; k < 2; k++)
                if (m[k]->algbw >= 0.02) { /* (a busbw of 2+ ranks prints >= 0.01) */
                    moving++;
                    zero = zero && m[k]->busbw == 0;
                }
            for (int q = 0; q < r; q++)
                repeated = repeated || t->rows[q].size == t->rows[r].size;
        }
        if (!moving || !zero) continue;
        t->one_rank = true;
        rec_warn_c(L, repeated ? REC_W_INTERLEAVED : REC_W_OTHER,
                   "table %d: each process ran alone: busbw 0 with algbw > 0 means one rank%s",
                   i + 1, repeated ? "; repeated sizes are separate runs" : "");
    }
}

static uint64_t text_key(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Do ranks a and b name one GPU of one host name in one list of devices? */
static bool same_gpu(const struct rec_rank *a, const struct rec_rank *b)
{
    return a->list_host == b->list_host && a->list_no == b->list_no && a->device == b->device &&
           strcmp(a->busid, b->busid) == 0;
}

/* The process first on rank r's GPU (machine 0), 0 none. */
static long first_on_bus(const struct rec_log *L, int r)
{
    for (int q = 0; q < r; q++)
        if (L->ranks[q].machine == 0 && same_gpu(&L->ranks[q], &L->ranks[r]))
            return L->ranks[q].list_pid;
    return 0;
}

/* Machines that share a host name: a list of nccl-tests' devices puts each rank of one job
 * in a process on a GPU (its device and bus id: a host that prints one bus id for several
 * devices names no GPU by it); one GPU is in one machine, and NCCL refuses two ranks on one
 * GPU, so two processes of one host name on one GPU are two machines. Each process takes
 * the first machine of its name where no other process holds one of its GPUs; a host name
 * with several is said, and each machine is a node. */
static void split_machines(struct rec_log *L)
{
    struct rec_map taken = {0}, proc = {0}; /* (host, bus id, machine) -> pid; pid -> machine */
    int top[64], tophost[64], ntop = 0;     /* host ids with a machine > 0, their most */
    long pids[64][2];
    for (int r = 0; r <= L->maxrank && r < L->rank_slots; r++) {
        struct rec_rank *k = &L->ranks[r];
        if (!k->list_pid || !k->busid[0]) continue;
        uint64_t hb = (text_key(k->busid) ^ (uint64_t)k->list_host * 0x9e3779b97f4a7c15ULL ^
                       (uint64_t)(k->device + 2) * 0xff51afd7ed558ccdULL) +
                      (uint64_t)k->list_no * 0x100000000ULL;
        uint64_t pk = ((uint64_t)k->list_pid * 0xc2b2ae3d27d4eb4fULL ^ (uint64_t)k->list_host) +
                      (uint64_t)k->list_no * 0x100000000ULL;
        int pid = (int)(k->list_pid & 0x7fffffff), m = rec_map_get(&proc, pk);
        if (m < 0) {
            m = 0;
            for (int v;
                 m < 255 && (v = rec_map_get(&taken, hb + (uint64_t)m)) >= 0 && v != pid;)
                m++;
            rec_map_put(&proc, pk, m);
        }
        if (rec_map_get(&taken, hb + (uint64_t)m) < 0)
            rec_map_put(&taken, hb + (uint64_t)m, pid);
        k->machine = m;
        if (m == 0) continue;
        int i = 0;
        while (i < ntop && tophost[i] != k->list_host - 1)
            i++;
        if (i == ntop && ntop < 64) tophost[ntop] = k->list_host - 1, top[ntop] = 0, ntop++;
        if (i < ntop && m > top[i]) {
            top[i] = m;
            pids[i][0] = first_on_bus(L, r);
            pids[i][1] = k->list_pid;
        }
    }
    rec_map_free(&taken);
    rec_map_free(&proc);
    for (int i = 0; i < ntop; i++) {
        L->machines_more += top[i];
        rec_warn(L,
                 "%d machines named %s: one bus id in processes %ld and %ld (NCCL puts one "
                 "rank on a GPU): read as %d nodes",
                 top[i] + 1, rec_host_name(L, tophost[i]), pids[i][0], pids[i][1], top[i] + 1);
    }
}

/* A P2P or SHM link joins two GPUs of one host: its line's host is its other end's too (as
 * each communicator's own picture places them, recview.c), so every view names one host for
 * a rank. */
static void place_peers(struct rec_log *L)
{
    for (int i = 0; i < L->nlinks; i++) {
        const struct rec_link *k = &L->links[i];
        if (k->host_id < 0 || starts(k->via, "NET/")) continue;
        int ends[2] = {k->from, k->to};
        for (int e = 0; e < 2; e++) {
            struct rec_rank *rk = rank_at(L, ends[e]);
            if (rk && !rk->host[0]) copy_str(rk->host, sizeof rk->host, k->host);
        }
    }
}

void rec_finish(struct rec_log *L)
{
    for (int i = 0; i < L->nlinks; i++)
        L->links[i].cls = classify(L, &L->links[i]);
    bool ring_lines = false;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        ring_lines = ring_lines || L->rings[c].order;
    /* a ring-order line (rank 0's, whole) says the communicator's size; a ring pieced from
     * link lines says only the ranks its links name */
    int ring_n = -1;
    for (int c = 0; c < REC_MAX_CHANNELS && ring_n < 0; c++)
        if (L->rings[c].order) ring_n = L->rings[c].n;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        if (!ring_lines || (L->rings[c].order && L->nranks > L->rings[c].n))
            ring_from_links(L, c);
    bool rings = false, trees = false;
    for (int c = 0; c < REC_MAX_CHANNELS; c++) {
        if (L->rings[c].order) rings = true;
        if (L->trees[c].n) trees = true;
    }
    if (L->nranks < 0 && ring_n > 0) L->nranks = ring_n;
    if (L->nranks < 0 && L->maxrank >= 0 && L->ntests > 0) {
        /* nccl-tests' ranks: a whole list of devices says how many; else only that the job
         * has at least the largest rank named + 1 */
        L->nranks = L->maxrank + 1 + L->tests_more;
        L->nranks_floor = L->tests_unit < 0 || list_size(L, L->tests_unit) != L->nranks;
    }
    /* every rank of the communicator has a slot (comm lines made them; a ring's length
     * is of ranks named) */
    if (L->nranks > L->rank_slots && L->nranks <= REC_MAX_RANKS) {
        int n = L->rank_slots;
        L->ranks = xrealloc(L->ranks, (size_t)L->nranks * sizeof *L->ranks);
        memset(L->ranks + n, 0, (size_t)(L->nranks - n) * sizeof *L->ranks);
        for (int r = n; r < L->nranks; r++)
            L->ranks[r].device = -1;
        L->rank_slots = L->nranks;
    }
    split_machines(L);
    place_peers(L);
    if (L->nranks > 0 && L->nnodes < 0) {
        bool all = true;
        for (int r = 0; r < L->nranks; r++)
            if (!L->ranks[r].host[0]) all = false;
        if (all) L->nnodes = rec_hosts(L, NULL, 0) + L->machines_more;
    }
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        if (L->rings[c].order && L->nranks > 0 && L->rings[c].n != L->nranks)
            rec_warn(L, "channel %d's ring has %d ranks, the communicator %d", c, L->rings[c].n,
                     L->nranks);
    bool nccl =
        L->version[0] || L->nlinks || trees || rings || L->init_complete || L->first_warn[0];
    /* (what is absent, said only where it is: link lines are no ring order) */
    if (nccl && !ring_lines && L->nccl_lines && L->nlinks)
        rec_warn(L, "no ring-order line (rank 0's \"Channel 00/.. :  0 1 ...\"): %s",
                 rings ? "rings are pieced from the link lines" : "no ring is read");
    else if (nccl && !ring_lines && L->nccl_lines && L->neighbour_lines)
        rec_warn(L,
                 "no ring-order line (rank 0's \"Channel 00/.. :  0 1 ...\"): %d \"Ring NN "
                 ": prev -> me -> next\" lines give their ranks' neighbours, no ring is read",
                 L->neighbour_lines);
    else if (nccl && !ring_lines && L->nccl_lines)
        rec_warn(L, "no ring lines (rank 0 prints \"Channel 00/.. :  0 1 ...\" with "
                    "NCCL_DEBUG=INFO)");
    if (L->lines == 0 && L->nccl_lines) no_topology(L);
    if (L->commsizes_differ)
        rec_warn(L, "several communicators of different sizes: the largest (%d ranks) is shown",
                 L->nranks);
    if (L->init_error[0] && L->init_complete == 0)
        rec_warn_c(L, REC_W_INIT_FAILED, "init failed (%s): %s", L->init_error,
                   L->first_warn[0] ? L->first_warn : "no NCCL WARN line says why");
    if (L->first_warn[0]) rec_warn_c(L, REC_W_LIB_WARN, "NCCL WARN: %s", L->first_warn);
    warn_partial(L);
    tests_named(L);
    tests_alone(L);
    finish_comms(L);
    rec_ctopo_build(L);
}

int rec_ring_crossings(const struct rec_log *L, int channel)
{
    if (channel < 0 || channel >= REC_MAX_CHANNELS) return -1;
    const struct rec_ring *g = &L->rings[channel];
    if (!g->order || g->n == 0) return -1;
    int x = 0;
    for (int i = 0; i < g->n; i++) {
        int a = g->order[i], b = g->order[(i + 1) % g->n];
        if (!L->ranks[a].host[0] || !L->ranks[b].host[0]) return -1;
        x += !rec_same_node(L, a, b);
    }
    return x;
}

int rec_rank_machine(const struct rec_log *L, int r)
{
    if (!L->machines_more || r < 0 || r >= L->rank_slots || !L->ranks[r].list_host) return 0;
    const struct rec_rank *k = &L->ranks[r];
    if (k->machine > 0) return k->machine + 1;
    for (int q = 0; q <= L->maxrank && q < L->rank_slots; q++) /* is its name shared? */
        if (L->ranks[q].machine > 0 && L->ranks[q].list_host == k->list_host) return 1;
    return 0;
}

bool rec_same_node(const struct rec_log *L, int a, int b)
{
    return strcmp(L->ranks[a].host, L->ranks[b].host) == 0 &&
           (!L->machines_more || rec_rank_machine(L, a) == rec_rank_machine(L, b));
}

const char *rec_node_name(const struct rec_log *L, int r, char *buf, size_t n)
{
    if (r < 0 || r >= L->rank_slots || !L->ranks[r].host[0]) return "";
    int m = rec_rank_machine(L, r);
    if (m == 0) return L->ranks[r].host;
    snprintf(buf, n, "%s (machine %d)", L->ranks[r].host, m);
    return buf;
}

int rec_hosts(const struct rec_log *L, const char **out, int max)
{
    /* a host's name is interned (rec_host_id): a mark per id, not a scan of those found */
    unsigned char *seen = xcalloc((size_t)L->nhostnames + 1, 1);
    int n = 0;
    const char *last = NULL;
    for (int r = 0; r <= L->maxrank && r < L->rank_slots; r++) {
        const char *h = L->ranks[r].host;
        if (!h[0] || (last && strcmp(last, h) == 0)) continue;
        last = h;
        int id = rec_host_id((struct rec_log *)L, h, false);
        if (id >= 0 ? seen[id] : false) continue;
        if (id >= 0)
            seen[id] = 1;
        else { /* a host no line printed (nccl-tests' device list): compared by name */
            bool dup = false;
            for (int i = 0; i < n && i < max && !dup; i++)
                dup = strcmp(out[i], h) == 0;
            if (dup) continue;
        }
        if (n < max) out[n] = h;
        n++;
    }
    free(seen);
    return out && n > max ? max : n;
}
