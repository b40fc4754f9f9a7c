/* Tests for src/core/layout.c */
#include "runner.h"

#include "dlx/layout.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define I32(...) ((const int32_t[]){__VA_ARGS__})

static const DLDevice cpu = {kDLCPU, 0};

/* Views are filled by hand so that tests can hold layouts dlx_view_init would refuse (garbage strides,
 * NULL data). strides NULL = row-major. */
static dlx_view mkview(void *data, DLDataType dt, int32_t ndim, const int64_t *shape, const int64_t *strides) {
  dlx_view v;
  memset(&v, 0, sizeof v);
  v.data = data;
  v.dtype = dt;
  v.device = cpu;
  v.ndim = ndim;
  int64_t acc = 1;
  for (int32_t d = ndim - 1; d >= 0; --d) {
    v.shape[d] = shape[d];
    v.strides[d] = strides ? strides[d] : acc;
    acc *= shape[d] > 1 ? shape[d] : 1;
  }
  return v;
}

#define DLX_TEST_RNG_SEED 0x9e3779b97f4a7c15u
#include "rng.h"

static void check_order(int32_t ndim, const int32_t *got, const int32_t *want, int line) {
  for (int32_t i = 0; i < ndim; ++i) {
    if (got[i] != want[i]) {
      fprintf(stderr, "  line %d: order[%d] = %d, want %d\n", line, i, got[i], want[i]);
      ++dlx_test_failures_;
      return;
    }
  }
}
#define CHECK_ORDER(n, got, ...) check_order((n), (got), I32(__VA_ARGS__), __LINE__)

static void test_contiguity(void) {
  CHECK(dlx_layout_is_c_contiguous(0, NULL, NULL));
  CHECK(dlx_layout_is_f_contiguous(0, NULL, NULL));
  CHECK(dlx_layout_is_c_contiguous(2, I64(3, 4), I64(4, 1)));
  CHECK(!dlx_layout_is_f_contiguous(2, I64(3, 4), I64(4, 1)));
  CHECK(dlx_layout_is_f_contiguous(2, I64(3, 4), I64(1, 3)));
  CHECK(!dlx_layout_is_c_contiguous(2, I64(3, 4), I64(1, 3)));
  CHECK(dlx_layout_is_c_contiguous(2, I64(3, 4), NULL));
  CHECK(!dlx_layout_is_f_contiguous(2, I64(3, 4), NULL));
  /* row-major with at most one non-unit extent is column-major too */
  CHECK(dlx_layout_is_f_contiguous(3, I64(1, 5, 1), NULL));
  /* DLPack edge case 1: extent-1 dimensions carry any stride */
  CHECK(dlx_layout_is_c_contiguous(3, I64(3, 1, 4), I64(4, 99, 1)));
  CHECK(dlx_layout_is_c_contiguous(2, I64(1, 4), I64(1, 1)));
  CHECK(dlx_layout_is_f_contiguous(3, I64(3, 1, 4), I64(1, -7, 3)));
  CHECK(dlx_layout_is_c_contiguous(3, I64(1, 1, 1), I64(0, 0, 0)));
  /* DLPack edge case 2: empty tensors are contiguous whatever their strides */
  CHECK(dlx_layout_is_c_contiguous(2, I64(0, 4), I64(0, 0)));
  CHECK(dlx_layout_is_f_contiguous(2, I64(3, 0), I64(7, 7)));
  /* non-contiguous */
  CHECK(!dlx_layout_is_c_contiguous(2, I64(3, 4), I64(8, 1)));
  CHECK(!dlx_layout_is_c_contiguous(2, I64(3, 4), I64(4, 2)));
  CHECK(!dlx_layout_is_c_contiguous(2, I64(3, 4), I64(0, 1)));
  CHECK(!dlx_layout_is_c_contiguous(1, I64(3), I64(-1)));
  /* invalid arguments are not contiguous */
  CHECK(!dlx_layout_is_c_contiguous(-1, NULL, NULL));
  CHECK(!dlx_layout_is_c_contiguous(65, I64(1), NULL));
  CHECK(!dlx_layout_is_c_contiguous(1, NULL, NULL));
  CHECK(!dlx_layout_is_c_contiguous(2, I64(-1, 0), I64(1, 1)));
  /* strides that only match after the running product overflowed never match */
  CHECK(!dlx_layout_is_c_contiguous(3, I64(2, INT64_MAX / 2 + 1, 2), I64(0, 2, 1)));
  /* views */
  dlx_view v = mkview(NULL, DLX_DTYPE_FLOAT32, 2, I64(3, 4), NULL);
  CHECK(dlx_view_is_c_contiguous(&v));
  CHECK(!dlx_view_is_f_contiguous(&v));
}

static void test_compact_strides(void) {
  int64_t s[4];
  CHECK_OK(dlx_layout_compact_strides(3, I64(2, 3, 4), NULL, s));
  CHECK_EQ(s[0], 12);
  CHECK_EQ(s[1], 4);
  CHECK_EQ(s[2], 1);
  CHECK_OK(dlx_layout_compact_strides(3, I64(2, 3, 4), I32(2, 1, 0), s));
  CHECK_EQ(s[0], 1);
  CHECK_EQ(s[1], 2);
  CHECK_EQ(s[2], 6);
  /* CuTe's example: (5,3,2,4) with stride_order (3,2,0,1) is (3,1,15,30) */
  CHECK_OK(dlx_layout_compact_strides(4, I64(5, 3, 2, 4), I32(3, 2, 0, 1), s));
  CHECK_EQ(s[0], 3);
  CHECK_EQ(s[1], 1);
  CHECK_EQ(s[2], 15);
  CHECK_EQ(s[3], 30);
  /* extent 0 counts as 1, as in NumPy and PyTorch */
  CHECK_OK(dlx_layout_compact_strides(3, I64(2, 0, 3), NULL, s));
  CHECK_EQ(s[0], 3);
  CHECK_EQ(s[1], 3);
  CHECK_EQ(s[2], 1);
  CHECK_OK(dlx_layout_compact_strides(0, NULL, NULL, NULL));
  /* the product past the outermost dimension is not a stride: no overflow */
  CHECK_OK(dlx_layout_compact_strides(2, I64(INT64_MAX, 2), NULL, s));
  CHECK_EQ(s[0], 2);
  /* strides may alias shape */
  int64_t sh[3] = {2, 3, 4};
  CHECK_OK(dlx_layout_compact_strides(3, sh, NULL, sh));
  CHECK_EQ(sh[0], 12);
  CHECK_EQ(sh[2], 1);

  CHECK_FAIL(dlx_layout_compact_strides(-1, I64(1), NULL, s), DLX_ERR_RANK, "ndim -1");
  CHECK_FAIL(dlx_layout_compact_strides(65, I64(1), NULL, s), DLX_ERR_RANK, "ndim 65");
  CHECK_FAIL(dlx_layout_compact_strides(2, NULL, NULL, s), DLX_ERR_NULL_ARGUMENT, "shape is NULL");
  CHECK_FAIL(dlx_layout_compact_strides(2, I64(2, 2), NULL, NULL), DLX_ERR_NULL_ARGUMENT, "strides");
  CHECK_FAIL(dlx_layout_compact_strides(2, I64(2, -3), NULL, s), DLX_ERR_NEGATIVE_EXTENT,
             "extent -3 at dimension 1 of shape");
  CHECK_FAIL(dlx_layout_compact_strides(4, I64(1, 1, 1, 1), I32(0, 2, 2, 3), s), DLX_ERR_INVALID_ARGUMENT,
             "order is not a permutation of 0..3: 2 appears twice");
  CHECK_FAIL(dlx_layout_compact_strides(2, I64(1, 1), I32(0, 7), s), DLX_ERR_INVALID_ARGUMENT,
             "order is not a permutation of 0..1: 7 (at position 1) is out of range");
  CHECK_FAIL(dlx_layout_compact_strides(2, I64(1, 1), I32(-1, 0), s), DLX_ERR_INVALID_ARGUMENT, "-1");
  CHECK_FAIL(dlx_layout_compact_strides(3, I64(2, INT64_MAX / 2, 3), NULL, s), DLX_ERR_OVERFLOW,
             "overflow int64 outside dimension 1");
  /* a failure leaves the output alone */
  s[0] = -5;
  CHECK_FAIL(dlx_layout_compact_strides(2, I64(2, 3), I32(1, 1), s), DLX_ERR_INVALID_ARGUMENT, "1 appears twice");
  CHECK_EQ(s[0], -5);
}

static void test_stride_order(void) {
  int32_t o[5];
  CHECK_OK(dlx_layout_stride_order(2, I64(3, 4), I64(4, 1), o));
  CHECK_ORDER(2, o, 0, 1);
  CHECK_OK(dlx_layout_stride_order(2, I64(4, 2), I64(1, 4), o));
  CHECK_ORDER(2, o, 1, 0);
  CHECK_OK(dlx_layout_stride_order(4, I64(8, 4, 16, 2), I64(2, 16, 64, 1), o));
  CHECK_ORDER(4, o, 2, 1, 0, 3);
  /* |stride|: negative strides order like their magnitude, zero (broadcast) goes innermost */
  CHECK_OK(dlx_layout_stride_order(3, I64(3, 4, 5), I64(-1, 5, 0), o));
  CHECK_ORDER(3, o, 1, 0, 2);
  /* ties: larger extent first, then lower index */
  CHECK_OK(dlx_layout_stride_order(3, I64(1, 4, 1), I64(1, 1, 1), o));
  CHECK_ORDER(3, o, 1, 0, 2);
  CHECK_OK(dlx_layout_stride_order(5, I64(1, 4, 1, 32, 1), I64(1, 1, 1, 4, 1), o));
  CHECK_ORDER(5, o, 3, 1, 0, 2, 4);
  CHECK_OK(dlx_layout_stride_order(2, I64(2, 3), I64(INT64_MIN, INT64_MAX), o));
  CHECK_ORDER(2, o, 0, 1);
  /* NULL strides: row-major */
  CHECK_OK(dlx_layout_stride_order(3, I64(0, 1, 3), NULL, o));
  CHECK_ORDER(3, o, 0, 1, 2);
  CHECK_OK(dlx_layout_stride_order(0, NULL, NULL, NULL));
  CHECK_FAIL(dlx_layout_stride_order(70, I64(1), I64(1), o), DLX_ERR_RANK, "ndim 70");
  CHECK_FAIL(dlx_layout_stride_order(1, NULL, I64(1), o), DLX_ERR_NULL_ARGUMENT, "shape");
  CHECK_FAIL(dlx_layout_stride_order(1, I64(2), I64(1), NULL), DLX_ERR_NULL_ARGUMENT, "order");
  CHECK_FAIL(dlx_layout_stride_order(1, I64(-2), I64(1), o), DLX_ERR_NEGATIVE_EXTENT, "extent -2");
}

/* The stride order reproduces the strides of any compact layout, whatever the extents. */
static void test_stride_order_random(void) {
  for (int iter = 0; iter < 2000; ++iter) {
    int32_t n = (int32_t)rnd_in(1, 6);
    int64_t shape[6], st[6], st2[6];
    int32_t order[6], got[6];
    for (int32_t i = 0; i < n; ++i) {
      shape[i] = rnd_in(0, 4);
      order[i] = i;
    }
    for (int32_t i = n - 1; i > 0; --i) {
      int32_t j = (int32_t)rnd_in(0, i), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    CHECK_OK(dlx_layout_compact_strides(n, shape, order, st));
    CHECK_OK(dlx_layout_stride_order(n, shape, st, got));
    CHECK_OK(dlx_layout_compact_strides(n, shape, got, st2));
    bool empty = false;
    for (int32_t i = 0; i < n; ++i) empty |= shape[i] == 0;
    for (int32_t i = 0; i < n && !empty; ++i) CHECK_EQ(st2[i], st[i]);
    /* the identity order is row-major, the reversed one column-major */
    int32_t rev[6];
    for (int32_t i = 0; i < n; ++i) rev[i] = n - 1 - i;
    CHECK_OK(dlx_layout_compact_strides(n, shape, NULL, st));
    CHECK(dlx_layout_is_c_contiguous(n, shape, st));
    CHECK_OK(dlx_layout_compact_strides(n, shape, rev, st));
    CHECK(dlx_layout_is_f_contiguous(n, shape, st));
  }
}

static void test_leading_dim(void) {
  int32_t d = 99;
  CHECK_OK(dlx_layout_leading_dim(4, I64(2, 1, 4, 12), &d));
  CHECK_EQ(d, 1);
  CHECK_OK(dlx_layout_leading_dim(4, I64(2, 16, 64, 1), &d));
  CHECK_EQ(d, 3);
  CHECK_OK(dlx_layout_leading_dim(2, I64(8, 2), &d));
  CHECK_EQ(d, -1);
  CHECK_OK(dlx_layout_leading_dim(4, I64(5, 0, 0, 1), &d));
  CHECK_EQ(d, 3);
  CHECK_OK(dlx_layout_leading_dim(0, NULL, &d));
  CHECK_EQ(d, -1);
  CHECK_FAIL(dlx_layout_leading_dim(3, I64(1, 1, 1), &d), DLX_ERR_DEDUCTION,
             "Can't deduce the leading dimension from layout: dimensions 0 and 1 both have stride 1, please specify "
             "the leading_dim explicitly");
  CHECK_FAIL(dlx_layout_leading_dim(5, I64(1, 1, 1, 4, 1), &d), DLX_ERR_DEDUCTION, "dimensions 0 and 1");
  CHECK_FAIL(dlx_layout_leading_dim(1, I64(1), NULL), DLX_ERR_NULL_ARGUMENT, "dim");
  CHECK_FAIL(dlx_layout_leading_dim(2, NULL, &d), DLX_ERR_NULL_ARGUMENT, "strides is NULL with ndim 2");
  CHECK_FAIL(dlx_layout_leading_dim(-3, I64(1), &d), DLX_ERR_RANK, "ndim -3");
}

static void test_deduce_stride_order(void) {
  int32_t o[4];
  CHECK_OK(dlx_layout_deduce_stride_order(4, I64(2, 2, 3, 4), I64(2, 1, 4, 12), o));
  CHECK_ORDER(4, o, 3, 2, 0, 1);
  CHECK_OK(dlx_layout_deduce_stride_order(4, I64(8, 4, 16, 2), I64(2, 16, 64, 1), o));
  CHECK_ORDER(4, o, 2, 1, 0, 3);
  CHECK_OK(dlx_layout_deduce_stride_order(2, I64(4, 2), I64(1, 4), o));
  CHECK_ORDER(2, o, 1, 0);
  CHECK_OK(dlx_layout_deduce_stride_order(4, I64(5, 3, 2, 4), I64(3, 1, 15, 30), o));
  CHECK_ORDER(4, o, 3, 2, 0, 1);
  /* equal strides other than 1 are no ambiguity for CuTe: larger extent first */
  CHECK_OK(dlx_layout_deduce_stride_order(3, I64(1, 2, 3), I64(3, 3, 1), o));
  CHECK_ORDER(3, o, 1, 0, 2);
  CHECK_OK(dlx_layout_deduce_stride_order(0, NULL, NULL, NULL));
  CHECK_FAIL(dlx_layout_deduce_stride_order(3, I64(1, 5, 1), I64(1, 1, 1), o), DLX_ERR_DEDUCTION,
             "Can't deduce the stride order from layout: dimensions 0 and 1 both have stride 1");
  CHECK_FAIL(dlx_layout_deduce_stride_order(3, I64(1, 5, 1), I64(1, 1, 1), o), DLX_ERR_DEDUCTION,
             "specify the stride_order explicitly");
  CHECK_FAIL(dlx_layout_deduce_stride_order(65, I64(1), I64(1), o), DLX_ERR_RANK, "ndim 65");
  CHECK_FAIL(dlx_layout_deduce_stride_order(2, I64(2, 2), NULL, o), DLX_ERR_NULL_ARGUMENT, "strides is NULL");
  CHECK_FAIL(dlx_layout_deduce_stride_order(2, I64(2, 2), I64(2, 1), NULL), DLX_ERR_NULL_ARGUMENT, "order");
  CHECK_FAIL(dlx_layout_deduce_stride_order(2, NULL, I64(2, 1), o), DLX_ERR_NULL_ARGUMENT, "shape");
  CHECK_FAIL(dlx_layout_deduce_stride_order(2, I64(2, -1), I64(2, 1), o), DLX_ERR_NEGATIVE_EXTENT, "extent -1");
}

static void test_broadcast_shapes(void) {
  int32_t nd = -1;
  int64_t out[DLX_MAX_NDIM];
  {
    const int64_t *shapes[] = {I64(3, 1), I64(4), I64(2, 1, 1)};
    CHECK_OK(dlx_broadcast_shapes(3, I32(2, 1, 3), shapes, &nd, out));
    CHECK_EQ(nd, 3);
    CHECK_EQ(out[0], 2);
    CHECK_EQ(out[1], 3);
    CHECK_EQ(out[2], 4);
  }
  {
    const int64_t *shapes[] = {I64(0, 1), I64(1, 5), NULL};
    CHECK_OK(dlx_broadcast_shapes(3, I32(2, 2, 0), shapes, &nd, out));
    CHECK_EQ(nd, 2);
    CHECK_EQ(out[0], 0);
    CHECK_EQ(out[1], 5);
  }
  CHECK_OK(dlx_broadcast_shapes(0, NULL, NULL, &nd, out));
  CHECK_EQ(nd, 0);
  {
    /* out_shape may be an input */
    int64_t a[2] = {3, 1};
    const int64_t *shapes[] = {a, I64(4)};
    CHECK_OK(dlx_broadcast_shapes(2, I32(2, 1), shapes, &nd, a));
    CHECK_EQ(a[0], 3);
    CHECK_EQ(a[1], 4);
  }
  {
    const int64_t *shapes[] = {I64(3, 4), I64(5, 4)};
    CHECK_FAIL(dlx_broadcast_shapes(2, I32(2, 2), shapes, &nd, out), DLX_ERR_BROADCAST,
               "shapes (3,4) and (5,4) do not broadcast: extent 3 vs 5 at dimension 0");
  }
  {
    const int64_t *shapes[] = {I64(1, 3), I64(2, 1), I64(7)};
    CHECK_FAIL(dlx_broadcast_shapes(3, I32(2, 2, 1), shapes, &nd, out), DLX_ERR_BROADCAST,
               "shapes (1,3) and (7) do not broadcast: extent 3 vs 7 at dimension 1");
  }
  {
    const int64_t *shapes[] = {I64(0), I64(2)};
    CHECK_FAIL(dlx_broadcast_shapes(2, I32(1, 1), shapes, &nd, out), DLX_ERR_BROADCAST,
               "shapes (0) and (2) do not broadcast: extent 0 vs 2");
  }
  const int64_t *one[] = {I64(1)};
  const int64_t *nulls[] = {NULL};
  const int64_t *neg[] = {I64(2), I64(-1)};
  CHECK_FAIL(dlx_broadcast_shapes(-1, I32(1), one, &nd, out), DLX_ERR_INVALID_ARGUMENT, "n -1");
  CHECK_FAIL(dlx_broadcast_shapes(1, NULL, one, &nd, out), DLX_ERR_NULL_ARGUMENT, "ndims");
  CHECK_FAIL(dlx_broadcast_shapes(1, I32(1), NULL, &nd, out), DLX_ERR_NULL_ARGUMENT, "shapes");
  CHECK_FAIL(dlx_broadcast_shapes(1, I32(1), one, NULL, out), DLX_ERR_NULL_ARGUMENT, "out_ndim");
  CHECK_FAIL(dlx_broadcast_shapes(1, I32(1), one, &nd, NULL), DLX_ERR_NULL_ARGUMENT, "out_shape");
  CHECK_FAIL(dlx_broadcast_shapes(1, I32(1), nulls, &nd, out), DLX_ERR_NULL_ARGUMENT, "shapes[0] is NULL");
  CHECK_FAIL(dlx_broadcast_shapes(1, I32(65), one, &nd, out), DLX_ERR_RANK, "ndim 65 of shapes[0]");
  CHECK_FAIL(dlx_broadcast_shapes(2, I32(1, 1), neg, &nd, out), DLX_ERR_NEGATIVE_EXTENT,
             "extent -1 at dimension 0 of shapes[1]");
}

static void test_broadcast_strides(void) {
  int64_t st[4];
  CHECK_OK(dlx_broadcast_strides(2, I64(3, 1), I64(5, 7), 3, I64(2, 3, 4), st));
  CHECK_EQ(st[0], 0);
  CHECK_EQ(st[1], 5);
  CHECK_EQ(st[2], 0);
  /* an extent-1 dimension that stays 1 keeps its stride */
  CHECK_OK(dlx_broadcast_strides(2, I64(1, 4), I64(9, -1), 2, I64(1, 4), st));
  CHECK_EQ(st[0], 9);
  CHECK_EQ(st[1], -1);
  CHECK_OK(dlx_broadcast_strides(1, I64(1), I64(3), 1, I64(0), st));
  CHECK_EQ(st[0], 0);
  CHECK_OK(dlx_broadcast_strides(0, NULL, NULL, 0, NULL, NULL));
  /* out_strides may alias strides */
  int64_t s[3] = {4, 1, 0};
  CHECK_OK(dlx_broadcast_strides(2, I64(3, 4), s, 3, I64(2, 3, 4), s));
  CHECK_EQ(s[0], 0);
  CHECK_EQ(s[1], 4);
  CHECK_EQ(s[2], 1);

  CHECK_FAIL(dlx_broadcast_strides(2, I64(3, 4), I64(4, 1), 2, I64(5, 4), st), DLX_ERR_BROADCAST,
             "shape (3,4) does not broadcast to (5,4): extent 3 vs 5 at dimension 0");
  CHECK_FAIL(dlx_broadcast_strides(3, I64(2, 3, 4), I64(12, 4, 1), 2, I64(3, 4), st), DLX_ERR_BROADCAST,
             "shape (2,3,4) does not broadcast to (3,4): 3 dimensions vs 2");
  CHECK_FAIL(dlx_broadcast_strides(1, I64(3), NULL, 1, I64(3), st), DLX_ERR_NULL_ARGUMENT, "strides is NULL");
  CHECK_FAIL(dlx_broadcast_strides(1, I64(3), I64(1), 1, I64(3), NULL), DLX_ERR_NULL_ARGUMENT, "out_strides");
  CHECK_FAIL(dlx_broadcast_strides(1, NULL, I64(1), 1, I64(3), st), DLX_ERR_NULL_ARGUMENT, "shape is NULL with ndim 1");
  CHECK_FAIL(dlx_broadcast_strides(1, I64(3), I64(1), 1, NULL, st), DLX_ERR_NULL_ARGUMENT,
             "out_shape is NULL with ndim 1");
  CHECK_FAIL(dlx_broadcast_strides(99, I64(3), I64(1), 1, I64(3), st), DLX_ERR_RANK, "ndim 99");
  CHECK_FAIL(dlx_broadcast_strides(1, I64(3), I64(1), -2, I64(3), st), DLX_ERR_RANK, "ndim -2 of out_shape");
  CHECK_FAIL(dlx_broadcast_strides(1, I64(3), I64(1), 1, I64(-3), st), DLX_ERR_NEGATIVE_EXTENT, "extent -3");
}

static void test_view_broadcast_to(void) {
  float buf[12];
  dlx_view v = mkview(buf, DLX_DTYPE_FLOAT32, 2, I64(3, 1), I64(1, 1)), w;
  v.flags = DLX_VIEW_READ_ONLY;
  CHECK_OK(dlx_view_broadcast_to(&v, 3, I64(2, 3, 4), &w));
  CHECK(w.data == buf);
  CHECK(dlx_dtype_equal(w.dtype, DLX_DTYPE_FLOAT32));
  CHECK_EQ(w.flags, DLX_VIEW_READ_ONLY);
  CHECK_EQ(w.ndim, 3);
  CHECK_EQ(w.shape[0], 2);
  CHECK_EQ(w.shape[1], 3);
  CHECK_EQ(w.shape[2], 4);
  CHECK_EQ(w.strides[0], 0);
  CHECK_EQ(w.strides[1], 1);
  CHECK_EQ(w.strides[2], 0);
  /* in place, with the target shape inside the view itself */
  dlx_view u = mkview(buf, DLX_DTYPE_FLOAT32, 3, I64(2, 3, 4), NULL);
  CHECK_OK(dlx_view_broadcast_to(&v, u.ndim, u.shape, &u));
  CHECK_EQ(u.ndim, 3);
  CHECK_EQ(u.shape[0], 2);
  CHECK_EQ(u.shape[2], 4);
  CHECK_EQ(u.strides[0], 0);
  CHECK_EQ(u.strides[1], 1);
  CHECK_EQ(u.strides[2], 0);
  CHECK_EQ(u.flags, DLX_VIEW_READ_ONLY);
  CHECK_OK(dlx_view_broadcast_to(&v, 2, v.shape, &v));
  CHECK_EQ(v.shape[0], 3);
  CHECK_EQ(v.strides[0], 1);
  /* to a scalar shape: only from a scalar */
  dlx_view s = mkview(buf, DLX_DTYPE_FLOAT32, 0, NULL, NULL);
  CHECK_OK(dlx_view_broadcast_to(&s, 0, NULL, &w));
  CHECK_EQ(w.ndim, 0);
  CHECK_OK(dlx_view_broadcast_to(&s, 1, I64(5), &w));
  CHECK_EQ(w.strides[0], 0);

  CHECK_FAIL(dlx_view_broadcast_to(NULL, 1, I64(3), &w), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_broadcast_to(&v, 1, I64(3), NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_view_broadcast_to(&v, 2, I64(4, 5), &w), DLX_ERR_BROADCAST,
             "shape (3,1) does not broadcast to (4,5): extent 3 vs 4");
  CHECK_FAIL(dlx_view_broadcast_to(&v, 2, NULL, &w), DLX_ERR_NULL_ARGUMENT, "shape");
  dlx_view bad = v;
  bad.ndim = 65;
  CHECK_FAIL(dlx_view_broadcast_to(&bad, 2, I64(3, 5), &w), DLX_ERR_RANK, "ndim 65");
}

static void test_byte_span(void) {
  static char buf[4096];
  char *mid = buf + 2048;
  uintptr_t lo, hi, m = (uintptr_t)mid;
  dlx_view v = mkview(mid, DLX_DTYPE_FLOAT32, 2, I64(3, 4), NULL);
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, m);
  CHECK_EQ(hi, m + 48);
  /* negative and zero strides */
  v = mkview(mid, DLX_DTYPE_FLOAT64, 3, I64(3, 4, 5), I64(-4, 1, 0));
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, m - 64);
  CHECK_EQ(hi, m + 32);
  /* extent-1 strides are ignored */
  v = mkview(mid, DLX_DTYPE_INT16, 2, I64(1, 3), I64(-1000000, 2));
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, m);
  CHECK_EQ(hi, m + 10);
  /* scalar: one element */
  v = mkview(mid, DLX_DTYPE_COMPLEX128, 0, NULL, NULL);
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(hi - lo, 16);
  CHECK_EQ(lo, m);
  /* empty: lo == hi == data, whatever the strides or data */
  v = mkview(NULL, DLX_DTYPE_FLOAT32, 2, I64(0, 4), I64(INT64_MAX, INT64_MIN));
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, 0);
  CHECK_EQ(hi, 0);
  /* vector dtype: itemsize counts lanes */
  v = mkview(mid, DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 4), 1, I64(2), NULL);
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(hi - lo, 32);
  /* packed sub-byte: the exact bit span rounded out to bytes */
  v = mkview(mid, DLX_DTYPE_FLOAT4_E2M1FN, 1, I64(3), NULL); /* bits 0..12 */
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, m);
  CHECK_EQ(hi, m + 2);
  v = mkview(mid, DLX_DTYPE_FLOAT4_E2M1FN, 1, I64(4), NULL); /* bits 0..16 */
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(hi, m + 2);
  v = mkview(mid, DLX_DTYPE_FLOAT6_E2M3FN, 1, I64(4), I64(-1)); /* bits -18..6 */
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, m - 3);
  CHECK_EQ(hi, m + 1);
  v = mkview(mid, DLX_DTYPE_FLOAT6_E2M3FN, 1, I64(3), I64(-1)); /* bits -12..6 */
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, m - 2);
  /* padded sub-byte: one byte each */
  v.flags = DLX_VIEW_SUBBYTE_PADDED;
  CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
  CHECK_EQ(lo, m - 2);
  CHECK_EQ(hi, m + 1);

  CHECK_FAIL(dlx_view_byte_span(NULL, &lo, &hi), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_byte_span(&v, NULL, &hi), DLX_ERR_NULL_ARGUMENT, "'lo'");
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, NULL), DLX_ERR_NULL_ARGUMENT, "'hi'");
  v = mkview(mid, DLX_DTYPE_FLOAT32, 1, I64(3), NULL);
  v.ndim = -1;
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_RANK, "ndim -1");
  v = mkview(mid, DLX_DTYPE_FLOAT32, 2, I64(3, 3), NULL);
  v.shape[1] = -2;
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_NEGATIVE_EXTENT, "extent -2 at dimension 1 of v");
  v = mkview(mid, DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 0, 1), 1, I64(3), NULL);
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_INVALID_DTYPE, "bits 0");
  v = mkview(NULL, DLX_DTYPE_FLOAT32, 1, I64(3), NULL);
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_NULL_DATA, "data is NULL");
  v = mkview(mid, DLX_DTYPE_FLOAT32, 1, I64(3), I64(INT64_MAX));
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_OVERFLOW, "extent 3, stride 9223372036854775807");
  v = mkview(mid, DLX_DTYPE_FLOAT32, 2, I64(2, 2), I64(INT64_MAX / 2 + 1, INT64_MAX / 2 + 1));
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_OVERFLOW, "at dimension 1");
  v = mkview(mid, DLX_DTYPE_FLOAT32, 1, I64(2), I64(INT64_MAX / 2));
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_OVERFLOW, "itemsize 4");
  v = mkview(mid, DLX_DTYPE_FLOAT4_E2M1FN, 1, I64(2), I64(INT64_MAX / 2));
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_OVERFLOW, "bits 4");
  v = mkview((void *)(uintptr_t)64, DLX_DTYPE_FLOAT32, 1, I64(100), I64(-1));
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_OVERFLOW, "396 bytes below address 0x40");
  v = mkview((void *)(UINTPTR_MAX - 8), DLX_DTYPE_FLOAT32, 1, I64(3), NULL);
  CHECK_FAIL(dlx_view_byte_span(&v, &lo, &hi), DLX_ERR_OVERFLOW, "12 bytes past address");
}

/* byte_span bounds exactly the bytes of the elements, for random byte-sized layouts. */
static void test_byte_span_random(void) {
  static char buf[1 << 14];
  static const DLDataType dts[] = {DLX_DTYPE_INT8, DLX_DTYPE_FLOAT16, DLX_DTYPE_FLOAT32, DLX_DTYPE_COMPLEX128};
  for (int iter = 0; iter < 2000; ++iter) {
    int32_t n = (int32_t)rnd_in(0, 4);
    int64_t shape[4], st[4];
    int64_t count = 1;
    for (int32_t i = 0; i < n; ++i) {
      shape[i] = rnd_in(0, 9) == 0 ? 0 : rnd_in(1, 4);
      st[i] = rnd_in(-7, 7);
      count *= shape[i];
    }
    DLDataType dt = dts[rnd() % 4];
    int64_t is = (int64_t)dlx_dtype_itemsize(dt);
    char *mid = buf + sizeof buf / 2;
    dlx_view v = mkview(mid, dt, n, shape, st);
    uintptr_t lo, hi;
    CHECK_OK(dlx_view_byte_span(&v, &lo, &hi));
    if (count == 0) {
      CHECK(lo == (uintptr_t)mid && hi == lo);
      continue;
    }
    int64_t mn = INT64_MAX, mx = INT64_MIN, idx[4] = {0};
    for (int64_t e = 0; e < count; ++e) {
      int64_t off = 0, r = e;
      for (int32_t i = n - 1; i >= 0; --i) {
        idx[i] = r % shape[i];
        r /= shape[i];
        off += idx[i] * st[i] * is;
      }
      if (off < mn) mn = off;
      if (off + is > mx) mx = off + is;
    }
    CHECK_EQ((intptr_t)(lo - (uintptr_t)mid), mn);
    CHECK_EQ((intptr_t)(hi - (uintptr_t)mid), mx);
  }
}

static void test_overlap(void) {
  static float buf[64];
  dlx_overlap o = DLX_OVERLAP_SAME;
  dlx_view a = mkview(buf, DLX_DTYPE_FLOAT32, 2, I64(4, 4), NULL);
  dlx_view b = a;
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_SAME);
  /* extent-1 strides do not matter for SAME */
  dlx_view c = mkview(buf, DLX_DTYPE_FLOAT32, 2, I64(1, 16), I64(5, 1)),
           d = mkview(buf, DLX_DTYPE_FLOAT32, 2, I64(1, 16), I64(16, 1));
  CHECK_OK(dlx_view_overlap(&c, &d, &o));
  CHECK_EQ(o, DLX_OVERLAP_SAME);
  /* disjoint halves */
  b = mkview(buf + 16, DLX_DTYPE_FLOAT32, 2, I64(4, 4), NULL);
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_NONE);
  /* one byte in common */
  b = mkview((char *)buf + 63, DLX_DTYPE_INT8, 1, I64(1), NULL);
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_PARTIAL);
  /* the transpose of the same data */
  b = mkview(buf, DLX_DTYPE_FLOAT32, 2, I64(4, 4), I64(1, 4));
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_PARTIAL);
  /* interleaved views share no byte, but spans intersect: conservative PARTIAL */
  a = mkview(buf, DLX_DTYPE_FLOAT32, 1, I64(8), I64(2));
  b = mkview(buf + 1, DLX_DTYPE_FLOAT32, 1, I64(8), I64(2));
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_PARTIAL);
  /* same data and shape, other dtype size */
  a = mkview(buf, DLX_DTYPE_FLOAT32, 1, I64(8), NULL);
  b = mkview(buf, DLX_DTYPE_INT32, 1, I64(8), NULL);
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_SAME);
  b = mkview(buf, DLX_DTYPE_FLOAT64, 1, I64(8), NULL);
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_PARTIAL);
  /* other device */
  b = a;
  b.device.device_id = 1;
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_NONE);
  b.device = (DLDevice){kDLCUDA, 0};
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_NONE);
  /* empty */
  b = mkview(buf, DLX_DTYPE_FLOAT32, 1, I64(0), NULL);
  CHECK_OK(dlx_view_overlap(&a, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_NONE);
  CHECK_OK(dlx_view_overlap(&b, &b, &o));
  CHECK_EQ(o, DLX_OVERLAP_NONE);

  CHECK_FAIL(dlx_view_overlap(NULL, &b, &o), DLX_ERR_NULL_ARGUMENT, "'a'");
  CHECK_FAIL(dlx_view_overlap(&a, NULL, &o), DLX_ERR_NULL_ARGUMENT, "'b'");
  CHECK_FAIL(dlx_view_overlap(&a, &b, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  b = mkview(buf, DLX_DTYPE_FLOAT32, 1, I64(3), I64(INT64_MAX));
  CHECK_FAIL(dlx_view_overlap(&a, &b, &o), DLX_ERR_OVERFLOW, "dlx_view_byte_span");
  CHECK_FAIL(dlx_view_overlap(&b, &a, &o), DLX_ERR_OVERFLOW, "dlx_view_byte_span");
}

static const dlx_test_case cases[] = {
    {"contiguity", test_contiguity},
    {"compact_strides", test_compact_strides},
    {"stride_order", test_stride_order},
    {"stride_order_random", test_stride_order_random},
    {"leading_dim", test_leading_dim},
    {"deduce_stride_order", test_deduce_stride_order},
    {"broadcast_shapes", test_broadcast_shapes},
    {"broadcast_strides", test_broadcast_strides},
    {"view_broadcast_to", test_view_broadcast_to},
    {"byte_span", test_byte_span},
    {"byte_span_random", test_byte_span_random},
    {"overlap", test_overlap},
};
DLX_TEST_MAIN(cases)
