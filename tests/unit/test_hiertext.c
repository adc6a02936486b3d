/* test_hiertext.c - the hierarchy screen's text (ui/hiertext.h): the ladder
 * carries the lecture's figures and ratios, labelled, and this machine's figures beside their
 * tiers in each state (not yet measured: how to; measured: value, method, ratio to the
 * lecture's tier; cannot: why); the napkin panel reproduces the lecture's worked answers and
 * the per-link scheme costs (model), worked by hand below; field editing clamps; the what-if
 * table's rows equal the ring closed form. Expected strings are literal, not recomputed. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "ui/hiertext.h"

/* The index of the first line whose text contains `want`, or fail. */
static int find(const struct hier_lines *p, const char *want)
{
    char buf[1024];
    for (int i = 0; i < p->n; i++) {
        hier_line_text(&p->l[i], buf, sizeof buf);
        if (strstr(buf, want)) return i;
    }
    for (int i = 0; i < p->n; i++) {
        hier_line_text(&p->l[i], buf, sizeof buf);
        print_message("  | %s\n", buf);
    }
    fail_msg("no line contains '%s'", want);
    return -1;
}

/* The style of the segment of line i whose text contains `piece`. */
static enum hier_style style_of(const struct hier_lines *p, int i, const char *piece)
{
    for (int k = 0; k < p->l[i].n; k++)
        if (strstr(p->l[i].seg[k].text, piece)) return p->l[i].seg[k].style;
    fail_msg("line %d has no segment '%s'", i, piece);
    return HS_TEXT;
}

static void measured_init(struct hier_measured *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->measure_key, sizeof m->measure_key, "m");
    m->copy.at = TIER_HBM;
    m->cpu_ar.at = TIER_NVLINK;
    m->nccl.at = TIER_NVLINK;
    m->mpi_node.at = hier_tier_for_mpi(false, NULL);
    m->mpi_net.at = hier_tier_for_mpi(true, "tcp");
}

static void test_ladder(void **state)
{
    (void)state;
    static struct hier_lines p;
    struct hier_measured m;
    measured_init(&m);
    m.nccl.state = HM_NA;
    snprintf(m.nccl.how, sizeof m.nccl.how, "no GPU in use here");
    m.mpi_net.state = HM_NA;
    snprintf(m.mpi_net.how, sizeof m.mpi_net.how, "no MPI backend built");
    m.mpi_node.state = HM_NA;
    snprintf(m.mpi_node.how, sizeof m.mpi_node.how, "run it under mpirun");
    hier_ladder(&m, false, true, &p);

    int i = find(
        &p, "HBM (B200)                 ~8 TB/s   lecture  v 4.44x slower in total: nvlink");
    assert_int_equal(style_of(&p, i, "~8 TB/s"), HS_LECTURE);
    assert_int_equal(style_of(&p, i, "HBM (B200)"), HS_TIER);
    assert_int_equal(style_of(&p, i, "4.44x"), HS_LECTURE);
    find(&p, "SM: L1 / shared memory, L2 none given lecture  v no figure to compare");
    find(&p,
         "    the SMs of one GPU to their on-chip memory; the fastest; the lecture gives no "
         "figure");
    /* two links compare each way: 900 GB/s / 242 GB/s (not the both-ways 1.8 TB/s) */
    find(&p, "NVLink 5 + NVSwitch        1.8 TB/s  lecture  v 3.72x slower each way: pcie");
    find(&p, "    8 GPUs in a node, any to any (NVL72: 72 GPUs in one rack); per GPU, both "
             "directions together");
    find(&p, "PCIe 7.0 x16 (home)        242 GB/s  lecture  v 4.84x slower each way: ib");
    find(&p, "InfiniBand                 ~50 GB/s  lecture  v 250x slower each way: ethernet");
    /* each link's rate each way, the vendor's figure named */
    find(&p, "    each way: 900 GB/s (NVIDIA: NVLink 5 is 1.8 TB/s per GPU in total, 900 GB/s "
             "each way)");
    find(&p, "Ethernet                   ~200 MB/s lecture");
    /* Not measured yet: says how; cannot: says why; each beside its tier. */
    i = find(&p, "    this machine, memcpy: not measured yet; m measures it");
    assert_int_equal(style_of(&p, i, "not measured yet"), HS_WARN);
    int hbm = find(&p, "HBM (B200)"), nv = find(&p, "NVLink 5 + NVSwitch   ");
    assert_true(i > hbm && i < nv);
    i = find(&p,
             "    this machine, CPU ranks' all-reduce busbw: not measured yet; m measures it");
    assert_true(i > nv && i < find(&p, "PCIe 7.0 x16 (home)   "));
    i = find(&p, "    this machine, NCCL all-reduce busbw: not measured: no GPU in use here");
    assert_int_equal(style_of(&p, i, "no GPU in use here"), HS_WARN);
    i = find(&p, "    this machine, MPI busbw across nodes: not measured: no MPI "
                 "backend built");
    assert_true(i > find(&p, "Ethernet   ")); /* a TCP transport: the ethernet tier */
    i = find(&p, "    this machine, MPI busbw in one node: not measured: run it under mpirun");
    assert_true(i > nv && i < find(&p, "PCIe 7.0 x16 (home)   "));
    assert_int_equal(hier_tier_for_mpi(true, NULL), TIER_IB);
    assert_int_equal(hier_tier_for_mpi(true, "openib"), TIER_IB);
    assert_int_equal(hier_tier_for_mpi(false, "tcp"), TIER_NVLINK);
    int detailed = p.n;
    for (int k = 1; k < p.n; k++) { /* the detail lines fit a 100-column terminal */
        char buf[1024];
        hier_line_text(&p.l[k], buf, sizeof buf);
        if (strlen(buf) > 98) fail_msg("line %d is %zu columns: %s", k, strlen(buf), buf);
    }
    find(&p, "The hierarchy, fastest first  (lecture: its figures, measured: this machine)");

    /* Without detail: one line per tier, the figures still beside their tiers. */
    hier_ladder(&m, false, false, &p);
    assert_int_equal(p.n,
                     detailed - TIER_COUNT - 1); /* the detail and NVLink's each-way line */
    assert_int_equal(find(&p, "this machine, memcpy"), find(&p, "HBM (B200)") + 1);
    /* Without detail every line fits 80 columns. */
    for (int k = 0; k < p.n; k++) {
        char buf[1024];
        hier_line_text(&p.l[k], buf, sizeof buf);
        if (strlen(buf) > 78) fail_msg("line %d is %zu columns: %s", k, strlen(buf), buf);
    }

    /* Measured: the value, "measured", the ratio to the lecture's tier, the method. */
    m.copy.state = HM_DONE;
    m.copy.gbs = 16;
    snprintf(m.copy.how, sizeof m.copy.how, "memcpy of 64 MiB, best of 5");
    m.cpu_ar.state = HM_RUNNING;
    hier_ladder(&m, true, false, &p);
    i = find(&p, "    this machine, memcpy: 16 GB/s measured; it reads and writes 32 GB/s; the "
                 "lecture's hbm is 250× that");
    assert_int_equal(style_of(&p, i, "16 GB/s"), HS_MEASURED);
    assert_int_equal(find(&p, "      how: memcpy of 64 MiB, best of 5"), i + 1);
    find(&p, "this machine, CPU ranks' all-reduce busbw: measuring\u2026");
    find(&p, "  \u2193 4.44\u00d7 slower in total: nvlink");
    m.cpu_ar.state = HM_FAILED;
    snprintf(m.cpu_ar.how, sizeof m.cpu_ar.how, "cancelled");
    hier_ladder(&m, false, false, &p);
    find(&p, "this machine, CPU ranks' all-reduce busbw: measurement failed: cancelled");

    /* At a narrow width every line wraps, indented under itself: nothing is cut. */
    m.copy.state = HM_DONE;
    snprintf(m.copy.how, sizeof m.copy.how,
             "memcpy of 64 MiB on the backend thread, best of 5, bytes copied per second");
    hier_ladder(&m, false, false, &p);
    static struct hier_lines w;
    hier_wrap(&p, 60, false, &w);
    assert_true(w.n > p.n);
    for (int k = 0; k < w.n; k++) {
        char line[1024];
        hier_line_text(&w.l[k], line, sizeof line);
        assert_true(text_width(line) <= 60);
    }
    /* 60 columns less the indent and two for the continuation: 52 for the text */
    i = find(&w, "      how: memcpy of 64 MiB on the backend thread, best of");
    char buf[256];
    hier_line_text(&w.l[i + 1], buf, sizeof buf);
    assert_string_equal(buf, "        5, bytes copied per second");
    /* a line of several pieces (77 columns) wraps piece by piece, each keeping its style */
    i = find(&w, "HBM (B200)                 ~8 TB/s   lecture  v 4.44x");
    hier_line_text(&w.l[i + 1], buf, sizeof buf);
    assert_string_equal(buf, "  in total: nvlink");
    assert_int_equal(style_of(&w, i, "~8 TB/s"),
                     style_of(&p, find(&p, "HBM (B200)"), "~8 TB/s"));
    /* Ratios of a thousand and more are written out whole. */
    m.cpu_ar.state = HM_DONE;
    m.cpu_ar.gbs = 0.45;
    hier_ladder(&m, false, false, &p);
    find(&p, "this machine, CPU ranks' all-reduce busbw: 450 MB/s measured; the lecture's "
             "nvlink each way is 2000x that");

    /* Not measured yet, with what there will be to see (NCCL's link) under it. */
    m.nccl.state = HM_NONE;
    snprintf(m.nccl.how, sizeof m.nccl.how, "link: read after the first NCCL measurement");
    hier_ladder(&m, false, false, &p);
    i = find(&p, "    this machine, NCCL all-reduce busbw: not measured yet; m measures it");
    assert_int_equal(find(&p, "      link: read after the first NCCL measurement"), i + 1);
    assert_true(p.l[i + 1].wrap);

    assert_int_equal(hier_tier_for_link("P2P/NVL"), TIER_NVLINK);
    assert_int_equal(hier_tier_for_link("P2P/PCI"), TIER_PCIE);
    assert_int_equal(hier_tier_for_link("NET/IB"), TIER_IB);
    assert_int_equal(hier_tier_for_link(NULL), TIER_PCIE);
}

/* The lecture's answers: 7.1 ≈ 420 GB/s (419 exactly), 7.3 20 ms at large W (17.5 ms on 8
 * ranks: 2·7/8·4 GB/400 GB/s), 7.4 D/B = 8. Per link (W = 8, L = 4, B = 128, D = 1024, M = 4):
 *   nvlink (1 us, 900 GB/s): DDP all-reduce of 16 MiB on 8 ranks: 14·(1 us + 2 MiB/900 GB/s)
 *     = 14·3.330 us = 46.6 us; TP 4 all-gathers of 512 KiB: 4·7·(1 us + 64 KiB/900 GB/s) =
 *     28·1.0728 us = 30.0 us; PP 4·1 us + 512 KiB/900 GB/s = 4.58 us.
 *   ethernet (50 us, 200 MB/s): DDP 14·(50 us + 10.486 ms) = 148 ms; TP 28·(50 us + 0.328 ms)
 *     = 10.6 ms; PP 200 us + 2.62 ms = 2.82 ms. */
/* Does a line of p contain want? */
static bool has_line(const struct hier_lines *p, const char *want)
{
    char buf[1024];
    for (int i = 0; i < p->n; i++) {
        hier_line_text(&p->l[i], buf, sizeof buf);
        if (strstr(buf, want)) return true;
    }
    return false;
}

/* The presenter's zoom: 1 drops the lines that are only notes, 2 also those that say a
 * figure is not measured; a measured figure, the tiers and the napkin's results stay. */
/* The room's ladder (measured_only): of the five figures, in every state, only one measured
 * here has a line; a figure not measured (yet, under way, failed, not available) says
 * nothing to the room: the notes say which backend runs. */
/* Every ratio the ladder prints compares like with like (issue 31): a measured busbw (the
 * machine's own or a record's) against a link's rate each way, never against NVLink's 1.8
 * TB/s that adds both directions; a memcpy's bytes copied per second, as the memory traffic
 * it makes (each byte read and written: twice the figure), against a memory's total; two
 * links each way; a memory against a link in total (both directions added). The expected
 * rates are the vendors' figures written here by hand: NVIDIA quotes NVLink 5 at 1.8 TB/s per
 * GPU in total, 900 GB/s each way; PCIe 7.0 x16 242 GB/s each way; InfiniBand ~50 GB/s each
 * way; Ethernet ~200 MB/s each way; HBM ~8 TB/s in total. A busbw beside a memory, or a
 * copy beside a link, has no like figure and gets no ratio. Every figure at every tier, every
 * ratio read back from the printed text. */
static const double each_way_oracle[TIER_COUNT] = {
    [TIER_NVLINK] = 900e9, [TIER_PCIE] = 242e9, [TIER_IB] = 50e9, [TIER_ETHERNET] = 200e6};
static const double total_oracle[TIER_COUNT] = {[TIER_HBM] = 8e12};

/* The number before "x" in the first "<n>x" of buf after `after`, 0 if none. */
static double ratio_after(const char *buf, const char *after)
{
    const char *p = strstr(buf, after);
    if (!p) return 0;
    for (p += strlen(after); *p; p++) {
        double v;
        int k = 0;
        if (*p >= '0' && *p <= '9' && sscanf(p, "%lf%n", &v, &k) == 1 && p[k] == 'x') return v;
    }
    return 0;
}

static void assert_ratio(double got, double want, const char *line)
{
    /* printed with 3 significant figures or whole */
    if (!(got > 0) || got < want * 0.995 - 0.5 || got > want * 1.005 + 0.5)
        fail_msg("ratio %.4g, want %.4g: %s", got, want, line);
}

static void test_ladder_ratios_like(void **state)
{
    (void)state;
    static struct hier_lines p;
    const double measured_gbs[] = {2.84, 16, 120, 700};
    const char *const twice_text[] = {"5.68 GB/s", "32 GB/s", "240 GB/s", "1.4 TB/s"};
    for (int t = 0; t < TIER_COUNT; t++)
        for (size_t g = 0; g < sizeof measured_gbs / sizeof measured_gbs[0]; g++) {
            struct hier_measured m;
            measured_init(&m);
            struct hier_figure *figs[] = {&m.copy, &m.cpu_ar, &m.nccl, &m.mpi_node, &m.mpi_net};
            for (size_t k = 0; k < sizeof figs / sizeof figs[0]; k++) {
                figs[k]->state = HM_DONE;
                figs[k]->gbs = measured_gbs[g];
                snprintf(figs[k]->how, sizeof figs[k]->how, "by hand");
                figs[k]->at = (enum tier_id)t;
            }
            m.rec.loaded = true;
            m.rec.slowest = (enum tier_id)t;
            m.rec.busbw_gbs = measured_gbs[g];
            snprintf(m.rec.how, sizeof m.rec.how, "all_reduce by hand");
            hier_ladder(&m, false, false, &p);
            int seen = 0;
            for (int i = 0; i < p.n; i++) {
                char buf[1024];
                hier_line_text(&p.l[i], buf, sizeof buf);
                double r = ratio_after(buf, "measured");
                if (r == 0) continue;
                bool copy = strstr(buf, "memcpy") != NULL;
                double mine = measured_gbs[g] * 1e9 * (copy ? 2 : 1);
                /* the figure compared is the one the line shows */
                if (copy) {
                    char twice[64];
                    snprintf(twice, sizeof twice, "reads and writes %s", twice_text[g]);
                    if (!strstr(buf, twice)) fail_msg("no '%s': %s", twice, buf);
                } else if (!strstr(buf, "each way")) {
                    fail_msg("a busbw's ratio without its basis: %s", buf);
                }
                double lect = copy ? total_oracle[t] : each_way_oracle[t];
                if (lect == 0) fail_msg("a ratio beside a tier with no like figure: %s", buf);
                bool above = strstr(buf, "that") != NULL;
                assert_ratio(r, above ? lect / mine : mine / lect, buf);
                seen++;
            }
            /* a link: the four busbw figures and the record's; a memory: the copy */
            int want = each_way_oracle[t] > 0 ? 5 : total_oracle[t] > 0 ? 1 : 0;
            if (seen != want)
                fail_msg("tier %d at %.3g GB/s: %d ratios, want %d", t, measured_gbs[g], seen,
                         want);
        }
    /* The ladder's own ratios, tier to tier, read from its lines. */
    struct hier_measured m;
    measured_init(&m);
    hier_ladder(&m, false, false, &p);
    const struct {
        const char *row;
        double want;
    } rows[] = {{"HBM (B200)", 8e12 / 1.8e12},
                {"NVLink 5 + NVSwitch", 900e9 / 242e9},
                {"PCIe 7.0 x16 (home)", 242e9 / 50e9},
                {"InfiniBand", 50e9 / 200e6}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        char buf[1024];
        hier_line_text(&p.l[find(&p, rows[k].row)], buf, sizeof buf);
        assert_ratio(ratio_after(buf, "lecture"), rows[k].want, buf);
        /* its basis said: "each way" between links, "in total" from a memory */
        assert_non_null(strstr(buf, k == 0 ? "in total" : "each way"));
    }
}

static void test_ladder_room(void **state)
{
    (void)state;
    static struct hier_lines p;
    struct hier_measured m;
    const enum hier_state states[] = {HM_NONE, HM_RUNNING, HM_DONE, HM_FAILED, HM_NA};
    for (size_t k = 0; k < sizeof states / sizeof states[0]; k++) {
        measured_init(&m);
        m.measured_only = true;
        struct hier_figure *f[5] = {&m.copy, &m.cpu_ar, &m.nccl, &m.mpi_node, &m.mpi_net};
        for (int i = 0; i < 5; i++) {
            f[i]->state = states[k];
            f[i]->gbs = 16;
            snprintf(f[i]->how, sizeof f[i]->how, "%s",
                     states[k] == HM_DONE ? "memcpy of 64 MiB" : "no GPU in use here");
        }
        for (int detail = 0; detail < 2; detail++) {
            hier_ladder(&m, true, detail, &p);
            int lines = 0;
            for (int i = 0; i < p.n; i++) {
                char buf[1024];
                hier_line_text(&p.l[i], buf, sizeof buf);
                lines += strstr(buf, "this machine, ") != NULL;
                if (strstr(buf, "not measured") || strstr(buf, "measuring") ||
                    strstr(buf, "no GPU") || strstr(buf, "failed"))
                    fail_msg("state %zu: the room is told '%s'", k, buf);
            }
            assert_int_equal(lines, states[k] == HM_DONE ? 5 : 0);
        }
    }
}

static void test_zoom_lines(void **state)
{
    (void)state;
    static struct hier_lines p;
    struct hier_measured m;
    measured_init(&m);
    m.copy.state = HM_DONE;
    m.copy.gbs = 12.5;
    snprintf(m.copy.how, sizeof m.copy.how, "memcpy of 64 MiB, best of 5");
    m.nccl.state = HM_NA;
    snprintf(m.nccl.how, sizeof m.nccl.how, "no GPU in use here");
    hier_ladder(&m, false, true, &p);
    int n0 = p.n;
    assert_true(has_line(&p, "    the SMs of one GPU to their on-chip memory"));
    assert_true(has_line(&p, "      how: memcpy of 64 MiB, best of 5"));
    hier_zoom_lines(&p, 0);
    assert_int_equal(p.n, n0);
    hier_zoom_lines(&p, 1);
    assert_false(has_line(&p, "the SMs of one GPU"));
    assert_false(has_line(&p, "how: memcpy"));
    assert_true(has_line(&p, "this machine, NCCL all-reduce busbw: not measured: no GPU"));
    assert_true(has_line(&p, "this machine, memcpy: 12.5 GB/s measured"));
    hier_zoom_lines(&p, 2);
    assert_false(has_line(&p, "not measured"));
    assert_true(has_line(&p, "this machine, memcpy: 12.5 GB/s measured"));
    /* the title, six tiers and the one measured figure */
    assert_int_equal(p.n, 1 + 6 + 1);
    assert_true(has_line(&p, "HBM (B200)                 ~8 TB/s   lecture"));

    struct hier_napkin_inputs in;
    hier_napkin_defaults(&in);
    hier_napkin(&in, false, &p);
    n0 = p.n;
    hier_zoom_lines(&p, 2);
    assert_true(p.n < n0);
    assert_true(has_line(&p, "= 419 GB/s"));
    assert_true(has_line(&p, "Napkin math"));
}

static void test_napkin(void **state)
{
    (void)state;
    static struct hier_lines p;
    struct hier_napkin_inputs in;
    hier_napkin_defaults(&in);
    hier_napkin(&in, false, &p);
    int i = find(&p, "effective bandwidth  size [800 MiB] W [8] duration [3.5 ms]");
    assert_int_equal(style_of(&p, i, "[800 MiB]"), HS_FIELD_SEL); /* the first field */
    assert_int_equal(style_of(&p, i, "[8]"), HS_FIELD);
    find(&p, "  = size*2(W-1)/(W*duration) = 419 GB/s; large W: 2*size/duration = 479 GB/s");
    find(&p, "  = 2(W-1)/W*params*bytes/bandwidth = 17.5 ms on 8 ranks   (large W: 20 ms)");
    find(&p, "params [1B] bytes each [4] bandwidth [400 GB/s]");
    find(&p, "  TP: L*B*D = 524,288 per forward   DDP: L*D^2 = 4,194,304 per step");
    find(&p, "  DDP moves D/B = 8x the elements");
    i = find(&p, "  nvlink    46.6 us            30 us                4.58 us");
    assert_int_equal(style_of(&p, i, "46.6 us"), HS_MODEL);
    find(&p, "  ethernet  148 ms             10.6 ms              2.82 ms");
    find(&p, "per step on each link (model)");
    find(&p, "  alpha assumed per link, beta the lecture's figure each way (see the ladder)");
    /* The ZeRO paper's example: 16·7.5 = 120 GB; 4·7.5 + 12·7.5/64 = 31.4; 2·7.5 +
     * 14·7.5/64 = 16.6; 16·7.5/64 = 1.875 GB. */
    i = find(&p, "ZeRO memory per GPU (model): (2+2+K)Psi, K=12, Psi=7.5B, 64 GPUs");
    i = find(&p, "  DDP 120 GB  stage 1 31.4 GB  stage 2 16.6 GB  stage 3 1.9 GB");
    assert_int_equal(style_of(&p, i, "31.4 GB"), HS_MODEL);
    /* Every line of the panel fits 80 columns (the smallest terminal), so nothing is cut. */
    for (int k = 0; k < p.n; k++) {
        char buf[1024];
        hier_line_text(&p.l[k], buf, sizeof buf);
        if (strlen(buf) > 78) fail_msg("line %d is %zu columns: %s", k, strlen(buf), buf);
    }

    /* Editing: the selected field moves and changes within its limits. */
    hier_napkin_change(&in, +1);
    assert_true(in.v[NF_SIZE] == 2.0 * 200 * 1024 * 1024 * 4);
    hier_napkin_select(&in, -1);
    assert_int_equal(in.sel, NF_M);
    hier_napkin_select(&in, +1);
    hier_napkin_select(&in, +1);
    assert_int_equal(in.sel, NF_W);
    for (int k = 0; k < 20; k++)
        hier_napkin_change(&in, +1);
    assert_true(in.v[NF_W] == 16);
    for (int k = 0; k < 20; k++)
        hier_napkin_change(&in, -1);
    assert_true(in.v[NF_W] == 2);
    in.sel = NF_M;
    for (int k = 0; k < 200; k++)
        hier_napkin_change(&in, +1);
    assert_true(in.v[NF_M] == 128); /* no more micro-batches than rows */
    in.sel = NF_B;
    hier_napkin_change(&in, -1);
    assert_true(in.v[NF_B] == 64 && in.v[NF_M] == 64);
    in.sel = NF_BYTES;
    for (int k = 0; k < 5; k++)
        hier_napkin_change(&in, +1);
    assert_true(in.v[NF_BYTES] == 8);
    char v[32];
    hier_napkin_field_value(&in, NF_DURATION, v, sizeof v);
    assert_string_equal(v, "3.5 ms");
    assert_string_equal(hier_napkin_field_name(NF_D), "D");

    /* A configuration the model refuses says why on its row. */
    hier_napkin_defaults(&in);
    in.v[NF_B] = 1;
    in.v[NF_D] = 2;
    in.v[NF_M] = 1;
    hier_napkin(&in, false, &p);
    i = find(&p, "  nvlink    size 8 B: all_gather on 8 ranks needs at least 32 B");
    assert_int_equal(style_of(&p, i, "needs at least"), HS_WARN);
}

/* Ring all-reduce, W = 4, 64 MiB: 6·(α + 16 MiB/β); nvlink 6·(1 us + 18.64 us) = 118 us,
 * busbw 67108864 B/117.85 us·1.5 = 854 GB/s; ethernet 6·(50 us + 83.9 ms) = 504 ms. */
static void test_whatif(void **state)
{
    (void)state;
    static struct hier_lines p;
    hier_whatif(COLL_ALL_REDUCE, ALGO_RING, 4, (size_t)64 << 20, false, false, &p);
    find(&p, "What if: all-reduce, ring, 4 ranks, 64 MiB on each link (model)");
    int i = find(&p, "  nvlink        1 us   900 GB/s     118 us   854 GB/s");
    assert_int_equal(style_of(&p, i, "118 us"), HS_MODEL);
    find(&p, "  pcie          1 us   242 GB/s     422 us   239 GB/s");
    find(&p, "  ib            2 us    50 GB/s    2.03 ms  49.7 GB/s");
    find(&p, "  ethernet     50 us   200 MB/s     504 ms   200 MB/s");
    assert_int_equal(p.n, 6);
    hier_whatif(COLL_SCATTER, ALGO_RING, 4, 4096, false, false, &p);
    assert_int_equal(p.n, 2);
    assert_int_equal(style_of(&p, 1, "not available"), HS_WARN);
    /* Narrow, for the collectives panel: time and busbw in 36 columns. */
    hier_whatif(COLL_ALL_REDUCE, ALGO_RING, 4, (size_t)64 << 20, false, true, &p);
    assert_int_equal(p.n, 5);
    find(&p, "What if: the same on each link (model)");
    find(&p, "  nvlink      118 us  busbw 854 GB/s");
    find(&p, "  ethernet    504 ms  busbw 200 MB/s");
    for (int k = 0; k < p.n; k++) {
        char buf[256];
        hier_line_text(&p.l[k], buf, sizeof buf);
        assert_true(strlen(buf) <= 38);
    }
}

/* Link class -> tier: what each class runs over, written out by hand. */
static void test_tier_for_class(void **state)
{
    (void)state;
    assert_int_equal(hier_tier_for_class(REC_NVLINK), TIER_NVLINK);
    assert_int_equal(hier_tier_for_class(REC_PCIE), TIER_PCIE);
    assert_int_equal(hier_tier_for_class(REC_SHM), TIER_PCIE); /* host memory, over PCIe */
    assert_int_equal(hier_tier_for_class(REC_IB), TIER_IB);
    assert_int_equal(hier_tier_for_class(REC_ROCE), TIER_IB);
    assert_int_equal(hier_tier_for_class(REC_SOCKET), TIER_ETHERNET);
    assert_int_equal(hier_tier_for_class(REC_NET_PLUGIN), -1); /* EFA, IBext: not said */
    assert_int_equal(hier_tier_for_class(REC_UNKNOWN), -1);
}

/* A record of two communicators: the ladder counts one's links, the one the topology screen
 * shows, else the largest's (a 4-rank one with two SHM links), never both mixed. */
static void test_ladder_record_one_comm(void **state)
{
    (void)state;
    static const char text[] =
        "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0xa - Init "
        "START\n"
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[1000] -> 1[2000] via P2P/IPC/read\n"
        "h:1:1 [0] NCCL INFO comm 0x10 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0xa - Init "
        "COMPLETE\n"
        "h:1:1 [0] NCCL INFO comm 0x20 rank 0 nranks 4 cudaDev 0 busId 1000 commId 0xb - Init "
        "START\n"
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[1000] -> 1[2000] via SHM/direct/direct\n"
        "h:1:1 [0] NCCL INFO Channel 01/0 : 0[1000] -> 2[3000] via SHM/direct/direct\n"
        "h:1:1 [0] NCCL INFO comm 0x20 rank 0 nranks 4 cudaDev 0 busId 1000 commId 0xb - Init "
        "COMPLETE\n";
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", text, strlen(text));
    rec_finish(L);
    assert_int_equal(L->ncomms, 2);
    struct hier_measured m;
    measured_init(&m);
    hier_record_from(L, -1, &m.rec);
    assert_int_equal(m.rec.cls[REC_SHM], 2);
    assert_int_equal(m.rec.cls[REC_NVLINK], 0);
    /* the one chosen on the topology screen: the 2-rank one (commId 0xa, read first), its
     * one NVLink link and no SHM; one past the record's: the largest again */
    int a = strcmp(L->comms[0].id, "0xa") == 0 ? 0 : 1;
    assert_string_equal(L->comms[a].id, "0xa");
    hier_record_from(L, a, &m.rec);
    assert_int_equal(m.rec.cls[REC_NVLINK], 1);
    assert_int_equal(m.rec.cls[REC_SHM], 0);
    hier_record_from(L, 1 - a, &m.rec);
    assert_int_equal(m.rec.cls[REC_SHM], 2);
    assert_int_equal(m.rec.cls[REC_NVLINK], 0);
    hier_record_from(L, 2, &m.rec);
    assert_int_equal(m.rec.cls[REC_SHM], 2);
    rec_free(L);
}

/* A record on the ladder: its links by class under their tiers, its largest busbw (the
 * in-place 40.5 at 1 MiB of the table below) beside the slowest tier (ethernet: the
 * socket link), labelled measured (from the file); no record, no such lines. */
static void test_ladder_record(void **state)
{
    (void)state;
    static const char text[] =
        "a:1:1 [0] NCCL INFO Channel 00/0 : 0[1000] -> 1[2000] via P2P/IPC/read\n"
        "a:1:1 [0] NCCL INFO Channel 01/0 : 0[1000] -> 1[2000] via P2P/IPC/read\n"
        "a:1:1 [0] NCCL INFO Channel 00/0 : 1[2000] -> 2[1000] via SHM/direct/direct\n"
        "a:1:1 [0] NCCL INFO Channel 00/0 : 2[1000] -> 0[1000] [send] via NET/Socket/0\n"
        "# Collective test starting: all_reduce_perf\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        "     1048576        262144     float     sum      -1    50.00   20.97   39.30      0"
        "    48.50   21.62   40.50      0\n"
        "     2097152        524288     float     sum      -1    99.00   21.18   39.71      0"
        "    99.00   21.18   39.71      0\n";
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", text, strlen(text));
    rec_finish(L);
    struct hier_measured m;
    measured_init(&m);
    hier_record_from(L, -1, &m.rec);
    assert_true(m.rec.loaded);
    assert_int_equal(m.rec.cls[REC_NVLINK], 2);
    assert_int_equal(m.rec.cls[REC_SHM], 1);
    assert_int_equal(m.rec.cls[REC_SOCKET], 1);
    assert_int_equal(m.rec.slowest, TIER_ETHERNET);
    assert_true(m.rec.busbw_gbs == 40.5);
    struct hier_lines p;
    hier_ladder(&m, false, false, &p);
    int nv = find(&p, "NVLink 5"), pc = find(&p, "PCIe 7.0"), eth = find(&p, "Ethernet  ");
    assert_int_equal(find(&p, "< the record's links: nvlink 2"), nv + 1);
    assert_int_equal(find(&p, "< the record's links: shm 1 (through host memory)"), pc + 1);
    int r = find(&p, "< the record's links: socket 1");
    assert_int_equal(r, eth + 1);
    int b = find(&p, "the record, busbw: 40.5 GB/s measured (from the file); 202x the "
                     "lecture's ethernet");
    assert_int_equal(b, r + 1);
    assert_int_equal(style_of(&p, b, "40.5 GB/s"), HS_MEASURED);
    find(&p, "how: nccl-tests all_reduce float at 1 MiB, in-place");
    rec_free(L);
    /* no record: nothing of one */
    measured_init(&m);
    hier_ladder(&m, false, false, &p);
    char buf[1024];
    for (int i = 0; i < p.n; i++) {
        hier_line_text(&p.l[i], buf, sizeof buf);
        assert_null(strstr(buf, "record"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ladder),
        cmocka_unit_test(test_ladder_room),
        cmocka_unit_test(test_ladder_ratios_like),
        cmocka_unit_test(test_zoom_lines),
        cmocka_unit_test(test_napkin),
        cmocka_unit_test(test_whatif),
        cmocka_unit_test(test_tier_for_class),
        cmocka_unit_test(test_ladder_record),
        cmocka_unit_test(test_ladder_record_one_comm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
