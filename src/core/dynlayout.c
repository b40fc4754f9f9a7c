/* src/core/dynlayout.c - CuTe-style static/dynamic layouts (see include/dlx/dynlayout.h, CuTe DSL's rules).
 *
 * Every marking function works on a copy and stores it only on success, so a failed call leaves the
 * caller's layout exactly as it was (CuTe raises before touching the tensor). */
#include "dlx/dynlayout.h"

#include <stdio.h>
#include <string.h>

#include "core/error_internal.h"
#include "dlx/layout.h"

/* a * b for non-negative operands; 0 on overflow (the product is then unusable). */
static int mul_ok(int64_t a, int64_t b, int64_t *out) {
  if (a != 0 && b > INT64_MAX / a) return 0;
  *out = a * b;
  return 1;
}

/* The struct is public and caller-owned, so a corrupted ndim must not index past the arrays. */
static dlx_status check_ndim(const dlx_dynlayout *l, const char *fn) {
  DLX_FAIL_IF(l->ndim < 0 || l->ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: ndim %d outside [0, %d]", fn, (int)l->ndim,
              DLX_MAX_NDIM);
  return DLX_OK;
}

/* What the markings compute with: a sound rank, and extents and divisibilities that init or a
 * marking could have stored. A negative one (written by hand into the public struct) would reach
 * the overflow-checked products below as a factor they do not expect (found by the fuzzer). */
static dlx_status check_values(const dlx_dynlayout *l, const char *fn) {
  DLX_FORWARD(check_ndim(l, fn));
  for (int32_t d = 0; d < l->ndim; ++d) {
    DLX_FAIL_IF(l->shape[d] < 0, DLX_ERR_NEGATIVE_EXTENT, "%s: extent %lld of mode %d is negative", fn,
                (long long)l->shape[d], (int)d);
    DLX_FAIL_IF(l->shape_div[d] < 0, DLX_ERR_INVALID_ARGUMENT, "%s: divisibility %lld of shape mode %d is negative",
                fn, (long long)l->shape_div[d], (int)d);
    DLX_FAIL_IF(l->stride_div[d] < 0, DLX_ERR_INVALID_ARGUMENT, "%s: divisibility %lld of stride mode %d is negative",
                fn, (long long)l->stride_div[d], (int)d);
  }
  return DLX_OK;
}

dlx_status dlx_dynlayout_init(dlx_dynlayout *l, int32_t ndim, const int64_t *shape, const int64_t *strides) {
  DLX_CHECK_NULL(l);
  DLX_FAIL_IF(ndim < 0 || ndim > DLX_MAX_NDIM, DLX_ERR_RANK, "dlx_dynlayout_init: ndim %d outside [0, %d]", (int)ndim,
              DLX_MAX_NDIM);
  if (ndim > 0) {
    DLX_CHECK_NULL(shape);
    DLX_CHECK_NULL(strides);
  }
  for (int32_t d = 0; d < ndim; ++d)
    DLX_FAIL_IF(shape[d] < 0, DLX_ERR_NEGATIVE_EXTENT, "dlx_dynlayout_init: extent %lld of dimension %d is negative",
                (long long)shape[d], (int)d);
  /* Zero the unused tail too, so that two equal layouts are equal bytewise. */
  memset(l, 0, sizeof *l);
  l->ndim = ndim;
  for (int32_t d = 0; d < ndim; ++d) {
    l->shape[d] = shape[d];
    l->stride[d] = strides[d];
  }
  return DLX_OK;
}

dlx_status dlx_dynlayout_mark_dynamic(dlx_dynlayout *l, int32_t leading_dim) {
  DLX_CHECK_NULL(l);
  DLX_FORWARD(check_values(l, __func__));
  const int32_t n = l->ndim;
  if (leading_dim < 0) {
    dlx_status st = dlx_layout_leading_dim(n, l->stride, &leading_dim);
    /* CuTe's exact wording, whatever layout.c says: Python users grep for it. */
    DLX_FAIL_IF(st == DLX_ERR_DEDUCTION, DLX_ERR_DEDUCTION,
                "Can't deduce the leading dimension from layout, please specify the leading_dim explicitly.");
    DLX_FORWARD(st);
  } else {
    DLX_FAIL_IF(leading_dim >= n, DLX_ERR_INDEX, "Expected leading_dim to be in range [0, %d), but got %d", (int)n,
                (int)leading_dim);
    DLX_FAIL_IF(l->stride[leading_dim] != 1, DLX_ERR_LAYOUT_MISMATCH,
                "Expected strides[leading_dim] == 1, but got %lld",
                (long long)l->stride[leading_dim]);
  }
  /* Nothing can fail past this point, so *l may be written in place. */
  for (int32_t d = 0; d < n; ++d) {
    l->shape_div[d] = 1;
    if (d == leading_dim) {
      l->stride_div[d] = 0;
    } else if (l->stride[d] == 0) {
      /* A broadcast stays static: a kernel compiled for it must not read a real stride. */
      l->stride_div[d] = 0;
    } else {
      l->stride_div[d] = 1;
    }
  }
  return DLX_OK;
}

/* 1 when the concrete strides are compact in `order` (outermost first). Extent-1 modes are skipped
 * because their stride is never used (and PyTorch rewrites it to 1); an empty tensor touches no memory. */
static int is_compact_in(const dlx_dynlayout *l, const int32_t *order) {
  for (int32_t d = 0; d < l->ndim; ++d)
    if (l->shape[d] == 0) return 1;
  int64_t running = 1;
  int overflowed = 0;
  for (int32_t k = l->ndim - 1; k >= 0; --k) {
    int32_t d = order[k];
    if (l->shape[d] == 1) continue;
    if (overflowed || l->stride[d] != running) return 0;
    if (!mul_ok(running, l->shape[d], &running)) overflowed = 1;
  }
  return 1;
}

/* Recompute the strides of t as the compact layout in t->order, tracking which are dynamic. */
static dlx_status rebuild_strides(dlx_dynlayout *t) {
  int64_t concrete = 1; /* the stride the next mode gets */
  int64_t div = 1;      /* what it is known to be divisible by, once an inner extent is dynamic */
  int dynamic = 0;      /* an inner dynamic extent feeds the running stride */
  int overflowed = 0;   /* the running values no longer fit: only an error if a later mode needs them */
  for (int32_t k = t->ndim - 1; k >= 0; --k) {
    int32_t d = t->order[k];
    int is_dyn = t->shape_div[d] != 0;
    if (!is_dyn && t->shape[d] == 1) {
      /* CuTe canonicalises the stride of a static extent-1 mode to a static 0. */
      t->stride[d] = 0;
      t->stride_div[d] = 0;
      continue;
    }
    DLX_FAIL_IF(overflowed, DLX_ERR_OVERFLOW,
                "dlx_dynlayout_mark_compact_shape_dynamic: the stride of mode %d does not fit int64", (int)d);
    t->stride[d] = concrete;
    t->stride_div[d] = dynamic ? div : 0;
    /* An empty dynamic mode counts as its divisibility, so every concrete stride stays a multiple of its
     * divisibility (an empty tensor's strides are never used, so any consistent value will do). */
    int64_t ext = t->shape[d] != 0 ? t->shape[d] : (is_dyn ? t->shape_div[d] : 1);
    if (!mul_ok(concrete, ext, &concrete)) overflowed = 1;
    if (!mul_ok(div, is_dyn ? t->shape_div[d] : ext, &div)) overflowed = 1;
    dynamic |= is_dyn;
  }
  return DLX_OK;
}

static int orders_equal(const int32_t *a, const int32_t *b, int32_t n) {
  for (int32_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* The first dimension of [0, n) that `order` lacks, or -1 when it is a permutation. */
static int32_t missing_dim(const int32_t *order, int32_t n) {
  unsigned char seen[DLX_MAX_NDIM] = {0};
  for (int32_t i = 0; i < n; ++i)
    if (order[i] >= 0 && order[i] < n) seen[order[i]] = 1;
  for (int32_t d = 0; d < n; ++d)
    if (!seen[d]) return d;
  return -1;
}

dlx_status dlx_dynlayout_mark_compact_shape_dynamic(dlx_dynlayout *l, int32_t mode, const int32_t *stride_order,
                                                    int32_t order_len, int64_t divisibility) {
  DLX_CHECK_NULL(l);
  DLX_FORWARD(check_values(l, __func__));
  const int32_t n = l->ndim;
  DLX_FAIL_IF(mode < 0 || mode >= n, DLX_ERR_INDEX, "Expected mode value to be in range [0, %d), but got %d", (int)n,
              (int)mode);
  if (stride_order != NULL) {
    DLX_FAIL_IF(order_len != n, DLX_ERR_INVALID_ARGUMENT, "Expected stride_order to have %d elements, but got %d.",
                (int)n, (int)order_len);
    int32_t miss = missing_dim(stride_order, n);
    DLX_FAIL_IF(miss >= 0, DLX_ERR_INVALID_ARGUMENT,
                "Expected stride_order to contain all the dimensions of the tensor, but it doesn't contain %d.",
                (int)miss);
  }
  DLX_FAIL_IF(divisibility < 1, DLX_ERR_INVALID_ARGUMENT, "Expected divisibility >= 1, but got %lld",
              (long long)divisibility);
  /* A recorded order comes from the public struct; it is indexed with below, so it must be sound. */
  DLX_FAIL_IF(l->has_order && missing_dim(l->order, n) >= 0, DLX_ERR_INVALID_ARGUMENT,
              "The recorded stride_order is not a permutation of the %d dimensions", (int)n);

  dlx_dynlayout t = *l;
  if (l->has_order) {
    /* Once marked, the concrete strides may hold canonical zeros and ties, so a fresh deduction could
     * disagree with the order that produced them: the recorded order is the only reference. */
    DLX_FAIL_IF(stride_order != NULL && !orders_equal(stride_order, l->order, n), DLX_ERR_LAYOUT_MISMATCH,
                "The stride_order is not consistent with the last stride_order");
  } else {
    int32_t deduced[DLX_MAX_NDIM];
    dlx_status st = dlx_layout_deduce_stride_order(n, l->shape, l->stride, deduced);
    if (stride_order != NULL) {
      DLX_FAIL_IF(st == DLX_OK && !orders_equal(stride_order, deduced, n), DLX_ERR_LAYOUT_MISMATCH,
                  "The stride_order is not consistent with the deduced stride_order");
      /* An ambiguous layout is exactly when the caller must give the order; that is not a failure. */
      if (st != DLX_OK) dlx_clear_error();
      memcpy(t.order, stride_order, (size_t)n * sizeof *stride_order);
    } else {
      DLX_FAIL_IF(st == DLX_ERR_DEDUCTION, DLX_ERR_DEDUCTION,
                  "The layout could not be deduced, please specify the stride_order explicitly");
      DLX_FORWARD(st);
      memcpy(t.order, deduced, (size_t)n * sizeof *deduced);
    }
  }
  DLX_FAIL_IF(!is_compact_in(l, t.order), DLX_ERR_LAYOUT_MISMATCH,
              "The stride_order is not consistent with the layout");
  DLX_FAIL_IF(l->shape[mode] % divisibility != 0, DLX_ERR_INVALID_ARGUMENT,
              "The shape(%lld) of mode(%d) is not divisible by the divisibility(%lld)", (long long)l->shape[mode],
              (int)mode, (long long)divisibility);
  t.has_order = 1;
  t.shape_div[mode] = divisibility;
  DLX_FORWARD(rebuild_strides(&t));
  *l = t;
  return DLX_OK;
}

/* Append one value as CuTe prints it; returns the new length (may exceed cap: snprintf semantics). */
static size_t put_value(char *buf, size_t cap, size_t len, int64_t value, int64_t div) {
  int w;
  char *at = len < cap ? buf + len : NULL;
  size_t room = len < cap ? cap - len : 0;
  if (div == 0)
    w = snprintf(at, room, "%lld", (long long)value);
  else if (div == 1)
    w = snprintf(at, room, "?");
  else
    w = snprintf(at, room, "?{div=%lld}", (long long)div);
  return len + (size_t)(w > 0 ? w : 0);
}

static size_t put_char(char *buf, size_t cap, size_t len, char c) {
  if (len + 1 < cap) {
    buf[len] = c;
    buf[len + 1] = '\0';
  }
  return len + 1;
}

static size_t put_tuple(char *buf, size_t cap, size_t len, int32_t n, const int64_t *values, const int64_t *divs) {
  len = put_char(buf, cap, len, '(');
  for (int32_t d = 0; d < n; ++d) {
    if (d > 0) len = put_char(buf, cap, len, ',');
    len = put_value(buf, cap, len, values[d], divs[d]);
  }
  return put_char(buf, cap, len, ')');
}

dlx_status dlx_dynlayout_format(const dlx_dynlayout *l, char *buf, size_t cap) {
  DLX_CHECK_NULL(l);
  DLX_CHECK_NULL(buf);
  DLX_FORWARD(check_ndim(l, __func__));
  /* One pass that writes what fits and counts the rest, so the message can name the size needed. */
  size_t len = 0;
  if (cap > 0) buf[0] = '\0';
  len = put_tuple(buf, cap, len, l->ndim, l->shape, l->shape_div);
  len = put_char(buf, cap, len, ':');
  len = put_tuple(buf, cap, len, l->ndim, l->stride, l->stride_div);
  if (len >= cap) {
    /* Never hand back a cut layout that could be mistaken for a whole one. */
    if (cap > 0) buf[0] = '\0';
    return dlx_set_error(DLX_ERR_BUFFER_TOO_SMALL, "dlx_dynlayout_format: needs %zu bytes, got %zu", len + 1, cap);
  }
  return DLX_OK;
}

int dlx_dynlayout_is_dynamic(const dlx_dynlayout *l) {
  if (l == NULL || l->ndim < 0 || l->ndim > DLX_MAX_NDIM) return 0;
  for (int32_t d = 0; d < l->ndim; ++d)
    if (l->shape_div[d] != 0 || l->stride_div[d] != 0) return 1;
  return 0;
}

/* FNV-1a, fed byte by byte in a fixed (little-endian) order so that keys agree across hosts. */
static uint64_t fnv_word(uint64_t h, uint64_t w) {
  for (int i = 0; i < 8; ++i) {
    h ^= (w >> (8 * i)) & 0xffu;
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* Kind markers keep a static value from colliding with a dynamic mode of that divisibility. */
enum { KEY_STATIC_SHAPE = 1, KEY_DYNAMIC_SHAPE, KEY_STATIC_STRIDE, KEY_DYNAMIC_STRIDE, KEY_EXTRA };

uint64_t dlx_dynlayout_key(const dlx_dynlayout *l, uint64_t extra) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  int32_t n = 0;
  if (l != NULL) {
    h = fnv_word(h, (uint64_t)(int64_t)l->ndim);
    /* A corrupted ndim hashes as rank 0 rather than reading past the arrays. */
    n = (l->ndim >= 0 && l->ndim <= DLX_MAX_NDIM) ? l->ndim : 0;
  }
  for (int32_t d = 0; d < n; ++d) {
    /* Only a dynamic mode's divisibility reaches the compiled code, never its concrete value. */
    if (l->shape_div[d] != 0)
      h = fnv_word(fnv_word(h, KEY_DYNAMIC_SHAPE), (uint64_t)l->shape_div[d]);
    else
      h = fnv_word(fnv_word(h, KEY_STATIC_SHAPE), (uint64_t)l->shape[d]);
    if (l->stride_div[d] != 0)
      h = fnv_word(fnv_word(h, KEY_DYNAMIC_STRIDE), (uint64_t)l->stride_div[d]);
    else
      h = fnv_word(fnv_word(h, KEY_STATIC_STRIDE), (uint64_t)l->stride[d]);
  }
  return fnv_word(fnv_word(h, KEY_EXTRA), extra);
}
