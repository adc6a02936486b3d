/* coll.c - the collectives' names, count semantics, working-buffer layout and nccl-tests'
 * byte accounting. Everything the plans, the backends and the screens need to agree on
 * about "what a collective is" lives here, as tables indexed by enum coll. */
#include "core/coll.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The busbw factors turn algbw = S/t into a figure comparable with one link's bandwidth
 * B, whatever the algorithm (nccl-tests doc/PERFORMANCE.md); the derivations are the
 * busbw_why lines below. With one rank nothing crosses a link: the (W-1) factors give 0. */
static const struct coll_info coll_table[COLL_COUNT] = {
    [COLL_BROADCAST] =
        {"broadcast", "broadcast", true, false, COLL_COUNT_WHOLE, "elements of the buffer", 1.0,
         false, "1", "with a pipelined chain every link carries the whole S once: t = S/B",
         .send = {true, false}, .work_w = 0, .in_off = COLL_OFF_ZERO, .out_off = COLL_OFF_ZERO,
         .layout = "", .demo_per_rank = true, .perf = "broadcast_perf",
         .algos = {[ALGO_RING] = true, [ALGO_TREE] = true, [ALGO_DIRECT] = true}},
    [COLL_SCATTER] = {"scatter", "scatter", true, false, COLL_COUNT_PER_RANK,
                      "elements per rank (the root sends W*count)", 1.0, true, "(W-1)/W",
                      "the root sends (W-1)/W of S to the others, its own block stays",
                      .send = {true, true}, .work_w = 1, .in_off = COLL_OFF_ZERO,
                      .out_off = COLL_OFF_SLOT,
                      .layout = "the root sends all of it, rank r receives slot r",
                      .demo_per_rank = false, .perf = "scatter_perf",
                      .algos = {[ALGO_DIRECT] = true}},
    [COLL_GATHER] = {"gather", "gather", true, false, COLL_COUNT_PER_RANK,
                     "elements per rank (the root receives W*count)", 1.0, true, "(W-1)/W",
                     "the root receives (W-1)/W of S from the others, its own block stays",
                     .send = {false, false}, .work_w = 1, .in_off = COLL_OFF_SLOT,
                     .out_off = COLL_OFF_ZERO,
                     .layout = "rank r sends slot r, the root receives all of it",
                     .demo_per_rank = false, .perf = "gather_perf",
                     .algos = {[ALGO_DIRECT] = true}},
    [COLL_REDUCE] = {"reduce", "reduce", true, true, COLL_COUNT_WHOLE, "elements of the buffer",
                     1.0, false, "1",
                     "with a pipelined chain every link carries the whole S once: t = S/B",
                     .send = {false, false}, .work_w = 0, .in_off = COLL_OFF_ZERO,
                     .out_off = COLL_OFF_ZERO, .layout = "", .demo_per_rank = false,
                     .perf = "reduce_perf",
                     .algos = {[ALGO_RING] = true, [ALGO_TREE] = true, [ALGO_DIRECT] = true}},
    [COLL_ALL_GATHER] = {"all_gather", "all-gather", false, false, COLL_COUNT_PER_RANK,
                         "elements each rank sends (it receives W*count)", 1.0, true, "(W-1)/W",
                         "each rank receives the other ranks' (W-1)/W of S",
                         .send = {false, false}, .work_w = 1, .in_off = COLL_OFF_SLOT,
                         .out_off = COLL_OFF_ZERO,
                         .layout = "rank r sends slot r, every rank receives all of it",
                         .demo_per_rank = false, .perf = "all_gather_perf",
                         .algos = {[ALGO_RING] = true, [ALGO_DIRECT] = true}},
    [COLL_REDUCE_SCATTER] =
        {"reduce_scatter", "reduce-scatter", false, true, COLL_COUNT_PER_RANK,
         "elements each rank receives (it sends W*count)", 1.0, true, "(W-1)/W",
         "each rank receives the other ranks' contributions to its block: "
         "(W-1)/W of S",
         .send = {false, true}, .work_w = 1, .in_off = COLL_OFF_ZERO, .out_off = COLL_OFF_SLOT,
         .layout = "every rank sends all of it, rank r receives slot r", .demo_per_rank = false,
         .perf = "reduce_scatter_perf", .algos = {[ALGO_RING] = true, [ALGO_DIRECT] = true}},
    [COLL_ALL_REDUCE] = {"all_reduce", "all-reduce", false, true, COLL_COUNT_WHOLE,
                         "elements of the buffer", 2.0, true, "2(W-1)/W",
                         "a reduce-scatter then an all-gather: (W-1)/W of S received twice, "
                         "t = 2(W-1)/W * S/B",
                         .send = {false, false}, .work_w = 0, .in_off = COLL_OFF_ZERO,
                         .out_off = COLL_OFF_ZERO, .layout = "", .demo_per_rank = true,
                         .perf = "all_reduce_perf",
                         .algos = {[ALGO_RING] = true,
                                   [ALGO_TREE] = true,
                                   [ALGO_DIRECT] = true,
                                   [ALGO_OWNER] = true}},
    [COLL_ALL_TO_ALL] = {"all_to_all", "all-to-all", false, false, COLL_COUNT_PER_RANK,
                         "elements sent to each peer (W*count in, W*count out)", 1.0, true,
                         "(W-1)/W", "each rank exchanges (W-1)/W of S, its own block stays",
                         .send = {false, true}, .work_w = 2, .in_off = COLL_OFF_ZERO,
                         .out_off = COLL_OFF_HALF, .layout = "block p goes to rank p",
                         .demo_per_rank = false, .perf = "alltoall_perf",
                         .algos = {[ALGO_DIRECT] = true}},
};

const struct coll_info *coll_info(enum coll c)
{
    return (unsigned)c < COLL_COUNT ? &coll_table[c] : NULL;
}

static const char *const redop_names[OP_COUNT] = {
    [OP_SUM] = "sum", [OP_PROD] = "prod", [OP_MIN] = "min", [OP_MAX] = "max", [OP_AVG] = "avg",
};

static const char *const algo_names[ALGO_COUNT] = {
    [ALGO_RING] = "ring",
    [ALGO_TREE] = "tree",
    [ALGO_DIRECT] = "direct",
    [ALGO_OWNER] = "owner",
};

const char *coll_name(enum coll c)
{
    return (unsigned)c < COLL_COUNT ? coll_table[c].name : "?";
}

const char *coll_title(enum coll c)
{
    return (unsigned)c < COLL_COUNT ? coll_table[c].title : "?";
}

/* The spellings of a collective's name: exactly "all_reduce", "all-reduce" or "allreduce"
 * (lower case, one separator or none between the words as the name has them). Nothing
 * looser: "ALL_REDUCE" and "all-reduce-" are not names. */
static bool coll_name_is(const char *s, const char *name)
{
    if (strcmp(s, name) == 0) return true;
    const char *a = s, *b = name;
    for (; *a && *b; a++, b++)
        if (!(*a == *b || (*b == '_' && *a == '-'))) break;
    if (!*a && !*b) return true;
    for (a = s, b = name; *a && *b; a++, b++) {
        if (*b == '_') b++;
        if (*a != *b) break;
    }
    return !*a && !*b;
}

int coll_parse(const char *s, enum coll *out)
{
    if (!s || !*s) return -1;
    for (int c = 0; c < COLL_COUNT; c++) {
        if (coll_name_is(s, coll_table[c].name)) {
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

/* Index of s in names[0..n) (exactly, as the collectives' names), or -1. */
static int name_index(const char *const *names, int n, const char *s)
{
    if (!s) return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) return i;
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
    return (unsigned)c < COLL_COUNT && coll_table[c].rooted;
}

bool coll_reduces(enum coll c)
{
    return (unsigned)c < COLL_COUNT && coll_table[c].reduces;
}

/* One side's elements on rank: count or W*count, none off the root when root_only. */
static size_t side_count(struct coll_side sd, int nranks, size_t count, int rank, int root)
{
    if (sd.root_only && rank != root) return 0;
    return sd.times_w ? (size_t)nranks * count : count;
}

size_t coll_send_count(enum coll c, int nranks, size_t count, int rank, int root)
{
    if ((unsigned)c >= COLL_COUNT) return 0;
    return side_count(coll_table[c].send, nranks, count, rank, root);
}

/* The receive sides and the sources of the results, from COLL_LIST (coll.h). */
#define COLL_RECV_ITEM(id, rro, rtw, from, slot) [COLL_##id] = {rro, rtw},
static const struct coll_side recv_sides[COLL_COUNT] = {COLL_LIST(COLL_RECV_ITEM)};
#undef COLL_RECV_ITEM
#define COLL_FROM_ITEM(id, rro, rtw, from, slot) [COLL_##id] = {from, slot},
static const struct {
    enum coll_from from;
    bool slot;
} froms[COLL_COUNT] = {COLL_LIST(COLL_FROM_ITEM)};
#undef COLL_FROM_ITEM

struct coll_side coll_recv_side(enum coll c)
{
    return (unsigned)c < COLL_COUNT ? recv_sides[c] : (struct coll_side){true, false};
}

enum coll_from coll_source(enum coll c, bool *slot)
{
    bool s = (unsigned)c < COLL_COUNT && froms[c].slot;
    if (slot) *slot = s;
    return (unsigned)c < COLL_COUNT ? froms[c].from : COLL_FROM_ROOT;
}

bool coll_in_place(enum coll c)
{
    return (unsigned)c < COLL_COUNT && coll_table[c].work_w < 2;
}

size_t coll_recv_count(enum coll c, int nranks, size_t count, int rank, int root)
{
    if ((unsigned)c >= COLL_COUNT) return 0;
    return side_count(recv_sides[c], nranks, count, rank, root);
}

size_t coll_work_len(enum coll c, int nranks, size_t count)
{
    if ((unsigned)c >= COLL_COUNT) return 0;
    unsigned w = coll_table[c].work_w;
    return w ? w * (size_t)nranks * count : count;
}

static size_t off_at(enum coll_off o, int nranks, size_t count, int rank)
{
    switch (o) {
    case COLL_OFF_SLOT:
        return (size_t)rank * count;
    case COLL_OFF_HALF:
        return (size_t)nranks * count;
    case COLL_OFF_ZERO:
        break;
    }
    return 0;
}

size_t coll_in_off(enum coll c, int nranks, size_t count, int rank)
{
    if ((unsigned)c >= COLL_COUNT) return 0;
    return off_at(coll_table[c].in_off, nranks, count, rank);
}

size_t coll_out_off(enum coll c, int nranks, size_t count, int rank)
{
    if ((unsigned)c >= COLL_COUNT) return 0;
    return off_at(coll_table[c].out_off, nranks, count, rank);
}

void coll_layout_text(enum coll c, int nranks, size_t count, char *buf, size_t n)
{
    if (!n) return;
    buf[0] = '\0';
    if ((unsigned)c >= COLL_COUNT) return;
    const struct coll_info *ci = &coll_table[c];
    if (ci->work_w == 0)
        snprintf(buf, n, ", used in place (send = receive buffer)");
    else if (ci->work_w == 1)
        snprintf(buf, n, " = %d slots of %zu; %s", nranks, count, ci->layout);
    else
        snprintf(
            buf, n,
            " = send half (%d blocks of %zu; %s) | receive half (block q came from rank q)",
            nranks, count, ci->layout);
}

/* S, the bytes of the operation, as nccl-tests reports it in its "size" column
 * (doc/PERFORMANCE.md): the size of the largest of the send and receive buffers of one
 * rank: count elements for the COLL_COUNT_WHOLE collectives, W*count for the others. */
size_t coll_bytes(enum coll c, int nranks, size_t count, size_t elsize)
{
    if ((unsigned)c >= COLL_COUNT) return 0;
    size_t w = coll_table[c].count_kind == COLL_COUNT_PER_RANK ? (size_t)nranks : 1;
    return count * elsize * w;
}

size_t coll_count_for_bytes(enum coll c, int nranks, size_t bytes, size_t elsize)
{
    if (elsize == 0 || nranks < 1 || (unsigned)c >= COLL_COUNT) return 0;
    if (coll_table[c].count_kind == COLL_COUNT_WHOLE) return bytes / elsize;
    return bytes / elsize / (size_t)nranks;
}

double coll_busbw_factor(enum coll c, int nranks)
{
    if (nranks < 1 || (unsigned)c >= COLL_COUNT) return 0.0;
    const struct coll_info *ci = &coll_table[c];
    double n = nranks;
    return ci->busbw_mult * (ci->busbw_share ? (n - 1.0) / n : 1.0);
}

size_t coll_wire_bytes(enum coll c, int nranks, size_t count, size_t elsize)
{
    if (nranks < 1 || (unsigned)c >= COLL_COUNT) return 0;
    const struct coll_info *ci = &coll_table[c];
    size_t b = coll_bytes(c, nranks, count, elsize) * (size_t)ci->busbw_mult;
    return ci->busbw_share ? b * (size_t)(nranks - 1) / (size_t)nranks : b;
}

/* The lecture's demo at W=4: broadcast and all-reduce of a 4-element vector, one element
 * per rank (piece) for everything else. */
size_t coll_default_count(enum coll c, int nranks)
{
    if ((unsigned)c < COLL_COUNT && coll_table[c].demo_per_rank)
        return nranks > 0 ? (size_t)nranks : 1;
    return 1;
}

bool algo_supported(enum coll c, enum algo a)
{
    if ((unsigned)c >= COLL_COUNT || (unsigned)a >= ALGO_COUNT) return false;
    return coll_table[c].algos[a];
}

enum algo coll_default_algo(enum coll c)
{
    return algo_supported(c, ALGO_RING) ? ALGO_RING : ALGO_DIRECT;
}
