/* Memory for tensors: new storage from the backend that owns a device's memory, and compact copies. This
 * sits above the backends (src/backends) and the storage layer (src/exchange/storage.h), so both the C
 * tensors (tensor.c) and the Python module allocate through it. */
#include "tensor/memory.h"

#include "backends/backend.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* ---- dlx's own memory ---------------------------------------------------------------------------- */

static void release_backend_memory(void *ctx, void *ptr, DLDevice device) {
  const dlx_backend *be = ctx;
  be->free(device, ptr);
}

dlx_status dlx__storage_alloc(DLDevice device, uint64_t bytes, bool zero, const char *fn, dlx_storage **out) {
  const dlx_backend *be;
  DLX_FORWARD(dlx__backend_memory(device, fn, &be));
  void *p = NULL;
  DLX_FORWARD(be->alloc(device, bytes, zero, &p, fn));
  dlx_storage *s = dlx__storage_new(release_backend_memory, (void *)(uintptr_t)be, p, device);
  if (s == NULL) {
    be->free(device, p);
    return dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a storage", fn);
  }
  *out = s;
  return DLX_OK;
}

/* ---- copies ------------------------------------------------------------------------------------- */

dlx_status dlx__storage_copy_compact(const dlx_view *src, const char *fn, dlx_storage **out, dlx_view *out_view) {
  const bool padded = (src->flags & DLX_VIEW_SUBBYTE_PADDED) != 0;
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(src->dtype, (uint64_t)dlx_view_size(src), padded, &bytes));
  const DLDevice dev = dlx_device_is_host_accessible(src->device) ? (DLDevice){kDLCPU, 0} : src->device;
  dlx_storage *s;
  DLX_FORWARD(dlx__storage_alloc(dev, bytes, false, fn, &s));
  dlx_view v;
  dlx_status st = dlx_view_init(&v, s->ptr, src->dtype, dev, src->ndim, src->shape, NULL);
  if (st == DLX_OK) {
    if (padded) v.flags |= DLX_VIEW_SUBBYTE_PADDED;
    st = dlx_copy(&v, src);
  }
  if (st != DLX_OK) {
    dlx__storage_release(s);
    return st;
  }
  *out = s;
  *out_view = v;
  return DLX_OK;
}
