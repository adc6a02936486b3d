/* theme.c - the colour table, the monochrome table and the two glyph sets (see theme.h).
 * Colours follow htop's habit: pairs are allocated once here and everything else asks for a
 * role. use_default_colors() keeps the terminal's own background (projectors often run
 * light themes). */
#include "ui/kit/theme.h"

#include <string.h>

/* Colour pairs. Rank pairs come first: pair 1 + rank. */
enum {
    PAIR_RANK0 = 1,
    PAIR_REDUCED = PAIR_RANK0 + CV_MAX_RANKS,
    PAIR_COMPLETE,
    PAIR_TITLE,
    PAIR_OK,
    PAIR_BAD,
    PAIR_WARN,
    PAIR_LABEL,
    PAIR_MEASURED,
    PAIR_BAR_LABEL,
    PAIR_PLOT,
    PAIR_BORDER_HOT,
    PAIR_STEP,
    PAIR_HL
};

void theme_init(struct theme *t, bool want_color)
{
    memset(t, 0, sizeof *t);
    t->color = want_color && has_colors() && start_color() == OK;
    if (t->color) use_default_colors();

    if (!t->color) {
        /* Monochrome: every meaning survives as an attribute. */
        t->role[TH_TITLE] = A_REVERSE | A_BOLD;
        t->role[TH_STEP] = A_BOLD;
        t->role[TH_LABEL] = A_BOLD;
        t->role[TH_DIM] = A_NORMAL;
        t->role[TH_BORDER_HOT] = A_BOLD;
        t->role[TH_REDUCED] = A_BOLD;
        t->role[TH_COMPLETE] = A_BOLD;
        t->role[TH_SRC] = A_UNDERLINE;
        t->role[TH_DST] = A_REVERSE;
        t->role[TH_OK] = A_BOLD;
        t->role[TH_BAD] = A_BOLD | A_REVERSE;
        t->role[TH_WARN] = A_BOLD;
        t->role[TH_MEASURED] = A_BOLD;
        t->role[TH_BAR_KEY] = A_BOLD;
        t->role[TH_BAR_LABEL] = A_REVERSE;
        t->role[TH_PLOT] = A_NORMAL;
        t->role[TH_HL] = A_BOLD | A_ITALIC;
        for (int r = 0; r < CV_MAX_RANKS; r++)
            t->rank[r] = A_NORMAL;
        return;
    }

    /* Six clearly different hues for ranks 0-5, their bright forms for 6-11, and four more
     * from the 256-colour cube where the terminal has them. Blue is avoided for text on
     * dark backgrounds until the bright set. */
    static const short base[] = {COLOR_CYAN, COLOR_MAGENTA, COLOR_GREEN,
                                 COLOR_RED,  COLOR_YELLOW,  COLOR_BLUE};
    static const short extra256[] = {208, 141, 37, 162};
    for (int r = 0; r < CV_MAX_RANKS; r++) {
        short fg;
        attr_t a = A_NORMAL;
        if (r < 6) {
            fg = base[r];
            if (fg == COLOR_BLUE) a = A_BOLD;
        } else if (r < 12) {
            fg = base[r - 6];
            if (COLORS >= 16)
                fg = (short)(fg + 8);
            else
                a = A_BOLD;
        } else if (COLORS >= 256) {
            fg = extra256[r - 12];
        } else {
            fg = base[(r - 12) % 6];
            a = A_UNDERLINE; /* 8-colour terminals: tell 12-15 apart from 0-3 */
        }
        init_pair((short)(PAIR_RANK0 + r), fg, -1);
        t->rank[r] = COLOR_PAIR(PAIR_RANK0 + r) | a;
    }
    init_pair(PAIR_REDUCED, COLOR_BLACK, COLOR_YELLOW);
    init_pair(PAIR_COMPLETE, COLOR_BLACK, COLOR_GREEN);
    init_pair(PAIR_TITLE, COLOR_WHITE, COLOR_BLUE);
    init_pair(PAIR_OK, COLOR_GREEN, -1);
    init_pair(PAIR_BAD, COLOR_WHITE, COLOR_RED);
    init_pair(PAIR_WARN, COLOR_YELLOW, -1);
    init_pair(PAIR_LABEL, COLOR_CYAN, -1);
    init_pair(PAIR_MEASURED, COLOR_GREEN, -1);
    init_pair(PAIR_BAR_LABEL, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_PLOT, COLOR_GREEN, -1);
    init_pair(PAIR_BORDER_HOT, COLOR_YELLOW, -1);
    init_pair(PAIR_STEP, COLOR_YELLOW, -1);

    t->role[TH_TITLE] = COLOR_PAIR(PAIR_TITLE) | A_BOLD;
    t->role[TH_STEP] = COLOR_PAIR(PAIR_STEP) | A_BOLD;
    t->role[TH_LABEL] = COLOR_PAIR(PAIR_LABEL);
    t->role[TH_DIM] = A_DIM;
    t->role[TH_BORDER_HOT] = COLOR_PAIR(PAIR_BORDER_HOT) | A_BOLD;
    t->role[TH_EMPTY] = A_DIM;
    t->role[TH_REDUCED] = COLOR_PAIR(PAIR_REDUCED);
    t->role[TH_COMPLETE] = COLOR_PAIR(PAIR_COMPLETE) | A_BOLD;
    t->role[TH_SRC] = A_UNDERLINE | A_BOLD;
    t->role[TH_DST] = A_REVERSE | A_BOLD;
    t->role[TH_OK] = COLOR_PAIR(PAIR_OK) | A_BOLD;
    t->role[TH_BAD] = COLOR_PAIR(PAIR_BAD) | A_BOLD;
    t->role[TH_WARN] = COLOR_PAIR(PAIR_WARN) | A_BOLD;
    t->role[TH_MEASURED] = COLOR_PAIR(PAIR_MEASURED) | A_BOLD;
    t->role[TH_BAR_KEY] = A_BOLD;
    t->role[TH_BAR_LABEL] = COLOR_PAIR(PAIR_BAR_LABEL);
    t->role[TH_PLOT] = COLOR_PAIR(PAIR_PLOT);
    init_pair(PAIR_HL, COLOR_BLACK, COLOR_YELLOW);
    t->role[TH_HL] = COLOR_PAIR(PAIR_HL) | A_BOLD;
}

attr_t theme_mask_attr(const struct theme *t, unsigned mask, int nranks)
{
    if (mask == 0) return t->role[TH_EMPTY];
    if ((mask & (mask - 1)) == 0) {
        int r = __builtin_ctz(mask);
        return r < CV_MAX_RANKS ? t->rank[r] : A_NORMAL;
    }
    unsigned all = nranks >= 32 ? ~0u : (1u << nranks) - 1;
    return (mask & all) == all ? t->role[TH_COMPLETE] : t->role[TH_REDUCED];
}

static const struct glyphs glyphs_utf8 = {
    .h = "\u2500",
    .v = "\u2502",
    .tl = "\u250c",
    .tr = "\u2510",
    .bl = "\u2514",
    .br = "\u2518",
    .mark_l = "\u2570",
    .mark_h = "\u2500",
    .mark_r = "\u256f",
    .arrow = "\u2500\u25b6",
    .dot = "\u00b7",
    .sep = " \u00b7 ",
    .ok = "\u2713",
    .bad = "\u2717",
    .busy = "\u2026",
    .ell = "\u2026",
    .play = "\u25b6",
    .sigma = "\u03a3",
    .blocks = {" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587",
               "\u2588"},
};

static const struct glyphs glyphs_ascii = {
    .h = "-",
    .v = "|",
    .tl = "+",
    .tr = "+",
    .bl = "+",
    .br = "+",
    .mark_l = "`",
    .mark_h = "-",
    .mark_r = "'",
    .arrow = "->",
    .dot = ".",
    .sep = " | ",
    .ok = "OK",
    .bad = "XX",
    .busy = "..",
    .ell = "~",
    .play = ">",
    .sigma = "S",
    .blocks = {" ", ".", ".", "_", "_", "=", "=", "#", "#"},
};

const struct glyphs *glyphs_get(bool utf8)
{
    return utf8 ? &glyphs_utf8 : &glyphs_ascii;
}
