/* model.h - the α-β cost model of a collective, derived from the very plan that is animated
 * and executed (plan.h), and the least-squares fit of α and β from measured points.
 *
 * The model (a per-rank port model). Every rank has one port that can send and receive at
 * the same time, each direction at β bytes/s; every step of a plan costs a fixed α (launch,
 * synchronisation, the first byte's latency) plus the time the busiest port needs for that
 * step:
 *
 *     T = Σ over the plan's steps s of ( α + max over ranks r of
 *             max(bytes r sends in s, bytes r receives in s) / β )
 *       = n·α + c/β,   n = steps that put bytes on a wire, c = Σ_s (busiest port's bytes).
 *
 * Only transfers between two different ranks count: a rank's copy into its own buffer
 * (all-to-all's own block) and the AVG op's "divide by W" step (XFER_SCALE) put nothing on
 * the wire, so a step made only of those costs nothing, not even α. This is a model: real
 * links overlap steps, pipeline slices and have protocol overheads; it is shown labelled
 * "model" everywhere.
 *
 * Exact at every size. Plans are chunk-level: their transfers do not grow with the element
 * count (at most W·(W−1) per step, at most 2W steps), so the model builds the plan at the real
 * element count (S/4 for a float buffer, nccl-tests' S convention, see coll.h) rather than
 * scaling a small plan: uneven splits (count not divisible by W: some chunks one element
 * longer) and chunks that vanish when count < W come out exactly as the backend runs them. A
 * plan of 16 ranks takes a few kilobytes whatever S is.
 *
 * Closed forms this reproduces (S = the whole buffer; for all-gather and reduce-scatter
 * S = count·4·W, so S/W is one rank's piece):
 *   ring all-reduce               2(W−1)·(α + ⌈count/W⌉·4/β)  = 2(W−1)(α + S/(Wβ)) when W |
 * count ring all-gather, reduce-scatter (W−1)·(α + S/(Wβ)) and busbw = algbw × nccl-tests'
 * factor (coll_busbw_factor) tends to β for large S for the ring and direct all-reduce,
 * all-gather and reduce-scatter. Trees and chains come out of their plans the same way
 * (tests/unit/test_model.c works W = 4 and 5 by hand); the chains here cut the buffer into W
 * chunks only, so their pipeline fill shows (NCCL cuts finer). */
#ifndef COLLVIZ_CORE_MODEL_H
#define COLLVIZ_CORE_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "core/plan.h"

/* Bytes the busiest port carries in one step of p (elsize bytes per element): the most any
 * rank sends or receives to or from other ranks in that step. 0 for a local step. */
size_t model_step_bytes(const struct plan *p, size_t step, size_t elsize);

/* The plan's cost coefficients: *steps = n (steps with wire bytes), *wire_bytes = c. */
void model_plan_cost(const struct plan *p, size_t elsize, int *steps, size_t *wire_bytes);

/* T = steps·α + wire_bytes/β, in seconds (alpha_s in s, beta_Bps in bytes/s > 0). */
double model_time(int steps, size_t wire_bytes, double alpha_s, double beta_Bps);

/* The largest S the model accepts (1 PiB): keeps every byte sum far from overflow. */
#define MODEL_MAX_BYTES ((size_t)1 << 50)

struct model_cost {
    enum coll coll;
    enum algo algo;
    int nranks;
    size_t count;      /* the API count the plan was built at */
    size_t bytes;      /* S = coll_bytes(count): may be below the size asked when it does
                        * not divide into floats (and W pieces) */
    int steps;         /* n */
    size_t wire_bytes; /* c */
    double alpha_s, beta_Bps;
    double time_s; /* n·α + c/β; 0 when nothing crosses between ranks (W = 1) */
    double algbw;  /* bytes/s, S/T; 0 when T = 0 */
    double busbw;  /* bytes/s, algbw × coll_busbw_factor(coll, W) */
};

/* Model collective c with algorithm a on nranks ranks at S = `bytes` (nccl-tests' size, float
 * elements). CV_EINVAL names a bad argument (S too small to hold one float per piece, or
 * above MODEL_MAX_BYTES, α < 0, β <= 0, not finite); CV_EUNSUPPORTED an algorithm the
 * collective lacks. */
int model_collective(enum coll c, enum algo a, int nranks, size_t bytes, double alpha_s,
                     double beta_Bps, struct model_cost *out, char *err, size_t errlen);

/* ---- fitting α and β to measurements ------------------------------------------------- */

/* One measured point: the plan's n and c at that size and the measured time per op. */
struct model_point {
    int steps;
    size_t wire_bytes;
    double time_s;
};

struct model_fit {
    double alpha_s;  /* per step */
    double inv_beta; /* s per byte, the fitted 1/β (may be <= 0 when not physical) */
    double beta_Bps; /* 1/inv_beta when inv_beta > 0, else 0 */
    double r2;       /* 1 − SS_res/SS_tot over the points' times (the usual R²) */
    double rel_rms;  /* root mean square of (measured − model) / measured */
    int npoints;
    bool physical; /* α >= 0 and 1/β > 0; false: the numbers are still reported as fitted */
};

/* Least squares of t = α·n + (1/β)·c over the points, in relative error (each point weighed
 * by 1/t², see model.c); no free intercept: α is what a step costs beyond its bytes. CV_EINVAL
 * (err names why) with fewer than 2 distinct wire byte counts, with a time that is not finite
 * and positive, or when the two columns are proportional (α and β cannot be told apart). A fit
 * with α < 0 or 1/β <= 0 is returned as fitted with physical = false, for the caller to report
 * honestly. */
int model_fit(const struct model_point *pts, size_t n, struct model_fit *out, char *err,
              size_t errlen);

/* The point for a measured (S, time) of collective c with algorithm a on nranks ranks: n and
 * c from the plan at that size. CV_EINVAL/CV_EUNSUPPORTED as model_collective. */
int model_point_for(enum coll c, enum algo a, int nranks, size_t bytes, double time_s,
                    struct model_point *out, char *err, size_t errlen);

/* Fit α and β to n measured rows of collective c on nranks ranks: row i is bytes[i] (S) in
 * time_s[i] with algorithm algos[i]; each row's point from its plan (model_point_for) into
 * pts[n], then model_fit. The one path from measured rows to a fit: `collviz model --fit`
 * and a record's nccl-tests rows (records/recfit.h) both call it. Errors as model_fit's and
 * model_point_for's, every one starting "fit: ". */
int model_fit_sizes(enum coll c, const enum algo *algos, int nranks, const size_t *bytes,
                    const double *time_s, size_t n, struct model_point *pts,
                    struct model_fit *out, char *err, size_t errlen);

#endif
