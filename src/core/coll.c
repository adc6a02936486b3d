/* coll.c - the collectives' names, count semantics, working-buffer layout and nccl-tests'
 * byte accounting. Everything the plans, the backends and the screens need to agree on
 * about "what a collective is" lives here, as tables indexed by enum coll. */
#include "coll.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *const coll_names[COLL_COUNT] = {
    [COLL_BROADCAST] = "broadcast",   [COLL_SCATTER] = "scatter",
    [COLL_GATHER] = "gather",         [COLL_REDUCE] = "reduce",
    [COLL_ALL_GATHER] = "all_gather", [COLL_REDUCE_SCATTER] = "reduce_scatter",
    [COLL_ALL_REDUCE] = "all_reduce", [COLL_ALL_TO_ALL] = "all_to_all",
};

static const char *const coll_titles[COLL_COUNT] = {
    [COLL_BROADCAST] = "broadcast",   [COLL_SCATTER] = "scatter",
    [COLL_GATHER] = "gather",         [COLL_REDUCE] = "reduce",
    [COLL_ALL_GATHER] = "all-gather", [COLL_REDUCE_SCATTER] = "reduce-scatter",
    [COLL_ALL_REDUCE] = "all-reduce", [COLL_ALL_TO_ALL] = "all-to-all",
};

static const char *const redop_names[OP_COUNT] = {
    [OP_SUM] = "sum", [OP_PROD] = "prod", [OP_MIN] = "min", [OP_MAX] = "max", [OP_AVG] = "avg",
};

static const char *const algo_names[ALGO_COUNT] = {
    [ALGO_RING] = "ring",
    [ALGO_TREE] = "tree",
    [ALGO_DIRECT] = "direct",
    [ALGO_OWNER] = "owner",
};

/* Which algorithms each collective has (see plan.c). NCCL itself uses rings (chains) for
 * broadcast and reduce and trees only for all-reduce; tree broadcast/reduce are here
 * because they are the textbook alternative worth showing. */
static const bool algo_table[COLL_COUNT][ALGO_COUNT] = {
    [COLL_BROADCAST] = {[ALGO_RING] = true, [ALGO_TREE] = true, [ALGO_DIRECT] = true},
    [COLL_SCATTER] = {[ALGO_DIRECT] = true},
    [COLL_GATHER] = {[ALGO_DIRECT] = true},
    [COLL_REDUCE] = {[ALGO_RING] = true, [ALGO_TREE] = true, [ALGO_DIRECT] = true},
    [COLL_ALL_GATHER] = {[ALGO_RING] = true, [ALGO_DIRECT] = true},
    [COLL_REDUCE_SCATTER] = {[ALGO_RING] = true, [ALGO_DIRECT] = true},
    [COLL_ALL_REDUCE] =
        {[ALGO_RING] = true, [ALGO_TREE] = true, [ALGO_DIRECT] = true, [ALGO_OWNER] = true},
    [COLL_ALL_TO_ALL] = {[ALGO_DIRECT] = true},
};

const char *coll_name(enum coll c)
{
    return (unsigned)c < COLL_COUNT ? coll_names[c] : "?";
}

const char *coll_title(enum coll c)
{
    return (unsigned)c < COLL_COUNT ? coll_titles[c] : "?";
}

/* Compare ignoring case and the separators '_' and '-', so "All-Reduce", "all_reduce"
 * and "allreduce" are one name. */
static bool coll_loose_equal(const char *a, const char *b)
{
    for (;;) {
        while (*a == '_' || *a == '-')
            a++;
        while (*b == '_' || *b == '-')
            b++;
        if (!*a || !*b) return !*a && !*b;
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
        a++;
        b++;
    }
}

int coll_parse(const char *s, enum coll *out)
{
    if (!s || !*s) return -1;
    for (int c = 0; c < COLL_COUNT; c++) {
        if (coll_loose_equal(s, coll_names[c])) {
            *out = (enum coll)c;
            return 0;
        }
    }
    return -1;
}

const char *redop_name(enum redop op)
{
    return (unsigned)op < OP_COUNT ? redop_names[op] : "?";
}

/* Index of s in names[0..n) ignoring case, or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
    if (!s) return -1;
    for (int i = 0; i < n; i++)
        if (strcasecmp(s, names[i]) == 0) return i;
    return -1;
}

int redop_parse(const char *s, enum redop *out)
{
    int i = name_index(redop_names, OP_COUNT, s);
    if (i < 0) return -1;
    *out = (enum redop)i;
    return 0;
}

const char *algo_name(enum algo a)
{
    return (unsigned)a < ALGO_COUNT ? algo_names[a] : "?";
}

int algo_parse(const char *s, enum algo *out)
{
    int i = name_index(algo_names, ALGO_COUNT, s);
    if (i < 0) return -1;
    *out = (enum algo)i;
    return 0;
}

bool coll_is_rooted(enum coll c)
{
    return c == COLL_BROADCAST || c == COLL_SCATTER || c == COLL_GATHER || c == COLL_REDUCE;
}

bool coll_reduces(enum coll c)
{
    return c == COLL_REDUCE || c == COLL_REDUCE_SCATTER || c == COLL_ALL_REDUCE;
}

size_t coll_send_count(enum coll c, int nranks, size_t count, int rank, int root)
{
    size_t w = (size_t)nranks;
    switch (c) {
    case COLL_BROADCAST:
        return rank == root ? count : 0;
    case COLL_SCATTER:
        return rank == root ? w * count : 0;
    case COLL_GATHER:
        return count;
    case COLL_REDUCE:
        return count;
    case COLL_ALL_GATHER:
        return count;
    case COLL_REDUCE_SCATTER:
        return w * count;
    case COLL_ALL_REDUCE:
        return count;
    case COLL_ALL_TO_ALL:
        return w * count;
    case COLL_COUNT:
        break;
    }
    return 0;
}

size_t coll_recv_count(enum coll c, int nranks, size_t count, int rank, int root)
{
    size_t w = (size_t)nranks;
    switch (c) {
    case COLL_BROADCAST:
        return count;
    case COLL_SCATTER:
        return count;
    case COLL_GATHER:
        return rank == root ? w * count : 0;
    case COLL_REDUCE:
        return rank == root ? count : 0;
    case COLL_ALL_GATHER:
        return w * count;
    case COLL_REDUCE_SCATTER:
        return count;
    case COLL_ALL_REDUCE:
        return count;
    case COLL_ALL_TO_ALL:
        return w * count;
    case COLL_COUNT:
        break;
    }
    return 0;
}

size_t coll_work_len(enum coll c, int nranks, size_t count)
{
    size_t w = (size_t)nranks;
    switch (c) {
    case COLL_BROADCAST:
    case COLL_REDUCE:
    case COLL_ALL_REDUCE:
        return count;
    case COLL_SCATTER:
    case COLL_GATHER:
    case COLL_ALL_GATHER:
    case COLL_REDUCE_SCATTER:
        return w * count;
    case COLL_ALL_TO_ALL:
        return 2 * w * count;
    case COLL_COUNT:
        break;
    }
    return 0;
}

size_t coll_in_off(enum coll c, int nranks, size_t count, int rank)
{
    (void)nranks;
    switch (c) {
    case COLL_GATHER:
    case COLL_ALL_GATHER:
        return (size_t)rank * count;
    default:
        return 0;
    }
}

size_t coll_out_off(enum coll c, int nranks, size_t count, int rank)
{
    switch (c) {
    case COLL_SCATTER:
    case COLL_REDUCE_SCATTER:
        return (size_t)rank * count;
    case COLL_ALL_TO_ALL:
        return (size_t)nranks * count;
    default:
        return 0;
    }
}

/* S, the bytes of the operation, as nccl-tests reports it in its "size" column
 * (doc/PERFORMANCE.md): the size of the largest of the send and receive buffers of one
 * rank. all_reduce, broadcast, reduce: count elements. all_gather and reduce_scatter: the
 * W*count-element side (received resp. sent). all_to_all, gather, scatter: W*count too. */
size_t coll_bytes(enum coll c, int nranks, size_t count, size_t elsize)
{
    size_t w = (size_t)nranks;
    switch (c) {
    case COLL_ALL_REDUCE:
    case COLL_BROADCAST:
    case COLL_REDUCE:
        return count * elsize;
    case COLL_ALL_GATHER:
    case COLL_REDUCE_SCATTER:
    case COLL_ALL_TO_ALL:
    case COLL_GATHER:
    case COLL_SCATTER:
        return count * elsize * w;
    case COLL_COUNT:
        break;
    }
    return 0;
}

size_t coll_count_for_bytes(enum coll c, int nranks, size_t bytes, size_t elsize)
{
    if (elsize == 0 || nranks < 1) return 0;
    switch (c) {
    case COLL_ALL_REDUCE:
    case COLL_BROADCAST:
    case COLL_REDUCE:
        return bytes / elsize;
    default:
        return bytes / elsize / (size_t)nranks;
    }
}

/* The busbw factor turns algbw = S/t into a figure comparable with one link's bandwidth
 * B, whatever the algorithm (nccl-tests doc/PERFORMANCE.md):
 *   all_reduce: each rank has to receive the other ranks' contributions to its 1/n of the
 *     result ((n-1)/n of S) and then the other n-1 finished pieces ((n-1)/n of S again), so
 *     at best t = 2(n-1)/n * S/B, and busbw = algbw * 2(n-1)/n;
 *   all_gather, reduce_scatter: only one of those two halves, (n-1)/n * S per rank;
 *   all_to_all, gather, scatter: every rank (or the root) exchanges (n-1)/n of S with
 *     others, its own block stays local: (n-1)/n;
 *   broadcast, reduce: with a pipelined chain every link carries the whole S once, so
 *     t = S/B and the factor is 1.
 * With one rank nothing crosses a link: the (n-1) factors give 0. */
double coll_busbw_factor(enum coll c, int nranks)
{
    double n = nranks;
    if (nranks < 1) return 0.0;
    switch (c) {
    case COLL_ALL_REDUCE:
        return 2.0 * (n - 1.0) / n;
    case COLL_ALL_GATHER:
    case COLL_REDUCE_SCATTER:
    case COLL_ALL_TO_ALL:
    case COLL_GATHER:
    case COLL_SCATTER:
        return (n - 1.0) / n;
    case COLL_BROADCAST:
    case COLL_REDUCE:
        return 1.0;
    case COLL_COUNT:
        break;
    }
    return 0.0;
}

/* The lecture's demo at W=4: broadcast and all-reduce of a 4-element vector, one element
 * per rank (piece) for everything else. */
size_t coll_default_count(enum coll c, int nranks)
{
    if (c == COLL_BROADCAST || c == COLL_ALL_REDUCE) return nranks > 0 ? (size_t)nranks : 1;
    return 1;
}

bool algo_supported(enum coll c, enum algo a)
{
    if ((unsigned)c >= COLL_COUNT || (unsigned)a >= ALGO_COUNT) return false;
    return algo_table[c][a];
}

enum algo coll_default_algo(enum coll c)
{
    return algo_supported(c, ALGO_RING) ? ALGO_RING : ALGO_DIRECT;
}
