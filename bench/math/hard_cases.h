/* The hard cases of the math functions for bench/math/exhaustive.c's --sample mode: the float32 inputs
 * whose correctly rounded result the oracle (oracle.h) could not decide in long double (the value within a
 * relative 2^-50 of a float32 rounding boundary), as the exhaustive run found them (its --hard FILE). */
#ifndef DLX_BENCH_MATH_HARD_CASES_H
#define DLX_BENCH_MATH_HARD_CASES_H

#include <stdint.h>

typedef struct dlx_math_hard_case {
  const char *fn;
  uint32_t bits;
} dlx_math_hard_case;

#define X(fn, bits) {#fn, bits},
static const dlx_math_hard_case dlx_math_hard[] = {
    {"none", 0u}, /* keeps the array non-empty */
#include "hard_cases.inc"
};
#undef X

#endif
