/* slice_timeline.h - the slice view as data: for a refined plan (plan_refine), one row per link
 * that carries anything (sender -> receiver, channel), one column per tick, and in each
 * cell the piece on that link at that tick, or nothing. The ticks are the plan's model
 * (each link carries one slice per tick, a slice leaves one tick after what it needs), so
 * the picture shows a pipeline filling (links idle at the left), running, and draining.
 * Pure: the UI draws it, `collviz trace --slices` prints it, tests check it. */
#ifndef COLLVIZ_CORE_SLICE_TIMELINE_H
#define COLLVIZ_CORE_SLICE_TIMELINE_H

#include <stddef.h>

#include "core/plan.h"

struct slice_cell {
    long x; /* transfer index in the plan, or -1: the link is idle at this tick */
};

struct slice_link {
    int src, dst, channel; /* src == dst: a local step (the average's division) */
};

struct slice_tl {
    int nlinks, nticks;
    struct slice_link *links; /* nlinks, by (src, dst, channel) */
    struct slice_cell *cells; /* [nlinks][nticks] */
    int *busy;                /* per tick: links carrying a slice */
    int fill, drain;          /* ticks at the start / end with fewer links busy than the
                                 busiest tick: the pipeline's fill and drain */
};

/* Build from a refined plan (p->order set); CV_EINVAL if it is not refined. */
int slice_tl_build(struct slice_tl *t, const struct plan *p, char *err, size_t errlen);
void slice_tl_free(struct slice_tl *t);

/* The cell text of transfer x, at most 7 characters: "c.k" (chunk c, slice k) or "k"
 * for a transfer that has no chunk (a tree's whole buffer), "/k" for a division. */
void slice_tl_label(const struct plan *p, long x, char *buf, size_t n);

#endif
