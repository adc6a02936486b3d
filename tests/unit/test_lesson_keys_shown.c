/* test_lesson_keys_shown.c - every key a slide's narration asks for does something the
 * student sees (ui/screens/lesson/lesson_keys.h): on every slide of every shipped lesson, in
 * the lesson player drawn off-screen at 80x24, 100x30 and 120x40, each key the narration or
 * a prompt asks for ("press `O`", "press o") is pressed on the slide's own scene and the
 * screen read back must differ from the one before (the scene, its title, a line saying what
 * the key did). Keys that move through the steps count where the slide's scene has steps to
 * move through, and are pressed from the other end (→ from the first frame, ← from the
 * last). The deck walk checks the bar's keys and the text's key hints the same way
 * (ui/walk.h: WALK_DEAD_KEY); this is the narration's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curses.h>
#include <glob.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/lesson.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "ui/kit/keys.h"
#include "ui/kit/svg.h"
#include "ui/kit/theme.h"
#include "ui/screens/lesson/lesson_keys.h"
#include "ui/screens/lesson/lesson_ui.h"
#include "ui/walk.h"

static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}};

static char *screen_text(struct app *a)
{
    frame_draw(a);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_write_text(stdscr, f);
    fclose(f);
    return text;
}

static void press(struct app *a, int ch)
{
    if (a->frame && a->frame->key && a->frame->key(a, ch)) return;
    enum ui_action act = app_key_action(a, ch);
    if (act == ACT_NONE) return;
    a->msg[0] = '\0';
    app_do(a, act, now_s());
}

static void set_step(struct app *a, long st)
{
    struct scene next = a->sc;
    next.step = st;
    a->playing = false;
    char err[200];
    app_set_scene(a, &next, err, sizeof err);
}

/* One lesson at the size open: every slide's asked keys. Returns the keys that showed
 * nothing, each printed; *pressed counts the keys pressed. */
static long lesson_keys(const char *file, int cols, int rows, long *pressed)
{
    struct app *a = walk_app();
    char err[300];
    assert_int_equal(lesson_ui_open(a, file, err, sizeof err), CV_OK);
    struct lesson_ui *u = lesson_ui_of(a);
    if (u->have_prog) { /* a student who has answered nothing; nothing saved */
        progress_free(&u->prog);
        u->have_prog = false;
    }
    a->frame->apply(a, SF_ALL);
    long bad = 0;
    for (size_t k = 0; k < u->L->nslides; k++) {
        if (k > 0) press(a, 'n');
        assert_int_equal(u->slide, k);
        int keys[16];
        size_t n = lesson_keys_asked(u->L, k, keys, 16);
        for (size_t i = 0; i < n; i++) {
            int ch = keys[i];
            enum ui_action act = app_key_action(a, ch);
            /* keys that leave the slide, answer or open an overlay: not the scene's */
            if (act == ACT_NONE || act == ACT_SLIDE_NEXT || act == ACT_SLIDE_PREV ||
                act == ACT_QUIT || act == ACT_HELP || act == ACT_ANSWER)
                continue;
            long from = -1;
            if (keys_is_step_action(act)) {
                long last = u->scene_ok ? (long)app_nsteps(a) : 0;
                if (last == 0) continue; /* nothing to step: the lesson check says so */
                from = act == ACT_PREV || act == ACT_LAST ? last : 0;
                if (act == ACT_FIRST) from = last;
                set_step(a, from);
            }
            u->scroll = 0;
            char *before = screen_text(a);
            press(a, ch);
            a->playing = false;
            char *after = screen_text(a);
            (*pressed)++;
            if (strcmp(before, after) == 0) {
                char name[32];
                keys_name(ch, true, name, sizeof name);
                print_message("%s slide %zu (%s) %dx%d: the narration's key %s shows "
                              "nothing\n",
                              file, k + 1, u->L->slides[k].title, cols, rows, name);
                bad++;
            }
            free(before);
            free(after);
            a->msg[0] = '\0';
            press(a, '0'); /* the slide's own scene again */
        }
    }
    app_free(a);
    free(a);
    return bad;
}

static void test_narration_keys_shown(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("lessons/[0-9]*.md", 0, NULL, &g), 0);
    long bad = 0, pressed = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct svg_offscreen o;
        char err[200];
        assert_int_equal(svg_offscreen_open(&o, sizes[i][0], sizes[i][1], err, sizeof err),
                         CV_OK);
        for (size_t f = 0; f < g.gl_pathc; f++)
            bad += lesson_keys(g.gl_pathv[f], sizes[i][0], sizes[i][1], &pressed);
        svg_offscreen_close(&o);
    }
    globfree(&g);
    printf("narration keys: %ld pressed over 3 sizes, %ld showed nothing\n", pressed, bad);
    assert_true(pressed >= 15); /* the shipped narration asks for 7 keys on scenes */
    assert_int_equal(bad, 0);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narration_keys_shown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
