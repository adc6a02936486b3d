/* handout.h - what every handout format (PDF: pdf.c, HTML: html.c) shares:
 * the options, the picture of a slide as paper shows it (the slide's own step, never past a
 * step a "holds" exercise on it asks about), and what a slide about the measurement says:
 * the figures measured on the machine that made the handout (--backend), or plainly that it
 * was made without measuring. */
#ifndef COLLVIZ_HANDOUT_HANDOUT_H
#define COLLVIZ_HANDOUT_HANDOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lesson/lesson.h"
#include "handout/paper.h"

enum handout_paper { PAPER_A4, PAPER_LETTER };
enum handout_solutions { SOL_END, SOL_NONE, SOL_INLINE };

struct handout_opts {
    enum handout_paper paper;
    int per_page; /* 1 or 2 slides per page (PDF) */
    enum handout_solutions solutions;
    bool dark;           /* the dark picture theme (the page stays white) */
    const char *backend; /* measure on it ("cpu", "nccl", ...); NULL = no measuring */
    bool notes;          /* the speaker's copy (PDF): pictures, speaker notes, answers */
    /* The speaker notes' keys as the presenter shows them (`o` -> `*`): the key table is
     * the terminal program's (ui/), so the command that writes the copy passes this; NULL
     * prints the notes as written. */
    void (*note_keys)(const struct lesson_slide *s, const char *in, char *out, size_t n);
};
void handout_opts_default(struct handout_opts *o);

/* Parse the shared options' values; CV_EINVAL and a message naming the value. */
int handout_parse_paper(const char *s, enum handout_paper *out, char *err, size_t errlen);
int handout_parse_solutions(const char *s, enum handout_solutions *out, char *err,
                            size_t errlen);

/* How slide s's picture is drawn: not past a holds exercise's asked step (at that step the
 * asked rank's box shows "?"), no figure that is a number exercise's answer. */
void handout_slide_opts(const struct lesson_slide *s, bool dark, struct print_opts *o);
/* The picture of slide s: its scene at its own step, drawn with handout_slide_opts.
 * reveal: the exercise ex's answer picture instead (its scene at its step, nothing
 * hidden). CV_OK, or an error with a message. */
int handout_slide_pic(const struct lesson_slide *s, bool dark, struct print_pic *p, char *err,
                      size_t errlen);
int handout_reveal_pic(const struct lesson_exercise *ex, bool dark, struct print_pic *p,
                       char *err, size_t errlen);

/* A slide about the measurement: a collectives scene whose narration speaks of measuring
 * or of the panel (where the screen shows what was measured). */
bool handout_about_measurement(const struct lesson_slide *s);

/* Measurements for a handout: the backend is opened once, each distinct scene measured
 * once. */
struct backend;
struct handout_meas {
    const char *backend; /* NULL: made without measuring */
    struct backend *b;
    bool tried;
    char open_err[300];
    int max_ranks;
    struct handout_meas_cache {
        struct scene sc;
        char text[600];
    } cache[32];
    size_t ncache;
};
void handout_meas_init(struct handout_meas *m, const char *backend);
void handout_meas_close(struct handout_meas *m);
/* One paragraph of plain text for the slide's scene: what was measured and how, why it
 * could not be, or that the handout was made without measuring. */
void handout_meas_text(struct handout_meas *m, const struct scene *sc, char *buf, size_t n);
/* One line for the handout's first page: measured on which backend, or not at all. */
void handout_meas_summary(const struct handout_meas *m, char *buf, size_t n);

/* The glyphs of one page's pictures, each written once. cairo draws text as glyph outlines,
 * a <symbol> per glyph in every picture: the same few hundred glyphs repeated in each of a
 * deck's 93 pictures were 6.8 of its handout's 10.9 MB. */
struct handout_glyphs;
struct handout_glyphs *handout_glyphs_new(void);
/* The page's glyphs, one hidden <svg> of <symbol>s for the pictures' <use>s (nothing when
 * there are none); anywhere in the page, since references resolve in the whole document. */
void handout_glyphs_write(FILE *f, const struct handout_glyphs *g);
void handout_glyphs_free(struct handout_glyphs *g);

/* Write p as an <svg> element for an HTML page (no XML declaration), its ids prefixed with
 * "p<uniq>-" so that several pictures on one page keep their own, and its glyphs moved
 * into g (referenced as g's "cvg<N>"). */
int handout_inline_svg(FILE *f, const struct print_pic *p, int uniq, struct handout_glyphs *g,
                       char *err, size_t errlen);

/* The slide's own number beside the deck's (the presenter's 1..N over the whole set, as
 * the clicker counts them): "lesson 4, slide 4" for slide index i of the set's lesson_no-th
 * lesson (1-based). */
void handout_own_number(int lesson_no, size_t i, char *buf, size_t n);

/* The exercise's answer as one line ("60 64 68 72", "419 GB/s", "3/7 ≈ 0.429", "option 2:
 * ..."), numbers as paper writes them (paper_text.h). */
void handout_answer_text(const struct lesson_exercise *ex, char *buf, size_t n);

/* The most a handout may be, HTML or PDF (docs: 32 MiB): an export that would pass it
 * stops at that slide with an error naming it, and leaves no file. */
#define HANDOUT_MAX_BYTES ((size_t)32 << 20)

#endif
