/* par_sched.c - the ideal unit-time pipeline schedule (see par_sched.h). A list scheduler:
 * each stage takes its next operation as soon as the stage is free and the operation's
 * input exists (a forward needs the previous stage's forward of the same micro-batch, a
 * backward the next stage's backward), which is what the real stages do when compute
 * takes one unit and messages are free. */
#include "scene/par_sched.h"

#include <string.h>

#include "core/util.h"

struct psched_op {
    bool fwd;
    int mb;
};

/* The order of operations on one stage, exactly as pp.c's pp_schedule_build. */
static int psched_order(enum pp_schedule sched, int stage, int P, int M, struct psched_op *ops)
{
    int k = 0;
    if (sched == PP_GPIPE) {
        for (int m = 0; m < M; m++)
            ops[k++] = (struct psched_op){true, m};
        for (int m = M - 1; m >= 0; m--)
            ops[k++] = (struct psched_op){false, m};
    } else {
        int warm = P - stage - 1 < M ? P - stage - 1 : M;
        for (int m = 0; m < warm; m++)
            ops[k++] = (struct psched_op){true, m};
        for (int i = 0; i < M - warm; i++) {
            ops[k++] = (struct psched_op){true, warm + i};
            ops[k++] = (struct psched_op){false, i};
        }
        for (int m = M - warm; m < M; m++)
            ops[k++] = (struct psched_op){false, m};
    }
    return k;
}

int psched_build(struct psched *s, enum pp_schedule sched, int P, int M)
{
    memset(s, 0, sizeof *s);
    if (P < 1 || P > CV_MAX_RANKS || M < 1 || M > PSCHED_MAX_MICRO ||
        (sched != PP_GPIPE && sched != PP_1F1B))
        return CV_EINVAL;
    s->sched = sched;
    s->stages = P;
    s->micro = M;
    struct psched_op ops[CV_MAX_RANKS][2 * PSCHED_MAX_MICRO];
    int next[CV_MAX_RANKS] = {0};
    int free_at[CV_MAX_RANKS] = {0};
    /* end tick of F(s, m) and B(s, m); -1 = not yet run */
    int fend[CV_MAX_RANKS][PSCHED_MAX_MICRO], bend[CV_MAX_RANKS][PSCHED_MAX_MICRO];
    for (int st = 0; st < P; st++) {
        psched_order(sched, st, P, M, ops[st]);
        for (int m = 0; m < M; m++)
            fend[st][m] = bend[st][m] = -1;
    }
    for (int st = 0; st < P; st++)
        for (int t = 0; t < PSCHED_MAX_TICKS; t++)
            s->cell[st][t] = (struct psched_cell){PSCHED_IDLE, -1};
    int left = 2 * M * P;
    while (left > 0) {
        bool progress = false;
        for (int st = 0; st < P; st++) {
            if (next[st] >= 2 * M) continue;
            struct psched_op op = ops[st][next[st]];
            int ready;
            if (op.fwd)
                ready = st == 0 ? 0 : fend[st - 1][op.mb];
            else
                ready = st == P - 1 ? fend[st][op.mb] : bend[st + 1][op.mb];
            if (ready < 0) continue; /* its input does not exist yet */
            int t = free_at[st] > ready ? free_at[st] : ready;
            if (t >= PSCHED_MAX_TICKS) return CV_EINVAL;
            s->cell[st][t] = (struct psched_cell){op.fwd ? PSCHED_FWD : PSCHED_BWD, op.mb};
            if (op.fwd)
                fend[st][op.mb] = t + 1;
            else
                bend[st][op.mb] = t + 1;
            free_at[st] = t + 1;
            if (t + 1 > s->ticks) s->ticks = t + 1;
            next[st]++;
            left--;
            progress = true;
        }
        if (!progress) return CV_EINVAL; /* cannot happen for these two schedules */
    }
    for (int st = 0; st < P; st++)
        for (int t = 0; t < s->ticks; t++)
            if (s->cell[st][t].kind == PSCHED_IDLE) s->idle[st]++;
    return CV_OK;
}

double psched_bubble(const struct psched *s)
{
    if (s->stages < 1 || s->ticks < 1) return 0;
    int idle = 0;
    for (int st = 0; st < s->stages; st++)
        idle += s->idle[st];
    return (double)idle / ((double)s->stages * s->ticks);
}

double psched_bubble_formula(int P, int M)
{
    return (double)(P - 1) / (double)(M + P - 1);
}
