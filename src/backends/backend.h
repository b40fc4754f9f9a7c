/* Internal: the device interface, in two halves (as ggml separates buffer types from backends).
 *
 *  - The memory half (dlx__memory_ops), one per kind of memory a backend owns: allocation, copies
 *    between memory kinds, the pointer query that gives a device id, the device's streams and events,
 *    synchronisation, and the cache controls.
 *  - The compute half (dlx__compute_ops), one per backend: the elementwise executor over a dlx_iter
 *    plan, reductions (kernels/reduce.h), the packing of float6/float4, gemm, and where its scratch
 *    memory comes from.
 *
 * A backend is a folder src/backends/<name>/ that defines its halves (a dlx__backend names both), and
 * one row per device type in backend.c saying which halves serve that memory: which compute half runs
 * ops on it, which memory half allocates and moves it, and whose streams order work on it. That row is
 * the one place a device type meets a backend; nothing above this folder (compute, tensor, the Python
 * module) asks which backend it has. A ROCm backend would be src/backends/rocm/ and its row.
 *
 * Every table is filled with designated initialisers. The entries marked "optional" may be left NULL:
 * the wrapper functions below (dlx__device_*, dlx__queue_*) give their default, in backend.c, so that
 * no caller tests an entry itself. Everything above the backends (validation, dtype rules, broadcasting,
 * overlap, packed operands, the plan, gemm's operand layouts) is written once in src/compute/.
 *
 * Rows of this build (backend.c): host-accessible memory (cpu, cuda_host, cuda_managed, rocm_host)
 * computes on the CPU backend; pinned and managed memory are allocated by the CUDA runtime, and managed
 * memory is ordered by the streams of cuda:0 (its DLPack device id is 0); CUDA device memory is the
 * CUDA backend's; oneAPI USM computes through the oneAPI backend (the CPU loops on host and shared USM)
 * and is allocated as device USM by default. A device type whose backend is not in this build gets one
 * error naming the device and the build it needs ("out is on cuda:0, which needs a build with CUDA
 * (DLX_WITH_CUDA=ON)"). */
#ifndef DLX_BACKENDS_BACKEND_H
#define DLX_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "dlx/layout.h"
#include "dlx/view.h"
#include "kernels/ew.h"
#include "kernels/reduce.h"

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

/* One gather or scatter of integer-array indexing (dlx_gather / dlx_scatter, compute/gather.c), validated
 * and resolved by the compute layer: every index checked against its extent and summed into the byte
 * offset of the element it selects. The index positions are the elements of the index shape B (row-major,
 * `count` of them); position i selects the block at byte offset offsets[i] from strided->data, whose
 * dimensions are the rest of the indexed view's. dense has shape B + rest.
 *  - gather:  dense[i, r] = block_i[r];
 *  - scatter: block_i[r] = dense[i, r], where a position whose offset is DLX__GATHER_SKIP is left out (an
 *    index that a later position repeats: the last one in row-major order wins, on every backend alike).
 * Elements are byte-sized (packed float6/float4 were unpacked) and move as bytes. No operand overlaps the
 * written one. offsets is host memory: a device backend copies it over itself, without blocking the host. */
#define DLX__GATHER_SKIP INT64_MIN
typedef struct dlx__gather_op {
  bool scatter;
  DLDevice device;         /* where it runs: the backend's home for the memory */
  int32_t nb;              /* dense's first nb dimensions are B */
  int64_t count;           /* index positions: the product of B (> 0) */
  const int64_t *offsets;  /* count byte offsets, in host memory; NULL in the direct form below */
  const dlx_view *dense;   /* out (gather), or value broadcast to B + rest (scatter) */
  const dlx_view *strided; /* src (gather) or dst (scatter) at the first element of the rest: the rest only */
  /* Set for a backend whose `ordered` is true (never otherwise):
   *  - a scatter's offsets have no DLX__GATHER_SKIP: positions may repeat, and the backend applies them so
   *    that the last one in row-major order of B wins;
   *  - the direct form, offsets NULL: one index view `index` (host memory, int32 or int64, C-contiguous, of
   *    shape B) selects the block at (w < 0 ? w + extent : w) * step bytes for its value w. Its values are
   *    not checked yet: the backend checks every one against [-extent, extent) before it writes anything,
   *    and returns DLX_ERR_INDEX (no message needed) when one is outside; the compute layer then takes the
   *    general path, which names it. */
  const dlx_view *index;
  int64_t extent, step;
} dlx__gather_op;

/* One boolean-mask gather (dlx_mask_gather, compute/mask.c), validated by the compute layer: out[j, r] =
 * src[c_j, r] for the row-major coordinates c_0, c_1, ... of mask's true elements (a nonzero byte is true).
 * The mask's dimensions and src's first dimensions were merged where both allow (extent-1 dimensions
 * dropped), as shape and byte strides [0, nm); mask is host memory. count is out's extent 0: the backend
 * counts the true elements before it writes anything, and returns DLX_ERR_BROADCAST (no message needed:
 * the compute layer says it) when they are another number. src and out do not overlap; elements are
 * byte-sized. */
typedef struct dlx__mask_op {
  DLDevice device;
  int32_t nm;                 /* the merged mask dimensions (>= 1) */
  int64_t shape[DLX_MAX_NDIM];
  int64_t mask_strides[DLX_MAX_NDIM]; /* bytes */
  int64_t src_strides[DLX_MAX_NDIM];  /* bytes */
  const unsigned char *mask;          /* the mask's element 0 */
  int64_t count;
  const dlx_view *out;        /* (count,) + rest, any strides */
  const dlx_view *src;        /* src at its first element, its rest dimensions only (ndim = out's - 1) */
} dlx__mask_op;

/* The loop plan of op (dlx_iter): operand 0 dense, 1 the offsets (int64 at `offsets`, which is op->offsets
 * or a device copy of it, broadcast over the rest), 2 strided (broadcast over B). Every operand has dense's
 * shape. A loop adds operand 1's value to operand 2's address. */
dlx_status dlx__gather_plan(const dlx__gather_op *op, const void *offsets, dlx_iter *plan);

/* What a memory's allocator cache holds (dlx_cuda_memory_stats has the same fields). */
typedef struct dlx__cache_stats {
  uint64_t allocated, cached, peak_allocated, driver_allocs;
} dlx__cache_stats;

/* ======================================================================================================
 * The memory half.
 *
 * Streams and events are the backend's handles as void * (cudaStream_t, cudaEvent_t); NULL is a valid
 * stream (CUDA's legacy default stream). device arguments are device ids of the table's device type,
 * checked by the wrappers against device_count before any entry is called.
 * ==================================================================================================== */

typedef struct dlx__memory_ops {
  const char *name;    /* "cpu", "cuda", "oneapi" */
  const char *label;   /* in messages: "CPU", "CUDA", "oneAPI" */
  int32_t device_type; /* its devices: kDLCPU, kDLCUDA, kDLOneAPI */
  /* Devices present at run time (the CPU: 1; CUDA without a GPU or driver: 0). */
  int (*device_count)(void);

  /* bytes (> 0) of memory of device (a device type this table serves: its row), 64-byte aligned;
   * zeroed when zero. Names fn in the message of a failure. */
  dlx_status (*alloc)(DLDevice device, uint64_t bytes, bool zero, void **out, const char *fn);
  /* Release what alloc returned (NULL is a no-op). Any thread. */
  void (*free)(DLDevice device, void *ptr);
  /* Optional: memory for a new tensor made from the tensor at like (an op's result, a copy, empty_like),
   * where a device has several kinds of memory: oneAPI keeps host and shared USM so, so that the CPU
   * loops can compute on results of ops on them. like may be NULL. Default: alloc. */
  dlx_status (*alloc_like)(DLDevice device, const void *like, uint64_t bytes, bool zero, void **out, const char *fn);

  /* Optional: dst[...] = src between this memory and another kind (host <-> device): same dtype, src
   * broadcast to dst, any strides. NULL when the memory is host-accessible (copies among host kinds are
   * elementwise copies of the CPU backend). Blocks the host when one side is host memory. */
  dlx_status (*copy)(const dlx_view *dst, const dlx_view *src);

  /* Optional: the device a pointer into this memory belongs to (cudaPointerGetAttributes); DLPack's
   * labels for memory the runtime does not know (kDLCPU). Default: no check is possible. */
  dlx_status (*pointer_device)(const void *ptr, DLDevice *out);

  /* Optional, the device's streams (default for each: DLX_ERR_UNSUPPORTED naming the memory). The
   * current stream is per thread and per device. */
  dlx_status (*stream_get)(int32_t device, void **stream);
  dlx_status (*stream_set)(int32_t device, void *stream, void **previous);
  dlx_status (*stream_create)(int32_t device, bool non_blocking, void **stream);
  dlx_status (*stream_destroy)(int32_t device, void *stream);
  /* waiter runs nothing queued after this call before what producer has queued so far; the host does
   * not wait. */
  dlx_status (*stream_wait)(int32_t device, void *waiter, void *producer);
  /* The host waits for the stream, or for the whole device. */
  dlx_status (*stream_synchronize)(int32_t device, void *stream);
  dlx_status (*synchronize)(int32_t device);

  /* Optional, events (default: DLX_ERR_UNSUPPORTED naming the memory). fn names the caller in messages. */
  dlx_status (*event_create)(int32_t device, void **event, const char *fn);
  /* Record event on stream, after the work queued there so far. */
  dlx_status (*event_record)(int32_t device, void *event, void *stream, const char *fn);
  /* stream waits for the event's last record, without blocking the host. */
  dlx_status (*event_wait)(int32_t device, void *event, void *stream, const char *fn);
  /* *done: whether the event's last record has completed (or it was never recorded). */
  dlx_status (*event_query)(int32_t device, void *event, bool *done);
  /* Destroy event; with host_wait, wait for its last record first. Errors are ignored (this runs at
   * release, on any thread, possibly after the runtime shut down). */
  void (*event_destroy)(int32_t device, void *event, bool host_wait);
  /* Optional: the allocator's block at ptr (memory it handed out) is not reused before event has
   * completed; false when ptr is none of its blocks (the caller then waits on the host). Default: false. */
  bool (*guard_block)(void *ptr, void *event);

  /* Optional, the allocator's cache: give every cached block back (default: nothing cached, DLX_OK),
   * and what it holds on device (default: DLX_ERR_UNSUPPORTED). */
  dlx_status (*empty_cache)(void);
  dlx_status (*cache_stats)(int32_t device, dlx__cache_stats *out);
} dlx__memory_ops;

/* ======================================================================================================
 * The compute half.
 * ==================================================================================================== */

typedef struct dlx__compute_ops {
  const char *name;
  /* Run op over plan (operand 0 the output; plan->size > 0). Never fails for a validated op on the
   * CPU; a device backend reports launch failures as DLX_ERR_BACKEND. Inputs given by value
   * (op->byval) are read from op->value, never through the plan's pointer, by a device backend. */
  dlx_status (*execute)(const dlx__ew_op *op, const dlx_iter *plan);
  /* Packed float6/float4 <-> a compact buffer of one code per byte (row-major order of the view). */
  dlx_status (*unpack)(const dlx_view *packed, void *padded);
  dlx_status (*pack)(const dlx_view *packed, const void *padded);
  /* Optional: the gather or scatter of integer-array indexing (dlx__gather_op). Default: one copy per index
   * position through execute, which any backend has; right but slow for many positions, so a backend with
   * kernels gives its own. */
  dlx_status (*gather)(const dlx__gather_op *op);
  /* Its gather entry takes the ordered forms of dlx__gather_op (repeated scatter positions, last wins; the
   * direct form of one index view). False: the compute layer marks repeats with DLX__GATHER_SKIP. */
  bool ordered;
  /* Optional: a boolean-mask gather (dlx__mask_op). Default: the coordinates of the true elements become
   * byte offsets on the host and go through gather (compute/mask.c). */
  dlx_status (*mask_gather)(const dlx__mask_op *op);
  /* Its loops read host-accessible memory in place (oneAPI runs the CPU's loops on USM): a non-copy op on
   * this backend's memory takes inputs in host-accessible memory as they are (dlx__ew_op.host), so that
   * out= on device USM works with host inputs. Other backends refuse such inputs ("an op runs on one
   * device"); copies move them through the memory half either way. */
  bool reads_host;
  /* Optional: a reduction, validated and planned by the compute layer (src/compute/reduce.c; op->nout and
   * op->nred > 0, op->scratch allocated by this half's scratch_alloc), computed along kernels/reduce.h's
   * fixed tree so that every backend gives the same bits. Default: DLX_ERR_UNSUPPORTED naming the
   * backend (dlx__backend_reduce). */
  dlx_status (*reduce)(const dlx__red_op *op);
  /* C = alpha * op(A) @ op(B) + beta * C; DLX_ERR_UNSUPPORTED when this build has no BLAS for it. */
  dlx_status (*gemm)(const dlx__gemm_call *call);
  /* Optional: scratch memory of an op on device (overlap copies, unpacked operands, gemm's compact
   * copies) and its release. oneAPI keeps scratch in shared USM, so that its CPU loops can use it.
   * Default: the memory half of device's row. */
  dlx_status (*scratch_alloc)(DLDevice device, uint64_t bytes, void **out, const char *fn);
  void (*scratch_free)(DLDevice device, void *ptr);
} dlx__compute_ops;

/* One backend: a folder's two halves. */
typedef struct dlx__backend {
  const char *name;
  const dlx__memory_ops *memory;
  const dlx__compute_ops *compute;
} dlx__backend;

/* ======================================================================================================
 * Choosing by device (backend.c, the rows).
 * ==================================================================================================== */

/* The compute half that runs ops on memory of device (fn, what: the message's function and operand
 * names), and its home: the device its loops and scratch memory use for that memory (cpu:0 for every
 * host-accessible kind, the device itself otherwise). */
dlx_status dlx__backend_compute(DLDevice device, const char *fn, const char *what, const dlx__compute_ops **out,
                                DLDevice *home);
/* The memory half that allocates memory of device. */
dlx_status dlx__backend_memory(DLDevice device, const char *fn, const dlx__memory_ops **out);
/* The memory half serving memory of device_type in this build, or NULL (the public controls of a
 * device type, controls.c, say "built without" then). */
const dlx__memory_ops *dlx__memory_of_type(int32_t device_type);
/* Why a device type's backend module did not load ("" when it did, or when the type has none). */
const char *dlx__backend_module_why(int32_t device_type);
/* The memory half that moves data between memory of a and memory of b (the one of the two with a copy
 * entry), or NULL when neither has one. */
const dlx__memory_ops *dlx__backend_mover(DLDevice a, DLDevice b);

/* The backends of this build, the CPU first, for tests that run the same cases on each. */
int dlx__backend_count(void);
const dlx__backend *dlx__backend_at(int i); /* NULL past the end */

/* The CPU backend: every other backend may lean on its halves (oneAPI runs the CPU loops on USM). */
extern const dlx__backend dlx__cpu_backend;
extern const dlx__memory_ops dlx__cpu_memory;
extern const dlx__compute_ops dlx__cpu_compute;
/* The true elements of op's mask (host memory: whatever backend runs the gather), counted on the CPU
 * backend's threads; op->out and op->src may be NULL. -1 when out of memory. */
int64_t dlx__cpu_mask_count(const dlx__mask_op *op);

/* ======================================================================================================
 * The wrappers: every optional entry's default lives here.
 * ==================================================================================================== */

/* New memory for a tensor on device made from the tensor at like (alloc_like, else alloc). */
dlx_status dlx__device_alloc_like(const dlx__memory_ops *m, DLDevice device, const void *like, uint64_t bytes,
                                  bool zero, void **out, const char *fn);
/* Run op on compute half c: its gather entry, else one copy per index position through c->execute. */
dlx_status dlx__compute_gather(const dlx__compute_ops *c, const dlx__gather_op *op);
/* Run reduction op on compute half c (its reduce entry, else DLX_ERR_UNSUPPORTED naming c). */
dlx_status dlx__backend_reduce(const dlx__compute_ops *c, const dlx__red_op *op);
/* Scratch memory of compute half c on home (its scratch entries, else home's memory half), and its release. */
dlx_status dlx__scratch_alloc(const dlx__compute_ops *c, DLDevice home, uint64_t bytes, void **out, const char *fn);
void dlx__scratch_free(const dlx__compute_ops *c, DLDevice home, void *ptr);

/* The queue that orders work on memory: whose streams and events (q->mem) of which device (q->device).
 * q->mem is NULL for host memory, where nothing is queued. Errors: memory whose device type has no
 * streams in dlx (oneAPI), or needs a backend this build lacks, or whose device is not present. */
typedef struct dlx__queue {
  const dlx__memory_ops *mem;
  int32_t device;
} dlx__queue;
dlx_status dlx__device_queue(DLDevice memory, const char *fn, dlx__queue *q);
/* Whether any memory's queue has a device present in this process (a CUDA GPU): where none has, dlx
 * has queued no device work at all, and callers skip asking. */
bool dlx__any_queue_present(void);

/* The queue's entries with their defaults (DLX_ERR_UNSUPPORTED naming the memory where an entry is
 * missing). stream: NULL is a valid stream; dlx__queue_current_stream gives the calling thread's. */
dlx_status dlx__queue_current_stream(const dlx__queue *q, void **stream);
dlx_status dlx__queue_stream_wait(const dlx__queue *q, void *waiter, void *producer);
dlx_status dlx__queue_event_create(const dlx__queue *q, void **event, const char *fn);
dlx_status dlx__queue_event_record(const dlx__queue *q, void *event, void *stream, const char *fn);
dlx_status dlx__queue_event_wait(const dlx__queue *q, void *event, void *stream, const char *fn);
/* Destroy an event of memory m's device (from dlx__queue_event_create); never fails. */
void dlx__memory_event_destroy(const dlx__memory_ops *m, int32_t device, void *event, bool host_wait);
/* Keep the block at ptr from reuse until event completes (guard_block); false when m's allocator does
 * not own ptr. */
bool dlx__memory_guard_block(const dlx__memory_ops *m, void *ptr, void *event);

/* The DLPack Python protocol's stream= for an export of memory on source to target (the standard's values
 * per device type; target differs from source when the export copies, dl_device=):
 *  - DLX__STREAM_NONE: nothing to order (host memory with stream=None, stream=-1, memory of a device
 *    type where dlx queues no work, or no device present to have queued any);
 *  - DLX__STREAM_ORDER: *stream is the consumer's stream, to order the export before;
 *  - an error status: a value the standard forbids for the device type (DLX_ERR_INVALID_ARGUMENT, the
 *    message naming the value and what is allowed), or a stream given for host memory
 *    (DLX_ERR_UNSUPPORTED). A stream for host memory copied from device memory (dl_device) is checked
 *    against the source's rule and orders nothing: the copy is done when the export returns.
 * given: whether stream= was passed (not None); value: its value then. */
typedef enum dlx__stream_action { DLX__STREAM_NONE = 0, DLX__STREAM_ORDER = 1 } dlx__stream_action;
dlx_status dlx__dlpack_stream(DLDevice source, DLDevice target, bool given, int64_t value,
                              dlx__stream_action *action, void **stream);
/* The value of stream= that names stream (a handle of device's memory half) in the DLPack protocol:
 * CUDA's legacy default stream (NULL) is 1. */
int64_t dlx__dlpack_stream_value(DLDevice device, void *stream);

/* ======================================================================================================
 * Test hooks.
 * ==================================================================================================== */

/* Compute on host memory with c instead of the CPU backend, on the calling thread (NULL restores it);
 * returns the previous override. tests/test_backends.c runs the CUDA kernels' host emulation through
 * every op this way. */
const dlx__compute_ops *dlx__backend_override_host(const dlx__compute_ops *c);
/* Serve memory of device_type with be's halves (compute, memory and streams) on the calling thread, as
 * if be were that device type's backend (NULL restores the row). For tests that run an emulated device
 * backend on host memory labelled as a device (tests/test_backends.c's no-sync test). */
void dlx__backend_override_device(int32_t device_type, const dlx__backend *be);

#endif
