/* scene.h - everything a screen shows, as plain data: which screen, which collective and
 * algorithm, the world size, the display-scale inputs and the step. The UI's state is a scene
 * plus data derived from it (plan and trace, rebuilt when the scene changes), so a lesson can
 * set any screen from a small text description:
 *
 *     collective=all_reduce algo=ring ranks=4 step=end
 *
 * The parallelism screen is a scene too ("screen=parallel scheme=tp ranks=4 step=5"): its
 * step is the frame of the display-scale training step.
 *
 * scene_parse applies such a description on top of a scene; scene_format writes one back. */
#ifndef COLLVIZ_SCENE_SCENE_H
#define COLLVIZ_SCENE_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "core/coll.h"
#include "core/init.h"
#include "core/scheme.h"

enum screen_kind {
    SCREEN_COLLECTIVES,
    SCREEN_PARALLEL,
    SCREEN_HIERARCHY,
    SCREEN_TOPOLOGY, /* a real cluster's NCCL record (collviz --nccl-log) */
    SCREEN_KIND_COUNT
};

/* What a scene asks the screen to point at (a lesson slide's "look here"). */
enum highlight_kind {
    HL_NONE,
    HL_RANK,     /* one rank's box */
    HL_CHUNK,    /* one chunk on every rank */
    HL_TRANSFER, /* one transfer of the current step (its index in the step's list) */
    HL_KIND_COUNT
};

#define SCENE_STEP_END (-1) /* "step=end": the last step of the plan */

struct scene {
    enum screen_kind screen;
    enum coll coll;
    enum algo algo;
    enum redop op;
    int nranks;   /* 1..CV_MAX_RANKS */
    size_t count; /* NCCL API count; 0 = the lecture's default for coll and nranks */
    int root;     /* rooted collectives; 0..nranks-1 */
    enum init_kind init;
    uint64_t seed; /* INIT_RANDOM */
    long step;     /* 0..nsteps, or SCENE_STEP_END */
    /* the parallelism screen */
    enum train_scheme scheme;  /* ddp, tp or pp */
    enum pp_schedule schedule; /* pp */
    bool overlap;              /* ddp: all-reduce overlapped with backward */
    /* what is measured and how the animation moves */
    size_t meas_bytes; /* measurement size S of the backend run (bytes) */
    double autoplay;   /* seconds per step when playing on its own; 0 = no autoplay */
    enum highlight_kind hl;
    int hl_index; /* the rank, chunk or transfer index of hl */
    /* the slice view: the plan refined into slices and channels (core/refine.c), drawn as
     * which slice is on which link at each tick; step then counts ticks */
    bool slice_view;      /* view=slice; view=chunk (the default) is the teaching model */
    int slices, channels; /* 1..SCENE_MAX_SLICES, 1..SCENE_MAX_CHANNELS */
    /* all_to_all with per-pair counts (all-to-all-v, core/plan.h plan_build_a2av):
     * counts[s*ncounts + d] elements from rank s to rank d; ncounts 0 = the uniform one */
    int ncounts;
    size_t counts[CV_MAX_RANKS * CV_MAX_RANKS];
    /* The ring plans' order (ring=0,3,1,2): NCCL's ring from a record, a permutation of the
     * ranks; ring_n 0 = 0, 1, ..., W-1. Set by the topology screen's Enter. */
    int ring[CV_MAX_RANKS];
    int ring_n;
};

/* The lecture's opening scene: all-reduce, ring, 4 ranks, sum, lecture inputs, step 0. */
void scene_default(struct scene *s);

const char *screen_kind_name(enum screen_kind k); /* "collectives", "parallel" */
int screen_kind_parse(const char *name, enum screen_kind *out);

/* Apply "key=value key=value ..." to *s. Keys: screen, collective (or coll), algo, op, ranks,
 * count (a number or "auto"), root, init, seed, step (a number or "end"), scheme (ddp, tp,
 * pp), schedule (gpipe, 1f1b), overlap (on, off), size (measurement size: 64M, 1G, 4096),
 * autoplay (seconds per step, "on" = 1, "off" = 0), highlight (none, rank:N, chunk:N,
 * transfer:N), view (chunk, slice), slices (1..16), channels (1..4), ring (the ring plans'
 * order, "0,3,1,2", or "none"), counts (all_to_all's per-pair
 * counts "1,2;0,3", row r = what rank r sends to each rank; it sets ranks to the number of
 * rows; "none" = uniform). A collective
 * given without an algorithm that it lacks gets its default algorithm. On error *s is
 * unchanged and err names the bad word: "scene: ..." for a word that does not parse or a
 * key given twice, the scene_check message for a combination that does not hold. */
int scene_parse(struct scene *s, const char *text, char *err, size_t errlen);

/* Check the combination: algorithm supported by the collective, root < ranks, count >= 0 and
 * small enough to show; on the parallelism screen 2..SCENE_PAR_MAX_RANKS ranks and a
 * parallel scheme. CV_OK, or CV_EINVAL / CV_EUNSUPPORTED with a message. */
int scene_check(const struct scene *s, char *err, size_t errlen);

/* Write every field as "key=value" words; scene_parse of the result gives back *s. The
 * parallelism fields are written on that screen or when they differ from the defaults. */
void scene_format(const struct scene *s, char *buf, size_t n);

/* The count the screen uses: s->count, or the lecture's default when 0; with counts=, the
 * all-to-all-v plan's padded block (W*count holds every rank's row and column). */
size_t scene_count(const struct scene *s);

/* The scene's plan: plan_build, or plan_build_a2av with the scene's counts. */
struct plan;
int scene_plan_build(const struct scene *s, struct plan *p, size_t count, int root, char *err,
                     size_t errlen);

#define SCENE_MAX_COUNT 64 /* display scale: every number must stay readable */
#define SCENE_MAX_SLICES 16
#define SCENE_MAX_CHANNELS 4
#define SCENE_DEFAULT_SLICES 2
#define SCENE_PAR_MIN_RANKS 2
#define SCENE_PAR_MAX_RANKS 4            /* the parallelism screen's display scale */
#define SCENE_MEAS_MIN ((size_t)4 << 10) /* measurement size bounds */
#define SCENE_MEAS_MAX ((size_t)16 << 30)
#define SCENE_MEAS_DEFAULT ((size_t)64 << 20)
#define SCENE_AUTOPLAY_MAX 60.0 /* seconds per step */

const char *highlight_kind_name(enum highlight_kind k); /* "none", "rank", "chunk", ... */

#endif
