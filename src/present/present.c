/* present.c - the presenter (see present.h).
 *
 * One thread, like the interactive program (ui.c): it sleeps in ppoll() on the keyboard,
 * the worker's wake pipe and the notes socket, waking at least once a second (the footer's
 * clock, the notes terminal's elapsed time, polling the lesson files). SIGINT, SIGTERM and
 * SIGHUP are blocked except inside that ppoll and only set a flag; the loop then restores
 * the terminal and lets the signal take its usual effect.
 *
 * Clicker keys (clickers send PageDown/PageUp, some Esc, F5 and '.'): the moves are deck.h's;
 * Esc never quits and F5 does nothing; while blanked the next key only unblanks. */
#include "present.h"

#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../backend/backend.h"
#include "../core/util.h"
#include "../lesson/lesson.h"
#include "../ui/app.h"
#include "../ui/kit/draw.h"
#include "../ui/kit/narr.h"
#include "../ui/kit/svg.h"
#include "../ui/kit/text.h"
#include "../ui/screens/screens.h"
#include "deck.h"
#include "notes_ipc.h"
#include "playout.h"
#include "../ui/kit/term.h"

#define PRES_POLL_S 1.0 /* lesson files' mtime */
#define PRES_STOP_WAIT_S 3.0

/* A watched file: a lesson, or the folder (files added, removed, renamed). */
struct pres_watch {
    char *path;
    struct timespec mtime;
    off_t size;
    ino_t ino;
    bool exists;
};

struct pres_slide {
    size_t lesson, slide;
};

struct pres {
    struct app *a;
    const char *path, *name;
    struct lesson_set set;
    struct pres_slide *sl;
    size_t n;
    struct pres_watch *watch;
    size_t nwatch;
    struct deck_pos pos;
    bool scene_ok;
    char scene_err[240];
    bool blanked;
    struct deck_goto go;
    double t0;
    double auto_s; /* --auto: seconds per slide, 0 = off */
    bool auto_on;
    double next_auto, next_poll;
    char msg[240];        /* footer notice, cleared by the next key */
    char reload_err[400]; /* until the next good reload */
    struct notes_server *ns;
    bool big; /* block digits for the values (on by default; drawn where they fit) */
    struct narr narr;
    size_t narr_slide;
    int narr_w;
    bool have_narr;
    short black_pair;
};

static const struct lesson *pres_lesson(const struct pres *p)
{
    return &p->set.v[p->sl[p->pos.slide].lesson];
}

static const struct lesson_slide *pres_slide_at(const struct pres *p, size_t i)
{
    return &p->set.v[p->sl[i].lesson].slides[p->sl[i].slide];
}

static const struct lesson_slide *pres_slide(const struct pres *p)
{
    return pres_slide_at(p, p->pos.slide);
}

/* ---- loading and reloading ---------------------------------------------------------- */

static void pres_stat(struct pres_watch *w)
{
    struct stat st;
    w->exists = stat(w->path, &st) == 0;
    if (!w->exists) return;
    w->mtime = st.st_mtim;
    w->size = st.st_size;
    w->ino = st.st_ino;
}

static void pres_free_watch(struct pres *p)
{
    for (size_t i = 0; i < p->nwatch; i++)
        free(p->watch[i].path);
    free(p->watch);
    p->watch = NULL;
    p->nwatch = 0;
}

static void pres_add_watch(struct pres *p, const char *path)
{
    p->watch = xrealloc(p->watch, (p->nwatch + 1) * sizeof *p->watch);
    struct pres_watch *w = &p->watch[p->nwatch++];
    memset(w, 0, sizeof *w);
    w->path = xstrdup(path);
    pres_stat(w);
}

static void pres_set_watch(struct pres *p)
{
    pres_free_watch(p);
    struct stat st;
    if (stat(p->path, &st) == 0 && S_ISDIR(st.st_mode)) pres_add_watch(p, p->path);
    for (size_t i = 0; i < p->set.n; i++)
        pres_add_watch(p, p->set.v[i].path);
}

/* True (once) when a watched file changed since the last look. */
static bool pres_watch_changed(struct pres *p)
{
    bool changed = false;
    for (size_t i = 0; i < p->nwatch; i++) {
        struct pres_watch old = p->watch[i];
        pres_stat(&p->watch[i]);
        struct pres_watch *w = &p->watch[i];
        if (w->exists != old.exists || w->size != old.size || w->ino != old.ino ||
            w->mtime.tv_sec != old.mtime.tv_sec || w->mtime.tv_nsec != old.mtime.tv_nsec)
            changed = true;
    }
    return changed;
}

/* Load path into *set; on failure the first error (and how many more) in err. */
static int pres_load(const char *path, struct lesson_set *set, char *err, size_t errlen)
{
    struct lesson_errors errs = {0};
    lesson_set_init(set);
    int rc = lesson_set_add(set, path, &errs);
    if (rc == CV_OK && set->n == 0)
        rc = cv_err(err, errlen, CV_EINVAL, "%s: no lessons (NN-name.md files)", path);
    else if (rc != CV_OK || errs.n) {
        if (errs.n > 1)
            snprintf(err, errlen, "%s (and %zu more)", errs.msg[0], errs.n - 1);
        else
            snprintf(err, errlen, "%s", errs.n ? errs.msg[0] : "cannot load the lessons");
        rc = CV_EINVAL;
    }
    size_t total = 0;
    for (size_t i = 0; rc == CV_OK && i < set->n; i++)
        total += set->v[i].nslides;
    if (rc == CV_OK && total == 0) rc = cv_err(err, errlen, CV_EINVAL, "%s: no slides", path);
    lesson_errors_free(&errs);
    if (rc != CV_OK) lesson_set_free(set);
    return rc;
}

static void pres_index(struct pres *p)
{
    free(p->sl);
    p->n = 0;
    for (size_t i = 0; i < p->set.n; i++)
        p->n += p->set.v[i].nslides;
    p->sl = xcalloc(p->n ? p->n : 1, sizeof *p->sl);
    size_t k = 0;
    for (size_t i = 0; i < p->set.n; i++)
        for (size_t s = 0; s < p->set.v[i].nslides; s++)
            p->sl[k++] = (struct pres_slide){i, s};
}

/* ---- moving through the talk ------------------------------------------------------ */

static long pres_nsteps(const struct pres *p)
{
    return pres_slide(p)->has_scene && p->scene_ok ? (long)app_nsteps(p->a) : 0;
}

/* Show the slide of p->pos (its step possibly DECK_STEP_START / END): the scene goes
 * through the door; the step the screen settles on becomes the position's. */
static void pres_enter(struct pres *p)
{
    const struct lesson_slide *s = pres_slide(p);
    p->have_narr = p->have_narr && p->narr_slide == p->pos.slide;
    p->scene_ok = false;
    p->scene_err[0] = '\0';
    if (!s->has_scene) {
        p->pos.step = 0;
        p->a->playing = false;
        return;
    }
    struct scene next = s->scene;
    if (p->pos.step == DECK_STEP_END)
        next.step = SCENE_STEP_END;
    else if (p->pos.step >= 0)
        next.step = p->pos.step;
    int rc = app_set_scene(p->a, &next, p->scene_err, sizeof p->scene_err);
    if (rc != CV_OK) {
        p->pos.step = 0;
        return;
    }
    p->scene_ok = true;
    p->pos.step = (long)app_step(p->a);
}

static void pres_set_step(struct pres *p, long step)
{
    struct scene next = p->a->sc;
    next.step = step;
    p->a->playing = false;
    char err[240];
    if (app_set_scene(p->a, &next, err, sizeof err) == CV_OK)
        p->pos.step = (long)app_step(p->a);
    else
        snprintf(p->msg, sizeof p->msg, "%s", err);
}

static void pres_move(struct pres *p, enum deck_move m, long goto_n)
{
    struct deck_pos np;
    if (!deck_move(p->pos, pres_nsteps(p), p->n, m, goto_n, &np)) {
        if (m == DECK_GOTO)
            snprintf(p->msg, sizeof p->msg, "no slide %ld (1..%zu)", goto_n, p->n);
        else if (m == DECK_NEXT || m == DECK_NEXT_SLIDE)
            snprintf(p->msg, sizeof p->msg, "this is the last slide");
        else
            snprintf(p->msg, sizeof p->msg, "this is the first slide");
        return;
    }
    if (np.slide == p->pos.slide && np.step >= 0) {
        pres_set_step(p, np.step);
        return;
    }
    p->pos = np;
    p->have_narr = false;
    pres_enter(p);
}

static void pres_reload(struct pres *p)
{
    struct lesson_set fresh;
    char err[400];
    if (pres_load(p->path, &fresh, err, sizeof err) != CV_OK) {
        snprintf(p->reload_err, sizeof p->reload_err, "%s", err);
        return;
    }
    lesson_set_free(&p->set);
    p->set = fresh;
    pres_index(p);
    pres_set_watch(p);
    p->reload_err[0] = '\0';
    snprintf(p->msg, sizeof p->msg, "reloaded %s", p->path);
    if (p->pos.slide >= p->n) p->pos = (struct deck_pos){p->n - 1, DECK_STEP_START};
    p->have_narr = false;
    pres_enter(p); /* the same step where it still exists (the screen clamps it) */
}

/* ---- speaker notes ---------------------------------------------------------------- */

static void pres_publish(struct pres *p, double now)
{
    if (!p->ns) return;
    struct notes_state *st = xcalloc(1, sizeof *st);
    const struct lesson_slide *s = pres_slide(p);
    notes_copy(st->lesson, sizeof st->lesson,
               pres_lesson(p)->title ? pres_lesson(p)->title : "");
    st->slide = (int)p->pos.slide + 1;
    st->nslides = (int)p->n;
    notes_copy(st->title, sizeof st->title, s->title ? s->title : "");
    notes_copy(st->note, sizeof st->note, s->notes ? s->notes : "");
    if (p->pos.slide + 1 < p->n) {
        const struct lesson_slide *nx = pres_slide_at(p, p->pos.slide + 1);
        notes_copy(st->next, sizeof st->next, nx->title ? nx->title : "");
    }
    st->elapsed_s = (long)(now - p->t0);
    st->blanked = p->blanked;
    notes_server_publish(p->ns, st);
    free(st);
}

/* ---- drawing ------------------------------------------------------------------------ */

static void pres_center(int y, int cols, attr_t at, const char *s)
{
    int w = text_width(s);
    draw_put(y, w < cols ? (cols - w) / 2 : 0, cols, at, s);
}

static void pres_elapsed(char *buf, size_t n, long s)
{
    if (s >= 3600)
        snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(buf, n, "%02ld:%02ld", s / 60, s % 60);
}

/* An error "path/to/01-x.md:12: message" with only the file's name: the footer is short. */
static const char *pres_short_path(const char *msg)
{
    const char *colon = strchr(msg, ':');
    const char *slash = NULL;
    for (const char *q = msg; colon && q < colon; q++)
        if (*q == '/') slash = q;
    return slash ? slash + 1 : msg;
}

static void pres_footer(struct pres *p, struct rect r, double now)
{
    const struct theme *th = &p->a->th;
    const char *sep = p->a->g->sep;
    char left[400], right[64], el[32];
    int n = snprintf(left, sizeof left, " slide %zu/%zu", p->pos.slide + 1, p->n);
    if (pres_slide(p)->has_scene && p->scene_ok && pres_nsteps(p) > 0)
        n += snprintf(left + n, sizeof left - (size_t)n, "%sstep %ld/%ld", sep, p->pos.step,
                      pres_nsteps(p));
    size_t short_len = (size_t)n;
    snprintf(left + n, sizeof left - (size_t)n, "%s%s", sep,
             pres_lesson(p)->title ? pres_lesson(p)->title : "");
    pres_elapsed(el, sizeof el, (long)(now - p->t0));
    snprintf(right, sizeof right, "%s%s ",
             p->auto_s > 0 ? (p->auto_on ? "auto  " : "auto paused  ") : "", el);
    /* The middle: the g prompt, a reload error, or a notice. */
    char mid[480] = "";
    attr_t mat = th->role[TH_WARN];
    if (p->go.active) {
        snprintf(mid, sizeof mid, "go to slide: %s_ (Enter)", p->go.digits);
    } else if (p->reload_err[0]) {
        snprintf(mid, sizeof mid, "reload failed (last good version shown): %s",
                 pres_short_path(p->reload_err));
        mat = th->role[TH_BAD];
    } else if (p->msg[0]) {
        snprintf(mid, sizeof mid, "%s", p->msg);
    }
    int rw = text_width(right), mw = text_width(mid);
    /* The lesson's title gives way to a message. */
    if (mid[0] && text_width(left) + 2 + mw + rw > r.w) left[short_len] = '\0';
    int lw = draw_put(r.y, r.x, r.w - rw - 1, th->role[TH_DIM], left);
    draw_put(r.y, r.x + r.w - rw, rw, th->role[TH_STEP], right);
    int mx = r.x + lw + 2, room = r.w - lw - rw - 3;
    if (mid[0] && room > 4) draw_put(r.y, mx, room, mat, mid);
}

static void pres_blank(struct pres *p, int rows, int cols)
{
    attr_t at = p->black_pair > 0 ? COLOR_PAIR(p->black_pair) : A_NORMAL;
    bkgdset(' ' | at);
    erase();
    (void)rows;
    (void)cols;
    refresh();
    bkgdset(' ' | A_NORMAL);
}

static void pres_draw(struct pres *p)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    struct app *a = p->a;
    if (p->blanked) {
        pres_blank(p, rows, cols);
        return;
    }
    double now = now_s();
    draw_begin(a->g, a->utf8);
    erase();
    const struct lesson_slide *s = pres_slide(p);
    int nw = playout_narr_width(cols);
    if (!p->have_narr || p->narr_w != nw || p->narr_slide != p->pos.slide) {
        if (p->narr.l || p->narr.n) narr_free(&p->narr);
        narr_layout(s->blocks, s->nblocks, nw, true, a->utf8, &p->narr);
        p->have_narr = true;
        p->narr_w = nw;
        p->narr_slide = p->pos.slide;
    }
    struct playout lay;
    playout_compute(rows, cols, s->has_scene, p->narr.n, &lay);
    if (lay.too_small) {
        char m[120];
        snprintf(m, sizeof m, "terminal too small: %dx%d, need %dx%d", cols, rows,
                 PLAYOUT_MIN_COLS, PLAYOUT_MIN_ROWS);
        pres_center(rows / 2, cols, A_BOLD, m);
        refresh();
        return;
    }
    const struct theme *th = &a->th;
    char title[400];
    text_fit(title, sizeof title, s->title ? s->title : "", lay.title.w, a->utf8);
    int tw = text_width(title);
    draw_put(lay.title.y, lay.title.x + (lay.title.w - tw) / 2, lay.title.w,
             A_BOLD | A_UNDERLINE, title);
    struct narr_attrs na = {
        .normal = A_NORMAL,
        .bold = A_BOLD,
        .italic = A_ITALIC,
        .code = th->role[TH_LABEL],
        .mark = th->role[TH_LABEL] | A_BOLD,
        .heading = A_BOLD | A_UNDERLINE,
        .rule = th->role[TH_DIM],
    };
    narr_draw(stdscr, &p->narr, 0, lay.narr.y, lay.narr.x, lay.narr.h, &na);
    if (p->narr.n > lay.narr.h && lay.narr.h > 0)
        draw_put(lay.narr.y + lay.narr.h - 1, lay.narr.x + lay.narr.w - 1, 1, th->role[TH_DIM],
                 a->g->ell);
    if (s->has_scene) {
        if (p->scene_ok) {
            app_screen(a)->draw(a, lay.scene);
        } else {
            draw_frame(lay.scene, th->role[TH_BORDER], "scene", th->role[TH_LABEL]);
            draw_put(lay.scene.y + 2, lay.scene.x + 2, lay.scene.w - 4, th->role[TH_BAD],
                     p->scene_err);
        }
    }
    pres_footer(p, lay.footer, now);
    refresh();
}

/* ---- keys --------------------------------------------------------------------------- */

static void pres_export(struct pres *p)
{
    char name[600], err[300];
    if (svg_export_files(stdscr, "present", name, sizeof name, err, sizeof err) == CV_OK)
        snprintf(p->msg, sizeof p->msg, "wrote %.200s and .txt",
                 strncmp(name, "./", 2) == 0 ? name + 2 : name);
    else
        snprintf(p->msg, sizeof p->msg, "%.230s", err);
}

static void pres_key(struct pres *p, int ch, bool *quit)
{
    if (ch == KEY_RESIZE) {
        clearok(stdscr, TRUE);
        return;
    }
    if (ch == KEY_MOUSE) {
        MEVENT ev;
        getmouse(&ev);
        return;
    }
    if (p->auto_on) {
        p->auto_on = false; /* any key pauses --auto */
        snprintf(p->msg, sizeof p->msg, "auto-advance paused (a resumes)");
    } else {
        p->msg[0] = '\0';
    }
    if (p->blanked) {
        p->blanked = false; /* the key only unblanks */
        return;
    }
    if (p->go.active) {
        long n = 0;
        enum deck_goto_result r = deck_goto_key(&p->go, ch, &n);
        if (r == DECK_GOTO_DONE && p->go.digits[0] == '\0' && n > 0) pres_move(p, DECK_GOTO, n);
        return;
    }
    switch (ch) {
    case KEY_NPAGE:
    case KEY_RIGHT:
    case KEY_DOWN:
    case ' ':
        pres_move(p, DECK_NEXT, 0);
        break;
    case KEY_PPAGE:
    case KEY_LEFT:
    case KEY_UP:
    case KEY_BACKSPACE:
        pres_move(p, DECK_PREV, 0);
        break;
    case 'n':
        pres_move(p, DECK_NEXT_SLIDE, 0);
        break;
    case 'p':
        pres_move(p, DECK_PREV_SLIDE, 0);
        break;
    case KEY_HOME:
        pres_move(p, DECK_FIRST, 0);
        break;
    case KEY_END:
        pres_move(p, DECK_LAST, 0);
        break;
    case 'g':
        p->go = (struct deck_goto){.active = true};
        break;
    case '.':
    case 'b':
        p->blanked = true;
        break;
    case 'd':
        p->big = !p->big;
        p->a->big_digits = p->big;
        snprintf(p->msg, sizeof p->msg, "block digits %s",
                 p->big ? "on (where they fit)" : "off");
        break;
    case 'a':
        if (p->auto_s > 0) {
            p->auto_on = true;
            p->next_auto = now_s() + p->auto_s;
            snprintf(p->msg, sizeof p->msg, "auto-advance every %g s", p->auto_s);
        }
        break;
    case 'e':
        pres_export(p);
        break;
    case 'q':
        *quit = true;
        break;
    default:
        /* Esc (clickers send it), F5 and everything else: harmless. */
        break;
    }
}

/* ---- the loop ----------------------------------------------------------------------- */

static int pres_timeout_ms(const struct pres *p, double now)
{
    /* At least at every change of the elapsed second (footer, notes), and the file poll. */
    double el = now - p->t0;
    int t = (int)((1.0 - (el - (double)(long)el)) * 1000.0) + 1;
    int at = app_timeout_ms(p->a, now);
    if (at >= 0 && at < t) t = at;
    if (p->auto_on) {
        int d = (int)((p->next_auto - now) * 1000.0) + 1;
        if (d < t) t = d < 0 ? 0 : d;
    }
    return t;
}

static void pres_loop(struct pres *p, const sigset_t *waitmask)
{
    bool quit = false;
    while (!quit && !term_signal) {
        double now = now_s();
        if (now >= p->next_poll) {
            p->next_poll = now + PRES_POLL_S;
            if (pres_watch_changed(p)) pres_reload(p);
        }
        if (p->auto_on && now >= p->next_auto) {
            if (p->pos.slide + 1 < p->n) {
                pres_move(p, DECK_NEXT_SLIDE, 0);
                p->next_auto = now + p->auto_s;
            } else {
                p->auto_on = false;
                snprintf(p->msg, sizeof p->msg, "auto-advance: last slide");
            }
        }
        if (app_tick(p->a, now) && pres_slide(p)->has_scene) p->pos.step = (long)app_step(p->a);
        pres_publish(p, now);
        pres_draw(p);
        int timeout = pres_timeout_ms(p, now_s());
        struct pollfd fds[3] = {{.fd = STDIN_FILENO, .events = POLLIN},
                                {.fd = notes_server_fd(p->ns), .events = POLLIN},
                                {.fd = p->a->w ? worker_fd(p->a->w) : -1, .events = POLLIN}};
        struct timespec ts = {timeout / 1000, (long)(timeout % 1000) * 1000000L};
        int rc = ppoll(fds, 3, &ts, waitmask);
        if (term_signal) break;
        if (rc < 0 && errno != EINTR) break;
        if (rc > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            int ch;
            while (!quit && (ch = getch()) != ERR)
                pres_key(p, ch, &quit);
            if ((fds[0].revents & (POLLHUP | POLLERR)) && !(fds[0].revents & POLLIN)) break;
        }
        if (rc > 0 && (fds[1].revents & POLLIN)) notes_server_accept(p->ns);
        if (p->a->w) {
            struct result r;
            while (worker_poll(p->a->w, &r)) {
                app_result(p->a, &r);
                result_free(&r);
            }
        }
    }
}

/* ---- start and end ------------------------------------------------------------------ */

static void pres_usage(FILE *f)
{
    fprintf(
        f,
        "usage: collviz --present PATH [options]\n"
        "  Present a lesson file, or a folder of lessons in order, full screen.\n"
        "  --name NAME        the name `collviz notes --name NAME` follows (default\n"
        "                     \"default\"); several presenters need different names\n"
        "  --auto SECONDS     advance to the next slide every SECONDS (any key pauses,\n"
        "                     a resumes)\n"
        "  --backend NAME     auto, cpu or nccl, for the scenes' measurements (default auto)\n"
        "  --no-measure       measure only when asked, not on every scene\n"
        "  --no-big-digits    start with block digits off (d toggles)\n"
        "  --no-color, --ascii\n"
        "Keys: PgDn → Space next step, then next slide; PgUp ← back; n / p next / previous\n"
        "slide; Home / End; g N Enter go to slide N; . or b blank (any key restores);\n"
        "d block digits; e write the screen as SVG and text; q quit. Esc and F5 do\n"
        "nothing. Speaker notes: `collviz notes` in another terminal.\n");
}

int present_wanted(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--present") == 0 || strncmp(argv[i], "--present=", 10) == 0)
            return 1;
    return 0;
}

static bool pres_stop_worker(struct app *a)
{
    return app_stop_worker(a, PRES_STOP_WAIT_S);
}

static void pres_free(struct pres *p)
{
    if (p->narr.l) narr_free(&p->narr);
    notes_server_close(p->ns);
    pres_free_watch(p);
    free(p->sl);
    lesson_set_free(&p->set);
    if (p->a) {
        app_free(p->a);
        free(p->a);
    }
}

int present_main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    enum {
        O_PRESENT = 256,
        O_NAME,
        O_AUTO,
        O_BACKEND,
        O_NOMEASURE,
        O_NOBIG,
        O_NOCOLOR,
        O_ASCII
    };
    static const struct option opts[] = {{"present", required_argument, NULL, O_PRESENT},
                                         {"name", required_argument, NULL, O_NAME},
                                         {"auto", required_argument, NULL, O_AUTO},
                                         {"backend", required_argument, NULL, O_BACKEND},
                                         {"no-measure", no_argument, NULL, O_NOMEASURE},
                                         {"no-big-digits", no_argument, NULL, O_NOBIG},
                                         {"no-color", no_argument, NULL, O_NOCOLOR},
                                         {"ascii", no_argument, NULL, O_ASCII},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    struct pres P = {.name = "default", .big = true};
    struct pres *p = &P;
    const char *backend = "auto";
    bool no_measure = false, no_color = false, ascii = false;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_PRESENT:
            p->path = optarg;
            break;
        case O_NAME:
            p->name = optarg;
            break;
        case O_AUTO: {
            double v;
            if (parse_double(optarg, 1, 3600, &v) != CV_OK) {
                cv_eprintf("collviz: --auto: bad value '%s' (seconds, 1..3600)\n", optarg);
                return 2;
            }
            p->auto_s = v;
            break;
        }
        case O_BACKEND:
            if (strcmp(optarg, "auto") != 0 && backend_kind_of(optarg) < 0) {
                cv_eprintf("collviz: --backend: unknown backend '%s' (auto, cpu, nccl)\n",
                           optarg);
                return 2;
            }
            backend = optarg;
            break;
        case O_NOMEASURE:
            no_measure = true;
            break;
        case O_NOBIG:
            p->big = false;
            break;
        case O_NOCOLOR:
            no_color = true;
            break;
        case O_ASCII:
            ascii = true;
            break;
        case 'h':
            pres_usage(stdout);
            return 0;
        case ':':
            cv_eprintf("collviz: option '%s' needs a value\n", argv[optind - 1]);
            return 2;
        default:
            cv_eprintf("collviz: --present: unknown option '%s' (try --present x --help)\n",
                       argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        cv_eprintf("collviz: unexpected argument '%s' (try --help)\n", argv[optind]);
        return 2;
    }
    if (!p->path || !p->path[0]) {
        cv_eprintf("collviz: --present needs a lesson file or folder\n");
        return 2;
    }
    char err[400];
    if (notes_name_check(p->name, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz: %s\n", err);
        return 2;
    }
    if (pres_load(p->path, &p->set, err, sizeof err) != CV_OK) {
        cv_eprintf("%s\n", err);
        return 2;
    }
    pres_index(p);
    pres_set_watch(p);

    p->a = xcalloc(1, sizeof *p->a);
    struct app *a = p->a;
    app_init(a);
    a->auto_measure = !no_measure;
    a->embedded = true;
    a->big_digits = p->big;
    const char *nc = getenv("NO_COLOR");
    bool want_color = !no_color && !(nc && nc[0]);
    a->utf8 = !ascii && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    a->g = glyphs_get(a->utf8);

    sigset_t block, waitmask;
    term_block_signals(&block, &waitmask);
    hw_probe_machine(&a->hw);
    /* A backend that cannot run here: the panel says why and the talk goes on. */
    term_nccl_log_off_screen();
    app_open_backend(a, backend, false, err, sizeof err);
    /* The talk goes on without a notes terminal: a socket that cannot be opened is said in
     * the footer. */
    if (notes_server_open(&p->ns, p->name, err, sizeof err) != CV_OK)
        snprintf(p->msg, sizeof p->msg, "no speaker notes: %.200s", err);

    SCREEN *scr = term_start();
    if (!scr) {
        cv_eprintf("collviz: cannot start the terminal UI (TERM=%s)\n",
                   getenv("TERM") ? getenv("TERM") : "unset");
        pres_stop_worker(a);
        pres_free(p);
        pthread_sigmask(SIG_UNBLOCK, &block, NULL);
        return 1;
    }
    theme_init(&a->th, want_color);
    a->color = a->th.color;
    if (a->color && COLOR_PAIRS > 64) {
        p->black_pair = (short)(COLOR_PAIRS > 255 ? 255 : COLOR_PAIRS - 1);
        init_pair(p->black_pair, COLOR_BLACK, COLOR_BLACK);
    }
    term_catch_signals();

    p->t0 = now_s();
    p->next_poll = p->t0 + PRES_POLL_S;
    p->auto_on = p->auto_s > 0;
    p->next_auto = p->t0 + p->auto_s;
    p->pos = (struct deck_pos){0, DECK_STEP_START};
    pres_enter(p);
    pres_loop(p, &waitmask);

    term_end(scr);
    notes_server_close(p->ns);
    p->ns = NULL;
    if (!pres_stop_worker(a)) term_exit_now(&block);
    pres_free(p);
    return term_exit(&block);
}
