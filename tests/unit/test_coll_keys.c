/* test_coll_keys.c - every collective of the collectives' table is reached from the keys:
 * the i-th (the lecture's order, enum coll's) by the number key i+1 for the first nine,
 * each by the next-collective key, and the help (?) of the collectives screen lists each
 * numbered one beside its key. Expected keys and names come from core/coll.h's table
 * (COLL_COUNT, coll_info's titles), never from the key table: a collective added to the
 * table is covered with no change here. Drawn off-screen (kit/svg.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll.h"
#include "offscreen_app.h"
#include "ui/overlays/overlays.h"

#define HELP_COLS 120
#define HELP_ROWS 40

/* The number of collectives a digit reaches: the first nine. */
static int numbered(void)
{
    return COLL_COUNT < 9 ? COLL_COUNT : 9;
}

/* Each numbered collective's key, pressed on the collectives screen from the one after it,
 * shows that collective; a digit past them changes nothing. */
static void test_number_key_selects(void **state)
{
    (void)state;
    struct svg_offscreen o;
    struct app *a = offscreen_app(&o, HELP_COLS, HELP_ROWS);
    char err[200];
    for (int c = 0; c < numbered(); c++) {
        struct scene sc = a->sc;
        sc.coll = (enum coll)((c + 1) % COLL_COUNT);
        sc.algo = coll_default_algo(sc.coll);
        if (app_set_scene(a, &sc, err, sizeof err) != CV_OK) fail_msg("%s", err);
        assert_true(app_scene_key(a, '1' + c, 0));
        assert_int_equal(a->sc.screen, SCREEN_COLLECTIVES);
        assert_int_equal(a->sc.coll, c);
        assert_true(algo_supported(a->sc.coll, a->sc.algo));
    }
    for (int d = '1' + numbered(); d <= '9'; d++) {
        enum coll before = a->sc.coll;
        assert_false(app_scene_key(a, d, 0));
        assert_int_equal(a->sc.coll, before);
    }
    offscreen_app_free(a, &o);
}

/* The player reads the same digits for the same collectives (its own rows take none). */
static void test_number_keys_in_the_player(void **state)
{
    (void)state;
    for (int c = 0; c < numbered(); c++) {
        enum ui_action ex = keys_action_surface('1' + c, SURFACE_EXPLORER, KEYS_ON_COLL);
        assert_int_equal(keys_coll_of(ex), c);
        assert_int_equal(keys_action_surface('1' + c, SURFACE_PLAYER, KEYS_ON_COLL), ex);
        assert_int_equal(keys_action_surface('1' + c, SURFACE_PRESENTER, KEYS_ON_COLL), ex);
    }
}

/* Tab visits every collective of the table once, the numbered ones and any after them. */
static void test_next_key_visits_all(void **state)
{
    (void)state;
    struct svg_offscreen o;
    struct app *a = offscreen_app(&o, HELP_COLS, HELP_ROWS);
    char err[200];
    struct scene sc = a->sc;
    sc.coll = (enum coll)0;
    assert_int_equal(app_set_scene(a, &sc, err, sizeof err), CV_OK);
    int seen[COLL_COUNT] = {0};
    for (int i = 0; i < COLL_COUNT; i++) {
        seen[a->sc.coll]++;
        assert_true(app_scene_key(a, '\t', 0));
    }
    assert_int_equal(a->sc.coll, 0);
    for (int c = 0; c < COLL_COUNT; c++)
        assert_int_equal(seen[c], 1);
    offscreen_app_free(a, &o);
}

/* Does a row of text hold `key` as a word, then only blanks, then `title`? */
static bool help_has_entry(const char *text, char key, const char *title)
{
    size_t tl = strlen(title);
    for (const char *p = strstr(text, title); p; p = strstr(p + 1, title)) {
        size_t at = (size_t)(p - text), k = at;
        if (isalnum((unsigned char)text[at + tl]) || text[at + tl] == '-') continue;
        while (k > 0 && text[k - 1] == ' ')
            k--;
        if (k == at || k == 0 || text[k - 1] != key) continue; /* "K  title" */
        /* the key alone: after a blank, a row's start or a frame glyph */
        if (k == 1 || text[k - 2] == ' ' || text[k - 2] == '\n' ||
            (unsigned char)text[k - 2] >= 0x80)
            return true;
    }
    return false;
}

/* The help of the collectives screen, every page of it: each numbered collective beside
 * its key, under its title from the table. */
static void test_help_lists_each(void **state)
{
    (void)state;
    struct svg_offscreen o;
    struct app *a = offscreen_app(&o, HELP_COLS, HELP_ROWS);
    a->help = true;
    int found[COLL_COUNT] = {0};
    int pages = 1;
    for (int pg = 0; pg < pages; pg++) {
        a->help_page = pg;
        offscreen_clear(a);
        overlay_help(a, (struct rect){0, 0, HELP_ROWS, HELP_COLS});
        pages = a->help_npages;
        char *t = offscreen_text();
        for (int c = 0; c < numbered(); c++)
            found[c] += help_has_entry(t, (char)('1' + c), coll_info((enum coll)c)->title);
        free(t);
    }
    for (int c = 0; c < numbered(); c++)
        if (found[c] != 1)
            fail_msg("the help lists \"%c  %s\" %d times, not once", '1' + c,
                     coll_info((enum coll)c)->title, found[c]);
    offscreen_app_free(a, &o);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_number_key_selects),
        cmocka_unit_test(test_number_keys_in_the_player),
        cmocka_unit_test(test_next_key_visits_all),
        cmocka_unit_test(test_help_lists_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
