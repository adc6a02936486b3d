/* barrier.c - the CPU backend's waits: the barrier its communicator's ranks pass once per
 * collective (and at its barrier op), and the futex wait and wake that they also use to wait
 * for each other's slices (cpu_comm.c).
 *
 * Why not pthread_barrier_t: it has no deadline, and a rank that never arrives would hang
 * the run. Why not pure spinning: the backend runs W rank threads on however many cores
 * the machine has (4 threads on 2 cores is the common case here); a spinning waiter holds
 * a core that a rank still working needs, until the scheduler's time slice ends (ms).
 * So waiters spin for a short while (cheap when every rank has its own core and they
 * arrive close together), then sleep on a futex on the generation counter, with the
 * deadline as the futex's absolute CLOCK_MONOTONIC timeout (the clock now_s() reads).
 *
 * Ordering: waiters announce themselves in `sleepers` before sleeping and the releaser
 * bumps `gen` before reading `sleepers`, both sequentially consistent, so either the
 * releaser sees the sleeper and wakes it or the sleeper sees the new generation and does
 * not sleep. Linux only (futex). */
#include "backend/cpu/cpu_backend.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void cpu_futex_wait(_Atomic uint32_t *word, uint32_t expected, double deadline)
{
    struct timespec ts, *tsp = NULL;
    if (isfinite(deadline)) {
        ts.tv_sec = (time_t)deadline;
        ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        tsp = &ts;
    }
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time; EAGAIN, EINTR and
     * ETIMEDOUT all send the caller back to re-check the generation and the clock. */
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, expected, tsp,
            NULL, FUTEX_BITSET_MATCH_ANY);
}

void cpu_futex_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, NULL, NULL,
            0);
}

void cpu_barrier_init(struct cpu_barrier *b, int parties, int spin_max)
{
    atomic_store(&b->gen, 0);
    atomic_store(&b->arrived, 0);
    atomic_store(&b->sleepers, 0);
    atomic_store(&b->aborted, 0);
    atomic_store(&b->stop, 0);
    b->parties = parties;
    b->spin_max = spin_max > 0 ? spin_max : 0;
}

void cpu_barrier_reset(struct cpu_barrier *b)
{
    atomic_store(&b->arrived, 0);
    atomic_store(&b->aborted, 0);
    atomic_store(&b->stop, 0);
}

/* The first reason wins: a cancel that lands after a deadline abort (or the other way
 * round) does not change what the ranks already returned. */
static void cpu_barrier_abort_with(struct cpu_barrier *b, int status)
{
    int none = CV_OK;
    atomic_compare_exchange_strong(&b->aborted, &none, status);
    atomic_fetch_add(&b->gen, 1);
    cpu_futex_wake_all(&b->gen);
}

void cpu_barrier_abort(struct cpu_barrier *b)
{
    cpu_barrier_abort_with(b, CV_ETIMEOUT);
}

void cpu_barrier_cancel(struct cpu_barrier *b)
{
    cpu_barrier_abort_with(b, CV_ECANCELLED);
}

int cpu_barrier_aborted(struct cpu_barrier *b)
{
    return atomic_load(&b->aborted);
}

int cpu_barrier_wait(struct cpu_barrier *b, double deadline, volatile int *cancel, int *spin)
{
    int why = atomic_load(&b->aborted);
    if (why != CV_OK) return why;
    uint32_t g = atomic_load(&b->gen);
    if (atomic_fetch_add(&b->arrived, 1) + 1 == b->parties) {
        /* Last to arrive: decide for everyone, then release. */
        atomic_store(&b->stop, cancel && *cancel ? 1 : 0);
        atomic_store(&b->arrived, 0);
        atomic_fetch_add(&b->gen, 1);
        if (atomic_load(&b->sleepers) > 0) cpu_futex_wake_all(&b->gen);
    } else {
        int budget = spin ? *spin : 0, spun = 0;
        while (spun < budget && atomic_load(&b->gen) == g) {
            cpu_pause();
            spun++;
        }
        bool slept = false;
        while (atomic_load(&b->gen) == g) {
            if (now_s() >= deadline) {
                cpu_barrier_abort(b);
                return atomic_load(&b->aborted);
            }
            slept = true;
            atomic_fetch_add(&b->sleepers, 1);
            cpu_futex_wait(&b->gen, g, deadline);
            atomic_fetch_sub(&b->sleepers, 1);
        }
        if (spin) {
            /* Caught spinning: allow twice what it took (at least 64). Slept: halve. */
            int next = slept ? budget / 2 : (2 * spun > 64 ? 2 * spun : 64);
            if (!slept && next < budget)
                next = budget; /* an early release is no reason to spin less */
            *spin = next < b->spin_max ? next : b->spin_max;
        }
    }
    if ((why = atomic_load(&b->aborted)) != CV_OK) return why;
    return atomic_load(&b->stop) ? CV_ECANCELLED : CV_OK;
}
