/* Tests for src/exchange/dltensor.c: export (dlx_view_to_dltensor, CCCL's to_dlpack_tensor), import (dlx_view_from_dltensor,
 * CCCL's mdspan checks), the capsules (dlx_view_from_managed, dlx_view_from_managed_versioned), the DLPack edge
 * cases, and round trips through both. */
#include <stdalign.h>
#include <stdbool.h>
#include <stdint.h>

#include "dlx/cuda.h"
#include "dlx/oneapi.h"
#include "dlx/view.h"
#include "runner.h"

#define V13 DLX_DLPACK_VERSION_NUM(1, 3)
#define V12 DLX_DLPACK_VERSION_NUM(1, 2)
#define V11 DLX_DLPACK_VERSION_NUM(1, 1)

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
/* Export (CCCL)                                                                                    */

static void test_export_cccl(void) {
  int data[6] = {0, 1, 2, 3, 4, 5};
  size_t ext[2] = {2, 3};
  DLDevice host;
  CHECK_OK(dlx_device_for(DLX_MEMSPACE_HOST, 0, &host));
  dlx_view md;
  CHECK_OK(dlx_view_init_extents(&md, data, DLX_DTYPE_OF(int), host, 2, ext, NULL));
  dlx_dltensor dl;
  CHECK_OK(dlx_view_to_dltensor(&md, &dl));
  DLTensor t = dl.tensor;
  CHECK_EQ(t.device.device_type, kDLCPU);
  CHECK_EQ(t.device.device_id, 0);
  CHECK_EQ(t.ndim, 2);
  CHECK(t.shape == dl.shape && t.strides == dl.strides);
  CHECK(t.shape[0] == 2 && t.shape[1] == 3);
  CHECK(t.strides[0] == 3 && t.strides[1] == 1);
  CHECK(t.data == data);
  CHECK_EQ(t.byte_offset, 0);
  CHECK(dlx_dtype_equal(t.dtype, DLX_DTYPE_INT32));

  /* device and managed views keep their device. Where CUDA runs, the export asks it about the pointer (as
   * CCCL does), and this host array labelled as CUDA memory is refused; test_cuda covers real device memory */
  const bool cuda_checks = dlx_cuda_device_count() > 0;
  dlx_view dv = md;
  CHECK_OK(dlx_device_for(DLX_MEMSPACE_DEVICE, 2, &dv.device));
  if (cuda_checks) {
    CHECK_FAIL(dlx_view_to_dltensor(&dv, &dl), DLX_ERR_DEVICE_MISMATCH, "memory CUDA does not know");
  } else {
    CHECK_OK(dlx_view_to_dltensor(&dv, &dl));
    CHECK_EQ(dl.tensor.device.device_type, kDLCUDA);
    CHECK_EQ(dl.tensor.device.device_id, 2);
  }
  CHECK_OK(dlx_device_for(DLX_MEMSPACE_MANAGED, 0, &dv.device));
  if (cuda_checks) {
    CHECK_FAIL(dlx_view_to_dltensor(&dv, &dl), DLX_ERR_DEVICE_MISMATCH, "memory CUDA does not know");
  } else {
    CHECK_OK(dlx_view_to_dltensor(&dv, &dl));
    CHECK_EQ(dl.tensor.device.device_type, kDLCUDAManaged);
  }
}

static void test_export_empty_and_rank0(void) {
  int data[4] = {0};
  dlx_view v;
  int64_t shape[2] = {3, 0};
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, 2, shape, NULL));
  dlx_dltensor dl;
  CHECK_OK(dlx_view_to_dltensor(&v, &dl));
  CHECK(dl.tensor.data == NULL); /* CCCL: nullptr when size() == 0 */
  CHECK_EQ(dl.tensor.shape[1], 0);

  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_FLOAT32, cpu, 0, NULL, NULL));
  CHECK_OK(dlx_view_to_dltensor(&v, &dl));
  CHECK_EQ(dl.tensor.ndim, 0);
  CHECK(dl.tensor.data == data);
  CHECK_EQ(dl.tensor.byte_offset, 0);
}

static void test_export_errors(void) {
  dlx_view v;
  dlx_dltensor dl;
  int x = 0;
  CHECK_OK(dlx_view_init(&v, &x, DLX_DTYPE_INT32, cpu, 0, NULL, NULL));
  CHECK_FAIL(dlx_view_to_dltensor(NULL, &dl), DLX_ERR_NULL_ARGUMENT, "'v'");
  CHECK_FAIL(dlx_view_to_dltensor(&v, NULL), DLX_ERR_NULL_ARGUMENT, "'out'");
  v.ndim = 65;
  CHECK_FAIL(dlx_view_to_dltensor(&v, &dl), DLX_ERR_RANK, "ndim 65 is out of range [0, 64]");
  v.ndim = -3;
  CHECK_FAIL(dlx_view_to_dltensor(&v, &dl), DLX_ERR_RANK, "ndim -3");
}

/* ------------------------------------------------------------------------------------------------ */
/* Import (CCCL): the example and one test per CCCL runtime error                               */

static void test_import_cccl(void) {
  int data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {3, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_OF(int), 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view md;
  CHECK_OK(dlx_view_from_dltensor(&md, &t, &s));
  CHECK_EQ(md.ndim, 2);
  CHECK(md.shape[0] == 2 && md.shape[1] == 3);
  CHECK(md.strides[0] == 3 && md.strides[1] == 1);
  CHECK(md.data == data);
  CHECK_EQ(md.flags, 0);
  void *p;
  int64_t i00[2] = {0, 0}, i12[2] = {1, 2};
  CHECK_OK(dlx_view_element_ptr(&md, i00, &p));
  CHECK_EQ(*(int *)p, 0);
  CHECK_OK(dlx_view_element_ptr(&md, i12, &p));
  CHECK_EQ(*(int *)p, 5);
  /* the same tensor passes every layout it satisfies */
  s.layout = DLX_LAYOUT_RIGHT;
  CHECK_OK(dlx_view_from_dltensor(&md, &t, &s));
  s.layout = DLX_LAYOUT_ANY;
  CHECK_OK(dlx_view_from_dltensor(&md, &t, &s));
  s.dtype = DLX_DTYPE_ANY;
  s.ndim = DLX_NDIM_ANY;
  s.memspace = DLX_MEMSPACE_ANY;
  CHECK_OK(dlx_view_from_dltensor(&md, &t, &s));
}

static void test_import_null_args(void) {
  int data[1];
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 0, NULL, NULL);
  dlx_import_spec s = spec(DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(NULL, &t, &s), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_view_from_dltensor(&v, NULL, &s), DLX_ERR_NULL_ARGUMENT, "'t'");
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, NULL), DLX_ERR_NULL_ARGUMENT, "'spec'");
  DLManagedTensorVersioned mv;
  memset(&mv, 0, sizeof mv);
  DLManagedTensor ml;
  memset(&ml, 0, sizeof ml);
  CHECK_FAIL(dlx_view_from_managed_versioned(&v, NULL, &s), DLX_ERR_NULL_ARGUMENT, "'m'");
  CHECK_FAIL(dlx_view_from_managed_versioned(NULL, &mv, &s), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_view_from_managed_versioned(&v, &mv, NULL), DLX_ERR_NULL_ARGUMENT, "'spec'");
  CHECK_FAIL(dlx_view_from_managed(&v, NULL, &s), DLX_ERR_NULL_ARGUMENT, "'m'");
  CHECK_FAIL(dlx_view_from_managed(NULL, &ml, &s), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_view_from_managed(&v, &ml, NULL), DLX_ERR_NULL_ARGUMENT, "'spec'");
}

/* CCCL: ndim does not match Rank. */
static void test_import_rank(void) {
  int data[24];
  int64_t shape[3] = {2, 3, 4}, strides[3] = {12, 4, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 3, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_RANK, "expected ndim 2, got 3");
  t.ndim = 65;
  s.ndim = DLX_NDIM_ANY;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_RANK, "ndim 65 is out of range [0, 64]");
  t.ndim = -1;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_RANK, "ndim -1 is out of range");
  /* range comes before the required rank */
  s.ndim = 2;
  t.ndim = 100;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_RANK, "ndim 100 is out of range");
}

/* CCCL: dtype does not match ElementType; plus illegal dtypes. */
static void test_import_dtype(void) {
  float data[6];
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  DLTensor t = tensor(data, DLX_DTYPE_FLOAT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DTYPE_MISMATCH, "expected dtype int32, got float32");
  s.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 4);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DTYPE_MISMATCH, "expected dtype float32x4, got float32");
  /* legality comes first, even under DLX_DTYPE_ANY */
  s.dtype = DLX_DTYPE_ANY;
  t.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 33, 1);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_DTYPE, "33");
  t.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 0);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_DTYPE, "lanes");
  s.dtype = DLX_DTYPE_FLOAT32;
  t.dtype = DLX_DTYPE_MAKE(99, 8, 1);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_DTYPE, "99");
  /* 1-bit uint is not bool (edge case 10) */
  s.dtype = DLX_DTYPE_BOOL;
  t.dtype = DLX_DTYPE_MAKE(DLX_CODE_UINT, 1, 1);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_DTYPE, "1 bits");
  t.dtype = DLX_DTYPE_UINT8;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DTYPE_MISMATCH, "expected dtype bool, got uint8");
  /* complex is one element with bits = both parts (edge case 11) */
  t.dtype = DLX_DTYPE_COMPLEX64;
  s.dtype = DLX_DTYPE_COMPLEX64;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
}

/* The import's dtype legality agrees with dlx_dtype_is_valid for every (code, bits) pair. */
static void test_import_dtype_legality_table(void) {
  alignas(16) unsigned char data[16];
  DLTensor t = tensor(data, DLX_DTYPE_INT8, kDLCPU, 0, NULL, NULL);
  dlx_import_spec s = spec(DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY);
  static const uint16_t lanes[] = {0, 1, 2, 4, 65535};
  dlx_view v;
  int legal = 0;
  for (unsigned code = 0; code < 256; ++code)
    for (unsigned bits = 0; bits < 256; ++bits)
      for (size_t l = 0; l < sizeof lanes / sizeof lanes[0]; ++l) {
        t.dtype = DLX_DTYPE_MAKE(code, bits, lanes[l]);
        const bool want = dlx_dtype_is_valid(t.dtype);
        const dlx_status st = dlx_view_from_dltensor(&v, &t, &s);
        legal += want;
        if ((st == DLX_OK) != want || (!want && st != DLX_ERR_INVALID_DTYPE)) {
          fprintf(stderr, "  dtype (%u, %u, %u): valid %d, import %s\n", code, bits, lanes[l], want,
                  dlx_status_name(st));
          CHECK(0);
        }
      }
  CHECK(legal > 0);
}

/* CCCL: device type does not match the mdspan kind; dlx also refuses unknown device types. */
static void test_import_device(void) {
  alignas(16) int data[6];
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_DEVICE, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DEVICE_MISMATCH, "expected device type cuda, got cpu");
  s.memspace = DLX_MEMSPACE_MANAGED;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DEVICE_MISMATCH, "expected device type cuda_managed, got cpu");
  s.memspace = DLX_MEMSPACE_HOST;
  t.device.device_type = kDLCUDA;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DEVICE_MISMATCH,
             "expected host memory (cpu, cuda_host or rocm_host), got cuda");
  t.device.device_type = kDLCUDAManaged;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DEVICE_MISMATCH, "got cuda_managed");

  /* edge case 14: pinned memory is host memory whichever label the producer used */
  static const int32_t host_types[] = {kDLCPU, kDLCUDAHost, kDLROCMHost};
  for (int i = 0; i < 3; ++i) {
    t.device.device_type = (DLDeviceType)host_types[i];
    CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
    CHECK_EQ(v.device.device_type, host_types[i]);
  }
  s.memspace = DLX_MEMSPACE_DEVICE;
  t.device.device_type = kDLCUDAHost;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_DEVICE_MISMATCH, "got cuda_host");
  t.device.device_type = kDLCUDA;
  t.device.device_id = 3;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK_EQ(v.device.device_id, 3);
  s.memspace = DLX_MEMSPACE_MANAGED;
  t.device.device_type = kDLCUDAManaged;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));

  /* ANY takes every known type and nothing else (edge case 15) */
  s.memspace = DLX_MEMSPACE_ANY;
  for (int32_t d = -1; d < 40; ++d) {
    t.device.device_type = (DLDeviceType)d;
    /* host memory labelled oneAPI is refused once dpctl can be asked (the oneAPI USM protocol; tests/test_oneapi.c) */
    if (d == kDLOneAPI && dlx_oneapi_device_count() > 0)
      CHECK(dlx_view_from_dltensor(&v, &t, &s) != DLX_OK);
    else if (dlx_device_type_is_known(d))
      CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
    else
      CHECK_EQ(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_DEVICE);
  }
  t.device.device_type = (DLDeviceType)5;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_DEVICE, "unknown device type 5");
  /* an unknown type is INVALID_DEVICE even when a memory space is required */
  s.memspace = DLX_MEMSPACE_HOST;
  t.device.device_type = (DLDeviceType)99;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_DEVICE, "unknown device type 99");
}

/* CCCL: shape is nullptr for rank > 0; a shape[i] is negative. */
static void test_import_shape(void) {
  int data[6];
  int64_t shape[2] = {2, -4}, strides[2] = {3, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, NULL, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NULL_SHAPE, "shape is NULL with ndim 2");
  t.shape = shape;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NEGATIVE_EXTENT, "shape[1] is -4");
  /* every layout and NULL strides see it too */
  for (int l = DLX_LAYOUT_STRIDE; l <= DLX_LAYOUT_ANY; ++l) {
    s.layout = (dlx_layout)l;
    CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NEGATIVE_EXTENT, "shape[1] is -4");
  }
  t.strides = NULL;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NEGATIVE_EXTENT, "shape[1] is -4");
  /* a negative extent next to a zero one is still negative, not empty */
  int64_t mixed[2] = {0, INT64_MIN};
  t.shape = mixed;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NEGATIVE_EXTENT, "shape[1] is -9223372036854775808");
}

/* CCCL: data is nullptr. dlx: only when the tensor has elements. */
static void test_import_null_data(void) {
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  DLTensor t = tensor(NULL, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NULL_DATA, "data is NULL but the tensor has 6 elements");
  /* a rank-0 tensor has one element */
  t.ndim = 0;
  s.ndim = 0;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NULL_DATA, "has 1 elements");
}

/* CCCL: strides is nullptr for >= 1.2, and for layout_left with rank > 1 before 1.2. */
static void test_import_null_strides(void) {
  int data[6];
  int64_t shape[2] = {2, 3};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, NULL);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NULL_STRIDES, "strides is NULL with ndim 2 in a DLPack 1.3");
  s.version = V12;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NULL_STRIDES, "DLPack 1.2 tensor");
  /* before 1.2 NULL means row-major */
  s.version = V11;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK_EQ(v.strides[0], 3);
  CHECK_EQ(v.strides[1], 1);
  s.layout = DLX_LAYOUT_RIGHT;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.layout = DLX_LAYOUT_ANY;
  s.version = DLX_DLPACK_VERSION_LEGACY;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.layout = DLX_LAYOUT_LEFT;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NULL_STRIDES, "layout_left needs explicit strides");
  /* rank 1: row-major and column-major are the same */
  t.ndim = 1;
  s.ndim = 1;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK_EQ(v.strides[0], 1);
  /* rank 0 never needs strides, whatever the version */
  t.ndim = 0;
  s.ndim = 0;
  s.version = V13;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* NULL strides are a version error even for an empty tensor */
  int64_t empty[2] = {0, 3};
  t = tensor(NULL, DLX_DTYPE_INT32, kDLCPU, 2, empty, NULL);
  s.ndim = 2;
  s.layout = DLX_LAYOUT_STRIDE;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_NULL_STRIDES, "1.3");
  s.version = V11;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK_EQ(v.strides[0], 3);
  CHECK_EQ(v.strides[1], 1);
}

/* CCCL: strides[i] not positive for layout_stride. */
static void test_import_layout_stride(void) {
  int data[12];
  int64_t shape[2] = {2, 3}, strides[2] = {0, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_BAD_STRIDE,
             "strides[0] is 0; layout_stride needs positive strides");
  strides[0] = 3;
  strides[1] = -1;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_BAD_STRIDE, "strides[1] is -1; layout_stride");
  /* positive but not compact: fine */
  strides[0] = 6;
  strides[1] = 2;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK_EQ(v.strides[0], 6);
  CHECK_EQ(v.strides[1], 2);
  /* column-major: fine */
  strides[0] = 1;
  strides[1] = 2;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
}

/* CCCL: strides not compatible with layout_right / layout_left. */
static void test_import_layout_right_left(void) {
  int data[24];
  int64_t shape[3] = {2, 3, 4};
  int64_t c[3] = {12, 4, 1}, f[3] = {1, 2, 6}, padded[3] = {16, 4, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 3, shape, c);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 3, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  dlx_view v;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.layout = DLX_LAYOUT_LEFT;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_LAYOUT_MISMATCH, "strides[0] is 12, expected 1 for layout_left");
  t.strides = f;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK_EQ(v.strides[2], 6);
  s.layout = DLX_LAYOUT_RIGHT;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_LAYOUT_MISMATCH, "strides[2] is 6, expected 1 for layout_right");
  /* a padded row is strided, not right */
  t.strides = padded;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_LAYOUT_MISMATCH, "strides[0] is 16, expected 12");
  s.layout = DLX_LAYOUT_STRIDE;
  int big[32];
  t.data = big;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
}

static void test_import_alignment(void) {
  alignas(64) unsigned char buf[256];
  int64_t shape[1] = {4}, strides[1] = {1};
  DLTensor t = tensor(buf + 1, DLX_DTYPE_INT32, kDLCPU, 1, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_MISALIGNED, "+ byte_offset 0 is not aligned to 4 bytes");
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_MISALIGNED, "data 0x");
  /* byte_offset counts: buf + 1 + 3 is aligned */
  t.byte_offset = 3;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK(v.data == buf + 4);
  t.data = buf;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_MISALIGNED, "+ byte_offset 3 is not aligned to 4 bytes");
  /* 4-aligned but not 16-aligned: the natural alignment of int32 is enough */
  t.byte_offset = 4;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* float64: 8 */
  t.dtype = DLX_DTYPE_FLOAT64;
  s.dtype = DLX_DTYPE_FLOAT64;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_MISALIGNED, "not aligned to 8 bytes");
  /* complex64 aligns like its float parts */
  t.dtype = DLX_DTYPE_COMPLEX64;
  s.dtype = DLX_DTYPE_COMPLEX64;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* an explicit alignment overrides the dtype's */
  t.dtype = DLX_DTYPE_UINT8;
  s.dtype = DLX_DTYPE_UINT8;
  t.byte_offset = 16;
  s.alignment = 64;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_MISALIGNED, "+ byte_offset 16 is not aligned to 64 bytes");
  t.byte_offset = 64;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.alignment = 1;
  t.byte_offset = 3;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.alignment = 3;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_ARGUMENT, "spec->alignment 3 is not a power of two");
  /* an empty tensor has no element to misalign */
  s.alignment = 0;
  t.dtype = DLX_DTYPE_INT32;
  s.dtype = DLX_DTYPE_INT32;
  shape[0] = 0;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
}

static void test_import_overflow(void) {
  alignas(16) int data[4];
  dlx_view v;
  /* element count */
  int64_t shape[2] = {INT64_C(1) << 32, INT64_C(1) << 32}, strides[2] = {1, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_ANY);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "element count overflows int64 at shape[1]");
  /* wrapping to exactly 0 must not pass for empty */
  int64_t wrap0[3] = {INT64_C(1) << 32, INT64_C(1) << 32, 2};
  int64_t st3[3] = {1, 1, 1};
  t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 3, wrap0, st3);
  s.ndim = 3;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "element count");
  /* an extent 0 counts as 1 (the scan's exact path, dlx__scan_flags_exact, in every mode): no elements,
   * but the other extents' product is refused; with the overflow gone, the empty tensor imports whatever
   * its strides say */
  int64_t empty_huge[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40}, odd_st[3] = {-7, 0, 5};
  for (int l = DLX_LAYOUT_STRIDE; l <= DLX_LAYOUT_ANY; ++l) {
    s.layout = (dlx_layout)l;
    t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 3, empty_huge, odd_st);
    CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "element count");
    t.strides = NULL;
    CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "element count");
    empty_huge[2] = 3;
    t.strides = odd_st;
    CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
    CHECK(v.shape[0] == 0 && v.shape[2] == 3);
    empty_huge[2] = INT64_C(1) << 40;
  }
  s.layout = DLX_LAYOUT_ANY;
  /* byte span: (2 - 1) * INT64_MAX * 4 */
  int64_t shape2[2] = {2, 2}, big[2] = {INT64_MAX, 1};
  t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape2, big);
  s.ndim = 2;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "byte span overflows int64 at shape[0] = 2");
  big[0] = INT64_MIN; /* |INT64_MIN| must not overflow the computation itself */
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "byte span");
  /* fits in elements, not in bytes */
  big[0] = INT64_MAX / 2;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "(4 bytes per item)");
  big[0] = INT64_MAX / 8;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* the sum of dims overflows though no single term does */
  int64_t sum[2] = {INT64_MAX / 6, INT64_MAX / 6};
  t.strides = sum;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "at shape[1] = 2");
  s.layout = DLX_LAYOUT_STRIDE;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "byte span");
  /* compact layouts: the count fits but count * itemsize does not */
  int64_t long1[1] = {INT64_MAX / 2}, unit[1] = {1};
  t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 1, long1, unit);
  s.ndim = 1;
  s.layout = DLX_LAYOUT_RIGHT;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "byte span");
  t.strides = NULL;
  s.version = DLX_DLPACK_VERSION_LEGACY;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "byte span");
  /* data + byte_offset wraps */
  int64_t one[1] = {1};
  t = tensor((void *)(UINTPTR_MAX - 15), DLX_DTYPE_INT32, kDLCPU, 1, one, unit);
  s = spec(DLX_DTYPE_INT32, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  t.byte_offset = 32;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "+ byte_offset 32 wraps around");
  t.byte_offset = UINT64_MAX;
  t.data = data;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "wraps around");
  /* a cheap bound ((count - 1) * max |stride|) decides most imports; when it is too loose the exact span
   * decides: 3 * 2^59 items of 4 bytes would overflow, the real span of 2^59 + 1 items does not */
  int64_t loose[2] = {INT64_MAX / 16, 1};
  t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape2, loose);
  s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.layout = DLX_LAYOUT_ANY;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* a garbage stride on an extent-1 dim spoils the bound, not the import */
  int64_t row[2] = {1, 4}, junk[2] = {INT64_MIN, 1};
  t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, row, junk);
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.layout = DLX_LAYOUT_STRIDE;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  junk[0] = INT64_MAX;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* the last element's own bytes count: INT64_MAX / 4 items of 4 bytes reach one byte too far */
  int64_t edge[1] = {INT64_MAX / 4 + 1};
  t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 1, edge, unit);
  s = spec(DLX_DTYPE_INT32, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "byte span");
  edge[0] = INT64_MAX / 4;
  t.data = (void *)(uintptr_t)16; /* never dereferenced */
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* packed sub-byte: measured in bits, so offsets in bits fit int64 too */
  t.dtype = DLX_DTYPE_FLOAT4_E2M1FN;
  s.dtype = DLX_DTYPE_FLOAT4_E2M1FN;
  edge[0] = INT64_MAX / 4 + 1; /* 2^61 bytes would fit */
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "(4 bits per item)");
  edge[0] = INT64_MAX / 4;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* every element's address must exist: past the top of the address space ... */
  int64_t eight[1] = {8}, back[1] = {-1};
  t = tensor((void *)(UINTPTR_MAX - 15), DLX_DTYPE_INT32, kDLCPU, 1, eight, unit);
  s = spec(DLX_DTYPE_INT32, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_ANY);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "32 bytes past element 0");
  eight[0] = 4; /* one past the last byte would be address 2^64 */
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "16 bytes past element 0");
  eight[0] = 3;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* ... and below address 0 through negative strides */
  eight[0] = 8;
  t = tensor((void *)(uintptr_t)16, DLX_DTYPE_INT32, kDLCPU, 1, eight, back);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "reach 28 bytes below element 0");
  eight[0] = 5;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* an empty tensor is refused when its extents, 0 counted as 1, overflow (NumPy's rule): its compact
   * strides and partial sizes would not fit int64 */
  int64_t huge_empty[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40}, garbage[3] = {0, 0, 0};
  t = tensor(NULL, DLX_DTYPE_INT32, kDLCPU, 3, huge_empty, garbage);
  s.ndim = 3;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "(extents of 0 counted as 1, as NumPy does)");
  t.strides = NULL;
  s.version = DLX_DLPACK_VERSION_LEGACY;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_OVERFLOW, "at shape[2] = 1099511627776");
}

/* Arguments of the spec itself that are out of range. */
static void test_import_spec_arguments(void) {
  int data[6];
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, -7, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_ARGUMENT, "spec->ndim -7");
  s.ndim = 65;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_ARGUMENT, "spec->ndim 65");
  s.ndim = 2;
  s.dtype = DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 32, 0);
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_ARGUMENT, "spec->dtype (code 2, bits 32, lanes 0)");
  s.dtype = DLX_DTYPE_INT32;
  s.memspace = (dlx_memspace)7;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_ARGUMENT, "spec->memspace 7");
  s.memspace = DLX_MEMSPACE_HOST;
  s.layout = (dlx_layout)11;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_ARGUMENT, "spec->layout 11");
  t.strides = NULL;
  s.version = V11;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_INVALID_ARGUMENT, "spec->layout 11");
}

/* ------------------------------------------------------------------------------------------------ */
/* DLPACK.md section 3 edge cases                                                                   */

/* 1. size-1 dimensions may carry any stride. */
static void test_edge_size1_any_stride(void) {
  int data[6];
  int64_t shape[3] = {1, 6, 1};
  int64_t strides[3] = {0, 1, 42}; /* PyTorch-style garbage on the unit dims */
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 3, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 3, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  dlx_view v;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK_EQ(v.strides[2], 42); /* kept as given */
  s.layout = DLX_LAYOUT_LEFT;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.layout = DLX_LAYOUT_STRIDE;
  strides[0] = -5;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* the stride of a real dimension still counts */
  strides[1] = 2;
  s.layout = DLX_LAYOUT_RIGHT;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_LAYOUT_MISMATCH, "strides[1] is 2, expected 1");
  /* all-ones shape: any strides, one element */
  int64_t ones[2] = {1, 1}, junk[2] = {INT64_MIN, 0};
  t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, ones, junk);
  s.ndim = 2;
  for (int l = DLX_LAYOUT_STRIDE; l <= DLX_LAYOUT_ANY; ++l) {
    s.layout = (dlx_layout)l;
    CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  }
}

/* 2. zero-size tensors: NULL data and garbage strides. */
static void test_edge_zero_size(void) {
  int64_t shape[3] = {4, 0, 3};
  int64_t garbage[3] = {0, -7, 0};
  DLTensor t = tensor(NULL, DLX_DTYPE_FLOAT32, kDLCPU, 3, shape, garbage);
  dlx_import_spec s = spec(DLX_DTYPE_FLOAT32, 3, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  for (int l = DLX_LAYOUT_STRIDE; l <= DLX_LAYOUT_ANY; ++l) {
    s.layout = (dlx_layout)l;
    CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
    CHECK(v.data == NULL);
    CHECK_EQ(dlx_view_size(&v), 0);
    if (l == DLX_LAYOUT_LEFT) { /* column-major, 0 counted as 1 */
      CHECK_EQ(v.strides[0], 1);
      CHECK_EQ(v.strides[1], 4);
      CHECK_EQ(v.strides[2], 4);
    } else { /* row-major */
      CHECK_EQ(v.strides[0], 3);
      CHECK_EQ(v.strides[1], 3);
      CHECK_EQ(v.strides[2], 1);
    }
  }
  /* big extents next to the 0 are fine while their product fits int64 */
  int64_t wide[3] = {INT64_C(1) << 31, 0, INT64_C(1) << 31};
  t.shape = wide;
  s.layout = DLX_LAYOUT_STRIDE;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK(v.data == NULL);
  CHECK_EQ(dlx_view_size(&v), 0);
  CHECK_EQ(v.strides[0], INT64_C(1) << 31);
  CHECK_EQ(v.strides[1], INT64_C(1) << 31);
  CHECK_EQ(v.strides[2], 1);
  t.shape = shape;
  /* strides equal to the shape, another garbage seen in the wild */
  t.strides = shape;
  s.layout = DLX_LAYOUT_RIGHT;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* non-NULL data of an empty tensor is kept, byte_offset applied */
  float buf[4];
  t.data = buf;
  t.byte_offset = 4;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK(v.data == buf + 1);
  /* the export of an empty view re-imports (CCCL cannot: issue 11605) */
  dlx_dltensor dl;
  CHECK_OK(dlx_view_to_dltensor(&v, &dl));
  CHECK(dl.tensor.data == NULL);
  dlx_view back;
  CHECK_OK(dlx_view_from_dltensor(&back, &dl.tensor, &s));
  CHECK_EQ(back.shape[1], 0);
}

/* 3. ndim 0: shape and strides may be NULL and are never read. */
static void test_edge_ndim0(void) {
  double x = 2.5;
  DLTensor t = tensor(&x, DLX_DTYPE_FLOAT64, kDLCPU, 0, NULL, NULL);
  dlx_import_spec s = spec(DLX_DTYPE_FLOAT64, 0, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  for (int l = DLX_LAYOUT_STRIDE; l <= DLX_LAYOUT_ANY; ++l) {
    s.layout = (dlx_layout)l;
    CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
    CHECK_EQ(v.ndim, 0);
    CHECK(v.data == &x);
  }
  /* pointers that would fault if read */
  t.shape = (int64_t *)(uintptr_t)8;
  t.strides = (int64_t *)(uintptr_t)8;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  void *p;
  CHECK_OK(dlx_view_element_ptr(&v, NULL, &p));
  CHECK_EQ(*(double *)p, 2.5);
  int64_t off = -1;
  CHECK_OK(dlx_view_offset(&v, NULL, &off));
  CHECK_EQ(off, 0);
}

/* 4. negative strides: accepted under LAYOUT_ANY, refused with a message under STRIDE. */
static void test_edge_negative_strides(void) {
  int data[6] = {0, 1, 2, 3, 4, 5};
  int64_t shape[2] = {2, 3}, strides[2] = {3, -1};
  /* x[:, ::-1]: element 0 is data[2] */
  DLTensor t = tensor(data + 2, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_ANY);
  dlx_view v;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  void *p;
  int64_t idx[2] = {1, 2};
  CHECK_OK(dlx_view_element_ptr(&v, idx, &p));
  CHECK_EQ(*(int *)p, 3);
  int64_t off;
  CHECK_OK(dlx_view_offset(&v, idx, &off));
  CHECK_EQ(off, 1);
  /* zero (broadcast) strides too */
  strides[0] = 0;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  s.layout = DLX_LAYOUT_STRIDE;
  strides[0] = 3;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_BAD_STRIDE, "strides[1] is -1");
}

/* 5. byte_offset is always added. */
static void test_edge_byte_offset(void) {
  int data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int64_t shape[1] = {4}, strides[1] = {1};
  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, 1, shape, strides);
  t.byte_offset = 4 * sizeof(int);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  dlx_view v;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  CHECK(v.data == data + 4);
  void *p;
  int64_t i0[1] = {0};
  CHECK_OK(dlx_view_element_ptr(&v, i0, &p));
  CHECK_EQ(*(int *)p, 4);
  /* the export carries it in data, with byte_offset 0 */
  dlx_dltensor dl;
  CHECK_OK(dlx_view_to_dltensor(&v, &dl));
  CHECK(dl.tensor.data == data + 4);
  CHECK_EQ(dl.tensor.byte_offset, 0);
}

/* 6. unaligned data is checked, never assumed. */
static void test_edge_unaligned(void) {
  alignas(16) unsigned char buf[64];
  int64_t shape[1] = {2}, strides[1] = {1};
  DLTensor t = tensor(buf + 2, DLX_DTYPE_FLOAT32, kDLCPU, 1, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_FLOAT32, 1, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_dltensor(&v, &t, &s), DLX_ERR_MISALIGNED, "is not aligned to 4 bytes");
  /* the 256-byte promise is not kept by producers: dlx asks only what the dtype needs */
  t.data = buf + 4;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
  /* sub-byte and byte types need no alignment */
  t.data = buf + 3;
  t.dtype = DLX_DTYPE_FLOAT8_E4M3FN;
  s.dtype = DLX_DTYPE_FLOAT8_E4M3FN;
  CHECK_OK(dlx_view_from_dltensor(&v, &t, &s));
}

/* 7. the read-only flag becomes a view flag; other flags too. */
static void test_edge_read_only(void) {
  int data[6];
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 1;
  m.version.minor = 3;
  m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  m.dl_tensor = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  dlx_view v;
  CHECK_OK(dlx_view_from_managed_versioned(&v, &m, &s));
  CHECK_EQ(v.flags, DLX_VIEW_READ_ONLY);
  m.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
  CHECK_OK(dlx_view_from_managed_versioned(&v, &m, &s));
  CHECK_EQ(v.flags, 0);
  m.flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  CHECK_OK(dlx_view_from_managed_versioned(&v, &m, &s));
  CHECK_EQ(v.flags, DLX_VIEW_READ_ONLY | DLX_VIEW_SUBBYTE_PADDED);
  /* a plain DLTensor or a legacy capsule has no flags */
  CHECK_OK(dlx_view_from_dltensor(&v, &m.dl_tensor, &s));
  CHECK_EQ(v.flags, 0);
}

static void test_managed_versioned(void) {
  int data[6];
  int64_t shape[2] = {2, 3}, strides[2] = {3, 1};
  DLManagedTensorVersioned m;
  memset(&m, 0, sizeof m);
  m.version.major = 2;
  m.version.minor = 0;
  m.dl_tensor = tensor(data, DLX_DTYPE_INT32, kDLCPU, 2, shape, strides);
  dlx_import_spec s = spec(DLX_DTYPE_INT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_STRIDE);
  dlx_view v;
  CHECK_FAIL(dlx_view_from_managed_versioned(&v, &m, &s), DLX_ERR_VERSION,
             "DLPack major version 2 is not supported; dlx speaks 1.x");
  m.version.major = 0;
  CHECK_FAIL(dlx_view_from_managed_versioned(&v, &m, &s), DLX_ERR_VERSION, "major version 0");
  /* the tensor's version decides what NULL strides mean, not the spec's */
  m.version.major = 1;
  m.version.minor = 1;
  m.dl_tensor.strides = NULL;
  s.version = V13;
  CHECK_OK(dlx_view_from_managed_versioned(&v, &m, &s));
  CHECK_EQ(v.strides[0], 3);
  m.version.minor = 2;
  s.version = DLX_DLPACK_VERSION_LEGACY;
  CHECK_FAIL(dlx_view_from_managed_versioned(&v, &m, &s), DLX_ERR_NULL_STRIDES, "DLPack 1.2 tensor");
  /* a future minor is still >= 1.2 */
  m.version.minor = 0x10001u;
  CHECK_FAIL(dlx_view_from_managed_versioned(&v, &m, &s), DLX_ERR_NULL_STRIDES, "strides is NULL");
  /* errors of the tensor come through */
  m.version.minor = 3;
  m.dl_tensor.strides = strides;
  m.dl_tensor.ndim = 3;
  CHECK_FAIL(dlx_view_from_managed_versioned(&v, &m, &s), DLX_ERR_RANK, "expected ndim 2, got 3");
}

static void test_managed_legacy(void) {
  float data[6];
  int64_t shape[2] = {3, 2};
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  m.dl_tensor = tensor(data, DLX_DTYPE_FLOAT32, kDLCPU, 2, shape, NULL);
  /* a legacy capsule is pre-1.2 whatever the spec says */
  dlx_import_spec s = spec(DLX_DTYPE_FLOAT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  dlx_view v;
  CHECK_OK(dlx_view_from_managed(&v, &m, &s));
  CHECK_EQ(v.strides[0], 2);
  CHECK_EQ(v.strides[1], 1);
  CHECK_EQ(v.flags, 0);
  s.layout = DLX_LAYOUT_LEFT;
  CHECK_FAIL(dlx_view_from_managed(&v, &m, &s), DLX_ERR_NULL_STRIDES, "layout_left");
  s.layout = DLX_LAYOUT_STRIDE;
  s.dtype = DLX_DTYPE_FLOAT64;
  CHECK_FAIL(dlx_view_from_managed(&v, &m, &s), DLX_ERR_DTYPE_MISMATCH, "expected dtype float64, got float32");
}

/* ------------------------------------------------------------------------------------------------ */
/* Round trips                                                                                      */

/* Visit every index of shape in row-major order; false when done. */
static bool next_index(int32_t nd, const int64_t *shape, int64_t *idx) {
  for (int32_t i = nd - 1; i >= 0; --i) {
    if (++idx[i] < shape[i]) return true;
    idx[i] = 0;
  }
  return false;
}

/* Strides of shape in the given layout: compact right/left, padded column-major for STRIDE, reversed
 * dim 0 for ANY. *first is the element offset of element 0 in the buffer. */
static void layout_strides(dlx_layout l, int32_t nd, const int64_t *shape, int64_t *strides, int64_t *first) {
  int64_t acc = 1;
  *first = 0;
  if (l == DLX_LAYOUT_RIGHT || l == DLX_LAYOUT_ANY) {
    for (int32_t i = nd - 1; i >= 0; --i) {
      strides[i] = acc;
      acc *= shape[i];
    }
    if (l == DLX_LAYOUT_ANY && nd > 0) {
      *first = (shape[0] - 1) * strides[0];
      strides[0] = -strides[0];
    }
  } else {
    const int64_t pad = l == DLX_LAYOUT_STRIDE ? 2 : 1;
    for (int32_t i = 0; i < nd; ++i) {
      strides[i] = acc;
      acc *= shape[i] * pad;
    }
  }
}

static void test_round_trip(void) {
  static const int64_t extents[8] = {2, 3, 1, 2, 2, 1, 3, 2};
  static int32_t buf[1 << 16];
  for (int32_t i = 0; i < (int32_t)(sizeof buf / sizeof buf[0]); ++i) buf[i] = i;
  for (int32_t nd = 0; nd <= 8; ++nd) {
    for (int l = DLX_LAYOUT_STRIDE; l <= DLX_LAYOUT_ANY; ++l) {
      int64_t shape[8], strides[8], first;
      memcpy(shape, extents, sizeof shape);
      layout_strides((dlx_layout)l, nd, shape, strides, &first);
      dlx_view v;
      CHECK_OK(dlx_view_init(&v, buf + first, DLX_DTYPE_INT32, cpu, nd, shape, strides));
      dlx_dltensor dl;
      CHECK_OK(dlx_view_to_dltensor(&v, &dl));
      CHECK_EQ(dl.tensor.ndim, nd);
      dlx_import_spec s = spec(DLX_DTYPE_INT32, nd, DLX_MEMSPACE_HOST, (dlx_layout)l);
      dlx_view back;
      CHECK_OK(dlx_view_from_dltensor(&back, &dl.tensor, &s));
      CHECK(back.data == v.data);
      CHECK_EQ(back.ndim, nd);
      CHECK(dlx_dtype_equal(back.dtype, v.dtype));
      CHECK_EQ(back.device.device_type, kDLCPU);
      for (int32_t i = 0; i < nd; ++i) {
        CHECK_EQ(back.shape[i], shape[i]);
        CHECK_EQ(back.strides[i], strides[i]);
      }
      /* every element lands where the strides say, inside the buffer */
      int64_t idx[8] = {0};
      int64_t visited = 0;
      do {
        void *p;
        CHECK_OK(dlx_view_element_ptr(&back, idx, &p));
        int64_t want = first;
        for (int32_t i = 0; i < nd; ++i) want += idx[i] * strides[i];
        CHECK_EQ(*(int32_t *)p, want);
        ++visited;
      } while (next_index(nd, shape, idx));
      CHECK_EQ(visited, dlx_view_size(&back));
      /* and the re-import accepts only the layouts the strides satisfy */
      if (nd >= 2 && l == DLX_LAYOUT_RIGHT) {
        s.layout = DLX_LAYOUT_LEFT;
        CHECK_EQ(dlx_view_from_dltensor(&back, &dl.tensor, &s), DLX_ERR_LAYOUT_MISMATCH);
      }
      if (nd >= 1 && l == DLX_LAYOUT_ANY && shape[0] > 1) {
        s.layout = DLX_LAYOUT_STRIDE;
        CHECK_EQ(dlx_view_from_dltensor(&back, &dl.tensor, &s), DLX_ERR_BAD_STRIDE);
      }
    }
  }
}

/* NumPy's limit: rank 64 works end to end, 65 does not. */
static void test_rank64(void) {
  int64_t shape[DLX_MAX_NDIM + 1], strides[DLX_MAX_NDIM + 1];
  for (int i = 0; i <= DLX_MAX_NDIM; ++i) shape[i] = (i % 8 == 0) ? 2 : 1;
  int64_t acc = 1;
  for (int i = DLX_MAX_NDIM - 1; i >= 0; --i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  static int32_t data[256];
  dlx_view v;
  CHECK_OK(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, DLX_MAX_NDIM, shape, NULL));
  CHECK_EQ(dlx_view_size(&v), 256);
  dlx_dltensor dl;
  CHECK_OK(dlx_view_to_dltensor(&v, &dl));
  dlx_import_spec s = spec(DLX_DTYPE_INT32, DLX_MAX_NDIM, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT);
  dlx_view back;
  CHECK_OK(dlx_view_from_dltensor(&back, &dl.tensor, &s));
  for (int i = 0; i < DLX_MAX_NDIM; ++i) CHECK_EQ(back.strides[i], strides[i]);
  int64_t idx[DLX_MAX_NDIM];
  for (int i = 0; i < DLX_MAX_NDIM; ++i) idx[i] = shape[i] - 1;
  int64_t off;
  CHECK_OK(dlx_view_offset(&back, idx, &off));
  CHECK_EQ(off, 255);

  DLTensor t = tensor(data, DLX_DTYPE_INT32, kDLCPU, DLX_MAX_NDIM + 1, shape, strides);
  s.ndim = DLX_NDIM_ANY;
  CHECK_FAIL(dlx_view_from_dltensor(&back, &t, &s), DLX_ERR_RANK, "ndim 65 is out of range [0, 64]");
  CHECK_FAIL(dlx_view_init(&v, data, DLX_DTYPE_INT32, cpu, DLX_MAX_NDIM + 1, shape, NULL), DLX_ERR_RANK, "ndim 65");
}

static const dlx_test_case cases[] = {
    {"export_cccl", test_export_cccl},
    {"export_empty_and_rank0", test_export_empty_and_rank0},
    {"export_errors", test_export_errors},
    {"import_cccl", test_import_cccl},
    {"import_null_args", test_import_null_args},
    {"import_rank", test_import_rank},
    {"import_dtype", test_import_dtype},
    {"import_dtype_legality_table", test_import_dtype_legality_table},
    {"import_device", test_import_device},
    {"import_shape", test_import_shape},
    {"import_null_data", test_import_null_data},
    {"import_null_strides", test_import_null_strides},
    {"import_layout_stride", test_import_layout_stride},
    {"import_layout_right_left", test_import_layout_right_left},
    {"import_alignment", test_import_alignment},
    {"import_overflow", test_import_overflow},
    {"import_spec_arguments", test_import_spec_arguments},
    {"edge_size1_any_stride", test_edge_size1_any_stride},
    {"edge_zero_size", test_edge_zero_size},
    {"edge_ndim0", test_edge_ndim0},
    {"edge_negative_strides", test_edge_negative_strides},
    {"edge_byte_offset", test_edge_byte_offset},
    {"edge_unaligned", test_edge_unaligned},
    {"edge_read_only", test_edge_read_only},
    {"managed_versioned", test_managed_versioned},
    {"managed_legacy", test_managed_legacy},
    {"round_trip", test_round_trip},
    {"rank64", test_rank64},
};
DLX_TEST_MAIN(cases)
