/* dlx_gemm: C = alpha * A @ B + beta * C for views with any strides, on the backend of C's memory.
 *
 * BLAS takes a matrix as (pointer, transpose flag, leading dimension). A rank-2 view maps onto that
 * without a copy when one of its strides is 1 and the other is at least the extent it steps over:
 * row-major (ld, 1) is NoTrans, column-major (1, ld) is Trans. Anything else (negative, zero or
 * interleaved strides) is first copied to a compact temporary in the backend's memory (dlx_copy): the
 * only allocations here, as dlx/ops.h documents. A column-major C is computed as C^T = B^T @ A^T with no
 * copy; a C that BLAS cannot address, or that shares memory with A or B, goes through a temporary too.
 * All of this is backend-neutral; the backend's gemm entry only runs the BLAS call. */
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include "backends/backend.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

/* ---- argument checks ------------------------------------------------------------------------------ */

/* The dtypes some backend multiplies: float16 and bfloat16 only the CUDA backend (cuBLAS, accumulating in
 * float32); the CPU backend refuses them itself, naming the dtype. */
static bool is_gemm_dtype(DLDataType dt) {
  return dlx_dtype_equal(dt, DLX_DTYPE_FLOAT32) || dlx_dtype_equal(dt, DLX_DTYPE_FLOAT64) ||
         dlx_dtype_equal(dt, DLX_DTYPE_COMPLEX64) || dlx_dtype_equal(dt, DLX_DTYPE_COMPLEX128) ||
         dlx_dtype_equal(dt, DLX_DTYPE_FLOAT16) || dlx_dtype_equal(dt, DLX_DTYPE_BFLOAT16);
}

static dlx_status check_operand(const dlx_view *v, const char *name) {
  DLX_FAIL_IF(v->ndim != 2, DLX_ERR_RANK, "dlx_gemm: %s has ndim %d, expected 2", name, v->ndim);
  return DLX_OK;
}

/* The backend all three operands share, and its home device. */
static dlx_status check_devices(const dlx_view *const *v, const dlx__compute_ops **be, DLDevice *home) {
  static const char *const names[3] = {"A", "B", "C"};
  const dlx__compute_ops *b[3];
  DLDevice h[3];
  for (int i = 0; i < 3; ++i) DLX_FORWARD(dlx__backend_compute(v[i]->device, "dlx_gemm", names[i], &b[i], &h[i]));
  for (int i = 0; i < 2; ++i) {
    if (b[i] != b[2] || h[i].device_type != h[2].device_type || h[i].device_id != h[2].device_id) {
      char x[DLX_DEVICE_TEXT_CAP], y[DLX_DEVICE_TEXT_CAP];
      return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "dlx_gemm: %s is on %s but C is on %s: gemm runs on one device",
                           names[i], dlx__device_text(x, sizeof x, v[i]->device),
                           dlx__device_text(y, sizeof y, v[2]->device));
    }
  }
  *be = b[2];
  *home = h[2];
  return DLX_OK;
}

static dlx_status check_args(const dlx_view *a, const dlx_view *b, const dlx_view *c, const dlx__compute_ops **be,
                             DLDevice *home) {
  DLX_FORWARD(check_operand(a, "A"));
  DLX_FORWARD(check_operand(b, "B"));
  DLX_FORWARD(check_operand(c, "C"));
  const dlx_view *const v[3] = {a, b, c};
  DLX_FORWARD(check_devices(v, be, home));
  char x[DLX_DTYPE_TEXT_CAP], y[DLX_DTYPE_TEXT_CAP];
  DLX_FAIL_IF(!dlx_dtype_equal(a->dtype, b->dtype), DLX_ERR_DTYPE_MISMATCH, "dlx_gemm: dtypes differ: A is %s, B is %s",
              dlx__dtype_text(x, sizeof x, a->dtype), dlx__dtype_text(y, sizeof y, b->dtype));
  DLX_FAIL_IF(!dlx_dtype_equal(a->dtype, c->dtype), DLX_ERR_DTYPE_MISMATCH, "dlx_gemm: dtypes differ: A is %s, C is %s",
              dlx__dtype_text(x, sizeof x, a->dtype), dlx__dtype_text(y, sizeof y, c->dtype));
  DLX_FAIL_IF(!is_gemm_dtype(a->dtype), DLX_ERR_UNSUPPORTED,
              "dlx_gemm: dtype %s is not supported (float32, float64, complex64, complex128; float16 and bfloat16 "
              "on CUDA)",
              dlx__dtype_text(x, sizeof x, a->dtype));
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

/* The call's scratch memory: compact row-major copies, freed at the end. */
typedef struct gemm_temps {
  const dlx__compute_ops *be;
  DLDevice home;
  void *ptr[3];
  int n;
} gemm_temps;

/* A compact row-major view of v's shape in new backend memory, filled from v when fill is set. */
static dlx_status temp_copy(gemm_temps *t, const dlx_view *v, const char *name, bool fill, dlx_view *out) {
  size_t item = dlx_dtype_itemsize(v->dtype);
  int64_t n, bytes;
  DLX_FAIL_IF(__builtin_mul_overflow(v->shape[0], v->shape[1], &n) || __builtin_mul_overflow(n, (int64_t)item, &bytes),
              DLX_ERR_OVERFLOW, "dlx_gemm: the size of a temporary copy of %s overflows", name);
  void *p = NULL;
  DLX_FORWARD(dlx__scratch_alloc(t->be, t->home, (uint64_t)bytes, &p, "dlx_gemm"));
  t->ptr[t->n++] = p;
  DLX_FORWARD(dlx_view_init(out, p, v->dtype, t->home, 2, v->shape, NULL));
  if (fill) DLX_FORWARD(dlx_copy(out, v));
  return DLX_OK;
}

/* An input as BLAS sees it: its own memory, or a compact copy. */
typedef struct operand {
  const void *data;
  bool trans;
  int ld;
} operand;

static dlx_status prepare_input(gemm_temps *t, const dlx_view *v, const char *name, operand *op) {
  op->data = v->data;
  if (blas_layout(v->shape[0], v->shape[1], v->strides[0], v->strides[1], &op->trans, &op->ld)) return DLX_OK;
  dlx_view tmp;
  DLX_FORWARD(temp_copy(t, v, name, true, &tmp));
  op->data = tmp.data;
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

static dlx_status run_gemm(gemm_temps *t, const double alpha[2], const dlx_view *a, const dlx_view *b,
                           const double beta[2], const dlx_view *c) {
  const int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
  const bool complex_dt = a->dtype.code == DLX_CODE_COMPLEX;
  const bool beta_zero = beta[0] == 0.0 && (!complex_dt || beta[1] == 0.0);
  static const double dummy[2];
  operand A = {dummy, false, 1}, B = {dummy, false, (int)n};
  /* k == 0: C = beta * C; BLAS never reads A or B then, so they need no layout (and no copy) */
  if (k > 0) {
    DLX_FORWARD(prepare_input(t, a, "A", &A));
    DLX_FORWARD(prepare_input(t, b, "B", &B));
  }
  bool ct = false;
  int ldc = 0;
  /* a copied input cannot overlap C any more; only the original memory BLAS reads matters */
  const bool shared = k > 0 && ((A.data == a->data && overlaps(c, a)) || (B.data == b->data && overlaps(c, b)));
  dlx_view ctemp;
  bool c_copied = false;
  if (shared || !blas_layout(m, n, c->strides[0], c->strides[1], &ct, &ldc)) {
    /* BLAS ignores C's input when beta is 0 (so NaN in C does not leak through); skip the copy in */
    DLX_FORWARD(temp_copy(t, c, "C", !beta_zero, &ctemp));
    c_copied = true;
    ct = false;
    ldc = (int)n;
  }
  dlx__gemm_call g;
  memset(&g, 0, sizeof g);
  g.dtype = a->dtype;
  g.device = t->home;
  g.k = (int)k;
  g.c = c_copied ? ctemp.data : c->data;
  g.ldc = ldc;
  memcpy(g.alpha, alpha, sizeof g.alpha);
  memcpy(g.beta, beta, sizeof g.beta);
  if (!ct) {
    g.ta = A.trans, g.tb = B.trans, g.m = (int)m, g.n = (int)n;
    g.a = A.data, g.lda = A.ld, g.b = B.data, g.ldb = B.ld;
  } else {
    /* column-major C: C^T = B^T @ A^T, each input's transpose flag flipped */
    g.ta = !B.trans, g.tb = !A.trans, g.m = (int)n, g.n = (int)m;
    g.a = B.data, g.lda = B.ld, g.b = A.data, g.ldb = A.ld;
  }
  DLX_FORWARD(t->be->gemm(&g));
  if (c_copied) DLX_FORWARD(dlx_copy(c, &ctemp));
  return DLX_OK;
}

dlx_status dlx_gemm(double alpha_re, double alpha_im, const dlx_view *a, const dlx_view *b, double beta_re,
                    double beta_im, const dlx_view *c) {
  DLX_CHECK_NULL(a);
  DLX_CHECK_NULL(b);
  DLX_CHECK_NULL(c);
  gemm_temps t;
  memset(&t, 0, sizeof t);
  DLX_FORWARD(check_args(a, b, c, &t.be, &t.home));
  const int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
  if (m == 0 || n == 0) return DLX_OK;
  DLX_FAIL_IF(m > INT_MAX || n > INT_MAX || k > INT_MAX, DLX_ERR_OVERFLOW,
              "dlx_gemm: extents m %" PRId64 ", n %" PRId64 ", k %" PRId64 " exceed BLAS's int (%d)", m, n, k, INT_MAX);
  const double alpha[2] = {alpha_re, alpha_im}, beta[2] = {beta_re, beta_im};
  const dlx_status st = run_gemm(&t, alpha, a, b, beta, c);
  for (int i = 0; i < t.n; ++i) dlx__scratch_free(t.be, t.home, t.ptr[i]);
  return st;
}
