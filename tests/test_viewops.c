/* Tests for src/core/viewops.c: slices against CPython's own answers, index / subscript against a
 * composition of single steps, reshape against a brute-force oracle (a view exists iff some strides
 * reproduce the row-major element order), and every error path. */
#include <stdbool.h>
#include <stdint.h>

#include "dlx/layout.h"
#include "dlx/viewops.h"
#include "runner.h"

static const DLDevice cpu = {kDLCPU, 0};

/* A view over a notional buffer: tests only compare element offsets, so data is never dereferenced
 * (base sits in the middle of a real array so that negative offsets stay meaningful). */
static char arena[1 << 16];
static char *const base = arena + (1 << 15);

static dlx_view make(DLDataType dt, int32_t nd, const int64_t *shape, const int64_t *strides) {
  dlx_view v;
  memset(&v, 0, sizeof v);
  v.data = base;
  v.dtype = dt;
  v.device = cpu;
  v.ndim = nd;
  for (int32_t i = 0; i < nd; ++i) {
    v.shape[i] = shape[i];
    v.strides[i] = strides[i];
  }
  return v;
}

static dlx_view make_c(DLDataType dt, int32_t nd, const int64_t *shape) {
  int64_t st[DLX_MAX_NDIM];
  dlx_layout_compact_strides(nd, shape, NULL, st);
  return make(dt, nd, shape, st);
}

/* Element offset (in elements, from base) of element number f in row-major order. */
static int64_t elem_offset(const dlx_view *v, int64_t f) {
  int64_t off = ((char *)v->data - base) / (int64_t)dlx_dtype_itemsize(v->dtype);
  for (int32_t d = v->ndim - 1; d >= 0; --d) {
    off += (f % v->shape[d]) * v->strides[d];
    f /= v->shape[d];
  }
  return off;
}

/* Same shape and same element addresses (strides of extent-1 dimensions may differ). */
static bool same_elements(const dlx_view *a, const dlx_view *b) {
  if (a->ndim != b->ndim) return false;
  for (int32_t d = 0; d < a->ndim; ++d)
    if (a->shape[d] != b->shape[d]) return false;
  int64_t n = dlx_view_size(a);
  for (int64_t f = 0; f < n; ++f)
    if (elem_offset(a, f) != elem_offset(b, f)) return false;
  return true;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

/* ---- slices ------------------------------------------------------------------------------------- */

/* extent, start (value, present), stop (value, present), step, then CPython's answer:
 * slice(start, stop, step).indices(extent)[0] and len(range(extent)[slice(start, stop, step)]). */
typedef struct slice_case {
  int64_t extent, start;
  int has_start;
  int64_t stop;
  int has_stop;
  int64_t step, want_start, want_len;
} slice_case;

static const slice_case slice_cases[] = {
    {0, -1, 1, 0, 1, -3, -1, 0},
    {0, -3, 1, -2, 1, 3, 0, 0},
    {0, -3, 1, 1, 1, -3, -1, 0},
    {0, -4, 1, -4611686018427387904, 1, 7, 0, 0},
    {0, -6, 1, -6, 1, 3, 0, 0},
    {0, -7, 1, -7, 1, -2, -1, 0},
    {0, -7, 1, 7, 1, INT64_MAX, 0, 0},
    {0, INT64_MIN, 1, 5, 1, 1, 0, 0},
    {0, 0, 1, -3, 1, 1, 0, 0},
    {0, 0, 1, -7, 1, -1, -1, 0},
    {0, 1, 1, -2, 1, -2, -1, 0},
    {0, 1, 1, -4, 1, 3, 0, 0},
    {0, 1, 1, 0, 1, 3, 0, 0},
    {0, 2, 1, -5, 1, 1, 0, 0},
    {0, 5, 1, -7, 1, -1, -1, 0},
    {0, 6, 1, -5, 1, 3, 0, 0},
    {0, 6, 1, -6, 1, -1, -1, 0},
    {0, 6, 1, 1, 1, -1, -1, 0},
    {0, 6, 1, 4611686018427387904, 1, -1, -1, 0},
    {0, 7, 1, -2, 1, INT64_MIN, -1, 0},
    {0, 7, 1, 1, 1, 1, 0, 0},
    {0, 7, 1, 2, 1, 1, 0, 0},
    {0, 7, 1, 7, 1, -7, -1, 0},
    {0, 7, 1, 0, 0, -2, -1, 0},
    {0, 0, 0, -2, 1, INT64_MIN, -1, 0},
    {0, 0, 0, INT64_MAX, 1, -7, -1, 0},
    {1, -1, 1, 1, 1, -2, 0, 0},
    {1, -1, 1, 1, 1, INT64_MAX, 0, 1},
    {1, -1, 1, 2, 1, -7, 0, 0},
    {1, -3, 1, -1, 1, 1, 0, 0},
    {1, -4, 1, -1, 1, -2, -1, 0},
    {1, -5, 1, 6, 1, INT64_MAX, 0, 1},
    {1, -5, 1, 7, 1, INT64_MAX, 0, 1},
    {1, -6, 1, -4, 1, INT64_MAX, 0, 0},
    {1, -6, 1, 4611686018427387904, 1, 2, 0, 1},
    {1, -6, 1, 0, 0, 2, 0, 1},
    {1, 3, 1, -4, 1, INT64_MAX, 1, 0},
    {1, 4, 1, -4, 1, 7, 1, 0},
    {1, 4, 1, 7, 1, -2, 0, 0},
    {1, 6, 1, 0, 1, 3, 1, 0},
    {1, 7, 1, -2, 1, 2, 1, 0},
    {1, 7, 1, 2, 1, 2, 1, 0},
    {1, 7, 1, 0, 0, -1, 0, 1},
    {1, INT64_MAX, 1, 6, 1, -2, 0, 0},
    {1, 0, 0, 6, 1, -1, 0, 0},
    {2, -1, 1, 1, 1, 1, 1, 0},
    {2, -2, 1, 1, 1, INT64_MAX, 0, 1},
    {2, -2, 1, 3, 1, -7, 0, 0},
    {2, -3, 1, -7, 1, 2, 0, 0},
    {2, -4, 1, -5, 1, 3, 0, 0},
    {2, -4, 1, 2, 1, 2, 0, 1},
    {2, -4, 1, 3, 1, -3, -1, 0},
    {2, -4611686018427387904, 1, 1, 1, -7, -1, 0},
    {2, -5, 1, 0, 0, -2, -1, 0},
    {2, 0, 1, -1, 1, 2, 0, 1},
    {2, 2, 1, 3, 1, 2, 2, 0},
    {2, 3, 1, -6, 1, 1, 2, 0},
    {2, 3, 1, 2, 1, INT64_MAX, 2, 0},
    {2, 3, 1, 0, 0, 7, 2, 0},
    {2, 4, 1, -6, 1, INT64_MAX, 2, 0},
    {2, 5, 1, 4, 1, -1, 1, 0},
    {2, 6, 1, -5, 1, INT64_MAX, 2, 0},
    {2, 6, 1, 2, 1, INT64_MAX, 2, 0},
    {2, 7, 1, 2, 1, 7, 2, 0},
    {2, 0, 0, -6, 1, 2, 0, 0},
    {2, 0, 0, 4, 1, -2, 1, 0},
    {3, -2, 1, -6, 1, -1, 1, 2},
    {3, -2, 1, 3, 1, 2, 1, 1},
    {3, -3, 1, -3, 1, 7, 0, 0},
    {3, -4, 1, INT64_MIN, 1, 1, 0, 0},
    {3, -4611686018427387904, 1, -1, 1, INT64_MAX, 0, 1},
    {3, -4611686018427387904, 1, 0, 1, -7, -1, 0},
    {3, -5, 1, -3, 1, -2, -1, 0},
    {3, -5, 1, -7, 1, INT64_MIN, -1, 0},
    {3, -6, 1, -6, 1, INT64_MAX, 0, 0},
    {3, -6, 1, 2, 1, 3, 0, 1},
    {3, -6, 1, 5, 1, 2, 0, 2},
    {3, -7, 1, -2, 1, -7, -1, 0},
    {3, -7, 1, 6, 1, 2, 0, 2},
    {3, INT64_MIN, 1, INT64_MIN, 1, -2, -1, 0},
    {3, INT64_MIN, 1, 0, 1, 7, 0, 0},
    {3, 0, 1, 3, 1, -7, 0, 0},
    {3, 2, 1, -1, 1, 7, 2, 0},
    {3, 2, 1, -6, 1, -1, 2, 3},
    {3, 3, 1, INT64_MAX, 1, INT64_MAX, 3, 0},
    {3, 4, 1, -5, 1, 3, 3, 0},
    {3, 4, 1, 1, 1, 2, 3, 0},
    {3, 5, 1, 0, 0, -1, 2, 3},
    {3, 6, 1, -5, 1, 1, 3, 0},
    {3, 6, 1, -6, 1, -2, 2, 2},
    {3, 6, 1, 3, 1, 2, 3, 0},
    {3, 7, 1, -6, 1, -2, 2, 2},
    {3, 7, 1, -7, 1, 1, 3, 0},
    {3, 7, 1, 5, 1, 3, 3, 0},
    {3, INT64_MAX, 1, -2, 1, INT64_MAX, 3, 0},
    {3, 0, 0, 2, 1, INT64_MAX, 0, 1},
    {4, -1, 1, -1, 1, 7, 3, 0},
    {4, -1, 1, 0, 0, -3, 3, 2},
    {4, -3, 1, -1, 1, INT64_MAX, 1, 1},
    {4, -3, 1, -4, 1, -7, 1, 1},
    {4, -3, 1, 7, 1, 7, 1, 1},
    {4, -4, 1, -4, 1, -7, 0, 0},
    {4, -4611686018427387904, 1, -5, 1, 1, 0, 0},
    {4, -5, 1, -1, 1, 1, 0, 3},
    {4, -5, 1, -4, 1, INT64_MAX, 0, 0},
    {4, -6, 1, 5, 1, -7, -1, 0},
    {4, -7, 1, -4611686018427387904, 1, INT64_MAX, 0, 0},
    {4, -7, 1, -7, 1, INT64_MAX, 0, 0},
    {4, 0, 1, 0, 0, 2, 0, 2},
    {4, 1, 1, -7, 1, INT64_MAX, 1, 0},
    {4, 1, 1, 6, 1, -1, 1, 0},
    {4, 2, 1, -2, 1, 3, 2, 0},
    {4, 2, 1, 0, 1, -3, 2, 1},
    {4, 2, 1, 1, 1, INT64_MIN, 2, 1},
    {4, 2, 1, 5, 1, -1, 2, 0},
    {4, 3, 1, -4, 1, -3, 3, 1},
    {4, 4, 1, -1, 1, INT64_MIN, 3, 0},
    {4, 4611686018427387904, 1, INT64_MAX, 1, 2, 4, 0},
    {4, 6, 1, -6, 1, 2, 4, 0},
    {4, 6, 1, 4, 1, 7, 4, 0},
    {4, 6, 1, 5, 1, -2, 3, 0},
    {4, INT64_MAX, 1, 6, 1, -1, 3, 0},
    {4, 0, 0, -1, 1, INT64_MIN, 3, 0},
    {4, 0, 0, -7, 1, -7, 3, 1},
    {5, -1, 1, 5, 1, INT64_MAX, 4, 1},
    {5, -1, 1, 7, 1, 7, 4, 1},
    {5, -2, 1, 3, 1, -3, 3, 0},
    {5, -4, 1, -4, 1, -3, 1, 0},
    {5, -4, 1, -7, 1, 1, 1, 0},
    {5, -5, 1, 1, 1, INT64_MAX, 0, 1},
    {5, -6, 1, -1, 1, 7, 0, 1},
    {5, -6, 1, 4, 1, 3, 0, 2},
    {5, 0, 1, -1, 1, -2, 0, 0},
    {5, 0, 1, 0, 1, 1, 0, 0},
    {5, 1, 1, 3, 1, -2, 1, 0},
    {5, 3, 1, 6, 1, -1, 3, 0},
    {5, 3, 1, 6, 1, 3, 3, 1},
    {5, 4, 1, 2, 1, -3, 4, 1},
    {5, 7, 1, -1, 1, -3, 4, 0},
    {6, -6, 1, -6, 1, -1, 0, 0},
    {6, -6, 1, 7, 1, 1, 0, 6},
    {6, 0, 1, -7, 1, 2, 0, 0},
    {6, 1, 1, -4, 1, INT64_MAX, 1, 1},
    {6, 4611686018427387904, 1, -2, 1, 1, 6, 0},
    {6, 4611686018427387904, 1, INT64_MAX, 1, INT64_MAX, 6, 0},
    {6, 5, 1, 0, 1, -3, 5, 2},
    {6, 5, 1, 4, 1, 1, 5, 0},
    {6, 0, 0, -2, 1, 2, 0, 2},
    {6, 0, 0, 0, 1, 7, 0, 0},
    {6, 0, 0, 4, 1, 7, 0, 1},
};

static void test_slice_resolve_matches_cpython(void) {
  for (size_t i = 0; i < sizeof slice_cases / sizeof slice_cases[0]; ++i) {
    const slice_case *c = &slice_cases[i];
    dlx_slice s = {c->start, c->stop, c->step, c->has_start, c->has_stop};
    int64_t start = -99, len = -99;
    CHECK_OK(dlx_slice_resolve(&s, c->extent, &start, &len));
    if (start != c->want_start || len != c->want_len)
      fprintf(stderr, "  case %zu: extent %lld slice(%lld%s, %lld%s, %lld): got (%lld, %lld), want (%lld, %lld)\n", i,
              (long long)c->extent, (long long)c->start, c->has_start ? "" : "?", (long long)c->stop,
              c->has_stop ? "" : "?", (long long)c->step, (long long)start, (long long)len, (long long)c->want_start,
              (long long)c->want_len);
    CHECK_EQ(start, c->want_start);
    CHECK_EQ(len, c->want_len);
  }
}

/* Every slice of small extents: the indices taken equal a direct walk of Python's definition. */
static void test_slice_resolve_exhaustive(void) {
  for (int64_t extent = 0; extent <= 6; ++extent)
    for (int64_t a = -8; a <= 8; ++a)
      for (int64_t b = -8; b <= 8; ++b)
        for (int64_t step = -4; step <= 4; ++step) {
          if (step == 0) continue;
          dlx_slice s = {a, b, step, true, true};
          int64_t start, len;
          CHECK_OK(dlx_slice_resolve(&s, extent, &start, &len));
          /* the walk: normalise, then take every index from start toward stop that lies in range */
          int64_t lo = a < 0 ? a + extent : a, hi = b < 0 ? b + extent : b, n = 0, first = -1;
          if (step > 0) {
            if (lo < 0) lo = 0;
            for (int64_t i = lo; i < hi && i < extent; i += step)
              if (n++ == 0) first = i;
          } else {
            if (lo > extent - 1) lo = extent - 1;
            for (int64_t i = lo; i > hi && i >= 0; i += step)
              if (n++ == 0) first = i;
          }
          CHECK_EQ(len, n);
          if (n > 0) CHECK_EQ(start, first);
        }
}

static void test_slice_resolve_errors(void) {
  dlx_slice s = {0, 3, 0, true, true};
  int64_t start, len;
  CHECK_FAIL(dlx_slice_resolve(&s, 4, &start, &len), DLX_ERR_INVALID_ARGUMENT, "step cannot be zero");
  s.step = 1;
  CHECK_FAIL(dlx_slice_resolve(&s, -2, &start, &len), DLX_ERR_NEGATIVE_EXTENT, "-2");
  CHECK_FAIL(dlx_slice_resolve(NULL, 4, &start, &len), DLX_ERR_NULL_ARGUMENT, "'s'");
  CHECK_FAIL(dlx_slice_resolve(&s, 4, NULL, &len), DLX_ERR_NULL_ARGUMENT, "'start'");
  CHECK_FAIL(dlx_slice_resolve(&s, 4, &start, NULL), DLX_ERR_NULL_ARGUMENT, "'len'");
}

/* ---- index and slice ---------------------------------------------------------------------------- */

static void test_index(void) {
  int64_t shape[3] = {2, 3, 4};
  dlx_view v = make_c(DLX_DTYPE_FLOAT32, 3, shape), r;
  CHECK_OK(dlx_view_index(&v, 1, 2, &r));
  CHECK_EQ(r.ndim, 2);
  CHECK_EQ(r.shape[0], 2);
  CHECK_EQ(r.shape[1], 4);
  CHECK_EQ(r.strides[0], 12);
  CHECK_EQ(r.strides[1], 1);
  CHECK((char *)r.data == base + 2 * 4 * 4);
  CHECK_OK(dlx_view_index(&v, -1, -1, &r)); /* dim 2, element 3 */
  CHECK((char *)r.data == base + 3 * 4);
  CHECK_EQ(r.shape[1], 3);
  CHECK_OK(dlx_view_index(&v, 0, -2, &r));
  CHECK((char *)r.data == base);
  /* index to 0-d */
  dlx_view one = make_c(DLX_DTYPE_INT64, 1, (int64_t[]){5});
  CHECK_OK(dlx_view_index(&one, 0, 4, &r));
  CHECK_EQ(r.ndim, 0);
  CHECK((char *)r.data == base + 32);
  /* negative strides move the pointer backwards */
  dlx_view neg = make(DLX_DTYPE_INT16, 1, (int64_t[]){5}, (int64_t[]){-3});
  CHECK_OK(dlx_view_index(&neg, 0, 2, &r));
  CHECK((char *)r.data == base - 12);
  /* in place, and flags / dtype / device carried over */
  v.flags = DLX_VIEW_READ_ONLY;
  dlx_view w = v;
  CHECK_OK(dlx_view_index(&w, 0, 1, &w));
  CHECK_EQ(w.ndim, 2);
  CHECK((char *)w.data == base + 48);
  CHECK_EQ(w.flags, DLX_VIEW_READ_ONLY);
  CHECK(dlx_dtype_equal(w.dtype, DLX_DTYPE_FLOAT32));
  /* an index into a view with another empty dimension keeps the data pointer */
  dlx_view e = make_c(DLX_DTYPE_FLOAT32, 2, (int64_t[]){3, 0});
  CHECK_OK(dlx_view_index(&e, 0, 2, &r));
  CHECK_EQ(r.shape[0], 0);
  CHECK(r.data == e.data);
}

static void test_index_errors(void) {
  int64_t shape[2] = {2, 3};
  dlx_view v = make_c(DLX_DTYPE_FLOAT32, 2, shape), r;
  r.ndim = 77;
  CHECK_FAIL(dlx_view_index(&v, 1, 3, &r), DLX_ERR_INDEX, "index 3 is out of bounds for dim 1 with extent 3");
  CHECK_FAIL(dlx_view_index(&v, 1, -4, &r), DLX_ERR_INDEX, "index -4 is out of bounds for dim 1 with extent 3");
  CHECK_FAIL(dlx_view_index(&v, 2, 0, &r), DLX_ERR_INDEX, "dim 2 is out of range for ndim 2");
  CHECK_FAIL(dlx_view_index(&v, -3, 0, &r), DLX_ERR_INDEX, "dim -3 is out of range for ndim 2");
  CHECK_EQ(r.ndim, 77); /* untouched on failure */
  dlx_view z = make_c(DLX_DTYPE_FLOAT32, 0, NULL);
  CHECK_FAIL(dlx_view_index(&z, 0, 0, &r), DLX_ERR_INDEX, "ndim 0");
  dlx_view e = make_c(DLX_DTYPE_FLOAT32, 1, (int64_t[]){0});
  CHECK_FAIL(dlx_view_index(&e, 0, 0, &r), DLX_ERR_INDEX, "extent 0");
  CHECK_FAIL(dlx_view_index(NULL, 0, 0, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_index(&v, 0, 0, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  dlx_view bad = v;
  bad.ndim = 65;
  CHECK_FAIL(dlx_view_index(&bad, 0, 0, &r), DLX_ERR_RANK, "65");
  bad.ndim = -1;
  CHECK_FAIL(dlx_view_index(&bad, 0, 0, &r), DLX_ERR_RANK, "-1");
  /* an offset that does not fit int64 */
  dlx_view huge = make(DLX_DTYPE_FLOAT64, 1, (int64_t[]){4}, (int64_t[]){INT64_MAX / 2});
  CHECK_FAIL(dlx_view_index(&huge, 0, 3, &r), DLX_ERR_OVERFLOW, "overflows");
  dlx_view huge2 = make(DLX_DTYPE_FLOAT64, 1, (int64_t[]){4}, (int64_t[]){INT64_MAX / 4});
  CHECK_FAIL(dlx_view_index(&huge2, 0, 1, &r), DLX_ERR_OVERFLOW, "byte offset");
}

static void test_slice(void) {
  int64_t shape[2] = {4, 6};
  dlx_view v = make_c(DLX_DTYPE_FLOAT64, 2, shape), r;
  dlx_slice s = {1, 5, 2, true, true};
  CHECK_OK(dlx_view_slice(&v, 1, &s, &r));
  CHECK_EQ(r.ndim, 2);
  CHECK_EQ(r.shape[0], 4);
  CHECK_EQ(r.shape[1], 2);
  CHECK_EQ(r.strides[1], 2);
  CHECK((char *)r.data == base + 8);
  dlx_slice rev = {0, 0, -1, false, false};
  CHECK_OK(dlx_view_slice(&v, 0, &rev, &r));
  CHECK_EQ(r.shape[0], 4);
  CHECK_EQ(r.strides[0], -6);
  CHECK((char *)r.data == base + 3 * 6 * 8);
  /* slicing the reversed view back restores the original elements */
  dlx_view back;
  CHECK_OK(dlx_view_slice(&r, -2, &rev, &back));
  CHECK(same_elements(&back, &v));
  /* an empty slice keeps the data pointer */
  dlx_slice none = {3, 1, 1, true, true};
  CHECK_OK(dlx_view_slice(&v, 0, &none, &r));
  CHECK_EQ(r.shape[0], 0);
  CHECK(r.data == v.data);
  /* in place */
  dlx_view w = v;
  CHECK_OK(dlx_view_slice(&w, 1, &s, &w));
  CHECK_EQ(w.shape[1], 2);
  /* a huge step over one element is fine: the stride is never used */
  dlx_slice big = {2, 0, INT64_MAX, true, false};
  CHECK_OK(dlx_view_slice(&v, 1, &big, &r));
  CHECK_EQ(r.shape[1], 1);
  CHECK((char *)r.data == base + 16);
}

static void test_slice_errors(void) {
  int64_t shape[2] = {4, 6};
  dlx_view v = make_c(DLX_DTYPE_FLOAT64, 2, shape), r;
  dlx_slice s = {0, 0, 0, false, false};
  CHECK_FAIL(dlx_view_slice(&v, 1, &s, &r), DLX_ERR_INVALID_ARGUMENT, "step cannot be zero (dim 1)");
  s.step = 1;
  CHECK_FAIL(dlx_view_slice(&v, 2, &s, &r), DLX_ERR_INDEX, "dim 2 is out of range for ndim 2");
  CHECK_FAIL(dlx_view_slice(NULL, 0, &s, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_slice(&v, 0, NULL, &r), DLX_ERR_NULL_ARGUMENT, "'s'");
  CHECK_FAIL(dlx_view_slice(&v, 0, &s, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  dlx_view huge = make(DLX_DTYPE_FLOAT64, 1, (int64_t[]){4}, (int64_t[]){INT64_MAX / 2});
  dlx_slice two = {0, 0, 3, false, false};
  CHECK_FAIL(dlx_view_slice(&huge, 0, &two, &r), DLX_ERR_OVERFLOW, "times step 3");
  dlx_slice from3 = {3, 0, 1, true, false};
  CHECK_FAIL(dlx_view_slice(&huge, 0, &from3, &r), DLX_ERR_OVERFLOW, "start 3");
}

/* Packed sub-byte elements: a view may start only on a byte boundary. */
static void test_subbyte(void) {
  dlx_view v = make_c(DLX_DTYPE_FLOAT4_E2M1FN, 1, (int64_t[]){8}), r;
  dlx_slice s = {2, 0, 1, true, false};
  CHECK_OK(dlx_view_slice(&v, 0, &s, &r));
  CHECK((char *)r.data == base + 1);
  s.start = 3;
  CHECK_FAIL(dlx_view_slice(&v, 0, &s, &r), DLX_ERR_UNSUPPORTED, "element 3 of packed 4-bit data");
  CHECK_FAIL(dlx_view_index(&v, 0, 5, &r), DLX_ERR_UNSUPPORTED, "does not start on a byte");
  /* padded: one byte each */
  v.flags = DLX_VIEW_SUBBYTE_PADDED;
  CHECK_OK(dlx_view_index(&v, 0, 5, &r));
  CHECK((char *)r.data == base + 5);
  dlx_view f6 = make_c(DLX_DTYPE_FLOAT6_E2M3FN, 1, (int64_t[]){8});
  CHECK_OK(dlx_view_index(&f6, 0, 4, &r)); /* 24 bits */
  CHECK((char *)r.data == base + 3);
  CHECK_FAIL(dlx_view_index(&f6, 0, 1, &r), DLX_ERR_UNSUPPORTED, "6-bit");
  dlx_view h = make(DLX_DTYPE_FLOAT4_E2M1FN, 1, (int64_t[]){4}, (int64_t[]){INT64_MAX / 4});
  CHECK_FAIL(dlx_view_index(&h, 0, 3, &r), DLX_ERR_OVERFLOW, "overflows");
  dlx_view h2 = make(DLX_DTYPE_FLOAT4_E2M1FN, 1, (int64_t[]){4}, (int64_t[]){INT64_MAX / 5});
  CHECK_FAIL(dlx_view_index(&h2, 0, 2, &r), DLX_ERR_OVERFLOW, "bit offset");
}

/* ---- subscript ---------------------------------------------------------------------------------- */

static dlx_index_item I(int64_t i) {
  dlx_index_item it;
  memset(&it, 0, sizeof it);
  it.kind = DLX_IDX_INT;
  it.i = i;
  return it;
}
static dlx_index_item S(int64_t a, int ha, int64_t b, int hb, int64_t step) {
  dlx_index_item it;
  memset(&it, 0, sizeof it);
  it.kind = DLX_IDX_SLICE;
  it.s.start = a;
  it.s.stop = b;
  it.s.step = step;
  it.s.has_start = ha;
  it.s.has_stop = hb;
  return it;
}
static dlx_index_item K(dlx_index_kind kind) {
  dlx_index_item it;
  memset(&it, 0, sizeof it);
  it.kind = kind;
  return it;
}

static void test_subscript_basic(void) {
  int64_t shape[3] = {2, 3, 4};
  dlx_view v = make_c(DLX_DTYPE_INT32, 3, shape), r;
  /* v[1, ::2, None, ...] */
  dlx_index_item items[4] = {I(1), S(0, 0, 0, 0, 2), K(DLX_IDX_NEWAXIS), K(DLX_IDX_ELLIPSIS)};
  CHECK_OK(dlx_view_subscript(&v, 4, items, &r));
  CHECK_EQ(r.ndim, 3);
  CHECK_EQ(r.shape[0], 2);
  CHECK_EQ(r.shape[1], 1);
  CHECK_EQ(r.shape[2], 4);
  CHECK_EQ(r.strides[0], 8);
  CHECK_EQ(r.strides[2], 1);
  CHECK((char *)r.data == base + 12 * 4);
  /* v[..., -1] */
  dlx_index_item last[2] = {K(DLX_IDX_ELLIPSIS), I(-1)};
  CHECK_OK(dlx_view_subscript(&v, 2, last, &r));
  CHECK_EQ(r.ndim, 2);
  CHECK_EQ(r.shape[0], 2);
  CHECK_EQ(r.shape[1], 3);
  CHECK((char *)r.data == base + 3 * 4);
  /* v[()] is v itself; v[...] too */
  CHECK_OK(dlx_view_subscript(&v, 0, NULL, &r));
  CHECK(same_elements(&r, &v));
  dlx_index_item ell = K(DLX_IDX_ELLIPSIS);
  CHECK_OK(dlx_view_subscript(&v, 1, &ell, &r));
  CHECK(same_elements(&r, &v));
  /* a 0-d view takes None and ... */
  dlx_view z = make_c(DLX_DTYPE_INT32, 0, NULL);
  dlx_index_item zn[2] = {K(DLX_IDX_NEWAXIS), K(DLX_IDX_ELLIPSIS)};
  CHECK_OK(dlx_view_subscript(&z, 2, zn, &r));
  CHECK_EQ(r.ndim, 1);
  CHECK_EQ(r.shape[0], 1);
  /* trailing None after every dimension */
  dlx_index_item tn[4] = {I(0), I(0), I(0), K(DLX_IDX_NEWAXIS)};
  CHECK_OK(dlx_view_subscript(&v, 4, tn, &r));
  CHECK_EQ(r.ndim, 1);
  CHECK_EQ(r.strides[0], 1);
  /* in place */
  dlx_view w = v;
  CHECK_OK(dlx_view_subscript(&w, 4, items, &w));
  CHECK_EQ(w.ndim, 3);
  CHECK((char *)w.data == base + 48);
  /* empty results keep the data pointer */
  dlx_index_item em[2] = {I(1), S(2, 1, 2, 1, 1)};
  CHECK_OK(dlx_view_subscript(&v, 2, em, &r));
  CHECK_EQ(r.shape[0], 0);
  CHECK(r.data == v.data);
}

static void test_subscript_errors(void) {
  int64_t shape[3] = {2, 3, 4};
  dlx_view v = make_c(DLX_DTYPE_INT32, 3, shape), r;
  dlx_index_item four[4] = {I(0), I(0), I(0), I(0)};
  CHECK_FAIL(dlx_view_subscript(&v, 4, four, &r), DLX_ERR_INDEX, "too many indices: 4 for ndim 3");
  dlx_index_item two_ell[2] = {K(DLX_IDX_ELLIPSIS), K(DLX_IDX_ELLIPSIS)};
  CHECK_FAIL(dlx_view_subscript(&v, 2, two_ell, &r), DLX_ERR_INVALID_ARGUMENT, "single ellipsis ('...'), got 2");
  dlx_index_item oob[2] = {I(0), I(3)};
  CHECK_FAIL(dlx_view_subscript(&v, 2, oob, &r), DLX_ERR_INDEX, "index 3 is out of bounds for dim 1 with extent 3");
  dlx_index_item oob2[3] = {K(DLX_IDX_NEWAXIS), K(DLX_IDX_ELLIPSIS), I(-5)};
  CHECK_FAIL(dlx_view_subscript(&v, 3, oob2, &r), DLX_ERR_INDEX, "index -5 is out of bounds for dim 2 with extent 4");
  dlx_index_item zstep = S(0, 0, 0, 0, 0);
  CHECK_FAIL(dlx_view_subscript(&v, 1, &zstep, &r), DLX_ERR_INVALID_ARGUMENT, "step cannot be zero (dim 0)");
  dlx_index_item bad = K((dlx_index_kind)9);
  CHECK_FAIL(dlx_view_subscript(&v, 1, &bad, &r), DLX_ERR_INVALID_ARGUMENT, "items[0] has unknown kind 9");
  CHECK_FAIL(dlx_view_subscript(&v, -1, four, &r), DLX_ERR_INVALID_ARGUMENT, "count -1");
  CHECK_FAIL(dlx_view_subscript(&v, 1, NULL, &r), DLX_ERR_NULL_ARGUMENT, "'items'");
  CHECK_FAIL(dlx_view_subscript(NULL, 0, NULL, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_subscript(&v, 0, NULL, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  /* 62 newaxes on a rank-3 view: 65 dimensions */
  dlx_index_item many[62];
  for (int i = 0; i < 62; ++i) many[i] = K(DLX_IDX_NEWAXIS);
  CHECK_FAIL(dlx_view_subscript(&v, 62, many, &r), DLX_ERR_RANK, "65 dimensions");
  CHECK_OK(dlx_view_subscript(&v, 61, many, &r));
  CHECK_EQ(r.ndim, 64);
  dlx_view huge = make(DLX_DTYPE_INT8, 2, (int64_t[]){2, 2}, (int64_t[]){INT64_MAX / 2 + 1, INT64_MAX / 2 + 1});
  dlx_index_item hh[2] = {I(1), I(1)};
  CHECK_FAIL(dlx_view_subscript(&huge, 2, hh, &r), DLX_ERR_OVERFLOW, "dim 1 overflows");
  dlx_index_item hs[2] = {I(1), S(1, 1, 0, 0, 1)};
  CHECK_FAIL(dlx_view_subscript(&huge, 2, hs, &r), DLX_ERR_OVERFLOW, "slice at dim 1");
}

/* The oracle: the same index applied one step at a time with dlx_view_index, dlx_view_slice and
 * dlx_view_unsqueeze, the ellipsis expanded by hand. */
static dlx_status subscript_by_steps(const dlx_view *v, int32_t n, const dlx_index_item *items, dlx_view *out) {
  int32_t consumed = 0;
  for (int32_t k = 0; k < n; ++k) consumed += items[k].kind == DLX_IDX_INT || items[k].kind == DLX_IDX_SLICE;
  dlx_view w = *v;
  int32_t d = 0; /* next dimension of w to consume */
  for (int32_t k = 0; k < n; ++k) {
    dlx_status st = DLX_OK;
    switch (items[k].kind) {
      case DLX_IDX_INT: st = dlx_view_index(&w, d, items[k].i, &w); break;
      case DLX_IDX_SLICE: st = dlx_view_slice(&w, d++, &items[k].s, &w); break;
      case DLX_IDX_NEWAXIS: st = dlx_view_unsqueeze(&w, d++, &w); break;
      case DLX_IDX_ELLIPSIS: d += v->ndim - consumed; break;
    }
    if (st != DLX_OK) return st;
  }
  *out = w;
  return DLX_OK;
}

static void test_subscript_random(void) {
  for (int iter = 0; iter < 3000; ++iter) {
    int32_t nd = (int32_t)rnd_in(0, 4);
    int64_t shape[4], strides[4];
    for (int32_t d = 0; d < nd; ++d) {
      shape[d] = rnd_in(0, 5);
      strides[d] = rnd_in(-7, 7);
    }
    dlx_view v = make(DLX_DTYPE_INT16, nd, shape, strides), got, want;
    dlx_index_item items[7];
    int32_t n = (int32_t)rnd_in(0, 6), ell = 0;
    for (int32_t k = 0; k < n; ++k) {
      int kind = (int)rnd_in(0, 9);
      if (kind <= 3) items[k] = I(rnd_in(-6, 5));
      else if (kind <= 7) items[k] = S(rnd_in(-7, 7), (int)rnd_in(0, 1), rnd_in(-7, 7), (int)rnd_in(0, 1),
                                      rnd_in(0, 1) ? rnd_in(1, 3) : -rnd_in(1, 3));
      else if (kind == 8) items[k] = K(DLX_IDX_NEWAXIS);
      else if (!ell++) items[k] = K(DLX_IDX_ELLIPSIS);
      else items[k] = K(DLX_IDX_NEWAXIS);
    }
    dlx_status st = dlx_view_subscript(&v, n, items, &got);
    int32_t consumed = 0;
    for (int32_t k = 0; k < n; ++k) consumed += items[k].kind == DLX_IDX_INT || items[k].kind == DLX_IDX_SLICE;
    if (consumed > nd) {
      CHECK_EQ(st, DLX_ERR_INDEX);
      continue;
    }
    dlx_status ws = subscript_by_steps(&v, n, items, &want);
    CHECK_EQ(st, ws);
    if (st == DLX_OK && ws == DLX_OK) {
      bool same = same_elements(&got, &want);
      CHECK(same);
      if (!same) return;
    }
  }
}

/* ---- permute, transpose ------------------------------------------------------------------------- */

static void test_permute(void) {
  int64_t shape[3] = {2, 3, 4};
  dlx_view v = make_c(DLX_DTYPE_FLOAT32, 3, shape), r;
  int32_t perm[3] = {2, 0, 1};
  CHECK_OK(dlx_view_permute(&v, perm, &r));
  CHECK_EQ(r.shape[0], 4);
  CHECK_EQ(r.shape[1], 2);
  CHECK_EQ(r.shape[2], 3);
  CHECK_EQ(r.strides[0], 1);
  CHECK_EQ(r.strides[1], 12);
  CHECK_EQ(r.strides[2], 4);
  CHECK(r.data == v.data);
  CHECK_OK(dlx_view_transpose(&v, &r));
  CHECK_EQ(r.shape[0], 4);
  CHECK_EQ(r.shape[2], 2);
  CHECK_EQ(r.strides[0], 1);
  CHECK_EQ(r.strides[2], 12);
  dlx_view w = r;
  CHECK_OK(dlx_view_transpose(&w, &w));
  CHECK(same_elements(&w, &v));
  dlx_view z = make_c(DLX_DTYPE_FLOAT32, 0, NULL);
  CHECK_OK(dlx_view_permute(&z, NULL, &r));
  CHECK_EQ(r.ndim, 0);
  CHECK_OK(dlx_view_transpose(&z, &r));
  CHECK_EQ(r.ndim, 0);
}

static void test_permute_errors(void) {
  int64_t shape[3] = {2, 3, 4};
  dlx_view v = make_c(DLX_DTYPE_FLOAT32, 3, shape), r;
  CHECK_FAIL(dlx_view_permute(&v, (int32_t[]){0, 3, 1}, &r), DLX_ERR_INVALID_ARGUMENT,
             "perm[1] = 3 is not a dimension of a view of ndim 3");
  CHECK_FAIL(dlx_view_permute(&v, (int32_t[]){0, -1, 1}, &r), DLX_ERR_INVALID_ARGUMENT, "perm[1] = -1");
  CHECK_FAIL(dlx_view_permute(&v, (int32_t[]){2, 0, 2}, &r), DLX_ERR_INVALID_ARGUMENT,
             "perm repeats dimension 2 (perm[2])");
  CHECK_FAIL(dlx_view_permute(&v, NULL, &r), DLX_ERR_NULL_ARGUMENT, "'perm' is NULL with ndim 3");
  CHECK_FAIL(dlx_view_permute(NULL, NULL, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_permute(&v, (int32_t[]){0, 1, 2}, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_view_transpose(NULL, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_transpose(&v, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  dlx_view bad = v;
  bad.ndim = 70;
  CHECK_FAIL(dlx_view_transpose(&bad, &r), DLX_ERR_RANK, "70");
}

/* ---- reshape ------------------------------------------------------------------------------------ */

static void test_reshape_basic(void) {
  int64_t shape[2] = {4, 6};
  dlx_view v = make_c(DLX_DTYPE_FLOAT32, 2, shape), r;
  CHECK_OK(dlx_view_reshape(&v, 3, (int64_t[]){2, -1, 3}, &r));
  CHECK_EQ(r.ndim, 3);
  CHECK_EQ(r.shape[1], 4);
  CHECK_EQ(r.strides[0], 12);
  CHECK_EQ(r.strides[1], 3);
  CHECK_EQ(r.strides[2], 1);
  CHECK_OK(dlx_view_reshape(&v, 1, (int64_t[]){-1}, &r));
  CHECK_EQ(r.shape[0], 24);
  CHECK_FAIL(dlx_view_reshape(&v, 0, NULL, &r), DLX_ERR_INVALID_ARGUMENT, "into shape () of 1 elements");
  /* a transposed view splits and merges where its runs allow */
  dlx_view t;
  CHECK_OK(dlx_view_transpose(&v, &t)); /* (6,4):(1,6) */
  CHECK_OK(dlx_view_reshape(&t, 3, (int64_t[]){2, 3, 4}, &r));
  CHECK_EQ(r.strides[0], 3);
  CHECK_EQ(r.strides[1], 1);
  CHECK_EQ(r.strides[2], 6);
  CHECK_FAIL(dlx_view_reshape(&t, 1, (int64_t[]){24}, &r), DLX_ERR_LAYOUT_MISMATCH,
             "cannot reshape (6,4) with strides (1,6) to (24) without a copy");
  /* 0-d <-> (1,1) */
  dlx_view one = make_c(DLX_DTYPE_FLOAT32, 0, NULL);
  CHECK_OK(dlx_view_reshape(&one, 2, (int64_t[]){1, -1}, &r));
  CHECK_EQ(r.shape[0], 1);
  CHECK_EQ(r.shape[1], 1);
  CHECK_OK(dlx_view_reshape(&r, 0, NULL, &r));
  CHECK_EQ(r.ndim, 0);
  /* empty views take any shape of zero elements, compact */
  dlx_view e = make(DLX_DTYPE_FLOAT32, 2, (int64_t[]){0, 5}, (int64_t[]){-3, 7});
  CHECK_OK(dlx_view_reshape(&e, 3, (int64_t[]){5, 0, 2}, &r));
  CHECK_EQ(r.shape[1], 0);
  CHECK_EQ(r.strides[2], 1);
  CHECK_OK(dlx_view_reshape(&e, 1, (int64_t[]){-1}, &r));
  CHECK_EQ(r.shape[0], 0);
  /* broadcast (zero-stride) dimensions merge with each other */
  dlx_view b = make(DLX_DTYPE_FLOAT32, 2, (int64_t[]){3, 4}, (int64_t[]){0, 0});
  CHECK_OK(dlx_view_reshape(&b, 1, (int64_t[]){12}, &r));
  CHECK_EQ(r.strides[0], 0);
  /* negative strides that are contiguous with each other */
  dlx_view n = make(DLX_DTYPE_FLOAT32, 2, (int64_t[]){3, 4}, (int64_t[]){-4, -1});
  CHECK_OK(dlx_view_reshape(&n, 1, (int64_t[]){12}, &r));
  CHECK_EQ(r.strides[0], -1);
  /* in place */
  dlx_view w = v;
  CHECK_OK(dlx_view_reshape(&w, 2, (int64_t[]){3, 8}, &w));
  CHECK_EQ(w.shape[0], 3);
  CHECK_EQ(w.strides[0], 8);
}

static void test_reshape_errors(void) {
  int64_t shape[2] = {4, 6};
  dlx_view v = make_c(DLX_DTYPE_FLOAT32, 2, shape), r;
  r.ndim = 33;
  CHECK_FAIL(dlx_view_reshape(&v, 2, (int64_t[]){5, 5}, &r), DLX_ERR_INVALID_ARGUMENT,
             "cannot reshape 24 elements of shape (4,6) into shape (5,5) of 25 elements");
  CHECK_FAIL(dlx_view_reshape(&v, 2, (int64_t[]){-1, -1}, &r), DLX_ERR_INVALID_ARGUMENT,
             "dims 0 and 1 are -1");
  CHECK_FAIL(dlx_view_reshape(&v, 2, (int64_t[]){5, -1}, &r), DLX_ERR_INVALID_ARGUMENT, "into shape (5,-1)");
  CHECK_FAIL(dlx_view_reshape(&v, 2, (int64_t[]){-2, 12}, &r), DLX_ERR_NEGATIVE_EXTENT, "extent -2 at dim 0");
  CHECK_FAIL(dlx_view_reshape(&v, 65, (int64_t[]){1}, &r), DLX_ERR_RANK, "ndim 65");
  CHECK_FAIL(dlx_view_reshape(&v, -1, NULL, &r), DLX_ERR_RANK, "ndim -1");
  CHECK_FAIL(dlx_view_reshape(&v, 2, NULL, &r), DLX_ERR_NULL_ARGUMENT, "'shape' is NULL with ndim 2");
  CHECK_FAIL(dlx_view_reshape(NULL, 0, NULL, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_reshape(&v, 0, NULL, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_view_reshape(&v, 3, (int64_t[]){INT64_MAX, 4, 0}, &r), DLX_ERR_OVERFLOW, "overflows int64 at dim 1");
  /* -1 beside a zero extent is ambiguous (NumPy refuses it too) */
  dlx_view e = make_c(DLX_DTYPE_FLOAT32, 2, (int64_t[]){0, 4});
  CHECK_FAIL(dlx_view_reshape(&e, 2, (int64_t[]){0, -1}, &r), DLX_ERR_INVALID_ARGUMENT,
             "cannot reshape 0 elements of shape (0,4) into shape (0,-1)");
  CHECK_EQ(r.ndim, 33);
  /* strides whose products do not fit: never a view */
  dlx_view h = make(DLX_DTYPE_INT8, 2, (int64_t[]){2, 3}, (int64_t[]){5, INT64_MAX / 2});
  CHECK_FAIL(dlx_view_reshape(&h, 1, (int64_t[]){6}, &r), DLX_ERR_LAYOUT_MISMATCH, "without a copy");
  dlx_view h2 = make(DLX_DTYPE_INT8, 1, (int64_t[]){6}, (int64_t[]){INT64_MAX / 2});
  CHECK_FAIL(dlx_view_reshape(&h2, 2, (int64_t[]){2, 3}, &r), DLX_ERR_LAYOUT_MISMATCH, "without a copy");
}

/* Brute force: can some strides give (nd, shape) the element offsets of v in row-major order? The
 * candidate for dim k is the offset step between element 0 and the unit index along k. */
static bool reshape_oracle(const dlx_view *v, int32_t nd, const int64_t *shape, int64_t *strides) {
  dlx_view c = *v;
  c.ndim = nd;
  for (int32_t k = 0; k < nd; ++k) c.shape[k] = shape[k];
  int64_t n = dlx_view_size(v);
  if (n == 0) return true;
  int64_t o0 = elem_offset(v, 0), unit = 1;
  for (int32_t k = nd - 1; k >= 0; --k) {
    c.strides[k] = shape[k] > 1 ? elem_offset(v, unit) - o0 : 0;
    unit *= shape[k];
  }
  for (int64_t f = 0; f < n; ++f)
    if (elem_offset(&c, f) != elem_offset(v, f)) return false;
  if (strides) memcpy(strides, c.strides, (size_t)nd * sizeof(int64_t));
  return true;
}

/* A random shape with n elements (n > 0): random factors, extent-1 dimensions sprinkled in. */
static int32_t random_shape_of(int64_t n, int64_t *shape) {
  int32_t nd = 0;
  while (n > 1 && nd < 6) {
    int64_t f = rnd_in(2, n);
    while (n % f) --f;
    if (rnd_in(0, 3) == 0) shape[nd++] = 1;
    shape[nd++] = f;
    n /= f;
  }
  if (n > 1) shape[nd++] = n;
  if (rnd_in(0, 3) == 0) shape[nd++] = 1;
  /* shuffle: the order of the factors matters to what can be a view */
  for (int32_t i = nd - 1; i > 0; --i) {
    int32_t j = (int32_t)rnd_in(0, i);
    int64_t t = shape[i];
    shape[i] = shape[j];
    shape[j] = t;
  }
  return nd;
}

static void test_reshape_oracle(void) {
  int views = 0, copies = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    /* a view made from a compact buffer by slicing, transposing and broadcasting, so that many
     * reshapes are possible; or fully random strides */
    int32_t nd = (int32_t)rnd_in(0, 4);
    int64_t shape[8], strides[8];
    for (int32_t d = 0; d < nd; ++d) shape[d] = rnd_in(1, 4);
    if (rnd_in(0, 1)) {
      dlx_layout_compact_strides(nd, shape, NULL, strides);
      for (int32_t d = 0; d < nd; ++d) {
        int m = (int)rnd_in(0, 7);
        if (m == 0) strides[d] = 0;
        else if (m == 1) strides[d] = -strides[d];
        else if (m == 2) strides[d] *= 2;
      }
      if (nd >= 2 && rnd_in(0, 1)) { /* swap two dimensions */
        int32_t a = (int32_t)rnd_in(0, nd - 1), b = (int32_t)rnd_in(0, nd - 1);
        int64_t t = shape[a]; shape[a] = shape[b]; shape[b] = t;
        t = strides[a]; strides[a] = strides[b]; strides[b] = t;
      }
    } else {
      for (int32_t d = 0; d < nd; ++d) strides[d] = rnd_in(-9, 9);
    }
    dlx_view v = make(DLX_DTYPE_FLOAT32, nd, shape, strides), r;
    int64_t n = dlx_view_size(&v), ns[16];
    int32_t nn = random_shape_of(n, ns);
    int64_t want_strides[16];
    bool possible = reshape_oracle(&v, nn, ns, want_strides);
    dlx_status st = dlx_view_reshape(&v, nn, ns, &r);
    CHECK_EQ(st, possible ? DLX_OK : DLX_ERR_LAYOUT_MISMATCH);
    if (st == DLX_OK) {
      ++views;
      /* every element where the row-major enumeration of v puts it */
      CHECK_EQ(r.ndim, nn);
      int64_t bad = -1;
      for (int64_t f = 0; f < n && bad < 0; ++f)
        if (elem_offset(&r, f) != elem_offset(&v, f)) bad = f;
      CHECK_EQ(bad, -1);
    } else {
      ++copies;
    }
    if (st != (possible ? DLX_OK : DLX_ERR_LAYOUT_MISMATCH)) {
      char a[128] = "", b[128] = "", c[128] = "";
      for (int32_t d = 0; d < nd; ++d) {
        snprintf(a + strlen(a), sizeof a - strlen(a), "%lld,", (long long)shape[d]);
        snprintf(b + strlen(b), sizeof b - strlen(b), "%lld,", (long long)strides[d]);
      }
      for (int32_t d = 0; d < nn; ++d) snprintf(c + strlen(c), sizeof c - strlen(c), "%lld,", (long long)ns[d]);
      fprintf(stderr, "  shape (%s) strides (%s) -> (%s): dlx %s, oracle %d\n", a, b, c, dlx_status_name(st),
              possible);
      return;
    }
  }
  /* both outcomes must be common, or the oracle test proves little */
  CHECK(views > 2000);
  CHECK(copies > 2000);
}

/* ---- squeeze, unsqueeze ------------------------------------------------------------------------- */

static void test_squeeze(void) {
  int64_t shape[4] = {1, 3, 1, 2};
  dlx_view v = make_c(DLX_DTYPE_UINT8, 4, shape), r;
  CHECK_OK(dlx_view_squeeze(&v, 2, &r));
  CHECK_EQ(r.ndim, 3);
  CHECK_EQ(r.shape[0], 1);
  CHECK_EQ(r.shape[1], 3);
  CHECK_EQ(r.shape[2], 2);
  CHECK_EQ(r.strides[1], 2);
  CHECK_OK(dlx_view_squeeze(&v, -4, &r));
  CHECK_EQ(r.shape[0], 3);
  CHECK_FAIL(dlx_view_squeeze(&v, 1, &r), DLX_ERR_INVALID_ARGUMENT, "cannot squeeze dim 1 of extent 3");
  CHECK_FAIL(dlx_view_squeeze(&v, 4, &r), DLX_ERR_INDEX, "dim 4 is out of range for ndim 4");
  CHECK_FAIL(dlx_view_squeeze(NULL, 0, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_squeeze(&v, 0, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_OK(dlx_view_squeeze_all(&v, &r));
  CHECK_EQ(r.ndim, 2);
  CHECK_EQ(r.shape[0], 3);
  CHECK_EQ(r.shape[1], 2);
  CHECK_EQ(r.strides[0], 2);
  dlx_view w = v;
  CHECK_OK(dlx_view_squeeze_all(&w, &w));
  CHECK(same_elements(&w, &r));
  dlx_view ones = make_c(DLX_DTYPE_UINT8, 3, (int64_t[]){1, 1, 1});
  CHECK_OK(dlx_view_squeeze_all(&ones, &r));
  CHECK_EQ(r.ndim, 0);
  CHECK_FAIL(dlx_view_squeeze_all(NULL, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_squeeze_all(&v, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
}

static void test_unsqueeze(void) {
  int64_t shape[2] = {3, 4};
  dlx_view v = make_c(DLX_DTYPE_INT64, 2, shape), r;
  CHECK_OK(dlx_view_unsqueeze(&v, 0, &r));
  CHECK_EQ(r.ndim, 3);
  CHECK_EQ(r.shape[0], 1);
  CHECK_EQ(r.strides[0], 12);
  CHECK(dlx_view_is_c_contiguous(&r));
  CHECK_OK(dlx_view_unsqueeze(&v, -1, &r));
  CHECK_EQ(r.shape[2], 1);
  CHECK_EQ(r.strides[2], 1);
  CHECK_OK(dlx_view_unsqueeze(&v, 1, &r));
  CHECK_EQ(r.shape[1], 1);
  CHECK_EQ(r.strides[1], 4);
  CHECK_EQ(r.shape[2], 4);
  CHECK_OK(dlx_view_unsqueeze(&v, -3, &r));
  CHECK_EQ(r.shape[0], 1);
  CHECK_FAIL(dlx_view_unsqueeze(&v, 3, &r), DLX_ERR_INDEX, "dim 3 is out of range for inserting into ndim 2");
  CHECK_FAIL(dlx_view_unsqueeze(&v, -4, &r), DLX_ERR_INDEX, "dim -4");
  dlx_view w = v;
  CHECK_OK(dlx_view_unsqueeze(&w, 2, &w));
  CHECK_EQ(w.ndim, 3);
  CHECK_OK(dlx_view_squeeze(&w, 2, &w));
  CHECK(same_elements(&w, &v));
  dlx_view big = make(DLX_DTYPE_INT64, 1, (int64_t[]){3}, (int64_t[]){INT64_MAX / 2});
  CHECK_OK(dlx_view_unsqueeze(&big, 0, &r)); /* the unused stride would overflow: 1 instead */
  CHECK_EQ(r.strides[0], 1);
  dlx_view full = make_c(DLX_DTYPE_INT64, 0, NULL);
  full.ndim = 64;
  for (int i = 0; i < 64; ++i) full.shape[i] = 1, full.strides[i] = 1;
  CHECK_FAIL(dlx_view_unsqueeze(&full, 0, &r), DLX_ERR_RANK, "ndim 64");
  CHECK_FAIL(dlx_view_unsqueeze(NULL, 0, &r), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_unsqueeze(&v, 0, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
}

static const dlx_test_case cases[] = {
    {"slice_resolve_matches_cpython", test_slice_resolve_matches_cpython},
    {"slice_resolve_exhaustive", test_slice_resolve_exhaustive},
    {"slice_resolve_errors", test_slice_resolve_errors},
    {"index", test_index},
    {"index_errors", test_index_errors},
    {"slice", test_slice},
    {"slice_errors", test_slice_errors},
    {"subbyte", test_subbyte},
    {"subscript_basic", test_subscript_basic},
    {"subscript_errors", test_subscript_errors},
    {"subscript_random", test_subscript_random},
    {"permute", test_permute},
    {"permute_errors", test_permute_errors},
    {"reshape_basic", test_reshape_basic},
    {"reshape_errors", test_reshape_errors},
    {"reshape_oracle", test_reshape_oracle},
    {"squeeze", test_squeeze},
    {"unsqueeze", test_unsqueeze},
};
DLX_TEST_MAIN(cases)
