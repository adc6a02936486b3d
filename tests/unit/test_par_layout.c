/* test_par_layout.c - the parallelism screen's pure layout (ui/parlayout.h) for every scheme
 * at 2..4 ranks and terminal sizes from 80x24 to 200x60: every frame's matrices inside
 * their box, boxes and regions inside the screen and not overlapping, the panel beside
 * only when there is room, too small below 80x24; the flow of matrices inside a box; and
 * the scene words and key bar of the parallelism screen. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "ui/kit/keys.h"
#include "ui/screens/parallel/parlayout.h"
#include "scene/scene.h"

static bool inside(struct rect r, int rows, int cols)
{
    return r.h <= 0 || r.w <= 0 ||
           (r.y >= 0 && r.x >= 0 && r.y + r.h <= rows && r.x + r.w <= cols);
}

/* The shapes par.c gives the layout: every frame of every rank. */
static struct par_shape *shapes_of(const struct par_view *v, bool utf8)
{
    int W = v->cfg.nranks;
    struct par_shape *s = calloc((size_t)v->nframes * W, sizeof *s);
    for (int f = 0; f < v->nframes; f++)
        for (int r = 0; r < W; r++) {
            struct par_cells c[PROBE_MAX_MATS];
            bool idle;
            int n = par_frame_cells(v, f, r, false, c, PROBE_MAX_MATS, &idle);
            par_shape_of(c, n, utf8, &s[(size_t)f * W + r]);
        }
    return s;
}

static void check_layout(const struct par_view *v, const struct par_shape *shapes, int rows,
                         int cols)
{
    int W = v->cfg.nranks;
    struct par_layout_content c = {
        .nranks = W,
        .shapes = shapes,
        .nshapes = v->nframes * W,
        .label_w = 2,
        .xfer_rows = 2,
        .what = "a sentence of moderate length that the screen wraps into a few lines of text",
    };
    if (v->have_sched) {
        c.gantt_rows = v->sched.stages + 3;
        c.gantt_w = 4 + v->sched.ticks * 2 + 3 + 4 + 24;
    }
    struct par_layout l;
    bool ok = par_layout_compute(rows, cols, &c, &l);
    if (!ok) print_error("scheme %d W=%d: too small at %dx%d\n", v->cfg.scheme, W, cols, rows);
    assert_true(ok);
    assert_false(l.too_small);
    struct rect regions[] = {l.title, l.status, l.xfers, l.gantt, l.what, l.panel, l.bar};
    int nreg = (int)(sizeof regions / sizeof regions[0]);
    for (int i = 0; i < nreg; i++) {
        assert_true(inside(regions[i], rows, cols));
        for (int j = i + 1; j < nreg; j++)
            assert_false(rect_overlap(regions[i], regions[j]));
        for (int r = 0; r < W; r++)
            assert_false(rect_overlap(regions[i], l.box[r]));
    }
    assert_true(l.panel.h >= 2);
    assert_true(l.what.h >= 1);
    if (v->have_sched) assert_int_equal(l.gantt.h, v->sched.stages + 3);
    assert_int_equal(l.panel_side, cols >= 150);
    for (int r = 0; r < W; r++) {
        assert_true(inside(l.box[r], rows, cols));
        for (int q = r + 1; q < W; q++)
            assert_false(rect_overlap(l.box[r], l.box[q]));
    }
    /* every frame's matrices inside the box's inside */
    int pad_w = l.borders ? 4 : 0, pad_h = l.borders ? 2 : 1;
    assert_true(l.inner_w <= l.box[0].w - pad_w);
    for (int i = 0; i < c.nshapes; i++) {
        const struct par_shape *s = &shapes[i];
        int xs[PROBE_MAX_MATS], ys[PROBE_MAX_MATS], used;
        int h = par_flow(s, l.inner_w, l.key_only, l.row_cap, xs, ys, &used);
        assert_true(used <= l.inner_w);
        assert_true(h <= l.box[0].h - pad_h);
        int shown = 0;
        for (int k = 0; k < s->n; k++) {
            if (xs[k] < 0) continue;
            shown++;
            assert_true(xs[k] + s->w[k] <= l.inner_w);
            assert_true(ys[k] + s->extra[k] + par_rows_shown(s->rows[k], l.row_cap) <= h);
        }
        if (s->n) assert_true(shown >= 1); /* a key matrix at least */
    }
}

static void test_every_scheme_and_size(void **state)
{
    (void)state;
    static const int sizes[][2] = {{24, 80}, {30, 100}, {36, 120}, {48, 160}, {60, 200}};
    for (int sc = TRAIN_DDP; sc <= TRAIN_ZERO3; sc++) /* moe: its own view, parmoe.c */
        for (int W = 2; W <= 4; W++)
            for (int sched = 0; sched < PP_SCHEDULE_COUNT; sched++) {
                if (sc != TRAIN_PP && sched > 0) continue;
                struct train_config cfg;
                par_display_config((enum train_scheme)sc, W, (enum pp_schedule)sched, false,
                                   &cfg);
                struct par_view v;
                par_view_build(&v, &cfg);
                assert_true(v.ok);
                for (int utf8 = 0; utf8 < 2; utf8++) {
                    struct par_shape *shapes = shapes_of(&v, utf8);
                    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                        check_layout(&v, shapes, sizes[k][0], sizes[k][1]);
                    free(shapes);
                }
                par_view_free(&v);
            }
}

/* DDP's display view on 4 ranks as layout content (its shapes in *shapes, to free). */
static struct par_layout_content ddp4_content(struct par_view *v, struct par_shape **shapes)
{
    struct train_config cfg;
    par_display_config(TRAIN_DDP, 4, PP_GPIPE, false, &cfg);
    par_view_build(v, &cfg);
    *shapes = shapes_of(v, true);
    return (struct par_layout_content){.nranks = 4,
                                       .shapes = *shapes,
                                       .nshapes = v->nframes * 4,
                                       .label_w = 2,
                                       .xfer_rows = 2,
                                       .what = "x"};
}

static void test_too_small_and_roomy(void **state)
{
    (void)state;
    struct par_view v;
    struct par_shape *shapes;
    struct par_layout_content c = ddp4_content(&v, &shapes);
    struct par_layout l;
    assert_false(par_layout_compute(23, 80, &c, &l));
    assert_true(l.too_small);
    assert_false(par_layout_compute(24, 79, &c, &l));
    /* Roomy: full matrices with borders, the panel beside, the sentence on its lines. */
    assert_true(par_layout_compute(60, 200, &c, &l));
    assert_false(l.key_only);
    assert_true(l.borders);
    assert_true(l.panel_side);
    assert_int_equal(l.row_cap, 0);
    /* 80x24: something gives way, but every rank is on screen. */
    assert_true(par_layout_compute(24, 80, &c, &l));
    assert_true(l.key_only);
    assert_false(l.panel_side);
    free(shapes);
    par_view_free(&v);
}

/* The presenter's zoom: 1 no panel (beside or below), 2 also only the key matrices, 3 also
 * no rows for the transfers and the sentence; each at every size that fits. */
static void test_zoom(void **state)
{
    (void)state;
    struct par_view v;
    struct par_shape *shapes;
    struct par_layout_content c = ddp4_content(&v, &shapes);
    static const int sizes[][2] = {{24, 80}, {30, 100}, {36, 120}, {60, 200}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct par_layout l0, l;
        c.zoom = 0;
        assert_true(par_layout_compute(sizes[k][0], sizes[k][1], &c, &l0));
        assert_true(l0.panel.h > 0);
        for (int z = 1; z <= 3; z++) {
            c.zoom = z;
            assert_true(par_layout_compute(sizes[k][0], sizes[k][1], &c, &l));
            assert_int_equal(l.panel.h, 0);
            assert_false(l.panel_side);
            if (z >= 2) assert_true(l.key_only);
            if (z >= 3) {
                assert_int_equal(l.xfers.h, 0);
                assert_int_equal(l.what.h, 0);
            } else {
                assert_true(l.xfers.h >= 1);
                assert_true(l.what.h >= 1);
            }
        }
    }
    free(shapes);
    par_view_free(&v);
}

static void test_flow(void **state)
{
    (void)state;
    struct par_shape s = {.n = 3,
                          .w = {15, 15, 7},
                          .rows = {4, 2, 8},
                          .extra = {2, 2, 3},
                          .key = {false, true, false}};
    int xs[3], ys[3], used;
    /* all on one line: 15 + 2 + 15 + 2 + 7 */
    assert_int_equal(par_flow(&s, 41, false, 0, xs, ys, &used), 11);
    assert_int_equal(used, 41);
    assert_int_equal(xs[2], 34);
    /* 40 columns: the third wraps under the first, one blank line between */
    assert_int_equal(par_flow(&s, 40, false, 0, xs, ys, &used), 6 + 1 + 11);
    assert_int_equal(xs[2], 0);
    assert_int_equal(ys[2], 7);
    /* key only */
    assert_int_equal(par_flow(&s, 40, true, 0, xs, ys, &used), 4);
    assert_int_equal(xs[0], -1);
    assert_int_equal(xs[1], 0);
    /* a row cap cuts the tall one: 3 lines of values (2 and an ellipsis row) */
    assert_int_equal(par_flow(&s, 41, false, 3, xs, ys, &used), 3 + 3);
    assert_int_equal(par_rows_shown(8, 3), 3);
    assert_int_equal(par_rows_shown(2, 3), 2);
    assert_int_equal(par_rows_shown(8, 0), 8);
    assert_int_equal(par_values_width(4), 15);
}

static void test_scene_words(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    char err[200], buf[400];
    assert_int_equal(scene_parse(&s, "screen=parallel scheme=pp schedule=1f1b ranks=2 step=end",
                                 err, sizeof err),
                     CV_OK);
    assert_int_equal(s.screen, SCREEN_PARALLEL);
    assert_int_equal(s.scheme, TRAIN_PP);
    assert_int_equal(s.schedule, PP_1F1B);
    assert_int_equal(s.nranks, 2);
    assert_int_equal(s.step, SCENE_STEP_END);
    scene_format(&s, buf, sizeof buf);
    assert_non_null(strstr(buf, "screen=parallel"));
    assert_non_null(strstr(buf, "scheme=pp schedule=1f1b overlap=off"));
    struct scene t;
    scene_default(&t);
    assert_int_equal(scene_parse(&t, buf, err, sizeof err), CV_OK);
    assert_int_equal(t.scheme, s.scheme);
    assert_int_equal(t.schedule, s.schedule);
    assert_int_equal(t.overlap, s.overlap);
    assert_int_equal(scene_parse(&t, "scheme=ddp overlap=on", err, sizeof err), CV_OK);
    assert_true(t.overlap);
    /* refusals leave the scene as it was */
    struct scene before = s;
    assert_int_not_equal(scene_parse(&s, "ranks=8", err, sizeof err), CV_OK);
    assert_non_null(strstr(err, "2..4 ranks"));
    assert_int_not_equal(scene_parse(&s, "scheme=single", err, sizeof err), CV_OK);
    assert_non_null(strstr(err, "unknown scheme 'single'"));
    assert_int_not_equal(scene_parse(&s, "overlap=maybe", err, sizeof err), CV_OK);
    assert_int_not_equal(scene_parse(&s, "schedule=zigzag", err, sizeof err), CV_OK);
    assert_int_equal(s.nranks, before.nranks);
    assert_int_equal(s.scheme, before.scheme);
    /* the collectives screen takes any world size, and its format is unchanged */
    assert_int_equal(scene_parse(&s, "screen=collectives ranks=8 scheme=ddp schedule=gpipe",
                                 err, sizeof err),
                     CV_OK);
    scene_format(&s, buf, sizeof buf);
    assert_null(strstr(buf, "scheme="));
}

static void test_bar_per_screen(void **state)
{
    (void)state;
    struct bar_item it[32];
    int n = keys_bar_for(200, true, KEYS_ON_PAR, it, 32);
    bool scheme = false, algo = false, par = false, help = false;
    for (int i = 0; i < n; i++) {
        scheme |= it[i].action == ACT_SCHEME;
        algo |= it[i].action == ACT_ALGO;
        par |= it[i].action == ACT_PARALLEL;
        help |= it[i].action == ACT_HELP;
    }
    assert_true(scheme && par && help);
    assert_false(algo);
    n = keys_bar(200, true, it, 32);
    scheme = par = false;
    for (int i = 0; i < n; i++) {
        scheme |= it[i].action == ACT_SCHEME;
        par |= it[i].action == ACT_PARALLEL;
    }
    assert_false(scheme);
    assert_true(par); /* the way in */
    assert_int_equal(keys_action('p'), ACT_PARALLEL);
    assert_int_equal(keys_action('n'), ACT_SCHEME);
    assert_int_equal(keys_action('g'), ACT_SCHEDULE);
    assert_int_equal(keys_action('O'), ACT_OVERLAP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_scheme_and_size),
        cmocka_unit_test(test_too_small_and_roomy),
        cmocka_unit_test(test_zoom),
        cmocka_unit_test(test_flow),
        cmocka_unit_test(test_scene_words),
        cmocka_unit_test(test_bar_per_screen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
