/* test_scene.c - scene descriptions: parsing, checking and formatting, the text a lesson
 * uses to set any screen ("collective=all_reduce algo=ring ranks=4 step=end"). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "core/plan.h"
#include "scene/scene.h"

/* Field by field: struct padding is not part of a scene. */
static void assert_scene_equal(const struct scene *a, const struct scene *b)
{
    assert_int_equal(a->screen, b->screen);
    assert_int_equal(a->coll, b->coll);
    assert_int_equal(a->algo, b->algo);
    assert_int_equal(a->op, b->op);
    assert_int_equal(a->nranks, b->nranks);
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->root, b->root);
    assert_int_equal(a->init, b->init);
    assert_int_equal(a->seed, b->seed);
    assert_int_equal(a->step, b->step);
}

static void test_default_format(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    char buf[256];
    scene_format(&s, buf, sizeof buf);
    assert_string_equal(buf,
                        "screen=collectives collective=all_reduce algo=ring op=sum ranks=4 "
                        "count=auto root=0 init=lecture seed=1 step=0 size=67108864");
    assert_int_equal(scene_count(&s), 4); /* the lecture's [0,1,2,3] + rank */
}

/* The fields a lesson slide sets beyond the picture: measurement size, autoplay, highlight. */
static void test_size_autoplay_highlight(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    char err[200], buf[400];
    assert_int_equal(scene_parse(&s, "size=1M autoplay=0.5 highlight=rank:2", err, sizeof err),
                     CV_OK);
    assert_int_equal(s.meas_bytes, 1048576);
    assert_true(s.autoplay == 0.5);
    assert_int_equal(s.hl, HL_RANK);
    assert_int_equal(s.hl_index, 2);
    scene_format(&s, buf, sizeof buf);
    assert_non_null(strstr(buf, " size=1048576 autoplay=0.5 highlight=rank:2"));
    struct scene t;
    scene_default(&t);
    assert_int_equal(scene_parse(&t, buf, err, sizeof err), CV_OK);
    char buf2[400];
    scene_format(&t, buf2, sizeof buf2);
    assert_string_equal(buf, buf2);
    assert_int_equal(t.meas_bytes, s.meas_bytes);
    assert_int_equal(t.hl, s.hl);
    assert_int_equal(scene_parse(&s, "autoplay=on highlight=chunk:3", err, sizeof err), CV_OK);
    assert_true(s.autoplay == 1.0);
    assert_int_equal(s.hl, HL_CHUNK);
    assert_int_equal(scene_parse(&s, "autoplay=off highlight=none", err, sizeof err), CV_OK);
    assert_true(s.autoplay == 0.0);
    assert_int_equal(s.hl, HL_NONE);
    /* bad values name themselves; the scene is unchanged */
    assert_int_equal(scene_parse(&s, "size=2", err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "scene: bad size '2' (4K..16G)");
    assert_int_equal(scene_parse(&s, "size=17G", err, sizeof err), CV_EINVAL);
    assert_int_equal(scene_parse(&s, "autoplay=-1", err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "'-1'"));
    assert_int_equal(scene_parse(&s, "highlight=rank:x", err, sizeof err), CV_EINVAL);
    assert_int_equal(scene_parse(&s, "highlight=lane:1", err, sizeof err), CV_EINVAL);
    assert_int_equal(scene_parse(&s, "ranks=4 highlight=rank:4", err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "highlight rank:4 out of range (0..3)");
    assert_int_equal(s.meas_bytes, 1048576); /* the refused words changed nothing */
    assert_int_equal(scene_parse(&s, "screen=hierarchy", err, sizeof err), CV_OK);
    assert_int_equal(s.screen, SCREEN_HIERARCHY);
}

/* The slice view's fields: view, slices, channels; written back only when not the
 * defaults, so every older scene string stays as it was. */
static void test_slice_view_fields(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    assert_false(s.slice_view);
    assert_int_equal(s.slices, SCENE_DEFAULT_SLICES);
    assert_int_equal(s.channels, 1);
    char buf[512], err[200];
    scene_format(&s, buf, sizeof buf);
    assert_null(strstr(buf, "view="));
    assert_int_equal(scene_parse(&s, "view=slice slices=3 channels=2", err, sizeof err), CV_OK);
    assert_true(s.slice_view);
    assert_int_equal(s.slices, 3);
    assert_int_equal(s.channels, 2);
    scene_format(&s, buf, sizeof buf);
    assert_non_null(strstr(buf, " view=slice slices=3 channels=2"));
    struct scene t;
    scene_default(&t);
    assert_int_equal(scene_parse(&t, buf, err, sizeof err), CV_OK);
    assert_true(t.slice_view);
    assert_int_equal(t.slices, 3);
    assert_int_equal(t.channels, 2);
    assert_int_equal(scene_parse(&s, "view=tiles", err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "scene: bad view 'tiles' (chunk, slice)");
    assert_int_equal(scene_parse(&s, "slices=17", err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "scene: bad slices '17' (1..16)");
    assert_int_equal(scene_parse(&s, "channels=0", err, sizeof err), CV_EINVAL);
    assert_string_equal(err, "scene: bad channels '0' (1..4)");
    assert_int_equal(s.slices, 3); /* unchanged by the errors */
}

static void test_parse_lecture_example(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    s.coll = COLL_BROADCAST;
    char err[200];
    assert_int_equal(
        scene_parse(&s, "collective=all_reduce algo=ring ranks=4 step=end", err, sizeof err),
        CV_OK);
    assert_int_equal(s.coll, COLL_ALL_REDUCE);
    assert_int_equal(s.algo, ALGO_RING);
    assert_int_equal(s.nranks, 4);
    assert_int_equal(s.step, SCENE_STEP_END);
    assert_int_equal(scene_parse(&s, "  ranks=8\tstep=3 count=5 op=max init=random seed=42 ",
                                 err, sizeof err),
                     CV_OK);
    assert_int_equal(s.nranks, 8);
    assert_int_equal(s.step, 3);
    assert_int_equal(s.count, 5);
    assert_int_equal(s.op, OP_MAX);
    assert_int_equal(s.init, INIT_RANDOM);
    assert_int_equal(s.seed, 42);
    assert_int_equal(scene_parse(&s, "count=auto", err, sizeof err), CV_OK);
    assert_int_equal(s.count, 0);
    assert_int_equal(scene_count(&s), 8);
}

static void test_default_algorithm_follows_collective(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s); /* ring */
    char err[200];
    assert_int_equal(scene_parse(&s, "collective=all_to_all", err, sizeof err), CV_OK);
    assert_int_equal(s.algo, ALGO_DIRECT);
    /* Asked for explicitly, an algorithm the collective lacks is an error, and the scene is
     * left as it was. */
    assert_int_equal(scene_parse(&s, "collective=all_reduce algo=tree", err, sizeof err),
                     CV_OK);
    struct scene before = s;
    assert_int_equal(scene_parse(&s, "collective=scatter algo=ring", err, sizeof err),
                     CV_EUNSUPPORTED);
    assert_non_null(strstr(err, "scatter"));
    assert_scene_equal(&s, &before);
}

static void test_errors(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    struct scene before = s;
    char err[200];
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"foo=1", "unknown key 'foo'"},
        {"ranks=17", "bad ranks '17'"},
        {"ranks=0", "bad ranks '0'"},
        {"ranks=4x", "bad ranks '4x'"},
        {"collective=allfoo", "unknown collective 'allfoo'"},
        {"step=-2", "bad step '-2'"},
        {"count=65", "bad count '65'"},
        {"ranks", "expected key=value"},
        {"=3", "expected key=value"},
        {"ranks=", "expected key=value"},
        {"collective=broadcast ranks=2 root=3", "root 3 out of range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_not_equal(scene_parse(&s, bad[i].text, err, sizeof err), CV_OK);
        if (!strstr(err, bad[i].needle)) {
            print_error("'%s': message '%s' lacks '%s'\n", bad[i].text, err, bad[i].needle);
            fail();
        }
        assert_scene_equal(&s, &before);
    }
}

static void test_round_trip(void **state)
{
    (void)state;
    char err[200], buf[256];
    for (int c = 0; c < COLL_COUNT; c++)
        for (int a = 0; a < ALGO_COUNT; a++) {
            if (!algo_supported((enum coll)c, (enum algo)a)) continue;
            struct scene s;
            scene_default(&s);
            s.coll = (enum coll)c;
            s.algo = (enum algo)a;
            s.op = (enum redop)((c + a) % OP_COUNT);
            s.nranks = 1 + (c * 3 + a) % CV_MAX_RANKS;
            s.root = s.nranks - 1;
            s.count = (size_t)(c % 3);
            s.init = (enum init_kind)(a % 4);
            s.seed = 1000u + (unsigned)c;
            s.step = c % 2 ? SCENE_STEP_END : c;
            assert_int_equal(scene_check(&s, err, sizeof err), CV_OK);
            scene_format(&s, buf, sizeof buf);
            struct scene t;
            scene_default(&t);
            assert_int_equal(scene_parse(&t, buf, err, sizeof err), CV_OK);
            assert_scene_equal(&s, &t);
        }
}

/* counts= makes the scene an all-to-all-v: it sets the ranks, the plan is the uneven one,
 * it writes back, and it is dropped when the scene moves to another collective. */
static void test_counts(void **state)
{
    (void)state;
    struct scene s;
    char err[200], buf[512];
    scene_default(&s);
    assert_int_equal(
        scene_parse(&s, "collective=all_to_all counts=1,2,0;0,0,0;3,1,1", err, sizeof err),
        CV_OK);
    assert_int_equal(s.nranks, 3);
    assert_int_equal(s.ncounts, 3);
    assert_int_equal(s.counts[6], 3);
    /* Rank 2 sends 5, the most: 3 ranks x 2 elements hold it. */
    assert_int_equal(scene_count(&s), 2);
    struct plan p;
    assert_int_equal(scene_plan_build(&s, &p, scene_count(&s), 0, err, sizeof err), CV_OK);
    assert_non_null(p.vcounts);
    assert_int_equal(p.count, scene_count(&s));
    assert_int_equal(plan_recv_count(&p, 1), 3);
    plan_free(&p);
    scene_format(&s, buf, sizeof buf);
    assert_non_null(strstr(buf, " counts=1,2,0;0,0,0;3,1,1"));
    struct scene t;
    scene_default(&t);
    assert_int_equal(scene_parse(&t, buf, err, sizeof err), CV_OK);
    assert_memory_equal(&s, &t, sizeof s);
    /* step=2 keeps them; another collective drops them; so does counts=none. */
    assert_int_equal(scene_parse(&s, "step=2", err, sizeof err), CV_OK);
    assert_int_equal(s.ncounts, 3);
    t = s;
    assert_int_equal(scene_parse(&t, "counts=none", err, sizeof err), CV_OK);
    assert_int_equal(t.ncounts, 0);
    assert_int_equal(scene_parse(&s, "collective=all_reduce", err, sizeof err), CV_OK);
    assert_int_equal(s.ncounts, 0);
    /* Errors name the bad value; the scene is unchanged. */
    scene_default(&s);
    t = s;
    assert_int_equal(scene_parse(&s, "collective=all_to_all counts=1,x;1,1", err, sizeof err),
                     CV_EINVAL);
    assert_string_equal(err, "scene: counts: row 0 value 'x' is not a whole number 0..1048576");
    assert_memory_equal(&s, &t, sizeof s);
    assert_int_equal(scene_parse(&s, "collective=all_reduce counts=1,1;1,1", err, sizeof err),
                     CV_EINVAL);
    assert_string_equal(err, "counts: per-pair counts are all_to_all's, not all_reduce");
    assert_int_equal(
        scene_parse(&s, "collective=all_to_all counts=1,1;1,1 ranks=3", err, sizeof err),
        CV_EINVAL);
    assert_string_equal(err, "ranks 3: the counts matrix has 2 rows");
    assert_int_equal(scene_parse(&s, "collective=all_to_all counts=65,0;0,0", err, sizeof err),
                     CV_EINVAL);
    assert_string_equal(err, "counts: 65 is over 64 (display scale)");
}

/* ring=: the ring plans' order (the topology screen's Enter sets it) round-trips, a bad
 * order or one of another size than the scene is refused, ring=none drops it. */
static void test_ring_order(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    char err[200], buf[512];
    assert_int_equal(scene_parse(&s, "ranks=4 ring=0,3,1,2", err, sizeof err), CV_OK);
    assert_int_equal(s.ring_n, 4);
    assert_int_equal(s.ring[1], 3);
    scene_format(&s, buf, sizeof buf);
    assert_non_null(strstr(buf, " ring=0,3,1,2"));
    struct scene t;
    scene_default(&t);
    assert_int_equal(scene_parse(&t, buf, err, sizeof err), CV_OK);
    assert_int_equal(t.ring_n, 4);
    assert_int_equal(t.ring[3], 2);
    assert_int_equal(scene_parse(&s, "ring=0,0,1,2", err, sizeof err), CV_EINVAL);
    assert_int_equal(scene_parse(&s, "ranks=8", err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "the ring order has 4 ranks, the scene 8"));
    assert_int_equal(scene_parse(&s, "ranks=8 ring=none", err, sizeof err), CV_OK);
    assert_int_equal(s.ring_n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_format),
        cmocka_unit_test(test_parse_lecture_example),
        cmocka_unit_test(test_slice_view_fields),
        cmocka_unit_test(test_size_autoplay_highlight),
        cmocka_unit_test(test_default_algorithm_follows_collective),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_ring_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
