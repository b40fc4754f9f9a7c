/* fuzz/fuzz_dynlayout.c - libFuzzer harness for the CuTe layout marking of dlx/dynlayout.h.
 *
 * Python hands user values straight to these functions (Tensor.mark_layout_dynamic(leading_dim),
 * mark_compact_shape_dynamic(mode, stride_order, divisibility)), so every argument is untrusted: the
 * harness builds a layout from fuzzed shapes and strides, then applies a fuzzed sequence of markings,
 * formats and keys. After every call it checks the documented promises:
 *   - a failure has a status and a message, and leaves the layout byte for byte as it was;
 *   - the status of the argument checks is the documented one (RANK, NULL_ARGUMENT, NEGATIVE_EXTENT,
 *     INDEX, INVALID_ARGUMENT, LAYOUT_MISMATCH, DEDUCTION) for the documented cause;
 *   - mark_layout_dynamic keeps every concrete value and makes exactly the documented modes dynamic;
 *   - mark_compact_shape_dynamic keeps the concrete strides of every extent > 1 mode of a non-empty
 *     tensor (the layout still describes the same memory), records a permutation, makes a stride
 *     dynamic exactly when an inner extent is, and keeps every dynamic value a multiple of its
 *     divisibility; static extent-1 modes get the static stride 0;
 *   - the printed layout parses back to the struct's values, 4096 bytes always suffice, an exactly
 *     sized buffer works and one byte less is BUFFER_TOO_SMALL with an empty string, never overrun;
 *   - the key ignores the concrete value of dynamic modes; is_dynamic agrees with the divisibilities.
 * Inputs may also corrupt the public struct (ndim, has_order, order, values) as a careless caller
 * could: then only memory safety and the general failure rules are checked.
 *
 * Input format (reads past the end yield zero bytes; fuzz/make_corpus.py writes the same encoding):
 *   flags u8: 1 corrupt the struct after init, 2 shape NULL, 4 strides NULL, 8 NULL-argument checks
 *   ndim, shape[ndim], strides[ndim] (fuzz_common.h encodings; arrays sized exactly)
 *   [corrupt: ndim selector, has_order u8, 4 x order entry, count u8 then count x (index, field, value)]
 *   then up to 32 operations, each an opcode u8 (mod 5) and its arguments:
 *     0 mark_dynamic: leading selector u8 (< 0x80: -1; < 0xF0: u8 % (ndim + 2); else raw int32)
 *     1 mark_compact: mode selector u8 (< 0xF0: u8 % (ndim + 1); else raw int32), order kind u8 (mod 6:
 *       NULL, identity, reversed, current stride order, shuffled, raw entries), divisibility u8
 *       (< 0x80: 1 << (u8 % 8); < 0xF0: u8 % 17; else raw int64)
 *     2 format: cap selector u8
 *     3 key: extra u64
 *     4 re-init from the current concrete values */
#include <stdlib.h>

#include "dlx/dynlayout.h"
#include "dlx/layout.h"
#include "fuzz_common.h"

#define FMT_CAP 4096

/* Set while the struct holds values no dlx call produced; cleared by a successful re-init. */
static bool g_corrupted;

static int32_t clamp_rank(int32_t n) { return n < 0 ? 0 : (n > DLX_MAX_NDIM ? DLX_MAX_NDIM : n); }

/* A layout the harness can reason about: what init produces and the markings keep. */
static bool is_sound(const dlx_dynlayout *l) {
  if (g_corrupted) return false;
  if (l->ndim < 0 || l->ndim > DLX_MAX_NDIM) return false;
  for (int32_t d = 0; d < l->ndim; ++d)
    if (l->shape[d] < 0 || l->shape_div[d] < 0 || l->stride_div[d] < 0) return false;
  if (l->has_order) {
    bool seen[DLX_MAX_NDIM] = {false};
    for (int32_t k = 0; k < l->ndim; ++k) {
      if (l->order[k] < 0 || l->order[k] >= l->ndim || seen[l->order[k]]) return false;
      seen[l->order[k]] = true;
    }
  }
  return true;
}

static bool is_empty(const dlx_dynlayout *l) {
  for (int32_t d = 0; d < l->ndim; ++d)
    if (l->shape[d] == 0) return true;
  return false;
}

static bool any_dynamic(const dlx_dynlayout *l) {
  for (int32_t d = 0; d < l->ndim; ++d)
    if (l->shape_div[d] != 0 || l->stride_div[d] != 0) return true;
  return false;
}

/* ---- printing ------------------------------------------------------------------------------- */

/* Parse one printed value: a decimal (static), "?" (div 1) or "?{div=N}". */
static const char *parse_value(const char *p, int64_t *value, int64_t *div) {
  if (*p == '?') {
    ++p;
    *div = 1;
    if (strncmp(p, "{div=", 5) == 0) {
      char *end;
      *div = strtoll(p + 5, &end, 10);
      FUZZ_CHECK(*end == '}', "unterminated divisibility in the printed layout");
      FUZZ_CHECK(*div != 1, "divisibility 1 printed as {div=1}");
      return end + 1;
    }
    return p;
  }
  char *end;
  *div = 0;
  *value = strtoll(p, &end, 10);
  FUZZ_CHECK(end != p, "no value at \"%.20s\"", p);
  return end;
}

static const char *parse_tuple(const char *p, const dlx_dynlayout *l, const int64_t *values, const int64_t *divs,
                               const char *what) {
  FUZZ_CHECK(*p == '(', "%s tuple does not open with '(': \"%.30s\"", what, p);
  ++p;
  for (int32_t d = 0; d < l->ndim; ++d) {
    if (d > 0) {
      FUZZ_CHECK(*p == ',', "%s tuple: ',' expected before mode %d", what, d);
      ++p;
    }
    int64_t v = 0, dv = 0;
    p = parse_value(p, &v, &dv);
    if (divs[d] == 0) {
      FUZZ_CHECK(dv == 0 && v == values[d], "%s mode %d printed as %lld (div %lld), is static %lld", what, d,
                 (long long)v, (long long)dv, (long long)values[d]);
    } else {
      FUZZ_CHECK(dv == divs[d], "%s mode %d printed with div %lld, has %lld", what, d, (long long)dv,
                 (long long)divs[d]);
    }
  }
  FUZZ_CHECK(*p == ')', "%s tuple does not close after %d modes", what, l->ndim);
  return p + 1;
}

static void check_format(const dlx_dynlayout *l, uint8_t cap_sel) {
  char buf[FMT_CAP];
  dlx_clear_error();
  dlx_status st = dlx_dynlayout_format(l, buf, sizeof buf);
  fuzz_check_status(st, "dlx_dynlayout_format");
  if (l->ndim < 0 || l->ndim > DLX_MAX_NDIM) {
    FUZZ_CHECK(st == DLX_ERR_RANK, "format of ndim %d gave %s", l->ndim, dlx_status_name(st));
    return;
  }
  FUZZ_CHECK(st == DLX_OK, "4096 bytes did not suffice: %s", dlx_last_error());
  size_t len = strlen(buf);
  const char *p = parse_tuple(buf, l, l->shape, l->shape_div, "shape");
  FUZZ_CHECK(*p == ':', "no ':' between shape and stride in \"%s\"", buf);
  p = parse_tuple(p + 1, l, l->stride, l->stride_div, "stride");
  FUZZ_CHECK(*p == '\0', "trailing text in \"%s\"", buf);

  /* Exactly sized heap buffers: ASan sees one byte of overrun. */
  size_t caps[3] = {len + 1, len, (size_t)cap_sel % (len + 1)};
  for (int i = 0; i < 3; ++i) {
    size_t cap = caps[i];
    char *b = (char *)malloc(cap ? cap : 1);
    if (b == NULL) continue;
    if (cap) memset(b, 'Z', cap);
    dlx_clear_error();
    /* cap 0 hands a pointer to no room at all: nothing may be written through it */
    st = dlx_dynlayout_format(l, b, cap);
    fuzz_check_status(st, "dlx_dynlayout_format(sized)");
    if (cap > len) {
      FUZZ_CHECK(st == DLX_OK && strcmp(b, buf) == 0, "format into %zu bytes gave %s", cap, dlx_status_name(st));
    } else {
      FUZZ_CHECK(st == DLX_ERR_BUFFER_TOO_SMALL, "format of %zu chars into %zu bytes gave %s", len, cap,
                 dlx_status_name(st));
      if (cap > 0) FUZZ_CHECK(b[0] == '\0', "a cut layout was handed back: \"%.*s\"", (int)cap, b);
    }
    free(b);
  }
}

/* ---- key ------------------------------------------------------------------------------------ */

static void check_key(const dlx_dynlayout *l, uint64_t extra) {
  uint64_t k = dlx_dynlayout_key(l, extra);
  FUZZ_CHECK(dlx_dynlayout_key(l, extra) == k, "the key is not a function of the layout");
  if (l->ndim < 0 || l->ndim > DLX_MAX_NDIM) return;
  dlx_dynlayout other = *l;
  bool changed = false;
  for (int32_t d = 0; d < l->ndim; ++d) {
    /* the concrete value of a dynamic mode never reaches compiled code, so it must not reach the key */
    if (l->shape_div[d] != 0) other.shape[d] = (int64_t)((uint64_t)other.shape[d] ^ (0x9E3779B97F4A7C15ull >> d));
    if (l->stride_div[d] != 0) other.stride[d] = (int64_t)((uint64_t)other.stride[d] + 0x1234567ull + (uint64_t)d);
    changed |= l->shape_div[d] != 0 || l->stride_div[d] != 0;
  }
  if (changed) FUZZ_CHECK(dlx_dynlayout_key(&other, extra) == k, "the key depends on a dynamic mode's value");
  int dyn = dlx_dynlayout_is_dynamic(l);
  FUZZ_CHECK((dyn != 0) == any_dynamic(l), "is_dynamic says %d", dyn);
}

/* ---- marking -------------------------------------------------------------------------------- */

static void check_unchanged(const dlx_dynlayout *before, const dlx_dynlayout *after, const char *what) {
  FUZZ_CHECK(memcmp(before, after, sizeof *before) == 0, "%s failed (%s) but changed the layout", what,
             dlx_last_error());
}

static void op_mark_dynamic(dlx_dynlayout *l, fuzz_reader *r) {
  uint8_t sel = fuzz_u8(r);
  int32_t n = l->ndim;
  int32_t lead = sel < 0x80 ? -1 : (sel < 0xF0 ? (int32_t)(sel % (uint32_t)(clamp_rank(n) + 2)) : (int32_t)fuzz_u32(r));
  dlx_dynlayout before = *l;
  bool sound = is_sound(l);
  dlx_clear_error();
  dlx_status st = dlx_dynlayout_mark_dynamic(l, lead);
  fuzz_check_status(st, "dlx_dynlayout_mark_dynamic");
  if (st != DLX_OK) check_unchanged(&before, l, "mark_dynamic");
  if (n < 0 || n > DLX_MAX_NDIM) {
    FUZZ_CHECK(st == DLX_ERR_RANK, "mark_dynamic of ndim %d gave %s", n, dlx_status_name(st));
    return;
  }
  if (!sound) return;
  int32_t ones = 0, one = -1;
  for (int32_t d = 0; d < n; ++d)
    if (before.stride[d] == 1) ++ones, one = d;
  dlx_status want = DLX_OK;
  if (lead >= n) want = DLX_ERR_INDEX;
  else if (lead >= 0 && before.stride[lead] != 1) want = DLX_ERR_LAYOUT_MISMATCH;
  else if (lead < 0 && ones > 1) want = DLX_ERR_DEDUCTION;
  FUZZ_CHECK(st == want, "mark_dynamic(%d) gave %s, expected %s (%s)", lead, dlx_status_name(st),
             dlx_status_name(want), dlx_last_error());
  if (st != DLX_OK) return;
  int32_t ld = lead >= 0 ? lead : (ones == 1 ? one : -1);
  for (int32_t d = 0; d < n; ++d) {
    FUZZ_CHECK(l->shape[d] == before.shape[d] && l->stride[d] == before.stride[d], "mark_dynamic changed mode %d", d);
    FUZZ_CHECK(l->shape_div[d] == 1, "shape mode %d has div %lld after mark_dynamic", d, (long long)l->shape_div[d]);
    int64_t want_div = (d == ld || before.stride[d] == 0) ? 0 : 1;
    FUZZ_CHECK(l->stride_div[d] == want_div, "stride mode %d has div %lld, expected %lld (leading %d)", d,
               (long long)l->stride_div[d], (long long)want_div, ld);
  }
  FUZZ_CHECK(l->has_order == before.has_order && memcmp(l->order, before.order, sizeof l->order) == 0,
             "mark_dynamic touched the recorded order");
}

static bool is_permutation(const int32_t *order, int32_t len, int32_t n) {
  if (len != n) return false;
  bool seen[DLX_MAX_NDIM] = {false};
  for (int32_t k = 0; k < n; ++k) {
    if (order[k] < 0 || order[k] >= n || seen[order[k]]) return false;
    seen[order[k]] = true;
  }
  return true;
}

static void op_mark_compact(dlx_dynlayout *l, fuzz_reader *r) {
  int32_t n = l->ndim, rn = clamp_rank(n);
  uint8_t msel = fuzz_u8(r);
  int32_t mode = msel < 0xF0 ? (int32_t)(msel % (uint32_t)(rn + 1)) : (int32_t)fuzz_u32(r);
  uint8_t kind = fuzz_u8(r) % 6;
  /* one spare slot so that an order one entry too long is a real array of that length */
  int32_t order_buf[DLX_MAX_NDIM + 1];
  int32_t len = rn;
  const int32_t *order = order_buf;
  switch (kind) {
    case 0:
      order = NULL;
      len = (int32_t)fuzz_u8(r) - 128; /* ignored with a NULL order */
      break;
    case 1:
      for (int32_t k = 0; k < rn; ++k) order_buf[k] = k;
      break;
    case 2:
      for (int32_t k = 0; k < rn; ++k) order_buf[k] = rn - 1 - k;
      break;
    case 3:
      if (dlx_layout_stride_order(rn, l->shape, l->stride, order_buf) != DLX_OK)
        for (int32_t k = 0; k < rn; ++k) order_buf[k] = k;
      break;
    case 4:
      for (int32_t k = 0; k < rn; ++k) order_buf[k] = k;
      for (int32_t k = rn - 1; k > 0; --k) { /* Fisher-Yates from the input */
        int32_t j = (int32_t)(fuzz_u8(r) % (uint32_t)(k + 1));
        int32_t t = order_buf[k];
        order_buf[k] = order_buf[j];
        order_buf[j] = t;
      }
      break;
    default: {
      uint8_t lsel = fuzz_u8(r);
      len = lsel < 0xC0 ? rn + (int32_t)(lsel % 3) - 1 : (int32_t)(lsel & 0x3F) - 32;
      if (len > DLX_MAX_NDIM + 1) len = DLX_MAX_NDIM + 1;
      for (int32_t k = 0; k < len; ++k) { /* in range, one past it, negative, or raw: duplicates happen */
        uint8_t b = fuzz_u8(r);
        order_buf[k] = b < 0xE0 ? (int32_t)(b % (uint32_t)(rn + 1)) : (b < 0xF0 ? -1 - (b & 0x0F) : (int32_t)fuzz_u32(r));
      }
      break;
    }
  }
  int32_t *heap_order = NULL;
  if (order != NULL) {
    /* exactly len entries on the heap: reading past order_len is an overflow ASan reports */
    size_t cnt = len > 0 ? (size_t)len : 0;
    heap_order = (int32_t *)malloc(cnt ? cnt * sizeof(int32_t) : 1);
    if (heap_order == NULL) return;
    if (cnt) memcpy(heap_order, order_buf, cnt * sizeof(int32_t));
    order = heap_order;
  }
  uint8_t dsel = fuzz_u8(r);
  int64_t div = dsel < 0x80 ? (int64_t)1 << (dsel % 8) : (dsel < 0xF0 ? (int64_t)(dsel % 17) : (int64_t)fuzz_u64(r));

  dlx_dynlayout before = *l;
  bool sound = is_sound(l);
  dlx_clear_error();
  dlx_status st = dlx_dynlayout_mark_compact_shape_dynamic(l, mode, order, len, div);
  fuzz_check_status(st, "dlx_dynlayout_mark_compact_shape_dynamic");
  if (st != DLX_OK) check_unchanged(&before, l, "mark_compact_shape_dynamic");
  if (n < 0 || n > DLX_MAX_NDIM) {
    FUZZ_CHECK(st == DLX_ERR_RANK, "mark_compact of ndim %d gave %s", n, dlx_status_name(st));
    free(heap_order);
    return;
  }
  /* The argument checks come first, in the documented order (a corrupted struct is refused before
   * them, as a bad rank is). */
  if (!sound) {
    /* nothing more is promised than a status and an untouched layout on failure */
  } else if (mode < 0 || mode >= n) {
    FUZZ_CHECK(st == DLX_ERR_INDEX, "mode %d of rank %d gave %s", mode, n, dlx_status_name(st));
  } else if (order != NULL && !is_permutation(order, len, n)) {
    FUZZ_CHECK(st == DLX_ERR_INVALID_ARGUMENT, "a bad stride_order (len %d, rank %d) gave %s", len, n,
               dlx_status_name(st));
  } else if (div < 1) {
    FUZZ_CHECK(st == DLX_ERR_INVALID_ARGUMENT, "divisibility %lld gave %s", (long long)div, dlx_status_name(st));
  } else if (st != DLX_OK) {
    FUZZ_CHECK(st == DLX_ERR_LAYOUT_MISMATCH || st == DLX_ERR_DEDUCTION || st == DLX_ERR_INVALID_ARGUMENT ||
                   st == DLX_ERR_OVERFLOW,
               "mark_compact failed with the undocumented %s: %s", dlx_status_name(st), dlx_last_error());
    if (st == DLX_ERR_INVALID_ARGUMENT)
      FUZZ_CHECK(before.shape[mode] % div != 0, "divisible extent %lld refused for div %lld",
                 (long long)before.shape[mode], (long long)div);
  }
  if (st != DLX_OK || !sound) {
    free(heap_order);
    return;
  }

  FUZZ_CHECK(l->has_order == 1, "no order recorded");
  FUZZ_CHECK(is_permutation(l->order, n, n), "the recorded order is not a permutation");
  if (before.has_order) FUZZ_CHECK(memcmp(l->order, before.order, sizeof l->order) == 0, "the recorded order changed");
  if (order != NULL) FUZZ_CHECK(memcmp(l->order, order, (size_t)n * sizeof *order) == 0, "the given order was not recorded");
  FUZZ_CHECK(before.shape[mode] % div == 0, "extent %lld accepted for div %lld", (long long)before.shape[mode],
             (long long)div);
  bool empty = is_empty(&before);
  for (int32_t d = 0; d < n; ++d) {
    FUZZ_CHECK(l->shape[d] == before.shape[d], "the extent of mode %d changed", d);
    FUZZ_CHECK(l->shape_div[d] == (d == mode ? div : before.shape_div[d]), "shape div of mode %d is %lld", d,
               (long long)l->shape_div[d]);
    /* the layout still describes the tensor: every stride that is ever used is kept */
    if (!empty && l->shape[d] > 1)
      FUZZ_CHECK(l->stride[d] == before.stride[d], "stride of mode %d went from %lld to %lld", d,
                 (long long)before.stride[d], (long long)l->stride[d]);
    if (l->stride_div[d] > 0)
      FUZZ_CHECK(l->stride[d] % l->stride_div[d] == 0, "stride %lld of mode %d is not a multiple of its div %lld",
                 (long long)l->stride[d], d, (long long)l->stride_div[d]);
    if (l->shape_div[d] > 0)
      FUZZ_CHECK(l->shape[d] % l->shape_div[d] == 0, "extent %lld of mode %d is not a multiple of its div %lld",
                 (long long)l->shape[d], d, (long long)l->shape_div[d]);
  }
  /* innermost first: a stride is dynamic exactly when an inner extent is */
  bool inner_dynamic = false, innermost = true;
  for (int32_t k = n - 1; k >= 0; --k) {
    int32_t d = l->order[k];
    bool dyn = l->shape_div[d] != 0;
    if (!dyn && l->shape[d] == 1) {
      FUZZ_CHECK(l->stride[d] == 0 && l->stride_div[d] == 0, "static extent-1 mode %d has stride %lld (div %lld)", d,
                 (long long)l->stride[d], (long long)l->stride_div[d]);
      continue;
    }
    FUZZ_CHECK((l->stride_div[d] != 0) == inner_dynamic, "stride of mode %d: div %lld, an inner mode dynamic: %d", d,
               (long long)l->stride_div[d], (int)inner_dynamic);
    if (innermost) FUZZ_CHECK(l->stride[d] == 1 && l->stride_div[d] == 0, "innermost mode %d has stride %lld", d,
                              (long long)l->stride[d]);
    innermost = false;
    inner_dynamic |= dyn;
  }
  free(heap_order);
}

static void op_reinit(dlx_dynlayout *l) {
  if (l->ndim < 0 || l->ndim > DLX_MAX_NDIM) return;
  int64_t shape[DLX_MAX_NDIM], stride[DLX_MAX_NDIM];
  memcpy(shape, l->shape, sizeof shape);
  memcpy(stride, l->stride, sizeof stride);
  dlx_dynlayout before = *l;
  dlx_clear_error();
  dlx_status st = dlx_dynlayout_init(l, l->ndim, shape, stride);
  fuzz_check_status(st, "dlx_dynlayout_init(again)");
  if (st != DLX_OK) {
    check_unchanged(&before, l, "init");
    return;
  }
  FUZZ_CHECK(!dlx_dynlayout_is_dynamic(l) && l->has_order == 0, "a fresh layout is not static");
  g_corrupted = false;
}

/* ---- entry point ------------------------------------------------------------------------------ */

static int64_t *make_array(fuzz_reader *r, int32_t n) {
  size_t cnt = (size_t)clamp_rank(n);
  int64_t *a = (int64_t *)malloc(cnt ? cnt * sizeof(int64_t) : 1);
  if (a == NULL) return NULL;
  for (size_t i = 0; i < cnt; ++i) a[i] = fuzz_i64_small(r);
  return a;
}

static void corrupt(dlx_dynlayout *l, fuzz_reader *r) {
  uint8_t nsel = fuzz_u8(r);
  if (nsel >= 0xC0) l->ndim = nsel >= 0xF0 ? (int32_t)fuzz_u32(r) : DLX_MAX_NDIM + 1 + (nsel & 0x0F);
  l->has_order = (int32_t)fuzz_u8(r) & 1;
  for (int i = 0; i < 4; ++i) l->order[fuzz_u8(r) % DLX_MAX_NDIM] = fuzz_dim(r);
  uint8_t cnt = fuzz_u8(r) % 8;
  for (uint8_t i = 0; i < cnt; ++i) {
    int idx = fuzz_u8(r) % DLX_MAX_NDIM;
    uint8_t field = fuzz_u8(r) % 4;
    int64_t v = fuzz_i64_small(r);
    if (field == 0) l->shape[idx] = v;
    else if (field == 1) l->stride[idx] = v;
    else if (field == 2) l->shape_div[idx] = v;
    else l->stride_div[idx] = v;
  }
}

static void null_argument_checks(void) {
  int64_t one = 1;
  dlx_dynlayout l;
  dlx_clear_error();
  FUZZ_CHECK(dlx_dynlayout_init(NULL, 1, &one, &one) == DLX_ERR_NULL_ARGUMENT, "init(NULL) accepted");
  FUZZ_CHECK(dlx_dynlayout_init(&l, 1, NULL, &one) == DLX_ERR_NULL_ARGUMENT, "NULL shape accepted");
  FUZZ_CHECK(dlx_dynlayout_init(&l, 1, &one, NULL) == DLX_ERR_NULL_ARGUMENT, "NULL strides accepted");
  FUZZ_CHECK(dlx_dynlayout_mark_dynamic(NULL, -1) == DLX_ERR_NULL_ARGUMENT, "mark_dynamic(NULL) accepted");
  FUZZ_CHECK(dlx_dynlayout_mark_compact_shape_dynamic(NULL, 0, NULL, 0, 1) == DLX_ERR_NULL_ARGUMENT,
             "mark_compact(NULL) accepted");
  char buf[8];
  FUZZ_CHECK(dlx_dynlayout_format(NULL, buf, sizeof buf) == DLX_ERR_NULL_ARGUMENT, "format(NULL) accepted");
  FUZZ_CHECK(dlx_dynlayout_init(&l, 0, NULL, NULL) == DLX_OK, "rank 0 with NULL arrays refused");
  FUZZ_CHECK(dlx_dynlayout_format(&l, NULL, 8) == DLX_ERR_NULL_ARGUMENT, "format into NULL accepted");
  FUZZ_CHECK(dlx_dynlayout_is_dynamic(NULL) == 0, "NULL is dynamic");
  (void)dlx_dynlayout_key(NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  fuzz_reader r = {bytes, size};
  uint8_t flags = fuzz_u8(&r);
  int32_t ndim = fuzz_ndim(&r);
  int64_t *shape = make_array(&r, ndim);
  int64_t *strides = make_array(&r, ndim);
  /* exactly sized: a layout lives on the heap so that any read past the struct is an overflow */
  dlx_dynlayout *l = (dlx_dynlayout *)malloc(sizeof *l);
  if (shape == NULL || strides == NULL || l == NULL) goto done;
  memset(l, 0x5A, sizeof *l);

  dlx_clear_error();
  dlx_status st = dlx_dynlayout_init(l, ndim, (flags & 2) ? NULL : shape, (flags & 4) ? NULL : strides);
  fuzz_check_status(st, "dlx_dynlayout_init");
  dlx_status want = DLX_OK;
  if (ndim < 0 || ndim > DLX_MAX_NDIM) want = DLX_ERR_RANK;
  else if (ndim > 0 && (flags & 6)) want = DLX_ERR_NULL_ARGUMENT;
  else
    for (int32_t d = 0; d < ndim; ++d)
      if (shape[d] < 0) want = DLX_ERR_NEGATIVE_EXTENT;
  FUZZ_CHECK(st == want, "init of rank %d gave %s, expected %s", ndim, dlx_status_name(st), dlx_status_name(want));
  if (st != DLX_OK) goto done;
  for (int32_t d = 0; d < ndim; ++d)
    FUZZ_CHECK(l->shape[d] == shape[d] && l->stride[d] == strides[d] && l->shape_div[d] == 0 && l->stride_div[d] == 0,
               "init did not copy mode %d", d);
  FUZZ_CHECK(l->ndim == ndim && l->has_order == 0 && !dlx_dynlayout_is_dynamic(l), "init is not a static layout");

  g_corrupted = false;
  if (flags & 1) {
    corrupt(l, &r);
    g_corrupted = true;
  }
  for (int ops = 0; ops < 32 && fuzz_more(&r); ++ops) {
    switch (fuzz_u8(&r) % 5) {
      case 0: op_mark_dynamic(l, &r); break;
      case 1: op_mark_compact(l, &r); break;
      case 2: check_format(l, fuzz_u8(&r)); break;
      case 3: check_key(l, fuzz_u64(&r)); break;
      default: op_reinit(l); break;
    }
  }
  check_format(l, 0);
  check_key(l, 0);
  if (flags & 8) null_argument_checks();
done:
  free(shape);
  free(strides);
  free(l);
  return 0;
}
