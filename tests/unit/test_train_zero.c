/* test_train_zero.c - ZeRO stages 1-3 (parallel/zero.c) on CPU ranks: equality with the
 * single-device reference at odd shapes (D² not divisible by W, so layers are padded) for
 * W = 2, 3, 4; the engine's count of memory per rank against the model (train_memory_model)
 * and against sizes written out here from the shapes; bytes and elements per step against
 * the ring formulas (stage 3 1.5x DDP); refused configurations; the display-scale probe's
 * frames equal the reference. Sizes are tiny so the file runs in a second. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "parallel/probe.h"
#include "parallel/train.h"

static const enum train_scheme zeros[3] = {TRAIN_ZERO1, TRAIN_ZERO2, TRAIN_ZERO3};

static void cfg_of(struct train_config *c, enum train_scheme s, int W, int L, int D, int B)
{
    train_config_default(c);
    c->scheme = s;
    c->nranks = W;
    c->layers = L;
    c->dim = D;
    c->batch = B;
    c->steps = 3;
    c->seed = 11;
}

static void run_ok(const struct train_config *c, struct train_result *r)
{
    char err[256] = "";
    int rc = train_run(c, r, NULL, err, sizeof err);
    if (rc != CV_OK) fail_msg("%s W=%d: %s", train_scheme_name(c->scheme), c->nranks, err);
}

static void test_zero_equals_one_device(void **state)
{
    (void)state;
    /* D = 7: D² = 49 is prime, so every W pads; L = 3, B = 12 divisible by 2, 3, 4. */
    const int dims[2] = {7, 5};
    for (int di = 0; di < 2; di++)
        for (int W = 2; W <= 4; W++) {
            struct train_config c;
            cfg_of(&c, TRAIN_SINGLE, 1, 3, dims[di], 12);
            struct train_result ref;
            run_ok(&c, &ref);
            for (int z = 0; z < 3; z++) {
                cfg_of(&c, zeros[z], W, 3, dims[di], 12);
                struct train_result r;
                run_ok(&c, &r);
                struct train_deviation d;
                train_compare(&r, &ref, &d);
                if (!d.within)
                    fail_msg("%s W=%d D=%d: loss %g params %g", train_scheme_name(zeros[z]), W,
                             dims[di], d.loss_rel, d.param_abs);
                /* Stages 1, 2 keep replicas: the all-gather hands all ranks the same bytes. */
                assert_true(r.replica_max_diff == 0.0);
                train_result_free(&r);
            }
            train_result_free(&ref);
        }
}

/* The memory per rank, written out from the shapes (not from train_memory_model). */
static void memory_by_hand(enum train_scheme s, int W, int L, int D, int B,
                           struct train_memory *e)
{
    size_t sh = ((size_t)D * D + W - 1) / W, layer = 4 * (size_t)W * sh;
    size_t shards = 4 * (size_t)L * sh, full = (size_t)L * layer;
    size_t acts = 4 * (size_t)(2 * L + 3) * (B / W) * D;
    size_t pad = 4 * ((size_t)W * sh - (size_t)D * D); /* zeros for a layer's padding */
    memset(e, 0, sizeof *e);
    switch (s) {
    case TRAIN_ZERO1:
        *e = (struct train_memory){full, full, 2 * shards, acts + pad, 0};
        break;
    case TRAIN_ZERO2:
        *e = (struct train_memory){full, shards + layer, 2 * shards, acts + pad, 0};
        break;
    case TRAIN_ZERO3:
        *e = (struct train_memory){shards + layer, shards, 2 * shards,
                                   acts + 4 * (size_t)D + pad, 0};
        break;
    default: /* ddp */
        *e = (struct train_memory){4 * (size_t)L * D * D, 4 * (size_t)L * D * D,
                                   8 * (size_t)L * D * D, acts, 0};
        break;
    }
}

static void assert_mem_eq(const struct train_memory *a, const struct train_memory *b)
{
    assert_int_equal(a->params, b->params);
    assert_int_equal(a->grads, b->grads);
    assert_int_equal(a->optimizer, b->optimizer);
    assert_int_equal(a->activations, b->activations);
}

static void test_zero_memory_model_equals_count(void **state)
{
    (void)state;
    const enum train_scheme all[4] = {TRAIN_DDP, TRAIN_ZERO1, TRAIN_ZERO2, TRAIN_ZERO3};
    const int Ws[3] = {2, 3, 4};
    for (int k = 0; k < 4; k++)
        for (int wi = 0; wi < 3; wi++) {
            int W = Ws[wi], L = 2, D = 9, B = 12;
            struct train_config c;
            cfg_of(&c, all[k], W, L, D, B);
            c.steps = 2;
            struct train_result r;
            run_ok(&c, &r);
            struct train_memory ma, mp, e;
            assert_int_equal(train_memory_model(&c, &ma, &mp), CV_OK);
            memory_by_hand(all[k], W, L, D, B, &e);
            assert_mem_eq(&ma, &e);
            assert_mem_eq(&mp, &e);
            for (int rk = 0; rk < W; rk++) {
                assert_mem_eq(&r.mem[rk], &ma);
                assert_mem_eq(&r.mem_peak[rk], &mp);
            }
            train_result_free(&r);
        }
    /* Schemes that are not data parallel have no such model. */
    struct train_config c;
    cfg_of(&c, TRAIN_TP, 2, 2, 4, 4);
    struct train_memory a, p;
    assert_int_equal(train_memory_model(&c, &a, &p), CV_EINVAL);
}

/* The figures at the lecture's scale, W = 4: stage 3 holds 1/W of DDP's
 * weights + gradients + optimizer state plus one gathered layer. */
static void test_zero_memory_lecture_scale(void **state)
{
    (void)state;
    struct train_config c;
    cfg_of(&c, TRAIN_DDP, 4, 4, 1024, 128);
    struct train_memory d, dp, z, zp;
    train_memory_model(&c, &d, &dp);
    c.scheme = TRAIN_ZERO3;
    train_memory_model(&c, &z, &zp);
    size_t psi = 4u * 1024 * 1024;
    assert_int_equal(d.params + d.grads + d.optimizer, 16 * psi);
    assert_int_equal(zp.params + zp.grads + zp.optimizer, 16 * psi / 4 + 4u * 1024 * 1024);
    c.scheme = TRAIN_ZERO1;
    train_memory_model(&c, &z, &zp);
    assert_int_equal(z.params + z.grads + z.optimizer, 8 * psi + 8 * psi / 4);
    c.scheme = TRAIN_ZERO2;
    train_memory_model(&c, &z, &zp);
    assert_int_equal(z.params + z.grads + z.optimizer,
                     4 * psi + 12 * psi / 4 + 4u * 1024 * 1024);
}

static void test_zero_bytes_per_step(void **state)
{
    (void)state;
    for (int W = 2; W <= 4; W++) {
        int L = 3, D = 7, B = 12;
        size_t sh = ((size_t)D * D + W - 1) / W;
        for (int z = 0; z < 3; z++) {
            struct train_config c;
            cfg_of(&c, zeros[z], W, L, D, B);
            struct train_result r;
            run_ok(&c, &r);
            /* Ring: a reduce-scatter and an all-gather of W shards each send (W-1)·s
             * elements per layer; stage 3 gathers twice. */
            size_t ags = z == 2 ? 2 : 1;
            size_t want = (1 + ags) * (size_t)(W - 1) * L * sh * 4;
            assert_int_equal(r.napkin.wire_model_bytes, want);
            for (int s = 0; s < r.steps_done; s++)
                for (int k = 0; k < W; k++)
                    assert_int_equal(r.bytes_sent[(size_t)s * W + k], want);
            /* Elements into the collectives (rank 0, last step): all-gathers' outputs,
             * reduce-scatters' inputs, W·s each per layer. */
            assert_int_equal(r.napkin.all_gather_elems, ags * L * W * sh);
            assert_int_equal(r.napkin.reduce_scatter_elems, (size_t)L * W * sh);
            assert_int_equal(r.napkin.all_reduce_elems, 0);
            train_result_free(&r);
        }
    }
    /* Stage 3 is 1.5x DDP's bytes when W divides D². */
    struct train_config c;
    cfg_of(&c, TRAIN_DDP, 4, 2, 8, 8);
    struct train_result d, z;
    run_ok(&c, &d);
    c.scheme = TRAIN_ZERO3;
    run_ok(&c, &z);
    assert_int_equal(2 * z.napkin.wire_bytes, 3 * d.napkin.wire_bytes);
    train_result_free(&d);
    train_result_free(&z);
}

static void test_zero_refused(void **state)
{
    (void)state;
    struct train_config c;
    cfg_of(&c, TRAIN_ZERO2, 3, 2, 4, 8);
    char err[256];
    assert_int_equal(train_config_check(&c, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--batch 8 is not divisible by --ranks 3"));
    assert_non_null(strstr(err, "zero2"));
    enum train_scheme s;
    assert_int_equal(train_scheme_parse("ZERO3", &s), CV_OK);
    assert_int_equal(s, TRAIN_ZERO3);
    assert_int_equal(train_scheme_parse("zero4", &s), CV_EINVAL);
    assert_int_equal(train_zero_stage(TRAIN_ZERO2), 2);
    assert_int_equal(train_zero_stage(TRAIN_DDP), 0);
}

/* --prefetch: the same numbers and bytes as without, the collectives on the helper lane,
 * a second gathered-layer slot counted and modelled. */
static void test_zero3_prefetch(void **state)
{
    (void)state;
    for (int W = 2; W <= 4; W++) {
        struct train_config c;
        cfg_of(&c, TRAIN_SINGLE, 1, 4, 7, 12);
        struct train_result ref, plain, pf;
        run_ok(&c, &ref);
        cfg_of(&c, TRAIN_ZERO3, W, 4, 7, 12);
        run_ok(&c, &plain);
        c.prefetch = true;
        run_ok(&c, &pf);
        struct train_deviation d;
        train_compare(&pf, &ref, &d);
        assert_true(d.within);
        /* the same arithmetic in the same order: bit for bit the run without prefetch */
        for (int s = 0; s < pf.steps_done; s++)
            assert_true(pf.steps[s].loss == plain.steps[s].loss);
        assert_int_equal(pf.napkin.wire_bytes, plain.napkin.wire_bytes);
        size_t sh = (49 + (size_t)W - 1) / W, layer = 4 * W * sh;
        struct train_memory ma, mp;
        train_memory_model(&c, &ma, &mp);
        assert_int_equal(ma.params, 4 * 4 * sh + 2 * layer);
        for (int k = 0; k < W; k++) {
            assert_mem_eq(&pf.mem[k], &ma);
            assert_mem_eq(&pf.mem_peak[k], &mp);
            assert_int_equal(pf.mem[k].params, plain.mem[k].params + layer);
        }
        /* every collective ran on lane 1; lane 0 only computes and waits */
        size_t lane1 = 0;
        for (size_t i = 0; i < pf.nevents; i++) {
            const struct tl_event *e = &pf.events[i];
            if (e->kind == TL_COLLECTIVE) {
                assert_int_equal(e->lane, 1);
                lane1++;
            }
        }
        assert_int_equal(lane1, (size_t)3 * 4 * W * c.steps); /* 2 AG + 1 RS per layer */
        for (int s = 0; s < pf.steps_done; s++)
            assert_true(pf.steps[s].comm_async_s > 0);
        train_result_free(&ref);
        train_result_free(&plain);
        train_result_free(&pf);
    }
    /* only stage 3 gathers */
    struct train_config c;
    cfg_of(&c, TRAIN_ZERO2, 2, 2, 4, 4);
    c.prefetch = true;
    char err[256];
    assert_int_equal(train_config_check(&c, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--prefetch applies to zero3"));
    cfg_of(&c, TRAIN_ZERO3, 2, 2, 4, 4);
    c.overlap = true;
    assert_int_equal(train_config_check(&c, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--overlap applies to ddp"));
}

/* One rank, one shard: stage 3 is a single device's arithmetic. */
static void test_zero_one_rank(void **state)
{
    (void)state;
    struct train_config c;
    cfg_of(&c, TRAIN_SINGLE, 1, 2, 5, 4);
    struct train_result ref, r;
    run_ok(&c, &ref);
    cfg_of(&c, TRAIN_ZERO3, 1, 2, 5, 4);
    run_ok(&c, &r);
    struct train_deviation d;
    train_compare(&r, &ref, &d);
    assert_true(d.within);
    assert_int_equal(r.napkin.wire_bytes, 0);
    train_result_free(&r);
    train_result_free(&ref);
}

/* The probe's frames: every matrix with a single-device counterpart equals it. */
static void test_zero_probe_frames(void **state)
{
    (void)state;
    for (int z = 0; z < 3; z++)
        for (int W = 2; W <= 4; W++) {
            struct train_config c;
            cfg_of(&c, zeros[z], W, 2, W == 3 ? 6 : 4, 2 * W);
            c.steps = 1;
            struct train_probe *p = probe_new(0);
            struct train_result r;
            char err[256];
            assert_int_equal(train_run_probe(&c, p, &r, NULL, err, sizeof err), CV_OK);
            struct probe_reference ref;
            probe_reference(&c, 0, &ref);
            int colls[COLL_COUNT] = {0}, checked = 0;
            for (size_t i = 0; i < probe_count(p); i++) {
                const struct probe_rec *rec = probe_get(p, i);
                if (rec->kind == PROBE_COLL) colls[rec->coll]++;
                for (int m = 0; m < rec->nmats; m++) {
                    double dev = probe_mat_deviation(&ref, &rec->mats[m]);
                    if (dev < 0) continue;
                    checked++;
                    if (dev > 1e-5)
                        fail_msg("%s W=%d: %s in '%s' off by %g", train_scheme_name(zeros[z]),
                                 W, rec->mats[m].name, rec->label, dev);
                }
            }
            /* Per rank: a reduce-scatter per layer; all-gathers one (stage 3: two) per
             * layer. */
            assert_int_equal(colls[COLL_REDUCE_SCATTER], 2 * W);
            assert_int_equal(colls[COLL_ALL_GATHER], (z == 2 ? 4 : 2) * W);
            assert_int_equal(colls[COLL_ALL_REDUCE], 0);
            assert_true(checked > 10 * W);
            probe_reference_free(&ref);
            train_result_free(&r);
            probe_free(p);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_equals_one_device),
        cmocka_unit_test(test_zero_memory_model_equals_count),
        cmocka_unit_test(test_zero_memory_lecture_scale),
        cmocka_unit_test(test_zero_bytes_per_step),
        cmocka_unit_test(test_zero_refused),
        cmocka_unit_test(test_zero_one_rank),
        cmocka_unit_test(test_zero3_prefetch),
        cmocka_unit_test(test_zero_probe_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
