/* test_train.c - the training schemes (parallel/train.c, ddp.c, tp.c, pp.c) and the model
 * arithmetic (parallel/mlp.c): GELU and its derivative, backward against finite
 * differences, AdamW against a hand computation, every scheme at W = 1, 2, 4 (and both
 * pipeline schedules) against the single-device reference, refused and uneven splits,
 * timeline sanity, bytes per step against the formulas, memory per rank, cancel. Sizes
 * are tiny so the file runs in a second, also under ASan. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "device/mlpmath.h"
#include "parallel/mlp.h"
#include "parallel/train.h"

static void test_gelu_values(void **state)
{
    (void)state;
    /* 0.5·z·(1 + erf(z/√2)) at a few points (values from the closed form in double). */
    assert_float_equal(mlp_gelu(0.0f), 0.0f, 0);
    assert_float_equal(mlp_gelu(1.0f), 0.841344746f, 1e-6);
    assert_float_equal(mlp_gelu(-1.0f), -0.158655254f, 1e-6);
    assert_float_equal(mlp_gelu(3.0f), 2.995950177f, 1e-5);
    assert_float_equal(mlp_gelu_grad(0.0f), 0.5f, 1e-7);
}

static void test_gelu_grad_fd(void **state)
{
    (void)state;
    for (double z = -4.0; z <= 4.0; z += 0.37) {
        double h = 1e-2;
        double fd =
            ((double)mlp_gelu((float)(z + h)) - (double)mlp_gelu((float)(z - h))) / (2 * h);
        assert_float_equal(mlp_gelu_grad((float)z), fd, 2e-4);
    }
}

/* Whole-network backward (the reference trainer) against central differences of the loss
 * computed in double from the same weights. */
static double loss_double(const float *w, const float *x0, int L, int D, int B)
{
    double *x = malloc(sizeof(double) * B * D), *y = malloc(sizeof(double) * B * D);
    for (int i = 0; i < B * D; i++)
        x[i] = x0[i];
    for (int l = 0; l < L; l++) {
        for (int i = 0; i < B; i++)
            for (int j = 0; j < D; j++) {
                double z = 0;
                for (int k = 0; k < D; k++)
                    z += x[i * D + k] * w[(size_t)l * D * D + k * D + j];
                y[i * D + j] = 0.5 * z * (1 + erf(z / sqrt(2.0)));
            }
        memcpy(x, y, sizeof(double) * B * D);
    }
    double s = 0;
    for (int i = 0; i < B * D; i++)
        s += x[i] * x[i];
    free(x);
    free(y);
    return s / (B * D);
}

static void test_backward_fd(void **state)
{
    (void)state;
    int L = 3, D = 5, B = 4;
    struct mlp_ref r;
    mlp_ref_init(&r, L, D, B, 7);
    struct adamw_cfg c;
    adamw_default(&c);
    float *w0 = malloc(sizeof(float) * L * D * D);
    memcpy(w0, r.w, sizeof(float) * L * D * D);
    double loss = mlp_ref_step(&r, &c, NULL, NULL); /* fills r.g from w0 */
    assert_float_equal(loss, loss_double(w0, r.x, L, D, B), 1e-6 * loss + 1e-9);
    double maxg = 0;
    for (int i = 0; i < L * D * D; i++)
        maxg = fmax(maxg, fabs(r.g[i]));
    for (int i = 0; i < L * D * D; i += 3) {
        float save = w0[i];
        double h = 1e-3;
        w0[i] = save + (float)h;
        double lp = loss_double(w0, r.x, L, D, B);
        w0[i] = save - (float)h;
        double lm = loss_double(w0, r.x, L, D, B);
        w0[i] = save;
        double fd = (lp - lm) / (2 * h);
        assert_float_equal(r.g[i], fd, 1e-3 * maxg);
    }
    free(w0);
    mlp_ref_free(&r);
}

static void test_adamw_by_hand(void **state)
{
    (void)state;
    struct adamw_cfg c;
    adamw_default(&c);
    float p = 1.0f, g = 0.5f, m = 0, v = 0;
    mlp_adamw(&c, 1, &p, &g, &m, &v, 1);
    /* m = 0.05, v = 0.00025, m̂ = 0.5, √v̂ = 0.5: p = 1·(1 - 1e-5) - 1e-3·0.5/(0.5 + 1e-8).
     * (1 - 0.9f is 0.100000024 in float, hence the slack on m and v.) */
    assert_float_equal(m, 0.05f, 1e-7);
    assert_float_equal(v, 0.00025f, 1e-7);
    assert_float_equal(p, 0.99899f, 1e-6);
    mlp_adamw(&c, 2, &p, &g, &m, &v, 1);
    /* m = 0.095, v = 0.00049975, m̂ = 0.5, v̂ = 0.25 → step 1e-3 again, decay first */
    assert_float_equal(p, 0.99899f * (1 - 1e-5f) - 1e-3f, 1e-6);
}

static void test_rng(void **state)
{
    (void)state;
    int D = 12;
    float full[144], cols[12 * 5];
    mlp_init_weights(3, 2, D, full);
    mlp_init_weight_cols(3, 2, D, 4, 5, cols);
    for (int i = 0; i < D; i++)
        for (int j = 0; j < 5; j++)
            assert_true(cols[i * 5 + j] == full[i * D + 4 + j]);
    float again[144];
    mlp_init_weights(3, 2, D, again);
    assert_memory_equal(full, again, sizeof full);
    mlp_init_weights(3, 1, D, again);
    assert_memory_not_equal(full, again, sizeof full);
    struct mlp_rng r;
    mlp_rng_seed(&r, 42, 0);
    double s = 0, s2 = 0;
    int n = 20000;
    for (int i = 0; i < n; i++) {
        double x = mlp_rng_normal(&r);
        s += x;
        s2 += x * x;
    }
    assert_true(fabs(s / n) < 0.03);
    assert_true(fabs(s2 / n - 1.0) < 0.05);
}

/* Weight (i, j) of (seed, layer, dim), from the generator's definition (mlpmath.h) written
 * out here: splitmix64 from seed ^ golden·(layer+1), Box-Muller on draws 2p and 2p+1 for
 * the pair p = (i·dim + j)/2 (cos the even one, sin the odd), scaled by 1/√dim. */
static float weight_by_def(uint64_t seed, int layer, int dim, int i, int j)
{
    uint64_t k = (uint64_t)i * (uint64_t)dim + (uint64_t)j, g = 0x9E3779B97F4A7C15ull;
    uint64_t st = seed ^ (g * ((uint64_t)layer + 1)), x[2];
    for (int d = 0; d < 2; d++) {
        uint64_t z = st + g * (k / 2 * 2 + (uint64_t)d + 1);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        x[d] = z ^ (z >> 31);
    }
    double u1 = 1.0 - (double)(x[0] >> 11) * 0x1.0p-53, u2 = (double)(x[1] >> 11) * 0x1.0p-53;
    double rad = sqrt(-2.0 * log(u1)), th = 2.0 * M_PI * u2;
    double v = k % 2 ? rad * sin(th) : rad * cos(th);
    return (float)(v * (1.0 / sqrt((double)dim)));
}

/* Columns [c0, c0+n) of (seed, layer, dim) as mlp_init_weight_cols gives them: every
 * value the definition's, on rows 0, 1, the last and every 37th. */
static long cols_off_def(uint64_t seed, int layer, int dim, int c0, int n)
{
    float *w = xmalloc((size_t)dim * n * sizeof *w);
    mlp_init_weight_cols(seed, layer, dim, c0, n, w);
    long bad = 0;
    for (int i = 0; i < dim; i++)
        if (i < 2 || i == dim - 1 || i % 37 == 0)
            for (int j = 0; j < n; j++)
                bad += w[(size_t)i * n + j] != weight_by_def(seed, layer, dim, i, c0 + j);
    free(w);
    return bad;
}

struct kept_draw {
    float *w;
};

static void *kept_draw_thread(void *p)
{
    struct kept_draw *d = p;
    mlp_init_weights(11, 7, 256, d->w);
    return NULL;
}

/* Starting weights kept once drawn (mlpmath.h): the first draw of a matrix and every later
 * one, whole or any slice at the edges and inside, are the generator's numbers; below
 * MLP_INIT_KEEP_MIN bytes and above MLP_INIT_KEEP_BYTES nothing is kept; the bytes kept never
 * pass MLP_INIT_KEEP_BYTES but while held; ranks drawing one matrix at once get it whole. */
static void test_init_kept(void **state)
{
    (void)state;
    mlp_init_kept_drop();
    assert_int_equal(mlp_init_kept_bytes(), 0);
    static const int dims[] = {12, 127, 128, 200, 1024};
    for (size_t d = 0; d < ARRAY_LEN(dims); d++) {
        int D = dims[d];
        size_t before = mlp_init_kept_bytes(), bytes = (size_t)D * D * sizeof(float);
        for (int pass = 0; pass < 2; pass++) { /* drawn, then kept */
            const int slices[][2] = {{0, D}, {0, 1}, {D - 1, 1}, {D / 3, D / 2}, {1, D - 1}};
            for (size_t s = 0; s < ARRAY_LEN(slices); s++)
                assert_int_equal(cols_off_def(5, 3, D, slices[s][0], slices[s][1]), 0);
        }
        assert_int_equal(mlp_init_kept_bytes(),
                         before + (bytes >= MLP_INIT_KEEP_MIN ? bytes : 0));
    }
    assert_true(mlp_init_kept_bytes() <= MLP_INIT_KEEP_BYTES);
    pthread_t t[4];
    struct kept_draw kd[4];
    for (int i = 0; i < 4; i++) {
        kd[i].w = xmalloc(256 * 256 * sizeof(float));
        assert_int_equal(pthread_create(&t[i], NULL, kept_draw_thread, &kd[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        long bad = 0;
        for (int r = 0; r < 256; r++)
            for (int c = 0; c < 256; c++)
                bad += kd[i].w[r * 256 + c] != weight_by_def(11, 7, 256, r, c);
        assert_int_equal(bad, 0);
        free(kd[i].w);
    }
    /* the cap's own size is kept, alone; one column more is not */
    assert_int_equal(cols_off_def(6, 0, 2048, 2047, 1), 0);
    assert_int_equal(mlp_init_kept_bytes(), MLP_INIT_KEEP_BYTES);
    assert_int_equal(cols_off_def(6, 0, 2049, 0, 2), 0);
    assert_int_equal(mlp_init_kept_bytes(), MLP_INIT_KEEP_BYTES);
    assert_int_equal(cols_off_def(6, 1, 1024, 0, 1024), 0);
    assert_int_equal(mlp_init_kept_bytes(), (size_t)4 << 20); /* the 2048² one left */
    /* held (nested, as a run inside a compare), six 4 MiB matrices stay; after the last
     * close the four drawn last, still right */
    mlp_init_keep_hold(true);
    mlp_init_keep_hold(true);
    for (int l = 0; l < 6; l++)
        assert_int_equal(cols_off_def(9, l, 1024, 0, 1), 0);
    mlp_init_keep_hold(false);
    assert_int_equal(mlp_init_kept_bytes(), (size_t)28 << 20); /* and the one before */
    mlp_init_keep_hold(false);
    assert_int_equal(mlp_init_kept_bytes(), MLP_INIT_KEEP_BYTES);
    for (int l = 5; l >= 0; l--)
        assert_int_equal(cols_off_def(9, l, 1024, 1000, 24), 0);
    assert_int_equal(mlp_init_kept_bytes(), MLP_INIT_KEEP_BYTES);
    mlp_init_kept_drop();
    assert_int_equal(mlp_init_kept_bytes(), 0);
}

#ifndef __SANITIZE_ADDRESS__
/* A matrix is kept only when mem_check says it fits and no limit is set: under `ulimit -v`
 * a megabyte above what the process maps, or a gigabyte above, a 4 MiB matrix is drawn right
 * and not kept. */
static void test_init_kept_mem(void **state)
{
    (void)state;
    float *w = xmalloc((size_t)1024 * 1024 * sizeof *w);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        mlp_init_kept_drop();
        FILE *f = fopen("/proc/self/statm", "r");
        unsigned long pages = 0;
        if (!f || fscanf(f, "%lu", &pages) != 1) _exit(3);
        fclose(f);
        const unsigned long extra[] = {1ul << 30, 1ul << 20};
        for (int e = 0; e < 2; e++) {
            struct rlimit rl;
            if (getrlimit(RLIMIT_AS, &rl) != 0) _exit(4);
            rl.rlim_cur = pages * (unsigned long)sysconf(_SC_PAGESIZE) + extra[e];
            if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(4);
            mlp_init_weight_cols(8, 2 + e, 1024, 0, 1024, w);
            for (int i = 0; i < 1024; i += 31)
                for (int j = 0; j < 1024; j++)
                    if (w[(size_t)i * 1024 + j] != weight_by_def(8, 2 + e, 1024, i, j))
                        _exit(5);
            if (mlp_init_kept_bytes() != 0) _exit(6);
        }
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    free(w);
}
#endif

static struct train_config tiny(enum train_scheme s, int w)
{
    struct train_config c;
    train_config_default(&c);
    c.scheme = s;
    c.nranks = w;
    c.layers = 4;
    c.dim = 16;
    c.batch = 8;
    c.steps = 3;
    c.microbatches = 4;
    c.seed = 11;
    c.timeout_s = 20;
    return c;
}

static void run_ok(const struct train_config *c, struct train_result *r)
{
    char err[300] = "";
    int rc = train_run(c, r, NULL, err, sizeof err);
    if (rc != CV_OK) fail_msg("train_run: %s", err);
    assert_int_equal(r->steps_done, c->steps);
}

/* Events of one (step, rank, lane) never overlap; each send starts before its matching
 * recv (same step, pair and tag) ends; idle/recv pairs are consistent. */
static void check_timeline(const struct train_result *r)
{
    assert_true(r->nevents > 0);
    for (size_t i = 1; i < r->nevents; i++) {
        const struct tl_event *a = &r->events[i - 1], *b = &r->events[i];
        assert_true(a->t0 <= a->t1);
        if (a->step == b->step && a->rank == b->rank && a->lane == b->lane)
            assert_true(b->t0 >= a->t1);
    }
    size_t sends = 0;
    for (size_t i = 0; i < r->nevents; i++) {
        const struct tl_event *s = &r->events[i];
        assert_true(s->t0 >= -1e-3); /* no event before its step started (clock skew slack) */
        if (s->kind != TL_SEND) continue;
        sends++;
        bool found = false;
        for (size_t j = 0; j < r->nevents; j++) {
            const struct tl_event *v = &r->events[j];
            if (v->kind == TL_RECV && v->step == s->step && v->rank == s->peer &&
                v->peer == s->rank && v->tag == s->tag) {
                assert_false(found);
                found = true;
                assert_true(s->t0 <= v->t1);
                assert_int_equal(s->bytes, v->bytes);
            }
        }
        assert_true(found);
    }
    if (r->cfg.scheme == TRAIN_PP && r->nranks > 1) assert_true(sends > 0);
}

static void expect_match(const struct train_config *c, const struct train_result *ref)
{
    struct train_result r;
    run_ok(c, &r);
    struct train_deviation d;
    train_compare(&r, ref, &d);
    if (!d.within)
        fail_msg("%s W=%d %s: loss rel %g param abs %g", train_scheme_name(c->scheme),
                 c->nranks, c->scheme == TRAIN_PP ? pp_schedule_name(c->schedule) : "",
                 d.loss_rel, d.param_abs);
    check_timeline(&r);
    for (int k = 0; k < r.nranks; k++)
        assert_true(r.mem[k].params > 0 && r.mem[k].activations > 0);
    if (c->scheme == TRAIN_DDP) assert_true(r.replica_max_diff == 0.0);
    train_result_free(&r);
}

static void test_schemes_match_reference(void **state)
{
    (void)state;
    struct train_config c = tiny(TRAIN_SINGLE, 1);
    struct train_result ref;
    run_ok(&c, &ref);
    for (int s = 1; s < c.steps; s++) /* the model trains: loss goes down */
        assert_true(ref.steps[s].loss < ref.steps[s - 1].loss);
    check_timeline(&ref);
    const int ws[] = {1, 2, 4};
    for (size_t i = 0; i < 3; i++) {
        c = tiny(TRAIN_DDP, ws[i]);
        expect_match(&c, &ref);
        c.overlap = true;
        expect_match(&c, &ref);
        c = tiny(TRAIN_TP, ws[i]);
        expect_match(&c, &ref);
        for (int sch = 0; sch < PP_SCHEDULE_COUNT; sch++) {
            c = tiny(TRAIN_PP, ws[i]);
            c.schedule = (enum pp_schedule)sch;
            expect_match(&c, &ref);
        }
    }
    train_result_free(&ref);
}

/* Same plan, same data: overlapping the all-reduces changes only when they run. */
static void test_overlap_bitwise(void **state)
{
    (void)state;
    struct train_config c = tiny(TRAIN_DDP, 4);
    struct train_result a, b;
    run_ok(&c, &a);
    c.overlap = true;
    run_ok(&c, &b);
    for (int s = 0; s < c.steps; s++)
        assert_true(a.steps[s].loss == b.steps[s].loss);
    assert_memory_equal(a.params, b.params, sizeof(float) * c.layers * c.dim * c.dim);
    size_t lane1 = 0;
    for (size_t i = 0; i < b.nevents; i++)
        if (b.events[i].lane == 1) {
            assert_int_equal(b.events[i].kind, TL_COLLECTIVE);
            lane1++;
        }
    assert_int_equal(lane1, (size_t)c.steps * c.nranks * c.layers);
    for (size_t i = 0; i < a.nevents; i++)
        assert_int_equal(a.events[i].lane, 0);
    assert_true(b.steps[1].comm_async_s > 0);
    /* the per-step view the UI draws from */
    size_t n;
    const struct tl_event *ev = train_step_events(&b, 1, &n);
    assert_non_null(ev);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(ev[i].step, 1);
    assert_true(n > 0 && (ev == b.events || ev[-1].step == 0));
    assert_true(ev + n == b.events + b.nevents || ev[n].step == 2);
    assert_null(train_step_events(&b, c.steps, &n));
    assert_int_equal(n, 0);
    double kinds[TL_KIND_COUNT];
    train_rank_breakdown(&b, 1, 2, 1, kinds);
    assert_true(kinds[TL_COLLECTIVE] > 0);
    assert_true(kinds[TL_COMPUTE] == 0 && kinds[TL_SEND] == 0);
    train_rank_breakdown(&b, 1, 2, 0, kinds);
    assert_true(kinds[TL_COMPUTE] > 0 && kinds[TL_COLLECTIVE] == 0);
    train_result_free(&a);
    train_result_free(&b);
}

static void test_uneven_pipeline(void **state)
{
    (void)state;
    struct train_config c = tiny(TRAIN_SINGLE, 1);
    c.layers = 5;
    struct train_result ref;
    run_ok(&c, &ref);
    c.scheme = TRAIN_PP;
    for (int w = 2; w <= 4; w++)
        for (int sch = 0; sch < PP_SCHEDULE_COUNT; sch++) {
            c.nranks = w;
            c.schedule = (enum pp_schedule)sch;
            expect_match(&c, &ref);
        }
    /* M = 1 and M = B: the two ends of micro-batching */
    c.nranks = 2;
    c.microbatches = 1;
    expect_match(&c, &ref);
    c.microbatches = 8;
    expect_match(&c, &ref);
    train_result_free(&ref);
}

static void expect_refused(struct train_config c, const char *needle)
{
    char err[300] = "";
    struct train_result r;
    assert_int_equal(train_run(&c, &r, NULL, err, sizeof err), CV_EINVAL);
    if (!strstr(err, needle)) fail_msg("message '%s' lacks '%s'", err, needle);
    assert_int_equal(train_config_check(&c, err, sizeof err), CV_EINVAL);
}

static void test_refused(void **state)
{
    (void)state;
    struct train_config c = tiny(TRAIN_DDP, 3);
    expect_refused(c, "--batch 8 is not divisible by --ranks 3");
    c = tiny(TRAIN_TP, 3);
    expect_refused(c, "--dim 16 is not divisible by --ranks 3");
    c = tiny(TRAIN_PP, 4);
    c.layers = 3;
    expect_refused(c, "--layers 3 is fewer than --ranks 4");
    c = tiny(TRAIN_PP, 2);
    c.microbatches = 3;
    expect_refused(c, "--batch 8 is not divisible by --microbatches 3");
    c = tiny(TRAIN_DDP, 0);
    expect_refused(c, "--ranks 0");
    c = tiny(TRAIN_DDP, 2);
    c.steps = 0;
    expect_refused(c, "--steps 0");
}

static void test_bytes_formulas(void **state)
{
    (void)state;
    size_t L = 4, D = 16, B = 8, f = sizeof(float);
    for (int w = 1; w <= 4; w *= 2) {
        size_t W = (size_t)w;
        struct train_result r;
        struct train_config c = tiny(TRAIN_DDP, w);
        run_ok(&c, &r);
        for (int s = 0; s < c.steps; s++)
            for (int k = 0; k < w; k++) {
                assert_int_equal(r.bytes_sent[s * w + k], 2 * (W - 1) * L * D * D / W * f);
                assert_int_equal(r.bytes_recv[s * w + k], 2 * (W - 1) * L * D * D / W * f);
            }
        assert_int_equal(r.napkin.all_reduce_elems, L * D * D);
        assert_int_equal(r.napkin.ddp_model_elems, L * D * D);
        assert_int_equal(r.napkin.wire_bytes, r.napkin.wire_model_bytes);
        assert_int_equal(r.steps[0].comm_bytes, 2 * (W - 1) * L * D * D / W * f);
        train_result_free(&r);

        c = tiny(TRAIN_TP, w);
        run_ok(&c, &r);
        for (int s = 0; s < c.steps; s++)
            for (int k = 0; k < w; k++)
                assert_int_equal(r.bytes_sent[s * w + k],
                                 (2 * L - 1) * (W - 1) * B * D / W * f);
        /* the napkin: forward all-gathers move L·B·D elements into the collective */
        assert_int_equal(r.napkin.all_gather_elems, L * B * D);
        assert_int_equal(r.napkin.tp_model_elems, L * B * D);
        assert_int_equal(r.napkin.reduce_scatter_elems, (L - 1) * B * D);
        assert_int_equal(r.napkin.wire_bytes, r.napkin.wire_model_bytes);
        train_result_free(&r);

        c = tiny(TRAIN_PP, w);
        run_ok(&c, &r);
        for (int s = 0; s < c.steps; s++)
            for (int k = 0; k < w; k++) {
                size_t dirs = (size_t)(k < w - 1) + (size_t)(k > 0);
                assert_int_equal(r.bytes_sent[s * w + k], dirs * B * D * f);
                assert_int_equal(r.bytes_recv[s * w + k], dirs * B * D * f);
            }
        assert_int_equal(r.napkin.wire_bytes, r.napkin.wire_model_bytes);
        train_result_free(&r);
    }
}

static void test_pipeline_memory_and_bubble(void **state)
{
    (void)state;
    struct train_config c = tiny(TRAIN_PP, 2);
    c.microbatches = 8;
    struct train_result g, f;
    run_ok(&c, &g);
    c.schedule = PP_1F1B;
    run_ok(&c, &f);
    size_t bd = (size_t)(c.batch / c.microbatches) * c.dim * sizeof(float);
    /* stage 0 holds 2 layers: GPipe keeps all 8 micro-batches' x and z, 1F1B only P-s = 2 */
    assert_int_equal(g.mem[0].activations - f.mem[0].activations, (8 - 2) * 2 * 2 * bd);
    assert_int_equal(f.mem[0].params, 2 * c.dim * c.dim * sizeof(float));
    assert_int_equal(f.mem[0].optimizer, 2 * f.mem[0].params);
    assert_float_equal(g.bubble_model, 1.0 / 9.0, 1e-12);
    assert_true(g.bubble_measured >= 0 && g.bubble_measured < 1);
    assert_true(f.bubble_measured >= 0 && f.bubble_measured < 1);
    /* the pipeline's compute events are the 2M micro-batch passes per stage and step */
    size_t passes = 0;
    for (size_t i = 0; i < f.nevents; i++)
        if (f.events[i].kind == TL_COMPUTE && f.events[i].mb >= 0) passes++;
    assert_int_equal(passes, (size_t)c.steps * 2 * 2 * c.microbatches);
    train_result_free(&g);
    train_result_free(&f);
}

static void test_cancel(void **state)
{
    (void)state;
    struct train_config c = tiny(TRAIN_TP, 2);
    volatile int cancel = 1;
    char err[200];
    struct train_result r;
    assert_int_equal(train_run(&c, &r, &cancel, err, sizeof err), CV_ECANCELLED);
    assert_int_equal(r.steps_done, 0);
    assert_non_null(strstr(err, "cancelled after 0 of 3 steps"));
    train_result_free(&r);
}

static void test_names(void **state)
{
    (void)state;
    enum train_scheme s;
    assert_int_equal(train_scheme_parse("TP", &s), CV_OK);
    assert_int_equal(s, TRAIN_TP);
    assert_int_equal(train_scheme_parse("zero", &s), CV_EINVAL);
    enum pp_schedule p;
    assert_int_equal(pp_schedule_parse("1f1b", &p), CV_OK);
    assert_int_equal(p, PP_1F1B);
    assert_string_equal(pp_schedule_name(PP_GPIPE), "gpipe");
    assert_string_equal(train_scheme_name(TRAIN_DDP), "ddp");
}

/* mlp_gemm with beta 0 into a contiguous C of 1 MiB and more zeroes C with streamed stores
 * and then accumulates (the CPU's weight gradients): the same bits as the library's own
 * beta-0 product (reached here through a C one column wider, which the zeroing leaves
 * alone), whatever C held before (NaN here), and within float rounding of a product
 * summed in double. */
static void test_gemm_streamed_zero(void **state)
{
    (void)state;
    const int m = 32, n = 8192 + 3, k = 7; /* C: 1 MiB and 384 bytes, offsets not aligned */
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
    float *c = malloc(sizeof(float) * m * n), *cw = malloc(sizeof(float) * m * (n + 1));
    uint64_t st = 99;
    for (int i = 0; i < m * k; i++)
        a[i] = (float)((st = st * 6364136223846793005ull + 1) >> 40) / (1 << 24) - 0.5f;
    for (int i = 0; i < k * n; i++)
        b[i] = (float)((st = st * 6364136223846793005ull + 1) >> 40) / (1 << 24) - 0.5f;
    for (int i = 0; i < m * n; i++)
        c[i] = NAN;
    for (int i = 0; i < m * (n + 1); i++)
        cw[i] = NAN;
    mlp_gemm(false, false, m, n, k, a, k, b, n, 0.0f, c, n);
    mlp_gemm(false, false, m, n, k, a, k, b, n, 0.0f, cw, n + 1);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float got = c[(size_t)i * n + j];
            if (memcmp(&got, &cw[(size_t)i * (n + 1) + j], sizeof got))
                fail_msg("C[%d][%d] = %a, the library's beta-0 product %a", i, j, got,
                         cw[(size_t)i * (n + 1) + j]);
            double want = 0;
            for (int p = 0; p < k; p++)
                want += (double)a[i * k + p] * b[(size_t)p * n + j];
            assert_true(fabs(got - want) <= 1e-5 * (1 + fabs(want)));
        }
    free(a);
    free(b);
    free(c);
    free(cw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gelu_values),
        cmocka_unit_test(test_gelu_grad_fd),
        cmocka_unit_test(test_backward_fd),
        cmocka_unit_test(test_adamw_by_hand),
        cmocka_unit_test(test_gemm_streamed_zero),
        cmocka_unit_test(test_rng),
        cmocka_unit_test(test_init_kept),
#ifndef __SANITIZE_ADDRESS__
        cmocka_unit_test(test_init_kept_mem),
#endif
        cmocka_unit_test(test_schemes_match_reference),
        cmocka_unit_test(test_overlap_bitwise),
        cmocka_unit_test(test_uneven_pipeline),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_bytes_formulas),
        cmocka_unit_test(test_pipeline_memory_and_bubble),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
