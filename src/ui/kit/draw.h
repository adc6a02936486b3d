/* draw.h - the drawing kit every screen and overlay uses: text clipped to a width, filled
 * and framed rectangles, and "plines" (lines of differently styled pieces, word-wrapped
 * text) drawn into a rect. Only the main thread draws; draw_begin sets the glyph set of
 * the frame being drawn. */
#ifndef COLLVIZ_UI_KIT_DRAW_H
#define COLLVIZ_UI_KIT_DRAW_H

#include <stdbool.h>

#include <curses.h>

#include "ui/kit/keys.h"
#include "ui/kit/rect.h"
#include "ui/kit/theme.h"

/* The glyphs (box drawing, ellipsis) of the frame about to be drawn. */
void draw_begin(const struct glyphs *g, bool utf8);

/* UTF-8 text at (y, x), at most maxw columns. Returns the columns drawn. */
int draw_put(int y, int x, int maxw, attr_t attr, const char *s);
int draw_putf(int y, int x, int maxw, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void draw_fill(struct rect r, attr_t attr);
/* A border around r with an optional title in its top edge. */
void draw_frame(struct rect r, attr_t attr, const char *title, attr_t title_attr);

/* The bottom key bar of the rows whose screens include `keys_on` (KEYS_ON_*), laid out in
 * r; the items (for mouse clicks) go to bar[0..max). Returns the number of items. */
int draw_key_bar(const struct theme *th, bool utf8, struct rect r, unsigned keys_on,
                 struct bar_item *bar, int max);
/* The same with only the keys works lets through (keys.h's keys_bar_where). */
int draw_key_bar_where(const struct theme *th, bool utf8, struct rect r, unsigned keys_on,
                       keys_bar_fn works, const void *ctx, struct bar_item *bar, int max);

/* A line of differently styled pieces (panels, legends). */
struct seg {
    attr_t attr;
    char text[200];
};
struct styled_line {
    struct seg seg[16];
    int n;
};
struct styled_lines {
    struct styled_line l[48];
    int n;
};
struct styled_line *styled_new(struct styled_lines *p);
void styled_add(struct styled_line *l, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Word-wrapped text in one style, at most max lines (6 at most). */
void styled_wrapped_max(struct styled_lines *p, attr_t attr, int width, const char *text,
                        int max);
void styled_wrapped(struct styled_lines *p, attr_t attr, int width, const char *text);
/* The colour legend of the scene screens' help overlays: "colours r0 r1 r2 r3 " then
 * ranks_note; the partial and the complete reduction marks; "written/sent" then
 * marks_note. */
void styled_colour_legend(struct styled_lines *p, const struct theme *th,
                          const struct glyphs *g, const char *ranks_note,
                          const char *marks_note);
int styled_width(const struct styled_line *l);
void styled_draw_line(const struct styled_line *l, int y, int x, int w);
/* Lines [from, ...) of p into r, a line wider than r wrapped at its spaces onto the next
 * rows (indented), never cut while rows are left; returns the rows used. */
int styled_draw(const struct styled_lines *p, int from, struct rect r);
/* The rows styled_draw would take for all of p at width w, given rows enough. */
int styled_rows(const struct styled_lines *p, int w);

/* ---- predict first: figures hidden until the student answers --------------------------
 * While a mask is set (the lesson player, around drawing a slide's scene), styled_draw_line
 * and draw_put_masked show every figure for which hit(value, unit, ctx) is true as "?"
 * (a unit of measure goes with it: "? KiB" would tell the magnitude; a word that says what
 * is counted stays: "? steps"), draw_putf too: a panel never shows an exercise's answer before
 * the student gives it. A figure is a number not glued to a name (r0, dW1 are names) nor to "="
 * (W=4 is a setting the slide gives), with "," thousands groups, a decimal fraction and an
 * exponent, or "3/7" (the figure 3/7), and the unit word right after it ("24 MiB", "0.43",
 * "420GB/s", "8x"). */
/* half: half a unit of the figure's last digit when it has two significant digits or more
 * ("1.9": 0.05, "40": 0.5), else 0: a panel's rounded figure stands for any value it rounds
 * from. */
typedef bool (*draw_mask_fn)(double value, double half, const char *unit, void *ctx);
/* Set (fn NULL: clear) the mask; resets the count of hidden figures. */
void draw_set_mask(draw_mask_fn fn, void *ctx);
/* Figures hidden since the last draw_set_mask. */
int draw_mask_hits(void);
/* s with the masked figures replaced by "?" (a copy when no mask is set). Returns the
 * number replaced. */
int draw_mask_text(const char *s, char *out, size_t n);
int draw_put_masked(int y, int x, int maxw, attr_t attr, const char *s);
/* A sentence at (y, x) in at most `rows` rows of w columns, wrapped at its spaces; one that
 * needs more ends its last row with an ellipsis after a whole word (core/text.h's
 * text_wrap). Returns the rows drawn. */
int draw_words(int y, int x, int w, int rows, attr_t attr, const char *s);

/* ---- status: the speaker's, never the room's ---------------------------------------------
 * What a screen says about its own work (a measurement or training under way and its
 * seconds, a result being replaced, a check pending, a sweep's progress, an error of a run,
 * what did not fit) is status. It is said through these calls and nowhere else: on the
 * audience's screen (draw_set_room; the presenter) it is not drawn, and it is kept, for the
 * presenter to send to the notes terminal (draw_status_said). draw_begin clears both. */
void draw_set_room(bool room);
bool draw_room(void);
/* A line of status in p (NULL on the room's screen: then nothing is added; more pieces go on
 * the line returned with styled_add). */
struct styled_line *styled_status(struct styled_lines *p, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A piece of status at the end of l (nothing on the room's screen). */
void styled_status_add(struct styled_line *l, attr_t attr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Word-wrapped status, at most max lines (none on the room's screen). */
void styled_status_wrapped(struct styled_lines *p, attr_t attr, int width, const char *text,
                           int max);
/* Status at (y, x) (nothing drawn on the room's screen: returns 0). */
int draw_put_status(int y, int x, int maxw, attr_t attr, const char *s);
/* The status said since draw_begin, each text once, in order: *n of them. */
const char *const *draw_status_said(int *n);

/* Texts draw_put cut at their width with words left over (no "…" says so), since the
 * program started; *last (NULL: not wanted): the last one. The deck walker (ui/walk.h)
 * counts them per frame. */
long draw_cut_count(const char **last);

#endif
