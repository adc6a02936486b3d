/* coll.h - the collectives (COLL_LIST, a line each), the reduction ops and the algorithms:
 * names, count semantics, buffer layout and nccl-tests' byte accounting. Pure C, no I/O.
 *
 * `count` always means what NCCL's API count argument means for that collective:
 *   broadcast, reduce, all_reduce:  elements of the (whole) buffer;
 *   all_gather:                     elements each rank sends (receives W*count);
 *   reduce_scatter:                 elements each rank receives (sends W*count);
 *   scatter, gather:                elements per rank (the root holds W*count);
 *   all_to_all:                     elements sent to each peer (W*count in, W*count out).
 *
 * The working buffer. Every rank owns one array of coll_work_len() floats. Its send buffer
 * is copied in at coll_in_off() before the first step, the plan's transfers move data
 * between working buffers, and its receive buffer is read back at coll_out_off(). This
 * mirrors NCCL's in-place conventions (recvbuff = sendbuff + rank*count for reduce_scatter
 * and scatter, sendbuff = recvbuff + rank*count for all_gather and gather); all_to_all
 * cannot run in place, so its working buffer is [send W*count | recv W*count]. */
#ifndef COLLVIZ_CORE_COLL_H
#define COLLVIZ_CORE_COLL_H

#include <stdbool.h>
#include <stddef.h>

#define CV_MAX_RANKS 16

/* Where element j of a rank's receive buffer comes from, when every rank's send buffer holds
 * a known pattern (core/init.c's reference, core/pattern_formula.h's expected result): the
 * root's send buffer (COLL_FROM_ROOT), the reduction over every rank's (COLL_FROM_REDUCED)
 * or rank j/count's, at j % count (COLL_FROM_BLOCK: block q of the result came from rank
 * q); `slot` adds rank*count to the index read (the rank's own slot of the input). */
enum coll_from { COLL_FROM_ROOT, COLL_FROM_REDUCED, COLL_FROM_BLOCK };

/* The collectives, one line each, in the order screens and tables list them:
 *   X(ID, recv_root_only, recv_times_w, from, slot)
 * ID makes COLL_<ID>; the rest is what device code needs as constants (it reads no
 * table): the receive buffer's size (struct coll_side) and where its elements come from
 * (enum coll_from). Everything else about a collective is its row in core/coll.c (its
 * name, which tests/unit/test_coll.c requires of every ID here) and its plans in
 * core/plan.c: docs/architecture.md, "Adding a collective". */
#define COLL_LIST(X)                                                                           \
    X(BROADCAST, 0, 0, COLL_FROM_ROOT, 0)                                                      \
    X(SCATTER, 0, 0, COLL_FROM_ROOT, 1)                                                        \
    X(GATHER, 1, 1, COLL_FROM_BLOCK, 0)                                                        \
    X(REDUCE, 1, 0, COLL_FROM_REDUCED, 0)                                                      \
    X(ALL_GATHER, 0, 1, COLL_FROM_BLOCK, 0)                                                    \
    X(REDUCE_SCATTER, 0, 0, COLL_FROM_REDUCED, 1)                                              \
    X(ALL_REDUCE, 0, 0, COLL_FROM_REDUCED, 0)                                                  \
    X(ALL_TO_ALL, 0, 1, COLL_FROM_BLOCK, 1)

#define COLL_ENUM_ITEM(id, rro, rtw, from, slot) COLL_##id,
enum coll { COLL_LIST(COLL_ENUM_ITEM) COLL_COUNT };
#undef COLL_ENUM_ITEM

enum redop { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_AVG, OP_COUNT };

/* ALGO_OWNER (all-reduce only): rank r alone handles chunk r - it reduces chunk r from
 * every rank and writes the result straight back into chunk r of every rank, so each
 * buffer is read once and written once (the least memory traffic an all-reduce can have
 * on ranks that share one memory). */
enum algo { ALGO_RING, ALGO_TREE, ALGO_DIRECT, ALGO_OWNER, ALGO_COUNT };

/* How the API count turns into S, nccl-tests' size: the whole buffer (broadcast, reduce,
 * all_reduce: S = count elements) or one rank's block of W (the others: S = W*count). */
enum coll_count_kind { COLL_COUNT_WHOLE, COLL_COUNT_PER_RANK };

/* Where a rank's send buffer goes in its working buffer, or its receive buffer is read:
 * at 0, at slot `rank` (rank*count), or at the second half (W*count, all_to_all's). */
enum coll_off { COLL_OFF_ZERO, COLL_OFF_SLOT, COLL_OFF_HALF };

/* One rank's send or receive buffer: count elements, or W*count (times_w); on the root
 * alone (root_only: the others have none). */
struct coll_side {
    bool root_only;
    bool times_w;
};

/* Everything that says what one collective is, in one table entry per collective (the
 * habit of nccl-tests' struct testColl): names, root, reduction, count semantics and the
 * busbw factor with its text and its derivation. Every other module asks here. */
struct coll_info {
    const char *name;  /* "all_reduce" (nccl-tests / CLI spelling) */
    const char *title; /* "all-reduce" (the lecture's spelling, for screens) */
    bool rooted;       /* broadcast, scatter, gather, reduce */
    bool reduces;      /* reduce, reduce_scatter, all_reduce */
    enum coll_count_kind count_kind;
    const char *count_text; /* what NCCL's count argument counts */
    /* busbw = algbw * busbw_mult * ((W-1)/W when busbw_share, else 1). */
    double busbw_mult;
    bool busbw_share;
    const char *busbw_text; /* the factor as written: "2(W-1)/W", "(W-1)/W", "1" */
    const char *busbw_why;  /* its derivation, one sentence */
    /* The buffers and the working buffer (the header's comment): send and receive sizes,
     * the working buffer's length in W*count blocks (0: count elements, used in place;
     * 1: W slots of count; 2: all_to_all's send half | receive half), where the send
     * buffer goes in and the receive buffer comes out. */
    struct coll_side send; /* (the receive side is the COLL_LIST line's) */
    unsigned work_w;
    enum coll_off in_off, out_off;
    /* The layout in words, after its numbers (coll_layout_text): who sends and receives
     * which slots ("the root sends all of it, rank r receives slot r"). */
    const char *layout;
    bool demo_per_rank; /* the lecture's demo count is W (one element per rank), not 1 */
    const char *perf;   /* nccl-tests' program for it: "all_reduce_perf" */
    /* The algorithms it has (its builder in core/plan.c's table makes each). NCCL itself
     * uses rings (chains) for broadcast and reduce and trees only for all-reduce; tree
     * broadcast/reduce are here because they are the textbook alternative worth showing. */
    bool algos[ALGO_COUNT];
};

/* The entry of c; NULL when c is not a collective. */
const struct coll_info *coll_info(enum coll c);

const char *coll_name(enum coll c);  /* "all_reduce" (nccl-tests / CLI spelling) */
const char *coll_title(enum coll c); /* "all-reduce" (the lecture's spelling, for screens) */
/* Accepts exactly "all_reduce", "all-reduce" or "allreduce" (lower case): 0, else -1. */
int coll_parse(const char *s, enum coll *out);

const char *redop_name(enum redop op); /* "sum" */
int redop_parse(const char *s, enum redop *out);

const char *algo_name(enum algo a); /* "ring" */
int algo_parse(const char *s, enum algo *out);

/* The receive side of c (its COLL_LIST line) and where its elements come from. */
struct coll_side coll_recv_side(enum coll c);
enum coll_from coll_source(enum coll c, bool *slot);
/* Whether c can run in place (send and receive buffers overlap in the working buffer):
 * all but all_to_all, whose working buffer is send half | receive half. */
bool coll_in_place(enum coll c);

bool coll_is_rooted(enum coll c); /* broadcast, scatter, gather, reduce */
bool coll_reduces(enum coll c);   /* reduce, reduce_scatter, all_reduce */

size_t coll_send_count(enum coll c, int nranks, size_t count, int rank, int root);
size_t coll_recv_count(enum coll c, int nranks, size_t count, int rank, int root);
size_t coll_work_len(enum coll c, int nranks, size_t count);
size_t coll_in_off(enum coll c, int nranks, size_t count, int rank);
size_t coll_out_off(enum coll c, int nranks, size_t count, int rank);

/* nccl-tests accounting (doc/PERFORMANCE.md): S, the bytes of the operation, and the
 * busbw factor. See coll.c for the derivations. */
size_t coll_bytes(enum coll c, int nranks, size_t count, size_t elsize);
/* Inverse of coll_bytes: the API count for a measurement of `bytes` (rounded down, >= 0). */
size_t coll_count_for_bytes(enum coll c, int nranks, size_t bytes, size_t elsize);
double coll_busbw_factor(enum coll c, int nranks);
/* The ring model's bytes one rank sends (and receives) in c: S times the busbw factor,
 * in whole bytes (2(W-1)/W * S for all_reduce, (W-1)/W * S for all_gather). */
size_t coll_wire_bytes(enum coll c, int nranks, size_t count, size_t elsize);

/* The working buffer's layout as `collviz trace` writes it after "working buffer: L
 * elements per rank": ", used in place (send = receive buffer)", " = 4 slots of 2; the
 * root sends all of it, rank r receives slot r", ... */
void coll_layout_text(enum coll c, int nranks, size_t count, char *buf, size_t n);
/* The count the lecture's demo uses at this world size (display scale). */
size_t coll_default_count(enum coll c, int nranks);

bool algo_supported(enum coll c, enum algo a);
/* The algorithm a screen shows first: ring where it exists, otherwise direct. */
enum algo coll_default_algo(enum coll c);

#endif
