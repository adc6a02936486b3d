/* test_par_sched.c - the ideal unit-time pipeline schedule (scene/par_sched.h) drawn beside the
 * measured timeline: GPipe and 1F1B orders on every stage, dependencies between stages,
 * the span 2(M+P-1) and the bubble (P-1)/(M+P-1) counted from the idle cells. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "core/util.h"
#include "scene/par_sched.h"

/* Stage rows as text: F0 F1 .. B3 and "." for idle, e.g. "0123....3210" with F as digits
 * and B as letters a.. (B0 = 'a'). */
static void row_text(const struct psched *s, int st, char *buf)
{
    int t = 0;
    for (; t < s->ticks; t++) {
        const struct psched_cell *c = &s->cell[st][t];
        buf[t] = c->kind == PSCHED_IDLE  ? '.'
                 : c->kind == PSCHED_FWD ? (char)('0' + c->mb)
                                         : (char)('a' + c->mb);
    }
    buf[t] = '\0';
}

static void test_gpipe_4x4(void **state)
{
    (void)state;
    struct psched s;
    assert_int_equal(psched_build(&s, PP_GPIPE, 4, 4), CV_OK);
    assert_int_equal(s.ticks, 2 * (4 + 4 - 1));
    char row[64];
    static const char *const want[4] = {
        "0123......dcba", /* stage 0: its backwards wait for the whole pipe */
        ".0123....dcba.",
        "..0123..dcba..",
        "...0123dcba...",
    };
    for (int st = 0; st < 4; st++) {
        row_text(&s, st, row);
        assert_string_equal(row, want[st]);
        assert_int_equal(s.idle[st], 2 * 3);
    }
    assert_float_equal(psched_bubble(&s), 3.0 / 7.0, 1e-12);
    assert_float_equal(psched_bubble_formula(4, 4), 3.0 / 7.0, 1e-12);
}

static void test_1f1b_4x4(void **state)
{
    (void)state;
    struct psched s;
    assert_int_equal(psched_build(&s, PP_1F1B, 4, 4), CV_OK);
    assert_int_equal(s.ticks, 14);
    char row[64];
    static const char *const want[4] = {
        "0123...a.b.c.d", /* 3 warm-up forwards, F3 B0, then the other backwards */
        ".012..a3b.c.d.",
        "..01.a2b3c.d..", /* 1 warm-up forward, then one forward one backward */
        "...0a1b2c3d...",
    };
    for (int st = 0; st < 4; st++) {
        row_text(&s, st, row);
        assert_string_equal(row, want[st]);
    }
    /* The same bubble as GPipe under equal stage times; 1F1B saves memory, not time. */
    assert_float_equal(psched_bubble(&s), 3.0 / 7.0, 1e-12);
}

static void test_bubble_formula_many(void **state)
{
    (void)state;
    for (int sched = 0; sched < PP_SCHEDULE_COUNT; sched++)
        for (int P = 1; P <= 8; P++)
            for (int M = 1; M <= 16; M++) {
                struct psched s;
                assert_int_equal(psched_build(&s, (enum pp_schedule)sched, P, M), CV_OK);
                assert_int_equal(s.ticks, 2 * (M + P - 1));
                assert_float_equal(psched_bubble(&s), psched_bubble_formula(P, M), 1e-12);
                /* every micro-batch once forward and once backward on every stage, the
                 * backward after the forward, and after the next stage's backward */
                for (int st = 0; st < P; st++)
                    for (int m = 0; m < M; m++) {
                        int f = -1, b = -1, nf = 0, nb = 0;
                        for (int t = 0; t < s.ticks; t++) {
                            const struct psched_cell *c = &s.cell[st][t];
                            if (c->mb != m) continue;
                            if (c->kind == PSCHED_FWD) f = t, nf++;
                            if (c->kind == PSCHED_BWD) b = t, nb++;
                        }
                        assert_int_equal(nf, 1);
                        assert_int_equal(nb, 1);
                        assert_true(b > f);
                    }
            }
}

static void test_one_stage_no_bubble(void **state)
{
    (void)state;
    struct psched s;
    assert_int_equal(psched_build(&s, PP_GPIPE, 1, 3), CV_OK);
    char row[64];
    row_text(&s, 0, row);
    assert_string_equal(row, "012cba");
    assert_float_equal(psched_bubble(&s), 0.0, 0);
}

static void test_refuses(void **state)
{
    (void)state;
    struct psched s;
    assert_int_equal(psched_build(&s, PP_GPIPE, 0, 4), CV_EINVAL);
    assert_int_equal(psched_build(&s, PP_GPIPE, 4, 0), CV_EINVAL);
    assert_int_equal(psched_build(&s, PP_GPIPE, 4, PSCHED_MAX_MICRO + 1), CV_EINVAL);
    assert_int_equal(psched_build(&s, PP_GPIPE, CV_MAX_RANKS + 1, 4), CV_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpipe_4x4),
        cmocka_unit_test(test_1f1b_4x4),
        cmocka_unit_test(test_bubble_formula_many),
        cmocka_unit_test(test_one_stage_no_bubble),
        cmocka_unit_test(test_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
