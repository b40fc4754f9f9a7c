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
UN_TABLE(DEF_UN)
#define UN_ENTRY(OP, E, RES, N) [DLX_UNOP_##E][KD_##N] = unary_##OP##_##N,

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
#define BIN_ENTRY(OP, E, RES, N) [DLX_OP_##E][KD_##N] = bin_##OP##_##N,

BIN_TABLE(DEF_BIN)

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
};
#endif
