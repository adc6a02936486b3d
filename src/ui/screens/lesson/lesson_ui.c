/* lesson_ui.c - the lesson player's state and keys (see lesson_ui.h). A slide is its
 * narration plus a scene: going to a slide passes the slide's scene through app_set_scene,
 * so the scene is shown by its own screen, checked and measured like any other. Exercises
 * are graded by lesson/exercise.h (number answers from the formula, holds answers from
 * the trace engine); every visit and every graded attempt is saved at once. */
#include "ui/screens/lesson/lesson_ui.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <curses.h>

#include "core/util.h"
#include "ui/app.h"
#include "ui/screens/lesson/predict.h"
#include "ui/screens/lesson/recall.h"
#include "core/text.h"

struct lesson_ui *lesson_ui_of(const struct app *a)
{
    return (struct lesson_ui *)a->frame_state;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void lesson_ui_save(struct app *a)
{
    struct lesson_ui *u = lesson_ui_of(a);
    if (!u->have_prog) return;
    char err[240];
    if (progress_save(&u->prog, err, sizeof err) != CV_OK)
        snprintf(a->msg, sizeof a->msg, "progress not saved: %.160s", err);
}

static const struct lesson_slide *lesson_ui_slide(const struct lesson_ui *u)
{
    return u->L && u->slide < u->L->nslides ? &u->L->slides[u->slide] : NULL;
}

/* Predict first for the slide's open choices: the scene stops before the step that says
 * one's `shows:` (app_hold); nothing held once each is answered, given up or solved before. */
void lesson_ui_hold(struct app *a)
{
    const struct lesson_ui *u = lesson_ui_of(a);
    const struct lesson_slide *s = u->in_list ? NULL : lesson_ui_slide(u);
    bool open[LESSON_MAX_EXERCISES] = {false};
    for (size_t k = 0; s && k < s->nex && k < LESSON_MAX_EXERCISES; k++)
        open[k] = !u->ex[k].right && !u->ex[k].gave_up &&
                  !(u->have_prog && progress_solved(&u->prog, s->ex[k].id));
    const char *words[APP_HOLD_MAX];
    app_hold(a, words, predict_hold_words(s, open, words, APP_HOLD_MAX));
}

/* Go to slide k of the open lesson: its scene through the door, progress saved. */
static void lesson_ui_goto(struct app *a, size_t k)
{
    struct lesson_ui *u = lesson_ui_of(a);
    if (!u->L || u->L->nslides == 0) return;
    if (k >= u->L->nslides) k = u->L->nslides - 1;
    u->slide = k;
    const struct lesson_slide *s = &u->L->slides[k];
    free(u->ex);
    u->ex = xcalloc(s->nex ? s->nex : 1, sizeof *u->ex);
    /* an answer an earlier lesson showed: asked with a variant's numbers (recall.h) */
    size_t flat = 0;
    for (size_t j = 0; j < k; j++)
        flat += u->L->slides[j].nex;
    for (size_t e = 0; e < s->nex && flat + e < u->nrecall; e++) {
        struct ex_variant v;
        char err[200];
        if (u->recall[flat + e] && ex_variant(&s->ex[e], 1, &v, err, sizeof err) == CV_OK) {
            u->ex[e].seed = 1;
            u->ex[e].var = v;
        }
    }
    u->cur = 0;
    u->at_end = false;
    u->glossary = false;
    u->editing = false;
    u->input[0] = '\0';
    u->scroll = 0;
    u->show_ex = false;
    u->scene_err[0] = '\0';
    u->scene_ok = false;
    a->embedded = true;
    lesson_ui_hold(a); /* before the scene: it opens before the step that tells a choice */
    if (s->has_scene) {
        char err[200];
        if (app_set_scene(a, &s->scene, err, sizeof err) == CV_OK)
            u->scene_ok = true;
        else
            snprintf(u->scene_err, sizeof u->scene_err,
                     "this slide's scene cannot be shown: %s", err);
    }
    if (!u->scene_ok) a->playing = false;
    if (u->have_prog) {
        progress_visit(&u->prog, u->L->id, k);
        lesson_ui_save(a);
    }
}

static void lesson_ui_open_lesson(struct app *a, const struct lesson *L)
{
    struct lesson_ui *u = lesson_ui_of(a);
    u->L = L;
    u->in_list = false;
    free(u->recall);
    u->nrecall = 0;
    for (size_t k = 0; k < L->nslides; k++)
        u->nrecall += L->slides[k].nex;
    u->recall = xcalloc(u->nrecall ? u->nrecall : 1, sizeof *u->recall);
    recall_mark(&u->set, L, u->recall, u->nrecall);
    size_t at = 0;
    if (u->have_prog) {
        const struct progress_lesson *pl = progress_lesson(&u->prog, L->id, false);
        if (pl && pl->current >= 0 && (size_t)pl->current < L->nslides)
            at = (size_t)pl->current;
    }
    lesson_ui_goto(a, at);
}

/* Grade the input line against the current exercise; graded attempts are saved. */
static void lesson_ui_submit(struct app *a)
{
    struct lesson_ui *u = lesson_ui_of(a);
    const struct lesson_slide *s = lesson_ui_slide(u);
    if (!s || u->cur >= s->nex) return;
    const struct lesson_exercise *e = &s->ex[u->cur];
    struct lesson_ex_state *st = &u->ex[u->cur];
    struct ex_grade g;
    ex_grade(e, st->seed ? &st->var : NULL, u->input, &g);
    st->graded = true;
    st->verdict_kind = g.verdict;
    snprintf(st->verdict, sizeof st->verdict, "%s", g.msg);
    u->editing = false;
    u->show_ex = true;
    if (g.verdict == EX_RIGHT || g.verdict == EX_WRONG || g.verdict == EX_WRONG_UNIT) {
        if (g.verdict == EX_RIGHT) st->right = true;
        lesson_ui_hold(a);
        if (u->have_prog) {
            if (g.verdict != EX_WRONG_UNIT)
                progress_attempt(&u->prog, u->L->id, e->id, g.verdict == EX_RIGHT);
            if (g.verdict != EX_RIGHT) /* for the lesson's summary and lesson review */
                progress_mistake(&u->prog, u->L->id, e->id, u->input,
                                 (unsigned long long)st->seed);
            lesson_ui_save(a);
        }
    }
}

static bool lesson_ui_key(struct app *a, int ch)
{
    struct lesson_ui *u = lesson_ui_of(a);
    if (!u->editing) return false;
    size_t len = strlen(u->input);
    if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
        lesson_ui_submit(a);
    } else if (ch == 27) {
        u->editing = false;
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        /* one character back, not one byte */
        while (len > 0 && ((unsigned char)u->input[len - 1] & 0xC0) == 0x80)
            len--;
        if (len > 0) len--;
        u->input[len] = '\0';
    } else if (ch == 21) { /* Ctrl-U */
        u->input[0] = '\0';
    } else if (ch >= 32 && ch < 256 && ch != 127 && len + 1 < sizeof u->input - 4) {
        u->input[len] = (char)ch;
        u->input[len + 1] = '\0';
    }
    return true; /* while typing, every key belongs to the line */
}

static bool lesson_ui_list_action(struct app *a, enum ui_action act)
{
    struct lesson_ui *u = lesson_ui_of(a);
    switch (act) {
    case ACT_SCROLL_DOWN:
        if (u->sel + 1 < u->set.n) u->sel++;
        return true;
    case ACT_SCROLL_UP:
        if (u->sel > 0) u->sel--;
        return true;
    case ACT_ANSWER:
        if (u->sel < u->set.n) lesson_ui_open_lesson(a, &u->set.v[u->sel]);
        return true;
    case ACT_HELP:
    case ACT_BACKENDS:
    case ACT_CLOSE:
    case ACT_QUIT:
        return false;
    default:
        snprintf(a->msg, sizeof a->msg, "Enter opens the chosen lesson (\u2191 \u2193 choose)");
        return true;
    }
}

/* z and 0/Backspace: the slide's scene alone, and the slide's own scene back. */
static void lesson_ui_scene_action(struct app *a, enum ui_action act)
{
    struct lesson_ui *u = lesson_ui_of(a);
    const struct lesson_slide *s = lesson_ui_slide(u);
    switch (act) {
    case ACT_SCENE_ALONE:
        if (!u->scene_ok)
            snprintf(a->msg, sizeof a->msg, "this slide has no scene");
        else
            u->scene_alone = !u->scene_alone;
        break;
    case ACT_SCENE_RESET:
        if (!s || !s->has_scene || !u->scene_ok) {
            snprintf(a->msg, sizeof a->msg, "this slide has no scene");
        } else if (!screen_scene_diff(&a->sc, &s->scene)) {
            snprintf(a->msg, sizeof a->msg, "this is the slide's own scene");
        } else {
            char err[200];
            a->playing = false;
            if (app_set_scene(a, &s->scene, err, sizeof err) != CV_OK)
                snprintf(a->msg, sizeof a->msg, "%.190s", err);
        }
        break;
    default:
        break;
    }
}

/* Is the lesson shown one of the list's (opened from the list, or by its id or number):
 * Esc goes back to the list from it. */
static bool lesson_ui_in_set(const struct lesson_ui *u)
{
    return u->L && u->set.n && u->L >= u->set.v && u->L < u->set.v + u->set.n;
}

/* n and p: the next or previous slide; n on the last one shows the lesson's end page,
 * p there goes back to the last slide. */
static void lesson_ui_move(struct app *a, struct lesson_ui *u, bool next)
{
    if (next) {
        if (u->slide + 1 >= u->L->nslides && u->at_end) {
            snprintf(a->msg, sizeof a->msg, "the end of the lesson%s",
                     lesson_ui_in_set(u) ? " (Esc: the list of lessons)" : "");
        } else if (u->slide + 1 >= u->L->nslides) {
            u->at_end = true; /* the summary and the exercises missed */
            u->scroll = 0;
            u->editing = false;
        } else {
            lesson_ui_goto(a, u->slide + 1);
        }
    } else if (u->at_end) {
        u->at_end = false;
        u->scroll = 0;
    } else if (u->slide == 0) {
        snprintf(a->msg, sizeof a->msg, "the first slide");
    } else {
        lesson_ui_goto(a, u->slide - 1);
    }
}

/* G: the glossary, the slide's terms first (at the top); G again closes it. */
static void lesson_ui_glossary(struct lesson_ui *u)
{
    u->glossary = !u->glossary;
    u->scroll = 0;
    u->editing = false;
}

/* L: the lecture's numbers again (after v, or where an earlier lesson showed them). */
static void lesson_ui_lecture(struct app *a, struct lesson_ui *u,
                              const struct lesson_exercise *e, struct lesson_ex_state *st)
{
    if (!e || !st->seed) {
        snprintf(a->msg, sizeof a->msg, "%s",
                 e ? "these are the lecture's numbers" : "no exercise on this slide");
        return;
    }
    memset(st, 0, sizeof *st); /* the lecture's numbers: a fresh question */
    u->show_ex = true;
}

/* Leave the lesson for the list (Esc, q), its progress saved, the cursor on it. */
static void lesson_ui_to_list(struct app *a, struct lesson_ui *u)
{
    lesson_ui_save(a);
    u->sel = (size_t)(u->L - u->set.v);
    u->in_list = true;
    u->L = NULL;
    app_hold(a, NULL, 0);
    u->editing = false;
    a->playing = false;
}

/* Esc: the glossary closed; else the lesson left for the list (opened by its id or
 * number too: the list is there); a lesson opened as a file has none. */
static void lesson_ui_close(struct app *a, struct lesson_ui *u)
{
    if (u->glossary)
        lesson_ui_glossary(u); /* closes it */
    else if (lesson_ui_in_set(u))
        lesson_ui_to_list(a, u);
    else
        snprintf(a->msg, sizeof a->msg, "a lesson opened as a file has no list: q quits");
}

bool lesson_ui_key_works(const void *ctx, enum ui_action act, const char **label)
{
    const struct lesson_ui *u = ctx;
    if (u->in_list || !u->L) return true;
    const struct lesson_slide *s = lesson_ui_slide(u);
    const struct lesson_exercise *e =
        s && u->cur < s->nex && !u->at_end && !u->glossary ? &s->ex[u->cur] : NULL;
    const struct lesson_ex_state *st = e ? &u->ex[u->cur] : NULL;
    bool open = e && !st->right && !st->gave_up;
    bool scene = u->scene_ok && !u->at_end && !u->glossary;
    if (keys_is_step_action(act)) return scene;
    switch (act) {
    case ACT_ANSWER:
    case ACT_SOLUTION:
        return open;
    case ACT_HINT:
        return open && st->hints_shown < (int)e->nhints;
    case ACT_VARIANT:
        return e && ex_has_variants(e);
    case ACT_LECTURE:
        return e && st->seed;
    case ACT_EX_NEXT:
        return s && s->nex > 1 && !u->at_end && !u->glossary;
    case ACT_QUIT:
        if (u->from_list && label) *label = "lessons";
        return true;
    default:
        return !keys_is_scene_action(act) || scene;
    }
}

static bool lesson_ui_action(struct app *a, enum ui_action act, struct scene *next)
{
    (void)next;
    struct lesson_ui *u = lesson_ui_of(a);
    if (u->in_list) return lesson_ui_list_action(a, act);
    const struct lesson_slide *s = lesson_ui_slide(u);
    const struct lesson_exercise *e = s && u->cur < s->nex ? &s->ex[u->cur] : NULL;
    struct lesson_ex_state *st = e ? &u->ex[u->cur] : NULL;
    switch (act) {
    case ACT_SLIDE_NEXT:
    case ACT_SLIDE_PREV:
        lesson_ui_move(a, u, act == ACT_SLIDE_NEXT);
        return true;
    case ACT_ANSWER:
        if (u->at_end) {
            snprintf(a->msg, sizeof a->msg, "the lesson's end: p goes back to its last slide");
            return true;
        }
        if (!e) {
            snprintf(a->msg, sizeof a->msg, "no exercise on this slide");
            return true;
        }
        if (st->right || st->gave_up) { /* answered: the answer is on screen */
            snprintf(a->msg, sizeof a->msg, "%s; the answer is shown%s",
                     st->right ? "already solved" : "given up",
                     ex_has_variants(e) ? " (v: new numbers to answer)" : "");
            u->show_ex = true;
            return true;
        }
        u->editing = true;
        u->input[0] = '\0';
        u->show_ex = true;
        u->scene_alone = false; /* the input line is in the text */
        return true;
    case ACT_EX_NEXT:
        if (s && s->nex > 1) {
            u->cur = (u->cur + 1) % s->nex;
            u->show_ex = true;
        } else {
            snprintf(a->msg, sizeof a->msg, "%s exercise on this slide",
                     s && s->nex ? "only one" : "no");
        }
        return true;
    case ACT_HINT:
        if (!e || st->hints_shown >= (int)e->nhints)
            snprintf(a->msg, sizeof a->msg, "%s",
                     !e          ? "no exercise on this slide"
                     : e->nhints ? "no more hints"
                                 : "this exercise has no hints");
        else
            st->hints_shown++;
        u->show_ex = true;
        return true;
    case ACT_VARIANT:
        if (!e || !ex_has_variants(e)) {
            snprintf(a->msg, sizeof a->msg,
                     "only number exercises with ranged parameters have variants");
            return true;
        } else {
            char err[200];
            struct ex_variant v;
            uint64_t seed = st->seed + 1;
            if (ex_variant(e, seed, &v, err, sizeof err) != CV_OK) {
                snprintf(a->msg, sizeof a->msg, "no variant: %.160s", err);
                return true;
            }
            memset(st, 0, sizeof *st); /* new numbers: a fresh question */
            st->seed = seed;
            st->var = v;
            u->show_ex = true;
        }
        return true;
    case ACT_LECTURE:
        lesson_ui_lecture(a, u, e, st);
        return true;
    case ACT_GLOSSARY:
        lesson_ui_glossary(u);
        return true;
    case ACT_SOLUTION:
        if (!e)
            snprintf(a->msg, sizeof a->msg, "no exercise on this slide");
        else
            st->gave_up = u->show_ex = true;
        lesson_ui_hold(a);
        return true;
    case ACT_SCROLL_DOWN:
        u->scroll++;
        return true;
    case ACT_SCROLL_UP:
        if (u->scroll > 0) u->scroll--;
        return true;
    case ACT_CLOSE:
        if (a->help || a->hw_open) return false;
        lesson_ui_close(a, u);
        return true;
    case ACT_SCENE_ALONE:
    case ACT_SCENE_RESET:
        lesson_ui_scene_action(a, act);
        return true;
    case ACT_QUIT: /* a lesson of the list: back to the list; q there quits */
        if (a->help || a->hw_open || !u->from_list) return false;
        lesson_ui_to_list(a, u);
        return true;
    case ACT_HELP:
    case ACT_BACKENDS:
    case ACT_EXPORT:
        return false;
    default:
        /* Every scene key of the explorer works on the slide's scene (app.c performs it
         * through the door); 0 or Backspace brings the slide's own scene back. */
        if (keys_is_scene_action(act) && !u->scene_ok) {
            snprintf(a->msg, sizeof a->msg, "this slide has no scene to change");
            return true;
        }
        return !keys_is_scene_action(act);
    }
}

/* The frame's start (ui.c, once the backend and the terminal are up): a lesson opened by
 * name goes to its saved slide. */
static void lesson_ui_start(struct app *a, unsigned changed)
{
    (void)changed;
    struct lesson_ui *u = lesson_ui_of(a);
    a->embedded = true;
    if (!u->in_list && u->L) lesson_ui_open_lesson(a, u->L);
}

static void lesson_ui_free(struct app *a)
{
    struct lesson_ui *u = lesson_ui_of(a);
    if (!u) return;
    free(u->ex);
    free(u->recall);
    lesson_terms_free(u->terms);
    if (u->have_prog) progress_free(&u->prog);
    lesson_set_free(&u->set);
    free(u);
    a->frame_state = NULL;
}

static size_t lesson_ui_nsteps(const struct app *a)
{
    return app_nsteps(a);
}

const struct screen_ops screen_lesson = {
    .name = "lesson",
    .kind = SCREEN_KIND_COUNT, /* a frame, not a kind a scene can name */
    .keys_on = KEYS_ON_LESSON,
    .min_ranks = 1,
    .max_ranks = CV_MAX_RANKS,
    .apply = lesson_ui_start,
    .nsteps = lesson_ui_nsteps,
    .action = lesson_ui_action,
    .draw = lesson_draw,
    .help = lesson_help,
    .free_state = lesson_ui_free,
    .key = lesson_ui_key,
};

int lesson_ui_open(struct app *a, const char *target, char *err, size_t errlen)
{
    struct lesson_ui *u = xcalloc(1, sizeof *u);
    lesson_set_init(&u->set);
    struct lesson_errors errs = {0};
    int rc = CV_OK;
    bool found = lesson_default_dir(u->dir, sizeof u->dir);
    if (target && is_file(target)) {
        if (lesson_set_add(&u->set, target, &errs) != CV_OK || u->set.n == 0) {
            rc = cv_err(err, errlen, CV_EINVAL, "%s%s",
                        errs.n ? errs.msg[0] : "cannot read the lesson",
                        errs.n > 1 ? " (and more: collviz lesson check)" : "");
            goto fail;
        }
        u->L = &u->set.v[0];
    } else {
        if (!found || !is_dir(u->dir)) {
            rc = cv_err(err, errlen, CV_EINVAL,
                        found
                            ? "no lessons folder: %s (COLLVIZ_LESSONS)"
                            : "no lessons found: looked in %s (set COLLVIZ_LESSONS to a folder "
                              "of NN-*.md lessons)",
                        u->dir);
            goto fail;
        }
        lesson_set_add(&u->set, u->dir, &errs);
        if (errs.n)
            snprintf(u->warn, sizeof u->warn,
                     "%zu problem%s in %.150s: some lessons are not listed (collviz lesson "
                     "check %.150s)",
                     errs.n, errs.n == 1 ? "" : "s", u->dir, u->dir);
        if (u->set.n == 0) {
            rc = cv_err(err, errlen, CV_EINVAL, "no lessons in %s%s%s", u->dir,
                        errs.n ? ": " : "", errs.n ? errs.msg[0] : "");
            goto fail;
        }
        if (target) {
            u->L = lesson_set_find(&u->set, target);
            if (!u->L) {
                rc = cv_err(err, errlen, CV_EINVAL,
                            "no lesson file or id '%s' in %s (collviz lesson list shows them)",
                            target, u->dir);
                goto fail;
            }
        } else {
            u->from_list = true;
            u->in_list = true;
        }
    }
    lesson_errors_free(&errs);
    char path[4096], why[240] = "its path is too long", warn[600] = "";
    if (progress_default_path(path, sizeof path, why, sizeof why) != CV_OK)
        snprintf(warn, sizeof warn, "progress is not kept: %s", why);
    else if (progress_load(&u->prog, path, warn, sizeof warn) == CV_OK)
        u->have_prog = true; /* else warn says why (a newer file: left as it is) */
    if (warn[0]) {
        size_t l = strlen(u->warn);
        snprintf(u->warn + l, sizeof u->warn - l, "%s%s", l ? "; " : "", warn);
    }
    if (u->in_list && u->have_prog && progress_last_lesson(&u->prog)) {
        /* the list opens on the lesson the student was in last */
        const struct lesson *last = lesson_set_find(&u->set, progress_last_lesson(&u->prog));
        if (last) u->sel = (size_t)(last - u->set.v);
    }
    u->terms = lesson_terms_new();
    a->frame = &screen_lesson;
    a->frame_state = u;
    a->surface = SURFACE_PLAYER;
    a->embedded = true;
    return CV_OK;
fail:
    lesson_errors_free(&errs);
    lesson_set_free(&u->set);
    free(u);
    return rc;
}
