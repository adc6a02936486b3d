/* timeline.h - the per-rank record of what a training step really did: compute, send,
 * recv, collective and idle events with monotonic timestamps, and the bytes each one
 * moved. The UI draws it as a Gantt chart; the tests check it (no overlap within a lane,
 * every send before its matching recv ends); the pipeline bubble is measured from it.
 *
 * Lanes: lane 0 is the rank's own thread (its compute stream); lane 1 is the rank's
 * communication helper thread, used when DDP overlaps gradient all-reduces with the
 * backward pass (as a GPU would use a second stream). Events never overlap within a lane.
 *
 * Each (rank, lane) is appended to by exactly one thread, so recording takes no lock. */
#ifndef COLLVIZ_CORE_TIMELINE_H
#define COLLVIZ_CORE_TIMELINE_H

#include <stddef.h>

#define TL_LANES 2

enum tl_kind { TL_COMPUTE, TL_SEND, TL_RECV, TL_COLLECTIVE, TL_IDLE, TL_KIND_COUNT };

struct tl_event {
    int step; /* training step, 0-based */
    int rank;
    int lane; /* 0 = the rank's thread, 1 = its communication helper */
    enum tl_kind kind;
    int peer; /* send/recv: the other rank; otherwise -1 */
    int mb;   /* pipeline micro-batch, or -1 */
    int tag;  /* send/recv: the message tag that pairs a send with its recv; otherwise -1 */
    double t0, t1; /* seconds from the step's start (absolute while recording) */
    size_t bytes;  /* bytes this rank sent (send, collective) or received (recv) */
    char label[32];
};

struct tl_lane {
    struct tl_event *ev;
    size_t n, cap;
};

struct timeline {
    int nranks;
    int nsteps;
    struct tl_lane *lanes; /* [nranks][TL_LANES] */
    double *step_start;    /* [nsteps][nranks]: each rank's clock when the step began */
};

const char *tl_kind_name(enum tl_kind k); /* "compute", "send", ... */

void timeline_init(struct timeline *tl, int nranks, int nsteps);
void timeline_free(struct timeline *tl);

/* Append an event (absolute times from now_s()); returns it so the caller can fill more. */
struct tl_event *timeline_add(struct timeline *tl, int step, int rank, int lane,
                              enum tl_kind kind, const char *label, double t0, double t1);

/* A point-to-point message on lane 0, as every communicator records one: when the rank
 * had to wait first (wait_label non-NULL), an idle event [t_wait, t0) with that label
 * ("": "wait <label>"; for a receive also the peer and tag it waited for), then the TL_SEND or
 * TL_RECV event [t0, t1) of `bytes` with its peer and tag. */
void timeline_add_p2p(struct timeline *tl, int step, int rank, enum tl_kind kind,
                      const char *label, int peer, int tag, size_t bytes,
                      const char *wait_label, double t_wait, double t0, double t1);

/* Flatten into one array sorted by (step, rank, lane, t0), with times made relative to
 * each step's start (the earliest rank's step_start). Caller frees. */
struct tl_event *timeline_flatten(const struct timeline *tl, size_t *n);

#endif
