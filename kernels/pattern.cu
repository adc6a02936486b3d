/* pattern.cu - the measurement-scale check on the GPU: fill a rank's send buffer with the
 * pattern and count the elements of its receive buffer that differ from the closed-form
 * expected value (pattern.h), so a GiB result is verified without a reference copy or a
 * trip to the host, the way nccl-tests counts #wrong. */
#include "kernels/kernels.h"

#define KERNEL_BLOCK 256
#define KERNEL_MAX_GRID 4096

static unsigned kernel_pattern_grid(size_t n)
{
    size_t blocks = (n + KERNEL_BLOCK - 1) / KERNEL_BLOCK;
    return (unsigned)(blocks < KERNEL_MAX_GRID ? blocks : KERNEL_MAX_GRID);
}

static __global__ void fill_kernel(float *buf, size_t n, int op, int rank)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        buf[i] = kernel_pattern_value(op, rank, i);
}

/* Each thread counts its misses, the block adds them up in shared memory, and one atomic
 * per block adds the block's total. */
static __global__ void count_wrong_kernel(const float *buf, size_t n, struct kernel_pattern q,
                                          float tol, unsigned long long *wrong)
{
    __shared__ unsigned long long part[KERNEL_BLOCK];
    unsigned long long mine = 0;
    for (size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x; j < n;
         j += (size_t)gridDim.x * blockDim.x)
        mine += !kernel_pattern_matches(buf[j], kernel_pattern_expected(q, j), tol);
    part[threadIdx.x] = mine;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0 && part[0]) atomicAdd(wrong, part[0]);
}

extern "C" int kernel_fill_pattern(float *buf, size_t n, int op, int rank, cudaStream_t stream)
{
    if (n == 0) return cudaSuccess;
    kernel_launch_begin();
    fill_kernel<<<kernel_pattern_grid(n), KERNEL_BLOCK, 0, stream>>>(buf, n, op, rank);
    return cudaGetLastError();
}

extern "C" int kernel_count_wrong(const float *buf, size_t n, struct kernel_pattern q,
                                  float tol, unsigned long long *wrong_dev, cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(wrong_dev, 0, sizeof *wrong_dev, stream);
    if (e != cudaSuccess || n == 0) return e;
    kernel_launch_begin();
    count_wrong_kernel<<<kernel_pattern_grid(n), KERNEL_BLOCK, 0, stream>>>(buf, n, q, tol,
                                                                            wrong_dev);
    return cudaGetLastError();
}
