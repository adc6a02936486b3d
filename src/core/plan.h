/* plan.h - an algorithm is a plan: an ordered list of steps, each a set of transfers.
 *
 * The same plan is animated by the UI (through trace.h) and executed by the CPU backend
 * (through exec.h), so what is drawn is what runs. Offsets are element offsets into the
 * ranks' working buffers (see coll.h).
 *
 * Execution rule (what makes a plan safe to run with one thread per rank): within a step,
 * no transfer reads a range that a transfer of another destination writes in that same
 * step, and no two transfers run by different ranks touch the same range (one writing it).
 * Unit tests check this for every plan. A transfer is run by the rank in x.by: its
 * destination (the rank pulls), except in the owner all-reduce, where rank r runs every
 * transfer of chunk r, including the writes into the other ranks' buffers (it pushes), and
 * in the gather, where every rank pushes its own piece into the root's buffer.
 *
 * Two ways to run a plan give the same result. Step by step (the trace executor): every
 * transfer of step s reads what the other ranks held after step s-1. By dependencies (the
 * CPU backend, plan_refine below): every transfer waits only for the transfers of other
 * ranks that wrote what it reads, or read or wrote what it overwrites - no barrier between
 * steps. */
#ifndef COLLVIZ_CORE_PLAN_H
#define COLLVIZ_CORE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/coll.h"

enum xfer_kind {
    XFER_COPY,   /* dst[i] = src[i] */
    XFER_REDUCE, /* dst[i] = dst[i] op src[i]  (op = plan op; AVG reduces with SUM) */
    XFER_SCALE,  /* local, src == dst: dst[i] = dst[i] / nranks  (the AVG epilogue) */
};

struct xfer {
    int src, dst;
    size_t src_off, dst_off, count;
    enum xfer_kind kind;
    int chunk; /* chunk label for display (ring chunk number), or -1 */
    int by;    /* the rank that runs it: dst, except in the owner all-reduce and gather */
    /* Filled by plan_refine (0 in a plan straight from plan_build): */
    int slice, channel; /* which slice of which channel this piece is */
    int tick;           /* slice view (a model): the time step it is on its link */
    size_t seq;         /* its place in rank `by`'s execution order */
};

struct step {
    size_t first, n; /* transfers plan->x[first .. first+n) */
    char phase[40];  /* "reduce-scatter 2/3", "broadcast", "average" */
    char what[200];  /* one sentence saying what this step does, for the screen */
    /* Its transfers may be run by any rank (the direct reduce, where one root would do all
     * the work on one core): plan_refine gives piece j (channel c, slice k: j = c * slices
     * + k) of every transfer in the step to rank j mod W, so all of one piece's reductions
     * into one range stay with one rank and fold in one pass. */
    bool shared;
};

struct plan {
    enum coll coll;
    enum algo algo;
    enum redop op;
    int nranks;
    size_t count;
    int root;
    size_t work_len; /* == coll_work_len(coll, nranks, count) */
    struct step *steps;
    size_t nsteps;
    struct xfer *x;
    size_t nx;
    char summary[256]; /* "ring: reduce-scatter (3 steps) then all-gather (3 steps); chunk c
                          starts on rank c+1" */
    /* The ring order the ring plans follow: position i of the ring is rank ring[i], and each
     * rank sends to the rank after it (0, 1, ..., W-1 unless plan_build_ring gave another,
     * e.g. NCCL's "0 3 1 2 4 7 5 6" from its INFO log). */
    int ring[CV_MAX_RANKS];
    /* Filled by plan_refine (1, 1, 0 and NULL in a plan straight from plan_build): */
    int nslices, nchannels;
    int nticks;        /* slice view: ticks from the first slice sent to the last received */
    size_t *dep_first; /* nx + 1 entries: x[i] depends on dep[dep_first[i] .. dep_first[i+1]) */
    size_t *dep;       /* transfer indices, each earlier in plan order, one per rank at most */
    size_t *order;     /* nx entries: every transfer in execution order (a topological order
                          of the dependencies; rank r runs the ones with by == r in it) */
    /* all-to-all-v (plan_build_a2av; NULL in every other plan): nranks*nranks counts,
     * vcounts[s*nranks + d] = elements rank s sends to rank d. Owned by the plan. */
    size_t *vcounts;
};

/* Whether core/plan.c's table has a builder for c (every collective must). */
bool plan_has_builder(enum coll c);

/* Build the plan. nranks in 1..CV_MAX_RANKS, count >= 1, root in 0..nranks-1 (ignored for
 * unrooted collectives). An unsupported (collective, algorithm) pair is CV_EUNSUPPORTED
 * with a message naming the algorithms that do exist. Transfers of count 0 are omitted;
 * a plan may have zero steps (W = 1). */
int plan_build(struct plan *p, enum coll c, enum algo a, enum redop op, int nranks,
               size_t count, int root, char *err, size_t errlen);
void plan_free(struct plan *p);

/* The last step (1..nsteps) of each of the plan's phases, in order, into out[max]: a phase
 * is a run of steps whose labels differ only in their "k/n" count ("reduce-scatter 1/3" ..
 * "reduce-scatter 3/3", then "all-gather ..."), so the last entry is nsteps. Returns how
 * many (0 for a plan without steps). The presenter's clicker stops there by default. */
size_t plan_phase_ends(const struct plan *p, long *out, size_t max);

/* plan_build with the ring in the order `ring` (nranks entries, a permutation of
 * 0..nranks-1; NULL: 0, 1, ..., W-1): the ring all-reduce, reduce-scatter and all-gather
 * send each chunk to the next rank in that order, and the ring broadcast and reduce chains
 * run along it from (to) the root. Chunk c is still rank c's piece, so every collective's
 * result is the same; only who sends what to whom changes. Other algorithms ignore it. A
 * ring that is not a permutation is CV_EINVAL with a message naming the bad rank. */
int plan_build_ring(struct plan *p, enum coll c, enum algo a, enum redop op, int nranks,
                    size_t count, int root, const int *ring, char *err, size_t errlen);

/* Read a ring order, "0 7 6 5 4 3 2 1" (ranks separated by spaces or commas), into
 * ring[CV_MAX_RANKS] and *n; CV_EINVAL with a message naming the bad word, a repeated rank
 * or more than CV_MAX_RANKS ranks. Whether it fits a communicator is plan_build_ring's. */
int plan_parse_ring(const char *s, int *ring, int *n, char *err, size_t errlen);

/* all-to-all with per-pair counts (all-to-all-v, MPI_Alltoallv; mixture of experts'
 * dispatch): counts[s*nranks + d] elements go from rank s to rank d. The plan is an
 * all_to_all (direct) whose `count` n is the smallest with W*n >= every row sum and every
 * column sum (at least 1), so the usual working buffer [send W*n | recv W*n] holds it:
 * rank s's send half packs its blocks in destination order (block d at the sum of
 * counts[s][0..d)), its receive half packs what arrives in source order (block from q at
 * W*n + the sum of counts[0..q)[s]); the rest of each half is padding (zeros) that nothing
 * moves. The exchange is pairwise as in the uniform plan: at step k rank s sends its block
 * for (s+k) mod W. Counts above PLAN_MAX_A2AV_COUNT are CV_EINVAL. */
#define PLAN_MAX_A2AV_COUNT ((size_t)1 << 20)
int plan_build_a2av(struct plan *p, int nranks, const size_t *counts, char *err, size_t errlen);
/* What rank r sends (its row sum) and receives (its column sum) in an all-to-all-v plan;
 * coll_send_count / coll_recv_count (W*count) for any other plan. */
size_t plan_send_count(const struct plan *p, int r);
size_t plan_recv_count(const struct plan *p, int r);
/* Read a count matrix "a,b,c;d,e,f;g,h,i" (rows separated by ';', values by ',', spaces
 * allowed; row r = what rank r sends to each rank) into counts[CV_MAX_RANKS^2] (row-major,
 * *nranks by *nranks). CV_EINVAL with a one-line message naming the bad value, a row of the
 * wrong length, or more than CV_MAX_RANKS rows. */
int plan_parse_counts(const char *s, size_t *counts, int *nranks, char *err, size_t errlen);

/* Refine a plan into slices and channels. Every transfer's elements are split into
 * `channels` parts (independent rings or trees, one per channel) and each part into `slices`
 * slice transfers; empty pieces (count < channels * slices) are left out. A step keeps its
 * transfers, now in (channel, slice, original order). Then every transfer gets its
 * dependencies (for each rank, the last earlier transfer run by that rank that wrote what it
 * reads, or read or wrote what it writes), an execution order that runs the slices
 * depth-first (slice 0 through every step, then slice 1, ... as far as the dependencies let
 * it: while a slice's data is still in cache), and a tick for the slice view: a model in
 * which each link carries one slice per tick and a slice leaves as soon as what it needs
 * has arrived. slices = channels = 1 gives the same transfers with their dependencies.
 * In a shared step (struct step) piece j of every transfer is run by rank j mod W.
 * `out` is a new plan (plan_free it); `in` is not changed. The result of the refined plan,
 * run either way, is bit for bit the result of `in`: every element sees the same
 * operations in the same order. Refuses (CV_EINVAL) slices or channels outside
 * 1..PLAN_MAX_SLICES or more than PLAN_MAX_XFERS transfers. */
#define PLAN_MAX_SLICES 65536
#define PLAN_MAX_XFERS ((size_t)1 << 20)
int plan_refine(const struct plan *in, int slices, int channels, struct plan *out, char *err,
                size_t errlen);

/* Element range [start, end) of chunk k when n elements are split into `parts` balanced
 * chunks (sizes differ by at most one; some are empty when n < parts). */
void chunk_range(size_t n, int parts, int k, size_t *start, size_t *end);

/* The fewest pieces (slices x channels) p should be refined into for its work to be spread
 * over its ranks: nranks when it has a shared step and each rank's share would be at least
 * PLAN_SHARE_MIN_COUNT elements, else 1. Below that, waking every rank costs more than the
 * share saves (reduce, direct, 4 ranks on 2 cores: 4.9 -> 3.9 ms at 16 MiB, but
 * 18 -> 34 us at 4 KiB). */
#define PLAN_SHARE_MIN_COUNT ((size_t)64 << 10)

/* The default number of slices (a backend's, a communicator's): p's largest transfer cut
 * into pieces of about slice_bytes (0: whole chunks), within PLAN_AUTO_MAX_XFERS transfers
 * in all, and at least `least` (plan_min_pieces where the ranks share one memory, else 1). */
#define PLAN_AUTO_MAX_XFERS ((size_t)1 << 17)
int plan_auto_slices(const struct plan *p, size_t slice_bytes, int least);
int plan_min_pieces(const struct plan *p);

#endif
