/* dlx/cuda.h in a build without the CUDA backend (DLX_WITH_CUDA=OFF): no device, and every control says
 * why it cannot act. */
#include "backends/cuda_events.h"
#include "core/error_internal.h"
#include "dlx/cuda.h"

#define NO_CUDA(fn) dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: dlx was built without CUDA (DLX_WITH_CUDA=OFF)", fn)

int dlx_cuda_built(void) { return 0; }
int dlx_cuda_device_count(void) { return 0; }

dlx_status dlx_cuda_set_stream(int32_t device, void *stream, void **previous) {
  (void)device, (void)stream, (void)previous;
  return NO_CUDA("dlx_cuda_set_stream");
}
dlx_status dlx_cuda_get_stream(int32_t device, void **stream) {
  (void)device, (void)stream;
  return NO_CUDA("dlx_cuda_get_stream");
}
dlx_status dlx_cuda_synchronize(int32_t device) {
  (void)device;
  return NO_CUDA("dlx_cuda_synchronize");
}
dlx_status dlx_cuda_stream_synchronize(int32_t device, void *stream) {
  (void)device, (void)stream;
  return NO_CUDA("dlx_cuda_stream_synchronize");
}
dlx_status dlx_cuda_stream_wait(int32_t device, void *waiter, void *producer) {
  (void)device, (void)waiter, (void)producer;
  return NO_CUDA("dlx_cuda_stream_wait");
}
/* nothing is cached without CUDA: emptying the cache succeeds */
dlx_status dlx_cuda_empty_cache(void) { return DLX_OK; }
dlx_status dlx_cuda_memory_stats_get(int32_t device, dlx_cuda_memory_stats *out) {
  (void)device, (void)out;
  return NO_CUDA("dlx_cuda_memory_stats_get");
}
dlx_status dlx_cuda_pointer_device(const void *ptr, DLDevice *out) {
  (void)ptr, (void)out;
  return NO_CUDA("dlx_cuda_pointer_device");
}
dlx_status dlx_cuda_stream_create(int32_t device, int non_blocking, void **stream) {
  (void)device, (void)non_blocking, (void)stream;
  return NO_CUDA("dlx_cuda_stream_create");
}
dlx_status dlx_cuda_stream_destroy(int32_t device, void *stream) {
  (void)device, (void)stream;
  return NO_CUDA("dlx_cuda_stream_destroy");
}

/* events (backends/cuda_events.h): none can be made, so the release side never runs */
dlx_status dlx__cuda_event_create(int32_t device, void **event, const char *fn) {
  (void)device, (void)event;
  return NO_CUDA(fn);
}
dlx_status dlx__cuda_event_record(int32_t device, void *event, void *stream, const char *fn) {
  (void)device, (void)event, (void)stream;
  return NO_CUDA(fn);
}
dlx_status dlx__cuda_event_wait(int32_t device, void *event, void *stream, const char *fn) {
  (void)device, (void)event, (void)stream;
  return NO_CUDA(fn);
}
void dlx__cuda_event_destroy(int32_t device, void *event, int host_wait) { (void)device, (void)event, (void)host_wait; }
void dlx__cuda_guard_block(void *ptr, void *event) { (void)ptr, (void)event; }
