/* opt.h - one option table per command. A command describes each of its options once, as
 * {long name, short letter, value name, help, setter}; from the table this module makes the
 * getopt_long array and short-option string, runs the parse, and writes the options part
 * of --help in aligned columns. -h/--help is added to every table. Adding an option is one
 * table entry (and its line in docs/collviz.1.scd). */
#ifndef COLLVIZ_CLI_OPT_H
#define COLLVIZ_CLI_OPT_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* A setter's "go on"; any other return value is the command's exit status (0 after it
 * printed something and is done, 2 after a bad value's one line on stderr). */
#define OPT_GO (-1)
/* The most entries a table may have (the parse's arrays are this size). */
#define OPT_MAX 48
/* --help's layout: option column up to this wide (else the help starts below it), lines up
 * to OPT_WIDTH - 1 characters. */
#define OPT_COL_MAX 22
#define OPT_WIDTH 80

/* The text of a macro's value: "--ranks N  1.." OPT_STR(CV_MAX_RANKS) in a help string. */
#define OPT_STR_(x) #x
#define OPT_STR(x) OPT_STR_(x)

struct opt {
    const char *name; /* long name without "--"; NULL ends the table */
    int letter;       /* short option letter, 0 for none */
    const char *arg;  /* the value's name in --help ("N", "SIZE"); NULL: takes no value */
    const char *help; /* words, wrapped to the help column; "\n" breaks the line. NULL: not
                         listed (an alias of the entry before it) */
    /* Apply the option to ctx: arg is its value (NULL for a flag). Returns OPT_GO, or an
     * exit status after printing why (bad value: one line naming it, status 2). */
    int (*set)(void *ctx, const struct opt *self, const char *arg);
    size_t off; /* for opt_true / opt_string: the field's offsetof in ctx */
};

/* The entry that ends a table. */
#define OPT_END                                                                                \
    {                                                                                          \
        NULL, 0, NULL, NULL, NULL, 0                                                           \
    }

struct opt_cmd {
    const char *prog;       /* the command's name in messages ("bench", "model --fit") */
    const struct opt *opts; /* the table, ended by {NULL} */
    const char *usage;      /* --help's text before the options (ends with "\n") */
    const char *after;      /* --help's text after them, or NULL */
    /* The usage error for getopt_long's ch on the bad option opt (argv[optind - 1]): ':' a
     * missing value, else unknown. NULL: cli_option_error(ch, opt, prog). Returns 2. */
    int (*bad_option)(const struct opt_cmd *c, int ch, const char *opt);
    /* NULL, or --help's lines after the options that only the running program knows (a
     * table's keys), printed before c->after */
    void (*notes)(FILE *f);
};

/* Generic setters: the bool at self->off becomes true; the const char * there becomes arg. */
int opt_true(void *ctx, const struct opt *self, const char *arg);
int opt_string(void *ctx, const struct opt *self, const char *arg);

/* Parse argv[1..] (getopt_long, argv permuted as usual) with c's table into ctx. Returns
 * OPT_GO with optind at the first operand, 0 after --help (printed on stdout), else the
 * exit status of the first bad option or value (its line on stderr). */
int opt_parse(const struct opt_cmd *c, int argc, char **argv, void *ctx);

/* The getopt_long array of table t (with "help", ended by a zero entry) into longs[nlongs]
 * and the short-option string (":" first, so a missing value is reported as ':') into
 * shorts[nshorts]. A long option's val is its letter, or 256 + its index in t. Returns the
 * number of entries before the zero one, or -1 when an array is too small or t names an
 * option twice (a long name or a letter, help and h included): --help lists each once. */
int opt_getopt(const struct opt *t, struct option *longs, size_t nlongs, char *shorts,
               size_t nshorts);

/* The options part of --help: one entry per listed option and -h, --help, aligned. */
void opt_print_options(FILE *f, const struct opt *t);
/* The whole --help: c->usage, "Options:", the options, c->notes, c->after. */
void opt_print_help(FILE *f, const struct opt_cmd *c);

#endif
