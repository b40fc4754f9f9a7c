/* Views: devices, construction (dlx_view_init, from caller-owned shape and strides, no allocation) and
 * element addresses. Conversion to and from DLTensor lives in src/exchange/dltensor.c; both share the
 * one-pass dimension scan of view_internal.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/view_internal.h"

/* ptrdiff_t strides of dlx_view_init_extents are widened to int64_t without a check. */
_Static_assert(PTRDIFF_MAX <= INT64_MAX, "ptrdiff_t must fit int64_t");

/* ------------------------------------------------------------------------------------------------ */
/* Devices                                                                                          */

static const char *const device_type_names[] = {
    [kDLCPU] = "cpu",
    [kDLCUDA] = "cuda",
    [kDLCUDAHost] = "cuda_host",
    [kDLOpenCL] = "opencl",
    [kDLVulkan] = "vulkan",
    [kDLMetal] = "metal",
    [kDLVPI] = "vpi",
    [kDLROCM] = "rocm",
    [kDLROCMHost] = "rocm_host",
    [kDLExtDev] = "ext_dev",
    [kDLCUDAManaged] = "cuda_managed",
    [kDLOneAPI] = "oneapi",
    [kDLWebGPU] = "webgpu",
    [kDLHexagon] = "hexagon",
    [kDLMAIA] = "maia",
    [kDLTrn] = "trn",
};

bool dlx_device_type_is_known(int32_t device_type) { return dlx__device_in_mask((uint32_t)device_type, DEV_KNOWN_MASK); }

bool dlx_device_is_host_accessible(DLDevice device) {
  return dlx__device_in_mask((uint32_t)device.device_type, DEV_HOST_ACCESSIBLE_MASK);
}

const char *dlx_device_type_name(int32_t device_type) {
  if (!dlx_device_type_is_known(device_type)) return NULL;
  return device_type_names[device_type];
}

dlx_status dlx_device_for(dlx_memspace space, int32_t device_id, DLDevice *out) {
  DLX_CHECK_NULL(out);
  DLX_FAIL_IF(space != DLX_MEMSPACE_HOST && space != DLX_MEMSPACE_DEVICE && space != DLX_MEMSPACE_MANAGED,
              DLX_ERR_INVALID_ARGUMENT, "memory space %d has no device to export with (want HOST, DEVICE or MANAGED)",
              (int)space);
  DLX_FAIL_IF(device_id < 0, DLX_ERR_INVALID_DEVICE, "device id %" PRId32 " is negative", device_id);
  DLDevice d;
  switch (space) {
    case DLX_MEMSPACE_DEVICE:
      d.device_type = kDLCUDA;
      d.device_id = device_id;
      break;
    case DLX_MEMSPACE_MANAGED:
      /* DLPack: device_id is 0 for pinned and managed memory */
      d.device_type = kDLCUDAManaged;
      d.device_id = 0;
      break;
    default:
      d.device_type = kDLCPU;
      d.device_id = 0;
      break;
  }
  *out = d;
  return DLX_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Failures shared with the import                                                                  */

/* The cold diagnosers below re-walk the input to name the first offending value. */

DLX_COLD dlx_status dlx__fail_rank_range(int32_t nd) {
  return dlx_set_error(DLX_ERR_RANK, "ndim %" PRId32 " is out of range [0, %d]", nd, DLX_MAX_NDIM);
}

/* The scan's flags (view_internal.h) with an extent 0 counted as 1: for empty tensors and negative
 * extents, where the scan's own product does not count that way. Not cold: empty tensors are ordinary. */
void dlx__scan_flags_exact(enum scan_mode mode, int32_t nd, const int64_t *oshape, const int64_t *ostrides,
                           scan_state *st) {
  int64_t count = 1, sign = 0;
  uint64_t stride_or = 0;
  bool zero = false, cof = false, bad = false;
  for (int32_t k = 0; k < nd; ++k) {
    const int32_t i = mode == SCAN_RIGHT ? nd - 1 - k : k;
    const int64_t e = oshape[i];
    sign |= e;
    const bool z = e == 0;
    zero |= z;
    if (mode != SCAN_SHAPE) {
      const int64_t s = ostrides[i];
      if (mode == SCAN_RIGHT || mode == SCAN_LEFT) bad |= (e != 1) & (s != count);
      if (mode == SCAN_STRIDE) bad |= (e > 1) & (s <= 0);
      if (mode == SCAN_STRIDE) stride_or |= (uint64_t)s;
      if (mode == SCAN_ANY) stride_or |= dlx__abs_u64(s);
    }
    cof |= __builtin_mul_overflow(count, e | (int64_t)z, &count);
  }
  st->count = count;
  st->zero = zero;
  st->stride_or = stride_or;
  st->sign = sign;
  st->count_overflow = cof;
  st->bad = bad;
}

DLX_COLD dlx_status dlx__fail_negative_extent(int32_t nd, const int64_t *shape) {
  for (int32_t i = 0; i < nd; ++i)
    if (shape[i] < 0)
      return dlx_set_error(DLX_ERR_NEGATIVE_EXTENT, "shape[%" PRId32 "] is %" PRId64, i, shape[i]);
  return dlx_set_error(DLX_ERR_NEGATIVE_EXTENT, "shape has a negative extent");
}

DLX_COLD dlx_status dlx__fail_count_overflow(int32_t nd, const int64_t *shape) {
  int64_t n = 1;
  bool zero = false;
  for (int32_t i = 0; i < nd; ++i) zero |= shape[i] == 0;
  for (int32_t i = 0; i < nd; ++i)
    if (__builtin_mul_overflow(n, shape[i] > 0 ? shape[i] : 1, &n))
      return dlx_set_error(DLX_ERR_OVERFLOW, "element count overflows int64 at shape[%" PRId32 "] = %" PRId64 "%s", i,
                           shape[i], zero ? " (extents of 0 counted as 1, as NumPy does)" : "");
  return dlx_set_error(DLX_ERR_OVERFLOW, "element count overflows int64");
}

DLX_COLD dlx_status dlx__fail_null_data(int64_t count) {
  return dlx_set_error(DLX_ERR_NULL_DATA, "data is NULL but the tensor has %" PRId64 " elements", count);
}

DLX_COLD dlx_status dlx__fail_null_args(const char *func, const char *const *names, const void *const *ptrs,
                                          int n) {
  for (int i = 0; i < n; ++i)
    if (ptrs[i] == NULL)
      return dlx_set_error(DLX_ERR_NULL_ARGUMENT, "%s: argument '%s' is NULL", func, names[i]);
  return dlx_set_error(DLX_ERR_NULL_ARGUMENT, "%s: a NULL argument", func);
}

/* ------------------------------------------------------------------------------------------------ */
/* The span rule shared with the import (view_internal.h)                                           */

/* The elements' extent in units (bytes, or bits for sub-byte dtypes) does not fit int64: name the first
 * dimension at which the running sum, last element included, stops fitting. */
DLX_COLD static dlx_status fail_span_overflow(int32_t nd, const int64_t *shape, const int64_t *strides,
                                              uint64_t unit, const char *unit_name) {
  uint64_t total = unit;
  for (int32_t i = 0; strides != NULL && i < nd; ++i) {
    uint64_t term;
    if (__builtin_mul_overflow((uint64_t)shape[i] - 1u, dlx__abs_u64(strides[i]), &term) ||
        __builtin_mul_overflow(term, unit, &term) || __builtin_add_overflow(total, term, &total) ||
        total > (uint64_t)INT64_MAX)
      return dlx_set_error(DLX_ERR_OVERFLOW,
                           "byte span overflows int64 at shape[%" PRId32 "] = %" PRId64 ", strides[%" PRId32
                           "] = %" PRId64 " (%" PRIu64 " %s per item)",
                           i, shape[i], i, strides[i], unit, unit_name);
  }
  return dlx_set_error(DLX_ERR_OVERFLOW, "byte span of the %" PRId32 "-d tensor (%" PRIu64 " %s per item) overflows int64",
                       nd, unit, unit_name);
}

DLX_COLD static dlx_status fail_address_range(uintptr_t addr, uint64_t below, uint64_t above) {
  if (below > addr)
    return dlx_set_error(DLX_ERR_OVERFLOW, "the elements reach %" PRIu64 " bytes below element 0 at %p, below address 0",
                         below, (void *)addr);
  return dlx_set_error(DLX_ERR_OVERFLOW,
                       "the elements reach %" PRIu64 " bytes past element 0 at %p, beyond the address space", above,
                       (void *)addr);
}

/* view_internal.h: a large tensor, large strides, or garbage on an extent-1 dim come here. */
dlx_status dlx__exact_extent(int32_t nd, const int64_t *shape, const int64_t *strides, uint64_t below, uint64_t above,
                             bool has_addr, uintptr_t addr, size_t itemsize, bool subbyte, uint64_t unit) {
  const char *unit_name = subbyte ? "bits" : "bytes";
  if (strides != NULL) {
    uint64_t total = 0, neg = 0;
    bool overflow = false;
    for (int32_t i = 0; i < nd; ++i) {
      uint64_t term;
      overflow |= __builtin_mul_overflow((uint64_t)shape[i] - 1u, dlx__abs_u64(strides[i]), &term);
      overflow |= __builtin_add_overflow(total, term, &total);
      if (strides[i] < 0) neg += term; /* <= total, so it cannot wrap unless overflow is set */
    }
    if (overflow) return fail_span_overflow(nd, shape, strides, unit, unit_name);
    below = neg;
    above = total - neg;
  }
  if (!dlx__extent_fits(below, above, below + above, false, 0, itemsize, unit))
    return fail_span_overflow(nd, shape, strides, unit, unit_name);
  if (!dlx__extent_fits(below, above, below + above, has_addr, addr, itemsize, unit))
    return fail_address_range(addr, below * itemsize, (above + 1u) * itemsize);
  return DLX_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Construction                                                                                     */

dlx_status dlx_view_init(dlx_view *v, void *data, DLDataType dtype, DLDevice device, int32_t ndim,
                         const int64_t *shape, const int64_t *strides) {
  DLX_CHECK_NULL(v);
  if (DLX_UNLIKELY((uint32_t)ndim > DLX_MAX_NDIM)) return dlx__fail_rank_range(ndim);
  DLX_FORWARD(dlx_dtype_check(dtype));
  DLX_FAIL_IF(!dlx_device_type_is_known((int32_t)device.device_type), DLX_ERR_INVALID_DEVICE,
              "unknown device type %d", (int)device.device_type);
  DLX_FAIL_IF(ndim > 0 && shape == NULL, DLX_ERR_NULL_SHAPE, "shape is NULL with ndim %" PRId32, ndim);
  /* The import's checks in the import's order (dlx_view_from_dltensor under DLX_LAYOUT_ANY), so that a
   * view init makes exports and imports back, and what init refuses import refuses with the same status.
   * dlx_view_init_extents passes v's own arrays: the scan reads each entry before it writes it. */
  scan_state st;
  if (strides != NULL)
    dlx__scan_dims(SCAN_ANY, ndim, shape, strides, v->shape, v->strides, &st);
  else
    dlx__scan_dims(SCAN_SHAPE, ndim, shape, NULL, v->shape, NULL, &st);
  if (DLX_UNLIKELY(st.sign < 0)) return dlx__fail_negative_extent(ndim, shape);
  if (DLX_UNLIKELY(st.count_overflow)) return dlx__fail_count_overflow(ndim, shape);
  if (strides == NULL) dlx__fill_compact_strides(ndim, v->shape, v->strides, false);
  if (DLX_UNLIKELY(data == NULL && !st.zero)) return dlx__fail_null_data(st.count);
  if (!st.zero) {
    /* row-major strides make below and above exact; given ones, a bound the strides decide when needed
     * (passed either way, so that a failure names the dimension) */
    const uint64_t above = strides != NULL ? dlx__span_bound(&st) : (uint64_t)st.count - 1u;
    const uint64_t below = strides != NULL ? above : 0;
    DLX_FORWARD(dlx__check_span(ndim, v->shape, v->strides, below, above, true, (uintptr_t)data, dtype));
  }
  v->data = data;
  v->dtype = dtype;
  v->device = device;
  v->ndim = ndim;
  v->flags = 0;
  return DLX_OK;
}

dlx_status dlx_view_init_extents(dlx_view *v, void *data, DLDataType dtype, DLDevice device, int32_t ndim,
                                 const size_t *extents, const ptrdiff_t *strides) {
  DLX_CHECK_NULL(v);
  if (DLX_UNLIKELY((uint32_t)ndim > DLX_MAX_NDIM)) return dlx__fail_rank_range(ndim);
  DLX_FAIL_IF(ndim > 0 && extents == NULL, DLX_ERR_NULL_SHAPE, "extents is NULL with ndim %" PRId32, ndim);
  for (int32_t i = 0; i < ndim; ++i) {
    /* CCCL's rule: an extent that int64_t cannot represent is a runtime error, not a wrap */
    DLX_FAIL_IF((uint64_t)extents[i] > (uint64_t)INT64_MAX, DLX_ERR_OVERFLOW,
                "extent[%" PRId32 "] = %zu does not fit int64", i, extents[i]);
    v->shape[i] = (int64_t)extents[i];
  }
  if (strides != NULL)
    for (int32_t i = 0; i < ndim; ++i) v->strides[i] = (int64_t)strides[i];
  return dlx_view_init(v, data, dtype, device, ndim, v->shape, strides != NULL ? v->strides : NULL);
}

/* ------------------------------------------------------------------------------------------------ */
/* Element access                                                                                   */

DLX_COLD static dlx_status fail_index(const dlx_view *v, const int64_t *index) {
  for (int32_t i = 0; i < v->ndim; ++i)
    if (index[i] < 0 || index[i] >= v->shape[i])
      return dlx_set_error(DLX_ERR_INDEX, "index %" PRId64 " is out of range [0, %" PRId64 ") in dim %" PRId32,
                           index[i], v->shape[i], i);
  return dlx_set_error(DLX_ERR_INDEX, "index out of range");
}

dlx_status dlx_view_offset(const dlx_view *v, const int64_t *index, int64_t *offset) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(offset);
  const int32_t nd = v->ndim;
  if (DLX_UNLIKELY((uint32_t)nd > DLX_MAX_NDIM)) return dlx__fail_rank_range(nd);
  DLX_FAIL_IF(nd > 0 && index == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'index' is NULL with ndim %" PRId32,
              __func__, nd);
  int64_t off = 0;
  bool out_of_range = false, overflow = false;
  for (int32_t i = 0; i < nd; ++i) {
    const int64_t idx = index[i];
    int64_t term;
    out_of_range |= (idx < 0) | (idx >= v->shape[i]);
    overflow |= __builtin_mul_overflow(idx, v->strides[i], &term);
    overflow |= __builtin_add_overflow(off, term, &off);
  }
  if (DLX_UNLIKELY(out_of_range)) return fail_index(v, index);
  /* a view made by dlx never gets here; a hand-filled one might */
  DLX_FAIL_IF(overflow, DLX_ERR_OVERFLOW, "offset of the index overflows int64 (ndim %" PRId32 ")", nd);
  *offset = off;
  return DLX_OK;
}

dlx_status dlx_view_element_ptr(const dlx_view *v, const int64_t *index, void **ptr) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(ptr);
  if (DLX_UNLIKELY(dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0)) {
    char name[DLX_DTYPE_NAME_MAX + 48];
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: packed sub-byte dtype %s has no per-element byte address",
                         __func__, dlx__dtype_text(name, sizeof name, v->dtype));
  }
  int64_t off = 0; /* set on success; initialised for gcc -O3's maybe-uninitialized */
  DLX_FORWARD(dlx_view_offset(v, index, &off));
  int64_t bytes;
  DLX_FAIL_IF(__builtin_mul_overflow(off, (int64_t)dlx_dtype_itemsize(v->dtype), &bytes), DLX_ERR_OVERFLOW,
              "byte offset of element %" PRId64 " overflows int64", off);
  /* unsigned arithmetic: a negative offset (negative strides) wraps to the right address */
  *ptr = (void *)((uintptr_t)v->data + (uintptr_t)bytes);
  return DLX_OK;
}
