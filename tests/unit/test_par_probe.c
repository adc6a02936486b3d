/* test_par_probe.c - the display-scale probe inside the training engine (parallel/probe.h):
 * what every rank holds at each stage of a step, recorded from the real schemes. Tensor
 * parallel: after each forward all-gather every rank holds the full activation, equal to
 * the single-device forward. DDP: after each all-reduce every rank holds the same
 * gradient, the mean of the ranks' inputs and the single-device gradient. Pipeline:
 * stage s+1 receives exactly what stage s sent, in both directions, at the ticks of the
 * unit-time schedule. Sizes are tiny; the whole file runs in well under a second. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "parallel/probe.h"
#include "parallel/train.h"

static struct train_config cfg_of(enum train_scheme s, int W, int L, int D, int B)
{
    struct train_config c;
    train_config_default(&c);
    c.scheme = s;
    c.nranks = W;
    c.layers = L;
    c.dim = D;
    c.batch = B;
    c.steps = 1;
    c.timeout_s = 10;
    return c;
}

static struct train_probe *run_probe(const struct train_config *c)
{
    struct train_probe *p = probe_new(0);
    struct train_result res;
    char err[200];
    int rc = train_run_probe(c, p, &res, NULL, err, sizeof err);
    if (rc != CV_OK) print_error("%s\n", err);
    assert_int_equal(rc, CV_OK);
    train_result_free(&res);
    assert_false(probe_overflowed(p));
    assert_true(probe_count(p) > 0);
    return p;
}

static const struct probe_mat *mat_named(const struct probe_rec *r, const char *name)
{
    for (int i = 0; i < r->nmats; i++)
        if (strcmp(r->mats[i].name, name) == 0) return &r->mats[i];
    return NULL;
}

/* SPMD schemes: every tick has exactly one record per rank, all of the same kind and
 * layer, and the records come sorted by (tick, rank). */
static void assert_lockstep(const struct train_probe *p, int W)
{
    size_t n = probe_count(p);
    assert_int_equal(n % (size_t)W, 0);
    assert_int_equal((int)(n / (size_t)W), probe_nticks(p));
    for (size_t i = 0; i < n; i++) {
        const struct probe_rec *r = probe_get(p, i);
        assert_int_equal(r->tick, (int)(i / (size_t)W));
        assert_int_equal(r->rank, (int)(i % (size_t)W));
        const struct probe_rec *r0 = probe_get(p, i - i % (size_t)W);
        assert_int_equal(r->kind, r0->kind);
        assert_int_equal(r->layer, r0->layer);
    }
}

static void test_tp_all_gather_gives_full_activation(void **state)
{
    (void)state;
    struct train_config c = cfg_of(TRAIN_TP, 2, 2, 4, 4);
    struct train_probe *p = run_probe(&c);
    assert_lockstep(p, 2);
    struct probe_reference ref;
    probe_reference(&c, 0, &ref);
    int gathers = 0, scatters = 0;
    for (size_t i = 0; i < probe_count(p); i++) {
        const struct probe_rec *r = probe_get(p, i);
        if (r->kind != PROBE_COLL) continue;
        if (r->coll == COLL_REDUCE_SCATTER) {
            scatters++;
            /* rank r keeps columns [2r, 2r+2) of dx_l, the single-device input gradient */
            const struct probe_mat *m = &r->mats[2];
            assert_int_equal(m->ref, PROBE_REF_DX);
            assert_int_equal(m->c0, 2 * r->rank);
            double dev = probe_mat_deviation(&ref, m);
            assert_true(dev >= 0 && dev < 1e-6);
            continue;
        }
        assert_int_equal(r->coll, COLL_ALL_GATHER);
        gathers++;
        int l = r->layer;
        char nm[16];
        snprintf(nm, sizeof nm, "x%d", l + 1);
        const struct probe_mat *x = mat_named(r, nm);
        assert_non_null(x);
        assert_int_equal(x->rows, 4);
        assert_int_equal(x->cols, 4);
        /* The full activation, column for column the single-device forward. */
        for (int k = 0; k < 16; k++)
            assert_float_equal(x->v[k], ref.x[(size_t)(l + 1) * 16 + k], 1e-6);
        assert_true(probe_mat_deviation(&ref, x) < 1e-6);
        /* The raw all-gather output holds piece k = rank k's columns. */
        const struct probe_mat *out = &r->mats[1];
        assert_int_equal(out->cols, 2 * 8);
        for (int k = 0; k < 2; k++)
            for (int row = 0; row < 4; row++)
                for (int j = 0; j < 2; j++)
                    assert_true(out->v[k * 8 + row * 2 + j] == x->v[row * 4 + k * 2 + j]);
        /* Both ranks hold the very same bytes. */
        const struct probe_rec *other = probe_get(p, r->rank == 0 ? i + 1 : i - 1);
        assert_memory_equal(mat_named(other, nm)->v, x->v, 16 * sizeof(float));
    }
    assert_int_equal(gathers, 2 * 2);  /* 2 layers x 2 ranks */
    assert_int_equal(scatters, 1 * 2); /* layer 1 only: the data needs no gradient */
    probe_reference_free(&ref);
    probe_free(p);
}

static void test_ddp_all_reduce_equalises_gradients(void **state)
{
    (void)state;
    struct train_config c = cfg_of(TRAIN_DDP, 2, 2, 4, 4);
    struct train_probe *p = run_probe(&c);
    assert_lockstep(p, 2);
    struct probe_reference ref;
    probe_reference(&c, 0, &ref);
    int colls = 0;
    for (size_t i = 0; i < probe_count(p); i += 2) {
        const struct probe_rec *a = probe_get(p, i), *b = probe_get(p, i + 1);
        if (a->kind != PROBE_COLL) continue;
        colls++;
        assert_int_equal(a->coll, COLL_ALL_REDUCE);
        assert_int_equal(a->op, OP_AVG);
        assert_int_equal(a->count, 16);
        /* before: the ranks' gradients differ (each from its own rows) */
        assert_memory_not_equal(a->mats[0].v, b->mats[0].v, 16 * sizeof(float));
        /* after: equal on every rank, the mean of the inputs, the batch gradient */
        assert_memory_equal(a->mats[1].v, b->mats[1].v, 16 * sizeof(float));
        for (int k = 0; k < 16; k++)
            assert_float_equal(a->mats[1].v[k], (a->mats[0].v[k] + b->mats[0].v[k]) / 2, 1e-7);
        assert_int_equal(a->mats[2].ref, PROBE_REF_DW);
        assert_true(probe_mat_deviation(&ref, &a->mats[2]) < 1e-6);
        assert_true(probe_mat_deviation(&ref, &b->mats[2]) < 1e-6);
    }
    assert_int_equal(colls, 2);
    /* The last record: AdamW, the same new weights everywhere = the single device's. */
    const struct probe_rec *last = probe_get(p, probe_count(p) - 1);
    assert_int_equal(last->kind, PROBE_OPTIM);
    for (int m = 0; m < last->nmats; m++) {
        assert_int_equal(last->mats[m].ref, PROBE_REF_WNEW);
        assert_true(probe_mat_deviation(&ref, &last->mats[m]) < 1e-6);
    }
    probe_reference_free(&ref);
    probe_free(p);
}

/* Overlapped DDP: the all-reduces are recorded when they are waited for, after backward,
 * flagged async, and still end equal on every rank. */
static void test_ddp_overlap_records(void **state)
{
    (void)state;
    struct train_config c = cfg_of(TRAIN_DDP, 2, 3, 4, 4);
    c.overlap = true;
    struct train_probe *p = run_probe(&c);
    assert_lockstep(p, 2);
    int colls = 0, last_bwd_tick = -1;
    for (size_t i = 0; i < probe_count(p); i++) {
        const struct probe_rec *r = probe_get(p, i);
        if (r->kind == PROBE_COMPUTE && !r->fwd && r->layer >= 0) last_bwd_tick = r->tick;
        if (r->kind != PROBE_COLL) continue;
        colls++;
        assert_true(r->async);
        assert_true(r->tick > last_bwd_tick);
    }
    assert_int_equal(colls, 3 * 2);
    probe_free(p);
}

static const struct probe_rec *find_pp(const struct train_probe *p, int stage, bool fwd, int mb)
{
    for (size_t i = 0; i < probe_count(p); i++) {
        const struct probe_rec *r = probe_get(p, i);
        if (r->rank == stage && r->kind == PROBE_COMPUTE && r->fwd == fwd && r->mb == mb)
            return r;
    }
    return NULL;
}

static void test_pp_messages_and_ticks(void **state)
{
    (void)state;
    for (int sched = 0; sched < PP_SCHEDULE_COUNT; sched++) {
        struct train_config c = cfg_of(TRAIN_PP, 2, 4, 4, 8);
        c.microbatches = 4;
        c.schedule = (enum pp_schedule)sched;
        struct train_probe *p = run_probe(&c);
        struct probe_reference ref;
        probe_reference(&c, 0, &ref);
        for (int m = 0; m < 4; m++) {
            const struct probe_rec *f0 = find_pp(p, 0, true, m), *f1 = find_pp(p, 1, true, m);
            const struct probe_rec *b0 = find_pp(p, 0, false, m), *b1 = find_pp(p, 1, false, m);
            assert_non_null(f0);
            assert_non_null(f1);
            assert_non_null(b0);
            assert_non_null(b1);
            /* forward: stage 1's input x2 is exactly stage 0's output x2 */
            assert_int_equal(f0->send_to, 1);
            assert_int_equal(f1->recv_from, 0);
            assert_int_equal(f0->send_tag, f1->recv_tag);
            assert_memory_equal(mat_named(f0, "x2")->v, mat_named(f1, "x2")->v,
                                8 * sizeof(float));
            assert_true(probe_mat_deviation(&ref, mat_named(f1, "x4")) < 1e-6);
            /* backward: stage 0 receives exactly the dx2 stage 1 sent */
            assert_int_equal(b1->send_to, 0);
            assert_int_equal(b0->recv_from, 1);
            assert_memory_equal(mat_named(b1, "dx2")->v, mat_named(b0, "dx2")->v,
                                8 * sizeof(float));
            assert_true(probe_mat_deviation(&ref, mat_named(b0, "dx2")) < 1e-6);
            /* a stage computes after the one it depends on */
            assert_true(f1->tick > f0->tick);
            assert_true(b0->tick > b1->tick);
        }
        /* Unit-time ticks, the start record at tick 0: P=2, M=4. */
        if (sched == PP_GPIPE) {
            for (int m = 0; m < 4; m++) {
                assert_int_equal(find_pp(p, 0, true, m)->tick, 1 + m);
                assert_int_equal(find_pp(p, 1, true, m)->tick, 2 + m);
                assert_int_equal(find_pp(p, 1, false, m)->tick, 6 + (3 - m));
                assert_int_equal(find_pp(p, 0, false, m)->tick, 7 + (3 - m));
            }
        } else {
            /* 1F1B on stage 1 (no warm-up): F0 B0 F1 B1 ...; stage 0: F0, then F1 B0 ... */
            assert_int_equal(find_pp(p, 1, true, 0)->tick, 2);
            assert_int_equal(find_pp(p, 1, false, 0)->tick, 3);
            assert_int_equal(find_pp(p, 0, false, 0)->tick, 4);
            assert_int_equal(find_pp(p, 0, true, 1)->tick, 2);
        }
        /* After the last backward of a stage its weight gradients are the batch's. */
        for (int st = 0; st < 2; st++) {
            const struct probe_rec *last = NULL;
            for (int m = 0; m < 4; m++) {
                const struct probe_rec *b = find_pp(p, st, false, m);
                if (!last || b->tick > last->tick) last = b;
            }
            int dws = 0;
            for (int k = 0; k < last->nmats; k++)
                if (last->mats[k].ref == PROBE_REF_DW) {
                    dws++;
                    assert_true(probe_mat_deviation(&ref, &last->mats[k]) < 1e-6);
                }
            assert_int_equal(dws, 2); /* two layers per stage */
        }
        probe_reference_free(&ref);
        probe_free(p);
    }
}

static void test_refuses_large(void **state)
{
    (void)state;
    char err[200];
    struct train_config c = cfg_of(TRAIN_TP, 2, 2, 16, 4);
    assert_int_equal(probe_check_config(&c, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "dim 16"));
    c = cfg_of(TRAIN_DDP, 8, 2, 4, 8);
    assert_int_equal(probe_check_config(&c, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "ranks 8"));
    c = cfg_of(TRAIN_SINGLE, 1, 2, 4, 4);
    assert_int_equal(probe_check_config(&c, err, sizeof err), CV_EINVAL);
    c = cfg_of(TRAIN_DDP, 2, 2, 4, 4);
    assert_int_equal(probe_check_config(&c, err, sizeof err), CV_OK);
    /* train_run_probe refuses before running */
    c = cfg_of(TRAIN_DDP, 2, 2, 8, 16);
    struct train_probe *p = probe_new(0);
    struct train_result res;
    assert_int_equal(train_run_probe(&c, p, &res, NULL, err, sizeof err), CV_EINVAL);
    assert_int_equal(probe_count(p), 0);
    probe_free(p);
}

/* Another step than the first: the reference replays the earlier steps. */
static void test_later_step(void **state)
{
    (void)state;
    struct train_config c = cfg_of(TRAIN_TP, 2, 2, 4, 4);
    c.steps = 3;
    struct train_probe *p = probe_new(2);
    struct train_result res;
    char err[200];
    assert_int_equal(train_run_probe(&c, p, &res, NULL, err, sizeof err), CV_OK);
    train_result_free(&res);
    struct probe_reference ref;
    probe_reference(&c, 2, &ref);
    int checked = 0;
    for (size_t i = 0; i < probe_count(p); i++)
        for (int k = 0; k < probe_get(p, i)->nmats; k++) {
            double dev = probe_mat_deviation(&ref, &probe_get(p, i)->mats[k]);
            if (dev < 0) continue;
            assert_true(dev < 1e-5);
            checked++;
        }
    assert_true(checked > 10);
    probe_reference_free(&ref);
    probe_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tp_all_gather_gives_full_activation),
        cmocka_unit_test(test_ddp_all_reduce_equalises_gradients),
        cmocka_unit_test(test_ddp_overlap_records),
        cmocka_unit_test(test_pp_messages_and_ticks),
        cmocka_unit_test(test_refuses_large),
        cmocka_unit_test(test_later_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
