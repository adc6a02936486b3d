/* test_clicker.c - the clicker walks the whole shipped deck (issue 31 §2): every slide of
 * lessons/ laid out as the presenter lays it out (present_slide.h: its narration pages at
 * the terminal's size) with its scene's steps and stops (the author's `stops:`, else the
 * screen's phase ends), and deck.h's moves pressed on it, at 80x24, 100x30, 120x40 and
 * 160x45. No terminal and no backend: the scene goes through the app's one door
 * (app_set_scene) as the presenter's does.
 *
 * Asserted over every slide at every size:
 *   - PageDown alone walks slide 1 to the end in at most 2 presses a slide on average where
 *     the narration and the scene share a page, and onto a scene's page shows the scene at
 *     the step its narration describes (its start), never past it;
 *   - from every step of every slide (every frame the arrows can reach), the skip key (F5 /
 *     Esc) reaches the next slide in at most two presses;
 *   - PageUp walks back through the same stops PageDown showed, in reverse;
 *   - the arrows still step every frame: stepping forward visits every step of every scene;
 *   - predict first: the page each slide opens on shows its first exercise's question whole
 *     (its prompt and options, beside the lead) on every exercise slide from 100x30 up, and
 *     on an exact count at 80x24; and the notes get every word that page leaves out.
 * It prints the presses per size, with every step a stop (the deck before stops) beside. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/lesson.h"
#include "present/deck.h"
#include "present/notes_ipc.h"
#include "ui/app.h"
#include "ui/present/present_slide.h"

struct wslide {
    const struct lesson_slide *s;
    long nsteps, start;
    long stops[DECK_STOPS_MAX];
    size_t nstops;
    struct present_slide text; /* at the size being walked */
    int entry;                 /* the page it opens on going forward, at that size */
};

static struct lesson_set set;
static struct wslide *W;
static size_t N;
static struct app *A; /* set up as the presenter's: each scene says the rows it needs */

/* The deck of path (a lesson file or a folder) into set, W and N. */
static int load(const char *path)
{
    struct lesson_errors errs = {0};
    lesson_set_init(&set);
    N = 0;
    if (lesson_set_add(&set, path, &errs) != CV_OK || errs.n) return -1;
    lesson_errors_free(&errs);
    for (size_t i = 0; i < set.n; i++)
        N += set.v[i].nslides;
    W = xcalloc(N, sizeof *W);
    struct app *a = xcalloc(1, sizeof *a);
    A = a;
    app_init(a);
    a->utf8 = true;
    a->embedded = a->no_key_hints = a->room = a->bar_row_free = a->big_digits = true;
    size_t k = 0;
    for (size_t i = 0; i < set.n; i++)
        for (size_t j = 0; j < set.v[i].nslides; j++, k++) {
            struct wslide *w = &W[k];
            w->s = &set.v[i].slides[j];
            long ph[DECK_STOPS_MAX];
            size_t nph = 0;
            if (w->s->has_scene) {
                char err[240];
                struct scene sc = w->s->scene;
                if (app_set_scene(a, &sc, err, sizeof err) != CV_OK) {
                    fprintf(stderr, "%s slide %zu: %s\n", set.v[i].id, j + 1, err);
                    return -1;
                }
                w->nsteps = (long)app_nsteps(a);
                w->start = (long)app_step(a);
                nph = app_phase_ends(a, ph, DECK_STOPS_MAX);
            }
            w->nstops = deck_stops(w->s->has_scene ? w->s->stops : NULL,
                                   w->s->has_scene ? w->s->nstops : 0, ph, nph, w->start,
                                   w->nsteps, w->stops);
        }
    return 0;
}

static void unload(void)
{
    app_free(A);
    free(A);
    A = NULL;
    for (size_t i = 0; i < N; i++)
        present_slide_free(&W[i].text);
    free(W);
    W = NULL;
    N = 0;
    lesson_set_free(&set);
}

/* The words of lines [from, to) of a narration, every line's text joined by one space, the
 * empty lines left out. */
static char *range_words(const struct narr *n, int from, int to)
{
    size_t cap = 4096, len = 0;
    char *out = xcalloc(cap, 1);
    for (int i = from; i < to && i < n->n; i++) {
        char t[1024];
        narr_line_text(&n->l[i], t, sizeof t);
        if (!t[strspn(t, " ")]) continue;
        if (len + strlen(t) + 2 >= cap) out = xrealloc(out, cap = 2 * cap + strlen(t));
        len += (size_t)sprintf(out + len, "%s%s", len ? " " : "", t);
    }
    return out;
}

/* s with every run of white space (line breaks, a list's hanging indent) one space. */
static char *squeeze(char *s)
{
    char *o = s;
    for (const char *c = s; *c; c++)
        if (!isspace((unsigned char)*c) || (o > s && o[-1] != ' '))
            *o++ = isspace((unsigned char)*c) ? ' ' : *c;
    while (o > s && o[-1] == ' ')
        o--;
    *o = '\0';
    return s;
}

static char *narr_words(const struct narr *n)
{
    return range_words(n, 0, n->n);
}

/* What the room sees of the narration on the page each slide opens on, at the size walked:
 * all of it, part (its lead, its questions), nothing (the scene fills the screen). */
static long room_whole, room_lead, room_none;
/* Slides with exercises whose questions are on that page, and those whose are not. */
static long room_asked, room_unasked;

/* Every word of the narration is on the room's screen: on the page the slide opens on (all of
 * it, or its lead: its first words), and all of it, in order, on the text pages before (one
 * PageUp back) where the lead is not all. */
static void check_reachable(const struct wslide *w, const struct present_layout *lay)
{
    const struct narr *n = &w->text.narr;
    char *all = narr_words(n);
    const struct present_layout_page *e = &lay->page[lay->entry];
    char *lead = range_words(n, e->from, e->to);
    assert_true(strncmp(all, lead, strlen(lead)) == 0);
    /* The first exercise's question as the room reads it: the quiz's words up to the next
     * exercise's ("Exercise 2 of N: ..."), its prompt and its options. */
    char *quiz = range_words(n, w->text.ask, n->n), *first = xstrdup(quiz), *next;
    if (w->s->nex > 1 && (next = strstr(first, " Exercise 2 of "))) *next = '\0';
    bool asked = false;
    if (e->ask_to > e->ask_from) { /* under the lead: the first exercise's question, whole */
        char *shown = range_words(n, e->ask_from, e->ask_to);
        assert_true(w->text.ask > 0 && e->ask_from >= e->to && e->to <= w->text.ask);
        assert_string_equal(shown, first);
        asked = true;
        free(shown);
    } else if (w->s->nex > 0 && w->text.ask > 0) { /* or in the narration shown whole */
        char *shown = range_words(n, e->from, e->to);
        asked = strstr(shown, first) != NULL;
        free(shown);
    }
    free(quiz);
    free(first);
    /* the speaker's notes get the words the page leaves out, in order */
    char *unshown = xcalloc(NOTES_NARR_MAX, 1);
    present_slide_unshown(&w->text, e, unshown, NOTES_NARR_MAX);
    char *left_out = range_words(n, e->to, e->ask_to > e->ask_from ? e->ask_from : n->n);
    if (e->ask_to > e->ask_from && e->ask_to < n->n) { /* the later exercises */
        char *rest = range_words(n, e->ask_to, n->n);
        left_out = xrealloc(left_out, strlen(left_out) + strlen(rest) + 2);
        if (left_out[0] && rest[0]) strcat(left_out, " ");
        strcat(left_out, rest);
        free(rest);
    }
    assert_string_equal(squeeze(unshown), squeeze(left_out));
    free(unshown);
    free(left_out);
    room_asked += asked;
    room_unasked += w->s->nex > 0 && !asked;
    if (getenv("CLICKER_DEBUG") && w->s->nex > 0 && !asked)
        printf("  not asked on its opening page: %s (question %d lines, the page's text %d)\n",
               w->s->title, w->text.ex_ask[1] - w->text.ex_ask[0], e->narr.h);
    if (lay->entry == 0) {
        for (int k = 1; k < lay->npages; k++) { /* a slide without a scene: its pages */
            char *more = range_words(n, lay->page[k].from, lay->page[k].to), *j;
            j = xcalloc(strlen(lead) + strlen(more) + 2, 1);
            sprintf(j, "%s%s%s", lead, lead[0] && more[0] ? " " : "", more);
            free(lead);
            free(more);
            lead = j;
        }
        assert_string_equal(lead, all);
    } else {
        size_t cap = strlen(all) + 2, len = 0;
        char *text = xcalloc(cap, 1);
        for (int k = 0; k < lay->entry; k++) {
            char *pw = range_words(n, lay->page[k].from, lay->page[k].to);
            assert_true(len + strlen(pw) + 1 < cap + 1);
            if (len + strlen(pw) + 2 > cap) text = xrealloc(text, cap = len + strlen(pw) + 2);
            len += (size_t)sprintf(text + len, "%s%s", len && pw[0] ? " " : "", pw);
            free(pw);
        }
        if (strcmp(text, all) != 0)
            fail_msg("%s: the text pages show '%s', not '%s'", w->s->title, text, all);
        free(text);
    }
    if (!w->s->has_scene) {
    } else if (strcmp(lead, all) == 0) {
        room_whole++;
    } else {
        *(lead[0] || e->ask_to > e->ask_from ? &room_lead : &room_none) += 1;
    }
    free(lead);
    free(all);
}

/* Its pages at rows x cols, and the page it opens on (*entry); a narration laid out
 * tighter keeps every word and line of the airy one (only the empty lines between blocks
 * go). */
static int npages_at(struct wslide *w, int rows, int cols, int *entry)
{
    struct present_layout lay = {0};
    char *airy = narr_words(&w->text.narr);
    int scene_rows = 0, scene_short = 0;
    if (w->s->has_scene) { /* what the presenter asks: the scene's rows at the slide's start */
        char err[240];
        struct scene sc = w->s->scene;
        assert_int_equal(app_set_scene(A, &sc, err, sizeof err), CV_OK);
        scene_rows = app_rows_needed(A, cols, PLAYOUT_SCENE_MIN);
        scene_short = app_rows_needed_short(A, cols, PLAYOUT_SCENE_MIN);
    }
    present_slide_pages(&w->text, rows, cols, scene_rows, scene_short, &lay);
    char *now = narr_words(&w->text.narr);
    assert_string_equal(now, airy);
    free(airy);
    free(now);
    int n = lay.npages > 0 ? lay.npages : 1;
    check_reachable(w, &lay);
    if (entry) *entry = lay.entry;
    present_layout_free(&lay);
    return n;
}

static void texts(int cols)
{
    for (size_t i = 0; i < N; i++) {
        present_slide_free(&W[i].text);
        present_slide_text(W[i].s, false, cols, true, &W[i].text);
    }
}

/* The deck.h view of slide i; every: each step a stop (the deck before stops). */
static struct deck_slide dslide(size_t i, int *pages, bool every)
{
    return (struct deck_slide){W[i].nsteps, pages[i], every ? NULL : W[i].stops,
                               every ? 0 : W[i].nstops};
}

static struct deck_pos enter(struct deck_pos q, int *pages)
{
    q.step = deck_resolve(q.step, W[q.slide].start, W[q.slide].nsteps);
    if (q.page == DECK_PAGE_END) q.page = pages[q.slide] - 1;
    if (q.page == DECK_PAGE_ENTRY) q.page = W[q.slide].entry;
    return q;
}

/* Presses of m from slide 1 until no move is left; per[i] the presses made on slide i. */
static long walk(enum deck_move m, int *pages, bool every, long *per)
{
    struct deck_pos p = enter((struct deck_pos){0, DECK_STEP_START, DECK_PAGE_ENTRY}, pages), q;
    long n = 0;
    for (;;) {
        struct deck_slide d = dslide(p.slide, pages, every);
        if (!deck_move_in(p, &d, N, m, 0, &q)) break;
        if (per) per[p.slide]++;
        n++;
        /* the press onto the scene's page shows it at its start, the step the narration
         * describes: nothing plays past it before the lecturer steps */
        if (q.slide == p.slide && p.page < pages[p.slide] - 1 && q.page == pages[q.slide] - 1 &&
            q.step != p.step)
            fail_msg("slide %zu: the press onto the scene's page shows step %ld, not the "
                     "step %ld its narration describes",
                     p.slide + 1, q.step, p.step);
        p = enter(q, pages);
        assert_true(n < 100000);
    }
    return n;
}

/* asked: the exercise slides whose first question the room sees on the page the slide opens
 * on (-1: not checked). */
static void walk_size(int cols, int rows, bool shipped, long asked)
{
    texts(cols);
    int *pages = xcalloc(N, sizeof *pages);
    long *per = xcalloc(N, sizeof *per);
    room_whole = room_lead = room_none = room_asked = room_unasked = 0;
    for (size_t i = 0; i < N; i++)
        pages[i] = npages_at(&W[i], rows, cols, &W[i].entry);
    printf(
        "%dx%d: the room sees the whole narration beside the scene on %ld slides, its lead "
        "or questions on %ld, the scene alone on %ld; the questions of %ld slides (of %ld with "
        "exercises)\n",
        cols, rows, room_whole, room_lead, room_none, room_asked, room_asked + room_unasked);
    /* Predict first (issue 31): the room sees the question it should answer before the scene
     * answers it, on the page the slide opens on, beside the scene: every exercise slide from
     * 100x30 up, and the count at 80x24 exact, so that a change that loses one shows. It was
     * 23, 50 and 69 of 72 at 80x24, 100x30 and 120x40 while a slide's questions came all
     * together or not at all and the measured panel kept its rows. */
    if (asked >= 0 && room_asked != asked)
        fail_msg("%dx%d: the first question of %ld exercise slides on their opening page, "
                 "not %ld",
                 cols, rows, room_asked, asked);
    if (shipped && rows >= 30 && room_unasked > 0)
        fail_msg("%dx%d: %ld exercise slides open without their question", cols, rows,
                 room_unasked);
    long before = walk(DECK_STEP_NEXT, pages, true, NULL);
    long after = walk(DECK_NEXT, pages, false, per);
    if (getenv("CLICKER_DEBUG"))
        for (size_t i = 0; i < N; i++) {
            int after_start = 0;
            for (size_t k = 0; k < W[i].nstops; k++)
                after_start += W[i].stops[k] > W[i].start;
            printf(
                "  slide %zu: %ld presses, %d pages, %d stops after the start, line %d: %s\n",
                i + 1, per[i], pages[i], after_start, W[i].s->scene_line, W[i].s->title);
        }
    size_t worst = 0;
    for (size_t i = 0; i < N; i++)
        if (per[i] > per[worst]) worst = i;
    printf("%dx%d: %zu slides, PageDown %ld (every step a stop: %ld), %.2f a slide; most on "
           "slide %zu (%ld: %ld pages, stops",
           cols, rows, N, after, before, (double)after / (double)N, worst + 1, per[worst],
           (long)pages[worst]);
    for (size_t k = 0; k < W[worst].nstops; k++)
        printf(" %ld", W[worst].stops[k]);
    printf(" of %ld)\n", W[worst].nsteps);
    /* Every slide costs the pages from the one it opens on (its scene's page, with the
     * narration's lead: present_layout.h; a slide without a scene, its first) to its last,
     * and one press for each stop after its scene's start: no transfer-by-transfer walking
     * and no page of prose on the way. Counted here from the layout and the stops, apart
     * from deck.h's moves. */
    long floor = -1, cost = -1, text_pages = 0;
    for (size_t i = 0; i < N; i++) {
        int after_start = 0;
        for (size_t k = 0; k < W[i].nstops; k++)
            after_start += W[i].stops[k] > W[i].start;
        floor += pages[i] - W[i].entry;
        cost += pages[i] - W[i].entry + after_start;
        text_pages += W[i].entry;
    }
    if (after != cost)
        fail_msg("%dx%d: %ld presses, the stops and pages make %ld", cols, rows, after, cost);
    printf("%dx%d: the slides alone take %ld (%.2f a slide); %ld text pages one PageUp back\n",
           cols, rows, floor, (double)floor / (double)N, text_pages);
    /* The goal (issue 31): at most 2 PageDowns a slide on average, from slide 1 to the end,
     * at every size. It was 252 (2.71 a slide) at 80x24, 213 (2.29) at 100x30, 161 at 120x40
     * and 159 at 160x45 while each slide whose narration did not fit beside its scene began
     * with a page of prose; the slide now opens on its scene with the narration's lead, so
     * the count is the same at every size. */
    if (shipped && after > 2 * (long)N)
        fail_msg("%dx%d: %ld PageDowns for %zu slides (at most %ld)", cols, rows, after, N,
                 2 * (long)N);

    /* Skip: from every step of every page of every slide, at most two presses to the next. */
    for (size_t i = 0; i + 1 < N; i++)
        for (int pg = 0; pg < pages[i]; pg++)
            for (long st = 0; st <= W[i].nsteps; st++) {
                struct deck_pos p = {i, st, pg}, q;
                int k = 0;
                while (p.slide == i && k < 3) {
                    struct deck_slide d = dslide(i, pages, false);
                    assert_true(deck_move_in(p, &d, N, DECK_SKIP, 0, &q));
                    p = enter(q, pages);
                    k++;
                }
                if (k > 2 || p.slide != i + 1)
                    fail_msg("%dx%d slide %zu page %d step %ld: %d skips", cols, rows, i + 1,
                             pg + 1, st, k);
            }

    /* Back: PageUp from the end shows every position PageDown showed (and the scenes'
     * starts, which the way forward plays through), ending at slide 1. */
    struct deck_pos *fwd = xcalloc((size_t)after + 2, sizeof *fwd);
    struct deck_pos p = enter((struct deck_pos){0, DECK_STEP_START, DECK_PAGE_ENTRY}, pages), q;
    size_t nf = 0;
    fwd[nf++] = p;
    for (;;) {
        struct deck_slide d = dslide(p.slide, pages, false);
        if (!deck_move_in(p, &d, N, DECK_NEXT, 0, &q)) break;
        p = enter(q, pages);
        fwd[nf++] = p;
    }
    bool *shown = xcalloc(nf, sizeof *shown);
    long back = 0;
    for (;;) {
        for (size_t k = 0; k < nf; k++)
            if (fwd[k].slide == p.slide && fwd[k].page == p.page &&
                (fwd[k].step == p.step || p.page < pages[p.slide] - 1)) /* text: no scene */
                shown[k] = true;
        struct deck_slide d = dslide(p.slide, pages, false);
        if (!deck_move_in(p, &d, N, DECK_PREV, 0, &q)) break;
        p = enter(q, pages);
        back++;
        assert_true(back < 100000);
    }
    assert_int_equal(p.slide, 0);
    assert_int_equal(p.page, 0);
    for (size_t k = 0; k < nf; k++)
        if (!shown[k])
            fail_msg("%dx%d: PageUp never shows slide %zu page %d step %ld", cols, rows,
                     fwd[k].slide + 1, fwd[k].page + 1, fwd[k].step);
    free(shown);
    free(fwd);

    /* The arrows: every step of every scene is reached going forward. */
    p = enter((struct deck_pos){0, DECK_STEP_START, DECK_PAGE_ENTRY}, pages);
    long visited = 0, wanted = 0;
    for (size_t i = 0; i < N; i++)
        wanted += W[i].nsteps - W[i].start;
    for (;;) {
        struct deck_slide d = dslide(p.slide, pages, false);
        if (!deck_move_in(p, &d, N, DECK_STEP_NEXT, 0, &q)) break;
        if (q.slide == p.slide && q.step != p.step) {
            assert_int_equal(q.step, p.step + 1);
            visited++;
        }
        p = enter(q, pages);
    }
    assert_int_equal(visited, wanted);
    free(pages);
    free(per);
}

static void on_deck(const char *path, int cols, int rows, bool shipped, long asked)
{
    if (load(path) != 0) fail_msg("cannot load %s", path);
    walk_size(cols, rows, shipped, asked);
    unload();
}

static void test_deck_80x24(void **state)
{
    (void)state;
    /* every one: 57 before the hierarchy gave its detail lines to a question, 58 before a
     * slide whose question does not fit beside its scene opened on the text page that shows
     * it (present_layout.h) */
    on_deck("lessons", 80, 24, true, 72);
}
static void test_deck_100x30(void **state)
{
    (void)state;
    on_deck("lessons", 100, 30, true, 72);
}
static void test_deck_120x40(void **state)
{
    (void)state;
    on_deck("lessons", 120, 40, true, 72);
}
static void test_deck_160x45(void **state)
{
    (void)state;
    on_deck("lessons", 160, 45, true, 72);
}

/* A teacher's lesson nobody shipped (tests/lesson/clicker): a narration two pages long at
 * 80x24 with its empty lines and one without, scenes that start mid-way with phases and an
 * author's stops, exercises: the same rules hold at every size, and the long narration
 * takes one page at 80x24 with every word. */
static void test_teacher_lesson(void **state)
{
    (void)state;
    static const int sz[][2] = {{80, 24}, {100, 30}, {120, 40}, {160, 45}};
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
        on_deck("tests/lesson/clicker/teacher.md", sz[i][0], sz[i][1], false, 2);
    assert_int_equal(load("tests/lesson/clicker/teacher.md"), 0);
    texts(80);
    struct present_slide *t = &W[0].text;
    struct present_layout lay = {0};
    present_layout_compute(24, 80, PLAYOUT_SCENE_MIN, t->ntitle, t->narr.n, t->blank, NULL,
                           NULL, &lay);
    assert_int_equal(lay.npages, 3); /* with its empty lines: two pages of text */
    present_slide_pages(t, 24, 80, PLAYOUT_SCENE_MIN, 0, &lay);
    assert_int_equal(lay.npages, 2); /* without: one */
    assert_true(t->tight);
    present_layout_free(&lay);
    assert_true(npages_at(&W[0], 24, 80, NULL) <=
                2); /* the scene's own rows: every word kept */
    assert_int_equal(npages_at(&W[0], 60, 120, NULL), 1); /* room enough: airy again */
    assert_false(t->tight);
    unload();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deck_80x24),     cmocka_unit_test(test_deck_100x30),
        cmocka_unit_test(test_deck_120x40),    cmocka_unit_test(test_deck_160x45),
        cmocka_unit_test(test_teacher_lesson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
