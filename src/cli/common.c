/* common.c - helpers shared by the subcommands. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

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
