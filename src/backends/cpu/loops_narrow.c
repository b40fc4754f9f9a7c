/* The CPU's loops for the narrow floats (float16, bfloat16, the fp8/fp6/fp4 formats): decoders to
 * float32/float64, encoders from them, and the staged loop that computes every op on narrow operands in
 * float32 ("compute in float32 and round back", in one place). The element conversions are convert.h's,
 * the same functions the reference path and any GPU backend use. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
/* as in loops_native.c: GCC's -O3 vectoriser cost model for the whole file, so that the inline
 * conversions keep inlining into the loops */
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#include "backends/cpu/loops.h"
#include "compute/convert.h"

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

/* Negation on the codes themselves (dlx_cvt_negate: NaN payloads kept), one loop per format; the format
 * is a constant here, so its descriptor folds away. */
#define DEF_NARROW_NEG(N, CODE, T, F)                                                                  \
  static inline T negcode_##N(T x) {                                                                    \
    const dlx_cvt_format f = dlx_cvt_format_value(CODE);                                                \
    return (T)dlx_cvt_negate(&f, x);                                                                    \
  }                                                                                                     \
  DLX_DEF_UNARY(neg_##N, T, T, negcode_##N, (void)0)
NARROW_LIST(DEF_NARROW_NEG)

#define NARROW_ENTRY_NEG(N, CODE, T, F) neg_##N,
const dlx_loop_fn dlx__cpu_narrow_neg[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_NEG)};

#define NARROW_ENTRY_DEC32(N, CODE, T, F) dec32_##N,
#define NARROW_ENTRY_DEC64(N, CODE, T, F) dec64_##N,
#define NARROW_ENTRY_ENC32(N, CODE, T, F) fenc32_##N,
#define NARROW_ENTRY_ENC64(N, CODE, T, F) enc64_##N,
/* Indexed by kd - DLX_KD_F16 (NARROW_LIST is in dlx_kd order). */
const dlx_loop_fn dlx__cpu_narrow_dec32[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_DEC32)};
const dlx_loop_fn dlx__cpu_narrow_dec64[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_DEC64)};
const dlx_loop_fn dlx__cpu_narrow_enc32[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_ENC32)};
const dlx_loop_fn dlx__cpu_narrow_enc64[DLX_KD_NARROW_COUNT] = {NARROW_LIST(NARROW_ENTRY_ENC64)};

/* ======================================================================================================
 * Staged loops: decode inputs to a float buffer block by block, run a core loop, encode the result.
 * ==================================================================================================== */

#define STAGE_BLOCK 256


void dlx__cpu_staged_loop(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  const dlx_staged_plan *p = aux;
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
