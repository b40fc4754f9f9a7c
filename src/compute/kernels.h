/* Internal: the typed inner loops of the ops engine (src/core/ops.c).
 *
 * One generic body per op family (unary map, binary map, fma), written once as a macro below and
 * instantiated for every dtype from the type lists in ops.c. An inner loop walks one row of the joint
 * iteration: data[k] is operand k's first element (operand 0 is the output), strides[k] its step in
 * bytes, n the element count. Each body has three paths:
 *  - contiguous: every stride equals its itemsize. Typed pointers, no aliasing assumed between out and
 *    an input (exact aliasing, out == a, is what in-place ops do and must stay correct), so GCC and clang
 *    vectorise it with a runtime overlap check that still passes for out == a;
 *  - scalar broadcast: the contiguous path with one input at stride 0, loaded once into a register;
 *  - strided: anything else, through memcpy loads and stores, which compile to plain moves but stay
 *    defined for misaligned addresses (DLPack producers may hand over unaligned data, and the fast paths
 *    are only taken when every pointer has its type's alignment).
 * Nothing here allocates, fails, or touches the error state: the engine validated everything first. */
#ifndef DLX_CORE_KERNELS_H
#define DLX_CORE_KERNELS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dlx/ops.h"

/* The inner loop signature every kernel shares (NumPy's ufunc inner loop, in bytes). */
typedef void (*dlx_loop_fn)(char *const *data, const int64_t *strides, int64_t n, const void *aux);

/* Kernel dtype index: the native C types first (they have typed loops), then the narrow floats, which
 * are decoded to float32 in blocks and encoded back ("staged"). */
typedef enum dlx_kd {
  DLX_KD_BOOL = 0,
  DLX_KD_I8,
  DLX_KD_I16,
  DLX_KD_I32,
  DLX_KD_I64,
  DLX_KD_U8,
  DLX_KD_U16,
  DLX_KD_U32,
  DLX_KD_U64,
  DLX_KD_F32,
  DLX_KD_F64,
  DLX_KD_C64,
  DLX_KD_C128,
  DLX_KD_NATIVE_COUNT,
  DLX_KD_F16 = DLX_KD_NATIVE_COUNT,
  DLX_KD_BF16,
  DLX_KD_F8_E3M4,
  DLX_KD_F8_E4M3,
  DLX_KD_F8_E4M3B11FNUZ,
  DLX_KD_F8_E4M3FN,
  DLX_KD_F8_E4M3FNUZ,
  DLX_KD_F8_E5M2,
  DLX_KD_F8_E5M2FNUZ,
  DLX_KD_F8_E8M0FNU,
  DLX_KD_F6_E2M3FN,
  DLX_KD_F6_E3M2FN,
  DLX_KD_F4_E2M1FN,
  DLX_KD_COUNT,
  DLX_KD_NONE = -1
} dlx_kd;

#define DLX_KD_NARROW_COUNT (DLX_KD_COUNT - DLX_KD_NATIVE_COUNT)

/* Complex storage: two parts, as DLPack and C99 _Complex lay them out; a struct keeps the arithmetic
 * ours (NumPy's formulas) rather than libgcc's __mulsc3 / __divsc3, which differ at inf and NaN. */
typedef struct dlx_cf32 {
  float re, im;
} dlx_cf32;
typedef struct dlx_cf64 {
  double re, im;
} dlx_cf64;

/* Round half to even without libm and whatever the FPU rounding mode: |x| < 2^52 splits exactly into an
 * integer part and a fraction. Larger values and NaN are returned as they are (already integral). */
static inline double dlx__round_half_even(double x) {
  if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return x;
  const int64_t t = (int64_t)x;
  const double r = x - (double)t;
  int64_t q = t;
  if (r > 0.5 || (r == 0.5 && (t & 1))) ++q;
  else if (r < -0.5 || (r == -0.5 && (t & 1))) --q;
  return (double)q;
}

#define DLX__ALIGNED(p, T) (((uintptr_t)(p) & (_Alignof(T) - 1)) == 0)

/* out[i] = EXPR(in[i]). PRE declares what EXPR needs once per call (a decode table). */
#define DLX_DEF_UNARY(FNAME, TO, TI, EXPR, PRE)                                                      \
  static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {                  \
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

/* out[i] = EXPR(a[i], b[i]); TI is both inputs' storage type. */
#define DLX_DEF_BINARY(FNAME, TO, TI, EXPR)                                                           \
  static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {                  \
    (void)aux;                                                                                        \
    char *po = d[0];                                                                                  \
    const char *pa = d[1], *pb = d[2];                                                                \
    const int64_t so = st[0], sa = st[1], sb = st[2];                                                 \
    if (so == (int64_t)sizeof(TO) && DLX__ALIGNED(po, TO) && DLX__ALIGNED(pa, TI) && DLX__ALIGNED(pb, TI)) { \
      TO *o = (TO *)(void *)po;                                                                       \
      const TI *a = (const TI *)(const void *)pa, *b = (const TI *)(const void *)pb;                  \
      if (sa == (int64_t)sizeof(TI) && sb == (int64_t)sizeof(TI)) {                                   \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(a[i], b[i]);                                      \
        return;                                                                                       \
      }                                                                                               \
      if (sa == (int64_t)sizeof(TI) && sb == 0) {                                                     \
        const TI y = *b;                                                                              \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(a[i], y);                                         \
        return;                                                                                       \
      }                                                                                               \
      if (sa == 0 && sb == (int64_t)sizeof(TI)) {                                                     \
        const TI x = *a;                                                                              \
        for (int64_t i = 0; i < n; ++i) o[i] = EXPR(x, b[i]);                                         \
        return;                                                                                       \
      }                                                                                               \
    }                                                                                                 \
    for (int64_t i = 0; i < n; ++i) {                                                                 \
      TI x, y;                                                                                        \
      memcpy(&x, pa + i * sa, sizeof x);                                                              \
      memcpy(&y, pb + i * sb, sizeof y);                                                              \
      const TO r = EXPR(x, y);                                                                        \
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

/* ---- engine internals the tests reach ------------------------------------------------------------ */

/* Route every op of the calling thread through the reference loop (a plain N-d index walk calling
 * element functions written separately from the kernels: no dlx_iter, no pool, no fast path), so that
 * tests can compare the two. Returns the previous setting. */
bool dlx__ops_set_reference(bool on);

/* Override the element count above which an op is split over threads (0 restores the default), so
 * that tests reach the threaded paths with small tensors. Returns the previous value. */
int64_t dlx__ops_set_grain(int64_t grain);

/* Kernel index of a dtype, DLX_KD_NONE when no kernel exists (int128, float128, complex32, vectors). */
dlx_kd dlx__kd_of(DLDataType dt);

#endif
