/* test_recsay.c - a record's facts in words (records/recsay.h) on small records written
 * here, for the sentence forms the real corpus (tests/records/, checked by
 * tests/cli/test_nccl_job.sh) has no example of: a tuner that switches between choices
 * at sizes, choices of several collectives, a cut choice line, repeats kept once, and
 * roles a largest rank cannot fix. Every expected sentence is written by hand from the
 * lines above it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "records/records.h"
#include "records/recsay.h"

static struct rec_log *parse(const char *text)
{
    struct rec_log *L = rec_new();
    rec_parse(L, "t.log", text, strlen(text));
    rec_finish(L);
    return L;
}

/* NCCL 2.23+'s named form and 2.19's indexes, two collectives, one line repeated. */
static const char switches[] =
    "h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..1}\n"
    "h:1:1 [0] NCCL INFO AllReduce: 65536 Bytes -> Algo TREE proto LL128 "
    "channel{Lo..Hi}={0..3}\n"
    "h:1:1 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE "
    "channel{Lo..Hi}={0..15}\n"
    "h:1:1 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE "
    "channel{Lo..Hi}={0..7}\n"
    "h:1:1 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo TREE proto LL channel{Lo..Hi}={0..1}\n"
    "h:1:1 [0] NCCL INFO AllGather: 37756928 Bytes -> Algo 1 proto 2 time 2860.208008\n"
    "h:1:1 [0] NCCL INFO AllReduce: 16777216 Bytes -> Algo NV\n";

static void test_switch_sentence(void **state)
{
    (void)state;
    struct rec_log *L = parse(switches);
    char fn[4][24], say[4][REC_SAY_LEN];
    int n = rec_say_tuning(&L->tuning, fn, say, 4);
    assert_int_equal(n, 2);
    assert_string_equal(fn[0], "AllReduce");
    /* sizes in order 4 KiB, 64 KiB, 1 MiB, 8 MiB; the repeat of 4096 counted once */
    assert_string_equal(say[0], "NCCL chose Tree/LL up to 4 KiB, Tree/LL128 at 64 KiB, then "
                                "Ring/Simple from 1 MiB (4 sizes logged)");
    assert_string_equal(fn[1], "AllGather");
    /* 37756928 bytes is 36.0078125 MiB: four digits of it */
    assert_string_equal(say[1], "NCCL chose Ring/Simple for 36.01 MiB (the one size logged)");
    assert_int_equal(L->tuning.nchoices, 5); /* the cut line ("Algo NV") is not data */
    rec_free(L);
}

/* vLLM's role lines: world 8, TP ranks up to 3 and PP ranks up to 1 seen: TP 4 x PP 2 x
 * DP 1 is the only fit. With TP ranks up to 1 only, TP 2 x PP 2 x DP 2 and TP 4 x PP 2 x
 * DP 1 both fit: no role is named. */
static void test_roles(void **state)
{
    (void)state;
    static const char fits[] =
        "INFO 04-20 16:48:04 [parallel_state.py:957] rank 0 in world size 8 is assigned as DP "
        "rank 0, PP rank 0, TP rank 0\n"
        "INFO 04-20 16:48:04 [parallel_state.py:957] rank 7 in world size 8 is assigned as DP "
        "rank 0, PP rank 1, TP rank 3\n"
        "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL "
        "0\n";
    struct rec_log *L = parse(fits);
    struct rec_jobsay J;
    rec_say_job(L, &J);
    assert_int_equal(J.world, 8);
    assert_int_equal(J.ngroups, 1);
    assert_non_null(J.groups[0].role);
    assert_string_equal(J.groups[0].role, "TP");
    assert_int_equal(J.groups[0].expected, 2);
    assert_string_equal(
        J.sentence, "world size 8 (vLLM says so); TP 4 x 2 (one node each; 1 of the 2 seen)");
    rec_free(L);
    static const char open[] =
        "INFO 04-20 16:48:04 [parallel_state.py:957] rank 3 in world size 8 is assigned as DP "
        "rank 0, PP rank 1, TP rank 1\n"
        "a:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1 localRanks 4 localRank 0 MNNVL "
        "0\n";
    L = parse(open);
    rec_say_job(L, &J);
    assert_null(J.groups[0].role);
    assert_string_equal(J.sentence,
                        "world size 8 (vLLM says so); 1 communicator of 4 ranks (on one node)");
    rec_free(L);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switch_sentence),
        cmocka_unit_test(test_roles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
