/* measmodel.c - the model beside the measured panel (see measmodel.h). */
#include "ui/screens/collectives/measmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tiers.h"
#include "core/util.h"

void mm_choose(const struct model_fit *fit, double memcpy_gbs, int W, bool gpu, bool utf8,
               struct mm_params *out)
{
    memset(out, 0, sizeof *out);
    const char *a = utf8 ? "\u03b1" : "alpha", *b = utf8 ? "\u03b2" : "beta";
    if (fit && fit->physical && fit->beta_Bps > 0) {
        out->source = MM_FIT;
        out->alpha_s = fit->alpha_s;
        out->beta_Bps = fit->beta_Bps;
        snprintf(out->text, sizeof out->text,
                 "%s %.3g us, %s %.3g GB/s: fit of the sweep, R%s %.3f over %d sizes", a,
                 fit->alpha_s * 1e6, b, fit->beta_Bps / 1e9, utf8 ? "\u00b2" : "^2", fit->r2,
                 fit->npoints);
        return;
    }
    if (gpu) {
        const struct tier *t = tier_get(TIER_NVLINK);
        out->source = MM_TIER;
        out->alpha_s = t->model_alpha_s;
        out->beta_Bps = t->each_way_Bps;
        snprintf(
            out->text, sizeof out->text,
            "%s, %s of the nvlink tier: %.3g us assumed, %.3g GB/s each way (the lecture's "
            "%s, halved)",
            a, b, t->model_alpha_s * 1e6, t->each_way_Bps / 1e9, t->bw_text);
        return;
    }
    if (memcpy_gbs > 0 && W > 0) {
        out->source = MM_MEMCPY;
        out->alpha_s = MM_DEFAULT_ALPHA_S;
        out->beta_Bps = memcpy_gbs * 1e9 / W;
        snprintf(out->text, sizeof out->text,
                 "%s = measured memcpy %.3g GB/s shared by %d ranks; %s %.3g us assumed", b,
                 memcpy_gbs, W, a, MM_DEFAULT_ALPHA_S * 1e6);
        return;
    }
    out->source = MM_STATED;
    out->alpha_s = MM_DEFAULT_ALPHA_S;
    out->beta_Bps = MM_DEFAULT_BETA_BPS;
    snprintf(out->text, sizeof out->text,
             "%s %.3g us, %s %.3g GB/s assumed (sweep with s to fit them)", a,
             MM_DEFAULT_ALPHA_S * 1e6, b, MM_DEFAULT_BETA_BPS / 1e9);
}

int mm_fit_rows(enum coll c, enum algo fallback, int W, const struct bench_result *rows, int n,
                struct model_fit *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (n < 1) return cv_err(err, errlen, CV_EINVAL, "fit: no measured sizes; need at least 2");
    struct model_point *pts = xcalloc((size_t)n, sizeof *pts);
    int rc = CV_OK;
    for (int i = 0; i < n && rc == CV_OK; i++) {
        enum algo a;
        if (algo_parse(rows[i].algo, &a) != 0) a = fallback;
        rc = model_point_for(c, a, W, rows[i].bytes, rows[i].time_us * 1e-6, &pts[i], err,
                             errlen);
    }
    if (rc == CV_OK) rc = model_fit(pts, (size_t)n, out, err, errlen);
    free(pts);
    return rc;
}

void mm_curve(enum coll c, enum algo a, int W, const struct mm_params *p, const size_t *bytes,
              int n, double *busbw_gbs)
{
    for (int i = 0; i < n; i++) {
        struct model_cost m;
        busbw_gbs[i] = 0;
        if (model_collective(c, a, W, bytes[i], p->alpha_s, p->beta_Bps, &m, NULL, 0) == CV_OK)
            busbw_gbs[i] = m.busbw / 1e9;
    }
}
