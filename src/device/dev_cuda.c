/* dev_cuda.c - the GPU device of dev.h (see dev_cuda.h), built only with HAVE_NCCL.
 *
 * NOT YET RUN ON A GPU: written on machines without one. `make test` runs it on emulated
 * devices (tests/fakegpu: cuBLAS's column-major contract, stream order, pointer checks);
 * tests/gpu/run.sh's training section (`make gpu-test`) checks it on GPUs.
 *
 * Matmuls: the schemes' matrices are row-major; cuBLAS is column-major. A row-major m x n
 * matrix is the column-major n x m matrix of the same bytes, so C = op(A) op(B) is
 * computed as C^T = op(B)^T op(A)^T: cublasSgemm(opB, opA, n, m, k, B, A, C) with the
 * same leading dimensions. The handle runs in CUBLAS_PEDANTIC_MATH so fp32 stays fp32
 * (no TF32 tensor cores, no reduced-precision split reductions): results then differ from
 * OpenBLAS only by summation order.
 *
 * Everything is queued on the rank's stream; only download, upload, the loss's sum of
 * squares and sync wait for it (cudaStreamSynchronize: the stream holds only this rank's
 * compute here - NCCL calls are waited for, with deadlines, inside nccl_comm.c).
 *
 * cuBLAS is opened on the first device's creation (dlopen), not linked: loading it runs
 * libcublasLt's initialisers, about half a second of CPU at every start of the program,
 * whatever the command and whether or not there is a GPU. The emulation build
 * (tests/fakegpu) links its own cuBLAS instead, and the same table points at it. */
#include "device/dev_cuda.h"

#ifdef HAVE_NCCL

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#ifdef CV_CUBLAS_DLOPEN
#include <dlfcn.h>
#endif

#include "kernels/kernels.h"
#include "core/util.h"

struct cuda_dev {
    struct dev pub;
    int gpu;
    cudaStream_t stream;
    cublasHandle_t blas;
    double *sumsq_dev; /* one double on the GPU: the loss's sum of squares */
    bool wedged;
};

/* The cuBLAS calls made here (cublas_v2.h names them cublasCreate_v2 and so on: the names
 * looked up are those the macros expand to). */
static struct {
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const float *, const float *, int, const float *, int,
                            const float *, float *, int);
    const char *(*status_string)(cublasStatus_t);
    bool ok;
    char err[256];
} blas;
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;

#define CV_STR_(x) #x
#define CV_STR(x) CV_STR_(x)

#ifdef CV_CUBLAS_DLOPEN
#define BLAS_LIB "libcublas.so." CV_STR(CUBLAS_VER_MAJOR)
/* One entry of the table from the opened library; false (and blas.err) when it lacks it. */
static bool blas_sym(void *lib, void *field, size_t size, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        snprintf(blas.err, sizeof blas.err, "%s has no %s", BLAS_LIB, name);
        return false;
    }
    memcpy(field, &p, size);
    return true;
}
#define BLAS_SET(field, fn) blas_sym(lib, &blas.field, sizeof blas.field, CV_STR(fn))
#else
#define BLAS_SET(field, fn) (blas.field = fn, true)
#endif

static void blas_open(void)
{
#ifdef CV_CUBLAS_DLOPEN
    void *lib = dlopen(BLAS_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(blas.err, sizeof blas.err, "cannot open %s: %s", BLAS_LIB, dlerror());
        return;
    }
#endif
    blas.ok = BLAS_SET(create, cublasCreate) && BLAS_SET(destroy, cublasDestroy) &&
              BLAS_SET(set_stream, cublasSetStream) &&
              BLAS_SET(set_math_mode, cublasSetMathMode) && BLAS_SET(sgemm, cublasSgemm) &&
              BLAS_SET(status_string, cublasGetStatusString);
}

bool dev_cuda_blas_load(char *err, size_t errlen)
{
    pthread_once(&blas_once, blas_open);
    if (!blas.ok && err && errlen) snprintf(err, errlen, "%s", blas.err);
    return blas.ok;
}

static struct cuda_dev *to_cd(struct dev *d)
{
    return (struct cuda_dev *)d;
}

/* Record a failed CUDA call (first error only); true when it failed. */
static bool cuda_failed(struct dev *d, cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return false;
    dev_fail(d, CV_EBACKEND, "%s on GPU %d: %s (%s)", what, to_cd(d)->gpu, cudaGetErrorName(e),
             cudaGetErrorString(e));
    return true;
}

static bool blas_failed(struct dev *d, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS) return false;
    dev_fail(d, CV_EBACKEND, "%s on GPU %d: %s", what, to_cd(d)->gpu, blas.status_string(s));
    return true;
}

/* Every operation starts here: nothing after the first error, and the rank's GPU selected
 * (the driver thread also calls download and free, for params() and cleanup()). */
static bool cuda_enter(struct dev *d)
{
    if (d->status != CV_OK) return false;
    return !cuda_failed(d, cudaSetDevice(to_cd(d)->gpu), "cudaSetDevice");
}

static float *cuda_alloc(struct dev *d, size_t n)
{
    if (!cuda_enter(d)) return NULL;
    void *p = NULL;
    size_t bytes = (n ? n : 1) * sizeof(float);
    if (cuda_failed(d, cudaMalloc(&p, bytes), "cudaMalloc")) return NULL;
    if (cuda_failed(d, cudaMemsetAsync(p, 0, bytes, to_cd(d)->stream), "cudaMemsetAsync")) {
        cudaFree(p);
        return NULL;
    }
    return p;
}

static void cuda_free(struct dev *d, float *p)
{
    struct cuda_dev *cd = to_cd(d);
    /* Freed even after an error, unless kernels may still be running (wedged). */
    if (!p || cd->wedged || cudaSetDevice(cd->gpu) != cudaSuccess) return;
    cudaFree(p);
}

static void cuda_copy_sync(struct dev *d, float *dst, const float *src, size_t n,
                           enum cudaMemcpyKind kind, const char *what)
{
    if (!cuda_enter(d) || n == 0) return;
    struct cuda_dev *cd = to_cd(d);
    if (cuda_failed(d, cudaMemcpyAsync(dst, src, n * sizeof(float), kind, cd->stream), what))
        return;
    cuda_failed(d, cudaStreamSynchronize(cd->stream), what);
}

static void cuda_upload(struct dev *d, float *dst, const float *src, size_t n)
{
    cuda_copy_sync(d, dst, src, n, cudaMemcpyHostToDevice, "upload");
}

static void cuda_download(struct dev *d, float *dst, const float *src, size_t n)
{
    cuda_copy_sync(d, dst, src, n, cudaMemcpyDeviceToHost, "download");
}

static void cuda_copy_rows(struct dev *d, float *dst, int ldd, const float *src, int lds,
                           int rows, int cols)
{
    if (!cuda_enter(d) || rows == 0 || cols == 0) return;
    cuda_failed(d,
                cudaMemcpy2DAsync(dst, (size_t)ldd * sizeof(float), src,
                                  (size_t)lds * sizeof(float), (size_t)cols * sizeof(float),
                                  (size_t)rows, cudaMemcpyDeviceToDevice, to_cd(d)->stream),
                "cudaMemcpy2DAsync");
}

static void cuda_gemm(struct dev *d, bool ta, bool tb, int m, int n, int k, const float *a,
                      int lda, const float *b, int ldb, float beta, float *c, int ldc)
{
    if (!cuda_enter(d) || m == 0 || n == 0) return;
    const float one = 1.0f;
    /* Row-major C (m x n) = op(A) op(B)  <=>  column-major C^T = op(B)^T op(A)^T. */
    blas_failed(d,
                blas.sgemm(to_cd(d)->blas, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                           ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one, b, ldb, a, lda, &beta,
                           c, ldc),
                "cublasSgemm");
}

static void cuda_layer_forward(struct dev *d, int n, int din, int dout, const float *x,
                               const float *w, int ldw, float *gz, float *a, int lda)
{
    cuda_gemm(d, false, false, n, dout, din, x, din, w, ldw, 0.0f, gz, dout);
    if (!cuda_enter(d)) return;
    cuda_failed(d, kernel_gelu_fwd_keep_grad(gz, a, n, dout, lda, to_cd(d)->stream),
                "gelu forward kernel");
}

static void cuda_layer_backward(struct dev *d, int n, int din, int dout, const float *x,
                                const float *w, const float *gz, const float *da, int ldda,
                                float *dz, float *gw, float gw_beta, float *dx)
{
    if (!cuda_enter(d)) return;
    /* Stream order: da is read here before dx (which may be da) is written below. */
    if (cuda_failed(d, kernel_mul_rows(da, ldda, gz, dz, n, dout, to_cd(d)->stream),
                    "gelu backward kernel"))
        return;
    cuda_gemm(d, true, false, din, dout, n, x, din, dz, dout, gw_beta, gw, dout);
    if (dx) cuda_gemm(d, false, true, n, din, dout, dz, dout, w, dout, 0.0f, dx, din);
}

static void cuda_loss_grad(struct dev *d, const float *x, size_t n, double norm, float *dx,
                           double *sumsq)
{
    if (!cuda_enter(d)) return;
    struct cuda_dev *cd = to_cd(d);
    /* The sum first: dx may be x. */
    if (sumsq &&
        cuda_failed(d, kernel_sumsq(x, n, cd->sumsq_dev, cd->stream), "sum-of-squares kernel"))
        return;
    if (dx &&
        cuda_failed(d, kernel_mse_grad(x, dx, n, norm, cd->stream), "loss gradient kernel"))
        return;
    if (!sumsq) return;
    double h = 0;
    if (cuda_failed(
            d, cudaMemcpyAsync(&h, cd->sumsq_dev, sizeof h, cudaMemcpyDeviceToHost, cd->stream),
            "loss download"))
        return;
    if (cuda_failed(d, cudaStreamSynchronize(cd->stream), "loss download")) return;
    *sumsq = h;
}

static void cuda_adamw(struct dev *d, const struct adamw_cfg *c, int t, float *p,
                       const float *g, float *m, float *v, size_t n)
{
    if (!cuda_enter(d)) return;
    struct kernel_adamw h = {c->lr, c->beta1, c->beta2, c->eps, c->weight_decay};
    cuda_failed(d, kernel_adamw_step(p, g, m, v, n, h, t, to_cd(d)->stream), "AdamW kernel");
}

static void cuda_sync(struct dev *d)
{
    if (!cuda_enter(d)) return;
    cuda_failed(d, cudaStreamSynchronize(to_cd(d)->stream), "cudaStreamSynchronize");
}

static void cuda_destroy(struct dev *d)
{
    struct cuda_dev *cd = to_cd(d);
    if (!cd) return;
    if (!cd->wedged && cudaSetDevice(cd->gpu) == cudaSuccess) {
        if (cd->sumsq_dev) cudaFree(cd->sumsq_dev);
        if (cd->blas) blas.destroy(cd->blas);
        if (cd->stream) cudaStreamDestroy(cd->stream);
    }
    free(cd);
}

static const struct dev_ops cuda_ops = {
    .name = "cuda",
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .copy_rows = cuda_copy_rows,
    .gemm = cuda_gemm,
    .layer_forward = cuda_layer_forward,
    .layer_backward = cuda_layer_backward,
    .loss_grad = cuda_loss_grad,
    .adamw = cuda_adamw,
    .sync = cuda_sync,
    .destroy = cuda_destroy,
};

int dev_cuda_create(struct dev **out, int gpu, char *err, size_t errlen)
{
    *out = NULL;
    struct cuda_dev *cd = xcalloc(1, sizeof *cd);
    cd->pub.ops = &cuda_ops;
    cd->pub.host_mem = false;
    cd->pub.status = CV_OK;
    cd->pub.priv = cd;
    cd->gpu = gpu;
    struct dev *d = &cd->pub;
    cublasStatus_t bs;
    if (cuda_failed(d, cudaSetDevice(gpu), "cudaSetDevice") ||
        cuda_failed(d, cudaStreamCreateWithFlags(&cd->stream, cudaStreamNonBlocking),
                    "cudaStreamCreateWithFlags") ||
        cuda_failed(d, cudaMalloc((void **)&cd->sumsq_dev, sizeof(double)), "cudaMalloc"))
        goto fail;
    char why[256];
    if (!dev_cuda_blas_load(why, sizeof why)) {
        dev_fail(d, CV_EBACKEND, "cuBLAS for GPU %d: %s", gpu, why);
        goto fail;
    }
    bs = blas.create(&cd->blas);
    if (blas_failed(d, bs, "cublasCreate")) {
        cd->blas = NULL;
        goto fail;
    }
    /* fp32 stays fp32: no TF32 tensor cores (CUBLAS_DEFAULT_MATH already avoids them unless
     * NVIDIA_TF32_OVERRIDE says otherwise; pedantic also rules out reduced-precision
     * reductions), so only the summation order differs from the CPU reference. */
    if (blas_failed(d, blas.set_math_mode(cd->blas, CUBLAS_PEDANTIC_MATH),
                    "cublasSetMathMode") ||
        blas_failed(d, blas.set_stream(cd->blas, cd->stream), "cublasSetStream"))
        goto fail;
    *out = d;
    return CV_OK;
fail:;
    int rc = cv_err(err, errlen, CV_EUNAVAIL, "%s", d->err);
    cuda_destroy(d);
    return rc;
}

int dev_cuda_gpu(const struct dev *d)
{
    return ((const struct cuda_dev *)d)->gpu;
}

cudaStream_t dev_cuda_stream(const struct dev *d)
{
    return ((const struct cuda_dev *)d)->stream;
}

void dev_cuda_mark_wedged(struct dev *d)
{
    to_cd(d)->wedged = true;
}

int dev_cuda_count(char *err, size_t errlen)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess)
        return -cv_err(err, errlen, CV_EUNAVAIL, "no usable GPU: %s (%s)", cudaGetErrorName(e),
                       cudaGetErrorString(e));
    if (n < 1)
        return -cv_err(err, errlen, CV_EUNAVAIL,
                       "no usable GPU: cudaGetDeviceCount found none");
    return n;
}

#endif
