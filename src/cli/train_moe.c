/* train_moe.c - `collviz train moe`'s own report (train_moe.h). Everything printed is the
 * run's record (parallel/train.h, struct train_moe): counted as the ranks routed and
 * exchanged, the times each rank's wall clock around its own exchange. */
#include "cli/train_moe.h"

#include "core/tiers.h"
#include "core/util.h"

/* Tokens rank g sends rank d in block l: the kept assignments to d's experts. */
static size_t block_rows(const struct train_moe *m, int l, int g, int d)
{
    int El = m->experts / m->groups;
    size_t n = 0;
    for (int j = 0; j < El; j++)
        n += m->kept[((size_t)l * m->groups + g) * m->experts + d * El + j];
    return n;
}

static size_t sum_of(const size_t *v, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* The communicator's bytes per step: counted on CPU ranks and MPI processes; NCCL counts
 * none, so there they are the all-reduces' ring model (the all-to-alls are counted here). */
static void print_wire(FILE *f, const struct train_result *r)
{
    char b[32];
    size_t w = r->napkin.wire_bytes;
    format_size(w, b, sizeof b);
    if (backend_kind_caps(r->cfg.backend) & BACKEND_CAP_GPU)
        fprintf(f,
                "  bytes per step, busiest rank: the all-reduces' ring model %s (%zu B); the "
                "all-to-alls' below\n",
                b, w);
    else
        fprintf(f, "  bytes sent per step, busiest rank, every exchange: counted %s (%zu B)\n",
                b, w);
}

void train_moe_print_text(FILE *f, const struct train_result *r)
{
    const struct train_moe *m = &r->moe;
    const struct train_config *c = &r->cfg;
    if (!m->routed) return;
    int W = m->groups, E = m->experts;
    fprintf(f, "\n  experts: %d per layer, %d per rank, top-%d; capacity ", E, E / W, m->topk);
    if (m->capacity)
        fprintf(f, "ceil(%g * %d * %d / %d) = %d token%s per expert of a rank's %d rows\n",
                c->capacity, c->batch / W, m->topk, E, m->capacity, m->capacity == 1 ? "" : "s",
                c->batch / W);
    else
        fputs("none (dropless)\n", f);
    fputs("  tokens per expert, last step (counted; routed -> kept, the rest dropped):\n", f);
    for (int l = 0; l < c->layers; l++) {
        for (int g = 0; g < W; g++) {
            fprintf(f, "    layer %d rank %d:", l, g);
            for (int e = 0; e < E; e++) {
                size_t i = ((size_t)l * W + g) * E + e;
                if (m->routed[i] == m->kept[i])
                    fprintf(f, " %zu", m->kept[i]);
                else
                    fprintf(f, " %zu->%zu", m->routed[i], m->kept[i]);
            }
            fputc('\n', f);
        }
        fprintf(f, "    layer %d all-to-all blocks (row: from rank, column: to rank):", l);
        for (int g = 0; g < W; g++) {
            fputs(g ? ";" : " ", f);
            for (int d = 0; d < W; d++)
                fprintf(f, "%s%zu", d ? "," : "", block_rows(m, l, g, d));
        }
        fputc('\n', f);
    }
    fprintf(f, "  dropped (passed through unchanged): %zu in the last step, %zu in all steps\n",
            sum_of(m->dropped_last, W), sum_of(m->dropped_total, W));
    if (!m->dispatch_bytes) return;
    char a[32], b[32], t1[32], t2[32];
    print_wire(f, r);
    for (int g = 0; g < W; g++) {
        format_size(m->dispatch_bytes[g], a, sizeof a);
        format_size(m->combine_bytes[g], b, sizeof b);
        fprintf(f, "    rank %d: dispatch sent %s in %.3f ms, combine sent %s in %.3f ms\n", g,
                a, m->dispatch_s[g] * 1e3, b, m->combine_s[g] * 1e3);
    }
    double bd = train_moe_busbw(m->dispatch_bytes, m->dispatch_s, W);
    double bc = train_moe_busbw(m->combine_bytes, m->combine_s, W);
    tier_format_bw(bd, t1, sizeof t1);
    tier_format_bw(bc, t2, sizeof t2);
    fprintf(
        f,
        "  busbw measured: dispatch %s, combine %s (the busiest rank's bytes to other\n"
        "   ranks over the slowest rank's time in its exchanges, all layers; forward only,\n"
        "   the backward sends the same blocks the other way); counts' all-to-all %zu B "
        "per rank\n",
        t1, t2, m->counts_bytes[0]);
}

void train_moe_json(cJSON *d, const struct train_result *r, const struct train_deviation *dev)
{
    const struct train_moe *m = &r->moe;
    if (!m->routed) return;
    int W = m->groups, E = m->experts, L = r->cfg.layers;
    cJSON *o = cli_json_add_object(d, "moe");
    cli_json_num(o, "experts", E);
    cli_json_num(o, "topk", m->topk);
    cli_json_real(o, "capacity_factor", r->cfg.capacity, 9);
    cli_json_num(o, "capacity_tokens", m->capacity);
    cJSON *layers = cli_json_add_array(o, "layers");
    for (int l = 0; l < L; l++) {
        cJSON *lo = cli_json_add_object(layers, NULL);
        cJSON *ro = cli_json_add_array(lo, "routed"), *ko = cli_json_add_array(lo, "kept");
        cJSON *bo = cli_json_add_array(lo, "blocks");
        for (int g = 0; g < W; g++) {
            cJSON *rr = cli_json_add_array(ro, NULL), *kr = cli_json_add_array(ko, NULL);
            cJSON *br = cli_json_add_array(bo, NULL);
            for (int e = 0; e < E; e++) {
                cli_json_num(rr, NULL, (double)m->routed[((size_t)l * W + g) * E + e]);
                cli_json_num(kr, NULL, (double)m->kept[((size_t)l * W + g) * E + e]);
            }
            for (int q = 0; q < W; q++)
                cli_json_num(br, NULL, (double)block_rows(m, l, g, q));
        }
    }
    cli_json_num(o, "dropped_last_step", (double)sum_of(m->dropped_last, W));
    cli_json_num(o, "dropped_total", (double)sum_of(m->dropped_total, W));
    if (dev) cli_json_num(o, "routing_differences", (double)dev->moe_routing_diff);
    cli_json_num(d,
                 (backend_kind_caps(r->cfg.backend) & BACKEND_CAP_GPU)
                     ? "wire_allreduce_ring_model_bytes_per_rank"
                     : "wire_measured_bytes_per_rank",
                 (double)r->napkin.wire_bytes);
    if (!m->dispatch_bytes) return;
    cJSON *pr = cli_json_add_array(o, "per_rank");
    for (int g = 0; g < W; g++) {
        cJSON *x = cli_json_add_object(pr, NULL);
        cli_json_num(x, "dispatch_bytes", (double)m->dispatch_bytes[g]);
        cli_json_real(x, "dispatch_s", m->dispatch_s[g], 9);
        cli_json_num(x, "combine_bytes", (double)m->combine_bytes[g]);
        cli_json_real(x, "combine_s", m->combine_s[g], 9);
        cli_json_num(x, "counts_bytes", (double)m->counts_bytes[g]);
    }
    cli_json_real(o, "dispatch_busbw_measured",
                  train_moe_busbw(m->dispatch_bytes, m->dispatch_s, W), 9);
    cli_json_real(o, "combine_busbw_measured",
                  train_moe_busbw(m->combine_bytes, m->combine_s, W), 9);
}
