/* choice.c - the choice exercise: options, one of them right (`option:`, `correct:`);
 * answered with the option's number. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "lesson/exercise.h"
#include "lesson/types/types.h"

static int grade(const struct lesson_exercise *ex, const struct ex_variant *v, const char *in,
                 struct ex_grade *g)
{
    (void)v;
    long n;
    if (parse_long(in, 1, (long)ex->noptions, &n) != CV_OK) {
        g->verdict = EX_BAD_INPUT;
        snprintf(g->msg, sizeof g->msg, "type the number of an option (1..%zu)", ex->noptions);
        return CV_OK;
    }
    const char *text = ex->options[n - 1];
    if (n == ex->correct) {
        g->verdict = EX_RIGHT;
        snprintf(g->msg, sizeof g->msg, "right: %ld) %s", n, text);
        return CV_OK;
    }
    g->verdict = EX_WRONG;
    snprintf(g->diagnosis, sizeof g->diagnosis, "option");
    const char *why = ex->option_why ? ex->option_why[n - 1] : NULL;
    int tn = (int)cv_utf8_cut(text, 120); /* a long option shortened, never mid-character */
    if (why) {
        char w[250];
        ex_text_format(ex, NULL, why, w, sizeof w);
        /* an option that ends its own sentence gets no second full stop */
        bool ends = tn > 0 && strchr(".?!", text[tn - 1]);
        snprintf(g->msg, sizeof g->msg, "not right: %ld) %.*s%s %s", n, tn, text,
                 ends ? "" : ".", w);
    } else {
        snprintf(g->msg, sizeof g->msg, "not right: %ld) %.*s", n, tn, text);
    }
    return CV_OK;
}

static void answer(const struct lesson_exercise *e, const struct ex_variant *v,
                   ex_number_fmt *fmt, char *buf, size_t n)
{
    (void)v;
    (void)fmt;
    if (e->correct >= 1 && (size_t)e->correct <= e->noptions)
        snprintf(buf, n, "option %d: %s", e->correct, e->options[e->correct - 1]);
}

static void how(const struct lesson_exercise *e, const struct ex_variant *v, char *buf,
                size_t n)
{
    (void)e;
    (void)v;
    snprintf(buf, n, "answer with the option's number");
}

static void json(const struct lesson_exercise *e, struct cJSON *x)
{
    cJSON *os = cJSON_AddArrayToObject(x, "options");
    cJSON *why = cJSON_AddArrayToObject(x, "why");
    for (size_t i = 0; i < e->noptions; i++) {
        cJSON_AddItemToArray(os, cJSON_CreateString(e->options[i]));
        cJSON_AddItemToArray(why, e->option_why[i] ? cJSON_CreateString(e->option_why[i])
                                                   : cJSON_CreateNull());
    }
    cJSON_AddNumberToObject(x, "correct", e->correct);
    if (e->shows_line) {
        cJSON *sh = cJSON_AddArrayToObject(x, "shows");
        for (size_t i = 0; i < e->nshows; i++)
            cJSON_AddItemToArray(sh, cJSON_CreateString(e->shows[i]));
    }
}

const struct exercise_type_ops ex_type_choice = {
    .name = "choice",
    .keys = "option correct shows",
    .required = "correct",
    .grade = grade,
    .answer = answer,
    .how = how,
    .json = json,
    .form = EX_ANSWER_OPTION,
    .lists_options = true,
    .paper_space = 0,
};
