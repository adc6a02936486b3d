/* fake_cuda.c - the CUDA runtime calls collviz makes, emulated on the host (see fakegpu.h):
 * devices, allocations, streams as FIFO queues of work, events, copies, and the progress
 * engine that runs whatever work can run. */
#include "fakegpu.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fk_stream {
    int id, dev;
    unsigned flags;
    bool legacy, destroyed;
    unsigned long queued, ran; /* ops ever queued and run, in order */
    struct fk_op *head, *tail;
    struct fk_stream *next_all;
};

struct fk_event {
    int dev;
    unsigned flags;
    bool destroyed;
    unsigned long recorded, completed; /* generations */
    double t;                          /* host seconds at the last completion */
    struct fk_event *next_all;         /* kept for the process's life, see cudaEventDestroy */
};

struct fk_alloc {
    char *base;
    size_t size;
    int dev;
};

/* The emulation's marker. `make install` refuses a binary that contains this string, and
 * the GPU code (src/backend/nccl/nccl_info.h, cv_gpu_emulated) finds it through a weak
 * reference to label every GPU fact it prints "emulated". */
__attribute__((used)) const char cv_fakegpu_marker[] = "collviz-fakegpu:host-emulation";

static pthread_mutex_t fk_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t fk_cv = PTHREAD_COND_INITIALIZER;
static pthread_once_t fk_once = PTHREAD_ONCE_INIT;

static int fk_ndev;
static size_t fk_mem_per_dev;
static double fk_watchdog_s;
static size_t fk_used[FK_MAX_DEVICES];
static struct fk_stream *fk_legacy[FK_MAX_DEVICES];
static struct fk_stream *fk_streams; /* every stream ever made, for progress */
static int fk_nstreams;
static struct fk_event *fk_events;
static struct fk_alloc *fk_allocs;
static size_t fk_nalloc, fk_alloc_cap;

static _Thread_local int fk_cur;
static _Thread_local cudaError_t fk_last_error;

static double fk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long fk_env_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    if (!s || !*s) return dflt;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0) fk_die("%s=%s is not a count", name, s);
    return v;
}

static void fk_init(void)
{
    long n = fk_env_long("FAKEGPU_DEVICES", 2);
    if (n > FK_MAX_DEVICES) fk_die("FAKEGPU_DEVICES=%ld: at most %d", n, FK_MAX_DEVICES);
    fk_ndev = (int)n;
    fk_mem_per_dev = (size_t)fk_env_long("FAKEGPU_MEM_MIB", 4096) << 20;
    fk_watchdog_s = (double)fk_env_long("FAKEGPU_WATCHDOG_S", 60);
}

void fk_lock(void)
{
    pthread_once(&fk_once, fk_init);
    pthread_mutex_lock(&fk_mu);
}

void fk_unlock(void)
{
    pthread_mutex_unlock(&fk_mu);
}

void fk_die(const char *fmt, ...)
{
    va_list ap;
    fputs("fakegpu: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

int fk_device_count(void)
{
    pthread_once(&fk_once, fk_init);
    return fk_ndev;
}

int fk_current_device(void)
{
    return fk_cur;
}

static cudaError_t fk_ret(cudaError_t e)
{
    if (e != cudaSuccess) fk_last_error = e;
    return e;
}

/* ---- allocations ---- */

static struct fk_alloc *fk_find_alloc(const void *p)
{
    const char *c = p;
    for (size_t i = 0; i < fk_nalloc; i++)
        if (c >= fk_allocs[i].base && c < fk_allocs[i].base + fk_allocs[i].size)
            return &fk_allocs[i];
    return NULL;
}

bool fk_is_device_ptr(const void *p)
{
    return p && fk_find_alloc(p) != NULL;
}

void fk_check_device_range(const void *p, size_t bytes, int dev, const char *what)
{
    if (bytes == 0) return;
    if (!p) fk_die("%s: NULL device pointer for %zu bytes", what, bytes);
    struct fk_alloc *a = fk_find_alloc(p);
    if (!a) fk_die("%s: %p is not device memory (an illegal address on a GPU)", what, p);
    if (a->dev != dev)
        fk_die("%s: %p lives on device %d, but the work runs on device %d", what, p, a->dev,
               dev);
    size_t off = (size_t)((const char *)p - a->base);
    if (bytes > a->size - off)
        fk_die("%s: %zu bytes at offset %zu of a %zu-byte allocation on device %d overrun it "
               "by %zu bytes",
               what, bytes, off, a->size, dev, bytes - (a->size - off));
}

/* ---- streams and the progress engine ---- */

static struct fk_stream *fk_stream_new(int dev, unsigned flags, bool legacy)
{
    struct fk_stream *s = calloc(1, sizeof *s);
    if (!s) fk_die("out of host memory");
    s->id = fk_nstreams++;
    s->dev = dev;
    s->flags = flags;
    s->legacy = legacy;
    s->next_all = fk_streams;
    fk_streams = s;
    return s;
}

struct fk_stream *fk_stream_of(cudaStream_t h)
{
    if (!h) {
        if (!fk_legacy[fk_cur]) fk_legacy[fk_cur] = fk_stream_new(fk_cur, 0, true);
        return fk_legacy[fk_cur];
    }
    for (struct fk_stream *s = fk_streams; s; s = s->next_all)
        if ((cudaStream_t)s == h) {
            if (s->destroyed) fk_die("stream %d used after cudaStreamDestroy", s->id);
            return s;
        }
    fk_die("%p is not a stream handle", (void *)h);
}

int fk_stream_device(const struct fk_stream *s)
{
    return s->dev;
}

bool fk_stream_head_is(const struct fk_stream *s, const struct fk_op *op)
{
    return s->head == op;
}

const char *fk_stream_name(const struct fk_stream *s, char *buf, size_t n)
{
    if (s->legacy)
        snprintf(buf, n, "the default stream of device %d", s->dev);
    else
        snprintf(buf, n, "stream %d (device %d)", s->id, s->dev);
    return buf;
}

struct fk_op *fk_op_new(enum fk_kind kind, const char *what)
{
    struct fk_op *op = calloc(1, sizeof *op);
    if (!op) fk_die("out of host memory");
    op->kind = kind;
    op->what = what;
    return op;
}

void fk_op_add_range(struct fk_op *op, const void *p, size_t bytes, bool write)
{
    if (op->nranges == FK_MAX_RANGES) fk_die("%s: too many ranges", op->what);
    op->range[op->nranges++] = (struct fk_range){p, bytes, write};
}

/* The legacy default stream waits for the device's blocking streams (those made with
 * flags 0); non-blocking streams never wait for it nor it for them. */
static bool fk_legacy_may_run(const struct fk_stream *ls)
{
    for (struct fk_stream *s = fk_streams; s; s = s->next_all)
        if (s != ls && s->dev == ls->dev && !(s->flags & cudaStreamNonBlocking) && s->head)
            return false;
    return true;
}

static bool fk_op_ready(struct fk_op *op)
{
    switch (op->kind) {
    case FK_FN:
        return !op->stream->legacy || fk_legacy_may_run(op->stream);
    case FK_RECORD:
        return true;
    case FK_WAIT:
        return op->ev->completed >= op->gen;
    case FK_NCCL:
        return op->done || fk_nccl_try(op);
    }
    return false;
}

static void fk_op_run(struct fk_op *op)
{
    switch (op->kind) {
    case FK_FN:
        op->fn(op->arg);
        free(op->arg);
        break;
    case FK_RECORD:
        op->ev->completed = op->gen;
        op->ev->t = fk_now();
        break;
    case FK_WAIT:
    case FK_NCCL:
        break;
    }
}

void fk_progress(void)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (struct fk_stream *s = fk_streams; s; s = s->next_all) {
            while (s->head && fk_op_ready(s->head)) {
                struct fk_op *op = s->head;
                fk_op_run(op);
                s->head = op->next;
                if (!s->head) s->tail = NULL;
                s->ran++;
                free(op);
                changed = true;
            }
        }
    }
    pthread_cond_broadcast(&fk_cv);
}

void fk_enqueue(struct fk_stream *s, struct fk_op *op)
{
    op->stream = s;
    op->next = NULL;
    s->queued++;
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    fk_progress();
}

void fk_wait_for(bool (*done)(void *), void *arg, const char *what)
{
    double deadline = fk_now() + fk_watchdog_s;
    for (;;) {
        fk_progress();
        if (done(arg)) return;
        if (fk_now() > deadline)
            fk_die("%s has waited %.0f s for work that cannot run: a deadlock (a GPU would "
                   "hang here)",
                   what, fk_watchdog_s);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 2000000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&fk_cv, &fk_mu, &ts);
    }
}

static bool fk_stream_empty(void *arg)
{
    return ((struct fk_stream *)arg)->head == NULL;
}

struct fk_until {
    struct fk_stream *s;
    unsigned long n;
};

static bool fk_ran_until(void *arg)
{
    struct fk_until *u = arg;
    return u->s->ran >= u->n;
}

static bool fk_device_idle(void *arg)
{
    int dev = *(int *)arg;
    for (struct fk_stream *s = fk_streams; s; s = s->next_all)
        if (s->dev == dev && s->head) return false;
    return true;
}

cudaError_t fk_launch(cudaStream_t stream, const char *what, void (*fn)(void *), void *arg,
                      int nranges, const struct fk_range *ranges)
{
    fk_lock();
    struct fk_stream *s = fk_stream_of(stream);
    if (s->dev != fk_cur) {
        char name[64];
        fprintf(stderr,
                "fakegpu: %s launched into %s while device %d is current: "
                "cudaErrorInvalidResourceHandle\n",
                what, fk_stream_name(s, name, sizeof name), fk_cur);
        free(arg);
        fk_unlock();
        return fk_ret(cudaErrorInvalidResourceHandle);
    }
    struct fk_op *op = fk_op_new(FK_FN, what);
    for (int i = 0; i < nranges; i++) {
        fk_check_device_range(ranges[i].p, ranges[i].bytes, fk_cur, what);
        fk_op_add_range(op, ranges[i].p, ranges[i].bytes, ranges[i].write);
    }
    op->fn = fn;
    op->arg = arg;
    fk_enqueue(s, op);
    fk_unlock();
    return cudaSuccess;
}

/* ---- errors and versions ---- */

static const struct {
    cudaError_t e;
    const char *name, *text;
} fk_errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
     "invalid resource handle"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
};

const char *cudaGetErrorName(cudaError_t e)
{
    for (size_t i = 0; i < sizeof fk_errors / sizeof fk_errors[0]; i++)
        if (fk_errors[i].e == e) return fk_errors[i].name;
    return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t e)
{
    for (size_t i = 0; i < sizeof fk_errors / sizeof fk_errors[0]; i++)
        if (fk_errors[i].e == e) return fk_errors[i].text;
    return "unknown error";
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = fk_last_error;
    fk_last_error = cudaSuccess;
    return e;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    if (!v) return fk_ret(cudaErrorInvalidValue);
    *v = 13000;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    if (!v) return fk_ret(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

/* ---- devices ---- */

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count) return fk_ret(cudaErrorInvalidValue);
    *count = fk_device_count();
    return *count ? cudaSuccess : fk_ret(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int dev)
{
    if (fk_device_count() == 0) return fk_ret(cudaErrorNoDevice);
    if (dev < 0 || dev >= fk_ndev) return fk_ret(cudaErrorInvalidDevice);
    fk_cur = dev;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev)
{
    if (!p) return fk_ret(cudaErrorInvalidValue);
    if (dev < 0 || dev >= fk_device_count()) return fk_ret(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "fakegpu (host emulation, not a GPU)");
    p->totalGlobalMem = fk_mem_per_dev;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = 1;
    p->pciDomainID = 0;
    p->pciBusID = 0x10 + dev;
    p->pciDeviceID = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char *buf, int len, int dev)
{
    if (!buf || len <= 0) return fk_ret(cudaErrorInvalidValue);
    if (dev < 0 || dev >= fk_device_count()) return fk_ret(cudaErrorInvalidDevice);
    snprintf(buf, (size_t)len, "00000000:%02X:00.0", 0x10 + dev);
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer)
{
    int n = fk_device_count();
    if (!can) return fk_ret(cudaErrorInvalidValue);
    if (dev < 0 || dev >= n || peer < 0 || peer >= n) return fk_ret(cudaErrorInvalidDevice);
    *can = dev != peer;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
    if (fk_device_count() == 0) return fk_ret(cudaErrorNoDevice);
    fk_lock();
    if (free_b) *free_b = fk_mem_per_dev - fk_used[fk_cur];
    if (total) *total = fk_mem_per_dev;
    fk_unlock();
    return cudaSuccess;
}

/* ---- memory ---- */

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    if (!p) return fk_ret(cudaErrorInvalidValue);
    if (fk_device_count() == 0) return fk_ret(cudaErrorNoDevice);
    *p = NULL;
    if (bytes == 0) return cudaSuccess;
    fk_lock();
    if (bytes > fk_mem_per_dev - fk_used[fk_cur]) {
        fk_unlock();
        return fk_ret(cudaErrorMemoryAllocation);
    }
    char *m = malloc(bytes);
    if (!m) {
        fk_unlock();
        return fk_ret(cudaErrorMemoryAllocation);
    }
    memset(m, 0xff, bytes); /* device memory starts as garbage: NaN, never zeros */
    if (fk_nalloc == fk_alloc_cap) {
        fk_alloc_cap = fk_alloc_cap ? 2 * fk_alloc_cap : 64;
        fk_allocs = realloc(fk_allocs, fk_alloc_cap * sizeof *fk_allocs);
        if (!fk_allocs) fk_die("out of host memory");
    }
    fk_allocs[fk_nalloc++] = (struct fk_alloc){m, bytes, fk_cur};
    fk_used[fk_cur] += bytes;
    *p = m;
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    if (!p) return cudaSuccess;
    fk_lock();
    size_t i = 0;
    while (i < fk_nalloc && fk_allocs[i].base != p)
        i++;
    if (i == fk_nalloc) {
        fk_unlock();
        fprintf(stderr, "fakegpu: cudaFree(%p): not the start of an allocation\n", p);
        return fk_ret(cudaErrorInvalidValue);
    }
    /* cudaFree synchronises: it waits for the work queued on the device. */
    int dev = fk_allocs[i].dev;
    fk_wait_for(fk_device_idle, &dev, "cudaFree");
    i = 0;
    while (fk_allocs[i].base != p)
        i++;
    fk_used[dev] -= fk_allocs[i].size;
    free(fk_allocs[i].base);
    fk_allocs[i] = fk_allocs[--fk_nalloc];
    fk_unlock();
    return cudaSuccess;
}

struct fk_copy {
    char *dst;
    const char *src;
    size_t dpitch, spitch, width, height;
    char *owned; /* a snapshot of pageable host data, freed after the copy */
};

static void fk_copy_run(void *arg)
{
    struct fk_copy *c = arg;
    for (size_t r = 0; r < c->height; r++)
        memmove(c->dst + r * c->dpitch, c->src + r * c->spitch, c->width);
    free(c->owned);
}

/* Check one side of a copy: device memory on `dev_side`, or host memory. */
static cudaError_t fk_copy_side(const void *p, size_t extent, bool device, const char *what)
{
    if (device) {
        struct fk_alloc *a = p ? fk_find_alloc(p) : NULL;
        if (!a) {
            fprintf(stderr, "fakegpu: %s: %p is not device memory\n", what, p);
            return cudaErrorInvalidValue;
        }
        fk_check_device_range(p, extent, a->dev, what);
    } else if (extent && fk_is_device_ptr(p)) {
        fprintf(stderr, "fakegpu: %s: %p is device memory where host memory was declared\n",
                what, p);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* Every copy: checks, then queued on `stream` (NULL = legacy default). `sync` waits for
 * it, as cudaMemcpy does; an async copy into pageable host memory waits too (CUDA returns
 * from it only once the copy is done), and an async copy from pageable host memory takes
 * its data at the call (CUDA stages it then). */
static cudaError_t fk_copy(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, enum cudaMemcpyKind kind,
                           cudaStream_t stream, bool sync, const char *what)
{
    if (width > dpitch || width > spitch) return fk_ret(cudaErrorInvalidPitchValue);
    bool dd, sd;
    switch (kind) {
    case cudaMemcpyHostToHost:
        dd = false, sd = false;
        break;
    case cudaMemcpyHostToDevice:
        dd = true, sd = false;
        break;
    case cudaMemcpyDeviceToHost:
        dd = false, sd = true;
        break;
    case cudaMemcpyDeviceToDevice:
        dd = true, sd = true;
        break;
    case cudaMemcpyDefault:
        fk_lock();
        dd = fk_is_device_ptr(dst);
        sd = fk_is_device_ptr(src);
        fk_unlock();
        break;
    default:
        return fk_ret(cudaErrorInvalidMemcpyDirection);
    }
    size_t dext = height ? dpitch * (height - 1) + width : 0;
    size_t sext = height ? spitch * (height - 1) + width : 0;
    fk_lock();
    struct fk_stream *s = fk_stream_of(stream);
    cudaError_t e = fk_copy_side(dst, dext, dd, what);
    if (e == cudaSuccess) e = fk_copy_side(src, sext, sd, what);
    if (e != cudaSuccess) {
        fk_unlock();
        return fk_ret(e);
    }
    struct fk_copy *c = calloc(1, sizeof *c);
    if (!c) fk_die("out of host memory");
    *c = (struct fk_copy){dst, src, dpitch, spitch, width, height, NULL};
    if (!sd && !sync && sext) {
        c->owned = malloc(sext);
        if (!c->owned) fk_die("out of host memory");
        memcpy(c->owned, src, sext);
        c->src = c->owned;
    }
    struct fk_op *op = fk_op_new(FK_FN, what);
    op->fn = fk_copy_run;
    op->arg = c;
    if (dd) fk_op_add_range(op, dst, dext, true);
    if (sd) fk_op_add_range(op, src, sext, false);
    /* A synchronous copy runs in the default stream, which non-blocking streams do not
     * wait for: device memory it touches must not be pending work of such a stream. */
    if (s->legacy)
        for (struct fk_stream *t = fk_streams; t; t = t->next_all) {
            if (!(t->flags & cudaStreamNonBlocking)) continue;
            for (struct fk_op *o = t->head; o; o = o->next)
                for (int i = 0; i < o->nranges; i++)
                    for (int j = 0; j < op->nranges; j++) {
                        const struct fk_range *a = &o->range[i], *b = &op->range[j];
                        const char *ap = a->p, *bp = b->p;
                        if ((a->write || b->write) && ap < bp + b->bytes &&
                            bp < ap + a->bytes) {
                            char name[64];
                            fk_die("%s races with %s still pending on %s (a non-blocking "
                                   "stream: synchronise it first)",
                                   what, o->what, fk_stream_name(t, name, sizeof name));
                        }
                    }
        }
    fk_enqueue(s, op);
    struct fk_until u = {s, s->queued};
    if (sync || !dd) fk_wait_for(fk_ran_until, &u, what);
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    return fk_copy(dst, n, src, n, n, 1, kind, NULL, true, "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    return fk_copy(dst, n, src, n, n, 1, kind, stream, false, "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    return fk_copy(dst, dpitch, src, spitch, width, height, kind, stream, false,
                   "cudaMemcpy2DAsync");
}

struct fk_memset {
    void *p;
    int value;
    size_t n;
};

static void fk_memset_run(void *arg)
{
    struct fk_memset *m = arg;
    memset(m->p, m->value, m->n);
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t n, cudaStream_t stream)
{
    fk_lock();
    struct fk_stream *s = fk_stream_of(stream);
    fk_check_device_range(p, n, s->dev, "cudaMemsetAsync");
    struct fk_memset *m = malloc(sizeof *m);
    if (!m) fk_die("out of host memory");
    *m = (struct fk_memset){p, value, n};
    struct fk_op *op = fk_op_new(FK_FN, "cudaMemsetAsync");
    op->fn = fk_memset_run;
    op->arg = m;
    fk_op_add_range(op, p, n, true);
    fk_enqueue(s, op);
    fk_unlock();
    return cudaSuccess;
}

/* ---- streams ---- */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *h, unsigned flags)
{
    if (!h) return fk_ret(cudaErrorInvalidValue);
    if (fk_device_count() == 0) return fk_ret(cudaErrorNoDevice);
    fk_lock();
    *h = (cudaStream_t)fk_stream_new(fk_cur, flags, false);
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t h)
{
    if (!h) return fk_ret(cudaErrorInvalidResourceHandle);
    fk_lock();
    struct fk_stream *s = fk_stream_of(h);
    s->destroyed = true; /* its queued work still runs, as on a GPU */
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t h)
{
    fk_lock();
    struct fk_stream *s = fk_stream_of(h);
    fk_progress();
    cudaError_t e = s->head ? cudaErrorNotReady : cudaSuccess;
    fk_unlock();
    return fk_ret(e);
}

cudaError_t cudaDeviceSynchronize(void)
{
    fk_lock();
    int dev = fk_cur;
    fk_wait_for(fk_device_idle, &dev, "cudaDeviceSynchronize");
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t h)
{
    fk_lock();
    struct fk_stream *s = fk_stream_of(h);
    fk_wait_for(fk_stream_empty, s, "cudaStreamSynchronize");
    fk_unlock();
    return cudaSuccess;
}

/* ---- events ---- */

static struct fk_event *fk_event_of(cudaEvent_t h)
{
    struct fk_event *ev = (struct fk_event *)h;
    if (!ev) fk_die("NULL event handle");
    if (ev->destroyed) fk_die("event used after cudaEventDestroy");
    return ev;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *h, unsigned flags)
{
    if (!h) return fk_ret(cudaErrorInvalidValue);
    if (fk_device_count() == 0) return fk_ret(cudaErrorNoDevice);
    struct fk_event *ev = calloc(1, sizeof *ev);
    if (!ev) return fk_ret(cudaErrorMemoryAllocation);
    ev->dev = fk_cur;
    ev->flags = flags;
    fk_lock();
    ev->next_all = fk_events;
    fk_events = ev;
    fk_unlock();
    *h = (cudaEvent_t)ev;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *h)
{
    return cudaEventCreateWithFlags(h, cudaEventDefault);
}

/* A destroyed event's memory is kept for the process's life, so a late use is caught
 * rather than read from freed memory. */
cudaError_t cudaEventDestroy(cudaEvent_t h)
{
    fk_lock();
    struct fk_event *ev = fk_event_of(h);
    ev->destroyed = true;
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t h, cudaStream_t stream)
{
    fk_lock();
    struct fk_event *ev = fk_event_of(h);
    struct fk_stream *s = fk_stream_of(stream);
    if (s->dev != ev->dev) {
        char name[64];
        fprintf(stderr,
                "fakegpu: an event of device %d recorded on %s: "
                "cudaErrorInvalidResourceHandle\n",
                ev->dev, fk_stream_name(s, name, sizeof name));
        fk_unlock();
        return fk_ret(cudaErrorInvalidResourceHandle);
    }
    struct fk_op *op = fk_op_new(FK_RECORD, "cudaEventRecord");
    op->ev = ev;
    op->gen = ++ev->recorded;
    fk_enqueue(s, op);
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t h, unsigned flags)
{
    fk_lock();
    struct fk_event *ev = fk_event_of(h);
    struct fk_stream *s = fk_stream_of(stream);
    if (ev->recorded > ev->completed) { /* nothing to wait for otherwise */
        struct fk_op *op = fk_op_new(FK_WAIT, "cudaStreamWaitEvent");
        op->ev = ev;
        op->gen = ev->recorded;
        fk_enqueue(s, op);
    }
    fk_unlock();
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t h)
{
    fk_lock();
    struct fk_event *ev = fk_event_of(h);
    fk_progress();
    cudaError_t e = ev->completed >= ev->recorded ? cudaSuccess : cudaErrorNotReady;
    fk_unlock();
    return fk_ret(e);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (!ms) return fk_ret(cudaErrorInvalidValue);
    fk_lock();
    struct fk_event *a = fk_event_of(start), *b = fk_event_of(end);
    cudaError_t e = cudaSuccess;
    if ((a->flags | b->flags) & cudaEventDisableTiming) {
        fprintf(stderr, "fakegpu: cudaEventElapsedTime on an event made with "
                        "cudaEventDisableTiming\n");
        e = cudaErrorInvalidResourceHandle;
    } else if (!a->recorded || !b->recorded) {
        fprintf(stderr, "fakegpu: cudaEventElapsedTime on an event never recorded\n");
        e = cudaErrorInvalidResourceHandle;
    } else if (a->completed < a->recorded || b->completed < b->recorded) {
        e = cudaErrorNotReady;
    } else {
        *ms = (float)((b->t - a->t) * 1e3);
    }
    fk_unlock();
    return e == cudaSuccess || e == cudaErrorNotReady ? e : fk_ret(e);
}
