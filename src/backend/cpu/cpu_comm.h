/* cpu_comm.h - the communicator for CPU ranks: W threads of this process over shared
 * memory, and the CPU backend's one runtime. Training's collectives and run() (the
 * measurement's and the display-scale run's, backend/run.c) execute refined core plans
 * through one executor: each rank runs its transfers in the plan's order and waits only
 * for the ranks it depends on (per-rank progress counters, futex waits; one barrier per
 * collective), so what runs is what the visualizer animates; send/recv go through one
 * mailbox per ordered pair of ranks. */
#ifndef COLLVIZ_BACKEND_CPU_CPU_COMM_H
#define COLLVIZ_BACKEND_CPU_CPU_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "backend/comm.h"

/* nranks in 1..CV_MAX_RANKS; algo: the plans' algorithm (ALGO_RING for the lecture).
 * async: start one communication helper thread per rank (needed for iall_reduce).
 * tl may be NULL. Free with c->ops->destroy(c). */
int comm_cpu_create(struct comm **out, int nranks, enum algo algo, bool async, double timeout_s,
                    struct timeline *tl, char *err, size_t errlen);

#endif
