/* reclinks.c - the one line that says which links NCCL set up (reclinks.h): its INFO log
 * read by the one parser of NCCL's records (records.h), the links counted by transport. */
#include "records/reclinks.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "records/records.h"

/* The connections themselves are read by the one parser of NCCL's records
 * (records/records.h); this summarises its links by transport. */

#define NL_KINDS 8
#define NL_CHANNELS 256 /* NCCL has at most 64 (MAXCHANNELS), newer builds 128 */
#define NL_PATHS 4

struct nl_kind {
    char label[24]; /* the transport's first two words: "P2P/CUMEM", "NET/IB", "SHM/direct" */
    unsigned char seen[NL_CHANNELS / 8];
    int nchan;
    bool gdr; /* a NET line said /GDRDMA */
};

struct nl_sum {
    struct nl_kind k[NL_KINDS];
    int nk;
    char path[NL_PATHS][8]; /* the graph's intra-node path types: "NVL", "PIX", ... */
    int npath;
    bool nvls;
    int lines;
};

static bool nl_upper_word(const char *s, size_t n)
{
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9'))) return false;
    return true;
}

/* One link of the records: counted under its transport, "P2P/CUMEM" of "P2P/CUMEM/read". */
static void nl_link(struct nl_sum *s, const struct rec_link *lk)
{
    const char *t = lk->via;
    size_t tn = strcspn(t, " ");
    /* The transport: an upper-case word, a slash, then at least one more character. */
    const char *slash = memchr(t, '/', tn);
    if (!slash || !nl_upper_word(t, (size_t)(slash - t)) || slash + 1 == t + tn) return;
    const char *slash2 = memchr(slash + 1, '/', (size_t)(t + tn - slash - 1));
    size_t ln = (size_t)((slash2 ? slash2 : t + tn) - t);
    char label[sizeof s->k[0].label];
    if (ln >= sizeof label) ln = sizeof label - 1;
    memcpy(label, t, ln);
    label[ln] = '\0';

    struct nl_kind *k = NULL;
    for (int i = 0; i < s->nk; i++)
        if (strcmp(s->k[i].label, label) == 0) k = &s->k[i];
    if (!k) {
        if (s->nk == NL_KINDS) return;
        k = &s->k[s->nk++];
        memset(k, 0, sizeof *k);
        memcpy(k->label, label, ln + 1);
    }
    if (memmem(t, tn, "/GDRDMA", 7)) k->gdr = true;
    int chan = lk->channel;
    if (chan < NL_CHANNELS && !(k->seen[chan / 8] & (1u << (chan % 8)))) {
        k->seen[chan / 8] |= (unsigned char)(1u << (chan % 8));
        k->nchan++;
    }
    s->lines++;
}

/* The graph's path types of every host, once each. */
static void nl_paths(struct nl_sum *s, const struct rec_log *L)
{
    for (int h = 0; h < L->nnets; h++)
        for (int i = 0; i < L->nets[h].npath; i++) {
            const char *t = L->nets[h].path[i];
            bool seen = false;
            for (int j = 0; j < s->npath; j++)
                seen = seen || strcmp(s->path[j], t) == 0;
            if (!seen && s->npath < NL_PATHS) snprintf(s->path[s->npath++], 8, "%s", t);
        }
}

/* What a path type of NCCL's topology (graph/topo.h's names) is made of. */
static const char *nl_path_word(const char *t)
{
    static const char *const words[][2] = {
        {"NVL", "NVLink"},
        {"NVB", "NVLink through another GPU"},
        {"C2C", "the CPU-GPU C2C link"},
        {"PIX", "PCIe through one switch"},
        {"PXB", "PCIe through several switches"},
        {"PXN", "NVLink to a GPU near the NIC"},
        {"P2C", "C2C and PCIe"},
        {"PHB", "PCIe through the CPU"},
        {"SYS", "PCIe across CPU sockets"},
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcmp(t, words[i][0]) == 0) return words[i][1];
    return NULL;
}

static size_t nl_explain(const struct nl_sum *s, const struct nl_kind *k, char *buf, size_t n,
                         size_t o)
{
    const char *l = k->label;
    if (strcmp(l, "P2P/MNNVL") == 0) return cv_cat(buf, n, o, " (multi-node NVLink)");
    if (strncmp(l, "P2P/", 4) == 0) {
        const char *w = s->npath == 1 ? nl_path_word(s->path[0]) : NULL;
        if (w) return cv_cat(buf, n, o, " (GPU peer access over %s, path %s)", w, s->path[0]);
        if (s->npath == 0) return cv_cat(buf, n, o, " (NVLink or PCIe peer access)");
        o = cv_cat(buf, n, o, " (GPU peer access, path%s ", s->npath > 1 ? "s" : "");
        for (int i = 0; i < s->npath; i++)
            o = cv_cat(buf, n, o, "%s%s", i ? "/" : "", s->path[i]);
        return cv_cat(buf, n, o, ")");
    }
    if (strncmp(l, "SHM/", 4) == 0) return cv_cat(buf, n, o, " (through host shared memory)");
    if (strcmp(l, "NET/IB") == 0)
        return cv_cat(buf, n, o, " (InfiniBand verbs%s)", k->gdr ? ", GPUDirect RDMA" : "");
    if (strcmp(l, "NET/Socket") == 0) return cv_cat(buf, n, o, " (TCP sockets)");
    if (strncmp(l, "NET/", 4) == 0)
        return cv_cat(buf, n, o, " (a network plugin%s)", k->gdr ? ", GPUDirect RDMA" : "");
    return o;
}

int rec_links_summary(const char *log, size_t len, char *buf, size_t n)
{
    struct nl_sum s;
    memset(&s, 0, sizeof s);
    if (n) buf[0] = '\0';
    if (!log) return 0;
    struct rec_log *L = rec_new();
    rec_parse(L, "nccl log", log, len);
    for (int i = 0; i < L->nlinks; i++)
        nl_link(&s, &L->links[i]);
    nl_paths(&s, L);
    s.nvls = L->nvls;
    rec_free(L);
    if (s.lines == 0) return 0;
    size_t o = 0;
    for (int i = 0; i < s.nk; i++) {
        o = cv_cat(buf, n, o, "%s%s", i ? "; " : "", s.k[i].label);
        o = nl_explain(&s, &s.k[i], buf, n, o);
        o = cv_cat(buf, n, o, ", %d channel%s", s.k[i].nchan, s.k[i].nchan == 1 ? "" : "s");
    }
    if (s.nvls) cv_cat(buf, n, o, "; NVLS multicast available");
    return s.lines;
}
