/* Tests for the CPU backend's host memory (src/backends/cpu/alloc.c): small and large blocks, the cache of
 * freed large blocks (reuse by size class, zeroed reuse, its bounds and eviction order, the environment
 * variables, emptying it, many threads at once) and the public dlx_cpu_empty_cache. */
#include <pthread.h>
#include <stdbool.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/cpu/cpu.h"
#include "dlx/ops.h"
#include "dlx/tensor.h"

#define MiB ((uint64_t)1 << 20)
static const DLDevice cpu = {kDLCPU, 0};

static void *alloc(uint64_t bytes, bool zero) {
  void *p = NULL;
  CHECK_OK(dlx__cpu_memory.alloc(cpu, bytes, zero, &p, "test"));
  CHECK(p != NULL && ((uintptr_t)p & 63u) == 0);
  return p;
}
static void release(void *p) { dlx__cpu_memory.free(cpu, p); }

static dlx__cpu_cache_counts stats(void) {
  dlx__cpu_cache_counts s;
  dlx__cpu_cache_stats(&s);
  return s;
}

static bool all_zero(const unsigned char *p, uint64_t n) {
  for (uint64_t i = 0; i < n; ++i)
    if (p[i] != 0) return false;
  return true;
}

/* Restore the defaults' bounds (the tests change them). */
static void defaults(void) { dlx__cpu_cache_configure((uint64_t)256 << 20, 16); }

static void test_small_blocks(void) {
  const uint64_t sizes[] = {0, 1, 63, 64, 65, 4096, MiB - 65};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    unsigned char *p = alloc(sizes[i], true);
    CHECK(all_zero(p, sizes[i]));
    memset(p, 0xAB, (size_t)sizes[i]);
    release(p);
  }
  release(NULL); /* a no-op */
  /* small blocks never enter the cache */
  CHECK_EQ(stats().blocks, 0);
  /* errors: the device, and sizes no allocation can have */
  void *p = NULL;
  CHECK_FAIL(dlx__cpu_memory.alloc((DLDevice){kDLCUDA, 0}, 64, false, &p, "t"), DLX_ERR_DEVICE_MISMATCH,
             "allocates cpu memory");
  CHECK_FAIL(dlx__cpu_memory.alloc((DLDevice){kDLCPU, 1}, 64, false, &p, "t"), DLX_ERR_INVALID_DEVICE,
             "cpu device id 1");
  CHECK_FAIL(dlx__cpu_memory.alloc(cpu, UINT64_MAX, false, &p, "t"), DLX_ERR_OUT_OF_MEMORY, "cannot be allocated");
}

static void test_reuse_by_class(void) {
  defaults();
  const dlx__cpu_cache_counts s0 = stats();
  CHECK_EQ(s0.blocks, 0);
  unsigned char *a = alloc(3 * MiB, false);
  memset(a, 0x5A, 3 * MiB); /* every page touched */
  release(a);
  dlx__cpu_cache_counts s = stats();
  CHECK_EQ(s.blocks, 1);
  CHECK_EQ(s.bytes, 3 * MiB); /* a class: 2^k times 1, 1.25, 1.5 or 1.75 */
  /* another size of the same class takes it back */
  unsigned char *b = alloc(3 * MiB - 4096, false);
  CHECK(b == a);
  CHECK_EQ(stats().hits, s0.hits + 1);
  CHECK_EQ(stats().blocks, 0);
  CHECK_EQ(b[0], 0x5A); /* not cleared: zero was not asked for */
  release(b);
  /* zeroed reuse is zero */
  unsigned char *z = alloc(3 * MiB, true);
  CHECK(z == a);
  CHECK(all_zero(z, 3 * MiB));
  /* another class misses, and a fresh mapping is zero without a memset */
  unsigned char *c = alloc(5 * MiB, true);
  CHECK(c != z);
  CHECK(all_zero(c, 5 * MiB));
  CHECK_EQ(stats().misses, s0.misses + 2);
  release(z);
  release(c);
  CHECK_EQ(stats().blocks, 2);
  CHECK_OK(dlx_cpu_empty_cache());
  CHECK_EQ(stats().blocks, 0);
  CHECK_EQ(stats().bytes, 0);
  CHECK_OK(dlx_cpu_empty_cache()); /* an empty cache empties again */
}

/* Huge-page sized blocks (>= 4 MiB) and the class edges. */
static void test_large_sizes(void) {
  defaults();
  const uint64_t sizes[] = {MiB - 64, MiB, MiB + 1, 4 * MiB - 1, 4 * MiB, 4 * MiB + 1, 33 * MiB + 17};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    unsigned char *p = alloc(sizes[i], true);
    CHECK(all_zero(p, sizes[i]));
    p[0] = 1;
    p[sizes[i] - 1] = 2; /* the last byte is ours */
    release(p);
    unsigned char *q = alloc(sizes[i], true);
    CHECK(all_zero(q, sizes[i]));
    release(q);
  }
  CHECK_OK(dlx_cpu_empty_cache());
}

static void test_bounds(void) {
  /* at most two blocks: the least recently freed goes first */
  dlx__cpu_cache_configure((uint64_t)256 << 20, 2);
  void *a = alloc(2 * MiB, false), *b = alloc(2 * MiB, false), *c = alloc(2 * MiB, false);
  release(a);
  release(b);
  release(c); /* evicts a */
  CHECK_EQ(stats().blocks, 2);
  CHECK_EQ(stats().max_blocks, 2);
  void *x = alloc(2 * MiB, false), *y = alloc(2 * MiB, false);
  CHECK(x == c); /* the most recently freed first */
  CHECK(y == b);
  release(x);
  release(y);
  /* a byte bound: 5 MiB holds two 2 MiB blocks but not a third */
  dlx__cpu_cache_configure(5 * MiB, 16);
  CHECK_EQ(stats().blocks, 0); /* configuring empties */
  a = alloc(2 * MiB, false);
  b = alloc(2 * MiB, false);
  c = alloc(2 * MiB, false);
  release(a);
  release(b);
  release(c);
  CHECK_EQ(stats().blocks, 2);
  CHECK(stats().bytes <= 5 * MiB);
  /* a block larger than the whole bound is never kept */
  void *big = alloc(8 * MiB, false);
  release(big);
  CHECK(stats().bytes <= 5 * MiB);
  /* 0 disables the cache */
  dlx__cpu_cache_configure(0, 16);
  a = alloc(2 * MiB, false);
  release(a);
  CHECK_EQ(stats().blocks, 0);
  dlx__cpu_cache_configure((uint64_t)256 << 20, 0);
  a = alloc(2 * MiB, false);
  release(a);
  CHECK_EQ(stats().blocks, 0);
  defaults();
}

/* DLX_CPU_CACHE_BYTES / DLX_CPU_CACHE_BLOCKS, read at first use: the test_cpu_alloc_env entry of
 * tests/CMakeLists.txt sets them to 3M and 5 (and this case checks the defaults when unset). */
static void test_environment(void) {
  const char *bytes = getenv("DLX_CPU_CACHE_BYTES"), *blocks = getenv("DLX_CPU_CACHE_BLOCKS");
  if (bytes == NULL && blocks == NULL) return; /* covered by the other cases' defaults */
  const dlx__cpu_cache_counts s = stats();
  CHECK_EQ(s.max_bytes, 3 * MiB);
  CHECK_EQ(s.max_blocks, 5);
  void *a = alloc(4 * MiB, false); /* larger than 3 MiB: never cached */
  release(a);
  CHECK_EQ(stats().blocks, 0);
  a = alloc(2 * MiB, false);
  release(a);
  CHECK_EQ(stats().blocks, 1);
  CHECK_OK(dlx_cpu_empty_cache());
}

/* The first case run: no allocation has read the environment yet. */
static void test_defaults_first(void) {
  if (getenv("DLX_CPU_CACHE_BYTES") != NULL || getenv("DLX_CPU_CACHE_BLOCKS") != NULL) return;
  const dlx__cpu_cache_counts s = stats();
  CHECK_EQ(s.max_bytes, (uint64_t)256 << 20);
  CHECK_EQ(s.max_blocks, 16);
}

/* Tensors allocate through the cache: a released result is the next one's memory. */
static void test_tensors(void) {
  defaults();
  const int64_t shape[2] = {1024, 1024};
  dlx_tensor *t = NULL, *u = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 2, shape, DLX_DTYPE_FLOAT32, cpu));
  void *first = dlx_tensor_view(t)->data;
  CHECK_OK(dlx_tensor_binary(DLX_OP_ADD, &u, t, t));
  dlx_tensor_release(u);
  u = NULL;
  CHECK_EQ(stats().blocks, 1);
  CHECK_OK(dlx_tensor_binary(DLX_OP_ADD, &u, t, t));
  CHECK(dlx_tensor_view(u)->data != first);
  CHECK_EQ(stats().blocks, 0); /* the freed result came back */
  dlx_tensor_release(u);
  dlx_tensor_release(t);
  CHECK_EQ(stats().blocks, 2);
  CHECK_OK(dlx_cpu_empty_cache());
}

/* Many threads allocating, filling, checking and freeing large blocks at once. */
enum { THREADS = 4, ROUNDS = 40 };
static void *worker(void *arg) {
  const unsigned seed = (unsigned)(uintptr_t)arg;
  uintptr_t bad = 0;
  for (int r = 0; r < ROUNDS; ++r) {
    const uint64_t bytes = MiB * (1 + (seed + (unsigned)r) % 3) + 64 * (unsigned)r;
    void *p = NULL;
    if (dlx__cpu_memory.alloc(cpu, bytes, r % 2 == 0, &p, "worker") != DLX_OK) return (void *)1;
    unsigned char *c = p;
    if (r % 2 == 0 && (c[0] != 0 || c[bytes - 1] != 0)) bad = 1;
    memset(c, (int)(seed * 16 + (unsigned)r % 16), (size_t)bytes);
    for (uint64_t i = 0; i < bytes; i += 4096)
      if (c[i] != (unsigned char)(seed * 16 + (unsigned)r % 16)) bad = 1;
    dlx__cpu_memory.free(cpu, p);
  }
  return (void *)bad;
}
static void test_threads(void) {
  dlx__cpu_cache_configure(8 * MiB, 3); /* small bounds: eviction under contention */
  pthread_t th[THREADS];
  for (uintptr_t i = 0; i < THREADS; ++i) CHECK_EQ(pthread_create(&th[i], NULL, worker, (void *)i), 0);
  for (int i = 0; i < THREADS; ++i) {
    void *ret = NULL;
    pthread_join(th[i], &ret);
    CHECK(ret == NULL);
  }
  const dlx__cpu_cache_counts s = stats();
  CHECK(s.blocks <= 3 && s.bytes <= 8 * MiB);
  defaults();
}

static const dlx_test_case cases[] = {
    {"defaults_first", test_defaults_first},
    {"environment", test_environment},
    {"small_blocks", test_small_blocks},
    {"reuse_by_class", test_reuse_by_class},
    {"large_sizes", test_large_sizes},
    {"bounds", test_bounds},
    {"tensors", test_tensors},
    {"threads", test_threads},
};
DLX_TEST_MAIN(cases)
