/* src/compute/convert.c - the generic narrow-float codec: one descriptor per format, one encoder and one
 * decoder for all of them (rules in convert.h), and the fp8/fp6/fp4 decode tables. */
#include "compute/convert.h"

#include <stdatomic.h>

/* DLPack codes 7..17 are the 8/6/4-bit formats; they index the decode tables from 0. */
#define DLX_CVT_FIRST_SMALL DLX_CODE_FLOAT8_E3M4
#define DLX_CVT_SMALL_COUNT (DLX_CODE_FLOAT4_E2M1FN - DLX_CODE_FLOAT8_E3M4 + 1)

/* name, code, bits, exp, man, bias, nan_kind, nan_decode, nan_encode_payload, has_inf, has_zero, sign_bit,
 * max_finite, zero_pos, zero_neg, nan_pos, nan_neg, ovf_pos, ovf_neg */
static const dlx_cvt_format dlx_cvt_formats[] = {
    {"float16", DLX_CODE_FLOAT, 16, 5, 10, 15, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_PAYLOAD, true, true, true, 0x8000,
     0x7bff, 0x0000, 0x8000, 0x7e00, 0xfe00, 0x7c00, 0xfc00},
    {"bfloat16", DLX_CODE_BFLOAT, 16, 8, 7, 127, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_PAYLOAD_F32, false, true, true,
     0x8000, 0x7f7f, 0x0000, 0x8000, 0x7fc0, 0xffc0, 0x7f80, 0xff80},
    /* IEEE-like fp8: the quiet NaN is exponent all ones with the top mantissa bit */
    {"float8_e3m4", DLX_CODE_FLOAT8_E3M4, 8, 3, 4, 3, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_QUIET, false, true, true,
     0x80, 0x6f, 0x00, 0x80, 0x78, 0xf8, 0x70, 0xf0},
    {"float8_e4m3", DLX_CODE_FLOAT8_E4M3, 8, 4, 3, 7, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_QUIET, false, true, true,
     0x80, 0x77, 0x00, 0x80, 0x7c, 0xfc, 0x78, 0xf8},
    /* fnuz: 0x80 is the only NaN, there is no -0 and no inf; overflow and inf become that NaN */
    {"float8_e4m3b11fnuz", DLX_CODE_FLOAT8_E4M3B11FNUZ, 8, 4, 3, 11, DLX_CVT_NAN_NEG_ZERO, DLX_CVT_NANDEC_QUIET,
     false, false, true, 0x80, 0x7f, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80},
    /* fn: S.1111.111 is NaN (sign kept), no inf; overflow and inf become NaN of the input's sign */
    {"float8_e4m3fn", DLX_CODE_FLOAT8_E4M3FN, 8, 4, 3, 7, DLX_CVT_NAN_ALL_ONES, DLX_CVT_NANDEC_QUIET, false, false,
     true, 0x80, 0x7e, 0x00, 0x80, 0x7f, 0xff, 0x7f, 0xff},
    {"float8_e4m3fnuz", DLX_CODE_FLOAT8_E4M3FNUZ, 8, 4, 3, 8, DLX_CVT_NAN_NEG_ZERO, DLX_CVT_NANDEC_QUIET, false,
     false, true, 0x80, 0x7f, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80},
    {"float8_e5m2", DLX_CODE_FLOAT8_E5M2, 8, 5, 2, 15, DLX_CVT_NAN_IEEE, DLX_CVT_NANDEC_QUIET, false, true, true,
     0x80, 0x7b, 0x00, 0x80, 0x7e, 0xfe, 0x7c, 0xfc},
    {"float8_e5m2fnuz", DLX_CODE_FLOAT8_E5M2FNUZ, 8, 5, 2, 16, DLX_CVT_NAN_NEG_ZERO, DLX_CVT_NANDEC_QUIET, false,
     false, true, 0x80, 0x7f, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80},
    /* e8m0fnu: unsigned powers of two 2^(e-127); 0xFF is NaN; zero, negatives, inf and overflow are NaN */
    {"float8_e8m0fnu", DLX_CODE_FLOAT8_E8M0FNU, 8, 8, 0, 127, DLX_CVT_NAN_ALL_ONES, DLX_CVT_NANDEC_QUIET, false,
     false, false, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
    /* fp6/fp4 have neither inf nor NaN: inf and overflow saturate; ml_dtypes maps NaN to a zero of the
     * opposite sign (its quiet_NaN() is the -0 pattern, negated for a negative NaN) */
    {"float6_e2m3fn", DLX_CODE_FLOAT6_E2M3FN, 6, 2, 3, 1, DLX_CVT_NAN_NONE, DLX_CVT_NANDEC_QUIET, false, false,
     true, 0x20, 0x1f, 0x00, 0x20, 0x20, 0x00, 0x1f, 0x3f},
    {"float6_e3m2fn", DLX_CODE_FLOAT6_E3M2FN, 6, 3, 2, 3, DLX_CVT_NAN_NONE, DLX_CVT_NANDEC_QUIET, false, false,
     true, 0x20, 0x1f, 0x00, 0x20, 0x20, 0x00, 0x1f, 0x3f},
    {"float4_e2m1fn", DLX_CODE_FLOAT4_E2M1FN, 4, 2, 1, 1, DLX_CVT_NAN_NONE, DLX_CVT_NANDEC_QUIET, false, false,
     true, 0x8, 0x7, 0x0, 0x8, 0x8, 0x0, 0x7, 0xf},
};

const dlx_cvt_format *dlx_cvt_format_of(uint8_t dlpack_code) {
  if (dlpack_code == DLX_CODE_FLOAT) return &dlx_cvt_formats[0];
  if (dlpack_code == DLX_CODE_BFLOAT) return &dlx_cvt_formats[1];
  if (dlpack_code >= DLX_CVT_FIRST_SMALL && dlpack_code < DLX_CVT_FIRST_SMALL + DLX_CVT_SMALL_COUNT)
    return &dlx_cvt_formats[2 + (dlpack_code - DLX_CVT_FIRST_SMALL)];
  return NULL;
}

/* ---- encode --------------------------------------------------------------------------------- */

uint32_t dlx_cvt_encode_f64(const dlx_cvt_format *fmt, double x) {
  const uint64_t u = dlx_cvt__f64_bits(x);
  const bool neg = (u >> 63) != 0;
  const uint64_t a = u & UINT64_C(0x7fffffffffffffff);
  const uint64_t frac_mask = (UINT64_C(1) << 52) - 1u;
  if (a >= UINT64_C(0x7ff0000000000000)) {
    if (a == UINT64_C(0x7ff0000000000000)) return neg ? fmt->ovf_neg : fmt->ovf_pos;
    return dlx_cvt__encode_nan(fmt, neg, a & frac_mask, 52);
  }
  if (a == 0) return neg ? fmt->zero_neg : fmt->zero_pos;
  if ((a >> 52) != 0) return dlx_cvt__encode_finite(fmt, neg, (int32_t)(a >> 52) - 1023, (a & frac_mask) | (frac_mask + 1u), 52);
  /* float64 subnormals are far below every format's range: they round to the smallest result */
  uint64_t m = a;
  int32_t e = -1022;
  while ((m >> 52) == 0) {
    m <<= 1;
    --e;
  }
  return dlx_cvt__encode_finite(fmt, neg, e, m, 52);
}

uint16_t dlx_cvt_f64_to_f16(double d) { return (uint16_t)dlx_cvt_encode_f64(&dlx_cvt_formats[0], d); }
uint16_t dlx_cvt_f64_to_bf16(double d) { return (uint16_t)dlx_cvt_encode_f64(&dlx_cvt_formats[1], d); }

uint32_t dlx_cvt_narrow_encode(uint8_t dlpack_code, double x) {
  const dlx_cvt_format *fmt = dlx_cvt_format_of(dlpack_code);
  return fmt ? dlx_cvt_encode_f64(fmt, x) : 0u;
}

uint32_t dlx_cvt_narrow_encode_f32(uint8_t dlpack_code, float x) {
  const dlx_cvt_format *fmt = dlx_cvt_format_of(dlpack_code);
  return fmt ? dlx_cvt_encode_f32(fmt, x) : 0u;
}

/* ---- decode --------------------------------------------------------------------------------- */

/* A decoded code: NaN, inf, zero, or the exact value (-1)^neg * m * 2^e with 0 < m < 2^11. */
typedef struct dlx_cvt_parts {
  enum { DLX_CVT_FINITE, DLX_CVT_ZERO, DLX_CVT_INF, DLX_CVT_NANV } kind;
  bool neg;
  uint32_t m;
  int32_t e;
  uint32_t payload; /* NaN: the stored mantissa */
} dlx_cvt_parts;

static dlx_cvt_parts dlx_cvt_split(const dlx_cvt_format *fmt, uint32_t bits) {
  dlx_cvt_parts p = {DLX_CVT_FINITE, false, 0, 0, 0};
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

static unsigned dlx_cvt_bit_length(uint32_t m) {
  unsigned n = 0;
  while (m) {
    ++n;
    m >>= 1;
  }
  return n;
}

float dlx_cvt_decode_f32(const dlx_cvt_format *fmt, uint32_t bits) {
  const dlx_cvt_parts p = dlx_cvt_split(fmt, bits);
  const uint32_t sign = p.neg ? 0x80000000u : 0u;
  switch (p.kind) {
    case DLX_CVT_ZERO: return dlx_cvt__f32_from_bits(sign);
    case DLX_CVT_INF: return dlx_cvt__f32_from_bits(sign | 0x7f800000u);
    case DLX_CVT_NANV:
      if (fmt->nan_decode == DLX_CVT_NANDEC_QUIET) return dlx_cvt__f32_from_bits(sign | 0x7fc00000u);
      return dlx_cvt__f32_from_bits(sign | 0x7f800000u | (p.payload << (23 - fmt->man_bits)));
    default: break;
  }
  /* assemble the float32 bits with integers: exact, and immune to FTZ (e8m0fnu 0x00 = 2^-127 and the
   * bfloat16 subnormals are float32 subnormals) */
  const unsigned n = dlx_cvt_bit_length(p.m);
  const int32_t lead = p.e + (int32_t)n - 1; /* exponent of the leading bit */
  uint32_t out;
  if (lead >= -126)
    out = ((uint32_t)(lead + 127) << 23) | ((p.m << (24 - n)) & 0x7fffffu);
  else
    out = p.m << (p.e + 149); /* every format's smallest value is >= 2^-133, so the shift is >= 0 */
  return dlx_cvt__f32_from_bits(sign | out);
}

double dlx_cvt_decode_f64(const dlx_cvt_format *fmt, uint32_t bits) {
  const dlx_cvt_parts p = dlx_cvt_split(fmt, bits);
  const uint64_t sign = p.neg ? UINT64_C(0x8000000000000000) : 0u;
  switch (p.kind) {
    case DLX_CVT_ZERO: return dlx_cvt__f64_from_bits(sign);
    case DLX_CVT_INF: return dlx_cvt__f64_from_bits(sign | UINT64_C(0x7ff0000000000000));
    case DLX_CVT_NANV: {
      if (fmt->nan_decode == DLX_CVT_NANDEC_QUIET) return dlx_cvt__f64_from_bits(sign | UINT64_C(0x7ff8000000000000));
      uint64_t out = sign | UINT64_C(0x7ff0000000000000) | ((uint64_t)p.payload << (52 - fmt->man_bits));
      /* bfloat16 widens through float32, and that hardware conversion sets the quiet bit */
      if (fmt->nan_decode == DLX_CVT_NANDEC_PAYLOAD_F32) out |= UINT64_C(0x0008000000000000);
      return dlx_cvt__f64_from_bits(out);
    }
    default: break;
  }
  /* every format's values are float64 normals */
  const unsigned n = dlx_cvt_bit_length(p.m);
  const int32_t lead = p.e + (int32_t)n - 1;
  const uint64_t out = ((uint64_t)(lead + 1023) << 52) | (((uint64_t)p.m << (53 - n)) & ((UINT64_C(1) << 52) - 1u));
  return dlx_cvt__f64_from_bits(sign | out);
}

double dlx_cvt_narrow_decode(uint8_t dlpack_code, uint32_t bits) {
  const dlx_cvt_format *fmt = dlx_cvt_format_of(dlpack_code);
  return fmt ? dlx_cvt_decode_f64(fmt, bits) : dlx_cvt__f64_from_bits(UINT64_C(0x7ff8000000000000));
}

/* ---- decode tables -------------------------------------------------------------------------- */

static float dlx_cvt_tables[DLX_CVT_SMALL_COUNT][256];
/* 0: not built, 1: one thread is building, 2: ready (published with release, read with acquire) */
static atomic_int dlx_cvt_tables_state;

static void dlx_cvt_tables_build(void) {
  int expected = 0;
  if (atomic_compare_exchange_strong_explicit(&dlx_cvt_tables_state, &expected, 1, memory_order_acq_rel,
                                              memory_order_acquire)) {
    for (int f = 0; f < DLX_CVT_SMALL_COUNT; ++f) {
      const dlx_cvt_format *fmt = &dlx_cvt_formats[2 + f];
      for (uint32_t c = 0; c < 256; ++c) dlx_cvt_tables[f][c] = dlx_cvt_decode_f32(fmt, c);
    }
    atomic_store_explicit(&dlx_cvt_tables_state, 2, memory_order_release);
    return;
  }
  /* another thread is filling 2816 floats (microseconds): wait for it to publish */
  while (atomic_load_explicit(&dlx_cvt_tables_state, memory_order_acquire) != 2) {
  }
}

const float *dlx_cvt_decode_table(uint8_t dlpack_code) {
  if (dlpack_code < DLX_CVT_FIRST_SMALL || dlpack_code >= DLX_CVT_FIRST_SMALL + DLX_CVT_SMALL_COUNT) return NULL;
  if (atomic_load_explicit(&dlx_cvt_tables_state, memory_order_acquire) != 2) dlx_cvt_tables_build();
  return dlx_cvt_tables[dlpack_code - DLX_CVT_FIRST_SMALL];
}
