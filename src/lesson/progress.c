/* progress.c - a student's progress through the lessons, in a small text file (progress.h).
 *
 * The file, one record a line, keyed by ids only:
 *
 *     collviz-progress 1
 *     lesson allreduce current 3 seen 0,1,2,3
 *     exercise effective-bandwidth lesson allreduce attempts 2 solved 1
 *     mistake effective-bandwidth seed 0 answer 3431392e34
 *
 * A `mistake` line (format version 2) keeps a wrong answer, its bytes in hex (printable
 * ones only), after the exercise's own line; an exercise's distinct wrong answers are one
 * line each, oldest first (version 3 where one has several). A file is written in the
 * oldest version that holds it (no mistake: 1, one an exercise: 2), so an older collviz
 * keeps reading what it can; a newer version it refuses and leaves alone.
 *
 * Lines may end in CR LF. A file of a newer format version ("collviz-progress 2") is no
 * corrupt file: it is refused and left as it is (this collviz keeps no progress then, so it
 * never writes over it). Anything else (a bad line, a bad number, an unknown record, a file
 * too large) makes the whole file corrupt: the player renames it aside (a backup of its
 * own, never over an earlier one) and the student starts afresh, with one line saying
 * where the old file went; a read-only command (lesson list) only says so. */
#include "lesson/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "sys/files.h"
#include "sys/rfile.h"

#define PROGRESS_MAGIC_WORD "collviz-progress"
#define PROGRESS_VERSION 3
#define PROGRESS_MAGIC "collviz-progress 1"
#define PROGRESS_MAX_BYTES ((size_t)1 << 20)
#define PROGRESS_MAX_RECORDS 20000

int progress_default_path(char *buf, size_t n, char *err, size_t errlen)
{
    return files_xdg_path("XDG_STATE_HOME", ".local/state", "/progress", buf, n, err, errlen);
}

void progress_free(struct progress *p)
{
    free(p->lessons);
    free(p->ex);
    p->lessons = NULL;
    p->ex = NULL;
    p->nlessons = p->nex = 0;
}

struct progress_lesson *progress_lesson(struct progress *p, const char *lesson_id, bool create)
{
    for (size_t i = 0; i < p->nlessons; i++)
        if (strcmp(p->lessons[i].id, lesson_id) == 0) return &p->lessons[i];
    if (!create || strlen(lesson_id) >= LESSON_ID_MAX) return NULL;
    p->lessons = xrealloc(p->lessons, (p->nlessons + 1) * sizeof *p->lessons);
    struct progress_lesson *pl = &p->lessons[p->nlessons++];
    memset(pl, 0, sizeof *pl);
    memcpy(pl->id, lesson_id, strlen(lesson_id) + 1);
    return pl;
}

static struct progress_ex *progress_ex_get(struct progress *p, const char *ex_id, bool create)
{
    for (size_t i = 0; i < p->nex; i++)
        if (strcmp(p->ex[i].id, ex_id) == 0) return &p->ex[i];
    if (!create || strlen(ex_id) >= LESSON_ID_MAX) return NULL;
    p->ex = xrealloc(p->ex, (p->nex + 1) * sizeof *p->ex);
    struct progress_ex *e = &p->ex[p->nex++];
    memset(e, 0, sizeof *e);
    memcpy(e->id, ex_id, strlen(ex_id) + 1);
    return e;
}

void progress_visit(struct progress *p, const char *lesson_id, size_t slide)
{
    struct progress_lesson *pl = progress_lesson(p, lesson_id, true);
    if (!pl || slide >= LESSON_MAX_SLIDES) return;
    /* The last visited lesson goes last: the file keeps the order, so the list of lessons
     * can open with the cursor on it, in every version of the file format. */
    size_t i = (size_t)(pl - p->lessons);
    if (i + 1 < p->nlessons) {
        struct progress_lesson keep = *pl;
        memmove(pl, pl + 1, (p->nlessons - i - 1) * sizeof *pl);
        p->lessons[p->nlessons - 1] = keep;
        pl = &p->lessons[p->nlessons - 1];
    }
    pl->current = (int)slide;
    pl->seen[slide / 8] |= (unsigned char)(1u << (slide % 8));
}

const char *progress_last_lesson(const struct progress *p)
{
    return p->nlessons ? p->lessons[p->nlessons - 1].id : NULL;
}

bool progress_seen(const struct progress_lesson *pl, size_t slide)
{
    return pl && slide < LESSON_MAX_SLIDES && (pl->seen[slide / 8] >> (slide % 8)) & 1u;
}

size_t progress_seen_count(const struct progress_lesson *pl)
{
    size_t n = 0;
    for (size_t i = 0; pl && i < LESSON_MAX_SLIDES; i++)
        n += progress_seen(pl, i);
    return n;
}

void progress_attempt(struct progress *p, const char *lesson_id, const char *ex_id, bool right)
{
    struct progress_ex *e = progress_ex_get(p, ex_id, true);
    if (!e) return;
    if (lesson_id && strlen(lesson_id) < LESSON_ID_MAX)
        memcpy(e->lesson, lesson_id, strlen(lesson_id) + 1);
    if (e->attempts < 1000000) e->attempts++;
    if (right) e->solved = true;
}

void progress_mistake(struct progress *p, const char *lesson_id, const char *ex_id,
                      const char *answer, unsigned long long seed)
{
    struct progress_ex *e = progress_ex_get(p, ex_id, true);
    if (!e) return;
    if (lesson_id && strlen(lesson_id) < LESSON_ID_MAX)
        memcpy(e->lesson, lesson_id, strlen(lesson_id) + 1);
    struct progress_try t = {.seed = seed};
    size_t k = 0;
    for (; answer[k] && k + 1 < sizeof t.answer; k++) {
        unsigned char ch = (unsigned char)answer[k];
        t.answer[k] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    while (k > 0 && ((unsigned char)t.answer[k - 1] & 0xC0) == 0x80) /* whole characters */
        k--;
    if (k > 0 && ((unsigned char)t.answer[k - 1] & 0xC0) == 0xC0) k--;
    t.answer[k] = '\0';
    /* the same answer at the same numbers again: one try, now the latest */
    size_t i = 0;
    while (i < e->ntries &&
           !(e->tries[i].seed == seed && strcmp(e->tries[i].answer, t.answer) == 0))
        i++;
    if (i == e->ntries && e->ntries == PROGRESS_TRIES) i = 0; /* full: the oldest goes */
    if (i < e->ntries) {
        memmove(&e->tries[i], &e->tries[i + 1], (e->ntries - i - 1) * sizeof t);
        e->ntries--;
    }
    e->tries[e->ntries++] = t;
}

const struct progress_try *progress_last_try(const struct progress_ex *e)
{
    return e && e->ntries ? &e->tries[e->ntries - 1] : NULL;
}

void progress_forget(struct progress *p, const char *lesson_id, size_t *lessons,
                     size_t *exercises)
{
    size_t nl = 0, ne = 0, k = 0;
    for (size_t i = 0; i < p->nlessons; i++)
        if (!lesson_id || strcmp(p->lessons[i].id, lesson_id) == 0)
            nl++;
        else
            p->lessons[k++] = p->lessons[i];
    p->nlessons = k;
    k = 0;
    for (size_t i = 0; i < p->nex; i++)
        if (!lesson_id || strcmp(p->ex[i].lesson, lesson_id) == 0)
            ne++;
        else
            p->ex[k++] = p->ex[i];
    p->nex = k;
    if (lessons) *lessons = nl;
    if (exercises) *exercises = ne;
}

const struct progress_ex *progress_exercise(const struct progress *p, const char *ex_id)
{
    for (size_t i = 0; i < p->nex; i++)
        if (strcmp(p->ex[i].id, ex_id) == 0) return &p->ex[i];
    return NULL;
}

bool progress_solved(const struct progress *p, const char *ex_id)
{
    const struct progress_ex *e = progress_exercise(p, ex_id);
    return e && e->solved;
}

size_t progress_solved_count(const struct progress *p, const char *lesson_id)
{
    size_t n = 0;
    for (size_t i = 0; i < p->nex; i++)
        if (p->ex[i].solved && strcmp(p->ex[i].lesson, lesson_id) == 0) n++;
    return n;
}

/* ---- reading ---------------------------------------------------------------------------- */

static bool id_ok(const char *s)
{
    if (!*s || strlen(s) >= LESSON_ID_MAX) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-')) return false;
    return true;
}

/* A mistake line's fields: the exercise (its line came first), the seed, the answer in hex
 * (printable bytes only). */
static bool parse_mistake(struct progress *p, const char *id, const char *seed, const char *hex,
                          char *why, size_t whylen)
{
    struct progress_ex *e = id_ok(id) ? progress_ex_get(p, id, false) : NULL;
    size_t n = strlen(hex);
    char *end;
    errno = 0;
    unsigned long long s = strtoull(seed, &end, 10);
    if (!e || e->ntries == PROGRESS_TRIES) {
        snprintf(why, whylen, "a mistake of no exercise line, or one too many");
        return false;
    }
    struct progress_try *t = &e->tries[e->ntries];
    if (errno || *end || end == seed || seed[0] == '-' || n == 0 || n % 2 ||
        n / 2 >= sizeof t->answer) {
        snprintf(why, whylen, "bad mistake seed or answer");
        return false;
    }
    for (size_t i = 0; i < n; i += 2) {
        unsigned v = 0;
        for (size_t j = i; j < i + 2; j++) {
            char c = hex[j];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) {
                snprintf(why, whylen, "bad hex in a mistake's answer");
                return false;
            }
            v = v * 16 + (unsigned)d;
        }
        if (v < 0x20 || v == 0x7f) {
            snprintf(why, whylen, "a control byte in a mistake's answer");
            return false;
        }
        t->answer[i / 2] = (char)v;
    }
    t->answer[n / 2] = '\0';
    t->seed = s;
    e->ntries++;
    return true;
}

/* One line into p; false (with why) when it does not parse. */
static bool parse_record(struct progress *p, char *line, char *why, size_t whylen)
{
    char *save = NULL;
    char *w[10];
    int n = 0;
    for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (n == 10) {
            snprintf(why, whylen, "too many fields");
            return false;
        }
        w[n++] = t;
    }
    long v;
    if (n == 6 && strcmp(w[0], "lesson") == 0 && strcmp(w[2], "current") == 0 &&
        strcmp(w[4], "seen") == 0) {
        if (!id_ok(w[1]) || progress_lesson(p, w[1], false)) {
            snprintf(why, whylen, "bad or repeated lesson id");
            return false;
        }
        if (parse_long(w[3], 0, LESSON_MAX_SLIDES - 1, &v) != CV_OK) {
            snprintf(why, whylen, "bad current slide '%.20s'", w[3]);
            return false;
        }
        struct progress_lesson *pl = progress_lesson(p, w[1], true);
        pl->current = (int)v;
        if (strcmp(w[5], "-") != 0) {
            char *s2 = NULL;
            for (char *t = strtok_r(w[5], ",", &s2); t; t = strtok_r(NULL, ",", &s2)) {
                if (parse_long(t, 0, LESSON_MAX_SLIDES - 1, &v) != CV_OK) {
                    snprintf(why, whylen, "bad slide number '%.20s'", t);
                    return false;
                }
                pl->seen[v / 8] |= (unsigned char)(1u << (v % 8));
            }
        }
        return true;
    }
    if (n == 8 && strcmp(w[0], "exercise") == 0 && strcmp(w[2], "lesson") == 0 &&
        strcmp(w[4], "attempts") == 0 && strcmp(w[6], "solved") == 0) {
        if (!id_ok(w[1]) || !id_ok(w[3]) || progress_exercise(p, w[1])) {
            snprintf(why, whylen, "bad or repeated exercise id");
            return false;
        }
        long a, s;
        if (parse_long(w[5], 0, 1000000, &a) != CV_OK || parse_long(w[7], 0, 1, &s) != CV_OK) {
            snprintf(why, whylen, "bad attempts or solved");
            return false;
        }
        struct progress_ex *e = progress_ex_get(p, w[1], true);
        memcpy(e->lesson, w[3], strlen(w[3]) + 1);
        e->attempts = (int)a;
        e->solved = s == 1;
        return true;
    }
    if (n == 6 && strcmp(w[0], "mistake") == 0 && strcmp(w[2], "seed") == 0 &&
        strcmp(w[4], "answer") == 0)
        return parse_mistake(p, w[1], w[3], w[5], why, whylen);
    snprintf(why, whylen, "not a progress record");
    return false;
}

/* Parse buf (NUL-terminated, n bytes); false with the line and why, or with *newer set to
 * the version of a file a newer collviz wrote. */
static bool parse_file(struct progress *p, char *buf, size_t n, int *bad_line, int *newer,
                       char *why, size_t whylen)
{
    if (strlen(buf) != n) {
        *bad_line = 1;
        snprintf(why, whylen, "NUL byte");
        return false;
    }
    char *line = buf;
    int no = 0;
    size_t records = 0;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r') line[len - 1] = '\0'; /* CR LF */
        no++;
        *bad_line = no;
        if (no == 1) {
            long v;
            const char *w = PROGRESS_MAGIC_WORD " ";
            if (strncmp(line, w, strlen(w)) == 0 &&
                parse_long(line + strlen(w), PROGRESS_VERSION + 1, 1000000, &v) == CV_OK) {
                *newer = (int)v;
                return false;
            }
            if (strncmp(line, w, strlen(w)) != 0 ||
                parse_long(line + strlen(w), 1, PROGRESS_VERSION, &v) != CV_OK) {
                snprintf(why, whylen, "first line is not '%s'", PROGRESS_MAGIC);
                return false;
            }
        } else if (*line) {
            if (++records > PROGRESS_MAX_RECORDS) {
                snprintf(why, whylen, "too many records");
                return false;
            }
            if (!parse_record(p, line, why, whylen)) return false;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (no == 0) {
        *bad_line = 1;
        snprintf(why, whylen, "empty file");
        return false;
    }
    return true;
}

/* Move the corrupt file at path aside to path.corrupt-<time> (-2, -3, ... when that name is
 * taken: a backup never replaces another). 0, or -1 with errno. */
static int set_aside(const char *path, char *aside, size_t n)
{
    long long t = (long long)time(NULL);
    for (int k = 1; k <= 1000; k++) {
        if (k == 1)
            snprintf(aside, n, "%s.corrupt-%lld", path, t);
        else
            snprintf(aside, n, "%s.corrupt-%lld-%d", path, t, k);
        /* link() fails with EEXIST where rename() would replace */
        if (link(path, aside) == 0) return unlink(path);
        if (errno == EEXIST) continue;
        /* a file system without hard links: rename, to a name nothing holds */
        if (access(aside, F_OK) == 0) continue;
        return rename(path, aside);
    }
    errno = EEXIST;
    return -1;
}

/* Read path into p: CV_OK (a missing file is an empty progress), or CV_EINVAL with *what
 * the warning's words and *corrupt telling a corrupt file from a newer one. */
static int progress_read(struct progress *p, const char *path, char *what, size_t whatlen,
                         bool *corrupt)
{
    *corrupt = false;
    char why[120] = "";
    int fd = rfile_open(path, why, sizeof why);
    if (fd < 0 && errno == ENOENT) return CV_OK; /* no file yet: nothing done */
    int bad_line = 0, newer = 0;
    bool ok = false;
    char *buf = NULL;
    struct stat st;
    if (fd < 0) {
        /* not a regular file, or not readable: why says which */
    } else if (fstat(fd, &st) != 0 || (size_t)st.st_size > PROGRESS_MAX_BYTES) {
        snprintf(why, sizeof why, "larger than %zu bytes", PROGRESS_MAX_BYTES);
    } else {
        buf = xmalloc(PROGRESS_MAX_BYTES + 1);
        size_t n = 0;
        for (;;) {
            ssize_t k = read(fd, buf + n, PROGRESS_MAX_BYTES - n);
            if (k < 0 && errno == EINTR) continue;
            if (k <= 0) break;
            n += (size_t)k;
            if (n == PROGRESS_MAX_BYTES) break;
        }
        buf[n] = '\0';
        ok = parse_file(p, buf, n, &bad_line, &newer, why, sizeof why);
    }
    if (fd >= 0) close(fd);
    free(buf);
    if (ok) return CV_OK;
    progress_free(p);
    if (newer)
        return cv_err(what, whatlen, CV_EINVAL,
                      "progress file %s is format version %d, from a newer collviz (this one "
                      "reads version %d): left as it is, progress is not kept",
                      path, newer, PROGRESS_VERSION);
    *corrupt = true;
    /* a fault of the whole file (not a regular file, too large) has no line to name */
    if (bad_line > 0) return cv_err(what, whatlen, CV_EINVAL, "line %d: %s", bad_line, why);
    return cv_err(what, whatlen, CV_EINVAL, "%s", why);
}

/* What peek and load share: p emptied and named, the file read. CV_OK when it was read;
 * CV_EINVAL with warn set for a fault that is not the file's contents (*corrupt false);
 * -1 with what set when the contents are corrupt. */
static int progress_open(struct progress *p, const char *path, char *what, size_t whatlen,
                         char *warn, size_t warnlen)
{
    memset(p, 0, sizeof *p);
    if (warn && warnlen) warn[0] = '\0';
    if (strlen(path) >= sizeof p->path)
        return cv_err(warn, warnlen, CV_EINVAL, "progress path too long");
    memcpy(p->path, path, strlen(path) + 1);
    bool corrupt;
    if (progress_read(p, path, what, whatlen, &corrupt) == CV_OK) return CV_OK;
    if (!corrupt) return cv_err(warn, warnlen, CV_EINVAL, "%s", what);
    return -1;
}

int progress_peek(struct progress *p, const char *path, char *warn, size_t warnlen)
{
    char what[400];
    int rc = progress_open(p, path, what, sizeof what, warn, warnlen);
    if (rc != -1) return rc;
    return cv_err(warn, warnlen, CV_EINVAL,
                  "progress file %s is corrupt (%s); left as it is (the player sets it aside)",
                  path, what);
}

int progress_load(struct progress *p, const char *path, char *warn, size_t warnlen)
{
    char what[400];
    int rc = progress_open(p, path, what, sizeof what, warn, warnlen);
    if (rc != -1) return rc;
    char aside[4096 + 48];
    if (set_aside(path, aside, sizeof aside) == 0) {
        if (warn)
            snprintf(warn, warnlen,
                     "progress file %s is corrupt (%s); moved to %s, starting afresh", path,
                     what, aside);
    } else if (warn) {
        snprintf(warn, warnlen,
                 "progress file %s is corrupt (%s) and could not be moved aside (%s); "
                 "starting afresh",
                 path, what, strerror(errno));
    }
    return CV_OK;
}

/* ---- writing ---------------------------------------------------------------------------- */

/* mkdir -p of the folder part of path (mode 0700 for the folders it makes). */
static int mkdir_parents(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return CV_OK;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return cv_err(err, errlen, CV_EINVAL, "cannot create %s: %s", dir, strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return cv_err(err, errlen, CV_EINVAL, "cannot create %s: %s", dir, strerror(errno));
    return CV_OK;
}

int progress_save(const struct progress *p, char *err, size_t errlen)
{
    if (!p->path[0]) return cv_err(err, errlen, CV_EINVAL, "no progress path");
    int rc = mkdir_parents(p->path, err, errlen);
    if (rc != CV_OK) return rc;
    /* the text, built in memory first */
    size_t cap = 256 + p->nlessons * 1024 + p->nex * (200 + PROGRESS_TRIES * 200), n = 0;
    char *buf = xmalloc(cap);
    int version = 1; /* the oldest that holds it */
    for (size_t i = 0; i < p->nex; i++)
        if (p->ex[i].ntries) version = p->ex[i].ntries > 1 || version == 3 ? 3 : 2;
    n += (size_t)snprintf(buf, cap, "%s %d\n", PROGRESS_MAGIC_WORD, version);
    for (size_t i = 0; i < p->nlessons; i++) {
        const struct progress_lesson *pl = &p->lessons[i];
        n += (size_t)snprintf(buf + n, cap - n, "lesson %s current %d seen ", pl->id,
                              pl->current);
        bool any = false;
        for (size_t s = 0; s < LESSON_MAX_SLIDES; s++)
            if (progress_seen(pl, s)) {
                n += (size_t)snprintf(buf + n, cap - n, "%s%zu", any ? "," : "", s);
                any = true;
            }
        n += (size_t)snprintf(buf + n, cap - n, "%s\n", any ? "" : "-");
    }
    for (size_t i = 0; i < p->nex; i++) {
        const struct progress_ex *e = &p->ex[i];
        n += (size_t)snprintf(buf + n, cap - n, "exercise %s lesson %s attempts %d solved %d\n",
                              e->id, e->lesson[0] ? e->lesson : "unknown", e->attempts,
                              e->solved ? 1 : 0);
        for (size_t t = 0; t < e->ntries; t++) {
            n += (size_t)snprintf(buf + n, cap - n, "mistake %s seed %llu answer ", e->id,
                                  e->tries[t].seed);
            for (const char *c = e->tries[t].answer; *c; c++)
                n += (size_t)snprintf(buf + n, cap - n, "%02x", (unsigned char)*c);
            n += (size_t)snprintf(buf + n, cap - n, "\n");
        }
    }
    rc = files_save(p->path, buf, n, err, errlen);
    free(buf);
    return rc;
}
