/* runcmp.h - `collviz nccl A B`: two runs of one nccl-tests test compared size by size
 * (runcmp.c says what is compared and what the spread is). */
#ifndef COLLVIZ_CLI_RUNCMP_H
#define COLLVIZ_CLI_RUNCMP_H

#include <stdbool.h>

#include "records/records.h"

/* Compare run B (file pb) with run A (pa), as text or JSON on stdout: 0; or 2 with one line
 * on stderr when they are not runs of the same tests or one has no nccl-tests rows. */
int cli_nccl_compare(const char *pa, const struct rec_log *A, const char *pb,
                     const struct rec_log *B, bool json);

/* Whether L holds a run of nccl-tests: a test with rows. */
bool cli_nccl_is_run(const struct rec_log *L);

#endif
