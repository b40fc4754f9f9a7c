/* dlx/layout.h - layout facts and transformations over shapes and strides.
 *
 * Functions take raw (ndim, shape, strides) arrays so that they apply to a dlx_view and to a DLTensor
 * alike; strides are in elements unless a name says bytes. Dimension orders follow torch's dim_order:
 * order[0] is the outermost dimension, order[ndim-1] the innermost.
 * Thread safety: all functions are reentrant and touch only their arguments (and the thread's error). */
#ifndef DLX_LAYOUT_H
#define DLX_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "dlx/error.h"
#include "dlx/export.h"
#include "dlx/view.h"

DLX_EXTERN_C_BEGIN

/* C (row-major) contiguity. Extent-1 dimensions are ignored and an empty shape is contiguous
 * (DLPack edge cases 1 and 2). strides NULL counts as row-major. */
DLX_API bool dlx_layout_is_c_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides);

/* Fortran (column-major) contiguity, with the same rules. */
DLX_API bool dlx_layout_is_f_contiguous(int32_t ndim, const int64_t *shape, const int64_t *strides);

static inline bool dlx_view_is_c_contiguous(const dlx_view *v) {
  return dlx_layout_is_c_contiguous(v->ndim, v->shape, v->strides);
}
static inline bool dlx_view_is_f_contiguous(const dlx_view *v) {
  return dlx_layout_is_f_contiguous(v->ndim, v->shape, v->strides);
}

/* Compact strides for shape laid out in the dimension order `order` (NULL = row-major 0..ndim-1).
 * DLX_ERR_INVALID_ARGUMENT when order is not a permutation of 0..ndim-1, DLX_ERR_OVERFLOW when a stride
 * does not fit int64, DLX_ERR_NEGATIVE_EXTENT for a negative extent. */
DLX_API dlx_status dlx_layout_compact_strides(int32_t ndim, const int64_t *shape, const int32_t *order,
                                              int64_t *strides);

/* The dimension order of a strided layout, as torch's dim_order: dimensions sorted by |stride|
 * descending; ties go to the larger extent first, then to the lower dimension index. Never fails on
 * valid arguments: this is a total order. */
DLX_API dlx_status dlx_layout_stride_order(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                           int32_t *order);

/* CuTe's leading-dimension deduction (CuTe DSL's rules): the one dimension whose stride is 1; *dim = -1 when
 * none has stride 1; DLX_ERR_DEDUCTION when several have. */
DLX_API dlx_status dlx_layout_leading_dim(int32_t ndim, const int64_t *strides, int32_t *dim);

/* CuTe's stride-order deduction for compact layouts (CuTe DSL's rules): strides sorted descending;
 * DLX_ERR_DEDUCTION when several dimensions have stride 1 (the order is ambiguous). */
DLX_API dlx_status dlx_layout_deduce_stride_order(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                                  int32_t *order);

/* NumPy broadcasting of n shapes (right-aligned; extent 1 stretches): *out_ndim and out_shape
 * (room for DLX_MAX_NDIM). DLX_ERR_BROADCAST names the first two extents that disagree. */
DLX_API dlx_status dlx_broadcast_shapes(int32_t n, const int32_t *ndims, const int64_t *const *shapes,
                                        int32_t *out_ndim, int64_t *out_shape);

/* Strides of (ndim, shape, strides) broadcast to (out_ndim, out_shape): 0 for new and stretched
 * dimensions. DLX_ERR_BROADCAST when the shape does not broadcast to out_shape. */
DLX_API dlx_status dlx_broadcast_strides(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                         int32_t out_ndim, const int64_t *out_shape, int64_t *out_strides);

/* *out = v broadcast to (ndim, shape): a view with zero strides; v and out may be the same struct. */
DLX_API dlx_status dlx_view_broadcast_to(const dlx_view *v, int32_t ndim, const int64_t *shape, dlx_view *out);

/* Byte range [*lo, *hi) that the elements of v touch; lo == hi == data for an empty view.
 * DLX_ERR_OVERFLOW if the range does not fit the address space. */
DLX_API dlx_status dlx_view_byte_span(const dlx_view *v, uintptr_t *lo, uintptr_t *hi);

typedef enum dlx_overlap {
  DLX_OVERLAP_NONE = 0, /* no byte in common (or different devices, or an empty view) */
  DLX_OVERLAP_SAME,     /* same data, itemsize, shape and strides: elementwise in-place is safe */
  DLX_OVERLAP_PARTIAL   /* byte spans intersect otherwise: a writer must copy first */
} dlx_overlap;

/* Whether two views may share memory, from their byte spans. Conservative: interleaved views with
 * intersecting spans report PARTIAL. */
DLX_API dlx_status dlx_view_overlap(const dlx_view *a, const dlx_view *b, dlx_overlap *out);

/* The most operands one dlx_iter walks together. */
#define DLX_ITER_MAX_OPERANDS 8

/* Operands broadcast to one shape, dimensions reordered and coalesced (NumPy nditer / PyTorch
 * TensorIterator): the loop over shape[0..ndim) with the last dimension innermost visits every element
 * once, operand k's element at data[k] + sum(index[d] * strides[k][d]). */
typedef struct dlx_iter {
  int32_t nop;
  int32_t ndim;   /* after coalescing; 0 when there is a single element */
  int64_t size;   /* elements to visit; 0 means nothing to do */
  int64_t shape[DLX_MAX_NDIM];
  int64_t strides[DLX_ITER_MAX_OPERANDS][DLX_MAX_NDIM]; /* bytes */
  char *data[DLX_ITER_MAX_OPERANDS];
} dlx_iter;

/* dlx_iter_init flags */
#define DLX_ITER_NO_REORDER 1u   /* keep the dimension order (still coalesce) */
#define DLX_ITER_NO_COALESCE 2u  /* keep every dimension, for tests and debugging */
#define DLX_ITER_OUTPUT_FULL 4u  /* operand 0 is an output: it must already have the broadcast shape */

/* Plan the joint iteration of nop views (1..DLX_ITER_MAX_OPERANDS). Views must be byte-sized dtypes.
 * The dimension order puts the smallest |byte stride| innermost, judged by the first operand that
 * tells two dimensions apart; negative strides are kept, never flipped. */
DLX_API dlx_status dlx_iter_init(dlx_iter *it, int32_t nop, const dlx_view *const *ops, uint32_t flags);

DLX_EXTERN_C_END

#endif
