/* test_recview.c - each communicator's own rings, trees and links (records/recview.h) on two
 * real records of tests/records/ whose communicators reuse rank numbers: chimera2's two
 * 2-rank communicators on one host (no commId), and vLLM's TP 8 x PP 2 over two nodes.
 * Every expected ring, tree entry, link and host is read off the log's lines by hand (the
 * line numbers are given). Run from the repository's root (it reads tests/records/). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "records/recfile.h"
#include "records/records.h"
#include "records/recview.h"

static struct rec_log *read_record(const char *name)
{
    char path[256], err[200];
    snprintf(path, sizeof path, "tests/records/%s", name);
    struct rec_log *L = rec_new();
    int n = rec_read_file(L, path, err, sizeof err);
    if (n < 0) fail_msg("%s: %s", path, err);
    rec_finish(L);
    return L;
}

/* The communicator whose commId is id. */
static int comm_by_id(const struct rec_log *L, const char *id)
{
    for (int c = 0; c < L->ncomms; c++)
        if (strcmp(L->comms[c].id, id) == 0) return c;
    fail_msg("no communicator %s", id);
    return -1;
}

static void assert_ring(const struct rec_log *v, int ch, const int *want, int n)
{
    assert_non_null(v->rings[ch].order);
    assert_int_equal(v->rings[ch].n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(v->rings[ch].order[i], want[i]);
}

static int nrings(const struct rec_log *v)
{
    int n = 0;
    for (int c = 0; c < REC_MAX_CHANNELS; c++)
        n += v->rings[c].order != NULL;
    return n;
}

static void assert_tnode(const struct rec_log *v, int ch, int me, int up, const int *down,
                         int nd)
{
    assert_true(me < v->trees[ch].n);
    const struct rec_tnode *t = &v->trees[ch].node[me];
    assert_true(t->set);
    assert_int_equal(t->up, up);
    assert_int_equal(t->ndown, nd);
    for (int i = 0; i < nd; i++)
        assert_int_equal(t->down[i], down[i]);
}

static bool has_link(const struct rec_log *v, int ch, int from, int to, const char *via)
{
    for (int i = 0; i < v->nlinks; i++) {
        const struct rec_link *k = &v->links[i];
        if (k->channel == ch && k->from == from && k->to == to && strcmp(k->via, via) == 0)
            return true;
    }
    return false;
}

/* chimera2: pids 65958 (rank 0: the rings, lines 6 and 8; Trees line 10) and 65959 (rank 1:
 * Trees line 7) are one communicator; pids 65957 (rank 0: lines 1-2) and 65960 (rank 1:
 * lines 5 and 12) the other, which printed only SHM links: its rings are their cycle. */
static void test_chimera2(void **state)
{
    (void)state;
    struct rec_log *L = read_record("chimera2-two-comms-one-host-ranks-reused.log");
    assert_int_equal(L->ncomms, 2);
    int shm = L->comms[0].ntransports ? 0 : 1, ring = 1 - shm;
    struct rec_view a, b;
    rec_view_make(L, ring, &a);
    rec_view_make(L, shm, &b);
    static const int r01[] = {0, 1}, d1[] = {1};
    /* the printed rings and trees; no links */
    assert_int_equal(nrings(&a.v), 2);
    assert_ring(&a.v, 0, r01, 2);
    assert_ring(&a.v, 1, r01, 2);
    for (int ch = 0; ch < 2; ch++) {
        assert_tnode(&a.v, ch, 0, -1, d1, 1);
        assert_tnode(&a.v, ch, 1, 0, NULL, 0);
    }
    assert_int_equal(a.v.nlinks, 0);
    assert_false(L->ctopo[ring].rings_from_links);
    /* the SHM communicator: four links, rings from them, no trees */
    assert_int_equal(b.v.nlinks, 4);
    for (int ch = 0; ch < 2; ch++) {
        assert_true(has_link(&b.v, ch, 0, 1, "SHM/direct/direct"));
        assert_true(has_link(&b.v, ch, 1, 0, "SHM/direct/direct"));
        assert_ring(&b.v, ch, r01, 2);
        assert_int_equal(b.v.trees[ch].n, 0);
    }
    assert_true(L->ctopo[shm].rings_from_links);
    for (int r = 0; r < 2; r++) {
        assert_string_equal(a.v.ranks[r].host, "gpt-dev-ppt");
        assert_string_equal(b.v.ranks[r].host, "gpt-dev-ppt");
    }
    rec_view_free(&a);
    rec_view_free(&b);
    rec_free(L);
}

/* vLLM TP 8 x PP 2 over deepseek-v2-5-0 and deepseek-v2-5-0-1: each TP group's ring lines
 * (lines 28-29 on node 0, 119-120 on node 1: 24 channels of 0..7) and P2P links (lines
 * 56-79 and 184; 93-117 and 317) are its own, and the PP group 0x9bdf58487a45133a of two
 * ranks on two nodes has its own rings (lines 209-210), trees (211, 315) and network links
 * (214-217; 329-330 are the same connections from the other side). */
static void test_vllm_tp8pp2(void **state)
{
    (void)state;
    struct rec_log *L = read_record("llmk8s-vllm-ray-tp8pp2-2node-ib-nccl2215.log");
    int tp0 = comm_by_id(L, "0xc13f651b1c793497"), tp1 = comm_by_id(L, "0xc9d8ed7b94ebce1c");
    int pp = comm_by_id(L, "0x9bdf58487a45133a");
    static const int r8[] = {0, 1, 2, 3, 4, 5, 6, 7}, r01[] = {0, 1}, d0[] = {0}, d1[] = {1};
    struct rec_view v;

    rec_view_make(L, tp0, &v);
    assert_int_equal(nrings(&v.v), 24);
    for (int ch = 0; ch < 24; ch++) {
        assert_ring(&v.v, ch, r8, 8);
        assert_true(has_link(&v.v, ch, 0, 1, "P2P/IPC/read"));
    }
    assert_true(has_link(&v.v, 23, 6, 7, "P2P/IPC/read"));
    assert_int_equal(v.v.nlinks, 25);
    assert_string_equal(v.v.ranks[0].host, "deepseek-v2-5-0");
    assert_int_equal(v.v.ranks[6].device, 6); /* line 177's cudaDev */
    assert_int_equal(v.v.nranks, 8);
    rec_view_free(&v);

    rec_view_make(L, tp1, &v);
    assert_int_equal(nrings(&v.v), 24);
    for (int ch = 0; ch < 23; ch++)
        assert_true(has_link(&v.v, ch, 1, 2, "P2P/IPC/read"));
    assert_true(has_link(&v.v, 23, 0, 1, "P2P/IPC/read"));
    assert_int_equal(v.v.nlinks, 24);
    assert_string_equal(v.v.ranks[1].host, "deepseek-v2-5-0-1");
    assert_string_equal(v.v.ranks[0].host, "deepseek-v2-5-0-1");
    rec_view_free(&v);

    rec_view_make(L, pp, &v);
    assert_int_equal(nrings(&v.v), 2);
    assert_ring(&v.v, 0, r01, 2);
    assert_ring(&v.v, 1, r01, 2);
    assert_int_equal(v.v.nlinks, 4);
    for (int ch = 0; ch < 2; ch++) {
        assert_true(has_link(&v.v, ch, 1, 0, "NET/IB/0/GDRDMA"));
        assert_true(has_link(&v.v, ch, 0, 1, "NET/IB/0/GDRDMA"));
    }
    assert_tnode(&v.v, 0, 0, -1, d1, 1);  /* line 211: [0] 1/-1/-1->0->-1 */
    assert_tnode(&v.v, 0, 1, 0, NULL, 0); /* line 315: [0] -1/-1/-1->1->0 */
    assert_tnode(&v.v, 1, 0, 1, NULL, 0); /* line 211: [1] -1/-1/-1->0->1 */
    assert_tnode(&v.v, 1, 1, -1, d0, 1);  /* line 315: [1] 0/-1/-1->1->-1 */
    assert_string_equal(v.v.ranks[0].host, "deepseek-v2-5-0");
    assert_string_equal(v.v.ranks[1].host, "deepseek-v2-5-0-1");
    assert_int_equal(v.v.nnodes, 2);
    rec_view_free(&v);

    /* the record's own lists keep every communicator's links: the two TP groups' alike
     * ones (channel 23's 0 -> 1 on both nodes) are two */
    int n = 0;
    for (int i = 0; i < L->nlinks; i++)
        n += L->links[i].channel == 23 && L->links[i].from == 0 && L->links[i].to == 1 &&
             strcmp(L->links[i].via, "P2P/IPC/read") == 0;
    assert_int_equal(n, 2);
    rec_free(L);
}

/* One communicator: its picture is the record's, nothing copied. */
static void test_one_comm_alias(void **state)
{
    (void)state;
    struct rec_log *L = read_record("nccl1538-roce-2node16-rings-nccl2223.log");
    assert_int_equal(L->ncomms, 1);
    assert_true(L->ctopo[0].alias);
    struct rec_view v;
    rec_view_make(L, 0, &v);
    assert_null(v.ranks);
    assert_null(v.links);
    assert_ptr_equal(v.v.links, L->links);
    assert_ptr_equal(v.v.rings[0].order, L->rings[0].order);
    rec_view_free(&v);
    rec_free(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chimera2),
        cmocka_unit_test(test_vllm_tp8pp2),
        cmocka_unit_test(test_one_comm_alias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
