/* topology.h - the topology screen (screens.h entry `screen_topology`, `collviz --nccl-log
 * FILE...`, key t, scene "screen=topology"): a real cluster's NCCL record (records/) as
 * nodes holding GPU boxes, each channel's ring in NCCL's order with every hop's link class
 * and the ring's node crossings, the channel's double binary tree (both halves) on d, and
 * Enter: a ring all-reduce in that order, stepped on the collectives screen; T: the record's
 * nccl-tests rows, busbw vs size with the α-β fit (topotests.h). The step is
 * the channel (the k-th channel that has a ring). The words and layout are topotext.h's.
 * A record with several communicators is shown one at a time (records/recview.h; u: the
 * next), never two in one picture; a large one's nodes are a strip with one node opened
 * (topostrip.h; ( and ) move along it). */
#ifndef COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOLOGY_H
#define COLLVIZ_UI_SCREENS_TOPOLOGY_TOPOLOGY_H

#include <stdbool.h>

#include "ui/screens/screens.h"

struct app;

struct rec_log;

extern const struct screen_ops screen_topology;

/* The record the screen shows (--nccl-log, or the NCCL backend's log read with t), kept in
 * its state; NULL none. Other screens ask for it through screen_ops.record. */
const struct rec_log *topo_record(const struct app *a);
/* Give the screen a record read before the terminal was taken (--nccl-log), with what it
 * is (the files' names, shown in its title); the screen owns L from here and frees it. */
void topo_adopt_record(struct app *a, struct rec_log *L, const char *source);

/* The screen's state, in a->screen_state[SCREEN_TOPOLOGY]. */
struct topo_screen {
    bool tree;      /* d: the channel's trees instead of its ring */
    int test;       /* T: 0 the ring or tree, k > 0 the record's k-th nccl-tests test */
    long last_step; /* the channel shown when the screen was left (t comes back to it) */
};

#endif
