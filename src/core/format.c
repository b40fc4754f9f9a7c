/* The one place values are formatted for messages: shapes, dtypes and devices. Every layer names the
 * offending value the same way ("(3,4)", "float8_e4m3fn", "cuda:0"). None of these touches the error
 * state, so they are safe to call while a message is being built. */
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/view.h"

const char *dlx__shape_text(char *buf, size_t cap, int32_t ndim, const int64_t *shape) {
  size_t n = 0;
  buf[n++] = '(';
  for (int32_t i = 0; i < ndim; ++i) {
    char item[24];
    int len = snprintf(item, sizeof item, i > 0 ? ",%lld" : "%lld", (long long)shape[i]);
    if (len < 0 || n + (size_t)len + 5 > cap) {
      memcpy(buf + n, "...", 3);
      n += 3;
      break;
    }
    memcpy(buf + n, item, (size_t)len);
    n += (size_t)len;
  }
  buf[n++] = ')';
  buf[n] = '\0';
  return buf;
}

const char *dlx__dtype_text(char *buf, size_t cap, DLDataType dt) {
  /* dlx_dtype_format writes the error state for an illegal dtype: only valid ones go through it */
  if (dlx_dtype_is_valid(dt) && dlx_dtype_format(dt, buf, cap) == DLX_OK) return buf;
  snprintf(buf, cap, "(code %u, bits %u, lanes %u)", (unsigned)dt.code, (unsigned)dt.bits, (unsigned)dt.lanes);
  return buf;
}

const char *dlx__device_text(char *buf, size_t cap, DLDevice dev) {
  const char *name = dlx_device_type_name((int32_t)dev.device_type);
  if (name != NULL) snprintf(buf, cap, "%s:%d", name, (int)dev.device_id);
  else snprintf(buf, cap, "device type %d:%d", (int)dev.device_type, (int)dev.device_id);
  return buf;
}
