/* Tests for src/core/view.c: devices, view construction (dlx_view_init, dlx_view_init_extents) and element
 * access (dlx_view_offset, dlx_view_element_ptr). The DLPack export and import are in test_dltensor.c. */
#include <stdbool.h>
#include <stdint.h>

#include "dlx/view.h"
#include "runner.h"

#define V13 DLX_DLPACK_VERSION_NUM(1, 3)

/* A DLTensor as a producer hands it over (byte_offset 0), and an import spec for DLPack 1.3. */
static DLTensor tensor(void *data, DLDataType dt, int32_t device_type, int32_t nd, int64_t *shape, int64_t *strides) {
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.data = data, t.device.device_type = (DLDeviceType)device_type, t.device.device_id = 0, t.ndim = nd;
  t.dtype = dt, t.shape = shape, t.strides = strides, t.byte_offset = 0;
  return t;
}

static dlx_import_spec spec(DLDataType dt, int32_t nd, dlx_memspace space, dlx_layout layout) {
  dlx_import_spec s = {.dtype = dt, .ndim = nd, .memspace = space, .layout = layout, .version = V13, .alignment = 0};
  return s;
}

static const DLDevice cpu = {kDLCPU, 0};

/* ------------------------------------------------------------------------------------------------ */

static void test_device_helpers(void) {
  for (int32_t t = -2; t < 40; ++t) {
    bool want = (t >= 1 && t <= 4) || (t >= 7 && t <= 18);
    CHECK_EQ(dlx_device_type_is_known(t), want);
    CHECK_EQ(dlx_device_type_name(t) != NULL, want);
  }
  CHECK(!dlx_device_type_is_known(INT32_MIN));
  CHECK(!dlx_device_type_is_known(INT32_MAX));
  static const char *const names[] = {NULL,      "cpu",     "cuda",    "cuda_host",    "opencl", NULL,     NULL,
                                      "vulkan",  "metal",   "vpi",     "rocm",         "rocm_host", "ext_dev",
                                      "cuda_managed", "oneapi", "webgpu", "hexagon",   "maia",   "trn"};
  for (int32_t t = 0; t < 19; ++t)
    if (names[t]) CHECK_STR(dlx_device_type_name(t), names[t]);
  CHECK(dlx_device_type_name(5) == NULL);
  CHECK(dlx_device_type_name(19) == NULL);

  int host_count = 0;
  for (int32_t t = 0; t < 40; ++t) {
    DLDevice d = {(DLDeviceType)t, 0};
    bool h = dlx_device_is_host_accessible(d);
    host_count += h;
    CHECK_EQ(h, t == kDLCPU || t == kDLCUDAHost || t == kDLROCMHost || t == kDLCUDAManaged);
  }
  CHECK_EQ(host_count, 4);
}

static void test_device_for(void) {
  DLDevice d;
  CHECK_OK(dlx_device_for(DLX_MEMSPACE_HOST, 0, &d));
  CHECK_EQ(d.device_type, kDLCPU);
  CHECK_EQ(d.device_id, 0);
  CHECK_OK(dlx_device_for(DLX_MEMSPACE_DEVICE, 3, &d));
  CHECK_EQ(d.device_type, kDLCUDA);
  CHECK_EQ(d.device_id, 3);
  CHECK_OK(dlx_device_for(DLX_MEMSPACE_MANAGED, 5, &d));
  CHECK_EQ(d.device_type, kDLCUDAManaged);
  CHECK_EQ(d.device_id, 0);
  CHECK_FAIL(dlx_device_for(DLX_MEMSPACE_ANY, 0, &d), DLX_ERR_INVALID_ARGUMENT, "memory space 0");
  CHECK_FAIL(dlx_device_for((dlx_memspace)9, 0, &d), DLX_ERR_INVALID_ARGUMENT, "memory space 9");
  CHECK_FAIL(dlx_device_for(DLX_MEMSPACE_DEVICE, -1, &d), DLX_ERR_INVALID_DEVICE, "device id -1");
  CHECK_FAIL(dlx_device_for(DLX_MEMSPACE_HOST, 0, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
}

/* ------------------------------------------------------------------------------------------------ */
/* dlx_view_init / dlx_view_init_extents                                                            */

static void test_init(void) {
  int32_t data[24];
  dlx_view v;
  int64_t shape[3] = {2, 3, 4};
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, 3, shape, NULL));
  CHECK(v.data == data);
  CHECK_EQ(v.ndim, 3);
  CHECK_EQ(v.flags, 0);
  CHECK(dlx_dtype_equal(v.dtype, DLX_DTYPE_INT32));
  CHECK_EQ(v.device.device_type, kDLCPU);
  CHECK_EQ(v.strides[0], 12);
  CHECK_EQ(v.strides[1], 4);
  CHECK_EQ(v.strides[2], 1);
  CHECK_EQ(dlx_view_size(&v), 24);

  int64_t strides[3] = {-1, 0, 7};
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, 3, shape, strides));
  CHECK_EQ(v.strides[0], -1);
  CHECK_EQ(v.strides[1], 0);
  CHECK_EQ(v.strides[2], 7);

  /* rank 0: shape may be NULL, one element */
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_FLOAT32, cpu, 0, NULL, NULL));
  CHECK_EQ(dlx_view_size(&v), 1);
  /* empty: NULL data is fine, strides treat the 0 extent as 1 (NumPy) */
  int64_t empty[3] = {2, 0, 4};
  CHECK_OK(dlx_view_init(&v, NULL, DLX_DTYPE_INT32, cpu, 3, empty, NULL));
  CHECK(v.data == NULL);
  CHECK_EQ(v.strides[0], 4);
  CHECK_EQ(v.strides[1], 4);
  CHECK_EQ(v.strides[2], 1);

  CHECK_FAIL(dlx_view_init(NULL, data, DLX_DTYPE_INT32, cpu, 3, shape, NULL), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, 65, shape, NULL), DLX_ERR_RANK, "ndim 65 is out of range");
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, -1, shape, NULL), DLX_ERR_RANK, "ndim -1 is out of range");
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_MAKE(2, 33, 1), cpu, 3, shape, NULL), DLX_ERR_INVALID_DTYPE, "33");
  DLDevice bad = {(DLDeviceType)6, 0};
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_INT32, bad, 3, shape, NULL), DLX_ERR_INVALID_DEVICE,
             "unknown device type 6");
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, 3, NULL, NULL), DLX_ERR_NULL_SHAPE,
             "shape is NULL with ndim 3");
  int64_t neg[3] = {2, -4, 4};
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, 3, neg, NULL), DLX_ERR_NEGATIVE_EXTENT, "shape[1] is -4");
  int64_t huge[3] = {INT64_C(1) << 32, INT64_C(1) << 32, 1};
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, 3, huge, NULL), DLX_ERR_OVERFLOW,
             "element count overflows int64 at shape[1] = 4294967296");
  /* empty, but refused as NumPy refuses it: its compact strides (and partial sizes) overflow */
  int64_t huge_empty[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40};
  CHECK_FAIL(dlx_view_init(&v, NULL, DLX_DTYPE_INT32, cpu, 3, huge_empty, NULL), DLX_ERR_OVERFLOW,
             "element count overflows int64 at shape[2] = 1099511627776 (extents of 0 counted as 1");
  CHECK_FAIL(dlx_view_init(&v, NULL, DLX_DTYPE_INT32, cpu, 3, huge_empty, strides), DLX_ERR_OVERFLOW, "shape[2]");
  int64_t late_zero[3] = {INT64_C(1) << 32, INT64_C(1) << 32, 0};
  CHECK_FAIL(dlx_view_init(&v, NULL, DLX_DTYPE_INT32, cpu, 3, late_zero, strides), DLX_ERR_OVERFLOW, "shape[1]");
  /* the largest empty shape that passes: dlx_view_size stays defined */
  int64_t big_empty[3] = {INT64_C(1) << 31, INT64_C(1) << 31, 0};
  CHECK_OK(dlx_view_init(&v, NULL, DLX_DTYPE_INT8, cpu, 3, big_empty, NULL));
  CHECK_EQ(dlx_view_size(&v), 0);
  CHECK_EQ(v.strides[0], INT64_C(1) << 31);
  CHECK_FAIL(dlx_view_init(&v, NULL, DLX_DTYPE_INT32, cpu, 3, shape, NULL), DLX_ERR_NULL_DATA,
             "data is NULL but the tensor has 24 elements");
}

static void test_init_extents(void) {
  int32_t data[6];
  dlx_view v;
  size_t ext[2] = {2, 3};
  CHECK_OK(dlx_view_init_extents(&v, data, DLX_DTYPE_INT32, cpu, 2, ext, NULL));
  CHECK_EQ(v.shape[0], 2);
  CHECK_EQ(v.shape[1], 3);
  CHECK_EQ(v.strides[0], 3);
  CHECK_EQ(v.strides[1], 1);
  ptrdiff_t st[2] = {1, 2}; /* layout_left */
  CHECK_OK(dlx_view_init_extents(&v, data, DLX_DTYPE_INT32, cpu, 2, ext, st));
  CHECK_EQ(v.strides[0], 1);
  CHECK_EQ(v.strides[1], 2);
  CHECK_OK(dlx_view_init_extents(&v, data, DLX_DTYPE_INT32, cpu, 0, NULL, NULL));

  size_t big[2] = {2, SIZE_MAX};
  CHECK_FAIL(dlx_view_init_extents(&v, data, DLX_DTYPE_INT32, cpu, 2, big, NULL), DLX_ERR_OVERFLOW,
             "extent[1] = 18446744073709551615 does not fit int64");
  size_t edge[1] = {(size_t)INT64_MAX + 1u};
  CHECK_FAIL(dlx_view_init_extents(&v, data, DLX_DTYPE_INT8, cpu, 1, edge, NULL), DLX_ERR_OVERFLOW, "extent[0]");
  CHECK_FAIL(dlx_view_init_extents(NULL, data, DLX_DTYPE_INT32, cpu, 2, ext, NULL), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_init_extents(&v, data, DLX_DTYPE_INT32, cpu, 2, NULL, NULL), DLX_ERR_NULL_SHAPE,
             "extents is NULL");
  CHECK_FAIL(dlx_view_init_extents(&v, data, DLX_DTYPE_INT32, cpu, 70, ext, NULL), DLX_ERR_RANK, "ndim 70");
  /* the checks of dlx_view_init apply too */
  CHECK_FAIL(dlx_view_init_extents(&v, NULL, DLX_DTYPE_INT32, cpu, 2, ext, NULL), DLX_ERR_NULL_DATA, "6 elements");
}

/* ------------------------------------------------------------------------------------------------ */
/* Element access                                                                                   */

static void test_offset_and_element_ptr(void) {
  double data[12];
  for (int i = 0; i < 12; ++i) data[i] = i;
  int64_t shape[2] = {3, 4};
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_FLOAT64, cpu, 2, shape, NULL));
  int64_t idx[2] = {2, 1}, off;
  CHECK_OK(dlx_view_offset(&v, idx, &off));
  CHECK_EQ(off, 9);
  void *p;
  CHECK_OK(dlx_view_element_ptr(&v, idx, &p));
  CHECK(p == data + 9);

  int64_t bad[2] = {3, 0};
  CHECK_FAIL(dlx_view_offset(&v, bad, &off), DLX_ERR_INDEX, "index 3 is out of range [0, 3) in dim 0");
  bad[0] = 0;
  bad[1] = -1; /* no wrap-around */
  CHECK_FAIL(dlx_view_element_ptr(&v, bad, &p), DLX_ERR_INDEX, "index -1 is out of range [0, 4) in dim 1");
  CHECK_FAIL(dlx_view_offset(NULL, idx, &off), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_offset(&v, idx, NULL), DLX_ERR_NULL_ARGUMENT, "'offset'");
  CHECK_FAIL(dlx_view_offset(&v, NULL, &off), DLX_ERR_NULL_ARGUMENT, "'index' is NULL with ndim 2");
  CHECK_FAIL(dlx_view_element_ptr(NULL, idx, &p), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_element_ptr(&v, idx, NULL), DLX_ERR_NULL_ARGUMENT, "'ptr'");
  /* an empty view has no index at all */
  int64_t empty[2] = {3, 0}, zero[2] = {0, 0};
  CHECK_OK(dlx_view_init(&v, NULL, DLX_DTYPE_FLOAT64, cpu, 2, empty, NULL));
  CHECK_FAIL(dlx_view_element_ptr(&v, zero, &p), DLX_ERR_INDEX, "in dim 1");

  /* hand-filled views: a corrupt rank, an offset that overflows */
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_FLOAT64, cpu, 2, shape, NULL));
  v.ndim = 99;
  CHECK_FAIL(dlx_view_offset(&v, idx, &off), DLX_ERR_RANK, "ndim 99");
  v.ndim = 2;
  v.strides[0] = INT64_MAX;
  CHECK_FAIL(dlx_view_offset(&v, idx, &off), DLX_ERR_OVERFLOW, "offset of the index overflows");
  v.strides[0] = INT64_MAX / 4;
  idx[0] = 1;
  idx[1] = 0;
  CHECK_OK(dlx_view_offset(&v, idx, &off));
  CHECK_FAIL(dlx_view_element_ptr(&v, idx, &p), DLX_ERR_OVERFLOW, "byte offset of element");
}

/* Packed fp4/fp6 elements have no byte address; padded ones do. */
static void test_element_ptr_subbyte(void) {
  uint8_t data[8] = {0};
  int64_t shape[1] = {8}, idx[1] = {3};
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_FLOAT4_E2M1FN, cpu, 1, shape, NULL));
  void *p;
  CHECK_FAIL(dlx_view_element_ptr(&v, idx, &p), DLX_ERR_UNSUPPORTED, "packed sub-byte dtype float4_e2m1fn");
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_FLOAT6_E2M3FN, cpu, 1, shape, NULL));
  CHECK_FAIL(dlx_view_element_ptr(&v, idx, &p), DLX_ERR_UNSUPPORTED, "float6_e2m3fn");
  /* offsets in elements still work */
  int64_t off;
  CHECK_OK(dlx_view_offset(&v, idx, &off));
  CHECK_EQ(off, 3);
  v.flags = DLX_VIEW_SUBBYTE_PADDED;
  CHECK_OK(dlx_view_element_ptr(&v, idx, &p));
  CHECK(p == data + 3);

  /* through a versioned capsule that says padded */
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.version.minor = 3;
  int64_t unit[1] = {1};
  m.dl_tensor = tensor(data, DLX_DTYPE_FLOAT4_E2M1FN, kDLCPU, 1, shape, unit);
  m.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  dlx_import_spec s = spec(DLX_DTYPE_FLOAT4_E2M1FN, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  CHECK_OK(dlx_view_from_managed_versioned(&v, &m, &s));
  CHECK_OK(dlx_view_element_ptr(&v, idx, &p));
  CHECK(p == data + 3);
}

static const dlx_test_case cases[] = {
    {"device_helpers", test_device_helpers},
    {"device_for", test_device_for},
    {"init", test_init},
    {"init_extents", test_init_extents},
    {"offset_and_element_ptr", test_offset_and_element_ptr},
    {"element_ptr_subbyte", test_element_ptr_subbyte},
};
DLX_TEST_MAIN(cases)
