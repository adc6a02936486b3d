/* test_deck.c - the presenter's clicker: walking a three-slide talk forward and back through
 * scene steps and slides, whole-slide moves, the ends, resolving entry steps, and the
 * "g N Enter" prompt. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curses.h>

#include "present/deck.h"

/* Slide 0: no scene; slide 1: a 6-step scene starting at step 0; slide 2: a 2-step scene
 * starting at its end (-1). */
static const long nsteps_of[3] = {0, 6, 2};
static const long start_of[3] = {0, 0, -1};

static struct deck_pos walk(struct deck_pos p, enum deck_move m, bool *moved)
{
    struct deck_pos q;
    *moved = deck_move(p, nsteps_of[p.slide], 1, 3, m, 0, &q);
    q.step = deck_resolve(q.step, start_of[q.slide], nsteps_of[q.slide]);
    if (q.page == DECK_PAGE_END || q.page == DECK_PAGE_ENTRY) q.page = 0; /* one page each */
    return q;
}

static void test_forward_and_back(void **state)
{
    (void)state;
    /* Forward from the start: slide 0, then slide 1's steps 0..6, then slide 2 at its end. */
    const struct deck_pos fwd[] = {{1, 0, 0}, {1, 1, 0}, {1, 2, 0}, {1, 3, 0},
                                   {1, 4, 0}, {1, 5, 0}, {1, 6, 0}, {2, 2, 0}};
    struct deck_pos p = {0, 0, 0};
    bool moved;
    for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) {
        p = walk(p, DECK_NEXT, &moved);
        assert_true(moved);
        assert_int_equal(p.slide, fwd[i].slide);
        assert_int_equal(p.step, fwd[i].step);
    }
    p = walk(p, DECK_NEXT, &moved); /* past the end: nothing moves */
    assert_false(moved);
    assert_int_equal(p.slide, 2);
    assert_int_equal(p.step, 2);
    /* Back: slide 2's steps down to 0, then slide 1 at its last step, down, then slide 0. */
    const struct deck_pos back[] = {{2, 1, 0}, {2, 0, 0}, {1, 6, 0}, {1, 5, 0}, {1, 4, 0},
                                    {1, 3, 0}, {1, 2, 0}, {1, 1, 0}, {1, 0, 0}, {0, 0, 0}};
    for (size_t i = 0; i < sizeof back / sizeof back[0]; i++) {
        p = walk(p, DECK_PREV, &moved);
        assert_true(moved);
        assert_int_equal(p.slide, back[i].slide);
        assert_int_equal(p.step, back[i].step);
    }
    p = walk(p, DECK_PREV, &moved);
    assert_false(moved);
    assert_int_equal(p.slide, 0);
}

static void test_whole_slides(void **state)
{
    (void)state;
    struct deck_pos p = {1, 3, 0}, q;
    assert_true(deck_move(p, 6, 1, 3, DECK_NEXT_SLIDE, 0, &q));
    assert_int_equal(q.slide, 2);
    assert_int_equal(q.step, DECK_STEP_START);
    assert_true(deck_move(p, 6, 1, 3, DECK_PREV_SLIDE, 0, &q));
    assert_int_equal(q.slide, 0);
    assert_int_equal(q.step, DECK_STEP_START);
    assert_true(deck_move(p, 6, 1, 3, DECK_LAST, 0, &q));
    assert_int_equal(q.slide, 2);
    assert_true(deck_move(p, 6, 1, 3, DECK_FIRST, 0, &q));
    assert_int_equal(q.slide, 0);
    assert_true(deck_move(p, 6, 1, 3, DECK_GOTO, 3, &q));
    assert_int_equal(q.slide, 2);
    assert_false(deck_move(p, 6, 1, 3, DECK_GOTO, 4, &q));
    assert_int_equal(q.slide, 1);
    assert_int_equal(q.step, 3);
    assert_false(deck_move(p, 6, 1, 3, DECK_GOTO, 0, &q));
    assert_false(deck_move((struct deck_pos){2, 0, 0}, 2, 1, 3, DECK_NEXT_SLIDE, 0, &q));
    assert_false(deck_move((struct deck_pos){0, 0, 0}, 0, 1, 3, DECK_PREV_SLIDE, 0, &q));
    assert_false(deck_move((struct deck_pos){0, 0, 0}, 0, 1, 0, DECK_NEXT, 0, &q));
}

/* A slide of 3 pages (two text pages, then the scene's page with the narration's lead) and
 * a 2-step scene (starting at step 0), between two one-page slides without scenes: forward
 * enters it on the scene's page (DECK_PAGE_ENTRY, which the caller resolves to the page it
 * opens on) and walks steps 1 2; backward walks the steps down to 0, then the text pages, then
 * enters the previous slide at its last page; forward from a text page turns the pages and
 * shows the scene's page at the step it was at. */
static void test_pages(void **state)
{
    (void)state;
    const int pages_of[3] = {1, 3, 1}, entry_of[3] = {0, 2, 0};
    const long steps_of[3] = {0, 2, 0};
    struct {
        size_t slide;
        int page;
        long step;
    } fwd[] = {{1, 2, 0}, {1, 2, 1}, {1, 2, 2}, {2, 0, 0}},
      back[] = {{1, 2, 2}, {1, 2, 1}, {1, 2, 0}, {1, 1, 0}, {1, 0, 0}, {0, 0, 0}},
      again[] = {{1, 1, 0}, {1, 2, 0}, {1, 2, 1}};
    struct deck_pos p = {0, 0, 0}, q;
    for (size_t i = 0; i < sizeof fwd / sizeof fwd[0]; i++) {
        assert_true(deck_move(p, steps_of[p.slide], pages_of[p.slide], 3, DECK_NEXT, 0, &q));
        if (q.step == DECK_STEP_START) q.step = 0;
        assert_int_equal(q.page, q.slide == p.slide ? q.page : DECK_PAGE_ENTRY);
        if (q.page == DECK_PAGE_ENTRY) q.page = entry_of[q.slide];
        assert_int_equal(q.slide, fwd[i].slide);
        assert_int_equal(q.page, fwd[i].page);
        assert_int_equal(q.step, fwd[i].step);
        p = q;
    }
    for (size_t i = 0; i < sizeof back / sizeof back[0]; i++) {
        assert_true(deck_move(p, steps_of[p.slide], pages_of[p.slide], 3, DECK_PREV, 0, &q));
        if (q.page == DECK_PAGE_END) q.page = pages_of[q.slide] - 1;
        if (q.step == DECK_STEP_END) q.step = steps_of[q.slide];
        assert_int_equal(q.slide, back[i].slide);
        assert_int_equal(q.page, back[i].page);
        assert_int_equal(q.step, back[i].step);
        p = q;
    }
    p = (struct deck_pos){1, 0, 0};
    for (size_t i = 0; i < sizeof again / sizeof again[0]; i++) {
        assert_true(deck_move(p, steps_of[1], pages_of[1], 3, DECK_NEXT, 0, &q));
        assert_int_equal(q.slide, again[i].slide);
        assert_int_equal(q.page, again[i].page);
        assert_int_equal(q.step, again[i].step);
        p = q;
    }
    /* Whole-slide moves enter on the page the slide opens on. */
    assert_true(deck_move((struct deck_pos){2, 0, 0}, 0, 1, 3, DECK_PREV_SLIDE, 0, &q));
    assert_int_equal(q.page, DECK_PAGE_ENTRY);
    assert_int_equal(q.slide, 1);
}

static void test_resolve(void **state)
{
    (void)state;
    assert_int_equal(deck_resolve(DECK_STEP_START, 2, 6), 2);
    assert_int_equal(deck_resolve(DECK_STEP_START, -1, 6), 6); /* the scene's step=end */
    assert_int_equal(deck_resolve(DECK_STEP_END, 2, 6), 6);
    assert_int_equal(deck_resolve(DECK_STEP_START, 9, 6), 6); /* clamped after a reload */
    assert_int_equal(deck_resolve(4, 0, 3), 3);
    assert_int_equal(deck_resolve(DECK_STEP_END, 0, 0), 0);
}

static void test_goto_prompt(void **state)
{
    (void)state;
    struct deck_goto g = {.active = true};
    long n = -1;
    assert_int_equal(deck_goto_key(&g, '1', &n), DECK_GOTO_MORE);
    assert_int_equal(deck_goto_key(&g, '9', &n), DECK_GOTO_MORE);
    assert_int_equal(deck_goto_key(&g, KEY_BACKSPACE, &n), DECK_GOTO_MORE);
    assert_int_equal(deck_goto_key(&g, '2', &n), DECK_GOTO_MORE);
    assert_string_equal(g.digits, "12");
    assert_int_equal(deck_goto_key(&g, '\r', &n), DECK_GOTO_DONE);
    assert_int_equal(n, 12);
    assert_false(g.active);
    g.active = true;
    assert_int_equal(deck_goto_key(&g, '3', &n), DECK_GOTO_MORE);
    assert_int_equal(deck_goto_key(&g, 27, &n), DECK_GOTO_CANCEL);
    assert_string_equal(g.digits, "");
    g.active = true;
    assert_int_equal(deck_goto_key(&g, KEY_ENTER, &n), DECK_GOTO_DONE);
    assert_int_equal(n, 0);
    /* At most 7 digits are kept. */
    g.active = true;
    for (int i = 0; i < 12; i++)
        deck_goto_key(&g, '9', &n);
    assert_string_equal(g.digits, "9999999");
}

/* Stops: PageDown walks 0 -> 3 -> 6 of a six-step scene (phase ends), the arrows every step;
 * the press from a text page onto the scene's page shows the scene at its start (the step
 * the narration describes) and the next press its first stop;
 * skip goes to the end, then out. */
static void test_stops(void **state)
{
    (void)state;
    long stops[DECK_STOPS_MAX];
    const long phases[] = {3, 6};
    size_t n = deck_stops(NULL, 0, phases, 2, 0, 6, stops);
    assert_int_equal(n, 3);
    assert_int_equal(stops[0], 0);
    assert_int_equal(stops[1], 3);
    assert_int_equal(stops[2], 6);
    struct deck_slide d = {6, 1, stops, n};
    struct deck_pos p = {1, 0, 0}, q;
    assert_true(deck_move_in(p, &d, 3, DECK_NEXT, 0, &q));
    assert_int_equal(q.step, 3);
    assert_true(deck_move_in(q, &d, 3, DECK_NEXT, 0, &q));
    assert_int_equal(q.step, 6);
    assert_true(deck_move_in(q, &d, 3, DECK_NEXT, 0, &q));
    assert_int_equal(q.slide, 2);
    /* back: the stops in reverse, then the previous slide */
    p = (struct deck_pos){1, 5, 0};
    assert_true(deck_move_in(p, &d, 3, DECK_PREV, 0, &q));
    assert_int_equal(q.step, 3);
    assert_true(deck_move_in(q, &d, 3, DECK_PREV, 0, &q));
    assert_int_equal(q.step, 0);
    assert_true(deck_move_in(q, &d, 3, DECK_PREV, 0, &q));
    assert_int_equal(q.slide, 0);
    /* the arrows: every step */
    p = (struct deck_pos){1, 3, 0};
    assert_true(deck_move_in(p, &d, 3, DECK_STEP_NEXT, 0, &q));
    assert_int_equal(q.step, 4);
    assert_true(deck_move_in(p, &d, 3, DECK_STEP_PREV, 0, &q));
    assert_int_equal(q.step, 2);
    /* two pages: the text page's PageDown shows the scene at its start, no further */
    struct deck_slide d2 = {6, 2, stops, n};
    p = (struct deck_pos){1, 0, 0};
    assert_true(deck_move_in(p, &d2, 3, DECK_NEXT, 0, &q));
    assert_int_equal(q.page, 1);
    assert_int_equal(q.step, 0);
    assert_true(deck_move_in(q, &d2, 3, DECK_NEXT, 0, &q));
    assert_int_equal(q.step, 3);
    /* skip: from the text page or mid-scene to the end, then the next slide */
    assert_true(deck_move_in(p, &d2, 3, DECK_SKIP, 0, &q));
    assert_int_equal(q.page, 1);
    assert_int_equal(q.step, 6);
    assert_true(deck_move_in(q, &d2, 3, DECK_SKIP, 0, &q));
    assert_int_equal(q.slide, 2);
    assert_int_equal(q.step, DECK_STEP_START);
    assert_false(deck_move_in((struct deck_pos){2, 6, 1}, &d2, 3, DECK_SKIP, 0, &q));
}

/* The author's marks win over the phases; the start is always a stop; a phase that ended
 * before the start is dropped; out-of-range marks are dropped; no phases: the end. */
static void test_stops_resolve(void **state)
{
    (void)state;
    long out[DECK_STOPS_MAX];
    const long marks[] = {0, 3, DECK_STOP_END}, phases[] = {3, 6, 7}, bad[] = {2, 99};
    assert_int_equal(deck_stops(marks, 3, phases, 3, 0, 7, out), 3);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 3);
    assert_int_equal(out[2], 7);
    assert_int_equal(deck_stops(NULL, 0, phases, 3, 5, 7, out), 3); /* 5 6 7 */
    assert_int_equal(out[0], 5);
    assert_int_equal(out[1], 6);
    assert_int_equal(deck_stops(bad, 2, NULL, 0, 0, 6, out), 2); /* 0 2 */
    assert_int_equal(out[1], 2);
    assert_int_equal(deck_stops(NULL, 0, NULL, 0, 2, 6, out), 2); /* 2 6 */
    assert_int_equal(out[1], 6);
    assert_int_equal(deck_stops(NULL, 0, NULL, 0, 0, 0, out), 1); /* no scene: 0 */
}

/* The steps a narration names: words and numbers as a lecturer writes them. */
static void test_named_steps(void **state)
{
    (void)state;
    long v[DECK_STOPS_MAX];
    const char *a = "# Inside the ring: stop after step 3\nThis is the ring after **3 of its 6 "
                    "steps**. The label says `reduce-scatter 3/3`; step 2/6 was before.";
    assert_int_equal(deck_named_steps(a, 0, 6, v, DECK_STOPS_MAX), 1);
    assert_int_equal(v[0], 3);
    /* two steps, ascending, each once; a step past the scene's end is not one of its */
    assert_int_equal(deck_named_steps("Step 5, then step 1, 1 of 6 steps, step 9.", 0, 6, v, 8),
                     2);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 5);
    /* no step named: a ratio, a decimal, a word ending in "step" */
    assert_int_equal(deck_named_steps("3/3 done, 1.5 s a step, a footstep 4", 0, 6, v, 8), 0);
    /* so many steps on from where the scene starts (issue 31): "Step forward once" from 0 */
    assert_int_equal(deck_named_steps("Step forward once and watch.", 0, 6, v, 8), 1);
    assert_int_equal(v[0], 1);
    assert_int_equal(deck_named_steps("Press `\u2192` twice, then step 3 times.", 2, 6, v, 8),
                     2);
    assert_int_equal(v[0], 4);
    assert_int_equal(v[1], 5);
    /* without a start nothing is relative; past the end is no step of the scene */
    assert_int_equal(deck_named_steps("Step forward once.", -1, 6, v, 8), 0);
    assert_int_equal(deck_named_steps("Press l 9 times.", 0, 6, v, 8), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_and_back),
        cmocka_unit_test(test_whole_slides),
        cmocka_unit_test(test_pages),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_goto_prompt),
        cmocka_unit_test(test_stops),
        cmocka_unit_test(test_stops_resolve),
        cmocka_unit_test(test_named_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
