/* Tests for src/compute/reduce.c (dlx_reduce, dlx_reduce_result), with the rules of src/kernels/reduce*.h
 * and the CPU backend's src/backends/cpu/reduce.c and loops_reduce_body.h behind it.
 *
 *  - semantics on hand-picked values: every op, NumPy's result dtypes, NaN, -0.0, wrap-around, narrow
 *    floats accumulating in float32, complex order, empty reductions, keepdims and axes;
 *  - the order of additions is the documented one: a from-scratch implementation of the rule in this file
 *    (docs/numerics.md, "Reductions") must give the same float32 bits on ill-conditioned data of many
 *    lengths, whatever the kernels do;
 *  - the bits depend on nothing else: every op on every dtype over random shapes, axes and layouts
 *    (transposed, negative, zero strides) equals the reduction of a compact copy of the input, the
 *    reference path (compute/reduce_reference.c), and itself at 1 and 3 threads and at every SIMD level;
 *  - every error path of reduce.c, each message naming the value. */
#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/cpu/loops.h"
#include "compute/reference.h"
#include "kernels/convert.h"
#include "kernels/ew.h"
#include "dlx/ops.h"
#include "dlx/view.h"

#define CPU ((DLDevice){kDLCPU, 0})
#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define AX(...) ((const int32_t[]){__VA_ARGS__})

#define DLX_TEST_RNG_SEED 0x7265647563650001u
#include "rng.h"

static unsigned char placeholder_[16];
/* A view; data NULL: a placeholder until the caller sets it (dlx_view_init wants data for elements). */
static void view(dlx_view *v, void *data, DLDataType dt, int32_t nd, const int64_t *shape, const int64_t *strides) {
  CHECK_OK(dlx_view_init(v, data != NULL ? data : placeholder_, dt, CPU, nd, shape, strides));
}

static float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint32_t bits_f32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* op over a 1-d array of n elements of dt into a 0-d out of dt_out (bytes into out). */
static dlx_status reduce_1d(dlx_reduce_op op, DLDataType dt, const void *x, int64_t n, DLDataType dt_out, void *out) {
  dlx_view a, o;
  view(&a, (void *)(uintptr_t)x, dt, 1, &n, NULL);
  view(&o, out, dt_out, 0, NULL, NULL);
  return dlx_reduce(op, &o, &a, DLX_REDUCE_ALL_AXES, NULL, 0);
}

/* ======================================================================================================
 * Semantics on chosen values.
 * ==================================================================================================== */

static void test_integers(void) {
  const int8_t i8[] = {100, 100, -3, 27};
  int64_t r64 = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_INT8, i8, 4, DLX_DTYPE_INT64, &r64));
  CHECK_EQ(r64, 224); /* accumulated in int64, as NumPy's default */
  int8_t r8 = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_INT8, i8, 4, DLX_DTYPE_INT8, &r8));
  CHECK_EQ(r8, (int8_t)224); /* dtype=int8: wraps */
  const uint8_t u8[] = {200, 100, 255};
  uint64_t ru = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_UINT8, u8, 3, DLX_DTYPE_UINT64, &ru));
  CHECK_EQ(ru, 555);
  const int64_t big[] = {INT64_C(1) << 62, 4, -1};
  CHECK_OK(reduce_1d(DLX_REDUCE_PROD, DLX_DTYPE_INT64, big, 3, DLX_DTYPE_INT64, &r64));
  CHECK_EQ(r64, 0); /* 2^64 wraps to 0 */
  const int64_t near[] = {INT64_MAX, 1};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_INT64, near, 2, DLX_DTYPE_INT64, &r64));
  CHECK(r64 == INT64_MIN);
  const uint8_t b[] = {1, 0, 2, 0xff};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_BOOL, b, 4, DLX_DTYPE_INT64, &r64));
  CHECK_EQ(r64, 3); /* a producer's non-0/1 bool bytes count as true */
  uint8_t rb = 9;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_BOOL, b, 4, DLX_DTYPE_BOOL, &rb));
  CHECK_EQ(rb, 1); /* bool add is or */
  CHECK_OK(reduce_1d(DLX_REDUCE_PROD, DLX_DTYPE_BOOL, b, 4, DLX_DTYPE_BOOL, &rb));
  CHECK_EQ(rb, 0);
  const int16_t m[] = {5, -7, 3, -7, 9, 9};
  int16_t r16 = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_MIN, DLX_DTYPE_INT16, m, 6, DLX_DTYPE_INT16, &r16));
  CHECK_EQ(r16, -7);
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_INT16, m, 6, DLX_DTYPE_INT16, &r16));
  CHECK_EQ(r16, 9);
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMIN, DLX_DTYPE_INT16, m, 6, DLX_DTYPE_INT64, &r64));
  CHECK_EQ(r64, 1); /* the first of the two */
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMAX, DLX_DTYPE_INT16, m, 6, DLX_DTYPE_INT64, &r64));
  CHECK_EQ(r64, 4);
  const uint64_t uu[] = {UINT64_MAX, 1};
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMAX, DLX_DTYPE_UINT64, uu, 2, DLX_DTYPE_INT64, &r64));
  CHECK_EQ(r64, 0); /* unsigned order */
  double mean = 0;
  const int32_t i32[] = {1, 2};
  CHECK_OK(reduce_1d(DLX_REDUCE_MEAN, DLX_DTYPE_INT32, i32, 2, DLX_DTYPE_FLOAT64, &mean));
  CHECK(mean == 1.5);
  /* 2^53 + 1 survives an int64 sum but not a float64 one */
  const int64_t past53[] = {(INT64_C(1) << 53) + 1, 2};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_INT64, past53, 2, DLX_DTYPE_INT64, &r64));
  CHECK(r64 == (INT64_C(1) << 53) + 3);
}

static void test_floats(void) {
  const float nan1 = f32_of(0x7fc00001u), nan2 = f32_of(0xffc00000u);
  float r = 0;
  const float z[] = {0.0f, -0.0f};
  CHECK_OK(reduce_1d(DLX_REDUCE_MIN, DLX_DTYPE_FLOAT32, z, 2, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0x80000000u); /* -0 < +0 */
  const float z2[] = {-0.0f, 0.0f};
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_FLOAT32, z2, 2, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0u);
  const float n[] = {1.0f, nan2, -3.0f, nan1};
  CHECK_OK(reduce_1d(DLX_REDUCE_MIN, DLX_DTYPE_FLOAT32, n, 4, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0x7fc00001u); /* NaN wins; of two, the smaller bits */
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_FLOAT32, n, 4, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0x7fc00001u);
  int64_t idx = -1;
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMAX, DLX_DTYPE_FLOAT32, n, 4, DLX_DTYPE_INT64, &idx));
  CHECK_EQ(idx, 1); /* the first NaN, as NumPy */
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMIN, DLX_DTYPE_FLOAT32, n, 4, DLX_DTYPE_INT64, &idx));
  CHECK_EQ(idx, 1);
  const float ties[] = {0.0f, -0.0f, -1.0f, -1.0f};
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMAX, DLX_DTYPE_FLOAT32, ties, 4, DLX_DTYPE_INT64, &idx));
  CHECK_EQ(idx, 0); /* -0.0 == +0.0: the first */
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMIN, DLX_DTYPE_FLOAT32, ties, 4, DLX_DTYPE_INT64, &idx));
  CHECK_EQ(idx, 2);
  /* a sum starts from +0.0; a NaN result is the positive quiet NaN */
  const float negz[] = {-0.0f, -0.0f, -0.0f};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT32, negz, 3, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0u);
  CHECK_OK(reduce_1d(DLX_REDUCE_PROD, DLX_DTYPE_FLOAT32, negz, 1, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0x80000000u);
  const float nn[] = {2.0f, f32_of(0xff800123u), 1.0f};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT32, nn, 3, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0x7fc00000u);
  const float infs[] = {INFINITY, -INFINITY};
  CHECK_OK(reduce_1d(DLX_REDUCE_MEAN, DLX_DTYPE_FLOAT32, infs, 2, DLX_DTYPE_FLOAT32, &r));
  CHECK_EQ(bits_f32(r), 0x7fc00000u);
  const double d[] = {1.0, 2.0, 4.0};
  double rd = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_MEAN, DLX_DTYPE_FLOAT64, d, 3, DLX_DTYPE_FLOAT64, &rd));
  CHECK(rd == 7.0 / 3.0);
  /* any / all: NaN is true, -0.0 false */
  const float t[] = {0.0f, -0.0f, NAN};
  uint8_t b = 7;
  CHECK_OK(reduce_1d(DLX_REDUCE_ANY, DLX_DTYPE_FLOAT32, t, 2, DLX_DTYPE_BOOL, &b));
  CHECK_EQ(b, 0);
  CHECK_OK(reduce_1d(DLX_REDUCE_ANY, DLX_DTYPE_FLOAT32, t, 3, DLX_DTYPE_BOOL, &b));
  CHECK_EQ(b, 1);
  CHECK_OK(reduce_1d(DLX_REDUCE_ALL, DLX_DTYPE_FLOAT32, t + 2, 1, DLX_DTYPE_BOOL, &b));
  CHECK_EQ(b, 1);
  /* float32 into float64 (dtype=float64): each element widened first */
  const float big[] = {16777216.0f, 1.0f, 1.0f};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT32, big, 3, DLX_DTYPE_FLOAT64, &rd));
  CHECK(rd == 16777218.0);
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT32, big, 3, DLX_DTYPE_FLOAT32, &r));
  CHECK(r == 16777216.0f); /* (x0 + x2) + x1 in float32: each 1 is lost */
}

static void test_complex(void) {
  const float c[] = {1, 2, 1, 3, 0, 9, 1, -1}; /* 1+2j, 1+3j, 0+9j, 1-1j */
  float r[2];
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_COMPLEX64, c, 4, DLX_DTYPE_COMPLEX64, r));
  CHECK(r[0] == 1 && r[1] == 3); /* by (real, imaginary), as NumPy */
  CHECK_OK(reduce_1d(DLX_REDUCE_MIN, DLX_DTYPE_COMPLEX64, c, 4, DLX_DTYPE_COMPLEX64, r));
  CHECK(r[0] == 0 && r[1] == 9);
  int64_t idx;
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMAX, DLX_DTYPE_COMPLEX64, c, 4, DLX_DTYPE_INT64, &idx));
  CHECK_EQ(idx, 1);
  const float cn[] = {1, 2, 5, NAN, 7, 0};
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_COMPLEX64, cn, 3, DLX_DTYPE_COMPLEX64, r));
  CHECK(r[0] == 5 && isnan(r[1])); /* a NaN part wins */
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMIN, DLX_DTYPE_COMPLEX64, cn, 3, DLX_DTYPE_INT64, &idx));
  CHECK_EQ(idx, 1);
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_COMPLEX64, c, 4, DLX_DTYPE_COMPLEX64, r));
  CHECK(r[0] == 3 && r[1] == 13);
  CHECK_OK(reduce_1d(DLX_REDUCE_PROD, DLX_DTYPE_COMPLEX64, c, 2, DLX_DTYPE_COMPLEX64, r));
  CHECK(r[0] == -5 && r[1] == 5); /* (1+2j)(1+3j) */
  const double cd[] = {1, 1, 2, -3};
  double rd[2];
  CHECK_OK(reduce_1d(DLX_REDUCE_MEAN, DLX_DTYPE_COMPLEX128, cd, 2, DLX_DTYPE_COMPLEX128, rd));
  CHECK(rd[0] == 1.5 && rd[1] == -1.0);
  const float zeros[] = {-0.0f, -0.0f, -0.0f, -0.0f};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_COMPLEX64, zeros, 2, DLX_DTYPE_COMPLEX64, r));
  CHECK(bits_f32(r[0]) == 0 && bits_f32(r[1]) == 0); /* +0 + the sum, part by part */
}

static void test_narrow(void) {
  /* bfloat16 1.0 and 256 x 2^-9: accumulated in float32 (1.5), not bfloat16 (1.0 forever) */
  uint16_t x[257];
  x[0] = 0x3f80;
  for (int i = 1; i < 257; ++i) x[i] = 0x3b00; /* 2^-9 */
  uint16_t r = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_BFLOAT16, x, 257, DLX_DTYPE_BFLOAT16, &r));
  CHECK_EQ(r, 0x3fc0);
  float rf = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_BFLOAT16, x, 257, DLX_DTYPE_FLOAT32, &rf));
  CHECK(rf == 1.5f);
  CHECK_OK(reduce_1d(DLX_REDUCE_MEAN, DLX_DTYPE_BFLOAT16, x, 2, DLX_DTYPE_BFLOAT16, &r));
  CHECK_EQ(r, dlx__cvt_f32_to_bf16((1.0f + 0.001953125f) / 2.0f));
  /* float16: max 65504 + 65504 overflows float16 but not the float32 accumulator's mean */
  const uint16_t h[] = {0x7bff, 0x7bff};
  CHECK_OK(reduce_1d(DLX_REDUCE_MEAN, DLX_DTYPE_FLOAT16, h, 2, DLX_DTYPE_FLOAT16, &r));
  CHECK_EQ(r, 0x7bff);
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT16, h, 2, DLX_DTYPE_FLOAT16, &r));
  CHECK_EQ(r, 0x7c00);
  /* min / max select codes: e4m3fn's NaN (0x7f, 0xff) wins, the smaller code of two */
  const uint8_t e[] = {0x38, 0xff, 0x40, 0x7f, 0x00, 0x80};
  uint8_t r8 = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_FLOAT8_E4M3FN, e, 6, DLX_DTYPE_FLOAT8_E4M3FN, &r8));
  CHECK_EQ(r8, 0x7f);
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_FLOAT8_E4M3FN, e, 1, DLX_DTYPE_FLOAT8_E4M3FN, &r8));
  CHECK_EQ(r8, 0x38);
  CHECK_OK(reduce_1d(DLX_REDUCE_MIN, DLX_DTYPE_FLOAT8_E4M3FN, e + 4, 2, DLX_DTYPE_FLOAT8_E4M3FN, &r8));
  CHECK_EQ(r8, 0x80); /* -0 < +0 */
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_FLOAT8_E4M3FN, e + 2, 1, DLX_DTYPE_FLOAT8_E4M3FN, &r8));
  CHECK_EQ(r8, 0x40);
  int64_t idx;
  CHECK_OK(reduce_1d(DLX_REDUCE_ARGMAX, DLX_DTYPE_FLOAT8_E4M3FN, e, 6, DLX_DTYPE_INT64, &idx));
  CHECK_EQ(idx, 1);
  double rd;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT8_E4M3FN, e + 2, 1, DLX_DTYPE_FLOAT64, &rd));
  CHECK(rd == 2.0);
}

/* keepdims, axes lists, negative axes, axis=() and a 0-d input. */
static void test_axes(void) {
  int32_t x[2 * 3 * 4];
  for (int i = 0; i < 24; ++i) x[i] = i;
  dlx_view a, o;
  view(&a, x, DLX_DTYPE_INT32, 3, I64(2, 3, 4), NULL);
  int64_t r[24];
  view(&o, r, DLX_DTYPE_INT64, 2, I64(2, 4), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, AX(1), 0));
  CHECK(r[0] == 0 + 4 + 8 && r[7] == 15 + 19 + 23);
  view(&o, r, DLX_DTYPE_INT64, 3, I64(1, 3, 1), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 2, AX(-1, 0), 1));
  CHECK(r[0] == 0 + 1 + 2 + 3 + 12 + 13 + 14 + 15 && r[2] == 8 + 9 + 10 + 11 + 20 + 21 + 22 + 23);
  view(&o, r, DLX_DTYPE_INT64, 1, I64(3), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_ARGMAX, &o, &a, 2, AX(2, 0), 0));
  CHECK(r[0] == 7 && r[1] == 7 && r[2] == 7); /* flat over (2, 4): the last, x[1, j, 3] */
  int32_t ri[24];
  view(&o, ri, DLX_DTYPE_INT32, 3, I64(2, 3, 4), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_MAX, &o, &a, 0, NULL, 0)); /* axis=(): each element itself */
  CHECK(memcmp(ri, x, sizeof x) == 0);
  int64_t one = 0;
  dlx_view s;
  view(&s, x + 5, DLX_DTYPE_INT32, 0, NULL, NULL);
  view(&o, &one, DLX_DTYPE_INT64, 0, NULL, NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_SUM, &o, &s, DLX_REDUCE_ALL_AXES, NULL, 1));
  CHECK_EQ(one, 5);
  CHECK_OK(dlx_reduce(DLX_REDUCE_ARGMIN, &o, &s, DLX_REDUCE_ALL_AXES, NULL, 0));
  CHECK_EQ(one, 0);
  /* dlx_reduce_result: shapes and NumPy's dtypes */
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLDataType dt;
  CHECK_OK(dlx_reduce_result(DLX_REDUCE_SUM, &a, 1, AX(-2), 1, &nd, shape, &dt));
  CHECK(nd == 3 && shape[0] == 2 && shape[1] == 1 && shape[2] == 4 && dlx_dtype_equal(dt, DLX_DTYPE_INT64));
  CHECK_OK(dlx_reduce_result(DLX_REDUCE_MEAN, &a, DLX_REDUCE_ALL_AXES, NULL, 0, &nd, shape, &dt));
  CHECK(nd == 0 && dlx_dtype_equal(dt, DLX_DTYPE_FLOAT64));
  a.dtype = DLX_DTYPE_UINT16;
  CHECK_OK(dlx_reduce_result(DLX_REDUCE_PROD, &a, 0, NULL, 0, &nd, shape, &dt));
  CHECK(nd == 3 && dlx_dtype_equal(dt, DLX_DTYPE_UINT64));
  a.dtype = DLX_DTYPE_BFLOAT16;
  CHECK_OK(dlx_reduce_result(DLX_REDUCE_MEAN, &a, 0, NULL, 0, &nd, shape, &dt));
  CHECK(dlx_dtype_equal(dt, DLX_DTYPE_BFLOAT16));
  CHECK_OK(dlx_reduce_result(DLX_REDUCE_ARGMIN, &a, 0, NULL, 0, &nd, shape, &dt));
  CHECK(dlx_dtype_equal(dt, DLX_DTYPE_INT64));
  CHECK_OK(dlx_reduce_result(DLX_REDUCE_ALL, &a, 0, NULL, 0, &nd, shape, &dt));
  CHECK(dlx_dtype_equal(dt, DLX_DTYPE_BOOL));
  CHECK_OK(dlx_reduce_result(DLX_REDUCE_MAX, &a, 0, NULL, 0, &nd, shape, &dt));
  CHECK(dlx_dtype_equal(dt, DLX_DTYPE_BFLOAT16));
}

static void test_empty(void) {
  float x[1] = {0};
  dlx_view a, o;
  view(&a, x, DLX_DTYPE_FLOAT32, 2, I64(3, 0), NULL);
  float r[3];
  view(&o, r, DLX_DTYPE_FLOAT32, 1, I64(3), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, AX(1), 0));
  CHECK(r[0] == 0 && bits_f32(r[2]) == 0);
  CHECK_OK(dlx_reduce(DLX_REDUCE_PROD, &o, &a, 1, AX(1), 0));
  CHECK(r[0] == 1 && r[2] == 1);
  CHECK_OK(dlx_reduce(DLX_REDUCE_MEAN, &o, &a, 1, AX(1), 0));
  CHECK(isnan(r[0]) && isnan(r[2]));
  uint8_t b[3] = {9, 9, 9};
  dlx_view ob;
  view(&ob, b, DLX_DTYPE_BOOL, 1, I64(3), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_ANY, &ob, &a, 1, AX(1), 0));
  CHECK(b[0] == 0 && b[2] == 0);
  CHECK_OK(dlx_reduce(DLX_REDUCE_ALL, &ob, &a, 1, AX(1), 0));
  CHECK(b[0] == 1 && b[2] == 1);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_MAX, &o, &a, 1, AX(1), 0), DLX_ERR_INVALID_ARGUMENT, "max over axis 1, which has extent 0");
  int64_t ri[3];
  dlx_view oi;
  view(&oi, ri, DLX_DTYPE_INT64, 1, I64(3), NULL);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_ARGMIN, &oi, &a, 1, AX(-1), 0), DLX_ERR_INVALID_ARGUMENT, "argmin over axis 1");
  /* no output element but elements to reduce: nothing to do; no element to reduce: still an error */
  view(&o, r, DLX_DTYPE_FLOAT32, 1, I64(0), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_MIN, &o, &a, 1, AX(0), 0));
  view(&a, x, DLX_DTYPE_FLOAT32, 2, I64(0, 0), NULL);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_MIN, &o, &a, 1, AX(0), 0), DLX_ERR_INVALID_ARGUMENT, "min over axis 0");
  /* mean of an empty complex: nan + nan j */
  float c[2] = {0, 0};
  view(&a, x, DLX_DTYPE_COMPLEX64, 1, I64(0), NULL);
  view(&o, c, DLX_DTYPE_COMPLEX64, 0, NULL, NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_MEAN, &o, &a, DLX_REDUCE_ALL_AXES, NULL, 0));
  CHECK(isnan(c[0]) && isnan(c[1]));
}

/* ======================================================================================================
 * The documented order, implemented here from docs/numerics.md and nothing else.
 * ==================================================================================================== */

/* T over leaves [lo, hi) of lane j of a block: leaf q is x[q * 16 + j]. */
static float spec_tree(const float *x, int j, int64_t lo, int64_t hi) {
  if (hi - lo == 1) return x[lo * 16 + j];
  int64_t h = 1;
  while (2 * h < hi - lo) h *= 2;
  return spec_tree(x, j, lo, lo + h) + spec_tree(x, j, lo + h, hi);
}

static float spec_block(const float *x, int64_t len) {
  float lane[16];
  const int present = len < 16 ? (int)len : 16;
  for (int j = 0; j < present; ++j) lane[j] = spec_tree(x, j, 0, (len - j + 15) / 16);
  for (int h = 8; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k)
      if (k + h < present) lane[k] = lane[k] + lane[k + h];
  return lane[0];
}

static float spec_blocks(const float *partials, int64_t lo, int64_t hi) {
  if (hi - lo == 1) return partials[lo];
  int64_t h = 1;
  while (2 * h < hi - lo) h *= 2;
  return spec_blocks(partials, lo, lo + h) + spec_blocks(partials, lo + h, hi);
}

static float spec_sum(const float *x, int64_t n) {
  const int64_t nb = (n + 4095) / 4096;
  float *p = malloc((size_t)nb * sizeof(float));
  for (int64_t b = 0; b < nb; ++b) p[b] = spec_block(x + b * 4096, n - b * 4096 < 4096 ? n - b * 4096 : 4096);
  float s = spec_blocks(p, 0, nb);
  free(p);
  return s == 0.0f ? 0.0f : s; /* + 0.0 */
}

static void test_documented_order(void) {
  rng_state = 0x0de7u;
  /* n = 3: (x0 + x2) + x1 */
  const float three[] = {1e8f, 1.0f, -1e8f};
  float r;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT32, three, 3, DLX_DTYPE_FLOAT32, &r));
  CHECK(r == 1.0f);
  static const int64_t lengths[] = {1, 2, 5, 15, 16, 17, 31, 33, 100, 127, 128, 129, 255, 256, 257, 1000, 4095,
                                    4096, 4097, 8191, 8193, 12289, 40000, 65537, 100003};
  float *x = malloc(sizeof(float) * 100003);
  int bad = 0;
  for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; ++t) {
    const int64_t n = lengths[t];
    for (int64_t i = 0; i < n; ++i) { /* ill-conditioned: large values that cancel, and small ones */
      const double mag = chance(10) ? 1e7 : chance(50) ? 1.0 : 1e-3;
      x[i] = (float)(((double)(rnd() % 2000001) - 1000000.0) / 1e6 * mag);
    }
    for (int threads = 1; threads <= 3; threads += 2) {
      dlx_set_num_threads(threads);
      const int64_t g = dlx__ops_set_grain(threads == 3 ? 5 : 0);
      CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT32, x, n, DLX_DTYPE_FLOAT32, &r));
      dlx__ops_set_grain(g);
      const float want = spec_sum(x, n);
      if (bits_f32(r) != bits_f32(want) && bad++ < 5)
        fprintf(stderr, "  n %lld, %d threads: got %.9g, the rule gives %.9g\n", (long long)n, threads, r, want);
    }
  }
  dlx_set_num_threads(0);
  CHECK_EQ(bad, 0);
  free(x);
}

/* ======================================================================================================
 * The bits depend on the shape and the axes only.
 * ==================================================================================================== */

static const DLDataType dtypes[] = {
    DLX_DTYPE_BOOL,         DLX_DTYPE_INT8,          DLX_DTYPE_INT16,      DLX_DTYPE_INT32,
    DLX_DTYPE_INT64,        DLX_DTYPE_UINT8,         DLX_DTYPE_UINT16,     DLX_DTYPE_UINT32,
    DLX_DTYPE_UINT64,       DLX_DTYPE_FLOAT32,       DLX_DTYPE_FLOAT64,    DLX_DTYPE_COMPLEX64,
    DLX_DTYPE_COMPLEX128,   DLX_DTYPE_FLOAT16,       DLX_DTYPE_BFLOAT16,   DLX_DTYPE_FLOAT8_E4M3FN,
    DLX_DTYPE_FLOAT8_E5M2,  DLX_DTYPE_FLOAT8_E4M3FNUZ, DLX_DTYPE_FLOAT8_E8M0FNU, DLX_DTYPE_FLOAT8_E3M4};
#define NDTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

/* One random element of dt: specials (NaN of both signs and payloads, inf, -0.0, extremes) or values. */
static void gen(unsigned char *p, DLDataType dt) {
  const dlx__kd k = dlx__kd_of(dt);
  const size_t size = dlx_dtype_itemsize(dt);
  if (k == DLX_KD_F32 || k == DLX_KD_C64 || k == DLX_KD_F64 || k == DLX_KD_C128) {
    const size_t part = k == DLX_KD_F32 || k == DLX_KD_C64 ? 4 : 8;
    for (size_t o = 0; o < size; o += part) {
      const double specials[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, FLT_MAX, -FLT_MAX, 1e30, FLT_TRUE_MIN};
      double v = chance(4) ? specials[rnd() % 10] : ((double)(rnd() % 200001) - 100000.0) / 997.0 * (chance(10) ? 1e6 : 1);
      if (part == 4) {
        float f = (float)v;
        if (chance(1)) f = f32_of((uint32_t)rnd() | 0x7f800001u); /* a NaN payload */
        memcpy(p + o, &f, 4);
      } else {
        memcpy(p + o, &v, 8);
      }
    }
    return;
  }
  if (k >= DLX_KD_F16) {
    uint32_t c = (uint32_t)rnd();
    if (!chance(5)) c = dlx__cvt_narrow_encode(dlx__kd_narrow_code(k), ((double)(rnd() % 2001) - 1000.0) / 64.0);
    memcpy(p, &c, size);
    return;
  }
  uint64_t v = chance(70) ? (uint64_t)(int64_t)((int64_t)(rnd() % 201) - 100) : rnd();
  if (k == DLX_KD_BOOL) v = chance(10) ? 2 : rnd() % 2;
  memcpy(p, &v, size);
}

typedef struct lay {
  int32_t nd;
  int64_t shape[4], strides[4];
  int64_t span_lo, span_hi; /* element offsets reached */
} lay;

/* A random layout of shape: transposed, reversed, padded, broadcast (stride 0) dimensions. */
static void random_layout(lay *l) {
  int order[4] = {0, 1, 2, 3};
  for (int i = l->nd - 1; i > 0; --i) {
    const int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  if (chance(40))
    for (int i = 0; i < l->nd; ++i) order[i] = i; /* row-major */
  int64_t acc = chance(20) ? 2 : 1;
  for (int i = l->nd - 1; i >= 0; --i) { /* order[nd - 1] innermost; then negated, zeroed */
    const int d = order[i];
    l->strides[d] = acc;
    acc *= l->shape[d] + (chance(15) ? 1 : 0);
  }
  l->span_lo = l->span_hi = 0;
  for (int d = 0; d < l->nd; ++d) {
    if (chance(20)) l->strides[d] = -l->strides[d];
    if (chance(8)) l->strides[d] = 0;
    const int64_t reach = (l->shape[d] - 1) * l->strides[d];
    if (reach < 0) l->span_lo += reach;
    else l->span_hi += reach;
  }
}

/* The out dtype a case uses: NumPy's default, or another one now and then (dtype=). */
static DLDataType out_dtype(dlx_reduce_op op, const dlx_view *a) {
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLDataType dt;
  CHECK_OK(dlx_reduce_result(op, a, DLX_REDUCE_ALL_AXES, NULL, 0, &nd, shape, &dt));
  if ((op == DLX_REDUCE_SUM || op == DLX_REDUCE_PROD || op == DLX_REDUCE_MIN) && chance(15))
    return dtypes[rnd() % NDTYPES];
  if (op == DLX_REDUCE_MEAN && chance(15)) return chance(50) ? DLX_DTYPE_FLOAT32 : DLX_DTYPE_BFLOAT16;
  return dt;
}

static bool same_bytes(const void *a, const void *b, size_t n) { return memcmp(a, b, n) == 0; }

typedef struct rcfg {
  const char *level; /* NULL: the default */
  int threads;
  int64_t grain;
} rcfg;

/* One random case: op over random axes of a random layout; the result must equal the reference's, the
 * reduction of a compact copy, and itself under every configuration. Returns whether it did. */
static bool random_case(int ci, const rcfg *cfgs, int ncfg) {
  const dlx_reduce_op op = (dlx_reduce_op)(rnd() % DLX_REDUCE_COUNT);
  const DLDataType dt = dtypes[rnd() % NDTYPES];
  lay l;
  l.nd = (int32_t)rnd_in(0, 4);
  for (int d = 0; d < l.nd; ++d) l.shape[d] = chance(10) ? 1 : rnd_in(2, l.nd <= 2 ? (chance(20) ? 5000 : 60) : 13);
  random_layout(&l);
  const size_t isz = dlx_dtype_itemsize(dt);
  const int64_t span = l.span_hi - l.span_lo + 1;
  unsigned char *arena = malloc((size_t)span * isz), *compact = NULL;
  for (int64_t i = 0; i < span; ++i) gen(arena + i * isz, dt);
  dlx_view a, c, o;
  view(&a, arena - l.span_lo * (int64_t)isz, dt, l.nd, l.shape, l.strides);
  const int64_t n = dlx_view_size(&a);
  compact = malloc((size_t)(n > 0 ? n : 1) * isz);
  view(&c, compact, dt, l.nd, l.shape, NULL);
  CHECK_OK(dlx_copy(&c, &a));
  int32_t axes[4], naxes = 0;
  for (int d = 0; d < l.nd; ++d)
    if (chance(50)) axes[naxes++] = chance(50) ? d : d - l.nd;
  const bool all = chance(20);
  const int keep = chance(30);
  int32_t ond;
  int64_t oshape[DLX_MAX_NDIM];
  DLDataType odt;
  CHECK_OK(dlx_reduce_result(op, &a, all ? DLX_REDUCE_ALL_AXES : naxes, axes, keep, &ond, oshape, &odt));
  odt = out_dtype(op, &a);
  view(&o, NULL, odt, ond, oshape, NULL);
  const size_t obytes = (size_t)dlx_view_size(&o) * dlx_dtype_itemsize(odt) + 1;
  unsigned char *ref = calloc(1, obytes), *got = calloc(1, obytes);
  o.data = ref;
  dlx__ops_set_reference(true);
  const dlx_status st_ref = dlx_reduce(op, &o, &a, all ? DLX_REDUCE_ALL_AXES : naxes, axes, keep);
  dlx__ops_set_reference(false);
  bool ok = true;
  for (int f = 0; f <= ncfg; ++f) { /* every configuration on the view, then the default on the copy */
    memset(got, 0xa5, obytes);
    o.data = got;
    if (f < ncfg) {
      dlx_set_num_threads(cfgs[f].threads);
      dlx__ops_set_grain(cfgs[f].grain);
      CHECK_OK(dlx__cpu_force_variant(cfgs[f].level));
    }
    const dlx_status st = dlx_reduce(op, &o, f < ncfg ? &a : &c, all ? DLX_REDUCE_ALL_AXES : naxes, axes, keep);
    dlx_set_num_threads(0);
    dlx__ops_set_grain(0);
    dlx__cpu_force_variant(NULL);
    if (st != st_ref || (st == DLX_OK && !same_bytes(ref, got, obytes - 1))) {
      if (ok)
        fprintf(stderr, "  case %d: op %d %s -> %s, ndim %d, %s%s: config %d status %s (reference %s) %s\n", ci,
                (int)op, dlx_dtype_name(dt), dlx_dtype_name(odt), (int)l.nd, all ? "all axes" : "axes",
                keep ? " keepdims" : "", f, dlx_status_name(st), dlx_status_name(st_ref), dlx_last_error());
      ok = false;
    }
  }
  free(arena);
  free(compact);
  free(ref);
  free(got);
  return ok;
}

static void test_random(void) {
  rng_state = 0x5eed5eedu;
  /* levels this machine runs (the others are refused by dlx__cpu_force_variant and skipped) */
  rcfg cfgs[6];
  int ncfg = 0;
  static const char *const levels[] = {"baseline", "avx2", "avx512"};
  for (int i = 0; i < 3; ++i) {
    if (dlx__cpu_force_variant(levels[i]) != DLX_OK) continue;
    cfgs[ncfg++] = (rcfg){levels[i], 1, 0};
    cfgs[ncfg++] = (rcfg){levels[i], 3, 3};
  }
  dlx__cpu_force_variant(NULL);
  /* 1500 cases in a plain build (seconds); a sanitized one, many times slower per case, runs the first 300
   * (the seed is fixed) as its look at the same paths' memory; DLX_REDUCE_RANDOM_CASES sets any count */
  int cases = DLX_TEST_SANITIZED ? 300 : 1500;
  const char *env = getenv("DLX_REDUCE_RANDOM_CASES");
  if (env && atoi(env) > 0) cases = atoi(env);
  int bad = 0;
  for (int ci = 0; ci < cases; ++ci) bad += !random_case(ci, cfgs, ncfg);
  CHECK_EQ(bad, 0);
  printf("random: %d cases x %d configurations (levels x 1 and 3 threads) and a compact copy\n", cases, ncfg);
}

/* Large reductions through each path of the CPU backend (direct runs, pieces, many units at once, blocks
 * spanning rows, several blocks per output), at 1 and 3 threads and every level, against the reference. */
static void test_paths(void) {
  rng_state = 0xba75u;
  const int64_t R = 300, C = 9000;
  float *x = malloc(sizeof(float) * (size_t)(R * C));
  uint16_t *h = malloc(sizeof(uint16_t) * (size_t)(R * C));
  for (int64_t i = 0; i < R * C; ++i) {
    x[i] = (float)(((double)(rnd() % 2000001) - 1e6) / 1e3 * (chance(5) ? 1e5 : 1.0));
    h[i] = dlx__cvt_f32_to_bf16(x[i]);
  }
  struct {
    int32_t nd, naxes;
    int64_t shape[3], strides[3];
    int32_t axes[3];
  } cases[] = {
      {2, 1, {R, C}, {C, 1}, {1}},       /* rows: direct, several blocks */
      {2, 1, {R, C}, {C, 1}, {0}},       /* columns: many units at once */
      {2, 1, {C, R}, {R, 1}, {0}},       /* long columns: whole blocks (full stacks), then a partial one */
      {2, 1, {C, R}, {1, C}, {0}},       /* the transpose's rows */
      {2, 2, {C, R}, {1, C}, {0, 1}},    /* a transposed full sum: blocks side by side */
      {2, 2, {R, C}, {C, 1}, {0, 1}},    /* a full sum */
      {3, 2, {30, 10, 9000}, {90000, 9000, 1}, {0, 2}}, /* blocks spanning rows: gathered */
      {2, 1, {R, C}, {-C, -1}, {1}},     /* reversed */
      {2, 1, {R, C}, {0, 1}, {0}},       /* broadcast */
  };
  int bad = 0;
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    for (int bf = 0; bf < 2; ++bf) {
      const DLDataType dt = bf ? DLX_DTYPE_BFLOAT16 : DLX_DTYPE_FLOAT32;
      dlx_view a, o;
      char *base = bf ? (char *)h : (char *)x;
      int64_t off = 0;
      for (int d = 0; d < cases[ci].nd; ++d)
        if (cases[ci].strides[d] < 0) off -= (cases[ci].shape[d] - 1) * cases[ci].strides[d];
      view(&a, base + off * (int64_t)dlx_dtype_itemsize(dt), dt, cases[ci].nd, cases[ci].shape, cases[ci].strides);
      int32_t ond;
      int64_t oshape[DLX_MAX_NDIM];
      DLDataType odt;
      for (int op = 0; op < 2; ++op) {
        const dlx_reduce_op rop = op ? DLX_REDUCE_MEAN : DLX_REDUCE_SUM;
        CHECK_OK(dlx_reduce_result(rop, &a, cases[ci].naxes, cases[ci].axes, 0, &ond, oshape, &odt));
        view(&o, NULL, odt, ond, oshape, NULL);
        const size_t bytes = (size_t)dlx_view_size(&o) * dlx_dtype_itemsize(odt);
        unsigned char *ref = malloc(bytes), *got = malloc(bytes);
        o.data = ref;
        dlx__ops_set_reference(true);
        CHECK_OK(dlx_reduce(rop, &o, &a, cases[ci].naxes, cases[ci].axes, 0));
        dlx__ops_set_reference(false);
        static const char *const levels[] = {"baseline", "avx2", "avx512"};
        for (int lv = 0; lv < 3; ++lv) {
          if (dlx__cpu_force_variant(levels[lv]) != DLX_OK) continue;
          for (int threads = 1; threads <= 3; threads += 2) {
            dlx_set_num_threads(threads);
            const int64_t g = dlx__ops_set_grain(threads == 3 ? 1000 : 0);
            o.data = got;
            memset(got, 0x5a, bytes);
            CHECK_OK(dlx_reduce(rop, &o, &a, cases[ci].naxes, cases[ci].axes, 0));
            dlx__ops_set_grain(g);
            if (memcmp(ref, got, bytes) != 0 && bad++ < 5)
              fprintf(stderr, "  path case %zu (%s, %s), %s, %d threads differs from the reference\n", ci,
                      dlx_dtype_name(dt), op ? "mean" : "sum", levels[lv], threads);
          }
        }
        dlx_set_num_threads(0);
        dlx__cpu_force_variant(NULL);
        free(ref);
        free(got);
      }
    }
  }
  CHECK_EQ(bad, 0);
  free(x);
  free(h);
}

/* op over axes of a at every level and 1 and 3 threads against the reference: the runs that differ. */
static int staged_compare(dlx_reduce_op op, const dlx_view *a, int32_t naxes, const int32_t *axes, int ci, int *runs,
                          int bad_before) {
  static const char *const levels[] = {"baseline", "avx2", "avx512"};
  int32_t ond;
  int64_t oshape[DLX_MAX_NDIM];
  DLDataType odt;
  dlx_view o;
  int bad = 0;
  CHECK_OK(dlx_reduce_result(op, a, naxes, axes, 0, &ond, oshape, &odt));
  view(&o, NULL, odt, ond, oshape, NULL);
  const size_t bytes = (size_t)dlx_view_size(&o) * dlx_dtype_itemsize(odt);
  unsigned char *ref = malloc(bytes), *got = malloc(bytes);
  o.data = ref;
  dlx__ops_set_reference(true);
  CHECK_OK(dlx_reduce(op, &o, a, naxes, axes, 0));
  dlx__ops_set_reference(false);
  for (int lv = 0; lv < 3; ++lv) {
    if (dlx__cpu_force_variant(levels[lv]) != DLX_OK) continue;
    for (int threads = 1; threads <= 3; threads += 2) {
      dlx_set_num_threads(threads);
      const int64_t g = dlx__ops_set_grain(threads == 3 ? 1000 : 0);
      o.data = got;
      memset(got, 0x5a, bytes);
      CHECK_OK(dlx_reduce(op, &o, a, naxes, axes, 0));
      dlx__ops_set_grain(g);
      ++*runs;
      if (memcmp(ref, got, bytes) != 0 && bad_before + bad++ < 5)
        fprintf(stderr, "  staged case %d (%s, op %d), %s, %d threads differs from the reference\n", ci,
                dlx_dtype_name(a->dtype), (int)op, levels[lv], threads);
    }
  }
  dlx_set_num_threads(0);
  dlx__cpu_force_variant(NULL);
  free(ref);
  free(got);
  return bad;
}

/* Blocks spanning rows of a strided innermost reduced dimension go through the staging buffer in groups
 * (backends/cpu/reduce.c, run_group): transposed and permuted inputs of odd sizes, rows at the edges of
 * the 16-column tiles and of the groups (L of 16, 17, 255, 4095, 4097), negative strides, an offset
 * element 0 not aligned to a group, kept dimensions, every op on float32, float64, bfloat16, float16, a
 * float8 and int32, at every level and 1 and 3 threads: the reference path's bytes. */
static void test_staged(void) {
  rng_state = 0x57a9edu;
  struct {
    int32_t nd, naxes;
    int64_t shape[3];
    int perm[3];  /* memory order: perm[nd - 1] is the contiguous dimension */
    int negate;   /* bit d: dimension d walks backwards */
    int32_t axes[3];
  } cases[] = {
      {2, 2, {3000, 37}, {1, 0}, 0, {0, 1}},      /* a transposed full sum, 37 columns */
      {2, 2, {300, 1000}, {1, 0}, 0, {0, 1}},     /* rows of 1000: groups of 4 blocks */
      {2, 2, {17, 4097}, {1, 0}, 1, {0, 1}},      /* one past a block per row, reversed rows */
      {2, 2, {33, 4095}, {1, 0}, 2, {0, 1}},      /* one short of a block, reversed columns */
      {2, 2, {257, 16}, {1, 0}, 3, {0, 1}},       /* the shortest staged row */
      {2, 2, {100, 255}, {1, 0}, 0, {0, 1}},      /* a partial 16-column tile at the end of each row */
      {3, 3, {7, 300, 19}, {2, 0, 1}, 0, {0, 1, 2}}, /* a 3-D permutation, all axes */
      {3, 2, {9, 500, 23}, {1, 2, 0}, 4, {1, 2}},    /* keeping the contiguous axis 0 */
      {3, 2, {5, 400, 29}, {0, 2, 1}, 0, {1, 2}},    /* keeping the outer axis, transposed inner pair */
  };
  static const DLDataType dts[] = {DLX_DTYPE_FLOAT32, DLX_DTYPE_FLOAT64, DLX_DTYPE_BFLOAT16, DLX_DTYPE_FLOAT16,
                                   DLX_DTYPE_FLOAT8_E4M3FN, DLX_DTYPE_INT32};
  static const dlx_reduce_op ops[] = {DLX_REDUCE_SUM, DLX_REDUCE_PROD, DLX_REDUCE_MEAN, DLX_REDUCE_MAX,
                                      DLX_REDUCE_ARGMIN};
  int bad = 0, runs = 0;
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    const int32_t nd = cases[ci].nd;
    int64_t n = 1, strides[3], acc = 1, off = 0;
    for (int k = nd - 1; k >= 0; --k) { /* compact in perm's order, then negated */
      const int d = cases[ci].perm[k];
      strides[d] = acc;
      acc *= cases[ci].shape[d];
    }
    for (int d = 0; d < nd; ++d) {
      n *= cases[ci].shape[d];
      if (cases[ci].negate >> d & 1) {
        off += (cases[ci].shape[d] - 1) * strides[d];
        strides[d] = -strides[d];
      }
    }
    for (size_t ti = 0; ti < sizeof dts / sizeof dts[0]; ++ti) {
      const DLDataType dt = dts[ti];
      const size_t isz = dlx_dtype_itemsize(dt);
      unsigned char *x = malloc((size_t)n * isz);
      /* finite values of mixed magnitudes (no NaN: a NaN sum would hide the order), ties for argmin */
      for (int64_t i = 0; i < n; ++i) {
        const double v = ((double)(rnd() % 2001) - 1000.0) / 64.0 * (chance(5) ? 97.0 : 1.0);
        unsigned char *p = x + i * (int64_t)isz;
        if (dt.code == kDLInt) {
          const int32_t iv = (int32_t)(v * 64.0);
          memcpy(p, &iv, isz);
        } else if (isz == 4 && dt.code == kDLFloat) {
          const float f = (float)(v * 1.000173);
          memcpy(p, &f, 4);
        } else if (isz == 8) {
          const double d = v * 1.000173;
          memcpy(p, &d, 8);
        } else {
          const uint32_t c = dlx__cvt_narrow_encode(dlx__kd_narrow_code(dlx__kd_of(dt)), v / 4.0);
          memcpy(p, &c, isz);
        }
      }
      dlx_view a;
      view(&a, x + off * (int64_t)isz, dt, nd, cases[ci].shape, strides);
      for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; ++oi)
        if (ops[oi] != DLX_REDUCE_MEAN || dt.code != kDLInt)
          bad += staged_compare(ops[oi], &a, cases[ci].naxes, cases[ci].axes, (int)ci, &runs, bad);
      free(x);
    }
  }
  CHECK_EQ(bad, 0);
  printf("staged: %d runs against the reference\n", runs);
}

/* ======================================================================================================
 * Errors.
 * ==================================================================================================== */

static const dlx__compute_ops no_reduce = {.name = "no-reduce", .execute = NULL};

static void test_errors(void) {
  float x[12] = {0}, r[12];
  dlx_view a, o;
  view(&a, x, DLX_DTYPE_FLOAT32, 2, I64(3, 4), NULL);
  view(&o, r, DLX_DTYPE_FLOAT32, 1, I64(3), NULL);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, NULL, &a, 1, AX(1), 0), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, NULL, 1, AX(1), 0), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, NULL, 0), DLX_ERR_NULL_ARGUMENT, "'axes' is NULL (naxes 1)");
  CHECK_FAIL(dlx_reduce((dlx_reduce_op)9, &o, &a, 1, AX(1), 0), DLX_ERR_INVALID_ARGUMENT, "op 9 is not a dlx_reduce_op");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, -2, AX(1), 0), DLX_ERR_INVALID_ARGUMENT, "naxes -2");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 65, AX(1), 0), DLX_ERR_INVALID_ARGUMENT, "naxes 65");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, AX(2), 0), DLX_ERR_INDEX,
             "axis 2 is out of range for an input of ndim 2 (axes are -2..1)");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, AX(-3), 0), DLX_ERR_INDEX, "axis -3 is out of range");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 2, AX(1, -1), 0), DLX_ERR_INVALID_ARGUMENT,
             "axis 1 is repeated (axes[1] is -1)");
  dlx_view s;
  view(&s, x, DLX_DTYPE_FLOAT32, 0, NULL, NULL);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &s, 1, AX(0), 0), DLX_ERR_INDEX, "a 0-d input has no axes");
  /* dtypes */
  dlx_view w = a;
  w.dtype = DLX_DTYPE_INT128;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &w, 1, AX(1), 0), DLX_ERR_UNSUPPORTED, "sum is not supported for dtype int128");
  w.dtype = DLX_DTYPE_FLOAT4_E2M1FN;
  w.flags = DLX_VIEW_SUBBYTE_PADDED;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_MAX, &o, &w, 1, AX(1), 0), DLX_ERR_UNSUPPORTED, "max is not supported for float4_e2m1fn");
  w = o;
  w.dtype = DLX_DTYPE_FLOAT32;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_ARGMAX, &w, &a, 1, AX(1), 0), DLX_ERR_DTYPE_MISMATCH,
             "argmax writes int64 indices, but out is float32");
  w.dtype = DLX_DTYPE_INT8;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_ANY, &w, &a, 1, AX(1), 0), DLX_ERR_DTYPE_MISMATCH, "any writes bool, but out is int8");
  w.dtype = DLX_DTYPE_INT32;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_MEAN, &w, &a, 1, AX(1), 0), DLX_ERR_DTYPE_MISMATCH,
             "mean needs a floating-point or complex out, but out is int32");
  w.dtype = DLX_DTYPE_COMPLEX32;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &w, &a, 1, AX(1), 0), DLX_ERR_UNSUPPORTED, "sum into complex32 is not supported");
  w.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 7, 1);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &w, &a, 1, AX(1), 0), DLX_ERR_INVALID_DTYPE, "out has illegal dtype");
  /* shapes */
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, AX(0), 0), DLX_ERR_INVALID_ARGUMENT,
             "out has shape (3), but sum over axes (0) of a (3,4) input has shape (4)");
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, AX(1), 1), DLX_ERR_INVALID_ARGUMENT, "(keepdims) has shape (3,1)");
  w = o;
  w.shape[0] = -1;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &w, &a, 1, AX(1), 0), DLX_ERR_NEGATIVE_EXTENT, "out has negative extent -1");
  w = a;
  w.data = NULL;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &w, 1, AX(1), 0), DLX_ERR_NULL_DATA, "a has elements but NULL data");
  w.data = x;
  w.ndim = 65;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &w, 1, AX(1), 0), DLX_ERR_RANK, "a has ndim 65");
  /* out: read-only, broadcast, overlapping the input */
  w = o;
  w.flags = DLX_VIEW_READ_ONLY;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &w, &a, 1, AX(1), 0), DLX_ERR_READ_ONLY, "out is read-only");
  w = o;
  w.strides[0] = 0;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &w, &a, 1, AX(1), 0), DLX_ERR_BAD_STRIDE, "out has stride 0 at dimension 0");
  w = o;
  w.data = x + 4;
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &w, &a, 1, AX(1), 0), DLX_ERR_INVALID_ARGUMENT, "out overlaps the input a");
  view(&w, x, DLX_DTYPE_FLOAT32, 2, I64(3, 4), NULL);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_MAX, &w, &a, 0, NULL, 0), DLX_ERR_INVALID_ARGUMENT, "out overlaps the input a");
  /* devices */
  w = o;
  w.device = (DLDevice){kDLROCM, 0};
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &w, &a, 1, AX(1), 0), DLX_ERR_DEVICE_MISMATCH, "out is on rocm:0");
  w = a;
  w.device = (DLDevice){kDLOneAPI, 0};
  dlx_status st = dlx_reduce(DLX_REDUCE_SUM, &o, &w, 1, AX(1), 0);
  CHECK(st == DLX_ERR_DEVICE_MISMATCH);
  CHECK(strstr(dlx_last_error(), "oneapi:0") != NULL);
  /* a backend without reductions */
  const dlx__compute_ops *was = dlx__backend_override_host(&no_reduce);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &a, 1, AX(1), 0), DLX_ERR_UNSUPPORTED,
             "the no-reduce backend (computing on cpu:0) has no reductions");
  dlx__backend_override_host(was);
  /* strides and counts that overflow int64 */
  /* (views by hand: dlx_view_init refuses them; a view made by a caller need not come from it) */
  w = a;
  w.shape[0] = 2;
  w.strides[0] = INT64_MAX / 2;
  view(&o, r, DLX_DTYPE_FLOAT32, 1, I64(2), NULL);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &w, 1, AX(1), 0), DLX_ERR_OVERFLOW, "byte offsets of the elements overflow");
  w.shape[0] = 1; /* an extent-1 dimension's stride is anything */
  view(&o, r, DLX_DTYPE_FLOAT32, 1, I64(1), NULL);
  CHECK_OK(dlx_reduce(DLX_REDUCE_SUM, &o, &w, 1, AX(1), 0));
  w.shape[0] = w.shape[1] = INT64_C(1) << 40;
  w.strides[0] = w.strides[1] = 0;
  view(&o, r, DLX_DTYPE_FLOAT32, 0, NULL, NULL);
  CHECK_FAIL(dlx_reduce(DLX_REDUCE_SUM, &o, &w, DLX_REDUCE_ALL_AXES, NULL, 0), DLX_ERR_OVERFLOW,
             "element count overflows int64");
  /* dlx_reduce_result */
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLDataType dt;
  CHECK_FAIL(dlx_reduce_result(DLX_REDUCE_SUM, NULL, 0, NULL, 0, &nd, shape, &dt), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_reduce_result(DLX_REDUCE_SUM, &a, 0, NULL, 0, NULL, shape, &dt), DLX_ERR_NULL_ARGUMENT, "'ndim'");
  CHECK_FAIL(dlx_reduce_result(DLX_REDUCE_SUM, &a, 0, NULL, 0, &nd, NULL, &dt), DLX_ERR_NULL_ARGUMENT, "'shape'");
  CHECK_FAIL(dlx_reduce_result(DLX_REDUCE_SUM, &a, 0, NULL, 0, &nd, shape, NULL), DLX_ERR_NULL_ARGUMENT, "'dtype'");
  CHECK_FAIL(dlx_reduce_result(DLX_REDUCE_COUNT, &a, 0, NULL, 0, &nd, shape, &dt), DLX_ERR_INVALID_ARGUMENT, "op 9");
  CHECK_FAIL(dlx_reduce_result(DLX_REDUCE_ALL, &a, 1, AX(7), 0, &nd, shape, &dt), DLX_ERR_INDEX, "axis 7");
}

/* A dtype= the kernels do not convert to on the fly: the input is converted to out's dtype first. */
static void test_converted_input(void) {
  const float x[] = {1.0f, 0.00390625f, 0.00390625f, 300.5f};
  uint16_t bf = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_FLOAT32, x, 4, DLX_DTYPE_BFLOAT16, &bf));
  /* each element rounded to bfloat16 first (300.5 -> 300), then accumulated in float32 in the tree's
   * order for four elements, (x0 + x2) + (x1 + x3) */
  const uint16_t want = dlx__cvt_f32_to_bf16((1.0f + 0.00390625f) + (0.00390625f + 300.0f));
  CHECK_EQ(bf, want);
  double d = 0;
  CHECK_OK(reduce_1d(DLX_REDUCE_MAX, DLX_DTYPE_FLOAT32, x, 4, DLX_DTYPE_FLOAT64, &d));
  CHECK(d == 300.5);
  int8_t i8 = 0;
  const int16_t wide[] = {300, 1};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_INT16, wide, 2, DLX_DTYPE_INT8, &i8));
  CHECK_EQ(i8, 45); /* NumPy: np.sum(int16 [300, 1], dtype=int8) */
  uint8_t b = 0;
  const int32_t opposite[] = {1, -1};
  CHECK_OK(reduce_1d(DLX_REDUCE_SUM, DLX_DTYPE_INT32, opposite, 2, DLX_DTYPE_BOOL, &b));
  CHECK_EQ(b, 1); /* each converted to bool first: true or true */
}

/* Data at an odd byte offset (DLPack allows any): the trees that read typed runs in place take copied
 * pieces instead, with the same bits (ASan/UBSan builds catch a misaligned typed read). */
static void test_misaligned(void) {
  enum { N = 5000 };
  double *x = malloc(sizeof(double) * N);
  unsigned char *odd = malloc(sizeof(double) * N + 1);
  for (int i = 0; i < N; ++i) x[i] = (double)(rnd() % 2000001) / 7.0 - 1e5;
  memcpy(odd + 1, x, sizeof(double) * N);
  const DLDataType dts[] = {DLX_DTYPE_FLOAT64, DLX_DTYPE_FLOAT32, DLX_DTYPE_BFLOAT16, DLX_DTYPE_INT64};
  for (size_t k = 0; k < sizeof dts / sizeof dts[0]; ++k) {
    const int64_t n = N * 8 / (int64_t)dlx_dtype_itemsize(dts[k]); /* x's bytes as elements of dts[k]: its own sum's dtype */
    uint64_t want[2] = {0}, got[2] = {0};
    CHECK_OK(reduce_1d(DLX_REDUCE_SUM, dts[k], x, n, dts[k], want));
    CHECK_OK(reduce_1d(DLX_REDUCE_SUM, dts[k], odd + 1, n, dts[k], got));
    CHECK(memcmp(want, got, sizeof want) == 0);
  }
  free(x);
  free(odd);
}

static const dlx_test_case tests[] = {
    {"integers", test_integers},
    {"floats", test_floats},
    {"complex", test_complex},
    {"narrow", test_narrow},
    {"axes", test_axes},
    {"empty", test_empty},
    {"documented_order", test_documented_order},
    {"converted_input", test_converted_input},
    {"misaligned", test_misaligned},
    {"paths", test_paths},
    {"staged", test_staged},
    {"random", test_random},
    {"errors", test_errors},
};

DLX_TEST_MAIN(tests)
