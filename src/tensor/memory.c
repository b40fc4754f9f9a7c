/* Memory for tensors: new storage from the backend that owns a device's memory, and compact copies. This
 * sits above the backends (src/backends) and the storage layer (src/exchange/storage.h), so both the C
 * tensors (tensor.c) and the Python module allocate through it. */
#include "tensor/memory.h"

#include <inttypes.h>
#include <pthread.h>

#include "backends/backend.h"
#include "backends/cuda_events.h"
#include "core/error_internal.h"
#include "dlx/cuda.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* ---- dlx's own memory ---------------------------------------------------------------------------- */

static void release_backend_memory(void *ctx, void *ptr, DLDevice device) {
  const dlx__backend *be = ctx;
  be->free(device, ptr);
}

dlx_status dlx__storage_alloc_like(DLDevice device, const void *like, uint64_t bytes, bool zero, const char *fn,
                                   dlx__storage **out) {
  const dlx__backend *be;
  DLX_FORWARD(dlx__backend_memory(device, fn, &be));
  void *p = NULL;
  if (like != NULL && be->alloc_like != NULL) {
    DLX_FORWARD(be->alloc_like(device, like, bytes, zero, &p, fn));
  } else {
    DLX_FORWARD(be->alloc(device, bytes, zero, &p, fn));
  }
  dlx__storage *s = dlx__storage_new(release_backend_memory, (void *)(uintptr_t)be, p, device);
  if (s == NULL) {
    be->free(device, p);
    return dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a storage", fn);
  }
  *out = s;
  return DLX_OK;
}

dlx_status dlx__storage_alloc(DLDevice device, uint64_t bytes, bool zero, const char *fn, dlx__storage **out) {
  return dlx__storage_alloc_like(device, NULL, bytes, zero, fn, out);
}

/* ---- copies ------------------------------------------------------------------------------------- */

dlx_status dlx__storage_copy_compact(const dlx_view *src, const char *fn, dlx__storage **out, dlx_view *out_view) {
  const bool padded = (src->flags & DLX_VIEW_SUBBYTE_PADDED) != 0;
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(src->dtype, (uint64_t)dlx_view_size(src), padded, &bytes));
  const DLDevice dev = dlx_device_is_host_accessible(src->device) ? (DLDevice){kDLCPU, 0} : src->device;
  dlx__storage *s;
  DLX_FORWARD(dlx__storage_alloc_like(dev, src->data, bytes, false, fn, &s));
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

/* ---- events (dlx_tensor_record / dlx_tensor_wait) -------------------------------------------------- */

/* Creating a storage's event: rare, so one lock for every storage. Recording and waiting run outside it. */
static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;

/* Before the memory goes (storage.c): dlx's own device memory stays out of the allocator's reuse until the
 * recorded use is done (its stream waits for the event, without blocking); any other memory (a
 * producer's, whose deleter frees it at once, or managed memory) is waited for on the host first. */
static void event_release(dlx__storage *s) {
  const bool own_device = s->release == release_backend_memory && s->device.device_type == kDLCUDA;
  if (own_device) dlx__cuda_guard_block(s->ptr, s->event);
  dlx__cuda_event_destroy(s->event_device, s->event, !own_device);
  s->event = NULL;
}

/* The CUDA device whose stream orders work on memory of device, or -1 for host memory (nothing to
 * order); an error for memory dlx has no events for, or when CUDA or the device is missing. */
static dlx_status event_device(DLDevice device, const char *fn, int32_t *out) {
  char text[DLX_DEVICE_TEXT_CAP];
  switch (device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
    case kDLROCMHost: *out = -1; return DLX_OK;
    case kDLCUDA: *out = device.device_id; break;
    case kDLCUDAManaged: *out = 0; break; /* DLPack labels managed memory device 0 */
    default:
      return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: the tensor is on %s: dlx has events for CUDA memory only", fn,
                           dlx__device_text(text, sizeof text, device));
  }
  if (!dlx_cuda_built())
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: the tensor is on %s, which needs a build with CUDA (DLX_WITH_CUDA=ON)",
                         fn, dlx__device_text(text, sizeof text, device));
  if (dlx_cuda_device_count() == 0)
    return dlx_set_error(DLX_ERR_INVALID_DEVICE, "%s: the tensor is on %s, but no CUDA device is present", fn,
                         dlx__device_text(text, sizeof text, device));
  if (*out >= dlx_cuda_device_count())
    return dlx_set_error(DLX_ERR_INVALID_DEVICE, "%s: the tensor is on %s, which does not exist (%d CUDA device%s)", fn,
                         dlx__device_text(text, sizeof text, device), dlx_cuda_device_count(),
                         dlx_cuda_device_count() == 1 ? "" : "s");
  return DLX_OK;
}

/* stream, or dlx's current stream of device when NULL. */
static dlx_status resolve_stream(int32_t device, void **stream) {
  if (*stream != NULL) return DLX_OK;
  return dlx_cuda_get_stream(device, stream);
}

dlx_status dlx__storage_record(dlx__storage *s, DLDevice device, void *stream, const char *fn) {
  int32_t dev = -1;
  DLX_FORWARD(event_device(device, fn, &dev));
  if (dev < 0) return DLX_OK;
  DLX_FORWARD(resolve_stream(dev, &stream));
  pthread_mutex_lock(&event_lock);
  dlx_status st = DLX_OK;
  if (s->event == NULL) {
    void *ev = NULL;
    st = dlx__cuda_event_create(dev, &ev, fn);
    if (st == DLX_OK) {
      s->event_device = dev;
      s->event_release = event_release;
      s->event = ev;
    }
  }
  void *ev = s->event;
  const int32_t ev_dev = s->event_device;
  pthread_mutex_unlock(&event_lock);
  DLX_FORWARD(st);
  return dlx__cuda_event_record(ev_dev, ev, stream, fn);
}

dlx_status dlx__storage_wait(dlx__storage *s, DLDevice device, void *stream, const char *fn) {
  int32_t dev = -1;
  DLX_FORWARD(event_device(device, fn, &dev));
  if (dev < 0) return DLX_OK;
  pthread_mutex_lock(&event_lock);
  void *ev = s->event;
  const int32_t ev_dev = s->event_device;
  pthread_mutex_unlock(&event_lock);
  if (ev == NULL) return DLX_OK; /* nothing recorded: nothing to wait for */
  DLX_FORWARD(resolve_stream(dev, &stream));
  return dlx__cuda_event_wait(ev_dev, ev, stream, fn);
}
