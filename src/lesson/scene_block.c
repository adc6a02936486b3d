/* scene_block.c - a slide's ```scene block: its key: value lines checked and turned into the
 * slide's scene words (scene/scene.h), each error at its line. Called by lesson.c. */
#include "lesson/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- scene blocks ----------------------------------------------------------------------- */

static const char *const scene_keys[] = {
    "screen",  "collective", "algo",     "op",        "ranks",  "count",
    "root",    "init",       "seed",     "step",      "scheme", "schedule",
    "overlap", "size",       "autoplay", "highlight", "counts",
};

/* The key a scene_check message is about ("ranks 20 out of range" → ranks). */
static const char *scene_msg_key(const char *msg)
{
    static const struct {
        const char *word, *key;
    } map[] = {
        {"ranks", "ranks"},       {"count", "count"},         {"root", "root"},
        {"algorithm", "algo"},    {"step", "step"},           {"size", "size"},
        {"autoplay", "autoplay"}, {"highlight", "highlight"}, {"scheme", "scheme"},
    };
    for (size_t i = 0; i < ARRAY_LEN(map); i++) {
        size_t n = strlen(map[i].word);
        if (strncmp(msg, map[i].word, n) == 0 && (msg[n] == ' ' || msg[n] == ':'))
            return map[i].key;
    }
    return NULL;
}

/* `stops: 0, 3, end`: the steps the presenter's clicker shows, ascending, each once. Not a
 * scene word: the scene is what a screen shows, the stops are how a talk walks it. */
static bool parse_stops(struct ctx *c, struct lesson_slide *S, int line, const char *v,
                        size_t vn)
{
    if (S->stops_line) {
        lp_perr(c, line, "scene: key 'stops' given twice (first at line %d)", S->stops_line);
        return false;
    }
    S->stops_line = line;
    size_t i = 0;
    long prev = -1; /* the last step given (-1: none yet) */
    bool ended = false;
    while (i < vn) {
        while (i < vn && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        if (i >= vn) break;
        size_t j = i;
        while (j < vn && v[j] != ' ' && v[j] != '\t' && v[j] != ',')
            j++;
        char w[32];
        snprintf(w, sizeof w, "%.*s", (int)(j - i < 31 ? j - i : 31), v + i);
        long s;
        char *end;
        if (strcmp(w, "end") == 0) {
            s = SCENE_STEP_END;
        } else {
            s = strtol(w, &end, 10);
            if (end == w || *end || s < 0 || s > 100000 || !(w[0] >= '0' && w[0] <= '9')) {
                lp_perr(c, line, "scene: stops: '%s' is not a step (a number from 0, or end)",
                        w);
                return false;
            }
        }
        if (ended || (s != SCENE_STEP_END && s <= prev)) {
            lp_perr(c, line, "scene: stops: '%s' after %s (stops go up, end last)", w,
                    ended ? "end" : "a step as late");
            return false;
        }
        if (S->nstops >= LESSON_STOPS_MAX) {
            lp_perr(c, line, "scene: stops: more than %d", LESSON_STOPS_MAX);
            return false;
        }
        S->stops[S->nstops++] = s;
        if (s == SCENE_STEP_END)
            ended = true;
        else
            prev = s;
        i = j;
    }
    if (S->nstops == 0) {
        lp_perr(c, line, "scene: stops: no step given (e.g. stops: 0, 3, end)");
        return false;
    }
    return true;
}

/* Lines first..last (exclusive) of a ```scene block opened at line `open`. */
void lp_parse_scene(struct ctx *c, struct lesson_slide *S, size_t first, size_t last, int open)
{
    int key_line[ARRAY_LEN(scene_keys)] = {0};
    struct vec_buf words = {0};
    bool bad = false;
    for (size_t li = first; li < last; li++) {
        struct line l = lp_get_line(c, li);
        struct line t = lp_uncommented(l);
        if (lp_is_blank(t.s, t.n)) continue;
        char key[32];
        const char *v;
        size_t vn;
        if (!lp_split_kv(&t, key, sizeof key, &v, &vn)) {
            lp_perr(c, l.no, "scene: expected 'key: value'");
            bad = true;
            continue;
        }
        if (strcmp(key, "stops") == 0) {
            if (!parse_stops(c, S, l.no, v, vn)) bad = true;
            continue;
        }
        int k = -1;
        for (size_t i = 0; i < ARRAY_LEN(scene_keys); i++)
            if (strcmp(key, scene_keys[i]) == 0) k = (int)i;
        if (k < 0) {
            lp_perr(c, l.no, "scene: unknown key '%s'", key);
            bad = true;
            continue;
        }
        if (key_line[k]) {
            lp_perr(c, l.no, "scene: key '%s' given twice (first at line %d)", key,
                    key_line[k]);
            bad = true;
            continue;
        }
        key_line[k] = l.no;
        if (vn == 0 || memchr(v, ' ', vn) || memchr(v, '\t', vn) || vn > 100) {
            lp_perr(c, l.no, "scene: bad value '%.*s' for %s", (int)(vn > 100 ? 100 : vn), v,
                    key);
            bad = true;
            continue;
        }
        char word[160];
        snprintf(word, sizeof word, "%s=%.*s", key, (int)vn, v);
        /* the value alone, on a default scene: a word that does not parse is this line's
         * error; a combination that does not hold is decided below, on the whole block */
        struct scene scratch;
        scene_default(&scratch);
        char err[200];
        if (scene_parse(&scratch, word, err, sizeof err) != CV_OK &&
            strncmp(err, "scene:", 6) == 0) {
            lp_perr(c, l.no, "%s", err);
            bad = true;
            continue;
        }
        if (words.len) vec_buf_puts(&words, " ");
        vec_buf_puts(&words, word);
    }
    struct scene sc;
    scene_default(&sc);
    if (!bad) {
        char err[200];
        if (scene_parse(&sc, words.s ? words.s : "", err, sizeof err) != CV_OK) {
            const char *key = scene_msg_key(err);
            int line = open;
            for (size_t i = 0; key && i < ARRAY_LEN(scene_keys); i++)
                if (strcmp(scene_keys[i], key) == 0 && key_line[i]) line = key_line[i];
            if (key && strcmp(key, "algo") == 0 && line == open && key_line[1])
                line = key_line[1]; /* the collective's line when algo was not given */
            lp_perr(c, line, "scene: %s", err);
        } else {
            S->scene = sc;
            S->has_scene = true;
        }
    }
    free(words.s);
}
