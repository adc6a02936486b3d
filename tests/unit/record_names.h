/* record_names.h - the corpus of records (tests/records/: every file but README.md and the
 * expect/ folder), by name, for the tests that walk all of it (test_topo_caption,
 * test_topo_walk). Include after <cmocka.h>. */
#ifndef COLLVIZ_TEST_RECORD_NAMES_H
#define COLLVIZ_TEST_RECORD_NAMES_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define DIR_RECORDS "tests/records"

static int record_names_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The records in d (DIR_RECORDS opened; closed here), at most max, into names (each the
 * caller's to free) sorted by name; their number. */
static inline int record_names(DIR *d, char **names, int max)
{
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < max;)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "README.md") != 0 &&
            strcmp(e->d_name, "expect") != 0)
            names[n++] = xstrdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, record_names_cmp);
    return n;
}

#endif
