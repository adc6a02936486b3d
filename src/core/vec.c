/* vec.c - the growable array and byte buffer (vec.h). */
#include "core/vec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

void *vec_grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return p;
    if (elem == 0) elem = 1;
    size_t n = *cap ? *cap : VEC_FIRST;
    while (n < need) {
        if (n > SIZE_MAX / 2) util_fatal("a list grew past %zu elements", need);
        n *= 2;
    }
    if (n > SIZE_MAX / elem)
        util_fatal("a list of %zu elements of %zu bytes is too large", n, elem);
    p = xrealloc(p, n * elem);
    *cap = n;
    return p;
}

/* Room for n more bytes and the '\0' after them. */
static void vec_buf_room(struct vec_buf *b, size_t n)
{
    if (n > SIZE_MAX - b->len - 1) util_fatal("a text grew past %zu bytes", b->len);
    b->s = vec_grow(b->s, &b->cap, b->len + n + 1, 1);
}

void vec_buf_append(struct vec_buf *b, const void *bytes, size_t n)
{
    vec_buf_room(b, n);
    if (n) memcpy(b->s + b->len, bytes, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void vec_buf_puts(struct vec_buf *b, const char *str)
{
    vec_buf_append(b, str, strlen(str));
}

void vec_buf_putc(struct vec_buf *b, char c)
{
    vec_buf_append(b, &c, 1);
}

void vec_buf_vprintf(struct vec_buf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) { /* a bad format or wide character: nothing to add */
        va_end(again);
        return;
    }
    vec_buf_room(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
    va_end(again);
    b->len += (size_t)n;
}

void vec_buf_printf(struct vec_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vec_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *vec_buf_take(struct vec_buf *b)
{
    char *s = b->s ? b->s : xstrdup("");
    *b = (struct vec_buf){0};
    return s;
}

void vec_buf_free(struct vec_buf *b)
{
    free(b->s);
    *b = (struct vec_buf){0};
}
