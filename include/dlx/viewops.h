/* dlx/viewops.h - views of views: index, slice, permute, reshape, broadcast, squeeze (no data moves).
 *
 * NumPy's rules throughout: negative indices count from the back; an index out of range is an error,
 * never a wrap-around; slices clamp like Python's and may have negative steps.
 * Every function writes *out only on success; out may be the same struct as v.
 * Thread safety: reentrant; touches only its arguments (and the thread's error). */
#ifndef DLX_VIEWOPS_H
#define DLX_VIEWOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "dlx/error.h"
#include "dlx/export.h"
#include "dlx/view.h"

DLX_EXTERN_C_BEGIN

/* A Python slice: start/stop may be absent (has_start / has_stop 0), step 0 is an error. */
typedef struct dlx_slice {
  int64_t start, stop, step;
  bool has_start, has_stop;
} dlx_slice;

/* Python's slice.indices(extent) then the length: *start is the first index taken, *len the count.
 * DLX_ERR_INVALID_ARGUMENT for step 0, DLX_ERR_NEGATIVE_EXTENT for extent < 0. */
DLX_API dlx_status dlx_slice_resolve(const dlx_slice *s, int64_t extent, int64_t *start, int64_t *len);

/* Drop dimension dim by taking element i of it (i < 0 counts from the back). DLX_ERR_INDEX names dim,
 * index and extent when out of range; dim may be negative too. */
DLX_API dlx_status dlx_view_index(const dlx_view *v, int32_t dim, int64_t i, dlx_view *out);

/* Keep dimension dim, sliced. */
DLX_API dlx_status dlx_view_slice(const dlx_view *v, int32_t dim, const dlx_slice *s, dlx_view *out);

/* One step of a NumPy index tuple. */
typedef enum dlx_index_kind {
  DLX_IDX_INT,      /* an integer: drops a dimension */
  DLX_IDX_SLICE,    /* a slice: keeps it */
  DLX_IDX_NEWAXIS,  /* None: inserts an extent-1 dimension */
  DLX_IDX_ELLIPSIS  /* ...: as many full slices as needed (at most one per tuple) */
} dlx_index_kind;

typedef struct dlx_index_item {
  dlx_index_kind kind;
  int64_t i;     /* DLX_IDX_INT */
  dlx_slice s;   /* DLX_IDX_SLICE */
} dlx_index_item;

/* Apply a whole NumPy basic-index tuple (v[1, ::2, None, ...]). Errors: too many indices
 * (DLX_ERR_INDEX, "too many indices: 4 for ndim 3"), two ellipses (DLX_ERR_INVALID_ARGUMENT), a result
 * of more than DLX_MAX_NDIM dimensions (DLX_ERR_RANK), and those of index/slice. */
DLX_API dlx_status dlx_view_subscript(const dlx_view *v, int32_t n, const dlx_index_item *items, dlx_view *out);

/* Reorder dimensions: out dim k is v's dim perm[k]. perm must be a permutation of 0..ndim-1. */
DLX_API dlx_status dlx_view_permute(const dlx_view *v, const int32_t *perm, dlx_view *out);

/* Reverse the dimensions (NumPy's .T). */
DLX_API dlx_status dlx_view_transpose(const dlx_view *v, dlx_view *out);

/* The same elements in a new shape, without a copy, when the strides allow it (NumPy's rules: every
 * run of merged dimensions must be contiguous with itself). One extent may be -1 (inferred).
 * DLX_ERR_LAYOUT_MISMATCH "cannot reshape (4,6) with strides (1,4) to (24) without a copy: ..." when
 * a view is impossible (use a copying reshape then); DLX_ERR_INVALID_ARGUMENT when the element counts
 * differ or two extents are -1. */
DLX_API dlx_status dlx_view_reshape(const dlx_view *v, int32_t ndim, const int64_t *shape, dlx_view *out);

/* Remove dimension dim, which must have extent 1 (DLX_ERR_INVALID_ARGUMENT otherwise); dim -1 ... */
DLX_API dlx_status dlx_view_squeeze(const dlx_view *v, int32_t dim, dlx_view *out);

/* Remove every extent-1 dimension. */
DLX_API dlx_status dlx_view_squeeze_all(const dlx_view *v, dlx_view *out);

/* Insert an extent-1 dimension at position dim (0..ndim; negative counts from ndim+1). */
DLX_API dlx_status dlx_view_unsqueeze(const dlx_view *v, int32_t dim, dlx_view *out);

DLX_EXTERN_C_END

#endif
