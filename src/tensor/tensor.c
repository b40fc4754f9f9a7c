/* Refcounted tensors (dlx/tensor.h): a view over a shared storage.
 *
 * Two counts, both atomic: a tensor's (retain/release of one handle) and its storage's (how many tensors
 * and exports use the memory). Views made from a tensor are new tensors on the same storage, so
 * releasing the original never invalidates them. The storage either owns a 64-byte aligned allocation
 * or holds a producer's managed tensor, whose deleter runs exactly once, when the last user goes away,
 * on whichever thread that is (DLPack allows any). Exports (dlx_tensor_to_managed_versioned) count as
 * users: their deleter only drops a storage reference, so it needs no lock and no interpreter. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/layout.h"
#include "dlx/tensor.h"

typedef struct dlx_storage {
  _Atomic int64_t refs;
  void *owned;                          /* aligned_alloc block, or NULL */
  DLManagedTensorVersioned *managed_v;  /* borrowed producers' tensors, or NULL */
  DLManagedTensor *managed;
} dlx_storage;

struct dlx_tensor {
  _Atomic int64_t refs;
  dlx_storage *storage;
  dlx_view view;
};

static void storage_retain(dlx_storage *s) { atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed); }

static void storage_release(dlx_storage *s) {
  /* acq_rel: every user's writes happen before the deleter or free that follows the last release */
  if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1) return;
  if (s->managed_v != NULL && s->managed_v->deleter != NULL) s->managed_v->deleter(s->managed_v);
  if (s->managed != NULL && s->managed->deleter != NULL) s->managed->deleter(s->managed);
  free(s->owned);
  free(s);
}

static dlx_storage *storage_new(void) {
  dlx_storage *s = calloc(1, sizeof *s);
  if (s != NULL) atomic_init(&s->refs, 1);
  return s;
}

/* A tensor with view v on storage s; takes a new reference on s. */
static dlx_status tensor_new(dlx_tensor **out, dlx_storage *s, const dlx_view *v, const char *fn) {
  dlx_tensor *t = malloc(sizeof *t);
  DLX_FAIL_IF(t == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a tensor", fn);
  atomic_init(&t->refs, 1);
  storage_retain(s);
  t->storage = s;
  t->view = *v;
  *out = t;
  return DLX_OK;
}

dlx_tensor *dlx_tensor_retain(dlx_tensor *t) {
  if (t != NULL) atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
  return t;
}

void dlx_tensor_release(dlx_tensor *t) {
  if (t == NULL) return;
  if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1) return;
  storage_release(t->storage);
  free(t);
}

const dlx_view *dlx_tensor_view(const dlx_tensor *t) { return t == NULL ? NULL : &t->view; }

/* ---- owned tensors -------------------------------------------------------------------------------- */

static dlx_status tensor_alloc(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype,
                               DLDevice device, bool padded, const char *fn) {
  if (device.device_type != kDLCPU) {
    const char *name = dlx_device_type_name((int32_t)device.device_type);
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: cannot allocate on %s:%d (host memory only, no device backend)",
                         fn, name != NULL ? name : "an unknown device type", (int)device.device_id);
  }
  DLX_FAIL_IF(device.device_id != 0, DLX_ERR_INVALID_DEVICE, "%s: cpu device id %d (must be 0)", fn,
              (int)device.device_id);
  /* validates rank, dtype, extents and the element count before anything is allocated */
  dlx_view v;
  static char placeholder;
  DLX_FORWARD(dlx_view_init(&v, &placeholder, dtype, device, ndim, shape, NULL));
  uint64_t bytes;
  const bool pad = padded && dlx_dtype_is_subbyte(dtype);
  DLX_FORWARD(dlx_dtype_storage_bytes(dtype, (uint64_t)dlx_view_size(&v), pad, &bytes));
  DLX_FAIL_IF(bytes > (uint64_t)PTRDIFF_MAX - 64, DLX_ERR_OUT_OF_MEMORY, "%s: %llu bytes cannot be allocated", fn,
              (unsigned long long)bytes);
  /* aligned_alloc wants a multiple of the alignment; an empty tensor still gets a (small) block */
  const size_t size = bytes == 0 ? 64 : (size_t)((bytes + 63u) & ~(uint64_t)63u);
  dlx_storage *s = storage_new();
  void *mem = s != NULL ? aligned_alloc(64, size) : NULL;
  if (mem == NULL) {
    free(s);
    return dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %llu bytes", fn, (unsigned long long)bytes);
  }
  s->owned = mem;
  v.data = mem;
  if (pad) v.flags |= DLX_VIEW_SUBBYTE_PADDED;
  dlx_status st = tensor_new(out, s, &v, fn);
  storage_release(s); /* the tensor holds it now (or nobody, on failure) */
  return st;
}

dlx_status dlx_tensor_empty(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype, DLDevice device) {
  DLX_CHECK_NULL(out);
  DLX_FAIL_IF(shape == NULL && ndim > 0, DLX_ERR_NULL_ARGUMENT, "dlx_tensor_empty: argument 'shape' is NULL with ndim %d",
              (int)ndim);
  return tensor_alloc(out, ndim, shape, dtype, device, false, "dlx_tensor_empty");
}

dlx_status dlx_tensor_empty_like(dlx_tensor **out, const dlx_tensor *t) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(t);
  return tensor_alloc(out, t->view.ndim, t->view.shape, t->view.dtype, t->view.device,
                      (t->view.flags & DLX_VIEW_SUBBYTE_PADDED) != 0, "dlx_tensor_empty_like");
}

/* ---- borrowed managed tensors ------------------------------------------------------------------- */

/* Any valid DLPack tensor: any dtype, rank, device and strides, at any address (the kernels handle
 * misaligned data, so refusing it would only lose producers). */
static const dlx_import_spec take_spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 1};

dlx_status dlx_tensor_from_managed_versioned(dlx_tensor **out, DLManagedTensorVersioned *m) {
  DLX_CHECK_NULL(m);
  dlx_status st;
  dlx_view v;
  dlx_storage *s = NULL;
  if (out == NULL) {
    st = dlx_set_error(DLX_ERR_NULL_ARGUMENT, "dlx_tensor_from_managed_versioned: argument 'out' is NULL");
  } else if ((st = dlx_view_from_managed_versioned(&v, m, &take_spec)) == DLX_OK) {
    s = storage_new();
    if (s == NULL) st = dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "dlx_tensor_from_managed_versioned: out of memory");
  }
  if (st != DLX_OK) {
    /* ownership was passed in: the producer's memory is released either way */
    if (m->deleter != NULL) m->deleter(m);
    return st;
  }
  s->managed_v = m;
  st = tensor_new(out, s, &v, "dlx_tensor_from_managed_versioned");
  storage_release(s); /* on failure this runs the deleter */
  return st;
}

dlx_status dlx_tensor_from_managed(dlx_tensor **out, DLManagedTensor *m) {
  DLX_CHECK_NULL(m);
  dlx_status st;
  dlx_view v;
  dlx_storage *s = NULL;
  if (out == NULL) {
    st = dlx_set_error(DLX_ERR_NULL_ARGUMENT, "dlx_tensor_from_managed: argument 'out' is NULL");
  } else if ((st = dlx_view_from_managed(&v, m, &take_spec)) == DLX_OK) {
    s = storage_new();
    if (s == NULL) st = dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "dlx_tensor_from_managed: out of memory");
  }
  if (st != DLX_OK) {
    if (m->deleter != NULL) m->deleter(m);
    return st;
  }
  s->managed = m;
  st = tensor_new(out, s, &v, "dlx_tensor_from_managed");
  storage_release(s);
  return st;
}

/* ---- export ------------------------------------------------------------------------------------- */

/* One allocation: the managed tensor, the storage it keeps alive, then shape and strides. */
typedef struct export_block {
  DLManagedTensorVersioned m;
  dlx_storage *storage;
  int64_t dims[]; /* shape[ndim], strides[ndim] */
} export_block;

static void export_deleter(DLManagedTensorVersioned *m) {
  export_block *b = (export_block *)m->manager_ctx;
  storage_release(b->storage);
  free(b);
}

dlx_status dlx_tensor_to_managed_versioned(dlx_tensor *t, DLManagedTensorVersioned **out) {
  DLX_CHECK_NULL(t);
  DLX_CHECK_NULL(out);
  dlx_dltensor holder;
  DLX_FORWARD(dlx_view_to_dltensor(&t->view, &holder));
  const int32_t nd = t->view.ndim;
  export_block *b = malloc(sizeof *b + (size_t)(2 * (nd > 0 ? nd : 1)) * sizeof(int64_t));
  DLX_FAIL_IF(b == NULL, DLX_ERR_OUT_OF_MEMORY, "dlx_tensor_to_managed_versioned: out of memory");
  memset(&b->m, 0, sizeof b->m);
  b->m.version.major = DLPACK_MAJOR_VERSION;
  b->m.version.minor = DLPACK_MINOR_VERSION;
  b->m.manager_ctx = b;
  b->m.deleter = export_deleter;
  if (t->view.flags & DLX_VIEW_READ_ONLY) b->m.flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  if (t->view.flags & DLX_VIEW_SUBBYTE_PADDED) b->m.flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  b->m.dl_tensor = holder.tensor;
  memcpy(b->dims, holder.shape, (size_t)nd * sizeof(int64_t));
  memcpy(b->dims + nd, holder.strides, (size_t)nd * sizeof(int64_t));
  b->m.dl_tensor.shape = b->dims;
  b->m.dl_tensor.strides = b->dims + nd;
  storage_retain(t->storage);
  b->storage = t->storage;
  *out = &b->m;
  return DLX_OK;
}

/* ---- views ---------------------------------------------------------------------------------------- */

static dlx_status wrap(dlx_tensor **out, dlx_tensor *t, const dlx_view *v, const char *fn) {
  return tensor_new(out, t->storage, v, fn);
}

#define VIEW_OP(fn, call)                                                                              \
  DLX_CHECK_NULL(out);                                                                                \
  DLX_CHECK_NULL(t);                                                                                  \
  dlx_view v;                                                                                         \
  DLX_FORWARD(call);                                                                                  \
  return wrap(out, t, &v, fn)

dlx_status dlx_tensor_index(dlx_tensor **out, dlx_tensor *t, int64_t i) {
  VIEW_OP("dlx_tensor_index", dlx_view_index(&t->view, 0, i, &v));
}

dlx_status dlx_tensor_subscript(dlx_tensor **out, dlx_tensor *t, int32_t n, const dlx_index_item *items) {
  VIEW_OP("dlx_tensor_subscript", dlx_view_subscript(&t->view, n, items, &v));
}

dlx_status dlx_tensor_permute(dlx_tensor **out, dlx_tensor *t, const int32_t *perm) {
  VIEW_OP("dlx_tensor_permute", dlx_view_permute(&t->view, perm, &v));
}

dlx_status dlx_tensor_transpose(dlx_tensor **out, dlx_tensor *t) {
  VIEW_OP("dlx_tensor_transpose", dlx_view_transpose(&t->view, &v));
}

dlx_status dlx_tensor_reshape(dlx_tensor **out, dlx_tensor *t, int32_t ndim, const int64_t *shape) {
  VIEW_OP("dlx_tensor_reshape", dlx_view_reshape(&t->view, ndim, shape, &v));
}

dlx_status dlx_tensor_broadcast_to(dlx_tensor **out, dlx_tensor *t, int32_t ndim, const int64_t *shape) {
  VIEW_OP("dlx_tensor_broadcast_to", dlx_view_broadcast_to(&t->view, ndim, shape, &v));
}

dlx_status dlx_tensor_squeeze(dlx_tensor **out, dlx_tensor *t, int32_t dim) {
  VIEW_OP("dlx_tensor_squeeze", dlx_view_squeeze(&t->view, dim, &v));
}

dlx_status dlx_tensor_unsqueeze(dlx_tensor **out, dlx_tensor *t, int32_t dim) {
  VIEW_OP("dlx_tensor_unsqueeze", dlx_view_unsqueeze(&t->view, dim, &v));
}

dlx_status dlx_tensor_reshape_copy(dlx_tensor **out, dlx_tensor *t, int32_t ndim, const int64_t *shape) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(t);
  dlx_view v;
  dlx_status st = dlx_view_reshape(&t->view, ndim, shape, &v);
  if (st == DLX_OK) return wrap(out, t, &v, "dlx_tensor_reshape_copy");
  if (st != DLX_ERR_LAYOUT_MISMATCH) return st;
  /* the strides forbid a view: copy into C order, where every reshape is a view */
  dlx_clear_error();
  dlx_tensor *c;
  DLX_FORWARD(tensor_alloc(&c, t->view.ndim, t->view.shape, t->view.dtype, (DLDevice){kDLCPU, 0},
                           (t->view.flags & DLX_VIEW_SUBBYTE_PADDED) != 0, "dlx_tensor_reshape_copy"));
  st = dlx_copy(&c->view, &t->view);
  if (st == DLX_OK) st = dlx_view_reshape(&c->view, ndim, shape, &v);
  if (st == DLX_OK) st = wrap(out, c, &v, "dlx_tensor_reshape_copy");
  dlx_tensor_release(c);
  return st;
}

/* ---- ops with optional outputs -------------------------------------------------------------------- */

/* *out when given, else a new host tensor of (ndim, shape, dtype); *fresh says which. */
static dlx_status out_tensor(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype, bool *fresh,
                             const char *fn) {
  *fresh = false;
  if (*out != NULL) return DLX_OK;
  DLX_FORWARD(tensor_alloc(out, ndim, shape, dtype, (DLDevice){kDLCPU, 0}, false, fn));
  *fresh = true;
  return DLX_OK;
}

/* A freshly allocated output is dropped again when the op fails, so *out is NULL as it came in. */
static dlx_status finish(dlx_tensor **out, bool fresh, dlx_status st) {
  if (st != DLX_OK && fresh) {
    dlx_tensor_release(*out);
    *out = NULL;
  }
  return st;
}

static dlx_status broadcast2(const dlx_tensor *a, const dlx_tensor *b, int32_t *nd, int64_t *shape) {
  const int32_t ndims[2] = {a->view.ndim, b->view.ndim};
  const int64_t *shapes[2] = {a->view.shape, b->view.shape};
  return dlx_broadcast_shapes(2, ndims, shapes, nd, shape);
}

dlx_status dlx_tensor_binary(dlx_binop op, dlx_tensor **out, dlx_tensor *a, dlx_tensor *b) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_OP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_tensor_binary: op %d is not a dlx_binop (0..%d)", (int)op, DLX_OP_COUNT - 1);
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLX_FORWARD(broadcast2(a, b, &nd, shape));
  const DLDataType dt = op >= DLX_OP_LT ? DLX_DTYPE_BOOL : a->view.dtype;
  bool fresh;
  DLX_FORWARD(out_tensor(out, nd, shape, dt, &fresh, "dlx_tensor_binary"));
  return finish(out, fresh, dlx_binary(op, &(*out)->view, &a->view, &b->view));
}

dlx_status dlx_tensor_binary_scalar(dlx_binop op, dlx_tensor **out, dlx_tensor *a, double scalar, int reversed) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_OP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_tensor_binary_scalar: op %d is not a dlx_binop (0..%d)", (int)op, DLX_OP_COUNT - 1);
  dlx_scalar_buf buf;
  dlx_view s;
  DLX_FORWARD(dlx_scalar_view(&s, &buf, a->view.dtype, scalar, 0.0));
  const DLDataType dt = op >= DLX_OP_LT ? DLX_DTYPE_BOOL : a->view.dtype;
  bool fresh;
  DLX_FORWARD(out_tensor(out, a->view.ndim, a->view.shape, dt, &fresh, "dlx_tensor_binary_scalar"));
  dlx_status st = reversed ? dlx_binary(op, &(*out)->view, &s, &a->view) : dlx_binary(op, &(*out)->view, &a->view, &s);
  return finish(out, fresh, st);
}

dlx_status dlx_tensor_cast(dlx_tensor **out, dlx_tensor *t, DLDataType dtype) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(t);
  if (*out != NULL && !dlx_dtype_equal((*out)->view.dtype, dtype)) {
    char a[DLX_DTYPE_NAME_MAX] = "?", b[DLX_DTYPE_NAME_MAX] = "?";
    dlx_dtype_format((*out)->view.dtype, a, sizeof a);
    dlx_dtype_format(dtype, b, sizeof b);
    return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "dlx_tensor_cast: dtype mismatch: out is %s but the cast is to %s", a, b);
  }
  bool fresh;
  DLX_FORWARD(out_tensor(out, t->view.ndim, t->view.shape, dtype, &fresh, "dlx_tensor_cast"));
  return finish(out, fresh, dlx_cast(&(*out)->view, &t->view));
}

dlx_status dlx_tensor_fma(dlx_tensor **out, double scalar, dlx_tensor *t1, dlx_tensor *t2) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(t1);
  DLX_CHECK_NULL(t2);
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLX_FORWARD(broadcast2(t1, t2, &nd, shape));
  bool fresh;
  DLX_FORWARD(out_tensor(out, nd, shape, t2->view.dtype, &fresh, "dlx_tensor_fma"));
  return finish(out, fresh, dlx_fma(&(*out)->view, scalar, &t1->view, &t2->view));
}

dlx_status dlx_tensor_gemm(dlx_tensor **c, double alpha, dlx_tensor *a, dlx_tensor *b, double beta) {
  DLX_CHECK_NULL(c);
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  bool fresh = false;
  if (*c == NULL) {
    DLX_FAIL_IF(a->view.ndim != 2 || b->view.ndim != 2, DLX_ERR_RANK,
                "dlx_tensor_gemm: a and b must have rank 2 to allocate c, got ranks %d and %d", (int)a->view.ndim,
                (int)b->view.ndim);
    const int64_t shape[2] = {a->view.shape[0], b->view.shape[1]};
    DLX_FORWARD(out_tensor(c, 2, shape, a->view.dtype, &fresh, "dlx_tensor_gemm"));
    /* a new C starts at zero, so that beta * C is defined whatever beta is */
    uint64_t bytes = 0;
    if (dlx_dtype_storage_bytes(a->view.dtype, (uint64_t)dlx_view_size(&(*c)->view), false, &bytes) == DLX_OK)
      memset((*c)->storage->owned, 0, (size_t)bytes);
  }
  return finish(c, fresh, dlx_gemm(alpha, 0.0, &a->view, &b->view, beta, 0.0, &(*c)->view));
}
