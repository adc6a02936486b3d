/* pattern.h - the measurement-scale input pattern and its closed-form expected result,
 * written once for the host and the GPU (CVK_HD). The CPU backend uses pattern_value and
 * pattern_expected from core/init.c; these are the same formulas ported to code a kernel
 * can run, and tests/unit/test_kernels.c compares the two element by element for every
 * collective, op, W and root, so they cannot drift apart unnoticed. The kernels in
 * pattern.cu fill send buffers and count #wrong with them, as nccl-tests does on the GPU.
 *
 * `coll` and `op` are enum coll / enum redop values (core/coll.h), passed as int so the
 * struct is the same plain data on both sides. */
#ifndef COLLVIZ_KERNELS_PATTERN_H
#define COLLVIZ_KERNELS_PATTERN_H

#include <math.h>
#include <stddef.h>

#include "core/coll.h"
#include "hd.h"

/* What one rank's receive buffer should hold. */
struct cvk_pattern {
    int coll, op;
    int nranks, root, rank;
    size_t count; /* the API count (core/coll.h) */
};

/* pattern_value(): small integers in [-5, 5] (sums over 16 ranks stay exact), powers of two
 * for prod (products stay exact). */
static inline CVK_HD float cvk_pattern_value(int op, int rank, size_t i)
{
    unsigned v = (unsigned)(((size_t)rank * 7 + (i % 11) * 3) % 11);
    if (op == OP_PROD) {
        unsigned k = v % 3;
        return k == 0 ? 0.5f : k == 1 ? 1.0f : 2.0f;
    }
    return (float)((int)v - 5);
}

/* redop_apply(): AVG reduces with SUM, the division by W comes after. */
static inline CVK_HD float cvk_redop_apply(int op, float a, float b)
{
    switch (op) {
    case OP_PROD:
        return a * b;
    case OP_MIN:
        return b < a ? b : a;
    case OP_MAX:
        return b > a ? b : a;
    default:
        return a + b;
    }
}

/* coll_recv_count(). */
static inline CVK_HD size_t cvk_recv_count(int coll, int nranks, size_t count, int rank,
                                           int root)
{
    size_t w = (size_t)nranks;
    switch (coll) {
    case COLL_BROADCAST:
    case COLL_SCATTER:
    case COLL_REDUCE_SCATTER:
    case COLL_ALL_REDUCE:
        return count;
    case COLL_GATHER:
        return rank == root ? w * count : 0;
    case COLL_REDUCE:
        return rank == root ? count : 0;
    case COLL_ALL_GATHER:
    case COLL_ALL_TO_ALL:
        return w * count;
    default:
        return 0;
    }
}

/* Element i reduced over the ranks in rank order; avg divides the float sum by W. */
static inline CVK_HD float cvk_pattern_reduced(int op, int nranks, size_t i)
{
    float acc = cvk_pattern_value(op, 0, i);
    for (int q = 1; q < nranks; q++)
        acc = cvk_redop_apply(op, acc, cvk_pattern_value(op, q, i));
    if (op == OP_AVG) acc = acc / (float)nranks;
    return acc;
}

/* pattern_expected(): element j of rank q.rank's receive buffer. */
static inline CVK_HD float cvk_pattern_expected(struct cvk_pattern q, size_t j)
{
    size_t n = q.count;
    if (n == 0 || j >= cvk_recv_count(q.coll, q.nranks, n, q.rank, q.root)) return 0.0f;
    switch (q.coll) {
    case COLL_BROADCAST:
        return cvk_pattern_value(q.op, q.root, j);
    case COLL_SCATTER:
        return cvk_pattern_value(q.op, q.root, (size_t)q.rank * n + j);
    case COLL_GATHER:
    case COLL_ALL_GATHER:
        return cvk_pattern_value(q.op, (int)(j / n), j % n);
    case COLL_REDUCE:
    case COLL_ALL_REDUCE:
        return cvk_pattern_reduced(q.op, q.nranks, j);
    case COLL_REDUCE_SCATTER:
        return cvk_pattern_reduced(q.op, q.nranks, (size_t)q.rank * n + j);
    case COLL_ALL_TO_ALL:
        return cvk_pattern_value(q.op, (int)(j / n), (size_t)q.rank * n + j % n);
    default:
        return 0.0f;
    }
}

/* tol == 0: bit-exact equality (what sum/prod/min/max of these patterns give in any
 * order). tol > 0: |got - want| <= tol * max(1, |want|). A NaN never matches. */
static inline CVK_HD int cvk_pattern_matches(float got, float want, float tol)
{
    if (tol == 0.0f) return got == want;
    float scale = fabsf(want) > 1.0f ? fabsf(want) : 1.0f;
    return fabsf(got - want) <= tol * scale;
}

#endif
