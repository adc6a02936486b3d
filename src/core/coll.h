/* coll.h - the eight collectives, the reduction ops and the algorithms: names, count
 * semantics, buffer layout and nccl-tests' byte accounting. Pure C, no I/O.
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

enum coll {
    COLL_BROADCAST,
    COLL_SCATTER,
    COLL_GATHER,
    COLL_REDUCE,
    COLL_ALL_GATHER,
    COLL_REDUCE_SCATTER,
    COLL_ALL_REDUCE,
    COLL_ALL_TO_ALL,
    COLL_COUNT
};

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
    struct coll_side send, recv;
    unsigned work_w;
    enum coll_off in_off, out_off;
    /* The layout in words, after its numbers (coll_layout_text): who sends and receives
     * which slots ("the root sends all of it, rank r receives slot r"). */
    const char *layout;
    bool demo_per_rank; /* the lecture's demo count is W (one element per rank), not 1 */
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
