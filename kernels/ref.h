/* ref.h - host references for the kernels in kernels.h: plain C loops over the same
 * formulas (trainmath.h, pattern.h), used by tests/gpu/test_kernels.c to check each kernel
 * and usable by CPU code that must compute what the GPU computes. Header-only so it needs
 * no CUDA to build. */
#ifndef COLLVIZ_KERNELS_REF_H
#define COLLVIZ_KERNELS_REF_H

#include <stddef.h>

#include "kernels/pattern.h"
#include "kernels/trainmath.h"

static inline void kernel_ref_fill_pattern(float *buf, size_t n, int op, int rank)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = kernel_pattern_value(op, rank, i);
}

static inline unsigned long long kernel_ref_count_wrong(const float *buf, size_t n,
                                                        struct kernel_pattern q, float tol)
{
    unsigned long long wrong = 0;
    for (size_t j = 0; j < n; j++)
        wrong += !kernel_pattern_matches(buf[j], kernel_pattern_expected(q, j), tol);
    return wrong;
}

static inline void kernel_ref_gelu_forward(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = kernel_gelu(x[i]);
}

static inline void kernel_ref_gelu_backward(const float *x, const float *dy, float *dx,
                                            size_t n)
{
    for (size_t i = 0; i < n; i++)
        dx[i] = dy[i] * kernel_gelu_grad(x[i]);
}

/* In index order, in double; the kernel sums in a different (fixed) order, so the two agree
 * to rounding, not bit for bit. */
static inline float kernel_ref_mse_loss(const float *x, size_t n, double n_mean)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += (double)x[i] * (double)x[i];
    return (float)(s / n_mean);
}

static inline void kernel_ref_mse_grad(const float *x, float *dx, size_t n, double n_mean)
{
    float scale = (float)(2.0 / n_mean);
    for (size_t i = 0; i < n; i++)
        dx[i] = scale * x[i];
}

static inline void kernel_ref_adamw_step(float *p, const float *g, float *m, float *v, size_t n,
                                         struct kernel_adamw h, int step)
{
    float bc1, bc2;
    kernel_adamw_bias(h, step, &bc1, &bc2);
    for (size_t i = 0; i < n; i++)
        kernel_adamw_elem(&p[i], g[i], &m[i], &v[i], h, bc1, bc2);
}

#endif
