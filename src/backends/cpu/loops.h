/* Internal to the CPU backend: the typed inner loops, one generic body per op family (unary map, binary
 * map, fma) written once as a macro below and instantiated for every dtype from the type lists of
 * kernels/expr.h, whose rules they apply element by element.
 *
 * An inner loop walks one row of the joint iteration: data[k] is operand k's first element (operand 0
 * is the output), strides[k] its step in bytes, n the element count. Each body has three paths:
 *  - contiguous: every stride equals its itemsize. Typed pointers, no aliasing assumed between out and
 *    an input (exact aliasing, out == a, is what in-place ops do and must stay correct), so GCC and clang
 *    vectorise it with a runtime overlap check that still passes for out == a;
 *  - scalar broadcast: the contiguous path with one input at stride 0, loaded once into a register;
 *  - strided: anything else, through memcpy loads and stores, which compile to plain moves but stay
 *    defined for misaligned addresses (DLPack producers may hand over unaligned data, and the fast paths
 *    are only taken when every pointer has its type's alignment).
 * Nothing here allocates, fails, or touches the error state: the compute layer validated everything. */
#ifndef DLX_BACKENDS_CPU_LOOPS_H
#define DLX_BACKENDS_CPU_LOOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/ew.h"
#include "kernels/reduce.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The inner loop signature every kernel shares (NumPy's ufunc inner loop, in bytes). */
typedef void (*dlx__loop_fn)(char *const *data, const int64_t *strides, int64_t n, const void *aux);

#define DLX__ALIGNED(p, T) (((uintptr_t)(p) & (_Alignof(T) - 1)) == 0)

/* out[i] = EXPR(in[i]). PRE declares what EXPR needs once per call (a decode table). */
#define DLX_DEF_UNARY(FNAME, TO, TI, EXPR, PRE) DLX_DEF_UNARY_AT(, FNAME, TO, TI, EXPR, PRE)
/* DLX_DEF_UNARY with ATTR on the loop (target.h's DLX_CPU_WIDE: the math functions) */
#define DLX_DEF_UNARY_AT(ATTR, FNAME, TO, TI, EXPR, PRE)                                              \
  ATTR static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {             \
    (void)aux;                                                                                        \
    PRE;                                                                                              \
    char *po = d[0];                                                                                  \
    const char *pi = d[1];                                                                            \
    const int64_t so = st[0], si = st[1];                                                             \
    if (so == (int64_t)sizeof(TO) && DLX__ALIGNED(po, TO) && DLX__ALIGNED(pi, TI)) {                  \
      TO *o = (TO *)(void *)po;                                                                       \
      if (si == (int64_t)sizeof(TI)) {                                                                \
        const TI *in = (const TI *)(const void *)pi;                                                  \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(in[i]);                                           \
        return;                                                                                       \
      }                                                                                               \
      if (si == 0) {                                                                                  \
        const TI x0 = *(const TI *)(const void *)pi;                                                  \
        const TO v = EXPR(x0);                                                                        \
        for (int64_t i = 0; i < n; ++i) o[i] = v;                                                     \
        return;                                                                                       \
      }                                                                                               \
    }                                                                                                 \
    for (int64_t i = 0; i < n; ++i) {                                                                 \
      TI x;                                                                                           \
      memcpy(&x, pi + i * si, sizeof x);                                                              \
      const TO y = EXPR(x);                                                                           \
      memcpy(po + i * so, &y, sizeof y);                                                              \
    }                                                                                                 \
  }

/* DLX_DEF_UNARY for a float32 math function with a first try (kernels/math_common.h): contiguous runs go
 * in blocks of 256. TRY's doubles are rounded to the block's results, counting those that
 * dlx__m_undecided32 rejects; those few are then EXPR's, one call each (a call, so that the fix-up loop
 * stays scalar rather than running EXPR on every lane); a block with more than 16 (a block of special
 * values, out-of-range or tiny inputs) runs EXPR's vector loop whole. Both paths give the correctly
 * rounded bits, so only the speed depends on the blocking. Other strides: EXPR alone. The output may
 * be the input itself (the executor's in-place case) but no other overlap, as for every loop here. */
#define DLX__TRY_BLOCK 256
#define DLX__TRY_MANY 16
#define DLX_DEF_UNARY_TRY(ATTR, FNAME, TO, TI, EXPR, TRY)                                              \
  DLX_DEF_UNARY_AT(ATTR, FNAME##_any, TO, TI, EXPR, (void)0)                                          \
  __attribute__((noinline)) ATTR static TO FNAME##_one(TI x) { return EXPR(x); }                      \
  ATTR static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {             \
    if (st[0] != (int64_t)sizeof(TO) || st[1] != (int64_t)sizeof(TI) || !DLX__ALIGNED(d[0], TO) ||    \
        !DLX__ALIGNED(d[1], TI)) {                                                                    \
      FNAME##_any(d, st, n, aux);                                                                     \
      return;                                                                                         \
    }                                                                                                 \
    TO *o = (TO *)(void *)d[0];                                                                       \
    const TI *in = (const TI *)(const void *)d[1];                                                    \
    /* in place (out == in): a block's results wait in keep until its fix-ups have read their inputs */ \
    TO keep[DLX__TRY_BLOCK];                                                                          \
    const int in_place = (const void *)o == (const void *)in;                                         \
    for (int64_t i0 = 0; i0 < n; i0 += DLX__TRY_BLOCK) {                                              \
      const int64_t m = n - i0 < DLX__TRY_BLOCK ? n - i0 : DLX__TRY_BLOCK;                            \
      TO *dst = in_place ? keep : o + i0;                                                             \
      const TI *src = in + i0;                                                                        \
      uint64_t undecided = 0;                                                                         \
      for (int64_t i = 0; i < m; ++i) {                                                               \
        const double y = TRY(src[i]);                                                                 \
        dst[i] = (TO)y;                                                                               \
        undecided += dlx__m_undecided32(y);                                                           \
      }                                                                                               \
      if (undecided > DLX__TRY_MANY) {                                                                \
        for (int64_t i = 0; i < m; ++i) dst[i] = EXPR(src[i]);                                        \
      } else if (undecided) {                                                                         \
        for (int64_t i = 0; i < m; ++i)                                                               \
          if (dlx__m_undecided32(TRY(src[i]))) dst[i] = FNAME##_one(src[i]);                          \
      }                                                                                               \
      if (in_place) memcpy(o + i0, keep, (size_t)m * sizeof(TO));                                     \
    }                                                                                                 \
  }

/* out[i] = EXPR(a[i], b[i]); TA and TB are the inputs' storage types (the same type but for the mixed
 * int64 / uint64 comparisons). */
#define DLX_DEF_BINARY(FNAME, TO, TA, TB, EXPR)                                                       \
  static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {                  \
    (void)aux;                                                                                        \
    char *po = d[0];                                                                                  \
    const char *pa = d[1], *pb = d[2];                                                                \
    const int64_t so = st[0], sa = st[1], sb = st[2];                                                 \
    if (so == (int64_t)sizeof(TO) && DLX__ALIGNED(po, TO) && DLX__ALIGNED(pa, TA) && DLX__ALIGNED(pb, TB)) { \
      TO *o = (TO *)(void *)po;                                                                       \
      const TA *a = (const TA *)(const void *)pa;                                                     \
      const TB *b = (const TB *)(const void *)pb;                                                     \
      if (sa == (int64_t)sizeof(TA) && sb == (int64_t)sizeof(TB)) {                                   \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(a[i], b[i]);                                      \
        return;                                                                                       \
      }                                                                                               \
      if (sa == (int64_t)sizeof(TA) && sb == 0) {                                                     \
        const TB y = *b;                                                                              \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(a[i], y);                                         \
        return;                                                                                       \
      }                                                                                               \
      if (sa == 0 && sb == (int64_t)sizeof(TB)) {                                                     \
        const TA x = *a;                                                                              \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(x, b[i]);                                         \
        return;                                                                                       \
      }                                                                                               \
    }                                                                                                 \
    for (int64_t i = 0; i < n; ++i) {                                                                 \
      TA x;                                                                                           \
      TB y;                                                                                           \
      memcpy(&x, pa + i * sa, sizeof x);                                                              \
      memcpy(&y, pb + i * sb, sizeof y);                                                              \
      const TO r = EXPR(x, y);                                                                        \
      memcpy(po + i * so, &r, sizeof r);                                                              \
    }                                                                                                 \
  }

/* out[i] = EXPR(a[i], b[i], c[i]) (where, clip): the three inputs' storage types TA (a), TB (b and c). */
#define DLX_DEF_TERNARY(FNAME, TO, TA, TB, EXPR)                                                      \
  static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {                  \
    (void)aux;                                                                                        \
    char *po = d[0];                                                                                  \
    const char *pa = d[1], *pb = d[2], *pc = d[3];                                                    \
    const int64_t so = st[0], sa = st[1], sb = st[2], sc = st[3];                                     \
    if (so == (int64_t)sizeof(TO) && DLX__ALIGNED(po, TO) && DLX__ALIGNED(pa, TA) && DLX__ALIGNED(pb, TB) && \
        DLX__ALIGNED(pc, TB)) {                                                                       \
      TO *o = (TO *)(void *)po;                                                                       \
      const TA *a = (const TA *)(const void *)pa;                                                     \
      const TB *b = (const TB *)(const void *)pb, *c = (const TB *)(const void *)pc;                  \
      if (sa == (int64_t)sizeof(TA) && sb == (int64_t)sizeof(TB) && sc == (int64_t)sizeof(TB)) {      \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(a[i], b[i], c[i]);                                \
        return;                                                                                       \
      }                                                                                               \
      if (sa == (int64_t)sizeof(TA) && sb == 0 && sc == 0) { /* clip(t, lo, hi), where(m, x, y) */    \
        const TB y = *b, z = *c;                                                                      \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(a[i], y, z);                                      \
        return;                                                                                       \
      }                                                                                               \
    }                                                                                                 \
    for (int64_t i = 0; i < n; ++i) {                                                                 \
      TA x;                                                                                           \
      TB y, z;                                                                                        \
      memcpy(&x, pa + i * sa, sizeof x);                                                              \
      memcpy(&y, pb + i * sb, sizeof y);                                                              \
      memcpy(&z, pc + i * sc, sizeof z);                                                              \
      const TO r = EXPR(x, y, z);                                                                     \
      memcpy(po + i * so, &r, sizeof r);                                                              \
    }                                                                                                 \
  }

/* out[i] = EXPR(s, a[i], b[i]) with the double scalar s from aux (fma: s * t1 + t2). */
#define DLX_DEF_FMA(FNAME, TO, TA, TB, EXPR)                                                          \
  static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {                  \
    const double s = *(const double *)aux;                                                            \
    char *po = d[0];                                                                                  \
    const char *pa = d[1], *pb = d[2];                                                                \
    const int64_t so = st[0], sa = st[1], sb = st[2];                                                 \
    if (so == (int64_t)sizeof(TO) && sa == (int64_t)sizeof(TA) && sb == (int64_t)sizeof(TB) &&        \
        DLX__ALIGNED(po, TO) && DLX__ALIGNED(pa, TA) && DLX__ALIGNED(pb, TB)) {                       \
      TO *o = (TO *)(void *)po;                                                                       \
      const TA *a = (const TA *)(const void *)pa;                                                     \
      const TB *b = (const TB *)(const void *)pb;                                                     \
      for (int64_t i = 0; i < n; ++i) o[i] = EXPR(s, a[i], b[i]);                                     \
      return;                                                                                         \
    }                                                                                                 \
    for (int64_t i = 0; i < n; ++i) {                                                                 \
      TA x;                                                                                           \
      TB y;                                                                                           \
      memcpy(&x, pa + i * sa, sizeof x);                                                              \
      memcpy(&y, pb + i * sb, sizeof y);                                                              \
      const TO r = EXPR(s, x, y);                                                                     \
      memcpy(po + i * so, &r, sizeof r);                                                              \
    }                                                                                                 \
  }

/* ---- the loop tables: one set per instruction-set level, picked at run time ------------------------ */

/* Whether this compiler and architecture build the x86 levels (target.h) at all. Elsewhere only the
 * baseline exists: the level 1 and 2 files compile to nothing and dispatch.c never names them. */
#if defined(__x86_64__) && (defined(__clang__) ? __clang_major__ >= 8 : (defined(__GNUC__) && __GNUC__ >= 8))
#define DLX_CPU_X86_LEVELS 1
#else
#define DLX_CPU_X86_LEVELS 0
#endif

/* The native dtypes' loops (loops_native_body.h). */
typedef struct dlx__cpu_native_loops {
  dlx__loop_fn cast[DLX_KD_NATIVE_COUNT][DLX_KD_NATIVE_COUNT];
  dlx__loop_fn unary[DLX_UNOP_COUNT][DLX_KD_NATIVE_COUNT]; /* NULL: no such (op, dtype) */
  dlx__loop_fn binary[DLX_OP_COUNT][DLX_KD_NATIVE_COUNT];  /* NULL: no such (op, dtype) */
  dlx__loop_fn binary_mixed[DLX_OP_COUNT][DLX_MIX_COUNT]; /* int64 / uint64 comparisons (ew.h); NULL: none */
  dlx__loop_fn fma[DLX_KD_NATIVE_COUNT];
  dlx__loop_fn fma_mixed[4]; /* fma with t1 the signed partner of unsigned t2: u8, u16, u32, u64 */
  dlx__loop_fn where[5];     /* where by item size: 1, 2, 4, 8, 16 bytes */
  dlx__loop_fn clip[DLX_KD_NATIVE_COUNT]; /* NULL: no such dtype */
  dlx__loop_fn copy_any;     /* same-dtype moves of any item size (aux: a size_t holding it) */
  /* the math functions' narrow floats (op_table.h's nar WIDE): float32 in, the function's value as a double
   * out, which the encoder from double rounds once to the narrow format; NULL: not a WIDE row */
  dlx__loop_fn wide[DLX_UNOP_COUNT];
} dlx__cpu_native_loops;

/* The narrow floats' loops (loops_narrow_body.h), indexed by dlx__kd_narrow_index: decoders to float32 /
 * float64, encoders from them, and the unary ops on the codes (negation: dlx__cvt_negate). */
typedef struct dlx__cpu_narrow_loops {
  dlx__loop_fn dec32[DLX_KD_NARROW_COUNT];
  dlx__loop_fn dec64[DLX_KD_NARROW_COUNT];
  dlx__loop_fn enc32[DLX_KD_NARROW_COUNT];
  dlx__loop_fn enc64[DLX_KD_NARROW_COUNT];
  dlx__loop_fn unary[DLX_UNOP_COUNT][DLX_KD_NARROW_COUNT]; /* the ops on codes (op_table.h's nar CODE); NULL: staged */
} dlx__cpu_narrow_loops;

/* The reductions' loops (loops_reduce_body.h; the driver is reduce.c). A unit's elements arrive in pieces:
 * next(ctx, &x) points x at the next piece (contiguous, of the accumulation type) and returns its length,
 * a multiple of 16 but for the last piece, 0 at the end. */
typedef int64_t (*dlx__red_next_fn)(void *ctx, const void **x);
/* kernels/reduce.h's tree over one unit's elements (at most a block), its partial result into *out. */
typedef void (*dlx__red_tree_fn)(dlx__red_next_fn next, void *ctx, dlx__red_slot *out);
/* The same for w units side by side in memory (unit u's element k at x + u * itemsize + k * stride, k <
 * len), out[0..w): w <= outer_w of the table; state: outer_state bytes of the caller's, 64-byte aligned. */
typedef void (*dlx__red_outer_fn)(const char *x, int64_t len, int64_t stride, int64_t w, dlx__red_slot *out,
                                  void *state);

typedef struct dlx__cpu_reduce_loops {
  dlx__red_tree_fn tree[2][4];   /* [product][f32, f64, c64, c128]: sums, and real products (NULL: complex) */
  dlx__red_tree_fn tree_narrow[2][2]; /* [product][bfloat16, float16]: pieces of codes, into float32 */
  dlx__red_outer_fn outer[2][4]; /* [product][f32 from f32, f32 from bfloat16, f32 from float16, f64 from f64] */
  int outer_w[4];                /* the most units each takes */
  size_t outer_state;            /* bytes of working memory any of them needs */
  /* x[0] + ... + x[n-1] (or the product), wrapping: 64-bit integer sums of either sign */
  uint64_t (*int_sum)(const uint64_t *x, int64_t n, bool product);
} dlx__cpu_reduce_loops;

/* One level's kernels (target.h: baseline, avx2, avx512). */
typedef struct dlx__cpu_kernel_set {
  const char *name;
  const dlx__cpu_native_loops *native;
  const dlx__cpu_narrow_loops *narrow;
  const dlx__cpu_reduce_loops *reduce;
} dlx__cpu_kernel_set;

extern const dlx__cpu_native_loops dlx__cpu_native_baseline, dlx__cpu_native_avx2, dlx__cpu_native_avx512;
extern const dlx__cpu_narrow_loops dlx__cpu_narrow_baseline, dlx__cpu_narrow_avx2, dlx__cpu_narrow_avx512;
extern const dlx__cpu_reduce_loops dlx__cpu_reduce_baseline, dlx__cpu_reduce_avx2, dlx__cpu_reduce_avx512;

/* ---- dispatch (dispatch.c) ---------------------------------------------------------------------- */

/* The kernels every op runs: chosen once, on first use (thread-safe), as the best level this CPU and OS
 * run, or the one DLX_CPU_FEATURES=baseline|avx2|avx512 names when the machine runs it (otherwise the
 * best it does run: the library never prints, dlx__cpu_variant() says which runs). */
const dlx__cpu_kernel_set *dlx__cpu_kernels(void);
/* The name of the level that runs ("baseline", "avx2", "avx512"). */
const char *dlx__cpu_variant(void);
/* Whether this machine runs the named level (false for unknown names). */
bool dlx__cpu_variant_supported(const char *name);
/* Tests and benchmarks: run the named level from now on (NULL: the choice DLX_CPU_FEATURES and the machine
 * make). A level the machine cannot run, or an unknown name, is refused (DLX_ERR_UNSUPPORTED,
 * DLX_ERR_INVALID_ARGUMENT) with a message naming what it lacks, and the running level stays. Ops already
 * running keep the loops they picked. */
dlx_status dlx__cpu_force_variant(const char *name);
/* Tests: behave as a machine that runs at most the named level (NULL: the real machine), so that the
 * refusals and fall-backs above are tested on machines that have every level. */
dlx_status dlx__cpu_cap_machine(const char *name);

/* A staged loop: decode inputs to a float buffer block by block, run a core loop, encode the result. */
typedef struct dlx__staged_plan {
  int nin;
  dlx__loop_fn dec[3];  /* input k -> buffer; NULL: the core reads input k directly */
  int64_t dec_size[3]; /* bytes of one decoded element */
  dlx__loop_fn core;
  const void *core_aux;
  dlx__loop_fn enc;     /* buffer -> out; NULL: the core writes out directly */
  int64_t enc_size;
} dlx__staged_plan;

/* aux: a dlx__staged_plan (exec.c). */
void dlx__cpu_staged_loop(char *const *d, const int64_t *st, int64_t n, const void *aux);

/* The loop an op runs, with the aux it needs (pointing into this struct, which the caller keeps), from
 * the running level's tables (cpu.c). */
typedef struct dlx__cpu_loop {
  dlx__loop_fn fn;
  const void *aux;
  size_t itemsize;       /* aux of the move loops */
  double scalar;         /* aux of the fma loops */
  dlx__staged_plan plan;  /* aux of staged loops */
} dlx__cpu_loop;

void dlx__cpu_select_loop(const dlx__ew_op *op, dlx__cpu_loop *out);

/* A 4 x 4 block of 4-byte elements transposed: its row i (4 elements side by side) at src + i * sst, its
 * column i written as 4 elements side by side at dst + i * dst_row. SSE2 (baseline x86-64) where the
 * compiler has it, else element by element; the same bytes either way. The executor's staged tiles and
 * the reductions' staged groups (exec.c, reduce.c) move transposed data through it. */
static inline void dlx__cpu_transpose4x4(const char *src, int64_t sst, char *dst, int64_t dst_row) {
#if defined(__SSE2__)
  const __m128 x0 = _mm_loadu_ps((const float *)(const void *)src);
  const __m128 x1 = _mm_loadu_ps((const float *)(const void *)(src + sst));
  const __m128 x2 = _mm_loadu_ps((const float *)(const void *)(src + 2 * sst));
  const __m128 x3 = _mm_loadu_ps((const float *)(const void *)(src + 3 * sst));
  const __m128 a = _mm_unpacklo_ps(x0, x1), b = _mm_unpackhi_ps(x0, x1);
  const __m128 c = _mm_unpacklo_ps(x2, x3), d = _mm_unpackhi_ps(x2, x3);
  _mm_storeu_ps((float *)(void *)dst, _mm_movelh_ps(a, c));
  _mm_storeu_ps((float *)(void *)(dst + dst_row), _mm_movehl_ps(c, a));
  _mm_storeu_ps((float *)(void *)(dst + 2 * dst_row), _mm_movelh_ps(b, d));
  _mm_storeu_ps((float *)(void *)(dst + 3 * dst_row), _mm_movehl_ps(d, b));
#else
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j) memcpy(dst + i * dst_row + 4 * j, src + j * sst + 4 * i, 4);
#endif
}

/* Run fn over a plan, split over the pool's threads, in 2-D tiles when an operand walks the other way
 * (exec.c). itemsize[k]: operand k's element size. */
void dlx__cpu_run_plan(const dlx_iter *plan, const int64_t *itemsize, dlx__loop_fn fn, const void *aux);

/* How many chunks work of `elements` elements in `units` indivisible units is split into for the pool's
 * threads (1 below the grain, a few per thread above it; exec.c). */
int64_t dlx__cpu_chunks(int64_t elements, int64_t units);

/* Override the element count above which an op is split over threads (0 restores the default), so
 * that tests reach the threaded paths with small tensors. Returns the previous value. */
int64_t dlx__ops_set_grain(int64_t grain);

#endif
