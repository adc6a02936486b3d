/* test_train_comm.c - the CPU ranks' communicator (backend/cpu/cpu_comm.c): every collective
 * the training schemes use, at W = 1..4, checked element by element against values
 * computed here; point-to-point order and tags; bytes counted per rank against the ring
 * formulas; deadlines (a missing rank times out instead of hanging) and abort. Training's
 * all_reduce and run() (the measurement's entry) go through the one executor: the same
 * bits as the trace, and a stalled rank named the same way by both. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/plan.h"
#include "core/trace.h"
#include "core/util.h"
#include "backend/cpu/cpu_comm.h"

#define N_MAX 64

struct job {
    struct comm *c;
    int rank;
    int (*fn)(struct comm *c, int rank, void *arg);
    void *arg;
    int rc;
};

static void *job_main(void *p)
{
    struct job *j = p;
    j->rc = j->fn(j->c, j->rank, j->arg);
    return NULL;
}

/* Run fn on every rank of c in its own thread; rcs[r] gets each return code. */
static void run_ranks(struct comm *c, int (*fn)(struct comm *, int, void *), void *arg,
                      int *rcs)
{
    pthread_t th[CV_MAX_RANKS];
    struct job jobs[CV_MAX_RANKS];
    for (int r = 0; r < c->nranks; r++) {
        jobs[r] = (struct job){c, r, fn, arg, -1};
        assert_int_equal(pthread_create(&th[r], NULL, job_main, &jobs[r]), 0);
    }
    for (int r = 0; r < c->nranks; r++) {
        pthread_join(th[r], NULL);
        rcs[r] = jobs[r].rc;
    }
}

struct coll_arg {
    size_t count;
    float buf[CV_MAX_RANKS][CV_MAX_RANKS * N_MAX];
    float out[CV_MAX_RANKS][CV_MAX_RANKS * N_MAX];
    struct comm_stats st[CV_MAX_RANKS];
    enum redop op;
};

static int do_all_reduce(struct comm *c, int rank, void *p)
{
    struct coll_arg *a = p;
    c->ops->reset_stats(c, rank);
    int rc = c->ops->all_reduce(c, rank, a->buf[rank], a->count, a->op, "test");
    c->ops->stats(c, rank, &a->st[rank]);
    return rc;
}

static int do_all_gather(struct comm *c, int rank, void *p)
{
    struct coll_arg *a = p;
    c->ops->reset_stats(c, rank);
    int rc = c->ops->all_gather(c, rank, a->buf[rank], a->out[rank], a->count, "test");
    c->ops->stats(c, rank, &a->st[rank]);
    return rc;
}

static int do_reduce_scatter(struct comm *c, int rank, void *p)
{
    struct coll_arg *a = p;
    c->ops->reset_stats(c, rank);
    int rc =
        c->ops->reduce_scatter(c, rank, a->buf[rank], a->out[rank], a->count, OP_SUM, "test");
    c->ops->stats(c, rank, &a->st[rank]);
    return rc;
}

static int do_iall_reduce(struct comm *c, int rank, void *p)
{
    struct coll_arg *a = p;
    struct comm_req *req[2];
    size_t half = a->count / 2;
    int rc = c->ops->iall_reduce(c, rank, a->buf[rank], half, OP_SUM, "first", &req[0]);
    if (rc != CV_OK) return rc;
    rc = c->ops->iall_reduce(c, rank, a->buf[rank] + half, a->count - half, OP_AVG, "second",
                             &req[1]);
    if (rc != CV_OK) return rc;
    int r0 = c->ops->wait(c, rank, req[0]);
    int r1 = c->ops->wait(c, rank, req[1]);
    return r0 != CV_OK ? r0 : r1;
}

/* ZeRO's prefetch queue: an all-gather, then a reduce-scatter (AVG) reading the gathered
 * buffer, then an all-gather writing it again - in issue order on the helper. */
static int do_icollective(struct comm *c, int rank, void *p)
{
    struct coll_arg *a = p;
    size_t n = a->count; /* per rank */
    struct comm_req *req[3];
    float mine[N_MAX], mine2[N_MAX];
    for (size_t i = 0; i < n; i++) {
        mine[i] = (float)(100 * rank + i);
        mine2[i] = (float)(-rank - 1);
    }
    int rc = c->ops->icollective(c, rank, COLL_ALL_GATHER, mine, a->buf[rank], n, OP_SUM, "ag",
                                 &req[0]);
    if (rc == CV_OK)
        rc = c->ops->icollective(c, rank, COLL_REDUCE_SCATTER, a->buf[rank], a->out[rank], n,
                                 OP_AVG, "rs", &req[1]);
    if (rc == CV_OK)
        rc = c->ops->icollective(c, rank, COLL_ALL_GATHER, mine2, a->buf[rank], n, OP_SUM,
                                 "ag2", &req[2]);
    if (rc != CV_OK) return rc;
    for (int k = 0; k < 3; k++) {
        int wrc = c->ops->wait(c, rank, req[k]);
        if (rc == CV_OK) rc = wrc;
    }
    return rc;
}

static struct comm *make(int w, bool async, double timeout)
{
    struct comm *c = NULL;
    char err[200];
    assert_int_equal(comm_cpu_create(&c, w, ALGO_RING, async, timeout, NULL, err, sizeof err),
                     CV_OK);
    return c;
}

static void test_all_reduce(void **state)
{
    (void)state;
    static struct coll_arg a;
    for (int w = 1; w <= 4; w++)
        for (int opi = 0; opi < 2; opi++) {
            struct comm *c = make(w, false, 5.0);
            a.count = 12; /* divisible by 1..4: the ring formula is exact */
            a.op = opi ? OP_AVG : OP_SUM;
            for (int r = 0; r < w; r++)
                for (size_t i = 0; i < a.count; i++)
                    a.buf[r][i] = (float)(10 * r + i);
            int rcs[CV_MAX_RANKS];
            run_ranks(c, do_all_reduce, &a, rcs);
            for (int r = 0; r < w; r++) {
                assert_int_equal(rcs[r], CV_OK);
                for (size_t i = 0; i < a.count; i++) {
                    /* Σ_r (10r + i) = 10·w(w-1)/2 + w·i */
                    float sum = (float)(5 * w * (w - 1) + w * (int)i);
                    assert_float_equal(a.buf[r][i], opi ? sum / w : sum, 1e-5);
                }
                assert_int_equal(a.st[r].bytes_sent, 2 * (w - 1) * a.count / w * sizeof(float));
                assert_int_equal(a.st[r].bytes_recv, 2 * (w - 1) * a.count / w * sizeof(float));
                assert_int_equal(a.st[r].coll_bytes[COLL_ALL_REDUCE], a.count * sizeof(float));
            }
            c->ops->destroy(c);
        }
}

static void test_all_gather(void **state)
{
    (void)state;
    static struct coll_arg a;
    for (int w = 1; w <= 4; w++) {
        struct comm *c = make(w, false, 5.0);
        a.count = 5;
        for (int r = 0; r < w; r++) {
            for (size_t i = 0; i < a.count; i++)
                a.buf[r][i] = (float)(100 * r + i);
            memset(a.out[r], 0xff, sizeof a.out[r]);
        }
        int rcs[CV_MAX_RANKS];
        run_ranks(c, do_all_gather, &a, rcs);
        for (int r = 0; r < w; r++) {
            assert_int_equal(rcs[r], CV_OK);
            for (int k = 0; k < w; k++)
                for (size_t i = 0; i < a.count; i++)
                    assert_true(a.out[r][k * a.count + i] == (float)(100 * k + i));
            assert_int_equal(a.st[r].bytes_sent, (size_t)(w - 1) * a.count * sizeof(float));
            assert_int_equal(a.st[r].coll_bytes[COLL_ALL_GATHER], w * a.count * sizeof(float));
        }
        c->ops->destroy(c);
    }
}

static void test_reduce_scatter(void **state)
{
    (void)state;
    static struct coll_arg a;
    for (int w = 1; w <= 4; w++) {
        struct comm *c = make(w, false, 5.0);
        a.count = 3;
        for (int r = 0; r < w; r++)
            for (size_t i = 0; i < w * a.count; i++)
                a.buf[r][i] = (float)(1000 * r + i);
        int rcs[CV_MAX_RANKS];
        run_ranks(c, do_reduce_scatter, &a, rcs);
        for (int r = 0; r < w; r++) {
            assert_int_equal(rcs[r], CV_OK);
            for (size_t i = 0; i < a.count; i++) {
                float want = 0;
                for (int q = 0; q < w; q++)
                    want += (float)(1000 * q + r * a.count + i);
                assert_true(a.out[r][i] == want);
            }
            assert_int_equal(a.st[r].bytes_sent, (size_t)(w - 1) * a.count * sizeof(float));
        }
        c->ops->destroy(c);
    }
}

static void test_iall_reduce(void **state)
{
    (void)state;
    static struct coll_arg a;
    for (int w = 1; w <= 4; w++) {
        struct comm *c = make(w, true, 5.0);
        a.count = 16;
        for (int r = 0; r < w; r++)
            for (size_t i = 0; i < a.count; i++)
                a.buf[r][i] = (float)(r + 1);
        int rcs[CV_MAX_RANKS];
        run_ranks(c, do_iall_reduce, &a, rcs);
        float sum = (float)(w * (w + 1) / 2);
        for (int r = 0; r < w; r++) {
            assert_int_equal(rcs[r], CV_OK);
            for (size_t i = 0; i < 8; i++)
                assert_true(a.buf[r][i] == sum);
            for (size_t i = 8; i < 16; i++)
                assert_float_equal(a.buf[r][i], sum / w, 1e-6);
        }
        c->ops->destroy(c);
    }
}

static void test_icollective(void **state)
{
    (void)state;
    static struct coll_arg a;
    for (int w = 1; w <= 4; w++) {
        struct comm *c = make(w, true, 5.0);
        a.count = 3;
        int rcs[CV_MAX_RANKS];
        run_ranks(c, do_icollective, &a, rcs);
        for (int r = 0; r < w; r++) {
            assert_int_equal(rcs[r], CV_OK);
            /* every rank gathered the same pieces, so the mean of piece r is piece r */
            for (size_t i = 0; i < a.count; i++)
                assert_true(a.out[r][i] == (float)(100 * r + i));
            /* the second gather overwrote the buffer after the reduce-scatter read it */
            for (int k = 0; k < w; k++)
                for (size_t i = 0; i < a.count; i++)
                    assert_true(a.buf[r][k * a.count + i] == (float)(-k - 1));
        }
        c->ops->destroy(c);
    }
    /* Without helpers, and for a collective without an asynchronous form: refused. */
    struct comm *c = make(2, false, 5.0);
    struct comm_req *req = (struct comm_req *)&req;
    float b[4] = {0};
    assert_int_equal(c->ops->icollective(c, 0, COLL_ALL_GATHER, b, b, 2, OP_SUM, "x", &req),
                     CV_EUNSUPPORTED);
    assert_null(req);
    c->ops->destroy(c);
    c = make(2, true, 5.0);
    assert_int_equal(c->ops->icollective(c, 0, COLL_BROADCAST, b, b, 2, OP_SUM, "x", &req),
                     CV_EINVAL);
    assert_null(req);
    c->ops->destroy(c);
}

/* A ring of messages, two per pair, with tags; every rank checks what it got. */
static int do_p2p(struct comm *c, int rank, void *p)
{
    int w = c->nranks, next = (rank + 1) % w, prev = (rank + w - 1) % w;
    float msg[4], got[4];
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 4; i++)
            msg[i] = (float)(100 * rank + 10 * k + i);
        int rc = c->ops->send(c, rank, next, k, msg, 4, "send");
        if (rc != CV_OK) return rc;
    }
    for (int k = 0; k < 2; k++) {
        int rc = c->ops->recv(c, rank, prev, k, got, 4, "recv");
        if (rc != CV_OK) return rc;
        for (int i = 0; i < 4; i++)
            if (got[i] != (float)(100 * prev + 10 * k + i)) return CV_EBACKEND;
    }
    struct comm_stats st;
    c->ops->stats(c, rank, &st);
    if (st.bytes_sent != 2 * 4 * sizeof(float) || st.bytes_recv != 2 * 4 * sizeof(float))
        return CV_EBACKEND;
    return c->ops->barrier(c, rank);
}

static void test_send_recv(void **state)
{
    (void)state;
    for (int w = 2; w <= 4; w++) {
        struct comm *c = make(w, false, 5.0);
        int rcs[CV_MAX_RANKS];
        run_ranks(c, do_p2p, NULL, rcs);
        for (int r = 0; r < w; r++)
            assert_int_equal(rcs[r], CV_OK);
        c->ops->destroy(c);
    }
}

static int do_wrong_tag(struct comm *c, int rank, void *p)
{
    float x[2] = {1, 2};
    if (rank == 0) return c->ops->send(c, rank, 1, 7, x, 2, "send");
    return c->ops->recv(c, rank, 0, 8, x, 2, "recv");
}

static void test_tag_mismatch(void **state)
{
    (void)state;
    struct comm *c = make(2, false, 5.0);
    int rcs[CV_MAX_RANKS];
    run_ranks(c, do_wrong_tag, NULL, rcs);
    assert_int_equal(rcs[0], CV_OK);
    assert_int_equal(rcs[1], CV_EBACKEND);
    assert_non_null(strstr(c->ops->last_error(c), "expected tag 8"));
    c->ops->destroy(c);
}

/* Rank 1 never comes: rank 0's barrier must give up at its deadline. */
static int do_lonely_barrier(struct comm *c, int rank, void *p)
{
    if (rank == 0) return c->ops->barrier(c, rank);
    return CV_OK;
}

static int do_lonely_recv(struct comm *c, int rank, void *p)
{
    float x;
    if (rank == 1) return c->ops->recv(c, rank, 0, 0, &x, 1, "recv");
    return CV_OK;
}

static void test_deadlines(void **state)
{
    (void)state;
    struct comm *c = make(2, false, 0.2);
    int rcs[CV_MAX_RANKS];
    double t0 = now_s();
    run_ranks(c, do_lonely_barrier, NULL, rcs);
    double dt = now_s() - t0;
    assert_int_equal(rcs[0], CV_ETIMEOUT);
    assert_true(dt >= 0.19 && dt < 30.0); /* not before the deadline; and no hang */
    assert_non_null(strstr(c->ops->last_error(c), "rank 0 waited more than"));
    /* After the abort every call fails at once. */
    float x = 0;
    assert_int_equal(c->ops->all_reduce(c, 0, &x, 1, OP_SUM, "after"), CV_EBACKEND);
    c->ops->destroy(c);

    c = make(2, false, 0.2);
    run_ranks(c, do_lonely_recv, NULL, rcs);
    assert_int_equal(rcs[1], CV_ETIMEOUT);
    assert_non_null(strstr(c->ops->last_error(c), "for tag 0 from rank 0"));
    c->ops->destroy(c);
}

/* One rank aborts; the other, waiting in an all-reduce with a long deadline, returns at
 * once instead of waiting it out. */
static int do_abort(struct comm *c, int rank, void *p)
{
    float x[4] = {0};
    if (rank == 1) {
        c->ops->abort(c, "rank 1 gave up");
        return CV_OK;
    }
    return c->ops->all_reduce(c, rank, x, 4, OP_SUM, "stuck");
}

static void test_abort_wakes(void **state)
{
    (void)state;
    struct comm *c = make(2, false, 30.0);
    int rcs[CV_MAX_RANKS];
    double t0 = now_s();
    run_ranks(c, do_abort, NULL, rcs);
    assert_true(now_s() - t0 < 5.0);
    assert_int_equal(rcs[0], CV_EBACKEND);
    assert_string_equal(c->ops->last_error(c), "rank 1 gave up");
    c->ops->destroy(c);
}

/* ---- one executor for training's collectives and run() -------------------------------- */

#define SAME_W 4
#define SAME_N 1003 /* not a multiple of 4: uneven chunks */

struct same_arg {
    struct comm_job job;
    size_t count;
    float in[SAME_W][SAME_N], train[SAME_W][SAME_N], run[SAME_W][SAME_N];
    bool do_train, do_run;
    int stall_rank; /* comes this many seconds late (-1: nobody) */
    double stall_s;
};

static int do_same(struct comm *c, int rank, void *p)
{
    struct same_arg *a = p;
    double late_s = rank == a->stall_rank ? a->stall_s : 0;
    struct timespec late = {(time_t)late_s, (long)((late_s - (double)(time_t)late_s) * 1e9)};
    if (a->do_train) {
        memcpy(a->train[rank], a->in[rank], a->count * sizeof(float));
        nanosleep(&late, NULL);
        int rc = c->ops->all_reduce(c, rank, a->train[rank], a->count, OP_SUM, "grads");
        if (rc != CV_OK) return rc;
    }
    if (a->do_run) {
        const struct plan *pl = a->job.plan;
        float *w = NULL;
        int rc = c->ops->buf_alloc(c, rank, pl->work_len, &w);
        if (rc != CV_OK) return rc;
        size_t in_off = coll_in_off(pl->coll, SAME_W, a->count, rank);
        size_t out_off = coll_out_off(pl->coll, SAME_W, a->count, rank);
        rc = c->ops->put(c, rank, w, in_off, a->in[rank], a->count);
        nanosleep(&late, NULL);
        if (rc == CV_OK) rc = c->ops->run(c, rank, &a->job, w);
        if (rc == CV_OK) rc = c->ops->get(c, rank, w, out_off, a->run[rank], a->count);
        c->ops->buf_free(c, rank, w);
        if (rc != CV_OK) return rc;
    }
    return CV_OK;
}

static void same_setup(struct same_arg *a, struct plan *base, struct plan *refined)
{
    char err[200];
    memset(a, 0, sizeof *a);
    a->count = SAME_N;
    a->stall_rank = -1;
    for (int r = 0; r < SAME_W; r++)
        for (size_t i = 0; i < SAME_N; i++)
            a->in[r][i] = 0.1f * (float)(r + 1) + 0.0137f * (float)i; /* not exact sums */
    assert_int_equal(plan_build(base, COLL_ALL_REDUCE, ALGO_RING, OP_SUM, SAME_W, SAME_N, 0,
                                err, sizeof err),
                     CV_OK);
    /* run() gets the plan a measurement would: refined, here into 7 slices. */
    assert_int_equal(plan_refine(base, 7, 1, refined, err, sizeof err), CV_OK);
    a->job = (struct comm_job){
        .plan = refined, .coll = COLL_ALL_REDUCE, .op = OP_SUM, .count = SAME_N};
}

static void test_one_executor_same_bits(void **state)
{
    (void)state;
    static struct same_arg a;
    struct plan base, refined;
    same_setup(&a, &base, &refined);
    char err[200];
    struct trace t;
    float *send[SAME_W];
    for (int r = 0; r < SAME_W; r++)
        send[r] = a.in[r];
    assert_int_equal(trace_run(&t, &base, send, err, sizeof err), CV_OK);
    struct comm *c = make(SAME_W, false, 10.0);
    assert_int_equal(c->ops->prepare(c, &a.job), CV_OK);
    assert_non_null(a.job.prep);
    a.do_train = a.do_run = true;
    int rcs[CV_MAX_RANKS];
    for (int round = 0; round < 3; round++) { /* the counters carry across collectives */
        memset(a.train, 0, sizeof a.train);
        memset(a.run, 0, sizeof a.run);
        run_ranks(c, do_same, &a, rcs);
        for (int r = 0; r < SAME_W; r++) {
            if (rcs[r] != CV_OK) fail_msg("rank %d: %s", r, c->ops->last_error(c));
            float want[SAME_N];
            trace_output(&t, r, want);
            assert_memory_equal(a.train[r], want, sizeof want);
            assert_memory_equal(a.run[r], want, sizeof want);
        }
    }
    /* all_reduce worked in the caller's buffer, run() in buf_alloc's: no scratch held. */
    for (int r = 0; r < SAME_W; r++)
        assert_int_equal(c->ops->mem_bytes(c, r), 0);
    c->ops->unprepare(c, &a.job);
    assert_null(a.job.prep);
    assert_string_equal(c->ops->rank_noun, "CPU thread");
    assert_int_equal(c->ops->slice_bytes, 64 << 10);
    assert_null(c->ops->sync);
    c->ops->destroy(c);
    trace_free(&t);
    plan_free(&refined);
    plan_free(&base);
}

/* Rank 2 comes 3 s late to a ring all-reduce with a deadline of 1 s: whichever way the
 * collective was entered, the ranks give up at their deadline and the message names rank
 * 2 - also for ranks that were waiting for a neighbour that waits for rank 2. (A deadline
 * of 0.15 s was passed on a busy machine by ranks that were merely slow to be scheduled,
 * naming rank 3; the deadline is what a rank's lateness is measured against, so it stays
 * well above scheduling delays and the stall well above it.) */
static void test_one_executor_names_a_stalled_rank(void **state)
{
    (void)state;
    static struct same_arg a;
    struct plan base, refined;
    for (int way = 0; way < 2; way++) {
        same_setup(&a, &base, &refined);
        a.do_train = way == 0;
        a.do_run = way == 1;
        a.stall_rank = 2;
        a.stall_s = 3.0;
        struct comm *c = make(SAME_W, false, 1.0);
        assert_int_equal(c->ops->prepare(c, &a.job), CV_OK);
        int rcs[CV_MAX_RANKS];
        double t0 = now_s();
        run_ranks(c, do_same, &a, rcs);
        double took = now_s() - t0;
        int timed_out = 0;
        for (int r = 0; r < SAME_W; r++) {
            if (r == 2) {
                assert_int_equal(rcs[r], CV_EBACKEND); /* came after the abort */
                continue;
            }
            assert_true(rcs[r] == CV_ETIMEOUT || rcs[r] == CV_EBACKEND);
            timed_out += rcs[r] == CV_ETIMEOUT;
        }
        assert_true(timed_out >= 1);
        assert_true(took < 30.0); /* returned (the stalled rank's 3 s, not a hang) */
        const char *e = c->ops->last_error(c);
        if (!strstr(e, "all_reduce (ring) on 4 CPU threads timed out: rank ") ||
            !strstr(e, " waited more than the deadline of 1 s for rank 2"))
            fail_msg("%s: '%s' does not name rank 2", way ? "run()" : "all_reduce", e);
        c->ops->unprepare(c, &a.job);
        c->ops->destroy(c);
        plan_free(&refined);
        plan_free(&base);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_reduce),
        cmocka_unit_test(test_all_gather),
        cmocka_unit_test(test_reduce_scatter),
        cmocka_unit_test(test_iall_reduce),
        cmocka_unit_test(test_icollective),
        cmocka_unit_test(test_send_recv),
        cmocka_unit_test(test_tag_mismatch),
        cmocka_unit_test(test_deadlines),
        cmocka_unit_test(test_abort_wakes),
        cmocka_unit_test(test_one_executor_same_bits),
        cmocka_unit_test(test_one_executor_names_a_stalled_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
