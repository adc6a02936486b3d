/* present.c - the presenter (see present.h).
 *
 * One thread, like the interactive program (ui.c): it sleeps in ppoll() on the keyboard,
 * the worker's wake pipe and the notes socket, waking at least once a second (the footer's
 * clock, the notes terminal's elapsed time, polling the lesson files). SIGINT, SIGTERM and
 * SIGHUP are blocked except inside that ppoll and only set a flag; the loop then restores
 * the terminal and lets the signal take its usual effect.
 *
 * Clicker keys (clickers send PageDown/PageUp, some Esc, F5 and '.'): the moves are deck.h's
 * over the pages of present_layout.h; Esc never quits and F5 does nothing; while blanked the
 * next key only unblanks. The presenter's own keys are the KEYS_ON_PRESENT rows of kit/keys.h;
 * every other key goes to the shared scene-key handler (app_scene_key), so the live demo keys
 * work as in the player. The audience's screen names no key (app.no_key_hints); the notes
 * terminal lists the keys that work. The position is saved (position.h) after every move. */
#include "ui/present/present.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
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

#include "backend/backend.h"
#include "core/util.h"
#include "core/vec.h"
#include "lesson/endpage.h"
#include "lesson/glossary.h"
#include "lesson/lesson.h"
#include "ui/app.h"
#include "ui/kit/draw.h"
#include "ui/present/narr.h"
#include "ui/kit/svg.h"
#include "core/text.h"
#include "ui/screens/lesson/predict.h"
#include "ui/screens/screens.h"
#include "present/deck.h"
#include "present/notes_ipc.h"
#include "ui/present/present_layout.h"
#include "ui/present/present_slide.h"
#include "present/position.h"
#include "present/quiz.h"
#include "ui/kit/term.h"

#define PRES_POLL_S 0.25 /* lesson files' mtime: an edit shows within a second */
#define PRES_STOP_WAIT_S 3.0
#define PRES_PLAY_S 3.0     /* the longest PageDown's play to the next stop */
#define PRES_EXTRA_PAGES 64 /* pages of a glossary or end page */

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

enum pres_extra { PRES_EXTRA_NONE, PRES_EXTRA_GLOSSARY, PRES_EXTRA_END };

struct pres {
    struct app *a;
    const char *path, *name;
    const char *const *more; /* the deck's further paths (present_opts.more) */
    int nmore;
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
    int zoom; /* the saved zoom (app.zoom), kept even when --start picks the slide */
    /* the current slide laid out: narration (with its quiz) and pages */
    size_t revealed; /* the first `revealed` exercises' answers are shown to the room */
    /* r once more after the slide's last answer: every box and figure of the scene shown,
     * those a later slide asks included (the room compares every box); hid_later: the
     * last frame hid something for a later slide */
    bool reveal_scene, hid_later;
    /* started at slide 1 though this deck was left elsewhere: R resumes there */
    bool offer;
    struct position offered;
    /* PageDown from a lesson's last frame opens its end page before the next lesson, once a
     * slide (ended: that slide + 1); auto_end: the page so opened, whose last PageDown goes on
     * to the next lesson */
    size_t ended;
    bool auto_end;
    /* the exercises answered in the room (r), by id, for the whole talk: an exercise is
     * answered once (coming back shows its answer, r never asks it again) and later slides
     * no longer hide its answer (predict.h), as the player does with a solved one */
    char (*answered)[LESSON_ID_MAX];
    size_t nanswered;
    /* G, E: a page in the slide's place, for the room: the glossary (the slide's terms
     * first) or the lesson's end page (lesson/endpage.h); the clicker scrolls it */
    enum pres_extra extra;
    struct present_slide xps; /* the page laid out (have_x) at xps.narr_w */
    bool have_x;
    int x_from; /* its first line shown */
    struct present_slide ps;
    size_t narr_slide;
    bool have_narr;
    struct present_layout lay;
    size_t lay_slide; /* the slide p->lay is of (when lay.npages > 0) */
    short black_pair;
    /* finding one's place */
    char state_path[4096]; /* "" = the position is not kept */
    bool overview;
    size_t ov_sel;
    bool searching;
    char search[64];
    int minutes; /* the deck's lessons' minutes: */
    /* `e`: the first press says where, the second writes */
    const char *export_opt;
    bool export_armed;
    long saved_s;                  /* the elapsed second last saved */
    char answer[NOTES_ANSWER_MAX]; /* quiz_notes of answer_slide (a holds answer runs the
                                      scene: once per slide, not once per frame) */
    size_t answer_slide;
    bool have_answer;
    long demo_step;     /* the slide's step when a live demo began (`0` returns there) */
    bool notes_assumed; /* present_script: a notes terminal is taken to follow */
    bool hide_total;    /* the scene's step count is an open exercise's answer: "?" */
    char work[NOTES_STATUS_MAX]; /* the status the last frame's screens said (kit/draw.h),
                                    never drawn for the room: the notes terminal's */
};

static void pres_extra_open(struct pres *p, enum pres_extra which);

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
    for (int i = -1; i < p->nmore; i++) {
        const char *path = i < 0 ? p->path : p->more[i];
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) pres_add_watch(p, path);
    }
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

/* Path i of the deck (0: --present's, then the further ones). */
static const char *pres_path(const struct pres *p, int i)
{
    return i == 0 ? p->path : p->more[i - 1];
}

/* Of several paths (a shell's glob of a lesson folder's .md files), the files that are not
 * lessons (no front matter, no NN- name: a README) are left out, named in skipped ("" when
 * none), while one lesson is left; a path named alone is the deck and must be a lesson. */
static bool pres_skip_path(const struct pres *p, int i, char *skipped, size_t n)
{
    if (p->nmore == 0 || lesson_file_is_lesson(pres_path(p, i))) return false;
    for (int k = 0; k <= p->nmore; k++)
        if (k != i && lesson_file_is_lesson(pres_path(p, k))) {
            size_t o = strlen(skipped);
            snprintf(skipped + o, n - o, "%s%s", o ? ", " : "", pres_path(p, i));
            return true;
        }
    return false;
}

/* Load the deck's paths into *set, in order; on failure the first error (and how many more)
 * in err. The files left out as not lessons go to skipped (NULL: not wanted). */
static int pres_load(const struct pres *p, struct lesson_set *set, char *err, size_t errlen,
                     char *skipped, size_t skn)
{
    const char *path = p->path;
    struct lesson_errors errs = {0};
    char skip[1024] = "";
    lesson_set_init(set);
    int rc = CV_OK;
    for (int i = 0; i <= p->nmore; i++) {
        if (pres_skip_path(p, i, skip, sizeof skip)) continue;
        if (!lesson_file_is_lesson(pres_path(p, i))) { /* no lesson among the paths */
            rc = cv_err(err, errlen, CV_EINVAL,
                        "%s: not a lesson (a lesson opens with front matter, a '---' line, "
                        "or is named NN-name.md; see lessons/README.md)",
                        pres_path(p, i));
            lesson_set_free(set);
            return rc;
        }
        int r = lesson_set_add(set, pres_path(p, i), &errs);
        if (rc == CV_OK) rc = r;
    }
    if (skipped) snprintf(skipped, skn, "%s", skip);
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

/* ---- the slide laid out ------------------------------------------------------------- */

static void pres_drop_narr(struct pres *p)
{
    present_slide_free(&p->ps);
    p->have_narr = false;
}

/* The rows of the screen slide s's scene is on (KEYS_ON_*; 0 without a scene). */
static unsigned pres_scene_keys_on(const struct lesson_slide *s)
{
    if (!s->has_scene) return 0;
    const struct screen_ops *o = screen_ops_of(s->scene.screen);
    return o ? o->keys_on : 0;
}

/* The rows the current slide's scene needs at cols columns (0: no scene): what its screen
 * says, where the scene is shown; a scene that failed gets the whole height for its message. */
static int pres_scene_rows(const struct pres *p, int cols)
{
    if (!pres_slide(p)->has_scene) return 0;
    return p->scene_ok ? app_rows_needed(p->a, cols, PLAYOUT_SCENE_MIN) : PLAYOUT_SCENE_MIN;
}

/* The current slide's title, narration and quiz at the terminal's width, and its pages. */
static void pres_layout(struct pres *p)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    const struct lesson_slide *s = pres_slide(p);
    int nw = present_layout_narr_width(cols);
    if (!p->have_narr || p->ps.narr_w != nw || p->narr_slide != p->pos.slide) {
        pres_drop_narr(p);
        /* the answers r revealed: in the narration, beside the scene where they fit */
        present_slide_text(s, p->revealed, cols, p->a->utf8, &p->ps);
        p->have_narr = true;
        p->narr_slide = p->pos.slide;
    }
    /* The scene's page stays the scene's page when a demo's scene needs other rows. */
    bool on_scene = s->has_scene && p->lay.npages > 0 && p->lay_slide == p->pos.slide &&
                    p->pos.page == p->lay.npages - 1;
    p->ps.asking = p->revealed; /* one question at a time: the first not yet revealed */
    p->a->panel_short = false;
    int full = pres_scene_rows(p, cols);
    /* the measured panel at one line where that leaves the question room beside the scene,
     * until r has revealed the slide's answers: then the scene shows all of it again */
    int brief = full && p->scene_ok && p->revealed < s->nex
                    ? app_rows_needed_short(p->a, cols, PLAYOUT_SCENE_MIN)
                    : 0;
    p->a->panel_short = present_slide_pages(&p->ps, rows, cols, full, brief, &p->lay);
    p->lay_slide = p->pos.slide;
    int np = p->lay.npages > 0 ? p->lay.npages : 1;
    if (p->pos.page == DECK_PAGE_ENTRY) /* entered forward: the scene's page, with the lead */
        p->pos.page = p->lay.entry < np ? p->lay.entry : np - 1;
    else if (on_scene || p->pos.page < 0 || p->pos.page >= np)
        p->pos.page = np - 1;
}

static int pres_npages(const struct pres *p)
{
    return p->lay.npages > 0 ? p->lay.npages : 1;
}

/* ---- moving through the talk ------------------------------------------------------ */

/* The scene's steps as the clicker walks them: up to a choice's hold (pres_hold). */
static long pres_nsteps(const struct pres *p)
{
    if (!pres_slide(p)->has_scene || !p->scene_ok) return 0;
    long n = (long)app_nsteps(p->a);
    return p->a->hold_step >= 0 && p->a->hold_step < n ? p->a->hold_step : n;
}

/* The slide's lesson and title: what a reload and a resume find it by. */
static void pres_save(struct pres *p, double now)
{
    if (!p->state_path[0]) return;
    struct position st = {.slide = (long)p->pos.slide,
                          .page = p->pos.page < 0 ? 0 : p->pos.page,
                          .step = p->pos.step < 0 ? 0 : p->pos.step,
                          .elapsed_s = (long)(now - p->t0),
                          .zoom = p->a->zoom};
    notes_copy(st.lesson, sizeof st.lesson, pres_lesson(p)->id);
    notes_copy(st.title, sizeof st.title, pres_slide(p)->title ? pres_slide(p)->title : "");
    char err[300];
    if (position_save(p->state_path, &st, err, sizeof err) != CV_OK) {
        snprintf(p->msg, sizeof p->msg, "position not kept: %.200s", err);
        p->state_path[0] = '\0';
    }
}

static long pres_open_step(const struct pres *p);

/* Predict first for the slide's choices r has not revealed: its scene stops before the step
 * that tells one (app_hold), and so does the clicker (pres_nsteps). */
static void pres_hold(struct pres *p)
{
    const struct lesson_slide *s = pres_slide(p);
    bool open[LESSON_MAX_EXERCISES] = {false};
    for (size_t k = 0; k < s->nex && k < LESSON_MAX_EXERCISES; k++)
        open[k] = k >= p->revealed;
    const char *words[APP_HOLD_MAX];
    app_hold(p->a, words, predict_hold_words(s, open, words, APP_HOLD_MAX));
}

/* Show the slide of p->pos (its step possibly DECK_STEP_START / END): the scene goes
 * through the door; the step the screen settles on becomes the position's. */
static void pres_enter(struct pres *p)
{
    const struct lesson_slide *s = pres_slide(p);
    p->have_narr = p->have_narr && p->narr_slide == p->pos.slide;
    p->scene_ok = false;
    p->scene_err[0] = '\0';
    pres_hold(p);
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
    if (next.step == s->scene.step &&
        p->pos.step > pres_open_step(p)) { /* not onto a wall of ? */
        next.step = pres_open_step(p);
        if (app_set_scene(p->a, &next, p->scene_err, sizeof p->scene_err) == CV_OK)
            p->pos.step = (long)app_step(p->a);
    }
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

static bool pres_answered(const void *ctx, const char *id);

/* What the room may not see yet on the current slide's scene: its exercises r has not
 * revealed, and (until r shows the whole scene) the lesson's later slides' and the deck's
 * later lessons' answers (predict.h). */
/* The steps the current slide's narration names (deck_named_steps) into out; how many. */
static size_t pres_named(const struct pres *p, long *out)
{
    const struct lesson_slide *s = pres_slide(p);
    if (!s->has_scene || !p->scene_ok || !s->markdown) return 0;
    long n = pres_nsteps(p); /* relative steps count from where the scene starts */
    return deck_named_steps(s->markdown, deck_resolve(DECK_STEP_START, s->scene.step, n), n,
                            out, DECK_STOPS_MAX);
}

/* The last step the narration names, -1 when none: up to it the scene is the slide's own
 * teaching, which a later slide's answer does not hide (that is `lesson check`'s to find). */
static long pres_named_last(const struct pres *p)
{
    long v[DECK_STOPS_MAX];
    size_t k = pres_named(p, v);
    return k ? v[k - 1] : -1;
}

static void pres_predict(const struct pres *p, struct predict *pr, long step)
{
    const struct lesson_slide *s = pres_slide(p);
    memset(pr, 0, sizeof *pr);
    pr->s = s;
    pr->sc = &p->a->sc;
    for (size_t k = 0; k < s->nex && k < PREDICT_MAX_EX; k++) {
        pr->open[k] = k >= p->revealed;
        pr->answer[k] = s->ex[k].answer;
    }
    if (p->reveal_scene || step <= pres_named_last(p)) return;
    predict_add_later(pr, pres_lesson(p), p->sl[p->pos.slide].slide, pres_answered, p);
    for (size_t l = p->sl[p->pos.slide].lesson + 1; l < p->set.n; l++) /* one talk */
        predict_add_lesson(pr, &p->set.v[l], pres_answered, p);
}

/* The first step at which predict first would hide more than half the scene's rank boxes
 * (the room would see a wall of "?": an answer not asked yet would be most of the scene);
 * the scene's steps + 1 when none. The clicker stops before it. */
static long pres_mostly_hidden(const struct pres *p)
{
    long n = pres_nsteps(p);
    if (!pres_slide(p)->has_scene || !p->scene_ok) return n + 1;
    static struct predict pr;
    long named = pres_named_last(p); /* a step the narration names is never a wall */
    pres_predict(p, &pr, named + 1);
    struct app *a = p->a;
    predict_begin(a, &pr);
    long from = n + 1;
    int W = a->sc.nranks < CV_MAX_RANKS ? a->sc.nranks : CV_MAX_RANKS;
    for (long st = named + 1; st <= n && from > n && a->hide_any; st++) {
        int hid = 0;
        for (int r = 0; r < W; r++)
            hid += app_box_hidden(a, r, st);
        if (2 * hid > W) from = st;
    }
    predict_end(a);
    return from;
}

/* The step the slide opens on: its scene's, or the last before a wall of "?". */
static long pres_open_step(const struct pres *p)
{
    const struct lesson_slide *s = pres_slide(p);
    long n = pres_nsteps(p), start = deck_resolve(DECK_STEP_START, s->scene.step, n);
    long wall = pres_mostly_hidden(p);
    if (start >= wall) start = wall > 0 ? wall - 1 : 0;
    return start;
}

/* The current slide's stops (deck.h): the author's, else the shown scene's phase ends; none
 * where predict first would hide most of the scene (the arrows still step there). */
static size_t pres_stops(const struct pres *p, long *out)
{
    const struct lesson_slide *s = pres_slide(p);
    long n = pres_nsteps(p);
    if (!s->has_scene || !p->scene_ok) return deck_stops(NULL, 0, NULL, 0, 0, 0, out);
    long ph[DECK_STOPS_MAX];
    size_t nph = app_phase_ends(p->a, ph, DECK_STOPS_MAX);
    long start = pres_open_step(p), wall = pres_mostly_hidden(p);
    size_t k = deck_stops(s->stops, s->nstops, ph, nph, start, n, out), m = 0;
    for (size_t i = 0; i < k; i++)
        if (out[i] < wall || out[i] == start) out[m++] = out[i];
    long named[DECK_STOPS_MAX]; /* and every step the narration names, from the start on */
    size_t nn = pres_named(p, named);
    for (size_t i = 0; i < nn && m < DECK_STOPS_MAX; i++)
        if (named[i] >= start) out[m++] = named[i];
    return deck_stops(out, m, NULL, 0, start, n, out);
}

/* PageDown to a stop several steps on: the steps between play (the room sees each transfer
 * move), in PRES_PLAY_S at most, quicker than the scene's own pace where there are many. */
static void pres_play_to(struct pres *p, long to)
{
    struct app *a = p->a;
    long from = p->pos.step;
    double period = a->sc.autoplay > 0 ? a->sc.autoplay : APP_PLAY_PERIOD_S;
    if (period * (double)(to - from) > PRES_PLAY_S) period = PRES_PLAY_S / (double)(to - from);
    pres_set_step(p, from + 1);
    if (p->pos.step >= to) return;
    a->playing = true;
    a->play_stop = to;
    a->play_period = period;
    a->next_tick = now_s() + period;
}

/* ---- exercises answered in the room (one answer each) ----------------------------- */

static bool pres_answered(const void *ctx, const char *id)
{
    const struct pres *p = ctx;
    for (size_t i = 0; i < p->nanswered; i++)
        if (strcmp(p->answered[i], id) == 0) return true;
    return false;
}

/* How many of the slide's exercises, in order, were answered (their answers shown). */
static size_t pres_answered_on(const struct pres *p, const struct lesson_slide *s)
{
    size_t k = 0;
    while (k < s->nex && pres_answered(p, s->ex[k].id))
        k++;
    return k;
}

static void pres_move(struct pres *p, enum deck_move m, long goto_n)
{
    /* a press while a stop is being played to: that stop at once (PageDown), or from there */
    if (p->a->playing && p->a->play_stop > 0) {
        long to = p->a->play_stop;
        p->a->playing = false;
        p->a->play_stop = 0;
        if (m == DECK_NEXT) {
            pres_set_step(p, to);
            return;
        }
    }
    pres_layout(p);
    struct deck_pos np;
    long stops[DECK_STOPS_MAX];
    struct deck_slide d = {pres_nsteps(p), pres_npages(p), stops, pres_stops(p, stops)};
    if (!deck_move_in(p->pos, &d, p->n, m, goto_n, &np)) {
        if (m == DECK_GOTO)
            snprintf(p->msg, sizeof p->msg, "no slide %ld (1..%zu)", goto_n, p->n);
        else if (m == DECK_NEXT && p->extra == PRES_EXTRA_NONE)
            pres_extra_open(p, PRES_EXTRA_END); /* the talk's end: its last lesson's page */
        else if (m == DECK_NEXT || m == DECK_NEXT_SLIDE)
            snprintf(p->msg, sizeof p->msg, "this is the last slide");
        else
            snprintf(p->msg, sizeof p->msg, "this is the first slide");
        return;
    }
    if (m == DECK_NEXT && np.slide != p->pos.slide &&
        p->sl[np.slide].lesson != p->sl[p->pos.slide].lesson && p->ended != p->pos.slide + 1 &&
        p->extra == PRES_EXTRA_NONE) {
        p->ended = p->pos.slide + 1; /* a lesson's end: its page for the room, then on */
        pres_extra_open(p, PRES_EXTRA_END);
        p->auto_end = true;
        return;
    }
    if (np.slide == p->pos.slide && np.step >= 0 && np.page >= 0) {
        p->pos.page = np.page;
        if (m == DECK_NEXT && np.step > p->pos.step + 1)
            pres_play_to(p, np.step);
        else if (np.step != p->pos.step)
            pres_set_step(p, np.step);
        return;
    }
    p->pos = np;
    p->have_narr = false;
    p->revealed = pres_answered_on(p, pres_slide(p)); /* answered once, shown since */
    p->reveal_scene = false;
    pres_enter(p);
    pres_layout(p); /* resolves DECK_PAGE_END against the new slide's pages */
}

static bool pres_answer_foot(const struct pres *p, int page, char *buf, size_t n);

/* r: the page that shows the answer revealed last: the scene's, where it stands beside the
 * scene (with the next question) or whole in the footer under it, else the text page it is
 * on. */
static void pres_show_answer(struct pres *p)
{
    if (!p->revealed || p->revealed > p->ps.quiz.nex) return;
    int line = p->ps.ex_ans[p->revealed - 1];
    char foot[600];
    if (pres_slide(p)->has_scene &&
        pres_answer_foot(p, pres_npages(p) - 1, foot, sizeof foot)) {
        p->pos.page = pres_npages(p) - 1;
        return;
    }
    for (int i = pres_npages(p) - 1; i >= 0 && p->lay.npages > 0; i--) {
        const struct present_layout_page *pg = &p->lay.page[i];
        if ((line >= pg->from && line < pg->to) ||
            (line >= pg->ask_from && line < pg->ask_to)) {
            p->pos.page = i;
            return;
        }
    }
}

/* r: the next exercise of the slide answered in the room, once; none left: said so. */
static void pres_reveal(struct pres *p)
{
    const struct lesson_slide *s = pres_slide(p);
    if (s->nex == 0) { /* what a later slide (or lesson) asks may still be hidden: shown */
        bool show = p->hid_later && !p->reveal_scene;
        p->reveal_scene = true;
        snprintf(p->msg, sizeof p->msg, "%s",
                 show ? "every box shown, also what a later slide asks"
                      : "no exercise on this slide");
        return;
    }
    if (p->revealed >= s->nex && !p->reveal_scene) {
        p->reveal_scene = true; /* the whole scene: what a later slide asks shown too */
        snprintf(p->msg, sizeof p->msg, "%s",
                 p->hid_later ? "every box shown, also what a later slide asks"
                              : "every exercise of this slide is answered: its answer stays "
                                "shown");
        return;
    }
    if (p->revealed >= s->nex) {
        snprintf(p->msg, sizeof p->msg,
                 "every exercise of this slide is answered: its answer stays shown%s",
                 p->hid_later ? "" : "; nothing else is hidden");
        return;
    }
    if (!pres_answered(p, s->ex[p->revealed].id)) {
        p->answered = xrealloc(p->answered, (p->nanswered + 1) * sizeof *p->answered);
        snprintf(p->answered[p->nanswered++], LESSON_ID_MAX, "%s", s->ex[p->revealed].id);
    }
    p->revealed++;
    pres_hold(p);
    p->have_narr = false;
    pres_layout(p);
    pres_show_answer(p);
    if (s->nex > 1)
        snprintf(p->msg, sizeof p->msg, "answer %zu of %zu shown", p->revealed, s->nex);
    else
        snprintf(p->msg, sizeof p->msg, "answer shown");
}

/* Slide k (0-based) at its start. */
static void pres_jump(struct pres *p, size_t k)
{
    if (k != p->pos.slide || p->pos.page != p->lay.entry) pres_move(p, DECK_GOTO, (long)k + 1);
}

static struct position_key *pres_keys(const struct pres *p)
{
    struct position_key *k = xcalloc(p->n, sizeof *k);
    for (size_t i = 0; i < p->n; i++) {
        const struct lesson_slide *s = pres_slide_at(p, i);
        k[i] = (struct position_key){p->set.v[p->sl[i].lesson].id, s->title ? s->title : ""};
    }
    return k;
}

static void pres_reload(struct pres *p)
{
    struct lesson_set fresh;
    char err[400];
    if (pres_load(p, &fresh, err, sizeof err, NULL, 0) != CV_OK) {
        snprintf(p->reload_err, sizeof p->reload_err, "%s", err);
        return;
    }
    /* The slide is found again by its lesson and title, not its number. */
    char lesson[LESSON_ID_MAX], title[256];
    notes_copy(lesson, sizeof lesson, pres_lesson(p)->id);
    notes_copy(title, sizeof title, pres_slide(p)->title ? pres_slide(p)->title : "");
    size_t old = p->pos.slide;
    pres_drop_narr(p);
    lesson_set_free(&p->set);
    p->set = fresh;
    pres_index(p);
    pres_set_watch(p);
    struct position_key *k = pres_keys(p);
    p->pos.slide = position_find(k, p->n, lesson, title, old);
    free(k);
    p->reload_err[0] = '\0';
    p->have_answer = false; /* the exercise may have changed */
    snprintf(p->msg, sizeof p->msg, "reloaded %s", p->path);
    pres_enter(p); /* the same step where it still exists (the screen clamps it) */
    pres_layout(p);
}

/* ---- what the speaker alone is told -------------------------------------------------- */

/* The speaker reads the notes terminal when one follows the talk; without one the footer is
 * the only place left. */
static bool pres_notes_follow(const struct pres *p)
{
    return p->notes_assumed || (p->ns && notes_server_nclients(p->ns) > 0);
}

/* The path of an error "path/to/01-x.md:12: message" without its folders. */
static const char *pres_short_path(const char *msg)
{
    const char *colon = strchr(msg, ':');
    const char *slash = NULL;
    for (const char *q = msg; colon && q < colon; q++)
        if (*q == '/') slash = q;
    return slash ? slash + 1 : msg;
}

/* What the presenter says to the speaker now: the g or / prompt, the overview's choice, a
 * failed reload, or a key's notice; "" when nothing. *bad: an error. Never the room's. */
static void pres_status(const struct pres *p, char *buf, size_t n, bool *bad)
{
    *bad = false;
    buf[0] = '\0';
    if (p->go.active) {
        long k = strtol(p->go.digits, NULL, 10);
        const struct lesson_slide *s =
            k >= 1 && (size_t)k <= p->n ? pres_slide_at(p, (size_t)k - 1) : NULL;
        snprintf(buf, n, "go to slide: %s_%s%.200s", p->go.digits, s ? "  " : "",
                 s && s->title ? s->title : "");
    } else if (p->searching) {
        snprintf(buf, n, "find title: %s_", p->search);
    } else if (p->overview) {
        const struct lesson_slide *s = pres_slide_at(p, p->ov_sel);
        snprintf(buf, n,
                 "overview: slide %zu/%zu  %.200s  (arrows choose, Enter goes, Esc closes)",
                 p->ov_sel + 1, p->n, s->title ? s->title : "");
    } else if (p->extra != PRES_EXTRA_NONE) {
        snprintf(buf, n, "%s (%s or Esc: back to the slide; PageDown, PageUp scroll)",
                 p->extra == PRES_EXTRA_GLOSSARY ? "the glossary is on the screen"
                                                 : "the lesson's end page is on the screen",
                 p->extra == PRES_EXTRA_GLOSSARY ? "G" : "E");
    } else if (p->reload_err[0]) {
        snprintf(buf, n, "reload failed (the last good version is shown): %s",
                 pres_short_path(p->reload_err));
        *bad = true;
    } else if (p->msg[0]) {
        snprintf(buf, n, "%s", p->msg);
    }
}

/* The scene shown is a live demo: it differs from the slide's own in more than its step,
 * its highlight or its pace. */
static bool pres_demo(const struct pres *p)
{
    const struct lesson_slide *s = pres_slide(p);
    if (!s->has_scene || !p->scene_ok) return false;
    return (screen_scene_diff(&p->a->sc, &s->scene) & ~(SF_STEP | SF_HL | SF_AUTOPLAY)) != 0;
}

/* ---- speaker notes ---------------------------------------------------------------- */

/* The keys that work now, for the speaker, in short: the presenter's own, then the scene's
 * demo keys on the shown screen (the shared handler's table filtered to this surface, so a
 * key listed is a key that works). */
static void pres_keys_line(const struct pres *p, char *buf, size_t n)
{
    static const struct {
        enum ui_action act;
        const char *label;
    } rows[] = {{ACT_PRES_NEXT, "next"},
                {ACT_PRES_PREV, "back"},
                {ACT_PRES_STEP_NEXT, "every step"},
                {ACT_PRES_SKIP, "skip the scene"},
                {ACT_PRES_SLIDE_NEXT, "slide"},
                {ACT_PRES_GOTO, "goto"},
                {ACT_PRES_OVERVIEW, "overview"},
                {ACT_PRES_SEARCH, "find"},
                {ACT_PRES_BLANK, "blank"},
                {ACT_PRES_REVEAL, "reveal answer"},
                {ACT_GLOSSARY, "glossary"},
                {ACT_PRES_END, "lesson's end page"},
                {ACT_PRES_RESET, "slide's scene"},
                {ACT_PRES_HIGHLIGHT, "highlight"},
                {ACT_PRES_DIGITS, "digits"},
                {ACT_PRES_ZOOM_IN, "zoom+"},
                {ACT_PRES_ZOOM_OUT, "zoom-"},
                {ACT_PRES_EXPORT, "export"},
                {ACT_PRES_QUIT, "quit"},
                {ACT_NONE, NULL},
                {ACT_MEASURE, "measure"},
                {ACT_SWEEP, "sweep"},
                {ACT_SIZE_DOWN, "size/2"},
                {ACT_SIZE_UP, "size*2"},
                {ACT_ALGO, "algo"},
                {ACT_RANKS_UP, "ranks+"},
                {ACT_RANKS_DOWN, "ranks-"},
                {ACT_OP, "op"},
                {ACT_SCHEDULE, "schedule"},
                {ACT_OVERLAP, "overlap"},
                {ACT_CANCEL, "cancel"}};
    const struct lesson_slide *s = pres_slide(p);
    bool scene =
        s->has_scene && p->scene_ok && p->lay.npages > 0 && p->lay.page[p->pos.page].with_scene;
    unsigned on = scene ? app_screen(p->a)->keys_on : 0;
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ARRAY_LEN(rows) && o + 1 < n; i++) {
        if (rows[i].act == ACT_NONE) {
            if (!on) break; /* the demo keys only where the scene is shown */
            continue;
        }
        if (rows[i].act == ACT_PRES_REVEAL && s->nex == 0) continue;
        /* a scene action of another screen (A algo on the parallelism screen) answers only
         * "that key is for the collectives screen": not a key that works here */
        unsigned where = keys_table()[rows[i].act].screens;
        if (!(where & KEYS_ON_PRESENT) && !(where & on)) continue;
        /* and only for the scheme shown: the schedule is pp's, overlap ddp's and zero3's */
        enum train_scheme sch = p->a->sc.scheme;
        if (on == KEYS_ON_PAR && rows[i].act == ACT_SCHEDULE && sch != TRAIN_PP) continue;
        if (on == KEYS_ON_PAR && rows[i].act == ACT_OVERLAP && sch != TRAIN_DDP &&
            sch != TRAIN_ZERO3)
            continue;
        char k[24];
        if (!keys_hint(rows[i].act, SURFACE_PRESENTER, on, p->a->utf8, k, sizeof k)) continue;
        int w = snprintf(buf + o, n - o, "%s%s %s", o ? "  " : "", k, rows[i].label);
        if (w < 0 || (size_t)w >= n - o) break;
        o += (size_t)w;
    }
}

/* What the notes terminal is told now (pres_publish sends it; present_script reads it). */
static void pres_notes_state(struct pres *p, double now, struct notes_state *st)
{
    memset(st, 0, sizeof *st);
    const struct lesson_slide *s = pres_slide(p);
    notes_copy(st->lesson, sizeof st->lesson,
               pres_lesson(p)->title ? pres_lesson(p)->title : "");
    st->slide = (int)p->pos.slide + 1;
    st->nslides = (int)p->n;
    notes_copy(st->title, sizeof st->title, s->title ? s->title : "");
    /* the note names the player's keys too: the presenter's here */
    char *note = xmalloc(sizeof st->note);
    keys_retarget_text(s->notes ? s->notes : "", SURFACE_PLAYER, SURFACE_PRESENTER,
                       pres_scene_keys_on(s), p->a->utf8, note, sizeof st->note);
    /* and the narration's sentences that ask for a key, which the room does not see */
    char keys_said[1024];
    present_slide_keys(s, p->a->utf8, keys_said, sizeof keys_said);
    if (keys_said[0]) {
        size_t len = strlen(note);
        snprintf(note + len, sizeof st->note - len, "%sOn the slide, for you: %s",
                 len ? "\n\n" : "", keys_said);
    }
    notes_copy(st->note, sizeof st->note, note);
    free(note);
    if (p->pos.slide + 1 < p->n) {
        const struct lesson_slide *nx = pres_slide_at(p, p->pos.slide + 1);
        notes_copy(st->next, sizeof st->next, nx->title ? nx->title : "");
    }
    st->elapsed_s = (long)(now - p->t0);
    st->blanked = p->blanked;
    if (!p->have_answer || p->answer_slide != p->pos.slide) {
        quiz_notes(s, p->answer, sizeof p->answer);
        p->answer_slide = p->pos.slide;
        p->have_answer = true;
    }
    notes_copy(st->answer, sizeof st->answer, p->answer);
    pres_keys_line(p, st->keys, sizeof st->keys);
    st->minutes = p->minutes;
    bool bad;
    pres_status(p, st->status, sizeof st->status, &bad);
    st->demo = pres_demo(p);
    notes_copy(st->work, sizeof st->work, p->work);
    /* the narration the page the slide opens on leaves out: the speaker says it */
    if (p->have_narr && p->narr_slide == p->pos.slide && p->lay_slide == p->pos.slide &&
        p->lay.npages > 0)
        present_slide_unshown(&p->ps, &p->lay.page[p->lay.entry], st->narr, sizeof st->narr);
    /* the backends' availability: said here, once, never on the projector */
    hw_panel_note(&p->a->hw, p->a->utf8, st->backend, sizeof st->backend);
}

static void pres_publish(struct pres *p, double now)
{
    if (!p->ns) return;
    struct notes_state *st = xcalloc(1, sizeof *st);
    pres_notes_state(p, now, st);
    notes_server_publish(p->ns, st);
    free(st);
}

/* The countdown's length: --minutes, else the deck's lessons' minutes: added up. */
static void pres_set_minutes(struct pres *p, int opt_minutes)
{
    p->minutes = 0;
    for (size_t i = 0; i < p->set.n; i++)
        p->minutes += p->set.v[i].minutes;
    if (opt_minutes > 0) p->minutes = opt_minutes;
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

/* "step 2/6" as the scene's own header counts: the parallelism screen numbers frames from 1
 * ("frame 3/7"), the slice view counts ticks. */
static int pres_step_text(const struct pres *p, char *buf, size_t n)
{
    long k = p->pos.step, m = pres_nsteps(p);
    if (app_screen(p->a)->kind == SCREEN_PARALLEL)
        return snprintf(buf, n, "frame %ld/%ld", k + 1, m + 1);
    if (p->hide_total) /* the last step's number is the count: no number at all */
        return snprintf(buf, n, "%s ?/?", p->a->sc.slice_view ? "tick" : "step");
    return snprintf(buf, n, "%s %ld/%ld", p->a->sc.slice_view ? "tick" : "step", k, m);
}

/* The room's "end of lesson N/M" where the next PageDown leaves the last slide of a lesson
 * (the last page, no stop left), "end of the talk" at the deck's end; else "". */
static void pres_lesson_end(const struct pres *p, char *buf, size_t n)
{
    buf[0] = '\0';
    const struct pres_slide *at = &p->sl[p->pos.slide];
    if (at->slide + 1 != p->set.v[at->lesson].nslides || p->lay.npages < 1) return;
    long stops[DECK_STOPS_MAX];
    struct deck_slide d = {pres_nsteps(p), pres_npages(p), stops, pres_stops(p, stops)};
    struct deck_pos q;
    if (deck_move_in(p->pos, &d, p->n, DECK_NEXT, 0, &q) && q.slide == p->pos.slide) return;
    if (at->lesson + 1 < p->set.n)
        snprintf(buf, n, "%s end of lesson %zu/%zu", p->a->g->ok, at->lesson + 1, p->set.n);
    else
        snprintf(buf, n, "%s end of the talk", p->a->g->ok);
}

/* The footer's left part, whole, in at most width columns: the slide number, the page, the
 * step and the lesson's title, the less important parts dropped first (the lesson's whole
 * title for its short one, the word "slide", the page, the step (the scene's status row says
 * it), the short title last) rather than any cut. On a page without the slide's title (the
 * scene taking every row: 80x24) the lesson's short title and the slide's, else the slide's
 * alone, dropped last: a slide opens showing its title. with_title false: never a title. */
static void pres_footer_left(const struct pres *p, char *buf, size_t n, int width,
                             bool with_title)
{
    const char *sep = p->a->g->sep;
    char st[64] = "";
    const struct present_layout_page *pg = &p->lay.page[p->pos.page];
    if (pg->with_scene && p->scene_ok && pres_nsteps(p) > 0) pres_step_text(p, st, sizeof st);
    const struct lesson *L = pres_lesson(p);
    char both[600];
    const char *titles[3] = {"", L->title ? L->title : "", lesson_short_title(L)};
    bool own = pg->title.h == 0 && pres_slide(p)->title && pres_slide(p)->title[0];
    if (own) { /* the lesson's short title and the slide's, else the slide's alone */
        snprintf(both, sizeof both, "%s%s%s", lesson_short_title(L), sep, pres_slide(p)->title);
        titles[1] = both;
    }
    bool pages = pres_npages(p) > 1;
    /* each try: the word "slide", the page, the title (0 none, 1 whole, 2 short), the step
     * (the scene's own status row says it too: it goes before the lesson's title) */
    static const int tries[][4] = {{1, 1, 1, 1}, {1, 1, 2, 1}, {0, 1, 2, 1}, {0, 0, 2, 1},
                                   {0, 0, 2, 0}, {1, 1, 0, 1}, {0, 1, 0, 1}, {0, 0, 0, 1}};
    static const int own_tries[][4] = {{1, 1, 1, 1}, {0, 1, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 0},
                                       {0, 1, 2, 1}, {0, 0, 2, 1}, {0, 0, 2, 0}, {1, 1, 0, 1},
                                       {0, 1, 0, 1}, {0, 0, 0, 1}};
    size_t ntries = own ? ARRAY_LEN(own_tries) : ARRAY_LEN(tries);
    for (size_t i = 0; i < ntries; i++) {
        const int *t = own ? own_tries[i] : tries[i];
        const char *title = titles[t[2]];
        if (t[2] && (!with_title || !title[0])) continue;
        int k = snprintf(buf, n, " %s%zu/%zu", t[0] ? "slide " : "", p->pos.slide + 1, p->n);
        if (pages && t[1])
            k += snprintf(buf + k, n - (size_t)k, "%spage %d/%d", sep, p->pos.page + 1,
                          pres_npages(p));
        if (st[0] && t[3]) k += snprintf(buf + k, n - (size_t)k, "%s%s", sep, st);
        if (t[2]) snprintf(buf + k, n - (size_t)k, "%s%s", sep, title);
        if (text_width(buf) <= width) return;
    }
}

/* The answer r revealed last, in one line for the footer of page `page` ("Answer: ...",
 * "Answer 2 of 3: ..."): where the page is the scene's, does not show it in its text, and the
 * footer holds it whole beside the slide's number, its step and the clock. */
static bool pres_answer_foot(const struct pres *p, int page, char *buf, size_t n)
{
    const struct lesson_slide *s = pres_slide(p);
    if (!p->revealed || p->revealed > s->nex || p->revealed > p->ps.quiz.nex ||
        p->lay.npages < 1 || page < 0 || page >= p->lay.npages)
        return false;
    const struct present_layout_page *pg = &p->lay.page[page];
    int line = p->ps.ex_ans[p->revealed - 1];
    if (!pg->with_scene || (line >= pg->from && line < pg->to) ||
        (line >= pg->ask_from && line < pg->ask_to))
        return false;
    char ans[500];
    ex_answer_text(&s->ex[p->revealed - 1], NULL, NULL, ans, sizeof ans);
    if (s->nex > 1)
        snprintf(buf, n, "Answer %zu of %zu: %s", p->revealed, s->nex, ans);
    else
        snprintf(buf, n, "Answer: %s", ans);
    char left[400];
    pres_footer_left(p, left, sizeof left, 0, false); /* its shortest form */
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    (void)rows;
    /* the clock (up to "auto paused  1:00:00 ") and the gaps around the answer */
    return text_width(left) + text_width(buf) + 26 <= cols;
}

static void pres_footer(struct pres *p, struct rect r, double now)
{
    const struct theme *th = &p->a->th;
    char left[400], right[64], el[32];
    pres_elapsed(el, sizeof el, (long)(now - p->t0));
    snprintf(right, sizeof right, "%s%s ",
             p->auto_s > 0 ? (p->auto_on ? "auto  " : "auto paused  ") : "", el);
    /* The middle: what the speaker is told, where no notes terminal follows the talk. */
    char mid[NOTES_STATUS_MAX] = "";
    bool bad = false;
    bool prompt = p->go.active || p->searching || p->overview || p->reload_err[0];
    bool done = false;
    bool answer = !prompt && pres_answer_foot(p, p->pos.page, mid, sizeof mid);
    if (!answer && !pres_notes_follow(p)) pres_status(p, mid, sizeof mid, &bad);
    if (!mid[0] && !prompt) { /* a lesson's end, for the room */
        pres_lesson_end(p, mid, sizeof mid);
        done = mid[0] != '\0';
    }
    attr_t mat = bad ? th->role[TH_BAD] : done ? th->role[TH_OK] : th->role[TH_WARN];
    int rw = text_width(right), mw = text_width(mid);
    /* The lesson's title gives way to a message. */
    pres_footer_left(p, left, sizeof left, mid[0] ? r.w - rw - mw - 4 : r.w - rw - 1, true);
    if (mid[0] && text_width(left) + 3 + mw + rw > r.w)
        pres_footer_left(p, left, sizeof left, answer ? 0 : r.w - rw - 1, false);
    int lw = draw_put(r.y, r.x, r.w - rw - 1, th->role[TH_DIM], left);
    draw_put(r.y, r.x + r.w - rw, rw, th->role[TH_STEP], right);
    int mx = r.x + lw + 2, room = r.w - lw - rw - 3;
    if (mid[0] && room > 4) draw_put(r.y, mx, room, mat, mid);
}

static void pres_blank(struct pres *p)
{
    attr_t at = p->black_pair > 0 ? COLOR_PAIR(p->black_pair) : A_NORMAL;
    bkgdset(' ' | at);
    erase();
    term_refresh(); /* one write, synchronized where the terminal has it */
    bkgdset(' ' | A_NORMAL);
}

/* The overview: every slide (number, lesson, title), the selected one highlighted. */
static void pres_draw_overview(struct pres *p, int rows, int cols)
{
    const struct theme *th = &p->a->th;
    pres_center(0, cols, A_BOLD | A_UNDERLINE, "All slides");
    int h = rows - 3;
    if (h < 1) return;
    size_t top = p->ov_sel >= (size_t)h / 2 ? p->ov_sel - (size_t)h / 2 : 0;
    if (top + (size_t)h > p->n) top = p->n > (size_t)h ? p->n - (size_t)h : 0;
    for (int y = 0; y < h && top + (size_t)y < p->n; y++) {
        size_t i = top + (size_t)y;
        const struct lesson *l = &p->set.v[p->sl[i].lesson];
        const struct lesson_slide *s = pres_slide_at(p, i);
        char line[600];
        snprintf(line, sizeof line, "%3zu  %-24.24s  %s", i + 1, l->id,
                 s->title ? s->title : "");
        attr_t at = i == p->ov_sel ? A_REVERSE : i == p->pos.slide ? A_BOLD : A_NORMAL;
        draw_put(2 + y, 2, cols - 4, at, line);
    }
    (void)th;
}

/* The slide's page: title, narration lines, the scene. */
static void pres_draw_page(struct pres *p, const struct present_layout_page *pg)
{
    struct app *a = p->a;
    const struct theme *th = &a->th;
    p->hide_total = false;
    for (int i = 0; i < pg->title.h && i < p->ps.ntitle; i++) {
        int tw = text_width(p->ps.title[i]);
        draw_put(pg->title.y + i, pg->title.x + (pg->title.w - tw) / 2, pg->title.w,
                 A_BOLD | A_UNDERLINE, p->ps.title[i]);
    }
    struct narr_attrs na = {
        .normal = A_NORMAL,
        .bold = A_BOLD,
        .italic = A_ITALIC,
        .code = th->role[TH_LABEL],
        .mark = th->role[TH_LABEL] | A_BOLD,
        .heading = A_BOLD | A_UNDERLINE,
        .rule = th->role[TH_DIM],
        .term = A_UNDERLINE,
    };
    int lead = pg->to - pg->from; /* the lead, then the slide's questions under it */
    if (lead > 0) narr_draw(stdscr, &p->ps.narr, pg->from, pg->narr.y, pg->narr.x, lead, &na);
    if (pg->ask_to > pg->ask_from)
        narr_draw(stdscr, &p->ps.narr, pg->ask_from, pg->narr.y + lead, pg->narr.x,
                  pg->ask_to - pg->ask_from, &na);
    if (!pg->with_scene) return;
    if (p->scene_ok) {
        /* a quiz in the room: the scene gives no answer away before r reveals it */
        const struct lesson_slide *s = pres_slide(p);
        static struct predict pr;
        pres_predict(p, &pr, (long)app_step(a));
        predict_begin(a, &pr);
        app_screen(a)->draw(a, pg->scene);
        /* what is still hidden once the slide's own answers are shown is a later slide's */
        bool boxes = false;
        for (int r = 0; r < a->sc.nranks && r < CV_MAX_RANKS && a->hide_any; r++)
            boxes = boxes || app_box_hidden(a, r, (long)app_step(a));
        char total[48], masked[64]; /* the footer's step count, as the scene's header */
        snprintf(total, sizeof total, "%ld steps", pres_nsteps(p));
        p->hide_total = draw_mask_text(total, masked, sizeof masked) > 0;
        const struct plan *pl = screen_plan(a); /* the slice view's ticks count its steps */
        if (pl && !p->hide_total) {
            snprintf(total, sizeof total, "%zu steps", pl->nsteps);
            p->hide_total = draw_mask_text(total, masked, sizeof masked) > 0;
        }
        int figures = predict_end(a);
        p->hid_later = p->revealed >= s->nex && !p->reveal_scene && (boxes || figures > 0);
    } else {
        draw_frame(pg->scene, th->role[TH_BORDER], "scene", th->role[TH_LABEL]);
        draw_put(pg->scene.y + 2, pg->scene.x + 2, pg->scene.w - 4, th->role[TH_BAD],
                 p->scene_err);
    }
}

/* ---- the glossary and end pages (G, E) ---------------------------------------------- */

/* The end page's word on an exercise: missed when its answer was not shown in the room;
 * the heading says so for every item, which names the slide and the question alone. */
static const char *pres_end_missed(const void *ctx, const struct lesson_exercise *e,
                                   char *detail, size_t n, unsigned *tone)
{
    (void)detail;
    (void)n;
    (void)tone;
    return pres_answered(ctx, e->id) ? NULL : "";
}

/* The rows the extra page's text has at `rows`: under its title and an empty line, above
 * the page mark's row and the footer. */
static int pres_extra_rows(const struct pres *p, int rows)
{
    return rows - 4 - (p->have_x ? p->xps.ntitle : 1);
}

/* The extra page laid out at cols, as a slide of its own (present_slide.h): the same
 * narration layout, wrapping and terms as a slide's. */
static void pres_extra_text(struct pres *p, int cols)
{
    if (p->have_x) present_slide_free(&p->xps);
    const struct lesson *L = pres_lesson(p);
    struct lesson_slide page = {0};
    char title[600];
    if (p->extra == PRES_EXTRA_GLOSSARY) {
        size_t used[GLOSSARY_MAX_TERMS];
        size_t k = glossary_slide_terms(pres_slide(p), used, GLOSSARY_MAX_TERMS);
        page.blocks = glossary_page_blocks(used, k, &page.nblocks);
        snprintf(title, sizeof title, "Glossary");
    } else {
        /* the deck's numbers: the footer's, and go-to's */
        size_t first = p->pos.slide + 1 - p->sl[p->pos.slide].slide;
        page.blocks = lesson_end_blocks(L, first, "Exercises not answered in the room",
                                        "none: every exercise was answered in the room",
                                        pres_end_missed, p, &page.nblocks);
        snprintf(title, sizeof title, "End of the lesson: %s", L->title ? L->title : L->id);
    }
    page.title = title;
    present_slide_text(&page, 0, cols, p->a->utf8, &p->xps);
    glossary_free_blocks(page.blocks, page.nblocks);
    p->have_x = true;
    int rows, c2;
    getmaxyx(stdscr, rows, c2);
    (void)c2;
    if (p->xps.narr.n > pres_extra_rows(p, rows)) present_slide_tighten(&p->xps); /* to fit */
}

/* The extra page's pages in h rows: each starts where a block starts (a bullet, a paragraph:
 * never one cut mid-sentence), with as many whole blocks as fit (a block taller than h alone
 * is cut at h). starts[i]: page i's first line; returns how many (at least 1). */
static int pres_extra_pages(const struct pres *p, int h, int *starts, int max)
{
    const struct narr *n = &p->xps.narr;
    int np = 0, from = 0;
    while (np < max) {
        while (from < n->n && n->l[from].width == 0) /* no page opens on an empty line */
            from++;
        starts[np++] = from;
        if (from + h >= n->n || h < 1) break;
        int end = from + h; /* the first line not on the page: a block's start, if any */
        while (end > from + 1 &&
               (n->l[end].block == n->l[end - 1].block || n->l[end - 1].with_next))
            end--;
        from = end > from + 1 ? end : from + h;
    }
    return np ? np : 1;
}

/* The extra page in the slide's place: its title, its page from x_from (the footer stays),
 * and where it has several, "1/2" under it. */
static void pres_draw_extra(struct pres *p, int rows, int cols)
{
    int nw = present_layout_narr_width(cols);
    if (!p->have_x || p->xps.narr_w != nw) pres_extra_text(p, cols);
    const struct present_slide *ps = &p->xps;
    int y = 1;
    for (int i = 0; i < ps->ntitle && y < rows - 2; i++, y++)
        pres_center(y, cols, A_BOLD | A_UNDERLINE, ps->title[i]);
    y++;
    int h = pres_extra_rows(p, rows);
    if (h < 1) return;
    int starts[PRES_EXTRA_PAGES], np = pres_extra_pages(p, h, starts, PRES_EXTRA_PAGES), pg = 0;
    while (pg + 1 < np && starts[pg + 1] <= p->x_from)
        pg++;
    p->x_from = starts[pg];
    int to = pg + 1 < np ? starts[pg + 1] : ps->narr.n;
    if (to - p->x_from < h) h = to - p->x_from;
    if (np > 1) {
        char mark[32];
        snprintf(mark, sizeof mark, "%d/%d", pg + 1, np);
        pres_center(rows - 2, cols, p->a->th.role[TH_DIM], mark);
    }
    struct narr_attrs na = {.normal = A_NORMAL,
                            .bold = A_BOLD,
                            .italic = A_ITALIC,
                            .code = p->a->th.role[TH_LABEL],
                            .mark = p->a->th.role[TH_LABEL] | A_BOLD,
                            .heading = A_BOLD | A_UNDERLINE,
                            .rule = p->a->th.role[TH_DIM],
                            .term = A_UNDERLINE};
    narr_draw(stdscr, &ps->narr, p->x_from, y, (cols - nw) / 2, h, &na);
}

static void pres_extra_open(struct pres *p, enum pres_extra which)
{
    p->auto_end = false; /* E, G, the talk's end: not a lesson's end reached by PageDown */
    if (p->extra == which) {
        p->extra = PRES_EXTRA_NONE;
        return;
    }
    p->extra = which;
    p->x_from = 0;
    if (p->have_x) present_slide_free(&p->xps);
    p->have_x = false;
}

/* A key while the extra page is up: the clicker scrolls it (PageDown past its end, Esc, 0,
 * its own key: back to the slide); true when the key was the page's. */
static bool pres_extra_key(struct pres *p, int ch)
{
    if (p->extra == PRES_EXTRA_NONE) return false;
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    if (!p->have_x) pres_extra_text(p, cols);
    int starts[PRES_EXTRA_PAGES];
    int np = pres_extra_pages(p, pres_extra_rows(p, rows), starts, PRES_EXTRA_PAGES), pg = 0;
    while (pg + 1 < np && starts[pg + 1] <= p->x_from)
        pg++;
    switch (ch) {
    case KEY_NPAGE:
    case KEY_DOWN:
    case ' ':
        if (pg + 1 >= np) {
            /* back to the slide, but the talk's end page stays: nothing comes after it; a
             * lesson's end page reached by PageDown goes on to the next lesson */
            if (p->pos.slide + 1 < p->n || p->extra != PRES_EXTRA_END)
                p->extra = PRES_EXTRA_NONE;
            if (p->auto_end && p->extra == PRES_EXTRA_NONE) {
                p->auto_end = false;
                pres_move(p, DECK_NEXT, 0);
            }
        } else
            p->x_from = starts[pg + 1];
        return true;
    case KEY_PPAGE:
    case KEY_UP:
        p->x_from = pg > 0 ? starts[pg - 1] : 0;
        return true;
    case 27:
    case '0':
    case 'G':
    case 'E':
        p->extra = PRES_EXTRA_NONE;
        return true;
    default:
        return false; /* q, g, b ...: as on the slide */
    }
}

static void pres_draw(struct pres *p)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    struct app *a = p->a;
    if (p->blanked) {
        pres_blank(p);
        return;
    }
    double now = now_s();
    draw_begin(a->g, a->utf8);
    draw_set_room(a->room);
    erase();
    pres_layout(p);
    if (p->lay.too_small) {
        char m[120];
        snprintf(m, sizeof m, "terminal too small: %dx%d, need %dx%d", cols, rows,
                 PLAYOUT_MIN_COLS, PLAYOUT_MIN_ROWS);
        pres_center(rows / 2, cols, A_BOLD, m);
        term_refresh();
        return;
    }
    if (p->overview && !pres_notes_follow(p)) /* else the notes terminal shows the choice */
        pres_draw_overview(p, rows, cols);
    else if (p->extra != PRES_EXTRA_NONE)
        pres_draw_extra(p, rows, cols);
    else
        pres_draw_page(p, &p->lay.page[p->pos.page]);
    pres_footer(p, p->lay.footer, now);
    term_refresh();
    /* what the screens said of their work goes to the notes terminal */
    int n;
    const char *const *said = draw_status_said(&n);
    size_t o = 0;
    p->work[0] = '\0';
    for (int i = 0; i < n && o + 1 < sizeof p->work; i++) {
        int w = snprintf(p->work + o, sizeof p->work - o, "%s%s", o ? a->g->sep : "", said[i]);
        if (w < 0) break;
        o += (size_t)w;
    }
    if (o >= sizeof p->work) notes_copy(p->work, sizeof p->work, p->work);
}

/* ---- keys --------------------------------------------------------------------------- */

/* `e`: the first press says where the pictures go, the second writes them (the screen as
 * the room sees it, without that notice). */
static void pres_export(struct pres *p)
{
    char dir[4096], err[300];
    if (position_export_dir(p->export_opt, dir, sizeof dir, err, sizeof err) != CV_OK) {
        snprintf(p->msg, sizeof p->msg, "export: %.200s", err);
        return;
    }
    if (!p->export_armed) {
        p->export_armed = true;
        snprintf(p->msg, sizeof p->msg, "e again writes the screen to %.180s/", dir);
        return;
    }
    p->export_armed = false;
    if (position_mkdirs(dir, err, sizeof err) != CV_OK) {
        snprintf(p->msg, sizeof p->msg, "export: %.200s", err);
        return;
    }
    p->msg[0] = '\0';
    pres_draw(p);
    setenv("COLLVIZ_EXPORT_DIR", dir, 1); /* svg_export_files' folder */
    char name[600];
    if (svg_export_files(stdscr, "present", name, sizeof name, err, sizeof err) == CV_OK)
        snprintf(p->msg, sizeof p->msg, "wrote %.200s and .txt", name);
    else
        snprintf(p->msg, sizeof p->msg, "%.230s", err);
}

/* f: the next highlight of the scene's vocabulary: each rank, each chunk, each transfer of
 * the current step, then none. */
static void pres_highlight(struct pres *p)
{
    struct app *a = p->a;
    const struct plan *pl = screen_plan(a);
    if (!p->scene_ok || app_screen(a)->kind != SCREEN_COLLECTIVES || !pl) {
        snprintf(p->msg, sizeof p->msg, "highlights: only on a collective's scene");
        return;
    }
    int nchunks = 0;
    for (size_t k = 0; k < pl->nx; k++)
        if (pl->x[k].chunk + 1 > nchunks) nchunks = pl->x[k].chunk + 1;
    size_t step = app_step(a);
    int nx = step > 0 && step <= pl->nsteps ? (int)pl->steps[step - 1].n : 0;
    struct scene next = a->sc;
    int limit[HL_KIND_COUNT] = {1, a->sc.nranks, nchunks, nx};
    next.hl_index++;
    if (next.hl == HL_NONE || next.hl_index >= limit[next.hl]) {
        next.hl_index = 0;
        do
            next.hl = (enum highlight_kind)((next.hl + 1) % HL_KIND_COUNT);
        while (next.hl != HL_NONE && limit[next.hl] == 0);
    }
    char err[240];
    if (app_set_scene(a, &next, err, sizeof err) != CV_OK) {
        snprintf(p->msg, sizeof p->msg, "%s", err);
        return;
    }
    if (next.hl == HL_NONE)
        snprintf(p->msg, sizeof p->msg, "highlight off");
    else
        snprintf(p->msg, sizeof p->msg, "highlight %s:%d", highlight_kind_name(next.hl),
                 next.hl_index);
}

/* The overview's keys: arrows choose, Enter jumps, o or Esc closes. */
static void pres_overview_key(struct pres *p, int ch)
{
    switch (ch) {
    case KEY_DOWN:
    case KEY_RIGHT:
    case KEY_NPAGE:
    case 'j':
        if (p->ov_sel + 1 < p->n) p->ov_sel++;
        break;
    case KEY_UP:
    case KEY_LEFT:
    case KEY_PPAGE:
    case 'k':
        if (p->ov_sel > 0) p->ov_sel--;
        break;
    case KEY_HOME:
        p->ov_sel = 0;
        break;
    case KEY_END:
        p->ov_sel = p->n - 1;
        break;
    case '\r':
    case '\n':
    case KEY_ENTER:
        p->overview = false;
        pres_jump(p, p->ov_sel);
        break;
    case 'o':
    case 27:
    case 'q':
        p->overview = false;
        break;
    default:
        break;
    }
}

/* "/ words Enter": the next slide whose title has the words. */
static void pres_search_key(struct pres *p, int ch)
{
    size_t len = strlen(p->search);
    if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
        p->searching = false;
        struct position_key *k = pres_keys(p);
        size_t to;
        if (len && position_search(k, p->n, p->pos.slide, p->search, &to))
            pres_jump(p, to);
        else if (len)
            snprintf(p->msg, sizeof p->msg, "no title has \"%.100s\"", p->search);
        free(k);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len) p->search[len - 1] = '\0';
    } else if (ch >= 32 && ch < 127 && len + 1 < sizeof p->search) {
        p->search[len] = (char)ch;
        p->search[len + 1] = '\0';
    } else {
        p->searching = false;
    }
}

/* The presenter's own keys (KEYS_ON_PRESENT rows); false when act is not one. */
/* + / -: the zoom (app.h's zoom levels), kept with the deck's position; the footer says
 * what the level does on the scene shown (each screen trades its own elements). */
static void pres_zoom(struct pres *p, int d)
{
    static const char *const coll[APP_ZOOM_MAX + 1] = {
        "all", "no measured panel", "no panel, wider digits", "rank boxes, bigger digits"};
    static const char *const par[APP_ZOOM_MAX + 1] = {
        "all", "no panel", "no panel, key matrices only", "key matrices alone"};
    static const char *const hier[APP_ZOOM_MAX + 1] = {
        "all", "no notes or what-if table", "no notes, only figures measured or given",
        "as zoom 2 here"};
    int z = p->a->zoom + d;
    if (z < 0 || z > APP_ZOOM_MAX) {
        snprintf(p->msg, sizeof p->msg, "zoom %d is the %s", p->a->zoom,
                 d > 0 ? "largest" : "smallest");
        return;
    }
    p->a->zoom = z;
    pres_save(p, now_s());
    enum screen_kind k = app_screen(p->a)->kind;
    bool shown = pres_slide(p)->has_scene && p->scene_ok;
    const char *const *what = k == SCREEN_PARALLEL ? par : k == SCREEN_HIERARCHY ? hier : coll;
    bool zooms =
        shown && (k == SCREEN_COLLECTIVES || k == SCREEN_PARALLEL || k == SCREEN_HIERARCHY);
    snprintf(p->msg, sizeof p->msg, "zoom %d/%d: %s%s", z, APP_ZOOM_MAX, what[z],
             z > 0 && !zooms ? " (not on this slide)" : "");
}

/* R: where this deck was left last time (the slide found by its lesson and title, its step,
 * page and clock), once; --resume does it at the start. */
static void pres_resume(struct pres *p)
{
    if (!p->offer) {
        snprintf(p->msg, sizeof p->msg, "nothing to resume: this talk started where it was");
        return;
    }
    struct position_key *k = pres_keys(p);
    size_t at =
        position_find(k, p->n, p->offered.lesson, p->offered.title, (size_t)p->offered.slide);
    free(k);
    pres_move(p, DECK_GOTO, (long)at + 1);
    if (pres_slide(p)->has_scene && p->scene_ok) pres_set_step(p, p->offered.step);
    if (p->offered.page >= 0 && p->offered.page < pres_npages(p)) p->pos.page = p->offered.page;
    p->t0 = now_s() - (double)p->offered.elapsed_s;
    p->offer = false;
    snprintf(p->msg, sizeof p->msg, "resumed at slide %zu", p->pos.slide + 1);
}

static bool pres_action(struct pres *p, enum ui_action act, bool *quit)
{
    static const struct {
        enum ui_action act;
        enum deck_move m;
    } moves[] = {{ACT_PRES_NEXT, DECK_NEXT},
                 {ACT_PRES_PREV, DECK_PREV},
                 {ACT_PRES_STEP_NEXT, DECK_STEP_NEXT},
                 {ACT_PRES_STEP_PREV, DECK_STEP_PREV},
                 {ACT_PRES_SKIP, DECK_SKIP},
                 {ACT_PRES_SLIDE_NEXT, DECK_NEXT_SLIDE},
                 {ACT_PRES_SLIDE_PREV, DECK_PREV_SLIDE},
                 {ACT_PRES_FIRST, DECK_FIRST},
                 {ACT_PRES_LAST, DECK_LAST}};
    for (size_t i = 0; i < ARRAY_LEN(moves); i++)
        if (moves[i].act == act) {
            pres_move(p, moves[i].m, 0);
            return true;
        }
    switch (act) {
    case ACT_PRES_GOTO:
        p->go = (struct deck_goto){.active = true};
        break;
    case ACT_PRES_OVERVIEW:
        p->overview = true;
        p->ov_sel = p->pos.slide;
        break;
    case ACT_PRES_SEARCH:
        p->searching = true;
        p->search[0] = '\0';
        break;
    case ACT_PRES_BLANK:
        p->blanked = true;
        break;
    case ACT_PRES_REVEAL: /* one exercise at a time, each once */
        pres_reveal(p);
        break;
    case ACT_PRES_RESET: /* the slide's own scene, at the step the demo left it */
        p->pos.step = pres_demo(p) ? p->demo_step : p->pos.step;
        pres_enter(p);
        snprintf(p->msg, sizeof p->msg, "the slide's own scene");
        break;
    case ACT_PRES_HIGHLIGHT:
        pres_highlight(p);
        break;
    case ACT_GLOSSARY:
        pres_extra_open(p, PRES_EXTRA_GLOSSARY);
        break;
    case ACT_PRES_END:
        pres_extra_open(p, PRES_EXTRA_END);
        break;
    case ACT_PRES_DIGITS:
        p->big = !p->big;
        p->a->big_digits = p->big;
        snprintf(p->msg, sizeof p->msg, "block digits %s",
                 p->big ? "on (where they fit)" : "off");
        break;
    case ACT_PRES_ZOOM_IN:
    case ACT_PRES_ZOOM_OUT:
        pres_zoom(p, act == ACT_PRES_ZOOM_IN ? 1 : -1);
        break;
    case ACT_PRES_RESUME:
        pres_resume(p);
        break;
    case ACT_PRES_AUTO:
        if (p->auto_s > 0) {
            p->auto_on = true;
            p->next_auto = now_s() + p->auto_s;
            snprintf(p->msg, sizeof p->msg, "auto-advance every %g s", p->auto_s);
        }
        break;
    case ACT_PRES_EXPORT:
        pres_export(p);
        break;
    case ACT_PRES_QUIT:
        *quit = true;
        break;
    default:
        return false;
    }
    return true;
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
        snprintf(p->msg, sizeof p->msg, "auto-advance paused");
    } else {
        p->msg[0] = '\0';
    }
    if (ch != 'e') p->export_armed = false;
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
    if (p->searching) {
        pres_search_key(p, ch);
        return;
    }
    if (p->overview) {
        pres_overview_key(p, ch);
        return;
    }
    if (pres_extra_key(p, ch)) return;
    if (p->extra != PRES_EXTRA_NONE) p->extra = PRES_EXTRA_NONE; /* any other key: the slide */
    struct app *a = p->a;
    bool scene_shown = pres_slide(p)->has_scene && p->scene_ok && p->lay.npages > 0 &&
                       p->lay.page[p->pos.page].with_scene;
    enum ui_action act =
        keys_action_surface(ch, SURFACE_PRESENTER, scene_shown ? app_screen(a)->keys_on : 0);
    if (pres_action(p, act, quit)) return;
    /* A live demo key: the shared handler changes the shown scene through the door; a
     * failing measurement shows its reason in the scene's panel and the talk goes on. */
    bool was_demo = pres_demo(p);
    long before = p->pos.step;
    if (scene_shown && keys_is_scene_action(act) && app_scene_action(a, act, now_s())) {
        if (!was_demo && pres_demo(p)) p->demo_step = before;
        p->pos.step = (long)app_step(a);
        if (a->msg[0]) snprintf(p->msg, sizeof p->msg, "%.200s", a->msg);
        a->msg[0] = '\0';
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
    int poll_ms = (int)((p->next_poll - now) * 1000.0) + 1; /* the lesson files' next look */
    if (poll_ms < t) t = poll_ms < 0 ? 0 : poll_ms;
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
        if ((long)(now - p->t0) != p->saved_s) { /* the clock survives a crash */
            p->saved_s = (long)(now - p->t0);
            pres_save(p, now);
        }
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
            while (!quit && (ch = term_getch()) != ERR)
                pres_key(p, ch, &quit);
            pres_save(p, now_s());
            /* The terminal went away: a closed pty reports POLLIN with it, so this does not
             * wait for POLLIN to clear (ppoll would return at once for ever). */
            if (fds[0].revents & (POLLHUP | POLLERR)) break;
        }
        if (rc > 0 && (fds[1].revents & POLLIN)) notes_server_accept(p->ns);
        if (p->a->w) {
            struct result r;
            while (worker_poll(p->a->w, &r)) {
                app_result(p->a, &r);
                result_free(&r);
            }
            if (p->a->msg[0]) { /* a result's notice: for the speaker */
                snprintf(p->msg, sizeof p->msg, "%.200s", p->a->msg);
                p->a->msg[0] = '\0';
            }
        }
    }
}

/* ---- start and end ------------------------------------------------------------------ */

static bool pres_stop_worker(struct app *a)
{
    return app_stop_worker(a, PRES_STOP_WAIT_S);
}

static void pres_free(struct pres *p)
{
    free(p->answered);
    if (p->have_x) present_slide_free(&p->xps);
    pres_drop_narr(p);
    present_layout_free(&p->lay);
    notes_server_close(p->ns);
    pres_free_watch(p);
    free(p->sl);
    lesson_set_free(&p->set);
    if (p->a) {
        app_free(p->a);
        free(p->a);
    }
}

/* Where the talk starts: --start N or TITLE, else where this deck was left (its saved
 * lesson and title found again, as a reload does), else the first slide. */
static int pres_start(struct pres *p, const char *start, bool want_resume,
                      struct position *resume, bool *resumed, char *err, size_t errlen)
{
    char e2[300];
    /* a deck of several paths is its own deck: the others are part of its name */
    struct vec_buf key = {0};
    vec_buf_puts(&key, p->name);
    for (int i = 0; i < p->nmore; i++) {
        char real[PATH_MAX];
        vec_buf_puts(&key, "\n");
        vec_buf_puts(&key, realpath(p->more[i], real) ? real : p->more[i]);
    }
    int prc = position_path(p->path, key.s, p->state_path, sizeof p->state_path, e2, sizeof e2);
    free(key.s);
    if (prc != CV_OK)
        p->state_path[0] = '\0'; /* no HOME: the talk goes on, the position is not kept */
    p->pos = (struct deck_pos){0, DECK_STEP_START, DECK_PAGE_ENTRY};
    struct position_key *k = pres_keys(p);
    int rc = CV_OK;
    struct position saved;
    bool have =
        p->state_path[0] && position_load(p->state_path, &saved, e2, sizeof e2) == CV_OK;
    if (have) p->zoom = saved.zoom < APP_ZOOM_MAX ? saved.zoom : APP_ZOOM_MAX;
    if (start) {
        char *end;
        long v = strtol(start, &end, 10);
        size_t at;
        if (end != start && *end == '\0') {
            if (v < 1 || (size_t)v > p->n)
                rc = cv_err(err, errlen, CV_EINVAL, "--start: no slide %ld (1..%zu)", v, p->n);
            else
                p->pos.slide = (size_t)v - 1;
        } else if (start[0] && position_search(k, p->n, p->n - 1, start, &at)) {
            p->pos.slide = at;
        } else {
            rc = cv_err(err, errlen, CV_EINVAL, "--start: no slide's title has '%s'", start);
        }
    } else if (have && !want_resume && (saved.slide > 0 || saved.step > 0)) {
        p->offer = true; /* the notes say so; R resumes */
        p->offered = saved;
    } else if (have && want_resume) {
        *resume = saved;
        p->pos.slide =
            position_find(k, p->n, resume->lesson, resume->title, (size_t)resume->slide);
        *resumed = true;
    }
    free(k);
    if (!*resumed) memset(resume, 0, sizeof *resume);
    return rc;
}

/* The talk itself: the backend, the notes socket, the terminal, the loop. */
static int pres_run(struct pres *p, const struct present_opts *o, const struct position *resume,
                    bool resumed)
{
    char err[400];
    p->a = xcalloc(1, sizeof *p->a);
    struct app *a = p->a;
    app_init(a);
    a->auto_measure = !o->no_measure;
    a->embedded = true;
    a->no_key_hints = true; /* the room's screen: keys are listed on the notes terminal */
    a->room = true;         /* and what is said to the speaker goes there too */
    a->bar_row_free = true;
    a->surface = SURFACE_PRESENTER;
    a->big_digits = p->big;
    a->zoom = p->zoom;
    const char *nc = getenv("NO_COLOR");
    bool want_color = !o->no_color && !(nc && nc[0]);
    a->utf8 = !o->ascii && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    a->g = glyphs_get(a->utf8);

    sigset_t block, waitmask;
    term_block_signals(&block, &waitmask);
    hw_probe_machine(&a->hw);
    /* A backend that cannot run here: the panel says why and the talk goes on. */
    backend_logs_off_screen();
    term_at_end(backend_logs_off_screen_end);
    app_open_backend(a, o->backend, false, err, sizeof err);
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

    p->t0 = now_s() - (double)resume->elapsed_s;
    p->next_poll = p->t0 + PRES_POLL_S;
    p->auto_on = p->auto_s > 0;
    p->next_auto = p->t0 + p->auto_s;
    p->pos = (struct deck_pos){p->pos.slide, DECK_STEP_START, DECK_PAGE_ENTRY};
    if (resumed) {
        p->pos.step = resume->step;
        p->pos.page = resume->page;
        if (!p->msg[0]) /* a notes socket's trouble says more */
            snprintf(p->msg, sizeof p->msg, "resumed at slide %zu", p->pos.slide + 1);
    } else if (p->offer && !p->msg[0]) {
        char el[32];
        pres_elapsed(el, sizeof el, p->offered.elapsed_s);
        snprintf(p->msg, sizeof p->msg,
                 "this deck was left at slide %ld, %s in: R resumes there (or --resume)",
                 p->offered.slide + 1, el);
    }
    pres_enter(p);
    pres_layout(p);
    pres_loop(p, &waitmask);

    term_end(scr);
    notes_server_close(p->ns);
    p->ns = NULL;
    if (!pres_stop_worker(a)) term_exit_now(&block);
    pres_free(p);
    return term_exit(&block);
}

int present_run(const struct present_opts *o)
{
    setlocale(LC_ALL, "");
    struct pres P = {.path = o->path,
                     .more = o->more,
                     .nmore = o->nmore,
                     .name = o->name,
                     .auto_s = o->auto_s,
                     .big = !o->no_big_digits,
                     .export_opt = o->export_dir};
    struct pres *p = &P;
    char err[400];
    if (notes_name_check(p->name, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz: %s\n", err);
        return 2;
    }
    char skipped[1024];
    if (pres_load(p, &p->set, err, sizeof err, skipped, sizeof skipped) != CV_OK) {
        cv_eprintf("%s\n", err);
        return 2;
    }
    if (skipped[0]) { /* once, before the talk; and on the notes when it starts */
        cv_eprintf("collviz: skipped, not lessons: %s\n", skipped);
        snprintf(p->msg, sizeof p->msg, "skipped, not lessons: %.150s", skipped);
    }
    pres_index(p);
    pres_set_watch(p);
    pres_set_minutes(p, o->minutes);
    struct position resume = {0};
    bool resumed = false;
    if (pres_start(p, o->start, o->resume, &resume, &resumed, err, sizeof err) != CV_OK) {
        cv_eprintf("collviz: %s\n", err);
        pres_free(p);
        return 2;
    }

    if (!term_have_tty("the presenter")) { /* after the deck is read: its errors come first */
        pres_free(p);
        return 2;
    }
    return pres_run(p, o, &resume, resumed);
}

/* ---- the presenter without a terminal (present_script, for tests) -------------------- */

struct present_script {
    struct pres p;
    struct svg_offscreen off;
};

/* The plays a PageDown started, run to their stop at once (their steps, not their seconds);
 * a scene's own autoplay is left alone (it plays in time, in the talk). */
static void pres_script_settle(struct pres *p)
{
    for (int guard = 0; p->a->playing && p->a->play_stop > 0 && guard < 10000; guard++)
        if (app_tick(p->a, p->a->next_tick) && pres_slide(p)->has_scene)
            p->pos.step = (long)app_step(p->a);
    if (p->a->msg[0]) {
        snprintf(p->msg, sizeof p->msg, "%.200s", p->a->msg);
        p->a->msg[0] = '\0';
    }
}

int present_script_open(struct present_script **out, const struct present_opts *o, int cols,
                        int rows, char *err, size_t errlen)
{
    *out = NULL;
    struct present_script *s = xcalloc(1, sizeof *s);
    struct pres *p = &s->p;
    *p = (struct pres){.path = o->path,
                       .more = o->more,
                       .nmore = o->nmore,
                       .name = o->name ? o->name : "script",
                       .big = !o->no_big_digits,
                       .notes_assumed = !o->script_alone};
    if (pres_load(p, &p->set, err, errlen, NULL, 0) != CV_OK) {
        free(s);
        return CV_EINVAL;
    }
    pres_index(p);
    pres_set_minutes(p, o->minutes);
    p->a = xcalloc(1, sizeof *p->a);
    struct app *a = p->a;
    app_init(a);
    a->auto_measure = !o->no_measure;
    a->embedded = a->no_key_hints = a->room = a->bar_row_free = true;
    a->surface = SURFACE_PRESENTER;
    a->big_digits = p->big;
    a->utf8 = !o->ascii;
    a->g = glyphs_get(a->utf8);
    hw_probe_machine(&a->hw);
    char e2[300];
    if (o->backend) app_open_backend(a, o->backend, false, e2, sizeof e2);
    if (svg_offscreen_open(&s->off, cols, rows, err, errlen) != CV_OK) {
        app_stop_worker(a, PRES_STOP_WAIT_S);
        pres_free(p);
        free(s);
        return CV_EUNAVAIL;
    }
    theme_init(&a->th, !o->no_color);
    a->color = a->th.color;
    p->t0 = now_s();
    p->pos = (struct deck_pos){0, DECK_STEP_START, DECK_PAGE_ENTRY};
    pres_enter(p);
    pres_layout(p);
    *out = s;
    return CV_OK;
}

int present_script_results(struct present_script *s, double wait_s)
{
    struct app *a = s->p.a;
    if (!a->w) return 0;
    int got = 0;
    double until = now_s() + wait_s;
    for (;;) {
        struct result r;
        while (worker_poll(a->w, &r)) {
            app_result(a, &r);
            result_free(&r);
            got++;
        }
        if (got || now_s() >= until) break;
        struct pollfd fd = {.fd = worker_fd(a->w), .events = POLLIN};
        int ms = (int)((until - now_s()) * 1000) + 1;
        poll(&fd, 1, ms > 0 ? ms : 0);
    }
    pres_script_settle(&s->p); /* a result's notice: the speaker's, as in the talk */
    return got;
}

void present_script_key(struct present_script *s, int ch)
{
    bool quit = false;
    pres_key(&s->p, ch, &quit);
    pres_script_settle(&s->p);
}

void present_script_draw(struct present_script *s)
{
    pres_draw(&s->p);
}

void present_script_where(const struct present_script *s, size_t *slide, size_t *nslides,
                          int *page, int *npages, long *step)
{
    *slide = s->p.pos.slide;
    *nslides = s->p.n;
    *page = s->p.pos.page;
    *npages = pres_npages(&s->p);
    *step = s->p.pos.step;
}

void present_script_notes(struct present_script *s, struct notes_state *st)
{
    pres_notes_state(&s->p, now_s(), st); /* what the notes terminal would be sent */
}

void present_script_close(struct present_script *s)
{
    if (!s) return;
    svg_offscreen_close(&s->off);
    app_stop_worker(s->p.a, PRES_STOP_WAIT_S);
    pres_free(&s->p);
    free(s);
}

/* ---- the deck walker's presenter (ui/walk.h) ----------------------------------------- */

/* Every page of the current slide and, on the scene's page, every step, each drawn and
 * handed to fn with the number of the slide's exercises r has revealed. */
static void pres_walk_pages(struct pres *p, size_t i, present_walk_fn fn, void *ctx)
{
    for (int page = 0; page < pres_npages(p); page++) {
        p->pos.page = page;
        bool scene = p->lay.page[page].with_scene && p->scene_ok;
        /* every step the scene has, past a choice's hold too: the hold keeps it unseen */
        long n = scene ? (long)app_nsteps(p->a) : 0;
        for (long st = 0; st <= n; st++) {
            if (scene) pres_set_step(p, st);
            p->msg[0] = '\0';
            p->t0 = now_s(); /* the footer's clock reads 00:00: the same on every run */
            pres_draw(p);
            fn(ctx, &p->set.v[p->sl[i].lesson], p->sl[i].slide, page, scene ? st : -1,
               p->revealed);
        }
    }
}

/* A live demo's slice views (v) of the slide's collectives scene, with every answer of the
 * slide revealed: 2 slices, and 4 slices x 2 channels, each at its start, first tick and end,
 * on the scene's page; then the slide's own scene again. */
static void pres_walk_views(struct pres *p, size_t i, present_walk_fn fn, void *ctx)
{
    const struct lesson_slide *s = pres_slide(p);
    if (!s->has_scene || !p->scene_ok || s->scene.screen != SCREEN_COLLECTIVES) return;
    static const int view[][2] = {{2, 1}, {4, 2}};
    for (size_t v = 0; v < ARRAY_LEN(view); v++) {
        struct scene next = s->scene;
        next.slice_view = true;
        next.slices = view[v][0];
        next.channels = view[v][1];
        long at[3] = {0, 1, SCENE_STEP_END};
        for (size_t j = 0; j < ARRAY_LEN(at); j++) {
            next.step = at[j];
            char err[240];
            if (app_set_scene(p->a, &next, err, sizeof err) != CV_OK) return;
            p->pos.step = (long)app_step(p->a);
            pres_layout(p);
            for (int page = 0; page < pres_npages(p); page++) {
                if (!p->lay.page[page].with_scene) continue;
                p->pos.page = page;
                p->msg[0] = '\0';
                p->t0 = now_s();
                pres_draw(p);
                fn(ctx, &p->set.v[p->sl[i].lesson], p->sl[i].slide, page, p->pos.step,
                   p->revealed);
            }
        }
    }
    p->pos.step = DECK_STEP_START;
    pres_enter(p);
    pres_layout(p);
}

int present_walk(const char *path, struct app *a, present_walk_fn fn, void *ctx, char *err,
                 size_t errlen)
{
    struct pres P = {.path = path, .name = "walk", .big = a->big_digits};
    struct pres *p = &P;
    if (pres_load(p, &p->set, err, errlen, NULL, 0) != CV_OK) return CV_EINVAL;
    pres_index(p);
    p->a = a;
    for (size_t i = 0; i < p->n; i++) {
        p->pos = (struct deck_pos){i, DECK_STEP_START, 0};
        p->have_narr = false;
        p->revealed = 0;
        p->reveal_scene = false;
        pres_enter(p);
        pres_layout(p);
        pres_walk_pages(p, i, fn, ctx);
        /* r, once for each exercise: the room's screen with each answer revealed */
        for (size_t k = 0; k < pres_slide(p)->nex; k++) {
            pres_reveal(p);
            pres_walk_pages(p, i, fn, ctx);
        }
        pres_walk_views(p, i, fn, ctx);
    }
    p->a = NULL; /* the caller's */
    pres_free(p);
    return CV_OK;
}
