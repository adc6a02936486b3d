/* test_json.c - the CLI's one JSON writer (src/cli/json.c, on cJSON): the exact text it
 * prints for strings that need escaping (quote, backslash, newline, tab, a control
 * character; UTF-8 passes through), numbers (integers exact, reals rounded to the digits
 * asked for, NaN and infinity as null), NULL strings, booleans and nesting; and that the
 * text parses back to the same values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/json.h"

static char *print_to_string(cJSON *root)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(cli_json_print(f, root), 0);
    fclose(f);
    return buf;
}

static void test_exact_text(void **state)
{
    (void)state;
    cJSON *d = cli_json_object();
    cli_json_str(d, "s",
                 "a\"b\\c\nd\te\x01"
                 "f \u03a3");
    cli_json_str(d, "none", NULL);
    cli_json_num(d, "big", 1099511627776.0); /* 2^40: no exponent, every digit */
    cli_json_num(d, "neg", -1);
    cli_json_real(d, "r6", 34.41354999, 6);
    cli_json_real(d, "r9", 1.0f / 3.0f, 9);
    cli_json_real(d, "nan", NAN, 6);
    cli_json_num(d, "inf", INFINITY);
    cli_json_bool(d, "t", true);
    cJSON *a = cli_json_add_array(d, "a");
    cli_json_num(a, NULL, 1);
    cli_json_null(a, NULL);
    cJSON *o = cli_json_add_object(a, NULL);
    cli_json_bool(o, "f", false);
    char *text = print_to_string(d);
    assert_string_equal(text, "{\"s\":\"a\\\"b\\\\c\\nd\\te\\u0001f \u03a3\",\"none\":null,"
                              "\"big\":1099511627776,\"neg\":-1,\"r6\":34.4135,"
                              "\"r9\":0.333333343,\"nan\":null,\"inf\":null,\"t\":true,"
                              "\"a\":[1,null,{\"f\":false}]}\n");
    /* And it reads back as what was written. */
    cJSON *back = cJSON_Parse(text);
    assert_non_null(back);
    assert_string_equal(cJSON_GetObjectItem(back, "s")->valuestring, "a\"b\\c\nd\te\x01"
                                                                     "f \u03a3");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(back, "none")));
    assert_true(cJSON_GetObjectItem(back, "big")->valuedouble == 1099511627776.0);
    assert_true((float)cJSON_GetObjectItem(back, "r9")->valuedouble == 1.0f / 3.0f);
    cJSON_Delete(back);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
