/* reccomm.c - lines to units, units to communicators (reccomm.h). */
#include "records/reccomm.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "records/records.h"
#include "records/recview.h"

/* ---- the map -------------------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

int rec_map_get(const struct rec_map *m, uint64_t key)
{
    if (!m->cap) return -1;
    for (size_t i = mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].key == 0) return -1;
        if (m->slots[i].key == key + 1) return m->slots[i].val;
    }
}

void rec_map_put(struct rec_map *m, uint64_t key, int val)
{
    if ((m->n + 1) * 2 > m->cap) {
        struct rec_map g = {.cap = m->cap ? m->cap * 2 : 16};
        g.slots = xcalloc(g.cap, sizeof *g.slots);
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].key) rec_map_put(&g, m->slots[i].key - 1, m->slots[i].val);
        rec_map_free(m);
        *m = g;
    }
    size_t i = mix(key) & (m->cap - 1);
    while (m->slots[i].key && m->slots[i].key != key + 1)
        i = (i + 1) & (m->cap - 1);
    if (!m->slots[i].key) m->n++;
    m->slots[i].key = key + 1;
    m->slots[i].val = val;
}

void rec_map_free(struct rec_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* ---- hosts ---------------------------------------------------------------------------- */

int rec_host_id(struct rec_log *L, const char *name, bool create)
{
    if (!name || !name[0]) return -1;
    uint64_t h = str_hash(name);
    for (uint64_t k = h;; k = mix(k)) { /* a chain of probes past hash collisions */
        int id = rec_map_get(&L->hostmap, k);
        if (id < 0) {
            if (!create) return -1;
            if (L->nhostnames % 64 == 0) {
                size_t n = (size_t)L->nhostnames + 64;
                L->hostnames = xrealloc(L->hostnames, n * sizeof *L->hostnames);
                L->host_lines = xrealloc(L->host_lines, n * sizeof *L->host_lines);
            }
            L->host_lines[L->nhostnames] = 0;
            L->hostnames[L->nhostnames] = xstrdup(name);
            rec_map_put(&L->hostmap, k, L->nhostnames);
            return L->nhostnames++;
        }
        if (strcmp(L->hostnames[id], name) == 0) return id;
    }
}

const char *rec_host_name(const struct rec_log *L, int id)
{
    return id >= 0 && id < L->nhostnames ? L->hostnames[id] : "";
}

/* ---- facts ---------------------------------------------------------------------------- */

/* A window [*lo, *end) of elements (of size el) that holds index i: grown towards i, at least
 * doubling, so a unit that names ranks near its own keeps a few bytes, not one per rank of
 * the job, and a communicator's facts grow to its size. */
static void window_hold(void **a, int *lo, int *end, size_t el, int i)
{
    if (*a && i >= *lo && i < *end) return;
    int nlo, nend;
    if (!*a) {
        nlo = i & ~7;
        nend = nlo + 8;
    } else {
        int size = *end - *lo;
        nlo = i < *lo ? i : *lo;
        nend = i >= *end ? i + 1 : *end;
        if (nend - nlo < 2 * size) { /* grow by doubling, towards i */
            if (i < *lo)
                nlo = *end - 2 * size > 0 ? *end - 2 * size : 0;
            else
                nend = *lo + 2 * size;
        }
        if (nlo < 0) nlo = 0;
    }
    char *n = xcalloc((size_t)(nend - nlo), el);
    if (*a) memcpy(n + (size_t)(*lo - nlo) * el, *a, (size_t)(*end - *lo) * el);
    free(*a);
    *a = n;
    *lo = nlo;
    *end = nend;
}

static void bit_set(unsigned char **bits, int *lo, int *cap, long rank)
{
    if (rank < 0 || rank >= REC_MAX_RANKS) return;
    int byte = (int)(rank >> 3);
    window_hold((void **)bits, lo, cap, 1, byte);
    (*bits)[byte - *lo] |= (unsigned char)(1u << (rank & 7));
}

static bool bit_has(const unsigned char *bits, int lo, int cap, long rank)
{
    return rank >= 0 && (rank >> 3) >= lo && (rank >> 3) < cap &&
           (bits[(rank >> 3) - lo] >> (rank & 7)) & 1;
}

void rec_facts_seen(struct rec_facts *f, long rank)
{
    bit_set(&f->seen, &f->seen_lo, &f->seen_cap, rank);
}

void rec_facts_placed(struct rec_facts *f, long rank)
{
    bit_set(&f->placed, &f->placed_lo, &f->placed_cap, rank);
}

void rec_facts_printed(struct rec_facts *f, long rank)
{
    bit_set(&f->printed, &f->printed_lo, &f->printed_cap, rank);
}

bool rec_facts_printed_has(const struct rec_facts *f, int rank)
{
    return bit_has(f->printed, f->printed_lo, f->printed_cap, rank);
}

static bool placed_has(const struct rec_facts *f, int rank)
{
    return bit_has(f->placed, f->placed_lo, f->placed_cap, rank);
}

static int next_of(const struct rec_facts *f, int from) /* to + 1, 0 none */
{
    return from >= f->next_lo && from < f->nnext ? f->next0[from - f->next_lo] : 0;
}

void rec_facts_next0(struct rec_facts *f, long from, long to)
{
    if (from < 0 || to < 0 || from >= REC_MAX_RANKS || to >= REC_MAX_RANKS || from == to) {
        f->next_bad = true;
        return;
    }
    window_hold((void **)&f->next0, &f->next_lo, &f->nnext, sizeof *f->next0, (int)from);
    int *slot = &f->next0[from - f->next_lo];
    if (*slot && *slot != to + 1) f->next_bad = true;
    *slot = (int)to + 1;
}

/* The length of the one cycle channel 0's links make through every rank seen, or -1. */
static int ring_from_next(const struct rec_facts *f)
{
    if (f->next_bad || !f->nnext) return -1;
    int start = -1, members = 0;
    for (int r = f->next_lo; r < f->nnext; r++)
        if (next_of(f, r)) {
            members++;
            if (start < 0) start = r;
        }
    if (members < 2) return -1;
    int n = 0, r = start;
    do {
        if (!next_of(f, r)) return -1;
        r = next_of(f, r) - 1;
        n++;
    } while (r != start && n <= members);
    if (r != start || n != members) return -1;
    for (int k = f->seen_lo * 8; k < f->seen_cap * 8; k++) /* every rank seen is on it */
        if (rec_facts_has(f, k) && !next_of(f, k)) return -1;
    return n;
}

bool rec_facts_has(const struct rec_facts *f, int rank)
{
    return bit_has(f->seen, f->seen_lo, f->seen_cap, rank);
}

int rec_facts_next(const struct rec_facts *f, int rank)
{
    if (!f->seen) return -1;
    if (rank < f->seen_lo * 8) rank = f->seen_lo * 8;
    for (int b = rank >> 3; b < f->seen_cap; b++) { /* a byte at a time: empty ones skipped */
        unsigned v = f->seen[b - f->seen_lo];
        if (b == rank >> 3) v &= 0xffu << (rank & 7);
        if (v) return b * 8 + __builtin_ctz(v);
    }
    return -1;
}

void rec_facts_host(struct rec_facts *f, int host)
{
    if (host < 0) return;
    for (int i = 0; i < f->nhosts; i++)
        if (f->hosts[i] == host) return;
    if (f->nhosts == f->caphosts) {
        f->caphosts = f->caphosts ? 2 * f->caphosts : 4;
        f->hosts = xrealloc(f->hosts, (size_t)f->caphosts * sizeof *f->hosts);
    }
    f->hosts[f->nhosts++] = host;
}

/* "NET/IB/0/GDRDMA" -> "NET/IB"; "P2P/IPC/read" -> "P2P/IPC"; "P2P/direct pointer" ->
 * "P2P/direct"; "SHM/direct/direct", "direct shared memory" -> "SHM". */
void rec_facts_transport(struct rec_facts *f, const char *via)
{
    char t[24];
    const char *head = "", *rest = via; /* t: head, then rest[0..n) */
    size_t n;
    if (strncmp(via, "SHM", 3) == 0 || strncmp(via, "shared memory", 13) == 0 ||
        strncmp(via, "direct shared memory", 20) == 0) {
        rest = "SHM";
        n = 3;
    } else if (strncmp(via, "NET/", 4) == 0) {
        n = strcspn(via + 4, "/(");
        while (n && via[4 + n - 1] == ' ')
            n--;
        head = "NET/", rest = via + 4, n = n > 18 ? 18 : n;
    } else if (strncmp(via, "P2P/", 4) == 0) {
        n = strcspn(via + 4, "/ ");
        head = "P2P/", rest = via + 4, n = n > 18 ? 18 : n;
    } else {
        n = strcspn(via, "/ ");
        n = n > 22 ? 22 : n;
    }
    size_t h = strlen(head);
    memcpy(t, head, h);
    memcpy(t + h, rest, n);
    t[h + n] = '\0';
    for (int i = 0; i < f->ntransports; i++)
        if (strcmp(f->transports[i], t) == 0) return;
    if (f->ntransports < REC_MAX_TRANSPORTS)
        memcpy(f->transports[f->ntransports++], t, h + n + 1);
}

int rec_facts_nrings(const struct rec_facts *f)
{
    int n = 0;
    for (size_t i = 0; i < sizeof f->rings; i++)
        for (int b = 0; b < 8; b++)
            n += (f->rings[i] >> b) & 1;
    return n;
}

void rec_facts_free(struct rec_facts *f)
{
    free(f->seen);
    free(f->placed);
    free(f->printed);
    free(f->next0);
    free(f->hosts);
    memset(f, 0, sizeof *f);
}

static void facts_init(struct rec_facts *f)
{
    memset(f, 0, sizeof *f);
    f->nranks = f->nnodes = f->channels = f->localranks = -1;
}

/* A set of ranks (bits, bytes lo..cap-1) into another, a byte at a time: the window grows as
 * it would a rank at a time (window_hold of each byte holding a rank, in order). */
static void bits_merge(unsigned char **bits, int *lo, int *cap, const unsigned char *from,
                       int from_lo, int from_cap)
{
    for (int i = from_lo; i < from_cap; i++) {
        unsigned char v = from[i - from_lo];
        if (!v) continue;
        window_hold((void **)bits, lo, cap, 1, i);
        (*bits)[i - *lo] |= v;
    }
}

/* a's facts into b */
static void facts_merge(struct rec_facts *b, const struct rec_facts *a)
{
    if (!b->id[0]) snprintf(b->id, sizeof b->id, "%s", a->id);
    if (b->nranks < 0) b->nranks = a->nranks;
    if (b->nnodes < 0) b->nnodes = a->nnodes;
    if (b->localranks < 0) b->localranks = a->localranks;
    if (b->channels < 0) b->channels = a->channels;
    bits_merge(&b->seen, &b->seen_lo, &b->seen_cap, a->seen, a->seen_lo, a->seen_cap);
    bits_merge(&b->placed, &b->placed_lo, &b->placed_cap, a->placed, a->placed_lo,
               a->placed_cap);
    bits_merge(&b->printed, &b->printed_lo, &b->printed_cap, a->printed, a->printed_lo,
               a->printed_cap);
    for (int r = a->next_lo; r < a->nnext; r++)
        if (next_of(a, r)) rec_facts_next0(b, r, next_of(a, r) - 1);
    b->next_bad = b->next_bad || a->next_bad;
    for (int i = 0; i < a->nhosts; i++)
        rec_facts_host(b, a->hosts[i]);
    for (size_t i = 0; i < sizeof b->rings; i++)
        b->rings[i] |= a->rings[i];
    b->trees = b->trees || a->trees;
    for (int i = 0; i < a->ntransports; i++) {
        bool have = false;
        for (int j = 0; j < b->ntransports; j++)
            have = have || strcmp(b->transports[j], a->transports[i]) == 0;
        if (!have && b->ntransports < REC_MAX_TRANSPORTS)
            memcpy(b->transports[b->ntransports++], a->transports[i], 24);
    }
    b->features |= a->features;
    b->kinds |= a->kinds;
}

/* ---- units ---------------------------------------------------------------------------- */

static int new_unit(struct rec_log *L, int host, long pid, uint64_t ptr)
{
    if (L->nunits == L->capunits) {
        L->capunits = L->capunits ? 2 * L->capunits : 16;
        L->units = xrealloc(L->units, (size_t)L->capunits * sizeof *L->units);
    }
    struct rec_unit *u = &L->units[L->nunits];
    memset(u, 0, sizeof *u);
    u->host = host;
    u->pid = pid;
    u->ptr = ptr;
    u->rank = -1;
    u->group = -1;
    u->into = -1;
    u->device = -1;
    facts_init(&u->f);
    return L->nunits++;
}

static uint64_t key3(int host, long pid, uint64_t x)
{
    return mix(mix((uint64_t)(int64_t)host) ^ (uint64_t)pid) ^ mix(x + 7);
}

static bool unit_counts(const struct rec_unit *u);

/* A change to threads, procs or ptrs: rec_unit_for's memo is old. */
static void unit_map_put(struct rec_log *L, struct rec_map *m, uint64_t key, int u)
{
    rec_map_put(m, key, u);
    L->map_gen++;
}

/* The memo holds when the line is of the thread (and pointer) of the last answer u and the
 * maps have not changed since: then the threads, procs (and ptrs) maps hold u for it, so
 * the look-ups below find u again, and nothing is put. Only a unit that is done is not
 * found again by a line without a pointer. */
static int unit_memo(const struct rec_log *L, int host, long pid, long tid, uint64_t ptr)
{
    const struct rec_unit_memo *c = &L->unit_memo;
    if (!c->set || c->gen != L->map_gen || c->host != host || c->pid != pid || c->tid != tid ||
        c->ptr != ptr)
        return -1;
    return ptr || !L->units[c->unit].done ? c->unit : -1;
}

int rec_unit_for(struct rec_log *L, int host, long pid, long tid, uint64_t ptr, bool moved,
                 bool start, long nranks)
{
    int memo = unit_memo(L, host, pid, tid, ptr);
    if (memo >= 0) return memo;
    uint64_t tk = key3(host, pid, (uint64_t)tid), pk = key3(host, pid, ~0ULL);
    int u = -1;
    int cur = rec_map_get(&L->threads, tk);
    if (cur < 0) cur = rec_map_get(&L->procs, pk);
    if (ptr) {
        uint64_t k = key3(host, pid, ptr ^ 0x5555555555555555ULL);
        u = rec_map_get(&L->ptrs, k);
        if (u < 0) {
            /* the lines before a pointer are its communicator's, unless they cannot be:
             * another size, or facts before an "Init START" */
            const struct rec_unit *c = cur >= 0 ? &L->units[cur] : NULL;
            if (c && !c->ptr && !c->done && !(start && unit_counts(c)) &&
                !(nranks > 0 && c->f.nranks > 0 && c->f.nranks != nranks)) {
                u = cur;
                L->units[u].ptr = ptr;
            } else {
                u = new_unit(L, host, pid, ptr);
            }
            unit_map_put(L, &L->ptrs, k, u);
        }
    } else {
        u = rec_map_get(&L->threads, tk);
        if (u < 0) u = rec_map_get(&L->procs, pk);
        if (u < 0 || L->units[u].done) u = new_unit(L, host, pid, 0);
    }
    /* a summary line of another communicator, printed while this one is being set up: it
     * does not end this one */
    if (moved && !start && cur >= 0 && u != cur && L->units[cur].ptr && !L->units[cur].done)
        return u;
    if (rec_map_get(&L->threads, tk) != u) unit_map_put(L, &L->threads, tk, u);
    if (rec_map_get(&L->procs, pk) != u) unit_map_put(L, &L->procs, pk, u);
    L->unit_memo = (struct rec_unit_memo){.set = true,
                                          .host = host,
                                          .unit = u,
                                          .pid = pid,
                                          .tid = tid,
                                          .ptr = ptr,
                                          .gen = L->map_gen};
    return u;
}

void rec_unit_done(struct rec_log *L, int u)
{
    if (u >= 0) L->units[u].done = true;
}

static bool can_hold(const struct rec_facts *f, long maxrank, int net)
{
    if (f->nranks >= 0 && maxrank >= f->nranks) return false;
    if (net == 1 && f->nnodes == 1) return false;     /* a network link in one node */
    if (net == 0 && f->localranks == 1) return false; /* P2P/SHM with no local peer */
    return true;
}

int rec_unit_fitting(struct rec_log *L, int u, long maxrank, int net)
{
    const struct rec_unit *a = &L->units[u];
    if (can_hold(&a->f, maxrank, net)) return u;
    for (int i = L->nunits - 1; i >= 0; i--) {
        const struct rec_unit *b = &L->units[i];
        if (i != u && b->host == a->host && b->pid == a->pid && !b->tests &&
            can_hold(&b->f, maxrank, net))
            return i;
    }
    return -1;
}

int rec_unit_fresh(struct rec_log *L, int host, long pid, long tid)
{
    int u = new_unit(L, host, pid, 0);
    unit_map_put(L, &L->threads, key3(host, pid, (uint64_t)tid), u);
    unit_map_put(L, &L->procs, key3(host, pid, ~0ULL), u);
    return u;
}

int rec_unit_connecting(struct rec_log *L, int u, int dev, long rank, long maxrank)
{
    const struct rec_unit *a = &L->units[u];
    if (dev < 0 || a->done || a->ptr || unit_counts(a)) return u;
    int found = -1;
    for (int i = 0; i < L->nunits; i++) {
        const struct rec_unit *b = &L->units[i];
        if (i == u || !b->done || b->tests || b->into >= 0 || b->host != a->host ||
            b->pid != a->pid || b->device != dev || b->rank != rank ||
            (b->f.nranks > 0 && maxrank >= b->f.nranks))
            continue;
        if (found >= 0) return u; /* two communicators fit: not guessed */
        found = i;
    }
    return found >= 0 ? found : u;
}

int rec_tests_unit(struct rec_log *L)
{
    if (L->tests_unit < 0) {
        L->tests_unit = new_unit(L, -1, -1, 0);
        L->units[L->tests_unit].tests = true;
    }
    return L->tests_unit;
}

int rec_tests_unit_k(struct rec_log *L, int k)
{
    int first = rec_tests_unit(L);
    if (k == 0) return first;
    int max = (int)(sizeof L->tunits / sizeof *L->tunits);
    if (k > max) k = max;
    while (L->ntunits < k) {
        int u = new_unit(L, -1, -1, 0);
        L->units[u].tests = true;
        L->tunits[L->ntunits++] = u;
    }
    return L->tunits[k - 1];
}

void rec_unit_rehost(struct rec_log *L, int u, int host)
{
    struct rec_unit *a = &L->units[u];
    a->host = host;
    for (int i = 0; i < L->nunits; i++) {
        struct rec_unit *b = &L->units[i];
        if (i == u || b->host != host || b->pid != a->pid || b->tests) continue;
        facts_merge(&b->f, &a->f);
        if (b->rank < 0) b->rank = a->rank;
        if (b->device < 0) b->device = a->device;
        a->into = i;
        rec_facts_free(&a->f);
        facts_init(&a->f);
        a->rank = -1;
        return;
    }
}

/* ---- grouping ------------------------------------------------------------------------- */

static bool unit_counts(const struct rec_unit *u)
{
    const struct rec_facts *f = &u->f;
    return f->id[0] || f->nranks > 0 || f->seen_cap > 0 || f->channels >= 0 || f->trees ||
           f->ntransports || f->features || rec_facts_nrings(f) || u->rank >= 0;
}

static int popcount(unsigned x)
{
    int n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

static int new_comm(struct rec_log *L)
{
    L->comms = xrealloc(L->comms, (size_t)(L->ncomms + 1) * sizeof *L->comms);
    facts_init(&L->comms[L->ncomms]);
    return L->ncomms++;
}

/* may unit u join communicator c: sizes agree, its rank is not taken by another process */
static bool fits(const struct rec_log *L, int c, const struct rec_unit *u)
{
    const struct rec_facts *f = &L->comms[c];
    if (f->id[0]) return false;
    if (f->nranks > 0 && u->f.nranks > 0 && f->nranks != u->f.nranks) return false;
    for (int i = 0; i < L->nunits; i++) {
        const struct rec_unit *v = &L->units[i];
        if (v->group == c && v->rank >= 0 && v->rank == u->rank &&
            (v->host != u->host || v->pid != u->pid))
            return false;
    }
    return true;
}

/* The one identified communicator (commId, of the ids in first..end) that unit u, which has
 * no commId, can be of, else -1. NCCL 2.19+ prints a commId for every communicator ("Init
 * COMPLETE"); a thread whose lines stop before that line is of a communicator whose id the
 * text does not show: of an identified one when it has a process on u's host, holds every
 * rank u names, and has no other process with u's rank; of none when two could hold it. */
static int id_comm_for(const struct rec_log *L, const struct rec_unit *u, int end)
{
    int top = -1;
    for (int r = rec_facts_next(&u->f, 0); r >= 0; r = rec_facts_next(&u->f, r + 1))
        top = r;
    bool net = false, local = false;
    for (int t = 0; t < u->f.ntransports; t++) {
        bool n = strncmp(u->f.transports[t], "NET/", 4) == 0;
        net = net || n;
        local = local || !n;
    }
    int pick = -1;
    for (int c = 0; c < end; c++) {
        const struct rec_facts *f = &L->comms[c];
        if (!f->id[0] || f->nranks <= 0 || top >= f->nranks || u->rank >= f->nranks ||
            (u->f.nranks > 0 && u->f.nranks != f->nranks) || (net && !can_hold(f, top, 1)) ||
            (local && !can_hold(f, top, 0)))
            continue;
        bool host = false, taken = false;
        for (int i = 0; i < L->nunits; i++) {
            const struct rec_unit *v = &L->units[i];
            if (v->group != c) continue;
            host = host || v->host == u->host;
            taken = taken || (u->rank >= 0 && v->rank == u->rank &&
                              (v->host != u->host || v->pid != u->pid));
        }
        if (!host || taken) continue;
        if (pick >= 0) return -1;
        pick = c;
    }
    return pick;
}

/* Each unit without a commId into the identified communicator that alone can hold it. */
static void join_id_comms(struct rec_log *L)
{
    int nid = L->ncomms;
    for (int i = 0; i < L->nunits; i++) {
        struct rec_unit *u = &L->units[i];
        if (u->group >= 0 || u->tests || !unit_counts(u) || u->host < 0 || u->f.id[0]) continue;
        int c = id_comm_for(L, u, nid);
        if (c < 0) continue;
        u->group = c;
        facts_merge(&L->comms[c], &u->f);
    }
}

/* May the list of devices t be communicator c's: no size, rank or process of one says
 * otherwise (a rank the list puts in one process that c's lines put in another). *shares:
 * a process of c is one of the list's. */
static bool tests_fit(const struct rec_log *L, int c, const struct rec_unit *t, bool *shares)
{
    const struct rec_facts *f = &L->comms[c];
    *shares = false;
    if (f->nranks > 0 && t->f.nranks > 0 && f->nranks != t->f.nranks) return false;
    int top = -1;
    for (int r = rec_facts_next(&t->f, 0); r >= 0; r = rec_facts_next(&t->f, r + 1))
        top = r;
    if (f->nranks > 0 && top >= f->nranks) return false;
    for (int i = 0; i < L->nunits; i++) {
        const struct rec_unit *u = &L->units[i];
        if (u->group != c || u->tests || u->host < 0) continue;
        for (int r = rec_facts_next(&t->f, 0); r >= 0 && r < L->rank_slots;
             r = rec_facts_next(&t->f, r + 1)) {
            const struct rec_rank *k = &L->ranks[r];
            if (!k->list_pid) continue;
            bool same = k->list_host - 1 == u->host && k->list_pid == u->pid;
            if (u->rank == r && !same) return false;
            *shares = *shares || same;
        }
    }
    return true;
}

/* The communicator nccl-tests' list of devices t describes: the one communicator that
 * fits it and shares a process with it (nccl-tests' own, whose lines its processes print);
 * else the one of its size or of a size not known, when exactly one; else -1. */
static int tests_comm(const struct rec_log *L, const struct rec_unit *t)
{
    int shared = -1, nshared = 0, sized = -1, nsized = 0;
    for (int c = 0; c < L->ncomms; c++) {
        bool shares;
        bool fit = tests_fit(L, c, t, &shares);
        if (fit && shares) shared = c, nshared++;
        if (L->comms[c].nranks == t->f.nranks || L->comms[c].nranks < 0) sized = c, nsized++;
    }
    if (nshared == 1) return shared;
    return nsized == 1 ? sized : -1;
}

/* The size communicator c's link lines prove: the length of the one cycle some channel's
 * links make through every rank its lines name. NCCL's ring of a channel holds every rank
 * of the communicator, so a closed cycle through all the ranks named is all of them, in
 * whichever channel it is printed whole (rec_links_ring: each rank one successor and one
 * predecessor); -1 when no channel's links close. */
static int links_cycle_size(const struct rec_log *L, int c)
{
    const struct rec_facts *f = &L->comms[c];
    int n = 0, seen = 0, size = -1;
    int *idx = xmalloc((size_t)(L->nlinks ? L->nlinks : 1) * sizeof *idx);
    bool chans[REC_MAX_CHANNELS] = {false};
    for (int i = 0; i < L->nlinks; i++) {
        const struct rec_link *k = &L->links[i];
        int kc = k->unit < 0 && L->ncomms == 1 ? 0 : rec_unit_comm(L, k->unit);
        if (kc != c || k->channel < 0 || k->channel >= REC_MAX_CHANNELS) continue;
        idx[n++] = i;
        chans[k->channel] = true;
    }
    for (int r = f->seen_lo * 8; r < f->seen_cap * 8; r++)
        seen += rec_facts_has(f, r);
    for (int ch = 0; ch < REC_MAX_CHANNELS && size < 0 && n > 0; ch++) {
        int len = 0, on = 0;
        int *order = chans[ch]
                         ? rec_links_ring(L->links, idx, n, ch, REC_MAX_RANKS, -1, NULL, &len)
                         : NULL;
        for (int i = 0; order && i < len; i++)
            on += rec_facts_has(f, order[i]);
        if (order && on == seen && len == seen) size = len;
        free(order);
    }
    free(idx);
    return size;
}

void rec_comm_finish(struct rec_log *L)
{
    /* 0. a process's lines that no pointer named (its "Init START" cut or deduplicated) are
     * of its one identified communicator of their size where it has one */
    for (int i = 0; i < L->nunits; i++) {
        struct rec_unit *u = &L->units[i];
        if (u->f.id[0] || u->tests || !unit_counts(u) || u->f.nranks <= 0) continue;
        int pick = -1, n = 0;
        for (int k = 0; k < L->nunits; k++) {
            const struct rec_unit *v = &L->units[k];
            if (k == i || !v->f.id[0] || v->host != u->host || v->pid != u->pid ||
                v->f.nranks != u->f.nranks ||
                (u->rank >= 0 && v->rank >= 0 && v->rank != u->rank))
                continue;
            pick = k, n++;
        }
        if (n != 1) continue;
        struct rec_unit *v = &L->units[pick];
        facts_merge(&v->f, &u->f);
        if (v->rank < 0) v->rank = u->rank;
        if (v->device < 0) v->device = u->device;
        u->into = pick;
        rec_facts_free(&u->f);
        facts_init(&u->f);
        u->rank = -1;
    }
    /* 1. by commId */
    for (int i = 0; i < L->nunits; i++) {
        struct rec_unit *u = &L->units[i];
        if (!u->f.id[0]) continue;
        int c = -1;
        for (int k = 0; k < L->ncomms && c < 0; k++)
            if (strcmp(L->comms[k].id, u->f.id) == 0) c = k;
        if (c < 0) c = new_comm(L);
        u->group = c;
        facts_merge(&L->comms[c], &u->f);
    }
    /* 1b. a thread whose "Init COMPLETE" the text leaves out */
    join_id_comms(L);
    /* 2. the rest: seeds are the claimants of the most-claimed rank */
    int maxclaims = 1, seedrank = -1;
    int top = 0;
    for (int i = 0; i < L->nunits; i++)
        top = L->units[i].rank > top ? L->units[i].rank : top;
    int *count = xcalloc((size_t)top + 1, sizeof *count);
    for (int i = 0; i < L->nunits; i++) {
        struct rec_unit *u = &L->units[i];
        if (u->group >= 0 || u->tests || !unit_counts(u) || u->rank < 0) continue;
        if (++count[u->rank] > maxclaims) maxclaims = count[u->rank], seedrank = u->rank;
    }
    free(count);
    int first = L->ncomms;
    if (seedrank >= 0)
        for (int i = 0; i < L->nunits; i++) {
            struct rec_unit *u = &L->units[i];
            if (u->group >= 0 || u->tests || !unit_counts(u) || u->rank != seedrank) continue;
            u->group = new_comm(L);
            facts_merge(&L->comms[u->group], &u->f);
        }
    for (int i = 0; i < L->nunits; i++) {
        struct rec_unit *u = &L->units[i];
        if (u->group >= 0 || u->tests || !unit_counts(u)) continue;
        int best = -1, bscore = -1;
        for (int c = first; c < L->ncomms; c++) {
            if (!fits(L, c, u)) continue;
            int s = popcount(L->comms[c].kinds & u->f.kinds);
            if (s > bscore) best = c, bscore = s;
        }
        if (best < 0) best = new_comm(L);
        u->group = best;
        facts_merge(&L->comms[best], &u->f);
    }
    /* 3. nccl-tests' device lines: into the communicator their processes print NCCL's
     * lines for, else the one of their size, when one is; the runs of processes that each
     * claimed a rank another had: each its own */
    if (L->tests_unit >= 0) {
        struct rec_unit *t = &L->units[L->tests_unit];
        int c = tests_comm(L, t);
        if (c < 0) c = new_comm(L);
        t->group = c;
        facts_merge(&L->comms[c], &t->f);
    }
    for (int i = 0; i < L->ntunits; i++) {
        struct rec_unit *t = &L->units[L->tunits[i]];
        t->group = new_comm(L);
        facts_merge(&L->comms[t->group], &t->f);
    }
    /* 4. hosts: of the processes that printed; nodes: when every rank is placed */
    for (int c = 0; c < L->ncomms; c++) {
        struct rec_facts *f = &L->comms[c];
        if (f->nranks < 0) f->nranks = ring_from_next(f);
        if (f->nranks < 0) f->nranks = links_cycle_size(L, c);
        int n = f->nranks;
        bool *placed = n > 0 ? xcalloc((size_t)n, sizeof *placed) : NULL;
        for (int i = 0; i < L->nunits; i++) {
            const struct rec_unit *u = &L->units[i];
            if (u->group != c) continue;
            if (u->host >= 0) rec_facts_host(f, u->host);
            if (!placed) continue;
            if (u->tests) {
                for (int r = u->f.seen_lo * 8; r < n && r < u->f.seen_cap * 8; r++)
                    if (rec_facts_has(&u->f, r)) placed[r] = true;
            } else if (u->host >= 0) {
                if (u->rank >= 0 && u->rank < n) placed[u->rank] = true;
                for (int r = u->f.placed_lo * 8; r < n && r < u->f.placed_cap * 8; r++)
                    if (placed_has(&u->f, r)) placed[r] = true;
            }
        }
        bool all = placed != NULL;
        for (int r = 0; r < n && all; r++)
            all = placed[r];
        if (all && f->nnodes < 0) f->nnodes = f->nhosts;
        free(placed);
    }
}

int rec_unit_comm(const struct rec_log *L, int u)
{
    for (int hops = 0; u >= 0 && u < L->nunits && hops <= L->nunits; hops++) {
        if (L->units[u].into < 0) return L->units[u].group;
        u = L->units[u].into;
    }
    return -1;
}

bool rec_host_in_tests(const struct rec_log *L, int host)
{
    for (int u = 0; u < L->nunits; u++) {
        const struct rec_facts *f = &L->units[u].f;
        for (int i = 0; L->units[u].tests && i < f->nhosts; i++)
            if (f->hosts[i] == host) return true;
    }
    return false;
}
