/* The compute layer: fill, copy, cast, elementwise binary ops and fma on strided views (dlx/ops.h),
 * written once for every backend.
 *
 * Every op goes through the same steps (BLIS's front end / typed kernel split):
 *  1. validate once: NULLs, ranks, dtypes (the op's rule), devices (every operand on one backend, which
 *     this build has), read-only and broadcast outputs, shapes that broadcast to the output;
 *  2. inputs that partially overlap the output are copied to a temporary in the backend's memory (the
 *     one allocation an op makes; exact aliasing, out == a, is elementwise-safe and kept);
 *  3. packed float6/float4 operands are unpacked by the backend into one-byte-per-element temporaries
 *     (and the output packed back at the end), so the loops only ever see byte-sized elements;
 *  4. dlx_iter_init plans the joint loop (broadcast, reorder, coalesce), every dimension the output walks
 *     backwards is flipped, and the backend runs its typed loop for (op, dtypes) over the plan.
 * The reference path (dlx__ops_set_reference, compute/reference.c) replaces steps 3 and 4 with a plain
 * walk over the N-d index; the tests compare the two.
 *
 * Limits (deliberate, for now):
 *  - packed float6/float4 take any strides but go through a one-byte-per-element temporary of the
 *    operand's size; packed vectors (lanes > 1) are refused;
 *  - only zero output strides are refused: an output whose distinct indices share memory through
 *    non-zero strides (shape (3,3), strides (1,1)) is not detected, and its result depends on the order
 *    of the writes;
 *  - int128, float128, complex32, vector and opaque dtypes take part in copy and fill only (byte moves);
 *  - fma on 64-bit integers computes in double, exact up to 2^53. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "compute/ops_internal.h"
#include "compute/reference.h"
#include "kernels/convert.h"
#include "kernels/ew.h"
#include "kernels/ew_names.h"
#include "core/error_internal.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

static inline bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* ======================================================================================================
 * One op call: its operands (local copies, so that temporaries can replace them), its backend and its
 * temporaries.
 * ==================================================================================================== */

typedef struct opcall {
  const char *fn; /* public name, for messages */
  dlx__ew_kind kind;
  dlx_unop unop;
  dlx_binop op;
  dlx_ternop ternop;
  double scalar;
  int nin;
  const char *names[1 + DLX__EW_MAX_IN]; /* out, inputs */
  const dlx__compute_ops *be;
  DLDevice home;        /* where the backend computes (and keeps temporaries) */
  const dlx__memory_ops *foreign[DLX__EW_MAX_IN]; /* input k lives on another backend: the memory half that moves it */
  bool byval[DLX__EW_MAX_IN];   /* input k is passed by value (a host scalar of an op on device memory) */
  bool host_in[DLX__EW_MAX_IN]; /* input k is host memory that the backend's loops read in place (reads_host) */
  dlx__ew_value value[DLX__EW_MAX_IN];
  dlx_view out;
  dlx_view in[DLX__EW_MAX_IN];
  void *temps[6];
  int ntemps;
} opcall;


dlx_status dlx__ops_check_view(const char *fn, const char *name, const dlx_view *v) {
  DLX_FAIL_IF(v->ndim < 0 || v->ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: %s has ndim %d, outside [0, %d]", fn, name,
              (int)v->ndim, DLX_MAX_NDIM);
  if (!dlx_dtype_is_valid(v->dtype)) {
    char t[DLX_DTYPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_INVALID_DTYPE, "%s: %s has illegal dtype %s", fn, name,
                         dlx__dtype_text(t, sizeof t, v->dtype));
  }
  bool empty = false;
  for (int32_t d = 0; d < v->ndim; ++d) {
    DLX_FAIL_IF(v->shape[d] < 0, DLX_ERR_NEGATIVE_EXTENT, "%s: %s has negative extent %lld at dimension %d", fn, name,
                (long long)v->shape[d], (int)d);
    if (v->shape[d] == 0) empty = true;
  }
  const dlx__compute_ops *be;
  DLX_FORWARD(dlx__backend_compute(v->device, fn, name, &be, NULL));
  DLX_FAIL_IF(!empty && v->data == NULL, DLX_ERR_NULL_DATA, "%s: %s has elements but NULL data", fn, name);
  return DLX_OK;
}

dlx_status dlx__ops_check_output(const char *fn, const char *name, const dlx_view *v) {
  DLX_FAIL_IF(v->flags & DLX_VIEW_READ_ONLY, DLX_ERR_READ_ONLY, "%s: %s is read-only", fn, name);
  for (int32_t d = 0; d < v->ndim; ++d) {
    /* several output elements at one address: the result would depend on the write order */
    DLX_FAIL_IF(v->shape[d] > 1 && v->strides[d] == 0, DLX_ERR_BAD_STRIDE,
                "%s: %s has stride 0 at dimension %d (extent %lld): an output cannot be broadcast", fn, name, (int)d,
                (long long)v->shape[d]);
  }
  return DLX_OK;
}

static dlx_status check_broadcast(const char *fn, const char *name, const dlx_view *in, const char *out_name,
                                  const dlx_view *out) {
  bool ok = in->ndim <= out->ndim;
  for (int32_t j = 0; ok && j < in->ndim; ++j) {
    const int64_t e = in->shape[in->ndim - 1 - j], o = out->shape[out->ndim - 1 - j];
    ok = e == o || e == 1;
  }
  if (!ok) {
    char a[DLX_SHAPE_TEXT_CAP], b[DLX_SHAPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_BROADCAST, "%s: %s of shape %s does not broadcast to %s's shape %s", fn, name,
                         dlx__shape_text(a, sizeof a, in->ndim, in->shape), out_name,
                         dlx__shape_text(b, sizeof b, out->ndim, out->shape));
  }
  return DLX_OK;
}

static bool is_host_scalar(const dlx_view *v) {
  return dlx_view_size(v) == 1 && dlx_device_is_host_accessible(v->device);
}

static dlx_status mismatch(const opcall *c, int i, int j, const dlx_view *vi, const dlx_view *vj, const char *hint) {
  char x[DLX_DEVICE_TEXT_CAP], y[DLX_DEVICE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: %s is on %s but %s is on %s: an op runs on one device%s", c->fn,
                       c->names[i], dlx__device_text(x, sizeof x, vi->device), c->names[j],
                       dlx__device_text(y, sizeof y, vj->device), hint);
}

/* Two inputs on different backends or devices (neither a host scalar) are refused naming them both: the
 * output may be one a caller made after an input (the Python module's results are), and then naming it
 * would blame an operand the user never wrote. */
static dlx_status check_inputs_agree(const opcall *c) {
  for (int i = 0; i < c->nin; ++i) {
    for (int j = i + 1; j < c->nin; ++j) {
      if (is_host_scalar(&c->in[i]) || is_host_scalar(&c->in[j])) continue;
      const dlx__compute_ops *bi, *bj;
      DLDevice hi, hj;
      DLX_FORWARD(dlx__backend_compute(c->in[i].device, c->fn, c->names[i + 1], &bi, &hi));
      DLX_FORWARD(dlx__backend_compute(c->in[j].device, c->fn, c->names[j + 1], &bj, &hj));
      if (bi == bj && hi.device_type == hj.device_type && hi.device_id == hj.device_id) continue;
      return mismatch(c, i + 1, j + 1, &c->in[i], &c->in[j], " (move one first with dlx_copy)");
    }
  }
  return DLX_OK;
}

/* Every operand on the output's backend and device, with three exceptions that cross between backends:
 * dlx_copy between memory kinds (the memory half with a copy entry moves the data); a one-element input in
 * host memory (a scalar: handed to the backend by value, see run_call); and any input in host-accessible
 * memory of an op on a backend whose loops read host memory (reads_host: oneAPI), read in place. Then every
 * operand on the backend is labelled with its home device, so that the overlap test and the plan see one
 * address space (pinned, managed and cpu memory are one to the CPU backend). */
static dlx_status check_devices(opcall *c) {
  DLX_FORWARD(check_inputs_agree(c));
  DLX_FORWARD(dlx__backend_compute(c->out.device, c->fn, c->names[0], &c->be, &c->home));
  for (int k = 0; k < c->nin; ++k) {
    const dlx__compute_ops *be;
    DLDevice home;
    DLX_FORWARD(dlx__backend_compute(c->in[k].device, c->fn, c->names[k + 1], &be, &home));
    c->foreign[k] = NULL;
    if (be == c->be && home.device_type == c->home.device_type && home.device_id == c->home.device_id) {
      c->in[k].device = c->home;
      continue;
    }
    if (c->be->reads_host && c->kind != DLX_EW_COPY && dlx_device_is_host_accessible(c->in[k].device)) {
      c->host_in[k] = true; /* one address space with the backend's host-readable memory */
      c->in[k].device = c->home;
      continue;
    }
    /* the memory half that can move data between the two: the one with a copy entry */
    const dlx__memory_ops *mover = dlx__backend_mover(c->out.device, c->in[k].device);
    if (mover == NULL || (c->kind != DLX_EW_COPY && !is_host_scalar(&c->in[k])))
      return mismatch(c, k + 1, 0, &c->in[k], &c->out, mover != NULL ? " (move it first with dlx_copy)" : "");
    c->foreign[k] = mover;
  }
  c->out.device = c->home;
  return DLX_OK;
}

/* Generic checks of an op call, after the op-specific dtype rules. */
static dlx_status check_call(opcall *c) {
  DLX_FORWARD(dlx__ops_check_output(c->fn, c->names[0], &c->out));
  for (int k = 0; k < c->nin; ++k) DLX_FORWARD(check_broadcast(c->fn, c->names[k + 1], &c->in[k], c->names[0], &c->out));
  return check_devices(c);
}

/* ======================================================================================================
 * Temporaries: backend memory owned by the call.
 * ==================================================================================================== */

static void free_temps(opcall *c) {
  for (int i = 0; i < c->ntemps; ++i) dlx__scratch_free(c->be, c->home, c->temps[i]);
  c->ntemps = 0;
}

static dlx_status alloc_temp(opcall *c, uint64_t bytes, void **out) {
  DLX_FAIL_IF(c->ntemps >= (int)(sizeof c->temps / sizeof c->temps[0]), DLX_ERR_OUT_OF_MEMORY,
              "%s: a temporary of %llu bytes cannot be allocated", c->fn, (unsigned long long)bytes);
  void *p = NULL;
  DLX_FORWARD(dlx__scratch_alloc(c->be, c->home, bytes, &p, c->fn));
  c->temps[c->ntemps++] = p;
  *out = p;
  return DLX_OK;
}

void dlx__ops_view_copy(dlx_view *dst, const dlx_view *src) {
  dst->data = src->data;
  dst->dtype = src->dtype;
  dst->device = src->device;
  dst->ndim = src->ndim;
  dst->flags = src->flags;
  const size_t n = src->ndim > 0 && src->ndim <= DLX_MAX_NDIM ? (size_t)src->ndim : 0;
  memcpy(dst->shape, src->shape, n * sizeof *src->shape);
  memcpy(dst->strides, src->strides, n * sizeof *src->strides);
}

/* A C-contiguous view over fresh scratch memory with v's shape and dtype; padded when `padded`. */
static dlx_status temp_like(opcall *c, const dlx_view *v, bool padded, dlx_view *out) {
  const int64_t n = dlx_view_size(v);
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(v->dtype, (uint64_t)n, padded, &bytes));
  void *p = NULL;
  DLX_FORWARD(alloc_temp(c, bytes, &p));
  dlx__ops_view_copy(out, v);
  out->data = p;
  out->flags = padded && dlx_dtype_is_subbyte(v->dtype) ? DLX_VIEW_SUBBYTE_PADDED : 0;
  return dlx_layout_compact_strides(v->ndim, v->shape, NULL, out->strides);
}

/* ======================================================================================================
 * The pipeline.
 * ==================================================================================================== */

static void init_call(opcall *c, const char *fn, dlx__ew_kind kind, int nin, const char *out_name, const char *n1,
                      const char *n2) {
  /* field by field: the views (4 KiB) are filled by load_operands */
  c->unop = DLX_UNOP_NEG;
  c->op = DLX_OP_ADD;
  c->ternop = DLX_TERNOP_WHERE;
  c->scalar = 0.0;
  c->ntemps = 0;
  c->be = NULL;
  for (int k = 0; k < DLX__EW_MAX_IN; ++k) {
    c->foreign[k] = NULL;
    c->byval[k] = c->host_in[k] = false;
  }
  c->fn = fn;
  c->kind = kind;
  c->nin = nin;
  c->names[0] = out_name;
  c->names[1] = n1;
  c->names[2] = n2;
  c->names[3] = "c";
}

static dlx__ew_op ew_op_of(const opcall *c) {
  dlx__ew_op op;
  op.kind = c->kind;
  op.unop = c->unop;
  op.op = c->op;
  op.ternop = c->ternop;
  op.scalar = c->scalar;
  op.nin = c->nin;
  op.dtype[0] = c->out.dtype;
  op.dtype[1] = c->in[0].dtype;
  op.dtype[2] = c->nin > 1 ? c->in[1].dtype : c->in[0].dtype;
  op.dtype[3] = c->nin > 2 ? c->in[2].dtype : op.dtype[2];
  op.device = c->home;
  for (int k = 0; k < DLX__EW_MAX_IN; ++k) {
    op.host[k] = c->host_in[k];
    op.byval[k] = c->byval[k];
    if (c->byval[k]) op.value[k] = c->value[k];
  }
  return op;
}

/* Byte-sized operands: plan and hand over to the backend. */
static dlx_status plan_and_execute(opcall *c) {
  const dlx_view *views[1 + DLX__EW_MAX_IN] = {&c->out, &c->in[0], &c->in[1], &c->in[2]};
  const int nop = 1 + c->nin;
  dlx_iter it;
  DLX_FORWARD(dlx_iter_init(&it, nop, views, DLX_ITER_OUTPUT_FULL));
  if (it.size == 0) return DLX_OK;
  /* Walk every dimension the output runs backwards the other way (NumPy does the same): elementwise
   * results do not depend on the order, and a reversed view then meets the contiguous fast paths. */
  for (int d = 0; d < it.ndim; ++d) {
    if (it.strides[0][d] >= 0) continue;
    for (int k = 0; k < nop; ++k) {
      it.data[k] += (intptr_t)((it.shape[d] - 1) * it.strides[k][d]);
      it.strides[k][d] = -it.strides[k][d];
    }
  }
  const dlx__ew_op op = ew_op_of(c);
  return c->be->execute(&op, &it);
}

/* Input k, a one-element input in host memory of an op on another backend's memory, read now on the host
 * and passed by value (dlx__ew_op.byval): the device's kernel gets the bytes with its launch, where a
 * copy into device memory first would block the host until the device's queue drains. An element wider
 * than DLX__EW_VALUE_BYTES (vector dtypes of many lanes, moved only by fill) is staged through a copy
 * into this backend's memory instead. */
static dlx_status take_by_value(opcall *c, int k) {
  dlx_view *v = &c->in[k];
  const bool packed = is_packed(v);
  const uint64_t item = packed ? 1 : dlx_dtype_itemsize(v->dtype);
  if (item > DLX__EW_VALUE_BYTES) {
    dlx_view tmp;
    DLX_FORWARD(temp_like(c, v, (v->flags & DLX_VIEW_SUBBYTE_PADDED) != 0, &tmp));
    tmp.device = c->home;
    DLX_FORWARD(c->foreign[k]->copy(&tmp, v));
    dlx__ops_view_copy(v, &tmp);
    return DLX_OK;
  }
  memset(c->value[k].bytes, 0, sizeof c->value[k].bytes);
  if (packed) { /* float6/float4: the code at bit 0, one per byte as the loops take them */
    c->value[k].bytes[0] = (unsigned char)dlx__cvt_bits_get(v->data, 0, v->dtype.bits);
    v->flags |= DLX_VIEW_SUBBYTE_PADDED;
  } else {
    memcpy(c->value[k].bytes, v->data, (size_t)item);
  }
  c->byval[k] = true;
  v->data = c->value[k].bytes;
  v->device = c->home;
  return DLX_OK;
}

static dlx_status run_call(opcall *c) {
  if (dlx_view_size(&c->out) == 0) return DLX_OK;

  /* Inputs on another backend: a copy is the mover's transfer; a scalar goes to the backend by value. */
  for (int k = 0; k < c->nin; ++k) {
    if (c->foreign[k] == NULL) continue;
    if (c->kind == DLX_EW_COPY && c->nin == 1) return c->foreign[k]->copy(&c->out, &c->in[k]);
    DLX_FORWARD(take_by_value(c, k));
  }

  /* An input that overlaps the output other than element for element would be read after the output
   * overwrote it: copy it first. */
  for (int k = 0; k < c->nin; ++k) {
    dlx_overlap ov;
    DLX_FORWARD(dlx_view_overlap(&c->out, &c->in[k], &ov));
    if (ov != DLX_OVERLAP_PARTIAL) continue;
    dlx_view tmp;
    DLX_FORWARD(temp_like(c, &c->in[k], (c->in[k].flags & DLX_VIEW_SUBBYTE_PADDED) != 0, &tmp));
    opcall cc;
    init_call(&cc, c->fn, DLX_EW_COPY, 1, "temporary", c->names[k + 1], NULL);
    cc.be = c->be;
    cc.home = c->home;
    dlx__ops_view_copy(&cc.out, &tmp);
    dlx__ops_view_copy(&cc.in[0], &c->in[k]);
    dlx_status st = run_call(&cc);
    free_temps(&cc);
    DLX_FORWARD(st);
    dlx__ops_view_copy(&c->in[k], &tmp);
  }

  if (dlx__ops_reference_mode()) {
    DLX_FAIL_IF(!dlx_device_is_host_accessible(c->home), DLX_ERR_UNSUPPORTED,
                "%s: the reference path runs on host memory only", c->fn);
    const dlx_view *views[1 + DLX__EW_MAX_IN] = {&c->out, &c->in[0], &c->in[1], &c->in[2]};
    const dlx__ew_op op = ew_op_of(c);
    dlx__ref_run(&op, views);
    return DLX_OK;
  }

  /* Packed float6/float4: inputs unpacked to one code per byte; a packed output is computed into a
   * padded temporary and packed at the end (after every input was read, so no overlap question). */
  for (int k = 0; k < c->nin; ++k) {
    if (!is_packed(&c->in[k])) continue;
    dlx_view tmp;
    DLX_FORWARD(temp_like(c, &c->in[k], true, &tmp));
    /* host memory read in place is the CPU's to unpack (the backend's unpack knows its own memory) */
    DLX_FORWARD((c->host_in[k] ? &dlx__cpu_compute : c->be)->unpack(&c->in[k], tmp.data));
    dlx__ops_view_copy(&c->in[k], &tmp);
  }
  if (!is_packed(&c->out)) return plan_and_execute(c);
  dlx_view packed_out;
  dlx__ops_view_copy(&packed_out, &c->out);
  DLX_FORWARD(temp_like(c, &packed_out, true, &c->out));
  DLX_FORWARD(plan_and_execute(c));
  return c->be->pack(&packed_out, c->out.data);
}

static dlx_status run_and_free(opcall *c) {
  dlx_status st = run_call(c);
  free_temps(c);
  return st;
}

/* ======================================================================================================
 * The public ops.
 * ==================================================================================================== */

static dlx_status dtype_mismatch(const opcall *c, int i, int j) {
  const dlx_view *vi = i == 0 ? &c->out : &c->in[i - 1], *vj = j == 0 ? &c->out : &c->in[j - 1];
  char a[DLX_DTYPE_TEXT_CAP], b[DLX_DTYPE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "%s: dtype mismatch: %s is %s but %s is %s", c->fn, c->names[i],
                       dlx__dtype_text(a, sizeof a, vi->dtype), c->names[j], dlx__dtype_text(b, sizeof b, vj->dtype));
}

/* Copy the caller's views in, checking each (ins: the inputs, c->nin of them). */
static dlx_status load_operands_n(opcall *c, const dlx_view *out, const dlx_view *const *ins) {
  DLX_FORWARD(dlx__ops_check_view(c->fn, c->names[0], out));
  for (int k = 0; k < c->nin; ++k) DLX_FORWARD(dlx__ops_check_view(c->fn, c->names[k + 1], ins[k]));
  dlx__ops_view_copy(&c->out, out);
  for (int k = 0; k < c->nin; ++k) dlx__ops_view_copy(&c->in[k], ins[k]);
  return DLX_OK;
}

static dlx_status load_operands(opcall *c, const dlx_view *out, const dlx_view *a, const dlx_view *b) {
  const dlx_view *ins[2] = {a, b};
  return load_operands_n(c, out, ins);
}

/* Packed sub-byte data other than 4- or 6-bit scalars (float4 x3 vectors...) has no walker. */
static dlx_status check_packed_supported(const opcall *c) {
  for (int i = 0; i <= c->nin; ++i) {
    const dlx_view *v = i == 0 ? &c->out : &c->in[i - 1];
    if (is_packed(v) && (v->dtype.lanes != 1 || v->dtype.bits > 8)) {
      char t[DLX_DTYPE_TEXT_CAP];
      return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: %s has packed sub-byte dtype %s; only scalar float6/float4 are "
                           "supported packed", c->fn, c->names[i], dlx__dtype_text(t, sizeof t, v->dtype));
    }
  }
  return DLX_OK;
}

static dlx_status same_dtype_op(const char *fn, dlx__ew_kind kind, const char *out_name, const char *in_name,
                                const dlx_view *dst, const dlx_view *src) {
  opcall c;
  init_call(&c, fn, kind, 1, out_name, in_name, NULL);
  DLX_FORWARD(load_operands(&c, dst, src, NULL));
  if (!dlx_dtype_equal(c.out.dtype, c.in[0].dtype)) return dtype_mismatch(&c, 0, 1);
  /* byte-sized elements copy whatever they are; packed ones must have a walker */
  DLX_FORWARD(check_packed_supported(&c));
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

dlx_status dlx_copy(const dlx_view *dst, const dlx_view *src) {
  DLX_CHECK_NULL(dst);
  DLX_CHECK_NULL(src);
  return same_dtype_op("dlx_copy", DLX_EW_COPY, "dst", "src", dst, src);
}

dlx_status dlx_fill(const dlx_view *dst, const dlx_view *value) {
  DLX_CHECK_NULL(dst);
  DLX_CHECK_NULL(value);
  return same_dtype_op("dlx_fill", DLX_EW_FILL, "dst", "value", dst, value);
}

dlx_status dlx_cast(const dlx_view *dst, const dlx_view *src) {
  DLX_CHECK_NULL(dst);
  DLX_CHECK_NULL(src);
  opcall c;
  init_call(&c, "dlx_cast", DLX_EW_CAST, 1, "dst", "src", NULL);
  DLX_FORWARD(load_operands(&c, dst, src, NULL));
  if (!dlx_dtype_equal(c.out.dtype, c.in[0].dtype)) {
    for (int i = 0; i < 2; ++i) {
      const dlx_view *v = i == 0 ? &c.out : &c.in[0];
      if (dlx__kd_of(v->dtype) == DLX_KD_NONE) {
        char a[DLX_DTYPE_TEXT_CAP], b[DLX_DTYPE_TEXT_CAP];
        return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_cast: no conversion from %s to %s (%s has no numeric kernel)",
                             dlx__dtype_text(a, sizeof a, c.in[0].dtype), dlx__dtype_text(b, sizeof b, c.out.dtype), c.names[i]);
      }
    }
  }
  DLX_FORWARD(check_packed_supported(&c));
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

/* The dtype of an arithmetic operand: numeric, byte-sized family. */
static dlx_status check_arith_dtype(const opcall *c, const char *what, dlx__kd k, DLDataType dt) {
  char t[DLX_DTYPE_TEXT_CAP];
  DLX_FAIL_IF(k == DLX_KD_NONE, DLX_ERR_UNSUPPORTED, "%s: %s is not supported for dtype %s", c->fn, what,
              dlx__dtype_text(t, sizeof t, dt));
  DLX_FAIL_IF(dlx__kd_is_subbyte(k), DLX_ERR_UNSUPPORTED,
              "%s: %s is not supported for %s (float6/float4 take part only in cast, fill and copy)", c->fn, what,
              dlx__dtype_text(t, sizeof t, dt));
  return DLX_OK;
}

/* The dtypes a class takes, in words, for messages. */
static const char *class_text(unsigned cats) {
  switch (cats) {
    case DLX__CLS_ALL: return "every numeric dtype";
    case DLX__CLS_NOBOOL: return "numbers but bool";
    case DLX__CLS_ORDERED: return "bool, integers and floats";
    case DLX__CLS_INTREAL: return "integers and floats";
    case DLX__CLS_REAL: return "floats";
    case DLX__CLS_INT: return "integers";
    default: return "bool and integers";
  }
}

/* Operand `what`'s dtype (kernel index k) in the op's class (op_table.h), with the op's name. */
static dlx_status check_op_dtype(const opcall *c, const dlx__op_info *info, dlx__kd k, DLDataType dt) {
  DLX_FORWARD(check_arith_dtype(c, info->name, k, dt));
  if (dlx__op_takes(info, k)) return DLX_OK;
  char t[DLX_DTYPE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: %s is not supported for %s (it takes %s%s)", c->fn, info->name,
                       dlx__dtype_text(t, sizeof t, dt), class_text(info->cats),
                       k == DLX_KD_C64 || k == DLX_KD_C128 ? "; complex numbers are not ordered, or the result is "
                                                             "not exactly rounded" : "");
}

/* out's dtype: bool for a bool-valued op, else the input's (operand `in`). */
static dlx_status check_out_dtype(const opcall *c, const dlx__op_info *info, int in) {
  if (!info->bool_result) return dlx_dtype_equal(c->out.dtype, c->in[in - 1].dtype) ? DLX_OK : dtype_mismatch(c, 0, in);
  if (dlx_dtype_equal(c->out.dtype, DLX_DTYPE_BOOL)) return DLX_OK;
  char t[DLX_DTYPE_TEXT_CAP];
  return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "%s: %s writes bool, but out is %s", c->fn, info->name,
                       dlx__dtype_text(t, sizeof t, c->out.dtype));
}

dlx_status dlx_unary(dlx_unop op, const dlx_view *out, const dlx_view *a) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_UNOP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_unary: op %d is not a dlx_unop (0..%d)", (int)op, DLX_UNOP_COUNT - 1);
  const dlx__op_info *info = &dlx__unop_info[op];
  opcall c;
  init_call(&c, "dlx_unary", DLX_EW_UNARY, 1, "out", "a", NULL);
  c.unop = op;
  DLX_FORWARD(load_operands(&c, out, a, NULL));
  const dlx__kd k = dlx__kd_of(c.in[0].dtype);
  DLX_FORWARD(check_op_dtype(&c, info, k, c.in[0].dtype));
  DLX_FORWARD(check_out_dtype(&c, info, 1));
  /* an op that keeps the codes (positive) is a copy, whatever the dtype */
  if (info->nar == DLX__NAR_MOVE) c.kind = DLX_EW_COPY;
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

dlx_status dlx_binary(dlx_binop op, const dlx_view *out, const dlx_view *a, const dlx_view *b) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_OP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_binary: op %d is not a dlx_binop (0..%d)", (int)op, DLX_OP_COUNT - 1);
  const dlx__op_info *info = &dlx__binop_info[op];
  opcall c;
  init_call(&c, "dlx_binary", DLX_EW_BINARY, 2, "out", "a", "b");
  c.op = op;
  DLX_FORWARD(load_operands(&c, out, a, b));
  /* int64 with uint64: compared exactly, where their common dtype (float64) would round (ew.h) */
  const bool mixed =
      dlx__op_is_comparison(op) && dlx__mixed_pair(dlx__kd_of(c.in[0].dtype), dlx__kd_of(c.in[1].dtype)) >= 0;
  if (!mixed && !dlx_dtype_equal(c.in[0].dtype, c.in[1].dtype)) return dtype_mismatch(&c, 1, 2);
  DLX_FORWARD(check_op_dtype(&c, info, dlx__kd_of(c.in[0].dtype), c.in[0].dtype));
  DLX_FORWARD(check_out_dtype(&c, info, 1));
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

dlx_status dlx_ternary(dlx_ternop op, const dlx_view *out, const dlx_view *a, const dlx_view *b, const dlx_view *cv) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  /* the header calls it c (cv here only because the call record is c): name the caller's argument */
  DLX_FAIL_IF(cv == NULL, DLX_ERR_NULL_ARGUMENT, "dlx_ternary: argument 'c' is NULL");
  DLX_FAIL_IF((unsigned)op >= (unsigned)DLX_TERNOP_COUNT, DLX_ERR_INVALID_ARGUMENT,
              "dlx_ternary: op %d is not a dlx_ternop (0..%d)", (int)op, DLX_TERNOP_COUNT - 1);
  const dlx__op_info *info = &dlx__ternop_info[op];
  opcall c;
  init_call(&c, "dlx_ternary", DLX_EW_TERNARY, 3, "out", "a", "b");
  c.ternop = op;
  const dlx_view *ins[3] = {a, b, cv};
  DLX_FORWARD(load_operands_n(&c, out, ins));
  char t[DLX_DTYPE_TEXT_CAP];
  /* where: a bool condition; the values and out share any dtype with a kernel. clip: one dtype of its class. */
  const int first_value = op == DLX_TERNOP_WHERE ? 2 : 1;
  if (op == DLX_TERNOP_WHERE && !dlx_dtype_equal(c.in[0].dtype, DLX_DTYPE_BOOL)) {
    return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "dlx_ternary: where's condition a must be bool, not %s",
                         dlx__dtype_text(t, sizeof t, c.in[0].dtype));
  }
  for (int k = first_value + 1; k <= 3; ++k)
    if (!dlx_dtype_equal(c.in[k - 1].dtype, c.in[first_value - 1].dtype)) return dtype_mismatch(&c, first_value, k);
  DLX_FORWARD(check_op_dtype(&c, info, dlx__kd_of(c.in[first_value - 1].dtype), c.in[first_value - 1].dtype));
  DLX_FORWARD(check_out_dtype(&c, info, first_value));
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}

dlx_status dlx_fma(const dlx_view *out, double scalar, const dlx_view *t1, const dlx_view *t2) {
  DLX_CHECK_NULL(out);
  DLX_CHECK_NULL(t1);
  DLX_CHECK_NULL(t2);
  opcall c;
  init_call(&c, "dlx_fma", DLX_EW_FMA, 2, "out", "t1", "t2");
  c.scalar = scalar;
  DLX_FORWARD(load_operands(&c, out, t1, t2));
  const dlx__kd k2 = dlx__kd_of(c.in[1].dtype), k1 = dlx__kd_of(c.in[0].dtype);
  DLX_FORWARD(check_arith_dtype(&c, "fma", k2, c.in[1].dtype));
  /* t1 may be the signed partner of an unsigned t2 (same width) */
  const bool partner = k2 >= DLX_KD_U8 && k2 <= DLX_KD_U64 && k1 == k2 - DLX_KD_U8 + DLX_KD_I8;
  if (k1 != k2 && !partner) {
    char a[DLX_DTYPE_TEXT_CAP], b[DLX_DTYPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DTYPE_MISMATCH,
                         "dlx_fma: dtype mismatch: t1 is %s but t2 is %s (t1 must be t2's dtype, or its signed "
                         "partner for unsigned t2)",
                         dlx__dtype_text(a, sizeof a, c.in[0].dtype), dlx__dtype_text(b, sizeof b, c.in[1].dtype));
  }
  if (!dlx_dtype_equal(c.out.dtype, c.in[1].dtype)) return dtype_mismatch(&c, 0, 2);
  DLX_FORWARD(check_call(&c));
  return run_and_free(&c);
}
