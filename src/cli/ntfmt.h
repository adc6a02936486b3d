/* ntfmt.h - nccl-tests' text table, written the way nccl-tests writes it, so that labs'
 * scripts (and `collviz nccl`) read `collviz bench`'s output as they read nccl-tests'.
 *
 * The formats are nccl-tests 2.19.6's (NVIDIA/nccl-tests, src/util.cu: writeDeviceReport,
 * writeResultHeader, writeBenchmarkLinePreamble, writeBenchmarkLineBody with getFloatStr,
 * writeResultFooter; src/common.cu: BenchTime, TimeTest), copied field for field: the
 * widths, the two spaces between columns, "%6g" for #wrong and "   N/A" where nothing was
 * checked, the trailing spaces of the header and footer lines. What collviz is not (a
 * `nccl-tests version` line, per-iteration columns, -G graphs) is not printed.
 *
 * Pure formatting: no measuring, no backend. */
#ifndef COLLVIZ_CLI_NTFMT_H
#define COLLVIZ_CLI_NTFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/coll.h"

#define NT_VERSION "2.19.6" /* the nccl-tests whose formats these are */

/* One group of a row: out-of-place or in-place. */
struct nt_group {
    bool measured; /* false: the group was not run (time, algbw, busbw print as N/A) */
    double time_us, algbw, busbw;
    long wrong; /* elements wrong; -1: not checked ("N/A", as nccl-tests without -c) */
};

/* getFloatStr: value in `width` characters, "%.2f", else "%.1f", "%.0f", then "%.1e"
 * (width >= 7) or "%.0e". out holds width + 1 bytes. */
void nt_float_str(double value, int width, char *out);

/* The nccl-tests program that runs collective c: "all_reduce_perf", "alltoall_perf". */
const char *nt_program(enum coll c);

/* The lines before the device list: "# Collective test starting: PROG", the "# nThread ..."
 * line and "#", then "# Using devices". step_factor > 1: "step: F(factor)", else
 * "step: B(bytes)". */
void nt_print_start(FILE *f, const char *program, int nthread, int ngpus, size_t minbytes,
                    size_t maxbytes, double step_factor, size_t step_bytes, int warmup,
                    int iters, bool validation);

/* "#  Rank %2d Group %2d Pid %6d on %10s device %2d [BUSID] NAME" into buf. */
void nt_device_line(char *buf, size_t n, int rank, int group, int pid, const char *host,
                    int device, const char *busid, const char *name);

/* "#", then the two-level column header (out-of-place, in-place; time algbw busbw #wrong). */
void nt_print_header(FILE *f);

/* One row (with its newline) into buf: size count type redop root, the out-of-place group,
 * then the in-place one. Returns snprintf's length. */
int nt_row(char *buf, size_t n, size_t bytes, size_t count, const char *type, const char *redop,
           int root, const struct nt_group *oop, const struct nt_group *ip);

/* "# Out of bounds values : N OK|FAILED", "# Avg bus bandwidth    : X ", "#",
 * "# Collective test concluded: PROG". errors: groups with #wrong > 0 (nccl-tests counts
 * a group, not elements). */
void nt_print_footer(FILE *f, int errors, double avg_busbw, const char *program);

#endif
