/* nccl.c - the NCCL backend: one process drives every visible GPU, one rank per GPU, one
 * CUDA stream per GPU, and communicators made by ncclCommInitAll for the world size asked
 * for (re-made when it changes, never inside a timed loop). It implements backend.h:
 * measure() times NCCL's own collective at measurement scale with CUDA events and counts
 * #wrong on the GPU against the closed-form pattern (kernels/pattern.h), and run_small()
 * runs the display-scale scene so the worker can hold NCCL's result against the trace.
 *
 * Never hanging is the main design constraint. Every wait polls cudaStreamQuery on every
 * stream and ncclCommGetAsyncError on every communicator (as nccl-tests'
 * testStreamSynchronize does), against a deadline that is pushed back each time an
 * iteration completes; on an error or a missed deadline all communicators are aborted
 * (ncclCommAbort), marked dead, and re-made on the next call. If the streams still do not
 * drain after the abort, the device buffers are left allocated (freeing them would block)
 * and the backend refuses further work with a message instead of blocking the worker.
 *
 * NCCL_ALGO / NCCL_PROTO are read by NCCL itself; we only report them. */
#include "nccl_info.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "../../../kernels/kernels.h"
#include "../../core/init.h"
#include "../../core/util.h"
#include "../backend.h"
#include "comm_nccl.h"
#ifdef HAVE_MPI
#include "../mpi/mpi_boot.h"
#endif

/* The oldest NCCL this backend builds against: ncclGetLastError is from 2.13 (ncclAvg from
 * 2.10, ncclSend/ncclRecv from 2.7). README.md's Backends table says the same. */
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 13, 0)
#error                                                                                         \
    "collviz's NCCL backend needs NCCL >= 2.13 (ncclGetLastError); build with HAVE_NCCL= or a newer NCCL"
#endif

/* ncclScatter, ncclGather and ncclAlltoAll exist from NCCL 2.28.3; before that (or when
 * NCCL_BACKEND_FORCE_P2P is defined, so tests/gpu can exercise this path on a new NCCL
 * too) they are built from grouped ncclSend/ncclRecv. */
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 3) && !defined(NCCL_BACKEND_FORCE_P2P)
#define NCCL_HAVE_ROOTED_P2P_COLLS 1
#else
#define NCCL_HAVE_ROOTED_P2P_COLLS 0
#endif

#define NCCL_DEFAULT_TIMEOUT_S 30.0
/* What stays free on each GPU after our buffers: NCCL connects lazily and allocates its
 * channel buffers at the first collective of a kind, after our cudaMemGetInfo check. */
#define NCCL_MEM_HEADROOM ((size_t)512 << 20)
/* After an abort, how long the streams get to drain before we give up on them. */
#define NCCL_DRAIN_S 5.0
/* NCCL's avg on floats multiplies each input by 1/W before summing (PreMulSum), so for W
 * not a power of two it differs from sum/W in the last bits. A real error changes an
 * element of these integer patterns by at least 1/16, far above this tolerance. */
#define NCCL_AVG_TOL 1e-4f

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
    int ncomm; /* ranks of the live communicators; 0 = none */
    ncclComm_t comm[CV_MAX_RANKS];
    cudaStream_t stream[CV_MAX_RANKS];
    cudaEvent_t ev_start[CV_MAX_RANKS], ev_stop[CV_MAX_RANKS];
    bool wedged; /* streams did not drain after an abort */
    char wedged_why[160];
};

/* Device buffers of one run, rank by rank. */
struct nccl_bufs {
    int n;
    float *send[CV_MAX_RANKS], *recv[CV_MAX_RANKS];
    unsigned long long *wrong[CV_MAX_RANKS];
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

static int nccl_nccl_fail(ncclResult_t r, ncclComm_t comm, const char *call, const char *file,
                          int line, char *err, size_t errlen)
{
    const char *base = strrchr(file, '/');
    const char *detail = ncclGetLastError(comm);
    return cv_err(err, errlen, CV_EBACKEND, "%s failed: %s%s%s [%s:%d]", call,
                  ncclGetErrorString(r), detail && *detail ? ": " : "", detail ? detail : "",
                  base ? base + 1 : file, line);
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

static void nccl_destroy_comms(struct nccl_state *st)
{
    for (int r = 0; r < st->ncomm; r++)
        if (st->comm[r]) ncclCommDestroy(st->comm[r]);
    memset(st->comm, 0, sizeof st->comm);
    st->ncomm = 0;
}

/* The error path: abort every communicator (this also stops NCCL kernels still waiting for
 * peers), then give the streams a bounded time to drain. */
static void nccl_abort_comms(struct nccl_state *st)
{
    for (int r = 0; r < st->ncomm; r++)
        if (st->comm[r]) ncclCommAbort(st->comm[r]);
    memset(st->comm, 0, sizeof st->comm);
    st->ncomm = 0;
}

static void nccl_release(struct nccl_state *st)
{
    for (int g = 0; g < st->info.ngpus; g++) {
        if (cudaSetDevice(g) != cudaSuccess) continue;
        if (st->stream[g]) cudaStreamDestroy(st->stream[g]);
        if (st->ev_start[g]) cudaEventDestroy(st->ev_start[g]);
        if (st->ev_stop[g]) cudaEventDestroy(st->ev_stop[g]);
    }
}

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
        CUDA_CK(cudaSetDevice(g));
        CUDA_CK(cudaStreamCreateWithFlags(&st->stream[g], cudaStreamNonBlocking));
        CUDA_CK(cudaEventCreate(&st->ev_start[g]));
        CUDA_CK(cudaEventCreate(&st->ev_stop[g]));
    }
#ifdef HAVE_MPI
    /* Under a launcher, one rank per process: the process's rank on its node picks its
     * GPU (as nccl-tests with MPI=1 does). */
    if (rc == CV_OK && mpi_boot_launched()) {
        struct mpi_where w;
        char why[200];
        if (mpi_boot_start(&w, why, sizeof why) != CV_OK) {
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
            mpi_boot_stop();
            st->mp = false;
            goto out;
        }
        int mine[1] = {st->dev};
        if (mpi_boot_allgather(st->host, st->hosts, sizeof st->host) != CV_OK ||
            mpi_boot_allgather(mine, st->devs, sizeof mine) != CV_OK) {
            rc = cv_err(err, errlen, CV_EUNAVAIL, "MPI_Allgather of the hosts failed");
            mpi_boot_stop();
            st->mp = false;
            goto out;
        }
    }
#endif
out:
    if (rc != CV_OK) {
        /* A toolkit that loads but cannot drive the GPUs is "unavailable", not a crash. */
        if (rc == CV_EBACKEND) rc = CV_EUNAVAIL;
        nccl_release(st);
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
    if (st->wedged)
        nccl_abort_comms(st); /* never block on a stream that would not drain */
    else
        nccl_destroy_comms(st);
    if (!st->wedged) nccl_release(st);
#ifdef HAVE_MPI
    if (st->mp) mpi_boot_stop();
#endif
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
    if (st->wedged) return cv_err(err, errlen, CV_EBACKEND, "%s", st->wedged_why);
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

/* Communicators for ranks 0..nranks-1 on GPUs 0..nranks-1, made only when the world size
 * changed or the last ones were aborted. */
static int nccl_ensure_comms(struct nccl_state *st, int nranks, char *err, size_t errlen)
{
    if (st->ncomm == nranks) return CV_OK;
    nccl_destroy_comms(st);
#ifdef HAVE_MPI
    if (st->mp) {
        /* Rank 0 makes the id, MPI carries it to every process, each joins with its GPU. */
        ncclUniqueId id;
        memset(&id, 0, sizeof id);
        ncclResult_t ir = st->me == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
        int bad = ir != ncclSuccess;
        if (mpi_boot_max_int(&bad) != CV_OK || bad)
            return cv_err(err, errlen, CV_EBACKEND, "ncclGetUniqueId failed on rank 0%s%s",
                          ir != ncclSuccess ? ": " : "",
                          ir != ncclSuccess ? ncclGetErrorString(ir) : "");
        if (mpi_boot_bcast(&id, sizeof id, 0) != CV_OK)
            return cv_err(err, errlen, CV_EBACKEND, "MPI_Bcast of the ncclUniqueId failed");
        if (cudaSetDevice(st->dev) != cudaSuccess)
            return cv_err(err, errlen, CV_EBACKEND, "cudaSetDevice(%d) failed", st->dev);
        ncclResult_t nr = ncclCommInitRank(&st->comm[st->me], nranks, id, st->me);
        if (nr != ncclSuccess) {
            memset(st->comm, 0, sizeof st->comm);
            return nccl_nccl_fail(nr, NULL, "ncclCommInitRank", __FILE__, __LINE__, err,
                                  errlen);
        }
        st->ncomm = nranks;
        return CV_OK;
    }
#endif
    int devs[CV_MAX_RANKS];
    for (int r = 0; r < nranks; r++)
        devs[r] = r;
    ncclResult_t nr = ncclCommInitAll(st->comm, nranks, devs);
    if (nr != ncclSuccess) {
        memset(st->comm, 0, sizeof st->comm);
        return nccl_nccl_fail(nr, NULL, "ncclCommInitAll", __FILE__, __LINE__, err, errlen);
    }
    st->ncomm = nranks;
    return CV_OK;
}

static void nccl_nap(double waited_s)
{
    /* Spin for the first millisecond (small collectives finish in microseconds), then
     * poll every 50 us so a long wait does not burn a core. */
    if (waited_s < 1e-3) return;
    struct timespec ts = {0, 50 * 1000};
    nanosleep(&ts, NULL);
}

/* After an abort: wait up to NCCL_DRAIN_S for the streams; if they do not drain, nothing
 * that synchronises with them (cudaFree included) may be called again. */
static bool nccl_drain(struct nccl_state *st, int n)
{
    double t0 = now_s();
    for (;;) {
        bool busy = false;
        for (int r = nccl_lo(st); r < nccl_hi(st, n); r++)
            if (cudaStreamQuery(st->stream[gpu_of(st, r)]) == cudaErrorNotReady) busy = true;
        if (!busy) return true;
        if (now_s() - t0 > NCCL_DRAIN_S) {
            st->wedged = true;
            snprintf(st->wedged_why, sizeof st->wedged_why,
                     "GPU streams still busy %.0f s after ncclCommAbort; restart collviz",
                     NCCL_DRAIN_S);
            return false;
        }
        nccl_nap(now_s() - t0);
    }
}

/* Wait until streams 0..n-1 are idle. `progress` (may be NULL) holds `nprogress` events
 * recorded on stream 0 after each iteration: each one that completes pushes the deadline
 * back by timeout_s, so the limit is on one collective, not on a whole batch of them. On a
 * CUDA error, an NCCL async error or the deadline, every communicator is aborted. */
static int nccl_wait(struct nccl_state *st, int n, double timeout_s, const char *what,
                     cudaEvent_t *progress, int nprogress, char *err, size_t errlen)
{
    double t0 = now_s();
    double deadline = t0 + timeout_s;
    int done_iters = 0;
    int rc = CV_OK;
    for (;;) {
        bool busy = false;
        for (int r = nccl_lo(st); r < nccl_hi(st, n) && rc == CV_OK; r++) {
            cudaError_t e = cudaStreamQuery(st->stream[gpu_of(st, r)]);
            if (e == cudaErrorNotReady)
                busy = true;
            else if (e != cudaSuccess)
                rc = cv_err(err, errlen, CV_EBACKEND, "%s on GPU %d: %s (%s)", what, r,
                            cudaGetErrorName(e), cudaGetErrorString(e));
            ncclResult_t ae = ncclSuccess;
            if (rc == CV_OK && r < st->ncomm && st->comm[r] &&
                ncclCommGetAsyncError(st->comm[r], &ae) == ncclSuccess && ae != ncclSuccess &&
                ae != ncclInProgress) {
                const char *detail = ncclGetLastError(st->comm[r]);
                rc = cv_err(err, errlen, CV_EBACKEND, "%s: NCCL error on rank %d: %s%s%s", what,
                            r, ncclGetErrorString(ae), detail && *detail ? ": " : "",
                            detail ? detail : "");
            }
        }
        if (rc == CV_OK && !busy) return CV_OK;
        while (rc == CV_OK && done_iters < nprogress &&
               cudaEventQuery(progress[done_iters]) == cudaSuccess) {
            done_iters++;
            deadline = now_s() + timeout_s;
        }
        if (rc == CV_OK && now_s() > deadline)
            rc = cv_err(err, errlen, CV_ETIMEOUT,
                        "%s did not finish within %g s; NCCL communicators aborted", what,
                        timeout_s);
        if (rc != CV_OK) break;
        nccl_nap(now_s() - t0);
    }
    nccl_abort_comms(st);
    nccl_drain(st, n);
    return rc;
}

/* On an error path that may have left work in flight (a CUDA call failed between
 * launches): let the streams finish, or abort, before buffers are freed under them. The
 * original error message is kept. */
static void nccl_settle(struct nccl_state *st, int n, double timeout_s)
{
    char scratch[8];
    if (!st->wedged) nccl_wait(st, n, timeout_s, "cleanup", NULL, 0, scratch, sizeof scratch);
}

/* ---- buffers ---- */

static void nccl_bufs_free(struct nccl_state *st, struct nccl_bufs *bf)
{
    if (st->wedged) return; /* cudaFree would wait for the stuck streams */
    for (int r = nccl_lo(st); r < nccl_hi(st, bf->n); r++) {
        if (cudaSetDevice(gpu_of(st, r)) != cudaSuccess) continue;
        cudaFree(bf->send[r]);
        cudaFree(bf->recv[r]);
        cudaFree(bf->wrong[r]);
    }
    memset(bf, 0, sizeof *bf);
}

/* Send and receive buffers of rank r on GPU r; receive buffers start as NaN (all bits
 * set), so an element NCCL never wrote counts as wrong. */
static int nccl_bufs_alloc(struct nccl_state *st, struct nccl_bufs *bf, enum coll c, int n,
                           size_t count, int root, char *err, size_t errlen)
{
    int rc = CV_OK;
    memset(bf, 0, sizeof *bf);
    bf->n = n;
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        size_t ns = coll_send_count(c, n, count, r, root);
        size_t nr = coll_recv_count(c, n, count, r, root);
        CUDA_CK(cudaSetDevice(gpu_of(st, r)));
        if (ns) CUDA_CK(cudaMalloc((void **)&bf->send[r], ns * sizeof(float)));
        if (nr) {
            CUDA_CK(cudaMalloc((void **)&bf->recv[r], nr * sizeof(float)));
            CUDA_CK(cudaMemsetAsync(bf->recv[r], 0xff, nr * sizeof(float),
                                    st->stream[gpu_of(st, r)]));
        }
        CUDA_CK(cudaMalloc((void **)&bf->wrong[r], sizeof *bf->wrong[r]));
    }
out:
    if (rc != CV_OK) {
        if (strstr(err ? err : "", "cudaErrorMemoryAllocation")) rc = CV_ENOMEM;
        nccl_bufs_free(st, bf);
    }
    return rc;
}

/* Refuse, before allocating, a size that would not fit in what each GPU has free. */
static int nccl_check_memory(const struct nccl_state *st, enum coll c, int n, size_t count,
                             int root, char *err, size_t errlen)
{
    int rc = CV_OK;
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        size_t ns = coll_send_count(c, n, count, r, root);
        size_t nr = coll_recv_count(c, n, count, r, root);
        if (ns > SIZE_MAX / 8 - nr)
            return cv_err(err, errlen, CV_ENOMEM, "%s of %zu elements overflows memory sizes",
                          coll_name(c), count);
        size_t need = (ns + nr) * sizeof(float) + 64;
        size_t free_b = 0, total_b = 0;
        CUDA_CK(cudaSetDevice(gpu_of(st, r)));
        CUDA_CK(cudaMemGetInfo(&free_b, &total_b));
        if (free_b < NCCL_MEM_HEADROOM || need > free_b - NCCL_MEM_HEADROOM) {
            char s_need[32], s_free[32], s_room[32];
            format_size(need, s_need, sizeof s_need);
            format_size(free_b, s_free, sizeof s_free);
            format_size(NCCL_MEM_HEADROOM, s_room, sizeof s_room);
            return cv_err(err, errlen, CV_ENOMEM,
                          "%s needs %s on GPU %d, which has %s free (keeping %s for NCCL)",
                          coll_name(c), s_need, r, s_free, s_room);
        }
    }
out:
    return rc;
}

/* ---- the collectives ---- */

static ncclRedOp_t nccl_op(enum redop op)
{
    switch (op) {
    case OP_PROD:
        return ncclProd;
    case OP_MIN:
        return ncclMin;
    case OP_MAX:
        return ncclMax;
    case OP_AVG:
        return ncclAvg;
    default:
        return ncclSum;
    }
}

/* Enqueue the collective for every rank inside one group (single process, several devices:
 * NCCL needs the group to progress them together). Returns the first NCCL error; the group
 * is always closed. */
static ncclResult_t nccl_enqueue(struct nccl_state *st, enum coll c, enum redop op, int n,
                                 size_t count, int root, struct nccl_bufs *bf)
{
    ncclResult_t first = ncclGroupStart();
    if (first != ncclSuccess) return first;
    ncclRedOp_t rop = nccl_op(op);
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        ncclComm_t cm = st->comm[r];
        cudaStream_t s = st->stream[gpu_of(st, r)];
        /* A buffer the rank does not use (a non-root's for scatter, gather, broadcast,
         * reduce) has no allocation; NCCL ignores it, but with NCCL_CHECK_POINTERS=1 it
         * rejects NULL for all but broadcast's send and reduce's receive buffer, so such a
         * rank passes its other buffer. */
        const float *sb = bf->send[r] ? bf->send[r] : bf->recv[r];
        float *rb = bf->recv[r] ? bf->recv[r] : bf->send[r];
        ncclResult_t x = ncclSuccess;
        switch (c) {
        case COLL_BROADCAST:
            x = ncclBroadcast(sb, rb, count, ncclFloat, root, cm, s);
            break;
        case COLL_REDUCE:
            x = ncclReduce(sb, rb, count, ncclFloat, rop, root, cm, s);
            break;
        case COLL_ALL_GATHER:
            x = ncclAllGather(sb, rb, count, ncclFloat, cm, s);
            break;
        case COLL_REDUCE_SCATTER:
            x = ncclReduceScatter(sb, rb, count, ncclFloat, rop, cm, s);
            break;
        case COLL_ALL_REDUCE:
            x = ncclAllReduce(sb, rb, count, ncclFloat, rop, cm, s);
            break;
#if NCCL_HAVE_ROOTED_P2P_COLLS
        case COLL_SCATTER:
            x = ncclScatter(sb, rb, count, ncclFloat, root, cm, s);
            break;
        case COLL_GATHER:
            x = ncclGather(sb, rb, count, ncclFloat, root, cm, s);
            break;
        case COLL_ALL_TO_ALL:
            x = ncclAlltoAll(sb, rb, count, ncclFloat, cm, s);
            break;
#else
        /* The send/recv forms nccl-tests used before NCCL 2.28.3: block q of the root's
         * (scatter) or of every rank's (all-to-all) send buffer goes to rank q, and what
         * comes from rank q lands at block q of the receive buffer. */
        case COLL_SCATTER:
            if (r == root)
                for (int q = 0; q < n && x == ncclSuccess; q++)
                    x = ncclSend(sb + (size_t)q * count, count, ncclFloat, q, cm, s);
            if (x == ncclSuccess) x = ncclRecv(rb, count, ncclFloat, root, cm, s);
            break;
        case COLL_GATHER:
            x = ncclSend(sb, count, ncclFloat, root, cm, s);
            if (r == root)
                for (int q = 0; q < n && x == ncclSuccess; q++)
                    x = ncclRecv(rb + (size_t)q * count, count, ncclFloat, q, cm, s);
            break;
        case COLL_ALL_TO_ALL:
            for (int q = 0; q < n && x == ncclSuccess; q++) {
                x = ncclSend(sb + (size_t)q * count, count, ncclFloat, q, cm, s);
                if (x == ncclSuccess)
                    x = ncclRecv(rb + (size_t)q * count, count, ncclFloat, q, cm, s);
            }
            break;
#endif
        case COLL_COUNT:
            x = ncclInvalidArgument;
            break;
        }
        if (x != ncclSuccess && first == ncclSuccess) first = x;
    }
    ncclResult_t end = ncclGroupEnd();
    return first != ncclSuccess ? first : end;
}

/* Enqueue one collective; an NCCL error aborts the communicators (their state is unknown
 * afterwards) and is reported with NCCL's own last-error text. */
static int nccl_launch(struct nccl_state *st, enum coll c, enum redop op, int n, size_t count,
                       int root, struct nccl_bufs *bf, char *err, size_t errlen)
{
    ncclResult_t x = nccl_enqueue(st, c, op, n, count, root, bf);
    if (x == ncclSuccess) return CV_OK;
    const char *detail = ncclGetLastError(st->comm[nccl_lo(st)]);
    int rc = cv_err(err, errlen, x == ncclInvalidArgument ? CV_EINVAL : CV_EBACKEND,
                    "NCCL %s on %d GPUs: %s%s%s", coll_name(c), n, ncclGetErrorString(x),
                    detail && *detail ? ": " : "", detail ? detail : "");
    nccl_abort_comms(st);
    nccl_drain(st, n);
    return rc;
}

static int nccl_validate(enum coll c, enum redop op, int n, int root, char *err, size_t errlen)
{
    if ((unsigned)c >= COLL_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "unknown collective %d", (int)c);
    if ((unsigned)op >= OP_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "unknown reduction op %d", (int)op);
    if (coll_is_rooted(c) && (root < 0 || root >= n))
        return cv_err(err, errlen, CV_EINVAL, "root %d is not a rank of %d", root, n);
    return CV_OK;
}

/* ---- measure ---- */

static void nccl_fill_result(const struct nccl_state *st, const struct bench_params *p,
                             size_t count, double time_us, long wrong, struct bench_result *r)
{
    char ver[24];
    memset(r, 0, sizeof *r);
    r->bytes = coll_bytes(p->coll, p->nranks, count, sizeof(float));
    r->count = count;
    r->time_us = time_us;
    r->algbw = time_us > 0 ? (double)r->bytes / (time_us * 1e-6) / 1e9 : 0.0;
    r->busbw = r->algbw * coll_busbw_factor(p->coll, p->nranks);
    r->wrong = wrong;
    r->nranks = p->nranks;
    /* "nccl" or "nccl Ring": NCCL picks its algorithm itself unless NCCL_ALGO forces one. */
    size_t o = (size_t)snprintf(r->algo, sizeof r->algo, "nccl");
    if (st->info.nccl_algo[0] && o + 2 < sizeof r->algo) {
        r->algo[o++] = ' ';
        size_t room = sizeof r->algo - o - 1;
        size_t len = strlen(st->info.nccl_algo);
        memcpy(r->algo + o, st->info.nccl_algo, len < room ? len : room);
        r->algo[o + (len < room ? len : room)] = '\0';
    }
    nccl_version_string(st->info.nccl_version, ver, sizeof ver);
    snprintf(r->how, sizeof r->how, "%s, %d iters after %d warm-up, NCCL %s%s",
             nccl_emulated() ? "emulated CUDA events (host time, not GPU time)" : "CUDA events",
             p->iters, p->warmup, ver, nccl_emu());
}

static int nccl_measure(struct backend *b, const struct bench_params *p,
                        struct bench_result *res, volatile int *cancel, char *err,
                        size_t errlen)
{
    struct nccl_state *st = nccl_st(b);
    const int n = p->nranks;
    const double timeout_s = p->timeout_s > 0 ? p->timeout_s : NCCL_DEFAULT_TIMEOUT_S;
    struct nccl_bufs bf = {0};
    cudaEvent_t *progress = NULL;
    int nprogress = 0;
    int rc = nccl_check_ranks(st, n, err, errlen);
    if (rc == CV_OK) rc = nccl_validate(p->coll, p->op, n, p->root, err, errlen);
    if (rc != CV_OK) return rc;
    if (p->iters < 1 || p->warmup < 0)
        return cv_err(err, errlen, CV_EINVAL, "iters %d / warm-up %d: need iters >= 1",
                      p->iters, p->warmup);
    size_t count = coll_count_for_bytes(p->coll, n, p->bytes, sizeof(float));
    if (count == 0)
        return cv_err(err, errlen, CV_EINVAL,
                      "%zu bytes is less than one float per rank for %s on %d ranks", p->bytes,
                      coll_name(p->coll), n);
    const char *what = coll_name(p->coll);

    /* Communicators first: NCCL's own buffers then already count as used memory. */
    if ((rc = nccl_ensure_comms(st, n, err, errlen)) != CV_OK) return rc;
    if ((rc = nccl_check_memory(st, p->coll, n, count, p->root, err, errlen)) != CV_OK)
        return rc;
    if ((rc = nccl_bufs_alloc(st, &bf, p->coll, n, count, p->root, err, errlen)) != CV_OK)
        return rc;
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        CUDA_CK(cudaSetDevice(gpu_of(st, r)));
        CUDA_CK((cudaError_t)cvk_fill_pattern(bf.send[r],
                                              coll_send_count(p->coll, n, count, r, p->root),
                                              p->op, r, st->stream[gpu_of(st, r)]));
    }
    if ((rc = nccl_wait(st, n, timeout_s, "filling the send buffers", NULL, 0, err, errlen)))
        goto out;

    /* Warm-up one iteration at a time, so a cancel is seen between iterations. */
    for (int i = 0; i < p->warmup; i++) {
        if (cancel && *cancel) {
            rc = cv_err(err, errlen, CV_ECANCELLED, "cancelled during warm-up");
            goto out;
        }
        if ((rc = nccl_launch(st, p->coll, p->op, n, count, p->root, &bf, err, errlen)) ||
            (rc = nccl_wait(st, n, timeout_s, what, NULL, 0, err, errlen)))
            goto out;
    }

    /* The timed loop is enqueued back to back, as nccl-tests does, so the GPUs never wait
     * for the host; the events around it on each stream time it on the GPU. */
    progress = xcalloc((size_t)p->iters, sizeof *progress);
    const int r0 = nccl_lo(st); /* progress events go on this process's first rank */
    CUDA_CK(cudaSetDevice(gpu_of(st, r0)));
    for (nprogress = 0; nprogress < p->iters; nprogress++)
        CUDA_CK(cudaEventCreateWithFlags(&progress[nprogress], cudaEventDisableTiming));
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        CUDA_CK(cudaSetDevice(gpu_of(st, r)));
        CUDA_CK(cudaEventRecord(st->ev_start[gpu_of(st, r)], st->stream[gpu_of(st, r)]));
    }
    int launched = 0;
    for (; launched < p->iters; launched++) {
        if (cancel && *cancel) break;
        if ((rc = nccl_launch(st, p->coll, p->op, n, count, p->root, &bf, err, errlen)))
            goto out;
        CUDA_CK(cudaSetDevice(gpu_of(st, r0)));
        CUDA_CK(cudaEventRecord(progress[launched], st->stream[gpu_of(st, r0)]));
    }
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        CUDA_CK(cudaSetDevice(gpu_of(st, r)));
        CUDA_CK(cudaEventRecord(st->ev_stop[gpu_of(st, r)], st->stream[gpu_of(st, r)]));
    }
    if ((rc = nccl_wait(st, n, timeout_s, what, progress, launched, err, errlen))) goto out;
    if (launched < p->iters) {
        rc = cv_err(err, errlen, CV_ECANCELLED, "cancelled after %d of %d iterations", launched,
                    p->iters);
        goto out;
    }

    double sum_ms = 0.0;
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        float ms = 0.0f;
        CUDA_CK(
            cudaEventElapsedTime(&ms, st->ev_start[gpu_of(st, r)], st->ev_stop[gpu_of(st, r)]));
        sum_ms += ms;
    }
#ifdef HAVE_MPI
    if (st->mp && (rc = mpi_boot_sum_double(&sum_ms, 1)) != CV_OK) {
        rc = cv_err(err, errlen, CV_EBACKEND, "MPI_Allreduce of the times failed");
        goto out;
    }
#endif
    double time_us = sum_ms / n * 1e3 / p->iters; /* averaged over ranks, per operation */

    long wrong = -1;
    if (p->check) {
        float tol = p->op == OP_AVG ? NCCL_AVG_TOL : 0.0f;
        for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
            struct cvk_pattern q = {.coll = p->coll,
                                    .op = p->op,
                                    .nranks = n,
                                    .root = p->root,
                                    .rank = r,
                                    .count = count};
            size_t nr = coll_recv_count(p->coll, n, count, r, p->root);
            CUDA_CK(cudaSetDevice(gpu_of(st, r)));
            CUDA_CK((cudaError_t)cvk_count_wrong(bf.recv[r], nr, q, tol, bf.wrong[r],
                                                 st->stream[gpu_of(st, r)]));
        }
        if ((rc = nccl_wait(st, n, timeout_s, "checking the result", NULL, 0, err, errlen)))
            goto out;
        wrong = 0;
        for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
            unsigned long long w = 0;
            CUDA_CK(cudaSetDevice(gpu_of(st, r)));
            CUDA_CK(cudaMemcpy(&w, bf.wrong[r], sizeof w, cudaMemcpyDeviceToHost));
            wrong += (long)w;
        }
#ifdef HAVE_MPI
        if (st->mp && mpi_boot_sum_long(&wrong, 1) != CV_OK) {
            rc = cv_err(err, errlen, CV_EBACKEND, "MPI_Allreduce of #wrong failed");
            goto out;
        }
#endif
    }
    nccl_fill_result(st, p, count, time_us, wrong, res);
out:
    if (rc != CV_OK) nccl_settle(st, n, timeout_s);
    if (progress) {
        for (int i = 0; i < nprogress; i++)
            cudaEventDestroy(progress[i]);
        free(progress);
    }
    nccl_bufs_free(st, &bf);
    return rc;
}

/* ---- display scale ---- */

static int nccl_run_small(struct backend *b, const struct plan *pl, float *const *send,
                          float **recv, char *err, size_t errlen)
{
    struct nccl_state *st = nccl_st(b);
    const int n = pl->nranks;
    const enum coll c = pl->coll;
    struct nccl_bufs bf = {0};
    int rc = nccl_check_ranks(st, n, err, errlen);
    if (rc == CV_OK) rc = nccl_validate(c, pl->op, n, pl->root, err, errlen);
    if (rc == CV_OK && pl->count == 0)
        rc = cv_err(err, errlen, CV_EINVAL, "count 0: nothing to run");
    if (rc == CV_OK) rc = nccl_ensure_comms(st, n, err, errlen);
    if (rc == CV_OK) rc = nccl_check_memory(st, c, n, pl->count, pl->root, err, errlen);
    if (rc == CV_OK) rc = nccl_bufs_alloc(st, &bf, c, n, pl->count, pl->root, err, errlen);
    if (rc != CV_OK) return rc;
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        size_t ns = coll_send_count(c, n, pl->count, r, pl->root);
        CUDA_CK(cudaSetDevice(gpu_of(st, r)));
        if (ns)
            CUDA_CK(cudaMemcpyAsync(bf.send[r], send[r], ns * sizeof(float),
                                    cudaMemcpyHostToDevice, st->stream[gpu_of(st, r)]));
    }
    /* Wait before copying back: a copy to pageable host memory blocks the calling thread
     * until the stream reaches it, which must never be a stuck collective. */
    if ((rc = nccl_launch(st, c, pl->op, n, pl->count, pl->root, &bf, err, errlen)) ||
        (rc = nccl_wait(st, n, NCCL_DEFAULT_TIMEOUT_S, coll_name(c), NULL, 0, err, errlen)))
        goto out;
    for (int r = nccl_lo(st); r < nccl_hi(st, n); r++) {
        size_t nr = coll_recv_count(c, n, pl->count, r, pl->root);
        CUDA_CK(cudaSetDevice(gpu_of(st, r)));
        if (nr)
            CUDA_CK(
                cudaMemcpy(recv[r], bf.recv[r], nr * sizeof(float), cudaMemcpyDeviceToHost));
    }
#ifdef HAVE_MPI
    /* Across processes every process gets every rank's receive buffer. */
    for (int r = 0; st->mp && r < n && rc == CV_OK; r++) {
        size_t nr = coll_recv_count(c, n, pl->count, r, pl->root);
        if (nr && mpi_boot_bcast(recv[r], nr * sizeof(float), r) != CV_OK)
            rc = cv_err(err, errlen, CV_EBACKEND, "MPI_Bcast of rank %d's result failed", r);
    }
#endif
out:
    if (rc != CV_OK) nccl_settle(st, n, NCCL_DEFAULT_TIMEOUT_S);
    nccl_bufs_free(st, &bf);
    return rc;
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

/* The one runtime (comm_nccl.h): one rank per GPU, every GPU of this process or, under an
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
        .async = cp->async,
        .p2p = cp->p2p,
        .timeout_s = cp->timeout_s > 0 ? cp->timeout_s : NCCL_DEFAULT_TIMEOUT_S,
        .tl = cp->tl,
    };
    return comm_nccl_create(out, &cfg, err, errlen);
}

const struct backend_ops nccl_backend_ops = {
    .name = "nccl",
    .kind = BACKEND_NCCL,
    .caps = BACKEND_CAP_GPU | BACKEND_CAP_OWN_ALGO | BACKEND_CAP_NCCL_ENV,
    .open = nccl_open,
    .close = nccl_close,
    .max_ranks = nccl_max_ranks,
    .measure = nccl_measure,
    .run_small = nccl_run_small,
    .describe = nccl_describe,
    .rank_label = nccl_rank_label,
    .proc_rank = nccl_proc_rank,
    .proc_count = nccl_proc_count,
    .comm_create = nccl_comm_create,
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
    if (st->mp) return rank == st->me ? st->dev : -1;
    return rank >= 0 && rank < st->info.ngpus ? rank : -1;
}

/* snprintf that keeps appending after truncation without overflowing. */
static size_t nccl_cat(char *buf, size_t n, size_t o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t nccl_cat(char *buf, size_t n, size_t o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o < n ? buf + o : NULL, o < n ? n - o : 0, fmt, ap);
    va_end(ap);
    return o + (k > 0 ? (size_t)k : 0);
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
    o = nccl_cat(buf, n, o,
                 "NCCL %s%s (built against %s), CUDA runtime %s%s, driver supports CUDA %s%s\n",
                 ver, emu, hver, rt, emu, drv, emu);
    if (in->visible_gpus > in->ngpus)
        o = nccl_cat(buf, n, o, "%d GPUs visible, the first %d used\n", in->visible_gpus,
                     in->ngpus);
    for (int g = 0; g < in->ngpus; g++) {
        format_size(in->gpu[g].mem_total, mem, sizeof mem);
        o = nccl_cat(buf, n, o, "GPU %d: %s, %s%s, sm_%d%d%s, PCI %s%s\n", g, in->gpu[g].name,
                     mem, emu, in->gpu[g].cc_major, in->gpu[g].cc_minor, emu,
                     in->gpu[g].pci_bus_id, emu);
    }
    if (in->ngpus > 1) {
        o = nccl_cat(buf, n, o, "peer access%s (row reads column directly):\n     ", emu);
        for (int h = 0; h < in->ngpus; h++)
            o = nccl_cat(buf, n, o, " %3d", h);
        o = nccl_cat(buf, n, o, "\n");
        for (int g = 0; g < in->ngpus; g++) {
            o = nccl_cat(buf, n, o, "  %3d", g);
            for (int h = 0; h < in->ngpus; h++)
                o = nccl_cat(buf, n, o, " %3s", g == h ? "-" : in->peer[g][h] ? "yes" : "no");
            o = nccl_cat(buf, n, o, "\n");
        }
    }
    o = nccl_cat(buf, n, o, "NCCL_ALGO=%s NCCL_PROTO=%s\n",
                 in->nccl_algo[0] ? in->nccl_algo : "(unset: NCCL chooses)",
                 in->nccl_proto[0] ? in->nccl_proto : "(unset: NCCL chooses)");
    return (int)o;
}
