/* Tests for src/exchange/check.c (dlx/check.h): each rule found alone, several found at once, the rules
 * that stop the reading of fields a broken one makes unreadable, the legacy variant, and the argument
 * errors. */
#include <stdint.h>
#include <string.h>

#include "dlx/check.h"
#include "dlx/dtype.h"
#include "dlx/view.h"
#include "runner.h"

static int64_t g_shape[2] = {2, 3};
static int64_t g_strides[2] = {3, 1};

/* A conforming 2x3 float32 DLPack 1.3 tensor at a fake host address (the check never reads data). */
static DLManagedTensorVersioned good(void) {
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.version.minor = 3;
  m.dl_tensor.data = (void *)(uintptr_t)0x10000;
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype = DLX_DTYPE_FLOAT32;
  m.dl_tensor.shape = g_shape;
  m.dl_tensor.strides = g_strides;
  return m;
}

/* The report of m has exactly one finding, of rule, whose message contains needle. */
static void expect_only(const DLManagedTensorVersioned *m, dlx_check_rule rule, const char *needle) {
  dlx_check_report r;
  CHECK_OK(dlx_check_managed(m, &r));
  CHECK_EQ(r.count, 1);
  CHECK_EQ(r.broken, 1u << rule);
  CHECK_EQ(r.findings[0].rule, rule);
  if (strstr(r.findings[0].message, needle) == NULL) {
    fprintf(stderr, "  message \"%s\" lacks \"%s\"\n", r.findings[0].message, needle);
    CHECK(0);
  }
}

static void test_conforming(void) {
  DLManagedTensorVersioned m = good();
  dlx_check_report r;
  memset(&r, 0xAB, sizeof r); /* every field is written */
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
  CHECK_EQ(r.broken, 0);
  /* a 0-d tensor may have NULL shape and strides; an empty one NULL data and garbage strides */
  m.dl_tensor.ndim = 0;
  m.dl_tensor.shape = m.dl_tensor.strides = NULL;
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
  int64_t shape[2] = {0, 5}, strides[2] = {INT64_MAX, INT64_MIN};
  m = good();
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  m.dl_tensor.data = NULL;
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
  /* negative, zero and extent-1 strides are legal; so are every defined flag and a pinned device */
  int64_t s2[2] = {-3, 0};
  m = good();
  m.dl_tensor.strides = s2;
  m.dl_tensor.byte_offset = 64;
  m.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  m.dl_tensor.device.device_type = kDLCUDAHost;
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
  /* a device id of a device with several instances is any id >= 0 */
  m = good();
  m.dl_tensor.device = (DLDevice){kDLCUDA, 3};
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
}

static void test_version_major_alone(void) {
  DLManagedTensorVersioned m = good();
  m.version.major = 2;
  expect_only(&m, DLX_CHECK_VERSION_MAJOR, "version 2.3");
  /* nothing else is read: a major-2 struct may be laid out otherwise */
  m.dl_tensor.ndim = -1;
  m.dl_tensor.device.device_type = (DLDeviceType)99;
  expect_only(&m, DLX_CHECK_VERSION_MAJOR, "only the deleter");
  m.version.major = 0;
  expect_only(&m, DLX_CHECK_VERSION_MAJOR, "version 0.3");
}

static void test_flags(void) {
  DLManagedTensorVersioned m = good();
  m.flags = 1u << 7;
  expect_only(&m, DLX_CHECK_FLAGS_UNKNOWN, "0x80");
  /* the padded bit exists from 1.1 on */
  m.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  m.version.minor = 0;
  m.dl_tensor.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT4_E2M1FN, 4, 1);
  expect_only(&m, DLX_CHECK_FLAGS_UNKNOWN, "DLPack 1.0");
  m.version.minor = 1;
  dlx_check_report r;
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
  /* on a whole-byte dtype it means nothing */
  m.dl_tensor.dtype = DLX_DTYPE_FLOAT32;
  expect_only(&m, DLX_CHECK_FLAG_PADDED, "float32");
}

static void test_ndim_and_dtype(void) {
  DLManagedTensorVersioned m = good();
  m.dl_tensor.ndim = -2;
  expect_only(&m, DLX_CHECK_NDIM, "ndim is -2");
  m = good();
  m.dl_tensor.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 24, 1);
  expect_only(&m, DLX_CHECK_DTYPE, "bits 24");
  m.dl_tensor.dtype = DLX_DTYPE_MAKE(99, 8, 1);
  expect_only(&m, DLX_CHECK_DTYPE, "code 99");
  m.dl_tensor.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 0);
  expect_only(&m, DLX_CHECK_DTYPE, "lanes 0");
}

static void test_device(void) {
  DLManagedTensorVersioned m = good();
  m.dl_tensor.device.device_type = (DLDeviceType)5;
  expect_only(&m, DLX_CHECK_DEVICE_TYPE, "device type 5");
  static const DLDeviceType zero_only[] = {kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged};
  for (size_t i = 0; i < sizeof zero_only / sizeof zero_only[0]; ++i) {
    m = good();
    m.dl_tensor.device = (DLDevice){zero_only[i], 1};
    expect_only(&m, DLX_CHECK_DEVICE_ID, "device_id is 1");
  }
  m = good();
  m.dl_tensor.device = (DLDevice){kDLCUDA, -1};
  expect_only(&m, DLX_CHECK_DEVICE_ID, "device_id is -1 for cuda");
  /* an unknown type with a negative id breaks both */
  m.dl_tensor.device = (DLDevice){(DLDeviceType)40, -1};
  dlx_check_report r;
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 2);
  CHECK_STR(r.findings[1].message, "device_id is -1 for unknown memory");
}

static void test_shape_and_strides(void) {
  DLManagedTensorVersioned m = good();
  m.dl_tensor.shape = NULL;
  expect_only(&m, DLX_CHECK_SHAPE_NULL, "ndim 2");
  int64_t shape[2] = {2, -3};
  m = good();
  m.dl_tensor.shape = shape;
  expect_only(&m, DLX_CHECK_EXTENT_NEGATIVE, "shape[1] is -3");
  m = good();
  m.dl_tensor.strides = NULL;
  expect_only(&m, DLX_CHECK_STRIDES_NULL, "DLPack 1.3");
  /* before 1.2 NULL strides meant compact row-major */
  m.version.minor = 1;
  dlx_check_report r;
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
}

static void test_data_and_span(void) {
  DLManagedTensorVersioned m = good();
  m.dl_tensor.data = NULL;
  expect_only(&m, DLX_CHECK_DATA_NULL, "6 elements");
  int64_t one[1] = {1};
  m.dl_tensor.ndim = 1;
  m.dl_tensor.shape = one;
  expect_only(&m, DLX_CHECK_DATA_NULL, "1 element");
  /* the count */
  int64_t big[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  m = good();
  m.dl_tensor.shape = big;
  expect_only(&m, DLX_CHECK_SIZE_OVERFLOW, "element count");
  /* the span of the strides */
  int64_t huge[2] = {INT64_MAX / 2, 1};
  m = good();
  m.dl_tensor.strides = huge;
  expect_only(&m, DLX_CHECK_SIZE_OVERFLOW, "2^63 bytes");
  /* elements below address 0 (a negative stride from a low address), and past the top */
  int64_t neg[2] = {-3, 1};
  m = good();
  m.dl_tensor.strides = neg;
  m.dl_tensor.data = (void *)(uintptr_t)4;
  expect_only(&m, DLX_CHECK_SIZE_OVERFLOW, "outside the address space");
  m = good();
  m.dl_tensor.data = (void *)(UINTPTR_MAX - 8);
  expect_only(&m, DLX_CHECK_SIZE_OVERFLOW, "outside the address space");
  m = good();
  m.dl_tensor.byte_offset = UINT64_MAX;
  expect_only(&m, DLX_CHECK_SIZE_OVERFLOW, "byte_offset");
}

static void test_every_rule_at_once(void) {
  DLManagedTensorVersioned m = good();
  m.flags = (1u << 9) | DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  m.dl_tensor.dtype = DLX_DTYPE_FLOAT32;
  m.dl_tensor.device = (DLDevice){kDLCPU, 7};
  m.dl_tensor.strides = NULL;
  m.dl_tensor.data = NULL;
  dlx_check_report r;
  CHECK_OK(dlx_check_managed(&m, &r));
  const dlx_check_rule want[] = {DLX_CHECK_FLAGS_UNKNOWN, DLX_CHECK_FLAG_PADDED, DLX_CHECK_DEVICE_ID,
                                 DLX_CHECK_STRIDES_NULL, DLX_CHECK_DATA_NULL};
  CHECK_EQ(r.count, 5);
  for (int i = 0; i < 5 && i < r.count; ++i) CHECK_EQ(r.findings[i].rule, want[i]);
  /* and the other group: a broken shape stops the reading of extents, not the other rules */
  m = good();
  m.dl_tensor.ndim = 3;
  m.dl_tensor.shape = NULL;
  m.dl_tensor.dtype = DLX_DTYPE_MAKE(DLX_CODE_INT, 12, 1);
  m.dl_tensor.device = (DLDevice){(DLDeviceType)0, -4};
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 4);
  CHECK_EQ(r.broken, (1u << DLX_CHECK_DTYPE) | (1u << DLX_CHECK_DEVICE_TYPE) | (1u << DLX_CHECK_DEVICE_ID) |
                         (1u << DLX_CHECK_SHAPE_NULL));
}

static void test_rank_above_max_is_not_read(void) {
  /* ndim 65 with a 2-entry shape: reading it would overflow; the extents are left unread */
  DLManagedTensorVersioned m = good();
  m.dl_tensor.ndim = DLX_MAX_NDIM + 1;
  m.dl_tensor.data = NULL; /* would be DATA_NULL if the extents were read */
  dlx_check_report r;
  CHECK_OK(dlx_check_managed(&m, &r));
  CHECK_EQ(r.count, 0);
  /* NULL strides are still found: that needs no extent */
  m.dl_tensor.strides = NULL;
  expect_only(&m, DLX_CHECK_STRIDES_NULL, "ndim 65");
}

static void test_legacy(void) {
  DLManagedTensorVersioned v = good();
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor = v.dl_tensor;
  dlx_check_report r;
  CHECK_OK(dlx_check_managed_legacy(&m, &r));
  CHECK_EQ(r.count, 0);
  /* NULL strides are compact row-major there */
  m.dl_tensor.strides = NULL;
  CHECK_OK(dlx_check_managed_legacy(&m, &r));
  CHECK_EQ(r.count, 0);
  m.dl_tensor.device.device_id = 2;
  m.dl_tensor.data = NULL;
  CHECK_OK(dlx_check_managed_legacy(&m, &r));
  CHECK_EQ(r.count, 2);
  CHECK_EQ(r.broken, (1u << DLX_CHECK_DEVICE_ID) | (1u << DLX_CHECK_DATA_NULL));
  /* compact reach is still checked for wrapping addresses */
  m.dl_tensor.data = (void *)(UINTPTR_MAX - 4);
  m.dl_tensor.device.device_id = 0;
  CHECK_OK(dlx_check_managed_legacy(&m, &r));
  CHECK_EQ(r.count, 1);
  CHECK_EQ(r.findings[0].rule, DLX_CHECK_SIZE_OVERFLOW);
}

static void test_arguments(void) {
  DLManagedTensorVersioned v = good();
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  dlx_check_report r;
  CHECK_FAIL(dlx_check_managed(NULL, &r), DLX_ERR_NULL_ARGUMENT, "'m'");
  CHECK_FAIL(dlx_check_managed(&v, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_check_managed_legacy(NULL, &r), DLX_ERR_NULL_ARGUMENT, "'m'");
  CHECK_FAIL(dlx_check_managed_legacy(&m, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
}

static void test_rule_names(void) {
  for (int i = 0; i < DLX_CHECK_RULE_COUNT; ++i) {
    const dlx_check_rule rule = (dlx_check_rule)i;
    CHECK(strcmp(dlx_check_rule_name(rule), "UNKNOWN_RULE") != 0);
    CHECK(strlen(dlx_check_rule_text(rule)) > 10);
  }
  CHECK_STR(dlx_check_rule_name(DLX_CHECK_DEVICE_ID), "DEVICE_ID");
  CHECK_STR(dlx_check_rule_name(DLX_CHECK_RULE_COUNT), "UNKNOWN_RULE");
  CHECK_STR(dlx_check_rule_name((dlx_check_rule)-1), "UNKNOWN_RULE");
  CHECK_STR(dlx_check_rule_text(DLX_CHECK_RULE_COUNT), "");
}

static const dlx_test_case cases[] = {
    {"conforming", test_conforming},
    {"version_major_alone", test_version_major_alone},
    {"flags", test_flags},
    {"ndim_and_dtype", test_ndim_and_dtype},
    {"device", test_device},
    {"shape_and_strides", test_shape_and_strides},
    {"data_and_span", test_data_and_span},
    {"every_rule_at_once", test_every_rule_at_once},
    {"rank_above_max_is_not_read", test_rank_above_max_is_not_read},
    {"legacy", test_legacy},
    {"arguments", test_arguments},
    {"rule_names", test_rule_names},
};

DLX_TEST_MAIN(cases)
