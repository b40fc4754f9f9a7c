/* Layout facts over (ndim, shape, strides): contiguity, compact strides, dimension orders, CuTe's
 * deductions, broadcasting, byte spans and overlap. Nothing here allocates; every loop is O(ndim) or
 * O(ndim^2) with ndim <= DLX_MAX_NDIM, so these are cheap enough to run on every op call. */
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/layout.h"


/* Kept apart from check_shape so that the hot path is a loop with no formatting in it. */
static dlx_status shape_error(const char *fn, const char *what, int32_t which, int32_t ndim, const int64_t *shape) {
  char name[48];
  if (which >= 0) {
    snprintf(name, sizeof name, "%s[%d]", what, which);
    what = name;
  }
  DLX_FAIL_IF(ndim < 0 || ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: ndim %d of %s is outside [0, %d]", fn, ndim, what,
              DLX_MAX_NDIM);
  DLX_FAIL_IF(shape == NULL, DLX_ERR_NULL_ARGUMENT, "%s: %s is NULL with ndim %d", fn, what, ndim);
  for (int32_t i = 0; i < ndim; ++i)
    DLX_FAIL_IF(shape[i] < 0, DLX_ERR_NEGATIVE_EXTENT, "%s: extent %lld at dimension %d of %s is negative", fn,
                (long long)shape[i], i, what);
  return DLX_OK;
}

/* ndim in range, shape readable when ndim > 0, no negative extent. which >= 0 names what[which]. */
static dlx_status check_shape(const char *fn, const char *what, int32_t which, int32_t ndim, const int64_t *shape) {
  if (ndim >= 0 && ndim <= DLX_MAX_NDIM && (ndim == 0 || shape != NULL)) {
    int32_t i = 0;
    while (i < ndim && shape[i] >= 0) ++i;
    if (i == ndim) return DLX_OK;
  }
  return shape_error(fn, what, which, ndim, shape);
}

static bool is_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides, bool row_major) {
  if (ndim < 0 || ndim > DLX_MAX_NDIM) return false;
  if (ndim == 0) return true;
  if (shape == NULL) return false;
  bool empty = false;
  int32_t non_unit = 0;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return false;
    empty |= shape[i] == 0;
    non_unit += shape[i] != 1;
  }
  /* DLPack allows garbage strides on an empty tensor: there is no element to misplace. */
  if (empty) return true;
  /* NULL strides are row-major, which is also column-major when at most one extent exceeds 1. */
  if (strides == NULL) return row_major || non_unit <= 1;
  int64_t expected = 1;
  bool overflowed = false;
  for (int32_t k = 0; k < ndim; ++k) {
    int32_t d = row_major ? ndim - 1 - k : k;
    if (shape[d] == 1) continue; /* any stride is fine: index 0 is the only one */
    if (overflowed || strides[d] != expected) return false;
    overflowed = __builtin_mul_overflow(expected, shape[d], &expected);
  }
  return true;
}

bool dlx_layout_is_c_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides) {
  return is_contiguous(ndim, shape, strides, true);
}

bool dlx_layout_is_f_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides) {
  return is_contiguous(ndim, shape, strides, false);
}

static dlx_status check_permutation(int32_t ndim, const int32_t *order) {
  uint64_t seen = 0; /* ndim <= 64 */
  for (int32_t k = 0; k < ndim; ++k) {
    int32_t d = order[k];
    DLX_FAIL_IF(d < 0 || d >= ndim, DLX_ERR_INVALID_ARGUMENT,
                "order is not a permutation of 0..%d: %d (at position %d) is out of range", ndim - 1, d, k);
    DLX_FAIL_IF(seen & ((uint64_t)1 << d), DLX_ERR_INVALID_ARGUMENT,
                "order is not a permutation of 0..%d: %d appears twice", ndim - 1, d);
    seen |= (uint64_t)1 << d;
  }
  return DLX_OK;
}

dlx_status dlx_layout_compact_strides(int32_t ndim, const int64_t *shape, const int32_t *order, int64_t *strides) {
  DLX_FORWARD(check_shape(__func__, "shape", -1, ndim, shape));
  if (ndim == 0) return DLX_OK;
  DLX_CHECK_NULL(strides);
  if (order != NULL) DLX_FORWARD(check_permutation(ndim, order));
  /* A local result so that a failure leaves *strides untouched and strides may alias shape. */
  int64_t out[DLX_MAX_NDIM];
  int64_t acc = 1;
  for (int32_t k = ndim - 1; k >= 0; --k) {
    int32_t d = order != NULL ? order[k] : k;
    out[d] = acc;
    /* Extent 0 counts as 1, as NumPy and PyTorch do, so an empty tensor still gets distinct strides.
     * The product past the outermost dimension is no stride, so it may overflow harmlessly. */
    if (k > 0 && __builtin_mul_overflow(acc, shape[d] > 1 ? shape[d] : 1, &acc)) {
      char s[DLX_SHAPE_TEXT_CAP];
      return dlx_set_error(DLX_ERR_OVERFLOW, "compact strides of shape %s overflow int64 outside dimension %d",
                           dlx__shape_text(s, sizeof s, ndim, shape), d);
    }
  }
  memcpy(strides, out, (size_t)ndim * sizeof *out);
  return DLX_OK;
}

/* True when dimension a comes before (is outer to) dimension b in the header's total order. */
static inline bool order_before(int32_t a, int32_t b, const int64_t *shape, const int64_t *strides) {
  uint64_t sa = dlx__abs_u64(strides[a]), sb = dlx__abs_u64(strides[b]);
  if (sa != sb) return sa > sb;
  if (shape[a] != shape[b]) return shape[a] > shape[b];
  return a < b;
}

dlx_status dlx_layout_stride_order(int32_t ndim, const int64_t *shape, const int64_t *strides, int32_t *order) {
  DLX_FORWARD(check_shape(__func__, "shape", -1, ndim, shape));
  if (ndim == 0) return DLX_OK;
  DLX_CHECK_NULL(order);
  for (int32_t i = 0; i < ndim; ++i) order[i] = i;
  /* NULL strides are row-major, whose dim_order is the identity. */
  if (strides == NULL) return DLX_OK;
  for (int32_t i = 1; i < ndim; ++i) {
    int32_t x = order[i], j = i;
    for (; j > 0 && order_before(x, order[j - 1], shape, strides); --j) order[j] = order[j - 1];
    order[j] = x;
  }
  return DLX_OK;
}

dlx_status dlx_layout_leading_dim(int32_t ndim, const int64_t *strides, int32_t *dim) {
  DLX_CHECK_NULL(dim);
  DLX_FAIL_IF(ndim < 0 || ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: ndim %d is outside [0, %d]", __func__, ndim,
              DLX_MAX_NDIM);
  /* NULL cannot mean row-major here: without the shape, which strides are 1 is unknown. */
  DLX_FAIL_IF(ndim > 0 && strides == NULL, DLX_ERR_NULL_ARGUMENT, "%s: strides is NULL with ndim %d", __func__, ndim);
  int32_t found = -1;
  for (int32_t d = 0; d < ndim; ++d) {
    if (strides[d] != 1) continue;
    DLX_FAIL_IF(found >= 0, DLX_ERR_DEDUCTION,
                "Can't deduce the leading dimension from layout: dimensions %d and %d both have stride 1, "
                "please specify the leading_dim explicitly",
                found, d);
    found = d;
  }
  *dim = found;
  return DLX_OK;
}

/* CuTe sorts the signed strides; equal strides (possible only off the unit stride, e.g. extent-1 or
 * broadcast dimensions) are ordered as in dlx_layout_stride_order: larger extent first, then lower index. */
static inline bool deduce_before(int32_t a, int32_t b, const int64_t *shape, const int64_t *strides) {
  if (strides[a] != strides[b]) return strides[a] > strides[b];
  if (shape[a] != shape[b]) return shape[a] > shape[b];
  return a < b;
}

dlx_status dlx_layout_deduce_stride_order(int32_t ndim, const int64_t *shape, const int64_t *strides, int32_t *order) {
  DLX_FORWARD(check_shape(__func__, "shape", -1, ndim, shape));
  if (ndim == 0) return DLX_OK;
  DLX_FAIL_IF(strides == NULL, DLX_ERR_NULL_ARGUMENT, "%s: strides is NULL with ndim %d", __func__, ndim);
  DLX_CHECK_NULL(order);
  int32_t unit = -1;
  for (int32_t d = 0; d < ndim; ++d) {
    if (strides[d] != 1) continue;
    DLX_FAIL_IF(unit >= 0, DLX_ERR_DEDUCTION,
                "Can't deduce the stride order from layout: dimensions %d and %d both have stride 1, "
                "please specify the stride_order explicitly",
                unit, d);
    unit = d;
  }
  for (int32_t i = 0; i < ndim; ++i) order[i] = i;
  for (int32_t i = 1; i < ndim; ++i) {
    int32_t x = order[i], j = i;
    for (; j > 0 && deduce_before(x, order[j - 1], shape, strides); --j) order[j] = order[j - 1];
    order[j] = x;
  }
  return DLX_OK;
}

dlx_status dlx_broadcast_shapes(int32_t n, const int32_t *ndims, const int64_t *const *shapes, int32_t *out_ndim,
                                int64_t *out_shape) {
  DLX_FAIL_IF(n < 0, DLX_ERR_INVALID_ARGUMENT, "%s: n %d is negative", __func__, n);
  DLX_CHECK_NULL(out_ndim);
  DLX_CHECK_NULL(out_shape);
  if (n > 0) {
    DLX_CHECK_NULL(ndims);
    DLX_CHECK_NULL(shapes);
  }
  int32_t nd = 0;
  for (int32_t i = 0; i < n; ++i) {
    DLX_FORWARD(check_shape(__func__, "shapes", i, ndims[i], shapes[i]));
    if (ndims[i] > nd) nd = ndims[i];
  }
  /* Built locally: out_shape may be one of the inputs. */
  int64_t res[DLX_MAX_NDIM];
  for (int32_t j = 0; j < nd; ++j) {
    int64_t e = 1;
    int32_t from = -1;
    for (int32_t i = 0; i < n; ++i) {
      int32_t k = j - (nd - ndims[i]);
      if (k < 0) continue;
      int64_t x = shapes[i][k];
      if (x == 1 || x == e) continue;
      if (e == 1) {
        e = x;
        from = i;
        continue;
      }
      char a[DLX_SHAPE_TEXT_CAP], b[DLX_SHAPE_TEXT_CAP];
      return dlx_set_error(DLX_ERR_BROADCAST, "shapes %s and %s do not broadcast: extent %lld vs %lld at dimension %d",
                           dlx__shape_text(a, sizeof a, ndims[from], shapes[from]),
                           dlx__shape_text(b, sizeof b, ndims[i], shapes[i]), (long long)e, (long long)x, j);
    }
    res[j] = e;
  }
  if (nd > 0) memcpy(out_shape, res, (size_t)nd * sizeof *res);
  *out_ndim = nd;
  return DLX_OK;
}

dlx_status dlx_broadcast_strides(int32_t ndim, const int64_t *shape, const int64_t *strides, int32_t out_ndim,
                                 const int64_t *out_shape, int64_t *out_strides) {
  DLX_FORWARD(check_shape(__func__, "shape", -1, ndim, shape));
  DLX_FORWARD(check_shape(__func__, "out_shape", -1, out_ndim, out_shape));
  DLX_FAIL_IF(ndim > 0 && strides == NULL, DLX_ERR_NULL_ARGUMENT, "%s: strides is NULL with ndim %d", __func__, ndim);
  DLX_FAIL_IF(out_ndim > 0 && out_strides == NULL, DLX_ERR_NULL_ARGUMENT, "%s: out_strides is NULL with out_ndim %d",
              __func__, out_ndim);
  if (ndim > out_ndim) {
    char a[DLX_SHAPE_TEXT_CAP], b[DLX_SHAPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_BROADCAST, "shape %s does not broadcast to %s: %d dimensions vs %d",
                         dlx__shape_text(a, sizeof a, ndim, shape), dlx__shape_text(b, sizeof b, out_ndim, out_shape), ndim,
                         out_ndim);
  }
  /* Built locally: out_strides may alias strides (dlx_view_broadcast_to in place). */
  int64_t res[DLX_MAX_NDIM];
  int32_t lead = out_ndim - ndim;
  for (int32_t i = 0; i < out_ndim; ++i) {
    int32_t j = i - lead;
    if (j < 0) {
      res[i] = 0;
    } else if (shape[j] == out_shape[i]) {
      res[i] = strides[j];
    } else if (shape[j] == 1) {
      res[i] = 0;
    } else {
      char a[DLX_SHAPE_TEXT_CAP], b[DLX_SHAPE_TEXT_CAP];
      return dlx_set_error(DLX_ERR_BROADCAST, "shape %s does not broadcast to %s: extent %lld vs %lld at dimension %d",
                           dlx__shape_text(a, sizeof a, ndim, shape), dlx__shape_text(b, sizeof b, out_ndim, out_shape),
                           (long long)shape[j], (long long)out_shape[i], i);
    }
  }
  if (out_ndim > 0) memcpy(out_strides, res, (size_t)out_ndim * sizeof *res);
  return DLX_OK;
}

dlx_status dlx_view_broadcast_to(const dlx_view *v, int32_t ndim, const int64_t *shape, dlx_view *out) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(out);
  int64_t st[DLX_MAX_NDIM], sh[DLX_MAX_NDIM];
  DLX_FORWARD(dlx_broadcast_strides(v->ndim, v->shape, v->strides, ndim, shape, st));
  /* shape may point into v or out, so it is copied before either is written. */
  if (ndim > 0) memcpy(sh, shape, (size_t)ndim * sizeof *sh);
  if (out != v) {
    out->data = v->data;
    out->dtype = v->dtype;
    out->device = v->device;
    out->flags = v->flags;
  }
  out->ndim = ndim;
  if (ndim > 0) {
    memcpy(out->shape, sh, (size_t)ndim * sizeof *sh);
    memcpy(out->strides, st, (size_t)ndim * sizeof *st);
  }
  return DLX_OK;
}

static inline bool is_packed_subbyte(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* floor(a / 8) and ceil(a / 8) for either sign; C division truncates toward zero. */
static inline int64_t floor_div8(int64_t a) { return a / 8 - (a % 8 < 0); }
static inline int64_t ceil_div8(int64_t a) { return a / 8 + (a % 8 > 0); }

/* Packed sub-byte views get their exact bit span rounded out to whole bytes: element i sits at bit
 * i * bits * lanes from data (DLPack's packing rule), so both ends are computed in bits. */
dlx_status dlx_view_byte_span(const dlx_view *v, uintptr_t *lo, uintptr_t *hi) {
  DLX_CHECK_NULL(v);
  DLX_CHECK_NULL(lo);
  DLX_CHECK_NULL(hi);
  DLX_FORWARD(check_shape(__func__, "v", -1, v->ndim, v->shape));
  size_t itemsize = dlx_dtype_itemsize(v->dtype);
  DLX_FAIL_IF(itemsize == 0, DLX_ERR_INVALID_DTYPE, "%s: dtype (code %u, bits %u, lanes %u) has no size", __func__,
              (unsigned)v->dtype.code, (unsigned)v->dtype.bits, (unsigned)v->dtype.lanes);
  uintptr_t base = (uintptr_t)v->data;
  for (int32_t d = 0; d < v->ndim; ++d) {
    if (v->shape[d] == 0) {
      *lo = *hi = base;
      return DLX_OK;
    }
  }
  DLX_FAIL_IF(v->data == NULL, DLX_ERR_NULL_DATA, "%s: data is NULL in a view with elements", __func__);
  /* Element offsets of the lowest and the highest element relative to element 0. */
  int64_t low = 0, high = 0;
  for (int32_t d = 0; d < v->ndim; ++d) {
    if (v->shape[d] == 1) continue; /* its stride is never applied */
    int64_t reach;
    bool ovf = __builtin_mul_overflow(v->shape[d] - 1, v->strides[d], &reach);
    if (!ovf) ovf = reach < 0 ? __builtin_add_overflow(low, reach, &low) : __builtin_add_overflow(high, reach, &high);
    DLX_FAIL_IF(ovf, DLX_ERR_OVERFLOW, "%s: element offsets overflow int64 at dimension %d (extent %lld, stride %lld)",
                __func__, d, (long long)v->shape[d], (long long)v->strides[d]);
  }
  bool packed = is_packed_subbyte(v);
  int64_t unit = packed ? (int64_t)dlx_dtype_element_bits(v->dtype) : (int64_t)itemsize;
  int64_t first, last; /* bytes (or bits when packed) from data: [first, last) */
  bool ovf = __builtin_mul_overflow(low, unit, &first) || __builtin_add_overflow(high, (int64_t)1, &last) ||
             __builtin_mul_overflow(last, unit, &last);
  DLX_FAIL_IF(ovf, DLX_ERR_OVERFLOW, "%s: byte offsets of the elements overflow int64 (offsets %lld..%lld, %s %lld)",
              __func__, (long long)low, (long long)high, packed ? "bits" : "itemsize", (long long)unit);
  if (packed) {
    first = floor_div8(first);
    last = ceil_div8(last);
  }
  uint64_t below = dlx__abs_u64(first); /* first <= 0 */
  DLX_FAIL_IF(below > base, DLX_ERR_OVERFLOW, "%s: the view reaches %llu bytes below address 0x%llx", __func__,
              (unsigned long long)below, (unsigned long long)base);
  uintptr_t top;
  DLX_FAIL_IF(__builtin_add_overflow(base, (uint64_t)last, &top), DLX_ERR_OVERFLOW,
              "%s: the view reaches %lld bytes past address 0x%llx, beyond the address space", __func__,
              (long long)last, (unsigned long long)base);
  *lo = base - (uintptr_t)below;
  *hi = top;
  return DLX_OK;
}

/* Same elements at the same addresses: strides of extent-1 dimensions do not matter. */
static bool same_layout(const dlx_view *a, const dlx_view *b) {
  if (a->data != b->data || a->ndim != b->ndim) return false;
  if (dlx_dtype_element_bits(a->dtype) != dlx_dtype_element_bits(b->dtype)) return false;
  if (is_packed_subbyte(a) != is_packed_subbyte(b)) return false;
  for (int32_t d = 0; d < a->ndim; ++d) {
    if (a->shape[d] != b->shape[d]) return false;
    if (a->shape[d] != 1 && a->strides[d] != b->strides[d]) return false;
  }
  return true;
}

dlx_status dlx_view_overlap(const dlx_view *a, const dlx_view *b, dlx_overlap *out) {
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_CHECK_NULL(out);
  uintptr_t alo, ahi, blo, bhi;
  DLX_FORWARD(dlx_view_byte_span(a, &alo, &ahi));
  DLX_FORWARD(dlx_view_byte_span(b, &blo, &bhi));
  *out = DLX_OVERLAP_NONE;
  if (a->device.device_type != b->device.device_type || a->device.device_id != b->device.device_id) return DLX_OK;
  if (alo == ahi || blo == bhi || ahi <= blo || bhi <= alo) return DLX_OK;
  *out = same_layout(a, b) ? DLX_OVERLAP_SAME : DLX_OVERLAP_PARTIAL;
  return DLX_OK;
}
