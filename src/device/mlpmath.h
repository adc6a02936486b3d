/* mlpmath.h - the lecture MLP's inputs and arithmetic on the host, fp32 and row-major.
 *
 * Deterministic inputs: weights are randn/sqrt(D) and data randn, from our own generator
 * (splitmix64 + Box-Muller) seeded per (seed, stream), so any rank can generate exactly the
 * layers or rows it needs and every scheme starts from the same numbers.
 *
 * Arithmetic: exact-erf GELU, the matmul (OpenBLAS's cblas_sgemm when HAVE_OPENBLAS is defined,
 * else a plain C loop), one layer forward and backward, the loss mean(x²) and its gradient,
 * AdamW. The CPU device (dev.c) runs these; the CUDA device (dev_cuda.c) mirrors them on the
 * GPU, and the reference trainer (parallel/mlp.h) and the schemes call them through the device.
 */
#ifndef COLLVIZ_DEVICE_MLPMATH_H
#define COLLVIZ_DEVICE_MLPMATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mlp_rng {
    uint64_t state;
    bool has_spare;
    double spare;
};

/* Stream ids: layer l uses stream l; the data uses MLP_STREAM_DATA. */
#define MLP_STREAM_DATA 0xDA7Au

void mlp_rng_seed(struct mlp_rng *r, uint64_t seed, uint64_t stream);
uint64_t mlp_rng_next(struct mlp_rng *r); /* splitmix64 */
double mlp_rng_normal(struct mlp_rng *r); /* Box-Muller, mean 0, variance 1 */

/* Layer l's full D×D weights: randn/sqrt(D), row-major (row = input feature). */
void mlp_init_weights(uint64_t seed, int layer, int dim, float *w);
/* Columns [c0, c0+ncols) of layer l's weights, as a D×ncols row-major matrix (a tensor-
 * parallel shard): exactly the same numbers as mlp_init_weights. */
void mlp_init_weight_cols(uint64_t seed, int layer, int dim, int c0, int ncols, float *w);
/* Whole matrices of MLP_INIT_KEEP_MIN bytes and more are kept once drawn, up to
 * MLP_INIT_KEEP_BYTES together (each allocation passing mem_check first; none under ulimit
 * -v or -d), and copied to
 * the next rank or run that asks for them: the same numbers, drawn once. Between
 * mlp_init_keep_hold(true) and (false) (a run and its reference: holds nest, from any
 * thread) up to MLP_INIT_HOLD_BYTES, a mixture of experts' every expert; the last close
 * frees down to MLP_INIT_KEEP_BYTES. */
#define MLP_INIT_KEEP_BYTES ((size_t)16 << 20)  /* 4 layers of the lecture's D = 1024 */
#define MLP_INIT_HOLD_BYTES ((size_t)256 << 20) /* its 4 blocks of 8 experts and more */
#define MLP_INIT_KEEP_MIN ((size_t)64 << 10)    /* D = 128: draws below cost little */
void mlp_init_keep_hold(bool open);
size_t mlp_init_kept_bytes(void); /* the bytes kept now */
void mlp_init_kept_drop(void);    /* frees every kept matrix */
/* The B×D input batch, randn. */
void mlp_init_data(uint64_t seed, int batch, int dim, float *x);

/* Exact-erf GELU as PyTorch's default: 0.5 z (1 + erf(z/√2)). */
float mlp_gelu(float z);
/* d gelu / dz = Φ(z) + z φ(z). */
float mlp_gelu_grad(float z);

/* C = op(A) op(B) + beta C, row-major; op transposes when ta/tb. C is m×n, k the inner
 * dimension; lda/ldb/ldc are row strides. */
void mlp_gemm(bool ta, bool tb, int m, int n, int k, const float *a, int lda, const float *b,
              int ldb, float beta, float *c, int ldc);

/* One layer forward: z = x @ w (x: n×din, w: din×dout with row stride ldw), a = gelu(z)
 * with row stride lda. What backward needs of z is only gelu'(z), so that is what is kept:
 * on return gz (n×dout) holds gelu'(z), computed in the same pass as gelu(z) so the
 * erf is evaluated once per element. */
void mlp_layer_forward(int n, int din, int dout, const float *x, const float *w, int ldw,
                       float *gz, float *a, int lda);
/* One layer backward: dz = da ⊙ gz (gz = gelu'(z) from forward; da has row stride ldda);
 * gw = x^T dz + gw_beta·gw (din×dout); dx = dz w^T (n×din) when dx is not NULL (dx may
 * be da: da is read before dx is written). */
void mlp_layer_backward(int n, int din, int dout, const float *x, const float *w,
                        const float *gz, const float *da, int ldda, float *dz, float *gw,
                        float gw_beta, float *dx);

/* Sum of squares of x (double accumulation); when dx is not NULL also dx = 2x/norm,
 * the gradient of sum(x²)/norm. */
double mlp_loss_grad(const float *x, size_t n, double norm, float *dx);

struct adamw_cfg {
    float lr, beta1, beta2, eps, weight_decay;
};
/* PyTorch's torch.optim.AdamW defaults with lr 1e-3: betas (0.9, 0.999), eps 1e-8,
 * weight_decay 0.01. */
void adamw_default(struct adamw_cfg *c);
/* One AdamW step number t (1-based) over n parameters, in PyTorch's order of operations:
 * p *= 1 - lr·wd; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g²;
 * p -= lr/(1-b1^t) · m / (sqrt(v)/sqrt(1-b2^t) + eps). */
void mlp_adamw(const struct adamw_cfg *c, int t, float *p, const float *g, float *m, float *v,
               size_t n);

/* n floats, zeroed by writing them now: the page faults of a fresh allocation land in the
 * caller (a rank's setup, in the rank's own thread) instead of the first timed step. */
float *mlp_alloc(size_t n);

/* Called first in main(): where a mapping can fail (ulimit -v or -d, strict overcommit),
 * makes sure OpenBLAS started no thread pool in this process (OPENBLAS_NUM_THREADS=1,
 * executing the program again with it when it was not so; argv is main's). No-op without
 * OpenBLAS. */
void mlp_blas_no_pool(char **argv);

/* The address space one thread's sgemm maps the first time it runs one (OpenBLAS's work
 * buffer, kept for the process's life; 0 without OpenBLAS). A thread whose buffer does not
 * fit under ulimit -v retries the mapping for ever, so what a run's threads need is checked
 * first (train_config_check). */
size_t mlp_blas_buffer_bytes(void);

/* Tell OpenBLAS how many threads each sgemm may use (1 when several rank threads run);
 * no-op without OpenBLAS. */
void mlp_blas_threads(int n);

#endif
