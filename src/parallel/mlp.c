/* mlp.c - the lecture's MLP: its generator, initial weights and data, and the
 * single-device reference trainer (see mlp.h), on the arithmetic of device/mlpmath.c.
 * Every scheme calls the same arithmetic through its device, so a scheme's
 * result differs from the reference only by the order of float additions (how a matmul
 * is split over ranks or micro-batches and how gradients are summed). */
#include "parallel/mlp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void mlp_ref_init(struct mlp_ref *r, int layers, int dim, int batch, uint64_t seed)
{
    memset(r, 0, sizeof *r);
    r->layers = layers;
    r->dim = dim;
    r->batch = batch;
    size_t dd = (size_t)dim * dim, bd = (size_t)batch * dim;
    r->w = mlp_alloc((size_t)layers * dd);
    r->g = mlp_alloc((size_t)layers * dd);
    r->m = mlp_alloc((size_t)layers * dd);
    r->v = mlp_alloc((size_t)layers * dd);
    r->x = mlp_alloc((size_t)(layers + 1) * bd);
    r->z = mlp_alloc((size_t)layers * bd);
    r->da = mlp_alloc(bd);
    r->dz = mlp_alloc(bd);
    for (int l = 0; l < layers; l++)
        mlp_init_weights(seed, l, dim, r->w + (size_t)l * dd);
    mlp_init_data(seed, batch, dim, r->x);
}

static void ref_phase(mlp_phase_fn hook, void *ctx, const char *label, double t0)
{
    if (hook) hook(ctx, label, t0, now_s());
}

double mlp_ref_step(struct mlp_ref *r, const struct adamw_cfg *c, mlp_phase_fn hook, void *ctx)
{
    int L = r->layers, D = r->dim, B = r->batch;
    size_t dd = (size_t)D * D, bd = (size_t)B * D;
    char label[32];
    for (int l = 0; l < L; l++) {
        double t0 = now_s();
        mlp_layer_forward(B, D, D, r->x + l * bd, r->w + l * dd, D, r->z + l * bd,
                          r->x + (l + 1) * bd, D);
        snprintf(label, sizeof label, "fwd L%d", l);
        ref_phase(hook, ctx, label, t0);
    }
    double t0 = now_s();
    double loss = mlp_loss_grad(r->x + L * bd, bd, (double)bd, r->da) / (double)bd;
    ref_phase(hook, ctx, "loss", t0);
    for (int l = L - 1; l >= 0; l--) {
        t0 = now_s();
        /* dx of layer l becomes da of layer l-1; the data needs no gradient. */
        mlp_layer_backward(B, D, D, r->x + l * bd, r->w + l * dd, r->z + l * bd, r->da, D,
                           r->dz, r->g + l * dd, 0.0f, l > 0 ? r->da : NULL);
        snprintf(label, sizeof label, "bwd L%d", l);
        ref_phase(hook, ctx, label, t0);
    }
    t0 = now_s();
    r->t++;
    mlp_adamw(c, r->t, r->w, r->g, r->m, r->v, (size_t)L * dd);
    ref_phase(hook, ctx, "adamw", t0);
    return loss;
}

void mlp_ref_free(struct mlp_ref *r)
{
    free(r->w);
    free(r->g);
    free(r->m);
    free(r->v);
    free(r->x);
    free(r->z);
    free(r->da);
    free(r->dz);
    memset(r, 0, sizeof *r);
}
