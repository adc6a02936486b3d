/* ntfmt.c - nccl-tests' text table (see ntfmt.h); each format string is nccl-tests
 * 2.19.6's, from the function of src/util.cu named beside it. */
#include "cli/ntfmt.h"

#include <string.h>

void nt_float_str(double value, int width, char *out)
{
    /* getFloatStr */
    if (snprintf(out, (size_t)width + 1, "%*.2f", width, value) <= width) return;
    if (snprintf(out, (size_t)width + 1, "%*.1f", width, value) <= width) return;
    if (snprintf(out, (size_t)width + 1, "%*.0f", width, value) <= width) return;
    snprintf(out, (size_t)width + 1, width >= 7 ? "%*.1e" : "%*.0e", width, value);
}

const char *nt_program(enum coll c)
{
    const struct coll_info *ci = coll_info(c);
    return ci ? ci->perf : "unknown_perf";
}

void nt_print_start(FILE *f, const char *program, int nthread, int ngpus, size_t minbytes,
                    size_t maxbytes, double step_factor, size_t step_bytes, int warmup,
                    int iters, bool validation)
{
    /* writeDeviceReport */
    fprintf(f, "# Collective test starting: %s\n", program);
    char step[48];
    if (step_factor > 1 && step_bytes == 0) {
        if (step_factor == (double)(long)step_factor)
            snprintf(step, sizeof step, "%ld(factor)", (long)step_factor);
        else /* nccl-tests' factor is a whole number; collviz's may not be */
            snprintf(step, sizeof step, "%g(factor)", step_factor);
    } else {
        snprintf(step, sizeof step, "%zu(bytes)", step_bytes);
    }
    fprintf(
        f,
        "# nThread %d nGpus %d minBytes %zu maxBytes %zu step: %s warmup iters: %d iters: %d "
        "agg iters: %d validation: %d graph: %d unalign: %d\n",
        nthread, ngpus, minbytes, maxbytes, step, warmup, iters, 1, validation ? 1 : 0, 0, 0);
    fprintf(f, "#\n");
    fprintf(f, "# Using devices\n");
}

void nt_device_line(char *buf, size_t n, int rank, int group, int pid, const char *host,
                    int device, const char *busid, const char *name)
{
    snprintf(buf, n, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%s] %s\n", rank, group,
             pid, host, device, busid, name);
}

void nt_print_header(FILE *f)
{
    /* writeResultHeader, without timestamps (tsPad 0: "%*s" prints nothing) */
    fprintf(f, "#\n");
    fprintf(f,
            "# %10s  %12s  %8s  %6s  %6s           out-of-place                       "
            "in-place          \n",
            "", "", "", "", "");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s\n",
            "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
            "time", "algbw", "busbw", "#wrong", "");
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %s\n",
            "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
            "(GB/s)", "", "");
}

/* writeBenchmarkLineBody: "  time  algbw  busbw  #wrong". */
static int nt_group_str(char *buf, size_t n, const struct nt_group *g)
{
    char t[8], a[7], b[7], w[16];
    if (g->measured) {
        nt_float_str(g->time_us, 7, t);
        nt_float_str(g->algbw, 6, a);
        nt_float_str(g->busbw, 6, b);
    } else {
        snprintf(t, sizeof t, "N/A");
        snprintf(a, sizeof a, "N/A");
        snprintf(b, sizeof b, "N/A");
    }
    if (g->measured && g->wrong >= 0)
        snprintf(w, sizeof w, "%6g", (double)g->wrong);
    else
        snprintf(w, sizeof w, "   N/A");
    return snprintf(buf, n, "  %7s  %6s  %6s  %s", t, a, b, w);
}

int nt_row(char *buf, size_t n, size_t bytes, size_t count, const char *type, const char *redop,
           int root, const struct nt_group *oop, const struct nt_group *ip)
{
    /* writeBenchmarkLinePreamble, the two bodies, writeBenchmarkLineTerminator */
    char o[64], i[64];
    nt_group_str(o, sizeof o, oop);
    nt_group_str(i, sizeof i, ip);
    return snprintf(buf, n, "%12zu  %12zu  %8s  %6s  %6d%s%s\n", bytes, count, type, redop,
                    root, o, i);
}

void nt_print_footer(FILE *f, int errors, double avg_busbw, const char *program)
{
    /* writeResultFooter, without NCCL_TESTS_MIN_BW (check_avg_bw -1: "" after the value) */
    fprintf(f, "# %-20s : %d %s\n", "Out of bounds values", errors, errors ? "FAILED" : "OK");
    fprintf(f, "# %-20s : %g %s\n", "Avg bus bandwidth", avg_busbw, "");
    fprintf(f, "#\n");
    fprintf(f, "# Collective test concluded: %s\n", program);
}
