/* The kernel expressions (src/kernels/expr.h, convert.h) compiled by nvcc: for the host, and for the GPU
 * (sm_90 and PTX), with --fmad=false as every dlx kernel must be built (a fused multiply-add rounds once
 * where the CPU rounds twice: complex products and fma would differ in the last bit). Every rule is
 * evaluated on every pair of odd values and compared byte for byte with the C build of the same rules
 * (expr_eval.c). The GPU half runs when a device is present and is reported as skipped otherwise. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda/expr_eval.h"

extern "C" size_t dlx_expr_eval_c(double a, double b, double s, unsigned char *out);

static const double values[DLX_EXPR_NVALUES] = DLX_EXPR_VALUES;
static const double scalars[] = {1.5, -0.5, 3.0};
static const int npairs = DLX_EXPR_NVALUES * DLX_EXPR_NVALUES;

__global__ void eval_kernel(const double *vals, double s, unsigned char *out, unsigned long long *sizes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= DLX_EXPR_NVALUES * DLX_EXPR_NVALUES) return;
  sizes[i] = dlx_expr_eval_pair(vals[i / DLX_EXPR_NVALUES], vals[i % DLX_EXPR_NVALUES], s,
                                out + (size_t)i * DLX_EXPR_PAIR_BYTES);
}

/* First differing byte of a pair, or -1. */
static long first_diff(const unsigned char *x, size_t nx, const unsigned char *y, size_t ny) {
  if (nx != ny) return 0;
  for (size_t k = 0; k < nx; ++k)
    if (x[k] != y[k]) return (long)k;
  return -1;
}

int main() {
  std::vector<unsigned char> ref((size_t)npairs * DLX_EXPR_PAIR_BYTES), got(ref.size());
  std::vector<size_t> nref(npairs);
  int failures = 0;
  size_t bytes = 0;
  bool device = false;
  int ndev = 0;
  const cudaError_t probe = cudaGetDeviceCount(&ndev);
  if (probe == cudaSuccess && ndev > 0) device = true;
  for (double s : scalars) {
    for (int i = 0; i < npairs; ++i) {
      const double a = values[i / DLX_EXPR_NVALUES], b = values[i % DLX_EXPR_NVALUES];
      unsigned char *r = &ref[(size_t)i * DLX_EXPR_PAIR_BYTES], *g = &got[(size_t)i * DLX_EXPR_PAIR_BYTES];
      nref[i] = dlx_expr_eval_c(a, b, s, r);
      const size_t ng = dlx_expr_eval_pair(a, b, s, g);
      bytes += nref[i];
      const long d = first_diff(r, nref[i], g, ng);
      if (d >= 0 && failures++ < 10)
        std::printf("FAIL host: a=%.17g b=%.17g s=%g: nvcc's host build differs from C at byte %ld\n", a, b, s, d);
    }
    if (!device) continue;
    double *dv = nullptr;
    unsigned char *dout = nullptr;
    unsigned long long *dsz = nullptr;
    std::vector<unsigned long long> sz(npairs);
    bool ok = cudaMalloc(&dv, sizeof values) == cudaSuccess && cudaMalloc(&dout, got.size()) == cudaSuccess &&
              cudaMalloc(&dsz, npairs * sizeof(unsigned long long)) == cudaSuccess &&
              cudaMemcpy(dv, values, sizeof values, cudaMemcpyHostToDevice) == cudaSuccess;
    if (ok) {
      eval_kernel<<<(npairs + 127) / 128, 128>>>(dv, s, dout, dsz);
      ok = cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess &&
           cudaMemcpy(got.data(), dout, got.size(), cudaMemcpyDeviceToHost) == cudaSuccess &&
           cudaMemcpy(sz.data(), dsz, npairs * sizeof(unsigned long long), cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    cudaFree(dv);
    cudaFree(dout);
    cudaFree(dsz);
    if (!ok) {
      std::printf("FAIL device: a CUDA call failed: %s\n", cudaGetErrorString(cudaGetLastError()));
      return 1;
    }
    for (int i = 0; i < npairs; ++i) {
      const long d = first_diff(&ref[(size_t)i * DLX_EXPR_PAIR_BYTES], nref[i], &got[(size_t)i * DLX_EXPR_PAIR_BYTES],
                                (size_t)sz[i]);
      if (d >= 0 && failures++ < 10)
        std::printf("FAIL device: a=%.17g b=%.17g s=%g: the GPU differs from C at byte %ld\n",
                    values[i / DLX_EXPR_NVALUES], values[i % DLX_EXPR_NVALUES], s, d);
    }
  }
  std::printf("kernel expressions: %d value pairs x %zu scalars, %zu bytes of results: C == nvcc host%s\n", npairs,
              sizeof scalars / sizeof scalars[0], bytes, device ? " == GPU" : "");
  if (!device)
    std::printf("SKIP the GPU half: no CUDA device (cudaGetDeviceCount: %s, %d devices)\n", cudaGetErrorString(probe),
                ndev);
  if (failures) std::printf("%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
