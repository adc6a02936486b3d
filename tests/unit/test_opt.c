/* test_opt.c - the option tables (src/cli/opt.c): the getopt_long array and short-option
 * string a small table makes, the --help columns it prints (the expected text written out
 * here by hand), a parse that applies values in order and stops at --help, a setter's bad
 * value (its line on stderr, status 2) and an unknown or value-less option. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/opt.h"
#include "core/util.h"

struct toy {
    bool quiet;
    const char *name;
    long size;
    int calls;
};

static int set_size(void *ctx, const struct opt *self, const char *v)
{
    struct toy *t = ctx;
    t->calls++;
    if (parse_long(v, 1, 100, &t->size) != CV_OK) {
        fprintf(stderr, "collviz: --%s %s: need 1..100\n", self->name, v);
        return 2;
    }
    return OPT_GO;
}

static const struct opt toy_table[] = {
    {"size", 's', "N", "the size, 1..100 (default 1)", set_size, 0},
    {"quiet", 0, NULL, "say nothing", opt_true, offsetof(struct toy, quiet)},
    {"name", 'n', "NAME", "a name", opt_string, offsetof(struct toy, name)},
    {"silent", 0, NULL, NULL, opt_true, offsetof(struct toy, quiet)}, /* an alias */
    {"a-rather-long-option-name", 0, "VALUE",
     "its help starts on the next line, and the words wrap before column eighty so that "
     "this sentence takes two lines",
     opt_true, offsetof(struct toy, quiet)},
    {NULL, 0, NULL, NULL, NULL, 0},
};

static const struct opt_cmd toy_cmd = {"toy",    toy_table, "usage: toy [options]\n",
                                       "End.\n", NULL,      NULL};

static void test_getopt_arrays(void **state)
{
    (void)state;
    struct option longs[8];
    char shorts[16];
    assert_int_equal(opt_getopt(toy_table, longs, 8, shorts, sizeof shorts), 6);
    assert_string_equal(shorts, ":s:n:h");
    assert_string_equal(longs[0].name, "size");
    assert_int_equal(longs[0].has_arg, required_argument);
    assert_int_equal(longs[0].val, 's');
    assert_string_equal(longs[1].name, "quiet");
    assert_int_equal(longs[1].has_arg, no_argument);
    assert_int_equal(longs[1].val, 256 + 1);
    assert_int_equal(longs[3].val, 256 + 3);
    assert_string_equal(longs[5].name, "help");
    assert_int_equal(longs[5].val, 'h');
    assert_null(longs[6].name);
    /* arrays too small: refused, not overrun */
    assert_int_equal(opt_getopt(toy_table, longs, 6, shorts, sizeof shorts), -1);
    assert_int_equal(opt_getopt(toy_table, longs, 8, shorts, 4), -1);
}

/* A table that names an option twice is refused, so --help cannot list one twice. */
static void test_repeats_refused(void **state)
{
    (void)state;
    struct option longs[8];
    char shorts[16];
    const struct opt twice[] = {
        {"size", 's', "N", "a", set_size, 0}, {"size", 0, "N", "b", set_size, 0}, OPT_END};
    const struct opt letter[] = {
        {"size", 's', "N", "a", set_size, 0}, {"small", 's', NULL, "b", opt_true, 0}, OPT_END};
    const struct opt help[] = {{"help", 0, NULL, "mine", opt_true, 0}, OPT_END};
    const struct opt h[] = {{"here", 'h', NULL, "mine", opt_true, 0}, OPT_END};
    assert_int_equal(opt_getopt(twice, longs, 8, shorts, sizeof shorts), -1);
    assert_int_equal(opt_getopt(letter, longs, 8, shorts, sizeof shorts), -1);
    assert_int_equal(opt_getopt(help, longs, 8, shorts, sizeof shorts), -1);
    assert_int_equal(opt_getopt(h, longs, 8, shorts, sizeof shorts), -1);
}

static char *help_text(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    opt_print_help(f, &toy_cmd);
    fclose(f);
    return buf;
}

static void test_help_layout(void **state)
{
    (void)state;
    char *h = help_text();
    /* the column is the widest listed entry ("-n, --name NAME", 15) + 2; the alias is not
     * listed; the long entry's help starts below it at that column, wrapped */
    const char *want =
        "usage: toy [options]\n"
        "\n"
        "Options:\n"
        "  -s, --size N     the size, 1..100 (default 1)\n"
        "  --quiet          say nothing\n"
        "  -n, --name NAME  a name\n"
        "  --a-rather-long-option-name VALUE\n"
        "                   its help starts on the next line, and the words wrap before\n"
        "                   column eighty so that this sentence takes two lines\n"
        "  -h, --help       this text\n"
        "\n"
        "End.\n";
    assert_string_equal(h, want);
    for (char *line = h; *line;) { /* no line reaches column 80 */
        size_t n = strcspn(line, "\n");
        assert_true(n < OPT_WIDTH);
        line += n + (line[n] == '\n');
    }
    free(h);
}

/* Parse argv (a NULL-ended list) with the toy table; stderr's first line into err. */
static int parse(struct toy *t, char *err, size_t n, ...)
{
    char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, n);
    argv[argc++] = "toy";
    for (char *a; (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    fflush(stderr);
    FILE *cap = tmpfile();
    assert_non_null(cap);
    int saved = dup(2);
    dup2(fileno(cap), 2);
    int rc = opt_parse(&toy_cmd, argc, argv, t);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(cap);
    if (!fgets(err, (int)n, cap)) err[0] = '\0';
    fclose(cap);
    return rc;
}

static void test_parse_values(void **state)
{
    (void)state;
    struct toy t = {0};
    char err[200];
    assert_int_equal(parse(&t, err, sizeof err, "-s", "7", "--name", "x", "--silent", "file",
                           "--size=9", NULL),
                     OPT_GO);
    assert_int_equal(t.size, 9); /* the later value wins, in order */
    assert_int_equal(t.calls, 2);
    assert_string_equal(t.name, "x");
    assert_true(t.quiet);
    assert_string_equal(err, "");
    assert_int_equal(optind, 7); /* the operand "file" permuted to the end, argv[7] */
}

static void test_setter_error(void **state)
{
    (void)state;
    struct toy t = {0};
    char err[200];
    assert_int_equal(parse(&t, err, sizeof err, "--size", "500", "--quiet", NULL), 2);
    assert_string_equal(err, "collviz: --size 500: need 1..100\n");
    assert_false(t.quiet); /* the parse stopped at the bad value */
}

static void test_bad_options(void **state)
{
    (void)state;
    struct toy t = {0};
    char err[200];
    assert_int_equal(parse(&t, err, sizeof err, "--frob", NULL), 2);
    assert_string_equal(err,
                        "collviz: toy: unknown option '--frob' (try collviz toy --help)\n");
    assert_int_equal(parse(&t, err, sizeof err, "--name", NULL), 2);
    assert_string_equal(err, "collviz: toy: option '--name' needs a value\n");
    assert_int_equal(parse(&t, err, sizeof err, "-s", NULL), 2);
    assert_string_equal(err, "collviz: toy: option '-s' needs a value\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_getopt_arrays), cmocka_unit_test(test_repeats_refused),
        cmocka_unit_test(test_help_layout),   cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_setter_error),  cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
