/* Tests for src/compute/ops.c: the public ops (dlx_copy, dlx_fill, dlx_cast, dlx_unary, dlx_binary,
 * dlx_ternary, dlx_fma).
 *
 * The core of it is a random harness (fixed seed): every op on every dtype over random shapes, layouts
 * (negative, zero, transposed, gapped, misaligned strides), broadcasts, 0-d and empty views, run three
 * ways on the same inputs: the reference loop, the fast engine on one thread, and the fast engine on two
 * threads with a tiny grain so that every op is split. Reference and fast must agree (NaNs compared as
 * NaNs), one and two threads bit for bit, and nothing outside the output view may change. Then the
 * semantics ops.h promises, checked on hand-picked values, aliasing, packed operands and every error
 * path. Scalars are in test_scalar.c, the pool in test_pool.c, the CPU loops' own corners in
 * test_cpu_loops.c. */
#include <math.h>
#include <stdbool.h>

#include "runner.h"

#include "backends/backend.h"
#include "kernels/convert.h"
#include "compute/reference.h"
#include "kernels/ew.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/pool.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif
/* Sanitizer allocators abort on absurd sizes instead of returning NULL. */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

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
static bool is_complex_kd(int k) { return k == DLX_KD_C64 || k == DLX_KD_C128; }

/* ---- random views -------------------------------------------------------------------------------- */

#define SLACK 64

/* An operand: its view and the whole buffer behind it (so that writes outside the view are seen). */
typedef struct operand {
  dlx_view v;
  unsigned char *mem;
  size_t bytes;
} operand;

static void operand_free(operand *o) {
  free(o->mem);
  o->mem = NULL;
}

static bool packed_view(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* Random element values: small integers and fractions mostly, raw bits (NaN, inf, huge, subnormal)
 * sometimes, so that both the ordinary and the saturating corners are hit. */
static void random_element(unsigned char *p, DLDataType dt) {
  const int k = dlx__kd_of(dt);
  const size_t size = dlx_dtype_itemsize(dt);
  if (k == DLX_KD_BOOL) {
    *p = chance(3) ? 2 : (unsigned char)(rnd() & 1); /* a producer's non-0/1 byte now and then */
    return;
  }
  if (k == DLX_KD_F32 || k == DLX_KD_F64 || k == DLX_KD_C64 || k == DLX_KD_C128) {
    const int parts = is_complex_kd(k) ? 2 : 1;
    const size_t psize = size / (size_t)parts;
    for (int i = 0; i < parts; ++i) {
      double x;
      const int r = (int)(rnd() % 10);
      if (r == 0) {
        const uint64_t bits = rnd();
        memcpy(p + (size_t)i * psize, &bits, psize);
        continue;
      }
      if (r == 1) x = (double)(rnd() % 5) - 2.0; /* zeros, +-1, +-2 */
      else if (r == 2) x = ((double)(int64_t)(rnd() % 2000001) - 1000000.0) * 1e5;
      else x = ((double)(int64_t)(rnd() % 4001) - 2000.0) / 16.0;
      if (psize == 4) {
        float f = (float)x;
        memcpy(p + (size_t)i * psize, &f, 4);
      } else {
        memcpy(p + (size_t)i * psize, &x, 8);
      }
    }
    return;
  }
  uint64_t bits = rnd();
  if (k >= DLX_KD_I8 && k <= DLX_KD_U64 && chance(60)) bits = (uint64_t)((int64_t)(rnd() % 9) - 4); /* -4..4 */
  if (size <= 8) {
    memcpy(p, &bits, size);
    return;
  }
  for (size_t i = 0; i < size; ++i) p[i] = (unsigned char)rnd(); /* int128, vectors, opaque */
}

/* A view of dt with the given shape over a fresh buffer: a random dimension order, gaps, negative
 * strides; zero strides on inputs when allow_zero; misaligned data now and then. */
static operand make_operand(DLDataType dt, bool packed, int32_t ndim, const int64_t *shape, bool allow_zero) {
  operand o;
  memset(&o, 0, sizeof o);
  dlx_view *v = &o.v;
  v->dtype = dt;
  v->device = CPU;
  v->ndim = ndim;
  v->flags = dlx_dtype_is_subbyte(dt) && !packed ? DLX_VIEW_SUBBYTE_PADDED : 0;
  const bool pk = packed_view(v);
  /* packed: every element offset times bits must stay a whole number of bytes away from element 0 */
  const int64_t unit = pk ? (dt.bits == 4 ? 2 : 4) : 1;
  int32_t order[DLX_MAX_NDIM];
  for (int32_t i = 0; i < ndim; ++i) order[i] = i;
  for (int32_t i = ndim - 1; i > 0; --i) {
    if (!chance(30)) continue;
    int32_t j = (int32_t)rnd_in(0, i), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  int64_t acc = unit;
  for (int32_t i = ndim - 1; i >= 0; --i) { /* order[ndim-1] innermost */
    const int32_t d = order[i];
    v->shape[d] = shape[d];
    int64_t st = acc;
    if (allow_zero && shape[d] > 1 && chance(10)) st = 0;
    else if (chance(20)) st = -st;
    v->strides[d] = st;
    acc *= (shape[d] > 0 ? shape[d] : 1) + (chance(20) ? 1 : 0);
  }
  int64_t lo = 0, hi = 0, n = 1;
  for (int32_t d = 0; d < ndim; ++d) {
    n *= shape[d];
    if (shape[d] > 1) {
      const int64_t reach = (shape[d] - 1) * v->strides[d];
      if (reach < 0) lo += reach;
      else hi += reach;
    }
  }
  const size_t size = dlx_dtype_itemsize(dt);
  const int64_t span = hi - lo + 1;
  const size_t body = pk ? (size_t)((span * dt.bits + 7) / 8) : (size_t)span * size;
  o.bytes = body + 2 * SLACK + 1;
  o.mem = malloc(o.bytes);
  for (size_t i = 0; i < o.bytes; ++i) o.mem[i] = (unsigned char)rnd();
  const size_t mis = (!pk && size > 1 && chance(8)) ? 1 : 0; /* misaligned element 0 */
  unsigned char *base = o.mem + SLACK + mis;
  v->data = pk ? (void *)(base + (-lo * dt.bits) / 8) : (void *)(base + (size_t)(-lo) * size);
  if (!pk) {
    for (int64_t e = 0; e < span; ++e) random_element(base + (size_t)e * size, dt);
  }
  if (n == 0 && chance(30)) v->data = NULL;
  return o;
}

/* Right-aligned broadcast source for out's shape: a suffix, some extents 1. */
static int32_t broadcast_shape(int32_t ndim, const int64_t *shape, int64_t *in_shape) {
  const int32_t nd = (int32_t)rnd_in(0, ndim);
  for (int32_t j = 0; j < nd; ++j) {
    const int64_t e = shape[ndim - nd + j];
    in_shape[j] = chance(25) ? 1 : e;
  }
  return nd;
}

/* ---- comparisons -------------------------------------------------------------------------------- */

static bool is_nan_element(const unsigned char *p, DLDataType dt, int part) {
  const int k = dlx__kd_of(dt);
  switch (k) {
    case DLX_KD_F32:
    case DLX_KD_C64: {
      float f;
      memcpy(&f, p + 4 * part, 4);
      return f != f;
    }
    case DLX_KD_F64:
    case DLX_KD_C128: {
      double f;
      memcpy(&f, p + 8 * part, 8);
      return f != f;
    }
    case DLX_KD_F16:
    case DLX_KD_BF16: {
      uint16_t h;
      memcpy(&h, p, 2);
      const double x = dlx__cvt_narrow_decode(dt.code, h);
      return x != x;
    }
    default:
      if (k >= DLX_KD_F8_E3M4 && k <= DLX_KD_F8_E8M0FNU) {
        const double x = dlx__cvt_narrow_decode(dt.code, *p);
        return x != x;
      }
      return false;
  }
}

/* Where both buffers hold a NaN in the same element (or complex part), make got's bits expect's: the
 * two paths may produce NaNs of different sign or payload, which ops.h does not pin down. */
static void canonicalize_nans(const dlx_view *v, const unsigned char *expect_mem, unsigned char *got_mem,
                              const unsigned char *view_mem) {
  if (packed_view(v)) return; /* fp6/fp4 have no NaN */
  const int k = dlx__kd_of(v->dtype);
  if (k < DLX_KD_F32 || k == DLX_KD_NONE || is_subbyte_kd(k)) return;
  const size_t size = dlx_dtype_itemsize(v->dtype);
  const int parts = is_complex_kd(k) ? 2 : 1;
  const int64_t n = dlx_view_size(v);
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (int32_t d = 0; d < v->ndim; ++d) off += idx[d] * v->strides[d];
    const size_t pos = (size_t)((const unsigned char *)v->data - view_mem) + (size_t)(off * (int64_t)size);
    for (int part = 0; part < parts; ++part) {
      if (is_nan_element(expect_mem + pos, v->dtype, part) && is_nan_element(got_mem + pos, v->dtype, part)) {
        const size_t psize = size / (size_t)parts;
        memcpy(got_mem + pos + (size_t)part * psize, expect_mem + pos + (size_t)part * psize, psize);
      }
    }
    for (int32_t d = v->ndim - 1; d >= 0; --d) {
      if (++idx[d] < v->shape[d]) break;
      idx[d] = 0;
    }
  }
}

static int64_t first_difference(const unsigned char *a, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return (int64_t)i;
  return -1;
}

/* ---- the harness ------------------------------------------------------------------------------- */

typedef enum { OP_COPY, OP_FILL, OP_CAST, OP_BINARY, OP_FMA } opkind;

typedef struct tcase {
  opkind kind;
  dlx_binop op;
  double scalar;
  DLDataType dto, dta, dtb;
  bool packed_o, packed_a; /* float6/float4 packed rather than padded */
} tcase;

static dlx_status call_op(const tcase *tc, const dlx_view *o, const dlx_view *a, const dlx_view *b) {
  switch (tc->kind) {
    case OP_COPY: return dlx_copy(o, a);
    case OP_FILL: return dlx_fill(o, a);
    case OP_CAST: return dlx_cast(o, a);
    case OP_BINARY: return dlx_binary(tc->op, o, a, b);
    default: return dlx_fma(o, tc->scalar, a, b);
  }
}

static int nin_of(const tcase *tc) { return tc->kind == OP_BINARY || tc->kind == OP_FMA ? 2 : 1; }

static int64_t cases_run, elements_run;

static void describe(const tcase *tc, const dlx_view *o) {
  char a[DLX_DTYPE_NAME_MAX], b[DLX_DTYPE_NAME_MAX];
  dlx_dtype_format(tc->dto, a, sizeof a);
  dlx_dtype_format(tc->dta, b, sizeof b);
  fprintf(stderr, "    case: kind %d op %d out %s in %s ndim %d shape", (int)tc->kind, (int)tc->op, a, b, (int)o->ndim);
  for (int32_t d = 0; d < o->ndim; ++d) fprintf(stderr, " %lld/%lld", (long long)o->shape[d], (long long)o->strides[d]);
  fprintf(stderr, "\n");
}

/* One random instance of tc with out shape (ndim, shape): reference vs 1 thread vs 2 threads. */
static void run_instance(const tcase *tc, int32_t ndim, const int64_t *shape) {
  operand out = make_operand(tc->dto, tc->packed_o, ndim, shape, false);
  operand in[2];
  const int nin = nin_of(tc);
  for (int k = 0; k < nin; ++k) {
    int64_t ish[DLX_MAX_NDIM];
    int32_t ind = broadcast_shape(ndim, shape, ish);
    if (tc->kind == OP_FILL && chance(60)) ind = 0;
    const DLDataType dt = k == 0 ? tc->dta : tc->dtb;
    in[k] = make_operand(dt, tc->packed_a, ind, ish, true);
  }
  const dlx_view *b = nin > 1 ? &in[1].v : NULL;
  unsigned char *orig = malloc(out.bytes), *expect = malloc(out.bytes), *one = malloc(out.bytes);
  memcpy(orig, out.mem, out.bytes);

  bool was = dlx__ops_set_reference(true);
  dlx_status st_ref = call_op(tc, &out.v, &in[0].v, b);
  dlx__ops_set_reference(was);
  memcpy(expect, out.mem, out.bytes);

  memcpy(out.mem, orig, out.bytes);
  dlx_set_num_threads(1);
  dlx_status st1 = call_op(tc, &out.v, &in[0].v, b);
  memcpy(one, out.mem, out.bytes);

  memcpy(out.mem, orig, out.bytes);
  dlx_set_num_threads(2);
  int64_t old_grain = dlx__ops_set_grain(5);
  dlx_status st2 = call_op(tc, &out.v, &in[0].v, b);
  dlx__ops_set_grain(old_grain);
  dlx_set_num_threads(0);

  CHECK_EQ(st_ref, DLX_OK);
  CHECK_EQ(st1, DLX_OK);
  CHECK_EQ(st2, DLX_OK);
  if (st_ref != DLX_OK || st1 != DLX_OK) {
    fprintf(stderr, "    %s\n", dlx_last_error());
    describe(tc, &out.v);
  }
  /* the thread count never changes a bit, but for which NaN arithmetic passes on (unspecified in ops.h:
   * where a row is split decides which code path, hence which operand's NaN, an element gets) */
  if (tc->kind == OP_BINARY || tc->kind == OP_FMA) canonicalize_nans(&out.v, one, out.mem, out.mem);
  int64_t d12 = first_difference(one, out.mem, out.bytes);
  CHECK_EQ(d12, -1);
  canonicalize_nans(&out.v, expect, one, out.mem);
  int64_t d = first_difference(expect, one, out.bytes);
  CHECK_EQ(d, -1);
  if (d >= 0 || d12 >= 0) {
    describe(tc, &out.v);
    fprintf(stderr, "    first difference at byte %lld of %zu (view data at byte %lld): ref %02x fast %02x\n",
            (long long)d, out.bytes, (long long)((unsigned char *)out.v.data - out.mem),
            d >= 0 ? expect[d] : 0, d >= 0 ? one[d] : 0);
  }
  ++cases_run;
  elements_run += dlx_view_size(&out.v);
  free(orig);
  free(expect);
  free(one);
  operand_free(&out);
  for (int k = 0; k < nin; ++k) operand_free(&in[k]);
}

/* Random out shapes: small ones (every corner: 0-d, empty, extent 1) and medium ones (tiles, long rows). */
static void run_random(const tcase *tc, int trials) {
  for (int t = 0; t < trials; ++t) {
    int64_t shape[DLX_MAX_NDIM];
    int32_t ndim;
    if (t % 4 == 3) {
      ndim = (int32_t)rnd_in(1, 3);
      for (int32_t d = 0; d < ndim; ++d) shape[d] = rnd_in(1, ndim == 1 ? 300 : ndim == 2 ? 45 : 12);
    } else {
      ndim = (int32_t)rnd_in(0, 4);
      for (int32_t d = 0; d < ndim; ++d) shape[d] = chance(5) ? 0 : rnd_in(1, 5);
    }
    run_instance(tc, ndim, shape);
  }
}

/* Whether binary op takes dtype k: its class in kernels/op_table.h (float6/float4 never). */
static bool binary_supported(int k, dlx_binop op) {
  return !is_subbyte_kd(k) && dlx__op_takes(&dlx__binop_info[op], k);
}

static void test_random_copy_fill(void) {
  const DLDataType extra[] = {DLX_DTYPE_INT128, DLX_DTYPE_UINT128, DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 3),
                              DLX_DTYPE_COMPLEX32, DLX_DTYPE_MAKE(DLX_CODE_OPAQUE_HANDLE, 24, 1)};
  for (int k = 0; k < DLX_KD_COUNT + (int)(sizeof extra / sizeof extra[0]); ++k) {
    const DLDataType dt = k < DLX_KD_COUNT ? kd_dtypes[k] : extra[k - DLX_KD_COUNT];
    for (int packed = 0; packed <= (k < DLX_KD_COUNT && is_subbyte_kd(k)); ++packed) {
      tcase tc = {.kind = OP_COPY, .dto = dt, .dta = dt, .packed_o = packed, .packed_a = packed};
      run_random(&tc, 24);
      tc.kind = OP_FILL;
      run_random(&tc, 12);
      /* packed to padded and back */
      if (packed) {
        tc.kind = OP_COPY;
        tc.packed_a = false;
        run_random(&tc, 8);
        tc.packed_a = true;
        tc.packed_o = false;
        run_random(&tc, 8);
      }
    }
  }
}

static void test_random_cast(void) {
  for (int s = 0; s < DLX_KD_COUNT; ++s) {
    for (int d = 0; d < DLX_KD_COUNT; ++d) {
      tcase tc = {.kind = OP_CAST, .dto = kd_dtypes[d], .dta = kd_dtypes[s]};
      tc.packed_o = is_subbyte_kd(d) && chance(50);
      tc.packed_a = is_subbyte_kd(s) && chance(50);
      run_random(&tc, 8);
    }
  }
}

static void test_random_binary(void) {
  for (int op = 0; op < DLX_OP_COUNT; ++op) {
    for (int k = 0; k < DLX_KD_COUNT; ++k) {
      if (!binary_supported(k, (dlx_binop)op)) continue;
      const bool cmp = dlx__binop_info[op].bool_result;
      tcase tc = {.kind = OP_BINARY, .op = (dlx_binop)op, .dto = cmp ? DLX_DTYPE_BOOL : kd_dtypes[k],
                  .dta = kd_dtypes[k], .dtb = kd_dtypes[k]};
      run_random(&tc, 12);
    }
  }
  /* the one mixed pair: int64 with uint64, both orders, in the comparisons */
  for (int op = DLX_OP_LT; op <= DLX_OP_NE; ++op) {
    for (int order = 0; order < 2; ++order) {
      tcase tc = {.kind = OP_BINARY, .op = (dlx_binop)op, .dto = DLX_DTYPE_BOOL,
                  .dta = order ? DLX_DTYPE_UINT64 : DLX_DTYPE_INT64, .dtb = order ? DLX_DTYPE_INT64 : DLX_DTYPE_UINT64};
      run_random(&tc, 12);
    }
  }
}

static void test_random_fma(void) {
  const double scalars[] = {0.5, -1.0, 2.25, 3.0, -0.75, 1e3};
  for (int k = 0; k < DLX_KD_COUNT; ++k) {
    if (is_subbyte_kd(k)) continue;
    for (int partner = 0; partner <= (k >= DLX_KD_U8 && k <= DLX_KD_U64); ++partner) {
      tcase tc = {.kind = OP_FMA, .dto = kd_dtypes[k], .dtb = kd_dtypes[k]};
      tc.dta = partner ? kd_dtypes[k - DLX_KD_U8 + DLX_KD_I8] : kd_dtypes[k];
      for (int i = 0; i < 6; ++i) {
        tc.scalar = scalars[i];
        run_random(&tc, 3);
      }
    }
  }
}

/* Large enough for the real grain (64K elements), so the default split runs too. */
static void test_large_threaded(void) {
  const tcase cases[] = {
      {.kind = OP_BINARY, .op = DLX_OP_ADD, .dto = DLX_DTYPE_FLOAT32, .dta = DLX_DTYPE_FLOAT32, .dtb = DLX_DTYPE_FLOAT32},
      {.kind = OP_BINARY, .op = DLX_OP_MUL, .dto = DLX_DTYPE_FLOAT16, .dta = DLX_DTYPE_FLOAT16, .dtb = DLX_DTYPE_FLOAT16},
      {.kind = OP_CAST, .dto = DLX_DTYPE_FLOAT8_E4M3FN, .dta = DLX_DTYPE_FLOAT32},
      {.kind = OP_COPY, .dto = DLX_DTYPE_INT16, .dta = DLX_DTYPE_INT16},
      {.kind = OP_FMA, .scalar = 0.5, .dto = DLX_DTYPE_UINT8, .dta = DLX_DTYPE_INT8, .dtb = DLX_DTYPE_UINT8},
  };
  const int64_t shapes[][3] = {{300, 400, 1}, {3, 200, 180}, {150000, 1, 1}};
  const int32_t ndims[] = {2, 3, 1};
  int64_t before = dlx__pool_parallel_jobs();
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    for (int s = 0; s < 3; ++s) run_instance(&cases[c], ndims[s], shapes[s]);
  /* the two-thread runs went through the pool (when the machine lent it a second thread) */
  CHECK(dlx__pool_parallel_jobs() > before);
}

/* ---- aliasing ------------------------------------------------------------------------------------- */

/* Out and an input share memory: the result must equal the op computed into a separate copy of out's
 * buffer (the inputs then read the untouched originals), by the reference loop. */
static void check_aliased(const tcase *tc, const operand *out, const dlx_view *a, const dlx_view *b) {
  unsigned char *exp = malloc(out->bytes), *orig = malloc(out->bytes);
  memcpy(exp, out->mem, out->bytes);
  memcpy(orig, out->mem, out->bytes);
  dlx_view out_exp = out->v;
  out_exp.data = exp + ((unsigned char *)out->v.data - out->mem);
  bool was = dlx__ops_set_reference(true);
  CHECK_OK(call_op(tc, &out_exp, a, b));
  dlx__ops_set_reference(was);
  for (int mode = 0; mode < 3; ++mode) {
    memcpy(out->mem, orig, out->bytes);
    if (mode == 0) dlx__ops_set_reference(true); /* the reference loop on aliased views (temporaries) */
    dlx_set_num_threads(mode == 2 ? 2 : 1);
    int64_t g = dlx__ops_set_grain(mode == 2 ? 3 : 0);
    CHECK_OK(call_op(tc, &out->v, a, b));
    dlx__ops_set_grain(g);
    dlx_set_num_threads(0);
    dlx__ops_set_reference(false);
    canonicalize_nans(&out->v, exp, out->mem, out->mem);
    int64_t d = first_difference(exp, out->mem, out->bytes);
    CHECK_EQ(d, -1);
    if (d >= 0) {
      describe(tc, &out->v);
      fprintf(stderr, "    aliased, mode %d: first difference at byte %lld\n", mode, (long long)d);
    }
  }
  memcpy(out->mem, orig, out->bytes);
  free(exp);
  free(orig);
}

static void test_aliasing(void) {
  const tcase cases[] = {
      {.kind = OP_COPY, .dto = DLX_DTYPE_FLOAT32, .dta = DLX_DTYPE_FLOAT32},
      {.kind = OP_BINARY, .op = DLX_OP_ADD, .dto = DLX_DTYPE_INT32, .dta = DLX_DTYPE_INT32, .dtb = DLX_DTYPE_INT32},
      {.kind = OP_BINARY, .op = DLX_OP_SUB, .dto = DLX_DTYPE_FLOAT16, .dta = DLX_DTYPE_FLOAT16, .dtb = DLX_DTYPE_FLOAT16},
      {.kind = OP_CAST, .dto = DLX_DTYPE_FLOAT32, .dta = DLX_DTYPE_INT32},
      {.kind = OP_CAST, .dto = DLX_DTYPE_INT16, .dta = DLX_DTYPE_INT8}, /* different item sizes */
      {.kind = OP_FMA, .scalar = 2.0, .dto = DLX_DTYPE_FLOAT64, .dta = DLX_DTYPE_FLOAT64, .dtb = DLX_DTYPE_FLOAT64},
      {.kind = OP_COPY, .dto = DLX_DTYPE_FLOAT4_E2M1FN, .dta = DLX_DTYPE_FLOAT4_E2M1FN, .packed_o = true, .packed_a = true},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    const tcase *tc = &cases[c];
    for (int variant = 0; variant < 5; ++variant) {
      const int64_t n = 40;
      int64_t shape2[2] = {n, n};
      operand out = variant < 3 ? make_operand(tc->dto, tc->packed_o, 1, I64(4 * n), false)
                                : make_operand(tc->dto, tc->packed_o, 2, shape2, false);
      /* packed views cannot start on a half byte: only the exact alias */
      if (variant > 0 && packed_view(&out.v)) {
        operand_free(&out);
        continue;
      }
      /* the input: the output's memory reinterpreted with the input dtype where they differ in size */
      dlx_view in = out.v;
      in.dtype = tc->dta;
      const size_t osz = dlx_dtype_itemsize(tc->dto), isz = dlx_dtype_itemsize(tc->dta);
      if (osz != isz && !packed_view(&out.v)) {
        for (int32_t d = 0; d < in.ndim; ++d) in.strides[d] = in.strides[d] * (int64_t)osz / (int64_t)isz;
      }
      dlx_slice s = {0, 0, 1, false, false};
      switch (variant) {
        case 0: break;                                                   /* exact (or same bytes, other dtype) */
        case 1: s.step = -1; CHECK_OK(dlx_view_slice(&in, 0, &s, &in)); break; /* reversed */
        case 2:                                                          /* shifted by one element */
          s.start = 1, s.has_start = true;
          CHECK_OK(dlx_view_slice(&in, 0, &s, &in));
          s.start = 0, s.has_start = false, s.stop = 4 * n - 1, s.has_stop = true;
          {
            dlx_view o2 = out.v;
            CHECK_OK(dlx_view_slice(&o2, 0, &s, &out.v));
          }
          break;
        case 3: CHECK_OK(dlx_view_transpose(&in, &in)); break;          /* transposed square */
        default: {                                                        /* a row broadcast from inside out */
          dlx_view row;
          CHECK_OK(dlx_view_index(&in, 0, 7, &row));
          in = row;
          break;
        }
      }
      operand b;
      memset(&b, 0, sizeof b);
      const dlx_view *bv = NULL;
      if (nin_of(tc) == 2) {
        b = make_operand(tc->dtb, false, out.v.ndim, out.v.shape, true);
        bv = &b.v;
      }
      check_aliased(tc, &out, &in, bv);
      if (nin_of(tc) == 2) {
        /* the other operand aliased instead */
        if (dlx_dtype_equal(tc->dta, tc->dtb)) check_aliased(tc, &out, &b.v, &in);
        operand_free(&b);
      }
      operand_free(&out);
    }
  }
}

/* ---- semantics on chosen values ------------------------------------------------------------------- */

static dlx_view vec(void *data, DLDataType dt, int64_t n) {
  dlx_view v;
  dlx_status st = dlx_view_init(&v, data, dt, CPU, 1, &n, NULL);
  CHECK_OK(st);
  return v;
}

static void test_integer_semantics(void) {
  int32_t a[6] = {7, -7, 5, INT32_MIN, INT32_MAX, -9}, b[6] = {-2, 2, 0, -1, 1, 3}, o[6];
  dlx_view va = vec(a, DLX_DTYPE_INT32, 6), vb = vec(b, DLX_DTYPE_INT32, 6), vo = vec(o, DLX_DTYPE_INT32, 6);
  CHECK_OK(dlx_binary(DLX_OP_DIV, &vo, &va, &vb));
  CHECK_EQ(o[0], -3); /* truncation toward zero */
  CHECK_EQ(o[1], -3);
  CHECK_EQ(o[2], 0); /* x / 0 == 0 */
  CHECK_EQ(o[3], INT32_MIN); /* INT_MIN / -1 == INT_MIN */
  CHECK_EQ(o[4], INT32_MAX);
  CHECK_EQ(o[5], -3);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vo, &va, &vb));
  CHECK_EQ(o[4], INT32_MIN); /* wraps */
  CHECK_OK(dlx_binary(DLX_OP_MUL, &vo, &va, &vb));
  CHECK_EQ(o[3], INT32_MIN); /* INT_MIN * -1 wraps */
  int64_t a64[2] = {INT64_MIN, INT64_MAX}, b64[2] = {-1, 1}, o64[2];
  dlx_view va64 = vec(a64, DLX_DTYPE_INT64, 2), vb64 = vec(b64, DLX_DTYPE_INT64, 2), vo64 = vec(o64, DLX_DTYPE_INT64, 2);
  CHECK_OK(dlx_binary(DLX_OP_DIV, &vo64, &va64, &vb64));
  CHECK(o64[0] == INT64_MIN);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vo64, &va64, &vb64));
  CHECK(o64[1] == INT64_MIN);
  int8_t a8[3] = {-128, 127, -128}, b8[3] = {-1, 1, -128}, o8[3];
  dlx_view va8 = vec(a8, DLX_DTYPE_INT8, 3), vb8 = vec(b8, DLX_DTYPE_INT8, 3), vo8 = vec(o8, DLX_DTYPE_INT8, 3);
  CHECK_OK(dlx_binary(DLX_OP_DIV, &vo8, &va8, &vb8));
  CHECK_EQ(o8[0], -128);
  CHECK_EQ(o8[2], 1);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vo8, &va8, &vb8));
  CHECK_EQ(o8[1], -128);
  CHECK_OK(dlx_binary(DLX_OP_MUL, &vo8, &va8, &vb8));
  CHECK_EQ(o8[2], 0); /* (-128)^2 = 16384 wraps to 0 */
  uint16_t u[2] = {65535, 3}, v2[2] = {65535, 0}, uo[2];
  dlx_view vu = vec(u, DLX_DTYPE_UINT16, 2), vv = vec(v2, DLX_DTYPE_UINT16, 2), vuo = vec(uo, DLX_DTYPE_UINT16, 2);
  CHECK_OK(dlx_binary(DLX_OP_MUL, &vuo, &vu, &vv));
  CHECK_EQ(uo[0], 1); /* 65535^2 mod 2^16, with no int overflow on the way */
  CHECK_OK(dlx_binary(DLX_OP_DIV, &vuo, &vu, &vv));
  CHECK_EQ(uo[1], 0);
  CHECK_OK(dlx_binary(DLX_OP_SUB, &vuo, &vv, &vu));
  CHECK_EQ(uo[1], 65533);
}

static void test_bool_and_comparisons(void) {
  uint8_t a[4] = {0, 0, 1, 2}, b[4] = {0, 1, 0, 1}, o[4];
  dlx_view va = vec(a, DLX_DTYPE_BOOL, 4), vb = vec(b, DLX_DTYPE_BOOL, 4), vo = vec(o, DLX_DTYPE_BOOL, 4);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vo, &va, &vb)); /* or */
  CHECK(o[0] == 0 && o[1] == 1 && o[2] == 1 && o[3] == 1);
  CHECK_OK(dlx_binary(DLX_OP_MUL, &vo, &va, &vb)); /* and; the byte 2 counts as true */
  CHECK(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 1);
  CHECK_OK(dlx_binary(DLX_OP_EQ, &vo, &va, &vb));
  CHECK(o[3] == 1);
  float x[4] = {NAN, 1.0f, -0.0f, 2.0f}, y[4] = {1.0f, NAN, 0.0f, 2.0f};
  dlx_view vx = vec(x, DLX_DTYPE_FLOAT32, 4), vy = vec(y, DLX_DTYPE_FLOAT32, 4);
  CHECK_OK(dlx_binary(DLX_OP_LT, &vo, &vx, &vy));
  CHECK(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0);
  CHECK_OK(dlx_binary(DLX_OP_NE, &vo, &vx, &vy));
  CHECK(o[0] == 1 && o[1] == 1 && o[2] == 0 && o[3] == 0); /* NaN != anything; -0 == 0 */
  CHECK_OK(dlx_binary(DLX_OP_GE, &vo, &vx, &vy));
  CHECK(o[0] == 0 && o[2] == 1 && o[3] == 1);
  float c1[4] = {1, 2, 1, 3}, c2[4] = {1, 2, 1, 4};
  dlx_view vc1 = vec(c1, DLX_DTYPE_COMPLEX64, 2), vc2 = vec(c2, DLX_DTYPE_COMPLEX64, 2), vo2 = vec(o, DLX_DTYPE_BOOL, 2);
  CHECK_OK(dlx_binary(DLX_OP_EQ, &vo2, &vc1, &vc2));
  CHECK(o[0] == 1 && o[1] == 0); /* both parts compared */
  CHECK_OK(dlx_binary(DLX_OP_NE, &vo2, &vc1, &vc2));
  CHECK(o[0] == 0 && o[1] == 1);
}

/* Issue 20: int64 with uint64 went through float64 in the Python layer, where 2^63 + 1 == 2^63 - 1. The
 * core compares the pair exactly, both orders, all six comparisons: every pair of values at the limits,
 * around 2^53 and 2^63, against 128-bit arithmetic. */
static uint8_t exact_compare(dlx_binop op, __int128 x, __int128 y) {
  switch (op) {
    case DLX_OP_LT: return x < y;
    case DLX_OP_LE: return x <= y;
    case DLX_OP_GT: return x > y;
    case DLX_OP_GE: return x >= y;
    case DLX_OP_EQ: return x == y;
    default: return x != y;
  }
}

static void test_mixed_sign_comparisons(void) {
  const uint64_t p53 = (uint64_t)1 << 53, p63 = (uint64_t)1 << 63;
  const int64_t iv[] = {INT64_MIN, INT64_MIN + 1, -(int64_t)p53 - 1, -1, 0, 1, (int64_t)p53 - 1, (int64_t)p53,
                        (int64_t)p53 + 1, INT64_MAX - 1, INT64_MAX};
  const uint64_t uv[] = {0, 1, p53 - 1, p53, p53 + 1, p63 - 2, p63 - 1, p63, p63 + 1, UINT64_MAX - 1, UINT64_MAX};
  enum { NI = sizeof iv / sizeof iv[0], NU = sizeof uv / sizeof uv[0], N = NI * NU };
  int64_t a[N];
  uint64_t b[N];
  uint8_t o[N];
  for (int i = 0; i < NI; ++i)
    for (int j = 0; j < NU; ++j) a[i * NU + j] = iv[i], b[i * NU + j] = uv[j];
  dlx_view va = vec(a, DLX_DTYPE_INT64, N), vb = vec(b, DLX_DTYPE_UINT64, N), vo = vec(o, DLX_DTYPE_BOOL, N);
  for (int op = DLX_OP_LT; op <= DLX_OP_NE; ++op) {
    for (int ref = 0; ref < 2; ++ref) {
      const bool was = dlx__ops_set_reference(ref == 1);
      int bad = 0;
      CHECK_OK(dlx_binary((dlx_binop)op, &vo, &va, &vb));
      for (int e = 0; e < N; ++e) bad += o[e] != exact_compare((dlx_binop)op, a[e], b[e]);
      CHECK_OK(dlx_binary((dlx_binop)op, &vo, &vb, &va)); /* the other order */
      for (int e = 0; e < N; ++e) bad += o[e] != exact_compare((dlx_binop)op, b[e], a[e]);
      dlx__ops_set_reference(was);
      CHECK_EQ(bad, 0);
    }
  }
  /* arithmetic keeps one dtype; smaller signed dtypes widen first (no int32 / uint64 kernel) */
  int32_t i32[N];
  dlx_view vi32 = vec(i32, DLX_DTYPE_INT32, N), vu = vec(b, DLX_DTYPE_UINT64, N);
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &vu, &vb, &va), DLX_ERR_DTYPE_MISMATCH, "a is uint64 but b is int64");
  CHECK_FAIL(dlx_binary(DLX_OP_LT, &vo, &vi32, &vb), DLX_ERR_DTYPE_MISMATCH, "a is int32 but b is uint64");
  CHECK_FAIL(dlx_binary(DLX_OP_EQ, &va, &va, &vb), DLX_ERR_DTYPE_MISMATCH, "eq writes bool, but out is int64");
}

static void test_float_semantics(void) {
  /* complex: NumPy's formulas */
  double c[4] = {1, 2, 3, 4}, d[4] = {3, 4, 0, 0}, r[4];
  dlx_view vc = vec(c, DLX_DTYPE_COMPLEX128, 2), vd = vec(d, DLX_DTYPE_COMPLEX128, 2), vr = vec(r, DLX_DTYPE_COMPLEX128, 2);
  CHECK_OK(dlx_binary(DLX_OP_MUL, &vr, &vc, &vd));
  CHECK(r[0] == -5 && r[1] == 10);
  CHECK_OK(dlx_binary(DLX_OP_DIV, &vr, &vc, &vd));
  CHECK(fabs(r[0] - 0.44) < 1e-15 && fabs(r[1] - 0.08) < 1e-15);
  CHECK(isinf(r[2]) && isinf(r[3])); /* (3+4i) / 0 */
  /* float16: computed in float32, rounded back to nearest even */
  uint16_t h[2] = {0x3C00, 0x3C00}, e[2] = {0x1000 /* 2^-11 */, 0x1400 /* 2^-10 */}, ho[2];
  dlx_view vh = vec(h, DLX_DTYPE_FLOAT16, 2), ve = vec(e, DLX_DTYPE_FLOAT16, 2), vho = vec(ho, DLX_DTYPE_FLOAT16, 2);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vho, &vh, &ve));
  CHECK_EQ(ho[0], 0x3C00); /* 1 + 2^-11 ties to even: 1 */
  CHECK_EQ(ho[1], 0x3C01);
  uint16_t big[1] = {0x7BFF}; /* 65504 */
  dlx_view vbig = vec(big, DLX_DTYPE_FLOAT16, 1), vho1 = vec(ho, DLX_DTYPE_FLOAT16, 1);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vho1, &vbig, &vbig));
  CHECK_EQ(ho[0], 0x7C00); /* overflow: inf */
  /* bfloat16 */
  uint16_t bf[1] = {0x3F80}, bfe[1] = {0x3B80 /* 2^-8 */}, bo[1];
  dlx_view vbf = vec(bf, DLX_DTYPE_BFLOAT16, 1), vbfe = vec(bfe, DLX_DTYPE_BFLOAT16, 1), vbo = vec(bo, DLX_DTYPE_BFLOAT16, 1);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vbo, &vbf, &vbfe));
  CHECK_EQ(bo[0], 0x3F80);
  /* float8_e4m3fn: 448 + 448 overflows to NaN (no inf in that format) */
  uint8_t f8[1] = {0x7E}, f8o[1];
  dlx_view vf8 = vec(f8, DLX_DTYPE_FLOAT8_E4M3FN, 1), vf8o = vec(f8o, DLX_DTYPE_FLOAT8_E4M3FN, 1);
  CHECK_OK(dlx_binary(DLX_OP_ADD, &vf8o, &vf8, &vf8));
  CHECK_EQ(f8o[0], 0x7F);
  CHECK_OK(dlx_binary(DLX_OP_DIV, &vf8o, &vf8, &vf8));
  CHECK_EQ(f8o[0], 0x38); /* 1.0 */
}

static void test_fma_semantics(void) {
  uint8_t img[6] = {200, 10, 0, 0, 1, 255}, o[6];
  int8_t delta[6] = {100, -20, 1, 3, 1, -128};
  dlx_view vi = vec(img, DLX_DTYPE_UINT8, 6), vd = vec(delta, DLX_DTYPE_INT8, 6), vo = vec(o, DLX_DTYPE_UINT8, 6);
  CHECK_OK(dlx_fma(&vo, 1.0, &vd, &vi));
  CHECK_EQ(o[0], 255); /* saturated */
  CHECK_EQ(o[1], 0);   /* saturated below */
  CHECK_OK(dlx_fma(&vo, 0.5, &vd, &vi));
  CHECK_EQ(o[2], 0); /* 0.5 rounds half to even: 0 */
  CHECK_EQ(o[3], 2); /* 1.5 -> 2 */
  CHECK_EQ(o[4], 2); /* 1 + 0.5 = 1.5 -> 2 */
  CHECK_EQ(o[5], 191); /* 255 - 64 */
  CHECK_OK(dlx_fma(&vo, NAN, &vd, &vi));
  CHECK_EQ(o[0], 0); /* NaN -> 0 */
  float a[2] = {1.5f, 2.0f}, b[2] = {0.25f, -1.0f}, fo[2];
  dlx_view va = vec(a, DLX_DTYPE_FLOAT32, 2), vb = vec(b, DLX_DTYPE_FLOAT32, 2), vfo = vec(fo, DLX_DTYPE_FLOAT32, 2);
  CHECK_OK(dlx_fma(&vfo, 2.0, &va, &vb));
  CHECK(fo[0] == 3.25f && fo[1] == 3.0f);
  int32_t ia[1] = {INT32_MAX}, ib[1] = {INT32_MAX}, io[1];
  dlx_view via = vec(ia, DLX_DTYPE_INT32, 1), vib = vec(ib, DLX_DTYPE_INT32, 1), vio = vec(io, DLX_DTYPE_INT32, 1);
  CHECK_OK(dlx_fma(&vio, 1.0, &via, &vib));
  CHECK_EQ(io[0], INT32_MAX); /* saturated, not wrapped */
  CHECK_OK(dlx_fma(&vio, -3.0, &via, &vib));
  CHECK_EQ(io[0], INT32_MIN);
}

static void test_cast_semantics(void) {
  float f[8] = {NAN, 1e10f, -1e10f, -1.5f, 2.99f, -0.0f, INFINITY, 300.7f};
  int32_t i32[8];
  uint8_t u8[8], bl[8];
  dlx_view vf = vec(f, DLX_DTYPE_FLOAT32, 8), vi = vec(i32, DLX_DTYPE_INT32, 8), vu = vec(u8, DLX_DTYPE_UINT8, 8),
           vb = vec(bl, DLX_DTYPE_BOOL, 8);
  CHECK_OK(dlx_cast(&vi, &vf));
  CHECK_EQ(i32[0], 0);
  CHECK_EQ(i32[1], INT32_MAX);
  CHECK_EQ(i32[2], INT32_MIN);
  CHECK_EQ(i32[3], -1);
  CHECK_EQ(i32[4], 2);
  CHECK_EQ(i32[6], INT32_MAX);
  CHECK_OK(dlx_cast(&vu, &vf));
  CHECK_EQ(u8[3], 0); /* negative -> 0 */
  CHECK_EQ(u8[7], 255);
  CHECK_OK(dlx_cast(&vb, &vf));
  CHECK(bl[0] == 1 && bl[5] == 0 && bl[3] == 1); /* NaN true, -0 false */
  uint8_t two[1] = {2};
  int64_t i64[1];
  dlx_view vtwo = vec(two, DLX_DTYPE_BOOL, 1), vi64 = vec(i64, DLX_DTYPE_INT64, 1);
  CHECK_OK(dlx_cast(&vi64, &vtwo));
  CHECK_EQ(i64[0], 1);
  int64_t big[1] = {(1 << 24) + 1};
  float fb[1];
  dlx_view vbig = vec(big, DLX_DTYPE_INT64, 1), vfb = vec(fb, DLX_DTYPE_FLOAT32, 1);
  CHECK_OK(dlx_cast(&vfb, &vbig));
  CHECK(fb[0] == 16777216.0f);
  int32_t wrap[1] = {300};
  int8_t w8[1];
  dlx_view vw = vec(wrap, DLX_DTYPE_INT32, 1), vw8 = vec(w8, DLX_DTYPE_INT8, 1);
  CHECK_OK(dlx_cast(&vw8, &vw));
  CHECK_EQ(w8[0], 44); /* modular */
  float cx[2] = {3.5f, -2.0f};
  double re[1];
  dlx_view vcx = vec(cx, DLX_DTYPE_COMPLEX64, 1), vre = vec(re, DLX_DTYPE_FLOAT64, 1);
  CHECK_OK(dlx_cast(&vre, &vcx));
  CHECK(re[0] == 3.5);
  /* narrow formats */
  float g[4] = {65520.0f, 448.0f, 1e6f, 1.0f};
  uint16_t h[4];
  uint8_t e8[4];
  dlx_view vg = vec(g, DLX_DTYPE_FLOAT32, 4), vh = vec(h, DLX_DTYPE_FLOAT16, 4), ve8 = vec(e8, DLX_DTYPE_FLOAT8_E4M3FN, 4);
  CHECK_OK(dlx_cast(&vh, &vg));
  CHECK_EQ(h[0], 0x7C00);
  CHECK_EQ(h[3], 0x3C00);
  CHECK_OK(dlx_cast(&ve8, &vg));
  CHECK_EQ(e8[1], 0x7E);
  CHECK_EQ(e8[2], 0x7F);
  CHECK_EQ(e8[3], 0x38);
  /* float64 sources round once (convert.h): 1 + 2^-8 + 2^-40 is above the bfloat16 tie */
  double dd[1] = {1.0 + 1.0 / 256 + 1.0 / 1099511627776.0};
  uint16_t bf[1];
  dlx_view vdd = vec(dd, DLX_DTYPE_FLOAT64, 1), vbf = vec(bf, DLX_DTYPE_BFLOAT16, 1);
  CHECK_OK(dlx_cast(&vbf, &vdd));
  CHECK_EQ(bf[0], 0x3F81);
  /* narrow -> narrow and narrow -> complex */
  CHECK_OK(dlx_cast(&ve8, &vh));
  CHECK_EQ(e8[3], 0x38);
  double c128[8];
  dlx_view vc = vec(c128, DLX_DTYPE_COMPLEX128, 4);
  CHECK_OK(dlx_cast(&vc, &vh));
  CHECK(c128[6] == 1.0 && c128[7] == 0.0 && isinf(c128[0]));
}


static void test_packed_subbyte(void) {
  /* float4_e2m1fn packed two per byte, element 0 in the low nibble, odd length */
  float f[7] = {0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  unsigned char packed[5] = {0, 0, 0, 0, 0xA0}; /* the high nibble of byte 3 is outside the view */
  packed[3] = 0xF0;
  dlx_view vf = vec(f, DLX_DTYPE_FLOAT32, 7), vp = vec(packed, DLX_DTYPE_FLOAT4_E2M1FN, 7);
  CHECK_OK(dlx_cast(&vp, &vf));
  CHECK_EQ(packed[0], 0x21); /* codes 1 (0.5) and 2 (1.0) */
  CHECK_EQ(packed[1], 0x43);
  CHECK_EQ(packed[2], 0x65);
  CHECK_EQ(packed[3], 0xF7); /* 6.0 is code 7; the neighbour nibble kept */
  CHECK_EQ(packed[4], 0xA0);
  float back[7];
  dlx_view vb = vec(back, DLX_DTYPE_FLOAT32, 7);
  CHECK_OK(dlx_cast(&vb, &vp));
  CHECK(memcmp(back, f, sizeof f) == 0);
  /* a strided (every other element, reversed) packed view */
  dlx_view rev;
  dlx_slice s = {6, 0, -2, true, false};
  CHECK_OK(dlx_view_slice(&vp, 0, &s, &rev));
  float r4[4];
  dlx_view vr4 = vec(r4, DLX_DTYPE_FLOAT32, 4);
  CHECK_OK(dlx_cast(&vr4, &rev));
  CHECK(r4[0] == 6.0f && r4[1] == 3.0f && r4[2] == 1.5f && r4[3] == 0.5f);
  /* float6: four elements in three bytes */
  unsigned char p6[3] = {0};
  float f6[4] = {1.0f, -1.0f, 7.5f, 0.0f};
  dlx_view v6 = vec(p6, DLX_DTYPE_FLOAT6_E2M3FN, 4), vf6 = vec(f6, DLX_DTYPE_FLOAT32, 4);
  CHECK_OK(dlx_cast(&v6, &vf6));
  float b6[4];
  dlx_view vb6 = vec(b6, DLX_DTYPE_FLOAT32, 4);
  CHECK_OK(dlx_cast(&vb6, &v6));
  CHECK(memcmp(b6, f6, sizeof f6) == 0);
  CHECK_EQ(p6[0] & 0x3F, 0x08); /* 1.0 = 0.01.000 */
  /* fill a packed view with a scalar */
  dlx_scalar_buf sb;
  dlx_view sv;
  CHECK_OK(dlx_scalar_view(&sv, &sb, DLX_DTYPE_FLOAT4_E2M1FN, -6.0, 0));
  CHECK_OK(dlx_fill(&vp, &sv));
  CHECK(packed[0] == 0xFF && packed[3] == 0xFF && packed[4] == 0xA0);
}


static void test_empty_and_inplace(void) {
  float a[4] = {1, 2, 3, 4};
  dlx_view empty, va = vec(a, DLX_DTYPE_FLOAT32, 4);
  CHECK_OK(dlx_view_init(&empty, NULL, DLX_DTYPE_FLOAT32, CPU, 2, I64(0, 4), NULL));
  CHECK_OK(dlx_binary(DLX_OP_ADD, &empty, &empty, &va)); /* (0,4) from (0,4) and (4,) */
  CHECK_OK(dlx_copy(&empty, &va));
  /* in place: out is a */
  CHECK_OK(dlx_binary(DLX_OP_MUL, &va, &va, &va));
  CHECK(a[0] == 1 && a[1] == 4 && a[3] == 16);
  /* host memory of different kinds is one address space */
  dlx_view pinned = va;
  pinned.device = (DLDevice){kDLCUDAHost, 0};
  CHECK_OK(dlx_binary(DLX_OP_ADD, &va, &va, &pinned));
  CHECK(a[1] == 8);
}

/* ---- errors ---------------------------------------------------------------------------------------- */

static void test_errors(void) {
  float f[6] = {0}, g[6] = {0};
  int32_t i[6] = {0};
  uint8_t bl[6] = {0};
  dlx_view vf = vec(f, DLX_DTYPE_FLOAT32, 6), vg = vec(g, DLX_DTYPE_FLOAT32, 6), vi = vec(i, DLX_DTYPE_INT32, 6),
           vb = vec(bl, DLX_DTYPE_BOOL, 6);
  /* NULLs */
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, NULL, &vf, &vf), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &vf, NULL, &vf), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &vf, &vf, NULL), DLX_ERR_NULL_ARGUMENT, "'b'");
  CHECK_FAIL(dlx_copy(NULL, &vf), DLX_ERR_NULL_ARGUMENT, "'dst'");
  CHECK_FAIL(dlx_copy(&vf, NULL), DLX_ERR_NULL_ARGUMENT, "'src'");
  CHECK_FAIL(dlx_fill(&vf, NULL), DLX_ERR_NULL_ARGUMENT, "'value'");
  CHECK_FAIL(dlx_fill(NULL, &vf), DLX_ERR_NULL_ARGUMENT, "'dst'");
  CHECK_FAIL(dlx_cast(NULL, &vf), DLX_ERR_NULL_ARGUMENT, "'dst'");
  CHECK_FAIL(dlx_cast(&vf, NULL), DLX_ERR_NULL_ARGUMENT, "'src'");
  CHECK_FAIL(dlx_fma(NULL, 1, &vf, &vf), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_fma(&vf, 1, NULL, &vf), DLX_ERR_NULL_ARGUMENT, "'t1'");
  CHECK_FAIL(dlx_fma(&vf, 1, &vf, NULL), DLX_ERR_NULL_ARGUMENT, "'t2'");
  CHECK_FAIL(dlx_binary((dlx_binop)99, &vf, &vf, &vf), DLX_ERR_INVALID_ARGUMENT, "op 99");
  CHECK_FAIL(dlx_unary(DLX_UNOP_NEG, NULL, &vf), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_unary(DLX_UNOP_NEG, &vf, NULL), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_unary((dlx_unop)77, &vf, &vf), DLX_ERR_INVALID_ARGUMENT, "op 77 is not a dlx_unop");
  CHECK_FAIL(dlx_unary(DLX_UNOP_NEG, &vi, &vf), DLX_ERR_DTYPE_MISMATCH, "out is int32 but a is float32");
  CHECK_FAIL(dlx_unary(DLX_UNOP_NEG, &vb, &vb), DLX_ERR_UNSUPPORTED, "neg is not supported for bool");
  /* dtype mismatches name both dtypes */
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &vf, &vf, &vi), DLX_ERR_DTYPE_MISMATCH, "a is float32 but b is int32");
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &vi, &vf, &vg), DLX_ERR_DTYPE_MISMATCH, "out is int32 but a is float32");
  CHECK_FAIL(dlx_binary(DLX_OP_LT, &vf, &vf, &vg), DLX_ERR_DTYPE_MISMATCH, "lt writes bool, but out is float32");
  CHECK_FAIL(dlx_copy(&vf, &vi), DLX_ERR_DTYPE_MISMATCH, "dst is float32 but src is int32");
  CHECK_FAIL(dlx_fill(&vi, &vf), DLX_ERR_DTYPE_MISMATCH, "dst is int32 but value is float32");
  CHECK_FAIL(dlx_fma(&vf, 1, &vi, &vf), DLX_ERR_DTYPE_MISMATCH, "t1 is int32 but t2 is float32");
  CHECK_FAIL(dlx_fma(&vi, 1, &vf, &vf), DLX_ERR_DTYPE_MISMATCH, "out is int32 but t2 is float32");
  uint8_t u8[6];
  int8_t i8[6];
  int16_t i16[6];
  dlx_view vu8 = vec(u8, DLX_DTYPE_UINT8, 6), vi8 = vec(i8, DLX_DTYPE_INT8, 6), vi16 = vec(i16, DLX_DTYPE_INT16, 6);
  CHECK_OK(dlx_fma(&vu8, 1, &vi8, &vu8)); /* the signed partner */
  CHECK_FAIL(dlx_fma(&vi8, 1, &vu8, &vi8), DLX_ERR_DTYPE_MISMATCH, "t1 is uint8 but t2 is int8");
  CHECK_FAIL(dlx_fma(&vu8, 1, &vi16, &vu8), DLX_ERR_DTYPE_MISMATCH, "t1 is int16 but t2 is uint8");
  /* unsupported op/dtype pairs */
  CHECK_FAIL(dlx_binary(DLX_OP_SUB, &vb, &vb, &vb), DLX_ERR_UNSUPPORTED, "sub is not supported for bool");
  CHECK_FAIL(dlx_binary(DLX_OP_DIV, &vb, &vb, &vb), DLX_ERR_UNSUPPORTED, "div is not supported for bool");
  float c[12];
  dlx_view vc = vec(c, DLX_DTYPE_COMPLEX64, 6);
  CHECK_FAIL(dlx_binary(DLX_OP_LT, &vb, &vc, &vc), DLX_ERR_UNSUPPORTED, "lt is not supported for complex64");
  CHECK_FAIL(dlx_binary(DLX_OP_GE, &vb, &vc, &vc), DLX_ERR_UNSUPPORTED, "ge is not supported for complex64");
  uint8_t p4[6];
  dlx_view v4 = vec(p4, DLX_DTYPE_FLOAT4_E2M1FN, 6);
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &v4, &v4, &v4), DLX_ERR_UNSUPPORTED, "float4_e2m1fn (float6/float4 take part only");
  CHECK_FAIL(dlx_fma(&v4, 1, &v4, &v4), DLX_ERR_UNSUPPORTED, "float4_e2m1fn");
  uint64_t w[12];
  dlx_view v128 = vec(w, DLX_DTYPE_INT128, 6);
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &v128, &v128, &v128), DLX_ERR_UNSUPPORTED, "add is not supported for dtype int128");
  CHECK_FAIL(dlx_cast(&vf, &v128), DLX_ERR_UNSUPPORTED, "no conversion from int128 to float32");
  CHECK_OK(dlx_copy(&v128, &v128)); /* copies move bytes of any dtype */
  dlx_view vu128 = vec(w, DLX_DTYPE_UINT128, 6); /* uint128, as int128: byte moves only (no kernel) */
  CHECK_FAIL(dlx_binary(DLX_OP_MUL, &vu128, &vu128, &vu128), DLX_ERR_UNSUPPORTED, "mul is not supported for dtype uint128");
  CHECK_FAIL(dlx_cast(&vu128, &vf), DLX_ERR_UNSUPPORTED, "no conversion from float32 to uint128");
  dlx_view vec3 = vec(p4, DLX_DTYPE_MAKE(DLX_CODE_FLOAT4_E2M1FN, 4, 3), 2);
  CHECK_FAIL(dlx_copy(&vec3, &vec3), DLX_ERR_UNSUPPORTED, "only scalar float6/float4");
  /* read-only, broadcast outputs */
  dlx_view ro = vf;
  ro.flags |= DLX_VIEW_READ_ONLY;
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &ro, &vf, &vf), DLX_ERR_READ_ONLY, "out is read-only");
  CHECK_FAIL(dlx_copy(&ro, &vf), DLX_ERR_READ_ONLY, "dst is read-only");
  CHECK_OK(dlx_copy(&vg, &ro)); /* reading read-only data is fine */
  dlx_view bc;
  CHECK_OK(dlx_view_broadcast_to(&vf, 2, I64(3, 6), &bc));
  CHECK_FAIL(dlx_copy(&bc, &vf), DLX_ERR_BAD_STRIDE, "stride 0 at dimension 0 (extent 3)");
  /* shapes */
  dlx_view m;
  CHECK_OK(dlx_view_init(&m, f, DLX_DTYPE_FLOAT32, CPU, 2, I64(2, 3), NULL));
  dlx_view five = vec(g, DLX_DTYPE_FLOAT32, 5);
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &m, &m, &five), DLX_ERR_BROADCAST, "b of shape (5) does not broadcast to out's shape (2,3)");
  CHECK_FAIL(dlx_copy(&five, &m), DLX_ERR_BROADCAST, "src of shape (2,3) does not broadcast to dst's shape (5)");
  CHECK_FAIL(dlx_fill(&m, &vf), DLX_ERR_BROADCAST, "value of shape (6)");
  /* devices */
  dlx_view dev = vf;
  dev.device = (DLDevice){kDLCUDA, 1};
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &dev, &vf, &vf), DLX_ERR_DEVICE_MISMATCH, "out is on cuda:1");
  CHECK_FAIL(dlx_cast(&vf, &dev), DLX_ERR_DEVICE_MISMATCH, "src is on cuda:1");
  CHECK_FAIL(dlx_fma(&vf, 1, &vf, &dev), DLX_ERR_DEVICE_MISMATCH, "t2 is on cuda:1");
  /* malformed views */
  dlx_view bad = vf;
  bad.ndim = 65;
  CHECK_FAIL(dlx_copy(&vf, &bad), DLX_ERR_RANK, "src has ndim 65");
  bad = vf;
  bad.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 24, 1);
  CHECK_FAIL(dlx_copy(&bad, &vf), DLX_ERR_INVALID_DTYPE, "dst has illegal dtype (code 2, bits 24, lanes 1)");
  bad = vf;
  bad.shape[0] = -1;
  CHECK_FAIL(dlx_binary(DLX_OP_ADD, &vf, &vf, &bad), DLX_ERR_NEGATIVE_EXTENT, "b has negative extent -1");
  bad = vf;
  bad.data = NULL;
  CHECK_FAIL(dlx_fill(&vf, &bad), DLX_ERR_NULL_DATA, "value has elements but NULL data");
  /* element offsets past the address space */
  bad = vf;
  bad.strides[0] = INT64_MAX / 2;
  CHECK_FAIL(dlx_copy(&vf, &bad), DLX_ERR_OVERFLOW, "overflow");
  /* the one allocation an op makes: a temporary for an overlapping input larger than the address space
   * (256 TiB, beyond any overcommit);
   * nothing is written before it fails */
  if (!UNDER_ASAN && !UNDER_TSAN) {
    dlx_view huge_out = vf, huge_in = vf;
    huge_out.shape[0] = huge_in.shape[0] = (int64_t)1 << 46;
    huge_in.data = f + 1;
    CHECK_FAIL(dlx_copy(&huge_out, &huge_in), DLX_ERR_OUT_OF_MEMORY, "dlx_copy: out of memory allocating 281474976710656 bytes");
  }
}

/* ---- the op table's element rules on edge values (NumPy 2's answers, worked out by hand) ----------- */

#define RULE_REPS 37 /* copies of a case's values: long enough for every loop's vector body and its tail */

/* Whether two elements agree: bit for bit, except that any NaN matches any NaN of float32 / float64 for
 * arithmetic (ops.h leaves which NaN an operation passes on open). */
static bool same_element(const unsigned char *x, const unsigned char *y, DLDataType dt, bool arithmetic) {
  const size_t size = dlx_dtype_itemsize(dt);
  if (memcmp(x, y, size) == 0) return true;
  if (!arithmetic || dt.code != DLX_CODE_FLOAT || (size != 4 && size != 8)) return false;
  if (size == 4) {
    float f, g;
    memcpy(&f, x, 4);
    memcpy(&g, y, 4);
    return isnan(f) && isnan(g);
  }
  double f, g;
  memcpy(&f, x, 8);
  memcpy(&g, y, 8);
  return isnan(f) && isnan(g);
}

/* A 1-d view over RULE_REPS copies of the n elements at vals (a fresh buffer; free its data). */
static dlx_view tiled(const void *vals, DLDataType dt, int64_t n) {
  const size_t size = dlx_dtype_itemsize(dt);
  unsigned char *p = malloc((size_t)(n * RULE_REPS) * size + 1);
  for (int r = 0; r < RULE_REPS; ++r) memcpy(p + (size_t)(r * n) * size, vals, (size_t)n * size);
  return vec(p, dt, n * RULE_REPS);
}

/* out = op(ins...) on nin inputs (1 unary, 2 binary, 3 ternary) of the given dtypes, over RULE_REPS copies
 * of n values, on the fast path and on the reference path: every copy must be want. */
static void check_rule(int nin, int op, DLDataType out_dt, const DLDataType *dts, const void *const *ins,
                       const void *want, int64_t n) {
  const dlx__op_info *row = nin == 1 ? &dlx__unop_info[op] : nin == 2 ? &dlx__binop_info[op] : &dlx__ternop_info[op];
  dlx_view in[3], out = tiled(want, out_dt, n);
  for (int k = 0; k < nin; ++k) in[k] = tiled(ins[k], dts[k], n);
  const size_t size = dlx_dtype_itemsize(out_dt);
  for (int ref = 0; ref < 2; ++ref) {
    memset(out.data, 0xA5, (size_t)(n * RULE_REPS) * size);
    const bool was = dlx__ops_set_reference(ref == 1);
    dlx_status st = nin == 1   ? dlx_unary((dlx_unop)op, &out, &in[0])
                    : nin == 2 ? dlx_binary((dlx_binop)op, &out, &in[0], &in[1])
                               : dlx_ternary((dlx_ternop)op, &out, &in[0], &in[1], &in[2]);
    dlx__ops_set_reference(was);
    CHECK_OK(st);
    int bad = 0;
    for (int64_t e = 0; e < n * RULE_REPS; ++e) {
      const unsigned char *got = (const unsigned char *)out.data + (size_t)e * size;
      const unsigned char *exp = (const unsigned char *)want + (size_t)(e % n) * size;
      if (same_element(got, exp, out_dt, row->kind != DLX__KIND_SELECT) || bad++ > 0) continue;
      uint64_t g = 0, w = 0;
      memcpy(&g, got, size);
      memcpy(&w, exp, size);
      fprintf(stderr, "  %s (%s path), element %lld: got bits 0x%llx, want 0x%llx\n", row->name, ref ? "reference" : "fast",
              (long long)(e % n), (unsigned long long)g, (unsigned long long)w);
    }
    CHECK_EQ(bad, 0);
  }
  for (int k = 0; k < nin; ++k) free(in[k].data);
  free(out.data);
}

static void check_unary(dlx_unop op, DLDataType dt, const void *a, const void *want, int64_t n) {
  const DLDataType out = dlx__unop_info[op].bool_result ? DLX_DTYPE_BOOL : dt;
  check_rule(1, op, out, (const DLDataType[]){dt}, (const void *const[]){a}, want, n);
}

static void check_binary(dlx_binop op, DLDataType dt, const void *a, const void *b, const void *want, int64_t n) {
  const DLDataType out = dlx__binop_info[op].bool_result ? DLX_DTYPE_BOOL : dt;
  check_rule(2, op, out, (const DLDataType[]){dt, dt}, (const void *const[]){a, b}, want, n);
}

/* floor_divide and remainder: Python's // and % (the quotient floored, the remainder with b's sign);
 * integers: x // 0 and x % 0 are 0, INT_MIN // -1 wraps to INT_MIN (NumPy warns and gives the same). */
static void test_rule_floor_divide_remainder(void) {
  const DLDataType i32 = DLX_DTYPE_INT32;
  const int32_t a[8] = {INT32_MIN, 7, -7, 7, -7, 5, 0, -1}, b[8] = {-1, 2, 2, -2, -2, 0, 0, 3};
  check_binary(DLX_OP_FLOOR_DIVIDE, i32, a, b, (const int32_t[]){INT32_MIN, 3, -4, -4, 3, 0, 0, -1}, 8);
  check_binary(DLX_OP_REMAINDER, i32, a, b, (const int32_t[]){0, 1, 1, -1, -1, 0, 0, 2}, 8);
  const int64_t a64[3] = {INT64_MIN, INT64_MIN, INT64_MAX}, b64[3] = {-1, 0, -1};
  check_binary(DLX_OP_FLOOR_DIVIDE, DLX_DTYPE_INT64, a64, b64, (const int64_t[]){INT64_MIN, 0, -INT64_MAX}, 3);
  check_binary(DLX_OP_REMAINDER, DLX_DTYPE_INT64, a64, b64, (const int64_t[]){0, 0, 0}, 3);
  const int8_t a8[3] = {-128, -128, 127}, b8[3] = {-1, 0, -128};
  check_binary(DLX_OP_FLOOR_DIVIDE, DLX_DTYPE_INT8, a8, b8, (const int8_t[]){-128, 0, -1}, 3);
  check_binary(DLX_OP_REMAINDER, DLX_DTYPE_INT8, a8, b8, (const int8_t[]){0, 0, -1}, 3);
  const uint8_t u[4] = {7, 200, 0, 255}, v[4] = {0, 7, 0, 16};
  check_binary(DLX_OP_FLOOR_DIVIDE, DLX_DTYPE_UINT8, u, v, (const uint8_t[]){0, 28, 0, 15}, 4);
  check_binary(DLX_OP_REMAINDER, DLX_DTYPE_UINT8, u, v, (const uint8_t[]){0, 4, 0, 15}, 4);
  /* floats: x % 0 is NaN, -0.0 % 3 is +0.0 and 0.0 % -3 is -0.0 (the sign of b); x // 0 is x / 0 */
  const double x[6] = {5.0, -0.0, 0.0, -1.0, 1.0, 7.5}, y[6] = {0.0, 3.0, -3.0, 3.0, -3.0, 2.0};
  check_binary(DLX_OP_REMAINDER, DLX_DTYPE_FLOAT64, x, y, (const double[]){NAN, 0.0, -0.0, 2.0, -2.0, 1.5}, 6);
  const double p[4] = {1.0, -1.0, 0.0, 7.0}, q[4] = {0.0, 0.0, 0.0, -2.0};
  check_binary(DLX_OP_FLOOR_DIVIDE, DLX_DTYPE_FLOAT64, p, q, (const double[]){INFINITY, -INFINITY, NAN, -4.0}, 4);
  const float xf[6] = {5.0f, -0.0f, 0.0f, -1.0f, 1.0f, 7.5f}, yf[6] = {0.0f, 3.0f, -3.0f, 3.0f, -3.0f, 2.0f};
  check_binary(DLX_OP_REMAINDER, DLX_DTYPE_FLOAT32, xf, yf, (const float[]){NAN, 0.0f, -0.0f, 2.0f, -2.0f, 1.5f}, 6);
}

/* Shifts (NumPy): a count >= the bit width, or negative, gives 0 (left, and right of a >= 0) or -1 (right
 * of a < 0); a right shift of a signed integer is arithmetic. */
static void test_rule_shifts(void) {
  const int8_t a8[8] = {1, 1, 1, -5, -5, -5, -128, 64}, b8[8] = {7, 8, -1, 8, -1, 100, 1, 1};
  check_binary(DLX_OP_LEFT_SHIFT, DLX_DTYPE_INT8, a8, b8, (const int8_t[]){-128, 0, 0, 0, 0, 0, 0, -128}, 8);
  check_binary(DLX_OP_RIGHT_SHIFT, DLX_DTYPE_INT8, a8, b8, (const int8_t[]){0, 0, 0, -1, -1, -1, -64, 32}, 8);
  const uint8_t u8[4] = {1, 255, 128, 255}, c8[4] = {7, 8, 200, 1};
  check_binary(DLX_OP_LEFT_SHIFT, DLX_DTYPE_UINT8, u8, c8, (const uint8_t[]){128, 0, 0, 254}, 4);
  check_binary(DLX_OP_RIGHT_SHIFT, DLX_DTYPE_UINT8, u8, c8, (const uint8_t[]){0, 0, 0, 127}, 4);
  const int64_t a64[5] = {1, -1, 5, -1, INT64_MIN}, b64[5] = {63, 64, -1, -64, 63};
  check_binary(DLX_OP_LEFT_SHIFT, DLX_DTYPE_INT64, a64, b64, (const int64_t[]){INT64_MIN, 0, 0, 0, 0}, 5);
  check_binary(DLX_OP_RIGHT_SHIFT, DLX_DTYPE_INT64, a64, b64, (const int64_t[]){0, -1, 0, -1, -1}, 5);
  const uint64_t u64[3] = {1, UINT64_MAX, UINT64_MAX}, c64[3] = {64, 63, 65};
  check_binary(DLX_OP_LEFT_SHIFT, DLX_DTYPE_UINT64, u64, c64, (const uint64_t[]){0, UINT64_C(1) << 63, 0}, 3);
  check_binary(DLX_OP_RIGHT_SHIFT, DLX_DTYPE_UINT64, u64, c64, (const uint64_t[]){0, 1, 0}, 3);
  const int16_t a16[4] = {-32768, 3, -3, 1}, b16[4] = {15, 16, 17, -32768};
  check_binary(DLX_OP_LEFT_SHIFT, DLX_DTYPE_INT16, a16, b16, (const int16_t[]){0, 0, 0, 0}, 4);
  check_binary(DLX_OP_RIGHT_SHIFT, DLX_DTYPE_INT16, a16, b16, (const int16_t[]){-1, 0, -1, 0}, 4);
}

/* power of integers wraps; a negative exponent gives 1 / a ** -b truncated: 1 for a == 1, +-1 for a == -1
 * by the exponent's parity, else 0 (0 ** -1 included; NumPy refuses negative integer powers instead). */
static void test_rule_power(void) {
  const int32_t a[10] = {2, -3, 0, 3, 2, 2, 1, -1, -1, 0}, b[10] = {10, 3, 0, 40, 31, -1, -5, -3, -2, -1};
  check_binary(DLX_OP_POWER, DLX_DTYPE_INT32, a, b, (const int32_t[]){1024, -27, 1, 689956897, INT32_MIN, 0, 1, -1, 1, 0}, 10);
  const int8_t a8[4] = {-2, 3, 1, -1}, b8[4] = {7, 5, -128, -128};
  check_binary(DLX_OP_POWER, DLX_DTYPE_INT8, a8, b8, (const int8_t[]){-128, -13, 1, 1}, 4);
  const uint8_t u[3] = {3, 2, 0}, v[3] = {5, 8, 0};
  check_binary(DLX_OP_POWER, DLX_DTYPE_UINT8, u, v, (const uint8_t[]){243, 0, 1}, 3);
  const int64_t a64[2] = {-1, 3}, b64[2] = {INT64_MIN, 41};
  check_binary(DLX_OP_POWER, DLX_DTYPE_INT64, a64, b64, (const int64_t[]){1, INT64_C(-420491770248316829)}, 2);
}

/* maximum / minimum: a NaN in either operand wins, a tie (-0.0 with +0.0) gives b; fmax / fmin: a NaN loses
 * to a number, a tie gives a (dlx/ops.h; NumPy's float64 loops give the same for maximum and minimum). */
static void test_rule_extrema(void) {
  const double x[6] = {NAN, 1.0, NAN, -0.0, 0.0, 2.0}, y[6] = {1.0, NAN, NAN, 0.0, -0.0, 3.0};
  check_binary(DLX_OP_MAXIMUM, DLX_DTYPE_FLOAT64, x, y, (const double[]){NAN, NAN, NAN, 0.0, -0.0, 3.0}, 6);
  check_binary(DLX_OP_MINIMUM, DLX_DTYPE_FLOAT64, x, y, (const double[]){NAN, NAN, NAN, 0.0, -0.0, 2.0}, 6);
  check_binary(DLX_OP_FMAX, DLX_DTYPE_FLOAT64, x, y, (const double[]){1.0, 1.0, NAN, -0.0, 0.0, 3.0}, 6);
  check_binary(DLX_OP_FMIN, DLX_DTYPE_FLOAT64, x, y, (const double[]){1.0, 1.0, NAN, -0.0, 0.0, 2.0}, 6);
  const float xf[6] = {NAN, 1.0f, NAN, -0.0f, 0.0f, 2.0f}, yf[6] = {1.0f, NAN, NAN, 0.0f, -0.0f, 3.0f};
  check_binary(DLX_OP_MAXIMUM, DLX_DTYPE_FLOAT32, xf, yf, (const float[]){NAN, NAN, NAN, 0.0f, -0.0f, 3.0f}, 6);
  check_binary(DLX_OP_MINIMUM, DLX_DTYPE_FLOAT32, xf, yf, (const float[]){NAN, NAN, NAN, 0.0f, -0.0f, 2.0f}, 6);
  check_binary(DLX_OP_FMAX, DLX_DTYPE_FLOAT32, xf, yf, (const float[]){1.0f, 1.0f, NAN, -0.0f, 0.0f, 3.0f}, 6);
  check_binary(DLX_OP_FMIN, DLX_DTYPE_FLOAT32, xf, yf, (const float[]){1.0f, 1.0f, NAN, -0.0f, 0.0f, 2.0f}, 6);
  /* float16 computes in float32: -0.0 is 0x8000, NaN 0x7E00 */
  const uint16_t h[3] = {0x8000, 0x0000, 0x7E00}, k[3] = {0x0000, 0x8000, 0x3C00};
  check_binary(DLX_OP_MAXIMUM, DLX_DTYPE_FLOAT16, h, k, (const uint16_t[]){0x0000, 0x8000, 0x7E00}, 3);
  check_binary(DLX_OP_FMIN, DLX_DTYPE_FLOAT16, h, k, (const uint16_t[]){0x8000, 0x0000, 0x3C00}, 3);
  const int8_t i[3] = {-128, 5, 127}, j[3] = {127, 5, -1};
  check_binary(DLX_OP_MAXIMUM, DLX_DTYPE_INT8, i, j, (const int8_t[]){127, 5, 127}, 3);
  check_binary(DLX_OP_FMIN, DLX_DTYPE_INT8, i, j, (const int8_t[]){-128, 5, -1}, 3);
}

/* sign: -1, 0 or 1, NaN kept, both zeros give +0.0 (NumPy); rint: to nearest, ties to even, keeping the
 * sign of a zero result (-0.5 and -0.2 give -0.0). */
static void test_rule_sign_rint(void) {
  const double s[7] = {-0.0, 0.0, -2.5, 3.0, NAN, -INFINITY, INFINITY};
  check_unary(DLX_UNOP_SIGN, DLX_DTYPE_FLOAT64, s, (const double[]){0.0, 0.0, -1.0, 1.0, NAN, -1.0, 1.0}, 7);
  const float sf[4] = {-0.0f, 0.0f, -1e-30f, 7.0f};
  check_unary(DLX_UNOP_SIGN, DLX_DTYPE_FLOAT32, sf, (const float[]){0.0f, 0.0f, -1.0f, 1.0f}, 4);
  const int8_t si[3] = {-128, 0, 5};
  check_unary(DLX_UNOP_SIGN, DLX_DTYPE_INT8, si, (const int8_t[]){-1, 0, 1}, 3);
  const double r[9] = {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 4.4999, -0.2};
  check_unary(DLX_UNOP_RINT, DLX_DTYPE_FLOAT64, r, (const double[]){0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 4.0, 4.0, -0.0}, 9);
  const float rf[7] = {0.5f, 1.5f, 2.5f, -0.5f, -2.5f, 4194304.5f, 4194305.5f};
  check_unary(DLX_UNOP_RINT, DLX_DTYPE_FLOAT32, rf, (const float[]){0.0f, 2.0f, 2.0f, -0.0f, -2.0f, 4194304.0f, 4194306.0f}, 7);
}

/* clip: minimum(maximum(a, lo), hi), so a NaN in any operand wins, lo > hi gives hi, and the zeros follow
 * maximum's and minimum's ties (NumPy's clip). where: a ? b : c bit for bit (a signalling NaN's payload and
 * -0.0 kept), any non-zero byte of a bool counting as true. */
static void test_rule_clip_where(void) {
  const DLDataType f64 = DLX_DTYPE_FLOAT64, i32 = DLX_DTYPE_INT32, f32 = DLX_DTYPE_FLOAT32, b = DLX_DTYPE_BOOL;
  const double a[8] = {1.0, NAN, 5.0, -1.0, 1.0, 0.5, -0.0, 0.0}, lo[8] = {NAN, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, -0.0},
               hi[8] = {2.0, 1.0, NAN, 1.0, 0.0, 1.0, 1.0, 1.0};
  check_rule(3, DLX_TERNOP_CLIP, f64, (const DLDataType[]){f64, f64, f64}, (const void *const[]){a, lo, hi},
             (const double[]){NAN, NAN, NAN, 0.0, 0.0, 0.5, 0.0, -0.0}, 8);
  const int32_t ia[3] = {5, -5, 3}, ilo[3] = {0, 0, 4}, ihi[3] = {3, 3, 2};
  check_rule(3, DLX_TERNOP_CLIP, i32, (const DLDataType[]){i32, i32, i32}, (const void *const[]){ia, ilo, ihi},
             (const int32_t[]){3, 0, 2}, 3);
  const uint32_t snan = 0x7F800001u, qnan = 0xFFC00000u, nz = 0x80000000u, one = 0x3F800000u;
  const uint8_t cond[4] = {1, 0, 2, 0};
  const uint32_t x[4] = {snan, one, nz, qnan}, y[4] = {one, qnan, snan, nz};
  check_rule(3, DLX_TERNOP_WHERE, f32, (const DLDataType[]){b, f32, f32},
             (const void *const[]){cond, x, y}, (const uint32_t[]){snan, qnan, nz, nz}, 4);
}

/* ---- errors of dlx_unary, dlx_binary and dlx_ternary ------------------------------------------------ */

/* Every row of each table on every dtype with a kernel outside its class: UNSUPPORTED naming the op and the
 * dtype; and every row that writes bool, given a float32 out: DTYPE_MISMATCH saying so. */
static void test_table_op_class_errors(void) {
  unsigned char mem[6 * 16] = {0}, outmem[6 * 16] = {0};
  char needle[128], name[DLX_DTYPE_NAME_MAX];
  const dlx__op_info *tables[3] = {dlx__unop_info, dlx__binop_info, dlx__ternop_info};
  const int rows[3] = {DLX_UNOP_COUNT, DLX_OP_COUNT, DLX_TERNOP_COUNT};
  int refused = 0;
  for (int t = 0; t < 3; ++t) {
    for (int op = 0; op < rows[t]; ++op) {
      const dlx__op_info *row = &tables[t][op];
      for (int k = 0; k < DLX_KD_COUNT; ++k) {
        if (dlx__op_takes(row, k) && !is_subbyte_kd(k)) continue;
        const DLDataType dt = kd_dtypes[k];
        const bool where = t == 2 && op == DLX_TERNOP_WHERE;
        dlx_view v = vec(mem, dt, 6), o = vec(outmem, row->bool_result ? DLX_DTYPE_BOOL : dt, 6);
        dlx_view cond = vec(mem, DLX_DTYPE_BOOL, 6);
        CHECK_OK(dlx_dtype_format(dt, name, sizeof name));
        snprintf(needle, sizeof needle, "%s is not supported for %s", row->name, name);
        CHECK_FAIL(t == 0 ? dlx_unary((dlx_unop)op, &o, &v)
                   : t == 1 ? dlx_binary((dlx_binop)op, &o, &v, &v)
                            : dlx_ternary((dlx_ternop)op, &o, where ? &cond : &v, &v, &v),
                   DLX_ERR_UNSUPPORTED, needle);
        ++refused;
      }
      if (!row->bool_result) continue;
      float f[6];
      dlx_view vf = vec(f, DLX_DTYPE_FLOAT32, 6);
      snprintf(needle, sizeof needle, "%s writes bool, but out is float32", row->name);
      CHECK_FAIL(t == 0 ? dlx_unary((dlx_unop)op, &vf, &vf) : dlx_binary((dlx_binop)op, &vf, &vf, &vf),
                 DLX_ERR_DTYPE_MISMATCH, needle);
    }
  }
  CHECK(refused > 100); /* the classes leave many pairs out: the loop ran */
}

/* Each function's op out of range names the value and the range; NULL arguments name the argument (before
 * the op is looked at). */
static void test_table_op_argument_errors(void) {
  float f[6] = {0};
  dlx_view v = vec(f, DLX_DTYPE_FLOAT32, 6);
  char needle[96];
  snprintf(needle, sizeof needle, "dlx_unary: op %d is not a dlx_unop (0..%d)", DLX_UNOP_COUNT, DLX_UNOP_COUNT - 1);
  CHECK_FAIL(dlx_unary((dlx_unop)DLX_UNOP_COUNT, &v, &v), DLX_ERR_INVALID_ARGUMENT, needle);
  CHECK_FAIL(dlx_unary((dlx_unop)-1, &v, &v), DLX_ERR_INVALID_ARGUMENT, "op -1 is not a dlx_unop");
  snprintf(needle, sizeof needle, "dlx_binary: op %d is not a dlx_binop (0..%d)", DLX_OP_COUNT, DLX_OP_COUNT - 1);
  CHECK_FAIL(dlx_binary((dlx_binop)DLX_OP_COUNT, &v, &v, &v), DLX_ERR_INVALID_ARGUMENT, needle);
  CHECK_FAIL(dlx_binary((dlx_binop)-5, &v, &v, &v), DLX_ERR_INVALID_ARGUMENT, "op -5 is not a dlx_binop");
  snprintf(needle, sizeof needle, "dlx_ternary: op %d is not a dlx_ternop (0..%d)", DLX_TERNOP_COUNT,
           DLX_TERNOP_COUNT - 1);
  CHECK_FAIL(dlx_ternary((dlx_ternop)DLX_TERNOP_COUNT, &v, &v, &v, &v), DLX_ERR_INVALID_ARGUMENT, needle);
  CHECK_FAIL(dlx_ternary((dlx_ternop)INT32_MIN, &v, &v, &v, &v), DLX_ERR_INVALID_ARGUMENT, "op -2147483648 is not");
  CHECK_FAIL(dlx_ternary(DLX_TERNOP_CLIP, NULL, &v, &v, &v), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_ternary(DLX_TERNOP_CLIP, &v, NULL, &v, &v), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_ternary(DLX_TERNOP_CLIP, &v, &v, NULL, &v), DLX_ERR_NULL_ARGUMENT, "'b'");
  CHECK_FAIL(dlx_ternary(DLX_TERNOP_CLIP, &v, &v, &v, NULL), DLX_ERR_NULL_ARGUMENT, "dlx_ternary: argument 'c' is NULL");
  CHECK_FAIL(dlx_ternary((dlx_ternop)99, &v, &v, &v, NULL), DLX_ERR_NULL_ARGUMENT, "'c'");
  CHECK_FAIL(dlx_unary((dlx_unop)99, NULL, &v), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_binary((dlx_binop)99, &v, &v, NULL), DLX_ERR_NULL_ARGUMENT, "'b'");
}

/* where's and clip's dtype rules, three-operand broadcasting, read-only and broadcast outputs. */
static void test_ternary_errors(void) {
  float f[6] = {0}, g[6] = {0};
  double d[6] = {0};
  int32_t i[6] = {0};
  uint8_t bl[6] = {1, 0, 1, 0, 1, 0}, u8[6] = {0};
  dlx_view vf = vec(f, DLX_DTYPE_FLOAT32, 6), vg = vec(g, DLX_DTYPE_FLOAT32, 6), vd = vec(d, DLX_DTYPE_FLOAT64, 6),
           vi = vec(i, DLX_DTYPE_INT32, 6), vb = vec(bl, DLX_DTYPE_BOOL, 6), vu = vec(u8, DLX_DTYPE_UINT8, 6);
  const dlx_ternop W = DLX_TERNOP_WHERE, C = DLX_TERNOP_CLIP;
  CHECK_FAIL(dlx_ternary(W, &vf, &vf, &vf, &vf), DLX_ERR_DTYPE_MISMATCH, "where's condition a must be bool, not float32");
  CHECK_FAIL(dlx_ternary(W, &vu, &vu, &vu, &vu), DLX_ERR_DTYPE_MISMATCH, "where's condition a must be bool, not uint8");
  CHECK_FAIL(dlx_ternary(W, &vf, &vb, &vf, &vd), DLX_ERR_DTYPE_MISMATCH, "b is float32 but c is float64");
  CHECK_FAIL(dlx_ternary(W, &vi, &vb, &vf, &vg), DLX_ERR_DTYPE_MISMATCH, "out is int32 but b is float32");
  CHECK_FAIL(dlx_ternary(C, &vf, &vf, &vd, &vf), DLX_ERR_DTYPE_MISMATCH, "a is float32 but b is float64");
  CHECK_FAIL(dlx_ternary(C, &vf, &vf, &vg, &vi), DLX_ERR_DTYPE_MISMATCH, "a is float32 but c is int32");
  CHECK_FAIL(dlx_ternary(C, &vd, &vf, &vg, &vf), DLX_ERR_DTYPE_MISMATCH, "out is float64 but a is float32");
  CHECK_FAIL(dlx_ternary(C, &vb, &vb, &vb, &vf), DLX_ERR_DTYPE_MISMATCH, "a is bool but c is float32");
  /* broadcasting: each input against out, named */
  dlx_view m, col, three, five, wide;
  CHECK_OK(dlx_view_init(&m, f, DLX_DTYPE_FLOAT32, CPU, 2, I64(2, 3), NULL));
  CHECK_OK(dlx_view_init(&col, g, DLX_DTYPE_FLOAT32, CPU, 2, I64(2, 1), NULL));
  CHECK_OK(dlx_view_init(&three, g, DLX_DTYPE_FLOAT32, CPU, 1, I64(3), NULL));
  CHECK_OK(dlx_view_init(&five, g, DLX_DTYPE_FLOAT32, CPU, 1, I64(5), NULL));
  CHECK_OK(dlx_view_init(&wide, g, DLX_DTYPE_FLOAT32, CPU, 3, I64(1, 2, 3), NULL));
  CHECK_OK(dlx_ternary(C, &m, &col, &three, &m)); /* (2,1), (3,) and (2,3) into (2,3) */
  CHECK_FAIL(dlx_ternary(C, &m, &col, &three, &five), DLX_ERR_BROADCAST,
             "c of shape (5) does not broadcast to out's shape (2,3)");
  CHECK_FAIL(dlx_ternary(C, &m, &five, &three, &m), DLX_ERR_BROADCAST, "a of shape (5) does not broadcast");
  CHECK_FAIL(dlx_ternary(C, &m, &m, &wide, &m), DLX_ERR_BROADCAST, "b of shape (1,2,3) does not broadcast to out's shape (2,3)");
  CHECK_FAIL(dlx_ternary(C, &three, &col, &three, &three), DLX_ERR_BROADCAST, "a of shape (2,1) does not broadcast");
  dlx_view cond;
  CHECK_OK(dlx_view_init(&cond, bl, DLX_DTYPE_BOOL, CPU, 1, I64(2), NULL));
  CHECK_FAIL(dlx_ternary(W, &m, &cond, &m, &m), DLX_ERR_BROADCAST, "a of shape (2) does not broadcast to out's shape (2,3)");
  /* outputs: read-only, broadcast (stride 0); read-only inputs are fine */
  dlx_view ro = vf, bc;
  ro.flags |= DLX_VIEW_READ_ONLY;
  CHECK_FAIL(dlx_ternary(W, &ro, &vb, &vf, &vg), DLX_ERR_READ_ONLY, "dlx_ternary: out is read-only");
  CHECK_FAIL(dlx_ternary(C, &ro, &vf, &vf, &vg), DLX_ERR_READ_ONLY, "out is read-only");
  CHECK_FAIL(dlx_unary(DLX_UNOP_SQRT, &ro, &vf), DLX_ERR_READ_ONLY, "dlx_unary: out is read-only");
  CHECK_OK(dlx_ternary(C, &vg, &ro, &ro, &ro));
  CHECK_OK(dlx_view_broadcast_to(&three, 2, I64(4, 3), &bc));
  CHECK_FAIL(dlx_ternary(C, &bc, &three, &three, &three), DLX_ERR_BAD_STRIDE, "out has stride 0 at dimension 0 (extent 4)");
  /* malformed operands are named by their role, c included */
  dlx_view bad = vf;
  bad.shape[0] = -2;
  CHECK_FAIL(dlx_ternary(C, &vf, &vf, &vf, &bad), DLX_ERR_NEGATIVE_EXTENT, "c has negative extent -2");
  bad = vf;
  bad.data = NULL;
  CHECK_FAIL(dlx_ternary(W, &vf, &vb, &vf, &bad), DLX_ERR_NULL_DATA, "c has elements but NULL data");
}

/* Operands on two devices: an emulated device (the CPU's loops serving cuda memory, backend.h's override for
 * this thread) next to host memory, and two ids of it. */
static void test_table_op_devices(void) {
  static const dlx__backend fake = {"cpu loops as cuda (test)", &dlx__cpu_memory, &dlx__cpu_compute};
  dlx__backend_override_device(kDLCUDA, &fake);
  float f[6] = {0}, g[6] = {0}, h[6] = {0};
  uint8_t bl[6] = {0};
  dlx_view host = vec(f, DLX_DTYPE_FLOAT32, 6), dev0 = vec(g, DLX_DTYPE_FLOAT32, 6), dev1 = vec(h, DLX_DTYPE_FLOAT32, 6);
  dlx_view cond = vec(bl, DLX_DTYPE_BOOL, 1); /* a host scalar: it may go with device operands */
  dev0.device = (DLDevice){kDLCUDA, 0};
  dev1.device = (DLDevice){kDLCUDA, 1};
  CHECK_FAIL(dlx_binary(DLX_OP_MAXIMUM, &dev0, &dev0, &dev1), DLX_ERR_DEVICE_MISMATCH, "a is on cuda:0 but b is on cuda:1");
  CHECK_FAIL(dlx_ternary(DLX_TERNOP_CLIP, &host, &host, &host, &dev0), DLX_ERR_DEVICE_MISMATCH,
             "a is on cpu:0 but c is on cuda:0");
  CHECK_FAIL(dlx_ternary(DLX_TERNOP_WHERE, &dev0, &cond, &dev0, &dev1), DLX_ERR_DEVICE_MISMATCH,
             "b is on cuda:0 but c is on cuda:1");
  CHECK_FAIL(dlx_unary(DLX_UNOP_NEG, &host, &dev0), DLX_ERR_DEVICE_MISMATCH, "a is on cuda:0 but out is on cpu:0");
  CHECK_FAIL(dlx_ternary(DLX_TERNOP_CLIP, &dev1, &dev0, &dev0, &dev0), DLX_ERR_DEVICE_MISMATCH,
             "a is on cuda:0 but out is on cuda:1");
  dlx__backend_override_device(kDLCUDA, NULL);
  CHECK(f[0] == 0 && g[0] == 0 && h[0] == 0); /* nothing ran */
}


static void test_summary(void) {
  printf("     random harness: %lld cases, %lld output elements, each reference vs 1 thread vs 2 threads\n",
         (long long)cases_run, (long long)elements_run);
  CHECK(cases_run > 0);
}

static const dlx_test_case cases[] = {
    {"random_copy_fill", test_random_copy_fill},
    {"random_cast", test_random_cast},
    {"random_binary", test_random_binary},
    {"random_fma", test_random_fma},
    {"large_threaded", test_large_threaded},
    {"aliasing", test_aliasing},
    {"integer_semantics", test_integer_semantics},
    {"bool_and_comparisons", test_bool_and_comparisons},
    {"mixed_sign_comparisons", test_mixed_sign_comparisons},
    {"float_semantics", test_float_semantics},
    {"fma_semantics", test_fma_semantics},
    {"cast_semantics", test_cast_semantics},
    {"packed_subbyte", test_packed_subbyte},
    {"empty_and_inplace", test_empty_and_inplace},
    {"errors", test_errors},
    {"rule_floor_divide_remainder", test_rule_floor_divide_remainder},
    {"rule_shifts", test_rule_shifts},
    {"rule_power", test_rule_power},
    {"rule_extrema", test_rule_extrema},
    {"rule_sign_rint", test_rule_sign_rint},
    {"rule_clip_where", test_rule_clip_where},
    {"table_op_class_errors", test_table_op_class_errors},
    {"table_op_argument_errors", test_table_op_argument_errors},
    {"ternary_errors", test_ternary_errors},
    {"table_op_devices", test_table_op_devices},
    {"summary", test_summary},
};
DLX_TEST_MAIN(cases)
