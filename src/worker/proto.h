/* proto.h - the job protocol as messages: what the UI and a job (`collviz serve`, maybe
 * rank 0 of an MPI job) say to each other, and its binary encoding.
 *
 * A frame is a 12-byte header - the 4 bytes "CVZP", the version (2 bytes), the message
 * type (2 bytes), the payload length (4 bytes, at most PROTO_PAYLOAD_MAX), all integers
 * little-endian - then the payload: the message's fields in a fixed order, integers as
 * 4 or 8 bytes, floats as their IEEE bits, booleans as one byte 0 or 1, strings as a
 * 2-byte length and that many bytes (no NUL, shorter than the field that holds them).
 * Decoding checks every length, enum, count and range and that the payload is used up
 * exactly; anything else is refused with one line naming the field. A peer that sends a
 * malformed frame is disconnected. */
#ifndef COLLVIZ_WORKER_PROTO_H
#define COLLVIZ_WORKER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/worker.h"

#define PROTO_MAGIC "CVZP"
/* 2: a result row carries the link the backend reported (bench_result.link). */
/* 4: a LIBLOG job and its result (NCCL's INFO log of the job's rank 0) are carried. */
#define PROTO_VERSION 4
#define PROTO_HDR 12
#define PROTO_PAYLOAD_MAX (256 * 1024)
/* The most of a LIBLOG result's text a message carries (NCCL's INFO log of an 8-GPU node
 * at NCCL_DEBUG_SUBSYS=INIT,GRAPH is about 40 KiB): the first lines, whole. */
#define PROTO_LIBLOG_MAX (192 * 1024)
#define PROTO_TOKEN_MAX 65 /* 64 hex digits and the NUL */

enum proto_type {
    PROTO_HELLO = 1, /* UI -> job, first: the token (TCP) */
    PROTO_FACTS,     /* job -> UI, the answer to hello: the backend's facts */
    PROTO_JOB,       /* UI -> job */
    PROTO_CANCEL,    /* UI -> job: drop queued jobs, stop the running one */
    PROTO_RESULT,    /* job -> UI */
    PROTO_SHUTDOWN,  /* UI -> job: end the whole job */
    PROTO_LOST,      /* job -> UI: a rank died or stalled; the job is over */
    PROTO_REFUSED,   /* job -> UI: why the connection is refused (bad token, malformed) */
    PROTO_TYPE_END
};

struct proto_hello {
    char token[PROTO_TOKEN_MAX];
};
struct proto_lost {
    int rank; /* -1: not one rank (the connection itself) */
    char why[200];
};

struct proto_msg {
    enum proto_type type;
    union {
        struct proto_hello hello;
        struct worker_facts facts;
        struct job job;
        struct result result; /* TRAIN: owns its summary (proto_msg_free) */
        struct proto_lost lost;
        struct proto_lost refused; /* rank unused */
    };
};

const char *proto_type_name(int type);

/* Encode m as one frame in a new buffer (*out, free()), its size in *len. CV_OK, or CV_EINVAL
 * when a field does not fit its encoding (a string too long, a bad kind). */
int proto_encode(const struct proto_msg *m, unsigned char **out, size_t *len, char *err,
                 size_t errlen);
/* The payload length a valid header announces: CV_OK with *payload_len, or CV_EINVAL (bad
 * magic, version, type or length). h has PROTO_HDR bytes. */
int proto_header(const unsigned char *h, uint32_t *payload_len, char *err, size_t errlen);
/* The version a header (PROTO_HDR bytes) names, whatever it is, or -1 when it has no
 * collviz magic: serve tells a client of another version both versions before closing. */
int proto_header_version(const unsigned char *h);
/* Decode one whole frame (header and payload, exactly len bytes) into *m. CV_OK, or CV_EINVAL
 * naming what is wrong (*m then owns nothing). */
int proto_decode(const unsigned char *frame, size_t len, struct proto_msg *m, char *err,
                 size_t errlen);
/* Release what a decoded message owns (a TRAIN result's summary). */
void proto_msg_free(struct proto_msg *m);

/* Blocking helpers on a stream socket. proto_send: the whole frame (MSG_NOSIGNAL); CV_OK or
 * CV_EUNAVAIL when the peer is gone. proto_recv: one frame within timeout_s once its first
 * byte is there (timeout_s < 0: wait for ever); CV_OK, CV_EUNAVAIL at end of stream,
 * CV_ETIMEOUT, or CV_EINVAL for a malformed frame (the connection is then unusable). */
int proto_send(int fd, const struct proto_msg *m, char *err, size_t errlen);
int proto_recv(int fd, struct proto_msg *m, double timeout_s, char *err, size_t errlen);

#endif
