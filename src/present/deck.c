/* deck.c - the clicker's moves through slides and steps (see deck.h). */
#include "present/deck.h"

#include <ctype.h>
#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The next stop after step (-1: none); every step when there are no stops. */
static long next_stop(const struct deck_slide *d, long step)
{
    if (!d->stops) return step < d->nsteps ? step + 1 : -1;
    for (size_t i = 0; i < d->nstops; i++)
        if (d->stops[i] > step) return d->stops[i];
    return -1;
}

/* The stop before step (-1: none). */
static long prev_stop(const struct deck_slide *d, long step)
{
    if (!d->stops) return step > 0 ? step - 1 : -1;
    for (size_t i = d->nstops; i-- > 0;)
        if (d->stops[i] < step) return d->stops[i];
    return -1;
}

bool deck_move_in(struct deck_pos cur, const struct deck_slide *d, size_t nslides,
                  enum deck_move m, long goto_n, struct deck_pos *out)
{
    struct deck_pos p = cur;
    *out = cur;
    if (nslides == 0) return false;
    int npages = d->npages < 1 ? 1 : d->npages;
    struct deck_slide every = {d->nsteps, npages, NULL, 0};
    const struct deck_slide *s = m == DECK_STEP_NEXT || m == DECK_STEP_PREV ? &every : d;
    bool last_page = cur.page >= npages - 1;
    long to;
    switch (m) {
    case DECK_NEXT:
    case DECK_STEP_NEXT:
        if (!last_page)
            p.page = cur.page + 1; /* back onto the scene's page: at the step it was at */
        else if ((to = next_stop(s, cur.step)) >= 0)
            p.step = to;
        else if (cur.slide + 1 < nslides)
            p = (struct deck_pos){cur.slide + 1, DECK_STEP_START, DECK_PAGE_ENTRY};
        else
            return false;
        break;
    case DECK_PREV:
    case DECK_STEP_PREV:
        if (last_page && (to = prev_stop(s, cur.step)) >= 0)
            p.step = to;
        else if (cur.page > 0)
            p.page = (last_page ? npages - 1 : cur.page) - 1;
        else if (cur.slide > 0)
            p = (struct deck_pos){cur.slide - 1, DECK_STEP_END, DECK_PAGE_END};
        else
            return false;
        break;
    case DECK_SKIP:
        if (!last_page || cur.step < d->nsteps)
            p = (struct deck_pos){cur.slide, d->nsteps, npages - 1};
        else if (cur.slide + 1 < nslides)
            p = (struct deck_pos){cur.slide + 1, DECK_STEP_START, DECK_PAGE_ENTRY};
        else
            return false;
        break;
    case DECK_NEXT_SLIDE:
        if (cur.slide + 1 >= nslides) return false;
        p = (struct deck_pos){cur.slide + 1, DECK_STEP_START, DECK_PAGE_ENTRY};
        break;
    case DECK_PREV_SLIDE:
        if (cur.slide == 0) return false;
        p = (struct deck_pos){cur.slide - 1, DECK_STEP_START, DECK_PAGE_ENTRY};
        break;
    case DECK_FIRST:
        p = (struct deck_pos){0, DECK_STEP_START, DECK_PAGE_ENTRY};
        break;
    case DECK_LAST:
        p = (struct deck_pos){nslides - 1, DECK_STEP_START, DECK_PAGE_ENTRY};
        break;
    case DECK_GOTO:
        if (goto_n < 1 || (size_t)goto_n > nslides) return false;
        p = (struct deck_pos){(size_t)goto_n - 1, DECK_STEP_START, DECK_PAGE_ENTRY};
        break;
    }
    *out = p;
    return true;
}

bool deck_move(struct deck_pos cur, long nsteps, int npages, size_t nslides, enum deck_move m,
               long goto_n, struct deck_pos *out)
{
    struct deck_slide d = {nsteps, npages, NULL, 0};
    return deck_move_in(cur, &d, nslides, m, goto_n, out);
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

size_t deck_stops(const long *marks, size_t nmarks, const long *phase_ends, size_t nphase,
                  long start, long nsteps, long *out)
{
    long v[DECK_STOPS_MAX + 1];
    size_t n = 0;
    if (nsteps < 0) nsteps = 0;
    v[n++] = start < 0 ? 0 : start > nsteps ? nsteps : start;
    const long *src = nmarks ? marks : phase_ends;
    size_t nsrc = nmarks ? nmarks : nphase;
    if (!src || nsrc == 0) src = &nsteps, nsrc = 1;
    for (size_t i = 0; i < nsrc && n < DECK_STOPS_MAX; i++) {
        long s = src[i] == DECK_STOP_END ? nsteps : src[i];
        /* a phase that ended before the scene starts is not on the way */
        if (!nmarks && s < v[0]) continue;
        if (s >= 0 && s <= nsteps) v[n++] = s;
    }
    qsort(v, n, sizeof v[0], cmp_long);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[i] != out[k - 1]) out[k++] = v[i];
    return k;
}

/* A number at *q (digits, not part of a longer number or a "3/3" ratio), into *v. */
static bool named_num(const char *q, long *v, const char **end)
{
    if (*q < '0' || *q > '9') return false;
    char *e;
    long x = strtol(q, &e, 10);
    if (*e == '/' || ((*e == '.' || *e == ',') && e[1] >= '0' && e[1] <= '9')) return false;
    *v = x;
    *end = e;
    return true;
}

static bool named_word(const char *s, const char *w)
{
    return strncasecmp(s, w, strlen(w)) == 0;
}

/* "once", "twice", "N times" at q: how many, and *end after it; 0 when none. */
static long named_times(const char *q, const char **end)
{
    long x;
    const char *e;
    if (named_word(q, "once")) return *end = q + 4, 1;
    if (named_word(q, "twice")) return *end = q + 5, 2;
    if (named_num(q, &x, &e) && named_word(e, " times") && x > 0) return *end = e + 6, x;
    return 0;
}

/* A step instruction relative to where the scene starts at s: "step forward once", "step
 * twice", "press → 3 times" (→, l or Right, in backticks or not): how many steps on; 0 when
 * none. */
static long named_relative(const char *s)
{
    const char *q = s, *e;
    if (named_word(q, "step ")) {
        q += 5;
        if (named_word(q, "forward ")) q += 8;
        return named_times(q, &e);
    }
    if (!named_word(q, "press ")) return 0;
    q += 6;
    bool tick = *q == '`';
    q += tick;
    static const char *const keys[] = {"\u2192", "l", "Right"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strncmp(q, keys[i], strlen(keys[i])) == 0) {
            q += strlen(keys[i]);
            if (tick && *q++ != '`') return 0;
            return *q == ' ' ? named_times(q + 1, &e) : 0;
        }
    return 0;
}

size_t deck_named_steps(const char *text, long start, long nsteps, long *out, size_t max)
{
    long v[DECK_STOPS_MAX] = {0};
    size_t n = 0;
    for (const char *s = text; s && *s && n < DECK_STOPS_MAX; s++) {
        bool word = s == text || !isalnum((unsigned char)s[-1]);
        long x;
        const char *e;
        long on = word && start >= 0 ? named_relative(s) : 0;
        if (on > 0) {
            v[n++] = start + on; /* "step forward once": the frame after the start */
            continue;
        }
        bool step = word && named_word(s, "step ");
        const char *q = step ? s + 5 : s;
        while (step && (*q == '*' || *q == '`'))
            q++; /* "step **3**" */
        if (step && named_num(q, &x, &e)) {
            v[n++] = x; /* "step 3", "after step 3" */
            continue;
        }
        if (!word || !named_num(s, &x, &e)) continue;
        /* "3 of its 6 steps", "3 of 6 steps" */
        if (named_word(e, " of its "))
            e += 8;
        else if (named_word(e, " of "))
            e += 4;
        else
            continue;
        long m;
        const char *f;
        if (named_num(e, &m, &f) && named_word(f, " steps") && x <= m) v[n++] = x;
    }
    qsort(v, n, sizeof v[0], cmp_long);
    size_t k = 0;
    for (size_t i = 0; i < n && k < max; i++)
        if (v[i] >= 0 && v[i] <= nsteps && (k == 0 || v[i] != out[k - 1])) out[k++] = v[i];
    return k;
}

long deck_resolve(long step, long start, long nsteps)
{
    if (nsteps < 0) nsteps = 0;
    long s = step;
    if (step == DECK_STEP_START) s = start < 0 ? nsteps : start;
    if (step == DECK_STEP_END) s = nsteps;
    return s < 0 ? 0 : s > nsteps ? nsteps : s;
}

enum deck_goto_result deck_goto_key(struct deck_goto *g, int ch, long *n)
{
    size_t len = strlen(g->digits);
    if (ch >= '0' && ch <= '9') {
        if (len + 1 < sizeof g->digits) {
            g->digits[len] = (char)ch;
            g->digits[len + 1] = '\0';
        }
        return DECK_GOTO_MORE;
    }
    if (ch == 8 || ch == 127 || ch == KEY_BACKSPACE) {
        if (len) g->digits[len - 1] = '\0';
        return DECK_GOTO_MORE;
    }
    g->active = false;
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        *n = len ? strtol(g->digits, NULL, 10) : 0;
        g->digits[0] = '\0';
        return DECK_GOTO_DONE;
    }
    g->digits[0] = '\0';
    return DECK_GOTO_CANCEL;
}
