/* fake_kernels.c - kernels/kernels.h's launchers for the fakegpu build: each checks its
 * stream and device pointers as a launch would, and queues a host loop over the same
 * KERNEL_HD formulas the CUDA kernels use (kernels/pattern.h, trainmath.h). The sums of
 * squares follow the kernels' fixed order (1024 strided partials in double, then a halving
 * tree), so this build reduces in the GPU's order. Nothing here tests the CUDA kernels in
 * kernels/ themselves: that is tests/gpu/test_kernels on a GPU. */
#include "fakegpu.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"

#define FK_LOSS_THREADS 1024

static void *fk_args(const void *a, size_t n)
{
    void *p = malloc(n);
    if (!p) fk_die("out of host memory");
    memcpy(p, a, n);
    return p;
}

#define FK_LAUNCH(stream, what, fn, args, ...)                                                 \
    do {                                                                                       \
        struct fk_range rg_[] = {__VA_ARGS__};                                                 \
        return (int)fk_launch(stream, what, fn, fk_args(&(args), sizeof(args)),                \
                              (int)(sizeof rg_ / sizeof rg_[0]), rg_);                         \
    } while (0)

#define F(n) ((size_t)(n) * sizeof(float))

/* ---- pattern ---- */

struct fill_a {
    float *buf;
    size_t n;
    int op, rank;
};
static void fill_run(void *p)
{
    struct fill_a *a = p;
    for (size_t i = 0; i < a->n; i++)
        a->buf[i] = kernel_pattern_value(a->op, a->rank, i);
}
int kernel_fill_pattern(float *buf, size_t n, int op, int rank, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    struct fill_a a = {buf, n, op, rank};
    FK_LAUNCH(stream, "fill_kernel", fill_run, a, {buf, F(n), true});
}

struct wrong_a {
    const float *buf;
    size_t n;
    struct kernel_pattern q;
    float tol;
    unsigned long long *wrong;
};
static void wrong_run(void *p)
{
    struct wrong_a *a = p;
    unsigned long long w = 0;
    for (size_t j = 0; j < a->n; j++)
        w += !kernel_pattern_matches(a->buf[j], kernel_pattern_expected(a->q, j), a->tol);
    *a->wrong += w;
}
int kernel_count_wrong(const float *buf, size_t n, struct kernel_pattern q, float tol,
                       unsigned long long *wrong_dev, cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(wrong_dev, 0, sizeof *wrong_dev, stream);
    if (e != cudaSuccess || n == 0) return e;
    struct wrong_a a = {buf, n, q, tol, wrong_dev};
    FK_LAUNCH(stream, "count_wrong_kernel", wrong_run, a, {buf, F(n), false},
              {wrong_dev, sizeof *wrong_dev, true});
}

/* ---- training ---- */

struct gelu_a {
    const float *x, *dy;
    float *y;
    size_t n;
};
static void gelu_fwd_run(void *p)
{
    struct gelu_a *a = p;
    for (size_t i = 0; i < a->n; i++)
        a->y[i] = kernel_gelu(a->x[i]);
}
static void gelu_bwd_run(void *p)
{
    struct gelu_a *a = p;
    for (size_t i = 0; i < a->n; i++)
        a->y[i] = a->dy[i] * kernel_gelu_grad(a->x[i]);
}
int kernel_gelu_forward(const float *x, float *y, size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    struct gelu_a a = {x, NULL, y, n};
    FK_LAUNCH(stream, "gelu_fwd_kernel", gelu_fwd_run, a, {x, F(n), false}, {y, F(n), true});
}
int kernel_gelu_backward(const float *x, const float *dy, float *dx, size_t n,
                         cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    struct gelu_a a = {x, dy, dx, n};
    FK_LAUNCH(stream, "gelu_bwd_kernel", gelu_bwd_run, a, {x, F(n), false}, {dy, F(n), false},
              {dx, F(n), true});
}

/* kernels/train.cu's block_sumsq, in its order */
static double fk_block_sumsq(const float *x, size_t n)
{
    double part[FK_LOSS_THREADS];
    for (size_t t = 0; t < FK_LOSS_THREADS; t++) {
        double s = 0.0;
        for (size_t i = t; i < n; i += FK_LOSS_THREADS)
            s += (double)x[i] * (double)x[i];
        part[t] = s;
    }
    for (size_t half = FK_LOSS_THREADS / 2; half > 0; half /= 2)
        for (size_t t = 0; t < half; t++)
            part[t] += part[t + half];
    return part[0];
}

struct loss_a {
    const float *x;
    size_t n;
    double n_mean;
    float *out;
    double *dout;
};
static void loss_run(void *p)
{
    struct loss_a *a = p;
    double s = fk_block_sumsq(a->x, a->n);
    if (a->out) *a->out = (float)(s / a->n_mean);
    if (a->dout) *a->dout = s;
}
int kernel_mse_loss(const float *x, size_t n, double n_mean, float *loss_dev,
                    cudaStream_t stream)
{
    struct loss_a a = {x, n, n_mean, loss_dev, NULL};
    FK_LAUNCH(stream, "mse_loss_kernel", loss_run, a, {x, F(n), false},
              {loss_dev, sizeof(float), true});
}
int kernel_sumsq(const float *x, size_t n, double *sumsq_dev, cudaStream_t stream)
{
    struct loss_a a = {x, n, 1.0, NULL, sumsq_dev};
    FK_LAUNCH(stream, "sumsq_kernel", loss_run, a, {x, F(n), false},
              {sumsq_dev, sizeof(double), true});
}

struct grad_a {
    const float *x;
    float *dx;
    size_t n;
    float scale;
};
static void grad_run(void *p)
{
    struct grad_a *a = p;
    for (size_t i = 0; i < a->n; i++)
        a->dx[i] = a->scale * a->x[i];
}
int kernel_mse_grad(const float *x, float *dx, size_t n, double n_mean, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    struct grad_a a = {x, dx, n, (float)(2.0 / n_mean)};
    FK_LAUNCH(stream, "mse_grad_kernel", grad_run, a, {x, F(n), false}, {dx, F(n), true});
}

struct adamw_a {
    float *p, *m, *v;
    const float *g;
    size_t n;
    struct kernel_adamw h;
    float bc1, bc2;
};
static void adamw_run(void *p)
{
    struct adamw_a *a = p;
    for (size_t i = 0; i < a->n; i++)
        kernel_adamw_elem(&a->p[i], a->g[i], &a->m[i], &a->v[i], a->h, a->bc1, a->bc2);
}
int kernel_adamw_step(float *p, const float *g, float *m, float *v, size_t n,
                      struct kernel_adamw h, int step, cudaStream_t stream)
{
    if (step < 1) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    struct adamw_a a = {p, m, v, g, n, h, 0, 0};
    kernel_adamw_bias(h, step, &a.bc1, &a.bc2);
    FK_LAUNCH(stream, "adamw_kernel", adamw_run, a, {p, F(n), true}, {g, F(n), false},
              {m, F(n), true}, {v, F(n), true});
}

struct rows_a {
    float *gz, *a, *dz;
    const float *da;
    size_t rows, cols, ld;
};
static void keep_grad_run(void *p)
{
    struct rows_a *a = p;
    for (size_t i = 0; i < a->rows * a->cols; i++) {
        float z = a->gz[i];
        a->a[(i / a->cols) * a->ld + i % a->cols] = kernel_gelu(z);
        a->gz[i] = kernel_gelu_grad(z);
    }
}
int kernel_gelu_fwd_keep_grad(float *gz, float *a, int rows, int cols, int lda,
                              cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || lda < cols) return cudaErrorInvalidValue;
    size_t n = (size_t)rows * (size_t)cols;
    if (n == 0) return cudaSuccess;
    struct rows_a r = {gz, a, NULL, NULL, (size_t)rows, (size_t)cols, (size_t)lda};
    FK_LAUNCH(stream, "gelu_keep_grad_kernel", keep_grad_run, r, {gz, F(n), true},
              {a, F((size_t)lda * (size_t)(rows - 1) + (size_t)cols), true});
}

static void mul_rows_run(void *p)
{
    struct rows_a *a = p;
    for (size_t i = 0; i < a->rows * a->cols; i++)
        a->dz[i] = a->da[(i / a->cols) * a->ld + i % a->cols] * a->gz[i];
}
int kernel_mul_rows(const float *da, int ldda, const float *gz, float *dz, int rows, int cols,
                    cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || ldda < cols) return cudaErrorInvalidValue;
    size_t n = (size_t)rows * (size_t)cols;
    if (n == 0) return cudaSuccess;
    struct rows_a r = {(float *)gz, NULL, dz, da, (size_t)rows, (size_t)cols, (size_t)ldda};
    FK_LAUNCH(stream, "mul_rows_kernel", mul_rows_run, r,
              {da, F((size_t)ldda * (size_t)(rows - 1) + (size_t)cols), false},
              {gz, F(n), false}, {dz, F(n), true});
}
