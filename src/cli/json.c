/* json.c - the CLI's JSON writer on top of cJSON (see json.h). */
#include "cli/json.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

static void cli_json_hooks(void)
{
    static bool done;
    if (done) return;
    cJSON_Hooks h = {.malloc_fn = xmalloc, .free_fn = free};
    cJSON_InitHooks(&h);
    done = true;
}

/* cJSON returns NULL only when an allocation failed, and xmalloc aborts first; a NULL
 * here would be a cJSON misuse of ours. */
static cJSON *cli_json_must(cJSON *item)
{
    if (!item) util_fatal("cJSON: could not create an item");
    return item;
}

static void cli_json_put(cJSON *parent, const char *key, cJSON *item)
{
    cli_json_must(item);
    cJSON_bool ok =
        key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok) util_fatal("cJSON: could not add '%s'", key ? key : "(array element)");
}

cJSON *cli_json_object(void)
{
    cli_json_hooks();
    return cli_json_must(cJSON_CreateObject());
}

cJSON *cli_json_array(void)
{
    cli_json_hooks();
    return cli_json_must(cJSON_CreateArray());
}

cJSON *cli_json_add_object(cJSON *parent, const char *key)
{
    cJSON *o = cJSON_CreateObject();
    cli_json_put(parent, key, o);
    return o;
}

cJSON *cli_json_add_array(cJSON *parent, const char *key)
{
    cJSON *a = cJSON_CreateArray();
    cli_json_put(parent, key, a);
    return a;
}

void cli_json_num(cJSON *parent, const char *key, double v)
{
    cli_json_put(parent, key, isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull());
}

void cli_json_real(cJSON *parent, const char *key, double v, int digits)
{
    char buf[64];
    if (isfinite(v)) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        v = strtod(buf, NULL);
    }
    cli_json_num(parent, key, v);
}

void cli_json_str(cJSON *parent, const char *key, const char *s)
{
    cli_json_put(parent, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

void cli_json_bool(cJSON *parent, const char *key, bool v)
{
    cli_json_put(parent, key, cJSON_CreateBool(v));
}

void cli_json_null(cJSON *parent, const char *key)
{
    cli_json_put(parent, key, cJSON_CreateNull());
}

static FILE *json_out;
static bool quiet; /* cli_quiet_stdout was called */

void cli_json_claim_stdout(void)
{
    if (json_out) return;
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    if (fd < 0) return; /* no descriptor to spare: the document stays on stdout */
    FILE *f = fdopen(fd, "w");
    if (!f || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        if (f)
            fclose(f);
        else
            close(fd);
        return;
    }
    json_out = f;
}

FILE *cli_json_stdout(void)
{
    return json_out ? json_out : stdout;
}

int cli_quiet_stdout(void)
{
    quiet = true;
    if (json_out) {
        fclose(json_out);
        json_out = NULL;
    }
    return freopen("/dev/null", "w", stdout) ? 0 : -1;
}

bool cli_stdout_quiet(void)
{
    return quiet;
}

int cli_json_print(FILE *f, cJSON *root)
{
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!text) util_fatal("cJSON: could not print the document");
    /* JSON is UTF-8: a byte from a file name or a lesson that is not (a raw 0x9b, half a
     * character) reaches the document as U+FFFD, never as itself */
    cv_fwrite_utf8(f, text, strlen(text));
    int rc = ferror(f) || fputc('\n', f) == EOF || fflush(f) == EOF ? -1 : 0;
    free(text);
    return rc;
}

void cli_json_print_pretty(cJSON *root)
{
    char *s = cJSON_Print(root);
    if (s) {
        cv_fwrite_utf8(stdout, s, strlen(s)); /* valid UTF-8, as cli_json_print */
        putchar('\n');
        cJSON_free(s);
    }
    cJSON_Delete(root);
}
