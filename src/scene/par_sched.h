/* par_sched.h - the ideal pipeline schedule (model) that the parallelism screen draws beside
 * the measured timeline: P stages, M micro-batches, every forward and every backward of a
 * stage taking one unit of time and messages taking none. Each stage runs its operations
 * in the order pp.c runs them (GPipe: all forwards, then all backwards in reverse;
 * 1F1B: warm-up forwards, then one forward one backward), as early as its inputs allow.
 * The idle cells are the bubble: (P-1)/(M+P-1) of the span for both schedules. Pure C,
 * unit-tested in tests/unit/test_par_sched.c. */
#ifndef COLLVIZ_SCENE_PAR_SCHED_H
#define COLLVIZ_SCENE_PAR_SCHED_H

#include <stdbool.h>

#include "core/coll.h"
#include "parallel/train.h"

#define PSCHED_MAX_MICRO 16
#define PSCHED_MAX_TICKS (2 * (PSCHED_MAX_MICRO + CV_MAX_RANKS))

enum psched_kind { PSCHED_IDLE, PSCHED_FWD, PSCHED_BWD };

struct psched_cell {
    enum psched_kind kind;
    int mb; /* micro-batch, -1 when idle */
};

struct psched {
    enum pp_schedule sched;
    int stages, micro;
    int ticks; /* the span: first forward to last backward */
    struct psched_cell cell[CV_MAX_RANKS][PSCHED_MAX_TICKS];
    int idle[CV_MAX_RANKS]; /* idle cells of each stage within the span */
};

/* CV_OK, or CV_EINVAL for P outside 1..CV_MAX_RANKS or M outside 1..PSCHED_MAX_MICRO. */
int psched_build(struct psched *s, enum pp_schedule sched, int stages, int micro);
/* Idle cells over all cells of the span (the model's bubble fraction). */
double psched_bubble(const struct psched *s);
/* The formula's value (P-1)/(M+P-1), for comparison. */
double psched_bubble_formula(int stages, int micro);

#endif
