/* dlx/oneapi.h - the oneAPI backend: SYCL USM tensors (kDLOneAPI) exchanged by the rules dpctl
 * follows (the oneAPI USM protocol: dpctl's root-device index and default-context rules), through dpctl's C API loaded at run time.
 *
 * dlx has no build-time dependency on oneAPI: the first call that needs SYCL loads dpctl's C API
 * library (libDPCTLSyclInterface.so, shipped in the dpctl Python package next to its __init__.py)
 * with dlopen, from the path given to dlx_oneapi_load, else from the environment variable
 * DLX_DPCTL_LIBRARY (read once, at the first oneAPI call that needs the library). Without it the
 * backend does nothing: dlx_oneapi_device_count() is 0, and every call that needs SYCL fails with
 * DLX_ERR_UNSUPPORTED and a message saying how to point dlx at the library. Imports and exports of
 * kDLOneAPI tensors then keep their labels unchecked, as for any device no runtime can be asked about.
 *
 * Devices: device_id is a root device's position among all SYCL devices (dpctl's device manager, every
 * backend and device type), as dpctl numbers them. Only allocations bound to the default context of
 * their platform can be exchanged (the sycl_ext_oneapi_default_context extension).
 *  - Export (dlx_view_to_dltensor, dlx_oneapi_pointer_device): the pointer must be known in the default
 *    context of its platform; its device, walked up to its root device (a sub-device's allocation
 *    belongs to its root), gives device_id. A view whose label disagrees is refused.
 *  - Import (dlx_view_from_dltensor and the managed-tensor imports, dlx_oneapi_usm_kind): device `id`'s
 *    platform default context must know the pointer (its USM kind there is not unknown). An id out of
 *    range is DLX_ERR_INVALID_DEVICE; a pointer it does not know is DLX_ERR_DEVICE_MISMATCH.
 *
 * Host access: host and shared USM are host-accessible, and dlx's ops (dlx/ops.h, dlx_gemm) run on them
 * with the CPU loops. Device USM is not: ops reading it fail with DLX_ERR_DEVICE_MISMATCH pointing at
 * dlx_copy, which moves data between device USM and host memory (or another device) through the SYCL
 * queue's memcpy, any strides, broadcast and packed sub-byte dtypes included, and returns once done. An
 * op whose output alone is device USM (dlx_fill of one, or an op on host-accessible inputs) is computed
 * into shared-USM scratch and copied into place the same way.
 * Memory dlx allocates on (kDLOneAPI, id): a new tensor (dlx_tensor_empty) is device USM unless
 * dlx_oneapi_set_alloc_kind says otherwise; a tensor made from another one (the result a tensor op
 * allocates, dlx_tensor_empty_like, a compact copy) takes that one's kind when it is host or shared USM,
 * so ops on host-accessible USM give results the host can compute on, and the allocation kind otherwise.
 * Scratch memory of ops is shared USM.
 *
 * Thread safety: every function may be called from any thread. Loading is serialised by a lock; once
 * loaded, the library is never unloaded. The allocation kind is process-wide. */
#ifndef DLX_ONEAPI_H
#define DLX_ONEAPI_H

#include <stdint.h>

#include "dlx/dlpack.h"
#include "dlx/error.h"
#include "dlx/export.h"

DLX_EXTERN_C_BEGIN

/* The kinds of SYCL USM (sycl::usm::alloc), numbered as dpctl's C API numbers them. */
typedef enum dlx_oneapi_usm {
  DLX_ONEAPI_USM_UNKNOWN = 0, /* not USM of the context asked */
  DLX_ONEAPI_USM_DEVICE = 1,  /* device memory: not host-accessible */
  DLX_ONEAPI_USM_SHARED = 2,  /* migrates between host and device: host-accessible */
  DLX_ONEAPI_USM_HOST = 3     /* host memory the device can read: host-accessible */
} dlx_oneapi_usm;

/* Load dpctl's C API from path (a file name dlopen accepts, normally the absolute path of
 * dpctl/libDPCTLSyclInterface.so) and list the SYCL devices. DLX_OK when it is already loaded from the
 * same file. DLX_ERR_NULL_ARGUMENT for NULL; DLX_ERR_INVALID_ARGUMENT (naming path and the reason) when
 * dlopen fails, when the file lacks a dpctl function dlx needs, or when another file is already loaded.
 * A failed load leaves dlx as it was: a later call may load another path. */
DLX_API dlx_status dlx_oneapi_load(const char *path);

/* SYCL root devices (0 when the library is not loaded and DLX_DPCTL_LIBRARY does not name one, or when
 * SYCL finds no device). Tries DLX_DPCTL_LIBRARY the first time it is called before a load. */
DLX_API int dlx_oneapi_device_count(void);

/* The DLPack device of a USM pointer by the export rule above, and (kind, when not NULL) its USM kind.
 * DLX_ERR_NULL_ARGUMENT for out or ptr NULL; DLX_ERR_UNSUPPORTED without the library;
 * DLX_ERR_DEVICE_MISMATCH when no platform's default context knows ptr (host memory, or an allocation
 * bound to another context: "only allocations bound to the default platform context can be exported");
 * DLX_ERR_BACKEND when its root device is not among the devices. */
DLX_API dlx_status dlx_oneapi_pointer_device(const void *ptr, DLDevice *out, dlx_oneapi_usm *kind);

/* The USM kind of ptr in device_id's platform default context: the import rule above (what an imported
 * view's memory is: dlx_oneapi_usm_kind(v->data, v->device.device_id, &k)). Never
 * DLX_ONEAPI_USM_UNKNOWN on success. DLX_ERR_NULL_ARGUMENT for kind or ptr NULL; DLX_ERR_UNSUPPORTED
 * without the library; DLX_ERR_INVALID_DEVICE naming device_id and the device count when out of range;
 * DLX_ERR_DEVICE_MISMATCH when the context does not know ptr ("not bound to the default context of
 * device oneapi:id"). */
DLX_API dlx_status dlx_oneapi_usm_kind(const void *ptr, int32_t device_id, dlx_oneapi_usm *kind);

/* The USM kind of the memory dlx allocates on (kDLOneAPI, id) from now on: DLX_ONEAPI_USM_DEVICE (the
 * default, as dpctl's), _SHARED or _HOST (host-accessible: dlx's ops can then compute on new tensors).
 * A tensor made from host or shared USM keeps that one's kind instead (see above). *previous, when not NULL, receives the kind it replaces. DLX_ERR_INVALID_ARGUMENT for
 * any other value. Needs no library. */
DLX_API dlx_status dlx_oneapi_set_alloc_kind(dlx_oneapi_usm kind, dlx_oneapi_usm *previous);

DLX_EXTERN_C_END

#endif
