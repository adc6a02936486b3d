/* napkin.h - the lecture's back-of-the-envelope calculations as pure functions, for the
 * hierarchy screen's napkin-math panel (and its unit test against the lecture's own worked
 * exercises): the effective bandwidth of an all-reduce, DDP's gradient synchronisation time,
 * tensor-parallel vs DDP elements per step, and what each training scheme's communication
 * costs per step on a link (through the α-β model of model.h, so labelled "model"), and
 * the ZeRO paper's memory per GPU for its three stages.
 *
 * Units: bytes, seconds, bytes/s (1e9 = GB/s). */
#ifndef COLLVIZ_CORE_NAPKIN_H
#define COLLVIZ_CORE_NAPKIN_H

#include <stddef.h>

/* The lecture's effective bandwidth of an all-reduce of `bytes` on W ranks that took
 * `duration_s`: size·2(W−1)/(W·duration) (= nccl-tests' busbw). 0 when W < 2 or
 * duration <= 0. */
double napkin_effective_bw(double bytes, int W, double duration_s);

/* DDP's gradient all-reduce per step: params × bytes_each bytes at effective (bus)
 * bandwidth bw: 2(W−1)/W · size / bw; W = 0 gives the large-W limit 2·size/bw the
 * lecture uses. 0 when bw <= 0. */
double napkin_ddp_sync_s(double params, double bytes_each, double bw_Bps, int W);

/* Elements communicated per step by an L-layer MLP of width D on batches of B rows
 * (the lecture's counting, constant factors ignored): column tensor parallelism all-gathers
 * B·D activations per layer, L·B·D per forward pass; DDP all-reduces L·D² gradients.
 * The ratio DDP/TP is D/B. */
double napkin_tp_elements(double L, double B, double D);
double napkin_ddp_elements(double L, double D);

/* One training scheme's communication per step on one link, from the α-β model. */
struct napkin_scheme {
    double bytes;  /* bytes one rank puts into the collective(s) / sends, per step */
    int calls;     /* collectives or sends per step */
    double time_s; /* model time of those calls, back to back */
};

struct napkin_schemes {
    struct napkin_scheme ddp; /* one all-reduce of L·D² float gradients (ring) */
    struct napkin_scheme tp;  /* L all-gathers of B·D float activations (ring), forward */
    struct napkin_scheme pp;  /* one stage boundary: M sends of (B/M)·D floats, forward */
};

/* The lecture's MLP (L layers of D×D, batch B, W ranks; M micro-batches for the pipeline,
 * which has W stages) on a link with α and β: each scheme's bytes, calls and model time
 * per step, forward pass as the lecture counts it (backward roughly doubles TP and PP).
 * CV_EINVAL when a size does not fit the model (e.g. B·D below one float per rank, B < M,
 * L·D² above model.h's limit); err names it. */
int napkin_schemes(int L, int B, int D, int W, int M, double alpha_s, double beta_Bps,
                   struct napkin_schemes *out, char *err, size_t errlen);

/* The ZeRO paper's memory of the model states per GPU in mixed-precision training: fp16
 * weights and gradients (2 + 2 bytes per parameter) and K bytes of optimizer state (K = 12
 * for Adam: fp32 master weights, momentum and variance), Ψ parameters on N data-parallel
 * GPUs. Bytes, model:
 *   ddp    (2 + 2 + K)·Ψ
 *   stage1 (2 + 2)·Ψ + K·Ψ/N         (optimizer state sharded)
 *   stage2 2·Ψ + (2 + K)·Ψ/N         (gradients too)
 *   stage3 (2 + 2 + K)·Ψ/N           (weights too)
 * The paper's example: Ψ = 7.5e9, K = 12, N = 64 gives 120 / 31.4 / 16.6 / 1.9 GB. */
struct napkin_zero {
    double ddp, stage1, stage2, stage3;
};
void napkin_zero_memory(double psi, double K, int N, struct napkin_zero *out);

#endif
