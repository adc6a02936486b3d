/* wait.h - the two pieces every communicator's deadline waits share: condition
 * variables on the monotonic clock (so a wall-clock jump cannot stretch a deadline) and
 * the absolute deadline for pthread_cond_timedwait. */
#ifndef COLLVIZ_PARALLEL_WAIT_H
#define COLLVIZ_PARALLEL_WAIT_H

#include <pthread.h>
#include <time.h>

void wait_cond_init_monotonic(pthread_cond_t *cv);
/* CLOCK_MONOTONIC now + s seconds. */
struct timespec wait_deadline_after(double s);

#endif
