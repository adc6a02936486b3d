/* cpu_backend.h - private to the CPU backend (and its unit tests): the backend's ops table, the
 * default slice, and the futex waits and the barrier its communicator's ranks synchronise
 * on (barrier.c).
 *
 * The barrier is its own unit so a test can show that its deadline fires when a rank
 * never arrives, without needing a rank thread that hangs. */
#ifndef COLLVIZ_BACKEND_CPU_CPU_BACKEND_H
#define COLLVIZ_BACKEND_CPU_CPU_BACKEND_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

extern const struct backend_ops cpu_backend_ops;

/* The slice a measurement refines the plan into by default (comm_ops.slice_bytes), and
 * training's collectives too: small enough that a slice's reductions (W sources) and its
 * copies run in L2, large enough that waiting for and publishing it costs little next to
 * moving it. Measured on the 2-core Xeon VM (2 MiB L2 per core, machine shared with other
 * jobs), owner all-reduce 64 MiB on 4 ranks, busbw GB/s over three rounds: 1 MiB slices
 * 1.6-4.6, 256 KiB 2.0-7.0, 64 KiB 2.7-7.3, 16 KiB 2.3-2.9: the noise of the neighbours'
 * load is larger than the differences between 64 and 256 KiB. Only while every rank has a
 * core of its own: with more ranks than cores a communicator runs whole chunks (cpu_comm.c). */
#ifndef CPU_SLICE_BYTES
#define CPU_SLICE_BYTES ((size_t)64 << 10)
#endif

/* The cores this process may run on (taskset/cgroup cpusets count, offline ones not). */
int cpu_count_cores(void);

/* Sleep while *word == expected, until woken, a spurious wake-up, or the absolute
 * CLOCK_MONOTONIC deadline (now_s() time; INFINITY for none): callers re-check. */
void cpu_futex_wait(_Atomic uint32_t *word, uint32_t expected, double deadline);
void cpu_futex_wake_all(_Atomic uint32_t *word);
/* One spin-wait pause instruction (where the ISA has one). */
void cpu_pause(void);

/* A reusable barrier for `parties` threads. Waiters spin briefly, then sleep on a futex
 * until released or until their deadline; a waiter whose deadline passes aborts the
 * barrier, which wakes everyone, and every later wait returns CV_ETIMEOUT at once until
 * cpu_barrier_reset().
 *
 * Spinning is adaptive, per waiting thread: *spin (the caller's own budget, in pause
 * instructions, kept between calls) grows when a spin ends in a release and halves when
 * the waiter had to sleep anyway, always within [0, spin_max]. On a quiet machine with a
 * core per rank the budget settles where releases are caught spinning; on a loaded or
 * oversubscribed one it decays to nothing and waiters go straight to the futex. */
struct cpu_barrier {
    _Atomic uint32_t gen; /* futex word: bumped on every release and on abort */
    _Atomic int arrived;
    _Atomic int sleepers; /* threads inside futex_wait; the releaser wakes only if > 0 */
    _Atomic int aborted;  /* CV_OK, or why: CV_ETIMEOUT (deadline) or CV_ECANCELLED */
    _Atomic int stop;     /* the releaser's reading of `cancel`, shared by all */
    int parties;
    int spin_max;
};

void cpu_barrier_init(struct cpu_barrier *b, int parties, int spin_max);
/* Called only when no thread is inside cpu_barrier_wait. */
void cpu_barrier_reset(struct cpu_barrier *b);
/* Wait for all parties. deadline: absolute now_s() time (INFINITY for none). cancel (may
 * be NULL) is read once by the last arriver and the decision is shared, so every party
 * agrees. spin: this thread's spin budget (see above; NULL = do not spin). Returns CV_OK,
 * CV_ECANCELLED (all parties see it), or CV_ETIMEOUT. */
int cpu_barrier_wait(struct cpu_barrier *b, double deadline, volatile int *cancel, int *spin);
/* Mark aborted and wake every waiter (used by the coordinator's own deadline); every wait
 * then returns CV_ETIMEOUT until cpu_barrier_reset(). */
void cpu_barrier_abort(struct cpu_barrier *b);
/* The same, for a cancel the coordinator saw: every wait returns CV_ECANCELLED. The first
 * of the two to land decides what the waits return. */
void cpu_barrier_cancel(struct cpu_barrier *b);
/* CV_OK, or what every wait returns now (CV_ETIMEOUT / CV_ECANCELLED): lets a rank skip a
 * step whose run is already over. */
int cpu_barrier_aborted(struct cpu_barrier *b);

#endif
