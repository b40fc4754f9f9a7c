/* Internal to the CUDA backend (src/backends/cuda/): what its files share. C, on the CUDA runtime API
 * (linked statically, so libdlx loads on machines with no driver; every entry point then reports no
 * device). The kernels (kernels.h) are the only C++/CUDA part. */
#ifndef DLX_BACKENDS_CUDA_INTERNAL_H
#define DLX_BACKENDS_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "backends/backend.h"

/* The most devices dlx tracks per process (per-thread streams, allocator pools). */
#define DLX_CUDA_MAX_DEVICES 64

/* DLX_ERR_BACKEND with "fn: what: cudaErrorName: description". Clears the runtime's sticky last error. */
dlx_status dlx__cuda_fail(cudaError_t err, const char *fn, const char *what);
#define DLX_CUDA_TRY(call, fn, what)                                                                   \
  do {                                                                                                \
    const cudaError_t dlx_cuda_err_ = (call);                                                          \
    if (dlx_cuda_err_ != cudaSuccess) return dlx__cuda_fail(dlx_cuda_err_, (fn), (what));              \
  } while (0)

/* Devices present (0 without a driver or GPU); probed once. */
int dlx__cuda_count(void);
/* DLX_ERR_INVALID_DEVICE naming id and the count unless 0 <= id < count (with fn in the message). */
dlx_status dlx__cuda_check_device(int32_t id, const char *fn);
/* The calling thread's current stream on device id (checked by the caller). */
cudaStream_t dlx__cuda_stream(int32_t id);
/* Make id the calling thread's current CUDA device (cheap when it already is). */
dlx_status dlx__cuda_use_device(int32_t id, const char *fn);

/* The memory half's stream, event and pointer entries (device.c; backend.h says what each does). The
 * caller (backend.c's wrappers, controls.c) has checked the device id. */
dlx_status dlx__cuda_stream_get(int32_t device, void **stream);
dlx_status dlx__cuda_stream_set(int32_t device, void *stream, void **previous);
dlx_status dlx__cuda_stream_create(int32_t device, bool non_blocking, void **stream);
dlx_status dlx__cuda_stream_destroy(int32_t device, void *stream);
dlx_status dlx__cuda_stream_wait(int32_t device, void *waiter, void *producer);
dlx_status dlx__cuda_stream_synchronize(int32_t device, void *stream);
dlx_status dlx__cuda_synchronize(int32_t device);
dlx_status dlx__cuda_event_create(int32_t device, void **event, const char *fn);
dlx_status dlx__cuda_event_record(int32_t device, void *event, void *stream, const char *fn);
dlx_status dlx__cuda_event_wait(int32_t device, void *event, void *stream, const char *fn);
dlx_status dlx__cuda_event_query(int32_t device, void *event, bool *done);
void dlx__cuda_event_destroy(int32_t device, void *event, bool host_wait);
dlx_status dlx__cuda_pointer_device(const void *ptr, DLDevice *out);

/* ---- memory (memory.c) ---------------------------------------------------------------------------- */

/* kDLCUDA: the caching allocator on the calling thread's stream; kDLCUDAHost: pinned host memory;
 * kDLCUDAManaged: managed memory. The backend table's alloc / free. */
dlx_status dlx__cuda_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn);
void dlx__cuda_free(DLDevice device, void *ptr);
/* The cache's entries: keep a block from reuse until event completes (false: ptr is no cached-allocator
 * block), give every cached block back, what the cache holds on device. */
bool dlx__cuda_guard_block(void *ptr, void *event);
dlx_status dlx__cuda_empty_cache(void);
dlx_status dlx__cuda_cache_stats(int32_t device, dlx__cache_stats *out);

/* ---- copies (copy.c) ------------------------------------------------------------------------------ */

/* dst[...] = src where at least one side is CUDA device memory: same dtype, src broadcast to dst, any
 * strides, packed sub-byte data included. The backend table's copy. */
dlx_status dlx__cuda_copy(const dlx_view *dst, const dlx_view *src);

/* ---- gemm (gemm.c) -------------------------------------------------------------------------------- */

/* cuBLAS, loaded at first use (dlopen), on the calling thread's stream. The backend table's gemm. */
dlx_status dlx__cuda_gemm(const dlx__gemm_call *call);

/* The backend's halves and the pair (cuda.c). */
extern const dlx__memory_ops dlx__cuda_memory;
extern const dlx__compute_ops dlx__cuda_compute;
extern const dlx__backend dlx__cuda_backend;

#endif
