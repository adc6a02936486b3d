/* dev.h - the device math the training schemes call, as a table of operations (struct
 * dev_ops) next to the communicator's (comm.h), so ddp.c, tp.c and pp.c run unchanged on
 * CPU ranks and on GPUs: buffers, copies, the MLP's layer forward/backward (matmul +
 * GELU), the loss and its gradient, AdamW.
 *
 * Two implementations:
 *   cpu  (dev.c)      - host memory; every operation is the mlp.h function the schemes
 *                       called before this table existed, so CPU results are bit-for-bit
 *                       what they were. One stateless instance shared by every rank.
 *   cuda (dev_cuda.c) - built only with HAVE_NCCL: one instance per rank, owning that
 *                       rank's GPU, stream and cuBLAS handle; matmuls are cuBLAS sgemm in
 *                       strict fp32 (TF32 off), GELU, loss and AdamW the kernels of
 *                       kernels/train.cu. Operations are queued on the rank's stream; the
 *                       communicator (nccl_comm.c) queues NCCL calls on the same stream, so
 *                       order is kept without host waits.
 *
 * Errors are sticky, like cudaGetLastError: an operation that fails records the first
 * error in d->status / d->err and later operations do nothing. The training driver checks
 * dev_status() after setup and after every step, so the schemes need no error plumbing
 * for device math. The CPU device never fails (allocation failure is fatal, as xmalloc).
 *
 * Pointers handed out by alloc are device pointers: only these operations may touch them,
 * unless d->host_mem says they are plain host memory (the CPU device), which the display-
 * scale probe (probe.h) relies on; the probe is refused on a GPU run. */
#ifndef COLLVIZ_DEVICE_DEV_H
#define COLLVIZ_DEVICE_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device/mlpmath.h"

struct dev;

struct dev_ops {
    const char *name; /* "cpu", "cuda" */
    /* n floats, zeroed (NULL after an error). */
    float *(*alloc)(struct dev *d, size_t n);
    void (*free)(struct dev *d, float *p);                                   /* p may be NULL */
    void (*upload)(struct dev *d, float *dst, const float *src, size_t n);   /* host -> dev */
    void (*download)(struct dev *d, float *dst, const float *src, size_t n); /* dev -> host */
    /* rows x cols block from src (row stride lds) to dst (row stride ldd), on the device. */
    void (*copy_rows)(struct dev *d, float *dst, int ldd, const float *src, int lds, int rows,
                      int cols);
    /* mlp_gemm on the device. */
    void (*gemm)(struct dev *d, bool ta, bool tb, int m, int n, int k, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc);
    /* mlp_layer_forward / mlp_layer_backward on the device (same arguments, same meaning). */
    void (*layer_forward)(struct dev *d, int n, int din, int dout, const float *x,
                          const float *w, int ldw, float *gz, float *a, int lda);
    void (*layer_backward)(struct dev *d, int n, int din, int dout, const float *x,
                           const float *w, const float *gz, const float *da, int ldda,
                           float *dz, float *gw, float gw_beta, float *dx);
    /* dx = 2x/norm when dx is not NULL (dx may be x); *sumsq = sum of x² (double
     * accumulation) when sumsq is not NULL - on a GPU that waits for the stream. */
    void (*loss_grad)(struct dev *d, const float *x, size_t n, double norm, float *dx,
                      double *sumsq);
    void (*adamw)(struct dev *d, const struct adamw_cfg *c, int t, float *p, const float *g,
                  float *m, float *v, size_t n);
    /* Wait until every queued operation has finished (no-op on the CPU). The driver calls
     * it before taking a compute event's end time, so GPU timelines show execution, not
     * launch. */
    void (*sync)(struct dev *d);
    void (*destroy)(struct dev *d);
};

struct dev {
    const struct dev_ops *ops;
    bool host_mem; /* buffers are host memory (the CPU device) */
    int status;    /* CV_OK, or the first error */
    char err[200]; /* its one-line message */
    void *priv;
};

/* The CPU device: one shared, stateless instance (never destroyed). */
struct dev *dev_cpu(void);

/* The GPU devices (dev_cuda.c, built with HAVE_NCCL), for code that must not know the
 * toolkit: whether this build has them; how many this process can use (a negative status
 * with the reason in err); a device on GPU `gpu` (dev_cuda_create). Without them: false,
 * -CV_EUNAVAIL and CV_EUNAVAIL, err saying they are not built. */
bool dev_gpu_built(void);
int dev_gpu_count(char *err, size_t errlen);
int dev_gpu_create(struct dev **out, int gpu, char *err, size_t errlen);

/* Record the first error of d (printf-style message); returns status. */
int dev_fail(struct dev *d, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* CV_OK, or d's first error with its message copied to err. */
int dev_status(const struct dev *d, char *err, size_t errlen);

/* mlp_init_weight_cols / the rows [row0, row0+nrows) of mlp_init_data, written into
 * device memory (generated on the host, uploaded when the device is not the host). */
void dev_init_weight_cols(struct dev *d, uint64_t seed, int layer, int dim, int c0, int ncols,
                          float *w);
void dev_init_data_rows(struct dev *d, uint64_t seed, int batch, int dim, int row0, int nrows,
                        float *x);

/* n floats of device buffer p readable on the host: p itself on the CPU device, else a
 * downloaded copy; give it back with dev_host_view_done. */
const float *dev_host_view(struct dev *d, const float *p, size_t n);
void dev_host_view_done(struct dev *d, const float *view, const float *p);

/* Short forms the schemes call. */
static inline float *dev_alloc(struct dev *d, size_t n)
{
    return d->ops->alloc(d, n);
}
static inline void dev_free(struct dev *d, float *p)
{
    d->ops->free(d, p);
}
static inline void dev_copy_rows(struct dev *d, float *dst, int ldd, const float *src, int lds,
                                 int rows, int cols)
{
    d->ops->copy_rows(d, dst, ldd, src, lds, rows, cols);
}
static inline void dev_gemm(struct dev *d, bool ta, bool tb, int m, int n, int k,
                            const float *a, int lda, const float *b, int ldb, float beta,
                            float *c, int ldc)
{
    d->ops->gemm(d, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}
static inline void dev_layer_forward(struct dev *d, int n, int din, int dout, const float *x,
                                     const float *w, int ldw, float *gz, float *a, int lda)
{
    d->ops->layer_forward(d, n, din, dout, x, w, ldw, gz, a, lda);
}
static inline void dev_layer_backward(struct dev *d, int n, int din, int dout, const float *x,
                                      const float *w, const float *gz, const float *da,
                                      int ldda, float *dz, float *gw, float gw_beta, float *dx)
{
    d->ops->layer_backward(d, n, din, dout, x, w, gz, da, ldda, dz, gw, gw_beta, dx);
}
static inline void dev_loss_grad(struct dev *d, const float *x, size_t n, double norm,
                                 float *dx, double *sumsq)
{
    d->ops->loss_grad(d, x, n, norm, dx, sumsq);
}
static inline void dev_adamw(struct dev *d, const struct adamw_cfg *c, int t, float *p,
                             const float *g, float *m, float *v, size_t n)
{
    d->ops->adamw(d, c, t, p, g, m, v, n);
}

#endif
