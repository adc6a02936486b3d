/* trainmath.h - the element-wise training formulas (exact-erf GELU, its derivative, one AdamW
 * element update) as inline functions compiled both for the host and for the GPU, so the
 * kernels in train.cu and the host references in ref.h evaluate the same expression.
 *
 * GELU is PyTorch's default F.gelu (the erf form, not the tanh approximation), which is
 * what the lecture's MLP uses. AdamW follows torch.optim.AdamW: decoupled weight decay
 * p *= 1 - lr*wd, then the Adam step with bias corrections bc1 = 1 - beta1^t and
 * bc2 = 1 - beta2^t, which the caller computes once per step (in double, on the host). */
#ifndef COLLVIZ_KERNELS_TRAINMATH_H
#define COLLVIZ_KERNELS_TRAINMATH_H

#include <math.h>

#include "kernels/hd.h"

#define KERNEL_SQRT1_2 0.70710678118654752440f      /* 1/sqrt(2) */
#define KERNEL_INV_SQRT_2PI 0.39894228040143267794f /* 1/sqrt(2*pi) */

/* gelu(x) = x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))) */
static inline KERNEL_HD float kernel_gelu(float x)
{
    return 0.5f * x * (1.0f + erff(x * KERNEL_SQRT1_2));
}

/* d gelu / dx = Phi(x) + x * phi(x), phi the standard normal density. */
static inline KERNEL_HD float kernel_gelu_grad(float x)
{
    float cdf = 0.5f * (1.0f + erff(x * KERNEL_SQRT1_2));
    float pdf = KERNEL_INV_SQRT_2PI * expf(-0.5f * x * x);
    return cdf + x * pdf;
}

struct kernel_adamw {
    float lr, beta1, beta2, eps, weight_decay;
};

/* One parameter element: updates *p, *m, *v in place. */
static inline KERNEL_HD void kernel_adamw_elem(float *p, float g, float *m, float *v,
                                               struct kernel_adamw h, float bc1, float bc2)
{
    float pp = *p * (1.0f - h.lr * h.weight_decay);
    float mm = h.beta1 * *m + (1.0f - h.beta1) * g;
    float vv = h.beta2 * *v + (1.0f - h.beta2) * (g * g);
    float mhat = mm / bc1;
    float vhat = vv / bc2;
    *p = pp - h.lr * mhat / (sqrtf(vhat) + h.eps);
    *m = mm;
    *v = vv;
}

/* Bias corrections for step t >= 1: 1 - beta^t, computed on the host in double and rounded
 * once to float, so the kernel and the host reference divide by the same values. */
static inline void kernel_adamw_bias(struct kernel_adamw h, int step, float *bc1, float *bc2)
{
    *bc1 = (float)(1.0 - pow((double)h.beta1, (double)step));
    *bc2 = (float)(1.0 - pow((double)h.beta2, (double)step));
}

#endif
