/* nccl_backend.c - the NCCL backend: one rank per GPU, every visible GPU driven by this process
 * or, under an MPI launcher, one GPU per process (the process's rank on its node picks it). It
 * implements backend.h's open/close and the facts the screens show (describe, rank labels,
 * nccl_info.h); its one runtime is the communicator of nccl_comm.h, made by comm_create,
 * on which training runs and on which backend/run.c measures (NCCL's own collective, timed
 * on the host around the iterations after sync and barrier, #wrong counted against the
 * closed-form pattern) and runs the display-scale scene.
 *
 * Never hanging is the main design constraint: see nccl_comm.c (every wait polls the
 * streams and NCCL's async errors against a deadline, aborts the communicators on an error
 * or a missed deadline, and gives up on streams that do not drain).
 *
 * NCCL_ALGO / NCCL_PROTO are read by NCCL itself; we only report them. NCCL's INFO log
 * goes to a private file unless the user asked for it (nccl_links.h): the link type it
 * reports is read from there. */
#include "backend/nccl/nccl_info.h"
#include "backend/nccl/nccl_links.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "core/util.h"
#include "backend/backend.h"
#include "backend/nccl/nccl_comm.h"
#ifdef HAVE_MPI
#include "backend/launcher.h"
#endif

/* The oldest NCCL this backend builds against: ncclGetLastError is from 2.13 (ncclAvg from
 * 2.10, ncclSend/ncclRecv from 2.7). docs/backends.md's table says the same. */
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 13, 0)
#error                                                                                         \
    "collviz's NCCL backend needs NCCL >= 2.13 (ncclGetLastError); build with HAVE_NCCL= or a newer NCCL"
#endif

#define NCCL_DEFAULT_TIMEOUT_S 30.0

struct nccl_state {
    struct nccl_info info;
    /* Across processes (under an MPI launcher, HAVE_MPI): this process is rank `me` of
     * `world`, on GPU `dev` (its rank among the processes of its node); the arrays below
     * indexed by rank hold only rank `me`'s entries. */
    bool mp;
    int me, world, dev, nhosts;
    char host[64];
    char hosts[CV_MAX_RANKS][64]; /* every rank's host and GPU, for the rank labels */
    int devs[CV_MAX_RANKS];
};

/* The ranks this process drives: all of 0..n-1, or its own across processes. */
static int nccl_lo(const struct nccl_state *st)
{
    return st->mp ? st->me : 0;
}

static int nccl_hi(const struct nccl_state *st, int n)
{
    return st->mp ? st->me + 1 : n;
}

/* The GPU of rank r (a rank of this process). */
static int gpu_of(const struct nccl_state *st, int r)
{
    return st->mp ? st->dev : r;
}

static struct nccl_state *nccl_st(const struct backend *b)
{
    return (struct nccl_state *)b->priv;
}

/* The CHECK macros' common path (nccl-tests' CUDACHECK / NCCLCHECK): one line with the
 * call, the error's name and text, and where. */
static int nccl_cuda_fail(cudaError_t e, const char *call, const char *file, int line,
                          char *err, size_t errlen)
{
    const char *base = strrchr(file, '/');
    return cv_err(err, errlen, CV_EBACKEND, "%s failed: %s (%s) [%s:%d]", call,
                  cudaGetErrorName(e), cudaGetErrorString(e), base ? base + 1 : file, line);
}

#define CUDA_CK(call)                                                                          \
    do {                                                                                       \
        cudaError_t ck_e_ = (call);                                                            \
        if (ck_e_ != cudaSuccess) {                                                            \
            rc = nccl_cuda_fail(ck_e_, #call, __FILE__, __LINE__, err, errlen);                \
            goto out;                                                                          \
        }                                                                                      \
    } while (0)

/* ---- versions and names ---- */

void nccl_version_string(int code, char *buf, size_t n)
{
    int major, minor, patch;
    if (code < 10000) { /* NCCL_VERSION's encoding up to 2.8: X*1000 + Y*100 + Z */
        major = code / 1000;
        minor = code % 1000 / 100;
        patch = code % 100;
    } else {
        major = code / 10000;
        minor = code / 100 % 100;
        patch = code % 100;
    }
    snprintf(buf, n, "%d.%d.%d", major, minor, patch);
}

/* tests/fakegpu/fake_cuda.c defines it; a real build links no such symbol (weak: NULL). */
extern const char cv_fakegpu_marker[] __attribute__((weak));

bool nccl_emulated(void)
{
    return cv_fakegpu_marker != NULL;
}

/* " emulated" after each fact the emulation made up, "" on a real GPU. */
static const char *nccl_emu(void)
{
    return nccl_emulated() ? " emulated" : "";
}

void nccl_build_text(char *buf, size_t n)
{
    char ver[24];
    nccl_version_string(NCCL_VERSION_CODE, ver, sizeof ver);
    snprintf(buf, n, "compiled against NCCL %s and the CUDA %d.%d runtime%s", ver,
             CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10,
             nccl_emulated() ? "; linked with the host emulation (tests/fakegpu), not NCCL"
                             : "");
}

static void nccl_cuda_version_string(int v, char *buf, size_t n)
{
    snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10);
}

/* Drop the vendor and brand words, then stop at the first word that is a memory size or a
 * form factor. */
void nccl_gpu_short_name(const char *name, char *out, size_t n)
{
    static const char *const drop[] = {"NVIDIA ", "GeForce ", "Tesla ", "Quadro "};
    static const char *const stop[] = {"PCIe", "SXM", "NVL", "HBM", "MIG"};
    const char *s = name;
    for (bool again = true; again;) {
        again = false;
        for (size_t k = 0; k < ARRAY_LEN(drop); k++) {
            size_t len = strlen(drop[k]);
            if (strncmp(s, drop[k], len) == 0) {
                s += len;
                again = true;
            }
        }
    }
    size_t o = 0;
    while (*s && o + 1 < n) {
        size_t w = strcspn(s, " -");
        bool is_stop = false;
        for (size_t k = 0; k < ARRAY_LEN(stop); k++)
            if (strncmp(s, stop[k], strlen(stop[k])) == 0) is_stop = true;
        if (w >= 2 && strncmp(s + w - 2, "GB", 2) == 0) is_stop = true;
        if (is_stop && o > 0) break;
        if (o > 0) out[o++] = ' ';
        for (size_t i = 0; i < w && o + 1 < n; i++)
            out[o++] = s[i];
        s += w;
        while (*s == ' ' || *s == '-')
            s++;
    }
    out[o] = '\0';
    if (o == 0) snprintf(out, n, "%s", name);
}

/* ---- open / close ---- */

static void nccl_env(const char *name, char *out, size_t n)
{
    const char *v = getenv(name);
    snprintf(out, n, "%s", v ? v : "");
}

static int nccl_open(struct backend *b, char *err, size_t errlen)
{
    int ngpu = 0;
    cudaError_t e = cudaGetDeviceCount(&ngpu);
    if (e != cudaSuccess)
        return cv_err(err, errlen, CV_EUNAVAIL, "no usable GPU: %s (%s)", cudaGetErrorName(e),
                      cudaGetErrorString(e));
    if (ngpu < 1)
        return cv_err(err, errlen, CV_EUNAVAIL, "no usable GPU: cudaGetDeviceCount found none");

    struct nccl_state *st = xcalloc(1, sizeof *st);
    struct nccl_info *in = &st->info;
    int rc = CV_OK;
    nccl_links_log_begin(); /* before the first NCCL call: where its INFO log goes */
    in->visible_gpus = ngpu;
    in->ngpus = ngpu < CV_MAX_RANKS ? ngpu : CV_MAX_RANKS;
    in->nccl_header_version = NCCL_VERSION_CODE;
    ncclResult_t nr = ncclGetVersion(&in->nccl_version);
    if (nr != ncclSuccess) {
        rc = cv_err(err, errlen, CV_EUNAVAIL, "no usable NCCL: ncclGetVersion: %s",
                    ncclGetErrorString(nr));
        goto out;
    }
    CUDA_CK(cudaRuntimeGetVersion(&in->cuda_runtime));
    CUDA_CK(cudaDriverGetVersion(&in->cuda_driver));
    nccl_env("NCCL_ALGO", in->nccl_algo, sizeof in->nccl_algo);
    nccl_env("NCCL_PROTO", in->nccl_proto, sizeof in->nccl_proto);

    for (int g = 0; g < in->ngpus; g++) {
        struct nccl_gpu_info *gi = &in->gpu[g];
        struct cudaDeviceProp prop;
        CUDA_CK(cudaGetDeviceProperties(&prop, g));
        snprintf(gi->name, sizeof gi->name, "%s", prop.name);
        nccl_gpu_short_name(gi->name, gi->short_name, sizeof gi->short_name);
        gi->mem_total = prop.totalGlobalMem;
        gi->cc_major = prop.major;
        gi->cc_minor = prop.minor;
        CUDA_CK(cudaDeviceGetPCIBusId(gi->pci_bus_id, (int)sizeof gi->pci_bus_id, g));
        for (int h = 0; h < in->ngpus; h++) {
            int can = 0;
            if (h != g) CUDA_CK(cudaDeviceCanAccessPeer(&can, g, h));
            in->peer[g][h] = can != 0;
        }
    }
#ifdef HAVE_MPI
    /* Under a launcher, one rank per process: the process's rank on its node picks its
     * GPU (as nccl-tests with MPI=1 does). */
    if (rc == CV_OK && launcher_launched()) {
        struct launcher_where w;
        char why[200];
        if (launcher_start(&w, why, sizeof why) != CV_OK) {
            rc = cv_err(err, errlen, CV_EUNAVAIL, "under an MPI launcher: %s", why);
            goto out;
        }
        st->mp = true;
        st->me = w.rank;
        st->world = w.size;
        st->dev = w.local_rank;
        st->nhosts = w.nhosts;
        snprintf(st->host, sizeof st->host, "%s", w.host);
        if (w.size > CV_MAX_RANKS || w.local_rank >= in->ngpus) {
            rc = cv_err(err, errlen, CV_EUNAVAIL,
                        w.size > CV_MAX_RANKS ? "%d processes: at most %d ranks"
                                              : "process %d of this node has no GPU of its "
                                                "own (%d visible)",
                        w.size > CV_MAX_RANKS ? w.size : w.local_rank,
                        w.size > CV_MAX_RANKS ? CV_MAX_RANKS : in->ngpus);
            launcher_stop();
            st->mp = false;
            goto out;
        }
        int mine[1] = {st->dev};
        if (launcher_allgather(st->host, st->hosts, sizeof st->host) != CV_OK ||
            launcher_allgather(mine, st->devs, sizeof mine) != CV_OK) {
            rc = cv_err(err, errlen, CV_EUNAVAIL, "MPI_Allgather of the hosts failed");
            launcher_stop();
            st->mp = false;
            goto out;
        }
    }
#endif
out:
    if (rc != CV_OK) {
        /* A toolkit that loads but cannot drive the GPUs is "unavailable", not a crash. */
        if (rc == CV_EBACKEND) rc = CV_EUNAVAIL;
        nccl_links_log_end();
        free(st);
        return rc;
    }
    b->priv = st;
    return CV_OK;
}

static void nccl_close(struct backend *b)
{
    struct nccl_state *st = nccl_st(b);
    if (!st) return;
#ifdef HAVE_MPI
    if (st->mp) launcher_stop();
#endif
    nccl_links_log_end();
    free(st);
    b->priv = NULL;
}

static int nccl_max_ranks(struct backend *b)
{
    const struct nccl_state *st = nccl_st(b);
    return st->mp ? st->world : st->info.ngpus;
}

static int nccl_proc_rank(struct backend *b)
{
    return nccl_st(b)->mp ? nccl_st(b)->me : 0;
}

static int nccl_proc_count(struct backend *b)
{
    return nccl_st(b)->mp ? nccl_st(b)->world : 1;
}

/* ---- communicators, waiting, aborting ---- */

static int nccl_check_ranks(const struct nccl_state *st, int nranks, char *err, size_t errlen)
{
    if (nranks < 1)
        return cv_err(err, errlen, CV_EINVAL, "nranks %d: need at least 1 rank", nranks);
    if (st->mp && nranks != st->world)
        return cv_err(err, errlen, CV_EINVAL,
                      "ranks %d: across processes NCCL runs on the %d process%s the launcher "
                      "started, one GPU each",
                      nranks, st->world, st->world == 1 ? "" : "es");
    if (st->mp) return CV_OK;
    if (nranks > st->info.ngpus)
        return cv_err(err, errlen, CV_EINVAL,
                      "NCCL cannot put two ranks on one GPU: %d ranks requested, %d GPU%s",
                      nranks, st->info.ngpus, st->info.ngpus == 1 ? "" : "s");
    return CV_OK;
}

/* ---- words for the screen ---- */

static void nccl_describe(struct backend *b, int nranks, char *buf, size_t n)
{
    const struct nccl_info *in = &nccl_st(b)->info;
    char ver[24], cuda[16];
    nccl_version_string(in->nccl_version, ver, sizeof ver);
    nccl_cuda_version_string(in->cuda_runtime, cuda, sizeof cuda);
    const struct nccl_state *st = nccl_st(b);
    if (st->mp) {
        snprintf(buf, n, "nccl: %d process%s on %d host%s, one GPU each (%s, %s%s; NCCL %s%s)",
                 st->world, st->world == 1 ? "" : "es", st->nhosts, st->nhosts == 1 ? "" : "s",
                 st->host, in->gpu[st->dev].name, st->nhosts > 1 ? ", ..." : "", ver,
                 nccl_emu());
        return;
    }
    if (nranks < 1 || nranks > in->ngpus) {
        snprintf(buf, n, "%d ranks requested, only %d GPU%s (NCCL %s%s, CUDA %s%s)", nranks,
                 in->ngpus, in->ngpus == 1 ? "" : "s", ver, nccl_emu(), cuda, nccl_emu());
        return;
    }
    /* "2 ranks = 2 × NVIDIA H200"; mixed GPUs as runs: "1 × NVIDIA A100 + 2 × NVIDIA H100" */
    size_t o = (size_t)snprintf(buf, n, "%d rank%s = ", nranks, nranks == 1 ? "" : "s");
    for (int g = 0; g < nranks && o < n;) {
        int run = 1;
        while (g + run < nranks && strcmp(in->gpu[g + run].name, in->gpu[g].name) == 0)
            run++;
        o += (size_t)snprintf(buf + o, n - o, "%s%d \u00d7 %s", g ? " + " : "", run,
                              in->gpu[g].name);
        g += run;
    }
    if (o < n)
        snprintf(buf + o, n - o, " (NCCL %s%s, CUDA %s%s)", ver, nccl_emu(), cuda, nccl_emu());
}

static void nccl_rank_label(struct backend *b, int rank, char *buf, size_t n)
{
    const struct nccl_info *in = &nccl_st(b)->info;
    const struct nccl_state *st = nccl_st(b);
    if (st->mp && rank >= 0 && rank < st->world)
        snprintf(buf, n, "%s \u00b7 GPU %d", st->hosts[rank], st->devs[rank]);
    else if (st->mp)
        snprintf(buf, n, "rank %d", rank);
    else if (rank < 0 || rank >= in->ngpus)
        snprintf(buf, n, "GPU %d", rank);
    else
        snprintf(buf, n, "GPU %d \u00b7 %s", rank, in->gpu[rank].short_name);
}

/* The one runtime (nccl_comm.h): one rank per GPU, every GPU of this process or, under an
 * MPI launcher, this process's own. */
static int nccl_comm_create(struct backend *b, const struct comm_params *cp, struct comm **out,
                            char *err, size_t errlen)
{
    struct nccl_state *st = nccl_st(b);
    *out = NULL;
    int rc = nccl_check_ranks(st, cp->nranks, err, errlen);
    if (rc != CV_OK) return rc;
    int gpus[CV_MAX_RANKS] = {0};
    for (int r = nccl_lo(st); r < nccl_hi(st, cp->nranks); r++)
        gpus[r] = gpu_of(st, r);
    struct comm_nccl_cfg cfg = {
        .nranks = cp->nranks,
        .self = st->mp ? st->me : -1,
        .gpus = gpus,
        .devs = cp->devs,
        .coll = (cp->traffic & COMM_TRAFFIC_COLL) != 0,
        .async = cp->async,
        .p2p = (cp->traffic & COMM_TRAFFIC_P2P) != 0,
        .timeout_s = cp->timeout_s > 0 ? cp->timeout_s : NCCL_DEFAULT_TIMEOUT_S,
        .tl = cp->tl,
    };
    return comm_nccl_create(out, &cfg, err, errlen);
}

static int nccl_hardware(const struct backend *b, char *buf, size_t n)
{
    return nccl_backend_info(b, buf, n);
}

static void nccl_lib_env(const struct backend *b, char *algo, size_t algo_n, char *proto,
                         size_t proto_n)
{
    const struct nccl_info *in = nccl_backend_get_info(b);
    if (!in) return;
    snprintf(algo, algo_n, "%s", in->nccl_algo);
    snprintf(proto, proto_n, "%s", in->nccl_proto);
}

static void nccl_links(const struct backend *b, int nranks, backend_log_summary_fn summarise,
                       char *buf, size_t n)
{
    if (nccl_backend_get_info(b)) nccl_links_log_text(nranks, summarise, buf, n);
}

static int nccl_lib_log(const struct backend *b, char **text, size_t *len, char *src, size_t n)
{
    if (!nccl_backend_get_info(b)) {
        snprintf(src, n, "no NCCL log: the NCCL backend is not open");
        return -1;
    }
    int rc = nccl_links_log_read(text, len, src, n);
    /* The host emulation writes NCCL's INFO lines too: its log is never this machine's. */
    if (rc == 0 && nccl_emulated() && strncmp(src, "test hook", 9) != 0)
        snprintf(src, n,
                 "the emulated NCCL's INFO log (tests/fakegpu host emulation, not a GPU)");
    return rc;
}

static void nccl_device_name(const struct backend *b, int dev, char *buf, size_t n)
{
    const struct nccl_info *in = nccl_backend_get_info(b);
    if (in && dev < in->ngpus) snprintf(buf, n, "%s", in->gpu[dev].name);
}

const struct backend_ops nccl_backend_ops = {
    .name = "nccl",
    .kind = BACKEND_NCCL,
    .caps = BACKEND_CAP_GPU | BACKEND_CAP_OWN_ALGO | BACKEND_CAP_LIB_ENV,
    .open = nccl_open,
    .close = nccl_close,
    .max_ranks = nccl_max_ranks,
    .describe = nccl_describe,
    .rank_label = nccl_rank_label,
    .proc_rank = nccl_proc_rank,
    .proc_count = nccl_proc_count,
    .comm_create = nccl_comm_create,
    .hardware = nccl_hardware,
    .lib_env = nccl_lib_env,
    .links = nccl_links,
    .rank_device = nccl_backend_gpu,
    .device_name = nccl_device_name,
    .lib_log = nccl_lib_log,
};

/* ---- nccl_info.h ---- */

const struct nccl_info *nccl_backend_get_info(const struct backend *b)
{
    if (!b || b->ops != &nccl_backend_ops || !b->priv) return NULL;
    return &nccl_st(b)->info;
}

int nccl_backend_gpu(const struct backend *b, int rank)
{
    if (!nccl_backend_get_info(b)) return -1;
    const struct nccl_state *st = nccl_st(b);
    return rank >= nccl_lo(st) && rank < nccl_hi(st, st->info.ngpus) ? gpu_of(st, rank) : -1;
}

int nccl_backend_info(const struct backend *b, char *buf, size_t n)
{
    const struct nccl_info *in = nccl_backend_get_info(b);
    if (n) buf[0] = '\0';
    if (!in) return -1;
    char ver[24], hver[24], rt[16], drv[16], mem[32];
    nccl_version_string(in->nccl_version, ver, sizeof ver);
    nccl_version_string(in->nccl_header_version, hver, sizeof hver);
    nccl_cuda_version_string(in->cuda_runtime, rt, sizeof rt);
    nccl_cuda_version_string(in->cuda_driver, drv, sizeof drv);
    size_t o = 0;
    const char *emu = nccl_emu();
    o = cv_cat(buf, n, o,
               "NCCL %s%s (built against %s), CUDA runtime %s%s, driver supports CUDA %s%s\n",
               ver, emu, hver, rt, emu, drv, emu);
    if (in->visible_gpus > in->ngpus)
        o = cv_cat(buf, n, o, "%d GPUs visible, the first %d used\n", in->visible_gpus,
                   in->ngpus);
    for (int g = 0; g < in->ngpus; g++) {
        format_size(in->gpu[g].mem_total, mem, sizeof mem);
        o = cv_cat(buf, n, o, "GPU %d: %s, %s%s, sm_%d%d%s, PCI %s%s\n", g, in->gpu[g].name,
                   mem, emu, in->gpu[g].cc_major, in->gpu[g].cc_minor, emu,
                   in->gpu[g].pci_bus_id, emu);
    }
    if (in->ngpus > 1) {
        o = cv_cat(buf, n, o, "peer access%s (row reads column directly):\n     ", emu);
        for (int h = 0; h < in->ngpus; h++)
            o = cv_cat(buf, n, o, " %3d", h);
        o = cv_cat(buf, n, o, "\n");
        for (int g = 0; g < in->ngpus; g++) {
            o = cv_cat(buf, n, o, "  %3d", g);
            for (int h = 0; h < in->ngpus; h++)
                o = cv_cat(buf, n, o, " %3s", g == h ? "-" : in->peer[g][h] ? "yes" : "no");
            o = cv_cat(buf, n, o, "\n");
        }
    }
    o = cv_cat(buf, n, o, "NCCL_ALGO=%s NCCL_PROTO=%s\n",
               in->nccl_algo[0] ? in->nccl_algo : "(unset: NCCL chooses)",
               in->nccl_proto[0] ? in->nccl_proto : "(unset: NCCL chooses)");
    return (int)o;
}
