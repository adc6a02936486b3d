/* par_moe.h - the parallelism screen's mixture-of-experts data, without curses (the screen,
 * ui/screens/parallel/parmoe.c, and the handouts' paper pictures draw from it): a real
 * display-scale `train moe` run on CPU ranks and its single-device check, boiled down to
 * what the screen shows: tokens per expert per rank, the all-to-all-v's blocks, the drops
 * and the dispatch/combine bytes, times and busbw measured, per layer. */
#ifndef COLLVIZ_SCENE_PAR_MOE_H
#define COLLVIZ_SCENE_PAR_MOE_H

#include <stdbool.h>
#include <stddef.h>

#define PAR_MOE_LAYERS 2
#define PAR_MOE_MAX_W 4
#define PAR_MOE_MAX_E (2 * PAR_MOE_MAX_W)

struct par_moe {
    bool ok;
    char err[200];
    int W, E, K, D, B, capacity; /* capacity: tokens per expert of a rank's rows, 0 none */
    double capacity_factor;
    size_t routed[PAR_MOE_LAYERS][PAR_MOE_MAX_W][PAR_MOE_MAX_E]; /* rank's tokens to expert */
    size_t kept[PAR_MOE_LAYERS][PAR_MOE_MAX_W][PAR_MOE_MAX_E];
    size_t dropped; /* the step's, all layers */
    size_t dispatch_bytes[PAR_MOE_MAX_W], combine_bytes[PAR_MOE_MAX_W]; /* all layers */
    double dispatch_s[PAR_MOE_MAX_W], combine_s[PAR_MOE_MAX_W];
    double dispatch_busbw, combine_busbw; /* bytes/s, measured */
    bool timed; /* the times are shown: measuring is on (not --no-measure), or m asked */
    bool same;  /* equals one device: parameters and routing */
    double param_abs;
    size_t routing_diff;
};

/* Train one step at display scale on W CPU ranks (2..4; E = 2W experts, top-2, capacity
 * 1.0, L = 2, D = 16, B = 8W) and its reference; milliseconds, so on the UI thread. */
void par_moe_build(struct par_moe *m, int W);

/* The tokens rank `from` sends to rank `to` in layer `layer`'s dispatch: the tokens it
 * keeps for the experts `to` holds (E/W experts a rank, expert e on rank e/(E/W)); the
 * diagonal stays home. */
size_t par_moe_block(const struct par_moe *m, int layer, int from, int to);

#endif
