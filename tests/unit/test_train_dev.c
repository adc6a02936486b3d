/* test_train_dev.c - the device table the schemes call (device/dev.h) and the backend
 * choice of the training driver: the CPU device's operations equal the mlp.h functions
 * bit for bit, errors are sticky and keep the first message, GPU tolerances are chosen by
 * the run's backend, and training with backend nccl either fails cleanly with the CUDA
 * reason (this machine: no GPU; or a build without HAVE_NCCL) or, where GPUs exist,
 * agrees with the CPU reference. The GPU code itself is exercised by tests/gpu/run.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "device/dev.h"
#include "parallel/mlp.h"
#include "parallel/probe.h"
#include "parallel/train.h"
#ifdef HAVE_NCCL
#include "device/dev_cuda.h"
#endif

static void small_config(struct train_config *c, enum train_scheme s, int w)
{
    train_config_default(c);
    c->scheme = s;
    c->nranks = w;
    c->layers = 3;
    c->dim = 8;
    c->batch = 8;
    c->steps = 2;
    c->microbatches = 2;
}

/* Every CPU operation is the mlp.h call it replaced: compare bytes. */
static void test_cpu_ops_bitwise(void **state)
{
    (void)state;
    struct dev *d = dev_cpu();
    assert_true(d->host_mem);
    assert_string_equal(d->ops->name, "cpu");
    enum { N = 5, DIN = 7, DOUT = 6 };
    float x[N * DIN], w[DIN * DOUT];
    mlp_init_data(3, N, DIN, x);
    mlp_init_weight_cols(4, 0, DIN, 0, DOUT, w);

    float gz1[N * DOUT], a1[N * DOUT], gz2[N * DOUT], a2[N * DOUT];
    mlp_layer_forward(N, DIN, DOUT, x, w, DOUT, gz1, a1, DOUT);
    dev_layer_forward(d, N, DIN, DOUT, x, w, DOUT, gz2, a2, DOUT);
    assert_memory_equal(gz1, gz2, sizeof gz1);
    assert_memory_equal(a1, a2, sizeof a1);

    float dz1[N * DOUT], dz2[N * DOUT], gw1[DIN * DOUT], gw2[DIN * DOUT], dx1[N * DIN],
        dx2[N * DIN];
    mlp_layer_backward(N, DIN, DOUT, x, w, gz1, a1, DOUT, dz1, gw1, 0.0f, dx1);
    dev_layer_backward(d, N, DIN, DOUT, x, w, gz2, a2, DOUT, dz2, gw2, 0.0f, dx2);
    assert_memory_equal(dz1, dz2, sizeof dz1);
    assert_memory_equal(gw1, gw2, sizeof gw1);
    assert_memory_equal(dx1, dx2, sizeof dx1);

    /* The gradient alone (sumsq NULL) is the same float product as mlp_loss_grad's. */
    float g1[N * DIN], g2[N * DIN];
    double s1 = mlp_loss_grad(x, N * DIN, 35.0, g1), s2 = -1;
    dev_loss_grad(d, x, N * DIN, 35.0, g2, NULL);
    assert_memory_equal(g1, g2, sizeof g1);
    dev_loss_grad(d, x, N * DIN, 35.0, NULL, &s2);
    assert_memory_equal(&s1, &s2, sizeof s1);
    assert_true(s1 > 0);

    /* copy_rows: the 2 x 3 block at row 1, column 2 of x into a 4-wide matrix. */
    float blk[2 * 4];
    memset(blk, 0, sizeof blk);
    dev_copy_rows(d, blk + 1, 4, x + 1 * DIN + 2, DIN, 2, 3);
    for (int i = 0; i < 2; i++) {
        assert_true(blk[i * 4] == 0.0f);
        for (int j = 0; j < 3; j++)
            assert_true(blk[i * 4 + 1 + j] == x[(1 + i) * DIN + 2 + j]);
    }

    /* AdamW through the table equals mlp_adamw. */
    struct adamw_cfg ac;
    adamw_default(&ac);
    float p1[N * DIN], p2[N * DIN], m1[N * DIN] = {0}, m2[N * DIN] = {0}, v1[N * DIN] = {0},
                                           v2[N * DIN] = {0};
    memcpy(p1, x, sizeof p1);
    memcpy(p2, x, sizeof p2);
    mlp_adamw(&ac, 1, p1, g1, m1, v1, N * DIN);
    dev_adamw(d, &ac, 1, p2, g1, m2, v2, N * DIN);
    assert_memory_equal(p1, p2, sizeof p1);
    assert_memory_equal(v1, v2, sizeof v1);
    assert_int_equal(d->status, CV_OK);
}

static void test_init_helpers(void **state)
{
    (void)state;
    struct dev *d = dev_cpu();
    enum { B = 6, D = 5 };
    float all[B * D], rows[2 * D], cols[D * 2], full[D * D];
    mlp_init_data(9, B, D, all);
    dev_init_data_rows(d, 9, B, D, 3, 2, rows);
    assert_memory_equal(rows, all + 3 * D, sizeof rows);
    float again[B * D];
    dev_init_data_rows(d, 9, B, D, 0, B, again);
    assert_memory_equal(again, all, sizeof all);
    mlp_init_weights(9, 2, D, full);
    dev_init_weight_cols(d, 9, 2, D, 1, 2, cols);
    for (int i = 0; i < D; i++)
        for (int j = 0; j < 2; j++)
            assert_true(cols[i * 2 + j] == full[i * D + 1 + j]);
    /* On host memory the view is the buffer itself. */
    const float *v = dev_host_view(d, full, D * D);
    assert_ptr_equal(v, full);
    dev_host_view_done(d, v, full);
}

static void test_sticky_error(void **state)
{
    (void)state;
    struct dev d = *dev_cpu(); /* a private copy: the shared one must stay clean */
    char err[64] = "";
    assert_int_equal(dev_status(&d, err, sizeof err), CV_OK);
    assert_int_equal(dev_fail(&d, CV_EBACKEND, "first %d", 1), CV_EBACKEND);
    assert_int_equal(dev_fail(&d, CV_ETIMEOUT, "second"), CV_EBACKEND);
    assert_int_equal(dev_status(&d, err, sizeof err), CV_EBACKEND);
    assert_string_equal(err, "first 1");
    assert_int_equal(dev_cpu()->status, CV_OK);
}

/* The tolerances follow the run's backend: a deviation of 5e-5 in one weight is beyond
 * the CPU bound (1e-5) and within the GPU one (1e-4). */
static void test_tolerance_by_backend(void **state)
{
    (void)state;
    struct train_config c, rc;
    small_config(&c, TRAIN_DDP, 2);
    rc = c;
    rc.scheme = TRAIN_SINGLE;
    rc.nranks = 1;
    struct train_result a, ref;
    char err[200];
    assert_int_equal(train_run(&c, &a, NULL, err, sizeof err), CV_OK);
    assert_int_equal(train_run(&rc, &ref, NULL, err, sizeof err), CV_OK);
    struct train_deviation d;
    train_compare(&a, &ref, &d);
    assert_true(d.within);
    assert_true(d.tol_loss_rel == TRAIN_TOL_LOSS_REL);
    assert_true(d.tol_param_abs == TRAIN_TOL_PARAM_ABS);
    a.params[3] = ref.params[3] + 5e-5f;
    train_compare(&a, &ref, &d);
    assert_false(d.within);
    assert_true(d.param_abs > 4e-5 && d.param_abs < 6e-5);
    a.cfg.backend = BACKEND_NCCL;
    train_compare(&a, &ref, &d);
    assert_true(d.tol_loss_rel == TRAIN_TOL_GPU_LOSS_REL);
    assert_true(d.tol_param_abs == TRAIN_TOL_GPU_PARAM_ABS);
    assert_true(d.within);
    train_result_free(&a);
    train_result_free(&ref);
}

static void test_backend_refusals(void **state)
{
    (void)state;
    struct train_config c;
    char err[200] = "";
    small_config(&c, TRAIN_SINGLE, 1);
    c.backend = BACKEND_NCCL;
    assert_int_equal(train_config_check(&c, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "CPU reference"));
    c.backend = (enum backend_kind)7;
    c.scheme = TRAIN_DDP;
    assert_int_equal(train_config_check(&c, err, sizeof err), CV_EINVAL);
    assert_string_equal(backend_kind_name(BACKEND_NCCL), "nccl");
    assert_string_equal(backend_kind_name(BACKEND_CPU), "cpu");

    /* The display-scale probe reads host memory: never on GPUs. */
    small_config(&c, TRAIN_DDP, 2);
    c.backend = BACKEND_NCCL;
    struct train_probe *p = probe_new(0);
    struct train_result r;
    assert_int_equal(train_run_probe(&c, p, &r, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "probe"));
    probe_free(p);
}

/* Without a usable GPU (this machine: the CUDA driver is missing) backend nccl fails with
 * CV_EUNAVAIL and the CUDA reason, allocating nothing; with GPUs it trains and agrees with
 * the CPU reference within the GPU tolerances. */
static void test_nccl_backend(void **state)
{
    (void)state;
    struct train_config c;
    small_config(&c, TRAIN_DDP, 1);
    c.backend = BACKEND_NCCL;
    struct train_result r;
    char err[300] = "";
    int rc = train_run(&c, &r, NULL, err, sizeof err);
#ifdef HAVE_NCCL
    char why[300] = "";
    int n = dev_cuda_count(why, sizeof why);
    if (n < 1) {
        assert_int_equal(rc, CV_EUNAVAIL);
        assert_string_equal(err, why);
        assert_non_null(strstr(err, "cuda"));
        assert_null(r.params);
        return;
    }
    assert_int_equal(rc, CV_OK);
    struct train_config rc_cfg = c;
    rc_cfg.scheme = TRAIN_SINGLE;
    rc_cfg.backend = BACKEND_CPU;
    struct train_result ref;
    assert_int_equal(train_run(&rc_cfg, &ref, NULL, err, sizeof err), CV_OK);
    struct train_deviation d;
    train_compare(&r, &ref, &d);
    if (!d.within) fail_msg("ddp on 1 GPU: loss rel %g param abs %g", d.loss_rel, d.param_abs);
    train_result_free(&ref);
    train_result_free(&r);
#else
    assert_int_equal(rc, CV_EUNAVAIL);
    assert_non_null(strstr(err, "not built"));
    assert_null(r.params);
#endif
}

/* cuBLAS is opened on first use, not linked (dev_cuda.c): the library opens and every call
 * the device makes resolves, GPU or not; a second call answers the same. */
#ifdef HAVE_NCCL
static void test_cublas_opens(void **state)
{
    (void)state;
    char err[300] = "";
    if (!dev_cuda_blas_load(err, sizeof err)) fail_msg("cuBLAS: %s", err);
    assert_true(dev_cuda_blas_load(NULL, 0));
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpu_ops_bitwise),  cmocka_unit_test(test_init_helpers),
        cmocka_unit_test(test_sticky_error),     cmocka_unit_test(test_tolerance_by_backend),
        cmocka_unit_test(test_backend_refusals), cmocka_unit_test(test_nccl_backend),
#ifdef HAVE_NCCL
        cmocka_unit_test(test_cublas_opens),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
