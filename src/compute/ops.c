/* The ops engine: fill, copy, cast, elementwise binary ops and fma on strided views (dlx/ops.h).
 *
 * Every op goes through the same steps (BLIS's front end / typed kernel split):
 *  1. validate once: NULLs, ranks, dtypes (the op's rule), devices, read-only and broadcast outputs,
 *     shapes that broadcast to the output;
 *  2. inputs that partially overlap the output are copied to a temporary (the one allocation an op
 *     makes; exact aliasing, out == a, is elementwise-safe and kept);
 *  3. packed float6/float4 operands are unpacked into one-byte-per-element temporaries (and the output
 *     packed back at the end), so the kernels only ever see byte-sized elements;
 *  4. dlx_iter_init plans the joint loop (broadcast, reorder, coalesce), and a typed inner loop from a
 *     table indexed by [op][dtype] runs over it, split over the pool's threads for large ops, in 2-D
 *     tiles when one operand walks the other way (transposes).
 * The narrow floats (float16, bfloat16, float8, padded float6/float4) have no typed arithmetic: their
 * loops decode blocks to float32, run the float32 kernel and encode back ("staged" loops), which is what
 * "compute in float32 and round back" means, in one place.
 *
 * A reference path (dlx__ops_set_reference) replaces steps 3 and 4 with a plain walk over the N-d
 * index calling element functions written independently of the kernels; the tests compare the two.
 *
 * Limits (deliberate, for now):
 *  - packed float6/float4 take any strides (a bit-position walker) but go through a one-byte-per-element
 *    temporary of the operand's size, serially; packed vectors (lanes > 1) are refused;
 *  - only zero output strides are refused: an output whose distinct indices share memory through
 *    non-zero strides (shape (3,3), strides (1,1)) is not detected, and its result depends on the order
 *    of the writes;
 *  - int128, float128, complex32, vector and opaque dtypes take part in copy and fill only (byte moves);
 *  - fma on 64-bit integers computes in double, exact up to 2^53;
 *  - the kernels target the compiler's baseline ISA (SSE2 on x86-64): 64-bit integer products and
 *    comparisons, integer division, float -> integer casts and the float64 -> narrow encoders stay
 *    scalar; no non-temporal stores, so write-only ops pay the write-allocate traffic memcpy avoids. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
/* GCC's -O2 only vectorises loops that need no runtime alias check ("very cheap" cost model); every
 * kernel here needs one (out may be an input), so ask for the -O3 model. Set for the whole file so that
 * convert.h's inline conversions keep inlining into the kernels (GCC refuses to inline across different
 * optimisation options). Clang vectorises these loops at -O2 already. */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute/convert.h"
#include "core/error_internal.h"
#include "compute/kernels.h"
#include "backends/cpu/pool.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* ======================================================================================================
 * Type traits of the native dtypes: storage type S_, category CAT_, wrap-around type W_ (integers do
 * their arithmetic in an unsigned type at least as wide as int, where overflow is defined), limits.
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
#define S_c64 dlx_cf32
#define S_c128 dlx_cf64

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

#define KD_b8 DLX_KD_BOOL
#define KD_i8 DLX_KD_I8
#define KD_i16 DLX_KD_I16
#define KD_i32 DLX_KD_I32
#define KD_i64 DLX_KD_I64
#define KD_u8 DLX_KD_U8
#define KD_u16 DLX_KD_U16
#define KD_u32 DLX_KD_U32
#define KD_u64 DLX_KD_U64
#define KD_f32 DLX_KD_F32
#define KD_f64 DLX_KD_F64
#define KD_c64 DLX_KD_C64
#define KD_c128 DLX_KD_C128

/* Type lists (in dlx_kd order). Two copies of the native list, because a macro cannot expand itself:
 * the cast table nests one inside the other. */
#define NATIVE_LIST(X, A) \
  X(A, b8) X(A, i8) X(A, i16) X(A, i32) X(A, i64) X(A, u8) X(A, u16) X(A, u32) X(A, u64) X(A, f32) X(A, f64) X(A, c64) X(A, c128)
#define NATIVE_LIST2(X, A) \
  X(A, b8) X(A, i8) X(A, i16) X(A, i32) X(A, i64) X(A, u8) X(A, u16) X(A, u32) X(A, u64) X(A, f32) X(A, f64) X(A, c64) X(A, c128)
#define INT_LIST(X, A) X(A, i8) X(A, i16) X(A, i32) X(A, i64) X(A, u8) X(A, u16) X(A, u32) X(A, u64)
#define REAL_LIST(X, A) X(A, f32) X(A, f64)
#define CPLX_LIST(X, A) X(A, c64) X(A, c128)

#define PASTE_(a, b) a##b
#define PASTE(a, b) PASTE_(a, b)
#define PASTE3_(a, b, c) a##b##c
#define PASTE3(a, b, c) PASTE3_(a, b, c)

/* ======================================================================================================
 * Casts between native dtypes: one conversion rule per pair of categories (convert.h's rules for the
 * undefined corners of C: float -> int truncates, saturates, NaN -> 0).
 * ==================================================================================================== */

#define CVT_BOOL_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_BOOL_SINT(x, D) ((S_##D)((x) != 0))
#define CVT_BOOL_UINT(x, D) ((S_##D)((x) != 0))
#define CVT_BOOL_REAL(x, D) ((S_##D)((x) != 0))
#define CVT_BOOL_CPLX(x, D) ((S_##D){(PART_##D)((x) != 0), 0})
#define CVT_SINT_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_UINT_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_REAL_BOOL(x, D) ((uint8_t)((x) != 0))
#define CVT_CPLX_BOOL(x, D) ((uint8_t)((x).re != 0 || (x).im != 0))
/* integer -> integer: modular (C's rule for unsigned targets; GCC and clang define it for signed ones) */
#define CVT_SINT_SINT(x, D) ((S_##D)(x))
#define CVT_SINT_UINT(x, D) ((S_##D)(x))
#define CVT_UINT_SINT(x, D) ((S_##D)(x))
#define CVT_UINT_UINT(x, D) ((S_##D)(x))
#define CVT_SINT_REAL(x, D) ((S_##D)(x))
#define CVT_UINT_REAL(x, D) ((S_##D)(x))
#define CVT_SINT_CPLX(x, D) ((S_##D){(PART_##D)(x), 0})
#define CVT_UINT_CPLX(x, D) ((S_##D){(PART_##D)(x), 0})
#define CVT_REAL_SINT(x, D) ((S_##D)dlx_cvt_f64_to_int((double)(x), MIN_##D, MAX_##D))
#define CVT_REAL_UINT(x, D) ((S_##D)dlx_cvt_f64_to_uint((double)(x), MAX_##D))
#define CVT_REAL_REAL(x, D) ((S_##D)(x))
#define CVT_REAL_CPLX(x, D) ((S_##D){(PART_##D)(x), 0})
/* complex -> real keeps the real part (NumPy, with its ComplexWarning) */
#define CVT_CPLX_SINT(x, D) CVT_REAL_SINT((x).re, D)
#define CVT_CPLX_UINT(x, D) CVT_REAL_UINT((x).re, D)
#define CVT_CPLX_REAL(x, D) ((S_##D)(x).re)
#define CVT_CPLX_CPLX(x, D) ((S_##D){(PART_##D)(x).re, (PART_##D)(x).im})

#define CVT__(CS, CD, x, D) CVT_##CS##_##CD(x, D)
#define CVT_(CS, CD, x, D) CVT__(CS, CD, x, D)

#define DEF_CVT_FN(S, D) \
  static inline S_##D cvt_##S##_##D(S_##S x) { return CVT_(CAT_##S, CAT_##D, x, D); }
#define DEF_CVT_ROW(_, S) NATIVE_LIST2(DEF_CVT_PAIR, S)
#define DEF_CVT_PAIR(S, D) DEF_CVT_FN(S, D) DLX_DEF_UNARY(cast_##S##_##D, S_##D, S_##S, cvt_##S##_##D, (void)0)
NATIVE_LIST(DEF_CVT_ROW, _)

#define CAST_ENTRY(S, D) [KD_##S][KD_##D] = cast_##S##_##D,
#define CAST_ROW(_, S) NATIVE_LIST2(CAST_ENTRY, S)
static const dlx_loop_fn cast_native[DLX_KD_NATIVE_COUNT][DLX_KD_NATIVE_COUNT] = {NATIVE_LIST(CAST_ROW, _)};

/* ======================================================================================================
 * Copy and fill: dtype-blind moves by item size.
 * ==================================================================================================== */

typedef struct bytes16 {
  uint64_t lo, hi;
} bytes16;
#define IDENT(x) (x)
DLX_DEF_UNARY(copy_1, uint8_t, uint8_t, IDENT, (void)0)
DLX_DEF_UNARY(copy_2, uint16_t, uint16_t, IDENT, (void)0)
DLX_DEF_UNARY(copy_4, uint32_t, uint32_t, IDENT, (void)0)
DLX_DEF_UNARY(copy_8, uint64_t, uint64_t, IDENT, (void)0)
DLX_DEF_UNARY(copy_16, bytes16, bytes16, IDENT, (void)0)

/* Any item size (aux: the size): int128 and vector dtypes, opaque handles, 3-byte opaque types. */
static void copy_n(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  const size_t size = *(const size_t *)aux;
  for (int64_t i = 0; i < n; ++i) memcpy(d[0] + i * st[0], d[1] + i * st[1], size);
}

/* Contiguous rows go to memcpy (glibc picks non-temporal stores for large copies); the typed loops take
 * the rest, stride-0 fills included. */
static void copy_any(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  const size_t size = *(const size_t *)aux;
  if (st[0] == (int64_t)size && st[1] == (int64_t)size) {
    if (d[0] != d[1]) memcpy(d[0], d[1], (size_t)n * size);
    return;
  }
  switch (size) {
    case 1: copy_1(d, st, n, NULL); return;
    case 2: copy_2(d, st, n, NULL); return;
    case 4: copy_4(d, st, n, NULL); return;
    case 8: copy_8(d, st, n, NULL); return;
    case 16: copy_16(d, st, n, NULL); return;
    default: copy_n(d, st, n, aux); return;
  }
}

/* ======================================================================================================
 * Binary arithmetic and comparisons: one rule per (op, category).
 * ==================================================================================================== */

#define ADD_SINT(a, b, N) ((S_##N)((W_##N)(a) + (W_##N)(b)))
#define ADD_UINT(a, b, N) ((S_##N)((W_##N)(a) + (W_##N)(b)))
#define ADD_REAL(a, b, N) ((a) + (b))
#define ADD_CPLX(a, b, N) ((S_##N){(a).re + (b).re, (a).im + (b).im})
#define ADD_BOOL(a, b, N) ((uint8_t)(((a) | (b)) != 0)) /* logical or */
#define SUB_SINT(a, b, N) ((S_##N)((W_##N)(a) - (W_##N)(b)))
#define SUB_UINT(a, b, N) ((S_##N)((W_##N)(a) - (W_##N)(b)))
#define SUB_REAL(a, b, N) ((a) - (b))
#define SUB_CPLX(a, b, N) ((S_##N){(a).re - (b).re, (a).im - (b).im})
#define MUL_SINT(a, b, N) ((S_##N)((W_##N)(a) * (W_##N)(b)))
#define MUL_UINT(a, b, N) ((S_##N)((W_##N)(a) * (W_##N)(b)))
#define MUL_REAL(a, b, N) ((a) * (b))
/* NumPy's product formula (no inf recovery, unlike C99 Annex G) */
#define MUL_CPLX(a, b, N) ((S_##N){(a).re * (b).re - (a).im * (b).im, (a).re * (b).im + (a).im * (b).re})
#define MUL_BOOL(a, b, N) ((uint8_t)(((a) != 0) & ((b) != 0))) /* logical and */
/* x / 0 == 0 and INT_MIN / -1 == INT_MIN (the wrapped negation): never a trap */
#define DIV_SINT(a, b, N) \
  ((b) == 0 ? (S_##N)0 : (b) == -1 ? (S_##N)((W_##N)0 - (W_##N)(a)) : (S_##N)((a) / (b)))
#define DIV_UINT(a, b, N) ((b) == 0 ? (S_##N)0 : (S_##N)((a) / (b)))
#define DIV_REAL(a, b, N) ((a) / (b))
#define DIV_CPLX(a, b, N) cdiv_##N(a, b)
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

/* Smith's algorithm, as NumPy's complex division: no overflow for large parts; 0 / 0 gives NaNs. */
#define DEF_CDIV(_, N)                                                                                 \
  static inline S_##N cdiv_##N(S_##N a, S_##N b) {                                                      \
    const PART_##N br = b.re, bi = b.im;                                                                \
    const PART_##N abr = br < 0 ? -br : br, abi = bi < 0 ? -bi : bi;                                    \
    if (abr >= abi) {                                                                                   \
      if (abr == 0 && abi == 0) return (S_##N){a.re / abr, a.im / abi};                                \
      const PART_##N rat = bi / br, scl = (PART_##N)1.0 / (br + bi * rat);                              \
      return (S_##N){(a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl};                             \
    }                                                                                                   \
    const PART_##N rat = br / bi, scl = (PART_##N)1.0 / (bi + br * rat);                                \
    return (S_##N){(a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl};                               \
  }
CPLX_LIST(DEF_CDIV, _)

/* The result type of an op: the operands' for arithmetic, bool (one byte) for comparisons. */
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
#define ENUM_add DLX_OP_ADD
#define ENUM_sub DLX_OP_SUB
#define ENUM_mul DLX_OP_MUL
#define ENUM_div DLX_OP_DIV
#define ENUM_lt DLX_OP_LT
#define ENUM_le DLX_OP_LE
#define ENUM_gt DLX_OP_GT
#define ENUM_ge DLX_OP_GE
#define ENUM_eq DLX_OP_EQ
#define ENUM_ne DLX_OP_NE

#define OPRULE__(U, C, a, b, N) U##_##C(a, b, N)
#define OPRULE_(U, C, a, b, N) OPRULE__(U, C, a, b, N)
#define DEF_BIN(OP, N)                                                                                 \
  static inline OUT_##OP(N) op_##OP##_##N(S_##N a, S_##N b) { return OPRULE_(UP_##OP, CAT_##N, a, b, N); } \
  DLX_DEF_BINARY(bin_##OP##_##N, OUT_##OP(N), S_##N, op_##OP##_##N)
#define BIN_ENTRY(OP, N) [ENUM_##OP][KD_##N] = bin_##OP##_##N,

/* Which (op, dtype) pairs exist: bool has no sub/div, complex no ordering. */
#define BIN_ALL(X, OP) NATIVE_LIST(X, OP)
#define BIN_NOBOOL(X, OP) INT_LIST(X, OP) REAL_LIST(X, OP) CPLX_LIST(X, OP)
#define BIN_ORDERED(X, OP) X(OP, b8) INT_LIST(X, OP) REAL_LIST(X, OP)
#define BIN_TABLE(X)                                                                                    \
  BIN_ALL(X, add) BIN_NOBOOL(X, sub) BIN_ALL(X, mul) BIN_NOBOOL(X, div) BIN_ORDERED(X, lt) BIN_ORDERED(X, le) \
  BIN_ORDERED(X, gt) BIN_ORDERED(X, ge) BIN_ALL(X, eq) BIN_ALL(X, ne)

BIN_TABLE(DEF_BIN)
static const dlx_loop_fn bin_native[DLX_OP_COUNT][DLX_KD_NATIVE_COUNT] = {BIN_TABLE(BIN_ENTRY)};

/* ======================================================================================================
 * fma: out = s * t1 + t2. Integers in double, rounded half to even and saturated; floats in their own
 * precision (float32 for float32: NumPy's weak-scalar rule); bool as an integer in [0, 1].
 * ==================================================================================================== */

#define FMA_SINT(s, a, b, N) \
  ((S_##N)dlx_cvt_f64_to_int(dlx__round_half_even((s) * (double)(a) + (double)(b)), MIN_##N, MAX_##N))
#define FMA_UINT(s, a, b, N) ((S_##N)dlx_cvt_f64_to_uint(dlx__round_half_even((s) * (double)(a) + (double)(b)), MAX_##N))
#define FMA_BOOL(s, a, b, N) ((uint8_t)(dlx__round_half_even((s) * (double)((a) != 0) + (double)((b) != 0)) >= 1.0))
#define FMA_REAL(s, a, b, N) ((S_##N)(s) * (a) + (b))
#define FMA_CPLX(s, a, b, N) ((S_##N){(PART_##N)(s) * (a).re + (b).re, (PART_##N)(s) * (a).im + (b).im})
#define FMARULE__(C, s, a, b, N) FMA_##C(s, a, b, N)
#define FMARULE_(C, s, a, b, N) FMARULE__(C, s, a, b, N)
#define DEF_FMA(_, N)                                                                                  \
  static inline S_##N fmaop_##N(double s, S_##N a, S_##N b) { return FMARULE_(CAT_##N, s, a, b, N); }    \
  DLX_DEF_FMA(fma_##N, S_##N, S_##N, S_##N, fmaop_##N)
NATIVE_LIST(DEF_FMA, _)
static const dlx_loop_fn fma_native[DLX_KD_NATIVE_COUNT] = {
#define FMA_ENTRY(_, N) [KD_##N] = fma_##N,
    NATIVE_LIST(FMA_ENTRY, _)};

/* The signed partner: an int8 delta scaled onto a uint8 image. */
#define DEF_FMA_MIX(U, I)                                                                              \
  static inline S_##U fmamix_##U(double s, S_##I a, S_##U b) { return FMA_UINT(s, a, b, U); }           \
  DLX_DEF_FMA(fmamix_loop_##U, S_##U, S_##I, S_##U, fmamix_##U)
DEF_FMA_MIX(u8, i8)
DEF_FMA_MIX(u16, i16)
DEF_FMA_MIX(u32, i32)
DEF_FMA_MIX(u64, i64)

/* ======================================================================================================
 * Narrow floats: decoders to float32/float64 and encoders from them, one body per format family.
 * float16 and bfloat16 use convert.h's inline bit conversions; the 8/6/4-bit formats decode through a
 * 256-entry table and encode through the generic codec. Padded float6/float4 keep one code per byte.
 * ==================================================================================================== */

#define NARROW_LIST(X)                                                                                  \
  X(f16, 2, uint16_t, H) X(bf16, 4, uint16_t, B) X(e3m4, 7, uint8_t, T) X(e4m3, 8, uint8_t, T)              \
  X(e4m3b11fnuz, 9, uint8_t, T) X(e4m3fn, 10, uint8_t, T) X(e4m3fnuz, 11, uint8_t, T) X(e5m2, 12, uint8_t, T) \
  X(e5m2fnuz, 13, uint8_t, T) X(e8m0fnu, 14, uint8_t, T) X(e2m3fn, 15, uint8_t, T) X(e3m2fn, 16, uint8_t, T)  \
  X(e2m1fn, 17, uint8_t, T)

/* Every body declares both names, so that one PRE line serves all families. */
#define PRE_H(CODE) const float *tab = NULL; const dlx_cvt_format *fmt = NULL
#define PRE_B(CODE) const float *tab = NULL; const dlx_cvt_format *fmt = NULL
#define PRE_T(CODE)                                                                                    \
  const float *tab = dlx_cvt_decode_table(CODE);                                                       \
  const dlx_cvt_format *fmt = dlx_cvt_format_of(CODE)
#define DEC32_H(x) dlx_cvt_f16_to_f32(x)
#define DEC32_B(x) dlx_cvt_bf16_to_f32(x)
#define DEC32_T(x) tab[(x)&0xffu]
#define DEC64_H(x) dlx_cvt_f16_to_f64(x)
#define DEC64_B(x) dlx_cvt_bf16_to_f64(x)
#define DEC64_T(x) ((double)tab[(x)&0xffu])
#define ENC32_H(x) dlx_cvt_f32_to_f16(x)
#define ENC32_B(x) dlx_cvt_f32_to_bf16(x)
#define ENC32_T(x) ((uint8_t)dlx_cvt_encode_f32(fmt, (x)))
#define ENC64_H(x) dlx_cvt_f64_to_f16(x)
#define ENC64_B(x) dlx_cvt_f64_to_bf16(x)
#define ENC64_T(x) ((uint8_t)dlx_cvt_encode_f64(fmt, (x)))

#define DEF_NARROW(N, CODE, T, F)                                                                      \
  DLX_DEF_UNARY(dec32_##N, float, T, DEC32_##F, PRE_##F(CODE); (void)tab; (void)fmt)                    \
  DLX_DEF_UNARY(dec64_##N, double, T, DEC64_##F, PRE_##F(CODE); (void)tab; (void)fmt)                   \
  DLX_DEF_UNARY(enc32_##N, T, float, ENC32_##F, PRE_##F(CODE); (void)tab; (void)fmt)                    \
  DLX_DEF_UNARY(enc64_##N, T, double, ENC64_##F, PRE_##F(CODE); (void)tab; (void)fmt)
NARROW_LIST(DEF_NARROW)

/* float32 -> narrow format, contiguous rows: the generic encoder's normal-number path, branch-free so
 * that it vectorises, over blocks of FAST_BLOCK elements; a block in which any element falls outside it
 * (zero, subnormal result, overflow, inf, NaN, a negative input to the unsigned e8m0fnu) is encoded again
 * element by element with convert.h's exact encoder. Ordinary data never leaves the fast path; the
 * result is bit-identical either way (tests/test_ops.c sweeps float32 bit patterns against convert.h).
 * Normal path: with s = 23 - mantissa bits, rounding the float32 magnitude bits a to nearest even at bit
 * s and shifting gives (exponent << m | mantissa) of the target, carry included; rebiasing the exponent
 * is one subtraction. */
#define FAST_BLOCK 16
#define DEF_FAST_ENC(N, CODE, T, F)                                                                    \
  static void fenc32_##N(char *const *d, const int64_t *st, int64_t n, const void *aux) {              \
    if (st[0] != (int64_t)sizeof(T) || st[1] != 4 || !DLX__ALIGNED(d[0], T) || !DLX__ALIGNED(d[1], float)) { \
      enc32_##N(d, st, n, aux);                                                                       \
      return;                                                                                         \
    }                                                                                                 \
    if (CODE == DLX_CODE_BFLOAT) {                                                                    \
      /* bfloat16 is float32's top half: one add rounds every non-NaN input (zeros, subnormals and  \
       * overflow to inf included) to nearest even, so no block needs the exact path; NaN is a select */ \
      uint16_t *ob = (uint16_t *)(void *)d[0];                                                        \
      const float *ib = (const float *)(const void *)d[1];                                            \
      for (int64_t i = 0; i < n; ++i) {                                                               \
        const uint32_t x = dlx_cvt__f32_bits(ib[i]);                                                  \
        const uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;                                    \
        const uint32_t q = ((x >> 16) & 0x8000u) | 0x7fc0u;                                           \
        ob[i] = (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? q : r);                                   \
      }                                                                                               \
      return;                                                                                         \
    }                                                                                                 \
    const dlx_cvt_format *fmt = dlx_cvt_format_of(CODE);                                              \
    const uint32_t s = 23u - fmt->man_bits, half = (1u << (s - 1u)) - 1u;                             \
    /* e8m0fnu keeps no mantissa bit: the implicit 1 is the bit ties round to, so ties go up */       \
    const uint32_t always_up = fmt->man_bits == 0;                                                    \
    const uint32_t rebias = (uint32_t)(127 - fmt->bias) << fmt->man_bits;                             \
    const uint32_t lo = (uint32_t)(128 - fmt->bias) << 23; /* smallest magnitude with a normal code */\
    const uint32_t maxc = fmt->max_finite, sbit = fmt->sign_bit, unsigned_fmt = fmt->sign_bit == 0;   \
    T *o = (T *)(void *)d[0];                                                                         \
    const float *in = (const float *)(const void *)d[1];                                              \
    for (int64_t i0 = 0; i0 < n; i0 += FAST_BLOCK) {                                                  \
      const int64_t m = n - i0 < FAST_BLOCK ? n - i0 : FAST_BLOCK;                                    \
      uint32_t bad = 0;                                                                               \
      for (int64_t j = 0; j < m; ++j) {                                                               \
        const uint32_t x = dlx_cvt__f32_bits(in[i0 + j]);                                             \
        const uint32_t a = x & 0x7fffffffu, neg = x >> 31;                                            \
        const uint32_t lsb = always_up | ((a >> s) & 1u);                                             \
        const uint32_t code = ((a + half + lsb) >> s) - rebias;                                       \
        bad |= (uint32_t)(a < lo) | (uint32_t)(a >= 0x7f800000u) | (uint32_t)(code > maxc) | (neg & unsigned_fmt); \
        o[i0 + j] = (T)(code | ((0u - neg) & sbit));                                                  \
      }                                                                                               \
      if (bad) {                                                                                      \
        for (int64_t j = 0; j < m; ++j) o[i0 + j] = (T)ENCX_##F(in[i0 + j]);                          \
      }                                                                                               \
    }                                                                                                 \
  }
#define ENCX_H(x) dlx_cvt_f32_to_f16(x)
#define ENCX_B(x) dlx_cvt_f32_to_bf16(x)
#define ENCX_T(x) dlx_cvt_encode_f32(fmt, (x))
NARROW_LIST(DEF_FAST_ENC)

#define NARROW_ENTRY_DEC32(N, CODE, T, F) dec32_##N,
#define NARROW_ENTRY_DEC64(N, CODE, T, F) dec64_##N,
#define NARROW_ENTRY_ENC32(N, CODE, T, F) fenc32_##N,
#define NARROW_ENTRY_ENC64(N, CODE, T, F) enc64_##N,
/* Indexed by kd - DLX_KD_F16 (NARROW_LIST is in dlx_kd order). */
static const dlx_loop_fn narrow_dec32[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_DEC32)};
static const dlx_loop_fn narrow_dec64[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_DEC64)};
static const dlx_loop_fn narrow_enc32[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_ENC32)};
static const dlx_loop_fn narrow_enc64[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_ENC64)};

/* ======================================================================================================
 * Staged loops: decode inputs to a float buffer block by block, run a core loop, encode the result.
 * ==================================================================================================== */

#define STAGE_BLOCK 256

typedef struct staged_plan {
  int nin;
  dlx_loop_fn dec[2];  /* input k -> buffer; NULL: the core reads input k directly */
  int64_t dec_size[2]; /* bytes of one decoded element */
  dlx_loop_fn core;
  const void *core_aux;
  dlx_loop_fn enc;     /* buffer -> out; NULL: the core writes out directly */
  int64_t enc_size;
} staged_plan;

static void staged_loop(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  const staged_plan *p = aux;
  _Alignas(64) unsigned char buf[3][STAGE_BLOCK * sizeof(double)];
  char *cd[3];
  int64_t cs[3];
  /* A broadcast input (stride 0) is decoded once and handed to the core as a stride-0 scalar, so the
   * core's scalar fast path applies. */
  for (int k = 0; k < p->nin; ++k) {
    if (p->dec[k] != NULL && st[k + 1] == 0) {
      char *dd[2] = {(char *)buf[k + 1], d[k + 1]};
      const int64_t ds[2] = {p->dec_size[k], 0};
      p->dec[k](dd, ds, 1, NULL);
    }
  }
  for (int64_t i0 = 0; i0 < n; i0 += STAGE_BLOCK) {
    const int64_t m = n - i0 < STAGE_BLOCK ? n - i0 : STAGE_BLOCK;
    for (int k = 0; k < p->nin; ++k) {
      char *in = d[k + 1] + i0 * st[k + 1];
      if (p->dec[k] == NULL) {
        cd[k + 1] = in;
        cs[k + 1] = st[k + 1];
      } else if (st[k + 1] == 0) {
        cd[k + 1] = (char *)buf[k + 1];
        cs[k + 1] = 0;
      } else {
        char *dd[2] = {(char *)buf[k + 1], in};
        const int64_t ds[2] = {p->dec_size[k], st[k + 1]};
        p->dec[k](dd, ds, m, NULL);
        cd[k + 1] = (char *)buf[k + 1];
        cs[k + 1] = p->dec_size[k];
      }
    }
    char *out = d[0] + i0 * st[0];
    if (p->enc == NULL) {
      cd[0] = out;
      cs[0] = st[0];
      p->core(cd, cs, m, p->core_aux);
    } else {
      cd[0] = (char *)buf[0];
      cs[0] = p->enc_size;
      p->core(cd, cs, m, p->core_aux);
      char *ed[2] = {out, (char *)buf[0]};
      const int64_t es[2] = {st[0], p->enc_size};
      p->enc(ed, es, m, NULL);
    }
  }
}

/* ======================================================================================================
 * Dtype classification.
 * ==================================================================================================== */

dlx_kd dlx__kd_of(DLDataType dt) {
  if (dt.lanes != 1 || !dlx_dtype_is_valid(dt)) return DLX_KD_NONE;
  switch (dt.code) {
    case DLX_CODE_BOOL: return DLX_KD_BOOL;
    case DLX_CODE_INT:
      switch (dt.bits) {
        case 8: return DLX_KD_I8;
        case 16: return DLX_KD_I16;
        case 32: return DLX_KD_I32;
        case 64: return DLX_KD_I64;
        default: return DLX_KD_NONE;
      }
    case DLX_CODE_UINT:
      switch (dt.bits) {
        case 8: return DLX_KD_U8;
        case 16: return DLX_KD_U16;
        case 32: return DLX_KD_U32;
        case 64: return DLX_KD_U64;
        default: return DLX_KD_NONE;
      }
    case DLX_CODE_FLOAT:
      switch (dt.bits) {
        case 16: return DLX_KD_F16;
        case 32: return DLX_KD_F32;
        case 64: return DLX_KD_F64;
        default: return DLX_KD_NONE;
      }
    case DLX_CODE_BFLOAT: return DLX_KD_BF16;
    case DLX_CODE_COMPLEX:
      switch (dt.bits) {
        case 64: return DLX_KD_C64;
        case 128: return DLX_KD_C128;
        default: return DLX_KD_NONE;
      }
    default:
      if (dt.code >= DLX_CODE_FLOAT8_E3M4 && dt.code <= DLX_CODE_FLOAT4_E2M1FN)
        return (dlx_kd)(DLX_KD_F8_E3M4 + (dt.code - DLX_CODE_FLOAT8_E3M4));
      return DLX_KD_NONE;
  }
}

static inline bool kd_is_native(dlx_kd k) { return k >= 0 && k < DLX_KD_NATIVE_COUNT; }
/* float6 / float4: cast, fill and copy only (ops.h) */
static inline bool kd_is_subbyte(dlx_kd k) { return k >= DLX_KD_F6_E2M3FN && k <= DLX_KD_F4_E2M1FN; }
static inline int narrow_index(dlx_kd k) { return (int)k - DLX_KD_F16; }
static inline uint8_t narrow_code(dlx_kd k) {
  return k == DLX_KD_F16 ? DLX_CODE_FLOAT : k == DLX_KD_BF16 ? DLX_CODE_BFLOAT : (uint8_t)(k - DLX_KD_F8_E3M4 + DLX_CODE_FLOAT8_E3M4);
}

static inline bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* ======================================================================================================
 * Execution: a loop plan (dlx_iter) walked in rows or 2-D tiles, split over the pool.
 * ==================================================================================================== */

/* Elements an op needs before it is split over threads: below this the wake-up of a worker (a few
 * microseconds) costs more than the work it takes over. Measured with bench/bench_ops.c. */
#define DEFAULT_GRAIN 65536
#define CHUNKS_PER_THREAD 4
/* Transposed walks go in TILE x TILE tiles, in groups of GROUP x GROUP tiles (256 x 256 elements).
 * 8 rows per tile: operands with a power-of-two row pitch (4096 floats) map every row of a tile to one
 * L1 set, and an 8-way L1 holds 8 of them; the group bounds the pages in use to what the second-level
 * TLB holds. Measured on 4096^2 float32 transposed copy/add (bench/bench_ops.c): 8 x 8 in groups of 32
 * beat 32 x 32 tiles by 1.5-2x and 16 x 16 by ~20%. */
#define TILE 8
#define GROUP 32

static _Atomic int64_t grain_override;
static _Thread_local bool reference_mode;

bool dlx__ops_set_reference(bool on) {
  bool was = reference_mode;
  reference_mode = on;
  return was;
}

int64_t dlx__ops_set_grain(int64_t grain) { return atomic_exchange(&grain_override, grain > 0 ? grain : 0); }

typedef struct exec {
  dlx_iter it;
  dlx_loop_fn fn;
  const void *aux;
  bool tiled;
  int64_t tiles_r, tiles_c; /* tiles along the two innermost dimensions */
  int64_t tiles_r_padded;   /* tiles_r rounded up to whole groups */
  int64_t units;            /* elements, or tiles when tiled */
  int64_t per_chunk;
} exec;

/* Elements [begin, end) in the plan's row-major order. */
static void run_elements(const exec *e, int64_t begin, int64_t end) {
  const dlx_iter *it = &e->it;
  const int nop = it->nop, nd = it->ndim;
  char *ptr[DLX_ITER_MAX_OPERANDS];
  int64_t inner[DLX_ITER_MAX_OPERANDS];
  if (nd == 0) {
    for (int k = 0; k < nop; ++k) {
      ptr[k] = it->data[k];
      inner[k] = 0;
    }
    e->fn(ptr, inner, 1, e->aux);
    return;
  }
  int64_t idx[DLX_MAX_NDIM];
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % it->shape[d];
    rem /= it->shape[d];
  }
  for (int k = 0; k < nop; ++k) {
    intptr_t off = 0;
    for (int d = 0; d < nd; ++d) off += (intptr_t)(idx[d] * it->strides[k][d]);
    ptr[k] = it->data[k] + off;
    inner[k] = it->strides[k][nd - 1];
  }
  const int64_t width = it->shape[nd - 1];
  int64_t pos = begin;
  for (;;) {
    const int64_t n = width - idx[nd - 1] < end - pos ? width - idx[nd - 1] : end - pos;
    e->fn(ptr, inner, n, e->aux);
    pos += n;
    if (pos >= end) return;
    /* next row: rewind the inner dimension, carry into the outer ones */
    for (int k = 0; k < nop; ++k) ptr[k] -= (intptr_t)(idx[nd - 1] * inner[k]);
    idx[nd - 1] = 0;
    for (int d = nd - 2; d >= 0; --d) {
      for (int k = 0; k < nop; ++k) ptr[k] += (intptr_t)it->strides[k][d];
      if (++idx[d] < it->shape[d]) break;
      for (int k = 0; k < nop; ++k) ptr[k] -= (intptr_t)(idx[d] * it->strides[k][d]);
      idx[d] = 0;
    }
  }
}

/* Tiles [begin, end): TILE x TILE blocks of the two innermost dimensions, visited in groups of
 * GROUP x GROUP tiles. A group's lines stay in cache until all of their elements are used, and the pages
 * it touches (GROUP * TILE rows of each operand) fit the second-level TLB, which a sweep along a whole
 * row of tiles (thousands of pages for a 4096-wide transpose) would thrash. The grid is padded to whole
 * groups; padding tiles do nothing. */
static void run_tiles(const exec *e, int64_t begin, int64_t end) {
  const dlx_iter *it = &e->it;
  const int nop = it->nop, nd = it->ndim;
  const int64_t rows = it->shape[nd - 2], cols = it->shape[nd - 1];
  const int64_t groups_c = (e->tiles_c + GROUP - 1) / GROUP;
  const int64_t per_plane = e->tiles_r_padded * groups_c * GROUP;
  int64_t inner[DLX_ITER_MAX_OPERANDS], outer_st[DLX_ITER_MAX_OPERANDS];
  for (int k = 0; k < nop; ++k) {
    inner[k] = it->strides[k][nd - 1];
    outer_st[k] = it->strides[k][nd - 2];
  }
  for (int64_t t = begin; t < end; ++t) {
    int64_t plane = t / per_plane;
    const int64_t in_plane = t % per_plane;
    const int64_t group = in_plane / (GROUP * GROUP), within = in_plane % (GROUP * GROUP);
    const int64_t tr = (group / groups_c) * GROUP + within / GROUP, tc = (group % groups_c) * GROUP + within % GROUP;
    if (tr >= e->tiles_r || tc >= e->tiles_c) continue;
    const int64_t r0 = tr * TILE, c0 = tc * TILE;
    const int64_t nr = rows - r0 < TILE ? rows - r0 : TILE, nc = cols - c0 < TILE ? cols - c0 : TILE;
    char *base[DLX_ITER_MAX_OPERANDS];
    for (int k = 0; k < nop; ++k) base[k] = it->data[k];
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t i = plane % it->shape[d];
      plane /= it->shape[d];
      for (int k = 0; k < nop; ++k) base[k] += (intptr_t)(i * it->strides[k][d]);
    }
    char *ptr[DLX_ITER_MAX_OPERANDS];
    for (int64_t r = 0; r < nr; ++r) {
      for (int k = 0; k < nop; ++k) ptr[k] = base[k] + (intptr_t)((r0 + r) * outer_st[k] + c0 * inner[k]);
      e->fn(ptr, inner, nc, e->aux);
    }
  }
}

static void exec_chunk(void *ctx, int64_t chunk) {
  const exec *e = ctx;
  const int64_t begin = chunk * e->per_chunk;
  const int64_t end = begin + e->per_chunk < e->units ? begin + e->per_chunk : e->units;
  if (begin >= end) return;
  if (e->tiled) run_tiles(e, begin, end);
  else run_elements(e, begin, end);
}

static inline uint64_t uabs(int64_t x) { return x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x; }

/* Tiling pays when an operand's short stride is on the second innermost dimension while the plan (led by
 * the output) walks the innermost one: a transposed input or output. */
static bool want_tiles(const dlx_iter *it, const int64_t *itemsize) {
  const int nd = it->ndim;
  if (nd < 2 || it->shape[nd - 1] < TILE / 2 || it->shape[nd - 2] < TILE / 2) return false;
  for (int k = 0; k < it->nop; ++k) {
    const uint64_t si = uabs(it->strides[k][nd - 1]), so = uabs(it->strides[k][nd - 2]);
    if (so != 0 && si > (uint64_t)itemsize[k] && so < si) return true;
  }
  return false;
}

/* Run fn over the views (operand 0 the output), already validated and broadcast-compatible. */
static dlx_status execute(int nop, const dlx_view *const *views, dlx_loop_fn fn, const void *aux) {
  exec e;
  DLX_FORWARD(dlx_iter_init(&e.it, nop, views, DLX_ITER_OUTPUT_FULL));
  if (e.it.size == 0) return DLX_OK;
  /* Walk every dimension the output runs backwards the other way (NumPy does the same): elementwise
   * results do not depend on the order, and a reversed view then meets the contiguous fast paths. */
  for (int d = 0; d < e.it.ndim; ++d) {
    if (e.it.strides[0][d] >= 0) continue;
    for (int k = 0; k < nop; ++k) {
      e.it.data[k] += (intptr_t)((e.it.shape[d] - 1) * e.it.strides[k][d]);
      e.it.strides[k][d] = -e.it.strides[k][d];
    }
  }
  e.fn = fn;
  e.aux = aux;
  int64_t itemsize[DLX_ITER_MAX_OPERANDS];
  for (int k = 0; k < nop; ++k) itemsize[k] = (int64_t)dlx_dtype_itemsize(views[k]->dtype);
  e.tiled = want_tiles(&e.it, itemsize);
  if (e.tiled) {
    const int nd = e.it.ndim;
    e.tiles_r = (e.it.shape[nd - 2] + TILE - 1) / TILE;
    e.tiles_c = (e.it.shape[nd - 1] + TILE - 1) / TILE;
    e.tiles_r_padded = (e.tiles_r + GROUP - 1) / GROUP * GROUP;
    const int64_t per_plane = e.tiles_r_padded * ((e.tiles_c + GROUP - 1) / GROUP * GROUP);
    e.units = e.it.size / (e.it.shape[nd - 2] * e.it.shape[nd - 1]) * per_plane;
  } else {
    e.units = e.it.size;
  }
  int64_t grain = atomic_load(&grain_override);
  if (grain <= 0) grain = DEFAULT_GRAIN;
  int64_t chunks = e.it.size / grain;
  const int threads = dlx__pool_threads_available();
  /* a few chunks per thread: whoever is free (the caller, when a worker starts late) takes the next */
  if (chunks > (int64_t)threads * CHUNKS_PER_THREAD) chunks = (int64_t)threads * CHUNKS_PER_THREAD;
  if (threads == 1) chunks = 1;
  if (chunks > e.units) chunks = e.units;
  if (chunks < 1) chunks = 1;
  e.per_chunk = (e.units + chunks - 1) / chunks;
  if (chunks == 1) exec_chunk(&e, 0);
  else dlx__parallel_for(chunks, exec_chunk, &e);
  return DLX_OK;
}

/* ======================================================================================================
 * One op call: its operands (local copies, so that temporaries can replace them) and its temporaries.
 * ==================================================================================================== */

typedef enum opkind { K_COPY, K_FILL, K_CAST, K_BINARY, K_FMA } opkind;

typedef struct opcall {
  const char *fn; /* public name, for messages */
  opkind kind;
  dlx_binop op;
  double scalar;
  int nin;
  const char *names[3]; /* out, inputs */
  dlx_view out;
  dlx_view in[2];
  void *temps[4];
  int ntemps;
} opcall;

static const char *const op_names[DLX_OP_COUNT] = {"add", "sub", "mul", "div", "lt", "le", "gt", "ge", "eq", "ne"};

static bool op_is_comparison(dlx_binop op) { return op >= DLX_OP_LT && op <= DLX_OP_NE; }

typedef struct text {
  char s[160];
} text;

static const char *dtype_text(text *t, DLDataType dt) {
  const char *name = dlx_dtype_name(dt);
  if (name != NULL) return name;
  if (dlx_dtype_is_valid(dt)) {
    char buf[DLX_DTYPE_NAME_MAX];
    /* a valid dtype always formats; the error state is untouched on success */
    if (dlx_dtype_format(dt, buf, sizeof buf) == DLX_OK) {
      snprintf(t->s, sizeof t->s, "%s", buf);
      return t->s;
    }
  }
  snprintf(t->s, sizeof t->s, "(code %u, bits %u, lanes %u)", (unsigned)dt.code, (unsigned)dt.bits, (unsigned)dt.lanes);
  return t->s;
}

static const char *shape_text(text *t, int32_t ndim, const int64_t *shape) {
  size_t n = 0;
  t->s[n++] = '(';
  for (int32_t i = 0; i < ndim; ++i) {
    char item[24];
    int len = snprintf(item, sizeof item, i > 0 ? ",%lld" : "%lld", (long long)shape[i]);
    if (len < 0 || n + (size_t)len + 5 > sizeof t->s) {
      memcpy(t->s + n, "...", 3);
      n += 3;
      break;
    }
    memcpy(t->s + n, item, (size_t)len);
    n += (size_t)len;
  }
  t->s[n++] = ')';
  t->s[n] = '\0';
  return t->s;
}

static const char *device_text(text *t, DLDevice dev) {
  const char *name = dlx_device_type_name((int32_t)dev.device_type);
  if (name != NULL) snprintf(t->s, sizeof t->s, "%s:%d", name, (int)dev.device_id);
  else snprintf(t->s, sizeof t->s, "device type %d:%d", (int)dev.device_type, (int)dev.device_id);
  return t->s;
}

/* What every operand must satisfy. */
static dlx_status check_view(const char *fn, const char *name, const dlx_view *v) {
  DLX_FAIL_IF(v->ndim < 0 || v->ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: %s has ndim %d, outside [0, %d]", fn, name,
              (int)v->ndim, DLX_MAX_NDIM);
  if (!dlx_dtype_is_valid(v->dtype)) {
    text t;
    return dlx_set_error(DLX_ERR_INVALID_DTYPE, "%s: %s has illegal dtype %s", fn, name, dtype_text(&t, v->dtype));
  }
  bool empty = false;
  for (int32_t d = 0; d < v->ndim; ++d) {
    DLX_FAIL_IF(v->shape[d] < 0, DLX_ERR_NEGATIVE_EXTENT, "%s: %s has negative extent %lld at dimension %d", fn, name,
                (long long)v->shape[d], (int)d);
    if (v->shape[d] == 0) empty = true;
  }
  if (!dlx_device_is_host_accessible(v->device)) {
    text t;
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                         "%s: %s is on %s; only host-accessible memory (cpu, cuda_host, rocm_host, cuda_managed) "
                         "can be computed on (no device backend)",
                         fn, name, device_text(&t, v->device));
  }
  DLX_FAIL_IF(!empty && v->data == NULL, DLX_ERR_NULL_DATA, "%s: %s has elements but NULL data", fn, name);
  return DLX_OK;
}

static dlx_status check_output(const char *fn, const char *name, const dlx_view *v) {
  DLX_FAIL_IF(v->flags & DLX_VIEW_READ_ONLY, DLX_ERR_READ_ONLY, "%s: %s is read-only", fn, name);
  for (int32_t d = 0; d < v->ndim; ++d) {
    /* several output elements at one address: the result would depend on the write order */
    DLX_FAIL_IF(v->shape[d] > 1 && v->strides[d] == 0, DLX_ERR_BAD_STRIDE,
                "%s: %s has stride 0 at dimension %d (extent %lld): an output cannot be broadcast", fn, name, (int)d,
                (long long)v->shape[d]);
  }
  return DLX_OK;
}

static dlx_status check_broadcast(const char *fn, const char *name, const dlx_view *in, const char *out_name,
                                  const dlx_view *out) {
  bool ok = in->ndim <= out->ndim;
  for (int32_t j = 0; ok && j < in->ndim; ++j) {
    const int64_t e = in->shape[in->ndim - 1 - j], o = out->shape[out->ndim - 1 - j];
    ok = e == o || e == 1;
  }
  if (!ok) {
    text a, b;
    return dlx_set_error(DLX_ERR_BROADCAST, "%s: %s of shape %s does not broadcast to %s's shape %s", fn, name,
                         shape_text(&a, in->ndim, in->shape), out_name,
                         shape_text(&b, out->ndim, out->shape));
  }
  return DLX_OK;
}

/* Generic checks of an op call, after the op-specific dtype rules. */
static dlx_status check_call(opcall *c) {
  DLX_FORWARD(check_output(c->fn, c->names[0], &c->out));
  for (int k = 0; k < c->nin; ++k) DLX_FORWARD(check_broadcast(c->fn, c->names[k + 1], &c->in[k], c->names[0], &c->out));
  return DLX_OK;
}

static void free_temps(opcall *c) {
  for (int i = 0; i < c->ntemps; ++i) free(c->temps[i]);
  c->ntemps = 0;
}

/* A 64-byte aligned scratch buffer owned by the call. */
static dlx_status alloc_temp(opcall *c, uint64_t bytes, void **out) {
  uint64_t size = (bytes + 63u) & ~(uint64_t)63u;
  if (size == 0) size = 64;
  DLX_FAIL_IF(bytes > (uint64_t)PTRDIFF_MAX || c->ntemps >= (int)(sizeof c->temps / sizeof c->temps[0]),
              DLX_ERR_OUT_OF_MEMORY, "%s: a temporary of %llu bytes cannot be allocated", c->fn,
              (unsigned long long)bytes);
  void *p = aligned_alloc(64, (size_t)size);
  DLX_FAIL_IF(p == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a temporary of %llu bytes", c->fn,
              (unsigned long long)bytes);
  c->temps[c->ntemps++] = p;
  *out = p;
  return DLX_OK;
}

/* Copy a view's header and its first ndim extents and strides: a dlx_view holds 64 of each (1 KiB),
 * and small ops would otherwise spend most of their time moving unused entries. */
static void view_copy(dlx_view *dst, const dlx_view *src) {
  dst->data = src->data;
  dst->dtype = src->dtype;
  dst->device = src->device;
  dst->ndim = src->ndim;
  dst->flags = src->flags;
  const size_t n = src->ndim > 0 && src->ndim <= DLX_MAX_NDIM ? (size_t)src->ndim : 0;
  memcpy(dst->shape, src->shape, n * sizeof *src->shape);
  memcpy(dst->strides, src->strides, n * sizeof *src->strides);
}

/* A C-contiguous view over fresh scratch memory with v's shape and dtype; padded when `padded`. */
static dlx_status temp_like(opcall *c, const dlx_view *v, bool padded, dlx_view *out) {
  const int64_t n = dlx_view_size(v);
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(v->dtype, (uint64_t)n, padded, &bytes));
  void *p = NULL;
  DLX_FORWARD(alloc_temp(c, bytes, &p));
  view_copy(out, v);
  out->data = p;
  out->flags = padded && dlx_dtype_is_subbyte(v->dtype) ? DLX_VIEW_SUBBYTE_PADDED : 0;
  return dlx_layout_compact_strides(v->ndim, v->shape, NULL, out->strides);
}

static dlx_status run_call(opcall *c);

/* ======================================================================================================
 * Packed float6 / float4: walk the elements by bit position (element i at bit i * bits from data,
 * negative strides included) into or out of a padded one-byte-per-element buffer.
 * ==================================================================================================== */

static inline int64_t floor_div8(int64_t a) { return a / 8 - (a % 8 < 0); }

static inline uint32_t bits_get(const unsigned char *base, int64_t bitpos, unsigned bits) {
  const int64_t byte = floor_div8(bitpos);
  const unsigned shift = (unsigned)(bitpos - byte * 8);
  uint32_t w = base[byte];
  if (shift + bits > 8u) w |= (uint32_t)base[byte + 1] << 8;
  return (w >> shift) & ((1u << bits) - 1u);
}

static inline void bits_set(unsigned char *base, int64_t bitpos, unsigned bits, uint32_t value) {
  const int64_t byte = floor_div8(bitpos);
  const unsigned shift = (unsigned)(bitpos - byte * 8);
  const uint32_t mask = ((1u << bits) - 1u) << shift;
  const uint32_t v = (value << shift) & mask;
  base[byte] = (unsigned char)((base[byte] & ~mask) | v);
  if (shift + bits > 8u) base[byte + 1] = (unsigned char)((base[byte + 1] & ~(mask >> 8)) | (v >> 8));
}

/* Packed view p <-> row-major padded bytes buf (the low bits of each byte hold the code). */
static void packed_walk(const dlx_view *p, uint8_t *buf, bool unpack) {
  const int64_t n = dlx_view_size(p);
  const unsigned bits = (unsigned)p->dtype.bits;
  unsigned char *data = p->data;
  if (dlx_view_is_c_contiguous(p)) {
    for (int64_t i = 0; i < n; ++i) {
      if (unpack) buf[i] = (uint8_t)dlx_cvt_packed_get(data, (uint64_t)i, bits);
      else dlx_cvt_packed_set(data, (uint64_t)i, bits, buf[i]);
    }
    return;
  }
  int64_t idx[DLX_MAX_NDIM] = {0};
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (unpack) buf[i] = (uint8_t)bits_get(data, off * (int64_t)bits, bits);
    else bits_set(data, off * (int64_t)bits, bits, buf[i]);
    for (int32_t d = p->ndim - 1; d >= 0; --d) {
      off += p->strides[d];
      if (++idx[d] < p->shape[d]) break;
      off -= idx[d] * p->strides[d];
      idx[d] = 0;
    }
  }
}

static bool same_dtype_copy(const opcall *c) {
  return c->kind == K_COPY || c->kind == K_FILL || (c->kind == K_CAST && dlx_dtype_equal(c->out.dtype, c->in[0].dtype));
}

/* ======================================================================================================
 * Reference path: the N-d index walked element by element, each element loaded into a wide value,
 * computed with a switch over the semantics of ops.h, and stored back with the cast rules. Written apart
 * from the kernels above on purpose (no macros shared), so that comparing the two tests both.
 * ==================================================================================================== */

typedef enum rvcat { RV_BOOL, RV_SINT, RV_UINT, RV_F32, RV_F64, RV_C64, RV_C128 } rvcat;

/* One element: integers exact in i / u, floats in f (float32-computed categories hold floats), complex
 * parts in f and im. */
typedef struct rv {
  rvcat cat;
  int64_t i;
  uint64_t u;
  double f, im;
} rv;

static uint32_t ref_get_code(const dlx_view *v, int64_t off) {
  const unsigned bits = v->dtype.bits;
  if (is_packed(v)) return bits_get(v->data, off * (int64_t)bits, bits);
  const unsigned char *p = (const unsigned char *)v->data + off * (int64_t)dlx_dtype_itemsize(v->dtype);
  if (bits == 16) {
    uint16_t h;
    memcpy(&h, p, 2);
    return h;
  }
  return bits < 8 ? (uint32_t)(*p & ((1u << bits) - 1u)) : *p;
}

static void ref_set_code(const dlx_view *v, int64_t off, uint32_t code) {
  const unsigned bits = v->dtype.bits;
  if (is_packed(v)) {
    bits_set(v->data, off * (int64_t)bits, bits, code);
    return;
  }
  unsigned char *p = (unsigned char *)v->data + off * (int64_t)dlx_dtype_itemsize(v->dtype);
  if (bits == 16) {
    const uint16_t h = (uint16_t)code;
    memcpy(p, &h, 2);
  } else {
    *p = (unsigned char)code;
  }
}

static rv ref_load(const dlx_view *v, int64_t off) {
  rv r;
  memset(&r, 0, sizeof r);
  const dlx_kd k = dlx__kd_of(v->dtype);
  const char *p = (const char *)v->data + (kd_is_native(k) ? off * (int64_t)dlx_dtype_itemsize(v->dtype) : 0);
  switch (k) {
    case DLX_KD_BOOL: r.cat = RV_BOOL; r.u = *(const unsigned char *)p != 0; break;
    case DLX_KD_I8: { int8_t x; memcpy(&x, p, 1); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_I16: { int16_t x; memcpy(&x, p, 2); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_I32: { int32_t x; memcpy(&x, p, 4); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_I64: { int64_t x; memcpy(&x, p, 8); r.cat = RV_SINT; r.i = x; break; }
    case DLX_KD_U8: { uint8_t x; memcpy(&x, p, 1); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_U16: { uint16_t x; memcpy(&x, p, 2); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_U32: { uint32_t x; memcpy(&x, p, 4); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_U64: { uint64_t x; memcpy(&x, p, 8); r.cat = RV_UINT; r.u = x; break; }
    case DLX_KD_F32: { float x; memcpy(&x, p, 4); r.cat = RV_F32; r.f = x; break; }
    case DLX_KD_F64: { double x; memcpy(&x, p, 8); r.cat = RV_F64; r.f = x; break; }
    case DLX_KD_C64: { float x[2]; memcpy(x, p, 8); r.cat = RV_C64; r.f = x[0]; r.im = x[1]; break; }
    case DLX_KD_C128: { double x[2]; memcpy(x, p, 16); r.cat = RV_C128; r.f = x[0]; r.im = x[1]; break; }
    default: {
      /* narrow floats: exact in double through the generic codec (not the kernels' tables), then
       * computed in float32 */
      const dlx_cvt_format *fmt = dlx_cvt_format_of(v->dtype.code);
      r.cat = RV_F32;
      r.f = dlx_cvt_decode_f64(fmt, ref_get_code(v, off));
      break;
    }
  }
  return r;
}

static double rv_real(const rv *x) {
  switch (x->cat) {
    case RV_BOOL:
    case RV_UINT: return (double)x->u;
    case RV_SINT: return (double)x->i;
    default: return x->f;
  }
}

static bool rv_nonzero(const rv *x) {
  switch (x->cat) {
    case RV_BOOL:
    case RV_UINT: return x->u != 0;
    case RV_SINT: return x->i != 0;
    case RV_C64:
    case RV_C128: return x->f != 0 || x->im != 0;
    default: return x->f != 0;
  }
}

/* Store x into element off of v, converted with the cast rules. */
static void ref_store(const dlx_view *v, int64_t off, const rv *x) {
  const dlx_kd k = dlx__kd_of(v->dtype);
  char *p = (char *)v->data + (kd_is_native(k) ? off * (int64_t)dlx_dtype_itemsize(v->dtype) : 0);
  const bool is_int = x->cat == RV_BOOL || x->cat == RV_SINT || x->cat == RV_UINT;
  const uint64_t pattern = x->cat == RV_SINT ? (uint64_t)x->i : x->u; /* modular integer conversion */
  const double re = rv_real(x);
  switch (k) {
    case DLX_KD_BOOL: *(unsigned char *)p = rv_nonzero(x); return;
#define REF_STORE_INT(KD, T, LO, HI, UNS)                                                              \
  case KD: {                                                                                          \
    T y = is_int ? (T)pattern : UNS ? (T)dlx_cvt_f64_to_uint(re, (uint64_t)HI) : (T)dlx_cvt_f64_to_int(re, LO, HI); \
    memcpy(p, &y, sizeof y);                                                                          \
    return;                                                                                           \
  }
      REF_STORE_INT(DLX_KD_I8, int8_t, INT8_MIN, INT8_MAX, 0)
      REF_STORE_INT(DLX_KD_I16, int16_t, INT16_MIN, INT16_MAX, 0)
      REF_STORE_INT(DLX_KD_I32, int32_t, INT32_MIN, INT32_MAX, 0)
      REF_STORE_INT(DLX_KD_I64, int64_t, INT64_MIN, INT64_MAX, 0)
      REF_STORE_INT(DLX_KD_U8, uint8_t, 0, UINT8_MAX, 1)
      REF_STORE_INT(DLX_KD_U16, uint16_t, 0, UINT16_MAX, 1)
      REF_STORE_INT(DLX_KD_U32, uint32_t, 0, UINT32_MAX, 1)
      REF_STORE_INT(DLX_KD_U64, uint64_t, 0, UINT64_MAX, 1)
#undef REF_STORE_INT
    case DLX_KD_F32:
    case DLX_KD_C64: {
      /* integers convert straight to float (one rounding), not through double */
      float y[2];
      y[0] = x->cat == RV_SINT ? (float)x->i : (x->cat == RV_UINT || x->cat == RV_BOOL) ? (float)x->u : (float)x->f;
      y[1] = (x->cat == RV_C64 || x->cat == RV_C128) ? (float)x->im : 0.0f;
      memcpy(p, y, k == DLX_KD_F32 ? 4 : 8);
      return;
    }
    case DLX_KD_F64:
    case DLX_KD_C128: {
      double y[2];
      y[0] = re;
      y[1] = (x->cat == RV_C64 || x->cat == RV_C128) ? x->im : 0.0;
      memcpy(p, y, k == DLX_KD_F64 ? 8 : 16);
      return;
    }
    default: {
      const dlx_cvt_format *fmt = dlx_cvt_format_of(v->dtype.code);
      /* float32-valued sources encode from float, everything else (integers too) from double */
      const uint32_t code = (x->cat == RV_F32 || x->cat == RV_C64) ? dlx_cvt_encode_f32(fmt, (float)x->f)
                                                                   : dlx_cvt_encode_f64(fmt, re);
      ref_set_code(v, off, code);
      return;
    }
  }
}

static rv ref_binop(dlx_binop op, const rv *a, const rv *b) {
  rv r = *a;
  if (op_is_comparison(op)) {
    int c = 0; /* -1, 0, 1, or 2 for unordered */
    bool eq = false;
    switch (a->cat) {
      case RV_BOOL:
      case RV_UINT: c = a->u < b->u ? -1 : a->u > b->u; break;
      case RV_SINT: c = a->i < b->i ? -1 : a->i > b->i; break;
      case RV_C64:
      case RV_C128: eq = a->f == b->f && a->im == b->im; break;
      default: c = a->f < b->f ? -1 : a->f > b->f ? 1 : a->f == b->f ? 0 : 2; break;
    }
    if (a->cat != RV_C64 && a->cat != RV_C128) eq = c == 0;
    bool res = false;
    switch (op) {
      case DLX_OP_LT: res = c == -1; break;
      case DLX_OP_LE: res = c == -1 || c == 0; break;
      case DLX_OP_GT: res = c == 1; break;
      case DLX_OP_GE: res = c == 1 || c == 0; break;
      case DLX_OP_EQ: res = eq; break;
      default: res = !eq; break;
    }
    memset(&r, 0, sizeof r);
    r.cat = RV_BOOL;
    r.u = res;
    return r;
  }
  switch (a->cat) {
    case RV_BOOL: r.u = op == DLX_OP_ADD ? (a->u | b->u) : (a->u & b->u); break;
    case RV_SINT:
    case RV_UINT: {
      const bool sgn = a->cat == RV_SINT;
      const uint64_t x = sgn ? (uint64_t)a->i : a->u, y = sgn ? (uint64_t)b->i : b->u;
      uint64_t z = 0;
      switch (op) {
        case DLX_OP_ADD: z = x + y; break;
        case DLX_OP_SUB: z = x - y; break;
        case DLX_OP_MUL: z = x * y; break;
        default:
          if (y == 0) z = 0;
          else if (sgn && b->i == -1) z = 0 - x; /* INT_MIN / -1 wraps to INT_MIN once truncated */
          else z = sgn ? (uint64_t)(a->i / b->i) : x / y;
          break;
      }
      if (sgn) r.i = (int64_t)z;
      else r.u = z;
      break;
    }
    case RV_F32: {
      const float x = (float)a->f, y = (float)b->f;
      float z = op == DLX_OP_ADD ? x + y : op == DLX_OP_SUB ? x - y : op == DLX_OP_MUL ? x * y : x / y;
      r.f = z;
      break;
    }
    case RV_F64: {
      const double x = a->f, y = b->f;
      r.f = op == DLX_OP_ADD ? x + y : op == DLX_OP_SUB ? x - y : op == DLX_OP_MUL ? x * y : x / y;
      break;
    }
    case RV_C64: {
      const float ar = (float)a->f, ai = (float)a->im, br = (float)b->f, bi = (float)b->im;
      float zr, zi;
      if (op == DLX_OP_ADD) { zr = ar + br; zi = ai + bi; }
      else if (op == DLX_OP_SUB) { zr = ar - br; zi = ai - bi; }
      else if (op == DLX_OP_MUL) { const float p1 = ar * br, p2 = ai * bi, p3 = ar * bi, p4 = ai * br; zr = p1 - p2; zi = p3 + p4; }
      else {
        const float mr = br < 0 ? -br : br, mi = bi < 0 ? -bi : bi;
        if (mr >= mi && mr == 0) { zr = ar / mr; zi = ai / mi; }
        else if (mr >= mi) { const float q = bi / br, s = 1.0f / (br + bi * q); zr = (ar + ai * q) * s; zi = (ai - ar * q) * s; }
        else { const float q = br / bi, s = 1.0f / (bi + br * q); zr = (ar * q + ai) * s; zi = (ai * q - ar) * s; }
      }
      r.f = zr;
      r.im = zi;
      break;
    }
    case RV_C128: {
      const double ar = a->f, ai = a->im, br = b->f, bi = b->im;
      double zr, zi;
      if (op == DLX_OP_ADD) { zr = ar + br; zi = ai + bi; }
      else if (op == DLX_OP_SUB) { zr = ar - br; zi = ai - bi; }
      else if (op == DLX_OP_MUL) { const double p1 = ar * br, p2 = ai * bi, p3 = ar * bi, p4 = ai * br; zr = p1 - p2; zi = p3 + p4; }
      else {
        const double mr = br < 0 ? -br : br, mi = bi < 0 ? -bi : bi;
        if (mr >= mi && mr == 0) { zr = ar / mr; zi = ai / mi; }
        else if (mr >= mi) { const double q = bi / br, s = 1.0 / (br + bi * q); zr = (ar + ai * q) * s; zi = (ai - ar * q) * s; }
        else { const double q = br / bi, s = 1.0 / (bi + br * q); zr = (ar * q + ai) * s; zi = (ai * q - ar) * s; }
      }
      r.f = zr;
      r.im = zi;
      break;
    }
  }
  return r;
}

/* out = s * t1 + t2, in out's (t2's) category. */
static rv ref_fma(double s, const rv *a, const rv *b) {
  rv r = *b;
  switch (b->cat) {
    case RV_BOOL: {
      const double z = dlx__round_half_even(s * rv_real(a) + rv_real(b));
      r.u = z >= 1.0;
      break;
    }
    case RV_SINT:
    case RV_UINT:
      /* rounded here; the store truncates (exactly) and saturates */
      r.cat = RV_F64;
      r.f = dlx__round_half_even(s * rv_real(a) + rv_real(b));
      break;
    case RV_F32: r.f = (float)s * (float)a->f + (float)b->f; break;
    case RV_F64: r.f = s * a->f + b->f; break;
    case RV_C64:
      r.f = (float)s * (float)a->f + (float)b->f;
      r.im = (float)s * (float)a->im + (float)b->im;
      break;
    case RV_C128:
      r.f = s * a->f + b->f;
      r.im = s * a->im + b->im;
      break;
  }
  return r;
}

static void ref_element(const opcall *c, int64_t oo, const int64_t *io) {
  /* a cast to the same dtype is a copy (bytes kept as they are, as the fast path does) */
  const opkind kind = same_dtype_copy(c) ? K_COPY : c->kind;
  switch (kind) {
    case K_COPY:
    case K_FILL: {
      /* dtype-blind: bytes, or bit fields of packed elements */
      if (is_packed(&c->out) || is_packed(&c->in[0])) {
        ref_set_code(&c->out, oo, ref_get_code(&c->in[0], io[0]));
      } else {
        const int64_t size = (int64_t)dlx_dtype_itemsize(c->out.dtype);
        memcpy((char *)c->out.data + oo * size, (const char *)c->in[0].data + io[0] * size, (size_t)size);
      }
      return;
    }
    case K_CAST: {
      const rv x = ref_load(&c->in[0], io[0]);
      ref_store(&c->out, oo, &x);
      return;
    }
    case K_BINARY: {
      const rv a = ref_load(&c->in[0], io[0]), b = ref_load(&c->in[1], io[1]);
      const rv r = ref_binop(c->op, &a, &b);
      ref_store(&c->out, oo, &r);
      return;
    }
    case K_FMA: {
      const rv a = ref_load(&c->in[0], io[0]), b = ref_load(&c->in[1], io[1]);
      const rv r = ref_fma(c->scalar, &a, &b);
      ref_store(&c->out, oo, &r);
      return;
    }
  }
}

static void ref_run(const opcall *c) {
  const dlx_view *o = &c->out;
  const int32_t nd = o->ndim;
  int64_t st[2][DLX_MAX_NDIM];
  for (int k = 0; k < c->nin; ++k) {
    const dlx_view *v = &c->in[k];
    for (int32_t d = 0; d < nd; ++d) {
      const int32_t j = d - (nd - v->ndim); /* right-aligned */
      st[k][d] = (j < 0 || v->shape[j] == 1) ? 0 : v->strides[j];
    }
  }
  const int64_t n = dlx_view_size(o);
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t e = 0; e < n; ++e) {
    int64_t oo = 0, io[2] = {0, 0};
    for (int32_t d = 0; d < nd; ++d) {
      oo += idx[d] * o->strides[d];
      for (int k = 0; k < c->nin; ++k) io[k] += idx[d] * st[k][d];
    }
    ref_element(c, oo, io);
    for (int32_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < o->shape[d]) break;
      idx[d] = 0;
    }
  }
}

/* ======================================================================================================
 * Kernel selection and the op pipeline.
 * ==================================================================================================== */

typedef struct selection {
  dlx_loop_fn fn;
  const void *aux;
  size_t itemsize;   /* aux of the copy loops */
  staged_plan plan;  /* aux of staged loops */
} selection;

/* The loop for a validated call whose operands are all byte-sized (packed ones already unpacked). */
static void select_loop(const opcall *c, selection *s) {
  memset(s, 0, sizeof *s);
  if (same_dtype_copy(c)) {
    s->itemsize = dlx_dtype_itemsize(c->out.dtype);
    s->fn = copy_any;
    s->aux = &s->itemsize;
    return;
  }
  staged_plan *p = &s->plan;
  if (c->kind == K_CAST) {
    const dlx_kd src = dlx__kd_of(c->in[0].dtype), dst = dlx__kd_of(c->out.dtype);
    p->nin = 1;
    if (kd_is_native(src) && kd_is_native(dst)) {
      s->fn = cast_native[src][dst];
      return;
    }
    if (kd_is_native(src)) {
      const int nd = narrow_index(dst);
      if (src == DLX_KD_F32 || src == DLX_KD_F64) {
        s->fn = src == DLX_KD_F32 ? narrow_enc32[nd] : narrow_enc64[nd];
        return;
      }
      /* convert.h: float32-valued sources encode from float, the others (integers too) from double */
      const dlx_kd mid = src == DLX_KD_C64 ? DLX_KD_F32 : DLX_KD_F64;
      p->dec[0] = cast_native[src][mid];
      p->dec_size[0] = mid == DLX_KD_F32 ? 4 : 8;
      p->core = mid == DLX_KD_F32 ? narrow_enc32[nd] : narrow_enc64[nd];
    } else if (kd_is_native(dst)) {
      const int ns = narrow_index(src);
      if (dst == DLX_KD_F32 || dst == DLX_KD_F64) {
        s->fn = dst == DLX_KD_F32 ? narrow_dec32[ns] : narrow_dec64[ns];
        return;
      }
      const dlx_kd mid = dst == DLX_KD_C128 ? DLX_KD_F64 : DLX_KD_F32;
      p->dec[0] = mid == DLX_KD_F32 ? narrow_dec32[ns] : narrow_dec64[ns];
      p->dec_size[0] = mid == DLX_KD_F32 ? 4 : 8;
      p->core = cast_native[mid][dst];
    } else {
      p->dec[0] = narrow_dec32[narrow_index(src)];
      p->dec_size[0] = 4;
      p->core = narrow_enc32[narrow_index(dst)];
    }
    s->fn = staged_loop;
    s->aux = p;
    return;
  }
  /* binary and fma: dtype of the second input (t2 for fma; a == b for binary) */
  const dlx_kd k = dlx__kd_of(c->in[1].dtype);
  if (c->kind == K_BINARY) {
    if (kd_is_native(k)) {
      s->fn = bin_native[c->op][k];
      return;
    }
    p->nin = 2;
    p->dec[0] = p->dec[1] = narrow_dec32[narrow_index(k)];
    p->dec_size[0] = p->dec_size[1] = 4;
    p->core = bin_native[c->op][DLX_KD_F32];
    if (!op_is_comparison(c->op)) {
      p->enc = narrow_enc32[narrow_index(k)];
      p->enc_size = 4;
    }
    s->fn = staged_loop;
    s->aux = p;
    return;
  }
  const dlx_kd k1 = dlx__kd_of(c->in[0].dtype);
  if (kd_is_native(k)) {
    s->aux = &c->scalar;
    if (k1 == k) {
      s->fn = fma_native[k];
    } else {
      static const dlx_loop_fn mixed[4] = {fmamix_loop_u8, fmamix_loop_u16, fmamix_loop_u32, fmamix_loop_u64};
      s->fn = mixed[k - DLX_KD_U8];
    }
    return;
  }
  p->nin = 2;
  p->dec[0] = p->dec[1] = narrow_dec32[narrow_index(k)];
  p->dec_size[0] = p->dec_size[1] = 4;
  p->core = fma_native[DLX_KD_F32];
  p->core_aux = &c->scalar;
  p->enc = narrow_enc32[narrow_index(k)];
  p->enc_size = 4;
  s->fn = staged_loop;
  s->aux = p;
}

/* Byte-sized operands: plan and run. */
static dlx_status run_fast(opcall *c) {
  selection s;
  select_loop(c, &s);
  const dlx_view *views[3] = {&c->out, &c->in[0], &c->in[1]};
  return execute(1 + c->nin, views, s.fn, s.aux);
}

static void init_call(opcall *c, const char *fn, opkind kind, int nin, const char *out_name, const char *n1,
                      const char *n2) {
  /* field by field: the views (3 KiB) are filled by load_operands */
  c->op = DLX_OP_ADD;
  c->scalar = 0.0;
  c->ntemps = 0;
  c->fn = fn;
  c->kind = kind;
  c->nin = nin;
  c->names[0] = out_name;
  c->names[1] = n1;
  c->names[2] = n2;
}

static dlx_status run_call(opcall *c) {
  if (dlx_view_size(&c->out) == 0) return DLX_OK;
  /* All host-accessible memory is one address space to the kernels. */
  c->out.device = (DLDevice){kDLCPU, 0};
  for (int k = 0; k < c->nin; ++k) c->in[k].device = (DLDevice){kDLCPU, 0};

  /* An input that overlaps the output other than element for element would be read after the output
   * overwrote it: copy it first. */
  for (int k = 0; k < c->nin; ++k) {
    dlx_overlap ov;
    DLX_FORWARD(dlx_view_overlap(&c->out, &c->in[k], &ov));
    if (ov != DLX_OVERLAP_PARTIAL) continue;
    dlx_view tmp;
    DLX_FORWARD(temp_like(c, &c->in[k], (c->in[k].flags & DLX_VIEW_SUBBYTE_PADDED) != 0, &tmp));
    opcall cc;
    init_call(&cc, c->fn, K_COPY, 1, "temporary", c->names[k + 1], NULL);
    view_copy(&cc.out, &tmp);
    view_copy(&cc.in[0], &c->in[k]);
    dlx_status st = run_call(&cc);
    free_temps(&cc);
    DLX_FORWARD(st);
    view_copy(&c->in[k], &tmp);
  }

  if (reference_mode) {
    ref_run(c);
    return DLX_OK;
  }

  /* Packed float6/float4: inputs unpacked to one code per byte; a packed output is computed into a
   * padded temporary and packed at the end (after every input was read, so no overlap question). */
  for (int k = 0; k < c->nin; ++k) {
    if (!is_packed(&c->in[k])) continue;
    dlx_view tmp;
    DLX_FORWARD(temp_like(c, &c->in[k], true, &tmp));
    packed_walk(&c->in[k], tmp.data, true);
    view_copy(&c->in[k], &tmp);
  }
  if (!is_packed(&c->out)) return run_fast(c);
  dlx_view packed_out;
  view_copy(&packed_out, &c->out);
  DLX_FORWARD(temp_like(c, &packed_out, true, &c->out));
  DLX_FORWARD(run_fast(c));
  packed_walk(&packed_out, c->out.data, false);
  return DLX_OK;
}

static dlx_status run_and_free(opcall *c) {
  dlx_status st = run_call(c);
  free_temps(c);
  return st;
}


static dlx_status dtype_mismatch(const opcall *c, int i, int j) {
  const dlx_view *vi = i == 0 ? &c->out : &c->in[i - 1], *vj = j == 0 ? &c->out : &c->in[j - 1];
  text a, b;
  return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "%s: dtype mismatch: %s is %s but %s is %s", c->fn, c->names[i],
                       dtype_text(&a, vi->dtype), c->names[j], dtype_text(&b, vj->dtype));
}

/* Copy the caller's views in, checking each. */
static dlx_status load_operands(opcall *c, const dlx_view *out, const dlx_view *a, const dlx_view *b) {
  DLX_FORWARD(check_view(c->fn, c->names[0], out));
  DLX_FORWARD(check_view(c->fn, c->names[1], a));
  if (c->nin > 1) DLX_FORWARD(check_view(c->fn, c->names[2], b));
  view_copy(&c->out, out);
  view_copy(&c->in[0], a);
  if (c->nin > 1) view_copy(&c->in[1], b);
  return DLX_OK;
}

/* Packed sub-byte data other than 4- or 6-bit scalars (float4 x3 vectors...) has no walker. */
static dlx_status check_packed_supported(const opcall *c) {
  for (int i = 0; i <= c->nin; ++i) {
    const dlx_view *v = i == 0 ? &c->out : &c->in[i - 1];
    if (is_packed(v) && (v->dtype.lanes != 1 || v->dtype.bits > 8)) {
      text t;
      return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: %s has packed sub-byte dtype %s; only scalar float6/float4 are "
                           "supported packed", c->fn, c->names[i], dtype_text(&t, v->dtype));
    }
  }
  return DLX_OK;
}

static dlx_status same_dtype_op(const char *fn, opkind kind, const char *out_name, const char *in_name,
                                const dlx_view *dst, const dlx_view *src) {
  opcall c;
  init_call(&c, fn, kind, 1, out_name, in_name, NULL);
  DLX_FORWARD(load_operands(&c, dst, src, NULL));
  if (!dlx_dtype_equal(c.out.dtype, c.in[0].dtype)) return dtype_mismatch(&c, 0, 1);
  /* byte-sized elements copy whatever they are; packed ones must have a walker */
  DLX_FORWARD(check_packed_supported(&c));
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

dlx_status dlx_copy(const dlx_view *dst, const dlx_view *src) {
  DLX_CHECK_NULL(dst);
  DLX_CHECK_NULL(src);
  return same_dtype_op("dlx_copy", K_COPY, "dst", "src", dst, src);
}

dlx_status dlx_fill(const dlx_view *dst, const dlx_view *value) {
  DLX_CHECK_NULL(dst);
  DLX_CHECK_NULL(value);
  return same_dtype_op("dlx_fill", K_FILL, "dst", "value", dst, value);
}

dlx_status dlx_cast(const dlx_view *dst, const dlx_view *src) {
  DLX_CHECK_NULL(dst);
  DLX_CHECK_NULL(src);
  opcall c;
  init_call(&c, "dlx_cast", K_CAST, 1, "dst", "src", NULL);
  DLX_FORWARD(load_operands(&c, dst, src, NULL));
  if (!dlx_dtype_equal(c.out.dtype, c.in[0].dtype)) {
    for (int i = 0; i < 2; ++i) {
      const dlx_view *v = i == 0 ? &c.out : &c.in[0];
      if (dlx__kd_of(v->dtype) == DLX_KD_NONE) {
        text a, b;
        return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_cast: no conversion from %s to %s (%s has no numeric kernel)",
                             dtype_text(&a, c.in[0].dtype), dtype_text(&b, c.out.dtype), c.names[i]);
      }
    }
  }
  DLX_FORWARD(check_packed_supported(&c));
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

/* The dtype of an arithmetic operand: numeric, byte-sized family. */
static dlx_status check_arith_dtype(const opcall *c, const char *what, dlx_kd k, DLDataType dt) {
  text t;
  DLX_FAIL_IF(k == DLX_KD_NONE, DLX_ERR_UNSUPPORTED, "%s: %s is not supported for dtype %s", c->fn, what,
              dtype_text(&t, dt));
  DLX_FAIL_IF(kd_is_subbyte(k), DLX_ERR_UNSUPPORTED,
              "%s: %s is not supported for %s (float6/float4 take part only in cast, fill and copy)", c->fn, what,
              dtype_text(&t, dt));
  return DLX_OK;
}

dlx_status dlx_binary(dlx_binop op, const dlx_view *out, const dlx_view *a, const dlx_view *b) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_OP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_binary: op %d is not a dlx_binop (0..%d)", (int)op, DLX_OP_COUNT - 1);
  opcall c;
  init_call(&c, "dlx_binary", K_BINARY, 2, "out", "a", "b");
  c.op = op;
  DLX_FORWARD(load_operands(&c, out, a, b));
  if (!dlx_dtype_equal(c.in[0].dtype, c.in[1].dtype)) return dtype_mismatch(&c, 1, 2);
  const dlx_kd k = dlx__kd_of(c.in[0].dtype);
  DLX_FORWARD(check_arith_dtype(&c, op_names[op], k, c.in[0].dtype));
  text t;
  DLX_FAIL_IF(k == DLX_KD_BOOL && (op == DLX_OP_SUB || op == DLX_OP_DIV), DLX_ERR_UNSUPPORTED,
              "dlx_binary: %s is not supported for bool (add is or, mul is and)", op_names[op]);
  DLX_FAIL_IF((k == DLX_KD_C64 || k == DLX_KD_C128) && op_is_comparison(op) && op != DLX_OP_EQ && op != DLX_OP_NE,
              DLX_ERR_UNSUPPORTED, "dlx_binary: %s is not supported for %s (complex numbers are not ordered)",
              op_names[op], dtype_text(&t, c.in[0].dtype));
  if (op_is_comparison(op)) {
    if (!dlx_dtype_equal(c.out.dtype, DLX_DTYPE_BOOL)) {
      return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "dlx_binary: %s writes bool, but out is %s", op_names[op],
                           dtype_text(&t, c.out.dtype));
    }
  } else if (!dlx_dtype_equal(c.out.dtype, c.in[0].dtype)) {
    return dtype_mismatch(&c, 0, 1);
  }
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

dlx_status dlx_fma(const dlx_view *out, double scalar, const dlx_view *t1, const dlx_view *t2) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(t1);
  DLX_CHECK_NULL(t2);
  opcall c;
  init_call(&c, "dlx_fma", K_FMA, 2, "out", "t1", "t2");
  c.scalar = scalar;
  DLX_FORWARD(load_operands(&c, out, t1, t2));
  const dlx_kd k2 = dlx__kd_of(c.in[1].dtype), k1 = dlx__kd_of(c.in[0].dtype);
  DLX_FORWARD(check_arith_dtype(&c, "fma", k2, c.in[1].dtype));
  /* t1 may be the signed partner of an unsigned t2 (same width) */
  const bool partner = k2 >= DLX_KD_U8 && k2 <= DLX_KD_U64 && k1 == k2 - DLX_KD_U8 + DLX_KD_I8;
  if (k1 != k2 && !partner) {
    text a, b;
    return dlx_set_error(DLX_ERR_DTYPE_MISMATCH,
                         "dlx_fma: dtype mismatch: t1 is %s but t2 is %s (t1 must be t2's dtype, or its signed "
                         "partner for unsigned t2)",
                         dtype_text(&a, c.in[0].dtype), dtype_text(&b, c.in[1].dtype));
  }
  if (!dlx_dtype_equal(c.out.dtype, c.in[1].dtype)) return dtype_mismatch(&c, 0, 2);
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

/* ======================================================================================================
 * Scalars: 0-d views over a caller's buffer.
 * ==================================================================================================== */

static dlx_status scalar_init(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, const char *fn, dlx_kd *k) {
  DLX_FAIL_IF(v == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'v' is NULL", fn);
  DLX_FAIL_IF(buf == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'buf' is NULL", fn);
  text t;
  DLX_FAIL_IF(!dlx_dtype_is_valid(dt), DLX_ERR_INVALID_DTYPE, "%s: illegal dtype %s", fn, dtype_text(&t, dt));
  *k = dlx__kd_of(dt);
  DLX_FAIL_IF(*k == DLX_KD_NONE, DLX_ERR_UNSUPPORTED, "%s: dtype %s has no scalar conversion", fn, dtype_text(&t, dt));
  memset(buf->bytes, 0, sizeof buf->bytes);
  return DLX_OK;
}

static dlx_status scalar_finish(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, dlx_kd k) {
  DLX_FORWARD(dlx_view_init(v, buf->bytes, dt, (DLDevice){kDLCPU, 0}, 0, NULL, NULL));
  /* one float6/float4 code in the low bits of one byte is both the packed and the padded layout;
   * padded lets the kernels read it directly */
  if (kd_is_subbyte(k)) v->flags |= DLX_VIEW_SUBBYTE_PADDED;
  return DLX_OK;
}

static void store_narrow(dlx_scalar_buf *buf, dlx_kd k, uint32_t code) {
  if (k == DLX_KD_F16 || k == DLX_KD_BF16) {
    const uint16_t h = (uint16_t)code;
    memcpy(buf->bytes, &h, 2);
  } else {
    buf->bytes[0] = (unsigned char)code;
  }
}

#define STORE_SCALAR(buf, T, value)                                                                    \
  do {                                                                                                \
    const T v_ = (T)(value);                                                                          \
    memcpy((buf)->bytes, &v_, sizeof v_);                                                              \
  } while (0)

dlx_status dlx_scalar_view(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, double re, double im) {
  dlx_kd k = DLX_KD_NONE;
  DLX_FORWARD(scalar_init(v, buf, dt, "dlx_scalar_view", &k));
  text t;
  if (k >= DLX_KD_I8 && k <= DLX_KD_U64) {
    const bool sgn = k <= DLX_KD_I64;
    const int bits = dt.bits;
    /* the range as doubles: exact powers of two, so the comparisons are exact */
    const double half = (double)((uint64_t)1 << (bits - 1));
    const double lo = sgn ? -half : 0.0, top = sgn ? half : 2.0 * half;
    const bool ok = re >= lo && re < top && (sgn ? (double)(int64_t)re == re : (double)(uint64_t)re == re);
    DLX_FAIL_IF(!ok, DLX_ERR_OVERFLOW, "dlx_scalar_view: %.17g is not an integer in the range of %s", re,
                dtype_text(&t, dt));
    switch (k) {
      case DLX_KD_I8: STORE_SCALAR(buf, int8_t, re); break;
      case DLX_KD_I16: STORE_SCALAR(buf, int16_t, re); break;
      case DLX_KD_I32: STORE_SCALAR(buf, int32_t, re); break;
      case DLX_KD_I64: STORE_SCALAR(buf, int64_t, re); break;
      case DLX_KD_U8: STORE_SCALAR(buf, uint8_t, re); break;
      case DLX_KD_U16: STORE_SCALAR(buf, uint16_t, re); break;
      case DLX_KD_U32: STORE_SCALAR(buf, uint32_t, re); break;
      default: STORE_SCALAR(buf, uint64_t, re); break;
    }
    return scalar_finish(v, buf, dt, k);
  }
  switch (k) {
    case DLX_KD_BOOL: buf->bytes[0] = re != 0 || im != 0; break;
    case DLX_KD_F32: STORE_SCALAR(buf, float, re); break;
    case DLX_KD_F64: STORE_SCALAR(buf, double, re); break;
    case DLX_KD_C64: {
      const float p[2] = {(float)re, (float)im};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    case DLX_KD_C128: {
      const double p[2] = {re, im};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    default: store_narrow(buf, k, dlx_cvt_narrow_encode(narrow_code(k), re)); break;
  }
  return scalar_finish(v, buf, dt, k);
}

dlx_status dlx_scalar_view_int(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, int64_t value) {
  dlx_kd k = DLX_KD_NONE;
  DLX_FORWARD(scalar_init(v, buf, dt, "dlx_scalar_view_int", &k));
  text t;
  if (k >= DLX_KD_I8 && k <= DLX_KD_U64) {
    const bool sgn = k <= DLX_KD_I64;
    const int bits = dt.bits;
    bool ok;
    if (sgn) ok = bits == 64 || (value >= -((int64_t)1 << (bits - 1)) && value < ((int64_t)1 << (bits - 1)));
    else ok = value >= 0 && (bits == 64 || value < ((int64_t)1 << bits));
    DLX_FAIL_IF(!ok, DLX_ERR_OVERFLOW, "dlx_scalar_view_int: %" PRId64 " is outside the range of %s", value,
                dtype_text(&t, dt));
    switch (k) {
      case DLX_KD_I8: STORE_SCALAR(buf, int8_t, value); break;
      case DLX_KD_I16: STORE_SCALAR(buf, int16_t, value); break;
      case DLX_KD_I32: STORE_SCALAR(buf, int32_t, value); break;
      case DLX_KD_I64: STORE_SCALAR(buf, int64_t, value); break;
      case DLX_KD_U8: STORE_SCALAR(buf, uint8_t, value); break;
      case DLX_KD_U16: STORE_SCALAR(buf, uint16_t, value); break;
      case DLX_KD_U32: STORE_SCALAR(buf, uint32_t, value); break;
      default: STORE_SCALAR(buf, uint64_t, value); break;
    }
    return scalar_finish(v, buf, dt, k);
  }
  switch (k) {
    case DLX_KD_BOOL: buf->bytes[0] = value != 0; break;
    /* straight to the target precision: one rounding */
    case DLX_KD_F32: STORE_SCALAR(buf, float, value); break;
    case DLX_KD_F64: STORE_SCALAR(buf, double, value); break;
    case DLX_KD_C64: {
      const float p[2] = {(float)value, 0.0f};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    case DLX_KD_C128: {
      const double p[2] = {(double)value, 0.0};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    /* convert.h: integer -> narrow goes through double */
    default: store_narrow(buf, k, dlx_cvt_narrow_encode(narrow_code(k), (double)value)); break;
  }
  return scalar_finish(v, buf, dt, k);
}
