/* Tests for the CPU backend's loops (src/backends/cpu/loops_native.c, loops_narrow.c, and exec.c, which
 * walks them over a plan): the corners test_ops.c's random harness reaches only by chance. The narrow-float
 * fast encoders against convert.h's exact encoder; the staged loops (narrow operands decoded, computed and
 * encoded in blocks) at every block edge; the 2-D tiles of transposed walks at every tile and group edge.
 * Staged and tiled results are compared bit for bit with the reference loop (src/compute/reference.c), on
 * one thread and split over two. */
#include <stdbool.h>

#include "runner.h"

#include "kernels/convert.h"
#include "compute/reference.h"
#include "kernels/ew.h"
#include "backends/cpu/loops.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define CPU ((DLDevice){kDLCPU, 0})

#define DLX_TEST_RNG_SEED 0x9e3779b97f4a7c15u
#include "rng.h"

/* Every dtype with a kernel, in dlx__kd order. */
static const DLDataType kd_dtypes[DLX_KD_COUNT] = {
    DLX_DTYPE_BOOL,          DLX_DTYPE_INT8,           DLX_DTYPE_INT16,         DLX_DTYPE_INT32,
    DLX_DTYPE_INT64,         DLX_DTYPE_UINT8,          DLX_DTYPE_UINT16,        DLX_DTYPE_UINT32,
    DLX_DTYPE_UINT64,        DLX_DTYPE_FLOAT32,        DLX_DTYPE_FLOAT64,       DLX_DTYPE_COMPLEX64,
    DLX_DTYPE_COMPLEX128,    DLX_DTYPE_FLOAT16,        DLX_DTYPE_BFLOAT16,      DLX_DTYPE_FLOAT8_E3M4,
    DLX_DTYPE_FLOAT8_E4M3,   DLX_DTYPE_FLOAT8_E4M3B11FNUZ, DLX_DTYPE_FLOAT8_E4M3FN, DLX_DTYPE_FLOAT8_E4M3FNUZ,
    DLX_DTYPE_FLOAT8_E5M2,   DLX_DTYPE_FLOAT8_E5M2FNUZ, DLX_DTYPE_FLOAT8_E8M0FNU, DLX_DTYPE_FLOAT6_E2M3FN,
    DLX_DTYPE_FLOAT6_E3M2FN, DLX_DTYPE_FLOAT4_E2M1FN};

static bool is_subbyte_kd(int k) { return k >= DLX_KD_F6_E2M3FN; }

static dlx_view vec(void *data, DLDataType dt, int64_t n) {
  dlx_view v;
  dlx_status st = dlx_view_init(&v, data, dt, CPU, 1, &n, NULL);
  CHECK_OK(st);
  return v;
}

/* ---- the narrow-float fast encoders ------------------------------------------------------------------- */

/* The cast kernel's float32 -> narrow fast path against convert.h's exact encoder: whole blocks of
 * normal-range values (ties, near-ties, both signs) that stay on the fast path, and float32 bit patterns
 * across the whole range mixed in, which send blocks to the exact fallback. */
static void test_encode_sweep(void) {
  enum { N = 1 << 16 };
  float *f = malloc(N * sizeof(float));
  uint16_t *out = malloc(N * sizeof(uint16_t));
  for (int k = DLX_KD_F16; k < DLX_KD_COUNT; ++k) {
    const DLDataType dt = kd_dtypes[k];
    const dlx__cvt_format *fmt = dlx__cvt_format_of(dt.code);
    const int s = 23 - fmt->man_bits;
    const int emin = 1 - fmt->bias, emax = (int)(fmt->max_finite >> fmt->man_bits) - fmt->bias;
    for (int pass = 0; pass < 2; ++pass) {
      for (int i = 0; i < N; ++i) {
        uint32_t bits;
        if (pass == 1 && i % 64 == 7) {
          bits = (uint32_t)rnd(); /* anything: zero, subnormal, huge, inf, NaN */
        } else {
          const int e = emin + (int)(rnd() % (uint64_t)(emax - emin + 1));
          uint32_t man = (uint32_t)rnd() & 0x7fffffu;
          const int tie = (int)(rnd() % 4);
          if (s > 0 && tie == 0) man = (man & ~((1u << s) - 1u)) | (1u << (s - 1)); /* exact tie */
          if (s > 0 && tie == 1) man = (man & ~((1u << s) - 1u)) | ((1u << (s - 1)) - 1u); /* just below */
          bits = ((uint32_t)(e + 127) << 23) | man;
          if (fmt->sign_bit != 0 && (rnd() & 1)) bits |= 0x80000000u;
        }
        memcpy(&f[i], &bits, 4);
      }
      dlx_view vf = vec(f, DLX_DTYPE_FLOAT32, N);
      dlx_view vo;
      CHECK_OK(dlx_view_init(&vo, out, dt, CPU, 1, I64(N), NULL));
      vo.flags = is_subbyte_kd(k) ? DLX_VIEW_SUBBYTE_PADDED : 0;
      CHECK_OK(dlx_cast(&vo, &vf));
      int bad = 0;
      for (int i = 0; i < N; ++i) {
        const uint32_t want = dlx__cvt_encode_f32(fmt, f[i]);
        const uint32_t got = fmt->bits == 16 ? out[i] : ((const uint8_t *)out)[i];
        if (got != want && bad++ < 3)
          fprintf(stderr, "    %s: float32 bits 0x%08x encode to 0x%x, expected 0x%x\n", fmt->name,
                  (unsigned)dlx__cvt_f32_bits(f[i]), (unsigned)got, (unsigned)want);
      }
      CHECK_EQ(bad, 0);
    }
  }
  free(f);
  free(out);
}

/* ---- reference vs backend ----------------------------------------------------------------------------- */

typedef enum { K_CAST, K_COPY, K_BINARY, K_FMA } kind;

typedef struct ew {
  kind k;
  dlx_binop op;
  double s;
} ew;

static dlx_status run_ew(const ew *e, const dlx_view *o, const dlx_view *a, const dlx_view *b) {
  switch (e->k) {
    case K_CAST: return dlx_cast(o, a);
    case K_COPY: return dlx_copy(o, a);
    case K_BINARY: return dlx_binary(e->op, o, a, b);
    default: return dlx_fma(o, e->s, a, b);
  }
}

/* Run e into o (over the bytes obuf[0, obytes)) by the reference loop, then by the backend on one thread
 * and on two with a grain of 7 elements (many chunks): all three bit for bit. */
static void check_vs_reference(const ew *e, unsigned char *obuf, size_t obytes, const dlx_view *o, const dlx_view *a,
                               const dlx_view *b, const char *what, int64_t n) {
  unsigned char *orig = malloc(obytes), *ref = malloc(obytes);
  memcpy(orig, obuf, obytes);
  const bool was = dlx__ops_set_reference(true);
  CHECK_OK(run_ew(e, o, a, b));
  dlx__ops_set_reference(was);
  memcpy(ref, obuf, obytes);
  for (int mode = 0; mode < 2; ++mode) {
    memcpy(obuf, orig, obytes);
    dlx_set_num_threads(mode ? 2 : 1);
    const int64_t g = dlx__ops_set_grain(mode ? 7 : 0);
    CHECK_OK(run_ew(e, o, a, b));
    dlx__ops_set_grain(g);
    dlx_set_num_threads(0);
    int64_t d = -1;
    for (size_t i = 0; i < obytes && d < 0; ++i)
      if (obuf[i] != ref[i]) d = (int64_t)i;
    CHECK_EQ(d, -1);
    if (d >= 0)
      fprintf(stderr, "    %s, n %lld, %s: first difference at byte %lld (ref %02x, got %02x)\n", what, (long long)n,
              mode ? "2 threads" : "1 thread", (long long)d, ref[d], obuf[d]);
  }
  free(orig);
  free(ref);
}

/* Finite float32 values whose narrow encodings stay finite through add, sub and fma with small scalars:
 * multiples of 1/8 in [-4, 4), with zeros and a subnormal-range value now and then (which send a fast
 * encoder's block to the exact fallback). */
static void fill_small(float *f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    f[i] = (float)((int64_t)(rnd() % 64) - 32) / 8.0f;
    if (rnd() % 40 == 0) f[i] = (rnd() & 1) ? 0.0f : 1e-6f;
  }
}

/* Staged loops decode and encode in blocks of 256 elements, the fast encoders work on blocks of 16: rows
 * of every length around those edges, contiguous, every other element, reversed, and against a broadcast
 * 0-d operand (decoded once), for narrow binary ops, fma, and casts in and out of the narrow formats. */
static void test_staged_block_edges(void) {
  static const int64_t lengths[] = {1, 15, 16, 17, 31, 255, 256, 257, 511, 512, 513, 1000};
  static const int narrow[] = {DLX_KD_F16, DLX_KD_BF16, DLX_KD_F8_E4M3FN, DLX_KD_F8_E5M2};
  enum { MAXN = 1000 };
  float *f = malloc(2 * MAXN * sizeof(float)), *g = malloc(2 * MAXN * sizeof(float)), *fo = malloc(2 * MAXN * sizeof(float));
  uint16_t *a = malloc(2 * MAXN * 2), *b = malloc(2 * MAXN * 2), *o = malloc(2 * MAXN * 2);
  for (size_t t = 0; t < sizeof narrow / sizeof narrow[0]; ++t) {
    const DLDataType dt = kd_dtypes[narrow[t]];
    const size_t sz = dlx_dtype_itemsize(dt);
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; ++li) {
      const int64_t n = lengths[li];
      fill_small(f, 2 * n);
      fill_small(g, 2 * n);
      dlx_view vf = vec(f, DLX_DTYPE_FLOAT32, 2 * n), vg = vec(g, DLX_DTYPE_FLOAT32, 2 * n);
      dlx_view va = vec(a, dt, 2 * n), vb = vec(b, dt, 2 * n);
      CHECK_OK(dlx_cast(&va, &vf));
      CHECK_OK(dlx_cast(&vb, &vg));
      for (int layout = 0; layout < 3; ++layout) {
        /* layout 0: the first n, contiguous; 1: every other element; 2: the first n reversed */
        dlx_slice s = {0, n, 1, false, true};
        if (layout == 1) s = (dlx_slice){0, 0, 2, false, false};
        if (layout == 2) s = (dlx_slice){n - 1, 0, -1, true, false};
        dlx_view sa, sb, so, sf, sfo;
        dlx_view vo = vec(o, dt, 2 * n), vfo = vec(fo, DLX_DTYPE_FLOAT32, 2 * n);
        CHECK_OK(dlx_view_slice(&va, 0, &s, &sa));
        CHECK_OK(dlx_view_slice(&vb, 0, &s, &sb));
        CHECK_OK(dlx_view_slice(&vo, 0, &s, &so));
        CHECK_OK(dlx_view_slice(&vf, 0, &s, &sf));
        CHECK_OK(dlx_view_slice(&vfo, 0, &s, &sfo));
        CHECK_EQ(sa.shape[0], n);
        const size_t obytes = (size_t)(2 * n) * sz, fbytes = (size_t)(2 * n) * 4;
        memset(o, 0x5A, obytes);
        memset(fo, 0x5A, fbytes);
        const ew add = {K_BINARY, DLX_OP_ADD, 0}, sub = {K_BINARY, DLX_OP_SUB, 0}, mul = {K_BINARY, DLX_OP_MUL, 0};
        const ew fma = {K_FMA, DLX_OP_ADD, -0.5}, cast = {K_CAST, DLX_OP_ADD, 0};
        check_vs_reference(&add, (unsigned char *)o, obytes, &so, &sa, &sb, "narrow add", n);
        check_vs_reference(&sub, (unsigned char *)o, obytes, &so, &sa, &sb, "narrow sub", n);
        check_vs_reference(&mul, (unsigned char *)o, obytes, &so, &sa, &sb, "narrow mul", n);
        check_vs_reference(&fma, (unsigned char *)o, obytes, &so, &sa, &sb, "narrow fma", n);
        check_vs_reference(&cast, (unsigned char *)o, obytes, &so, &sf, NULL, "float32 -> narrow", n);
        check_vs_reference(&cast, (unsigned char *)fo, fbytes, &sfo, &sa, NULL, "narrow -> float32", n);
        /* a broadcast 0-d operand on either side */
        dlx_scalar_buf buf;
        dlx_view sc;
        CHECK_OK(dlx_scalar_view(&sc, &buf, dt, 1.5, 0));
        check_vs_reference(&add, (unsigned char *)o, obytes, &so, &sa, &sc, "narrow add scalar", n);
        check_vs_reference(&sub, (unsigned char *)o, obytes, &so, &sc, &sa, "scalar sub narrow", n);
        check_vs_reference(&fma, (unsigned char *)o, obytes, &so, &sc, &sa, "narrow fma scalar", n);
      }
    }
  }
  free(f);
  free(g);
  free(fo);
  free(a);
  free(b);
  free(o);
}

/* Transposed walks go in 8 x 8 tiles, in groups of 32 x 32 tiles, split over threads by tiles; rows or
 * columns below 4 are not tiled. Shapes around each edge, with the transposed operand the input (a
 * transposed copy, cast and add) or the output, and a leading dimension (planes of tiles). */
static void test_tile_edges(void) {
  static const int64_t shapes[][2] = {{3, 40}, {4, 4},   {7, 9},    {8, 8},    {9, 17},    {16, 33},
                                      {33, 8}, {255, 9}, {256, 257}, {257, 31}, {300, 260}};
  const ew copy = {K_COPY, DLX_OP_ADD, 0}, cast = {K_CAST, DLX_OP_ADD, 0}, add = {K_BINARY, DLX_OP_ADD, 0};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
    for (int planes = 1; planes <= 3; planes += 2) {
      const int64_t r = shapes[si][0], c = shapes[si][1], n = planes * r * c;
      float *src = malloc((size_t)n * 4), *other = malloc((size_t)n * 4), *dst = malloc((size_t)n * 4);
      int16_t *dst16 = malloc((size_t)n * 2);
      for (int64_t i = 0; i < n; ++i) {
        src[i] = (float)i * 0.5f;
        other[i] = (float)(n - i);
      }
      /* src seen as (planes, r, c) through a (planes, c, r) buffer: the input walks down columns */
      dlx_view t_in, t_in2, out, out16, base;
      CHECK_OK(dlx_view_init(&base, src, DLX_DTYPE_FLOAT32, CPU, 3, I64(planes, c, r), NULL));
      CHECK_OK(dlx_view_permute(&base, ((const int32_t[]){0, 2, 1}), &t_in));
      CHECK_OK(dlx_view_init(&base, other, DLX_DTYPE_FLOAT32, CPU, 3, I64(planes, r, c), NULL));
      t_in2 = base;
      CHECK_OK(dlx_view_init(&out, dst, DLX_DTYPE_FLOAT32, CPU, 3, I64(planes, r, c), NULL));
      CHECK_OK(dlx_view_init(&out16, dst16, DLX_DTYPE_INT16, CPU, 3, I64(planes, r, c), NULL));
      memset(dst, 0x5A, (size_t)n * 4);
      memset(dst16, 0x5A, (size_t)n * 2);
      check_vs_reference(&copy, (unsigned char *)dst, (size_t)n * 4, &out, &t_in, NULL, "transposed copy", r * 1000 + c);
      check_vs_reference(&cast, (unsigned char *)dst16, (size_t)n * 2, &out16, &t_in, NULL, "transposed cast", r * 1000 + c);
      check_vs_reference(&add, (unsigned char *)dst, (size_t)n * 4, &out, &t_in, &t_in2, "transposed add", r * 1000 + c);
      /* the output transposed instead: (planes, r, c) written through a (planes, c, r) buffer */
      dlx_view t_out;
      CHECK_OK(dlx_view_init(&base, dst, DLX_DTYPE_FLOAT32, CPU, 3, I64(planes, c, r), NULL));
      CHECK_OK(dlx_view_permute(&base, ((const int32_t[]){0, 2, 1}), &t_out));
      check_vs_reference(&copy, (unsigned char *)dst, (size_t)n * 4, &t_out, &t_in2, NULL, "copy to transposed", r * 1000 + c);
      free(src);
      free(other);
      free(dst);
      free(dst16);
    }
  }
}

static const dlx_test_case cases[] = {
    {"encode_sweep", test_encode_sweep},
    {"staged_block_edges", test_staged_block_edges},
    {"tile_edges", test_tile_edges},
};
DLX_TEST_MAIN(cases)
