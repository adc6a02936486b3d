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

const char *rec_class_name(enum rec_class c)
{
    static const char *const names[] = {"nvlink", "pcie",   "shm",        "ib",
                                        "roce",   "socket", "net-plugin", "unknown"};
    return (unsigned)c <= REC_UNKNOWN ? names[c] : "unknown";
}

/* ---- messages ------------------------------------------------------------------------- */

static void rec_msg(char ***list, int *n, int *dropped, const char *fmt, va_list ap)
{
    char buf[256];
    vsnprintf(buf, sizeof buf, fmt, ap);
    for (int i = 0; i < *n; i++)
        if (strcmp((*list)[i], buf) == 0) return;
    if (*n >= REC_MAX_MSGS) {
        (*dropped)++;
        return;
    }
    *list = xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = xstrdup(buf);
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

__attribute__((format(printf, 2, 3))) static void rec_warn(struct rec_log *L, const char *fmt,
                                                           ...)
{
    va_list ap;
    va_start(ap, fmt);
    rec_msg(&L->warnings, &L->nwarnings, &L->warnings_dropped, fmt, ap);
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

static bool starts(const char *s, const char *lit)
{
    return strncmp(s, lit, strlen(lit)) == 0;
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

/* The host of "host:pid:tid [dev] NCCL ..." where `at` points at "NCCL": the word before the
 * "[dev]" that ends the prefix, cut at its first ':'. "" when the prefix has none. */
static void line_host(const char *line, const char *at, char *host, size_t n)
{
    host[0] = '\0';
    const char *e = at;
    while (e > line && e[-1] == ' ')
        e--;
    if (e > line && e[-1] != ']') { /* a WARN's "misc/socket.cc:483" before "NCCL" */
        while (e > line && e[-1] != ' ')
            e--;
        while (e > line && e[-1] == ' ')
            e--;
    }
    if (e == line || e[-1] != ']') return;
    const char *lb = e - 1;
    while (lb > line && *lb != '[')
        lb--;
    if (*lb != '[') return;
    e = lb;
    while (e > line && e[-1] == ' ')
        e--;
    const char *b = e;
    while (b > line && b[-1] != ' ' && b[-1] != '\t')
        b--;
    const char *colon = memchr(b, ':', (size_t)(e - b));
    if (!colon || colon == b) return;
    size_t k = (size_t)(colon - b);
    if (k >= n) k = n - 1;
    memcpy(host, b, k);
    host[k] = '\0';
}

/* ---- the structures ------------------------------------------------------------------- */

struct rec_log *rec_new(void)
{
    struct rec_log *L = xcalloc(1, sizeof *L);
    L->nranks = -1;
    L->nnodes = -1;
    L->maxrank = -1;
    L->cur_test = -1;
    for (int r = 0; r < REC_MAX_RANKS; r++)
        L->ranks[r].device = -1;
    return L;
}

void rec_free(struct rec_log *L)
{
    if (!L) return;
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
    free(L);
}

static struct rec_rank *rank_at(struct rec_log *L, long r)
{
    if (r < 0 || r >= REC_MAX_RANKS) return NULL;
    if (r > L->maxrank) L->maxrank = (int)r;
    L->ranks[r].known = true;
    return &L->ranks[r];
}

static struct rec_host_net *host_net(struct rec_log *L, const char *host)
{
    for (int i = 0; i < L->nnets; i++)
        if (strcmp(L->nets[i].host, host) == 0) return &L->nets[i];
    if (L->nnets == (int)(sizeof L->nets / sizeof L->nets[0])) return NULL;
    struct rec_host_net *h = &L->nets[L->nnets++];
    memset(h, 0, sizeof *h);
    snprintf(h->host, sizeof h->host, "%s", host);
    return h;
}

/* ---- NCCL INFO lines ------------------------------------------------------------------ */

struct rec_ctx {
    struct rec_log *L;
    const char *name;
    long line;
    char host[64];
};

/* "Channel 00/16 :    0   3   1   2" (or 2.4's "Channel 00 :    0   1"): p after " : ". */
static void ring_line(struct rec_ctx *x, long chan, const char *p)
{
    struct rec_log *L = x->L;
    int order[REC_MAX_RANKS], n = 0;
    p = skip_sp(p);
    while (*p) {
        long r = scan_uint(&p, 5);
        if (r < 0 || r >= REC_MAX_RANKS || n == REC_MAX_RANKS) {
            rec_error(L, x->name, x->line, "channel %ld's ring: a rank out of 0..%d", chan,
                      REC_LAST_RANK);
            return;
        }
        for (int i = 0; i < n; i++)
            if (order[i] == r) {
                rec_error(L, x->name, x->line, "channel %ld's ring lists rank %ld twice", chan,
                          r);
                return;
            }
        order[n++] = (int)r;
        p = skip_sp(p);
    }
    if (n == 0) return; /* "Channel 00 :" and nothing: no ring */
    struct rec_ring *g = &L->rings[chan];
    if (g->order) {
        if (g->n != n || memcmp(g->order, order, (size_t)n * sizeof *order) != 0)
            rec_warn(L,
                     "channel %ld has a second, different ring order (another "
                     "communicator?): the first is kept",
                     chan);
        return;
    }
    g->order = xmalloc((size_t)n * sizeof *order);
    memcpy(g->order, order, (size_t)n * sizeof *order);
    g->n = n;
    for (int i = 0; i < n; i++)
        rank_at(L, order[i]);
    L->ring_printer = true; /* rank 0 prints the rings */
}

/* "0[160]" or "0": a rank with an optional bracket. */
static bool peer(const char **p, long *r)
{
    long v = scan_uint(p, 5);
    if (v < 0) return false;
    if (**p == '[') {
        const char *q = strchr(*p, ']');
        if (!q) return false;
        *p = q + 1;
    }
    *r = v;
    return true;
}

static void link_line(struct rec_ctx *x, long chan, long conn, const char *p)
{
    struct rec_log *L = x->L;
    long from, to;
    p = skip_sp(p);
    if (!peer(&p, &from) || !starts(p, " -> ")) return;
    p += 4;
    if (!peer(&p, &to)) return;
    const char *via = strstr(p, " via ");
    if (!via) return;
    via = skip_sp(via + 5);
    size_t vn = strlen(via);
    while (vn && via[vn - 1] == ' ')
        vn--;
    if (vn == 0) return;
    if (from >= REC_MAX_RANKS || to >= REC_MAX_RANKS) {
        rec_error(L, x->name, x->line, "a link of rank %ld to %ld: ranks end at %d", from, to,
                  REC_LAST_RANK);
        return;
    }
    struct rec_link k = {.channel = (int)chan,
                         .conn = (int)conn,
                         .from = (int)from,
                         .to = (int)to,
                         .cls = REC_UNKNOWN};
    snprintf(k.via, sizeof k.via, "%.*s", (int)vn, via);
    snprintf(k.host, sizeof k.host, "%s", x->host);
    /* NCCL sets up a connection's send side on the sender and its receive side on the
     * receiver: the line's host is the sender's, or the receiver's for "[receive]" */
    bool recv = strstr(p, "[receive]") && strstr(p, "[receive]") < via;
    struct rec_rank *rk = rank_at(L, recv ? to : from);
    if (!rk->host[0]) snprintf(rk->host, sizeof rk->host, "%s", x->host);
    for (int i = 0; i < L->nlinks; i++) { /* a connection's send and receive lines */
        struct rec_link *o = &L->links[i];
        if (o->channel == k.channel && o->conn == k.conn && o->from == k.from &&
            o->to == k.to && strcmp(o->via, k.via) == 0)
            return;
    }
    if (L->nlinks == REC_MAX_LINKS) {
        rec_warn(L, "more than %d links: the rest are not kept", REC_MAX_LINKS);
        return;
    }
    if (L->nlinks == L->caplinks) {
        L->caplinks = L->caplinks ? 2 * L->caplinks : 64;
        L->links = xrealloc(L->links, (size_t)L->caplinks * sizeof *L->links);
    }
    L->links[L->nlinks++] = k;
    rank_at(L, from);
    rank_at(L, to);
}

/* "Channel NN[/MM] : ..." or "Ring NN : ...", p after the keyword. */
static bool channel_line(struct rec_ctx *x, const char *p, bool ring_kw)
{
    long chan = scan_uint(&p, 4), conn = -1;
    if (chan < 0) return false;
    if (*p == '/') {
        p++;
        conn = scan_uint(&p, 4);
        if (conn < 0) return false;
    }
    if (!starts(p, " : ")) return false;
    p += 3;
    bool arrow = strstr(p, "->") != NULL;
    if (!arrow && !ring_kw) {
        const char *q = skip_sp(p);
        for (; *q; q++)
            if (!isdigit((unsigned char)*q) && *q != ' ') return false;
        if (chan >= REC_MAX_CHANNELS) {
            rec_error(x->L, x->name, x->line, "channel %ld: channels end at %d", chan,
                      REC_MAX_CHANNELS - 1);
            return true;
        }
        ring_line(x, chan, p);
        return true;
    }
    if (!strstr(p, " via ")) return ring_kw; /* 2.7's "Ring 00 : 1 -> 0 -> 1": neighbours */
    /* the link lines' "/0" is a connection index; a ring line's "/16" the channel count */
    link_line(x, chan, ring_kw ? -1 : conn, p);
    return true;
}

static bool tree_part(const char **pp, int *down, int *ndown, long *me, long *up, bool up_first)
{
    const char *p = *pp;
    long v;
    *ndown = 0;
    if (up_first) {
        if (!scan_int(&p, 5, up) || !starts(p, "->")) return false;
        p += 2;
        if (!scan_int(&p, 5, me) || !starts(p, "->")) return false;
        p += 2;
    }
    for (int i = 0; i < REC_MAX_TREE_DOWN; i++) {
        if (!scan_int(&p, 5, &v)) return false;
        if (v >= 0) down[(*ndown)++] = (int)v;
        if (*p != '/') break;
        p++;
    }
    if (!up_first) {
        if (!starts(p, "->")) return false;
        p += 2;
        if (!scan_int(&p, 5, me) || !starts(p, "->")) return false;
        p += 2;
        if (!scan_int(&p, 5, up)) return false;
    }
    *pp = p;
    return true;
}

/* "Trees [0] 1/-1/-1->0->-1 [1] ..." and 2.6/2.7's "[0] 1/-1/-1->0->7|7->0->1/-1/-1". */
static bool trees_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    bool any = false;
    for (p = skip_sp(p); *p == '['; p = skip_sp(p)) {
        p++;
        long chan = scan_uint(&p, 4), me, up, me2, up2;
        int down[REC_MAX_TREE_DOWN], nd, down2[REC_MAX_TREE_DOWN], nd2;
        if (chan < 0 || *p != ']') goto bad;
        p = skip_sp(p + 1);
        if (!tree_part(&p, down, &nd, &me, &up, false)) goto bad;
        if (*p == '|') {
            p++;
            if (!tree_part(&p, down2, &nd2, &me2, &up2, true)) goto bad;
            if (me2 != me || up2 != up || nd2 != nd ||
                memcmp(down, down2, sizeof(int) * (size_t)nd))
                rec_warn(L, "channel %ld: rank %ld's two trees differ (the first is shown)",
                         chan, me);
        }
        if (*p && *p != ' ') goto bad;
        if (chan >= REC_MAX_CHANNELS || me < 0 || me >= REC_MAX_RANKS || up >= REC_MAX_RANKS)
            goto bad;
        for (int i = 0; i < nd; i++)
            if (down[i] >= REC_MAX_RANKS) goto bad;
        struct rec_tree *t = &L->trees[chan];
        if (me >= t->n) {
            int n = (int)me + 1;
            t->node = xrealloc(t->node, (size_t)n * sizeof *t->node);
            memset(t->node + t->n, 0, (size_t)(n - t->n) * sizeof *t->node);
            t->n = n;
        }
        struct rec_tnode *node = &t->node[me];
        if (!node->set) {
            node->set = true;
            node->up = up < 0 ? -1 : (int)up;
            node->ndown = nd;
            memcpy(node->down, down, sizeof down);
        }
        struct rec_rank *rk = rank_at(L, me);
        if (rk && !rk->host[0]) snprintf(rk->host, sizeof rk->host, "%s", x->host);
        any = true;
    }
    return any;
bad:
    rec_error(L, x->name, x->line,
              "a Trees entry that does not read as down/down/down->rank->up");
    return true;
}

/* " key N" in a comm line; -1 when absent. */
static long comm_field(const char *p, const char *key, int base)
{
    const char *k = strstr(p, key);
    if (!k) return -1;
    k += strlen(key);
    if (*k != ' ') return -1;
    char *end;
    long v = strtol(k + 1, &end, base);
    return end == k + 1 || v < 0 || v > 0x7fffffffL ? -1 : v;
}

/* "comm 0x... rank 10 nRanks 16 nNodes 2 localRanks 8 ..." and "comm 0x... rank 0 nranks 2
 * cudaDev 0 nvmlDev 0 busId 48000 ... - Init COMPLETE". */
static bool comm_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    const char *c = strstr(p, "comm 0x");
    if (!c) return false;
    long rank = comm_field(c, " rank", 10);
    long nr = comm_field(c, " nranks", 10);
    if (nr < 0) nr = comm_field(c, " nRanks", 10);
    if (rank < 0 || nr <= 0) return false;
    if (rank >= nr || nr > REC_MAX_RANKS) {
        rec_error(L, x->name, x->line, "comm line: rank %ld of %ld (ranks end at %d)", rank, nr,
                  REC_LAST_RANK);
        return true;
    }
    if (L->nranks >= 0 && L->nranks != nr) L->commsizes_differ = true;
    if ((int)nr > L->nranks) L->nranks = (int)nr;
    long nn = comm_field(c, " nNodes", 10);
    if (nn > 0 && nn <= nr) L->nnodes = (int)nn;
    struct rec_rank *rk = rank_at(L, rank);
    if (!rk->host[0]) snprintf(rk->host, sizeof rk->host, "%s", x->host);
    long dev = comm_field(c, " cudaDev", 10);
    if (dev >= 0 && rk->device < 0) rk->device = (int)dev;
    const char *b = strstr(c, " busId ");
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

static bool info_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    if (strstr(p, "Init COMPLETE")) L->init_complete++;
    /* NCCL's error trace, "init.cc:1089 -> 3": an error code returned through init */
    const char *ic = strstr(p, "init.cc:");
    if (ic && !L->init_error[0]) {
        const char *q = ic + 8;
        long line = scan_uint(&q, 6), code = 0;
        if (line >= 0 && starts(q, " -> ")) {
            q += 4;
            if (scan_int(&q, 4, &code) && code != 0)
                snprintf(L->init_error, sizeof L->init_error, "init.cc:%ld -> %ld", line, code);
        }
        return true;
    }
    if (starts(p, "Channel ")) return channel_line(x, p + 8, false);
    if (starts(p, "Ring ")) return channel_line(x, p + 5, true);
    if (starts(p, "Trees ")) return trees_line(x, p + 6);
    if (strstr(p, "comm 0x") && comm_line(x, p)) return true;
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
        return true;
    }
    if (strstr(p, "NVLS multicast support is available")) {
        struct rec_host_net *h = host_net(L, x->host);
        if (h) h->nvls = true;
        L->nvls = true;
        return true;
    }
    return starts(p, "NVLS ") || starts(p, "CollNet") || starts(p, "Connected all");
}

/* ---- nccl-tests ----------------------------------------------------------------------- */

/* "#  Rank  0 Group  0 Pid 422771 on HOST device  0 [0x0f] NVIDIA H800" (and the older form
 * without Group). */
static bool device_line(struct rec_ctx *x, const char *p)
{
    p = skip_sp(p);
    if (!starts(p, "Rank ")) return false;
    p = skip_sp(p + 5);
    long r = scan_uint(&p, 5);
    const char *on = strstr(p, " on ");
    const char *dv = on ? strstr(on, " device ") : NULL;
    if (r < 0 || !dv) return false;
    struct rec_rank *rk = rank_at(x->L, r);
    if (!rk) {
        rec_error(x->L, x->name, x->line, "device line of rank %ld: ranks end at %d", r,
                  REC_LAST_RANK);
        return true;
    }
    if (!rk->host[0]) copy_word(skip_sp(on + 4), "", rk->host, sizeof rk->host);
    const char *q = skip_sp(dv + 8);
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

/* The column names of "#  size  count  type  redop  root  time  algbw  busbw  #wrong ...". */
static void header_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    L->hdr_n = 0;
    L->hdr_ms = false;
    L->cur_test = -1;
    while (*(p = skip_sp(p)) && L->hdr_n < 24)
        p = copy_word(p, "", L->hdr[L->hdr_n++], sizeof L->hdr[0]);
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
        rec_error(L, x->name, x->line, "more than %d tests: the rest are not read",
                  REC_MAX_TESTS);
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
    if (!num_field(w[at], &m->time_us, false) || !num_field(w[at + 1], &m->algbw, false) ||
        !num_field(w[at + 2], &m->busbw, false) || !num_field(w[at + 3], &e, true))
        return false;
    m->time_us *= ms;
    m->wrong = old ? NAN : e;
    m->error = old ? e : NAN;
    return true;
}

/* A row under the current header: size count type redop [root] then two groups of time,
 * algbw, busbw and #wrong (or error). */
static void row_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    char w[24][32];
    int n = 0;
    while (*(p = skip_sp(p))) {
        if (n == 24) break;
        p = copy_word(p, "", w[n++], sizeof w[0]);
    }
    int tcol = hdr_col(L, "time");
    if (*p || n != L->hdr_n || tcol < 2 || tcol + 8 != L->hdr_n) {
        rec_error(L, x->name, x->line, "a row of %d fields under a header of %d", n, L->hdr_n);
        return;
    }
    int ty = hdr_col(L, "type"), ro = hdr_col(L, "redop");
    const char *type = ty >= 0 && ty < tcol ? w[ty] : "";
    const char *redop = ro >= 0 && ro < tcol ? w[ro] : "";
    struct rec_test *t = L->cur_test >= 0 ? &L->tests[L->cur_test] : NULL;
    if (!t || strcmp(t->type, type) != 0 || strcmp(t->redop, redop) != 0)
        t = new_test(x, type, redop);
    if (!t) return;
    struct rec_row r;
    bool old = t->old_header;
    double ms = L->hdr_ms ? 1000.0 : 1.0;
    if (!num_field(w[0], &r.size, false) || !num_field(w[1], &r.count, false) ||
        !meas(w, tcol, old, ms, &r.oop) || !meas(w, tcol + 4, old, ms, &r.ip)) {
        rec_error(L, x->name, x->line, "a row with a field that is not a number");
        return;
    }
    if (t->nrows == REC_MAX_ROWS) {
        rec_error(L, x->name, x->line, "more than %d rows in a test", REC_MAX_ROWS);
        return;
    }
    if (t->nrows % 64 == 0)
        t->rows = xrealloc(t->rows, (size_t)(t->nrows + 64) * sizeof *t->rows);
    t->rows[t->nrows++] = r;
}

static bool hash_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    p = skip_sp(p + 1);
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
    if (starts(p, "size ") && strstr(p, "busbw")) {
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

/* Copy [b, e) into out as a safe string: Open MPI's "[1,5]<stdout>:" tags cut, '\r' and
 * control bytes and non-ASCII made '?' (tabs kept as spaces). */
static void safe_line(const char *b, const char *e, char *out)
{
    size_t k = 0;
    for (const char *p = b; p < e; p++) {
        if (*p == '[') { /* [job,rank]<stdout>: or <stderr>: */
            const char *q = p + 1;
            while (q < e && isdigit((unsigned char)*q))
                q++;
            if (q > p + 1 && q < e && *q == ',') {
                const char *r = q + 1;
                while (r < e && isdigit((unsigned char)*r))
                    r++;
                if (r > q + 1 && e - r >= 10 &&
                    (memcmp(r, "]<stdout>:", 10) == 0 || memcmp(r, "]<stderr>:", 10) == 0)) {
                    p = r + 9;
                    continue;
                }
            }
        }
        unsigned char c = (unsigned char)*p;
        if (c == '\r' && p + 1 == e) break;
        out[k++] = c == '\t' ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    out[k] = '\0';
}

static void warn_line(struct rec_ctx *x, const char *p)
{
    struct rec_log *L = x->L;
    if (L->first_warn[0]) return;
    p = skip_sp(p);
    snprintf(L->first_warn, sizeof L->first_warn, "%s%s%s", x->host, x->host[0] ? ": " : "", p);
    L->first_warn_line = (int)(x->line > 0x7fffffff ? 0x7fffffff : x->line);
}

static bool one_line(struct rec_ctx *x, const char *s)
{
    struct rec_log *L = x->L;
    bool got = false;
    const char *v = strstr(s, "NCCL version ");
    if (v && isdigit((unsigned char)v[13])) {
        char ver[32];
        copy_word(v + 13, "", ver, sizeof ver);
        if (!L->version[0])
            snprintf(L->version, sizeof L->version, "%s", ver);
        else if (strcmp(L->version, ver) != 0)
            rec_warn(L, "two NCCL versions: %s and %s", L->version, ver);
        got = true;
    }
    const char *at = strstr(s, "NCCL INFO ");
    const char *wn = at ? NULL : strstr(s, "NCCL WARN ");
    if (at || wn) {
        line_host(s, at ? at : wn, x->host, sizeof x->host);
        if (at) return info_line(x, at + 10) || got;
        warn_line(x, wn + 10);
        return true;
    }
    const char *p = skip_sp(s);
    if (*p == '#') return hash_line(x, p) || got;
    if (L->hdr_n > 0 && isdigit((unsigned char)*p)) {
        row_line(x, p);
        return true;
    }
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

int rec_parse(struct rec_log *L, const char *name, const char *text, size_t len)
{
    if (!text) return 0;
    if (len > REC_MAX_BYTES) {
        rec_error(L, name, 0, "larger than %zu MiB: not read", REC_MAX_BYTES >> 20);
        return 0;
    }
    struct rec_ctx x = {.L = L, .name = name};
    char *buf = xmalloc(REC_MAX_LINE + 1);
    int got = 0;
    /* a new file starts outside any table */
    L->hdr_n = 0;
    L->cur_test = -1;
    L->pending_coll[0] = '\0';
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        x.line++;
        if ((size_t)(e - p) > REC_MAX_LINE) {
            rec_error(L, name, x.line, "a line of %zu bytes (the limit is %d): skipped",
                      (size_t)(e - p), REC_MAX_LINE);
        } else {
            safe_line(p, e, buf);
            x.host[0] = '\0';
            if (one_line(&x, buf)) got++;
        }
        p = nl ? nl + 1 : end;
    }
    free(buf);
    L->lines += got;
    return got;
}

/* ---- after the last file -------------------------------------------------------------- */

static enum rec_class classify(const struct rec_log *L, const struct rec_link *k)
{
    const char *v = k->via;
    const struct rec_host_net *h = NULL;
    for (int i = 0; i < L->nnets; i++)
        if (strcmp(L->nets[i].host, k->host) == 0) h = &L->nets[i];
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
        return REC_UNKNOWN; /* the verbs transport runs on both: the NIC list says which */
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

/* A channel without a ring line: its ring from its link lines, when they form exactly one
 * cycle through every rank that appears in them (each rank one successor, one predecessor),
 * and through all nranks ranks when that is known. Tree connections of the same channel
 * (printed too since 2.7) break that, and then nothing is guessed. */
static void ring_from_links(struct rec_log *L, int c)
{
    int n = L->maxrank + 1;
    if (n < 2) return;
    int *next = xmalloc((size_t)n * sizeof *next), *prev = xmalloc((size_t)n * sizeof *prev);
    for (int r = 0; r < n; r++)
        next[r] = prev[r] = -1;
    bool ok = true, any = false;
    for (int i = 0; i < L->nlinks && ok; i++) {
        const struct rec_link *k = &L->links[i];
        if (k->channel != c) continue;
        any = true;
        if (k->from == k->to)
            ok = false;
        else if (next[k->from] == k->to && prev[k->to] == k->from)
            continue; /* the same hop again (another connection index) */
        else if (next[k->from] >= 0 || prev[k->to] >= 0)
            ok = false;
        else
            next[k->from] = k->to, prev[k->to] = k->from;
    }
    int members = 0, start = -1;
    for (int r = 0; r < n && ok; r++) {
        if ((next[r] < 0) != (prev[r] < 0)) ok = false;
        if (next[r] >= 0) members++, start = start < 0 ? r : start;
    }
    if (ok && any && members >= 2 && (L->nranks < 0 || members == L->nranks)) {
        int *order = xmalloc((size_t)members * sizeof *order), k = 0;
        for (int r = start; k < members; r = next[r]) {
            order[k++] = r;
            if (next[r] == start) break;
        }
        if (k == members && next[order[k - 1]] == start) {
            L->rings[c].order = order;
            L->rings[c].n = members;
            rec_warn(L, "channel %d's ring is read from its link lines (no ring line)", c);
        } else {
            free(order);
        }
    }
    free(next);
    free(prev);
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
        rec_warn(L, "lines of ranks %s only (of %d)", b, L->nranks);
    }
    free(printed);
}

void rec_finish(struct rec_log *L)
{
    for (int i = 0; i < L->nlinks; i++)
        L->links[i].cls = classify(L, &L->links[i]);
    bool ring_lines = false;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        ring_lines = ring_lines || L->rings[c].order;
    for (int c = 0; c < REC_MAX_CHANNELS && !ring_lines; c++)
        ring_from_links(L, c);
    int ring_n = -1;
    bool rings = false, trees = false;
    for (int c = 0; c < REC_MAX_CHANNELS; c++) {
        if (L->rings[c].order) {
            rings = true;
            if (ring_n < 0) ring_n = L->rings[c].n;
        }
        if (L->trees[c].n) trees = true;
    }
    if (L->nranks < 0 && ring_n > 0) L->nranks = ring_n;
    if (L->nranks < 0 && L->maxrank >= 0 && L->ntests > 0) L->nranks = L->maxrank + 1;
    if (L->nranks > 0 && L->nnodes < 0) {
        const char *h[REC_MAX_RANKS];
        bool all = true;
        for (int r = 0; r < L->nranks; r++)
            if (!L->ranks[r].host[0]) all = false;
        if (all) L->nnodes = rec_hosts(L, h, REC_MAX_RANKS);
    }
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        if (L->rings[c].order && L->nranks > 0 && L->rings[c].n != L->nranks)
            rec_warn(L, "channel %d's ring has %d ranks, the communicator %d", c, L->rings[c].n,
                     L->nranks);
    bool nccl =
        L->version[0] || L->nlinks || trees || rings || L->init_complete || L->first_warn[0];
    if (nccl && !ring_lines)
        rec_warn(L, "no ring lines (rank 0 prints \"Channel 00/.. :  0 1 ...\" with "
                    "NCCL_DEBUG=INFO)");
    if (L->commsizes_differ)
        rec_warn(L, "several communicators of different sizes: the largest (%d ranks) is shown",
                 L->nranks);
    if (L->init_error[0] && L->init_complete == 0)
        rec_warn(L, "init failed (%s): %s", L->init_error,
                 L->first_warn[0] ? L->first_warn : "no NCCL WARN line says why");
    else if (L->first_warn[0])
        rec_warn(L, "NCCL WARN: %s", L->first_warn);
    warn_partial(L);
}

int rec_ring_crossings(const struct rec_log *L, int channel)
{
    if (channel < 0 || channel >= REC_MAX_CHANNELS) return -1;
    const struct rec_ring *g = &L->rings[channel];
    if (!g->order || g->n == 0) return -1;
    int x = 0;
    for (int i = 0; i < g->n; i++) {
        const char *a = L->ranks[g->order[i]].host;
        const char *b = L->ranks[g->order[(i + 1) % g->n]].host;
        if (!a[0] || !b[0]) return -1;
        if (strcmp(a, b) != 0) x++;
    }
    return x;
}

int rec_hosts(const struct rec_log *L, const char **out, int max)
{
    int n = 0;
    for (int r = 0; r <= L->maxrank; r++) {
        const char *h = L->ranks[r].host;
        if (!h[0]) continue;
        bool seen = false;
        for (int i = 0; i < n && !seen; i++)
            seen = strcmp(out[i], h) == 0;
        if (!seen && n < max) out[n++] = h;
    }
    return n;
}
