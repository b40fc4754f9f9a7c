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

/* The result type of an op: the operands' for arithmetic, bool (one byte) for comparisons; the rule's
 * prefix for each op's lower-case name. */
#define OUT_add(N) S_##N
#define OUT_sub(N) S_##N
#define OUT_mul(N) S_##N
#define OUT_div(N) S_##N
#define OUT_lt(N) uint8_t
#define OUT_le(N) uint8_t
#define OUT_gt(N) uint8_t
#define OUT_ge(N) uint8_t
#define OUT_eq(N) uint8_t
#define OUT_ne(N) uint8_t
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

#define OPRULE__(U, C, a, b, N) U##_##C(a, b, N)
#define OPRULE_(U, C, a, b, N) OPRULE__(U, C, a, b, N)
/* a OP b for dtype N (OP: add ... ne) */
#define BIN_RULE(OP, N, a, b) OPRULE_(UP_##OP, CAT_##N, a, b, N)

/* Which (op, dtype) pairs exist: bool has no sub/div, complex no ordering. */
#define BIN_ALL(X, OP) NATIVE_LIST(X, OP)
#define BIN_NOBOOL(X, OP) INT_LIST(X, OP) REAL_LIST(X, OP) CPLX_LIST(X, OP)
#define BIN_ORDERED(X, OP) X(OP, b8) INT_LIST(X, OP) REAL_LIST(X, OP)
#define BIN_DTYPES_add BIN_ALL
#define BIN_DTYPES_sub BIN_NOBOOL
#define BIN_DTYPES_mul BIN_ALL
#define BIN_DTYPES_div BIN_NOBOOL
#define BIN_DTYPES_lt BIN_ORDERED
#define BIN_DTYPES_le BIN_ORDERED
#define BIN_DTYPES_gt BIN_ORDERED
#define BIN_DTYPES_ge BIN_ORDERED
#define BIN_DTYPES_eq BIN_ALL
#define BIN_DTYPES_ne BIN_ALL
/* X(op, dtype) for every pair, from the op list (ew_names.h) */
#define BIN_TABLE_OP_(OP, X) BIN_DTYPES_##OP(X, OP)
#define BIN_TABLE(X) DLX__BINOP_LIST(BIN_TABLE_OP_, X)

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

/* Which (op, dtype pair) exist: the comparisons, on both orders of the pair; X(op, A, B) */
#define MIX_PAIRS(X, OP) X(OP, i64, u64) X(OP, u64, i64)
#define MIX_NONE(X, OP)
#define MIX_DTYPES_add MIX_NONE
#define MIX_DTYPES_sub MIX_NONE
#define MIX_DTYPES_mul MIX_NONE
#define MIX_DTYPES_div MIX_NONE
#define MIX_DTYPES_lt MIX_PAIRS
#define MIX_DTYPES_le MIX_PAIRS
#define MIX_DTYPES_gt MIX_PAIRS
#define MIX_DTYPES_ge MIX_PAIRS
#define MIX_DTYPES_eq MIX_PAIRS
#define MIX_DTYPES_ne MIX_PAIRS
/* X(op, A, B) for every mixed pair, from the op list (ew_names.h) */
#define MIX_TABLE_OP_(OP, X) MIX_DTYPES_##OP(X, OP)
#define MIX_TABLE(X) DLX__BINOP_LIST(MIX_TABLE_OP_, X)

/* ======================================================================================================
 * Unary ops. Negation: integers wrap; floats negate (IEEE negate: the sign bit flips, NaN included, so
 * -0.0 comes out of 0.0 and -NaN out of NaN), complex parts each (not a multiply by -1, which would turn
 * inf parts into NaN). Bool has none (NumPy refuses it). The narrow formats negate their codes
 * (convert.h's dlx__cvt_negate), which keeps NaN payloads as ml_dtypes does.
 * ==================================================================================================== */

#define NEG_SINT(x, N) ((S_##N)((W_##N)0 - (W_##N)(x)))
#define NEG_UINT(x, N) ((S_##N)((W_##N)0 - (W_##N)(x)))
#define NEG_REAL(x, N) (-(x))
#define NEG_CPLX(x, N) MK_##N(-(x).re, -(x).im)
#define UNRULE__(U, C, x, N) U##_##C(x, N)
#define UNRULE_(U, C, x, N) UNRULE__(U, C, x, N)
/* op(x) for dtype N (OP: neg) */
#define UN_RULE(OP, N, x) UNRULE_(UP_##OP, CAT_##N, x, N)
#define UP_neg NEG
/* Which (op, dtype) pairs exist: negation of every number but bool */
#define UN_DTYPES_neg(X, OP) INT_LIST(X, OP) REAL_LIST(X, OP) CPLX_LIST(X, OP)
/* X(op, dtype) for every pair, from the op list (ew_names.h) */
#define UN_TABLE_OP_(OP, X) UN_DTYPES_##OP(X, OP)
#define UN_TABLE(X) DLX__UNOP_LIST(UN_TABLE_OP_, X)

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

#endif
