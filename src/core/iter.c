/* dlx_iter_init: the loop plan for elementwise kernels over broadcast operands.
 *
 * Steps, as PyTorch's TensorIterator: broadcast the shapes, convert strides to bytes, drop extent-1
 * dimensions, sort the dimensions so that the smallest strides are innermost, then merge neighbours
 * that one flat index walks the same way in every operand. Every step permutes or merges the
 * dimensions of all operands together, so operand k's element for a logical index stays paired with
 * every other operand's element for that index.
 *
 * Choices the header leaves open:
 *  - a plan with no element (some broadcast extent 0) is ndim 1, shape {0}, strides 0, size 0, so a
 *    loop that runs shape[0] times does nothing, and data[k] is each view's data (possibly NULL);
 *  - DLX_ITER_NO_COALESCE keeps every broadcast dimension, extent-1 ones too (their strides are 0);
 *  - flag bits other than DLX_ITER_* are refused (INVALID_ARGUMENT), so a future flag is never ignored. */
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/layout.h"

#define KNOWN_FLAGS (DLX_ITER_NO_REORDER | DLX_ITER_NO_COALESCE | DLX_ITER_OUTPUT_FULL)

/* Plan under construction, innermost dimension first (PyTorch's order), so that the sort and the merge
 * below read like TensorIterator's reorder_dimensions and coalesce_dimensions. */
typedef struct plan {
  int32_t nop, ndim;
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_ITER_MAX_OPERANDS][DLX_MAX_NDIM];
} plan;

/* > 0 when dimension a (now inner to b) should go outside b, < 0 when it should stay inside, 0 when no
 * operand tells them apart. A zero stride says nothing about the memory order, so it defers to the next
 * operand; so does an equal |stride|. */
static int compare_dims(const plan *p, int32_t a, int32_t b) {
  for (int32_t k = 0; k < p->nop; ++k) {
    uint64_t sa = dlx__abs_u64(p->strides[k][a]), sb = dlx__abs_u64(p->strides[k][b]);
    if (sa == 0 || sb == 0 || sa == sb) continue;
    return sa > sb ? 1 : -1;
  }
  return 0;
}

/* TensorIterator's insertion sort with ambiguous comparisons: an undecided pair does not stop the scan,
 * so a dimension can move past dimensions it cannot be compared with. The comparison is no total order,
 * but any permutation gives a correct plan; this one only decides how fast it runs. */
static void reorder(plan *p) {
  int32_t perm[DLX_MAX_NDIM];
  for (int32_t i = 0; i < p->ndim; ++i) perm[i] = i;
  for (int32_t i = 1; i < p->ndim; ++i) {
    int32_t d1 = i;
    for (int32_t d0 = i - 1; d0 >= 0; --d0) {
      int c = compare_dims(p, perm[d0], perm[d1]);
      if (c > 0) {
        int32_t t = perm[d0];
        perm[d0] = perm[d1];
        perm[d1] = t;
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  plan q;
  for (int32_t i = 0; i < p->ndim; ++i) {
    q.shape[i] = p->shape[perm[i]];
    for (int32_t k = 0; k < p->nop; ++k) q.strides[k][i] = p->strides[k][perm[i]];
  }
  memcpy(p->shape, q.shape, (size_t)p->ndim * sizeof *q.shape);
  for (int32_t k = 0; k < p->nop; ++k) memcpy(p->strides[k], q.strides[k], (size_t)p->ndim * sizeof *q.strides[k]);
}

/* Dimension outer can fold into inner when, in every operand, stepping outer once moves as far as
 * stepping inner across its whole extent. */
static bool can_merge(const plan *p, int32_t inner, int32_t outer) {
  for (int32_t k = 0; k < p->nop; ++k) {
    int64_t span;
    if (__builtin_mul_overflow(p->strides[k][inner], p->shape[inner], &span) || span != p->strides[k][outer])
      return false;
  }
  return true;
}

static void coalesce(plan *p) {
  if (p->ndim <= 1) return;
  int32_t last = 0;
  for (int32_t d = 1; d < p->ndim; ++d) {
    if (can_merge(p, last, d)) {
      /* cannot overflow: the product of all extents was checked */
      p->shape[last] *= p->shape[d];
      continue;
    }
    ++last;
    p->shape[last] = p->shape[d];
    for (int32_t k = 0; k < p->nop; ++k) p->strides[k][last] = p->strides[k][d];
  }
  p->ndim = last + 1;
}

static dlx_status check_operand(int32_t k, const dlx_view *v, const dlx_view *v0) {
  DLX_FAIL_IF(v == NULL, DLX_ERR_NULL_ARGUMENT, "dlx_iter_init: ops[%d] is NULL", k);
  DLX_FAIL_IF(v->ndim < 0 || v->ndim > DLX_MAX_NDIM, DLX_ERR_RANK,
              "dlx_iter_init: operand %d has ndim %d, outside [0, %d]", k, v->ndim, DLX_MAX_NDIM);
  DLX_FAIL_IF(dlx_dtype_itemsize(v->dtype) == 0, DLX_ERR_INVALID_DTYPE,
              "dlx_iter_init: operand %d has dtype (code %u, bits %u, lanes %u) with no size", k,
              (unsigned)v->dtype.code, (unsigned)v->dtype.bits, (unsigned)v->dtype.lanes);
  /* Strides of packed fp4/fp6 count sub-byte elements, which no byte stride can express. */
  DLX_FAIL_IF(dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0, DLX_ERR_UNSUPPORTED,
              "dlx_iter_init: operand %d has packed sub-byte dtype (code %u, bits %u, lanes %u); only byte-sized "
              "elements can be iterated",
              k, (unsigned)v->dtype.code, (unsigned)v->dtype.bits, (unsigned)v->dtype.lanes);
  DLX_FAIL_IF(v->device.device_type != v0->device.device_type || v->device.device_id != v0->device.device_id,
              DLX_ERR_DEVICE_MISMATCH,
              "dlx_iter_init: operand %d is on device (type %d, id %d) but operand 0 on (type %d, id %d)", k,
              (int)v->device.device_type, (int)v->device.device_id, (int)v0->device.device_type,
              (int)v0->device.device_id);
  return DLX_OK;
}

dlx_status dlx_iter_init(dlx_iter *it, int32_t nop, const dlx_view *const *ops, uint32_t flags) {
  DLX_CHECK_NULL(it);
  DLX_CHECK_NULL(ops);
  DLX_FAIL_IF(nop < 1 || nop > DLX_ITER_MAX_OPERANDS, DLX_ERR_INVALID_ARGUMENT,
              "dlx_iter_init: nop %d is outside [1, %d]", nop, DLX_ITER_MAX_OPERANDS);
  DLX_FAIL_IF(flags & ~(uint32_t)KNOWN_FLAGS, DLX_ERR_INVALID_ARGUMENT, "dlx_iter_init: unknown flags 0x%x",
              (unsigned)(flags & ~(uint32_t)KNOWN_FLAGS));
  DLX_FAIL_IF(ops[0] == NULL, DLX_ERR_NULL_ARGUMENT, "dlx_iter_init: ops[0] is NULL");
  int32_t ndims[DLX_ITER_MAX_OPERANDS];
  const int64_t *shapes[DLX_ITER_MAX_OPERANDS];
  for (int32_t k = 0; k < nop; ++k) {
    DLX_FORWARD(check_operand(k, ops[k], ops[0]));
    ndims[k] = ops[k]->ndim;
    shapes[k] = ops[k]->shape;
  }
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  DLX_FORWARD(dlx_broadcast_shapes(nop, ndims, shapes, &nd, shape));
  if (flags & DLX_ITER_OUTPUT_FULL) {
    const dlx_view *o = ops[0];
    bool full = o->ndim == nd && (nd == 0 || memcmp(o->shape, shape, (size_t)nd * sizeof *shape) == 0);
    if (!full) {
      char a[DLX_SHAPE_TEXT_CAP], b[DLX_SHAPE_TEXT_CAP];
      return dlx_set_error(DLX_ERR_BROADCAST, "output shape %s is not the broadcast shape %s of the operands",
                           dlx__shape_text(a, sizeof a, o->ndim, o->shape), dlx__shape_text(b, sizeof b, nd, shape));
    }
  }
  int64_t size = 1;
  for (int32_t j = 0; j < nd; ++j) {
    if (__builtin_mul_overflow(size, shape[j], &size)) {
      char a[DLX_SHAPE_TEXT_CAP];
      return dlx_set_error(DLX_ERR_OVERFLOW, "dlx_iter_init: the broadcast shape %s has more than 2^63-1 elements",
                           dlx__shape_text(a, sizeof a, nd, shape));
    }
  }
  it->nop = nop;
  for (int32_t k = 0; k < nop; ++k) it->data[k] = (char *)ops[k]->data;
  it->size = size;
  if (size == 0) {
    /* Checked before the strides, which DLPack lets an empty tensor fill with garbage. */
    it->ndim = 1;
    it->shape[0] = 0;
    for (int32_t k = 0; k < nop; ++k) it->strides[k][0] = 0;
    return DLX_OK;
  }

  plan p;
  p.nop = nop;
  p.ndim = 0;
  bool keep_all = (flags & DLX_ITER_NO_COALESCE) != 0;
  for (int32_t j = nd - 1; j >= 0; --j) { /* innermost first */
    if (shape[j] == 1 && !keep_all) continue;
    int32_t m = p.ndim++;
    p.shape[m] = shape[j];
    for (int32_t k = 0; k < nop; ++k) {
      const dlx_view *v = ops[k];
      int32_t jk = j - (nd - v->ndim);
      int64_t bytes = 0;
      if (shape[j] != 1 && jk >= 0 && v->shape[jk] != 1 &&
          __builtin_mul_overflow(v->strides[jk], (int64_t)dlx_dtype_itemsize(v->dtype), &bytes)) {
        return dlx_set_error(
            DLX_ERR_OVERFLOW,
            "dlx_iter_init: operand %d: stride %lld at dimension %d times itemsize %zu overflows int64", k,
            (long long)v->strides[jk], jk, dlx_dtype_itemsize(v->dtype));
      }
      p.strides[k][m] = bytes;
    }
  }
  if ((flags & DLX_ITER_NO_REORDER) == 0) reorder(&p);
  if (!keep_all) coalesce(&p);

  it->ndim = p.ndim;
  for (int32_t i = 0; i < p.ndim; ++i) {
    int32_t src = p.ndim - 1 - i; /* back to outermost first */
    it->shape[i] = p.shape[src];
    for (int32_t k = 0; k < nop; ++k) it->strides[k][i] = p.strides[k][src];
  }
  return DLX_OK;
}
