/* fuzz_proto.c - libFuzzer target for the job protocol's decoder (src/worker/proto.c), what
 * reads bytes from a UI or a job over a socket. The input is one frame; when it decodes, it
 * must encode again and decode to the same bytes. Any crash, leak, sanitizer report or a
 * decoded message that does not survive the round trip is a bug, and so is a decoded job
 * holding a number it computes with that is not finite (NaN timeouts and learning rates
 * were accepted), or a header whose version serve cannot name. Built and run by
 * `make fuzz` (long) and tests/fuzz/run.sh (short, part of `make test`). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "worker/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A decoded job's numbers are finite (issue 29). */
static void check_job(const struct proto_msg *m)
{
    if (m->type != PROTO_JOB) return;
    const struct job *j = &m->job;
    double t[] = {j->measure.params.timeout_s, 0, 0, 0, 0, 0, 0, 0};
    if (j->kind == JOB_SWEEP) {
        t[0] = j->sweep.params.timeout_s;
        t[1] = j->sweep.factor;
    } else if (j->kind == JOB_TRAIN) {
        const struct train_config *c = &j->train.cfg;
        double u[] = {c->timeout_s, c->adamw.lr,           c->adamw.beta1, c->adamw.beta2,
                      c->adamw.eps, c->adamw.weight_decay, c->capacity};
        memcpy(t, u, sizeof u);
    } else if (j->kind != JOB_MEASURE) {
        return;
    }
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (!isfinite(t[i])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proto_msg *m = xmalloc(sizeof *m);
    char err[200];
    uint32_t len;
    if (size >= PROTO_HDR) {
        (void)proto_header(data, &len, err, sizeof err);
        int v = proto_header_version(data);
        if (memcmp(data, PROTO_MAGIC, 4) == 0 ? v != (data[4] | data[5] << 8) : v != -1)
            abort();
    }
    if (proto_decode(data, size, m, err, sizeof err) == CV_OK) {
        check_job(m);
        unsigned char *f;
        size_t n;
        if (proto_encode(m, &f, &n, err, sizeof err) != CV_OK) abort();
        struct proto_msg *again = xmalloc(sizeof *again);
        if (proto_decode(f, n, again, err, sizeof err) != CV_OK) abort();
        unsigned char *g;
        size_t k;
        if (proto_encode(again, &g, &k, err, sizeof err) != CV_OK) abort();
        if (k != n || memcmp(f, g, n) != 0) abort();
        free(f);
        free(g);
        proto_msg_free(again);
        free(again);
        proto_msg_free(m);
    }
    free(m);
    return 0;
}
