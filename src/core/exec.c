/* exec.c - the arithmetic of a transfer, shared by the trace executor (a few elements) and
 * the CPU backend's rank threads (tens of MiB), so the picture and the measurement run
 * the same code.
 *
 * Speed matters at measurement scale: a direct reduce has W-1 reductions into the same
 * destination range in one step. Applied one after the other, each would stream the whole
 * destination through the cache again; instead they are applied tile by tile (every
 * reduction of the group on tile 0, then on tile 1, ...), so the destination tile stays in
 * L1 while the sources stream past. Each element still sees its operations in plan order,
 * so the result is bitwise the same as the naive loop.
 *
 * The kernels work in blocks of EXEC_VEC elements with a constant-length inner loop, which
 * gcc -O2 (whose default "very cheap" vectorizer cost model refuses loops that need a
 * scalar epilogue) turns into vector code; the short remainder runs scalar. Ranges never
 * overlap within a transfer (plan.h), hence restrict. */
#include "exec.h"

#include <string.h>

#define EXEC_TILE 2048    /* floats: 8 KiB of destination, well inside L1 */
#define EXEC_VEC 16       /* one block = one or more vector registers at every ISA level */
#define EXEC_GROUP_MAX 64 /* reductions gathered into one tiled pass */

static void k_sum(float *restrict d, const float *restrict s, size_t n)
{
    size_t i = 0;
    for (; i + EXEC_VEC <= n; i += EXEC_VEC)
        for (size_t j = 0; j < EXEC_VEC; j++)
            d[i + j] = d[i + j] + s[i + j];
    for (; i < n; i++)
        d[i] = d[i] + s[i];
}

static void k_prod(float *restrict d, const float *restrict s, size_t n)
{
    size_t i = 0;
    for (; i + EXEC_VEC <= n; i += EXEC_VEC)
        for (size_t j = 0; j < EXEC_VEC; j++)
            d[i + j] = d[i + j] * s[i + j];
    for (; i < n; i++)
        d[i] = d[i] * s[i];
}

/* Same comparison as redop_apply(op, dst, src), so NaNs and signed zeros agree too. */
static void k_min(float *restrict d, const float *restrict s, size_t n)
{
    size_t i = 0;
    for (; i + EXEC_VEC <= n; i += EXEC_VEC)
        for (size_t j = 0; j < EXEC_VEC; j++)
            d[i + j] = s[i + j] < d[i + j] ? s[i + j] : d[i + j];
    for (; i < n; i++)
        d[i] = s[i] < d[i] ? s[i] : d[i];
}

static void k_max(float *restrict d, const float *restrict s, size_t n)
{
    size_t i = 0;
    for (; i + EXEC_VEC <= n; i += EXEC_VEC)
        for (size_t j = 0; j < EXEC_VEC; j++)
            d[i + j] = s[i + j] > d[i + j] ? s[i + j] : d[i + j];
    for (; i < n; i++)
        d[i] = s[i] > d[i] ? s[i] : d[i];
}

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

typedef void (*reduce_fn)(float *restrict, const float *restrict, size_t);

static reduce_fn reduce_kernel(enum redop op)
{
    switch (op) {
    case OP_PROD:
        return k_prod;
    case OP_MIN:
        return k_min;
    case OP_MAX:
        return k_max;
    default:
        return k_sum; /* SUM, and AVG (divided later by an XFER_SCALE) */
    }
}

void exec_xfer(const struct plan *p, const struct xfer *x, float *dst_buf, const float *src_buf)
{
    float *d = dst_buf + x->dst_off;
    switch (x->kind) {
    case XFER_COPY:
        if (src_buf + x->src_off != d) memcpy(d, src_buf + x->src_off, x->count * sizeof *d);
        break;
    case XFER_REDUCE:
        reduce_kernel(p->op)(d, src_buf + x->src_off, x->count);
        break;
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
    reduce_fn fn = reduce_kernel(p->op);

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
        float *d = mine + x->dst_off;
        if (ng == 1) {
            fn(d, src[0], x->count);
        } else {
            for (size_t t = 0; t < x->count; t += EXEC_TILE) {
                size_t len = x->count - t < EXEC_TILE ? x->count - t : EXEC_TILE;
                for (int g = 0; g < ng; g++)
                    fn(d + t, src[g] + t, len);
            }
        }
        i = j;
    }
}
