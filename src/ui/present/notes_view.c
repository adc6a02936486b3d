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
#include "ui/kit/theme.h"
#include "present/notes_ipc.h"
#include "ui/kit/term.h"

#define NOTES_MIN_COLS 30
#define NOTES_MIN_ROWS 10
#define NOTES_RETRY_MS 500

struct nv {
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

static void nv_hline(const struct nv *v, int y, int cols)
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

/* Text word-wrapped into rows [*y, y1), paragraph by paragraph (its own newlines); the first
 * line after `lead` (a label in lead_at). */
static void nv_text(const struct nv *v, int *y, int y1, int cols, attr_t at, const char *text)
{
    int w = cols - 4;
    char(*lines)[256] = xcalloc((size_t)(y1 - *y + 1 > 0 ? y1 - *y + 1 : 1), sizeof *lines);
    const char *p = text;
    while (*p && *y < y1) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char *para = xmalloc(len + 1);
        memcpy(para, p, len);
        para[len] = '\0';
        int n = text_wrap(para, w, lines, y1 - *y, v->utf8);
        if (n == 0) n = 1, lines[0][0] = '\0'; /* an empty line stays a blank row */
        for (int i = 0; i < n && *y < y1; i++)
            nv_put((*y)++, 2, w, at, lines[i]);
        free(para);
        p += len + (e ? 1 : 0);
    }
    free(lines);
}

/* The note, then the slide's answers and solutions, then the narration the room's page leaves
 * out. */
static void nv_note(const struct nv *v, int y0, int y1, int cols)
{
    int y = y0;
    if (!v->st.note[0])
        nv_put(y++, 2, cols - 4, v->th.role[TH_DIM], "(no speaker note on this slide)");
    else
        nv_text(v, &y, y1, cols, A_BOLD, v->st.note);
    if (v->st.answer[0] && y + 1 < y1) {
        y++;
        nv_text(v, &y, y1, cols, v->th.role[TH_OK], v->st.answer);
    }
    if (v->st.narr[0] && y + 2 < y1) { /* what the room's screen leaves out: to be said */
        y++;
        nv_put(y++, 2, cols - 4, v->th.role[TH_LABEL],
               "Not on the room's screen (PgUp shows it):");
        nv_text(v, &y, y1, cols, A_NORMAL, v->st.narr);
    }
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

/* "left 42:10 of 95:00", "over by 03:12", paused or not; "" without minutes:. */
static attr_t nv_countdown(const struct nv *v, char *buf, size_t n)
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

static void nv_countdown_key(struct nv *v, int ch)
{
    long now = v->st.elapsed_s;
    if (ch == 'p' || ch == ' ') {
        if (v->cd_paused)
            v->cd_paused_total += now - v->cd_pause_at;
        else
            v->cd_pause_at = now;
        v->cd_paused = !v->cd_paused;
    } else if (ch == 'r') {
        v->cd_base = now;
        v->cd_paused_total = 0;
        v->cd_pause_at = now;
    }
}

static void nv_draw(struct nv *v)
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

    if (v->fd < 0 || !v->have) {
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
    /* What the presenter says to the speaker alone: a prompt, a key's answer, an error. */
    int y0 = 5;
    if (v->st.status[0]) nv_put(y0++, 1, cols - 2, v->th.role[TH_WARN], v->st.status);
    if (v->st.work[0]) nv_put(y0++, 1, cols - 2, v->th.role[TH_WARN], v->st.work);
    if (v->st.backend[0]) nv_put(y0++, 1, cols - 2, v->th.role[TH_DIM], v->st.backend);
    if (y0 > 5) nv_hline(v, y0++, cols);
    /* The presenter's keys that work now, wrapped above this terminal's own. */
    char keys[5][256];
    int nk = nv_keys(v->st.keys, cols - 2, keys, rows >= 20 ? 4 : rows >= 16 ? 2 : 1);
    int bottom = rows - 1 - nk;
    nv_note(v, y0, bottom - 2, cols);
    nv_hline(v, bottom - 2, cols);
    nv_put(bottom - 1, 1, 6, v->th.role[TH_LABEL], "Next:");
    if (v->st.next[0])
        nv_put(bottom - 1, 7, cols - 8, A_BOLD, v->st.next);
    else
        nv_put(bottom - 1, 7, cols - 8, v->th.role[TH_DIM], "(this is the last slide)");
    for (int i = 0; i < nk; i++)
        nv_put(bottom + i, 1, cols - 2, v->th.role[TH_LABEL], keys[i]);
    nv_put(rows - 1, 1, cols - 2, v->th.role[TH_DIM],
           v->st.minutes > 0 ? "here: p pause / resume the countdown  r reset it  q quit"
                             : "here: q quit");
    term_refresh();
}

static void nv_disconnect(struct nv *v, const char *why)
{
    if (v->fd >= 0) close(v->fd);
    v->fd = -1;
    v->have = false;
    notes_reader_reset(&v->rd);
    snprintf(v->why, sizeof v->why, "%s", why);
}

static void nv_try_connect(struct nv *v)
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

/* Read what the presenter sent; false when the screen need not change. */
static bool nv_read(struct nv *v)
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
            nv_clean(st.lesson);
            nv_clean(st.title);
            nv_clean(st.note);
            nv_clean(st.next);
            nv_clean(st.answer);
            nv_clean(st.keys);
            nv_clean(st.status);
            nv_clean(st.backend);
            nv_clean(st.work);
            nv_clean(st.narr);
            nv_reflow(st.note);
            nv_reflow(st.answer);
            v->st = st;
            v->have = true;
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

static void nv_loop(struct nv *v, const sigset_t *waitmask)
{
    bool quit = false;
    double next_try = 0;
    while (!quit && !term_signal) {
        if (v->fd < 0 && now_s() >= next_try) {
            nv_try_connect(v);
            next_try = now_s() + NOTES_RETRY_MS / 1000.0;
            if (v->fd >= 0) nv_read(v);
        }
        nv_draw(v);
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
            while ((ch = getch()) != ERR) {
                if (ch == 'q' || ch == 'Q') quit = true;
                nv_countdown_key(v, ch);
            }
            if ((fds[0].revents & (POLLHUP | POLLERR)) && !(fds[0].revents & POLLIN)) break;
        }
        if (rc > 0 && v->fd >= 0 && fds[1].revents) nv_read(v);
    }
}

int notes_view_run(const char *name, bool no_color, bool ascii)
{
    setlocale(LC_ALL, "");
    struct nv v = {.name = name, .fd = -1};
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
