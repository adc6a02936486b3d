/* keydoc.c - the key table (keys.h) as the Markdown table of docs/guide.md, so the
 * documentation is generated from the table the dispatch, the help overlay and the bar
 * come from, never copied by hand (tests/unit/test_keydoc.c compares; `make docs`
 * rewrites the block). */
#include "ui/kit/keydoc.h"

#include <string.h>

#include "ui/kit/keys.h"

/* "collectives, parallelism" for a row's KEYS_ON_* bits. */
static void keydoc_where(unsigned on, char *buf, size_t n)
{
    static const struct {
        unsigned bit;
        const char *name;
    } screens[] = {{KEYS_ON_COLL, "collectives"},     {KEYS_ON_PAR, "parallelism"},
                   {KEYS_ON_HIER, "hierarchy"},       {KEYS_ON_TOPO, "topology"},
                   {KEYS_ON_LESSON, "lesson player"}, {KEYS_ON_PRESENT, "presenter"},
                   {KEYS_ON_NOTES, "notes terminal"}};
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof screens / sizeof screens[0]; i++) {
        if (!(on & screens[i].bit)) continue;
        size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s%s", l ? ", " : "", screens[i].name);
    }
}

/* A key name inside a Markdown table: in backticks, with '|' and '`' spelt out. */
static void keydoc_key(const char *name, char *buf, size_t n)
{
    if (strcmp(name, "|") == 0)
        snprintf(buf, n, "`\\|`");
    else if (strcmp(name, "`") == 0)
        snprintf(buf, n, "`` ` ``");
    else
        snprintf(buf, n, "`%s`", name);
}

void keys_doc_markdown(FILE *out)
{
    fprintf(out, "| keys | action | where |\n|---|---|---|\n");
    const struct key_row *rows = keys_table();
    for (int a = 0; a < ACT_COUNT; a++) {
        const struct key_row *r = &rows[a];
        char keys[160] = "", prev[16] = "", where[160];
        for (const int *k = r->keys; *k; k++) {
            char one[16], md[24];
            keys_name(*k, true, one, sizeof one);
            if (strcmp(one, prev) == 0) continue; /* Enter is three codes, one name */
            snprintf(prev, sizeof prev, "%s", one);
            keydoc_key(one, md, sizeof md);
            size_t l = strlen(keys);
            snprintf(keys + l, sizeof keys - l, "%s%s", l ? " " : "", md);
        }
        keydoc_where(r->screens, where, sizeof where);
        /* a scene key works in the lesson player too, with the keys the player leaves it */
        if (keys_is_scene_action(r->action) && !(r->screens & KEYS_ON_LESSON)) {
            unsigned scr = r->screens & KEYS_ON_SCENES;
            unsigned first = scr & -scr;
            char on[64], all[64];
            keys_row_names_on(r, SURFACE_PLAYER, first, true, on, sizeof on);
            keys_row_names(r, true, all, sizeof all);
            size_t l = strlen(where);
            if (on[0] && strcmp(on, all) == 0)
                snprintf(where + l, sizeof where - l, ", lesson player");
            else if (on[0])
                snprintf(where + l, sizeof where - l, ", lesson player (`%s`)", on);
        }
        fprintf(out, "| %s | %s | %s |\n", keys, r->help, where);
    }
}

/* One row's line of keys_doc_surface: the keys that do it there, then its help. */
static void keydoc_surface_row(FILE *out, const struct key_row *r, enum keys_surface s,
                               unsigned on)
{
    char names[64];
    keys_row_names_on(r, s, on, false, names, sizeof names);
    if (names[0]) fprintf(out, "  %-*s  %s\n", KEYDOC_KEYS_W, names, r->help);
}

void keys_doc_surface(FILE *out, enum keys_surface s)
{
    static const struct {
        unsigned on;
        const char *name;
    } screens[] = {{KEYS_ON_COLL, "collectives"},
                   {KEYS_ON_PAR, "parallelism"},
                   {KEYS_ON_HIER, "hierarchy"}};
    const struct key_row *rows = keys_table();
    unsigned own = keys_surface_bit(s);
    fprintf(out, "Keys:\n");
    for (int a = 0; a < ACT_COUNT; a++)
        if (rows[a].screens & own) keydoc_surface_row(out, &rows[a], s, 0);
    /* the scene's keys, under the first screen that has the row */
    for (size_t i = 0; i < sizeof screens / sizeof screens[0]; i++) {
        fprintf(out, "On a %s scene:\n", screens[i].name);
        for (int a = 0; a < ACT_COUNT; a++) {
            const struct key_row *r = &rows[a];
            unsigned scr = r->screens & (KEYS_ON_COLL | KEYS_ON_PAR | KEYS_ON_HIER);
            if (!keys_is_scene_action(r->action) || (r->screens & own) ||
                (scr & -scr) != screens[i].on)
                continue;
            keydoc_surface_row(out, r, s, screens[i].on);
        }
    }
}

void keys_doc_rows(FILE *out, unsigned on)
{
    const struct key_row *rows = keys_table();
    fprintf(out, "Keys:\n");
    for (int a = 0; a < ACT_COUNT; a++) {
        if (!(rows[a].screens & on)) continue;
        char names[64];
        keys_row_names(&rows[a], false, names, sizeof names);
        fprintf(out, "  %-*s  %s\n", KEYDOC_KEYS_W, names, rows[a].help);
    }
}
