/* test_nccl.c - the NCCL backend on real GPUs, without going through `collviz bench`: it
 * links build/libcollviz.a and calls the backend the way the worker does.
 *
 *   display scale: for every collective, op, W = 1..max (or argv[1]), a few counts and
 *     roots, and two inputs, run_small's per-rank output must equal the trace's
 *     (trace_output), exactly - except op avg at a W that is not a power of two, where
 *     NCCL multiplies by a rounded 1/W before summing, so 1e-4 relative is allowed (and
 *     counted in the summary);
 *   measurement scale: measure() with the GPU-side check, #wrong == 0, for every
 *     collective and op at two sizes and every W (a collective that reduces nothing: every
 *     op at the largest W, one below it);
 *   robustness: two ranks on one GPU refused; a cancelled measurement returns
 *     CV_ECANCELLED; a deadline of 1 us aborts the communicators (CV_ETIMEOUT) and the
 *     next measurement re-creates them and is right again; a size that does not fit is
 *     refused (CV_ENOMEM) before allocating, and the next measurement is right.
 *
 * TEST_NCCL_COLLS=a,b,...: the display and measurement scales for these collectives only
 * (tests/gpu/run.sh's second build, which differs from the first in three collectives).
 *
 * Prints one line per failure and a summary; exits non-zero on any failure. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/comm.h"
#include "backend/nccl/nccl_info.h"
#include "backend/run.h"
#include "core/init.h"
#include "core/plan.h"
#include "core/trace.h"
#include "core/util.h"

static int failures, checks, tolerated;

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

static bool is_pow2(int w)
{
    return (w & (w - 1)) == 0;
}

/* One display-scale scene: backend vs trace. */
static void small_case(struct backend *b, enum coll c, enum redop op, int w, size_t count,
                       int root, enum init_kind init)
{
    char err[300] = "";
    struct plan pl;
    int rc = plan_build(&pl, c, coll_default_algo(c), op, w, count, root, err, sizeof err);
    if (rc != CV_OK) {
        check(false, "plan_build %s W=%d: %s", coll_name(c), w, err);
        return;
    }
    float *send[CV_MAX_RANKS], *want[CV_MAX_RANKS], *got[CV_MAX_RANKS];
    for (int r = 0; r < w; r++) {
        size_t ns = coll_send_count(c, w, count, r, root),
               nr = coll_recv_count(c, w, count, r, root);
        send[r] = xcalloc(ns ? ns : 1, sizeof(float));
        want[r] = xcalloc(nr ? nr : 1, sizeof(float));
        got[r] = xcalloc(nr ? nr : 1, sizeof(float));
        init_fill(init, c, w, count, root, 42, r, send[r]);
    }
    struct trace t;
    rc = trace_run(&t, &pl, send, err, sizeof err);
    check(rc == CV_OK, "trace_run %s W=%d: %s", coll_name(c), w, err);
    if (rc == CV_OK) {
        for (int r = 0; r < w; r++)
            trace_output(&t, r, want[r]);
        trace_free(&t);
        rc = backend_run_small(b, &pl, send, got, err, sizeof err);
        check(rc == CV_OK, "run_small %s %s W=%d count=%zu root=%d: %s", coll_name(c),
              redop_name(op), w, count, root, err);
    }
    if (rc == CV_OK) {
        long bad = 0, loose = 0;
        for (int r = 0; r < w; r++) {
            size_t nr = coll_recv_count(c, w, count, r, root);
            for (size_t j = 0; j < nr; j++) {
                float a = got[r][j], e = want[r][j];
                if (a == e) continue;
                if (op == OP_AVG && !is_pow2(w) &&
                    fabsf(a - e) <= 1e-4f * fmaxf(1.0f, fabsf(e)))
                    loose++;
                else {
                    if (bad == 0)
                        printf("  %s %s W=%d count=%zu root=%d init=%s: rank %d [%zu] = %.9g, "
                               "trace %.9g\n",
                               coll_name(c), redop_name(op), w, count, root, init_name(init), r,
                               j, a, e);
                    bad++;
                }
            }
        }
        tolerated += loose > 0;
        check(bad == 0,
              "run_small %s %s W=%d count=%zu root=%d: %ld elements differ from the trace",
              coll_name(c), redop_name(op), w, count, root, bad);
    }
    for (int r = 0; r < w; r++) {
        free(send[r]);
        free(want[r]);
        free(got[r]);
    }
    plan_free(&pl);
}

static int measure(struct backend *b, enum coll c, enum redop op, int w, size_t bytes, int root,
                   double timeout_s, volatile int *cancel, struct bench_result *r, char *err,
                   size_t errlen)
{
    struct bench_params p = {.coll = c,
                             .op = op,
                             .nranks = w,
                             .bytes = bytes,
                             .root = root,
                             .iters = 5,
                             .warmup = 2,
                             .check = true,
                             .timeout_s = timeout_s,
                             .algo_auto = true};
    return backend_measure(b, &p, r, cancel, err, errlen);
}

/* A size in bytes from the environment, or dflt. The fakegpu build (tests/fakegpu) runs
 * this program on the host, where GiB-sized buffers would only cost time. */
static size_t env_bytes(const char *name, size_t dflt)
{
    const char *s = getenv(name);
    return s && *s ? (size_t)strtoull(s, NULL, 10) : dflt;
}

/* Whether the scales test collective c: all of them, or those TEST_NCCL_COLLS names (a
 * name it does not know is a failure, so a misspelt list cannot test nothing). */
static bool coll_wanted(enum coll c)
{
    const char *s = getenv("TEST_NCCL_COLLS");
    if (!s || !*s) return true;
    char list[256];
    snprintf(list, sizeof list, "%s", s);
    bool want = false;
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        enum coll x;
        if (coll_parse(t, &x) != 0) {
            check(false, "TEST_NCCL_COLLS=%s: %s is no collective", s, t);
            continue;
        }
        want = want || x == c;
    }
    return want;
}

int main(int argc, char **argv)
{
    /* TEST_NCCL_MEASURE_BYTES: the larger measurement size (and the size measured after
     * the abort); TEST_NCCL_ABORT_BYTES: the all-reduce given a 1 us deadline. */
    const size_t big = env_bytes("TEST_NCCL_MEASURE_BYTES", ((size_t)32 << 20) + 4096);
    const size_t after = env_bytes("TEST_NCCL_MEASURE_BYTES", (size_t)64 << 20);
    const size_t abort_bytes = env_bytes("TEST_NCCL_ABORT_BYTES", (size_t)1 << 30);
    struct backend *b = NULL;
    char err[300] = "";
    int rc = backend_open("nccl", &b, err, sizeof err, NULL, 0);
    if (rc != CV_OK) {
        printf("FAIL: backend_open(nccl): %s\n", err);
        return 1;
    }
    int maxw = b->ops->max_ranks(b);
    if (argc > 1) maxw = atoi(argv[1]) < maxw ? atoi(argv[1]) : maxw;
    char line[200];
    b->ops->describe(b, maxw, line, sizeof line);
    printf("test_nccl: %s\n", line);

    static const size_t counts[] = {1, 3, 8};
    bool wanted[COLL_COUNT];
    char only[256] = "";
    for (int c = 0; c < COLL_COUNT; c++) {
        wanted[c] = coll_wanted((enum coll)c);
        if (wanted[c])
            snprintf(only + strlen(only), sizeof only - strlen(only), " %s",
                     coll_name((enum coll)c));
    }
    if (getenv("TEST_NCCL_COLLS")) printf("test_nccl: scales of%s only\n", only);
    for (int w = 1; w <= maxw; w++) {
        int before = failures;
        for (int c = 0; c < COLL_COUNT; c++)
            for (int op = 0; op < OP_COUNT && wanted[c]; op++)
                for (size_t ci = 0; ci < 3; ci++)
                    for (int root = 0; root < w; root += (w > 1 ? w - 1 : 1)) {
                        if (!coll_is_rooted((enum coll)c) && root > 0) continue;
                        small_case(b, (enum coll)c, (enum redop)op, w, counts[ci], root,
                                   INIT_RANDOM);
                        if (ci == 0)
                            small_case(b, (enum coll)c, (enum redop)op, w,
                                       coll_default_count((enum coll)c, w), root, INIT_LECTURE);
                    }
        printf("display scale W=%d: %s\n", w,
               failures == before ? "all equal to the trace" : "FAILED");

        before = failures;
        for (int c = 0; c < COLL_COUNT; c++)
            for (int op = 0; op < OP_COUNT && wanted[c]; op++) {
                /* A collective that reduces nothing is given the op and ignores it: every
                 * op at the largest W (that it ignores each), the first below it (the
                 * other ops would measure the same calls again). */
                if (!coll_reduces((enum coll)c) && op > 0 && w < maxw) continue;
                const size_t sizes[] = {(size_t)64 << 10, big};
                for (int si = 0; si < 2; si++) {
                    struct bench_result r;
                    int root = coll_is_rooted((enum coll)c) ? w - 1 : 0;
                    rc = measure(b, (enum coll)c, (enum redop)op, w, sizes[si], root, 30, NULL,
                                 &r, err, sizeof err);
                    check(rc == CV_OK && r.wrong == 0,
                          "measure %s %s W=%d %zu B: %s, #wrong %ld", coll_name((enum coll)c),
                          redop_name((enum redop)op), w, sizes[si], rc == CV_OK ? "ok" : err,
                          rc == CV_OK ? r.wrong : -1L);
                }
            }
        printf("measurement scale W=%d: %s\n", w,
               failures == before ? "#wrong = 0 everywhere" : "FAILED");
    }

    /* Robustness. */
    struct bench_result r;
    if (maxw < CV_MAX_RANKS) {
        rc = measure(b, COLL_ALL_REDUCE, OP_SUM, maxw + 1, 4096, 0, 30, NULL, &r, err,
                     sizeof err);
        check(rc == CV_EINVAL && strstr(err, "the nccl backend runs 1.."),
              "W=%d on %d GPUs: got %s (%s)", maxw + 1, maxw, cv_status_name(rc),
              rc == CV_OK ? "no error" : err);
    }
    volatile int cancel = 1;
    rc = measure(b, COLL_ALL_REDUCE, OP_SUM, maxw, (size_t)1 << 20, 0, 30, &cancel, &r, err,
                 sizeof err);
    check(rc == CV_ECANCELLED, "cancelled measurement: got %s (%s)", cv_status_name(rc),
          rc == CV_OK ? "no error" : err);
    /* One rank: NCCL's all-reduce in place has nothing to do and returns at once (seen on
     * an H200), so the deadline is given to an all-to-all, which copies. */
    enum coll dl = maxw == 1 ? COLL_ALL_TO_ALL : COLL_ALL_REDUCE;
    rc = measure(b, dl, OP_SUM, maxw, abort_bytes, 0, 1e-6, NULL, &r, err, sizeof err);
    check(rc == CV_ETIMEOUT, "1 us deadline on a %s of %zu B: got %s (%s)", coll_name(dl),
          abort_bytes, cv_status_name(rc), rc == CV_OK ? "no error" : err);
    if (rc == CV_ETIMEOUT) printf("deadline path: %s\n", err);
    rc = measure(b, COLL_ALL_REDUCE, OP_SUM, maxw, after, 0, 30, NULL, &r, err, sizeof err);
    check(rc == CV_OK && r.wrong == 0, "after an abort: %s, #wrong %ld",
          rc == CV_OK ? "ok" : err, rc == CV_OK ? r.wrong : -1L);
    if (rc == CV_OK)
        printf("after abort + re-init: all_reduce %zu B W=%d: %.1f us, busbw %.1f GB/s, %s\n",
               after, maxw, r.time_us, r.busbw, r.how);
    rc = measure(b, COLL_ALL_REDUCE, OP_SUM, maxw, (size_t)1 << 62, 0, 30, NULL, &r, err,
                 sizeof err);
    /* Refused before anything is allocated: a count no buffer offset can hold is a bad
     * value; one twice GPU 0's memory does not fit (the communicator's cudaMemGetInfo). */
    check(rc == CV_ENOMEM || (rc == CV_EINVAL && strstr(err, "too large")),
          "4 EiB all_reduce: got %s (%s)", cv_status_name(rc), rc == CV_OK ? "no error" : err);
    size_t twice = 2 * nccl_backend_get_info(b)->gpu[0].mem_total; /* b is open */
    rc = measure(b, COLL_ALL_REDUCE, OP_SUM, maxw, twice, 0, 30, NULL, &r, err, sizeof err);
    check(rc == CV_ENOMEM && strstr(err, "free (keeping"),
          "all_reduce of twice GPU 0's memory: got %s (%s)", cv_status_name(rc),
          rc == CV_OK ? "no error" : err);
    rc = measure(b, COLL_ALL_REDUCE, OP_SUM, maxw, 4096, 0, 30, NULL, &r, err, sizeof err);
    check(rc == CV_OK && r.wrong == 0, "all_reduce after a refused size: got %s (%s)",
          cv_status_name(rc), rc == CV_OK ? "no error" : err);

    /* A communicator asked for point-to-point only (a pipeline's) has no collectives
     * communicator: a collective on it fails with CV_EINVAL saying so (before any NCCL
     * call, so no rank waits for the others), and so does run(). */
    for (int k = 0; k < 2; k++) {
        struct comm_params cp = {.nranks = maxw, .traffic = COMM_TRAFFIC_P2P, .timeout_s = 30};
        struct comm *cm = NULL;
        rc = b->ops->comm_create(b, &cp, &cm, err, sizeof err);
        check(rc == CV_OK, "comm_create (point-to-point only, W=%d): %s", maxw,
              rc == CV_OK ? "ok" : err);
        if (rc != CV_OK) break;
        float *buf = NULL;
        if (k == 0) {
            float x[1] = {1};
            rc = cm->ops->all_reduce(cm, 0, x, 1, OP_SUM, NULL);
        } else {
            struct comm_job j = {.coll = COLL_ALL_REDUCE, .op = OP_SUM, .count = 1};
            rc = cm->ops->buf_alloc(cm, 0, 4, &buf);
            if (rc == CV_OK) rc = cm->ops->run(cm, 0, &j, buf);
        }
        const char *why = cm->ops->last_error(cm);
        check(rc == CV_EINVAL && strstr(why, "without collectives"),
              "%s on a point-to-point-only communicator: got %s (%s)",
              k == 0 ? "all_reduce" : "run(all_reduce)", cv_status_name(rc), why);
        if (k == 0) printf("collective without collectives: %s\n", why);
        cm->ops->buf_free(cm, 0, buf);
        cm->ops->destroy(cm);
    }

    backend_close(b);
    printf("test_nccl: %d checks, %d failed (%d avg scenes within 1e-4 rather than exact)\n",
           checks, failures, tolerated);
    return failures ? 1 : 0;
}
