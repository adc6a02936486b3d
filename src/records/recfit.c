/* recfit.c - the α-β fit of a record's nccl-tests rows (see recfit.h). */
#include "records/recfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

int rec_test_ranks(const struct rec_log *L)
{
    if (L->nranks > 0) return L->nranks;
    return L->maxrank >= 0 ? L->maxrank + 1 : 0;
}

void rec_fit_test(const struct rec_log *L, const struct rec_test *t, bool inplace,
                  struct rec_fit *out)
{
    memset(out, 0, sizeof *out);
    int W = rec_test_ranks(L);
    if (coll_parse(t->collective, &out->coll) != 0) {
        snprintf(out->why, sizeof out->why, "%s: not a collective the model plans",
                 t->collective[0] ? t->collective : "the record does not name the collective");
        return;
    }
    if (W < 2 || W > CV_MAX_RANKS) {
        if (W < 2)
            snprintf(out->why, sizeof out->why, "the record names %d rank%s: nothing to fit", W,
                     W == 1 ? "" : "s");
        else
            snprintf(out->why, sizeof out->why, "%d ranks: the model plans at most %d", W,
                     CV_MAX_RANKS);
        return;
    }
    out->algo = coll_default_algo(out->coll);
    out->nranks = W;
    /* The smallest S the plan holds: one float per piece (model_point_for refuses less). */
    double need = (double)coll_bytes(out->coll, W, 1, sizeof(float));
    size_t *bytes = xcalloc((size_t)t->nrows + 1, sizeof *bytes);
    double *times = xcalloc((size_t)t->nrows + 1, sizeof *times);
    enum algo *algos = xcalloc((size_t)t->nrows + 1, sizeof *algos);
    struct model_point *pts = xcalloc((size_t)t->nrows + 1, sizeof *pts);
    int n = 0;
    for (int i = 0; i < t->nrows; i++) {
        const struct rec_row *r = &t->rows[i];
        double us = inplace ? r->ip.time_us : r->oop.time_us;
        if (!(r->size >= need && r->size <= (double)MODEL_MAX_BYTES) || !isfinite(us) ||
            us <= 0) {
            out->skipped++;
            continue;
        }
        bytes[n] = (size_t)r->size;
        times[n] = us * 1e-6;
        algos[n] = out->algo;
        n++;
    }
    out->nrows = n;
    char err[256];
    if (model_fit_sizes(out->coll, algos, W, bytes, times, (size_t)n, pts, &out->f, err,
                        sizeof err) == CV_OK)
        out->ok = true;
    else
        snprintf(out->why, sizeof out->why, "%s", err);
    free(bytes);
    free(times);
    free(algos);
    free(pts);
}

double rec_fit_busbw(const struct rec_fit *fit, double size)
{
    if (!fit->ok || !fit->f.physical || !(size >= 1) || size > (double)MODEL_MAX_BYTES)
        return 0;
    struct model_cost m;
    if (model_collective(fit->coll, fit->algo, fit->nranks, (size_t)size, fit->f.alpha_s,
                         fit->f.beta_Bps, &m, NULL, 0) != CV_OK)
        return 0;
    return m.busbw / 1e9;
}
