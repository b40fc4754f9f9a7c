/* The oracle of the math functions' checks: the correctly rounded f(x), decided by MPFR.
 *
 * orc_mpfr is the definition: MPFR computes f(x) rounded once (to nearest, ties to even) to p significant
 * bits with IEEE-style gradual underflow below 2^emin_sub's binade, and no overflow bound (the caller's
 * encoder maps a large result as its format does). It costs about a microsecond, too slow for 2^32 inputs,
 * so orc_f32 first evaluates f in long double (x87, 64-bit significand; glibc's long double functions are
 * within a few of its ulps) and rounds that to float32; only when the long double value lies within a
 * relative 2^-50 of a float32 rounding boundary, far more than that error, does it ask MPFR. A result
 * decided by the fast path is right: the true value lies on the same side of every boundary.
 *
 * Header-only; needs -lmpfr -lgmp -lm. Not thread-safe for MPFR's exponent range: callers that use
 * threads set it per thread (MPFR's exponent range is thread-local when MPFR is built thread-safe,
 * which Debian's is). */
#ifndef DLX_BENCH_MATH_ORACLE_H
#define DLX_BENCH_MATH_ORACLE_H

#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

typedef enum orc_fn {
  ORC_EXP, ORC_EXP2, ORC_EXPM1, ORC_LOG, ORC_LOG2, ORC_LOG10, ORC_LOG1P, ORC_TANH, ORC_SIN, ORC_COS, ORC_COUNT
} orc_fn;

static const char *const orc_names[ORC_COUNT] = {"exp",  "exp2",  "expm1", "log", "log2",
                                                 "log10", "log1p", "tanh",  "sin", "cos"};

static inline int orc_by_name(const char *name) {
  for (int i = 0; i < ORC_COUNT; ++i)
    if (strcmp(orc_names[i], name) == 0) return i;
  return -1;
}

static inline int orc_mpfr_call(orc_fn f, mpfr_t y, const mpfr_t x) {
  switch (f) {
    case ORC_EXP: return mpfr_exp(y, x, MPFR_RNDN);
    case ORC_EXP2: return mpfr_exp2(y, x, MPFR_RNDN);
    case ORC_EXPM1: return mpfr_expm1(y, x, MPFR_RNDN);
    case ORC_LOG: return mpfr_log(y, x, MPFR_RNDN);
    case ORC_LOG2: return mpfr_log2(y, x, MPFR_RNDN);
    case ORC_LOG10: return mpfr_log10(y, x, MPFR_RNDN);
    case ORC_LOG1P: return mpfr_log1p(y, x, MPFR_RNDN);
    case ORC_TANH: return mpfr_tanh(y, x, MPFR_RNDN);
    case ORC_SIN: return mpfr_sin(y, x, MPFR_RNDN);
    default: return mpfr_cos(y, x, MPFR_RNDN);
  }
}

/* f(x) correctly rounded to p bits, the smallest subnormal 2^emin_sub (float32: p 24, emin_sub -149;
 * float16: 11, -24; bfloat16: 8, -133), as a double (exact: p <= 53 and the exponent in double's range
 * for every format here; a value past double's range comes back as +-inf, which every narrow encoder maps
 * as its overflow). NaN for a NaN result. */
static inline double orc_mpfr(orc_fn f, double x, int p, int emin_sub) {
  const mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
  mpfr_t mx, my;
  mpfr_init2(mx, 64);
  mpfr_init2(my, p);
  mpfr_set_d(mx, x, MPFR_RNDN); /* exact */
  /* MPFR's exponent e means a value in [2^(e-1), 2^e): the smallest subnormal 2^emin_sub has e = emin_sub+1 */
  mpfr_set_emin(emin_sub + 1);
  mpfr_set_emax(mpfr_get_emax_max());
  int inex = orc_mpfr_call(f, my, mx);
  inex = mpfr_check_range(my, inex, MPFR_RNDN);
  mpfr_subnormalize(my, inex, MPFR_RNDN);
  mpfr_set_emin(old_min);
  mpfr_set_emax(old_max);
  const double r = mpfr_get_d(my, MPFR_RNDN); /* exact, or +-inf past double's range */
  mpfr_clear(mx);
  mpfr_clear(my);
  return r;
}

static inline long double orc_libm_l(orc_fn f, long double x) {
  switch (f) {
    case ORC_EXP: return expl(x);
    case ORC_EXP2: return exp2l(x);
    case ORC_EXPM1: return expm1l(x);
    case ORC_LOG: return logl(x);
    case ORC_LOG2: return log2l(x);
    case ORC_LOG10: return log10l(x);
    case ORC_LOG1P: return log1pl(x);
    case ORC_TANH: return tanhl(x);
    case ORC_SIN: return sinl(x);
    default: return cosl(x);
  }
}

/* The correctly rounded float32 f(x); *slow counts the inputs MPFR decided (may be NULL). */
static inline float orc_f32(orc_fn f, float x, uint64_t *slow) {
  const long double y = orc_libm_l(f, (long double)x);
  /* NaN, inf and zero: for float32 inputs long double never overflows or underflows, so these are the
   * exact special cases (exp(-inf) = 0, log(0) = -inf, sin(-0) = -0 ...), which libm gets exactly */
  if (y != y || y == 0 || isinf(y)) return (float)y;
  /* the error of y is relative (long double's range is far wider than float32's), so one relative
   * perturbation tests normal and subnormal float32 results alike */
  const long double eps = 0x1p-50L;
  const float lo = (float)(y * (1 - eps)), hi = (float)(y * (1 + eps));
  if (lo == hi) return lo;
  if (slow) ++*slow;
  return (float)orc_mpfr(f, (double)x, 24, -149);
}

#endif /* DLX_BENCH_MATH_ORACLE_H */
