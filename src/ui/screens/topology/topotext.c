/* topotext.c - the topology screen's words and layout (see topotext.h). */
#include "ui/screens/topology/topotext.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

const char topo_why_few[] =
    "NCCL orders each ring to leave a node as few times as it can: each crossing is a hop "
    "over the network, the slowest link, and a ring runs at its slowest hop's pace.";

int topo_channels(const struct rec_log *L, int *out, int max)
{
    int n = 0;
    for (int c = 0; c < REC_MAX_CHANNELS && n < max; c++)
        if (L->rings[c].order && L->rings[c].n > 0) out[n++] = c;
    return n;
}

/* The class of channel ch's link from -> to: its first link line. */
static bool topo_link_class(const struct rec_log *L, int ch, int from, int to,
                            enum rec_class *cls)
{
    for (int i = 0; i < L->nlinks; i++) {
        const struct rec_link *k = &L->links[i];
        if (k->channel == ch && k->from == from && k->to == to) {
            *cls = k->cls;
            return true;
        }
    }
    return false;
}

static const char *topo_host(const struct rec_log *L, int r)
{
    if (r < 0 || r >= L->rank_slots || !L->ranks[r].host[0]) return NULL;
    return L->ranks[r].host;
}

int topo_ring_hops(const struct rec_log *L, int ch, struct topo_hop *h, int max)
{
    if (ch < 0 || ch >= REC_MAX_CHANNELS || !L->rings[ch].order) return 0;
    const struct rec_ring *g = &L->rings[ch];
    int n = g->n < max ? g->n : max;
    for (int i = 0; i < n; i++) {
        struct topo_hop *p = &h[i];
        p->from = g->order[i];
        p->to = g->order[(i + 1) % g->n];
        p->cls = REC_UNKNOWN;
        p->have_link = topo_link_class(L, ch, p->from, p->to, &p->cls);
        const char *a = topo_host(L, p->from), *b = topo_host(L, p->to);
        p->cross = !a || !b ? -1 : !rec_same_node(L, p->from, p->to);
    }
    return n;
}

int topo_crossings(const struct topo_hop *h, int n)
{
    int c = 0;
    for (int i = 0; i < n; i++) {
        if (h[i].cross < 0) return -1;
        c += h[i].cross;
    }
    return c;
}

int topo_nranks(const struct rec_log *L)
{
    int n = L->nranks > 0 ? L->nranks : L->maxrank + 1;
    return n < 0 ? 0 : n > REC_MAX_RANKS ? REC_MAX_RANKS : n;
}

/* The group of host (NULL: the unknown group), made when missing. */
static struct topo_group *topo_group_of(struct topo_group *g, int *ng, int max,
                                        const char *host, int *unknown)
{
    if (host) {
        for (int i = 0; i < *ng; i++)
            if (i != *unknown && strcmp(g[i].host, host) == 0) return &g[i];
        if (*ng < max - (*unknown < 0 ? 1 : 0)) { /* keep a place for the unknown group */
            struct topo_group *n = &g[(*ng)++];
            memset(n, 0, sizeof *n);
            snprintf(n->host, sizeof n->host, "%s", host);
            return n;
        }
    }
    if (*unknown < 0) {
        if (*ng >= max) return NULL;
        *unknown = (*ng)++;
        memset(&g[*unknown], 0, sizeof g[*unknown]);
    }
    return &g[*unknown];
}

int topo_groups(const struct rec_log *L, struct topo_group *g, int max)
{
    int n = topo_nranks(L), ng = 0, unknown = -1;
    bool gpu_differs[TOPO_MAX_GROUPS] = {false};
    if (max > TOPO_MAX_GROUPS) max = TOPO_MAX_GROUPS;
    for (int r = 0; r < n; r++) {
        /* a node is its host, or one machine of a host name several share (records.h) */
        char node[96];
        const char *h =
            L->machines_more ? rec_node_name(L, r, node, sizeof node) : topo_host(L, r);
        struct topo_group *p = topo_group_of(g, &ng, max, h && h[0] ? h : NULL, &unknown);
        if (!p) break;
        if (p->n == TOPO_GROUP_RANKS) {
            p->more++;
            continue;
        }
        p->ranks[p->n++] = r;
        const char *gpu = L->ranks[r].gpu;
        int k = (int)(p - g);
        if (gpu[0] && !p->gpu[0] && !gpu_differs[k])
            snprintf(p->gpu, sizeof p->gpu, "%s", gpu);
        else if (gpu[0] && strcmp(p->gpu, gpu) != 0) {
            gpu_differs[k] = true;
            p->gpu[0] = '\0';
        }
    }
    if (unknown >= 0 && unknown != ng - 1) {       /* the unknown ranks last */
        struct topo_group *t = xmalloc(sizeof *t); /* 16 KiB: not on the stack */
        *t = g[unknown];
        memmove(&g[unknown], &g[unknown + 1], (size_t)(ng - 1 - unknown) * sizeof *g);
        g[ng - 1] = *t;
        free(t);
    }
    return ng;
}

void topo_gpu_label(const struct rec_log *L, int rank, char *buf, size_t n)
{
    int dev = rank >= 0 && rank < L->rank_slots ? L->ranks[rank].device : -1;
    if (dev >= 0)
        snprintf(buf, n, "r%d d%d", rank, dev);
    else
        snprintf(buf, n, "r%d", rank);
}

int topo_boxes_per_line(int width, int box_w)
{
    int k = box_w > 0 ? (width + 1) / (box_w + 1) : 1;
    return k < 1 ? 1 : k;
}

int topo_hop_text(const struct topo_hop *h, char *buf, size_t n)
{
    return snprintf(buf, n, "-%s-> %d", h->have_link ? rec_class_name(h->cls) : "?", h->to);
}

int topo_tree_lines(const struct rec_log *L, int ch, int from, char (*lines)[80], int max)
{
    if (ch < 0 || ch >= REC_MAX_CHANNELS) return 0;
    const struct rec_tree *t = &L->trees[ch];
    int k = 0;
    for (int r = from > 0 ? from : 0; r < t->n && k < max; r++) {
        const struct rec_tnode *d = &t->node[r];
        if (!d->set) continue;
        int l;
        if (d->up < 0)
            l = snprintf(lines[k], 80, "r%d: root, down", r);
        else
            l = snprintf(lines[k], 80, "r%d: up %d, down", r, d->up);
        for (int i = 0; i < d->ndown && l < 70; i++)
            l += snprintf(lines[k] + l, (size_t)(80 - l), " %d", d->down[i]);
        if (d->ndown == 0) snprintf(lines[k] + l, (size_t)(80 - l), " none (a leaf)");
        k++;
    }
    return k;
}

int topo_tree_partner(const struct rec_log *L, int ch)
{
    int with[REC_MAX_CHANNELS], n = 0, at = -1;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        if (L->trees[c].n > 0) {
            if (c == ch) at = n;
            with[n++] = c;
        }
    if (at < 0 || n < 2) return -1;
    return with[(at + n / 2) % n];
}

/* Does channel ch's tree give some rank two children or more? */
static bool tree_branches(const struct rec_log *L, int ch)
{
    const struct rec_tree *t = &L->trees[ch];
    for (int r = 0; r < t->n; r++)
        if (t->node[r].set && t->node[r].ndown > 1) return true;
    return false;
}

/* How many ranks of both trees a and b have another parent in b than in a. */
static int tree_moved(const struct rec_log *L, int a, int b)
{
    const struct rec_tree *x = &L->trees[a], *y = &L->trees[b];
    int n = 0;
    for (int r = 0; r < x->n && r < y->n; r++)
        n += x->node[r].set && y->node[r].set && x->node[r].up != y->node[r].up;
    return n;
}

const char *topo_tree_caption(const struct rec_log *L, int ch, int other, char *buf, size_t n)
{
    bool br = tree_branches(L, ch) || (other >= 0 && tree_branches(L, other));
    int moved = other >= 0 ? tree_moved(L, ch, other) : 0;
    if (!br)
        snprintf(buf, n,
                 "%s: no rank has two children (within a node NCCL's tree is a chain; a "
                 "reduction walks up it, a broadcast down).",
                 other >= 0 ? "Both trees are chains" : "The tree is a chain");
    else if (moved > 0)
        snprintf(buf, n,
                 "NCCL's double binary tree: channel %d runs the other tree of the pair, "
                 "where %d rank%s ha%s another parent than in channel %d.",
                 other, moved, moved == 1 ? "" : "s", moved == 1 ? "s" : "ve", ch);
    else if (other >= 0)
        snprintf(buf, n,
                 "Channels %d and %d carry the same tree: each rank's parent (up) and "
                 "children (down).",
                 ch, other);
    else
        snprintf(buf, n, "Channel %d's tree: each rank's parent (up) and children (down).", ch);
    return buf;
}

int topo_plot_col(double size, double lo, double hi, int w)
{
    if (w <= 1 || !(lo > 0) || !(hi > lo)) return 0;
    double f = (log2(size > lo ? size : lo) - log2(lo)) / (log2(hi) - log2(lo));
    int c = (int)lround(f * (w - 1));
    return c < 0 ? 0 : c > w - 1 ? w - 1 : c;
}

int topo_plot_row(double v, double max, int h)
{
    if (h <= 1 || !(v > 0) || !(max > 0)) return 0;
    int r = (int)lround(v / max * (h - 1));
    return r < 0 ? 0 : r > h - 1 ? h - 1 : r;
}

double topo_plot_size_at(int col, double lo, double hi, int w)
{
    if (w <= 1 || !(lo > 0) || !(hi > lo)) return lo;
    return exp2(log2(lo) + (log2(hi) - log2(lo)) * col / (w - 1));
}
