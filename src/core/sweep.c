/* sweep.c - the sizes a sweep visits (see sweep.h). */
#include "core/sweep.h"

#include <stdint.h>
#include <stdio.h>

#include "core/util.h"

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
    for (bool more = sweep_first(sw, &s); more && n <= SWEEP_MAX_SIZES;
         more = sweep_next(sw, &s))
        n++;
    return n;
}

int sweep_check(const struct sweep *sw, size_t *n, char *err, size_t errlen)
{
    char lo[32], hi[32], by[48];
    format_size(sw->min, lo, sizeof lo);
    format_size(sw->max, hi, sizeof hi);
    if (sw->step)
        format_size(sw->step, by, sizeof by);
    else
        snprintf(by, sizeof by, "x%.17g", sw->factor);
    *n = 0;
    if (sw->min == 0 || sw->max < sw->min)
        return cv_err(err, errlen, CV_EINVAL, "sizes %s..%s: need 0 < smallest <= largest", lo,
                      hi);
    if (sw->max > SWEEP_MAX_BYTES)
        return cv_err(err, errlen, CV_EINVAL, "sizes %s..%s: at most 16 GiB", lo, hi);
    if (sw->step == 0 && !(sw->factor > 1.0 && sw->factor <= 1e6))
        return cv_err(err, errlen, CV_EINVAL,
                      "sizes %s..%s by %s: need a factor > 1 (at most "
                      "1e6) or a step",
                      lo, hi, by);
    size_t k = sweep_count(sw);
    if (k > SWEEP_MAX_SIZES)
        return cv_err(err, errlen, CV_EINVAL,
                      "sizes %s..%s by %s: more than %d sizes; use a larger step", lo, hi, by,
                      SWEEP_MAX_SIZES);
    *n = k;
    return CV_OK;
}
