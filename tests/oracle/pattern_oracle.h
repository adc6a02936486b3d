/* pattern_oracle.h - the tests' own answer for the measurement pattern, independent of the
 * code under test: it shares nothing with src/core/pattern_formula.h (which the CPU backend
 * and the kernels both use) nor with core's ref_compute. The input rule is the documented
 * one, v = (7*rank + 3*(i mod 11)) mod 11, worked out by stepping round an 11-hour clock
 * instead of by the formula, then v - 5 (prod: 1/2, 1, 2 by v mod 3); the receive buffers
 * are built by moving and reducing real send buffers as each collective is defined (what
 * NCCL's documentation says lands where). Used by tests/unit/test_kernels.c and
 * tests/gpu/test_kernels.c. Header-only, static functions: include it in one file. */
#ifndef COLLVIZ_TESTS_PATTERN_ORACLE_H
#define COLLVIZ_TESTS_PATTERN_ORACLE_H

#include <stdlib.h>
#include <string.h>

#include "core/coll.h"

/* Element i of rank's send buffer. */
static float oracle_value(int op, int rank, size_t i)
{
    unsigned v = 0;
    for (int q = 0; q < rank; q++)
        v = (v + 7) % 11;
    for (size_t k = 0; k < i % 11; k++)
        v = (v + 3) % 11;
    if (op == OP_PROD) {
        static const float pow2[3] = {0.5f, 1.0f, 2.0f};
        return pow2[v % 3];
    }
    return (float)v - 5.0f;
}

/* x[0] op x[1] op ... op x[n-1], in rank order; avg is the sum divided by n. */
static float oracle_reduce(int op, const float *x, int n)
{
    float acc = x[0];
    for (int q = 1; q < n; q++) {
        if (op == OP_PROD)
            acc *= x[q];
        else if (op == OP_MIN)
            acc = x[q] < acc ? x[q] : acc;
        else if (op == OP_MAX)
            acc = x[q] > acc ? x[q] : acc;
        else
            acc += x[q];
    }
    return op == OP_AVG ? acc / (float)n : acc;
}

/* Every rank's receive buffer (out[r], W*count floats each, caller's) and receive count
 * (nrecv[r]) after collective c, when rank q's send buffer holds oracle_value(op, q, i)
 * for i < W*count (each rank sends a prefix of it: count, or W*count for the root of
 * scatter and for all_to_all/reduce_scatter). count is NCCL's API count. */
static void oracle_collective(int c, int op, int W, size_t count, int root, float **out,
                              size_t *nrecv)
{
    size_t len = (size_t)W * count;
    float *in[CV_MAX_RANKS], col[CV_MAX_RANKS];
    for (int q = 0; q < W; q++) {
        in[q] = malloc(len * sizeof(float));
        for (size_t i = 0; i < len; i++)
            in[q][i] = oracle_value(op, q, i);
        nrecv[q] = 0;
    }
    for (int r = 0; r < W; r++) {
        switch (c) {
        case COLL_BROADCAST: /* the root's count elements, everywhere */
            nrecv[r] = count;
            memcpy(out[r], in[root], count * sizeof(float));
            break;
        case COLL_SCATTER: /* block r of the root's W blocks */
            nrecv[r] = count;
            memcpy(out[r], in[root] + (size_t)r * count, count * sizeof(float));
            break;
        case COLL_GATHER: /* the root gets every rank's block, in rank order */
        case COLL_ALL_GATHER:
            if (c == COLL_GATHER && r != root) break;
            nrecv[r] = len;
            for (int q = 0; q < W; q++)
                memcpy(out[r] + (size_t)q * count, in[q], count * sizeof(float));
            break;
        case COLL_REDUCE: /* element-wise reduction of every rank's buffer */
        case COLL_ALL_REDUCE:
            if (c == COLL_REDUCE && r != root) break;
            nrecv[r] = count;
            for (size_t j = 0; j < count; j++) {
                for (int q = 0; q < W; q++)
                    col[q] = in[q][j];
                out[r][j] = oracle_reduce(op, col, W);
            }
            break;
        case COLL_REDUCE_SCATTER: /* block r of the reduction of W-block buffers */
            nrecv[r] = count;
            for (size_t j = 0; j < count; j++) {
                for (int q = 0; q < W; q++)
                    col[q] = in[q][(size_t)r * count + j];
                out[r][j] = oracle_reduce(op, col, W);
            }
            break;
        case COLL_ALL_TO_ALL: /* block q of rank r's output: block r of rank q's input */
            nrecv[r] = len;
            for (int q = 0; q < W; q++)
                memcpy(out[r] + (size_t)q * count, in[q] + (size_t)r * count,
                       count * sizeof(float));
            break;
        }
    }
    for (int q = 0; q < W; q++)
        free(in[q]);
}

#endif
