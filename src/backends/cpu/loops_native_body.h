/* The CPU's typed loops for the native dtypes: casts, same-dtype moves, binary ops and fma, each table
 * instantiated from one generic body (loops.h) and one rule per category (kernels/expr.h).
 *
 * Compiled once per instruction-set level (target.h): loops_native.c, loops_native_avx2.c and
 * loops_native_avx512.c each set DLX_CPU_LEVEL and include this file, which defines that level's table
 * (dlx__cpu_native_baseline, ...). The compiler vectorises the same C for each level; the bits cannot
 * differ between levels (integer rules are exact, float rules are single IEEE operations, and target.h
 * forbids contraction). */
#include "backends/cpu/target.h"

#include "backends/cpu/loops.h"
#include "kernels/expr.h"
#include "kernels/ew_names.h"

#if DLX_CPU_LEVEL == 0 || DLX_CPU_X86_LEVELS
DLX_CPU_TARGET_BEGIN

/* ---- casts between native dtypes ------------------------------------------------------------------ */

#define DEF_CVT_FN(S, D) \
  static inline S_##D cvt_##S##_##D(S_##S x) { return CVT_RULE(S, D, x); }
#define DEF_CVT_ROW(_, S) NATIVE_LIST2(DEF_CVT_PAIR, S)
#define DEF_CVT_PAIR(S, D) DEF_CVT_FN(S, D) DLX_DEF_UNARY(cast_##S##_##D, S_##D, S_##S, cvt_##S##_##D, (void)0)
NATIVE_LIST(DEF_CVT_ROW, _)

#define CAST_ENTRY(S, D) [KD_##S][KD_##D] = cast_##S##_##D,
#define CAST_ROW(_, S) NATIVE_LIST2(CAST_ENTRY, S)

/* ---- copy and fill: dtype-blind moves by item size ------------------------------------------------ */

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

/* ---- unary ops ------------------------------------------------------------------------------------ */

#define DEF_UN(OP, E, RES, N)                                                                          \
  static inline OUT_##RES(N) un_##OP##_##N(S_##N x) { return UN_RULE(OP, N, x); }                      \
  DLX_DEF_UNARY(unary_##OP##_##N, OUT_##RES(N), S_##N, un_##OP##_##N, (void)0)
UN_TABLE_NOTWIDE(DEF_UN)
/* the math functions: with their float32 first tries where they have one (expr_math.h) */
#define DEF_UN_MATH(OP, E, RES, N) DEF_UN_MATH_(MATH_HAS_TRY(OP, N), OP, E, RES, N)
#define DEF_UN_MATH_(H, ...) DEF_UN_MATH__(H, __VA_ARGS__)
#define DEF_UN_MATH__(H, OP, E, RES, N) DEF_UN_MATH_##H(OP, E, RES, N)
#define DEF_UN_MATH_0(OP, E, RES, N)                                                                   \
  DLX_CPU_WIDE static inline OUT_##RES(N) un_##OP##_##N(S_##N x) { return UN_RULE(OP, N, x); }         \
  DLX_DEF_UNARY_AT(DLX_CPU_WIDE, unary_##OP##_##N, OUT_##RES(N), S_##N, un_##OP##_##N, (void)0)
#define DEF_UN_MATH_1(OP, E, RES, N)                                                                   \
  DLX_CPU_WIDE static inline OUT_##RES(N) un_##OP##_##N(S_##N x) { return UN_RULE(OP, N, x); }         \
  DLX_CPU_WIDE static inline double try_##OP##_##N(S_##N x) { return MATH_TRY_RULE(OP, x); }            \
  DLX_DEF_UNARY_TRY(DLX_CPU_WIDE, unary_##OP##_##N, OUT_##RES(N), S_##N, un_##OP##_##N, try_##OP##_##N)
UN_TABLE_WIDE(DEF_UN_MATH)
#define UN_ENTRY(OP, E, RES, N) [DLX_UNOP_##E][KD_##N] = unary_##OP##_##N,

/* The math functions' float32 -> float64 loops, for the narrow floats (expr_math.h's WIDE_RULE) */
#define DEF_WIDE(OP, E)                                                                                \
  DLX_CPU_WIDE static inline double wide_##OP(float x) { return WIDE_RULE(OP, x); }                     \
  DLX_DEF_UNARY_AT(DLX_CPU_WIDE, wideloop_##OP, double, float, wide_##OP, (void)0)
WIDE_TABLE(DEF_WIDE)
#define WIDE_ENTRY(OP, E) [DLX_UNOP_##E] = wideloop_##OP,

/* ---- binary arithmetic and comparisons ------------------------------------------------------------ */

/* FUSE_N: DLX_CPU_NO_FUSE for the complex dtypes (target.h), on the rule and the loop alike so that the
 * rule still inlines */
#define FUSE_b8
#define FUSE_i8
#define FUSE_i16
#define FUSE_i32
#define FUSE_i64
#define FUSE_u8
#define FUSE_u16
#define FUSE_u32
#define FUSE_u64
#define FUSE_f32
#define FUSE_f64
#define FUSE_c64 DLX_CPU_NO_FUSE
#define FUSE_c128 DLX_CPU_NO_FUSE
#define DEF_BIN(OP, E, RES, N)                                                                         \
  FUSE_##N static inline OUT_##RES(N) op_##OP##_##N(S_##N a, S_##N b) { return BIN_RULE(OP, N, a, b); } \
  FUSE_##N DLX_DEF_BINARY(bin_##OP##_##N, OUT_##RES(N), S_##N, S_##N, op_##OP##_##N)
/* A cell with a loop of its own (own_<op>_<dtype>, below) has OWN_<op>_<dtype> defined as OWN_PROBE_;
 * its table entry is that loop, which runs the generic one (bin_<op>_<dtype>) where it does not apply. */
#define OWN_PROBE_ ~, 1
#define OWN_SECOND_(x, y, ...) y
#define OWN_IS_(...) OWN_SECOND_(__VA_ARGS__, 0, ~)
#define OWN_PICK_0(OP, N) bin_##OP##_##N
#define OWN_PICK_1(OP, N) own_##OP##_##N
#define OWN_PICK__(k, OP, N) OWN_PICK_##k(OP, N)
#define OWN_PICK_(k, OP, N) OWN_PICK__(k, OP, N)
#define OWN_OR_BIN(OP, N) OWN_PICK_(OWN_IS_(OWN_##OP##_##N), OP, N)
#define BIN_ENTRY(OP, E, RES, N) [DLX_OP_##E][KD_##N] = OWN_OR_BIN(OP, N),

BIN_TABLE(DEF_BIN)

/* ---- float32 remainder and floor_divide: fmod through double ---------------------------------------
 * The rules (expr.h) are fmod's result put through the rest, and libm's fmodf is a call per element,
 * which no compiler vectorises. For finite a, finite b and |a / b| < 2^28 (b == 0 excluded by the
 * quotient being infinite or NaN), fmod is exact in double: the double quotient q is off by at most
 * |a / b| 2^-53 < 2^-25, while a true quotient that is not an integer is at least 2^-24 from one when
 * |a| >= |b| (a - n b is a non-zero multiple of b's ulp, and |b| is under 2^24 of those ulps) and is more
 * than 2^-26 below 1 when |a| < |b|, so trunc(q) is the true integer part t; t * b is exact (28 + 24 bits); a - t * b is fmod's
 * value, a float, so the subtraction is exact as well; copysign gives a zero result a's sign, as fmod
 * does. A block with any element outside those bounds runs the exact rule (fmodf) instead, so every bit
 * is the rule's. The block is computed into a buffer before out is written: out may be an input. */
#define DIVMOD_BLOCK 64
#define OWN_remainder_f32 OWN_PROBE_
#define OWN_floor_divide_f32 OWN_PROBE_

/* out[i * ko] for i < m, from a[i * ka] and b[i * kb]: remainder, or floor_divide when floor_div */
static inline __attribute__((always_inline)) void divmod_f32_block(float *o, int64_t ko, const float *a, int64_t ka,
                                                                   const float *b, int64_t kb, int64_t m,
                                                                   bool floor_div) {
  float r[DIVMOD_BLOCK];
  int bad = 0;
  for (int64_t i = 0; i < m; ++i) {
    const float x = a[i * ka], y = b[i * kb];
    const double q = (double)x / (double)y;
    bad |= !(fabs(q) < 0x1p28 && fabsf(y) <= 0x1.fffffep127f);
    const float mod = copysignf((float)((double)x - trunc(q) * (double)y), x);
    r[i] = floor_div ? dlx__floor_divide_from_mod_f32(x, y, mod) : dlx__remainder_from_mod_f32(y, mod);
  }
  if (bad) {
    for (int64_t i = 0; i < m; ++i)
      r[i] = floor_div ? dlx__floor_divide_f32(a[i * ka], b[i * kb]) : dlx__remainder_f32(a[i * ka], b[i * kb]);
  }
  for (int64_t i = 0; i < m; ++i) o[i * ko] = r[i];
}

/* Element strides: contiguous operands and scalars get loops of their own (constant strides). */
static inline __attribute__((always_inline)) void divmod_f32_rows(float *o, int64_t ko, const float *a, int64_t ka,
                                                                  const float *b, int64_t kb, int64_t n, bool floor_div) {
  for (int64_t i0 = 0; i0 < n; i0 += DIVMOD_BLOCK) {
    const int64_t m = n - i0 < DIVMOD_BLOCK ? n - i0 : DIVMOD_BLOCK;
    float *ob = o + i0 * ko;
    const float *ab = a + i0 * ka, *bb = b + i0 * kb;
    if (ko == 1 && ka == 1 && kb == 1) divmod_f32_block(ob, 1, ab, 1, bb, 1, m, floor_div);
    else if (ko == 1 && ka == 1 && kb == 0) divmod_f32_block(ob, 1, ab, 1, bb, 0, m, floor_div);
    else if (ko == 1 && ka == 0 && kb == 1) divmod_f32_block(ob, 1, ab, 0, bb, 1, m, floor_div);
    else divmod_f32_block(ob, ko, ab, ka, bb, kb, m, floor_div);
  }
}

#define DEF_DIVMOD_OWN(OP, FLOOR)                                                                      \
  static void own_##OP##_f32(char *const *d, const int64_t *st, int64_t n, const void *aux) {          \
    const int64_t f = (int64_t)sizeof(float);                                                           \
    if (!DLX__ALIGNED(d[0], float) || !DLX__ALIGNED(d[1], float) || !DLX__ALIGNED(d[2], float) ||       \
        st[0] % f != 0 || st[1] % f != 0 || st[2] % f != 0) {                                           \
      bin_##OP##_f32(d, st, n, aux);                                                                    \
      return;                                                                                           \
    }                                                                                                   \
    divmod_f32_rows((float *)(void *)d[0], st[0] / f, (const float *)(const void *)d[1], st[1] / f,     \
                    (const float *)(const void *)d[2], st[2] / f, n, FLOOR);                            \
  }
DEF_DIVMOD_OWN(remainder, false)
DEF_DIVMOD_OWN(floor_divide, true)

/* int64 with uint64: the exact comparisons (expr.h's MIX_RULE) */
#define DEF_MIX(OP, E, A, B)                                                                           \
  static inline uint8_t mix_##OP##_##A##_##B(S_##A a, S_##B b) { return MIX_RULE(OP, A, B, a, b); }     \
  DLX_DEF_BINARY(binmix_##OP##_##A##_##B, uint8_t, S_##A, S_##B, mix_##OP##_##A##_##B)
#define MIX_ENTRY(OP, E, A, B) [DLX_OP_##E][MIXIX_##A##_##B] = binmix_##OP##_##A##_##B,

MIX_TABLE(DEF_MIX)

/* ---- fma ---------------------------------------------------------------------------------------- */

#define DEF_FMA(_, N)                                                                                  \
  FUSE_##N static inline S_##N fmaop_##N(double s, S_##N a, S_##N b) { return FMA_RULE(N, s, a, b); }  \
  FUSE_##N DLX_DEF_FMA(fma_##N, S_##N, S_##N, S_##N, fmaop_##N)
NATIVE_LIST(DEF_FMA, _)
#define FMA_ENTRY(_, N) [KD_##N] = fma_##N,

/* The signed partner: an int8 delta scaled onto a uint8 image. */
#define DEF_FMA_MIX(U, I)                                                                              \
  static inline S_##U fmamix_##U(double s, S_##I a, S_##U b) { return FMA_RULE(U, s, a, b); }           \
  DLX_DEF_FMA(fmamix_loop_##U, S_##U, S_##I, S_##U, fmamix_##U)
DEF_FMA_MIX(u8, i8)
DEF_FMA_MIX(u16, i16)
DEF_FMA_MIX(u32, i32)
DEF_FMA_MIX(u64, i64)

/* ---- three operands: where by item size (bits moved as they are), clip per dtype ------------------- */

#define WHERE_PICK(c, x, y) ((c) ? (x) : (y))
DLX_DEF_TERNARY(where_1, uint8_t, uint8_t, uint8_t, WHERE_PICK)
DLX_DEF_TERNARY(where_2, uint16_t, uint8_t, uint16_t, WHERE_PICK)
DLX_DEF_TERNARY(where_4, uint32_t, uint8_t, uint32_t, WHERE_PICK)
DLX_DEF_TERNARY(where_8, uint64_t, uint8_t, uint64_t, WHERE_PICK)
DLX_DEF_TERNARY(where_16, bytes16, uint8_t, bytes16, WHERE_PICK)
#define DEF_CLIP(_, N)                                                                                 \
  static inline S_##N clipop_##N(S_##N a, S_##N lo, S_##N hi) { return CLIP_RULE(N, a, lo, hi); }       \
  DLX_DEF_TERNARY(clip_##N, S_##N, S_##N, S_##N, clipop_##N)
CLIP_LIST(DEF_CLIP, _)
#define CLIP_ENTRY(_, N) [KD_##N] = clip_##N,

/* ---- int32 power: a vector of lanes at a time --------------------------------------------------------
 * The rule (expr.h's dlx__ipow) squares and multiplies while the exponent has bits left: a loop whose
 * length depends on the element, which no compiler vectorises. Here OWN_LANES lanes (8 in AVX2's 256
 * bits; 4 at the baseline, whose ABI has no 256-bit vectors) go through it together
 * until the largest exponent among them runs out, a lane multiplying only where its exponent's bit is
 * set. The rule multiplies modulo 2^64 and keeps the low 32 bits, which are the products modulo 2^32:
 * the same bits. A negative exponent takes the rule's value (1 for a == 1, +-1 for a == -1, else 0). */
#define OWN_power_i32 OWN_PROBE_
#define OWN_LANES (DLX_CPU_LEVEL >= 1 ? 8 : 4)
typedef uint32_t own_u32v __attribute__((vector_size(OWN_LANES * 4)));
typedef int32_t own_i32v __attribute__((vector_size(OWN_LANES * 4)));

/* base ** e lane by lane for e >= 0 (lanes with a negative e: anything; the caller replaces them) */
static inline __attribute__((always_inline)) own_u32v power_i32v(own_u32v base, own_u32v e) {
  own_u32v left = e & ~(own_u32v)((own_i32v)e < 0), r = left - left + 1;
  for (;;) {
    uint32_t any = 0;
    for (int k = 0; k < OWN_LANES; ++k) any |= left[k];
    if (any == 0) return r;
    const own_u32v bit = -(left & 1); /* all ones where this bit of the exponent is set */
    r = ((r * base) & bit) | (r & ~bit);
    base = base * base;
    left >>= 1;
  }
}

/* OWN_LANES elements from p, s bytes apart (0: one element broadcast), and back */
static inline __attribute__((always_inline)) own_u32v load_lanes(const char *p, int64_t s) {
  own_u32v v;
  if (s == (int64_t)sizeof(uint32_t)) {
    memcpy(&v, p, sizeof v);
    return v;
  }
  for (int k = 0; k < OWN_LANES; ++k) {
    uint32_t x;
    memcpy(&x, p + k * s, sizeof x);
    v[k] = x;
  }
  return v;
}
static inline __attribute__((always_inline)) void store_lanes(char *p, int64_t s, own_u32v v) {
  if (s == (int64_t)sizeof(uint32_t)) {
    memcpy(p, &v, sizeof v);
    return;
  }
  for (int k = 0; k < OWN_LANES; ++k) {
    const uint32_t x = v[k];
    memcpy(p + k * s, &x, sizeof x);
  }
}

/* Any strides (the tiles of a transposed walk included); the tail of fewer than OWN_LANES elements runs
 * the generic loop. */
static void own_power_i32(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  int64_t i = 0;
  for (; i + OWN_LANES <= n; i += OWN_LANES) {
    const own_u32v a = load_lanes(d[1] + i * st[1], st[1]), e = load_lanes(d[2] + i * st[2], st[2]);
    const own_u32v r = power_i32v(a, e);
    /* a negative exponent: 1 for a == 1, -1 or 1 (odd or even exponent) for a == -1, else 0 */
    const own_u32v neg = (own_u32v)((own_i32v)e < 0), odd = -(e & 1);
    const own_u32v one = (own_u32v)((own_i32v)a == 1), minus = (own_u32v)((own_i32v)a == -1);
    const own_u32v small = (one & 1) | (minus & (odd | (~odd & 1)));
    store_lanes(d[0] + i * st[0], st[0], (r & ~neg) | (small & neg));
  }
  if (i < n) {
    char *const rest[3] = {d[0] + i * st[0], d[1] + i * st[1], d[2] + i * st[2]};
    bin_power_i32(rest, st, n - i, aux);
  }
}

DLX_CPU_TARGET_END

/* ---- this level's table ------------------------------------------------------------------------- */

const dlx__cpu_native_loops DLX_CPU_SUFFIX(dlx__cpu_native) = {
    .cast = {NATIVE_LIST(CAST_ROW, _)},
    .unary = {UN_TABLE(UN_ENTRY)},
    .binary = {BIN_TABLE(BIN_ENTRY)},
    .binary_mixed = {MIX_TABLE(MIX_ENTRY)},
    .where = {where_1, where_2, where_4, where_8, where_16},
    .clip = {CLIP_LIST(CLIP_ENTRY, _)},
    .fma = {NATIVE_LIST(FMA_ENTRY, _)},
    .fma_mixed = {fmamix_loop_u8, fmamix_loop_u16, fmamix_loop_u32, fmamix_loop_u64},
    .copy_any = copy_any,
    .wide = {WIDE_TABLE(WIDE_ENTRY)},
};
#endif
