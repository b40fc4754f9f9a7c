/* Every DLPack rule a managed tensor breaks (dlx/check.h).
 *
 * The import (dltensor.c) is a hot path that stops at the first bad field; this file is its slow,
 * exhaustive twin for diagnostics. Each rule is one small function that reads the fields it needs and
 * adds a finding; the checks that would read memory a broken field makes unreadable (the extents when
 * shape is NULL, anything when the major version is unknown) are skipped, so a report never reads
 * through a pointer the standard does not promise. The rules are the standard's, not dlx's limits. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/check.h"
#include "dlx/dtype.h"
#include "dlx/view.h"

static const struct {
  const char *name, *text;
} rules[DLX_CHECK_RULE_COUNT] = {
    [DLX_CHECK_VERSION_MAJOR] = {"VERSION_MAJOR", "version.major is 1 (another major: a consumer may only call the deleter)"},
    [DLX_CHECK_FLAGS_UNKNOWN] = {"FLAGS_UNKNOWN", "no flag bit that the tensor's version does not define"},
    [DLX_CHECK_FLAG_PADDED] = {"FLAG_PADDED", "IS_SUBBYTE_TYPE_PADDED only on a sub-byte dtype"},
    [DLX_CHECK_NDIM] = {"NDIM", "ndim is not negative"},
    [DLX_CHECK_DTYPE] = {"DTYPE", "a legal DLPack dtype: known code, bits the code allows, lanes >= 1"},
    [DLX_CHECK_DEVICE_TYPE] = {"DEVICE_TYPE", "a device type DLPack 1.3 defines"},
    [DLX_CHECK_DEVICE_ID] = {"DEVICE_ID", "device_id >= 0, and 0 for CPU, pinned and managed memory"},
    [DLX_CHECK_SHAPE_NULL] = {"SHAPE_NULL", "shape is not NULL when ndim > 0"},
    [DLX_CHECK_EXTENT_NEGATIVE] = {"EXTENT_NEGATIVE", "no extent below 0"},
    [DLX_CHECK_STRIDES_NULL] = {"STRIDES_NULL", "strides are not NULL when ndim > 0, from DLPack 1.2 on"},
    [DLX_CHECK_DATA_NULL] = {"DATA_NULL", "data is not NULL when the tensor has elements"},
    [DLX_CHECK_SIZE_OVERFLOW] = {"SIZE_OVERFLOW", "element count and byte span fit int64, and no element address wraps"},
};

const char *dlx_check_rule_name(dlx_check_rule rule) {
  return (unsigned)rule < DLX_CHECK_RULE_COUNT ? rules[rule].name : "UNKNOWN_RULE";
}

const char *dlx_check_rule_text(dlx_check_rule rule) {
  return (unsigned)rule < DLX_CHECK_RULE_COUNT ? rules[rule].text : "";
}

/* One call's input: the tensor and what its container says about it. */
typedef struct check_ctx {
  const DLTensor *t;
  uint32_t major, minor; /* 0.0 for a legacy tensor */
  uint64_t flags;
  bool legacy;
} check_ctx;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void add(dlx_check_report *r, dlx_check_rule rule, const char *fmt, ...) {
  dlx_check_finding *f = &r->findings[r->count++];
  f->rule = rule;
  r->broken |= 1u << rule;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->message, sizeof f->message, fmt, ap);
  va_end(ap);
}

static bool at_least(const check_ctx *c, uint32_t major, uint32_t minor) {
  return c->major > major || (c->major == major && c->minor >= minor);
}

static void check_flags(const check_ctx *c, dlx_check_report *r) {
  if (c->legacy) return;
  /* 1.0 defined READ_ONLY and IS_COPIED; 1.1 added IS_SUBBYTE_TYPE_PADDED */
  uint64_t known = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
  if (at_least(c, 1, 1)) known |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  if (c->flags & ~known)
    add(r, DLX_CHECK_FLAGS_UNKNOWN, "flags 0x%" PRIx64 " has bits 0x%" PRIx64 " that DLPack %" PRIu32 ".%" PRIu32
        " does not define", c->flags, c->flags & ~known, c->major, c->minor);
  const DLDataType dt = c->t->dtype;
  if ((c->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) && dlx_dtype_is_valid(dt) && !dlx_dtype_is_subbyte(dt)) {
    char name[DLX_DTYPE_TEXT_CAP];
    add(r, DLX_CHECK_FLAG_PADDED, "IS_SUBBYTE_TYPE_PADDED is set on %s, which is not a sub-byte dtype",
        dlx__dtype_text(name, sizeof name, dt));
  }
}

static void check_dtype(const check_ctx *c, dlx_check_report *r) {
  if (c->t->ndim < 0) add(r, DLX_CHECK_NDIM, "ndim is %" PRId32, c->t->ndim);
  const DLDataType dt = c->t->dtype;
  if (!dlx_dtype_is_valid(dt))
    add(r, DLX_CHECK_DTYPE, "dtype (code %u, bits %u, lanes %u) is not a legal DLPack dtype", (unsigned)dt.code,
        (unsigned)dt.bits, (unsigned)dt.lanes);
}

static void check_device(const check_ctx *c, dlx_check_report *r) {
  const int32_t type = (int32_t)c->t->device.device_type, id = c->t->device.device_id;
  if (!dlx_device_type_is_known(type)) add(r, DLX_CHECK_DEVICE_TYPE, "device type %" PRId32 " is not defined", type);
  /* DLPack's DLDevice: "for vanilla CPU memory, pinned memory, or managed memory, this is set to 0" */
  const bool zero_only = type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost || type == kDLCUDAManaged;
  if (id < 0 || (zero_only && id != 0))
    add(r, DLX_CHECK_DEVICE_ID, "device_id is %" PRId32 " for %s memory%s", id,
        dlx_device_type_is_known(type) ? dlx_device_type_name(type) : "unknown",
        id < 0 ? "" : " (must be 0)");
}

/* The extents, when they can be read: 1 with *count (0 for an empty tensor), 0 when they cannot. */
static bool check_shape(const check_ctx *c, dlx_check_report *r, int64_t *count, bool *overflow) {
  const int32_t nd = c->t->ndim;
  *count = 1;
  *overflow = false;
  if (nd <= 0) return true;
  /* a rank no producer makes (NumPy and PyTorch stop at 64, as dlx does): most likely garbage, and reading
   * that many extents would run far past the producer's arrays. Not a finding: the standard sets no
   * maximum; the extents are only left unread. */
  if (nd > DLX_MAX_NDIM) return false;
  if (c->t->shape == NULL) {
    add(r, DLX_CHECK_SHAPE_NULL, "shape is NULL with ndim %" PRId32, nd);
    return false;
  }
  bool zero = false;
  for (int32_t i = 0; i < nd; ++i) {
    const int64_t e = c->t->shape[i];
    if (e < 0) {
      add(r, DLX_CHECK_EXTENT_NEGATIVE, "shape[%" PRId32 "] is %" PRId64, i, e);
      return false;
    }
    zero |= e == 0;
    if (!*overflow && __builtin_mul_overflow(*count, e, count)) *overflow = true;
  }
  if (zero) { /* an empty tensor holds no element, whatever its other extents */
    *count = 0;
    *overflow = false;
  }
  return true;
}

/* Items from element 0 to the lowest (*below) and highest (*above) element; false on overflow. */
static bool strided_reach(const DLTensor *t, uint64_t *below, uint64_t *above) {
  *below = *above = 0;
  for (int32_t i = 0; i < t->ndim; ++i) {
    const int64_t e = t->shape[i], s = t->strides[i];
    uint64_t step;
    if (__builtin_mul_overflow((uint64_t)(e - 1), dlx__abs_u64(s), &step)) return false;
    uint64_t *side = s < 0 ? below : above;
    if (__builtin_add_overflow(*side, step, side)) return false;
  }
  return true;
}

/* The element count, the span in bytes, and the addresses of a non-empty tensor. */
static void check_span(const check_ctx *c, dlx_check_report *r, int64_t count) {
  const DLTensor *t = c->t;
  const uint64_t itemsize = dlx_dtype_itemsize(t->dtype);
  uint64_t below = 0, above = (uint64_t)count - 1u, bytes = 0;
  const bool strided = t->ndim > 0 && t->strides != NULL;
  bool ok = !strided || strided_reach(t, &below, &above);
  ok = ok && !__builtin_add_overflow(below, above, &bytes) && !__builtin_add_overflow(bytes, 1u, &bytes) &&
       !__builtin_mul_overflow(bytes, itemsize, &bytes) && bytes <= (uint64_t)INT64_MAX;
  if (!ok) {
    add(r, DLX_CHECK_SIZE_OVERFLOW, "the strides span more than 2^63 bytes");
    return;
  }
  if (t->data == NULL) return;
  const uintptr_t data = (uintptr_t)t->data;
  uintptr_t first;
  if (__builtin_add_overflow(data, (uintptr_t)t->byte_offset, &first) || below * itemsize > first ||
      (above + 1u) * itemsize > UINTPTR_MAX - first)
    add(r, DLX_CHECK_SIZE_OVERFLOW, "data %p + byte_offset %" PRIu64 " puts elements outside the address space",
        t->data, t->byte_offset);
}

static void check_layout(const check_ctx *c, dlx_check_report *r) {
  const DLTensor *t = c->t;
  int64_t count;
  bool overflow;
  const bool extents = check_shape(c, r, &count, &overflow);
  if (t->ndim > 0 && t->strides == NULL && !c->legacy && at_least(c, 1, 2))
    add(r, DLX_CHECK_STRIDES_NULL, "strides is NULL with ndim %" PRId32 " in a DLPack %" PRIu32 ".%" PRIu32 " tensor",
        t->ndim, c->major, c->minor);
  if (!extents || t->ndim < 0) return;
  if (overflow) {
    add(r, DLX_CHECK_SIZE_OVERFLOW, "the element count overflows int64");
    return;
  }
  if (count > 0 && t->data == NULL)
    add(r, DLX_CHECK_DATA_NULL, "data is NULL with %" PRId64 " element%s", count, count == 1 ? "" : "s");
  if (count > 0 && dlx_dtype_is_valid(t->dtype)) check_span(c, r, count);
}

static dlx_status run(const check_ctx *c, dlx_check_report *out) {
  out->count = 0;
  out->broken = 0;
  check_flags(c, out);
  check_dtype(c, out);
  check_device(c, out);
  check_layout(c, out);
  return DLX_OK;
}

dlx_status dlx_check_managed(const DLManagedTensorVersioned *m, dlx_check_report *out) {
  DLX_CHECK_NULL(m);
  DLX_CHECK_NULL(out);
  check_ctx c = {&m->dl_tensor, m->version.major, m->version.minor, m->flags, false};
  if (m->version.major != DLX_DLPACK_MAJOR) {
    out->count = 0;
    out->broken = 0;
    add(out, DLX_CHECK_VERSION_MAJOR, "DLPack version %" PRIu32 ".%" PRIu32 ": only the deleter may be called",
        m->version.major, m->version.minor);
    return DLX_OK;
  }
  return run(&c, out);
}

dlx_status dlx_check_managed_legacy(const DLManagedTensor *m, dlx_check_report *out) {
  DLX_CHECK_NULL(m);
  DLX_CHECK_NULL(out);
  check_ctx c = {&m->dl_tensor, 0, 0, 0, true};
  return run(&c, out);
}
