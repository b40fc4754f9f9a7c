/* USM pointers by dpctl's exchange rules (the oneAPI USM protocol): the export rule (the device of a pointer, from the
 * default context of its platform, walked up to the root device), the import rule (the USM kind of a
 * pointer in a device's default context), allocation and release, and queue copies. */
#include <inttypes.h>

#include "backends/oneapi/oneapi_internal.h"
#include "core/error_internal.h"

static const char *kind_name(int kind) {
  switch (kind) {
    case DLX_ONEAPI_USM_DEVICE: return "device";
    case DLX_ONEAPI_USM_SHARED: return "shared";
    case DLX_ONEAPI_USM_HOST: return "host";
    default: return "unknown";
  }
}

dlx_status dlx__oneapi_kind(const dlx__oneapi_runtime *s, const void *ptr, int32_t id, const char *fn,
                            dlx_oneapi_usm *out) {
  const int k = s->api.usm_pointer_type(ptr, s->devices[id].context);
  if (k == DLX_ONEAPI_USM_DEVICE || k == DLX_ONEAPI_USM_SHARED || k == DLX_ONEAPI_USM_HOST) {
    *out = (dlx_oneapi_usm)k;
    return DLX_OK;
  }
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                       "%s%sdata at 0x%" PRIxPTR " is not bound to the default context of device oneapi:%d (its "
                       "platform's default context does not know the pointer%s)",
                       fn != NULL ? fn : "", fn != NULL ? ": " : "", (uintptr_t)ptr, (int)id,
                       k == DLX_ONEAPI_USM_UNKNOWN ? "" : ": unexpected USM type");
}

/* ---- import ------------------------------------------------------------------------------------- */

dlx_status dlx__oneapi_check_import(const void *ptr, DLDevice device) {
  const dlx__oneapi_runtime *s = dlx__oneapi_state();
  /* without the runtime nothing can be asked: the label is kept, and ops on it say what is missing */
  if (s == NULL) return DLX_OK;
  const int32_t id = device.device_id;
  DLX_FAIL_IF(id < 0 || id >= s->count, DLX_ERR_INVALID_DEVICE, "device oneapi:%d does not exist (%d SYCL device%s)",
              (int)id, s->count, s->count == 1 ? "" : "s");
  DLX_FAIL_IF(s->devices[id].context == NULL, DLX_ERR_BACKEND,
              "device oneapi:%d has no default platform context (sycl_ext_oneapi_default_context)", (int)id);
  dlx_oneapi_usm k;
  return dlx__oneapi_kind(s, ptr, id, NULL, &k);
}

dlx_status dlx_oneapi_usm_kind(const void *ptr, int32_t device_id, dlx_oneapi_usm *kind) {
  DLX_CHECK_NULL(kind);
  DLX_CHECK_NULL(ptr);
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_device("dlx_oneapi_usm_kind", device_id, &s));
  return dlx__oneapi_kind(s, ptr, device_id, "dlx_oneapi_usm_kind", kind);
}

/* ---- export ------------------------------------------------------------------------------------- */

static _Atomic bool full_walk;

bool dlx__oneapi_export_full_walk(bool on) { return atomic_exchange(&full_walk, on); }

/* Position of the root device of ptr's device, ptr known in device i's default context (shared by
 * several root devices). */
static dlx_status root_position(const dlx__oneapi_runtime *s, const void *ptr, int i, int k, const char *fn, int *out) {
  const dlx__dpctl_api *a = &s->api;
  const dlx__oneapi_devinfo *d = &s->devices[i];
  /* known in this context, so asking for its device is safe (SYCL would throw otherwise) */
  dpctl_ref dev = a->usm_pointer_device(ptr, d->context);
  DLX_FAIL_IF(dev == NULL, DLX_ERR_BACKEND, "%s: DPCTLUSM_GetPointerDevice failed for %s USM at 0x%" PRIxPTR, fn,
              kind_name(k), (uintptr_t)ptr);
  /* a sub-device's allocation belongs to its root device */
  for (dpctl_ref parent; (parent = a->device_get_parent(dev)) != NULL;) {
    a->device_delete(dev);
    dev = parent;
  }
  /* the cached list is dpctl's list: the platform's devices first, then the manager's search */
  int pos = -1;
  for (int j = i; j < s->count && pos < 0; ++j)
    if (s->devices[j].context_first == i && a->device_are_eq(s->devices[j].device, dev)) pos = j;
  if (pos < 0) pos = a->device_mgr_position(dev, DLX_DPCTL_ALL);
  a->device_delete(dev);
  DLX_FAIL_IF(pos < 0 || pos >= s->count, DLX_ERR_BACKEND,
              "%s: %s USM at 0x%" PRIxPTR " belongs to a root device that is not among the %d SYCL devices (failed "
              "finding device_id)",
              fn, kind_name(k), (uintptr_t)ptr, s->count);
  *out = pos;
  return DLX_OK;
}

/* The export rule: the first default context that knows ptr (each platform's is asked once), the
 * pointer's device there, its root device, and the root's position among all devices. */
static dlx_status pointer_device(const dlx__oneapi_runtime *s, const void *ptr, const char *fn, DLDevice *out,
                                 dlx_oneapi_usm *kind) {
  const dlx__dpctl_api *a = &s->api;
  for (int i = 0; i < s->count; ++i) {
    const dlx__oneapi_devinfo *d = &s->devices[i];
    if (d->context_first != i) continue;
    const int k = a->usm_pointer_type(ptr, d->context);
    if (k != DLX_ONEAPI_USM_DEVICE && k != DLX_ONEAPI_USM_SHARED && k != DLX_ONEAPI_USM_HOST) continue;
    int pos = i;
    /* the platform's only root device owns whatever its default context knows (sub-devices included):
     * nothing more to ask */
    if (d->context_devices > 1 || atomic_load_explicit(&full_walk, memory_order_relaxed)) {
      DLX_FORWARD(root_position(s, ptr, i, k, fn, &pos));
    }
    *out = (DLDevice){kDLOneAPI, pos};
    if (kind != NULL) *kind = (dlx_oneapi_usm)k;
    return DLX_OK;
  }
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                       "%s: data at 0x%" PRIxPTR " is not USM known to the default context of any SYCL platform: only "
                       "allocations bound to the default platform context can be exported",
                       fn, (uintptr_t)ptr);
}

dlx_status dlx_oneapi_pointer_device(const void *ptr, DLDevice *out, dlx_oneapi_usm *kind) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(ptr);
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_require("dlx_oneapi_pointer_device", &s));
  return pointer_device(s, ptr, "dlx_oneapi_pointer_device", out, kind);
}

dlx_status dlx__oneapi_pointer_device(const void *ptr, DLDevice *out) {
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_require("dlx_view_to_dltensor", &s));
  return pointer_device(s, ptr, "dlx_view_to_dltensor", out, NULL);
}

/* ---- memory ------------------------------------------------------------------------------------- */

static dlx_status alloc_kind(DLDevice device, dlx_oneapi_usm kind, uint64_t bytes, bool zero, void **out,
                             const char *fn) {
  DLX_FAIL_IF(device.device_type != kDLOneAPI, DLX_ERR_DEVICE_MISMATCH,
              "%s: the oneapi backend allocates oneapi memory, not device type %d", fn, (int)device.device_type);
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_device(fn, device.device_id, &s));
  DLX_FAIL_IF(bytes > (uint64_t)PTRDIFF_MAX - 64, DLX_ERR_OUT_OF_MEMORY, "%s: %" PRIu64 " bytes cannot be allocated",
              fn, bytes);
  dpctl_ref q;
  DLX_FORWARD(dlx__oneapi_queue(s, device.device_id, fn, &q));
  /* a multiple of 64 bytes, never 0 (SYCL returns NULL for 0) */
  const size_t size = bytes == 0 ? 64 : (size_t)((bytes + 63u) & ~(uint64_t)63u);
  void *p = kind == DLX_ONEAPI_USM_DEVICE   ? s->api.malloc_device(size, q)
            : kind == DLX_ONEAPI_USM_SHARED ? s->api.malloc_shared(size, q)
                                            : s->api.malloc_host(size, q);
  DLX_FAIL_IF(p == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %" PRIu64 " bytes of %s USM on oneapi:%d",
              fn, bytes, kind_name(kind), (int)device.device_id);
  if (zero) {
    dpctl_ref ev = s->api.queue_memset(q, p, 0, size);
    if (ev == NULL) {
      s->api.free_with_context(p, s->devices[device.device_id].context);
      return dlx_set_error(DLX_ERR_BACKEND, "%s: DPCTLQueue_Memset of %zu bytes failed on oneapi:%d", fn, size,
                           (int)device.device_id);
    }
    s->api.event_wait(ev);
    s->api.event_delete(ev);
  }
  *out = p;
  return DLX_OK;
}

dlx_status dlx__oneapi_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn) {
  return alloc_kind(device, dlx__oneapi_alloc_kind(), bytes, zero, out, fn);
}

dlx_status dlx__oneapi_alloc_shared(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn) {
  return alloc_kind(device, DLX_ONEAPI_USM_SHARED, bytes, zero, out, fn);
}

dlx_status dlx__oneapi_alloc_like(DLDevice device, const void *like, uint64_t bytes, bool zero, void **out,
                                  const char *fn) {
  dlx_oneapi_usm kind = dlx__oneapi_alloc_kind();
  if (like != NULL && device.device_type == kDLOneAPI) {
    const dlx__oneapi_runtime *s = NULL;
    DLX_FORWARD(dlx__oneapi_device(fn, device.device_id, &s));
    dlx_oneapi_usm k = DLX_ONEAPI_USM_UNKNOWN;
    DLX_FORWARD(dlx__oneapi_kind(s, like, device.device_id, fn, &k));
    if (k == DLX_ONEAPI_USM_SHARED || k == DLX_ONEAPI_USM_HOST) kind = k;
  }
  return alloc_kind(device, kind, bytes, zero, out, fn);
}

void dlx__oneapi_free(DLDevice device, void *ptr) {
  if (ptr == NULL) return;
  /* the memory came from alloc on this device, so the library is loaded and the id valid */
  const dlx__oneapi_runtime *s = dlx__oneapi_state();
  if (s == NULL || device.device_id < 0 || device.device_id >= s->count) return;
  s->api.free_with_context(ptr, s->devices[device.device_id].context);
}

dlx_status dlx__oneapi_memcpy(const dlx__oneapi_runtime *s, int32_t id, void *dst, const void *src, size_t bytes,
                              const char *fn) {
  if (bytes == 0) return DLX_OK;
  dpctl_ref q;
  DLX_FORWARD(dlx__oneapi_queue(s, id, fn, &q));
  dpctl_ref ev = s->api.queue_memcpy(q, dst, src, bytes);
  DLX_FAIL_IF(ev == NULL, DLX_ERR_BACKEND,
              "%s: DPCTLQueue_Memcpy of %zu bytes from 0x%" PRIxPTR " to 0x%" PRIxPTR " failed on oneapi:%d", fn, bytes,
              (uintptr_t)src, (uintptr_t)dst, (int)id);
  s->api.event_wait(ev);
  s->api.event_delete(ev);
  return DLX_OK;
}
