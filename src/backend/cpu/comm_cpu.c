/* comm_cpu.c - the shared-memory communicator of the CPU ranks (see comm_cpu.h).
 *
 * Collectives. All ranks of a lane publish a pointer to their working buffer, meet at a
 * barrier, then run the plan: at step s each rank executes exec_step_rank(plan, s, rank,
 * bufs) (the transfers whose destination it is, reading the source ranks' buffers
 * directly) and meets the others at a barrier. The plan's safety rule (plan.h) makes this
 * race-free. The user's buffer is the working buffer whenever the layout allows (always,
 * for all_reduce, all_gather and reduce_scatter); otherwise a per-rank scratch buffer is
 * used and the data copied in and out.
 *
 * Lanes. Lane 0 is the ranks' own threads. Lane 1 is one helper thread per rank, which
 * runs iall_reduce requests in issue order; having its own barrier and buffer table, it
 * can run a collective while lane 0 computes (DDP's overlapped gradient all-reduce).
 *
 * Point-to-point. One mailbox per ordered pair (src, dst): a bounded FIFO of message
 * slots whose buffers are kept and reused. send copies into a slot (eager, as MPI and
 * NCCL do for messages that fit their buffers), so pipeline stages that send to each other
 * at the same moment cannot deadlock.
 *
 * Deadlines. Every condition wait is timed (CLOCK_MONOTONIC). A rank that passes its
 * deadline aborts the communicator: the abort flag is set and every condition variable is
 * broadcast, so all other ranks return CV_EBACKEND at once. */
#include "comm_cpu.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/exec.h"
#include "../../core/plan.h"
#include "../../core/util.h"
#include "../../core/wait.h"

#define MBOX_SLOTS 64

struct cpu_barrier {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n, arrived;
    unsigned gen;
};

struct plan_entry {
    enum coll coll;
    enum redop op;
    size_t count;
    struct plan p;
    size_t sent[CV_MAX_RANKS]; /* elements rank r sends to other ranks over the plan */
    size_t recv[CV_MAX_RANKS]; /* elements rank r receives from other ranks */
};

struct lane {
    struct cpu_barrier bar;
    float *bufs[CV_MAX_RANKS];
    float *scratch[CV_MAX_RANKS];
    size_t scratch_len[CV_MAX_RANKS];
};

struct mbox_msg {
    int tag;
    size_t count;
    float *data;
    size_t cap;
};

struct mbox {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct mbox_msg q[MBOX_SLOTS];
    size_t head, n;
    size_t mem; /* bytes of slot buffers */
};

struct comm_req {
    int rank, step;
    float *buf;
    size_t count;
    enum redop op;
    char label[32];
    int status;
    bool done;
    struct comm_req *next;
};

struct helper {
    struct cpu_comm *cc;
    int rank;
    pthread_t th;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct comm_req *head, *tail;
    bool stop;
};

struct cpu_comm {
    struct comm pub;
    enum algo algo;
    pthread_mutex_t plan_mu;
    struct plan_entry **plans;
    size_t nplans, plans_cap;
    struct lane lanes[2];
    struct mbox *mbox; /* [src * nranks + dst] */
    struct helper helpers[CV_MAX_RANKS];
    bool async;
    struct comm_stats stats[CV_MAX_RANKS][2];
    atomic_int aborted;
    pthread_mutex_t err_mu;
    char err[256];
};

static struct cpu_comm *to_cc(struct comm *c)
{
    return (struct cpu_comm *)c;
}

static bool is_aborted(struct cpu_comm *cc)
{
    return atomic_load_explicit(&cc->aborted, memory_order_acquire) != 0;
}

static void broadcast_locked(pthread_mutex_t *mu, pthread_cond_t *cv)
{
    pthread_mutex_lock(mu);
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(mu);
}

static void cpu_abort(struct comm *c, const char *why)
{
    struct cpu_comm *cc = to_cc(c);
    pthread_mutex_lock(&cc->err_mu);
    if (!cc->err[0]) snprintf(cc->err, sizeof cc->err, "%s", why);
    pthread_mutex_unlock(&cc->err_mu);
    atomic_store_explicit(&cc->aborted, 1, memory_order_release);
    for (int l = 0; l < 2; l++)
        broadcast_locked(&cc->lanes[l].bar.mu, &cc->lanes[l].bar.cv);
    int w = c->nranks;
    for (int i = 0; i < w * w; i++)
        broadcast_locked(&cc->mbox[i].mu, &cc->mbox[i].cv);
    for (int r = 0; r < w; r++)
        broadcast_locked(&cc->helpers[r].mu, &cc->helpers[r].cv);
}

static const char *cpu_last_error(struct comm *c)
{
    return to_cc(c)->err;
}

static int fail_aborted(struct cpu_comm *cc)
{
    (void)cc;
    return CV_EBACKEND;
}

/* Abort with a formatted reason and return status. */
static int fail(struct cpu_comm *cc, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct cpu_comm *cc, int status, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cpu_abort(&cc->pub, msg);
    return status;
}

static int bar_wait(struct cpu_comm *cc, struct cpu_barrier *b, int rank, const char *what)
{
    if (is_aborted(cc)) return fail_aborted(cc);
    pthread_mutex_lock(&b->mu);
    unsigned gen = b->gen;
    if (++b->arrived == b->n) {
        b->arrived = 0;
        b->gen++;
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
        return CV_OK;
    }
    struct timespec dl = wait_deadline_after(cc->pub.timeout_s);
    while (gen == b->gen && !is_aborted(cc)) {
        if (pthread_cond_timedwait(&b->cv, &b->mu, &dl) == ETIMEDOUT && gen == b->gen) {
            pthread_mutex_unlock(&b->mu);
            return fail(cc, CV_ETIMEOUT,
                        "rank %d waited more than %.1f s for the other ranks in %s", rank,
                        cc->pub.timeout_s, what);
        }
    }
    bool passed = gen != b->gen;
    pthread_mutex_unlock(&b->mu);
    return passed ? CV_OK : fail_aborted(cc);
}

static void bar_init(struct cpu_barrier *b, int n)
{
    pthread_mutex_init(&b->mu, NULL);
    wait_cond_init_monotonic(&b->cv);
    b->n = n;
    b->arrived = 0;
    b->gen = 0;
}

/* The plan for (coll, op, count), built once and shared by all ranks and both lanes;
 * plans are never changed after they are published. */
static int get_plan(struct cpu_comm *cc, enum coll c, enum redop op, size_t count,
                    struct plan_entry **out)
{
    int w = cc->pub.nranks;
    pthread_mutex_lock(&cc->plan_mu);
    for (size_t i = 0; i < cc->nplans; i++) {
        struct plan_entry *e = cc->plans[i];
        if (e->coll == c && e->op == op && e->count == count) {
            pthread_mutex_unlock(&cc->plan_mu);
            *out = e;
            return CV_OK;
        }
    }
    struct plan_entry *e = xcalloc(1, sizeof *e);
    char err[200];
    int rc = plan_build(&e->p, c, cc->algo, op, w, count, 0, err, sizeof err);
    if (rc != CV_OK) {
        pthread_mutex_unlock(&cc->plan_mu);
        free(e);
        return fail(cc, rc, "%s plan: %s", coll_name(c), err);
    }
    e->coll = c;
    e->op = op;
    e->count = count;
    for (size_t i = 0; i < e->p.nx; i++) {
        const struct xfer *x = &e->p.x[i];
        if (x->src != x->dst) {
            e->sent[x->src] += x->count;
            e->recv[x->dst] += x->count;
        }
    }
    if (cc->nplans == cc->plans_cap) {
        cc->plans_cap = cc->plans_cap ? cc->plans_cap * 2 : 8;
        cc->plans = xrealloc(cc->plans, cc->plans_cap * sizeof *cc->plans);
    }
    cc->plans[cc->nplans++] = e;
    pthread_mutex_unlock(&cc->plan_mu);
    *out = e;
    return CV_OK;
}

static float *lane_scratch(struct lane *ln, int rank, size_t n)
{
    if (ln->scratch_len[rank] < n) {
        free(ln->scratch[rank]);
        ln->scratch[rank] = xmalloc(n * sizeof(float));
        ln->scratch_len[rank] = n;
    }
    return ln->scratch[rank];
}

/* One collective on lane `li` for `rank`: in (send count elements) -> out (recv count
 * elements). cand/cand_len: a caller buffer that may serve as the working buffer. */
static int run_coll(struct cpu_comm *cc, int li, int rank, int step, enum coll c, enum redop op,
                    size_t count, const float *in, float *out, float *cand, size_t cand_len,
                    const char *label)
{
    if (is_aborted(cc)) return fail_aborted(cc);
    double t0 = now_s();
    struct plan_entry *pe = NULL;
    int rc = get_plan(cc, c, op, count, &pe);
    if (rc != CV_OK) return rc;
    const struct plan *p = &pe->p;
    int w = cc->pub.nranks;
    struct lane *ln = &cc->lanes[li];
    size_t in_off = coll_in_off(c, w, count, rank), out_off = coll_out_off(c, w, count, rank);
    size_t nin = coll_send_count(c, w, count, rank, 0);
    size_t nout = coll_recv_count(c, w, count, rank, 0);
    float *work =
        (cand && cand_len >= p->work_len) ? cand : lane_scratch(ln, rank, p->work_len);
    if (nin && work + in_off != in) memmove(work + in_off, in, nin * sizeof(float));
    if (p->nsteps > 0) {
        ln->bufs[rank] = work;
        rc = bar_wait(cc, &ln->bar, rank, coll_name(c));
        for (size_t s = 0; rc == CV_OK && s < p->nsteps; s++) {
            exec_step_rank(p, s, rank, ln->bufs);
            rc = bar_wait(cc, &ln->bar, rank, coll_name(c));
        }
        if (rc != CV_OK) return rc;
    }
    if (nout && work + out_off != out) memmove(out, work + out_off, nout * sizeof(float));
    struct comm_stats *st = &cc->stats[rank][li];
    st->bytes_sent += pe->sent[rank] * sizeof(float);
    st->bytes_recv += pe->recv[rank] * sizeof(float);
    st->coll_bytes[c] += coll_bytes(c, w, count, sizeof(float));
    if (cc->pub.tl) {
        struct tl_event *e = timeline_add(cc->pub.tl, step, rank, li, TL_COLLECTIVE,
                                          label ? label : coll_name(c), t0, now_s());
        e->bytes = pe->sent[rank] * sizeof(float);
    }
    return CV_OK;
}

static int check_rank(struct cpu_comm *cc, int rank)
{
    if (rank < 0 || rank >= cc->pub.nranks)
        return fail(cc, CV_EINVAL, "rank %d out of range 0..%d", rank, cc->pub.nranks - 1);
    return CV_OK;
}

static int cpu_all_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                          const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return run_coll(cc, 0, rank, c->step[rank], COLL_ALL_REDUCE, op, count, buf, buf, buf,
                    count, label);
}

static int cpu_all_gather(struct comm *c, int rank, const float *send, float *recv,
                          size_t count, const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return run_coll(cc, 0, rank, c->step[rank], COLL_ALL_GATHER, OP_SUM, count, send, recv,
                    recv, (size_t)c->nranks * count, label);
}

static int cpu_reduce_scatter(struct comm *c, int rank, float *send, float *recv, size_t count,
                              enum redop op, const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return run_coll(cc, 0, rank, c->step[rank], COLL_REDUCE_SCATTER, op, count, send, recv,
                    send, (size_t)c->nranks * count, label);
}

static int cpu_barrier(struct comm *c, int rank)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    return bar_wait(cc, &cc->lanes[0].bar, rank, "barrier");
}

static int check_peer(struct cpu_comm *cc, int rank, int peer)
{
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    if (peer < 0 || peer >= cc->pub.nranks || peer == rank)
        return fail(cc, CV_EINVAL, "rank %d: bad peer %d", rank, peer);
    return CV_OK;
}

static int cpu_send(struct comm *c, int rank, int peer, int tag, const float *buf, size_t count,
                    const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_peer(cc, rank, peer);
    if (rc != CV_OK) return rc;
    if (is_aborted(cc)) return fail_aborted(cc);
    struct mbox *mb = &cc->mbox[rank * c->nranks + peer];
    double t0 = now_s();
    bool waited = false;
    pthread_mutex_lock(&mb->mu);
    struct timespec dl = wait_deadline_after(c->timeout_s);
    while (mb->n == MBOX_SLOTS && !is_aborted(cc)) {
        waited = true;
        if (pthread_cond_timedwait(&mb->cv, &mb->mu, &dl) == ETIMEDOUT && mb->n == MBOX_SLOTS) {
            pthread_mutex_unlock(&mb->mu);
            return fail(cc, CV_ETIMEOUT, "rank %d: mailbox to rank %d stayed full for %.1f s",
                        rank, peer, c->timeout_s);
        }
    }
    if (is_aborted(cc)) {
        pthread_mutex_unlock(&mb->mu);
        return fail_aborted(cc);
    }
    double t1 = now_s();
    struct mbox_msg *m = &mb->q[(mb->head + mb->n) % MBOX_SLOTS];
    if (m->cap < count) {
        mb->mem -= m->cap * sizeof(float);
        free(m->data);
        m->data = xmalloc((count ? count : 1) * sizeof(float));
        m->cap = count;
        mb->mem += m->cap * sizeof(float);
    }
    memcpy(m->data, buf, count * sizeof(float));
    m->tag = tag;
    m->count = count;
    mb->n++;
    pthread_cond_broadcast(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
    double t2 = now_s();
    struct comm_stats *st = &cc->stats[rank][0];
    st->bytes_sent += count * sizeof(float);
    st->p2p_bytes += count * sizeof(float);
    if (c->tl) {
        if (waited)
            timeline_add(c->tl, c->step[rank], rank, 0, TL_IDLE, "send: mailbox full", t0, t1);
        struct tl_event *e = timeline_add(c->tl, c->step[rank], rank, 0, TL_SEND,
                                          label ? label : "send", t1, t2);
        e->peer = peer;
        e->tag = tag;
        e->bytes = count * sizeof(float);
    }
    return CV_OK;
}

static int cpu_recv(struct comm *c, int rank, int peer, int tag, float *buf, size_t count,
                    const char *label)
{
    struct cpu_comm *cc = to_cc(c);
    int rc = check_peer(cc, rank, peer);
    if (rc != CV_OK) return rc;
    if (is_aborted(cc)) return fail_aborted(cc);
    struct mbox *mb = &cc->mbox[peer * c->nranks + rank];
    double t0 = now_s();
    bool waited = false;
    pthread_mutex_lock(&mb->mu);
    struct timespec dl = wait_deadline_after(c->timeout_s);
    while (mb->n == 0 && !is_aborted(cc)) {
        waited = true;
        if (pthread_cond_timedwait(&mb->cv, &mb->mu, &dl) == ETIMEDOUT && mb->n == 0) {
            pthread_mutex_unlock(&mb->mu);
            return fail(cc, CV_ETIMEOUT,
                        "rank %d waited more than %.1f s for tag %d from rank %d", rank,
                        c->timeout_s, tag, peer);
        }
    }
    if (is_aborted(cc)) {
        pthread_mutex_unlock(&mb->mu);
        return fail_aborted(cc);
    }
    double t1 = now_s();
    struct mbox_msg *m = &mb->q[mb->head];
    if (m->tag != tag || m->count != count) {
        int mtag = m->tag;
        size_t mcount = m->count;
        pthread_mutex_unlock(&mb->mu);
        return fail(cc, CV_EBACKEND,
                    "rank %d expected tag %d (%zu elements) from rank %d, got tag %d (%zu)",
                    rank, tag, count, peer, mtag, mcount);
    }
    memcpy(buf, m->data, count * sizeof(float));
    mb->head = (mb->head + 1) % MBOX_SLOTS;
    /* An empty queue starts again at slot 0, so the few slots a pipeline keeps busy are
     * reused (their buffers already faulted in) instead of rotating through all of them. */
    if (--mb->n == 0) mb->head = 0;
    pthread_cond_broadcast(&mb->cv);
    pthread_mutex_unlock(&mb->mu);
    double t2 = now_s();
    cc->stats[rank][0].bytes_recv += count * sizeof(float);
    if (c->tl) {
        if (waited) {
            char lab[40];
            snprintf(lab, sizeof lab, "wait %.26s", label ? label : "recv");
            struct tl_event *e =
                timeline_add(c->tl, c->step[rank], rank, 0, TL_IDLE, lab, t0, t1);
            e->peer = peer;
            e->tag = tag;
        }
        struct tl_event *e = timeline_add(c->tl, c->step[rank], rank, 0, TL_RECV,
                                          label ? label : "recv", t1, t2);
        e->peer = peer;
        e->tag = tag;
        e->bytes = count * sizeof(float);
    }
    return CV_OK;
}

static void *helper_main(void *arg)
{
    struct helper *h = arg;
    struct cpu_comm *cc = h->cc;
    for (;;) {
        pthread_mutex_lock(&h->mu);
        /* Idle waiting for work is not a wait on a collective; it wakes each second to
         * notice shutdown even if a broadcast was missed. */
        while (!h->head && !h->stop) {
            struct timespec dl = wait_deadline_after(1.0);
            pthread_cond_timedwait(&h->cv, &h->mu, &dl);
        }
        if (!h->head) {
            pthread_mutex_unlock(&h->mu);
            break;
        }
        struct comm_req *r = h->head;
        h->head = r->next;
        if (!h->head) h->tail = NULL;
        pthread_mutex_unlock(&h->mu);

        int rc = run_coll(cc, 1, h->rank, r->step, COLL_ALL_REDUCE, r->op, r->count, r->buf,
                          r->buf, r->buf, r->count, r->label);

        pthread_mutex_lock(&h->mu);
        r->status = rc;
        r->done = true;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
    }
    return NULL;
}

static int cpu_iall_reduce(struct comm *c, int rank, float *buf, size_t count, enum redop op,
                           const char *label, struct comm_req **req)
{
    struct cpu_comm *cc = to_cc(c);
    *req = NULL;
    int rc = check_rank(cc, rank);
    if (rc != CV_OK) return rc;
    if (!cc->async)
        return fail(cc, CV_EUNSUPPORTED, "iall_reduce: communicator made without helpers");
    if (is_aborted(cc)) return fail_aborted(cc);
    struct comm_req *r = xcalloc(1, sizeof *r);
    r->rank = rank;
    r->step = c->step[rank];
    r->buf = buf;
    r->count = count;
    r->op = op;
    snprintf(r->label, sizeof r->label, "%s", label ? label : "all_reduce");
    struct helper *h = &cc->helpers[rank];
    pthread_mutex_lock(&h->mu);
    if (h->tail)
        h->tail->next = r;
    else
        h->head = r;
    h->tail = r;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    *req = r;
    return CV_OK;
}

static int cpu_wait(struct comm *c, int rank, struct comm_req *r)
{
    struct cpu_comm *cc = to_cc(c);
    if (!r) return CV_EINVAL;
    struct helper *h = &cc->helpers[r->rank];
    double t0 = now_s();
    bool waited = false;
    int rc = CV_OK;
    pthread_mutex_lock(&h->mu);
    struct timespec dl = wait_deadline_after(c->timeout_s);
    while (!r->done) {
        waited = true;
        if (pthread_cond_timedwait(&h->cv, &h->mu, &dl) == ETIMEDOUT && !r->done) {
            pthread_mutex_unlock(&h->mu);
            rc = fail(cc, CV_ETIMEOUT, "rank %d: %s still running after %.1f s", rank, r->label,
                      c->timeout_s);
            /* The helper still owns the request; the abort makes it finish quickly. */
            pthread_mutex_lock(&h->mu);
            dl = wait_deadline_after(c->timeout_s);
            while (!r->done)
                if (pthread_cond_timedwait(&h->cv, &h->mu, &dl) == ETIMEDOUT) break;
            bool done = r->done;
            pthread_mutex_unlock(&h->mu);
            if (done) free(r);
            return rc;
        }
    }
    pthread_mutex_unlock(&h->mu);
    double t1 = now_s();
    rc = r->status;
    if (waited && c->tl) {
        char lab[40];
        snprintf(lab, sizeof lab, "wait %.26s", r->label);
        timeline_add(c->tl, c->step[rank], rank, 0, TL_IDLE, lab, t0, t1);
    }
    free(r);
    return rc;
}

static void cpu_stats(struct comm *c, int rank, struct comm_stats *out)
{
    struct cpu_comm *cc = to_cc(c);
    memset(out, 0, sizeof *out);
    for (int l = 0; l < 2; l++) {
        const struct comm_stats *s = &cc->stats[rank][l];
        out->bytes_sent += s->bytes_sent;
        out->bytes_recv += s->bytes_recv;
        out->p2p_bytes += s->p2p_bytes;
        for (int k = 0; k < COLL_COUNT; k++)
            out->coll_bytes[k] += s->coll_bytes[k];
    }
}

static void cpu_reset_stats(struct comm *c, int rank)
{
    memset(to_cc(c)->stats[rank], 0, sizeof to_cc(c)->stats[rank]);
}

static size_t cpu_mem_bytes(struct comm *c, int rank)
{
    struct cpu_comm *cc = to_cc(c);
    size_t total = 0;
    for (int l = 0; l < 2; l++)
        total += cc->lanes[l].scratch_len[rank] * sizeof(float);
    /* A mailbox's buffers hold messages for its receiver. */
    for (int src = 0; src < c->nranks; src++) {
        struct mbox *mb = &cc->mbox[src * c->nranks + rank];
        pthread_mutex_lock(&mb->mu);
        total += mb->mem;
        pthread_mutex_unlock(&mb->mu);
    }
    return total;
}

static void cpu_destroy(struct comm *c)
{
    if (!c) return;
    struct cpu_comm *cc = to_cc(c);
    int w = c->nranks;
    for (int r = 0; r < w; r++) {
        struct helper *h = &cc->helpers[r];
        if (!h->started) continue;
        pthread_mutex_lock(&h->mu);
        h->stop = true;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->th, NULL);
        /* Requests never waited for (a rank that failed) are freed here. */
        struct comm_req *q = h->head;
        while (q) {
            struct comm_req *next = q->next;
            free(q);
            q = next;
        }
    }
    for (int r = 0; r < w; r++) {
        pthread_mutex_destroy(&cc->helpers[r].mu);
        pthread_cond_destroy(&cc->helpers[r].cv);
    }
    for (int i = 0; i < w * w; i++) {
        for (int k = 0; k < MBOX_SLOTS; k++)
            free(cc->mbox[i].q[k].data);
        pthread_mutex_destroy(&cc->mbox[i].mu);
        pthread_cond_destroy(&cc->mbox[i].cv);
    }
    free(cc->mbox);
    for (int l = 0; l < 2; l++) {
        for (int r = 0; r < w; r++)
            free(cc->lanes[l].scratch[r]);
        pthread_mutex_destroy(&cc->lanes[l].bar.mu);
        pthread_cond_destroy(&cc->lanes[l].bar.cv);
    }
    for (size_t i = 0; i < cc->nplans; i++) {
        plan_free(&cc->plans[i]->p);
        free(cc->plans[i]);
    }
    free(cc->plans);
    pthread_mutex_destroy(&cc->plan_mu);
    pthread_mutex_destroy(&cc->err_mu);
    free(cc);
}

static const struct comm_ops cpu_comm_ops = {
    .name = "cpu",
    .all_reduce = cpu_all_reduce,
    .all_gather = cpu_all_gather,
    .reduce_scatter = cpu_reduce_scatter,
    .send = cpu_send,
    .recv = cpu_recv,
    .barrier = cpu_barrier,
    .iall_reduce = cpu_iall_reduce,
    .wait = cpu_wait,
    .stats = cpu_stats,
    .reset_stats = cpu_reset_stats,
    .mem_bytes = cpu_mem_bytes,
    .abort = cpu_abort,
    .last_error = cpu_last_error,
    .destroy = cpu_destroy,
};

int comm_cpu_create(struct comm **out, int nranks, enum algo algo, bool async, double timeout_s,
                    struct timeline *tl, char *err, size_t errlen)
{
    *out = NULL;
    if (nranks < 1 || nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d out of range 1..%d", nranks,
                      CV_MAX_RANKS);
    if (timeout_s <= 0)
        return cv_err(err, errlen, CV_EINVAL, "timeout %g s must be positive", timeout_s);
    struct cpu_comm *cc = xcalloc(1, sizeof *cc);
    cc->pub.ops = &cpu_comm_ops;
    cc->pub.nranks = nranks;
    cc->pub.self = -1;
    cc->pub.timeout_s = timeout_s;
    cc->pub.tl = tl;
    cc->pub.priv = cc;
    cc->algo = algo;
    cc->async = async;
    atomic_init(&cc->aborted, 0);
    pthread_mutex_init(&cc->plan_mu, NULL);
    pthread_mutex_init(&cc->err_mu, NULL);
    for (int l = 0; l < 2; l++)
        bar_init(&cc->lanes[l].bar, nranks);
    cc->mbox = xcalloc((size_t)nranks * nranks, sizeof *cc->mbox);
    for (int i = 0; i < nranks * nranks; i++) {
        pthread_mutex_init(&cc->mbox[i].mu, NULL);
        wait_cond_init_monotonic(&cc->mbox[i].cv);
    }
    for (int r = 0; r < nranks; r++) {
        struct helper *h = &cc->helpers[r];
        h->cc = cc;
        h->rank = r;
        pthread_mutex_init(&h->mu, NULL);
        wait_cond_init_monotonic(&h->cv);
    }
    if (async) {
        for (int r = 0; r < nranks; r++) {
            struct helper *h = &cc->helpers[r];
            if (pthread_create(&h->th, NULL, helper_main, h) != 0) {
                cpu_destroy(&cc->pub);
                return cv_err(err, errlen, CV_EBACKEND, "cannot start communication helper %d",
                              r);
            }
            h->started = true;
        }
    }
    *out = &cc->pub;
    return CV_OK;
}
