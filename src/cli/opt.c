/* opt.c - the option tables (opt.h): a table becomes getopt_long's arrays, the parse, and
 * the options part of --help. */
#include "cli/opt.h"

#include <stdbool.h>
#include <string.h>

#include "cli/cli.h"

static const struct opt opt_help_entry = {"help", 'h', NULL, "this text", NULL, 0};

int opt_true(void *ctx, const struct opt *self, const char *arg)
{
    (void)arg;
    *(bool *)((char *)ctx + self->off) = true;
    return OPT_GO;
}

int opt_string(void *ctx, const struct opt *self, const char *arg)
{
    *(const char **)((char *)ctx + self->off) = arg;
    return OPT_GO;
}

/* Whether entry i repeats a long name or a letter of an earlier entry, or -h/--help. */
static bool opt_repeats(const struct opt *t, int i)
{
    if (strcmp(t[i].name, "help") == 0 || t[i].letter == 'h') return true;
    for (int k = 0; k < i; k++)
        if (strcmp(t[k].name, t[i].name) == 0 || (t[i].letter && t[k].letter == t[i].letter))
            return true;
    return false;
}

int opt_getopt(const struct opt *t, struct option *longs, size_t nlongs, char *shorts,
               size_t nshorts)
{
    size_t n = 0, s = 0;
    if (nshorts < 2) return -1;
    for (int i = 0; t[i].name; i++)
        if (opt_repeats(t, i)) return -1;
    shorts[s++] = ':';
    for (int i = 0;; i++) {
        const struct opt *o = t[i].name ? &t[i] : &opt_help_entry;
        if (n + 1 >= nlongs) return -1;
        longs[n++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL,
                                     o->letter ? o->letter : 256 + i};
        if (o->letter) {
            if (s + 3 >= nshorts) return -1;
            shorts[s++] = (char)o->letter;
            if (o->arg) shorts[s++] = ':';
        }
        if (!t[i].name) break;
    }
    longs[n] = (struct option){NULL, 0, NULL, 0};
    shorts[s] = '\0';
    return (int)n;
}

/* The entry getopt_long's value ch stands for, or NULL (then ch is 'h', ':' or '?'). */
static const struct opt *opt_of(const struct opt *t, int ch)
{
    for (int i = 0; t[i].name; i++)
        if (t[i].letter ? ch == t[i].letter : ch == 256 + i) return &t[i];
    return NULL;
}

int opt_parse(const struct opt_cmd *c, int argc, char **argv, void *ctx)
{
    struct option longs[OPT_MAX + 2];
    char shorts[3 * OPT_MAX + 8];
    if (opt_getopt(c->opts, longs, OPT_MAX + 2, shorts, sizeof shorts) < 0)
        return cli_usage_error("%s: its option table repeats an option or has more than %d",
                               c->prog, OPT_MAX);
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const struct opt *o = opt_of(c->opts, ch);
        if (o) {
            int rc = o->set(ctx, o, o->arg ? optarg : NULL);
            if (rc != OPT_GO) return rc;
        } else if (ch == 'h') {
            opt_print_help(stdout, c);
            return 0;
        } else {
            const char *bad = argv[optind - 1];
            return c->bad_option ? c->bad_option(c, ch, bad)
                                 : cli_option_error(ch, bad, c->prog);
        }
    }
    return OPT_GO;
}

/* Characters on the screen of s[0..n) (UTF-8: continuation bytes take no column). */
static int opt_cols(const char *s, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* "-b, --minbytes SIZE" / "--ranks N" into buf; its width. */
static int opt_left(const struct opt *o, char *buf, size_t n)
{
    char letter[8] = "";
    if (o->letter) snprintf(letter, sizeof letter, "-%c, ", o->letter);
    snprintf(buf, n, "%s--%s%s%s", letter, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    return opt_cols(buf, strlen(buf));
}

/* Help text h from column col (the cursor is at col already), its words wrapped before
 * OPT_WIDTH, "\n" a line break; continuation lines indented to col. */
static void opt_wrap(FILE *f, const char *h, int col)
{
    int at = col;
    bool line_empty = true;
    while (*h) {
        if (*h == '\n') {
            fprintf(f, "\n%*s", col, "");
            at = col;
            line_empty = true;
            h++;
            continue;
        }
        if (*h == ' ') {
            h++;
            continue;
        }
        size_t n = strcspn(h, " \n");
        int w = opt_cols(h, n);
        if (!line_empty && at + 1 + w >= OPT_WIDTH) {
            fprintf(f, "\n%*s", col, "");
            at = col;
            line_empty = true;
        }
        if (!line_empty) {
            fputc(' ', f);
            at++;
        }
        fwrite(h, 1, n, f);
        at += w;
        line_empty = false;
        h += n;
    }
    fputc('\n', f);
}

void opt_print_options(FILE *f, const struct opt *t)
{
    char buf[160];
    int width = opt_left(&opt_help_entry, buf, sizeof buf);
    for (int i = 0; t[i].name; i++) {
        int w = opt_left(&t[i], buf, sizeof buf);
        if (t[i].help && w <= OPT_COL_MAX && w > width) width = w;
    }
    int col = 2 + width + 2;
    for (int i = 0;; i++) {
        const struct opt *o = t[i].name ? &t[i] : &opt_help_entry;
        if (o->help) {
            int w = opt_left(o, buf, sizeof buf);
            fprintf(f, "  %s", buf);
            if (w > width)
                fprintf(f, "\n%*s", col, "");
            else
                fprintf(f, "%*s", col - 2 - w, "");
            opt_wrap(f, o->help, col);
        }
        if (!t[i].name) break;
    }
}

void opt_print_help(FILE *f, const struct opt_cmd *c)
{
    fputs(c->usage, f);
    fputs("\nOptions:\n", f);
    opt_print_options(f, c->opts);
    if (c->notes) c->notes(f);
    if (c->after) {
        fputc('\n', f);
        fputs(c->after, f);
    }
}
