/* util.c - allocation wrappers, status names, clocks and strict number parsing. */
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

static void (*fatal_hook)(void);

const char *cv_status_name(int status)
{
    switch (status) {
    case CV_OK:
        return "ok";
    case CV_EINVAL:
        return "invalid argument";
    case CV_ENOMEM:
        return "out of memory";
    case CV_EUNSUPPORTED:
        return "unsupported";
    case CV_EUNAVAIL:
        return "unavailable";
    case CV_ETIMEOUT:
        return "timed out";
    case CV_EBACKEND:
        return "backend error";
    case CV_ECANCELLED:
        return "cancelled";
    }
    return "unknown error";
}

void util_set_fatal_hook(void (*hook)(void))
{
    fatal_hook = hook;
}

void util_fatal(const char *fmt, ...)
{
    void (*hook)(void) = fatal_hook;
    fatal_hook = NULL;
    if (hook) hook();
    va_list ap;
    fputs("collviz: fatal: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) util_fatal("out of memory allocating %zu bytes", n);
    return p;
}

void *huge_alloc(size_t bytes)
{
    const size_t huge = (size_t)2 << 20; /* the transparent huge page size on x86-64 */
    size_t align = bytes >= huge ? huge : 64;
    void *v = NULL;
    if (posix_memalign(&v, align, bytes ? bytes : 1) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    if (align == huge) madvise(v, bytes - bytes % huge, MADV_HUGEPAGE); /* a hint only */
#endif
    return v;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
    if (!p) util_fatal("out of memory allocating %zu x %zu bytes", nmemb, size);
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) util_fatal("out of memory reallocating to %zu bytes", n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

int cv_err(char *err, size_t errlen, int status, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return status;
}

size_t cv_cat(char *buf, size_t n, size_t o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(o < n ? buf + o : NULL, o < n ? n - o : 0, fmt, ap);
    va_end(ap);
    return o + (k > 0 ? (size_t)k : 0);
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The one spelling of a size everywhere (CLI options, scene words): a whole number of bytes,
 * optionally followed by K, M, G or T (upper case: powers of 1024) and optionally "iB" after
 * that ("64M" = "64MiB"). Lower case "k", "MB" (10^6 elsewhere in collviz), signs, blanks and
 * hex are refused, so a value means one thing. */
int parse_size(const char *s, size_t *out)
{
    if (!s || !isdigit((unsigned char)s[0])) return CV_EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return CV_EINVAL;
    unsigned shift = 0;
    switch (*end) {
    case '\0':
        break;
    case 'K':
        shift = 10;
        break;
    case 'M':
        shift = 20;
        break;
    case 'G':
        shift = 30;
        break;
    case 'T':
        shift = 40;
        break;
    default:
        return CV_EINVAL;
    }
    if (shift) end++;
    if (shift && end[0] == 'i' && end[1] == 'B') end += 2;
    if (*end != '\0') return CV_EINVAL;
    if (shift && v > (~0ULL >> shift)) return CV_EINVAL;
    *out = (size_t)(v << shift);
    return CV_OK;
}

void format_size(size_t bytes, char *buf, size_t n)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = (double)bytes;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    if (v == (double)(long long)v)
        snprintf(buf, n, "%lld %s", (long long)v, unit[u]);
    else
        snprintf(buf, n, "%.1f %s", v, unit[u]);
}

/* A decimal integer as written by a person: digits, a '-' only in front; no '+', blanks,
 * hex or octal prefixes (strtol alone would take " 4", "+4" and, with base 0, "0x10"). */
static bool plain_integer(const char *s)
{
    if (*s == '-') s++;
    if (!isdigit((unsigned char)*s)) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

int parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !plain_integer(s)) return CV_EINVAL;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return CV_EINVAL;
    *out = v;
    return CV_OK;
}

int parse_u64(const char *s, uint64_t *out)
{
    if (!s || *s == '-' || !plain_integer(s)) return CV_EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0') return CV_EINVAL;
    *out = v;
    return CV_OK;
}

int parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s) return CV_EINVAL;
    /* [-]digits[.digits][e[+-]digits] or [-].digits...: what strtod reads, minus hex, inf,
     * nan, blanks and a leading '+' */
    const char *p = s;
    if (*p == '-') p++;
    size_t digits = 0;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p))
            p++, digits++;
    }
    if (!digits) return CV_EINVAL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return CV_EINVAL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p) return CV_EINVAL;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno == ERANGE || *end || !isfinite(v) || v < lo || v > hi) return CV_EINVAL;
    *out = v;
    return CV_OK;
}

/* The kernel's MemAvailable, in bytes (0: unknown). */
static size_t mem_meminfo_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    size_t kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %zu kB", &kib) == 1) break;
    fclose(f);
    return kib * 1024;
}

/* What this process maps now, total (VmSize) and data (VmData), in bytes. */
static void mem_self_mapped(size_t *vm, size_t *data)
{
    *vm = *data = 0;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    size_t kib;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "VmSize: %zu kB", &kib) == 1) *vm = kib * 1024;
        if (sscanf(line, "VmData: %zu kB", &kib) == 1) *data = kib * 1024;
    }
    fclose(f);
}

/* The room a limit leaves: limit less what is used (0 when none is left). */
static size_t mem_room_under(int resource, size_t used, size_t room)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return room;
    size_t left = (size_t)rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
    return left < room ? left : room;
}

size_t mem_available_bytes(void)
{
    size_t room = mem_meminfo_available();
    if (!room) room = SIZE_MAX; /* unknown: the limits alone */
    size_t vm, data;
    mem_self_mapped(&vm, &data);
    room = mem_room_under(RLIMIT_AS, vm, room);
    room = mem_room_under(RLIMIT_DATA, data, room);
    return room == SIZE_MAX ? 0 : room ? room : 1;
}

size_t mem_address_room(void)
{
    size_t vm, data;
    mem_self_mapped(&vm, &data);
    return mem_room_under(RLIMIT_AS, vm, SIZE_MAX);
}

int mem_check(double need, char *err, size_t errlen, const char *fmt, ...)
{
    size_t avail = mem_available_bytes();
    if (need == need && need >= 0 && (!avail || need <= (double)avail) && need < 0x1p62)
        return CV_OK;
    char what[200], n[32], a[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (need == need && need < 0x1p63)
        format_size((size_t)need, n, sizeof n);
    else
        snprintf(n, sizeof n, "more than 8 EiB");
    if (!avail)
        return cv_err(err, errlen, CV_ENOMEM, "%s needs %s; that is more than any machine has",
                      what, n);
    format_size(avail, a, sizeof a);
    return cv_err(err, errlen, CV_ENOMEM, "%s needs %s of memory; %s available", what, n, a);
}

/* ---- text from untrusted sources on a terminal ------------------------------------------ */

size_t cv_safe_text(const char *s, char *out, size_t n, bool keep_newlines)
{
    size_t o = 0, w = 0; /* w: bytes written, whole pieces only (never half a "^[") */
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    char vis[8];
#define CV_PUT(str, len)                                                                       \
    do {                                                                                       \
        size_t l_ = (len);                                                                     \
        if (w == o && o + l_ < n) {                                                            \
            memcpy(out + o, (str), l_);                                                        \
            w += l_;                                                                           \
        }                                                                                      \
        o += l_;                                                                               \
    } while (0)
    while (*p) {
        unsigned char c = *p;
        if (c < 0x20 || c == 0x7f) {
            if (c == '\t' || (c == '\n' && keep_newlines)) {
                CV_PUT(p, 1);
            } else {
                vis[0] = '^';
                vis[1] = c == 0x7f ? '?' : (char)(c + 0x40);
                CV_PUT(vis, 2);
            }
            p++;
            continue;
        }
        if (c < 0x80) {
            CV_PUT(p, 1);
            p++;
            continue;
        }
        size_t len = cv_utf8_len(p, strlen((const char *)p));
        if (!len) { /* a lone byte some terminals read as C1: its value in hex */
            snprintf(vis, sizeof vis, "\\x%02x", c);
            CV_PUT(vis, 4);
            p++;
        } else if (len == 2 && c == 0xc2 && p[1] < 0xa0) { /* U+0080..U+009F: C1 controls */
            vis[0] = 'M';
            vis[1] = '-';
            vis[2] = '^';
            vis[3] = p[1] == 0x9f ? '?' : (char)(p[1] - 0x80 + 0x40);
            CV_PUT(vis, 4);
            p += 2;
        } else {
            CV_PUT(p, len);
            p += len;
        }
    }
#undef CV_PUT
    if (n) out[w] = '\0';
    return o;
}

void cv_fputs_safe(FILE *f, const char *s, bool keep_newlines)
{
    char buf[1024];
    size_t need = cv_safe_text(s, buf, sizeof buf, keep_newlines);
    if (need < sizeof buf) {
        fputs(buf, f);
        return;
    }
    char *big = xmalloc(need + 1);
    cv_safe_text(s, big, need + 1, keep_newlines);
    fputs(big, f);
    free(big);
}

void cv_vfprintf_safe(FILE *f, bool keep_newlines, const char *fmt, va_list ap)
{
    char buf[1024];
    va_list aq;
    va_copy(aq, ap);
    int k = vsnprintf(buf, sizeof buf, fmt, aq);
    va_end(aq);
    if (k < 0) return;
    if ((size_t)k < sizeof buf) {
        cv_fputs_safe(f, buf, keep_newlines);
        return;
    }
    char *big = xmalloc((size_t)k + 1);
    vsnprintf(big, (size_t)k + 1, fmt, ap);
    cv_fputs_safe(f, big, keep_newlines);
    free(big);
}

void cv_printf_safe(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cv_vfprintf_safe(stdout, true, fmt, ap);
    va_end(ap);
}

void cv_eprintf(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    char *s = buf;
    if ((size_t)k >= sizeof buf) {
        s = xmalloc((size_t)k + 1);
        va_start(ap, fmt);
        vsnprintf(s, (size_t)k + 1, fmt, ap);
        va_end(ap);
    }
    bool nl = k > 0 && s[k - 1] == '\n';
    if (nl) s[k - 1] = '\0';
    cv_fputs_safe(stderr, s, false);
    if (nl) fputc('\n', stderr);
    if (s != buf) free(s);
}

size_t cv_utf8_len(const unsigned char *s, size_t n)
{
    if (!n) return 0;
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned cp;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

size_t cv_utf8_cut(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    if (n < max) return n; /* all of it fits */
    /* back off over the continuation bytes of a character the cut would split */
    size_t k = n;
    while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80 && n - k < 4)
        k--;
    return ((unsigned char)s[k] & 0xc0) == 0x80 ? n : k;
}

void cv_fwrite_utf8(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t from = 0, i = 0;
    while (i < n) {
        size_t k = cv_utf8_len(u + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        /* one U+FFFD for the bytes of one would-be character: a lead byte and the
         * continuation bytes after it (half a character, an encoded surrogate) */
        unsigned char c = u[i];
        size_t want = c >= 0xc0 && c <= 0xdf   ? 2
                      : c >= 0xe0 && c <= 0xef ? 3
                      : c >= 0xf0 && c <= 0xf7 ? 4
                                               : 1;
        size_t j = 1;
        while (j < want && i + j < n && (u[i + j] & 0xc0) == 0x80)
            j++;
        fwrite(s + from, 1, i - from, f);
        fputs("\xef\xbf\xbd", f);
        i += j;
        from = i;
    }
    fwrite(s + from, 1, n - from, f);
}

#if defined(__SSE2__)
void floats_copy_stream(float *restrict d, const float *restrict s, size_t n)
{
    size_t i = 0;
    for (; i < n && ((uintptr_t)(d + i) & 15); i++)
        d[i] = s[i];
    for (; i + 16 <= n; i += 16) {
        __m128 a = _mm_loadu_ps(s + i), b = _mm_loadu_ps(s + i + 4);
        __m128 c = _mm_loadu_ps(s + i + 8), e = _mm_loadu_ps(s + i + 12);
        _mm_stream_ps(d + i, a);
        _mm_stream_ps(d + i + 4, b);
        _mm_stream_ps(d + i + 8, c);
        _mm_stream_ps(d + i + 12, e);
    }
    for (; i < n; i++)
        d[i] = s[i];
    _mm_sfence(); /* seen by other threads before whatever the caller publishes next */
}

void floats_zero_stream(float *d, size_t n)
{
    size_t i = 0;
    for (; i < n && ((uintptr_t)(d + i) & 15); i++)
        d[i] = 0.0f;
    __m128 z = _mm_setzero_ps();
    for (; i + 16 <= n; i += 16) {
        _mm_stream_ps(d + i, z);
        _mm_stream_ps(d + i + 4, z);
        _mm_stream_ps(d + i + 8, z);
        _mm_stream_ps(d + i + 12, z);
    }
    for (; i < n; i++)
        d[i] = 0.0f;
    _mm_sfence();
}
#else
void floats_copy_stream(float *restrict d, const float *restrict s, size_t n)
{
    memcpy(d, s, n * sizeof *d);
}

void floats_zero_stream(float *d, size_t n)
{
    memset(d, 0, n * sizeof *d);
}
#endif
