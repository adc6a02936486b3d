/* proto.c - the job protocol's encoding (proto.h): a growing writer and a bounds-checked
 * reader, one encode/decode pair per message part, written field by field in the same
 * order on both sides. The reader stops at the first bad field and remembers its name. */
#include "proto.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/util.h"

static const char *const proto_names[PROTO_TYPE_END] = {
    [PROTO_HELLO] = "hello",   [PROTO_FACTS] = "facts",     [PROTO_JOB] = "job",
    [PROTO_CANCEL] = "cancel", [PROTO_RESULT] = "result",   [PROTO_SHUTDOWN] = "shutdown",
    [PROTO_LOST] = "lost",     [PROTO_REFUSED] = "refused",
};

const char *proto_type_name(int type)
{
    return type > 0 && type < PROTO_TYPE_END ? proto_names[type] : "?";
}

/* ---- writer ----------------------------------------------------------------------- */

struct wr {
    unsigned char *p;
    size_t n, cap;
    const char *bad; /* the first field that did not fit, or NULL */
};

static void wr_bytes(struct wr *w, const void *d, size_t n)
{
    if (w->n + n > w->cap) {
        while (w->n + n > w->cap)
            w->cap *= 2;
        w->p = xrealloc(w->p, w->cap);
    }
    memcpy(w->p + w->n, d, n);
    w->n += n;
}

static void wr_u8(struct wr *w, unsigned v)
{
    unsigned char b = (unsigned char)v;
    wr_bytes(w, &b, 1);
}

static void wr_u16(struct wr *w, unsigned v)
{
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    wr_bytes(w, b, 2);
}

static void wr_u32(struct wr *w, uint32_t v)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    wr_bytes(w, b, 4);
}

static void wr_u64(struct wr *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    wr_bytes(w, b, 8);
}

static void wr_i32(struct wr *w, int v)
{
    wr_u32(w, (uint32_t)v);
}

static void wr_i64(struct wr *w, long v)
{
    wr_u64(w, (uint64_t)(int64_t)v);
}

static void wr_f64(struct wr *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    wr_u64(w, u);
}

static void wr_f32(struct wr *w, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    wr_u32(w, u);
}

static void wr_bool(struct wr *w, bool v)
{
    wr_u8(w, v ? 1 : 0);
}

/* A string of a char[cap] field: its length must leave room for the NUL. */
static void wr_str(struct wr *w, const char *field, const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n >= cap || n > 0xffff) {
        if (!w->bad) w->bad = field;
        n = 0;
    }
    wr_u16(w, (unsigned)n);
    wr_bytes(w, s, n);
}

#define WR_STR(w, name, arr) wr_str(w, name, arr, sizeof(arr))

/* ---- reader ----------------------------------------------------------------------- */

struct rd {
    const unsigned char *p;
    size_t n, off;
    const char *bad;  /* the first bad field, or NULL */
    const char *what; /* why it is bad */
};

static bool rd_fail(struct rd *r, const char *field, const char *what)
{
    if (!r->bad) {
        r->bad = field;
        r->what = what;
    }
    return false;
}

static bool rd_take(struct rd *r, const char *field, size_t n, const unsigned char **out)
{
    if (r->bad) return false;
    if (n > r->n - r->off) return rd_fail(r, field, "truncated");
    *out = r->p + r->off;
    r->off += n;
    return true;
}

static uint64_t rd_uint(struct rd *r, const char *field, int bytes)
{
    const unsigned char *b;
    if (!rd_take(r, field, (size_t)bytes, &b)) return 0;
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

static int rd_int(struct rd *r, const char *field, long lo, long hi)
{
    int32_t v = (int32_t)(uint32_t)rd_uint(r, field, 4);
    if (v < lo || v > hi) {
        rd_fail(r, field, "out of range");
        return (int)lo;
    }
    return v;
}

static long rd_i64(struct rd *r, const char *field, long lo)
{
    int64_t v = (int64_t)rd_uint(r, field, 8);
    if (v < lo) {
        rd_fail(r, field, "out of range");
        return lo;
    }
    return (long)v;
}

static uint64_t rd_u64(struct rd *r, const char *field)
{
    return rd_uint(r, field, 8);
}

static size_t rd_size(struct rd *r, const char *field)
{
    uint64_t v = rd_uint(r, field, 8);
    if (v > SIZE_MAX / 2) {
        rd_fail(r, field, "out of range");
        return 0;
    }
    return (size_t)v;
}

static double rd_f64(struct rd *r, const char *field)
{
    uint64_t u = rd_uint(r, field, 8);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static float rd_f32(struct rd *r, const char *field)
{
    uint32_t u = (uint32_t)rd_uint(r, field, 4);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static bool rd_bool(struct rd *r, const char *field)
{
    uint64_t v = rd_uint(r, field, 1);
    if (v > 1) rd_fail(r, field, "not a boolean");
    return v == 1;
}

/* An enum value in 0..count-1. */
static int rd_enum(struct rd *r, const char *field, int count)
{
    return rd_int(r, field, 0, count - 1);
}

static void rd_str(struct rd *r, const char *field, char *dst, size_t cap)
{
    dst[0] = '\0';
    size_t n = (size_t)rd_uint(r, field, 2);
    if (r->bad) return;
    if (n >= cap) {
        rd_fail(r, field, "string too long");
        return;
    }
    const unsigned char *b;
    if (!rd_take(r, field, n, &b)) return;
    if (memchr(b, '\0', n)) {
        rd_fail(r, field, "NUL inside a string");
        return;
    }
    memcpy(dst, b, n);
    dst[n] = '\0';
}

#define RD_STR(r, name, arr) rd_str(r, name, arr, sizeof(arr))

/* ---- parts ------------------------------------------------------------------------ */

static void wr_params(struct wr *w, const struct bench_params *p)
{
    wr_i32(w, (int)p->coll);
    wr_i32(w, (int)p->algo);
    wr_bool(w, p->algo_auto);
    wr_i32(w, (int)p->op);
    wr_i32(w, p->nranks);
    wr_u64(w, p->bytes);
    wr_i32(w, p->root);
    wr_i32(w, p->iters);
    wr_i32(w, p->warmup);
    wr_bool(w, p->check);
    wr_f64(w, p->timeout_s);
    wr_i32(w, p->slices);
    wr_i32(w, p->channels);
    wr_bool(w, p->native);
    wr_bool(w, p->within_node);
}

static void rd_params(struct rd *r, struct bench_params *p)
{
    p->coll = (enum coll)rd_enum(r, "params.coll", COLL_COUNT);
    p->algo = (enum algo)rd_enum(r, "params.algo", ALGO_COUNT);
    p->algo_auto = rd_bool(r, "params.algo_auto");
    p->op = (enum redop)rd_enum(r, "params.op", OP_COUNT);
    p->nranks = rd_int(r, "params.nranks", 1, CV_MAX_RANKS);
    p->bytes = rd_size(r, "params.bytes");
    p->root = rd_int(r, "params.root", 0, CV_MAX_RANKS - 1);
    p->iters = rd_int(r, "params.iters", 0, 1000000);
    p->warmup = rd_int(r, "params.warmup", 0, 1000000);
    p->check = rd_bool(r, "params.check");
    p->timeout_s = rd_f64(r, "params.timeout_s");
    p->slices = rd_int(r, "params.slices", 0, 1 << 20);
    p->channels = rd_int(r, "params.channels", 0, 1024);
    p->native = rd_bool(r, "params.native");
    p->within_node = rd_bool(r, "params.within_node");
}

static void wr_row(struct wr *w, const struct bench_result *b)
{
    wr_u64(w, b->bytes);
    wr_u64(w, b->count);
    wr_f64(w, b->time_us);
    wr_f64(w, b->algbw);
    wr_f64(w, b->busbw);
    wr_i64(w, b->wrong);
    wr_i32(w, b->nranks);
    WR_STR(w, "row.algo", b->algo);
    WR_STR(w, "row.how", b->how);
    wr_i32(w, b->slices);
    wr_i32(w, b->channels);
    WR_STR(w, "row.link", b->link);
}

static void rd_row(struct rd *r, struct bench_result *b)
{
    b->bytes = rd_size(r, "row.bytes");
    b->count = rd_size(r, "row.count");
    b->time_us = rd_f64(r, "row.time_us");
    b->algbw = rd_f64(r, "row.algbw");
    b->busbw = rd_f64(r, "row.busbw");
    b->wrong = rd_i64(r, "row.wrong", -1);
    b->nranks = rd_int(r, "row.nranks", 0, CV_MAX_RANKS);
    RD_STR(r, "row.algo", b->algo);
    RD_STR(r, "row.how", b->how);
    b->slices = rd_int(r, "row.slices", 0, 1 << 20);
    b->channels = rd_int(r, "row.channels", 0, 1024);
    RD_STR(r, "row.link", b->link);
}

static void wr_train_cfg(struct wr *w, const struct train_config *c)
{
    wr_i32(w, (int)c->scheme);
    wr_i32(w, c->nranks);
    wr_i32(w, c->layers);
    wr_i32(w, c->dim);
    wr_i32(w, c->batch);
    wr_i32(w, c->steps);
    wr_i32(w, c->microbatches);
    wr_i32(w, (int)c->schedule);
    wr_bool(w, c->overlap);
    wr_u64(w, c->seed);
    wr_f64(w, c->timeout_s);
    wr_f32(w, c->adamw.lr);
    wr_f32(w, c->adamw.beta1);
    wr_f32(w, c->adamw.beta2);
    wr_f32(w, c->adamw.eps);
    wr_f32(w, c->adamw.weight_decay);
    wr_i32(w, (int)c->backend);
}

static void rd_train_cfg(struct rd *r, struct train_config *c)
{
    c->scheme = (enum train_scheme)rd_enum(r, "train.scheme", TRAIN_SCHEME_COUNT);
    c->nranks = rd_int(r, "train.nranks", 1, CV_MAX_RANKS);
    /* train_config_check() judges the sizes; here only what keeps them sane */
    c->layers = rd_int(r, "train.layers", 1, 1 << 16);
    c->dim = rd_int(r, "train.dim", 1, 1 << 20);
    c->batch = rd_int(r, "train.batch", 1, 1 << 20);
    c->steps = rd_int(r, "train.steps", 1, 1 << 20);
    c->microbatches = rd_int(r, "train.microbatches", 0, 1 << 16);
    c->schedule = (enum pp_schedule)rd_enum(r, "train.schedule", PP_SCHEDULE_COUNT);
    c->overlap = rd_bool(r, "train.overlap");
    c->seed = rd_u64(r, "train.seed");
    c->timeout_s = rd_f64(r, "train.timeout_s");
    c->adamw.lr = rd_f32(r, "train.lr");
    c->adamw.beta1 = rd_f32(r, "train.beta1");
    c->adamw.beta2 = rd_f32(r, "train.beta2");
    c->adamw.eps = rd_f32(r, "train.eps");
    c->adamw.weight_decay = rd_f32(r, "train.weight_decay");
    c->backend = (enum backend_kind)rd_enum(r, "train.backend", BACKEND_KIND_COUNT);
}

static void wr_mem(struct wr *w, const struct train_memory *m)
{
    wr_u64(w, m->params);
    wr_u64(w, m->grads);
    wr_u64(w, m->optimizer);
    wr_u64(w, m->activations);
    wr_u64(w, m->comm);
}

static void rd_mem(struct rd *r, struct train_memory *m)
{
    m->params = rd_size(r, "summary.mem");
    m->grads = rd_size(r, "summary.mem");
    m->optimizer = rd_size(r, "summary.mem");
    m->activations = rd_size(r, "summary.mem");
    m->comm = rd_size(r, "summary.mem");
}

static void wr_summary(struct wr *w, const struct train_summary *s)
{
    wr_train_cfg(w, &s->cfg);
    wr_i32(w, s->nranks);
    wr_i32(w, s->steps_done);
    for (int i = 0; i < TSUM_MAX_STEPS; i++) {
        wr_f64(w, s->loss[i]);
        wr_f64(w, s->ref_loss[i]);
        wr_f64(w, s->time_s[i]);
        wr_f64(w, s->comm_s[i]);
        wr_f64(w, s->comm_async_s[i]);
        wr_u64(w, s->comm_bytes[i]);
        wr_f64(w, s->ref_time_s[i]);
    }
    wr_f64(w, s->dev.loss_rel);
    wr_i32(w, s->dev.loss_step);
    wr_f64(w, s->dev.param_abs);
    wr_bool(w, s->dev.within);
    wr_f64(w, s->dev.tol_loss_rel);
    wr_f64(w, s->dev.tol_param_abs);
    wr_f64(w, s->replica_max_diff);
    const struct train_napkin *k = &s->napkin;
    wr_u64(w, k->tp_model_elems);
    wr_u64(w, k->ddp_model_elems);
    wr_u64(w, k->all_gather_elems);
    wr_u64(w, k->reduce_scatter_elems);
    wr_u64(w, k->all_reduce_elems);
    wr_u64(w, k->wire_model_bytes);
    wr_u64(w, k->wire_bytes);
    wr_f64(w, s->bubble_measured);
    wr_f64(w, s->bubble_model);
    for (int i = 0; i < CV_MAX_RANKS; i++)
        wr_mem(w, &s->mem[i]);
    wr_mem(w, &s->ref_mem);
    wr_i32(w, s->ev_step);
    int nev = s->nevents < 0 ? 0 : s->nevents > TSUM_MAX_EVENTS ? TSUM_MAX_EVENTS : s->nevents;
    wr_i32(w, nev);
    wr_bool(w, s->events_truncated);
    for (int i = 0; i < nev; i++) {
        const struct tl_event *e = &s->events[i];
        wr_i32(w, e->step);
        wr_i32(w, e->rank);
        wr_i32(w, e->lane);
        wr_i32(w, (int)e->kind);
        wr_i32(w, e->peer);
        wr_i32(w, e->mb);
        wr_i32(w, e->tag);
        wr_f64(w, e->t0);
        wr_f64(w, e->t1);
        wr_u64(w, e->bytes);
        WR_STR(w, "event.label", e->label);
    }
    WR_STR(w, "summary.desc", s->desc);
    wr_f64(w, s->wall_s);
}

static void rd_summary(struct rd *r, struct train_summary *s)
{
    rd_train_cfg(r, &s->cfg);
    s->nranks = rd_int(r, "summary.nranks", 0, CV_MAX_RANKS);
    s->steps_done = rd_int(r, "summary.steps_done", 0, TSUM_MAX_STEPS);
    for (int i = 0; i < TSUM_MAX_STEPS; i++) {
        s->loss[i] = rd_f64(r, "summary.loss");
        s->ref_loss[i] = rd_f64(r, "summary.ref_loss");
        s->time_s[i] = rd_f64(r, "summary.time_s");
        s->comm_s[i] = rd_f64(r, "summary.comm_s");
        s->comm_async_s[i] = rd_f64(r, "summary.comm_async_s");
        s->comm_bytes[i] = rd_size(r, "summary.comm_bytes");
        s->ref_time_s[i] = rd_f64(r, "summary.ref_time_s");
    }
    s->dev.loss_rel = rd_f64(r, "summary.dev.loss_rel");
    s->dev.loss_step = rd_int(r, "summary.dev.loss_step", -1, TSUM_MAX_STEPS);
    s->dev.param_abs = rd_f64(r, "summary.dev.param_abs");
    s->dev.within = rd_bool(r, "summary.dev.within");
    s->dev.tol_loss_rel = rd_f64(r, "summary.dev.tol_loss_rel");
    s->dev.tol_param_abs = rd_f64(r, "summary.dev.tol_param_abs");
    s->replica_max_diff = rd_f64(r, "summary.replica_max_diff");
    struct train_napkin *k = &s->napkin;
    k->tp_model_elems = rd_size(r, "napkin");
    k->ddp_model_elems = rd_size(r, "napkin");
    k->all_gather_elems = rd_size(r, "napkin");
    k->reduce_scatter_elems = rd_size(r, "napkin");
    k->all_reduce_elems = rd_size(r, "napkin");
    k->wire_model_bytes = rd_size(r, "napkin");
    k->wire_bytes = rd_size(r, "napkin");
    s->bubble_measured = rd_f64(r, "summary.bubble_measured");
    s->bubble_model = rd_f64(r, "summary.bubble_model");
    for (int i = 0; i < CV_MAX_RANKS; i++)
        rd_mem(r, &s->mem[i]);
    rd_mem(r, &s->ref_mem);
    s->ev_step = rd_int(r, "summary.ev_step", -1, 1 << 20);
    s->nevents = rd_int(r, "summary.nevents", 0, TSUM_MAX_EVENTS);
    s->events_truncated = rd_bool(r, "summary.events_truncated");
    for (int i = 0; i < s->nevents && !r->bad; i++) {
        struct tl_event *e = &s->events[i];
        e->step = rd_int(r, "event.step", 0, 1 << 20);
        e->rank = rd_int(r, "event.rank", 0, CV_MAX_RANKS - 1);
        e->lane = rd_int(r, "event.lane", 0, 1);
        e->kind = (enum tl_kind)rd_enum(r, "event.kind", TL_KIND_COUNT);
        e->peer = rd_int(r, "event.peer", -1, CV_MAX_RANKS - 1);
        e->mb = rd_int(r, "event.mb", -1, 1 << 16);
        e->tag = rd_int(r, "event.tag", -1, 0x7fffffff);
        e->t0 = rd_f64(r, "event.t0");
        e->t1 = rd_f64(r, "event.t1");
        e->bytes = rd_size(r, "event.bytes");
        RD_STR(r, "event.label", e->label);
    }
    RD_STR(r, "summary.desc", s->desc);
    s->wall_s = rd_f64(r, "summary.wall_s");
}

static void wr_job(struct wr *w, const struct job *j)
{
    wr_i32(w, (int)j->kind);
    wr_u64(w, j->id);
    switch (j->kind) {
    case JOB_MEASURE:
        wr_params(w, &j->measure.params);
        break;
    case JOB_SWEEP:
        wr_params(w, &j->sweep.params);
        wr_u64(w, j->sweep.min);
        wr_u64(w, j->sweep.max);
        wr_f64(w, j->sweep.factor);
        break;
    case JOB_CHECK: {
        const struct job_check *c = &j->check;
        wr_i32(w, (int)c->coll);
        wr_i32(w, (int)c->algo);
        wr_i32(w, (int)c->op);
        wr_i32(w, c->nranks);
        wr_u64(w, c->count);
        wr_i32(w, c->root);
        wr_i32(w, (int)c->init);
        wr_u64(w, c->seed);
        break;
    }
    case JOB_TRAIN:
        wr_train_cfg(w, &j->train.cfg);
        break;
    case JOB_MEMCPY:
        wr_u64(w, j->copy.bytes);
        wr_i32(w, j->copy.reps);
        break;
    default:
        if (!w->bad) w->bad = "job.kind";
    }
}

#define JOB_KIND_COUNT (JOB_MEMCPY + 1)
#define CHECK_COUNT_MAX (1u << 20) /* display scale: elements per rank */

static void rd_job(struct rd *r, struct job *j)
{
    memset(j, 0, sizeof *j);
    j->kind = (enum job_kind)rd_enum(r, "job.kind", JOB_KIND_COUNT);
    j->id = rd_u64(r, "job.id");
    if (r->bad) return;
    switch (j->kind) {
    case JOB_MEASURE:
        rd_params(r, &j->measure.params);
        break;
    case JOB_SWEEP:
        rd_params(r, &j->sweep.params);
        j->sweep.min = rd_size(r, "sweep.min");
        j->sweep.max = rd_size(r, "sweep.max");
        j->sweep.factor = rd_f64(r, "sweep.factor");
        break;
    case JOB_CHECK: {
        struct job_check *c = &j->check;
        c->coll = (enum coll)rd_enum(r, "check.coll", COLL_COUNT);
        c->algo = (enum algo)rd_enum(r, "check.algo", ALGO_COUNT);
        c->op = (enum redop)rd_enum(r, "check.op", OP_COUNT);
        c->nranks = rd_int(r, "check.nranks", 1, CV_MAX_RANKS);
        c->count = rd_size(r, "check.count");
        if (!r->bad && (c->count < 1 || c->count > CHECK_COUNT_MAX))
            rd_fail(r, "check.count", "out of range");
        c->root = rd_int(r, "check.root", 0, CV_MAX_RANKS - 1);
        c->init = (enum init_kind)rd_enum(r, "check.init", INIT_RANDOM + 1);
        c->seed = rd_u64(r, "check.seed");
        break;
    }
    case JOB_TRAIN:
        rd_train_cfg(r, &j->train.cfg);
        break;
    case JOB_MEMCPY:
        j->copy.bytes = rd_size(r, "memcpy.bytes");
        j->copy.reps = rd_int(r, "memcpy.reps", 0, 1000);
        break;
    }
}

static void wr_result(struct wr *w, const struct result *res)
{
    wr_u64(w, res->job_id);
    wr_i32(w, (int)res->kind);
    wr_i32(w, res->status);
    WR_STR(w, "result.err", res->err);
    wr_bool(w, res->last);
    WR_STR(w, "result.backend", res->backend);
    switch (res->kind) {
    case JOB_MEASURE:
        wr_row(w, &res->measure);
        break;
    case JOB_SWEEP:
        wr_row(w, &res->sweep.row);
        wr_i32(w, res->sweep.total); /* total first: index's range depends on it */
        wr_i32(w, res->sweep.index);
        break;
    case JOB_CHECK:
        wr_i64(w, res->check.mismatches);
        wr_i64(w, res->check.inexact);
        break;
    case JOB_TRAIN:
        wr_bool(w, res->train.summary != NULL);
        if (res->train.summary) wr_summary(w, res->train.summary);
        break;
    case JOB_MEMCPY:
        wr_u64(w, res->copy.bytes);
        wr_i32(w, res->copy.reps);
        wr_f64(w, res->copy.best_s);
        wr_f64(w, res->copy.gbs);
        WR_STR(w, "memcpy.how", res->copy.how);
        break;
    default:
        if (!w->bad) w->bad = "result.kind";
    }
}

static void rd_result(struct rd *r, struct result *res)
{
    memset(res, 0, sizeof *res);
    res->job_id = rd_u64(r, "result.job_id");
    res->kind = (enum job_kind)rd_enum(r, "result.kind", JOB_KIND_COUNT);
    res->status = rd_int(r, "result.status", CV_OK, CV_ECANCELLED);
    RD_STR(r, "result.err", res->err);
    res->last = rd_bool(r, "result.last");
    RD_STR(r, "result.backend", res->backend);
    if (r->bad) return;
    switch (res->kind) {
    case JOB_MEASURE:
        rd_row(r, &res->measure);
        break;
    case JOB_SWEEP:
        rd_row(r, &res->sweep.row);
        res->sweep.total = rd_int(r, "sweep.total", 1, 1 << 16);
        res->sweep.index = rd_int(r, "sweep.index", 0, res->sweep.total - 1);
        break;
    case JOB_CHECK:
        res->check.mismatches = rd_i64(r, "check.mismatches", 0);
        res->check.inexact = rd_i64(r, "check.inexact", 0);
        break;
    case JOB_TRAIN:
        if (rd_bool(r, "train.present") && !r->bad) {
            res->train.summary = xcalloc(1, sizeof *res->train.summary);
            rd_summary(r, res->train.summary);
        }
        break;
    case JOB_MEMCPY:
        res->copy.bytes = rd_size(r, "memcpy.bytes");
        res->copy.reps = rd_int(r, "memcpy.reps", 0, 1000);
        res->copy.best_s = rd_f64(r, "memcpy.best_s");
        res->copy.gbs = rd_f64(r, "memcpy.gbs");
        RD_STR(r, "memcpy.how", res->copy.how);
        break;
    }
}

static void wr_facts(struct wr *w, const struct backend_facts *f)
{
    WR_STR(w, "facts.name", f->name);
    wr_i32(w, f->kind);
    wr_u32(w, f->caps);
    wr_i32(w, f->max_ranks);
    wr_bool(w, f->multiprocess);
    int m = f->max_ranks < 0 ? 0 : f->max_ranks > CV_MAX_RANKS ? CV_MAX_RANKS : f->max_ranks;
    for (int n = 1; n <= m; n++)
        WR_STR(w, "facts.desc", f->desc[n]);
    for (int k = 0; k < m; k++)
        WR_STR(w, "facts.label", f->label[k]);
    wr_bool(w, f->have_nccl_info);
    WR_STR(w, "facts.nccl_text", f->nccl_text);
    WR_STR(w, "facts.nccl_algo", f->nccl_algo);
    WR_STR(w, "facts.nccl_proto", f->nccl_proto);
    WR_STR(w, "facts.where", f->where);
}

#define FACTS_KIND_MAX 64 /* kinds beyond this build's are shown, not interpreted */

static void rd_facts(struct rd *r, struct backend_facts *f)
{
    memset(f, 0, sizeof *f);
    RD_STR(r, "facts.name", f->name);
    f->kind = rd_int(r, "facts.kind", 0, FACTS_KIND_MAX);
    f->caps = (unsigned)rd_uint(r, "facts.caps", 4);
    f->max_ranks = rd_int(r, "facts.max_ranks", 1, CV_MAX_RANKS);
    f->multiprocess = rd_bool(r, "facts.multiprocess");
    for (int n = 1; n <= f->max_ranks && !r->bad; n++)
        RD_STR(r, "facts.desc", f->desc[n]);
    for (int k = 0; k < f->max_ranks && !r->bad; k++)
        RD_STR(r, "facts.label", f->label[k]);
    f->have_nccl_info = rd_bool(r, "facts.have_nccl_info");
    RD_STR(r, "facts.nccl_text", f->nccl_text);
    RD_STR(r, "facts.nccl_algo", f->nccl_algo);
    RD_STR(r, "facts.nccl_proto", f->nccl_proto);
    RD_STR(r, "facts.where", f->where);
}

/* ---- frames ----------------------------------------------------------------------- */

int proto_encode(const struct proto_msg *m, unsigned char **out, size_t *len, char *err,
                 size_t errlen)
{
    *out = NULL;
    *len = 0;
    if (m->type <= 0 || m->type >= PROTO_TYPE_END)
        return cv_err(err, errlen, CV_EINVAL, "proto: cannot encode message type %d",
                      (int)m->type);
    struct wr w = {.p = xmalloc(4096), .cap = 4096};
    wr_bytes(&w, PROTO_MAGIC, 4);
    wr_u16(&w, PROTO_VERSION);
    wr_u16(&w, (unsigned)m->type);
    wr_u32(&w, 0); /* the length, filled in below */
    switch (m->type) {
    case PROTO_HELLO:
        WR_STR(&w, "hello.token", m->hello.token);
        break;
    case PROTO_FACTS:
        wr_facts(&w, &m->facts);
        break;
    case PROTO_JOB:
        wr_job(&w, &m->job);
        break;
    case PROTO_RESULT:
        wr_result(&w, &m->result);
        break;
    case PROTO_LOST:
    case PROTO_REFUSED:
        wr_i32(&w, m->lost.rank);
        WR_STR(&w, "lost.why", m->lost.why);
        break;
    case PROTO_CANCEL:
    case PROTO_SHUTDOWN:
    default:
        break;
    }
    size_t payload = w.n - PROTO_HDR;
    if (w.bad || payload > PROTO_PAYLOAD_MAX) {
        int rc = cv_err(err, errlen, CV_EINVAL, "proto: cannot encode %s: %s",
                        proto_type_name(m->type), w.bad ? w.bad : "payload too large");
        free(w.p);
        return rc;
    }
    for (int i = 0; i < 4; i++)
        w.p[8 + i] = (unsigned char)(payload >> (8 * i));
    *out = w.p;
    *len = w.n;
    return CV_OK;
}

int proto_header(const unsigned char *h, uint32_t *payload_len, char *err, size_t errlen)
{
    if (memcmp(h, PROTO_MAGIC, 4) != 0)
        return cv_err(err, errlen, CV_EINVAL, "proto: bad magic (not a collviz job stream)");
    unsigned version = h[4] | (unsigned)h[5] << 8;
    if (version != PROTO_VERSION)
        return cv_err(err, errlen, CV_EINVAL,
                      "proto: version %u, this collviz speaks version %d", version,
                      PROTO_VERSION);
    unsigned type = h[6] | (unsigned)h[7] << 8;
    if (type == 0 || type >= PROTO_TYPE_END)
        return cv_err(err, errlen, CV_EINVAL, "proto: unknown message type %u", type);
    uint32_t n =
        (uint32_t)h[8] | (uint32_t)h[9] << 8 | (uint32_t)h[10] << 16 | (uint32_t)h[11] << 24;
    if (n > PROTO_PAYLOAD_MAX)
        return cv_err(err, errlen, CV_EINVAL, "proto: payload of %u bytes (at most %d)",
                      (unsigned)n, PROTO_PAYLOAD_MAX);
    *payload_len = n;
    return CV_OK;
}

int proto_decode(const unsigned char *frame, size_t len, struct proto_msg *m, char *err,
                 size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (len < PROTO_HDR)
        return cv_err(err, errlen, CV_EINVAL, "proto: truncated header (%zu bytes)", len);
    uint32_t n;
    int rc = proto_header(frame, &n, err, errlen);
    if (rc != CV_OK) return rc;
    if ((size_t)n != len - PROTO_HDR)
        return cv_err(err, errlen, CV_EINVAL,
                      "proto: payload length %u but %zu bytes follow the header", (unsigned)n,
                      len - PROTO_HDR);
    m->type = (enum proto_type)(frame[6] | frame[7] << 8);
    struct rd r = {.p = frame + PROTO_HDR, .n = n};
    switch (m->type) {
    case PROTO_HELLO:
        RD_STR(&r, "hello.token", m->hello.token);
        break;
    case PROTO_FACTS:
        rd_facts(&r, &m->facts);
        break;
    case PROTO_JOB:
        rd_job(&r, &m->job);
        break;
    case PROTO_RESULT:
        rd_result(&r, &m->result);
        break;
    case PROTO_LOST:
    case PROTO_REFUSED:
        m->lost.rank = rd_int(&r, "lost.rank", -1, CV_MAX_RANKS * 64);
        RD_STR(&r, "lost.why", m->lost.why);
        break;
    default:
        break;
    }
    if (!r.bad && r.off != r.n) rd_fail(&r, "payload", "trailing bytes");
    if (r.bad) {
        rc = cv_err(err, errlen, CV_EINVAL, "proto: malformed %s message: %s: %s",
                    proto_type_name(m->type), r.bad, r.what);
        proto_msg_free(m);
        return rc;
    }
    return CV_OK;
}

void proto_msg_free(struct proto_msg *m)
{
    if (m->type == PROTO_RESULT) result_free(&m->result);
}

/* ---- sockets ---------------------------------------------------------------------- */

int proto_send(int fd, const struct proto_msg *m, char *err, size_t errlen)
{
    unsigned char *f;
    size_t len;
    int rc = proto_encode(m, &f, &len, err, errlen);
    if (rc != CV_OK) return rc;
    size_t off = 0;
    while (off < len) {
        ssize_t w = send(fd, f + off, len - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            poll(&p, 1, 1000);
            continue;
        }
        if (w <= 0) {
            rc = cv_err(err, errlen, CV_EUNAVAIL, "proto: the peer is gone (%s)",
                        w < 0 ? strerror(errno) : "closed");
            break;
        }
        off += (size_t)w;
    }
    free(f);
    return rc;
}

/* Read exactly n bytes; the deadline applies once `started`. */
static int proto_read_all(int fd, unsigned char *buf, size_t n, double deadline, bool *started,
                          char *err, size_t errlen)
{
    size_t off = 0;
    while (off < n) {
        int ms = -1;
        if (*started && deadline > 0) {
            double left = deadline - now_s();
            if (left <= 0)
                return cv_err(err, errlen, CV_ETIMEOUT,
                              "proto: a message stopped arriving half way (timeout)");
            ms = (int)(left * 1000) + 1;
        }
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int pr = poll(&p, 1, ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue; /* the deadline check above ends it */
        ssize_t r = recv(fd, buf + off, n - off, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
        if (r <= 0) {
            if (off == 0 && !*started)
                return cv_err(err, errlen, CV_EUNAVAIL,
                              "proto: the peer closed the connection");
            return cv_err(err, errlen, r == 0 ? CV_EINVAL : CV_EUNAVAIL,
                          "proto: truncated message (%s)", r == 0 ? "closed" : strerror(errno));
        }
        if (!*started) {
            *started = true;
        }
        off += (size_t)r;
    }
    return CV_OK;
}

int proto_recv(int fd, struct proto_msg *m, double timeout_s, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    unsigned char h[PROTO_HDR];
    bool started = false;
    double deadline = 0;
    /* the clock starts with the first byte: waiting for a message is not a fault */
    int rc = proto_read_all(fd, h, 1, 0, &started, err, errlen);
    if (rc != CV_OK) return rc;
    if (timeout_s >= 0) deadline = now_s() + (timeout_s > 0 ? timeout_s : 1e-3);
    rc = proto_read_all(fd, h + 1, PROTO_HDR - 1, deadline, &started, err, errlen);
    if (rc != CV_OK) return rc;
    uint32_t n;
    rc = proto_header(h, &n, err, errlen);
    if (rc != CV_OK) return rc;
    unsigned char *f = xmalloc(PROTO_HDR + (size_t)n);
    memcpy(f, h, PROTO_HDR);
    rc = proto_read_all(fd, f + PROTO_HDR, n, deadline, &started, err, errlen);
    if (rc == CV_OK) rc = proto_decode(f, PROTO_HDR + (size_t)n, m, err, errlen);
    free(f);
    return rc;
}
