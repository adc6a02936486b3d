/* hiertext.h - what the hierarchy screen says, as lines of styled text built by plain
 * functions (no curses, unit-tested in tests/unit/test_hiertext.c); hierarchy.c only draws
 * them. Three parts:
 *   - the ladder: the lecture's tiers fastest first with their figures (labelled "lecture"),
 *     the ratio to the next tier down, and beside each tier this machine's measured figures
 *     that belong there (labelled "measured", with how), or how to measure them;
 *   - the napkin panel: the lecture's calculations on editable inputs, and each training
 *     scheme's communication per step on every link (labelled "model");
 *   - the what-if table: one collective at one size on every link (model), which the
 *     collectives screen shows too.
 * Every number is either the lecture's, measured here (with its method), or the model's. */
#ifndef COLLVIZ_UI_HIERTEXT_H
#define COLLVIZ_UI_HIERTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/coll.h"
#include "core/tiers.h"
#include "records/records.h"

enum hier_style {
    HS_TITLE,    /* a heading */
    HS_TEXT,     /* plain words */
    HS_TIER,     /* a tier's name */
    HS_LECTURE,  /* a figure the lecture states */
    HS_MODEL,    /* a figure of the α-β model */
    HS_MEASURED, /* a figure measured on this machine */
    HS_DIM,      /* labels, methods, notes */
    HS_WARN,     /* not measured / not available, and why */
    HS_FIELD,    /* an editable napkin input */
    HS_FIELD_SEL /* the napkin input the keys change */
};

#define HIER_SEGS 8

struct hier_seg {
    enum hier_style style;
    char text[400];
};

struct hier_line {
    struct hier_seg seg[HIER_SEGS];
    int n;
    bool wrap; /* one piece that may be word-wrapped (hier_wrap) rather than clipped */
};

struct hier_lines {
    struct hier_line l[64];
    int n;
};

/* Where a figure measured here stands. */
enum hier_state {
    HM_NONE,    /* not measured yet: say how */
    HM_RUNNING, /* a measurement is on its way */
    HM_DONE,    /* measured: value and how */
    HM_FAILED,  /* the measurement failed: why */
    HM_NA,      /* cannot be measured here: why */
};

struct hier_figure {
    enum hier_state state;
    double gbs;      /* GB/s (1e9 B/s) when HM_DONE */
    char how[512];   /* HM_DONE: how it was measured; HM_FAILED / HM_NA: why not;
                      * HM_NONE: "" or what there will be to see (NCCL's link) */
    enum tier_id at; /* the tier it stands beside */
};

/* A real cluster's record (--nccl-log) on the ladder: the tiers its links use (from the
 * class NCCL's own link lines give, records.h) and its measured busbw, from the file,
 * beside the slowest of them (a ring runs at its slowest hop's pace). */
struct hier_record {
    bool loaded;
    int cls[REC_UNKNOWN + 1]; /* the record's connections of each link class */
    enum tier_id slowest;     /* the slowest tier a connection uses; TIER_COUNT none */
    double busbw_gbs;         /* the largest busbw of its nccl-tests rows, 0 none */
    char how[200];            /* which row: "all_reduce float at 8 GiB, out-of-place" */
};

/* The tier a link class stands at: nvlink -> NVLink; pcie and shm (through host memory
 * over PCIe) -> PCIe; ib, roce (RDMA over Ethernet, in InfiniBand's place between the
 * nodes of a pod) and network (NET/IB: one of the two) -> InfiniBand; socket (TCP) -> Ethernet;
 * -1 for net-plugin and unknown, which do not say what is under them. */
int hier_tier_for_class(enum rec_class c);
/* What the record says for the ladder: the links of communicator comm (the one the
 * topology screen shows; -1 or past the record's: its largest, recview.h). */
void hier_record_from(const struct rec_log *L, int comm, struct hier_record *out);

/* This machine's figures, as the screen knows them (from worker results only). */
struct hier_measured {
    struct hier_figure copy;   /* memcpy bandwidth of this host's memory */
    struct hier_figure cpu_ar; /* the CPU ranks' all-reduce busbw (shared memory) */
    struct hier_figure nccl;   /* NCCL's all-reduce busbw between GPUs */
    /* The mpi backend's all-reduce busbw on the processes of one node (bench --within-node;
     * shared memory, beside the CPU ranks) and across nodes (the network between them, the
     * lecture's InfiniBand tier unless hier_tier_for_mpi says otherwise). */
    struct hier_figure mpi_node;
    struct hier_figure mpi_net;
    char measure_key[8];    /* the key that measures: "m" ("" where none is named) */
    struct hier_record rec; /* a record read with --nccl-log (rec.loaded) */
    /* the room's screen (the presenter): a figure measured here is shown, one that is not
     * (not yet, measuring, failed, not available) is not: which backend can run is the
     * speaker's to know, said on the notes terminal */
    bool measured_only;
};

/* The tier a link NCCL reports stands at: "NET/Socket" -> TIER_ETHERNET, other "NET/" ->
 * TIER_IB, "NVL" or "NVLink" -> TIER_NVLINK, "NET"/"IB" -> TIER_IB; anything else (PCI, or
 * NULL) -> TIER_PCIE. */
enum tier_id hier_tier_for_link(const char *link);

/* The tier an MPI figure stands at: within one node beside the CPU ranks (TIER_NVLINK's
 * row, "ranks inside one machine"); across nodes on the network: TIER_ETHERNET when the
 * transport says TCP ("tcp", "TCP"), else TIER_IB. */
enum tier_id hier_tier_for_mpi(bool across_nodes, const char *transport);

/* The ladder: one line per tier (name, the lecture's figure, how many times slower the next
 * tier is), with `detail` a second line saying what it connects and what the figure means,
 * and this machine's figures under the tier they belong to. */
void hier_ladder(const struct hier_measured *m, bool utf8, bool detail, struct hier_lines *out);

/* ---- napkin math ------------------------------------------------------------------------ */

enum hier_napkin_field {
    NF_SIZE,     /* all-reduce size, bytes */
    NF_W,        /* ranks */
    NF_DURATION, /* measured duration, seconds */
    NF_PARAMS,   /* parameters */
    NF_BYTES,    /* bytes per parameter */
    NF_BW,       /* effective bandwidth, bytes/s */
    NF_L,        /* layers */
    NF_B,        /* batch rows */
    NF_D,        /* width */
    NF_M,        /* micro-batches */
    NF_COUNT
};

struct hier_napkin_inputs {
    double v[NF_COUNT];
    int sel; /* the selected field */
};

/* The lecture's numbers: 200·1024² fp32 on 8 ranks in 3.5 ms; 1e9 fp32 parameters at
 * 400 GB/s; L = 4, B = 128, D = 1024 (its MLP), 4 micro-batches. */
void hier_napkin_defaults(struct hier_napkin_inputs *in);
/* Change the selected field one notch up (dir > 0) or down: sizes, parameters, bandwidth and
 * duration double or halve, counts step by one (B, D, L double and halve too), each within
 * its limits (W 2..CV_MAX_RANKS ... ). */
void hier_napkin_change(struct hier_napkin_inputs *in, int dir);
/* Select the next (dir > 0) or previous field, wrapping. */
void hier_napkin_select(struct hier_napkin_inputs *in, int dir);
/* A field's name and its value as shown: ("size", "800 MiB"). */
const char *hier_napkin_field_name(enum hier_napkin_field f);
void hier_napkin_field_value(const struct hier_napkin_inputs *in, enum hier_napkin_field f,
                             char *buf, size_t n);

/* The napkin panel: the three calculations and the schemes-per-link table. */
void hier_napkin(const struct hier_napkin_inputs *in, bool utf8, struct hier_lines *out);

/* ---- what-if ---------------------------------------------------------------------------- */

/* Collective c with algorithm a on W ranks at S = bytes on every link (model): α, β, time,
 * busbw; `narrow` (a panel beside the figures that name the collective): time and busbw
 * only, in about 36 columns. A first line names it; a plan the model refuses gives one
 * HS_WARN line saying why. */
void hier_whatif(enum coll c, enum algo a, int W, size_t bytes, bool utf8, bool narrow,
                 struct hier_lines *out);

/* Helpers for the screens: a new line (NULL when full, and then further text is dropped)
 * and a styled piece of it. */
struct hier_line *hier_line_new(struct hier_lines *p);
void hier_add(struct hier_line *l, enum hier_style st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Copy `in` to `out` for a width: a wider line is word-wrapped, its continuation indented
 * two more columns (a line marked `wrap` as one text; any other piece by piece, each
 * keeping its style): nothing is cut while the width is 20 or more. */
void hier_wrap(const struct hier_lines *in, int width, bool utf8, struct hier_lines *out);
/* The presenter's zoom (app.zoom) on lines, in place: from 1 a line that is only notes
 * (every piece HS_DIM: a tier's details, a method, a footnote) goes; from 2 also a line that
 * says a figure is not measured here (any HS_WARN piece). Headings, the lecture's, the
 * model's and the measured figures and the napkin's inputs stay. */
void hier_zoom_lines(struct hier_lines *p, int zoom);
/* The plain text of a line (segments joined), for tests and the golden screen. */
void hier_line_text(const struct hier_line *l, char *buf, size_t n);

#endif
