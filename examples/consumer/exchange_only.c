/* Import and export only: link the exchange layer alone (dlx::exchange, or -ldlx_exchange; libc, nothing else). */
#include <stdio.h>
#include <dlx/version.h>
#include <dlx/view.h>

int main(void) {
  float data[2][3] = {{1, 2, 3}, {4, 5, 6}};
  int64_t shape[2] = {2, 3};
  dlx_view v; /* a strided view of host memory: no allocation */
  dlx_dltensor out; /* the DLTensor and its shape and strides, caller-owned */
  if (dlx_view_init(&v, data, DLX_DTYPE_FLOAT32, (DLDevice){kDLCPU, 0}, 2, shape, NULL) != DLX_OK ||
      dlx_view_to_dltensor(&v, &out) != DLX_OK)
    return fprintf(stderr, "export: %s\n", dlx_last_error()), 1;
  /* import with CCCL's checks: float32, rank 2, host memory, row-major */
  dlx_import_spec spec = {DLX_DTYPE_FLOAT32, 2, DLX_MEMSPACE_HOST, DLX_LAYOUT_RIGHT, DLX_DLPACK_VERSION_NUM(1, 3), 0};
  dlx_view in;
  if (dlx_view_from_dltensor(&in, &out.tensor, &spec) != DLX_OK) return fprintf(stderr, "import: %s\n", dlx_last_error()), 1;
  out.tensor.strides[1] = 2; /* a bad stride: refused, with a message naming it */
  dlx_status st = dlx_view_from_dltensor(&in, &out.tensor, &spec);
  printf("dlx %s exchange: %lldx%lld float32 round trip ok; bad stride: %s (%s)\n", dlx_version_string(),
         (long long)in.shape[0], (long long)in.shape[1], dlx_status_name(st), dlx_last_error());
  return st == DLX_OK;
}
