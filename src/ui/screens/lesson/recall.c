/* recall.c - an answer seen in an earlier lesson is asked with other numbers (see
 * recall.h). */
#include "ui/screens/lesson/recall.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "ui/kit/draw.h"
#include "ui/scene_svg.h"
#include "ui/screens/lesson/predict.h"

struct recall {
    const struct lesson *L;
    bool *seen;
    size_t n;
    bool here; /* a curses screen is current: draw on it */
};

/* A number exercise with variants whose answer another lesson's screen may show as such: with a
 * unit (predict_figure_is: a small whole one only with it), or a count of four digits or more
 * ("524288"); a small count or a fraction is on other screens as something else. */
static bool recall_can(const struct lesson_exercise *e)
{
    double ans = e->answer;
    return ex_has_variants(e) && (e->units[0] || (ans == round(ans) && fabs(ans) >= 1000));
}

static bool recall_fig(double v, double half, const char *unit, void *ctx)
{
    struct recall *r = ctx;
    size_t i = 0;
    for (size_t s = 0; s < r->L->nslides; s++)
        for (size_t k = 0; k < r->L->slides[s].nex && i < r->n; k++, i++) {
            const struct lesson_exercise *e = &r->L->slides[s].ex[k];
            if (!r->seen[i] && recall_can(e) && predict_figure_is(e, v, half, unit))
                r->seen[i] = true;
        }
    return false;
}

/* Every figure of text (lines separated by '\n'). */
static void recall_text(struct recall *r, char *text)
{
    char out[2048];
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        draw_set_mask(recall_fig, r);
        draw_mask_text(line, out, sizeof out);
        draw_set_mask(NULL, NULL);
    }
}

/* The scenes drawn, kept for the process (at most RECALL_DRAWN): opening lesson n draws
 * every slide of lessons 1..n-1 at the terminal's size, the same drawings for each lesson
 * opened after it. A drawing is a function of the scene and the size alone (a fresh app,
 * no backend, nothing measured). */
#define RECALL_DRAWN 1024
struct recall_drawn {
    struct scene sc;
    int cols, rows;
    bool here;
    int rc;
    char *text; /* NULL: nothing drawn */
};
static struct recall_drawn *recall_drawn;
static size_t recall_ndrawn;

/* sc's text as recall_slide draws it (a copy; NULL when it was not drawn): CV_OK or why. */
static int recall_draw(const struct recall *r, const struct scene *sc, char **text)
{
    int rows = SCENE_SVG_ROWS, cols = SCENE_SVG_COLS;
    if (r->here) getmaxyx(stdscr, rows, cols);
    for (size_t i = 0; i < recall_ndrawn; i++) {
        const struct recall_drawn *d = &recall_drawn[i];
        if (d->here == r->here && d->cols == cols && d->rows == rows &&
            memcmp(&d->sc, sc, sizeof *sc) == 0) {
            if (r->here) erase(); /* as scene_text_here leaves the screen */
            *text = d->text ? xstrdup(d->text) : NULL;
            return d->rc;
        }
    }
    char *buf = NULL, err[200];
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    if (!f) return CV_EINVAL;
    /* as the student's terminal shows it; off-screen where there is none (a test) */
    int rc = r->here ? scene_text_here(sc, f, err, sizeof err)
                     : scene_svg_write(sc, cols, rows, true, false, NULL, f, err, sizeof err);
    fclose(f);
    *text = buf;
    if (recall_ndrawn < RECALL_DRAWN) {
        if (!recall_drawn) recall_drawn = xcalloc(RECALL_DRAWN, sizeof *recall_drawn);
        recall_drawn[recall_ndrawn++] =
            (struct recall_drawn){*sc, cols, rows, r->here, rc, buf ? xstrdup(buf) : NULL};
    }
    return rc;
}

/* Slide s of an earlier lesson: its narration, its scene at its step and at the end. */
static void recall_slide(struct recall *r, const struct lesson_slide *s)
{
    for (size_t b = 0; b < s->nblocks; b++) {
        size_t len = 1;
        for (size_t i = 0; i < s->blocks[b].nspans; i++)
            len += strlen(s->blocks[b].spans[i].text) + 1;
        char *t = xmalloc(len), *o = t;
        for (size_t i = 0; i < s->blocks[b].nspans; i++)
            o += sprintf(o, "%s", s->blocks[b].spans[i].text);
        *o = '\0';
        recall_text(r, t);
        free(t);
    }
    if (!s->has_scene) return;
    for (int end = 0; end < 2; end++) {
        struct scene sc = s->scene;
        if (end) sc.step = SCENE_STEP_END;
        char *buf = NULL;
        int rc = recall_draw(r, &sc, &buf);
        if (rc == CV_OK && buf) recall_text(r, buf);
        free(buf);
    }
}

void recall_mark(const struct lesson_set *set, const struct lesson *L, bool *seen, size_t n)
{
    memset(seen, 0, n * sizeof *seen);
    SCREEN *cur = set_term(NULL);
    if (cur) set_term(cur);
    struct recall r = {L, seen, n, cur != NULL};
    bool any = false;
    for (size_t s = 0; s < L->nslides; s++)
        for (size_t k = 0; k < L->slides[s].nex; k++)
            any = any || recall_can(&L->slides[s].ex[k]);
    if (!any) return;
    for (size_t i = 0; i < set->n && &set->v[i] != L; i++)
        for (size_t s = 0; s < set->v[i].nslides; s++)
            recall_slide(&r, &set->v[i].slides[s]);
}
