/* number.c - the number exercise: a formula over params, its units and tolerance, variants
 * (`param:`, `answer:`, `units:`, `tolerance:`, `where:`, `wrong:`, `integer:`). Its grading
 * and diagnosis of slips (ex_grade_number) live in exercise.c beside the units and the
 * number reading it shares with variants. */
#include <cjson/cJSON.h>
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

static void json(const struct lesson_exercise *e, struct cJSON *x)
{
    cJSON *ps = cJSON_AddArrayToObject(x, "params");
    for (size_t i = 0; i < e->nparams; i++) {
        const struct lesson_param *p = &e->params[i];
        cJSON *pj = cJSON_CreateObject();
        cJSON_AddStringToObject(pj, "name", p->name);
        cJSON_AddNumberToObject(pj, "value", p->value);
        if (p->ranged) {
            cJSON_AddNumberToObject(pj, "lo", p->lo);
            cJSON_AddNumberToObject(pj, "hi", p->hi);
        }
        cJSON_AddBoolToObject(pj, "integer", p->integer);
        if (p->step > 0) cJSON_AddNumberToObject(pj, "step", p->step);
        if (p->nchoices) {
            cJSON *cs = cJSON_AddArrayToObject(pj, "choices");
            for (size_t k = 0; k < p->nchoices; k++)
                cJSON_AddItemToArray(cs, cJSON_CreateNumber(p->choices[k]));
        }
        cJSON_AddItemToArray(ps, pj);
    }
    cJSON *ws = cJSON_AddArrayToObject(x, "where");
    for (size_t i = 0; i < e->nwhere; i++)
        cJSON_AddItemToArray(ws, cJSON_CreateString(e->where[i]));
    cJSON *wr = cJSON_AddArrayToObject(x, "wrong");
    for (size_t i = 0; i < e->nwrong; i++) {
        cJSON *wj = cJSON_CreateObject();
        cJSON_AddStringToObject(wj, "value", e->wrong[i].formula);
        cJSON_AddStringToObject(wj, "message", e->wrong[i].msg);
        cJSON_AddItemToArray(wr, wj);
    }
    cJSON_AddBoolToObject(x, "integer", e->integer);
    cJSON_AddStringToObject(x, "formula", e->formula);
    cJSON_AddNumberToObject(x, "answer", e->answer);
    cJSON_AddStringToObject(x, "units", e->units);
    cJSON_AddNumberToObject(x, "tolerance", e->tolerance);
    cJSON_AddBoolToObject(x, "variants", ex_has_variants(e));
}

/* "answer in GB/s": the unit the answer is asked in. */
static void paper_note(const struct lesson_exercise *e, bool boxes, char *buf, size_t n)
{
    (void)boxes;
    if (e->units[0])
        snprintf(buf, n, "answer in %s", e->units);
    else if (n)
        buf[0] = '\0';
}

const struct exercise_type_ops ex_type_number = {
    .name = "number",
    .keys = "param answer units tolerance where wrong integer",
    .required = "answer units",
    .grade = ex_grade_number,
    .answer = answer,
    .how = how,
    .json = json,
    .form = EX_ANSWER_NUMBER,
    .lists_options = false,
    .variants = true,
    .paper_space = 46,
    .paper_note = paper_note,
};
