/* topostrip.c - a large record's nodes as a strip (see topostrip.h). */
#include "ui/screens/topology/topostrip.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int rank_host(const struct rec_log *L, int r)
{
    if (r < 0 || r >= L->rank_slots || !L->ranks[r].host[0]) return -1;
    return rec_host_id((struct rec_log *)L, L->ranks[r].host, false); /* false: reads only */
}

bool topo_strip_wanted(const struct rec_log *L)
{
    int n = topo_nranks(L);
    if (n > TOPO_STRIP_RANKS) return true;
    unsigned char *seen = xcalloc((size_t)L->nhostnames + 1, 1);
    int hosts = 0;
    for (int r = 0; r < n && hosts <= TOPO_STRIP_NODES; r++) {
        int h = rank_host(L, r);
        if (h >= 0 && !seen[h]) seen[h] = 1, hosts++;
    }
    free(seen);
    return hosts > TOPO_STRIP_NODES;
}

void topo_strip_make(const struct rec_log *L, struct topo_strip *s)
{
    memset(s, 0, sizeof *s);
    s->chan = -1;
    s->crossings = -1;
    s->nranks = topo_nranks(L);
    int n = s->nranks > 0 ? s->nranks : 1;
    s->node_of = xmalloc((size_t)n * sizeof *s->node_of);
    int *node_of_host = xmalloc(((size_t)L->nhostnames + 1) * sizeof *node_of_host);
    for (int i = 0; i <= L->nhostnames; i++)
        node_of_host[i] = -1;
    int cap = 0;
    for (int r = 0; r < s->nranks; r++) {
        int h = rank_host(L, r);
        s->node_of[r] = -1;
        if (h < 0) {
            s->unplaced++;
            continue;
        }
        if (node_of_host[h] < 0) {
            if (s->nnodes == cap) {
                cap = cap ? 2 * cap : 64;
                s->first = xrealloc(s->first, (size_t)cap * sizeof *s->first);
                s->size = xrealloc(s->size, (size_t)cap * sizeof *s->size);
                s->host = xrealloc(s->host, (size_t)cap * sizeof *s->host);
            }
            s->first[s->nnodes] = r;
            s->size[s->nnodes] = 0;
            s->host[s->nnodes] = h;
            node_of_host[h] = s->nnodes++;
        }
        s->node_of[r] = node_of_host[h];
        s->size[node_of_host[h]]++;
    }
    free(node_of_host);
    s->leaves = xcalloc((size_t)(s->nnodes ? s->nnodes : 1), sizeof *s->leaves);
}

static int node_at(const struct topo_strip *s, int r)
{
    return r >= 0 && r < s->nranks ? s->node_of[r] : -1;
}

void topo_strip_channel(const struct rec_log *L, struct topo_strip *s, int ch)
{
    s->chan = ch;
    s->crossings = 0;
    s->ring_n = 0;
    memset(s->leaves, 0, (size_t)(s->nnodes ? s->nnodes : 1) * sizeof *s->leaves);
    rec_map_free(&s->cls);
    const struct rec_ring *g = ch >= 0 && ch < REC_MAX_CHANNELS ? &L->rings[ch] : NULL;
    if (!g || !g->order) {
        s->crossings = -1;
        return;
    }
    s->ring_n = g->n;
    for (int i = 0; i < g->n; i++) {
        int a = node_at(s, g->order[i]), b = node_at(s, g->order[(i + 1) % g->n]);
        if (a < 0 || b < 0) {
            s->crossings = -1;
            if (a >= 0) s->leaves[a] = -1;
            continue;
        }
        if (a != b) {
            if (s->leaves[a] >= 0) s->leaves[a]++;
            if (s->crossings >= 0) s->crossings++;
        }
    }
    for (int i = 0; i < L->nlinks; i++) {
        const struct rec_link *k = &L->links[i];
        uint64_t key = (uint64_t)(uint32_t)k->from << 32 | (uint32_t)k->to;
        if (k->channel == ch && rec_map_get(&s->cls, key) < 0)
            rec_map_put(&s->cls, key, (int)k->cls + 1);
    }
}

void topo_strip_free(struct topo_strip *s)
{
    free(s->first);
    free(s->size);
    free(s->host);
    free(s->node_of);
    free(s->leaves);
    rec_map_free(&s->cls);
    memset(s, 0, sizeof *s);
    s->chan = -1;
}

char topo_strip_cell(const struct topo_strip *s, int node)
{
    if (node < 0 || node >= s->nnodes || s->chan < 0) return ' ';
    int v = s->leaves[node];
    return v < 0 ? '?' : v == 0 ? '.' : v > 9 ? '+' : (char)('0' + v);
}

int topo_strip_window(const struct topo_strip *s, int open, int w)
{
    if (w <= 0 || s->nnodes <= w) return 0;
    int first = open - w / 2;
    if (first < 0) first = 0;
    if (first > s->nnodes - w) first = s->nnodes - w;
    return first;
}

static void hop_of(const struct topo_strip *s, int from, int to, struct topo_hop *h)
{
    h->from = from;
    h->to = to;
    int c = rec_map_get(&s->cls, (uint64_t)(uint32_t)from << 32 | (uint32_t)to);
    h->have_link = c > 0;
    h->cls = c > 0 ? (enum rec_class)(c - 1) : REC_UNKNOWN;
    int a = node_at(s, from), b = node_at(s, to);
    h->cross = a < 0 || b < 0 ? -1 : a != b;
}

int topo_strip_passes(const struct rec_log *L, const struct topo_strip *s, int node,
                      struct topo_hop *h, int max, int *passes)
{
    *passes = 0;
    const struct rec_ring *g = s->chan >= 0 ? &L->rings[s->chan] : NULL;
    if (!g || !g->order || g->n < 2) return 0;
    int n = 0, start = 0;
    /* start outside the node, so a pass is never split at the ring's end */
    while (start < g->n && node_at(s, g->order[start]) == node)
        start++;
    if (start == g->n) start = 0;
    for (int k = 0; k < g->n; k++) {
        int i = (start + k) % g->n, r = g->order[i], next = g->order[(i + 1) % g->n];
        bool in = node_at(s, r) == node, next_in = node_at(s, next) == node;
        if (!in && next_in) ++*passes;
        if ((in || next_in) && n < max) hop_of(s, r, next, &h[n++]);
    }
    return n;
}
