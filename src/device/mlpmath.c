/* mlpmath.c - the lecture MLP's inputs and arithmetic on the host (mlpmath.h): the
 * generator, weights and data, GELU, the matmul (OpenBLAS when built with it), a layer
 * forward and backward, the loss gradient, AdamW. */
#include "device/mlpmath.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/rng.h"
#include "core/util.h"

#ifdef HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void mlp_rng_seed(struct mlp_rng *r, uint64_t seed, uint64_t stream)
{
    /* Streams start far apart in splitmix64's sequence; splitmix64 mixes its counter
     * well enough that neighbouring starting points give unrelated outputs. */
    r->state = seed ^ (0x9E3779B97F4A7C15ull * (stream + 1));
    r->has_spare = false;
    r->spare = 0;
}

uint64_t mlp_rng_next(struct mlp_rng *r)
{
    return rng_splitmix64(&r->state);
}

double mlp_rng_normal(struct mlp_rng *r)
{
    if (r->has_spare) {
        r->has_spare = false;
        return r->spare;
    }
    /* u1 in (0, 1] so log(u1) is finite; u2 in [0, 1). */
    double u1 = 1.0 - (double)(mlp_rng_next(r) >> 11) * 0x1.0p-53;
    double u2 = (double)(mlp_rng_next(r) >> 11) * 0x1.0p-53;
    double rad = sqrt(-2.0 * log(u1));
    double th = 2.0 * M_PI * u2;
    r->spare = rad * sin(th);
    r->has_spare = true;
    return rad * cos(th);
}

static void init_weight_cols_drawn(uint64_t seed, int layer, int dim, int c0, int ncols,
                                   float *w)
{
    struct mlp_rng r;
    mlp_rng_seed(&r, seed, (uint64_t)layer);
    double scale = 1.0 / sqrt((double)dim);
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++) {
            double v = mlp_rng_normal(&r) * scale;
            if (j >= c0 && j < c0 + ncols) w[(size_t)i * ncols + (j - c0)] = (float)v;
        }
}

/* Starting weights kept for the next draw of the same matrix: every rank of a data-parallel
 * or ZeRO run and the single-device reference it is compared with start from the same D×D
 * matrices, and drawing one (D² normals, a log and a sincos a pair) cost more than the step
 * it starts at the lecture's D = 1024. Whole matrices of MLP_INIT_KEEP_MIN bytes and more,
 * MLP_INIT_KEEP_BYTES together at most, MLP_INIT_HOLD_BYTES while a hold is open (the least
 * recently used leave first); each is allocated only when mem_check says it fits and no
 * ulimit -v or -d is set, so what is kept is counted like any other allocation, and a draw
 * that cannot keep its matrix draws as before. Under a mutex: ranks are threads, and the ones
 * asking for a matrix another is drawing wait for it. */
struct init_kept {
    uint64_t seed, stream, used;
    int dim;
    float *w; /* dim × dim; NULL: a free slot */
};
static struct init_kept init_kept[256];
static size_t init_kept_bytes;
static int init_kept_holds;
static uint64_t init_kept_clock;
static pthread_mutex_t init_kept_mu = PTHREAD_MUTEX_INITIALIZER;

static void init_kept_evict(struct init_kept *k)
{
    init_kept_bytes -= (size_t)k->dim * k->dim * sizeof(float);
    free(k->w);
    k->w = NULL;
}

/* Under ulimit -v (or -d) nothing is kept: the run has checked its own buffers and the
 * ones OpenBLAS maps later without asking (train_config_check) against that limit, and a
 * kept copy must not take their room; drawing again costs only time. */
static bool init_kept_limited(void)
{
    struct rlimit as, data;
    return getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur != RLIM_INFINITY ||
           getrlimit(RLIMIT_DATA, &data) != 0 || data.rlim_cur != RLIM_INFINITY;
}

static struct init_kept *init_kept_oldest(void)
{
    struct init_kept *old = NULL;
    for (size_t i = 0; i < ARRAY_LEN(init_kept); i++)
        if (init_kept[i].w && (!old || init_kept[i].used < old->used)) old = &init_kept[i];
    return old;
}

/* The kept matrix (seed, layer, dim), drawn and kept if it can be; NULL if it cannot. */
static const float *init_kept_get(uint64_t seed, int layer, int dim)
{
    size_t bytes = (size_t)dim * dim * sizeof(float);
    size_t cap = init_kept_holds ? MLP_INIT_HOLD_BYTES : MLP_INIT_KEEP_BYTES;
    if (bytes < MLP_INIT_KEEP_MIN || bytes > cap) return NULL;
    struct init_kept *free_slot = NULL;
    for (size_t i = 0; i < ARRAY_LEN(init_kept); i++) {
        struct init_kept *k = &init_kept[i];
        if (!k->w) {
            if (!free_slot) free_slot = k;
        } else if (k->seed == seed && k->stream == (uint64_t)layer && k->dim == dim) {
            k->used = ++init_kept_clock;
            return k->w;
        }
    }
    while (!free_slot || init_kept_bytes + bytes > cap) {
        struct init_kept *old = init_kept_oldest();
        if (!old) return NULL; /* not reached: a full cache has a slot in use */
        init_kept_evict(old);
        if (!free_slot) free_slot = old;
    }
    char err[200];
    if (init_kept_limited() ||
        mem_check((double)bytes, err, sizeof err, "starting weights %dx%d", dim, dim) != CV_OK)
        return NULL;
    float *w = malloc(bytes);
    if (!w) return NULL;
    init_weight_cols_drawn(seed, layer, dim, 0, dim, w);
    *free_slot = (struct init_kept){seed, (uint64_t)layer, ++init_kept_clock, dim, w};
    init_kept_bytes += bytes;
    return w;
}

size_t mlp_init_kept_bytes(void)
{
    pthread_mutex_lock(&init_kept_mu);
    size_t n = init_kept_bytes;
    pthread_mutex_unlock(&init_kept_mu);
    return n;
}

void mlp_init_keep_hold(bool open)
{
    pthread_mutex_lock(&init_kept_mu);
    init_kept_holds += open ? 1 : -1;
    while (!init_kept_holds && init_kept_bytes > MLP_INIT_KEEP_BYTES)
        init_kept_evict(init_kept_oldest());
    pthread_mutex_unlock(&init_kept_mu);
}

void mlp_init_kept_drop(void)
{
    pthread_mutex_lock(&init_kept_mu);
    for (size_t i = 0; i < ARRAY_LEN(init_kept); i++)
        if (init_kept[i].w) init_kept_evict(&init_kept[i]);
    pthread_mutex_unlock(&init_kept_mu);
}

void mlp_init_weight_cols(uint64_t seed, int layer, int dim, int c0, int ncols, float *w)
{
    pthread_mutex_lock(&init_kept_mu);
    const float *k = init_kept_get(seed, layer, dim);
    if (k)
        for (int i = 0; i < dim; i++)
            memcpy(w + (size_t)i * ncols, k + (size_t)i * dim + c0, (size_t)ncols * sizeof *w);
    pthread_mutex_unlock(&init_kept_mu);
    if (!k) init_weight_cols_drawn(seed, layer, dim, c0, ncols, w);
}

void mlp_init_weights(uint64_t seed, int layer, int dim, float *w)
{
    mlp_init_weight_cols(seed, layer, dim, 0, dim, w);
}

void mlp_init_data(uint64_t seed, int batch, int dim, float *x)
{
    struct mlp_rng r;
    mlp_rng_seed(&r, seed, MLP_STREAM_DATA);
    for (size_t i = 0; i < (size_t)batch * dim; i++)
        x[i] = (float)mlp_rng_normal(&r);
}

/* erf(z/√2) is shared by gelu and its derivative; both functions below and the fused
 * layer loop use exactly these expressions, so they agree bitwise. */
static float gelu_erf(float z)
{
    return erff(z * (float)M_SQRT1_2);
}

static float gelu_from_erf(float z, float e)
{
    return 0.5f * z * (1.0f + e);
}

static float gelu_grad_from_erf(float z, float e)
{
    float cdf = 0.5f * (1.0f + e);
    float pdf = expf(-0.5f * z * z) * (float)(0.5 * M_2_SQRTPI * M_SQRT1_2); /* 1/sqrt(2π) */
    return cdf + z * pdf;
}

float mlp_gelu(float z)
{
    return gelu_from_erf(z, gelu_erf(z));
}

float mlp_gelu_grad(float z)
{
    return gelu_grad_from_erf(z, gelu_erf(z));
}

void mlp_gemm(bool ta, bool tb, int m, int n, int k, const float *a, int lda, const float *b,
              int ldb, float beta, float *c, int ldc)
{
#ifdef HAVE_OPENBLAS
    if (beta == 0.0f && ldc == n && (size_t)m * n * sizeof(float) >= (1u << 20)) {
        floats_zero_stream(c, (size_t)m * n);
        beta = 1.0f;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                m, n, k, 1.0f, a, lda, b, ldb, beta, c, ldc);
#else
    /* Row of C at a time: C[i,:] = beta C[i,:] + sum_p A(i,p) B(p,:), which streams rows of
     * B when B is not transposed (the common case) and vectorises the inner loop. */
    for (int i = 0; i < m; i++) {
        float *ci = c + (size_t)i * ldc;
        if (beta == 0.0f)
            memset(ci, 0, (size_t)n * sizeof(float));
        else if (beta != 1.0f)
            for (int j = 0; j < n; j++)
                ci[j] *= beta;
        for (int p = 0; p < k; p++) {
            float aip = ta ? a[(size_t)p * lda + i] : a[(size_t)i * lda + p];
            if (!tb) {
                const float *bp = b + (size_t)p * ldb;
                for (int j = 0; j < n; j++)
                    ci[j] += aip * bp[j];
            } else {
                for (int j = 0; j < n; j++)
                    ci[j] += aip * b[(size_t)j * ldb + p];
            }
        }
    }
#endif
}

void mlp_layer_forward(int n, int din, int dout, const float *x, const float *w, int ldw,
                       float *gz, float *a, int lda)
{
    mlp_gemm(false, false, n, dout, din, x, din, w, ldw, 0.0f, gz, dout);
    for (int i = 0; i < n; i++) {
        float *gi = gz + (size_t)i * dout;
        float *ai = a + (size_t)i * lda;
        for (int j = 0; j < dout; j++) {
            float z = gi[j], e = gelu_erf(z);
            ai[j] = gelu_from_erf(z, e);
            gi[j] = gelu_grad_from_erf(z, e);
        }
    }
}

void mlp_layer_backward(int n, int din, int dout, const float *x, const float *w,
                        const float *gz, const float *da, int ldda, float *dz, float *gw,
                        float gw_beta, float *dx)
{
    for (int i = 0; i < n; i++) {
        const float *gi = gz + (size_t)i * dout, *dai = da + (size_t)i * ldda;
        float *dzi = dz + (size_t)i * dout;
        for (int j = 0; j < dout; j++)
            dzi[j] = dai[j] * gi[j];
    }
    mlp_gemm(true, false, din, dout, n, x, din, dz, dout, gw_beta, gw, dout);
    if (dx) mlp_gemm(false, true, n, din, dout, dz, dout, w, dout, 0.0f, dx, din);
}

double mlp_loss_grad(const float *x, size_t n, double norm, float *dx)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += (double)x[i] * x[i];
    if (dx) {
        float scale = (float)(2.0 / norm);
        for (size_t i = 0; i < n; i++)
            dx[i] = scale * x[i];
    }
    return s;
}

void adamw_default(struct adamw_cfg *c)
{
    c->lr = 1e-3f;
    c->beta1 = 0.9f;
    c->beta2 = 0.999f;
    c->eps = 1e-8f;
    c->weight_decay = 0.01f;
}

void mlp_adamw(const struct adamw_cfg *c, int t, float *restrict p, const float *restrict g,
               float *restrict m, float *restrict v, size_t n)
{
    double bc1 = 1.0 - pow((double)c->beta1, t);
    double bc2 = 1.0 - pow((double)c->beta2, t);
    const float decay = 1.0f - c->lr * c->weight_decay;
    const float step_size = (float)(c->lr / bc1);
    const float inv_bc2_sqrt = (float)(1.0 / sqrt(bc2));
    const float b1 = c->beta1, b2 = c->beta2, ob1 = 1.0f - c->beta1, ob2 = 1.0f - c->beta2;
    const float eps = c->eps;
    size_t i = 0;
#ifdef __SSE2__
    /* AdamW streams 7 floats per parameter and is bound by memory bandwidth once it is
     * vectorised; gcc will not vectorise the scalar loop itself because sqrtf may set
     * errno. Same operations in the same order as the scalar loop, so same results. */
    const __m128 vb1 = _mm_set1_ps(b1), vb2 = _mm_set1_ps(b2), vob1 = _mm_set1_ps(ob1),
                 vob2 = _mm_set1_ps(ob2), vinv = _mm_set1_ps(inv_bc2_sqrt),
                 veps = _mm_set1_ps(eps), vdecay = _mm_set1_ps(decay),
                 vstep = _mm_set1_ps(step_size);
    for (; i + 4 <= n; i += 4) {
        __m128 gi = _mm_loadu_ps(g + i);
        __m128 mi = _mm_add_ps(_mm_mul_ps(vb1, _mm_loadu_ps(m + i)), _mm_mul_ps(vob1, gi));
        __m128 vi = _mm_add_ps(_mm_mul_ps(vb2, _mm_loadu_ps(v + i)),
                               _mm_mul_ps(_mm_mul_ps(vob2, gi), gi));
        _mm_storeu_ps(m + i, mi);
        _mm_storeu_ps(v + i, vi);
        __m128 den = _mm_add_ps(_mm_mul_ps(_mm_sqrt_ps(vi), vinv), veps);
        __m128 pi = _mm_sub_ps(_mm_mul_ps(_mm_loadu_ps(p + i), vdecay),
                               _mm_div_ps(_mm_mul_ps(vstep, mi), den));
        _mm_storeu_ps(p + i, pi);
    }
#endif
    for (; i < n; i++) {
        float gi = g[i];
        float mi = b1 * m[i] + ob1 * gi;
        float vi = b2 * v[i] + ob2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        float denom = sqrtf(vi) * inv_bc2_sqrt + eps;
        p[i] = p[i] * decay - step_size * mi / denom;
    }
}

/* Through huge_alloc (as the CPU communicator's buffers): AdamW and the weight matrices
 * stream through tens of MiB per rank each step, and with 4 KiB pages the TLB misses
 * cost. Measured at the lecture's scale on the 2-core VM, 6 interleaved rounds: the DDP
 * step 100.8 -> 92.7 ms (CPU 197 -> 180 ms), one device's 104.3 -> 101.9 ms. */
float *mlp_alloc(size_t n)
{
    size_t bytes = (n ? n : 1) * sizeof(float);
    float *p = huge_alloc(bytes);
    if (!p) p = xmalloc(bytes); /* dies with the out-of-memory message */
    memset(p, 0, bytes);
    return p;
}

#ifdef HAVE_OPENBLAS
/* Can a mapping fail here: a limit on the address space or the data (ulimit -v, -d), or
 * the kernel's strict overcommit (vm.overcommit_memory 2)? */
static bool maps_can_fail(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) return true;
    if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) return true;
    FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
    int mode = 0;
    if (f) {
        if (fscanf(f, "%d", &mode) != 1) mode = 0;
        fclose(f);
    }
    return mode == 2;
}
#endif

/* OpenBLAS starts its thread pool in its constructor, before main(), sized by the
 * OPENBLAS_NUM_THREADS it reads there (so neither setenv nor openblas_set_num_threads in
 * main can stop it); each pool thread maps a 128 MiB buffer as it starts, and one that
 * cannot (under ulimit -v) retries for ever while exit() waits for it: any command, even
 * --version, then hangs at exit. collviz runs every sgemm on the calling thread
 * (mlp_blas_threads(1)), so the pool is never used: where a mapping can fail, a process that
 * finds the variable other than 1 sets it and executes itself again before it has done
 * anything. Elsewhere the idle pool costs nothing worth a second start (~35 ms). */
void mlp_blas_no_pool(char **argv)
{
#ifdef HAVE_OPENBLAS
    const char *v = getenv("OPENBLAS_NUM_THREADS");
    if ((v && strcmp(v, "1") == 0) || !maps_can_fail()) return;
    if (setenv("OPENBLAS_NUM_THREADS", "1", 1) != 0) return;
    execv("/proc/self/exe", argv);
    /* No /proc: carry on with the pool that is running (as OpenBLAS would). */
#else
    (void)argv;
#endif
}

/* OpenBLAS's BUFFER_SIZE, 32 << 22 in its x86_64 builds (common_x86_64.h): each thread's
 * first sgemm maps 131072 KiB here (OpenBLAS 0.3.21, measured through VmSize). Builds for
 * other processors use less, so this errs on the side of refusing. */
size_t mlp_blas_buffer_bytes(void)
{
#ifdef HAVE_OPENBLAS
    return (size_t)32 << 22;
#else
    return 0;
#endif
}

void mlp_blas_threads(int n)
{
#ifdef HAVE_OPENBLAS
    openblas_set_num_threads(n < 1 ? 1 : n);
#else
    (void)n;
#endif
}
