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

static void test_names_and_parse(void **state)
{
    (void)state;
    static const char *names[COLL_COUNT] = {"broadcast",  "scatter",    "gather",
                                            "reduce",     "all_gather", "reduce_scatter",
                                            "all_reduce", "all_to_all"};
    static const char *titles[COLL_COUNT] = {"broadcast",  "scatter",    "gather",
                                             "reduce",     "all-gather", "reduce-scatter",
                                             "all-reduce", "all-to-all"};
    for (int c = 0; c < COLL_COUNT; c++) {
        assert_string_equal(coll_name((enum coll)c), names[c]);
        assert_string_equal(coll_title((enum coll)c), titles[c]);
        enum coll got = COLL_COUNT;
        assert_int_equal(coll_parse(names[c], &got), 0);
        assert_int_equal(got, c);
        got = COLL_COUNT;
        assert_int_equal(coll_parse(titles[c], &got), 0);
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
    bool rooted[COLL_COUNT] = {true, true, true, true, false, false, false, false};
    bool reduces[COLL_COUNT] = {false, false, false, true, false, true, true, false};
    for (int c = 0; c < COLL_COUNT; c++) {
        assert_int_equal(coll_is_rooted((enum coll)c), rooted[c]);
        assert_int_equal(coll_reduces((enum coll)c), reduces[c]);
    }
}

/* The table in coll.h's opening comment, at W=4, count=3, root 1. */
static void test_counts_and_layout(void **state)
{
    (void)state;
    const int W = 4, root = 1;
    const size_t n = 3;
    struct {
        size_t send_root, send_other, recv_root, recv_other, work;
    } want[COLL_COUNT] = {
        [COLL_BROADCAST] = {3, 0, 3, 3, 3},     [COLL_SCATTER] = {12, 0, 3, 3, 12},
        [COLL_GATHER] = {3, 3, 12, 0, 12},      [COLL_REDUCE] = {3, 3, 3, 0, 3},
        [COLL_ALL_GATHER] = {3, 3, 12, 12, 12}, [COLL_REDUCE_SCATTER] = {12, 12, 3, 3, 12},
        [COLL_ALL_REDUCE] = {3, 3, 3, 3, 3},    [COLL_ALL_TO_ALL] = {12, 12, 12, 12, 24},
    };
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        assert_int_equal(coll_send_count(k, W, n, root, root), want[c].send_root);
        assert_int_equal(coll_send_count(k, W, n, 3, root), want[c].send_other);
        assert_int_equal(coll_recv_count(k, W, n, root, root), want[c].recv_root);
        assert_int_equal(coll_recv_count(k, W, n, 3, root), want[c].recv_other);
        assert_int_equal(coll_work_len(k, W, n), want[c].work);
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
    size_t S[COLL_COUNT] = {
        [COLL_BROADCAST] = 4000,  [COLL_SCATTER] = 16000,    [COLL_GATHER] = 16000,
        [COLL_REDUCE] = 4000,     [COLL_ALL_GATHER] = 16000, [COLL_REDUCE_SCATTER] = 16000,
        [COLL_ALL_REDUCE] = 4000, [COLL_ALL_TO_ALL] = 16000,
    };
    double f4[COLL_COUNT] = {
        [COLL_BROADCAST] = 1.0,  [COLL_SCATTER] = 0.75,    [COLL_GATHER] = 0.75,
        [COLL_REDUCE] = 1.0,     [COLL_ALL_GATHER] = 0.75, [COLL_REDUCE_SCATTER] = 0.75,
        [COLL_ALL_REDUCE] = 1.5, [COLL_ALL_TO_ALL] = 0.75,
    };
    double f1[COLL_COUNT] = {[COLL_BROADCAST] = 1.0, [COLL_REDUCE] = 1.0};
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        assert_int_equal(coll_bytes(k, 4, 1000, 4), S[c]);
        assert_int_equal(coll_count_for_bytes(k, 4, S[c], 4), 1000);
        /* Rounds down: three bytes short of the next element (or piece). */
        assert_int_equal(coll_count_for_bytes(k, 4, S[c] + (S[c] == 4000 ? 3 : 15), 4), 1000);
        assert_true(coll_busbw_factor(k, 4) == f4[c]);
        assert_true(coll_busbw_factor(k, 1) == f1[c]);
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
    const char *text[COLL_COUNT] = {
        [COLL_BROADCAST] = "1",         [COLL_SCATTER] = "(W-1)/W",
        [COLL_GATHER] = "(W-1)/W",      [COLL_REDUCE] = "1",
        [COLL_ALL_GATHER] = "(W-1)/W",  [COLL_REDUCE_SCATTER] = "(W-1)/W",
        [COLL_ALL_REDUCE] = "2(W-1)/W", [COLL_ALL_TO_ALL] = "(W-1)/W",
    };
    const double at4[] = {[0] = 1.0, [1] = 0.75, [2] = 1.5}; /* "1", "(W-1)/W", "2(W-1)/W" */
    for (int c = 0; c < COLL_COUNT; c++) {
        enum coll k = (enum coll)c;
        const struct coll_info *ci = coll_info(k);
        assert_non_null(ci);
        assert_string_equal(ci->name, coll_name(k));
        assert_string_equal(ci->title, coll_title(k));
        assert_true(ci->rooted == coll_is_rooted(k));
        assert_true(ci->reduces == coll_reduces(k));
        assert_string_equal(ci->busbw_text, text[c]);
        int which = strcmp(text[c], "1") == 0 ? 0 : strcmp(text[c], "(W-1)/W") == 0 ? 1 : 2;
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
    bool have[COLL_COUNT][ALGO_COUNT] = {
        [COLL_BROADCAST] = {true, true, true},
        [COLL_SCATTER] = {false, false, true},
        [COLL_GATHER] = {false, false, true},
        [COLL_REDUCE] = {true, true, true},
        [COLL_ALL_GATHER] = {true, false, true},
        [COLL_REDUCE_SCATTER] = {true, false, true},
        [COLL_ALL_REDUCE] = {true, true, true, true},
        [COLL_ALL_TO_ALL] = {false, false, true},
    };
    for (int c = 0; c < COLL_COUNT; c++) {
        for (int a = 0; a < ALGO_COUNT; a++)
            assert_int_equal(algo_supported((enum coll)c, (enum algo)a), have[c][a]);
        assert_int_equal(coll_default_algo((enum coll)c),
                         have[c][ALGO_RING] ? ALGO_RING : ALGO_DIRECT);
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
