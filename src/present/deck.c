/* deck.c - the clicker's moves through slides and steps (see deck.h). */
#include "present/deck.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

bool deck_move(struct deck_pos cur, long nsteps, int npages, size_t nslides, enum deck_move m,
               long goto_n, struct deck_pos *out)
{
    struct deck_pos p = cur;
    *out = cur;
    if (nslides == 0) return false;
    if (npages < 1) npages = 1;
    bool last_page = cur.page >= npages - 1;
    switch (m) {
    case DECK_NEXT:
        if (!last_page)
            p.page = cur.page + 1;
        else if (cur.step < nsteps)
            p.step = cur.step + 1;
        else if (cur.slide + 1 < nslides)
            p = (struct deck_pos){cur.slide + 1, DECK_STEP_START, 0};
        else
            return false;
        break;
    case DECK_PREV:
        if (last_page && cur.step > 0)
            p.step = cur.step - 1;
        else if (cur.page > 0)
            p.page = (last_page ? npages - 1 : cur.page) - 1;
        else if (cur.slide > 0)
            p = (struct deck_pos){cur.slide - 1, DECK_STEP_END, DECK_PAGE_END};
        else
            return false;
        break;
    case DECK_NEXT_SLIDE:
        if (cur.slide + 1 >= nslides) return false;
        p = (struct deck_pos){cur.slide + 1, DECK_STEP_START, 0};
        break;
    case DECK_PREV_SLIDE:
        if (cur.slide == 0) return false;
        p = (struct deck_pos){cur.slide - 1, DECK_STEP_START, 0};
        break;
    case DECK_FIRST:
        p = (struct deck_pos){0, DECK_STEP_START, 0};
        break;
    case DECK_LAST:
        p = (struct deck_pos){nslides - 1, DECK_STEP_START, 0};
        break;
    case DECK_GOTO:
        if (goto_n < 1 || (size_t)goto_n > nslides) return false;
        p = (struct deck_pos){(size_t)goto_n - 1, DECK_STEP_START, 0};
        break;
    }
    *out = p;
    return true;
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
