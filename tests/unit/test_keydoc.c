/* test_keydoc.c - docs/guide.md's key table is the one keys_doc_markdown writes from
 * UI_KEY_TABLE, byte for byte, between its two marker lines. Run from the source tree's
 * top (as make test does). With KEYDOC_WRITE=1 (make docs) it rewrites that block
 * instead of comparing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ui/kit/keydoc.h"

#define GUIDE "docs/guide.md"
#define START "<!-- keys:start (generated from src/ui/kit/keys.h by make docs) -->\n"
#define END "<!-- keys:end -->\n"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static char *generated(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    keys_doc_markdown(m);
    fclose(m);
    return buf;
}

static void test_table_rows(void **state)
{
    (void)state;
    char *t = generated();
    /* Rows read off keys.h by hand: quit, the step keys with their names, help's F1. */
    assert_non_null(strstr(t, "| keys | action | where |\n|---|---|---|\n"));
    assert_non_null(strstr(t, "| `q` | quit |"));
    assert_non_null(strstr(t, "| `→` `l` `PgDn` | next step |"));
    assert_non_null(strstr(t, "| `?` `F1` | help on/off |"));
    assert_non_null(strstr(t, "| `Enter` |")); /* three key codes, one name */
    free(t);
}

static void test_guide_has_the_table(void **state)
{
    (void)state;
    char *doc = slurp(GUIDE);
    assert_non_null(doc);
    char *a = strstr(doc, START), *b = a ? strstr(a, END) : NULL;
    if (!a || !b) fail_msg(GUIDE " has no key table between its markers");
    a += strlen(START);
    char *t = generated();
    if (getenv("KEYDOC_WRITE")) {
        FILE *f = fopen(GUIDE, "wb");
        assert_non_null(f);
        fwrite(doc, 1, (size_t)(a - doc), f);
        fputs(t, f);
        fputs(b, f);
        fclose(f);
        printf("keydoc: rewrote the key table of " GUIDE "\n");
    } else if ((size_t)(b - a) != strlen(t) || memcmp(a, t, strlen(t)) != 0) {
        fail_msg(GUIDE "'s key table differs from src/ui/kit/keys.h: run make docs");
    }
    free(t);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows),
        cmocka_unit_test(test_guide_has_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
