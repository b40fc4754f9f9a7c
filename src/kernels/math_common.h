/* Internal: what the math functions (kernels/math_*.h) share. They are per-element rules like expr.h's:
 * plain C that nvcc also compiles for the device (DLX_HD), no allocation, no error state, no libm call
 * whose result could differ between libraries (only the exact ones: fabs, floor, ldexp by an integer ...).
 *
 * The contract of a float32 function f (exp, log, ...), for the op table:
 *   double dlx__wide_<f>(float x)  f(x) in double, close enough that ONE rounding of it to float32 is the
 *                                  correctly rounded f(x) (ties to even) for every float32 x, and one
 *                                  rounding to float16, bfloat16 and the float8 formats theirs (the narrow
 *                                  formats are float32 values, so they go through the same function and
 *                                  never round twice). Exact cases exact; C Annex F's special values.
 *   float  dlx__<f>f(float x)      (float)dlx__wide_<f>(x)
 *   double dlx__<f>(double x)      float64: one implementation for every backend, same operations in the
 *                                  same order (no FMA: the build turns contraction off, and nothing here
 *                                  calls fma()), so every device gives the same bits; error measured.
 *
 * Tables: a static const array at file scope is host memory, which device code cannot read. DLX_MTABLE
 * defines the table twice under nvcc (a __device__ copy for the device pass, a host copy for the host
 * pass) and DLX_MT(name) names the copy of the pass being compiled. */
#ifndef DLX_KERNELS_MATH_COMMON_H
#define DLX_KERNELS_MATH_COMMON_H

#include <stdint.h>

#include "kernels/convert.h"

#define DLX_MATH static inline DLX_HD

#if defined(__GNUC__) || defined(__clang__)
#define DLX_MUNUSED_ __attribute__((unused)) /* each pass reads one of the two copies */
#else
#define DLX_MUNUSED_
#endif

#if defined(__CUDACC__)
#define DLX_MTABLE(type, name, n) DLX_MUNUSED_ static const type name##_host_[n] =
#define DLX_MTABLE_DEV(type, name, n) DLX_MUNUSED_ __device__ static const type name##_dev_[n] =
#if defined(__CUDA_ARCH__)
#define DLX_MT(name) name##_dev_
#else
#define DLX_MT(name) name##_host_
#endif
#else
#define DLX_MTABLE(type, name, n) DLX_MUNUSED_ static const type name##_host_[n] =
#define DLX_MT(name) name##_host_
#endif

/* A table is written once and instantiated for both passes:
 *   #define MY_TABLE_VALUES { 1.0, 2.0, ... }
 *   DLX_MTABLE_DEFINE(double, my_table, 64, MY_TABLE_VALUES)
 * and read as DLX_MT(my_table)[i]. */
#if defined(__CUDACC__)
#define DLX_MTABLE_DEFINE(type, name, n, values) \
  DLX_MTABLE(type, name, n) values;              \
  DLX_MTABLE_DEV(type, name, n) values;
#else
#define DLX_MTABLE_DEFINE(type, name, n, values) DLX_MTABLE(type, name, n) values;
#endif

/* bit casts (convert.h's, under short names) */
DLX_MATH uint32_t dlx__m_bits32(float x) { return dlx__cvt_f32_bits(x); }
DLX_MATH float dlx__m_from32(uint32_t u) { return dlx__cvt_f32_from_bits(u); }
DLX_MATH uint64_t dlx__m_bits64(double x) { return dlx__cvt_f64_bits(x); }
DLX_MATH double dlx__m_from64(uint64_t u) { return dlx__cvt_f64_from_bits(u); }

/* y, or v where key == at: the exceptions a float32 rule blends in, as a masked select on bits (GCC 12
 * leaves a select of a constant as a branch, which stops the loop's vectorisation) */
DLX_MATH uint32_t dlx__m_pick32(uint32_t key, uint32_t at, uint32_t v, uint32_t y) {
  const uint32_t m = 0u - (uint32_t)(key == at);
  return (y & ~m) | (v & m);
}
DLX_MATH uint64_t dlx__m_pick64(uint32_t key, uint32_t at, uint64_t v, uint64_t y) {
  const uint64_t m = (uint64_t)0 - (uint64_t)(key == at);
  return (y & ~m) | (v & m);
}

/* ---- the float32 first try ------------------------------------------------------------------------
 * The correctly rounded rules above carry about 2^-60 of precision so that one rounding is right for
 * every input, which costs them double-double steps. Almost every input needs far less: f(x) in plain
 * double to within 2^-43 (relative) already rounds to the right float32 unless f(x) lies within 2^-43 of
 * a float32 rounding boundary, about one input in 2^18. So a function may have a try rule as well,
 *   double dlx__<f>f_try(float x)   f(x) to within 2^-43 relative, or DLX_M_TRY_NONE where x is outside
 *                                   the rule's range (special values, the far ranges),
 * and the CPU loops (backends/cpu/loops.h, DLX_DEF_UNARY_TRY) round it to float32 wherever
 * dlx__m_undecided32 says that rounding is certain, and take dlx__<f>f for the rest. The result is the
 * correctly rounded one either way, so the bits do not depend on which path ran; math_exhaustive runs
 * every float32 input through the CPU loops, try rule included, against MPFR. */

/* 1 + 2^-24: a float32 midpoint, which dlx__m_undecided32 always rejects */
#define DLX_M_TRY_NONE 0x1.000001p0
/* how close to a midpoint y may be, in units of y's last place: 2^-43 relative error is below 2^10 of
 * them (a double's ulp is more than 2^-53 of its magnitude) */
#define DLX_M_TRY_ULPS 1024u

/* 1 where rounding y to float32 may not be the correct rounding of a value within 2^-43 (relative) of
 * y: y lies within DLX_M_TRY_ULPS double ulps of a float32 midpoint (bits 28..0 of its significand near
 * 1 followed by zeros), or is a nonzero below float32's smallest normal (its rounding is on the coarser
 * subnormal grid, not the 24-bit one the test assumes). 0 and +-0 pass; a 64-bit integer result, so that
 * a loop's count of them vectorises in double-width lanes. */
DLX_MATH uint64_t dlx__m_undecided32(double y) {
  const uint64_t u = dlx__m_bits64(y);
  const uint64_t w = (u - ((UINT64_C(1) << 28) - DLX_M_TRY_ULPS)) & ((UINT64_C(1) << 29) - 1u);
  const uint64_t a = u & ~(UINT64_C(1) << 63);
  return (uint64_t)(w <= 2u * DLX_M_TRY_ULPS) | (uint64_t)(a - 1u < UINT64_C(0x3810000000000000) - 1u);
}

#endif /* DLX_KERNELS_MATH_COMMON_H */
