/* train.cu - the element-wise and reduction kernels of the lecture's MLP training step on a
 * GPU: GELU forward and backward, the mean-square loss and its gradient, and AdamW; and the
 * fused forms the GPU training path (src/device/dev_cuda.c) calls: GELU keeping its
 * derivative, the gradient through it, and the loss's sum of squares in double. The
 * formulas themselves are in trainmath.h, shared with the host references (ref.h); this
 * file only maps them onto threads. */
#include "kernels/kernels.h"

#define KERNEL_BLOCK 256
#define KERNEL_MAX_GRID 4096
#define KERNEL_LOSS_THREADS 1024

/* Enough blocks to cover n once, capped; the kernels stride over the rest. */
static unsigned kernel_grid(size_t n)
{
    size_t blocks = (n + KERNEL_BLOCK - 1) / KERNEL_BLOCK;
    return (unsigned)(blocks < KERNEL_MAX_GRID ? blocks : KERNEL_MAX_GRID);
}

static __global__ void gelu_fwd_kernel(const float *x, float *y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = kernel_gelu(x[i]);
}

static __global__ void gelu_bwd_kernel(const float *x, const float *dy, float *dx, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dx[i] = dy[i] * kernel_gelu_grad(x[i]);
}

/* One block: thread t sums x[t], x[t+T], ... in double, then a fixed tree in shared
 * memory. The order depends only on n, so the sum is bit-for-bit repeatable. The result
 * is valid in thread 0. */
static __device__ double block_sumsq(const float *x, size_t n)
{
    __shared__ double part[KERNEL_LOSS_THREADS];
    double s = 0.0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x)
        s += (double)x[i] * (double)x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    return part[0];
}

static __global__ void mse_loss_kernel(const float *x, size_t n, double n_mean, float *out)
{
    double s = block_sumsq(x, n);
    if (threadIdx.x == 0) *out = (float)(s / n_mean);
}

static __global__ void mse_grad_kernel(const float *x, float *dx, size_t n, float scale)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dx[i] = scale * x[i];
}

static __global__ void adamw_kernel(float *p, const float *g, float *m, float *v, size_t n,
                                    struct kernel_adamw h, float bc1, float bc2)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float pi = p[i], mi = m[i], vi = v[i];
        kernel_adamw_elem(&pi, g[i], &mi, &vi, h, bc1, bc2);
        p[i] = pi;
        m[i] = mi;
        v[i] = vi;
    }
}

extern "C" int kernel_gelu_forward(const float *x, float *y, size_t n, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    kernel_launch_begin();
    gelu_fwd_kernel<<<kernel_grid(n), KERNEL_BLOCK, 0, stream>>>(x, y, n);
    return cudaGetLastError();
}

extern "C" int kernel_gelu_backward(const float *x, const float *dy, float *dx, size_t n,
                                    cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    kernel_launch_begin();
    gelu_bwd_kernel<<<kernel_grid(n), KERNEL_BLOCK, 0, stream>>>(x, dy, dx, n);
    return cudaGetLastError();
}

extern "C" int kernel_mse_loss(const float *x, size_t n, double n_mean, float *loss_dev,
                               cudaStream_t stream)
{
    /* Even n == 0 writes the result (0), so the caller never reads stale memory. */
    kernel_launch_begin();
    mse_loss_kernel<<<1, KERNEL_LOSS_THREADS, 0, stream>>>(x, n, n_mean, loss_dev);
    return cudaGetLastError();
}

extern "C" int kernel_mse_grad(const float *x, float *dx, size_t n, double n_mean,
                               cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    /* The same float scale as kernel_ref_mse_grad, so both round identically. */
    float scale = (float)(2.0 / n_mean);
    kernel_launch_begin();
    mse_grad_kernel<<<kernel_grid(n), KERNEL_BLOCK, 0, stream>>>(x, dx, n, scale);
    return cudaGetLastError();
}

extern "C" int kernel_adamw_step(float *p, const float *g, float *m, float *v, size_t n,
                                 struct kernel_adamw h, int step, cudaStream_t stream)
{
    if (step < 1) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    float bc1, bc2;
    kernel_adamw_bias(h, step, &bc1, &bc2);
    kernel_launch_begin();
    adamw_kernel<<<kernel_grid(n), KERNEL_BLOCK, 0, stream>>>(p, g, m, v, n, h, bc1, bc2);
    return cudaGetLastError();
}

/* ---- the GPU training path (dev_cuda.c) ---- */

static __global__ void gelu_keep_grad_kernel(float *gz, float *a, size_t rows, size_t cols,
                                             size_t lda)
{
    size_t n = rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float z = gz[i];
        a[(i / cols) * lda + i % cols] = kernel_gelu(z);
        gz[i] = kernel_gelu_grad(z);
    }
}

static __global__ void mul_rows_kernel(const float *da, size_t ldda, const float *gz, float *dz,
                                       size_t rows, size_t cols)
{
    size_t n = rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dz[i] = da[(i / cols) * ldda + i % cols] * gz[i];
}

/* The same fixed-order block reduction as mse_loss_kernel, kept in double. */
static __global__ void sumsq_kernel(const float *x, size_t n, double *out)
{
    double s = block_sumsq(x, n);
    if (threadIdx.x == 0) *out = s;
}

extern "C" int kernel_gelu_fwd_keep_grad(float *gz, float *a, int rows, int cols, int lda,
                                         cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || lda < cols) return cudaErrorInvalidValue;
    size_t n = (size_t)rows * (size_t)cols;
    if (n == 0) return cudaSuccess;
    kernel_launch_begin();
    gelu_keep_grad_kernel<<<kernel_grid(n), KERNEL_BLOCK, 0, stream>>>(
        gz, a, (size_t)rows, (size_t)cols, (size_t)lda);
    return cudaGetLastError();
}

extern "C" int kernel_mul_rows(const float *da, int ldda, const float *gz, float *dz, int rows,
                               int cols, cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || ldda < cols) return cudaErrorInvalidValue;
    size_t n = (size_t)rows * (size_t)cols;
    if (n == 0) return cudaSuccess;
    kernel_launch_begin();
    mul_rows_kernel<<<kernel_grid(n), KERNEL_BLOCK, 0, stream>>>(da, (size_t)ldda, gz, dz,
                                                                 (size_t)rows, (size_t)cols);
    return cudaGetLastError();
}

extern "C" int kernel_sumsq(const float *x, size_t n, double *sumsq_dev, cudaStream_t stream)
{
    kernel_launch_begin();
    sumsq_kernel<<<1, KERNEL_LOSS_THREADS, 0, stream>>>(x, n, sumsq_dev);
    return cudaGetLastError();
}
