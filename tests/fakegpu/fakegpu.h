/* fakegpu.h - a host emulation of the parts of the CUDA runtime, NCCL and cuBLAS that
 * collviz calls, plus host versions of the kernels/ launchers, linked instead of the real
 * libraries into a test-only build (`make FAKEGPU=1`, build/fakegpu). It exists because the
 * GPU host code (src/backend/nccl, src/device/dev_cuda.c and nccl_comm.c) is written on
 * machines without a GPU: this lets CI run that code's control flow, buffer arithmetic and
 * NCCL call sequences against the documented semantics of those APIs.
 *
 * What it proves and what it does not. It checks what the APIs' documentation promises and
 * demands: every device pointer handed to a copy, kernel, collective or GEMM lies inside an
 * allocation of the right device and size; streams run their work in order and only after
 * the events they wait for; a collective completes only when every rank of its clique has
 * posted the matching call (same kind, count, type, op and root), send/recv pairs match
 * count for count, ops of one group are fused, a thread that drives two ranks of a clique
 * outside a group is a deadlock; freshly allocated device memory is NaN, not zero; a beta
 * of 0 in a GEMM means C is not read. It says nothing about GPU speed (its timings are host
 * time), about the CUDA kernels themselves (its launchers loop over the same KERNEL_HD
 * formulas on the host, so kernels/ is tested on a GPU only, by tests/gpu/test_kernels), or
 * about NCCL's algorithms. A device it emulates is named "fakegpu (host emulation, not a
 * GPU)" wherever a name is shown, so no output of this build can pass for a GPU's.
 *
 * Environment:
 *   FAKEGPU_DEVICES=N      devices visible (default 2; 0 = none, cudaErrorNoDevice)
 *   FAKEGPU_MEM_MIB=N      memory per device (default 4096)
 *   FAKEGPU_HANG_BYTES=N   an NCCL call moving >= N bytes per rank never completes until
 *                          its communicator is aborted: how the deadline paths get tested
 *   FAKEGPU_CORRUPT=1      every NCCL call delivers one wrong element: the checks built
 *                          on NCCL's results must then fail
 *   FAKEGPU_WATCHDOG_S=N   how long a blocking call may wait before it is called a
 *                          deadlock (default 60)
 *
 * A use the real API would reject returns the same error code the real one documents;
 * a use that would corrupt memory or hang a real GPU (a bad device pointer, a deadlock)
 * prints "fakegpu: ..." and aborts the process, so a test cannot miss it. */
#ifndef COLLVIZ_FAKEGPU_H
#define COLLVIZ_FAKEGPU_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

/* In every binary that carries the emulation (see fake_cuda.c); never in one that does not. */
extern const char cv_fakegpu_marker[];

#define FK_MAX_DEVICES 64
#define FK_MAX_RANGES 4

struct fk_stream;
struct fk_event;

/* A unit of stream work. FK_FN runs fn(arg) and then frees arg; FK_RECORD completes an
 * event; FK_WAIT waits for one; FK_NCCL is a fused group of NCCL calls of one
 * communicator (fake_nccl.c decides when it can run). `ranges` name the device memory
 * the op touches, so a synchronous copy can be checked against pending work. */
enum fk_kind { FK_FN, FK_RECORD, FK_WAIT, FK_NCCL };

struct fk_range {
    const void *p;
    size_t bytes;
    bool write;
};

struct fk_op {
    enum fk_kind kind;
    struct fk_op *next;
    struct fk_stream *stream;
    const char *what; /* for messages */
    void (*fn)(void *arg);
    void *arg;
    struct fk_event *ev;
    unsigned long gen;
    void *group; /* FK_NCCL: fake_nccl.c's struct */
    bool done;   /* FK_NCCL: completed by fake_nccl.c */
    int nranges;
    struct fk_range range[FK_MAX_RANGES];
};

/* The one lock every fake entry point holds while it touches fake state. */
void fk_lock(void);
void fk_unlock(void);

/* "fakegpu: <message>" on stderr, then abort(). */
void fk_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

int fk_device_count(void);
int fk_current_device(void);

/* The stream behind a handle (NULL = the current device's legacy default stream); dies on
 * a destroyed or unknown handle. Lock held. */
struct fk_stream *fk_stream_of(cudaStream_t s);
int fk_stream_device(const struct fk_stream *s);
bool fk_stream_head_is(const struct fk_stream *s, const struct fk_op *op);
const char *fk_stream_name(const struct fk_stream *s, char *buf, size_t n);

/* Die unless [p, p + bytes) lies inside one live allocation of device `dev` (bytes 0 is
 * fine for any p). `what` names the argument in the message. Lock held. */
void fk_check_device_range(const void *p, size_t bytes, int dev, const char *what);
/* True when p points into any device allocation. Lock held. */
bool fk_is_device_ptr(const void *p);

/* Block (lock held; released while waiting) until done(arg), running work meanwhile;
 * other threads may be the ones whose calls let it finish. A wait longer than the
 * watchdog (FAKEGPU_WATCHDOG_S, default 60) is a deadlock: it dies naming `what`. */
void fk_wait_for(bool (*done)(void *), void *arg, const char *what);

/* A zeroed op of `kind`; the caller fills it in. */
struct fk_op *fk_op_new(enum fk_kind kind, const char *what);
void fk_op_add_range(struct fk_op *op, const void *p, size_t bytes, bool write);
/* Append to a stream's queue and run whatever can run. Lock held. */
void fk_enqueue(struct fk_stream *s, struct fk_op *op);
/* Run every op that can run, until nothing changes. Lock held. */
void fk_progress(void);

/* A kernel launch on `stream` of the current device: returns cudaErrorInvalidResourceHandle
 * (as CUDA does) when the stream belongs to another device, after saying so; otherwise
 * checks `nranges` device ranges (p, bytes, write) and enqueues fn(arg). arg must be a
 * malloc'd block; it is freed after fn ran. */
cudaError_t fk_launch(cudaStream_t stream, const char *what, void (*fn)(void *), void *arg,
                      int nranges, const struct fk_range *ranges);

/* fake_nccl.c: can the group op at the head of its stream run now? If so, run it and
 * every group op it is fused with (each marked done) and return true. Lock held. */
bool fk_nccl_try(struct fk_op *op);

#endif
