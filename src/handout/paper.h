/* paper.h - a scene drawn for paper (handouts, `collviz svg --print`), with cairo and
 * pango: not a copy of the terminal, but what the screen shows drawn for print, from the
 * same data: the collectives screen's rank boxes with their values at the scene's own step
 * (from the plan and the trace engine), the step's transfers as numbered arrows and their
 * list; the parallelism screen's rank boxes with the matrices of the frame at the scene's
 * step (scene/par_view.h: a real display-scale training step), the pipeline's schedule as
 * a Gantt chart with its bubble, what each ZeRO rank keeps, the MoE step's routing; in a
 * light print theme (or a dark one) whose every text stands at WCAG AA contrast
 * (>= 4.5:1), also once printed in grey, and that says nothing by colour alone
 * (paper_draw.h). The picture is measured once (cropped to its ink), then drawn as SVG,
 * PNG or PDF, or into a handout's page.
 *
 * The hierarchy screen gets a table of the lecture's tiers; never the terminal copy. */
#ifndef COLLVIZ_HANDOUT_PAPER_H
#define COLLVIZ_HANDOUT_PAPER_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scene/scene.h"

/* One theme: every colour the drawing uses, 0xRRGGBB. */
#define PRINT_RANK_COLOURS 8
struct print_theme {
    const char *name;
    uint32_t bg;                             /* the page */
    uint32_t ink;                            /* text and box borders */
    uint32_t dim;                            /* secondary text */
    uint32_t accent;                         /* the highlight the scene points at */
    uint32_t cell_ink;                       /* values in their cells */
    uint32_t empty;                          /* a cell that holds no data yet */
    uint32_t partial;                        /* a partial reduction */
    uint32_t complete;                       /* the reduction of every rank */
    uint32_t hidden;                         /* a box hidden for an exercise */
    uint32_t rank_fill[PRINT_RANK_COLOURS];  /* a value holding one rank's data */
    uint32_t rank_text[PRINT_RANK_COLOURS];  /* text on that fill */
    uint32_t rank_hatch[PRINT_RANK_COLOURS]; /* that fill's hatching */
    uint32_t rank_ink[PRINT_RANK_COLOURS];   /* that rank's label and arrows on bg */
};
const struct print_theme *print_theme_get(bool dark);

/* WCAG 2 contrast ratio of two colours (1..21). */
double print_contrast(uint32_t a, uint32_t b);
/* The grey a colour prints as in black and white: 0.30 R + 0.59 G + 0.11 B, the weights a
 * PDF renderer (poppler's pdftoppm -gray) and most printer drivers use, as 0xRRGGBB. */
uint32_t print_grey(uint32_t c);
/* The contrast of two colours once printed in grey: print_contrast of their greys. */
double print_contrast_grey(uint32_t a, uint32_t b);

/* A "holds" exercise asks what `rank` holds after `step` (SCENE_STEP_END = the last): the
 * picture is never drawn past that step, and at it that rank's box shows "?". */
#define PRINT_MAX_ASKED 8
struct print_opts {
    bool dark;
    size_t nasked;
    struct {
        long step;
        int rank;
    } asked[PRINT_MAX_ASKED];
    /* Numbers an exercise on the slide asks for: a figure the picture computes (a
     * pipeline's bubble) that equals one (within 1%) is left for the reader to work out. */
    size_t nhide;
    double hide[PRINT_MAX_ASKED];
    /* Called with every text the picture draws (tests read what a picture says). */
    void (*on_text)(void *ctx, const char *text);
    void *text_ctx;
};
/* Whether x is one of o's hidden numbers. */
bool print_opts_hides(const struct print_opts *o, double x);
void print_opts_default(struct print_opts *o);

/* A text colour pair the drawing used: fg on bg. */
struct print_pair {
    uint32_t fg, bg;
};
#define PRINT_MAX_PAIRS 64

/* What a picture drew (print_pic.elems), for the tests and the captions. */
enum print_elem {
    PE_RANK_BOXES = 1u << 0,  /* a box per rank, labelled */
    PE_VALUES = 1u << 1,      /* the values each rank holds */
    PE_ARROWS = 1u << 2,      /* a step's transfers as numbered arrows */
    PE_XFER_LIST = 1u << 3,   /* ... and as a numbered list */
    PE_LEGEND = 1u << 4,      /* the ranks' swatches */
    PE_HIGHLIGHT = 1u << 5,   /* what the scene points at, marked */
    PE_MATRICES = 1u << 6,    /* parallelism: the matrices of the frame */
    PE_GANTT = 1u << 7,       /* pp: the schedule as a Gantt chart */
    PE_BUBBLE = 1u << 8,      /* pp: its idle cells marked, the fraction written */
    PE_KEEPS = 1u << 9,       /* zero: what each rank keeps, as shards */
    PE_MOE_TOKENS = 1u << 10, /* moe: tokens per expert per rank */
    PE_MOE_BLOCKS = 1u << 11, /* moe: the all-to-all's blocks with their counts */
    PE_TIERS = 1u << 12,      /* hierarchy: the tiers */
};

struct print_pic {
    bool ok;                /* built: print_pic_build returned CV_OK */
    struct scene sc;        /* what it draws */
    struct print_opts opts; /* and how */
    double x, y, w, h;      /* its ink extents (points), with a small margin */
    uint32_t bg;            /* the background painted under it */
    struct print_pair pair[PRINT_MAX_PAIRS];
    size_t npairs;
    long step, nsteps; /* the step drawn, of how many (collectives; parallelism: frame) */
    double min_pt;     /* the smallest text drawn, points at scale 1 */
    unsigned elems;    /* PE_* */
    char caption[300]; /* what it shows, in words: "all-reduce, ring, 4 ranks, after step 3
                          of 6" */
};

/* Draw scene sc (its step: sc->step, SCENE_STEP_END = the last). CV_OK, or CV_EINVAL /
 * CV_EUNSUPPORTED with a message (a scene that does not check). */
int print_pic_build(struct print_pic *p, const struct scene *sc, const struct print_opts *o,
                    char *err, size_t errlen);
void print_pic_free(struct print_pic *p);

/* Paint the picture with its top-left at (x, y), scaled by `scale`, background included. */
void print_pic_paint(const struct print_pic *p, cairo_t *cr, double x, double y, double scale);

/* Write it as a file; the format from the name's extension (.svg, .png, .pdf; anything else
 * is SVG). PNG at 2 pixels per point. */
int print_pic_write(const struct print_pic *p, const char *path, char *err, size_t errlen);
/* The SVG into memory (malloc'd, NUL-terminated). */
int print_pic_svg(const struct print_pic *p, char **out, size_t *len, char *err, size_t errlen);

/* Drop pango's font map (and the fonts it holds) at the end of a command that drew, so a
 * leak checker sees only what is really lost. (fontconfig's own configuration lives as long
 * as the process: FcFini cannot run while cairo's font caches hold its patterns.) */
void print_release_fonts(void);

#endif
