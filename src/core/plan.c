/* plan.c - the algorithms. Each one emits a plan: an ordered list of steps, each a set of
 * transfers between the ranks' working buffers (layout in coll.h), with a phase label, a
 * one-sentence description for the screen, and a summary of the whole algorithm. The UI
 * animates these plans (through trace.c) and the CPU backend executes them (through
 * exec.c), so this file is the single statement of how each algorithm moves data.
 *
 * Every plan obeys the execution rule of plan.h: within a step no transfer reads a range
 * that a transfer with a different destination writes. Rings and chains get it by moving
 * different chunks on neighbouring links, trees by having one tree level talk to the next,
 * direct algorithms by reading only ranges that nobody writes in that step.
 *
 * Numbering: ring all-reduce and reduce-scatter follow NCCL (src/device/all_reduce.h,
 * runRing): at step 0 rank r sends chunk (r-1) mod W, so chunk c starts on rank c+1 and is
 * completed on rank c, which is where reduce-scatter's output for rank c must end up. */
#include "core/plan.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/vec.h"

/* ---- building a plan ---------------------------------------------------------------- */

struct builder {
    struct plan *p;
    size_t cap_steps, cap_x;
};

static void builder_begin(struct builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void builder_begin(struct builder *b, const char *fmt, ...)
{
    struct plan *p = b->p;
    struct step *st = VEC_PUSH(p->steps, p->nsteps, b->cap_steps);
    memset(st, 0, sizeof *st);
    st->first = p->nx;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->phase, sizeof st->phase, fmt, ap);
    va_end(ap);
}

static struct step *builder_cur(struct builder *b)
{
    return &b->p->steps[b->p->nsteps - 1];
}

static void builder_add(struct builder *b, int src, int dst, size_t src_off, size_t dst_off,
                        size_t count, enum xfer_kind kind, int chunk)
{
    struct plan *p = b->p;
    if (count == 0) return;
    *VEC_PUSH(p->x, p->nx, b->cap_x) = (struct xfer){
        .src = src,
        .dst = dst,
        .src_off = src_off,
        .dst_off = dst_off,
        .count = count,
        .kind = kind,
        .chunk = chunk,
        .by = dst,
    };
    builder_cur(b)->n++;
}

/* A transfer run by rank `by` rather than by its destination (the owner all-reduce). */
static void builder_add_by(struct builder *b, int by, int src, int dst, size_t off,
                           size_t count, enum xfer_kind kind, int chunk)
{
    size_t before = b->p->nx;
    builder_add(b, src, dst, off, off, count, kind, chunk);
    if (b->p->nx > before) b->p->x[before].by = by;
}

/* Close the current step; a step that ended up with no transfers (only empty chunks) is
 * dropped, so every step on screen moves something. */
static void builder_end(struct builder *b)
{
    if (builder_cur(b)->n == 0) b->p->nsteps--;
}

/* A bounded string appender for the step sentences: lists of transfers can outgrow
 * step.what at 16 ranks, and the caller then falls back to a general sentence. */
struct sbuf {
    char s[512];
    size_t len;
};

static void sb_printf(struct sbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
    if (sb->len >= sizeof sb->s - 1) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(sb->s + sb->len, sizeof sb->s - sb->len, fmt, ap);
    va_end(ap);
    if (n > 0) sb->len += (size_t)n;
    if (sb->len > sizeof sb->s - 1) sb->len = sizeof sb->s - 1;
}

/* Set the current step's sentence: `detailed` if it fits, else `general`. */
static void builder_what(struct builder *b, const struct sbuf *detailed, const char *general)
{
    struct step *st = builder_cur(b);
    if (detailed && detailed->len < sizeof st->what)
        memcpy(st->what, detailed->s, detailed->len + 1);
    else
        snprintf(st->what, sizeof st->what, "%s", general);
}

static void builder_whatf(struct builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void builder_whatf(struct builder *b, const char *fmt, ...)
{
    struct step *st = builder_cur(b);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->what, sizeof st->what, fmt, ap);
    va_end(ap);
}

static void builder_summary(struct builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void builder_summary(struct builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->p->summary, sizeof b->p->summary, fmt, ap);
    va_end(ap);
}

/* Appends to the summary; the buffer is sized so that the longest summary and its
 * clause fit (test_plan fails on a summary that fills it). */
static void builder_summary_add(struct builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void builder_summary_add(struct builder *b, const char *fmt, ...)
{
    size_t l = strlen(b->p->summary);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->p->summary + l, sizeof b->p->summary - l, fmt, ap);
    va_end(ap);
}

/* "s" after a count other than 1: "1 step", "3 steps". */
static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

static int mod(int a, int w)
{
    return ((a % w) + w) % w;
}

/* "rank r+1" is read modulo W in every sentence below. */
static const char *op_into(enum redop op)
{
    switch (op) {
    case OP_PROD:
        return "multiplies";
    case OP_MIN:
        return "min-reduces";
    case OP_MAX:
        return "max-reduces";
    default:
        return "adds";
    }
}

static const char *op_combine_chunk(enum redop op)
{
    switch (op) {
    case OP_PROD:
        return "multiplies it into its own copy of that chunk";
    case OP_MIN:
        return "keeps the element-wise minimum of it and its own copy of that chunk";
    case OP_MAX:
        return "keeps the element-wise maximum of it and its own copy of that chunk";
    default:
        return "adds it to its own copy of that chunk";
    }
}

void chunk_range(size_t n, int parts, int k, size_t *start, size_t *end)
{
    size_t P = parts > 0 ? (size_t)parts : 1, K = (size_t)k;
    size_t base = n / P, rem = n % P;
    *start = K * base + (K < rem ? K : rem);
    *end = *start + base + (K < rem ? 1 : 0);
}

/* ---- rings ----------------------------------------------------------------------------- */

/* The ring is 0, 1, ..., W-1: the plans' own words ("rank r+1") hold. */
static bool ring_is_identity(const struct plan *p)
{
    for (int i = 0; i < p->nranks; i++)
        if (p->ring[i] != i) return false;
    return true;
}

/* Where rank r sits in the ring. */
static int ring_pos(const struct plan *p, int r)
{
    for (int i = 0; i < p->nranks; i++)
        if (p->ring[i] == r) return i;
    return 0;
}

/* The reduce-scatter half of a ring over W chunks (start[c], len[c]): at step s rank r
 * sends chunk (r-1-s) mod W to rank r+1, which reduces it into the same chunk. After W-1
 * steps rank r holds chunk r reduced over all ranks. */
static void ring_reduce_scatter(struct builder *b, const size_t *start, const size_t *len)
{
    int W = b->p->nranks;
    const int *ring = b->p->ring;
    for (int s = 0; s < W - 1; s++) {
        builder_begin(b, "reduce-scatter %d/%d", s + 1, W - 1);
        for (int i = 0; i < W; i++) {
            int c = ring[mod(i - 1 - s, W)];
            builder_add(b, ring[i], ring[(i + 1) % W], start[c], start[c], len[c], XFER_REDUCE,
                        c);
        }
        if (ring_is_identity(b->p))
            builder_whatf(b, "Every rank r sends chunk (r-%d) mod %d to rank r+1, which %s%s.",
                          s + 1, W, op_combine_chunk(b->p->op),
                          s == W - 2 ? "; now rank r holds chunk r fully reduced" : "");
        else
            builder_whatf(
                b, "Every rank sends a chunk to the next rank in the ring order, which %s%s.",
                op_combine_chunk(b->p->op),
                s == W - 2 ? "; now rank r holds chunk r fully reduced" : "");
        builder_end(b);
    }
}

/* The all-gather half: rank r starts with its finished chunk r; at step t (from 0 here, from
 * 1 on screen) it sends chunk (r-t) mod W to rank r+1, which stores it. */
static void ring_all_gather(struct builder *b, const size_t *start, const size_t *len,
                            const char *own)
{
    int W = b->p->nranks;
    const int *ring = b->p->ring;
    for (int t = 0; t < W - 1; t++) {
        builder_begin(b, "all-gather %d/%d", t + 1, W - 1);
        for (int i = 0; i < W; i++) {
            int c = ring[mod(i - t, W)];
            builder_add(b, ring[i], ring[(i + 1) % W], start[c], start[c], len[c], XFER_COPY,
                        c);
        }
        if (!ring_is_identity(b->p))
            builder_whatf(
                b,
                "Every rank sends the chunk it %s to the next rank in the ring order, "
                "which stores it.",
                t == 0 ? "owns" : "received in the previous step");
        else if (t == 0)
            builder_whatf(b, "Every rank r sends its %s chunk r to rank r+1, which stores it.",
                          own);
        else
            builder_whatf(
                b,
                "Every rank r forwards chunk (r-%d) mod %d, received in the previous step, "
                "to rank r+1, which stores it.",
                t, W);
        builder_end(b);
    }
}

/* A pipelined chain (NCCL's ring broadcast and reduce): the buffer is cut into
 * nch = min(count, W) chunks; at step s the link from chain position i to i+1 carries
 * chunk s-i, so chunks follow each other down the chain one hop per step.
 * chain[i] is the rank at position i; `reduce` makes every hop a reduction. */
static void chain(struct builder *b, const int *chain_ranks, bool reduce)
{
    struct plan *p = b->p;
    int W = p->nranks;
    int nch = p->count < (size_t)W ? (int)p->count : W;
    size_t start[CV_MAX_RANKS], len[CV_MAX_RANKS];
    for (int k = 0; k < nch; k++) {
        size_t e;
        chunk_range(p->count, W, k, &start[k], &e);
        len[k] = e - start[k];
    }
    int total = nch + W - 2;
    for (int s = 0; s < total; s++) {
        builder_begin(b, "%s %d/%d", reduce ? "reduce" : "broadcast", s + 1, total);
        struct sbuf sb = {0};
        sb_printf(&sb, "%s: ", reduce ? "Up the chain" : "Down the chain");
        int n = 0;
        for (int i = 0; i < W - 1; i++) {
            int k = s - i;
            if (k < 0 || k >= nch) continue;
            int from = chain_ranks[i], to = chain_ranks[i + 1];
            builder_add(b, from, to, start[k], start[k], len[k],
                        reduce ? XFER_REDUCE : XFER_COPY, k);
            if (reduce)
                sb_printf(&sb, "%srank %d %s chunk %d into rank %d", n ? ", " : "", from,
                          op_into(p->op), k, to);
            else
                sb_printf(&sb, "%srank %d copies chunk %d to rank %d", n ? ", " : "", from, k,
                          to);
            n++;
        }
        sb_printf(&sb, ".");
        builder_what(
            b, &sb,
            reduce ? "Each rank in the chain reduces the chunk it finished last step into "
                     "the next rank, one hop closer to the root."
                   : "Each rank in the chain forwards the chunk it received last step to "
                     "the next rank.");
        builder_end(b);
    }
}

/* ---- binary trees ---------------------------------------------------------------------- */

static int tree_depth(int v)
{
    int d = 0;
    while (v > 0) {
        v = (v - 1) / 2;
        d++;
    }
    return d;
}

/* Broadcast down a binary tree over relative ranks v = (r - root) mod W: parent (v-1)/2,
 * children 2v+1 and 2v+2. One step per level; a parent copies the whole buffer. */
static void tree_broadcast(struct builder *b, int root)
{
    struct plan *p = b->p;
    int W = p->nranks, D = tree_depth(W - 1);
    for (int d = 0; d < D; d++) {
        builder_begin(b, "broadcast %d/%d", d + 1, D);
        struct sbuf sb = {0};
        sb_printf(&sb, "Depth %d copies the whole buffer one level down: ", d);
        int n = 0;
        for (int v = 0; v < W; v++) {
            if (tree_depth(v) != d) continue;
            for (int c = 2 * v + 1; c <= 2 * v + 2 && c < W; c++) {
                int from = (v + root) % W, to = (c + root) % W;
                builder_add(b, from, to, 0, 0, p->count, XFER_COPY, -1);
                sb_printf(&sb, "%srank %d -> rank %d", n ? ", " : "", from, to);
                n++;
            }
        }
        sb_printf(&sb, ".");
        char general[120];
        snprintf(
            general, sizeof general,
            "The ranks at depth %d copy the whole buffer to their children (%d transfers).", d,
            n);
        builder_what(b, &sb, general);
        builder_end(b);
    }
}

/* Reduce up the same tree, deepest level first: children reduce their whole buffer into
 * their parent (first child, then second, in plan order). */
static void tree_reduce(struct builder *b, int root)
{
    struct plan *p = b->p;
    int W = p->nranks, D = tree_depth(W - 1);
    for (int d = D; d >= 1; d--) {
        builder_begin(b, "reduce %d/%d", D - d + 1, D);
        struct sbuf sb = {0};
        sb_printf(&sb, "Depth %d sends its partial results up: ", d);
        int n = 0;
        for (int u = 0; u < W; u++) {
            if (tree_depth(u) != d - 1) continue;
            for (int c = 2 * u + 1; c <= 2 * u + 2 && c < W; c++) {
                int from = (c + root) % W, to = (u + root) % W;
                builder_add(b, from, to, 0, 0, p->count, XFER_REDUCE, -1);
                sb_printf(&sb, "%srank %d %s its buffer into rank %d", n ? ", " : "", from,
                          op_into(p->op), to);
                n++;
            }
        }
        sb_printf(&sb, ".");
        char general[120];
        snprintf(general, sizeof general,
                 "The ranks at depth %d reduce their whole buffer into their parents (%d "
                 "transfers).",
                 d, n);
        builder_what(b, &sb, general);
        builder_end(b);
    }
}

/* ---- the collectives ------------------------------------------------------------------- */

/* Op avg in an all-reduce that completes chunk r on rank r before handing the chunks out
 * (ring, direct, owner): rank r divides its finished chunk r once, between the two halves,
 * so the rest of the plan moves averages. That is 1/W of the division (and of its memory
 * traffic) that dividing every rank's whole buffer at the end would cost. */
static void average_own_chunks(struct builder *b, const size_t *start, const size_t *len)
{
    struct plan *p = b->p;
    int W = p->nranks;
    if (p->op != OP_AVG || W == 1) return;
    builder_begin(b, "average");
    for (int r = 0; r < W; r++)
        builder_add(b, r, r, start[r], start[r], len[r], XFER_SCALE, r);
    builder_whatf(b,
                  "Every rank r divides its fully reduced chunk r by %d, which makes it the "
                  "average; only averages are handed on.",
                  W);
    builder_end(b);
}

/* The owner all-reduce: rank r alone touches chunk r, in every buffer. It reads chunk r of
 * every rank, reduces them (its own copy first, then the others in rank order), and writes
 * the result straight into chunk r of every other rank. No other rank reads or writes chunk
 * r, so nothing but rank r's own order has to be waited for: refined into slices, rank r
 * runs slice k through reduce, (average) and write-out while it is still in cache. Every
 * buffer is read once and written once, the least traffic an all-reduce can have on ranks
 * that share one memory. Its average (op avg) divides chunk r once, before it is written
 * out, instead of dividing every rank's whole buffer afterwards. */
static void build_owner(struct builder *b, const size_t *start, const size_t *len)
{
    struct plan *p = b->p;
    int W = p->nranks;
    builder_begin(b, "reduce");
    for (int r = 0; r < W; r++)
        for (int q = 0; q < W; q++)
            if (q != r) builder_add_by(b, r, q, r, start[r], len[r], XFER_REDUCE, r);
    builder_whatf(
        b,
        "Every rank r reads chunk r of every other rank and %s them into its own chunk r, "
        "in rank order; rank r is the only one that touches chunk r.",
        op_into(p->op));
    builder_end(b);
    average_own_chunks(b, start, len);
    builder_begin(b, "write out");
    for (int r = 0; r < W; r++)
        for (int q = 0; q < W; q++)
            if (q != r) builder_add_by(b, r, r, q, start[r], len[r], XFER_COPY, r);
    builder_whatf(
        b, "Every rank r writes its finished chunk r straight into chunk r of every other "
           "rank (it pushes; the receivers do nothing).");
    builder_end(b);
    builder_summary(b,
                    "owner: rank r alone reduces chunk r from all %d ranks and writes it into "
                    "every rank; each buffer is read once and written once",
                    W);
}

static void build_all_reduce(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks;
    size_t start[CV_MAX_RANKS] = {0}, len[CV_MAX_RANKS] = {0};
    for (int c = 0; c < W; c++) {
        size_t e;
        chunk_range(p->count, W, c, &start[c], &e);
        len[c] = e - start[c];
    }
    switch (p->algo) {
    case ALGO_RING:
        ring_reduce_scatter(b, start, len);
        average_own_chunks(b, start, len);
        ring_all_gather(b, start, len, p->op == OP_AVG ? "averaged" : "fully reduced");
        builder_summary(
            b,
            "ring: reduce-scatter (%d step%s) then all-gather (%d step%s) over %d "
            "chunks; chunk c is completed on rank c (numbered as in NCCL; a teaching "
            "model)",
            W - 1, plural(W - 1), W - 1, plural(W - 1), W);
        break;
    case ALGO_TREE: {
        int D = tree_depth(W - 1);
        tree_reduce(b, 0);
        if (p->op == OP_AVG && W > 1) {
            builder_begin(b, "average");
            builder_add(b, 0, 0, 0, 0, p->count, XFER_SCALE, -1);
            builder_whatf(
                b, "Rank 0 divides the sum by %d, so the broadcast hands out the average.", W);
            builder_end(b);
        }
        tree_broadcast(b, 0);
        builder_summary(
            b,
            "tree: reduce up a binary tree to rank 0, then broadcast down it (%d step%s); "
            "NCCL runs two complementary trees at once (double binary tree)",
            2 * D, plural(2 * D));
        break;
    }
    case ALGO_DIRECT:
        builder_begin(b, "reduce-scatter");
        for (int dst = 0; dst < W; dst++)
            for (int src = 0; src < W; src++)
                if (src != dst)
                    builder_add(b, src, dst, start[dst], start[dst], len[dst], XFER_REDUCE,
                                dst);
        builder_whatf(
            b,
            "Every rank r fetches chunk r from every other rank and %s them into its own "
            "chunk r, in rank order.",
            op_into(p->op));
        builder_end(b);
        average_own_chunks(b, start, len);
        builder_begin(b, "all-gather");
        for (int dst = 0; dst < W; dst++)
            for (int src = 0; src < W; src++)
                if (src != dst)
                    builder_add(b, src, dst, start[src], start[src], len[src], XFER_COPY, src);
        builder_whatf(b, "Every rank r fetches every other chunk c, fully %s, from rank c.",
                      p->op == OP_AVG ? "averaged" : "reduced");
        builder_end(b);
        builder_summary(
            b,
            "direct: every rank reduces its own chunk from all others, then fetches every "
            "other chunk (2 steps, %d chunks)",
            W);
        break;
    case ALGO_OWNER:
        build_owner(b, start, len);
        break;
    case ALGO_COUNT:
        break;
    }
}

/* The layout of reduce-scatter and all-gather: W chunks of `count`, chunk c at c*count
 * (rank c's piece). */
static void per_rank_chunks(const struct plan *p, size_t *start, size_t *len)
{
    for (int c = 0; c < p->nranks; c++) {
        start[c] = (size_t)c * p->count;
        len[c] = p->count;
    }
}

static void build_reduce_scatter(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks;
    size_t start[CV_MAX_RANKS] = {0}, len[CV_MAX_RANKS] = {0};
    per_rank_chunks(p, start, len);
    if (p->algo == ALGO_RING) {
        ring_reduce_scatter(b, start, len);
        builder_summary(
            b,
            "ring: %d step%s; chunk c starts on rank c+1, picks up one rank's data per hop "
            "and is completed on rank c (numbered as in NCCL; a teaching model)",
            W - 1, plural(W - 1));
        return;
    }
    builder_begin(b, "reduce-scatter");
    for (int dst = 0; dst < W; dst++)
        for (int src = 0; src < W; src++)
            if (src != dst)
                builder_add(b, src, dst, start[dst], start[dst], len[dst], XFER_REDUCE, dst);
    builder_whatf(
        b,
        "Every rank r fetches chunk r from every other rank and %s them into its own chunk "
        "r, in rank order.",
        op_into(p->op));
    builder_end(b);
    builder_summary(
        b, "direct: in one step every rank reduces its own chunk r from all %d ranks", W);
}

static void build_all_gather(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks;
    size_t start[CV_MAX_RANKS] = {0}, len[CV_MAX_RANKS] = {0};
    per_rank_chunks(p, start, len);
    if (p->algo == ALGO_RING) {
        ring_all_gather(b, start, len, "own");
        builder_summary(
            b,
            "ring: %d step%s; rank r starts with chunk r and passes each chunk on to rank "
            "r+1 (at step t it sends chunk (r-t+1) mod %d)",
            W - 1, plural(W - 1), W);
        return;
    }
    builder_begin(b, "all-gather");
    for (int src = 0; src < W; src++)
        for (int dst = 0; dst < W; dst++)
            if (src != dst)
                builder_add(b, src, dst, start[src], start[src], len[src], XFER_COPY, src);
    builder_whatf(
        b, "Every rank r copies its piece into slot r of every other rank (%d transfers).",
        W * (W - 1));
    builder_end(b);
    builder_summary(b, "direct: in one step every rank copies its piece to all %d others",
                    W - 1);
}

static void build_broadcast(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks, root = p->root;
    switch (p->algo) {
    case ALGO_RING: {
        int ranks[CV_MAX_RANKS] = {0}, at = ring_pos(p, root);
        for (int i = 0; i < W; i++)
            ranks[i] = p->ring[(at + i) % W];
        chain(b, ranks, false);
        int nch = p->count < (size_t)W ? (int)p->count : W;
        builder_summary(b,
                        "ring: a pipelined chain from rank %d (%d -> %d -> ...); %d chunk%s "
                        "%s one hop per step (%d step%s)",
                        root, root, ranks[W > 1 ? 1 : 0], nch, plural(nch),
                        nch == 1 ? "moves" : "follow each other", W > 1 ? nch + W - 2 : 0,
                        plural(W > 1 ? nch + W - 2 : 0));
        break;
    }
    case ALGO_TREE:
        tree_broadcast(b, root);
        builder_summary(
            b,
            "tree: rank %d sends down a binary tree, one level per step (%d step%s); "
            "children of relative rank v are 2v+1 and 2v+2",
            root, tree_depth(W - 1), plural(tree_depth(W - 1)));
        break;
    case ALGO_DIRECT:
        builder_begin(b, "broadcast");
        for (int r = 0; r < W; r++)
            if (r != root) builder_add(b, root, r, 0, 0, p->count, XFER_COPY, -1);
        builder_whatf(b, "Rank %d copies the whole buffer to every other rank at once.", root);
        builder_end(b);
        builder_summary(b,
                        "direct: rank %d copies the buffer to all %d other ranks in one step",
                        root, W - 1);
        break;
    case ALGO_OWNER: /* all-reduce only (algo_supported) */
    case ALGO_COUNT:
        break;
    }
}

static void build_reduce(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks, root = p->root;
    switch (p->algo) {
    case ALGO_RING: {
        int ranks[CV_MAX_RANKS] = {0}, at = ring_pos(p, root);
        for (int i = 0; i < W; i++)
            ranks[i] = p->ring[(at + 1 + i) % W];
        chain(b, ranks, true);
        int nch = p->count < (size_t)W ? (int)p->count : W;
        builder_summary(
            b,
            "ring: a pipelined chain ending at rank %d (%d -> ... -> %d); %d chunk%s, "
            "each rank reducing in its data (%d step%s)",
            root, ranks[0], root, nch, plural(nch), W > 1 ? nch + W - 2 : 0,
            plural(W > 1 ? nch + W - 2 : 0));
        break;
    }
    case ALGO_TREE:
        tree_reduce(b, root);
        builder_summary(
            b,
            "tree: children reduce into parents up a binary tree to rank %d, deepest "
            "level first (%d step%s)",
            root, tree_depth(W - 1), plural(tree_depth(W - 1)));
        break;
    case ALGO_DIRECT:
        builder_begin(b, "reduce");
        for (int r = 0; r < W; r++)
            if (r != root) builder_add(b, r, root, 0, 0, p->count, XFER_REDUCE, -1);
        builder_whatf(
            b, "Every other rank sends its buffer to rank %d, which %s them in rank order.",
            root, op_into(p->op));
        builder_cur(b)->shared = true;
        builder_end(b);
        builder_summary(
            b, "direct: all %d other ranks send to rank %d, which reduces in rank order", W - 1,
            root);
        break;
    case ALGO_OWNER: /* all-reduce only (algo_supported) */
    case ALGO_COUNT:
        break;
    }
}

static void build_scatter(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks, root = p->root;
    size_t n = p->count;
    builder_begin(b, "scatter");
    for (int r = 0; r < W; r++)
        if (r != root) builder_add(b, root, r, (size_t)r * n, (size_t)r * n, n, XFER_COPY, r);
    builder_whatf(
        b, "Rank %d copies chunk r of its buffer to each rank r; chunk %d stays where it is.",
        root, root);
    builder_end(b);
    builder_summary(b, "direct: rank %d sends chunk r to rank r, all in one step", root);
}

static void build_gather(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks, root = p->root;
    size_t n = p->count;
    builder_begin(b, "gather");
    /* Run by the sender: W-1 ranks copy at once (as scatter's receivers pull at once)
     * instead of the root copying every piece alone, one core for all the bytes. */
    for (int r = 0; r < W; r++)
        if (r != root) builder_add_by(b, r, r, root, (size_t)r * n, n, XFER_COPY, r);
    builder_whatf(
        b, "Every rank r copies its piece into slot r of rank %d's buffer (it pushes).", root);
    builder_end(b);
    builder_summary(b, "direct: every rank r sends its piece to slot r on rank %d in one step",
                    root);
}

/* Pairwise exchange: at step k rank r sends the block meant for (r+k) mod W, which lands
 * in block r of that rank's receive half. Each rank sends one block and receives one per
 * step, like NCCL's send/recv-based all-to-all. */
static void build_all_to_all(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks;
    size_t n = p->count, recv = (size_t)W * n;
    int nsteps = W > 1 ? W - 1 : 1;
    for (int k = 1; k <= nsteps; k++) {
        if (W == 1)
            builder_begin(b, "local copy");
        else
            builder_begin(b, "exchange %d/%d", k, W - 1);
        for (int r = 0; r < W; r++) {
            if (k == 1)
                builder_add(b, r, r, (size_t)r * n, recv + (size_t)r * n, n, XFER_COPY, -1);
            if (W > 1) {
                int peer = (r + k) % W;
                builder_add(b, r, peer, (size_t)peer * n, recv + (size_t)r * n, n, XFER_COPY,
                            -1);
            }
        }
        if (W == 1)
            builder_whatf(b, "The only rank copies its block into its receive buffer.");
        else if (k == 1)
            builder_whatf(
                b, "Every rank r copies its own block r into its receive buffer and sends the "
                   "block meant for rank r+1 there, into slot r.");
        else
            builder_whatf(
                b,
                "Every rank r sends the block meant for rank r+%d to that rank, which "
                "stores it in slot r of its receive buffer.",
                k);
        builder_end(b);
    }
    builder_summary(
        b,
        "direct: pairwise exchange, at step k rank r sends block (r+k) mod %d to that rank "
        "(%d step%s); a transpose of the blocks",
        W, nsteps, plural(nsteps));
}

/* Each collective's plans: its builder, which makes the plan of p->algo (one of the
 * algorithms its row in core/coll.c lists), and whether that builder divides for OP_AVG
 * itself (all-reduce divides in the middle; build_average adds the others' last step). */
static const struct coll_plans {
    void (*build)(struct builder *b);
    bool own_average;
} coll_plans[COLL_COUNT] = {
    [COLL_BROADCAST] = {build_broadcast, false},
    [COLL_SCATTER] = {build_scatter, false},
    [COLL_GATHER] = {build_gather, false},
    [COLL_REDUCE] = {build_reduce, false},
    [COLL_ALL_GATHER] = {build_all_gather, false},
    [COLL_REDUCE_SCATTER] = {build_reduce_scatter, false},
    [COLL_ALL_REDUCE] = {build_all_reduce, true},
    [COLL_ALL_TO_ALL] = {build_all_to_all, false},
};

bool plan_has_builder(enum coll c)
{
    return (unsigned)c < COLL_COUNT && coll_plans[c].build;
}

/* AVG reduces with SUM and then divides once by W: reduce and reduce-scatter at the end,
 * on every rank that holds a result; all-reduce in the middle (average_own_chunks, and the
 * tree's root), so no rank divides more than it finished. With one rank there is nothing
 * to divide (x/1 == x). */
static void build_average(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks;
    if (p->op != OP_AVG || !coll_reduces(p->coll) || W == 1) return;
    if (coll_plans[p->coll].own_average) {
        /* built in place, between the reduction and the hand-out (average_own_chunks) */
        size_t s = 0;
        while (s < p->nsteps && strcmp(p->steps[s].phase, "average"))
            s++;
        builder_summary_add(b, "; avg: step %zu divides each sum by %d, once", s + 1, W);
        return;
    }
    builder_begin(b, "average");
    /* every rank that holds a result divides its receive buffer */
    for (int r = 0; r < W; r++) {
        size_t n = coll_recv_count(p->coll, W, p->count, r, p->root);
        size_t off = coll_out_off(p->coll, W, p->count, r);
        if (n) builder_add(b, r, r, off, off, n, XFER_SCALE, coll_is_rooted(p->coll) ? -1 : r);
    }
    if (coll_is_rooted(p->coll)) {
        builder_whatf(b, "Rank %d divides its sum by %d, which makes it the average.", p->root,
                      W);
        /* the direct reduce's sum was spread over the ranks: so is its division */
        builder_cur(b)->shared = p->algo == ALGO_DIRECT;
    } else {
        builder_whatf(b, "Every rank r divides its chunk r by %d, which makes it the average.",
                      W);
    }
    builder_end(b);
    builder_summary_add(b, "; avg: the sum, then a last step divides it by %d", W);
}

static void algo_list(enum coll c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int a = 0; a < ALGO_COUNT; a++) {
        if (!algo_supported(c, (enum algo)a)) continue;
        int k = snprintf(buf + len, n - len, "%s%s", len ? ", " : "", algo_name((enum algo)a));
        if (k < 0 || (size_t)k >= n - len) break;
        len += (size_t)k;
    }
}

int plan_build(struct plan *p, enum coll c, enum algo a, enum redop op, int nranks,
               size_t count, int root, char *err, size_t errlen)
{
    return plan_build_ring(p, c, a, op, nranks, count, root, NULL, err, errlen);
}

int plan_parse_ring(const char *s, int *ring, int *n, char *err, size_t errlen)
{
    *n = 0;
    bool seen[CV_MAX_RANKS] = {false};
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == ',' || *p == '\t')
            p++;
        if (!*p) break;
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p || (*end && *end != ' ' && *end != ',' && *end != '\t') || r < 0 ||
            r >= CV_MAX_RANKS) {
            size_t k = strcspn(p, " ,\t");
            return cv_err(err, errlen, CV_EINVAL, "ring order '%s': '%.*s' is not a rank 0..%d",
                          s, (int)(k > 20 ? 20 : k), p, CV_MAX_RANKS - 1);
        }
        if (seen[r])
            return cv_err(err, errlen, CV_EINVAL, "ring order '%s': rank %ld appears twice", s,
                          r);
        if (*n == CV_MAX_RANKS)
            return cv_err(err, errlen, CV_EINVAL, "ring order '%s': more than %d ranks", s,
                          CV_MAX_RANKS);
        seen[r] = true;
        ring[(*n)++] = (int)r;
        p = end;
    }
    if (*n == 0) return cv_err(err, errlen, CV_EINVAL, "ring order '%s': no ranks", s);
    return CV_OK;
}

/* A ring order fits nranks ranks: each of 0..nranks-1 once. */
static int ring_check(const int *ring, int nranks, char *err, size_t errlen)
{
    bool seen[CV_MAX_RANKS] = {false};
    for (int i = 0; i < nranks; i++) {
        if (ring[i] < 0 || ring[i] >= nranks)
            return cv_err(err, errlen, CV_EINVAL,
                          "ring order: rank %d is not one of the %d ranks 0..%d", ring[i],
                          nranks, nranks - 1);
        if (seen[ring[i]])
            return cv_err(err, errlen, CV_EINVAL, "ring order: rank %d appears twice", ring[i]);
        seen[ring[i]] = true;
    }
    return CV_OK;
}

int plan_build_ring(struct plan *p, enum coll c, enum algo a, enum redop op, int nranks,
                    size_t count, int root, const int *ring, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if ((unsigned)c >= COLL_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "collective %d: unknown", (int)c);
    if ((unsigned)a >= ALGO_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "algorithm %d: unknown", (int)a);
    if ((unsigned)op >= OP_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "op %d: unknown", (int)op);
    if (nranks < 1 || nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: must be 1..%d", nranks, CV_MAX_RANKS);
    if (count < 1) return cv_err(err, errlen, CV_EINVAL, "count 0: must be at least 1");
    /* Offsets reach 2*W*count elements; keep them and their byte sizes far from overflow. */
    if (count > SIZE_MAX / (4 * 2 * CV_MAX_RANKS))
        return cv_err(err, errlen, CV_EINVAL, "count %zu: too large", count);
    if (coll_is_rooted(c) && (root < 0 || root >= nranks))
        return cv_err(err, errlen, CV_EINVAL, "root %d: must be 0..%d", root, nranks - 1);
    if (!plan_has_builder(c))
        return cv_err(err, errlen, CV_EUNSUPPORTED, "%s has no plans", coll_name(c));
    if (!algo_supported(c, a)) {
        char list[64];
        algo_list(c, list, sizeof list);
        return cv_err(err, errlen, CV_EUNSUPPORTED,
                      "algorithm %s is not available for %s (available: %s)", algo_name(a),
                      coll_name(c), list);
    }
    if (ring && ring_check(ring, nranks, err, errlen) != CV_OK) return CV_EINVAL;
    for (int i = 0; i < nranks; i++)
        p->ring[i] = ring ? ring[i] : i;
    p->coll = c;
    p->algo = a;
    p->op = op;
    p->nranks = nranks;
    p->count = count;
    p->root = coll_is_rooted(c) ? root : 0;
    p->work_len = coll_work_len(c, nranks, count);
    p->nslices = p->nchannels = 1;

    struct builder b = {.p = p};
    coll_plans[c].build(&b);
    build_average(&b);

    if (nranks == 1 && p->nsteps == 0)
        builder_summary(&b, "%s: with one rank the input already is the output; nothing moves",
                        algo_name(a));
    return CV_OK;
}

void plan_free(struct plan *p)
{
    if (!p) return;
    free(p->steps);
    free(p->x);
    free(p->dep_first);
    free(p->dep);
    free(p->order);
    free(p->vcounts);
    p->vcounts = NULL;
    p->steps = NULL;
    p->x = NULL;
    p->dep_first = p->dep = p->order = NULL;
    p->nsteps = p->nx = 0;
}

/* ---- all-to-all-v ---------------------------------------------------------------------- */

size_t plan_send_count(const struct plan *p, int r)
{
    if (!p->vcounts) return coll_send_count(p->coll, p->nranks, p->count, r, p->root);
    size_t n = 0;
    for (int d = 0; d < p->nranks; d++)
        n += p->vcounts[(size_t)r * (size_t)p->nranks + (size_t)d];
    return n;
}

size_t plan_recv_count(const struct plan *p, int r)
{
    if (!p->vcounts) return coll_recv_count(p->coll, p->nranks, p->count, r, p->root);
    size_t n = 0;
    for (int s = 0; s < p->nranks; s++)
        n += p->vcounts[(size_t)s * (size_t)p->nranks + (size_t)r];
    return n;
}

/* Where block (s -> d) starts: in s's send half, and in d's receive half (past W*n). */
static size_t a2av_send_off(const struct plan *p, int s, int d)
{
    size_t off = 0, W = (size_t)p->nranks;
    for (int j = 0; j < d; j++)
        off += p->vcounts[(size_t)s * W + (size_t)j];
    return off;
}

static size_t a2av_recv_off(const struct plan *p, int s, int d)
{
    size_t off = (size_t)p->nranks * p->count, W = (size_t)p->nranks;
    for (int q = 0; q < s; q++)
        off += p->vcounts[(size_t)q * W + (size_t)d];
    return off;
}

static void build_all_to_all_v(struct builder *b)
{
    struct plan *p = b->p;
    int W = p->nranks;
    int nsteps = W > 1 ? W - 1 : 1;
    for (int k = 1; k <= nsteps; k++) {
        if (W == 1)
            builder_begin(b, "local copy");
        else
            builder_begin(b, "exchange %d/%d", k, W - 1);
        for (int r = 0; r < W; r++) {
            if (k == 1)
                builder_add(b, r, r, a2av_send_off(p, r, r), a2av_recv_off(p, r, r),
                            p->vcounts[(size_t)r * (size_t)W + (size_t)r], XFER_COPY, -1);
            if (W > 1) {
                int peer = (r + k) % W;
                builder_add(b, r, peer, a2av_send_off(p, r, peer), a2av_recv_off(p, r, peer),
                            p->vcounts[(size_t)r * (size_t)W + (size_t)peer], XFER_COPY, -1);
            }
        }
        if (k == 1)
            builder_whatf(
                b, "Every rank r keeps the block it routes to itself and sends its block "
                   "for rank r+1 (as many elements as its counts row says; none when 0).");
        else
            builder_whatf(b,
                          "Every rank r sends its block for rank r+%d, of its own size; the "
                          "receiver packs it after the blocks of the lower ranks.",
                          k);
        builder_end(b);
    }
    builder_summary(
        b,
        "direct: all-to-all-v, pairwise exchange with uneven blocks, at step k rank r "
        "sends its block for (r+k) mod %d (%d step%s); a block of 0 sends nothing",
        W, nsteps, plural(nsteps));
}

int plan_build_a2av(struct plan *p, int nranks, const size_t *counts, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (nranks < 1 || nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: must be 1..%d", nranks, CV_MAX_RANKS);
    size_t W = (size_t)nranks, most = 0;
    for (size_t i = 0; i < W * W; i++)
        if (counts[i] > PLAN_MAX_A2AV_COUNT)
            return cv_err(err, errlen, CV_EINVAL,
                          "count %zu (rank %zu to rank %zu): at most %zu", counts[i], i / W,
                          i % W, (size_t)PLAN_MAX_A2AV_COUNT);
    for (size_t r = 0; r < W; r++) {
        size_t row = 0, col = 0;
        for (size_t j = 0; j < W; j++) {
            row += counts[r * W + j];
            col += counts[j * W + r];
        }
        most = row > most ? row : most;
        most = col > most ? col : most;
    }
    size_t n = (most + W - 1) / W;
    int rc =
        plan_build(p, COLL_ALL_TO_ALL, ALGO_DIRECT, OP_SUM, nranks, n ? n : 1, 0, err, errlen);
    if (rc != CV_OK) return rc;
    /* Keep the working buffer and the fields; replace the uniform exchange. */
    free(p->steps);
    free(p->x);
    p->steps = NULL;
    p->x = NULL;
    p->nsteps = p->nx = 0;
    p->vcounts = xmalloc(W * W * sizeof *p->vcounts);
    memcpy(p->vcounts, counts, W * W * sizeof *p->vcounts);
    struct builder b = {.p = p};
    build_all_to_all_v(&b);
    return CV_OK;
}

int plan_parse_counts(const char *s, size_t *counts, int *nranks, char *err, size_t errlen)
{
    int rows = 0, width = -1;
    const char *q = s;
    for (;;) {
        if (rows == CV_MAX_RANKS)
            return cv_err(err, errlen, CV_EINVAL, "counts: more than %d rows", CV_MAX_RANKS);
        int cols = 0;
        for (;;) {
            while (*q == ' ' || *q == '\t')
                q++;
            size_t k = strcspn(q, ",;");
            size_t len = k;
            while (len && (q[len - 1] == ' ' || q[len - 1] == '\t'))
                len--;
            char word[32];
            bool ok = len > 0 && len < sizeof word;
            unsigned long long v = 0;
            if (ok) {
                memcpy(word, q, len);
                word[len] = '\0';
                char *end;
                ok = word[0] >= '0' && word[0] <= '9';
                if (ok) v = strtoull(word, &end, 10);
                /* cppcheck-suppress uninitvar ; end is read only when strtoull set it */
                ok = ok && *end == '\0' && v <= PLAN_MAX_A2AV_COUNT;
            }
            if (!ok)
                return cv_err(err, errlen, CV_EINVAL,
                              "counts: row %d value '%.*s' is not a whole number 0..%zu", rows,
                              (int)(len > 20 ? 20 : len), q, (size_t)PLAN_MAX_A2AV_COUNT);
            if (cols == CV_MAX_RANKS)
                return cv_err(err, errlen, CV_EINVAL, "counts: row %d has more than %d values",
                              rows, CV_MAX_RANKS);
            counts[rows * CV_MAX_RANKS + cols++] = (size_t)v;
            q += k;
            if (*q != ',') break;
            q++;
        }
        if (width >= 0 && cols != width)
            return cv_err(err, errlen, CV_EINVAL,
                          "counts: row %d has %d values, row 0 has %d (one per rank)", rows,
                          cols, width);
        width = cols;
        rows++;
        if (*q != ';') break;
        q++;
    }
    if (rows != width)
        return cv_err(err, errlen, CV_EINVAL,
                      "counts: %d rows of %d values; a matrix of W rows of W values (row r = "
                      "what rank r sends to each rank)",
                      rows, width);
    /* Pack the rows (parsed with a stride of CV_MAX_RANKS) row-major, W by W. */
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < rows; c++)
            counts[r * rows + c] = counts[r * CV_MAX_RANKS + c];
    *nranks = rows;
    return CV_OK;
}

/* The length of a phase label without its " k/n" count. */
static size_t phase_base_len(const char *ph)
{
    size_t n = strlen(ph);
    const char *sp = strrchr(ph, ' ');
    if (!sp) return n;
    const char *q = sp + 1;
    bool digits = false, slash = false;
    for (; *q; q++) {
        if (*q >= '0' && *q <= '9')
            digits = true;
        else if (*q == '/' && !slash)
            slash = true;
        else
            return n;
    }
    return digits && slash ? (size_t)(sp - ph) : n;
}

size_t plan_phase_ends(const struct plan *p, long *out, size_t max)
{
    size_t k = 0;
    for (size_t s = 0; s < p->nsteps && k < max; s++) {
        const char *a = p->steps[s].phase;
        bool last = s + 1 == p->nsteps;
        if (!last) {
            const char *b = p->steps[s + 1].phase;
            size_t la = phase_base_len(a), lb = phase_base_len(b);
            last = la != lb || strncmp(a, b, la) != 0;
        }
        if (last) out[k++] = (long)s + 1;
    }
    return k;
}
