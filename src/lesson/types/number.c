/* number.c - the number exercise: a formula over params, its units and tolerance, variants
 * (`param:`, `answer:`, `units:`, `tolerance:`, `where:`, `wrong:`, `integer:`). Its grading
 * and diagnosis of slips (ex_grade_number) live in exercise.c beside the units and the
 * number reading it shares with variants. */
#include <stdio.h>
#include <string.h>

#include "lesson/exercise.h"
#include "lesson/types/types.h"

static void answer(const struct lesson_exercise *e, const struct ex_variant *v,
                   ex_number_fmt *fmt, char *buf, size_t n)
{
    char num[48];
    fmt(v && v->seed ? v->answer : e->answer, num, sizeof num);
    snprintf(buf, n, "%s%s%s", num, e->units[0] ? " " : "", e->units);
}

static void how(const struct lesson_exercise *e, const struct ex_variant *v, char *buf,
                size_t n)
{
    if (e->units[0])
        snprintf(buf, n, "answer in %s (or another unit of the same kind)", e->units);
    else
        snprintf(buf, n, "answer with a number");
    if (!ex_has_variants(e)) return;
    size_t o = strlen(buf);
    if (o >= n) return;
    if (v && v->seed)
        snprintf(buf + o, n - o, "; variant %llu (v: other numbers)",
                 (unsigned long long)v->seed);
    else
        snprintf(buf + o, n - o, "; the lecture's numbers (v: other numbers)");
}

const struct exercise_type_ops ex_type_number = {
    .name = "number",
    .keys = "param answer units tolerance where wrong integer",
    .required = "answer units",
    .grade = ex_grade_number,
    .answer = answer,
    .how = how,
    .lists_options = false,
    .paper_space = 46,
};
