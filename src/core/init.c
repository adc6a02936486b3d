/* init.c - the numbers a student reads (display-scale inputs), the measurement-scale
 * pattern with its closed-form expected result, and the plain reference implementation of
 * every collective, written straight from the definitions with no plan involved.
 *
 * INIT_LECTURE reproduces the lecture's demo at W=4 (shared/reference/README.md) and
 * generalises it to any W and count:
 *   broadcast       root sends [0, 1, .., count-1]                 -> [0,1,2,3] everywhere
 *   scatter         root sends [0, 1, .., W*count-1]               -> rank i gets [i]
 *   gather/all_gather  rank r's piece is [r*count .. r*count+count) -> [0,1,2,3]
 *   reduce          rank r sends [r, r+1, ..]                      -> [0+1+2+3] = [6] on root
 *   reduce_scatter  rank r sends [r, r+1, .., r+W*count-1]         -> 6, 10, 14, 18
 *   all_reduce      rank r sends [r, r+1, .., r+count-1]           -> [6,10,14,18]
 *   all_to_all      rank r sends [r*W*count, ..] (rows of a matrix) -> a transpose: rank 0
 *                   ends with [0,4,8,12].
 *
 * The measurement pattern's formulas live in pattern_formula.h, shared with the kernels. */
#include "core/init.h"

#include <string.h>
#include <strings.h>

#include "core/pattern_formula.h"
#include "core/rng.h"

static const char *const init_names[] = {
    [INIT_LECTURE] = "lecture",
    [INIT_SEQ] = "seq",
    [INIT_RANK] = "rank",
    [INIT_RANDOM] = "random",
};

const char *init_name(enum init_kind k)
{
    return (unsigned)k < sizeof init_names / sizeof init_names[0] ? init_names[k] : "?";
}

int init_parse(const char *s, enum init_kind *out)
{
    if (!s) return -1;
    for (size_t i = 0; i < sizeof init_names / sizeof init_names[0]; i++) {
        if (strcasecmp(s, init_names[i]) == 0) {
            *out = (enum init_kind)i;
            return 0;
        }
    }
    return -1;
}

/* The lecture's inputs, read off the collective's row: a reduction's inputs differ by rank
 * (i + rank), a root's buffer counts up (i), and every other rank's block follows the
 * blocks of the ranks before it (rank * its send count + i), so each value names where it
 * started. */
static float lecture_value(enum coll c, int nranks, size_t count, int rank, size_t i)
{
    const struct coll_info *ci = coll_info(c);
    if (!ci) return 0.0f;
    if (ci->reduces) return (float)(i + (size_t)rank);
    if (ci->send.root_only) return (float)i;
    return (float)((size_t)rank * coll_send_count(c, nranks, count, rank, rank) + i);
}

void init_fill(enum init_kind k, enum coll c, int nranks, size_t count, int root, uint64_t seed,
               int rank, float *send)
{
    size_t n = coll_send_count(c, nranks, count, rank, root);
    /* Mixing the rank in through a second splitmix round keeps (seed, rank) streams apart
     * even for neighbouring seeds. */
    uint64_t st = seed;
    uint64_t mix = rng_splitmix64(&st) ^ ((uint64_t)rank * 0xD1B54A32D192ED03ull);
    st = mix;
    for (size_t i = 0; i < n; i++) {
        switch (k) {
        case INIT_LECTURE:
            send[i] = lecture_value(c, nranks, count, rank, i);
            break;
        case INIT_SEQ:
            send[i] = (float)(10 * (size_t)rank + i);
            break;
        case INIT_RANK:
            send[i] = (float)rank;
            break;
        case INIT_RANDOM:
            send[i] = (float)((int)(rng_splitmix64(&st) % 19) - 9);
            break;
        }
    }
}

/* The op, the pattern and its expected result are written once, in pattern_formula.h,
 * which the CUDA kernels compile too (kernels/pattern.h): these are the host's names. */
float redop_apply(enum redop op, float a, float b)
{
    return pattern_formula_redop((int)op, a, b);
}

float pattern_value(enum redop op, int rank, size_t i)
{
    return pattern_formula_value((int)op, rank, i);
}

float pattern_expected(enum coll c, enum redop op, int nranks, size_t count, int root, int rank,
                       size_t j)
{
    if (count == 0 || j >= coll_recv_count(c, nranks, count, rank, root)) return 0.0f;
    return pattern_formula_expected((int)c, (int)op, nranks, count, root, rank, j);
}

/* recv[r][j] = reduction over q (in rank order) of send[q][off + j]. */
static void ref_reduce_into(enum redop op, int nranks, float *const *send, size_t off, size_t n,
                            float *out)
{
    for (size_t j = 0; j < n; j++) {
        float acc = send[0][off + j];
        for (int q = 1; q < nranks; q++)
            acc = redop_apply(op, acc, send[q][off + j]);
        if (op == OP_AVG) acc = acc / (float)nranks;
        out[j] = acc;
    }
}

/* Element j of rank r's result, from the collective's COLL_LIST line (core/coll.h): the
 * root's input, the reduction of every rank's, or block j/count's rank's. */
void ref_compute(enum coll c, enum redop op, int nranks, size_t count, int root,
                 float *const *send, float **recv)
{
    bool slot;
    enum coll_from from = coll_source(c, &slot);
    size_t n = count;
    for (int r = 0; r < nranks; r++) {
        size_t nr = coll_recv_count(c, nranks, count, r, root);
        size_t at = slot ? (size_t)r * n : 0;
        if (!nr) continue;
        if (from == COLL_FROM_REDUCED) {
            ref_reduce_into(op, nranks, send, at, nr, recv[r]);
            continue;
        }
        for (size_t j = 0; j < nr; j++)
            recv[r][j] = from == COLL_FROM_ROOT ? send[root][at + j] : send[j / n][at + j % n];
    }
}

void ref_all_to_all_v(int nranks, const size_t *counts, float *const *send, float **recv,
                      size_t recv_len)
{
    size_t W = (size_t)nranks;
    for (size_t d = 0; d < W; d++) {
        size_t at = 0;
        for (size_t s = 0; s < W; s++) {
            size_t from = 0;
            for (size_t j = 0; j < d; j++)
                from += counts[s * W + j];
            for (size_t i = 0; i < counts[s * W + d]; i++)
                recv[d][at++] = send[s][from + i];
        }
        for (; at < recv_len; at++)
            recv[d][at] = 0.0f;
    }
}
