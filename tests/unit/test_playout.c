/* test_playout.c - the presenter's geometry: too-small terminals, narration-only slides
 * centred, scene slides giving the scene every row the narration does not need, narration
 * that does not fit split into pages before the scene's page (breaking at blank lines),
 * every narration line on exactly one page, and regions never overlapping. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "ui/present/present_layout.h"

static void no_overlap(const struct present_layout *p)
{
    for (int k = 0; k < p->npages; k++) {
        const struct present_layout_page *pg = &p->page[k];
        struct rect r[4] = {pg->title, pg->narr, pg->scene, p->footer};
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++)
                if (r[i].h > 0 && r[j].h > 0 && r[i].w > 0 && r[j].w > 0)
                    assert_false(rect_overlap(r[i], r[j]));
        assert_int_equal(pg->narr.h, pg->to - pg->from + pg->ask_to - pg->ask_from);
    }
}

/* Every line [0, n) is on exactly one page before the one the slide opens on (its text
 * pages), pages in order, blank lines aside; or, without text pages, on the one page. The
 * scene's page after text pages shows the lead: lines [0, to), ending where a block ends
 * (before a blank line or a block's start), never a blank line last. */
static void covers(const struct present_layout *p, int n, const bool *blank, const bool *starts)
{
    int next = 0, last = p->npages - 1;
    bool text = p->entry > 0 || !p->page[last].with_scene;
    assert_true(p->entry == (p->page[last].with_scene ? last : 0));
    for (int k = 0; k < p->npages; k++) {
        const struct present_layout_page *pg = &p->page[k];
        assert_true(pg->with_scene == (k == last) || !pg->with_scene);
        if (text && pg->with_scene) { /* the lead */
            assert_int_equal(pg->from, 0);
            assert_true(pg->to <= n);
            assert_true(pg->to == 0 || !(blank && blank[pg->to - 1]));
            assert_true(pg->to == 0 || pg->to == n || (blank && blank[pg->to]) ||
                        (starts && starts[pg->to]));
            continue;
        }
        while (next < pg->from) {
            assert_true(blank && blank[next]); /* only blank lines are skipped */
            next++;
        }
        assert_int_equal(pg->from, next);
        next = pg->to;
    }
    while (next < n)
        assert_true(blank && blank[next++]);
}

static void test_too_small(void **state)
{
    (void)state;
    struct present_layout p = {0};
    present_layout_compute(23, 120, PLAYOUT_SCENE_MIN, 1, 3, NULL, NULL, NULL, &p);
    assert_true(p.too_small);
    present_layout_compute(40, 79, 0, 1, 3, NULL, NULL, NULL, &p);
    assert_true(p.too_small);
    present_layout_compute(24, 80, PLAYOUT_SCENE_MIN, 1, 3, NULL, NULL, NULL, &p);
    assert_false(p.too_small);
    present_layout_free(&p);
}

static void test_scene_slide(void **state)
{
    (void)state;
    struct present_layout p = {0};
    present_layout_compute(40, 120, PLAYOUT_SCENE_MIN, 1, 4, NULL, NULL, NULL, &p);
    assert_int_equal(p.npages, 1);
    const struct present_layout_page *pg = &p.page[0];
    assert_true(pg->with_scene);
    assert_int_equal(p.footer.y, 39);
    assert_int_equal(p.footer.w, 120);
    assert_int_equal(pg->title.w, 88);
    assert_int_equal(pg->title.x, 16);
    assert_int_equal(pg->narr.y, 2);
    assert_int_equal(pg->narr.h, 4);
    /* rows 2..38 = 37: 4 narration, 1 blank, 32 scene */
    assert_int_equal(pg->scene.h, 32);
    assert_int_equal(pg->scene.y, 7);
    assert_int_equal(pg->scene.w, 120);
    no_overlap(&p);
    /* A two-line title pushes everything down one row. */
    present_layout_compute(40, 120, PLAYOUT_SCENE_MIN, 2, 4, NULL, NULL, NULL, &p);
    assert_int_equal(p.page[0].title.h, 2);
    assert_int_equal(p.page[0].narr.y, 3);
    assert_int_equal(p.page[0].scene.h, 31);
    no_overlap(&p);
    present_layout_free(&p);
}

static void test_pages(void **state)
{
    (void)state;
    struct present_layout p = {0};
    /* 100x30, a 20-line narration: title row, a gap, then at most 30-1-2-23-1 = 3 lines fit
     * over the scene; so the whole narration on a text page of 27 lines, and the scene's
     * page, which the slide opens on, with its lead: none here (no block ends in 5 lines). */
    present_layout_compute(30, 100, PLAYOUT_SCENE_MIN, 1, 20, NULL, NULL, NULL, &p);
    assert_int_equal(p.npages, 2);
    assert_false(p.page[0].with_scene);
    assert_int_equal(p.page[0].from, 0);
    assert_int_equal(p.page[0].to, 20);
    assert_int_equal(p.page[0].scene.h, 0);
    assert_true(p.page[1].with_scene);
    assert_int_equal(p.page[1].narr.h, 0);
    assert_true(p.page[1].scene.h >= PLAYOUT_SCENE_MIN);
    no_overlap(&p);
    covers(&p, 20, NULL, NULL);
    /* 3 lines still fit with the scene. */
    present_layout_compute(30, 100, PLAYOUT_SCENE_MIN, 1, 3, NULL, NULL, NULL, &p);
    assert_int_equal(p.npages, 1);
    assert_int_equal(p.page[0].narr.h, 3);
    assert_int_equal(p.page[0].scene.h, PLAYOUT_SCENE_MIN);
    no_overlap(&p);
    /* 60 lines with a blank line every 5 (after lines 4, 9, ...): pages of up to 27 lines end
     * at a blank line: [0,24) [25,49) [50,60), then the scene. */
    bool blank[60];
    for (int i = 0; i < 60; i++)
        blank[i] = i % 5 == 4;
    present_layout_compute(30, 100, PLAYOUT_SCENE_MIN, 1, 60, blank, NULL, NULL, &p);
    assert_int_equal(p.npages, 4);
    assert_int_equal(p.page[0].to, 24);
    assert_int_equal(p.page[1].from, 25);
    assert_int_equal(p.page[1].to, 49);
    assert_int_equal(p.page[2].from, 50);
    assert_int_equal(p.page[2].to, 60);
    covers(&p, 60, blank, NULL);
    no_overlap(&p);
    /* The scene's page (entry) opens the slide with the lead: without the empty rows, 5 lines
     * fit (29 - 1 - 23), and the first block ends before line 4. */
    assert_int_equal(p.entry, 3);
    assert_int_equal(p.page[3].from, 0);
    assert_int_equal(p.page[3].to, 4);
    assert_int_equal(p.page[3].narr.y, 1);
    assert_int_equal(p.page[3].scene.y, 5);
    /* Blocks without blank lines between them (the tight layout) end where the next starts:
     * a 12-line narration whose blocks start at lines 3 and 7 leads with [0, 3). */
    bool starts[12] = {false};
    starts[3] = starts[7] = true;
    present_layout_compute(30, 100, PLAYOUT_SCENE_MIN, 1, 12, NULL, starts, NULL, &p);
    assert_int_equal(p.npages, 2);
    assert_int_equal(p.entry, 1);
    assert_int_equal(p.page[0].to, 12);
    assert_int_equal(p.page[1].to, 3);
    covers(&p, 12, NULL, starts);
    no_overlap(&p);
    /* 80x24: the title and the scene do not fit together: the scene's page is the scene
     * alone (23 rows), the narration and the title on the page before. */
    present_layout_compute(24, 80, PLAYOUT_SCENE_MIN, 1, 2, NULL, NULL, NULL, &p);
    assert_int_equal(p.npages, 2);
    assert_int_equal(p.page[0].title.h, 1);
    assert_int_equal(p.page[0].narr.h, 2);
    assert_int_equal(p.page[1].title.h, 0);
    assert_int_equal(p.page[1].scene.y, 0);
    assert_int_equal(p.page[1].scene.h, 23);
    no_overlap(&p);
    /* ... and without narration the title still gets a page. */
    present_layout_compute(24, 80, PLAYOUT_SCENE_MIN, 1, 0, NULL, NULL, NULL, &p);
    assert_int_equal(p.npages, 2);
    assert_int_equal(p.page[0].title.h, 1);
    present_layout_free(&p);
}

/* One question at a time: a 20-line narration whose own text is [0, 10) and whose two
 * exercises' questions are [10, 15) and [15, 20), beside a scene of 20 rows at 100x30
 * (8 rows or fewer beside it): the question asked now is shown whole, the other is not, and
 * a question longer than the room is not shown at all (never half of it). */
static void test_one_question(void **state)
{
    (void)state;
    struct present_layout p = {0};
    struct present_layout_ask first = {10, 10, 15}, second = {10, 15, 20}, both = {10, 10, 0};
    present_layout_compute(30, 100, 20, 1, 20, NULL, NULL, &first, &p);
    const struct present_layout_page *e = &p.page[p.entry];
    assert_true(e->with_scene);
    assert_int_equal(e->ask_from, 10);
    assert_int_equal(e->ask_to, 15);
    assert_true(present_layout_asks(&p, &first, 20));
    assert_false(present_layout_asks(&p, &second, 20));
    assert_int_equal(e->narr.h, e->to - e->from + 5);
    no_overlap(&p);
    present_layout_compute(30, 100, 20, 1, 20, NULL, NULL, &second, &p);
    e = &p.page[p.entry];
    assert_int_equal(e->ask_from, 15);
    assert_int_equal(e->ask_to, 20);
    assert_true(present_layout_asks(&p, &second, 20));
    present_layout_compute(30, 100, 20, 1, 20, NULL, NULL, &both, &p);
    e = &p.page[p.entry];
    assert_int_equal(e->ask_to - e->ask_from, 0);
    assert_false(present_layout_asks(&p, &both, 20));
    present_layout_free(&p);
}

static void test_text_slide(void **state)
{
    (void)state;
    struct present_layout p = {0};
    present_layout_compute(40, 200, 0, 1, 9, NULL, NULL, NULL, &p);
    assert_int_equal(p.npages, 1);
    assert_int_equal(p.page[0].scene.h, 0);
    assert_int_equal(p.page[0].narr.h, 9);
    assert_int_equal(p.page[0].narr.y, 2 + (37 - 9) / 3);
    assert_int_equal(p.page[0].narr.x, (200 - 88) / 2);
    no_overlap(&p);
    /* 100 lines at 80x30: pages of 27. */
    present_layout_compute(30, 80, 0, 1, 100, NULL, NULL, NULL, &p);
    assert_int_equal(p.npages, 4);
    assert_int_equal(p.page[0].narr.h, 27);
    assert_int_equal(p.page[0].narr.y, 2);
    assert_int_equal(p.page[3].to, 100);
    covers(&p, 100, NULL, NULL);
    no_overlap(&p);
    present_layout_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_too_small),  cmocka_unit_test(test_scene_slide),
        cmocka_unit_test(test_pages),      cmocka_unit_test(test_one_question),
        cmocka_unit_test(test_text_slide),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
