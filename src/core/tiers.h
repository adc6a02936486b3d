/* tiers.h - the lecture's hierarchy of memories and links, fastest first, with the figures
 * the lecture states (labelled as its figures, never as measured), and for each link the α
 * and β the cost model (model.h) uses on it. Pure data, no I/O.
 *
 * Two kinds of number live here and are never mixed up on screen:
 *   - bw_Bps / bw_text / bw_note: the lecture's figure as it states it;
 *   - model_alpha_s / model_beta_Bps: what the α-β model assumes for one message on the link,
 *     labelled "model assumption" with the reason in alpha_note / beta_note. */
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
    double model_beta_Bps;  /* model assumption: bytes/s each direction (links only) */
    const char *alpha_note; /* why that α (an order of magnitude, not a measurement) */
    const char *beta_note;  /* how β follows from the stated figure */
};

const struct tier *tier_get(enum tier_id t);
/* Accepts the key ("nvlink") and a few spellings ("infiniband", "eth"); -1 if unknown. */
int tier_parse(const char *s, enum tier_id *out);
/* "onchip, hbm, nvlink, pcie, ib, ethernet" into buf. */
void tier_keys(char *buf, size_t n);

/* How many times the stated bandwidth of tier t exceeds that of the next tier below it that
 * states one (the lecture's point: each tier far slower than the one inside it), two links
 * compared each way (their model betas: NVLink's 1.8 TB/s counts both directions); 0 when
 * t or no tier below has a figure. *next (may be NULL) receives that tier. */
double tier_ratio_to_next(enum tier_id t, enum tier_id *next);
/* Whether tier_ratio_to_next compares t and u each way (both links with model betas). */
bool tier_links_each_way(enum tier_id t, enum tier_id u);

/* Format bytes/s as "8 TB/s", "242 GB/s", "200 MB/s" (decimal units, 3 significant
 * figures). */
void tier_format_bw(double Bps, char *buf, size_t n);

#endif
