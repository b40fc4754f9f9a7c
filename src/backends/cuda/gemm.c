/* The CUDA backend's gemm: cublasGemmEx for float32, float64, complex64, complex128, float16 and bfloat16,
 * on the calling thread's stream.
 *
 * cuBLAS is loaded at first use with dlopen: libdlx built with CUDA then needs nothing but the (static)
 * CUDA runtime to load, and a machine without cuBLAS gets an error from gemm only. One handle per thread
 * and device (handles are not to be shared between threads), destroyed at thread exit.
 *
 * Layouts: the compute layer hands over row-major operands (src/compute/gemm.c). cuBLAS is column-major,
 * and a row-major matrix read column-major is its transpose, so C = op(A) op(B) is computed as
 * C^T = op(B)^T op(A)^T: the operands swap places, m and n swap, and each keeps its transpose flag.
 * Float16 and bfloat16 accumulate in float32 (CUBLAS_COMPUTE_32F, alpha and beta float), like
 * torch.matmul; float32 does not use TF32 (CUBLAS_COMPUTE_32F, not _FAST_TF32), also like torch's
 * default. */
#include <dlfcn.h>
#include <stdio.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#include <cublas_api.h>

#include "backends/cuda/cuda_internal.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"

typedef cublasStatus_t (*create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*destroy_fn)(cublasHandle_t);
typedef cublasStatus_t (*set_stream_fn)(cublasHandle_t, cudaStream_t);
typedef cublasStatus_t (*gemm_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void *,
                                     const void *, cudaDataType, int, const void *, cudaDataType, int, const void *,
                                     void *, cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
typedef const char *(*status_string_fn)(cublasStatus_t);

static struct {
  create_fn create;
  destroy_fn destroy;
  set_stream_fn set_stream;
  gemm_ex_fn gemm_ex;
  status_string_fn status_string;
  char error[256]; /* why loading failed */
} cublas;
static pthread_once_t cublas_once = PTHREAD_ONCE_INIT;
static pthread_key_t handles_key;

static void destroy_handles(void *p) {
  cublasHandle_t *h = p;
  for (int d = 0; d < DLX_CUDA_MAX_DEVICES; ++d)
    if (h[d] != NULL) cublas.destroy(h[d]);
  free(h);
}

static void load_cublas(void) {
  static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
  void *lib = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0] && lib == NULL; ++i) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    snprintf(cublas.error, sizeof cublas.error, "cuBLAS cannot be loaded (%s)", dlerror());
    return;
  }
  /* the object-to-function pointer cast dlsym needs (POSIX guarantees it works) */
#define DLX_SYM(field, type, name) *(void **)(&cublas.field) = dlsym(lib, name)
  DLX_SYM(create, create_fn, "cublasCreate_v2");
  DLX_SYM(destroy, destroy_fn, "cublasDestroy_v2");
  DLX_SYM(set_stream, set_stream_fn, "cublasSetStream_v2");
  DLX_SYM(gemm_ex, gemm_ex_fn, "cublasGemmEx");
  DLX_SYM(status_string, status_string_fn, "cublasGetStatusString");
#undef DLX_SYM
  if (cublas.create == NULL || cublas.destroy == NULL || cublas.set_stream == NULL || cublas.gemm_ex == NULL) {
    snprintf(cublas.error, sizeof cublas.error, "cuBLAS lacks cublasGemmEx or its handle functions");
    cublas.create = NULL;
    return;
  }
  if (pthread_key_create(&handles_key, destroy_handles) != 0) {
    snprintf(cublas.error, sizeof cublas.error, "no thread-local slot for cuBLAS handles");
    cublas.create = NULL;
  }
}

static dlx_status cublas_fail(cublasStatus_t s, const char *what) {
  const char *text = cublas.status_string != NULL ? cublas.status_string(s) : "cuBLAS error";
  return dlx_set_error(DLX_ERR_BACKEND, "dlx_gemm: %s: %s (status %d)", what, text, (int)s);
}

/* The calling thread's handle for device id, bound to its current stream. */
static dlx_status handle_for(int32_t id, cublasHandle_t *out) {
  pthread_once(&cublas_once, load_cublas);
  DLX_FAIL_IF(cublas.create == NULL, DLX_ERR_UNSUPPORTED, "dlx_gemm: %s", cublas.error);
  cublasHandle_t *h = pthread_getspecific(handles_key);
  if (h == NULL) {
    h = calloc(DLX_CUDA_MAX_DEVICES, sizeof *h);
    DLX_FAIL_IF(h == NULL || pthread_setspecific(handles_key, h) != 0, DLX_ERR_OUT_OF_MEMORY,
                "dlx_gemm: out of memory for cuBLAS handles");
  }
  if (h[id] == NULL) {
    const cublasStatus_t s = cublas.create(&h[id]);
    if (s != CUBLAS_STATUS_SUCCESS) return cublas_fail(s, "cublasCreate");
  }
  const cublasStatus_t s = cublas.set_stream(h[id], dlx__cuda_stream(id));
  if (s != CUBLAS_STATUS_SUCCESS) return cublas_fail(s, "cublasSetStream");
  *out = h[id];
  return DLX_OK;
}

dlx_status dlx__cuda_gemm(const dlx__gemm_call *g) {
  cudaDataType type;
  cublasComputeType_t compute;
  /* alpha and beta in the compute type: float or double, (re, im) for complex */
  float af[2] = {(float)g->alpha[0], (float)g->alpha[1]}, bf[2] = {(float)g->beta[0], (float)g->beta[1]};
  const void *alpha = af, *beta = bf;
  const DLDataType dt = g->dtype;
  if (dlx_dtype_equal(dt, DLX_DTYPE_FLOAT32)) type = CUDA_R_32F, compute = CUBLAS_COMPUTE_32F;
  else if (dlx_dtype_equal(dt, DLX_DTYPE_FLOAT16)) type = CUDA_R_16F, compute = CUBLAS_COMPUTE_32F;
  else if (dlx_dtype_equal(dt, DLX_DTYPE_BFLOAT16)) type = CUDA_R_16BF, compute = CUBLAS_COMPUTE_32F;
  else if (dlx_dtype_equal(dt, DLX_DTYPE_COMPLEX64)) type = CUDA_C_32F, compute = CUBLAS_COMPUTE_32F;
  else if (dlx_dtype_equal(dt, DLX_DTYPE_FLOAT64)) type = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F, alpha = g->alpha, beta = g->beta;
  else if (dlx_dtype_equal(dt, DLX_DTYPE_COMPLEX128)) type = CUDA_C_64F, compute = CUBLAS_COMPUTE_64F, alpha = g->alpha, beta = g->beta;
  else {
    char t[DLX_DTYPE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_UNSUPPORTED, "dlx_gemm: the cuda backend has no gemm for %s",
                         dlx__dtype_text(t, sizeof t, dt));
  }
  const int32_t id = g->device.device_id;
  DLX_FORWARD(dlx__cuda_check_device(id, "dlx_gemm"));
  DLX_FORWARD(dlx__cuda_use_device(id, "dlx_gemm"));
  cublasHandle_t h = NULL;
  DLX_FORWARD(handle_for(id, &h));
  /* row-major C = op(A) op(B) as column-major C^T = op(B)^T op(A)^T (see the header) */
  const cublasStatus_t s =
      cublas.gemm_ex(h, g->tb ? CUBLAS_OP_T : CUBLAS_OP_N, g->ta ? CUBLAS_OP_T : CUBLAS_OP_N, g->n, g->m, g->k, alpha,
                     g->b, type, g->ldb, g->a, type, g->lda, beta, g->c, type, g->ldc, compute, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) return cublas_fail(s, "cublasGemmEx");
  return DLX_OK;
}
