/* test_par_summary.c - the plain-data outcome of a training run (parallel/summary.h) and the
 * worker's JOB_TRAIN that carries it to the parallelism screen: every scheme against the
 * single device within tolerance, napkin counts equal to L·D² and L·B·D, the last step's
 * timeline copied, refusals, cancellation, and the job through the worker's queue. Sizes
 * are small so the file runs in a few seconds, also under ASan. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/util.h"
#include "parallel/summary.h"
#include "worker/worker.h"
#include "next_result.h"

static struct train_config small(enum train_scheme s)
{
    struct train_config c;
    train_config_default(&c);
    c.scheme = s;
    c.nranks = 2;
    c.layers = 2;
    c.dim = 32;
    c.batch = 8;
    c.steps = 3;
    c.microbatches = 2;
    c.timeout_s = 20;
    return c;
}

static void test_schemes_against_one_device(void **state)
{
    (void)state;
    struct train_summary *s = malloc(sizeof *s);
    char err[200];
    for (int sc = TRAIN_DDP; sc <= TRAIN_ZERO3; sc++) { /* moe: test_train_moe.c */
        struct train_config c = small((enum train_scheme)sc);
        assert_int_equal(train_summary_run(&c, s, NULL, err, sizeof err), CV_OK);
        assert_int_equal(s->steps_done, 3);
        assert_int_equal(s->nranks, 2);
        assert_true(s->dev.within);
        for (int k = 0; k < 3; k++) {
            assert_true(s->loss[k] > 0);
            assert_float_equal(s->loss[k], s->ref_loss[k], 1e-4 * s->ref_loss[k]);
            assert_true(s->time_s[k] > 0);
            assert_true(s->ref_time_s[k] > 0);
        }
        /* the napkin math, counted on rank 0 in the last step */
        assert_int_equal(s->napkin.ddp_model_elems, 2 * 32 * 32);
        assert_int_equal(s->napkin.tp_model_elems, 2 * 8 * 32);
        if (sc == TRAIN_DDP) assert_int_equal(s->napkin.all_reduce_elems, 2 * 32 * 32);
        if (sc == TRAIN_TP) assert_int_equal(s->napkin.all_gather_elems, 2 * 8 * 32);
        assert_int_equal(s->napkin.wire_bytes, s->napkin.wire_model_bytes);
        /* pp: the bubble; the others have none */
        if (sc == TRAIN_PP) {
            assert_float_equal(s->bubble_model, 1.0 / 3.0, 1e-12); /* (P-1)/(M+P-1) */
            assert_true(s->bubble_measured >= 0 && s->bubble_measured < 1);
        } else {
            assert_true(s->bubble_measured < 0);
        }
        /* the last step's events, each rank's, with times from the step's start */
        assert_int_equal(s->ev_step, 2);
        assert_true(s->nevents > 0);
        assert_false(s->events_truncated);
        bool ranks[2] = {false, false};
        for (int i = 0; i < s->nevents; i++) {
            assert_int_equal(s->events[i].step, 2);
            assert_true(s->events[i].t0 >= 0 && s->events[i].t1 >= s->events[i].t0);
            ranks[s->events[i].rank] = true;
        }
        assert_true(ranks[0] && ranks[1]);
        /* allocated memory: the scheme shards what one device holds (ZeRO stage 3: plus
         * one gathered layer of 32x32; stages 1, 2 and DDP keep all of it) */
        if (sc == TRAIN_TP || sc == TRAIN_PP)
            assert_int_equal(s->mem[0].params * 2, s->ref_mem.params);
        else if (sc == TRAIN_ZERO3)
            assert_int_equal(s->mem[0].params, s->ref_mem.params / 2 + 32 * 32 * 4);
        else
            assert_int_equal(s->mem[0].params, s->ref_mem.params);
        if (sc == TRAIN_ZERO1 || sc == TRAIN_ZERO3)
            assert_int_equal(s->mem[0].optimizer * 2, s->ref_mem.optimizer);
        assert_int_equal(train_memory_total(&s->mem_peak[0]), train_memory_total(&s->mem[0]));
        assert_non_null(strstr(s->desc, "2 ranks"));
    }
    free(s);
}

static void test_refusals(void **state)
{
    (void)state;
    struct train_summary *s = malloc(sizeof *s);
    char err[200];
    struct train_config c = small(TRAIN_DDP);
    c.steps = TSUM_MAX_STEPS + 1;
    assert_int_equal(train_summary_run(&c, s, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "steps"));
    c = small(TRAIN_SINGLE);
    assert_int_equal(train_summary_run(&c, s, NULL, err, sizeof err), CV_EINVAL);
    c = small(TRAIN_TP);
    c.dim = 33; /* not divisible by 2 ranks */
    assert_int_equal(train_summary_run(&c, s, NULL, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "--dim 33"));
    volatile int cancel = 1;
    c = small(TRAIN_PP);
    assert_int_equal(train_summary_run(&c, s, &cancel, err, sizeof err), CV_ECANCELLED);
    free(s);
}

/* JOB_TRAIN through the worker's queue, as the parallelism screen posts it. */
static void test_worker_job(void **state)
{
    (void)state;
    struct backend *b;
    char err[256];
    assert_int_equal(backend_open("cpu", &b, err, sizeof err, NULL, 0), CV_OK);
    struct worker *w = worker_start(b, err, sizeof err);
    assert_non_null(w);
    struct job j = {.kind = JOB_TRAIN, .train = {.cfg = small(TRAIN_TP)}};
    uint64_t id = worker_post(w, &j);
    struct result r;
    assert_true(next_result(w, &r, 60));
    assert_int_equal(r.job_id, id);
    assert_int_equal(r.kind, JOB_TRAIN);
    assert_int_equal(r.status, CV_OK);
    assert_true(r.last);
    assert_non_null(r.train.summary); /* on the heap: the result itself stays small */
    assert_true(sizeof r < 1024);
    assert_int_equal(r.train.summary->cfg.scheme, TRAIN_TP);
    assert_int_equal(r.train.summary->steps_done, 3);
    assert_true(r.train.summary->dev.within);
    result_free(&r);
    assert_null(r.train.summary);
    /* a bad configuration comes back as an error result, not a crash */
    j.train.cfg.batch = 0;
    id = worker_post(w, &j);
    assert_true(next_result(w, &r, 60));
    assert_int_equal(r.job_id, id);
    assert_int_equal(r.status, CV_EINVAL);
    assert_non_null(strstr(r.err, "--batch 0"));
    result_free(&r);
    worker_stop(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schemes_against_one_device),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_worker_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
