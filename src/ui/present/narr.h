/* narr.h - a slide's narration (lesson.h blocks of styled spans) laid out for a terminal:
 * word-wrapped lines of styled segments, with list bullets and numbers (hanging indent),
 * block-quote bars, code lines, sub-headings and rules. Layout is pure (no curses), so it is
 * unit tested; narr_draw puts lines into a rectangle with a style-to-attribute table. Used by
 * the presenter (and available to the lesson player). */
#ifndef COLLVIZ_UI_PRESENT_NARR_H
#define COLLVIZ_UI_PRESENT_NARR_H

#include <stdbool.h>
#include <stddef.h>

#include <curses.h>

#include "lesson/lesson.h"

/* Segment styles: the LSPAN_* bits of lesson.h, plus the decorations the layout adds. */
enum {
    NARR_MARK = 8,     /* a bullet, a list number or a quote bar */
    NARR_HEADING = 16, /* a sub-heading's text */
    NARR_RULE = 32,    /* a thematic break */
};

struct narr_seg {
    unsigned style;
    char *text;
};

struct narr_line {
    struct narr_seg *seg;
    int nseg;
    int width;      /* columns */
    bool with_next; /* a blank line between a paragraph and the list it introduces (a
                       quiz's question and its options): no place to break a page */
    int block;      /* the index of the block the line is of (a blank line: of the next) */
    bool starts;    /* the first line of a block that stands alone (not a list's next item,
                       not the list a paragraph introduces): what comes before it is whole
                       (a slide's lead ends there: present_layout.h) */
};

struct narr {
    struct narr_line *l;
    int n;
};

/* Lay out blocks at `width` columns (at least 8). `blank_between`: an empty line between
 * blocks (the presenter's airy layout). Every line is at most `width` columns. */
void narr_layout(const struct lesson_block *b, size_t nb, int width, bool blank_between,
                 bool utf8, struct narr *out);
void narr_free(struct narr *n);

/* Line i as plain text (for tests and the text export). */
void narr_line_text(const struct narr_line *l, char *buf, size_t n);

/* Attributes for the styles: attr_of(style) = base | the attributes of its bits. */
struct narr_attrs {
    attr_t normal, bold, italic, code, mark, heading, rule;
    attr_t term; /* LSPAN_TERM: a glossary term's first use */
};
/* Draw lines [from, from + h) at (y, x); returns the lines drawn. */
int narr_draw(WINDOW *w, const struct narr *n, int from, int y, int x, int h,
              const struct narr_attrs *a);

#endif
