/* CCCL's cuda::to_dlpack_tensor example, in C with dlx.
 *
 * A host "mdspan" of 2 x 3 ints (size_t extents, row-major) becomes a non-owning DLTensor whose shape
 * and strides live in a dlx_dltensor holder; no heap allocation. Then CCCL's runtime error: an
 * extent that int64_t cannot represent. Each check is printed, then asserted. */
#undef NDEBUG /* the asserts are the example's checks: keep them in Release builds too */
#include <assert.h>
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

int main(void) {
  int data[6] = {0, 1, 2, 3, 4, 5};
  const size_t extents[2] = {2, 3}; /* cuda::std::extents<size_t, 2, 3> */

  /* cuda::host_mdspan<int, extents_t> md{data, extents_t{}}: layout_right, so no strides */
  DLDevice host;
  CHECK(dlx_device_for(DLX_MEMSPACE_HOST, 0, &host) == DLX_OK);
  dlx_view md;
  CHECK(dlx_view_init_extents(&md, data, DLX_DTYPE_OF(int), host, 2, extents, NULL) == DLX_OK);

  /* auto dl = cuda::to_dlpack_tensor(md); auto dltensor = dl.get(); */
  dlx_dltensor dl;
  CHECK(dlx_view_to_dltensor(&md, &dl) == DLX_OK);
  const DLTensor dltensor = dl.tensor;

  /* `dl` owns the shape/stride storage; `dltensor.data` is a non-owning pointer to `data` */
  CHECK(dltensor.device.device_type == kDLCPU);
  CHECK(dltensor.ndim == 2);
  CHECK(dltensor.shape[0] == 2 && dltensor.shape[1] == 3);
  CHECK(dltensor.strides[0] == 3 && dltensor.strides[1] == 1);
  CHECK(dltensor.data == data);
  CHECK(dltensor.byte_offset == 0);
  CHECK(dltensor.dtype.code == kDLInt && dltensor.dtype.bits == 32 && dltensor.dtype.lanes == 1);
  CHECK(dltensor.shape == dl.shape && dltensor.strides == dl.strides);

  /* device and managed mdspans export with their device. Where CUDA runs (a driver and a GPU), the export
   * asks CUDA about the pointer, as CCCL does, so this host array labelled as device memory is refused
   * instead; elsewhere nothing can be asked and the label is kept */
  dlx_view dmd = md;
  CHECK(dlx_device_for(DLX_MEMSPACE_DEVICE, 1, &dmd.device) == DLX_OK);
  const dlx_status want = dlx_view_to_dltensor(&dmd, &dl);
  CHECK(want == DLX_OK || (want == DLX_ERR_DEVICE_MISMATCH && strstr(dlx_last_error(), "memory CUDA does not know")));
  printf("export_view: host memory labelled cuda:1 %s\n",
         want == DLX_OK ? "exports as labelled (no CUDA to ask here)" : "is refused (CUDA says it is host memory)");
  CHECK(want != DLX_OK || (dl.tensor.device.device_type == kDLCUDA && dl.tensor.device.device_id == 1));
  CHECK(dlx_device_for(DLX_MEMSPACE_MANAGED, 0, &dmd.device) == DLX_OK);
  CHECK(dlx_view_to_dltensor(&dmd, &dl) == want);
  CHECK(want != DLX_OK || (dl.tensor.device.device_type == kDLCUDAManaged && dl.tensor.device.device_id == 0));

  /* an empty mdspan exports data == nullptr */
  const size_t empty_extents[2] = {2, 0};
  dlx_view empty;
  CHECK(dlx_view_init_extents(&empty, data, DLX_DTYPE_OF(int), host, 2, empty_extents, NULL) == DLX_OK);
  CHECK(dlx_view_to_dltensor(&empty, &dl) == DLX_OK);
  CHECK(dl.tensor.data == NULL);

  /* runtime error: an extent that int64_t cannot represent (CCCL throws std::invalid_argument) */
  const size_t huge[2] = {2, (size_t)INT64_MAX + 1u};
  dlx_view bad;
  dlx_status st = dlx_view_init_extents(&bad, data, DLX_DTYPE_OF(int), host, 2, huge, NULL);
  printf("     -> %s: %s\n", dlx_status_name(st), dlx_last_error());
  CHECK(st == DLX_ERR_OVERFLOW);
  CHECK(strstr(dlx_last_error(), "extent[1]") != NULL);

  printf("export_view: %s\n", failures == 0 ? "all checks passed" : "FAILED");
  return failures != 0;
}
