/* recview.c - each communicator's own rings, trees and links (recview.h). */
#include "records/recview.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- a channel's links as a ring ------------------------------------------------------ */

static const struct rec_link *nth_link(const struct rec_link *links, const int *idx, int i)
{
    return idx ? &links[idx[i]] : &links[i];
}

/* next[]/prev[] of channel c's hops; false when they are no one successor and predecessor
 * each (a tree's connections, a rank linked to itself, a rank past slots). */
static bool hops_of(const struct rec_link *links, const int *idx, int n, int c, int slots,
                    int *next, int *prev)
{
    bool any = false;
    for (int r = 0; r < slots; r++)
        next[r] = prev[r] = -1;
    for (int i = 0; i < n; i++) {
        const struct rec_link *k = nth_link(links, idx, i);
        if (k->channel != c) continue;
        any = true;
        if (k->from == k->to || k->from < 0 || k->to < 0 || k->from >= slots || k->to >= slots)
            return false;
        if (next[k->from] == k->to && prev[k->to] == k->from)
            continue; /* the same hop again (another connection index) */
        if (next[k->from] >= 0 || prev[k->to] >= 0) return false;
        next[k->from] = k->to, prev[k->to] = k->from;
    }
    return any;
}

static bool cut_ring_agrees(const struct rec_ring *g, const int *next, int n)
{
    for (int i = 0; i + 1 < g->n; i++)
        if (g->order[i] >= n || next[g->order[i]] != g->order[i + 1]) return false;
    return true;
}

int *rec_links_ring(const struct rec_link *links, const int *idx, int n, int c, int slots,
                    int nranks, const struct rec_ring *cut, int *len)
{
    /* the ranks this channel's links name bound the work, not the record's slots */
    int top = -1;
    for (int i = 0; i < n; i++) {
        const struct rec_link *k = nth_link(links, idx, i);
        if (k->channel != c) continue;
        if (k->from < 0 || k->to < 0 || k->from >= slots || k->to >= slots) return NULL;
        top = k->from > top ? k->from : top;
        top = k->to > top ? k->to : top;
    }
    slots = top + 1;
    if (slots < 2) return NULL;
    int *next = xmalloc((size_t)slots * sizeof *next),
        *prev = xmalloc((size_t)slots * sizeof *prev);
    int *order = NULL, members = 0, start = -1;
    bool ok = hops_of(links, idx, n, c, slots, next, prev);
    for (int r = 0; r < slots && ok; r++) {
        if ((next[r] < 0) != (prev[r] < 0)) ok = false;
        if (next[r] >= 0) members++, start = start < 0 ? r : start;
    }
    if (ok && members >= 2 && (nranks <= 0 || members == nranks)) {
        order = xmalloc((size_t)members * sizeof *order);
        int k = 0;
        for (int r = start; k < members; r = next[r]) {
            order[k++] = r;
            if (next[r] == start) break;
        }
        if (k != members || next[order[k - 1]] != start ||
            (cut && !cut_ring_agrees(cut, next, slots))) {
            free(order);
            order = NULL;
        } else if (cut) { /* from the cut line's first rank */
            for (int i = 0; i < members; i++)
                order[i] = i == 0 ? cut->order[0] : next[order[i - 1]];
        }
    }
    free(next);
    free(prev);
    *len = order ? members : 0;
    return order;
}

/* ---- links: a communicator's two lines of a connection one link ----------------------- */

/* What both ends of a connection print alike: a network link's sender and receiver each
 * name their own NIC ("NET/IB/2/GDRDMA" and "NET/IB/5/GDRDMA"), so of NET/<name>/... only
 * "NET/<name>"; of P2P and SHM links the whole transport. */
static size_t via_same_len(const char *via)
{
    size_t n = strlen(via);
    if (strncmp(via, "NET/", 4) != 0) return n;
    const char *sl = strchr(via + 4, '/');
    return sl ? (size_t)(sl - via) : n;
}

static uint64_t link_key(const struct rec_link *k)
{
    uint64_t key = (uint64_t)(uint32_t)k->channel * 0x9e3779b97f4a7c15ULL ^
                   (uint64_t)(uint32_t)k->conn * 0xc2b2ae3d27d4eb4fULL ^
                   ((uint64_t)(uint32_t)k->from << 32 | (uint32_t)k->to);
    for (size_t i = 0, n = via_same_len(k->via); i < n; i++)
        key = (key ^ (unsigned char)k->via[i]) * 1099511628211ULL;
    return (key ^ (uint64_t)(uint32_t)k->comm) * 0xff51afd7ed558ccdULL;
}

static bool same_link(const struct rec_link *a, const struct rec_link *b)
{
    size_t n = via_same_len(a->via);
    return a->channel == b->channel && a->conn == b->conn && a->from == b->from &&
           a->to == b->to && a->comm == b->comm &&
           (a->via == b->via || (n == via_same_len(b->via) && strncmp(a->via, b->via, n) == 0));
}

/* Each link's communicator; the links of one communicator alike kept once (the first). The
 * reading's map of links is done with. */
static void links_by_comm(struct rec_log *L)
{
    rec_map_free(&L->linkmap);
    for (int u = 0; u < L->nunits; u++)
        rec_map_free(&L->units[u].links);
    struct rec_map m = {0};
    int w = 0;
    for (int i = 0; i < L->nlinks; i++) {
        struct rec_link k = L->links[i];
        k.comm = rec_unit_comm(L, k.unit);
        if (k.unit < 0 && L->ncomms == 1) { /* a line without a header: the one there is */
            k.comm = 0;
            rec_facts_seen(&L->comms[0], k.from);
            rec_facts_seen(&L->comms[0], k.to);
        }
        uint64_t probe = link_key(&k);
        bool dup = false;
        for (;; probe = probe * 6364136223846793005ULL + 1) {
            int j = rec_map_get(&m, probe);
            if (j < 0) break;
            if (same_link(&L->links[j], &k)) {
                dup = true;
                break;
            }
        }
        if (dup) continue;
        rec_map_put(&m, probe, w);
        L->links[w++] = k;
    }
    L->nlinks = w;
    rec_map_free(&m);
}

/* ---- a communicator's own ------------------------------------------------------------- */

static void ring_copy(struct rec_ring *to, const int *order, int n)
{
    to->order = xmalloc((size_t)n * sizeof *order);
    memcpy(to->order, order, (size_t)n * sizeof *order);
    to->n = n;
}

static void comm_rings(const struct rec_log *L, int c, struct rec_ctopo *t)
{
    bool any = false;
    for (int ch = 0; ch < REC_MAX_CHANNELS; ch++)
        if (L->rings[ch].order && rec_unit_comm(L, L->ring_unit[ch]) == c) {
            ring_copy(&t->rings[ch], L->rings[ch].order, L->rings[ch].n);
            any = true;
        }
    for (int i = 0; i < L->nxrings; i++) {
        const struct rec_xring *x = &L->xrings[i];
        if (t->rings[x->chan].order || rec_unit_comm(L, x->unit) != c) continue;
        ring_copy(&t->rings[x->chan], x->order, x->n);
        any = true;
    }
    if (any || t->nlinks == 0) return;
    /* no ring line (another process printed them, or none): its links' cycles */
    const struct rec_facts *f = &L->comms[c];
    for (int ch = 0; ch < REC_MAX_CHANNELS; ch++) {
        int len = 0;
        int *order =
            rec_links_ring(L->links, t->links, t->nlinks, ch, t->nranks, f->nranks, NULL, &len);
        if (!order) continue;
        t->rings[ch] = (struct rec_ring){.order = order, .n = len};
        t->rings_from_links = true;
    }
}

static void tree_put(struct rec_tree *t, int me, const struct rec_tnode *node)
{
    if (me >= t->cap) {
        int cap = t->cap ? t->cap : 8;
        while (cap <= me)
            cap *= 2;
        t->node = xrealloc(t->node, (size_t)cap * sizeof *t->node);
        memset(t->node + t->cap, 0, (size_t)(cap - t->cap) * sizeof *t->node);
        t->cap = cap;
    }
    if (t->node[me].set) return;
    t->node[me] = *node;
    if (me >= t->n) t->n = me + 1;
}

static void comm_trees(const struct rec_log *L, int c, struct rec_ctopo *t)
{
    for (int ch = 0; ch < REC_MAX_CHANNELS; ch++)
        for (int r = 0; r < L->trees[ch].n; r++) {
            const struct rec_tnode *node = &L->trees[ch].node[r];
            if (node->set && rec_unit_comm(L, node->unit) == c)
                tree_put(&t->trees[ch], r, node);
        }
    for (int i = 0; i < L->nxtrees; i++) {
        const struct rec_xtree *x = &L->xtrees[i];
        if (rec_unit_comm(L, x->unit) == c) tree_put(&t->trees[x->chan], x->me, &x->node);
    }
}

/* Its ranks' hosts and devices: each process's own rank, and the ranks its P2P and SHM links
 * place on its host. */
static void comm_ranks(const struct rec_log *L, int c, struct rec_ctopo *t)
{
    int n = t->nranks > 0 ? t->nranks : 1;
    t->host = xmalloc((size_t)n * sizeof *t->host);
    t->device = xmalloc((size_t)n * sizeof *t->device);
    for (int r = 0; r < n; r++)
        t->host[r] = t->device[r] = -1;
    for (int i = 0; i < L->nunits; i++) {
        const struct rec_unit *u = &L->units[i];
        if (u->group != c || u->tests) continue;
        if (u->rank >= 0 && u->rank < t->nranks) {
            if (u->host >= 0) t->host[u->rank] = u->host;
            if (u->device >= 0) t->device[u->rank] = u->device;
        }
        if (u->host < 0) continue;
        for (int b = u->f.placed_lo; b < u->f.placed_cap; b++)
            for (int k = 0; k < 8; k++) {
                int r = b * 8 + k;
                if ((u->f.placed[b - u->f.placed_lo] >> k & 1) && r < t->nranks &&
                    t->host[r] < 0)
                    t->host[r] = u->host;
            }
    }
}

/* A communicator NCCL says is on one node ("nNodes 1") whose processes name one host: every
 * rank of it is there. */
static void one_node(const struct rec_log *L, int c, struct rec_ctopo *t)
{
    const struct rec_facts *f = &L->comms[c];
    if (f->nnodes != 1 || f->nhosts != 1) return;
    for (int r = 0; r < t->nranks; r++)
        if (t->host[r] < 0) t->host[r] = f->hosts[0];
}

/* Its ranks: as printed, and at least every rank its lines name (a record may contradict
 * itself), so that its view has a slot for each rank its rings, trees and links name. */
static int comm_size(const struct rec_log *L, const struct rec_facts *f)
{
    int top = -1;
    for (int r = f->seen_lo * 8; r < f->seen_cap * 8 && r < L->rank_slots; r++)
        if (rec_facts_has(f, r)) top = r;
    int n = f->nranks > top + 1 ? f->nranks : top + 1;
    return n < L->rank_slots ? n : L->rank_slots; /* what the record holds (room()) */
}

/* Its size, widened to every rank its rings and trees name (a ring line of two ranks in a
 * process whose comm line says one): the view holds a slot for each, within the record's. */
static int named_size(const struct rec_log *L, const struct rec_ctopo *t)
{
    int n = t->nranks;
    for (int ch = 0; ch < t->nchan; ch++) {
        for (int i = 0; i < t->rings[ch].n; i++)
            if (t->rings[ch].order[i] >= n) n = t->rings[ch].order[i] + 1;
        if (t->trees[ch].n > n) n = t->trees[ch].n;
    }
    return n < L->rank_slots ? n : L->rank_slots;
}

void rec_ctopo_build(struct rec_log *L)
{
    links_by_comm(L);
    if (L->ncomms == 0 || L->too_large[0]) return; /* a record refused is never shown */
    L->ctopo = xcalloc((size_t)L->ncomms, sizeof *L->ctopo);
    if (L->ncomms == 1) {
        L->ctopo[0].alias = true;
        return;
    }
    for (int c = 0; c < L->ncomms; c++) {
        struct rec_ctopo *t = &L->ctopo[c];
        t->nranks = comm_size(L, &L->comms[c]);
        t->nchan = REC_MAX_CHANNELS;
        t->rings = xcalloc(REC_MAX_CHANNELS, sizeof *t->rings);
        t->trees = xcalloc(REC_MAX_CHANNELS, sizeof *t->trees);
        for (int i = 0; i < L->nlinks; i++)
            if (L->links[i].comm == c) {
                if (t->nlinks % 64 == 0)
                    t->links = xrealloc(t->links, (size_t)(t->nlinks + 64) * sizeof *t->links);
                t->links[t->nlinks++] = i;
            }
        comm_rings(L, c, t);
        comm_trees(L, c, t);
        t->nranks = named_size(L, t);
        comm_ranks(L, c, t);
        one_node(L, c, t);
    }
}

void rec_ctopo_free(struct rec_log *L)
{
    if (!L->ctopo) return;
    for (int c = 0; c < L->ncomms; c++) {
        struct rec_ctopo *t = &L->ctopo[c];
        for (int ch = 0; ch < t->nchan; ch++) {
            free(t->rings[ch].order);
            free(t->trees[ch].node);
        }
        free(t->rings);
        free(t->trees);
        free(t->links);
        free(t->host);
        free(t->device);
    }
    free(L->ctopo);
    L->ctopo = NULL;
}

/* ---- the record as one communicator --------------------------------------------------- */

static void view_ranks(const struct rec_log *L, int c, const struct rec_ctopo *t,
                       struct rec_view *w)
{
    const struct rec_facts *f = &L->comms[c];
    bool tests = false;
    for (int u = 0; u < L->nunits; u++)
        tests = tests || (L->units[u].tests && L->units[u].group == c);
    int n = t->nranks > 0 ? t->nranks : 0, top = -1;
    w->ranks = xcalloc((size_t)(n ? n : 1), sizeof *w->ranks);
    for (int r = 0; r < n; r++) {
        struct rec_rank *k = &w->ranks[r];
        k->device = t->device[r];
        if (tests && r < L->rank_slots && L->ranks[r].list_host) {
            /* nccl-tests' device lines: the record's, where its processes print */
            *k = L->ranks[r];
            snprintf(k->host, sizeof k->host, "%s",
                     rec_host_name(L, L->ranks[r].list_host - 1));
        } else if (t->host[r] >= 0)
            snprintf(k->host, sizeof k->host, "%s", rec_host_name(L, t->host[r]));
        else if (tests && r < L->rank_slots)
            *k = L->ranks[r]; /* nccl-tests' device lines: the record's */
        k->known = k->known || k->host[0] || k->device >= 0 || rec_facts_has(f, r);
        if (k->known) top = r;
    }
    w->v.ranks = w->ranks;
    w->v.rank_slots = n;
    w->v.maxrank = top;
}

int rec_main_comm(const struct rec_log *L)
{
    int best = -1;
    long best_n = -1;
    for (int c = 0; c < L->ncomms; c++) {
        const struct rec_facts *f = &L->comms[c];
        long n = f->nranks;
        if (n < 0) {
            n = 0;
            for (int r = rec_facts_next(f, 0); r >= 0; r = rec_facts_next(f, r + 1))
                n++;
        }
        if (n > best_n) best = c, best_n = n;
    }
    return best;
}

void rec_view_make(const struct rec_log *L, int comm, struct rec_view *out)
{
    memset(out, 0, sizeof *out);
    out->v = *L;
    if (L->too_large[0]) { /* a record refused is never shown: nothing of any communicator */
        struct rec_log *v = &out->v;
        memset(v->rings, 0, sizeof v->rings);
        memset(v->trees, 0, sizeof v->trees);
        v->links = NULL;
        v->nlinks = v->caplinks = 0;
        v->maxrank = -1;
        return;
    }
    if (comm < 0 || comm >= L->ncomms || !L->ctopo || L->ctopo[comm].alias) return;
    const struct rec_ctopo *t = &L->ctopo[comm];
    const struct rec_facts *f = &L->comms[comm];
    struct rec_log *v = &out->v;
    for (int ch = 0; ch < REC_MAX_CHANNELS; ch++) {
        v->rings[ch] = ch < t->nchan ? t->rings[ch] : (struct rec_ring){0};
        v->trees[ch] = ch < t->nchan ? t->trees[ch] : (struct rec_tree){0};
    }
    out->links = xmalloc((size_t)(t->nlinks ? t->nlinks : 1) * sizeof *out->links);
    for (int i = 0; i < t->nlinks; i++)
        out->links[i] = L->links[t->links[i]];
    v->links = out->links;
    v->nlinks = v->caplinks = t->nlinks;
    view_ranks(L, comm, t, out);
    v->nranks = f->nranks;
    v->nnodes = f->nnodes;
    v->comms = (struct rec_facts *)f; /* read-only: the view is never freed as a record */
    v->ncomms = 1;
    v->comm_view = true;
    v->ctopo = NULL;
}

bool rec_rings_from_links(const struct rec_log *L, int comm)
{
    if (!L->ctopo || comm < 0 || comm >= L->ncomms) return false;
    return L->ctopo[comm].alias ? L->rings_from_links : L->ctopo[comm].rings_from_links;
}

void rec_view_free(struct rec_view *w)
{
    free(w->ranks);
    free(w->links);
    memset(w, 0, sizeof *w);
}
