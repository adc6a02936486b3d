/* fake_nccl.c - the NCCL calls collviz makes, emulated on the host (see fakegpu.h).
 *
 * Each call is a "part". Parts a thread posts to one communicator between ncclGroupStart
 * and ncclGroupEnd are fused into one group, queued on the stream as one op (outside a
 * group every call is its own group). A group at the head of its stream runs when every
 * part has its partners - the same collective, by sequence number, on every other rank of
 * the clique; the matching ncclRecv for an ncclSend - in groups that are themselves at the
 * heads of their streams; all those groups then complete together. That is NCCL's
 * contract: a collective finishes when all ranks have called it, a send when its receive
 * is posted, and one thread driving several ranks must group the calls.
 *
 * Connections. NCCL connects lazily: the first collective on a communicator, and the first
 * send or receive between two ranks of it, set up the connection inside the call (at the
 * group's end), and the calling thread blocks there until the peers reach the same setup.
 * So the emulation blocks the posting thread too, until every rank of the clique has posted
 * a collective (for the first collective) or the peer has posted the matching direction
 * (for the first send/recv of a pair). A first send whose receiver waits for the send to
 * return before receiving is then the deadlock it is on a GPU, reported by the watchdog.
 *
 * Only floats are supported (all collviz moves). Reductions run in rank order.
 *
 * Across processes (ncclGetUniqueId + ncclCommInitRank, one rank per process, as collviz
 * runs under mpirun): the communicator's state lives in a shared-memory segment named from
 * the unique id (shm_open + mmap, a process-shared mutex and condition variable). A
 * collective at the head of its stream publishes its arguments and its send buffer (each
 * rank has a data segment of its own), waits at a barrier for every rank, computes its own
 * result from every rank's published input with the same code as in one process, and waits
 * at a second barrier before its data segment may be reused. A send across processes, at
 * the head of its stream, publishes its message in a segment of its own (named from the
 * id, the pair and the message's number) and counts it posted in the shared header; the
 * matching receive, at the head of its stream, takes it (the counts must match), removes
 * the segment and counts it taken; the send completes when its message was taken. Neither
 * blocks the process: a part that cannot finish yet is tried again, so two processes may
 * send to each other at once, as on a GPU. A GPU keeps running its streams while the host
 * does something else (an MPI call, say); so that a queued send is still published then,
 * a process with a communicator across processes has a thread that runs the streams'
 * work every half millisecond while any NCCL call is queued. */
#include "fakegpu.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nccl.h>

enum fk_pkind { P_COLL, P_SEND, P_RECV };
enum fk_coll {
    C_ALL_REDUCE,
    C_BROADCAST,
    C_REDUCE,
    C_ALL_GATHER,
    C_REDUCE_SCATTER,
    C_ALL_TO_ALL,
    C_GATHER,
    C_SCATTER
};
static const char *const fk_coll_name[] = {"ncclAllReduce", "ncclBroadcast",     "ncclReduce",
                                           "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll",
                                           "ncclGather",    "ncclScatter"};

struct fk_clique;
struct fk_group;
struct fk_mp;

struct ncclComm {
    int rank, dev;
    struct fk_mp *mp; /* across processes (ncclCommInitRank); NULL within one */
    struct fk_clique *cl;
    bool aborted, destroyed;
    unsigned long coll_seq;
    unsigned long send_seq[FK_MAX_DEVICES], recv_seq[FK_MAX_DEVICES];
    /* connection setups this rank has entered (see the top of the file) */
    bool conn_coll, conn_send[FK_MAX_DEVICES], conn_recv[FK_MAX_DEVICES];
};

struct fk_clique {
    int n;
    struct ncclComm *comm[FK_MAX_DEVICES];
    struct fk_clique *next;
};

struct fk_part {
    enum fk_pkind kind;
    enum fk_coll coll;
    const float *sbuf;
    float *rbuf;
    size_t count;
    int op, root, peer;
    unsigned long seq;
    bool grouped, done;
    bool posted; /* a send across processes: its message is published */
    pthread_t poster;
    struct fk_group *g;
    struct fk_part *next; /* in its group */
};

struct fk_group {
    struct ncclComm *comm;
    struct fk_stream *st;
    struct fk_op *op;
    struct fk_part *parts, *last;
    bool in_set;
    struct fk_group *next_live; /* every queued group not yet done */
};

static void fk_mp_run(struct fk_part *p);
static void fk_mp_p2p(struct fk_part *p);
static void fk_mp_detach(struct fk_mp *m);
static int fk_mp_size(const struct fk_mp *m);

static struct fk_clique *fk_cliques; /* kept for the process's life */
static struct fk_group *fk_live;
static size_t fk_hang_bytes;
static bool fk_hang_read;
static char fk_last_err[256];

/* Groups a thread is building between ncclGroupStart and ncclGroupEnd. */
static _Thread_local int fk_depth;
static _Thread_local struct fk_group *fk_open[FK_MAX_DEVICES * 8];
static _Thread_local int fk_nopen;

static ncclResult_t fk_fail(ncclResult_t r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ncclResult_t fk_fail(ncclResult_t r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fk_last_err, sizeof fk_last_err, fmt, ap);
    va_end(ap);
    fprintf(stderr, "fakegpu: %s\n", fk_last_err);
    return r;
}

/* ---- elements a part reads and writes on its rank ---- */

static size_t fk_send_elems(const struct fk_part *p, int w)
{
    if (p->kind == P_SEND) return p->count;
    if (p->kind == P_RECV) return 0;
    switch (p->coll) {
    case C_ALL_REDUCE:
    case C_REDUCE:
    case C_ALL_GATHER:
    case C_GATHER:
        return p->count;
    case C_BROADCAST:
        return p->g->comm->rank == p->root ? p->count : 0;
    case C_REDUCE_SCATTER:
    case C_ALL_TO_ALL:
        return (size_t)w * p->count;
    case C_SCATTER:
        return p->g->comm->rank == p->root ? (size_t)w * p->count : 0;
    }
    return 0;
}

static size_t fk_recv_elems(const struct fk_part *p, int w)
{
    if (p->kind == P_RECV) return p->count;
    if (p->kind == P_SEND) return 0;
    bool root = p->g->comm->rank == p->root;
    switch (p->coll) {
    case C_ALL_REDUCE:
    case C_BROADCAST:
    case C_REDUCE_SCATTER:
    case C_SCATTER:
        return p->count;
    case C_REDUCE:
        return root ? p->count : 0;
    case C_ALL_GATHER:
    case C_ALL_TO_ALL:
        return (size_t)w * p->count;
    case C_GATHER:
        return root ? (size_t)w * p->count : 0;
    }
    return 0;
}

/* ---- matching ---- */

static struct fk_part *fk_find(struct ncclComm *c, enum fk_pkind kind, int peer,
                               unsigned long seq)
{
    for (struct fk_group *g = fk_live; g; g = g->next_live) {
        if (g->comm != c) continue;
        for (struct fk_part *p = g->parts; p; p = p->next)
            if (p->kind == kind && p->seq == seq && (kind == P_COLL || p->peer == peer))
                return p;
    }
    return NULL;
}

/* The partner parts of p (for a collective, one per other rank); false if one is missing
 * or its group cannot run yet. Adds their groups to the set. */
static bool fk_partners(struct fk_part *p, struct fk_group **set, int *nset, int cap)
{
    struct ncclComm *me = p->g->comm;
    struct fk_clique *cl = me->cl;
    for (int r = 0; r < cl->n; r++) {
        struct fk_part *q;
        if (p->kind == P_COLL) {
            if (r == me->rank) continue;
            q = fk_find(cl->comm[r], P_COLL, 0, p->seq);
        } else {
            if (r != p->peer) continue;
            q = fk_find(cl->comm[r], p->kind == P_SEND ? P_RECV : P_SEND, me->rank, p->seq);
        }
        if (!q || q->g->comm->aborted || !fk_stream_head_is(q->g->st, q->g->op)) return false;
        if (!q->g->in_set) {
            if (*nset == cap) fk_die("too many fused NCCL groups");
            q->g->in_set = true;
            set[(*nset)++] = q->g;
        }
    }
    return true;
}

/* ---- execution ---- */

static float fk_apply(int op, float a, float b)
{
    switch (op) {
    case ncclSum:
    case ncclAvg:
        return a + b;
    case ncclProd:
        return a * b;
    case ncclMax:
        return a > b ? a : b;
    case ncclMin:
        return a < b ? a : b;
    }
    return a;
}

static float *fk_tmp(size_t n)
{
    float *t = malloc((n ? n : 1) * sizeof *t);
    if (!t) fk_die("out of host memory");
    return t;
}

/* reduce the `count` elements at offset `off` of every rank's send buffer */
static float *fk_reduce(struct fk_part **pr, int w, size_t off, size_t count)
{
    float *acc = fk_tmp(count);
    memcpy(acc, pr[0]->sbuf + off, count * sizeof *acc);
    for (int r = 1; r < w; r++)
        for (size_t i = 0; i < count; i++)
            acc[i] = fk_apply(pr[0]->op, acc[i], pr[r]->sbuf[off + i]);
    if (pr[0]->op == ncclAvg)
        for (size_t i = 0; i < count; i++)
            acc[i] /= (float)w;
    return acc;
}

/* FAKEGPU_CORRUPT=1: every NCCL call delivers one wrong element (the last one written on
 * the lowest rank that receives anything), so tests can show the checks catch it. */
static void fk_corrupt(float *buf, size_t n)
{
    static int on = -1;
    if (on < 0) {
        const char *s = getenv("FAKEGPU_CORRUPT");
        on = s && *s && strcmp(s, "0") != 0;
    }
    if (on && buf && n) buf[n - 1] += 1.0f;
}

static void fk_exec_coll(struct fk_part **pr, int w, struct fk_part *p0);

static void fk_run_coll(struct fk_part *p0)
{
    struct fk_clique *cl = p0->g->comm->cl;
    int w = cl->n;
    struct fk_part *pr[FK_MAX_DEVICES];
    for (int r = 0; r < w; r++) {
        pr[r] = r == p0->g->comm->rank ? p0 : fk_find(cl->comm[r], P_COLL, 0, p0->seq);
        struct fk_part *a = pr[0], *b = pr[r];
        if (b->coll != a->coll || b->count != a->count || b->op != a->op || b->root != a->root)
            fk_die("collective #%lu of a clique does not match across ranks: rank 0 called "
                   "%s(count %zu, op %d, root %d), rank %d %s(count %zu, op %d, root %d) - "
                   "NCCL would hang or corrupt memory",
                   p0->seq, fk_coll_name[a->coll], a->count, a->op, a->root, r,
                   fk_coll_name[b->coll], b->count, b->op, b->root);
    }
    fk_exec_coll(pr, w, p0);
}

/* Run collective p0 given every rank's part pr[0..w-1] (p0 among them). */
static void fk_exec_coll(struct fk_part **pr, int w, struct fk_part *p0)
{
    size_t n = p0->count, wn = (size_t)w * n, sz = sizeof(float);
    int root = p0->root;
    float *t = NULL;
    switch (p0->coll) {
    case C_ALL_REDUCE:
        t = fk_reduce(pr, w, 0, n);
        for (int r = 0; r < w; r++)
            memcpy(pr[r]->rbuf, t, n * sz);
        break;
    case C_REDUCE:
        t = fk_reduce(pr, w, 0, n);
        memcpy(pr[root]->rbuf, t, n * sz);
        break;
    case C_BROADCAST:
        t = fk_tmp(n);
        memcpy(t, pr[root]->sbuf, n * sz);
        for (int r = 0; r < w; r++)
            memcpy(pr[r]->rbuf, t, n * sz);
        break;
    case C_REDUCE_SCATTER:
        t = fk_reduce(pr, w, 0, wn);
        for (int r = 0; r < w; r++)
            memcpy(pr[r]->rbuf, t + (size_t)r * n, n * sz);
        break;
    case C_ALL_GATHER:
    case C_GATHER:
        t = fk_tmp(wn);
        for (int r = 0; r < w; r++)
            memcpy(t + (size_t)r * n, pr[r]->sbuf, n * sz);
        for (int r = 0; r < w; r++)
            if (p0->coll == C_ALL_GATHER || r == root) memcpy(pr[r]->rbuf, t, wn * sz);
        break;
    case C_SCATTER:
        t = fk_tmp(wn);
        memcpy(t, pr[root]->sbuf, wn * sz);
        for (int r = 0; r < w; r++)
            memcpy(pr[r]->rbuf, t + (size_t)r * n, n * sz);
        break;
    case C_ALL_TO_ALL:
        t = fk_tmp((size_t)w * wn);
        for (int r = 0; r < w; r++)
            memcpy(t + (size_t)r * wn, pr[r]->sbuf, wn * sz);
        for (int r = 0; r < w; r++)
            for (int j = 0; j < w; j++)
                memcpy(pr[r]->rbuf + (size_t)j * n, t + (size_t)j * wn + (size_t)r * n, n * sz);
        break;
    }
    free(t);
    for (int r = 0; r < w; r++) {
        size_t got = fk_recv_elems(pr[r], w);
        if (got) {
            fk_corrupt(pr[r]->rbuf, got);
            break;
        }
    }
    for (int r = 0; r < w; r++)
        pr[r]->done = true;
}

static void fk_run_p2p(struct fk_part *p)
{
    struct ncclComm *me = p->g->comm;
    struct fk_part *s = p, *r;
    if (p->kind == P_SEND)
        r = fk_find(me->cl->comm[p->peer], P_RECV, me->rank, p->seq);
    else {
        r = p;
        s = fk_find(me->cl->comm[p->peer], P_SEND, me->rank, p->seq);
    }
    if (s->count != r->count)
        fk_die("rank %d sends %zu floats to rank %d, which receives %zu (message #%lu): NCCL "
               "requires the same count",
               r->peer, s->count, s->peer, r->count, s->seq);
    float *t = fk_tmp(s->count);
    memcpy(t, s->sbuf, s->count * sizeof *t);
    memcpy(r->rbuf, t, r->count * sizeof *t);
    fk_corrupt(r->rbuf, r->count);
    free(t);
    s->done = r->done = true;
}

static void fk_group_finish(struct fk_group *g)
{
    for (struct fk_group **pp = &fk_live; *pp; pp = &(*pp)->next_live)
        if (*pp == g) {
            *pp = g->next_live;
            break;
        }
    for (struct fk_part *p = g->parts, *nx; p; p = nx) {
        nx = p->next;
        free(p);
    }
    g->op->done = true;
    g->op->group = NULL;
    free(g);
}

static bool fk_too_big(const struct fk_group *g)
{
    if (!fk_hang_read) {
        const char *s = getenv("FAKEGPU_HANG_BYTES");
        fk_hang_bytes = s && *s ? strtoull(s, NULL, 10) : 0;
        fk_hang_read = true;
    }
    if (!fk_hang_bytes) return false;
    for (const struct fk_part *p = g->parts; p; p = p->next) {
        int w = g->comm->cl->n;
        size_t e = fk_send_elems(p, w) > fk_recv_elems(p, w) ? fk_send_elems(p, w)
                                                             : fk_recv_elems(p, w);
        if (e * sizeof(float) >= fk_hang_bytes) return true;
    }
    return false;
}

bool fk_nccl_try(struct fk_op *op)
{
    struct fk_group *g = op->group;
    if (g->comm->aborted) { /* an aborted communicator's kernels exit without finishing */
        fk_group_finish(g);
        return true;
    }
    if (g->comm->mp) {
        bool all = true;
        for (struct fk_part *p = g->parts; p; p = p->next) {
            if (p->done) continue;
            if (p->kind == P_COLL)
                fk_mp_run(p); /* blocks until every process has called it */
            else
                fk_mp_p2p(p); /* never blocks: done when its partner has come */
            if (!p->done) all = false;
        }
        if (!all) return false;
        fk_group_finish(g);
        return true;
    }
    struct fk_group *set[FK_MAX_DEVICES * 8];
    int nset = 1;
    set[0] = g;
    g->in_set = true;
    bool ok = true;
    for (int i = 0; ok && i < nset; i++) {
        if (fk_too_big(set[i])) ok = false;
        for (struct fk_part *p = set[i]->parts; ok && p; p = p->next)
            ok = fk_partners(p, set, &nset, (int)(sizeof set / sizeof set[0]));
    }
    for (int i = 0; i < nset; i++)
        set[i]->in_set = false;
    if (!ok) return false;
    for (int i = 0; i < nset; i++)
        for (struct fk_part *p = set[i]->parts; p; p = p->next)
            if (!p->done) {
                if (p->kind == P_COLL)
                    fk_run_coll(p);
                else
                    fk_run_p2p(p);
            }
    for (int i = 0; i < nset; i++)
        fk_group_finish(set[i]);
    return true;
}

/* ---- NCCL's INFO log ---- */

/* NCCL_DEBUG_FILE with %h (host) and %p (pid) expanded, opened "w", line-buffered. */
static FILE *fk_log_open(const char *fn)
{
    char path[4096], host[256] = "";
    gethostname(host, sizeof host - 1);
    size_t o = 0;
    for (const char *q = fn; *q && o + 1 < sizeof path; q++) {
        if (q[0] == '%' && (q[1] == 'h' || q[1] == 'p' || q[1] == '%')) {
            int k = q[1] == 'h'   ? snprintf(path + o, sizeof path - o, "%s", host)
                    : q[1] == 'p' ? snprintf(path + o, sizeof path - o, "%d", (int)getpid())
                                  : snprintf(path + o, sizeof path - o, "%%");
            o += k > 0 ? (size_t)k : 0;
            if (o >= sizeof path) o = sizeof path - 1;
            q++;
        } else {
            path[o++] = *q;
        }
    }
    path[o] = '\0';
    FILE *f = fopen(path, "w");
    if (f) setlinebuf(f);
    return f;
}

/* With NCCL_DEBUG=INFO and NCCL_DEBUG_FILE set, NCCL logs each communicator it makes
 * ("Init COMPLETE") and each connection it sets up; so does the emulation, in NCCL's
 * format, naming its transport as what it is: SHM/fakegpu, a copy in host memory. Like NCCL it
 * reads the variables once, at its first log line, and opens the file (%h host, %p pid) with
 * "w", line-buffered. Without NCCL_DEBUG_FILE it writes no INFO line (NCCL would write them
 * to stdout) but the version line (fk_log_version). */
static FILE *fk_log;
static bool fk_log_read, fk_log_info;

/* The log file, opened at the first line (VERSION, INFO or TRACE level); with
 * info_line, only at INFO or TRACE and for the INIT|SHM subsystems. */
static FILE *fk_log_file(bool info_line)
{
    if (!fk_log_read) {
        fk_log_read = true;
        const char *lvl = getenv("NCCL_DEBUG"), *fn = getenv("NCCL_DEBUG_FILE");
        const char *sub = getenv("NCCL_DEBUG_SUBSYS");
        bool info = lvl && (strcasecmp(lvl, "INFO") == 0 || strcasecmp(lvl, "TRACE") == 0);
        /* the INFO lines are NCCL's INIT|SHM lines */
        fk_log_info = info && !(sub && *sub && !strcasestr(sub, "INIT") &&
                                !strcasestr(sub, "SHM") && !strcasestr(sub, "ALL"));
        if ((info || (lvl && strcasecmp(lvl, "VERSION") == 0)) && fn && *fn)
            fk_log = fk_log_open(fn);
    }
    return info_line && !fk_log_info ? NULL : fk_log;
}

/* At NCCL_DEBUG=VERSION, INFO or TRACE, NCCL prints its version when it makes its first
 * communicator: into NCCL_DEBUG_FILE, or on standard output without one. So does the
 * emulation (a command whose stdout is a document, or the screen, must keep it out). */
static void fk_log_version(void)
{
    static bool done;
    const char *lvl = getenv("NCCL_DEBUG"), *fn = getenv("NCCL_DEBUG_FILE");
    if (done || !lvl ||
        (strcasecmp(lvl, "VERSION") != 0 && strcasecmp(lvl, "INFO") != 0 &&
         strcasecmp(lvl, "TRACE") != 0))
        return;
    done = true;
    FILE *f = fn && *fn ? fk_log_file(false) : stdout;
    if (!f) return;
    fprintf(f, "NCCL version %d.%d.%d+cuda13.0 (emulated)\n", NCCL_MAJOR, NCCL_MINOR,
            NCCL_PATCH);
    fflush(f);
}

/* An INFO line's start, as NCCL writes it: "host:pid:tid [dev] NCCL INFO ". */
static void fk_log_prefix(FILE *f, int dev)
{
    char host[256] = ""; /* per call: the ranks' threads log at once */
    gethostname(host, sizeof host - 1);
    fprintf(f, "%s:%d:%d [%d] NCCL INFO ", host, (int)getpid(), (int)syscall(SYS_gettid), dev);
}

/* Rank c's connection to the next rank of its ring, set up at its first collective: one
 * channel, as the emulation runs each collective as one host copy. */
static void fk_log_connect(const struct ncclComm *c)
{
    int n = c->cl->n;
    FILE *f = n > 1 ? fk_log_file(true) : NULL;
    if (!f) return;
    const struct ncclComm *next = c->cl->comm[(c->rank + 1) % n];
    fk_log_prefix(f, c->dev);
    fprintf(f, "Channel 00/0 : %d[%d] -> %d[%d] via SHM/fakegpu\n", c->rank, c->dev, next->rank,
            next->dev);
}

/* NCCL's commId: a hash of the unique id (here its name), FNV-1a. */
static unsigned long long fk_hash_name(const char *s)
{
    unsigned long long h = 0xcbf29ce484222325ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
    return h;
}

/* A communicator made: NCCL's INIT line for it, "<call> comm 0x.. rank R nranks N cudaDev D
 * nvmlDev D busId B commId 0x.. - Init COMPLETE" (NCCL 2.19+), one per rank, so a test can
 * count the communicators each device got from the log, as it would on a GPU. busId is
 * NCCL's integer form of cudaDeviceGetPCIBusId's "00000000:BB:00.0". Logged whatever the
 * clique's size (NCCL logs a 1-rank communicator too). */
static void fk_log_init(const struct ncclComm *c, int nranks, const char *call,
                        unsigned long long comm_id)
{
    FILE *f = fk_log_file(true);
    if (!f) return;
    fk_log_prefix(f, c->dev);
    fprintf(f,
            "%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%llx - "
            "Init COMPLETE\n",
            call, (const void *)c, c->rank, nranks, c->dev, c->dev, 0x10 + c->dev, comm_id);
}

/* ---- connections ---- */

/* Is the connection part p needs set up, i.e. have its peers entered the setup too? */
static bool fk_connected(const struct fk_part *p)
{
    const struct ncclComm *me = p->g->comm;
    const struct fk_clique *cl = me->cl;
    if (p->kind == P_COLL) {
        for (int r = 0; r < cl->n; r++)
            if (!cl->comm[r]->conn_coll) return false;
        return true;
    }
    const struct ncclComm *peer = cl->comm[p->peer];
    return p->kind == P_SEND ? peer->conn_recv[me->rank] : peer->conn_send[me->rank];
}

struct fk_conn_wait {
    struct fk_part *part[FK_MAX_DEVICES * 8];
    int n;
};

static bool fk_conn_done(void *arg)
{
    struct fk_conn_wait *w = arg;
    for (int i = 0; i < w->n; i++)
        if (!w->part[i]->g->comm->aborted && !fk_connected(w->part[i])) return false;
    return true;
}

/* Enter the setup of every connection the groups' parts need for the first time, then
 * block (lock held, released while waiting) until the peers have entered it too. */
static void fk_connect(struct fk_group **gs, int ng)
{
    struct fk_conn_wait w = {.n = 0};
    for (int i = 0; i < ng; i++)
        for (struct fk_part *p = gs[i]->parts; p; p = p->next) {
            struct ncclComm *c = gs[i]->comm;
            if (c->mp) continue; /* across processes: joined in ncclCommInitRank */
            bool *flag = p->kind == P_COLL   ? &c->conn_coll
                         : p->kind == P_SEND ? &c->conn_send[p->peer]
                                             : &c->conn_recv[p->peer];
            if (*flag) continue; /* set up before (or earlier in this batch) */
            *flag = true;
            if (p->kind == P_COLL) fk_log_connect(c);
            if (w.n == (int)(sizeof w.part / sizeof w.part[0])) fk_die("too many connections");
            w.part[w.n++] = p;
        }
    if (w.n == 0) return;
    char what[256];
    const struct fk_part *p0 = w.part[0];
    if (p0->kind == P_COLL)
        snprintf(what, sizeof what,
                 "the first collective on rank %d's communicator (NCCL connects the clique "
                 "inside it; some rank never called its own)",
                 p0->g->comm->rank);
    else
        snprintf(what, sizeof what,
                 "the first %s between ranks %d and %d of a communicator (NCCL connects the "
                 "pair inside the call, so the peer must post its matching call while this "
                 "one blocks)",
                 p0->kind == P_SEND ? "ncclSend" : "ncclRecv", p0->g->comm->rank, p0->peer);
    fk_wait_for(fk_conn_done, &w, what);
}

/* ---- posting ---- */

static void fk_queue(struct fk_group *g)
{
    g->op = fk_op_new(FK_NCCL, "an NCCL call");
    g->op->group = g;
    g->next_live = fk_live;
    fk_live = g;
    fk_enqueue(g->st, g->op);
}

static ncclResult_t fk_post(struct ncclComm *c, cudaStream_t stream, ncclDataType_t type,
                            struct fk_part tpl, const char *what)
{
    if (type != ncclFloat)
        fk_die("%s: datatype %d (the fake supports ncclFloat only)", what, (int)type);
    if (!c) return fk_fail(ncclInvalidArgument, "%s: NULL communicator", what);
    fk_lock();
    if (c->destroyed) fk_die("%s on a destroyed communicator", what);
    if (c->aborted) {
        fk_unlock();
        return fk_fail(ncclInvalidUsage, "%s on an aborted communicator", what);
    }
    struct fk_stream *st = fk_stream_of(stream);
    if (fk_stream_device(st) != c->dev) {
        fk_unlock();
        return fk_fail(ncclUnhandledCudaError,
                       "%s: the stream is not on the communicator's device %d", what, c->dev);
    }
    int w = c->mp ? fk_mp_size(c->mp) : c->cl->n;
    if (tpl.kind != P_COLL && (tpl.peer < 0 || tpl.peer >= w)) {
        fk_unlock();
        return fk_fail(ncclInvalidArgument, "%s: peer %d out of range", what, tpl.peer);
    }
    if (tpl.root < 0 || tpl.root >= w) {
        fk_unlock();
        return fk_fail(ncclInvalidArgument, "%s: root %d out of range", what, tpl.root);
    }
    if (tpl.op < ncclSum || tpl.op > ncclAvg) {
        fk_unlock();
        return fk_fail(ncclInvalidArgument, "%s: reduction op %d", what, tpl.op);
    }
    struct fk_part *p = calloc(1, sizeof *p);
    if (!p) fk_die("out of host memory");
    *p = tpl;
    p->poster = pthread_self();
    p->grouped = fk_depth > 0;
    if (p->kind == P_COLL)
        p->seq = c->coll_seq++;
    else if (p->kind == P_SEND)
        p->seq = c->send_seq[p->peer]++;
    else
        p->seq = c->recv_seq[p->peer]++;

    struct fk_group *g = NULL;
    if (fk_depth > 0)
        for (int i = 0; i < fk_nopen; i++)
            if (fk_open[i]->comm == c) g = fk_open[i];
    if (g && g->st != st)
        fk_die("%s: one communicator on two streams inside one group (not supported here)",
               what);
    if (!g) {
        g = calloc(1, sizeof *g);
        if (!g) fk_die("out of host memory");
        g->comm = c;
        g->st = st;
        if (fk_depth > 0) {
            if (fk_nopen == (int)(sizeof fk_open / sizeof fk_open[0]))
                fk_die("too many communicators in one group");
            fk_open[fk_nopen++] = g;
        }
    }
    p->g = g;
    if (g->last)
        g->last->next = p;
    else
        g->parts = p;
    g->last = p;

    char whatbuf[96];
    snprintf(whatbuf, sizeof whatbuf, "%s rank %d send buffer", what, c->rank);
    fk_check_device_range(p->sbuf, fk_send_elems(p, w) * sizeof(float), c->dev, whatbuf);
    snprintf(whatbuf, sizeof whatbuf, "%s rank %d receive buffer", what, c->rank);
    fk_check_device_range(p->rbuf, fk_recv_elems(p, w) * sizeof(float), c->dev, whatbuf);

    if (fk_depth == 0) {
        /* One thread posting for two ranks of a clique without a group: NCCL may block
         * the first call until its peers join, so the second never comes. */
        for (struct fk_group *o = fk_live; o; o = o->next_live)
            for (struct fk_part *q = o->parts; q; q = q->next)
                if (!q->grouped && !c->mp && o->comm->cl == c->cl && o->comm != c &&
                    pthread_equal(q->poster, p->poster))
                    fk_die("%s: one thread called NCCL for ranks %d and %d of one clique "
                           "outside ncclGroupStart/ncclGroupEnd, and the first call has not "
                           "completed: NCCL requires a group here",
                           what, o->comm->rank, c->rank);
        if (!c->mp) fk_connect(&g, 1);
        fk_queue(g);
    }
    fk_unlock();
    return ncclSuccess;
}

static struct fk_part fk_coll(enum fk_coll k, const void *s, void *r, size_t count,
                              ncclRedOp_t op, int root)
{
    return (struct fk_part){.kind = P_COLL,
                            .coll = k,
                            .sbuf = s,
                            .rbuf = r,
                            .count = count,
                            .op = (int)op,
                            .root = root};
}

ncclResult_t ncclAllReduce(const void *s, void *r, size_t count, ncclDataType_t t,
                           ncclRedOp_t op, ncclComm_t c, cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_ALL_REDUCE, s, r, count, op, 0), "ncclAllReduce");
}

ncclResult_t ncclBroadcast(const void *s, void *r, size_t count, ncclDataType_t t, int root,
                           ncclComm_t c, cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_BROADCAST, s, r, count, ncclSum, root), "ncclBroadcast");
}

ncclResult_t ncclReduce(const void *s, void *r, size_t count, ncclDataType_t t, ncclRedOp_t op,
                        int root, ncclComm_t c, cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_REDUCE, s, r, count, op, root), "ncclReduce");
}

ncclResult_t ncclAllGather(const void *s, void *r, size_t count, ncclDataType_t t, ncclComm_t c,
                           cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_ALL_GATHER, s, r, count, ncclSum, 0), "ncclAllGather");
}

ncclResult_t ncclReduceScatter(const void *s, void *r, size_t count, ncclDataType_t t,
                               ncclRedOp_t op, ncclComm_t c, cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_REDUCE_SCATTER, s, r, count, op, 0),
                   "ncclReduceScatter");
}

ncclResult_t ncclAlltoAll(const void *s, void *r, size_t count, ncclDataType_t t, ncclComm_t c,
                          cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_ALL_TO_ALL, s, r, count, ncclSum, 0), "ncclAlltoAll");
}

ncclResult_t ncclGather(const void *s, void *r, size_t count, ncclDataType_t t, int root,
                        ncclComm_t c, cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_GATHER, s, r, count, ncclSum, root), "ncclGather");
}

ncclResult_t ncclScatter(const void *s, void *r, size_t count, ncclDataType_t t, int root,
                         ncclComm_t c, cudaStream_t st)
{
    return fk_post(c, st, t, fk_coll(C_SCATTER, s, r, count, ncclSum, root), "ncclScatter");
}

ncclResult_t ncclSend(const void *s, size_t count, ncclDataType_t t, int peer, ncclComm_t c,
                      cudaStream_t st)
{
    return fk_post(c, st, t,
                   (struct fk_part){.kind = P_SEND, .sbuf = s, .count = count, .peer = peer},
                   "ncclSend");
}

ncclResult_t ncclRecv(void *r, size_t count, ncclDataType_t t, int peer, ncclComm_t c,
                      cudaStream_t st)
{
    return fk_post(c, st, t,
                   (struct fk_part){.kind = P_RECV, .rbuf = r, .count = count, .peer = peer},
                   "ncclRecv");
}

/* nccl.h declares these without (void) */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

ncclResult_t ncclGroupStart(void)
{
    fk_depth++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    if (fk_depth == 0) return fk_fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
    if (--fk_depth > 0) return ncclSuccess;
    fk_lock();
    int n = fk_nopen;
    fk_nopen = 0;
    fk_connect(fk_open, n);
    for (int i = 0; i < n; i++)
        fk_queue(fk_open[i]);
    fk_unlock();
    return ncclSuccess;
}

/* ---- across processes ---- */

struct fk_mp_slot {
    int kind, coll, op, root;
    size_t count;
    unsigned long seq;
    size_t bytes; /* of the send buffer published in the rank's data segment */
};

struct fk_mp_hdr {
    _Atomic int ready;
    int nranks;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    unsigned gen;
    _Atomic int attached;
    struct fk_mp_slot slot[FK_MAX_DEVICES];
    /* Point-to-point messages [src][dst]: how many src has published for dst, and how
     * many of them dst has taken. */
    _Atomic unsigned long posted[FK_MAX_DEVICES][FK_MAX_DEVICES];
    _Atomic unsigned long taken[FK_MAX_DEVICES][FK_MAX_DEVICES];
};

struct fk_mp {
    char name[NCCL_UNIQUE_ID_BYTES];
    struct fk_mp_hdr *h;
    int n, rank;
    int data_fd;
    void *data;
    size_t data_cap;
};

static int fk_mp_size(const struct fk_mp *m)
{
    return m->n;
}

static double fk_mp_watchdog(void)
{
    const char *s = getenv("FAKEGPU_WATCHDOG_S");
    double v = s && *s ? atof(s) : 60.0;
    return v > 0 ? v : 60.0;
}

static double fk_mp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Every rank of the communicator arrives (process-shared barrier, watchdog-bounded). */
static void fk_mp_barrier(struct fk_mp *m, const char *what)
{
    struct fk_mp_hdr *h = m->h;
    double t0 = fk_mp_now(), limit = fk_mp_watchdog();
    pthread_mutex_lock(&h->mu);
    unsigned gen = h->gen;
    if (++h->arrived == h->nranks) {
        h->arrived = 0;
        h->gen++;
        pthread_cond_broadcast(&h->cv);
    } else {
        while (h->gen == gen) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 1;
            pthread_cond_timedwait(&h->cv, &h->mu, &ts);
            if (h->gen == gen && fk_mp_now() - t0 > limit) {
                pthread_mutex_unlock(&h->mu);
                fk_die("rank %d of a communicator across processes waited %.0f s for the "
                       "other ranks at %s (a rank never called it: NCCL would hang here)",
                       m->rank, limit, what);
            }
        }
    }
    pthread_mutex_unlock(&h->mu);
}

static void fk_mp_data_name(const struct fk_mp *m, int rank, char *buf, size_t n)
{
    snprintf(buf, n, "%s-d%d", m->name, rank);
}

/* The rank's own data segment, grown to hold `bytes`. */
static void *fk_mp_data(struct fk_mp *m, size_t bytes)
{
    if (bytes <= m->data_cap && m->data) return m->data;
    if (m->data) munmap(m->data, m->data_cap);
    size_t cap = bytes < 4096 ? 4096 : bytes;
    if (ftruncate(m->data_fd, (off_t)cap) != 0) fk_die("ftruncate of a shared segment failed");
    m->data = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, m->data_fd, 0);
    if (m->data == MAP_FAILED) fk_die("mmap of a shared segment failed");
    m->data_cap = cap;
    return m->data;
}

static void fk_mp_msg_name(const struct fk_mp *m, int src, int dst, unsigned long seq,
                           char *buf, size_t n)
{
    snprintf(buf, n, "%s-m%d-%d-%lu", m->name, src, dst, seq);
}

static void fk_mp_detach(struct fk_mp *m)
{
    char dn[NCCL_UNIQUE_ID_BYTES + 48];
    /* Messages this rank published that nobody took (an aborted run). */
    for (int d = 0; d < m->n; d++)
        for (unsigned long q = atomic_load(&m->h->taken[m->rank][d]);
             q < atomic_load(&m->h->posted[m->rank][d]); q++) {
            fk_mp_msg_name(m, m->rank, d, q, dn, sizeof dn);
            shm_unlink(dn);
        }
    if (m->data) munmap(m->data, m->data_cap);
    if (m->data_fd >= 0) close(m->data_fd);
    fk_mp_data_name(m, m->rank, dn, sizeof dn);
    shm_unlink(dn);
    if (m->rank == 0) shm_unlink(m->name);
    munmap(m->h, sizeof *m->h);
    free(m);
}

/* Run one collective part of a communicator across processes (lock held: this process has
 * one rank, and its other threads wait for the exchange). */
static void fk_mp_run(struct fk_part *p)
{
    struct ncclComm *c = p->g->comm;
    struct fk_mp *m = c->mp;
    int w = m->n;
    if (p->kind != P_COLL) fk_die("fk_mp_run: a send or receive is not a collective");
    size_t sb = fk_send_elems(p, w) * sizeof(float);
    float *mine = fk_mp_data(m, sb);
    if (sb) memcpy(mine, p->sbuf, sb);
    m->h->slot[m->rank] = (struct fk_mp_slot){.kind = p->kind,
                                              .coll = p->coll,
                                              .op = p->op,
                                              .root = p->root,
                                              .count = p->count,
                                              .seq = p->seq,
                                              .bytes = sb};
    fk_mp_barrier(m, fk_coll_name[p->coll]);
    /* Every rank's part: the others read from their data segments. */
    struct ncclComm peer_comm[FK_MAX_DEVICES];
    struct fk_group peer_g[FK_MAX_DEVICES];
    struct fk_part peer[FK_MAX_DEVICES], *pr[FK_MAX_DEVICES];
    void *map[FK_MAX_DEVICES];
    size_t maplen[FK_MAX_DEVICES];
    for (int r = 0; r < w; r++) {
        map[r] = NULL;
        maplen[r] = 0;
        if (r == m->rank) {
            pr[r] = p;
            continue;
        }
        const struct fk_mp_slot *sl = &m->h->slot[r];
        if (sl->kind != (int)P_COLL || sl->coll != (int)p->coll || sl->count != p->count ||
            sl->op != p->op || sl->root != p->root || sl->seq != p->seq)
            fk_die("collective #%lu across processes does not match: rank %d called %s(count "
                   "%zu, op %d, root %d), rank %d %s(count %zu, op %d, root %d, #%lu) - NCCL "
                   "would hang or corrupt memory",
                   p->seq, m->rank, fk_coll_name[p->coll], p->count, p->op, p->root, r,
                   fk_coll_name[sl->coll], sl->count, sl->op, sl->root, sl->seq);
        peer_comm[r] = (struct ncclComm){.rank = r, .dev = -1};
        peer_g[r] = (struct fk_group){.comm = &peer_comm[r]};
        peer[r] = *p;
        peer[r].g = &peer_g[r];
        peer[r].sbuf = NULL;
        if (sl->bytes) {
            char dn[NCCL_UNIQUE_ID_BYTES + 16];
            fk_mp_data_name(m, r, dn, sizeof dn);
            int fd = shm_open(dn, O_RDONLY, 0);
            if (fd < 0) fk_die("rank %d's shared segment %s is gone", r, dn);
            map[r] = mmap(NULL, sl->bytes, PROT_READ, MAP_SHARED, fd, 0);
            close(fd);
            if (map[r] == MAP_FAILED) fk_die("mmap of rank %d's segment failed", r);
            maplen[r] = sl->bytes;
            peer[r].sbuf = map[r];
        }
        size_t nr = fk_recv_elems(&peer[r], w);
        peer[r].rbuf = nr ? fk_tmp(nr) : NULL; /* computed, not kept: that rank's own */
        pr[r] = &peer[r];
    }
    fk_exec_coll(pr, w, p);
    for (int r = 0; r < w; r++) {
        if (r == m->rank) continue;
        free(pr[r]->rbuf);
        if (map[r]) munmap(map[r], maplen[r]);
    }
    p->done = true;
    fk_mp_barrier(m, "the end of a collective");
}

/* One send or receive of a communicator across processes (lock held), see the top of the
 * file: sets p->done when it has finished, returns at once otherwise. */
static void fk_mp_p2p(struct fk_part *p)
{
    struct fk_mp *m = p->g->comm->mp;
    struct fk_mp_hdr *h = m->h;
    char dn[NCCL_UNIQUE_ID_BYTES + 48];
    if (p->kind == P_SEND) {
        if (!p->posted) {
            fk_mp_msg_name(m, m->rank, p->peer, p->seq, dn, sizeof dn);
            size_t bytes = sizeof(size_t) + p->count * sizeof(float);
            int fd = shm_open(dn, O_CREAT | O_EXCL | O_RDWR, 0600);
            if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0)
                fk_die("ncclSend across processes: cannot create %s", dn);
            char *q = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            close(fd);
            if (q == MAP_FAILED) fk_die("mmap of %s failed", dn);
            memcpy(q, &p->count, sizeof p->count);
            if (p->count) memcpy(q + sizeof p->count, p->sbuf, p->count * sizeof(float));
            munmap(q, bytes);
            atomic_store(&h->posted[m->rank][p->peer], p->seq + 1);
            p->posted = true;
        }
        /* NCCL's send completes when the receiver has the data. */
        if (atomic_load(&h->taken[m->rank][p->peer]) > p->seq) p->done = true;
        return;
    }
    if (atomic_load(&h->posted[p->peer][m->rank]) <= p->seq) return; /* not sent yet */
    fk_mp_msg_name(m, p->peer, m->rank, p->seq, dn, sizeof dn);
    int fd = shm_open(dn, O_RDONLY, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(size_t))
        fk_die("ncclRecv across processes: message %s is missing", dn);
    char *q = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (q == MAP_FAILED) fk_die("mmap of %s failed", dn);
    size_t count;
    memcpy(&count, q, sizeof count);
    if (count != p->count)
        fk_die("rank %d sends %zu floats to rank %d, which receives %zu (message #%lu): NCCL "
               "requires the same count",
               p->peer, count, m->rank, p->count, p->seq);
    if (count) memcpy(p->rbuf, q + sizeof count, count * sizeof(float));
    munmap(q, (size_t)st.st_size);
    shm_unlink(dn);
    fk_corrupt(p->rbuf, p->count);
    atomic_store(&h->taken[p->peer][m->rank], p->seq + 1);
    p->done = true;
}

/* The streams' work, run without waiting for the host (see the top of the file). */
static void *fk_mp_pump(void *arg)
{
    (void)arg;
    for (;;) {
        usleep(500);
        fk_lock();
        if (fk_live) fk_progress();
        fk_unlock();
    }
    return NULL;
}

static void fk_mp_pump_start(void)
{
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &a, fk_mp_pump, NULL) != 0) fk_die("cannot start the pump thread");
    pthread_attr_destroy(&a);
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    static _Atomic unsigned counter;
    if (!id) return fk_fail(ncclInvalidArgument, "ncclGetUniqueId: NULL");
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, "/collviz-fakegpu-%d-%ld-%u", (int)getpid(),
             (long)time(NULL), atomic_fetch_add(&counter, 1));
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    fk_log_version();
    if (!comm || nranks < 1 || nranks > FK_MAX_DEVICES || rank < 0 || rank >= nranks)
        return fk_fail(ncclInvalidArgument, "ncclCommInitRank: nranks %d rank %d", nranks,
                       rank);
    if (id.internal[0] != '/' || memchr(id.internal, '\0', sizeof id.internal) == NULL)
        return fk_fail(ncclInvalidArgument, "ncclCommInitRank: not a unique id of this fake");
    struct fk_mp *m = calloc(1, sizeof *m);
    if (!m) fk_die("out of host memory");
    snprintf(m->name, sizeof m->name, "%s", id.internal);
    m->n = nranks;
    m->rank = rank;
    int fd;
    double t0 = fk_mp_now();
    if (rank == 0) {
        fd = shm_open(m->name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, sizeof *m->h) != 0)
            fk_die("ncclCommInitRank: cannot create the shared segment %s", m->name);
    } else {
        /* Rank 0 creates it; wait for it to appear and to have its size: between rank 0's
         * shm_open and its ftruncate the segment is empty, and touching a mapping past the
         * end of the file is a SIGBUS. */
        struct stat st;
        while ((fd = shm_open(m->name, O_RDWR, 0)) < 0 || fstat(fd, &st) != 0 ||
               (size_t)st.st_size < sizeof *m->h) {
            if (fd >= 0) close(fd);
            if (fk_mp_now() - t0 > fk_mp_watchdog())
                fk_die("ncclCommInitRank: rank 0 never created %s", m->name);
            usleep(1000);
        }
    }
    m->h = mmap(NULL, sizeof *m->h, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m->h == MAP_FAILED) fk_die("ncclCommInitRank: mmap failed");
    if (rank == 0) {
        pthread_mutexattr_t ma;
        pthread_condattr_t ca;
        pthread_mutexattr_init(&ma);
        pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
        pthread_condattr_init(&ca);
        pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
        pthread_mutex_init(&m->h->mu, &ma);
        pthread_cond_init(&m->h->cv, &ca);
        m->h->nranks = nranks;
        atomic_store(&m->h->ready, 1);
    }
    while (!atomic_load(&m->h->ready)) {
        if (fk_mp_now() - t0 > fk_mp_watchdog())
            fk_die("ncclCommInitRank: the shared segment %s never became ready", m->name);
        usleep(1000);
    }
    if (m->h->nranks != nranks)
        fk_die("ncclCommInitRank: rank %d says %d ranks, rank 0 said %d", rank, nranks,
               m->h->nranks);
    char dn[NCCL_UNIQUE_ID_BYTES + 16];
    fk_mp_data_name(m, rank, dn, sizeof dn);
    m->data_fd = shm_open(dn, O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (m->data_fd < 0) fk_die("ncclCommInitRank: cannot create %s", dn);
    struct ncclComm *c = calloc(1, sizeof *c);
    if (!c) fk_die("out of host memory");
    c->rank = rank;
    c->dev = fk_current_device();
    c->mp = m;
    static pthread_once_t pump_once = PTHREAD_ONCE_INIT;
    pthread_once(&pump_once, fk_mp_pump_start);
    /* ncclCommInitRank returns when every rank has joined. */
    fk_mp_barrier(m, "ncclCommInitRank");
    fk_lock();
    fk_log_init(c, nranks, "ncclCommInitRank", fk_hash_name(m->name));
    fk_unlock();
    *comm = c;
    return ncclSuccess;
}

/* ---- communicators ---- */

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    fk_log_version();
    if (!comms || ndev < 1 || ndev > FK_MAX_DEVICES)
        return fk_fail(ncclInvalidArgument, "ncclCommInitAll: ndev %d", ndev);
    int n = fk_device_count();
    for (int i = 0; i < ndev; i++) {
        int d = devlist ? devlist[i] : i;
        if (d < 0 || d >= n)
            return fk_fail(ncclUnhandledCudaError, "ncclCommInitAll: device %d does not exist",
                           d);
        for (int j = 0; j < i; j++)
            if ((devlist ? devlist[j] : j) == d)
                return fk_fail(ncclInvalidUsage,
                               "ncclCommInitAll: duplicate GPU detected: device %d twice", d);
    }
    struct fk_clique *cl = calloc(1, sizeof *cl);
    if (!cl) return ncclSystemError;
    cl->n = ndev;
    for (int i = 0; i < ndev; i++) {
        struct ncclComm *c = calloc(1, sizeof *c);
        if (!c) fk_die("out of host memory");
        c->rank = i;
        c->dev = devlist ? devlist[i] : i;
        c->cl = cl;
        cl->comm[i] = comms[i] = c;
    }
    fk_lock();
    cl->next = fk_cliques;
    fk_cliques = cl;
    for (int i = 0; i < ndev; i++)
        fk_log_init(cl->comm[i], ndev, "ncclCommInitAll", (unsigned long long)(uintptr_t)cl);
    fk_unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t c)
{
    if (!c) return ncclSuccess;
    fk_lock();
    c->aborted = true;
    c->destroyed = true;
    fk_progress();
    if (c->mp) {
        fk_mp_detach(c->mp);
        c->mp = NULL;
    }
    fk_unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t c)
{
    if (!c) return ncclSuccess;
    fk_lock();
    if (c->destroyed) fk_die("ncclCommDestroy on a destroyed communicator");
    for (struct fk_group *g = fk_live; g; g = g->next_live)
        if (g->comm == c)
            fk_die("ncclCommDestroy with work still queued on rank %d (NCCL would wait for "
                   "it forever if its peers never come: abort instead)",
                   c->rank);
    c->destroyed = true;
    if (c->mp) {
        fk_mp_detach(c->mp);
        c->mp = NULL;
    }
    fk_unlock();
    return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *e)
{
    if (!c || !e) return ncclInvalidArgument;
    *e = ncclSuccess;
    return ncclSuccess;
}

const char *ncclGetLastError(ncclComm_t c)
{
    return fk_last_err;
}

const char *ncclGetErrorString(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess:
        return "no error";
    case ncclUnhandledCudaError:
        return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError:
        return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError:
        return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument:
        return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage:
        return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError:
        return "remote process exited or there was a network error";
    case ncclInProgress:
        return "NCCL operation in progress";
    default:
        return "unknown result code";
    }
}

ncclResult_t ncclGetVersion(int *v)
{
    if (!v) return ncclInvalidArgument;
    *v = NCCL_VERSION_CODE;
    return ncclSuccess;
}
