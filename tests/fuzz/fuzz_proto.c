/* fuzz_proto.c - libFuzzer target for the job protocol's decoder (src/worker/proto.c), what
 * reads bytes from a UI or a job over a socket. The input is one frame; when it decodes, it
 * must encode again and decode to the same bytes. Any crash, leak, sanitizer report or a
 * decoded message that does not survive the round trip is a bug. Built and run by
 * `make fuzz` (long) and tests/fuzz/run.sh (short, part of `make test`). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "worker/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proto_msg *m = xmalloc(sizeof *m);
    char err[200];
    uint32_t len;
    if (size >= PROTO_HDR) (void)proto_header(data, &len, err, sizeof err);
    if (proto_decode(data, size, m, err, sizeof err) == CV_OK) {
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
