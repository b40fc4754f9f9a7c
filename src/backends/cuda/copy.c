/* Copies between CUDA device memory and another memory kind (host, pinned, managed, or another device):
 * the backend table's copy entry, which the compute layer calls when dlx_copy's two views live on
 * different backends or devices.
 *
 * One shape of algorithm for every case: the bytes cross with one cudaMemcpy of a compact buffer, and
 * any strides, broadcasting or packed sub-byte layout are dealt with on one side or the other by an
 * ordinary same-kind dlx_copy (the CPU loops on the host side, the CUDA kernels on the device side):
 *   src --(same kind: compact it, broadcast to dst's shape)--> compact --(cudaMemcpy)--> compact
 *       --(same kind: scatter into dst's strides)--> dst
 * A side that is already compact (C-contiguous, dst's shape) is used in place, so a compact copy is one
 * cudaMemcpyAsync. Two sides that are rows at a pitch (a sub-matrix, a padded buffer) take one
 * cudaMemcpy2DAsync instead. cudaMemcpy3D is not used: deeper strided layouts take the gather above. Copies that touch host memory return once done (the stream is synchronised): the host
 * may read or rewrite its buffer as soon as dlx_copy returns. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

static bool is_cuda(DLDevice d) { return d.device_type == kDLCUDA; }

/* Bytes of a compact buffer of v's elements (padded when v is). */
static dlx_status compact_bytes(const dlx_view *v, uint64_t *out) {
  return dlx_dtype_storage_bytes(v->dtype, (uint64_t)dlx_view_size(v), (v->flags & DLX_VIEW_SUBBYTE_PADDED) != 0,
                                 out);
}

/* A temporary compact buffer: device memory from the cache, or host memory. */
typedef struct staging {
  DLDevice device;
  void *ptr;
} staging;

static void staging_free(staging *s) {
  if (s->ptr == NULL) return;
  if (is_cuda(s->device)) dlx__cuda_free(s->device, s->ptr);
  else free(s->ptr);
  s->ptr = NULL;
}

/* A compact view like `like` (shape, dtype, padding) over new staging memory on device. */
static dlx_status staging_view(const dlx_view *like, DLDevice device, uint64_t bytes, staging *s, dlx_view *out) {
  s->device = device;
  if (is_cuda(device)) {
    DLX_FORWARD(dlx__cuda_alloc(device, bytes, false, &s->ptr, "dlx_copy"));
  } else {
    s->ptr = malloc(bytes ? (size_t)bytes : 1);
    DLX_FAIL_IF(s->ptr == NULL, DLX_ERR_OUT_OF_MEMORY, "dlx_copy: out of memory staging %" PRIu64 " bytes", bytes);
  }
  DLX_FORWARD(dlx_view_init(out, s->ptr, like->dtype, device, like->ndim, like->shape, NULL));
  out->flags = like->flags & DLX_VIEW_SUBBYTE_PADDED;
  return DLX_OK;
}

/* The device a leg of the copy runs its same-kind work on: cpu:0 for every host-accessible kind. */
static DLDevice side_device(DLDevice d) { return is_cuda(d) ? d : (DLDevice){kDLCPU, 0}; }

/* src as a compact buffer of dst's shape on src's side: src itself when it already is one, else a
 * staging copy (dlx_copy on src's own memory kind does the gather and the broadcast). */
static dlx_status gather(const dlx_view *dst, const dlx_view *src, staging *s, dlx_view *out) {
  dlx_view b;
  DLX_FORWARD(dlx_view_broadcast_to(src, dst->ndim, dst->shape, &b));
  if (dlx_view_is_c_contiguous(&b) && dlx_view_size(&b) > 0 && b.data != NULL) {
    *out = b;
    return DLX_OK;
  }
  uint64_t bytes;
  DLX_FORWARD(compact_bytes(&b, &bytes));
  DLX_FORWARD(staging_view(&b, side_device(src->device), bytes, s, out));
  dlx_view in = b;
  in.device = side_device(src->device);
  return dlx_copy(out, &in);
}

/* v as rows of contiguous elements at a constant pitch: every dimension after the first compact among
 * themselves (extent-1 dimensions may carry any stride), the first stepping by a pitch at least a row
 * (elements). 0-d and 1-d views are one row. Sub-byte dtypes are not (their rows may share bytes). */
static bool pitched(const dlx_view *v, size_t *rows, size_t *width, size_t *pitch) {
  if (dlx_dtype_is_subbyte(v->dtype) || v->data == NULL) return false;
  int64_t expected = 1;
  for (int32_t d = v->ndim - 1; d >= 1; --d) {
    if (v->shape[d] != 1 && v->strides[d] != expected) return false;
    expected *= v->shape[d];
  }
  if (v->ndim == 0) {
    *rows = *width = *pitch = 1;
    return true;
  }
  if (v->shape[0] == 1 || (v->strides[0] == expected && expected == 1 && v->ndim == 1)) {
    /* one row; or a compact 1-d view: one row of shape[0] elements */
    *rows = 1;
    *width = (size_t)(v->shape[0] == 1 ? expected : v->shape[0]);
    *pitch = *width;
    return true;
  }
  if (v->strides[0] < expected) return false; /* overlapping, reversed or broadcast rows */
  *rows = (size_t)v->shape[0];
  *width = (size_t)expected;
  *pitch = (size_t)v->strides[0];
  return true;
}

/* Rows narrower than this go through a kernel and one cudaMemcpy instead: the copy engines move a 2-D
 * copy row by row, and short rows leave them mostly idle. */
#define DLX_CUDA_PITCHED_MIN_ROW_BYTES 64

/* The other side must be CUDA memory or memory the host can address: cudaMemcpy cannot reach another
 * runtime's device memory (oneAPI device USM, ROCm), and reading such a pointer on the host would crash. */
static dlx_status check_reachable(const dlx_view *dst, const dlx_view *src) {
  const dlx_view *sides[2] = {dst, src};
  for (int k = 0; k < 2; ++k) {
    const DLDevice d = sides[k]->device;
    if (is_cuda(d) || dlx_device_is_host_accessible(d)) continue;
    char x[DLX_DEVICE_TEXT_CAP], y[DLX_DEVICE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                         "dlx_copy: the CUDA backend cannot move data between %s and %s: copy through host "
                         "memory (dlx_copy to a cpu tensor, then from it)",
                         dlx__device_text(x, sizeof x, dst->device), dlx__device_text(y, sizeof y, src->device));
  }
  return DLX_OK;
}

/* Two sides with rows at a pitch (a sub-matrix, a padded buffer), on one device or one device and the
 * host: one cudaMemcpy2DAsync on gpu's stream moves the rows where they belong, with no staging and no
 * kernel. *done says whether this path took the copy (the status is then the copy's); when it did not,
 * nothing was moved. */
static dlx_status copy_pitched(const dlx_view *dst, const dlx_view *src, DLDevice gpu, bool *done) {
  *done = false;
  const bool peer = is_cuda(src->device) && is_cuda(dst->device) && src->device.device_id != dst->device.device_id;
  dlx_view b;
  DLX_FORWARD(dlx_view_broadcast_to(src, dst->ndim, dst->shape, &b));
  size_t rs, ws, ps, rd, wd, pd;
  const size_t item = dlx_dtype_itemsize(dst->dtype);
  if (peer || !dlx_dtype_equal(b.dtype, dst->dtype) ||
      (dlx_view_is_c_contiguous(&b) && dlx_view_is_c_contiguous(dst)) || !pitched(&b, &rs, &ws, &ps) ||
      !pitched(dst, &rd, &wd, &pd) || rs != rd || ws != wd || rs <= 1 || ws * item < DLX_CUDA_PITCHED_MIN_ROW_BYTES)
    return DLX_OK;
  *done = true;
  DLX_FORWARD(dlx__cuda_use_device(gpu.device_id, "dlx_copy"));
  cudaStream_t stream = dlx__cuda_stream(gpu.device_id);
  cudaError_t err =
      cudaMemcpy2DAsync(dst->data, pd * item, b.data, ps * item, ws * item, rs, cudaMemcpyDefault, stream);
  if (err != cudaSuccess) return dlx__cuda_fail(err, "dlx_copy", "cudaMemcpy2DAsync");
  /* host memory on either side: done before returning, as in copy_staged */
  if (!is_cuda(src->device) || !is_cuda(dst->device)) {
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) return dlx__cuda_fail(err, "dlx_copy", "cudaStreamSynchronize");
  }
  return DLX_OK;
}

/* Any other copy, the way the top of this file draws it: src compacted on its side, one cudaMemcpy (or a
 * peer copy) on gpu's stream, then scattered into dst's strides on dst's side when dst is not compact. */
static dlx_status copy_staged(const dlx_view *dst, const dlx_view *src, DLDevice gpu) {
  staging s_src = {{kDLCPU, 0}, NULL}, s_dst = {{kDLCPU, 0}, NULL};
  dlx_view from, to;
  dlx_status st = gather(dst, src, &s_src, &from);
  uint64_t bytes = 0;
  if (st == DLX_OK) st = compact_bytes(&from, &bytes);
  /* the landing buffer: dst itself when compact, else staging on dst's side */
  const bool dst_compact = dlx_view_is_c_contiguous(dst);
  if (st == DLX_OK) {
    if (dst_compact) {
      to = *dst;
    } else {
      st = staging_view(&from, side_device(dst->device), bytes, &s_dst, &to);
    }
  }
  cudaStream_t stream = NULL;
  if (st == DLX_OK) st = dlx__cuda_use_device(gpu.device_id, "dlx_copy");
  if (st == DLX_OK) stream = dlx__cuda_stream(gpu.device_id);
  if (st == DLX_OK) {
    cudaError_t err;
    if (is_cuda(src->device) && is_cuda(dst->device) && src->device.device_id != dst->device.device_id) {
      /* peer copy after the source device's queued work (its stream synchronised: a cross-device event
       * wait would need both devices current) */
      err = cudaStreamSynchronize(dlx__cuda_stream(src->device.device_id));
      if (err == cudaSuccess)
        err = cudaMemcpyPeerAsync(to.data, dst->device.device_id, from.data, src->device.device_id, (size_t)bytes,
                                  stream);
    } else {
      err = cudaMemcpyAsync(to.data, from.data, (size_t)bytes, cudaMemcpyDefault, stream);
    }
    if (err != cudaSuccess) st = dlx__cuda_fail(err, "dlx_copy", "cudaMemcpyAsync");
  }
  /* host memory on either side: done before returning (the host may reuse its buffer at once) */
  if (st == DLX_OK && (!is_cuda(src->device) || !is_cuda(dst->device))) {
    const cudaError_t err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) st = dlx__cuda_fail(err, "dlx_copy", "cudaStreamSynchronize");
  }
  if (st == DLX_OK && !dst_compact) {
    /* scatter on dst's side: into any strides, packed bits included */
    dlx_view out = *dst;
    out.device = side_device(dst->device);
    st = dlx_copy(&out, &to);
  }
  staging_free(&s_src);
  staging_free(&s_dst);
  return st;
}

dlx_status dlx__cuda_copy(const dlx_view *dst, const dlx_view *src) {
  DLX_FORWARD(check_reachable(dst, src));
  if (dlx_view_size(dst) == 0) return DLX_OK;
  /* the device whose stream orders the transfer: dst's when it is a GPU, else src's */
  const DLDevice gpu = is_cuda(dst->device) ? dst->device : src->device;
  DLX_FORWARD(dlx__cuda_check_device(gpu.device_id, "dlx_copy"));
  if (is_cuda(src->device)) DLX_FORWARD(dlx__cuda_check_device(src->device.device_id, "dlx_copy"));
  if (is_cuda(dst->device)) DLX_FORWARD(dlx__cuda_check_device(dst->device.device_id, "dlx_copy"));
  bool done;
  DLX_FORWARD(copy_pitched(dst, src, gpu, &done));
  if (done) return DLX_OK;
  return copy_staged(dst, src, gpu);
}
