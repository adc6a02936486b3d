/* test_term.c - the reading of a terminal's DECRQM answer about synchronized output (DEC
 * mode 2026, kit/term.h): Ps 1 (set) and 2 (reset) mean the terminal has it; 0 (not
 * recognised), 3 and 4 (permanently set or reset), another mode's answer, a cut-off answer
 * and DA1 alone mean it has not. And the answers told from keys (term_reply_len): DA1's
 * and DECRPM's, whole, have their length whatever follows; each of their beginnings is
 * cut short (-1); a key, an Esc sequence of a key and a near miss are not answers (0). */
#include <string.h>
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

/* n characters of the text s as getch gives them, into k */
static int as_keys(const char *s, int *k)
{
    int n = (int)strlen(s);
    for (int i = 0; i < n; i++)
        k[i] = (unsigned char)s[i];
    return n;
}

static void test_reply_whole(void **state)
{
    (void)state;
    static const char *answers[] = {
        "\033[?62;22c",   "\033[?1;2c",     "\033[?6c",       "\033[?64;1;2;6;9;15;18;21;22c",
        "\033[?2026;2$y", "\033[?2026;1$y", "\033[?2026;0$y", "\033[?1049;4$y"};
    for (size_t a = 0; a < sizeof answers / sizeof *answers; a++) {
        int k[96], n = as_keys(answers[a], k);
        /* whole, and with keys after it */
        assert_int_equal(term_reply_len(k, n), n);
        k[n] = 'q';
        k[n + 1] = 27;
        assert_int_equal(term_reply_len(k, n + 2), n);
        /* every beginning (Esc alone included) is cut short */
        for (int m = 1; m < n; m++)
            assert_int_equal(term_reply_len(k, m), -1);
    }
}

static void test_reply_not(void **state)
{
    (void)state;
    static const char *keys[] = {
        "q",       "?",        "2",        "\033[A",       "\033[6~",        "\033OC",
        "\033q",   "\033[?c",  "\033[?$y", "\033[?62;22x", "\033[?2026;2$z", "\033[?2026;2y",
        "\033[[A", "\033?62c", "[?62;22c"};
    for (size_t a = 0; a < sizeof keys / sizeof *keys; a++) {
        int k[32], n = as_keys(keys[a], k);
        assert_int_equal(term_reply_len(k, n), 0);
    }
    /* every key curses gives as a code of its own, first or after Esc */
    for (int c = 0; c < 1024; c++) {
        int k[2] = {c, '['};
        if (c != 27) assert_int_equal(term_reply_len(k, 1), 0);
        k[0] = 27;
        k[1] = c;
        assert_int_equal(term_reply_len(k, 2), c == '[' ? -1 : 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has_sync),
        cmocka_unit_test(test_has_not),
        cmocka_unit_test(test_reply_whole),
        cmocka_unit_test(test_reply_not),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
