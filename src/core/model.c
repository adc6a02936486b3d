/* model.c - the α-β cost model read off a plan (see model.h for the model and why it is
 * exact at every size), and the least-squares fit of α and 1/β to measured times. */
#include "core/model.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

size_t model_step_bytes(const struct plan *p, size_t step, size_t elsize)
{
    if (!p || step >= p->nsteps) return 0;
    size_t sent[CV_MAX_RANKS] = {0}, recv[CV_MAX_RANKS] = {0};
    const struct step *st = &p->steps[step];
    for (size_t i = st->first; i < st->first + st->n; i++) {
        const struct xfer *x = &p->x[i];
        /* A rank's copy into its own buffer and the AVG epilogue's scale never leave it. */
        if (x->src == x->dst || x->kind == XFER_SCALE) continue;
        sent[x->src] += x->count * elsize;
        recv[x->dst] += x->count * elsize;
    }
    size_t most = 0;
    for (int r = 0; r < p->nranks && r < CV_MAX_RANKS; r++) {
        if (sent[r] > most) most = sent[r];
        if (recv[r] > most) most = recv[r];
    }
    return most;
}

void model_plan_cost(const struct plan *p, size_t elsize, int *steps, size_t *wire_bytes)
{
    int n = 0;
    size_t c = 0;
    for (size_t s = 0; p && s < p->nsteps; s++) {
        size_t b = model_step_bytes(p, s, elsize);
        if (b == 0) continue;
        n++;
        c += b;
    }
    *steps = n;
    *wire_bytes = c;
}

double model_time(int steps, size_t wire_bytes, double alpha_s, double beta_Bps)
{
    if (steps <= 0) return 0.0;
    return steps * alpha_s + (double)wire_bytes / beta_Bps;
}

/* Build the plan of (c, a, nranks) at S = bytes; checks every argument but α and β. */
static int model_plan(enum coll c, enum algo a, int nranks, size_t bytes, struct plan *p,
                      size_t *count, char *err, size_t errlen)
{
    if ((unsigned)c >= COLL_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "collective %d: unknown", (int)c);
    if (nranks < 1 || nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: must be 1..%d", nranks, CV_MAX_RANKS);
    if (bytes > MODEL_MAX_BYTES)
        return cv_err(err, errlen, CV_EINVAL, "size %zu B: above the model's limit of 1 PiB",
                      bytes);
    size_t n = coll_count_for_bytes(c, nranks, bytes, sizeof(float));
    if (n == 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "size %zu B: %s on %d ranks needs at least %zu B (one float per piece)",
                      bytes, coll_name(c), nranks, coll_bytes(c, nranks, 1, sizeof(float)));
    *count = n;
    return plan_build(p, c, a, OP_SUM, nranks, n, 0, err, errlen);
}

int model_collective(enum coll c, enum algo a, int nranks, size_t bytes, double alpha_s,
                     double beta_Bps, struct model_cost *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!isfinite(alpha_s) || alpha_s < 0)
        return cv_err(err, errlen, CV_EINVAL, "alpha %g s: must be a finite number >= 0",
                      alpha_s);
    if (!isfinite(beta_Bps) || beta_Bps <= 0)
        return cv_err(err, errlen, CV_EINVAL, "beta %g B/s: must be a finite number > 0",
                      beta_Bps);
    struct plan p;
    size_t count = 0;
    int rc = model_plan(c, a, nranks, bytes, &p, &count, err, errlen);
    if (rc != CV_OK) return rc;
    out->coll = c;
    out->algo = a;
    out->nranks = nranks;
    out->count = count;
    out->bytes = coll_bytes(c, nranks, count, sizeof(float));
    model_plan_cost(&p, sizeof(float), &out->steps, &out->wire_bytes);
    plan_free(&p);
    out->alpha_s = alpha_s;
    out->beta_Bps = beta_Bps;
    out->time_s = model_time(out->steps, out->wire_bytes, alpha_s, beta_Bps);
    if (out->time_s > 0) {
        out->algbw = (double)out->bytes / out->time_s;
        out->busbw = out->algbw * coll_busbw_factor(c, nranks);
    }
    return CV_OK;
}

int model_point_for(enum coll c, enum algo a, int nranks, size_t bytes, double time_s,
                    struct model_point *out, char *err, size_t errlen)
{
    struct plan p;
    size_t count;
    int rc = model_plan(c, a, nranks, bytes, &p, &count, err, errlen);
    if (rc != CV_OK) return rc;
    model_plan_cost(&p, sizeof(float), &out->steps, &out->wire_bytes);
    out->time_s = time_s;
    plan_free(&p);
    return CV_OK;
}

/* The fit minimises the relative error, Σ ((t_i − α·n_i − γ·c_i) / t_i)² with γ = 1/β:
 * measured times span orders of magnitude across a sweep and their noise is roughly a fixed
 * fraction of each time, so every point counts by its relative error; an unweighted fit would
 * let the largest size's noise swamp α, which only the small sizes carry. That is the 2x2
 * normal equations of rows (n_i/t_i, c_i/t_i) against 1. The columns are scaled to a largest
 * value of 1 first, so bytes (up to 1e15) and step counts (a few) meet on equal terms and the
 * determinant test below means something. */
int model_fit(const struct model_point *pts, size_t n, struct model_fit *out, char *err,
              size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!pts || n < 2)
        return cv_err(err, errlen, CV_EINVAL,
                      "fit: %zu point%s; need at least 2 distinct sizes", n, n == 1 ? "" : "s");
    double nmax = 0, cmax = 0;
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(pts[i].time_s) || pts[i].time_s <= 0)
            return cv_err(err, errlen, CV_EINVAL,
                          "fit: point %zu has time %g s; need a measured time > 0", i,
                          pts[i].time_s);
        if (pts[i].steps < 0)
            return cv_err(err, errlen, CV_EINVAL, "fit: point %zu has %d steps", i,
                          pts[i].steps);
        double x1 = pts[i].steps / pts[i].time_s,
               x2 = (double)pts[i].wire_bytes / pts[i].time_s;
        if (x1 > nmax) nmax = x1;
        if (x2 > cmax) cmax = x2;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = pts[j].wire_bytes == pts[i].wire_bytes;
        if (!seen) distinct++;
    }
    if (distinct < 2)
        return cv_err(err, errlen, CV_EINVAL,
                      "fit: %zu distinct size%s on the wire; need at least 2", distinct,
                      distinct == 1 ? "" : "s");
    if (nmax == 0 || cmax == 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "fit: no step crosses between ranks (one rank?): nothing to fit");
    double snn = 0, snc = 0, scc = 0, snt = 0, sct = 0;
    for (size_t i = 0; i < n; i++) {
        double t = pts[i].time_s;
        double x1 = pts[i].steps / t / nmax, x2 = (double)pts[i].wire_bytes / t / cmax;
        snn += x1 * x1;
        snc += x1 * x2;
        scc += x2 * x2;
        snt += x1;
        sct += x2;
    }
    double det = snn * scc - snc * snc;
    /* Cauchy-Schwarz: det >= 0, and 0 exactly when the columns are proportional (bytes a
     * fixed multiple of steps): then α and β trade off and cannot be separated. */
    if (!(det > 1e-12 * snn * scc))
        return cv_err(err, errlen, CV_EINVAL,
                      "fit: the points' bytes are proportional to their steps; alpha and beta "
                      "cannot be told apart");
    double a = (snt * scc - sct * snc) / det;
    double g = (sct * snn - snt * snc) / det;
    out->alpha_s = a / nmax;
    out->inv_beta = g / cmax;
    out->beta_Bps = out->inv_beta > 0 ? 1.0 / out->inv_beta : 0.0;
    out->npoints = (int)n;
    out->physical = out->alpha_s >= 0 && out->inv_beta > 0;
    double mean = 0, ss_res = 0, ss_tot = 0, rel = 0;
    for (size_t i = 0; i < n; i++)
        mean += pts[i].time_s / (double)n;
    for (size_t i = 0; i < n; i++) {
        double fit = out->alpha_s * pts[i].steps + out->inv_beta * (double)pts[i].wire_bytes;
        double r = pts[i].time_s - fit, d = pts[i].time_s - mean;
        ss_res += r * r;
        ss_tot += d * d;
        rel += (r / pts[i].time_s) * (r / pts[i].time_s);
    }
    out->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : (ss_res == 0 ? 1.0 : 0.0);
    out->rel_rms = sqrt(rel / (double)n);
    return CV_OK;
}

int model_fit_sizes(enum coll c, const enum algo *algos, int nranks, const size_t *bytes,
                    const double *time_s, size_t n, struct model_point *pts,
                    struct model_fit *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char why[200];
    for (size_t i = 0; i < n; i++) {
        int rc =
            model_point_for(c, algos[i], nranks, bytes[i], time_s[i], &pts[i], why, sizeof why);
        if (rc != CV_OK) return cv_err(err, errlen, rc, "fit: %s", why);
    }
    return model_fit(pts, n, out, err, errlen);
}
