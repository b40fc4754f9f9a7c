/* dlx/error.h - status codes and the thread-local error message.
 *
 * Every fallible dlx function returns a dlx_status. DLX_OK is 0; every failure has its own value, and
 * the detail ("expected ndim 2, got 3") goes to a message that dlx_last_error() returns.
 * Thread safety: all functions here are safe to call from any thread; the message is per thread. */
#ifndef DLX_ERROR_H
#define DLX_ERROR_H

#include "dlx/export.h"

DLX_EXTERN_C_BEGIN

typedef enum dlx_status {
  DLX_OK = 0,
  DLX_ERR_NULL_ARGUMENT,     /* a required pointer argument of a dlx function was NULL */
  DLX_ERR_INVALID_ARGUMENT,  /* an argument value outside its documented range */
  DLX_ERR_RANK,              /* ndim differs from the required rank, or is outside [0, DLX_MAX_NDIM] */
  DLX_ERR_DTYPE_MISMATCH,    /* dtype differs from the required one */
  DLX_ERR_INVALID_DTYPE,     /* not a legal DLPack dtype (unknown code, illegal bits, lanes 0) */
  DLX_ERR_DEVICE_MISMATCH,   /* device type differs from the required memory space */
  DLX_ERR_INVALID_DEVICE,    /* unknown device type, or a device id that is not valid for it */
  DLX_ERR_NULL_DATA,         /* data is NULL while the tensor has elements */
  DLX_ERR_NULL_SHAPE,        /* shape is NULL while ndim > 0 */
  DLX_ERR_NEGATIVE_EXTENT,   /* an extent is negative */
  DLX_ERR_NULL_STRIDES,      /* strides NULL where the DLPack version or the layout forbids it */
  DLX_ERR_BAD_STRIDE,        /* a stride the requested layout does not allow (not positive) */
  DLX_ERR_LAYOUT_MISMATCH,   /* strides incompatible with the requested layout (right / left) */
  DLX_ERR_MISALIGNED,        /* the data address is not a multiple of the required alignment */
  DLX_ERR_OVERFLOW,          /* a size, stride, offset or byte count does not fit its integer type */
  DLX_ERR_UNSUPPORTED,       /* valid DLPack that dlx cannot handle (e.g. packed sub-byte strides) */
  DLX_ERR_OUT_OF_MEMORY,     /* an allocation failed */
  DLX_ERR_VERSION,           /* a DLPack major version dlx does not speak */
  DLX_ERR_PARSE,             /* a name (dtype, layout) that does not parse */
  DLX_ERR_BUFFER_TOO_SMALL,  /* an output buffer is too small */
  DLX_ERR_INDEX,             /* an index or dimension out of range */
  DLX_ERR_BROADCAST,         /* shapes that do not broadcast together */
  DLX_ERR_DEDUCTION,         /* a layout fact (leading dim, stride order) cannot be deduced */
  DLX_ERR_READ_ONLY,         /* a write was requested through read-only data */
  DLX_ERR_BACKEND,           /* a device runtime call failed (the message carries its error string) */
  DLX_STATUS_COUNT           /* number of status values; not a status */
} dlx_status;

/* The enumerator's name without the prefix, e.g. "NULL_DATA"; "UNKNOWN_STATUS" for other values. */
DLX_API const char *dlx_status_name(dlx_status status);

/* The message of the last failure on this thread ("" when none). Valid until the next dlx call on
 * this thread that fails or clears it. */
DLX_API const char *dlx_last_error(void);

/* Forget the last message on this thread. */
DLX_API void dlx_clear_error(void);

/* Record a failure: sets this thread's message from a printf format and returns status.
 * Public so that code layered on dlx (the Python module, extensions) reports through one channel. */
DLX_API dlx_status dlx_set_error(dlx_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

DLX_EXTERN_C_END

#endif
