/* coll_answers.h - the tests' own answers for every collective, one entry each, written by
 * hand from each collective's definition (what NCCL's documentation and nccl-tests say),
 * independently of the code under test: it reads nothing of core/coll.c's table, of
 * COLL_LIST's columns nor of core/plan.c. tests/unit/test_coll.c checks the table's names,
 * counts, bytes, busbw factors and algorithms against it; tests/unit/test_trace.c the
 * trace's masks; tests/oracle/pattern_oracle.h builds the expected measurement pattern
 * from it (tests/unit/test_kernels.c, tests/gpu/test_kernels.c). A collective without its
 * entry here fails those tests (coll_answer returns NULL): docs/architecture.md, "Adding a
 * collective". Header-only, static: include it in one file of each program. */
#ifndef COLLVIZ_TESTS_COLL_ANSWERS_H
#define COLLVIZ_TESTS_COLL_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/coll.h"

/* The answers for one collective. The sizes are at W = 4, count = 3, root 1 ("other" is
 * rank 3); the bytes at W = 4, count 1000 floats. The result's definition: rank r
 * receives recv(W, count, root, r) elements, and element j of them is the reduction, in
 * rank order, of element *at of the send buffer of every rank in the returned mask (one
 * rank: a copy of its element). */
struct coll_answer {
    const char *name;  /* nccl-tests' and the CLI's spelling */
    const char *title; /* the lecture's */
    bool rooted, reduces;
    bool in_place; /* it can run in place (NCCL's recvbuff inside sendbuff) */
    struct {
        size_t send_root, send_other, recv_root, recv_other, work;
    } sizes;
    size_t bytes;           /* nccl-tests' S */
    const char *busbw_text; /* the factor as written */
    double busbw_w4, busbw_w1;
    bool algos[ALGO_COUNT]; /* ring, tree, direct, owner */
    size_t (*recv)(int W, size_t count, int root, int r);
    uint32_t (*source)(int W, size_t count, int root, int r, size_t j, size_t *at);
};

static inline uint32_t ans_all(int W)
{
    return (uint32_t)((1ull << W) - 1);
}

/* Receive counts. */
static inline size_t ans_recv_count(int W, size_t count, int root, int r)
{
    return count;
}
static inline size_t ans_recv_w_count(int W, size_t count, int root, int r)
{
    return (size_t)W * count;
}
static inline size_t ans_recv_count_at_root(int W, size_t count, int root, int r)
{
    return r == root ? count : 0;
}
static inline size_t ans_recv_w_count_at_root(int W, size_t count, int root, int r)
{
    return r == root ? (size_t)W * count : 0;
}

/* broadcast: the root's count elements, everywhere. */
static inline uint32_t ans_broadcast(int W, size_t count, int root, int r, size_t j, size_t *at)
{
    *at = j;
    return 1u << root;
}
/* scatter: block r of the root's W blocks. */
static inline uint32_t ans_scatter(int W, size_t count, int root, int r, size_t j, size_t *at)
{
    *at = (size_t)r * count + j;
    return 1u << root;
}
/* gather, all_gather: block q of the result is rank q's count elements. */
static inline uint32_t ans_gather(int W, size_t count, int root, int r, size_t j, size_t *at)
{
    *at = j % count;
    return 1u << (j / count);
}
/* reduce, all_reduce: element j reduced over every rank. */
static inline uint32_t ans_reduce(int W, size_t count, int root, int r, size_t j, size_t *at)
{
    *at = j;
    return ans_all(W);
}
/* reduce_scatter: block r of the reduction of every rank's W blocks. */
static inline uint32_t ans_reduce_scatter(int W, size_t count, int root, int r, size_t j,
                                          size_t *at)
{
    *at = (size_t)r * count + j;
    return ans_all(W);
}
/* all_to_all: block q of rank r's result is block r of rank q's input. */
static inline uint32_t ans_all_to_all(int W, size_t count, int root, int r, size_t j,
                                      size_t *at)
{
    *at = (size_t)r * count + j % count;
    return 1u << (j / count);
}

/* One entry per collective, by its enum value. */
static const struct coll_answer coll_answers[COLL_COUNT] = {
    [COLL_BROADCAST] = {.name = "broadcast",
                        .title = "broadcast",
                        .in_place = true,
                        .rooted = true,
                        .sizes = {3, 0, 3, 3, 3},
                        .bytes = 4000,
                        .busbw_text = "1",
                        .busbw_w4 = 1.0,
                        .busbw_w1 = 1.0,
                        .algos = {[ALGO_RING] = true, [ALGO_TREE] = true, [ALGO_DIRECT] = true},
                        .recv = ans_recv_count,
                        .source = ans_broadcast},
    [COLL_SCATTER] = {.name = "scatter",
                      .title = "scatter",
                      .in_place = true,
                      .rooted = true,
                      .sizes = {12, 0, 3, 3, 12},
                      .bytes = 16000,
                      .busbw_text = "(W-1)/W",
                      .busbw_w4 = 0.75,
                      .busbw_w1 = 0.0,
                      .algos = {[ALGO_DIRECT] = true},
                      .recv = ans_recv_count,
                      .source = ans_scatter},
    [COLL_GATHER] = {.name = "gather",
                     .title = "gather",
                     .in_place = true,
                     .rooted = true,
                     .sizes = {3, 3, 12, 0, 12},
                     .bytes = 16000,
                     .busbw_text = "(W-1)/W",
                     .busbw_w4 = 0.75,
                     .busbw_w1 = 0.0,
                     .algos = {[ALGO_DIRECT] = true},
                     .recv = ans_recv_w_count_at_root,
                     .source = ans_gather},
    [COLL_REDUCE] = {.name = "reduce",
                     .title = "reduce",
                     .in_place = true,
                     .rooted = true,
                     .reduces = true,
                     .sizes = {3, 3, 3, 0, 3},
                     .bytes = 4000,
                     .busbw_text = "1",
                     .busbw_w4 = 1.0,
                     .busbw_w1 = 1.0,
                     .algos = {[ALGO_RING] = true, [ALGO_TREE] = true, [ALGO_DIRECT] = true},
                     .recv = ans_recv_count_at_root,
                     .source = ans_reduce},
    [COLL_ALL_GATHER] = {.name = "all_gather",
                         .title = "all-gather",
                         .in_place = true,
                         .sizes = {3, 3, 12, 12, 12},
                         .bytes = 16000,
                         .busbw_text = "(W-1)/W",
                         .busbw_w4 = 0.75,
                         .busbw_w1 = 0.0,
                         .algos = {[ALGO_RING] = true, [ALGO_DIRECT] = true},
                         .recv = ans_recv_w_count,
                         .source = ans_gather},
    [COLL_REDUCE_SCATTER] = {.name = "reduce_scatter",
                             .title = "reduce-scatter",
                             .in_place = true,
                             .reduces = true,
                             .sizes = {12, 12, 3, 3, 12},
                             .bytes = 16000,
                             .busbw_text = "(W-1)/W",
                             .busbw_w4 = 0.75,
                             .busbw_w1 = 0.0,
                             .algos = {[ALGO_RING] = true, [ALGO_DIRECT] = true},
                             .recv = ans_recv_count,
                             .source = ans_reduce_scatter},
    [COLL_ALL_REDUCE] = {.name = "all_reduce",
                         .title = "all-reduce",
                         .in_place = true,
                         .reduces = true,
                         .sizes = {3, 3, 3, 3, 3},
                         .bytes = 4000,
                         .busbw_text = "2(W-1)/W",
                         .busbw_w4 = 1.5,
                         .busbw_w1 = 0.0,
                         .algos = {[ALGO_RING] = true,
                                   [ALGO_TREE] = true,
                                   [ALGO_DIRECT] = true,
                                   [ALGO_OWNER] = true},
                         .recv = ans_recv_count,
                         .source = ans_reduce},
    [COLL_ALL_TO_ALL] = {.name = "all_to_all",
                         .title = "all-to-all",
                         .in_place = false,
                         .sizes = {12, 12, 12, 12, 24},
                         .bytes = 16000,
                         .busbw_text = "(W-1)/W",
                         .busbw_w4 = 0.75,
                         .busbw_w1 = 0.0,
                         .algos = {[ALGO_DIRECT] = true},
                         .recv = ans_recv_w_count,
                         .source = ans_all_to_all},
};

/* The answers for collective c; NULL when the table has no entry for it. */
static inline const struct coll_answer *coll_answer(int c)
{
    if (c < 0 || c >= COLL_COUNT || !coll_answers[c].name || !coll_answers[c].recv ||
        !coll_answers[c].source)
        return NULL;
    return &coll_answers[c];
}

#endif
