/* test_proto.c - the job protocol's encoding (src/worker/proto.c): every message kind goes
 * through encode -> decode -> encode to the same bytes with its fields intact, and every
 * kind of malformed frame is refused with a reason naming what is wrong: truncated at any
 * length, bad magic, version, type, oversize or mismatched length, an enum or count out of
 * range, a string longer than its field or holding a NUL, a boolean that is not 0/1,
 * trailing bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "worker/proto.h"

static unsigned char *enc(const struct proto_msg *m, size_t *len)
{
    unsigned char *f;
    char err[200];
    if (proto_encode(m, &f, len, err, sizeof err) != CV_OK) fail_msg("encode: %s", err);
    return f;
}

/* encode, decode, encode again: the same bytes; returns the decoded message (caller frees
 * with proto_msg_free + free). */
static struct proto_msg *roundtrip(const struct proto_msg *m)
{
    size_t n1, n2;
    unsigned char *f1 = enc(m, &n1);
    struct proto_msg *d = xcalloc(1, sizeof *d);
    char err[200];
    if (proto_decode(f1, n1, d, err, sizeof err) != CV_OK) fail_msg("decode: %s", err);
    assert_int_equal(d->type, m->type);
    unsigned char *f2 = enc(d, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(f1, f2, n1);
    free(f1);
    free(f2);
    return d;
}

static void done(struct proto_msg *d)
{
    proto_msg_free(d);
    free(d);
}

static struct bench_params params(void)
{
    return (struct bench_params){.coll = COLL_REDUCE_SCATTER,
                                 .algo = ALGO_TREE,
                                 .algo_auto = true,
                                 .op = OP_MAX,
                                 .nranks = 7,
                                 .bytes = (size_t)3 << 30,
                                 .root = 5,
                                 .iters = 20,
                                 .warmup = 5,
                                 .check = true,
                                 .timeout_s = 12.5,
                                 .slices = 8,
                                 .channels = 2};
}

static void test_roundtrip_jobs(void **state)
{
    (void)state;
    struct proto_msg m = {.type = PROTO_JOB};
    m.job.kind = JOB_MEASURE;
    m.job.id = 0x1122334455667788ull;
    m.job.measure.params = params();
    struct proto_msg *d = roundtrip(&m);
    assert_int_equal(d->job.kind, JOB_MEASURE);
    assert_true(d->job.id == 0x1122334455667788ull);
    assert_int_equal(d->job.measure.params.coll, COLL_REDUCE_SCATTER);
    assert_int_equal(d->job.measure.params.algo, ALGO_TREE);
    assert_true(d->job.measure.params.algo_auto);
    assert_int_equal(d->job.measure.params.op, OP_MAX);
    assert_int_equal(d->job.measure.params.nranks, 7);
    assert_true(d->job.measure.params.bytes == (size_t)3 << 30);
    assert_int_equal(d->job.measure.params.root, 5);
    assert_true(d->job.measure.params.timeout_s == 12.5);
    assert_int_equal(d->job.measure.params.slices, 8);
    assert_int_equal(d->job.measure.params.channels, 2);
    done(d);

    memset(&m.job, 0, sizeof m.job);
    m.job.kind = JOB_SWEEP;
    m.job.sweep.params = params();
    m.job.sweep.min = 4096;
    m.job.sweep.max = 1 << 26;
    m.job.sweep.factor = 4.0;
    d = roundtrip(&m);
    assert_int_equal(d->job.sweep.min, 4096);
    assert_int_equal(d->job.sweep.max, 1 << 26);
    assert_true(d->job.sweep.factor == 4.0);
    done(d);

    memset(&m.job, 0, sizeof m.job);
    m.job.kind = JOB_CHECK;
    m.job.check = (struct job_check){.coll = COLL_ALL_TO_ALL,
                                     .algo = ALGO_DIRECT,
                                     .op = OP_PROD,
                                     .nranks = 16,
                                     .count = 9,
                                     .root = 15,
                                     .init = INIT_RANDOM,
                                     .seed = UINT64_MAX};
    d = roundtrip(&m);
    assert_int_equal(d->job.check.coll, COLL_ALL_TO_ALL);
    assert_int_equal(d->job.check.nranks, 16);
    assert_int_equal(d->job.check.count, 9);
    assert_int_equal(d->job.check.root, 15);
    assert_int_equal(d->job.check.init, INIT_RANDOM);
    assert_true(d->job.check.seed == UINT64_MAX);
    done(d);

    memset(&m.job, 0, sizeof m.job);
    m.job.kind = JOB_TRAIN;
    train_config_default(&m.job.train.cfg);
    m.job.train.cfg.scheme = TRAIN_PP;
    m.job.train.cfg.schedule = PP_1F1B;
    m.job.train.cfg.overlap = true;
    m.job.train.cfg.prefetch = true; /* zero3's; a remote job lost it before version 3 */
    m.job.train.cfg.adamw.lr = 3e-4f;
    d = roundtrip(&m);
    assert_int_equal(d->job.train.cfg.scheme, TRAIN_PP);
    assert_int_equal(d->job.train.cfg.schedule, PP_1F1B);
    assert_true(d->job.train.cfg.overlap);
    assert_true(d->job.train.cfg.prefetch);
    assert_true(d->job.train.cfg.adamw.lr == 3e-4f);
    assert_int_equal(d->job.train.cfg.dim, m.job.train.cfg.dim);
    done(d);

    memset(&m.job, 0, sizeof m.job);
    m.job.kind = JOB_MEMCPY;
    m.job.copy.bytes = 1 << 20;
    m.job.copy.reps = 3;
    d = roundtrip(&m);
    assert_int_equal(d->job.copy.bytes, 1 << 20);
    assert_int_equal(d->job.copy.reps, 3);
    done(d);
}

static void fill_row(struct bench_result *b)
{
    *b = (struct bench_result){.bytes = 1 << 20,
                               .count = 1 << 18,
                               .time_us = 123.25,
                               .algbw = 8.5,
                               .busbw = 12.75,
                               .wrong = -1,
                               .nranks = 4,
                               .slices = 4,
                               .channels = 1};
    snprintf(b->algo, sizeof b->algo, "ring");
    snprintf(b->how, sizeof b->how, "wall clock around 20 iterations");
    snprintf(b->link, sizeof b->link, "NET/IB (InfiniBand verbs), 4 channels (NCCL INFO log)");
}

static void test_roundtrip_results(void **state)
{
    (void)state;
    struct proto_msg m = {.type = PROTO_RESULT};
    m.result.job_id = 42;
    m.result.kind = JOB_MEASURE;
    m.result.status = CV_OK;
    m.result.last = true;
    snprintf(m.result.backend, sizeof m.result.backend, "cpu");
    fill_row(&m.result.measure);
    struct proto_msg *d = roundtrip(&m);
    assert_int_equal(d->result.job_id, 42);
    assert_true(d->result.last);
    assert_string_equal(d->result.backend, "cpu");
    assert_true(d->result.measure.busbw == 12.75);
    assert_int_equal(d->result.measure.wrong, -1);
    assert_string_equal(d->result.measure.how, "wall clock around 20 iterations");
    assert_string_equal(d->result.measure.link,
                        "NET/IB (InfiniBand verbs), 4 channels (NCCL INFO log)");
    done(d);

    memset(&m.result, 0, sizeof m.result);
    m.result.kind = JOB_SWEEP;
    m.result.status = CV_ETIMEOUT;
    snprintf(m.result.err, sizeof m.result.err, "rank 2 did not answer within 10 s");
    fill_row(&m.result.sweep.row);
    m.result.sweep.index = 3;
    m.result.sweep.total = 5;
    d = roundtrip(&m);
    assert_int_equal(d->result.status, CV_ETIMEOUT);
    assert_string_equal(d->result.err, "rank 2 did not answer within 10 s");
    assert_int_equal(d->result.sweep.index, 3);
    assert_int_equal(d->result.sweep.total, 5);
    done(d);

    memset(&m.result, 0, sizeof m.result);
    m.result.kind = JOB_CHECK;
    m.result.check.mismatches = 7;
    m.result.check.inexact = 28;
    d = roundtrip(&m);
    assert_int_equal(d->result.check.mismatches, 7);
    assert_int_equal(d->result.check.inexact, 28);
    done(d);

    memset(&m.result, 0, sizeof m.result);
    m.result.kind = JOB_MEMCPY;
    m.result.copy.bytes = 64 << 20;
    m.result.copy.reps = 5;
    m.result.copy.best_s = 0.0125;
    m.result.copy.gbs = 5.36870912;
    snprintf(m.result.copy.how, sizeof m.result.copy.how, "memcpy, best of 5");
    d = roundtrip(&m);
    assert_true(d->result.copy.gbs == 5.36870912);
    assert_string_equal(d->result.copy.how, "memcpy, best of 5");
    done(d);

    /* TRAIN: the summary travels whole (events included); a failed run has none. */
    memset(&m.result, 0, sizeof m.result);
    m.result.kind = JOB_TRAIN;
    struct train_summary *s = xcalloc(1, sizeof *s);
    train_config_default(&s->cfg);
    s->cfg.scheme = TRAIN_DDP;
    s->nranks = 4;
    s->steps_done = 5;
    for (int i = 0; i < TSUM_MAX_STEPS; i++) {
        s->loss[i] = 1.0 / (i + 1);
        s->comm_bytes[i] = (size_t)i << 20;
    }
    s->dev.within = true;
    s->dev.loss_step = 3;
    s->bubble_measured = -1;
    s->mem[3].activations = 12345;
    s->mem_peak[2].grads = 678; /* the high-water mark travels too */
    s->ev_step = 4;
    s->nevents = 3;
    for (int i = 0; i < 3; i++) {
        s->events[i] = (struct tl_event){.step = 4,
                                         .rank = i,
                                         .lane = i & 1,
                                         .kind = TL_SEND,
                                         .peer = 3 - i,
                                         .mb = -1,
                                         .tag = 7,
                                         .t0 = 0.5 * i,
                                         .t1 = 0.5 * i + 0.25,
                                         .bytes = 4096};
        snprintf(s->events[i].label, sizeof s->events[i].label, "send %d", i);
    }
    snprintf(s->desc, sizeof s->desc, "DDP on 4 CPU ranks");
    s->wall_s = 2.5;
    m.result.train.summary = s;
    d = roundtrip(&m);
    const struct train_summary *t = d->result.train.summary;
    assert_non_null(t);
    assert_int_equal(t->cfg.scheme, TRAIN_DDP);
    assert_int_equal(t->steps_done, 5);
    assert_true(t->loss[3] == 0.25);
    assert_int_equal(t->comm_bytes[2], 2 << 20);
    assert_true(t->dev.within);
    assert_int_equal(t->mem[3].activations, 12345);
    assert_int_equal(t->mem_peak[2].grads, 678);
    assert_int_equal(t->nevents, 3);
    assert_int_equal(t->events[2].rank, 2);
    assert_int_equal(t->events[2].kind, TL_SEND);
    assert_true(t->events[2].t1 == 1.25);
    assert_string_equal(t->events[1].label, "send 1");
    assert_string_equal(t->desc, "DDP on 4 CPU ranks");
    done(d);
    /* the wire stays small: the fixed arrays, the 3 events, not the 47 KB struct */
    size_t n;
    unsigned char *f = enc(&m, &n);
    assert_true(n < 4096);
    free(f);
    free(s);
    m.result.train.summary = NULL;
    d = roundtrip(&m);
    assert_null(d->result.train.summary);
    done(d);
}

static void test_roundtrip_control(void **state)
{
    (void)state;
    struct proto_msg m = {.type = PROTO_HELLO};
    snprintf(m.hello.token, sizeof m.hello.token, "%064d", 7);
    struct proto_msg *d = roundtrip(&m);
    assert_string_equal(d->hello.token, m.hello.token);
    done(d);

    memset(&m, 0, sizeof m);
    m.type = PROTO_FACTS;
    snprintf(m.facts.name, sizeof m.facts.name, "mpi");
    m.facts.kind = 2;
    m.facts.caps = 5;
    m.facts.max_ranks = 16;
    for (int n = 1; n <= 16; n++)
        snprintf(m.facts.desc[n], sizeof m.facts.desc[n], "%d processes on 2 hosts", n);
    for (int r = 0; r < 16; r++)
        snprintf(m.facts.label[r], sizeof m.facts.label[r], "node%d", r / 8);
    snprintf(m.facts.where, sizeof m.facts.where, "collviz serve");
    d = roundtrip(&m);
    assert_string_equal(d->facts.name, "mpi");
    assert_int_equal(d->facts.max_ranks, 16);
    assert_string_equal(d->facts.desc[12], "12 processes on 2 hosts");
    assert_string_equal(d->facts.label[9], "node1");
    assert_false(d->facts.have_nccl_info);
    done(d);

    for (int t = PROTO_CANCEL; t <= PROTO_SHUTDOWN; t += PROTO_SHUTDOWN - PROTO_CANCEL) {
        memset(&m, 0, sizeof m);
        m.type = (enum proto_type)t;
        size_t n;
        unsigned char *f = enc(&m, &n);
        assert_int_equal(n, PROTO_HDR); /* no payload */
        free(f);
        done(roundtrip(&m));
    }
    memset(&m, 0, sizeof m);
    m.type = PROTO_LOST;
    m.lost.rank = 2;
    snprintf(m.lost.why, sizeof m.lost.why, "rank 2 lost: no answer within 10 s");
    d = roundtrip(&m);
    assert_int_equal(d->lost.rank, 2);
    assert_string_equal(d->lost.why, "rank 2 lost: no answer within 10 s");
    done(d);
}

/* Decoding must fail and the reason must contain `want`. */
static void refused(const unsigned char *f, size_t n, const char *want)
{
    struct proto_msg m;
    char err[200] = "";
    assert_int_equal(proto_decode(f, n, &m, err, sizeof err), CV_EINVAL);
    if (!strstr(err, want)) fail_msg("reason '%s' lacks '%s'", err, want);
}

static unsigned char *measure_frame(size_t *n)
{
    struct proto_msg m = {.type = PROTO_JOB};
    m.job.kind = JOB_MEASURE;
    m.job.measure.params = params();
    return enc(&m, n);
}

static void set_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void test_malformed(void **state)
{
    (void)state;
    size_t n;
    unsigned char *f = measure_frame(&n);
    /* truncated: every shorter prefix (the header's length then disagrees, or the header
     * itself is short) */
    for (size_t k = 0; k < n; k++) {
        struct proto_msg m;
        char err[200];
        assert_int_equal(proto_decode(f, k, &m, err, sizeof err), CV_EINVAL);
    }
    refused(f, 5, "truncated header");
    refused(f, n - 1, "payload length");
    /* a consistent header over a payload cut short: the fields run out */
    unsigned char *g = xmalloc(n);
    memcpy(g, f, n);
    set_u32(g + 8, (uint32_t)(n - PROTO_HDR - 3));
    refused(g, n - 3, "truncated");
    /* trailing bytes */
    unsigned char *h = xmalloc(n + 2);
    memcpy(h, f, n);
    h[n] = h[n + 1] = 0;
    set_u32(h + 8, (uint32_t)(n - PROTO_HDR + 2));
    refused(h, n + 2, "trailing bytes");
    free(h);
    /* header fields */
    memcpy(g, f, n);
    g[0] = 'X';
    refused(g, n, "bad magic");
    memcpy(g, f, n);
    g[4] = PROTO_VERSION + 1;
    refused(g, n, "version");
    memcpy(g, f, n);
    g[6] = PROTO_TYPE_END;
    refused(g, n, "unknown message type");
    memcpy(g, f, n);
    g[6] = 0;
    refused(g, n, "unknown message type");
    memcpy(g, f, n);
    set_u32(g + 8, PROTO_PAYLOAD_MAX + 1);
    refused(g, n, "at most");
    uint32_t len;
    assert_int_equal(proto_header(g, &len, NULL, 0), CV_EINVAL);
    /* enums: the job kind (payload offset 0), then params.coll (after the 8-byte id) */
    memcpy(g, f, n);
    set_u32(g + PROTO_HDR, 99);
    refused(g, n, "job.kind");
    memcpy(g, f, n);
    set_u32(g + PROTO_HDR + 12, COLL_COUNT);
    refused(g, n, "params.coll");
    memcpy(g, f, n);
    set_u32(g + PROTO_HDR + 12, (uint32_t)-1);
    refused(g, n, "params.coll");
    /* a boolean that is not 0 or 1: algo_auto follows coll and algo */
    memcpy(g, f, n);
    g[PROTO_HDR + 20] = 2;
    refused(g, n, "params.algo_auto");
    /* nranks 0 and 17 */
    memcpy(g, f, n);
    set_u32(g + PROTO_HDR + 25, 0);
    refused(g, n, "params.nranks");
    set_u32(g + PROTO_HDR + 25, CV_MAX_RANKS + 1);
    refused(g, n, "params.nranks");
    free(g);
    free(f);

    /* strings: longer than the field, or with a NUL inside */
    struct proto_msg m = {.type = PROTO_HELLO};
    snprintf(m.hello.token, sizeof m.hello.token, "abc");
    f = enc(&m, &n);
    g = xmalloc(n + 200);
    memcpy(g, f, n);
    g[PROTO_HDR] = 100; /* length 100 > the 64 a token may have */
    memset(g + PROTO_HDR + 2, 'a', 100);
    set_u32(g + 8, 102);
    refused(g, PROTO_HDR + 102, "string too long");
    memcpy(g, f, n);
    g[PROTO_HDR + 3] = '\0';
    refused(g, n, "NUL inside");
    free(g);
    free(f);

    /* counts: facts with 17 ranks, a summary with more events than fit */
    memset(&m, 0, sizeof m);
    m.type = PROTO_FACTS;
    m.facts.max_ranks = 1;
    f = enc(&m, &n);
    /* name "" (2 bytes), kind (4), caps (4), then max_ranks */
    set_u32(f + PROTO_HDR + 10, CV_MAX_RANKS + 1);
    refused(f, n, "facts.max_ranks");
    free(f);

    /* the encoder refuses what it cannot write */
    memset(&m, 0, sizeof m);
    m.type = PROTO_JOB;
    m.job.kind = (enum job_kind)77;
    char err[200];
    unsigned char *out;
    assert_int_equal(proto_encode(&m, &out, &n, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "job.kind"));
    m.type = (enum proto_type)0;
    assert_int_equal(proto_encode(&m, &out, &n, err, sizeof err), CV_EINVAL);
}

static void test_events_count_bounded(void **state)
{
    (void)state;
    struct proto_msg m = {.type = PROTO_RESULT};
    m.result.kind = JOB_TRAIN;
    struct train_summary *s = xcalloc(1, sizeof *s);
    train_config_default(&s->cfg);
    s->nevents = 1;
    m.result.train.summary = s;
    size_t n;
    unsigned char *f = enc(&m, &n);
    /* nevents sits just before the events_truncated byte, the one event and the tail:
     * find it from the end: wall_s (8) + desc "" (2) + label "" (2) + the event's fixed
     * 7*4 + 3*8 = 52 bytes + events_truncated (1) + nevents (4). */
    size_t at = n - 8 - 2 - (52 + 2) - 1 - 4;
    assert_int_equal(f[at], 1);
    set_u32(f + at, TSUM_MAX_EVENTS + 1);
    refused(f, n, "summary.nevents");
    free(f);
    free(s);
}

/* LIBLOG (the topology screen's t on a remote job): the job has no payload; the result
 * carries NCCL's log, its first PROTO_LIBLOG_MAX bytes cut after a whole line (and its
 * source then says so), and a log longer than that or with a NUL in it is refused. */
static void test_liblog(void **state)
{
    (void)state;
    struct proto_msg m = {.type = PROTO_JOB};
    m.job.kind = JOB_LIBLOG;
    m.job.id = 9;
    struct proto_msg *d = roundtrip(&m);
    assert_int_equal(d->job.kind, JOB_LIBLOG);
    assert_int_equal(d->job.id, 9);
    done(d);

    memset(&m, 0, sizeof m);
    m.type = PROTO_RESULT;
    m.result.kind = JOB_LIBLOG;
    m.result.last = true;
    char text[] =
        "host:1:1 [0] NCCL INFO Channel 00/02 :    0   1\nhost:1:1 [0] NCCL INFO ok\n";
    m.result.liblog.text = text;
    m.result.liblog.len = strlen(text);
    snprintf(m.result.liblog.src, sizeof m.result.liblog.src,
             "this machine's NCCL INFO log (this run)");
    d = roundtrip(&m);
    assert_int_equal(d->result.liblog.len, strlen(text));
    assert_string_equal(d->result.liblog.text, text);
    assert_string_equal(d->result.liblog.src, "this machine's NCCL INFO log (this run)");
    done(d);

    /* hostile frames: a NUL in the text, a length beyond the bound */
    size_t n;
    unsigned char *f = enc(&m, &n), *at = memmem(f, n, text, strlen(text));
    assert_non_null(at);
    at[5] = '\0';
    refused(f, n, "NUL inside the log");
    at[5] = text[5];
    set_u32(at - 4, PROTO_LIBLOG_MAX + 1);
    refused(f, n, "log too long");
    free(f);

    /* a NUL in the log (the reader refuses one): the writer sends the text before it */
    char withnul[] = "NCCL INFO a\nNCCL\0 INFO b\n";
    m.result.liblog.text = withnul;
    m.result.liblog.len = sizeof withnul - 1;
    d = roundtrip(&m);
    assert_int_equal(d->result.liblog.len, 16);
    assert_string_equal(d->result.liblog.text, "NCCL INFO a\nNCCL");
    done(d);
    m.result.liblog.text = text;
    m.result.liblog.len = strlen(text);

    /* none (a CPU job): no text, the reason in err */
    m.result.liblog.text = NULL;
    m.result.liblog.len = 0;
    m.result.status = CV_EUNAVAIL;
    snprintf(m.result.err, sizeof m.result.err, "no NCCL log: not a GPU run");
    d = roundtrip(&m);
    assert_null(d->result.liblog.text);
    assert_string_equal(d->result.err, "no NCCL log: not a GPU run");
    done(d);

    /* 300 KiB of 65-byte lines: the first whole lines within the bound */
    size_t big = (size_t)300 << 10, line = 65;
    char *b = xmalloc(big + 1);
    for (size_t i = 0; i < big; i++)
        b[i] = i % line == line - 1 ? '\n' : (char)('a' + (i / line) % 26);
    b[big] = '\0';
    m.result.status = CV_OK;
    m.result.liblog.text = b;
    m.result.liblog.len = big;
    d = roundtrip(&m);
    size_t want = PROTO_LIBLOG_MAX / line * line;
    assert_int_equal(d->result.liblog.len, want);
    assert_memory_equal(d->result.liblog.text, b, want);
    assert_int_equal(d->result.liblog.text[want - 1], '\n');
    char note[64];
    snprintf(note, sizeof note, "(its first %zu of 300 KiB)", want >> 10);
    assert_non_null(strstr(d->result.liblog.src, note));
    assert_int_equal(strncmp(d->result.liblog.src, "this machine's NCCL INFO log", 28), 0);
    done(d);
    free(b);
}

/* Field k of a training job's numbers set to v; its name in the decoder's errors. */
static const char *train_number(struct train_config *c, int k, double v)
{
    switch (k) {
    case 0:
        c->timeout_s = v;
        return "train.timeout_s";
    case 1:
        c->adamw.lr = (float)v;
        return "train.adamw.lr";
    case 2:
        c->adamw.beta1 = (float)v;
        return "train.adamw.beta1";
    case 3:
        c->adamw.beta2 = (float)v;
        return "train.adamw.beta2";
    case 4:
        c->adamw.eps = (float)v;
        return "train.adamw.eps";
    case 5:
        c->adamw.weight_decay = (float)v;
        return "train.adamw.weight_decay";
    default:
        c->capacity = v;
        return "train.capacity";
    }
}

/* Issue 29: a NaN learning rate or timeout passed the decoder and every range check after
 * it (NaN compares false). Every number a job computes with must be finite: NaN and both
 * infinities are refused naming the field (and by train_config_check, which the CLI and
 * the worker share); the same jobs with finite values decode. */
static void test_non_finite_refused(void **state)
{
    (void)state;
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < 3; i++) {
        for (int k = 0; k < 7; k++) {
            struct proto_msg m = {.type = PROTO_JOB};
            m.job.kind = JOB_TRAIN;
            train_config_default(&m.job.train.cfg);
            size_t n;
            unsigned char *f = enc(&m, &n);
            struct proto_msg d;
            assert_int_equal(proto_decode(f, n, &d, NULL, 0), CV_OK);
            free(f);
            const char *field = train_number(&m.job.train.cfg, k, bad[i]);
            f = enc(&m, &n);
            refused(f, n, field);
            refused(f, n, "not a finite number");
            free(f);
            char err[200];
            if (k < 6)
                assert_int_equal(train_config_check(&m.job.train.cfg, err, sizeof err),
                                 CV_EINVAL);
        }
        struct proto_msg m = {.type = PROTO_JOB};
        m.job.kind = JOB_MEASURE;
        m.job.measure.params = params();
        m.job.measure.params.timeout_s = bad[i];
        size_t n;
        unsigned char *f = enc(&m, &n);
        refused(f, n, "params.timeout_s");
        free(f);
        m.job.kind = JOB_SWEEP;
        m.job.sweep.params = params();
        m.job.sweep.min = 4;
        m.job.sweep.max = 1024;
        m.job.sweep.factor = bad[i];
        f = enc(&m, &n);
        refused(f, n, "sweep.factor");
        free(f);
        m.job.sweep.factor = 2;
        f = enc(&m, &n);
        struct proto_msg d;
        assert_int_equal(proto_decode(f, n, &d, NULL, 0), CV_OK);
        free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_jobs),       cmocka_unit_test(test_roundtrip_results),
        cmocka_unit_test(test_roundtrip_control),    cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_events_count_bounded), cmocka_unit_test(test_liblog),
        cmocka_unit_test(test_non_finite_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
