/* Internal failure macros, in the style of zstd's RETURN_ERROR_IF: one line per failure path. */
#ifndef DLX_ERROR_INTERNAL_H
#define DLX_ERROR_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "dlx/dlpack.h"
#include "dlx/error.h"

#if defined(__GNUC__)
#define DLX_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define DLX_UNLIKELY(x) (x)
#endif

/* An internal function that one of dlx's own shared libraries calls in another (libdlx.so in
 * libdlx_exchange.so): exported from the .so, but never contract (the dlx__ prefix says so). */
#if defined(__GNUC__)
#define DLX__SHARED __attribute__((visibility("default")))
#else
#define DLX__SHARED
#endif

/* Return status with a formatted message when cond holds. */
#define DLX_FAIL_IF(cond, status, ...)                                                                 \
  do {                                                                                                \
    if (DLX_UNLIKELY(cond)) return dlx_set_error((status), __VA_ARGS__);                              \
  } while (0)

/* Propagate a failure from a dlx call (its message stays). */
#define DLX_FORWARD(expr)                                                                             \
  do {                                                                                                \
    dlx_status dlx_forward_st_ = (expr);                                                              \
    if (DLX_UNLIKELY(dlx_forward_st_ != DLX_OK)) return dlx_forward_st_;                              \
  } while (0)

/* ---- formatting for messages (src/core/format.c): the one formatter of each kind ---- */

/* Room for a shape in a message; two of them fit the 512-byte error buffer with their prose. */
#define DLX_SHAPE_TEXT_CAP 160
/* Room for any dtype text: a name, or "(code 255, bits 255, lanes 65535)". */
#define DLX_DTYPE_TEXT_CAP 48
/* Room for any device text: "cuda_managed:2147483647", "device type -2147483648:-2147483648". */
#define DLX_DEVICE_TEXT_CAP 48

/* "(3,4)" into buf (cap bytes); a shape too long for buf ends in "...)" rather than a number cut in
 * half. Returns buf, for use as a printf argument (so are the two below). */
DLX__SHARED const char *dlx__shape_text(char *buf, size_t cap, int32_t ndim, const int64_t *shape);
/* A dtype's canonical name ("float32", "float32x4"), or its raw fields when it is not a legal dtype. */
DLX__SHARED const char *dlx__dtype_text(char *buf, size_t cap, DLDataType dt);
/* "cpu:0", "cuda:1"; an unknown device type by number. */
DLX__SHARED const char *dlx__device_text(char *buf, size_t cap, DLDevice dev);

/* |s| without the overflow of -INT64_MIN. */
static inline uint64_t dlx__abs_u64(int64_t s) { return s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s; }

#define DLX_CHECK_NULL(p) DLX_FAIL_IF((p) == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument '%s' is NULL", __func__, #p)
#endif
