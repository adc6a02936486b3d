/* json.h - the one JSON writer of `collviz trace`, `bench` and `train`: each builds a
 * cJSON tree with these helpers (numbers that are not finite become null, a NULL string
 * becomes null) and prints it with cli_json_print, so string escaping and number syntax
 * come from cJSON, not from three hand-written emitters. Allocation failure aborts, as
 * xmalloc does. */
#ifndef COLLVIZ_CLI_JSON_H
#define COLLVIZ_CLI_JSON_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* A new empty object / array (the root of a document). */
cJSON *cli_json_object(void);
cJSON *cli_json_array(void);
/* Add to `parent`: under `key` when parent is an object, appended when key is NULL
 * (parent an array). The add_object / add_array forms return the new container. */
cJSON *cli_json_add_object(cJSON *parent, const char *key);
cJSON *cli_json_add_array(cJSON *parent, const char *key);
/* A number as it is (counts, sizes, ranks: exact up to 2^53). */
void cli_json_num(cJSON *parent, const char *key, double v);
/* A measured or computed real, rounded to `digits` significant digits first (what %.*g
 * prints), so the output carries no more digits than mean something. */
void cli_json_real(cJSON *parent, const char *key, double v, int digits);
void cli_json_str(cJSON *parent, const char *key, const char *s);
void cli_json_bool(cJSON *parent, const char *key, bool v);
void cli_json_null(cJSON *parent, const char *key);
/* A command whose standard output is a JSON document calls this once its options are read,
 * before any backend opens: from then on the process's descriptor 1 is its standard error,
 * so what a library prints to stdout (NCCL's log when NCCL_DEBUG is set without
 * NCCL_DEBUG_FILE: "NCCL version ...") goes there, and the document goes to the stream
 * cli_json_stdout() returns, the original standard output. */
void cli_json_claim_stdout(void);
/* The stream for the JSON document: the original standard output once claimed, stdout
 * otherwise. */
FILE *cli_json_stdout(void);
/* A process of a job that is not rank 0 prints nothing: stdout (and a claimed document
 * stream) go to /dev/null. 0, or -1 when /dev/null cannot be opened. */
int cli_quiet_stdout(void);
/* True in such a process: its summary lines on stderr are rank 0's to say. */
bool cli_stdout_quiet(void);
/* Print the document on one line followed by a newline, and free it. Returns 0, or -1 if
 * the write failed. */
int cli_json_print(FILE *f, cJSON *root);
/* Print the document indented (cJSON_Print) on stdout followed by a newline, and free it:
 * the form of `collviz model` and `collviz lesson show|variant`. */
void cli_json_print_pretty(cJSON *root);

#endif
