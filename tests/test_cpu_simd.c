/* Tests for the CPU backend's instruction-set levels (src/backends/cpu/dispatch.c, target.h) and the
 * vectorised narrow-float codec (loops_narrow_body.h): at every level this machine runs, every encoder
 * and decoder loop against convert.h's scalar codec, bit for bit.
 *  - encoders (float32 -> each format): every float32 input class, both signs: zeros, float32 subnormals,
 *    every code's value and its neighbours one bit away, every rounding midpoint between neighbouring
 *    codes (and one and two bits either side), the overflow threshold, inf, NaNs with quiet and
 *    signalling payloads; then a sweep of random float32 bit patterns;
 *  - decoders: every code (all 256 byte values of the 8/6/4-bit formats, all 65536 of the 16-bit ones),
 *    NaN bits included; float64 decoders and encoders and negation on the codes likewise;
 *  - every loop path: contiguous rows at every alignment and a tail of every length, strided and
 *    reversed rows, broadcast (stride 0) inputs;
 *  - under FTZ/DAZ and each rounding mode (x86 MXCSR): the codec's results may not depend on them;
 *  - no contraction: float32 fma and complex products round twice at every level;
 *  - sin, cos and the logarithms in float32: the loops' first try per block (loops.h) against the rules,
 *    on blocks that take each of its paths, and the try rules against the full ones on random inputs;
 *  - the binary loops with fast paths of their own (float32 remainder and floor_divide through double,
 *    int32 power a vector of lanes at a time) against expr.h's rules, bit for bit, on the inputs at the
 *    edges of those paths, in every layout (in place included);
 *  - dispatch: names, refusals, DLX_CPU_FEATURES and the fall-back to what the machine runs.
 * With DLX_CPU_FEATURES set (the per-level CTest entries) only that level is tested; otherwise every level
 * the machine runs, and the ones it cannot are reported as skipped. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdbool.h>

#include "runner.h"

#include "backends/cpu/loops.h"
#include "kernels/convert.h"
#include "kernels/expr.h"
#include "dlx/ops.h"

#if defined(__x86_64__) || defined(__SSE2__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

static const char *const level_names[] = {"baseline", "avx2", "avx512"};
#define NLEVELS 3

#define DLX_TEST_RNG_SEED 0x2545f4914f6cdd1du
#include "rng.h"

static uint32_t bits_of(float f) { return dlx__cvt_f32_bits(f); }
static float float_of(uint32_t u) { return dlx__cvt_f32_from_bits(u); }

/* The DLPack codes of the narrow formats, in dlx__kd_narrow_index order. */
static uint8_t code_at(int i) { return dlx__kd_narrow_code((dlx__kd)(DLX_KD_F16 + i)); }

/* ---- the levels to test --------------------------------------------------------------------------- */

/* Calls fn once per level under test, with that level running. */
static void for_each_level(void (*fn)(const char *level)) {
  const char *only = getenv("DLX_CPU_FEATURES");
  for (int l = 0; l < NLEVELS; ++l) {
    if (only != NULL && only[0] != '\0' && strcmp(only, level_names[l]) != 0) continue;
    if (!dlx__cpu_variant_supported(level_names[l])) {
      CHECK_EQ(dlx__cpu_force_variant(level_names[l]), DLX_ERR_UNSUPPORTED);
      printf("     %s: skipped: %s\n", level_names[l], dlx_last_error());
      continue;
    }
    CHECK_OK(dlx__cpu_force_variant(level_names[l]));
    CHECK_STR(dlx__cpu_variant(), level_names[l]);
    fn(level_names[l]);
  }
  CHECK_OK(dlx__cpu_force_variant(NULL));
}

/* ---- running one loop over a layout ----------------------------------------------------------------- */

/* The loop layouts: contiguous at an element offset (alignment) and a length (tail), strided, reversed,
 * broadcast input. */
typedef enum { L_CONTIGUOUS, L_STRIDED, L_REVERSED, L_BROADCAST, L_COUNT } layout;

/* out[i] = fn(in[i]) for i < n through `fn` with the layout's strides, where in/out hold n elements of
 * isz/osz bytes compactly; checks each output element against want(in element) (bytes). */
typedef void (*elem_ref)(const unsigned char *in, unsigned char *want, uint8_t code);

static int run_and_compare(dlx__loop_fn fn, layout lay, int offset, const unsigned char *in, size_t isz, size_t osz,
                           int64_t n, elem_ref ref, uint8_t code, const char *what, const char *level) {
  /* room for a 3x stride and offsets, 64-byte aligned bases */
  const size_t cap = (size_t)(n + 8) * 3;
  unsigned char *ib = aligned_alloc(64, (cap * isz + 63) & ~(size_t)63);
  unsigned char *ob = aligned_alloc(64, (cap * osz + 63) & ~(size_t)63);
  memset(ob, 0xA5, cap * osz);
  int64_t si = (int64_t)isz, so = (int64_t)osz;
  char *pi = (char *)ib + (size_t)offset * isz, *po = (char *)ob + (size_t)(offset / 2) * osz;
  switch (lay) {
    case L_CONTIGUOUS:
      memcpy(pi, in, (size_t)n * isz);
      break;
    case L_STRIDED:
      si = 3 * (int64_t)isz;
      so = 2 * (int64_t)osz;
      for (int64_t i = 0; i < n; ++i) memcpy(pi + i * si, in + i * isz, isz);
      break;
    case L_REVERSED:
      si = -(int64_t)isz;
      so = -(int64_t)osz;
      pi += (size_t)(n - 1) * isz;
      po += (size_t)(n - 1) * osz;
      for (int64_t i = 0; i < n; ++i) memcpy(pi + i * si, in + i * isz, isz);
      break;
    default: /* broadcast: in[0] everywhere */
      si = 0;
      memcpy(pi, in, isz);
      break;
  }
  char *d[2] = {po, pi};
  const int64_t st[2] = {so, si};
  fn(d, st, n, NULL);
  int bad = 0;
  unsigned char want[8];
  for (int64_t i = 0; i < n; ++i) {
    const unsigned char *x = lay == L_BROADCAST ? in : in + i * isz;
    ref(x, want, code);
    if (memcmp(po + i * so, want, osz) != 0 && bad++ < 3) {
      uint64_t got = 0, exp = 0, xin = 0;
      memcpy(&got, po + i * so, osz);
      memcpy(&exp, want, osz);
      memcpy(&xin, x, isz);
      fprintf(stderr, "    %s, %s, layout %d offset %d n %lld: element %lld input 0x%llx gives 0x%llx, expected 0x%llx\n",
              level, what, (int)lay, offset, (long long)n, (long long)i, (unsigned long long)xin,
              (unsigned long long)got, (unsigned long long)exp);
    }
  }
  CHECK_EQ(bad, 0);
  free(ib);
  free(ob);
  return bad;
}

/* Runs a loop over a whole input set in every layout: contiguous at offsets 0..3 and with lengths that
 * leave every tail, strided, reversed, and a broadcast of a few single elements. */
static void run_all_layouts(dlx__loop_fn fn, const unsigned char *in, size_t isz, size_t osz, int64_t n, elem_ref ref,
                            uint8_t code, const char *what, const char *level) {
  for (int off = 0; off < 4; ++off)
    if (run_and_compare(fn, L_CONTIGUOUS, off, in, isz, osz, n, ref, code, what, level)) return;
  for (int64_t len = 1; len <= 40 && len <= n; ++len)
    if (run_and_compare(fn, L_CONTIGUOUS, (int)(len % 3), in + (size_t)(n - len) * isz, isz, osz, len, ref, code, what,
                        level))
      return;
  if (run_and_compare(fn, L_STRIDED, 1, in, isz, osz, n, ref, code, what, level)) return;
  if (run_and_compare(fn, L_REVERSED, 0, in, isz, osz, n, ref, code, what, level)) return;
  for (int k = 0; k < 8; ++k) {
    const int64_t at = (int64_t)(rnd() % (uint64_t)n);
    if (run_and_compare(fn, L_BROADCAST, 0, in + (size_t)at * isz, isz, osz, 37, ref, code, what, level)) return;
  }
}

/* ---- scalar references ------------------------------------------------------------------------------ */

static void ref_enc32(const unsigned char *in, unsigned char *want, uint8_t code) {
  float x;
  memcpy(&x, in, 4);
  const dlx__cvt_format *f = dlx__cvt_format_of(code);
  const uint32_t c = dlx__cvt_encode_f32(f, x);
  if (f->bits == 16) {
    const uint16_t h = (uint16_t)c;
    memcpy(want, &h, 2);
  } else {
    want[0] = (uint8_t)c;
  }
}
static void ref_dec32(const unsigned char *in, unsigned char *want, uint8_t code) {
  const dlx__cvt_format *f = dlx__cvt_format_of(code);
  uint32_t c = in[0];
  if (f->bits == 16) {
    uint16_t h;
    memcpy(&h, in, 2);
    c = h;
  }
  const float v = dlx__cvt_decode_f32(f, c);
  memcpy(want, &v, 4);
}
static void ref_enc64(const unsigned char *in, unsigned char *want, uint8_t code) {
  double x;
  memcpy(&x, in, 8);
  const dlx__cvt_format *f = dlx__cvt_format_of(code);
  const uint32_t c = dlx__cvt_encode_f64(f, x);
  if (f->bits == 16) {
    const uint16_t h = (uint16_t)c;
    memcpy(want, &h, 2);
  } else {
    want[0] = (uint8_t)c;
  }
}
static void ref_dec64(const unsigned char *in, unsigned char *want, uint8_t code) {
  const dlx__cvt_format *f = dlx__cvt_format_of(code);
  uint32_t c = in[0];
  if (f->bits == 16) {
    uint16_t h;
    memcpy(&h, in, 2);
    c = h;
  }
  /* float16 and bfloat16 keep their documented NaN rules through the fast functions */
  const double v = code == DLX_CODE_FLOAT    ? dlx__cvt_f16_to_f64((uint16_t)c)
                   : code == DLX_CODE_BFLOAT ? dlx__cvt_bf16_to_f64((uint16_t)c)
                                             : dlx__cvt_decode_f64(f, c);
  memcpy(want, &v, 8);
}
static void ref_neg(const unsigned char *in, unsigned char *want, uint8_t code) {
  const dlx__cvt_format *f = dlx__cvt_format_of(code);
  if (f->bits == 16) {
    uint16_t h;
    memcpy(&h, in, 2);
    h = (uint16_t)dlx__cvt_negate(f, h);
    memcpy(want, &h, 2);
  } else {
    want[0] = (uint8_t)dlx__cvt_negate(f, in[0]);
  }
}

/* ---- input sets -------------------------------------------------------------------------------------- */

typedef struct fbuf {
  float *v;
  int64_t n, cap;
} fbuf;

static void push(fbuf *b, uint32_t bits) {
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 4096;
    b->v = realloc(b->v, (size_t)b->cap * sizeof(float));
  }
  b->v[b->n++] = float_of(bits);
}
/* bits, its neighbours up to two steps away, with both signs */
static void push_around(fbuf *b, uint32_t bits, int reach) {
  for (int dlt = -reach; dlt <= reach; ++dlt) {
    const uint32_t u = (uint32_t)((int64_t)(bits & 0x7fffffffu) + dlt);
    if (u > 0x7fffffffu) continue;
    push(b, u);
    push(b, u | 0x80000000u);
  }
}

/* Every float32 input class for format f: see the file comment. */
static void boundary_inputs(const dlx__cvt_format *f, fbuf *b) {
  b->n = 0;
  static const uint32_t specials[] = {
      0x00000000u, 0x00000001u, 0x00000002u, 0x000003ffu, 0x00200000u, 0x003fffffu, 0x00400000u, 0x00400001u,
      0x007fffffu, 0x00800000u, 0x00800001u, 0x33000000u, 0x33000001u, 0x3f800000u, 0x7f7fffffu, 0x7f800000u,
      /* NaNs: quiet, signalling, payloads in and below float16's kept bits, the largest */
      0x7fc00000u, 0x7fc00001u, 0x7fe00000u, 0x7f800001u, 0x7f801fffu, 0x7f802000u, 0x7fa00000u, 0x7fbfffffu,
      0x7fffffffu, 0x7f9ff000u};
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i) push_around(b, specials[i], 0);
  const uint32_t ncodes = 1u << f->bits;
  float prev = 0.0f;
  bool have_prev = false;
  /* the positive finite codes in increasing order: magnitude codes 0 .. max_finite */
  for (uint32_t c = 0; c <= f->max_finite && c < ncodes; ++c) {
    if (f->sign_bit == 0 && c == 0xff) break;
    const float v = dlx__cvt_decode_f32(f, c);
    if (v != v) continue; /* NaN codes inside the range (none, but be safe) */
    push_around(b, bits_of(v), 1);
    if (have_prev && v > prev) {
      /* the midpoint is exactly representable in float32 for every format (at most 12 significant bits,
       * or a float32 subnormal for bfloat16's subnormals) */
      const float mid = (float)(((double)prev + (double)v) / 2.0);
      push_around(b, bits_of(mid), 2);
    }
    prev = v;
    have_prev = true;
  }
  /* past max finite: half a step above it is the overflow threshold */
  const float maxv = dlx__cvt_decode_f32(f, f->max_finite);
  const float below = dlx__cvt_decode_f32(f, f->max_finite - 1);
  push_around(b, bits_of((float)((double)maxv + ((double)maxv - (double)below) / 2.0)), 2);
  push_around(b, bits_of(maxv * 2.0f), 1);
  /* below the smallest value: half of it, a quarter */
  const float tiny = dlx__cvt_decode_f32(f, f->has_zero ? 1u : 0u);
  push_around(b, bits_of(tiny / 2.0f), 2);
  push_around(b, bits_of(tiny / 4.0f), 1);
}

static void random_inputs(fbuf *b, int64_t n) {
  b->n = 0;
  for (int64_t i = 0; i < n; ++i) push(b, (uint32_t)rnd());
}

/* ---- the codec at one level ------------------------------------------------------------------------- */

static int64_t g_random_count = 1 << 17;

static void codec_at_level(const char *level) {
  const dlx__cpu_narrow_loops *nar = dlx__cpu_kernels()->narrow;
  fbuf in = {0};
  for (int k = 0; k < DLX_KD_NARROW_COUNT; ++k) {
    const uint8_t code = code_at(k);
    const dlx__cvt_format *f = dlx__cvt_format_of(code);
    const size_t csz = f->bits == 16 ? 2 : 1;
    char what[64];
    /* encoders from float32 */
    snprintf(what, sizeof what, "float32 -> %s", f->name);
    boundary_inputs(f, &in);
    run_all_layouts(nar->enc32[k], (const unsigned char *)in.v, 4, csz, in.n, ref_enc32, code, what, level);
    random_inputs(&in, g_random_count);
    run_and_compare(nar->enc32[k], L_CONTIGUOUS, 1, (const unsigned char *)in.v, 4, csz, in.n, ref_enc32, code, what,
                    level);
    /* decoders: every code (the 8/6/4-bit formats: every byte, bits above the format ignored) */
    const int64_t ncodes = csz == 2 ? 65536 : 256;
    unsigned char *codes = malloc((size_t)ncodes * csz);
    for (int64_t c = 0; c < ncodes; ++c) {
      if (csz == 2) {
        const uint16_t h = (uint16_t)c;
        memcpy(codes + c * 2, &h, 2);
      } else {
        codes[c] = (unsigned char)c;
      }
    }
    snprintf(what, sizeof what, "%s -> float32", f->name);
    run_all_layouts(nar->dec32[k], codes, csz, 4, ncodes, ref_dec32, code, what, level);
    snprintf(what, sizeof what, "%s -> float64", f->name);
    run_all_layouts(nar->dec64[k], codes, csz, 8, ncodes, ref_dec64, code, what, level);
    snprintf(what, sizeof what, "-%s", f->name);
    run_all_layouts(nar->unary[DLX_UNOP_NEG][k], codes, csz, csz, ncodes, ref_neg, code, what, level);
    free(codes);
    /* float64 encoders: the float32 boundary set widened, and random doubles near the format's range */
    boundary_inputs(f, &in);
    double *dv = malloc((size_t)(in.n + 4096) * sizeof(double));
    for (int64_t i = 0; i < in.n; ++i) dv[i] = (double)in.v[i];
    for (int64_t i = 0; i < 4096; ++i) {
      const uint64_t u = rnd();
      /* exponents within +-64 of 1.0 keep most of them in the format's neighbourhood */
      dv[in.n + i] = dlx__cvt_f64_from_bits((u & UINT64_C(0x800fffffffffffff)) |
                                            ((uint64_t)(1023 - 64 + (int)((u >> 52) & 127)) << 52));
    }
    snprintf(what, sizeof what, "float64 -> %s", f->name);
    run_all_layouts(nar->enc64[k], (const unsigned char *)dv, 8, csz, in.n + 4096, ref_enc64, code, what, level);
    free(dv);
  }
  free(in.v);
}

static void test_codec_every_level(void) { for_each_level(codec_at_level); }

/* ---- FPU modes ------------------------------------------------------------------------------------ */

#ifdef HAVE_MXCSR
static void codec_modes_at_level(const char *level) {
  const unsigned saved = _mm_getcsr();
  /* FTZ | DAZ with each rounding mode (RC bits 13-14: nearest, down, up, toward zero) */
  static const unsigned modes[] = {0x8040u, 0x8040u | 0x2000u, 0x8040u | 0x4000u, 0x8040u | 0x6000u, 0x6000u};
  const int64_t keep = g_random_count;
  g_random_count = 1 << 12;
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; ++m) {
    _mm_setcsr((saved & ~0xe040u) | modes[m]);
    codec_at_level(level);
    _mm_setcsr(saved);
  }
  g_random_count = keep;
}
#endif

static void test_codec_fpu_modes(void) {
#ifdef HAVE_MXCSR
  for_each_level(codec_modes_at_level);
#endif
}

/* ---- casts through the public API, whole pipeline ---------------------------------------------------- */

/* dlx_cast float32 <-> every format (padded float6/float4) on an odd length, against the scalar codec: the
 * op layer's loop selection and the executor's threads around the same loops. */
static void casts_at_level(const char *level) {
  enum { N = 10007 };
  float *f = malloc(N * sizeof(float)), *back = malloc(N * sizeof(float));
  uint16_t *codes = malloc(N * sizeof(uint16_t));
  for (int i = 0; i < N; ++i) f[i] = (i % 5 == 0) ? float_of((uint32_t)rnd()) : (float)((int)(rnd() % 2001) - 1000) / 64.0f;
  const DLDevice cpu = {kDLCPU, 0};
  const int64_t n = N;
  for (int k = 0; k < DLX_KD_NARROW_COUNT; ++k) {
    const uint8_t code = code_at(k);
    const dlx__cvt_format *fm = dlx__cvt_format_of(code);
    const DLDataType dt = {code, (uint8_t)fm->bits, 1};
    dlx_view vf, vc, vb;
    CHECK_OK(dlx_view_init(&vf, f, DLX_DTYPE_FLOAT32, cpu, 1, &n, NULL));
    CHECK_OK(dlx_view_init(&vc, codes, dt, cpu, 1, &n, NULL));
    CHECK_OK(dlx_view_init(&vb, back, DLX_DTYPE_FLOAT32, cpu, 1, &n, NULL));
    if (fm->bits < 8) vc.flags |= DLX_VIEW_SUBBYTE_PADDED;
    for (int threads = 1; threads <= 2; ++threads) {
      dlx_set_num_threads(threads);
      const int64_t g = dlx__ops_set_grain(threads == 2 ? 1000 : 0);
      CHECK_OK(dlx_cast(&vc, &vf));
      CHECK_OK(dlx_cast(&vb, &vc));
      dlx__ops_set_grain(g);
      int bad = 0;
      for (int i = 0; i < N; ++i) {
        const uint32_t want = dlx__cvt_encode_f32(fm, f[i]);
        const uint32_t got = fm->bits == 16 ? codes[i] : ((const uint8_t *)codes)[i];
        const uint32_t back_want = bits_of(dlx__cvt_decode_f32(fm, want));
        if ((got != want || bits_of(back[i]) != back_want) && bad++ < 3)
          fprintf(stderr, "    %s, %s, %d threads: 0x%08x -> 0x%x (want 0x%x) -> 0x%08x (want 0x%08x)\n", level, fm->name,
                  threads, (unsigned)bits_of(f[i]), (unsigned)got, (unsigned)want, (unsigned)bits_of(back[i]),
                  (unsigned)back_want);
      }
      CHECK_EQ(bad, 0);
    }
    dlx_set_num_threads(0);
  }
  free(f);
  free(back);
  free(codes);
}

static void test_casts_every_level(void) { for_each_level(casts_at_level); }

/* Packed float6/float4 (the backend's unpack and pack around the padded loops): every length up to a few
 * byte groups and a long odd one, contiguous, into a buffer whose bytes past the view must survive, and
 * every other element (the bit-position walk); against the scalar codec and the packed-storage rules. */
static void packed_at_level(const char *level) {
  static const uint8_t packed_codes[] = {DLX_CODE_FLOAT6_E2M3FN, DLX_CODE_FLOAT6_E3M2FN, DLX_CODE_FLOAT4_E2M1FN};
  enum { MAXN = 1001 };
  const DLDevice cpu = {kDLCPU, 0};
  float *f = malloc(2 * MAXN * sizeof(float)), *back = malloc(2 * MAXN * sizeof(float));
  unsigned char *buf = malloc(2 * MAXN), *want = malloc(2 * MAXN);
  for (int i = 0; i < 2 * MAXN; ++i) f[i] = (float)((int)(rnd() % 129) - 64) / 8.0f;
  for (size_t c = 0; c < sizeof packed_codes; ++c) {
    const dlx__cvt_format *fm = dlx__cvt_format_of(packed_codes[c]);
    const DLDataType dt = {packed_codes[c], (uint8_t)fm->bits, 1};
    for (int64_t n = 1; n <= MAXN; n = n < 20 ? n + 1 : n + MAXN - 20) { /* 1..20, then MAXN */
      for (int every_other = 0; every_other < 2; ++every_other) {
        const int64_t span = every_other ? 2 * n - 1 : n; /* elements of the buffer the view covers */
        const size_t bytes = (size_t)((span + 1) * fm->bits + 7) / 8 + 2;
        memset(buf, 0xA5, bytes);
        memcpy(want, buf, bytes);
        for (int64_t i = 0; i < n; ++i)
          dlx__cvt_packed_set(want, (uint64_t)(every_other ? 2 * i : i), fm->bits, dlx__cvt_encode_f32(fm, f[i]));
        dlx_view vf, vp, vb, base;
        const int64_t strides[1] = {every_other ? 2 : 1};
        CHECK_OK(dlx_view_init(&vf, f, DLX_DTYPE_FLOAT32, cpu, 1, &n, NULL));
        CHECK_OK(dlx_view_init(&vb, back, DLX_DTYPE_FLOAT32, cpu, 1, &n, NULL));
        CHECK_OK(dlx_view_init(&base, buf, dt, cpu, 1, &n, strides));
        vp = base;
        CHECK_OK(dlx_cast(&vp, &vf));
        CHECK_OK(dlx_cast(&vb, &vp));
        int bad = memcmp(buf, want, bytes) != 0;
        for (int64_t i = 0; i < n && !bad; ++i) {
          const uint32_t code = dlx__cvt_encode_f32(fm, f[i]);
          bad = dlx__cvt_f32_bits(back[i]) != dlx__cvt_f32_bits(dlx__cvt_decode_f32(fm, code));
        }
        if (bad) {
          fprintf(stderr, "    %s, packed %s, n %lld%s: wrong bytes or values\n", level, fm->name, (long long)n,
                  every_other ? ", every other element" : "");
          CHECK(!bad);
          break;
        }
      }
    }
  }
  free(f);
  free(back);
  free(buf);
  free(want);
}

static void test_packed_every_level(void) { for_each_level(packed_at_level); }

/* ---- no contraction ------------------------------------------------------------------------------- */

/* Values where one rounding (a fused multiply-add) and two differ. s * a rounds to 1 + 2^-11 (a tie to
 * even), so s * a + b is 0 rounded twice and 2^-24 fused. */
static void contraction_at_level(const char *level) {
  enum { N = 64 }; /* long enough for every vector width */
  const DLDevice cpu = {kDLCPU, 0};
  const int64_t n = N;
  float a[N], b[N], o[N];
  for (int i = 0; i < N; ++i) {
    a[i] = 1.0f + 0x1p-12f;
    b[i] = -(1.0f + 0x1p-11f);
  }
  dlx_view va, vb, vo;
  CHECK_OK(dlx_view_init(&va, a, DLX_DTYPE_FLOAT32, cpu, 1, &n, NULL));
  CHECK_OK(dlx_view_init(&vb, b, DLX_DTYPE_FLOAT32, cpu, 1, &n, NULL));
  CHECK_OK(dlx_view_init(&vo, o, DLX_DTYPE_FLOAT32, cpu, 1, &n, NULL));
  CHECK_OK(dlx_fma(&vo, 1.0 + 0x1p-12, &va, &vb));
  for (int i = 0; i < N; ++i)
    if (o[i] != 0.0f) {
      fprintf(stderr, "    %s: float32 fma gave %a, two roundings give 0\n", level, (double)o[i]);
      CHECK(o[i] == 0.0f);
      break;
    }
  /* complex64: (x + xi)(x + xi) has the real part x*x - x*x: 0 with each product rounded, 2^-24 when
   * one of them is fused into the subtraction (x = 1 + 2^-12: x*x is a tie that rounds to even) */
  float za[2 * N], zb[2 * N], zo[2 * N];
  for (int i = 0; i < 2 * N; ++i) za[i] = zb[i] = 1.0f + 0x1p-12f;
  volatile float x = 1.0f + 0x1p-12f;
  const float p = x * x; /* rounded once, as the rule rounds each product */
  const float want_re = p - p, want_im = p + p;
  dlx_view ca, cb, co;
  CHECK_OK(dlx_view_init(&ca, za, DLX_DTYPE_COMPLEX64, cpu, 1, &n, NULL));
  CHECK_OK(dlx_view_init(&cb, zb, DLX_DTYPE_COMPLEX64, cpu, 1, &n, NULL));
  CHECK_OK(dlx_view_init(&co, zo, DLX_DTYPE_COMPLEX64, cpu, 1, &n, NULL));
  CHECK_OK(dlx_binary(DLX_OP_MUL, &co, &ca, &cb));
  for (int i = 0; i < N; ++i)
    if (zo[2 * i] != want_re || zo[2 * i + 1] != want_im) {
      fprintf(stderr, "    %s: complex64 product gave %a%+ai, two roundings give %a%+ai\n", level, (double)zo[2 * i],
              (double)zo[2 * i + 1], (double)want_re, (double)want_im);
      CHECK(false);
      break;
    }
}

static void test_no_contraction(void) { for_each_level(contraction_at_level); }

/* ---- dispatch -------------------------------------------------------------------------------------- */

static void test_dispatch(void) {
  /* names: what runs is one of the three, and supported */
  const char *running = dlx__cpu_variant();
  CHECK(strcmp(running, "baseline") == 0 || strcmp(running, "avx2") == 0 || strcmp(running, "avx512") == 0);
  CHECK(dlx__cpu_variant_supported(running));
  CHECK(dlx__cpu_variant_supported("baseline"));
  CHECK(!dlx__cpu_variant_supported("sse9"));
  CHECK(!dlx__cpu_variant_supported(NULL));
  /* an unknown name is refused and changes nothing */
  CHECK_FAIL(dlx__cpu_force_variant("sse9"), DLX_ERR_INVALID_ARGUMENT, "'sse9' is not one of baseline, avx2, avx512");
  CHECK_STR(dlx__cpu_variant(), running);
  /* a level the machine lacks is refused with what it lacks, and changes nothing */
  for (int l = 0; l < NLEVELS; ++l) {
    if (dlx__cpu_variant_supported(level_names[l])) continue;
    CHECK_FAIL(dlx__cpu_force_variant(level_names[l]), DLX_ERR_UNSUPPORTED, "which this machine lacks");
    CHECK_STR(dlx__cpu_variant(), running);
  }
  /* DLX_CPU_FEATURES, read when the choice is remade (NULL): a level the machine runs is taken; one it
   * cannot, or an unknown name, gives the best level it runs */
  const char *saved = getenv("DLX_CPU_FEATURES");
  char *saved_copy = saved ? strdup(saved) : NULL;
  const char *best = NULL;
  for (int l = 0; l < NLEVELS; ++l)
    if (dlx__cpu_variant_supported(level_names[l])) best = level_names[l];
  setenv("DLX_CPU_FEATURES", "baseline", 1);
  CHECK_OK(dlx__cpu_force_variant(NULL));
  CHECK_STR(dlx__cpu_variant(), "baseline");
  setenv("DLX_CPU_FEATURES", "sse9", 1);
  CHECK_OK(dlx__cpu_force_variant(NULL));
  CHECK_STR(dlx__cpu_variant(), best);
  unsetenv("DLX_CPU_FEATURES");
  CHECK_OK(dlx__cpu_force_variant(NULL));
  CHECK_STR(dlx__cpu_variant(), best);
  if (saved_copy) setenv("DLX_CPU_FEATURES", saved_copy, 1);
  CHECK_OK(dlx__cpu_force_variant(NULL));
  /* a machine without AVX-512 (played with the cap): avx512 is refused with what is missing, the
   * environment asking for it falls back to avx2, and the per-level test entry skips with the reason */
  if (dlx__cpu_variant_supported("avx2")) {
    unsetenv("DLX_CPU_FEATURES");
    CHECK_OK(dlx__cpu_cap_machine("avx2"));
    CHECK_OK(dlx__cpu_force_variant(NULL));
    CHECK(!dlx__cpu_variant_supported("avx512"));
    CHECK_STR(dlx__cpu_variant(), "avx2");
    CHECK_FAIL(dlx__cpu_force_variant("avx512"), DLX_ERR_UNSUPPORTED,
               "cpu variant avx512 needs AVX-512 F, BW, VL and DQ (with the OS saving AVX-512 state) on top of "
               "AVX2, F16C and FMA, which this machine lacks (it runs avx2)");
    setenv("DLX_CPU_FEATURES", "avx512", 1);
    CHECK_OK(dlx__cpu_force_variant(NULL));
    CHECK_STR(dlx__cpu_variant(), "avx2");
    CHECK_EQ(dlx_test_cpu_level_gate(), 77);
    /* and a machine with neither */
    CHECK_OK(dlx__cpu_cap_machine("baseline"));
    CHECK_STR(dlx__cpu_variant(), "baseline");
    CHECK_FAIL(dlx__cpu_force_variant("avx2"), DLX_ERR_UNSUPPORTED, "needs AVX2, F16C and FMA");
    CHECK_EQ(dlx_test_cpu_level_gate(), 77);
    CHECK_FAIL(dlx__cpu_cap_machine("sse9"), DLX_ERR_INVALID_ARGUMENT, "'sse9'");
    CHECK_OK(dlx__cpu_cap_machine(NULL));
    if (saved_copy) setenv("DLX_CPU_FEATURES", saved_copy, 1);
    else unsetenv("DLX_CPU_FEATURES");
    CHECK_OK(dlx__cpu_force_variant(NULL));
  }
  free(saved_copy);
  /* every level the build has fills every entry of its tables */
  for (int l = 0; l < NLEVELS; ++l) {
    if (!dlx__cpu_variant_supported(level_names[l])) continue;
    CHECK_OK(dlx__cpu_force_variant(level_names[l]));
    const dlx__cpu_kernel_set *k = dlx__cpu_kernels();
    CHECK_STR(k->name, level_names[l]);
    for (int i = 0; i < DLX_KD_NARROW_COUNT; ++i)
      CHECK(k->narrow->dec32[i] && k->narrow->enc32[i] && k->narrow->dec64[i] && k->narrow->enc64[i] &&
            k->narrow->unary[DLX_UNOP_NEG][i]);
    for (int s = 0; s < DLX_KD_NATIVE_COUNT; ++s) {
      CHECK(k->native->fma[s] != NULL);
      for (int d = 0; d < DLX_KD_NATIVE_COUNT; ++d) CHECK(k->native->cast[s][d] != NULL);
    }
    CHECK(k->native->copy_any != NULL);
  }
  CHECK_OK(dlx__cpu_force_variant(NULL));
}

/* ---- binary loops of their own: against the rules -------------------------------------------------- */

/* want = the rule on (a, b), 4-byte elements */
typedef void (*bin_rule)(const unsigned char *a, const unsigned char *b, unsigned char *want);
static void rule_remainder(const unsigned char *a, const unsigned char *b, unsigned char *want) {
  float x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  const float r = dlx__remainder_f32(x, y);
  memcpy(want, &r, 4);
}
static void rule_floor_divide(const unsigned char *a, const unsigned char *b, unsigned char *want) {
  float x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  const float r = dlx__floor_divide_f32(x, y);
  memcpy(want, &r, 4);
}
static void rule_power(const unsigned char *a, const unsigned char *b, unsigned char *want) {
  int32_t x, y;
  memcpy(&x, a, 4);
  memcpy(&y, b, 4);
  const int32_t r = POWER_SINT(x, y, i32);
  memcpy(want, &r, 4);
}

/* Binary layouts: both contiguous, a or b broadcast, strided, reversed, out == a, out == b. */
enum { B_CONTIG, B_BCAST_A, B_BCAST_B, B_STRIDED, B_REVERSED, B_INPLACE_A, B_INPLACE_B, B_COUNT };

/* Runs fn over n (a, b) pairs of 4-byte elements in one layout, from element offset off of 64-byte aligned
 * buffers; checks every output element's bits against the rule. */
static int run_binary(dlx__loop_fn fn, int lay, int off, const unsigned char *a, const unsigned char *b, int64_t n,
                      bin_rule rule, const char *what, const char *level) {
  const size_t cap = ((size_t)(n + 8) * 3 * 4 + 63) & ~(size_t)63;
  unsigned char *ab = aligned_alloc(64, cap), *bb = aligned_alloc(64, cap), *ob = aligned_alloc(64, cap);
  memset(ob, 0xA5, cap);
  int64_t sa = 4, sb = 4, so = 4, step = lay == B_STRIDED ? 3 : lay == B_REVERSED ? -1 : 1;
  char *pa = (char *)ab + off * 4, *pb = (char *)bb + off * 4, *po = (char *)ob + off * 4;
  if (step == -1) {
    pa += (n - 1) * 4;
    pb += (n - 1) * 4;
    po += (n - 1) * 4;
  }
  sa = sb = 4 * step;
  so = lay == B_STRIDED ? 8 : 4 * (step == -1 ? -1 : 1);
  for (int64_t i = 0; i < n; ++i) {
    memcpy(pa + i * sa, a + i * 4, 4);
    memcpy(pb + i * sb, b + i * 4, 4);
  }
  if (lay == B_BCAST_A) sa = 0;
  if (lay == B_BCAST_B) sb = 0;
  if (lay == B_INPLACE_A) po = pa;
  if (lay == B_INPLACE_B) po = pb;
  char *d[3] = {po, pa, pb};
  const int64_t st[3] = {lay == B_INPLACE_A ? sa : lay == B_INPLACE_B ? sb : so, sa, sb};
  fn(d, st, n, NULL);
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    unsigned char want[4], got[4];
    rule(lay == B_BCAST_A ? a : a + i * 4, lay == B_BCAST_B ? b : b + i * 4, want);
    memcpy(got, po + i * st[0], 4);
    if (memcmp(got, want, 4) != 0 && bad++ < 3) {
      uint32_t g, w, x, y;
      memcpy(&g, got, 4);
      memcpy(&w, want, 4);
      memcpy(&x, lay == B_BCAST_A ? a : a + i * 4, 4);
      memcpy(&y, lay == B_BCAST_B ? b : b + i * 4, 4);
      fprintf(stderr, "    %s, %s, layout %d offset %d n %lld: element %lld of 0x%08x, 0x%08x gives 0x%08x, expected 0x%08x\n",
              level, what, lay, off, (long long)n, (long long)i, x, y, g, w);
    }
  }
  CHECK_EQ(bad, 0);
  free(ab);
  free(bb);
  free(ob);
  return bad;
}

/* Every layout, offsets 0..3, and every length to 70 (past a 64-element block and a vector tail). */
static void run_binary_layouts(dlx__loop_fn fn, const unsigned char *a, const unsigned char *b, int64_t n, bin_rule rule,
                               const char *what, const char *level) {
  for (int lay = 0; lay < B_COUNT; ++lay)
    for (int off = 0; off < 4; ++off)
      if (run_binary(fn, lay, off, a, b, n, rule, what, level)) return;
  for (int64_t len = 1; len <= 70 && len <= n; ++len)
    if (run_binary(fn, B_CONTIG, (int)(len % 4), a + (n - len) * 4, b + (n - len) * 4, len, rule, what, level)) return;
}

/* float32 pairs at the edges of the fast path: quotients just inside and outside 2^28, quotients one ulp
 * either side of an integer, specials in either operand (zeros, subnormals, inf, NaN, the largest
 * finite), and wide random values; one special in a block sends the whole block to the exact rule. */
static void divmod_inputs(float *a, float *b, int64_t n) {
  const float sp[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -3e-39f, 3.4028235e38f, 0.5f};
  for (int64_t i = 0; i < n; ++i) {
    const float y = (float)ldexp((double)(rnd() % (1u << 24)) / (1u << 24) + 0.5, (int)rnd_in(-20, 20)) *
                    (chance(50) ? 1.0f : -1.0f);
    const int r = (int)(rnd() % 100);
    b[i] = y;
    if (r < 25) {
      const double k = ldexp(1.0, 28) + (double)rnd_in(-3, 3); /* quotient around 2^28 */
      a[i] = (float)(k * y);
    } else if (r < 55) {
      const float m = (float)((double)rnd_in(-100000, 100000) * y); /* near an integer quotient */
      a[i] = nextafterf(m, chance(50) ? INFINITY : -INFINITY);
      if (chance(30)) a[i] = m;
    } else if (r < 62) {
      a[i] = sp[rnd() % (sizeof sp / sizeof sp[0])];
    } else if (r < 67) {
      b[i] = sp[rnd() % (sizeof sp / sizeof sp[0])];
      a[i] = (float)rnd_in(-9, 9);
    } else {
      a[i] = float_of((uint32_t)rnd());
      if (chance(50)) b[i] = float_of((uint32_t)rnd());
    }
  }
  /* most blocks must stay on the fast path: whole blocks of ordinary values */
  for (int64_t i = n / 2; i < n; ++i) {
    b[i] = (float)rnd_in(1, 50) * (chance(50) ? 0.25f : -0.75f);
    a[i] = (float)((double)rnd_in(-(1 << 20), 1 << 20) / 7.0);
  }
}

/* int32 pairs: small and limit bases (1 and -1 for negative exponents), exponents from negative to past 32 */
static void power_inputs(int32_t *a, int32_t *e, int64_t n) {
  const int32_t lim[] = {INT32_MIN, INT32_MAX, 0, 1, -1, 2, -2, 3, 65536, 46341};
  for (int64_t i = 0; i < n; ++i) {
    a[i] = chance(50) ? lim[rnd() % (sizeof lim / sizeof lim[0])] : (int32_t)rnd();
    e[i] = chance(70) ? (int32_t)rnd_in(-5, 40) : chance(50) ? (int32_t)rnd() : (chance(50) ? INT32_MIN : INT32_MAX);
  }
}

static void own_loops_at_level(const char *level) {
  enum { N = 1024 };
  float fa[N], fb[N];
  int32_t ia[N], ib[N];
  divmod_inputs(fa, fb, N);
  power_inputs(ia, ib, N);
  const dlx__cpu_native_loops *k = dlx__cpu_kernels()->native;
  run_binary_layouts(k->binary[DLX_OP_REMAINDER][DLX_KD_F32], (const unsigned char *)fa, (const unsigned char *)fb, N,
                     rule_remainder, "remainder float32", level);
  run_binary_layouts(k->binary[DLX_OP_FLOOR_DIVIDE][DLX_KD_F32], (const unsigned char *)fa, (const unsigned char *)fb, N,
                     rule_floor_divide, "floor_divide float32", level);
  run_binary_layouts(k->binary[DLX_OP_POWER][DLX_KD_I32], (const unsigned char *)ia, (const unsigned char *)ib, N,
                     rule_power, "power int32", level);
}
static void test_own_loops_every_level(void) { for_each_level(own_loops_at_level); }

/* The math functions with a float32 first try (kernels/math_common.h, loops.h's DLX_DEF_UNARY_TRY):
 * inputs that send a block of 256 down each of its paths. Most blocks are in the try's range (sin, cos:
 * |x| < 2^15 up to the last float below it; the logarithms: positive normal floats; log1p: above -1,
 * with values under 2^-10 where it switches to the polynomial of x); every other block gets 1 to 16
 * inputs out of range (special values, large, tiny or subnormal ones, which the try hands on one by one)
 * and every eighth block 40 of them (the whole block through the correctly rounded loop); the tail is
 * random bits. */
typedef struct try_fn {
  int op;
  float (*rule)(float);
  const char *name;
} try_fn;
static float rule_sinf(float x) { return dlx__sinf(x); }
static float rule_cosf(float x) { return dlx__cosf(x); }
static float rule_logf(float x) { return dlx__logf(x); }
static float rule_log2f(float x) { return dlx__log2f(x); }
static float rule_log10f(float x) { return dlx__log10f(x); }
static float rule_log1pf(float x) { return dlx__log1pf(x); }
static double try_of(int op, float x) {
  switch (op) {
    case DLX_UNOP_SIN: return dlx__sinf_try(x);
    case DLX_UNOP_COS: return dlx__cosf_try(x);
    case DLX_UNOP_LOG: return dlx__logf_try(x);
    case DLX_UNOP_LOG2: return dlx__log2f_try(x);
    case DLX_UNOP_LOG10: return dlx__log10f_try(x);
    default: return dlx__log1pf_try(x);
  }
}
static const try_fn try_fns[] = {
    {DLX_UNOP_SIN, rule_sinf, "sin"},     {DLX_UNOP_COS, rule_cosf, "cos"},
    {DLX_UNOP_LOG, rule_logf, "log"},     {DLX_UNOP_LOG2, rule_log2f, "log2"},
    {DLX_UNOP_LOG10, rule_log10f, "log10"}, {DLX_UNOP_LOG1P, rule_log1pf, "log1p"},
};

static float try_in_range(int op) {
  const int trig = op == DLX_UNOP_SIN || op == DLX_UNOP_COS;
  if (trig) {
    if (chance(5)) return chance(50) ? 0x1.fffffep14f : -0x1.fffffep14f;
    return float_of(((uint32_t)rnd() % 0x47000000u) | (chance(50) ? 0x80000000u : 0u));
  }
  if (op == DLX_UNOP_LOG1P) {
    if (chance(20)) return float_of(((uint32_t)rnd() % 0x3a800000u) | (chance(50) ? 0x80000000u : 0u)); /* < 2^-10 */
    if (chance(30)) return -(float)(rnd() % 1000000u) * 1e-6f;
    return float_of(0x3a800000u + (uint32_t)rnd() % (0x7f800000u - 0x3a800000u));
  }
  if (chance(10)) return float_of(0x3f800000u + (uint32_t)rnd() % 4096u - 2048u); /* around 1 */
  return float_of(0x00800000u + (uint32_t)rnd() % (0x7f800000u - 0x00800000u));
}
static float try_out_of_range(int op) {
  const float trig[] = {0x1p15f, -0x1p15f, 0x1.000002p15f, 1e30f, -3.4028235e38f, INFINITY, -INFINITY, NAN, 1e-40f};
  const float logs[] = {0.0f, -0.0f, -1.0f, -1e-30f, -INFINITY, INFINITY, NAN, 1e-40f, 1e-45f};
  const float l1p[] = {-1.0f, -1.5f, -INFINITY, INFINITY, NAN, 1e-40f, -1e-45f};
  if (op == DLX_UNOP_SIN || op == DLX_UNOP_COS) return trig[rnd() % (sizeof trig / sizeof trig[0])];
  if (op == DLX_UNOP_LOG1P) return l1p[rnd() % (sizeof l1p / sizeof l1p[0])];
  return logs[rnd() % (sizeof logs / sizeof logs[0])];
}
static void try_inputs(int op, float *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = try_in_range(op);
  for (int64_t b = 256, k = 0; b + 256 <= n; b += 512, ++k) {
    const int count = k % 4 == 3 ? 40 : 1 + (int)(rnd() % 16u);
    for (int c = 0; c < count; ++c) x[b + (int64_t)(rnd() % 256u)] = try_out_of_range(op);
  }
  for (int64_t i = n - 300; i < n; ++i) x[i] = float_of((uint32_t)rnd()); /* the tail: anything */
}

static int run_unary_f32(dlx__loop_fn fn, const float *x, int64_t n, int64_t step, float (*rule)(float),
                         const char *what, const char *level) {
  float *o = malloc((size_t)(n * step) * sizeof *o);
  const char *src = (const char *)x;
  char *d[2] = {(char *)o, (char *)(uintptr_t)src};
  const int64_t st[2] = {step * 4, 4};
  fn(d, st, n, NULL);
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t g = bits_of(o[i * step]), w = bits_of(rule(x[i]));
    if (g != w && bad++ < 3)
      fprintf(stderr, "    %s, %s, step %lld: element %lld of 0x%08x gives 0x%08x, expected 0x%08x\n", level, what,
              (long long)step, (long long)i, bits_of(x[i]), g, w);
  }
  CHECK_EQ(bad, 0);
  free(o);
  return bad;
}

static void try_at_level(const char *level) {
  enum { N = 8192 };
  static float x[N];
  const dlx__cpu_native_loops *k = dlx__cpu_kernels()->native;
  for (size_t f = 0; f < sizeof try_fns / sizeof try_fns[0]; ++f) {
    try_inputs(try_fns[f].op, x, N);
    dlx__loop_fn fn = k->unary[try_fns[f].op][DLX_KD_F32];
    const char *what = try_fns[f].name;
    if (run_unary_f32(fn, x, N, 1, try_fns[f].rule, what, level) ||
        run_unary_f32(fn, x, N, 3, try_fns[f].rule, what, level))
      return;
    for (int64_t len = 1; len <= 300; len += 37) /* lengths and starts off the block grid */
      if (run_unary_f32(fn, x + 5, len, 1, try_fns[f].rule, what, level)) return;
    /* in place: a block's fix-ups read inputs its first pass has already rounded */
    static float io[N];
    memcpy(io, x, sizeof io);
    char *d[2] = {(char *)io, (char *)io};
    const int64_t st[2] = {4, 4};
    fn(d, st, N, NULL);
    int bad = 0;
    for (int64_t i = 0; i < N; ++i)
      if (bits_of(io[i]) != bits_of(try_fns[f].rule(x[i])) && bad++ < 3)
        fprintf(stderr, "    %s, %s in place: element %lld of 0x%08x gives 0x%08x\n", level, what, (long long)i,
                bits_of(x[i]), bits_of(io[i]));
    CHECK_EQ(bad, 0);
  }
}
static void test_try_path_every_level(void) { for_each_level(try_at_level); }

/* The try rules themselves: wherever dlx__m_undecided32 accepts a try, its rounding is the correctly
 * rounded rule's; the rejected share of in-range inputs is small (the estimate: one in 2^18), and every
 * out-of-range input is rejected (the exhaustive check of every input is bench/math/exhaustive.c's) */
static void test_try_rules(void) {
  for (size_t f = 0; f < sizeof try_fns / sizeof try_fns[0]; ++f) {
    const int op = try_fns[f].op;
    int bad = 0, rejected = 0;
    for (int i = 0; i < 300000; ++i) {
      const float x = try_in_range(op);
      const double y = try_of(op, x);
      if (dlx__m_undecided32(y)) {
        rejected += !(fabsf(x) < 0x1p-100f); /* tiny inputs give subnormal results: rejected by design */
        continue;
      }
      if (bits_of((float)y) != bits_of(try_fns[f].rule(x)) && bad++ < 3)
        fprintf(stderr, "    %s try accepted at 0x%08x: 0x%08x, expected 0x%08x\n", try_fns[f].name, bits_of(x),
                bits_of((float)y), bits_of(try_fns[f].rule(x)));
    }
    CHECK_EQ(bad, 0);
    CHECK(rejected < 100);
    int taken = 0; /* special values and the far ranges go to the rule (a subnormal is in range for cos
                      and the logarithms, whose results are ordinary numbers there: 1, -92 ...) */
    const int keeps_tiny = op != DLX_UNOP_SIN && op != DLX_UNOP_LOG1P;
    for (int i = 0; i < 1000; ++i) {
      const float x = try_out_of_range(op);
      taken += !(keeps_tiny && x != 0.0f && fabsf(x) < 1e-30f) && !dlx__m_undecided32(try_of(op, x));
    }
    CHECK_EQ(taken, 0);
  }
}

/* dlx__m_undecided32 on hand-picked doubles */
static void test_undecided32(void) {
  CHECK_EQ(dlx__m_undecided32(DLX_M_TRY_NONE), 1u);
  CHECK_EQ(dlx__m_undecided32(-DLX_M_TRY_NONE), 1u);
  CHECK_EQ(dlx__m_undecided32(1.0), 0u);
  CHECK_EQ(dlx__m_undecided32(0.0), 0u);
  CHECK_EQ(dlx__m_undecided32(-0.0), 0u);
  CHECK_EQ(dlx__m_undecided32(0x1.fffffffffffffp-1), 0u);    /* just below a float: far from midpoints */
  CHECK_EQ(dlx__m_undecided32(0x1.000001p0 + 0x1p-44), 1u);   /* 2^8 ulps above a midpoint */
  CHECK_EQ(dlx__m_undecided32(0x1.000001p0 - 0x1p-43), 1u);   /* 2^9 below */
  CHECK_EQ(dlx__m_undecided32(0x1.000001p0 + 0x1p-41), 0u);   /* 2^11 above: decided */
  CHECK_EQ(dlx__m_undecided32(0x1.000001p0 - 0x1p-41), 0u);
  CHECK_EQ(dlx__m_undecided32(0x1.8p-130), 1u);               /* float32-subnormal results */
  CHECK_EQ(dlx__m_undecided32(-0x1p-149), 1u);
  CHECK_EQ(dlx__m_undecided32(0x1p-126), 0u);                 /* the smallest normal */
  CHECK_EQ(dlx__m_undecided32(INFINITY), 0u);
}

static const dlx_test_case cases[] = {
    {"dispatch", test_dispatch},
    {"codec_every_level", test_codec_every_level},
    {"codec_fpu_modes", test_codec_fpu_modes},
    {"casts_every_level", test_casts_every_level},
    {"packed_every_level", test_packed_every_level},
    {"no_contraction", test_no_contraction},
    {"own_loops_every_level", test_own_loops_every_level},
    {"try_path_every_level", test_try_path_every_level},
    {"try_rules", test_try_rules},
    {"undecided32", test_undecided32},
};
DLX_TEST_MAIN(cases)
