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

#include "backends/backend.h"
#include "core/error_internal.h"
#include "dlx/layout.h"
#include "dlx/tensor.h"
#include "exchange/storage.h"
#include "kernels/op_table.h"
#include "tensor/memory.h"

struct dlx_tensor {
  _Atomic int64_t refs;
  dlx__storage *storage;
  dlx_view view;
};

/* A tensor with view v on storage s; takes a new reference on s. */
static dlx_status tensor_new(dlx_tensor **out, dlx__storage *s, const dlx_view *v, const char *fn) {
  dlx_tensor *t = malloc(sizeof *t);
  DLX_FAIL_IF(t == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a tensor", fn);
  atomic_init(&t->refs, 1);
  t->storage = dlx__storage_retain(s);
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
  dlx__storage_release(t->storage);
  free(t);
}

const dlx_view *dlx_tensor_view(const dlx_tensor *t) { return t == NULL ? NULL : &t->view; }

dlx_status dlx_tensor_record(dlx_tensor *t, void *stream) {
  DLX_CHECK_NULL(t);
  return dlx__storage_record(t->storage, t->view.device, stream, "dlx_tensor_record");
}

dlx_status dlx_tensor_wait(dlx_tensor *t, void *stream) {
  DLX_CHECK_NULL(t);
  return dlx__storage_wait(t->storage, t->view.device, stream, "dlx_tensor_wait");
}

/* ---- owned tensors -------------------------------------------------------------------------------- */

/* like: the data of the tensor this one is made from, whose kind of memory it takes (dlx__storage_alloc_like),
 * or NULL. */
static dlx_status tensor_alloc(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype,
                               DLDevice device, const void *like, bool padded, bool zero, const char *fn) {
  /* validates rank, dtype, device type, extents and the element count before anything is allocated */
  dlx_view v;
  static char placeholder;
  DLX_FORWARD(dlx_view_init(&v, &placeholder, dtype, device, ndim, shape, NULL));
  uint64_t bytes;
  const bool pad = padded && dlx_dtype_is_subbyte(dtype);
  DLX_FORWARD(dlx_dtype_storage_bytes(dtype, (uint64_t)dlx_view_size(&v), pad, &bytes));
  dlx__storage *s;
  DLX_FORWARD(dlx__storage_alloc_like(device, like, bytes, zero, fn, &s));
  v.data = s->ptr;
  if (pad) v.flags |= DLX_VIEW_SUBBYTE_PADDED;
  dlx_status st = tensor_new(out, s, &v, fn);
  dlx__storage_release(s); /* the tensor holds it now (or nobody, on failure) */
  return st;
}

dlx_status dlx_tensor_empty(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype, DLDevice device) {
  DLX_CHECK_NULL(out);
  DLX_FAIL_IF(shape == NULL && ndim > 0, DLX_ERR_NULL_ARGUMENT, "dlx_tensor_empty: argument 'shape' is NULL with ndim %d",
              (int)ndim);
  return tensor_alloc(out, ndim, shape, dtype, device, NULL, false, false, "dlx_tensor_empty");
}

dlx_status dlx_tensor_zeros(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype, DLDevice device) {
  DLX_CHECK_NULL(out);
  DLX_FAIL_IF(shape == NULL && ndim > 0, DLX_ERR_NULL_ARGUMENT, "dlx_tensor_zeros: argument 'shape' is NULL with ndim %d",
              (int)ndim);
  /* zeroed by the allocation (a memset, or cudaMemsetAsync on the current stream): any dtype */
  return tensor_alloc(out, ndim, shape, dtype, device, NULL, false, true, "dlx_tensor_zeros");
}

dlx_status dlx_tensor_empty_like(dlx_tensor **out, const dlx_tensor *t) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(t);
  return tensor_alloc(out, t->view.ndim, t->view.shape, t->view.dtype, t->view.device, t->view.data,
                      (t->view.flags & DLX_VIEW_SUBBYTE_PADDED) != 0, false, "dlx_tensor_empty_like");
}

/* ---- borrowed managed tensors ------------------------------------------------------------------- */

/* Any valid DLPack tensor: any dtype, rank, device and strides, at any address (the kernels handle
 * misaligned data, so refusing it would only lose producers). */
static const dlx_import_spec take_spec = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 1};

dlx_status dlx_tensor_from_managed_versioned(dlx_tensor **out, DLManagedTensorVersioned *m) {
  DLX_CHECK_NULL(m);
  dlx_status st;
  dlx_view v;
  dlx__storage *s = NULL;
  if (out == NULL) {
    st = dlx_set_error(DLX_ERR_NULL_ARGUMENT, "dlx_tensor_from_managed_versioned: argument 'out' is NULL");
  } else if ((st = dlx_view_from_managed_versioned(&v, m, &take_spec)) == DLX_OK) {
    s = dlx__storage_of_managed_versioned(m);
    if (s == NULL) st = dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "dlx_tensor_from_managed_versioned: out of memory");
  }
  if (st != DLX_OK) {
    /* ownership was passed in: the producer's memory is released either way */
    if (m->deleter != NULL) m->deleter(m);
    return st;
  }
  st = tensor_new(out, s, &v, "dlx_tensor_from_managed_versioned");
  dlx__storage_release(s); /* on failure this runs the deleter */
  return st;
}

dlx_status dlx_tensor_from_managed(dlx_tensor **out, DLManagedTensor *m) {
  DLX_CHECK_NULL(m);
  dlx_status st;
  dlx_view v;
  dlx__storage *s = NULL;
  if (out == NULL) {
    st = dlx_set_error(DLX_ERR_NULL_ARGUMENT, "dlx_tensor_from_managed: argument 'out' is NULL");
  } else if ((st = dlx_view_from_managed(&v, m, &take_spec)) == DLX_OK) {
    s = dlx__storage_of_managed(m);
    if (s == NULL) st = dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "dlx_tensor_from_managed: out of memory");
  }
  if (st != DLX_OK) {
    if (m->deleter != NULL) m->deleter(m);
    return st;
  }
  st = tensor_new(out, s, &v, "dlx_tensor_from_managed");
  dlx__storage_release(s);
  return st;
}

/* ---- export ------------------------------------------------------------------------------------- */

dlx_status dlx_tensor_to_managed_versioned(dlx_tensor *t, DLManagedTensorVersioned **out) {
  DLX_CHECK_NULL(t);
  DLX_CHECK_NULL(out);
  return dlx__export_versioned(t->storage, &t->view, 0, "dlx_tensor_to_managed_versioned", out);
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
  dlx__storage *cs;
  dlx_view c;
  DLX_FORWARD(dlx__storage_copy_compact(&t->view, "dlx_tensor_reshape_copy", &cs, &c));
  st = dlx_view_reshape(&c, ndim, shape, &v);
  if (st == DLX_OK) st = tensor_new(out, cs, &v, "dlx_tensor_reshape_copy");
  dlx__storage_release(cs);
  return st;
}

/* ---- ops with optional outputs -------------------------------------------------------------------- */

/* *out when given, else a new tensor of (ndim, shape, dtype) where the op computes on `like` (named
 * like_name in messages): cpu:0 for host-accessible memory, the device itself otherwise, in like's kind of
 * memory there (oneAPI host and shared USM stay so, and the CPU loops can write the result); *fresh says
 * which. */
static dlx_status out_tensor(dlx_tensor **out, const dlx_tensor *like, const char *like_name, int32_t ndim,
                             const int64_t *shape, DLDataType dtype, bool zero, bool *fresh, const char *fn) {
  *fresh = false;
  if (*out != NULL) return DLX_OK;
  const dlx__compute_ops *be;
  DLDevice home;
  DLX_FORWARD(dlx__backend_compute(like->view.device, fn, like_name, &be, &home));
  DLX_FORWARD(tensor_alloc(out, ndim, shape, dtype, home, like->view.data, false, zero, fn));
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
  /* bool for the comparisons and the logical ops (the op table's result column) */
  const DLDataType dt = dlx__binop_info[op].bool_result ? DLX_DTYPE_BOOL : a->view.dtype;
  bool fresh;
  DLX_FORWARD(out_tensor(out, a, "a", nd, shape, dt, false, &fresh, "dlx_tensor_binary"));
  return finish(out, fresh, dlx_binary(op, &(*out)->view, &a->view, &b->view));
}

dlx_status dlx_tensor_unary(dlx_unop op, dlx_tensor **out, dlx_tensor *a) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_UNOP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_tensor_unary: op %d is not a dlx_unop (0..%d)", (int)op, DLX_UNOP_COUNT - 1);
  const DLDataType dt = dlx__unop_info[op].bool_result ? DLX_DTYPE_BOOL : a->view.dtype;
  bool fresh;
  DLX_FORWARD(out_tensor(out, a, "a", a->view.ndim, a->view.shape, dt, false, &fresh, "dlx_tensor_unary"));
  return finish(out, fresh, dlx_unary(op, &(*out)->view, &a->view));
}

dlx_status dlx_tensor_ternary(dlx_ternop op, dlx_tensor **out, dlx_tensor *a, dlx_tensor *b, dlx_tensor *c) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_CHECK_NULL(c);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_TERNOP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_tensor_ternary: op %d is not a dlx_ternop (0..%d)", (int)op, DLX_TERNOP_COUNT - 1);
  const int32_t ndims[3] = {a->view.ndim, b->view.ndim, c->view.ndim};
  const int64_t *shapes[3] = {a->view.shape, b->view.shape, c->view.shape};
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLX_FORWARD(dlx_broadcast_shapes(3, ndims, shapes, &nd, shape));
  bool fresh;
  /* where's result has its values' dtype (b's), clip's a's */
  DLX_FORWARD(out_tensor(out, b, "b", nd, shape, op == DLX_TERNOP_WHERE ? b->view.dtype : a->view.dtype, false, &fresh,
                         "dlx_tensor_ternary"));
  return finish(out, fresh, dlx_ternary(op, &(*out)->view, &a->view, &b->view, &c->view));
}

dlx_status dlx_tensor_binary_scalar(dlx_binop op, dlx_tensor **out, dlx_tensor *a, double scalar, int reversed) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_OP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_tensor_binary_scalar: op %d is not a dlx_binop (0..%d)", (int)op, DLX_OP_COUNT - 1);
  dlx_scalar_buf buf;
  dlx_view s;
  DLX_FORWARD(dlx_scalar_view(&s, &buf, a->view.dtype, scalar, 0.0));
  const DLDataType dt = dlx__binop_info[op].bool_result ? DLX_DTYPE_BOOL : a->view.dtype;
  bool fresh;
  DLX_FORWARD(out_tensor(out, a, "a", a->view.ndim, a->view.shape, dt, false, &fresh, "dlx_tensor_binary_scalar"));
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
  DLX_FORWARD(out_tensor(out, t, "t", t->view.ndim, t->view.shape, dtype, false, &fresh, "dlx_tensor_cast"));
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
  DLX_FORWARD(out_tensor(out, t2, "t2", nd, shape, t2->view.dtype, false, &fresh, "dlx_tensor_fma"));
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
    /* a new C starts at zero, so that beta * C is defined whatever beta is */
    DLX_FORWARD(out_tensor(c, a, "a", 2, shape, a->view.dtype, true, &fresh, "dlx_tensor_gemm"));
  }
  return finish(c, fresh, dlx_gemm(alpha, 0.0, &a->view, &b->view, beta, 0.0, &(*c)->view));
}
