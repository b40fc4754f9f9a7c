/* The CUDA backend's halves (backends/backend.h). Memory: device memory through the caching allocator
 * (memory.c), pinned and managed host memory, copies between memory kinds (copy.c), the calling thread's
 * streams and events (device.c). Compute: the elementwise and reduction kernels (kernels*.cu) on the
 * calling thread's stream of the op's device, cuBLAS gemm (gemm.c). */
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

static dlx_status cuda_reduce(const dlx__red_op *op) {
  const int32_t id = op->device.device_id;
  DLX_FORWARD(dlx__cuda_check_device(id, "dlx_reduce"));
  DLX_FORWARD(dlx__cuda_use_device(id, "dlx_reduce"));
  return dlx__cuda_reduce(op, dlx__cuda_stream(id));
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

/* The offsets go to the device first, from pageable host memory: cudaMemcpyAsync returns once it has staged
 * them, without waiting for the stream. The block is freed after the launch: the cache hands it to this
 * stream again only in order, to another one after the kernel (memory.c). */
static dlx_status cuda_gather(const dlx__gather_op *op) {
  const int32_t id = op->device.device_id;
  DLX_FORWARD(dlx__cuda_check_device(id, "dlx_gather"));
  DLX_FORWARD(dlx__cuda_use_device(id, "dlx_gather"));
  const size_t bytes = (size_t)op->count * sizeof(int64_t);
  void *dev = NULL;
  DLX_FORWARD(dlx__cuda_alloc(op->device, bytes, false, &dev, "dlx_gather"));
  cudaStream_t stream = dlx__cuda_stream(id);
  const cudaError_t err = cudaMemcpyAsync(dev, op->offsets, bytes, cudaMemcpyHostToDevice, stream);
  const dlx_status st = err == cudaSuccess ? dlx__cuda_gather(op, dev, stream)
                                           : dlx__cuda_fail(err, "dlx_gather", "cudaMemcpyAsync");
  dlx__cuda_free(op->device, dev);
  return st;
}

const dlx__memory_ops dlx__cuda_memory = {
    .name = "cuda",
    .label = "CUDA",
    .device_type = kDLCUDA,
    .device_count = cuda_device_count,
    .alloc = dlx__cuda_alloc, /* device memory, and pinned and managed host memory (backend.c's rows) */
    .free = dlx__cuda_free,
    .copy = dlx__cuda_copy,
    .pointer_device = dlx__cuda_pointer_device,
    .stream_get = dlx__cuda_stream_get,
    .stream_set = dlx__cuda_stream_set,
    .stream_create = dlx__cuda_stream_create,
    .stream_destroy = dlx__cuda_stream_destroy,
    .stream_wait = dlx__cuda_stream_wait,
    .stream_synchronize = dlx__cuda_stream_synchronize,
    .synchronize = dlx__cuda_synchronize,
    .event_create = dlx__cuda_event_create,
    .event_record = dlx__cuda_event_record,
    .event_wait = dlx__cuda_event_wait,
    .event_query = dlx__cuda_event_query,
    .event_destroy = dlx__cuda_event_destroy,
    .guard_block = dlx__cuda_guard_block,
    .empty_cache = dlx__cuda_empty_cache,
    .cache_stats = dlx__cuda_cache_stats,
};

const dlx__compute_ops dlx__cuda_compute = {
    .name = "cuda",
    .execute = cuda_execute,
    .reduce = cuda_reduce,
    .unpack = cuda_unpack,
    .pack = cuda_pack,
    .gemm = dlx__cuda_gemm,
    .gather = cuda_gather,
};

const dlx__backend dlx__cuda_backend = {.name = "cuda", .memory = &dlx__cuda_memory, .compute = &dlx__cuda_compute};
