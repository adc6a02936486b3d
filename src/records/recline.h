/* recline.h - one line of a record as launchers and terminals deliver it: the prefixes they
 * put before NCCL's own "host:pid:tid [dev] NCCL INFO", the suffixes after it, and the header
 * itself, read by its whole form.
 *
 * Pure: a line in, its parts out. The grammar, from the launchers' and NCCL's own format
 * strings (NCCL's debug.cc: "%s:%d:%d [%d] NCCL INFO ", and "... %s:%d NCCL WARN " with the
 * source file): any number of launcher prefixes (Open MPI's "[1,0]<stdout>:", torchrun's
 * "[rank0]:", Ray's "(RayWorkerWrapper pid=N, ip=...)" and vLLM V1's nested one, MPICH's
 * "[0] ", srun -l's "0: ", pdsh's "host: ", docker/kubectl's "name  | ", CloudWatch's
 * "  | time | ", timestamps in ISO, syslog, ctime and Python-logging forms, colour codes as
 * bytes or as the text "ESC[36m"), then the header, then the message, then Ray's
 * "[repeated 15x across cluster]". A header that is not whole is no header: what came before
 * it is never a host. */
#ifndef COLLVIZ_RECORDS_RECLINE_H
#define COLLVIZ_RECORDS_RECLINE_H

#include <stdbool.h>
#include <stddef.h>

/* The prefixes seen (bits), named by rec_prefix_name. */
enum {
    REC_PFX_TAG_OUTPUT = 1 << 0, /* "[1,0]<stdout>:" */
    REC_PFX_RANK_TAG = 1 << 1,   /* "[0] " */
    REC_PFX_TORCHRUN = 1 << 2,   /* "[rank0]:", "[default0]:" */
    REC_PFX_RAY = 1 << 3,        /* "(RayWorkerWrapper pid=N, ip=...)" */
    REC_PFX_RAY_NESTED = 1 << 4,
    REC_PFX_PDSH = 1 << 5,       /* "10.0.0.1: " */
    REC_PFX_PYLOG = 1 << 6,      /* "2025-11-12 20:41:43,851 - INFO - " */
    REC_PFX_TIME = 1 << 7,       /* any date/time */
    REC_PFX_PIPE = 1 << 8,       /* CloudWatch "  | ... | " */
    REC_PFX_ANSI = 1 << 9,       /* ESC bytes (or what is left of them: "[0m") */
    REC_PFX_ANSI_TEXT = 1 << 10, /* the text "ESC[36m" */
    REC_PFX_HASHLESS = 1 << 11,  /* nccl-tests' comment lines without '#' (set by the reader) */
    REC_PFX_SLURM = 1 << 12,     /* srun -l's "0: " */
    REC_PFX_DOCKER = 1 << 13,    /* "name  | " */
    REC_PFX_N = 14
};
const char *rec_prefix_name(int bit); /* bit index 0..REC_PFX_N-1 */

enum rec_launcher {
    REC_LAUNCH_NONE,
    REC_LAUNCH_OPEN_RTE,
    REC_LAUNCH_HYDRA,
    REC_LAUNCH_TORCHRUN,
    REC_LAUNCH_RAY,
    REC_LAUNCH_PDSH,
    REC_LAUNCH_SLURM,
    REC_LAUNCH_DOCKER,
};
const char *rec_launcher_name(enum rec_launcher l); /* NULL for NONE */

/* What a line may hold (rec_line.marks), found in one pass over it: a bit is clear only when
 * its text is nowhere in the line, so a reader searches for that text (strstr) only in lines
 * that may hold it, and most lines are read without searching at all. */
enum {
    REC_MK_HDR = 1 << 0,      /* "NCCL INFO" or "NCCL WARN" */
    REC_MK_HDR2 = 1 << 1,     /* two of them or more */
    REC_MK_VERSION = 1 << 2,  /* "NCCL version " or "RCCL version " */
    REC_MK_COMM = 1 << 3,     /* "comm 0x" */
    REC_MK_START = 1 << 4,    /* "Init START" */
    REC_MK_COMPLETE = 1 << 5, /* "Init COMPLETE" */
    REC_MK_NRANKS = 1 << 6,   /* " nranks " or " nRanks " */
    REC_MK_INITCC = 1 << 7,   /* "init.cc:" or "init.cu:" */
    REC_MK_REPEAT = 1 << 8,   /* "[rep" (Ray's "[repeated Nx ...]", or its cut start) */
    REC_MK_ARROW = 1 << 9,    /* "->" */
    REC_MK_VIA = 1 << 10,     /* " via " */
    REC_MK_RECEIVE = 1 << 11, /* "[receive]" */
    REC_MK_PYLOG = 1 << 12,   /* "INFO ", "WARNING ", "ERROR " or "DEBUG " before a digit */
    REC_MK_NVLS_MC = 1 << 13, /* "NVLS multicast support is available" */
    REC_MK_ENV = 1 << 14,     /* " set by environment to " */
    REC_MK_RCCL = 1 << 15,    /* a text only RCCL prints ("rsmi", "librccl-net.so", ...) */
    REC_MK_N = 16,
    /* the marks of one text each, matched whole: rec_line.first says where the first is */
    REC_MK_EXACT = REC_MK_COMM | REC_MK_START | REC_MK_COMPLETE | REC_MK_ARROW | REC_MK_VIA |
                   REC_MK_RECEIVE | REC_MK_NVLS_MC | REC_MK_ENV,
};

struct rec_line {
    unsigned prefixes;        /* REC_PFX_* */
    unsigned marks;           /* REC_MK_*, of the whole cleaned line (set by rec_line_clean) */
    const char *line;         /* the cleaned line */
    unsigned first[REC_MK_N]; /* an exact mark's first text: at line + first[bit index] */
    enum rec_launcher launcher;
    bool dedup;       /* Ray's "[repeated Nx across cluster]" was cut off the end */
    bool cut;         /* the line ends inside a form (a header, a dedup suffix) */
    bool spliced;     /* another process's line runs into this one */
    bool unreadable;  /* "NCCL INFO" after text that is no known prefix */
    bool glued;       /* the header's host runs on from that text ("166015g183") */
    bool placeholder; /* the header's host is a placeholder ("<cluster_name>"): no host */
    /* spliced, and the first header had no text before the second: its text may follow on
     * the next line, without a header ("A [1] NCCL INFO B [2] NCCL INFO ...\nRing 05 : ...") */
    bool owner;
    char owner_host[64];
    long owner_pid, owner_tid;
    int owner_dev;
    /* the header, when whole: */
    bool nccl; /* "... NCCL INFO " or "NCCL WARN " */
    bool warn;
    char host[64];    /* "" when the header has none (" [0] NCCL INFO") */
    long pid, tid;    /* -1 unknown */
    int dev;          /* -1 unknown */
    const char *body; /* after the prefixes (into the line) */
    const char *msg;  /* after "NCCL INFO " / "NCCL WARN ", when nccl */
};

/* Copy raw bytes [b, e) into out (REC_MAX_LINE + 1 bytes) as printable ASCII: colour codes
 * and Open MPI tags removed (noted in *ln), tabs as spaces, other bytes '?'; ln->marks are
 * the copy's (rec_line_marks), found in the same pass. */
void rec_line_clean(const char *b, const char *e, char *out, struct rec_line *ln);
/* The REC_MK_* bits of cleaned line `line`, and where the exact ones are (ln->first). */
unsigned rec_line_marks(const char *line, struct rec_line *ln);
/* Then split the cleaned line in place (a dedup suffix is cut off); ln->marks stay those of
 * the whole line. */
void rec_line_split(char *line, struct rec_line *ln);

#endif
