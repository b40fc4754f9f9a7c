/* Tests for src/compute/create.c: dlx_arange_fill, dlx_arange, dlx_arange_int, dlx_arange_length(_int) and
 * dlx_eye. python/tests/test_creation.py compares the values with NumPy itself for every dtype (through
 * dlx.arange and dlx._testing's hooks onto these functions); here: values NumPy 2.4 gives at the rounding
 * and wrapping edges (quoted), strided, packed and device outputs, and every refusal with its message.
 * The device is an emulated one (host memory labelled cuda:0, as in test_backends.c), so that the path
 * through a host buffer and dlx_copy runs without a GPU. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/cpu/cpu.h"
#include "dlx/ops.h"

#define CPU ((DLDevice){kDLCPU, 0})
#define EMU ((DLDevice){kDLCUDA, 0})

static dlx_view vec(void *data, DLDataType dt, int64_t n, int64_t stride) {
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, data, dt, CPU, 1, &n, &stride));
  return v;
}

/* ---- an emulated device: host memory labelled cuda:0, copies counted ------------------------------- */

static int emu_copies;
static int emu_count(void) { return 1; }
static dlx_status emu_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn) {
  (void)device, (void)fn;
  *out = calloc(1, bytes ? bytes : 1);
  (void)zero;
  return *out != NULL ? DLX_OK : DLX_ERR_OUT_OF_MEMORY;
}
static void emu_free(DLDevice device, void *ptr) {
  (void)device;
  free(ptr);
}
static dlx_status emu_copy(const dlx_view *dst, const dlx_view *src) {
  ++emu_copies;
  dlx_view d = *dst, s = *src;
  d.device = s.device = CPU;
  return dlx_copy(&d, &s);
}
static const dlx__memory_ops emu_memory = {
    .name = "emu", .label = "emulated", .device_type = kDLCUDA, .device_count = emu_count,
    .alloc = emu_alloc, .free = emu_free, .copy = emu_copy};
static const dlx__backend emu_backend = {"emulated-cuda (CPU loops)", &emu_memory, &dlx__cpu_compute};

/* ---- values ------------------------------------------------------------------------------------------- */

static void test_integers(void) {
  /* np.arange(250, 260, dtype=np.uint8): wraps past 255 */
  uint8_t u8[10];
  dlx_view v = vec(u8, DLX_DTYPE_UINT8, 10, 1);
  CHECK_OK(dlx_arange_int(&v, 250, 1));
  const uint8_t want_u8[10] = {250, 251, 252, 253, 254, 255, 0, 1, 2, 3};
  CHECK(memcmp(u8, want_u8, sizeof u8) == 0);
  /* np.arange(-120, -140, -7, dtype=np.int8) is [-120, -127, 122] */
  int8_t i8[3];
  v = vec(i8, DLX_DTYPE_INT8, 3, 1);
  CHECK_OK(dlx_arange_int(&v, -120, -7));
  CHECK(i8[0] == -120 && i8[1] == -127 && i8[2] == 122);
  /* a Python float into an integer dtype truncates: np.arange(-0.5, 3, dtype=np.uint8) is [0, 0, 0, 0] */
  uint8_t z[4] = {9, 9, 9, 9};
  v = vec(z, DLX_DTYPE_UINT8, 4, 1);
  CHECK_OK(dlx_arange(&v, -0.5, 1.0));
  CHECK(z[0] == 0 && z[1] == 0 && z[2] == 0 && z[3] == 0);
  /* int64 with a negative stride, every 64-bit value exact */
  int64_t i64[5];
  dlx_view r = vec(i64 + 4, DLX_DTYPE_INT64, 5, -1);
  CHECK_OK(dlx_arange_int(&r, INT64_MAX - 4, 1));
  for (int i = 0; i < 5; ++i) CHECK(i64[4 - i] == INT64_MAX - 4 + i);
  uint64_t u64[3];
  v = vec(u64, DLX_DTYPE_UINT64, 3, 1);
  CHECK_OK(dlx_arange_int(&v, 5, -3)); /* 5, 2, then 2^64 - 1: NumPy's fill wraps */
  CHECK(u64[0] == 5 && u64[1] == 2 && u64[2] == UINT64_MAX);
}

static void test_floats(void) {
  /* np.arange(0, 1, 0.3, dtype=np.float32).view(np.uint32) */
  float f[4];
  dlx_view v = vec(f, DLX_DTYPE_FLOAT32, 4, 1);
  CHECK_OK(dlx_arange(&v, 0, 0.3));
  const uint32_t want_f[4] = {0, 1050253722u, 1058642330u, 1063675495u};
  CHECK(memcmp(f, want_f, sizeof f) == 0);
  /* np.arange(0.1, 1.0, 0.1).view(np.uint64): x1 is the double sum 0.1 + 0.1 */
  double d[9];
  v = vec(d, DLX_DTYPE_FLOAT64, 9, 1);
  CHECK_OK(dlx_arange(&v, 0.1, 0.1));
  const uint64_t want_d[9] = {4591870180066957722u, 4596373779694328218u, 4599075939470750516u,
                              4600877379321698714u, 4602678819172646912u, 4603579539098121011u,
                              4604480259023595111u, 4605380978949069210u, 4606281698874543309u};
  CHECK(memcmp(d, want_d, sizeof d) == 0);
  /* np.arange(2040, 2060, 3, dtype=np.float16).view(np.uint16): float32 steps, rounded to half */
  uint16_t h[7];
  v = vec(h, DLX_DTYPE_FLOAT16, 7, 1);
  CHECK_OK(dlx_arange_int(&v, 2040, 3));
  const uint16_t want_h[7] = {26616, 26619, 26622, 26624, 26626, 26628, 26629};
  CHECK(memcmp(h, want_h, sizeof h) == 0);
  /* bfloat16 takes a Python float through float32 (ml_dtypes): 1 + 2^-8 + 2^-30 is 1.0, not 1.0078125;
   * np.arange(1 + 2**-8 + 2**-30, 5, 1, dtype=ml_dtypes.bfloat16).view(np.uint16) */
  uint16_t b[4];
  v = vec(b, DLX_DTYPE_BFLOAT16, 4, 1);
  CHECK_OK(dlx_arange(&v, 1 + ldexp(1, -8) + ldexp(1, -30), 1));
  const uint16_t want_b[4] = {16256, 16384, 16448, 16512};
  CHECK(memcmp(b, want_b, sizeof b) == 0);
  /* np.arange(0, 3, 0.1, dtype=ml_dtypes.float8_e4m3fn)[:8].view(np.uint8) */
  uint8_t e[8];
  v = vec(e, DLX_DTYPE_FLOAT8_E4M3FN, 8, 1);
  CHECK_OK(dlx_arange(&v, 0, 0.1));
  const uint8_t want_e[8] = {0, 29, 37, 42, 45, 48, 50, 51};
  CHECK(memcmp(e, want_e, sizeof e) == 0);
  /* complex: the real parts step, the imaginary parts stay +0 (np.arange(0.5, 3, 0.7, dtype=np.complex64)) */
  float c[8];
  v = vec(c, DLX_DTYPE_COMPLEX64, 4, 1);
  CHECK_OK(dlx_arange(&v, 0.5, 0.7));
  CHECK(c[0] == 0.5f && c[2] == 1.2f && c[4] == 0.5f + 2.0f * (1.2f - 0.5f) && c[6] == 0.5f + 3.0f * (1.2f - 0.5f));
  CHECK(c[1] == 0 && c[3] == 0 && c[5] == 0 && c[7] == 0 && !signbit(c[7]));
  double z[4];
  v = vec(z, DLX_DTYPE_COMPLEX128, 2, 1);
  CHECK_OK(dlx_arange_int(&v, -3, 2));
  CHECK(z[0] == -3 && z[1] == 0 && z[2] == -1 && z[3] == 0);
}

static void test_bool_and_short(void) {
  uint8_t b[2] = {7, 7};
  dlx_view v = vec(b, DLX_DTYPE_BOOL, 2, 1);
  CHECK_OK(dlx_arange(&v, 0.5, 1.0)); /* np.arange(0.5, 2, dtype=bool): [True, True] */
  CHECK(b[0] == 1 && b[1] == 1);
  CHECK_OK(dlx_arange_int(&v, 1, -1)); /* np.arange(1, -1, -1, dtype=bool) */
  CHECK(b[0] == 1 && b[1] == 0);
  /* one element: start + step is never formed (NumPy forms it only for a second element) */
  int8_t one = 0;
  v = vec(&one, DLX_DTYPE_INT8, 1, 1);
  CHECK_OK(dlx_arange_int(&v, 127, 1));
  CHECK(one == 127);
  int64_t big = 0;
  v = vec(&big, DLX_DTYPE_INT64, 1, 1);
  CHECK_OK(dlx_arange_int(&v, INT64_MAX, 1));
  CHECK(big == INT64_MAX);
  /* empty: nothing is read or written */
  v = vec(NULL, DLX_DTYPE_FLOAT32, 0, 1);
  CHECK_OK(dlx_arange(&v, NAN, NAN));
  v = vec(NULL, DLX_DTYPE_INT8, 0, 1); /* np.arange(128, 128.0, 1.0, dtype=np.int8): no value stored, none refused */
  CHECK_OK(dlx_arange(&v, 128, 1));
  CHECK_OK(dlx_arange_int(&v, INT64_MAX, 1));
}

static void test_fill_from_views(void) {
  /* uint64 past int64: what dlx_arange_int cannot say, the views can (Python's arange uses this) */
  uint64_t out[4], x0 = UINT64_C(1) << 63, x1 = (UINT64_C(1) << 63) + 5;
  dlx_view v = vec(out, DLX_DTYPE_UINT64, 4, 1), f, s;
  int64_t one = 1;
  CHECK_OK(dlx_view_init(&f, &x0, DLX_DTYPE_UINT64, CPU, 0, NULL, NULL));
  CHECK_OK(dlx_view_init(&s, &x1, DLX_DTYPE_UINT64, CPU, 1, &one, NULL)); /* one element, 1-d: fine too */
  CHECK_OK(dlx_arange_fill(&v, &f, &s));
  CHECK(out[0] == x0 && out[1] == x1 && out[3] == x0 + 15);
  /* float4 packed, two codes a byte: np.arange(0, 6, dtype=ml_dtypes.float4_e2m1fn).view(np.uint8) */
  uint8_t packed[3] = {0xff, 0xff, 0xff}, codes[6];
  int64_t six = 6;
  dlx_view p, q;
  CHECK_OK(dlx_view_init(&p, packed, DLX_DTYPE_FLOAT4_E2M1FN, CPU, 1, &six, NULL));
  CHECK_OK(dlx_arange_int(&p, 0, 1));
  CHECK_OK(dlx_view_init(&q, codes, DLX_DTYPE_FLOAT4_E2M1FN, CPU, 1, &six, NULL));
  q.flags |= DLX_VIEW_SUBBYTE_PADDED;
  CHECK_OK(dlx_copy(&q, &p));
  const uint8_t want[6] = {0, 2, 4, 5, 6, 6};
  CHECK(memcmp(codes, want, sizeof codes) == 0);
  /* seeds as elements of a packed array: the other code in their byte is not taken along */
  uint8_t seeds = 0x2f, two_codes[2];
  dlx_view s0, pad2;
  CHECK_OK(dlx_view_init(&s0, &seeds, DLX_DTYPE_FLOAT4_E2M1FN, CPU, 0, NULL, NULL));
  int64_t two = 2;
  CHECK_OK(dlx_view_init(&pad2, two_codes, DLX_DTYPE_FLOAT4_E2M1FN, CPU, 1, &two, NULL));
  pad2.flags |= DLX_VIEW_SUBBYTE_PADDED;
  CHECK_OK(dlx_arange_fill(&pad2, &s0, &s0));
  CHECK(two_codes[0] == 0xf && two_codes[1] == 0xf);
  /* padded float4 is written in place */
  memset(codes, 0xee, sizeof codes);
  CHECK_OK(dlx_arange(&q, 0, 1));
  CHECK(memcmp(codes, want, sizeof codes) == 0);
}

static void test_device(void) {
  dlx__backend_override_device(kDLCUDA, &emu_backend);
  int32_t buf[8] = {0};
  int64_t n = 4, stride = 2;
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, buf, DLX_DTYPE_INT32, EMU, 1, &n, &stride));
  emu_copies = 0;
  CHECK_OK(dlx_arange_int(&v, 10, -3)); /* through a host buffer and one copy, into the strided view */
  CHECK_EQ(emu_copies, 1);
  CHECK(buf[0] == 10 && buf[2] == 7 && buf[4] == 4 && buf[6] == 1 && buf[1] == 0 && buf[7] == 0);
  /* the first two values must be on the host */
  int32_t x = 0;
  dlx_view f;
  CHECK_OK(dlx_view_init(&f, &x, DLX_DTYPE_INT32, EMU, 0, NULL, NULL));
  CHECK_FAIL(dlx_arange_fill(&v, &f, &f), DLX_ERR_DEVICE_MISMATCH,
             "dlx_arange_fill: first is on cuda:0; the first two values are read on the host");
  /* eye on the device: two fills with host scalars, no copy */
  float m[6];
  int64_t s23[2] = {2, 3};
  dlx_view e;
  CHECK_OK(dlx_view_init(&e, m, DLX_DTYPE_FLOAT32, EMU, 2, s23, NULL));
  emu_copies = 0;
  CHECK_OK(dlx_eye(&e, 1));
  CHECK_EQ(emu_copies, 0);
  const float want[6] = {0, 1, 0, 0, 0, 1};
  CHECK(memcmp(m, want, sizeof m) == 0);
  dlx__backend_override_device(kDLCUDA, NULL);
}

/* ---- refusals ------------------------------------------------------------------------------------------ */

static void test_arange_refusals(void) {
  float f[4];
  int8_t i8[4];
  dlx_view v = vec(f, DLX_DTYPE_FLOAT32, 4, 1), vi = vec(i8, DLX_DTYPE_INT8, 4, 1), m, s;
  dlx_scalar_buf b;
  CHECK_OK(dlx_scalar_view(&s, &b, DLX_DTYPE_FLOAT32, 1, 0));
  CHECK_FAIL(dlx_arange(NULL, 0, 1), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_arange_int(NULL, 0, 1), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_arange_fill(NULL, &s, &s), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_arange_fill(&v, NULL, &s), DLX_ERR_NULL_ARGUMENT, "'first'");
  CHECK_FAIL(dlx_arange_fill(&v, &s, NULL), DLX_ERR_NULL_ARGUMENT, "'second'");
  /* out: rank, dtype, the op checks */
  int64_t s22[2] = {2, 2};
  CHECK_OK(dlx_view_init(&m, f, DLX_DTYPE_FLOAT32, CPU, 2, s22, NULL));
  CHECK_FAIL(dlx_arange(&m, 0, 1), DLX_ERR_RANK, "dlx_arange: out has ndim 2; an arange is 1-d");
  dlx_view w = vec(f, DLX_DTYPE_FLOAT32, 4, 0);
  CHECK_FAIL(dlx_arange(&w, 0, 1), DLX_ERR_BAD_STRIDE, "out has stride 0");
  w = vec(f, DLX_DTYPE_FLOAT32, 4, 1);
  w.flags |= DLX_VIEW_READ_ONLY;
  CHECK_FAIL(dlx_arange(&w, 0, 1), DLX_ERR_READ_ONLY, "out is read-only");
  uint64_t wide[8];
  w = vec(wide, DLX_DTYPE_INT128, 4, 1);
  CHECK_FAIL(dlx_arange_int(&w, 0, 1), DLX_ERR_UNSUPPORTED, "out's dtype int128 has no arange");
  uint8_t bools[3];
  w = vec(bools, DLX_DTYPE_BOOL, 3, 1);
  CHECK_FAIL(dlx_arange(&w, 0, 1), DLX_ERR_UNSUPPORTED, "a bool arange of 3 elements");
  /* the seeds of dlx_arange_fill */
  dlx_scalar_buf bi;
  dlx_view si, two = vec(f, DLX_DTYPE_FLOAT32, 2, 1);
  CHECK_OK(dlx_scalar_view(&si, &bi, DLX_DTYPE_INT8, 1, 0));
  CHECK_FAIL(dlx_arange_fill(&v, &si, &s), DLX_ERR_DTYPE_MISMATCH, "first has dtype int8 but out has float32");
  CHECK_FAIL(dlx_arange_fill(&v, &s, &si), DLX_ERR_DTYPE_MISMATCH, "second has dtype int8 but out has float32");
  CHECK_FAIL(dlx_arange_fill(&v, &two, &s), DLX_ERR_INVALID_ARGUMENT, "first has 2 elements; it must hold one");
  dlx_view bad = s;
  bad.dtype.lanes = 0;
  CHECK_FAIL(dlx_arange_fill(&v, &bad, &s), DLX_ERR_INVALID_DTYPE, "first has illegal dtype");
  /* second is not looked at for one element */
  dlx_view v1 = vec(f, DLX_DTYPE_FLOAT32, 1, 1);
  CHECK_OK(dlx_arange_fill(&v1, &s, &si));
  /* the values of dlx_arange for an integer dtype */
  CHECK_FAIL(dlx_arange(&vi, 300.5, 1), DLX_ERR_OVERFLOW,
             "dlx_arange: start is 300.5, which truncates to 300, outside the range of int8");
  CHECK_FAIL(dlx_arange(&vi, 126, 2.5), DLX_ERR_OVERFLOW, "start + step is 128.5, which truncates to 128");
  CHECK_FAIL(dlx_arange(&vi, NAN, 1), DLX_ERR_INVALID_ARGUMENT, "start is nan, which has no integer value for int8");
  CHECK_FAIL(dlx_arange(&vi, 0, -INFINITY), DLX_ERR_INVALID_ARGUMENT, "start + step is -inf");
  /* and of dlx_arange_int */
  CHECK_FAIL(dlx_arange_int(&vi, -129, 1), DLX_ERR_OVERFLOW, "dlx_arange_int: start is -129, outside the range of int8");
  CHECK_FAIL(dlx_arange_int(&vi, 127, 1), DLX_ERR_OVERFLOW, "start + step is 128, outside the range of int8");
  int64_t i64[2];
  w = vec(i64, DLX_DTYPE_INT64, 2, 1);
  CHECK_FAIL(dlx_arange_int(&w, INT64_MAX, 1), DLX_ERR_OVERFLOW,
             "dlx_arange_int: start + step (9223372036854775807 + 1) overflows int64");
}

static void test_lengths(void) {
  int64_t n = -1;
  /* NumPy's lengths (np.arange(...).size), quoted */
  CHECK_OK(dlx_arange_length(0, 1, 0.3, &n));
  CHECK_EQ(n, 4);
  CHECK_OK(dlx_arange_length(5, 1, 1, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(dlx_arange_length(1e-320, 1e-319, 1e-322, &n));
  CHECK_EQ(n, 911);
  CHECK_OK(dlx_arange_length(0, 5, INFINITY, &n)); /* the quotient is 0 but the difference is not: 1 */
  CHECK_EQ(n, 1);
  CHECK_OK(dlx_arange_length(0, -5, INFINITY, &n)); /* -0.0: 0 */
  CHECK_EQ(n, 0);
  CHECK_OK(dlx_arange_length(3, 3, -1, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(dlx_arange_length_int(0, (INT64_C(1) << 62) + 1, INT64_C(1) << 62, &n)); /* the quotient rounds to 1 */
  CHECK_EQ(n, 1);
  CHECK_OK(dlx_arange_length_int(INT64_MIN, INT64_MAX, INT64_C(1) << 62, &n));
  CHECK_EQ(n, 4);
  CHECK_OK(dlx_arange_length_int(5, -5, -3, &n));
  CHECK_EQ(n, 4);
  CHECK_OK(dlx_arange_length_int(5, -5, 3, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(dlx_arange_length_int(0, (INT64_C(1) << 53) + 1, 1, &n)); /* 2^53 + 1 rounds to 2^53 */
  CHECK_EQ(n, INT64_C(1) << 53);
  CHECK_OK(dlx_arange_length_int(0, (INT64_C(1) << 53) + 3, 1, &n)); /* a tie, to even: 2^53 + 4 */
  CHECK_EQ(n, (INT64_C(1) << 53) + 4);
  CHECK_OK(dlx_arange_length_int(0, (INT64_C(1) << 54) + 1, 2, &n)); /* 2^53 + 1/2: 2^53 */
  CHECK_EQ(n, INT64_C(1) << 53);
  CHECK_OK(dlx_arange_length_int(0, 7, INT64_MIN, &n));
  CHECK_EQ(n, 0);
  /* refusals */
  CHECK_FAIL(dlx_arange_length(0, 1, 1, NULL), DLX_ERR_NULL_ARGUMENT, "'length'");
  CHECK_FAIL(dlx_arange_length_int(0, 1, 1, NULL), DLX_ERR_NULL_ARGUMENT, "'length'");
  CHECK_FAIL(dlx_arange_length(0, 10, 0, &n), DLX_ERR_INVALID_ARGUMENT, "dlx_arange_length: step is 0 (start 0, stop 10)");
  CHECK_FAIL(dlx_arange_length(0, 10, -0.0, &n), DLX_ERR_INVALID_ARGUMENT, "step is 0");
  CHECK_FAIL(dlx_arange_length_int(1, 10, 0, &n), DLX_ERR_INVALID_ARGUMENT, "dlx_arange_length_int: step is 0 (start 1");
  CHECK_FAIL(dlx_arange_length(NAN, 3, 1, &n), DLX_ERR_INVALID_ARGUMENT, "(stop - start) / step is NaN (start nan");
  CHECK_FAIL(dlx_arange_length(-INFINITY, 3, 1, &n), DLX_ERR_OVERFLOW, "the length inf of arange(-inf, 3, 1)");
  CHECK_FAIL(dlx_arange_length(0, 1, 1e-310, &n), DLX_ERR_OVERFLOW, "does not fit int64");
  /* exactly 2^63: NumPy converts it to intp and returns an empty array; refused here */
  CHECK_FAIL(dlx_arange_length(0, ldexp(1, 63), 1, &n), DLX_ERR_OVERFLOW, "the length 9.2233720368547758e+18 of");
  CHECK_FAIL(dlx_arange_length_int(0, INT64_MAX, 1, &n), DLX_ERR_OVERFLOW,
             "the length of arange(0, 9223372036854775807, 1) does not fit int64");
  CHECK_FAIL(dlx_arange_length_int(INT64_MAX, INT64_MIN, -1, &n), DLX_ERR_OVERFLOW, "does not fit int64");
  /* NumPy refuses a ceiling below -2^63 too, though the range is empty; -2^63 itself is 0 */
  CHECK_FAIL(dlx_arange_length(0, -1e300, 1, &n), DLX_ERR_OVERFLOW, "the length -1.0000000000000001e+300");
  CHECK_FAIL(dlx_arange_length_int(INT64_MAX, INT64_MIN, 1, &n), DLX_ERR_OVERFLOW,
             "the length of arange(9223372036854775807, -9223372036854775808, 1) does not fit int64");
  CHECK_OK(dlx_arange_length_int(0, INT64_MIN, 1, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(dlx_arange_length(0, -ldexp(1, 63), 1, &n));
  CHECK_EQ(n, 0);
}

/* ---- eye ------------------------------------------------------------------------------------------------- */

static void check_eye(const double *m, int64_t r, int64_t c, int64_t k) {
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) CHECK(m[i * c + j] == (j - i == k ? 1.0 : 0.0));
}

static void test_eye(void) {
  double m[12];
  int64_t s34[2] = {3, 4};
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, m, DLX_DTYPE_FLOAT64, CPU, 2, s34, NULL));
  const int64_t ks[] = {0, 1, 3, 4, -1, -2, -3, INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof ks / sizeof ks[0]; ++i) {
    for (int j = 0; j < 12; ++j) m[j] = 7;
    CHECK_OK(dlx_eye(&v, ks[i]));
    check_eye(m, 3, 4, ks[i]);
  }
  /* a transposed view, negative strides: the same matrix as seen through the view */
  double t[12];
  int64_t s43[2] = {4, 3}, st[2] = {-1, -4};
  CHECK_OK(dlx_view_init(&v, t + 11, DLX_DTYPE_FLOAT64, CPU, 2, s43, st));
  CHECK_OK(dlx_eye(&v, -1));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) CHECK(t[11 - i - 4 * j] == (j - i == -1 ? 1.0 : 0.0));
  /* float8_e8m0fnu has no zero: numpy.zeros' bits (2^-127), ones 127 (np.eye(3, 2, dtype=...).view(np.uint8)) */
  uint8_t e[6];
  int64_t s32[2] = {3, 2};
  CHECK_OK(dlx_view_init(&v, e, DLX_DTYPE_FLOAT8_E8M0FNU, CPU, 2, s32, NULL));
  CHECK_OK(dlx_eye(&v, 0));
  const uint8_t want_e[6] = {127, 0, 0, 127, 0, 0};
  CHECK(memcmp(e, want_e, sizeof e) == 0);
  /* packed float4: 3x3 codes in 5 bytes, through a padded host buffer; float4 1.0 is code 2 */
  uint8_t p[5] = {0xff, 0xff, 0xff, 0xff, 0xff}, codes[9];
  int64_t s33[2] = {3, 3};
  dlx_view q;
  CHECK_OK(dlx_view_init(&v, p, DLX_DTYPE_FLOAT4_E2M1FN, CPU, 2, s33, NULL));
  CHECK_OK(dlx_eye(&v, 0));
  CHECK_OK(dlx_view_init(&q, codes, DLX_DTYPE_FLOAT4_E2M1FN, CPU, 2, s33, NULL));
  q.flags |= DLX_VIEW_SUBBYTE_PADDED;
  CHECK_OK(dlx_copy(&q, &v));
  const uint8_t want_p[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
  CHECK(memcmp(codes, want_p, sizeof codes) == 0);
  /* empty */
  int64_t s03[2] = {0, 3};
  CHECK_OK(dlx_view_init(&v, NULL, DLX_DTYPE_FLOAT4_E2M1FN, CPU, 2, s03, NULL));
  CHECK_OK(dlx_eye(&v, 0));
}

static void test_eye_refusals(void) {
  double m[4];
  int64_t s4 = 4, s22[2] = {2, 2}, z[2] = {0, 1};
  dlx_view v;
  CHECK_FAIL(dlx_eye(NULL, 0), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_OK(dlx_view_init(&v, m, DLX_DTYPE_FLOAT64, CPU, 1, &s4, NULL));
  CHECK_FAIL(dlx_eye(&v, 0), DLX_ERR_RANK, "dlx_eye: out has ndim 1; an identity is 2-d");
  CHECK_OK(dlx_view_init(&v, m, DLX_DTYPE_FLOAT64, CPU, 2, s22, z));
  CHECK_FAIL(dlx_eye(&v, 0), DLX_ERR_BAD_STRIDE, "out has stride 0 at dimension 0");
  CHECK_OK(dlx_view_init(&v, m, DLX_DTYPE_FLOAT64, CPU, 2, s22, NULL));
  v.flags |= DLX_VIEW_READ_ONLY;
  CHECK_FAIL(dlx_eye(&v, 0), DLX_ERR_READ_ONLY, "dlx_eye: out is read-only");
  uint64_t wide[8];
  CHECK_OK(dlx_view_init(&v, wide, DLX_DTYPE_UINT128, CPU, 2, s22, NULL));
  CHECK_FAIL(dlx_eye(&v, 0), DLX_ERR_UNSUPPORTED, "dlx_eye: out's dtype uint128 has no kernel");
  v.dtype.lanes = 0;
  CHECK_FAIL(dlx_eye(&v, 0), DLX_ERR_INVALID_DTYPE, "out has illegal dtype");
}

static const dlx_test_case cases[] = {
    {"integers", test_integers},
    {"floats", test_floats},
    {"bool_and_short", test_bool_and_short},
    {"fill_from_views", test_fill_from_views},
    {"device", test_device},
    {"arange_refusals", test_arange_refusals},
    {"lengths", test_lengths},
    {"eye", test_eye},
    {"eye_refusals", test_eye_refusals},
};
DLX_TEST_MAIN(cases)
