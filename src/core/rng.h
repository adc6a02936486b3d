/* rng.h - the one pseudo-random generator: splitmix64 (Steele, Lea, Flood 2014), tiny,
 * seekable by its state alone and good enough to scatter inputs, weights and exercise
 * variants. Pure: the state is the caller's. */
#ifndef COLLVIZ_CORE_RNG_H
#define COLLVIZ_CORE_RNG_H

#include <stdint.h>

/* The next 64 bits of the stream whose state is *state (advanced). */
uint64_t rng_splitmix64(uint64_t *state);

#endif
