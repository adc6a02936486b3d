/* recfile.c - read a record from disk into a rec_log (see recfile.h): a file, a gzipped
 * file, or a folder of them, streamed a block at a time (memory grows with what the reader
 * keeps, not with the text). */
#include "records/recfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/util.h"
#include "sys/rfile.h"

#define BLOCK ((size_t)1 << 20)

/* One source of bytes: a plain descriptor or zlib's reader. */
struct src {
    int fd;
    gzFile gz;
};

static long src_read(struct src *s, char *buf, size_t n)
{
    if (s->gz) {
        int r = gzread(s->gz, buf, (unsigned)n);
        return r;
    }
    for (;;) {
        ssize_t r = read(s->fd, buf, n);
        if (r < 0 && errno == EINTR) continue;
        return (long)r;
    }
}

static bool is_gzip(int fd)
{
    unsigned char m[2];
    ssize_t r = pread(fd, m, 2, 0);
    return r == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* Feed the file's lines to the parser: whole lines from each block, the rest carried. */
static int read_one(struct rec_log *L, const char *path, int fd, char *err, size_t errlen)
{
    struct src s = {.fd = fd};
    if (is_gzip(fd)) {
        int d = dup(fd);
        s.gz = d >= 0 ? gzdopen(d, "rb") : NULL;
        if (!s.gz) {
            if (d >= 0) close(d);
            return snprintf(err, errlen, "cannot read: gzip: out of memory"), -1;
        }
        gzbuffer(s.gz, 1 << 17);
    }
    size_t cap = BLOCK + REC_MAX_LINE + 2, have = 0, total = 0;
    char *buf = xmalloc(cap);
    bool skipping = false; /* inside a line over REC_MAX_LINE, reported already */
    int rc = 0, lastc = '\n';
    rec_parse_begin(L, path);
    for (;;) {
        long r = src_read(&s, buf + have, cap - have);
        if (r < 0) {
            int e = 0;
            snprintf(err, errlen, "cannot read: %s",
                     s.gz ? gzerror(s.gz, &e) : strerror(errno));
            rc = -1;
            break;
        }
        if (r > 0) lastc = (unsigned char)buf[have + (size_t)r - 1];
        total += (size_t)r;
        have += (size_t)r;
        if (total > REC_MAX_BYTES) {
            snprintf(err, errlen, "larger than %zu MiB: not read", REC_MAX_BYTES >> 20);
            rc = -1;
            break;
        }
        bool eof = r == 0;
        size_t from = 0;
        if (skipping) { /* the rest of a line too long, reported already */
            char *e = memchr(buf, '\n', have);
            from = e ? (size_t)(e - buf) + 1 : have;
            skipping = !e;
        }
        char *nl = have > from ? memrchr(buf + from, '\n', have - from) : NULL;
        size_t upto = eof ? have : nl ? (size_t)(nl - buf) + 1 : from;
        if (upto == from && have - from > REC_MAX_LINE) { /* no end to this line in sight */
            upto = have;
            skipping = true;
        }
        if (upto > from) rec_parse_lines(L, buf + from, upto - from);
        memmove(buf, buf + upto, have - upto);
        have -= upto;
        if (eof) break;
    }
    bool nl_end = lastc == '\n';
    int got = rec_parse_end(L, nl_end);
    free(buf);
    /* zlib hands back what it could inflate of a cut archive, then says Z_BUF_ERROR */
    bool short_gz = false;
    if (s.gz) {
        int e = Z_OK;
        gzerror(s.gz, &e);
        short_gz = rc == 0 && e == Z_BUF_ERROR;
        gzclose(s.gz);
    }
    if (short_gz && got == 0)
        return snprintf(err, errlen, "the gzip data ends early (cut?): nothing could be read"),
               -1;
    if (short_gz) rec_note_cut(L, "%s: the gzip data ends early (cut?)", path);
    return rc < 0 ? -1 : got;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder: every regular file in it, in name order, as one record (one file per rank or
 * node). */
static int read_dir(struct rec_log *L, const char *path, char *err, size_t errlen)
{
    DIR *d = opendir(path);
    if (!d) return snprintf(err, errlen, "cannot open: %s", strerror(errno)), -1;
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (n % 64 == 0) names = xrealloc(names, (n + 64) * sizeof *names);
        names[n++] = xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    int got = 0, files = 0;
    for (size_t i = 0; i < n; i++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", path, names[i]);
        struct stat st;
        /* a folder's own entries only: no link followed, nothing that is not a file */
        int fd = lstat(p, &st) == 0 && S_ISREG(st.st_mode) ? rfile_open(p, NULL, 0) : -1;
        if (fd >= 0) {
            char e2[200];
            int r = read_one(L, p, fd, e2, sizeof e2);
            if (r < 0)
                rec_note_error(L, "%s: %s", p, e2);
            else
                got += r, files++;
        }
        if (fd >= 0) close(fd);
        free(names[i]);
    }
    free(names);
    if (!files) return snprintf(err, errlen, "a folder with no file that could be read"), -1;
    return got;
}

/* A digest of the file's text (gunzipped where it is gzip): its length and two 64-bit
 * hashes (FNV-1a, and FNV-1a of other bases); false when it cannot be read whole. */
static bool digest(const char *path, struct rec_read *r)
{
    struct stat st;
    int fd = rfile_open(path, NULL, 0);
    if (fd < 0) return false;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* a pipe is read once, by the reader */
        close(fd);
        return false;
    }
    struct src s = {.fd = fd};
    if (is_gzip(fd)) {
        int d = dup(fd);
        s.gz = d >= 0 ? gzdopen(d, "rb") : NULL;
        if (!s.gz) {
            if (d >= 0) close(d);
            close(fd);
            return false;
        }
    }
    unsigned long long a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL, len = 0;
    char *buf = xmalloc(BLOCK);
    long n;
    while ((n = src_read(&s, buf, BLOCK)) > 0 && len <= REC_MAX_BYTES) {
        for (long i = 0; i < n; i++) {
            a = (a ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
            b = (b ^ (unsigned char)buf[i]) * 0x1000193ULL + 0x9e3779b97f4a7c15ULL;
        }
        len += (unsigned long long)n;
    }
    free(buf);
    if (s.gz) gzclose(s.gz);
    close(fd);
    *r = (struct rec_read){.path = r->path, .digested = n == 0, .len = len, .h = {a, b}};
    return r->digested;
}

/* Whether the file at path holds the text of one read before (a copy, or its .gz): its
 * first such one, else NULL. Files are digested only once a second one is read. */
static const char *copy_of(struct rec_log *L, const char *path)
{
    struct rec_read me = {0};
    if (!L->nread || !digest(path, &me)) return NULL;
    for (int i = 0; i < L->nread; i++) {
        struct rec_read *r = &L->read[i];
        if (!r->digested && !digest(r->path, r)) continue;
        if (r->len == me.len && r->h[0] == me.h[0] && r->h[1] == me.h[1]) return r->path;
    }
    return NULL;
}

bool rec_same_text(const char *a, const char *b)
{
    struct rec_read x = {0}, y = {0};
    return digest(a, &x) && digest(b, &y) && x.len == y.len && x.h[0] == y.h[0] &&
           x.h[1] == y.h[1];
}

int rec_read_file(struct rec_log *L, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return read_dir(L, path, err, errlen);
    int fd = rfile_open(path, err, errlen);
    if (fd < 0) return -1;
    const char *same = copy_of(L, path);
    if (same) { /* one text given twice would be counted twice */
        rec_note(L, "%s is the same record as %s: read once", path, same);
        close(fd);
        return 0;
    }
    L->read = xrealloc(L->read, (size_t)(L->nread + 1) * sizeof *L->read);
    L->read[L->nread++] = (struct rec_read){.path = xstrdup(path)};
    int n = read_one(L, path, fd, err, errlen);
    close(fd);
    return n;
}
