/* test_keydoc.c - docs/guide.md's key table is the one keys_doc_markdown writes from
 * UI_KEY_TABLE, byte for byte, between its two marker lines. Run from the source tree's
 * top (as make test does). With KEYDOC_WRITE=1 (make docs) it rewrites that block
 * instead of comparing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <curses.h>

#include "ui/kit/keydoc.h"
#include "ui/kit/keys.h"

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

/* A key's help name back to its code: keys_parse_name's names, and "Shift+F5". */
static int key_code(const char *name, size_t len)
{
    if (len > 7 && strncmp(name, "Shift+F", 7) == 0) {
        int n = atoi(name + 7);
        return n >= 1 && n <= 12 ? KEY_F(12 + n) : 0;
    }
    return keys_parse_name(name, len);
}

/* The lines of a surface's --help key list ("Keys:", "On a X scene:", "  KEYS  help")
 * whose keys do not do what the line says: each key must reach, on that surface (on that
 * scene), the table row whose help text the line gives. Each bad line is printed. */
static int bad_key_lines(const char *text, enum keys_surface s)
{
    static const struct {
        const char *head;
        unsigned on;
    } heads[] = {{"Keys:", 0},
                 {"On a collectives scene:", KEYS_ON_COLL},
                 {"On a parallelism scene:", KEYS_ON_PAR},
                 {"On a hierarchy scene:", KEYS_ON_HIER}};
    const struct key_row *rows = keys_table();
    unsigned on = 0;
    int bad = 0, lines = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        bool head = false;
        for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
            if (strcmp(l, heads[i].head) == 0) on = heads[i].on, head = true;
        if (head || strncmp(l, "  ", 2) != 0) continue;
        lines++;
        char *help = strstr(l + 2, "  ");
        if (!help) {
            printf("no help text: %s\n", l);
            bad++;
            continue;
        }
        *help = '\0';
        help += strspn(help + 1, " ") + 1;
        for (char *k = l + 2; *k;) {
            size_t n = strcspn(k, " ");
            int ch = key_code(k, n);
            enum ui_action a = ch ? keys_action_surface(ch, s, on) : ACT_NONE;
            if (a == ACT_NONE || strcmp(rows[a].help, help) != 0) {
                printf("key %.*s does not do \"%s\" there (it does: %s)\n", (int)n, k, help,
                       a == ACT_NONE ? "nothing" : rows[a].help);
                bad++;
            }
            k += n;
            k += strspn(k, " ");
        }
    }
    free(copy);
    return lines ? bad : -1;
}

static char *surface_help(enum keys_surface s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    keys_doc_surface(m, s);
    fclose(m);
    return buf;
}

/* Every key `collviz --present --help` lists does what the line says there: the presenter's
 * G is its glossary (the schedule is S on a parallelism scene), its + zooms. The checker
 * itself refuses the help's old line "G schedule" and a line naming a key that does
 * nothing. */
static void test_present_help_keys(void **state)
{
    (void)state;
    char *t = surface_help(SURFACE_PRESENTER);
    assert_int_equal(bad_key_lines(t, SURFACE_PRESENTER), 0);
    /* read off keys.h by hand */
    assert_non_null(strstr(t, "\n  G                   glossary: the slide's terms first"));
    assert_non_null(strstr(t, "\n  S                   pp schedule: GPipe / 1F1B\n"));
    assert_non_null(
        strstr(t, "\n  PgDn Down Space     the scene's next stop, then the next slide"));
    assert_null(strstr(t, "  G                   pp schedule"));
    free(t);
    assert_int_equal(bad_key_lines("On a parallelism scene:\n  G  pp schedule: GPipe / 1F1B\n",
                                   SURFACE_PRESENTER),
                     1);
    assert_int_equal(bad_key_lines("Keys:\n  Z  quit\n", SURFACE_PRESENTER), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows),
        cmocka_unit_test(test_guide_has_the_table),
        cmocka_unit_test(test_present_help_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
