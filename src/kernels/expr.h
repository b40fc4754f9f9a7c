/* Kernel expressions: the per-element rules of every op (dlx/ops.h), written once for every backend.
 *
 * The CPU loops (src/backends/cpu/), a GPU backend's kernels and the reference path
 * (src/compute/reference.c) all compute an element through the macros and inline functions here, so
 * they cannot drift apart in rounding, wrap-around, saturation or NaN rules. Everything is plain C99
 * that nvcc also compiles as C++: inline functions are DLX_HD (__host__ __device__ under nvcc), complex
 * values are built with functions rather than compound literals, and nothing here allocates, fails or
 * touches the error state. The narrow-float codec (convert.h) follows the same rules.
 *
 * For kernel translation units only: the short trait names below (S_f32, CAT_i8, ...) are not
 * prefixed. A rule is a macro RULE_CATEGORY(a, b, N) where N names the dtype (b8, i8 ... c128) and the
 * category comes from CAT_##N, so one generic loop body per op family instantiates every dtype. */
#ifndef DLX_KERNELS_EXPR_H
#define DLX_KERNELS_EXPR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/convert.h"
#include "kernels/ew_names.h"
#include "kernels/op_table.h"

#define DLX_EXPR static inline DLX_HD

/* Complex storage: two parts, as DLPack and C99 _Complex lay them out; a struct keeps the arithmetic
 * ours (NumPy's formulas) rather than libgcc's __mulsc3 / __divsc3, which differ at inf and NaN. */
typedef struct dlx__cf32 {
  float re, im;
} dlx__cf32;
typedef struct dlx__cf64 {
  double re, im;
} dlx__cf64;

DLX_EXPR dlx__cf32 dlx_cf32_make(float re, float im) {
  dlx__cf32 z;
  z.re = re;
  z.im = im;
  return z;
}
DLX_EXPR dlx__cf64 dlx_cf64_make(double re, double im) {
  dlx__cf64 z;
  z.re = re;
  z.im = im;
  return z;
}

/* Round half to even without libm and whatever the FPU rounding mode: |x| < 2^52 splits exactly into an
 * integer part and a fraction. Larger values and NaN are returned as they are (already integral). */
DLX_EXPR double dlx__round_half_even(double x) {
  if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return x;
  const int64_t t = (int64_t)x;
  const double r = x - (double)t;
  int64_t q = t;
  if (r > 0.5 || (r == 0.5 && (t & 1))) ++q;
  else if (r < -0.5 || (r == -0.5 && (t & 1))) --q;
  return (double)q;
}

/* ======================================================================================================
 * Type traits of the native dtypes: storage type S_, category CAT_, wrap-around type W_ (integers do
 * their arithmetic in an unsigned type at least as wide as int, where overflow is defined), limits,
 * the part type of complex dtypes and how to build one (MK_).
 * ==================================================================================================== */

#define S_b8 uint8_t
#define S_i8 int8_t
#define S_i16 int16_t
#define S_i32 int32_t
#define S_i64 int64_t
#define S_u8 uint8_t
#define S_u16 uint16_t
#define S_u32 uint32_t
#define S_u64 uint64_t
#define S_f32 float
#define S_f64 double
#define S_c64 dlx__cf32
#define S_c128 dlx__cf64

#define CAT_b8 BOOL
#define CAT_i8 SINT
#define CAT_i16 SINT
#define CAT_i32 SINT
#define CAT_i64 SINT
#define CAT_u8 UINT
#define CAT_u16 UINT
#define CAT_u32 UINT
#define CAT_u64 UINT
#define CAT_f32 REAL
#define CAT_f64 REAL
#define CAT_c64 CPLX
#define CAT_c128 CPLX

#define W_i8 uint32_t
#define W_i16 uint32_t
#define W_i32 uint32_t
#define W_i64 uint64_t
#define W_u8 uint32_t
#define W_u16 uint32_t
#define W_u32 uint32_t
#define W_u64 uint64_t

#define MIN_i8 INT8_MIN
#define MIN_i16 INT16_MIN
#define MIN_i32 INT32_MIN
#define MIN_i64 INT64_MIN
#define MAX_i8 INT8_MAX
#define MAX_i16 INT16_MAX
#define MAX_i32 INT32_MAX
#define MAX_i64 INT64_MAX
#define MAX_u8 UINT8_MAX
#define MAX_u16 UINT16_MAX
#define MAX_u32 UINT32_MAX
#define MAX_u64 UINT64_MAX

#define PART_c64 float
#define PART_c128 double
#define MK_c64 dlx_cf32_make
#define MK_c128 dlx_cf64_make

/* Type lists. Two copies of the native list, because a macro cannot expand itself: the cast table
 * nests one inside the other. */
#define NATIVE_LIST(X, A) \
  X(A, b8) X(A, i8) X(A, i16) X(A, i32) X(A, i64) X(A, u8) X(A, u16) X(A, u32) X(A, u64) X(A, f32) X(A, f64) X(A, c64) X(A, c128)
#define NATIVE_LIST2(X, A) \
  X(A, b8) X(A, i8) X(A, i16) X(A, i32) X(A, i64) X(A, u8) X(A, u16) X(A, u32) X(A, u64) X(A, f32) X(A, f64) X(A, c64) X(A, c128)
#define INT_LIST(X, A) X(A, i8) X(A, i16) X(A, i32) X(A, i64) X(A, u8) X(A, u16) X(A, u32) X(A, u64)
#define REAL_LIST(X, A) X(A, f32) X(A, f64)
#define CPLX_LIST(X, A) X(A, c64) X(A, c128)

/* ======================================================================================================
 * Casts between native dtypes: one conversion rule per pair of categories (convert.h's rules for the
 * undefined corners of C: float -> int truncates, saturates, NaN -> 0).
 * ==================================================================================================== */

#define CVT_BOOL_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_BOOL_SINT(x, D) ((S_##D)((x) != 0))
#define CVT_BOOL_UINT(x, D) ((S_##D)((x) != 0))
#define CVT_BOOL_REAL(x, D) ((S_##D)((x) != 0))
#define CVT_BOOL_CPLX(x, D) MK_##D((PART_##D)((x) != 0), 0)
#define CVT_SINT_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_UINT_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_REAL_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_CPLX_BOOL(x, D) ((uint8_t)((x).re != 0 || (x).im != 0))
/* integer -> integer: modular (C's rule for unsigned targets; GCC, clang and nvcc define it for signed) */
#define CVT_SINT_SINT(x, D) ((S_##D)(x))
#define CVT_SINT_UINT(x, D) ((S_##D)(x))
#define CVT_UINT_SINT(x, D) ((S_##D)(x))
#define CVT_UINT_UINT(x, D) ((S_##D)(x))
#define CVT_SINT_REAL(x, D) ((S_##D)(x))
#define CVT_UINT_REAL(x, D) ((S_##D)(x))
#define CVT_SINT_CPLX(x, D) MK_##D((PART_##D)(x), 0)
#define CVT_UINT_CPLX(x, D) MK_##D((PART_##D)(x), 0)
#define CVT_REAL_SINT(x, D) ((S_##D)dlx__cvt_f64_to_int((double)(x), MIN_##D, MAX_##D))
#define CVT_REAL_UINT(x, D) ((S_##D)dlx__cvt_f64_to_uint((double)(x), MAX_##D))
#define CVT_REAL_REAL(x, D) ((S_##D)(x))
#define CVT_REAL_CPLX(x, D) MK_##D((PART_##D)(x), 0)
/* complex -> real keeps the real part (NumPy, with its ComplexWarning) */
#define CVT_CPLX_SINT(x, D) CVT_REAL_SINT((x).re, D)
#define CVT_CPLX_UINT(x, D) CVT_REAL_UINT((x).re, D)
#define CVT_CPLX_REAL(x, D) ((S_##D)(x).re)
#define CVT_CPLX_CPLX(x, D) MK_##D((PART_##D)(x).re, (PART_##D)(x).im)

#define CVT__(CS, CD, x, D) CVT_##CS##_##CD(x, D)
/* x (of dtype S) converted to dtype D */
#define CVT_(CS, CD, x, D) CVT__(CS, CD, x, D)
#define CVT_RULE(S, D, x) CVT_(CAT_##S, CAT_##D, x, D)

/* ======================================================================================================
 * Binary arithmetic and comparisons: one rule per (op, category).
 * ==================================================================================================== */

/* NumPy's product formula (no inf recovery, unlike C99 Annex G). */
DLX_EXPR dlx__cf32 dlx_cmul_c64(dlx__cf32 a, dlx__cf32 b) {
  return dlx_cf32_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
DLX_EXPR dlx__cf64 dlx_cmul_c128(dlx__cf64 a, dlx__cf64 b) {
  return dlx_cf64_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

/* Smith's algorithm, as NumPy's complex division: no overflow for large parts; 0 / 0 gives NaNs. The
 * magnitudes are fabs, so that a divisor of -0.0 counts as +0: (1+1j) / (-0+0j) is inf+inf j, as NumPy. */
#define DLX_DEF_CDIV(N, T, MK, ABS)                                                                    \
  DLX_EXPR S_##N dlx_cdiv_##N(S_##N a, S_##N b) {                                                       \
    const T br = b.re, bi = b.im;                                                                       \
    const T abr = ABS(br), abi = ABS(bi);                                                               \
    if (abr >= abi) {                                                                                   \
      if (abr == 0 && abi == 0) return MK(a.re / abr, a.im / abi);                                      \
      const T rat = bi / br, scl = (T)1.0 / (br + bi * rat);                                            \
      return MK((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);                                  \
    }                                                                                                   \
    const T rat = br / bi, scl = (T)1.0 / (bi + br * rat);                                              \
    return MK((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);                                    \
  }
DLX_DEF_CDIV(c64, float, dlx_cf32_make, fabsf)
DLX_DEF_CDIV(c128, double, dlx_cf64_make, fabs)

#define ADD_SINT(a, b, N) ((S_##N)((W_##N)(a) + (W_##N)(b)))
#define ADD_UINT(a, b, N) ((S_##N)((W_##N)(a) + (W_##N)(b)))
#define ADD_REAL(a, b, N) ((a) + (b))
#define ADD_CPLX(a, b, N) MK_##N((a).re + (b).re, (a).im + (b).im)
#define ADD_BOOL(a, b, N) ((uint8_t)(((a) | (b)) != 0)) /* logical or */
#define SUB_SINT(a, b, N) ((S_##N)((W_##N)(a) - (W_##N)(b)))
#define SUB_UINT(a, b, N) ((S_##N)((W_##N)(a) - (W_##N)(b)))
#define SUB_REAL(a, b, N) ((a) - (b))
#define SUB_CPLX(a, b, N) MK_##N((a).re - (b).re, (a).im - (b).im)
#define MUL_SINT(a, b, N) ((S_##N)((W_##N)(a) * (W_##N)(b)))
#define MUL_UINT(a, b, N) ((S_##N)((W_##N)(a) * (W_##N)(b)))
#define MUL_REAL(a, b, N) ((a) * (b))
#define MUL_CPLX(a, b, N) dlx_cmul_##N(a, b)
#define MUL_BOOL(a, b, N) ((uint8_t)(((a) != 0) & ((b) != 0))) /* logical and */
/* x / 0 == 0 and INT_MIN / -1 == INT_MIN (the wrapped negation): never a trap */
#define DIV_SINT(a, b, N) \
  ((b) == 0 ? (S_##N)0 : (b) == -1 ? (S_##N)((W_##N)0 - (W_##N)(a)) : (S_##N)((a) / (b)))
#define DIV_UINT(a, b, N) ((b) == 0 ? (S_##N)0 : (S_##N)((a) / (b)))
#define DIV_REAL(a, b, N) ((a) / (b))
#define DIV_CPLX(a, b, N) dlx_cdiv_##N(a, b)
#define CMP_(a, b, OPR) ((uint8_t)((a)OPR(b)))
#define LT_SINT(a, b, N) CMP_(a, b, <)
#define LT_UINT(a, b, N) CMP_(a, b, <)
#define LT_REAL(a, b, N) CMP_(a, b, <)
#define LT_BOOL(a, b, N) CMP_((a) != 0, (b) != 0, <)
#define LE_SINT(a, b, N) CMP_(a, b, <=)
#define LE_UINT(a, b, N) CMP_(a, b, <=)
#define LE_REAL(a, b, N) CMP_(a, b, <=)
#define LE_BOOL(a, b, N) CMP_((a) != 0, (b) != 0, <=)
#define GT_SINT(a, b, N) CMP_(a, b, >)
#define GT_UINT(a, b, N) CMP_(a, b, >)
#define GT_REAL(a, b, N) CMP_(a, b, >)
#define GT_BOOL(a, b, N) CMP_((a) != 0, (b) != 0, >)
#define GE_SINT(a, b, N) CMP_(a, b, >=)
#define GE_UINT(a, b, N) CMP_(a, b, >=)
#define GE_REAL(a, b, N) CMP_(a, b, >=)
#define GE_BOOL(a, b, N) CMP_((a) != 0, (b) != 0, >=)
#define EQ_SINT(a, b, N) CMP_(a, b, ==)
#define EQ_UINT(a, b, N) CMP_(a, b, ==)
#define EQ_REAL(a, b, N) CMP_(a, b, ==)
#define EQ_BOOL(a, b, N) CMP_((a) != 0, (b) != 0, ==)
#define EQ_CPLX(a, b, N) ((uint8_t)((a).re == (b).re && (a).im == (b).im))
#define NE_SINT(a, b, N) CMP_(a, b, !=)
#define NE_UINT(a, b, N) CMP_(a, b, !=)
#define NE_REAL(a, b, N) CMP_(a, b, !=)
#define NE_BOOL(a, b, N) CMP_((a) != 0, (b) != 0, !=)
#define NE_CPLX(a, b, N) ((uint8_t)((a).re != (b).re || (a).im != (b).im))

/* ---- the ops after the first ten (op_table.h's rows), one rule per category the row's class takes ---- */

/* libm's float32 / float64 function of one name (sqrtf / sqrt): IEEE 754 makes each one used here exact
 * (sqrt correctly rounded; floor, ceil, trunc, rint, fabs, copysign, fmod exact), so C, CUDA and every
 * SIMD level agree */
#define MF_f32(fn) fn##f
#define MF_f64(fn) fn
#define BITS_i8 8u
#define BITS_i16 16u
#define BITS_i32 32u
#define BITS_i64 64u
#define BITS_u8 8u
#define BITS_u16 16u
#define BITS_u32 32u
#define BITS_u64 64u

/* maximum / minimum propagate NaN (the first operand's when both are NaN) and give b on a tie (0 and -0),
 * as NumPy's SIMD loops do; fmax / fmin drop a NaN for the other operand and give a on a tie (C's fmax) */
/* bool: a producer's byte may hold any non-zero value for true; bool results are 0 or 1 */
#define BOOL01(x) ((uint8_t)((x) != 0))
#define MAXIMUM_BOOL(a, b, N) ((uint8_t)(BOOL01(a) | BOOL01(b)))
#define MAXIMUM_SINT(a, b, N) ((a) > (b) ? (a) : (b))
#define MAXIMUM_UINT MAXIMUM_SINT
#define MAXIMUM_REAL(a, b, N) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))
#define MINIMUM_BOOL(a, b, N) ((uint8_t)(BOOL01(a) & BOOL01(b)))
#define MINIMUM_SINT(a, b, N) ((a) < (b) ? (a) : (b))
#define MINIMUM_UINT MINIMUM_SINT
#define MINIMUM_REAL(a, b, N) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))
#define FMAX_BOOL MAXIMUM_BOOL
#define FMAX_SINT(a, b, N) ((a) >= (b) ? (a) : (b))
#define FMAX_UINT FMAX_SINT
#define FMAX_REAL(a, b, N) (((b) != (b) || (a) >= (b)) ? (a) : (b))
#define FMIN_BOOL MINIMUM_BOOL
#define FMIN_SINT(a, b, N) ((a) <= (b) ? (a) : (b))
#define FMIN_UINT FMIN_SINT
#define FMIN_REAL(a, b, N) (((b) != (b) || (a) <= (b)) ? (a) : (b))

/* Python's % and // (the result of % has b's sign; // rounds toward -inf). Integers: x % 0 and x // 0
 * are 0, INT_MIN // -1 is INT_MIN (the wrapped negation); no trap. Floats as NumPy's divmod: fmod (exact),
 * the remainder moved into b's sign, the quotient (a - mod) / b rounded to the nearest integer; b == 0
 * gives fmod's NaN and a / b; a zero remainder takes b's sign, a zero quotient the sign of a / b. */
#define REMAINDER_SINT(a, b, N) \
  ((b) == 0 || (b) == -1 ? (S_##N)0 : (S_##N)(((a) % (b) != 0 && (((a) % (b) < 0) != ((b) < 0))) ? (a) % (b) + (b) : (a) % (b)))
#define REMAINDER_UINT(a, b, N) ((b) == 0 ? (S_##N)0 : (S_##N)((a) % (b)))
#define REMAINDER_REAL(a, b, N) dlx__remainder_##N(a, b)
#define FLOOR_DIVIDE_SINT(a, b, N)                                                                         \
  ((b) == 0 ? (S_##N)0 : (b) == -1 ? (S_##N)((W_##N)0 - (W_##N)(a))                                      \
   : (S_##N)((a) / (b) - (((a) % (b) != 0 && (((a) < 0) != ((b) < 0))) ? 1 : 0)))
#define FLOOR_DIVIDE_UINT(a, b, N) ((b) == 0 ? (S_##N)0 : (S_##N)((a) / (b)))
#define FLOOR_DIVIDE_REAL(a, b, N) dlx__floor_divide_##N(a, b)
/* Each rule is written as fmod's result put through the rest (the _from_mod parts), so that a backend
 * with a faster exact fmod for some inputs (the CPU's float32 loops) reuses the rest as it is. */
#define DLX_DEF_DIVMOD(N, T)                                                                             \
  DLX_EXPR T dlx__remainder_from_mod_##N(T b, T mod) {                                                  \
    if (b == 0) return mod;                                                                              \
    if (mod != 0) {                                                                                      \
      if ((b < 0) != (mod < 0)) mod += b;                                                                \
    } else {                                                                                             \
      mod = MF_##N(copysign)((T)0, b);                                                                   \
    }                                                                                                    \
    return mod;                                                                                          \
  }                                                                                                      \
  DLX_EXPR T dlx__floor_divide_from_mod_##N(T a, T b, T mod) {                                          \
    if (b == 0) return a / b;                                                                            \
    T div = (a - mod) / b;                                                                               \
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= (T)1;                                                 \
    if (div == 0) return MF_##N(copysign)((T)0, a / b);                                                 \
    T fl = MF_##N(floor)(div);                                                                           \
    if (div - fl > (T)0.5) fl += (T)1;                                                                   \
    return fl;                                                                                           \
  }                                                                                                      \
  DLX_EXPR T dlx__remainder_##N(T a, T b) { return dlx__remainder_from_mod_##N(b, MF_##N(fmod)(a, b)); } \
  DLX_EXPR T dlx__floor_divide_##N(T a, T b) {                                                          \
    return dlx__floor_divide_from_mod_##N(a, b, MF_##N(fmod)(a, b));                                     \
  }
DLX_DEF_DIVMOD(f32, float)
DLX_DEF_DIVMOD(f64, double)

/* a ** b by squaring, modulo 2^64 (then truncated to the dtype: the same bits as at its width). A negative
 * exponent gives 1 / a ** -b truncated toward zero: 1 for a == 1, +-1 for a == -1, else 0. */
DLX_EXPR uint64_t dlx__ipow(uint64_t a, uint64_t e) {
  uint64_t r = 1;
  while (e != 0) {
    if (e & 1u) r *= a;
    a *= a;
    e >>= 1;
  }
  return r;
}
#define POWER_SINT(a, b, N) \
  ((b) < 0 ? (S_##N)((a) == 1 ? 1 : (a) == -1 ? (((b) & 1) ? -1 : 1) : 0) : (S_##N)dlx__ipow((uint64_t)(a), (uint64_t)(b)))
#define POWER_UINT(a, b, N) ((S_##N)dlx__ipow((uint64_t)(a), (uint64_t)(b)))
#define COPYSIGN_REAL(a, b, N) MF_##N(copysign)(a, b)
#define BITWISE_AND_BOOL(a, b, N) ((uint8_t)(((a) != 0) & ((b) != 0)))
#define BITWISE_AND_SINT(a, b, N) ((S_##N)((a) & (b)))
#define BITWISE_AND_UINT BITWISE_AND_SINT
#define BITWISE_OR_BOOL(a, b, N) ((uint8_t)(((a) != 0) | ((b) != 0)))
#define BITWISE_OR_SINT(a, b, N) ((S_##N)((a) | (b)))
#define BITWISE_OR_UINT BITWISE_OR_SINT
#define BITWISE_XOR_BOOL(a, b, N) ((uint8_t)(((a) != 0) ^ ((b) != 0)))
#define BITWISE_XOR_SINT(a, b, N) ((S_##N)((a) ^ (b)))
#define BITWISE_XOR_UINT BITWISE_XOR_SINT
/* NumPy's shifts: a count of the bit width or more, or a negative one (a huge count as uint64), shifts
 * everything out: 0, or -1 for a negative a shifted right (right shifts of signed values are arithmetic
 * in GCC, clang and nvcc) */
#define LEFT_SHIFT_SINT(a, b, N) ((uint64_t)(b) >= BITS_##N ? (S_##N)0 : (S_##N)((W_##N)(a) << (b)))
#define LEFT_SHIFT_UINT LEFT_SHIFT_SINT
#define RIGHT_SHIFT_SINT(a, b, N) ((uint64_t)(b) >= BITS_##N ? (S_##N)((a) < 0 ? -1 : 0) : (S_##N)((a) >> (b)))
#define RIGHT_SHIFT_UINT(a, b, N) ((uint64_t)(b) >= BITS_##N ? (S_##N)0 : (S_##N)((a) >> (b)))
/* logical ops: a number is true when non-zero (NaN is true; complex: either part) */
#define TRUTH_BOOL(x) ((x) != 0)
#define TRUTH_SINT(x) ((x) != 0)
#define TRUTH_UINT(x) ((x) != 0)
#define TRUTH_REAL(x) ((x) != 0)
#define TRUTH_CPLX(x) ((x).re != 0 || (x).im != 0)
#define LOGICAL_AND_BOOL(a, b, N) ((uint8_t)(TRUTH_BOOL(a) && TRUTH_BOOL(b)))
#define LOGICAL_AND_SINT(a, b, N) ((uint8_t)(TRUTH_SINT(a) && TRUTH_SINT(b)))
#define LOGICAL_AND_UINT(a, b, N) ((uint8_t)(TRUTH_UINT(a) && TRUTH_UINT(b)))
#define LOGICAL_AND_REAL(a, b, N) ((uint8_t)(TRUTH_REAL(a) && TRUTH_REAL(b)))
#define LOGICAL_AND_CPLX(a, b, N) ((uint8_t)(TRUTH_CPLX(a) && TRUTH_CPLX(b)))
#define LOGICAL_OR_BOOL(a, b, N) ((uint8_t)(TRUTH_BOOL(a) || TRUTH_BOOL(b)))
#define LOGICAL_OR_SINT(a, b, N) ((uint8_t)(TRUTH_SINT(a) || TRUTH_SINT(b)))
#define LOGICAL_OR_UINT(a, b, N) ((uint8_t)(TRUTH_UINT(a) || TRUTH_UINT(b)))
#define LOGICAL_OR_REAL(a, b, N) ((uint8_t)(TRUTH_REAL(a) || TRUTH_REAL(b)))
#define LOGICAL_OR_CPLX(a, b, N) ((uint8_t)(TRUTH_CPLX(a) || TRUTH_CPLX(b)))
#define LOGICAL_XOR_BOOL(a, b, N) ((uint8_t)(TRUTH_BOOL(a) != TRUTH_BOOL(b)))
#define LOGICAL_XOR_SINT(a, b, N) ((uint8_t)(TRUTH_SINT(a) != TRUTH_SINT(b)))
#define LOGICAL_XOR_UINT(a, b, N) ((uint8_t)(TRUTH_UINT(a) != TRUTH_UINT(b)))
#define LOGICAL_XOR_REAL(a, b, N) ((uint8_t)(TRUTH_REAL(a) != TRUTH_REAL(b)))
#define LOGICAL_XOR_CPLX(a, b, N) ((uint8_t)(TRUTH_CPLX(a) != TRUTH_CPLX(b)))

/* The rule's prefix of each binary op (op_table.h's short names). */
#define UP_add ADD
#define UP_sub SUB
#define UP_mul MUL
#define UP_div DIV
#define UP_lt LT
#define UP_le LE
#define UP_gt GT
#define UP_ge GE
#define UP_eq EQ
#define UP_ne NE
#define UP_maximum MAXIMUM
#define UP_minimum MINIMUM
#define UP_fmax FMAX
#define UP_fmin FMIN
#define UP_remainder REMAINDER
#define UP_floor_divide FLOOR_DIVIDE
#define UP_power POWER
#define UP_copysign COPYSIGN
#define UP_bitwise_and BITWISE_AND
#define UP_bitwise_or BITWISE_OR
#define UP_bitwise_xor BITWISE_XOR
#define UP_left_shift LEFT_SHIFT
#define UP_right_shift RIGHT_SHIFT
#define UP_logical_and LOGICAL_AND
#define UP_logical_or LOGICAL_OR
#define UP_logical_xor LOGICAL_XOR

#define OPRULE__(U, C, a, b, N) U##_##C(a, b, N)
#define OPRULE_(U, C, a, b, N) OPRULE__(U, C, a, b, N)
/* a OP b for dtype N (OP: a short name of op_table.h) */
#define BIN_RULE(OP, N, a, b) OPRULE_(UP_##OP, CAT_##N, a, b, N)

/* The result type of a row: the operands' (SAME) or bool (one byte). */
#define OUT_SAME(N) S_##N
#define OUT_BOOL(N) uint8_t

/* The native dtypes of a dtype class (op_table.h): X(A, N) for each. */
#define CLSLIST_ALL(X, A) NATIVE_LIST(X, A)
#define CLSLIST_NOBOOL(X, A) INT_LIST(X, A) REAL_LIST(X, A) CPLX_LIST(X, A)
#define CLSLIST_ORDERED(X, A) X(A, b8) INT_LIST(X, A) REAL_LIST(X, A)
#define CLSLIST_INTREAL(X, A) INT_LIST(X, A) REAL_LIST(X, A)
#define CLSLIST_REAL(X, A) REAL_LIST(X, A)
#define CLSLIST_INT(X, A) INT_LIST(X, A)
#define CLSLIST_INTBOOL(X, A) X(A, b8) INT_LIST(X, A)

/* Every (op, dtype) cell of a table: X(op, ENUM, RES, N) for each op of the table and each native dtype of
 * its class, RES its result (SAME / BOOL: OUT_##RES(N) is the output's type). */
#define DLX__EXPAND_(...) __VA_ARGS__
#define DLX__CELL_CALL_(...) DLX__CELL_CALL2_(__VA_ARGS__)
#define DLX__CELL_CALL2_(X, op, E, res, N) X(op, E, res, N)
#define DLX__CELL_(T, N) DLX__CELL_CALL_(DLX__EXPAND_ T, N)
#define BIN_TABLE_ROW_(X, op, E, np, k, cls, res, nar, py, swap) CLSLIST_##cls(DLX__CELL_, (X, op, E, res))
#define BIN_TABLE(X) DLX__BINOP_TABLE(BIN_TABLE_ROW_, X)

/* ======================================================================================================
 * Mixed-sign comparisons: int64 with uint64 (either order), the one pair of integer dtypes whose common
 * dtype (NumPy's float64) cannot hold both exactly, so that comparing there would call 2^63 + 1 equal to
 * 2^63 - 1. NumPy 2 compares them exactly (its qQ->? and Qq->? loops), and so does dlx: a OP b is
 * cmp(a, b) OP 0, with cmp the three-way comparison of the exact values (a negative int64 is below every
 * uint64; otherwise both are compared as uint64). Smaller signed dtypes widen exactly to int64 first (the
 * Python front end does). Only the six comparisons exist for these pairs.
 * ==================================================================================================== */

DLX_EXPR int dlx__cmp3_i64_u64(int64_t a, uint64_t b) {
  return a < 0 ? -1 : ((uint64_t)a > b) - ((uint64_t)a < b);
}
DLX_EXPR int dlx__cmp3_u64_i64(uint64_t a, int64_t b) { return -dlx__cmp3_i64_u64(b, a); }

/* a OP b for a of dtype A and b of dtype B, a mixed pair (OP: lt ... ne): the SINT rule on (cmp, 0) */
#define MIX_RULE(OP, A, B, a, b) BIN_RULE(OP, i32, dlx__cmp3_##A##_##B(a, b), 0)

/* Which (op, dtype pair) exist: the comparisons, on both orders of the pair; X(op, ENUM, A, B) */
#define MIX_PAIRS(X, OP, E) X(OP, E, i64, u64) X(OP, E, u64, i64)
#define MIX_NONE(X, OP, E)
/* the comparisons (kind CMP) take them, no other op */
#define MIX_KIND_CMP MIX_PAIRS
#define MIX_KIND_ARITH MIX_NONE
#define MIX_KIND_LOGIC MIX_NONE
#define MIX_KIND_BIT MIX_NONE
#define MIX_TABLE_ROW_(X, op, E, np, kind, cls, res, nar, py, swap) MIX_KIND_##kind(X, op, E)
/* X(op, ENUM, A, B) for every mixed pair, from the op table */
#define MIX_TABLE(X) DLX__BINOP_TABLE(MIX_TABLE_ROW_, X)

/* ======================================================================================================
 * Unary ops. Negation: integers wrap; floats negate (IEEE negate: the sign bit flips, NaN included, so
 * -0.0 comes out of 0.0 and -NaN out of NaN), complex parts each (not a multiply by -1, which would turn
 * inf parts into NaN). Bool has none (NumPy refuses it). The narrow formats negate their codes
 * (convert.h's dlx__cvt_negate), which keeps NaN payloads as ml_dtypes does.
 * ==================================================================================================== */

#define NEG_SINT(x, N) ((S_##N)((W_##N)0 - (W_##N)(x)))
#define NEG_UINT(x, N) ((S_##N)((W_##N)0 - (W_##N)(x)))
/* A sign flip, NaN included: on the GPU written in bits (its negate instruction may return its canonical
 * NaN); C's negation is that flip on the CPU (an xor). */
DLX_EXPR float dlx__neg_bits_f32(float x) { return dlx__cvt_f32_from_bits(dlx__cvt_f32_bits(x) ^ 0x80000000u); }
DLX_EXPR double dlx__neg_bits_f64(double x) {
  return dlx__cvt_f64_from_bits(dlx__cvt_f64_bits(x) ^ UINT64_C(0x8000000000000000));
}
#ifdef __CUDA_ARCH__
#define NEG_REAL(x, N) dlx__neg_bits_##N(x)
#define NEG_PART_c64(x) dlx__neg_bits_f32(x)
#define NEG_PART_c128(x) dlx__neg_bits_f64(x)
#else
#define NEG_REAL(x, N) (-(x))
#define NEG_PART_c64(x) (-(x))
#define NEG_PART_c128(x) (-(x))
#endif
#define NEG_CPLX(x, N) MK_##N(NEG_PART_##N((x).re), NEG_PART_##N((x).im))
/* |x|: integers wrap (|INT_MIN| is INT_MIN, as NumPy), floats clear the sign bit (NaN included) */
#define ABSOLUTE_BOOL(x, N) BOOL01(x)
#define ABSOLUTE_SINT(x, N) ((x) < 0 ? (S_##N)((W_##N)0 - (W_##N)(x)) : (x))
#define ABSOLUTE_UINT(x, N) (x)
#define ABSOLUTE_REAL(x, N) MF_##N(fabs)(x)
/* -1, 0, 1; NaN stays (NumPy); -0.0 gives +0.0 (the integer 0 converted). Floats: the difference of the
 * two comparisons rather than a chain of conditions, which compiles to branches where the loop is not
 * vectorised (the strided rows of a transposed walk) and mispredicts on mixed signs. */
#define SIGN_SINT(x, N) ((S_##N)(((x) > 0) - ((x) < 0)))
#define SIGN_UINT(x, N) ((S_##N)((x) > 0))
#define SIGN_REAL(x, N) ((x) != (x) ? (x) : (S_##N)(((x) > 0) - ((x) < 0)))
#define SQUARE_SINT(x, N) MUL_SINT(x, x, N)
#define SQUARE_UINT(x, N) MUL_UINT(x, x, N)
#define SQUARE_REAL(x, N) ((x) * (x))
#define SQUARE_CPLX(x, N) dlx_cmul_##N(x, x)
#define SQRT_REAL(x, N) MF_##N(sqrt)(x)
/* integers: 1 / x truncated, 1 / 0 is 0 (as x / 0; NumPy's int32 and int64 loops give INT_MIN there, from
 * an undefined conversion of inf) */
#define RECIPROCAL_SINT(x, N) ((x) == 1 || (x) == -1 ? (x) : (S_##N)0)
#define RECIPROCAL_UINT(x, N) ((x) == 1 ? (x) : (S_##N)0)
#define RECIPROCAL_REAL(x, N) ((S_##N)1 / (x))
#define RECIPROCAL_CPLX(x, N) dlx_crecip_##N(x)
/* NumPy's complex reciprocal: the smaller part over the larger, as Smith's division of 1 by x */
#define DLX_DEF_CRECIP(N, T, MK, ABS)                                                                  \
  DLX_EXPR S_##N dlx_crecip_##N(S_##N x) {                                                             \
    if (ABS(x.im) <= ABS(x.re)) {                                                                      \
      const T r = x.im / x.re, d = x.re + x.im * r;                                                    \
      return MK((T)1 / d, -r / d);                                                                     \
    }                                                                                                  \
    const T r = x.re / x.im, d = x.re * r + x.im;                                                      \
    return MK(r / d, (T)-1 / d);                                                                       \
  }
DLX_DEF_CRECIP(c64, float, dlx_cf32_make, fabsf)
DLX_DEF_CRECIP(c128, double, dlx_cf64_make, fabs)
/* roundings: integers and bool are integral already */
#define FLOOR_BOOL(x, N) BOOL01(x)
#define FLOOR_SINT(x, N) (x)
#define FLOOR_UINT(x, N) (x)
#define FLOOR_REAL(x, N) MF_##N(floor)(x)
#define CEIL_BOOL(x, N) BOOL01(x)
#define CEIL_SINT(x, N) (x)
#define CEIL_UINT(x, N) (x)
#define CEIL_REAL(x, N) MF_##N(ceil)(x)
#define TRUNC_BOOL(x, N) BOOL01(x)
#define TRUNC_SINT(x, N) (x)
#define TRUNC_UINT(x, N) (x)
#define TRUNC_REAL(x, N) MF_##N(trunc)(x)
/* ties to even in the default rounding mode (every float op of dlx assumes it) */
#define RINT_REAL(x, N) MF_##N(rint)(x)
/* predicates (bool out); integers are never NaN or infinite */
#define ISINF_R_(x, N) ((x) == (S_##N)INFINITY || (x) == -(S_##N)INFINITY)
#define ISNAN_BOOL(x, N) ((void)(x), (uint8_t)0)
#define ISNAN_SINT ISNAN_BOOL
#define ISNAN_UINT ISNAN_BOOL
#define ISNAN_REAL(x, N) ((uint8_t)((x) != (x)))
#define ISNAN_CPLX(x, N) ((uint8_t)((x).re != (x).re || (x).im != (x).im))
#define ISINF_BOOL(x, N) ((void)(x), (uint8_t)0)
#define ISINF_SINT ISINF_BOOL
#define ISINF_UINT ISINF_BOOL
#define ISINF_REAL(x, N) ((uint8_t)ISINF_R_(x, N))
#define ISINF_CPLX(x, N) ((uint8_t)(ISINF_R_((x).re, N##_part) || ISINF_R_((x).im, N##_part)))
#define ISFINITE_BOOL(x, N) ((void)(x), (uint8_t)1)
#define ISFINITE_SINT ISFINITE_BOOL
#define ISFINITE_UINT ISFINITE_BOOL
#define ISFINITE_REAL(x, N) ((uint8_t)((x) == (x) && !ISINF_R_(x, N)))
#define ISFINITE_CPLX(x, N) \
  ((uint8_t)((x).re == (x).re && (x).im == (x).im && !ISINF_R_((x).re, N##_part) && !ISINF_R_((x).im, N##_part)))
#define S_c64_part float
#define S_c128_part double
#define SIGNBIT_REAL(x, N) ((uint8_t)(SIGNBITS_##N(x)))
#define SIGNBITS_f32(x) (dlx__cvt_f32_bits(x) >> 31)
#define SIGNBITS_f64(x) (dlx__cvt_f64_bits(x) >> 63)
#define LOGICAL_NOT_BOOL(x, N) ((uint8_t)!TRUTH_BOOL(x))
#define LOGICAL_NOT_SINT(x, N) ((uint8_t)!TRUTH_SINT(x))
#define LOGICAL_NOT_UINT(x, N) ((uint8_t)!TRUTH_UINT(x))
#define LOGICAL_NOT_REAL(x, N) ((uint8_t)!TRUTH_REAL(x))
#define LOGICAL_NOT_CPLX(x, N) ((uint8_t)!TRUTH_CPLX(x))
#define INVERT_BOOL(x, N) ((uint8_t)((x) == 0))
#define INVERT_SINT(x, N) ((S_##N)~(W_##N)(x))
#define INVERT_UINT INVERT_SINT
/* +x: the value as it is (bits kept) */
#define POSITIVE_SINT(x, N) (x)
#define POSITIVE_UINT(x, N) (x)
#define POSITIVE_REAL(x, N) (x)
#define POSITIVE_CPLX(x, N) (x)

#define UP_neg NEG
#define UP_absolute ABSOLUTE
#define UP_sign SIGN
#define UP_square SQUARE
#define UP_sqrt SQRT
#define UP_reciprocal RECIPROCAL
#define UP_floor FLOOR
#define UP_ceil CEIL
#define UP_trunc TRUNC
#define UP_rint RINT
#define UP_isnan ISNAN
#define UP_isinf ISINF
#define UP_isfinite ISFINITE
#define UP_signbit SIGNBIT
#define UP_logical_not LOGICAL_NOT
#define UP_invert INVERT
#define UP_positive POSITIVE

#define UNRULE__(U, C, x, N) U##_##C(x, N)
#define UNRULE_(U, C, x, N) UNRULE__(U, C, x, N)
/* op(x) for dtype N (OP: a short name of op_table.h's unary rows) */
#define UN_RULE(OP, N, x) UNRULE_(UP_##OP, CAT_##N, x, N)
/* Every (op, dtype) cell: X(op, ENUM, RES, N), as BIN_TABLE */
#define UN_TABLE_ROW_(X, op, E, np, k, cls, res, nar, py) CLSLIST_##cls(DLX__CELL_, (X, op, E, res))
#define UN_TABLE(X) DLX__UNOP_TABLE(UN_TABLE_ROW_, X)

/* ======================================================================================================
 * Ops of three operands. where: a ? b : c, moved bit for bit (any dtype: by item size). clip:
 * minimum(maximum(a, lo), hi) with those rules (NaN in any operand wins; NumPy's clip).
 * ==================================================================================================== */

#define CLIP_RULE(N, a, lo, hi) BIN_RULE(minimum, N, BIN_RULE(maximum, N, a, lo), hi)
/* X(A, N) for every dtype clip takes (op_table.c checks that its row's class is this one) */
#define CLIP_LIST(X, A) CLSLIST_ORDERED(X, A)

/* ======================================================================================================
 * fma: out = s * t1 + t2. Integers in double, rounded half to even and saturated; floats in their own
 * precision (float32 for float32: NumPy's weak-scalar rule); bool as an integer in [0, 1].
 * ==================================================================================================== */

#define FMA_SINT(s, a, b, N) \
  ((S_##N)dlx__cvt_f64_to_int(dlx__round_half_even((s) * (double)(a) + (double)(b)), MIN_##N, MAX_##N))
#define FMA_UINT(s, a, b, N) ((S_##N)dlx__cvt_f64_to_uint(dlx__round_half_even((s) * (double)(a) + (double)(b)), MAX_##N))
#define FMA_BOOL(s, a, b, N) ((uint8_t)(dlx__round_half_even((s) * (double)((a) != 0) + (double)((b) != 0)) >= 1.0))
#define FMA_REAL(s, a, b, N) ((S_##N)(s) * (a) + (b))
#define FMA_CPLX(s, a, b, N) MK_##N((PART_##N)(s) * (a).re + (b).re, (PART_##N)(s) * (a).im + (b).im)
#define FMARULE__(C, s, a, b, N) FMA_##C(s, a, b, N)
#define FMARULE_(C, s, a, b, N) FMARULE__(C, s, a, b, N)
/* s * a + b for dtype N (a of N, or of N's signed partner for unsigned N) */
#define FMA_RULE(N, s, a, b) FMARULE_(CAT_##N, s, a, b, N)

/* ======================================================================================================
 * The math functions (exp, ...): their rules, and the float32 -> float64 rule of their narrow floats.
 * ==================================================================================================== */

#include "kernels/expr_math.h"

#endif
