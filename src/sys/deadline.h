/* deadline.h - the two pieces every communicator's deadline waits share: condition
 * variables on the monotonic clock (so a wall-clock jump cannot stretch a deadline) and
 * the absolute deadline for pthread_cond_timedwait. */
#ifndef COLLVIZ_SYS_DEADLINE_H
#define COLLVIZ_SYS_DEADLINE_H

#include <pthread.h>
#include <time.h>

void deadline_cond_init(pthread_cond_t *cv);
/* CLOCK_MONOTONIC now + s seconds. */
struct timespec deadline_after(double s);

#endif
