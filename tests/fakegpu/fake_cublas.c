/* fake_cublas.c - the cuBLAS calls collviz makes, emulated on the host (see fakegpu.h).
 * cublasSgemm is column-major, as cuBLAS documents it: C = alpha op(A) op(B) + beta C with
 * op(A) m x k, op(B) k x n, C m x n, each stored by columns with its leading dimension; a
 * beta of 0 means C is not read (it may hold NaN). alpha and beta are read at the call
 * (host pointer mode); the product runs when the handle's stream gets to it (with OpenBLAS
 * when the build has it, so lecture-scale runs take seconds, else a plain loop). */
#include "fakegpu.h"

#include <stdio.h>
#include <stdlib.h>

#include <cublas_v2.h>
#ifdef HAVE_OPENBLAS
#include <cblas.h>
#endif

struct cublasContext {
    int dev;
    cudaStream_t stream;
};

cublasStatus_t cublasCreate(cublasHandle_t *h)
{
    if (!h) return CUBLAS_STATUS_INVALID_VALUE;
    if (fk_device_count() == 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *c = calloc(1, sizeof *c);
    if (!c) return CUBLAS_STATUS_ALLOC_FAILED;
    c->dev = fk_current_device();
    *h = c;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    free(h);
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode)
{
    return h ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char *cublasGetStatusString(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS:
        return "the operation completed successfully";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "the GPU program failed to execute";
    default:
        return "unknown cuBLAS status";
    }
}

struct fk_gemm {
    bool ta, tb;
    int m, n, k, lda, ldb, ldc;
    float alpha, beta;
    const float *a, *b;
    float *c;
};

static void fk_gemm_run(void *arg)
{
    const struct fk_gemm *g = arg;
#ifdef HAVE_OPENBLAS
    /* The BLAS contract is cuBLAS's: column-major, and with beta 0 C is not read. */
    if (g->k > 0) {
        cblas_sgemm(CblasColMajor, g->ta ? CblasTrans : CblasNoTrans,
                    g->tb ? CblasTrans : CblasNoTrans, g->m, g->n, g->k, g->alpha, g->a, g->lda,
                    g->b, g->ldb, g->beta, g->c, g->ldc);
        return;
    }
#endif
    for (int j = 0; j < g->n; j++)
        for (int i = 0; i < g->m; i++) {
            float s = 0.0f;
            for (int l = 0; l < g->k; l++) {
                float x = g->ta ? g->a[(size_t)i * g->lda + l] : g->a[(size_t)l * g->lda + i];
                float y = g->tb ? g->b[(size_t)l * g->ldb + j] : g->b[(size_t)j * g->ldb + l];
                s += x * y;
            }
            float *c = &g->c[(size_t)j * g->ldc + i];
            *c = g->beta == 0.0f ? g->alpha * s : g->alpha * s + g->beta * *c;
        }
}

/* Bytes a column-major rows x cols matrix with leading dimension ld spans. */
static size_t fk_extent(int rows, int cols, int ld)
{
    return rows && cols ? ((size_t)ld * (size_t)(cols - 1) + (size_t)rows) * sizeof(float) : 0;
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t transa, cublasOperation_t transb,
                           int m, int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc)
{
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
    int arows = ta ? k : m, acols = ta ? m : k, brows = tb ? n : k, bcols = tb ? k : n;
    /* cuBLAS's own argument checks */
    if (m < 0 || n < 0 || k < 0 || lda < (arows > 1 ? arows : 1) ||
        ldb < (brows > 1 ? brows : 1) || ldc < (m > 1 ? m : 1) || !alpha || !beta) {
        fprintf(stderr,
                "fakegpu: cublasSgemm(%c, %c, m=%d, n=%d, k=%d, lda=%d, ldb=%d, ldc=%d): "
                "CUBLAS_STATUS_INVALID_VALUE\n",
                ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, lda, ldb, ldc);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    struct fk_gemm *g = malloc(sizeof *g);
    if (!g) return CUBLAS_STATUS_ALLOC_FAILED;
    *g = (struct fk_gemm){ta, tb, m, n, k, lda, ldb, ldc, *alpha, *beta, A, B, C};
    struct fk_range r[3] = {
        {A, *alpha != 0.0f ? fk_extent(arows, acols, lda) : 0, false},
        {B, *alpha != 0.0f ? fk_extent(brows, bcols, ldb) : 0, false},
        {C, fk_extent(m, n, ldc), true},
    };
    if (fk_current_device() != h->dev)
        fk_die("cublasSgemm with a handle of device %d while device %d is current", h->dev,
               fk_current_device());
    cudaError_t e = fk_launch(h->stream, "cublasSgemm", fk_gemm_run, g, 3, r);
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}
