/* The CPU backend's gemm: one CBLAS call per dtype, picked from a table. The compute layer
 * (src/compute/gemm.c) has already put every operand in a layout BLAS takes.
 *
 * Built without CBLAS (CMake DLX_WITH_BLAS=OFF or none found), the entry reports that and does nothing. */
#include <stdbool.h>

#include "backends/cpu/cpu.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"

#ifndef DLX_HAVE_CBLAS

dlx_status dlx__cpu_gemm(const dlx__gemm_call *call) {
  (void)call;
  return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_gemm: dlx was built without CBLAS");
}

#else

#include <stdatomic.h>

#include <cblas.h>

/* The scipy-openblas32 wheel (the Python build's BLAS when the system has none) prefixes its symbols with
 * scipy_ so that it can sit beside another OpenBLAS in one process. */
#ifdef DLX_CBLAS_SCIPY
#define cblas_sgemm scipy_cblas_sgemm
#define cblas_dgemm scipy_cblas_dgemm
#define cblas_cgemm scipy_cblas_cgemm
#define cblas_zgemm scipy_cblas_zgemm
#define openblas_set_num_threads scipy_openblas_set_num_threads
#endif

#include "backends/cpu/pool.h"

typedef void (*gemm_fn)(const dlx__gemm_call *g);

#define TR(t) ((t) ? CblasTrans : CblasNoTrans)

static void gemm_f32(const dlx__gemm_call *g) {
  cblas_sgemm(CblasRowMajor, TR(g->ta), TR(g->tb), g->m, g->n, g->k, (float)g->alpha[0], g->a, g->lda, g->b, g->ldb,
              (float)g->beta[0], g->c, g->ldc);
}
static void gemm_f64(const dlx__gemm_call *g) {
  cblas_dgemm(CblasRowMajor, TR(g->ta), TR(g->tb), g->m, g->n, g->k, g->alpha[0], g->a, g->lda, g->b, g->ldb,
              g->beta[0], g->c, g->ldc);
}
static void gemm_c64(const dlx__gemm_call *g) {
  const float al[2] = {(float)g->alpha[0], (float)g->alpha[1]}, be[2] = {(float)g->beta[0], (float)g->beta[1]};
  cblas_cgemm(CblasRowMajor, TR(g->ta), TR(g->tb), g->m, g->n, g->k, al, g->a, g->lda, g->b, g->ldb, be, g->c, g->ldc);
}
static void gemm_c128(const dlx__gemm_call *g) {
  cblas_zgemm(CblasRowMajor, TR(g->ta), TR(g->tb), g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb, g->beta,
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
#ifdef OPENBLAS_VERSION
  static atomic_int last;
  int want = dlx__pool_threads_available();
  if (atomic_exchange_explicit(&last, want, memory_order_relaxed) != want) openblas_set_num_threads(want);
#endif
}

dlx_status dlx__cpu_gemm(const dlx__gemm_call *call) {
  gemm_fn fn = gemm_for(call->dtype);
  if (fn == NULL) {
    char t[DLX_DTYPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_gemm: the cpu backend has no gemm for %s",
                         dlx__dtype_text(t, sizeof t, call->dtype));
  }
  sync_blas_threads();
  fn(call);
  return DLX_OK;
}

#endif
