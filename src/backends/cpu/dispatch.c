/* The CPU backend's one dispatch point: which instruction-set level's loops run (target.h).
 *
 * Chosen once, on first use: the best level this CPU and its OS run (cpuid for the instructions, xgetbv
 * for the OS saving the vector registers), or a lower one named by DLX_CPU_FEATURES=baseline|avx2|avx512
 * (tests run every level that way; benchmarks compare them). A level the machine cannot run falls back to
 * the best it does run, silently (the library never prints; dlx__cpu_variant() says which runs). Every
 * level gives the same bits, so the choice only changes speed. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/loops.h"
#include "core/error_internal.h"

#if DLX_CPU_X86_LEVELS
#include <cpuid.h>
#endif

enum { LEVEL_BASELINE, LEVEL_AVX2, LEVEL_AVX512, LEVEL_COUNT };

static const dlx__cpu_kernel_set levels[LEVEL_COUNT] = {
    {"baseline", &dlx__cpu_native_baseline, &dlx__cpu_narrow_baseline, &dlx__cpu_reduce_baseline},
#if DLX_CPU_X86_LEVELS
    {"avx2", &dlx__cpu_native_avx2, &dlx__cpu_narrow_avx2, &dlx__cpu_reduce_avx2},
    {"avx512", &dlx__cpu_native_avx512, &dlx__cpu_narrow_avx512, &dlx__cpu_reduce_avx512},
#else
    {"avx2", NULL, NULL, NULL},
    {"avx512", NULL, NULL, NULL},
#endif
};

/* What each level needs, for messages. */
static const char *const needs[LEVEL_COUNT] = {
    "nothing", "AVX2, F16C and FMA (with the OS saving AVX state)",
    "AVX-512 F, BW, VL and DQ (with the OS saving AVX-512 state) on top of AVX2, F16C and FMA"};

#if DLX_CPU_X86_LEVELS
static uint64_t xgetbv0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

static int detect(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return LEVEL_BASELINE;
  const bool fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, f16c = (c >> 29) & 1;
  if (!(osxsave && avx && fma && f16c)) return LEVEL_BASELINE;
  const uint64_t xcr0 = xgetbv0();
  if ((xcr0 & 0x6) != 0x6) return LEVEL_BASELINE; /* XMM and YMM state */
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return LEVEL_BASELINE;
  if (!((b >> 5) & 1)) return LEVEL_BASELINE; /* AVX2 */
  const bool f = (b >> 16) & 1, dq = (b >> 17) & 1, bw = (b >> 30) & 1, vl = (b >> 31) & 1;
  /* opmask, upper halves of ZMM0-15, ZMM16-31 */
  if (f && dq && bw && vl && (xcr0 & 0xe0) == 0xe0) return LEVEL_AVX512;
  return LEVEL_AVX2;
}
#else
static int detect(void) { return LEVEL_BASELINE; }
#endif

/* cpuid is pure: racing first calls compute the same value. -1: not yet asked. */
static atomic_int machine = -1;
/* Tests: the most this process may use (dlx__cpu_cap_machine), to play a machine without AVX-512. */
static atomic_int cap = LEVEL_COUNT - 1;
static int machine_level(void) {
  int m = atomic_load_explicit(&machine, memory_order_relaxed);
  if (m < 0) {
    m = detect();
    atomic_store_explicit(&machine, m, memory_order_relaxed);
  }
  const int c = atomic_load_explicit(&cap, memory_order_relaxed);
  return m < c ? m : c;
}

static int level_of(const char *name) {
  for (int i = 0; i < LEVEL_COUNT; ++i)
    if (strcmp(name, levels[i].name) == 0) return i;
  return -1;
}

/* DLX_CPU_FEATURES, where it names a level this machine runs; the best level otherwise. */
static int default_level(void) {
  const int best = machine_level();
  const char *env = getenv("DLX_CPU_FEATURES");
  const int want = env != NULL ? level_of(env) : -1;
  return want >= 0 && want <= best ? want : best;
}

static _Atomic(const dlx__cpu_kernel_set *) chosen;

const dlx__cpu_kernel_set *dlx__cpu_kernels(void) {
  const dlx__cpu_kernel_set *k = atomic_load_explicit(&chosen, memory_order_acquire);
  if (k != NULL) return k;
  const dlx__cpu_kernel_set *mine = &levels[default_level()], *expected = NULL;
  /* the first to publish wins (a racing thread or dlx__cpu_force_variant); everyone runs what it set */
  if (atomic_compare_exchange_strong_explicit(&chosen, &expected, mine, memory_order_acq_rel, memory_order_acquire))
    return mine;
  return expected;
}

const char *dlx__cpu_variant(void) { return dlx__cpu_kernels()->name; }

bool dlx__cpu_variant_supported(const char *name) {
  const int l = name != NULL ? level_of(name) : -1;
  return l >= 0 && l <= machine_level();
}

dlx_status dlx__cpu_force_variant(const char *name) {
  if (name == NULL) {
    atomic_store_explicit(&chosen, &levels[default_level()], memory_order_release);
    return DLX_OK;
  }
  const int l = level_of(name);
  DLX_FAIL_IF(l < 0, DLX_ERR_INVALID_ARGUMENT, "cpu variant '%s' is not one of baseline, avx2, avx512", name);
  const int best = machine_level();
  DLX_FAIL_IF(l > best, DLX_ERR_UNSUPPORTED, "cpu variant %s needs %s, which this machine lacks (it runs %s)", name,
              needs[l], levels[best].name);
  atomic_store_explicit(&chosen, &levels[l], memory_order_release);
  return DLX_OK;
}

dlx_status dlx__cpu_cap_machine(const char *name) {
  int l = LEVEL_COUNT - 1;
  if (name != NULL) {
    l = level_of(name);
    DLX_FAIL_IF(l < 0, DLX_ERR_INVALID_ARGUMENT, "cpu variant '%s' is not one of baseline, avx2, avx512", name);
  }
  atomic_store_explicit(&cap, l, memory_order_relaxed);
  /* a running level past the cap gives way to the choice the capped machine makes */
  const dlx__cpu_kernel_set *k = atomic_load_explicit(&chosen, memory_order_acquire);
  if (k != NULL && level_of(k->name) > machine_level())
    atomic_store_explicit(&chosen, &levels[default_level()], memory_order_release);
  return DLX_OK;
}
