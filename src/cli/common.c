/* common.c - helpers shared by the subcommands. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("collviz: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

int cli_parse_format(const char *arg, bool *json)
{
    if (strcmp(arg, "json") == 0)
        *json = true;
    else if (strcmp(arg, "text") == 0)
        *json = false;
    else
        return cli_usage_error("--format %s: must be text or json", arg);
    return 0;
}
