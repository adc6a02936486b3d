/* test_par_legend.c - the pipeline's measured timeline names every glyph it draws
 * (ui/screens/parallel/pardraw.c): on every frame of every shipped slide that shows a
 * pipeline, at 80x24, 100x30 and 120x40, after the scene's lecture configuration has trained
 * (one step, on the CPU ranks, as the deck walk does), each glyph drawn in the chart's rows
 * (F/B, a micro-batch digit, the wait dot, the send's ">", A) is named on the legend line
 * under them; and the other way: each glyph a legend names is drawn on some frame. The glyphs
 * are read off the screen, the legend words are not taken from the drawing code. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glob.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/lesson.h"
#include "parallel/train.h"
#include "ui/app.h"
#include "ui/frame.h"
#include "ui/kit/svg.h"
#include "ui/kit/theme.h"
#include "ui/screens/parallel/par.h"
#include "ui/screens/screens.h"
#include "ui/walk.h"

static const int sizes[][2] = {{80, 24}, {100, 30}, {120, 40}};

/* The glyph classes and how a legend names each (the text a student reads). */
enum { G_FB, G_DIGIT, G_DOT, G_SEND, G_ADAMW, G_N };
static const char *const g_name[G_N] = {"F/B", "0-9", "\u00b7", ">", "A"};

static int g_class(const char *c)
{
    if (strcmp(c, "F") == 0 || strcmp(c, "B") == 0) return G_FB;
    if (c[0] >= '0' && c[0] <= '9' && c[1] == '\0') return G_DIGIT;
    if (strcmp(c, "\u00b7") == 0) return G_DOT;
    if (strcmp(c, ">") == 0) return G_SEND;
    if (strcmp(c, "A") == 0) return G_ADAMW;
    return -1;
}

/* Does the legend name glyph class g: its name as a word of its own? */
static bool legend_names(const char *leg, int g)
{
    size_t n = strlen(g_name[g]);
    for (const char *p = leg; (p = strstr(p, g_name[g])) != NULL; p += n)
        if ((p == leg || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

/* The UTF-8 character at column col of line (one cell a character on these rows). */
static void cell_at(const char *line, int col, char *out)
{
    const char *p = line;
    for (int c = 0; c < col && *p; c++) {
        p++;
        while ((*p & 0xC0) == 0x80)
            p++;
    }
    size_t k = 1;
    while ((p[k] & 0xC0) == 0x80)
        k++;
    snprintf(out, 8, "%.*s", *p ? (int)k : 0, p);
}

/* The column of needle in line, in characters, or -1. */
static int col_of(const char *line, const char *needle)
{
    const char *f = strstr(line, needle);
    if (!f) return -1;
    int c = 0;
    for (const char *p = line; p < f; p++)
        if ((*p & 0xC0) != 0x80) c++;
    return c;
}

struct seen {
    long frames, charts, bad;
    bool drawn[G_N], named[G_N];
};

/* One frame drawn: the measured chart's rows and its legend. */
static void check_frame(struct app *a, const char *where, struct seen *s)
{
    frame_draw(a);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    svg_write_text(stdscr, f);
    fclose(f);
    char *lines[200];
    int n = 0;
    for (char *p = text, *nl; p && *p && n < 200; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        lines[n++] = p;
    }
    s->frames++;
    for (int y = 0; y < n; y++) {
        int x = col_of(lines[y], "measured, step ");
        if (x < 0) continue;
        s->charts++;
        int P = a->sc.nranks, yl = y + 1 + P;
        bool drawn[G_N] = {false};
        for (int st = 0; st < P && y + 1 + st < n; st++) {
            const char *row = lines[y + 1 + st];
            char c[8];
            for (int k = x + 4;; k++) {
                cell_at(row, k, c);
                if (!c[0]) break;
                int g = g_class(c);
                if (g >= 0) drawn[g] = true;
            }
        }
        const char *leg = yl < n ? lines[yl] : "";
        char legend[400];
        snprintf(legend, sizeof legend, "%s", leg);
        /* the legend is the text from the chart's column on */
        const char *from = legend;
        for (int c = 0; c < x && *from; c++) {
            from++;
            while ((*from & 0xC0) == 0x80)
                from++;
        }
        for (int g = 0; g < G_N; g++) {
            if (legend_names(from, g)) s->named[g] = true;
            if (!drawn[g]) continue;
            s->drawn[g] = true;
            if (!legend_names(from, g) && s->bad++ < 12)
                print_message("%s: \"%s\" drawn, not in the legend \"%s\"\n", where, g_name[g],
                              from);
        }
    }
    free(text);
}

/* The scene's lecture configuration trained once (one step), as the worker would post it. */
static void trained(struct app *a)
{
    struct train_config want;
    par_lecture_of(a, &want);
    if (want.scheme < 0 || want.scheme >= TRAIN_SCHEME_COUNT) return;
    struct train_config one = want;
    one.steps = 1;
    struct train_summary *s = xcalloc(1, sizeof *s);
    char err[200];
    if (train_summary_run(&one, s, NULL, err, sizeof err) == CV_OK) {
        s->cfg = want;
        PAR(a)->sum[want.scheme] = *s;
        PAR(a)->have[want.scheme] = true;
    }
    free(s);
}

static void test_measured_legend(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("lessons/[0-9]*.md", 0, NULL, &g), 0);
    struct seen s = {0};
    long slides = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        struct svg_offscreen o;
        char err[200];
        assert_int_equal(svg_offscreen_open(&o, sizes[i][0], sizes[i][1], err, sizeof err),
                         CV_OK);
        for (size_t fi = 0; fi < g.gl_pathc; fi++) {
            struct lesson L;
            struct lesson_errors errs = {0};
            assert_int_equal(lesson_load_file(g.gl_pathv[fi], &L, &errs), CV_OK);
            for (size_t si = 0; si < L.nslides; si++) {
                const struct lesson_slide *sl = &L.slides[si];
                if (!sl->has_scene || sl->scene.screen != SCREEN_PARALLEL ||
                    sl->scene.scheme != TRAIN_PP)
                    continue;
                struct app *a = walk_app();
                if (app_set_scene(a, &sl->scene, err, sizeof err) == CV_OK) {
                    trained(a);
                    slides += i == 0;
                    long nst = (long)app_nsteps(a);
                    for (long st = 0; st <= nst; st++) {
                        struct scene next = a->sc;
                        next.step = st;
                        app_set_scene(a, &next, err, sizeof err);
                        char where[300];
                        snprintf(where, sizeof where, "%s slide %zu %dx%d step %ld",
                                 g.gl_pathv[fi], si + 1, sizes[i][0], sizes[i][1], st);
                        check_frame(a, where, &s);
                    }
                }
                app_free(a);
                free(a);
            }
            lesson_free(&L);
            lesson_errors_free(&errs);
        }
        svg_offscreen_close(&o);
    }
    globfree(&g);
    printf("pipeline legend: %ld slides, %ld frames, %ld charts, %ld glyphs unnamed\n", slides,
           s.frames, s.charts, s.bad);
    assert_true(slides >= 3 && s.charts > 20);
    assert_int_equal(s.bad, 0);
    for (int k = 0; k < G_N; k++) /* and every glyph a legend names is drawn somewhere */
        if (s.named[k] && !s.drawn[k])
            fail_msg("the legend names \"%s\", never drawn", g_name[k]);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_measured_legend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
