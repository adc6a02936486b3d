/* exec.c - the arithmetic of a transfer, shared by the trace executor (a few elements) and
 * the CPU backend's rank threads (tens of MiB), so the picture and the measurement run
 * the same code.
 *
 * Speed matters at measurement scale: a direct reduce has W-1 reductions into the same
 * destination range in one step. Applied one after the other, each would read and write
 * the whole destination again. Instead they are fused: one pass computes
 * d = (((d op s0) op s1) op s2) with up to three sources at a time, so for W <= 4 the
 * destination is read once and written once; with more sources the range is cut into
 * EXEC_TILE-element tiles and the three-source pass runs over each tile until every source
 * is folded in, while the tile stays in L1. Each element still sees its operations in
 * plan order (sources folded left to right, starting from d), so the result is bitwise the
 * same as the naive loop - only the loop nest changes, never the arithmetic.
 *
 * The kernels work in blocks of EXEC_VEC elements with a constant-length inner loop, which
 * gcc -O2 (whose default "very cheap" vectorizer cost model refuses loops that need a
 * scalar epilogue) turns into vector code, unrolled so no loop counter runs per vector;
 * the short remainder runs scalar. Ranges never overlap within a transfer, and no
 * transfer of a step reads what its destination writes in that step (plan.h), hence
 * restrict.
 *
 * Why not one pass with every source even for W > 4: a kernel that holds a block of
 * destination elements and folds all ns sources into it (the block kept in a local array)
 * ran at 23-33 GB/s on cache-resident data at W = 8..16 on the 2-core AMD EPYC VM this was
 * measured on, against 47-86 GB/s for the tiled three-source passes; on 64 MiB buffers the
 * two were within noise of each other. */
#include "core/exec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define EXEC_VEC 16       /* one block = one or more vector registers at every ISA level */
#define EXEC_TILE 2048    /* floats: 8 KiB of destination, well inside L1 */
#define EXEC_GROUP_MAX 64 /* reductions gathered into one fused pass */

/* Unroll the constant-length block loop: gcc -O2 vectorizes it but would keep a loop
 * counter per vector. Measured on cache-resident data (W = 2, one source): 135-150 GB/s
 * unrolled against 115-135 GB/s not. Other compilers read it as a hint or ignore it. */
#if defined(__GNUC__) && !defined(__clang__)
#define EXEC_UNROLL _Pragma("GCC unroll 16")
#else
#define EXEC_UNROLL
#endif

/* The reduction operators, written exactly as redop_apply(op, d, s) so NaNs and signed
 * zeros agree too: min/max keep d unless s compares strictly smaller/larger. */
#define EXEC_SUM(d, s) ((d) + (s))
#define EXEC_PROD(d, s) ((d) * (s))
#define EXEC_MIN(d, s) ((s) < (d) ? (s) : (d))
#define EXEC_MAX(d, s) ((s) > (d) ? (s) : (d))

/* One family of kernels per operator: NAME_1/2/3 fold one, two or three sources into d in
 * one pass; NAME_fused folds ns sources in plan order (tiles of three-source passes when
 * ns > 3). Kept out of clang-format, which cannot lay out a pragma before a loop. */
/* clang-format off */
#define EXEC_KERNELS(NAME, OP)                                                              \
    static void NAME##_1(float *restrict d, const float *restrict a, size_t n)             \
    {                                                                                      \
        size_t i = 0;                                                                      \
        for (; i + EXEC_VEC <= n; i += EXEC_VEC)                                           \
            EXEC_UNROLL for (size_t j = 0; j < EXEC_VEC; j++)                              \
                d[i + j] = OP(d[i + j], a[i + j]);                                         \
        for (; i < n; i++)                                                                 \
            d[i] = OP(d[i], a[i]);                                                         \
    }                                                                                      \
    static void NAME##_2(float *restrict d, const float *restrict a,                      \
                         const float *restrict b, size_t n)                                \
    {                                                                                      \
        size_t i = 0;                                                                      \
        for (; i + EXEC_VEC <= n; i += EXEC_VEC)                                           \
            EXEC_UNROLL for (size_t j = 0; j < EXEC_VEC; j++)                              \
                d[i + j] = OP(OP(d[i + j], a[i + j]), b[i + j]);                           \
        for (; i < n; i++)                                                                 \
            d[i] = OP(OP(d[i], a[i]), b[i]);                                               \
    }                                                                                      \
    static void NAME##_3(float *restrict d, const float *restrict a,                      \
                         const float *restrict b, const float *restrict c, size_t n)       \
    {                                                                                      \
        size_t i = 0;                                                                      \
        for (; i + EXEC_VEC <= n; i += EXEC_VEC)                                           \
            EXEC_UNROLL for (size_t j = 0; j < EXEC_VEC; j++)                              \
                d[i + j] = OP(OP(OP(d[i + j], a[i + j]), b[i + j]), c[i + j]);             \
        for (; i < n; i++)                                                                 \
            d[i] = OP(OP(OP(d[i], a[i]), b[i]), c[i]);                                     \
    }                                                                                      \
    static void NAME##_fused(float *restrict d, const float *const *src, int ns, size_t n) \
    {                                                                                      \
        switch (ns) {                                                                      \
        case 0: break;                                                                     \
        case 1: NAME##_1(d, src[0], n); break;                                             \
        case 2: NAME##_2(d, src[0], src[1], n); break;                                     \
        case 3: NAME##_3(d, src[0], src[1], src[2], n); break;                             \
        default:                                                                           \
            for (size_t t = 0; t < n; t += EXEC_TILE) {                                    \
                size_t len = n - t < EXEC_TILE ? n - t : EXEC_TILE;                        \
                int g = 0;                                                                 \
                for (; g + 3 <= ns; g += 3)                                                \
                    NAME##_3(d + t, src[g] + t, src[g + 1] + t, src[g + 2] + t, len);      \
                if (ns - g == 2)                                                           \
                    NAME##_2(d + t, src[g] + t, src[g + 1] + t, len);                      \
                else if (ns - g == 1)                                                      \
                    NAME##_1(d + t, src[g] + t, len);                                      \
            }                                                                              \
            break;                                                                         \
        }                                                                                  \
    }

/* clang-format on */

EXEC_KERNELS(k_sum, EXEC_SUM)
EXEC_KERNELS(k_prod, EXEC_PROD)
EXEC_KERNELS(k_min, EXEC_MIN)
EXEC_KERNELS(k_max, EXEC_MAX)

/* Divide rather than multiply by 1/W: the reference divides, and x * (1/3.f) can differ
 * from x / 3.f in the last bit. */
static void k_scale(float *restrict d, float w, size_t n)
{
    size_t i = 0;
    for (; i + EXEC_VEC <= n; i += EXEC_VEC)
        for (size_t j = 0; j < EXEC_VEC; j++)
            d[i + j] = d[i + j] / w;
    for (; i < n; i++)
        d[i] = d[i] / w;
}

/* A copy of at least EXEC_STREAM_MIN bytes streams its stores past the caches (SSE2's
 * non-temporal stores, part of every x86-64): a plain store first reads the destination's
 * line from memory, so a copy into a buffer not in cache moves three bytes of memory per
 * byte copied; streamed, two. glibc's memcpy streams only above its
 * x86_non_temporal_threshold (48 MiB with glibc 2.36 on the 2-core VM with 8 MiB of L3
 * this was measured on), so the all-gathers' 16 MiB chunks at 64 MiB went through the
 * cache: a streamed 16 MiB copy ran at 9.4 GB/s there against memcpy's 6.2. A copy this
 * large is not read back from cache anyway, while a small one may be: below the threshold
 * memcpy keeps it in cache for the next step. */
#define EXEC_STREAM_MIN (1u << 20)

static void copy_floats(float *d, const float *s, size_t n)
{
    if (d == s) return;
    if (n * sizeof *d >= EXEC_STREAM_MIN)
        floats_copy_stream(d, s, n);
    else
        memcpy(d, s, n * sizeof *d);
}

typedef void (*fused_fn)(float *restrict, const float *const *, int, size_t);

static fused_fn fused_kernel(enum redop op)
{
    switch (op) {
    case OP_PROD:
        return k_prod_fused;
    case OP_MIN:
        return k_min_fused;
    case OP_MAX:
        return k_max_fused;
    default:
        return k_sum_fused; /* SUM, and AVG (divided later by an XFER_SCALE) */
    }
}

void exec_xfer(const struct plan *p, const struct xfer *x, float *dst_buf, const float *src_buf)
{
    float *d = dst_buf + x->dst_off;
    switch (x->kind) {
    case XFER_COPY:
        copy_floats(d, src_buf + x->src_off, x->count);
        break;
    case XFER_REDUCE: {
        const float *s = src_buf + x->src_off;
        fused_kernel(p->op)(d, &s, 1, x->count);
        break;
    }
    case XFER_SCALE:
        k_scale(d, (float)p->nranks, x->count);
        break;
    }
}

void exec_step_rank(const struct plan *p, size_t s, int rank, float *const *bufs)
{
    const struct step *st = &p->steps[s];
    size_t end = st->first + st->n;
    float *mine = bufs[rank];
    fused_fn fn = fused_kernel(p->op);

    size_t i = st->first;
    while (i < end) {
        const struct xfer *x = &p->x[i];
        if (x->dst != rank) {
            i++;
            continue;
        }
        if (x->kind != XFER_REDUCE) {
            exec_xfer(p, x, mine, bufs[x->src]);
            i++;
            continue;
        }
        /* Gather this rank's consecutive reductions into the same range; transfers to
         * other ranks in between touch other buffers and do not break the group. */
        const float *src[EXEC_GROUP_MAX];
        int ng = 0;
        size_t j = i;
        while (j < end && ng < EXEC_GROUP_MAX) {
            const struct xfer *y = &p->x[j];
            if (y->dst != rank) {
                j++;
                continue;
            }
            if (y->kind != XFER_REDUCE || y->dst_off != x->dst_off || y->count != x->count)
                break;
            src[ng++] = bufs[y->src] + y->src_off;
            j++;
        }
        fn(mine + x->dst_off, src, ng, x->count);
        i = j;
    }
}

void exec_xfers(const struct plan *p, const size_t *idx, size_t n, float *const *bufs)
{
    fused_fn fn = fused_kernel(p->op);
    size_t i = 0;
    while (i < n) {
        const struct xfer *x = &p->x[idx[i]];
        if (x->kind != XFER_REDUCE) {
            exec_xfer(p, x, bufs[x->dst], bufs[x->src]);
            i++;
            continue;
        }
        const float *src[EXEC_GROUP_MAX];
        int ng = 0;
        size_t j = i;
        while (j < n && ng < EXEC_GROUP_MAX) {
            const struct xfer *y = &p->x[idx[j]];
            if (y->kind != XFER_REDUCE || y->dst != x->dst || y->dst_off != x->dst_off ||
                y->count != x->count)
                break;
            src[ng++] = bufs[y->src] + y->src_off;
            j++;
        }
        fn(bufs[x->dst] + x->dst_off, src, ng, x->count);
        i = j;
    }
}

/* xorshift64*: a small, fixed generator, so a failing interleaving can be replayed. */
static uint64_t exec_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

int exec_plan_deps(const struct plan *p, float *const *bufs, uint64_t seed)
{
    int W = p->nranks;
    size_t nx = p->nx;
    if (nx == 0) return CV_OK;
    if (!p->order || !p->dep_first) return CV_EINVAL;
    /* Each rank's transfers in execution order. */
    size_t *mine = xmalloc(nx * sizeof *mine), first[CV_MAX_RANKS + 1] = {0};
    size_t fill[CV_MAX_RANKS] = {0}, done[CV_MAX_RANKS] = {0};
    for (size_t i = 0; i < nx; i++)
        first[p->x[i].by + 1]++;
    for (int r = 0; r < W; r++)
        first[r + 1] += first[r];
    for (size_t k = 0; k < nx; k++) {
        size_t i = p->order[k];
        int r = p->x[i].by;
        mine[first[r] + fill[r]++] = i;
    }
    uint64_t rng = seed ? seed : 1;
    int rc = CV_OK, turn = 0;
    for (size_t ran = 0; ran < nx;) {
        int start = seed ? (int)(exec_rand(&rng) % (uint64_t)W) : turn;
        bool moved = false;
        for (int t = 0; t < W && !moved; t++) {
            int r = (start + t) % W;
            if (first[r] + done[r] == first[r + 1]) continue;
            size_t i = mine[first[r] + done[r]];
            bool ready = true;
            for (size_t d = p->dep_first[i]; d < p->dep_first[i + 1] && ready; d++) {
                const struct xfer *y = &p->x[p->dep[d]];
                if (y->by != r && done[y->by] <= y->seq) ready = false;
            }
            if (!ready) continue;
            exec_xfers(p, &i, 1, bufs);
            done[r]++;
            ran++;
            moved = true;
            turn = (r + 1) % W;
        }
        if (!moved) {
            rc = CV_EINVAL;
            break;
        }
    }
    free(mine);
    return rc;
}
