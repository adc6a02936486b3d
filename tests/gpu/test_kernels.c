/* test_kernels.c - every kernel in kernels/ against its host reference (kernels/ref.h), on
 * GPU 0. Run by tests/gpu/run.sh on a machine with a GPU; prints one line per check and
 * exits non-zero if any failed.
 *
 * What "equal" means, kernel by kernel:
 *   fill pattern, count-wrong's notion of the expected value, mse gradient: bit-identical
 *     (integer arithmetic, one IEEE division or multiplication: no room to differ); the
 *     pattern's expected values come from the tests' own oracle
 *     (tests/oracle/pattern_oracle.h), not from the formula the kernels share with core;
 *   GELU, its derivative, AdamW: within 4 float ulps-worth (2e-6 relative), since the
 *     device's erff/expf may differ from glibc's by an ulp or two and nvcc contracts a*b+c
 *     into FMAs where gcc does not;
 *   the loss: 1e-6 relative (the kernel sums in a different, fixed order, in double). */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "kernels/kernels.h"
#include "kernels/ref.h"
#include "core/coll.h"
#include "core/init.h"
#include "../oracle/pattern_oracle.h"

static int failures, checks;

static void check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(bool ok, const char *fmt, ...)
{
    va_list ap;
    checks++;
    if (ok) return;
    failures++;
    fputs("FAIL: ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
}

#define CK(call)                                                                               \
    do {                                                                                       \
        cudaError_t e_ = (cudaError_t)(call);                                                  \
        if (e_ != cudaSuccess) {                                                               \
            printf("FAIL: %s: %s (%s) at %s:%d\n", #call, cudaGetErrorName(e_),                \
                   cudaGetErrorString(e_), __FILE__, __LINE__);                                \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

static float *dev_alloc(size_t n)
{
    void *p = NULL;
    CK(cudaMalloc(&p, (n ? n : 1) * sizeof(float)));
    return p;
}

static void to_dev(float *d, const float *h, size_t n)
{
    CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
}

static void to_host(float *h, const float *d, size_t n)
{
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* Largest |a - b| / max(1, |b|) over n elements (inf if any NaN). */
static double max_rel(const float *a, const float *b, size_t n)
{
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]) / fmax(1.0, fabs((double)b[i]));
        if (isnan(d)) return INFINITY;
        if (d > worst) worst = d;
    }
    return worst;
}

/* Deterministic inputs in [lo, hi]. */
static void fill_uniform(float *x, size_t n, float lo, float hi, unsigned seed)
{
    unsigned long long s = 0x9e3779b97f4a7c15ull ^ seed;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = lo + (hi - lo) * (float)((s >> 40) & 0xffffff) / (float)0xffffff;
    }
}

static void test_fill(void)
{
    static const size_t sizes[] = {1, 1000, ((size_t)1 << 22) + 3};
    for (size_t si = 0; si < 3; si++) {
        size_t n = sizes[si];
        float *d = dev_alloc(n), *h = malloc(n * sizeof *h), *want = malloc(n * sizeof *want);
        for (int op = 0; op < OP_COUNT; op++)
            for (int rank = 0; rank < CV_MAX_RANKS; rank += 5) {
                CK(kernel_fill_pattern(d, n, op, rank, 0));
                CK(cudaDeviceSynchronize());
                to_host(h, d, n);
                /* Against the tests' oracle, which shares no code with the kernels. */
                size_t bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad +=
                        memcmp(&h[i], &(float){oracle_value(op, rank, i)}, sizeof(float)) != 0;
                kernel_ref_fill_pattern(want, n, op, rank);
                check(bad == 0 && memcmp(h, want, n * sizeof *h) == 0,
                      "fill_pattern n=%zu op=%s rank=%d: %zu elements differ", n,
                      redop_name((enum redop)op), rank, bad);
            }
        cudaFree(d);
        free(h);
        free(want);
    }
}

/* Upload the oracle's receive buffer (tests/oracle/pattern_oracle.h: the collective done
 * on real buffers): the kernel must find 0 wrong (so its device formula is right bit for
 * bit, tol = 0 even for avg); then break k elements (one of them NaN) and it must find
 * exactly k. */
static void test_count_wrong(void)
{
    unsigned long long *wd = NULL, w = 0;
    CK(cudaMalloc((void **)&wd, sizeof *wd));
    static const size_t counts[] = {1, 7, 100003};
    for (int c = 0; c < COLL_COUNT; c++)
        for (int op = 0; op < OP_COUNT; op++)
            for (int nr = 1; nr <= 8; nr++)
                for (size_t ci = 0; ci < 3; ci++) {
                    size_t count = counts[ci];
                    if (count > 7 && nr != 3 && nr != 8)
                        continue; /* the big buffer at two world sizes is enough */
                    int root = nr - 1, rank = nr / 2;
                    struct kernel_pattern q = {.coll = c,
                                               .op = op,
                                               .nranks = nr,
                                               .root = root,
                                               .rank = rank,
                                               .count = count};
                    float *out[CV_MAX_RANKS];
                    size_t nrecv[CV_MAX_RANKS];
                    for (int r = 0; r < nr; r++)
                        out[r] = malloc((size_t)nr * count * sizeof(float));
                    oracle_collective(c, op, nr, count, root, out, nrecv);
                    size_t n = nrecv[rank];
                    check(n == coll_recv_count((enum coll)c, nr, count, rank, root),
                          "recv count %s W=%d count=%zu: %zu, oracle %zu",
                          coll_name((enum coll)c), nr, count,
                          coll_recv_count((enum coll)c, nr, count, rank, root), n);
                    float *h = NULL, *d = NULL;
                    if (n > 0) {
                        h = malloc(n * sizeof *h);
                        d = dev_alloc(n);
                        memcpy(h, out[rank], n * sizeof *h);
                    }
                    for (int r = 0; r < nr; r++)
                        free(out[r]);
                    if (n == 0) continue;
                    to_dev(d, h, n);
                    CK(kernel_count_wrong(d, n, q, 0.0f, wd, 0));
                    CK(cudaMemcpy(&w, wd, sizeof w, cudaMemcpyDeviceToHost));
                    check(w == 0,
                          "count_wrong %s %s W=%d count=%zu: %llu wrong on a correct buffer",
                          coll_name((enum coll)c), redop_name((enum redop)op), nr, count, w);
                    unsigned long long k = n >= 3 ? 3 : 1;
                    h[0] = NAN;
                    if (k == 3) {
                        h[n / 2] += 1.0f;
                        h[n - 1] = -h[n - 1] - 100.0f;
                    }
                    to_dev(d, h, n);
                    CK(kernel_count_wrong(d, n, q, 0.0f, wd, 0));
                    CK(cudaMemcpy(&w, wd, sizeof w, cudaMemcpyDeviceToHost));
                    check(w == k && w == kernel_ref_count_wrong(h, n, q, 0.0f),
                          "count_wrong %s %s W=%d count=%zu: %llu wrong, %llu broken",
                          coll_name((enum coll)c), redop_name((enum redop)op), nr, count, w, k);
                    cudaFree(d);
                    free(h);
                }
    cudaFree(wd);
}

static void test_gelu(void)
{
    size_t n = 1000003;
    float *x = malloc(n * sizeof *x), *dy = malloc(n * sizeof *dy);
    float *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    fill_uniform(x, n, -8.0f, 8.0f, 1);
    fill_uniform(dy, n, -2.0f, 2.0f, 2);
    float *dx_ = dev_alloc(n), *ddy = dev_alloc(n), *dout = dev_alloc(n);
    to_dev(dx_, x, n);
    to_dev(ddy, dy, n);
    CK(kernel_gelu_forward(dx_, dout, n, 0));
    CK(cudaDeviceSynchronize());
    to_host(got, dout, n);
    kernel_ref_gelu_forward(x, want, n);
    double e = max_rel(got, want, n);
    check(e <= 2e-6, "gelu_forward: max relative error %.3g > 2e-6", e);
    CK(kernel_gelu_backward(dx_, ddy, dout, n, 0));
    CK(cudaDeviceSynchronize());
    to_host(got, dout, n);
    kernel_ref_gelu_backward(x, dy, want, n);
    e = max_rel(got, want, n);
    check(e <= 2e-6, "gelu_backward: max relative error %.3g > 2e-6", e);
    /* In place, as the training step will use it. */
    CK(kernel_gelu_forward(dx_, dx_, n, 0));
    CK(cudaDeviceSynchronize());
    to_host(got, dx_, n);
    kernel_ref_gelu_forward(x, want, n);
    e = max_rel(got, want, n);
    check(e <= 2e-6, "gelu_forward in place: max relative error %.3g", e);
    printf("gelu: forward and backward on %zu elements, max rel. error %.2g\n", n, e);
    cudaFree(dx_);
    cudaFree(ddy);
    cudaFree(dout);
    free(x);
    free(dy);
    free(got);
    free(want);
}

static void test_mse(void)
{
    static const size_t sizes[] = {0, 1, 1023, 128 * 1024 + 5};
    for (size_t si = 0; si < 4; si++) {
        size_t n = sizes[si];
        float *x = malloc((n ? n : 1) * sizeof *x), *got = malloc((n ? n : 1) * sizeof *got);
        float *want = malloc((n ? n : 1) * sizeof *want);
        fill_uniform(x, n, -3.0f, 3.0f, 3);
        float *dx_ = dev_alloc(n), *dg = dev_alloc(n), *dl = dev_alloc(1);
        if (n) to_dev(dx_, x, n);
        double n_mean = n ? (double)n : 1.0;
        float loss = -1.0f, loss2 = -2.0f;
        CK(kernel_mse_loss(dx_, n, n_mean, dl, 0));
        CK(cudaMemcpy(&loss, dl, sizeof loss, cudaMemcpyDeviceToHost));
        CK(kernel_mse_loss(dx_, n, n_mean, dl, 0));
        CK(cudaMemcpy(&loss2, dl, sizeof loss2, cudaMemcpyDeviceToHost));
        float ref = kernel_ref_mse_loss(x, n, n_mean);
        check(fabs(loss - ref) <= 1e-6 * fmax(1.0, fabs(ref)),
              "mse_loss n=%zu: %.9g, host %.9g", n, loss, ref);
        check(memcmp(&loss, &loss2, sizeof loss) == 0, "mse_loss n=%zu not repeatable", n);
        if (n) {
            CK(kernel_mse_grad(dx_, dg, n, n_mean, 0));
            CK(cudaDeviceSynchronize());
            to_host(got, dg, n);
            kernel_ref_mse_grad(x, want, n, n_mean);
            check(memcmp(got, want, n * sizeof *got) == 0, "mse_grad n=%zu differs from host",
                  n);
        }
        cudaFree(dx_);
        cudaFree(dg);
        cudaFree(dl);
        free(x);
        free(got);
        free(want);
    }
}

static void test_adamw(void)
{
    size_t n = 300007;
    struct kernel_adamw h = {
        .lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.999f, .eps = 1e-8f, .weight_decay = 0.01f};
    float *p = malloc(n * sizeof *p), *g = malloc(n * sizeof *g);
    float *m = calloc(n, sizeof *m), *v = calloc(n, sizeof *v), *got = malloc(n * sizeof *got);
    fill_uniform(p, n, -1.0f, 1.0f, 4);
    float *dp = dev_alloc(n), *dg = dev_alloc(n), *dm = dev_alloc(n), *dv = dev_alloc(n);
    to_dev(dp, p, n);
    to_dev(dm, m, n);
    to_dev(dv, v, n);
    for (int step = 1; step <= 3; step++) {
        fill_uniform(g, n, -0.5f, 0.5f, 10 + (unsigned)step);
        to_dev(dg, g, n);
        CK(kernel_adamw_step(dp, dg, dm, dv, n, h, step, 0));
        CK(cudaDeviceSynchronize());
        kernel_ref_adamw_step(p, g, m, v, n, h, step);
        to_host(got, dp, n);
        double ep = max_rel(got, p, n);
        to_host(got, dm, n);
        double em = max_rel(got, m, n);
        to_host(got, dv, n);
        double ev = max_rel(got, v, n);
        check(ep <= 2e-6 && em <= 2e-6 && ev <= 2e-6,
              "adamw step %d: max rel. error p %.3g m %.3g v %.3g (> 2e-6)", step, ep, em, ev);
    }
    check(kernel_adamw_step(dp, dg, dm, dv, n, h, 0, 0) == cudaErrorInvalidValue,
          "adamw step 0 must be refused");
    cudaFree(dp);
    cudaFree(dg);
    cudaFree(dm);
    cudaFree(dv);
    free(p);
    free(g);
    free(m);
    free(v);
    free(got);
}

int main(void)
{
    int ngpu = 0;
    cudaError_t e = cudaGetDeviceCount(&ngpu);
    if (e != cudaSuccess || ngpu < 1) {
        printf("FAIL: no GPU: %s\n", cudaGetErrorName(e));
        return 1;
    }
    CK(cudaSetDevice(0));
    test_fill();
    test_count_wrong();
    test_gelu();
    test_mse();
    test_adamw();
    printf("test_kernels: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
