/* CUDA devices, the calling thread's streams, events between streams, pointer attributes, and the CUDA
 * error messages of the backend: the stream and event entries of its memory half (backend.h). The
 * public controls of dlx/cuda.h call these through the table (backends/controls.c), which has checked
 * the device id and the arguments. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>

#include "backends/cuda/cuda_internal.h"
#include "core/error_internal.h"

dlx_status dlx__cuda_fail(cudaError_t err, const char *fn, const char *what) {
  /* the runtime keeps the last error until it is read; read it, so the next call starts clean */
  (void)cudaGetLastError();
  return dlx_set_error(DLX_ERR_BACKEND, "%s: %s: %s: %s", fn, what, cudaGetErrorName(err), cudaGetErrorString(err));
}

/* -1 until probed; a failed probe (no driver: cudaErrorInsufficientDriver, cudaErrorNoDevice) is 0
 * devices, never an error: a CUDA build must run its CPU paths anywhere. */
static atomic_int device_count = -1;

int dlx__cuda_count(void) {
  int n = atomic_load_explicit(&device_count, memory_order_acquire);
  if (n >= 0) return n;
  int probed = 0;
  if (cudaGetDeviceCount(&probed) != cudaSuccess) {
    (void)cudaGetLastError();
    probed = 0;
  }
  if (probed > DLX_CUDA_MAX_DEVICES) probed = DLX_CUDA_MAX_DEVICES;
  atomic_store_explicit(&device_count, probed, memory_order_release);
  return probed;
}

dlx_status dlx__cuda_check_device(int32_t id, const char *fn) {
  const int n = dlx__cuda_count();
  DLX_FAIL_IF(n == 0, DLX_ERR_INVALID_DEVICE, "%s: device cuda:%" PRId32 " does not exist: no CUDA device is present", fn,
              id);
  DLX_FAIL_IF(id < 0 || id >= n, DLX_ERR_INVALID_DEVICE, "%s: device cuda:%" PRId32 " does not exist (%d device%s)", fn,
              id, n, n == 1 ? "" : "s");
  return DLX_OK;
}

dlx_status dlx__cuda_use_device(int32_t id, const char *fn) {
  int cur = -1;
  if (cudaGetDevice(&cur) == cudaSuccess && cur == id) return DLX_OK;
  DLX_CUDA_TRY(cudaSetDevice(id), fn, "cudaSetDevice");
  return DLX_OK;
}

/* ---- the calling thread's streams ------------------------------------------------------------------ */

static _Thread_local cudaStream_t current_stream[DLX_CUDA_MAX_DEVICES];

cudaStream_t dlx__cuda_stream(int32_t id) { return current_stream[id]; }

dlx_status dlx__cuda_stream_set(int32_t device, void *stream, void **previous) {
  if (previous != NULL) *previous = current_stream[device];
  current_stream[device] = (cudaStream_t)stream;
  return DLX_OK;
}

dlx_status dlx__cuda_stream_get(int32_t device, void **stream) {
  *stream = current_stream[device];
  return DLX_OK;
}

dlx_status dlx__cuda_synchronize(int32_t device) {
  DLX_FORWARD(dlx__cuda_use_device(device, "dlx_cuda_synchronize"));
  DLX_CUDA_TRY(cudaDeviceSynchronize(), "dlx_cuda_synchronize", "cudaDeviceSynchronize");
  return DLX_OK;
}

dlx_status dlx__cuda_stream_synchronize(int32_t device, void *stream) {
  DLX_FORWARD(dlx__cuda_use_device(device, "dlx_cuda_stream_synchronize"));
  DLX_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream), "dlx_cuda_stream_synchronize", "cudaStreamSynchronize");
  return DLX_OK;
}

dlx_status dlx__cuda_stream_wait(int32_t device, void *waiter, void *producer) {
  DLX_FORWARD(dlx__cuda_use_device(device, "dlx_cuda_stream_wait"));
  cudaEvent_t ev;
  /* timing off: the cheapest event, as PyTorch and CuPy record for stream hand-offs */
  DLX_CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "dlx_cuda_stream_wait", "cudaEventCreate");
  cudaError_t err = cudaEventRecord(ev, (cudaStream_t)producer);
  if (err == cudaSuccess) err = cudaStreamWaitEvent((cudaStream_t)waiter, ev, 0);
  /* destroying a recorded event is fine: the wait holds what it needs */
  (void)cudaEventDestroy(ev);
  if (err != cudaSuccess) return dlx__cuda_fail(err, "dlx_cuda_stream_wait", "cudaStreamWaitEvent");
  return DLX_OK;
}

dlx_status dlx__cuda_stream_create(int32_t device, bool non_blocking, void **stream) {
  DLX_FORWARD(dlx__cuda_use_device(device, "dlx_cuda_stream_create"));
  cudaStream_t s = NULL;
  DLX_CUDA_TRY(cudaStreamCreateWithFlags(&s, non_blocking ? cudaStreamNonBlocking : cudaStreamDefault),
               "dlx_cuda_stream_create", "cudaStreamCreateWithFlags");
  *stream = s;
  return DLX_OK;
}

dlx_status dlx__cuda_stream_destroy(int32_t device, void *stream) {
  /* the special handles are no streams anyone created */
  DLX_FAIL_IF(stream == NULL || stream == (void *)cudaStreamLegacy || stream == (void *)cudaStreamPerThread,
              DLX_ERR_INVALID_ARGUMENT, "dlx_cuda_stream_destroy: stream %p is a default stream, which cannot be destroyed",
              stream);
  DLX_FORWARD(dlx__cuda_use_device(device, "dlx_cuda_stream_destroy"));
  /* a thread whose current stream this is falls back to the legacy default stream */
  for (int d = 0; d < DLX_CUDA_MAX_DEVICES; ++d)
    if (current_stream[d] == (cudaStream_t)stream) current_stream[d] = NULL;
  DLX_CUDA_TRY(cudaStreamDestroy((cudaStream_t)stream), "dlx_cuda_stream_destroy", "cudaStreamDestroy");
  return DLX_OK;
}

/* ---- events kept with a tensor's storage (dlx_tensor_record) --------------------------------------- */

dlx_status dlx__cuda_event_create(int32_t device, void **event, const char *fn) {
  DLX_FORWARD(dlx__cuda_use_device(device, fn));
  cudaEvent_t ev;
  DLX_CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), fn, "cudaEventCreateWithFlags");
  *event = ev;
  return DLX_OK;
}

dlx_status dlx__cuda_event_record(int32_t device, void *event, void *stream, const char *fn) {
  DLX_FORWARD(dlx__cuda_use_device(device, fn));
  DLX_CUDA_TRY(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream), fn, "cudaEventRecord");
  return DLX_OK;
}

dlx_status dlx__cuda_event_wait(int32_t device, void *event, void *stream, const char *fn) {
  DLX_FORWARD(dlx__cuda_use_device(device, fn));
  DLX_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0), fn, "cudaStreamWaitEvent");
  return DLX_OK;
}

dlx_status dlx__cuda_event_query(int32_t device, void *event, bool *done) {
  DLX_FORWARD(dlx__cuda_use_device(device, "dlx_event_query"));
  const cudaError_t err = cudaEventQuery((cudaEvent_t)event);
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError(); /* not an error to keep */
    *done = false;
    return DLX_OK;
  }
  if (err != cudaSuccess) return dlx__cuda_fail(err, "dlx_event_query", "cudaEventQuery");
  *done = true;
  return DLX_OK;
}

void dlx__cuda_event_destroy(int32_t device, void *event, bool host_wait) {
  int cur = -1;
  const bool have_cur = cudaGetDevice(&cur) == cudaSuccess;
  (void)cudaSetDevice(device);
  if (host_wait) (void)cudaEventSynchronize((cudaEvent_t)event);
  (void)cudaEventDestroy((cudaEvent_t)event);
  if (have_cur) (void)cudaSetDevice(cur);
  (void)cudaGetLastError();
}

/* ---- pointers ------------------------------------------------------------------------------------- */

dlx_status dlx__cuda_pointer_device(const void *ptr, DLDevice *out) {
  if (dlx__cuda_count() == 0) {
    /* no driver: CUDA knows no memory at all */
    *out = (DLDevice){kDLCPU, 0};
    return DLX_OK;
  }
  struct cudaPointerAttributes a;
  const cudaError_t err = cudaPointerGetAttributes(&a, ptr);
  if (err == cudaErrorInvalidValue) { /* older runtimes: memory CUDA does not know */
    (void)cudaGetLastError();
    *out = (DLDevice){kDLCPU, 0};
    return DLX_OK;
  }
  if (err != cudaSuccess) return dlx__cuda_fail(err, "dlx_cuda_pointer_device", "cudaPointerGetAttributes");
  switch (a.type) {
    case cudaMemoryTypeDevice: *out = (DLDevice){kDLCUDA, a.device}; break;
    /* DLPack: device_id 0 for pinned and managed memory */
    case cudaMemoryTypeManaged: *out = (DLDevice){kDLCUDAManaged, 0}; break;
    case cudaMemoryTypeHost: *out = (DLDevice){kDLCUDAHost, 0}; break;
    default: *out = (DLDevice){kDLCPU, 0}; break;
  }
  return DLX_OK;
}
