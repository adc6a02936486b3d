/* test_notes_walk.c - the speaker's notes terminal over the whole deck (ui/present/
 * notes_walk.h): every slide of every shipped lesson, sent by the presenter and shown by
 * `collviz notes` off-screen at 80x24, 100x30 and 120x40, and a lesson with notes longer than
 * any screen (tests/lesson/notes): every word of the note, the answers and the narration the
 * room does not see is reachable, a mark says where text goes on below or above, the keys
 * scroll as they say, a new slide opens at the top of its notes and the clock's tick keeps
 * the place. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>

#include "ui/present/notes_walk.h"

static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}};

/* Every count is 0. Before the notes scrolled (issue 31, a lecturer's walk) the deck's slides
 * whose note, answers or unshown narration lost words with no mark were 86, 23 and 2 of 93 at
 * the three sizes (the 2 at 120x40: a sentence's two spaces made text_wrap's line a column too
 * wide), with a row ending in "…" on 47, 10 and 2; the long-notes lesson lost words on 2, 2
 * and 1 of its 4 slides. Before the keys took one line (issue 31's leftovers) the presenter's
 * keys took four rows and this terminal's one: the note got 9 to 11 of 24 rows on all 93
 * slides at 80x24 (cramped 93; 86 longer than a screen), 53 slides had 15 of 30 or fewer,
 * and on 39 slides at 80x24 some presenter keys were nowhere (the four rows did not hold
 * them and `?` did nothing). min_long: the walk saw notes that need scrolling at 80x24. */
static void walk(const char *path, long min_long)
{
    long bad = 0, longest = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct notes_walk_counts c;
        char err[400];
        int rc =
            notes_walk(path, sizes[i][0], sizes[i][1], &c, stdout,
                       getenv("WALK_LOG") ? atoi(getenv("WALK_LOG")) : 12, err, sizeof err);
        if (rc != 0) fprintf(stderr, "%s\n", err);
        assert_int_equal(rc, 0);
        printf(
            "notes %s %dx%d: %ld slides, %ld longer than a screen; words not reachable on "
            "%ld, no mark %ld, false mark %ld, keys %ld, not reset %ld, jumped %ld, cut rows "
            "%ld, cramped %ld, presenter's keys %ld\n",
            path, sizes[i][0], sizes[i][1], c.slides, c.long_notes, c.lost, c.unmarked,
            c.false_mark, c.keys_bad, c.not_reset, c.jumped, c.cut_rows, c.cramped, c.keylist);
        assert_true(c.slides >= 4);
        if (i == 0) longest = c.long_notes;
        bad += c.lost + c.unmarked + c.false_mark + c.keys_bad + c.not_reset + c.jumped +
               c.cut_rows + c.cramped + c.keylist;
    }
    assert_int_equal(bad, 0);
    assert_true(longest >= min_long);
}

static void test_deck(void **state)
{
    (void)state;
    walk("lessons", 40);
}

static void test_long_notes(void **state)
{
    (void)state;
    walk("tests/lesson/notes", 2);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    setenv("XDG_STATE_HOME", "/nonexistent/collviz-walk", 1);
    setenv("HOME", "/nonexistent/collviz-walk", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_notes),
        cmocka_unit_test(test_deck),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
