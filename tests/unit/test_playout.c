/* test_playout.c - the presenter's geometry: too-small terminals, narration-only slides
 * centred, scene slides giving the scene every row the narration does not need (never
 * fewer than the screen's minimum), regions never overlapping. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "present/playout.h"

static void no_overlap(const struct playout *p)
{
    struct rect r[4] = {p->title, p->narr, p->scene, p->footer};
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (r[i].h > 0 && r[j].h > 0 && r[i].w > 0 && r[j].w > 0)
                assert_false(rect_overlap(r[i], r[j]));
}

static void test_too_small(void **state)
{
    (void)state;
    struct playout p;
    playout_compute(29, 120, true, 3, &p);
    assert_true(p.too_small);
    playout_compute(40, 79, false, 3, &p);
    assert_true(p.too_small);
    playout_compute(30, 80, true, 3, &p);
    assert_false(p.too_small);
}

static void test_scene_slide(void **state)
{
    (void)state;
    struct playout p;
    playout_compute(40, 120, true, 4, &p);
    assert_int_equal(p.footer.y, 39);
    assert_int_equal(p.footer.w, 120);
    assert_int_equal(p.title.w, 88);
    assert_int_equal(p.title.x, 16);
    assert_int_equal(p.narr.y, 2);
    assert_int_equal(p.narr.h, 4);
    /* rows 2..38 = 37: 4 narration, 1 blank, 32 scene */
    assert_int_equal(p.scene.h, 32);
    assert_int_equal(p.scene.y, 7);
    assert_int_equal(p.scene.w, 120);
    no_overlap(&p);
    /* Long narration: the scene keeps its minimum, the narration is cut. */
    playout_compute(30, 80, true, 50, &p);
    assert_int_equal(p.scene.h, 24);
    assert_int_equal(p.scene.y, 5);
    assert_int_equal(p.narr.h, 2);
    assert_int_equal(p.narr.w, 72);
    no_overlap(&p);
}

static void test_text_slide(void **state)
{
    (void)state;
    struct playout p;
    playout_compute(40, 200, false, 9, &p);
    assert_int_equal(p.scene.h, 0);
    assert_int_equal(p.narr.h, 9);
    assert_int_equal(p.narr.y, 2 + (37 - 9) / 3);
    assert_int_equal(p.narr.x, (200 - 88) / 2);
    no_overlap(&p);
    playout_compute(30, 80, false, 100, &p);
    assert_int_equal(p.narr.h, 27);
    assert_int_equal(p.narr.y, 2);
    no_overlap(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_too_small),
        cmocka_unit_test(test_scene_slide),
        cmocka_unit_test(test_text_slide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
