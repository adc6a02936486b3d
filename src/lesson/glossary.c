/* glossary.c - the lessons' words and their definitions (glossary.h), and finding the ones
 * a slide uses. The definitions are ours; where a lesson simplifies, they say what the
 * vendors' or the papers' usage is. */
#include "lesson/glossary.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "lesson/lesson.h"

static const struct glossary_term terms[] = {
    {"rank",
     {"rank", "ranks", NULL},
     "One worker of a distributed job (a process, usually driving one GPU), numbered 0 to "
     "W-1."},
    {"world size W", {"world size", NULL}, "How many ranks take part in a collective."},
    {"root",
     {"root", NULL},
     "The one rank a rooted collective (broadcast, scatter, gather, reduce) sends from or "
     "delivers to."},
    {"collective",
     {"collective", "collectives", NULL},
     "An operation that every rank of the world calls together, such as all-reduce; none "
     "finishes before the data it needs has arrived."},
    {"all-reduce",
     {"all-reduce", "allreduce", NULL},
     "Every rank ends with the same combination (sum, average, max...) of all ranks' "
     "buffers. A ring does it as a reduce-scatter followed by an all-gather."},
    {"reduce-scatter",
     {"reduce-scatter", NULL},
     "The ranks' buffers are combined element by element and each rank keeps one 1/W piece "
     "of the result."},
    {"all-gather",
     {"all-gather", "allgather", NULL},
     "Each rank contributes a piece and every rank ends with all the pieces side by side."},
    {"all-to-all",
     {"all-to-all", "all-to-all-v", NULL},
     "Every rank sends a different block to every rank: a transpose of the blocks. In "
     "all-to-all-v the blocks may differ in size."},
    {"seq (init)",
     {"seq", NULL},
     "An input pattern of the collectives screen: element i of rank r's send buffer is "
     "10r + i (rank 2 starts 20 21 22 ...), so every value tells where it came from. Other "
     "patterns: rank (every element is r), random (small integers from a seed) and lecture "
     "(the lecture's demo inputs)."},
    {"algbw",
     {"algbw", NULL},
     "Algorithm bandwidth: the buffer's size S divided by the collective's time t. Its best "
     "possible value depends on the collective and on W."},
    {"busbw",
     {"busbw", "bus bandwidth", NULL},
     "Bus bandwidth: algbw times a factor of the collective, 2(W-1)/W for all-reduce, "
     "(W-1)/W for all-gather, reduce-scatter and all-to-all, 1 for broadcast and reduce. It "
     "compares with one link's speed whatever W is; nccl-tests prints both figures."},
    {"α-β model",
     {"α-β", "alpha-beta", NULL},
     "A message costs a fixed latency α plus β per byte (β is one over the bandwidth), so a "
     "plan of k steps of m bytes costs about k(α + mβ): few steps win for small messages, "
     "few bytes for large ones."},
    {"ring",
     {"ring", NULL},
     "A plan in which the ranks form a cycle and each sends to the next: an all-reduce "
     "takes 2(W-1) steps of S/W bytes, the fewest bytes per rank."},
    {"tree",
     {"tree", NULL},
     "A plan in which data flows up and down a tree of ranks: about 2 log2 W steps for an "
     "all-reduce in the lessons' model. NCCL uses two binary trees at once (double binary "
     "tree)."},
    {"HBM",
     {"HBM", NULL},
     "High-bandwidth memory: the stacked DRAM beside a GPU, its fastest memory outside the "
     "chip, a few TB/s on recent data-centre GPUs."},
    {"NVLink",
     {"NVLink", "NVSwitch", NULL},
     "NVIDIA's GPU-to-GPU link. NVSwitch chips join many GPUs so that each reaches every "
     "other at full NVLink speed: one NVLink domain (8 GPUs in a server, 72 in an NVL72 "
     "rack)."},
    {"PCIe",
     {"PCIe", NULL},
     "The server's expansion bus joining GPUs, network cards and the CPU; GPUs without "
     "NVLink talk to each other over it, far slower."},
    {"InfiniBand",
     {"InfiniBand", NULL},
     "A cluster network with low latency and RDMA that joins the nodes (servers); its links "
     "are slower than NVLink."},
    {"RDMA",
     {"RDMA", NULL},
     "Remote direct memory access: a network card reads or writes another machine's memory "
     "without that machine's CPU copying the bytes."},
    {"NCCL",
     {"NCCL", NULL},
     "NVIDIA's library of collectives for GPUs; for each call it picks an algorithm (ring, "
     "tree...) and the links to use."},
    {"DDP",
     {"DDP", "data parallel", "data parallelism", NULL},
     "Data parallelism (PyTorch's DistributedDataParallel): every rank holds the whole "
     "model and a slice of the batch, and the gradients are averaged with an all-reduce "
     "every step."},
    {"tensor parallelism",
     {"tensor parallelism", "tensor-parallel", "TP", NULL},
     "Each layer's weight matrices are split across ranks (by columns, say); the ranks "
     "exchange activations inside every layer, on the critical path."},
    {"pipeline parallelism",
     {"pipeline parallelism", "pipeline", "PP", NULL},
     "The model is cut by depth into stages on different ranks; micro-batches flow through "
     "them and only the activations at the cuts are sent."},
    {"micro-batch",
     {"micro-batch", "micro-batches", NULL},
     "A slice of the batch that goes through a pipeline on its own, so that the stages can "
     "work on different micro-batches at the same time."},
    {"bubble",
     {"bubble", NULL},
     "The share of a pipeline step a stage spends idle while the pipeline fills and drains: "
     "(P-1)/(M+P-1) for P stages and M micro-batches, in GPipe and 1F1B alike."},
    {"GPipe",
     {"GPipe", NULL},
     "A pipeline schedule: every micro-batch forward, then every one backward, so a stage "
     "keeps the activations of all M micro-batches until their backward."},
    {"1F1B",
     {"1F1B", NULL},
     "One forward, one backward: once the pipeline is full, each stage alternates a forward "
     "and a backward micro-batch, so it keeps at most about P micro-batches' activations. "
     "Its bubble is GPipe's."},
    {"optimizer state",
     {"optimizer state", "AdamW", NULL},
     "What the optimizer keeps per parameter beside the weight: AdamW keeps two moments "
     "(running averages of the gradient and of its square), and mixed precision adds an "
     "fp32 master copy of the weights."},
    {"ZeRO stages",
     {"ZeRO", NULL},
     "ZeRO (Zero Redundancy Optimizer) shards what DDP repeats on every rank, each rank "
     "keeping 1/W: stage 1 the optimizer state, stage 2 the gradients too, stage 3 the "
     "weights as well, gathered layer by layer when needed."},
    {"FSDP",
     {"FSDP", NULL},
     "PyTorch's Fully Sharded Data Parallel: weights, gradients and optimizer state sharded "
     "across ranks, as ZeRO stage 3."},
    {"mixture of experts",
     {"mixture of experts", "mixture-of-experts", "MoE", NULL},
     "A layer with many expert sub-networks of which each token visits only the few its "
     "router picks; with the experts on different ranks, tokens travel by all-to-all."},
    {"router",
     {"router", NULL},
     "The small layer of a mixture of experts that scores each token against the experts "
     "and sends it to the top-k of them."},
    {"capacity",
     {"capacity", NULL},
     "The most tokens an expert takes in a step: a capacity factor C times its even share. "
     "Tokens over it are dropped and pass the layer unchanged."},
};

_Static_assert(sizeof terms / sizeof terms[0] <= GLOSSARY_MAX_TERMS,
               "glossary_mark_block's seen[] holds every term");

const struct glossary_term *glossary_terms(size_t *n)
{
    *n = sizeof terms / sizeof terms[0];
    return terms;
}

static bool word_char(unsigned char c)
{
    return isalnum(c) || c == '-' || c == '_' || c >= 0x80;
}

/* Where spelling w first occurs in text as a whole word, or NULL. A spelling of capitals
 * and digits (HBM, TP, 1F1B) matches with its case; others in any case. */
static const char *find_word(const char *text, const char *w)
{
    size_t n = strlen(w);
    bool exact = true;
    for (const char *p = w; *p; p++)
        if (islower((unsigned char)*p)) exact = false;
    /* the first letter first: a call per position of every text looked at for every
     * spelling was most of the time the glossary took (a deck walk draws it every frame) */
    int first = exact ? (unsigned char)w[0] : tolower((unsigned char)w[0]);
    for (const char *p = text; *p; p++) {
        int c = exact ? (unsigned char)*p : tolower((unsigned char)*p);
        if (n && c != first) continue;
        if (exact ? strncmp(p, w, n) != 0 : strncasecmp(p, w, n) != 0) continue;
        bool before = p == text || !word_char((unsigned char)p[-1]);
        bool after = !word_char((unsigned char)p[n]);
        if (before && after) return p;
    }
    return NULL;
}

size_t glossary_used(const char *text, size_t *out, size_t cap)
{
    size_t n = sizeof terms / sizeof terms[0], k = 0;
    const char *at[sizeof terms / sizeof terms[0]];
    size_t idx[sizeof terms / sizeof terms[0]];
    for (size_t i = 0; text && i < n; i++) {
        const char *first = NULL;
        for (size_t m = 0; m < 4 && terms[i].match[m]; m++) {
            const char *p = find_word(text, terms[i].match[m]);
            if (p && (!first || p < first)) first = p;
        }
        if (!first) continue;
        size_t j = k++; /* insertion sort by the first use */
        while (j > 0 && at[j - 1] > first) {
            at[j] = at[j - 1];
            idx[j] = idx[j - 1];
            j--;
        }
        at[j] = first;
        idx[j] = i;
    }
    for (size_t i = 0; i < k && i < cap; i++)
        out[i] = idx[i];
    return k < cap ? k : cap;
}

size_t glossary_slide_terms(const struct lesson_slide *s, size_t *out, size_t cap)
{
    const char *t = s->title ? s->title : "", *m = s->markdown ? s->markdown : "";
    size_t n = strlen(t) + strlen(m) + 2;
    char *text = xmalloc(n);
    snprintf(text, n, "%s\n%s", t, m);
    size_t k = glossary_used(text, out, cap);
    free(text);
    return k;
}

/* ---- terms marked in the narration -------------------------------------------------- */

/* The earliest first use in text of a term not yet seen (the longest spelling where two
 * start together): its term in *term, its length in *len; NULL when none. */
static const char *first_unseen(const char *text, const bool *seen, size_t *term, size_t *len)
{
    const char *best = NULL;
    size_t n = sizeof terms / sizeof terms[0];
    for (size_t i = 0; i < n && i < GLOSSARY_MAX_TERMS; i++) {
        if (seen[i]) continue;
        for (size_t m = 0; m < 4 && terms[i].match[m]; m++) {
            const char *p = find_word(text, terms[i].match[m]);
            size_t l = strlen(terms[i].match[m]);
            if (p && (!best || p < best || (p == best && l > *len))) {
                best = p;
                *term = i;
                *len = l;
            }
        }
    }
    return best;
}

static void push_span(struct lesson_span **v, size_t *n, size_t *cap, const char *t, size_t len,
                      unsigned style, bool hard_break)
{
    if (len == 0 && !hard_break) return;
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        *v = xrealloc(*v, *cap * sizeof **v);
    }
    char *s = xmalloc(len + 1);
    memcpy(s, t, len);
    s[len] = '\0';
    (*v)[(*n)++] = (struct lesson_span){s, style, hard_break};
}

void glossary_mark_block(struct lesson_block *b, bool *seen)
{
    if (b->kind == LBLOCK_CODE || b->kind == LBLOCK_RULE) return;
    struct lesson_span *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < b->nspans; i++) {
        const struct lesson_span *sp = &b->spans[i];
        const char *t = sp->text ? sp->text : "";
        bool brk = sp->hard_break;
        size_t term = 0, len = 0;
        const char *at;
        while ((at = first_unseen(t, seen, &term, &len)) != NULL) {
            push_span(&v, &n, &cap, t, (size_t)(at - t), sp->style, brk && at > t);
            brk = brk && at == t;
            push_span(&v, &n, &cap, at, len, sp->style | LSPAN_TERM, brk);
            brk = false;
            seen[term] = true;
            t = at + len;
        }
        push_span(&v, &n, &cap, t, strlen(t), sp->style, brk);
    }
    for (size_t i = 0; i < b->nspans; i++)
        free(b->spans[i].text);
    free(b->spans);
    b->spans = v;
    b->nspans = n;
}

struct lesson_block *glossary_marked_copy(const struct lesson_block *blocks, size_t n)
{
    struct lesson_block *c = xcalloc(n ? n : 1, sizeof *c);
    bool seen[GLOSSARY_MAX_TERMS] = {false};
    for (size_t i = 0; i < n; i++) {
        c[i] = blocks[i];
        c[i].spans = xcalloc(blocks[i].nspans ? blocks[i].nspans : 1, sizeof *c[i].spans);
        for (size_t j = 0; j < blocks[i].nspans; j++) {
            c[i].spans[j] = blocks[i].spans[j];
            c[i].spans[j].text =
                xstrdup(blocks[i].spans[j].text ? blocks[i].spans[j].text : "");
        }
        glossary_mark_block(&c[i], seen);
    }
    return c;
}

void glossary_free_blocks(struct lesson_block *b, size_t n)
{
    for (size_t i = 0; b && i < n; i++) {
        for (size_t j = 0; j < b[i].nspans; j++)
            free(b[i].spans[j].text);
        free(b[i].spans);
    }
    free(b);
}

struct lesson_block *glossary_page_blocks(const size_t *first, size_t nfirst, size_t *nblocks)
{
    size_t n = sizeof terms / sizeof terms[0], k = 0;
    bool done[GLOSSARY_MAX_TERMS] = {false};
    struct lesson_block *b = xcalloc(n, sizeof *b);
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t j = 0; j < (pass ? n : nfirst); j++) {
            size_t i = pass ? j : first[j];
            if (i >= n || done[i]) continue;
            done[i] = true;
            struct lesson_block *p = &b[k++];
            p->kind = LBLOCK_PARAGRAPH;
            p->spans = xcalloc(2, sizeof *p->spans);
            p->spans[0] = (struct lesson_span){xstrdup(terms[i].term), LSPAN_BOLD, false};
            size_t len = strlen(terms[i].definition) + 3;
            char *d = xmalloc(len);
            snprintf(d, len, ": %s", terms[i].definition);
            p->spans[1] = (struct lesson_span){d, 0, false};
            p->nspans = 2;
        }
    *nblocks = k;
    return b;
}
