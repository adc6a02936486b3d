/* dev.c - the CPU device of dev.h and the helpers shared by every device. The CPU
 * operations are exactly the mlp.h calls the schemes made before the device table existed
 * (mlp_alloc, memcpy, mlp_gemm, mlp_layer_forward/backward, mlp_loss_grad, mlp_adamw), so
 * training on CPU ranks gives the same bits as before. */
#include "device/dev.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#ifdef HAVE_NCCL
#include "device/dev_cuda.h"
#endif

/* ---- the GPU devices, where built ---- */

#define DEV_GPU_NOT_BUILT                                                                      \
    "GPU devices are not built (no CUDA toolkit and NCCL found at build time)"

bool dev_gpu_built(void)
{
#ifdef HAVE_NCCL
    return true;
#else
    return false;
#endif
}

int dev_gpu_count(char *err, size_t errlen)
{
#ifdef HAVE_NCCL
    return dev_cuda_count(err, errlen);
#else
    return -cv_err(err, errlen, CV_EUNAVAIL, DEV_GPU_NOT_BUILT);
#endif
}

int dev_gpu_create(struct dev **out, int gpu, char *err, size_t errlen)
{
#ifdef HAVE_NCCL
    return dev_cuda_create(out, gpu, err, errlen);
#else
    (void)out;
    (void)gpu;
    return cv_err(err, errlen, CV_EUNAVAIL, DEV_GPU_NOT_BUILT);
#endif
}

/* ---- the CPU device ---- */

static float *cpu_alloc(struct dev *d, size_t n)
{
    (void)d;
    return mlp_alloc(n);
}

static void cpu_free(struct dev *d, float *p)
{
    (void)d;
    free(p);
}

static void cpu_copy(struct dev *d, float *dst, const float *src, size_t n)
{
    (void)d;
    if (n) memcpy(dst, src, n * sizeof(float));
}

static void cpu_copy_rows(struct dev *d, float *dst, int ldd, const float *src, int lds,
                          int rows, int cols)
{
    (void)d;
    for (int i = 0; i < rows; i++)
        memcpy(dst + (size_t)i * ldd, src + (size_t)i * lds, (size_t)cols * sizeof(float));
}

static void cpu_gemm(struct dev *d, bool ta, bool tb, int m, int n, int k, const float *a,
                     int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    (void)d;
    mlp_gemm(ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc);
}

static void cpu_layer_forward(struct dev *d, int n, int din, int dout, const float *x,
                              const float *w, int ldw, float *gz, float *a, int lda)
{
    (void)d;
    mlp_layer_forward(n, din, dout, x, w, ldw, gz, a, lda);
}

static void cpu_layer_backward(struct dev *d, int n, int din, int dout, const float *x,
                               const float *w, const float *gz, const float *da, int ldda,
                               float *dz, float *gw, float gw_beta, float *dx)
{
    (void)d;
    mlp_layer_backward(n, din, dout, x, w, gz, da, ldda, dz, gw, gw_beta, dx);
}

static void cpu_loss_grad(struct dev *d, const float *x, size_t n, double norm, float *dx,
                          double *sumsq)
{
    (void)d;
    if (sumsq) {
        *sumsq = mlp_loss_grad(x, n, norm, dx);
        return;
    }
    /* The gradient alone: the same float scale and product as mlp_loss_grad's. */
    float scale = (float)(2.0 / norm);
    for (size_t i = 0; dx && i < n; i++)
        dx[i] = scale * x[i];
}

static void cpu_adamw(struct dev *d, const struct adamw_cfg *c, int t, float *p, const float *g,
                      float *m, float *v, size_t n)
{
    (void)d;
    mlp_adamw(c, t, p, g, m, v, n);
}

static void cpu_sync(struct dev *d)
{
    (void)d;
}

static void cpu_destroy(struct dev *d)
{
    (void)d; /* the shared instance lives as long as the process */
}

static const struct dev_ops cpu_ops = {
    .name = "cpu",
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_copy,
    .download = cpu_copy,
    .copy_rows = cpu_copy_rows,
    .gemm = cpu_gemm,
    .layer_forward = cpu_layer_forward,
    .layer_backward = cpu_layer_backward,
    .loss_grad = cpu_loss_grad,
    .adamw = cpu_adamw,
    .sync = cpu_sync,
    .destroy = cpu_destroy,
};

/* Never written after initialisation (status stays CV_OK), so every rank may share it. */
static struct dev cpu_dev = {.ops = &cpu_ops, .host_mem = true, .status = CV_OK};

struct dev *dev_cpu(void)
{
    return &cpu_dev;
}

/* ---- shared helpers ---- */

int dev_fail(struct dev *d, int status, const char *fmt, ...)
{
    if (d->status != CV_OK) return d->status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, sizeof d->err, fmt, ap);
    va_end(ap);
    d->status = status;
    return status;
}

int dev_status(const struct dev *d, char *err, size_t errlen)
{
    if (d->status == CV_OK) return CV_OK;
    return cv_err(err, errlen, d->status, "%s", d->err);
}

void dev_init_weight_cols(struct dev *d, uint64_t seed, int layer, int dim, int c0, int ncols,
                          float *w)
{
    if (d->host_mem) {
        mlp_init_weight_cols(seed, layer, dim, c0, ncols, w);
        return;
    }
    size_t n = (size_t)dim * ncols;
    float *tmp = xmalloc((n ? n : 1) * sizeof(float));
    mlp_init_weight_cols(seed, layer, dim, c0, ncols, tmp);
    d->ops->upload(d, w, tmp, n);
    free(tmp);
}

void dev_init_data_rows(struct dev *d, uint64_t seed, int batch, int dim, int row0, int nrows,
                        float *x)
{
    if (d->host_mem && row0 == 0 && nrows == batch) {
        mlp_init_data(seed, batch, dim, x);
        return;
    }
    /* Every rank draws the same whole batch and keeps its rows (data[row0:row0+nrows]). */
    float *data = mlp_alloc((size_t)batch * dim);
    mlp_init_data(seed, batch, dim, data);
    d->ops->upload(d, x, data + (size_t)row0 * dim, (size_t)nrows * dim);
    free(data);
}

const float *dev_host_view(struct dev *d, const float *p, size_t n)
{
    if (d->host_mem) return p;
    float *h = xcalloc(n ? n : 1, sizeof(float));
    d->ops->download(d, h, p, n);
    return h;
}

void dev_host_view_done(struct dev *d, const float *view, const float *p)
{
    if (view != p) free((void *)view);
    (void)d;
}
