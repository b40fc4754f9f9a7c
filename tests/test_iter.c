/* Tests for src/core/iter.c */
#include "runner.h"

#include "dlx/layout.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})

/* Filled by hand: the random test needs layouts (zero strides on extents > 1, garbage strides on
 * extent-1 and empty dimensions) that dlx_view_init may refuse. strides NULL = row-major. */
static dlx_view mkview(void *data, DLDataType dt, int32_t ndim, const int64_t *shape, const int64_t *strides) {
  dlx_view v;
  memset(&v, 0, sizeof v);
  v.data = data;
  v.dtype = dt;
  v.device = (DLDevice){kDLCPU, 0};
  v.ndim = ndim;
  int64_t acc = 1;
  for (int32_t d = ndim - 1; d >= 0; --d) {
    v.shape[d] = shape[d];
    v.strides[d] = strides ? strides[d] : acc;
    acc *= shape[d] > 1 ? shape[d] : 1;
  }
  return v;
}

#define DLX_TEST_RNG_SEED 0x243f6a8885a308d3u
#include "rng.h"

static char arena[1 << 16];
#define MID (arena + sizeof arena / 2)

#define MAX_ELEMS 1024
#define MAX_OPS 4

/* Byte offsets of each operand's element, one tuple per visited element, in visiting order. */
static int64_t walk_plan(const dlx_iter *it, const dlx_view *const *ops, int64_t *tuples) {
  if (it->size == 0) return 0;
  int64_t idx[DLX_MAX_NDIM] = {0}, n = 0;
  for (;;) {
    if (n >= MAX_ELEMS) return -1;
    for (int32_t k = 0; k < it->nop; ++k) {
      int64_t off = (int64_t)((intptr_t)it->data[k] - (intptr_t)ops[k]->data);
      for (int32_t d = 0; d < it->ndim; ++d) off += idx[d] * it->strides[k][d];
      tuples[n * it->nop + k] = off;
    }
    ++n;
    int32_t d = it->ndim - 1;
    while (d >= 0 && ++idx[d] == it->shape[d]) idx[d--] = 0;
    if (d < 0) return n;
  }
}

/* The same tuples from a plain N-d loop over the broadcast shape, with NumPy's broadcasting rules. */
static int64_t walk_naive(int32_t nop, const dlx_view *const *ops, int32_t nd, const int64_t *shape, int64_t *tuples) {
  int64_t count = 1;
  for (int32_t j = 0; j < nd; ++j) count *= shape[j];
  for (int64_t e = 0; e < count; ++e) {
    int64_t idx[DLX_MAX_NDIM], r = e;
    for (int32_t j = nd - 1; j >= 0; --j) {
      idx[j] = r % shape[j];
      r /= shape[j];
    }
    for (int32_t k = 0; k < nop; ++k) {
      const dlx_view *v = ops[k];
      int64_t off = 0, is = (int64_t)dlx_dtype_itemsize(v->dtype);
      for (int32_t j = 0; j < v->ndim; ++j) {
        int64_t i = idx[j + nd - v->ndim];
        if (v->shape[j] != 1) off += i * v->strides[j] * is;
      }
      tuples[e * nop + k] = off;
    }
  }
  return count;
}

static int32_t sort_nop;
static int cmp_tuple(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  for (int32_t k = 0; k < sort_nop; ++k)
    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
  return 0;
}

/* Walking the plan visits exactly the naive loop's tuples (as a multiset: the order may differ). */
static bool same_visits(int32_t nop, const dlx_view *const *ops, const dlx_iter *it, int32_t nd, const int64_t *shape) {
  static int64_t got[MAX_ELEMS * MAX_OPS], want[MAX_ELEMS * MAX_OPS];
  int64_t n = walk_plan(it, ops, got), m = walk_naive(nop, ops, nd, shape, want);
  if (n != m || n != it->size) return false;
  sort_nop = nop;
  qsort(got, (size_t)n, (size_t)nop * sizeof *got, cmp_tuple);
  qsort(want, (size_t)m, (size_t)nop * sizeof *want, cmp_tuple);
  return memcmp(got, want, (size_t)n * (size_t)nop * sizeof *got) == 0;
}

static void test_random(void) {
  static const DLDataType dts[] = {DLX_DTYPE_INT8, DLX_DTYPE_FLOAT16, DLX_DTYPE_FLOAT32, DLX_DTYPE_FLOAT64,
                                   DLX_DTYPE_FLOAT4_E2M1FN};
  int failures = 0;
  for (int iter = 0; iter < 4000 && failures < 5; ++iter) {
    int32_t nop = (int32_t)rnd_in(1, MAX_OPS), nd = (int32_t)rnd_in(0, 4);
    int64_t full[4];
    for (int32_t j = 0; j < nd; ++j) full[j] = rnd_in(0, 12) == 0 ? 0 : rnd_in(1, 4);
    bool output_full = rnd_in(0, 3) == 0;
    dlx_view views[MAX_OPS];
    const dlx_view *ops[MAX_OPS];
    for (int32_t k = 0; k < nop; ++k) {
      int32_t n = output_full && k == 0 ? nd : (int32_t)rnd_in(0, nd);
      int64_t shape[4], st[4];
      for (int32_t j = 0; j < n; ++j) {
        int64_t e = full[j + nd - n];
        shape[j] = output_full && k == 0 ? e : (rnd_in(0, 2) == 0 ? 1 : e);
        /* zero strides on real extents (expanded views), negatives, garbage on extent 1 */
        st[j] = shape[j] == 1 ? rnd_in(-1000, 1000) : rnd_in(-6, 6);
      }
      DLDataType dt = dts[rnd() % 5];
      views[k] = mkview(MID + rnd_in(-64, 64), dt, n, shape, st);
      if (dlx_dtype_is_subbyte(dt)) views[k].flags = DLX_VIEW_SUBBYTE_PADDED;
      ops[k] = &views[k];
    }
    /* the broadcast shape the operands actually produce (an extent no operand has stays 1) */
    int32_t bnd = 0;
    for (int32_t k = 0; k < nop; ++k)
      if (views[k].ndim > bnd) bnd = views[k].ndim;
    int64_t bshape[4];
    for (int32_t j = 0; j < bnd; ++j) {
      bshape[j] = 1;
      for (int32_t k = 0; k < nop; ++k) {
        int32_t i = j - (bnd - views[k].ndim);
        if (i >= 0 && views[k].shape[i] != 1) bshape[j] = views[k].shape[i];
      }
    }
    uint32_t flags = (uint32_t)rnd_in(0, 3) | (output_full ? DLX_ITER_OUTPUT_FULL : 0u);
    if (output_full && (views[0].ndim != bnd || (bnd > 0 && memcmp(views[0].shape, bshape, (size_t)bnd * 8) != 0)))
      flags &= ~DLX_ITER_OUTPUT_FULL; /* every operand stretched a dimension the output lacks */
    dlx_iter it;
    dlx_status st = dlx_iter_init(&it, nop, ops, flags);
    CHECK_OK(st);
    if (st != DLX_OK) {
      ++failures;
      continue;
    }
    int64_t size = 1;
    int32_t non_unit = 0;
    for (int32_t j = 0; j < bnd; ++j) {
      size *= bshape[j];
      non_unit += bshape[j] != 1;
    }
    bool ok = it.nop == nop && it.size == size && same_visits(nop, ops, &it, bnd, bshape);
    for (int32_t k = 0; k < nop; ++k) ok &= it.data[k] == (char *)views[k].data;
    if (size == 0) {
      ok &= it.ndim == 1 && it.shape[0] == 0;
    } else if (flags & DLX_ITER_NO_COALESCE) {
      ok &= it.ndim == bnd;
    } else {
      ok &= it.ndim <= non_unit;
      for (int32_t d = 0; d < it.ndim; ++d) ok &= it.shape[d] > 1;
    }
    CHECK(ok);
    if (!ok) {
      ++failures;
      fprintf(stderr, "  case %d: nop %d flags %u broadcast ndim %d -> plan ndim %d size %lld\n", iter, nop, flags, bnd,
              it.ndim, (long long)it.size);
    }
  }
}

/* A contiguous 4-d pair becomes one flat loop. */
static void test_coalesce_contiguous(void) {
  dlx_view a = mkview(MID, DLX_DTYPE_FLOAT32, 4, I64(2, 3, 4, 5), NULL);
  dlx_view b = mkview(MID, DLX_DTYPE_FLOAT64, 4, I64(2, 3, 4, 5), NULL);
  const dlx_view *ops[] = {&a, &b};
  dlx_iter it;
  CHECK_OK(dlx_iter_init(&it, 2, ops, 0));
  CHECK_EQ(it.ndim, 1);
  CHECK_EQ(it.size, 120);
  CHECK_EQ(it.shape[0], 120);
  CHECK_EQ(it.strides[0][0], 4);
  CHECK_EQ(it.strides[1][0], 8);
  /* NO_REORDER still coalesces; NO_COALESCE keeps every dimension */
  CHECK_OK(dlx_iter_init(&it, 2, ops, DLX_ITER_NO_REORDER));
  CHECK_EQ(it.ndim, 1);
  CHECK_OK(dlx_iter_init(&it, 2, ops, DLX_ITER_NO_COALESCE | DLX_ITER_NO_REORDER));
  CHECK_EQ(it.ndim, 4);
  CHECK_EQ(it.shape[0], 2);
  CHECK_EQ(it.shape[3], 5);
  CHECK_EQ(it.strides[0][0], 240);
  CHECK_EQ(it.strides[1][3], 8);
  /* a broadcast row vector merges the outer three dimensions only */
  dlx_view c = mkview(MID, DLX_DTYPE_FLOAT32, 1, I64(5), NULL);
  const dlx_view *ops2[] = {&a, &c};
  CHECK_OK(dlx_iter_init(&it, 2, ops2, DLX_ITER_OUTPUT_FULL));
  CHECK_EQ(it.ndim, 2);
  CHECK_EQ(it.shape[0], 24);
  CHECK_EQ(it.shape[1], 5);
  CHECK_EQ(it.strides[0][0], 20);
  CHECK_EQ(it.strides[0][1], 4);
  CHECK_EQ(it.strides[1][0], 0);
  CHECK_EQ(it.strides[1][1], 4);
  /* extent-1 dimensions in the middle vanish whatever their strides */
  dlx_view d = mkview(MID, DLX_DTYPE_INT8, 4, I64(3, 1, 4, 1), I64(4, 77, 1, -9));
  const dlx_view *ops3[] = {&d};
  CHECK_OK(dlx_iter_init(&it, 1, ops3, 0));
  CHECK_EQ(it.ndim, 1);
  CHECK_EQ(it.shape[0], 12);
  CHECK_EQ(it.strides[0][0], 1);
  /* a reversed contiguous vector coalesces with its negative stride kept */
  dlx_view r = mkview(MID, DLX_DTYPE_INT16, 2, I64(3, 4), I64(-4, -1));
  const dlx_view *ops4[] = {&r};
  CHECK_OK(dlx_iter_init(&it, 1, ops4, 0));
  CHECK_EQ(it.ndim, 1);
  CHECK_EQ(it.strides[0][0], -2);
}

/* The first operand that tells two dimensions apart puts its smaller |stride| innermost. */
static void test_transposed_pair(void) {
  dlx_view c = mkview(MID, DLX_DTYPE_FLOAT32, 2, I64(3, 4), NULL);      /* strides (16,4) bytes */
  dlx_view t = mkview(MID, DLX_DTYPE_FLOAT32, 2, I64(3, 4), I64(1, 3)); /* a (4,3) transposed: (4,12) */
  dlx_iter it;
  const dlx_view *ct[] = {&c, &t};
  CHECK_OK(dlx_iter_init(&it, 2, ct, 0));
  CHECK_EQ(it.ndim, 2);
  CHECK_EQ(it.shape[0], 3);
  CHECK_EQ(it.shape[1], 4);
  CHECK_EQ(it.strides[0][0], 16);
  CHECK_EQ(it.strides[0][1], 4);
  CHECK_EQ(it.strides[1][0], 4);
  CHECK_EQ(it.strides[1][1], 12);
  const dlx_view *tc[] = {&t, &c};
  CHECK_OK(dlx_iter_init(&it, 2, tc, 0));
  CHECK_EQ(it.ndim, 2);
  CHECK_EQ(it.shape[0], 4);
  CHECK_EQ(it.shape[1], 3);
  CHECK_EQ(it.strides[0][0], 12);
  CHECK_EQ(it.strides[0][1], 4);
  CHECK_EQ(it.strides[1][0], 4);
  CHECK_EQ(it.strides[1][1], 16);
  /* NO_REORDER keeps the logical order */
  CHECK_OK(dlx_iter_init(&it, 2, tc, DLX_ITER_NO_REORDER));
  CHECK_EQ(it.shape[0], 3);
  CHECK_EQ(it.strides[0][0], 4);
  /* A broadcast operand first: its zero stride says nothing, so the next operand decides. Were zero
   * the smallest stride, the stretched dimension 0 would go innermost. */
  dlx_view z = mkview(MID, DLX_DTYPE_FLOAT32, 1, I64(4), NULL), zz;
  CHECK_OK(dlx_view_broadcast_to(&z, 2, I64(3, 4), &zz)); /* strides (0,1) */
  const dlx_view *zc[] = {&zz, &c};
  CHECK_OK(dlx_iter_init(&it, 2, zc, 0));
  CHECK_EQ(it.ndim, 2);
  CHECK_EQ(it.shape[0], 3);
  CHECK_EQ(it.shape[1], 4);
  CHECK_EQ(it.strides[0][0], 0);
  CHECK_EQ(it.strides[0][1], 4);
  CHECK_EQ(it.strides[1][0], 16);
  /* equal |stride| in the first operand does not decide either: t does */
  dlx_view eq = mkview(MID, DLX_DTYPE_INT16, 2, I64(3, 4), I64(1, -1)); /* bytes (2,-2) */
  const dlx_view *et[] = {&eq, &t};
  CHECK_OK(dlx_iter_init(&it, 2, et, 0));
  CHECK_EQ(it.ndim, 2);
  CHECK_EQ(it.shape[0], 4);
  CHECK_EQ(it.shape[1], 3);
  CHECK_EQ(it.strides[0][0], -2);
  CHECK_EQ(it.strides[0][1], 2);
  CHECK_EQ(it.strides[1][0], 12);
  CHECK_EQ(it.strides[1][1], 4);
}

static void test_scalar_and_empty(void) {
  dlx_iter it;
  dlx_view s = mkview(MID, DLX_DTYPE_FLOAT64, 0, NULL, NULL);
  dlx_view one = mkview(MID, DLX_DTYPE_FLOAT32, 3, I64(1, 1, 1), I64(5, 6, 7));
  const dlx_view *ops[] = {&s, &one};
  CHECK_OK(dlx_iter_init(&it, 2, ops, 0));
  CHECK_EQ(it.ndim, 0);
  CHECK_EQ(it.size, 1);
  CHECK(it.data[0] == MID && it.data[1] == MID);
  dlx_view e = mkview(NULL, DLX_DTYPE_FLOAT32, 2, I64(3, 0), I64(INT64_MAX, INT64_MIN));
  dlx_view row = mkview(MID, DLX_DTYPE_FLOAT32, 1, I64(1), NULL);
  const dlx_view *ops2[] = {&e, &row};
  CHECK_OK(dlx_iter_init(&it, 2, ops2, DLX_ITER_OUTPUT_FULL));
  CHECK_EQ(it.size, 0);
  CHECK_EQ(it.ndim, 1);
  CHECK_EQ(it.shape[0], 0);
  CHECK(it.data[0] == NULL);
}

static void test_errors(void) {
  dlx_iter it;
  dlx_view a = mkview(MID, DLX_DTYPE_FLOAT32, 2, I64(3, 4), NULL);
  dlx_view b = mkview(MID, DLX_DTYPE_FLOAT32, 2, I64(5, 4), NULL);
  const dlx_view *ab[] = {&a, &b};
  const dlx_view *nine[9] = {&a, &a, &a, &a, &a, &a, &a, &a, &a};
  CHECK_FAIL(dlx_iter_init(NULL, 1, ab, 0), DLX_ERR_NULL_ARGUMENT, "'it'");
  CHECK_FAIL(dlx_iter_init(&it, 1, NULL, 0), DLX_ERR_NULL_ARGUMENT, "'ops'");
  CHECK_FAIL(dlx_iter_init(&it, 0, ab, 0), DLX_ERR_INVALID_ARGUMENT, "nop 0 is outside [1, 8]");
  CHECK_FAIL(dlx_iter_init(&it, 9, nine, 0), DLX_ERR_INVALID_ARGUMENT, "nop 9");
  CHECK_FAIL(dlx_iter_init(&it, -1, ab, 0), DLX_ERR_INVALID_ARGUMENT, "nop -1");
  CHECK_FAIL(dlx_iter_init(&it, 1, ab, 8u), DLX_ERR_INVALID_ARGUMENT, "unknown flags 0x8");
  const dlx_view *withnull[] = {&a, NULL};
  CHECK_FAIL(dlx_iter_init(&it, 2, withnull, 0), DLX_ERR_NULL_ARGUMENT, "ops[1] is NULL");
  const dlx_view *firstnull[] = {NULL, &a};
  CHECK_FAIL(dlx_iter_init(&it, 2, firstnull, 0), DLX_ERR_NULL_ARGUMENT, "ops[0] is NULL");
  CHECK_FAIL(dlx_iter_init(&it, 2, ab, 0), DLX_ERR_BROADCAST,
             "shapes (3,4) and (5,4) do not broadcast: extent 3 vs 5 at dimension 0");
  dlx_view r = a;
  r.ndim = 65;
  const dlx_view *ar[] = {&a, &r};
  CHECK_FAIL(dlx_iter_init(&it, 2, ar, 0), DLX_ERR_RANK, "operand 1 has ndim 65");
  dlx_view n = a;
  n.shape[1] = -4;
  const dlx_view *an[] = {&a, &n};
  CHECK_FAIL(dlx_iter_init(&it, 2, an, 0), DLX_ERR_NEGATIVE_EXTENT, "extent -4 at dimension 1 of shapes[1]");
  dlx_view g = a;
  g.device = (DLDevice){kDLCUDA, 1};
  const dlx_view *ag[] = {&a, &g};
  CHECK_FAIL(dlx_iter_init(&it, 2, ag, 0), DLX_ERR_DEVICE_MISMATCH,
             "operand 1 is on device (type 2, id 1) but operand 0 on (type 1, id 0)");
  dlx_view p = mkview(MID, DLX_DTYPE_FLOAT4_E2M1FN, 1, I64(4), NULL);
  const dlx_view *ap[] = {&a, &p};
  CHECK_FAIL(dlx_iter_init(&it, 2, ap, 0), DLX_ERR_UNSUPPORTED, "operand 1 has packed sub-byte dtype (code 17, bits 4");
  p.flags = DLX_VIEW_SUBBYTE_PADDED;
  CHECK_OK(dlx_iter_init(&it, 2, ap, 0));
  dlx_view z = mkview(MID, DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 0, 1), 1, I64(4), NULL);
  const dlx_view *az[] = {&a, &z};
  CHECK_FAIL(dlx_iter_init(&it, 2, az, 0), DLX_ERR_INVALID_DTYPE, "operand 1 has dtype (code 2, bits 0, lanes 1)");
  /* OUTPUT_FULL: the output cannot be stretched */
  dlx_view col = mkview(MID, DLX_DTYPE_FLOAT32, 2, I64(3, 1), NULL);
  const dlx_view *ca[] = {&col, &a};
  CHECK_OK(dlx_iter_init(&it, 2, ca, 0));
  CHECK_FAIL(dlx_iter_init(&it, 2, ca, DLX_ITER_OUTPUT_FULL), DLX_ERR_BROADCAST,
             "output shape (3,1) is not the broadcast shape (3,4) of the operands");
  dlx_view vec = mkview(MID, DLX_DTYPE_FLOAT32, 1, I64(4), NULL);
  const dlx_view *va[] = {&vec, &a};
  CHECK_FAIL(dlx_iter_init(&it, 2, va, DLX_ITER_OUTPUT_FULL), DLX_ERR_BROADCAST, "output shape (4) is not");
  /* overflow: element count, and a stride in bytes */
  dlx_view big1 = mkview(MID, DLX_DTYPE_INT8, 2, I64(INT64_MAX / 2, 1), I64(1, 1));
  dlx_view big2 = mkview(MID, DLX_DTYPE_INT8, 2, I64(1, 4), I64(1, 1));
  const dlx_view *bb[] = {&big1, &big2};
  CHECK_FAIL(dlx_iter_init(&it, 2, bb, 0), DLX_ERR_OVERFLOW, "broadcast shape (4611686018427387903,4)");
  dlx_view wide = mkview(MID, DLX_DTYPE_FLOAT64, 1, I64(3), I64(INT64_MAX / 4));
  const dlx_view *w[] = {&wide};
  CHECK_FAIL(dlx_iter_init(&it, 1, w, 0), DLX_ERR_OVERFLOW, "operand 0: stride 2305843009213693951 at dimension 0");
}

static const dlx_test_case cases[] = {
    {"random", test_random},
    {"coalesce_contiguous", test_coalesce_contiguous},
    {"transposed_pair", test_transposed_pair},
    {"scalar_and_empty", test_scalar_and_empty},
    {"errors", test_errors},
};
DLX_TEST_MAIN(cases)
