/* napkin.c - the lecture's napkin math (see napkin.h). The per-scheme costs go through the
 * same α-β model as every other modelled figure (model.c), read off the ring plans. */
#include "core/napkin.h"

#include <math.h>
#include <string.h>

#include "core/model.h"
#include "core/util.h"

double napkin_effective_bw(double bytes, int W, double duration_s)
{
    if (W < 2 || !(duration_s > 0)) return 0.0;
    return bytes * 2.0 * (W - 1) / (W * duration_s);
}

double napkin_ddp_sync_s(double params, double bytes_each, double bw_Bps, int W)
{
    if (!(bw_Bps > 0)) return 0.0;
    double factor = W > 0 ? 2.0 * (W - 1) / W : 2.0;
    return factor * params * bytes_each / bw_Bps;
}

double napkin_tp_elements(double L, double B, double D)
{
    return L * B * D;
}

double napkin_ddp_elements(double L, double D)
{
    return L * D * D;
}

int napkin_schemes(int L, int B, int D, int W, int M, double alpha_s, double beta_Bps,
                   struct napkin_schemes *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (L < 1 || B < 1 || D < 1)
        return cv_err(err, errlen, CV_EINVAL, "L=%d B=%d D=%d: each must be at least 1", L, B,
                      D);
    if (M < 1 || M > B)
        return cv_err(err, errlen, CV_EINVAL, "micro-batches %d: need 1..B (%d)", M, B);
    double grads = 4.0 * L * (double)D * D, acts = 4.0 * B * (double)D;
    if (grads > (double)MODEL_MAX_BYTES)
        return cv_err(err, errlen, CV_EINVAL, "L*D*D = %.3g floats: above the model's limit",
                      grads / 4);
    struct model_cost m;
    int rc = model_collective(COLL_ALL_REDUCE, ALGO_RING, W, (size_t)grads, alpha_s, beta_Bps,
                              &m, err, errlen);
    if (rc != CV_OK) return rc;
    out->ddp = (struct napkin_scheme){.bytes = (double)m.bytes, .calls = 1, .time_s = m.time_s};
    rc = model_collective(COLL_ALL_GATHER, ALGO_RING, W, (size_t)acts, alpha_s, beta_Bps, &m,
                          err, errlen);
    if (rc != CV_OK) return rc;
    out->tp = (struct napkin_scheme){
        .bytes = (double)m.bytes * L, .calls = L, .time_s = m.time_s * L};
    /* One stage boundary: every micro-batch's activations cross it once, one hop. */
    out->pp = (struct napkin_scheme){
        .bytes = acts,
        .calls = M,
        .time_s = W > 1 ? M * alpha_s + acts / beta_Bps : 0.0,
    };
    return CV_OK;
}

void napkin_zero_memory(double psi, double K, int N, struct napkin_zero *out)
{
    double n = N > 0 ? N : 1;
    out->ddp = (2 + 2 + K) * psi;
    out->stage1 = (2 + 2) * psi + K * psi / n;
    out->stage2 = 2 * psi + (2 + K) * psi / n;
    out->stage3 = (2 + 2 + K) * psi / n;
}
