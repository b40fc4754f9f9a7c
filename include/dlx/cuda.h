/* dlx/cuda.h - the CUDA backend's controls: devices, the calling thread's stream, events between streams,
 * the caching allocator, and the device a pointer belongs to.
 *
 * The CUDA backend is a module, libdlx_cuda.so, that libdlx loads the first time one of these functions
 * (or an op, an allocation or an export of CUDA memory) needs it: beside the file holding libdlx's code
 * (libdlx.so, or the program or extension it is linked into), or at DLX_CUDA_MODULE (an absolute path).
 * Every function exists in every build. Without the module (DLX_WITH_CUDA=OFF, or not installed there), or
 * on a machine with no GPU or driver, dlx_cuda_device_count() is 0 and the others return
 * DLX_ERR_UNSUPPORTED (no module: the message says which file was looked for, and why it did not load) or
 * DLX_ERR_INVALID_DEVICE (no such device), with a message saying which. Ops on CUDA memory
 * (dlx/ops.h) run on the calling thread's current stream of the output's device, asynchronously with
 * respect to the host; copies that write host memory wait for their stream.
 *
 * Streams are cudaStream_t values passed as void *; NULL is the legacy default stream. dlx never
 * destroys a stream it did not create.
 * Thread safety: every function is safe from any thread; the current stream is per thread and per
 * device; the allocator's cache is shared and locked. */
#ifndef DLX_CUDA_H
#define DLX_CUDA_H

#include <stdint.h>

#include "dlx/dlpack.h"
#include "dlx/error.h"
#include "dlx/export.h"

DLX_EXTERN_C_BEGIN

/* 1 when the CUDA backend's module is loaded (loading it now if it was not tried yet), else 0. */
DLX_API int dlx_cuda_built(void);
/* CUDA devices present (0 without CUDA in the build, without a driver, or without a GPU). */
DLX_API int dlx_cuda_device_count(void);

/* The calling thread's current stream on device (NULL: the legacy default stream). *previous, when not
 * NULL, receives the stream it replaces. */
DLX_API dlx_status dlx_cuda_set_stream(int32_t device, void *stream, void **previous);
DLX_API dlx_status dlx_cuda_get_stream(int32_t device, void **stream);

/* A new stream on device (cudaStreamCreateWithFlags: cudaStreamNonBlocking when non_blocking, so that it
 * does not wait for the legacy default stream), for dlx_cuda_set_stream or any CUDA library. Destroy it
 * with dlx_cuda_stream_destroy (its queued work still runs, as with cudaStreamDestroy); when it is the
 * calling thread's current stream, that becomes the legacy default stream again (other threads must stop
 * using it themselves). The default streams (NULL, cudaStreamLegacy, cudaStreamPerThread) cannot be
 * destroyed: DLX_ERR_INVALID_ARGUMENT. */
DLX_API dlx_status dlx_cuda_stream_create(int32_t device, int non_blocking, void **stream);
DLX_API dlx_status dlx_cuda_stream_destroy(int32_t device, void *stream);

/* Wait until all work on device is done (cudaDeviceSynchronize on it), or all work on one stream. */
DLX_API dlx_status dlx_cuda_synchronize(int32_t device);
DLX_API dlx_status dlx_cuda_stream_synchronize(int32_t device, void *stream);

/* Make `waiter` wait for the work queued on `producer` so far, without blocking the host: an event is
 * recorded on producer and waited on by waiter (the DLPack stream rule). Same device for both. */
DLX_API dlx_status dlx_cuda_stream_wait(int32_t device, void *waiter, void *producer);

/* The caching allocator: freed device blocks are kept per device and stream and reused (a block freed on
 * one stream is reused by another only once the work queued before its free has finished).
 * dlx_cuda_empty_cache returns every cached block to the driver. */
DLX_API dlx_status dlx_cuda_empty_cache(void);
typedef struct dlx_cuda_memory_stats {
  uint64_t allocated;      /* bytes in blocks handed out and not freed */
  uint64_t cached;         /* bytes in freed blocks kept for reuse */
  uint64_t peak_allocated; /* the most `allocated` has been */
  uint64_t driver_allocs;  /* cudaMalloc calls made (the cache avoided the others) */
} dlx_cuda_memory_stats;
DLX_API dlx_status dlx_cuda_memory_stats_get(int32_t device, dlx_cuda_memory_stats *out);

/* The DLPack device of a pointer, as CCCL's to_dlpack_tensor finds it (cudaPointerGetAttributes):
 * (kDLCUDA, id) for device memory, (kDLCUDAManaged, 0) for managed, (kDLCUDAHost, 0) for pinned host
 * memory, (kDLCPU, 0) for memory CUDA does not know. */
DLX_API dlx_status dlx_cuda_pointer_device(const void *ptr, DLDevice *out);

DLX_EXTERN_C_END

#endif
