/* fuzz/fuzz_dltensor_import.c - libFuzzer harness for dlx_view_from_dltensor and what follows an import.
 *
 * Arbitrary bytes become every field of a DLTensor (ndim, dtype, device, byte_offset, shape and stride
 * values, which pointers are NULL) and of the dlx_import_spec (dtype, ndim, memspace, layout, version,
 * alignment), also wrapped in versioned and legacy managed tensors. Memory is laid out so that
 * AddressSanitizer catches any read dlx must not make:
 *   - shape and strides are heap arrays of exactly ndim elements (a zero-byte block when ndim <= 0), so
 *     reading past ndim, or reading them at all for ndim 0, is a heap-buffer-overflow;
 *   - data points into an mmap'ed region that is entirely PROT_NONE, or is a raw pointer value (up to
 *     the top of the address space): dlx import never dereferences data, so any read is a SEGV.
 * On a successful import the harness checks the documented promises (shape and dtype kept, byte_offset
 * applied, the requested layout really holds, alignment), exports the view, re-imports the export, and
 * runs the layout functions and dlx_iter_init over the view, cross-checking them against each other.
 * A broken promise prints what differed and traps (harness code, never library code).
 *
 * Input format (reads past the end yield zero bytes); fuzz/make_corpus.py writes the same encoding:
 *   ptrs   u8: 1 shape NULL, 2 strides NULL, 4 data NULL, 0x20 NULL-argument checks,
 *              0x40 also as a versioned managed tensor, 0x80 also as a legacy managed tensor
 *   modes  u8: bits 0-1 data (0 guard + u8, 1 guard + 64 * u8, 2 raw u64, 3 UINTPTR_MAX - u8),
 *              4 byte_offset is a raw u64 (else u8 & 63, times 8 unless bit 8), 0x80 any managed flags
 *   ndim, dtype (code, bits, lanes), device (type, id), data, byte_offset, shape[ndim], strides[ndim],
 *   spec dtype, spec ndim, memspace, layout, version, alignment, iter flags,
 *   [versioned: major, minor, flags u64]. */
/* MAP_ANONYMOUS and sysconf under -std=c11 */
#define _DEFAULT_SOURCE 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dlx/dlx.h"

#define FUZZ_CHECK(cond, ...)                                                  \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz_dltensor_import: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      __builtin_trap();                                                        \
    }                                                                          \
  } while (0)

/* ---- input reader --------------------------------------------------------------------------- */

typedef struct reader {
  const uint8_t *p;
  size_t n;
} reader;

static uint8_t next_u8(reader *r) {
  if (r->n == 0) return 0;
  r->n--;
  return *r->p++;
}
static uint32_t next_u32(reader *r) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= (uint32_t)next_u8(r) << (8 * i);
  return v;
}
static uint64_t next_u64(reader *r) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= (uint64_t)next_u8(r) << (8 * i);
  return v;
}

/* Most bytes give the small values real tensors have; a few escape to extremes or raw words. */
static int32_t next_ndim(reader *r) {
  uint8_t b = next_u8(r);
  if (b < 0xE0) return b % 9;                          /* 0..8 */
  if (b < 0xF0) return 56 + (b & 0x0F);                /* 56..71, around DLX_MAX_NDIM */
  if (b < 0xFF) return -1 - (int32_t)(b & 0x0F);       /* -1..-15 */
  return (int32_t)next_u32(r);
}
static int64_t next_i64_small(reader *r) { /* extents and strides */
  uint8_t b = next_u8(r);
  if (b < 0xC0) return b & 0x0F;                       /* 0..15 */
  if (b < 0xF0) return (int64_t)(b & 0x1F) - 16;       /* -16..15 */
  return (int64_t)next_u64(r);
}
static DLDataType next_dtype(reader *r) {
  static const uint8_t bits_table[8] = {8, 16, 32, 64, 128, 4, 6, 0};
  DLDataType dt;
  uint8_t c = next_u8(r), b = next_u8(r), l = next_u8(r);
  dt.code = c < 0xF0 ? (uint8_t)(c % 20) : c;
  if (b < 0xC0)
    dt.bits = bits_table[b % 8];
  else if (b < 0xFF)
    dt.bits = (uint8_t)(b - 0xC0); /* 0..62 */
  else
    dt.bits = next_u8(r);
  if (l < 0xC0)
    dt.lanes = 1;
  else if (l < 0xFF)
    dt.lanes = (uint16_t)(l & 0x3F);
  else
    dt.lanes = (uint16_t)next_u32(r);
  return dt;
}
static DLDevice next_device(reader *r) {
  DLDevice d;
  uint8_t t = next_u8(r);
  d.device_type = (DLDeviceType)(t < 0xF0 ? t % 20 : (int32_t)next_u32(r));
  uint8_t i = next_u8(r);
  d.device_id = i < 0xF0 ? i % 4 : (i < 0xFF ? -1 - (int32_t)(i & 0x0F) : (int32_t)next_u32(r));
  return d;
}

/* ---- memory the tensor points into ---------------------------------------------------------- */

static uint8_t *g_guard;  /* 3 pages, all PROT_NONE: touching data is a crash */
static size_t g_page;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  g_page = (size_t)sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, 3 * g_page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  FUZZ_CHECK(p != MAP_FAILED, "mmap of the guard region failed");
  g_guard = (uint8_t *)p;
  return 0;
}

/* A heap array of exactly n int64 values (a zero-byte block when n == 0) filled from the input. */
static int64_t *make_array(reader *r, int64_t n) {
  if (n < 0) n = 0;
  if (n > 256) n = 256; /* dlx refuses such ranks before reading; a longer read still overflows */
  int64_t *a = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  if (a == NULL) a = (int64_t *)malloc(1); /* malloc(0) may return NULL; keep it non-NULL */
  for (int64_t i = 0; i < n; ++i) a[i] = next_i64_small(r);
  return a;
}

/* ---- checks ---------------------------------------------------------------------------------- */

static void check_status(dlx_status st, const char *what) {
  FUZZ_CHECK((int)st >= 0 && (int)st < (int)DLX_STATUS_COUNT, "%s returned status %d", what, (int)st);
  const char *name = dlx_status_name(st);
  FUZZ_CHECK(name != NULL && strcmp(name, "UNKNOWN_STATUS") != 0, "%s: no name for status %d", what, (int)st);
  const char *msg = dlx_last_error();
  FUZZ_CHECK(msg != NULL, "%s: dlx_last_error() is NULL", what);
  size_t len = strlen(msg); /* the message must be NUL-terminated: ASan checks the walk */
  if (st != DLX_OK) FUZZ_CHECK(len > 0, "%s failed with %s but left no message", what, name);
}

static bool dtype_eq(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

static bool is_permutation(int32_t n, const int32_t *order) {
  uint64_t seen[2] = {0, 0}; /* n <= 64 */
  for (int32_t i = 0; i < n; ++i) {
    if (order[i] < 0 || order[i] >= n) return false;
    uint64_t bit = 1ull << (order[i] & 63);
    if (seen[order[i] >> 6] & bit) return false;
    seen[order[i] >> 6] |= bit;
  }
  return true;
}

static int64_t view_size(const dlx_view *v) {
  int64_t n = 1;
  for (int32_t i = 0; i < v->ndim; ++i)
    if (v->shape[i] == 0) return 0;
  for (int32_t i = 0; i < v->ndim; ++i) {
    /* dlx promises the count fits int64 for a view it made */
    FUZZ_CHECK(!__builtin_mul_overflow(n, v->shape[i], &n), "element count of an accepted view overflows");
  }
  return n;
}

/* Promises of a successful import of t under spec. */
static void check_import(const dlx_view *v, const DLTensor *t, const dlx_import_spec *spec, const char *path) {
  FUZZ_CHECK(v->ndim == t->ndim, "%s: ndim %d, tensor had %d", path, v->ndim, t->ndim);
  FUZZ_CHECK(v->ndim >= 0 && v->ndim <= DLX_MAX_NDIM, "%s: ndim %d accepted", path, v->ndim);
  FUZZ_CHECK(dtype_eq(v->dtype, t->dtype), "%s: dtype changed", path);
  FUZZ_CHECK(dlx_dtype_is_valid(v->dtype), "%s: illegal dtype (%d,%d,%d) accepted", path, v->dtype.code,
             v->dtype.bits, v->dtype.lanes);
  FUZZ_CHECK(v->device.device_type == t->device.device_type && v->device.device_id == t->device.device_id,
             "%s: device changed", path);
  FUZZ_CHECK(dlx_device_type_is_known((int32_t)v->device.device_type), "%s: unknown device type %d accepted",
             path, (int)v->device.device_type);
  if (spec->ndim != DLX_NDIM_ANY) FUZZ_CHECK(v->ndim == spec->ndim, "%s: rank %d, spec %d", path, v->ndim, spec->ndim);
  if (spec->dtype.lanes != 0) FUZZ_CHECK(dtype_eq(v->dtype, spec->dtype), "%s: dtype differs from spec", path);
  for (int32_t i = 0; i < v->ndim; ++i) {
    FUZZ_CHECK(v->shape[i] == t->shape[i] && v->shape[i] >= 0, "%s: shape[%d] = %lld, tensor %lld", path, i,
               (long long)v->shape[i], (long long)t->shape[i]);
  }
  int64_t size = view_size(v);
  if (size == 0) return; /* data may be NULL and strides garbage: nothing more is promised */
  FUZZ_CHECK(t->data != NULL, "%s: NULL data accepted for %lld elements", path, (long long)size);
  FUZZ_CHECK((uintptr_t)v->data == (uintptr_t)t->data + (uintptr_t)t->byte_offset,
             "%s: data %p, expected tensor data %p + byte_offset %llu", path, v->data, t->data,
             (unsigned long long)t->byte_offset);
  for (int32_t i = 0; i < v->ndim; ++i) {
    if (t->strides != NULL && v->shape[i] > 1)
      FUZZ_CHECK(v->strides[i] == t->strides[i], "%s: strides[%d] = %lld, tensor %lld", path, i,
                 (long long)v->strides[i], (long long)t->strides[i]);
  }
  if (t->strides == NULL)
    FUZZ_CHECK(dlx_layout_is_c_contiguous(v->ndim, v->shape, v->strides),
               "%s: NULL strides did not become row-major", path);
  switch (spec->layout) {
    case DLX_LAYOUT_RIGHT:
      FUZZ_CHECK(dlx_layout_is_c_contiguous(v->ndim, v->shape, v->strides), "%s: LAYOUT_RIGHT view not C-contiguous",
                 path);
      break;
    case DLX_LAYOUT_LEFT:
      FUZZ_CHECK(dlx_layout_is_f_contiguous(v->ndim, v->shape, v->strides), "%s: LAYOUT_LEFT view not F-contiguous",
                 path);
      break;
    case DLX_LAYOUT_STRIDE:
      for (int32_t i = 0; i < v->ndim; ++i)
        if (v->shape[i] > 1)
          FUZZ_CHECK(v->strides[i] > 0, "%s: LAYOUT_STRIDE accepted stride %lld", path, (long long)v->strides[i]);
      break;
    default:
      break;
  }
  size_t align = spec->alignment ? spec->alignment : dlx_dtype_alignment(v->dtype);
  if (align > 0)
    FUZZ_CHECK((uintptr_t)v->data % align == 0, "%s: data %p not aligned to %zu", path, v->data, align);
}

/* Sum and sum of squares of element addresses (mod 2^64): equal multisets give equal pairs. */
typedef struct addr_sums {
  uint64_t sum, sq;
} addr_sums;

static addr_sums sums_by_index(const dlx_view *v, uint64_t itemsize) {
  addr_sums s = {0, 0};
  int64_t idx[DLX_MAX_NDIM] = {0};
  int64_t size = view_size(v);
  for (int64_t k = 0; k < size; ++k) {
    uint64_t a = (uint64_t)(uintptr_t)v->data;
    for (int32_t d = 0; d < v->ndim; ++d) a += (uint64_t)idx[d] * (uint64_t)v->strides[d] * itemsize;
    s.sum += a;
    s.sq += a * a;
    for (int32_t d = v->ndim - 1; d >= 0; --d) {
      if (++idx[d] < v->shape[d]) break;
      idx[d] = 0;
    }
  }
  return s;
}

static addr_sums sums_by_iter(const dlx_iter *it, int op) {
  addr_sums s = {0, 0};
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t k = 0; k < it->size; ++k) {
    uint64_t a = (uint64_t)(uintptr_t)it->data[op];
    for (int32_t d = 0; d < it->ndim; ++d) a += (uint64_t)idx[d] * (uint64_t)it->strides[op][d];
    s.sum += a;
    s.sq += a * a;
    for (int32_t d = it->ndim - 1; d >= 0; --d) {
      if (++idx[d] < it->shape[d]) break;
      idx[d] = 0;
    }
  }
  return s;
}

static void exercise_iter(const dlx_view *v, uint32_t flags) {
  const dlx_view *ops[2] = {v, v};
  dlx_iter it;
  int64_t size = view_size(v);
  for (int32_t nop = 1; nop <= 2; ++nop) {
    dlx_clear_error();
    dlx_status st = dlx_iter_init(&it, nop, ops, flags);
    check_status(st, "dlx_iter_init");
    if (st != DLX_OK) continue;
    FUZZ_CHECK(!dlx_dtype_is_subbyte(v->dtype) || (v->flags & DLX_VIEW_SUBBYTE_PADDED),
               "dlx_iter_init accepted a packed sub-byte dtype");
    FUZZ_CHECK(it.nop == nop, "iter nop %d, asked %d", it.nop, nop);
    FUZZ_CHECK(it.ndim >= 0 && it.ndim <= DLX_MAX_NDIM, "iter ndim %d", it.ndim);
    FUZZ_CHECK(it.size == size, "iter size %lld, view has %lld elements", (long long)it.size, (long long)size);
    if (size == 0) continue;
    int64_t prod = 1;
    for (int32_t d = 0; d < it.ndim; ++d) {
      FUZZ_CHECK(it.shape[d] >= 1, "iter shape[%d] = %lld", d, (long long)it.shape[d]);
      prod *= it.shape[d];
    }
    FUZZ_CHECK(prod == it.size, "iter shape product %lld != size %lld", (long long)prod, (long long)it.size);
    if (nop == 2)
      for (int32_t d = 0; d < it.ndim; ++d)
        FUZZ_CHECK(it.strides[0][d] == it.strides[1][d], "same view, different iter strides at %d", d);
    if (size <= 4096) {
      addr_sums a = sums_by_index(v, (uint64_t)dlx_dtype_itemsize(v->dtype));
      addr_sums b = sums_by_iter(&it, nop - 1);
      FUZZ_CHECK(a.sum == b.sum && a.sq == b.sq, "iter visits other addresses than the view's elements");
    }
  }
}

static void exercise_layout(const dlx_view *v) {
  int32_t n = v->ndim;
  int64_t size = view_size(v);
  bool c = dlx_layout_is_c_contiguous(n, v->shape, v->strides);
  bool f = dlx_layout_is_f_contiguous(n, v->shape, v->strides);
  if (n == 0 || size == 0) FUZZ_CHECK(c && f, "rank-0 or empty view not contiguous both ways");

  int32_t order[DLX_MAX_NDIM];
  dlx_clear_error();
  dlx_status st = dlx_layout_stride_order(n, v->shape, v->strides, order);
  check_status(st, "dlx_layout_stride_order");
  FUZZ_CHECK(st == DLX_OK, "dlx_layout_stride_order failed on a valid view: %s", dlx_last_error());
  FUZZ_CHECK(is_permutation(n, order), "stride order is not a permutation");

  int64_t cs[DLX_MAX_NDIM];
  dlx_clear_error();
  st = dlx_layout_compact_strides(n, v->shape, NULL, cs);
  check_status(st, "dlx_layout_compact_strides");
  if (st == DLX_OK) FUZZ_CHECK(dlx_layout_is_c_contiguous(n, v->shape, cs), "row-major compact strides not C-contiguous");
  int32_t rev[DLX_MAX_NDIM];
  for (int32_t i = 0; i < n; ++i) rev[i] = n - 1 - i;
  dlx_clear_error();
  st = dlx_layout_compact_strides(n, v->shape, rev, cs);
  check_status(st, "dlx_layout_compact_strides(reversed)");
  if (st == DLX_OK) FUZZ_CHECK(dlx_layout_is_f_contiguous(n, v->shape, cs), "column-major compact strides not F-contiguous");
  dlx_clear_error();
  st = dlx_layout_compact_strides(n, v->shape, order, cs);
  check_status(st, "dlx_layout_compact_strides(order)");

  int32_t lead = -2;
  dlx_clear_error();
  st = dlx_layout_leading_dim(n, v->strides, &lead);
  check_status(st, "dlx_layout_leading_dim");
  if (st == DLX_OK) {
    FUZZ_CHECK(lead >= -1 && lead < n, "leading dim %d of rank %d", lead, n);
    if (lead >= 0) FUZZ_CHECK(v->strides[lead] == 1, "leading dim %d has stride %lld", lead, (long long)v->strides[lead]);
  }
  dlx_clear_error();
  st = dlx_layout_deduce_stride_order(n, v->shape, v->strides, order);
  check_status(st, "dlx_layout_deduce_stride_order");
  if (st == DLX_OK) FUZZ_CHECK(is_permutation(n, order), "deduced stride order is not a permutation");

  uintptr_t lo = 0, hi = 0;
  dlx_clear_error();
  st = dlx_view_byte_span(v, &lo, &hi);
  check_status(st, "dlx_view_byte_span");
  /* import refuses byte spans that overflow, so every imported view has one */
  FUZZ_CHECK(st == DLX_OK, "an imported view has no byte span: %s", dlx_last_error());
  if (st == DLX_OK) {
    FUZZ_CHECK(lo <= hi, "byte span [%p, %p) reversed", (void *)lo, (void *)hi);
    if (size == 0) FUZZ_CHECK(lo == hi, "empty view spans %zu bytes", (size_t)(hi - lo));
    if (size > 0 && !dlx_dtype_is_subbyte(v->dtype))
      FUZZ_CHECK(lo <= (uintptr_t)v->data && (uintptr_t)v->data < hi, "element 0 outside the byte span");
  }

  dlx_overlap ov = DLX_OVERLAP_PARTIAL;
  dlx_clear_error();
  st = dlx_view_overlap(v, v, &ov);
  check_status(st, "dlx_view_overlap");
  if (st == DLX_OK && size > 0) FUZZ_CHECK(ov == DLX_OVERLAP_SAME, "a view overlaps itself as %d", (int)ov);

  if (n < DLX_MAX_NDIM) {
    int64_t bshape[DLX_MAX_NDIM];
    bshape[0] = 3;
    for (int32_t i = 0; i < n; ++i) bshape[i + 1] = v->shape[i];
    dlx_view b;
    dlx_clear_error();
    st = dlx_view_broadcast_to(v, n + 1, bshape, &b);
    check_status(st, "dlx_view_broadcast_to");
    if (st == DLX_OK) {
      FUZZ_CHECK(b.ndim == n + 1, "broadcast rank %d", b.ndim);
      FUZZ_CHECK(b.strides[0] == 0 || size == 0, "new broadcast dimension has stride %lld", (long long)b.strides[0]);
      for (int32_t i = 0; i < n; ++i) FUZZ_CHECK(b.shape[i + 1] == v->shape[i], "broadcast changed extent %d", i);
    }
  }

  if (size > 0) {
    int64_t idx[DLX_MAX_NDIM], off = -1;
    for (int32_t i = 0; i < n; ++i) idx[i] = 0;
    dlx_clear_error();
    st = dlx_view_offset(v, idx, &off);
    check_status(st, "dlx_view_offset(0)");
    FUZZ_CHECK(st == DLX_OK && off == 0, "offset of index 0 is %lld (%s)", (long long)off, dlx_last_error());
    for (int32_t i = 0; i < n; ++i) idx[i] = v->shape[i] - 1;
    dlx_clear_error();
    st = dlx_view_offset(v, idx, &off);
    check_status(st, "dlx_view_offset(last)");
    FUZZ_CHECK(st == DLX_OK, "offset of the last index failed: %s", dlx_last_error());
    void *ptr = NULL;
    dlx_clear_error();
    st = dlx_view_element_ptr(v, idx, &ptr);
    check_status(st, "dlx_view_element_ptr");
    if (st == DLX_OK && lo < hi)
      FUZZ_CHECK((uintptr_t)ptr >= lo && (uintptr_t)ptr + dlx_dtype_itemsize(v->dtype) <= hi,
                 "last element %p outside span [%p, %p)", ptr, (void *)lo, (void *)hi);
    if (n > 0) {
      idx[0] = v->shape[0]; /* one past the end: refused, never wrapped */
      dlx_clear_error();
      st = dlx_view_offset(v, idx, &off);
      check_status(st, "dlx_view_offset(out of range)");
      FUZZ_CHECK(st == DLX_ERR_INDEX, "index == extent accepted with %s", dlx_status_name(st));
    }
  }

  char name[DLX_DTYPE_NAME_MAX];
  dlx_clear_error();
  st = dlx_dtype_format(v->dtype, name, sizeof name);
  check_status(st, "dlx_dtype_format");
  FUZZ_CHECK(st == DLX_OK, "an imported dtype has no name: %s", dlx_last_error());
  DLDataType parsed;
  dlx_clear_error();
  st = dlx_dtype_parse(name, &parsed);
  check_status(st, "dlx_dtype_parse");
  FUZZ_CHECK(st == DLX_OK && dtype_eq(parsed, v->dtype), "dtype name \"%s\" does not round-trip", name);
}

static void exercise_export(const dlx_view *v) {
  static dlx_dltensor holder; /* static: 1 KiB, and its address must stay put while t points into it */
  dlx_clear_error();
  dlx_status st = dlx_view_to_dltensor(v, &holder);
  check_status(st, "dlx_view_to_dltensor");
  if (st != DLX_OK) return;
  const DLTensor *t = &holder.tensor;
  int64_t size = view_size(v);
  FUZZ_CHECK(t->ndim == v->ndim, "export ndim %d, view %d", t->ndim, v->ndim);
  FUZZ_CHECK(dtype_eq(t->dtype, v->dtype), "export changed the dtype");
  FUZZ_CHECK(t->device.device_type == v->device.device_type, "export changed the device type");
  FUZZ_CHECK(t->byte_offset == 0, "export byte_offset %llu", (unsigned long long)t->byte_offset);
  FUZZ_CHECK(size > 0 ? t->data == v->data : t->data == NULL, "export data %p for view data %p, %lld elements",
             t->data, v->data, (long long)size);
  if (t->ndim > 0) {
    FUZZ_CHECK(t->shape != NULL && t->strides != NULL, "export of rank %d has NULL shape or strides", t->ndim);
    for (int32_t i = 0; i < t->ndim; ++i) FUZZ_CHECK(t->shape[i] == v->shape[i], "export shape[%d] differs", i);
  }

  dlx_import_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.dtype = DLX_DTYPE_ANY;
  spec.ndim = DLX_NDIM_ANY;
  spec.memspace = DLX_MEMSPACE_ANY;
  spec.layout = DLX_LAYOUT_ANY;
  spec.version = DLX_DLPACK_VERSION_NUM(DLX_DLPACK_MAJOR, DLX_DLPACK_MINOR);
  spec.alignment = 1;
  dlx_view back;
  dlx_clear_error();
  st = dlx_view_from_dltensor(&back, t, &spec);
  check_status(st, "re-import of an export");
  FUZZ_CHECK(st == DLX_OK, "dlx refuses its own export: %s: %s", dlx_status_name(st), dlx_last_error());
  check_import(&back, t, &spec, "re-import");
  if (size > 0) {
    FUZZ_CHECK(back.data == v->data, "round trip moved data");
    for (int32_t i = 0; i < v->ndim; ++i)
      if (v->shape[i] > 1) FUZZ_CHECK(back.strides[i] == v->strides[i], "round trip changed strides[%d]", i);
  }
}

/* ---- entry point ----------------------------------------------------------------------------- */

static uint32_t pick_version(reader *r) {
  switch (next_u8(r) % 8) {
    case 0: return DLX_DLPACK_VERSION_LEGACY;
    case 1: return DLX_DLPACK_VERSION_NUM(1, 0);
    case 2: return DLX_DLPACK_VERSION_NUM(1, 1);
    case 3: return DLX_DLPACK_VERSION_NUM(1, 2);
    case 4: return DLX_DLPACK_VERSION_NUM(1, 3);
    case 5: return DLX_DLPACK_VERSION_NUM(2, 0);
    case 6: return DLX_DLPACK_VERSION_NUM(1, 99);
    default: return next_u32(r);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t len) {
  if (g_guard == NULL) LLVMFuzzerInitialize(NULL, NULL);
  reader r = {bytes, len};

  /* Header: which pointers are NULL and how data / byte_offset are formed. */
  uint8_t ptrs = next_u8(&r);
  uint8_t modes = next_u8(&r);
  DLTensor t;
  memset(&t, 0, sizeof t);
  t.ndim = next_ndim(&r);
  t.dtype = next_dtype(&r);
  t.device = next_device(&r);
  switch (modes & 3) {
    case 0: t.data = g_guard + g_page + next_u8(&r); break;                 /* inside the guard, any alignment */
    case 1: t.data = g_guard + g_page + 64u * (next_u8(&r) & 0x3F); break;  /* 64-byte aligned */
    case 2: t.data = (void *)(uintptr_t)next_u64(&r); break;                /* any value, never dereferenced */
    default: t.data = (void *)(UINTPTR_MAX - next_u8(&r)); break;          /* top of the address space */
  }
  if (ptrs & 4) t.data = NULL;
  t.byte_offset = (modes & 4) ? next_u64(&r) : (uint64_t)(next_u8(&r) & 0x3F) * ((modes & 8) ? 1u : 8u);

  int64_t *shape = NULL, *strides = NULL;
  if (!(ptrs & 1)) shape = make_array(&r, t.ndim);
  if (!(ptrs & 2)) strides = make_array(&r, t.ndim);
  t.shape = shape;
  t.strides = strides;

  /* The import spec. */
  dlx_import_spec spec;
  memset(&spec, 0, sizeof spec);
  uint8_t sd = next_u8(&r);
  if (sd < 0x40) {
    spec.dtype = DLX_DTYPE_ANY;
  } else if (sd < 0xC0) {
    spec.dtype = t.dtype;
  } else if (sd < 0xF0) {
    spec.dtype = t.dtype;
    if (sd & 1) spec.dtype.bits = (uint8_t)(spec.dtype.bits * 2);
    if (sd & 2) spec.dtype.code = (uint8_t)(spec.dtype.code + 1);
    if (sd & 4) spec.dtype.lanes = (uint16_t)(spec.dtype.lanes + 1);
  } else {
    spec.dtype = next_dtype(&r);
  }
  uint8_t sn = next_u8(&r);
  spec.ndim = sn < 0x40 ? DLX_NDIM_ANY : (sn < 0xC0 ? t.ndim : (int32_t)(int8_t)next_u8(&r));
  uint8_t sm = next_u8(&r);
  spec.memspace = (dlx_memspace)(sm % 5 < 4 ? sm % 5 : (int)(int8_t)next_u8(&r));
  uint8_t sl = next_u8(&r);
  spec.layout = (dlx_layout)(sl % 5 < 4 ? sl % 5 : (int)(int8_t)next_u8(&r));
  spec.version = pick_version(&r);
  uint8_t sa = next_u8(&r);
  if (sa < 0x80)
    spec.alignment = 0;
  else if (sa < 0xF0)
    spec.alignment = 1u << (sa & 7);
  else if (sa < 0xFF)
    spec.alignment = sa & 0x0F; /* 0..15: non-powers of two must be refused */
  else
    spec.alignment = next_u32(&r);
  uint32_t iter_flags = next_u8(&r) & 7u;

  dlx_view v;
  memset(&v, 0xA5, sizeof v);
  dlx_clear_error();
  dlx_status st = dlx_view_from_dltensor(&v, &t, &spec);
  check_status(st, "dlx_view_from_dltensor");
#ifdef DLX_FUZZ_TRACE /* -DDLX_FUZZ_TRACE: print what each input decodes to (for corpus work) */
  fprintf(stderr, "ndim %d dtype (%d,%d,%d) device (%d,%d) data %p+%llu shape%s strides%s spec ndim %d "
          "memspace %d layout %d version 0x%x align %u -> %s %s\n", t.ndim, t.dtype.code, t.dtype.bits,
          t.dtype.lanes, (int)t.device.device_type, t.device.device_id, t.data, (unsigned long long)t.byte_offset,
          shape ? "" : " NULL", strides ? "" : " NULL", spec.ndim, (int)spec.memspace, (int)spec.layout,
          spec.version, spec.alignment, dlx_status_name(st), dlx_last_error());
  for (int32_t i = 0; shape && i < t.ndim && i < 16; ++i)
    fprintf(stderr, "  dim %d: extent %lld stride %lld\n", i, (long long)shape[i], strides ? (long long)strides[i] : 0LL);
#endif
  if (st == DLX_OK) {
    check_import(&v, &t, &spec, "import");
    exercise_export(&v);
    exercise_layout(&v);
    exercise_iter(&v, iter_flags);
  }

  /* The same tensor inside managed tensors. */
  if (ptrs & 0x40) {
    DLManagedTensorVersioned m;
    memset(&m, 0, sizeof m);
    m.version.major = next_u8(&r) & 3;
    m.version.minor = next_u8(&r);
    m.flags = next_u64(&r) & ((modes & 0x80) ? ~0ull : 7ull);
    m.dl_tensor = t;
    dlx_clear_error();
    st = dlx_view_from_managed_versioned(&v, &m, &spec);
    check_status(st, "dlx_view_from_managed_versioned");
    if (st == DLX_OK) {
      FUZZ_CHECK(m.version.major == 1, "managed tensor of major version %u accepted", m.version.major);
      dlx_import_spec own = spec;
      own.version = DLX_DLPACK_VERSION_NUM(m.version.major, m.version.minor);
      check_import(&v, &t, &own, "managed_versioned");
      FUZZ_CHECK(((m.flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) == ((v.flags & DLX_VIEW_READ_ONLY) != 0),
                 "READ_ONLY flag not carried over");
      FUZZ_CHECK(((m.flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) != 0) ==
                     ((v.flags & DLX_VIEW_SUBBYTE_PADDED) != 0),
                 "PADDED flag not carried over");
      exercise_export(&v);
    }
  }
  if (ptrs & 0x80) {
    DLManagedTensor m;
    memset(&m, 0, sizeof m);
    m.dl_tensor = t;
    dlx_clear_error();
    st = dlx_view_from_managed(&v, &m, &spec);
    check_status(st, "dlx_view_from_managed");
    if (st == DLX_OK) {
      dlx_import_spec legacy = spec;
      legacy.version = DLX_DLPACK_VERSION_LEGACY;
      check_import(&v, &t, &legacy, "managed_legacy");
    }
  }
  /* NULL arguments are refused, never dereferenced. */
  if (ptrs & 0x20) {
    dlx_clear_error();
    FUZZ_CHECK(dlx_view_from_dltensor(NULL, &t, &spec) != DLX_OK, "NULL out accepted");
    dlx_clear_error();
    FUZZ_CHECK(dlx_view_from_dltensor(&v, NULL, &spec) != DLX_OK, "NULL tensor accepted");
    dlx_clear_error();
    FUZZ_CHECK(dlx_view_from_dltensor(&v, &t, NULL) != DLX_OK, "NULL spec accepted");
  }

  free(shape);
  free(strides);
  return 0;
}
