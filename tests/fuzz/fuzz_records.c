/* fuzz_records.c - libFuzzer target for the reader of NCCL INFO logs and nccl-tests output
 * (src/records/), what reads a cluster's records handed to `collviz nccl`. The input is read
 * as one file and again as two (split in the middle, as one file per node), then summarised
 * by the backend's link line (rec_links_summary, the same parser). Any crash, leak, sanitizer
 * report or hang is a bug, and so is a result that breaks the record's own rules: a ring that
 * repeats a rank, a rank or channel past its bound, a string that is not printable ASCII;
 * each communicator's own picture (recview.h) names no rank it has no slot for.
 * Built and run by `make fuzz` (long) and tests/fuzz/run.sh (short, part of `make test`),
 * seeded with the real records in tests/records. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nccl/nccl_links.h"
#include "records/reclinks.h"
#include "records/records.h"
#include "records/recview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n == cap) abort();
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e) abort();
}

static void check(const struct rec_log *L)
{
    check_str(L->version, sizeof L->version);
    if (L->nranks > REC_MAX_RANKS || L->maxrank >= REC_MAX_RANKS) abort();
    for (int c = 0; c < REC_MAX_CHANNELS; c++) {
        const struct rec_ring *g = &L->rings[c];
        if (!g->order) continue;
        if (g->n < 1 || g->n > REC_MAX_RANKS) abort();
        unsigned char *seen = calloc(REC_MAX_RANKS, 1);
        for (int i = 0; i < g->n; i++) {
            int r = g->order[i];
            if (r < 0 || r >= REC_MAX_RANKS || seen[r]++) abort();
        }
        free(seen);
        (void)rec_ring_crossings(L, c);
        for (int r = 0; r < L->trees[c].n; r++)
            if (L->trees[c].node[r].ndown > REC_MAX_TREE_DOWN) abort();
    }
    for (int i = 0; i < L->nlinks; i++) {
        const struct rec_link *k = &L->links[i];
        if (k->from < 0 || k->from >= REC_MAX_RANKS || k->to < 0 || k->to >= REC_MAX_RANKS)
            abort();
        if ((unsigned)k->cls > REC_UNKNOWN) abort();
        check_str(k->via, 48);  /* interned: kept to 47 bytes */
        check_str(k->host, 64); /* a host's interned name */
    }
    int more = 0;
    for (int r = 0; r <= L->maxrank; r++) {
        check_str(L->ranks[r].host, sizeof L->ranks[r].host);
        check_str(L->ranks[r].gpu, sizeof L->ranks[r].gpu);
        check_str(L->ranks[r].busid, sizeof L->ranks[r].busid);
        /* a machine of a shared host name: within its bound, named in print, and only
         * where the record said several machines share a name */
        char node[96];
        if (L->ranks[r].machine < 0 || L->ranks[r].machine > 255) abort();
        check_str(rec_node_name(L, r, node, sizeof node), sizeof node);
        more += L->ranks[r].machine > 0;
    }
    if ((more > 0) != (L->machines_more > 0)) abort();
    /* a launcher's processes (mpirun -np, srun's tasks) are a count within the bound */
    if (L->job.procs == 0 || L->job.procs > REC_MAX_RANKS) abort();
    for (int t = 0; t < L->ntests; t++)
        if (L->tests[t].nrows > REC_MAX_ROWS) abort();
    const char *hosts[64];
    if (rec_hosts(L, hosts, 64) > 64) abort();
    for (int i = 0; i < L->nwarnings; i++)
        check_str(L->warnings[i], 4096);
}

/* Each communicator's view: every rank its rings, trees and links name has a slot in it (what
 * the topology screen reads), its links are its own, its strings printable. */
static void check_comms(const struct rec_log *L)
{
    for (int c = 0; c < L->ncomms; c++) {
        struct rec_view w;
        rec_view_make(L, c, &w);
        const struct rec_log *v = &w.v;
        for (int ch = 0; ch < REC_MAX_CHANNELS; ch++) {
            for (int i = 0; i < v->rings[ch].n; i++)
                if (v->rings[ch].order[i] < 0 || v->rings[ch].order[i] >= v->rank_slots)
                    abort();
            (void)rec_ring_crossings(v, ch);
        }
        for (int i = 0; i < v->nlinks; i++)
            if (L->ncomms > 1 && v->links[i].comm != c) abort();
        for (int r = 0; r <= v->maxrank; r++)
            check_str(v->ranks[r].host, sizeof v->ranks[r].host);
        rec_view_free(&w);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* not NUL-terminated: the parser must not need it */
    struct rec_log *L = rec_new();
    rec_parse(L, "fuzz.log", (const char *)data, size);
    rec_finish(L);
    check(L);
    check_comms(L);
    rec_free(L);

    L = rec_new();
    rec_parse(L, "node1.log", (const char *)data, size / 2);
    rec_parse(L, "node2.log", (const char *)data + size / 2, size - size / 2);
    rec_finish(L);
    check(L);
    rec_free(L);

    char sum[256];
    (void)rec_links_summary((const char *)data, size, sum, sizeof sum);
    return 0;
}
