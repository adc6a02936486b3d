/* pattern.h - the measurement-scale pattern for the kernels: the input pattern and its
 * closed-form expected result, as the CUDA kernels in pattern.cu use them to fill send
 * buffers and count #wrong on the GPU (as nccl-tests does). The formulas themselves are
 * not here: they are written once in src/core/pattern_formula.h, which core/init.c's
 * pattern_value / pattern_expected (the CPU backend's) call too, so the two backends
 * cannot check against different answers. This header adds the plain-data struct a
 * kernel takes and the tolerance comparison.
 *
 * `coll` and `op` are enum coll / enum redop values (core/coll.h), passed as int so the
 * struct is the same plain data on both sides. */
#ifndef COLLVIZ_KERNELS_PATTERN_H
#define COLLVIZ_KERNELS_PATTERN_H

#include <math.h>
#include <stddef.h>

#include "core/coll.h"
#include "core/pattern_formula.h"
#include "kernels/hd.h"

/* What one rank's receive buffer should hold. */
struct kernel_pattern {
    int coll, op;
    int nranks, root, rank;
    size_t count; /* the API count (core/coll.h) */
};

static inline KERNEL_HD float kernel_pattern_value(int op, int rank, size_t i)
{
    return pattern_formula_value(op, rank, i);
}

static inline KERNEL_HD float kernel_redop_apply(int op, float a, float b)
{
    return pattern_formula_redop(op, a, b);
}

/* coll_recv_count() (core/coll.c) for device code; test_kernels.c holds the two equal. */
static inline KERNEL_HD size_t kernel_recv_count(int coll, int nranks, size_t count, int rank,
                                                 int root)
{
    size_t w = (size_t)nranks;
    switch (coll) {
#define KERNEL_RECV_ITEM(id, rro, rtw, from, slot)                                             \
    case COLL_##id:                                                                            \
        return (rro && rank != root) ? 0 : rtw ? w * count : count;
        COLL_LIST(KERNEL_RECV_ITEM)
#undef KERNEL_RECV_ITEM
    default:
        return 0;
    }
}

static inline KERNEL_HD float kernel_pattern_reduced(int op, int nranks, size_t i)
{
    return pattern_formula_reduced(op, nranks, i);
}

/* pattern_expected(): element j of rank q.rank's receive buffer (0 past its end). */
static inline KERNEL_HD float kernel_pattern_expected(struct kernel_pattern q, size_t j)
{
    if (q.count == 0 || j >= kernel_recv_count(q.coll, q.nranks, q.count, q.rank, q.root))
        return 0.0f;
    return pattern_formula_expected(q.coll, q.op, q.nranks, q.count, q.root, q.rank, j);
}

/* tol == 0: bit-exact equality (what sum/prod/min/max of these patterns give in any
 * order). tol > 0: |got - want| <= tol * max(1, |want|). A NaN never matches. */
static inline KERNEL_HD int kernel_pattern_matches(float got, float want, float tol)
{
    if (tol == 0.0f) return got == want;
    float scale = fabsf(want) > 1.0f ? fabsf(want) : 1.0f;
    return fabsf(got - want) <= tol * scale;
}

#endif
