/* fuzz_lesson.c - libFuzzer target for what reads untrusted lesson files: the parser (bytes,
 * front matter, slides, md4c narration, scene and exercise blocks), the formula evaluator
 * (muParser behind our whitelist), variants, grading and holds answers. Any crash, leak,
 * sanitizer report or hang is a bug. Built and run by `make fuzz` (long) and
 * tests/fuzz/run.sh (short, part of `make test`). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/lesson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool fuzz_utf8(const char *s, size_t n)
{
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = cv_utf8_len((const unsigned char *)s + i, n - i))) return false;
    return true;
}

/* Issue 29: a text with its templates filled is whole (never cut at 2,047 bytes), valid
 * UTF-8 when the lesson's text is, and a cut into a fixed place (ex_text_format) is its
 * prefix on a character boundary. */
static void fuzz_text_whole(const struct lesson_exercise *x, const struct ex_variant *v,
                            const char *text)
{
    char *t = ex_text(x, v, text);
    size_t n = strlen(t);
    if (text && fuzz_utf8(text, strlen(text)) && !fuzz_utf8(t, n)) __builtin_trap();
    char small[40];
    ex_text_format(x, v, text, small, sizeof small);
    size_t k = strlen(small);
    if (memcmp(small, t, k) != 0 || (k < n && k + 4 < sizeof small - 1)) __builtin_trap();
    if (fuzz_utf8(t, n) && !fuzz_utf8(small, k)) __builtin_trap();
    free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the whole input as a lesson file (not NUL-terminated: the parser must not need it) */
    struct lesson L;
    struct lesson_errors errs = {0};
    if (lesson_parse("fuzz.md", (const char *)data, size, &L, &errs) == CV_OK) {
        /* the last line of the input doubles as a student's answer */
        char answer[128] = "";
        size_t k = size;
        while (k > 0 && data[k - 1] != '\n' && size - k < sizeof answer - 1)
            k--;
        memcpy(answer, data + k, size - k);
        answer[size - k] = '\0';
        uint64_t seed = size ? data[0] * 131u + data[size / 2] : 1;
        for (size_t s = 0; s < L.nslides; s++)
            for (size_t e = 0; e < L.slides[s].nex; e++) {
                const struct lesson_exercise *x = &L.slides[s].ex[e];
                struct ex_grade g;
                ex_grade(x, NULL, answer, &g);
                char buf[512];
                fuzz_text_whole(x, NULL, x->prompt);
                /* templates in every text, the predict-first scan of the slide */
                for (size_t h = 0; h < x->nhints; h++)
                    fuzz_text_whole(x, NULL, x->hints[h]);
                ex_text_format(x, NULL, x->solution, buf, sizeof buf);
                ex_answer_in_text(x, L.slides[s].title, buf, sizeof buf);
                ex_answer_in_text(x, answer, buf, sizeof buf);
                if (ex_has_variants(x)) {
                    struct ex_variant v;
                    char err[200];
                    if (ex_variant(x, seed, &v, err, sizeof err) == CV_OK) {
                        ex_grade(x, &v, answer, &g);
                        fuzz_text_whole(x, &v, x->prompt);
                        ex_text_format(x, &v, x->solution, buf, sizeof buf);
                        ex_variant_check(x, &v, err, sizeof err);
                    }
                }
            }
        lesson_free(&L);
    }
    lesson_errors_free(&errs);

    /* a short input as a formula over two variables, straight to the evaluator */
    if (size <= LESSON_MAX_FORMULA) {
        char f[LESSON_MAX_FORMULA + 1];
        memcpy(f, data, size);
        f[size] = '\0';
        const char *names[] = {"x", "y"};
        double vals[] = {3.5, 8}, r;
        char err[200];
        ex_formula_eval(f, names, vals, 2, &r, err, sizeof err);
        bool holds;
        ex_condition_eval(f, names, vals, 2, &holds, err, sizeof err);
    }
    return 0;
}
