/* reccomm.h - communicators in a record: which lines belong to which, and what each says.
 *
 * NCCL names a communicator three ways: its commId (2.12+'s "Init START/COMPLETE" lines, the
 * same on every rank), its "comm 0x..." pointer (one per process and communicator; RCCL puts
 * it on link and tree lines too), and, for the lines between, only the thread that is
 * initialising it. So a line goes to a "unit" (one process's share of one communicator):
 * the unit of its pointer when it has one, else the unit its thread (or process) is
 * initialising; "Init COMPLETE" ends that. After the last file units are grouped into
 * communicators: by commId; a unit without one (its "Init COMPLETE" not in the text) into
 * the one identified communicator that can hold it (a process on its host, its ranks within
 * the size, its rank not another process's), when exactly one can; the rest together, unless
 * two of them claim the same rank (then as many groups as the most-claimed rank has claimants,
 * each unit joining the group whose lines are most like its own).
 *
 * Hosts are interned (an id per name), so a unit, a rank or a communicator keeps ints. */
#ifndef COLLVIZ_RECORDS_RECCOMM_H
#define COLLVIZ_RECORDS_RECCOMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rec_log;

enum {
    REC_FEAT_GDRDMA = 1 << 0,
    REC_FEAT_PXN = 1 << 1,
    REC_FEAT_NVLS = 1 << 2,
};

/* What lines of one unit are: what the grouping compares. */
enum {
    REC_KIND_RING = 1 << 0,
    REC_KIND_LINK = 1 << 1,
    REC_KIND_TREES = 1 << 2,
    REC_KIND_CONNECTED = 1 << 3,
    REC_KIND_CHUNK = 1 << 4,
    REC_KIND_ENV = 1 << 5,
    REC_KIND_AFFINITY = 1 << 6,
    REC_KIND_NCHANNELS = 1 << 7,
    REC_KIND_COMM = 1 << 8,
    REC_KIND_THRESH = 1 << 9,
};

#define REC_MAX_TRANSPORTS 8

struct rec_facts {                /* of a unit, or of a communicator (the units' union) */
    char id[24];                  /* commId "0x...", "" none */
    int nranks, nnodes, channels; /* -1 unknown */
    int localranks;               /* "localRanks 1", -1 unknown */
    /* rank sets and maps kept as windows [lo, end) that grow towards what is named: a unit
     * (one process) names a few ranks, a communicator all of them */
    unsigned char *seen;   /* ranks seen: one bit each, bytes seen_lo..seen_cap-1 */
    int seen_lo, seen_cap; /* bytes; ranks below seen_cap * 8 */
    unsigned char *placed; /* ranks whose host is known: a printer, its P2P/SHM peer */
    int placed_lo, placed_cap;
    unsigned char *printed; /* ranks that printed a line (a link's, a ring's printer) */
    int printed_lo, printed_cap;
    int *next0;         /* channel 0's links: next0[from - next_lo] = to + 1 (0 none) */
    int next_lo, nnext; /* nnext: the end of the window */
    bool next_bad;      /* a rank with two successors: no ring is read from them */
    int *hosts;         /* host ids */
    int nhosts, caphosts;
    unsigned char rings[32]; /* a bit per channel whose ring order is printed */
    bool trees;
    char transports[REC_MAX_TRANSPORTS][24];
    int ntransports;
    unsigned features, kinds;
};

struct rec_map { /* uint64 -> int, open addressing */
    struct rec_slot {
        uint64_t key; /* key + 1; 0 is empty */
        int val;
    } * slots; /* a key beside its value: a look-up touches one cache line */
    size_t cap, n;
};
int rec_map_get(const struct rec_map *m, uint64_t key); /* -1 absent */
void rec_map_put(struct rec_map *m, uint64_t key, int val);
void rec_map_free(struct rec_map *m);

struct rec_unit {
    int host; /* host id, -1 none */
    long pid;
    uint64_t ptr;   /* "comm 0x...", 0 none */
    int rank;       /* the rank this process is in it, -1 unknown */
    bool done;      /* its "Init COMPLETE" was read */
    bool tests;     /* nccl-tests' device lines */
    bool list_open; /* its list of devices runs to the end of its file or into a cut line:
                       it does not prove its own length */
    int group;      /* the communicator it is in, after rec_comm_finish */
    int into;       /* its facts were merged into this unit (rehosted, or an Init START cut),
                       -1 none: its lines are that unit's */
    int device;     /* its rank's CUDA device ("cudaDev N"), -1 unknown */
    struct rec_facts f;
    struct rec_map links; /* its links while reading (records.c's link_line) */
};

int rec_host_id(struct rec_log *L, const char *name, bool create); /* -1: none */
const char *rec_host_name(const struct rec_log *L, int id);

/* The unit a NCCL line of (host, pid, tid) belongs to; ptr is the line's "comm 0x..." or 0.
 * moved: the line was printed out of its order (Ray's deduplication prints a summary line
 * later): it belongs where it says, but does not start or continue a thread's unit. */
int rec_unit_for(struct rec_log *L, int host, long pid, long tid, uint64_t ptr, bool moved,
                 bool start, long nranks);
/* Unit u is complete ("Init COMPLETE"): its thread's next lines start another. */
void rec_unit_done(struct rec_log *L, int u);
/* A line naming ranks up to maxrank cannot be unit u's when u has fewer, nor a network link
 * (net 1) one of a communicator of one node, nor a P2P/SHM link (net 0) one of a
 * communicator with one rank a node: the process's latest unit that can hold it, else -1.
 * net -1: not a link. */
int rec_unit_fitting(struct rec_log *L, int u, long maxrank, int net);
/* A new unit for the thread: its lines are of a communicator not named yet. */
int rec_unit_fresh(struct rec_log *L, int host, long pid, long tid);
/* A connection line of rank `rank` on device `dev` that came to the empty unit u after its
 * process's communicators were complete: NCCL 2.22+ connects at a communicator's first
 * collective (NCCL_RUNTIME_CONNECT), after its "Init COMPLETE". The line is the complete
 * unit's of that process whose rank and device are these and whose size holds maxrank,
 * when exactly one is; else u. */
int rec_unit_connecting(struct rec_log *L, int u, int dev, long rank, long maxrank);
int rec_tests_unit(struct rec_log *L);
/* The k-th of nccl-tests' device-line units: a list of devices where k processes before
 * this one claimed the same rank is k+1 separate runs (each its own communicator). */
int rec_tests_unit_k(struct rec_log *L, int k);
/* Unit u's host is host after all: its facts join that process's other unit, if any. */
void rec_unit_rehost(struct rec_log *L, int u, int host);

void rec_facts_seen(struct rec_facts *f, long rank);
void rec_facts_placed(struct rec_facts *f, long rank);
void rec_facts_printed(struct rec_facts *f, long rank);
bool rec_facts_printed_has(const struct rec_facts *f, int rank);
void rec_facts_next0(struct rec_facts *f, long from, long to);
bool rec_facts_has(const struct rec_facts *f, int rank);
/* The first rank seen at or above rank, -1 none: a loop over the ranks seen costs what they
 * span in bytes, not a test per rank. */
int rec_facts_next(const struct rec_facts *f, int rank);
void rec_facts_host(struct rec_facts *f, int host);
void rec_facts_transport(struct rec_facts *f, const char *via);
void rec_facts_free(struct rec_facts *f);
int rec_facts_nrings(const struct rec_facts *f);

/* Is host a host of nccl-tests' device lines? */
bool rec_host_in_tests(const struct rec_log *L, int host);

/* After the last file: L->comms from L->units. */
void rec_comm_finish(struct rec_log *L);
/* The communicator of unit u's lines (following merges), -1 none. */
int rec_unit_comm(const struct rec_log *L, int u);

#endif
