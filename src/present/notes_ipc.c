/* notes_ipc.c - framing, validation, the private socket directory, the presenter's
 * non-blocking server and the notes terminal's connection (see notes_ipc.h). */
#include "present/notes_ipc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "sys/usock.h"
#include "core/util.h"

void notes_copy(char *dst, size_t n, const char *src)
{
    if (n == 0) return;
    size_t len = strlen(src);
    if (len >= n) {
        len = n - 1;
        /* Do not end inside a multi-byte character: back up to its first byte. */
        while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
            len--;
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
}

int notes_encode(const struct notes_state *st, char **out, size_t *len, char *err,
                 size_t errlen)
{
    *out = NULL;
    *len = 0;
    cJSON *o = cJSON_CreateObject();
    if (!o) util_fatal("out of memory (notes message)");
    cJSON_AddNumberToObject(o, "v", 1);
    cJSON_AddStringToObject(o, "lesson", st->lesson);
    cJSON_AddNumberToObject(o, "slide", st->slide);
    cJSON_AddNumberToObject(o, "nslides", st->nslides);
    cJSON_AddStringToObject(o, "title", st->title);
    cJSON_AddStringToObject(o, "note", st->note);
    cJSON_AddStringToObject(o, "next", st->next);
    cJSON_AddNumberToObject(o, "elapsed", (double)st->elapsed_s);
    cJSON_AddBoolToObject(o, "blanked", st->blanked);
    if (st->answer[0]) cJSON_AddStringToObject(o, "answer", st->answer);
    if (st->keys[0]) cJSON_AddStringToObject(o, "keys", st->keys);
    if (st->minutes) cJSON_AddNumberToObject(o, "minutes", st->minutes);
    if (st->status[0]) cJSON_AddStringToObject(o, "status", st->status);
    if (st->backend[0]) cJSON_AddStringToObject(o, "backend", st->backend);
    if (st->work[0]) cJSON_AddStringToObject(o, "work", st->work);
    if (st->demo) cJSON_AddBoolToObject(o, "demo", true);
    if (st->narr[0]) cJSON_AddStringToObject(o, "narration", st->narr);
    char *json = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!json) util_fatal("out of memory (notes message)");
    size_t n = strlen(json);
    if (n > NOTES_PAYLOAD_MAX) {
        cJSON_free(json);
        return cv_err(err, errlen, CV_EINVAL, "notes: message of %zu bytes is over %d", n,
                      NOTES_PAYLOAD_MAX);
    }
    unsigned char *f = xmalloc(NOTES_HDR + n);
    memcpy(f, NOTES_MAGIC, 4);
    f[4] = (unsigned char)(n >> 24);
    f[5] = (unsigned char)(n >> 16);
    f[6] = (unsigned char)(n >> 8);
    f[7] = (unsigned char)n;
    memcpy(f + NOTES_HDR, json, n);
    cJSON_free(json);
    *out = (char *)f;
    *len = NOTES_HDR + n;
    return CV_OK;
}

static int notes_get_str(const cJSON *o, const char *key, char *dst, size_t n, char *err,
                         size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v) || !v->valuestring)
        return cv_err(err, errlen, CV_EINVAL, "notes: field '%s' missing or not a string", key);
    if (strlen(v->valuestring) >= n)
        return cv_err(err, errlen, CV_EINVAL, "notes: field '%s' longer than %zu bytes", key,
                      n - 1);
    snprintf(dst, n, "%s", v->valuestring);
    return CV_OK;
}

static int notes_get_int(const cJSON *o, const char *key, long lo, long hi, long *out,
                         char *err, size_t errlen)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        return cv_err(err, errlen, CV_EINVAL, "notes: field '%s' missing or not a number", key);
    double d = v->valuedouble;
    if (!(d >= (double)lo && d <= (double)hi) || d != (double)(long)d)
        return cv_err(err, errlen, CV_EINVAL,
                      "notes: field '%s' = %g is not an integer in %ld..%ld", key, d, lo, hi);
    *out = (long)d;
    return CV_OK;
}

int notes_decode(const char *payload, size_t len, struct notes_state *st, char *err,
                 size_t errlen)
{
    if (len > NOTES_PAYLOAD_MAX)
        return cv_err(err, errlen, CV_EINVAL, "notes: payload of %zu bytes is over %d", len,
                      NOTES_PAYLOAD_MAX);
    if (memchr(payload, '\0', len))
        return cv_err(err, errlen, CV_EINVAL, "notes: payload contains a NUL byte");
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(payload, len, &end, 0);
    if (!o) return cv_err(err, errlen, CV_EINVAL, "notes: payload is not valid JSON");
    int rc = CV_OK;
    long v = 0, slide = 0, nslides = 0, elapsed = 0;
    struct notes_state *t = xcalloc(1, sizeof *t);
    if (!cJSON_IsObject(o)) {
        rc = cv_err(err, errlen, CV_EINVAL, "notes: payload is not a JSON object");
        goto out;
    }
    if (end && (size_t)(end - payload) < len) {
        rc = cv_err(err, errlen, CV_EINVAL, "notes: bytes after the JSON object");
        goto out;
    }
    if ((rc = notes_get_int(o, "v", 0, 1000, &v, err, errlen)) != CV_OK) goto out;
    if (v != 1) {
        rc =
            cv_err(err, errlen, CV_EINVAL, "notes: message version %ld (this is version 1)", v);
        goto out;
    }
    if ((rc = notes_get_int(o, "nslides", 0, NOTES_SLIDES_MAX, &nslides, err, errlen)) ||
        (rc = notes_get_int(o, "slide", 0, NOTES_SLIDES_MAX, &slide, err, errlen)) ||
        (rc = notes_get_int(o, "elapsed", 0, 100L * 24 * 3600, &elapsed, err, errlen)) ||
        (rc = notes_get_str(o, "lesson", t->lesson, sizeof t->lesson, err, errlen)) ||
        (rc = notes_get_str(o, "title", t->title, sizeof t->title, err, errlen)) ||
        (rc = notes_get_str(o, "note", t->note, sizeof t->note, err, errlen)) ||
        (rc = notes_get_str(o, "next", t->next, sizeof t->next, err, errlen)))
        goto out;
    if ((nslides == 0) != (slide == 0) || slide > nslides) {
        rc = cv_err(err, errlen, CV_EINVAL, "notes: slide %ld of %ld", slide, nslides);
        goto out;
    }
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "blanked");
    if (!cJSON_IsBool(b)) {
        rc = cv_err(err, errlen, CV_EINVAL, "notes: field 'blanked' missing or not a boolean");
        goto out;
    }
    long minutes = 0;
    if ((cJSON_HasObjectItem(o, "answer") &&
         (rc = notes_get_str(o, "answer", t->answer, sizeof t->answer, err, errlen))) ||
        (cJSON_HasObjectItem(o, "keys") &&
         (rc = notes_get_str(o, "keys", t->keys, sizeof t->keys, err, errlen))) ||
        (cJSON_HasObjectItem(o, "minutes") &&
         (rc = notes_get_int(o, "minutes", 0, NOTES_MINUTES_MAX, &minutes, err, errlen))) ||
        (cJSON_HasObjectItem(o, "status") &&
         (rc = notes_get_str(o, "status", t->status, sizeof t->status, err, errlen))) ||
        (cJSON_HasObjectItem(o, "backend") &&
         (rc = notes_get_str(o, "backend", t->backend, sizeof t->backend, err, errlen))) ||
        (cJSON_HasObjectItem(o, "work") &&
         (rc = notes_get_str(o, "work", t->work, sizeof t->work, err, errlen))) ||
        (cJSON_HasObjectItem(o, "narration") &&
         (rc = notes_get_str(o, "narration", t->narr, sizeof t->narr, err, errlen))))
        goto out;
    const cJSON *demo = cJSON_GetObjectItemCaseSensitive(o, "demo");
    if (demo && !cJSON_IsBool(demo)) {
        rc = cv_err(err, errlen, CV_EINVAL, "notes: field 'demo' is not a boolean");
        goto out;
    }
    t->demo = cJSON_IsTrue(demo);
    t->minutes = (int)minutes;
    t->slide = (int)slide;
    t->nslides = (int)nslides;
    t->elapsed_s = elapsed;
    t->blanked = cJSON_IsTrue(b);
    *st = *t;
out:
    free(t);
    cJSON_Delete(o);
    return rc;
}

#define NOTES_FRAME_MAX (NOTES_HDR + NOTES_PAYLOAD_MAX)

void notes_reader_init(struct notes_reader *r)
{
    r->buf = xmalloc(NOTES_FRAME_MAX);
    r->have = 0;
}

void notes_reader_free(struct notes_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->have = 0;
}

void notes_reader_reset(struct notes_reader *r)
{
    r->have = 0;
}

static size_t notes_frame_len(const unsigned char *h)
{
    return (size_t)h[4] << 24 | (size_t)h[5] << 16 | (size_t)h[6] << 8 | (size_t)h[7];
}

size_t notes_reader_push(struct notes_reader *r, const void *data, size_t n)
{
    /* Never read past the current frame: first its header, then exactly its payload, so
     * a frame that is waiting is never mixed with the next one's bytes. */
    size_t room = NOTES_HDR - r->have;
    if (r->have >= NOTES_HDR) {
        size_t want = NOTES_HDR + notes_frame_len(r->buf);
        room = want > r->have && want <= NOTES_FRAME_MAX ? want - r->have : 0;
    }
    size_t k = n < room ? n : room;
    memcpy(r->buf + r->have, data, k);
    r->have += k;
    return k;
}

int notes_reader_next(struct notes_reader *r, struct notes_state *st, bool *got, char *err,
                      size_t errlen)
{
    *got = false;
    size_t check = r->have < 4 ? r->have : 4;
    if (memcmp(r->buf, NOTES_MAGIC, check) != 0)
        return cv_err(err, errlen, CV_EINVAL, "notes: not a collviz notes stream (bad magic)");
    if (r->have < NOTES_HDR) return CV_OK;
    size_t len = notes_frame_len(r->buf);
    if (len > NOTES_PAYLOAD_MAX)
        return cv_err(err, errlen, CV_EINVAL, "notes: frame of %zu bytes is over %d", len,
                      NOTES_PAYLOAD_MAX);
    if (r->have < NOTES_HDR + len) return CV_OK;
    int rc = notes_decode((const char *)r->buf + NOTES_HDR, len, st, err, errlen);
    /* The frame is consumed either way; push() never reads past it. */
    r->have = 0;
    if (rc == CV_OK) *got = true;
    return rc;
}

int notes_reader_feed(struct notes_reader *r, const void *data, size_t n,
                      struct notes_state *st, bool *got, char *err, size_t errlen)
{
    *got = false;
    const unsigned char *p = data;
    for (;;) {
        size_t k = notes_reader_push(r, p, n);
        p += k;
        n -= k;
        bool one = false;
        int rc = notes_reader_next(r, st, &one, err, errlen);
        if (rc != CV_OK) return rc;
        if (one) *got = true;
        if (n == 0 && !one) return CV_OK;
    }
}

int notes_name_check(const char *name, char *err, size_t errlen)
{
    size_t n = strlen(name);
    bool ok = n >= 1 && n <= NOTES_NAME_MAX && name[0] != '.';
    for (size_t i = 0; ok && i < n; i++) {
        char c = name[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '_' || c == '-';
    }
    if (!ok)
        return cv_err(err, errlen, CV_EINVAL,
                      "--name: bad name '%s' (1..%d letters, digits, '.', '_' or '-', not "
                      "starting with '.')",
                      name, NOTES_NAME_MAX);
    return CV_OK;
}

int notes_socket_path(const char *name, bool create, char *path, size_t n, char *err,
                      size_t errlen)
{
    int rc = notes_name_check(name, err, errlen);
    if (rc != CV_OK) return rc;
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path) + 64];
    rc = usock_dir("notes", create, dir, sizeof dir, err, errlen);
    if (rc == CV_EUNAVAIL)
        return cv_err(err, errlen, CV_EUNAVAIL, "notes: no presenter has run here yet (%s)",
                      dir);
    if (rc != CV_OK) return rc;
    size_t need = strlen(dir) + 1 + strlen(name) + 5 + 1;
    if (need > sizeof(((struct sockaddr_un *)0)->sun_path) || need > n)
        return cv_err(err, errlen, CV_EINVAL, "notes: socket path %s/%s.sock is too long", dir,
                      name);
    snprintf(path, n, "%s/%s.sock", dir, name);
    return CV_OK;
}

struct notes_server {
    int fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int client[NOTES_CLIENTS_MAX];
    int nclients;
    char *last; /* the last frame sent */
    size_t last_len;
};

int notes_server_open(struct notes_server **out, const char *name, char *err, size_t errlen)
{
    *out = NULL;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int rc = notes_socket_path(name, true, path, sizeof path, err, errlen);
    if (rc != CV_OK) return rc;
    bool busy;
    int fd;
    rc = usock_listen("notes", path, &fd, &busy, err, errlen);
    if (busy)
        return cv_err(err, errlen, CV_EINVAL,
                      "notes: a presenter named '%s' is already running (--name picks "
                      "another)",
                      name);
    if (rc != CV_OK) return rc;
    struct notes_server *s = xcalloc(1, sizeof *s);
    s->fd = fd;
    snprintf(s->path, sizeof s->path, "%s", path);
    *out = s;
    return CV_OK;
}

int notes_server_fd(const struct notes_server *s)
{
    return s ? s->fd : -1;
}

const char *notes_server_path(const struct notes_server *s)
{
    return s->path;
}

int notes_server_nclients(const struct notes_server *s)
{
    return s ? s->nclients : 0;
}

static void notes_drop(struct notes_server *s, int i)
{
    close(s->client[i]);
    s->client[i] = s->client[--s->nclients];
}

/* The whole frame goes out in one non-blocking send or the client is dropped: a partial
 * frame would leave the stream out of step, and waiting would block the presenter. */
static bool notes_send(int fd, const char *buf, size_t len)
{
    ssize_t w = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    return w == (ssize_t)len;
}

void notes_server_accept(struct notes_server *s)
{
    if (!s) return;
    for (;;) {
        int c = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0) {
            if (errno == EINTR) continue;
            return; /* EAGAIN: none left; anything else: try again next time */
        }
        if (s->nclients >= NOTES_CLIENTS_MAX) {
            close(c);
            continue;
        }
        /* Only ever write to a client: shutting the read side documents that. */
        shutdown(c, SHUT_RD);
        if (s->last && !notes_send(c, s->last, s->last_len)) {
            close(c);
            continue;
        }
        s->client[s->nclients++] = c;
    }
}

void notes_server_publish(struct notes_server *s, const struct notes_state *st)
{
    if (!s) return;
    char *f;
    size_t len;
    if (notes_encode(st, &f, &len, NULL, 0) != CV_OK) return;
    if (s->last && s->last_len == len && memcmp(s->last, f, len) == 0) {
        free(f);
        return;
    }
    free(s->last);
    s->last = f;
    s->last_len = len;
    for (int i = s->nclients - 1; i >= 0; i--)
        if (!notes_send(s->client[i], f, len)) notes_drop(s, i);
}

void notes_server_close(struct notes_server *s)
{
    if (!s) return;
    while (s->nclients > 0)
        notes_drop(s, s->nclients - 1);
    close(s->fd);
    unlink(s->path);
    free(s->last);
    free(s);
}

int notes_client_connect(const char *name, int *fd, char *err, size_t errlen)
{
    *fd = -1;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int rc = notes_socket_path(name, false, path, sizeof path, err, errlen);
    if (rc != CV_OK) return rc;
    int c;
    rc = usock_connect("notes", path, &c, err, errlen);
    if (rc == CV_EUNAVAIL)
        return cv_err(err, errlen, CV_EUNAVAIL, "notes: no presenter on %s", path);
    if (rc != CV_OK) return rc;
    int fl = fcntl(c, F_GETFL);
    if (fl >= 0) fcntl(c, F_SETFL, fl | O_NONBLOCK);
    *fd = c;
    return CV_OK;
}
