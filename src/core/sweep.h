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
/* How many sizes the sweep visits (0 when not valid). Counts at most SWEEP_MAX_SIZES + 1:
 * a sweep that passes sweep_check never visits more. */
size_t sweep_count(const struct sweep *sw);

/* The limits of every sweep and every size measured, wherever it comes from (bench's -b, -e,
 * -f, -i, a screen, a protocol job): sizes up to 16 GiB, at most 1,000 of them. */
#define SWEEP_MAX_BYTES ((size_t)16 << 30)
#define SWEEP_MAX_SIZES 1000
/* The one judge of a sweep: CV_OK and its number of sizes in *n, or CV_EINVAL and one line
 * in err ("sizes 4 B..4 EiB x1.000000000001: more than 1000 sizes; use a larger step").
 * Stops counting after SWEEP_MAX_SIZES + 1 sizes, so it is quick on any input. */
int sweep_check(const struct sweep *sw, size_t *n, char *err, size_t errlen);

#endif
