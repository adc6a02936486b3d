/* test_lesson_progress.c - the progress file: default path from XDG_STATE_HOME / HOME, a
 * round trip through the file (exact text), folders created, atomic replace (no temp file
 * left), and a corrupt file renamed aside with one line of warning instead of a failure. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "lesson/progress.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_progress_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_default_path(void **state)
{
    (void)state;
    char p[512], err[120];
    setenv("XDG_STATE_HOME", "/x/state", 1);
    assert_int_equal(progress_default_path(p, sizeof p, err, sizeof err), CV_OK);
    assert_string_equal(p, "/x/state/collviz/progress");
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "/home/student", 1);
    assert_int_equal(progress_default_path(p, sizeof p, err, sizeof err), CV_OK);
    assert_string_equal(p, "/home/student/.local/state/collviz/progress");
    setenv("XDG_STATE_HOME", "relative/not/allowed", 1); /* the spec: absolute only */
    assert_int_equal(progress_default_path(p, sizeof p, err, sizeof err), CV_OK);
    assert_string_equal(p, "/home/student/.local/state/collviz/progress");
    unsetenv("XDG_STATE_HOME");
    unsetenv("HOME");
    assert_int_equal(progress_default_path(p, sizeof p, err, sizeof err), CV_EINVAL);
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[256], warn[400], err[200];
    snprintf(path, sizeof path, "%s/state/collviz/progress", dir); /* folders do not exist */
    struct progress p;
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    assert_string_equal(warn, "");
    assert_int_equal(p.nlessons, 0);
    progress_visit(&p, "allreduce", 0);
    progress_visit(&p, "allreduce", 1);
    progress_visit(&p, "allreduce", 3);
    progress_visit(&p, "parallelism", 0);
    progress_visit(&p, "allreduce", 2);                         /* current: the last visited */
    assert_string_equal(progress_last_lesson(&p), "allreduce"); /* and it goes last */
    progress_attempt(&p, "allreduce", "effective-bandwidth", false);
    progress_attempt(&p, "allreduce", "effective-bandwidth", true);
    progress_attempt(&p, "allreduce", "effective-bandwidth", false); /* solved stays */
    progress_attempt(&p, "allreduce", "rs-then-ag", false);
    assert_int_equal(progress_save(&p, err, sizeof err), CV_OK);
    progress_free(&p);
    assert_string_equal(slurp(path),
                        "collviz-progress 1\n"
                        "lesson parallelism current 0 seen 0\n"
                        "lesson allreduce current 2 seen 0,1,2,3\n"
                        "exercise effective-bandwidth lesson allreduce attempts 3 "
                        "solved 1\n"
                        "exercise rs-then-ag lesson allreduce attempts 1 solved 0\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char sub[256];
    snprintf(sub, sizeof sub, "%s/state/collviz", dir);
    assert_int_equal(stat(sub, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);

    struct progress q;
    assert_int_equal(progress_load(&q, path, warn, sizeof warn), CV_OK);
    assert_string_equal(warn, "");
    struct progress_lesson *pl = progress_lesson(&q, "allreduce", false);
    assert_non_null(pl);
    assert_int_equal(pl->current, 2);
    assert_int_equal(progress_seen_count(pl), 4);
    assert_true(progress_seen(pl, 3));
    assert_false(progress_seen(pl, 4));
    assert_null(progress_lesson(&q, "nothing", false));
    assert_true(progress_solved(&q, "effective-bandwidth"));
    assert_false(progress_solved(&q, "rs-then-ag"));
    assert_int_equal(progress_exercise(&q, "effective-bandwidth")->attempts, 3);
    assert_int_equal(progress_solved_count(&q, "allreduce"), 1);
    assert_int_equal(progress_solved_count(&q, "parallelism"), 0);
    /* saving again replaces the file; no temporary file is left beside it */
    progress_visit(&q, "parallelism", 5);
    assert_int_equal(progress_save(&q, err, sizeof err), CV_OK);
    progress_free(&q);
    DIR *d = opendir(sub);
    assert_non_null(d);
    int files = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.') {
            files++;
            assert_string_equal(de->d_name, "progress");
        }
    closedir(d);
    assert_int_equal(files, 1);
    assert_non_null(strstr(slurp(path), "lesson parallelism current 5 seen 0,5\n"));
}

static void corrupt_case(const char *content, const char *why)
{
    char path[256], warn[600];
    snprintf(path, sizeof path, "%s/progress", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
    struct progress p;
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    assert_int_equal(p.nlessons, 0);
    assert_int_equal(p.nex, 0);
    assert_non_null(strstr(warn, why));
    assert_non_null(strstr(warn, "moved to"));
    assert_null(strchr(warn, '\n')); /* one line */
    /* the file is gone from its place and kept aside as progress.corrupt-<time> */
    assert_int_not_equal(access(path, F_OK), 0);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int aside = 0;
    struct dirent *de;
    char aside_path[512] = "";
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, "progress.corrupt-", 17) == 0) {
            aside++;
            snprintf(aside_path, sizeof aside_path, "%s/%s", dir, de->d_name);
        }
    closedir(d);
    assert_int_equal(aside, 1);
    assert_string_equal(slurp(aside_path), content);
    unlink(aside_path);
    /* the student carries on: saving works */
    char err[200];
    progress_visit(&p, "allreduce", 1);
    assert_int_equal(progress_save(&p, err, sizeof err), CV_OK);
    progress_free(&p);
    unlink(path);
}

static void test_corrupt_set_aside(void **state)
{
    (void)state;
    corrupt_case("garbage\n", "line 1: first line is not 'collviz-progress 1'");
    corrupt_case("collviz-progress 1\nlesson allreduce current x seen 0\n",
                 "line 2: bad current slide 'x'");
    corrupt_case("collviz-progress 1\nlesson a current 0 seen 0,999\n",
                 "line 2: bad slide number '999'");
    corrupt_case("collviz-progress 1\nexercise e lesson a attempts 1 solved 2\n",
                 "line 2: bad attempts or solved");
    corrupt_case("collviz-progress 1\nlesson a current 0 seen -\nlesson a current 1 seen -\n",
                 "line 3: bad or repeated lesson id");
    corrupt_case("collviz-progress 1\nsomething else\n", "line 2: not a progress record");
    corrupt_case("", "line 1: empty file");
}

/* The files named progress.corrupt-* in dir: their count, and each one's text in text[]. */
static int backups(char text[][64], int cap)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, "progress.corrupt-", 17) == 0) {
            char p[512];
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            if (n < cap) snprintf(text[n], 64, "%s", slurp(p));
            n++;
        }
    closedir(d);
    return n;
}

static void write_file(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    fclose(f);
}

/* Issue 29: two corrupt files set aside in one second were both renamed to
 * progress.corrupt-<time>, the second over the first. Every backup is kept. */
static void test_backups_kept(void **state)
{
    (void)state;
    char path[256], warn[600], text[8][64];
    snprintf(path, sizeof path, "%s/progress", dir);
    const char *content[] = {"first\n", "second\n", "third\n"};
    for (int i = 0; i < 3; i++) {
        write_file(path, content[i]);
        struct progress p;
        assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
        assert_non_null(strstr(warn, "moved to"));
        progress_free(&p);
    }
    int n = backups(text, 8);
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) {
        bool found = false;
        for (int k = 0; k < n; k++)
            found |= strcmp(text[k], content[i]) == 0;
        if (!found) fail_msg("the backup of '%s' was overwritten", content[i]);
    }
}

/* A file written by a newer collviz (a format version above 1) is not corrupt: it is
 * refused with a line that says so and left exactly where and as it is. */
static void test_newer_version_refused(void **state)
{
    (void)state;
    char path[256], warn[600], text[8][64];
    snprintf(path, sizeof path, "%s/progress", dir);
    const char *newer = "collviz-progress 4\nlesson a current 0 seen 0 stars 3\n";
    write_file(path, newer);
    struct progress p;
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_EINVAL);
    assert_non_null(strstr(warn, "version 4"));
    assert_non_null(strstr(warn, "reads version 3"));
    assert_null(strchr(warn, '\n'));
    assert_string_equal(slurp(path), newer);
    assert_int_equal(backups(text, 8), 0);
    progress_free(&p);
    /* a version that is no number is a corrupt file, as before */
    write_file(path, "collviz-progress x\n");
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    assert_non_null(strstr(warn, "moved to"));
    progress_free(&p);
}

/* A file whose lines end in CR LF (copied through an editor or another system) is read. */
static void test_crlf_read(void **state)
{
    (void)state;
    char path[256], warn[600] = "x";
    snprintf(path, sizeof path, "%s/progress", dir);
    write_file(path, "collviz-progress 1\r\nlesson allreduce current 3 seen 0,1,3\r\n"
                     "exercise e1 lesson allreduce attempts 2 solved 1\r\n");
    struct progress p;
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    assert_string_equal(warn, "");
    assert_int_equal(p.nlessons, 1);
    assert_int_equal(p.lessons[0].current, 3);
    assert_int_equal(progress_seen_count(&p.lessons[0]), 3);
    assert_true(progress_solved(&p, "e1"));
    progress_free(&p);
}

/* A wrong answer is kept (the last one, control bytes as '?', in hex on disk: version 2)
 * and read back; forgetting one lesson keeps the others; a bad mistake line is corrupt. */
static void test_mistakes_and_forget(void **state)
{
    (void)state;
    char path[256], err[200], warn[600];
    snprintf(path, sizeof path, "%s/state/collviz/progress", dir);
    struct progress p;
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    progress_visit(&p, "allreduce", 1);
    progress_visit(&p, "ring", 0);
    progress_attempt(&p, "allreduce", "ar-end", false);
    progress_mistake(&p, "allreduce", "ar-end", "60 64\x1b", 3);
    progress_attempt(&p, "ring", "ring-steps", false);
    progress_mistake(&p, "ring", "ring-steps", "7", 0);
    assert_int_equal(progress_save(&p, err, sizeof err), CV_OK);
    progress_free(&p);
    /* "60 64?" is 36 30 20 36 34 3f */
    assert_string_equal(slurp(path), "collviz-progress 2\n"
                                     "lesson allreduce current 1 seen 1\n"
                                     "lesson ring current 0 seen 0\n"
                                     "exercise ar-end lesson allreduce attempts 1 solved 0\n"
                                     "mistake ar-end seed 3 answer 36302036343f\n"
                                     "exercise ring-steps lesson ring attempts 1 solved 0\n"
                                     "mistake ring-steps seed 0 answer 37\n");
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    assert_string_equal(progress_last_try(progress_exercise(&p, "ar-end"))->answer, "60 64?");
    assert_true(progress_last_try(progress_exercise(&p, "ar-end"))->seed == 3);
    size_t nl, ne;
    progress_forget(&p, "allreduce", &nl, &ne);
    assert_int_equal(nl, 1);
    assert_int_equal(ne, 1);
    assert_null(progress_exercise(&p, "ar-end"));
    assert_string_equal(progress_last_try(progress_exercise(&p, "ring-steps"))->answer, "7");
    progress_forget(&p, NULL, &nl, &ne);
    assert_int_equal(nl + ne, 2);
    assert_int_equal(p.nlessons + p.nex, 0);
    progress_free(&p);
    corrupt_case("collviz-progress 2\nmistake e seed 0 answer 37\n",
                 "line 2: a mistake of no exercise line, or one too many");
    corrupt_case("collviz-progress 2\nexercise e lesson a attempts 1 solved 0\n"
                 "mistake e seed 0 answer 1b\n",
                 "line 3: a control byte in a mistake's answer");
    corrupt_case("collviz-progress 2\nexercise e lesson a attempts 1 solved 0\n"
                 "mistake e seed 0 answer 3\n",
                 "line 3: bad mistake seed or answer");
}

/* Every distinct wrong try is kept (issue 31: review kept only the last), oldest first, at
 * its own numbers: the same answer at the same numbers again is one try, moved last; the
 * ninth distinct one drops the oldest. On disk one mistake line each: version 3 where an
 * exercise has several (an older collviz refuses it and leaves it alone), 2 with one. */
static void test_every_try_kept(void **state)
{
    (void)state;
    char path[256], err[200], warn[600];
    snprintf(path, sizeof path, "%s/state/collviz/progress", dir);
    unlink(path);
    struct progress p;
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    progress_attempt(&p, "ring", "ring-steps", false);
    progress_mistake(&p, "ring", "ring-steps", "7", 0);
    progress_mistake(&p, "ring", "ring-steps", "8", 5);
    progress_mistake(&p, "ring", "ring-steps", "7", 0); /* again: one try, now the latest */
    const struct progress_ex *e = progress_exercise(&p, "ring-steps");
    assert_int_equal(e->ntries, 2);
    assert_string_equal(e->tries[0].answer, "8");
    assert_true(e->tries[0].seed == 5);
    assert_string_equal(e->tries[1].answer, "7");
    progress_mistake(&p, "ring", "ring-steps", "7", 9); /* other numbers: another try */
    assert_int_equal(e->ntries, 3);
    assert_int_equal(progress_save(&p, err, sizeof err), CV_OK);
    progress_free(&p);
    assert_string_equal(slurp(path), "collviz-progress 3\n"
                                     "exercise ring-steps lesson ring attempts 1 solved 0\n"
                                     "mistake ring-steps seed 5 answer 38\n"
                                     "mistake ring-steps seed 0 answer 37\n"
                                     "mistake ring-steps seed 9 answer 37\n");
    assert_int_equal(progress_load(&p, path, warn, sizeof warn), CV_OK);
    e = progress_exercise(&p, "ring-steps");
    assert_int_equal(e->ntries, 3);
    assert_string_equal(e->tries[2].answer, "7");
    assert_true(e->tries[2].seed == 9);
    for (int i = 0; i < PROGRESS_TRIES; i++) {
        char a[16];
        snprintf(a, sizeof a, "%d", 100 + i);
        progress_mistake(&p, "ring", "ring-steps", a, 0);
    }
    e = progress_exercise(&p, "ring-steps");
    assert_int_equal(e->ntries, PROGRESS_TRIES);
    assert_string_equal(e->tries[0].answer, "100");
    assert_string_equal(progress_last_try(e)->answer, "107");
    progress_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_path),
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mistakes_and_forget, setup, teardown),
        cmocka_unit_test_setup_teardown(test_every_try_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_set_aside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backups_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crlf_read, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
