/* test_lesson_layout.c - nothing of a shipped lesson is cut, at any size (issue 18): every
 * slide of every lesson in lessons/ at 80x24, 100x30, 120x40 and 200x60, laid out by the
 * player's own pure functions (lesson_layout, lesson_slide_lines, and the scene screens'
 * coll_layout / par_layout), asserting
 *   - every word of the slide's title and narration is a whole word of some line of the
 *     narration pane (so on some page: the pane scrolls through all of its lines, and
 *     says "more" while lines are left), which also means no word is cut mid-word;
 *   - no line is wider than the pane (in terminal columns);
 *   - the glossary terms underlined at their first use move no line: the lines are those of
 *     the same slide with the terms plain, character for character;
 *   - the slide's scene, where it has one, has room for every rank's box inside its rect,
 *     beside or above the text, or (the compact sizes) over the whole terminal with z.
 * Run from the repository root (make unit-test does). Prints the counts it walked. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/lesson.h"
#include "ui/app.h"
#include "core/text.h"
#include "ui/screens/collectives/collectives.h"
#include "ui/screens/collectives/layout.h"
#include "ui/screens/lesson/lesson_ui.h"
#include "ui/screens/parallel/par.h"
#include "ui/screens/parallel/pardraw.h"

static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}, {200, 60}};

/* The text of the pane's lines, one string, words separated by single spaces, with a
 * space at both ends (so " word " finds whole words). */
static char *pane_text(const struct lesson_lines *v, int width)
{
    size_t cap = 2;
    for (int i = 0; i < v->n; i++, cap++)
        for (int k = 0; k < v->l[i].n; k++)
            cap += strlen(v->l[i].seg[k].text) + 1;
    char *t = xcalloc(cap + 1, 1);
    t[0] = ' ';
    for (int i = 0; i < v->n; i++) {
        assert_true(styled_width(&v->l[i]) <= width); /* no line wider than the pane */
        for (int k = 0; k < v->l[i].n; k++)
            strcat(t, v->l[i].seg[k].text);
        strcat(t, " ");
    }
    return t;
}

/* The glossary's terms underlined at their first use move no line break: the same slide
 * laid out with them plain has the same lines, character for character. Returns how many
 * pieces the marked lines underline that the plain ones do not. */
static size_t same_lines_plain(const struct app *a, struct lesson_ui *u,
                               const struct lesson_lines *v, int width, const char *where)
{
    struct lesson_lines p = {0};
    int exl = 0;
    u->terms_plain = true;
    lesson_slide_lines(a, u, width, &p, &exl);
    u->terms_plain = false;
    if (p.n != v->n) fail_msg("%s: %d lines plain, %d with terms marked", where, p.n, v->n);
    size_t under = 0;
    for (int i = 0; i < v->n; i++) {
        char x[2048] = "", y[2048] = "";
        for (int k = 0; k < p.l[i].n; k++) {
            strncat(x, p.l[i].seg[k].text, sizeof x - strlen(x) - 1);
            under -= (p.l[i].seg[k].attr & A_UNDERLINE) != 0;
        }
        for (int k = 0; k < v->l[i].n; k++) {
            strncat(y, v->l[i].seg[k].text, sizeof y - strlen(y) - 1);
            under += (v->l[i].seg[k].attr & A_UNDERLINE) != 0;
        }
        if (strcmp(x, y) != 0)
            fail_msg("%s line %d: '%s' plain, '%s' with terms marked", where, i + 1, x, y);
    }
    free(p.l);
    return under;
}

/* Every word of s is a whole word of the pane. */
static int check_words(const char *pane, const char *s, const char *where)
{
    int n = 0;
    while (*s) {
        while (*s == ' ')
            s++;
        size_t l = strcspn(s, " ");
        if (!l) break;
        char w[300];
        snprintf(w, sizeof w, " %.*s ", (int)(l < 290 ? l : 290), s);
        if (!strstr(pane, w)) fail_msg("%s: the word '%s' is not whole on any page", where, w);
        n++;
        s += l;
    }
    return n;
}

/* The scene of slide s shown in rect r: every rank's box (or row) inside r. */
static void check_scene(struct app *a, const struct lesson_slide *s, struct rect r,
                        const char *where)
{
    char err[200];
    assert_int_equal(app_set_scene(a, &s->scene, err, sizeof err), CV_OK);
    if (s->scene.screen == SCREEN_COLLECTIVES) {
        if (!coll_layout(a, r)) fail_msg("%s: the scene does not fit %dx%d", where, r.w, r.h);
        for (int k = 0; k < a->sc.nranks; k++) {
            struct rect b = coll_laid_out(a)->box[k];
            if (b.w <= 0 || b.y < r.y || b.x < r.x || b.y + b.h > r.y + r.h ||
                b.x + b.w > r.x + r.w)
                fail_msg("%s: rank %d's box is not inside the scene", where, k);
        }
    } else if (s->scene.screen == SCREEN_PARALLEL) {
        if (!par_layout(a, r)) fail_msg("%s: the scene does not fit %dx%d", where, r.w, r.h);
    } else {
        if (r.w < LAYOUT_MIN_COLS || r.h < LAYOUT_MIN_ROWS)
            fail_msg("%s: the napkin page does not fit %dx%d", where, r.w, r.h);
    }
}

static void test_every_slide_every_size(void **state)
{
    (void)state;
    struct lesson_set set;
    lesson_set_init(&set);
    struct lesson_errors errs = {0};
    assert_int_equal(lesson_set_add(&set, "lessons", &errs), CV_OK);
    assert_true(set.n >= 13);
    struct app *a = xcalloc(1, sizeof *a);
    app_init(a);
    a->utf8 = true;
    a->g = glyphs_get(true);
    a->embedded = true;
    a->surface = SURFACE_PLAYER;
    struct lesson_ui u = {0};
    size_t slides = 0, screens = 0, words = 0, pages = 0, compact = 0, marks = 0;
    for (size_t li = 0; li < set.n; li++) {
        const struct lesson *L = &set.v[li];
        for (size_t k = 0; k < L->nslides; k++) {
            const struct lesson_slide *s = &L->slides[k];
            slides++;
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                int cols = sizes[z][0], rows = sizes[z][1];
                char where[300];
                snprintf(where, sizeof where, "%s slide %zu at %dx%d", L->id, k + 1, cols,
                         rows);
                struct rect r = {0, 0, rows, cols};
                struct lesson_layout lay;
                lesson_layout(r, s->has_scene, false, &lay);
                assert_true(lay.narr.w >= 30);
                assert_true(lay.narr.h >= 5);
                u.L = L;
                u.slide = k;
                u.ex = xcalloc(s->nex ? s->nex : 1, sizeof *u.ex);
                struct lesson_lines v = {0};
                int exl = 0;
                lesson_slide_lines(a, &u, lay.narr.w, &v, &exl);
                marks += same_lines_plain(a, &u, &v, lay.narr.w, where);
                char *pane = pane_text(&v, lay.narr.w);
                words += (size_t)check_words(pane, s->title, where);
                for (size_t b = 0; b < s->nblocks; b++) {
                    /* a block's spans joined: "**all**-reduce" is one word on screen */
                    const struct lesson_block *bl = &s->blocks[b];
                    size_t cap = 2;
                    for (size_t p = 0; p < bl->nspans; p++)
                        cap += strlen(bl->spans[p].text) + 1;
                    char *t = xcalloc(cap, 1);
                    for (size_t p = 0; p < bl->nspans; p++) {
                        if (bl->spans[p].hard_break || bl->kind == LBLOCK_CODE) strcat(t, " ");
                        strcat(t, bl->spans[p].text);
                    }
                    words += (size_t)check_words(pane, t, where);
                    free(t);
                }
                /* rows for text: one is the "more" line when the text runs on */
                int text_rows = v.n > lay.narr.h ? lay.narr.h - 1 : lay.narr.h;
                pages += (size_t)((v.n + text_rows - 1) / text_rows);
                free(pane);
                free(v.l);
                free(u.ex);
                u.ex = NULL;
                if (s->has_scene) {
                    if (lay.compact) {
                        /* z: the scene alone, over the whole terminal */
                        struct lesson_layout alone;
                        lesson_layout(r, true, true, &alone);
                        assert_true(alone.scene_alone);
                        check_scene(a, s, alone.scene, where);
                        compact++;
                    } else {
                        assert_true(lay.scene.w > 0);
                        check_scene(a, s, lay.scene, where);
                    }
                }
                screens++;
            }
        }
    }
    print_message("layout: %zu slides x %zu sizes = %zu screens, %zu words found whole, %zu "
                  "pages, %zu compact (scene with z); %zu glossary terms underlined, no "
                  "line moved\n",
                  slides, sizeof sizes / sizeof sizes[0], screens, words, pages, compact,
                  marks);
    assert_true(slides >= 80);
    assert_true(marks >= 4 * 250); /* the terms' first uses, at each of the four sizes */
    app_free(a);
    free(a);
    lesson_errors_free(&errs);
    lesson_set_free(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_slide_every_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
