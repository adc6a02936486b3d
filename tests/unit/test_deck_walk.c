/* test_deck_walk.c - the whole deck, every frame, every size (ui/walk.h): every slide of
 * every shipped lesson drawn off-screen by the lesson player and by the presenter at
 * 80x24, 100x30 and 120x40 shows no exercise's answer before the exercise is answered, cuts
 * no line, and shows its lesson's title (whole or short) on every frame. Prints the counts for
 * each size and view; findings (at most 40 a walk) are printed with the frame and the row that
 * shows them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "ui/walk.h"

static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}};

/* A choice's answer on its own slide before it is answered (issue 31 part 1): the right
 * option's `shows:` phrases (lesson/lesson.h) on any frame of the slide, the scene stepped to
 * every step. Before the player and the presenter held a choice's scene before the step that
 * says one (app_hold), 6 places at each size in each view (lesson 05 slide 5's "which stores
 * it", lesson 10 slide 5's "reduce-scatter dx1", lesson 09 slide 6's "its all-reduce starts
 * now", lesson 09 slide 3, 10 slide 2 and 14 slide 3). */

/* Cut lines (distinct rows), per view and size: none (issue 31 part 4). It was 153, 2, 84
 * and 447, 36, 21 before the sentences and the ladder wrapped into free rows, then 22, 2, 0
 * and 21, 2, 1 before the panel shrank ahead of the transfers and the sentences, and the
 * pipeline's step sentence got every row it wraps to. The presenter's frames after each r
 * (the revealed answers) had 27, 18 and 8 more (the answer cut to one row above the scene, or
 * in the footer) before the answers went into the narration. The views a student switches to
 * (`V`: slices, channels; walk.h) were walked for answers only, their cut lines not counted:
 * 197, 88 and 202 places in the player (the step's sentence and the tick's moves cut at the
 * foot of the grid's band) before the slice view laid its grid, legend, moves and sentence
 * out by width (colldraw.c: the sentence whole, the moves whole entries and "(and more)").
 * The presenter's walk shows a live demo's slice views too (present_walk): with the old layout
 * they had 185, 89 and 131 cut places; their tick row ("tick 13 14 15 16 ...") is a count, no
 * box's values (lesson 09's 15 16 17 18 read in it). */
static const long cut_ceiling[2][3] = {{0, 0, 0}, {0, 0, 0}};

/* A later lesson's answer on an earlier frame of the presenter's deck (distinct places): none.
 * The walk collected only the lesson's own exercises until it looked across the deck, and
 * found 82+12, 92+11 and 93+9 (numbers + holds: the napkin page of lesson 02 with lessons
 * 09-14's answers, lesson 09's "L·B·D = 524288"...) before the presenter masked the later
 * lessons' answers too; then 6, 7 and 7 in text no mask may touch: lesson 05 stated and
 * revealed lesson 13's "60 64 68 72" (the same question asked twice: lesson 13's problem 2
 * has inputs of its own now, and lesson check --strict fails the repeat), and four were
 * no answers: a ratio's 32 (32x) read in a bare "32" (a row count, a box value), lesson
 * 08's scene size "64 MiB" (a setting), lesson 01's given "20 ms" (its exercise's data).
 * A holds exercise that asks slots (lesson 15's slots 8..13, lesson 13's slot 2) was read at
 * the wrong slots by the walk and the mask alike (its values come from slot 0): the walk
 * found nothing while lesson 15 slide 1 showed slide 2's answer at its end; read right, it
 * found 4 places in the player at each size and 1 in the presenter, 0 once masked.
 * A setting is given only where the frame says it ("size 64 MiB"): the parallelism panel's
 * "DDP 64 MiB" (lesson 14's 67.1 MB, drawn once the panel showed its napkin lines without a
 * worker) was 1 own-slide and 7, 7, 11 later-lesson places before predict.h counted the
 * measurement size as a setting only on the screens that say it. The panel after a finished
 * training run (walk.h: posted as the worker's result) showed lesson 13's "D/B = 8×" (its
 * tp-vs-ddp answer), with the hierarchy's napkin page, in 13, 23 and 24 places before a
 * ratio answer counted as recognisable across lessons with its unit. */
static void walk_all(enum walk_view view, const char *name)
{
    long early = 0, cuts = 0, free_cuts = 0, dead = 0, part = 0, untitled = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct walk_counts c;
        char err[400];
        int rc = walk_deck("lessons", view, sizes[i][0], sizes[i][1], &c, stdout,
                           getenv("WALK_LOG") ? atoi(getenv("WALK_LOG")) : 12, err, sizeof err);
        if (rc != 0) fprintf(stderr, "%s\n", err);
        assert_int_equal(rc, 0);
        assert_true(c.frames > 100); /* the deck was walked */
        printf("walk %s %dx%d: %ld frames; early answers: %ld number, %ld holds, %ld choice "
               "(places %ld/%ld/%ld); recalled from an earlier lesson %ld; cut lines %ld "
               "(places %ld, %ld above a blank row)\n",
               name, sizes[i][0], sizes[i][1], c.frames, c.n[WALK_EARLY_NUMBER],
               c.n[WALK_EARLY_HOLDS], c.n[WALK_EARLY_CHOICE], c.places[WALK_EARLY_NUMBER],
               c.places[WALK_EARLY_HOLDS], c.places[WALK_EARLY_CHOICE], c.places[WALK_RECALL],
               c.n[WALK_CUT], c.places[WALK_CUT], c.places[WALK_CUT_FREE]);
        if (view == WALK_PRESENTER) {
            printf("walk %s %dx%d: a later lesson's answer early: %ld (places %ld)\n", name,
                   sizes[i][0], sizes[i][1], c.n[WALK_EARLY_DECK], c.places[WALK_EARLY_DECK]);
            early += c.places[WALK_EARLY_DECK];
        }
        if (view == WALK_PLAYER) /* issue 31: was 262, 283, 283 places */
            printf("walk %s %dx%d: key hints that do nothing: %ld (places %ld)\n", name,
                   sizes[i][0], sizes[i][1], c.n[WALK_DEAD_KEY], c.places[WALK_DEAD_KEY]);
        dead += c.places[WALK_DEAD_KEY];
        /* issue 31: lesson 1 and 2's all-reduce ends drew rank 2's box as "?" (lesson 4's
         * reduce-scatter answer, which it held three steps earlier) beside three boxes and a
         * narration showing its 6 10 14 18 */
        printf("walk %s %dx%d: boxes hidden beside their values shown: %ld (places %ld)\n",
               name, sizes[i][0], sizes[i][1], c.n[WALK_PART_MASK], c.places[WALK_PART_MASK]);
        part += c.places[WALK_PART_MASK];
        /* issue 31: lesson 08's title (62 columns) was on no frame of its 7 slides at 80x24,
         * in the player (its title row dropped it) and the presenter (its footer) */
        printf("walk %s %dx%d: slides without their lesson's title: %ld frames (places %ld)\n",
               name, sizes[i][0], sizes[i][1], c.n[WALK_NO_TITLE], c.places[WALK_NO_TITLE]);
        untitled += c.places[WALK_NO_TITLE];
        early += c.places[WALK_EARLY_NUMBER] + c.places[WALK_EARLY_HOLDS] +
                 c.places[WALK_EARLY_CHOICE] + c.places[WALK_RECALL];
        free_cuts += c.places[WALK_CUT_FREE]; /* a cut with a blank row under it: never */
        if (c.places[WALK_CUT] > cut_ceiling[view][i]) {
            printf("walk %s %dx%d: %ld cut lines, more than the %ld there were\n", name,
                   sizes[i][0], sizes[i][1], c.places[WALK_CUT], cut_ceiling[view][i]);
            cuts++;
        }
    }
    assert_int_equal(early, 0);
    assert_int_equal(free_cuts, 0);
    assert_int_equal(cuts, 0);
    assert_int_equal(dead, 0);
    assert_int_equal(part, 0);
    assert_int_equal(untitled, 0);
}

static void test_player(void **state)
{
    (void)state;
    walk_all(WALK_PLAYER, "player");
}

static void test_presenter(void **state)
{
    (void)state;
    walk_all(WALK_PRESENTER, "presenter");
}

/* Lessons nobody shipped keep the invariants by construction: a teacher's two lessons
 * (tests/lesson/walk/ok) where an earlier slide's scene (another collective) shows a later
 * holds exercise's values (in one box, or one a box mid-way through an all-reduce) and the
 * first lesson's napkin page shows the second lesson's answer (419 GB/s), and the slide before
 * a holds exercise on asked slots (8..13 of an all-to-all-v) shows its scene, walk clean: the
 * box is hidden, the second lesson asks with a variant's numbers. The same lesson with
 * narration that states the answer (leak) is found: text is never masked, lesson check --strict
 * refuses it. A choice whose scene the author opens at a step that tells its answer (`shows:`,
 * the all-gather half's "which stores it") is held before that step, and walks clean; one
 * whose scene says it at step 0 (leak) cannot be held, and is found. */
static void test_teacher_lessons(void **state)
{
    (void)state;
    for (int v = 0; v < 2; v++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            struct walk_counts c;
            char err[400];
            assert_int_equal(walk_deck("tests/lesson/walk/ok", v, sizes[i][0], sizes[i][1], &c,
                                       stdout, 12, err, sizeof err),
                             0);
            assert_true(c.frames > 10);
            assert_int_equal(c.places[WALK_EARLY_NUMBER] + c.places[WALK_EARLY_HOLDS] +
                                 c.places[WALK_RECALL] + c.places[WALK_EARLY_CHOICE],
                             0);
            assert_int_equal(walk_deck("tests/lesson/walk/leak", v, sizes[i][0], sizes[i][1],
                                       &c, NULL, 0, err, sizeof err),
                             0);
            assert_true(c.places[WALK_EARLY_HOLDS] >= 1);
            assert_true(c.places[WALK_EARLY_CHOICE] >= 1); /* its first frame says it */
        }
}

/* The figures the walk reads in row, those of at least lo, into out ("" none). */
static void figs_from(const char *row, double lo, char *out, size_t n)
{
    double v[64];
    int k = walk_line_figures(row, v, 64);
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < k && o < n; i++)
        if (v[i] >= lo) o += (size_t)snprintf(out + o, n - o, "%s%g", o ? " " : "", v[i]);
}

/* A measured pipeline strip (pardraw.c: one glyph a cell, a micro-batch's digit where its
 * event starts) once showed micro-batch 3 then 2 as one-cell events side by side: the walk
 * read "32", lesson 12's pp-vs-ddp-bytes answer (32x), early, on the runs whose timing made
 * those events that short. Each digit is a token of its own; figures in text stay figures. */
static void test_strip_digits(void **state)
{
    (void)state;
    char got[200];
    figs_from("s1  \u00b7\u00b7>>32BB>\u00b7\u00b7\u00b7", 0, got, sizeof got);
    assert_string_equal(got, "");
    figs_from("\u2502 s3  0FFF>>32BB>1BBBBA", 0, got, sizeof got);
    assert_string_equal(got, "");
    figs_from("s0  3232", 0, got, sizeof got);
    assert_string_equal(got, "");
    figs_from("L\u00b7D/B = 32x more: 32\u00d7, 128B, 1.5B, 1.5 ms, it is 32.", 0, got,
              sizeof got);
    assert_string_equal(got, "32 32 128 1.5 1.5 32");
}

/* Every strip of 4 and 5 cells over the glyphs (digits 1-3, F, B, A, >, the wait's dot),
 * after its stage's label, alone or right of another pane: no figure of 10 or more. */
static void test_strips_any(void **state)
{
    (void)state;
    static const char *const g[] = {"1", "2", "3", "F", "B", "A", ">", "\u00b7"};
    static const char *const pre[] = {"s1  ", "ring 2 \u2502 s3  "};
    long bad = 0, strips = 0;
    for (int len = 4; len <= 5; len++) {
        long total = 1;
        for (int i = 0; i < len; i++)
            total *= 8;
        for (long c = 0; c < total; c++)
            for (size_t p = 0; p < 2; p++) {
                char row[100], got[200];
                size_t o = (size_t)snprintf(row, sizeof row, "%s", pre[p]);
                for (long x = c, i = 0; i < len; i++, x /= 8)
                    o += (size_t)snprintf(row + o, sizeof row - o, "%s", g[x % 8]);
                figs_from(row, 10, got, sizeof got);
                if (got[0] && bad++ < 5) printf("strip %s: read %s\n", row, got);
                strips++;
            }
    }
    printf("strips read: %ld, with a figure of 10 or more: %ld\n", strips, bad);
    assert_int_equal(bad, 0);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    /* The panel's training runs (walk.h) allocate and free their buffers, megabytes each,
     * once a configuration: kept by malloc for the next run rather than returned to the
     * system and faulted in, zeroed, again (a tenth of this program's time was the kernel
     * clearing those pages). tests/run.sh asks ASan's allocator the same. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    /* a student who has answered nothing: no progress file is read or written */
    setenv("XDG_STATE_HOME", "/nonexistent/collviz-walk", 1);
    setenv("HOME", "/nonexistent/collviz-walk", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strip_digits),    cmocka_unit_test(test_strips_any),
        cmocka_unit_test(test_player),          cmocka_unit_test(test_presenter),
        cmocka_unit_test(test_teacher_lessons),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
