/* dlx_gemm: C = alpha * A @ B + beta * C through CBLAS, for views with any strides.
 *
 * BLAS takes a matrix as (pointer, transpose flag, leading dimension). A rank-2 view maps onto that
 * without a copy when one of its strides is 1 and the other is at least the extent it steps over:
 * row-major (ld, 1) is NoTrans, column-major (1, ld) is Trans. Anything else (negative, zero or
 * interleaved strides) is first copied to a compact temporary: the only allocations here, as
 * dlx/ops.h documents. A column-major C is computed as C^T = B^T @ A^T with no copy; a C that BLAS
 * cannot address, or that shares memory with A or B, goes through a temporary too.
 *
 * Built without CBLAS (CMake DLX_WITH_BLAS=OFF or none found), dlx_gemm checks its arguments and then
 * returns DLX_ERR_UNSUPPORTED. */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

#ifdef DLX_HAVE_CBLAS
#include <stdatomic.h>

#include <cblas.h>

#include "backends/cpu/pool.h"
#endif

/* ---- argument checks (both builds) --------------------------------------------------------------- */

static const char *dtype_text(DLDataType dt, char *buf, size_t cap) {
  if (dlx_dtype_format(dt, buf, cap) != DLX_OK) snprintf(buf, cap, "(code %u, bits %u, lanes %u)", dt.code, dt.bits, dt.lanes);
  return buf;
}

static bool is_gemm_dtype(DLDataType dt) {
  return dlx_dtype_equal(dt, DLX_DTYPE_FLOAT32) || dlx_dtype_equal(dt, DLX_DTYPE_FLOAT64) ||
         dlx_dtype_equal(dt, DLX_DTYPE_COMPLEX64) || dlx_dtype_equal(dt, DLX_DTYPE_COMPLEX128);
}

static dlx_status check_operand(const dlx_view *v, const char *name) {
  DLX_FAIL_IF(v->ndim != 2, DLX_ERR_RANK, "dlx_gemm: %s has ndim %d, expected 2", name, v->ndim);
  DLX_FAIL_IF(!dlx_device_is_host_accessible(v->device), DLX_ERR_DEVICE_MISMATCH,
              "dlx_gemm: %s is on device type %d; gemm runs on host-accessible memory only", name,
              (int)v->device.device_type);
  return DLX_OK;
}

static dlx_status check_args(const dlx_view *a, const dlx_view *b, const dlx_view *c) {
  DLX_FORWARD(check_operand(a, "A"));
  DLX_FORWARD(check_operand(b, "B"));
  DLX_FORWARD(check_operand(c, "C"));
  char x[DLX_DTYPE_NAME_MAX + 32], y[DLX_DTYPE_NAME_MAX + 32];
  DLX_FAIL_IF(!dlx_dtype_equal(a->dtype, b->dtype), DLX_ERR_DTYPE_MISMATCH, "dlx_gemm: dtypes differ: A is %s, B is %s",
              dtype_text(a->dtype, x, sizeof x), dtype_text(b->dtype, y, sizeof y));
  DLX_FAIL_IF(!dlx_dtype_equal(a->dtype, c->dtype), DLX_ERR_DTYPE_MISMATCH, "dlx_gemm: dtypes differ: A is %s, C is %s",
              dtype_text(a->dtype, x, sizeof x), dtype_text(c->dtype, y, sizeof y));
  DLX_FAIL_IF(!is_gemm_dtype(a->dtype), DLX_ERR_UNSUPPORTED,
              "dlx_gemm: dtype %s is not supported (float32, float64, complex64, complex128)",
              dtype_text(a->dtype, x, sizeof x));
  DLX_FAIL_IF(a->shape[1] != b->shape[0] || c->shape[0] != a->shape[0] || c->shape[1] != b->shape[1],
              DLX_ERR_INVALID_ARGUMENT,
              "dlx_gemm: shapes do not match: A (%" PRId64 ",%" PRId64 ") @ B (%" PRId64 ",%" PRId64 ") -> C (%" PRId64
              ",%" PRId64 ")",
              a->shape[0], a->shape[1], b->shape[0], b->shape[1], c->shape[0], c->shape[1]);
  DLX_FAIL_IF(c->flags & DLX_VIEW_READ_ONLY, DLX_ERR_READ_ONLY, "dlx_gemm: C is read-only");
  for (int d = 0; d < 2; ++d)
    DLX_FAIL_IF(c->strides[d] == 0 && c->shape[d] > 1, DLX_ERR_INVALID_ARGUMENT,
                "dlx_gemm: C has stride 0 in dim %d of extent %" PRId64 " (an output cannot be broadcast)", d,
                c->shape[d]);
  return DLX_OK;
}

#ifndef DLX_HAVE_CBLAS

dlx_status dlx_gemm(double alpha_re, double alpha_im, const dlx_view *a, const dlx_view *b, double beta_re,
                    double beta_im, const dlx_view *c) {
  (void)alpha_re, (void)alpha_im, (void)beta_re, (void)beta_im;
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_CHECK_NULL(c);
  DLX_FORWARD(check_args(a, b, c));
  return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_gemm: dlx was built without CBLAS");
}

#else

/* ---- typed calls, one per dtype, picked from a table --------------------------------------------- */

typedef void (*gemm_fn)(bool ta, bool tb, int m, int n, int k, const double alpha[2], const void *a, int lda,
                        const void *b, int ldb, const double beta[2], void *c, int ldc);

#define TR(t) ((t) ? CblasTrans : CblasNoTrans)

static void gemm_f32(bool ta, bool tb, int m, int n, int k, const double alpha[2], const void *a, int lda,
                     const void *b, int ldb, const double beta[2], void *c, int ldc) {
  cblas_sgemm(CblasRowMajor, TR(ta), TR(tb), m, n, k, (float)alpha[0], a, lda, b, ldb, (float)beta[0], c, ldc);
}
static void gemm_f64(bool ta, bool tb, int m, int n, int k, const double alpha[2], const void *a, int lda,
                     const void *b, int ldb, const double beta[2], void *c, int ldc) {
  cblas_dgemm(CblasRowMajor, TR(ta), TR(tb), m, n, k, alpha[0], a, lda, b, ldb, beta[0], c, ldc);
}
static void gemm_c64(bool ta, bool tb, int m, int n, int k, const double alpha[2], const void *a, int lda,
                     const void *b, int ldb, const double beta[2], void *c, int ldc) {
  const float al[2] = {(float)alpha[0], (float)alpha[1]}, be[2] = {(float)beta[0], (float)beta[1]};
  cblas_cgemm(CblasRowMajor, TR(ta), TR(tb), m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
static void gemm_c128(bool ta, bool tb, int m, int n, int k, const double alpha[2], const void *a, int lda,
                      const void *b, int ldb, const double beta[2], void *c, int ldc) {
  cblas_zgemm(CblasRowMajor, TR(ta), TR(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
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
  return NULL; /* unreachable after check_args */
}

/* ---- layouts -------------------------------------------------------------------------------------- */

static int64_t at_least_1(int64_t x) { return x > 1 ? x : 1; }

/* How BLAS can read (rows, cols) with element strides (s0, s1) as a row-major operand: NoTrans with
 * ld = s0 when s1 is 1, Trans with ld = s1 when s0 is 1. The stride of an extent-1 dimension is never
 * used, so it counts as whatever works. False when neither fits (or ld does not fit BLAS's int). */
static bool blas_layout(int64_t rows, int64_t cols, int64_t s0, int64_t s1, bool *trans, int *ld) {
  if (cols <= 1 || s1 == 1) {
    int64_t l = rows <= 1 ? at_least_1(cols) : s0;
    if (l >= at_least_1(cols) && l <= INT_MAX) {
      *trans = false;
      *ld = (int)l;
      return true;
    }
  }
  if (rows <= 1 || s0 == 1) {
    int64_t l = cols <= 1 ? at_least_1(rows) : s1;
    if (l >= at_least_1(rows) && l <= INT_MAX) {
      *trans = true;
      *ld = (int)l;
      return true;
    }
  }
  return false;
}

/* dst[i, j] = src[i, j] for byte strides; the switch gives the compiler fixed-size copies. */
static void copy_2d(char *dst, int64_t d0, int64_t d1, const char *src, int64_t s0, int64_t s1, int64_t rows,
                    int64_t cols, size_t item) {
  for (int64_t i = 0; i < rows; ++i) {
    char *d = dst + i * d0;
    const char *s = src + i * s0;
    switch (item) {
      case 4:
        for (int64_t j = 0; j < cols; ++j) memcpy(d + j * d1, s + j * s1, 4);
        break;
      case 8:
        for (int64_t j = 0; j < cols; ++j) memcpy(d + j * d1, s + j * s1, 8);
        break;
      default:
        for (int64_t j = 0; j < cols; ++j) memcpy(d + j * d1, s + j * s1, 16);
        break;
    }
  }
}

/* A compact row-major copy of v (rows * cols elements), or DLX_ERR_OUT_OF_MEMORY. */
static dlx_status temp_copy(const dlx_view *v, const char *name, bool fill, void **out) {
  size_t item = dlx_dtype_itemsize(v->dtype);
  int64_t n, bytes;
  DLX_FAIL_IF(__builtin_mul_overflow(v->shape[0], v->shape[1], &n) || __builtin_mul_overflow(n, (int64_t)item, &bytes),
              DLX_ERR_OVERFLOW, "dlx_gemm: the size of a temporary copy of %s overflows", name);
  void *p = malloc(bytes ? (size_t)bytes : 1);
  DLX_FAIL_IF(p == NULL, DLX_ERR_OUT_OF_MEMORY, "dlx_gemm: cannot allocate %" PRId64 " bytes for a copy of %s", bytes,
              name);
  if (fill)
    copy_2d(p, v->shape[1] * (int64_t)item, (int64_t)item, v->data, v->strides[0] * (int64_t)item,
            v->strides[1] * (int64_t)item, v->shape[0], v->shape[1], item);
  *out = p;
  return DLX_OK;
}

/* An input as BLAS sees it: its own memory, or a compact copy (owned, freed by the caller). */
typedef struct operand {
  const void *data;
  void *temp;
  bool trans;
  int ld;
} operand;

static dlx_status prepare_input(const dlx_view *v, const char *name, operand *op) {
  op->temp = NULL;
  op->data = v->data;
  if (blas_layout(v->shape[0], v->shape[1], v->strides[0], v->strides[1], &op->trans, &op->ld)) return DLX_OK;
  DLX_FORWARD(temp_copy(v, name, true, &op->temp));
  op->data = op->temp;
  op->trans = false;
  op->ld = (int)at_least_1(v->shape[1]);
  return DLX_OK;
}

static bool overlaps(const dlx_view *c, const dlx_view *x) {
  dlx_overlap ov = DLX_OVERLAP_PARTIAL;
  /* a span that cannot even be computed is treated as overlapping: the copy is always correct */
  if (dlx_view_overlap(c, x, &ov) != DLX_OK) return true;
  return ov != DLX_OVERLAP_NONE;
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

dlx_status dlx_gemm(double alpha_re, double alpha_im, const dlx_view *a, const dlx_view *b, double beta_re,
                    double beta_im, const dlx_view *c) {
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_CHECK_NULL(c);
  DLX_FORWARD(check_args(a, b, c));
  const int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
  if (m == 0 || n == 0) return DLX_OK;
  DLX_FAIL_IF(m > INT_MAX || n > INT_MAX || k > INT_MAX, DLX_ERR_OVERFLOW,
              "dlx_gemm: extents m %" PRId64 ", n %" PRId64 ", k %" PRId64 " exceed BLAS's int (%d)", m, n, k, INT_MAX);
  const double alpha[2] = {alpha_re, alpha_im}, beta[2] = {beta_re, beta_im};
  const bool complex_dt = a->dtype.code == DLX_CODE_COMPLEX;
  const bool beta_zero = beta_re == 0.0 && (!complex_dt || beta_im == 0.0);
  gemm_fn fn = gemm_for(a->dtype);

  static const double dummy[2];
  operand A = {dummy, NULL, false, 1}, B = {dummy, NULL, false, (int)n};
  dlx_status st = DLX_OK;
  /* k == 0: C = beta * C; BLAS never reads A or B then, so they need no layout (and no copy) */
  if (k > 0) {
    st = prepare_input(a, "A", &A);
    if (st == DLX_OK) st = prepare_input(b, "B", &B);
  }
  if (st == DLX_OK) {
    bool ct = false;
    int ldc = 0;
    /* a copied input cannot overlap C any more; only the original memory BLAS reads matters */
    bool shared = k > 0 && ((A.temp == NULL && overlaps(c, a)) || (B.temp == NULL && overlaps(c, b)));
    void *ctemp = NULL;
    if (shared || !blas_layout(m, n, c->strides[0], c->strides[1], &ct, &ldc)) {
      /* BLAS ignores C's input when beta is 0 (so NaN in C does not leak through); skip the copy in */
      st = temp_copy(c, "C", !beta_zero, &ctemp);
      ct = false;
      ldc = (int)n;
    }
    if (st == DLX_OK) {
      void *cdata = ctemp ? ctemp : c->data;
      sync_blas_threads();
      if (!ct) {
        fn(A.trans, B.trans, (int)m, (int)n, (int)k, alpha, A.data, A.ld, B.data, B.ld, beta, cdata, ldc);
      } else {
        /* column-major C: C^T = B^T @ A^T, each input's transpose flag flipped */
        fn(!B.trans, !A.trans, (int)n, (int)m, (int)k, alpha, B.data, B.ld, A.data, A.ld, beta, cdata, ldc);
      }
      if (ctemp) {
        size_t item = dlx_dtype_itemsize(c->dtype);
        copy_2d(c->data, c->strides[0] * (int64_t)item, c->strides[1] * (int64_t)item, ctemp, n * (int64_t)item,
                (int64_t)item, m, n, item);
      }
    }
    free(ctemp);
  }
  free(A.temp);
  free(B.temp);
  return st;
}

#endif
