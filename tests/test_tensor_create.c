/* Tests for src/tensor/create.c: dlx_tensor_full, dlx_tensor_arange(_int), dlx_tensor_eye: the shape, dtype
 * and device of the new tensor, its contents (the ops' own tests, test_create.c, pin the values), and that a
 * failure leaves nothing allocated and *out untouched. Device tensors on an emulated device (host memory
 * labelled cuda:0, as in test_backends.c) whose allocations are counted. */
#include <math.h>
#include <stdlib.h>

#include "runner.h"

#include "backends/backend.h"
#include "dlx/tensor.h"

#define CPU ((DLDevice){kDLCPU, 0})
#define EMU ((DLDevice){kDLCUDA, 0})
#define I64(...) ((const int64_t[]){__VA_ARGS__})

static int emu_live; /* allocations not yet freed */
static int emu_count(void) { return 1; }
static dlx_status emu_alloc(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn) {
  (void)device, (void)fn, (void)zero;
  *out = calloc(1, bytes ? bytes : 1);
  if (*out == NULL) return DLX_ERR_OUT_OF_MEMORY;
  ++emu_live;
  return DLX_OK;
}
static void emu_free(DLDevice device, void *ptr) {
  (void)device;
  --emu_live;
  free(ptr);
}
static dlx_status emu_copy(const dlx_view *dst, const dlx_view *src) {
  dlx_view d = *dst, s = *src;
  d.device = s.device = CPU;
  return dlx_copy(&d, &s);
}
static const dlx__memory_ops emu_memory = {
    .name = "emu", .label = "emulated", .device_type = kDLCUDA, .device_count = emu_count,
    .alloc = emu_alloc, .free = emu_free, .copy = emu_copy};
static const dlx__backend emu_backend = {"emulated-cuda (CPU loops)", &emu_memory, &dlx__cpu_compute};

static void test_full(void) {
  dlx_tensor *t = NULL;
  dlx_scalar_buf b;
  dlx_view s;
  CHECK_OK(dlx_scalar_view(&s, &b, DLX_DTYPE_INT16, -7, 0));
  CHECK_OK(dlx_tensor_full(&t, 2, I64(2, 3), &s, CPU));
  const dlx_view *v = dlx_tensor_view(t);
  CHECK(dlx_dtype_equal(v->dtype, DLX_DTYPE_INT16) && v->ndim == 2 && v->shape[1] == 3);
  for (int i = 0; i < 6; ++i) CHECK(((int16_t *)v->data)[i] == -7);
  dlx_tensor_release(t);
  /* a row broadcast down */
  float row[3] = {1, 2, 3};
  dlx_view r;
  CHECK_OK(dlx_view_init(&r, row, DLX_DTYPE_FLOAT32, CPU, 1, I64(3), NULL));
  CHECK_OK(dlx_tensor_full(&t, 2, I64(2, 3), &r, CPU));
  CHECK(((float *)dlx_tensor_view(t)->data)[5] == 3);
  dlx_tensor_release(t);
  t = NULL;
  CHECK_FAIL(dlx_tensor_full(NULL, 1, I64(2), &s, CPU), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_full(&t, 1, I64(2), NULL, CPU), DLX_ERR_NULL_ARGUMENT, "'value'");
  CHECK_FAIL(dlx_tensor_full(&t, 1, NULL, &s, CPU), DLX_ERR_NULL_ARGUMENT,
             "dlx_tensor_full: argument 'shape' is NULL with ndim 1");
  CHECK_FAIL(dlx_tensor_full(&t, 1, I64(2), &r, CPU), DLX_ERR_BROADCAST, "does not broadcast");
  CHECK_FAIL(dlx_tensor_full(&t, 1, I64(-1), &s, CPU), DLX_ERR_NEGATIVE_EXTENT, "-1");
  CHECK(t == NULL);
}

static void test_arange(void) {
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_arange(&t, 0, 1, 0.3, DLX_DTYPE_FLOAT32, CPU)); /* np.arange(0, 1, 0.3, dtype=float32) */
  const dlx_view *v = dlx_tensor_view(t);
  CHECK(v->ndim == 1 && v->shape[0] == 4 && dlx_dtype_equal(v->dtype, DLX_DTYPE_FLOAT32));
  CHECK(((float *)v->data)[3] == 0.0f + 3.0f * 0.3f);
  dlx_tensor_release(t);
  CHECK_OK(dlx_tensor_arange_int(&t, 10, -2, -3, DLX_DTYPE_INT8, CPU));
  v = dlx_tensor_view(t);
  CHECK_EQ(v->shape[0], 4);
  CHECK(((int8_t *)v->data)[3] == 1);
  dlx_tensor_release(t);
  CHECK_OK(dlx_tensor_arange_int(&t, 5, 5, 1, DLX_DTYPE_FLOAT64, CPU)); /* empty */
  CHECK_EQ(dlx_tensor_view(t)->shape[0], 0);
  dlx_tensor_release(t);
  /* refusals: the length's, the allocation's, the op's (and nothing left behind) */
  t = NULL;
  CHECK_FAIL(dlx_tensor_arange(NULL, 0, 1, 1, DLX_DTYPE_FLOAT32, CPU), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_arange_int(NULL, 0, 1, 1, DLX_DTYPE_INT32, CPU), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_arange(&t, 0, 1, 0, DLX_DTYPE_FLOAT32, CPU), DLX_ERR_INVALID_ARGUMENT, "step is 0");
  CHECK_FAIL(dlx_tensor_arange_int(&t, 0, 1, 0, DLX_DTYPE_INT32, CPU), DLX_ERR_INVALID_ARGUMENT, "step is 0");
  CHECK_FAIL(dlx_tensor_arange(&t, 0, 1, 1, DLX_DTYPE_MAKE(DLX_CODE_INT, 12, 1), CPU), DLX_ERR_INVALID_DTYPE, "12");
  CHECK_FAIL(dlx_tensor_arange_int(&t, 0, 1, 1, DLX_DTYPE_INT32, ((DLDevice){kDLCPU, 1})), DLX_ERR_INVALID_DEVICE,
             "cpu device id 1");
  CHECK_FAIL(dlx_tensor_arange(&t, 0, 3, 1, DLX_DTYPE_BOOL, CPU), DLX_ERR_UNSUPPORTED, "a bool arange of 3 elements");
  CHECK_FAIL(dlx_tensor_arange_int(&t, 126, 130, 2, DLX_DTYPE_INT8, CPU), DLX_ERR_OVERFLOW,
             "dlx_arange_int: start + step is 128, outside the range of int8");
  CHECK(t == NULL);
}

static void test_eye(void) {
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_eye(&t, 2, 3, -1, DLX_DTYPE_INT32, CPU));
  const dlx_view *v = dlx_tensor_view(t);
  CHECK(v->ndim == 2 && v->shape[0] == 2 && v->shape[1] == 3);
  const int32_t want[6] = {0, 0, 0, 1, 0, 0};
  CHECK(memcmp(v->data, want, sizeof want) == 0);
  dlx_tensor_release(t);
  t = NULL;
  CHECK_FAIL(dlx_tensor_eye(NULL, 2, 2, 0, DLX_DTYPE_INT32, CPU), DLX_ERR_NULL_ARGUMENT, "'out'");
  CHECK_FAIL(dlx_tensor_eye(&t, 2, -2, 0, DLX_DTYPE_INT32, CPU), DLX_ERR_NEGATIVE_EXTENT, "-2");
  CHECK_FAIL(dlx_tensor_eye(&t, 2, 2, 0, DLX_DTYPE_INT128, CPU), DLX_ERR_UNSUPPORTED, "dtype int128 has no kernel");
  CHECK(t == NULL);
}

/* On a device: the tensors live there, and a failing op frees what was allocated. */
static void test_device(void) {
  dlx__backend_override_device(kDLCUDA, &emu_backend);
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_arange_int(&t, 3, 9, 2, DLX_DTYPE_INT64, EMU));
  const dlx_view *v = dlx_tensor_view(t);
  CHECK(v->device.device_type == kDLCUDA && v->shape[0] == 3 && ((int64_t *)v->data)[2] == 7);
  CHECK_EQ(emu_live, 1);
  dlx_tensor_release(t);
  CHECK_OK(dlx_tensor_eye(&t, 3, 3, 0, DLX_DTYPE_FLOAT16, EMU));
  CHECK(((uint16_t *)dlx_tensor_view(t)->data)[4] == 0x3C00);
  dlx_tensor_release(t);
  dlx_scalar_buf b;
  dlx_view s;
  CHECK_OK(dlx_scalar_view(&s, &b, DLX_DTYPE_UINT8, 9, 0));
  CHECK_OK(dlx_tensor_full(&t, 1, I64(4), &s, EMU));
  CHECK(((uint8_t *)dlx_tensor_view(t)->data)[3] == 9);
  dlx_tensor_release(t);
  CHECK_OK(dlx_tensor_zeros(&t, 1, I64(4), DLX_DTYPE_FLOAT32, EMU));
  dlx_tensor_release(t);
  CHECK_EQ(emu_live, 0);
  t = NULL;
  CHECK_FAIL(dlx_tensor_arange_int(&t, 126, 130, 2, DLX_DTYPE_INT8, EMU), DLX_ERR_OVERFLOW, "start + step is 128");
  CHECK_FAIL(dlx_tensor_eye(&t, 2, 2, 0, DLX_DTYPE_INT128, EMU), DLX_ERR_UNSUPPORTED, "has no kernel");
  CHECK(t == NULL);
  CHECK_EQ(emu_live, 0);
  dlx__backend_override_device(kDLCUDA, NULL);
}

static const dlx_test_case cases[] = {
    {"full", test_full},
    {"arange", test_arange},
    {"eye", test_eye},
    {"device", test_device},
};
DLX_TEST_MAIN(cases)
