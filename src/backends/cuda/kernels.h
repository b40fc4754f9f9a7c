/* Internal to the CUDA backend: the elementwise kernels (kernels*.cu) and their host emulation.
 *
 * The kernels take what the compute layer hands every backend (backends/backend.h, kernels/ew.h): a
 * validated dlx__ew_op and a dlx_iter plan over device pointers (operand 0 the output, byte strides,
 * broadcast inputs at stride 0, no negative output stride), and compute every element with the rules of
 * kernels/expr.h and the codec of kernels/convert.h, taking exactly the conversion paths the CPU backend
 * takes (cpu.c, dlx__cpu_select_loop), so that both give the same bits.
 *
 * Every kernel is a __global__ shell around one __host__ __device__ per-thread body. The *_emulated
 * functions run that same body on the host, serially, for every thread of the grid the launch would use
 * (the fast vectorised path included): on host pointers, with no CUDA runtime call. They exist for tests,
 * so that the kernels' arithmetic, dispatch and indexing are checked bit for bit against the CPU backend
 * on a machine without a GPU. They have the signatures of the backend table's entries (minus the
 * stream), so a test can wrap them as a pseudo-backend.
 *
 * Limits: a plan (or a packed view, after merging its contiguous dimensions) of more than
 * DLX_CUDA_MAX_DIMS dimensions is refused with DLX_ERR_UNSUPPORTED. */
#ifndef DLX_BACKENDS_CUDA_KERNELS_H
#define DLX_BACKENDS_CUDA_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

#include "backends/backend.h"
#include "kernels/ew.h"

/* The most dimensions a kernel's offset calculator holds (kernel parameters are passed by value, and
 * each dimension costs a divider and a stride per operand). dlx_iter coalesces contiguous dimensions
 * first, so real plans rarely have more than 4. */
#define DLX_CUDA_MAX_DIMS 16

/* Run op over plan (device pointers) on stream (a cudaStream_t, NULL for the legacy default stream).
 * Asynchronous: returns after the launch. DLX_ERR_BACKEND with the CUDA error when a launch fails;
 * DLX_ERR_UNSUPPORTED when the plan has more than DLX_CUDA_MAX_DIMS dimensions (or for an op the compute
 * layer refuses, which has no kernel). */
dlx_status dlx__cuda_execute(const dlx__ew_op *op, const dlx_iter *plan, void *stream);

/* Packed float6/float4 view (device memory, any strides, negative ones included: element i of the view
 * at bit offset e * bits from data, e its element offset) <-> padded, a compact row-major buffer of one
 * code per byte, as the CPU backend's packed_walk. pack never lets two threads write one byte: a
 * contiguous view is packed by threads that each own whole bytes (2 float4 or 4 float6 codes), any other
 * view in one pass per residue class of e (mod 2 for float4, mod 4 for float6), within which no two
 * elements share a byte. */
dlx_status dlx__cuda_unpack(const dlx_view *packed, void *padded, void *stream);
dlx_status dlx__cuda_pack(const dlx_view *packed, const void *padded, void *stream);

/* The gather or scatter op (backends/backend.h) on stream, its byte offsets at `offsets` in device memory
 * (op->offsets is the host's copy). Asynchronous; DLX_ERR_BACKEND when the launch fails. */
dlx_status dlx__cuda_gather(const dlx__gather_op *op, const void *offsets, void *stream);
/* The mask gather op (backends/backend.h) on stream: mask is the op's mask made one compact run of 0/1
 * bytes in device memory (dlx__cuda_mask_bytes), scratch dlx__cuda_mask_scratch_words(n) words of device
 * memory for the prefix sum (n: the mask's elements; op->count > 0). Asynchronous (kernels_mask.cu). */
dlx_status dlx__cuda_mask_gather(const dlx__mask_op *op, const unsigned char *mask, uint64_t *scratch, void *stream);
uint64_t dlx__cuda_mask_scratch_words(int64_t n);
/* The op's mask (host memory) as n compact 0/1 bytes at out, in row-major order; returns the true ones. */
int64_t dlx__cuda_mask_bytes(const dlx__mask_op *op, unsigned char *out);
/* Reduction op (kernels/reduce.h; device pointers, op->scratch device memory) on stream, along the fixed
 * tree (kernels_reduce.cu). Asynchronous. DLX_ERR_UNSUPPORTED past DLX_CUDA_MAX_DIMS kept or reduced
 * dimensions; DLX_ERR_BACKEND when a launch fails. */
dlx_status dlx__cuda_reduce(const dlx__red_op *op, void *stream);

/* The same kernels' per-thread bodies, run on the host over every thread of the grid the launch would
 * use, on host pointers. For tests; never touch the CUDA runtime. */
dlx_status dlx__cuda_execute_emulated(const dlx__ew_op *op, const dlx_iter *plan);
dlx_status dlx__cuda_unpack_emulated(const dlx_view *packed, void *padded);
dlx_status dlx__cuda_pack_emulated(const dlx_view *packed, const void *padded);
/* (the offsets read from op->offsets, on the host) */
dlx_status dlx__cuda_gather_emulated(const dlx__gather_op *op);
/* (the mask made compact on the host, the scratch in host memory; DLX_ERR_BROADCAST as backend.h says) */
dlx_status dlx__cuda_mask_gather_emulated(const dlx__mask_op *op);
dlx_status dlx__cuda_reduce_emulated(const dlx__red_op *op);

/* ---- test hooks --------------------------------------------------------------------------------- */

/* Launch shape: threads per block (1..1024, default 256) and the most blocks of a grid (>= 1, default
 * 65536; larger work loops grid-stride). 0 keeps a value. Returns nothing; process-wide, for tests that
 * make the emulation walk grid-stride loops with small grids. Not thread-safe against running ops. */
void dlx__cuda_set_launch_shape(int threads_per_block, int max_blocks);

/* Which mapping pass 1 of a reduction uses: 0 the kernels' choice, 1 inner (a thread block per unit), 2
 * outer (16 units per thread block); both compute the same tree. Process-wide, for tests. */
void dlx__cuda_set_reduce_mapping(int mapping);

/* The byte offset of every operand of plan at linear index (row-major over plan->shape), computed by the
 * kernels' offset calculator (64-bit multiply-high division); offsets has room for plan->nop entries.
 * DLX_ERR_UNSUPPORTED past DLX_CUDA_MAX_DIMS dimensions. */
dlx_status dlx__cuda_plan_offsets_emulated(const dlx_iter *plan, int64_t index, int64_t *offsets);

/* n / d (d >= 1) through the kernels' divider. */
uint64_t dlx__cuda_udiv_emulated(uint64_t n, uint64_t d);

/* Emulated launches so far in this process: all of them, and those whose grid took the fast vectorised
 * path (1-d, contiguous, 16-byte aligned), so that a test can show it ran that path. */
void dlx__cuda_emulation_counts(uint64_t *launches, uint64_t *vectorised);

#ifdef __cplusplus
}
#endif

#endif
