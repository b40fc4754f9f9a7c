/* dlx/dynlayout.h - CuTe-style static/dynamic layouts (CuTe DSL's rules): mark_layout_dynamic and
 * mark_compact_shape_dynamic, their printing ("(?,?{div=2},4):(?,1,0)"), and a key for kernel caches.
 *
 * A dlx_dynlayout starts fully static from a tensor's shape and strides. Marking turns modes dynamic:
 * a dynamic value prints as "?" or "?{div=N}" when its divisibility N > 1. The concrete values are kept,
 * so the layout still describes the tensor exactly; only what a compiled kernel may assume changes.
 * Thread safety: reentrant; each function touches only its arguments (and the thread's error). */
#ifndef DLX_DYNLAYOUT_H
#define DLX_DYNLAYOUT_H

#include <stdint.h>

#include "dlx/error.h"
#include "dlx/export.h"
#include "dlx/view.h"

DLX_EXTERN_C_BEGIN

typedef struct dlx_dynlayout {
  int32_t ndim;
  int32_t has_order;                 /* 1 once mark_compact_shape_dynamic fixed a stride order */
  int64_t shape[DLX_MAX_NDIM];       /* concrete extents */
  int64_t stride[DLX_MAX_NDIM];      /* concrete strides (elements) */
  int64_t shape_div[DLX_MAX_NDIM];   /* 0 = static; N >= 1 = dynamic, known divisible by N */
  int64_t stride_div[DLX_MAX_NDIM];  /* likewise for strides */
  int32_t order[DLX_MAX_NDIM];       /* stride order (dim_order: outermost first) when has_order */
} dlx_dynlayout;

/* A fully static layout of (ndim, shape, strides). DLX_ERR_RANK for ndim outside [0, 64];
 * DLX_ERR_NULL_ARGUMENT for NULL shape or strides when ndim > 0; DLX_ERR_NEGATIVE_EXTENT. */
DLX_API dlx_status dlx_dynlayout_init(dlx_dynlayout *l, int32_t ndim, const int64_t *shape, const int64_t *strides);

/* CuTe's mark_layout_dynamic: every shape mode dynamic (div 1); every stride dynamic (div 1) except the
 * leading dimension's (stays static 1) and zero strides (broadcast, stay static 0).
 * leading_dim < 0: deduce it (dlx_layout_leading_dim; C's spelling of CuTe's None, so a negative index
 * does not count from the end here: the Python binding makes CuTe's leading_dim=-1 absolute before it
 * calls this): none with stride 1 -> all strides dynamic;
 * several -> DLX_ERR_DEDUCTION "Can't deduce the leading dimension from layout, please specify the
 * leading_dim explicitly.". leading_dim >= ndim -> DLX_ERR_INDEX; strides[leading_dim] != 1 ->
 * DLX_ERR_LAYOUT_MISMATCH "Expected strides[leading_dim] == 1, but got 16". On error *l is unchanged. */
DLX_API dlx_status dlx_dynlayout_mark_dynamic(dlx_dynlayout *l, int32_t leading_dim);

/* CuTe's mark_compact_shape_dynamic: shape mode `mode` becomes dynamic with the given divisibility and
 * the strides are recomputed as the compact layout in the stride order (innermost stride static 1;
 * a static extent-1 mode gets static stride 0; a stride is dynamic when an inner dynamic extent feeds
 * it, its divisibility the product of inner static extents and inner divisibilities).
 * stride_order NULL: deduce (dlx_layout_deduce_stride_order), or reuse the recorded one; once an order is
 * recorded, a given order is compared with it alone. An empty tensor counts as compact. Errors, each
 * with CuTe's message (CuTe DSL's rules), checked in this order: mode outside [0, ndim) (INDEX, "Expected mode
 * value to be in range [0, 5), but got 30"; mode and the stride_order entries are absolute indices here:
 * the Python binding makes CuTe's negative ones, counted from the end, absolute first); order_len != ndim
 * (INVALID_ARGUMENT, "Expected stride_order to have 5 elements, but got 6."); order not a permutation
 * (INVALID_ARGUMENT, "Expected stride_order to contain all the dimensions of the tensor, but it doesn't
 * contain 0."); divisibility < 1 (INVALID_ARGUMENT); order differs from the recorded one
 * (LAYOUT_MISMATCH, "The stride_order is not consistent with the last stride_order"); order differs from
 * a deducible one (LAYOUT_MISMATCH, "The stride_order is not consistent with the deduced stride_order");
 * no order given and none deducible (DEDUCTION, "The layout could not be deduced, please specify the
 * stride_order explicitly"); the strides are not compact in that order (LAYOUT_MISMATCH, "The
 * stride_order is not consistent with the layout"); the extent not divisible (INVALID_ARGUMENT, "The
 * shape(1) of mode(0) is not divisible by the divisibility(4)"); a recomputed stride past int64
 * (OVERFLOW). On error *l is unchanged. */
DLX_API dlx_status dlx_dynlayout_mark_compact_shape_dynamic(dlx_dynlayout *l, int32_t mode, const int32_t *stride_order,
                                                            int32_t order_len, int64_t divisibility);

/* Print as CuTe does: "(8,?{div=2},16,2):(2,16,?{div=32},1)"; rank 1 "(5):(1)", rank 0 "():()".
 * DLX_ERR_BUFFER_TOO_SMALL (buf set to "") when cap is too small; 4096 bytes always suffice (64 modes of
 * "?{div=<19 digits>}" need ~3.5 KB). */
DLX_API dlx_status dlx_dynlayout_format(const dlx_dynlayout *l, char *buf, size_t cap);

/* True when some mode is dynamic. */
DLX_API int dlx_dynlayout_is_dynamic(const dlx_dynlayout *l);

/* 64-bit hash of what a compiled kernel depends on: ndim, static values, and for dynamic modes only
 * their divisibility (never the concrete value), mixed with the extra words given (dtype, alignment,
 * memspace). Equal layouts give equal keys. */
DLX_API uint64_t dlx_dynlayout_key(const dlx_dynlayout *l, uint64_t extra);

DLX_EXTERN_C_END

#endif
