/* pattern_formula.h - the measurement-scale input pattern and its closed-form expected
 * result, written once for the host and the GPU. core/init.c's pattern_value and
 * pattern_expected (what the CPU backend fills and checks with) call these, and so do the
 * CUDA kernels through kernels/pattern.h (what the NCCL backend fills and checks with), so
 * #wrong is counted against the same answer on every backend.
 *
 * Plain C that nvcc also compiles as C++ device code: static inline functions marked
 * CV_HD (__host__ __device__ under nvcc, nothing otherwise), int arguments for the enum
 * values (C++ converts no int to an enum implicitly), no tables (a static array in a
 * __host__ __device__ function is host memory) and no library calls. */
#ifndef COLLVIZ_CORE_PATTERN_FORMULA_H
#define COLLVIZ_CORE_PATTERN_FORMULA_H

#include <stddef.h>

#include "core/coll.h"

#ifndef CV_HD
#ifdef __CUDACC__
#define CV_HD __host__ __device__
#else
#define CV_HD
#endif
#endif

/* Element i of rank's send buffer for reduction op `op`. Small integers in [-5, 5] for
 * sum/avg/min/max: a sum over 16 ranks stays far below 2^24, so it is exact in any order.
 * Powers of two (1/2, 1, 2) for prod: a product of 16 of them is exact too. */
static inline CV_HD float pattern_formula_value(int op, int rank, size_t i)
{
    unsigned v = (unsigned)(((size_t)rank * 7 + (i % 11) * 3) % 11);
    if (op == OP_PROD) {
        unsigned k = v % 3;
        return k == 0 ? 0.5f : k == 1 ? 1.0f : 2.0f;
    }
    return (float)((int)v - 5);
}

/* Reduce two values with op; avg reduces with sum (the division by W is separate). */
static inline CV_HD float pattern_formula_redop(int op, float a, float b)
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

/* Element i reduced over ranks 0..nranks-1 in rank order; avg divides the float sum by W,
 * as the plans do. */
static inline CV_HD float pattern_formula_reduced(int op, int nranks, size_t i)
{
    float acc = pattern_formula_value(op, 0, i);
    for (int q = 1; q < nranks; q++)
        acc = pattern_formula_redop(op, acc, pattern_formula_value(op, q, i));
    if (op == OP_AVG) acc = acc / (float)nranks;
    return acc;
}

/* Where element j of a receive buffer comes from (enum coll_from, and whether the rank's
 * slot is added), from COLL_LIST (core/coll.h) as constants: a switch the list writes. */
static inline CV_HD int pattern_formula_from(int coll, int *slot)
{
    switch (coll) {
#define PATTERN_FROM_ITEM(id, rro, rtw, from, sl)                                              \
    case COLL_##id:                                                                            \
        *slot = sl;                                                                            \
        return from;
        COLL_LIST(PATTERN_FROM_ITEM)
#undef PATTERN_FROM_ITEM
    default:
        *slot = 0;
        return -1;
    }
}

/* Element j of rank's receive buffer when every rank's send buffer holds
 * pattern_formula_value(). The caller keeps j below the receive count
 * (coll_recv_count); count is the API count (core/coll.h) and must not be 0. */
static inline CV_HD float pattern_formula_expected(int coll, int op, int nranks, size_t count,
                                                   int root, int rank, size_t j)
{
    int slot = 0;
    int from = pattern_formula_from(coll, &slot);
    size_t at = slot ? (size_t)rank * count : 0;
    switch (from) {
    case COLL_FROM_ROOT:
        return pattern_formula_value(op, root, at + j);
    case COLL_FROM_REDUCED:
        return pattern_formula_reduced(op, nranks, at + j);
    case COLL_FROM_BLOCK:
        return pattern_formula_value(op, (int)(j / count), at + j % count);
    default:
        return 0.0f;
    }
}

#endif
