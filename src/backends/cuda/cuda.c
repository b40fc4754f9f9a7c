/* The CUDA backend's table (backends/backend.h): device memory through the caching allocator, copies
 * between memory kinds, the elementwise kernels (kernels.cu) on the calling thread's stream of the
 * op's device, cuBLAS gemm. */
#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/kernels.h"
#include "core/error_internal.h"

static int cuda_device_count(void) { return dlx__cuda_count(); }

static dlx_status cuda_execute(const dlx__ew_op *op, const dlx_iter *plan) {
  const int32_t id = op->device.device_id;
  DLX_FORWARD(dlx__cuda_check_device(id, "dlx_ops"));
  DLX_FORWARD(dlx__cuda_use_device(id, "dlx_ops"));
  return dlx__cuda_execute(op, plan, dlx__cuda_stream(id));
}

static dlx_status cuda_unpack(const dlx_view *packed, void *padded) {
  const int32_t id = packed->device.device_id;
  DLX_FORWARD(dlx__cuda_use_device(id, "dlx_ops"));
  return dlx__cuda_unpack(packed, padded, dlx__cuda_stream(id));
}

static dlx_status cuda_pack(const dlx_view *packed, const void *padded) {
  const int32_t id = packed->device.device_id;
  DLX_FORWARD(dlx__cuda_use_device(id, "dlx_ops"));
  return dlx__cuda_pack(packed, padded, dlx__cuda_stream(id));
}

const dlx__backend dlx__cuda_backend = {
    "cuda",        kDLCUDA,   cuda_device_count, dlx__cuda_alloc, dlx__cuda_free, dlx__cuda_copy,
    cuda_unpack,   cuda_pack, cuda_execute,      dlx__cuda_gemm,  dlx_cuda_pointer_device,
    NULL, /* one kind of memory per device */
};
