/* nccl_info.h - what the NCCL backend found when it opened: the GPUs (name, memory, PCI
 * bus id, compute capability), which pairs can reach each other directly (peer access),
 * the NCCL and CUDA versions and the NCCL_ALGO / NCCL_PROTO settings in force. The UI and
 * `collviz bench` show this so a student sees what "NCCL on these GPUs" actually means.
 *
 * Plain C with no CUDA types, so any module can include it; the functions exist only when
 * the NCCL backend is compiled in (HAVE_NCCL). */
#ifndef COLLVIZ_BACKEND_NCCL_NCCL_INFO_H
#define COLLVIZ_BACKEND_NCCL_NCCL_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"

struct backend;

struct nccl_gpu_info {
    char name[256];      /* "NVIDIA H200" (cudaDeviceProp.name) */
    char short_name[32]; /* "H200": the name without vendor and memory suffixes */
    char pci_bus_id[32]; /* "0000:19:00.0" */
    size_t mem_total;    /* bytes */
    int cc_major, cc_minor;
};

struct nccl_info {
    int ngpus;        /* devices used: min(visible GPUs, CV_MAX_RANKS) */
    int visible_gpus; /* cudaGetDeviceCount */
    struct nccl_gpu_info gpu[CV_MAX_RANKS];
    bool peer[CV_MAX_RANKS][CV_MAX_RANKS]; /* cudaDeviceCanAccessPeer(i, j); false on i == j */
    int nccl_version;                      /* ncclGetVersion: 22809 = 2.28.9 */
    int nccl_header_version; /* NCCL_VERSION_CODE the backend was compiled against */
    int cuda_runtime;        /* cudaRuntimeGetVersion: 13000 = 13.0 */
    int cuda_driver;         /* cudaDriverGetVersion: the newest CUDA the driver supports */
    char nccl_algo[64];      /* $NCCL_ALGO, "" if unset */
    char nccl_proto[64];     /* $NCCL_PROTO, "" if unset */
};

/* The information of an opened NCCL backend, or NULL if b is not one. */
const struct nccl_info *nccl_backend_get_info(const struct backend *b);

/* The GPU of rank `rank` when this process runs that rank (every rank in one process: GPU
 * `rank`; under an MPI launcher only its own rank, on the GPU its node rank picks), else
 * -1 (also when b is not an NCCL backend). */
int nccl_backend_gpu(const struct backend *b, int rank);

/* The same as text, one fact per line (GPUs, peer-access matrix, versions, environment),
 * for a details panel or `bench --verbose`. Returns the length it wanted (as snprintf), or
 * -1 if b is not an NCCL backend (buf then holds an empty string). */
int nccl_backend_info(const struct backend *b, char *buf, size_t n);

/* True when this program runs on tests/fakegpu's host emulation of CUDA and NCCL (a test
 * build, `make FAKEGPU=1`), not on a GPU: every GPU fact printed (versions, driver,
 * compute capability, timing method) then says "emulated". Found through a weak reference
 * to the emulation's marker, so a real build has no link to it at all. */
bool nccl_emulated(void);

/* What this build was compiled against, for when the running NCCL cannot be asked:
 * "compiled against NCCL 2.28.9 and the CUDA 13.0 runtime" (plus "; linked with the host
 * emulation" in an emulated build). */
void nccl_build_text(char *buf, size_t n);

/* "2.28.9" from 22809 (and "2.8.4" from the pre-2.9 encoding 2804). */
void nccl_version_string(int code, char *buf, size_t n);

/* A GPU name short enough for a rank's box: "NVIDIA H100 80GB HBM3" -> "H100",
 * "Tesla V100-SXM2-32GB" -> "V100", "NVIDIA GeForce RTX 4090" -> "RTX 4090". */
void nccl_gpu_short_name(const char *name, char *out, size_t n);

#endif
