/* theme.h - colours by meaning and the glyph set. A theme is a table from roles (a rank's
 * data, a reduced value, the highlighted source/destination, labels, warnings) to curses
 * attributes; the monochrome theme (NO_COLOR, --no-color, or a terminal without colours)
 * keeps every distinction that matters with bold/reverse/underline. Glyphs are UTF-8 box
 * drawing and arrows when the locale's codeset is UTF-8, plain ASCII otherwise. */
#ifndef COLLVIZ_UI_KIT_THEME_H
#define COLLVIZ_UI_KIT_THEME_H

#include <stdbool.h>

#include <curses.h>

#include "core/coll.h"

enum theme_role {
    TH_NORMAL,
    TH_TITLE, /* the title bar */
    TH_STEP,  /* "step 3/6" */
    TH_LABEL, /* field names, box labels */
    TH_DIM,   /* secondary text */
    TH_BORDER,
    TH_BORDER_HOT, /* a box taking part in the current step */
    TH_EMPTY,      /* an element holding no data yet */
    TH_REDUCED,    /* a partial reduction: several ranks mixed, not all */
    TH_COMPLETE,   /* the full reduction of every rank */
    TH_SRC,        /* added to an element being sent this step */
    TH_DST,        /* added to an element written this step */
    TH_OK,
    TH_BAD,
    TH_WARN,
    TH_MEASURED, /* measured numbers */
    TH_BAR_KEY,
    TH_BAR_LABEL,
    TH_PLOT,
    TH_HL, /* what the scene points at (highlight=rank:N, chunk:N, transfer:N) */
    TH_ROLE_COUNT
};

struct theme {
    bool color;
    attr_t role[TH_ROLE_COUNT];
    attr_t rank[CV_MAX_RANKS];
};

/* Call after initscr(). want_color=false gives the monochrome theme. */
void theme_init(struct theme *t, bool want_color);

/* The attribute for an element whose contributor mask is `mask` in a world of nranks. */
attr_t theme_mask_attr(const struct theme *t, unsigned mask, int nranks);

struct glyphs {
    const char *h, *v, *tl, *tr, *bl, *br; /* box */
    const char *mark_l, *mark_h, *mark_r;  /* in/out marker spans: "╰─in─╯" */
    const char *arrow;                     /* "─▶" */
    const char *dot;                       /* an empty element */
    const char *sep;                       /* " · " between title fields */
    const char *ok, *bad, *busy;           /* badge */
    const char *ell;
    const char *play;
    const char *sigma;
    const char *blocks[9]; /* bar heights in eighths, 0..8 */
};

const struct glyphs *glyphs_get(bool utf8);

#endif
