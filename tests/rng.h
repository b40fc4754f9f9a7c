/* The C tests' random numbers: splitmix64 on one state per test binary. A binary picks its seed with
 * DLX_TEST_RNG_SEED before including this (or sets rng_state per case), so that a failure reproduces. */
#ifndef DLX_TESTS_RNG_H
#define DLX_TESTS_RNG_H

#include <stdbool.h>
#include <stdint.h>

#ifndef DLX_TEST_RNG_SEED
#define DLX_TEST_RNG_SEED 0
#endif

static uint64_t rng_state = DLX_TEST_RNG_SEED;

static inline uint64_t rnd(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* true with a probability of percent / 100 */
static inline bool chance(int percent) { return (int)(rnd() % 100) < percent; }

/* uniform in [lo, hi] (the modulo bias is irrelevant at the tests' ranges) */
static inline int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

#endif
