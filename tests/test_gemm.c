/* Tests for src/core/gemm.c: every dtype and operand layout (row-major, column-major, padded, strided,
 * negative, broadcast, transposed views) against a naive triple loop, alpha/beta (complex too), C
 * aliasing an input, and every error. Values are multiples of 1/4 so that float32 sums are exact and
 * the comparison can be tight. A build without CBLAS must refuse with DLX_ERR_UNSUPPORTED. */
#include <complex.h>
#include <math.h> /* NAN */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "dlx/layout.h"
#include "dlx/cuda.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"
#include "runner.h"

static const DLDevice cpu = {kDLCPU, 0};
static const DLDataType dtypes[4] = {DLX_DTYPE_FLOAT32, DLX_DTYPE_FLOAT64, DLX_DTYPE_COMPLEX64, DLX_DTYPE_COMPLEX128};

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }
static double quarter(void) { return (double)rnd_in(-8, 8) / 4.0; }

static bool is_complex(DLDataType dt) { return dt.code == DLX_CODE_COMPLEX; }

/* A matrix in its own buffer, laid out by one of the layouts below. */
typedef struct mat {
  void *buf;
  dlx_view v;
} mat;

enum layout { ROW, COL, ROW_PADDED, COL_PADDED, STRIDED, NEG_ROWS, NEG_BOTH, BROADCAST_ROW, LAYOUT_COUNT };

static double complex get(const dlx_view *v, int64_t i, int64_t j) {
  char *p = (char *)v->data + (i * v->strides[0] + j * v->strides[1]) * (int64_t)dlx_dtype_itemsize(v->dtype);
  switch (v->dtype.bits) {
    case 32: return *(float *)p;
    case 64: return is_complex(v->dtype) ? (double complex)*(float complex *)p : *(double *)p;
    default: return *(double complex *)p;
  }
}

static void set(const dlx_view *v, int64_t i, int64_t j, double complex x) {
  char *p = (char *)v->data + (i * v->strides[0] + j * v->strides[1]) * (int64_t)dlx_dtype_itemsize(v->dtype);
  switch (v->dtype.bits) {
    case 32: *(float *)p = (float)creal(x); break;
    case 64:
      if (is_complex(v->dtype)) *(float complex *)p = (float complex)x;
      else *(double *)p = creal(x);
      break;
    default: *(double complex *)p = x; break;
  }
}

/* rows x cols in layout l; the buffer is big enough for any of them, data in its middle. */
static mat make_mat(DLDataType dt, int64_t rows, int64_t cols, int l) {
  mat m;
  size_t item = dlx_dtype_itemsize(dt);
  int64_t span = (rows + 3) * (cols + 3) * 4 + 16;
  m.buf = calloc((size_t)(2 * span), item);
  int64_t s0, s1, start = span; /* element index of element (0, 0) */
  int64_t r1 = rows > 1 ? rows : 1, c1 = cols > 1 ? cols : 1;
  switch (l) {
    case ROW: s0 = c1, s1 = 1; break;
    case COL: s0 = 1, s1 = r1; break;
    case ROW_PADDED: s0 = c1 + 3, s1 = 1; break;
    case COL_PADDED: s0 = 1, s1 = r1 + 2; break;
    case STRIDED: s0 = 2 * c1 + 1, s1 = 2; break;
    case NEG_ROWS: s0 = -c1, s1 = 1; break;
    case NEG_BOTH: s0 = -c1, s1 = -1; break;
    default: s0 = 0, s1 = 1; break; /* BROADCAST_ROW: every row is the same memory */
  }
  dlx_view_init(&m.v, (char *)m.buf + start * (int64_t)item, dt, cpu, 2, (int64_t[]){rows, cols},
                (int64_t[]){s0, s1});
  if (l == BROADCAST_ROW) {
    for (int64_t j = 0; j < cols; ++j) {
      double complex x = quarter() + (is_complex(dt) ? quarter() * I : 0);
      set(&m.v, 0, j, x);
    }
  } else {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) set(&m.v, i, j, quarter() + (is_complex(dt) ? quarter() * I : 0));
  }
  return m;
}

/* Naive C = alpha A B + beta C, into ref (row-major double complex). */
static void reference(double complex alpha, const dlx_view *a, const dlx_view *b, double complex beta,
                      const dlx_view *c, double complex *ref) {
  int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double complex s = 0;
      for (int64_t p = 0; p < k; ++p) s += get(a, i, p) * get(b, p, j);
      ref[i * n + j] = alpha * s + (beta == 0 ? 0 : beta * get(c, i, j));
    }
}

/* |re| + |im|, spelled out so that the test needs no libm */
static double mag(double complex x) {
  double r = creal(x), i = cimag(x);
  return (r < 0 ? -r : r) + (i < 0 ? -i : i);
}

static bool close_to(double complex got, double complex want, DLDataType dt) {
  double tol = (dt.bits == 32 || (is_complex(dt) && dt.bits == 64)) ? 1e-5 : 1e-12;
  return mag(got - want) <= tol * (1.0 + mag(want));
}

static bool have_blas(void) {
  float a = 2, b = 3, c = 0;
  dlx_view va, vb, vc;
  dlx_view_init(&va, &a, DLX_DTYPE_FLOAT32, cpu, 2, (int64_t[]){1, 1}, NULL);
  dlx_view_init(&vb, &b, DLX_DTYPE_FLOAT32, cpu, 2, (int64_t[]){1, 1}, NULL);
  dlx_view_init(&vc, &c, DLX_DTYPE_FLOAT32, cpu, 2, (int64_t[]){1, 1}, NULL);
  return dlx_gemm(1, 0, &va, &vb, 0, 0, &vc) == DLX_OK && c == 6;
}

/* One case: returns false (after reporting) on a mismatch. */
static bool run_case(DLDataType dt, int64_t m, int64_t n, int64_t k, int la, int lb, int lc, double complex alpha,
                     double complex beta, bool nan_c) {
  mat A = make_mat(dt, m, k, la), B = make_mat(dt, k, n, lb), C = make_mat(dt, m, n, lc);
  if (nan_c)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) set(&C.v, i, j, NAN);
  double complex *ref = malloc((size_t)(m * n + 1) * sizeof *ref);
  reference(alpha, &A.v, &B.v, beta, &C.v, ref);
  dlx_status st = dlx_gemm(creal(alpha), cimag(alpha), &A.v, &B.v, creal(beta), cimag(beta), &C.v);
  bool ok = st == DLX_OK;
  for (int64_t i = 0; ok && i < m; ++i)
    for (int64_t j = 0; ok && j < n; ++j) ok = close_to(get(&C.v, i, j), ref[i * n + j], dt);
  if (!ok) {
    char name[DLX_DTYPE_NAME_MAX];
    dlx_dtype_format(dt, name, sizeof name);
    fprintf(stderr, "  %s m %lld n %lld k %lld layouts A %d B %d C %d alpha %g%+gi beta %g%+gi: %s %s\n", name,
            (long long)m, (long long)n, (long long)k, la, lb, lc, creal(alpha), cimag(alpha), creal(beta),
            cimag(beta), dlx_status_name(st), dlx_last_error());
  }
  free(ref);
  free(A.buf);
  free(B.buf);
  free(C.buf);
  return ok;
}

/* Every dtype, every pair of input layouts, every writable C layout, small and odd shapes. */
static void test_layouts(void) {
  if (!have_blas()) return;
  for (int d = 0; d < 4; ++d)
    for (int la = 0; la < LAYOUT_COUNT; ++la)
      for (int lb = 0; lb < LAYOUT_COUNT; ++lb)
        for (int lc = 0; lc < BROADCAST_ROW; ++lc) {
          int64_t m = rnd_in(1, 6), n = rnd_in(1, 6), k = rnd_in(1, 6);
          double complex alpha = quarter() + (is_complex(dtypes[d]) ? quarter() * I : 0);
          double complex beta = quarter() + (is_complex(dtypes[d]) ? quarter() * I : 0);
          CHECK(run_case(dtypes[d], m, n, k, la, lb, lc, alpha, beta, false));
        }
}

/* Extents 0 and 1 (whose strides BLAS must not see), and a few larger sizes. */
static void test_shapes(void) {
  if (!have_blas()) return;
  static const int64_t sizes[][3] = {{0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {1, 5, 1}, {5, 1, 3}, {1, 1, 7},
                                     {7, 1, 1}, {33, 17, 65}, {64, 64, 64}, {2, 100, 3}};
  for (int d = 0; d < 4; ++d)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
      for (int l = 0; l < 4; ++l) {
        CHECK(run_case(dtypes[d], sizes[s][0], sizes[s][1], sizes[s][2], l, (l + 1) % 4, (l + 2) % 4, 0.5, 1.25,
                       false));
        CHECK(run_case(dtypes[d], sizes[s][0], sizes[s][1], sizes[s][2], STRIDED, NEG_BOTH, COL, -1, 0, false));
      }
}

/* alpha and beta: zero, one, negative, complex; beta 0 ignores NaN in C, as BLAS promises. */
static void test_alpha_beta(void) {
  if (!have_blas()) return;
  for (int d = 0; d < 4; ++d) {
    bool cx = is_complex(dtypes[d]);
    CHECK(run_case(dtypes[d], 4, 5, 3, ROW, ROW, ROW, 1, 0, true));
    CHECK(run_case(dtypes[d], 4, 5, 3, STRIDED, COL, NEG_ROWS, 2, 0, true)); /* through a temporary */
    CHECK(run_case(dtypes[d], 4, 5, 3, ROW, COL, COL, 0, 1, false));
    CHECK(run_case(dtypes[d], 4, 5, 3, ROW, COL, ROW, -1.5, -0.5, false));
    CHECK(run_case(dtypes[d], 4, 5, 0, ROW, ROW, ROW, 1, 2, false)); /* k == 0: C = beta C */
    CHECK(run_case(dtypes[d], 4, 5, 0, ROW, ROW, STRIDED, 1, 0, true));
    if (cx) {
      CHECK(run_case(dtypes[d], 3, 4, 5, ROW, ROW, ROW, 0.5 + 1.5 * I, -2 + 0.25 * I, false));
      CHECK(run_case(dtypes[d], 3, 4, 5, COL, STRIDED, COL_PADDED, I, I, false));
    }
  }
}

/* Views made by dlx's own view ops: a transposed operand, a slice with a step, a reversed one. */
static void test_views(void) {
  if (!have_blas()) return;
  for (int d = 0; d < 4; ++d) {
    mat A = make_mat(dtypes[d], 6, 8, ROW), B = make_mat(dtypes[d], 6, 5, ROW), C = make_mat(dtypes[d], 4, 5, ROW);
    dlx_view at, as, bs;
    /* (A[:, ::2])^T is 4 x 6; B[::-1] is 6 x 5 */
    dlx_slice every2 = {0, 0, 2, false, false}, rev = {0, 0, -1, false, false};
    CHECK_OK(dlx_view_slice(&A.v, 1, &every2, &as));
    CHECK_OK(dlx_view_transpose(&as, &at));
    CHECK_OK(dlx_view_slice(&B.v, 0, &rev, &bs));
    double complex ref[20];
    reference(1, &at, &bs, 0, &C.v, ref);
    CHECK_OK(dlx_gemm(1, 0, &at, &bs, 0, 0, &C.v));
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 5; ++j) CHECK(close_to(get(&C.v, i, j), ref[i * 5 + j], dtypes[d]));
    free(A.buf);
    free(B.buf);
    free(C.buf);
  }
}

/* C sharing memory with A or B: the result is what it would be with a separate C. */
static void test_aliasing(void) {
  if (!have_blas()) return;
  for (int d = 0; d < 4; ++d) {
    DLDataType dt = dtypes[d];
    mat A = make_mat(dt, 4, 4, ROW), B = make_mat(dt, 4, 4, COL);
    double complex ref[16];
    /* C is A itself: A = 2 A B + 0.5 A */
    reference(2, &A.v, &B.v, 0.5, &A.v, ref);
    CHECK_OK(dlx_gemm(2, 0, &A.v, &B.v, 0.5, 0, &A.v));
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) CHECK(close_to(get(&A.v, i, j), ref[i * 4 + j], dt));
    /* C is B transposed (column-major C over B's memory) */
    dlx_view bt;
    CHECK_OK(dlx_view_transpose(&B.v, &bt));
    reference(1, &A.v, &B.v, 1, &bt, ref);
    CHECK_OK(dlx_gemm(1, 0, &A.v, &B.v, 1, 0, &bt));
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) CHECK(close_to(get(&bt, i, j), ref[i * 4 + j], dt));
    /* A == B (reading the same memory twice is fine) */
    mat C = make_mat(dt, 4, 4, ROW);
    reference(1, &A.v, &A.v, 0, &C.v, ref);
    CHECK_OK(dlx_gemm(1, 0, &A.v, &A.v, 0, 0, &C.v));
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) CHECK(close_to(get(&C.v, i, j), ref[i * 4 + j], dt));
    free(A.buf);
    free(B.buf);
    free(C.buf);
  }
}

static void test_errors(void) {
  float buf[64] = {0};
  double dbuf[64] = {0};
  int32_t ibuf[64] = {0};
  dlx_view a, b, c, a3, d, i32, i32b, i32c, ro, bc, gpu;
  dlx_view_init(&a, buf, DLX_DTYPE_FLOAT32, cpu, 2, (int64_t[]){2, 3}, NULL);
  dlx_view_init(&b, buf, DLX_DTYPE_FLOAT32, cpu, 2, (int64_t[]){3, 4}, NULL);
  dlx_view_init(&c, buf + 32, DLX_DTYPE_FLOAT32, cpu, 2, (int64_t[]){2, 4}, NULL);
  dlx_view_init(&a3, buf, DLX_DTYPE_FLOAT32, cpu, 3, (int64_t[]){2, 3, 1}, NULL);
  dlx_view_init(&d, dbuf, DLX_DTYPE_FLOAT64, cpu, 2, (int64_t[]){3, 4}, NULL);
  dlx_view_init(&i32, ibuf, DLX_DTYPE_INT32, cpu, 2, (int64_t[]){2, 3}, NULL);
  dlx_view_init(&i32b, ibuf, DLX_DTYPE_INT32, cpu, 2, (int64_t[]){3, 4}, NULL);
  dlx_view_init(&i32c, ibuf + 32, DLX_DTYPE_INT32, cpu, 2, (int64_t[]){2, 4}, NULL);
  ro = c;
  ro.flags = DLX_VIEW_READ_ONLY;
  dlx_view_init(&bc, buf + 32, DLX_DTYPE_FLOAT32, cpu, 2, (int64_t[]){2, 4}, (int64_t[]){0, 1});
  gpu = b;
  gpu.device.device_type = kDLCUDA;
  CHECK_FAIL(dlx_gemm(1, 0, NULL, &b, 0, 0, &c), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_gemm(1, 0, &a, NULL, 0, 0, &c), DLX_ERR_NULL_ARGUMENT, "'b'");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &b, 0, 0, NULL), DLX_ERR_NULL_ARGUMENT, "'c'");
  CHECK_FAIL(dlx_gemm(1, 0, &a3, &b, 0, 0, &c), DLX_ERR_RANK, "A has ndim 3, expected 2");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &a3, 0, 0, &c), DLX_ERR_RANK, "B has ndim 3");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &b, 0, 0, &a3), DLX_ERR_RANK, "C has ndim 3");
  if (!dlx_cuda_built())
    CHECK_FAIL(dlx_gemm(1, 0, &a, &gpu, 0, 0, &c), DLX_ERR_DEVICE_MISMATCH,
               "B is on cuda:0, which needs a build with CUDA (DLX_WITH_CUDA=ON)");
  else
    CHECK_FAIL(dlx_gemm(1, 0, &a, &gpu, 0, 0, &c), DLX_ERR_DEVICE_MISMATCH, "B is on cuda:0 but C is on cpu:0");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &d, 0, 0, &c), DLX_ERR_DTYPE_MISMATCH, "A is float32, B is float64");
  CHECK_FAIL(dlx_gemm(1, 0, &i32, &i32b, 0, 0, &c), DLX_ERR_DTYPE_MISMATCH, "A is int32, C is float32");
  CHECK_FAIL(dlx_gemm(1, 0, &i32, &i32b, 0, 0, &i32c), DLX_ERR_UNSUPPORTED, "dtype int32 is not supported");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &a, 0, 0, &c), DLX_ERR_INVALID_ARGUMENT, "A (2,3) @ B (2,3) -> C (2,4)");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &b, 0, 0, &a), DLX_ERR_INVALID_ARGUMENT, "-> C (2,3)");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &b, 0, 0, &ro), DLX_ERR_READ_ONLY, "C is read-only");
  CHECK_FAIL(dlx_gemm(1, 0, &a, &b, 0, 0, &bc), DLX_ERR_INVALID_ARGUMENT, "stride 0 in dim 0 of extent 2");
  if (!have_blas()) {
    CHECK_FAIL(dlx_gemm(1, 0, &a, &b, 0, 0, &c), DLX_ERR_UNSUPPORTED, "dlx was built without CBLAS");
  }
}

static const dlx_test_case cases[] = {
    {"layouts", test_layouts}, {"shapes", test_shapes},     {"alpha_beta", test_alpha_beta},
    {"views", test_views},     {"aliasing", test_aliasing}, {"errors", test_errors},
};
DLX_TEST_MAIN(cases)
