/* hd.h - one macro so a formula written once in a header compiles as plain C on the host
 * and as __host__ __device__ code under nvcc. The pattern, GELU and AdamW formulas live in
 * such headers so the CPU code and the CUDA kernels cannot drift apart. */
#ifndef COLLVIZ_KERNELS_HD_H
#define COLLVIZ_KERNELS_HD_H

#ifdef __CUDACC__
#define KERNEL_HD __host__ __device__
#else
#define KERNEL_HD
#endif

#endif
