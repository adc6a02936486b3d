/* common.c - helpers shared by the subcommands. */
#include "cli/cli.h"

#include "backend/backend.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/coll.h"
#include "core/plan.h"
#include "core/util.h"
#include "cli/opt.h"

int cli_usage_error(const char *fmt, ...)
{
    /* the message names the bad value, which may hold anything: one line, control
     * characters made visible (a newline in a value shows as ^J) */
    va_list ap;
    fputs("collviz: ", stderr);
    va_start(ap, fmt);
    cv_vfprintf_safe(stderr, false, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

void cli_coll_names(char *buf, size_t n, const char *sep)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int c = 0; c < COLL_COUNT && len < n; c++) {
        int k = snprintf(buf + len, n - len, "%s%s", c ? sep : "", coll_name((enum coll)c));
        if (k < 0) break;
        len += (size_t)k;
    }
}

void cli_coll_help(FILE *f, const char *tail)
{
    static const char head[] = "COLLECTIVE:";
    int col = fprintf(f, "\n%s", head) - 1;
    for (int c = 0; c <= COLL_COUNT; c++) {
        const char *w = c < COLL_COUNT ? coll_name((enum coll)c) : tail;
        if (col + 1 + (int)strlen(w) > 80)
            col = fprintf(f, "\n%*s", (int)sizeof head - 1, "") - 1;
        col += fprintf(f, " %s", w);
    }
    fputc('\n', f);
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

int cli_parse_ring_order(const char *arg, int *ring, int *n)
{
    char err[200];
    if (plan_parse_ring(arg, ring, n, err, sizeof err) != CV_OK)
        return cli_usage_error("--ring-order: %s", err);
    return 0;
}

int cli_parse_ranks(const char *arg, int *ranks)
{
    long v;
    if (parse_long(arg, 1, CV_MAX_RANKS, &v) != CV_OK)
        return cli_usage_error("--ranks %s: need a whole number 1..%d", arg, CV_MAX_RANKS);
    *ranks = (int)v;
    return 0;
}

int cli_parse_seed(const char *arg, uint64_t *seed)
{
    if (parse_u64(arg, seed) != CV_OK)
        return cli_usage_error("--seed %s: must be a non-negative integer", arg);
    return 0;
}

int cli_option_error(int ch, const char *opt, const char *prog)
{
    if (ch == ':')
        return prog ? cli_usage_error("%s: option '%s' needs a value", prog, opt)
                    : cli_usage_error("%s: needs a value", opt);
    return prog ? cli_usage_error("%s: unknown option '%s' (try collviz %s --help)", prog, opt,
                                  prog)
                : cli_usage_error("%s: unknown option (try --help)", opt);
}

int cli_quoted_bad_option(const struct opt_cmd *c, int ch, const char *opt)
{
    if (ch == ':')
        cv_eprintf("collviz %s: option '%s' needs a value\n", c->prog, opt);
    else
        cv_eprintf("collviz %s: unknown option '%s' (try --help)\n", c->prog, opt);
    return 2;
}

int cli_backend_for_job(const char **name, const char *dflt)
{
    char err[400];
    const char *b;
    if (backend_for_job(*name, &b, err, sizeof err) != CV_OK) return cli_usage_error("%s", err);
    *name = b ? b : dflt;
    return -1;
}

void cli_words_start(struct cli_words *w, const char *head, int indent)
{
    w->col = printf("%*s%s", indent, "", head);
    w->indent = indent + 2;
    w->any = false;
}

void cli_words_add(struct cli_words *w, const char *word)
{
    /* stdio's own puts, not printf: a ring of 16,384 ranks is that many words */
    int n = (int)strlen(word);
    if (w->any && w->col + 1 + n > 80) {
        putchar('\n');
        for (int i = 0; i < w->indent; i++)
            putchar(' ');
        fputs(word, stdout);
        w->col = w->indent + n;
    } else {
        putchar(' ');
        fputs(word, stdout);
        w->col += 1 + n;
    }
    w->any = true;
}

void cli_words_end(struct cli_words *w)
{
    printf("\n");
    w->col = 0;
}
