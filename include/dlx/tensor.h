/* dlx/tensor.h - refcounted tensors: owned memory or a borrowed DLPack managed tensor, plus views.
 *
 * A dlx_tensor is a dlx_view over a shared storage. The storage either owns a 64-byte aligned host
 * allocation or holds a DLManagedTensor / DLManagedTensorVersioned whose deleter runs exactly once, when
 * the last tensor using it is released (on whatever thread that happens). Views (index, slice, permute,
 * reshape, broadcast, squeeze) share the storage. Ops take an optional *out: NULL allocates it.
 * Thread safety: retain/release are atomic and safe from any thread; one tensor's data may be read from
 * many threads, written by one. */
#ifndef DLX_TENSOR_H
#define DLX_TENSOR_H

#include <stdint.h>

#include "dlx/dlpack.h"
#include "dlx/error.h"
#include "dlx/export.h"
#include "dlx/ops.h"
#include "dlx/view.h"
#include "dlx/viewops.h"

DLX_EXTERN_C_BEGIN

typedef struct dlx_tensor dlx_tensor;

/* A new C-contiguous tensor (uninitialised) on device, from the backend that owns its memory: host
 * memory, or in a build with CUDA cuda:N device memory (the caching allocator, on the calling thread's
 * current stream), cuda_host (pinned) and cuda_managed memory. DLX_ERR_DEVICE_MISMATCH for a device no
 * backend of this build allocates (naming the build it needs), DLX_ERR_INVALID_DEVICE for an absent one. */
DLX_API dlx_status dlx_tensor_empty(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype,
                                    DLDevice device);
/* A new tensor with t's shape, dtype and device (and t's kind of memory where a device has several: oneAPI
 * host or shared USM, see dlx/oneapi.h). */
DLX_API dlx_status dlx_tensor_empty_like(dlx_tensor **out, const dlx_tensor *t);

/* New C-contiguous tensors with contents, on device as dlx_tensor_empty allocates them (its statuses for
 * the shape, dtype and device), filled by the op of dlx/ops.h named (its statuses); on failure *out is
 * untouched and nothing stays allocated.
 * dlx_tensor_zeros: all-zero bits (numpy.zeros: 2^-127 in float8_e8m0fnu, which has no zero), any dtype.
 * dlx_tensor_full: value (any view that broadcasts to shape, on the host or on device) in value's dtype;
 * dlx_fill.
 * dlx_tensor_arange, dlx_tensor_arange_int: numpy.arange(start, stop, step, dtype): the length of
 * dlx_arange_length (_int), then dlx_arange (_int).
 * dlx_tensor_eye: numpy.eye(n, m, k, dtype), shape (n, m); dlx_eye. */
DLX_API dlx_status dlx_tensor_zeros(dlx_tensor **out, int32_t ndim, const int64_t *shape, DLDataType dtype,
                                    DLDevice device);
DLX_API dlx_status dlx_tensor_full(dlx_tensor **out, int32_t ndim, const int64_t *shape, const dlx_view *value,
                                   DLDevice device);
DLX_API dlx_status dlx_tensor_arange(dlx_tensor **out, double start, double stop, double step, DLDataType dtype,
                                     DLDevice device);
DLX_API dlx_status dlx_tensor_arange_int(dlx_tensor **out, int64_t start, int64_t stop, int64_t step,
                                         DLDataType dtype, DLDevice device);
DLX_API dlx_status dlx_tensor_eye(dlx_tensor **out, int64_t n, int64_t m, int64_t k, DLDataType dtype,
                                  DLDevice device);
/* Take over a managed tensor (validated as dlx_view_from_managed_versioned with any layout). On failure
 * the deleter has run. */
DLX_API dlx_status dlx_tensor_from_managed_versioned(dlx_tensor **out, DLManagedTensorVersioned *m);
DLX_API dlx_status dlx_tensor_from_managed(dlx_tensor **out, DLManagedTensor *m);
/* Export as a versioned managed tensor (one allocation) that keeps the storage alive; its deleter needs
 * no lock and no interpreter. READ_ONLY is carried over. */
DLX_API dlx_status dlx_tensor_to_managed_versioned(dlx_tensor *t, DLManagedTensorVersioned **out);

/* Streams and events (augpy's record): dlx_tensor_record marks the tensor's last use so far on stream
 * (a cudaStream_t; NULL: dlx's current stream of the tensor's device, dlx/cuda.h) with an event kept
 * with its storage (one per storage, shared by every view and export of it; a new record moves it);
 * dlx_tensor_wait makes stream (NULL: dlx's current stream) wait for that event, without blocking the
 * host (DLX_OK with nothing to do when nothing was recorded). Memory dlx allocated is not reused before
 * the recorded work is done; a producer's memory is handed back to its deleter only after that work.
 * Host memory (cpu, cuda_host, rocm_host) has nothing to order: DLX_OK. CUDA device memory uses its
 * device; managed memory cuda:0 (DLPack labels it device 0). Errors: DLX_ERR_UNSUPPORTED for a device
 * tensor in a build without CUDA or on a device with no events (oneAPI, ROCm), DLX_ERR_INVALID_DEVICE
 * when its device is absent, DLX_ERR_BACKEND for a stream CUDA refuses (one of another device). */
DLX_API dlx_status dlx_tensor_record(dlx_tensor *t, void *stream);
DLX_API dlx_status dlx_tensor_wait(dlx_tensor *t, void *stream);

DLX_API dlx_tensor *dlx_tensor_retain(dlx_tensor *t);  /* returns t; NULL is a no-op */
DLX_API void dlx_tensor_release(dlx_tensor *t);        /* NULL is a no-op */
DLX_API const dlx_view *dlx_tensor_view(const dlx_tensor *t);

/* Views sharing t's storage; see dlx/viewops.h for the rules. */
DLX_API dlx_status dlx_tensor_index(dlx_tensor **out, dlx_tensor *t, int64_t i); /* first dimension */
DLX_API dlx_status dlx_tensor_subscript(dlx_tensor **out, dlx_tensor *t, int32_t n, const dlx_index_item *items);
DLX_API dlx_status dlx_tensor_permute(dlx_tensor **out, dlx_tensor *t, const int32_t *perm);
DLX_API dlx_status dlx_tensor_transpose(dlx_tensor **out, dlx_tensor *t);
DLX_API dlx_status dlx_tensor_reshape(dlx_tensor **out, dlx_tensor *t, int32_t ndim, const int64_t *shape);
/* Reshape that copies into a new contiguous tensor when a view is impossible. */
DLX_API dlx_status dlx_tensor_reshape_copy(dlx_tensor **out, dlx_tensor *t, int32_t ndim, const int64_t *shape);
DLX_API dlx_status dlx_tensor_broadcast_to(dlx_tensor **out, dlx_tensor *t, int32_t ndim, const int64_t *shape);
DLX_API dlx_status dlx_tensor_squeeze(dlx_tensor **out, dlx_tensor *t, int32_t dim);
DLX_API dlx_status dlx_tensor_unsqueeze(dlx_tensor **out, dlx_tensor *t, int32_t dim);

/* Ops (dlx/ops.h) with optional outputs: *out NULL allocates the result (shape broadcast from the
 * inputs; dtype the input's, bool for the ops that write bool (comparisons, logical ops, predicates), where's
 * values' (b's), dst dtype for casts; on cpu:0 for host-accessible inputs, else on the first input's
 * device (where's b), in its kind of memory where a device has several); otherwise *out is written and
 * kept. An op value outside its enum is DLX_ERR_INVALID_ARGUMENT naming it. */
DLX_API dlx_status dlx_tensor_binary(dlx_binop op, dlx_tensor **out, dlx_tensor *a, dlx_tensor *b);
DLX_API dlx_status dlx_tensor_unary(dlx_unop op, dlx_tensor **out, dlx_tensor *a);
DLX_API dlx_status dlx_tensor_ternary(dlx_ternop op, dlx_tensor **out, dlx_tensor *a, dlx_tensor *b, dlx_tensor *c);
DLX_API dlx_status dlx_tensor_binary_scalar(dlx_binop op, dlx_tensor **out, dlx_tensor *a, double scalar,
                                            int reversed);
DLX_API dlx_status dlx_tensor_cast(dlx_tensor **out, dlx_tensor *t, DLDataType dtype);
DLX_API dlx_status dlx_tensor_fma(dlx_tensor **out, double scalar, dlx_tensor *t1, dlx_tensor *t2);
DLX_API dlx_status dlx_tensor_gemm(dlx_tensor **c, double alpha, dlx_tensor *a, dlx_tensor *b, double beta);

DLX_EXTERN_C_END

#endif
