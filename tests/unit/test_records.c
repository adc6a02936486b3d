/* test_records.c - the reader of NCCL's records (records/records.h), one format at a time:
 * ring orders of 2.4, 2.5+ and 2.29, link lines of 2.4/2.6/2.7/2.9/2.12+ with their class,
 * both tree forms, comm and version lines, prefixes (host:pid:tid [dev], Open MPI tags in
 * the middle of a row, a WARN's file:line), nccl-tests' old and new tables, and the bounds.
 * Every expected value is read off the line in the test by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "records/records.h"

static struct rec_log *parse(const char *text)
{
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", text, strlen(text));
    rec_finish(L);
    return L;
}

static bool has_msg(char **list, int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (strstr(list[i], want)) return true;
    return false;
}

static void assert_ring(const struct rec_log *L, int c, const int *want, int n)
{
    assert_non_null(L->rings[c].order);
    assert_int_equal(L->rings[c].n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(L->rings[c].order[i], want[i]);
}

static const struct rec_link *link_of(const struct rec_log *L, int ch, int from, int to)
{
    for (int i = 0; i < L->nlinks; i++)
        if (L->links[i].channel == ch && L->links[i].from == from && L->links[i].to == to)
            return &L->links[i];
    return NULL;
}

/* 2.4: "Channel 00 :    0   1", the send and receive lines of one connection kept once. */
static void test_nccl24(void **state)
{
    (void)state;
    struct rec_log *L =
        parse("NCCL version 2.4.8+cuda10.0\n"
              "n1:27:28 [0] NCCL INFO Channel 00 :    0   1\n"
              "n1:27:28 [0] NCCL INFO Ring 00 : 1 -> 0 [receive] via NET/Socket/0\n"
              "n1:27:28 [0] NCCL INFO Ring 00 : 0 -> 1 [send] via NET/Socket/0\n"
              "n2:61:62 [0] NCCL INFO Ring 00 : 0 -> 1 [receive] via NET/Socket/0\n"
              "n2:61:62 [0] NCCL INFO Ring 00 : 1 -> 0 [send] via NET/Socket/0\n");
    assert_string_equal(L->version, "2.4.8+cuda10.0");
    assert_ring(L, 0, (int[]){0, 1}, 2);
    assert_int_equal(L->nlinks, 2);
    assert_int_equal(link_of(L, 0, 0, 1)->cls, REC_SOCKET);
    assert_int_equal(link_of(L, 0, 0, 1)->conn, -1);
    /* hosts from who printed: rank 0's receive on n1, rank 1's on n2 */
    assert_string_equal(L->ranks[0].host, "n1");
    assert_string_equal(L->ranks[1].host, "n2");
    assert_int_equal(L->nranks, 2);
    assert_int_equal(L->nnodes, 2);
    assert_int_equal(rec_ring_crossings(L, 0), 2);
    rec_free(L);
}

/* 2.5+ "Channel 00/04 :" (the /04 is the count), 2.29's single spaces; a second, different
 * order of the same channel is a warning, the first kept. */
static void test_ring_formats(void **state)
{
    (void)state;
    struct rec_log *L = parse("h:1:2 [0] NCCL INFO Channel 00/04 :    0   3   1   2\n"
                              "h:1:2 [0] NCCL INFO Channel 01/04 : 0 2 1 3\n"
                              "h:1:2 [0] NCCL INFO Channel 01/04 : 0 1 2 3\n");
    assert_ring(L, 0, (int[]){0, 3, 1, 2}, 4);
    assert_ring(L, 1, (int[]){0, 2, 1, 3}, 4);
    assert_null(L->rings[2].order);
    assert_true(has_msg(L->warnings, L->nwarnings, "channel 1 has a second, different ring"));
    assert_int_equal(L->nranks, 4);
    assert_int_equal(rec_ring_crossings(L, 0), -1); /* hosts unknown */
    rec_free(L);
}

/* The link lines of each version and what NCCL says about them. */
static void test_link_classes(void **state)
{
    (void)state;
    struct rec_log *L = parse(
        /* 2.6: bus ids in brackets, a plugin */
        "a:1:2 [0] NCCL INFO Ring 00 : 0[160] -> 1[160] [send] via NET/AWS Libfabric/0\n"
        /* 2.7: direct shared memory */
        "a:1:2 [0] NCCL INFO Channel 00 : 2[89000] -> 3[b2000] via direct shared memory\n"
        /* 2.9: P2P read, only over NVLink */
        "a:1:2 [1] NCCL INFO Channel 01 : 2[201c0] -> 7[a01d0] via P2P/IPC/read\n"
        /* 2.12+: connection index; P2P without more says nothing */
        "b:5:6 [1] NCCL INFO Channel 00/1 : 1[1] -> 2[2] via P2P/CUMEM\n"
        "b:5:6 [1] NCCL INFO Channel 02/0 : 4[4] -> 5[5] via SHM/direct/direct\n"
        /* IB device 6 is RoCE, device 0 IB, on this host's NIC list */
        "c:7:8 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [6]mlx5_6:1/RoCE ; OOB e:1<0>\n"
        "c:7:8 [0] NCCL INFO Channel 03/0 : 9[0] -> 8[0] [receive] via NET/IB/6/GDRDMA\n"
        "c:7:8 [0] NCCL INFO Channel 04/0 : 9[0] -> 8[0] [receive] via NET/IB/0\n"
        "d:7:8 [0] NCCL INFO Channel 04/0 : 10[0] -> 11[0] [send] via NET/IB/0\n");
    assert_int_equal(link_of(L, 0, 0, 1)->cls, REC_NET_PLUGIN);
    assert_string_equal(link_of(L, 0, 0, 1)->via, "NET/AWS Libfabric/0");
    assert_int_equal(link_of(L, 0, 2, 3)->cls, REC_SHM);
    assert_int_equal(link_of(L, 1, 2, 7)->cls, REC_NVLINK);
    assert_int_equal(link_of(L, 0, 1, 2)->cls, REC_UNKNOWN);
    assert_int_equal(link_of(L, 0, 1, 2)->conn, 1);
    assert_int_equal(link_of(L, 2, 4, 5)->cls, REC_SHM);
    assert_int_equal(link_of(L, 3, 9, 8)->cls, REC_ROCE);
    assert_int_equal(link_of(L, 4, 9, 8)->cls, REC_IB);
    assert_int_equal(link_of(L, 4, 10, 11)->cls, REC_NET); /* host d has no NIC list */
    assert_string_equal(L->ranks[8].host, "c");            /* the receiver printed it */
    assert_string_equal(rec_class_name(REC_NET_PLUGIN), "net-plugin");
    assert_string_equal(rec_class_name(REC_NET), "network");
    rec_free(L);
}

/* P2P's class from the graph's path type or NVLS, per host. */
static void test_p2p_evidence(void **state)
{
    (void)state;
    struct rec_log *L = parse(
        "nv:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 8, bw 40.0/40.0, type NVL/PIX\n"
        "nv:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM\n"
        "pc:1:2 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 12.0/12.0, type PHB/PHB\n"
        "pc:1:2 [0] NCCL INFO Channel 00/0 : 2[0] -> 3[1] via P2P/direct pointer\n"
        "sw:1:2 [0] NCCL INFO NVLS multicast support is available on dev 0\n"
        "sw:1:2 [0] NCCL INFO Channel 00/0 : 4[0] -> 5[1] via P2P/direct pointer\n");
    assert_int_equal(link_of(L, 0, 0, 1)->cls, REC_NVLINK);
    assert_int_equal(link_of(L, 0, 2, 3)->cls, REC_PCIE);
    assert_int_equal(link_of(L, 0, 4, 5)->cls, REC_NVLINK);
    rec_free(L);
}

/* "Trees [0] 1/-1/-1->0->-1" and 2.6/2.7's two parts; -1 placeholders dropped. */
static void test_trees(void **state)
{
    (void)state;
    struct rec_log *L =
        parse("h:1:2 [0] NCCL INFO Trees [0] 1/-1/-1->0->-1 [1] -1/-1/-1->0->1\n"
              "h:1:3 [1] NCCL INFO Trees [0] 3/2/-1->1->0 [1] 0/-1/-1->1->-1\n"
              "h:1:4 [2] NCCL INFO Trees [0] -1/-1/-1->2->1|1->2->-1/-1/-1\n"
              "h:1:5 [3] NCCL INFO Trees [0] -1/-1/-1->3->1|1->3->2/-1/-1\n");
    assert_int_equal(L->trees[0].n, 4);
    assert_int_equal(L->trees[0].node[0].up, -1);
    assert_int_equal(L->trees[0].node[0].ndown, 1);
    assert_int_equal(L->trees[0].node[0].down[0], 1);
    assert_int_equal(L->trees[0].node[1].up, 0);
    assert_int_equal(L->trees[0].node[1].ndown, 2);
    assert_int_equal(L->trees[0].node[1].down[1], 2);
    assert_int_equal(L->trees[1].node[1].up, -1);
    assert_int_equal(L->trees[0].node[2].ndown, 0);
    assert_true(has_msg(L->warnings, L->nwarnings, "channel 0: rank 3's two trees differ"));
    assert_false(has_msg(L->warnings, L->nwarnings, "rank 2's two trees"));
    assert_string_equal(L->ranks[3].host, "h");
    rec_free(L);
}

/* comm lines (2.4 .. 2.18, and 2.19+ with nNodes), the version prefixed, Using network. */
static void test_comm_lines(void **state)
{
    (void)state;
    struct rec_log *L = parse(
        "x:9:9 [2] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
        "x:9:9 [2] NCCL INFO Using network IB\n"
        "x:9:9 [2] NCCL INFO comm 0x7f rank 10 nRanks 16 nNodes 2 localRanks 8 localRank 2 "
        "MNNVL 0\n"
        "y:3:4 [0] NCCL INFO comm 0x55 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1b000 "
        "commId 0x1 - Init COMPLETE\n");
    assert_string_equal(L->version, "2.21.5+cuda12.4");
    assert_int_equal(L->nranks, 16);
    assert_int_equal(L->nnodes, 2);
    assert_string_equal(L->ranks[10].host, "x");
    assert_string_equal(L->ranks[0].busid, "1b000");
    assert_int_equal(L->ranks[0].device, 0);
    assert_int_equal(L->init_complete, 1);
    assert_string_equal(L->nets[rec_host_id(L, "x", false) + 1].net, "IB"); /* 0: no host */
    assert_true(has_msg(L->warnings, L->nwarnings, "lines of ranks 0, 10 only (of 16)"));
    rec_free(L);
}

/* nccl-tests, new table: Open MPI tags even inside a row, N/A, device lines, avg. */
static void test_tests_new(void **state)
{
    (void)state;
    struct rec_log *L = parse(
        "# Collective test starting: all_gather_perf\n"
        "#  Rank  0 Group  0 Pid 42 on hostA device  0 [0x0f] NVIDIA H800\n"
        "#  Rank  1 Group  0 Pid 43 on hostB device  1 [0000:1b:00] NVIDIA H100 80GB HBM3\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
        "[1,0]<stdout>:     1048576        131072     float    none      -1    [1,1]<stdout>:"
        "20.50   51.15   25.58      0    20.00   52.43   26.21    N/A\n"
        "     2097152        262144     float    none      -1    30.00   69.91   34.95      2"
        "    29.00   72.32   36.16      0\n"
        "# Avg bus bandwidth    : 30.725\n"
        "# Collective test starting: broadcast_perf\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        "           8             2     float    none       0    27.06    0.00    0.00    N/A"
        "    27.03    0.00    0.00    N/A\n");
    assert_int_equal(L->ntests, 2);
    const struct rec_test *t = &L->tests[0];
    assert_string_equal(t->collective, "all_gather");
    assert_string_equal(t->type, "float");
    assert_string_equal(t->redop, "none");
    assert_false(t->old_header);
    assert_int_equal(t->nrows, 2);
    assert_true(t->rows[0].size == 1048576 && t->rows[0].oop.time_us == 20.50);
    assert_true(t->rows[0].oop.wrong == 0 && isnan(t->rows[0].ip.wrong));
    assert_true(isnan(t->rows[0].oop.error));
    assert_true(t->rows[1].oop.wrong == 2 && t->rows[1].ip.busbw == 36.16);
    assert_true(t->avg_busbw == 30.725);
    assert_string_equal(L->tests[1].collective, "broadcast");
    assert_true(isnan(L->tests[1].avg_busbw));
    assert_string_equal(L->ranks[1].host, "hostB");
    assert_string_equal(L->ranks[1].busid, "0000:1b:00");
    assert_string_equal(L->ranks[1].gpu, "NVIDIA H100 80GB HBM3");
    assert_int_equal(L->ranks[0].device, 0);
    assert_int_equal(L->nnodes, 2);
    rec_free(L);
}

/* The old table: "error" is the largest error; a table in ms is read as us. */
static void test_tests_old(void **state)
{
    (void)state;
    struct rec_log *L =
        parse("#   Rank  0 Pid 120890 on node7 device  0 [0x87] A100-SXM4-40GB\n"
              "#       size         count      type   redop     time   algbw   busbw  error"
              "     time   algbw   busbw  error\n"
              "#        (B)    (elements)                       (ms)  (GB/s)  (GB/s)\n"
              "           8             2     float     sum    0.022    0.00    0.00  4e-07"
              "    0.025    0.00    0.00  1e-07\n");
    const struct rec_test *t = &L->tests[0];
    assert_true(t->old_header);
    assert_string_equal(t->collective, "");
    assert_true(t->rows[0].oop.error == 4e-07 && t->rows[0].ip.error == 1e-07);
    assert_true(isnan(t->rows[0].oop.wrong));
    assert_true(fabs(t->rows[0].oop.time_us - 22.0) < 1e-9);
    assert_string_equal(L->ranks[0].host, "node7");
    rec_free(L);
}

/* A failed init is NCCL's error trace through init.cc; a WARN alone is not. */
static void test_init_failed(void **state)
{
    (void)state;
    struct rec_log *L = parse(
        "u:1:2 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<4> "
        "failed\n"
        "u:1:2 [0] NCCL INFO misc/socket.cc:564 -> 2\n"
        "u:1:2 [0] NCCL INFO init.cc:1350 -> 2\n");
    assert_true(has_msg(L->warnings, L->nwarnings,
                        "init failed (init.cc:1350 -> 2): u: socketStartConnect"));
    rec_free(L);
    L = parse("n:1:2 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
              "n:1:2 [0] NCCL INFO Channel 00 :    0   1\n");
    assert_false(has_msg(L->warnings, L->nwarnings, "init failed"));
    assert_true(has_msg(L->warnings, L->nwarnings, "NCCL WARN: n: Failed to open"));
    rec_free(L);
}

/* No ring line: the ring is read from link lines only when they make one cycle. */
static void test_ring_from_links(void **state)
{
    (void)state;
    struct rec_log *L =
        parse("h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
              "h:1:1 [1] NCCL INFO Channel 00 : 1[1] -> 2[2] via SHM/direct/direct\n"
              "h:1:1 [2] NCCL INFO Channel 00 : 2[2] -> 0[0] via SHM/direct/direct\n");
    assert_ring(L, 0, (int[]){0, 1, 2}, 3);
    assert_int_equal(rec_ring_crossings(L, 0), 0);
    rec_free(L);
    /* a tree hop on the same channel: two successors of 0, no ring */
    L = parse("h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
              "h:1:1 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct\n"
              "h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 2[2] via SHM/direct/direct\n");
    assert_null(L->rings[0].order);
    assert_true(has_msg(L->warnings, L->nwarnings, "no ring-order line"));
    rec_free(L);
}

/* Bounds and garbage: errors with file:line, nothing kept from a bad line. */
static void test_bounds(void **state)
{
    (void)state;
    size_t n = REC_MAX_LINE + 100;
    char *big = malloc(n + 64);
    memset(big, 'x', n);
    strcpy(big + n, "\nh:1:1 [0] NCCL INFO Channel 00 :    0   1\n");
    struct rec_log *L = rec_new();
    assert_int_equal(rec_parse(L, "b.log", big, strlen(big)), 1);
    assert_true(has_msg(L->errors, L->nerrors, "b.log:1: a line of"));
    free(big);
    const char *bad = "h:1:1 [0] NCCL INFO Channel 200/2 :    0   1\n"
                      "h:1:1 [0] NCCL INFO Channel 01/2 :    0   99999999\n"
                      "h:1:1 [0] NCCL INFO Trees [0] 1/-1/-1->0->x\n"
                      "h:1:1 [0] NCCL INFO comm 0x1 rank 5 nranks 2 cudaDev 0\n"
                      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 99999999[1] via SHM/direct\n";
    rec_parse(L, "c.log", bad, strlen(bad));
    rec_finish(L);
    /* past a limit: the record is refused (the first place says where), never cut */
    assert_true(
        strncmp(L->too_large, "c.log:1: channel 200: larger than this reader holds", 51) == 0);
    assert_true(has_msg(L->errors, L->nerrors, "c.log:3: a Trees entry"));
    assert_true(has_msg(L->errors, L->nerrors, "c.log:4: comm line: rank 5 of 2"));
    assert_null(L->rings[1].order);
    assert_int_equal(L->nlinks, 0);
    rec_free(L);
    /* a ring line with no ranks (found by fuzz_records) is no ring */
    L = parse("h:1:1 [0] NCCL INFO Channel 00 :\nh:1:1 [0] NCCL INFO Channel 01/02 :   \n");
    assert_null(L->rings[0].order);
    assert_null(L->rings[1].order);
    rec_free(L);
    /* not NUL-terminated, NULs and control bytes inside, no newline at the end */
    const char cut[] = "\x01\x1b[2J\0h:1:1 [0] NCCL INFO Channel 00/1 :    0";
    L = rec_new();
    assert_int_equal(rec_parse(L, "d.log", cut, sizeof cut - 1), 1);
    assert_int_equal(rec_parse(L, "e.log", NULL, 0), 0);
    rec_finish(L);
    assert_ring(L, 0, (int[]){0}, 1);
    rec_free(L);
    /* a "host" with control bytes is no host: never a host made of what is not one */
    L = parse("a\x1b]0;x\x07z:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0\n");
    assert_string_equal(L->ranks[0].host, "");
    rec_free(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nccl24),       cmocka_unit_test(test_ring_formats),
        cmocka_unit_test(test_link_classes), cmocka_unit_test(test_p2p_evidence),
        cmocka_unit_test(test_trees),        cmocka_unit_test(test_comm_lines),
        cmocka_unit_test(test_tests_new),    cmocka_unit_test(test_tests_old),
        cmocka_unit_test(test_init_failed),  cmocka_unit_test(test_ring_from_links),
        cmocka_unit_test(test_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
