/* test_vec.c - core/vec.h: an array grows by doubling from VEC_FIRST and keeps what it
 * held; VEC_PUSH counts and places each element; a size past SIZE_MAX ends the program
 * with a message instead of wrapping to a small allocation; the byte buffer is a C string
 * after every append, printf and putc, and take leaves it empty. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/vec.h"

static void test_grow_doubles_and_keeps(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    VEC_GROW(a, cap, 1);
    assert_non_null(a);
    assert_int_equal(cap, VEC_FIRST);
    for (int i = 0; i < 8; i++)
        a[i] = i * 3;
    VEC_GROW(a, cap, 8); /* enough already: unchanged */
    assert_int_equal(cap, 8);
    VEC_GROW(a, cap, 9);
    assert_int_equal(cap, 16);
    VEC_GROW(a, cap, 100); /* 16 -> 32 -> 64 -> 128 */
    assert_int_equal(cap, 128);
    for (int i = 0; i < 8; i++)
        assert_int_equal(a[i], i * 3);
    free(a);
}

static void test_push_counts_each(void **state)
{
    (void)state;
    struct pair {
        int k;
        double v;
    } *p = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++)
        *VEC_PUSH(p, n, cap) = (struct pair){i, i / 4.0};
    assert_int_equal(n, 1000);
    assert_int_equal(cap, 1024);
    long sum = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].k, (int)i);
        assert_true(p[i].v == (double)i / 4.0);
        sum += p[i].k;
    }
    assert_int_equal(sum, 999L * 1000 / 2);
    free(p);
}

/* Run fn in a child: it must die of SIGABRT (util_fatal) having said `want` on stderr. */
static void expect_fatal(void (*fn)(void), const char *want)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        fn();
        _exit(0); /* not reached when it is fatal */
    }
    close(fds[1]);
    char msg[400] = "";
    size_t got = 0;
    ssize_t k;
    while (got < sizeof msg - 1 && (k = read(fds[0], msg + got, sizeof msg - 1 - got)) > 0)
        got += (size_t)k;
    msg[got] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    if (!strstr(msg, want)) fail_msg("want '%s' in: %s", want, msg);
}

static void grow_count_past_size_max(void)
{
    char *a = NULL;
    size_t cap = 0;
    VEC_GROW(a, cap, SIZE_MAX); /* 8 doubled never reaches it without wrapping */
}

static void grow_bytes_past_size_max(void)
{
    double *a = NULL;
    size_t cap = 0;
    VEC_GROW(a, cap, SIZE_MAX / 4); /* the count fits, its bytes do not */
}

static void test_overflow_is_fatal_not_wrapped(void **state)
{
    (void)state;
    expect_fatal(grow_count_past_size_max, "collviz: fatal: a list grew past");
    expect_fatal(grow_bytes_past_size_max, "is too large");
}

static void test_buf_is_a_string(void **state)
{
    (void)state;
    struct vec_buf b = {0};
    vec_buf_puts(&b, "");
    assert_non_null(b.s);
    assert_string_equal(b.s, "");
    vec_buf_puts(&b, "ring");
    vec_buf_putc(&b, ' ');
    vec_buf_printf(&b, "%d ranks, %.1f GB/s", 8, 12.25);
    assert_string_equal(b.s, "ring 8 ranks, 12.2 GB/s");
    assert_int_equal(b.len, strlen("ring 8 ranks, 12.2 GB/s"));
    vec_buf_append(&b, "xyz", 2); /* only n bytes */
    assert_string_equal(b.s + b.len - 2, "xy");
    /* many appends: the string stays whole across every doubling */
    struct vec_buf big = {0};
    for (int i = 0; i < 5000; i++)
        vec_buf_printf(&big, "%04d,", i);
    assert_int_equal(big.len, 5000 * 5);
    assert_int_equal(big.s[big.len], '\0');
    assert_memory_equal(big.s + 4999 * 5, "4999,", 5);
    assert_memory_equal(big.s + 1234 * 5, "1234,", 5);
    assert_true(big.cap > big.len);
    char *s = vec_buf_take(&b);
    assert_string_equal(s, "ring 8 ranks, 12.2 GB/sxy");
    assert_null(b.s);
    assert_int_equal(b.len, 0);
    free(s);
    s = vec_buf_take(&b); /* empty: "" */
    assert_string_equal(s, "");
    free(s);
    vec_buf_free(&big);
    assert_null(big.s);
    assert_int_equal(big.cap, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grow_doubles_and_keeps),
        cmocka_unit_test(test_push_counts_each),
        cmocka_unit_test(test_overflow_is_fatal_not_wrapped),
        cmocka_unit_test(test_buf_is_a_string),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
