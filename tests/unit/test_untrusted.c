/* test_untrusted.c - the guards on text and values from outside (issue 17): control
 * characters made visible for a terminal (cv_safe_text), the strict number and size
 * parsers every option reads through, the exact collective names, scene words given once,
 * which link URLs a handout keeps, and the handout itself: no live javascript: link and
 * no control byte even when a lesson's Markdown decodes to one. Expected values are
 * written out by hand here, not computed by the code under test. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/coll.h"
#include "core/util.h"
#include "lesson/lesson.h"
#include "handout/html.h"
#include "handout/handout.h"
#include "scene/scene.h"

static void expect_safe(const char *in, bool keep_newlines, const char *want)
{
    char out[128];
    size_t need = cv_safe_text(in, out, sizeof out, keep_newlines);
    assert_string_equal(out, want);
    assert_int_equal(need, strlen(want));
}

static void test_safe_text(void **state)
{
    (void)state;
    expect_safe("\x1b]0;PWNED\x07Title", false, "^[]0;PWNED^GTitle");
    expect_safe("a\nb", true, "a\nb");
    expect_safe("a\nb", false, "a^Jb");
    expect_safe("tab\there", false, "tab\there");
    expect_safe("del\x7f", false, "del^?");
    expect_safe("c1 \xc2\x9b"
                "31m",
                false, "c1 M-^[31m"); /* U+009B, the 8-bit CSI */
    expect_safe("lone \x9b byte", false, "lone \\x9b byte");
    expect_safe("caf\xc3\xa9 \xe2\x96\xb6", false, "caf\xc3\xa9 \xe2\x96\xb6"); /* é ▶ stay */
    expect_safe("\r", false, "^M");
    /* a small buffer is cut between pieces (never half a "^["), terminated, and the
     * length needed is still the whole */
    char small[4];
    assert_int_equal(cv_safe_text("\x1b\x1b\x1b", small, sizeof small, false), 6);
    assert_string_equal(small, "^[");
}

static void test_parse_long_strict(void **state)
{
    (void)state;
    long v = 0;
    static const char *const bad[] = {"+4", " 4", "4 ", "0x10", "", "4k", "--4", "- 4", "1e3"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_int_equal(parse_long(bad[i], -100, 100, &v), CV_EINVAL);
    assert_int_equal(parse_long("4", 1, 16, &v), CV_OK);
    assert_int_equal(v, 4);
    assert_int_equal(parse_long("-3", -5, 5, &v), CV_OK);
    assert_int_equal(v, -3);
    assert_int_equal(parse_long("17", 1, 16, &v), CV_EINVAL);
    uint64_t u = 0;
    assert_int_equal(parse_u64("-1", &u), CV_EINVAL);
    assert_int_equal(parse_u64("+1", &u), CV_EINVAL);
    assert_int_equal(parse_u64("18446744073709551615", &u), CV_OK);
    assert_true(u == UINT64_MAX);
    assert_int_equal(parse_u64("18446744073709551616", &u), CV_EINVAL);
}

static void test_parse_size_strict(void **state)
{
    (void)state;
    size_t b = 0;
    static const char *const bad[] = {"1k",   "64MB", "64m",  "0x10", " 4", "+4",
                                      "64Mi", "1KB",  "64 M", "G",    "",   "-1"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        assert_int_equal(parse_size(bad[i], &b), CV_EINVAL);
    }
    assert_int_equal(parse_size("4096", &b), CV_OK);
    assert_int_equal(b, 4096);
    assert_int_equal(parse_size("1K", &b), CV_OK);
    assert_int_equal(b, 1024);
    assert_int_equal(parse_size("64M", &b), CV_OK);
    assert_int_equal(b, 67108864);
    assert_int_equal(parse_size("64MiB", &b), CV_OK);
    assert_int_equal(b, 67108864);
    assert_int_equal(parse_size("16G", &b), CV_OK);
    assert_true(b == 17179869184ULL);
    assert_int_equal(parse_size("2T", &b), CV_OK);
    assert_true(b == 2199023255552ULL);
}

static void test_parse_double_strict(void **state)
{
    (void)state;
    double d = 0;
    static const char *const bad[] = {"0x10", "inf",  "nan",   " 1",  "+1",  "1e", ".",
                                      "",     "1.5x", "1e309", "--1", "1,5", "INF"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_int_equal(parse_double(bad[i], -1e300, 1e300, &d), CV_EINVAL);
    assert_int_equal(parse_double("1.5", 0, 10, &d), CV_OK);
    assert_true(d == 1.5);
    assert_int_equal(parse_double("-2e3", -1e4, 0, &d), CV_OK);
    assert_true(d == -2000.0);
    assert_int_equal(parse_double(".5", 0, 1, &d), CV_OK);
    assert_true(d == 0.5);
    assert_int_equal(parse_double("3", 0, 2, &d), CV_EINVAL); /* out of range */
}

static void test_collective_names_exact(void **state)
{
    (void)state;
    enum coll c = COLL_COUNT;
    static const char *const good[] = {"all_reduce", "all-reduce", "allreduce"};
    for (size_t i = 0; i < ARRAY_LEN(good); i++) {
        c = COLL_COUNT;
        assert_int_equal(coll_parse(good[i], &c), 0);
        assert_int_equal(c, COLL_ALL_REDUCE);
    }
    assert_int_equal(coll_parse("reduce_scatter", &c), 0);
    assert_int_equal(c, COLL_REDUCE_SCATTER);
    static const char *const bad[] = {"ALL_REDUCE",  "All_Reduce",  "all-reduce-", "-allreduce",
                                      "all__reduce", "all_-reduce", "all_reduc",   ""};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_int_equal(coll_parse(bad[i], &c), -1);
}

static void test_scene_key_once(void **state)
{
    (void)state;
    struct scene s;
    scene_default(&s);
    char err[200] = "";
    assert_int_equal(scene_parse(&s, "ranks=4 ranks=8", err, sizeof err), CV_EINVAL);
    assert_non_null(strstr(err, "'ranks' given twice"));
    assert_int_equal(scene_parse(&s, "collective=all_reduce coll=broadcast", err, sizeof err),
                     CV_EINVAL);
    assert_int_equal(scene_parse(&s, "collective=all_gather ranks=8", err, sizeof err), CV_OK);
    assert_int_equal(s.nranks, 8);
}

static void test_url_allowed(void **state)
{
    (void)state;
    static const char *const ok[] = {"https://example.com", "http://x", "HTTP://x",
                                     "mailto:a@b.c",        "#anchor",  "  https://x",
                                     "ht\ttps://x"};
    for (size_t i = 0; i < ARRAY_LEN(ok); i++)
        assert_true(lesson_url_allowed(ok[i], strlen(ok[i])));
    static const char *const bad[] = {"javascript:alert(1)",
                                      "JAVASCRIPT:alert(1)",
                                      " \x01javascript:alert(1)",
                                      "java\tscript:alert(1)",
                                      "java\nscript:x",
                                      "vbscript:x",
                                      "data:text/html;base64,PHNjcmlwdD4=",
                                      "javascript&colon;alert(1)",
                                      "notes.html",
                                      "//evil.example/x",
                                      "",
                                      "file:///etc/passwd",
                                      "httpx://x"};
    for (size_t i = 0; i < ARRAY_LEN(bad); i++)
        assert_false(lesson_url_allowed(bad[i], strlen(bad[i])));
}

/* A one-slide lesson made by hand (not parsed: the parser refuses what this checks the
 * export still guards against). */
static char *export_of(const char *markdown)
{
    struct lesson_slide slide = {.title = "T", .line = 1, .markdown = (char *)markdown};
    struct lesson l = {.id = "t", .title = "T", .path = "t.md", .slides = &slide, .nslides = 1};
    struct lesson_set set = {.v = &l, .n = 1};
    char *doc = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&doc, &len);
    assert_non_null(f);
    char err[300];
    struct handout_opts o;
    handout_opts_default(&o);
    o.backend = NULL; /* no measuring */
    assert_int_equal(export_html_write(&set, &o, f, err, sizeof err), CV_OK);
    fclose(f);
    return doc;
}

static void test_export_links(void **state)
{
    (void)state;
    char *h = export_of("[a](javascript:alert(1)) [b](&#106;avascript:x) <javascript:y> "
                        "[c](https://example.com/?q=1&r=2) [![img](p.png)](vbscript:z)");
    assert_null(strstr(h, "href=\"javascript"));
    assert_null(strstr(h, "href=\"vbscript"));
    assert_null(strstr(h, "<img"));
    assert_non_null(strstr(h, "a (javascript:alert(1))"));
    assert_non_null(strstr(h, "b (javascript:x)"));
    assert_non_null(strstr(h, "[image: img] (vbscript:z)"));
    assert_non_null(strstr(h, "<a href=\"https://example.com/?q=1&amp;r=2\">c</a>"));
    int hrefs = 0;
    for (const char *p = h; (p = strstr(p, "href=")); p++)
        hrefs++;
    assert_int_equal(hrefs, 1);
    free(h);
}

static void test_export_no_control_bytes(void **state)
{
    (void)state;
    /* md4c-html decodes these references into raw bytes; the handout must carry none */
    char *h = export_of("esc &#27;]0;PWNED&#7; csi &#x9b;31m "
                        "[t](https://example.com \"&#27;title\")");
    for (const unsigned char *p = (const unsigned char *)h; *p; p++) {
        assert_false(*p < 0x20 && *p != '\n' && *p != '\t');
        assert_false(*p == 0x7f);
        assert_false(p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0);
    }
    assert_non_null(strstr(h, "esc \xef\xbf\xbd]0;PWNED\xef\xbf\xbd csi"));
    free(h);
}

/* An independent UTF-8 check (not cv_utf8_len): Python's rules, written out. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], cp, len;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            len = 2, cp = c & 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            len = 3, cp = c & 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            len = 4, cp = c & 0x07;
        else
            return false;
        if (i + len > n) return false;
        for (unsigned k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return false;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += len;
    }
    return true;
}

/* Issue 29: cuts landed mid-character and outputs held invalid UTF-8. cv_utf8_cut keeps the
 * most whole characters that fit, at every limit; cv_fwrite_utf8 writes valid UTF-8 for any
 * bytes, valid text unchanged, one U+FFFD per would-be character. */
static void test_utf8_cut_and_write(void **state)
{
    (void)state;
    const char *s = "a\xc3\xa9\xe5\xb8\xaf\xf0\x9f\x98\x80z\xe5\xb8\xaf"; /* a é 帯 😀 z 帯 */
    const size_t ends[] = {0, 1, 3, 6, 10, 11, 14}; /* the character boundaries */
    for (size_t max = 0; max <= strlen(s) + 2; max++) {
        size_t want = 0;
        for (size_t k = 0; k < sizeof ends / sizeof ends[0]; k++)
            if (ends[k] <= max) want = ends[k];
        assert_int_equal(cv_utf8_cut(s, max), want);
    }
    struct {
        const char *in, *want;
    } cases[] = {
        {"plain \xe5\xb8\xaf text", "plain \xe5\xb8\xaf text"},
        {"01-\x9b"
         "31m.md",
         "01-\xef\xbf\xbd"
         "31m.md"},                                                     /* a raw C1 byte */
        {"x\xed\xa0\x80y", "x\xef\xbf\xbdy"},                           /* a surrogate */
        {"\xe5\xb8", "\xef\xbf\xbd"},                                   /* half a character */
        {"\xe5\xb8z\x80\x80", "\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd"}, /* strays */
        {"\xf4\x90\x80\x80!", "\xef\xbf\xbd!"},                         /* past U+10FFFF */
        {"\xc0\xaf", "\xef\xbf\xbd"},                                   /* overlong '/' */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        cv_fwrite_utf8(f, cases[i].in, strlen(cases[i].in));
        fclose(f);
        assert_string_equal(buf, cases[i].want);
        free(buf);
    }
    /* any bytes at all: valid out; valid in is unchanged */
    srand(29);
    for (int t = 0; t < 20000; t++) {
        unsigned char in[12];
        size_t n = (size_t)(rand() % 12);
        for (size_t k = 0; k < n; k++)
            in[k] = (unsigned char)(rand() % 3 ? 0x80 + rand() % 0x80 : rand() % 256);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        cv_fwrite_utf8(f, (const char *)in, n);
        fclose(f);
        assert_true(valid_utf8((const unsigned char *)buf, len));
        if (valid_utf8(in, n)) {
            assert_int_equal(len, n);
            assert_memory_equal(buf, in, n);
        }
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_safe_text),
        cmocka_unit_test(test_parse_long_strict),
        cmocka_unit_test(test_parse_size_strict),
        cmocka_unit_test(test_parse_double_strict),
        cmocka_unit_test(test_collective_names_exact),
        cmocka_unit_test(test_scene_key_once),
        cmocka_unit_test(test_url_allowed),
        cmocka_unit_test(test_export_links),
        cmocka_unit_test(test_export_no_control_bytes),
        cmocka_unit_test(test_utf8_cut_and_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
