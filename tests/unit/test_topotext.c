/* test_topotext.c - the topology screen's pure words and layout (ui/screens/topology/
 * topotext.h) on small records written here: the channels with rings, a ring's hops with
 * their link class and node crossings, the ranks grouped by host (unknown hosts last), the
 * GPU labels, the boxes a line holds, the hop text, a tree's lines and its other half.
 * Every expected value is read off the record text by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "records/records.h"
#include "ui/screens/topology/topotext.h"

/* Two hosts, two GPUs each; two rings; two link lines of channel 0; trees of two channels. */
static const char two_nodes[] =
    "nodeA:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n"
    "nodeA:1:2 [1] NCCL INFO comm 0x2 rank 1 nranks 4 cudaDev 1 busId 2000 - Init COMPLETE\n"
    "nodeB:2:1 [0] NCCL INFO comm 0x3 rank 2 nranks 4 cudaDev 0 busId 1000 - Init COMPLETE\n"
    "nodeB:2:2 [1] NCCL INFO comm 0x4 rank 3 nranks 4 cudaDev 1 busId 2000 - Init COMPLETE\n"
    "nodeA:1:1 [0] NCCL INFO Channel 00/02 :    0   1   2   3\n"
    "nodeA:1:1 [0] NCCL INFO Channel 01/02 :    0   2   1   3\n"
    "nodeA:1:1 [0] NCCL INFO Channel 00/0 : 0[1000] -> 1[2000] via P2P/IPC/read\n"
    "nodeA:1:2 [1] NCCL INFO Channel 00/0 : 1[2000] -> 2[1000] [send] via NET/Socket/0\n"
    "nodeA:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->2\n";

static struct rec_log *parse(const char *text)
{
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", text, strlen(text));
    rec_finish(L);
    return L;
}

static void test_ring_hops(void **state)
{
    (void)state;
    struct rec_log *L = parse(two_nodes);
    int ch[8];
    assert_int_equal(topo_channels(L, ch, 8), 2);
    assert_int_equal(ch[0], 0);
    assert_int_equal(ch[1], 1);
    struct topo_hop h[8];
    /* channel 0: 0 -> 1 (A, A), 1 -> 2 (A, B), 2 -> 3 (B, B), 3 -> 0 (B, A) */
    assert_int_equal(topo_ring_hops(L, 0, h, 8), 4);
    static const int from[] = {0, 1, 2, 3}, to[] = {1, 2, 3, 0}, cross[] = {0, 1, 0, 1};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(h[i].from, from[i]);
        assert_int_equal(h[i].to, to[i]);
        assert_int_equal(h[i].cross, cross[i]);
    }
    assert_true(h[0].have_link);
    assert_int_equal(h[0].cls, REC_NVLINK); /* P2P/IPC/read */
    assert_true(h[1].have_link);
    assert_int_equal(h[1].cls, REC_SOCKET); /* NET/Socket */
    assert_false(h[2].have_link);
    assert_int_equal(topo_crossings(h, 4), 2);
    char buf[48];
    topo_hop_text(&h[0], buf, sizeof buf);
    assert_string_equal(buf, "-nvlink-> 1");
    topo_hop_text(&h[1], buf, sizeof buf);
    assert_string_equal(buf, "-socket-> 2");
    topo_hop_text(&h[2], buf, sizeof buf);
    assert_string_equal(buf, "-?-> 3");
    /* channel 1: 0 2 1 3, every hop changes host: 4 crossings; no link lines */
    assert_int_equal(topo_ring_hops(L, 1, h, 8), 4);
    assert_int_equal(h[0].to, 2);
    assert_int_equal(h[3].from, 3);
    assert_int_equal(h[3].to, 0);
    assert_int_equal(topo_crossings(h, 4), 4);
    assert_false(h[0].have_link);
    assert_int_equal(topo_ring_hops(L, 2, h, 8), 0); /* no ring */
    rec_free(L);
}

static void test_groups(void **state)
{
    (void)state;
    struct rec_log *L = parse(two_nodes);
    struct topo_group *g = calloc(TOPO_MAX_GROUPS, sizeof *g);
    assert_int_equal(topo_nranks(L), 4);
    assert_int_equal(topo_groups(L, g, TOPO_MAX_GROUPS), 2);
    assert_string_equal(g[0].host, "nodeA");
    assert_int_equal(g[0].n, 2);
    assert_int_equal(g[0].ranks[0], 0);
    assert_int_equal(g[0].ranks[1], 1);
    assert_string_equal(g[1].host, "nodeB");
    assert_int_equal(g[1].ranks[0], 2);
    assert_int_equal(g[1].ranks[1], 3);
    char label[32];
    topo_gpu_label(L, 3, label, sizeof label);
    assert_string_equal(label, "r3 d1");
    rec_free(L);

    /* rank 0's host only: ranks 1 and 2 go to the unknown group, last; crossings unknown */
    L = parse("nodeA:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 3 cudaDev 0 busId 1000 - Init "
              "COMPLETE\n"
              "nodeA:1:1 [0] NCCL INFO Channel 00/01 :    2   0   1\n");
    assert_int_equal(topo_groups(L, g, TOPO_MAX_GROUPS), 2);
    assert_string_equal(g[0].host, "nodeA");
    assert_int_equal(g[0].n, 1);
    assert_string_equal(g[1].host, "");
    assert_int_equal(g[1].n, 2);
    assert_int_equal(g[1].ranks[0], 1);
    assert_int_equal(g[1].ranks[1], 2);
    topo_gpu_label(L, 2, label, sizeof label);
    assert_string_equal(label, "r2"); /* device unknown */
    struct topo_hop h[4];
    assert_int_equal(topo_ring_hops(L, 0, h, 4), 3);
    assert_int_equal(h[0].from, 2);
    assert_int_equal(h[0].to, 0);
    assert_int_equal(h[0].cross, -1);
    assert_int_equal(topo_crossings(h, 3), -1);
    free(g);
    rec_free(L);
}

static void test_layout(void **state)
{
    (void)state;
    assert_int_equal(topo_boxes_per_line(78, 7), 9); /* 9 * 7 + 8 gaps = 71 <= 78 < 79 */
    assert_int_equal(topo_boxes_per_line(71, 7), 9);
    assert_int_equal(topo_boxes_per_line(70, 7), 8);
    assert_int_equal(topo_boxes_per_line(3, 7), 1);
}

static void test_trees(void **state)
{
    (void)state;
    struct rec_log *L = parse(two_nodes);
    char lines[8][80];
    /* [0] 1/-1/-1->0->-1: rank 0 the root, child 1; [1] -1/-1/-1->0->2: up 2, a leaf */
    assert_int_equal(topo_tree_lines(L, 0, 0, lines, 8), 1);
    assert_string_equal(lines[0], "r0: root, down 1");
    assert_int_equal(topo_tree_lines(L, 1, 0, lines, 8), 1);
    assert_string_equal(lines[0], "r0: up 2, down none (a leaf)");
    assert_int_equal(topo_tree_partner(L, 0), 1);
    assert_int_equal(topo_tree_partner(L, 1), 0);
    assert_int_equal(topo_tree_partner(L, 5), -1);
    rec_free(L);
    /* four channels with trees: 0's other half is 2, 3's is 1 */
    L = parse("h:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1 [2] "
              "-1/-1/-1->0->1 [3] -1/-1/-1->0->1\n");
    assert_int_equal(topo_tree_partner(L, 0), 2);
    assert_int_equal(topo_tree_partner(L, 3), 1);
    rec_free(L);
}

/* The plot's axes: 8 B .. 8 GiB is 2^3 .. 2^33, 30 doublings over 31 columns, one a column. */
static void test_plot_axes(void **state)
{
    (void)state;
    double lo = 8, hi = 8589934592.0;
    assert_int_equal(topo_plot_col(8, lo, hi, 31), 0);
    assert_int_equal(topo_plot_col(16, lo, hi, 31), 1);
    assert_int_equal(topo_plot_col(1048576, lo, hi, 31), 17); /* 2^20: 17 doublings up */
    assert_int_equal(topo_plot_col(hi, lo, hi, 31), 30);
    assert_int_equal(topo_plot_col(1, lo, hi, 31), 0);     /* below: clamped */
    assert_int_equal(topo_plot_col(1e12, lo, hi, 31), 30); /* above: clamped */
    assert_int_equal(topo_plot_col(64, lo, lo, 31), 0);    /* one size: no axis */
    assert_true(topo_plot_size_at(17, lo, hi, 31) == 1048576.0);
    /* busbw 0..338.82 over 11 rows: a tenth of the scale a row */
    assert_int_equal(topo_plot_row(338.82, 338.82, 11), 10);
    assert_int_equal(topo_plot_row(169.41, 338.82, 11), 5);
    assert_int_equal(topo_plot_row(0, 338.82, 11), 0);
    assert_int_equal(topo_plot_row(30, 338.82, 11), 1); /* 0.885 of a row rounds up */
    assert_int_equal(topo_plot_row(500, 338.82, 11), 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_hops), cmocka_unit_test(test_groups),
        cmocka_unit_test(test_layout),    cmocka_unit_test(test_trees),
        cmocka_unit_test(test_plot_axes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
