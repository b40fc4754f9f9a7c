/* examples/consumer/main.c - a program built against an installed dlx (CMake package or pkg-config):
 * export a row-major float32 matrix as a DLTensor, import it back with full validation, and check
 * that a transposed view is refused as layout_right. Exit status 0 when every step did what it should. */
#include <stdio.h>

#include <dlx/dlx.h>

#define EXPECT(cond)                                       \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "consumer: %s failed: %s\n", #cond, dlx_last_error()); \
      return 1;                                            \
    }                                                      \
  } while (0)

int main(void) {
  float data[2][3] = {{1, 2, 3}, {4, 5, 6}};
  int64_t shape[2] = {2, 3};
  DLDevice cpu = {kDLCPU, 0};

  dlx_view v;
  EXPECT(dlx_view_init(&v, data, DLX_DTYPE_FLOAT32, cpu, 2, shape, NULL) == DLX_OK);

  dlx_dltensor holder;
  EXPECT(dlx_view_to_dltensor(&v, &holder) == DLX_OK);
  EXPECT(holder.tensor.ndim == 2 && holder.tensor.strides[0] == 3 && holder.tensor.strides[1] == 1);

  dlx_import_spec spec = {DLX_DTYPE_FLOAT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT,
                          DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR), 0};
  dlx_view back;
  EXPECT(dlx_view_from_dltensor(&back, &holder.tensor, &spec) == DLX_OK);
  EXPECT(back.data == (void *)data && back.shape[1] == 3);

  /* the transpose: strides (1, 3) are not row-major */
  int64_t tshape[2] = {3, 2}, tstrides[2] = {1, 3};
  DLTensor t = holder.tensor;
  t.shape = tshape;
  t.strides = tstrides;
  dlx_status st = dlx_view_from_dltensor(&back, &t, &spec);
  EXPECT(st == DLX_ERR_LAYOUT_MISMATCH);

  char name[DLX_DTYPE_NAME_MAX];
  EXPECT(dlx_dtype_format(v.dtype, name, sizeof name) == DLX_OK);
  /* the package says whether it has the CUDA backend (dlxConfig.cmake's dlx_WITH_CUDA, dlx.pc's with_cuda);
   * the library must agree */
#ifdef DLX_EXPECT_CUDA
  EXPECT(dlx_cuda_built() == DLX_EXPECT_CUDA);
#endif
  printf("dlx %s (CUDA backend: %s, %d device%s) consumer: exported and re-imported a 2x3 %s matrix; transpose "
         "refused (%s: %s)\n",
         DLX_VERSION_STRING, dlx_cuda_built() ? "yes" : "no", dlx_cuda_device_count(),
         dlx_cuda_device_count() == 1 ? "" : "s", name, dlx_status_name(st), dlx_last_error());
  return 0;
}
