/* recsay.h - a record's facts in words: the job and its groups of ranks (from the
 * communicators NCCL printed and what the job's framework says of itself), and what NCCL's
 * tuner chose, one sentence per collective. Pure: a read record in, plain data and
 * sentences out. */
#ifndef COLLVIZ_RECORDS_RECSAY_H
#define COLLVIZ_RECORDS_RECSAY_H

#include <stdbool.h>
#include <stddef.h>

struct rec_log;
struct rec_tuning;

#define REC_SAY_LEN 320
#define REC_SAY_GROUPS 16

/* Where a communicator's ranks are. */
enum rec_span {
    REC_SPAN_UNKNOWN, /* the record does not say */
    REC_SPAN_ONE,     /* on one node */
    REC_SPAN_ACROSS,  /* one rank a node, across nodes */
    REC_SPAN_SEVERAL, /* several ranks a node, over several nodes */
};
const char *rec_span_name(enum rec_span s); /* "one-node", "across-nodes", ... */

/* Communicators of one size and span. */
struct rec_group {
    const char *role; /* "TP", "PP", "DP" when the job's framework names it, else NULL */
    int nranks;       /* -1 unknown */
    enum rec_span span;
    int nnodes;   /* for REC_SPAN_SEVERAL/ACROSS: nodes of one communicator, -1 unknown */
    int seen;     /* communicators of it in the record */
    int expected; /* how many the job has (world size / nranks, for a named role), -1 */
};

struct rec_jobsay {
    int world;              /* ranks, -1 unknown */
    const char *world_from; /* what says so ("vLLM"), NULL */
    int procs;              /* mpirun's -np, srun's tasks, -1 */
    const char *procs_from; /* "mpirun", "srun" */
    struct rec_group groups[REC_SAY_GROUPS];
    int ngroups;
    char sentence[REC_SAY_LEN]; /* "world size 16 (vLLM says so); TP 8 x 2, ..." */
};
void rec_say_job(const struct rec_log *L, struct rec_jobsay *J);

/* What NCCL chose, a sentence per collective ("AllReduce: NCCL chose Tree/LL up to 64 KiB,
 * then Ring/Simple from 128 KiB"), in the order the collectives first appear; fn[i] is ""
 * for choices whose collective the line does not name. Returns how many. */
int rec_say_tuning(const struct rec_tuning *T, char fn[][24], char say[][REC_SAY_LEN], int max);

/* Files given together are one job's record (one file per node or rank) or refused: read
 * each alone, and two that cannot be of one job (different libraries or versions, NCCL
 * refuses to mix them; commIds printed by both and none shared; communicator sizes known in
 * both and none shared) make a one-line message naming them and why, and false. Files
 * that cannot be opened are left to the reader's own message. Hosts are not compared: one
 * job's per-node files name different hosts. */
bool rec_one_job(const char *const *paths, int n, char *msg, size_t len);
/* No file given twice (one file under two names included: compared by device and inode): a
 * file given twice would be counted twice. Else a one-line message naming both, and false. */
bool rec_distinct_files(const char *const *paths, int n, char *msg, size_t len);

/* The size and nodes of a record (or of a communicator's view, recview.h) as every view
 * states them (the text's first line, the JSON's nranks/nranks_at_least and nnodes, the
 * topology screen's title): the record's own, else its one communicator's, else the
 * launcher's where the rows prove it (recfit.h), else the largest rank named + 1 as a floor
 * (*floor: "at least"); -1 unknown. */
void rec_size(const struct rec_log *L, int *nranks, bool *floor, int *nnodes);
/* The same in words: "16 ranks on 2 nodes", "at least 4 ranks on at least 1 node" (the
 * hosts that printed are a floor of the nodes); false (buf "") when nothing is known. */
bool rec_say_size(const struct rec_log *L, char *buf, size_t cap);

#endif
