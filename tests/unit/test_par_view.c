/* test_par_view.c - the parallelism screen's display-scale model (scene/par_view.h): frames
 * from a real recorded step, collectives stepped through their plan with the trace
 * executor on the engine's own inputs (and its output equal to the engine's, bit for bit),
 * pipeline ticks on the ideal schedule's cells, and the number format of the rank boxes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "core/util.h"
#include "scene/par_view.h"

static void test_numbers(void **state)
{
    (void)state;
    assert_int_equal(par_exp_for(0.83), -2);
    assert_int_equal(par_exp_for(1.2), -1);
    assert_int_equal(par_exp_for(0.0995), -2); /* 99.5 would round to 100 */
    assert_int_equal(par_exp_for(99.0), 0);
    assert_int_equal(par_exp_for(150.0), 1);
    assert_int_equal(par_exp_for(0.0), 0);
    char b[32];
    par_cell_text(0.83f, -2, b, sizeof b);
    assert_string_equal(b, "83");
    par_cell_text(-0.07f, -2, b, sizeof b);
    assert_string_equal(b, "-7");
    par_cell_text(0.004f, -2, b, sizeof b);
    assert_string_equal(b, "0");
    par_scale_text(-2, true, b, sizeof b);
    assert_string_equal(b, "\u00d710\u207b\u00b2");
    par_scale_text(-12, true, b, sizeof b);
    assert_string_equal(b, "\u00d710\u207b\u00b9\u00b2");
    par_scale_text(-2, false, b, sizeof b);
    assert_string_equal(b, "x1e-2");
    par_scale_text(0, false, b, sizeof b);
    assert_string_equal(b, "");
    par_dev_text(6.2e-8, b, sizeof b);
    assert_string_equal(b, "6e-08");
    par_dev_text(0, b, sizeof b);
    assert_string_equal(b, "0");
}

static void build(struct par_view *v, enum train_scheme s, int W, enum pp_schedule sched)
{
    struct train_config c;
    par_display_config(s, W, sched, false, &c);
    par_view_build(v, &c);
    if (!v->ok) print_error("%s\n", v->err);
    assert_true(v->ok);
    assert_int_equal(v->mismatches, 0);
    assert_true(v->nchecked > 0);
    assert_true(v->max_dev >= 0 && v->max_dev < 1e-5);
}

static void test_tp_frames(void **state)
{
    (void)state;
    struct par_view v;
    build(&v, TRAIN_TP, 2, PP_GPIPE);
    /* start, 2 x (forward, all-gather inputs + 1 ring step), loss, 2 backwards,
     * reduce-scatter inputs + 1 step, AdamW */
    assert_int_equal(v.nframes, 1 + 2 * 3 + 1 + 2 + 2 + 1);
    int gathers = 0;
    for (int f = 0; f < v.nframes; f++) {
        const struct par_tick *t = par_frame_tick(&v, f);
        if (!t->coll || t->rec[0]->coll != COLL_ALL_GATHER) continue;
        assert_int_equal(t->engine_mismatch, 0);
        struct par_cells c[2][PROBE_MAX_MATS];
        bool idle;
        for (int r = 0; r < 2; r++) {
            assert_int_equal(par_frame_cells(&v, f, r, false, c[r], PROBE_MAX_MATS, &idle), 1);
            assert_false(idle);
            assert_true(c[r][0].masked);
            assert_int_equal(c[r][0].rows, 4);
            assert_int_equal(c[r][0].cols, 4);
            assert_int_equal(c[r][0].mark_c0, 2 * r); /* its own piece: "in" */
            assert_int_equal(c[r][0].mark_c1, 2 * r + 2);
        }
        if (v.frames[f].sub == 0) {
            /* inputs in place: each rank holds only its own columns */
            for (int r = 0; r < 2; r++)
                for (int i = 0; i < 4; i++)
                    for (int j = 0; j < 4; j++)
                        assert_int_equal(c[r][0].mask[i * 4 + j], j / 2 == r ? 1u << r : 0u);
            assert_true(c[0][0].dev < 0);
            continue;
        }
        gathers++;
        /* after the one ring step: the full activation everywhere, column block k from
         * rank k, equal to the single device's x(l+1) */
        const struct probe_mat *nat = &t->rec[0]->mats[2];
        for (int r = 0; r < 2; r++) {
            for (int k = 0; k < 16; k++) {
                assert_int_equal(c[r][0].mask[k], 1u << (k % 4 / 2));
                assert_true(c[r][0].v[k] == nat->v[k]);
            }
            assert_true(c[r][0].dev >= 0 && c[r][0].dev < 1e-6);
        }
        assert_true(par_frame_dev(&v, f) >= 0);
        char title[64];
        par_frame_title(&v, f, title, sizeof title);
        assert_non_null(strstr(title, "all-gather x"));
        assert_non_null(strstr(title, " 1/1"));
    }
    assert_int_equal(gathers, 2);
    par_view_free(&v);
}

/* ZeRO's frames: the reduce-scatters and all-gathers replayed from their ring plans equal
 * the engine's results; after the last ring step every rank holds the full layer (its
 * rows from rank k = shard k), equal to one device's; the shards per rank are row blocks. */
static void test_zero_frames(void **state)
{
    (void)state;
    const enum train_scheme zs[3] = {TRAIN_ZERO1, TRAIN_ZERO2, TRAIN_ZERO3};
    for (int zi = 0; zi < 3; zi++)
        for (int W = 2; W <= 4; W++) {
            struct par_view v;
            build(&v, zs[zi], W, PP_GPIPE);
            int D = v.cfg.dim, L = v.cfg.layers, rows = D / W;
            int ag_done = 0, rs_done = 0;
            for (int f = 0; f < v.nframes; f++) {
                const struct par_tick *t = par_frame_tick(&v, f);
                if (!t->coll) continue;
                assert_true(t->have_trace);
                assert_int_equal(t->engine_mismatch, 0);
                if (v.frames[f].sub != (int)t->plan.nsteps) continue;
                struct par_cells c[PROBE_MAX_MATS];
                bool idle;
                for (int r = 0; r < W; r++) {
                    assert_int_equal(par_frame_cells(&v, f, r, false, c, PROBE_MAX_MATS, &idle),
                                     1);
                    assert_true(c[0].masked);
                    assert_int_equal(c[0].rows, D);
                    assert_int_equal(c[0].cols, D);
                    if (t->rec[0]->coll == COLL_ALL_GATHER) {
                        /* row i came from the rank owning it */
                        for (int i = 0; i < D; i++)
                            assert_int_equal(c[0].mask[i * D], 1u << (i / rows));
                        assert_true(c[0].dev >= 0 && c[0].dev < 1e-6);
                    }
                }
                if (t->rec[0]->coll == COLL_ALL_GATHER) ag_done++;
                if (t->rec[0]->coll == COLL_REDUCE_SCATTER) rs_done++;
                assert_true(t->rec[0]->coll != COLL_ALL_REDUCE);
            }
            assert_int_equal(rs_done, L);
            assert_int_equal(ag_done, zs[zi] == TRAIN_ZERO3 ? 2 * L : L);
            par_view_free(&v);
        }
}

static void test_ddp_all_reduce_masks(void **state)
{
    (void)state;
    struct par_view v;
    build(&v, TRAIN_DDP, 4, PP_GPIPE);
    int ends = 0;
    for (int f = 0; f < v.nframes; f++) {
        const struct par_tick *t = par_frame_tick(&v, f);
        if (!t->coll) continue;
        assert_int_equal(t->rec[0]->coll, COLL_ALL_REDUCE);
        int sub = v.frames[f].sub;
        struct par_cells c[4];
        bool idle;
        for (int r = 0; r < 4; r++)
            assert_int_equal(par_frame_cells(&v, f, r, true, &c[r], 1, &idle), 1);
        if (sub == 0)
            for (int r = 0; r < 4; r++)
                for (int k = 0; k < 16; k++)
                    assert_int_equal(c[r].mask[k], 1u << r);
        if ((size_t)sub == t->plan.nsteps) {
            ends++;
            for (int r = 0; r < 4; r++)
                for (int k = 0; k < 16; k++) {
                    assert_int_equal(c[r].mask[k], 15u);
                    assert_true(c[r].v[k] == c[0].v[k]);
                }
            assert_true(c[0].dev >= 0 && c[0].dev < 1e-6);
        }
        const struct step *st = par_frame_step(&v, f);
        assert_true(sub == 0 ? st == NULL : st != NULL);
    }
    assert_int_equal(ends, 2); /* one all-reduce per layer */
    char text[600];
    par_frame_text(&v, 0, text, sizeof text);
    assert_non_null(strstr(text, "every rank holds all 2 layers"));
    par_view_free(&v);
}

/* The pipeline's frames are the ideal schedule's cells: the engine's logical ticks put
 * every forward and backward where the unit-time model does. */
static void test_pp_ticks_match_schedule(void **state)
{
    (void)state;
    for (int sched = 0; sched < PP_SCHEDULE_COUNT; sched++) {
        struct par_view v;
        build(&v, TRAIN_PP, 4, (enum pp_schedule)sched);
        assert_true(v.have_sched);
        assert_int_equal(v.sched.ticks, 2 * (4 + 4 - 1));
        int busy = 0, bubbles = 0;
        for (int f = 0; f < v.nframes; f++) {
            int col = par_frame_sched_col(&v, f);
            if (col < 0) continue;
            const struct par_tick *t = par_frame_tick(&v, f);
            for (int s = 0; s < 4; s++) {
                const struct psched_cell *cell = &v.sched.cell[s][col];
                const struct probe_rec *r = t->rec[s];
                if (cell->kind == PSCHED_IDLE) {
                    /* idle, or already taking its AdamW step (the model leaves it out) */
                    if (r) {
                        assert_int_equal(r->kind, PROBE_OPTIM);
                        bubbles++;
                        continue;
                    }
                    bubbles++;
                    bool idle;
                    struct par_cells c[PROBE_MAX_MATS];
                    par_frame_cells(&v, f, s, false, c, PROBE_MAX_MATS, &idle);
                    assert_true(idle);
                    continue;
                }
                assert_non_null(r);
                assert_int_equal(r->kind, PROBE_COMPUTE);
                assert_int_equal(r->fwd, cell->kind == PSCHED_FWD);
                assert_int_equal(r->mb, cell->mb);
                busy++;
            }
            if (f > 0 && col == 0) {
                char text[600];
                par_frame_text(&v, f, text, sizeof text);
                assert_non_null(strstr(text, "Tick 1 of 14"));
                assert_non_null(strstr(text, "3 stages idle: the bubble"));
            }
        }
        assert_int_equal(busy, 2 * 4 * 4);
        assert_int_equal(bubbles, 4 * 14 - 2 * 4 * 4);
        par_view_free(&v);
    }
}

static void test_refused(void **state)
{
    (void)state;
    struct par_view v;
    struct train_config c;
    par_display_config(TRAIN_DDP, 8, PP_GPIPE, false, &c);
    par_view_build(&v, &c);
    assert_false(v.ok);
    assert_non_null(strstr(v.err, "2..4 ranks"));
    char text[200];
    par_frame_text(&v, 0, text, sizeof text);
    assert_non_null(strstr(text, "2..4 ranks"));
    struct par_cells cells[2];
    bool idle;
    assert_int_equal(par_frame_cells(&v, 0, 0, false, cells, 2, &idle), 0);
    par_view_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_tp_frames),
        cmocka_unit_test(test_ddp_all_reduce_masks),
        cmocka_unit_test(test_zero_frames),
        cmocka_unit_test(test_pp_ticks_match_schedule),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
