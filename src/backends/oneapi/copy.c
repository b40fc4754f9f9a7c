/* Copies where one side or both are oneAPI USM: the backend table's copy entry, which the compute layer
 * calls when dlx_copy's two views live on different backends or devices (and the backend's own execute
 * calls for copies that touch device USM).
 *
 * Host and shared USM are host memory to the CPU: a copy between them and host memory is an ordinary CPU
 * dlx_copy (any strides, broadcasting, packed sub-byte data). Device USM is reached only through the
 * queue's memcpy, which moves bytes, so each device side goes through a host buffer holding its byte span:
 *   device src --(memcpy of src's span)--> host buffer ==(CPU dlx_copy: gather, broadcast)==> dst side
 *   device dst: host buffer of dst's span (read first unless dst is compact) <== CPU dlx_copy ==
 *               then --(memcpy of the span)--> dst
 * Two compact sides (C-contiguous, same padding) are one memcpy, or two through a host buffer between
 * different devices (each device's queue reaches its own context only). A strided device dst is written
 * back whole, gaps between its elements included, with the bytes read before: another writer of those
 * gaps during the copy would be undone. Every copy is finished when the function returns. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backends/oneapi/oneapi_internal.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

static const DLDevice cpu0 = {kDLCPU, 0};

/* Whether v's memory is device USM (reachable only through the queue), checking that it is USM of its
 * device, or host-accessible memory. *s gets the state when a side is oneAPI. */
static dlx_status classify(const dlx_view *v, const char *name, const dlx__oneapi_runtime **s, bool *device_usm) {
  if (v->device.device_type == kDLOneAPI) {
    DLX_FORWARD(dlx__oneapi_device("dlx_copy", v->device.device_id, s));
    dlx_oneapi_usm k;
    DLX_FORWARD(dlx__oneapi_kind(*s, v->data, v->device.device_id, "dlx_copy", &k));
    *device_usm = k == DLX_ONEAPI_USM_DEVICE;
    return DLX_OK;
  }
  if (dlx_device_is_host_accessible(v->device)) {
    *device_usm = false;
    return DLX_OK;
  }
  char d[DLX_DEVICE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                       "dlx_copy: %s is on %s: the oneapi backend copies between oneAPI USM and host memory only "
                       "(copy through host memory)",
                       name, dlx__device_text(d, sizeof d, v->device));
}

static bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

static void *bounce_alloc(uintptr_t bytes) { return malloc(bytes > 0 ? (size_t)bytes : 1); }

#define BOUNCE_OOM(bytes)                                                                             \
  dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "dlx_copy: out of memory for a host buffer of %" PRIuPTR " bytes", (bytes))

/* Both sides compact with one byte layout: the bytes move as they are. */
static dlx_status copy_compact(const dlx__oneapi_runtime *s, const dlx_view *d, bool ddev, const dlx_view *b, bool sdev) {
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(d->dtype, (uint64_t)dlx_view_size(d), !is_packed(d) && dlx_dtype_is_subbyte(d->dtype),
                                      &bytes));
  const int32_t did = d->device.device_id, sid = b->device.device_id;
  if (!(sdev && ddev && sid != did))
    return dlx__oneapi_memcpy(s, ddev ? did : sid, d->data, b->data, (size_t)bytes, "dlx_copy");
  void *buf = bounce_alloc((uintptr_t)bytes);
  if (buf == NULL) return BOUNCE_OOM((uintptr_t)bytes);
  dlx_status st = dlx__oneapi_memcpy(s, sid, buf, b->data, (size_t)bytes, "dlx_copy");
  if (st == DLX_OK) st = dlx__oneapi_memcpy(s, did, d->data, buf, (size_t)bytes, "dlx_copy");
  free(buf);
  return st;
}

dlx_status dlx__oneapi_copy(const dlx_view *dst, const dlx_view *src) {
  if (dlx_view_size(dst) == 0) return DLX_OK;
  const dlx__oneapi_runtime *s = NULL;
  bool ddev, sdev;
  DLX_FORWARD(classify(dst, "dst", &s, &ddev));
  DLX_FORWARD(classify(src, "src", &s, &sdev));
  dlx_view d = *dst, b;
  DLX_FORWARD(dlx_view_broadcast_to(src, dst->ndim, dst->shape, &b));
  if (!ddev) d.device = cpu0;
  if (!sdev) b.device = cpu0;
  if (!ddev && !sdev) return dlx_copy(&d, &b);

  const bool d_compact = dlx_view_is_c_contiguous(&d);
  if (d_compact && dlx_view_is_c_contiguous(&b) && is_packed(&d) == is_packed(&b))
    return copy_compact(s, &d, ddev, &b, sdev);

  void *sbuf = NULL, *dbuf = NULL;
  dlx_status st = DLX_OK;
  /* a device src: its span on the host, the view rebased onto it */
  if (sdev) {
    uintptr_t lo, hi;
    st = dlx_view_byte_span(&b, &lo, &hi);
    if (st == DLX_OK && (sbuf = bounce_alloc(hi - lo)) == NULL) st = BOUNCE_OOM(hi - lo);
    if (st == DLX_OK) st = dlx__oneapi_memcpy(s, b.device.device_id, sbuf, (const void *)lo, (size_t)(hi - lo), "dlx_copy");
    if (st == DLX_OK) {
      b.data = (char *)sbuf + ((uintptr_t)b.data - lo);
      b.device = cpu0;
    }
  }
  if (st == DLX_OK && !ddev) {
    st = dlx_copy(&d, &b);
  } else if (st == DLX_OK) {
    /* a device dst: its span on the host (read first unless every byte of it is written), the CPU copy
     * into it, and the span written back */
    uintptr_t lo = 0, hi = 0;
    st = dlx_view_byte_span(&d, &lo, &hi);
    const int32_t did = d.device.device_id;
    if (st == DLX_OK && (dbuf = bounce_alloc(hi - lo)) == NULL) st = BOUNCE_OOM(hi - lo);
    if (st == DLX_OK && !(d_compact && !is_packed(&d)))
      st = dlx__oneapi_memcpy(s, did, dbuf, (const void *)lo, (size_t)(hi - lo), "dlx_copy");
    if (st == DLX_OK) {
      dlx_view h = d;
      h.data = (char *)dbuf + ((uintptr_t)d.data - lo);
      h.device = cpu0;
      st = dlx_copy(&h, &b);
    }
    if (st == DLX_OK) st = dlx__oneapi_memcpy(s, did, (void *)lo, dbuf, (size_t)(hi - lo), "dlx_copy");
  }
  free(sbuf);
  free(dbuf);
  return st;
}
