/* dlx_mask_count and dlx_mask_gather (dlx/ops.h): NumPy's boolean-mask indexing, src[mask], written once
 * for every backend.
 *
 *  1. validate: NULLs, the mask (bool, host-accessible, the shape of src's first dimensions), out (the
 *     shape (count,) + the rest, src's dtype, writable, not broadcast), src and out on one backend;
 *  2. merge the mask's dimensions with src's where both step over them alike (a compact mask over a
 *     compact source is one dimension), dropping extent-1 ones;
 *  3. a backend with a mask_gather entry gets the mask itself: it counts the true elements per chunk and
 *     compacts each chunk into its part of out, with no coordinates in between (the CPU's: threaded);
 *     one without (and the reference mode, packed float6/float4, an out that overlaps src) takes the
 *     coordinates of the true elements as int64 index views through dlx_gather, which handles them all.
 * The count of the true elements is the CPU backend's (threaded): the mask is host memory on any device. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "compute/ops_internal.h"
#include "compute/reference.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

static dlx_status check_mask(const char *fn, const dlx_view *mask) {
  DLX_FORWARD(dlx__ops_check_view(fn, "mask", mask));
  char t[DLX_DTYPE_TEXT_CAP];
  DLX_FAIL_IF(mask->dtype.code != DLX_CODE_BOOL || mask->dtype.lanes != 1, DLX_ERR_DTYPE_MISMATCH,
              "%s: mask has dtype %s; a mask is bool", fn, dlx__dtype_text(t, sizeof t, mask->dtype));
  DLX_FAIL_IF(mask->ndim < 1, DLX_ERR_RANK, "%s: mask is 0-d; a mask has at least one dimension", fn);
  if (!dlx_device_is_host_accessible(mask->device)) {
    char d[DLX_DEVICE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                         "%s: mask is on %s; a mask is read on the host when the call is made: copy it to host "
                         "memory first",
                         fn, dlx__device_text(d, sizeof d, mask->device));
  }
  return DLX_OK;
}

/* Step 2: the mask's dimensions merged with src's (src NULL: the mask's alone), src's strides in bytes
 * (item). A mask of no elements, or of extent-1 dimensions only, is one dimension. */
static void merge(const dlx_view *mask, const dlx_view *src, int64_t item, dlx__mask_op *op) {
  op->nm = 0;
  for (int32_t d = 0; d < mask->ndim; ++d) {
    const int64_t e = mask->shape[d], ms = mask->strides[d], ss = src != NULL ? src->strides[d] * item : 0;
    if (e == 1) continue;
    const int32_t m = op->nm - 1;
    if (m >= 0 && op->mask_strides[m] == ms * e && op->src_strides[m] == ss * e) {
      op->shape[m] *= e;
      op->mask_strides[m] = ms;
      op->src_strides[m] = ss;
      continue;
    }
    op->shape[op->nm] = e;
    op->mask_strides[op->nm] = ms;
    op->src_strides[op->nm++] = ss;
  }
  if (op->nm == 0 || dlx_view_size(mask) == 0) {
    op->nm = 1;
    op->shape[0] = dlx_view_size(mask);
    op->mask_strides[0] = op->src_strides[0] = 0;
  }
  op->mask = mask->data;
}

static dlx_status count_true(const char *fn, const dlx_view *mask, int64_t *count) {
  dlx__mask_op op = {.out = NULL, .src = NULL};
  merge(mask, NULL, 0, &op);
  *count = op.shape[0] == 0 ? 0 : dlx__cpu_mask_count(&op);
  DLX_FAIL_IF(*count < 0, DLX_ERR_OUT_OF_MEMORY, "%s: no memory to count the mask's true elements", fn);
  return DLX_OK;
}

dlx_status dlx_mask_count(const dlx_view *mask, int64_t *count) {
  DLX_CHECK_NULL(mask);
  DLX_CHECK_NULL(count);
  DLX_FORWARD(check_mask("dlx_mask_count", mask));
  return count_true("dlx_mask_count", mask, count);
}

/* ---- dlx_mask_gather ------------------------------------------------------------------------------- */

static const char *const FN = "dlx_mask_gather";

static dlx_status check_shapes(const dlx_view *out, const dlx_view *src, const dlx_view *mask) {
  char a[DLX_SHAPE_TEXT_CAP], b[DLX_SHAPE_TEXT_CAP], x[DLX_DTYPE_TEXT_CAP], y[DLX_DTYPE_TEXT_CAP];
  bool ok = mask->ndim <= src->ndim;
  for (int32_t d = 0; ok && d < mask->ndim; ++d) ok = mask->shape[d] == src->shape[d];
  if (!ok)
    return dlx_set_error(DLX_ERR_BROADCAST, "%s: mask of shape %s does not cover the first dimensions of src of shape %s",
                         FN, dlx__shape_text(a, sizeof a, mask->ndim, mask->shape),
                         dlx__shape_text(b, sizeof b, src->ndim, src->shape));
  const int32_t rest = src->ndim - mask->ndim;
  ok = out->ndim == rest + 1;
  for (int32_t d = 0; ok && d < rest; ++d) ok = out->shape[d + 1] == src->shape[mask->ndim + d];
  if (!ok)
    return dlx_set_error(DLX_ERR_BROADCAST, "%s: out has shape %s; it must be (count,) + %s, src's dimensions past the mask",
                         FN, dlx__shape_text(a, sizeof a, out->ndim, out->shape),
                         dlx__shape_text(b, sizeof b, rest, src->shape + mask->ndim));
  if (!dlx_dtype_equal(out->dtype, src->dtype))
    return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "%s: dtype mismatch: out is %s but src is %s", FN,
                         dlx__dtype_text(x, sizeof x, out->dtype), dlx__dtype_text(y, sizeof y, src->dtype));
  return DLX_OK;
}

static dlx_status wrong_count(const dlx_view *out, const dlx_view *mask) {
  int64_t count = 0;
  DLX_FORWARD(count_true(FN, mask, &count));
  return dlx_set_error(DLX_ERR_BROADCAST, "%s: out has extent %" PRId64 " in dimension 0, but mask has %" PRId64
                       " true elements", FN, out->shape[0], count);
}

/* Step 3's other way: the coordinates of the true elements, one int64 index view per mask dimension,
 * through dlx_gather. */
static dlx_status by_coordinates(const dlx_view *out, const dlx_view *src, const dlx_view *mask) {
  int64_t count = 0;
  DLX_FORWARD(count_true(FN, mask, &count));
  if (count != out->shape[0]) return wrong_count(out, mask);
  if (count == 0) return DLX_OK;
  const int32_t nd = mask->ndim;
  int64_t *coords = malloc((size_t)count * (size_t)nd * sizeof *coords);
  DLX_FAIL_IF(coords == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: %" PRId64 " true elements: no memory for their coordinates",
              FN, count);
  int64_t idx[DLX_MAX_NDIM] = {0}, pos = 0;
  const int64_t n = dlx_view_size(mask);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (int32_t d = 0; d < nd; ++d) off += idx[d] * mask->strides[d];
    if (((const unsigned char *)mask->data)[off] != 0 && pos < count) {
      for (int32_t d = 0; d < nd; ++d) coords[(size_t)d * (size_t)count + (size_t)pos] = idx[d];
      ++pos;
    }
    for (int32_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < mask->shape[d]) break;
      idx[d] = 0;
    }
  }
  dlx_view iv[DLX_MAX_NDIM];
  const dlx_view *ip[DLX_MAX_NDIM];
  dlx_status st = DLX_OK;
  for (int32_t d = 0; st == DLX_OK && d < nd; ++d) {
    st = dlx_view_init(&iv[d], coords + (size_t)d * (size_t)count, DLX_DTYPE_INT64, (DLDevice){kDLCPU, 0}, 1, &count,
                       NULL);
    ip[d] = &iv[d];
  }
  if (st == DLX_OK) st = dlx_gather(out, src, nd, ip);
  free(coords);
  return st;
}

static bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

dlx_status dlx_mask_gather(const dlx_view *out, const dlx_view *src, const dlx_view *mask) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(src);
  DLX_CHECK_NULL(mask);
  DLX_FORWARD(dlx__ops_check_view(FN, "out", out));
  DLX_FORWARD(dlx__ops_check_view(FN, "src", src));
  DLX_FORWARD(check_mask(FN, mask));
  DLX_FORWARD(check_shapes(out, src, mask));
  DLX_FORWARD(dlx__ops_check_output(FN, "out", out));
  const dlx__compute_ops *be, *be_out;
  DLDevice home, home_out;
  DLX_FORWARD(dlx__backend_compute(src->device, FN, "src", &be, &home));
  DLX_FORWARD(dlx__backend_compute(out->device, FN, "out", &be_out, &home_out));
  if (be != be_out || home.device_type != home_out.device_type || home.device_id != home_out.device_id) {
    char x[DLX_DEVICE_TEXT_CAP], y[DLX_DEVICE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: out is on %s but src is on %s: indexing runs on one device", FN,
                         dlx__device_text(x, sizeof x, out->device), dlx__device_text(y, sizeof y, src->device));
  }
  dlx_overlap ov = DLX_OVERLAP_NONE;
  DLX_FORWARD(dlx_view_overlap(out, src, &ov));
  if (be->mask_gather == NULL || dlx__ops_reference_mode() || is_packed(src) || is_packed(out) ||
      ov != DLX_OVERLAP_NONE || dlx_view_size(out) == 0) /* (empty blocks: only the count to check) */
    return by_coordinates(out, src, mask);
  if (dlx_view_size(mask) == 0) return out->shape[0] == 0 ? DLX_OK : wrong_count(out, mask);
  dlx_view rest = *src;
  rest.ndim = src->ndim - mask->ndim;
  for (int32_t d = 0; d < rest.ndim; ++d) {
    rest.shape[d] = src->shape[mask->ndim + d];
    rest.strides[d] = src->strides[mask->ndim + d];
  }
  rest.device = home;
  dlx_view o = *out;
  o.device = home;
  dlx__mask_op op = {.device = home, .count = out->shape[0], .out = &o, .src = &rest};
  merge(mask, src, (int64_t)dlx_dtype_itemsize(src->dtype), &op);
  const dlx_status st = be->mask_gather(&op);
  return st == DLX_ERR_BROADCAST ? wrong_count(out, mask) : st;
}
