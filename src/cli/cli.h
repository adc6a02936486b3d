/* cli.h - the non-interactive subcommands. Each takes the argv after the subcommand name
 * (argv[0] is the subcommand), prints text or JSON, and returns the process exit status:
 * 0 success, 1 a failed check (e.g. #wrong > 0), 2 bad input (one line on stderr). */
#ifndef COLLVIZ_CLI_CLI_H
#define COLLVIZ_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* `collviz [options]`: the interactive visualizer's options (cli/visualizer.c), then
 * ui/ui.h's program. */
int cli_visualizer_main(int argc, char **argv);
/* `collviz lesson [FILE|ID] [options]` without a verb: the lesson player's options, then
 * the player (the list of lessons, or one lesson at its saved slide). argv[0] is "lesson". */
int cli_lesson_player_main(int argc, char **argv);
int cli_trace_main(int argc, char **argv);
int cli_bench_main(int argc, char **argv);
int cli_train_main(int argc, char **argv);
int cli_lesson_main(int argc, char **argv);
int cli_model_main(int argc, char **argv);
int cli_serve_main(int argc, char **argv);
int cli_nccl_main(int argc, char **argv);
int cli_svg_main(int argc, char **argv);
int cli_notes_main(int argc, char **argv);
/* `collviz --present PATH [options]`: the presenter; cli_present_wanted: whether argv asks
 * for it (an argument "--present" or "--present=PATH"). */
int cli_present_main(int argc, char **argv);
int cli_present_wanted(int argc, char **argv);
/* `collviz lesson review` and `collviz lesson reset [ID]` (argv[0] is the verb), called
 * by cli_lesson_main (lesson_review.c). */
int cli_lesson_review(int argc, char **argv);
int cli_lesson_reset(int argc, char **argv);

/* `collviz lesson export` (argv[0] is "export"), called by cli_lesson_main. */
int cli_export_main(int argc, char **argv);

struct rec_log;
/* Read one file of NCCL records into L (cli/nccl.c): the lines recognised, or -1 (with a
 * "FILE:0:" line on stderr) when it cannot be read. */
int cli_nccl_read(struct rec_log *L, const char *path);
/* A list of words at 80 columns (hosts, sizes): "head" then each word after a space, a
 * line that would pass column 80 continued two spaces further in than the head. */
struct cli_words {
    int col, indent;
    bool any;
};
void cli_words_start(struct cli_words *w, const char *head, int indent);
void cli_words_add(struct cli_words *w, const char *word);
void cli_words_end(struct cli_words *w);

/* --ring-order's value ("0 7 6 5 4 3 2 1") into ring[CV_MAX_RANKS] and *n: 0, else the
 * usage error's 2 (cli/common.c). */
int cli_parse_ring_order(const char *arg, int *ring, int *n);
/* --ring-order-from LOG[:CHANNEL]: the ring NCCL logged for CHANNEL (default 0) in the
 * records file LOG, into ring and *n: 0, else the usage error's 2 (cli/nccl.c). */
int cli_ring_order_from(const char *arg, int *ring, int *n);

/* Every collective's name (core/coll.c's table, in its order) joined by sep into buf. */
void cli_coll_names(char *buf, size_t n, const char *sep);
/* --help's line of the collectives a COLLECTIVE operand names, from the table, and tail
 * after them, wrapped at 80 columns: "COLLECTIVE: broadcast scatter ... tail". */
void cli_coll_help(FILE *f, const char *tail);

/* Parse --format's value into *json: 0 on success, else the usage error's exit status 2. */
int cli_parse_format(const char *arg, bool *json);

/* Parse --ranks's value (1..CV_MAX_RANKS) into *ranks: 0, else the usage error's 2. */
int cli_parse_ranks(const char *arg, int *ranks);
/* Parse --seed's value (a non-negative integer) into *seed: 0, else the usage error's 2. */
int cli_parse_seed(const char *arg, uint64_t *seed);
/* The usage error (status 2) for what getopt_long returned on a bad option: ':' (opt, which
 * is argv[optind - 1], lacks its value) or anything else (unknown). With prog:
 * "PROG: option 'OPT' needs a value" / "PROG: unknown option 'OPT' (try collviz PROG
 * --help)"; with prog NULL: "OPT: needs a value" / "OPT: unknown option (try --help)". */
int cli_option_error(int ch, const char *opt, const char *prog);

struct opt_cmd;
/* getopt_long's bad option in the words of svg, notes and lesson export (opt.h's
 * bad_option): "collviz PROG: option 'OPT' needs a value" / "collviz PROG: unknown option
 * 'OPT' (try --help)". Returns 2. */
int cli_quoted_bad_option(const struct opt_cmd *c, int ch, const char *opt);

/* Print "collviz: <msg>" on stderr and return 2: `return cli_usage_error("...", ...)`. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The backend a command runs on (backend_for_job): *name is the one asked for (NULL when
 * none was), or dflt; under a launcher's job of several processes, the job's when none was
 * asked for. Returns -1 to go on, 2 (one line said) for a backend that cannot join the job. */
int cli_backend_for_job(const char **name, const char *dflt);

#endif
