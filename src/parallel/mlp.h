/* mlp.h - the lecture's model trained on one device, the reference every training scheme
 * is checked against: L layers of D×D weights, x = gelu(x @ W) per layer, loss = mean(x²)
 * over the final activations, AdamW. fp32, row-major. The model's deterministic inputs
 * and its arithmetic (GELU, matmul, a layer forward and backward, the loss, AdamW) are
 * device/mlpmath.h's, below both the devices and the schemes. */
#ifndef COLLVIZ_PARALLEL_MLP_H
#define COLLVIZ_PARALLEL_MLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/mlpmath.h"

/* The single-device reference trainer: the whole batch, all layers, one thread. */
struct mlp_ref {
    int layers, dim, batch;
    int t;          /* AdamW steps taken */
    float *w, *g;   /* [L][D][D] */
    float *m, *v;   /* AdamW state */
    float *x;       /* [L+1][B][D]: x[0] = data, x[l+1] = gelu(z[l]) */
    float *z;       /* [L][B][D] */
    float *da, *dz; /* [B][D] scratch */
};

void mlp_ref_init(struct mlp_ref *r, int layers, int dim, int batch, uint64_t seed);
/* Called after each phase of a reference step (a layer's forward or backward, AdamW) with
 * its label and monotonic start/end times, so a caller can draw a timeline. */
typedef void (*mlp_phase_fn)(void *ctx, const char *label, double t0, double t1);
/* One training step; returns the loss of its forward pass (before the update). hook may
 * be NULL. */
double mlp_ref_step(struct mlp_ref *r, const struct adamw_cfg *c, mlp_phase_fn hook, void *ctx);
void mlp_ref_free(struct mlp_ref *r);

#endif
