/* notes_view.c - `collviz notes` (see notes_view.h).
 *
 * One thread: it sleeps in ppoll() on the keyboard and the presenter's socket, waking at
 * least at every wall-clock second (the clock) and every half second while it waits for a
 * presenter (to try connecting again). As in the main program, SIGINT, SIGTERM and SIGHUP
 * are blocked except inside that ppoll and only set a flag; the loop then restores the
 * terminal and lets the signal take its usual effect. */
#include "ui/present/notes_view.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "core/text.h"
#include "ui/kit/keys.h"
#include "ui/kit/theme.h"
#include "present/notes_ipc.h"
#include "ui/kit/term.h"

#define NOTES_MIN_COLS 30
#define NOTES_MIN_ROWS 10
#define NOTES_RETRY_MS 500

struct notes_view {
    const char *name;
    bool utf8;
    struct theme th;
    int fd; /* -1 while waiting for the presenter */
    struct notes_reader rd;
    bool have; /* st holds a state from the current connection */
    struct notes_state st;
    char why[300]; /* why we are not connected */
    /* the countdown from the lessons' minutes: (p pauses, r resets), on the presenter's
     * clock so it survives this terminal's restart only as far as the reset */
    long cd_base, cd_paused_total, cd_pause_at;
    bool cd_paused;
    /* The body (the note, the answers, the narration the room's page leaves out) is wrapped
     * to the width and scrolled: scroll is its first row shown; a new slide opens at 0, the
     * same slide sent again (every second, for the clock) keeps it. body_*: the last draw's
     * rows (notes_view_body) and how many rows the body has. */
    int scroll;
    int body_y0, body_h, body_n;
    /* `?`: the body's rows show every key (the presenter's and this terminal's) instead of
     * the note, until `?` again, another key of this terminal or a new slide */
    bool keys_page;
};

/* One row of the body: a wrapped line and its attributes. */
struct nv_row {
    char s[256];
    attr_t at;
};
struct nv_rows {
    struct nv_row *v;
    int n, cap;
};

/* Control characters (other than newlines) are never sent to the terminal. */
static void nv_clean(char *s)
{
    for (; *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f) *s = ' ';
}

static void nv_put(int y, int x, int maxw, attr_t a, const char *s)
{
    if (maxw <= 0) return;
    char buf[1024];
    text_fit(buf, sizeof buf, s, maxw, true);
    attrset(a);
    mvaddstr(y, x, buf);
    attrset(A_NORMAL);
}

static void nv_hline(const struct notes_view *v, int y, int cols)
{
    const char *h = glyphs_get(v->utf8)->h;
    attrset(v->th.role[TH_DIM]);
    move(y, 0);
    for (int x = 0; x < cols; x++)
        addstr(h);
    attrset(A_NORMAL);
}

static void nv_time(char *buf, size_t n, long s)
{
    if (s >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, n, "%02ld:%02ld", s / 60, s % 60);
}

/* Reflow a note to the terminal's width: a source line break is a space, except before a
 * list item ("- ", "* ", "1. ") and around an empty line (a new paragraph). */
static void nv_reflow(char *s)
{
    for (char *c = s; (c = strchr(c, '\n')) != NULL; c++) {
        const char *n = c + 1;
        bool keep = *n == '\n' || (c > s && c[-1] == '\n') || *n == '\0' ||
                    ((n[0] == '-' || n[0] == '*') && n[1] == ' ') ||
                    (n[0] >= '0' && n[0] <= '9' && (n[1] == '.' || n[1] == ')'));
        if (!keep) *c = ' ';
    }
}

static void nv_row_add(struct nv_rows *r, const char *text, attr_t at)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->v = xrealloc(r->v, (size_t)r->cap * sizeof *r->v);
    }
    snprintf(r->v[r->n].s, sizeof r->v[r->n].s, "%s", text);
    r->v[r->n++].at = at;
}

/* Text word-wrapped to w columns, paragraph by paragraph (its own newlines), every line of
 * it: an empty paragraph is a blank row. */
static void nv_wrap(const struct notes_view *v, struct nv_rows *r, int w, attr_t at,
                    const char *text)
{
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *para = xmalloc(len + 1);
        memcpy(para, p, len);
        para[len] = '\0';
        int max = text_wrap_count(para, w) + 2;
        char(*lines)[256] = xcalloc((size_t)max, sizeof *lines);
        int n = text_wrap(para, w, lines, max, v->utf8);
        if (n == 0) nv_row_add(r, "", at);
        for (int i = 0; i < n; i++)
            nv_row_add(r, lines[i], at);
        free(lines);
        free(para);
        p += len + (e ? 1 : 0);
    }
}

/* The body's rows at width w: the note, then the slide's answers and solutions, then the
 * narration the room's page leaves out. */
static void nv_body(const struct notes_view *v, int w, struct nv_rows *r)
{
    if (!v->st.note[0])
        nv_row_add(r, "(no speaker note on this slide)", v->th.role[TH_DIM]);
    else
        nv_wrap(v, r, w, A_BOLD, v->st.note);
    if (v->st.answer[0]) {
        nv_row_add(r, "", A_NORMAL);
        nv_wrap(v, r, w, v->th.role[TH_OK], v->st.answer);
    }
    if (v->st.narr[0]) { /* what the room's screen leaves out: to be said */
        nv_row_add(r, "", A_NORMAL);
        nv_wrap(v, r, w, v->th.role[TH_LABEL],
                "Not on the room's screen (the presenter's PgUp shows it):");
        nv_wrap(v, r, w, A_NORMAL, v->st.narr);
    }
}

/* A mark laid on the separator row y, from column 2: " ↓ more (PgDn Space) ". */
static void nv_mark(const struct notes_view *v, int y, int cols, const char *arrow,
                    enum ui_action act, const char *after)
{
    char keys[64], m[160];
    keys_row_names(&keys_table()[act], v->utf8, keys, sizeof keys);
    snprintf(m, sizeof m, " %s more (%s)%s ", arrow, keys, after);
    nv_put(y, 2, cols - 4, v->th.role[TH_WARN] | A_BOLD, m);
}

/* The body in rows [y0, y0 + h), from its row v->scroll (clamped here), and the marks on the
 * separators above (row y0 - 1) and below (row y0 + h) where it goes on. */
static void nv_note(struct notes_view *v, int y0, int h, int cols)
{
    struct nv_rows r = {0};
    nv_body(v, cols - 4, &r);
    int max = r.n > h ? r.n - h : 0;
    if (v->scroll > max) v->scroll = max;
    if (v->scroll < 0) v->scroll = 0;
    v->body_y0 = y0;
    v->body_h = h;
    v->body_n = r.n;
    for (int i = 0; i < h && v->scroll + i < r.n; i++)
        nv_put(y0 + i, 2, cols - 4, r.v[v->scroll + i].at, r.v[v->scroll + i].s);
    if (v->scroll > 0)
        nv_mark(v, y0 - 1, cols, v->utf8 ? "\u2191" : "^", ACT_NOTES_PAGE_UP, "");
    if (v->scroll < max) {
        char where[64];
        snprintf(where, sizeof where, ", lines %d-%d of %d", v->scroll + 1, v->scroll + h, r.n);
        nv_mark(v, y0 + h, cols, v->utf8 ? "\u2193" : "v", ACT_NOTES_PAGE_DOWN, where);
    }
    free(r.v);
}

/* The keys line ("PgDn next  PgUp back  ...", items two spaces apart) laid out in lines of
 * `width`, never splitting an item; returns the lines used (at most max, the last may end
 * short of the list when it does not fit). */
static int nv_keys(const char *keys, int width, char lines[][256], int max)
{
    int n = 0, w = 0;
    const char *p = keys;
    while (*p && n <= max) {
        const char *e = strstr(p, "  ");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)(len < 255 ? len : 255), p);
        int iw = text_width(item);
        if (n == 0 || (w > 0 && w + 2 + iw > width)) {
            if (n == max) break;
            lines[n++][0] = '\0';
            w = 0;
        }
        char *l = lines[n - 1];
        size_t o = strlen(l);
        snprintf(l + o, 256 - o, "%s%s", w ? "  " : "", item);
        w += (w ? 2 : 0) + iw;
        p += len;
        while (*p == ' ')
            p++;
    }
    return n;
}

/* How many items a keys line has (two spaces apart). */
static int nv_items(const char *s)
{
    int n = 0;
    for (const char *p = s; *p; n++) {
        const char *e = strstr(p, "  ");
        p = e ? e + 2 : p + strlen(p);
        while (*p == ' ')
            p++;
    }
    return n;
}

/* The keys on one line of width: the presenter's that fit, then `?` for every key (the
 * presenter's the line leaves out, and this terminal's own): the note keeps the rows. */
static void nv_keys_line(const char *keys, int width, char *out, size_t n)
{
    char line[1][256] = {""};
    int total = nv_items(keys), shown = 0;
    char more[48];
    snprintf(more, sizeof more, "? +%d keys", total);
    int room = width - 2 - text_width(more);
    if (total > 0 && room > 0 && nv_keys(keys, room, line, 1) == 1 &&
        text_width(line[0]) <= room)
        shown = nv_items(line[0]);
    if (shown == total)
        snprintf(more, sizeof more, "? keys");
    else
        snprintf(more, sizeof more, "? +%d keys", total - shown);
    snprintf(out, n, "%s%s%s", shown ? line[0] : "", shown ? "  " : "", more);
}

/* Items of `keys` (two spaces apart) into the rows [*y, end) at width w. */
static void nv_items_rows(const struct notes_view *v, int *y, int end, int w, const char *keys)
{
    char lines[40][256];
    int n = nv_keys(keys, w, lines, 40);
    for (int i = 0; i < n && *y < end; i++)
        nv_put((*y)++, 2, w, A_NORMAL, lines[i]);
}

static bool nv_key_works(const void *ctx, enum ui_action act, const char **label);

/* The page `?` shows in the body's rows [y0, y0 + h): every key the presenter sent (those
 * that work there now), then this terminal's own that work now. */
static void nv_keys_page(struct notes_view *v, int y0, int h, int cols)
{
    int y = y0, end = y0 + h;
    v->body_y0 = y0;
    v->body_h = h;
    nv_put(y++, 2, cols - 4, v->th.role[TH_LABEL],
           "The presenter's keys (those that work now):");
    nv_items_rows(v, &y, end, cols - 4, v->st.keys);
    y++;
    if (y < end) nv_put(y++, 2, cols - 4, v->th.role[TH_LABEL], "This terminal's keys:");
    struct bar_item it[ACT_COUNT];
    int n = keys_bar_where(4096, v->utf8, KEYS_ON_NOTES, nv_key_works, v, it, ACT_COUNT);
    char own[1024] = "";
    for (int i = 0; i < n; i++) {
        size_t l = strlen(own);
        snprintf(own + l, sizeof own - l, "%s%s %s", i ? "  " : "", it[i].keys, it[i].label);
    }
    nv_items_rows(v, &y, end, cols - 4, own);
}

/* "left 42:10 of 95:00", "over by 03:12", paused or not; "" without minutes:. */
static attr_t nv_countdown(const struct notes_view *v, char *buf, size_t n)
{
    buf[0] = '\0';
    if (v->st.minutes <= 0) return A_NORMAL;
    long used = v->st.elapsed_s - v->cd_base - v->cd_paused_total -
                (v->cd_paused ? v->st.elapsed_s - v->cd_pause_at : 0);
    long left = (long)v->st.minutes * 60 - used;
    char t[32], total[32];
    nv_time(t, sizeof t, left < 0 ? -left : left);
    nv_time(total, sizeof total, (long)v->st.minutes * 60);
    snprintf(buf, n, "%s %s%s%s", left < 0 ? "over by" : "left", t, left < 0 ? "" : " of ",
             left < 0 ? "" : total);
    if (v->cd_paused) snprintf(buf + strlen(buf), n - strlen(buf), " (paused)");
    return left < 0 ? v->th.role[TH_BAD] : left < 300 ? v->th.role[TH_WARN] : v->th.role[TH_OK];
}

static void nv_countdown_key(struct notes_view *v, enum ui_action act)
{
    long now = v->st.elapsed_s;
    if (act == ACT_NOTES_PAUSE) {
        if (v->cd_paused)
            v->cd_paused_total += now - v->cd_pause_at;
        else
            v->cd_pause_at = now;
        v->cd_paused = !v->cd_paused;
    } else if (act == ACT_NOTES_RESET) {
        v->cd_base = now;
        v->cd_paused_total = 0;
        v->cd_pause_at = now;
    }
}

/* Which of this terminal's keys do something now (the `?` page names only those): the
 * scrolling keys where the body is longer than its rows, the countdown's where there is one. */
static bool nv_key_works(const void *ctx, enum ui_action act, const char **label)
{
    (void)label;
    const struct notes_view *v = ctx;
    switch (act) {
    case ACT_NOTES_PAGE_DOWN:
    case ACT_NOTES_PAGE_UP:
    case ACT_NOTES_LINE_DOWN:
    case ACT_NOTES_LINE_UP:
    case ACT_NOTES_TOP:
    case ACT_NOTES_END:
        return v->body_n > v->body_h;
    case ACT_NOTES_PAUSE:
    case ACT_NOTES_RESET:
        return v->st.minutes > 0;
    default:
        return true;
    }
}

/* Up to max rows of text wrapped to cols - 2 from row *y, at column 1 (the presenter's
 * status and the backends' line: short, said above the note). */
static void nv_lines(const struct notes_view *v, int *y, int cols, int max, attr_t at,
                     const char *text)
{
    struct nv_rows r = {0};
    nv_wrap(v, &r, cols - 2, at, text);
    int n = r.n < max ? r.n : max;
    for (int i = 0; i < n; i++) {
        if (i == n - 1 && n < r.n) {            /* no room: the last row says the rest is cut */
            char last[2 * sizeof r.v[0].s + 2]; /* both rows whole: nv_put cuts it */
            snprintf(last, sizeof last, "%s %s", r.v[i].s, r.v[n].s);
            nv_put((*y)++, 1, cols - 2, at, last);
        } else {
            nv_put((*y)++, 1, cols - 2, at, r.v[i].s);
        }
    }
    free(r.v);
}

void notes_view_draw(struct notes_view *v)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    erase();
    if (rows < NOTES_MIN_ROWS || cols < NOTES_MIN_COLS) {
        char m[80];
        snprintf(m, sizeof m, "terminal too small: %dx%d, need %dx%d", cols, rows,
                 NOTES_MIN_COLS, NOTES_MIN_ROWS);
        int w = text_width(m);
        nv_put(rows / 2, w < cols ? (cols - w) / 2 : 0, cols, A_BOLD, m);
        term_refresh();
        return;
    }
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char clock[16], top[120];
    strftime(clock, sizeof clock, "%H:%M:%S", &tm);
    attrset(v->th.role[TH_TITLE]);
    mvhline(0, 0, ' ', cols);
    snprintf(top, sizeof top, " collviz notes%s%s", glyphs_get(v->utf8)->sep, v->name);
    nv_put(0, 0, cols - 10, v->th.role[TH_TITLE], top);
    nv_put(0, cols - 9, 9, v->th.role[TH_TITLE], clock);

    if (!v->have) { /* (disconnecting clears have) */
        char m[160];
        snprintf(m, sizeof m, "waiting for presenter %s%s", v->name,
                 v->utf8 ? "\u2026" : "...");
        int w = text_width(m);
        nv_put(rows / 2 - 1, w < cols ? (cols - w) / 2 : 0, cols, A_BOLD, m);
        const char *hint = v->fd < 0 ? v->why : "connected, waiting for the first slide";
        w = text_width(hint);
        nv_put(rows / 2 + 1, w < cols ? (cols - w) / 2 : 0, cols, v->th.role[TH_DIM], hint);
        nv_put(rows - 1, 1, cols - 2, v->th.role[TH_DIM], "q quit");
        term_refresh();
        return;
    }

    char line[600], el[32];
    snprintf(line, sizeof line, "slide %d/%d%s%s", v->st.slide, v->st.nslides,
             glyphs_get(v->utf8)->sep, v->st.lesson);
    nv_time(el, sizeof el, v->st.elapsed_s);
    char elapsed[48];
    snprintf(elapsed, sizeof elapsed, "elapsed %s", el);
    int ew = text_width(elapsed);
    nv_put(1, 1, cols - ew - 4, v->th.role[TH_STEP], line);
    nv_put(1, cols - ew - 1, ew, v->th.role[TH_MEASURED], elapsed);
    char cd[80];
    attr_t cda = nv_countdown(v, cd, sizeof cd);
    int cw = text_width(cd);
    if (cd[0]) nv_put(2, cols - cw - 1, cw, cda, cd);
    if (v->st.blanked) {
        const char *full = "SCREEN BLANKED: the audience sees black (any key on the presenter "
                           "restores)";
        nv_put(2, 1, cols - cw - 3, v->th.role[TH_WARN],
               text_width(full) <= cols - cw - 3 ? full
                                                 : "SCREEN BLANKED (any key on the presenter)");
    }
    nv_put(3, 1, 5, v->th.role[TH_LABEL], "Now:");
    if (v->st.demo) { /* the room sees a live demo, not the slide's own scene */
        const char *d = "[demo: 0 brings the slide back]";
        int dw = text_width(d);
        nv_put(3, 6, cols - dw - 9, A_BOLD, v->st.title);
        nv_put(3, cols - dw - 1, dw, v->th.role[TH_WARN], d);
    } else {
        nv_put(3, 6, cols - 7, A_BOLD, v->st.title);
    }
    nv_hline(v, 4, cols);
    /* The presenter's keys that work now on the last line, with `?` for the rest. */
    char keys[320]; /* a line of 256 and the "? +N keys" */
    nv_keys_line(v->st.keys, cols - 2, keys, sizeof keys);
    int bottom = rows - 1;
    /* What the presenter says to the speaker alone (a prompt, a key's answer, an error) and
     * the backends' line, wrapped, as long as the note keeps three rows. */
    int y0 = 5, room = bottom - 2 - y0 - 3 - 1;
    if (v->st.status[0] && room > 0) {
        int y = y0;
        nv_lines(v, &y, cols, room < 3 ? room : 3, v->th.role[TH_WARN], v->st.status);
        room -= y - y0;
        y0 = y;
    }
    if (v->st.work[0] && room > 0) { /* what the scene's screen is doing */
        int y = y0;
        nv_lines(v, &y, cols, room < 2 ? room : 2, v->th.role[TH_WARN], v->st.work);
        room -= y - y0;
        y0 = y;
    }
    if (v->st.backend[0] && room > 0) {
        int y = y0;
        nv_lines(v, &y, cols, room < 2 ? room : 2, v->th.role[TH_DIM], v->st.backend);
        y0 = y;
    }
    if (y0 > 5) nv_hline(v, y0++, cols);
    nv_hline(v, bottom - 2, cols);
    if (v->keys_page)
        nv_keys_page(v, y0, bottom - 2 - y0, cols);
    else
        nv_note(v, y0, bottom - 2 - y0, cols);
    nv_put(bottom - 1, 1, 6, v->th.role[TH_LABEL], "Next:");
    if (v->st.next[0])
        nv_put(bottom - 1, 7, cols - 8, A_BOLD, v->st.next);
    else
        nv_put(bottom - 1, 7, cols - 8, v->th.role[TH_DIM], "(this is the last slide)");
    nv_put(bottom, 1, cols - 2, v->th.role[TH_LABEL], keys);
    term_refresh();
}

bool notes_view_key(struct notes_view *v, int ch)
{
    enum ui_action act = keys_action_on(ch, KEYS_ON_NOTES);
    int page = v->body_h > 1 ? v->body_h - 1 : 1; /* a page keeps one line of the last */
    bool was_page = v->keys_page;
    v->keys_page = false; /* any key of this terminal gives the note back */
    switch (act) {
    case ACT_NOTES_QUIT:
        return true;
    case ACT_NOTES_KEYS:
        v->keys_page = !was_page;
        return false;
    case ACT_NOTES_PAGE_DOWN:
        v->scroll += page;
        break;
    case ACT_NOTES_PAGE_UP:
        v->scroll -= page;
        break;
    case ACT_NOTES_LINE_DOWN:
        v->scroll++;
        break;
    case ACT_NOTES_LINE_UP:
        v->scroll--;
        break;
    case ACT_NOTES_TOP:
        v->scroll = 0;
        break;
    case ACT_NOTES_END:
        v->scroll = v->body_n;
        break;
    default:
        nv_countdown_key(v, act);
        break;
    }
    /* as the last draw laid the body out (the next draw clamps again, to its own) */
    int max = v->body_n > v->body_h ? v->body_n - v->body_h : 0;
    if (v->scroll > max) v->scroll = max;
    if (v->scroll < 0) v->scroll = 0;
    return false;
}

void notes_view_body(const struct notes_view *v, int *y0, int *h)
{
    *y0 = v->body_y0;
    *h = v->body_h;
}

struct notes_view *notes_view_new(const char *name, bool utf8, bool color)
{
    struct notes_view *v = xcalloc(1, sizeof *v);
    v->name = name;
    v->fd = -1;
    v->utf8 = utf8;
    theme_init(&v->th, color);
    return v;
}

void notes_view_free(struct notes_view *v)
{
    free(v);
}

static void nv_disconnect(struct notes_view *v, const char *why)
{
    if (v->fd >= 0) close(v->fd);
    v->fd = -1;
    v->have = false;
    notes_reader_reset(&v->rd);
    snprintf(v->why, sizeof v->why, "%s", why);
}

static void nv_try_connect(struct notes_view *v)
{
    char err[300];
    if (notes_client_connect(v->name, &v->fd, err, sizeof err) != CV_OK) {
        v->fd = -1;
        snprintf(v->why, sizeof v->why, "%s", err);
        return;
    }
    v->have = false;
    notes_reader_reset(&v->rd);
}

void notes_view_show(struct notes_view *v, const struct notes_state *in)
{
    /* the slide it was on, to tell a new slide (its notes open at the top) from the same
     * one sent again (the clock's tick, a step: the place stays) */
    bool had = v->have;
    int slide = v->st.slide, nslides = v->st.nslides;
    char lesson[NOTES_TEXT_MAX], title[NOTES_TEXT_MAX];
    memcpy(lesson, v->st.lesson, sizeof lesson);
    memcpy(title, v->st.title, sizeof title);
    v->st = *in;
    struct notes_state *st = &v->st;
    nv_clean(st->lesson);
    nv_clean(st->title);
    nv_clean(st->note);
    nv_clean(st->next);
    nv_clean(st->answer);
    nv_clean(st->keys);
    nv_clean(st->status);
    nv_clean(st->backend);
    nv_clean(st->work);
    nv_clean(st->narr);
    nv_reflow(st->note);
    nv_reflow(st->answer);
    if (!had || slide != st->slide || nslides != st->nslides || strcmp(lesson, st->lesson) ||
        strcmp(title, st->title)) {
        v->scroll = 0;
        v->keys_page = false; /* a new slide: its note */
    }
    v->have = true;
}

/* Read what the presenter sent; false when the screen need not change. */
static bool nv_read(struct notes_view *v)
{
    char buf[8192];
    bool changed = false;
    for (;;) {
        ssize_t n = read(v->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return changed;
        if (n <= 0) {
            nv_disconnect(v, "the presenter went away; waiting for it to come back");
            return true;
        }
        struct notes_state st;
        bool got = false;
        char err[300];
        if (notes_reader_feed(&v->rd, buf, (size_t)n, &st, &got, err, sizeof err) != CV_OK) {
            nv_disconnect(v, err);
            return true;
        }
        if (got) {
            notes_view_show(v, &st);
            changed = true;
        }
    }
}

/* Milliseconds to the next wall-clock second (at least 1). */
static int nv_ms_to_second(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    int ms = 1000 - (int)(tv.tv_usec / 1000);
    return ms < 1 ? 1 : ms;
}

static void nv_loop(struct notes_view *v, const sigset_t *waitmask)
{
    bool quit = false;
    double next_try = 0;
    while (!quit && !term_signal) {
        if (v->fd < 0 && now_s() >= next_try) {
            nv_try_connect(v);
            next_try = now_s() + NOTES_RETRY_MS / 1000.0;
            if (v->fd >= 0) nv_read(v);
        }
        notes_view_draw(v);
        int timeout = nv_ms_to_second();
        if (v->fd < 0 && timeout > NOTES_RETRY_MS) timeout = NOTES_RETRY_MS;
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                                {.fd = v->fd, .events = POLLIN}};
        struct timespec ts = {timeout / 1000, (long)(timeout % 1000) * 1000000L};
        int rc = ppoll(fds, v->fd >= 0 ? 2 : 1, &ts, waitmask);
        if (term_signal) break;
        if (rc < 0 && errno != EINTR) break;
        if (rc > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            int ch;
            while ((ch = term_getch()) != ERR)
                if (notes_view_key(v, ch)) quit = true;
            /* The terminal went away: a closed pty reports POLLIN with it, so this does not
             * wait for POLLIN to clear (ppoll would return at once for ever). */
            if (fds[0].revents & (POLLHUP | POLLERR)) break;
        }
        if (rc > 0 && v->fd >= 0 && fds[1].revents) nv_read(v);
    }
}

int notes_view_run(const char *name, bool no_color, bool ascii)
{
    setlocale(LC_ALL, "");
    struct notes_view v = {.name = name, .fd = -1};
    char err[300], path[200];
    if (notes_name_check(v.name, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz notes: %s\n", strncmp(err, "notes: ", 7) == 0 ? err + 7 : err);
        return 2;
    }
    /* A socket directory that exists but is not private is refused before the screen
     * starts; one that does not exist yet only means no presenter has run. */
    if (notes_socket_path(v.name, false, path, sizeof path, err, sizeof err) == CV_EINVAL) {
        cv_eprintf("collviz notes: %s\n", strncmp(err, "notes: ", 7) == 0 ? err + 7 : err);
        return 2;
    }
    if (!term_have_tty("the notes view")) return 2;
    const char *nc = getenv("NO_COLOR");
    bool want_color = !no_color && !(nc && nc[0]);
    v.utf8 = !ascii && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;

    sigset_t block, waitmask;
    term_block_signals(&block, &waitmask);

    SCREEN *scr = term_start();
    if (!scr) {
        cv_eprintf("collviz notes: cannot start the terminal UI (TERM=%s)\n",
                   getenv("TERM") ? getenv("TERM") : "unset");
        sigprocmask(SIG_UNBLOCK, &block, NULL);
        return 1;
    }
    theme_init(&v.th, want_color);
    term_catch_signals();
    notes_reader_init(&v.rd);
    snprintf(v.why, sizeof v.why, "start `collviz --present%s%s LESSON` on this machine",
             strcmp(v.name, "default") ? " --name " : "",
             strcmp(v.name, "default") ? v.name : "");

    nv_loop(&v, &waitmask);

    term_end(scr);
    if (v.fd >= 0) close(v.fd);
    notes_reader_free(&v.rd);
    return term_exit(&block);
}
