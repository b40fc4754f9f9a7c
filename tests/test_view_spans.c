/* Tests for the span rule that dlx_view_init, dlx_view_init_extents, dlx_view_to_dltensor and
 * dlx_view_from_dltensor share (src/core/view_internal.h; issue 12): a view init accepts exports and
 * imports back, a view init refuses the import refuses with the same status, and the export refuses a
 * hand-filled view that init would refuse (its fast screen never changes an answer). */
#include <stdbool.h>
#include <stdint.h>

#include "dlx/cuda.h"
#include "dlx/view.h"
#include "runner.h"

#define V13 DLX_DLPACK_VERSION_NUM(1, 3)

static const DLDevice cpu = {kDLCPU, 0};

/* What the import requires when it checks only what init checks: any dtype, rank, memory space and
 * strides, any alignment. NULL strides of init mean row-major, as they do in a DLPack < 1.2 tensor. */
static dlx_import_spec permissive(bool legacy) {
  dlx_import_spec s = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY,
                       legacy ? DLX_DLPACK_VERSION_LEGACY : V13, 1};
  return s;
}

static dlx_status import_raw(void *data, DLDataType dt, DLDevice dev, int32_t nd, int64_t *shape, int64_t *strides,
                             dlx_view *out) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data, t.device = dev, t.ndim = nd, t.dtype = dt, t.shape = shape, t.strides = strides;
  dlx_import_spec s = permissive(strides == NULL);
  return dlx_view_from_dltensor(out, &t, &s);
}

/* A dlx_view filled by hand, as a C caller may: no check at all. */
static dlx_view by_hand(void *data, DLDataType dt, DLDevice dev, int32_t nd, const int64_t *shape,
                        const int64_t *strides) {
  dlx_view v;
  memset(&v, 0, sizeof v);
  v.data = data, v.dtype = dt, v.device = dev, v.ndim = nd;
  for (int32_t i = 0; i < nd; ++i) v.shape[i] = shape[i], v.strides[i] = strides[i];
  return v;
}

/* ------------------------------------------------------------------------------------------------ */

/* Issue 12: a stride of INT64_MIN was accepted, exported, and then refused by dlx's own import. */
static void test_init_refuses_span_overflow(void) {
  static float buf[4];
  dlx_view v;
  int64_t shape[2] = {2, 3}, strides[2] = {INT64_MIN, 1};
  CHECK_FAIL(dlx_view_init(&v, buf, DLX_DTYPE_FLOAT32, cpu, 2, shape, strides), DLX_ERR_OVERFLOW,
             "byte span overflows int64 at shape[0] = 2, strides[0] = -9223372036854775808 (4 bytes per item)");
  /* the import says the same */
  dlx_view w;
  CHECK_FAIL(import_raw(buf, DLX_DTYPE_FLOAT32, cpu, 2, shape, strides, &w), DLX_ERR_OVERFLOW,
             "strides[0] = -9223372036854775808");
  /* the dimension named is the one where the span stops fitting, not the first */
  int64_t shape3[3] = {4, 3, 1 << 20}, strides3[3] = {1, INT64_C(1) << 60, 1};
  CHECK_FAIL(dlx_view_init(&v, buf, DLX_DTYPE_FLOAT32, cpu, 3, shape3, strides3), DLX_ERR_OVERFLOW,
             "at shape[1] = 3, strides[1] = 1152921504606846976");
  /* the largest span that fits, and one byte more: (count - 1) * stride + 1 items of 1 byte */
  int64_t s1[1] = {2}, st_max[1] = {INT64_MAX - 1}, st_over[1] = {INT64_MAX};
  CHECK_OK(dlx_view_init(&v, (void *)(uintptr_t)0x1000, DLX_DTYPE_INT8, cpu, 1, s1, st_max));
  CHECK_FAIL(dlx_view_init(&v, (void *)(uintptr_t)0x1000, DLX_DTYPE_INT8, cpu, 1, s1, st_over), DLX_ERR_OVERFLOW,
             "(1 bytes per item)");
  /* a packed sub-byte span is counted in bits: 2^60 float4 elements are 2^62 bits, 2^61 are 2^63 */
  int64_t e60[1] = {INT64_C(1) << 60}, e61[1] = {INT64_C(1) << 61};
  CHECK_OK(dlx_view_init(&v, buf, DLX_DTYPE_FLOAT4_E2M1FN, cpu, 1, e60, NULL));
  CHECK_FAIL(dlx_view_init(&v, buf, DLX_DTYPE_FLOAT4_E2M1FN, cpu, 1, e61, NULL), DLX_ERR_OVERFLOW,
             "(4 bits per item)");
  /* NULL strides (row-major) follow the same rule: 2^61 int32 are 2^63 bytes */
  CHECK_FAIL(dlx_view_init(&v, buf, DLX_DTYPE_INT32, cpu, 1, e61, NULL), DLX_ERR_OVERFLOW,
             "at shape[0] = 2305843009213693952, strides[0] = 1 (4 bytes per item)");
  /* elements below address 0 or past the top do not exist */
  int64_t n[1] = {0x2000}, back[1] = {-1};
  CHECK_FAIL(dlx_view_init(&v, (void *)(uintptr_t)0x1000, DLX_DTYPE_FLOAT32, cpu, 1, n, back), DLX_ERR_OVERFLOW,
             "below address 0");
  CHECK_FAIL(dlx_view_init(&v, (void *)(UINTPTR_MAX - 0xFFF), DLX_DTYPE_FLOAT32, cpu, 1, n, NULL), DLX_ERR_OVERFLOW,
             "beyond the address space");
  /* an empty view touches no memory: any strides, as the import allows */
  int64_t empty[2] = {0, 3}, garbage[2] = {INT64_MIN, INT64_MAX};
  CHECK_OK(dlx_view_init(&v, NULL, DLX_DTYPE_FLOAT32, cpu, 2, empty, garbage));
  CHECK_OK(import_raw(NULL, DLX_DTYPE_FLOAT32, cpu, 2, empty, garbage, &w));
}

static void test_init_extents_refuses_span_overflow(void) {
  static double buf[4];
  dlx_view v;
  size_t ext[2] = {3, 5};
  ptrdiff_t strides[2] = {PTRDIFF_MIN, 1}, ok[2] = {-5, 1};
  CHECK_FAIL(dlx_view_init_extents(&v, buf, DLX_DTYPE_FLOAT64, cpu, 2, ext, strides), DLX_ERR_OVERFLOW,
             "strides[0] = -9223372036854775808 (8 bytes per item)");
  /* negative strides are fine while the elements stay in the address space */
  CHECK_OK(dlx_view_init_extents(&v, (void *)(uintptr_t)0x100000, DLX_DTYPE_FLOAT64, cpu, 2, ext, ok));
  CHECK_EQ(v.strides[0], -5);
  CHECK_FAIL(dlx_view_init_extents(&v, (void *)(uintptr_t)0x40, DLX_DTYPE_FLOAT64, cpu, 2, ext, ok),
             DLX_ERR_OVERFLOW, "below address 0");
}

/* The export checks a hand-filled view as init would, with init's statuses. */
static void test_export_refuses_what_init_refuses(void) {
  static float buf[8];
  dlx_dltensor h;
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  int64_t bad_stride[2] = {INT64_MIN, 1}, negative[2] = {2, -3}, huge[2] = {INT64_C(1) << 32, INT64_C(1) << 32},
          zeros[2] = {0, 0};
  dlx_view v = by_hand(buf, DLX_DTYPE_FLOAT32, cpu, 2, shape, bad_stride);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_OVERFLOW, "strides[0] = -9223372036854775808");
  v = by_hand(buf, DLX_DTYPE_FLOAT32, cpu, 2, negative, strides);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_NEGATIVE_EXTENT, "shape[1] is -3");
  /* 2^64 elements broadcast from one: the span is 0 but the count does not fit */
  v = by_hand(buf, DLX_DTYPE_FLOAT32, cpu, 2, huge, zeros);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_OVERFLOW, "element count overflows int64 at shape[1]");
  v = by_hand(buf, DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 24, 1), cpu, 2, shape, strides);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_INVALID_DTYPE, "24 bits is not legal");
  v = by_hand(buf, DLX_DTYPE_FLOAT32, (DLDevice){(DLDeviceType)99, 0}, 2, shape, strides);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_INVALID_DEVICE, "unknown device type 99");
  v = by_hand(NULL, DLX_DTYPE_FLOAT32, cpu, 2, shape, strides);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_NULL_DATA, "6 elements");
  int64_t n[1] = {0x2000}, back[1] = {-1};
  v = by_hand((void *)(uintptr_t)0x1000, DLX_DTYPE_FLOAT32, cpu, 1, n, back);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_OVERFLOW, "below address 0");
  /* 2^63 elements broadcast from one, the count counted at rank 63 */
  int64_t twos[63], zero_strides[63];
  for (int i = 0; i < 63; ++i) twos[i] = 2, zero_strides[i] = 0;
  v = by_hand(buf, DLX_DTYPE_FLOAT32, cpu, 63, twos, zero_strides);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_OVERFLOW, "element count overflows int64 at shape[62]");
  v = by_hand(buf, DLX_DTYPE_FLOAT32, cpu, 62, twos, zero_strides);
  CHECK_OK(dlx_view_to_dltensor(&v, &h));
  /* what stays fine: an empty view (any strides, NULL data), a large tensor, a 0-d one */
  int64_t empty[2] = {3, 0};
  v = by_hand(NULL, DLX_DTYPE_FLOAT32, cpu, 2, empty, bad_stride);
  CHECK_OK(dlx_view_to_dltensor(&v, &h));
  CHECK(h.tensor.data == NULL);
  int64_t big[4] = {8, 32, 4096, 128}, big_strides[4] = {32 * 4096 * 128, 4096 * 128, 128, 1};
  v = by_hand(buf, DLX_DTYPE_FLOAT32, cpu, 4, big, big_strides);
  CHECK_OK(dlx_view_to_dltensor(&v, &h));
  CHECK(h.tensor.data == buf);
  v = by_hand(buf, DLX_DTYPE_FLOAT32, cpu, 0, shape, strides);
  CHECK_OK(dlx_view_to_dltensor(&v, &h));
  /* the largest span, past the export's screen: exact path, same answer as init */
  int64_t s1[1] = {2}, st_max[1] = {INT64_MAX - 1}, st_over[1] = {INT64_MAX};
  v = by_hand((void *)(uintptr_t)0x1000, DLX_DTYPE_INT8, cpu, 1, s1, st_max);
  CHECK_OK(dlx_view_to_dltensor(&v, &h));
  v = by_hand((void *)(uintptr_t)0x1000, DLX_DTYPE_INT8, cpu, 1, s1, st_over);
  CHECK_FAIL(dlx_view_to_dltensor(&v, &h), DLX_ERR_OVERFLOW, "byte span overflows int64");
}

/* ------------------------------------------------------------------------------------------------ */
/* init == import == export, over random views                                                       */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
  uint64_t x = rng_state;
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return rng_state = x;
}
static uint64_t below(uint64_t n) { return rnd() % n; }

static int64_t random_extent(void) {
  static const int64_t menu[] = {0, 1, 1, 2, 3, 7, 64, 1000, INT64_C(1) << 20, INT64_C(1) << 31, INT64_C(1) << 32,
                                 INT64_C(1) << 40, INT64_C(1) << 61, INT64_C(1) << 62, INT64_MAX, -1, INT64_MIN};
  const uint64_t r = below(100);
  if (r < 45) return (int64_t)below(9);
  if (r < 55) return (int64_t)below(1u << 20);
  if (r < 70) return (INT64_C(1) << below(40)) + (int64_t)below(3) - 1; /* powers of two, and next to them */
  return menu[below(sizeof menu / sizeof menu[0])];
}

static int64_t random_stride(void) {
  static const int64_t menu[] = {0,
                                 1,
                                 -1,
                                 INT64_C(1) << 31,
                                 INT64_C(1) << 40,
                                 -(INT64_C(1) << 40),
                                 INT64_C(1) << 61,
                                 INT64_C(1) << 62,
                                 -(INT64_C(1) << 62),
                                 INT64_MAX,
                                 INT64_MAX - 1,
                                 INT64_MIN,
                                 INT64_MIN + 1,
                                 INT64_MAX / 3};
  const uint64_t r = below(100);
  if (r < 45) return (int64_t)below(65) - 16;
  if (r < 55) return (int64_t)below(1u << 24) - (1 << 23);
  if (r < 75) { /* +-2^k and next to it */
    const int64_t p = (INT64_C(1) << below(62)) + (int64_t)below(3) - 1;
    return below(2) ? p : -p;
  }
  return menu[below(sizeof menu / sizeof menu[0])];
}

static DLDataType random_dtype(void) {
  static const DLDataType menu[] = {
      DLX_DTYPE_FLOAT32, DLX_DTYPE_INT8,        DLX_DTYPE_FLOAT64,   DLX_DTYPE_BOOL,
      DLX_DTYPE_UINT128, DLX_DTYPE_COMPLEX128,  DLX_DTYPE_FLOAT4_E2M1FN, DLX_DTYPE_FLOAT6_E3M2FN,
      DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 4), DLX_DTYPE_MAKE(DLX_CODE_FLOAT4_E2M1FN, 4, 3),
      DLX_DTYPE_MAKE(DLX_CODE_UINT, 128, 65535), DLX_DTYPE_MAKE(DLX_CODE_OPAQUE_HANDLE, 248, 1000),
      DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 24, 1), /* illegal */
      DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 0), /* illegal: lanes 0 */
  };
  return menu[below(sizeof menu / sizeof menu[0])];
}

static void *random_data(void) {
  static const uintptr_t menu[] = {0,
                                   0x40,
                                   0x10000,
                                   (uintptr_t)1 << 46,
                                   (uintptr_t)0x7f0000000000,
                                   (uintptr_t)1 << 62,
                                   (uintptr_t)1 << 63,
                                   UINTPTR_MAX - 0xFFFF,
                                   UINTPTR_MAX & ~(uintptr_t)0xFF};
  const uint64_t r = below(100);
  /* addresses near a power of two, from below the top too: where the address rules bite */
  if (r < 25) return (void *)(((uintptr_t)1 << below(64)) + (uintptr_t)below(3) * 64);
  if (r < 40) return (void *)(UINTPTR_MAX - ((uintptr_t)1 << below(64)) - (uintptr_t)below(2) * 63);
  return (void *)menu[below(sizeof menu / sizeof menu[0])];
}

static DLDevice random_device(void) {
  static const int32_t types[] = {kDLCPU, kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged, kDLROCM, 5, 99};
  DLDevice d = {(DLDeviceType)types[below(sizeof types / sizeof types[0])], 0};
  /* where CUDA runs, exporting a CUDA device or managed view asks CUDA about its pointer, and these made-up
   * addresses would all be refused (test_dltensor and test_cuda test that check): pinned host instead */
  static int cuda_checks = -1;
  if (cuda_checks < 0) cuda_checks = dlx_cuda_device_count() > 0;
  if (cuda_checks && (d.device_type == kDLCUDA || d.device_type == kDLCUDAManaged)) d.device_type = kDLCUDAHost;
  return d;
}

static bool same_elements(const dlx_view *a, const dlx_view *b) {
  if (a->ndim != b->ndim || !dlx_dtype_equal(a->dtype, b->dtype) || a->device.device_type != b->device.device_type)
    return false;
  bool empty = false;
  for (int32_t i = 0; i < a->ndim; ++i) {
    if (a->shape[i] != b->shape[i]) return false;
    empty |= a->shape[i] == 0;
  }
  if (empty) return true; /* the import gives an empty view compact strides and may drop data */
  for (int32_t i = 0; i < a->ndim; ++i)
    if (a->strides[i] != b->strides[i]) return false;
  return a->data == b->data;
}

static void test_init_import_export_agree(void) {
  int ok = 0, refused[DLX_STATUS_COUNT] = {0};
  const int failures_before = dlx_test_failures_;
  for (int iter = 0; iter < 200000; ++iter) {
    const int32_t nd = (int32_t)(below(10) < 8 ? below(5) : below(DLX_MAX_NDIM + 1));
    int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM];
    for (int32_t i = 0; i < nd; ++i) shape[i] = random_extent(), strides[i] = random_stride();
    const bool null_strides = below(5) == 0;
    const DLDataType dt = random_dtype();
    const DLDevice dev = random_device();
    void *data = random_data();

    dlx_view v, w;
    const dlx_status si = dlx_view_init(&v, data, dt, dev, nd, shape, null_strides ? NULL : strides);
    const dlx_status sm = import_raw(data, dt, dev, nd, shape, null_strides ? NULL : strides, &w);
    if (si != sm) {
      fprintf(stderr, "  iteration %d: init %s, import %s (%s)\n", iter, dlx_status_name(si), dlx_status_name(sm),
              dlx_last_error());
      CHECK_EQ(si, sm);
      return;
    }
    if (!null_strides) {
      /* the export of the same values filled by hand agrees with init too */
      dlx_view hand = by_hand(data, dt, dev, nd, shape, strides);
      dlx_dltensor h;
      const dlx_status se = dlx_view_to_dltensor(&hand, &h);
      if (se != si) {
        fprintf(stderr, "  iteration %d: init %s, export of the hand-filled view %s (%s)\n", iter,
                dlx_status_name(si), dlx_status_name(se), dlx_last_error());
        CHECK_EQ(se, si);
        return;
      }
      if (se == DLX_OK) {
        /* CCCL: data is NULL exactly when there is no element */
        bool empty = false;
        for (int32_t i = 0; i < nd; ++i) empty |= shape[i] == 0;
        CHECK(h.tensor.data == (empty ? NULL : data));
        CHECK(h.tensor.byte_offset == 0 && h.tensor.ndim == nd && h.tensor.shape == h.shape);
      }
    }
    if (si != DLX_OK) {
      ++refused[si];
      continue;
    }
    ++ok;
    CHECK(same_elements(&v, &w));
    /* what init made exports, and the export imports back as the same view */
    dlx_dltensor h;
    CHECK_OK(dlx_view_to_dltensor(&v, &h));
    dlx_import_spec s = permissive(false);
    dlx_view back;
    CHECK_OK(dlx_view_from_dltensor(&back, &h.tensor, &s));
    CHECK(same_elements(&v, &back));
    if (dlx_test_failures_ > failures_before) return;
  }
  /* the cases are not all of one kind */
  CHECK(ok > 20000);
  CHECK(refused[DLX_ERR_OVERFLOW] > 5000);
  CHECK(refused[DLX_ERR_NEGATIVE_EXTENT] > 1000);
  CHECK(refused[DLX_ERR_NULL_DATA] > 1000);
  CHECK(refused[DLX_ERR_INVALID_DTYPE] > 1000);
  CHECK(refused[DLX_ERR_INVALID_DEVICE] > 1000);
}

static const dlx_test_case cases[] = {
    {"init_refuses_span_overflow", test_init_refuses_span_overflow},
    {"init_extents_refuses_span_overflow", test_init_extents_refuses_span_overflow},
    {"export_refuses_what_init_refuses", test_export_refuses_what_init_refuses},
    {"init_import_export_agree", test_init_import_export_agree},
};
DLX_TEST_MAIN(cases)
