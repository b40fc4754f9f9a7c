/* Internal to the oneAPI backend (src/backends/oneapi/): dpctl's C API as dlx loads it, the loaded state,
 * and what the backend's files share.
 *
 * No dpctl header is used: the few types and functions below are declared from dpctl's documented C
 * signatures (opaque reference types are plain pointers; enums are int), and resolved with dlsym. */
#ifndef DLX_BACKENDS_ONEAPI_INTERNAL_H
#define DLX_BACKENDS_ONEAPI_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "dlx/oneapi.h"

/* dpctl's opaque references (sycl::device *, context, platform, queue, event, vectors). */
typedef void *dpctl_ref;

/* Flags of DPCTLDeviceMgr_GetDevices / _GetPositionInDevices: every backend, every device type. */
#define DLX_DPCTL_ALL_BACKENDS (((1 << 5) - 1) << 16)
#define DLX_DPCTL_ALL_DEVICE_TYPES ((1 << 6) - 1)
#define DLX_DPCTL_ALL (DLX_DPCTL_ALL_BACKENDS | DLX_DPCTL_ALL_DEVICE_TYPES)

/* The functions dlx calls. "give" results are owned by the caller and deleted with the matching
 * _Delete; "keep" arguments are borrowed. */
typedef struct dlx__dpctl_api {
  dpctl_ref (*device_mgr_get_devices)(int identifier);                /* DPCTLDeviceMgr_GetDevices: give */
  int (*device_mgr_position)(dpctl_ref device, int identifier);      /* DPCTLDeviceMgr_GetPositionInDevices */
  size_t (*device_vector_size)(dpctl_ref vec);                       /* DPCTLDeviceVector_Size */
  dpctl_ref (*device_vector_get_at)(dpctl_ref vec, size_t i);         /* DPCTLDeviceVector_GetAt: give */
  void (*device_vector_delete)(dpctl_ref vec);                       /* DPCTLDeviceVector_Delete */
  void (*device_delete)(dpctl_ref device);                           /* DPCTLDevice_Delete */
  bool (*device_are_eq)(dpctl_ref a, dpctl_ref b);                   /* DPCTLDevice_AreEq */
  dpctl_ref (*device_get_parent)(dpctl_ref device);                  /* DPCTLDevice_GetParentDevice: give, NULL for a root */
  dpctl_ref (*device_get_platform)(dpctl_ref device);                /* DPCTLDevice_GetPlatform: give */
  void (*platform_delete)(dpctl_ref platform);                       /* DPCTLPlatform_Delete */
  dpctl_ref (*platform_default_context)(dpctl_ref platform);         /* DPCTLPlatform_GetDefaultContext: give */
  bool (*context_are_eq)(dpctl_ref a, dpctl_ref b);                  /* DPCTLContext_AreEq */
  /* DPCTLQueue_Create(context, device, error handler or NULL, properties): give, NULL on failure */
  dpctl_ref (*queue_create)(dpctl_ref context, dpctl_ref device, void *handler, int properties);
  dpctl_ref (*queue_memcpy)(dpctl_ref queue, void *dst, const void *src, size_t n); /* DPCTLQueue_Memcpy: event, give */
  dpctl_ref (*queue_memset)(dpctl_ref queue, void *dst, uint8_t value, size_t n);   /* DPCTLQueue_Memset: event, give */
  void (*event_wait)(dpctl_ref event);                               /* DPCTLEvent_Wait */
  void (*event_delete)(dpctl_ref event);                             /* DPCTLEvent_Delete */
  void *(*malloc_device)(size_t bytes, dpctl_ref queue);             /* DPCTLmalloc_device: NULL on failure */
  void *(*malloc_shared)(size_t bytes, dpctl_ref queue);             /* DPCTLmalloc_shared */
  void *(*malloc_host)(size_t bytes, dpctl_ref queue);               /* DPCTLmalloc_host */
  void (*free_with_context)(void *ptr, dpctl_ref context);           /* DPCTLfree_with_context */
  int (*usm_pointer_type)(const void *ptr, dpctl_ref context);       /* DPCTLUSM_GetPointerType: dlx_oneapi_usm */
  /* DPCTLUSM_GetPointerDevice: give. Only for a pointer the context knows: SYCL throws otherwise, and
   * dpctl does not catch it (the process aborts). */
  dpctl_ref (*usm_pointer_device)(const void *ptr, dpctl_ref context);
} dlx__dpctl_api;

/* One SYCL root device, in dpctl's order. */
typedef struct dlx__oneapi_devinfo {
  dpctl_ref device;
  dpctl_ref context;          /* its platform's default context */
  int context_first;          /* the first device sharing that context (the export asks each context once);
                                 -1 without a context */
  int context_devices;        /* root devices sharing that context (set on the first of them) */
  _Atomic(dpctl_ref) queue;   /* in-order queue on (context, device), made at first use */
} dlx__oneapi_devinfo;

/* The loaded library: immutable once published, except the queues. Never freed (the library is never
 * unloaded: memory it allocated may outlive any caller). */
typedef struct dlx__oneapi_runtime {
  dlx__dpctl_api api;
  char path[4096]; /* as loaded (realpath when it resolves) */
  int count;
  dlx__oneapi_devinfo *devices;
} dlx__oneapi_runtime;

/* The loaded state, loading from DLX_DPCTL_LIBRARY on the first call that finds none; NULL when the
 * library is absent. */
const dlx__oneapi_runtime *dlx__oneapi_state(void);

/* The state, or DLX_ERR_UNSUPPORTED "fn: ... needs dpctl's C API library, which was not found: ..." (with
 * the reason the last attempt gave). */
dlx_status dlx__oneapi_require(const char *fn, const dlx__oneapi_runtime **out);

/* The state with device id present: DLX_ERR_UNSUPPORTED without the library, DLX_ERR_INVALID_DEVICE
 * naming id and the device count. */
dlx_status dlx__oneapi_device(const char *fn, int32_t id, const dlx__oneapi_runtime **out);

/* Device id's queue (the state and id checked by the caller): DLX_ERR_BACKEND when SYCL cannot make it. */
dlx_status dlx__oneapi_queue(const dlx__oneapi_runtime *s, int32_t id, const char *fn, dpctl_ref *out);

/* Tests only: export by the full rule (the pointer's device, its root, the root's position) even where a
 * platform has one root device, whose pointers need no question; returns the previous setting. */
bool dlx__oneapi_export_full_walk(bool on);

/* The kind dlx_oneapi_set_alloc_kind chose. */
dlx_oneapi_usm dlx__oneapi_alloc_kind(void);

/* ---- USM (usm.c) ------------------------------------------------------------------------------------ */

/* ptr's USM kind in device id's default context: DLX_ERR_DEVICE_MISMATCH when unknown there ("fn: data
 * at 0x... is not bound to the default context of device oneapi:id"; no prefix when fn is NULL). */
dlx_status dlx__oneapi_kind(const dlx__oneapi_runtime *s, const void *ptr, int32_t id, const char *fn,
                            dlx_oneapi_usm *out);

/* The import rule (the oneAPI USM protocol) for memory labelled device, for backend.c's row of kDLOneAPI: DLX_OK
 * without the library (nothing can be asked), else as dlx_oneapi_usm_kind, with import-style messages. */
dlx_status dlx__oneapi_check_import(const void *ptr, DLDevice device);

/* The export rule, the backend table's pointer_device. */
dlx_status dlx__oneapi_pointer_device(const void *ptr, DLDevice *out);

/* Allocation on (kDLOneAPI, id): of dlx__oneapi_alloc_kind() (the memory table's alloc), or shared USM
 * (the compute table's scratch memory). free: DPCTLfree_with_context in the device's context. */
dlx_status dlx__oneapi_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn);
dlx_status dlx__oneapi_alloc_shared(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn);
/* The memory table's alloc_like: the kind of the USM at like (in device's default context) when the host can
 * address it (host, shared), so that results of ops on such memory can be computed; else as
 * dlx__oneapi_alloc. A pointer the context does not know is an error, as in an op. */
dlx_status dlx__oneapi_alloc_like(DLDevice device, const void *like, uint64_t bytes, bool zero, void **out,
                                  const char *fn);
void dlx__oneapi_free(DLDevice device, void *ptr);

/* One queue memcpy on device id's queue, waited for. */
dlx_status dlx__oneapi_memcpy(const dlx__oneapi_runtime *s, int32_t id, void *dst, const void *src, size_t bytes,
                              const char *fn);

/* ---- copies (copy.c) -------------------------------------------------------------------------------- */

/* dst[...] = src where either side is oneAPI USM and the other USM or host-accessible memory: same
 * dtype, src broadcast to dst, any strides, packed sub-byte included; returns once done. The table's
 * copy. */
dlx_status dlx__oneapi_copy(const dlx_view *dst, const dlx_view *src);

/* The backend's halves (oneapi.c): memory (allocations of dlx__oneapi_alloc_kind(), results kept in
 * their input's USM kind) and compute (the CPU loops on host-accessible USM, scratch in shared USM). */
extern const dlx__memory_ops dlx__oneapi_memory;
extern const dlx__compute_ops dlx__oneapi_compute;
extern const dlx__backend dlx__oneapi_backend;

#endif
