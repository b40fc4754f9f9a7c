/* Memory for tensors: new storage from the backend that owns a device's memory, and compact copies. This
 * sits above the backends (src/backends) and the storage layer (src/exchange/storage.h), so both the C
 * tensors (tensor.c) and the Python module allocate through it. */
#include "tensor/memory.h"

#include <inttypes.h>
#include <pthread.h>

#include "backends/backend.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* ---- dlx's own memory ---------------------------------------------------------------------------- */

static void release_backend_memory(void *ctx, void *ptr, DLDevice device) {
  const dlx__memory_ops *m = ctx;
  m->free(device, ptr);
}

dlx_status dlx__storage_alloc_like(DLDevice device, const void *like, uint64_t bytes, bool zero, const char *fn,
                                   dlx__storage **out) {
  const dlx__memory_ops *m;
  DLX_FORWARD(dlx__backend_memory(device, fn, &m));
  void *p = NULL;
  DLX_FORWARD(dlx__device_alloc_like(m, device, like, bytes, zero, &p, fn));
  dlx__storage *s = dlx__storage_new(release_backend_memory, (void *)(uintptr_t)m, p, device);
  if (s == NULL) {
    m->free(device, p);
    return dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating a storage", fn);
  }
  *out = s;
  return DLX_OK;
}

dlx_status dlx__storage_alloc(DLDevice device, uint64_t bytes, bool zero, const char *fn, dlx__storage **out) {
  return dlx__storage_alloc_like(device, NULL, bytes, zero, fn, out);
}

/* ---- copies ------------------------------------------------------------------------------------- */

dlx_status dlx__storage_copy_compact(const dlx_view *src, const char *fn, dlx__storage **out, dlx_view *out_view) {
  const bool padded = (src->flags & DLX_VIEW_SUBBYTE_PADDED) != 0;
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(src->dtype, (uint64_t)dlx_view_size(src), padded, &bytes));
  const DLDevice dev = dlx_device_is_host_accessible(src->device) ? (DLDevice){kDLCPU, 0} : src->device;
  dlx__storage *s;
  DLX_FORWARD(dlx__storage_alloc_like(dev, src->data, bytes, false, fn, &s));
  dlx_view v;
  dlx_status st = dlx_view_init(&v, s->ptr, src->dtype, dev, src->ndim, src->shape, NULL);
  if (st == DLX_OK) {
    if (padded) v.flags |= DLX_VIEW_SUBBYTE_PADDED;
    st = dlx_copy(&v, src);
  }
  if (st != DLX_OK) {
    dlx__storage_release(s);
    return st;
  }
  *out = s;
  *out_view = v;
  return DLX_OK;
}

/* ---- events (dlx_tensor_record / dlx_tensor_wait) -------------------------------------------------- */

/* Creating a storage's event: rare, so one lock for every storage. Recording and waiting run outside it. */
static pthread_mutex_t event_lock = PTHREAD_MUTEX_INITIALIZER;

/* Before the memory goes (storage.c): dlx's own memory stays out of its allocator's reuse until the
 * recorded use is done (the block's stream waits for the event, without blocking); any other memory (a
 * producer's, whose deleter frees it at once, or memory the allocator does not pool) is waited for on the
 * host first. */
static void event_release(dlx__storage *s) {
  const dlx__memory_ops *m = s->event_owner;
  const bool guarded = s->release == release_backend_memory && dlx__memory_guard_block(m, s->ptr, s->event);
  dlx__memory_event_destroy(m, s->event_device, s->event, !guarded);
  s->event = NULL;
}

/* stream, or the queue's current stream of the calling thread when NULL. */
static dlx_status resolve_stream(const dlx__queue *q, void **stream) {
  if (*stream != NULL) return DLX_OK;
  return dlx__queue_current_stream(q, stream);
}

dlx_status dlx__storage_record(dlx__storage *s, DLDevice device, void *stream, const char *fn) {
  dlx__queue q;
  DLX_FORWARD(dlx__device_queue(device, fn, &q));
  if (q.mem == NULL) return DLX_OK; /* host memory: nothing to order */
  DLX_FORWARD(resolve_stream(&q, &stream));
  pthread_mutex_lock(&event_lock);
  dlx_status st = DLX_OK;
  if (s->event == NULL) {
    void *ev = NULL;
    st = dlx__queue_event_create(&q, &ev, fn);
    if (st == DLX_OK) {
      s->event_owner = q.mem;
      s->event_device = q.device;
      s->event_release = event_release;
      s->event = ev;
    }
  }
  void *ev = s->event;
  const dlx__queue eq = {s->event_owner, s->event_device};
  pthread_mutex_unlock(&event_lock);
  DLX_FORWARD(st);
  return dlx__queue_event_record(&eq, ev, stream, fn);
}

dlx_status dlx__storage_wait(dlx__storage *s, DLDevice device, void *stream, const char *fn) {
  dlx__queue q;
  DLX_FORWARD(dlx__device_queue(device, fn, &q));
  if (q.mem == NULL) return DLX_OK;
  pthread_mutex_lock(&event_lock);
  void *ev = s->event;
  const dlx__queue eq = {s->event_owner, s->event_device};
  pthread_mutex_unlock(&event_lock);
  if (ev == NULL) return DLX_OK; /* nothing recorded: nothing to wait for */
  DLX_FORWARD(resolve_stream(&q, &stream));
  return dlx__queue_event_wait(&eq, ev, stream, fn);
}
