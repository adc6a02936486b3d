/* topostrip.h - a large record on the topology screen, pure (no curses): its nodes as a
 * strip, one cell a node with how many of the channel's ring hops leave it, and the ring's
 * passes through the one node opened. What the screen draws of it is bounded by the
 * terminal, not by the ranks: the strip shows a window of cells around the open node, the
 * open node its ranks, the passes their hops. Unit-tested (tests/unit/test_topostrip.c). */
#ifndef COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOSTRIP_H
#define COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOSTRIP_H

#include <stdbool.h>

#include "records/records.h"
#include "ui/screens/topology/topotext.h"

/* Past this many nodes (or TOPO_STRIP_RANKS ranks) the screen draws the strip, not a frame
 * or a line a host. */
#define TOPO_STRIP_NODES 8
#define TOPO_STRIP_RANKS 256

struct topo_strip {
    int nnodes;        /* hosts, in the order of their first rank */
    int *first, *size; /* per node: its first rank, its ranks */
    int *host;         /* per node: its host id (reccomm.h) */
    int *node_of;      /* per rank (0..nranks-1): its node, -1 host unknown */
    int nranks;
    int unplaced; /* ranks whose host is unknown */
    /* channel chan's ring: per node, its hops that leave it (-1: a host unknown) */
    int chan;
    int *leaves;
    int crossings;      /* all of them, -1 unknown */
    int ring_n;         /* the ring's ranks, 0 none */
    struct rec_map cls; /* channel chan's links: from << 32 | to -> class + 1 */
};

/* Does L want the strip (more than TOPO_STRIP_NODES hosts or TOPO_STRIP_RANKS ranks)? */
bool topo_strip_wanted(const struct rec_log *L);
/* The nodes of L (rank order); channel -1. */
void topo_strip_make(const struct rec_log *L, struct topo_strip *s);
/* Channel ch's ring and links into s (leaves, crossings, classes); O(ranks + links). */
void topo_strip_channel(const struct rec_log *L, struct topo_strip *s, int ch);
void topo_strip_free(struct topo_strip *s);

/* A strip cell's character: '1'..'9' hops leaving the node, '+' more, '.' none, '?' unknown. */
char topo_strip_cell(const struct topo_strip *s, int node);
/* The first node of a window of w cells that holds node `open` (centred where it can). */
int topo_strip_window(const struct topo_strip *s, int open, int w);

/* Channel ch's ring through node k: each pass is the hop in, the hops inside, the hop out,
 * into h[max] in ring order (a pass starts where h[i].cross is 1 and h[i].to is in k);
 * returns the hops, and *passes how many passes (all, also those past max). */
int topo_strip_passes(const struct rec_log *L, const struct topo_strip *s, int node,
                      struct topo_hop *h, int max, int *passes);

#endif
