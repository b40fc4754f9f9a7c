/* Tests for src/kernels/convert.c: the narrow-float codec against a slow reference written here with a
 * different algorithm (enumerate every representable value, pick the nearest, ties to the even
 * significand), exhaustive round trips, the documented special-value rules, packed storage and the
 * integer/bool rules. Bit-exactness against ml_dtypes itself is python/tests/test_convert_mldtypes.py. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kernels/convert.h"
#include "dlx/dtype.h"
#include "runner.h"

#if defined(__x86_64__) || defined(__SSE2__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

/* ---- the reference: an independent restatement of each format ---------------------------------- */

/* Restated from the ml_dtypes / OCP definitions, not taken from convert.c's table. */
typedef struct ref_spec {
  uint8_t code;
  int bits, ebits, mbits, bias;
  bool ieee;      /* inf = exponent all ones and mantissa 0, NaN = exponent all ones otherwise */
  bool fn;        /* S.1..1.1..1 is NaN, no inf */
  bool fnuz;      /* 0x80 is the only NaN, no -0, no inf */
  bool unsigned_; /* e8m0fnu: no sign, no zero, 0xFF NaN */
} ref_spec;

static const ref_spec specs[] = {
    {DLX_CODE_FLOAT, 16, 5, 10, 15, true, false, false, false},
    {DLX_CODE_BFLOAT, 16, 8, 7, 127, true, false, false, false},
    {DLX_CODE_FLOAT8_E3M4, 8, 3, 4, 3, true, false, false, false},
    {DLX_CODE_FLOAT8_E4M3, 8, 4, 3, 7, true, false, false, false},
    {DLX_CODE_FLOAT8_E4M3B11FNUZ, 8, 4, 3, 11, false, false, true, false},
    {DLX_CODE_FLOAT8_E4M3FN, 8, 4, 3, 7, false, true, false, false},
    {DLX_CODE_FLOAT8_E4M3FNUZ, 8, 4, 3, 8, false, false, true, false},
    {DLX_CODE_FLOAT8_E5M2, 8, 5, 2, 15, true, false, false, false},
    {DLX_CODE_FLOAT8_E5M2FNUZ, 8, 5, 2, 16, false, false, true, false},
    {DLX_CODE_FLOAT8_E8M0FNU, 8, 8, 0, 127, false, false, false, true},
    {DLX_CODE_FLOAT6_E2M3FN, 6, 2, 3, 1, false, false, false, false},
    {DLX_CODE_FLOAT6_E3M2FN, 6, 3, 2, 3, false, false, false, false},
    {DLX_CODE_FLOAT4_E2M1FN, 4, 2, 1, 1, false, false, false, false},
};
#define NSPECS (sizeof specs / sizeof specs[0])

/* bit views of doubles and floats: convert.h's (a memcpy each; nothing to get wrong in them) */
#define f64_bits dlx__cvt_f64_bits
#define f64_from dlx__cvt_f64_from_bits
#define f32_bits dlx__cvt_f32_bits
#define f32_from dlx__cvt_f32_from_bits
static bool is_nan(double x) { return x != x; }

/* 2^k by repeated doubling/halving: exact, and no libm. */
static double pow2(int k) {
  double v = 1.0;
  for (; k > 0; --k) v *= 2.0;
  for (; k < 0; ++k) v *= 0.5;
  return v;
}

static uint32_t sign_bit_of(const ref_spec *s) { return s->unsigned_ ? 0u : 1u << (s->bits - 1); }

/* Reference decode: NaN as a double NaN, otherwise the value from the textbook formula. */
static double ref_value(const ref_spec *s, uint32_t code) {
  const uint32_t sb = sign_bit_of(s), mag = code & ~sb;
  const uint32_t e = mag >> s->mbits, m = mag & ((1u << s->mbits) - 1u), eones = (1u << s->ebits) - 1u;
  const double sign = (code & sb) ? -1.0 : 1.0;
  const double nan = f64_from(UINT64_C(0x7ff8000000000000));
  if (s->ieee && e == eones) return m ? nan : sign * f64_from(UINT64_C(0x7ff0000000000000));
  if (s->fn && e == eones && m == (1u << s->mbits) - 1u) return nan;
  if (s->fnuz && code == sb) return nan;
  if (s->unsigned_) return code == 0xff ? nan : pow2((int)code - 127);
  if (e == 0) return sign * (double)m * pow2(1 - s->bias - s->mbits);
  return sign * (double)((1u << s->mbits) | m) * pow2((int)e - s->bias - s->mbits);
}

static bool ref_is_nan_code(const ref_spec *s, uint32_t code) { return is_nan(ref_value(s, code)); }

/* Ascending non-negative finite values with their codes. e8m0fnu's list starts with (2^-127, 0x00), its
 * smallest value, which everything below it rounds to (it has no zero); every list ends with a virtual
 * value one step past the largest finite, whose code (max + 1) stands for "overflow". */
typedef struct ref_table {
  int n;
  double v[1 << 15];
  uint32_t code[1 << 15];
} ref_table;

static ref_table tables[NSPECS];
static bool tables_ready;
static void ref_build(size_t si);
/* Tests may run alone (the runner's name filter), so each one that needs the reference builds it. */
static void ref_ensure(void) {
  if (tables_ready) return;
  for (size_t si = 0; si < NSPECS; ++si) ref_build(si);
  tables_ready = true;
}

static void ref_build(size_t si) {
  const ref_spec *s = &specs[si];
  ref_table *t = &tables[si];
  t->n = 0;
  const uint32_t ncodes = s->unsigned_ ? 256u : 1u << (s->bits - 1);
  for (uint32_t c = 0; c < ncodes; ++c) {
    const double v = ref_value(s, c);
    if (is_nan(v) || v > 1e300) continue;
    t->v[t->n] = v;
    t->code[t->n] = c;
    ++t->n;
  }
  /* one step past the largest finite value: its binade's spacing again */
  const double maxv = t->v[t->n - 1];
  double ulp = pow2(-s->mbits);
  double binade = 1.0;
  while (binade * 2.0 <= maxv) binade *= 2.0;
  while (binade > maxv) binade *= 0.5;
  t->v[t->n] = maxv + binade * ulp;
  t->code[t->n] = t->code[t->n - 1] + 1u;
  ++t->n;
}

/* Codes for the special inputs, per the rules in convert.h (restated). */
static uint32_t ref_nan_code(const ref_spec *s, bool neg) {
  const uint32_t sb = sign_bit_of(s);
  if (s->ieee) return (neg ? sb : 0u) | (((1u << s->ebits) - 1u) << s->mbits) | (1u << (s->mbits - 1));
  if (s->fn) return (neg ? sb : 0u) | (sb - 1u);
  if (s->fnuz) return 0x80;
  if (s->unsigned_) return 0xff;
  return neg ? 0u : sb; /* fp6/fp4: the zero of the opposite sign */
}
static uint32_t ref_overflow_code(const ref_spec *s, bool neg) {
  const uint32_t sb = sign_bit_of(s);
  if (s->ieee) return (neg ? sb : 0u) | (((1u << s->ebits) - 1u) << s->mbits);
  if (s->fn || s->fnuz || s->unsigned_) return ref_nan_code(s, neg);
  return (neg ? sb : 0u) | (sb - 1u); /* fp6/fp4 saturate */
}

/* Reference encoder for a finite or special double (float16 NaNs are checked separately). */
static uint32_t ref_encode(size_t si, double x) {
  const ref_spec *s = &specs[si];
  const ref_table *t = &tables[si];
  const bool neg = (f64_bits(x) >> 63) != 0;
  const uint32_t sb = sign_bit_of(s);
  if (is_nan(x)) return ref_nan_code(s, neg);
  if (s->unsigned_ && (neg || x == 0.0)) return 0xff;
  const double a = neg ? -x : x;
  if (a > 1e300) return ref_overflow_code(s, neg);
  if (a == 0.0) return neg && !s->fnuz ? sb : 0u;
  /* binary search: t->v[lo] <= a < t->v[hi] */
  int lo = 0, hi = t->n - 1;
  if (a >= t->v[hi]) return ref_overflow_code(s, neg);
  if (a < t->v[0]) return t->code[0]; /* e8m0fnu below 2^-127: its smallest value is the nearest */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (t->v[mid] <= a) lo = mid;
    else hi = mid;
  }
  const double mid = 0.5 * (t->v[lo] + t->v[hi]); /* exact: few significant bits */
  int pick;
  if (a < mid) pick = lo;
  else if (a > mid) pick = hi;
  else {
    /* a tie: the neighbour whose value is an even multiple of the spacing */
    const double step = t->v[hi] - t->v[lo];
    const uint64_t k = (uint64_t)(t->v[lo] / step);
    pick = (k & 1u) == 0 ? lo : hi;
  }
  if (pick == t->n - 1) return ref_overflow_code(s, neg);
  const uint32_t c = t->code[pick];
  if (!neg) return c;
  return c == 0 && s->fnuz ? 0u : (c | sb);
}

static const dlx__cvt_format *fmt_of(size_t si) { return dlx__cvt_format_of(specs[si].code); }

/* Encode through every entry point that takes this input type. */
static uint32_t enc64(size_t si, double x) { return dlx__cvt_narrow_encode(specs[si].code, x); }
static uint32_t enc32(size_t si, float x) {
  const uint8_t code = specs[si].code;
  const uint32_t g = dlx__cvt_encode_f32(fmt_of(si), x);
  uint32_t fast = g;
  if (code == DLX_CODE_FLOAT) fast = dlx__cvt_f32_to_f16(x);
  if (code == DLX_CODE_BFLOAT) fast = dlx__cvt_f32_to_bf16(x);
  if (fast != g || dlx__cvt_narrow_encode_f32(code, x) != g) return 0xdeadbeefu; /* entry points disagree */
  return g;
}

/* A deterministic generator (xorshift64*), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1du;
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_descriptors(void) {
  for (size_t si = 0; si < NSPECS; ++si) {
    const dlx__cvt_format *f = fmt_of(si);
    CHECK(f != NULL);
    if (!f) continue;
    CHECK_EQ(f->code, specs[si].code);
    CHECK_EQ(f->bits, specs[si].bits);
    CHECK_EQ(f->exp_bits, specs[si].ebits);
    CHECK_EQ(f->man_bits, specs[si].mbits);
    CHECK_EQ(f->bias, specs[si].bias);
    CHECK_STR(f->name, dlx_dtype_name(DLX_DTYPE_MAKE(f->code, f->bits, 1)));
  }
  static const uint8_t none[] = {0, 1, 3, 5, 6, 18, 19, 200, 255};
  for (size_t i = 0; i < sizeof none; ++i) {
    CHECK(dlx__cvt_format_of(none[i]) == NULL);
    CHECK(dlx__cvt_decode_table(none[i]) == NULL);
    CHECK_EQ(dlx__cvt_narrow_encode(none[i], 1.0), 0);
    CHECK_EQ(dlx__cvt_narrow_encode_f32(none[i], 1.0f), 0);
    CHECK(is_nan(dlx__cvt_narrow_decode(none[i], 0x3c)));
  }
  CHECK(dlx__cvt_decode_table(DLX_CODE_FLOAT) == NULL);
  CHECK(dlx__cvt_decode_table(DLX_CODE_BFLOAT) == NULL);
  /* the largest finite values (ml_dtypes.finfo(...).max) */
  static const struct { uint8_t code; double max; } maxes[] = {
      {DLX_CODE_FLOAT, 65504.0}, {DLX_CODE_BFLOAT, 3.3895313892515355e38}, {DLX_CODE_FLOAT8_E3M4, 15.5},
      {DLX_CODE_FLOAT8_E4M3, 240.0}, {DLX_CODE_FLOAT8_E4M3B11FNUZ, 30.0}, {DLX_CODE_FLOAT8_E4M3FN, 448.0},
      {DLX_CODE_FLOAT8_E4M3FNUZ, 240.0}, {DLX_CODE_FLOAT8_E5M2, 57344.0}, {DLX_CODE_FLOAT8_E5M2FNUZ, 57344.0},
      {DLX_CODE_FLOAT8_E8M0FNU, 1.7014118346046923e38}, {DLX_CODE_FLOAT6_E2M3FN, 7.5}, {DLX_CODE_FLOAT6_E3M2FN, 28.0},
      {DLX_CODE_FLOAT4_E2M1FN, 6.0}};
  for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; ++i) {
    const dlx__cvt_format *f = dlx__cvt_format_of(maxes[i].code);
    CHECK(dlx__cvt_narrow_decode(maxes[i].code, f->max_finite) == maxes[i].max);
    CHECK(dlx__cvt_narrow_encode(maxes[i].code, maxes[i].max) == f->max_finite);
  }
}

/* Every code of the 8/6/4-bit formats: decode (three ways) and encode back (three ways). */
static void test_small_exhaustive_round_trip(void) {
  ref_ensure();
  int checked = 0;
  for (size_t si = 2; si < NSPECS; ++si) {
    const ref_spec *s = &specs[si];
    const dlx__cvt_format *f = fmt_of(si);
    const float *table = dlx__cvt_decode_table(s->code);
    CHECK(table != NULL);
    if (!table) continue;
    const uint32_t ncodes = 1u << s->bits;
    for (uint32_t c = 0; c < 256; ++c) {
      const uint32_t low = c & (ncodes - 1u);
      const double want = ref_value(s, low);
      const double d = dlx__cvt_narrow_decode(s->code, c);
      const float fl = dlx__cvt_decode_f32(f, c);
      /* the table repeats the low bits above 2^bits, and matches the scalar decoder bit for bit */
      CHECK_EQ(f32_bits(table[c]), f32_bits(fl));
      CHECK_EQ(f32_bits(dlx__cvt_table_decode(table, c)), f32_bits(fl));
      if (c >= ncodes) continue;
      if (is_nan(want)) {
        CHECK(is_nan(d) && is_nan(fl));
        /* a NaN code decodes to the quiet NaN carrying the code's sign (0x80 NaNs are negative) */
        const bool neg = (c & sign_bit_of(s)) != 0;
        CHECK_EQ(f64_bits(d), (neg ? UINT64_C(0xfff8000000000000) : UINT64_C(0x7ff8000000000000)));
        CHECK_EQ(f32_bits(fl), (neg ? 0xffc00000u : 0x7fc00000u));
        /* and encodes back to the format's NaN of that sign */
        CHECK_EQ(dlx__cvt_encode_f64(f, d), ref_nan_code(s, neg));
        CHECK(ref_is_nan_code(s, dlx__cvt_encode_f32(f, fl)));
        continue;
      }
      CHECK_EQ(f64_bits(d), f64_bits(want)); /* exact, signed zero and inf included */
      CHECK_EQ(f64_bits((double)fl), f64_bits(want));
      CHECK_EQ(dlx__cvt_encode_f64(f, d), c);
      CHECK_EQ(enc32(si, fl), c);
      CHECK_EQ(dlx__cvt_narrow_encode(s->code, d), c);
      ++checked;
    }
  }
  /* 8-bit: 256 - NaN codes each; fp6 64 + 64; fp4 16 */
  CHECK(checked > 8 * 200 + 128 + 16);
}

/* float16 and bfloat16: all 65536 codes decode and encode back (bfloat16 NaNs become 0x7FC0). */
static void test_16bit_exhaustive(void) {
  for (uint32_t c = 0; c < 65536; ++c) {
    const uint16_t h = (uint16_t)c;
    const float f16 = dlx__cvt_f16_to_f32(h), b16 = dlx__cvt_bf16_to_f32(h);
    const double want16 = ref_value(&specs[0], c), wantb = ref_value(&specs[1], c);
    if (is_nan(want16)) {
      /* the payload is kept both ways and the quiet bit set: a quiet NaN round-trips, a signalling one
       * comes back quiet (IEEE 754; NumPy keeps it signalling) */
      CHECK_EQ(f32_bits(f16), ((c & 0x8000u) << 16) | 0x7fc00000u | ((c & 0x3ffu) << 13));
      CHECK_EQ(f64_bits(dlx__cvt_f16_to_f64(h)),
               ((uint64_t)(c & 0x8000u) << 48) | UINT64_C(0x7ff8000000000000) | ((uint64_t)(c & 0x3ffu) << 42));
      CHECK_EQ(enc32(0, f16), c | 0x200u);
      CHECK_EQ(dlx__cvt_f64_to_f16(dlx__cvt_f16_to_f64(h)), c | 0x200u);
    } else {
      CHECK_EQ(f64_bits((double)f16), f64_bits(want16));
      CHECK_EQ(f64_bits(dlx__cvt_f16_to_f64(h)), f64_bits(want16));
      CHECK_EQ(f64_bits(dlx__cvt_narrow_decode(DLX_CODE_FLOAT, c)), f64_bits(want16));
      CHECK_EQ(enc32(0, f16), c);
      CHECK_EQ(dlx__cvt_f64_to_f16(dlx__cvt_f16_to_f64(h)), c);
    }
    CHECK_EQ(f32_bits(dlx__cvt_decode_f32(fmt_of(0), c)), f32_bits(f16));
    if (is_nan(wantb)) {
      CHECK_EQ(f32_bits(b16), (c << 16) | 0x00400000u); /* the payload kept, quiet */
      CHECK_EQ(f64_bits(dlx__cvt_bf16_to_f64(h)), f64_bits((double)b16));
      CHECK_EQ(enc32(1, b16), (c & 0x8000u) | 0x7fc0u);
      CHECK_EQ(dlx__cvt_f64_to_bf16(dlx__cvt_bf16_to_f64(h)), (c & 0x8000u) | 0x7fc0u);
    } else {
      CHECK_EQ(f64_bits((double)b16), f64_bits(wantb));
      CHECK_EQ(f64_bits(dlx__cvt_bf16_to_f64(h)), f64_bits(wantb));
      CHECK_EQ(enc32(1, b16), c);
      CHECK_EQ(dlx__cvt_f64_to_bf16(dlx__cvt_bf16_to_f64(h)), c);
    }
    CHECK_EQ(f32_bits(dlx__cvt_decode_f32(fmt_of(1), c)), f32_bits(b16));
    /* the generic decoder agrees with the fast paths bit for bit, NaNs included */
    CHECK_EQ(f64_bits(dlx__cvt_narrow_decode(DLX_CODE_BFLOAT, c)), f64_bits(dlx__cvt_bf16_to_f64(h)));
    CHECK_EQ(f64_bits(dlx__cvt_narrow_decode(DLX_CODE_FLOAT, c)), f64_bits(dlx__cvt_f16_to_f64(h)));
  }
}

/* Whether bits hold a signalling NaN of the format (IEEE-like: exponent all ones, quiet bit clear). */
static bool signalling(uint32_t bits, unsigned ebits, unsigned mbits) {
  const uint32_t e = (bits >> mbits) & ((1u << ebits) - 1u), m = bits & ((1u << mbits) - 1u);
  return e == (1u << ebits) - 1u && m != 0 && (m >> (mbits - 1u)) == 0;
}

/* Issue 20: bfloat16 -> float16 turned 126 bfloat16 NaN codes into float16 signalling NaNs (0x7c08...).
 * IEEE 754 (7.2): a conversion delivers a quiet NaN. Every NaN code of every format, decoded to float32
 * and float64 and encoded into every format from there (the narrow -> narrow path), and every float32 /
 * float64 signalling NaN encoded: never a signalling NaN; the sign kept where the target has one. */
static void test_no_signalling_nan_out(void) {
  int nans = 0;
  for (size_t si = 0; si < NSPECS; ++si) {
    const ref_spec *s = &specs[si];
    for (uint32_t c = 0; c < (1u << s->bits); ++c) {
      if (!ref_is_nan_code(s, c)) continue;
      ++nans;
      const float f = dlx__cvt_decode_f32(fmt_of(si), c);
      const double d = dlx__cvt_decode_f64(fmt_of(si), c);
      CHECK(is_nan(f) && ((f32_bits(f) >> 22) & 1u)); /* the quiet bit */
      CHECK(is_nan(d) && ((f64_bits(d) >> 51) & 1u));
      for (size_t ti = 0; ti < NSPECS; ++ti) {
        const ref_spec *t = &specs[ti];
        const uint32_t out = dlx__cvt_encode_f32(fmt_of(ti), f);
        if (t->ieee) CHECK(!signalling(out, (unsigned)t->ebits, (unsigned)t->mbits));
        if (t->ieee || t->fn) CHECK_EQ(out & sign_bit_of(t), (f32_bits(f) >> 31) ? sign_bit_of(t) : 0u);
        CHECK_EQ(dlx__cvt_encode_f64(fmt_of(ti), d), out); /* through float64: the same NaN */
      }
    }
  }
  /* float16, bfloat16, e3m4, e4m3, e4m3b11fnuz, e4m3fn, e4m3fnuz, e5m2, e5m2fnuz, e8m0fnu */
  CHECK_EQ(nans, 2046 + 254 + 30 + 14 + 1 + 2 + 1 + 6 + 1 + 1);
  for (uint32_t p = 1; p < (1u << 22); p += 4099) { /* float32 / float64 signalling NaNs into float16 */
    CHECK(!signalling(dlx__cvt_f32_to_f16(f32_from(0x7f800000u | p)), 5, 10));
    CHECK(!signalling(dlx__cvt_f64_to_f16(f64_from(UINT64_C(0xfff0000000000000) | ((uint64_t)p << 29))), 5, 10));
  }
}

/* Every value, every midpoint between neighbours and the doubles and floats on either side of it. */
static void test_against_reference_boundaries(void) {
  ref_ensure();
  long n = 0;
  for (size_t si = 0; si < NSPECS; ++si) {
    const ref_table *t = &tables[si];
    int fails = 0;
    for (int i = 0; i + 1 < t->n; ++i) {
      const double lo = t->v[i], hi = t->v[i + 1], mid = 0.5 * (lo + hi);
      const double mid_f = (double)(float)mid;
      const double probes[] = {lo,  mid, hi,  f64_from(f64_bits(mid) + 1), f64_from(f64_bits(mid) - 1),
                               mid_f, (double)f32_from(f32_bits((float)mid) + 1), (double)f32_from(f32_bits((float)mid) - 1)};
      for (size_t k = 0; k < sizeof probes / sizeof probes[0]; ++k) {
        for (int sign = 0; sign < 2; ++sign) {
          const double x = sign ? -probes[k] : probes[k];
          if (x == 0.0 && sign) continue;
          const uint32_t want = ref_encode(si, x);
          const uint32_t got = enc64(si, x);
          if (got != want && fails++ < 5)
            fprintf(stderr, "  %s: encode(%a) = 0x%x, reference 0x%x\n", fmt_of(si)->name, x, got, want);
          CHECK_EQ(got, want);
          if ((double)(float)x == x) CHECK_EQ(enc32(si, (float)x), want);
          ++n;
        }
      }
    }
  }
  CHECK(n > 1000000);
}

/* Random float32 and float64 inputs spread over each format's range and a little beyond. */
static void test_against_reference_random(void) {
  ref_ensure();
  for (size_t si = 0; si < NSPECS; ++si) {
    const ref_spec *s = &specs[si];
    const int emin = 1 - s->bias - s->mbits - 3;
    const int emax = (1 << s->ebits) - s->bias + 2;
    int fails = 0;
    for (int i = 0; i < 60000; ++i) {
      const uint64_t r = rng();
      const int e = emin + (int)(r % (uint64_t)(emax - emin + 1));
      /* a double with a random 52-bit mantissa, and its float32 rounding */
      const double x = f64_from(((uint64_t)(e + 1023) << 52) | (rng() >> 12)) * ((r >> 40) & 1 ? -1.0 : 1.0);
      const uint32_t want = ref_encode(si, x), got = enc64(si, x);
      if (got != want && fails++ < 5)
        fprintf(stderr, "  %s: encode(%a) = 0x%x, reference 0x%x\n", fmt_of(si)->name, x, got, want);
      CHECK_EQ(got, want);
      const float xf = (float)x;
      CHECK_EQ(enc32(si, xf), ref_encode(si, (double)xf));
    }
    /* and arbitrary float32 bit patterns: the whole range, subnormals, inf and NaN */
    for (int i = 0; i < 60000; ++i) {
      const float xf = f32_from((uint32_t)rng());
      const uint32_t got = enc32(si, xf);
      if (si == 0 && is_nan(xf)) continue; /* float16 NaN payloads: test_specials */
      CHECK_EQ(got, ref_encode(si, (double)xf));
    }
  }
}

typedef struct special_row {
  uint8_t code;
  uint32_t pos_zero, neg_zero, pos_nan, neg_nan, pos_inf, neg_inf, pos_big, neg_big, neg_tiny;
} special_row;

/* The documented special-value rules, spelled out per format (what ml_dtypes 0.6 produces). big = 1e30,
 * tiny = -(smallest subnormal / 2) (ties to zero). */
static void test_specials(void) {
  static const special_row rows[] = {
      {DLX_CODE_FLOAT, 0x0000, 0x8000, 0x7e00, 0xfe00, 0x7c00, 0xfc00, 0x7c00, 0xfc00, 0x8000},
      {DLX_CODE_BFLOAT, 0x0000, 0x8000, 0x7fc0, 0xffc0, 0x7f80, 0xff80, 0x714a, 0xf14a, 0x8000},
      {DLX_CODE_FLOAT8_E3M4, 0x00, 0x80, 0x78, 0xf8, 0x70, 0xf0, 0x70, 0xf0, 0x80},
      {DLX_CODE_FLOAT8_E4M3, 0x00, 0x80, 0x7c, 0xfc, 0x78, 0xf8, 0x78, 0xf8, 0x80},
      {DLX_CODE_FLOAT8_E4M3B11FNUZ, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
      {DLX_CODE_FLOAT8_E4M3FN, 0x00, 0x80, 0x7f, 0xff, 0x7f, 0xff, 0x7f, 0xff, 0x80},
      {DLX_CODE_FLOAT8_E4M3FNUZ, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
      {DLX_CODE_FLOAT8_E5M2, 0x00, 0x80, 0x7e, 0xfe, 0x7c, 0xfc, 0x7c, 0xfc, 0x80},
      {DLX_CODE_FLOAT8_E5M2FNUZ, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
      {DLX_CODE_FLOAT8_E8M0FNU, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xe3, 0xff, 0xff},
      {DLX_CODE_FLOAT6_E2M3FN, 0x00, 0x20, 0x20, 0x00, 0x1f, 0x3f, 0x1f, 0x3f, 0x20},
      {DLX_CODE_FLOAT6_E3M2FN, 0x00, 0x20, 0x20, 0x00, 0x1f, 0x3f, 0x1f, 0x3f, 0x20},
      {DLX_CODE_FLOAT4_E2M1FN, 0x0, 0x8, 0x8, 0x0, 0x7, 0xf, 0x7, 0xf, 0x8},
  };
  const double inf = f64_from(UINT64_C(0x7ff0000000000000)), nan = f64_from(UINT64_C(0x7ff8000000000000));
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
    const special_row *r = &rows[i];
    const dlx__cvt_format *f = dlx__cvt_format_of(r->code);
    /* smallest subnormal / 2, from the table of values (code 1) */
    const double tiny = -0.5 * dlx__cvt_narrow_decode(r->code, 1);
    const double in[] = {0.0, -0.0, nan, -nan, inf, -inf, 1e30, -1e30, tiny};
    const uint32_t want[] = {r->pos_zero, r->neg_zero, r->pos_nan, r->neg_nan, r->pos_inf,
                             r->neg_inf,  r->pos_big,  r->neg_big, r->neg_tiny};
    for (size_t k = 0; k < sizeof in / sizeof in[0]; ++k) {
      CHECK_EQ(dlx__cvt_encode_f64(f, in[k]), want[k]);
      CHECK_EQ(dlx__cvt_encode_f32(f, (float)in[k]), want[k]);
    }
  }
  /* float16 NaN payloads: NumPy's rule (keep the top 10 bits) with the quiet bit set, so that a signalling
   * NaN comes out quiet (NumPy gives 0x7c01, 0xfc01, 0x7d00, 0x7c01, 0x7d00 for these) */
  CHECK_EQ(dlx__cvt_f32_to_f16(f32_from(0x7f800001u)), 0x7e00);
  CHECK_EQ(dlx__cvt_f32_to_f16(f32_from(0xff802000u)), 0xfe01);
  CHECK_EQ(dlx__cvt_f32_to_f16(f32_from(0x7fa00000u)), 0x7f00);
  CHECK_EQ(dlx__cvt_f32_to_f16(f32_from(0x7fc02000u)), 0x7e01); /* a quiet NaN: NumPy's bits */
  CHECK_EQ(dlx__cvt_f32_to_f16(f32_from(0x7fffffffu)), 0x7fff);
  CHECK_EQ(dlx__cvt_f64_to_f16(f64_from(UINT64_C(0x7ff0000000000001))), 0x7e00);
  CHECK_EQ(dlx__cvt_f64_to_f16(f64_from(UINT64_C(0x7ff4000000000000))), 0x7f00);
  CHECK_EQ(dlx__cvt_encode_f32(dlx__cvt_format_of(DLX_CODE_FLOAT), f32_from(0x7f800001u)), 0x7e00);
  /* bfloat16 drops every payload for the one quiet NaN (ml_dtypes) */
  CHECK_EQ(dlx__cvt_f32_to_bf16(f32_from(0x7f800001u)), 0x7fc0);
  CHECK_EQ(dlx__cvt_f32_to_bf16(f32_from(0xffa00000u)), 0xffc0);
  CHECK_EQ(dlx__cvt_f64_to_bf16(f64_from(UINT64_C(0x7ff0000000000001))), 0x7fc0);
}

/* Rounding ties, subnormals and overflow edges, by hand. */
static void test_rounding_edges(void) {
  const uint8_t fn = DLX_CODE_FLOAT8_E4M3FN, e8 = DLX_CODE_FLOAT8_E8M0FNU;
  /* ties to even: 1 + 2^-4 sits between 1.0 (0x38) and 1.125 (0x39) */
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 1.0625), 0x38);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 1.1875), 0x3a);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 1.0625 + 0x1p-40), 0x39);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, -1.0625), 0xb8);
  /* e4m3fn: 464 ties between 448 (mantissa 110, even) and the NaN; above it overflows to NaN */
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 464.0), 0x7e);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 464.0 + 0x1p-30), 0x7f);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, -465.0), 0xff);
  /* subnormals: 2^-9 is the smallest; half of it ties to 0 (even), a hair more rounds up */
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 0x1p-9), 0x01);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 0x1p-10), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 0x1.000002p-10), 0x01);
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 3 * 0x1p-10), 0x02); /* 1.5 ulps ties to 2 */
  CHECK_EQ(dlx__cvt_narrow_encode(fn, 0x1.fp-7), 0x08);    /* rounds up into the smallest normal */
  /* fnuz: a negative value that underflows is +0, because 0x80 is the NaN */
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT8_E4M3FNUZ, -0x1p-12), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT8_E4M3FNUZ, -0x1p-10), 0x81);
  /* IEEE-like e5m2: the max is 57344; 61440 ties to even = inf */
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT8_E5M2, 61439.0), 0x7b);
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT8_E5M2, 61440.0), 0x7c);
  /* e8m0fnu: ties (1.5 * 2^k) round up; 0x00 is 2^-127 and everything below rounds there */
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 1.0), 0x7f);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 1.5), 0x80);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 1.4999999), 0x7f);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 3.0), 0x81);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1p-127), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1p-140), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1p-1074), 0x00);
  /* issue 20: (2^-127, 1.5 * 2^-127) is nearer 2^-127 (ml_dtypes rounds it to 2^-126, as if 0x00 were 0) */
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1.2p-127), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1.7ffffffffffffp-127), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1.8p-127), 0x01); /* the tie rounds up */
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1.000001p-127), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode_f32(e8, 0x1.2p-127f), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode_f32(e8, 0x1.8p-127f), 0x01);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1.8p-128), 0x00);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1p127), 0xfe);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1.7p127), 0xfe);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, 0x1.8p127), 0xff);
  CHECK_EQ(dlx__cvt_narrow_encode(e8, -1e-30), 0xff);
  CHECK(dlx__cvt_narrow_decode(e8, 0x00) == 0x1p-127);
  CHECK_EQ(f32_bits(dlx__cvt_decode_table(e8)[0]), 0x00400000u); /* a float32 subnormal */
  /* fp6/fp4 saturate */
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT4_E2M1FN, 7.0), 0x7);
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT4_E2M1FN, -1e300), 0xf);
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT4_E2M1FN, 2.5), 0x4);  /* tie -> 2.0 (even) */
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT4_E2M1FN, 3.5), 0x6);  /* tie -> 4.0 */
  /* float16: overflow edge, subnormal edge */
  CHECK_EQ(dlx__cvt_f32_to_f16(65519.996f), 0x7bff);
  CHECK_EQ(dlx__cvt_f32_to_f16(65520.0f), 0x7c00);
  CHECK_EQ(dlx__cvt_f32_to_f16(0x1p-25f), 0x0000);
  CHECK_EQ(dlx__cvt_f32_to_f16(0x1.000002p-25f), 0x0001);
  CHECK_EQ(dlx__cvt_f32_to_f16(-0x1.8p-24f), 0x8002);
  CHECK_EQ(dlx__cvt_f32_to_f16(0x1p-149f), 0x0000);
  CHECK_EQ(dlx__cvt_f64_to_f16(65520.0), 0x7c00);
  CHECK_EQ(dlx__cvt_f64_to_f16(0x1p-1074), 0x0000);
  /* float64 sources round once: 1 + 2^-8 + 2^-40 is above the bfloat16 tie, though its float32 is on it */
  CHECK_EQ(dlx__cvt_f64_to_bf16(1.0 + 0x1p-8 + 0x1p-40), 0x3f81);
  CHECK_EQ(dlx__cvt_f32_to_bf16((float)(1.0 + 0x1p-8 + 0x1p-40)), 0x3f80);
  CHECK_EQ(dlx__cvt_f64_to_f16(1.0 + 0x1p-11 + 0x1p-40), 0x3c01);
  CHECK_EQ(dlx__cvt_narrow_encode(DLX_CODE_FLOAT8_E5M2, 1.0 + 0x1p-3 + 0x1p-40), 0x3d);
  CHECK_EQ(dlx__cvt_narrow_encode_f32(DLX_CODE_FLOAT8_E5M2, (float)(1.0 + 0x1p-3 + 0x1p-40)), 0x3c);
  /* bfloat16: RNE near the top, overflow to inf, subnormals kept */
  CHECK_EQ(dlx__cvt_f32_to_bf16(f32_from(0x7f7fffffu)), 0x7f80);
  CHECK_EQ(dlx__cvt_f32_to_bf16(f32_from(0x7f7f7fffu)), 0x7f7f);
  CHECK_EQ(dlx__cvt_f32_to_bf16(f32_from(0x00008000u)), 0x0000);
  CHECK_EQ(dlx__cvt_f32_to_bf16(f32_from(0x00018000u)), 0x0002);
  CHECK_EQ(dlx__cvt_f64_to_bf16(1e39), 0x7f80);
}

static void test_packed(void) {
  for (unsigned bits = 4; bits <= 6; bits += 2) {
    enum { N = 37 };
    const size_t bytes = (N * bits + 7) / 8;
    unsigned char *buf = malloc(bytes); /* exact size: ASan catches a read or write past the end */
    uint32_t model[N];
    memset(buf, 0xa5, bytes);
    for (size_t i = 0; i < N; ++i) model[i] = dlx__cvt_packed_get(buf, i, bits);
    for (int round = 0; round < 2000; ++round) {
      const size_t i = (size_t)(rng() % N);
      const uint32_t v = (uint32_t)rng();
      dlx__cvt_packed_set(buf, i, bits, v); /* bits above the width are ignored */
      model[i] = v & ((1u << bits) - 1u);
      for (size_t j = 0; j < N; ++j) CHECK_EQ(dlx__cvt_packed_get(buf, j, bits), model[j]);
    }
    /* the layout: element i at bits [i*bits, (i+1)*bits), least significant first */
    memset(buf, 0, bytes);
    dlx__cvt_packed_set(buf, 1, bits, (1u << bits) - 1u);
    if (bits == 4) CHECK_EQ(buf[0], 0xf0);
    if (bits == 6) {
      CHECK_EQ(buf[0], 0xc0);
      CHECK_EQ(buf[1], 0x0f);
      CHECK_EQ(buf[2], 0x00);
    }
    free(buf);
  }
  /* DLPack's example: element i of word D is (D >> (i*bits)) & mask */
  const unsigned char word[3] = {0x21, 0x43, 0x65};
  for (unsigned i = 0; i < 6; ++i) CHECK_EQ(dlx__cvt_packed_get(word, i, 4), (0x654321u >> (4 * i)) & 0xf);
  for (unsigned i = 0; i < 4; ++i) CHECK_EQ(dlx__cvt_packed_get(word, i, 6), (0x654321u >> (6 * i)) & 0x3f);
}

static void test_int_and_bool(void) {
  const double inf = f64_from(UINT64_C(0x7ff0000000000000)), nan = f64_from(UINT64_C(0x7ff8000000000000));
  CHECK_EQ(dlx__cvt_f64_to_int(nan, INT8_MIN, INT8_MAX), 0);
  CHECK_EQ(dlx__cvt_f64_to_int(-nan, INT64_MIN, INT64_MAX), 0);
  CHECK_EQ(dlx__cvt_f64_to_int(inf, INT8_MIN, INT8_MAX), 127);
  CHECK_EQ(dlx__cvt_f64_to_int(-inf, INT8_MIN, INT8_MAX), -128);
  CHECK_EQ(dlx__cvt_f64_to_int(127.99, INT8_MIN, INT8_MAX), 127);
  CHECK_EQ(dlx__cvt_f64_to_int(128.0, INT8_MIN, INT8_MAX), 127);
  CHECK_EQ(dlx__cvt_f64_to_int(-128.99, INT8_MIN, INT8_MAX), -128);
  CHECK_EQ(dlx__cvt_f64_to_int(-129.0, INT8_MIN, INT8_MAX), -128);
  CHECK_EQ(dlx__cvt_f64_to_int(-2.7, INT8_MIN, INT8_MAX), -2);
  CHECK_EQ(dlx__cvt_f64_to_int(2.7, INT32_MIN, INT32_MAX), 2);
  CHECK_EQ(dlx__cvt_f64_to_int(-0.5, INT32_MIN, INT32_MAX), 0);
  CHECK_EQ(dlx__cvt_f64_to_int(3e9, INT32_MIN, INT32_MAX), INT32_MAX);
  CHECK_EQ(dlx__cvt_f64_to_int(-2147483648.9, INT32_MIN, INT32_MAX), INT32_MIN);
  CHECK_EQ(dlx__cvt_f64_to_int(0x1p63, INT64_MIN, INT64_MAX), INT64_MAX);
  CHECK_EQ(dlx__cvt_f64_to_int(-0x1p63, INT64_MIN, INT64_MAX), INT64_MIN);
  CHECK_EQ(dlx__cvt_f64_to_int(-0x1p64, INT64_MIN, INT64_MAX), INT64_MIN);
  CHECK_EQ(dlx__cvt_f64_to_int(0x1.fffffffffffffp62, INT64_MIN, INT64_MAX), (int64_t)0x7ffffffffffffc00);
  CHECK(dlx__cvt_f64_to_uint(nan, UINT8_MAX) == 0);
  CHECK(dlx__cvt_f64_to_uint(-0.99, UINT8_MAX) == 0);
  CHECK(dlx__cvt_f64_to_uint(-1.0, UINT8_MAX) == 0);
  CHECK(dlx__cvt_f64_to_uint(-inf, UINT64_MAX) == 0);
  CHECK(dlx__cvt_f64_to_uint(255.9, UINT8_MAX) == 255);
  CHECK(dlx__cvt_f64_to_uint(256.0, UINT8_MAX) == 255);
  CHECK(dlx__cvt_f64_to_uint(inf, UINT16_MAX) == 65535);
  CHECK(dlx__cvt_f64_to_uint(0x1p64, UINT64_MAX) == UINT64_MAX);
  CHECK(dlx__cvt_f64_to_uint(0x1.fffffffffffffp63, UINT64_MAX) == UINT64_C(0xfffffffffffff800));
  CHECK(dlx__cvt_f64_to_uint(0x1p63, UINT64_MAX) == UINT64_C(0x8000000000000000));
  CHECK(dlx__cvt_f64_to_bool(nan));
  CHECK(dlx__cvt_f64_to_bool(-1e-300));
  CHECK(!dlx__cvt_f64_to_bool(0.0));
  CHECK(!dlx__cvt_f64_to_bool(-0.0));
  /* integers into narrow formats: through float32 (ml_dtypes' route) or rounded once through double */
  const int64_t big = (INT64_C(1) << 30) + (INT64_C(1) << 22) + 1;
  CHECK_EQ(dlx__cvt_encode_f32(dlx__cvt_format_of(DLX_CODE_BFLOAT), (float)big), 0x4e80);
  CHECK_EQ(dlx__cvt_encode_f64(dlx__cvt_format_of(DLX_CODE_BFLOAT), (double)big), 0x4e81);
  /* narrow formats through bool: a NaN code is true, a zero (either sign) false */
  CHECK(dlx__cvt_f64_to_bool(dlx__cvt_narrow_decode(DLX_CODE_FLOAT8_E4M3FNUZ, 0x80)));
  CHECK(!dlx__cvt_f64_to_bool(dlx__cvt_narrow_decode(DLX_CODE_FLOAT6_E2M3FN, 0x20)));
}

/* The first use of the decode tables, from many threads at once, gives every thread the same table. */
static void *table_thread(void *arg) {
  const float *t = dlx__cvt_decode_table((uint8_t)(DLX_CODE_FLOAT8_E3M4 + (uintptr_t)arg % 11));
  return (void *)(uintptr_t)(t != NULL && t[1] > 0.0f);
}
static void test_tables_thread_safe_first_use(void) {
  pthread_t th[8];
  for (uintptr_t i = 0; i < 8; ++i) CHECK_EQ(pthread_create(&th[i], NULL, table_thread, (void *)i), 0);
  for (int i = 0; i < 8; ++i) {
    void *ret = NULL;
    pthread_join(th[i], &ret);
    CHECK(ret == (void *)1);
  }
  CHECK(dlx__cvt_decode_table(DLX_CODE_FLOAT8_E4M3FN)[0x38] == 1.0f);
  CHECK(dlx__cvt_decode_table(DLX_CODE_FLOAT4_E2M1FN)[0x7] == 6.0f);
  CHECK(dlx__cvt_decode_table(DLX_CODE_FLOAT4_E2M1FN)[0x17] == 6.0f);
}

/* Flush-to-zero / denormals-are-zero modes (set by -ffast-math libraries loaded into Python) must not
 * change any result: the codec works on integers, and float32 subnormals never pass through the FPU. */
static void test_ftz_daz_modes(void) {
#ifdef HAVE_MXCSR
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u); /* FTZ (bit 15) | DAZ (bit 6) */
  volatile uint16_t bf_sub = 0x0001, h_sub = 0x0001;
  volatile uint32_t f_sub = 0x00018000u, f_tiny = 0x33000001u, f_e8 = 0x00400000u;
  const uint8_t e8 = DLX_CODE_FLOAT8_E8M0FNU;
  const uint64_t bf_sub_f64 = f64_bits(dlx__cvt_bf16_to_f64(bf_sub));
  const uint32_t bf_sub_f32 = f32_bits(dlx__cvt_bf16_to_f32(bf_sub));
  const uint32_t h_sub_f32 = f32_bits(dlx__cvt_f16_to_f32(h_sub));
  const uint32_t bf_from_sub = dlx__cvt_f32_to_bf16(f32_from(f_sub));
  const uint32_t h_from_tiny = dlx__cvt_f32_to_f16(f32_from(f_tiny));
  const uint32_t e8_from_sub = dlx__cvt_narrow_encode_f32(e8, f32_from(f_e8));
  const uint32_t e8_table0 = f32_bits(dlx__cvt_decode_table(e8)[0]);
  const uint64_t e8_dec0 = f64_bits(dlx__cvt_narrow_decode(e8, 0));
  const uint32_t bf_gen = f32_bits(dlx__cvt_decode_f32(dlx__cvt_format_of(DLX_CODE_BFLOAT), bf_sub));
  _mm_setcsr(saved);
  CHECK_EQ(bf_sub_f64, UINT64_C(0x37a0000000000000)); /* 2^-133 */
  CHECK_EQ(bf_sub_f32, 0x00010000u);
  CHECK_EQ(h_sub_f32, 0x33800000u); /* 2^-24 */
  CHECK_EQ(bf_from_sub, 0x0002);
  CHECK_EQ(h_from_tiny, 0x0001);
  CHECK_EQ(e8_from_sub, 0x00);
  CHECK_EQ(e8_table0, 0x00400000u);
  CHECK_EQ(e8_dec0, UINT64_C(0x3800000000000000)); /* 2^-127 */
  CHECK_EQ(bf_gen, 0x00010000u);
#endif
}

static void test_reference_setup(void) {
  ref_ensure();
  /* sanity of the reference itself: finite value counts per format */
  CHECK_EQ(tables[0].n, 0x7c00 + 1);                        /* float16: 0..0x7bff + virtual */
  CHECK_EQ(tables[5].n, 127 + 1);                           /* e4m3fn: 0..0x7e + virtual */
  CHECK_EQ(tables[9].n, 255 + 1);                           /* e8m0fnu: 0x00..0xfe + virtual */
  CHECK(tables[9].v[tables[9].n - 1] == 0x1p128);           /* e8m0fnu's overflow step */
  CHECK(tables[5].v[tables[5].n - 1] == 480.0);             /* e4m3fn: one step past 448 */
}

static const dlx_test_case cases[] = {
    /* first: the tables' first use happens here, from several threads */
    {"tables_thread_safe_first_use", test_tables_thread_safe_first_use},
    {"reference_setup", test_reference_setup},
    {"descriptors", test_descriptors},
    {"small_exhaustive_round_trip", test_small_exhaustive_round_trip},
    {"16bit_exhaustive", test_16bit_exhaustive},
    {"no_signalling_nan_out", test_no_signalling_nan_out},
    {"against_reference_boundaries", test_against_reference_boundaries},
    {"against_reference_random", test_against_reference_random},
    {"specials", test_specials},
    {"rounding_edges", test_rounding_edges},
    {"packed", test_packed},
    {"int_and_bool", test_int_and_bool},
    {"ftz_daz_modes", test_ftz_daz_modes},
};
DLX_TEST_MAIN(cases)
