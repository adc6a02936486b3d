/* rect.c - rectangle arithmetic (see rect.h). */
#include "ui/kit/rect.h"

bool rect_overlap(struct rect a, struct rect b)
{
    if (a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0) return false;
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

struct rect rect_shift(struct rect r, int dy, int dx)
{
    r.y += dy;
    r.x += dx;
    return r;
}
