/* The oneAPI backend's tables (backends/backend.h): SYCL USM through dpctl's C API, loaded at run time
 * (loader.c), with no SYCL compiler and no kernels of its own.
 *
 * Compute: host and shared USM are host memory, so ops (reductions too) on them run the CPU backend's loops, after a
 * check of every operand's USM kind in the op device's default context (the one place the backend sees
 * the pointers of an op); inputs in plain host memory are read in place too (reads_host: out= in device
 * USM with host inputs). Device USM inputs are refused with a pointer at dlx_copy, except in copies,
 * which move it through the queue (copy.c), and in the unpacking and packing of float6/float4 operands,
 * which are copies too. An output alone in device USM (a fill, or an op on host-accessible inputs) is
 * computed into shared scratch, which the queue copies into place. Scratch memory of ops (overlap copies,
 * unpacked operands, gemm's compact copies) is shared USM, so the CPU loops can use it.
 *
 * The memory half allocates what dlx keeps on (kDLOneAPI, id): new tensors in device USM unless
 * dlx_oneapi_set_alloc_kind says otherwise, and tensors made from another (op results, copies, empty_like)
 * in its kind when that is host or shared USM (alloc_like). The compute half's scratch is shared USM. */
#include <inttypes.h>

#include "backends/oneapi/oneapi_internal.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"

static int oneapi_device_count(void) { return dlx_oneapi_device_count(); }

static const char *operand_name(int k) {
  static const char *const names[] = {"the output", "input 1", "input 2", "input 3"};
  return k >= 0 && k < 4 ? names[k] : "an operand";
}

static dlx_status refuse_device_usm(const char *fn, const char *what, const void *ptr, int32_t id) {
  return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                       "%s: %s at 0x%" PRIxPTR " is device USM on oneapi:%d, which the host cannot access; dlx "
                       "computes on host and shared USM only: move it with dlx_copy (to host memory, or to USM "
                       "allocated after dlx_oneapi_set_alloc_kind(DLX_ONEAPI_USM_SHARED))",
                       fn, what, (uintptr_t)ptr, (int)id);
}

/* Operand k of a byte-sized plan as a view (strides back in elements), for copies. */
static dlx_status plan_view(const dlx__ew_op *op, const dlx_iter *plan, int k, dlx_view *out) {
  const DLDataType dt = op->dtype[k];
  const int64_t item = (int64_t)dlx_dtype_itemsize(dt);
  int64_t strides[DLX_MAX_NDIM];
  for (int d = 0; d < plan->ndim; ++d) {
    DLX_FAIL_IF(item == 0 || plan->strides[k][d] % item != 0, DLX_ERR_UNSUPPORTED,
                "dlx_copy: stride %" PRId64 " bytes is not a whole number of %" PRId64 "-byte elements",
                plan->strides[k][d], item);
    strides[d] = plan->strides[k][d] / item;
  }
  DLX_FORWARD(dlx_view_init(out, plan->data[k], dt, op->device, plan->ndim, plan->shape, strides));
  /* sub-byte operands reach execute unpacked, one code per byte */
  if (dlx_dtype_is_subbyte(dt)) out->flags |= DLX_VIEW_SUBBYTE_PADDED;
  return DLX_OK;
}

/* An op whose output alone is device USM (a fill of a new tensor, a cast or an add into one): the CPU loops
 * compute into compact shared-USM scratch laid out in the plan's order, which the queue then copies into
 * the output's strides. */
static dlx_status execute_into_device_usm(const dlx__ew_op *op, const dlx_iter *plan) {
  dlx_view dst;
  DLX_FORWARD(plan_view(op, plan, 0, &dst));
  const int64_t item = (int64_t)dlx_dtype_itemsize(op->dtype[0]);
  void *scratch = NULL;
  DLX_FORWARD(dlx__oneapi_alloc_shared(op->device, (uint64_t)(plan->size * item), false, &scratch, "dlx_ops"));
  dlx_iter staged = *plan;
  staged.data[0] = scratch;
  int64_t step = item;
  for (int d = plan->ndim - 1; d >= 0; --d) {
    staged.strides[0][d] = step;
    step *= plan->shape[d];
  }
  dlx_status st = dlx__cpu_compute.execute(op, &staged);
  dlx_view from;
  if (st == DLX_OK) st = plan_view(op, &staged, 0, &from);
  if (st == DLX_OK) st = dlx__oneapi_copy(&dst, &from);
  dlx__oneapi_free(op->device, scratch);
  return st;
}

static dlx_status oneapi_execute(const dlx__ew_op *op, const dlx_iter *plan) {
  const int32_t id = op->device.device_id;
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_device("dlx_ops", id, &s));
  /* which operands are device USM: the output, and the first input (the input is what blocks an op) */
  bool out_on_device = false;
  int input_on_device = 0;
  for (int k = 0; k < plan->nop; ++k) {
    /* a host scalar's bytes, or host memory: the CPU loops read them in place */
    if (k > 0 && (op->byval[k - 1] || op->host[k - 1])) continue;
    dlx_oneapi_usm kind;
    DLX_FORWARD(dlx__oneapi_kind(s, plan->data[k], id, "dlx_ops", &kind));
    if (kind != DLX_ONEAPI_USM_DEVICE) continue;
    if (k == 0) out_on_device = true;
    else if (input_on_device == 0) input_on_device = k;
  }
  if (!out_on_device && input_on_device == 0) return dlx__cpu_compute.execute(op, plan);
  if (op->kind == DLX_EW_COPY && plan->nop == 2) {
    dlx_view dst, src;
    DLX_FORWARD(plan_view(op, plan, 0, &dst));
    DLX_FORWARD(plan_view(op, plan, 1, &src));
    return dlx__oneapi_copy(&dst, &src);
  }
  if (input_on_device == 0) return execute_into_device_usm(op, plan);
  return refuse_device_usm("dlx_ops", operand_name(input_on_device), plan->data[input_on_device], id);
}

/* Reductions on host and shared USM run the CPU's kernels; device USM (the input, the output or the
 * scratch, which is shared USM here) is refused with the pointer at dlx_copy. */
static dlx_status oneapi_reduce(const dlx__red_op *op) {
  const int32_t id = op->device.device_id;
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_device("dlx_reduce", id, &s));
  const void *ptrs[2] = {op->out_data, op->in_data};
  for (int k = 0; k < 2; ++k) {
    dlx_oneapi_usm kind;
    DLX_FORWARD(dlx__oneapi_kind(s, ptrs[k], id, "dlx_reduce", &kind));
    if (kind == DLX_ONEAPI_USM_DEVICE) return refuse_device_usm("dlx_reduce", k == 0 ? "out" : "a", ptrs[k], id);
  }
  return dlx__cpu_compute.reduce(op);
}

/* A compact padded view of packed's shape over buf (the other side of an unpack or a pack). */
static dlx_status padded_view(const dlx_view *packed, void *buf, dlx_view *out) {
  DLX_FORWARD(dlx_view_init(out, buf, packed->dtype, packed->device, packed->ndim, packed->shape, NULL));
  out->flags = DLX_VIEW_SUBBYTE_PADDED;
  return DLX_OK;
}

/* Packed float6/float4 <-> one code per byte: the CPU's walk on host-accessible USM, a copy (through the
 * queue) when either side is device USM. */
static dlx_status oneapi_pack_unpack(const dlx_view *packed, void *padded, bool unpack) {
  const int32_t id = packed->device.device_id;
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_device("dlx_ops", id, &s));
  dlx_oneapi_usm kp, kb;
  DLX_FORWARD(dlx__oneapi_kind(s, packed->data, id, "dlx_ops", &kp));
  DLX_FORWARD(dlx__oneapi_kind(s, padded, id, "dlx_ops", &kb));
  if (kp != DLX_ONEAPI_USM_DEVICE && kb != DLX_ONEAPI_USM_DEVICE) {
    dlx_view host = *packed;
    host.device = (DLDevice){kDLCPU, 0};
    return unpack ? dlx__cpu_compute.unpack(&host, padded) : dlx__cpu_compute.pack(&host, padded);
  }
  dlx_view pv;
  DLX_FORWARD(padded_view(packed, padded, &pv));
  return unpack ? dlx__oneapi_copy(&pv, packed) : dlx__oneapi_copy(packed, &pv);
}

static dlx_status oneapi_unpack(const dlx_view *packed, void *padded) { return oneapi_pack_unpack(packed, padded, true); }

static dlx_status oneapi_pack(const dlx_view *packed, const void *padded) {
  return oneapi_pack_unpack(packed, (void *)(uintptr_t)padded, false);
}

static dlx_status oneapi_gemm(const dlx__gemm_call *call) {
  const int32_t id = call->device.device_id;
  const dlx__oneapi_runtime *s = NULL;
  DLX_FORWARD(dlx__oneapi_device("dlx_gemm", id, &s));
  const void *ptrs[3] = {call->a, call->b, call->c};
  static const char *const names[3] = {"A", "B", "C"};
  for (int i = 0; i < 3; ++i) {
    dlx_oneapi_usm kind;
    DLX_FORWARD(dlx__oneapi_kind(s, ptrs[i], id, "dlx_gemm", &kind));
    if (kind == DLX_ONEAPI_USM_DEVICE) return refuse_device_usm("dlx_gemm", names[i], ptrs[i], id);
  }
  return dlx__cpu_compute.gemm(call);
}

/* Scratch of ops is shared USM, so that the CPU loops can use it. */
static dlx_status oneapi_scratch_alloc(DLDevice device, uint64_t bytes, void **out, const char *fn) {
  return dlx__oneapi_alloc_shared(device, bytes, false, out, fn);
}

const dlx__memory_ops dlx__oneapi_memory = {
    .name = "oneapi",
    .label = "oneAPI",
    .device_type = kDLOneAPI,
    .device_count = oneapi_device_count,
    .alloc = dlx__oneapi_alloc,
    .alloc_like = dlx__oneapi_alloc_like,
    .free = dlx__oneapi_free,
    .copy = dlx__oneapi_copy,
    .pointer_device = dlx__oneapi_pointer_device,
    /* no streams or events: dpctl's queues are not exposed through DLPack's stream=, and every dlx copy
     * through a queue is waited for */
};

const dlx__compute_ops dlx__oneapi_compute = {
    .name = "oneapi",
    .execute = oneapi_execute,
    .reduce = oneapi_reduce,
    .unpack = oneapi_unpack,
    .pack = oneapi_pack,
    .gemm = oneapi_gemm,
    .reads_host = true,
    .scratch_alloc = oneapi_scratch_alloc,
    .scratch_free = dlx__oneapi_free,
};

const dlx__backend dlx__oneapi_backend = {.name = "oneapi", .memory = &dlx__oneapi_memory, .compute = &dlx__oneapi_compute};
