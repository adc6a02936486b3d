/* summary.c - run a scheme and the single-device reference and keep what the parallelism
 * screen shows, in fixed-size arrays (see summary.h). */
#include "parallel/summary.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "device/mlpmath.h"

int train_summary_run(const struct train_config *cfg, struct train_summary *out,
                      volatile int *cancel, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->cfg = *cfg;
    out->bubble_measured = out->bubble_model = -1;
    if (cfg->steps > TSUM_MAX_STEPS)
        return cv_err(err, errlen, CV_EINVAL, "steps %d: the summary keeps at most %d",
                      cfg->steps, TSUM_MAX_STEPS);
    if (cfg->scheme == TRAIN_SINGLE)
        return cv_err(err, errlen, CV_EINVAL, "scheme single: nothing to compare");
    int rc = train_config_check(cfg, err, errlen);
    if (rc != CV_OK) return rc;
    double t0 = now_s();

    struct train_config rc_cfg = train_reference_of(cfg);
    struct train_result ref, res;
    mlp_init_keep_hold(true); /* the run starts from the reference's weights, drawn once */
    rc = train_run(&rc_cfg, &ref, cancel, err, errlen);
    if (rc != CV_OK) {
        mlp_init_keep_hold(false);
        if (rc == CV_ECANCELLED) train_result_free(&ref);
        return rc;
    }
    rc = train_run(cfg, &res, cancel, err, errlen);
    mlp_init_keep_hold(false);
    if (rc != CV_OK) {
        if (rc == CV_ECANCELLED) train_result_free(&res);
        train_result_free(&ref);
        return rc;
    }

    out->nranks = res.nranks;
    out->steps_done = res.steps_done;
    for (int s = 0; s < res.steps_done; s++) {
        out->loss[s] = res.steps[s].loss;
        out->time_s[s] = res.steps[s].time_s;
        out->comm_s[s] = res.steps[s].comm_s;
        out->comm_async_s[s] = res.steps[s].comm_async_s;
        out->comm_bytes[s] = res.steps[s].comm_bytes;
    }
    for (int s = 0; s < ref.steps_done; s++) {
        out->ref_loss[s] = ref.steps[s].loss;
        out->ref_time_s[s] = ref.steps[s].time_s;
    }
    train_compare(&res, &ref, &out->dev);
    out->replica_max_diff = res.replica_max_diff;
    out->napkin = res.napkin;
    out->bubble_measured = res.bubble_measured;
    out->bubble_model = res.bubble_model;
    for (int r = 0; r < res.nranks && r < CV_MAX_RANKS; r++) {
        out->mem[r] = res.mem[r];
        out->mem_peak[r] = res.mem_peak[r];
    }
    out->ref_mem = ref.mem[0];
    out->ev_step = res.steps_done - 1;
    size_t n;
    const struct tl_event *ev = train_step_events(&res, out->ev_step, &n);
    out->events_truncated = n > TSUM_MAX_EVENTS;
    out->nevents = (int)(n > TSUM_MAX_EVENTS ? TSUM_MAX_EVENTS : n);
    if (out->nevents) memcpy(out->events, ev, (size_t)out->nevents * sizeof *ev);
    snprintf(out->desc, sizeof out->desc, "%s", res.desc);
    const struct train_moe *m = &res.moe;
    if (m->dispatch_bytes) {
        out->moe.capacity = m->capacity;
        for (int r = 0; r < m->groups; r++) {
            out->moe.dropped += m->dropped_last[r];
            if (m->dispatch_bytes[r] > out->moe.dispatch_bytes)
                out->moe.dispatch_bytes = m->dispatch_bytes[r];
            if (m->combine_bytes[r] > out->moe.combine_bytes)
                out->moe.combine_bytes = m->combine_bytes[r];
        }
        out->moe.dispatch_busbw = train_moe_busbw(m->dispatch_bytes, m->dispatch_s, m->groups);
        out->moe.combine_busbw = train_moe_busbw(m->combine_bytes, m->combine_s, m->groups);
    }
    train_result_free(&res);
    train_result_free(&ref);
    out->wall_s = now_s() - t0;
    return CV_OK;
}
