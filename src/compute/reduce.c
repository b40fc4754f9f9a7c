/* The compute layer's reductions (dlx/ops.h's dlx_reduce, dlx_reduce_result), written once for every
 * backend.
 *
 * Every reduction goes through the same steps (as the elementwise ops of ops.c):
 *  1. validate once: NULLs, the op, the input (a byte-sized dtype with a kernel), the axes (in range, none
 *     repeated), out's dtype for the op, out's shape, the devices (one backend, which this build has), out
 *     writable, not broadcast and not overlapping the input;
 *  2. empty reductions: min, max, argmin and argmax over zero elements fail naming the axis; the others
 *     fill out with their value for no elements (sum 0, prod 1, mean NaN, any false, all true);
 *  3. an input the kernels cannot convert on the fly (kernels/reduce.h, dlx__red_direct: a dtype= that
 *     narrows, or min / max into another dtype) is cast to out's dtype first, into a temporary;
 *  4. plan: the kept and the reduced dimensions, extent-1 ones dropped and neighbours merged where the
 *     memory allows it without changing the reduced (row-major) order, scratch memory for the partial
 *     results of blocks, and the backend runs it (kernels/reduce.h's dlx__red_op); in reference mode the
 *     reference path (compute/reduce_reference.c) walks the views instead.
 * Which bits come out is kernels/reduce.h's rule: the shape and the axes fix the order of every floating-
 * point operation, whatever the backend does with threads and vectors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "compute/ops_internal.h"
#include "compute/reference.h"
#include "core/error_internal.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "kernels/reduce.h"

static const char *const op_names[DLX_REDUCE_COUNT] = {"sum",    "prod",   "min", "max", "mean",
                                                       "argmin", "argmax", "any", "all"};

/* One reduction call: copies of the operands (a temporary may replace the input), the reduced axes. */
typedef struct redcall {
  dlx_reduce_op op;
  const char *name; /* the op's name, for messages */
  dlx_view in, out;
  bool mask[DLX_MAX_NDIM]; /* axis d of the input is reduced */
  int keepdims;
  const dlx__compute_ops *be;
  DLDevice home;
} redcall;

/* ======================================================================================================
 * Checks that need no out (dlx_reduce_result's).
 * ==================================================================================================== */

static dlx_status check_op(dlx_reduce_op op) {
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_REDUCE_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_reduce: op %d is not a dlx_reduce_op (0..%d)", (int)op, DLX_REDUCE_COUNT - 1);
  return DLX_OK;
}

/* The input's dtype: byte-sized, with a kernel. */
static dlx_status check_input_dtype(const char *name, DLDataType dt) {
  const dlx__kd k = dlx__kd_of(dt);
  char t[DLX_DTYPE_TEXT_CAP];
  DLX_FAIL_IF(k == DLX_KD_NONE, DLX_ERR_UNSUPPORTED, "dlx_reduce: %s is not supported for dtype %s (dlx has no "
              "arithmetic on it)", name, dlx__dtype_text(t, sizeof t, dt));
  DLX_FAIL_IF(dlx__kd_is_subbyte(k), DLX_ERR_UNSUPPORTED, "dlx_reduce: %s is not supported for %s (float6/float4 "
              "take part only in cast, fill and copy; reduce a.astype float16 copy, which is exact)", name,
              dlx__dtype_text(t, sizeof t, dt));
  return DLX_OK;
}

/* "(0,2)": the axes of mask, for messages. */
static const char *axes_text(char *buf, size_t cap, int32_t ndim, const bool *mask) {
  int64_t list[DLX_MAX_NDIM];
  int32_t n = 0;
  for (int32_t d = 0; d < ndim; ++d)
    if (mask[d]) list[n++] = d;
  return dlx__shape_text(buf, cap, n, list);
}

/* The reduced axes of an ndim input as a mask: every axis (naxes DLX_REDUCE_ALL_AXES), or axes[0..naxes)
 * counted from the end when negative. */
static dlx_status axes_mask(int32_t ndim, int32_t naxes, const int32_t *axes, bool *mask) {
  for (int32_t d = 0; d < ndim; ++d) mask[d] = naxes == DLX_REDUCE_ALL_AXES;
  if (naxes == DLX_REDUCE_ALL_AXES) return DLX_OK;
  DLX_FAIL_IF(naxes < 0 || naxes > DLX_MAX_NDIM, DLX_ERR_INVALID_ARGUMENT,
              "dlx_reduce: naxes %d is neither DLX_REDUCE_ALL_AXES (-1) nor a count in [0, %d]", (int)naxes,
              DLX_MAX_NDIM);
  DLX_FAIL_IF(naxes > 0 && axes == NULL, DLX_ERR_NULL_ARGUMENT, "dlx_reduce: argument 'axes' is NULL (naxes %d)",
              (int)naxes);
  for (int32_t i = 0; i < naxes; ++i) {
    const int32_t a = axes[i];
    DLX_FAIL_IF(ndim == 0, DLX_ERR_INDEX, "dlx_reduce: axis %d is out of range: a 0-d input has no axes", (int)a);
    DLX_FAIL_IF(a < -ndim || a >= ndim, DLX_ERR_INDEX,
                "dlx_reduce: axis %d is out of range for an input of ndim %d (axes are %d..%d)", (int)a, (int)ndim,
                (int)-ndim, (int)ndim - 1);
    const int32_t d = a < 0 ? a + ndim : a;
    DLX_FAIL_IF(mask[d], DLX_ERR_INVALID_ARGUMENT, "dlx_reduce: axis %d is repeated (axes[%d] is %d)", (int)d,
                (int)i, (int)a);
    mask[d] = true;
  }
  return DLX_OK;
}

/* The result's shape: the input's without the reduced axes, or with extent 1 there (keepdims). */
static void result_shape(const dlx_view *in, const bool *mask, int keepdims, int32_t *ndim, int64_t *shape) {
  int32_t n = 0;
  for (int32_t d = 0; d < in->ndim; ++d) {
    if (!mask[d]) shape[n++] = in->shape[d];
    else if (keepdims) shape[n++] = 1;
  }
  *ndim = n;
}

/* NumPy 2's result dtype of op on dtype dt (dlx/ops.h). */
static DLDataType default_dtype(dlx_reduce_op op, DLDataType dt) {
  const dlx__kd k = dlx__kd_of(dt);
  const bool sint = k == DLX_KD_BOOL || (k >= DLX_KD_I8 && k <= DLX_KD_I64), uint = k >= DLX_KD_U8 && k <= DLX_KD_U64;
  switch (op) {
    case DLX_REDUCE_SUM:
    case DLX_REDUCE_PROD: return sint ? DLX_DTYPE_INT64 : uint ? DLX_DTYPE_UINT64 : dt;
    case DLX_REDUCE_MEAN: return sint || uint ? DLX_DTYPE_FLOAT64 : dt;
    case DLX_REDUCE_ARGMIN:
    case DLX_REDUCE_ARGMAX: return DLX_DTYPE_INT64;
    case DLX_REDUCE_ANY:
    case DLX_REDUCE_ALL: return DLX_DTYPE_BOOL;
    default: return dt;
  }
}

/* Steps shared by dlx_reduce and dlx_reduce_result: the op, the input, the axes. */
static dlx_status check_input(redcall *c, const dlx_view *a, int32_t naxes, const int32_t *axes) {
  DLX_FORWARD(check_op(c->op));
  c->name = op_names[c->op];
  DLX_FORWARD(dlx__ops_check_view("dlx_reduce", "a", a));
  DLX_FORWARD(check_input_dtype(c->name, a->dtype));
  dlx__ops_view_copy(&c->in, a);
  return axes_mask(a->ndim, naxes, axes, c->mask);
}

dlx_status dlx_reduce_result(dlx_reduce_op op, const dlx_view *a, int32_t naxes, const int32_t *axes, int keepdims,
                             int32_t *ndim, int64_t *shape, DLDataType *dtype) {
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(ndim);
  DLX_CHECK_NULL(shape);
  DLX_CHECK_NULL(dtype);
  redcall c;
  c.op = op;
  DLX_FORWARD(check_input(&c, a, naxes, axes));
  result_shape(&c.in, c.mask, keepdims, ndim, shape);
  *dtype = default_dtype(op, a->dtype);
  return DLX_OK;
}

/* ======================================================================================================
 * Checks of out.
 * ==================================================================================================== */

/* out's dtype D for the op (dlx/ops.h). */
static dlx_status check_out_dtype(const redcall *c) {
  const DLDataType d = c->out.dtype;
  const dlx__kd k = dlx__kd_of(d);
  char t[DLX_DTYPE_TEXT_CAP];
  dlx__dtype_text(t, sizeof t, d);
  if (dlx__red_is_arg(c->op))
    DLX_FAIL_IF(!dlx_dtype_equal(d, DLX_DTYPE_INT64), DLX_ERR_DTYPE_MISMATCH,
                "dlx_reduce: %s writes int64 indices, but out is %s", c->name, t);
  if (c->op == DLX_REDUCE_ANY || c->op == DLX_REDUCE_ALL)
    DLX_FAIL_IF(!dlx_dtype_equal(d, DLX_DTYPE_BOOL), DLX_ERR_DTYPE_MISMATCH, "dlx_reduce: %s writes bool, but out is %s",
                c->name, t);
  DLX_FAIL_IF(k == DLX_KD_NONE || dlx__kd_is_subbyte(k), DLX_ERR_UNSUPPORTED,
              "dlx_reduce: %s into %s is not supported (out must have a byte-sized numeric dtype)", c->name, t);
  DLX_FAIL_IF(c->op == DLX_REDUCE_MEAN && (k <= DLX_KD_U64), DLX_ERR_DTYPE_MISMATCH,
              "dlx_reduce: mean needs a floating-point or complex out, but out is %s", t);
  return DLX_OK;
}

static dlx_status check_out_shape(const redcall *c) {
  int64_t want[DLX_MAX_NDIM];
  int32_t n;
  result_shape(&c->in, c->mask, c->keepdims, &n, want);
  bool same = n == c->out.ndim;
  for (int32_t d = 0; same && d < n; ++d) same = want[d] == c->out.shape[d];
  if (same) return DLX_OK;
  char o[DLX_SHAPE_TEXT_CAP], i[DLX_SHAPE_TEXT_CAP], w[DLX_SHAPE_TEXT_CAP], ax[DLX_SHAPE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_INVALID_ARGUMENT,
                       "dlx_reduce: out has shape %s, but %s over axes %s of a %s input%s has shape %s",
                       dlx__shape_text(o, sizeof o, c->out.ndim, c->out.shape), c->name,
                       axes_text(ax, sizeof ax, c->in.ndim, c->mask), dlx__shape_text(i, sizeof i, c->in.ndim, c->in.shape),
                       c->keepdims ? " (keepdims)" : "", dlx__shape_text(w, sizeof w, n, want));
}

/* Both operands on one backend and its home device, then labelled with that home (as ops.c). */
static dlx_status check_devices(redcall *c) {
  const dlx__compute_ops *be;
  DLDevice home;
  DLX_FORWARD(dlx__backend_compute(c->out.device, "dlx_reduce", "out", &c->be, &c->home));
  DLX_FORWARD(dlx__backend_compute(c->in.device, "dlx_reduce", "a", &be, &home));
  if (be != c->be || home.device_type != c->home.device_type || home.device_id != c->home.device_id) {
    char x[DLX_DEVICE_TEXT_CAP], y[DLX_DEVICE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "dlx_reduce: a is on %s but out is on %s: an op runs on one device",
                         dlx__device_text(x, sizeof x, c->in.device), dlx__device_text(y, sizeof y, c->out.device));
  }
  c->in.device = c->out.device = c->home;
  return DLX_OK;
}

/* out is written while the input is still being read: the byte ranges their elements span must be
 * disjoint (an out in a gap of a strided input counts as overlapping: spans are what can be checked). */
static dlx_status check_overlap(const redcall *c) {
  dlx_overlap ov;
  DLX_FORWARD(dlx_view_overlap(&c->out, &c->in, &ov));
  if (ov == DLX_OVERLAP_NONE) return DLX_OK;
  uintptr_t olo, ohi, ilo, ihi;
  DLX_FORWARD(dlx_view_byte_span(&c->out, &olo, &ohi));
  DLX_FORWARD(dlx_view_byte_span(&c->in, &ilo, &ihi));
  return dlx_set_error(DLX_ERR_INVALID_ARGUMENT,
                       "dlx_reduce: out overlaps the input a: out's elements span bytes [%lld, %lld) of a's span "
                       "[0, %llu); a reduction reads its input after out is first written, so out must lie outside it",
                       (long long)(olo - ilo), (long long)(ohi - ilo), (unsigned long long)(ihi - ilo));
}

/* ======================================================================================================
 * Empty reductions.
 * ==================================================================================================== */

/* min, max, argmin, argmax over no element: the first reduced axis of extent 0 named. */
static dlx_status empty_select(const redcall *c) {
  int32_t axis = -1;
  for (int32_t d = 0; d < c->in.ndim && axis < 0; ++d)
    if (c->mask[d] && c->in.shape[d] == 0) axis = d;
  return dlx_set_error(DLX_ERR_INVALID_ARGUMENT,
                       "dlx_reduce: %s over axis %d, which has extent 0: an empty %s has no identity (NumPy raises "
                       "ValueError too)", c->name, (int)axis, c->name);
}

/* The others: out filled with the value of no element (the caller's out view, as dlx_fill checks it). */
static dlx_status empty_fill(const redcall *c, const dlx_view *out) {
  double v = 0.0, im = 0.0;
  if (c->op == DLX_REDUCE_PROD || c->op == DLX_REDUCE_ALL) v = 1.0;
  if (c->op == DLX_REDUCE_MEAN) v = im = NAN; /* 0 / 0, as NumPy (with its warning) */
  const dlx__kd k = dlx__kd_of(out->dtype);
  if (k != DLX_KD_C64 && k != DLX_KD_C128) im = 0.0;
  dlx_view s;
  dlx_scalar_buf buf;
  DLX_FORWARD(dlx_scalar_view(&s, &buf, out->dtype, v, im));
  return dlx_fill(out, &s);
}

/* ======================================================================================================
 * The plan.
 * ==================================================================================================== */

/* Append dimension (ext, in_st, out_st) to a list, merged into the previous one when that one steps
 * exactly over it (the row-major order of the elements is unchanged by the merge). */
static void push_dim(int32_t *n, int64_t *shape, int64_t *in_st, int64_t *out_st, int64_t ext, int64_t ist,
                     int64_t ost) {
  const int32_t k = *n;
  int64_t pi, po;
  if (k > 0 && !__builtin_mul_overflow(ist, ext, &pi) && pi == in_st[k - 1] &&
      (out_st == NULL || (!__builtin_mul_overflow(ost, ext, &po) && po == out_st[k - 1]))) {
    shape[k - 1] *= ext;
    in_st[k - 1] = ist;
    if (out_st != NULL) out_st[k - 1] = ost;
    return;
  }
  shape[k] = ext;
  in_st[k] = ist;
  if (out_st != NULL) out_st[k] = ost;
  *n = k + 1;
}

static dlx_status plan(const redcall *c, dlx__red_op *p) {
  const int64_t isz = (int64_t)dlx_dtype_itemsize(c->in.dtype), osz = (int64_t)dlx_dtype_itemsize(c->out.dtype);
  p->keep_ndim = p->red_ndim = 0;
  p->nout = p->nred = 1;
  for (int32_t d = 0, od = 0; d < c->in.ndim; ++d) {
    const int64_t ext = c->in.shape[d];
    /* the strides of extent-1 dimensions are anything (DLPack); the others fit in bytes: check_overlap
     * computed both views' byte spans */
    const int64_t ist = ext == 1 ? 0 : c->in.strides[d] * isz;
    const int64_t ost = ext == 1 || c->mask[d] ? 0 : c->out.strides[od] * osz;
    if (!c->mask[d] || c->keepdims) ++od;
    if (ext == 1) continue;
    int64_t *count = c->mask[d] ? &p->nred : &p->nout;
    DLX_FAIL_IF(__builtin_mul_overflow(*count, ext, count), DLX_ERR_OVERFLOW,
                "dlx_reduce: the input's element count overflows int64");
    if (c->mask[d]) push_dim(&p->red_ndim, p->red_shape, p->red_in, NULL, ext, ist, 0);
    else push_dim(&p->keep_ndim, p->keep_shape, p->keep_in, p->keep_out, ext, ist, ost);
  }
  p->nblocks = (p->nred + DLX__RED_BLOCK - 1) / DLX__RED_BLOCK;
  p->op = c->op;
  p->in = c->in.dtype;
  p->out = c->out.dtype;
  p->acc = dlx__red_acc(c->op, c->in.dtype, c->out.dtype);
  p->device = c->home;
  p->in_data = c->in.data;
  p->out_data = c->out.data;
  p->scratch = NULL;
  return DLX_OK;
}

/* The input cast to out's dtype, compact, in scratch memory *temp (the caller frees it). */
static dlx_status convert_input(redcall *c, void **temp) {
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(c->out.dtype, (uint64_t)dlx_view_size(&c->in), false, &bytes));
  DLX_FORWARD(dlx__scratch_alloc(c->be, c->home, bytes > 0 ? bytes : 1, temp, "dlx_reduce"));
  dlx_view tmp;
  DLX_FORWARD(dlx_view_init(&tmp, *temp, c->out.dtype, c->home, c->in.ndim, c->in.shape, NULL));
  DLX_FORWARD(dlx_cast(&tmp, &c->in));
  dlx__ops_view_copy(&c->in, &tmp);
  return DLX_OK;
}

static dlx_status run_plan(redcall *c) {
  dlx__red_op p;
  DLX_FORWARD(plan(c, &p));
  if (dlx__ops_reference_mode()) {
    DLX_FAIL_IF(!dlx_device_is_host_accessible(c->home), DLX_ERR_UNSUPPORTED,
                "dlx_reduce: the reference path runs on host memory only");
    dlx__red_ref_run(&p, &c->out, &c->in, c->mask, c->keepdims);
    return DLX_OK;
  }
  void *scratch = NULL;
  if (p.nblocks > 1) {
    const int64_t slots = dlx__red_scratch_slots(p.nout, p.nblocks);
    uint64_t bytes;
    DLX_FAIL_IF(__builtin_mul_overflow((uint64_t)slots, (uint64_t)sizeof(dlx__red_slot), &bytes), DLX_ERR_OVERFLOW,
                "dlx_reduce: %lld partial results do not fit the address space", (long long)slots);
    DLX_FORWARD(dlx__scratch_alloc(c->be, c->home, bytes, &scratch, "dlx_reduce"));
    p.scratch = scratch;
  }
  const dlx_status st = dlx__backend_reduce(c->be, &p);
  if (scratch != NULL) dlx__scratch_free(c->be, c->home, scratch);
  return st;
}

dlx_status dlx_reduce(dlx_reduce_op op, const dlx_view *out, const dlx_view *a, int32_t naxes, const int32_t *axes,
                      int keepdims) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  redcall c;
  c.op = op;
  c.keepdims = keepdims != 0;
  DLX_FORWARD(check_input(&c, a, naxes, axes));
  DLX_FORWARD(dlx__ops_check_view("dlx_reduce", "out", out));
  dlx__ops_view_copy(&c.out, out);
  DLX_FORWARD(check_out_dtype(&c));
  DLX_FORWARD(check_out_shape(&c));
  DLX_FORWARD(dlx__ops_check_output("dlx_reduce", "out", &c.out));
  DLX_FORWARD(check_devices(&c));
  DLX_FORWARD(check_overlap(&c));
  bool empty_reduction = false;
  for (int32_t d = 0; d < c.in.ndim; ++d) empty_reduction |= c.mask[d] && c.in.shape[d] == 0;
  if (empty_reduction) {
    if (dlx__red_is_select(op) || dlx__red_is_arg(op)) return empty_select(&c);
    return empty_fill(&c, out);
  }
  if (dlx_view_size(&c.out) == 0) return DLX_OK;
  void *temp = NULL;
  dlx_status st = DLX_OK;
  if (!dlx__red_direct(op, c.in.dtype, c.out.dtype)) st = convert_input(&c, &temp);
  if (st == DLX_OK) st = run_plan(&c);
  if (temp != NULL) dlx__scratch_free(c.be, c.home, temp);
  return st;
}
