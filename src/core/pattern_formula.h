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

/* Element j of rank's receive buffer when every rank's send buffer holds
 * pattern_formula_value(). The caller keeps j below the receive count
 * (coll_recv_count); count is the API count (core/coll.h) and must not be 0. */
static inline CV_HD float pattern_formula_expected(int coll, int op, int nranks, size_t count,
                                                   int root, int rank, size_t j)
{
    switch (coll) {
    case COLL_BROADCAST:
        return pattern_formula_value(op, root, j);
    case COLL_SCATTER:
        return pattern_formula_value(op, root, (size_t)rank * count + j);
    case COLL_GATHER:
    case COLL_ALL_GATHER:
        return pattern_formula_value(op, (int)(j / count), j % count);
    case COLL_REDUCE:
    case COLL_ALL_REDUCE:
        return pattern_formula_reduced(op, nranks, j);
    case COLL_REDUCE_SCATTER:
        return pattern_formula_reduced(op, nranks, (size_t)rank * count + j);
    case COLL_ALL_TO_ALL:
        return pattern_formula_value(op, (int)(j / count), (size_t)rank * count + j % count);
    default:
        return 0.0f;
    }
}

#endif
