/* position.c - the presenter's saved position, export folder and slide look-ups (position.h).
 */
#include "present/position.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "sys/files.h"
#include "sys/rfile.h"

#define PSTATE_MAGIC "collviz-present 1"

int position_path(const char *deck_path, const char *name, char *buf, size_t n, char *err,
                  size_t errlen)
{
    char real[PATH_MAX];
    if (!realpath(deck_path, real))
        return cv_err(err, errlen, CV_EINVAL, "%s: %s", deck_path, strerror(errno));
    uint64_t h = 1469598103934665603ull; /* FNV-1a: a short stable name per deck and name */
    for (const char *p = real; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ 0u) * 1099511628211ull; /* a separator no path holds */
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    char sub[64];
    snprintf(sub, sizeof sub, "/present-%016llx.pos", (unsigned long long)h);
    return files_xdg_path("XDG_STATE_HOME", ".local/state", sub, buf, n, err, errlen);
}

int position_export_dir(const char *dir_opt, char *buf, size_t n, char *err, size_t errlen)
{
    const char *env = getenv("COLLVIZ_EXPORT_DIR");
    const char *d = dir_opt && dir_opt[0] ? dir_opt : env && env[0] ? env : NULL;
    if (d) {
        if (snprintf(buf, n, "%s", d) >= (int)n)
            return cv_err(err, errlen, CV_EINVAL, "export folder: path too long");
        return CV_OK;
    }
    return files_xdg_path("XDG_DATA_HOME", ".local/share", "/exports", buf, n, err, errlen);
}

int position_mkdirs(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return cv_err(err, errlen, CV_EINVAL, "%s: path too long", path);
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return cv_err(err, errlen, CV_EINVAL, "cannot create %s: %s", dir, strerror(errno));
        *p = c;
        if (!c) break;
    }
    return CV_OK;
}

/* "key value" lines; unknown keys are skipped (a newer version's file still loads). */
int position_load(const char *file, struct position *st, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    char why[120] = "cannot read it";
    int fd = rfile_open(file, why, sizeof why); /* a FIFO in its place must not hang */
    if (fd < 0 && errno == ENOENT) return cv_err(err, errlen, CV_EUNAVAIL, "no saved position");
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return cv_err(err, errlen, CV_EINVAL, "%s: %s", file, why);
    }
    char line[512];
    int ln = 0, rc = CV_OK;
    while (rc == CV_OK && fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\r\n")] = '\0';
        if (ln == 1) {
            if (strcmp(line, PSTATE_MAGIC) != 0)
                rc = cv_err(err, errlen, CV_EINVAL, "%s:1: not a presenter position", file);
            continue;
        }
        char *v = strchr(line, ' ');
        if (!v) continue;
        *v++ = '\0';
        char *end = NULL;
        long x = strtol(v, &end, 10);
        bool num = end != v && *end == '\0';
        if (strcmp(line, "lesson") == 0)
            snprintf(st->lesson, sizeof st->lesson, "%s", v);
        else if (strcmp(line, "title") == 0)
            snprintf(st->title, sizeof st->title, "%s", v);
        else if (!num)
            continue;
        else if (strcmp(line, "slide") == 0 && x >= 0)
            st->slide = x;
        else if (strcmp(line, "page") == 0 && x >= 0 && x < 100000)
            st->page = (int)x;
        else if (strcmp(line, "step") == 0 && x >= 0)
            st->step = x;
        else if (strcmp(line, "elapsed") == 0 && x >= 0)
            st->elapsed_s = x;
        else if (strcmp(line, "zoom") == 0 && x >= 0 && x < 100)
            st->zoom = (int)x;
    }
    if (rc == CV_OK && ln == 0) rc = cv_err(err, errlen, CV_EINVAL, "%s: empty", file);
    fclose(f);
    return rc;
}

int position_save(const char *file, const struct position *st, char *err, size_t errlen)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", file);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        int rc = position_mkdirs(dir, err, errlen);
        if (rc != CV_OK) return rc;
    }
    /* Titles and ids never hold a newline (lesson.h), so one line each. */
    char text[2 * 4096 + 256];
    int k = snprintf(
        text, sizeof text,
        "%s\nlesson %s\ntitle %s\nslide %ld\npage %d\nstep %ld\nelapsed %ld\nzoom %d\n",
        PSTATE_MAGIC, st->lesson, st->title, st->slide, st->page, st->step, st->elapsed_s,
        st->zoom);
    if (k < 0 || (size_t)k >= sizeof text)
        return cv_err(err, errlen, CV_EINVAL, "cannot write %s: too long", file);
    return files_save(file, text, (size_t)k, err, errlen);
}

static size_t dist(size_t a, size_t b)
{
    return a > b ? a - b : b - a;
}

size_t position_find(const struct position_key *k, size_t n, const char *lesson,
                     const char *title, size_t old)
{
    size_t best = n, best_lesson = n;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(k[i].lesson, lesson) != 0) continue;
        if (best_lesson == n || dist(i, old) < dist(best_lesson, old)) best_lesson = i;
        if (strcmp(k[i].title, title) == 0 && (best == n || dist(i, old) < dist(best, old)))
            best = i;
    }
    if (best < n) return best;
    if (best_lesson < n) return best_lesson;
    return old < n ? old : n - 1;
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t m = strlen(needle);
    if (m == 0) return true;
    for (; *hay; hay++) {
        size_t j = 0;
        while (j < m && hay[j] &&
               tolower((unsigned char)hay[j]) == tolower((unsigned char)needle[j]))
            j++;
        if (j == m) return true;
    }
    return false;
}

bool position_search(const struct position_key *k, size_t n, size_t from, const char *what,
                     size_t *out)
{
    for (size_t d = 1; d <= n; d++) {
        size_t i = (from + d) % n;
        if (contains_nocase(k[i].title, what)) {
            *out = i;
            return true;
        }
    }
    return false;
}
