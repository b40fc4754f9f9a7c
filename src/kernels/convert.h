/* src/kernels/convert.h - internal: scalar conversions between float32/float64 and the narrow float formats,
 * plus the integer/bool rules the cast op uses. Not a public header.
 *
 * Formats (DLPack code: name, layout, bias): 2: float16 (IEEE binary16; only width 16 of kDLFloat here),
 * 4: bfloat16, 7: float8_e3m4 (3, IEEE-like), 8: float8_e4m3 (7, IEEE-like), 9: float8_e4m3b11fnuz (11),
 * 10: float8_e4m3fn (7), 11: float8_e4m3fnuz (8), 12: float8_e5m2 (15, IEEE-like), 13: float8_e5m2fnuz (16),
 * 14: float8_e8m0fnu (127, unsigned powers of two), 15: float6_e2m3fn (1), 16: float6_e3m2fn (3),
 * 17: float4_e2m1fn (1). One generic codec reads a descriptor (dlx__cvt_format) per format.
 *
 * Rules, bit-exact with ml_dtypes (float16: with NumPy) but for the differences docs/numerics.md lists
 * (signalling NaNs come out quiet; e8m0fnu rounds correctly near 2^-127), all checked by
 * tests/test_convert.c and python/tests/test_convert_mldtypes.py:
 *  - encode rounds to nearest, ties to even, with subnormals (no flush to zero); never traps, never
 *    depends on the FPU's rounding mode or FTZ/DAZ flags (all integer arithmetic);
 *  - overflow (and +-inf input): +-inf where the format has inf (float16, bfloat16, e3m4, e4m3, e5m2);
 *    NaN for e4m3fn (S.1111.111, sign kept), for the fnuz formats (0x80) and e8m0fnu (0xFF);
 *    float6/float4 have no inf and no NaN: they saturate to +-max finite;
 *  - no conversion delivers a signalling NaN (IEEE 754 section 7.2: a conversion of a signalling NaN
 *    delivers a quiet one; NumPy's float16 and ml_dtypes' bfloat16 casts keep them signalling);
 *  - NaN input: the format's quiet NaN with the input's sign (IEEE-like: exponent all ones, top mantissa
 *    bit; bfloat16 0x7FC0); fnuz 0x80; e8m0fnu 0xFF; float16 keeps the top payload bits as NumPy does,
 *    with the quiet bit set; float6/float4 give a zero whose sign is the INVERSE of the NaN's (ml_dtypes:
 *    -quiet_NaN() of a type whose quiet_NaN() is the -0 pattern): +NaN -> -0, -NaN -> +0;
 *  - fnuz and e8m0fnu have no negative zero: -0.0 and negative underflow encode as +0 (fnuz); e8m0fnu
 *    has no zero at all: +-0.0 -> NaN, any negative input -> NaN, and a positive value rounds to the
 *    nearest power of two in [2^-127, 2^127] (everything below 2^-127 gives 2^-127, code 0x00; ml_dtypes
 *    rounds (2^-127, 1.5 * 2^-127) up to 2^-126, as if code 0x00 were zero);
 *  - e8m0fnu ties (1.5 * 2^k) round up: with no mantissa bits the kept bit is the implicit 1;
 *  - decode: NaN codes give a quiet NaN with the code's sign (the fnuz NaN 0x80 decodes negative,
 *    e8m0fnu's positive); float16 and bfloat16 NaNs keep their payload into float32 and float64, with
 *    the quiet bit set. A narrow -> narrow conversion decodes to float32 and encodes from it: a bfloat16
 *    NaN keeps its payload into float16 (ml_dtypes gives the canonical 0x7E00).
 *
 * float64 sources: dlx__cvt_encode_f64 / dlx__cvt_narrow_encode round once, from the double (correctly
 * rounded, as NumPy's float64 -> float16). ml_dtypes 0.6 instead casts float64 arrays to bfloat16/fp8/fp6/fp4
 * through float32 (two roundings: 1 + 2^-8 + 2^-40 gives bfloat16 1.0, not 1.0078125); a caller that wants
 * that exact behaviour encodes (float)x with the f32 functions.
 *
 * Integers and bool (NumPy's rules where C defines them, ours where C leaves them undefined):
 *  - float -> integer truncates toward zero; NaN -> 0; values past the type's range (+-inf included)
 *    saturate to its min/max; for unsigned types everything <= -1 gives 0. NumPy's results for NaN,
 *    inf and out-of-range values are platform-specific (x86: INT_MIN, wrap-around), so tests comparing
 *    with NumPy must avoid them;
 *  - float -> bool is x != 0 (NaN -> true, -0.0 -> false); bool -> number is 0 or 1;
 *  - integer -> float: C's conversion (round to nearest even on every supported platform). integer ->
 *    narrow format: ml_dtypes converts to float32 first, then encodes (two roundings once |v| > 2^24:
 *    int64 2^30 + 2^22 + 1 gives bfloat16 0x4E80, not 0x4E81); dlx__cvt_encode_f32(fmt, (float)v)
 *    reproduces that bit for bit, dlx__cvt_encode_f64(fmt, (double)v) rounds once for |v| <= 2^53.
 *
 * Packed sub-byte storage (float6, float4): element i occupies bits [i*bits, (i+1)*bits) of the buffer,
 * little bit-endian (bit 0 = least significant bit of byte 0). Setting an element rewrites the one or two
 * bytes it touches: threads writing the same buffer must split it on byte boundaries (float4: even i,
 * float6: multiples of 4 elements).
 *
 * Thread safety: everything here is pure except the one-time build of the decode tables, which is
 * thread-safe (C11 atomics). No allocation, no abort. */
#ifndef DLX_KERNELS_CONVERT_H
#define DLX_KERNELS_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dlx/dtype.h"

/* Everything inline here is usable from CUDA device code too (the GPU backend's kernels call the same
 * functions, so they cannot drift from the CPU's bits). */
#if defined(__CUDACC__)
#define DLX_HD __host__ __device__
#else
#define DLX_HD
#endif
#define DLX_CVT_INLINE static inline DLX_HD

/* ---- format descriptors ---------------------------------------------------------------------- */

/* How a code is recognised as NaN when decoding. */
enum {
  DLX_CVT_NAN_NONE = 0,    /* no NaN (float6, float4) */
  DLX_CVT_NAN_IEEE = 1,    /* exponent all ones, mantissa != 0 (float16, bfloat16, e3m4, e4m3, e5m2) */
  DLX_CVT_NAN_ALL_ONES = 2, /* magnitude all ones: S.1111.111 (e4m3fn), 0xFF (e8m0fnu) */
  DLX_CVT_NAN_NEG_ZERO = 3  /* the -0 pattern 0x80 is the only NaN (fnuz) */
};
/* What a NaN code decodes to: always a quiet NaN with the code's sign (a conversion never delivers a
 * signalling NaN, IEEE 754 section 7.2). */
enum {
  DLX_CVT_NANDEC_QUIET = 0,  /* the canonical quiet NaN (ml_dtypes fp8) */
  DLX_CVT_NANDEC_PAYLOAD = 1 /* the payload shifted into place, the quiet bit set (float16, bfloat16) */
};

typedef struct dlx__cvt_format {
  const char *name;    /* canonical dtype name ("float8_e4m3fn") */
  uint8_t code;        /* DLPack type code */
  uint8_t bits;        /* storage width: 16, 8, 6 or 4 */
  uint8_t exp_bits;    /* exponent field width */
  uint8_t man_bits;    /* stored mantissa bits */
  int32_t bias;        /* exponent bias */
  uint8_t nan_kind;    /* DLX_CVT_NAN_*: which codes are NaN */
  uint8_t nan_decode;  /* DLX_CVT_NANDEC_*: what a NaN code decodes to */
  bool nan_encode_payload; /* float16: a NaN input keeps its top payload bits (NumPy), quiet bit set */
  bool has_inf;        /* exponent all ones with zero mantissa is +-inf */
  bool has_zero;       /* false for e8m0fnu: exponent 0 is an ordinary binade (2^-127) */
  uint32_t sign_bit;   /* the sign bit's value in the code (0 for the unsigned e8m0fnu) */
  uint32_t max_finite; /* largest finite magnitude code */
  uint32_t zero_pos, zero_neg; /* codes of +0.0 and -0.0 (and of negative underflow) */
  uint32_t nan_pos, nan_neg;   /* codes a +NaN / -NaN input encodes to */
  uint32_t ovf_pos, ovf_neg;   /* codes of +-inf inputs and of overflow */
} dlx__cvt_format;

/* Every format's descriptor, in one list (the host table in convert.c and dlx__cvt_format_value below are
 * both built from it). Fields in dlx__cvt_format's order from code on. */
#define DLX_CVT_FORMATS(X)                                                                              \
  X("float16", DLX_CODE_FLOAT, 16, 5, 10, 15, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_PAYLOAD, true, true, true, 0x8000, \
    0x7bff, 0x0000, 0x8000, 0x7e00, 0xfe00, 0x7c00, 0xfc00)                                             \
  X("bfloat16", DLX_CODE_BFLOAT, 16, 8, 7, 127, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_PAYLOAD, false, true, true,     \
    0x8000, 0x7f7f, 0x0000, 0x8000, 0x7fc0, 0xffc0, 0x7f80, 0xff80)                                     \
  /* IEEE-like fp8: the quiet NaN is exponent all ones with the top mantissa bit */                    \
  X("float8_e3m4", DLX_CODE_FLOAT8_E3M4, 8, 3, 4, 3, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_QUIET, false, true, true, \
    0x80, 0x6f, 0x00, 0x80, 0x78, 0xf8, 0x70, 0xf0)                                                     \
  X("float8_e4m3", DLX_CODE_FLOAT8_E4M3, 8, 4, 3, 7, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_QUIET, false, true, true, \
    0x80, 0x77, 0x00, 0x80, 0x7c, 0xfc, 0x78, 0xf8)                                                     \
  /* fnuz: 0x80 is the only NaN, there is no -0 and no inf; overflow and inf become that NaN */        \
  X("float8_e4m3b11fnuz", DLX_CODE_FLOAT8_E4M3B11FNUZ, 8, 4, 3, 11, DLX_CVT_NAN_NEG_ZERO, DLX_CVT_NANDEC_QUIET, \
    false, false, true, 0x80, 0x7f, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80)                                 \
  /* fn: S.1111.111 is NaN (sign kept), no inf; overflow and inf become NaN of the input's sign */      \
  X("float8_e4m3fn", DLX_CODE_FLOAT8_E4M3FN, 8, 4, 3, 7, DLX_CVT_NAN_ALL_ONES, DLX_CVT_NANDEC_QUIET, false, false, \
    true, 0x80, 0x7e, 0x00, 0x80, 0x7f, 0xff, 0x7f, 0xff)                                               \
  X("float8_e4m3fnuz", DLX_CODE_FLOAT8_E4M3FNUZ, 8, 4, 3, 8, DLX_CVT_NAN_NEG_ZERO, DLX_CVT_NANDEC_QUIET, false, \
    false, true, 0x80, 0x7f, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80)                                        \
  X("float8_e5m2", DLX_CODE_FLOAT8_E5M2, 8, 5, 2, 15, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_QUIET, false, true, true, \
    0x80, 0x7b, 0x00, 0x80, 0x7e, 0xfe, 0x7c, 0xfc)                                                     \
  X("float8_e5m2fnuz", DLX_CODE_FLOAT8_E5M2FNUZ, 8, 5, 2, 16, DLX_CVT_NAN_NEG_ZERO, DLX_CVT_NANDEC_QUIET, false, \
    false, true, 0x80, 0x7f, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80)                                        \
  /* e8m0fnu: unsigned powers of two 2^(e-127); 0xFF is NaN; zero, negatives, inf, overflow are NaN */ \
  X("float8_e8m0fnu", DLX_CODE_FLOAT8_E8M0FNU, 8, 8, 0, 127, DLX_CVT_NAN_ALL_ONES, DLX_CVT_NANDEC_QUIET, false, \
    false, false, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)                                       \
  /* fp6/fp4 have neither inf nor NaN: inf and overflow saturate; ml_dtypes maps NaN to a zero of the   \
   * opposite sign (its quiet_NaN() is the -0 pattern, negated for a negative NaN) */                   \
  X("float6_e2m3fn", DLX_CODE_FLOAT6_E2M3FN, 6, 2, 3, 1, DLX_CVT_NAN_NONE, DLX_CVT_NANDEC_QUIET, false, false, \
    true, 0x20, 0x1f, 0x00, 0x20, 0x20, 0x00, 0x1f, 0x3f)                                               \
  X("float6_e3m2fn", DLX_CODE_FLOAT6_E3M2FN, 6, 3, 2, 3, DLX_CVT_NAN_NONE, DLX_CVT_NANDEC_QUIET, false, false, \
    true, 0x20, 0x1f, 0x00, 0x20, 0x20, 0x00, 0x1f, 0x3f)                                               \
  X("float4_e2m1fn", DLX_CODE_FLOAT4_E2M1FN, 4, 2, 1, 1, DLX_CVT_NAN_NONE, DLX_CVT_NANDEC_QUIET, false, false, \
    true, 0x8, 0x7, 0x0, 0x8, 0x8, 0x0, 0x7, 0xf)

/* The descriptor of a format by value (usable in device code, where the host table is not); a
 * descriptor with bits 0 for any other code. */
DLX_CVT_INLINE dlx__cvt_format dlx__cvt_format_value(uint8_t dlpack_code) {
  switch (dlpack_code) {
#define DLX_CVT_CASE(NAME, CODE, ...)          \
  case CODE: {                                 \
    const dlx__cvt_format f = {NAME, CODE, __VA_ARGS__}; \
    return f;                                  \
  }
    DLX_CVT_FORMATS(DLX_CVT_CASE)
#undef DLX_CVT_CASE
    default: {
      const dlx__cvt_format f = {0};
      return f;
    }
  }
}

/* The descriptor of a narrow float format: code 2 means float16, 4 bfloat16, 7..17 the fp8/fp6/fp4
 * formats. NULL for any other code. */
const dlx__cvt_format *dlx__cvt_format_of(uint8_t dlpack_code);

/* ---- generic codec (any format, any descriptor) ------------------------------------------------ */

/* Encode a float32 / float64 into fmt's code (the low fmt->bits bits of the result), and decode a code
 * (bits above fmt->bits ignored) to float32 / float64, exact for every non-NaN code: all inline below. */
/* Decode a code (bits above fmt->bits ignored) to float32 / float64; exact for every non-NaN code. */

/* By DLPack code (2 = float16, 4 = bfloat16, 7..17). For an unknown code decode gives NaN and encode 0. */
double dlx__cvt_narrow_decode(uint8_t dlpack_code, uint32_t bits);
uint32_t dlx__cvt_narrow_encode(uint8_t dlpack_code, double x);
uint32_t dlx__cvt_narrow_encode_f32(uint8_t dlpack_code, float x);

/* 256-entry float32 table of every code of an 8/6/4-bit format (codes 7..17), indexed by the code
 * (entries past 2^bits repeat the low bits); NULL for other codes. Built once, thread-safely, on first
 * use; the pointer stays valid for the life of the process. */
const float *dlx__cvt_decode_table(uint8_t dlpack_code);

/* ---- float16 / bfloat16 fast paths ------------------------------------------------------------- */

DLX_CVT_INLINE uint32_t dlx__cvt_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
DLX_CVT_INLINE float dlx__cvt_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
DLX_CVT_INLINE uint64_t dlx__cvt_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}
DLX_CVT_INLINE double dlx__cvt_f64_from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* The generic encoder's finite non-zero path: value = m * 2^(e - mbits) with m in [2^mbits, 2^(mbits+1)),
 * mbits >= fmt->man_bits. Rounds to nearest even at the target's precision (fewer bits in its subnormal
 * range) and packs with one addition, so a carry out of the mantissa bumps the exponent. */
DLX_CVT_INLINE uint32_t dlx__cvt_encode_finite(const dlx__cvt_format *fmt, bool neg, int32_t e, uint64_t m,
                                              unsigned mbits) {
  /* e8m0fnu has no sign: every negative input is NaN */
  if (neg && fmt->sign_bit == 0) return fmt->nan_neg;
  const int32_t be = e + fmt->bias; /* biased exponent in the target */
  /* an exponent field past all ones cannot be finite; stopping here also keeps the shifts small */
  if (be > (1 << fmt->exp_bits)) return neg ? fmt->ovf_neg : fmt->ovf_pos;
  /* the lowest biased exponent of normal values: 1, with subnormals below; e8m0fnu has no zero and no
   * subnormals, its field 0 is the binade of 2^-127, and below it 2^-127 is the nearest value */
  const int32_t lo_be = fmt->has_zero ? 1 : 0;
  if (be < lo_be && !fmt->has_zero) return 0u;
  int32_t shift = (int32_t)mbits - (int32_t)fmt->man_bits + (be < lo_be ? lo_be - be : 0);
  /* mbits + 2 already rounds everything to 0; more would only risk an oversized shift */
  if (shift > (int32_t)mbits + 2) shift = (int32_t)mbits + 2;
  uint64_t q = m >> shift;
  if (shift > 0) {
    const uint64_t rem = m & ((UINT64_C(1) << shift) - 1u), half = UINT64_C(1) << (shift - 1);
    q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
  }
  /* a normal q still holds the implicit bit, so (exponent << man_bits) + q - implicit is the packed code
   * (a carry out of the mantissa bumps the exponent); a subnormal q is the code */
  const uint64_t code =
      be >= lo_be ? ((uint64_t)be << fmt->man_bits) + q - (UINT64_C(1) << fmt->man_bits) : q;
  if (code > fmt->max_finite) return neg ? fmt->ovf_neg : fmt->ovf_pos;
  if (!neg) return (uint32_t)code;
  /* fnuz formats have no negative zero: a negative value that underflows encodes as +0 */
  return code == 0 ? fmt->zero_neg : ((uint32_t)code | fmt->sign_bit);
}

/* NaN input: the format's NaN for that sign, or (float16) the top payload bits with the quiet bit set: a
 * signalling input comes out quiet (IEEE 754 section 7.2; NumPy's float32 -> float16 keeps it signalling,
 * docs/numerics.md). */
DLX_CVT_INLINE uint32_t dlx__cvt_encode_nan(const dlx__cvt_format *fmt, bool neg, uint64_t payload, unsigned mbits) {
  if (!fmt->nan_encode_payload) return neg ? fmt->nan_neg : fmt->nan_pos;
  const uint32_t keep = (uint32_t)(payload >> (mbits - fmt->man_bits));
  const uint32_t exp_ones = ((1u << fmt->exp_bits) - 1u) << fmt->man_bits, quiet = 1u << (fmt->man_bits - 1u);
  return (neg ? fmt->sign_bit : 0u) | exp_ones | quiet | keep;
}

DLX_CVT_INLINE uint32_t dlx__cvt_encode_f32(const dlx__cvt_format *fmt, float x) {
  const uint32_t u = dlx__cvt_f32_bits(x);
  const bool neg = (u >> 31) != 0;
  const uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) {
    if (a == 0x7f800000u) return neg ? fmt->ovf_neg : fmt->ovf_pos;
    return dlx__cvt_encode_nan(fmt, neg, a & 0x7fffffu, 23);
  }
  if (a == 0) return neg ? fmt->zero_neg : fmt->zero_pos;
  if (a >= 0x00800000u) return dlx__cvt_encode_finite(fmt, neg, (int32_t)(a >> 23) - 127, (a & 0x7fffffu) | 0x800000u, 23);
  /* float32 subnormal: normalise with integer shifts (no FPU, so DAZ cannot flush it) */
  uint32_t m = a;
  int32_t e = -126;
  while ((m & 0x800000u) == 0) {
    m <<= 1;
    --e;
  }
  return dlx__cvt_encode_finite(fmt, neg, e, m, 23);
}

DLX_CVT_INLINE uint32_t dlx__cvt_encode_f64(const dlx__cvt_format *fmt, double x) {
  const uint64_t u = dlx__cvt_f64_bits(x);
  const bool neg = (u >> 63) != 0;
  const uint64_t a = u & UINT64_C(0x7fffffffffffffff);
  const uint64_t frac_mask = (UINT64_C(1) << 52) - 1u;
  if (a >= UINT64_C(0x7ff0000000000000)) {
    if (a == UINT64_C(0x7ff0000000000000)) return neg ? fmt->ovf_neg : fmt->ovf_pos;
    return dlx__cvt_encode_nan(fmt, neg, a & frac_mask, 52);
  }
  if (a == 0) return neg ? fmt->zero_neg : fmt->zero_pos;
  if ((a >> 52) != 0) return dlx__cvt_encode_finite(fmt, neg, (int32_t)(a >> 52) - 1023, (a & frac_mask) | (frac_mask + 1u), 52);
  /* float64 subnormals are far below every format's range: they round to the smallest result */
  uint64_t m = a;
  int32_t e = -1022;
  while ((m >> 52) == 0) {
    m <<= 1;
    --e;
  }
  return dlx__cvt_encode_finite(fmt, neg, e, m, 52);
}


/* A decoded code: NaN, inf, zero, or the exact value (-1)^neg * m * 2^e with 0 < m < 2^11. */
enum { DLX_CVT_FINITE, DLX_CVT_ZERO, DLX_CVT_INF, DLX_CVT_NANV };
typedef struct dlx__cvt_parts {
  int kind; /* DLX_CVT_FINITE, ... */
  bool neg;
  uint32_t m;
  int32_t e;
  uint32_t payload; /* NaN: the stored mantissa */
} dlx__cvt_parts;

DLX_CVT_INLINE dlx__cvt_parts dlx__cvt_split(const dlx__cvt_format *fmt, uint32_t bits) {
  dlx__cvt_parts p = {DLX_CVT_FINITE, false, 0, 0, 0};
  bits &= (fmt->bits >= 32) ? 0xffffffffu : ((1u << fmt->bits) - 1u);
  const uint32_t mag = bits & ~fmt->sign_bit;
  const uint32_t man_mask = (1u << fmt->man_bits) - 1u;
  const uint32_t ef = mag >> fmt->man_bits, mf = mag & man_mask;
  const uint32_t ef_ones = (1u << fmt->exp_bits) - 1u;
  p.neg = (bits & fmt->sign_bit) != 0;
  bool nan = false;
  switch (fmt->nan_kind) {
    case DLX_CVT_NAN_IEEE: nan = ef == ef_ones && mf != 0; break;
    case DLX_CVT_NAN_ALL_ONES: nan = ef == ef_ones && mf == man_mask; break;
    case DLX_CVT_NAN_NEG_ZERO: nan = bits == fmt->sign_bit; break;
    default: break;
  }
  if (nan) {
    p.kind = DLX_CVT_NANV;
    p.payload = mf;
  } else if (fmt->has_inf && ef == ef_ones && mf == 0) {
    p.kind = DLX_CVT_INF;
  } else if (ef == 0 && fmt->has_zero) {
    /* subnormal: no implicit bit, the smallest normal's exponent */
    p.kind = mf == 0 ? DLX_CVT_ZERO : DLX_CVT_FINITE;
    p.m = mf;
    p.e = 1 - fmt->bias - fmt->man_bits;
  } else {
    /* e8m0fnu (no zero) takes this path for exponent 0 too: code 0x00 is 2^-127 */
    p.m = mf | (man_mask + 1u);
    p.e = (int32_t)ef - fmt->bias - fmt->man_bits;
  }
  return p;
}

DLX_CVT_INLINE unsigned dlx__cvt_bit_length(uint32_t m) {
  unsigned n = 0;
  while (m) {
    ++n;
    m >>= 1;
  }
  return n;
}

DLX_CVT_INLINE float dlx__cvt_decode_f32(const dlx__cvt_format *fmt, uint32_t bits) {
  const dlx__cvt_parts p = dlx__cvt_split(fmt, bits);
  const uint32_t sign = p.neg ? 0x80000000u : 0u;
  switch (p.kind) {
    case DLX_CVT_ZERO: return dlx__cvt_f32_from_bits(sign);
    case DLX_CVT_INF: return dlx__cvt_f32_from_bits(sign | 0x7f800000u);
    case DLX_CVT_NANV:
      if (fmt->nan_decode == DLX_CVT_NANDEC_QUIET) return dlx__cvt_f32_from_bits(sign | 0x7fc00000u);
      return dlx__cvt_f32_from_bits(sign | 0x7fc00000u | (p.payload << (23 - fmt->man_bits)));
    default: break;
  }
  /* assemble the float32 bits with integers: exact, and immune to FTZ (e8m0fnu 0x00 = 2^-127 and the
   * bfloat16 subnormals are float32 subnormals) */
  const unsigned n = dlx__cvt_bit_length(p.m);
  const int32_t lead = p.e + (int32_t)n - 1; /* exponent of the leading bit */
  uint32_t out;
  if (lead >= -126)
    out = ((uint32_t)(lead + 127) << 23) | ((p.m << (24 - n)) & 0x7fffffu);
  else
    out = p.m << (p.e + 149); /* every format's smallest value is >= 2^-133, so the shift is >= 0 */
  return dlx__cvt_f32_from_bits(sign | out);
}

DLX_CVT_INLINE double dlx__cvt_decode_f64(const dlx__cvt_format *fmt, uint32_t bits) {
  const dlx__cvt_parts p = dlx__cvt_split(fmt, bits);
  const uint64_t sign = p.neg ? UINT64_C(0x8000000000000000) : 0u;
  switch (p.kind) {
    case DLX_CVT_ZERO: return dlx__cvt_f64_from_bits(sign);
    case DLX_CVT_INF: return dlx__cvt_f64_from_bits(sign | UINT64_C(0x7ff0000000000000));
    case DLX_CVT_NANV: {
      const uint64_t payload = fmt->nan_decode == DLX_CVT_NANDEC_QUIET ? 0u : (uint64_t)p.payload << (52 - fmt->man_bits);
      return dlx__cvt_f64_from_bits(sign | UINT64_C(0x7ff8000000000000) | payload);
    }
    default: break;
  }
  /* every format's values are float64 normals */
  const unsigned n = dlx__cvt_bit_length(p.m);
  const int32_t lead = p.e + (int32_t)n - 1;
  const uint64_t out = ((uint64_t)(lead + 1023) << 52) | (((uint64_t)p.m << (53 - n)) & ((UINT64_C(1) << 52) - 1u));
  return dlx__cvt_f64_from_bits(sign | out);
}

/* float16 -> float32, exact; a NaN keeps its payload and comes out quiet (NumPy keeps a signalling NaN
 * signalling). */
DLX_CVT_INLINE float dlx__cvt_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t em = h & 0x7fffu;
  uint32_t out;
  if (em >= 0x7c00u) {
    /* inf, or NaN with its payload and the quiet bit */
    out = sign | 0x7f800000u | ((em & 0x3ffu) << 13) | (em > 0x7c00u ? 0x00400000u : 0u);
  } else if (em >= 0x0400u) {
    out = sign | ((em << 13) + ((uint32_t)(127 - 15) << 23)); /* normal: rebias the exponent */
  } else if (em != 0) {
    /* subnormal: renormalise with integer shifts so FTZ/DAZ modes cannot touch it */
    uint32_t m = em, e = 127 - 15 + 1;
    while ((m & 0x400u) == 0) {
      m <<= 1;
      --e;
    }
    out = sign | (e << 23) | ((m & 0x3ffu) << 13);
  } else {
    out = sign;
  }
  return dlx__cvt_f32_from_bits(out);
}

/* float16 -> float64, exact; a NaN keeps its payload and comes out quiet. */
DLX_CVT_INLINE double dlx__cvt_f16_to_f64(uint16_t h) {
  if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0)
    return dlx__cvt_f64_from_bits(((uint64_t)(h & 0x8000u) << 48) | 0x7ff8000000000000u |
                                  ((uint64_t)(h & 0x3ffu) << 42));
  return (double)dlx__cvt_f16_to_f32(h);
}

/* float32 -> float16, round to nearest even; overflow -> inf; NaN keeps the top 10 payload bits (NumPy's
 * npy_floatbits_to_halfbits) and comes out quiet (NumPy keeps a signalling NaN signalling). */
DLX_CVT_INLINE uint16_t dlx__cvt_f32_to_f16(float f) {
  const uint32_t x = dlx__cvt_f32_bits(f);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a >= 0x7f800000u) {
    if (a == 0x7f800000u) return (uint16_t)(sign | 0x7c00u);
    return (uint16_t)(sign | 0x7e00u | ((a & 0x7fffffu) >> 13));
  }
  /* 65520 = 0x477ff000 is the first value that rounds past 65504 */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (a >= 0x38800000u) /* normal in float16: RNE on the 13 dropped bits, then rebias */
    return (uint16_t)(sign | (((a + 0x0fffu + ((a >> 13) & 1u)) >> 13) - ((uint32_t)(127 - 15) << 10)));
  if (a <= 0x33000000u) return sign; /* <= 2^-25: half of the smallest subnormal ties to 0 */
  /* subnormal: value = m * 2^(e - 150), in units of 2^-24 that is m >> (126 - e) */
  const uint32_t m = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - (a >> 23);
  const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  uint32_t q = m >> shift;
  q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;
  return (uint16_t)(sign | q);
}

/* float64 -> float16, rounded once from the double (as NumPy). */
DLX_CVT_INLINE uint16_t dlx__cvt_f64_to_f16(double d) {
  const dlx__cvt_format f = dlx__cvt_format_value(DLX_CODE_FLOAT);
  return (uint16_t)dlx__cvt_encode_f64(&f, d);
}

/* bfloat16 -> float32: the top 16 bits, exact; a NaN keeps its payload and comes out quiet (ml_dtypes
 * keeps a signalling NaN signalling). */
DLX_CVT_INLINE float dlx__cvt_bf16_to_f32(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  return dlx__cvt_f32_from_bits((b & 0x7fffu) > 0x7f80u ? u | 0x00400000u : u);
}

/* bfloat16 -> float64: as through float32; a NaN keeps its payload and comes out quiet (ml_dtypes too). */
DLX_CVT_INLINE double dlx__cvt_bf16_to_f64(uint16_t b) {
  if ((b & 0x7f80u) == 0x7f80u && (b & 0x7fu) != 0)
    return dlx__cvt_f64_from_bits(((uint64_t)(b & 0x8000u) << 48) | 0x7ff8000000000000u |
                                  ((uint64_t)(b & 0x7fu) << 45));
  /* subnormals are float32 subnormals, which a DAZ mode would flush in the widening: use integers */
  if ((b & 0x7f80u) == 0 && (b & 0x7fu) != 0) {
    const dlx__cvt_format f = dlx__cvt_format_value(DLX_CODE_BFLOAT);
    return dlx__cvt_decode_f64(&f, b);
  }
  return (double)dlx__cvt_bf16_to_f32(b);
}

/* float32 -> bfloat16, round to nearest even; overflow -> inf; NaN -> 0x7FC0 with the sign (ml_dtypes). */
DLX_CVT_INLINE uint16_t dlx__cvt_f32_to_bf16(float f) {
  const uint32_t x = dlx__cvt_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)(((x >> 16) & 0x8000u) | 0x7fc0u);
  /* adding 0x7fff plus the kept lsb carries exactly when the dropped half rounds up (ties to even) */
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/* float64 -> bfloat16, rounded once from the double. */
DLX_CVT_INLINE uint16_t dlx__cvt_f64_to_bf16(double d) {
  const dlx__cvt_format f = dlx__cvt_format_value(DLX_CODE_BFLOAT);
  return (uint16_t)dlx__cvt_encode_f64(&f, d);
}

/* ---- fp8 / fp6 / fp4 hot paths ---------------------------------------------------------------- */

/* Decode through a table from dlx__cvt_decode_table (the cast kernel fetches it once per call). */
DLX_CVT_INLINE float dlx__cvt_table_decode(const float *table, uint32_t bits) { return table[bits & 0xffu]; }

/* ---- negation ---------------------------------------------------------------------------------- */

/* -x on a code, as ml_dtypes and NumPy negate: the sign bit flips, a NaN keeping its payload; the fnuz
 * formats keep 0 (they have no -0) and their one NaN (0x80); the unsigned e8m0fnu has no negative value,
 * so every negation is its NaN. Exactly what decode, negate and encode give, but for NaN payloads, which
 * the float round trip would replace with the canonical NaN. */
DLX_CVT_INLINE uint32_t dlx__cvt_negate(const dlx__cvt_format *fmt, uint32_t code) {
  if (fmt->sign_bit == 0) return fmt->nan_neg;
  if (fmt->nan_kind == DLX_CVT_NAN_NEG_ZERO && (code & ~fmt->sign_bit) == 0) return code;
  return code ^ fmt->sign_bit;
}

/* ---- packed sub-byte storage ------------------------------------------------------------------ */

/* The `bits`-wide field (1..8) at bit position bitpos from base, negative positions included (views
 * with negative strides reach below their first element). */
DLX_CVT_INLINE uint32_t dlx__cvt_bits_get(const void *base, int64_t bitpos, unsigned bits) {
  const unsigned char *p = (const unsigned char *)base;
  const int64_t byte = bitpos / 8 - (bitpos % 8 < 0); /* floor */
  const unsigned shift = (unsigned)(bitpos - byte * 8);
  uint32_t w = p[byte];
  if (shift + bits > 8u) w |= (uint32_t)p[byte + 1] << 8; /* straddles two bytes (float6) */
  return (w >> shift) & ((1u << bits) - 1u);
}

/* Store the low `bits` bits of value at bit position bitpos; neighbours are untouched. */
DLX_CVT_INLINE void dlx__cvt_bits_set(void *base, int64_t bitpos, unsigned bits, uint32_t value) {
  unsigned char *p = (unsigned char *)base;
  const int64_t byte = bitpos / 8 - (bitpos % 8 < 0);
  const unsigned shift = (unsigned)(bitpos - byte * 8);
  const uint32_t mask = ((1u << bits) - 1u) << shift;
  const uint32_t v = (value << shift) & mask;
  p[byte] = (unsigned char)((p[byte] & ~mask) | v);
  if (shift + bits > 8u) p[byte + 1] = (unsigned char)((p[byte + 1] & ~(mask >> 8)) | (v >> 8));
}

/* Element i of a packed buffer, and its store. */
DLX_CVT_INLINE uint32_t dlx__cvt_packed_get(const void *buf, uint64_t i, unsigned bits) {
  return dlx__cvt_bits_get(buf, (int64_t)(i * bits), bits);
}
DLX_CVT_INLINE void dlx__cvt_packed_set(void *buf, uint64_t i, unsigned bits, uint32_t value) {
  dlx__cvt_bits_set(buf, (int64_t)(i * bits), bits, value);
}

/* ---- integers and bool ------------------------------------------------------------------------ */

/* double -> signed integer in [lo, hi]: truncation toward zero, NaN -> 0, saturation outside the range.
 * lo/hi are the target type's limits (INT8_MIN/INT8_MAX ... INT64_MIN/INT64_MAX). */
DLX_CVT_INLINE int64_t dlx__cvt_f64_to_int(double x, int64_t lo, int64_t hi) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0) return hi; /* 2^63 */
  if (x < -9223372036854775808.0) return lo;
  const int64_t v = (int64_t)x; /* defined: the truncated value is within int64 */
  return v < lo ? lo : v > hi ? hi : v;
}

/* double -> unsigned integer in [0, hi]: truncation toward zero, NaN -> 0, <= -1 -> 0, saturation at hi. */
DLX_CVT_INLINE uint64_t dlx__cvt_f64_to_uint(double x, uint64_t hi) {
  if (!(x > -1.0)) return 0; /* NaN and everything that truncates below 0 */
  if (x >= 18446744073709551616.0) return hi; /* 2^64 */
  const uint64_t v = (uint64_t)x;
  return v > hi ? hi : v;
}

/* float -> bool: x != 0, so NaN is true and -0.0 false. */
DLX_CVT_INLINE bool dlx__cvt_f64_to_bool(double x) { return x != 0.0; }

#endif
