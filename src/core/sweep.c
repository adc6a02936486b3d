/* sweep.c - the sizes a sweep visits (see sweep.h). */
#include "core/sweep.h"

#include <stdint.h>

bool sweep_valid(const struct sweep *sw)
{
    return sw->min > 0 && sw->max >= sw->min && (sw->step > 0 || sw->factor > 1.0);
}

bool sweep_first(const struct sweep *sw, size_t *s)
{
    if (!sweep_valid(sw)) return false;
    *s = sw->min;
    return true;
}

bool sweep_next(const struct sweep *sw, size_t *s)
{
    size_t cur = *s, n;
    if (cur >= sw->max || cur == SIZE_MAX) return false;
    if (sw->step > 0) {
        if (cur > SIZE_MAX - sw->step) return false;
        n = cur + sw->step;
    } else {
        double d = (double)cur * sw->factor;
        n = d >= (double)SIZE_MAX ? SIZE_MAX : (size_t)d;
        if (n <= cur) n = cur + 1;
    }
    if (n > sw->max) return false;
    *s = n;
    return true;
}

size_t sweep_count(const struct sweep *sw)
{
    size_t n = 0, s;
    for (bool more = sweep_first(sw, &s); more; more = sweep_next(sw, &s))
        n++;
    return n;
}
