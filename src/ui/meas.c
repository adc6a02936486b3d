/* meas.c - the measurement state machine and formulas the screens share (see meas.h). */
#include "ui/meas.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "core/text.h"

void meas_init(struct meas *m)
{
    memset(m, 0, sizeof *m);
    m->check = CHECK_NONE;
}

void meas_check_posted(struct meas *m, uint64_t id)
{
    m->check_id = id;
    m->check = CHECK_PENDING;
    m->check_msg[0] = '\0';
}

void meas_check_skipped(struct meas *m, const char *why)
{
    m->check_id = 0;
    m->check = CHECK_SKIPPED;
    snprintf(m->check_msg, sizeof m->check_msg, "%s", why);
}

void meas_measure_posted(struct meas *m, uint64_t id, const struct bench_params *p, double now)
{
    m->measure_id = id;
    m->measure_params = *p;
    m->measure_started = now;
    m->measure_err[0] = '\0';
}

void meas_sweep_posted(struct meas *m, uint64_t id, const struct bench_params *p, int total,
                       double now)
{
    m->sweep_id = id;
    m->sweep_params = *p;
    m->sweep_started = now;
    m->nsweep = 0;
    m->sweep_total = total;
    m->sweep_err[0] = '\0';
    m->whole_id = 0;
    m->nwhole = 0;
}

void meas_whole_posted(struct meas *m, uint64_t id)
{
    m->whole_id = id;
    m->nwhole = 0;
}

void meas_cancelled(struct meas *m)
{
    if (m->check == CHECK_PENDING) m->check = CHECK_NONE;
    m->check_id = 0;
    if (m->measure_id) snprintf(m->measure_err, sizeof m->measure_err, "cancelled");
    m->measure_id = 0;
    if (m->sweep_id)
        snprintf(m->sweep_err, sizeof m->sweep_err, "cancelled after %d of %d sizes", m->nsweep,
                 m->sweep_total);
    m->sweep_id = 0;
    m->whole_id = 0;
}

bool meas_measuring(const struct meas *m)
{
    return m->measure_id != 0;
}

bool meas_sweeping(const struct meas *m)
{
    return m->sweep_id != 0 || m->whole_id != 0;
}

bool meas_apply(struct meas *m, const struct result *r)
{
    if (r->job_id == 0) return false;
    if (r->job_id == m->check_id) {
        m->check_id = 0;
        if (r->status != CV_OK) {
            m->check = CHECK_ERROR;
            snprintf(m->check_msg, sizeof m->check_msg, "%s", r->err);
        } else {
            m->check = r->check.mismatches == 0 ? CHECK_PASS : CHECK_FAIL;
            m->mismatches = r->check.mismatches;
            m->inexact = r->check.inexact;
        }
        return true;
    }
    if (r->job_id == m->measure_id) {
        m->measure_id = 0;
        if (r->status != CV_OK) {
            snprintf(m->measure_err, sizeof m->measure_err, "%s",
                     r->err[0] ? r->err : cv_status_name(r->status));
        } else {
            m->have_row = true;
            m->row = r->measure;
            m->row_params = m->measure_params;
            snprintf(m->row_backend, sizeof m->row_backend, "%s", r->backend);
        }
        return true;
    }
    if (r->job_id == m->sweep_id) {
        if (r->status != CV_OK) {
            snprintf(m->sweep_err, sizeof m->sweep_err, "%s",
                     r->err[0] ? r->err : cv_status_name(r->status));
        } else if (m->nsweep < MEAS_SWEEP_MAX) {
            m->sweep[m->nsweep++] = r->sweep.row;
        }
        if (r->sweep.total > 0) m->sweep_total = r->sweep.total;
        if (r->last) m->sweep_id = 0;
        return true;
    }
    if (r->job_id == m->whole_id) {
        if (r->status != CV_OK)
            snprintf(m->sweep_err, sizeof m->sweep_err, "whole chunks: %.180s",
                     r->err[0] ? r->err : cv_status_name(r->status));
        else if (m->nwhole < MEAS_SWEEP_MAX)
            m->whole[m->nwhole++] = r->sweep.row;
        if (r->last) m->whole_id = 0;
        return true;
    }
    return false;
}

double meas_busbw(enum coll c, int nranks, size_t bytes, double time_us)
{
    if (time_us <= 0) return 0.0;
    double algbw = (double)bytes / (time_us * 1e-6) / 1e9;
    return algbw * coll_busbw_factor(c, nranks);
}

/* A byte count in decimal units, as the formula uses GB = 1e9 B. */
static void meas_dec_bytes(size_t bytes, char *buf, size_t n)
{
    double b = (double)bytes;
    if (b >= 1e9)
        snprintf(buf, n, "%.3g GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(buf, n, "%.3g MB", b / 1e6);
    else if (b >= 1e3)
        snprintf(buf, n, "%.3g kB", b / 1e3);
    else
        snprintf(buf, n, "%zu B", bytes);
}

void meas_formula(enum coll c, int nranks, size_t bytes, double time_us, bool utf8, char *sym,
                  size_t symlen, char *num, size_t numlen)
{
    const char *dot = utf8 ? "\u00b7" : "*", *minus = utf8 ? "\u2212" : "-";
    char s[32], t[32], bw[32];
    meas_dec_bytes(bytes, s, sizeof s);
    text_time_us(t, sizeof t, time_us);
    text_gbps(bw, sizeof bw, meas_busbw(c, nranks, bytes, time_us));
    double algbw = time_us > 0 ? (double)bytes / (time_us * 1e-6) / 1e9 : 0.0;
    char a[32];
    text_gbps(a, sizeof a, algbw);
    int W = nranks;
    /* The factor's shape comes from the collective's table entry (core/coll.h). */
    const struct coll_info *ci = coll_info(c);
    if (ci && ci->busbw_share && ci->busbw_mult == 2.0) {
        /* all-reduce, the lecture's own accounting: each rank moves 2(W-1)/W of S. */
        snprintf(sym, symlen, "busbw = S%s2(W%s1)/(W%st)", dot, minus, dot);
        snprintf(num, numlen, "= %s%s2%s%d/(%d%s%s) = %s GB/s", s, dot, dot, W - 1, W, dot, t,
                 bw);
    } else if (ci && !ci->busbw_share) {
        /* Every byte crosses one link once: no correction. */
        snprintf(sym, symlen, "busbw = algbw%s1", dot);
        snprintf(num, numlen, "= %s GB/s", bw);
    } else {
        /* Each rank sends or receives (W-1)/W of S (nccl-tests PERFORMANCE.md). */
        snprintf(sym, symlen, "busbw = algbw%s(W%s1)/W", dot, minus);
        snprintf(num, numlen, "= %s%s%d/%d = %s GB/s", a, dot, W - 1, W, bw);
    }
}

void meas_size_label(size_t bytes, char *buf, size_t n)
{
    static const char unit[] = {'\0', 'K', 'M', 'G', 'T'};
    int u = 0;
    size_t v = bytes;
    while (v >= 1024 && v % 1024 == 0 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u)
        snprintf(buf, n, "%zu%c", v, unit[u]);
    else
        snprintf(buf, n, "%zu", v);
}

int meas_bar_eighths(double value, double max, int rows)
{
    if (!(value > 0) || !(max > 0) || rows < 1) return 0;
    int e = (int)lround(value / max * rows * 8);
    if (e < 1) e = 1;
    if (e > rows * 8) e = rows * 8;
    return e;
}

const char *meas_single_rank_note(void)
{
    return "W=1: nothing crosses between ranks, so no algbw or busbw: size/time of a "
           "one-rank call is not a transfer rate";
}
