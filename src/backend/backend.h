/* backend.h - what every backend provides: a table of operations (struct backend_ops)
 * filled with designated initializers, one per backend folder. The CPU backend is always
 * built; NCCL is added when the CUDA toolkit is found. A backend whose open fails reports
 * "unavailable: <reason>" and the program carries on with the others.
 *
 * A backend's runtime is its communicator (comm.h, made by comm_create): training runs on
 * it, and backend/run.c measures and runs the display-scale collective on it, so each
 * backend has one way of moving data, not one per caller. The table below only opens,
 * describes and makes that communicator.
 *
 * Only the worker thread (worker/) calls a backend, one call at a time. */
#ifndef COLLVIZ_BACKEND_BACKEND_H
#define COLLVIZ_BACKEND_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "core/plan.h"

/* One measurement: the collective at `bytes` (S, nccl-tests' size) on nranks ranks. */
struct bench_params {
    enum coll coll;
    enum algo algo; /* ignored by backends that choose their own (NCCL) */
    bool algo_auto; /* let the backend pick its fastest algorithm */
    enum redop op;
    int nranks;
    size_t bytes;
    int root;
    int iters;        /* timed iterations (default 20) */
    int warmup;       /* untimed iterations first (default 5) */
    bool check;       /* verify the result (#wrong) after the timed loop */
    double timeout_s; /* a collective still running after this is aborted (CV_ETIMEOUT) */
    /* CPU: the plan refined into slices per transfer (0 = the backend's default slice
     * size, 1 = whole chunks) and channels (0 or 1 = one); ignored by NCCL, which slices
     * by its own protocol. */
    int slices, channels;
    /* Run the library's own collective (MPI_Allreduce, ...: `--algo mpi`) instead of the
     * plan; only for backends with BACKEND_CAP_NATIVE_COLL. */
    bool native;
    /* Processes backend: run on the ranks of this process's node only (a sub-communicator
     * of the ranks sharing its memory), not on every rank of the job. */
    bool within_node;
    /* The ring plans in this order (plan_build_ring; ring_n 0: 0, 1, ..., W-1). Set by
     * `collviz bench --ring-order`, which runs in process: the job protocol does not carry
     * it (worker/proto.c), and no screen sets it. */
    int ring_order[CV_MAX_RANKS];
    int ring_n;
};

/* One row of nccl-tests' table. */
struct bench_result {
    size_t bytes;   /* S */
    size_t count;   /* elements of S (bytes / 4), nccl-tests' "count" column */
    double time_us; /* per operation, averaged over the timed iterations */
    double algbw;   /* GB/s, 10^9 bytes: S / time */
    double busbw;   /* GB/s: algbw * coll_busbw_factor() */
    long wrong;     /* elements that differ from the expected result; -1 = not checked */
    int nranks;
    char algo[16];        /* the algorithm that ran ("ring", "tree", "direct", "nccl") */
    char how[120];        /* how it was timed, for the UI's "measured how?" line */
    int slices, channels; /* CPU: how the plan was refined; 0 = not sliced by us (NCCL) */
    /* The links between the ranks as the library reported them, "" = nothing reported (the
     * worker fills it from backend_links after the run). NCCL: "P2P/CUMEM (...), 8 channels
     * (NCCL INFO log)" or why it was not read. */
    char link[200];
};

struct backend;
struct comm;
struct comm_params;

/* Summarise the links in a library's own log (len bytes) into one line in buf: the number
 * of connections recognised, 0 for none. Above the backends (records/reclinks.h's
 * rec_links_summary); passed to backend_links. */
typedef int (*backend_log_summary_fn)(const char *log, size_t len, char *buf, size_t n);

/* Which backend, for code that must tell them apart: compare kinds or ask for a
 * capability, never the name string. */
enum backend_kind { BACKEND_CPU, BACKEND_NCCL, BACKEND_MPI, BACKEND_KIND_COUNT };

/* What a backend can do or is (struct backend_ops.caps). */
enum backend_cap {
    /* Reduces in the plan's own order, so its results equal the trace's bit for bit. */
    BACKEND_CAP_EXACT_REDUCTION = 1u << 0,
    /* A rank is a GPU: one rank per device, so the world size is capped at the GPU count. */
    BACKEND_CAP_GPU = 1u << 1,
    /* Chooses its own algorithm (bench_params.algo is ignored). */
    BACKEND_CAP_OWN_ALGO = 1u << 2,
    /* Its behaviour is steered by its library's variables (NCCL_ALGO / NCCL_PROTO), shown
     * next to its figures. */
    BACKEND_CAP_LIB_ENV = 1u << 3,
    /* A rank is a process started by a launcher (mpirun, srun): the world size is the
     * launcher's, every process runs the same command, and only rank 0 prints. */
    BACKEND_CAP_PROCESSES = 1u << 4,
    /* Can also measure the library's own collectives (bench_params.native: `--algo mpi`). */
    BACKEND_CAP_NATIVE_COLL = 1u << 5,
    /* Runs on a host emulation of its devices (tests/fakegpu), not on real ones: every
     * device fact and time it gives must say "emulated". Known at run time only, so it is
     * in backend_caps_of()'s answer, never in a static ops->caps. */
    BACKEND_CAP_EMULATED = 1u << 6,
};

struct backend_ops {
    const char *name; /* "cpu", "nccl" */
    enum backend_kind kind;
    unsigned caps; /* enum backend_cap bits */
    /* Open for up to max_ranks ranks. On failure fill err with the reason. */
    int (*open)(struct backend *b, char *err, size_t errlen);
    void (*close)(struct backend *b);
    /* Largest nranks this backend can run (CPU: CV_MAX_RANKS; NCCL: the GPU count). */
    int (*max_ranks)(struct backend *b);
    /* One line saying what the ranks are: "4 ranks = 4 CPU threads on 2 cores". */
    void (*describe)(struct backend *b, int nranks, char *buf, size_t n);
    /* What one rank is, for a box label: "cpu thread", "GPU 3 H200". */
    void (*rank_label)(struct backend *b, int rank, char *buf, size_t n);
    /* Optional (NULL = 0): this process's rank in a job of several processes. Only rank 0
     * prints results; the others print only their own failures. */
    int (*proc_rank)(struct backend *b);
    /* Optional (NULL = 1): processes in the job when they vary at run time (NCCL is one
     * process for every GPU, or one per GPU under an MPI launcher). */
    int (*proc_count)(struct backend *b);
    /* Optional: how many ranks share this process's node (--within-node); NULL = all. */
    int (*node_ranks)(struct backend *b);
    /* The backend's runtime (backend/comm.h) for cp->nranks ranks: what training, the
     * measurement and the display-scale run (backend/run.c) all run on. */
    int (*comm_create)(struct backend *b, const struct comm_params *cp, struct comm **out,
                       char *err, size_t errlen);

    /* What the backend found on the machine, for the screens and bench's header; all
     * optional (NULL: it reports nothing of the kind). Callers use the backend_* wrappers
     * below, so no code above backend/ needs to know which library is behind it. */
    /* The hardware block, one fact a line (GPUs, peer access, versions, settings): the
     * length it wanted (as snprintf), or -1 when it has none. */
    int (*hardware)(const struct backend *b, char *buf, size_t n);
    /* The library's steering variables as it read them (NCCL_ALGO, NCCL_PROTO), "" unset. */
    void (*lib_env)(const struct backend *b, char *algo, size_t algo_n, char *proto,
                    size_t proto_n);
    /* The links between nranks ranks as the library reported them, its log summarised by
     * `summarise`; "" = nothing. */
    void (*links)(const struct backend *b, int nranks, backend_log_summary_fn summarise,
                  char *buf, size_t n);
    /* The device rank `rank` runs on in this process, -1 when it runs on none here. */
    int (*rank_device)(const struct backend *b, int rank);
    /* That device's name, as the driver gives it ("NVIDIA H200"). */
    void (*device_name)(const struct backend *b, int dev, char *buf, size_t n);
    /* The library's own log of what it set up (NCCL's INFO log: its rings, trees and links,
     * for records/records.h), on the heap in *text (*len bytes; the caller frees it), and
     * where it comes from in src ("NCCL's INFO log of this process"): 0; or -1 with why
     * there is none in src. */
    int (*lib_log)(const struct backend *b, char **text, size_t *len, char *src, size_t n);
};

struct run_state; /* backend/run.c's: the runtime's communicator, auto-pick cache */

struct backend {
    const struct backend_ops *ops;
    void *priv;
    struct run_state *run;
};

/* Names of the backends compiled in, NULL-terminated ({"cpu", "nccl", NULL}). */
const char *const *backend_names(void);
/* The kind a backend name ("cpu", "nccl") stands for, built or not; -1 for any other
 * string ("auto", "", NULL). */
int backend_kind_of(const char *name);
/* The name of a kind ("cpu"). */
const char *backend_kind_name(enum backend_kind k);
/* The capabilities of the backend called name, built or not (0 for an unknown name): for
 * code that holds a backend's name, such as a result row, rather than the backend. */
unsigned backend_caps_of(const char *name);
/* The capabilities of kind k, built or not (0 for a kind out of range): for code that
 * holds a kind, such as a training configuration, rather than the backend. */
unsigned backend_kind_caps(enum backend_kind k);
/* Open by name: "cpu", "nccl", or "auto" (NCCL when at least 2 GPUs can be used, else
 * CPU). On failure *out is NULL and err says why ("nccl: unavailable - <reason>"). For
 * "auto", `why_not` (may be NULL) receives the reason NCCL was not chosen. */
int backend_open(const char *name, struct backend **out, char *err, size_t errlen,
                 char *why_not, size_t why_not_len);
void backend_close(struct backend *b);
/* Under a launcher's job of several processes (launcher_job_of_env), the backend a command
 * runs on is the job's: *out is `asked` outside such a job (NULL stays NULL: the command's
 * default), else the job's backend when none or "auto" was asked (nccl when it opens
 * across the processes, else mpi), `asked` when it can join the job; CV_EINVAL with the
 * reason (naming the launcher's variable) for one that runs in one process, a job no
 * backend here can join (torchrun's; a build without MPI), or a size that is not a count. */
int backend_for_job(const char *asked, const char **out, char *err, size_t errlen);
/* The optional reports of struct backend_ops, safe for any backend (and b == NULL): the
 * hardware block (-1 and "" when none), the steering variables, the links, a rank's
 * device (-1 when none) and a device's name ("" when none). */
int backend_hardware(const struct backend *b, char *buf, size_t n);
void backend_lib_env(const struct backend *b, char *algo, size_t algo_n, char *proto,
                     size_t proto_n);
void backend_links(const struct backend *b, int nranks, backend_log_summary_fn summarise,
                   char *buf, size_t n);
int backend_rank_device(const struct backend *b, int rank);
void backend_device_name(const struct backend *b, int dev, char *buf, size_t n);
/* lib_log, safe for any backend: -1 with "no NCCL log: not a GPU run" for one without. */
int backend_lib_log(const struct backend *b, char **text, size_t *len, char *src, size_t n);
/* What the backend of kind k was compiled against, for when it cannot be asked ("compiled
 * against NCCL 2.28.9 and the CUDA 13.0 runtime"); "" for a kind with nothing to say. */
void backend_build_text(enum backend_kind k, char *buf, size_t n);

/* For a full-screen program, before any backend opens: a library that would write its own
 * log on stdout, under the screen (NCCL, when the user set NCCL_DEBUG without
 * NCCL_DEBUG_FILE), writes it to a file in a new private folder under $TMPDIR (or /tmp)
 * instead. backend_logs_off_screen_end, once the screen is gone, names that file on stderr
 * if the library wrote it, else removes the folder; a second call says nothing. */
void backend_logs_off_screen(void);
void backend_logs_off_screen_end(void);

/* This process's rank in a job of processes (BACKEND_CAP_PROCESSES); 0 otherwise. */
int backend_proc_rank(const struct backend *b);
/* True when the ranks are processes of a job (BACKEND_CAP_PROCESSES, or NCCL under an MPI
 * launcher): the world size is the launcher's and only rank 0 prints. */
bool backend_multiprocess(const struct backend *b);

#endif
