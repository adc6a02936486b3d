/* test_app_scene.c - the UI's one door (app_set_scene) without a terminal or a backend:
 * what a scene change rebuilds, what it refuses and leaves untouched, that key actions and
 * play go through it, autoplay, the highlight's cells, and the transfer text that names
 * the reduction op (issue 12: "Σ3" was shown for max too). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "core/util.h"
#include "scene/scene.h"
#include "ui/app.h"
#include "ui/screens/collectives/collectives.h"
#include "ui/screens/screens.h"

static struct app *new_app(const char *words)
{
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    a->utf8 = true;
    struct scene s;
    scene_default(&s);
    char err[200];
    assert_int_equal(scene_parse(&s, words, err, sizeof err), CV_OK);
    assert_int_equal(app_set_scene(a, &s, err, sizeof err), CV_OK);
    return a;
}

static void del_app(struct app *a)
{
    app_free(a);
    free(a);
}

static int set(struct app *a, const char *words, char *err, size_t n)
{
    struct scene s = a->sc;
    int rc = scene_parse(&s, words, err, n);
    if (rc != CV_OK) return rc;
    return app_set_scene(a, &s, err, n);
}

/* step=end resolves to the last step; the ring all-reduce at W=4 has 2(W-1) = 6 steps and
 * ends with 6 10 14 18 on every rank (the lecture's input). */
static void test_door_builds_and_resolves_end(void **state)
{
    (void)state;
    struct app *a = new_app("collective=all_reduce algo=ring ranks=4 step=end");
    assert_non_null(screen_trace(a));
    assert_int_equal(app_nsteps(a), 6);
    assert_int_equal(a->sc.step, 6);
    assert_int_equal(app_step(a), 6);
    const float *v = trace_buf(screen_trace(a), 6, 2);
    assert_true(v[0] == 6 && v[1] == 10 && v[2] == 14 && v[3] == 18);
    del_app(a);
}

/* A step-only change keeps the plan (same allocation); a new collective rebuilds it. */
static void test_step_only_keeps_plan(void **state)
{
    (void)state;
    struct app *a = new_app("step=0");
    const struct xfer *x0 = screen_plan(a)->x;
    char err[200];
    assert_int_equal(set(a, "step=3", err, sizeof err), CV_OK);
    assert_ptr_equal(screen_plan(a)->x, x0);
    assert_int_equal(app_step(a), 3);
    assert_int_equal(set(a, "collective=all_gather step=0", err, sizeof err), CV_OK);
    assert_int_equal(screen_plan(a)->coll, COLL_ALL_GATHER);
    assert_int_equal(app_nsteps(a), 3);
    del_app(a);
}

/* A refused scene leaves everything as it was and says why. */
static void test_refusals_leave_state(void **state)
{
    (void)state;
    struct app *a = new_app("step=2");
    char err[200] = "";
    struct scene s = a->sc;
    s.hl = HL_RANK;
    s.hl_index = 9; /* W=4 */
    assert_int_equal(app_set_scene(a, &s, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "highlight rank:9"));
    assert_int_equal(a->sc.hl, HL_NONE);
    assert_int_equal(a->sc.step, 2);
    s = a->sc;
    s.screen = SCREEN_HIERARCHY;
    if (!screen_ops_of(SCREEN_HIERARCHY)) {
        assert_int_equal(app_set_scene(a, &s, err, sizeof err), CV_EUNSUPPORTED);
        assert_non_null(strstr(err, "not in this build"));
        assert_int_equal(a->sc.screen, SCREEN_COLLECTIVES);
    }
    del_app(a);
}

/* Key actions edit a copy and go through the door; refusals become the status message. */
static void test_actions_through_door(void **state)
{
    (void)state;
    struct app *a = new_app("collective=all_gather");
    app_do(a, ACT_OP, 0);
    assert_non_null(strstr(a->msg, "does not reduce"));
    assert_int_equal(a->sc.op, OP_SUM);
    a->msg[0] = '\0';
    app_do(a, ACT_COLL_FIRST + COLL_ALL_REDUCE, 0);
    assert_int_equal(a->sc.coll, COLL_ALL_REDUCE);
    assert_int_equal(screen_plan(a)->coll, COLL_ALL_REDUCE);
    app_do(a, ACT_LAST, 0);
    assert_int_equal(app_step(a), 6);
    app_do(a, ACT_OP, 0); /* the step stays, the plan is rebuilt for prod */
    assert_int_equal(a->sc.op, OP_PROD);
    assert_int_equal(screen_plan(a)->op, OP_PROD);
    assert_int_equal(app_step(a), 6);
    size_t before = a->sc.meas_bytes;
    app_do(a, ACT_SIZE_UP, 0);
    assert_int_equal(a->sc.meas_bytes, before * 2);
    /* the parallelism screen: W stays within 2..4, its keys refuse collectives' keys */
    app_do(a, ACT_PARALLEL, 0);
    assert_int_equal(a->sc.screen, SCREEN_PARALLEL);
    assert_true(app_nsteps(a) > 0);
    app_do(a, ACT_RANKS_UP, 0);
    assert_int_equal(a->sc.nranks, 4);
    assert_non_null(strstr(a->msg, "ranks stay within 2..4"));
    app_do(a, ACT_ALGO, 0);
    assert_non_null(strstr(a->msg, "collectives screen"));
    app_do(a, ACT_SCHEME, 0);
    assert_int_equal(a->sc.scheme, TRAIN_TP);
    app_do(a, ACT_PARALLEL, 0);
    assert_int_equal(a->sc.screen, SCREEN_COLLECTIVES);
    del_app(a);
}

/* A key that changes how the same training step is shown (ddp's overlap, zero3's prefetch,
 * pp's schedule: issue 31's O and g in the player) keeps the step the scene is at, clamped to
 * the new timeline's frames; it never goes back to frame 1. Every step of each. */
static void test_par_keys_keep_step(void **state)
{
    (void)state;
    static const struct {
        const char *words;
        enum ui_action act;
    } cases[] = {{"screen=parallel scheme=ddp", ACT_OVERLAP},
                 {"screen=parallel scheme=zero3", ACT_OVERLAP},
                 {"screen=parallel scheme=pp", ACT_SCHEDULE}};
    long checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct app *a = new_app(cases[c].words);
        long n = (long)app_nsteps(a);
        assert_true(n > 2);
        for (long k = 0; k <= n; k++) {
            char err[200], w[32];
            snprintf(w, sizeof w, "step=%ld", k);
            assert_int_equal(set(a, w, err, sizeof err), CV_OK);
            bool before = a->sc.overlap;
            int sched = (int)a->sc.schedule;
            app_do(a, cases[c].act, 0);
            assert_true(a->sc.overlap != before || (int)a->sc.schedule != sched);
            long n2 = (long)app_nsteps(a);
            if ((long)app_step(a) != (k < n2 ? k : n2))
                fail_msg("%s: step %ld became %ld after the key (%ld frames now)",
                         cases[c].words, k, (long)app_step(a), n2);
            app_do(a, cases[c].act, 0); /* and back */
            checked++;
        }
        del_app(a);
    }
    assert_true(checked > 20);
}

/* autoplay: a scene with autoplay > 0 plays on entry at its own pace, through the door. */
static void test_autoplay(void **state)
{
    (void)state;
    struct app *a = new_app("autoplay=2");
    assert_true(a->playing);
    double t0 = a->next_tick;
    assert_false(app_tick(a, t0 - 0.5));
    assert_true(app_tick(a, t0));
    assert_int_equal(app_step(a), 1);
    assert_true(a->next_tick >= t0 + 2.0 - 1e-9);
    char err[200];
    assert_int_equal(set(a, "autoplay=0 step=0", err, sizeof err), CV_OK);
    assert_false(a->playing);
    del_app(a);
}

/* highlight=chunk:N marks that chunk's cells on every rank (ring all-reduce: chunk c is
 * element c of each rank's 4); transfer:N the cells of that entry of the step. */
static void test_highlight_cells(void **state)
{
    (void)state;
    struct app *a = new_app("highlight=chunk:2 step=1");
    size_t L = screen_plan(a)->work_len;
    unsigned char *c = xcalloc(4 * L, 1);
    coll_hl_cells(a, 1, c);
    for (int r = 0; r < 4; r++)
        for (size_t i = 0; i < L; i++)
            assert_int_equal(c[(size_t)r * L + i], i == 2);
    char why[160];
    assert_string_equal(coll_hl_missing(a, 1, why, sizeof why), "");
    char err[200];
    assert_int_equal(set(a, "highlight=chunk:7", err, sizeof err), CV_OK);
    assert_non_null(strstr(coll_hl_missing(a, 1, why, sizeof why), "no chunk 7"));
    assert_int_equal(set(a, "highlight=transfer:1 step=1", err, sizeof err), CV_OK);
    coll_hl_cells(a, 1, c);
    const struct xfer *x = &screen_plan(a)->x[screen_plan(a)->steps[0].first + 1];
    int n = 0;
    for (size_t k = 0; k < 4 * L; k++)
        n += c[k];
    assert_int_equal(n, 2); /* one element read, one written */
    assert_int_equal(c[(size_t)x->src * L + x->src_off], 1);
    assert_int_equal(c[(size_t)x->dst * L + x->dst_off], 1);
    free(c);
    del_app(a);
}

/* The count of folded ranks names the op: Σ only for sum and avg (issue 12). */
static void test_folded_text(void **state)
{
    (void)state;
    char b[32];
    coll_folded_text(OP_SUM, 3, true, b, sizeof b);
    assert_string_equal(b, "\u03a33");
    coll_folded_text(OP_AVG, 4, false, b, sizeof b);
    assert_string_equal(b, "S4");
    coll_folded_text(OP_MAX, 3, true, b, sizeof b);
    assert_string_equal(b, "max of 3");
    coll_folded_text(OP_MIN, 2, true, b, sizeof b);
    assert_string_equal(b, "min of 2");
    coll_folded_text(OP_PROD, 3, false, b, sizeof b);
    assert_string_equal(b, "prod of 3");

    /* The whole entry at W=4, step 3 of the ring with max: the last reduce-scatter step
     * folds the 4th rank in. */
    struct app *a = new_app("op=max step=3");
    const struct step *st = &screen_plan(a)->steps[2];
    char t[COLL_XFER_TEXT];
    coll_xfer_text(a, &screen_plan(a)->x[st->first + 3], 3, t, sizeof t);
    assert_string_equal(t, "r3 \u2500\u25b6 r0  chunk 0 (max) max of 4");
    assert_null(strstr(t, "\u03a3"));
    del_app(a);
    /* The README's example line is one the program shows (sum, W=4, step 3). */
    a = new_app("step=3");
    st = &screen_plan(a)->steps[2];
    coll_xfer_text(a, &screen_plan(a)->x[st->first + 3], 3, t, sizeof t);
    assert_string_equal(t, "r3 \u2500\u25b6 r0  chunk 0 (+) \u03a34");
    del_app(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_door_builds_and_resolves_end),
        cmocka_unit_test(test_step_only_keeps_plan),
        cmocka_unit_test(test_refusals_leave_state),
        cmocka_unit_test(test_actions_through_door),
        cmocka_unit_test(test_par_keys_keep_step),
        cmocka_unit_test(test_autoplay),
        cmocka_unit_test(test_highlight_cells),
        cmocka_unit_test(test_folded_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
