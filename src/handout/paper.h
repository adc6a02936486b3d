/* paper.h - a scene drawn for paper (handouts, `collviz svg --print`), with cairo and
 * pango: not a copy of the terminal, but the rank boxes with their values at the scene's own
 * step (from the plan and the trace engine), the step's transfers as arrows, the phase and
 * step label and a legend, in a light print theme (or a dark one) whose every text stands at
 * WCAG AA contrast (>= 4.5:1) against what it is drawn on. The picture is measured once
 * (cropped to its ink), then drawn as SVG, PNG or PDF, or into a handout's page.
 *
 * The parallelism and hierarchy screens get a simpler, labelled paper picture (a table of
 * what the scene shows); never the terminal copy. */
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
    uint32_t bg;                            /* the page */
    uint32_t ink;                           /* text and box borders */
    uint32_t dim;                           /* secondary text */
    uint32_t accent;                        /* the highlight the scene points at */
    uint32_t cell_ink;                      /* values in their cells */
    uint32_t empty;                         /* a cell that holds no data yet */
    uint32_t partial;                       /* a partial reduction */
    uint32_t complete;                      /* the reduction of every rank */
    uint32_t hidden;                        /* a box hidden for an exercise */
    uint32_t rank_fill[PRINT_RANK_COLOURS]; /* a value holding one rank's data */
    uint32_t rank_ink[PRINT_RANK_COLOURS];  /* that rank's label and arrows on bg */
};
const struct print_theme *print_theme_get(bool dark);

/* WCAG 2 contrast ratio of two colours (1..21). */
double print_contrast(uint32_t a, uint32_t b);

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
};
void print_opts_default(struct print_opts *o);

/* A text colour pair the drawing used: fg on bg. */
struct print_pair {
    uint32_t fg, bg;
};
#define PRINT_MAX_PAIRS 64

struct print_pic {
    bool ok;                /* built: print_pic_build returned CV_OK */
    struct scene sc;        /* what it draws */
    struct print_opts opts; /* and how */
    double x, y, w, h;      /* its ink extents (points), with a small margin */
    uint32_t bg;            /* the background painted under it */
    struct print_pair pair[PRINT_MAX_PAIRS];
    size_t npairs;
    long step, nsteps; /* the step drawn, of how many (collectives) */
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
