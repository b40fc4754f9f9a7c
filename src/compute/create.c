/* Creation ops (dlx/ops.h): dlx_arange_fill, dlx_arange, dlx_arange_int, dlx_arange_length(_int), dlx_eye.
 *
 * arange reproduces NumPy 2's PyArray_ArangeObj: the length is ceil((stop - start) / step) computed as
 * Python computes it (_calc_length), the first two elements are start and start + step stored with the
 * dtype's setitem, and the rest come from the dtype's `fill` function, which extrapolates linearly from
 * those two in the dtype's own arithmetic (arraytypes.c.src: start + i*delta; HALF_fill and ml_dtypes'
 * NPyCustomFloat_Fill in float32). Every element is a function of x0, x1 and i only, so the bits do not
 * depend on the device or the thread count.
 *
 * The values are computed on the host, one element per step: an arange is written once, and a device
 * kernel for it would be a second implementation of the same rules to keep equal. Host-accessible memory
 * is written in place; device memory and packed float6/float4 get a compact host buffer and one dlx_copy
 * (which returns once the data is there, so the buffer is freed right after).
 *
 * eye is two dlx_fill calls on out's own device: zeros over out, ones over a strided view of the
 * diagonal (stride strides[0] + strides[1]); no element is visited on the host. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compute/ops_internal.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/ops.h"
#include "kernels/convert.h"
#include "kernels/ew.h"

/* x0 + i*d must round each operation, as NumPy's compiled loop does on x86-64: a fused multiply-add
 * would round once and give other bits. Clang contracts by default even in -std=c11. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

static bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* Bytes per element in memory the host writes: one per float6/float4 code (the padded form). */
static size_t host_itemsize(DLDataType dt) { return dlx_dtype_itemsize(dt); }

/* ---- the fill: out[i] from x0, x1 and i ------------------------------------------------------------- */

/* Integers: x0 + i*(x1 - x0) modulo 2^bits. Unsigned arithmetic of the element's width gives that for
 * signed and unsigned dtypes alike (the same bits). */
#define INT_FILL(T)                                                                                    \
  do {                                                                                                \
    T a, b;                                                                                           \
    memcpy(&a, x0, sizeof a);                                                                         \
    memcpy(&b, x1, sizeof b);                                                                         \
    const uint64_t s = a, d = (uint64_t)b - (uint64_t)a;                                              \
    for (int64_t i = 2; i < n; ++i) {                                                                 \
      const T v = (T)(s + (uint64_t)i * d);                                                           \
      memcpy(p + i * sb, &v, sizeof v);                                                               \
    }                                                                                                 \
  } while (0)

/* Floats, each part of a complex (parts per element, component type T): x0 + (T)i * (x1 - x0). */
#define FLOAT_FILL(T, parts)                                                                           \
  do {                                                                                                \
    for (int c = 0; c < (parts); ++c) {                                                               \
      T a, b;                                                                                         \
      memcpy(&a, x0 + c * sizeof(T), sizeof a);                                                       \
      memcpy(&b, x1 + c * sizeof(T), sizeof b);                                                       \
      const T d = b - a;                                                                              \
      for (int64_t i = 2; i < n; ++i) {                                                               \
        const T v = a + (T)i * d;                                                                     \
        memcpy(p + i * sb + c * sizeof(T), &v, sizeof v);                                             \
      }                                                                                               \
    }                                                                                                 \
  } while (0)

/* The narrow formats in float32, as HALF_fill and ml_dtypes' fill: decode, extrapolate, encode. */
static void narrow_fill(DLDataType dt, char *p, int64_t sb, int64_t n, const unsigned char *x0,
                        const unsigned char *x1) {
  const bool two = dt.bits == 16;
  const uint32_t mask = dt.bits >= 16 ? 0xffffu : (1u << dt.bits) - 1u;
  uint32_t c0 = 0, c1 = 0;
  memcpy(&c0, x0, two ? 2 : 1); /* little-endian hosts: the code's low bytes */
  memcpy(&c1, x1, two ? 2 : 1);
  const float a = (float)dlx__cvt_narrow_decode(dt.code, c0 & mask);
  const float d = (float)dlx__cvt_narrow_decode(dt.code, c1 & mask) - a;
  for (int64_t i = 2; i < n; ++i) {
    const uint32_t code = dlx__cvt_narrow_encode_f32(dt.code, a + (float)i * d);
    if (two) {
      const uint16_t h = (uint16_t)code;
      memcpy(p + i * sb, &h, 2);
    } else {
      p[i * sb] = (char)(unsigned char)code;
    }
  }
}

/* n elements at p, sb bytes apart: x0, x1 (copied as they are), then the extrapolation. */
static void fill_host(dlx__kd k, DLDataType dt, char *p, int64_t sb, int64_t n, const unsigned char *x0,
                      const unsigned char *x1) {
  const size_t isz = host_itemsize(dt);
  memcpy(p, x0, isz);
  if (n > 1) memcpy(p + sb, x1, isz);
  switch (k) {
    case DLX_KD_BOOL: break; /* at most two elements (checked) */
    case DLX_KD_I8:
    case DLX_KD_U8: INT_FILL(uint8_t); break;
    case DLX_KD_I16:
    case DLX_KD_U16: INT_FILL(uint16_t); break;
    case DLX_KD_I32:
    case DLX_KD_U32: INT_FILL(uint32_t); break;
    case DLX_KD_I64:
    case DLX_KD_U64: INT_FILL(uint64_t); break;
    case DLX_KD_F32: FLOAT_FILL(float, 1); break;
    case DLX_KD_F64: FLOAT_FILL(double, 1); break;
    case DLX_KD_C64: FLOAT_FILL(float, 2); break;
    case DLX_KD_C128: FLOAT_FILL(double, 2); break;
    default: narrow_fill(dt, p, sb, n, x0, x1); break;
  }
}

/* ---- checks ------------------------------------------------------------------------------------------ */

static dlx_status check_out(const char *fn, const dlx_view *out, dlx__kd *k) {
  DLX_FORWARD(dlx__ops_check_view(fn, "out", out));
  DLX_FORWARD(dlx__ops_check_output(fn, "out", out));
  DLX_FAIL_IF(out->ndim != 1, DLX_ERR_RANK, "%s: out has ndim %d; an arange is 1-d", fn, (int)out->ndim);
  char t[DLX_DTYPE_TEXT_CAP];
  *k = dlx__kd_of(out->dtype);
  DLX_FAIL_IF(*k == DLX_KD_NONE, DLX_ERR_UNSUPPORTED, "%s: out's dtype %s has no arange (no kernel for it)", fn,
              dlx__dtype_text(t, sizeof t, out->dtype));
  DLX_FAIL_IF(*k == DLX_KD_BOOL && out->shape[0] > 2, DLX_ERR_UNSUPPORTED,
              "%s: out is a bool arange of %" PRId64 " elements; NumPy makes bool aranges of at most 2", fn,
              out->shape[0]);
  return DLX_OK;
}

static dlx_status check_seed(const char *fn, const char *name, const dlx_view *s, const dlx_view *out) {
  DLX_FORWARD(dlx__ops_check_view(fn, name, s));
  DLX_FAIL_IF(dlx_view_size(s) != 1, DLX_ERR_INVALID_ARGUMENT, "%s: %s has %" PRId64 " elements; it must hold one",
              fn, name, dlx_view_size(s));
  if (!dlx_dtype_equal(s->dtype, out->dtype)) {
    char a[DLX_DTYPE_TEXT_CAP], b[DLX_DTYPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "%s: %s has dtype %s but out has %s", fn, name,
                         dlx__dtype_text(a, sizeof a, s->dtype), dlx__dtype_text(b, sizeof b, out->dtype));
  }
  char d[DLX_DEVICE_TEXT_CAP];
  DLX_FAIL_IF(!dlx_device_is_host_accessible(s->device), DLX_ERR_DEVICE_MISMATCH,
              "%s: %s is on %s; the first two values are read on the host: pass them in host memory", fn, name,
              dlx__device_text(d, sizeof d, s->device));
  return DLX_OK;
}

/* ---- running it -------------------------------------------------------------------------------------- */

/* out (checked) from the element bytes x0 and x1 (16 bytes each at most). */
static dlx_status run_fill(const char *fn, const dlx_view *out, dlx__kd k, const unsigned char *x0,
                           const unsigned char *x1) {
  const int64_t n = out->shape[0];
  if (n == 0) return DLX_OK;
  const size_t isz = host_itemsize(out->dtype);
  if (dlx_device_is_host_accessible(out->device) && !is_packed(out)) {
    fill_host(k, out->dtype, out->data, out->strides[0] * (int64_t)isz, n, x0, x1);
    return DLX_OK;
  }
  /* n * isz fits: out's elements are a valid view, and a padded code takes one byte */
  char *tmp = malloc((size_t)n * isz);
  DLX_FAIL_IF(tmp == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory for a host buffer of %" PRId64 " elements", fn, n);
  fill_host(k, out->dtype, tmp, (int64_t)isz, n, x0, x1);
  dlx_view t;
  dlx_status st = dlx_view_init(&t, tmp, out->dtype, (DLDevice){kDLCPU, 0}, 1, &n, NULL);
  if (st == DLX_OK) {
    if (dlx_dtype_is_subbyte(out->dtype)) t.flags |= DLX_VIEW_SUBBYTE_PADDED;
    st = dlx_copy(out, &t);
  }
  free(tmp);
  return st;
}

dlx_status dlx_arange_fill(const dlx_view *out, const dlx_view *first, const dlx_view *second) {
  static const char fn[] = "dlx_arange_fill";
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(first);
  DLX_CHECK_NULL(second);
  dlx__kd k = DLX_KD_NONE;
  DLX_FORWARD(check_out(fn, out, &k));
  DLX_FORWARD(check_seed(fn, "first", first, out));
  const bool two = out->shape[0] > 1;
  if (two) DLX_FORWARD(check_seed(fn, "second", second, out));
  unsigned char x0[16] = {0}, x1[16] = {0};
  /* one element: a byte-sized dtype's bytes, or a float6/float4 code in the low bits of its byte */
  memcpy(x0, first->data, host_itemsize(out->dtype));
  memcpy(x1, two ? second->data : first->data, host_itemsize(out->dtype));
  if (dlx_dtype_is_subbyte(out->dtype)) { /* a packed element's byte may hold its neighbour's code too */
    x0[0] &= (unsigned char)((1u << out->dtype.bits) - 1u);
    x1[0] &= (unsigned char)((1u << out->dtype.bits) - 1u);
  }
  return run_fill(fn, out, k, x0, x1);
}

/* ---- dlx_arange, dlx_arange_int: x0 and x1 as NumPy's setitem of a Python number ---------------------- */

/* x converted to dtype dt into buf, as NumPy (with ml_dtypes) stores a Python float. what names it. */
static dlx_status seed_double(const char *fn, const char *what, dlx__kd k, DLDataType dt, double x,
                              dlx_scalar_buf *buf) {
  dlx_view v;
  char t[DLX_DTYPE_TEXT_CAP];
  if (k >= DLX_KD_I8 && k <= DLX_KD_U64) {
    /* NumPy's integer setitem takes int(x): truncation, then the range check */
    DLX_FAIL_IF(isnan(x) || isinf(x), DLX_ERR_INVALID_ARGUMENT, "%s: %s is %g, which has no integer value for %s", fn,
                what, x, dlx__dtype_text(t, sizeof t, dt));
    const double tx = trunc(x);
    if (dlx_scalar_view(&v, buf, dt, tx, 0.0) != DLX_OK)
      return dlx_set_error(DLX_ERR_OVERFLOW, "%s: %s is %.17g, which truncates to %.17g, outside the range of %s", fn,
                           what, x, tx, dlx__dtype_text(t, sizeof t, dt));
    return DLX_OK;
  }
  /* ml_dtypes makes a bfloat16 of a Python float through float32 (two roundings); its float8/6/4
   * formats and NumPy's float16 round the double once */
  if (k == DLX_KD_BF16) x = (double)(float)x;
  return dlx_scalar_view(&v, buf, dt, x, 0.0);
}

static dlx_status seed_int(const char *fn, const char *what, dlx__kd k, DLDataType dt, int64_t x, dlx_scalar_buf *buf) {
  if (k < DLX_KD_I8 || k > DLX_KD_U64) return seed_double(fn, what, k, dt, (double)x, buf); /* Python's float(int) */
  dlx_view v;
  char t[DLX_DTYPE_TEXT_CAP];
  if (dlx_scalar_view_int(&v, buf, dt, x) != DLX_OK)
    return dlx_set_error(DLX_ERR_OVERFLOW, "%s: %s is %" PRId64 ", outside the range of %s", fn, what, x,
                         dlx__dtype_text(t, sizeof t, dt));
  return DLX_OK;
}

dlx_status dlx_arange(const dlx_view *out, double start, double step) {
  static const char fn[] = "dlx_arange";
  DLX_CHECK_NULL(out);
  dlx__kd k = DLX_KD_NONE;
  DLX_FORWARD(check_out(fn, out, &k));
  if (out->shape[0] == 0) return DLX_OK; /* NumPy stores no value, so none is converted (or refused) */
  dlx_scalar_buf b0, b1;
  DLX_FORWARD(seed_double(fn, "start", k, out->dtype, start, &b0));
  b1 = b0;
  if (out->shape[0] > 1) DLX_FORWARD(seed_double(fn, "start + step", k, out->dtype, start + step, &b1));
  return run_fill(fn, out, k, b0.bytes, b1.bytes);
}

dlx_status dlx_arange_int(const dlx_view *out, int64_t start, int64_t step) {
  static const char fn[] = "dlx_arange_int";
  DLX_CHECK_NULL(out);
  dlx__kd k = DLX_KD_NONE;
  DLX_FORWARD(check_out(fn, out, &k));
  if (out->shape[0] == 0) return DLX_OK; /* NumPy stores no value, so none is converted (or refused) */
  dlx_scalar_buf b0, b1;
  DLX_FORWARD(seed_int(fn, "start", k, out->dtype, start, &b0));
  b1 = b0;
  if (out->shape[0] > 1) {
    int64_t next;
    DLX_FAIL_IF(__builtin_add_overflow(start, step, &next), DLX_ERR_OVERFLOW,
                "%s: start + step (%" PRId64 " + %" PRId64 ") overflows int64", fn, start, step);
    DLX_FORWARD(seed_int(fn, "start + step", k, out->dtype, next, &b1));
  }
  return run_fill(fn, out, k, b0.bytes, b1.bytes);
}

/* ---- lengths ------------------------------------------------------------------------------------------- */

/* 2^63 as a double: NumPy's bound (double)NPY_MAX_INTP rounds up to it. */
#define TWO_63 9223372036854775808.0

dlx_status dlx_arange_length(double start, double stop, double step, int64_t *length) {
  static const char fn[] = "dlx_arange_length";
  DLX_CHECK_NULL(length);
  DLX_FAIL_IF(step == 0.0, DLX_ERR_INVALID_ARGUMENT, "%s: step is 0 (start %.17g, stop %.17g)", fn, start, stop);
  const double diff = stop - start, q = diff / step;
  if (q == 0.0 && diff != 0.0) { /* the quotient underflowed, or step is infinite: NumPy's sign rule */
    *length = signbit(q) ? 0 : 1;
    return DLX_OK;
  }
  const double c = ceil(q);
  DLX_FAIL_IF(isnan(c), DLX_ERR_INVALID_ARGUMENT,
              "%s: (stop - start) / step is NaN (start %.17g, stop %.17g, step %.17g): no length", fn, start, stop, step);
  /* NumPy's bounds, [-2^63, 2^63], also for a quotient far below zero (an empty range, yet refused); it lets
   * 2^63 itself through, then converts it to intp (undefined; negative on x86-64): refused here */
  DLX_FAIL_IF(!(c < TWO_63 && c >= -TWO_63), DLX_ERR_OVERFLOW,
              "%s: the length %.17g of arange(%.17g, %.17g, %.17g) does not fit int64", fn, c, start, stop, step);
  *length = c < 0 ? 0 : (int64_t)c;
  return DLX_OK;
}

/* q rounded to a double (nearest, ties to even), as an integer; 2^64 saturates to UINT64_MAX. */
static uint64_t round_to_double(uint64_t q, bool sticky) {
  const unsigned len = q == 0 ? 0 : 64u - (unsigned)__builtin_clzll(q);
  if (len <= 53) return q;
  const unsigned shift = len - 53;
  const uint64_t low = q & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
  uint64_t hi = q >> shift;
  /* sticky: a fraction below q's units, which breaks a tie upward */
  if (low > half || (low == half && (sticky || (hi & 1)))) ++hi;
  return hi >= (UINT64_C(1) << (64 - shift)) ? UINT64_MAX : hi << shift;
}

/* ceil(fl(a / b)) for a, b > 0, fl the rounding to double (nearest, ties to even): Python's true division
 * of two ints rounds once, and NumPy takes the ceiling of that double. */
static uint64_t ceil_of_rounded_quotient(uint64_t a, uint64_t b) {
  const uint64_t q = a / b, r = a % b;
  const unsigned len = q == 0 ? 0 : 64u - (unsigned)__builtin_clzll(q); /* q's bit length */
  if (r == 0 || len > 53) return round_to_double(q, r != 0); /* above 2^53 every double is an integer */
  if (q == 0) return 1;
  /* q and q + 1 are doubles; x = q + r/b rounds down to q iff r/b is below half an ulp of q, 2^(len-54),
   * or exactly half with q's last mantissa bit even (only when len is 53: shorter q have zeros there) */
  const unsigned k = 54u - len; /* r/b < 2^-k  <=>  r * 2^k < b  <=>  r <= (b - 1) >> k */
  const bool below = r <= ((b - 1) >> k);
  const bool tie = (b & ((UINT64_C(1) << k) - 1)) == 0 && r == (b >> k);
  return (below || (tie && !(len == 53 && (q & 1)))) ? q : q + 1;
}

dlx_status dlx_arange_length_int(int64_t start, int64_t stop, int64_t step, int64_t *length) {
  static const char fn[] = "dlx_arange_length_int";
  DLX_CHECK_NULL(length);
  DLX_FAIL_IF(step == 0, DLX_ERR_INVALID_ARGUMENT, "%s: step is 0 (start %" PRId64 ", stop %" PRId64 ")", fn, start,
              stop);
  /* the exact difference as a sign and a magnitude below 2^64 */
  const bool up = stop >= start;
  const uint64_t mag = up ? (uint64_t)stop - (uint64_t)start : (uint64_t)start - (uint64_t)stop;
  const uint64_t b = dlx__abs_u64(step);
  if (mag == 0) {
    *length = 0;
    return DLX_OK;
  }
  /* a step away from stop: the ceiling of a negative quotient, -floor(fl(mag / b)), is empty, unless below
   * -2^63 (NumPy's bound: refused there) */
  const bool away = up != (step > 0);
  const uint64_t c = away ? round_to_double(mag / b, mag % b != 0) : ceil_of_rounded_quotient(mag, b);
  DLX_FAIL_IF(away ? c > (UINT64_C(1) << 63) : c >= (UINT64_C(1) << 63), DLX_ERR_OVERFLOW,
              "%s: the length of arange(%" PRId64 ", %" PRId64 ", %" PRId64 ") does not fit int64", fn, start, stop, step);
  *length = away ? 0 : (int64_t)c;
  return DLX_OK;
}

/* ---- eye ------------------------------------------------------------------------------------------------ */

/* Packed float6/float4 codes share bytes, so the diagonal has no view of its own: the identity is made in a
 * padded host buffer and packed into out by one dlx_copy. */
static dlx_status eye_packed(const dlx_view *out, int64_t k) {
  const int64_t n = dlx_view_size(out);
  unsigned char *tmp = malloc(n > 0 ? (size_t)n : 1);
  DLX_FAIL_IF(tmp == NULL, DLX_ERR_OUT_OF_MEMORY, "dlx_eye: out of memory for a host buffer of %" PRId64 " elements", n);
  dlx_view t;
  dlx_status st = dlx_view_init(&t, tmp, out->dtype, (DLDevice){kDLCPU, 0}, 2, out->shape, NULL);
  if (st == DLX_OK) {
    t.flags |= DLX_VIEW_SUBBYTE_PADDED;
    st = dlx_eye(&t, k);
  }
  if (st == DLX_OK) st = dlx_copy(out, &t);
  free(tmp);
  return st;
}

dlx_status dlx_eye(const dlx_view *out, int64_t k) {
  static const char fn[] = "dlx_eye";
  DLX_CHECK_NULL(out);
  DLX_FORWARD(dlx__ops_check_view(fn, "out", out));
  DLX_FORWARD(dlx__ops_check_output(fn, "out", out));
  DLX_FAIL_IF(out->ndim != 2, DLX_ERR_RANK, "%s: out has ndim %d; an identity is 2-d", fn, (int)out->ndim);
  char t[DLX_DTYPE_TEXT_CAP];
  DLX_FAIL_IF(dlx__kd_of(out->dtype) == DLX_KD_NONE, DLX_ERR_UNSUPPORTED, "%s: out's dtype %s has no kernel", fn,
              dlx__dtype_text(t, sizeof t, out->dtype));
  if (is_packed(out) && dlx_view_size(out) > 0) return eye_packed(out, k);
  dlx_view zero, one;
  dlx_scalar_buf zb, ob;
  DLX_FORWARD(dlx_scalar_view(&zero, &zb, out->dtype, 0.0, 0.0));
  memset(zb.bytes, 0, sizeof zb.bytes); /* numpy.zeros' bits, also where 0.0 has no code (float8_e8m0fnu) */
  DLX_FORWARD(dlx_scalar_view(&one, &ob, out->dtype, 1.0, 0.0));
  DLX_FORWARD(dlx_fill(out, &zero));
  const int64_t rows = out->shape[0], cols = out->shape[1];
  /* the diagonal starts at (r0, c0); k past either extent leaves it empty (no negation of INT64_MIN) */
  if (k >= cols || k <= -rows) return DLX_OK;
  const int64_t r0 = k < 0 ? -k : 0, c0 = k < 0 ? 0 : k;
  int64_t len = rows - r0 < cols - c0 ? rows - r0 : cols - c0, stride;
  /* element (r0, c0) exists, so its offset fits (the view's span rule); the stride steps between two
   * existing elements when len > 1 and is not used otherwise */
  const int64_t offset = r0 * out->strides[0] + c0 * out->strides[1];
  if (__builtin_add_overflow(out->strides[0], out->strides[1], &stride)) stride = 0;
  void *data = (void *)((uintptr_t)out->data + (uintptr_t)offset * (uintptr_t)host_itemsize(out->dtype));
  dlx_view diag;
  DLX_FORWARD(dlx_view_init(&diag, data, out->dtype, out->device, 1, &len, &stride));
  diag.flags = out->flags & DLX_VIEW_SUBBYTE_PADDED;
  return dlx_fill(&diag, &one);
}
