/* recfit.c - the α-β fit of a record's nccl-tests rows (see recfit.h). */
#include "records/recfit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* Do test t's rows (those with an algbw to divide by) say busbw = algbw * factor(W)? */
static bool rows_say(const struct rec_test *t, enum coll c, int W, int *checked)
{
    double f = coll_busbw_factor(c, W);
    for (int i = 0; i < t->nrows; i++) {
        const struct rec_meas *m[2] = {&t->rows[i].oop, &t->rows[i].ip};
        for (int k = 0; k < 2; k++) {
            /* algbw and busbw are printed with 2 decimals (each within 0.005): the ratio is
             * within 0.005 (1 + f) / algbw of the factor, a little more for safety */
            double a = m[k]->algbw;
            if (!(a >= 1) || !isfinite(m[k]->busbw)) continue;
            if (fabs(m[k]->busbw / a - f) > 0.006 * (1 + f) / a) return false;
            (*checked)++;
        }
    }
    return true;
}

int rec_launch_ranks(const struct rec_log *L)
{
    long W = (long)L->job.procs * L->job.per_proc;
    if (L->job.procs <= 0 || L->job.per_proc <= 0 || W > REC_MAX_RANKS) return -1;
    int checked = 0;
    for (int i = 0; i < L->ntests; i++) {
        const struct rec_test *t = &L->tests[i];
        enum coll c;
        if (coll_parse(t->collective, &c) != 0) continue;
        /* a factor that does not change with the size of the job proves none */
        int before = checked;
        if (!rows_say(t, c, (int)W, &checked)) return -1;
        if (checked > before && ((W > 1 && rows_say(t, c, (int)W - 1, &(int){0})) ||
                                 rows_say(t, c, (int)W + 1, &(int){0})))
            return -1;
    }
    return checked > 0 ? (int)W : -1;
}

int rec_test_ranks(const struct rec_log *L)
{
    if (L->nranks > 0 && !L->nranks_floor) return L->nranks;
    int w = rec_launch_ranks(L);
    if (w > 0) return w;
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
        if (W == 0 && L->job.procs > 0)
            snprintf(out->why, sizeof out->why,
                     "mpirun -np %d, but the rows do not tell the job's ranks: nothing to fit",
                     L->job.procs);
        else if (W == 0)
            snprintf(out->why, sizeof out->why,
                     "no rank and no size of the job in the "
                     "record: nothing to fit");
        else if (W < 2)
            snprintf(out->why, sizeof out->why, "the record names 1 rank: nothing to fit");
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
