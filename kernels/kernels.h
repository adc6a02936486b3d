/* kernels.h - the CUDA kernels collviz uses, behind plain C launchers (extern "C"), so the
 * NCCL backend (src/backend/nccl) and later the GPU training code call them from C.
 *
 * Every launcher enqueues its work on `stream` of the current device (the caller does
 * cudaSetDevice) and returns the launch status as a cudaError_t value (0 = cudaSuccess);
 * execution errors surface at the caller's next stream query, as usual in CUDA. The status
 * is the launch's own: a launcher clears the thread's last error before launching, since
 * cudaGetLastError also reports what earlier calls left there (a cudaStreamQuery that
 * found work pending leaves cudaErrorNotReady), and the callers poll streams between
 * launches. Sticky errors survive the clearing and fail the launch itself. n == 0
 * launches nothing. Each kernel has a host reference (kernels/ref.h) and a test comparing
 * the two on a GPU (tests/gpu/test_kernels.c). */
#ifndef COLLVIZ_KERNELS_KERNELS_H
#define COLLVIZ_KERNELS_KERNELS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "kernels/pattern.h"
#include "kernels/trainmath.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Called by every launcher right before its <<<>>>: see above. */
static inline void kernel_launch_begin(void)
{
    (void)cudaGetLastError();
}

/* buf[i] = kernel_pattern_value(op, rank, i) for i in [0, n): a rank's send buffer at
 * measurement scale, the same values the CPU backend uses (pattern_value in core/init.h). */
int kernel_fill_pattern(float *buf, size_t n, int op, int rank, cudaStream_t stream);

/* Count the elements j in [0, n) of a rank's receive buffer that differ from
 * kernel_pattern_expected(*q, j) by more than tol * max(1, |expected|) (tol 0 = exact; a NaN
 * always counts), and store the count in *wrong_dev (device memory, one unsigned long long,
 * overwritten). */
int kernel_count_wrong(const float *buf, size_t n, struct kernel_pattern q, float tol,
                       unsigned long long *wrong_dev, cudaStream_t stream);

/* y = gelu(x), dx = dy * gelu'(x) (exact erf form). In place is allowed (y == x, dx == dy). */
int kernel_gelu_forward(const float *x, float *y, size_t n, cudaStream_t stream);
int kernel_gelu_backward(const float *x, const float *dy, float *dx, size_t n,
                         cudaStream_t stream);

/* *loss_dev = sum(x[i]^2) / n_mean (n_mean = n gives mean(x^2), the lecture's loss).
 * Deterministic: one block, a fixed summation order, accumulated in double. */
int kernel_mse_loss(const float *x, size_t n, double n_mean, float *loss_dev,
                    cudaStream_t stream);
/* dx[i] = 2 * x[i] / n_mean, the gradient of that loss. */
int kernel_mse_grad(const float *x, float *dx, size_t n, double n_mean, cudaStream_t stream);

/* One AdamW step (step >= 1) on n parameters: p, m, v updated in place from g. */
int kernel_adamw_step(float *p, const float *g, float *m, float *v, size_t n,
                      struct kernel_adamw h, int step, cudaStream_t stream);

/* ---- for the GPU training path (src/device/dev_cuda.c) ---- */

/* One layer's activation, fused as in mlp_layer_forward: on entry gz (rows x cols,
 * contiguous) holds z = x @ W; on return a[i*lda + j] = gelu(z) and gz = gelu'(z), the
 * only thing backward needs of z. */
int kernel_gelu_fwd_keep_grad(float *gz, float *a, int rows, int cols, int lda,
                              cudaStream_t stream);
/* dz[i*cols + j] = da[i*ldda + j] * gz[i*cols + j]: the gradient through the GELU. */
int kernel_mul_rows(const float *da, int ldda, const float *gz, float *dz, int rows, int cols,
                    cudaStream_t stream);
/* *sumsq_dev = sum of x[i]^2, accumulated in double in one block with a fixed order (the
 * loss's numerator, kept in double so the host divides exactly as the CPU path does). */
int kernel_sumsq(const float *x, size_t n, double *sumsq_dev, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
