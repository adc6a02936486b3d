/* tiers.h - the lecture's hierarchy of memories and links, fastest first, with the figures
 * the lecture states (labelled as its figures, never as measured), and for each link the α
 * and β the cost model (model.h) uses on it. Pure data, no I/O.
 *
 * Two kinds of number live here and are never mixed up on screen:
 *   - bw_Bps / bw_text / bw_note: the lecture's figure as it states it;
 *   - each_way_Bps (links): the rate one direction of the link carries, with the vendor's
 *     figure it comes from named in `vendor`; it is what a busbw, or another link's rate, is
 *     compared with, and the β the α-β model assumes (beta_note), beside model_alpha_s
 *     (alpha_note: "model assumption").
 * A ratio shown compares like with like (tier_ratio_to_next, tier_ratio_measured): one
 * direction with one direction, a total with a total. */
#ifndef COLLVIZ_CORE_TIERS_H
#define COLLVIZ_CORE_TIERS_H

#include <stdbool.h>
#include <stddef.h>

enum tier_id {
    TIER_ONCHIP,   /* SMs with L1 / shared memory and L2 */
    TIER_HBM,      /* one GPU's HBM */
    TIER_NVLINK,   /* GPUs in a node through an NVSwitch; NVL72 rack as the extended domain */
    TIER_PCIE,     /* the home setup: GPUs on a PCIe bus */
    TIER_IB,       /* nodes in a pod on InfiniBand */
    TIER_ETHERNET, /* beyond the pod, and between home machines */
    TIER_COUNT
};

struct tier {
    const char *key;        /* "nvlink": the name --tier and the screens use */
    const char *name;       /* "NVLink 5 + NVSwitch" */
    const char *connects;   /* what it connects: "8 GPUs in a node (NVL72 rack: 72)" */
    double bw_Bps;          /* the stated figure in bytes/s (1e9 = GB/s); 0 = none stated */
    const char *bw_text;    /* the figure as stated, short: "1.8 TB/s", "none given" */
    const char *bw_note;    /* what the figure means: "per GPU, both directions together" */
    const char *source;     /* "lecture": where bw_text comes from */
    bool link;              /* a link between ranks: the α-β model applies */
    double model_alpha_s;   /* model assumption: per message / step latency (links only) */
    double each_way_Bps;    /* bytes/s one direction carries (links only); the model's β */
    const char *vendor;     /* the vendor's figure each_way_Bps comes from, named (links) */
    const char *alpha_note; /* why that α (an order of magnitude, not a measurement) */
    const char *beta_note;  /* how β follows from the stated figure */
};

const struct tier *tier_get(enum tier_id t);
/* Accepts the key ("nvlink") and a few spellings ("infiniband", "eth"); -1 if unknown. */
int tier_parse(const char *s, enum tier_id *out);
/* "onchip, hbm, nvlink, pcie, ib, ethernet" into buf. */
void tier_keys(char *buf, size_t n);

/* What two figures were compared on: one direction each, or all of each (a memory's
 * bandwidth, a link's both directions added). */
enum tier_basis { TIER_EACH_WAY, TIER_IN_TOTAL };
/* "each way", "in total" */
const char *tier_basis_words(enum tier_basis b);

/* A tier's figure in total: a memory's stated bandwidth, a link's both directions added
 * (2 x each_way_Bps: NVLink 5's 1.8 TB/s); 0 when none is stated. */
double tier_total_Bps(enum tier_id t);

/* How many times the bandwidth of tier t exceeds that of the next tier below it that
 * states one (the lecture's point: each tier far slower than the one inside it), like with
 * like: two links each way (NVLink 900 GB/s over PCIe 242, not its 1.8 TB/s that adds both
 * directions), a memory over a link in total (HBM 8 TB/s over NVLink's 1.8); 0 when t or no
 * tier below has a figure. *next and *basis (each may be NULL) receive that tier and the
 * basis. */
double tier_ratio_to_next(enum tier_id t, enum tier_id *next, enum tier_basis *basis);

/* What a figure measured on this machine (or read from a record) is. */
enum tier_measure {
    TIER_MEASURED_BUSBW, /* a collective's busbw: bytes each way per second, as a link's */
    TIER_MEASURED_COPY,  /* a memory copy: bytes copied per second (each read and written) */
};
/* How many times tier t's figure exceeds a measured one of Bps, like with like: a busbw
 * against a link's rate each way; a copy, as the memory traffic it makes (2 x Bps), against a
 * memory's total. 0 when there is no like figure (a busbw beside a memory, a copy beside a
 * link, a tier with none stated) or Bps is not positive: then no ratio is shown. */
double tier_ratio_measured(enum tier_id t, enum tier_measure k, double Bps);

/* Format bytes/s as "8 TB/s", "242 GB/s", "200 MB/s" (decimal units, 3 significant
 * figures). */
void tier_format_bw(double Bps, char *buf, size_t n);

#endif
