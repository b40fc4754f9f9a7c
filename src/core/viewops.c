/* Views of views: index, slice, subscript, permute, reshape, squeeze (NumPy's basic indexing rules).
 *
 * Every function builds its result in a local view and copies it out last, so that out may alias v
 * and is written only on success. Only the first ndim shape/stride entries of any view are touched. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/viewops.h"

/* Room for a shape in a message; two shapes and two stride lists must fit the 512-byte error buffer. */
#define TUPLE_TEXT_CAP 96

/* The fields of v other than shape and strides, with ndim set. */
static void copy_header(dlx_view *r, const dlx_view *v, int32_t ndim) {
  r->data = v->data;
  r->dtype = v->dtype;
  r->device = v->device;
  r->flags = v->flags;
  r->ndim = ndim;
}

/* *out = r, touching only r->ndim entries (a full struct copy would move 1 KiB per call). */
static void store(dlx_view *out, const dlx_view *r) {
  copy_header(out, r, r->ndim);
  if (r->ndim > 0) {
    memcpy(out->shape, r->shape, (size_t)r->ndim * sizeof(int64_t));
    memcpy(out->strides, r->strides, (size_t)r->ndim * sizeof(int64_t));
  }
}

static dlx_status check_view(const char *fn, const dlx_view *v) {
  DLX_FAIL_IF(v->ndim < 0 || v->ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: view ndim %d is outside [0, %d]", fn, v->ndim,
              DLX_MAX_NDIM);
  return DLX_OK;
}

/* dim in [-ndim, ndim) -> [0, ndim), else DLX_ERR_INDEX naming it. */
static dlx_status normalize_dim(const char *fn, int32_t dim, int32_t ndim, int32_t *out) {
  int32_t d = dim < 0 ? dim + ndim : dim;
  DLX_FAIL_IF(d < 0 || d >= ndim, DLX_ERR_INDEX, "%s: dim %d is out of range for ndim %d", fn, dim, ndim);
  *out = d;
  return DLX_OK;
}

/* The address offset elements past v->data. Packed sub-byte elements have no byte address of their own,
 * so a view may only start on a byte boundary there. */
static dlx_status offset_data(const char *fn, const dlx_view *v, int64_t offset, void **data) {
  if (offset == 0) {
    *data = v->data;
    return DLX_OK;
  }
  int64_t bytes;
  if (dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0) {
    int64_t bits;
    DLX_FAIL_IF(__builtin_mul_overflow(offset, (int64_t)dlx_dtype_element_bits(v->dtype), &bits), DLX_ERR_OVERFLOW,
                "%s: bit offset of element %" PRId64 " overflows int64", fn, offset);
    DLX_FAIL_IF(bits % 8 != 0, DLX_ERR_UNSUPPORTED,
                "%s: a view starting at element %" PRId64 " of packed %u-bit data does not start on a byte", fn,
                offset, (unsigned)dlx_dtype_element_bits(v->dtype));
    bytes = bits / 8;
  } else {
    DLX_FAIL_IF(__builtin_mul_overflow(offset, (int64_t)dlx_dtype_itemsize(v->dtype), &bytes), DLX_ERR_OVERFLOW,
                "%s: byte offset of element %" PRId64 " overflows int64", fn, offset);
  }
  /* unsigned arithmetic: a negative offset (negative strides) wraps to the right address */
  *data = (void *)((uintptr_t)v->data + (uintptr_t)bytes);
  return DLX_OK;
}

/* The stride given to an inserted extent-1 dimension before dimension d (never used to address an
 * element): PyTorch's choice, what a compact layout would have there, so the view stays contiguous. */
static int64_t unit_dim_stride(const dlx_view *v, int32_t d) {
  int64_t st = 1;
  if (d < v->ndim && __builtin_mul_overflow(v->shape[d], v->strides[d], &st)) st = 1;
  return st;
}

/* i in [-extent, extent) -> [0, extent), else DLX_ERR_INDEX (never a wrap-around). */
static dlx_status normalize_index(const char *fn, int64_t i, int32_t dim, int64_t extent, int64_t *out) {
  int64_t j = i < 0 ? i + extent : i;
  DLX_FAIL_IF(j < 0 || j >= extent, DLX_ERR_INDEX,
              "%s: index %" PRId64 " is out of bounds for dim %d with extent %" PRId64, fn, i, dim, extent);
  *out = j;
  return DLX_OK;
}

dlx_status dlx_slice_resolve(const dlx_slice *s, int64_t extent, int64_t *start, int64_t *len) {
  DLX_CHECK_NULL(s);
  DLX_CHECK_NULL(start);
  DLX_CHECK_NULL(len);
  DLX_FAIL_IF(s->step == 0, DLX_ERR_INVALID_ARGUMENT, "dlx_slice_resolve: slice step cannot be zero");
  DLX_FAIL_IF(extent < 0, DLX_ERR_NEGATIVE_EXTENT, "dlx_slice_resolve: extent %" PRId64 " is negative", extent);
  /* CPython's PySlice_AdjustIndices: clamp into [lower, upper], which is [-1, extent-1] for a negative
   * step so that a backward slice can run past index 0. */
  const int64_t lower = s->step > 0 ? 0 : -1, upper = s->step > 0 ? extent : extent - 1;
  int64_t b = s->step > 0 ? lower : upper, e = s->step > 0 ? upper : lower;
  if (s->has_start) {
    b = s->start < 0 ? s->start + extent : s->start; /* no overflow: extent >= 0 */
    b = b < lower ? lower : b > upper ? upper : b;
  }
  if (s->has_stop) {
    e = s->stop < 0 ? s->stop + extent : s->stop;
    e = e < lower ? lower : e > upper ? upper : e;
  }
  int64_t n = 0;
  /* b and e lie in [-1, extent], so their difference cannot overflow; dividing by the negative step
   * itself avoids negating INT64_MIN. */
  if (s->step > 0 && e > b) n = (e - b - 1) / s->step + 1;
  if (s->step < 0 && b > e) n = (e - b + 1) / s->step + 1;
  *start = b;
  *len = n;
  return DLX_OK;
}

dlx_status dlx_view_index(const dlx_view *v, int32_t dim, int64_t i, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  int32_t d = 0;
  int64_t j = 0;
  DLX_FORWARD(normalize_dim(__func__, dim, v->ndim, &d));
  DLX_FORWARD(normalize_index(__func__, i, d, v->shape[d], &j));
  dlx_view r;
  copy_header(&r, v, v->ndim - 1);
  int64_t offset;
  DLX_FAIL_IF(__builtin_mul_overflow(j, v->strides[d], &offset), DLX_ERR_OVERFLOW,
              "%s: offset of index %" PRId64 " with stride %" PRId64 " overflows int64", __func__, j, v->strides[d]);
  for (int32_t k = 0, o = 0; k < v->ndim; ++k) {
    if (k == d) continue;
    r.shape[o] = v->shape[k];
    r.strides[o++] = v->strides[k];
  }
  /* as in dlx_view_subscript: an empty result keeps its data pointer */
  if (dlx_view_size(&r) == 0) offset = 0;
  DLX_FORWARD(offset_data(__func__, v, offset, &r.data));
  store(out, &r);
  return DLX_OK;
}

/* Extent, stride and element offset of dimension (extent, stride) sliced by s. */
static dlx_status slice_dim(const char *fn, int32_t dim, int64_t extent, int64_t stride, const dlx_slice *s,
                            int64_t *new_extent, int64_t *new_stride, int64_t *offset) {
  int64_t start = 0, len = 0;
  DLX_FAIL_IF(s->step == 0, DLX_ERR_INVALID_ARGUMENT, "%s: slice step cannot be zero (dim %d)", fn, dim);
  DLX_FORWARD(dlx_slice_resolve(s, extent, &start, &len));
  int64_t st = stride, off = 0;
  /* an extent-1 result never uses its stride, and an empty one never moves its data */
  if (len > 1)
    DLX_FAIL_IF(__builtin_mul_overflow(stride, s->step, &st), DLX_ERR_OVERFLOW,
                "%s: stride %" PRId64 " times step %" PRId64 " overflows int64 (dim %d)", fn, stride, s->step, dim);
  if (len > 0)
    DLX_FAIL_IF(__builtin_mul_overflow(start, stride, &off), DLX_ERR_OVERFLOW,
                "%s: offset of start %" PRId64 " with stride %" PRId64 " overflows int64 (dim %d)", fn, start, stride,
                dim);
  *new_extent = len;
  *new_stride = st;
  *offset = off;
  return DLX_OK;
}

dlx_status dlx_view_slice(const dlx_view *v, int32_t dim, const dlx_slice *s, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(s);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  int32_t d = 0;
  DLX_FORWARD(normalize_dim(__func__, dim, v->ndim, &d));
  dlx_view r;
  copy_header(&r, v, v->ndim);
  if (v->ndim > 0) {
    memcpy(r.shape, v->shape, (size_t)v->ndim * sizeof(int64_t));
    memcpy(r.strides, v->strides, (size_t)v->ndim * sizeof(int64_t));
  }
  int64_t offset = 0;
  DLX_FORWARD(slice_dim(__func__, d, v->shape[d], v->strides[d], s, &r.shape[d], &r.strides[d], &offset));
  DLX_FORWARD(offset_data(__func__, v, offset, &r.data));
  store(out, &r);
  return DLX_OK;
}

dlx_status dlx_view_subscript(const dlx_view *v, int32_t n, const dlx_index_item *items, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  DLX_FAIL_IF(n < 0, DLX_ERR_INVALID_ARGUMENT, "%s: index count %d is negative", __func__, n);
  DLX_FAIL_IF(n > 0 && items == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'items' is NULL with n %d", __func__, n);
  int32_t consumed = 0, ints = 0, newaxes = 0, ellipses = 0;
  for (int32_t k = 0; k < n; ++k) {
    switch (items[k].kind) {
      case DLX_IDX_INT: ++ints; ++consumed; break;
      case DLX_IDX_SLICE: ++consumed; break;
      case DLX_IDX_NEWAXIS: ++newaxes; break;
      case DLX_IDX_ELLIPSIS: ++ellipses; break;
      default:
        return dlx_set_error(DLX_ERR_INVALID_ARGUMENT, "%s: items[%d] has unknown kind %d", __func__, k,
                             (int)items[k].kind);
    }
  }
  DLX_FAIL_IF(ellipses > 1, DLX_ERR_INVALID_ARGUMENT,
              "%s: an index can only have a single ellipsis ('...'), got %d", __func__, ellipses);
  DLX_FAIL_IF(consumed > v->ndim, DLX_ERR_INDEX, "%s: too many indices: %d for ndim %d", __func__, consumed, v->ndim);
  int32_t rank = v->ndim - ints + newaxes;
  DLX_FAIL_IF(rank > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: the result would have %d dimensions; at most %d are allowed",
              __func__, rank, DLX_MAX_NDIM);

  dlx_view r;
  copy_header(&r, v, rank);
  int64_t offset = 0;
  int32_t src = 0, dst = 0;
  for (int32_t k = 0; k < n; ++k) {
    const dlx_index_item *it = &items[k];
    if (it->kind == DLX_IDX_ELLIPSIS) {
      /* the dimensions no other item consumes, kept whole */
      for (int32_t e = 0; e < v->ndim - consumed; ++e, ++src, ++dst) {
        r.shape[dst] = v->shape[src];
        r.strides[dst] = v->strides[src];
      }
    } else if (it->kind == DLX_IDX_NEWAXIS) {
      r.shape[dst] = 1;
      r.strides[dst++] = unit_dim_stride(v, src);
    } else if (it->kind == DLX_IDX_INT) {
      int64_t j = 0, off;
      DLX_FORWARD(normalize_index(__func__, it->i, src, v->shape[src], &j));
      DLX_FAIL_IF(__builtin_mul_overflow(j, v->strides[src], &off) || __builtin_add_overflow(offset, off, &offset),
                  DLX_ERR_OVERFLOW, "%s: offset of index %" PRId64 " at dim %d overflows int64", __func__, it->i, src);
      ++src;
    } else {
      int64_t off = 0;
      DLX_FORWARD(slice_dim(__func__, src, v->shape[src], v->strides[src], &it->s, &r.shape[dst], &r.strides[dst],
                            &off));
      DLX_FAIL_IF(__builtin_add_overflow(offset, off, &offset), DLX_ERR_OVERFLOW,
                  "%s: offset of the slice at dim %d overflows int64", __func__, src);
      ++src;
      ++dst;
    }
  }
  for (; src < v->ndim; ++src, ++dst) {
    r.shape[dst] = v->shape[src];
    r.strides[dst] = v->strides[src];
  }
  /* an empty result never reads its data: leave the pointer where it was rather than past the end */
  if (dlx_view_size(&r) == 0) offset = 0;
  DLX_FORWARD(offset_data(__func__, v, offset, &r.data));
  store(out, &r);
  return DLX_OK;
}

dlx_status dlx_view_permute(const dlx_view *v, const int32_t *perm, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  DLX_FAIL_IF(v->ndim > 0 && perm == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'perm' is NULL with ndim %d", __func__,
              v->ndim);
  unsigned char seen[DLX_MAX_NDIM] = {0};
  dlx_view r;
  copy_header(&r, v, v->ndim);
  for (int32_t k = 0; k < v->ndim; ++k) {
    int32_t p = perm[k];
    DLX_FAIL_IF(p < 0 || p >= v->ndim, DLX_ERR_INVALID_ARGUMENT,
                "%s: perm[%d] = %d is not a dimension of a view of ndim %d", __func__, k, p, v->ndim);
    DLX_FAIL_IF(seen[p], DLX_ERR_INVALID_ARGUMENT, "%s: perm repeats dimension %d (perm[%d])", __func__, p, k);
    seen[p] = 1;
    r.shape[k] = v->shape[p];
    r.strides[k] = v->strides[p];
  }
  store(out, &r);
  return DLX_OK;
}

dlx_status dlx_view_transpose(const dlx_view *v, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  int32_t perm[DLX_MAX_NDIM];
  for (int32_t k = 0; k < v->ndim; ++k) perm[k] = v->ndim - 1 - k;
  return dlx_view_permute(v, perm, out);
}

/* NumPy's _attempt_nocopy_reshape (C order): extent-1 dimensions dropped, then old and new extents are
 * grouped into the smallest runs with equal products; each old run must be contiguous with itself,
 * and the new run gets strides from its last old stride. Returns the first old dimension (in the
 * dropped-ones numbering) of a run that cannot be merged, or -1 when the reshape is a view.
 * The element count is the same and non-zero, so every run closes. */
static int32_t nocopy_strides(const dlx_view *v, int32_t nd, const int64_t *shape, int64_t *strides,
                              int32_t *bad_dim) {
  int64_t od[DLX_MAX_NDIM], os[DLX_MAX_NDIM];
  int32_t on = 0, orig[DLX_MAX_NDIM];
  for (int32_t k = 0; k < v->ndim; ++k) {
    if (v->shape[k] == 1) continue;
    od[on] = v->shape[k];
    os[on] = v->strides[k];
    orig[on++] = k;
  }
  int32_t oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < nd && oi < on) {
    int64_t np = shape[ni], op = od[oi];
    while (np != op) {
      if (np < op) np *= shape[nj++];
      else op *= od[oj++];
    }
    for (int32_t ok = oi; ok < oj - 1; ++ok) {
      /* checked: a hand-made view may carry strides whose products do not fit */
      int64_t want;
      if (__builtin_mul_overflow(od[ok + 1], os[ok + 1], &want) || os[ok] != want) {
        *bad_dim = orig[ok];
        return -1;
      }
    }
    strides[nj - 1] = os[oj - 1];
    for (int32_t nk = nj - 1; nk > ni; --nk) {
      if (__builtin_mul_overflow(strides[nk], shape[nk], &strides[nk - 1])) {
        *bad_dim = orig[oj - 1];
        return -1;
      }
    }
    ni = nj++;
    oi = oj++;
  }
  /* trailing extent-1 dimensions of the new shape: any stride works; repeat the last one */
  int64_t last = ni >= 1 ? strides[ni - 1] : 1;
  for (int32_t nk = ni; nk < nd; ++nk) strides[nk] = last;
  return 0;
}

dlx_status dlx_view_reshape(const dlx_view *v, int32_t ndim, const int64_t *shape, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  DLX_FAIL_IF(ndim < 0 || ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: ndim %d is outside [0, %d]", __func__, ndim,
              DLX_MAX_NDIM);
  DLX_FAIL_IF(ndim > 0 && shape == NULL, DLX_ERR_NULL_ARGUMENT, "%s: argument 'shape' is NULL with ndim %d", __func__,
              ndim);
  dlx_view r;
  copy_header(&r, v, ndim);
  /* the new shape: at most one -1, no other negative extent, and a product that fits (0 counted as 1,
   * as dlx_view_init counts it) */
  int32_t infer = -1;
  int64_t known = 1, guard = 1;
  for (int32_t k = 0; k < ndim; ++k) {
    int64_t e = shape[k];
    if (e == -1) {
      DLX_FAIL_IF(infer >= 0, DLX_ERR_INVALID_ARGUMENT, "%s: can only infer one extent, but dims %d and %d are -1",
                  __func__, infer, k);
      infer = k;
      continue;
    }
    DLX_FAIL_IF(e < 0, DLX_ERR_NEGATIVE_EXTENT, "%s: extent %" PRId64 " at dim %d is negative", __func__, e, k);
    DLX_FAIL_IF(__builtin_mul_overflow(guard, e ? e : 1, &guard), DLX_ERR_OVERFLOW,
                "%s: the element count of the new shape overflows int64 at dim %d", __func__, k);
    known *= e;
    r.shape[k] = e;
  }
  const int64_t size = dlx_view_size(v);
  char a[TUPLE_TEXT_CAP], b[TUPLE_TEXT_CAP], c[TUPLE_TEXT_CAP];
  if (infer >= 0) {
    /* NumPy refuses -1 beside a zero extent too: the inferred extent would be ambiguous */
    DLX_FAIL_IF(known == 0 || size % known != 0, DLX_ERR_INVALID_ARGUMENT,
                "%s: cannot reshape %" PRId64 " elements of shape %s into shape %s", __func__, size,
                dlx__shape_text(a, sizeof a, v->ndim, v->shape), dlx__shape_text(b, sizeof b, ndim, shape));
    r.shape[infer] = size / known;
    known = size;
  }
  DLX_FAIL_IF(known != size, DLX_ERR_INVALID_ARGUMENT,
              "%s: cannot reshape %" PRId64 " elements of shape %s into shape %s of %" PRId64 " elements", __func__,
              size, dlx__shape_text(a, sizeof a, v->ndim, v->shape), dlx__shape_text(b, sizeof b, ndim, r.shape), known);
  if (size == 0 || dlx_view_is_c_contiguous(v)) {
    /* an empty view has no element to misplace, and a contiguous one maps row-major to row-major */
    DLX_FORWARD(dlx_layout_compact_strides(ndim, r.shape, NULL, r.strides));
  } else {
    int32_t bad = 0;
    if (nocopy_strides(v, ndim, r.shape, r.strides, &bad) != 0)
      return dlx_set_error(DLX_ERR_LAYOUT_MISMATCH,
                           "%s: cannot reshape %s with strides %s to %s without a copy: dim %d (stride %" PRId64
                           ") is not contiguous with the next merged dim",
                           __func__, dlx__shape_text(a, sizeof a, v->ndim, v->shape),
                           dlx__shape_text(b, sizeof b, v->ndim, v->strides), dlx__shape_text(c, sizeof c, ndim, r.shape), bad,
                           v->strides[bad]);
  }
  store(out, &r);
  return DLX_OK;
}

dlx_status dlx_view_squeeze(const dlx_view *v, int32_t dim, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  int32_t d = 0;
  DLX_FORWARD(normalize_dim(__func__, dim, v->ndim, &d));
  DLX_FAIL_IF(v->shape[d] != 1, DLX_ERR_INVALID_ARGUMENT, "%s: cannot squeeze dim %d of extent %" PRId64 " (not 1)",
              __func__, dim, v->shape[d]);
  dlx_view r;
  copy_header(&r, v, v->ndim - 1);
  for (int32_t k = 0, o = 0; k < v->ndim; ++k) {
    if (k == d) continue;
    r.shape[o] = v->shape[k];
    r.strides[o++] = v->strides[k];
  }
  store(out, &r);
  return DLX_OK;
}

dlx_status dlx_view_squeeze_all(const dlx_view *v, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  dlx_view r;
  int32_t o = 0;
  for (int32_t k = 0; k < v->ndim; ++k) {
    if (v->shape[k] == 1) continue;
    r.shape[o] = v->shape[k];
    r.strides[o++] = v->strides[k];
  }
  copy_header(&r, v, o);
  store(out, &r);
  return DLX_OK;
}

dlx_status dlx_view_unsqueeze(const dlx_view *v, int32_t dim, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  DLX_FORWARD(check_view(__func__, v));
  DLX_FAIL_IF(v->ndim >= DLX_MAX_NDIM, DLX_ERR_RANK, "%s: a view of ndim %d cannot get another dimension (at most %d)",
              __func__, v->ndim, DLX_MAX_NDIM);
  int32_t d = dim < 0 ? dim + v->ndim + 1 : dim;
  DLX_FAIL_IF(d < 0 || d > v->ndim, DLX_ERR_INDEX, "%s: dim %d is out of range for inserting into ndim %d", __func__,
              dim, v->ndim);
  dlx_view r;
  copy_header(&r, v, v->ndim + 1);
  for (int32_t k = 0, o = 0; k <= v->ndim; ++k) {
    if (k == d) {
      r.shape[k] = 1;
      r.strides[k] = unit_dim_stride(v, d);
      continue;
    }
    r.shape[k] = v->shape[o];
    r.strides[k] = v->strides[o++];
  }
  store(out, &r);
  return DLX_OK;
}
