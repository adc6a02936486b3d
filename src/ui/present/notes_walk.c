/* notes_walk.c - the notes terminal walked off-screen (see notes_walk.h). The presenter is
 * driven first, slide by slide, and what it would send the notes terminal is kept; then the
 * notes view draws each slide's state on a screen of its own, and the screen is read back.
 * What the speaker must reach is taken from the state the presenter sent, never from the
 * view's own layout: the view is asked only where its body lies. */
#include "ui/present/notes_walk.h"

#include <curses.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "present/notes_ipc.h"
#include "ui/kit/svg.h"
#include "ui/present/notes_view.h"
#include "ui/present/present.h"

#define NW_MAX_PAGES 3000

enum nw_kind {
    NW_LOST,
    NW_UNMARKED,
    NW_FALSE_MARK,
    NW_KEYS,
    NW_RESET,
    NW_JUMP,
    NW_CUT,
    NW_CRAMPED,
    NW_KEYLIST,
    NW_N
};

/* One screen read back: the body's rows joined by '\n', and whether the rows around it
 * mark text below ("↓ more" with PgDn on its row) or above ("↑ more"). */
struct nw_page {
    char *body;
    int h;
    bool down, up, cut;
};

struct nw {
    int cols, rows;
    FILE *log;
    int max_log, logged;
    size_t slide;
    const struct notes_state *st;
    bool found[NW_N];
};

static void nw_log(struct nw *w, enum nw_kind k, const char *fmt, ...)
{
    static const char *const names[NW_N] = {
        "words not reachable", "no mark", "false mark", "key",
        "not reset",           "jumped",  "cut row",    "cramped",
        "presenter's keys"};
    w->found[k] = true;
    if (!w->log || w->logged >= w->max_log) return;
    w->logged++;
    fprintf(w->log, "notes %dx%d slide %zu (%s): %s: ", w->cols, w->rows, w->slide + 1,
            w->st->title, names[k]);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(w->log, fmt, ap);
    va_end(ap);
    fputc('\n', w->log);
}

/* Draw v and read the screen back into pg. */
static void nw_draw(struct notes_view *v, struct nw_page *pg)
{
    notes_view_draw(v);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) util_fatal("notes walk: out of memory");
    svg_write_text(stdscr, f);
    fclose(f);
    int y0, h;
    notes_view_body(v, &y0, &h);
    char *body = xcalloc(len + 1, 1);
    size_t bo = 0;
    *pg = (struct nw_page){.body = body, .h = h};
    int y = 0;
    for (char *p = text; *p; y++) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        if (y >= y0 && y < y0 + h) {
            bo += (size_t)snprintf(body + bo, len + 1 - bo, "%s%s", y > y0 ? "\n" : "", p);
        } else {
            if (strstr(p, "\u2193 more") && strstr(p, "PgDn")) pg->down = true;
            if (strstr(p, "\u2191 more")) pg->up = true;
        }
        size_t l = strlen(p);
        if (l >= 3 && strcmp(p + l - 3, "\u2026") == 0) pg->cut = true;
        if (!nl) break;
        p = nl + 1;
    }
    free(text);
}

/* s without whitespace and control characters (the view wraps and reflows: spacing is its
 * own, the characters are the speaker's). */
static char *nw_squeeze(const char *s)
{
    char *o = xmalloc(strlen(s) + 1), *q = o;
    for (; *s; s++)
        if ((unsigned char)*s > ' ' && *s != 0x7f) *q++ = *s;
    *q = '\0';
    return o;
}

/* Every field the presenter sent for the body is in the text read from its top to its end,
 * each whole and in one piece. */
static void nw_words(struct nw *w, const char *all)
{
    char *sm = nw_squeeze(all);
    const struct {
        const char *name, *text;
    } f[] = {{"note", w->st->note}, {"answers", w->st->answer}, {"narration", w->st->narr}};
    for (size_t i = 0; i < ARRAY_LEN(f); i++) {
        char *sf = nw_squeeze(f[i].text);
        if (sf[0] && !strstr(sm, sf)) {
            size_t lo = 0, hi = strlen(sf); /* the longest prefix found: where it stops */
            while (lo < hi) {
                size_t mid = (lo + hi + 1) / 2;
                char c = sf[mid];
                sf[mid] = '\0';
                bool in = strstr(sm, sf) != NULL;
                sf[mid] = c;
                if (in)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            size_t from = lo > 40 ? lo - 40 : 0;
            nw_log(w, NW_LOST, "the %s stops after \"...%.*s\" (%zu of %zu characters)",
                   f[i].name, (int)(lo - from), sf + from, lo, strlen(sf));
        }
        free(sf);
    }
    free(sm);
}

/* The index of the page whose body is b, -1 when none. */
static int nw_find(struct nw_page *pages, int n, const char *b)
{
    for (int i = 0; i < n; i++)
        if (strcmp(pages[i].body, b) == 0) return i;
    return -1;
}

/* Press ch on v and return the page it shows (its index among pages, -1 for none). */
static int nw_press(struct notes_view *v, int ch, struct nw_page *pages, int n)
{
    struct nw_page pg;
    notes_view_key(v, ch);
    nw_draw(v, &pg);
    int i = nw_find(pages, n, pg.body);
    free(pg.body);
    return i;
}

/* PgDn (or PgUp) pressed until the last (first) page: every press moves by at most a page
 * less a line, never skipping a line, and gets there. */
static void nw_paging(struct nw *w, struct notes_view *v, struct nw_page *pages, int n, int ch,
                      const char *name)
{
    bool down = ch != KEY_PPAGE;
    int at = down ? 0 : n - 1, goal = down ? n - 1 : 0, h = pages[0].h;
    for (int presses = 0; at != goal; presses++) {
        int i = nw_press(v, ch, pages, n);
        int moved = down ? i - at : at - i;
        if (i < 0 || moved <= 0 || moved > (h > 1 ? h - 1 : 1) || presses > n) {
            nw_log(w, NW_KEYS, "%s from line %d went to %s %d (a page is %d rows)", name,
                   at + 1, i < 0 ? "no line of the note:" : "line", i + 1, h);
            return;
        }
        at = i;
    }
}

/* The keys on a slide whose pages (one line apart, from the line walk) are pages[0..n). */
static void nw_keys(struct nw *w, struct notes_view *v, struct nw_page *pages, int n)
{
    static const struct {
        int key, from, to; /* from/to: a page index, or -1 for the last (-2 the one before) */
        const char *name;
    } moves[] = {{KEY_HOME, -1, 0, "Home"}, {'j', 0, 1, "j"},      {'k', 1, 0, "k"},
                 {'G', 0, -1, "G"},         {KEY_UP, -1, -2, "↑"}, {'g', -2, 0, "g"},
                 {KEY_END, 0, -1, "End"}};
    int at = n - 1; /* the line walk ends on the last page */
    for (size_t m = 0; m < ARRAY_LEN(moves); m++) {
        int from = moves[m].from < 0 ? n + moves[m].from : moves[m].from;
        int to = moves[m].to < 0 ? n + moves[m].to : moves[m].to;
        if (from < 0 || to < 0 || from >= n || to >= n) continue;
        if (from != at) continue;
        int i = nw_press(v, moves[m].key, pages, n);
        if (i != to)
            nw_log(w, NW_KEYS, "%s on line %d went to %d, not %d", moves[m].name, from + 1,
                   i + 1, to + 1);
        at = i < 0 ? -1 : i;
    }
    /* from the top: PgDn and Space page down to the end; PgUp back */
    notes_view_key(v, KEY_HOME);
    nw_paging(w, v, pages, n, KEY_NPAGE, "PgDn");
    nw_paging(w, v, pages, n, KEY_PPAGE, "PgUp");
    notes_view_key(v, KEY_HOME);
    nw_paging(w, v, pages, n, ' ', "Space");
}

/* Every key the presenter sent (its items, two spaces apart) is on the screen, on its line
 * or on the page `?` shows; `?` again gives the note back as it was. */
static void nw_keylist(struct nw *w, struct notes_view *v)
{
    struct nw_page before, list, after;
    nw_draw(v, &before);
    char *text[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        size_t len = 0;
        FILE *f = open_memstream(&text[k], &len);
        if (!f) util_fatal("notes walk: out of memory");
        if (k == 1) {
            notes_view_key(v, '?');
            nw_draw(v, &list);
        }
        svg_write_text(stdscr, f);
        fclose(f);
    }
    char *shown = nw_squeeze(text[0]), *paged = nw_squeeze(text[1]);
    const char *p = w->st->keys;
    while (*p) {
        const char *e = strstr(p, "  ");
        size_t n = e ? (size_t)(e - p) : strlen(p);
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)(n < 255 ? n : 255), p);
        char *si = nw_squeeze(item);
        if (si[0] && !strstr(shown, si) && !strstr(paged, si))
            nw_log(w, NW_KEYLIST, "\"%s\" neither on the screen nor behind ?", item);
        free(si);
        p += n;
        while (*p == ' ')
            p++;
    }
    notes_view_key(v, '?');
    nw_draw(v, &after);
    if (strcmp(before.body, after.body) != 0)
        nw_log(w, NW_KEYLIST, "? twice did not give the note back as it was");
    free(shown);
    free(paged);
    free(text[0]);
    free(text[1]);
    free(before.body);
    free(list.body);
    free(after.body);
}

/* One slide: shown after the previous one (left on its last page), read from the top one
 * line at a time, its marks, its keys, the clock's tick. Returns how many lines down its
 * last page is, plus one (1: the body fits one screen). */
static int nw_slide(struct nw *w, struct notes_view *v, const struct notes_state *st)
{
    memset(w->found, 0, sizeof w->found);
    w->st = st;
    notes_view_show(v, st);
    struct nw_page *pages = xcalloc(NW_MAX_PAGES, sizeof *pages);
    nw_draw(v, &pages[0]);
    int n = 1;
    /* a new slide opens where a fresh terminal would open it */
    struct notes_view *fresh = notes_view_new("walk", true, true);
    notes_view_show(fresh, st);
    struct nw_page ref;
    nw_draw(fresh, &ref);
    notes_view_free(fresh);
    if (strcmp(ref.body, pages[0].body) != 0)
        nw_log(w, NW_RESET, "it opened elsewhere than at the top of its notes");
    free(ref.body);
    /* one line down at a time, to the end: the whole body, line by line */
    size_t cap = strlen(pages[0].body) + 2, len = 0;
    char *all = xmalloc(cap);
    len = (size_t)snprintf(all, cap, "%s", pages[0].body);
    while (n < NW_MAX_PAGES) {
        notes_view_key(v, KEY_DOWN);
        nw_draw(v, &pages[n]);
        const char *prev = pages[n - 1].body, *cur = pages[n].body;
        if (strcmp(prev, cur) == 0) {
            free(pages[n].body);
            break;
        }
        const char *after1 = strchr(prev, '\n'), *last = strrchr(cur, '\n');
        size_t keep = last ? (size_t)(last - cur) : 0;
        bool one =
            after1 && last && strlen(after1 + 1) == keep && strncmp(after1 + 1, cur, keep) == 0;
        const char *add = one ? last + 1 : cur;
        if (!one) nw_log(w, NW_KEYS, "↓ on line %d did not move the text one line", n);
        size_t need = len + strlen(add) + 2;
        if (need > cap) all = xrealloc(all, cap = 2 * need);
        len += (size_t)snprintf(all + len, cap - len, "\n%s", add);
        n++;
    }
    nw_words(w, all);
    free(all);
    /* the note has half the rows or more: the keys take one line, not the note's room */
    if (pages[0].h * 2 < w->rows)
        nw_log(w, NW_CRAMPED, "the note gets %d of %d rows", pages[0].h, w->rows);
    nw_keylist(w, v);
    for (int k = 0; k < n; k++) {
        const struct {
            bool marked, more;
            const char *where;
        } m[] = {{pages[k].down, k < n - 1, "below"}, {pages[k].up, k > 0, "above"}};
        for (size_t j = 0; j < ARRAY_LEN(m); j++)
            if (m[j].marked != m[j].more)
                nw_log(w, m[j].more ? NW_UNMARKED : NW_FALSE_MARK,
                       "from line %d of %d: %s %s, %s", k + 1, n,
                       m[j].more ? "text" : "nothing", m[j].where,
                       m[j].marked ? "marked" : "not marked");
        if (pages[k].cut) nw_log(w, NW_CUT, "a row ends in \u2026");
    }
    /* the presenter sends the same slide again every second: the place stays */
    struct notes_state *tick = xmalloc(sizeof *tick);
    *tick = *st;
    tick->elapsed_s++;
    notes_view_show(v, tick);
    free(tick);
    struct nw_page again;
    nw_draw(v, &again);
    if (strcmp(again.body, pages[n - 1].body) != 0)
        nw_log(w, NW_JUMP, "the clock's tick moved the view from its last line");
    free(again.body);
    nw_keys(w, v, pages, n);
    /* the next slide comes while the speaker is at the end of this one's notes */
    notes_view_key(v, KEY_END);
    for (int k = 0; k < n; k++)
        free(pages[k].body);
    free(pages);
    return n;
}

/* What the presenter would send the notes terminal on each slide of path at cols x rows. */
static int nw_states(const char *path, int cols, int rows, struct notes_state **out, size_t *n,
                     char *err, size_t errlen)
{
    struct present_opts o = {.path = path, .backend = "auto", .no_measure = true};
    struct present_script *s;
    int rc = present_script_open(&s, &o, cols, rows, err, errlen);
    if (rc != CV_OK) return rc;
    size_t slide, ns;
    int page, np;
    long step;
    present_script_where(s, &slide, &ns, &page, &np, &step);
    struct notes_state *st = xcalloc(ns ? ns : 1, sizeof *st);
    for (size_t i = 0; i < ns && rc == CV_OK; i++) {
        for (int t = 0; t < 4 && slide < i; t++) {
            present_script_key(s, 'n');
            present_script_where(s, &slide, &ns, &page, &np, &step);
        }
        if (slide != i) {
            rc = cv_err(err, errlen, CV_EINVAL,
                        "notes walk: the presenter is on slide %zu, "
                        "not %zu",
                        slide + 1, i + 1);
            break;
        }
        present_script_draw(s);
        present_script_notes(s, &st[i]);
    }
    present_script_close(s);
    if (rc != CV_OK) {
        free(st);
        return rc;
    }
    *out = st;
    *n = ns;
    return CV_OK;
}

int notes_walk(const char *path, int cols, int rows, struct notes_walk_counts *c, FILE *log,
               int max_log, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    struct notes_state *st;
    size_t n;
    int rc = nw_states(path, cols, rows, &st, &n, err, errlen);
    if (rc != CV_OK) return rc;
    struct svg_offscreen o;
    rc = svg_offscreen_open(&o, cols, rows, err, errlen);
    if (rc != CV_OK) {
        free(st);
        return rc;
    }
    struct nw w = {.cols = cols, .rows = rows, .log = log, .max_log = max_log};
    struct notes_view *v = notes_view_new("walk", true, true);
    for (size_t i = 0; i < n; i++) {
        w.slide = i;
        c->long_notes += nw_slide(&w, v, &st[i]) > 1;
        c->slides++;
        c->lost += w.found[NW_LOST];
        c->unmarked += w.found[NW_UNMARKED];
        c->false_mark += w.found[NW_FALSE_MARK];
        c->keys_bad += w.found[NW_KEYS];
        c->not_reset += w.found[NW_RESET];
        c->jumped += w.found[NW_JUMP];
        c->cut_rows += w.found[NW_CUT];
        c->cramped += w.found[NW_CRAMPED];
        c->keylist += w.found[NW_KEYLIST];
    }
    notes_view_free(v);
    svg_offscreen_close(&o);
    free(st);
    return CV_OK;
}
