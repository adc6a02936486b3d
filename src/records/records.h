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

#include "records/reccomm.h"
#include "records/recline.h"

#define REC_MAX_BYTES ((size_t)64 << 20) /* one file */
#define REC_MAX_LINE 65536               /* one line, in bytes */
/* Ranks: NCCL's nRanks is an int; a rank is kept in a few dozen bytes (rec_rank, its ring
 * and tree entries), so what bounds a record is memory: a communicator larger than the
 * memory available to hold it (mem_check) is refused, naming its size. REC_MAX_RANKS is
 * the reader's own ceiling on a rank number (eight digits; 2^24 ranks keep every count
 * and byte size below an int's range). */
#define REC_MAX_RANKS (1 << 24)
#define REC_RANK_DIGITS 8
#define REC_LAST_RANK (REC_MAX_RANKS - 1) /* what messages name */
/* Channels: NCCL's MAXCHANNELS (in NVIDIA/nccl's device header) was 32 in older releases and
 * is 64 in NCCL 2.26.3; RCCL's device.h says 128. The larger is the bound. */
#define REC_MAX_CHANNELS 128
/* Links: a connection a rank, channel and connection index (NCCL_MAX_CONNS is 2, RCCL's 3):
 * bounded by memory as the ranks are, and by an int's range. */
#define REC_MAX_LINKS (1 << 30)
/* What a record may keep: the memory available (mem_check), and at most REC_KEEP_FLOOR +
 * REC_KEEP_PER_BYTE bytes a byte of its text, so a few lines naming huge ranks are refused
 * rather than take the machine or its time: what a record costs follows what it holds, not
 * what it claims (a real job's log keeps about 1 byte a byte of text). The floor holds one
 * process's log of a job of up to ~200,000 ranks (a slot each, rec_rank); a line claiming
 * a million ranks is refused at once. */
#define REC_KEEP_FLOOR ((size_t)32 << 20)
#define REC_KEEP_PER_BYTE 16
#define REC_MAX_TESTS 64
#define REC_MAX_ROWS 4096 /* rows of one test */
#define REC_MAX_MSGS 64   /* errors and warnings kept (the rest are counted) */
#define REC_MAX_TREE_DOWN 3
#define REC_HDR_WORDS 64   /* a table header's words: 13 a table, side by side up to 4 */
#define REC_MAX_JOINED 256 /* lines joined on one that are read apart */

/* The link classes, from what NCCL says about a connection (never from names alone). */
enum rec_class {
    REC_NVLINK,
    REC_PCIE,
    REC_SHM,
    REC_IB,
    REC_ROCE,
    REC_SOCKET,
    REC_NET_PLUGIN,
    REC_NET, /* NCCL's network transport, what runs under it not said ("NET/IB" without the
                NIC list: InfiniBand or RoCE) */
    REC_UNKNOWN,
};
const char *rec_class_name(enum rec_class c);

struct rec_rank {
    bool known;    /* some line named this rank */
    char host[64]; /* "" unknown */
    int device;    /* CUDA device, -1 unknown */
    char busid[24];
    char gpu[64];  /* "NVIDIA H800" (nccl-tests' device lines) */
    long list_pid; /* the process an nccl-tests device line puts it in, 0 none */
    int list_host; /* that line's host id + 1, 0 none */
    int list_no;   /* which list of devices that line is in (1, 2, ...) */
    int machine;   /* which machine of its host name: 0, or k when the record proves k
                      others share the name (one bus id in two processes, rec_finish) */
};

struct rec_link {
    int channel, conn; /* conn: "Channel 00/1"'s connection index, -1 when not printed */
    int from, to;
    /* interned (kept once in the record, so equal strings are one pointer): */
    const char *via;  /* as NCCL printed it: "P2P/CUMEM/read", "NET/IB/6/GDRDMA" */
    const char *host; /* the host of the line that printed it ("" unknown) */
    int host_id;      /* its id (reccomm.h), -1 unknown */
    enum rec_class cls;
    int unit; /* the unit (reccomm.h) whose line it is, -1 none */
    int comm; /* after rec_finish: its communicator (L->comms), -1 none */
};

struct rec_tnode {
    bool set;
    int unit; /* the unit whose line gave it, -1 none */
    int up;   /* -1: the root */
    int down[REC_MAX_TREE_DOWN];
    int ndown;
};

struct rec_tree { /* one channel's tree, indexed by rank */
    struct rec_tnode *node;
    int n, cap; /* node[0..n) read; cap allocated */
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
    bool one_rank;   /* busbw 0 on every row with an algbw: each process ran alone */
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

/* What a warning is about (its JSON "code"). */
enum rec_wcode {
    REC_W_OTHER,
    REC_W_CUT,     /* a line cut mid-way */
    REC_W_SPLICED, /* two processes' output on one line */
    REC_W_WRAPPED, /* a line broken over two */
    REC_W_PARTIAL, /* only some ranks' lines */
    REC_W_DEDUP,   /* Ray's "[repeated Nx across cluster]" */
    REC_W_INIT_FAILED,
    REC_W_LIB_WARN,
    REC_W_ESCAPE,       /* terminal escapes in the text */
    REC_W_MIXED,        /* hosts printing different NCCL versions' forms */
    REC_W_PROSE,        /* text that is no log between log lines */
    REC_W_INTERLEAVED,  /* rows of several runs mixed */
    REC_W_NO_HEADER,    /* rows without their column header */
    REC_W_UNREADABLE,   /* "NCCL INFO" after text that is no known prefix */
    REC_W_SIDE_BY_SIDE, /* tables pasted side by side, read as several runs */
    REC_W_RANK_TWICE,   /* two processes claim one rank in a list of devices */
    REC_W_PLACEHOLDER,  /* a host name put in by hand ("<cluster_name>") */
    REC_W_JOINED,       /* several lines on one (a web page's copy): split and read */
    REC_W_COLL_CONTRA,  /* a table's reduction under a collective that reduces nothing */
    REC_W_N
};
const char *rec_wcode_name(enum rec_wcode c);

/* NCCL_DEBUG_SUBSYS=TUNING: the algorithm/protocol table and per-size choices. */
#define REC_TUNE_COLS 32
struct rec_tuning {
    bool any;
    char algos[REC_TUNE_COLS][16]; /* per column */
    char protos[REC_TUNE_COLS][8];
    int ncols;
    int nthreads[REC_TUNE_COLS];
    int nnthreads;
    struct rec_tune_fn {
        char name[24];
        double cell[REC_TUNE_COLS][2]; /* latency (us), bandwidth (GB/s) */
        int ncell;
    } fns[16];
    int nfns;
    struct rec_tune_choice {
        char fn[24]; /* "AllReduce" (2.23+'s "AllReduce: 4 Bytes -> ..."), "" not named */
        double bytes, time_us; /* time_us NAN when not printed */
        int algo, proto;       /* -1: a name not known */
    } choices[64];
    int nchoices;
    int choices_dropped; /* distinct choices past the array (repeats are kept once) */
    /* 2.27's "Enabled NCCL Func/Proto/Algo Matrix" */
    char mcols[REC_TUNE_COLS][16];
    int nmcols, mproto_cols; /* the first mproto_cols columns are protocols */
    struct rec_tune_mrow {
        char name[24];
        unsigned on; /* a bit per column */
    } mrows[16];
    int nmrows;
    int matrix_state; /* parser: 0 none, 1 the title read, 2 its header read */
};

/* TUNING's algorithm and protocol indexes ("Algo 1 proto 2"): "Ring", "Simple"; NULL past. */
const char *rec_tune_algo(int i);
const char *rec_tune_proto(int i);

struct rec_graph {
    struct rec_pattern {
        int pattern, crossnic, nchannels, same_channels, channel_lines;
        double bw_intra, bw_inter;
        char type_intra[8], type_inter[8];
        int host_id; /* the printer (host id, -1 none; pid; tid): its channel lines follow */
        long pid, tid;
    } patterns[16];
    int npatterns;
    int nvls_heads;
};

/* What the job's own launcher or framework says about it (not NCCL). */
struct rec_job {
    int world;           /* the world size (ranks), -1 unknown */
    char world_from[16]; /* what said it: "vLLM" ("rank N in world size W ...") */
    int procs;           /* processes started: mpirun's -np, srun's tasks, -1 unknown
                            (nccl-tests' -g runs several ranks in one) */
    char procs_from[8];  /* the launcher that said procs: "mpirun", "srun" */
    bool cmd_open;       /* the command line before ended in '\': this one goes on with it */
    int tp, pp, dp;      /* vLLM's "assigned as DP rank a, PP rank b, TP rank c": largest + 1,
                            0 when never said */
    int per_proc;        /* ranks a process of nccl-tests runs (its -g times its -t), 0 when
                            no command line names an nccl-tests program */
};

/* A file read into a record, and a digest of its text (after gunzip; 0 until asked). */
struct rec_read {
    char *path;
    bool digested;
    unsigned long long len, h[2];
};

struct rec_log {
    char version[96];    /* "2.18.3+cuda12.2", "2.28.3-amdsmi-bdf-topology:360c5c6+", "" */
    char library[8];     /* "NCCL", "RCCL", "" unknown */
    char too_large[320]; /* "file:line: what: larger than ...": refused, never shown in part */
    unsigned prefixes;   /* REC_PFX_* seen */
    enum rec_launcher launcher;
    bool rccl;              /* a line form only RCCL prints */
    bool placeholder_said;  /* a placeholder host was warned about */
    bool nccl_lines;        /* NCCL INFO/WARN lines were read */
    int neighbour_lines;    /* "Ring 00 : 7 -> 0 -> 1" lines read (neighbours, no order) */
    char tests_version[32]; /* nccl-tests' "nccl-library=22902" as "2.29.2" */
    /* communicators (reccomm.h) */
    struct rec_unit *units;
    int nunits, capunits, tests_unit;
    int tests_more; /* ranks a list of devices says it does not list (collviz bench, MPI) */
    int tunits[63], ntunits;   /* more device-line units: runs whose ranks repeat the first's */
    unsigned char *blk_claims; /* per rank: device lines claiming it in the current list */
    int blk_cap;
    long blk_line;
    const struct rec_file *blk_file;
    struct rec_map threads, procs, ptrs, hostmap, linkmap;
    /* rec_unit_for's last answer, good while threads, procs and ptrs are as they were
     * (map_gen: a count of their changes): a thread's lines come in runs */
    struct rec_unit_memo {
        bool set;
        int host, unit;
        long pid, tid;
        uint64_t ptr;
        unsigned gen;
    } unit_memo;
    unsigned map_gen;
    char **hostnames;
    int nhostnames;
    int *host_lines;     /* per host id: lines read with it */
    int first_hosts[64]; /* the host of each file's first line (it may be cut at the start) */
    int nfirst;
    struct rec_facts *comms;
    int ncomms;
    struct rec_ctopo *ctopo; /* per communicator, after rec_finish (recview.h) */
    /* what the whole-record rings and trees (the first of each channel, rank) leave out:
     * other units' rings and tree entries, for their communicators' own pictures */
    int ring_unit[REC_MAX_CHANNELS]; /* the unit of rings[c] */
    struct rec_xring {
        int unit, chan, n;
        int *order;
    } * xrings;
    int nxrings, capxrings;
    struct rec_xtree {
        int unit, chan, me;
        struct rec_tnode node;
    } * xtrees;
    int nxtrees, capxtrees;
    struct rec_tuning tuning;
    struct rec_graph graph;
    struct rec_job job;
    unsigned char *wcodes; /* per warning */
    unsigned wseen;        /* a bit per rec_wcode warned */
    size_t kept;           /* bytes of ranks, rings, trees and links kept (see room()) */
    size_t text_bytes;     /* text read, all files */
    int nranks;            /* -1 unknown */
    bool nranks_floor;     /* nranks is only the largest rank named + 1: "at least" */
    bool comm_view;        /* a communicator's view (recview.h), not a record */
    bool indent_said;      /* lines indented as pasted were warned about */
    struct rec_read *read; /* the files read (recfile.c: a copy is read once) */
    int nread;
    bool rings_from_links;  /* a ring was pieced from link lines (no or a cut ring line) */
    int nnodes;             /* said by a comm line; -1 unknown */
    int machines_more;      /* machines past one a host name (their ranks' machine > 0) */
    struct rec_rank *ranks; /* rank_slots of them: at least maxrank + 1 and nranks */
    int rank_slots;
    int maxrank; /* the highest rank any line named, -1 none */
    struct rec_ring rings[REC_MAX_CHANNELS];
    struct rec_tree trees[REC_MAX_CHANNELS];
    struct rec_link *links;
    int nlinks, caplinks;
    struct rec_test tests[REC_MAX_TESTS];
    int ntests;
    struct rec_host_net *nets; /* by host id + 1 (0: lines without a host): nnets of them */
    int nnets;
    struct rec_map viamap; /* the links' transports, interned */
    char **vias;
    int nvias;
    bool nvls;           /* any host */
    int init_complete;   /* "Init COMPLETE" lines */
    char init_error[64]; /* NCCL's error trace through init: "init.cc:1089 -> 3" */
    int lines;           /* lines recognised, all files */
    char **errors;       /* "file:line: what" */
    int nerrors, errors_dropped;
    char **warnings;
    int nwarnings, warnings_dropped;
    /* parser state (private) */
    int cur_test;     /* test the next rows belong to, -1 none */
    int hdr_n;        /* the current table header's columns, 0 none */
    int group_first;  /* the first test read under the current header */
    bool interleaved; /* rows of several runs under the current header */
    char hdr[REC_HDR_WORDS][10];
    bool hdr_ms;      /* "(ms)" units line */
    bool hdr_made;    /* the header was made from a headerless row's shape */
    int hdr_copies;   /* tables side by side under one header (1: one table) */
    int side_first;   /* the first of their tests */
    int rows_refused; /* lines of a row's shape that no table could take */
    char pending_coll[32];
    int first_warn_line;
    char first_warn[160];
    bool commsizes_differ;
    bool ring_printer;  /* a ring line was read: rank 0's */
    bool ring_cut_said; /* a ring order at NCCL's print limit was warned about */
    int forms[3];       /* link lines, [0] SHM, [1] P2P, [2] NET: 1 "Ch 00/0 :", 2 "Ch 00 :" */
    struct rec_line ln; /* the line being read */
    struct rec_file *file; /* the file being read */
    int unit;              /* its unit, -1 none */
    bool tests_hashless;   /* nccl-tests' lines without '#' seen */
    int dev_unit;          /* the unit of the list of devices being read, -1 none */
    int dev_lists;         /* lists of devices begun */
    long dev_line;         /* the line of its latest device line */
    bool wrap_open;        /* the line before was an opening "(" alone */
    int last_pattern;      /* GRAPH: a pattern was read (its index), -1 none */
};

struct rec_log *rec_new(void);
void rec_free(struct rec_log *L);
/* Read one file's text (len bytes, need not end in NUL) named `name` (for messages).
 * Returns the number of lines recognised in it. */
int rec_parse(struct rec_log *L, const char *name, const char *text, size_t len);
/* The same, streamed: begin, then whole lines (any number at a time; the last of a file may
 * lack its newline), then end (returns the lines recognised in the file). */
void rec_parse_begin(struct rec_log *L, const char *name);
void rec_parse_lines(struct rec_log *L, const char *text, size_t len);
int rec_parse_end(struct rec_log *L, bool ends_in_newline);
/* What could not be read, said as it is ("FILE: cannot open: No such file or directory"):
 * kept with the line errors, so every reader of L (stderr, the JSON's warnings) has it. */
/* A warning that the text is cut (a file's data ending early), said with the others. */
__attribute__((format(printf, 2, 3))) void rec_note_cut(struct rec_log *L, const char *fmt,
                                                        ...);
__attribute__((format(printf, 2, 3))) void rec_note_error(struct rec_log *L, const char *fmt,
                                                          ...);
/* A warning of no kind of its own ("other"), said with the others and kept however many
 * there are (one a file given, at most). */
__attribute__((format(printf, 2, 3))) void rec_note(struct rec_log *L, const char *fmt, ...);
/* After the last file: the warnings about what is missing or odd. */
void rec_finish(struct rec_log *L);

/* A channel's ring as hosts: how many of its hops cross from one host to another; -1 when a
 * rank's host is unknown. */
int rec_ring_crossings(const struct rec_log *L, int channel);
/* Rank r's node as every view names it: its host, and where the record proves several
 * machines share that name (records.h: machine), which one ("user (machine 2)"); "" when
 * its host is unknown. */
const char *rec_node_name(const struct rec_log *L, int r, char *buf, size_t n);
/* The machine of rank r among those of its host name, 1-based; 0 when its name is one
 * machine's (or unknown). */
int rec_rank_machine(const struct rec_log *L, int r);
/* Are ranks a and b (both with a host) on one node: one host, and one machine of it? */
bool rec_same_node(const struct rec_log *L, int a, int b);
/* The hosts in rank order (first appearance), into out[max]; returns how many (out NULL:
 * counts them all). */
int rec_hosts(const struct rec_log *L, const char **out, int max);

#endif
