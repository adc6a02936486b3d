/* test_topostrip.c - a large record's node strip (ui/screens/topology/topostrip.h) on a
 * record written here: 32 ranks on 16 hosts (n00..n15, ranks 2k and 2k+1 on host k), channel
 * 0's ring 0 1 2 ... 31 (one hop leaves each node) and channel 1's 0 2 4 ... 30 1 3 ... 31
 * (every hop leaves its node: two a node). Expected counts, passes and classes are read off
 * those orders by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "records/records.h"
#include "ui/screens/topology/topostrip.h"

static struct rec_log *record(void)
{
    char *t = malloc(1 << 16);
    size_t o = 0;
    for (int r = 0; r < 32; r++)
        o +=
            (size_t)snprintf(t + o, (1 << 16) - o,
                             "n%02d:%d:%d [%d] NCCL INFO comm 0x%x rank %d nRanks 32 nNodes 16 "
                             "localRanks 2 localRank %d MNNVL 0\n",
                             r / 2, 100 + r, 100 + r, r % 2, 0x1000 + r, r, r % 2);
    o += (size_t)snprintf(t + o, (1 << 16) - o, "n00:100:100 [0] NCCL INFO Channel 00/02 :");
    for (int r = 0; r < 32; r++)
        o += (size_t)snprintf(t + o, (1 << 16) - o, " %d", r);
    o += (size_t)snprintf(t + o, (1 << 16) - o, "\nn00:100:100 [0] NCCL INFO Channel 01/02 :");
    for (int i = 0; i < 32; i++)
        o += (size_t)snprintf(t + o, (1 << 16) - o, " %d", i < 16 ? 2 * i : 2 * (i - 16) + 1);
    o += (size_t)snprintf(t + o, (1 << 16) - o, "\n");
    for (int r = 0; r < 32; r++) /* channel 0's links: P2P inside a node, IB between */
        o += (size_t)snprintf(
            t + o, (1 << 16) - o,
            "n%02d:%d:%d [%d] NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via %s\n", r / 2,
            100 + r, 100 + r, r % 2, r, r % 2, (r + 1) % 32, (r + 1) % 2,
            r % 2 ? "NET/Socket/0" : "P2P/IPC/read");
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", t, o);
    rec_finish(L);
    free(t);
    return L;
}

static void test_strip(void **state)
{
    (void)state;
    struct rec_log *L = record();
    assert_true(topo_strip_wanted(L));
    struct topo_strip s;
    topo_strip_make(L, &s);
    assert_int_equal(s.nnodes, 16);
    assert_int_equal(s.unplaced, 0);
    for (int k = 0; k < 16; k++) {
        assert_int_equal(s.first[k], 2 * k);
        assert_int_equal(s.size[k], 2);
    }
    topo_strip_channel(L, &s, 0);
    assert_int_equal(s.crossings, 16);
    assert_int_equal(s.ring_n, 32);
    for (int k = 0; k < 16; k++)
        assert_int_equal(topo_strip_cell(&s, k), '1');
    struct topo_hop h[8];
    int passes, n = topo_strip_passes(L, &s, 3, h, 8, &passes);
    assert_int_equal(passes, 1); /* 5 -> 6 -> 7 -> 8 */
    assert_int_equal(n, 3);
    assert_int_equal(h[0].from, 5);
    assert_int_equal(h[0].to, 6);
    assert_int_equal(h[0].cross, 1);
    assert_int_equal(h[0].cls, REC_SOCKET);
    assert_int_equal(h[1].from, 6);
    assert_int_equal(h[1].cross, 0);
    assert_int_equal(h[1].cls, REC_NVLINK);
    assert_int_equal(h[2].to, 8);
    assert_int_equal(h[2].cross, 1);
    /* node 0's pass wraps around the ring's end: 31 -> 0 -> 1 -> 2, one pass */
    n = topo_strip_passes(L, &s, 0, h, 8, &passes);
    assert_int_equal(passes, 1);
    assert_int_equal(n, 3);
    assert_int_equal(h[0].from, 31);
    assert_int_equal(h[2].to, 2);
    topo_strip_channel(L, &s, 1);
    assert_int_equal(s.crossings, 32);
    assert_int_equal(topo_strip_cell(&s, 7), '2');
    n = topo_strip_passes(L, &s, 3, h, 8, &passes);
    assert_int_equal(passes, 2); /* 4 -> 6 -> 8 and 5 -> 7 -> 9 */
    assert_int_equal(n, 4);
    assert_int_equal(h[0].from, 4);
    assert_int_equal(h[1].to, 8);
    assert_int_equal(h[2].from, 5);
    assert_int_equal(h[3].to, 9);
    assert_false(h[0].have_link); /* channel 1 has no link lines */
    /* a window of 8 cells around the open node, inside the strip */
    assert_int_equal(topo_strip_window(&s, 3, 8), 0);
    assert_int_equal(topo_strip_window(&s, 9, 8), 5);
    assert_int_equal(topo_strip_window(&s, 15, 8), 8);
    assert_int_equal(topo_strip_window(&s, 15, 40), 0);
    topo_strip_free(&s);
    rec_free(L);
}

/* Two nodes are drawn as frames, not a strip. */
static void test_small_record(void **state)
{
    (void)state;
    const char *t = "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1\n"
                    "b:2:2 [0] NCCL INFO comm 0x2 rank 1 nRanks 2 nNodes 2 localRanks 1\n";
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", t, strlen(t));
    rec_finish(L);
    assert_false(topo_strip_wanted(L));
    rec_free(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strip),
        cmocka_unit_test(test_small_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
