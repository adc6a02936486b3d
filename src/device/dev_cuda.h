/* dev_cuda.h - the GPU device of dev.h (built only with HAVE_NCCL): one per rank, owning
 * that rank's GPU, CUDA stream and cuBLAS handle. The NCCL communicator (nccl_comm.h)
 * queues its calls on the same stream, so compute and communication stay in order.
 *
 * NOT YET RUN ON A GPU: written on machines without one and run in `make test` on emulated
 * devices (tests/fakegpu); `make gpu-test` (tests/gpu/run.sh) verifies it on GPUs. */
#ifndef COLLVIZ_DEVICE_DEV_CUDA_H
#define COLLVIZ_DEVICE_DEV_CUDA_H

#ifdef HAVE_NCCL

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "device/dev.h"

/* A device on GPU `gpu`: selects it, creates a non-blocking stream and a cuBLAS handle in
 * strict fp32 (CUBLAS_PEDANTIC_MATH: no TF32, no reduced-precision reductions). On
 * failure returns CV_EUNAVAIL / CV_EBACKEND with the CUDA or cuBLAS reason in err. Free
 * with d->ops->destroy(d). */
int dev_cuda_create(struct dev **out, int gpu, char *err, size_t errlen);
int dev_cuda_gpu(const struct dev *d);
cudaStream_t dev_cuda_stream(const struct dev *d);
/* After an abort left kernels that will not finish: never free (cudaFree would wait for
 * them) - the memory is left to the process's exit. */
void dev_cuda_mark_wedged(struct dev *d);
/* Opens cuBLAS (once; every device's creation calls it): false with the reason in err
 * when the library or one of its calls is missing. */
bool dev_cuda_blas_load(char *err, size_t errlen);
/* Usable GPUs (cudaGetDeviceCount), or a negative value with the CUDA reason in err. */
int dev_cuda_count(char *err, size_t errlen);

#endif
#endif
