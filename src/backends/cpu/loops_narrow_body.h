/* The CPU's loops for the narrow floats (float16, bfloat16, the fp8/fp6/fp4 formats): decoders to
 * float32/float64, encoders from them, and negation on the codes. Every op on narrow operands computes in
 * float32 through these (exec.c's staged loop: decode a block, compute, encode it back).
 *
 * Compiled once per instruction-set level (target.h; loops_narrow.c, loops_narrow_avx2.c,
 * loops_narrow_avx512.c). The results are convert.h's, bit for bit, at every level: convert.h is the
 * specification (and what the reference path and the GPU kernels run), this file a faster restatement:
 *  - float32 <-> fp8/fp6/fp4 (and float16 at level 0): one branch-free rule per direction (vec_encode,
 *    vec_decode) on vectors of 32-bit lanes as wide as the level's registers, written once for every
 *    format and instantiated per format with its descriptor folded to constants. No table lookups (a
 *    gather per element) and no per-block fallback to the scalar codec: zeros and subnormal results stay
 *    on the common path (random normal data has 1.2% e4m3fn subnormals, in a fifth of 16-lane vectors);
 *    only vectors holding overflow, inf or NaN take the full rules;
 *  - float16 at levels 1 and 2: F16C's vcvtps2ph / vcvtph2ps with round-to-nearest-even from the
 *    immediate (not MXCSR). They agree with convert.h on every input, NaNs included: both keep the payload
 *    and quiet a signalling NaN (IEEE 754's rule for conversions, which convert.h follows since issue 20);
 *  - bfloat16: float32's top half (a NaN quieted); one integer add rounds to nearest even.
 *
 * Independence from the FPU's modes (convert.h's promise): subnormal results are rounded by one float
 * addition when MXCSR rounds to nearest (read once per loop call), and otherwise by exact operations
 * (scaling by a power of two, truncation, the fraction), which no mode changes; a float32 subnormal
 * input only reaches the FPU where its result is zero whatever DAZ does (e8m0fnu, the one format that
 * resolves float32 subnormals, compares bits instead); the F16C conversions take their rounding from the
 * immediate, and FTZ does not apply to them. tests/test_cpu_simd.c checks all of it, under FTZ/DAZ and
 * every rounding mode, at every level the machine runs. */
#include "backends/cpu/target.h"

#include "backends/cpu/loops.h"
#include "kernels/convert.h"
#include "kernels/ew_names.h"

#if (DLX_CPU_F16C && DLX_CPU_X86_LEVELS) || defined(__SSE2__)
#include <immintrin.h>
#endif

#if DLX_CPU_LEVEL == 0 || DLX_CPU_X86_LEVELS
DLX_CPU_TARGET_BEGIN

#define NARROW_LIST(X)                                                                                  \
  X(f16, 2, uint16_t, H) X(bf16, 4, uint16_t, B) X(e3m4, 7, uint8_t, T) X(e4m3, 8, uint8_t, T)              \
  X(e4m3b11fnuz, 9, uint8_t, T) X(e4m3fn, 10, uint8_t, T) X(e4m3fnuz, 11, uint8_t, T) X(e5m2, 12, uint8_t, T) \
  X(e5m2fnuz, 13, uint8_t, T) X(e8m0fnu, 14, uint8_t, T) X(e2m3fn, 15, uint8_t, T) X(e3m2fn, 16, uint8_t, T)  \
  X(e2m1fn, 17, uint8_t, T)

/* ---- the branch-free rules, on vectors -------------------------------------------------------------- */

/* One vector of float32 lanes, as wide as the level's registers (GCC/clang vector extensions: the same C
 * for every level and architecture; NEON takes level 0's 16 bytes too). */
/* GCC's AddressSanitizer with detect_stack_use_after_return moves locals to a "fake stack" whose frames
 * are not aligned for 64-byte vectors: an aligned AVX-512 spill there faults (a sanitizer build artefact;
 * the real stack is realigned). GCC's ASan builds therefore use level 1's 32-byte vectors at level 2;
 * clang's ASan build (the C tests in CI) and every normal build run the 64-byte ones. Same bits. */
#if DLX_CPU_AVX512 && !(defined(__SANITIZE_ADDRESS__) && !defined(__clang__))
#define DLX_VEC512 1
#else
#define DLX_VEC512 0
#endif
#if DLX_VEC512
#define VBYTES 64
#elif DLX_CPU_F16C
#define VBYTES 32
#else
#define VBYTES 16
#endif
#define VL (VBYTES / 4)
typedef uint32_t vu __attribute__((vector_size(VBYTES)));
typedef int32_t vi __attribute__((vector_size(VBYTES)));
typedef float vf __attribute__((vector_size(VBYTES)));
typedef uint8_t vu8 __attribute__((vector_size(VL)));
typedef uint16_t vu16 __attribute__((vector_size(VL * 2)));

/* m ? a : b per lane; m: lanes all ones or all zeros (a comparison's result). One blend where the level
 * has it (GCC spells the generic form as three logic operations). */
static inline vu sel(vi m, vu a, vu b) {
#if DLX_VEC512
  return (vu)_mm512_mask_blend_epi32(_mm512_movepi32_mask((__m512i)m), (__m512i)b, (__m512i)a);
#elif DLX_CPU_F16C
  return (vu)_mm256_blendv_epi8((__m256i)b, (__m256i)a, (__m256i)m);
#else
  return ((vu)m & a) | (~(vu)m & b);
#endif
}
static inline vu splat(uint32_t c) { return (vu){0} + c; }
static inline float f32_of(uint32_t u) { return dlx__cvt_f32_from_bits(u); }

/* Whether every lane of a comparison's result is set. */
static inline bool all_set(vi m) {
#if DLX_VEC512
  return _mm512_movepi32_mask((__m512i)m) == 0xffff;
#elif DLX_CPU_F16C
  return _mm256_movemask_ps((__m256)m) == 0xff;
#elif defined(__SSE2__)
  return _mm_movemask_ps((__m128)m) == 0xf;
#else
  for (int i = 0; i < VL; ++i)
    if (m[i] == 0) return false;
  return true;
#endif
}

/* Whether the FPU rounds to nearest (MXCSR's RC field): the default, which every program but a few keeps.
 * Elsewhere than x86 the answer is no, and the encoders take their mode-independent path. */
static inline bool rounds_to_nearest(void) {
#if defined(__SSE2__)
  return (_mm_getcsr() & 0x6000u) == 0;
#else
  return false;
#endif
}

/* float32 bits x -> codes of format f (f a constant after inlining), as dlx__cvt_encode_f32. rne: the FPU
 * rounds to nearest (rounds_to_nearest(), read once per loop call). */
/* always_inline: each loop copy must fold its format and rounding mode (a call per vector costs 3x) */
static inline __attribute__((always_inline)) vu vec_encode(const dlx__cvt_format *f, vu x, bool rne) {
  const uint32_t m = f->man_bits, b = (uint32_t)f->bias, s = 23u - m;
  const vu a = x & 0x7fffffffu; /* < 2^31: signed comparisons of a are unsigned ones, and cheaper */
  const vi neg = (vi)x < 0;
  /* the smallest magnitude with a normal code: 2^(1 - bias) */
  const uint32_t lo = (128u - b) << 23;
  const vi small = (vi)a < (int32_t)lo;
  /* Normal results: round the magnitude bits to nearest even at bit s; the shifted sum is
   * (exponent << m | mantissa) with the carry included, rebiasing is one subtraction. With no mantissa
   * bit (e8m0fnu) the bit ties round to is the implicit 1: ties go up. */
  const vu lsb = m == 0 ? splat(1u) : (a >> s) & 1u;
  const vu cn = ((a + ((1u << (s - 1u)) - 1u) + lsb) >> s) - ((127u - b) << m);
  /* Below it: the code is |x| in units of the smallest subnormal, q = 2^(1 - bias - m), rounded to nearest
   * even. */
  vu cs;
  if (!f->has_zero) {
    /* e8m0fnu: below 2^-126 the candidates are code 0 (2^-127, and the nearest for everything below it)
     * and code 1, split at 1.5 * 2^-127 (a tie: up); every input there is a float32 subnormal, which DAZ
     * would flush: compare the bits instead */
    cs = (vu)((vi)a >= (int32_t)((lo >> 1) | (lo >> 2))) & 1u;
  } else if (rne) {
    /* |x| + 2^23 q: the addition rounds |x| to a multiple of q (to nearest even: the FPU's mode, checked),
     * and the sum's low bits count the multiples. A float32 subnormal |x| is far below q / 2 for every
     * format here, so DAZ flushing it changes nothing. Lanes at or above lo compute garbage, unused. */
    const uint32_t magic = (151u - b - m) << 23;
    cs = (vu)((vf)a + f32_of(magic)) - magic;
  } else {
    /* any rounding mode: t = |x| / q scales exactly (t < 2^m), truncation and the fraction are exact.
     * Lanes at or above lo compute on 0 (no out-of-range conversion). */
    const vf t = (vf)(a & (vu)small) * f32_of((126u + b + m) << 23);
    const vi ti = __builtin_convertvector(t, vi);
    const vf fr = t - __builtin_convertvector(ti, vf);
    const vi up = (fr > 0.5f) | ((fr == 0.5f) & ((ti & 1) != 0));
    cs = (vu)(ti - up); /* up is -1 where the code rounds up */
  }
  const vu code = sel(small, cs, cn);
  /* Ordinary data: every lane finite and in range (inf and NaN are past max_finite), zeros and subnormal
   * results included, which are common (1.2% of standard normal values are e4m3fn subnormals: a fifth of
   * 16-lane vectors would leave a normals-only path). The sign is one OR, but for the fnuz formats'
   * negative zero. Overflow, inf, NaN and e8m0fnu's zeros and negatives take the rules below. code is
   * below 2^31 (a is), so the comparison may be signed. */
  vi ordinary = (vi)code < (int32_t)(f->max_finite + 1u);
  if (!f->has_zero) ordinary &= a != 0;
  if (f->sign_bit == 0) ordinary &= ~neg;
  if (__builtin_expect(all_set(ordinary), 1)) {
    const vu r = code | ((vu)neg & f->sign_bit);
    return f->zero_neg == f->sign_bit ? r : sel(neg & (code == 0), splat(f->zero_neg), r);
  }
  /* fnuz formats have no -0: a negative value that rounds to zero is +0 (zero_neg) */
  const vu fin = sel(neg, sel(code == 0, splat(f->zero_neg), code | f->sign_bit), code);
  /* overflow, and +-inf (whose code is past every format's max_finite) */
  vu r = sel((vi)code > (int32_t)f->max_finite, sel(neg, splat(f->ovf_neg), splat(f->ovf_pos)), fin);
  vu nan_code = sel(neg, splat(f->nan_neg), splat(f->nan_pos));
  if (f->nan_encode_payload) { /* float16: the top payload bits below a NaN exponent, the quiet bit set */
    const uint32_t ones = ((1u << f->exp_bits) - 1u) << m, quiet = 1u << (m - 1u);
    nan_code = ((vu)neg & f->sign_bit) | ones | quiet | ((a & 0x7fffffu) >> s);
  }
  r = sel((vi)a > 0x7f800000, nan_code, r);
  r = sel(a == 0, sel(neg, splat(f->zero_neg), splat(f->zero_pos)), r); /* e8m0fnu's "zeros" are NaN */
  if (f->sign_bit == 0) r = sel(neg, splat(f->nan_neg), r);             /* e8m0fnu has no negative value */
  return r;
}

/* codes c of format f -> float32 bits, as dlx__cvt_decode_f32. */
static inline vu vec_decode(const dlx__cvt_format *f, vu c) {
  const uint32_t m = f->man_bits, b = (uint32_t)f->bias;
  const uint32_t man_mask = (1u << m) - 1u, ones = (1u << f->exp_bits) - 1u;
  c &= (1u << f->bits) - 1u;
  const vi neg = (c & f->sign_bit) != 0;
  const vu mag = c & ~f->sign_bit;
  const vu ef = mag >> m, mf = mag & man_mask;
  /* normal: widen the fields in place and rebias */
  vu r = (mag << (23u - m)) + ((127u - b) << 23);
  if (f->has_zero) {
    /* subnormal (and zero): mf * 2^(1 - bias - m), an exact product of normal numbers */
    const vf sub = __builtin_convertvector((vi)mf, vf) * f32_of((128u - b - m) << 23);
    r = sel(ef == 0, (vu)sub, r);
  } else {
    r = sel(ef == 0, splat(0x00400000u), r); /* e8m0fnu's code 0: 2^-127, a float32 subnormal, in bits */
  }
  if (f->has_inf) r = sel((ef == ones) & (mf == 0), splat(0x7f800000u), r);
  vi is_nan = (vi){0};
  switch (f->nan_kind) {
    case DLX_CVT_NAN_IEEE: is_nan = (ef == ones) & (mf != 0); break;
    case DLX_CVT_NAN_ALL_ONES: is_nan = (ef == ones) & (mf == man_mask); break;
    case DLX_CVT_NAN_NEG_ZERO: is_nan = c == f->sign_bit; break;
    default: break;
  }
  const vu nan_bits = f->nan_decode == DLX_CVT_NANDEC_QUIET ? splat(0x7fc00000u) : (0x7fc00000u | (mf << (23u - m)));
  r = sel(is_nan, nan_bits, r);
  return r | ((vu)neg & 0x80000000u);
}

/* bfloat16: the top half of float32. Adding 0x7fff plus the kept lsb carries exactly when the dropped half
 * rounds up (ties to even) for every non-NaN input, zeros, subnormals and overflow to inf included. */
static inline vu vec_encode_bf16(vu x) {
  const vu r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  return sel((x & 0x7fffffffu) > 0x7f800000u, ((x >> 16) & 0x8000u) | 0x7fc0u, r);
}

/* ---- one loop body for every codec: VL elements at a time -------------------------------------------- */

/* Codes of storage type T in lanes, and back (T: uint8_t or uint16_t; codes fit their type). On x86 the
 * level's widening loads and narrowing stores (GCC scalarises __builtin_convertvector's narrowing into
 * lane extractions); elsewhere the generic conversion. */
static inline vu load_u8(const void *p) {
#if DLX_VEC512
  return (vu)_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p));
#elif DLX_CPU_F16C
  return (vu)_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p));
#elif defined(__SSE2__)
  int32_t w;
  memcpy(&w, p, 4);
  const __m128i z = _mm_setzero_si128();
  return (vu)_mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(w), z), z);
#else
  vu8 w;
  memcpy(&w, p, sizeof w);
  return __builtin_convertvector(w, vu);
#endif
}

static inline vu load_u16(const void *p) {
#if DLX_VEC512
  return (vu)_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p));
#elif DLX_CPU_F16C
  return (vu)_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));
#elif defined(__SSE2__)
  return (vu)_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)p), _mm_setzero_si128());
#else
  vu16 w;
  memcpy(&w, p, sizeof w);
  return __builtin_convertvector(w, vu);
#endif
}

static inline void store_u8(void *p, vu v) {
#if DLX_VEC512
  _mm_storeu_si128((__m128i *)p, _mm512_cvtepi32_epi8((__m512i)v));
#elif DLX_CPU_F16C
  const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128((__m256i)v), _mm256_extracti128_si256((__m256i)v, 1));
  _mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
#elif defined(__SSE2__)
  const __m128i w = _mm_packs_epi32((__m128i)v, (__m128i)v); /* codes <= 255: no saturation */
  const int32_t b = _mm_cvtsi128_si32(_mm_packus_epi16(w, w));
  memcpy(p, &b, 4);
#else
  const vu8 n = __builtin_convertvector(v, vu8);
  memcpy(p, &n, sizeof n);
#endif
}

static inline void store_u16(void *p, vu v) {
#if DLX_VEC512
  _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16((__m512i)v));
#elif DLX_CPU_F16C
  _mm_storeu_si128((__m128i *)p,
                   _mm_packus_epi32(_mm256_castsi256_si128((__m256i)v), _mm256_extracti128_si256((__m256i)v, 1)));
#elif defined(__SSE2__)
  /* SSE2 packs signed: sign-extend the low halves first, so that the saturating pack keeps them exactly */
  const __m128i x = _mm_srai_epi32(_mm_slli_epi32((__m128i)v, 16), 16);
  _mm_storel_epi64((__m128i *)p, _mm_packs_epi32(x, x));
#else
  const vu16 n = __builtin_convertvector(v, vu16);
  memcpy(p, &n, sizeof n);
#endif
}

#define WIDEN_uint8_t(p, v) ((v) = load_u8(p))
#define WIDEN_uint16_t(p, v) ((v) = load_u16(p))
#define NARROW_uint8_t(p, v) store_u8((p), (v))
#define NARROW_uint16_t(p, v) store_u16((p), (v))
#define WIDEN_float(p, v) memcpy(&(v), (p), sizeof(v))
#define NARROW_float(p, v) memcpy((p), &(v), sizeof(v))

/* Whole vectors of a contiguous row (i, n, pi, po, si, so of DEF_VEC_UNARY's body), RNE a constant. */
#define VEC_CONTIG_ROWS(TO, TI, VFN, RNE)                                                              \
  for (; i + VL <= n; i += VL) {                                                                       \
    vu x;                                                                                              \
    WIDEN_##TI(pi + i * si, x);                                                                        \
    const vu y = VFN(x, RNE);                                                                          \
    NARROW_##TO(po + i * so, y);                                                                       \
  }

/* out[i] = VFN(in[i], rne) over 32-bit lanes: TI and TO are the element types (float, uint8_t, uint16_t).
 * Contiguous rows (any alignment) go a vector at a time; a tail and strided rows are gathered into a
 * vector and scattered back, so every element goes through the same rule; a broadcast input (stride 0)
 * is converted once. */
#define DEF_VEC_UNARY(FNAME, TO, TI, VFN)                                                              \
  static void FNAME(char *const *d, const int64_t *st, int64_t n, const void *aux) {                   \
    (void)aux;                                                                                         \
    char *po = d[0];                                                                                   \
    const char *pi = d[1];                                                                             \
    const int64_t so = st[0], si = st[1];                                                              \
    const bool rne = rounds_to_nearest();                                                              \
    int64_t i = 0;                                                                                     \
    if (so == (int64_t)sizeof(TO) && si == (int64_t)sizeof(TI)) {                                     \
      /* the rounding mode as a constant in each copy of the loop: no test per vector */               \
      if (rne)                                                                                         \
        VEC_CONTIG_ROWS(TO, TI, VFN, true)                                                             \
      else                                                                                             \
        VEC_CONTIG_ROWS(TO, TI, VFN, false)                                                            \
    }                                                                                                  \
    if (si == 0 && n > 0) { /* broadcast: the one element, converted once */                          \
      TI x0[VL] = {0};                                                                                 \
      TO y0[VL];                                                                                       \
      memcpy(&x0[0], pi, sizeof(TI));                                                                  \
      vu x;                                                                                            \
      WIDEN_##TI(x0, x);                                                                               \
      const vu y = VFN(x, rne);                                                                        \
      NARROW_##TO(y0, y);                                                                              \
      for (; i < n; ++i) memcpy(po + i * so, &y0[0], sizeof(TO));                                     \
      return;                                                                                          \
    }                                                                                                  \
    while (i < n) {                                                                                    \
      const int64_t m = n - i < VL ? n - i : VL;                                                       \
      TI xin[VL] = {0};                                                                                \
      TO yout[VL];                                                                                     \
      for (int64_t j = 0; j < m; ++j) memcpy(&xin[j], pi + (i + j) * si, sizeof(TI));                 \
      vu x;                                                                                            \
      WIDEN_##TI(xin, x);                                                                              \
      const vu y = VFN(x, rne);                                                                        \
      NARROW_##TO(yout, y);                                                                            \
      for (int64_t j = 0; j < m; ++j) memcpy(po + (i + j) * so, &yout[j], sizeof(TO));                 \
      i += m;                                                                                          \
    }                                                                                                  \
  }

/* ---- per format: the descriptor is a constant, so it folds away --------------------------------------- */

/* convert.h's descriptors, from its one list (in NARROW_LIST's order); a static const array indexed by
 * constants folds into immediates (dlx__cvt_format_value's switch is not always inlined). */
#define FORMAT_ENTRY(...) {__VA_ARGS__},
static const dlx__cvt_format formats[DLX_KD_NARROW_COUNT] = {DLX_CVT_FORMATS(FORMAT_ENTRY)};
#define FORMAT_INDEX(CODE) ((CODE) == DLX_CODE_FLOAT ? 0 : (CODE) == DLX_CODE_BFLOAT ? 1 : (CODE) - DLX_CODE_FLOAT8_E3M4 + 2)

#define VDEC_H(f, x) vec_decode(f, (x))
#define VDEC_T(f, x) vec_decode(f, (x))
/* bfloat16: float32's top half, a NaN quieted */
#define VDEC_B(f, x) (((x) << 16) | ((vu)((vi)((x) & 0x7fffu) > 0x7f80) & 0x00400000u))
#define VENC_H(f, x) vec_encode(f, (x), rne)
#define VENC_T(f, x) vec_encode(f, (x), rne)
#define VENC_B(f, x) vec_encode_bf16(x)

/* float64 goes through convert.h's codec element by element: float64 sources round once from the double,
 * and the narrow -> float64 NaN rules differ per format (convert.h). */
#define DEF_ELEMENT(N, CODE, T, F)                                                                     \
  static inline vu vdec_##N(vu x, bool rne) {                                                          \
    const dlx__cvt_format *f = &formats[FORMAT_INDEX(CODE)];                                            \
    (void)f;                                                                                           \
    (void)rne; /* decoding rounds nothing */                                                           \
    return VDEC_##F(f, x);                                                                             \
  }                                                                                                    \
  static inline vu venc_##N(vu x, bool rne) {                                                          \
    const dlx__cvt_format *f = &formats[FORMAT_INDEX(CODE)];                                            \
    (void)f;                                                                                           \
    (void)rne;                                                                                         \
    return VENC_##F(f, x);                                                                             \
  }                                                                                                    \
  static inline double dec64e_##N(T x) { return dlx__cvt_decode_f64(&formats[FORMAT_INDEX(CODE)], x); } \
  static inline T enc64e_##N(double x) { return (T)dlx__cvt_encode_f64(&formats[FORMAT_INDEX(CODE)], x); } \
  static inline T neg_code_##N(T x) { return (T)dlx__cvt_negate(&formats[FORMAT_INDEX(CODE)], x); }
NARROW_LIST(DEF_ELEMENT)

#define DEF_NARROW(N, CODE, T, F)                                                                      \
  DEF_VEC_UNARY(dec32_##N, float, T, vdec_##N)                                                          \
  DEF_VEC_UNARY(enc32_##N, T, float, venc_##N)                                                          \
  DLX_DEF_UNARY(dec64_##N, double, T, dec64e_##N, (void)0)                                              \
  DLX_DEF_UNARY(enc64_##N, T, double, enc64e_##N, (void)0)                                              \
  DLX_DEF_UNARY(neg_##N, T, T, neg_code_##N, (void)0)
NARROW_LIST(DEF_NARROW)

/* ---- float16 through F16C (levels 1 and 2) -------------------------------------------------------- */

#if DLX_CPU_F16C
/* Contiguous rows of aligned elements: whole vectors through the hardware, the rest through the lane rule. */
static int64_t f16c_encode_run(uint16_t *o, const float *in, int64_t n) {
  int64_t i = 0;
#if DLX_VEC512
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(in + i);
    _mm256_storeu_si256((__m256i *)(void *)(o + i), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
#endif
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_loadu_ps(in + i);
    _mm_storeu_si128((__m128i *)(void *)(o + i), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
  }
  return i;
}

static int64_t f16c_decode_run(float *o, const uint16_t *in, int64_t n) {
  int64_t i = 0;
#if DLX_VEC512
  for (; i + 16 <= n; i += 16) {
    const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(in + i));
    _mm512_storeu_ps(o + i, _mm512_cvtph_ps(h));
  }
#endif
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(in + i));
    _mm256_storeu_ps(o + i, _mm256_cvtph_ps(h));
  }
  return i;
}

/* The table's float16 entries: contiguous aligned rows through F16C, the rest (tails, strides, broadcasts,
 * elements misaligned for their type, which DLPack allows) through the vector loops above. */
static void enc32_f16c(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  if (st[0] == 2 && st[1] == 4 && DLX__ALIGNED(d[0], uint16_t) && DLX__ALIGNED(d[1], float)) {
    const int64_t done = f16c_encode_run((uint16_t *)(void *)d[0], (const float *)(const void *)d[1], n);
    char *rest[2] = {d[0] + done * 2, d[1] + done * 4};
    enc32_f16(rest, st, n - done, aux);
    return;
  }
  enc32_f16(d, st, n, aux);
}

static void dec32_f16c(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  if (st[0] == 4 && st[1] == 2 && DLX__ALIGNED(d[0], float) && DLX__ALIGNED(d[1], uint16_t)) {
    const int64_t done = f16c_decode_run((float *)(void *)d[0], (const uint16_t *)(const void *)d[1], n);
    char *rest[2] = {d[0] + done * 4, d[1] + done * 2};
    dec32_f16(rest, st, n - done, aux);
    return;
  }
  dec32_f16(d, st, n, aux);
}
#define ENC32_f16 enc32_f16c
#define DEC32_f16 dec32_f16c
#else
#define ENC32_f16 enc32_f16
#define DEC32_f16 dec32_f16
#endif

DLX_CPU_TARGET_END

/* ---- this level's table ------------------------------------------------------------------------- */

#define ENC32_bf16 enc32_bf16
#define DEC32_bf16 dec32_bf16
#define ENTRY_ENC32_H(N) ENC32_##N
#define ENTRY_ENC32_B(N) ENC32_##N
#define ENTRY_ENC32_T(N) enc32_##N
#define ENTRY_DEC32_H(N) DEC32_##N
#define ENTRY_DEC32_B(N) DEC32_##N
#define ENTRY_DEC32_T(N) dec32_##N

/* Indexed by kd - DLX_KD_F16 (NARROW_LIST is in dlx__kd order). */
#define ROW_DEC32(N, CODE, T, F) ENTRY_DEC32_##F(N),
#define ROW_ENC32(N, CODE, T, F) ENTRY_ENC32_##F(N),
#define ROW_DEC64(N, CODE, T, F) dec64_##N,
#define ROW_ENC64(N, CODE, T, F) enc64_##N,
/* unary ops on the codes, a row per op of op_table.h that computes on them (nar CODE): negation flips the
 * sign bit; the other ops are staged through float32 (cpu.c) */
#define ROW_UN_CODE_neg(N, CODE, T, F) neg_##N,
#define ROW_UN_NAR_CODE(op, E) [DLX_UNOP_##E] = {NARROW_LIST(ROW_UN_CODE_##op)},
#define ROW_UN_NAR_F32(op, E)
#define ROW_UN_NAR_MOVE(op, E)
#define ROW_UN_NAR_NONE(op, E)
#define ROW_UN_NAR_WIDE(op, E)
#define ROW_UN_(A, op, E, np, k, cls, res, nar, py) ROW_UN_NAR_##nar(op, E)
const dlx__cpu_narrow_loops DLX_CPU_SUFFIX(dlx__cpu_narrow) = {
    .dec32 = {NARROW_LIST(ROW_DEC32)},
    .dec64 = {NARROW_LIST(ROW_DEC64)},
    .enc32 = {NARROW_LIST(ROW_ENC32)},
    .enc64 = {NARROW_LIST(ROW_ENC64)},
    .unary = {DLX__UNOP_TABLE(ROW_UN_, _)},
};
#endif
