/* util.c - allocation wrappers, status names, clocks and strict number parsing. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int parse_size(const char *s, size_t *out)
{
    if (!s || !isdigit((unsigned char)s[0])) return CV_EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return CV_EINVAL;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0':
        break;
    case 'K':
        shift = 10;
        end++;
        break;
    case 'M':
        shift = 20;
        end++;
        break;
    case 'G':
        shift = 30;
        end++;
        break;
    case 'T':
        shift = 40;
        end++;
        break;
    default:
        return CV_EINVAL;
    }
    if (shift && (*end == 'B' || *end == 'b'))
        end++; /* accept "64MB" / "64MiB"-ish spellings as the same power of 1024 */
    else if (shift && *end == 'i' && (end[1] == 'B' || end[1] == 'b'))
        end += 2;
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

int parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s) return CV_EINVAL;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return CV_EINVAL;
    *out = v;
    return CV_OK;
}

int parse_u64(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)s[0])) return CV_EINVAL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end != '\0') return CV_EINVAL;
    *out = v;
    return CV_OK;
}

size_t mem_available_bytes(void)
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
