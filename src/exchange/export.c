/* Managed-tensor exports of a view over a storage (storage.h): the one exporter of the C API
 * (dlx_tensor_to_managed_versioned) and of the Python module (__dlpack__, the C exchange API).
 *
 * As NumPy does, the managed tensor, its shape and its strides are one allocation. The deleter drops the
 * storage reference and frees the block: no lock, no interpreter, any thread. */
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "exchange/storage.h"

/* The count of live exports is a test hook, and two locked instructions per export (and per delete) are
 * a fair share of an export's cost: exports are counted only once a test asked for the count. Each
 * export's deleter says whether that export was counted, so one made before the first question is never
 * subtracted. */
static _Atomic int64_t exports_alive;
static atomic_bool exports_counted;

int64_t dlx__exports_alive(void) {
  atomic_store_explicit(&exports_counted, true, memory_order_relaxed);
  return atomic_load_explicit(&exports_alive, memory_order_relaxed);
}

static void deleter_versioned(DLManagedTensorVersioned *m) {
  if (m == NULL) return;
  dlx__storage_release(m->manager_ctx);
  free(m);
}

static void deleter_legacy(DLManagedTensor *m) {
  if (m == NULL) return;
  dlx__storage_release(m->manager_ctx);
  free(m);
}

static void deleter_versioned_counted(DLManagedTensorVersioned *m) {
  if (m == NULL) return;
  atomic_fetch_sub_explicit(&exports_alive, 1, memory_order_relaxed);
  deleter_versioned(m);
}

static void deleter_legacy_counted(DLManagedTensor *m) {
  if (m == NULL) return;
  atomic_fetch_sub_explicit(&exports_alive, 1, memory_order_relaxed);
  deleter_legacy(m);
}

/* 1 when this export is counted (the count taken), else 0 */
static int count_export(void) {
  if (!atomic_load_explicit(&exports_counted, memory_order_relaxed)) return 0;
  atomic_fetch_add_explicit(&exports_alive, 1, memory_order_relaxed);
  return 1;
}

/* dl describes v with shape and strides stored at dims (2 * ndim entries). */
static void fill_dltensor(DLTensor *dl, const dlx_view *v, int64_t *dims) {
  const int32_t nd = v->ndim;
  /* CCCL and NumPy: data is NULL when the tensor has no elements */
  dl->data = dlx_view_size(v) ? v->data : NULL;
  dl->device = v->device;
  dl->ndim = nd;
  dl->dtype = v->dtype;
  dl->shape = dims;
  dl->strides = dims + nd;
  dl->byte_offset = 0;
  dlx__copy_dims(dims, v->shape, nd);
  dlx__copy_dims(dims + nd, v->strides, nd);
}

static dlx_status check_rank(const dlx_view *v, const char *fn) {
  DLX_FAIL_IF(v->ndim < 0 || v->ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: ndim %d is out of range [0, %d]", fn,
              (int)v->ndim, DLX_MAX_NDIM);
  return DLX_OK;
}

dlx_status dlx__export_versioned(dlx__storage *s, const dlx_view *v, uint64_t extra_flags, const char *fn,
                                 DLManagedTensorVersioned **out) {
  DLX_FORWARD(check_rank(v, fn));
  DLManagedTensorVersioned *m = malloc(sizeof *m + 2 * (size_t)v->ndim * sizeof(int64_t));
  DLX_FAIL_IF(m == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a managed tensor", fn);
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->manager_ctx = dlx__storage_retain(s);
  m->deleter = count_export() ? deleter_versioned_counted : deleter_versioned;
  m->flags = extra_flags;
  if (v->flags & DLX_VIEW_READ_ONLY) m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  if (v->flags & DLX_VIEW_SUBBYTE_PADDED) m->flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  fill_dltensor(&m->dl_tensor, v, (int64_t *)(m + 1));
  *out = m;
  return DLX_OK;
}

dlx_status dlx__export_legacy(dlx__storage *s, const dlx_view *v, const char *fn, DLManagedTensor **out) {
  DLX_FORWARD(check_rank(v, fn));
  DLManagedTensor *m = malloc(sizeof *m + 2 * (size_t)v->ndim * sizeof(int64_t));
  DLX_FAIL_IF(m == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a managed tensor", fn);
  m->manager_ctx = dlx__storage_retain(s);
  m->deleter = count_export() ? deleter_legacy_counted : deleter_legacy;
  fill_dltensor(&m->dl_tensor, v, (int64_t *)(m + 1));
  *out = m;
  return DLX_OK;
}
