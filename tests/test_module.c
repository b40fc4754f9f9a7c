/* Tests for src/backends/module.c: a backend module is loaded at the first need of one of its halves, never
 * before; where it is not, every CUDA entry says why (which file, where it was looked for, what failed).
 * Each scenario runs in its own process (the load happens once per process), named by argv[1] and set up
 * by tests/CMakeLists.txt's environment:
 *   lazy      DLX_CUDA_MODULE as the build left it: nothing loads before the first CUDA need; then the
 *             module loads when the build made one (DLX_TEST_EXPECT_MODULE=1)
 *   missing   DLX_CUDA_MODULE names a file that does not exist
 *   relative  DLX_CUDA_MODULE is a relative path: refused, never looked up from the current directory
 *   abi       a module built for another ABI: refused, naming both versions
 *   noentry   a shared object without the entry point
 *   notelf    a file that is no shared object */
#include <stdlib.h>
#include <string.h>

#include "runner.h"

#include "backends/backend.h"
#include "backends/module.h"
#include "dlx/cuda.h"
#include "dlx/tensor.h"

static void expect_unavailable(const char *why_part) {
  CHECK_EQ(dlx_cuda_built(), 0);
  CHECK_EQ(dlx_cuda_device_count(), 0);
  CHECK(dlx__module_tried(&dlx__cuda_module));
  const char *why = dlx__module_why(&dlx__cuda_module);
  if (strstr(why, why_part) == NULL) {
    fprintf(stderr, "  why: \"%s\" lacks \"%s\"\n", why, why_part);
    CHECK(false);
  }
  /* every CUDA entry says the same: the build it needs, then why the module did not load */
  dlx_tensor *t = NULL;
  CHECK_FAIL(dlx_tensor_empty(&t, 1, (int64_t[]){4}, DLX_DTYPE_FLOAT32, (DLDevice){kDLCUDA, 0}),
             DLX_ERR_DEVICE_MISMATCH, "cannot allocate on cuda:0, which needs a build with CUDA (DLX_WITH_CUDA=ON): ");
  CHECK(strstr(dlx_last_error(), why_part) != NULL);
  void *s = NULL;
  CHECK_FAIL(dlx_cuda_stream_create(0, 1, &s), DLX_ERR_UNSUPPORTED, "dlx_cuda_stream_create: dlx was built without CUDA");
  CHECK(strstr(dlx_last_error(), why_part) != NULL);
  /* host memory is untouched by it */
  CHECK_OK(dlx_tensor_empty(&t, 1, (int64_t[]){4}, DLX_DTYPE_FLOAT32, (DLDevice){kDLCPU, 0}));
  dlx_tensor_release(t);
}

static void test_scenario(void) {
  const char *s = getenv("DLX_TEST_MODULE_SCENARIO");
  CHECK(s != NULL);
  if (s == NULL) return;
  /* nothing of the process so far needed CUDA: the module is not even looked for */
  CHECK_EQ(dlx__module_tried(&dlx__cuda_module), 0);
  dlx_tensor *t = NULL;
  CHECK_OK(dlx_tensor_empty(&t, 2, (int64_t[]){2, 3}, DLX_DTYPE_INT32, (DLDevice){kDLCPU, 0}));
  dlx_tensor_release(t);
  CHECK_EQ(dlx__module_tried(&dlx__cuda_module), 0);
  if (strcmp(s, "lazy") == 0) {
    const char *expect = getenv("DLX_TEST_EXPECT_MODULE");
    const int built = dlx_cuda_built(); /* the first CUDA need */
    CHECK(dlx__module_tried(&dlx__cuda_module));
    if (expect != NULL && strcmp(expect, "1") == 0) {
      CHECK_EQ(built, 1);
      CHECK_STR(dlx__module_path(&dlx__cuda_module), getenv("DLX_CUDA_MODULE"));
      CHECK_STR(dlx__module_why(&dlx__cuda_module), "");
      /* the loaded backend is in the list the backend tests run */
      bool listed = false;
      for (int i = 0; dlx__backend_at(i) != NULL; ++i) listed |= strcmp(dlx__backend_at(i)->name, "cuda") == 0;
      CHECK(listed);
      printf("module loaded from %s (%d device%s)\n", dlx__module_path(&dlx__cuda_module), dlx_cuda_device_count(),
             dlx_cuda_device_count() == 1 ? "" : "s");
    } else {
      expect_unavailable("not installed");
    }
  } else if (strcmp(s, "missing") == 0) {
    expect_unavailable("the CUDA backend module is not installed (no /nonexistent/dir/libdlx_cuda.so");
  } else if (strcmp(s, "relative") == 0) {
    expect_unavailable("DLX_CUDA_MODULE=libdlx_cuda.so is not an absolute path");
  } else if (strcmp(s, "abi") == 0) {
    expect_unavailable("was built for module ABI 9999 (dlx 0.0.0-fake), but this dlx has ABI");
  } else if (strcmp(s, "noentry") == 0) {
    expect_unavailable("is no dlx backend module (no dlx_backend_module)");
  } else if (strcmp(s, "notelf") == 0) {
    expect_unavailable("could not be loaded");
  } else {
    fprintf(stderr, "  unknown scenario %s\n", s);
    CHECK(false);
  }
}

static const dlx_test_case tests[] = {
    {"scenario", test_scenario},
};

DLX_TEST_MAIN(tests)
