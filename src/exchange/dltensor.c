/* DLTensor exchange: export a view as a DLTensor (CCCL's to_dlpack_tensor, no allocation) and
 * import a DLTensor or managed tensor as a validated view with CCCL's mdspan checks.
 *
 * The import is one pass over the dimensions that copies shape and strides and folds every check into a
 * few flags; when a flag is set, an out-of-line (cold) function walks the input again to name the
 * offending value. The happy path therefore never formats a message and never branches per check. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/view_internal.h"
#include "exchange/device_hooks.h"

/* Device types each memory space accepts on import, indexed by dlx_memspace. */
static const uint32_t memspace_accepts[] = {
    [DLX_MEMSPACE_ANY] = DEV_KNOWN_MASK,
    /* CuPy labels pinned memory kDLCPU and PyTorch kDLCUDAHost: a host consumer must take both */
    [DLX_MEMSPACE_HOST] = DEV_HOST_MASK,
    [DLX_MEMSPACE_DEVICE] = DEV_BIT(kDLCUDA),
    [DLX_MEMSPACE_MANAGED] = DEV_BIT(kDLCUDAManaged),
};

/* Only RIGHT and LEFT are compact layouts with an expected stride to name. */
static const char *compact_layout_name(dlx_layout layout) {
  return layout == DLX_LAYOUT_LEFT ? "layout_left" : "layout_right";
}

/* ------------------------------------------------------------------------------------------------ */
/* Export (CCCL)                                                                                    */

static inline void fill_export(const dlx_view *v, dlx_dltensor *out, bool empty) {
  DLTensor *t = &out->tensor;
  /* CCCL: data is nullptr when the mdspan has no elements */
  t->data = empty ? NULL : v->data;
  t->device = v->device;
  t->ndim = v->ndim;
  t->dtype = v->dtype;
  t->shape = out->shape;
  t->strides = out->strides;
  t->byte_offset = 0;
}

/* The exact path: dlx_view_init's checks in init's order, through the scan and the span rule that init
 * and the import share (view_internal.h). It reads v, not the copies just stored into out (a load from
 * a wider store still in flight can miss store forwarding). */
__attribute__((noinline)) static dlx_status export_exact(const dlx_view *v, dlx_dltensor *out) {
  DLX_FORWARD(dlx_dtype_check(v->dtype));
  DLX_FAIL_IF(!dlx_device_type_is_known((int32_t)v->device.device_type), DLX_ERR_INVALID_DEVICE,
              "unknown device type %d", (int)v->device.device_type);
  const int32_t nd = v->ndim;
  scan_state st;
  dlx__scan_dims(SCAN_ANY, nd, v->shape, v->strides, out->shape, out->strides, &st);
  if (DLX_UNLIKELY(st.sign < 0)) return dlx__fail_negative_extent(nd, v->shape);
  if (DLX_UNLIKELY(st.count_overflow)) return dlx__fail_count_overflow(nd, v->shape);
  if (DLX_UNLIKELY(v->data == NULL && !st.zero)) return dlx__fail_null_data(st.count);
  if (!st.zero) {
    const uint64_t bound = dlx__span_bound(&st);
    DLX_FORWARD(dlx__check_span(nd, v->shape, v->strides, bound, bound, true, (uintptr_t)v->data, v->dtype));
    if (dlx__device_in_mask((uint32_t)v->device.device_type, dlx__exchange_hooks.pointer_types))
      DLX_FORWARD(dlx__exchange_hooks.check_pointer(v, "dlx_view_to_dltensor"));
  }
  fill_export(v, out, st.zero);
  return DLX_OK;
}

/* Bit length of x | 1 (1 for 0). */
static inline uint32_t bitlen1(uint64_t x) { return 64u - (uint32_t)__builtin_clzll(x | 1u); }

DLX_COLD static dlx_status fail_export_null(const dlx_view *v, const dlx_dltensor *out) {
  static const char *const names[] = {"v", "out"};
  const void *ptrs[] = {v, out};
  return dlx__fail_null_args("dlx_view_to_dltensor", names, ptrs, 2);
}

/* The export checks what dlx_view_init checks, because a dlx_view is a public struct that may be filled
 * by hand: whatever it hands out, dlx's own import takes back (DLX_LAYOUT_ANY), and no consumer gets a
 * tensor whose offset arithmetic overflows. To stay at a few nanoseconds, the copy loop gathers only
 * ORs and a sum (vectorisable, no per-dimension multiply or bit scan) for a screen that clears ordinary
 * views at once:
 *   em1 = OR (e_i - 1) < 2^b: every extent is >= 1 (one <= 0 makes b 63 or 64) and at most 2^b, so
 *         b * ndim <= 62 bounds the element count by 2^62;
 *   m_i = s_i ^ (s_i >> 63) is |s_i| or |s_i| - 1, and M = sum (m_i >> 6) cannot wrap (64 terms below
 *         2^57); sum |s_i| <= 64 (M + ndim), so sum (e_i - 1) |s_i| <= em1 sum |s_i| < 2^k, k = b + 6 +
 *         the bit length of M + ndim:
 * every element lies fewer than 2^k items from element 0, so x = unit << k (unit rounded up to the
 * element's bits) bounds the span in units and in bytes, and x <= addr, x <= ~addr (hence x < 2^63)
 * imply the span and address rules and non-NULL data. Whatever the screen does not clear (empty views,
 * NULL data, huge tensors, broken rules) takes the exact path, which decides as init does: the screen
 * only saves work, it never changes an answer. */
dlx_status dlx_view_to_dltensor(const dlx_view *v, dlx_dltensor *out) {
  if (DLX_UNLIKELY(v == NULL || out == NULL)) return fail_export_null(v, out);
  const int32_t nd = v->ndim;
  if (DLX_UNLIKELY((uint32_t)nd > DLX_MAX_NDIM)) return dlx__fail_rank_range(nd);
  uint64_t em1 = 0, msum = 0;
  /* ranks up to 4 straight-line (a jump into the chain of copies): a loop costs its setup, GCC's
   * vector form an alias check between out and v, at these ranks more than the copies themselves */
#define EXPORT_DIM(i)                                   \
  do {                                                  \
    const int64_t e = v->shape[i], s = v->strides[i];   \
    out->shape[i] = e;                                  \
    out->strides[i] = s;                                \
    em1 |= (uint64_t)e - 1u;                            \
    msum += (uint64_t)(s ^ (s >> 63)) >> 6;             \
  } while (0)
  switch (nd) {
    case 4: EXPORT_DIM(3); /* fall through */
    case 3: EXPORT_DIM(2); /* fall through */
    case 2: EXPORT_DIM(1); /* fall through */
    case 1: EXPORT_DIM(0); /* fall through */
    case 0: break;
    default:
      for (int32_t i = 0; i < nd; ++i) EXPORT_DIM(i);
  }
#undef EXPORT_DIM
  const DLDataType dt = v->dtype;
  const uint32_t b = bitlen1(em1), k = b + 6u + bitlen1(msum + (uint64_t)nd);
  const uint64_t unit = dlx_dtype_element_bits(dt) | 1u; /* < 2^25, so unit << 38 < 2^63 */
  const uintptr_t addr = (uintptr_t)v->data;
  /* & where no operand needs the one before it: fewer branches */
  const bool cleared = ((int)dlx_dtype_is_valid(dt) &
                        (int)dlx__device_in_mask((uint32_t)v->device.device_type, DEV_KNOWN_MASK) &
                        ((uint32_t)nd * b <= 62u) & (k <= 38u)) &&
                       (unit << k) <= addr && (unit << k) <= ~addr;
  if (DLX_UNLIKELY(!cleared)) return export_exact(v, out);
  /* CCCL takes a device view's id from its pointer: a label that disagrees is an error (a pointer query of
   * the runtime that owns the device type, installed by the backends layer: device_hooks.h) */
  if (DLX_UNLIKELY(dlx__device_in_mask((uint32_t)v->device.device_type, dlx__exchange_hooks.pointer_types)))
    DLX_FORWARD(dlx__exchange_hooks.check_pointer(v, "dlx_view_to_dltensor"));
  fill_export(v, out, false);
  return DLX_OK;
}

/* ------------------------------------------------------------------------------------------------ */
/* Import (CCCL)                                                                                    */

/* A DLDataType as one 32-bit word, so that equality and the ANY test are single compares (the struct is
 * 4 bytes with no padding: dlpack.h asserts it). */
static inline uint32_t dtype_word(DLDataType dt) {
  uint32_t w;
  memcpy(&w, &dt, sizeof w);
  return w;
}

DLX_COLD static dlx_status fail_import_rank(int32_t nd, int32_t want) {
  if ((uint32_t)nd > DLX_MAX_NDIM) return dlx__fail_rank_range(nd);
  if (want < DLX_NDIM_ANY || want > DLX_MAX_NDIM)
    return dlx_set_error(DLX_ERR_INVALID_ARGUMENT, "spec->ndim %" PRId32 " is neither DLX_NDIM_ANY nor in [0, %d]",
                         want, DLX_MAX_NDIM);
  return dlx_set_error(DLX_ERR_RANK, "expected ndim %" PRId32 ", got %" PRId32, want, nd);
}

DLX_COLD static dlx_status fail_import_dtype(DLDataType got, DLDataType want) {
  char a[DLX_DTYPE_NAME_MAX + 48], b[DLX_DTYPE_NAME_MAX + 48];
  if (!dlx_dtype_is_valid(got)) {
    dlx_status st = dlx_dtype_check(got);
    if (st != DLX_OK) return st;
  }
  if (!dlx_dtype_is_valid(want))
    return dlx_set_error(DLX_ERR_INVALID_ARGUMENT, "spec->dtype %s is neither DLX_DTYPE_ANY nor a legal dtype",
                         dlx__dtype_text(b, sizeof b, want));
  dlx__dtype_text(b, sizeof b, want);
  dlx__dtype_text(a, sizeof a, got);
  return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "expected dtype %s, got %s", b, a);
}

DLX_COLD static dlx_status fail_import_device(uint32_t device_type, dlx_memspace space) {
  if (!dlx__device_in_mask(device_type, DEV_KNOWN_MASK))
    return dlx_set_error(DLX_ERR_INVALID_DEVICE, "unknown device type %" PRId32, (int32_t)device_type);
  const char *got = dlx_device_type_name((int32_t)device_type);
  switch (space) {
    case DLX_MEMSPACE_HOST:
      return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "expected host memory (cpu, cuda_host or rocm_host), got %s", got);
    case DLX_MEMSPACE_DEVICE:
      return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "expected device type cuda, got %s", got);
    case DLX_MEMSPACE_MANAGED:
      return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "expected device type cuda_managed, got %s", got);
    default:
      return dlx_set_error(DLX_ERR_INVALID_ARGUMENT, "spec->memspace %d is not a dlx_memspace", (int)space);
  }
}

DLX_COLD static dlx_status fail_import_layout_arg(dlx_layout layout) {
  return dlx_set_error(DLX_ERR_INVALID_ARGUMENT, "spec->layout %d is not a dlx_layout", (int)layout);
}

DLX_COLD static dlx_status fail_null_shape(int32_t nd) {
  return dlx_set_error(DLX_ERR_NULL_SHAPE, "shape is NULL with ndim %" PRId32, nd);
}

/* A non-empty tensor whose strides break the requested layout: name the first dimension that does. */
DLX_COLD static dlx_status fail_import_layout(dlx_layout layout, int32_t nd, const int64_t *shape,
                                              const int64_t *strides) {
  if (layout == DLX_LAYOUT_STRIDE) {
    for (int32_t i = 0; i < nd; ++i)
      if (shape[i] > 1 && strides[i] <= 0)
        return dlx_set_error(DLX_ERR_BAD_STRIDE,
                             "strides[%" PRId32 "] is %" PRId64 "; layout_stride needs positive strides (shape[%" PRId32
                             "] is %" PRId64 ")",
                             i, strides[i], i, shape[i]);
  } else {
    const bool left = layout == DLX_LAYOUT_LEFT;
    int64_t expect = 1;
    for (int32_t k = 0; k < nd; ++k) {
      const int32_t i = left ? k : nd - 1 - k;
      if (shape[i] != 1 && strides[i] != expect)
        return dlx_set_error(DLX_ERR_LAYOUT_MISMATCH,
                             "strides[%" PRId32 "] is %" PRId64 ", expected %" PRId64 " for %s (shape[%" PRId32
                             "] is %" PRId64 ")",
                             i, strides[i], expect, compact_layout_name(layout), i, shape[i]);
      expect *= shape[i]; /* cannot overflow: the element count was checked first */
    }
  }
  return dlx_set_error(DLX_ERR_LAYOUT_MISMATCH, "strides do not match %s", compact_layout_name(layout));
}

DLX_COLD static dlx_status fail_address_wrap(const void *data, uint64_t byte_offset) {
  return dlx_set_error(DLX_ERR_OVERFLOW, "data %p + byte_offset %" PRIu64 " wraps around the address space", data,
                       byte_offset);
}

DLX_COLD static dlx_status fail_alignment_arg(uint32_t alignment) {
  return dlx_set_error(DLX_ERR_INVALID_ARGUMENT, "spec->alignment %" PRIu32 " is not a power of two", alignment);
}

DLX_COLD static dlx_status fail_misaligned(const void *data, uint64_t byte_offset, uint32_t alignment) {
  return dlx_set_error(DLX_ERR_MISALIGNED, "data %p + byte_offset %" PRIu64 " is not aligned to %" PRIu32 " bytes",
                       data, byte_offset, alignment);
}

/* Strides the tensor does not supply or that must not be read: NULL strides of an old tensor, or any
 * strides of an empty one (DLPack allows garbage there). Either way the view gets compact strides. */
static dlx_status import_compact_strides(dlx_view *out, int32_t nd, bool null_strides, bool empty,
                                         const dlx_import_spec *spec) {
  if (null_strides) {
    if (spec->version >= DLX_DLPACK_VERSION_NUM(1, 2))
      return dlx_set_error(DLX_ERR_NULL_STRIDES,
                           "strides is NULL with ndim %" PRId32 " in a DLPack %" PRIu32 ".%" PRIu32
                           " tensor; only tensors older than 1.2 may omit them",
                           nd, spec->version >> 16, spec->version & 0xFFFFu);
    /* CCCL: pre-1.2 NULL strides mean row-major, which a rank > 1 layout_left view cannot take */
    if (spec->layout == DLX_LAYOUT_LEFT && nd > 1)
      return dlx_set_error(DLX_ERR_NULL_STRIDES,
                           "strides is NULL with ndim %" PRId32 "; NULL means row-major, so layout_left needs "
                           "explicit strides",
                           nd);
  }
  /* an empty view imported as layout_left gets column-major strides, so the layout promise still holds */
  dlx__fill_compact_strides(nd, out->shape, out->strides, empty && spec->layout == DLX_LAYOUT_LEFT);
  return DLX_OK;
}

/* Reads t's shape (and strides) into out under layout, which the scan checks as it goes: NULL strides
 * (nd > 0) are read as the shape alone. false when layout is no dlx_layout (then *st is not written; the
 * caller reports it, so the compiler sees *st set on every path it reads it). An always-inline part of
 * dlx_view_from_dltensor: the hot path stays one function. */
DLX_ALWAYS_INLINE bool import_scan(dlx_view *out, int32_t nd, const int64_t *shape, const int64_t *strides,
                                   dlx_layout layout, scan_state *st) {
  if (strides == NULL && nd > 0) {
    if (DLX_UNLIKELY((uint32_t)layout > DLX_LAYOUT_ANY)) return false;
    dlx__scan_dims(SCAN_SHAPE, nd, shape, NULL, out->shape, NULL, st);
    return true;
  }
  switch (layout) {
    case DLX_LAYOUT_STRIDE: dlx__scan_dims(SCAN_STRIDE, nd, shape, strides, out->shape, out->strides, st); break;
    case DLX_LAYOUT_RIGHT: dlx__scan_dims(SCAN_RIGHT, nd, shape, strides, out->shape, out->strides, st); break;
    case DLX_LAYOUT_LEFT: dlx__scan_dims(SCAN_LEFT, nd, shape, strides, out->shape, out->strides, st); break;
    case DLX_LAYOUT_ANY: dlx__scan_dims(SCAN_ANY, nd, shape, strides, out->shape, out->strides, st); break;
    default: return false;
  }
  return true;
}

/* Where the scanned elements of t lie, checked: the span from element 0 (data + byte_offset) to the lowest
 * and the highest element must not wrap, and element 0 must be aligned as spec asks (or naturally). Sets
 * out->data to element 0, and out's strides when t gives none to read (NULL or empty). Always inline, as
 * above. */
DLX_ALWAYS_INLINE dlx_status import_place(dlx_view *out, const DLTensor *t, const dlx_import_spec *spec,
                                          const scan_state *st) {
  const int32_t nd = t->ndim;
  const dlx_layout layout = spec->layout;
  const bool null_strides = t->strides == NULL && nd > 0, empty = st->zero;
  /* Items from element 0 to the lowest and to the highest element: exact for compact strides; under STRIDE
   * and ANY a bound (dlx__span_bound) that the strides make exact when it does not settle the span. */
  uint64_t below = 0, above;
  const int64_t *exact_strides = NULL;
  if (DLX_UNLIKELY(null_strides || empty)) {
    DLX_FORWARD(import_compact_strides(out, nd, null_strides, empty, spec));
    above = empty ? 0 : (uint64_t)st->count - 1u;
  } else {
    if (DLX_UNLIKELY(st->bad)) return fail_import_layout(layout, nd, t->shape, t->strides);
    if (layout == DLX_LAYOUT_RIGHT || layout == DLX_LAYOUT_LEFT) {
      above = (uint64_t)st->count - 1u;
    } else {
      above = dlx__span_bound(st);
      below = layout == DLX_LAYOUT_ANY ? above : 0;
      exact_strides = t->strides;
    }
  }

  void *const data = t->data;
  uintptr_t addr = (uintptr_t)data;
  const uint64_t byte_offset = t->byte_offset;
  if (data != NULL) {
    if (DLX_UNLIKELY(byte_offset > (uint64_t)(UINTPTR_MAX - addr))) return fail_address_wrap(data, byte_offset);
    addr += (uintptr_t)byte_offset;
  }
  /* the rule dlx_view_init and the export apply too (view_internal.h); an empty tensor always passes */
  DLX_FORWARD(dlx__check_span(nd, t->shape, exact_strides, below, above, data != NULL && !empty, addr, t->dtype));

  uint32_t align = spec->alignment;
  if (DLX_UNLIKELY((align & (align - 1u)) != 0)) return fail_alignment_arg(align);
  /* an empty tensor has no element 0 to misalign; otherwise no natural alignment exceeds 16, so an address
   * that is a multiple of 16 needs no dtype lookup */
  if (!empty && (align != 0 || (addr & 15u) != 0)) {
    if (align == 0) align = (uint32_t)dlx_dtype_alignment(t->dtype);
    if (DLX_UNLIKELY((addr & (uintptr_t)(align - 1u)) != 0)) return fail_misaligned(data, byte_offset, align);
  }
  out->data = data != NULL ? (void *)addr : NULL;
  return DLX_OK;
}

dlx_status dlx_view_from_dltensor(dlx_view *out, const DLTensor *t, const dlx_import_spec *spec) {
  if (DLX_UNLIKELY(out == NULL || t == NULL || spec == NULL)) {
    static const char *const names[] = {"out", "t", "spec"};
    const void *ptrs[] = {out, t, spec};
    return dlx__fail_null_args(__func__, names, ptrs, 3);
  }
  const int32_t nd = t->ndim;
  if (DLX_UNLIKELY((uint32_t)nd > DLX_MAX_NDIM || (spec->ndim != DLX_NDIM_ANY && spec->ndim != nd)))
    return fail_import_rank(nd, spec->ndim);

  const DLDataType dt = t->dtype;
  if (DLX_UNLIKELY(!dlx_dtype_is_valid(dt))) return fail_import_dtype(dt, spec->dtype);
  const uint32_t want_dt = dtype_word(spec->dtype);
  if (DLX_UNLIKELY(want_dt != dtype_word(DLX_DTYPE_ANY) && want_dt != dtype_word(dt)))
    return fail_import_dtype(dt, spec->dtype);

  const uint32_t dev = (uint32_t)t->device.device_type;
  const uint32_t space = (uint32_t)spec->memspace;
  if (DLX_UNLIKELY(space > DLX_MEMSPACE_MANAGED || !dlx__device_in_mask(dev, memspace_accepts[space])))
    return fail_import_device(dev, spec->memspace);

  const int64_t *shape = t->shape;
  if (DLX_UNLIKELY(nd > 0 && shape == NULL)) return fail_null_shape(nd);

  scan_state st;
  if (DLX_UNLIKELY(!import_scan(out, nd, shape, t->strides, spec->layout, &st)))
    return fail_import_layout_arg(spec->layout);
  if (DLX_UNLIKELY(st.sign < 0)) return dlx__fail_negative_extent(nd, shape);
  if (DLX_UNLIKELY(st.count_overflow)) return dlx__fail_count_overflow(nd, shape);
  const bool empty = st.zero;
  void *const data = t->data;
  if (DLX_UNLIKELY(data == NULL && !empty)) return dlx__fail_null_data(st.count);

  DLX_FORWARD(import_place(out, t, spec, &st));

  out->dtype = dt;
  out->device = t->device;
  out->ndim = nd;
  out->flags = 0;
  /* a device type's import rule (oneAPI USM: the data must be known to the default context of the device's
   * platform), installed by the backends layer (device_hooks.h); other device types cost one mask test */
  if (DLX_UNLIKELY(dlx__device_in_mask((uint32_t)dev, dlx__exchange_hooks.import_types)) && !empty)
    return dlx__exchange_hooks.check_import(out);
  return DLX_OK;
}

dlx_status dlx_view_from_managed_versioned(dlx_view *out, const DLManagedTensorVersioned *m,
                                           const dlx_import_spec *spec) {
  if (DLX_UNLIKELY(out == NULL || m == NULL || spec == NULL)) {
    static const char *const names[] = {"out", "m", "spec"};
    const void *ptrs[] = {out, m, spec};
    return dlx__fail_null_args(__func__, names, ptrs, 3);
  }
  DLX_FAIL_IF(m->version.major != DLX_DLPACK_MAJOR, DLX_ERR_VERSION,
              "DLPack major version %" PRIu32 " is not supported; dlx speaks %d.x", m->version.major,
              DLX_DLPACK_MAJOR);
  dlx_import_spec s = *spec;
  /* the minor is clamped so that a huge one still reads as "at least 1.2" and cannot spill into the major */
  s.version = DLX_DLPACK_VERSION_NUM(m->version.major, m->version.minor > 0xFFFFu ? 0xFFFFu : m->version.minor);
  DLX_FORWARD(dlx_view_from_dltensor(out, &m->dl_tensor, &s));
  uint32_t flags = 0;
  if (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) flags |= DLX_VIEW_READ_ONLY;
  if (m->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) flags |= DLX_VIEW_SUBBYTE_PADDED;
  out->flags = flags;
  return DLX_OK;
}

dlx_status dlx_view_from_managed(dlx_view *out, const DLManagedTensor *m, const dlx_import_spec *spec) {
  if (DLX_UNLIKELY(out == NULL || m == NULL || spec == NULL)) {
    static const char *const names[] = {"out", "m", "spec"};
    const void *ptrs[] = {out, m, spec};
    return dlx__fail_null_args(__func__, names, ptrs, 3);
  }
  dlx_import_spec s = *spec;
  s.version = DLX_DLPACK_VERSION_LEGACY;
  return dlx_view_from_dltensor(out, &m->dl_tensor, &s);
}
