/* room_script.h - the presenter driven without a terminal, as the room tests drive it
 * (test_room, test_room_words): present_script (ui/present/present.h) drawing into its own
 * off-screen curses screen, that screen read back as text, keys typed as a speaker types
 * them, and the shipped lessons read as the deck reads them. Include after <cmocka.h>. */
#ifndef COLLVIZ_TEST_ROOM_SCRIPT_H
#define COLLVIZ_TEST_ROOM_SCRIPT_H

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#include "core/util.h"
#include "lesson/lesson.h"
#include "ui/present/present.h"

/* A test run at one terminal size: name(state) runs fn(cols, rows). */
#define ROOM_AT(name, fn, cols, rows)                                                          \
    static void name(void **state)                                                             \
    {                                                                                          \
        (void)state;                                                                           \
        fn(cols, rows);                                                                        \
    }

/* The presenter with options o on an off-screen terminal of cols x rows; fails the test
 * when it cannot open. */
static inline struct present_script *room_open(const struct present_opts *o, int cols, int rows)
{
    struct present_script *s;
    char err[400];
    if (present_script_open(&s, o, cols, rows, err, sizeof err) != CV_OK)
        fail_msg("present_script_open: %s", err);
    return s;
}

/* The screen's text into buf (n bytes), one line a row, each row its full width. */
static inline void room_text(char *buf, size_t n)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    size_t o = 0;
    wchar_t w[512];
    for (int y = 0; y < rows && o + 1 < n; y++) {
        int got = mvwinnwstr(stdscr, y, 0, w, cols < 511 ? cols : 511);
        if (got < 0) got = 0;
        w[got] = L'\0';
        size_t k = wcstombs(buf + o, w, n - o - 2);
        if (k == (size_t)-1) k = 0;
        o += k;
        buf[o++] = '\n';
    }
    buf[o] = '\0';
}

/* Each character of ks pressed, '\n' as Enter. */
static inline void room_keys(struct present_script *s, const char *ks)
{
    for (const char *k = ks; *k; k++)
        present_script_key(s, *k == '\n' ? '\r' : *k);
}

/* g N Enter: to slide n (1-based). */
static inline void room_goto(struct present_script *s, size_t n)
{
    char go[32];
    snprintf(go, sizeof go, "g%zu\n", n);
    room_keys(s, go);
}

/* The shipped lessons (lessons/) into set, which the caller frees; returns how many errors
 * reading them reported. */
static inline size_t room_lessons(struct lesson_set *set)
{
    struct lesson_errors errs = {0};
    lesson_set_init(set);
    assert_int_equal(lesson_set_add(set, "lessons", &errs), CV_OK);
    size_t n = errs.n;
    lesson_errors_free(&errs);
    return n;
}

#endif
