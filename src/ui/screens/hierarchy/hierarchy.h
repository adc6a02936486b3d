/* hierarchy.h - the hierarchy screen (screens.h entry `screen_hierarchy`, key y, scene
 * "screen=hierarchy"): the lecture's tiers with their figures and ratios, this machine's
 * measured figures beside the tiers they belong to (memcpy on the backend thread, the
 * all-reduce busbw of the backend's ranks, NCCL between GPUs where it runs, MPI where it
 * exists), the what-if table of the scene's collective on every link, and the napkin-math
 * panel with editable inputs. Two pages, stepped like steps (step 0: the ladder, step 1:
 * the napkin math); a wide terminal shows both side by side. The words come from
 * hiertext.h (pure, unit-tested); this file keeps the state, posts the measurements and
 * draws. */
#ifndef COLLVIZ_UI_SCREENS_HIERARCHY_HIERARCHY_H
#define COLLVIZ_UI_SCREENS_HIERARCHY_HIERARCHY_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/kit/rect.h"
#include "ui/screens/screens.h"
#include "ui/screens/hierarchy/hiertext.h"

struct app;

extern const struct screen_ops screen_hierarchy;

/* A figure this screen measured (or is measuring). */
struct hier_result {
    enum hier_state state; /* HM_NONE, HM_RUNNING, HM_DONE or HM_FAILED */
    double gbs;
    char how[320];
    char backend[16]; /* the backend that measured it */
    char link[200];   /* the links the backend reported (bench_result.link), "" = none */
};

/* The screen's state, kept in a->screen_state[SCREEN_HIERARCHY] (NULL until first shown). */
struct hier_screen {
    struct hier_napkin_inputs napkin;
    uint64_t copy_id, ar_id; /* outstanding jobs, 0 = none */
    struct hier_result copy; /* memcpy bandwidth */
    struct hier_result ar;   /* all-reduce busbw on the backend's ranks */
};

/* This machine's memcpy bandwidth as measured on the hierarchy screen (GB/s), 0 if not yet:
 * the collectives screen's model takes its default β from it. */
double hier_memcpy_gbs(const struct app *a);

/* Draw lines into r (clipped at its right edge), each piece in its style (the theme's
 * colours for lecture, measured and model figures); returns the rows used. For the
 * collectives panel's what-if table too. */
int hier_lines_draw(const struct app *a, const struct hier_lines *p, struct rect r);

/* The figures as the ladder shows them: the screen's own measurements, the collectives
 * screen's last all-reduce row where this screen has none, and why the others cannot be
 * measured here. */
void hier_figures(const struct app *a, struct hier_measured *m);

#endif
