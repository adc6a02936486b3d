/* records.h - what a real cluster's own records say: NCCL's INFO log (NCCL_DEBUG=INFO) and
 * nccl-tests' output, read into rings, trees, links, ranks and measured rows.
 *
 * Pure: text in, structures out; no I/O, no terminal. One parser for every NCCL format seen
 * in the wild (2.4's "Channel 00 :    0   1" and "Ring 00 : 1 -> 0 [receive] via
 * NET/Socket/0", 2.6's bus ids in brackets, 2.7's "via direct shared memory", 2.12's
 * connection index "Channel 00/0", the two-part trees of 2.6/2.7, ...) and for nccl-tests'
 * old ("error": the largest error) and new ("#wrong", N/A) tables. Lines may carry any
 * prefix (host:pid:tid [dev], Open MPI's "[1,5]<stdout>:" even in the middle of a row,
 * timestamps); lines it does not know are skipped. Several files (one per node) go into
 * one record: call rec_parse once per file, then rec_finish.
 *
 * Untrusted input: a file over REC_MAX_BYTES or a line over REC_MAX_LINE is refused with a
 * "file:line:" error; every count is bounded; every string kept is printable ASCII (other
 * bytes become '?'), so it can reach a terminal or JSON as it is. */
#ifndef COLLVIZ_RECORDS_RECORDS_H
#define COLLVIZ_RECORDS_RECORDS_H

#include <stdbool.h>
#include <stddef.h>

#define REC_MAX_BYTES ((size_t)64 << 20) /* one file */
#define REC_MAX_LINE 65536               /* one line, in bytes */
#define REC_MAX_RANKS 4096
#define REC_LAST_RANK (REC_MAX_RANKS - 1) /* what messages name: "ranks end at 4095" */
#define REC_MAX_CHANNELS 128              /* NCCL's MAXCHANNELS is 32 or 64; newer builds 128 */
#define REC_MAX_LINKS 65536
#define REC_MAX_TESTS 64
#define REC_MAX_ROWS 4096 /* rows of one test */
#define REC_MAX_MSGS 64   /* errors and warnings kept (the rest are counted) */
#define REC_MAX_TREE_DOWN 3

/* The link classes, from what NCCL says about a connection (never from names alone). */
enum rec_class {
    REC_NVLINK,
    REC_PCIE,
    REC_SHM,
    REC_IB,
    REC_ROCE,
    REC_SOCKET,
    REC_NET_PLUGIN,
    REC_UNKNOWN,
};
const char *rec_class_name(enum rec_class c);

struct rec_rank {
    bool known;    /* some line named this rank */
    char host[64]; /* "" unknown */
    int device;    /* CUDA device, -1 unknown */
    char busid[24];
    char gpu[64]; /* "NVIDIA H800" (nccl-tests' device lines) */
};

struct rec_link {
    int channel, conn; /* conn: "Channel 00/1"'s connection index, -1 when not printed */
    int from, to;
    char via[48];  /* as NCCL printed it: "P2P/CUMEM/read", "NET/IB/6/GDRDMA" */
    char host[64]; /* the host of the line that printed it ("" unknown) */
    enum rec_class cls;
};

struct rec_tnode {
    bool set;
    int up; /* -1: the root */
    int down[REC_MAX_TREE_DOWN];
    int ndown;
};

struct rec_tree { /* one channel's tree, indexed by rank */
    struct rec_tnode *node;
    int n;
};

struct rec_meas {
    double time_us, algbw, busbw;
    double wrong; /* #wrong (new tables); NAN: N/A or an old table */
    double error; /* the old tables' largest error; NAN in new tables */
};

struct rec_row {
    double size, count;
    struct rec_meas oop, ip;
};

struct rec_test {
    char collective[32]; /* "all_reduce" ("" unknown) */
    char type[16], redop[16];
    bool old_header; /* "error" column (largest error), not "#wrong" */
    struct rec_row *rows;
    int nrows;
    double avg_busbw; /* "# Avg bus bandwidth", NAN when absent */
};

struct rec_ring {
    int *order; /* NULL: no ring line for this channel */
    int n;
};

struct rec_host_net { /* what a host's lines say about its network and links */
    char host[64];
    char net[24];    /* "Using network IB" */
    char ib_ll[16];  /* per NET/IB device index: 'I' IB, 'R' RoCE, 0 unknown */
    char path[4][8]; /* the graph's intra-node path types ("Pattern ... type NVL/PIX") */
    int npath;
    bool nvls; /* "NVLS multicast support is available" */
};

struct rec_log {
    char version[32]; /* "2.18.3+cuda12.2", "" unknown */
    int nranks;       /* -1 unknown */
    int nnodes;       /* said by a comm line; -1 unknown */
    struct rec_rank ranks[REC_MAX_RANKS];
    int maxrank; /* the highest rank any line named, -1 none */
    struct rec_ring rings[REC_MAX_CHANNELS];
    struct rec_tree trees[REC_MAX_CHANNELS];
    struct rec_link *links;
    int nlinks, caplinks;
    struct rec_test tests[REC_MAX_TESTS];
    int ntests;
    struct rec_host_net nets[64];
    int nnets;
    bool nvls;           /* any host */
    int init_complete;   /* "Init COMPLETE" lines */
    char init_error[64]; /* NCCL's error trace through init: "init.cc:1089 -> 3" */
    int lines;           /* lines recognised, all files */
    char **errors;       /* "file:line: what" */
    int nerrors, errors_dropped;
    char **warnings;
    int nwarnings, warnings_dropped;
    /* parser state (private) */
    int cur_test; /* test the next rows belong to, -1 none */
    int hdr_n;    /* the current table header's columns, 0 none */
    char hdr[24][10];
    bool hdr_ms; /* "(ms)" units line */
    char pending_coll[32];
    int first_warn_line;
    char first_warn[160];
    bool commsizes_differ;
    bool ring_printer; /* a ring line was read: rank 0's */
};

struct rec_log *rec_new(void);
void rec_free(struct rec_log *L);
/* Read one file's text (len bytes, need not end in NUL) named `name` (for messages).
 * Returns the number of lines recognised in it. */
int rec_parse(struct rec_log *L, const char *name, const char *text, size_t len);
/* After the last file: the warnings about what is missing or odd. */
void rec_finish(struct rec_log *L);

/* A channel's ring as hosts: how many of its hops cross from one host to another; -1 when a
 * rank's host is unknown. */
int rec_ring_crossings(const struct rec_log *L, int channel);
/* The hosts in rank order (first appearance), into out[max]; returns how many. */
int rec_hosts(const struct rec_log *L, const char **out, int max);

#endif
