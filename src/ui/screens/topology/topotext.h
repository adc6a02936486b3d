/* topotext.h - the topology screen's words and layout, pure (no curses): which channels a
 * record has rings for, a channel's ring as hops with their link class and node
 * crossings, the record's ranks grouped by host, a channel's tree and its other half,
 * and how many GPU boxes fit a line. Unit-tested (tests/unit/test_topotext.c); topology.c
 * draws what these return. */
#ifndef COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOTEXT_H
#define COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "records/records.h"

/* The most ranks drawn as GPU boxes and stepped on the collectives screen (its limit). */
#define TOPO_MAX_DRAWN 16
#define TOPO_MAX_GROUPS 64

/* Why NCCL keeps the crossings few: one sentence, the screen's and the docs'. */
extern const char topo_why_few[];

/* The channels that have a ring, in order, into out[max]; returns how many. */
int topo_channels(const struct rec_log *L, int *out, int max);

struct topo_hop {
    int from, to;
    enum rec_class cls; /* from the channel's link line from -> to; REC_UNKNOWN without one */
    bool have_link;     /* a link line names this hop */
    int cross;          /* 1: the hop leaves a node, 0: stays, -1: a host is unknown */
};
/* Channel ch's ring as hops, order[i] -> order[i+1], the last back to the first, into
 * h[max]; returns how many (0: no ring). */
int topo_ring_hops(const struct rec_log *L, int ch, struct topo_hop *h, int max);
/* The crossings of hops h[0..n): their count, or -1 when a hop's hosts are unknown. */
int topo_crossings(const struct topo_hop *h, int n);

/* A host and its ranks (in rank order); host "" = ranks whose host the record does not
 * name. gpu: the GPU name when every rank of it that names one names the same. */
#define TOPO_GROUP_RANKS 4096 /* ranks a group lists; the rest are counted in more */
struct topo_group {
    char host[64];
    char gpu[64];
    int ranks[TOPO_GROUP_RANKS];
    int n;    /* ranks[0..n) */
    int more; /* ranks of this group past ranks[] (not listed) */
};
/* The ranks 0..nranks-1 (nranks: the record's, or its highest rank + 1) by host, hosts in
 * the order their first rank comes, the unknown ones last; returns the groups, at most max
 * (ranks of hosts past max go to the unknown group). */
int topo_groups(const struct rec_log *L, struct topo_group *g, int max);
/* The record's world size: nranks, else the highest rank named + 1, else 0. */
int topo_nranks(const struct rec_log *L);

/* A GPU box's label, "r5 d0" (device unknown: "r5"), into buf[n]. */
void topo_gpu_label(const struct rec_log *L, int rank, char *buf, size_t n);
/* How many GPU boxes of width box_w (with one column between) fit in width columns;
 * at least 1. */
int topo_boxes_per_line(int width, int box_w);

/* One hop as text, "-nvlink-> 4": "-CLASS->" and the hop's destination; the class "?"
 * when no link line names the hop. Into buf[n]; returns its length. */
int topo_hop_text(const struct topo_hop *h, char *buf, size_t n);

/* Channel ch's tree: the rank line "r3: up 2, down 0 7" (root: "r3: root, down 0 7") of
 * each rank the record gives a tree for, from rank `from` on, into lines[max][80]; returns
 * how many. */
int topo_tree_lines(const struct rec_log *L, int ch, int from, char (*lines)[80], int max);
/* The channels with a tree, and the other half of channel ch's double binary tree:
 * NCCL doubles its channels and gives the second half the mirrored tree, so channel ch's
 * partner is (ch + n/2) mod n over the n channels with a tree; -1 when ch has no tree or
 * n < 2. */
int topo_tree_partner(const struct rec_log *L, int ch);
/* What the trees drawn for channel ch (and its other half, other; -1 none) are, in a
 * sentence into buf[n]: chains (no rank with two children: within a node NCCL's tree is
 * a chain), the two trees of NCCL's double binary tree (ranks with another parent in the
 * other half, counted), two halves alike, or a tree by its parents and children. */
const char *topo_tree_caption(const struct rec_log *L, int ch, int other, char *buf, size_t n);

/* The nccl-tests plot's axes: the column (0..w-1) of size S on a log2 axis from lo to hi
 * (lo < hi; a size outside is clamped), and the row from the bottom (0..h-1) of a busbw v
 * on a linear axis from 0 to max (v <= 0 or max <= 0: 0). */
int topo_plot_col(double size, double lo, double hi, int w);
int topo_plot_row(double v, double max, int h);
/* The size at column col of that axis (the model's curve is drawn at each column). */
double topo_plot_size_at(int col, double lo, double hi, int w);

#endif
