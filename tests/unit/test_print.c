/* test_print.c - the paper pictures (present/paper.h) and the handout's rules
 * (present/handout.h): the WCAG contrast formula against known values, every text
 * colour pair the drawing reports for both themes at >= 4.5:1, the picture of a slide never
 * past the step a holds exercise asks (and of its solution, at it), the option parsers, and
 * the answer lines. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "core/util.h"
#include "handout/paper.h"
#include "handout/handout.h"

static void test_contrast_formula(void **state)
{
    (void)state;
    /* WCAG 2: black on white is 21:1, a colour on itself 1:1, #777777 on white 4.48:1
     * (the classic grey that just fails AA), #767676 4.54:1 (the one that passes). */
    assert_true(fabs(print_contrast(0x000000, 0xffffff) - 21.0) < 1e-9);
    assert_true(fabs(print_contrast(0xffffff, 0x000000) - 21.0) < 1e-9);
    assert_true(fabs(print_contrast(0x3a7bd5, 0x3a7bd5) - 1.0) < 1e-9);
    assert_true(fabs(print_contrast(0x777777, 0xffffff) - 4.48) < 0.01);
    assert_true(fabs(print_contrast(0x767676, 0xffffff) - 4.54) < 0.01);
}

static void check_pairs(const char *text, bool dark)
{
    struct scene sc;
    scene_default(&sc);
    char err[300];
    assert_int_equal(scene_parse(&sc, text, err, sizeof err), CV_OK);
    struct print_opts o;
    print_opts_default(&o);
    o.dark = dark;
    struct print_pic p;
    assert_int_equal(print_pic_build(&p, &sc, &o, err, sizeof err), CV_OK);
    assert_true(p.npairs >= 3);
    assert_true(p.w > 50 && p.h > 50);
    const struct print_theme *th = print_theme_get(dark);
    bool page = false;
    for (size_t i = 0; i < p.npairs; i++) {
        double r = print_contrast(p.pair[i].fg, p.pair[i].bg);
        if (r < 4.5)
            fail_msg("%s (%s): #%06x on #%06x is %.2f:1", text, th->name,
                     (unsigned)p.pair[i].fg, (unsigned)p.pair[i].bg, r);
        page |= p.pair[i].bg == th->bg;
    }
    assert_true(page); /* the header is drawn on the theme's background */
    print_pic_free(&p);
}

static void test_every_pair_passes_aa(void **state)
{
    (void)state;
    static const char *const scenes[] = {
        "collective=all_reduce algo=ring ranks=8 step=3 highlight=rank:2",
        "collective=all_reduce algo=tree ranks=16 step=2 highlight=chunk:0",
        "collective=reduce_scatter algo=ring ranks=4 step=3",
        "collective=all_to_all algo=direct ranks=8 step=1 highlight=transfer:1",
        "collective=broadcast algo=tree ranks=8 step=0",
        "screen=parallel scheme=pp ranks=4",
        "screen=hierarchy",
    };
    for (size_t i = 0; i < sizeof scenes / sizeof scenes[0]; i++) {
        check_pairs(scenes[i], false);
        check_pairs(scenes[i], true);
    }
    /* The theme tables themselves: every rank's ink on the page, cell ink on every fill. */
    for (int dark = 0; dark < 2; dark++) {
        const struct print_theme *t = print_theme_get(dark);
        for (int r = 0; r < PRINT_RANK_COLOURS; r++) {
            assert_true(print_contrast(t->rank_ink[r], t->bg) >= 4.5);
            assert_true(print_contrast(t->cell_ink, t->rank_fill[r]) >= 4.5);
        }
        assert_true(print_contrast(t->cell_ink, t->partial) >= 4.5);
        assert_true(print_contrast(t->cell_ink, t->complete) >= 4.5);
        assert_true(print_contrast(t->dim, t->empty) >= 4.5);
        assert_true(print_contrast(t->accent, t->bg) >= 4.5);
    }
}

/* A slide whose scene is at the end, with a holds exercise asking about step 3: the picture
 * stops at step 3; the solution's picture is at step 3 too. */
static void test_never_past_the_asked_step(void **state)
{
    (void)state;
    struct lesson_slide s;
    memset(&s, 0, sizeof s);
    s.has_scene = true;
    scene_default(&s.scene);
    char err[300];
    assert_int_equal(scene_parse(&s.scene,
                                 "collective=all_reduce algo=ring ranks=4 count=4 "
                                 "init=seq step=end",
                                 err, sizeof err),
                     CV_OK);
    struct lesson_exercise ex;
    memset(&ex, 0, sizeof ex);
    snprintf(ex.id, sizeof ex.id, "t");
    ex.type = LEX_HOLDS;
    ex.rank = 1;
    ex.step = 3;
    ex.scene = s.scene;
    struct print_pic p;
    /* without the exercise: the slide's own step, the last of 6 */
    assert_int_equal(handout_slide_pic(&s, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 6);
    assert_int_equal(p.nsteps, 6);
    print_pic_free(&p);
    s.ex = &ex;
    s.nex = 1;
    assert_int_equal(handout_slide_pic(&s, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 3);
    print_pic_free(&p);
    /* a slide before the asked step keeps its own */
    s.scene.step = 2;
    assert_int_equal(handout_slide_pic(&s, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 2);
    print_pic_free(&p);
    assert_int_equal(handout_reveal_pic(&ex, false, &p, err, sizeof err), CV_OK);
    assert_int_equal(p.step, 3);
    print_pic_free(&p);
    char ans[200];
    handout_answer_text(&ex, ans, sizeof ans);
    assert_string_equal(ans, "10 64 46 16"); /* lessons/05's worked frame */
}

static void test_option_values(void **state)
{
    (void)state;
    enum handout_paper pp;
    enum handout_solutions so;
    char err[200];
    assert_int_equal(handout_parse_paper("A4", &pp, err, sizeof err), CV_OK);
    assert_int_equal(pp, PAPER_A4);
    assert_int_equal(handout_parse_paper("letter", &pp, err, sizeof err), CV_OK);
    assert_int_equal(pp, PAPER_LETTER);
    assert_int_equal(handout_parse_paper("a5", &pp, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "'a5'"));
    assert_int_equal(handout_parse_solutions("inline", &so, err, sizeof err), CV_OK);
    assert_int_equal(so, SOL_INLINE);
    assert_int_equal(handout_parse_solutions("End", &so, err, sizeof err), CV_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contrast_formula),
        cmocka_unit_test(test_every_pair_passes_aa),
        cmocka_unit_test(test_never_past_the_asked_step),
        cmocka_unit_test(test_option_values),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    print_release_fonts(); /* the font caches, so the leak checker sees only real leaks */
    return rc;
}
