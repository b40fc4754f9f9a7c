/* The CPU backend's gemm: one CBLAS call per dtype, picked from a table. The compute layer
 * (src/compute/gemm.c) has already put every operand in a layout BLAS takes.
 *
 * Where CBLAS comes from:
 *  - DLX_HAVE_CBLAS: linked at build time (the C build: the system's OpenBLAS or another CBLAS);
 *  - DLX_CBLAS_RUNTIME: loaded with dlopen at the first gemm from DLX_BLAS_LIBRARY, an absolute path (the
 *    Python wheel: `import dlx` points it at the scipy-openblas32 package's library, a dependency of the
 *    wheel). The wheel then needs no library outside the manylinux policy, and one wheel serves machines
 *    with and without a system BLAS;
 *  - neither (CMake DLX_WITH_BLAS=OFF or none found): the entry reports that and does nothing. */
#include <stdbool.h>

#include "backends/cpu/cpu.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"

#if !defined(DLX_HAVE_CBLAS) && !defined(DLX_CBLAS_RUNTIME)

dlx_status dlx__cpu_gemm(const dlx__gemm_call *call) {
  (void)call;
  return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_gemm: dlx was built without CBLAS");
}

#else

#include <stdatomic.h>

#include "backends/cpu/pool.h"

#ifdef DLX_HAVE_CBLAS
#include <cblas.h>

#define ROW_MAJOR CblasRowMajor
#define TR(t) ((t) ? CblasTrans : CblasNoTrans)
#define CBLAS(f) cblas_##f
static dlx_status load_cblas(void) { return DLX_OK; }

#else /* DLX_CBLAS_RUNTIME */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CBLAS's enum values (the reference CBLAS's cblas.h: CblasRowMajor, CblasNoTrans, CblasTrans), restated,
 * and its gemm signatures with 32-bit ints (scipy-openblas32's). */
#define ROW_MAJOR 101
#define TR(t) ((t) ? 112 : 111)
typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const void *, int, const void *, int, float, void *, int);
typedef void (*dgemm_fn)(int, int, int, int, int, int, double, const void *, int, const void *, int, double, void *,
                         int);
typedef void (*cgemm_fn)(int, int, int, int, int, int, const void *, const void *, int, const void *, int,
                         const void *, void *, int);
static struct {
  sgemm_fn sgemm;
  dgemm_fn dgemm;
  cgemm_fn cgemm, zgemm;
  void (*set_threads)(int);
} blas;
#define CBLAS(f) blas.f
static pthread_once_t blas_once = PTHREAD_ONCE_INIT;
static char blas_why[512] = "";

/* name, or with the scipy_ prefix scipy-openblas32 gives its symbols (so that it can sit beside another
 * OpenBLAS in one process) */
static void *either(void *h, const char *name) {
  char prefixed[64];
  snprintf(prefixed, sizeof prefixed, "scipy_%s", name);
  void *p = dlsym(h, prefixed);
  return p != NULL ? p : dlsym(h, name);
}

static void load_blas_once(void) {
  const char *path = getenv("DLX_BLAS_LIBRARY");
  if (path == NULL || path[0] != '/') {
    snprintf(blas_why, sizeof blas_why, "DLX_BLAS_LIBRARY %s (it names the CBLAS library to load by absolute "
             "path; `import dlx` sets it to the scipy-openblas32 package's)", path == NULL ? "is not set" : "is not an absolute path");
    return;
  }
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (h == NULL) {
    const char *e = dlerror();
    snprintf(blas_why, sizeof blas_why, "DLX_BLAS_LIBRARY=%.200s could not be loaded: %.200s", path, e ? e : "?");
    return;
  }
  void *s = either(h, "cblas_sgemm"), *d = either(h, "cblas_dgemm"), *c = either(h, "cblas_cgemm"),
       *z = either(h, "cblas_zgemm"), *t = either(h, "openblas_set_num_threads");
  if (s == NULL || d == NULL || c == NULL || z == NULL) {
    snprintf(blas_why, sizeof blas_why, "DLX_BLAS_LIBRARY=%.300s has no cblas_sgemm/dgemm/cgemm/zgemm", path);
    return;
  }
  /* object pointers to function pointers, as POSIX dlsym requires */
  memcpy(&blas.sgemm, &s, sizeof s);
  memcpy(&blas.dgemm, &d, sizeof d);
  memcpy(&blas.cgemm, &c, sizeof c);
  memcpy(&blas.zgemm, &z, sizeof z);
  memcpy(&blas.set_threads, &t, sizeof t);
}

static dlx_status load_cblas(void) {
  pthread_once(&blas_once, load_blas_once);
  DLX_FAIL_IF(blas.sgemm == NULL, DLX_ERR_UNSUPPORTED, "dlx_gemm: no CBLAS: %s", blas_why);
  return DLX_OK;
}
#endif

typedef void (*gemm_fn)(const dlx__gemm_call *g);

static void gemm_f32(const dlx__gemm_call *g) {
  CBLAS(sgemm)(ROW_MAJOR, TR(g->ta), TR(g->tb), g->m, g->n, g->k, (float)g->alpha[0], g->a, g->lda, g->b, g->ldb,
               (float)g->beta[0], g->c, g->ldc);
}
static void gemm_f64(const dlx__gemm_call *g) {
  CBLAS(dgemm)(ROW_MAJOR, TR(g->ta), TR(g->tb), g->m, g->n, g->k, g->alpha[0], g->a, g->lda, g->b, g->ldb,
               g->beta[0], g->c, g->ldc);
}
static void gemm_c64(const dlx__gemm_call *g) {
  const float al[2] = {(float)g->alpha[0], (float)g->alpha[1]}, be[2] = {(float)g->beta[0], (float)g->beta[1]};
  CBLAS(cgemm)(ROW_MAJOR, TR(g->ta), TR(g->tb), g->m, g->n, g->k, al, g->a, g->lda, g->b, g->ldb, be, g->c, g->ldc);
}
static void gemm_c128(const dlx__gemm_call *g) {
  CBLAS(zgemm)(ROW_MAJOR, TR(g->ta), TR(g->tb), g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb, g->beta,
               g->c, g->ldc);
}

static gemm_fn gemm_for(DLDataType dt) {
  static const struct {
    DLDataType dt;
    gemm_fn fn;
  } table[] = {{DLX_DTYPE_FLOAT32, gemm_f32},
               {DLX_DTYPE_FLOAT64, gemm_f64},
               {DLX_DTYPE_COMPLEX64, gemm_c64},
               {DLX_DTYPE_COMPLEX128, gemm_c128}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
    if (dlx_dtype_equal(table[i].dt, dt)) return table[i].fn;
  return NULL;
}

/* OpenBLAS runs threads of its own: follow dlx's count (1 inside a dlx job), so that
 * dlx_set_num_threads(1) makes gemm serial too. openblas_set_num_threads is process-wide, so it is
 * called only when the count changes. Other CBLAS libraries keep their own setting. */
static void sync_blas_threads(void) {
  static atomic_int last;
#if defined(DLX_CBLAS_RUNTIME)
  if (blas.set_threads == NULL) return;
  const int want = dlx__pool_threads_available();
  if (atomic_exchange_explicit(&last, want, memory_order_relaxed) != want) blas.set_threads(want);
#elif defined(OPENBLAS_VERSION)
  const int want = dlx__pool_threads_available();
  if (atomic_exchange_explicit(&last, want, memory_order_relaxed) != want) openblas_set_num_threads(want);
#else
  (void)last;
#endif
}

dlx_status dlx__cpu_gemm(const dlx__gemm_call *call) {
  gemm_fn fn = gemm_for(call->dtype);
  if (fn == NULL) {
    char t[DLX_DTYPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_gemm: the cpu backend has no gemm for %s",
                         dlx__dtype_text(t, sizeof t, call->dtype));
  }
  DLX_FORWARD(load_cblas());
  sync_blas_threads();
  fn(call);
  return DLX_OK;
}

#endif
