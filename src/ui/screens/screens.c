/* screens.c - the table of screens (see screens.h for how to add one). */
#include "ui/screens/screens.h"

#include <string.h>

#include "ui/app.h"

#include "ui/screens/collectives/collectives.h"
#include "ui/screens/hierarchy/hierarchy.h"
#include "ui/screens/parallel/par.h"
#include "ui/screens/topology/topology.h"

static const struct screen_ops *const screens[SCREEN_KIND_COUNT] = {
    [SCREEN_COLLECTIVES] = &screen_collectives,
    [SCREEN_PARALLEL] = &screen_parallel,
    [SCREEN_HIERARCHY] = &screen_hierarchy,
    [SCREEN_TOPOLOGY] = &screen_topology,
};

const struct screen_ops *screen_ops_of(enum screen_kind k)
{
    return (unsigned)k < SCREEN_KIND_COUNT ? screens[k] : NULL;
}

double screen_figure(const struct app *a, enum screen_figure f)
{
    for (size_t k = 0; k < SCREEN_KIND_COUNT; k++) {
        double v = screens[k] && screens[k]->figure ? screens[k]->figure(a, f) : 0.0;
        if (v > 0) return v;
    }
    return 0.0;
}

const struct rec_log *screen_record(const struct app *a)
{
    for (size_t k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct rec_log *L =
            screens[k] && screens[k]->record ? screens[k]->record(a) : NULL;
        if (L) return L;
    }
    return NULL;
}

int screen_record_comm(const struct app *a)
{
    for (size_t k = 0; k < SCREEN_KIND_COUNT; k++)
        if (screens[k] && screens[k]->record && screens[k]->record(a))
            return screens[k]->record_comm ? screens[k]->record_comm(a) : -1;
    return -1;
}

const struct plan *screen_plan(const struct app *a)
{
    for (size_t k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct plan *p = screens[k] && screens[k]->plan ? screens[k]->plan(a) : NULL;
        if (p) return p;
    }
    return NULL;
}

const struct trace *screen_trace(const struct app *a)
{
    for (size_t k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct trace *t = screens[k] && screens[k]->trace ? screens[k]->trace(a) : NULL;
        if (t) return t;
    }
    return NULL;
}

const struct meas *screen_meas(const struct app *a)
{
    for (size_t k = 0; k < SCREEN_KIND_COUNT; k++) {
        const struct meas *m = screens[k] && screens[k]->meas ? screens[k]->meas(a) : NULL;
        if (m) return m;
    }
    return NULL;
}

unsigned screen_scene_diff(const struct scene *a, const struct scene *b)
{
    unsigned d = 0;
    if (a->screen != b->screen) d |= SF_SCREEN;
    if (a->coll != b->coll || a->algo != b->algo || a->op != b->op || a->root != b->root ||
        a->ring_n != b->ring_n ||
        memcmp(a->ring, b->ring, (size_t)a->ring_n * sizeof a->ring[0]) != 0)
        d |= SF_COLL; /* the ring order changes the ring plans */
    if (a->nranks != b->nranks) d |= SF_RANKS;
    if (a->count != b->count || a->init != b->init || a->seed != b->seed) d |= SF_INPUT;
    if (a->step != b->step) d |= SF_STEP;
    if (a->scheme != b->scheme || a->schedule != b->schedule || a->overlap != b->overlap)
        d |= SF_PAR;
    if (a->meas_bytes != b->meas_bytes) d |= SF_MEAS;
    if (a->autoplay != b->autoplay) d |= SF_AUTOPLAY;
    if (a->hl != b->hl || a->hl_index != b->hl_index) d |= SF_HL;
    if (a->slice_view != b->slice_view || a->slices != b->slices || a->channels != b->channels)
        d |= SF_VIEW;
    return d;
}

static unsigned rows_memo_flags(const struct app *a)
{
    return (a->panel_short ? 1u : 0) | (a->bar_row_free ? 2u : 0) | (a->big_digits ? 4u : 0) |
           (a->utf8 ? 8u : 0) | (a->embedded ? 16u : 0);
}

bool rows_memo_get(const struct rows_memo *m, const struct app *a, int cols, int rows,
                   int extra, int *need)
{
    unsigned f = rows_memo_flags(a);
    for (int i = 0; i < m->n; i++) {
        const struct rows_memo_entry *e = &m->e[i];
        if (e->cols == cols && e->rows == rows && e->extra == extra && e->zoom == a->zoom &&
            e->flags == f) {
            *need = e->need;
            return true;
        }
    }
    return false;
}

void rows_memo_put(struct rows_memo *m, const struct app *a, int cols, int rows, int extra,
                   int need)
{
    int n = (int)(sizeof m->e / sizeof m->e[0]);
    int i = m->n < n ? m->n++ : m->next++ % n; /* full: the oldest goes */
    m->e[i] = (struct rows_memo_entry){cols, rows, extra, a->zoom, rows_memo_flags(a), need};
}

void rows_memo_clear(struct rows_memo *m)
{
    m->n = m->next = 0;
}
