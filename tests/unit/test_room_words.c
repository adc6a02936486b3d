/* test_room_words.c - the presenter in the room (issue 19), off-screen: at 80x24, 100x30,
 * 120x36 and 160x45 every word of every slide's title, narration and first exercise prompt of
 * the shipped lessons is shown on one of the slide's pages, and no screen names a key (the
 * explorer's and the player's hints). The presenter is driven as a speaker drives it
 * (present_script: its own drawing into an off-screen curses screen): g N Enter to each
 * slide, which opens on its scene's page; then PageUp through any stop before the scene's
 * start and the text pages before it, down to the first, until the slide before. A slide's
 * words are those of every screen until then. (Moved here from the tmux script
 * tests/screen/test_present_room.sh, which keeps what needs a terminal and processes.)
 *
 * The words a slide must show come from the parser (lesson/lesson.h: what `collviz lesson
 * show --format json` prints), not from the presenter's layout, which is what is under test:
 * the title, each narration block's text, and the first exercise's prompt up to "Type",
 * "Enter" or "Write" (what to type is not the room's; the next is asked once r answered it); a
 * sentence that asks for a key is the speaker's (on the notes, never the room's): left out by a
 * broader rule than the presenter's (any code span, "press", "arrow", "the key", an arrow
 * glyph), so no word it keeps is one the room lacks. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <curses.h>
#include <locale.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"
#include "room_script.h"

/* The screens' texts that name a key (the explorer's and player's hints): never on the room's
 * screen (its rows read to their full width: blanks before a line's end). (A lesson's own
 * narration may say "press O"; that is the author's text.) */
static const char HINTS[] =
    "press s to sweep|\\(or l\\)|\\(x cancels\\)|halve/double|measures\\)|\\(v: chunk|"
    "sweep with s|\\(Enter\\)|a resumes|any key|napkin math\\)|: y *$|runs step 1|m trains\\)|"
    "measures again\\)|says why\\)| measures it";

static regex_t hints_re, key_re;

/* Words: runs of characters other than ASCII white space and U+00A0 (as Python's split). */
struct words {
    char **w;
    size_t n, cap;
};

static void words_add(struct words *ws, const char *text)
{
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' ||
               *p == '\f' || strncmp(p, "\u00a0", 2) == 0)
            p += strncmp(p, "\u00a0", 2) == 0 ? 2 : 1;
        if (!*p) return;
        const char *e = p;
        while (*e && !strchr(" \t\n\r\v\f", *e) && strncmp(e, "\u00a0", 2) != 0)
            e++;
        if (ws->n == ws->cap) {
            ws->cap = ws->cap ? 2 * ws->cap : 256;
            ws->w = xrealloc(ws->w, ws->cap * sizeof *ws->w);
        }
        char *w = xmalloc((size_t)(e - p) + 1);
        memcpy(w, p, (size_t)(e - p));
        w[e - p] = '\0';
        ws->w[ws->n++] = w;
        p = e;
    }
}

static bool words_have(const struct words *ws, const char *w)
{
    for (size_t i = 0; i < ws->n; i++)
        if (strcmp(ws->w[i], w) == 0) return true;
    return false;
}

static void words_free(struct words *ws)
{
    for (size_t i = 0; i < ws->n; i++)
        free(ws->w[i]);
    free(ws->w);
    memset(ws, 0, sizeof *ws);
}

/* A sentence that asks for a key: the speaker's. \x02 opens a code span. */
static bool for_speaker(const char *s)
{
    static const char *const arrows[] = {"\u2190", "\u2191", "\u2192", "\u2193"};
    if (strchr(s, '\x02') || regexec(&key_re, s, 0, NULL, 0) == 0) return true;
    for (size_t i = 0; i < ARRAY_LEN(arrows); i++)
        if (strstr(s, arrows[i])) return true;
    return false;
}

/* The room's words of block b, added to ws: a code block whole; else each sentence (ended
 * by . ? or ! and white space) not for the speaker. */
static void block_words(const struct lesson_block *b, struct words *ws)
{
    size_t len = 1;
    for (size_t i = 0; i < b->nspans; i++)
        len += strlen(b->spans[i].text) + 2;
    char *t = xmalloc(len), *o = t;
    bool code = b->kind == LBLOCK_CODE;
    for (size_t i = 0; i < b->nspans; i++) {
        bool c = !code && (b->spans[i].style & LSPAN_CODE);
        o += sprintf(o, "%s%s%s", c ? "\x02" : "", b->spans[i].text, c ? "\x03" : "");
    }
    if (code) {
        words_add(ws, t);
        free(t);
        return;
    }
    for (char *s = t; *s;) {
        char *e = s;
        while (*e && !(e > s && strchr(".?!", e[-1]) && strchr(" \t\n\r\v\f", *e)))
            e++;
        char *next = e;
        while (*next && strchr(" \t\n\r\v\f", *next))
            next++;
        *e = '\0';
        if (!for_speaker(s)) words_add(ws, s);
        s = next;
    }
    free(t);
}

/* Slide s's reference words. */
static void slide_words(const struct lesson_slide *s, struct words *ws)
{
    words_add(ws, s->title ? s->title : "");
    for (size_t b = 0; b < s->nblocks; b++)
        block_words(&s->blocks[b], ws);
    /* the room is asked one exercise at a time (the next once r has answered the one
     * before: this walk presses no r), so the first exercise's question is the slide's */
    for (size_t k = 0; k < s->nex && k < 1; k++) {
        char *p = ex_prompt(&s->ex[k], NULL);
        regex_t cut;
        regmatch_t m;
        assert_int_equal(regcomp(&cut, "\\b(Type|Enter|Write) ", REG_EXTENDED), 0);
        if (regexec(&cut, p, 1, &m, 0) == 0) p[m.rm_so] = '\0';
        regfree(&cut);
        words_add(ws, p);
        free(p);
    }
}

/* Every slide at cols x rows: its pages' words hold the reference's, no page names a key. */
static void walk(int cols, int rows)
{
    struct lesson_set set;
    assert_int_equal(room_lessons(&set), 0);
    struct present_opts o = {.path = "lessons",
                             .backend = "cpu",
                             .no_measure = true,
                             .no_big_digits = true,
                             .script_alone =
                                 true /* no notes terminal: the footer is the speaker's too */};
    struct present_script *ps = room_open(&o, cols, rows);
    static char text[64 * 1024], prev[64 * 1024];
    size_t at, n, k = 0, bad = 0, frames = 0;
    int page, np;
    long step;
    present_script_where(ps, &at, &n, &page, &np, &step);
    for (size_t l = 0; l < set.n; l++)
        for (size_t si = 0; si < set.v[l].nslides; si++, k++) {
            if (k > 0) room_goto(ps, k + 1);
            present_script_where(ps, &at, &n, &page, &np, &step);
            if (at != k)
                fail_msg("%dx%d: g %zu did not reach slide %zu", cols, rows, k + 1, k + 1);
            struct words shown = {0}, want = {0};
            for (int pg = 1;; pg++) {
                present_script_draw(ps);
                room_text(text, sizeof text);
                frames++;
                if (strstr(text, "too small for this scene"))
                    fail_msg("%dx%d slide %zu page %d: the scene does not fit", cols, rows,
                             k + 1, pg);
                regmatch_t m;
                if (regexec(&hints_re, text, 1, &m, 0) == 0)
                    fail_msg("%dx%d slide %zu: a key hint on the room's screen: %.*s\n%s", cols,
                             rows, k + 1, (int)(m.rm_eo - m.rm_so), text + m.rm_so, text);
                words_add(&shown, text);
                if (pg >= 12)
                    fail_msg("%dx%d slide %zu: PageUp never left the slide", cols, rows, k + 1);
                memcpy(prev, text, strlen(text) + 1);
                present_script_key(ps, KEY_PPAGE);
                present_script_where(ps, &at, &n, &page, &np, &step);
                if (at != k) break; /* the slide before */
                present_script_draw(ps);
                room_text(text, sizeof text);
                if (strcmp(text, prev) == 0) break; /* slide 1's first page: nowhere to go */
                if (strstr(text, "this is the first slide")) break;
            }
            slide_words(&set.v[l].slides[si], &want);
            char missing[600] = "";
            size_t nm = 0;
            for (size_t i = 0; i < want.n; i++)
                if (!words_have(&shown, want.w[i]) && nm++ < 8) {
                    size_t ml = strlen(missing);
                    snprintf(missing + ml, sizeof missing - ml, " %s", want.w[i]);
                }
            if (nm) {
                bad++;
                printf("%dx%d slide %zu: not shown:%s\n", cols, rows, k + 1, missing);
            }
            words_free(&shown);
            words_free(&want);
        }
    printf("%dx%d: %zu slides, %zu screens, %zu slides with words not shown\n", cols, rows, k,
           frames, bad);
    assert_true(k >= 50);
    assert_int_equal(n, k);
    assert_int_equal(bad, 0);
    present_script_close(ps);
    lesson_set_free(&set);
}

ROOM_AT(test_words_80x24, walk, 80, 24)
ROOM_AT(test_words_100x30, walk, 100, 30)
ROOM_AT(test_words_120x36, walk, 120, 36)
ROOM_AT(test_words_160x45, walk, 160, 45)

static int setup(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C.UTF-8");
    if (regcomp(&hints_re, HINTS, REG_EXTENDED | REG_NEWLINE) != 0) return -1;
    if (regcomp(&key_re, "\\b(press|presses|pressing|pressed|arrow|arrows)\\b|the key",
                REG_EXTENDED | REG_ICASE | REG_NOSUB) != 0)
        return -1;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words_80x24),
        cmocka_unit_test(test_words_100x30),
        cmocka_unit_test(test_words_120x36),
        cmocka_unit_test(test_words_160x45),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
