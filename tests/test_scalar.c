/* Tests for src/compute/scalar.c: dlx_scalar_view and dlx_scalar_view_int, the 0-d host views over a
 * caller's buffer that ops take as scalar operands. Values are converted with the cast rules (dlx/ops.h):
 * checked on chosen values, at the edges of every integer range, and against dlx_cast of the same value
 * for every dtype with a kernel. */
#include <math.h>
#include <stdbool.h>

#include "runner.h"

#include "kernels/ew.h"
#include "dlx/ops.h"

#define CPU ((DLDevice){kDLCPU, 0})

/* Every dtype with a kernel, in dlx__kd order. */
static const DLDataType kd_dtypes[DLX_KD_COUNT] = {
    DLX_DTYPE_BOOL,          DLX_DTYPE_INT8,           DLX_DTYPE_INT16,         DLX_DTYPE_INT32,
    DLX_DTYPE_INT64,         DLX_DTYPE_UINT8,          DLX_DTYPE_UINT16,        DLX_DTYPE_UINT32,
    DLX_DTYPE_UINT64,        DLX_DTYPE_FLOAT32,        DLX_DTYPE_FLOAT64,       DLX_DTYPE_COMPLEX64,
    DLX_DTYPE_COMPLEX128,    DLX_DTYPE_FLOAT16,        DLX_DTYPE_BFLOAT16,      DLX_DTYPE_FLOAT8_E3M4,
    DLX_DTYPE_FLOAT8_E4M3,   DLX_DTYPE_FLOAT8_E4M3B11FNUZ, DLX_DTYPE_FLOAT8_E4M3FN, DLX_DTYPE_FLOAT8_E4M3FNUZ,
    DLX_DTYPE_FLOAT8_E5M2,   DLX_DTYPE_FLOAT8_E5M2FNUZ, DLX_DTYPE_FLOAT8_E8M0FNU, DLX_DTYPE_FLOAT6_E2M3FN,
    DLX_DTYPE_FLOAT6_E3M2FN, DLX_DTYPE_FLOAT4_E2M1FN};

static dlx_view vec(void *data, DLDataType dt, int64_t n) {
  dlx_view v;
  dlx_status st = dlx_view_init(&v, data, dt, CPU, 1, &n, NULL);
  CHECK_OK(st);
  return v;
}

static const char *name_of(DLDataType dt) {
  static char buf[DLX_DTYPE_NAME_MAX];
  dlx_dtype_format(dt, buf, sizeof buf);
  return buf;
}

static void test_scalars(void) {
  dlx_scalar_buf b;
  dlx_view v;
  CHECK_OK(dlx_scalar_view(&v, &b, DLX_DTYPE_INT8, -128, 0));
  CHECK_EQ(v.ndim, 0);
  CHECK_EQ((int8_t)b.bytes[0], -128);
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_INT8, 128, 0), DLX_ERR_OVERFLOW, "128 is not an integer in the range of int8");
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_INT32, 2.5, 0), DLX_ERR_OVERFLOW, "2.5");
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_UINT8, -1, 0), DLX_ERR_OVERFLOW, "uint8");
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_INT64, NAN, 0), DLX_ERR_OVERFLOW, "nan");
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_INT64, 9223372036854775808.0, 0), DLX_ERR_OVERFLOW, "int64");
  CHECK_OK(dlx_scalar_view(&v, &b, DLX_DTYPE_UINT64, 18446744073709549568.0, 0));
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_UINT64, 18446744073709551616.0, 0), DLX_ERR_OVERFLOW, "uint64");
  CHECK_OK(dlx_scalar_view(&v, &b, DLX_DTYPE_COMPLEX64, 1.5, -2));
  float c[2];
  memcpy(c, b.bytes, 8);
  CHECK(c[0] == 1.5f && c[1] == -2.0f);
  CHECK_OK(dlx_scalar_view(&v, &b, DLX_DTYPE_BOOL, 0, 1)); /* cast rule: nonzero complex is true */
  CHECK_EQ(b.bytes[0], 1);
  CHECK_OK(dlx_scalar_view(&v, &b, DLX_DTYPE_FLOAT16, 1.0, 0));
  CHECK_EQ(b.bytes[0] | (b.bytes[1] << 8), 0x3C00);
  CHECK_OK(dlx_scalar_view(&v, &b, DLX_DTYPE_FLOAT8_E5M2, -2.0, 0));
  CHECK_EQ(b.bytes[0], 0xC0);
  CHECK_OK(dlx_scalar_view_int(&v, &b, DLX_DTYPE_INT64, INT64_MIN));
  int64_t i;
  memcpy(&i, b.bytes, 8);
  CHECK(i == INT64_MIN);
  CHECK_OK(dlx_scalar_view_int(&v, &b, DLX_DTYPE_FLOAT32, (1 << 24) + 1));
  float f;
  memcpy(&f, b.bytes, 4);
  CHECK(f == 16777216.0f);
  CHECK_OK(dlx_scalar_view_int(&v, &b, DLX_DTYPE_UINT64, INT64_MAX));
  CHECK_FAIL(dlx_scalar_view_int(&v, &b, DLX_DTYPE_UINT8, 256), DLX_ERR_OVERFLOW, "256 is outside the range of uint8");
  CHECK_FAIL(dlx_scalar_view_int(&v, &b, DLX_DTYPE_UINT64, -1), DLX_ERR_OVERFLOW, "-1");
  CHECK_FAIL(dlx_scalar_view_int(&v, &b, DLX_DTYPE_INT16, -32769), DLX_ERR_OVERFLOW, "int16");
  CHECK_FAIL(dlx_scalar_view_int(&v, &b, DLX_DTYPE_INT128, 1), DLX_ERR_UNSUPPORTED, "int128");
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_MAKE(DLX_CODE_INT, 7, 1), 1, 0), DLX_ERR_INVALID_DTYPE, "bits 7");
  CHECK_FAIL(dlx_scalar_view(NULL, &b, DLX_DTYPE_INT8, 1, 0), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_scalar_view_int(&v, NULL, DLX_DTYPE_INT8, 1), DLX_ERR_NULL_ARGUMENT, "'buf'");
  /* scalar operands of every op: out = s - t is the call with the operands swapped */
  int16_t t[3] = {1, 2, 3}, o[3];
  dlx_view vt = vec(t, DLX_DTYPE_INT16, 3), vo = vec(o, DLX_DTYPE_INT16, 3);
  CHECK_OK(dlx_scalar_view_int(&v, &b, DLX_DTYPE_INT16, 10));
  CHECK_OK(dlx_binary(DLX_OP_SUB, &vo, &v, &vt));
  CHECK(o[0] == 9 && o[1] == 8 && o[2] == 7);
  CHECK_OK(dlx_fill(&vo, &v));
  CHECK(o[0] == 10 && o[2] == 10);
  /* a 0-d output */
  int16_t z = 0;
  dlx_view vz;
  CHECK_OK(dlx_view_init(&vz, &z, DLX_DTYPE_INT16, CPU, 0, NULL, NULL));
  CHECK_OK(dlx_binary(DLX_OP_MUL, &vz, &v, &v));
  CHECK_EQ(z, 100);
}

/* What the view is: 0-d, on cpu:0, over buf, of the dtype asked for; float6/float4 codes are stored one per
 * byte and flagged padded, so that kernels read them directly. */
static void test_scalar_view_shape(void) {
  for (int k = 0; k < DLX_KD_COUNT; ++k) {
    const DLDataType dt = kd_dtypes[k];
    for (int path = 0; path < 2; ++path) {
      dlx_scalar_buf b;
      dlx_view v;
      memset(&v, 0xAB, sizeof v);
      if (path == 0) CHECK_OK(dlx_scalar_view(&v, &b, dt, 1, 0));
      else CHECK_OK(dlx_scalar_view_int(&v, &b, dt, 1));
      CHECK_EQ(v.ndim, 0);
      CHECK(v.data == (void *)b.bytes);
      CHECK(dlx_dtype_equal(v.dtype, dt));
      CHECK_EQ(v.device.device_type, kDLCPU);
      CHECK_EQ(v.device.device_id, 0);
      CHECK_EQ(dlx_view_size(&v), 1);
      CHECK_EQ(v.flags, dlx__kd_is_subbyte((dlx__kd)k) ? DLX_VIEW_SUBBYTE_PADDED : 0);
      /* the bytes past the element are zero */
      const size_t size = dlx_dtype_is_subbyte(dt) ? 1 : dlx_dtype_itemsize(dt);
      int junk = 0;
      for (size_t i = size; i < sizeof b.bytes; ++i) junk += b.bytes[i] != 0;
      CHECK_EQ(junk, 0);
    }
  }
  /* no kernel, no scalar: vectors and the wide or short types without one */
  dlx_scalar_buf b;
  dlx_view v;
  CHECK_FAIL(dlx_scalar_view(&v, &b, DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 4), 1, 0), DLX_ERR_UNSUPPORTED, "float32x4");
  CHECK_FAIL(dlx_scalar_view_int(&v, &b, DLX_DTYPE_COMPLEX32, 1), DLX_ERR_UNSUPPORTED, "has no scalar conversion");
  CHECK_FAIL(dlx_scalar_view_int(&v, &b, DLX_DTYPE_MAKE(DLX_CODE_INT, 7, 1), 1), DLX_ERR_INVALID_DTYPE, "dlx_scalar_view_int");
  CHECK_FAIL(dlx_scalar_view(&v, NULL, DLX_DTYPE_INT8, 1, 0), DLX_ERR_NULL_ARGUMENT, "dlx_scalar_view: argument 'buf'");
  CHECK_FAIL(dlx_scalar_view_int(NULL, &b, DLX_DTYPE_INT8, 1), DLX_ERR_NULL_ARGUMENT, "'v'");
}

/* Both entry points at the edges of every integer dtype: the extremes are stored exactly, one past them
 * is DLX_ERR_OVERFLOW naming the value and the dtype. */
static void test_scalar_integer_ranges(void) {
  for (int k = DLX_KD_I8; k <= DLX_KD_U64; ++k) {
    const DLDataType dt = kd_dtypes[k];
    const bool sgn = k <= DLX_KD_I64;
    const int bits = dt.bits;
    const int64_t lo = sgn ? (bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1))) : 0;
    const int64_t hi = bits == 64 ? INT64_MAX : sgn ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
    const int64_t edges[2] = {lo, hi};
    dlx_scalar_buf b;
    dlx_view v;
    for (int e = 0; e < 2; ++e) {
      CHECK_OK(dlx_scalar_view_int(&v, &b, dt, edges[e]));
      int64_t got = 0;
      memcpy(&got, b.bytes, (size_t)bits / 8);
      if (sgn && bits < 64 && (got >> (bits - 1)) & 1) got -= (int64_t)1 << bits; /* sign-extend */
      CHECK_EQ(got, edges[e]);
      /* the double entry takes the edges too where the double is exact (not INT64_MAX, UINT64 max) */
      if (bits < 64 || edges[e] == lo) CHECK_OK(dlx_scalar_view(&v, &b, dt, (double)edges[e], 0));
    }
    char msg[128];
    if (lo != INT64_MIN) {
      snprintf(msg, sizeof msg, "%lld is outside the range of %s", (long long)(lo - 1), name_of(dt));
      CHECK_FAIL(dlx_scalar_view_int(&v, &b, dt, lo - 1), DLX_ERR_OVERFLOW, msg);
      snprintf(msg, sizeof msg, "%lld is not an integer in the range of %s", (long long)(lo - 1), name_of(dt));
      CHECK_FAIL(dlx_scalar_view(&v, &b, dt, (double)(lo - 1), 0), DLX_ERR_OVERFLOW, msg);
    }
    if (hi != INT64_MAX) {
      snprintf(msg, sizeof msg, "%lld is outside the range of %s", (long long)(hi + 1), name_of(dt));
      CHECK_FAIL(dlx_scalar_view_int(&v, &b, dt, hi + 1), DLX_ERR_OVERFLOW, msg);
    }
    if (bits < 64) CHECK_FAIL(dlx_scalar_view(&v, &b, dt, (double)hi + 1, 0), DLX_ERR_OVERFLOW, name_of(dt));
    CHECK_FAIL(dlx_scalar_view(&v, &b, dt, 0.5, 0), DLX_ERR_OVERFLOW, "0.5");
    CHECK_FAIL(dlx_scalar_view(&v, &b, dt, INFINITY, 0), DLX_ERR_OVERFLOW, "inf");
    /* the imaginary part is ignored for real dtypes */
    CHECK_OK(dlx_scalar_view(&v, &b, dt, 3, 7));
    CHECK_EQ(b.bytes[0], 3);
  }
}

/* "Converted with the cast rules": the scalar holds what dlx_cast writes for the same value, from float64
 * (complex128 when there is an imaginary part) and from int64, for every dtype with a kernel. */
static void test_scalar_matches_cast(void) {
  static const double reals[][2] = {{0, 0},     {-0.0, 0}, {1, 0},     {-2.25, 0},   {1.5, 0.5},      {0, -1},
                                    {3e38, 0},  {1e300, 0}, {-7e-3, 0}, {65520, 0},  {448.5, 0},     {NAN, 0},
                                    {INFINITY, 0}, {-INFINITY, 2}, {1.0 + 1.0 / 256 + 1.0 / 1099511627776.0, 0}};
  static const int64_t ints[] = {0, 1, -1, 127, -129, 255, 65536, (1 << 24) + 1, ((int64_t)1 << 30) + (1 << 22) + 1,
                                 ((int64_t)1 << 53) + 1, INT64_MIN, INT64_MAX};
  for (int k = 0; k < DLX_KD_COUNT; ++k) {
    const DLDataType dt = kd_dtypes[k];
    dlx_view out_v;
    unsigned char out[16];
    CHECK_OK(dlx_view_init(&out_v, out, dt, CPU, 0, NULL, NULL));
    if (dlx_dtype_is_subbyte(dt)) out_v.flags = DLX_VIEW_SUBBYTE_PADDED;
    const size_t size = dlx_dtype_is_subbyte(dt) ? 1 : dlx_dtype_itemsize(dt);
    int mismatches = 0;
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; ++i) {
      dlx_scalar_buf b;
      dlx_view v;
      const double re = reals[i][0], im = reals[i][1];
      if (dlx_scalar_view(&v, &b, dt, re, im) != DLX_OK) {
        CHECK(k >= DLX_KD_I8 && k <= DLX_KD_U64); /* only integers refuse a value */
        continue;
      }
      double src[2] = {re, im};
      dlx_view src_v;
      CHECK_OK(dlx_view_init(&src_v, src, im != 0 ? DLX_DTYPE_COMPLEX128 : DLX_DTYPE_FLOAT64, CPU, 0, NULL, NULL));
      memset(out, 0, sizeof out);
      CHECK_OK(dlx_cast(&out_v, &src_v));
      if (memcmp(out, b.bytes, size) != 0 && mismatches++ < 3)
        fprintf(stderr, "    %s: scalar (%g, %g) differs from the cast\n", name_of(dt), re, im);
    }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; ++i) {
      dlx_scalar_buf b;
      dlx_view v;
      if (dlx_scalar_view_int(&v, &b, dt, ints[i]) != DLX_OK) {
        CHECK(k >= DLX_KD_I8 && k <= DLX_KD_U64);
        continue;
      }
      int64_t src = ints[i];
      dlx_view src_v;
      CHECK_OK(dlx_view_init(&src_v, &src, DLX_DTYPE_INT64, CPU, 0, NULL, NULL));
      memset(out, 0, sizeof out);
      CHECK_OK(dlx_cast(&out_v, &src_v));
      if (memcmp(out, b.bytes, size) != 0 && mismatches++ < 3)
        fprintf(stderr, "    %s: scalar_int %lld differs from the cast\n", name_of(dt), (long long)ints[i]);
    }
    CHECK_EQ(mismatches, 0);
  }
}

static const dlx_test_case cases[] = {
    {"scalars", test_scalars},
    {"scalar_view_shape", test_scalar_view_shape},
    {"scalar_integer_ranges", test_scalar_integer_ranges},
    {"scalar_matches_cast", test_scalar_matches_cast},
};
DLX_TEST_MAIN(cases)
