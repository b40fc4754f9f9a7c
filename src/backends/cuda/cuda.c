/* The CUDA backend's halves (backends/backend.h). Memory: device memory through the caching allocator
 * (memory.c), pinned and managed host memory, copies between memory kinds (copy.c), the calling thread's
 * streams and events (device.c). Compute: the elementwise and reduction kernels (kernels*.cu) on the
 * calling thread's stream of the op's device, cuBLAS gemm (gemm.c). */
#include <stdlib.h>

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

/* The mask made compact 0/1 bytes on the host (counted on the way: out's extent must match before anything
 * is written), then on the device with the prefix sum's scratch: the kernels of kernels_mask.cu. The host
 * buffer is freed once cudaMemcpyAsync has staged it (pageable memory), the device blocks after the
 * launches, as cuda_gather frees its offsets. */
static dlx_status cuda_mask_gather(const dlx__mask_op *op) {
  const int32_t id = op->device.device_id;
  DLX_FORWARD(dlx__cuda_check_device(id, "dlx_mask_gather"));
  DLX_FORWARD(dlx__cuda_use_device(id, "dlx_mask_gather"));
  int64_t n = 1;
  for (int32_t d = 0; d < op->nm; ++d) n *= op->shape[d];
  unsigned char *host = malloc(n > 0 ? (size_t)n : 1);
  DLX_FAIL_IF(host == NULL, DLX_ERR_OUT_OF_MEMORY, "dlx_mask_gather: no host memory for a mask of %lld elements",
              (long long)n);
  if (dlx__cuda_mask_bytes(op, host) != op->count) {
    free(host);
    return DLX_ERR_BROADCAST; /* the compute layer says so (backend.h) */
  }
  if (op->count == 0) {
    free(host);
    return DLX_OK;
  }
  const size_t scratch_bytes = (size_t)dlx__cuda_mask_scratch_words(n) * sizeof(uint64_t);
  void *dmask = NULL, *scratch = NULL;
  dlx_status st = dlx__cuda_alloc(op->device, (uint64_t)n, false, &dmask, "dlx_mask_gather");
  if (st == DLX_OK) st = dlx__cuda_alloc(op->device, scratch_bytes, false, &scratch, "dlx_mask_gather");
  cudaStream_t stream = dlx__cuda_stream(id);
  if (st == DLX_OK) {
    const cudaError_t err = cudaMemcpyAsync(dmask, host, (size_t)n, cudaMemcpyHostToDevice, stream);
    st = err == cudaSuccess ? dlx__cuda_mask_gather(op, dmask, scratch, stream)
                            : dlx__cuda_fail(err, "dlx_mask_gather", "cudaMemcpyAsync");
  }
  free(host);
  dlx__cuda_free(op->device, dmask);
  dlx__cuda_free(op->device, scratch);
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
    .mask_gather = cuda_mask_gather,
};

const dlx__backend dlx__cuda_backend = {.name = "cuda", .memory = &dlx__cuda_memory, .compute = &dlx__cuda_compute};
