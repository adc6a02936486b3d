/* lesson_keys.c - every "press X" of a lesson is a key the player binds (see lesson_keys.h).
 * A sentence is scanned from each "press"/"pressing"/"presses" word: keys follow it, bare
 * (m, Enter) or backticked (`[`), joined by commas, "and", "or", "then" or "/"; the first
 * word that is no key ends the list ("press the key" asks for none). */
#include "ui/screens/lesson/lesson_keys.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/util.h"
#include "ui/kit/keys.h"
#include "ui/screens/screens.h"

bool lesson_keys_bound(const struct lesson_slide *s, int ch)
{
    unsigned screen_on = 0;
    if (s->has_scene) {
        const struct screen_ops *o = screen_ops_of(s->scene.screen);
        if (o) screen_on = o->keys_on;
    }
    enum ui_action act = keys_action_surface(ch, SURFACE_PLAYER, screen_on);
    if (act == ACT_NONE) return false;
    if (keys_is_scene_action(act))
        return s->has_scene && (keys_table()[act].screens & (screen_on | KEYS_ON_LESSON));
    return (keys_table()[act].screens & KEYS_ON_LESSON) != 0;
}

static void keys_err(struct lesson_errors *errs, const char *path, int line, const char *fmt,
                     const char *key)
{
    char msg[600], what[300];
    snprintf(what, sizeof what, fmt, key);
    snprintf(msg, sizeof msg, "%s:%d: %s", path, line, what);
    errs->msg = xrealloc(errs->msg, (errs->n + 1) * sizeof *errs->msg);
    errs->msg[errs->n++] = xstrdup(msg);
}

/* The next "press" in t, in any case. */
static const char *keys_find_press(const char *t)
{
    for (; *t; t++)
        if (strncasecmp(t, "press", 5) == 0) return t;
    return NULL;
}

/* One text (code spans between backticks) of slide s at line: the keys after each press. */
/* The keys found (lesson_keys_asked); NULL when only checking. */
struct keys_got {
    int *keys;
    size_t n, cap;
};

static size_t keys_scan(const struct lesson *L, const struct lesson_slide *s, const char *t,
                        int line, struct lesson_errors *errs, struct keys_got *got)
{
    size_t found = 0;
    for (const char *p = t; (p = keys_find_press(p)) != NULL;) {
        bool word_start = p == t || !isalpha((unsigned char)p[-1]);
        p += 5;
        size_t suf = strspn(p, "ingesd"); /* press, presses, pressing, pressed */
        if (!word_start || (suf && strncmp(p, "ing", 3) && strncmp(p, "es", 2)) ||
            isalpha((unsigned char)p[suf]) || p[suf] != ' ')
            continue;
        p += suf;
        for (;;) {
            while (*p == ' ')
                p++;
            const char *k = p;
            size_t n;
            bool ticked = *p == '`';
            if (ticked) {
                const char *e = strchr(p + 1, '`');
                if (!e) break;
                k = p + 1;
                n = (size_t)(e - k);
                p = e + 1;
            } else {
                n = strcspn(p, " `");
                p += n;
                /* "o," "m." "Enter)": the punctuation is the sentence's, not the key's */
                while (n > 1 && strchr(",.;:)!?", k[n - 1]))
                    n--;
            }
            int ch = n ? keys_parse_name(k, n) : 0;
            if (!ticked && n == 1 && (k[0] == 'a' || k[0] == 'A')) ch = 0; /* "press a key" */
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(n < 60 ? n : 60), k);
            if (!ch) {
                if (ticked)
                    keys_err(errs, L->path, line, "\"press `%s`\": no such key", name), found++;
                break;
            }
            if (got && lesson_keys_bound(s, ch) && got->n < got->cap) got->keys[got->n++] = ch;
            if (!lesson_keys_bound(s, ch)) {
                keys_err(errs, L->path, line,
                         s->has_scene ? "the narration asks for key %s, which the player does "
                                        "not bind on this slide's screen (collviz lesson: ? "
                                        "lists its keys)"
                                      : "the narration asks for key %s, which does nothing "
                                        "on a slide without a scene",
                         name);
                found++;
            }
            /* more keys: "`[` and `]`", "7 and 6", "o, a or r" */
            const char *q = p;
            bool joined = !ticked && n >= 1 && (k[n] == ',' || k[n] == '/');
            while (*q == ' ')
                q++;
            if (*q == ',' || *q == '/') {
                joined = true;
                q++;
            }
            while (*q == ' ')
                q++;
            size_t wl = strcspn(q, " ");
            if ((wl == 3 && strncmp(q, "and", 3) == 0) ||
                (wl == 2 && strncmp(q, "or", 2) == 0) ||
                (wl == 4 && strncmp(q, "then", 4) == 0)) {
                joined = true;
                q += wl;
            }
            if (!joined) break;
            p = q;
        }
    }
    return found;
}

static char *keys_block_text(const struct lesson_block *b)
{
    size_t cap = 1;
    for (size_t i = 0; i < b->nspans; i++)
        cap += strlen(b->spans[i].text) + 3;
    char *t = xcalloc(cap, 1), *o = t;
    for (size_t i = 0; i < b->nspans; i++) {
        const struct lesson_span *sp = &b->spans[i];
        bool code = (sp->style & LSPAN_CODE) != 0;
        if (code) *o++ = '`';
        size_t l = strlen(sp->text);
        memcpy(o, sp->text, l);
        o += l;
        if (code) *o++ = '`';
        if (sp->hard_break) *o++ = ' ';
    }
    *o = '\0';
    return t;
}

size_t lesson_keys_check(const struct lesson *L, struct lesson_errors *errs)
{
    size_t found = 0;
    for (size_t k = 0; k < L->nslides; k++) {
        const struct lesson_slide *s = &L->slides[k];
        for (size_t b = 0; b < s->nblocks; b++) {
            if (s->blocks[b].kind == LBLOCK_CODE) continue;
            char *t = keys_block_text(&s->blocks[b]);
            found += keys_scan(L, s, t, s->blocks[b].line, errs, NULL);
            free(t);
        }
        for (size_t e = 0; e < s->nex; e++)
            if (s->ex[e].prompt)
                found += keys_scan(L, s, s->ex[e].prompt, s->ex[e].line, errs, NULL);
    }
    return found;
}

size_t lesson_keys_asked(const struct lesson *L, size_t slide, int *keys, size_t cap)
{
    struct keys_got got = {keys, 0, cap};
    struct lesson_errors errs = {0};
    const struct lesson_slide *s = &L->slides[slide];
    for (size_t b = 0; b < s->nblocks; b++) {
        if (s->blocks[b].kind == LBLOCK_CODE) continue;
        char *t = keys_block_text(&s->blocks[b]);
        keys_scan(L, s, t, s->blocks[b].line, &errs, &got);
        free(t);
    }
    for (size_t e = 0; e < s->nex; e++)
        if (s->ex[e].prompt) keys_scan(L, s, s->ex[e].prompt, s->ex[e].line, &errs, &got);
    lesson_errors_free(&errs);
    return got.n;
}
