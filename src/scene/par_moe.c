/* par_moe.c - the mixture-of-experts view's data (par_moe.h): one real display-scale
 * training step and its single-device reference, copied into plain counts. */
#include "scene/par_moe.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "parallel/train.h"

static void moe_copy(struct par_moe *m, const struct train_result *r)
{
    const struct train_moe *s = &r->moe;
    m->capacity = s->capacity;
    for (int l = 0; l < PAR_MOE_LAYERS; l++)
        for (int g = 0; g < m->W; g++)
            for (int e = 0; e < m->E; e++) {
                size_t i = ((size_t)l * m->W + g) * m->E + e;
                m->routed[l][g][e] = s->routed[i];
                m->kept[l][g][e] = s->kept[i];
            }
    m->dropped = 0;
    for (int g = 0; g < m->W; g++) {
        m->dropped += s->dropped_last[g];
        m->dispatch_bytes[g] = s->dispatch_bytes[g];
        m->combine_bytes[g] = s->combine_bytes[g];
        m->dispatch_s[g] = s->dispatch_s[g];
        m->combine_s[g] = s->combine_s[g];
    }
    m->dispatch_busbw = train_moe_busbw(s->dispatch_bytes, s->dispatch_s, m->W);
    m->combine_busbw = train_moe_busbw(s->combine_bytes, s->combine_s, m->W);
}

void par_moe_build(struct par_moe *m, int W)
{
    memset(m, 0, sizeof *m);
    if (W < 2 || W > PAR_MOE_MAX_W) {
        snprintf(m->err, sizeof m->err, "moe at display scale: 2..%d ranks", PAR_MOE_MAX_W);
        return;
    }
    struct train_config c;
    train_config_default(&c);
    c.scheme = TRAIN_MOE;
    c.nranks = m->W = W;
    c.layers = PAR_MOE_LAYERS;
    c.dim = m->D = 16;
    c.batch = m->B = 8 * W;
    c.steps = 1;
    c.experts = m->E = 2 * W;
    c.topk = m->K = 2;
    c.capacity = m->capacity_factor = 1.0;
    c.timeout_s = 20;
    struct train_result r, ref;
    if (train_run(&c, &r, NULL, m->err, sizeof m->err) != CV_OK) return;
    struct train_config rc = train_reference_of(&c);
    if (train_run(&rc, &ref, NULL, m->err, sizeof m->err) != CV_OK) {
        train_result_free(&r);
        return;
    }
    struct train_deviation d;
    train_compare(&r, &ref, &d);
    m->same = d.within;
    m->param_abs = d.param_abs;
    m->routing_diff = d.moe_routing_diff;
    moe_copy(m, &r);
    train_result_free(&r);
    train_result_free(&ref);
    m->ok = true;
}

size_t par_moe_block(const struct par_moe *m, int layer, int from, int to)
{
    if (!m->ok || layer < 0 || layer >= PAR_MOE_LAYERS || from < 0 || from >= m->W || to < 0 ||
        to >= m->W)
        return 0;
    int El = m->E / m->W;
    size_t n = 0;
    for (int j = 0; j < El; j++)
        n += m->kept[layer][from][to * El + j];
    return n;
}
