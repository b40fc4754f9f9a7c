/* fuzz/fuzz_managed_import.c - libFuzzer harness for managed-tensor import: dlx_view_from_managed_versioned
 * and dlx_view_from_managed, the entry points every capsule a Python producer hands to dlx goes through.
 *
 * A producer controls the whole managed struct: version (any major and minor), flags (any of the 64
 * bits), manager_ctx, a deleter that may be NULL, and the DLTensor inside. The harness builds such a
 * struct in an exactly sized heap block (so a read past it is an overflow ASan reports) with the shape
 * and strides in exactly sized blocks too, and data pointing into a PROT_NONE region (import never
 * dereferences data). Then it checks:
 *   - a major version other than 1 is DLX_ERR_VERSION, whatever else is wrong with the tensor;
 *   - otherwise the outcome is exactly that of dlx_view_from_dltensor on the embedded DLTensor with the
 *     spec's version replaced by the tensor's own (minor clamped), or by LEGACY for a legacy tensor:
 *     same status, same view (the DLTensor importer has its own harness, fuzz_dltensor_import);
 *   - READ_ONLY and IS_SUBBYTE_TYPE_PADDED become view flags, every other flag bit is ignored;
 *   - import borrows: the struct is byte for byte unchanged and the deleter is never called;
 *   - NULL out, tensor or spec is DLX_ERR_NULL_ARGUMENT and nothing is written.
 * dlx_check_managed / dlx_check_managed_legacy (dlx/check.h) read the same struct:
 *   - no more than the import may (ASan), nothing written, no deleter called; each rule at most once, in
 *     rule order, `broken` the set of the findings; a major other than 1 is that rule alone;
 *   - they agree with the import with any dtype, rank, memspace and layout: a finding of a rule the import
 *     enforces too means the import fails, and an import that fails with VERSION, INVALID_DTYPE,
 *     NULL_SHAPE, NEGATIVE_EXTENT, NULL_STRIDES or NULL_DATA comes with that rule's finding.
 * With the owning API of dlx/tensor.h (kind bit 6), dlx takes the managed tensor over instead:
 *   - dlx_tensor_from_managed_versioned / dlx_tensor_from_managed fail exactly when the borrowing
 *     import (with the spec dlx/tensor.h documents: any layout, any alignment) fails, and then the
 *     deleter has run once; NULL out is refused and still runs it;
 *   - on success a fuzzed sequence of retains, releases, views (index, transpose, squeeze, unsqueeze,
 *     reshape), exports (dlx_tensor_to_managed_versioned), re-imports of those exports and releases
 *     of exports never runs the producer's deleter while any tensor or export is alive, and runs it
 *     exactly once when the last one goes, in whatever order they go; a NULL deleter is never called.
 *
 * Input format (reads past the end yield zero bytes; fuzz/make_corpus.py writes the same encoding):
 *   kind u8: bit 0 legacy (else versioned), bit 1 NULL deleter, bit 2 NULL-argument checks,
 *            bit 3 shape NULL, bit 4 strides NULL, bit 5 data NULL, bit 6 owning tensor API
 *   [versioned: major selector u8, minor selector u8, flags selector u8 (+ raw u64)]
 *   ndim (fuzz_ndim), dtype selector u8 (+ raw code, bits, lanes), device type u8, device id u8,
 *   data offset u8, byte_offset u8, shape[ndim], strides[ndim] (fuzz_i64_small),
 *   spec: dtype u8, ndim u8, memspace u8, layout u8, version u8, alignment u8
 *   [owning API: up to 32 operations, opcode u8 (% 8) then an index u8 or a view argument u8] */
/* MAP_ANONYMOUS and sysconf under -std=c11 */
#define _DEFAULT_SOURCE 1

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dlx/check.h"
#include "dlx/dlx.h"
#include "dlx/tensor.h"
#include "fuzz_common.h"

static uint8_t *g_guard; /* 2 pages of PROT_NONE: touching data is a crash */
static size_t g_page;
static long g_deleter_calls;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  g_page = (size_t)sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, 2 * g_page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  FUZZ_CHECK(p != MAP_FAILED, "mmap of the guard region failed");
  g_guard = (uint8_t *)p;
  return 0;
}

/* Import borrows: a deleter call from it would free the producer's memory under its feet. */
static void deleter_versioned(DLManagedTensorVersioned *m) {
  (void)m;
  ++g_deleter_calls;
}
static void deleter_legacy(DLManagedTensor *m) {
  (void)m;
  ++g_deleter_calls;
}

static DLDataType pick_dtype(fuzz_reader *r) {
  static const DLDataType table[] = {
      {DLX_CODE_FLOAT, 32, 1},  {DLX_CODE_INT, 8, 1},     {DLX_CODE_UINT, 16, 1},          {DLX_CODE_BOOL, 8, 1},
      {DLX_CODE_FLOAT, 64, 1},  {DLX_CODE_COMPLEX, 64, 1}, {DLX_CODE_BFLOAT, 16, 1},       {DLX_CODE_FLOAT8_E4M3FN, 8, 1},
      {DLX_CODE_FLOAT4_E2M1FN, 4, 1}, {DLX_CODE_FLOAT6_E3M2FN, 6, 1}, {DLX_CODE_FLOAT, 32, 4},
      {DLX_CODE_OPAQUE_HANDLE, 64, 1},
  };
  uint8_t b = fuzz_u8(r);
  if (b < 0xF0) return table[b % (sizeof table / sizeof table[0])];
  DLDataType dt;
  dt.code = fuzz_u8(r);
  dt.bits = fuzz_u8(r);
  dt.lanes = (uint16_t)(fuzz_u8(r) | (fuzz_u8(r) << 8));
  return dt;
}

static int64_t *make_array(fuzz_reader *r, int32_t n) {
  size_t cnt = n < 0 ? 0 : (n > 72 ? 72 : (size_t)n); /* past 64 dlx refuses before reading */
  int64_t *a = (int64_t *)malloc(cnt ? cnt * sizeof(int64_t) : 1);
  if (a == NULL) return NULL;
  for (size_t i = 0; i < cnt; ++i) a[i] = fuzz_i64_small(r);
  return a;
}

static bool views_equal(const dlx_view *a, const dlx_view *b) {
  if (a->data != b->data || !dlx_dtype_equal(a->dtype, b->dtype) || a->ndim != b->ndim ||
      a->device.device_type != b->device.device_type || a->device.device_id != b->device.device_id)
    return false;
  for (int32_t d = 0; d < a->ndim; ++d)
    if (a->shape[d] != b->shape[d] || a->strides[d] != b->strides[d]) return false;
  return true;
}

static uint32_t pick_version(uint8_t b) {
  switch (b % 6) {
    case 0: return DLX_DLPACK_VERSION_LEGACY;
    case 1: return DLX_DLPACK_VERSION_NUM(1, 0);
    case 2: return DLX_DLPACK_VERSION_NUM(1, 1);
    case 3: return DLX_DLPACK_VERSION_NUM(1, 3);
    case 4: return DLX_DLPACK_VERSION_NUM(2, 0);
    default: return DLX_DLPACK_VERSION_NUM(1, 2);
  }
}

/* ---- dlx_check_managed against the import ----------------------------------------------------------- */

/* The rule a failed import with this status must come with (DLX_CHECK_RULE_COUNT: none: dlx's own limits,
 * or a status several rules lead to). */
static dlx_check_rule rule_of_status(dlx_status st) {
  switch (st) {
    case DLX_ERR_VERSION: return DLX_CHECK_VERSION_MAJOR;
    case DLX_ERR_INVALID_DTYPE: return DLX_CHECK_DTYPE;
    case DLX_ERR_NULL_SHAPE: return DLX_CHECK_SHAPE_NULL;
    case DLX_ERR_NEGATIVE_EXTENT: return DLX_CHECK_EXTENT_NEGATIVE;
    case DLX_ERR_NULL_STRIDES: return DLX_CHECK_STRIDES_NULL;
    case DLX_ERR_NULL_DATA: return DLX_CHECK_DATA_NULL;
    default: return DLX_CHECK_RULE_COUNT;
  }
}

/* Rules the import does not enforce: a tensor breaking only these still imports. */
#define IMPORT_IGNORES ((1u << DLX_CHECK_FLAGS_UNKNOWN) | (1u << DLX_CHECK_FLAG_PADDED) | (1u << DLX_CHECK_DEVICE_ID))

static void check_agrees(const void *m, bool legacy, uint32_t major) {
  static const dlx_import_spec any = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 1};
  const size_t size = legacy ? sizeof(DLManagedTensor) : sizeof(DLManagedTensorVersioned);
  uint8_t before[sizeof(DLManagedTensorVersioned)];
  memcpy(before, m, size);
  long calls = g_deleter_calls;
  dlx_check_report r;
  memset(&r, 0xEE, sizeof r);
  dlx_status st = legacy ? dlx_check_managed_legacy((const DLManagedTensor *)m, &r)
                         : dlx_check_managed((const DLManagedTensorVersioned *)m, &r);
  FUZZ_CHECK(st == DLX_OK, "dlx_check_managed gave %s", dlx_status_name(st));
  FUZZ_CHECK(memcmp(before, m, size) == 0 && g_deleter_calls == calls, "the check changed the struct or deleted it");
  FUZZ_CHECK(r.count >= 0 && r.count <= DLX_CHECK_RULE_COUNT, "report count %d", r.count);
  uint32_t seen = 0;
  for (int i = 0; i < r.count; ++i) {
    const dlx_check_rule rule = r.findings[i].rule;
    FUZZ_CHECK((unsigned)rule < DLX_CHECK_RULE_COUNT && (i == 0 || rule > r.findings[i - 1].rule),
               "finding %d: rule %d out of order", i, (int)rule);
    FUZZ_CHECK(memchr(r.findings[i].message, 0, DLX_CHECK_MESSAGE_MAX) != NULL && r.findings[i].message[0],
               "finding %d: no message", i);
    seen |= 1u << rule;
  }
  FUZZ_CHECK(seen == r.broken, "broken 0x%x, findings 0x%x", r.broken, seen);
  if (!legacy && major != 1)
    FUZZ_CHECK(r.broken == 1u << DLX_CHECK_VERSION_MAJOR, "major %u: findings 0x%x", major, r.broken);
  dlx_view v;
  dlx_clear_error();
  dlx_status imp = legacy ? dlx_view_from_managed(&v, (const DLManagedTensor *)m, &any)
                          : dlx_view_from_managed_versioned(&v, (const DLManagedTensorVersioned *)m, &any);
  if (imp == DLX_OK)
    FUZZ_CHECK((r.broken & ~IMPORT_IGNORES) == 0, "the import accepts a tensor breaking rules 0x%x",
               r.broken & ~IMPORT_IGNORES);
  const dlx_check_rule need = rule_of_status(imp);
  if (need != DLX_CHECK_RULE_COUNT)
    FUZZ_CHECK(r.broken & (1u << need), "the import refused with %s, the check lacks %s (findings 0x%x)",
               dlx_status_name(imp), dlx_check_rule_name(need), r.broken);
}

/* ---- the owning API: dlx takes the managed tensor over ------------------------------------------ */

static long g_owned_deletes;
static void owned_deleter_versioned(DLManagedTensorVersioned *m) {
  ++g_owned_deletes;
  free(m);
}
static void owned_deleter_legacy(DLManagedTensor *m) {
  ++g_owned_deletes;
  free(m);
}

#define MAX_HANDLES 16

/* Retains, releases, views, exports and re-imports in the order the input says; the producer's deleter
 * must stay unrun while anything is alive and run exactly once when the last one goes. */
static void exercise_ownership(dlx_tensor *first, fuzz_reader *r, bool has_deleter, long deletes_before) {
  dlx_tensor *handles[MAX_HANDLES];
  DLManagedTensorVersioned *exports[MAX_HANDLES];
  int nh = 0, ne = 0;
  handles[nh++] = first;
  for (int op = 0; op < 32 && fuzz_more(r) && (nh + ne) > 0; ++op) {
    uint8_t code = fuzz_u8(r) % 8, arg = fuzz_u8(r);
    FUZZ_CHECK(g_owned_deletes == deletes_before, "the producer's deleter ran while %d tensors and %d exports live",
               nh, ne);
    dlx_tensor *t = nh ? handles[arg % nh] : NULL, *v = NULL;
    dlx_status st = DLX_OK;
#ifdef DLX_FUZZ_TRACE /* -DDLX_FUZZ_TRACE: print the sequence (for corpus work and crash triage) */
    fprintf(stderr, "op %u arg %u: %d tensors, %d exports, deletes %ld\n", code, arg, nh, ne,
            g_owned_deletes - deletes_before);
#endif
    dlx_clear_error();
    switch (code) {
      case 0: /* another handle to the same tensor */
        if (t && nh < MAX_HANDLES) handles[nh++] = dlx_tensor_retain(t);
        continue;
      case 1: /* drop one handle */
        if (nh) {
          int k = arg % nh;
          dlx_tensor_release(handles[k]);
          handles[k] = handles[--nh];
        }
        continue;
      case 2:
        if (t) st = dlx_tensor_index(&v, t, (int64_t)(int8_t)arg);
        break;
      case 3:
        if (t) st = dlx_tensor_transpose(&v, t);
        break;
      case 4:
        if (t) st = (arg & 1) ? dlx_tensor_squeeze(&v, t, (int32_t)(int8_t)arg >> 1)
                              : dlx_tensor_unsqueeze(&v, t, (int32_t)(int8_t)arg >> 1);
        break;
      case 5: { /* flatten, a view when the strides allow it */
        int64_t all = -1;
        if (t) st = dlx_tensor_reshape(&v, t, 1, &all);
        break;
      }
      case 6: /* export: a user of the storage like any tensor */
        if (t && ne < MAX_HANDLES) {
          DLManagedTensorVersioned *e = NULL;
          st = dlx_tensor_to_managed_versioned(t, &e);
          fuzz_check_status(st, "dlx_tensor_to_managed_versioned");
          if (st == DLX_OK) exports[ne++] = e;
        }
        continue;
      default: /* an export comes back: re-imported (ownership passes to dlx) or released by its consumer */
        if (ne) {
          int k = arg % ne;
          DLManagedTensorVersioned *e = exports[k];
          exports[k] = exports[--ne];
          if ((arg & 0x80) && nh < MAX_HANDLES) {
            st = dlx_tensor_from_managed_versioned(&v, e);
            fuzz_check_status(st, "dlx_tensor_from_managed_versioned(export)");
            FUZZ_CHECK(st == DLX_OK, "dlx refuses its own export: %s", dlx_last_error());
            if (st == DLX_OK) handles[nh++] = v;
          } else {
            e->deleter(e);
          }
        }
        continue;
    }
    if (t == NULL) continue; /* no tensor left to take a view of */
    fuzz_check_status(st, "tensor view");
    if (st == DLX_OK) {
      FUZZ_CHECK(v != NULL, "a view op succeeded without a tensor");
      if (nh < MAX_HANDLES) handles[nh++] = v;
      else dlx_tensor_release(v);
    }
  }
  /* everything left goes, in an order the input picks */
  while (nh + ne > 0) {
    FUZZ_CHECK(g_owned_deletes == deletes_before, "the producer's deleter ran with %d users left", nh + ne);
    uint8_t pick = fuzz_u8(r);
    if (ne && (!nh || (pick & 1))) {
      int k = (pick >> 1) % ne;
      exports[k]->deleter(exports[k]);
      exports[k] = exports[--ne];
    } else {
      int k = (pick >> 1) % nh;
      dlx_tensor_release(handles[k]);
      handles[k] = handles[--nh];
    }
  }
  FUZZ_CHECK(g_owned_deletes == deletes_before + (has_deleter ? 1 : 0),
             "the producer's deleter ran %ld times after the last release", g_owned_deletes - deletes_before);
}

/* Hand a managed tensor (versioned or legacy) over to dlx/tensor.h and check who frees what. */
static void exercise_owning_api(const DLTensor *t, bool legacy, uint32_t major, uint32_t minor, uint64_t flags,
                                bool null_deleter, bool null_out, fuzz_reader *r) {
  /* what the borrowing import says first: dlx/tensor.h imports with any layout and any alignment */
  static const dlx_import_spec take = {DLX_DTYPE_ANY, DLX_NDIM_ANY, DLX_MEMSPACE_ANY, DLX_LAYOUT_ANY, 0, 1};
  dlx_view ref;
  dlx_status want;
  long before = g_owned_deletes;
  dlx_tensor *out = NULL;
  dlx_status st;
  void *self_freed = NULL; /* with a NULL deleter the producer keeps the block */
  if (!legacy) {
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)calloc(1, sizeof *m);
    if (m == NULL) return;
    m->version.major = major;
    m->version.minor = minor;
    m->flags = flags;
    m->dl_tensor = *t;
    m->deleter = null_deleter ? NULL : owned_deleter_versioned;
    if (null_deleter) self_freed = m;
    want = dlx_view_from_managed_versioned(&ref, m, &take);
    dlx_clear_error();
    st = dlx_tensor_from_managed_versioned(null_out ? NULL : &out, m);
  } else {
    DLManagedTensor *m = (DLManagedTensor *)calloc(1, sizeof *m);
    if (m == NULL) return;
    m->dl_tensor = *t;
    m->deleter = null_deleter ? NULL : owned_deleter_legacy;
    if (null_deleter) self_freed = m;
    want = dlx_view_from_managed(&ref, m, &take);
    dlx_clear_error();
    st = dlx_tensor_from_managed(null_out ? NULL : &out, m);
  }
  fuzz_check_status(st, "dlx_tensor_from_managed");
  if (null_out) {
    FUZZ_CHECK(st == DLX_ERR_NULL_ARGUMENT, "NULL out gave %s", dlx_status_name(st));
  } else {
    FUZZ_CHECK(st == want, "owning import gave %s, the borrowing one %s", dlx_status_name(st), dlx_status_name(want));
  }
  if (st != DLX_OK) {
    /* ownership was handed over: released at once, exactly once */
    FUZZ_CHECK(g_owned_deletes == before + (null_deleter ? 0 : 1), "a refused import ran the deleter %ld times",
               g_owned_deletes - before);
    free(self_freed);
    return;
  }
  FUZZ_CHECK(out != NULL && g_owned_deletes == before, "a successful import ran the deleter");
  const dlx_view *v = dlx_tensor_view(out);
  FUZZ_CHECK(v->ndim == ref.ndim && v->data == ref.data, "the tensor's view differs from the import's");
  exercise_ownership(out, r, !null_deleter, before);
  free(self_freed);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  if (g_guard == NULL) LLVMFuzzerInitialize(NULL, NULL);
  fuzz_reader r = {bytes, size};
  uint8_t kind = fuzz_u8(&r);
  bool legacy = (kind & 1) != 0;

  uint32_t major = 1, minor = 3;
  uint64_t flags = 0;
  if (!legacy) {
    uint8_t mj = fuzz_u8(&r), mn = fuzz_u8(&r), fl = fuzz_u8(&r);
    major = mj < 0xC0 ? 1 : (mj < 0xF0 ? (uint32_t)(mj & 3) : fuzz_u32(&r));
    minor = mn < 0xC0 ? (uint32_t)(mn % 5) : (mn < 0xF0 ? (uint32_t)mn : fuzz_u32(&r));
    flags = fl < 0x80 ? (uint64_t)(fl & 7) : (fl < 0xF0 ? (uint64_t)1 << (fl & 63) : fuzz_u64(&r));
  }

  DLTensor t;
  memset(&t, 0, sizeof t);
  t.ndim = fuzz_ndim(&r);
  t.dtype = pick_dtype(&r);
  uint8_t dev = fuzz_u8(&r);
  t.device.device_type = (DLDeviceType)(dev < 0xF0 ? dev % 20 : (int32_t)fuzz_u32(&r));
  t.device.device_id = (int32_t)(fuzz_u8(&r) % 4) - (dev >= 0xE0 && dev < 0xF0 ? 2 : 0);
  t.data = g_guard + g_page + fuzz_u8(&r);
  t.byte_offset = (uint64_t)fuzz_u8(&r);
  int64_t *shape = make_array(&r, t.ndim);
  int64_t *strides = make_array(&r, t.ndim);
  if (shape == NULL || strides == NULL) goto done;
  t.shape = (kind & 8) ? NULL : shape;
  t.strides = (kind & 16) ? NULL : strides;
  if (kind & 32) t.data = NULL;

  dlx_import_spec spec;
  memset(&spec, 0, sizeof spec);
  uint8_t sd = fuzz_u8(&r), sn = fuzz_u8(&r);
  spec.dtype = sd < 0x80 ? DLX_DTYPE_ANY : (sd < 0xF0 ? t.dtype : DLX_DTYPE_MAKE(DLX_CODE_FLOAT, 16, 1));
  spec.ndim = sn < 0x80 ? DLX_NDIM_ANY : (sn < 0xF0 ? t.ndim : (int32_t)(sn & 7));
  spec.memspace = (dlx_memspace)(fuzz_u8(&r) % 4);
  spec.layout = (dlx_layout)(fuzz_u8(&r) % 4);
  spec.version = pick_version(fuzz_u8(&r));
  uint8_t al = fuzz_u8(&r);
  spec.alignment = al < 0x80 ? 0 : 1u << (al & 7);

  dlx_view v, ref;
  memset(&v, 0xA5, sizeof v);
  memset(&ref, 0x5A, sizeof ref);
  dlx_status st, want;
  long calls_before = g_deleter_calls;
  if (!legacy) {
    /* exactly sized: the struct is all the producer handed over */
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)malloc(sizeof *m);
    if (m == NULL) goto done;
    memset(m, 0, sizeof *m);
    m->version.major = major;
    m->version.minor = minor;
    m->manager_ctx = (void *)(uintptr_t)0xC0FFEE;
    m->deleter = (kind & 2) ? NULL : deleter_versioned;
    m->flags = flags;
    m->dl_tensor = t;
    DLManagedTensorVersioned copy = *m;
    dlx_clear_error();
    st = dlx_view_from_managed_versioned(&v, m, &spec);
    fuzz_check_status(st, "dlx_view_from_managed_versioned");
    FUZZ_CHECK(memcmp(&copy, m, sizeof copy) == 0, "import wrote to the producer's struct");
    if (major != 1) {
      FUZZ_CHECK(st == DLX_ERR_VERSION, "major version %u gave %s", major, dlx_status_name(st));
    } else {
      dlx_import_spec own = spec;
      own.version = DLX_DLPACK_VERSION_NUM(1, minor > 0xFFFFu ? 0xFFFFu : minor);
      dlx_clear_error();
      want = dlx_view_from_dltensor(&ref, &t, &own);
      FUZZ_CHECK(st == want, "managed import gave %s, its DLTensor %s", dlx_status_name(st), dlx_status_name(want));
      if (st == DLX_OK) {
        FUZZ_CHECK(views_equal(&v, &ref), "managed import and DLTensor import made different views");
        uint32_t want_flags = ((flags & DLPACK_FLAG_BITMASK_READ_ONLY) ? DLX_VIEW_READ_ONLY : 0u) |
                              ((flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) ? DLX_VIEW_SUBBYTE_PADDED : 0u);
        FUZZ_CHECK(v.flags == want_flags, "flags 0x%llx became view flags 0x%x", (unsigned long long)flags, v.flags);
      }
    }
    check_agrees(m, false, major);
    if (kind & 4) {
      FUZZ_CHECK(dlx_view_from_managed_versioned(NULL, m, &spec) == DLX_ERR_NULL_ARGUMENT, "NULL out accepted");
      FUZZ_CHECK(dlx_view_from_managed_versioned(&v, NULL, &spec) == DLX_ERR_NULL_ARGUMENT, "NULL tensor accepted");
      FUZZ_CHECK(dlx_view_from_managed_versioned(&v, m, NULL) == DLX_ERR_NULL_ARGUMENT, "NULL spec accepted");
    }
    free(m);
  } else {
    DLManagedTensor *m = (DLManagedTensor *)malloc(sizeof *m);
    if (m == NULL) goto done;
    memset(m, 0, sizeof *m);
    m->manager_ctx = (void *)(uintptr_t)0xC0FFEE;
    m->deleter = (kind & 2) ? NULL : deleter_legacy;
    m->dl_tensor = t;
    DLManagedTensor copy = *m;
    dlx_clear_error();
    st = dlx_view_from_managed(&v, m, &spec);
    fuzz_check_status(st, "dlx_view_from_managed");
    FUZZ_CHECK(memcmp(&copy, m, sizeof copy) == 0, "import wrote to the producer's struct");
    dlx_import_spec own = spec;
    own.version = DLX_DLPACK_VERSION_LEGACY;
    dlx_clear_error();
    want = dlx_view_from_dltensor(&ref, &t, &own);
    FUZZ_CHECK(st == want, "legacy import gave %s, its DLTensor %s", dlx_status_name(st), dlx_status_name(want));
    if (st == DLX_OK) {
      FUZZ_CHECK(views_equal(&v, &ref), "legacy import and DLTensor import made different views");
      FUZZ_CHECK(v.flags == 0, "a legacy tensor got view flags 0x%x", v.flags);
    }
    check_agrees(m, true, 0);
    if (kind & 4) {
      FUZZ_CHECK(dlx_view_from_managed(NULL, m, &spec) == DLX_ERR_NULL_ARGUMENT, "NULL out accepted");
      FUZZ_CHECK(dlx_view_from_managed(&v, NULL, &spec) == DLX_ERR_NULL_ARGUMENT, "NULL tensor accepted");
      FUZZ_CHECK(dlx_view_from_managed(&v, m, NULL) == DLX_ERR_NULL_ARGUMENT, "NULL spec accepted");
    }
    free(m);
  }
  FUZZ_CHECK(g_deleter_calls == calls_before, "a borrowing import called the producer's deleter");
  if (kind & 64) exercise_owning_api(&t, legacy, major, minor, flags, (kind & 2) != 0, (kind & 4) != 0, &r);
done:
  free(shape);
  free(strides);
  return 0;
}
