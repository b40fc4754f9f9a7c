/* dlx/view.h - strided views and their conversion to and from DLTensor.
 *
 * A dlx_view is the C analog of cuda::host_mdspan / device_mdspan / managed_mdspan: a caller-owned struct
 * holding the data pointer, dtype, device, rank, shape and strides inline for any rank NumPy can make.
 * Nothing here allocates. Strides are in elements, as in DLPack.
 *
 * Export (dlx_view_to_dltensor) follows CCCL's cuda::to_dlpack_tensor: a holder owns the shape/strides
 * storage, data is NULL when the view has no elements, byte_offset is 0.
 * Import (dlx_view_from_dltensor) follows CCCL's cuda::to_host_mdspan family, one status per runtime
 * error. Deliberate differences from CCCL:
 *  - an empty tensor (some extent 0) may have NULL data: CCCL refuses it, so its own export of an empty
 *    mdspan cannot be re-imported (CCCL issue 11605). Its strides are not checked either, as DLPack allows
 *    garbage strides there.
 *  - a dimension of extent 1 may carry any stride under DLX_LAYOUT_RIGHT / LEFT / STRIDE, because
 *    PyTorch used to rewrite those strides and the stride of such a dimension is never used.
 *  - DLX_MEMSPACE_HOST accepts pinned memory (kDLCUDAHost, kDLROCMHost) as well as kDLCPU: CuPy labels
 *    pinned memory kDLCPU and PyTorch kDLCUDAHost, so a consumer must take both.
 *  - DLX_LAYOUT_ANY is added for consumers that handle zero (broadcast) and negative strides.
 * Thread safety: all functions are reentrant; they touch only their arguments (and the thread's error). */
#ifndef DLX_VIEW_H
#define DLX_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dlx/dlpack.h"
#include "dlx/dtype.h"
#include "dlx/error.h"
#include "dlx/export.h"

DLX_EXTERN_C_BEGIN

/* The largest rank a view holds: NumPy's limit (NPY_MAXDIMS is 64 since NumPy 2.0). */
#define DLX_MAX_NDIM 64

/* Memory spaces, as CCCL's three mdspan kinds. */
typedef enum dlx_memspace {
  DLX_MEMSPACE_ANY = 0, /* import only: any known device type */
  DLX_MEMSPACE_HOST,    /* kDLCPU; on import also the pinned kDLCUDAHost and kDLROCMHost */
  DLX_MEMSPACE_DEVICE,  /* kDLCUDA */
  DLX_MEMSPACE_MANAGED  /* kDLCUDAManaged */
} dlx_memspace;

/* Layout policies, as cuda::std::layout_stride / layout_right / layout_left, plus ANY. */
typedef enum dlx_layout {
  DLX_LAYOUT_STRIDE = 0, /* strided; every stride of an extent > 1 must be positive (CCCL) */
  DLX_LAYOUT_RIGHT,      /* C-contiguous, row-major */
  DLX_LAYOUT_LEFT,       /* Fortran-contiguous, column-major */
  DLX_LAYOUT_ANY         /* strided with any int64 strides: zero (broadcast) and negative too */
} dlx_layout;

/* dlx_view.flags */
#define DLX_VIEW_READ_ONLY 1u       /* the producer said the data must not be written */
#define DLX_VIEW_SUBBYTE_PADDED 2u  /* sub-byte elements each take a whole byte (DLPack PADDED flag) */

typedef struct dlx_view {
  void *data;        /* address of element 0, byte_offset already applied; NULL allowed when empty */
  DLDataType dtype;
  DLDevice device;
  int32_t ndim;
  uint32_t flags;    /* DLX_VIEW_* */
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_MAX_NDIM]; /* elements */
} dlx_view;

/* The device a memory space exports with: {kDLCPU,0}, {kDLCUDA,device_id}, {kDLCUDAManaged,0}.
 * DLX_ERR_INVALID_ARGUMENT for DLX_MEMSPACE_ANY or an unknown value; DLX_ERR_INVALID_DEVICE for a
 * negative device_id. */
DLX_API dlx_status dlx_device_for(dlx_memspace space, int32_t device_id, DLDevice *out);

/* True when device_type is one of the DLPack 1.3 device types (1..4, 7..18). */
DLX_API bool dlx_device_type_is_known(int32_t device_type);

/* True for memory the CPU can read: kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged. */
DLX_API bool dlx_device_is_host_accessible(DLDevice device);

/* Static name of a device type ("cpu", "cuda", "cuda_host", "cuda_managed", ...) or NULL. */
DLX_API const char *dlx_device_type_name(int32_t device_type);

/* Fill *v from int64 shape and strides (strides NULL = row-major). Validates, with the import's statuses
 * and in the import's order: ndim in [0, 64] (RANK), a legal dtype (INVALID_DTYPE), a known device type
 * (INVALID_DEVICE), shape not NULL when ndim > 0 (NULL_SHAPE), non-negative extents (NEGATIVE_EXTENT),
 * the element count in int64 (OVERFLOW; extents of 0 counted as 1, as NumPy does, so that no partial
 * product of a view's extents overflows), non-NULL data when the view has elements (NULL_DATA), and for
 * a view with elements the import's span rule (OVERFLOW, naming the dimension): the elements' extent,
 * last element included, fits int64 in bytes (in bits for a packed sub-byte dtype), and every element's
 * address lies in [0, UINTPTR_MAX]. So a view init accepts exports and imports back (DLX_LAYOUT_ANY),
 * and a view init refuses the import refuses with the same status. flags start at 0. */
DLX_API dlx_status dlx_view_init(dlx_view *v, void *data, DLDataType dtype, DLDevice device, int32_t ndim,
                                 const int64_t *shape, const int64_t *strides);

/* As dlx_view_init from the unsigned extents and signed strides an mdspan has (size_t, ptrdiff_t):
 * DLX_ERR_OVERFLOW when an extent does not fit int64_t (CCCL's to_dlpack_tensor raises a runtime error there). */
DLX_API dlx_status dlx_view_init_extents(dlx_view *v, void *data, DLDataType dtype, DLDevice device,
                                         int32_t ndim, const size_t *extents, const ptrdiff_t *strides);

/* Number of elements (product of the extents; 1 for ndim 0). Views made by dlx never overflow it. */
static inline int64_t dlx_view_size(const dlx_view *v) {
  int64_t n = 1;
  for (int32_t i = 0; i < v->ndim; ++i) n *= v->shape[i];
  return n;
}

/* A DLTensor together with the storage its shape and strides point to; no heap allocation.
 * The DLTensor is valid while the holder is alive and unmoved: copy the holder, and the copy's
 * tensor.shape still points into the original. */
typedef struct dlx_dltensor {
  DLTensor tensor;
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_MAX_NDIM];
} dlx_dltensor;

/* Export v as a non-owning DLTensor in *out (CCCL's to_dlpack_tensor rules): data NULL when v has no elements, byte_offset 0,
 * the view's device. Device memory's label is checked against its pointer where the runtime that owns
 * it can be asked (CUDA device and managed memory in builds with CUDA and a device present; oneAPI USM
 * once dpctl's C API is loaded): a label that disagrees is DLX_ERR_DEVICE_MISMATCH naming both. The
 * check comes with dlx's backends; a program that links only the exchange functions takes labels as
 * given.
 * v is checked as dlx_view_init checks its arguments (a dlx_view may be filled by hand), with the same
 * statuses, so that whatever is exported imports back: a view with an illegal dtype, an unknown device
 * type, a negative extent, NULL data with elements, or an element count, span or address range that
 * does not fit is refused, and *out is then unspecified. Ordinary views cost a few nanoseconds more. */
DLX_API dlx_status dlx_view_to_dltensor(const dlx_view *v, dlx_dltensor *out);

/* What an importer requires of a tensor. */
typedef struct dlx_import_spec {
  DLDataType dtype;      /* required dtype, or DLX_DTYPE_ANY (any legal dtype) */
  int32_t ndim;          /* required rank, or DLX_NDIM_ANY */
  dlx_memspace memspace; /* required memory space, or DLX_MEMSPACE_ANY */
  dlx_layout layout;     /* required layout */
  uint32_t version;      /* DLPack version the tensor came with: DLX_DLPACK_VERSION_NUM(major, minor),
                            DLX_DLPACK_VERSION_LEGACY for legacy capsules. Decides what NULL strides mean. */
  uint32_t alignment;    /* required alignment of the element-0 address in bytes (a power of two);
                            0 = the dtype's natural alignment (dlx_dtype_alignment) */
} dlx_import_spec;

#define DLX_DTYPE_ANY DLX_DTYPE_MAKE(0, 0, 0) /* lanes 0 never names a legal dtype */
#define DLX_NDIM_ANY (-1)

/* Import t as a view (CCCL's mdspan checks). Checks, each with its own status and a message naming the values:
 * ndim range and required rank (RANK); dtype legality (INVALID_DTYPE) and required dtype (DTYPE_MISMATCH);
 * known device type (INVALID_DEVICE) and memory space (DEVICE_MISMATCH); NULL shape with ndim > 0
 * (NULL_SHAPE); negative extents (NEGATIVE_EXTENT); NULL data with elements (NULL_DATA); NULL strides for
 * DLPack >= 1.2, or for LAYOUT_LEFT with rank > 1 (NULL_STRIDES; older tensors' NULL strides mean
 * row-major); non-positive strides under LAYOUT_STRIDE (BAD_STRIDE); strides that are not the requested
 * compact layout (LAYOUT_MISMATCH); element count (0 counted as 1, as in dlx_view_init), byte span, or
 * data + byte_offset that overflow, or elements outside the address space (OVERFLOW); the element-0
 * address not a multiple of the alignment (MISALIGNED). byte_offset is applied to data. An empty view
 * gets compact strides (column-major under LAYOUT_LEFT, row-major otherwise). */
DLX_API dlx_status dlx_view_from_dltensor(dlx_view *out, const DLTensor *t, const dlx_import_spec *spec);

/* Import a versioned managed tensor: version.major must be 1 (DLX_ERR_VERSION otherwise; the version
 * in spec is replaced by the tensor's own), READ_ONLY and IS_SUBBYTE_TYPE_PADDED become view flags.
 * The managed tensor stays owned by the caller. */
DLX_API dlx_status dlx_view_from_managed_versioned(dlx_view *out, const DLManagedTensorVersioned *m,
                                                   const dlx_import_spec *spec);

/* Import a legacy managed tensor: imported as DLPack < 1.2 (NULL strides mean row-major). */
DLX_API dlx_status dlx_view_from_managed(dlx_view *out, const DLManagedTensor *m, const dlx_import_spec *spec);

/* Offset in elements of the element at index[0..ndim) from element 0. Indices must satisfy
 * 0 <= index[i] < shape[i] (DLX_ERR_INDEX otherwise: no wrap-around). */
DLX_API dlx_status dlx_view_offset(const dlx_view *v, const int64_t *index, int64_t *offset);

/* Address of the element at index (dlx_view_offset scaled by the item size). Byte-sized dtypes only:
 * DLX_ERR_UNSUPPORTED for packed sub-byte dtypes. */
DLX_API dlx_status dlx_view_element_ptr(const dlx_view *v, const int64_t *index, void **ptr);

DLX_EXTERN_C_END

#endif
