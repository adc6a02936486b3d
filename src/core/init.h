/* init.h - display-scale inputs (the numbers a student reads) and the measurement-scale
 * pattern with its closed-form expected result (how #wrong is counted without storing a
 * reference copy of a GiB buffer, as nccl-tests does). */
#ifndef COLLVIZ_CORE_INIT_H
#define COLLVIZ_CORE_INIT_H

#include <stddef.h>
#include <stdint.h>

#include "core/coll.h"

enum init_kind {
    INIT_LECTURE, /* the lecture's demo inputs at W=4, generalised (see init.c) */
    INIT_SEQ,     /* element i of rank r's send buffer = 10*r + i */
    INIT_RANK,    /* every element of rank r's send buffer = r */
    INIT_RANDOM,  /* integers in [-9, 9] from the seed (integers keep sums exact) */
};

const char *init_name(enum init_kind k);
int init_parse(const char *s, enum init_kind *out);

/* Fill rank's send buffer (coll_send_count elements; nothing if 0). */
void init_fill(enum init_kind k, enum coll c, int nranks, size_t count, int root, uint64_t seed,
               int rank, float *send);

/* Measurement-scale input: element i of rank's send buffer for reduction op `op`. Values
 * are small integers (sum/avg/min/max) or powers of two (prod) so every result is exact. */
float pattern_value(enum redop op, int rank, size_t i);
/* Expected element j of rank's receive buffer when every rank's send buffer holds
 * pattern_value(). Reductions are summed in rank order; avg divides by nranks. */
float pattern_expected(enum coll c, enum redop op, int nranks, size_t count, int root, int rank,
                       size_t j);

/* Plain reference: what every rank's receive buffer must hold, computed directly from the
 * definition (no plan). send[r] has coll_send_count elements, recv[r] coll_recv_count. */
void ref_compute(enum coll c, enum redop op, int nranks, size_t count, int root,
                 float *const *send, float **recv);

/* Plain reference of an all-to-all-v (counts[s*nranks + d] elements from rank s to rank
 * d, packed in destination order in send[s]): recv[d] gets the blocks from ranks 0, 1, ...
 * in source order, then zeros up to recv_len. No plan: straight from the definition. */
void ref_all_to_all_v(int nranks, const size_t *counts, float *const *send, float **recv,
                      size_t recv_len);

/* Reduce two values with op (AVG behaves as SUM here; the division is separate). */
float redop_apply(enum redop op, float a, float b);

#endif
