/* Internal to the view layers (src/core/view.c, src/exchange/dltensor.c): the one-pass dimension scan that
 * view construction and DLTensor import share, the device-type masks, and the cold functions that name an
 * offending value once a scan has flagged one. */
#ifndef DLX_CORE_VIEW_INTERNAL_H
#define DLX_CORE_VIEW_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error_internal.h"
#include "dlx/view.h"

#if defined(__GNUC__)
#define DLX_COLD __attribute__((cold, noinline))
#define DLX_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define DLX_COLD
#define DLX_ALWAYS_INLINE static inline
#endif

#define DEV_BIT(t) (1u << (t))
/* DLPack 1.3 device types: 1..4 and 7..18 (5 and 6 were never assigned). */
#define DEV_KNOWN_MASK                                                                                \
  (DEV_BIT(1) | DEV_BIT(2) | DEV_BIT(3) | DEV_BIT(4) | DEV_BIT(7) | DEV_BIT(8) | DEV_BIT(9) | DEV_BIT(10) | \
   DEV_BIT(11) | DEV_BIT(12) | DEV_BIT(13) | DEV_BIT(14) | DEV_BIT(15) | DEV_BIT(16) | DEV_BIT(17) | DEV_BIT(18))
#define DEV_HOST_MASK (DEV_BIT(kDLCPU) | DEV_BIT(kDLCUDAHost) | DEV_BIT(kDLROCMHost))
#define DEV_HOST_ACCESSIBLE_MASK (DEV_HOST_MASK | DEV_BIT(kDLCUDAManaged))

static inline bool dlx__device_in_mask(uint32_t device_type, uint32_t mask) {
  return device_type < 32u && ((mask >> device_type) & 1u) != 0;
}

/* Compact strides in *strides, row-major (left = false) or column-major. An extent 0 counts as 1, as
 * NumPy does, so an empty tensor still gets distinct, positive strides. No overflow: callers have checked
 * that the product of the extents, 0 counted as 1, fits int64. */
static inline void dlx__fill_compact_strides(int32_t nd, const int64_t *shape, int64_t *strides, bool left) {
  int64_t acc = 1;
  for (int32_t k = 0; k < nd; ++k) {
    const int32_t i = left ? k : nd - 1 - k;
    strides[i] = acc;
    acc *= shape[i] > 0 ? shape[i] : 1;
  }
}

/* Cold failers: each re-walks its input to name the first offending value, and returns the status. */
dlx_status dlx__fail_rank_range(int32_t nd);
dlx_status dlx__fail_negative_extent(int32_t nd, const int64_t *shape);
dlx_status dlx__fail_count_overflow(int32_t nd, const int64_t *shape);
dlx_status dlx__fail_null_data(int64_t count);
/* "func: argument 'name' is NULL" for the first NULL of ptrs. */
dlx_status dlx__fail_null_args(const char *func, const char *const *names, const void *const *ptrs, int n);

/* ------------------------------------------------------------------------------------------------ */
/* The dimension scan                                                                               */

enum scan_mode { SCAN_SHAPE, SCAN_ANY, SCAN_STRIDE, SCAN_RIGHT, SCAN_LEFT };

typedef struct scan_state {
  int64_t count;      /* product of the extents with 0 counted as 1 (wrapped when count_overflow) */
  uint64_t stride_or;  /* OR of the strides (|stride| under ANY), a cheap bound on the largest; STRIDE, ANY */
  int64_t sign;       /* OR of all extents: negative when one is */
  bool zero;          /* some extent is 0: the tensor is empty */
  bool count_overflow;
  bool bad;           /* some stride breaks the layout (meaningful only when not empty) */
} scan_state;

/* The flags of dlx__scan_dims computed dimension by dimension with an extent 0 counted as 1: its exact
 * path, taken when some extent is 0 or negative (empty tensors, bad input). Reads the copies the scan
 * made (ostrides NULL under SCAN_SHAPE). */
void dlx__scan_flags_exact(enum scan_mode mode, int32_t nd, const int64_t *oshape, const int64_t *ostrides,
                           scan_state *st);

/* One pass over the dimensions: copy shape (and strides unless SCAN_SHAPE) and fold the checks into flags.
 * mode is a constant at every call, so each call site gets its own loop without per-mode branches.
 * Under RIGHT the dims run from the innermost, under LEFT from the outermost, so that the running element
 * count is the compact stride the current dimension must have.
 * The count treats an extent 0 as 1, as NumPy does when it sizes an array: a shape like (0, 2^40, 2^40)
 * holds no element but is refused, so that every partial product of a view's extents (dlx_view_size,
 * compact strides, sub-views) fits int64.
 * The loop itself assumes every extent is >= 1 (the common case; then a plain product is that count) and
 * keeps only the smallest extent to know: one that is 0 or negative sends the flags to
 * dlx__scan_flags_exact. That saves a zero flag, a sign and the 0-as-1 select per dimension.
 * Ranks up to 4 run straight-line (a jump into a chain of dimension steps): a loop's counter, index and
 * branch cost about as much per dimension as the step itself at these ranks. */
typedef struct dlx__scan_acc {
  int64_t count, emin, smin;
  uint64_t stride_or, bad;
  bool cof;
} dlx__scan_acc;

/* One dimension's step of the scan (a: the running flags, in registers once inlined) */
DLX_ALWAYS_INLINE void dlx__scan_dim(enum scan_mode mode, int32_t i, const int64_t *shape, const int64_t *strides,
                                     int64_t *oshape, int64_t *ostrides, dlx__scan_acc *a) {
  const int64_t e = shape[i];
  oshape[i] = e;
  a->emin = e < a->emin ? e : a->emin;
  if (mode != SCAN_SHAPE) {
    const int64_t s = strides[i];
    ostrides[i] = s;
    /* an extent-1 dimension may carry any stride: it is never stepped (PyTorch rewrote such strides);
     * otherwise any difference from the running count is a break (nonzero) */
    if (mode == SCAN_RIGHT || mode == SCAN_LEFT) a->bad |= e != 1 ? (uint64_t)s - (uint64_t)a->count : 0u;
    /* under STRIDE a stride <= 0 is refused (bad) unless its dim has extent 1, where any value is fine
     * for the bound: a huge one only sends the import to the exact span computation. The smallest
     * stride of the extents > 1 (every extent is >= 1 here) decides it after the loop. */
    if (mode == SCAN_STRIDE) {
      const int64_t sk = e == 1 ? 1 : s;
      a->smin = sk < a->smin ? sk : a->smin;
      a->stride_or |= (uint64_t)s;
    }
    if (mode == SCAN_ANY) a->stride_or |= dlx__abs_u64(s);
  }
  a->cof |= __builtin_mul_overflow(a->count, e, &a->count);
}

DLX_ALWAYS_INLINE void dlx__scan_dims(enum scan_mode mode, int32_t nd, const int64_t *shape, const int64_t *strides,
                                 int64_t *oshape, int64_t *ostrides, scan_state *st) {
  dlx__scan_acc a = {1, 1, 1, 0, 0, false};
  /* RIGHT steps from the innermost dimension, LEFT from the outermost; the other modes' flags do not
   * depend on the order (with every extent >= 1 the partial products only grow, so the count overflows
   * in any order or in none) */
#define DLX__SCAN_STEP(j) \
  dlx__scan_dim(mode, mode == SCAN_LEFT ? nd - (j) : (j) - 1, shape, strides, oshape, ostrides, &a)
  switch (nd) {
    case 4: DLX__SCAN_STEP(4); /* fall through */
    case 3: DLX__SCAN_STEP(3); /* fall through */
    case 2: DLX__SCAN_STEP(2); /* fall through */
    case 1: DLX__SCAN_STEP(1); /* fall through */
    case 0: break;
    default:
      for (int32_t k = 0; k < nd; ++k)
        dlx__scan_dim(mode, mode == SCAN_RIGHT ? nd - 1 - k : k, shape, strides, oshape, ostrides, &a);
  }
#undef DLX__SCAN_STEP
  if (DLX_UNLIKELY(a.emin < 1)) {
    dlx__scan_flags_exact(mode, nd, oshape, ostrides, st);
    return;
  }
  st->count = a.count;
  st->zero = false;
  st->stride_or = a.stride_or;
  st->sign = 0;
  st->count_overflow = a.cof;
  st->bad = mode == SCAN_STRIDE ? a.smin <= 0 : a.bad != 0;
}

/* ------------------------------------------------------------------------------------------------ */
/* The span rule                                                                                    */

/* What import, dlx_view_init and export all require of a non-empty tensor's elements, computed once
 * here so that the three cannot disagree: the whole extent, last element included, fits int64 in bytes
 * (in bits for a sub-byte dtype, as dlx_view_byte_span measures packed ones), so that no later offset
 * arithmetic overflows; and with data (has_addr), every element's address exists: none below 0, none
 * past the top.
 *
 * below / above count the items from element 0 to the lowest and to the highest element, sum >= below +
 * above. The products cannot overflow once the first test passes, as itemsize <= unit. */
static inline bool dlx__extent_fits(uint64_t below, uint64_t above, uint64_t sum, bool has_addr, uintptr_t addr,
                                    size_t itemsize, uint64_t unit) {
  uint64_t units;
  if (sum >= (uint64_t)INT64_MAX || __builtin_mul_overflow(sum + 1u, unit, &units) || units > (uint64_t)INT64_MAX)
    return false;
  return !has_addr || (below * itemsize <= addr && (above + 1u) * itemsize <= (uint64_t)(UINTPTR_MAX - addr));
}

/* The cheap bound did not settle dlx__extent_fits: compute below and above exactly from strides (when
 * not NULL; NULL means below and above are exact already) and decide, naming the failure (OVERFLOW, with
 * the first dimension at which the span stops fitting, or the address range). Not cold: large tensors
 * come here legitimately. */
dlx_status dlx__exact_extent(int32_t nd, const int64_t *shape, const int64_t *strides, uint64_t below, uint64_t above,
                             bool has_addr, uintptr_t addr, size_t itemsize, bool subbyte, uint64_t unit);

/* The span rule for a non-empty tensor of dtype dt (a legal one). With strides NULL, below and above are
 * exact (compact strides); otherwise they may be bounds, and strides decide when the bounds do not. */
DLX_ALWAYS_INLINE dlx_status dlx__check_span(int32_t nd, const int64_t *shape, const int64_t *strides, uint64_t below,
                                             uint64_t above, bool has_addr, uintptr_t addr, DLDataType dt) {
  const size_t itemsize = dlx_dtype_itemsize(dt);
  const bool subbyte = dlx_dtype_is_subbyte(dt);
  const uint64_t unit = subbyte ? dlx_dtype_element_bits(dt) : (uint64_t)itemsize;
  if (DLX_UNLIKELY(!dlx__extent_fits(below, above, above, has_addr, addr, itemsize, unit)))
    return dlx__exact_extent(nd, shape, strides, below, above, has_addr, addr, itemsize, subbyte, unit);
  return DLX_OK;
}

/* The bound on items from element 0 to the farthest element, either side, for strides of any sign (a
 * SCAN_ANY scan): sum (e_i - 1) |s_i| <= (count - 1) * max |s_i| <= (count - 1) * OR |s_i|. Settles the
 * common case without a multiplication per dimension; saturates at UINT64_MAX. */
static inline uint64_t dlx__span_bound(const scan_state *st) {
  uint64_t bound;
  if (__builtin_mul_overflow((uint64_t)st->count - 1u, st->stride_or, &bound)) bound = UINT64_MAX;
  return bound;
}

#endif
