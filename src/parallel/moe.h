/* moe.h - the mixture-of-experts model's own pieces (moe.c): its deterministic weights and
 * the router's rule (softmax, top-k, capacity), shared by the expert-parallel scheme and
 * its single-device reference so that both route the same tokens the same way, and the
 * reference trainer itself.
 *
 * The model, per block l of L: h = gelu(x @ W_l) (the dense layer), then the MoE layer
 * y = h + sum over the token's kept top-k experts e of p_e · gelu(h @ E_{l,e}), where p =
 * softmax(h @ R_l) over the E experts (R_l: D×E, the router). A token none of whose
 * choices is kept passes through unchanged (y = h). Loss mean(y²) over the last block. */
#ifndef COLLVIZ_PARALLEL_MOE_H
#define COLLVIZ_PARALLEL_MOE_H

#include <stddef.h>
#include <stdint.h>

#include "device/mlpmath.h"
#include "parallel/train.h"

/* Expert e of block l: mlp_init_weights with this layer number (its own stream). */
int moe_expert_stream(int layer, int experts, int e);
void moe_init_expert(uint64_t seed, int layer, int experts, int e, int dim, float *w);
/* Block l's router, D×E, randn/sqrt(D) from its own stream. */
void moe_init_router(uint64_t seed, int layer, int dim, int experts, float *r);

/* Route one group of n tokens: logits [n][E] -> probs (softmax in double, stored as
 * float), top [n][K] the K largest probabilities in decreasing order (ties: the lower
 * expert), gate [n][K] their probabilities, kept [n][K] 1 when taken. Capacity cap (0:
 * none): each expert takes at most cap assignments, first choices first (all tokens'
 * first choices in token order, then all second choices, ...). routed[e] / kept_n[e]
 * (E entries, added to) count the assignments to e and those kept. Returns the number
 * dropped. */
size_t moe_route(const float *logits, int n, int E, int K, int cap, float *probs, int *top,
                 float *gate, unsigned char *kept, size_t *routed, size_t *kept_n);

/* The single-device reference of a moe configuration (c->moe_groups groups). */
struct moe_ref;
struct moe_ref *moe_ref_new(const struct train_config *c);
/* One step; returns its loss. stats (its routed, kept, dropped_* allocated for G =
 * moe_groups) gets the step's routing: routed/kept [L][G][E] and dropped_last
 * overwritten, dropped_total added to. */
double moe_ref_step(struct moe_ref *m, struct train_moe *stats);
/* The parameters in train_param_count's layout. */
void moe_ref_params(const struct moe_ref *m, float *out);
void moe_ref_free(struct moe_ref *m);

#endif
