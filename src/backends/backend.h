/* Internal: the backend seam. A backend is a table of what one kind of memory provides: allocation, copies
 * between memory kinds, the elementwise executor and gemm. Everything above it (validation, dtype rules,
 * broadcasting, overlap handling, packed sub-byte operands, the loop plan, gemm's operand layouts) is
 * written once in src/compute/ and never asks which backend runs.
 *
 * Backends are chosen by device type in exactly one place, src/backends/backend.c:
 *  - compute on host-accessible memory (cpu, cuda_host, cuda_managed, rocm_host) runs on the CPU backend;
 *  - memory is allocated by the backend that owns the device type (the CPU backend: kDLCPU only);
 *  - oneAPI USM (kDLOneAPI) has two tables, one per column: compute (the CPU loops on host and shared
 *    USM, scratch in shared USM) and memory (device USM by default), see src/backends/oneapi/oneapi.c;
 *  - a device type whose backend is not in this build gets one clear error naming the device and the
 *    build it needs ("out is on cuda:0, which needs a build with CUDA (DLX_WITH_CUDA=ON)").
 *
 * Adding a backend: a folder src/backends/<name>/ defining a `const dlx__backend dlx__<name>_backend`,
 * and its entries in backend.c's two tables (the list of backends, and the rows by device type). */
#ifndef DLX_BACKENDS_BACKEND_H
#define DLX_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/ew.h"
#include "dlx/layout.h"
#include "dlx/view.h"

/* One gemm call, its operands already in layouts BLAS takes: C (m x n, row-major, leading dimension ldc)
 * = alpha * op(A) @ op(B) + beta * C, where op(X) is X (row-major, ld) or its transpose (ta / tb). The
 * compute layer made any copy needed; A and B do not overlap C. alpha and beta: (re, im). */
typedef struct dlx__gemm_call {
  DLDataType dtype; /* float32, float64, complex64, complex128 */
  DLDevice device;
  bool ta, tb;
  int m, n, k;
  const void *a, *b;
  void *c;
  int lda, ldb, ldc;
  double alpha[2], beta[2];
} dlx__gemm_call;

typedef struct dlx__backend {
  const char *name;    /* "cpu", "cuda" */
  int32_t device_type; /* the memory it allocates and computes on: kDLCPU, kDLCUDA */
  /* Devices of that type present at run time (the CPU: 1; CUDA without a GPU or driver: 0). */
  int (*device_count)(void);

  /* bytes (> 0) of this backend's memory on device, 64-byte aligned; zeroed when zero. Names fn in the
   * message of a failure. */
  dlx_status (*alloc)(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn);
  /* Release what alloc returned (NULL is a no-op). Any thread. */
  void (*free)(DLDevice device, void *ptr);

  /* dst[...] = src between this backend's memory and another kind (host <-> device): same dtype, src
   * broadcast to dst, any strides. NULL when the backend has one memory kind (the CPU: every host kind is
   * one address space, and copies among them are elementwise copies). */
  dlx_status (*copy)(const dlx_view *dst, const dlx_view *src);

  /* Packed float6/float4 <-> a compact buffer of one code per byte (row-major order of the view). */
  dlx_status (*unpack)(const dlx_view *packed, void *padded);
  dlx_status (*pack)(const dlx_view *packed, const void *padded);

  /* Run op over plan (operand 0 the output; plan->size > 0). Never fails for a validated op on the
   * CPU; a device backend reports launch failures as DLX_ERR_BACKEND. */
  dlx_status (*execute)(const dlx__ew_op *op, const dlx_iter *plan);

  /* C = alpha * op(A) @ op(B) + beta * C; DLX_ERR_UNSUPPORTED when this build has no BLAS for it. */
  dlx_status (*gemm)(const dlx__gemm_call *call);

  /* The device a pointer into this backend's memory belongs to (cudaPointerGetAttributes); NULL when
   * memory carries no device (the CPU). */
  dlx_status (*pointer_device)(const void *ptr, DLDevice *out);

  /* bytes of memory on device for a new tensor made from the tensor at `like` (an op's result, a copy,
   * empty_like), where a device has several kinds of memory: oneAPI keeps host and shared USM so, so that
   * the CPU loops can compute on the results of ops on them. `like` may be NULL (empty tensors). NULL
   * entry: alloc, as for any new tensor. */
  dlx_status (*alloc_like)(DLDevice device, const void *like, uint64_t bytes, bool zero, void **out, const char *fn);
} dlx__backend;

/* The backend that computes on memory of device (fn, what: the message's function and operand names),
 * and its home: the device its loops and scratch memory use for that memory (cpu:0 for every
 * host-accessible kind, the device itself otherwise). */
dlx_status dlx__backend_compute(DLDevice device, const char *fn, const char *what, const dlx__backend **out,
                                DLDevice *home);
/* The backend that allocates memory of device. */
dlx_status dlx__backend_memory(DLDevice device, const char *fn, const dlx__backend **out);


/* The backends of this build, the CPU first, for tests that run the same cases on each. */
int dlx__backend_count(void);
const dlx__backend *dlx__backend_at(int i); /* NULL past the end */

extern const dlx__backend dlx__cpu_backend;

/* Tests only: compute on host memory with `be` instead of the CPU backend, on the calling thread (NULL
 * restores it); returns the previous override. tests/test_backends.c runs the CUDA kernels' host
 * emulation through every op this way. */
const dlx__backend *dlx__backend_override_host(const dlx__backend *be);

#endif
