/* scene.c - parse and format scene descriptions (see scene.h). Pure data: no curses, no
 * threads, so lessons, tests and the UI share one reading of "collective=all_reduce step=end".
 */
#include "scene/scene.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/plan.h"
#include "core/util.h"

static const char *const screen_names[SCREEN_KIND_COUNT] = {
    [SCREEN_COLLECTIVES] = "collectives",
    [SCREEN_PARALLEL] = "parallel",
    [SCREEN_HIERARCHY] = "hierarchy",
    [SCREEN_TOPOLOGY] = "topology",
};

static const char *const hl_names[HL_KIND_COUNT] = {
    [HL_NONE] = "none",
    [HL_RANK] = "rank",
    [HL_CHUNK] = "chunk",
    [HL_TRANSFER] = "transfer",
};

const char *highlight_kind_name(enum highlight_kind k)
{
    return (unsigned)k < HL_KIND_COUNT ? hl_names[k] : "?";
}

const char *screen_kind_name(enum screen_kind k)
{
    return (unsigned)k < SCREEN_KIND_COUNT ? screen_names[k] : "?";
}

int screen_kind_parse(const char *name, enum screen_kind *out)
{
    for (int k = 0; k < SCREEN_KIND_COUNT; k++)
        if (strcmp(name, screen_names[k]) == 0) {
            *out = (enum screen_kind)k;
            return CV_OK;
        }
    return CV_EINVAL;
}

void scene_default(struct scene *s)
{
    *s = (struct scene){
        .screen = SCREEN_COLLECTIVES,
        .coll = COLL_ALL_REDUCE,
        .algo = ALGO_RING,
        .op = OP_SUM,
        .nranks = 4,
        .count = 0,
        .root = 0,
        .init = INIT_LECTURE,
        .seed = 1,
        .step = 0,
        .scheme = TRAIN_DDP,
        .schedule = PP_GPIPE,
        .overlap = false,
        .meas_bytes = SCENE_MEAS_DEFAULT,
        .autoplay = 0,
        .hl = HL_NONE,
        .hl_index = 0,
        .slice_view = false,
        .slices = SCENE_DEFAULT_SLICES,
        .channels = 1,
    };
}

size_t scene_count(const struct scene *s)
{
    if (s->ncounts) {
        size_t W = (size_t)s->ncounts, most = 0;
        for (size_t r = 0; r < W; r++) {
            size_t row = 0, col = 0;
            for (size_t j = 0; j < W; j++) {
                row += s->counts[r * W + j];
                col += s->counts[j * W + r];
            }
            most = row > most ? row : most;
            most = col > most ? col : most;
        }
        return most ? (most + W - 1) / W : 1; /* what plan_build_a2av pads to */
    }
    return s->count ? s->count : coll_default_count(s->coll, s->nranks);
}

int scene_plan_build(const struct scene *s, struct plan *p, size_t count, int root, char *err,
                     size_t errlen)
{
    if (s->ncounts) return plan_build_a2av(p, s->ncounts, s->counts, err, errlen);
    return plan_build_ring(p, s->coll, s->algo, s->op, s->nranks, count, root,
                           s->ring_n ? s->ring : NULL, err, errlen);
}

int scene_check(const struct scene *s, char *err, size_t errlen)
{
    if (s->nranks < 1 || s->nranks > CV_MAX_RANKS)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d out of range (1..%d)", s->nranks,
                      CV_MAX_RANKS);
    if (s->count > SCENE_MAX_COUNT)
        return cv_err(err, errlen, CV_EINVAL, "count %zu too large to show (1..%d)", s->count,
                      SCENE_MAX_COUNT);
    if (coll_is_rooted(s->coll) && (s->root < 0 || s->root >= s->nranks))
        return cv_err(err, errlen, CV_EINVAL, "root %d out of range (0..%d)", s->root,
                      s->nranks - 1);
    if (!algo_supported(s->coll, s->algo)) {
        char have[64] = "";
        for (int a = 0; a < ALGO_COUNT; a++)
            if (algo_supported(s->coll, (enum algo)a)) {
                size_t l = strlen(have);
                snprintf(have + l, sizeof have - l, "%s%s", l ? ", " : "",
                         algo_name((enum algo)a));
            }
        return cv_err(err, errlen, CV_EUNSUPPORTED, "algorithm %s does not exist for %s (%s)",
                      algo_name(s->algo), coll_title(s->coll), have);
    }
    if (s->step < SCENE_STEP_END)
        return cv_err(err, errlen, CV_EINVAL, "step %ld out of range", s->step);
    if (s->ring_n && s->ring_n != s->nranks)
        return cv_err(err, errlen, CV_EINVAL, "the ring order has %d ranks, the scene %d",
                      s->ring_n, s->nranks);
    if (s->meas_bytes < SCENE_MEAS_MIN || s->meas_bytes > SCENE_MEAS_MAX)
        return cv_err(err, errlen, CV_EINVAL, "size %zu bytes out of range (4K..16G)",
                      s->meas_bytes);
    if (!(s->autoplay >= 0 && s->autoplay <= SCENE_AUTOPLAY_MAX))
        return cv_err(err, errlen, CV_EINVAL, "autoplay %g out of range (0..%g seconds a step)",
                      s->autoplay, SCENE_AUTOPLAY_MAX);
    if (s->hl == HL_RANK && (s->hl_index < 0 || s->hl_index >= s->nranks))
        return cv_err(err, errlen, CV_EINVAL, "highlight rank:%d out of range (0..%d)",
                      s->hl_index, s->nranks - 1);
    if ((s->hl == HL_CHUNK || s->hl == HL_TRANSFER) && (s->hl_index < 0 || s->hl_index >= 256))
        return cv_err(err, errlen, CV_EINVAL, "highlight %s:%d out of range (0..255)",
                      highlight_kind_name(s->hl), s->hl_index);
    if (s->slices < 1 || s->slices > SCENE_MAX_SLICES)
        return cv_err(err, errlen, CV_EINVAL, "slices %d out of range (1..%d)", s->slices,
                      SCENE_MAX_SLICES);
    if (s->channels < 1 || s->channels > SCENE_MAX_CHANNELS)
        return cv_err(err, errlen, CV_EINVAL, "channels %d out of range (1..%d)", s->channels,
                      SCENE_MAX_CHANNELS);
    if (s->scheme == TRAIN_SINGLE || s->scheme < 0 || s->scheme >= TRAIN_SCHEME_COUNT)
        return cv_err(err, errlen, CV_EINVAL,
                      "scheme %s: the parallelism screen shows ddp, tp, pp, zero1, zero2, "
                      "zero3 or moe",
                      train_scheme_name(s->scheme));
    if (s->screen == SCREEN_PARALLEL &&
        (s->nranks < SCENE_PAR_MIN_RANKS || s->nranks > SCENE_PAR_MAX_RANKS))
        return cv_err(err, errlen, CV_EINVAL,
                      "ranks %d: the parallelism screen shows %d..%d ranks at display scale",
                      s->nranks, SCENE_PAR_MIN_RANKS, SCENE_PAR_MAX_RANKS);
    if (s->ncounts && s->coll != COLL_ALL_TO_ALL)
        return cv_err(err, errlen, CV_EINVAL,
                      "counts: per-pair counts are all_to_all's, not %s", coll_name(s->coll));
    if (s->ncounts && s->nranks != s->ncounts)
        return cv_err(err, errlen, CV_EINVAL, "ranks %d: the counts matrix has %d rows",
                      s->nranks, s->ncounts);
    for (int i = 0; i < s->ncounts * s->ncounts; i++)
        if (s->counts[i] > SCENE_MAX_COUNT)
            return cv_err(err, errlen, CV_EINVAL, "counts: %zu is over %d (display scale)",
                          s->counts[i], SCENE_MAX_COUNT);
    return CV_OK;
}

/* ring=0,3,1,2: the ring plans' order; ring=none: 0, 1, ..., W-1. */
static int scene_apply_ring(struct scene *s, const char *val, char *err, size_t errlen)
{
    if (strcmp(val, "none") == 0) {
        s->ring_n = 0;
        return CV_OK;
    }
    char why[120];
    if (plan_parse_ring(val, s->ring, &s->ring_n, why, sizeof why) != CV_OK)
        return cv_err(err, errlen, CV_EINVAL, "scene: bad ring '%s' (%s)", val, why);
    return CV_OK;
}

/* counts=1,2;0,3 (all-to-all-v; it sets the ranks) or counts=none. */
static int scene_apply_counts(struct scene *s, const char *val, char *err, size_t errlen)
{
    if (strcmp(val, "none") == 0) {
        s->ncounts = 0;
        return CV_OK;
    }
    char why[200];
    if (plan_parse_counts(val, s->counts, &s->ncounts, why, sizeof why) != CV_OK)
        return cv_err(err, errlen, CV_EINVAL, "scene: %s", why);
    s->nranks = s->ncounts;
    return CV_OK;
}

/* One "key=value" word applied to *s. */
static int scene_apply(struct scene *s, const char *key, const char *val, char *err,
                       size_t errlen)
{
    long l;
    if (strcmp(key, "ring") == 0) return scene_apply_ring(s, val, err, errlen);
    if (strcmp(key, "screen") == 0) {
        if (screen_kind_parse(val, &s->screen) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: unknown screen '%s'", val);
    } else if (strcmp(key, "collective") == 0 || strcmp(key, "coll") == 0) {
        if (coll_parse(val, &s->coll) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: unknown collective '%s'", val);
    } else if (strcmp(key, "algo") == 0) {
        if (algo_parse(val, &s->algo) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: unknown algorithm '%s'", val);
    } else if (strcmp(key, "op") == 0) {
        if (redop_parse(val, &s->op) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: unknown op '%s'", val);
    } else if (strcmp(key, "ranks") == 0) {
        if (parse_long(val, 1, CV_MAX_RANKS, &l) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: bad ranks '%s' (1..%d)", val,
                          CV_MAX_RANKS);
        s->nranks = (int)l;
    } else if (strcmp(key, "count") == 0) {
        if (strcmp(val, "auto") == 0)
            s->count = 0;
        else if (parse_long(val, 1, SCENE_MAX_COUNT, &l) == CV_OK)
            s->count = (size_t)l;
        else
            return cv_err(err, errlen, CV_EINVAL, "scene: bad count '%s' (1..%d or auto)", val,
                          SCENE_MAX_COUNT);
    } else if (strcmp(key, "root") == 0) {
        if (parse_long(val, 0, CV_MAX_RANKS - 1, &l) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: bad root '%s'", val);
        s->root = (int)l;
    } else if (strcmp(key, "init") == 0) {
        if (init_parse(val, &s->init) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: unknown init '%s'", val);
    } else if (strcmp(key, "seed") == 0) {
        if (parse_u64(val, &s->seed) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: bad seed '%s'", val);
    } else if (strcmp(key, "step") == 0) {
        if (strcmp(val, "end") == 0)
            s->step = SCENE_STEP_END;
        else if (parse_long(val, 0, 1L << 20, &l) == CV_OK)
            s->step = l;
        else
            return cv_err(err, errlen, CV_EINVAL, "scene: bad step '%s' (a number or end)",
                          val);
    } else if (strcmp(key, "scheme") == 0) {
        if (train_scheme_parse(val, &s->scheme) != CV_OK || s->scheme == TRAIN_SINGLE)
            return cv_err(err, errlen, CV_EINVAL,
                          "scene: unknown scheme '%s' (ddp, tp, pp, zero1-3, moe)", val);
    } else if (strcmp(key, "schedule") == 0) {
        if (pp_schedule_parse(val, &s->schedule) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: unknown schedule '%s' (gpipe, 1f1b)",
                          val);
    } else if (strcmp(key, "overlap") == 0) {
        if (strcmp(val, "on") == 0 || strcmp(val, "1") == 0 || strcmp(val, "yes") == 0)
            s->overlap = true;
        else if (strcmp(val, "off") == 0 || strcmp(val, "0") == 0 || strcmp(val, "no") == 0)
            s->overlap = false;
        else
            return cv_err(err, errlen, CV_EINVAL, "scene: bad overlap '%s' (on, off)", val);
    } else if (strcmp(key, "size") == 0) {
        size_t b;
        if (parse_size(val, &b) != CV_OK || b < SCENE_MEAS_MIN || b > SCENE_MEAS_MAX)
            return cv_err(err, errlen, CV_EINVAL, "scene: bad size '%s' (4K..16G)", val);
        s->meas_bytes = b;
    } else if (strcmp(key, "autoplay") == 0) {
        double d;
        if (strcmp(val, "on") == 0)
            d = 1.0;
        else if (strcmp(val, "off") == 0)
            d = 0.0;
        else {
            if (parse_double(val, 0, SCENE_AUTOPLAY_MAX, &d) != CV_OK)
                return cv_err(err, errlen, CV_EINVAL,
                              "scene: bad autoplay '%s' (seconds a step 0..%g, on, off)", val,
                              SCENE_AUTOPLAY_MAX);
        }
        s->autoplay = d;
    } else if (strcmp(key, "highlight") == 0) {
        if (strcmp(val, "none") == 0) {
            s->hl = HL_NONE;
            s->hl_index = 0;
            return CV_OK;
        }
        const char *colon = strchr(val, ':');
        int k = -1;
        for (int i = HL_RANK; colon && i < HL_KIND_COUNT; i++)
            if (strlen(hl_names[i]) == (size_t)(colon - val) &&
                strncmp(val, hl_names[i], (size_t)(colon - val)) == 0)
                k = i;
        if (k < 0 || parse_long(colon + 1, 0, 255, &l) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL,
                          "scene: bad highlight '%s' (none, rank:N, chunk:N, transfer:N)", val);
        s->hl = (enum highlight_kind)k;
        s->hl_index = (int)l;
    } else if (strcmp(key, "view") == 0) {
        if (strcmp(val, "chunk") == 0)
            s->slice_view = false;
        else if (strcmp(val, "slice") == 0)
            s->slice_view = true;
        else
            return cv_err(err, errlen, CV_EINVAL, "scene: bad view '%s' (chunk, slice)", val);
    } else if (strcmp(key, "slices") == 0) {
        if (parse_long(val, 1, SCENE_MAX_SLICES, &l) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: bad slices '%s' (1..%d)", val,
                          SCENE_MAX_SLICES);
        s->slices = (int)l;
    } else if (strcmp(key, "channels") == 0) {
        if (parse_long(val, 1, SCENE_MAX_CHANNELS, &l) != CV_OK)
            return cv_err(err, errlen, CV_EINVAL, "scene: bad channels '%s' (1..%d)", val,
                          SCENE_MAX_CHANNELS);
        s->channels = (int)l;
    } else {
        return cv_err(err, errlen, CV_EINVAL, "scene: unknown key '%s'", key);
    }
    return CV_OK;
}

int scene_parse(struct scene *s, const char *text, char *err, size_t errlen)
{
    struct scene t = *s;
    const char *p = text;
    bool algo_set = false, counts_set = false;
    /* each key once, as in a lesson's ```scene block: "ranks=4 ranks=8" says two things */
    char seen[24][16];
    size_t nseen = 0;
    for (;;) {
        p += strspn(p, " \t\n");
        if (!*p) break;
        size_t len = strcspn(p, " \t\n");
        char word[128];
        if (len >= sizeof word)
            return cv_err(err, errlen, CV_EINVAL, "scene: word too long '%.20s...'", p);
        memcpy(word, p, len);
        word[len] = '\0';
        p += len;
        char *eq = strchr(word, '=');
        if (!eq || eq == word || !eq[1])
            return cv_err(err, errlen, CV_EINVAL, "scene: expected key=value, got '%s'", word);
        *eq = '\0';
        const char *key = strcmp(word, "coll") == 0 ? "collective" : word;
        for (size_t i = 0; i < nseen; i++)
            if (strcmp(seen[i], key) == 0)
                return cv_err(err, errlen, CV_EINVAL, "scene: key '%s' given twice", word);
        if (nseen < ARRAY_LEN(seen) && strlen(key) < sizeof seen[0])
            memcpy(seen[nseen++], key, strlen(key) + 1);
        int rc = strcmp(word, "counts") == 0 ? scene_apply_counts(&t, eq + 1, err, errlen)
                                             : scene_apply(&t, word, eq + 1, err, errlen);
        if (rc != CV_OK) return rc;
        if (strcmp(word, "algo") == 0) algo_set = true;
        if (strcmp(word, "counts") == 0) counts_set = true;
    }
    /* Counts belong to the all-to-all they were given for: a scene that moves on to another
     * collective or world size without new counts drops them. */
    if (!counts_set && (t.coll != COLL_ALL_TO_ALL || t.nranks != t.ncounts)) t.ncounts = 0;
    /* "collective=all_to_all" alone means its default algorithm, not an error about the
     * algorithm the previous scene happened to use. */
    if (!algo_set && !algo_supported(t.coll, t.algo)) t.algo = coll_default_algo(t.coll);
    int rc = scene_check(&t, err, errlen);
    if (rc != CV_OK) return rc;
    *s = t;
    return CV_OK;
}

void scene_format(const struct scene *s, char *buf, size_t n)
{
    char count[24], step[24];
    if (s->count)
        snprintf(count, sizeof count, "%zu", s->count);
    else
        snprintf(count, sizeof count, "auto");
    if (s->step == SCENE_STEP_END)
        snprintf(step, sizeof step, "end");
    else
        snprintf(step, sizeof step, "%ld", s->step);
    snprintf(buf, n,
             "screen=%s collective=%s algo=%s op=%s ranks=%d count=%s root=%d init=%s "
             "seed=%llu step=%s",
             screen_kind_name(s->screen), coll_name(s->coll), algo_name(s->algo),
             redop_name(s->op), s->nranks, count, s->root, init_name(s->init),
             (unsigned long long)s->seed, step);
    if (s->screen == SCREEN_PARALLEL || s->scheme != TRAIN_DDP || s->schedule != PP_GPIPE ||
        s->overlap) {
        size_t l = strlen(buf);
        snprintf(buf + l, n > l ? n - l : 0, " scheme=%s schedule=%s overlap=%s",
                 train_scheme_name(s->scheme), pp_schedule_name(s->schedule),
                 s->overlap ? "on" : "off");
    }
    /* size in bytes, exact; the optional fields only when set */
    size_t l = strlen(buf);
    snprintf(buf + l, n > l ? n - l : 0, " size=%zu", s->meas_bytes);
    if (s->autoplay > 0) {
        l = strlen(buf);
        snprintf(buf + l, n > l ? n - l : 0, " autoplay=%g", s->autoplay);
    }
    if (s->hl != HL_NONE) {
        l = strlen(buf);
        snprintf(buf + l, n > l ? n - l : 0, " highlight=%s:%d", highlight_kind_name(s->hl),
                 s->hl_index);
    }
    for (int r = 0; r < s->ncounts; r++)
        for (int c = 0; c < s->ncounts; c++) {
            l = strlen(buf);
            snprintf(buf + l, n > l ? n - l : 0, "%s%zu",
                     r == 0 && c == 0 ? " counts="
                     : c == 0         ? ";"
                                      : ",",
                     s->counts[r * s->ncounts + c]);
        }
    if (s->slice_view || s->slices != SCENE_DEFAULT_SLICES || s->channels != 1) {
        l = strlen(buf);
        snprintf(buf + l, n > l ? n - l : 0, " view=%s slices=%d channels=%d",
                 s->slice_view ? "slice" : "chunk", s->slices, s->channels);
    }
    for (int i = 0; i < s->ring_n; i++) {
        l = strlen(buf);
        snprintf(buf + l, n > l ? n - l : 0, "%s%d", i ? "," : " ring=", s->ring[i]);
    }
}
