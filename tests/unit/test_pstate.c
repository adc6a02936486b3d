/* test_pstate.c - the presenter's place in a talk: the slide found again after a reload
 * (same lesson and title, the nearest of several, else the nearest of its lesson), the title
 * search (case ignored, wrapping round), the saved position's round trip and its refusal of
 * a file that is not one, and the folders it goes to. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "present/position.h"

static const struct position_key deck[] = {
    {"intro", "Welcome"},       {"intro", "Why rings"}, {"ring", "All-reduce"},
    {"ring", "Reduce-scatter"}, {"ring", "All-reduce"}, {"tree", "Trees"},
};
#define N (sizeof deck / sizeof deck[0])

static void test_find(void **state)
{
    (void)state;
    /* Exactly one match: wherever the slide was before. */
    assert_int_equal(position_find(deck, N, "ring", "Reduce-scatter", 0), 3);
    assert_int_equal(position_find(deck, N, "tree", "Trees", 1), 5);
    /* Two slides share a title: the one nearer the old position. */
    assert_int_equal(position_find(deck, N, "ring", "All-reduce", 1), 2);
    assert_int_equal(position_find(deck, N, "ring", "All-reduce", 5), 4);
    /* The slide is gone: the nearest slide of its lesson; no lesson either: clamped. */
    assert_int_equal(position_find(deck, N, "intro", "Removed", 4), 1);
    assert_int_equal(position_find(deck, N, "gone", "Removed", 3), 3);
    assert_int_equal(position_find(deck, N, "gone", "Removed", 40), N - 1);
}

static void test_search(void **state)
{
    (void)state;
    size_t at = 99;
    assert_true(position_search(deck, N, 0, "all-REDUCE", &at));
    assert_int_equal(at, 2);
    assert_true(position_search(deck, N, 2, "all-reduce", &at)); /* the next one after 2 */
    assert_int_equal(at, 4);
    assert_true(position_search(deck, N, 4, "all-reduce", &at)); /* round to the first */
    assert_int_equal(at, 2);
    assert_true(position_search(deck, N, 5, "welcome", &at));
    assert_int_equal(at, 0);
    assert_false(position_search(deck, N, 0, "pipeline", &at));
}

static void test_save_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_pstate_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[256], err[300];
    snprintf(file, sizeof file, "%s/a/b/present.pos", dir); /* folders made on save */
    struct position in = {.lesson = "ring",
                          .title = "All-reduce: the ring, step by step",
                          .slide = 27,
                          .page = 1,
                          .step = 3,
                          .elapsed_s = 754,
                          .zoom = 2};
    mode_t old_mask = umask(022); /* a umask that would leave the file readable by others */
    assert_int_equal(position_save(file, &in, err, sizeof err), CV_OK);
    umask(old_mask);
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* sys/files.c's save: private to its owner */
    struct position out;
    assert_int_equal(position_load(file, &out, err, sizeof err), CV_OK);
    assert_string_equal(out.lesson, "ring");
    assert_string_equal(out.title, "All-reduce: the ring, step by step");
    assert_int_equal(out.slide, 27);
    assert_int_equal(out.page, 1);
    assert_int_equal(out.step, 3);
    assert_int_equal(out.elapsed_s, 754);
    assert_int_equal(out.zoom, 2); /* the presenter's + / - zoom is kept with the place */
    /* An older file without a zoom line, and a zoom out of range: zoom 0. */
    FILE *g = fopen(file, "w");
    fputs("collviz-present 1\nslide 3\n", g);
    fclose(g);
    assert_int_equal(position_load(file, &out, err, sizeof err), CV_OK);
    assert_int_equal(out.slide, 3);
    assert_int_equal(out.zoom, 0);
    g = fopen(file, "w");
    fputs("collviz-present 1\nzoom 1000\n", g);
    fclose(g);
    assert_int_equal(position_load(file, &out, err, sizeof err), CV_OK);
    assert_int_equal(out.zoom, 0);
    /* Not a position file: refused, naming it. */
    FILE *f = fopen(file, "w");
    fputs("slide 3\n", f);
    fclose(f);
    assert_int_equal(position_load(file, &out, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "not a presenter position"));
    unlink(file);
    /* a FIFO in its place: refused at once (open does not wait for a writer) */
    assert_int_equal(mkfifo(file, 0600), 0);
    assert_int_equal(position_load(file, &out, err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "not a regular file"));
    unlink(file);
    assert_int_equal(position_load(file, &out, err, sizeof err), CV_EUNAVAIL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_folders(void **state)
{
    (void)state;
    char buf[4096], err[300];
    setenv("XDG_STATE_HOME", "/st", 1);
    assert_int_equal(position_path("/", "default", buf, sizeof buf, err, sizeof err), CV_OK);
    assert_int_equal(strncmp(buf, "/st/collviz/present-", 20), 0);
    assert_string_equal(buf + strlen(buf) - 4, ".pos");
    char other[4096];
    assert_int_equal(position_path("/tmp", "default", other, sizeof other, err, sizeof err),
                     CV_OK);
    assert_string_not_equal(buf, other); /* one file per deck */
    assert_int_equal(position_path("/", "room2", other, sizeof other, err, sizeof err), CV_OK);
    assert_string_not_equal(buf, other); /* and per --name */
    assert_int_equal(
        position_path("/no/such/deck", "default", buf, sizeof buf, err, sizeof err), CV_EINVAL);
    unsetenv("COLLVIZ_EXPORT_DIR");
    setenv("XDG_DATA_HOME", "/data", 1);
    assert_int_equal(position_export_dir(NULL, buf, sizeof buf, err, sizeof err), CV_OK);
    assert_string_equal(buf, "/data/collviz/exports");
    setenv("COLLVIZ_EXPORT_DIR", "/env", 1);
    assert_int_equal(position_export_dir(NULL, buf, sizeof buf, err, sizeof err), CV_OK);
    assert_string_equal(buf, "/env");
    assert_int_equal(position_export_dir("/opt", buf, sizeof buf, err, sizeof err), CV_OK);
    assert_string_equal(buf, "/opt");
    unsetenv("XDG_DATA_HOME");
    unsetenv("COLLVIZ_EXPORT_DIR");
    setenv("HOME", "/home/t", 1);
    assert_int_equal(position_export_dir(NULL, buf, sizeof buf, err, sizeof err), CV_OK);
    assert_string_equal(buf, "/home/t/.local/share/collviz/exports");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_search),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_folders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
