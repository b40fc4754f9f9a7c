/* The public device controls of dlx/cuda.h, over the memory half that serves CUDA device memory
 * (backend.h; the CUDA module's, loaded at the first call that needs it). They are the same code in every
 * build: where that half is absent (a build without CUDA, or a module that cannot be loaded) each says so, and where it is present the arguments and the device id are checked here, once, before
 * the backend's entry runs. */
#include <inttypes.h>

#include "backends/backend.h"
#include "core/error_internal.h"
#include "dlx/cuda.h"

/* No CUDA backend: the build made no module (DLX_WITH_CUDA=OFF, no nvcc), or it cannot be loaded here. */
#define NO_CUDA(fn)                                                                                    \
  dlx_set_error(DLX_ERR_UNSUPPORTED, "%s: dlx was built without CUDA (DLX_WITH_CUDA=OFF), or its module is missing: %s", \
                fn, dlx__backend_module_why(kDLCUDA))

/* The memory half of CUDA device memory, or NO_CUDA. */
static dlx_status cuda_memory(const char *fn, const dlx__memory_ops **out) {
  *out = dlx__memory_of_type(kDLCUDA);
  return *out != NULL ? DLX_OK : NO_CUDA(fn);
}

/* The memory half, with device a device that exists. */
static dlx_status cuda_device(int32_t device, const char *fn, const dlx__memory_ops **out) {
  DLX_FORWARD(cuda_memory(fn, out));
  const int n = (*out)->device_count();
  DLX_FAIL_IF(n == 0, DLX_ERR_INVALID_DEVICE, "%s: device cuda:%" PRId32 " does not exist: no CUDA device is present",
              fn, device);
  DLX_FAIL_IF(device < 0 || device >= n, DLX_ERR_INVALID_DEVICE, "%s: device cuda:%" PRId32 " does not exist (%d device%s)",
              fn, device, n, n == 1 ? "" : "s");
  return DLX_OK;
}

/* An entry the half must have for fn. */
static dlx_status need(bool present, const dlx__memory_ops *m, const char *fn) {
  DLX_FAIL_IF(!present, DLX_ERR_UNSUPPORTED, "%s: the %s backend has no such control", fn, m->name);
  return DLX_OK;
}

int dlx_cuda_built(void) { return dlx__memory_of_type(kDLCUDA) != NULL; }

int dlx_cuda_device_count(void) {
  const dlx__memory_ops *m = dlx__memory_of_type(kDLCUDA);
  return m != NULL ? m->device_count() : 0;
}

dlx_status dlx_cuda_set_stream(int32_t device, void *stream, void **previous) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_device(device, __func__, &m));
  DLX_FORWARD(need(m->stream_set != NULL, m, __func__));
  return m->stream_set(device, stream, previous);
}

dlx_status dlx_cuda_get_stream(int32_t device, void **stream) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_memory(__func__, &m));
  DLX_CHECK_NULL(stream);
  DLX_FORWARD(cuda_device(device, __func__, &m));
  DLX_FORWARD(need(m->stream_get != NULL, m, __func__));
  return m->stream_get(device, stream);
}

dlx_status dlx_cuda_stream_create(int32_t device, int non_blocking, void **stream) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_memory(__func__, &m));
  DLX_CHECK_NULL(stream);
  DLX_FORWARD(cuda_device(device, __func__, &m));
  DLX_FORWARD(need(m->stream_create != NULL, m, __func__));
  return m->stream_create(device, non_blocking != 0, stream);
}

dlx_status dlx_cuda_stream_destroy(int32_t device, void *stream) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_device(device, __func__, &m));
  DLX_FORWARD(need(m->stream_destroy != NULL, m, __func__));
  return m->stream_destroy(device, stream);
}

dlx_status dlx_cuda_synchronize(int32_t device) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_device(device, __func__, &m));
  DLX_FORWARD(need(m->synchronize != NULL, m, __func__));
  return m->synchronize(device);
}

dlx_status dlx_cuda_stream_synchronize(int32_t device, void *stream) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_device(device, __func__, &m));
  DLX_FORWARD(need(m->stream_synchronize != NULL, m, __func__));
  return m->stream_synchronize(device, stream);
}

dlx_status dlx_cuda_stream_wait(int32_t device, void *waiter, void *producer) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_device(device, __func__, &m));
  const dlx__queue q = {m, device};
  return dlx__queue_stream_wait(&q, waiter, producer);
}

dlx_status dlx_cuda_empty_cache(void) {
  const dlx__memory_ops *m = dlx__memory_of_type(kDLCUDA);
  /* nothing is cached without CUDA, or without a device: emptying the cache succeeds */
  if (m == NULL || m->empty_cache == NULL || m->device_count() == 0) return DLX_OK;
  return m->empty_cache();
}

dlx_status dlx_cuda_memory_stats_get(int32_t device, dlx_cuda_memory_stats *out) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_memory(__func__, &m));
  DLX_CHECK_NULL(out);
  DLX_FORWARD(cuda_device(device, __func__, &m));
  DLX_FORWARD(need(m->cache_stats != NULL, m, __func__));
  dlx__cache_stats s;
  DLX_FORWARD(m->cache_stats(device, &s));
  out->allocated = s.allocated;
  out->cached = s.cached;
  out->peak_allocated = s.peak_allocated;
  out->driver_allocs = s.driver_allocs;
  return DLX_OK;
}

dlx_status dlx_cuda_pointer_device(const void *ptr, DLDevice *out) {
  const dlx__memory_ops *m;
  DLX_FORWARD(cuda_memory(__func__, &m));
  DLX_CHECK_NULL(out);
  DLX_FAIL_IF(ptr == NULL, DLX_ERR_NULL_DATA, "dlx_cuda_pointer_device: ptr is NULL");
  DLX_FORWARD(need(m->pointer_device != NULL, m, __func__));
  return m->pointer_device(ptr, out);
}
