/* hierarchy.h - the hierarchy screen (screens.h entry `screen_hierarchy`, key y, scene
 * "screen=hierarchy"): the lecture's tiers with their figures and ratios, this machine's
 * measured figures beside the tiers they belong to (memcpy on the backend thread, the
 * all-reduce busbw of the backend's ranks, NCCL between GPUs where it runs, MPI where it
 * exists), the what-if table of the scene's collective on every link, and the napkin-math
 * panel with editable inputs. Two pages, stepped like steps (step 0: the ladder, step 1:
 * the napkin math); a wide terminal shows both side by side. The words come from
 * ui/hiertext.h (pure, unit-tested) and are drawn by ui/hierdraw.h; this file keeps the state,
 * posts the measurements and draws. */
#ifndef COLLVIZ_UI_SCREENS_HIERARCHY_HIERARCHY_H
#define COLLVIZ_UI_SCREENS_HIERARCHY_HIERARCHY_H

#include <stdbool.h>
#include <stdint.h>

#include "ui/screens/screens.h"
#include "ui/hiertext.h"

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

/* Its memcpy bandwidth reaches the collectives screen's model through screen_ops.figure
 * (SCREEN_FIG_MEMCPY_GBS), never through this header. */

/* The figures as the ladder shows them: the screen's own measurements, the collectives
 * screen's last all-reduce row where this screen has none, and why the others cannot be
 * measured here. */
void hier_figures(const struct app *a, struct hier_measured *m);

#endif
