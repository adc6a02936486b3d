/* types.c - the table of exercise types (EX_TYPES in types.h), read by everything that
 * does something different per type. */
#include "lesson/types/types.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"

static int grade_unknown(const struct lesson_exercise *ex, const struct ex_variant *v,
                         const char *in, struct ex_grade *g)
{
    (void)ex;
    (void)v;
    (void)in;
    g->verdict = EX_BAD_INPUT;
    snprintf(g->msg, sizeof g->msg, "unknown exercise type");
    return CV_EINVAL;
}

static void text_none(const struct lesson_exercise *ex, const struct ex_variant *v, char *buf,
                      size_t n)
{
    (void)ex;
    (void)v;
    if (n) buf[0] = '\0';
}

static void answer_none(const struct lesson_exercise *ex, const struct ex_variant *v,
                        ex_number_fmt *fmt, char *buf, size_t n)
{
    (void)fmt;
    text_none(ex, v, buf, n);
}

static void json_none(const struct lesson_exercise *ex, struct cJSON *x)
{
    (void)ex;
    (void)x;
}

static const struct exercise_type_ops ex_type_unknown = {.name = "?",
                                                         .keys = "",
                                                         .required = "",
                                                         .grade = grade_unknown,
                                                         .answer = answer_none,
                                                         .how = text_none,
                                                         .json = json_none};

#define EX_TYPE_ROW(e, nm, ops) [e] = &ops,
static const struct exercise_type_ops *const table[LEX_TYPE_COUNT] = {EX_TYPES(EX_TYPE_ROW)};
#undef EX_TYPE_ROW

const struct exercise_type_ops *ex_type(int t)
{
    return t >= 0 && t < LEX_TYPE_COUNT ? table[t] : &ex_type_unknown;
}

enum ex_answer_form ex_answer_form(const struct lesson_exercise *ex)
{
    return ex_type((int)ex->type)->form;
}

void ex_paper_note(const struct lesson_exercise *ex, bool boxes, char *buf, size_t n)
{
    const struct exercise_type_ops *o = ex_type((int)ex->type);
    if (o->paper_note)
        o->paper_note(ex, boxes, buf, n);
    else if (n)
        buf[0] = '\0';
}

size_t ex_paper_boxes(const struct lesson_exercise *ex)
{
    const struct exercise_type_ops *o = ex_type((int)ex->type);
    return o->paper_boxes ? o->paper_boxes(ex) : 0;
}

const char *lesson_ex_type_name(enum lesson_ex_type t)
{
    return ex_type((int)t)->name;
}

/* Is key one of the words of list? */
static bool in_list(const char *list, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = list; *p;) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (w && w == n && memcmp(p, key, n) == 0) return true;
        p += w;
    }
    return false;
}

bool ex_type_has_key(int t, const char *key)
{
    return in_list(ex_type(t)->keys, key);
}

bool ex_type_requires(int t, const char *key)
{
    return in_list(ex_type(t)->required, key);
}

void ex_answer_text(const struct lesson_exercise *ex, const struct ex_variant *v,
                    ex_number_fmt *fmt, char *buf, size_t n)
{
    if (!n) return;
    buf[0] = '\0';
    ex_type((int)ex->type)->answer(ex, v, fmt ? fmt : ex_format_number, buf, n);
}
