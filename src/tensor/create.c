/* New tensors with contents (dlx/tensor.h): dlx_tensor_full, dlx_tensor_arange(_int), dlx_tensor_eye. Each
 * is a new tensor (dlx_tensor_empty) and one op of dlx/ops.h on its view; on failure nothing is left
 * allocated. (dlx_tensor_zeros is in tensor.c: its memory comes zeroed from the allocator.) */
#include "core/error_internal.h"
#include "dlx/ops.h"
#include "dlx/tensor.h"

/* *out = t after op's status st, or t released and st returned. */
static dlx_status finish(dlx_tensor **out, dlx_tensor *t, dlx_status st) {
  if (st != DLX_OK) {
    dlx_tensor_release(t);
    return st;
  }
  *out = t;
  return DLX_OK;
}

dlx_status dlx_tensor_full(dlx_tensor **out, int32_t ndim, const int64_t *shape, const dlx_view *value,
                           DLDevice device) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(value);
  DLX_FAIL_IF(shape == NULL && ndim > 0, DLX_ERR_NULL_ARGUMENT, "dlx_tensor_full: argument 'shape' is NULL with ndim %d",
              (int)ndim);
  dlx_tensor *t;
  DLX_FORWARD(dlx_tensor_empty(&t, ndim, shape, value->dtype, device));
  return finish(out, t, dlx_fill(dlx_tensor_view(t), value));
}

dlx_status dlx_tensor_arange(dlx_tensor **out, double start, double stop, double step, DLDataType dtype,
                             DLDevice device) {
  DLX_CHECK_NULL(out);
  int64_t n;
  DLX_FORWARD(dlx_arange_length(start, stop, step, &n));
  dlx_tensor *t;
  DLX_FORWARD(dlx_tensor_empty(&t, 1, &n, dtype, device));
  return finish(out, t, dlx_arange(dlx_tensor_view(t), start, step));
}

dlx_status dlx_tensor_arange_int(dlx_tensor **out, int64_t start, int64_t stop, int64_t step, DLDataType dtype,
                                 DLDevice device) {
  DLX_CHECK_NULL(out);
  int64_t n;
  DLX_FORWARD(dlx_arange_length_int(start, stop, step, &n));
  dlx_tensor *t;
  DLX_FORWARD(dlx_tensor_empty(&t, 1, &n, dtype, device));
  return finish(out, t, dlx_arange_int(dlx_tensor_view(t), start, step));
}

dlx_status dlx_tensor_eye(dlx_tensor **out, int64_t n, int64_t m, int64_t k, DLDataType dtype, DLDevice device) {
  DLX_CHECK_NULL(out);
  const int64_t shape[2] = {n, m}; /* a negative extent: dlx_tensor_empty's NEGATIVE_EXTENT, naming it */
  dlx_tensor *t;
  DLX_FORWARD(dlx_tensor_empty(&t, 2, shape, dtype, device));
  return finish(out, t, dlx_eye(dlx_tensor_view(t), k));
}
