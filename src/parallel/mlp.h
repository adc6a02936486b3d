/* mlp.h - the lecture's model and its arithmetic, shared by every training scheme and the
 * single-device reference: L layers of D×D weights, x = gelu(x @ W) per layer,
 * loss = mean(x²) over the final activations, AdamW. fp32, row-major.
 *
 * Deterministic inputs: weights are randn/sqrt(D) and data randn, from our own generator
 * (splitmix64 + Box-Muller) seeded per (seed, stream), so any rank can generate exactly the
 * layers or rows it needs and every scheme starts from the same numbers. Matmuls go to
 * OpenBLAS (cblas_sgemm) when HAVE_OPENBLAS is defined, else to a plain C loop. */
#ifndef COLLVIZ_MLP_H
#define COLLVIZ_MLP_H

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

/* Tell OpenBLAS how many threads each sgemm may use (1 when several rank threads run);
 * no-op without OpenBLAS. */
void mlp_blas_threads(int n);

/* The single-device reference trainer: the whole batch, all layers, one thread. */
struct mlp_ref {
    int layers, dim, batch;
    int t;          /* AdamW steps taken */
    float *w, *g;   /* [L][D][D] */
    float *m, *v;   /* AdamW state */
    float *x;       /* [L+1][B][D]: x[0] = data, x[l+1] = gelu(z[l]) */
    float *z;       /* [L][B][D] */
    float *da, *dz; /* [B][D] scratch */
};

void mlp_ref_init(struct mlp_ref *r, int layers, int dim, int batch, uint64_t seed);
/* Called after each phase of a reference step (a layer's forward or backward, AdamW) with
 * its label and monotonic start/end times, so a caller can draw a timeline. */
typedef void (*mlp_phase_fn)(void *ctx, const char *label, double t0, double t1);
/* One training step; returns the loss of its forward pass (before the update). hook may
 * be NULL. */
double mlp_ref_step(struct mlp_ref *r, const struct adamw_cfg *c, mlp_phase_fn hook, void *ctx);
void mlp_ref_free(struct mlp_ref *r);

#endif
