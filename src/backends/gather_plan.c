/* The loop plan of a gather or scatter (backend.h, dlx__gather_plan), which every backend's gather entry
 * runs: in its own file so that a backend module (libdlx_cuda.so) compiles it in as it compiles the core it
 * calls, where the rest of backend.c (the rows) stays in libdlx. */
#include "backends/backend.h"
#include "core/error_internal.h"

dlx_status dlx__gather_plan(const dlx__gather_op *op, const void *offsets, dlx_iter *plan) {
  const dlx_view *d = op->dense, *s = op->strided;
  dlx_view off, blk;
  DLX_FORWARD(dlx_view_init(&off, (void *)(uintptr_t)offsets, DLX_DTYPE_INT64, op->device, d->ndim, d->shape, NULL));
  DLX_FORWARD(dlx_view_init(&blk, s->data, d->dtype, op->device, d->ndim, d->shape, NULL));
  blk.flags = d->flags & DLX_VIEW_SUBBYTE_PADDED;
  /* the offsets walk B row-major and stand still over the rest; the block walks the rest only */
  for (int32_t j = op->nb; j < d->ndim; ++j) {
    off.strides[j] = 0;
    blk.strides[j] = s->strides[j - op->nb];
  }
  int64_t step = 1;
  for (int32_t j = op->nb - 1; j >= 0; --j) {
    off.strides[j] = step;
    step *= d->shape[j];
    blk.strides[j] = 0;
  }
  const dlx_view *views[3] = {d, &off, &blk};
  return dlx_iter_init(plan, 3, views, 0);
}
