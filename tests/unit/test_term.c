/* test_term.c - the reading of a terminal's DECRQM answer about synchronized output (DEC
 * mode 2026, kit/term.h): Ps 1 (set) and 2 (reset) mean the terminal has it; 0 (not
 * recognised), 3 and 4 (permanently set or reset), another mode's answer, a cut-off answer
 * and DA1 alone mean it has not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ui/kit/term.h"

static void test_has_sync(void **state)
{
    (void)state;
    assert_true(term_sync_reply("\033[?2026;1$y"));
    assert_true(term_sync_reply("\033[?2026;2$y\033[?62;22c"));
    /* after a key typed while the terminal was asked */
    assert_true(term_sync_reply("x\033[?2026;2$y"));
}

static void test_has_not(void **state)
{
    (void)state;
    assert_false(term_sync_reply(""));
    assert_false(term_sync_reply("\033[?62;22c")); /* tmux 3.3a: DA1 only */
    assert_false(term_sync_reply("\033[?2026;0$y"));
    assert_false(term_sync_reply("\033[?2026;3$y"));
    assert_false(term_sync_reply("\033[?2026;4$y"));
    assert_false(term_sync_reply("\033[?2027;2$y"));
    assert_false(term_sync_reply("\033[?2026;2$"));
    assert_false(term_sync_reply("\033[?2026;2"));
    assert_false(term_sync_reply("\033[2026;2$y"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has_sync),
        cmocka_unit_test(test_has_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
