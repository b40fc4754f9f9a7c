/* Tests for src/compute/mask.c: dlx_mask_count and dlx_mask_gather, NumPy's boolean-mask indexing.
 *
 * A random harness (fixed seed) builds strided sources (negative steps, any dimension order, packed
 * float4), masks of every rank up to the source's over strided bool memory (no true element, all true,
 * half, a few; true bytes other than 1), outs of any strides, and runs each case on the reference walk,
 * the CPU backend (one thread, and three threads with a tiny grain, so that chunk boundaries fall
 * everywhere, inside rows too), the coordinates path of a backend without a mask entry, and, in CUDA builds,
 * the CUDA kernels' host emulation (prefix sum and compaction) under two launch shapes: every run must
 * leave the same bytes in the whole out buffer, and the reference must match the element addresses the
 * mask selects. Then hand-picked promises (counts, long masks past many chunks, an out that overlaps src)
 * and every error path, each of which leaves out untouched. */
#include <stdbool.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/cpu/loops.h"
#include "compute/reference.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"
#ifdef DLX_WITH_CUDA
#include "backends/cuda/kernels.h"
#endif

static const DLDevice CPU = {kDLCPU, 0};

#define DLX_TEST_RNG_SEED 0x3a5c0ffeu
#include "rng.h"

typedef struct runner {
  const char *name;
  const dlx__compute_ops *compute; /* NULL: the CPU backend itself */
  int threads;
  int64_t grain;
  int cuda_threads, cuda_blocks; /* the emulation's launch shape (0: the default) */
} runner;

static dlx__compute_ops cpu_without_mask;
#ifdef DLX_WITH_CUDA
static dlx__compute_ops emulated_compute;
#endif

/* A buffer of random bytes and a view of it: `shape` in a random memory order, every dimension stepped
 * by +-1 or +-2 (a negative step starts at the far end) when strided. */
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
    step[d] = strided ? (rnd() % 2 ? 1 : 2) * (!packed && rnd() % 3 == 0 ? -1 : 1) : 1;
    full[d] = shape[d] == 0 ? 0 : (shape[d] - 1) * (step[d] < 0 ? -step[d] : step[d]) + 1;
    n *= (uint64_t)full[d];
    order[d] = d;
  }
  for (int32_t d = nd - 1; strided && d > 0; --d) {
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

static void next_index(const dlx_view *v, int64_t *idx) {
  for (int32_t d = v->ndim - 1; d >= 0; --d) {
    if (++idx[d] < v->shape[d]) return;
    idx[d] = 0;
  }
}

typedef struct mcase {
  arena src, mask, out;
  int64_t count;
  bool bad; /* out's first extent is not the count */
} mcase;

static const DLDataType data_dtypes[] = {DLX_DTYPE_INT8,       DLX_DTYPE_FLOAT16,  DLX_DTYPE_FLOAT32,
                                         DLX_DTYPE_FLOAT64,    DLX_DTYPE_COMPLEX128, DLX_DTYPE_FLOAT4_E2M1FN,
                                         DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 3), DLX_DTYPE_BOOL};

/* The mask's bytes: none true, all true, about half, or a few; true bytes are any nonzero value. */
static void fill_mask(arena *m) {
  const int kind = (int)(rnd() % 4);
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t e = 0; e < dlx_view_size(&m->v); ++e, next_index(&m->v, idx)) {
    void *p = NULL;
    CHECK_OK(dlx_view_element_ptr(&m->v, idx, &p));
    const bool on = kind == 1 || (kind == 2 && rnd() % 2) || (kind == 3 && rnd() % 10 == 0);
    *(unsigned char *)p = on ? (unsigned char)(rnd() % 4 == 0 ? rnd_in(2, 255) : 1) : 0;
  }
}

static void make_case(mcase *c) {
  memset(c, 0, sizeof *c);
  const DLDataType dt = data_dtypes[rnd() % (sizeof data_dtypes / sizeof data_dtypes[0])];
  const bool packed = dlx_dtype_is_subbyte(dt) && rnd() % 3 != 0;
  const int32_t nd = (int32_t)rnd_in(1, 4), k = (int32_t)rnd_in(1, nd);
  int64_t shape[DLX_MAX_NDIM];
  for (int32_t d = 0; d < nd; ++d) shape[d] = rnd() % 12 == 0 ? 0 : rnd() % 4 == 0 ? 1 : rnd_in(2, 7);
  if (rnd() % 4 == 0) shape[rnd() % (uint64_t)k] = rnd_in(40, 300); /* long rows: many chunks, inside rows */
  arena_make(&c->src, dt, packed, nd, shape, true);
  arena_make(&c->mask, DLX_DTYPE_BOOL, false, k, shape, rnd() % 2);
  fill_mask(&c->mask);
  CHECK_OK(dlx_mask_count(&c->mask.v, &c->count));
  c->bad = rnd() % 15 == 0;
  int64_t oshape[DLX_MAX_NDIM];
  oshape[0] = c->bad ? c->count + 1 : c->count;
  for (int32_t d = k; d < nd; ++d) oshape[1 + d - k] = shape[d];
  arena_make(&c->out, dt, dlx_dtype_is_subbyte(dt) && rnd() % 2, 1 + nd - k, oshape, rnd() % 2);
}

static void free_case(mcase *c) {
  free(c->src.mem);
  free(c->mask.mem);
  free(c->out.mem);
}

static dlx_status run_case(const mcase *c, const runner *r, unsigned char *wmem) {
  dlx_view ov = c->out.v;
  ov.data = wmem + ((unsigned char *)c->out.v.data - c->out.mem);
  const dlx__compute_ops *was = dlx__backend_override_host(r ? r->compute : NULL);
  if (r) dlx_set_num_threads(r->threads);
  const int64_t old_grain = dlx__ops_set_grain(r ? r->grain : 0);
#ifdef DLX_WITH_CUDA
  if (r) dlx__cuda_set_launch_shape(r->cuda_threads ? r->cuda_threads : 256, r->cuda_blocks ? r->cuda_blocks : 65536);
#endif
  const dlx_status st = dlx_mask_gather(&ov, &c->src.v, &c->mask.v);
#ifdef DLX_WITH_CUDA
  dlx__cuda_set_launch_shape(256, 65536);
#endif
  dlx__ops_set_grain(old_grain);
  dlx_set_num_threads(0);
  dlx__backend_override_host(was);
  return st;
}

/* out[j, r] against src at the j-th true coordinate of the mask (row-major), for byte-sized dtypes. */
static void check_reference(const mcase *c, const unsigned char *outmem) {
  if (dlx_dtype_is_subbyte(c->src.v.dtype) && (c->src.v.flags & DLX_VIEW_SUBBYTE_PADDED) == 0) return;
  if (dlx_dtype_is_subbyte(c->out.v.dtype) && (c->out.v.flags & DLX_VIEW_SUBBYTE_PADDED) == 0) return;
  dlx_view out = c->out.v;
  out.data = (void *)(outmem + ((unsigned char *)c->out.v.data - c->out.mem));
  const dlx_view *m = &c->mask.v;
  const int32_t k = m->ndim, rest = c->src.v.ndim - k;
  const size_t item = dlx_dtype_itemsize(out.dtype);
  int64_t mi[DLX_MAX_NDIM] = {0}, j = 0;
  for (int64_t e = 0; e < dlx_view_size(m); ++e, next_index(m, mi)) {
    void *pm = NULL;
    CHECK_OK(dlx_view_element_ptr(m, mi, &pm));
    if (*(unsigned char *)pm == 0) continue;
    int64_t ri[DLX_MAX_NDIM] = {0}, si[DLX_MAX_NDIM], oi[DLX_MAX_NDIM];
    int64_t block = 1;
    for (int32_t d = 0; d < rest; ++d) block *= c->src.v.shape[k + d];
    for (int64_t b = 0; b < block; ++b) {
      for (int32_t d = 0; d < k; ++d) si[d] = mi[d];
      oi[0] = j;
      for (int32_t d = 0; d < rest; ++d) si[k + d] = oi[1 + d] = ri[d];
      void *ps = NULL, *po = NULL;
      CHECK_OK(dlx_view_element_ptr(&c->src.v, si, &ps));
      CHECK_OK(dlx_view_element_ptr(&out, oi, &po));
      CHECK(memcmp(ps, po, item) == 0);
      for (int32_t d = rest - 1; d >= 0; --d) {
        if (++ri[d] < c->src.v.shape[k + d]) break;
        ri[d] = 0;
      }
    }
    ++j;
  }
  CHECK_EQ(j, c->count);
}

static void test_every_backend(void) {
  cpu_without_mask = dlx__cpu_compute;
  cpu_without_mask.mask_gather = NULL;
#ifdef DLX_WITH_CUDA
  emulated_compute = dlx__cpu_compute;
  emulated_compute.name = "cuda-kernels-emulated";
  emulated_compute.mask_gather = dlx__cuda_mask_gather_emulated;
#endif
  const runner runners[] = {
      {"cpu", NULL, 1, 0, 0, 0},
      {"cpu, 3 threads", NULL, 3, 2, 0, 0},
      {"cpu, 2 threads", NULL, 2, 5, 0, 0},
      {"coordinates (no mask entry)", &cpu_without_mask, 3, 2, 0, 0},
#ifdef DLX_WITH_CUDA
      {"cuda-kernels-emulated", &emulated_compute, 1, 0, 0, 0},
      {"cuda-kernels-emulated, 3 x 32", &emulated_compute, 1, 0, 32, 3},
#endif
  };
  int failures = 0, ok = 0, errors = 0;
  for (int ci = 0; ci < 800; ++ci) {
    rng_state = 0x3a5c0000u + (uint64_t)ci * 0x9e3779b97f4a7c15u;
    mcase c;
    make_case(&c);
    unsigned char *ref = malloc(c.out.bytes), *got = malloc(c.out.bytes);
    memcpy(ref, c.out.mem, c.out.bytes);
    const bool was = dlx__ops_set_reference(true);
    const dlx_status st_ref = run_case(&c, NULL, ref);
    dlx__ops_set_reference(was);
    CHECK_EQ(st_ref, c.bad ? DLX_ERR_BROADCAST : DLX_OK);
    if (st_ref == DLX_OK) {
      ++ok;
      check_reference(&c, ref);
    } else {
      ++errors;
      CHECK(memcmp(ref, c.out.mem, c.out.bytes) == 0); /* a failure writes nothing */
    }
    for (size_t r = 0; r < sizeof runners / sizeof runners[0]; ++r) {
      memcpy(got, c.out.mem, c.out.bytes);
      const dlx_status st = run_case(&c, &runners[r], got);
      if (st != st_ref || memcmp(got, ref, c.out.bytes) != 0) {
        if (++failures <= 10)
          fprintf(stderr, "  case %d (count %lld) on %s: %s (%s), reference %s\n", ci, (long long)c.count,
                  runners[r].name, dlx_status_name(st), dlx_last_error(), dlx_status_name(st_ref));
      }
    }
    free(ref);
    free(got);
    free_case(&c);
  }
  CHECK_EQ(failures, 0);
  CHECK(ok > 600);
  CHECK(errors > 20);
  printf("mask gather: %d cases ok, %d refused alike, on %d runners\n", ok, errors,
         (int)(sizeof runners / sizeof runners[0]));
}

/* ---- the promises ---------------------------------------------------------------------------------- */

/* A long mask (past the grain, so that the threads split it) against a plain loop, at 1 to 4 threads,
 * with no true element, all true, and random bytes; and the count. */
static void test_long_masks(void) {
  enum { N = 300007 };
  float *src = malloc(N * sizeof *src), *out = malloc(N * sizeof *out), *want = malloc(N * sizeof *want);
  unsigned char *mask = malloc(N);
  for (int i = 0; i < N; ++i) src[i] = (float)i * 0.5f;
  for (int kind = 0; kind < 3; ++kind) {
    int64_t n = 0;
    for (int i = 0; i < N; ++i) {
      mask[i] = (unsigned char)(kind == 0 ? 0 : kind == 1 ? 1 : (rnd() % 3 == 0 ? rnd_in(1, 255) : 0));
      if (mask[i]) want[n++] = src[i];
    }
    const int64_t len = N;
    dlx_view vs, vm, vo;
    CHECK_OK(dlx_view_init(&vs, src, DLX_DTYPE_FLOAT32, CPU, 1, &len, NULL));
    CHECK_OK(dlx_view_init(&vm, mask, DLX_DTYPE_BOOL, CPU, 1, &len, NULL));
    int64_t count = -1;
    CHECK_OK(dlx_mask_count(&vm, &count));
    CHECK_EQ(count, n);
    CHECK_OK(dlx_view_init(&vo, out, DLX_DTYPE_FLOAT32, CPU, 1, &count, NULL));
    for (int threads = 1; threads <= 4; ++threads) {
      dlx_set_num_threads(threads);
      memset(out, 0xff, N * sizeof *out);
      CHECK_OK(dlx_mask_gather(&vo, &vs, &vm));
      CHECK(memcmp(out, want, (size_t)n * sizeof *out) == 0);
      if (n < N) CHECK(((uint32_t *)out)[n] == 0xffffffffu); /* nothing past the count */
    }
    dlx_set_num_threads(0);
  }
  free(src);
  free(out);
  free(want);
  free(mask);
}

/* out overlapping src: src is read first. A 2-d mask over a (3, 4) source of rows. */
static void test_overlap_and_rows(void) {
  int32_t buf[12];
  for (int i = 0; i < 12; ++i) buf[i] = i;
  const unsigned char m[12] = {0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0};
  const int64_t s12 = 12, s34[2] = {3, 4};
  dlx_view vs, vm, vo, vm2, vs2;
  CHECK_OK(dlx_view_init(&vs, buf, DLX_DTYPE_INT32, CPU, 1, &s12, NULL));
  CHECK_OK(dlx_view_init(&vm, (void *)m, DLX_DTYPE_BOOL, CPU, 1, &s12, NULL));
  const int64_t five = 5;
  CHECK_OK(dlx_view_init(&vo, buf + 1, DLX_DTYPE_INT32, CPU, 1, &five, NULL));
  CHECK_OK(dlx_mask_gather(&vo, &vs, &vm));
  const int32_t want[12] = {0, 1, 2, 6, 7, 8, 6, 7, 8, 9, 10, 11};
  CHECK(memcmp(buf, want, sizeof buf) == 0);
  /* the rows of a (3, 4) source whose 1-d mask is true: rows 0 and 2 */
  int32_t rows[12], o[8];
  for (int i = 0; i < 12; ++i) rows[i] = 100 + i;
  const int64_t three = 3, s24[2] = {2, 4};
  const unsigned char m3[3] = {1, 0, 7};
  CHECK_OK(dlx_view_init(&vs2, rows, DLX_DTYPE_INT32, CPU, 2, s34, NULL));
  CHECK_OK(dlx_view_init(&vm2, (void *)m3, DLX_DTYPE_BOOL, CPU, 1, &three, NULL));
  CHECK_OK(dlx_view_init(&vo, o, DLX_DTYPE_INT32, CPU, 2, s24, NULL));
  CHECK_OK(dlx_mask_gather(&vo, &vs2, &vm2));
  CHECK(o[0] == 100 && o[3] == 103 && o[4] == 108 && o[7] == 111);
}

static void test_errors(void) {
  float src[4] = {1, 2, 3, 4}, out[4] = {9, 9, 9, 9};
  unsigned char m[4] = {1, 0, 1, 0};
  int32_t im[4] = {1, 0, 1, 0};
  const int64_t four = 4, two = 2, three = 3, s22[2] = {2, 2};
  dlx_view vs, vm, vo, v3, vi, vm22, vo22;
  CHECK_OK(dlx_view_init(&vs, src, DLX_DTYPE_FLOAT32, CPU, 1, &four, NULL));
  CHECK_OK(dlx_view_init(&vm, m, DLX_DTYPE_BOOL, CPU, 1, &four, NULL));
  CHECK_OK(dlx_view_init(&vo, out, DLX_DTYPE_FLOAT32, CPU, 1, &two, NULL));
  CHECK_OK(dlx_view_init(&v3, out, DLX_DTYPE_FLOAT32, CPU, 1, &three, NULL));
  CHECK_OK(dlx_view_init(&vi, im, DLX_DTYPE_INT32, CPU, 1, &four, NULL));
  CHECK_OK(dlx_view_init(&vm22, m, DLX_DTYPE_BOOL, CPU, 2, s22, NULL));
  CHECK_OK(dlx_view_init(&vo22, out, DLX_DTYPE_FLOAT32, CPU, 2, s22, NULL));
  int64_t n = 0;
  CHECK_EQ(dlx_mask_count(NULL, &n), DLX_ERR_NULL_ARGUMENT);
  CHECK_EQ(dlx_mask_count(&vm, NULL), DLX_ERR_NULL_ARGUMENT);
  CHECK_EQ(dlx_mask_count(&vi, &n), DLX_ERR_DTYPE_MISMATCH);
  CHECK_EQ(dlx_mask_gather(NULL, &vs, &vm), DLX_ERR_NULL_ARGUMENT);
  CHECK_EQ(dlx_mask_gather(&vo, NULL, &vm), DLX_ERR_NULL_ARGUMENT);
  CHECK_EQ(dlx_mask_gather(&vo, &vs, NULL), DLX_ERR_NULL_ARGUMENT);
  CHECK_EQ(dlx_mask_gather(&vo, &vs, &vi), DLX_ERR_DTYPE_MISMATCH);
  CHECK_STR(dlx_last_error(), "dlx_mask_gather: mask has dtype int32; a mask is bool");
  CHECK_EQ(dlx_mask_gather(&v3, &vs, &vm), DLX_ERR_BROADCAST); /* 2 true elements, out of 3 */
  CHECK_STR(dlx_last_error(), "dlx_mask_gather: out has extent 3 in dimension 0, but mask has 2 true elements");
  CHECK_EQ(dlx_mask_gather(&vo, &vs, &vm22), DLX_ERR_BROADCAST); /* (2, 2) over a source of (4,) */
  CHECK_EQ(dlx_mask_gather(&vo22, &vs, &vm), DLX_ERR_BROADCAST); /* out of rank 2 for a rank-1 result */
  dlx_view vd = vo;
  vd.dtype = DLX_DTYPE_INT32;
  CHECK_EQ(dlx_mask_gather(&vd, &vs, &vm), DLX_ERR_DTYPE_MISMATCH);
  vd = vo;
  vd.flags |= DLX_VIEW_READ_ONLY;
  CHECK_EQ(dlx_mask_gather(&vd, &vs, &vm), DLX_ERR_READ_ONLY);
  vd = vm;
  vd.device = (DLDevice){kDLCUDA, 0};
  CHECK(dlx_mask_gather(&vo, &vs, &vd) != DLX_OK);
  dlx_view v0;
  CHECK_OK(dlx_view_init(&v0, m, DLX_DTYPE_BOOL, CPU, 0, NULL, NULL));
  CHECK_EQ(dlx_mask_gather(&vo, &vs, &v0), DLX_ERR_RANK);
  const float want[4] = {9, 9, 9, 9};
  CHECK(memcmp(out, want, sizeof out) == 0);
}

static const dlx_test_case tests[] = {
    {"every_backend", test_every_backend},
    {"long_masks", test_long_masks},
    {"overlap_and_rows", test_overlap_and_rows},
    {"errors", test_errors},
};

DLX_TEST_MAIN(tests)
