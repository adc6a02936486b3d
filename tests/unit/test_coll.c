/* test_coll.c - names and parsing, count semantics and the working-buffer layout of every
 * collective, nccl-tests' byte accounting and busbw factors, the algorithm table. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "core/coll.h"
#include "core/init.h"
#include "core/plan.h"

#include "../oracle/coll_answers.h"

/* The tests' answers for collective c (tests/oracle/coll_answers.h); a collective without
 * its entry there fails. */
static const struct coll_answer *answer(int c)
{
    const struct coll_answer *a = coll_answer(c);
    if (!a) fail_msg("collective %d has no entry in tests/oracle/coll_answers.h", c);
    return a;
}

static void test_names_and_parse(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++) {
        const struct coll_answer *a = answer(c);
        assert_string_equal(coll_name((enum coll)c), a->name);
        assert_string_equal(coll_title((enum coll)c), a->title);
        enum coll got = COLL_COUNT;
        assert_int_equal(coll_parse(a->name, &got), 0);
        assert_int_equal(got, c);
        got = COLL_COUNT;
        assert_int_equal(coll_parse(a->title, &got), 0);
        assert_int_equal(got, c);
    }
    enum coll c = COLL_COUNT;
    assert_int_equal(coll_parse("allreduce", &c), 0);
    assert_int_equal(c, COLL_ALL_REDUCE);
    assert_int_equal(coll_parse("all-to-all", &c), 0);
    assert_int_equal(c, COLL_ALL_TO_ALL);
    assert_int_equal(coll_parse("reducescatter", &c), 0);
    assert_int_equal(c, COLL_REDUCE_SCATTER);
    /* names are exact (issue 17): no other case, no stray separators */
    const char *junk[] = {"",
                          "all",
                          "allreduc",
                          "all_reducex",
                          "reduce scatter",
                          "bcast",
                          "_",
                          "xall_reduce",
                          "All-To-All",
                          "REDUCE_SCATTER",
                          "all-reduce-",
                          "_allreduce",
                          "all__reduce"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        c = COLL_COUNT;
        if (coll_parse(junk[i], &c) != -1) fail_msg("coll_parse accepted '%s'", junk[i]);
        assert_int_equal(c, COLL_COUNT);
    }
    assert_int_equal(coll_parse(NULL, &c), -1);

    enum redop op;
    static const char *ops[OP_COUNT] = {"sum", "prod", "min", "max", "avg"};
    for (int i = 0; i < OP_COUNT; i++) {
        assert_string_equal(redop_name((enum redop)i), ops[i]);
        assert_int_equal(redop_parse(ops[i], &op), 0);
        assert_int_equal(op, i);
    }
    assert_int_equal(redop_parse("bogus", &op), -1);
    assert_int_equal(redop_parse("", &op), -1);

    enum algo a;
    static const char *algos[ALGO_COUNT] = {"ring", "tree", "direct", "owner"};
    for (int i = 0; i < ALGO_COUNT; i++) {
        assert_string_equal(algo_name((enum algo)i), algos[i]);
        assert_int_equal(algo_parse(algos[i], &a), 0);
        assert_int_equal(a, i);
    }
    assert_int_equal(algo_parse("nvls", &a), -1);
}

static void test_classification(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++) {
        assert_int_equal(coll_is_rooted((enum coll)c), answer(c)->rooted);
        assert_int_equal(coll_reduces((enum coll)c), answer(c)->reduces);
    }
}

/* The table in coll.h's opening comment, at W=4, count=3, root 1. */
static void test_counts_and_layout(void **state)
{
    (void)state;
    const int W = 4, root = 1;
    const size_t n = 3;
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        const struct coll_answer *want = answer(c);
        assert_int_equal(coll_send_count(k, W, n, root, root), want->sizes.send_root);
        assert_int_equal(coll_send_count(k, W, n, 3, root), want->sizes.send_other);
        assert_int_equal(coll_recv_count(k, W, n, root, root), want->sizes.recv_root);
        assert_int_equal(coll_recv_count(k, W, n, 3, root), want->sizes.recv_other);
        assert_int_equal(coll_work_len(k, W, n), want->sizes.work);
        /* Send and receive regions fit in the working buffer for every rank. */
        for (int r = 0; r < W; r++) {
            assert_true(coll_in_off(k, W, n, r) + coll_send_count(k, W, n, r, root) <=
                        coll_work_len(k, W, n));
            assert_true(coll_out_off(k, W, n, r) + coll_recv_count(k, W, n, r, root) <=
                        coll_work_len(k, W, n));
        }
    }
    /* In-place offsets: NCCL's recvbuff = sendbuff + rank*count and the reverse. */
    assert_int_equal(coll_in_off(COLL_ALL_GATHER, W, n, 2), 6);
    assert_int_equal(coll_out_off(COLL_ALL_GATHER, W, n, 2), 0);
    assert_int_equal(coll_in_off(COLL_GATHER, W, n, 3), 9);
    assert_int_equal(coll_out_off(COLL_REDUCE_SCATTER, W, n, 2), 6);
    assert_int_equal(coll_in_off(COLL_REDUCE_SCATTER, W, n, 2), 0);
    assert_int_equal(coll_out_off(COLL_SCATTER, W, n, 3), 9);
    assert_int_equal(coll_in_off(COLL_ALL_TO_ALL, W, n, 3), 0);
    assert_int_equal(coll_out_off(COLL_ALL_TO_ALL, W, n, 3), 12);
    assert_int_equal(coll_out_off(COLL_ALL_REDUCE, W, n, 3), 0);
}

static void test_bytes_and_busbw(void **state)
{
    (void)state;
    /* W=4, count 1000 floats. */
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        size_t S = answer(c)->bytes;
        assert_int_equal(coll_bytes(k, 4, 1000, 4), S);
        assert_int_equal(coll_count_for_bytes(k, 4, S, 4), 1000);
        /* Rounds down: three bytes short of the next element (or piece). */
        assert_int_equal(coll_count_for_bytes(k, 4, S + (S == 4000 ? 3 : 15), 4), 1000);
        assert_true(coll_busbw_factor(k, 4) == answer(c)->busbw_w4);
        assert_true(coll_busbw_factor(k, 1) == answer(c)->busbw_w1);
        assert_int_equal(coll_bytes(k, 1, 1000, 4), 4000);
    }
    /* The lecture's benchmark: 100*1024^2 floats all-reduced on 4 ranks. */
    assert_int_equal(coll_bytes(COLL_ALL_REDUCE, 4, 100u << 20, 4), 400u << 20);
    assert_true(coll_busbw_factor(COLL_ALL_REDUCE, 8) == 1.75);
    assert_true(coll_busbw_factor(COLL_ALL_GATHER, 8) == 0.875);
}

/* The one table entry per collective: its fields agree with the functions built on it,
 * and the factor's text says what the factor is (checked by hand values at W = 4). */
static void test_table(void **state)
{
    (void)state;
    const double at4[] = {[0] = 1.0, [1] = 0.75, [2] = 1.5}; /* "1", "(W-1)/W", "2(W-1)/W" */
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        const struct coll_info *ci = coll_info(k);
        const char *text = answer(c)->busbw_text;
        assert_non_null(ci);
        assert_string_equal(ci->name, coll_name(k));
        assert_string_equal(ci->title, coll_title(k));
        assert_true(ci->rooted == coll_is_rooted(k));
        assert_true(ci->reduces == coll_reduces(k));
        assert_int_equal(coll_in_place(k), answer(c)->in_place);
        assert_string_equal(ci->busbw_text, text);
        int which = strcmp(text, "1") == 0 ? 0 : strcmp(text, "(W-1)/W") == 0 ? 1 : 2;
        assert_true(coll_busbw_factor(k, 4) == at4[which]);
        assert_true(ci->busbw_why && strlen(ci->busbw_why) > 20);
        assert_true(ci->count_text && ci->count_text[0]);
        assert_int_equal(coll_bytes(k, 4, 10, 4),
                         ci->count_kind == COLL_COUNT_WHOLE ? 40u : 160u);
    }
    assert_null(coll_info(COLL_COUNT));
}

/* Every collective of COLL_LIST (the enum) has its row in core/coll.c and its plans in
 * core/plan.c: a line added to the list without them fails here, whatever its name. */
static void test_rows_complete(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        const struct coll_info *ci = coll_info(k);
        assert_non_null(ci);
        assert_true(ci->name && ci->name[0] && ci->title && ci->title[0]);
        assert_true(ci->count_text && ci->busbw_text && ci->busbw_why && ci->layout);
        assert_true(ci->perf && strstr(ci->perf, "_perf"));
        assert_true(ci->busbw_mult > 0);
        int nalgo = 0;
        for (int a = 0; a < ALGO_COUNT; a++)
            nalgo += algo_supported(k, (enum algo)a);
        assert_true(nalgo > 0);
        assert_true(algo_supported(k, coll_default_algo(k)));
        assert_true(plan_has_builder(k));
        enum coll back;
        assert_int_equal(coll_parse(ci->name, &back), 0);
        assert_int_equal(back, c);
    }
}

static void test_algorithms_and_defaults(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++) {
        const bool *have = answer(c)->algos;
        for (int a = 0; a < ALGO_COUNT; a++)
            assert_int_equal(algo_supported((enum coll)c, (enum algo)a), have[a]);
        assert_int_equal(coll_default_algo((enum coll)c),
                         have[ALGO_RING] ? ALGO_RING : ALGO_DIRECT);
    }
    assert_int_equal(coll_default_count(COLL_ALL_REDUCE, 4), 4);
    assert_int_equal(coll_default_count(COLL_BROADCAST, 6), 6);
    assert_int_equal(coll_default_count(COLL_REDUCE_SCATTER, 4), 1);
    assert_int_equal(coll_default_count(COLL_ALL_TO_ALL, 4), 1);
    assert_int_equal(coll_default_count(COLL_SCATTER, 4), 1);
}

static void test_redop_apply(void **state)
{
    (void)state;
    assert_true(redop_apply(OP_SUM, 2, 3) == 5);
    assert_true(redop_apply(OP_AVG, 2, 3) == 5); /* the division is a separate step */
    assert_true(redop_apply(OP_PROD, 2, -3) == -6);
    assert_true(redop_apply(OP_MIN, 2, -3) == -3);
    assert_true(redop_apply(OP_MAX, 2, -3) == 2);
}

/* Every row's buffers fit its working buffer, over the whole space (W 1..16, count 1..5,
 * every rank and root): the send buffer from coll_in_off, the receive buffer from
 * coll_out_off; a row that lays the buffer out in slots or halves says so in words, one
 * used in place says nothing more; and the bytes nccl-tests counts are the larger side. */
static void test_rows_fit(void **state)
{
    (void)state;
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        const struct coll_info *ci = coll_info(k);
        assert_true(ci->work_w <= 2);
        assert_true((ci->work_w == 0) == (ci->layout[0] == '\0'));
        for (int W = 1; W <= CV_MAX_RANKS; W++)
            for (size_t n = 1; n <= 5; n++) {
                size_t L = coll_work_len(k, W, n), most = 0;
                for (int root = 0; root < W; root++)
                    for (int r = 0; r < W; r++) {
                        size_t sn = coll_send_count(k, W, n, r, root);
                        size_t rn = coll_recv_count(k, W, n, r, root);
                        if (sn) assert_true(coll_in_off(k, W, n, r) + sn <= L);
                        if (rn) assert_true(coll_out_off(k, W, n, r) + rn <= L);
                        most = sn > most ? sn : most;
                        most = rn > most ? rn : most;
                    }
                assert_int_equal(coll_bytes(k, W, n, 1), most);
                char t[200];
                coll_layout_text(k, W, n, t, sizeof t);
                assert_true(t[0] != '\0');
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_rows_complete),
        cmocka_unit_test(test_names_and_parse),
        cmocka_unit_test(test_classification),
        cmocka_unit_test(test_counts_and_layout),
        cmocka_unit_test(test_bytes_and_busbw),
        cmocka_unit_test(test_algorithms_and_defaults),
        cmocka_unit_test(test_redop_apply),
        cmocka_unit_test(test_rows_fit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
