/* pattern_oracle.h - the tests' own answer for the measurement pattern, independent of the
 * code under test: it shares nothing with src/core/pattern_formula.h (which the CPU backend
 * and the kernels both use) nor with core's ref_compute. The input rule is the documented
 * one, v = (7*rank + 3*(i mod 11)) mod 11, worked out by stepping round an 11-hour clock
 * instead of by the formula, then v - 5 (prod: 1/2, 1, 2 by v mod 3); the receive buffers
 * are built by moving and reducing real send buffers as each collective is defined (what
 * NCCL's documentation says lands where: one entry per collective in coll_answers.h).
 * Used by tests/unit/test_kernels.c and tests/gpu/test_kernels.c. Header-only, static
 * functions: include it in one file. */
#ifndef COLLVIZ_TESTS_PATTERN_ORACLE_H
#define COLLVIZ_TESTS_PATTERN_ORACLE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/coll.h"
#include "coll_answers.h"

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
 * scatter and for all_to_all/reduce_scatter). count is NCCL's API count. What lands where
 * is c's entry in tests/oracle/coll_answers.h; a collective without one stops the test. */
static void oracle_collective(int c, int op, int W, size_t count, int root, float **out,
                              size_t *nrecv)
{
    const struct coll_answer *a = coll_answer(c);
    if (!a) {
        fprintf(stderr, "collective %d has no entry in tests/oracle/coll_answers.h\n", c);
        abort();
    }
    size_t len = (size_t)W * count;
    float *in[CV_MAX_RANKS], col[CV_MAX_RANKS];
    for (int q = 0; q < W; q++) {
        in[q] = malloc(len * sizeof(float));
        for (size_t i = 0; i < len; i++)
            in[q][i] = oracle_value(op, q, i);
    }
    for (int r = 0; r < W; r++) {
        nrecv[r] = a->recv(W, count, root, r);
        for (size_t j = 0; j < nrecv[r]; j++) {
            size_t at = 0;
            uint32_t mask = a->source(W, count, root, r, j, &at);
            int n = 0;
            for (int q = 0; q < W; q++)
                if (mask & (1u << q)) col[n++] = in[q][at];
            if (n == 0 || at >= len) {
                fprintf(stderr, "%s: element %zu of rank %d has no source\n", a->name, j, r);
                abort();
            }
            out[r][j] = oracle_reduce(op, col, n);
        }
    }
    for (int q = 0; q < W; q++)
        free(in[q]);
}

#endif
