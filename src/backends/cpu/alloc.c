/* The CPU backend's host memory: 64-byte aligned blocks, and a bounded cache of recently freed large
 * ones.
 *
 * Why a cache: a new 64 MiB result of t + t or astype is a fresh mapping from the kernel every time (glibc
 * maps and unmaps anything past 32 MiB on each malloc/free), and its first touch costs a page fault per
 * page: ~3 ms per 32 MiB, as much as the op itself. Freed blocks of 1 MiB and more are kept, by size
 * class, and handed out again with their pages still mapped (huge pages included).
 *
 * Blocks: every block starts with a 64-byte header (so the data stays 64-byte aligned) that records its
 * kind and size, because free() gets only the pointer.
 *  - small (< 1 MiB): aligned_alloc, released at once;
 *  - large: their own anonymous mapping (already zero: zeroed allocations skip the memset), rounded up to
 *    a size class (four per power of two, at most 25% above the request, so that a block serves every
 *    request of its class), aligned to 2 MiB and advised to transparent huge pages from 4 MiB on, as
 *    NumPy does. Where mmap does not exist they come from aligned_alloc, and the cache works the same.
 *
 * The cache: at most DLX_CPU_CACHE_BLOCKS blocks (default 16) and DLX_CPU_CACHE_BYTES bytes (default
 * 256 MiB; K, M, G suffixes; 0 disables it), read once at first use; the least recently freed block goes
 * first when a bound would be exceeded. One mutex guards it (large blocks are rare; the lock is never held
 * across a system call that maps memory). A reused zeroed allocation is cleared with memset.
 * dlx_cpu_empty_cache() (dlx/ops.h) unmaps every cached block.
 *
 * Sanitizers: under ASan a cached block is poisoned, so that a use after free still reports while the
 * block waits for reuse. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1 /* MADV_HUGEPAGE, MAP_ANONYMOUS: a strict -std=c11 build hides them otherwise */
#endif
#if !defined(_POSIX_C_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "backends/cpu/cpu.h"
#include "core/error_internal.h"
#include "dlx/ops.h"

#if defined(MAP_ANONYMOUS)
#define HAVE_MMAP 1
#else
#define HAVE_MMAP 0
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DLX_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DLX_ASAN 1
#endif
#ifdef DLX_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define HEAD 64u                                   /* header bytes before the data */
#define LARGE_MIN ((uint64_t)1 << 20)              /* blocks from here on are mapped and cached */
#define HUGE_PAGE ((uint64_t)1 << 21)              /* transparent huge page size on x86-64 */
#define HUGE_PAGE_MIN ((uint64_t)1 << 22)          /* blocks from here on ask for huge pages */
#define DEFAULT_MAX_BYTES ((uint64_t)256 << 20)
#define DEFAULT_MAX_BLOCKS 16
#define MAGIC_SMALL UINT64_C(0x646c78736d616c6c)   /* "dlxsmall" */
#define MAGIC_LARGE UINT64_C(0x646c786c61726765)   /* "dlxlarge" */

typedef struct block {
  uint64_t magic;
  uint64_t usable;     /* data bytes: the size class for large blocks */
  void *base;          /* what to unmap or free */
  uint64_t mapped;     /* bytes of the mapping (0: from aligned_alloc) */
  struct block *newer; /* the cache's list, oldest first */
  struct block *older;
} block;
_Static_assert(sizeof(block) <= HEAD, "the header fits its 64 bytes");

static block *data_block(void *data) { return (block *)(void *)((char *)data - HEAD); }
static void *block_data(block *b) { return (char *)b + HEAD; }

/* ---- size classes ---------------------------------------------------------------------------------- */

/* The smallest class >= bytes: 2^k, 1.25 * 2^k, 1.5 * 2^k, 1.75 * 2^k. */
static uint64_t size_class(uint64_t bytes) {
  uint64_t p = LARGE_MIN;
  while (p * 2 <= bytes) p *= 2;
  for (uint64_t q = p; q <= 2 * p; q += p / 4)
    if (q >= bytes) return q;
  return 2 * p;
}

/* ---- mappings --------------------------------------------------------------------------------------- */

static void unmap_block(block *b) {
#if HAVE_MMAP
  if (b->mapped != 0) {
    munmap(b->base, (size_t)b->mapped);
    return;
  }
#endif
  free(b->base);
}

/* A new large block of `usable` data bytes, or NULL. */
static block *map_block(uint64_t usable) {
  const uint64_t need = usable + HEAD;
#if HAVE_MMAP
  const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  const bool huge = usable >= HUGE_PAGE_MIN;
  /* huge pages only back 2 MiB-aligned stretches: map 2 MiB more and trim both ends */
  const uint64_t len = (need + page - 1) / page * page, extra = huge ? HUGE_PAGE : 0;
  if (len + extra < len) return NULL;
  char *raw = mmap(NULL, (size_t)(len + extra), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  char *start = raw;
  if (huge) {
    start = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (start > raw) munmap(raw, (size_t)(start - raw));
    const size_t tail = (size_t)(raw + len + extra - (start + len));
    if (tail > 0) munmap(start + len, tail);
#if defined(MADV_HUGEPAGE)
    madvise(start, (size_t)len, MADV_HUGEPAGE);
#endif
  }
  block *b = (block *)(void *)start;
  b->base = start;
  b->mapped = len;
#else
  if (need > (uint64_t)SIZE_MAX - 63) return NULL;
  void *p = aligned_alloc(64, (size_t)((need + 63) & ~(uint64_t)63));
  if (p == NULL) return NULL;
  block *b = p;
  b->base = p;
  b->mapped = 0;
#endif
  b->magic = MAGIC_LARGE;
  b->usable = usable;
  return b;
}

/* ---- the cache ------------------------------------------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block *oldest, *newest;
static uint64_t cached_bytes, cached_blocks;
static uint64_t max_bytes, max_blocks;
static bool configured;
static uint64_t hits, misses;

/* "256M", "1G", "0": bytes; anything unparsable keeps the default. */
static uint64_t parse_bytes(const char *s, uint64_t dflt) {
  if (s == NULL || *s == '\0') return dflt;
  char *end;
  const unsigned long long v = strtoull(s, &end, 10);
  if (end == s) return dflt;
  uint64_t mul = 1;
  switch (*end) {
    case 'k': case 'K': mul = (uint64_t)1 << 10; ++end; break;
    case 'm': case 'M': mul = (uint64_t)1 << 20; ++end; break;
    case 'g': case 'G': mul = (uint64_t)1 << 30; ++end; break;
    default: break;
  }
  if (*end != '\0' || (mul > 1 && v > UINT64_MAX / mul)) return dflt;
  return (uint64_t)v * mul;
}

static void configure_locked(void) {
  if (configured) return;
  max_bytes = parse_bytes(getenv("DLX_CPU_CACHE_BYTES"), DEFAULT_MAX_BYTES);
  max_blocks = parse_bytes(getenv("DLX_CPU_CACHE_BLOCKS"), DEFAULT_MAX_BLOCKS);
  configured = true;
}

static void unlink_locked(block *b) {
  if (b->older) b->older->newer = b->newer;
  else oldest = b->newer;
  if (b->newer) b->newer->older = b->older;
  else newest = b->older;
  cached_bytes -= b->usable;
  --cached_blocks;
}

/* The most recently freed block of this class (its pages are the likeliest to be warm), or NULL. */
static block *take(uint64_t usable) {
  pthread_mutex_lock(&lock);
  configure_locked();
  block *b = newest;
  while (b != NULL && b->usable != usable) b = b->older;
  if (b != NULL) {
    unlink_locked(b);
    ++hits;
  } else {
    ++misses;
  }
  pthread_mutex_unlock(&lock);
  if (b != NULL) UNPOISON(block_data(b), b->usable);
  return b;
}

/* Keep b, evicting the oldest blocks past the bounds; what does not stay is unmapped after the lock. */
static void give(block *b) {
  block *evict = NULL; /* a list through ->newer */
  pthread_mutex_lock(&lock);
  configure_locked();
  if (b->usable > max_bytes || max_blocks == 0) {
    b->newer = evict;
    evict = b;
  } else {
    while (oldest != NULL && (cached_blocks + 1 > max_blocks || cached_bytes + b->usable > max_bytes)) {
      block *o = oldest;
      unlink_locked(o);
      o->newer = evict;
      evict = o;
    }
    POISON(block_data(b), b->usable);
    b->older = newest;
    b->newer = NULL;
    if (newest) newest->newer = b;
    else oldest = b;
    newest = b;
    cached_bytes += b->usable;
    ++cached_blocks;
  }
  pthread_mutex_unlock(&lock);
  while (evict != NULL) {
    block *next = evict->newer;
    UNPOISON(block_data(evict), evict->usable);
    unmap_block(evict);
    evict = next;
  }
}

uint64_t dlx__cpu_cache_empty(void) {
  pthread_mutex_lock(&lock);
  block *all = oldest;
  const uint64_t bytes = cached_bytes;
  oldest = newest = NULL;
  cached_bytes = cached_blocks = 0;
  pthread_mutex_unlock(&lock);
  while (all != NULL) {
    block *next = all->newer;
    UNPOISON(block_data(all), all->usable);
    unmap_block(all);
    all = next;
  }
  return bytes;
}

dlx_status dlx_cpu_empty_cache(void) {
  dlx__cpu_cache_empty();
  return DLX_OK;
}

void dlx__cpu_cache_stats(dlx__cpu_cache_counts *out) {
  pthread_mutex_lock(&lock);
  configure_locked();
  out->blocks = cached_blocks;
  out->bytes = cached_bytes;
  out->max_blocks = max_blocks;
  out->max_bytes = max_bytes;
  out->hits = hits;
  out->misses = misses;
  pthread_mutex_unlock(&lock);
}

void dlx__cpu_cache_configure(uint64_t bytes, uint64_t blocks) {
  pthread_mutex_lock(&lock);
  configure_locked();
  max_bytes = bytes;
  max_blocks = blocks;
  pthread_mutex_unlock(&lock);
  /* shrink to the new bounds now: an empty cache holds nothing past any bound */
  dlx__cpu_cache_empty();
}

/* ---- the backend's entries ----------------------------------------------------------------------- */

dlx_status dlx__cpu_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn) {
  DLX_FAIL_IF(device.device_type != kDLCPU, DLX_ERR_DEVICE_MISMATCH, "%s: the cpu backend allocates cpu memory, not "
              "device type %d", fn, (int)device.device_type);
  DLX_FAIL_IF(device.device_id != 0, DLX_ERR_INVALID_DEVICE, "%s: cpu device id %d (must be 0)", fn,
              (int)device.device_id);
  /* sizes are whole cache lines (64 bytes: a cache line, and any vector load), plus the header */
  DLX_FAIL_IF(bytes > (uint64_t)PTRDIFF_MAX - 64, DLX_ERR_OUT_OF_MEMORY, "%s: %llu bytes cannot be allocated", fn,
              (unsigned long long)bytes);
  const uint64_t size = bytes == 0 ? 64 : (bytes + 63u) & ~(uint64_t)63u;
  if (size < LARGE_MIN) {
    block *b = aligned_alloc(64, (size_t)(size + HEAD));
    DLX_FAIL_IF(b == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %llu bytes", fn,
                (unsigned long long)bytes);
    b->magic = MAGIC_SMALL;
    b->usable = size;
    b->base = b;
    b->mapped = 0;
    if (zero) memset(block_data(b), 0, (size_t)size);
    *out = block_data(b);
    return DLX_OK;
  }
  const uint64_t usable = size_class(size);
  block *b = take(usable);
  if (b != NULL) {
    if (zero) memset(block_data(b), 0, (size_t)size);
  } else {
    b = map_block(usable);
    if (b == NULL) {
      /* the cache may be what fills memory: give it back and try once more */
      dlx__cpu_cache_empty();
      b = map_block(usable);
    }
    DLX_FAIL_IF(b == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: out of memory allocating %llu bytes", fn,
                (unsigned long long)bytes);
    /* fresh anonymous pages read as zero; aligned_alloc's do not */
    if (zero && b->mapped == 0) memset(block_data(b), 0, (size_t)size);
  }
  *out = block_data(b);
  return DLX_OK;
}

void dlx__cpu_free(DLDevice device, void *ptr) {
  (void)device;
  if (ptr == NULL) return;
  block *b = data_block(ptr);
  if (b->magic == MAGIC_SMALL) {
    free(b->base);
    return;
  }
  give(b);
}
