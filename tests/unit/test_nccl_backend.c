/* test_nccl_backend.c - the NCCL backend as the rest of the program sees it, through
 * backend_open("nccl").
 *
 * Built with HAVE_NCCL, what it checks depends on the machine, decided by asking CUDA
 * directly (cudaGetDeviceCount) rather than trusting the backend:
 *   - no usable GPU: backend_open must fail with CV_EUNAVAIL and a message that names the
 *     very CUDA error cudaGetDeviceCount returned; "auto" must fall back to the CPU and
 *     say why;
 *   - a GPU: all-reduce on one rank at measurement scale with #wrong == 0, the display-scale
 *     run equal to the trace, the two-ranks-on-one-GPU refusal, and the info text.
 * Built without it (the ASan build, a machine without CUDA): "nccl" must not be listed and
 * opening it must say it was not built. The version and GPU-name helpers are checked
 * whenever nccl_backend.c is compiled in. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend/backend.h"
#include "backend/run.h"
#include "core/init.h"
#include "core/plan.h"
#include "core/trace.h"
#include "core/util.h"

#ifdef HAVE_NCCL
#include <cuda_runtime_api.h>

#include "backend/nccl/nccl_info.h"
#endif

static bool names_list(const char *want)
{
    for (const char *const *n = backend_names(); *n; n++)
        if (strcmp(*n, want) == 0) return true;
    return false;
}

#ifdef HAVE_NCCL

static void test_version_string(void **state)
{
    (void)state;
    char buf[24];
    nccl_version_string(22809, buf, sizeof buf);
    assert_string_equal(buf, "2.28.9");
    nccl_version_string(21803, buf, sizeof buf);
    assert_string_equal(buf, "2.18.3");
    nccl_version_string(2804, buf, sizeof buf); /* the encoding used up to 2.8 */
    assert_string_equal(buf, "2.8.4");
}

static void test_short_name(void **state)
{
    (void)state;
    char buf[32];
    nccl_gpu_short_name("NVIDIA H200", buf, sizeof buf);
    assert_string_equal(buf, "H200");
    nccl_gpu_short_name("NVIDIA H100 80GB HBM3", buf, sizeof buf);
    assert_string_equal(buf, "H100");
    nccl_gpu_short_name("NVIDIA A100-SXM4-80GB", buf, sizeof buf);
    assert_string_equal(buf, "A100");
    nccl_gpu_short_name("Tesla V100-SXM2-32GB", buf, sizeof buf);
    assert_string_equal(buf, "V100");
    nccl_gpu_short_name("NVIDIA GeForce RTX 4090", buf, sizeof buf);
    assert_string_equal(buf, "RTX 4090");
    nccl_gpu_short_name("NVIDIA RTX A6000", buf, sizeof buf);
    assert_string_equal(buf, "RTX A6000");
    nccl_gpu_short_name("NVIDIA H100 PCIe", buf, sizeof buf);
    assert_string_equal(buf, "H100");
    char tiny[4];
    nccl_gpu_short_name("NVIDIA H200", tiny, sizeof tiny);
    assert_string_equal(tiny, "H20");
}

/* How many GPUs CUDA itself reports (0 when it cannot run at all), and its error. */
static int cuda_gpus(cudaError_t *e)
{
    int n = 0;
    *e = cudaGetDeviceCount(&n);
    return *e == cudaSuccess ? n : 0;
}

static void test_unavailable_without_gpu(void **state)
{
    (void)state;
    cudaError_t e;
    if (cuda_gpus(&e) > 0) skip(); /* a GPU machine: test_gpu_* below cover it */
    assert_true(names_list("nccl"));
    struct backend *b = (struct backend *)0x1;
    char err[300] = "", why[300] = "";
    int rc = backend_open("nccl", &b, err, sizeof err, NULL, 0);
    assert_int_equal(rc, CV_EUNAVAIL);
    assert_null(b);
    assert_non_null(strcasestr(err, "cuda"));
    if (e != cudaSuccess) /* the message names CUDA's own error */
        assert_non_null(strstr(err, cudaGetErrorName(e)));
    assert_null(strchr(err, '\n'));

    /* auto: the CPU, with the reason NCCL was passed over. */
    rc = backend_open("auto", &b, err, sizeof err, why, sizeof why);
    assert_int_equal(rc, CV_OK);
    assert_string_equal(b->ops->name, "cpu");
    assert_non_null(strstr(why, "nccl"));
    backend_close(b);
}

/* One GPU is enough for W = 1: a real NCCL all-reduce (a copy through NCCL's kernels),
 * checked on the GPU. */
static void test_gpu_measure_one_rank(void **state)
{
    (void)state;
    cudaError_t e;
    int ngpu = cuda_gpus(&e);
    if (ngpu < 1) skip();
    struct backend *b = NULL;
    char err[300] = "";
    assert_int_equal(backend_open("nccl", &b, err, sizeof err, NULL, 0), CV_OK);
    assert_int_equal(b->ops->max_ranks(b), ngpu < CV_MAX_RANKS ? ngpu : CV_MAX_RANKS);

    for (int op = 0; op < OP_COUNT; op++) {
        struct bench_params p = {.coll = COLL_ALL_REDUCE,
                                 .op = (enum redop)op,
                                 .nranks = 1,
                                 .bytes = (size_t)1 << 20,
                                 .iters = 5,
                                 .warmup = 2,
                                 .check = true,
                                 .timeout_s = 30};
        struct bench_result r;
        int rc = backend_measure(b, &p, &r, NULL, err, sizeof err);
        if (rc != CV_OK) fail_msg("measure: %s", err);
        assert_int_equal(r.wrong, 0);
        assert_int_equal(r.count, ((size_t)1 << 20) / 4);
        assert_true(r.time_us > 0);
        assert_non_null(strstr(r.how, "1 GPU, nccl's own collective"));
        assert_memory_equal(r.algo, "nccl", 4);
    }

    /* Two ranks per GPU are refused, naming the GPU count. */
    struct bench_params p = {.coll = COLL_ALL_REDUCE,
                             .nranks = ngpu + 1,
                             .bytes = 1024,
                             .iters = 1,
                             .check = true,
                             .timeout_s = 30};
    struct bench_result r;
    if (ngpu < CV_MAX_RANKS) {
        assert_int_equal(backend_measure(b, &p, &r, NULL, err, sizeof err), CV_EINVAL);
        assert_non_null(strstr(err, "the nccl backend runs 1.."));
    }

    char info[4096];
    assert_true(nccl_backend_info(b, info, sizeof info) > 0);
    assert_non_null(strstr(info, "GPU 0: "));
    assert_non_null(strstr(info, "NCCL "));
    char line[200];
    b->ops->describe(b, 1, line, sizeof line);
    assert_non_null(strstr(line, "1 rank = 1 \u00d7 "));
    b->ops->rank_label(b, 0, line, sizeof line);
    assert_memory_equal(line, "GPU 0 \u00b7 ", strlen("GPU 0 \u00b7 "));
    backend_close(b);
}

/* Display scale on one rank: NCCL's output equals the trace's for every collective. */
static void test_gpu_run_small_one_rank(void **state)
{
    (void)state;
    cudaError_t e;
    if (cuda_gpus(&e) < 1) skip();
    struct backend *b = NULL;
    char err[300] = "";
    assert_int_equal(backend_open("nccl", &b, err, sizeof err, NULL, 0), CV_OK);
    for (int c = 0; c < COLL_COUNT; c++) {
        struct plan pl;
        assert_int_equal(plan_build(&pl, (enum coll)c, coll_default_algo((enum coll)c), OP_SUM,
                                    1, 5, 0, err, sizeof err),
                         CV_OK);
        float send[5], got[5], want[5];
        init_fill(INIT_SEQ, (enum coll)c, 1, 5, 0, 1, 0, send);
        float *sp[1] = {send}, *gp[1] = {got};
        struct trace t;
        assert_int_equal(trace_run(&t, &pl, sp, err, sizeof err), CV_OK);
        trace_output(&t, 0, want);
        trace_free(&t);
        int rc = backend_run_small(b, &pl, sp, gp, err, sizeof err);
        if (rc != CV_OK) fail_msg("%s: %s", coll_name((enum coll)c), err);
        assert_memory_equal(got, want, sizeof want);
        plan_free(&pl);
    }
    backend_close(b);
}

#else /* !HAVE_NCCL */

static void test_not_built(void **state)
{
    (void)state;
    assert_false(names_list("nccl"));
    assert_true(names_list("cpu"));
    struct backend *b = NULL;
    char err[200] = "";
    assert_int_equal(backend_open("nccl", &b, err, sizeof err, NULL, 0), CV_EUNAVAIL);
    assert_null(b);
    assert_non_null(strstr(err, "not built"));
}

#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifdef HAVE_NCCL
        cmocka_unit_test(test_version_string),
        cmocka_unit_test(test_short_name),
        cmocka_unit_test(test_unavailable_without_gpu),
        cmocka_unit_test(test_gpu_measure_one_rank),
        cmocka_unit_test(test_gpu_run_small_one_rank),
#else
        cmocka_unit_test(test_not_built),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
