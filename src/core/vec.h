/* vec.h - the one growable array and the one growable byte buffer: what every list that
 * grows as it is read or built uses, so the doubling, its first size and its overflow check
 * are written once. Like xrealloc, growing never returns NULL: running out of memory, or a
 * size past SIZE_MAX, ends the program through util_fatal (util.h).
 *
 * An array is a pointer, a count and a capacity (size_t), all the owner's:
 *     struct step *steps = NULL; size_t n = 0, cap = 0;
 *     *VEC_PUSH(steps, n, cap) = st;       (or VEC_GROW(steps, cap, n + k) for k places) */
#ifndef COLLVIZ_CORE_VEC_H
#define COLLVIZ_CORE_VEC_H

#include <stdarg.h>
#include <stddef.h>

/* The first capacity of an array that grows from empty (elements). */
#define VEC_FIRST 8

/* p (an array of elem-byte elements with *cap places) with room for at least `need`
 * elements: *cap doubles from VEC_FIRST until it is enough. Returns the (maybe moved)
 * array; the elements [0, old *cap) are kept, the rest are not initialised. */
void *vec_grow(void *p, size_t *cap, size_t need, size_t elem);

/* Room in arr for need elements (arr and cap are assigned). */
#define VEC_GROW(arr, cap, need) ((arr) = vec_grow((arr), &(cap), (need), sizeof *(arr)))
/* One more element at the end of arr (n elements, cap places): its address, n counted. */
#define VEC_PUSH(arr, n, cap) (VEC_GROW(arr, cap, (n) + 1), &(arr)[(n)++])

/* A byte buffer that is always a C string: s[len] is '\0' once anything was added (s is
 * NULL before). Zero-initialise it; vec_buf_free releases it. */
struct vec_buf {
    char *s;
    size_t len, cap;
};

void vec_buf_append(struct vec_buf *b, const void *bytes, size_t n);
void vec_buf_puts(struct vec_buf *b, const char *str);
void vec_buf_putc(struct vec_buf *b, char c);
void vec_buf_printf(struct vec_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void vec_buf_vprintf(struct vec_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The string, owned by the caller from now on ("" rather than NULL when empty); the
 * buffer is empty again. */
char *vec_buf_take(struct vec_buf *b);
void vec_buf_free(struct vec_buf *b);

#endif
