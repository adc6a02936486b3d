/* slice_timeline.c - the slice view's time-step picture (see slice_timeline.h), built from the
 * ticks plan_refine gives every transfer. */
#include "core/slice_timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static int link_cmp(const void *a, const void *b)
{
    const struct slice_link *x = a, *y = b;
    if (x->src != y->src) return x->src - y->src;
    if (x->dst != y->dst) return x->dst - y->dst;
    return x->channel - y->channel;
}

static int link_find(const struct slice_tl *t, int src, int dst, int channel)
{
    struct slice_link key = {src, dst, channel};
    const struct slice_link *l =
        bsearch(&key, t->links, (size_t)t->nlinks, sizeof key, link_cmp);
    return l ? (int)(l - t->links) : -1;
}

int slice_tl_build(struct slice_tl *t, const struct plan *p, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (!p->order && p->nx > 0)
        return cv_err(err, errlen, CV_EINVAL, "the slice view needs a refined plan");
    int W = p->nranks, C = p->nchannels > 0 ? p->nchannels : 1;
    size_t nl = (size_t)W * (size_t)W * (size_t)C;
    char *used = xcalloc(nl, 1);
    for (size_t i = 0; i < p->nx; i++) {
        const struct xfer *x = &p->x[i];
        used[((size_t)x->src * (size_t)W + (size_t)x->dst) * (size_t)C + (size_t)x->channel] =
            1;
    }
    t->links = xmalloc((nl ? nl : 1) * sizeof *t->links);
    for (size_t l = 0; l < nl; l++)
        if (used[l])
            t->links[t->nlinks++] =
                (struct slice_link){(int)(l / ((size_t)C * (size_t)W)),
                                    (int)(l / (size_t)C % (size_t)W), (int)(l % (size_t)C)};
    free(used);
    t->nticks = p->nticks;
    size_t ncell = (size_t)t->nlinks * (size_t)t->nticks;
    t->cells = xmalloc((ncell ? ncell : 1) * sizeof *t->cells);
    for (size_t c = 0; c < ncell; c++)
        t->cells[c].x = -1;
    t->busy = xcalloc((size_t)(t->nticks ? t->nticks : 1), sizeof *t->busy);
    for (size_t i = 0; i < p->nx; i++) {
        const struct xfer *x = &p->x[i];
        int l = link_find(t, x->src, x->dst, x->channel);
        t->cells[(size_t)l * (size_t)t->nticks + (size_t)x->tick].x = (long)i;
        t->busy[x->tick]++;
    }
    int most = 0;
    for (int k = 0; k < t->nticks; k++)
        if (t->busy[k] > most) most = t->busy[k];
    while (t->fill < t->nticks && t->busy[t->fill] < most)
        t->fill++;
    while (t->drain < t->nticks - t->fill && t->busy[t->nticks - 1 - t->drain] < most)
        t->drain++;
    return CV_OK;
}

void slice_tl_free(struct slice_tl *t)
{
    if (!t) return;
    free(t->links);
    free(t->cells);
    free(t->busy);
    memset(t, 0, sizeof *t);
}

void slice_tl_label(const struct plan *p, long x, char *buf, size_t n)
{
    if (x < 0 || (size_t)x >= p->nx) {
        snprintf(buf, n, "%s", "");
        return;
    }
    const struct xfer *y = &p->x[x];
    if (y->kind == XFER_SCALE)
        snprintf(buf, n, "/%d", y->slice);
    else if (y->chunk >= 0)
        snprintf(buf, n, "%d.%d", y->chunk, y->slice);
    else
        snprintf(buf, n, "%d", y->slice);
}
