/* test_keys.c - the one key table: every action reachable, no key bound twice, the keys
 * the lecture's order depends on (1-8, from the collectives' table), and the bottom bar
 * generated from the same table (help and quit always on it, items inside the width, clicks
 * mapping back to actions). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "core/coll.h"
#include "ui/kit/keys.h"

static void test_every_action_has_keys_and_help(void **state)
{
    (void)state;
    const struct key_row *t = keys_table();
    for (int a = 0; a < ACT_COUNT; a++) {
        assert_int_equal(t[a].action, a);
        assert_true(t[a].keys[0] != 0);
        assert_non_null(t[a].help);
        assert_true(strlen(t[a].help) > 3);
        /* On every screen the row is shown, its keys lead to it: so also no key is bound
         * twice on one screen. */
        for (unsigned on = 1; on <= KEYS_ON_NOTES; on <<= 1)
            if (t[a].screens & on)
                for (const int *k = t[a].keys; *k; k++)
                    assert_int_equal(keys_action_on(*k, on), a);
        if (t[a].screens & KEYS_ON_SCENES)
            for (const int *k = t[a].keys; *k; k++)
                assert_int_equal(keys_action(*k), a);
    }
}

static void test_bindings(void **state)
{
    (void)state;
    static const struct {
        int key;
        enum ui_action act;
    } want[] = {
        {KEY_RIGHT, ACT_NEXT}, {'l', ACT_NEXT},     {KEY_NPAGE, ACT_NEXT},
        {KEY_LEFT, ACT_PREV},  {'h', ACT_PREV},     {KEY_PPAGE, ACT_PREV},
        {KEY_HOME, ACT_FIRST}, {KEY_END, ACT_LAST}, {' ', ACT_PLAY},
        {'a', ACT_ALGO},       {'+', ACT_RANKS_UP}, {'-', ACT_RANKS_DOWN},
        {'o', ACT_OP},         {'r', ACT_ROOT},     {'c', ACT_COUNT_UP},
        {'C', ACT_COUNT_DOWN}, {'i', ACT_INIT},     {'m', ACT_MEASURE},
        {'s', ACT_SWEEP},      {'x', ACT_CANCEL},   {'[', ACT_SIZE_DOWN},
        {']', ACT_SIZE_UP},    {'?', ACT_HELP},     {27, ACT_CLOSE},
        {'q', ACT_QUIT},       {'Z', ACT_NONE},     {0, ACT_NONE},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(keys_action(want[i].key), want[i].act);
    /* the lesson player: n/p are slides there, the scene keys of the screens are not its */
    assert_int_equal(keys_action('n'), ACT_SCHEME);
    assert_int_equal(keys_action('p'), ACT_PARALLEL);
    assert_int_equal(keys_action_on('n', KEYS_ON_LESSON), ACT_SLIDE_NEXT);
    assert_int_equal(keys_action_on('p', KEYS_ON_LESSON), ACT_SLIDE_PREV);
    assert_int_equal(keys_action_on('\r', KEYS_ON_LESSON), ACT_ANSWER);
    assert_int_equal(keys_action_on(KEY_RIGHT, KEYS_ON_LESSON), ACT_NEXT);
    assert_int_equal(keys_action_on('a', KEYS_ON_LESSON), ACT_NONE);
    assert_int_equal(keys_action_on('H', KEYS_ON_LESSON), ACT_HINT);
    assert_int_equal(keys_action_on('q', KEYS_ON_LESSON), ACT_QUIT);
}

/* Surfaces: every scene key of the explorer reaches its action in the player, where the
 * player's own rows win a clash and the action keeps another key (issue 18); hints name
 * only keys that reach their action there. */
static void test_surfaces(void **state)
{
    (void)state;
    const struct key_row *t = keys_table();
    static const unsigned screens[] = {KEYS_ON_COLL, KEYS_ON_PAR, KEYS_ON_HIER};
    for (size_t sc = 0; sc < 3; sc++)
        for (int a = 0; a < ACT_COUNT; a++) {
            if (!(t[a].screens & screens[sc])) continue;
            /* the explorer: every key of the row */
            for (const int *k = t[a].keys; *k; k++)
                assert_int_equal(keys_action_surface(*k, SURFACE_EXPLORER, screens[sc]), a);
            /* the player: some key of the row does it, and that key is the hint */
            int k = keys_key_on((enum ui_action)a, SURFACE_PLAYER, screens[sc]);
            if (a == ACT_COLL_NEXT) { /* Tab is the next exercise there; 1-8 remain */
                assert_int_equal(k, 0);
                continue;
            }
            assert_true(k != 0);
            assert_int_equal(keys_action_surface(k, SURFACE_PLAYER, screens[sc]), a);
        }
    /* the clashes, decided: n/p slides, v new numbers, Tab the next exercise, ↑↓ j k
     * scroll; the scene keeps N, P, V, J, K (and 1-8 for the collectives) */
    unsigned coll = KEYS_ON_COLL, par = KEYS_ON_PAR, hier = KEYS_ON_HIER;
    assert_int_equal(keys_action_surface('n', SURFACE_PLAYER, par), ACT_SLIDE_NEXT);
    assert_int_equal(keys_action_surface('n', SURFACE_EXPLORER, par), ACT_SCHEME);
    assert_int_equal(keys_action_surface('N', SURFACE_PLAYER, par), ACT_SCHEME);
    assert_int_equal(keys_action_surface('P', SURFACE_PLAYER, coll), ACT_PARALLEL);
    assert_int_equal(keys_action_surface('v', SURFACE_PLAYER, coll), ACT_VARIANT);
    assert_int_equal(keys_action_surface('V', SURFACE_PLAYER, coll), ACT_VIEW);
    assert_int_equal(keys_action_surface('v', SURFACE_EXPLORER, coll), ACT_VIEW);
    assert_int_equal(keys_action_surface('j', SURFACE_PLAYER, hier), ACT_SCROLL_DOWN);
    assert_int_equal(keys_action_surface('J', SURFACE_PLAYER, hier), ACT_FIELD_NEXT);
    assert_int_equal(keys_action_surface(KEY_DOWN, SURFACE_EXPLORER, hier), ACT_FIELD_NEXT);
    assert_int_equal(keys_action_surface('\t', SURFACE_PLAYER, coll), ACT_EX_NEXT);
    assert_int_equal(keys_action_surface('\t', SURFACE_EXPLORER, coll), ACT_COLL_NEXT);
    /* the keys lesson slides ask for (03 o, 07 a, 08 [ ] s, 09 O, 11 g) */
    assert_int_equal(keys_action_surface('o', SURFACE_PLAYER, coll), ACT_OP);
    assert_int_equal(keys_action_surface('a', SURFACE_PLAYER, coll), ACT_ALGO);
    assert_int_equal(keys_action_surface('[', SURFACE_PLAYER, coll), ACT_SIZE_DOWN);
    assert_int_equal(keys_action_surface(']', SURFACE_PLAYER, coll), ACT_SIZE_UP);
    assert_int_equal(keys_action_surface('s', SURFACE_PLAYER, coll), ACT_SWEEP);
    assert_int_equal(keys_action_surface('O', SURFACE_PLAYER, par), ACT_OVERLAP);
    assert_int_equal(keys_action_surface('g', SURFACE_PLAYER, par), ACT_SCHEDULE);
    assert_int_equal(keys_action_surface('0', SURFACE_PLAYER, coll), ACT_SCENE_RESET);
    assert_int_equal(keys_action_surface(KEY_BACKSPACE, SURFACE_PLAYER, coll), ACT_SCENE_RESET);
    assert_int_equal(keys_action_surface('0', SURFACE_EXPLORER, coll), ACT_NONE);
    /* hints and names filtered by surface */
    char b[16], names[64];
    assert_string_equal(keys_hint(ACT_SCHEME, SURFACE_PLAYER, par, true, b, sizeof b), "N");
    assert_string_equal(keys_hint(ACT_SCHEME, SURFACE_EXPLORER, par, true, b, sizeof b), "n");
    assert_null(keys_hint(ACT_SCENE_RESET, SURFACE_EXPLORER, coll, true, b, sizeof b));
    keys_row_names_on(&t[ACT_VIEW], SURFACE_PLAYER, coll, true, names, sizeof names);
    assert_string_equal(names, "V");
    keys_row_names_on(&t[ACT_VIEW], SURFACE_EXPLORER, coll, true, names, sizeof names);
    assert_string_equal(names, "v V");
    keys_row_names_on(&t[ACT_SCENE_RESET], SURFACE_PLAYER, coll, false, names, sizeof names);
    assert_string_equal(names, "0 Backspace");
    /* scene actions versus program keys and a surface's own */
    assert_true(keys_is_scene_action(ACT_SWEEP));
    assert_true(keys_is_scene_action(ACT_NEXT));
    assert_false(keys_is_scene_action(ACT_QUIT));
    assert_false(keys_is_scene_action(ACT_HELP));
    assert_false(keys_is_scene_action(ACT_SLIDE_NEXT));
    assert_false(keys_is_scene_action(ACT_NONE));
    /* the keys that step a scene: exactly these five, each a scene action everywhere */
    static const enum ui_action steps[] = {ACT_NEXT, ACT_PREV, ACT_FIRST, ACT_LAST, ACT_PLAY};
    int nstep = 0;
    for (int a = 0; a < ACT_COUNT; a++)
        nstep += keys_is_step_action((enum ui_action)a);
    assert_int_equal(nstep, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_true(keys_is_step_action(steps[i]));
        assert_true(keys_is_scene_action(steps[i]));
    }
    assert_false(keys_is_step_action(ACT_NONE));
}

/* The number keys come from the collectives' table: '1' + i selects the i-th collective of
 * enum coll (the lecture's order) for the first nine, its help the collective's title; no
 * other row of the collectives screen takes a digit, and a digit past them does nothing.
 * The count and names are read from core/coll.h's table, not from the key table. */
static void test_collective_keys_in_lecture_order(void **state)
{
    (void)state;
    const struct key_row *t = keys_table();
    int numbered = COLL_COUNT < 9 ? COLL_COUNT : 9;
    for (int c = 0; c < numbered; c++) { /* no tenth digit: Tab reaches the rest */
        enum ui_action act = keys_action_on('1' + c, KEYS_ON_COLL);
        assert_int_not_equal(act, ACT_NONE);
        assert_int_equal(keys_coll_of(act), c);
        assert_int_equal(t[act].keys[0], '1' + c);
        assert_int_equal(t[act].keys[1], 0);
        assert_string_equal(t[act].help, coll_info((enum coll)c)->title);
        assert_true(t[act].screens & KEYS_ON_COLL);
        assert_true(keys_is_scene_action(act));
    }
    for (int d = '1' + numbered; d <= '9'; d++)
        assert_int_equal(keys_action_on(d, KEYS_ON_COLL), ACT_NONE);
    /* every row that selects a collective is one of them, each collective once */
    int rows = 0;
    for (int a = 0; a < ACT_COUNT; a++)
        if (keys_coll_of((enum ui_action)a) >= 0) {
            assert_int_equal(t[a].keys[0], '1' + keys_coll_of((enum ui_action)a));
            rows++;
        }
    assert_int_equal(rows, numbered);
    assert_int_equal(keys_coll_of(ACT_COLL_NEXT), -1);
    assert_int_equal(keys_coll_of(ACT_NONE), -1);
}

static void test_names(void **state)
{
    (void)state;
    char b[16], names[64];
    assert_string_equal(keys_name(KEY_RIGHT, true, b, sizeof b), "\u2192");
    assert_string_equal(keys_name(KEY_RIGHT, false, b, sizeof b), "Right");
    assert_string_equal(keys_name(KEY_NPAGE, true, b, sizeof b), "PgDn");
    assert_string_equal(keys_name(' ', true, b, sizeof b), "Space");
    assert_string_equal(keys_name(KEY_F(1), true, b, sizeof b), "F1");
    assert_string_equal(keys_name('q', true, b, sizeof b), "q");
    keys_row_names(&keys_table()[ACT_NEXT], false, names, sizeof names);
    assert_string_equal(names, "Right l PgDn");
    keys_row_names(&keys_table()[ACT_ANSWER], true, names, sizeof names);
    assert_string_equal(names, "Enter"); /* three key codes, one name */
}

static void test_bar(void **state)
{
    (void)state;
    static const int widths[] = {200, 120, 80, 40, 20};
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++)
        for (int utf8 = 0; utf8 < 2; utf8++) {
            struct bar_item it[32];
            int n = keys_bar(widths[w], utf8, it, 32);
            bool help = false, quit = false;
            for (int i = 0; i < n; i++) {
                assert_true(it[i].x >= 0 && it[i].x + it[i].w <= widths[w]);
                if (i) assert_true(it[i].x >= it[i - 1].x + it[i - 1].w + 1);
                assert_int_equal(keys_bar_hit(it, n, it[i].x), it[i].action);
                assert_int_equal(keys_bar_hit(it, n, it[i].x + it[i].w - 1), it[i].action);
                help |= it[i].action == ACT_HELP;
                quit |= it[i].action == ACT_QUIT;
                assert_non_null(keys_table()[it[i].action].bar_label);
            }
            assert_true(help && quit);
            assert_int_equal(keys_bar_hit(it, n, widths[w] + 5), ACT_NONE);
        }
    struct bar_item it[32];
    int n = keys_bar(200, true, it, 32);
    char range[8];
    snprintf(range, sizeof range, "1-%d", COLL_COUNT < 9 ? COLL_COUNT : 9);
    assert_string_equal(it[0].keys, range);
    bool step = false;
    for (int i = 0; i < n; i++)
        if (it[i].action == ACT_NEXT) {
            assert_string_equal(it[i].keys, "\u2190\u2192");
            step = true;
        }
    assert_true(step);
}

/* A slide written for the player, shown by the presenter (a lecturer's review: "press o to
 * cycle the operation" opened the presenter's overview): each named key becomes the one
 * that does that there, or says it works in the player only; other text is untouched. */
static void test_retarget_text(void **state)
{
    (void)state;
    char out[200];
    keys_retarget_text("Press `o` to cycle the operation, `a` the algorithm; `m` measures.",
                       SURFACE_PLAYER, SURFACE_PRESENTER, KEYS_ON_COLL, false, out, sizeof out);
    assert_string_equal(out,
                        "Press `*` to cycle the operation, `A` the algorithm; `m` measures.");
    keys_retarget_text("Press `g` to switch schedules", SURFACE_PLAYER, SURFACE_PRESENTER,
                       KEYS_ON_PAR, false, out, sizeof out);
    /* g is the presenter's go-to, G its glossary (as the player's): S switches there */
    assert_string_equal(out, "Press `S` to switch schedules");
    keys_retarget_text("`b` shows the backends", SURFACE_PLAYER, SURFACE_PRESENTER,
                       KEYS_ON_COLL, false, out, sizeof out);
    assert_string_equal(out, "`b` (in the player) shows the backends");
    /* not a scene key (the player's own n), not one key, not code: as written */
    keys_retarget_text("`n` next, `[ ]` size, press o, `oo`", SURFACE_PLAYER, SURFACE_PRESENTER,
                       KEYS_ON_COLL, false, out, sizeof out);
    assert_string_equal(out, "`n` next, `[ ]` size, press o, `oo`");
    /* the same surface: nothing to change; a short buffer stays a string */
    keys_retarget_text("`o`", SURFACE_PLAYER, SURFACE_PLAYER, KEYS_ON_COLL, false, out,
                       sizeof out);
    assert_string_equal(out, "`o`");
    keys_retarget_text("Press `o` now", SURFACE_PLAYER, SURFACE_PRESENTER, KEYS_ON_COLL, false,
                       out, 8);
    assert_string_equal(out, "Press ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_action_has_keys_and_help),
        cmocka_unit_test(test_bindings),
        cmocka_unit_test(test_surfaces),
        cmocka_unit_test(test_collective_keys_in_lecture_order),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_bar),
        cmocka_unit_test(test_retarget_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
