/* Status names, the thread-local error message, and the library version (dlx/version.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/version.h"

/* Big enough for any message dlx writes (names of values, never data); longer ones are cut. */
#define DLX_ERROR_CAP 512
static _Thread_local char dlx_error_buf[DLX_ERROR_CAP];

static const char *const dlx_status_names[DLX_STATUS_COUNT] = {
    [DLX_OK] = "OK",
    [DLX_ERR_NULL_ARGUMENT] = "NULL_ARGUMENT",
    [DLX_ERR_INVALID_ARGUMENT] = "INVALID_ARGUMENT",
    [DLX_ERR_RANK] = "RANK",
    [DLX_ERR_DTYPE_MISMATCH] = "DTYPE_MISMATCH",
    [DLX_ERR_INVALID_DTYPE] = "INVALID_DTYPE",
    [DLX_ERR_DEVICE_MISMATCH] = "DEVICE_MISMATCH",
    [DLX_ERR_INVALID_DEVICE] = "INVALID_DEVICE",
    [DLX_ERR_NULL_DATA] = "NULL_DATA",
    [DLX_ERR_NULL_SHAPE] = "NULL_SHAPE",
    [DLX_ERR_NEGATIVE_EXTENT] = "NEGATIVE_EXTENT",
    [DLX_ERR_NULL_STRIDES] = "NULL_STRIDES",
    [DLX_ERR_BAD_STRIDE] = "BAD_STRIDE",
    [DLX_ERR_LAYOUT_MISMATCH] = "LAYOUT_MISMATCH",
    [DLX_ERR_MISALIGNED] = "MISALIGNED",
    [DLX_ERR_OVERFLOW] = "OVERFLOW",
    [DLX_ERR_UNSUPPORTED] = "UNSUPPORTED",
    [DLX_ERR_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
    [DLX_ERR_VERSION] = "VERSION",
    [DLX_ERR_PARSE] = "PARSE",
    [DLX_ERR_BUFFER_TOO_SMALL] = "BUFFER_TOO_SMALL",
    [DLX_ERR_INDEX] = "INDEX",
    [DLX_ERR_BROADCAST] = "BROADCAST",
    [DLX_ERR_DEDUCTION] = "DEDUCTION",
    [DLX_ERR_READ_ONLY] = "READ_ONLY",
    [DLX_ERR_BACKEND] = "BACKEND",
};

const char *dlx_status_name(dlx_status status) {
  if ((unsigned)status >= (unsigned)DLX_STATUS_COUNT || dlx_status_names[status] == NULL) return "UNKNOWN_STATUS";
  return dlx_status_names[status];
}

const char *dlx_last_error(void) { return dlx_error_buf; }

void dlx_clear_error(void) { dlx_error_buf[0] = '\0'; }

dlx_status dlx_set_error(dlx_status status, const char *fmt, ...) {
  if (fmt == NULL) {
    dlx_error_buf[0] = '\0';
    return status;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dlx_error_buf, sizeof dlx_error_buf, fmt, ap);
  va_end(ap);
  return status;
}

/* ---- the library's version (dlx/version.h) ----------------------------------------------------------- */

unsigned dlx_version(void) { return DLX_VERSION_NUMBER; }

const char *dlx_version_string(void) { return DLX_VERSION_STRING; }
