/* sweep.h - the sizes a sweep visits, defined once for `collviz bench` (-b/-e/-f/-i), the
 * worker's sweep job and the screen's count of the points it will plot: min, then each
 * size times factor (rounded down; at least one more than before) or plus step, while it
 * stays <= max. It ends at SIZE_MAX instead of wrapping. Pure C, no I/O.
 *
 *   for (bool more = sweep_first(&sw, &s); more; more = sweep_next(&sw, &s)) ... */
#ifndef COLLVIZ_CORE_SWEEP_H
#define COLLVIZ_CORE_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

struct sweep {
    size_t min, max;
    double factor; /* > 1, used when step is 0 */
    size_t step;   /* additive step; 0 = multiply by factor */
};

/* A sweep can run: 0 < min <= max and (step > 0 or factor > 1). */
bool sweep_valid(const struct sweep *sw);
/* *s = the first size; false when the sweep is not valid. */
bool sweep_first(const struct sweep *sw, size_t *s);
/* *s = the size after *s; false when *s was the last one (then *s is unchanged). */
bool sweep_next(const struct sweep *sw, size_t *s);
/* How many sizes the sweep visits (0 when not valid). */
size_t sweep_count(const struct sweep *sw);

#endif
