/* tiers.c - the table of tiers (see tiers.h). The figures are the lecture's
 * (../shared/reference/lecture-07-parallelism.txt, "the interconnect hierarchy"); where it
 * states none (L1, shared memory, L2) the table says so rather than inventing one.
 *
 * The α values are model assumptions: typical orders of magnitude for one small message on
 * each kind of link (software launch plus the wire's latency), round numbers chosen for the
 * cost model, not measurements and not from the lecture. Each link's rate each way
 * (each_way_Bps, also the model's β, because the model's port sends and receives at β each:
 * model.h) is the lecture's figure taken per direction, with the vendor's figure it agrees
 * with named; the one figure the lecture gives for both directions together (NVLink 5's
 * 1.8 TB/s, which NVIDIA states as the total per GPU) is halved, and that is said where it
 * is shown. */
#include "core/tiers.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct tier tiers[TIER_COUNT] = {
    [TIER_ONCHIP] =
        {
            .key = "onchip",
            .name = "SM: L1 / shared memory, L2",
            .connects = "the SMs of one GPU to their on-chip memory",
            .bw_Bps = 0,
            .bw_text = "none given",
            .bw_note = "the fastest; the lecture gives no figure",
            .source = "lecture",
            .link = false,
        },
    [TIER_HBM] =
        {
            .key = "hbm",
            .name = "HBM (B200)",
            .connects = "one GPU to its own memory",
            .bw_Bps = 8e12,
            .bw_text = "~8 TB/s",
            .bw_note = "192 GB on a B200",
            .source = "lecture",
            .link = false,
        },
    [TIER_NVLINK] =
        {
            .key = "nvlink",
            .name = "NVLink 5 + NVSwitch",
            .connects = "8 GPUs in a node, any to any (NVL72: 72 GPUs in one rack)",
            .bw_Bps = 1.8e12,
            .bw_text = "1.8 TB/s",
            .bw_note = "per GPU, both directions together",
            .source = "lecture",
            .link = true,
            .model_alpha_s = 1e-6,
            .each_way_Bps = 0.9e12,
            .vendor = "NVIDIA: NVLink 5 is 1.8 TB/s per GPU in total, 900 GB/s each way",
            .alpha_note = "model assumption: ~1 us per step, the order of a GPU-to-GPU "
                          "message through the switch",
            .beta_note = "model: 900 GB/s each way (the lecture's 1.8 TB/s counts both "
                         "directions)",
        },
    [TIER_PCIE] =
        {
            .key = "pcie",
            .name = "PCIe 7.0 x16 (home)",
            .connects = "GPUs on one host's PCIe bus (the home setup)",
            .bw_Bps = 242e9,
            .bw_text = "242 GB/s",
            .bw_note = "16 lanes of PCIe 7.0, each way",
            .source = "lecture",
            .link = true,
            .model_alpha_s = 1e-6,
            .each_way_Bps = 242e9,
            .vendor = "PCI-SIG: x16 is 512 GB/s both ways, 256 each way, 242 of it data",
            .alpha_note = "model assumption: ~1 us per step, the order of a peer-to-peer PCIe "
                          "transfer's start-up",
            .beta_note = "model: the lecture's 242 GB/s taken as each direction of the x16 "
                         "link",
        },
    [TIER_IB] =
        {
            .key = "ib",
            .name = "InfiniBand",
            .connects = "~256 nodes of a pod, through PCIe to a NIC, with RDMA",
            .bw_Bps = 50e9,
            .bw_text = "~50 GB/s",
            .bw_note = "~0.05 TB/s each way",
            .source = "lecture",
            .link = true,
            .model_alpha_s = 2e-6,
            .each_way_Bps = 50e9,
            .vendor = "NDR InfiniBand: 400 Gb/s a port each way",
            .alpha_note = "model assumption: ~2 us per step, the order of an RDMA message "
                          "between nodes",
            .beta_note = "model: the lecture's ~50 GB/s taken as each direction",
        },
    [TIER_ETHERNET] =
        {
            .key = "ethernet",
            .name = "Ethernet",
            .connects = "pods, and home machines, through PCIe and the CPU",
            .bw_Bps = 200e6,
            .bw_text = "~200 MB/s",
            .bw_note = "between home machines, each way",
            .source = "lecture",
            .link = true,
            .model_alpha_s = 50e-6,
            .each_way_Bps = 200e6,
            .vendor = "no vendor figure: the lecture's estimate between home machines",
            .alpha_note = "model assumption: ~50 us per step, the order of a TCP message "
                          "through the kernel and the CPU",
            .beta_note = "model: the lecture's ~200 MB/s taken as each direction",
        },
};

const struct tier *tier_get(enum tier_id t)
{
    return (unsigned)t < TIER_COUNT ? &tiers[t] : NULL;
}

int tier_parse(const char *s, enum tier_id *out)
{
    static const struct {
        const char *alias;
        enum tier_id t;
    } aliases[] = {
        {"sm", TIER_ONCHIP},       {"l1", TIER_ONCHIP},    {"l2", TIER_ONCHIP},
        {"nvswitch", TIER_NVLINK}, {"nvl72", TIER_NVLINK}, {"infiniband", TIER_IB},
        {"eth", TIER_ETHERNET},
    };
    if (!s) return -1;
    for (int t = 0; t < TIER_COUNT; t++)
        if (strcasecmp(s, tiers[t].key) == 0) {
            *out = (enum tier_id)t;
            return 0;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(s, aliases[i].alias) == 0) {
            *out = aliases[i].t;
            return 0;
        }
    return -1;
}

void tier_keys(char *buf, size_t n)
{
    size_t len = 0;
    if (n == 0) return;
    buf[0] = '\0';
    for (int t = 0; t < TIER_COUNT; t++) {
        int k = snprintf(buf + len, n - len, "%s%s", t ? ", " : "", tiers[t].key);
        if (k < 0 || (size_t)k >= n - len) break;
        len += (size_t)k;
    }
}

const char *tier_basis_words(enum tier_basis b)
{
    return b == TIER_EACH_WAY ? "each way" : "in total";
}

double tier_total_Bps(enum tier_id t)
{
    if ((unsigned)t >= TIER_COUNT) return 0.0;
    if (tiers[t].link) return 2 * tiers[t].each_way_Bps; /* full duplex: both directions */
    return tiers[t].bw_Bps;
}

double tier_ratio_to_next(enum tier_id t, enum tier_id *next, enum tier_basis *basis)
{
    if ((unsigned)t >= TIER_COUNT || tiers[t].bw_Bps <= 0) return 0.0;
    for (int u = (int)t + 1; u < TIER_COUNT; u++)
        if (tiers[u].bw_Bps > 0) {
            if (next) *next = (enum tier_id)u;
            /* two links compare each way: NVLink's 1.8 TB/s counts both directions, PCIe's
             * 242 GB/s one (1.8 TB/s / 242 GB/s = 7.44 compared unlike figures; 3.72) */
            bool links = tiers[t].link && tiers[u].link;
            if (basis) *basis = links ? TIER_EACH_WAY : TIER_IN_TOTAL;
            if (links) return tiers[t].each_way_Bps / tiers[u].each_way_Bps;
            return tier_total_Bps(t) / tier_total_Bps((enum tier_id)u);
        }
    return 0.0;
}

double tier_ratio_measured(enum tier_id t, enum tier_measure k, double Bps)
{
    if ((unsigned)t >= TIER_COUNT || !(Bps > 0)) return 0.0;
    const struct tier *x = &tiers[t];
    if (k == TIER_MEASURED_BUSBW)
        return x->link && x->each_way_Bps > 0 ? x->each_way_Bps / Bps : 0.0;
    /* a copy reads each byte and writes it: the memory carries twice the bytes copied */
    return !x->link && x->bw_Bps > 0 ? x->bw_Bps / (2 * Bps) : 0.0;
}

void tier_format_bw(double Bps, char *buf, size_t n)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (Bps >= units[i].scale) {
            snprintf(buf, n, "%.3g %s", Bps / units[i].scale, units[i].unit);
            return;
        }
    snprintf(buf, n, "%.3g B/s", Bps);
}
