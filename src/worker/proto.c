/* proto.c - the job protocol's encoding (proto.h): a growing writer and a bounds-checked
 * reader, one encode/decode pair per message part, written field by field in the same
 * order on both sides. The reader stops at the first bad field and remembers its name. */
#include "worker/proto.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/util.h"
#include "core/vec.h"

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
    VEC_GROW(w->p, w->cap, w->n + n);
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

/* A number a job computes with (a timeout, a learning rate, a factor): NaN and infinities
 * would pass every range check after them (NaN compares false), so they end the decode. */
static double rd_fin64(struct rd *r, const char *field)
{
    double d = rd_f64(r, field);
    if (!r->bad && !isfinite(d)) {
        rd_fail(r, field, "not a finite number");
        return 0;
    }
    return d;
}

static float rd_fin32(struct rd *r, const char *field)
{
    float f = rd_f32(r, field);
    if (!r->bad && !isfinite(f)) {
        rd_fail(r, field, "not a finite number");
        return 0;
    }
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

/* Each part of a message is one field list, X(KIND, field, a, b), expanded into both its
 * writer and its reader, so the two cannot drift apart: a field added to a list is written
 * and read at the same place, in the same order. The kinds, and what a and b mean:
 *   INT  an int in [a, b]      ENUM  an enum of type a with b values
 *   BOOL, SIZE (a size_t), U64, F64, F32
 *   FIN64, FIN32  an F64 or F32 that must be finite (what a job computes with)
 *   I64  a long of at least a  STR   a char array (its size is the array's)
 * A reader names a bad field PART "." #field in its error. */
#define PW_INT(f, a, b) wr_i32(w, s->f);
#define PW_ENUM(f, a, b) wr_i32(w, (int)s->f);
#define PW_BOOL(f, a, b) wr_bool(w, s->f);
#define PW_SIZE(f, a, b) wr_u64(w, s->f);
#define PW_U64(f, a, b) wr_u64(w, s->f);
#define PW_I64(f, a, b) wr_i64(w, s->f);
#define PW_F64(f, a, b) wr_f64(w, s->f);
#define PW_F32(f, a, b) wr_f32(w, s->f);
#define PW_FIN64(f, a, b) wr_f64(w, s->f);
#define PW_FIN32(f, a, b) wr_f32(w, s->f);
#define PW_STR(f, a, b) WR_STR(w, PART "." #f, s->f);
#define PR_INT(f, lo, hi) s->f = rd_int(r, PART "." #f, lo, hi);
#define PR_ENUM(f, type, count) s->f = (type)rd_enum(r, PART "." #f, count);
#define PR_BOOL(f, a, b) s->f = rd_bool(r, PART "." #f);
#define PR_SIZE(f, a, b) s->f = rd_size(r, PART "." #f);
#define PR_U64(f, a, b) s->f = rd_u64(r, PART "." #f);
#define PR_I64(f, lo, b) s->f = rd_i64(r, PART "." #f, lo);
#define PR_F64(f, a, b) s->f = rd_f64(r, PART "." #f);
#define PR_F32(f, a, b) s->f = rd_f32(r, PART "." #f);
#define PR_FIN64(f, a, b) s->f = rd_fin64(r, PART "." #f);
#define PR_FIN32(f, a, b) s->f = rd_fin32(r, PART "." #f);
#define PR_STR(f, a, b) RD_STR(r, PART "." #f, s->f);
#define PW(kind, f, a, b) PW_##kind(f, a, b)
#define PR(kind, f, a, b) PR_##kind(f, a, b)
/* wr_NAME and rd_NAME of one field list (PART names the part while it is expanded). The
 * declaration at its end takes the ';' after each use, so a use reads as one statement. */
#define PROTO_PART(name, type, FIELDS)                                                         \
    static void wr_##name(struct wr *w, const type *s)                                         \
    {                                                                                          \
        FIELDS(PW)                                                                             \
    }                                                                                          \
    static void rd_##name(struct rd *r, type *s)                                               \
    {                                                                                          \
        FIELDS(PR)                                                                             \
    }                                                                                          \
    extern int proto_part_##name##_unused

#define PARAMS_FIELDS(X)                                                                       \
    X(ENUM, coll, enum coll, COLL_COUNT)                                                       \
    X(ENUM, algo, enum algo, ALGO_COUNT)                                                       \
    X(BOOL, algo_auto, 0, 0)                                                                   \
    X(ENUM, op, enum redop, OP_COUNT)                                                          \
    X(INT, nranks, 1, CV_MAX_RANKS)                                                            \
    X(SIZE, bytes, 0, 0)                                                                       \
    X(INT, root, 0, CV_MAX_RANKS - 1)                                                          \
    X(INT, iters, 0, 1000000)                                                                  \
    X(INT, warmup, 0, 1000000)                                                                 \
    X(BOOL, check, 0, 0)                                                                       \
    X(FIN64, timeout_s, 0, 0)                                                                  \
    X(INT, slices, 0, 1 << 20)                                                                 \
    X(INT, channels, 0, 1024)                                                                  \
    X(BOOL, native, 0, 0)                                                                      \
    X(BOOL, within_node, 0, 0)
#define PART "params"
PROTO_PART(params, struct bench_params, PARAMS_FIELDS);
#undef PART

#define ROW_FIELDS(X)                                                                          \
    X(SIZE, bytes, 0, 0)                                                                       \
    X(SIZE, count, 0, 0)                                                                       \
    X(F64, time_us, 0, 0)                                                                      \
    X(F64, algbw, 0, 0)                                                                        \
    X(F64, busbw, 0, 0)                                                                        \
    X(I64, wrong, -1, 0)                                                                       \
    X(INT, nranks, 0, CV_MAX_RANKS)                                                            \
    X(STR, algo, 0, 0)                                                                         \
    X(STR, how, 0, 0)                                                                          \
    X(INT, slices, 0, 1 << 20)                                                                 \
    X(INT, channels, 0, 1024)                                                                  \
    X(STR, link, 0, 0)
#define PART "row"
PROTO_PART(row, struct bench_result, ROW_FIELDS);
#undef PART

/* train_config_check() judges the sizes; the ranges here only keep them sane. */
#define TRAIN_CFG_FIELDS(X)                                                                    \
    X(ENUM, scheme, enum train_scheme, TRAIN_SCHEME_COUNT)                                     \
    X(INT, nranks, 1, CV_MAX_RANKS)                                                            \
    X(INT, layers, 1, 1 << 16)                                                                 \
    X(INT, dim, 1, 1 << 20)                                                                    \
    X(INT, batch, 1, 1 << 20)                                                                  \
    X(INT, steps, 1, 1 << 20)                                                                  \
    X(INT, microbatches, 0, 1 << 16)                                                           \
    X(ENUM, schedule, enum pp_schedule, PP_SCHEDULE_COUNT)                                     \
    X(BOOL, overlap, 0, 0)                                                                     \
    X(BOOL, prefetch, 0, 0)                                                                    \
    X(U64, seed, 0, 0)                                                                         \
    X(FIN64, timeout_s, 0, 0)                                                                  \
    X(FIN32, adamw.lr, 0, 0)                                                                   \
    X(FIN32, adamw.beta1, 0, 0)                                                                \
    X(FIN32, adamw.beta2, 0, 0)                                                                \
    X(FIN32, adamw.eps, 0, 0)                                                                  \
    X(FIN32, adamw.weight_decay, 0, 0)                                                         \
    X(ENUM, backend, enum backend_kind, BACKEND_KIND_COUNT)                                    \
    X(INT, experts, 0, 256)                                                                    \
    X(INT, topk, 0, 256)                                                                       \
    X(FIN64, capacity, 0, 0)                                                                   \
    X(INT, moe_groups, 0, CV_MAX_RANKS)
#define PART "train"
PROTO_PART(train_cfg, struct train_config, TRAIN_CFG_FIELDS);
#undef PART

#define MEM_FIELDS(X)                                                                          \
    X(SIZE, params, 0, 0)                                                                      \
    X(SIZE, grads, 0, 0)                                                                       \
    X(SIZE, optimizer, 0, 0)                                                                   \
    X(SIZE, activations, 0, 0)                                                                 \
    X(SIZE, comm, 0, 0)
#define PART "summary.mem"
PROTO_PART(mem, struct train_memory, MEM_FIELDS);
#undef PART

#define DEVIATION_FIELDS(X)                                                                    \
    X(F64, loss_rel, 0, 0)                                                                     \
    X(INT, loss_step, -1, TSUM_MAX_STEPS)                                                      \
    X(F64, param_abs, 0, 0)                                                                    \
    X(BOOL, within, 0, 0)                                                                      \
    X(F64, tol_loss_rel, 0, 0)                                                                 \
    X(F64, tol_param_abs, 0, 0)                                                                \
    X(SIZE, moe_routing_diff, 0, 0)
#define PART "summary.dev"
PROTO_PART(deviation, struct train_deviation, DEVIATION_FIELDS);
#undef PART

#define NAPKIN_FIELDS(X)                                                                       \
    X(SIZE, tp_model_elems, 0, 0)                                                              \
    X(SIZE, ddp_model_elems, 0, 0)                                                             \
    X(SIZE, all_gather_elems, 0, 0)                                                            \
    X(SIZE, reduce_scatter_elems, 0, 0)                                                        \
    X(SIZE, all_reduce_elems, 0, 0)                                                            \
    X(SIZE, wire_model_bytes, 0, 0)                                                            \
    X(SIZE, wire_bytes, 0, 0)
#define PART "napkin"
PROTO_PART(napkin, struct train_napkin, NAPKIN_FIELDS);
#undef PART

#define EVENT_FIELDS(X)                                                                        \
    X(INT, step, 0, 1 << 20)                                                                   \
    X(INT, rank, 0, CV_MAX_RANKS - 1)                                                          \
    X(INT, lane, 0, 1)                                                                         \
    X(ENUM, kind, enum tl_kind, TL_KIND_COUNT)                                                 \
    X(INT, peer, -1, CV_MAX_RANKS - 1)                                                         \
    X(INT, mb, -1, 1 << 16)                                                                    \
    X(INT, tag, -1, 0x7fffffff)                                                                \
    X(F64, t0, 0, 0)                                                                           \
    X(F64, t1, 0, 0)                                                                           \
    X(SIZE, bytes, 0, 0)                                                                       \
    X(STR, label, 0, 0)
#define PART "event"
PROTO_PART(event, struct tl_event, EVENT_FIELDS);
#undef PART

#define CHECK_FIELDS(X)                                                                        \
    X(ENUM, coll, enum coll, COLL_COUNT)                                                       \
    X(ENUM, algo, enum algo, ALGO_COUNT)                                                       \
    X(ENUM, op, enum redop, OP_COUNT)                                                          \
    X(INT, nranks, 1, CV_MAX_RANKS)                                                            \
    X(SIZE, count, 0, 0)                                                                       \
    X(INT, root, 0, CV_MAX_RANKS - 1)                                                          \
    X(ENUM, init, enum init_kind, INIT_RANDOM + 1)                                             \
    X(U64, seed, 0, 0)
#define PART "check"
PROTO_PART(check, struct job_check, CHECK_FIELDS);
#undef PART

#define MEMCPY_JOB_FIELDS(X)                                                                   \
    X(SIZE, bytes, 0, 0)                                                                       \
    X(INT, reps, 0, 1000)
#define MEMCPY_RESULT_FIELDS(X)                                                                \
    MEMCPY_JOB_FIELDS(X)                                                                       \
    X(F64, best_s, 0, 0)                                                                       \
    X(F64, gbs, 0, 0)                                                                          \
    X(STR, how, 0, 0)
#define PART "memcpy"
PROTO_PART(memcpy_job, struct job_memcpy, MEMCPY_JOB_FIELDS);
PROTO_PART(memcpy_result, struct memcpy_result, MEMCPY_RESULT_FIELDS);
#undef PART

/* A training run's summary: its figures in one list, the per-step arrays (the i-th entry
 * of each), the ranks' memory and the events around them. */
#define SUMMARY_HEAD_FIELDS(X)                                                                 \
    X(INT, nranks, 0, CV_MAX_RANKS)                                                            \
    X(INT, steps_done, 0, TSUM_MAX_STEPS)
#define SUMMARY_STEP_FIELDS(X)                                                                 \
    X(F64, loss[i], 0, 0)                                                                      \
    X(F64, ref_loss[i], 0, 0)                                                                  \
    X(F64, time_s[i], 0, 0)                                                                    \
    X(F64, comm_s[i], 0, 0)                                                                    \
    X(F64, comm_async_s[i], 0, 0)                                                              \
    X(SIZE, comm_bytes[i], 0, 0)                                                               \
    X(F64, ref_time_s[i], 0, 0)
#define SUMMARY_MID_FIELDS(X) X(F64, replica_max_diff, 0, 0)
#define SUMMARY_BUBBLE_FIELDS(X)                                                               \
    X(F64, bubble_measured, 0, 0)                                                              \
    X(F64, bubble_model, 0, 0)                                                                 \
    X(INT, moe.capacity, 0, 1 << 30)                                                           \
    X(SIZE, moe.dropped, 0, 0)                                                                 \
    X(SIZE, moe.dispatch_bytes, 0, 0)                                                          \
    X(SIZE, moe.combine_bytes, 0, 0)                                                           \
    X(F64, moe.dispatch_busbw, 0, 0)                                                           \
    X(F64, moe.combine_busbw, 0, 0)
#define SUMMARY_TAIL_FIELDS(X)                                                                 \
    X(STR, desc, 0, 0)                                                                         \
    X(F64, wall_s, 0, 0)

#define PART "summary"
static void wr_summary(struct wr *w, const struct train_summary *s)
{
    wr_train_cfg(w, &s->cfg);
    SUMMARY_HEAD_FIELDS(PW)
    for (int i = 0; i < TSUM_MAX_STEPS; i++) {
        SUMMARY_STEP_FIELDS(PW)
    }
    wr_deviation(w, &s->dev);
    SUMMARY_MID_FIELDS(PW)
    wr_napkin(w, &s->napkin);
    SUMMARY_BUBBLE_FIELDS(PW)
    for (int i = 0; i < CV_MAX_RANKS; i++) {
        wr_mem(w, &s->mem[i]);
        wr_mem(w, &s->mem_peak[i]);
    }
    wr_mem(w, &s->ref_mem);
    wr_i32(w, s->ev_step);
    int nev = s->nevents < 0 ? 0 : s->nevents > TSUM_MAX_EVENTS ? TSUM_MAX_EVENTS : s->nevents;
    wr_i32(w, nev);
    wr_bool(w, s->events_truncated);
    for (int i = 0; i < nev; i++)
        wr_event(w, &s->events[i]);
    SUMMARY_TAIL_FIELDS(PW)
}

static void rd_summary(struct rd *r, struct train_summary *s)
{
    rd_train_cfg(r, &s->cfg);
    SUMMARY_HEAD_FIELDS(PR)
    for (int i = 0; i < TSUM_MAX_STEPS; i++) {
        SUMMARY_STEP_FIELDS(PR)
    }
    rd_deviation(r, &s->dev);
    SUMMARY_MID_FIELDS(PR)
    rd_napkin(r, &s->napkin);
    SUMMARY_BUBBLE_FIELDS(PR)
    for (int i = 0; i < CV_MAX_RANKS; i++) {
        rd_mem(r, &s->mem[i]);
        rd_mem(r, &s->mem_peak[i]);
    }
    rd_mem(r, &s->ref_mem);
    s->ev_step = rd_int(r, "summary.ev_step", -1, 1 << 20);
    s->nevents = rd_int(r, "summary.nevents", 0, TSUM_MAX_EVENTS);
    s->events_truncated = rd_bool(r, "summary.events_truncated");
    for (int i = 0; i < s->nevents && !r->bad; i++)
        rd_event(r, &s->events[i]);
    SUMMARY_TAIL_FIELDS(PR)
}
#undef PART

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
    case JOB_CHECK:
        wr_check(w, &j->check);
        break;
    case JOB_TRAIN:
        wr_train_cfg(w, &j->train.cfg);
        break;
    case JOB_MEMCPY:
        wr_memcpy_job(w, &j->copy);
        break;
    case JOB_LIBLOG: /* nothing but its kind */
        break;
    default:
        if (!w->bad) w->bad = "job.kind";
    }
}

#define JOB_KIND_COUNT (JOB_LIBLOG + 1)
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
        j->sweep.factor = rd_fin64(r, "sweep.factor");
        break;
    case JOB_CHECK:
        rd_check(r, &j->check);
        if (!r->bad && (j->check.count < 1 || j->check.count > CHECK_COUNT_MAX))
            rd_fail(r, "check.count", "out of range");
        break;
    case JOB_TRAIN:
        rd_train_cfg(r, &j->train.cfg);
        break;
    case JOB_MEMCPY:
        rd_memcpy_job(r, &j->copy);
        break;
    case JOB_LIBLOG: /* nothing but its kind */
        break;
    }
}

/* LIBLOG's text: its first PROTO_LIBLOG_MAX bytes at most, cut after a whole line, and
 * where it was cut, its source says so. */
static void wr_liblog(struct wr *w, const struct result_liblog *l)
{
    size_t n = l->text ? l->len : 0;
    const char *nul = n ? memchr(l->text, '\0', n) : NULL;
    if (nul) n = (size_t)(nul - l->text); /* the reader refuses a NUL: the text before it */
    char src[sizeof l->src];
    snprintf(src, sizeof src, "%s", l->src);
    if (n > PROTO_LIBLOG_MAX) {
        n = PROTO_LIBLOG_MAX;
        while (n > 0 && l->text[n - 1] != '\n')
            n--;
        char kib[64];
        snprintf(kib, sizeof kib, " (its first %zu of %zu KiB)", n >> 10, l->len >> 10);
        size_t at = strlen(src), room = sizeof src - strlen(kib) - 1;
        if (at > room) at = room;
        snprintf(src + at, sizeof src - at, "%s", kib);
    }
    WR_STR(w, "liblog.src", src);
    wr_bool(w, l->text != NULL);
    if (!l->text) return;
    wr_u32(w, (uint32_t)n);
    wr_bytes(w, l->text, n);
}

/* Untrusted text (records/records.h parses it as such): bounded, no NUL inside. */
static void rd_liblog(struct rd *r, struct result_liblog *l)
{
    RD_STR(r, "liblog.src", l->src);
    if (!rd_bool(r, "liblog.present") || r->bad) return;
    size_t n = (size_t)rd_uint(r, "liblog.len", 4);
    if (r->bad) return;
    if (n > PROTO_LIBLOG_MAX) {
        rd_fail(r, "liblog.len", "log too long");
        return;
    }
    const unsigned char *b;
    if (!rd_take(r, "liblog.text", n, &b)) return;
    if (memchr(b, '\0', n)) {
        rd_fail(r, "liblog.text", "NUL inside the log");
        return;
    }
    l->text = xmalloc(n + 1);
    memcpy(l->text, b, n);
    l->text[n] = '\0';
    l->len = n;
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
        wr_memcpy_result(w, &res->copy);
        break;
    case JOB_LIBLOG:
        wr_liblog(w, &res->liblog);
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
        rd_memcpy_result(r, &res->copy);
        break;
    case JOB_LIBLOG:
        rd_liblog(r, &res->liblog);
        break;
    }
}

static void wr_facts(struct wr *w, const struct worker_facts *f)
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

static void rd_facts(struct rd *r, struct worker_facts *f)
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

int proto_header_version(const unsigned char *h)
{
    return memcmp(h, PROTO_MAGIC, 4) == 0 ? (int)(h[4] | (unsigned)h[5] << 8) : -1;
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
