/* util.h - allocation wrappers that never return NULL, error codes, small helpers.
 *
 * Every module returns an `int` status from this enum and, where a caller needs words,
 * writes a one-line message into a caller-supplied buffer (err, errlen). Nothing below
 * main() calls exit(): the one fatal path (out of memory) restores the terminal first
 * through the hook installed with util_set_fatal_hook(). */
#ifndef COLLVIZ_CORE_UTIL_H
#define COLLVIZ_CORE_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cv_status {
    CV_OK = 0,
    CV_EINVAL,       /* a bad argument: the message names it */
    CV_ENOMEM,       /* would not fit in memory (checked before allocating) */
    CV_EUNSUPPORTED, /* e.g. an algorithm that does not exist for a collective */
    CV_EUNAVAIL,     /* a backend that cannot run here (no GPU, no driver) */
    CV_ETIMEOUT,     /* a wait passed its deadline; the operation was aborted */
    CV_EBACKEND,     /* the backend reported an error */
    CV_ECANCELLED,   /* the user cancelled */
};

const char *cv_status_name(int status);

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* `bytes` for a buffer that is streamed through: 2 MiB aligned and marked for transparent
 * huge pages when it is 2 MiB or more (512x fewer page faults, fewer TLB misses), 64-byte
 * aligned below. NULL when the memory cannot be had; give it back with free(). */
void *huge_alloc(size_t bytes);
/* n floats copied, or zeroed, with stores that stream past the caches (x86-64's
 * non-temporal stores; elsewhere memcpy / memset): for buffers of a MiB and more that
 * are not read again at once. A plain store into a line not in cache first reads the
 * line, so these move two bytes of memory per byte copied instead of three, and one per
 * byte zeroed instead of two. Done (fenced) when they return. */
void floats_copy_stream(float *restrict d, const float *restrict s, size_t n);
void floats_zero_stream(float *d, size_t n);

/* Called (once) before the process dies of an allocation failure, so the UI can end
 * curses mode and the message is readable. */
void util_set_fatal_hook(void (*hook)(void));
void util_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* snprintf into err (if non-NULL) and return status: `return cv_err(err, n, CV_EINVAL, ...)`.
 */
int cv_err(char *err, size_t errlen, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Append to buf (n bytes) at offset o, like snprintf; returns the offset after what it
 * wrote or would have written, so calls chain and a truncated buffer never overflows. */
size_t cv_cat(char *buf, size_t n, size_t o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Monotonic clock in seconds. */
double now_s(void);

/* Parse a byte size: digits with an optional upper-case K, M, G or T (powers of 1024, as
 * nccl-tests), optionally followed by "iB": "4096", "64M", "64MiB". Nothing else ("1k",
 * "64MB", " 4", "+4", "0x10"). Returns CV_OK or CV_EINVAL. */
int parse_size(const char *s, size_t *out);
/* Format bytes as nccl-tests-style short text: "64 MiB", "1 KiB", "12 B". */
void format_size(size_t bytes, char *buf, size_t n);

/* Strict number parsing, the one place every option and lesson value is read: the whole
 * string must be a plain decimal number ("-" allowed in front; no "+", blanks, hex, octal,
 * inf or nan) in [lo, hi]. parse_u64 takes no sign at all. */
int parse_long(const char *s, long lo, long hi, long *out);
int parse_u64(const char *s, uint64_t *out);
int parse_double(const char *s, double lo, double hi, double *out);

/* ---- text from untrusted sources (lesson and log files, arguments) on a terminal ----------
 * Every control character is made visible, so no byte from a file or an argument can drive
 * the terminal: C0 as ^X (ESC is "^["), DEL as "^?", the C1 controls U+0080..U+009F as
 * "M-^X" (cat -v's spelling), a byte that is not UTF-8 as "\xNN". Tabs stay, and newlines
 * when keep_newlines (a one-line message shows "^J" instead). */
/* Into out (n bytes, always terminated); returns the length the whole text needs. */
size_t cv_safe_text(const char *s, char *out, size_t n, bool keep_newlines);
void cv_fputs_safe(FILE *f, const char *s, bool keep_newlines);
void cv_vfprintf_safe(FILE *f, bool keep_newlines, const char *fmt, va_list ap);
/* printf to stdout through cv_fputs_safe (newlines kept). */
void cv_printf_safe(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* fprintf(stderr, ...) for messages that quote a value: one line, made safe as above (a
 * final newline in fmt is kept). */
void cv_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 when it is not one. */
size_t cv_utf8_len(const unsigned char *s, size_t n);
/* The most bytes of s, at most max, that end on a character boundary (a cut there never
 * leaves half a character). */
size_t cv_utf8_cut(const char *s, size_t max);
/* fwrite of s (n bytes) as valid UTF-8: what is not (a stray continuation byte, half a
 * character, an encoded surrogate, a raw 0x9b) is written as U+FFFD, one for each
 * would-be character. The last guard of every output that promises UTF-8 (JSON, HTML). */
void cv_fwrite_utf8(FILE *f, const char *s, size_t n);

/* ---- the one rule for memory sized by input ------------------------------------------
 * Bytes of memory this process may still take: the smaller of the machine's MemAvailable
 * and what its limits leave (RLIMIT_AS less what it maps now, RLIMIT_DATA less its data:
 * `ulimit -v`); 0 if nothing is known. */
size_t mem_available_bytes(void);
/* Bytes of address space this process may still map: RLIMIT_AS (`ulimit -v`) less what it
 * maps now; SIZE_MAX when there is no such limit. For mappings reserved whole but touched
 * only in part (a library's work buffers), which count against the limit, not the RAM. */
size_t mem_address_room(void);
/* Before allocating what a user's numbers ask for (an option, a lesson, a protocol job):
 * CV_OK when `need` bytes fit in mem_available_bytes(), else CV_ENOMEM and one line in err:
 * "<what> needs 48 GiB of memory; 11.2 GiB available", what made from fmt. A double, so a
 * product of counts cannot wrap; NaN, negative or 2^62 and more never fit. */
int mem_check(double need, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
