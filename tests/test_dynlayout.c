/* Tests for src/core/dynlayout.c. Every example of CuTe DSL's documentation (mark_layout_dynamic and
 * mark_compact_shape_dynamic) appears here with CuTe's printed layout or error message. */
#include "runner.h"

#include "dlx/dynlayout.h"

/* CuTe DSL's example tensors as PyTorch hands them over DLPack (extent-1 strides canonicalised to 1). */
static const int64_t A_SHAPE[] = {8, 4, 16, 2}, A_STRIDE[] = {2, 16, 64, 1};
static const int64_t B_SHAPE[] = {1, 4, 1, 32, 1}, B_STRIDE[] = {1, 1, 1, 4, 1};
static const int64_t C_SHAPE[] = {2, 2}, C_STRIDE[] = {8, 2};
static const int64_t D_SHAPE[] = {3, 4, 2, 5}, D_STRIDE[] = {5, 0, 0, 1};

static dlx_dynlayout make(int32_t ndim, const int64_t *shape, const int64_t *strides) {
  dlx_dynlayout l;
  memset(&l, 0, sizeof l);
  CHECK_OK(dlx_dynlayout_init(&l, ndim, shape, strides));
  return l;
}
#define A() make(4, A_SHAPE, A_STRIDE)
#define B() make(5, B_SHAPE, B_STRIDE)
#define C() make(2, C_SHAPE, C_STRIDE)
#define D() make(4, D_SHAPE, D_STRIDE)

/* The printed layout; the buffer lives until the next call. */
static const char *fmt(const dlx_dynlayout *l) {
  static char buf[4096];
  if (dlx_dynlayout_format(l, buf, sizeof buf) != DLX_OK) return "<format failed>";
  return buf;
}

/* A failed call must leave the layout bytewise as it was. */
#define CHECK_FAIL_UNCHANGED(l, expr, status, needle)                                                 \
  do {                                                                                                \
    dlx_dynlayout before_ = (l);                                                                      \
    CHECK_FAIL(expr, status, needle);                                                                 \
    CHECK(memcmp(&before_, &(l), sizeof before_) == 0);                                               \
  } while (0)

static void test_init(void) {
  dlx_dynlayout l = A();
  CHECK_EQ(l.ndim, 4);
  CHECK_EQ(l.has_order, 0);
  CHECK_STR(fmt(&l), "(8,4,16,2):(2,16,64,1)");
  CHECK(!dlx_dynlayout_is_dynamic(&l));

  int64_t one = 5, unit = 1;
  l = make(1, &one, &unit);
  CHECK_STR(fmt(&l), "(5):(1)");
  l = make(0, NULL, NULL); /* rank 0 needs no arrays */
  CHECK_STR(fmt(&l), "():()");

  l = A();
  CHECK_FAIL(dlx_dynlayout_init(NULL, 4, A_SHAPE, A_STRIDE), DLX_ERR_NULL_ARGUMENT, "'l'");
  CHECK_FAIL_UNCHANGED(l, dlx_dynlayout_init(&l, 4, NULL, A_STRIDE), DLX_ERR_NULL_ARGUMENT, "'shape'");
  CHECK_FAIL_UNCHANGED(l, dlx_dynlayout_init(&l, 4, A_SHAPE, NULL), DLX_ERR_NULL_ARGUMENT, "'strides'");
  CHECK_FAIL_UNCHANGED(l, dlx_dynlayout_init(&l, -1, A_SHAPE, A_STRIDE), DLX_ERR_RANK, "ndim -1");
  CHECK_FAIL_UNCHANGED(l, dlx_dynlayout_init(&l, 65, A_SHAPE, A_STRIDE), DLX_ERR_RANK, "ndim 65");
  int64_t neg[] = {3, -2};
  CHECK_FAIL_UNCHANGED(l, dlx_dynlayout_init(&l, 2, neg, C_STRIDE), DLX_ERR_NEGATIVE_EXTENT,
                       "extent -2 of dimension 1");

  /* Re-initialising forgets every mark and the recorded order. */
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&l, 0, NULL, 0, 2));
  CHECK_OK(dlx_dynlayout_init(&l, 4, A_SHAPE, A_STRIDE));
  dlx_dynlayout fresh = A();
  CHECK(memcmp(&l, &fresh, sizeof l) == 0);
}

/* CuTe DSL's documentation, mark_layout_dynamic t0..t7. */
static void test_mark_dynamic_cute(void) {
  dlx_dynlayout t;
  t = A();
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, -1));
  CHECK_STR(fmt(&t), "(?,?,?,?):(?,?,?,1)");
  CHECK(dlx_dynlayout_is_dynamic(&t));
  /* the concrete values still describe the tensor */
  CHECK_EQ(t.shape[2], 16);
  CHECK_EQ(t.stride[2], 64);

  t = B();
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, 0));
  CHECK_STR(fmt(&t), "(?,?,?,?,?):(1,?,?,?,?)");
  t = B();
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, 2));
  CHECK_STR(fmt(&t), "(?,?,?,?,?):(?,?,1,?,?)");
  t = C();
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, -1));
  CHECK_STR(fmt(&t), "(?,?):(?,?)");
  t = D();
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, -1));
  CHECK_STR(fmt(&t), "(?,?,?,?):(?,0,0,1)");

  t = B();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, -1), DLX_ERR_DEDUCTION,
                       "Can't deduce the leading dimension from layout, please specify the leading_dim explicitly.");
  t = A();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, 1), DLX_ERR_LAYOUT_MISMATCH,
                       "Expected strides[leading_dim] == 1, but got 16");
  t = B();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, 3), DLX_ERR_LAYOUT_MISMATCH,
                       "Expected strides[leading_dim] == 1, but got 4");
}

/* CuTe DSL's prose examples for mark_layout_dynamic. */
static void test_mark_dynamic_prose(void) {
  const int64_t shape[] = {2, 2, 3, 4}, strides[] = {2, 1, 4, 12};
  dlx_dynlayout t = make(4, shape, strides);
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, 1));
  CHECK_STR(fmt(&t), "(?,?,?,?):(?,1,?,?)");
  t = make(4, shape, strides);
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, -1));
  CHECK_STR(fmt(&t), "(?,?,?,?):(?,1,?,?)");
  t = make(4, shape, strides);
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, 0), DLX_ERR_LAYOUT_MISMATCH, "but got 2");

  const int64_t s2[] = {1, 5, 1}, st2[] = {1, 1, 1};
  t = make(3, s2, st2);
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, -1), DLX_ERR_DEDUCTION, "Can't deduce the leading dimension");

  /* rank 0: nothing to mark, nothing to deduce */
  t = make(0, NULL, NULL);
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, -1));
  CHECK_STR(fmt(&t), "():()");
  CHECK(!dlx_dynlayout_is_dynamic(&t));
}

static void test_mark_dynamic_errors(void) {
  CHECK_FAIL(dlx_dynlayout_mark_dynamic(NULL, -1), DLX_ERR_NULL_ARGUMENT, "'l'");
  dlx_dynlayout t = A();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, 4), DLX_ERR_INDEX, "[0, 4), but got 4");
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, 1000), DLX_ERR_INDEX, "but got 1000");
  t.ndim = 65;
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, -1), DLX_ERR_RANK, "ndim 65");
  t.ndim = -3;
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, 0), DLX_ERR_RANK, "ndim -3");
}

/* CuTe DSL's documentation, mark_compact_shape_dynamic t0..t4. */
static void test_compact_cute(void) {
  dlx_dynlayout t = A();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 2));
  CHECK_STR(fmt(&t), "(?{div=2},4,16,2):(2,?{div=4},?{div=16},1)");
  /* the deduced order is recorded: (2,1,0,3) */
  CHECK_EQ(t.has_order, 1);
  CHECK_EQ(t.order[0], 2);
  CHECK_EQ(t.order[1], 1);
  CHECK_EQ(t.order[2], 0);
  CHECK_EQ(t.order[3], 3);
  /* concrete strides stay the tensor's */
  CHECK_EQ(t.stride[0], 2);
  CHECK_EQ(t.stride[1], 16);
  CHECK_EQ(t.stride[2], 64);
  CHECK_EQ(t.stride[3], 1);

  t = A();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, NULL, 0, 2));
  CHECK_STR(fmt(&t), "(8,?{div=2},16,2):(2,16,?{div=32},1)");

  dlx_dynlayout t2 = A();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t2, 1, NULL, 0, 2));
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t2, 3, NULL, 0, 2));
  CHECK_STR(fmt(&t2), "(8,?{div=2},16,?{div=2}):(?{div=2},?{div=16},?{div=32},1)");

  const int32_t o3[] = {3, 0, 2, 4, 1};
  t = B();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o3, 5, 1));
  CHECK_STR(fmt(&t), "(1,4,?,32,1):(0,1,4,?{div=4},0)");
  /* concrete strides: 0 for the static extent-1 modes, the compact product otherwise */
  CHECK_EQ(t.stride[0], 0);
  CHECK_EQ(t.stride[1], 1);
  CHECK_EQ(t.stride[2], 4);
  CHECK_EQ(t.stride[3], 4);
  CHECK_EQ(t.stride[4], 0);

  const int32_t o4[] = {2, 3, 4, 0, 1};
  t = B();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o4, 5, 1));
  CHECK_STR(fmt(&t), "(1,4,?,32,1):(0,1,128,4,0)");
  /* the dynamic mode of concrete extent 1 keeps the running stride, not the canonical 0 */
  CHECK_EQ(t.stride[2], 128);
  /* an ambiguous deduction that the explicit order settles is not left behind as an error */
  CHECK_STR(dlx_last_error(), "");
}

/* CuTe DSL's documentation, mark_compact_shape_dynamic t5..t12. */
static void test_compact_cute_errors(void) {
  dlx_dynlayout t2 = A();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t2, 1, NULL, 0, 2));
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t2, 3, NULL, 0, 2));
  const int32_t o0123[] = {0, 1, 2, 3};
  CHECK_FAIL_UNCHANGED(t2, dlx_dynlayout_mark_compact_shape_dynamic(&t2, 3, o0123, 4, 5), DLX_ERR_LAYOUT_MISMATCH,
                       "The stride_order is not consistent with the last stride_order");

  dlx_dynlayout t = A();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 3, o0123, 4, 5), DLX_ERR_LAYOUT_MISMATCH,
                       "The stride_order is not consistent with the deduced stride_order");

  t = B();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 4), DLX_ERR_DEDUCTION,
                       "The layout could not be deduced, please specify the stride_order explicitly");

  const int32_t o3[] = {3, 0, 2, 4, 1};
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 30, o3, 5, 5), DLX_ERR_INDEX,
                       "Expected mode value to be in range [0, 5), but got 30");

  const int32_t o9[] = {2, 1, 2, 3, 4};
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 3, o9, 5, 5), DLX_ERR_INVALID_ARGUMENT,
                       "Expected stride_order to contain all the dimensions of the tensor, but it doesn't contain 0.");

  const int32_t o10[] = {0, 1, 2, 3, 4, 5};
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 3, o10, 6, 5), DLX_ERR_INVALID_ARGUMENT,
                       "Expected stride_order to have 5 elements, but got 6.");

  const int32_t dim_order[] = {3, 2, 4, 0, 1}; /* b.dim_order() */
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, dim_order, 5, 4), DLX_ERR_INVALID_ARGUMENT,
                       "The shape(1) of mode(0) is not divisible by the divisibility(4)");

  const int32_t o12[] = {2, 1, 3, 0, 4};
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, o12, 5, 1), DLX_ERR_LAYOUT_MISMATCH,
                       "The stride_order is not consistent with the layout");
}

/* CuTe DSL's prose examples of stride orders, and layouts that are not compact. */
static void test_compact_prose(void) {
  const int64_t s1[] = {4, 2}, st1[] = {1, 4};
  dlx_dynlayout t = make(2, s1, st1);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 4));
  CHECK_EQ(t.order[0], 1);
  CHECK_EQ(t.order[1], 0);
  CHECK_STR(fmt(&t), "(?{div=4},2):(1,?{div=4})");

  const int64_t s2[] = {5, 3, 2, 4}, st2[] = {3, 1, 15, 30};
  const int32_t o2[] = {3, 2, 0, 1};
  t = make(4, s2, st2);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, o2, 4, 3));
  CHECK_STR(fmt(&t), "(5,?{div=3},2,4):(?{div=3},1,?{div=15},?{div=30})");

  const int64_t s3[] = {2, 2, 3, 4}, st3[] = {2, 1, 4, 12};
  const int32_t o3[] = {3, 2, 0, 1};
  t = make(4, s3, st3);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 3, o3, 4, 2));
  CHECK_STR(fmt(&t), "(2,2,3,?{div=2}):(2,1,4,12)");

  const int64_t s4[] = {1, 5, 1}, st4[] = {1, 1, 1};
  t = make(3, s4, st4);
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, NULL, 0, 1), DLX_ERR_DEDUCTION,
                       "could not be deduced");

  /* c is strided (a slice), d broadcasts: neither is compact in its deduced order */
  t = C();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 1), DLX_ERR_LAYOUT_MISMATCH,
                       "The stride_order is not consistent with the layout");
  t = D();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 1), DLX_ERR_LAYOUT_MISMATCH,
                       "The stride_order is not consistent with the layout");
}

static void test_compact_errors(void) {
  const int32_t o3[] = {3, 0, 2, 4, 1};
  CHECK_FAIL(dlx_dynlayout_mark_compact_shape_dynamic(NULL, 0, o3, 5, 1), DLX_ERR_NULL_ARGUMENT, "'l'");
  dlx_dynlayout t = B();
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o3, 5, 0), DLX_ERR_INVALID_ARGUMENT,
                       "divisibility >= 1, but got 0");
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o3, 5, -8), DLX_ERR_INVALID_ARGUMENT,
                       "but got -8");
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, -1, o3, 5, 1), DLX_ERR_INDEX,
                       "[0, 5), but got -1");
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o3, 4, 1), DLX_ERR_INVALID_ARGUMENT,
                       "to have 5 elements, but got 4.");
  const int32_t out_of_range[] = {3, 0, 2, 4, 7};
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, out_of_range, 5, 1),
                       DLX_ERR_INVALID_ARGUMENT, "doesn't contain 1.");
  const int32_t negative[] = {3, 0, 2, 4, -1};
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, negative, 5, 1), DLX_ERR_INVALID_ARGUMENT,
                       "doesn't contain 1.");
  /* the checks run in the documented order: mode before the order's length */
  const int32_t o10[] = {0, 1, 2, 3, 4, 5};
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 9, o10, 6, 0), DLX_ERR_INDEX, "got 9");
  /* the order's checks before the divisibility */
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o10, 6, 0), DLX_ERR_INVALID_ARGUMENT,
                       "have 5 elements");

  t.ndim = 65;
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 1), DLX_ERR_RANK, "ndim 65");

  /* a recorded order that is not a permutation is refused rather than indexed with */
  t = B();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o3, 5, 1));
  t.order[4] = 99;
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, NULL, 0, 1), DLX_ERR_INVALID_ARGUMENT,
                       "recorded stride_order");
}

/* Marks compose: a recorded order is reused, mark_layout_dynamic keeps it, and a repeated order is fine. */
static void test_chaining(void) {
  const int32_t o3[] = {3, 0, 2, 4, 1}, o4[] = {2, 3, 4, 0, 1};
  dlx_dynlayout t = B();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o3, 5, 1));
  /* b could not be deduced, yet the recorded order serves a call without one */
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 3, NULL, 0, 8));
  CHECK_STR(fmt(&t), "(1,4,?,?{div=8},1):(0,1,4,?{div=4},0)");
  /* the same order again is consistent with the last one */
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, o3, 5, 2));
  CHECK_STR(fmt(&t), "(1,?{div=2},?,?{div=8},1):(0,1,?{div=2},?{div=2},0)");
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, o4, 5, 2), DLX_ERR_LAYOUT_MISMATCH,
                       "not consistent with the last stride_order");
  /* re-marking a dynamic mode replaces its divisibility */
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, NULL, 0, 4));
  CHECK_STR(fmt(&t), "(1,?{div=4},?,?{div=8},1):(0,1,?{div=4},?{div=4},0)");

  /* mark_layout_dynamic after a compact mark: everything dynamic by its own rules, order kept */
  t = A();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, NULL, 0, 2));
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, -1));
  CHECK_STR(fmt(&t), "(?,?,?,?):(?,?,?,1)");
  CHECK_EQ(t.has_order, 1);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 4));
  CHECK_STR(fmt(&t), "(?{div=4},?,?,?):(?,?{div=4},?{div=4},1)");

  /* a static extent-1 mode's canonical stride 0 survives mark_layout_dynamic as a static 0 */
  t = B();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, o3, 5, 1));
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, 1));
  CHECK_STR(fmt(&t), "(?,?,?,?,?):(0,1,?,?,0)");
}

/* Empty tensors count as compact; an empty dynamic mode keeps each stride a multiple of its divisibility. */
static void test_compact_empty_and_overflow(void) {
  const int64_t s[] = {2, 0, 3}, st[] = {9, 3, 1};
  dlx_dynlayout t = make(3, s, st);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, NULL, 0, 2));
  CHECK_STR(fmt(&t), "(?{div=2},0,3):(3,3,1)");
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, NULL, 0, 8));
  CHECK_STR(fmt(&t), "(?{div=2},?{div=8},3):(?{div=24},3,1)");
  CHECK_EQ(t.stride[0] % 24, 0);

  /* the divisibilities of two empty modes multiply past int64 only for the mode outside them */
  const int64_t e[] = {3, 0, 0}, est[] = {1, 1, 1};
  const int32_t order[] = {0, 1, 2};
  const int64_t big = INT64_C(1) << 62;
  t = make(3, e, est);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 2, order, 3, big));
  CHECK_STR(fmt(&t), "(3,0,?{div=4611686018427387904}):(?{div=4611686018427387904},?{div=4611686018427387904},1)");
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, order, 3, big), DLX_ERR_OVERFLOW,
                       "stride of mode 0 does not fit int64");
}

static void test_format(void) {
  char buf[64];
  dlx_dynlayout t = A();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, NULL, 0, 2));
  const char *want = "(8,?{div=2},16,2):(2,16,?{div=32},1)";
  size_t need = strlen(want) + 1;
  /* exactly enough room works; one byte less fails, names the size, and leaves no partial text */
  CHECK_OK(dlx_dynlayout_format(&t, buf, need));
  CHECK_STR(buf, want);
  memset(buf, 'x', sizeof buf);
  char msg[64];
  snprintf(msg, sizeof msg, "needs %zu bytes, got %zu", need, need - 1);
  CHECK_FAIL(dlx_dynlayout_format(&t, buf, need - 1), DLX_ERR_BUFFER_TOO_SMALL, msg);
  CHECK_STR(buf, "");
  CHECK_FAIL(dlx_dynlayout_format(&t, buf, 1), DLX_ERR_BUFFER_TOO_SMALL, "got 1");
  CHECK_STR(buf, "");
  buf[0] = 'x';
  CHECK_FAIL(dlx_dynlayout_format(&t, buf, 0), DLX_ERR_BUFFER_TOO_SMALL, "got 0");
  CHECK_EQ(buf[0], 'x'); /* cap 0: not one byte written */
  dlx_dynlayout empty = make(0, NULL, NULL);
  CHECK_FAIL(dlx_dynlayout_format(&empty, buf, 5), DLX_ERR_BUFFER_TOO_SMALL, "needs 6 bytes");
  CHECK_OK(dlx_dynlayout_format(&empty, buf, 6));
  CHECK_STR(buf, "():()");

  CHECK_FAIL(dlx_dynlayout_format(NULL, buf, sizeof buf), DLX_ERR_NULL_ARGUMENT, "'l'");
  CHECK_FAIL(dlx_dynlayout_format(&t, NULL, sizeof buf), DLX_ERR_NULL_ARGUMENT, "'buf'");
  t.ndim = 70;
  CHECK_FAIL(dlx_dynlayout_format(&t, buf, sizeof buf), DLX_ERR_RANK, "ndim 70");
}

/* 64 modes of the longest values fit in 4096 bytes, and each value prints in full. */
static void test_format_widest(void) {
  dlx_dynlayout t;
  memset(&t, 0, sizeof t);
  t.ndim = DLX_MAX_NDIM;
  for (int d = 0; d < DLX_MAX_NDIM; ++d) {
    t.shape[d] = INT64_MIN; /* not a legal extent, but the widest static text */
    t.stride_div[d] = INT64_MAX;
  }
  static char buf[4096];
  CHECK_OK(dlx_dynlayout_format(&t, buf, sizeof buf));
  size_t want = 2 + 64 * 20 + 63 + 1 + 2 + 64 * (6 + 19 + 1) + 63;
  CHECK_EQ(strlen(buf), want);
  CHECK(strncmp(buf, "(-9223372036854775808,-9223372036854775808,", 43) == 0);
  CHECK(strstr(buf, "):(?{div=9223372036854775807},?{div=9223372036854775807},") != NULL);
  CHECK_EQ(buf[want - 1], ')');
  /* every value dynamic with the largest divisibility: the longest legal text */
  for (int d = 0; d < DLX_MAX_NDIM; ++d) t.shape_div[d] = INT64_MAX;
  CHECK_OK(dlx_dynlayout_format(&t, buf, sizeof buf));
  CHECK_EQ(strlen(buf), 2 * (2 + 64 * 26 + 63) + 1);

  /* a real 64-mode layout through both markings */
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM];
  for (int d = 0; d < DLX_MAX_NDIM; ++d) shape[d] = 1, strides[d] = 1;
  shape[0] = 3, strides[0] = 10;
  shape[63] = 10, strides[63] = 1;
  t = make(DLX_MAX_NDIM, shape, strides);
  CHECK_OK(dlx_dynlayout_mark_dynamic(&t, 63));
  CHECK(dlx_dynlayout_is_dynamic(&t));
  int32_t order[DLX_MAX_NDIM];
  for (int d = 0; d < DLX_MAX_NDIM; ++d) order[d] = d;
  t = make(DLX_MAX_NDIM, shape, strides);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&t, 63, order, DLX_MAX_NDIM, 5));
  CHECK_OK(dlx_dynlayout_format(&t, buf, sizeof buf));
  CHECK(strncmp(buf, "(3,1,1,", 7) == 0);
  CHECK(strstr(buf, ",1,?{div=5}):(?{div=5},0,0,") != NULL);
  CHECK(strstr(buf, ",0,1)") != NULL);
}

static void test_is_dynamic(void) {
  CHECK(!dlx_dynlayout_is_dynamic(NULL));
  dlx_dynlayout t = A();
  CHECK(!dlx_dynlayout_is_dynamic(&t));
  t.stride_div[3] = 1; /* a stride alone makes it dynamic */
  CHECK(dlx_dynlayout_is_dynamic(&t));
  t.ndim = 99;
  CHECK(!dlx_dynlayout_is_dynamic(&t));
}

static void test_key(void) {
  dlx_dynlayout x = A(), y = A();
  CHECK(dlx_dynlayout_key(&x, 7) == dlx_dynlayout_key(&y, 7));
  CHECK(dlx_dynlayout_key(&x, 7) != dlx_dynlayout_key(&y, 8));

  /* dynamic mode: the concrete value never matters, the divisibility does */
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&x, 1, NULL, 0, 2));
  const int64_t other[] = {8, 6, 16, 2}, other_st[] = {2, 16, 96, 1};
  y = make(4, other, other_st);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&y, 1, NULL, 0, 2));
  CHECK(x.shape[1] != y.shape[1]);
  CHECK(dlx_dynlayout_key(&x, 0) == dlx_dynlayout_key(&y, 0));
  y = A();
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&y, 1, NULL, 0, 4));
  CHECK(dlx_dynlayout_key(&x, 0) != dlx_dynlayout_key(&y, 0));

  /* a static value differs */
  const int64_t s2[] = {16, 4, 16, 2}, st2[] = {2, 32, 128, 1};
  y = make(4, s2, st2);
  CHECK_OK(dlx_dynlayout_mark_compact_shape_dynamic(&y, 1, NULL, 0, 2));
  CHECK(dlx_dynlayout_key(&x, 0) != dlx_dynlayout_key(&y, 0));

  /* static 2 and dynamic of divisibility 2 are different kernels */
  x = A();
  y = A();
  y.shape_div[3] = 2;
  CHECK(dlx_dynlayout_key(&x, 0) != dlx_dynlayout_key(&y, 0));
  y = A();
  y.stride_div[3] = 1; /* dynamic stride of div 1 vs static stride 1 */
  CHECK(dlx_dynlayout_key(&x, 0) != dlx_dynlayout_key(&y, 0));

  /* fully dynamic layouts of the same rank share a kernel whatever the tensor */
  x = A();
  y = make(4, other, other_st);
  CHECK_OK(dlx_dynlayout_mark_dynamic(&x, -1));
  CHECK_OK(dlx_dynlayout_mark_dynamic(&y, -1));
  CHECK(dlx_dynlayout_key(&x, 3) == dlx_dynlayout_key(&y, 3));
  /* but not across ranks */
  const int64_t s3[] = {8, 4, 32}, st3[] = {128, 32, 1};
  y = make(3, s3, st3);
  CHECK_OK(dlx_dynlayout_mark_dynamic(&y, -1));
  CHECK(dlx_dynlayout_key(&x, 3) != dlx_dynlayout_key(&y, 3));

  /* NULL and a corrupted rank hash without reading past the arrays */
  CHECK(dlx_dynlayout_key(NULL, 1) == dlx_dynlayout_key(NULL, 1));
  x.ndim = 1000;
  (void)dlx_dynlayout_key(&x, 1);
}

/* Found by fuzz/fuzz_dynlayout.c: the struct is public, so a caller can store a negative extent or
 * divisibility that init would refuse. The compactness check then multiplied a large running stride
 * by it (signed overflow, undefined behaviour); such a layout is now refused before any arithmetic. */
static void test_corrupted_values(void) {
  const int64_t shape[] = {1, INT64_C(1) << 62}, strides[] = {INT64_C(1) << 62, 1};
  const int32_t order[] = {0, 1};
  dlx_dynlayout t = make(2, shape, strides);
  t.shape[0] = -4;
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 1, order, 2, 1), DLX_ERR_NEGATIVE_EXTENT,
                       "extent -4 of mode 0");
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, -1), DLX_ERR_NEGATIVE_EXTENT, "extent -4 of mode 0");
  t = make(2, shape, strides);
  t.shape_div[1] = -2;
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_compact_shape_dynamic(&t, 0, order, 2, 1), DLX_ERR_INVALID_ARGUMENT,
                       "divisibility -2 of shape mode 1");
  t = make(2, shape, strides);
  t.stride_div[0] = -1;
  CHECK_FAIL_UNCHANGED(t, dlx_dynlayout_mark_dynamic(&t, 1), DLX_ERR_INVALID_ARGUMENT,
                       "divisibility -1 of stride mode 0");
  /* printing and keys never fail on such values: they only read them */
  CHECK_STR(fmt(&t), "(1,4611686018427387904):(?{div=-1},1)");
}

static const dlx_test_case cases[] = {
    {"init", test_init},
    {"mark_dynamic_cute", test_mark_dynamic_cute},
    {"mark_dynamic_prose", test_mark_dynamic_prose},
    {"mark_dynamic_errors", test_mark_dynamic_errors},
    {"compact_cute", test_compact_cute},
    {"compact_cute_errors", test_compact_cute_errors},
    {"compact_prose", test_compact_prose},
    {"compact_errors", test_compact_errors},
    {"chaining", test_chaining},
    {"compact_empty_and_overflow", test_compact_empty_and_overflow},
    {"format", test_format},
    {"format_widest", test_format_widest},
    {"is_dynamic", test_is_dynamic},
    {"key", test_key},
    {"corrupted_values", test_corrupted_values},
};
DLX_TEST_MAIN(cases)
