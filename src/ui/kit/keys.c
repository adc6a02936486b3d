/* keys.c - expands UI_KEY_TABLE (keys.h) into the table the dispatch, help overlay and
 * bottom bar are generated from, and names keys for people. */
#include "ui/kit/keys.h"

#include "core/coll.h"
#include "core/text.h"

#include <curses.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static struct key_row key_rows[ACT_COUNT] = {
#define KEYS_X_ROW(id, scr, bk, bl, help, ...)                                                 \
    [ACT_##id] = {ACT_##id, scr, bk, bl, help, {__VA_ARGS__, 0}},
    UI_KEY_TABLE(KEYS_X_ROW)
#undef KEYS_X_ROW
};

/* The rows the collectives' table makes (keys.h): a number key and the title of each of the
 * first KEYS_COLL_NUMBERED collectives, and the bar's text for the range, "1-8". Titles are
 * strings of core/coll.c's table, not constants an initializer may read, so they are
 * filled once, before any row is read. */
static void keys_fill_coll(void)
{
    static char range[8];
    for (int c = 0; c < KEYS_COLL_NUMBERED; c++)
        key_rows[ACT_COLL_FIRST + c] = (struct key_row){.action = ACT_COLL_FIRST + c,
                                                        .screens = KEYS_ON_COLL,
                                                        .help = coll_title((enum coll)c),
                                                        .keys = {'1' + c, 0}};
    if (KEYS_COLL_NUMBERED > 1)
        snprintf(range, sizeof range, "1-%d", KEYS_COLL_NUMBERED);
    else
        snprintf(range, sizeof range, "1");
    key_rows[ACT_COLL_NEXT].bar_keys = range;
}

/* The whole table, its collectives' rows filled. */
static const struct key_row *rows(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, keys_fill_coll);
    return key_rows;
}

const struct key_row *keys_table(void)
{
    return rows();
}

int keys_coll_of(enum ui_action act)
{
    return act >= ACT_COLL_FIRST && act <= ACT_COLL_LAST ? (int)(act - ACT_COLL_FIRST) : -1;
}

static enum ui_action keys_find(int ch, unsigned on)
{
    if (ch == 0) return ACT_NONE;
    const struct key_row *t = rows();
    for (int a = 0; a < ACT_COUNT; a++)
        if (t[a].screens & on)
            for (const int *k = t[a].keys; *k; k++)
                if (*k == ch) return t[a].action;
    return ACT_NONE;
}

enum ui_action keys_action_on(int ch, unsigned on)
{
    enum ui_action a = keys_find(ch, on);
    if (a == ACT_NONE && (on & KEYS_ON_SCENES)) a = keys_find(ch, KEYS_ON_SCENES);
    return a;
}

enum ui_action keys_action(int ch)
{
    return keys_action_on(ch, KEYS_ON_SCENES);
}

unsigned keys_surface_bit(enum keys_surface s)
{
    switch (s) {
    case SURFACE_PLAYER:
        return KEYS_ON_LESSON;
    case SURFACE_PRESENTER:
        return KEYS_ON_PRESENT;
    default:
        return 0;
    }
}

enum ui_action keys_action_surface(int ch, enum keys_surface s, unsigned screen_on)
{
    enum ui_action a = ACT_NONE;
    unsigned own = keys_surface_bit(s);
    if (own) a = keys_find(ch, own);
    if (a == ACT_NONE && screen_on) a = keys_find(ch, screen_on);
    if (a == ACT_NONE) a = keys_find(ch, KEYS_ON_SCENES);
    return a;
}

int keys_key_on(enum ui_action act, enum keys_surface s, unsigned screen_on)
{
    if (act < 0 || act >= ACT_COUNT) return 0;
    for (const int *k = rows()[act].keys; *k; k++)
        if (keys_action_surface(*k, s, screen_on) == act) return *k;
    return 0;
}

void keys_retarget_text(const char *in, enum keys_surface from, enum keys_surface to,
                        unsigned screen_on, bool utf8, char *out, size_t n)
{
    size_t o = 0;
    if (n == 0) return;
    for (const char *p = in; *p && o + 1 < n;) {
        /* `K`: one printable ASCII key between backticks */
        enum ui_action act = ACT_NONE;
        if (p[0] == '`' && p[1] > ' ' && p[1] < 0x7f && p[1] != '`' && p[2] == '`')
            act = keys_action_surface((unsigned char)p[1], from, screen_on);
        if (act == ACT_NONE || !(rows()[act].screens & KEYS_ON_SCENES) ||
            keys_action_surface((unsigned char)p[1], to, screen_on) == act) {
            out[o++] = *p++;
            continue;
        }
        char name[32];
        const char *k = keys_hint(act, to, screen_on, utf8, name, sizeof name);
        int w = k ? snprintf(out + o, n - o, "`%s`", k)
                  : snprintf(out + o, n - o, "`%c` (in the player)", p[1]);
        if (w < 0 || (size_t)w >= n - o) break;
        o += (size_t)w;
        p += 3;
    }
    out[o] = '\0';
}

const char *keys_hint(enum ui_action act, enum keys_surface s, unsigned screen_on, bool utf8,
                      char *buf, int n)
{
    int k = keys_key_on(act, s, screen_on);
    return k ? keys_name(k, utf8, buf, n) : NULL;
}

void keys_row_names_on(const struct key_row *row, enum keys_surface s, unsigned screen_on,
                       bool utf8, char *buf, int n)
{
    struct key_row only = *row;
    int m = 0;
    for (const int *k = row->keys; *k; k++)
        if (keys_action_surface(*k, s, screen_on) == row->action) only.keys[m++] = *k;
    only.keys[m] = 0;
    keys_row_names(&only, utf8, buf, n);
}

bool keys_is_scene_action(enum ui_action act)
{
    if (act < 0 || act >= ACT_COUNT || !(rows()[act].screens & KEYS_ON_SCENES)) return false;
    switch (act) {
    case ACT_HELP:
    case ACT_CLOSE:
    case ACT_QUIT:
    case ACT_BACKENDS:
    case ACT_EXPORT:
        return false;
    default:
        return true;
    }
}

bool keys_is_step_action(enum ui_action act)
{
    return act == ACT_NEXT || act == ACT_PREV || act == ACT_FIRST || act == ACT_LAST ||
           act == ACT_PLAY;
}

int keys_parse_name(const char *name, size_t len)
{
    static const struct {
        const char *name;
        int key;
    } words[] = {
        {"enter", '\r'},
        {"return", '\r'},
        {"esc", 27},
        {"escape", 27},
        {"tab", '\t'},
        {"space", ' '},
        {"backspace", KEY_BACKSPACE},
        {"home", KEY_HOME},
        {"end", KEY_END},
        {"pgup", KEY_PPAGE},
        {"pgdn", KEY_NPAGE},
        {"pageup", KEY_PPAGE},
        {"pagedown", KEY_NPAGE},
        {"up", KEY_UP},
        {"down", KEY_DOWN},
        {"left", KEY_LEFT},
        {"right", KEY_RIGHT},
        {"\u2191", KEY_UP},
        {"\u2193", KEY_DOWN},
        {"\u2190", KEY_LEFT},
        {"\u2192", KEY_RIGHT},
    };
    if (len == 1 && name[0] > 32 && name[0] < 127) return name[0];
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].name) == len && strncasecmp(words[i].name, name, len) == 0)
            return words[i].key;
    if ((len == 2 || len == 3) && (name[0] == 'F' || name[0] == 'f')) {
        int n = 0;
        for (size_t i = 1; i < len; i++) {
            if (name[i] < '0' || name[i] > '9') return 0;
            n = n * 10 + (name[i] - '0');
        }
        if (n >= 1 && n <= 12) return KEY_F(n);
    }
    return 0;
}

const char *keys_name(int ch, bool utf8, char *buf, int n)
{
    const char *s = NULL;
    switch (ch) {
    case KEY_RIGHT:
        s = utf8 ? "\u2192" : "Right";
        break;
    case KEY_LEFT:
        s = utf8 ? "\u2190" : "Left";
        break;
    case KEY_UP:
        s = utf8 ? "\u2191" : "Up";
        break;
    case KEY_DOWN:
        s = utf8 ? "\u2193" : "Down";
        break;
    case KEY_NPAGE:
        s = "PgDn";
        break;
    case KEY_PPAGE:
        s = "PgUp";
        break;
    case KEY_HOME:
        s = "Home";
        break;
    case KEY_END:
        s = "End";
        break;
    case ' ':
        s = "Space";
        break;
    case '\t':
        s = "Tab";
        break;
    case 27:
        s = "Esc";
        break;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        s = "Backspace";
        break;
    case '\r':
    case '\n':
    case KEY_ENTER:
        s = "Enter";
        break;
    default:
        break;
    }
    if (s)
        snprintf(buf, (size_t)n, "%s", s);
    else if (ch >= KEY_F(1) && ch <= KEY_F(12))
        snprintf(buf, (size_t)n, "F%d", ch - KEY_F(0));
    else if (ch >= KEY_F(13) && ch <= KEY_F(24)) /* xterm's Shift+F1..F12 */
        snprintf(buf, (size_t)n, "Shift+F%d", ch - KEY_F(12));
    else if (ch > 32 && ch < 127)
        snprintf(buf, (size_t)n, "%c", ch);
    else
        snprintf(buf, (size_t)n, "#%d", ch);
    return buf;
}

void keys_row_names(const struct key_row *row, bool utf8, char *buf, int n)
{
    buf[0] = '\0';
    char prev[16] = "";
    for (const int *k = row->keys; *k; k++) {
        char one[16];
        keys_name(*k, utf8, one, sizeof one);
        if (strcmp(one, prev) == 0) continue; /* Enter is three codes, one name */
        snprintf(prev, sizeof prev, "%s", one);
        size_t l = strlen(buf);
        snprintf(buf + l, (size_t)n - l, "%s%s", l ? " " : "",
                 keys_name(*k, utf8, one, sizeof one));
    }
}

/* "<-" and "->" as arrows in UTF-8 mode. */
static void keys_bar_text(const char *s, bool utf8, char *out, size_t n)
{
    size_t o = 0;
    while (*s && o + 4 < n) {
        if (utf8 && s[0] == '<' && s[1] == '-') {
            memcpy(out + o, "\u2190", 3);
            o += 3;
            s += 2;
        } else if (utf8 && s[0] == '-' && s[1] == '>') {
            memcpy(out + o, "\u2192", 3);
            o += 3;
            s += 2;
        } else if (utf8 && s[0] == ' ' && o > 0) {
            s++; /* "← →" reads better as "←→" */
        } else {
            out[o++] = *s++;
        }
    }
    out[o] = '\0';
}

/* The bar text of one row. */
static void keys_bar_item(const struct key_row *row, bool utf8, struct bar_item *it)
{
    *it = (struct bar_item){.action = row->action, .label = row->bar_label};
    if (row->bar_keys) {
        keys_bar_text(row->bar_keys, utf8, it->keys, sizeof it->keys);
    } else {
        char one[16];
        keys_name(row->keys[0], utf8, one, sizeof one);
        snprintf(it->keys, sizeof it->keys, "%s", row->keys[0] == ' ' ? "Spc" : one);
    }
    it->w = text_width(it->keys) + 1 + text_width(it->label);
}

/* Help and quit must always be reachable, so they are placed first; the others follow in
 * table order while they fit. Items are then laid out in table order. */
static bool keys_bar_essential(enum ui_action a)
{
    return a == ACT_HELP || a == ACT_QUIT || a == ACT_NOTES_QUIT;
}

int keys_bar(int width, bool utf8, struct bar_item *items, int max)
{
    return keys_bar_for(width, utf8, KEYS_ON_COLL, items, max);
}

int keys_bar_for(int width, bool utf8, unsigned screen, struct bar_item *items, int max)
{
    return keys_bar_where(width, utf8, screen, NULL, NULL, items, max);
}

int keys_bar_where(int width, bool utf8, unsigned screen, keys_bar_fn works, const void *ctx,
                   struct bar_item *items, int max)
{
    const struct key_row *t = rows();
    bool take[ACT_COUNT] = {false};
    const char *label[ACT_COUNT] = {NULL};
    int used = -2;
    for (int pass = 0; pass < 2; pass++)
        for (int a = 0; a < ACT_COUNT; a++) {
            const struct key_row *row = &t[a];
            if (!row->bar_label || !(row->screens & screen) || take[a] ||
                keys_bar_essential(row->action) != (pass == 0))
                continue;
            label[a] = row->bar_label;
            if (works && !works(ctx, row->action, &label[a])) continue;
            struct bar_item it;
            keys_bar_item(row, utf8, &it);
            it.label = label[a];
            it.w = text_width(it.keys) + 1 + text_width(it.label);
            if (used + 2 + it.w > width) continue;
            take[a] = true;
            used += 2 + it.w;
        }
    int n = 0, x = 0;
    for (int a = 0; a < ACT_COUNT && n < max; a++) {
        if (!take[a]) continue;
        keys_bar_item(&t[a], utf8, &items[n]);
        items[n].label = label[a];
        items[n].w = text_width(items[n].keys) + 1 + text_width(label[a]);
        items[n].x = x;
        x += items[n].w + 2;
        n++;
    }
    return n;
}

enum ui_action keys_bar_hit(const struct bar_item *items, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (x >= items[i].x && x < items[i].x + items[i].w + 1) return items[i].action;
    return ACT_NONE;
}
