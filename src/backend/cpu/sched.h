/* sched.h - a refined plan (core/plan.h, plan_refine) laid out for the CPU ranks: what
 * each rank runs, in which order, and what it waits for first. Built once per plan
 * (cpu_comm.c: prepare() for a measurement, the plan cache for training's collectives)
 * and read by every rank thread of the communicator's executor.
 *
 * Progress counters. Each rank publishes one counter per collective lane (cpu_comm.c).
 * In one collective it goes up by 1 when the rank arrives (its input is in its buffer and
 * its buffer pointer is published) and by 1 for every transfer it has finished, so it
 * advances 1 + nown[r] per collective. A need {rank e, n} means: e's counter has gone up
 * by at least n in this collective. A group that reads or writes another rank's buffer
 * needs that rank's arrival (n >= 1); one that depends on a transfer of another rank
 * needs it finished (n = its seq + 2). */
#ifndef COLLVIZ_BACKEND_CPU_SCHED_H
#define COLLVIZ_BACKEND_CPU_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "core/plan.h"

struct cpu_need {
    int rank;
    uint32_t need;
};

/* One group: transfers idx[first .. first+n) (a slice's reductions into one range are
 * fused into one group, as exec_xfers fuses them), run after needs[need_first .. +nneed). */
struct cpu_item {
    size_t first, n, need_first, nneed;
};

struct cpu_sched {
    const struct plan *p; /* refined: order and dependencies filled */
    size_t *idx;
    struct cpu_item *items; /* rank r's: items[item_first[r] .. item_first[r+1]) */
    size_t item_first[CV_MAX_RANKS + 1];
    struct cpu_need *needs;
    uint32_t nown[CV_MAX_RANKS]; /* transfers rank r runs per collective */
    /* Elements rank r's data sends to other ranks, and receives from them, per collective
     * (the communicator's byte counters). */
    size_t sent[CV_MAX_RANKS], recv[CV_MAX_RANKS];
};

/* Lay out p (refined: p->order set); p must outlive the schedule. */
void cpu_sched_build(struct cpu_sched *sc, const struct plan *p);
void cpu_sched_free(struct cpu_sched *sc);

#endif
