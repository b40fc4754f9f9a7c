/* CUDA memory: a caching allocator for device memory, pinned and managed host memory.
 *
 * The cache (augpy's orphaned allocations, PyTorch's caching allocator): cudaMalloc and cudaFree
 * synchronise the device and cost tens of microseconds, so a freed block is kept and handed to the next
 * request of a fitting size on the same device. A block remembers the stream it was last used on; when it
 * is freed an event is recorded on that stream. The same stream may take it back at once (its work is in
 * order); another stream only once the event has completed, so a kernel still reading the old contents
 * never sees them overwritten. Sizes are rounded (512 B below 1 MiB, 2 MiB above) so blocks fit later
 * requests; a block is reused for a request of at least half its size. When cudaMalloc runs out of
 * memory, every cached block whose work has finished is returned to the driver and the call retried.
 * One mutex guards the cache; CUDA calls that may block (cudaMalloc, cudaFree) run outside it. */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"
#include "core/error_internal.h"

typedef struct block {
  void *ptr;
  size_t size;          /* rounded size, what cudaMalloc returned */
  int32_t device;
  cudaStream_t stream;  /* where it was last used */
  cudaEvent_t freed;    /* recorded on stream at free; NULL until first needed */
  struct block *next;   /* in the live table's chain, or in the free list */
} block;

#define LIVE_BUCKETS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *live[LIVE_BUCKETS];             /* handed out, by pointer */
static block *free_list[DLX_CUDA_MAX_DEVICES]; /* cached, per device */
static dlx__cache_stats stats[DLX_CUDA_MAX_DEVICES];

static size_t bucket_of(const void *p) { return ((uintptr_t)p >> 9) % LIVE_BUCKETS; }

static size_t round_size(uint64_t bytes) {
  const uint64_t small = 512, large = (uint64_t)2 << 20;
  if (bytes == 0) bytes = 1;
  return bytes < ((uint64_t)1 << 20) ? (size_t)((bytes + small - 1) / small * small)
                                     : (size_t)((bytes + large - 1) / large * large);
}

/* A cached block of device for size on stream, removed from the free list; NULL when none fits. Called
 * with the lock held. */
static block *take_cached(int32_t device, size_t size, cudaStream_t stream) {
  block **best = NULL;
  for (block **pp = &free_list[device]; *pp != NULL; pp = &(*pp)->next) {
    block *b = *pp;
    if (b->size < size || b->size / 2 > size) continue;
    /* another stream: only once the work before the free is done */
    if (b->stream != stream && b->freed != NULL && cudaEventQuery(b->freed) != cudaSuccess) {
      (void)cudaGetLastError(); /* cudaErrorNotReady is not an error to keep */
      continue;
    }
    if (best == NULL || b->size < (*best)->size) best = pp;
  }
  if (best == NULL) return NULL;
  block *b = *best;
  *best = b->next;
  b->next = NULL;
  stats[device].cached -= b->size;
  return b;
}

static void insert_live(block *b) {
  const size_t k = bucket_of(b->ptr);
  b->next = live[k];
  live[k] = b;
  dlx__cache_stats *s = &stats[b->device];
  s->allocated += b->size;
  if (s->allocated > s->peak_allocated) s->peak_allocated = s->allocated;
}

static block *remove_live(const void *p) {
  for (block **pp = &live[bucket_of(p)]; *pp != NULL; pp = &(*pp)->next) {
    if ((*pp)->ptr != p) continue;
    block *b = *pp;
    *pp = b->next;
    b->next = NULL;
    stats[b->device].allocated -= b->size;
    return b;
  }
  return NULL;
}

/* Return every cached block of every device whose work has finished to the driver (all of them when
 * wait is set, after waiting for their events). Called without the lock. */
static void release_cached(bool wait) {
  pthread_mutex_lock(&lock);
  block *doomed = NULL;
  for (int d = 0; d < DLX_CUDA_MAX_DEVICES; ++d) {
    block **pp = &free_list[d];
    while (*pp != NULL) {
      block *b = *pp;
      const bool done = b->freed == NULL || wait || cudaEventQuery(b->freed) == cudaSuccess;
      if (!done) {
        (void)cudaGetLastError();
        pp = &b->next;
        continue;
      }
      *pp = b->next;
      stats[d].cached -= b->size;
      b->next = doomed;
      doomed = b;
    }
  }
  pthread_mutex_unlock(&lock);
  int cur = -1;
  (void)cudaGetDevice(&cur);
  while (doomed != NULL) {
    block *b = doomed;
    doomed = b->next;
    (void)cudaSetDevice(b->device);
    if (b->freed != NULL) {
      (void)cudaEventSynchronize(b->freed);
      (void)cudaEventDestroy(b->freed);
    }
    (void)cudaFree(b->ptr);
    free(b);
  }
  if (cur >= 0) (void)cudaSetDevice(cur);
  (void)cudaGetLastError();
}

dlx_status dlx__cuda_empty_cache(void) {
  release_cached(true);
  return DLX_OK;
}

dlx_status dlx__cuda_cache_stats(int32_t device, dlx__cache_stats *out) {
  pthread_mutex_lock(&lock);
  *out = stats[device];
  pthread_mutex_unlock(&lock);
  return DLX_OK;
}

static dlx_status alloc_device(int32_t id, uint64_t bytes, bool zero, void **out, const char *fn) {
  DLX_FORWARD(dlx__cuda_check_device(id, fn));
  DLX_FAIL_IF(bytes > (uint64_t)SIZE_MAX / 2, DLX_ERR_OUT_OF_MEMORY, "%s: %" PRIu64 " bytes cannot be allocated", fn,
              bytes);
  DLX_FORWARD(dlx__cuda_use_device(id, fn));
  const size_t size = round_size(bytes);
  cudaStream_t stream = dlx__cuda_stream(id);
  pthread_mutex_lock(&lock);
  block *b = take_cached(id, size, stream);
  pthread_mutex_unlock(&lock);
  if (b == NULL) {
    b = calloc(1, sizeof *b);
    DLX_FAIL_IF(b == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of host memory for a block record", fn);
    cudaError_t err = cudaMalloc(&b->ptr, size);
    if (err == cudaErrorMemoryAllocation) {
      /* give back what the cache holds, then try once more */
      (void)cudaGetLastError();
      release_cached(false);
      err = cudaMalloc(&b->ptr, size);
    }
    if (err != cudaSuccess) {
      free(b);
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "%s: out of memory on cuda:%" PRId32 " allocating %" PRIu64
                             " bytes", fn, id, bytes);
      }
      return dlx__cuda_fail(err, fn, "cudaMalloc");
    }
    b->size = size;
    b->device = id;
    pthread_mutex_lock(&lock);
    ++stats[id].driver_allocs;
    pthread_mutex_unlock(&lock);
  }
  b->stream = stream;
  if (zero) {
    const cudaError_t err = cudaMemsetAsync(b->ptr, 0, (size_t)bytes, stream);
    if (err != cudaSuccess) {
      pthread_mutex_lock(&lock);
      b->next = free_list[id];
      free_list[id] = b;
      stats[id].cached += b->size;
      pthread_mutex_unlock(&lock);
      return dlx__cuda_fail(err, fn, "cudaMemsetAsync");
    }
  }
  pthread_mutex_lock(&lock);
  insert_live(b);
  pthread_mutex_unlock(&lock);
  *out = b->ptr;
  return DLX_OK;
}

/* A freed device block back into the cache, with an event recorded on its stream. Any thread, and after
 * the runtime shut down (every call then fails, and the block is simply dropped). */
static void free_device(void *p) {
  pthread_mutex_lock(&lock);
  block *b = remove_live(p);
  pthread_mutex_unlock(&lock);
  if (b == NULL) return; /* not ours: never happens for pointers this allocator handed out */
  int cur = -1;
  const bool have_cur = cudaGetDevice(&cur) == cudaSuccess;
  (void)cudaSetDevice(b->device);
  bool recorded = false;
  if (b->freed != NULL || cudaEventCreateWithFlags(&b->freed, cudaEventDisableTiming) == cudaSuccess)
    recorded = cudaEventRecord(b->freed, b->stream) == cudaSuccess;
  if (have_cur) (void)cudaSetDevice(cur);
  (void)cudaGetLastError();
  if (!recorded) {
    /* no event (the runtime is going away): a block that cannot be guarded is not reused */
    if (b->freed != NULL) (void)cudaEventDestroy(b->freed);
    (void)cudaFree(b->ptr);
    (void)cudaGetLastError();
    free(b);
    return;
  }
  pthread_mutex_lock(&lock);
  b->next = free_list[b->device];
  free_list[b->device] = b;
  stats[b->device].cached += b->size;
  pthread_mutex_unlock(&lock);
}

bool dlx__cuda_guard_block(void *ptr, void *event) {
  pthread_mutex_lock(&lock);
  cudaStream_t stream = NULL;
  int32_t device = -1;
  for (block *b = live[bucket_of(ptr)]; b != NULL; b = b->next)
    if (b->ptr == ptr) {
      stream = b->stream;
      device = b->device;
      break;
    }
  pthread_mutex_unlock(&lock);
  if (device < 0) return false; /* not a block of this allocator (pinned or managed memory) */
  int cur = -1;
  const bool have_cur = cudaGetDevice(&cur) == cudaSuccess;
  (void)cudaSetDevice(device);
  if (cudaStreamWaitEvent(stream, (cudaEvent_t)event, 0) != cudaSuccess) {
    /* the stream cannot be made to wait (the runtime is going away): wait here instead */
    (void)cudaEventSynchronize((cudaEvent_t)event);
  }
  if (have_cur) (void)cudaSetDevice(cur);
  (void)cudaGetLastError();
  return true;
}

dlx_status dlx__cuda_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn) {
  switch (device.device_type) {
    case kDLCUDA: return alloc_device(device.device_id, bytes, zero, out, fn);
    case kDLCUDAHost:
    case kDLCUDAManaged: {
      DLX_FAIL_IF(device.device_id != 0, DLX_ERR_INVALID_DEVICE, "%s: %s device id %" PRId32 " (DLPack: always 0)", fn,
                  device.device_type == kDLCUDAHost ? "cuda_host" : "cuda_managed", device.device_id);
      DLX_FAIL_IF(dlx__cuda_count() == 0, DLX_ERR_INVALID_DEVICE,
                  "%s: cannot allocate %s memory: no CUDA device is present", fn,
                  device.device_type == kDLCUDAHost ? "pinned" : "managed");
      void *p = NULL;
      const size_t size = bytes ? (size_t)bytes : 1;
      const cudaError_t err = device.device_type == kDLCUDAHost ? cudaHostAlloc(&p, size, cudaHostAllocDefault)
                                                                : cudaMallocManaged(&p, size, cudaMemAttachGlobal);
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %" PRIu64 " bytes of %s memory", fn,
                             bytes, device.device_type == kDLCUDAHost ? "pinned" : "managed");
      }
      if (err != cudaSuccess)
        return dlx__cuda_fail(err, fn, device.device_type == kDLCUDAHost ? "cudaHostAlloc" : "cudaMallocManaged");
      /* both are host-accessible, and nothing is queued on them yet */
      if (zero) memset(p, 0, size);
      *out = p;
      return DLX_OK;
    }
    default:
      return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: the cuda backend does not allocate device type %d", fn,
                           (int)device.device_type);
  }
}

void dlx__cuda_free(DLDevice device, void *ptr) {
  if (ptr == NULL) return;
  switch (device.device_type) {
    case kDLCUDA: free_device(ptr); return;
    case kDLCUDAHost: (void)cudaFreeHost(ptr); break;
    default: (void)cudaFree(ptr); break;
  }
  (void)cudaGetLastError();
}
