/* Scalars: 0-d host views over a caller's buffer, converted with the cast rules (dlx/ops.h). */
#include <inttypes.h>
#include <string.h>

#include "kernels/convert.h"
#include "kernels/ew.h"
#include "core/error_internal.h"
#include "dlx/ops.h"

static dlx_status scalar_init(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, const char *fn, dlx__kd *k) {
  DLX_FAIL_IF(v == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'v' is NULL", fn);
  DLX_FAIL_IF(buf == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'buf' is NULL", fn);
  char t[DLX_DTYPE_TEXT_CAP];
  DLX_FAIL_IF(!dlx_dtype_is_valid(dt), DLX_ERR_INVALID_DTYPE, "%s: illegal dtype %s", fn, dlx__dtype_text(t, sizeof t, dt));
  *k = dlx__kd_of(dt);
  DLX_FAIL_IF(*k == DLX_KD_NONE, DLX_ERR_UNSUPPORTED, "%s: dtype %s has no scalar conversion", fn, dlx__dtype_text(t, sizeof t, dt));
  memset(buf->bytes, 0, sizeof buf->bytes);
  return DLX_OK;
}

static dlx_status scalar_finish(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, dlx__kd k) {
  DLX_FORWARD(dlx_view_init(v, buf->bytes, dt, (DLDevice){kDLCPU, 0}, 0, NULL, NULL));
  /* one float6/float4 code in the low bits of one byte is both the packed and the padded layout;
   * padded lets the kernels read it directly */
  if (dlx__kd_is_subbyte(k)) v->flags |= DLX_VIEW_SUBBYTE_PADDED;
  return DLX_OK;
}

static void store_narrow(dlx_scalar_buf *buf, dlx__kd k, uint32_t code) {
  if (k == DLX_KD_F16 || k == DLX_KD_BF16) {
    const uint16_t h = (uint16_t)code;
    memcpy(buf->bytes, &h, 2);
  } else {
    buf->bytes[0] = (unsigned char)code;
  }
}

#define STORE_SCALAR(buf, T, value)                                                                    \
  do {                                                                                                \
    const T v_ = (T)(value);                                                                          \
    memcpy((buf)->bytes, &v_, sizeof v_);                                                              \
  } while (0)

dlx_status dlx_scalar_view(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, double re, double im) {
  dlx__kd k = DLX_KD_NONE;
  DLX_FORWARD(scalar_init(v, buf, dt, "dlx_scalar_view", &k));
  char t[DLX_DTYPE_TEXT_CAP];
  if (k >= DLX_KD_I8 && k <= DLX_KD_U64) {
    const bool sgn = k <= DLX_KD_I64;
    const int bits = dt.bits;
    /* the range as doubles: exact powers of two, so the comparisons are exact */
    const double half = (double)((uint64_t)1 << (bits - 1));
    const double lo = sgn ? -half : 0.0, top = sgn ? half : 2.0 * half;
    const bool ok = re >= lo && re < top && (sgn ? (double)(int64_t)re == re : (double)(uint64_t)re == re);
    DLX_FAIL_IF(!ok, DLX_ERR_OVERFLOW, "dlx_scalar_view: %.17g is not an integer in the range of %s", re,
                dlx__dtype_text(t, sizeof t, dt));
    switch (k) {
      case DLX_KD_I8: STORE_SCALAR(buf, int8_t, re); break;
      case DLX_KD_I16: STORE_SCALAR(buf, int16_t, re); break;
      case DLX_KD_I32: STORE_SCALAR(buf, int32_t, re); break;
      case DLX_KD_I64: STORE_SCALAR(buf, int64_t, re); break;
      case DLX_KD_U8: STORE_SCALAR(buf, uint8_t, re); break;
      case DLX_KD_U16: STORE_SCALAR(buf, uint16_t, re); break;
      case DLX_KD_U32: STORE_SCALAR(buf, uint32_t, re); break;
      default: STORE_SCALAR(buf, uint64_t, re); break;
    }
    return scalar_finish(v, buf, dt, k);
  }
  switch (k) {
    case DLX_KD_BOOL: buf->bytes[0] = re != 0 || im != 0; break;
    case DLX_KD_F32: STORE_SCALAR(buf, float, re); break;
    case DLX_KD_F64: STORE_SCALAR(buf, double, re); break;
    case DLX_KD_C64: {
      const float p[2] = {(float)re, (float)im};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    case DLX_KD_C128: {
      const double p[2] = {re, im};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    default: store_narrow(buf, k, dlx__cvt_narrow_encode(dlx__kd_narrow_code(k), re)); break;
  }
  return scalar_finish(v, buf, dt, k);
}

dlx_status dlx_scalar_view_int(dlx_view *v, dlx_scalar_buf *buf, DLDataType dt, int64_t value) {
  dlx__kd k = DLX_KD_NONE;
  DLX_FORWARD(scalar_init(v, buf, dt, "dlx_scalar_view_int", &k));
  char t[DLX_DTYPE_TEXT_CAP];
  if (k >= DLX_KD_I8 && k <= DLX_KD_U64) {
    const bool sgn = k <= DLX_KD_I64;
    const int bits = dt.bits;
    bool ok;
    if (sgn) ok = bits == 64 || (value >= -((int64_t)1 << (bits - 1)) && value < ((int64_t)1 << (bits - 1)));
    else ok = value >= 0 && (bits == 64 || value < ((int64_t)1 << bits));
    DLX_FAIL_IF(!ok, DLX_ERR_OVERFLOW, "dlx_scalar_view_int: %" PRId64 " is outside the range of %s", value,
                dlx__dtype_text(t, sizeof t, dt));
    switch (k) {
      case DLX_KD_I8: STORE_SCALAR(buf, int8_t, value); break;
      case DLX_KD_I16: STORE_SCALAR(buf, int16_t, value); break;
      case DLX_KD_I32: STORE_SCALAR(buf, int32_t, value); break;
      case DLX_KD_I64: STORE_SCALAR(buf, int64_t, value); break;
      case DLX_KD_U8: STORE_SCALAR(buf, uint8_t, value); break;
      case DLX_KD_U16: STORE_SCALAR(buf, uint16_t, value); break;
      case DLX_KD_U32: STORE_SCALAR(buf, uint32_t, value); break;
      default: STORE_SCALAR(buf, uint64_t, value); break;
    }
    return scalar_finish(v, buf, dt, k);
  }
  switch (k) {
    case DLX_KD_BOOL: buf->bytes[0] = value != 0; break;
    /* straight to the target precision: one rounding */
    case DLX_KD_F32: STORE_SCALAR(buf, float, value); break;
    case DLX_KD_F64: STORE_SCALAR(buf, double, value); break;
    case DLX_KD_C64: {
      const float p[2] = {(float)value, 0.0f};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    case DLX_KD_C128: {
      const double p[2] = {(double)value, 0.0};
      memcpy(buf->bytes, p, sizeof p);
      break;
    }
    /* convert.h: integer -> narrow goes through double */
    default: store_narrow(buf, k, dlx__cvt_narrow_encode(dlx__kd_narrow_code(k), (double)value)); break;
  }
  return scalar_finish(v, buf, dt, k);
}
