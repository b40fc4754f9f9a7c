/* Tests for src/compute/gather.c: dlx_gather and dlx_scatter, NumPy's integer-array indexing.
 *
 * A random harness (fixed seed) builds strided sources (negative steps, any dimension order, packed
 * float4), index views of every integer dtype broadcasting to an index shape, and runs each case on the
 * reference walk, the CPU backend (one thread, and three threads with a tiny grain), the default of the
 * device interface (one copy per index position through execute, the path of a backend without a gather
 * entry) and, in CUDA builds, the CUDA kernels' host emulation: every run must leave the same bytes in the
 * whole written buffer, and the reference must match the element addresses the indices select. Then the
 * promises of dlx/ops.h on hand-picked cases (repeats in a scatter, overlap, uint64 indices of 2^63 and
 * more) and every error path, each of which leaves the output untouched. */
#include <stdbool.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/cpu/loops.h"
#include "compute/reference.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#include "dlx/viewops.h"
#ifdef DLX_WITH_CUDA
#include "backends/cuda/kernels.h"
#endif

static const DLDevice CPU = {kDLCPU, 0};

#define DLX_TEST_RNG_SEED 0x9a7e5eedu
#include "rng.h"

static bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* ---- the backends a case runs on ------------------------------------------------------------------- */

/* The CPU's halves without their gather entry (the device interface's default takes over), and with the
 * CUDA kernels' host emulation in place of the CPU's loops (set up by test_every_backend). */
static dlx__compute_ops cpu_without_gather;
#ifdef DLX_WITH_CUDA
static dlx__compute_ops emulated_compute;
#endif

typedef struct runner {
  const char *name;
  const dlx__compute_ops *compute; /* NULL: the CPU backend itself */
  int threads;
  int64_t grain;
} runner;

/* ---- one random case ------------------------------------------------------------------------------- */

/* A buffer and a view of it: `full` extents in a random memory order, then every dimension stepped by
 * +-1 or +-2 (a negative step starts at the far end). */
typedef struct arena {
  unsigned char *mem;
  size_t bytes;
  dlx_view v;
} arena;

static void arena_make(arena *a, DLDataType dt, bool packed, int32_t nd, const int64_t *shape, bool strided) {
  int64_t full[DLX_MAX_NDIM], step[DLX_MAX_NDIM], stride[DLX_MAX_NDIM];
  int32_t order[DLX_MAX_NDIM];
  uint64_t n = 1;
  for (int32_t d = 0; d < nd; ++d) {
    /* packed data is addressed from a byte that holds element 0: no reversed dimension there */
    step[d] = strided ? (rnd() % 2 ? 1 : 2) * (!packed && rnd() % 3 == 0 ? -1 : 1) : 1;
    full[d] = shape[d] == 0 ? 0 : (shape[d] - 1) * (step[d] < 0 ? -step[d] : step[d]) + 1;
    n *= (uint64_t)full[d];
    order[d] = d;
  }
  for (int32_t d = nd - 1; strided && d > 0; --d) { /* a random memory order */
    const int32_t j = (int32_t)(rnd() % (uint64_t)(d + 1)), t = order[d];
    order[d] = order[j];
    order[j] = t;
  }
  CHECK_OK(dlx_layout_compact_strides(nd, full, order, stride));
  uint64_t bytes = 0;
  CHECK_OK(dlx_dtype_storage_bytes(dt, n, !packed, &bytes));
  a->bytes = (size_t)bytes + 16;
  a->mem = malloc(a->bytes);
  for (size_t i = 0; i < a->bytes; ++i) a->mem[i] = (unsigned char)rnd();
  int64_t st[DLX_MAX_NDIM], off = 0;
  for (int32_t d = 0; d < nd; ++d) {
    st[d] = stride[d] * step[d];
    if (step[d] < 0 && shape[d] > 0) off += (full[d] - 1) * stride[d];
  }
  const int64_t item = packed ? 0 : (int64_t)dlx_dtype_itemsize(dt);
  CHECK_OK(dlx_view_init(&a->v, a->mem + off * item, dt, CPU, nd, shape, st));
  if (!packed && dlx_dtype_is_subbyte(dt)) a->v.flags |= DLX_VIEW_SUBBYTE_PADDED;
}

typedef struct gcase {
  bool scatter, bad;
  int32_t n;
  arena data;  /* src, or dst */
  arena dense; /* out, or value */
  arena idx[4];
  const dlx_view *ip[4];
} gcase;

static const DLDataType idx_dtypes[] = {DLX_DTYPE_INT8,  DLX_DTYPE_UINT8, DLX_DTYPE_INT16,
                                        DLX_DTYPE_INT32, DLX_DTYPE_INT64, DLX_DTYPE_UINT64};

/* Index view k: a shape that broadcasts to B (dimensions dropped from the front, some set to 1), values in
 * [-extent, extent) (unsigned: [0, extent)), one out of range when the case is bad. */
static void make_index(gcase *g, int32_t k, int32_t nb, const int64_t *bshape, int64_t extent) {
  const DLDataType dt = idx_dtypes[rnd() % (sizeof idx_dtypes / sizeof idx_dtypes[0])];
  const int32_t drop = (int32_t)(rnd() % (uint64_t)(nb + 1));
  int64_t shape[DLX_MAX_NDIM];
  for (int32_t j = drop; j < nb; ++j) shape[j - drop] = rnd() % 4 == 0 ? 1 : bshape[j];
  arena *a = &g->idx[k];
  arena_make(a, dt, false, nb - drop, shape, rnd() % 2);
  const int64_t cnt = dlx_view_size(&a->v);
  const bool is_signed = dt.code == DLX_CODE_INT;
  const int64_t lim = dt.bits == 8 ? (extent < 127 ? extent : 127) : extent;
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t e = 0; e < cnt; ++e) {
    int64_t v = extent == 0 ? 0 : rnd_in(is_signed ? -lim : 0, lim - 1);
    if (g->bad && e == cnt - 1) v = rnd() % 2 && is_signed ? -extent - 1 : extent;
    void *p = NULL;
    CHECK_OK(dlx_view_element_ptr(&a->v, idx, &p));
    memcpy(p, &v, dt.bits / 8); /* little-endian: the low bytes */
    for (int32_t d = a->v.ndim - 1; d >= 0; --d) {
      if (++idx[d] < a->v.shape[d]) break;
      idx[d] = 0;
    }
  }
  g->ip[k] = &a->v;
}

static const DLDataType data_dtypes[] = {DLX_DTYPE_INT8,       DLX_DTYPE_FLOAT16,     DLX_DTYPE_FLOAT32,
                                         DLX_DTYPE_FLOAT64,    DLX_DTYPE_COMPLEX128,  DLX_DTYPE_FLOAT4_E2M1FN,
                                         DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 3), DLX_DTYPE_BOOL};

static void make_case(gcase *g) {
  memset(g, 0, sizeof *g);
  g->scatter = rnd() % 2;
  const DLDataType dt = data_dtypes[rnd() % (sizeof data_dtypes / sizeof data_dtypes[0])];
  const bool packed = dlx_dtype_is_subbyte(dt) && rnd() % 3 != 0;
  int32_t nd = (int32_t)rnd_in(1, 4);
  int64_t shape[DLX_MAX_NDIM];
  for (int32_t d = 0; d < nd; ++d) shape[d] = rnd() % 10 == 0 ? 0 : rnd_in(1, 5);
  g->n = (int32_t)rnd_in(1, nd < 3 ? nd : 3);
  /* a case with an empty indexed extent has no valid index: it is an error case unless B is empty too */
  g->bad = rnd() % 12 == 0;
  arena_make(&g->data, dt, packed, nd, shape, true);
  const int32_t nb = (int32_t)rnd_in(0, 2);
  int64_t bshape[DLX_MAX_NDIM];
  for (int32_t j = 0; j < nb; ++j) bshape[j] = rnd() % 8 == 0 ? 0 : rnd_in(1, 4);
  for (int32_t k = 0; k < g->n; ++k) {
    if (shape[k] == 0) g->bad = true;
    make_index(g, k, nb, bshape, shape[k]);
  }
  /* the index shape the views make (some dropped dimensions, some extents of 1) */
  int32_t ndims[4], bnd = 0;
  const int64_t *shapes[4];
  for (int32_t k = 0; k < g->n; ++k) {
    ndims[k] = g->ip[k]->ndim;
    shapes[k] = g->ip[k]->shape;
  }
  int64_t dshape[DLX_MAX_NDIM];
  CHECK_OK(dlx_broadcast_shapes(g->n, ndims, shapes, &bnd, dshape));
  for (int32_t d = g->n; d < nd; ++d) dshape[bnd + d - g->n] = shape[d];
  int32_t dnd = bnd + nd - g->n;
  /* a scatter's value may leave out leading dimensions (broadcast) */
  const int32_t skip = g->scatter ? (int32_t)(rnd() % (uint64_t)(dnd + 1)) : 0;
  arena_make(&g->dense, dt, dlx_dtype_is_subbyte(dt) && rnd() % 2, dnd - skip, dshape + skip, rnd() % 2);
}

static void free_case(gcase *g) {
  free(g->data.mem);
  free(g->dense.mem);
  for (int32_t k = 0; k < g->n; ++k) free(g->idx[k].mem);
}

static dlx_status run_case(const gcase *g, const runner *r, unsigned char *wmem) {
  /* the written buffer is a copy: rebase its view onto wmem */
  const arena *w = g->scatter ? &g->data : &g->dense;
  dlx_view wv = w->v;
  wv.data = wmem + ((unsigned char *)w->v.data - w->mem);
  const dlx__compute_ops *was = dlx__backend_override_host(r ? r->compute : NULL);
  if (r) dlx_set_num_threads(r->threads);
  const int64_t old_grain = dlx__ops_set_grain(r ? r->grain : 0);
  const dlx_status st = g->scatter ? dlx_scatter(&wv, g->n, g->ip, &g->dense.v) : dlx_gather(&wv, &g->data.v, g->n, g->ip);
  dlx__ops_set_grain(old_grain);
  dlx_set_num_threads(0);
  dlx__backend_override_host(was);
  return st;
}

/* The reference gather against the element addresses its indices select (byte-sized dtypes): out[b, r] is
 * src[i_0[b], ..., i_{n-1}[b], r]. */
static void check_reference(const gcase *g, const unsigned char *outmem) {
  if (g->scatter || is_packed(&g->data.v) || is_packed(&g->dense.v)) return;
  const dlx_view *o = &g->dense.v;
  dlx_view out = *o;
  out.data = (void *)(outmem + ((unsigned char *)o->data - g->dense.mem));
  const int32_t nb = o->ndim - (g->data.v.ndim - g->n);
  const size_t item = dlx_dtype_itemsize(o->dtype);
  int64_t idx[DLX_MAX_NDIM] = {0}, sidx[DLX_MAX_NDIM];
  for (int64_t e = 0; e < dlx_view_size(o); ++e) {
    for (int32_t k = 0; k < g->n; ++k) { /* index k at position b, broadcast (right-aligned) */
      const dlx_view *iv = g->ip[k];
      int64_t ii[DLX_MAX_NDIM];
      for (int32_t j = 0; j < iv->ndim; ++j) ii[j] = iv->shape[j] == 1 ? 0 : idx[nb - iv->ndim + j];
      void *p = NULL;
      CHECK_OK(dlx_view_element_ptr(iv, ii, &p));
      int64_t v = 0;
      memcpy(&v, p, iv->dtype.bits / 8);
      if (iv->dtype.code == DLX_CODE_INT && iv->dtype.bits < 64 && (v >> (iv->dtype.bits - 1)) & 1)
        v -= (int64_t)1 << iv->dtype.bits; /* sign-extend */
      sidx[k] = v < 0 ? v + g->data.v.shape[k] : v;
    }
    for (int32_t d = g->n; d < g->data.v.ndim; ++d) sidx[d] = idx[nb + d - g->n];
    void *ps = NULL, *po = NULL;
    CHECK_OK(dlx_view_element_ptr(&g->data.v, sidx, &ps));
    CHECK_OK(dlx_view_element_ptr(&out, idx, &po));
    CHECK(memcmp(ps, po, item) == 0);
    for (int32_t d = o->ndim - 1; d >= 0; --d) {
      if (++idx[d] < o->shape[d]) break;
      idx[d] = 0;
    }
  }
}

static void test_every_backend(void) {
  cpu_without_gather = dlx__cpu_compute;
  cpu_without_gather.gather = NULL;
  cpu_without_gather.ordered = false;
#ifdef DLX_WITH_CUDA
  emulated_compute = dlx__cpu_compute;
  emulated_compute.name = "cuda-kernels-emulated";
  emulated_compute.execute = dlx__cuda_execute_emulated;
  emulated_compute.unpack = dlx__cuda_unpack_emulated;
  emulated_compute.pack = dlx__cuda_pack_emulated;
  emulated_compute.gather = dlx__cuda_gather_emulated;
  emulated_compute.ordered = false; /* the kernels take repeats marked, as the CUDA backend does */
#endif
  const runner runners[] = {
      {"cpu", NULL, 1, 0},
      {"cpu, 3 threads", NULL, 3, 2},
      {"default (copies through execute)", &cpu_without_gather, 1, 0},
#ifdef DLX_WITH_CUDA
      {"cuda-kernels-emulated", &emulated_compute, 1, 0},
#endif
  };
  int failures = 0, ok = 0, errors = 0;
  for (int ci = 0; ci < 600; ++ci) {
    rng_state = 0x6a7e0000u + (uint64_t)ci * 0x9e3779b97f4a7c15u;
    gcase g;
    make_case(&g);
    const arena *w = g.scatter ? &g.data : &g.dense;
    unsigned char *ref = malloc(w->bytes), *got = malloc(w->bytes);
    memcpy(ref, w->mem, w->bytes);
    const bool was = dlx__ops_set_reference(true);
    const dlx_status st_ref = run_case(&g, NULL, ref);
    dlx__ops_set_reference(was);
    if (st_ref == DLX_OK) {
      ++ok;
      check_reference(&g, ref);
    } else {
      ++errors;
      /* a failure writes nothing */
      CHECK(memcmp(ref, w->mem, w->bytes) == 0);
    }
    for (size_t r = 0; r < sizeof runners / sizeof runners[0]; ++r) {
      memcpy(got, w->mem, w->bytes);
      const dlx_status st = run_case(&g, &runners[r], got);
      if (st != st_ref || memcmp(got, ref, w->bytes) != 0) {
        if (++failures <= 10)
          fprintf(stderr, "  case %d (%s, n %d) on %s: %s (%s), reference %s\n", ci, g.scatter ? "scatter" : "gather",
                  (int)g.n, runners[r].name, dlx_status_name(st), dlx_last_error(), dlx_status_name(st_ref));
      }
    }
    free(ref);
    free(got);
    free_case(&g);
  }
  CHECK_EQ(failures, 0);
  /* both kinds of case came up */
  CHECK(ok > 300);
  CHECK(errors > 20);
  printf("gather/scatter: %d cases ok, %d refused alike, on %d runners\n", ok, errors,
         (int)(sizeof runners / sizeof runners[0]));
}

/* ---- the promises ---------------------------------------------------------------------------------- */

static void view1(dlx_view *v, void *data, DLDataType dt, int64_t n) { CHECK_OK(dlx_view_init(v, data, dt, CPU, 1, &n, NULL)); }

static void test_gather_basics(void) {
  /* a (3, 4) float32 source, rows picked by [2, -3, 2]: shape (3, 4), as NumPy's a[[2, -3, 2]] */
  float src[12], out[12];
  for (int i = 0; i < 12; ++i) src[i] = (float)i;
  int64_t s34[2] = {3, 4};
  dlx_view vs, vo, vi;
  CHECK_OK(dlx_view_init(&vs, src, DLX_DTYPE_FLOAT32, CPU, 2, s34, NULL));
  CHECK_OK(dlx_view_init(&vo, out, DLX_DTYPE_FLOAT32, CPU, 2, s34, NULL));
  int16_t rows[3] = {2, -3, 2};
  view1(&vi, rows, DLX_DTYPE_INT16, 3);
  const dlx_view *ip[1] = {&vi};
  CHECK_OK(dlx_gather(&vo, &vs, 1, ip));
  const float want[12] = {8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11};
  CHECK(memcmp(out, want, sizeof want) == 0);
  /* two indices broadcast: a[[[0], [2]], [1, 3]] -> (2, 2) */
  int64_t r2[2] = {0, 2}, c2[2] = {1, 3}, b21[2] = {2, 1};
  dlx_view vr, vc, vo2;
  CHECK_OK(dlx_view_init(&vr, r2, DLX_DTYPE_INT64, CPU, 2, b21, NULL));
  view1(&vc, c2, DLX_DTYPE_INT64, 2);
  int64_t s22[2] = {2, 2};
  CHECK_OK(dlx_view_init(&vo2, out, DLX_DTYPE_FLOAT32, CPU, 2, s22, NULL));
  const dlx_view *ip2[2] = {&vr, &vc};
  CHECK_OK(dlx_gather(&vo2, &vs, 2, ip2));
  CHECK(out[0] == 1 && out[1] == 3 && out[2] == 9 && out[3] == 11);
  /* a 0-d index drops the dimension: a[1] as a gather is shape (4,) */
  int64_t one = 1;
  dlx_view v0, vo4;
  CHECK_OK(dlx_view_init(&v0, &one, DLX_DTYPE_INT64, CPU, 0, NULL, NULL));
  view1(&vo4, out, DLX_DTYPE_FLOAT32, 4);
  const dlx_view *ip0[1] = {&v0};
  CHECK_OK(dlx_gather(&vo4, &vs, 1, ip0));
  CHECK(out[0] == 4 && out[3] == 7);
  /* empty index: nothing to do, still checked */
  dlx_view ve, voe;
  view1(&ve, rows, DLX_DTYPE_INT16, 0);
  int64_t s04[2] = {0, 4};
  CHECK_OK(dlx_view_init(&voe, out, DLX_DTYPE_FLOAT32, CPU, 2, s04, NULL));
  const dlx_view *ipe[1] = {&ve};
  CHECK_OK(dlx_gather(&voe, &vs, 1, ipe));
}

static void test_scatter_repeats_last_wins(void) {
  int32_t dst[4] = {0, 0, 0, 0};
  /* positions 0, 1, 3 select element 1: the last of them (position 3) wins; position 2 selects 3 */
  uint8_t idx[4] = {1, 1, 3, 1};
  int32_t val[4] = {10, 20, 30, 40};
  dlx_view vd, vi, vv;
  view1(&vd, dst, DLX_DTYPE_INT32, 4);
  view1(&vi, idx, DLX_DTYPE_UINT8, 4);
  view1(&vv, val, DLX_DTYPE_INT32, 4);
  const dlx_view *ip[1] = {&vi};
  for (int threads = 1; threads <= 3; threads += 2) {
    dlx_set_num_threads(threads);
    memset(dst, 0, sizeof dst);
    CHECK_OK(dlx_scatter(&vd, 1, ip, &vv));
    CHECK(dst[0] == 0 && dst[1] == 40 && dst[2] == 0 && dst[3] == 30);
  }
  dlx_set_num_threads(0);
  /* a scalar value broadcast to every position */
  int32_t seven = 7;
  dlx_view vs;
  CHECK_OK(dlx_view_init(&vs, &seven, DLX_DTYPE_INT32, CPU, 0, NULL, NULL));
  CHECK_OK(dlx_scatter(&vd, 1, ip, &vs));
  CHECK(dst[1] == 7 && dst[3] == 7 && dst[0] == 0);
  /* both ways of finding repeats: a bitmap over the blocks (few blocks for the positions), and a sort of
   * the positions (few positions into many blocks: here 3000 x 3000, past the bitmap's 2^23), each with
   * and without threads */
  enum { SIDE = 3000 };
  static uint8_t big[SIDE * SIDE];
  int64_t s2[2] = {SIDE, SIDE}, n5[1] = {5};
  const int64_t rows[5] = {7, SIDE - 1, 7, 0, 7}, cols[5] = {3, SIDE - 1, 3, 0, 3}; /* (7, 3) three times */
  const uint8_t v5[5] = {10, 20, 30, 40, 50};
  uint8_t u7 = 7;
  dlx_view vb, vr, vc, v5v, vu7;
  CHECK_OK(dlx_view_init(&vb, big, DLX_DTYPE_UINT8, CPU, 2, s2, NULL));
  CHECK_OK(dlx_view_init(&vr, (void *)rows, DLX_DTYPE_INT64, CPU, 1, n5, NULL));
  CHECK_OK(dlx_view_init(&vc, (void *)cols, DLX_DTYPE_INT64, CPU, 1, n5, NULL));
  CHECK_OK(dlx_view_init(&v5v, (void *)v5, DLX_DTYPE_UINT8, CPU, 1, n5, NULL));
  CHECK_OK(dlx_view_init(&vu7, &u7, DLX_DTYPE_UINT8, CPU, 0, NULL, NULL));
  const dlx_view *ip2[2] = {&vr, &vc}, *ip1[1] = {&vr};
  for (int threads = 1; threads <= 3; threads += 2) {
    dlx_set_num_threads(threads);
    memset(big, 0, sizeof big);
    CHECK_OK(dlx_scatter(&vb, 2, ip2, &v5v)); /* 9e6 blocks for 5 positions: sorted; the last (7, 3) wins */
    CHECK(big[7 * SIDE + 3] == 50 && big[(SIDE - 1) * SIDE + SIDE - 1] == 20 && big[0] == 40);
    memset(big, 0, sizeof big);
    CHECK_OK(dlx_scatter(&vb, 1, ip1, &vu7)); /* 3000 row blocks: the bitmap; 7 broadcast to the rows */
    CHECK(big[7 * SIDE + 123] == 7 && big[(SIDE - 1) * SIDE] == 7 && big[0] == 7 && big[SIDE] == 0);
  }
  dlx_set_num_threads(0);
}

static void test_overlap(void) {
  /* gather out of a buffer into its own upper half: the source is read before out is written */
  int32_t buf[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int64_t idx[4] = {3, 2, 1, 0};
  dlx_view vs, vo, vi;
  view1(&vs, buf, DLX_DTYPE_INT32, 8);
  view1(&vo, buf + 2, DLX_DTYPE_INT32, 4);
  view1(&vi, idx, DLX_DTYPE_INT64, 4);
  const dlx_view *ip[1] = {&vi};
  CHECK_OK(dlx_gather(&vo, &vs, 1, ip));
  const int32_t want[8] = {0, 1, 3, 2, 1, 0, 6, 7};
  CHECK(memcmp(buf, want, sizeof want) == 0);
  /* scatter a view of the destination into it: the value is read before anything is written */
  int32_t d[4] = {1, 2, 3, 4};
  int64_t rev[4] = {3, 2, 1, 0};
  dlx_view vd, vr;
  view1(&vd, d, DLX_DTYPE_INT32, 4);
  view1(&vr, rev, DLX_DTYPE_INT64, 4);
  const dlx_view *ipr[1] = {&vr};
  CHECK_OK(dlx_scatter(&vd, 1, ipr, &vd));
  CHECK(d[0] == 4 && d[1] == 3 && d[2] == 2 && d[3] == 1);
}

static void test_packed(void) {
  /* float4_e2m1fn packed two codes per byte: codes 0..7 picked in reverse */
  unsigned char src[4] = {0x10, 0x32, 0x54, 0x76}, out[4] = {0};
  int64_t idx[8] = {7, 6, 5, 4, 3, 2, 1, 0};
  dlx_view vs, vo, vi;
  view1(&vs, src, DLX_DTYPE_FLOAT4_E2M1FN, 8);
  view1(&vo, out, DLX_DTYPE_FLOAT4_E2M1FN, 8);
  view1(&vi, idx, DLX_DTYPE_INT64, 8);
  const dlx_view *ip[1] = {&vi};
  CHECK_OK(dlx_gather(&vo, &vs, 1, ip));
  CHECK(out[0] == 0x67 && out[1] == 0x45 && out[2] == 0x23 && out[3] == 0x01);
  /* scatter into three of the codes; the others keep theirs */
  int64_t pos[3] = {1, 4, 7};
  unsigned char val[2] = {0xff, 0x0f};
  dlx_view vp, vv;
  view1(&vp, pos, DLX_DTYPE_INT64, 3);
  view1(&vv, val, DLX_DTYPE_FLOAT4_E2M1FN, 3);
  const dlx_view *ipp[1] = {&vp};
  CHECK_OK(dlx_scatter(&vs, 1, ipp, &vv));
  CHECK(src[0] == 0xf0 && src[1] == 0x32 && src[2] == 0x5f && src[3] == 0xf6);
}

/* Each failure leaves out (or dst) untouched. */
static void test_errors(void) {
  float src[6] = {0, 1, 2, 3, 4, 5}, out[6] = {9, 9, 9, 9, 9, 9};
  const float fresh[6] = {9, 9, 9, 9, 9, 9};
  int64_t s23[2] = {2, 3};
  dlx_view vs, vo, vi, vf;
  CHECK_OK(dlx_view_init(&vs, src, DLX_DTYPE_FLOAT32, CPU, 2, s23, NULL));
  CHECK_OK(dlx_view_init(&vo, out, DLX_DTYPE_FLOAT32, CPU, 2, s23, NULL));
  int64_t ok_idx[2] = {1, 0}, bad_idx[2] = {0, 2}, neg_idx[2] = {-3, 0};
  view1(&vi, ok_idx, DLX_DTYPE_INT64, 2);
  const dlx_view *ip[1] = {&vi};
  CHECK_EQ(dlx_gather(NULL, &vs, 1, ip), DLX_ERR_NULL_ARGUMENT);
  CHECK_EQ(dlx_gather(&vo, &vs, 1, NULL), DLX_ERR_NULL_ARGUMENT);
  const dlx_view *ipnull[1] = {NULL};
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ipnull), DLX_ERR_NULL_ARGUMENT);
  CHECK_EQ(dlx_gather(&vo, &vs, 0, ip), DLX_ERR_INVALID_ARGUMENT);
  CHECK_EQ(dlx_gather(&vo, &vs, 3, ip), DLX_ERR_INVALID_ARGUMENT);
  CHECK(strstr(dlx_last_error(), "3 indices for src of ndim 2") != NULL);
  /* index dtypes: integers only */
  view1(&vf, src, DLX_DTYPE_FLOAT32, 2);
  const dlx_view *ipf[1] = {&vf};
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ipf), DLX_ERR_DTYPE_MISMATCH);
  CHECK(strstr(dlx_last_error(), "index 0 has dtype float32") != NULL);
  vf.dtype = DLX_DTYPE_BOOL;
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ipf), DLX_ERR_DTYPE_MISMATCH);
  /* out of range, both ways, and uint64 past int64: nothing written */
  view1(&vi, bad_idx, DLX_DTYPE_INT64, 2);
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ip), DLX_ERR_INDEX);
  CHECK_STR(dlx_last_error(), "dlx_gather: index 2 is out of bounds for dimension 0 with extent 2");
  view1(&vi, neg_idx, DLX_DTYPE_INT64, 2);
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ip), DLX_ERR_INDEX);
  CHECK(strstr(dlx_last_error(), "index -3 is out of bounds") != NULL);
  uint64_t huge[2] = {0, UINT64_MAX};
  view1(&vi, huge, DLX_DTYPE_UINT64, 2);
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ip), DLX_ERR_INDEX);
  CHECK(strstr(dlx_last_error(), "index 18446744073709551615 is out of bounds") != NULL);
  CHECK(memcmp(out, fresh, sizeof out) == 0);
  /* indices that do not broadcast */
  int64_t three[3] = {0, 1, 0};
  dlx_view va, vb;
  view1(&va, ok_idx, DLX_DTYPE_INT64, 2);
  view1(&vb, three, DLX_DTYPE_INT64, 3);
  const dlx_view *ipab[2] = {&va, &vb};
  CHECK_EQ(dlx_gather(&vo, &vs, 2, ipab), DLX_ERR_BROADCAST);
  /* out: shape, dtype, read-only, broadcast, device */
  view1(&vi, ok_idx, DLX_DTYPE_INT64, 2);
  dlx_view w = vo;
  w.shape[1] = 2;
  CHECK_EQ(dlx_gather(&w, &vs, 1, ip), DLX_ERR_BROADCAST);
  CHECK(strstr(dlx_last_error(), "out has shape (2,2), but the indexed shape is (2,3)") != NULL);
  w = vo;
  w.dtype = DLX_DTYPE_INT32;
  CHECK_EQ(dlx_gather(&w, &vs, 1, ip), DLX_ERR_DTYPE_MISMATCH);
  w = vo;
  w.flags |= DLX_VIEW_READ_ONLY;
  CHECK_EQ(dlx_gather(&w, &vs, 1, ip), DLX_ERR_READ_ONLY);
  w = vo;
  w.strides[0] = 0;
  CHECK_EQ(dlx_gather(&w, &vs, 1, ip), DLX_ERR_BAD_STRIDE);
  w = vo;
  w.device = (DLDevice){kDLROCM, 0};
  CHECK_EQ(dlx_gather(&w, &vs, 1, ip), DLX_ERR_DEVICE_MISMATCH);
  w = vi;
  w.device = (DLDevice){kDLCUDA, 0};
  const dlx_view *ipd[1] = {&w};
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ipd), DLX_ERR_DEVICE_MISMATCH);
  /* more than DLX_MAX_NDIM dimensions in the result */
  int64_t z = 0, big_shape[DLX_MAX_NDIM], zero_st[DLX_MAX_NDIM] = {0};
  for (int j = 0; j < DLX_MAX_NDIM; ++j) big_shape[j] = 1;
  dlx_view vbig;
  CHECK_OK(dlx_view_init(&vbig, &z, DLX_DTYPE_INT64, CPU, DLX_MAX_NDIM, big_shape, zero_st));
  const dlx_view *ipbig[1] = {&vbig};
  CHECK_EQ(dlx_gather(&vo, &vs, 1, ipbig), DLX_ERR_RANK);
  /* an index shape of more than 2^63 positions */
  int64_t h1[2] = {INT64_C(1) << 40, 1}, h2[2] = {1, INT64_C(1) << 40}, st0[2] = {0, 0};
  dlx_view vh1, vh2;
  CHECK_OK(dlx_view_init(&vh1, &z, DLX_DTYPE_INT64, CPU, 2, h1, st0));
  CHECK_OK(dlx_view_init(&vh2, &z, DLX_DTYPE_INT64, CPU, 2, h2, st0));
  const dlx_view *iph[2] = {&vh1, &vh2};
  CHECK_EQ(dlx_gather(&vo, &vs, 2, iph), DLX_ERR_OVERFLOW);
  CHECK(memcmp(out, fresh, sizeof out) == 0);
  /* scatter: a value that does not broadcast, a dst that is read-only */
  float v4[4] = {0};
  dlx_view vv;
  view1(&vv, v4, DLX_DTYPE_FLOAT32, 4);
  CHECK_EQ(dlx_scatter(&vo, 1, ip, &vv), DLX_ERR_BROADCAST);
  CHECK(strstr(dlx_last_error(), "value of shape (4) does not broadcast to the indexed shape (2,3)") != NULL);
  w = vo;
  w.flags |= DLX_VIEW_READ_ONLY;
  CHECK_EQ(dlx_scatter(&w, 1, ip, &vs), DLX_ERR_READ_ONLY);
  view1(&vi, bad_idx, DLX_DTYPE_INT64, 2);
  CHECK_EQ(dlx_scatter(&vo, 1, ip, &vs), DLX_ERR_INDEX);
  CHECK(memcmp(out, fresh, sizeof out) == 0);
}

static const dlx_test_case tests[] = {
    {"every_backend", test_every_backend},
    {"gather_basics", test_gather_basics},
    {"scatter_repeats_last_wins", test_scatter_repeats_last_wins},
    {"overlap", test_overlap},
    {"packed", test_packed},
    {"errors", test_errors},
};

DLX_TEST_MAIN(tests)
