/* measmodel.h - the α-β model beside the collectives screen's measured figures: which α and
 * β it uses (fitted to the last sweep when there is a fit; else β from this machine's
 * measured memory copy bandwidth; else stated defaults, always saying which), the model's
 * time and busbw for the collective, size and W on screen, the fit of a sweep, and the
 * model's busbw curve at the sweep's sizes. No curses: unit-tested in
 * tests/unit/test_measmodel.c. */
#ifndef COLLVIZ_UI_SCREENS_COLLECTIVES_MEASMODEL_H
#define COLLVIZ_UI_SCREENS_COLLECTIVES_MEASMODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "core/coll.h"
#include "core/model.h"

/* The stated defaults for CPU ranks (model assumptions, used only before anything is
 * measured): a step costs about a barrier of a few threads, and the ranks share one memory. */
#define MM_DEFAULT_ALPHA_S 5e-6
#define MM_DEFAULT_BETA_BPS 2e9

enum mm_source {
    MM_STATED, /* the stated defaults above */
    MM_MEMCPY, /* α stated, β = measured memcpy bandwidth / W (the ranks share it) */
    MM_TIER,   /* GPUs: the NVLink tier's α and β (core/tiers.h) */
    MM_FIT,    /* both fitted to the last sweep */
};

struct mm_params {
    enum mm_source source;
    double alpha_s, beta_Bps;
    char text[160]; /* says which: "fit of the sweep: R² 0.998 over 8 sizes", ... */
};

/* Choose α and β: the fit when fit != NULL and physical; else for GPUs (gpu) the NVLink
 * tier's; else memcpy_gbs > 0 (measured on this machine) shared by W ranks; else the stated
 * defaults. */
void mm_choose(const struct model_fit *fit, double memcpy_gbs, int W, bool gpu, bool utf8,
               struct mm_params *out);

/* Fit α and β to the n sweep rows of collective c on W ranks: each row's n and c from the
 * plan of the algorithm that ran (rows' algo; one the model does not know, e.g. "nccl",
 * counts as `fallback`). Returns model_fit's status; err names why not. */
int mm_fit_rows(enum coll c, enum algo fallback, int W, const struct bench_result *rows, int n,
                struct model_fit *out, char *err, size_t errlen);

/* The model's busbw (GB/s) at each of the n sizes (0 where the model refuses a size). */
void mm_curve(enum coll c, enum algo a, int W, const struct mm_params *p, const size_t *bytes,
              int n, double *busbw_gbs);

#endif
