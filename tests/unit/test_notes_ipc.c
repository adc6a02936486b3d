/* test_notes_ipc.c - the speaker-notes channel: frames round-trip through the reader however
 * the bytes are split, every kind of malformed frame is refused, the socket directory must be
 * private, the socket is 0600, and the presenter's server never blocks on a client. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/util.h"
#include "present/notes_ipc.h"

static void sample(struct notes_state *st)
{
    memset(st, 0, sizeof *st);
    snprintf(st->lesson, sizeof st->lesson, "All-reduce, step by step");
    st->slide = 3;
    st->nslides = 7;
    snprintf(st->title, sizeof st->title, "The ring's reduce-scatter");
    snprintf(st->note, sizeof st->note,
             "Ask: who holds chunk 2 now?\nThen press \u2192 \"twice\".");
    snprintf(st->next, sizeof st->next, "All-gather");
    st->elapsed_s = 754;
    st->blanked = true;
    snprintf(st->answer, sizeof st->answer, "Answer: 60 64 68 72\n\nSolution: add them.");
    snprintf(st->keys, sizeof st->keys, "PgDn next  r reveal");
    st->minutes = 95;
    snprintf(st->status, sizeof st->status, "go to slide: 7_");
    snprintf(st->backend, sizeof st->backend, "nccl: unavailable \u2014 no usable GPU");
    st->demo = true;
    snprintf(st->work, sizeof st->work,
             "measuring 64 MiB\u2026 2.2 s \u00b7 stale: the previous result");
    snprintf(st->narr, sizeof st->narr, "Where is it used?\n\nRarely: \"at the start\".");
}

static void assert_state_equal(const struct notes_state *a, const struct notes_state *b)
{
    assert_string_equal(a->lesson, b->lesson);
    assert_int_equal(a->slide, b->slide);
    assert_int_equal(a->nslides, b->nslides);
    assert_string_equal(a->title, b->title);
    assert_string_equal(a->note, b->note);
    assert_string_equal(a->next, b->next);
    assert_int_equal(a->elapsed_s, b->elapsed_s);
    assert_int_equal(a->blanked, b->blanked);
    assert_string_equal(a->answer, b->answer);
    assert_string_equal(a->keys, b->keys);
    assert_int_equal(a->minutes, b->minutes);
    assert_string_equal(a->status, b->status);
    assert_string_equal(a->backend, b->backend);
    assert_int_equal(a->demo, b->demo);
    assert_string_equal(a->work, b->work);
    assert_string_equal(a->narr, b->narr);
}

static void test_roundtrip_any_split(void **state)
{
    (void)state;
    struct notes_state in, out;
    sample(&in);
    char *f;
    size_t len;
    assert_int_equal(notes_encode(&in, &f, &len, NULL, 0), CV_OK);
    assert_memory_equal(f, "CVN1", 4);
    size_t plen = (size_t)(unsigned char)f[4] << 24 | (size_t)(unsigned char)f[5] << 16 |
                  (size_t)(unsigned char)f[6] << 8 | (unsigned char)f[7];
    assert_int_equal(plen, len - 8);

    struct notes_reader r;
    notes_reader_init(&r);
    /* Byte by byte: only the last byte completes the frame. */
    for (size_t i = 0; i < len; i++) {
        bool got = true;
        memset(&out, 0, sizeof out);
        assert_int_equal(notes_reader_feed(&r, f + i, 1, &out, &got, NULL, 0), CV_OK);
        assert_int_equal(got, i == len - 1);
    }
    assert_state_equal(&in, &out);

    /* Two frames in one read: the latest wins, nothing is left over. */
    struct notes_state in2 = in;
    in2.slide = 4;
    in2.blanked = false;
    char *f2;
    size_t len2;
    assert_int_equal(notes_encode(&in2, &f2, &len2, NULL, 0), CV_OK);
    char *both = xmalloc(len + len2);
    memcpy(both, f, len);
    memcpy(both + len, f2, len2);
    bool got = false;
    assert_int_equal(notes_reader_feed(&r, both, len + len2, &out, &got, NULL, 0), CV_OK);
    assert_true(got);
    assert_state_equal(&in2, &out);
    assert_int_equal(r.have, 0);
    free(both);
    free(f);
    free(f2);
    notes_reader_free(&r);
}

/* Feed a frame made of header + payload; returns the reader's status and its message. */
static int feed_raw(const char *magic, uint32_t declared, const char *payload, size_t plen,
                    char *err, size_t errlen)
{
    unsigned char *f = xmalloc(8 + plen);
    memcpy(f, magic, 4);
    f[4] = (unsigned char)(declared >> 24);
    f[5] = (unsigned char)(declared >> 16);
    f[6] = (unsigned char)(declared >> 8);
    f[7] = (unsigned char)declared;
    memcpy(f + 8, payload, plen);
    struct notes_reader r;
    notes_reader_init(&r);
    struct notes_state st;
    bool got = false;
    err[0] = '\0';
    int rc = notes_reader_feed(&r, f, 8 + plen, &st, &got, err, errlen);
    notes_reader_free(&r);
    free(f);
    return rc == CV_OK && !got ? -1 : rc; /* -1: incomplete, still waiting */
}

#define GOOD_FIELDS                                                                            \
    "\"lesson\":\"L\",\"title\":\"T\",\"note\":\"N\",\"next\":\"X\",\"elapsed\":5,"            \
    "\"blanked\":false"

static void expect_refused(const char *payload, const char *words)
{
    char err[200];
    int rc =
        feed_raw("CVN1", (uint32_t)strlen(payload), payload, strlen(payload), err, sizeof err);
    if (rc != CV_EINVAL || !strstr(err, words))
        fail_msg("payload %s: rc %d, err '%s' (wanted '%s')", payload, rc, err, words);
}

static void test_malformed_refused(void **state)
{
    (void)state;
    char err[200];
    /* A valid one first, so the refusals below are about what they change. */
    const char *ok = "{\"v\":1,\"slide\":1,\"nslides\":2," GOOD_FIELDS "}";
    assert_int_equal(feed_raw("CVN1", (uint32_t)strlen(ok), ok, strlen(ok), err, sizeof err),
                     CV_OK);

    assert_int_equal(feed_raw("HTTP", (uint32_t)strlen(ok), ok, strlen(ok), err, sizeof err),
                     CV_EINVAL);
    assert_non_null(strstr(err, "bad magic"));
    /* A length over the limit is refused from the header alone, before any payload. */
    assert_int_equal(feed_raw("CVN1", NOTES_PAYLOAD_MAX + 1, "", 0, err, sizeof err),
                     CV_EINVAL);
    assert_non_null(strstr(err, "over 65536"));
    assert_int_equal(feed_raw("CVN1", 0xFFFFFFFFu, "", 0, err, sizeof err), CV_EINVAL);
    /* Declared longer than sent: incomplete, not accepted. */
    assert_int_equal(
        feed_raw("CVN1", (uint32_t)strlen(ok) + 5, ok, strlen(ok), err, sizeof err), -1);

    expect_refused("", "not valid JSON");
    expect_refused("{\"v\":1,", "not valid JSON");
    expect_refused("[1,2]", "not a JSON object");
    expect_refused("{\"v\":2,\"slide\":1,\"nslides\":2," GOOD_FIELDS "}", "version 2");
    expect_refused("{\"v\":1,\"nslides\":2," GOOD_FIELDS "}", "'slide' missing");
    expect_refused("{\"v\":1,\"slide\":\"3\",\"nslides\":5," GOOD_FIELDS "}",
                   "'slide' missing or not a number");
    expect_refused("{\"v\":1,\"slide\":1.5,\"nslides\":5," GOOD_FIELDS "}", "not an integer");
    expect_refused("{\"v\":1,\"slide\":6,\"nslides\":5," GOOD_FIELDS "}", "slide 6 of 5");
    expect_refused("{\"v\":1,\"slide\":-1,\"nslides\":5," GOOD_FIELDS "}", "'slide' = -1");
    expect_refused("{\"v\":1,\"slide\":1,\"nslides\":5,\"lesson\":7,\"title\":\"T\",\"note\":"
                   "\"N\",\"next\":\"X\",\"elapsed\":5,\"blanked\":false}",
                   "'lesson' missing or not a string");
    expect_refused(
        "{\"v\":1,\"slide\":1,\"nslides\":5,\"lesson\":\"L\",\"title\":\"T\",\"note\":"
        "\"N\",\"next\":\"X\",\"elapsed\":5,\"blanked\":1}",
        "'blanked' missing or not a boolean");
    expect_refused("{\"v\":1,\"slide\":1,\"nslides\":2," GOOD_FIELDS "} {}", "after the JSON");
    /* The optional fields: absent is fine (above), present they are checked. */
    expect_refused("{\"v\":1,\"slide\":1,\"nslides\":2," GOOD_FIELDS ",\"answer\":3}",
                   "'answer' missing or not a string");
    expect_refused("{\"v\":1,\"slide\":1,\"nslides\":2," GOOD_FIELDS ",\"minutes\":-4}",
                   "'minutes' = -4");
    expect_refused("{\"v\":1,\"slide\":1,\"nslides\":2," GOOD_FIELDS ",\"keys\":[]}",
                   "'keys' missing or not a string");
    expect_refused("{\"v\":1,\"slide\":1,\"nslides\":2," GOOD_FIELDS ",\"demo\":1}",
                   "'demo' is not a boolean");
    expect_refused("{\"v\":1,\"slide\":1,\"nslides\":2," GOOD_FIELDS ",\"narration\":0}",
                   "'narration' missing or not a string");

    /* A title longer than its field. */
    char *big = xmalloc(NOTES_TEXT_MAX + 200);
    int n =
        snprintf(big, NOTES_TEXT_MAX + 200, "{\"v\":1,\"slide\":1,\"nslides\":1,\"lesson\":\"");
    memset(big + n, 'a', NOTES_TEXT_MAX);
    snprintf(
        big + n + NOTES_TEXT_MAX, 200,
        "\",\"title\":\"T\",\"note\":\"N\",\"next\":\"\",\"elapsed\":0,\"blanked\":false}");
    expect_refused(big, "'lesson' longer than 255 bytes");
    free(big);

    /* A NUL inside the payload. */
    const char nul[] = "{\"v\":1,\0\"slide\":1}";
    assert_int_equal(feed_raw("CVN1", sizeof nul - 1, nul, sizeof nul - 1, err, sizeof err),
                     CV_EINVAL);
    assert_non_null(strstr(err, "NUL"));
}

static void test_copy_utf8_boundary(void **state)
{
    (void)state;
    char d[5];
    notes_copy(d, sizeof d, "ab\u2192cd"); /* a b + 3 bytes: the arrow does not fit */
    assert_string_equal(d, "ab");
    notes_copy(d, sizeof d, "abcdef");
    assert_string_equal(d, "abcd");
    notes_copy(d, sizeof d, "a\u00e9"); /* 3 bytes fit whole */
    assert_string_equal(d, "a\u00e9");
}

static void test_names(void **state)
{
    (void)state;
    char err[200];
    assert_int_equal(notes_name_check("default", err, sizeof err), CV_OK);
    assert_int_equal(notes_name_check("room-2.lab_B", err, sizeof err), CV_OK);
    assert_int_equal(notes_name_check("", err, sizeof err), CV_EINVAL);
    assert_int_equal(notes_name_check("../x", err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "bad name '../x'"));
    assert_int_equal(notes_name_check(".hidden", err, sizeof err), CV_EINVAL);
    assert_int_equal(notes_name_check("a/b", err, sizeof err), CV_EINVAL);
    assert_int_equal(notes_name_check("abcdefghijklmnopqrstuvwxyz0123456", err, sizeof err),
                     CV_EINVAL);
}

static char tmpdir[64];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_notes_XXXXXX");
    if (!mkdtemp(tmpdir)) return -1;
    setenv("XDG_RUNTIME_DIR", tmpdir, 1);
    return 0;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_private_dir(void **state)
{
    (void)state;
    char path[200], err[300], want[200];
    assert_int_equal(notes_socket_path("default", true, path, sizeof path, err, sizeof err),
                     CV_OK);
    snprintf(want, sizeof want, "%s/collviz/default.sock", tmpdir);
    assert_string_equal(path, want);
    struct stat st;
    snprintf(want, sizeof want, "%s/collviz", tmpdir);
    assert_int_equal(lstat(want, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0700);

    /* Opened up to the group: refused, named, and left as it is. */
    assert_int_equal(chmod(want, 0750), 0);
    assert_int_equal(notes_socket_path("default", true, path, sizeof path, err, sizeof err),
                     CV_EINVAL);
    assert_non_null(strstr(err, "is not private"));
    assert_non_null(strstr(err, "mode 750"));
    int fd;
    assert_int_equal(notes_client_connect("default", &fd, err, sizeof err), CV_EINVAL);
    assert_int_equal(chmod(want, 0700), 0);

    /* A link in its place (even to a private directory of ours) is refused. */
    char real[200];
    snprintf(real, sizeof real, "%s/real", tmpdir);
    assert_int_equal(rename(want, real), 0);
    assert_int_equal(symlink(real, want), 0);
    assert_int_equal(notes_socket_path("default", true, path, sizeof path, err, sizeof err),
                     CV_EINVAL);
    assert_non_null(strstr(err, "is not a directory"));
    assert_int_equal(unlink(want), 0);
    assert_int_equal(rename(real, want), 0);

    /* Without XDG_RUNTIME_DIR: a per-user directory under TMPDIR. */
    unsetenv("XDG_RUNTIME_DIR");
    setenv("TMPDIR", tmpdir, 1);
    assert_int_equal(notes_socket_path("x", true, path, sizeof path, err, sizeof err), CV_OK);
    snprintf(want, sizeof want, "%s/collviz-%u/x.sock", tmpdir, (unsigned)getuid());
    assert_string_equal(path, want);
    unsetenv("TMPDIR");
    setenv("XDG_RUNTIME_DIR", tmpdir, 1);
}

/* Read until a state arrives or 2 s pass. */
static bool read_state(int fd, struct notes_reader *r, struct notes_state *st)
{
    for (int i = 0; i < 200; i++) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 10) <= 0) continue;
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) return false;
        bool got = false;
        char err[200];
        assert_int_equal(notes_reader_feed(r, buf, (size_t)n, st, &got, err, sizeof err),
                         CV_OK);
        if (got) return true;
    }
    return false;
}

static void test_server_clients(void **state)
{
    (void)state;
    char err[300];
    struct notes_server *s;
    assert_int_equal(notes_server_open(&s, "default", err, sizeof err), CV_OK);
    struct stat st;
    assert_int_equal(lstat(notes_server_path(s), &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_int_equal(st.st_uid, getuid());

    /* The same name twice: refused while the first listens; another name is fine. */
    struct notes_server *s2;
    assert_int_equal(notes_server_open(&s2, "default", err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "already running"));
    struct notes_server *other;
    assert_int_equal(notes_server_open(&other, "room2", err, sizeof err), CV_OK);

    struct notes_state in, out;
    sample(&in);
    notes_server_publish(s, &in); /* before anyone connects: kept for newcomers */
    int fd;
    assert_int_equal(notes_client_connect("default", &fd, err, sizeof err), CV_OK);
    notes_server_accept(s);
    assert_int_equal(notes_server_nclients(s), 1);
    struct notes_reader r;
    notes_reader_init(&r);
    assert_true(read_state(fd, &r, &out));
    assert_state_equal(&in, &out);
    in.slide = 4;
    snprintf(in.note, sizeof in.note, "slide four");
    notes_server_publish(s, &in);
    assert_true(read_state(fd, &r, &out));
    assert_int_equal(out.slide, 4);
    assert_string_equal(out.note, "slide four");

    /* The client goes away: the next publish drops it without a SIGPIPE. */
    close(fd);
    in.elapsed_s++;
    notes_server_publish(s, &in);
    assert_int_equal(notes_server_nclients(s), 0);

    /* A client that never reads: publishing many large states never blocks; it is dropped
     * once its socket buffer is full. */
    assert_int_equal(notes_client_connect("default", &fd, err, sizeof err), CV_OK);
    notes_server_accept(s);
    assert_int_equal(notes_server_nclients(s), 1);
    memset(in.note, 'n', sizeof in.note - 1);
    in.note[sizeof in.note - 1] = '\0';
    double t0 = now_s();
    for (int i = 0; i < 2000 && notes_server_nclients(s) > 0; i++) {
        in.elapsed_s = i;
        notes_server_publish(s, &in);
    }
    assert_int_equal(notes_server_nclients(s), 0);
    assert_true(now_s() - t0 < 2.0);
    close(fd);

    /* Closing removes the socket; a client then finds no presenter. */
    notes_server_close(s);
    assert_int_not_equal(lstat(notes_server_path(other), &st), -1);
    assert_int_equal(notes_client_connect("default", &fd, err, sizeof err), CV_EUNAVAIL);
    assert_non_null(strstr(err, "no presenter"));
    notes_server_close(other);
    notes_reader_free(&r);
}

/* A presenter that died leaves its socket file behind; the next one replaces it. */
static void test_stale_socket_replaced(void **state)
{
    (void)state;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)], err[300];
    assert_int_equal(notes_socket_path("stale", true, path, sizeof path, err, sizeof err),
                     CV_OK);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    close(fd); /* the file stays, nobody listens */
    struct notes_server *s;
    assert_int_equal(notes_server_open(&s, "stale", err, sizeof err), CV_OK);
    notes_server_close(s);

    /* A plain file in the socket's place is not ours to remove. */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(notes_server_open(&s, "stale", err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "not our socket"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_any_split),
        cmocka_unit_test(test_malformed_refused),
        cmocka_unit_test(test_copy_utf8_boundary),
        cmocka_unit_test(test_names),
        cmocka_unit_test_setup_teardown(test_private_dir, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_server_clients, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_stale_socket_replaced, setup_dir, teardown_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
