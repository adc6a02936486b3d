/* number.c - the number exercise: a formula over params, its units and tolerance, variants
 * (`param:`, `answer:`, `units:`, `tolerance:`, `where:`, `wrong:`, `integer:`). Its grading
 * and diagnosis of slips (ex_grade_number) live in exercise.c beside the units and the
 * number reading it shares with variants. */
#include <stdio.h>

#include "lesson/exercise.h"
#include "lesson/types/types.h"

static void answer(const struct lesson_exercise *e, const struct ex_variant *v,
                   ex_number_fmt *fmt, char *buf, size_t n)
{
    char num[48];
    fmt(v && v->seed ? v->answer : e->answer, num, sizeof num);
    snprintf(buf, n, "%s%s%s", num, e->units[0] ? " " : "", e->units);
}

/* The player adds which numbers these are when the exercise has variants. */
static void how(const struct lesson_exercise *e, const struct ex_variant *v, char *buf,
                size_t n)
{
    (void)v;
    if (e->units[0])
        snprintf(buf, n, "answer in %s (or another unit of the same kind)", e->units);
    else
        snprintf(buf, n, "answer with a number");
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
