/* CCCL's cuda::to_host_mdspan example, in C with dlx.
 *
 * A hand-made DLTensor of 2 x 3 ints becomes a dlx_view (the analog of host_mdspan<int, dims<2>,
 * layout_stride>), then each of CCCL's runtime errors is shown with its own status and message.
 * Each check is printed, then asserted. */
#undef NDEBUG /* the asserts are the example's checks: keep them in Release builds too */
#include <assert.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dlx/dlx.h"

static int failures;

static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  fflush(stdout);
  failures += !ok;
  assert(ok);
}
#define CHECK(cond) check((cond) != 0, #cond)

static int at(const dlx_view *md, int64_t i, int64_t j) {
  const int64_t idx[2] = {i, j};
  void *p = NULL;
  dlx_status st = dlx_view_element_ptr(md, idx, &p);
  assert(st == DLX_OK);
  (void)st;
  return *(const int *)p;
}

/* Import t under s and expect status `want` with `needle` in the message. */
static void expect_error(const char *what, const DLTensor *t, const dlx_import_spec *s, dlx_status want,
                         const char *needle) {
  dlx_view v;
  dlx_status st = dlx_view_from_dltensor(&v, t, s);
  printf("     %-34s -> %s: %s\n", what, dlx_status_name(st), dlx_last_error());
  check(st == want && strstr(dlx_last_error(), needle) != NULL, what);
}

int main(void) {
  alignas(16) int data[6] = {0, 1, 2, 3, 4, 5};

  /* Create a DLTensor manually for demonstration */
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {3, 1}; /* row-major strides */
  DLTensor tensor;
  memset(&tensor, 0, sizeof tensor);
  tensor.data = data;
  tensor.device.device_type = kDLCPU;
  tensor.device.device_id = 0;
  tensor.ndim = 2;
  tensor.dtype = DLX_DTYPE_OF(int);
  tensor.shape = shape;
  tensor.strides = strides;
  tensor.byte_offset = 0;

  /* auto md = cuda::to_host_mdspan<int, 2>(tensor); */
  const dlx_import_spec host_int2 = {
      .dtype = DLX_DTYPE_OF(int),
      .ndim = 2,
      .memspace = DLX_MEMSPACE_HOST,
      .layout = DLX_LAYOUT_STRIDE,
      .version = DLX_DLPACK_VERSION_NUM(1, 3),
      .alignment = 0,
  };
  dlx_view md;
  CHECK(dlx_view_from_dltensor(&md, &tensor, &host_int2) == DLX_OK);

  CHECK(md.ndim == 2);
  CHECK(md.shape[0] == 2 && md.shape[1] == 3);
  CHECK(md.strides[0] == 3 && md.strides[1] == 1);
  CHECK(md.data == data);
  CHECK(at(&md, 0, 0) == 0 && at(&md, 1, 2) == 5);

  /* the runtime errors, each with its own status */
  dlx_import_spec s = host_int2;
  DLTensor t = tensor;

  s.ndim = 3;
  expect_error("ndim does not match Rank", &t, &s, DLX_ERR_RANK, "expected ndim 3, got 2");
  s = host_int2;

  s.dtype = DLX_DTYPE_FLOAT32;
  expect_error("dtype does not match ElementType", &t, &s, DLX_ERR_DTYPE_MISMATCH, "expected dtype float32, got int32");
  s = host_int2;

  t.data = NULL;
  expect_error("data is nullptr", &t, &s, DLX_ERR_NULL_DATA, "has 6 elements");
  t = tensor;

  t.shape = NULL;
  expect_error("shape is nullptr (rank > 0)", &t, &s, DLX_ERR_NULL_SHAPE, "shape is NULL");
  t = tensor;

  int64_t negative[2] = {2, -4};
  t.shape = negative;
  expect_error("shape[i] is negative", &t, &s, DLX_ERR_NEGATIVE_EXTENT, "shape[1] is -4");
  t = tensor;

  t.strides = NULL;
  expect_error("strides is nullptr, DLPack >= 1.2", &t, &s, DLX_ERR_NULL_STRIDES, "1.3");
  s.version = DLX_DLPACK_VERSION_NUM(1, 1);
  s.layout = DLX_LAYOUT_LEFT;
  expect_error("strides nullptr, layout_left, < 1.2", &t, &s, DLX_ERR_NULL_STRIDES, "layout_left");
  s.layout = DLX_LAYOUT_STRIDE;
  CHECK(dlx_view_from_dltensor(&md, &t, &s) == DLX_OK && md.strides[0] == 3 && md.strides[1] == 1);
  s = host_int2;
  t = tensor;

  int64_t zero_stride[2] = {0, 1};
  t.strides = zero_stride;
  expect_error("stride not positive, layout_stride", &t, &s, DLX_ERR_BAD_STRIDE,
               "strides[0] is 0; layout_stride needs positive strides");
  t = tensor;

  s.layout = DLX_LAYOUT_LEFT;
  expect_error("strides not layout_left", &t, &s, DLX_ERR_LAYOUT_MISMATCH, "expected 1 for layout_left");
  s = host_int2;

  s.memspace = DLX_MEMSPACE_DEVICE;
  expect_error("device type is not kDLCUDA", &t, &s, DLX_ERR_DEVICE_MISMATCH, "expected device type cuda, got cpu");
  s = host_int2;

  t.byte_offset = 2;
  expect_error("data not aligned for int", &t, &s, DLX_ERR_MISALIGNED, "+ byte_offset 2 is not aligned to 4 bytes");
  t = tensor;

  printf("import_view: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures != 0;
}
