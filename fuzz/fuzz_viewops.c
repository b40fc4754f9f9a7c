/* fuzz/fuzz_viewops.c - libFuzzer harness for slice and index parsing and the views of views of
 * dlx/viewops.h: dlx_slice_resolve, dlx_view_index / slice / subscript / permute / transpose / reshape /
 * squeeze / squeeze_all / unsqueeze.
 *
 * Indices, slices and index tuples come from Python users (t[1, ::-2, None, ...]), so every argument
 * is untrusted. The harness makes a view with dlx_view_init (fuzzed rank, extents, strides of any sign,
 * a dtype of any width including packed 4- and 6-bit ones, any data address: nothing is dereferenced),
 * then applies a fuzzed sequence of view operations. Next to the view it keeps an independent model:
 * the shape and the bit address of every element in row-major order, updated by NumPy's semantics
 * written out directly (an int index fixes a coordinate, a slice maps k to start + k * step, None adds
 * an extent-1 axis, reshape keeps the row-major sequence). After every call:
 *   - a failure has a status and a message and leaves *out byte for byte as it was; argument errors
 *     have the documented status (INDEX for indices and dims out of range, INVALID_ARGUMENT for step 0,
 *     bad permutations, two ellipses, two -1 extents, element counts that differ, RANK for results past
 *     64 dims, NULL_ARGUMENT, NEGATIVE_EXTENT); OVERFLOW only where some value is huge; UNSUPPORTED
 *     only for packed sub-byte data;
 *   - a success has the model's shape, and every element at the model's address; dtype, device and
 *     flags are kept; calling with out aliasing the input gives the same result;
 *   - reshape succeeds exactly when some strides reproduce the row-major element sequence (a brute
 *     force oracle), so a refused reshape is one NumPy must copy for too;
 *   - dlx_slice_resolve agrees with Python's slice.indices() and len(range(...)[slice]) computed in
 *     128-bit arithmetic, for any int64 start, stop, step and extent.
 *
 * Input format (reads past the end yield zero bytes; fuzz/make_corpus.py writes the same encoding):
 *   flags u8: 1 NULL-argument checks, 2 corrupted-rank checks, 4 padded sub-byte flag, 8 read-only flag
 *   dtype u8 (index into a table), data u8 (selector), ndim u8 (% 7, or fuzz_ndim past 0xF0),
 *   shape[ndim] and strides[ndim] (fuzz_i64_small), then up to 12 operations: opcode u8 (% 10) and its
 *   arguments (see the op_* functions: dims are fuzz_dim, indices and slice bounds index_value, steps
 *   step_value). */
#include <stdlib.h>

#include "dlx/dlx.h"
#include "dlx/viewops.h"
#include "fuzz_common.h"

#define MODEL_MAX 4096
/* Below this magnitude no product a view op forms (index * stride * itemsize, summed over 64 dims,
 * stride * step) can leave int64, so OVERFLOW there is a bug. */
#define HUGE_VALUE (INT64_C(1) << 24)

/* ---- the model ----------------------------------------------------------------------------------- */

typedef struct model {
  int32_t ndim;
  int64_t shape[DLX_MAX_NDIM];
  int64_t size;  /* -1 when the count does not fit */
  bool known;    /* addr holds every element (size <= MODEL_MAX) */
  uint64_t addr[MODEL_MAX]; /* bit address of element f in row-major order, mod 2^64 */
} model;

static model g_models[2];

/* Bits between consecutive elements along a unit stride: packed sub-byte data is addressed in bits. */
static uint64_t elem_bits(const dlx_view *v) {
  if (dlx_dtype_is_subbyte(v->dtype) && !(v->flags & DLX_VIEW_SUBBYTE_PADDED))
    return dlx_dtype_element_bits(v->dtype);
  return 8u * (uint64_t)dlx_dtype_itemsize(v->dtype);
}

static int64_t count_of(int32_t n, const int64_t *shape) {
  int64_t s = 1;
  for (int32_t d = 0; d < n; ++d)
    if (shape[d] == 0) return 0;
  for (int32_t d = 0; d < n; ++d)
    if (__builtin_mul_overflow(s, shape[d], &s)) return -1;
  return s;
}

/* Bit address of row-major element f of v (f < size). */
static uint64_t view_addr(const dlx_view *v, int64_t f) {
  uint64_t a = (uint64_t)(uintptr_t)v->data * 8u, eb = elem_bits(v);
  for (int32_t d = v->ndim - 1; d >= 0; --d) {
    uint64_t i = (uint64_t)(f % v->shape[d]);
    f /= v->shape[d];
    a += i * (uint64_t)v->strides[d] * eb;
  }
  return a;
}

static void model_from_view(model *m, const dlx_view *v) {
  m->ndim = v->ndim;
  memcpy(m->shape, v->shape, (size_t)v->ndim * sizeof(int64_t));
  m->size = count_of(v->ndim, v->shape);
  m->known = m->size >= 0 && m->size <= MODEL_MAX;
  if (m->known)
    for (int64_t f = 0; f < m->size; ++f) m->addr[f] = view_addr(v, f);
}

/* One dimension of a result: src -1 is a new axis (extent 1); otherwise coordinate k of it reads
 * coordinate start + k * step of source dimension src. */
typedef struct rdim {
  int32_t src;
  int64_t start, step, len;
} rdim;

/* dst = the elements of src picked by (nres, rd) with the other source dims fixed at fixed[d]. */
static void model_apply(const model *src, int32_t nres, const rdim *rd, const int64_t *fixed, model *dst) {
  dst->ndim = nres;
  for (int32_t k = 0; k < nres; ++k) dst->shape[k] = rd[k].len;
  dst->size = count_of(nres, dst->shape);
  dst->known = src->known && dst->size >= 0 && dst->size <= MODEL_MAX;
  if (!dst->known) return;
  int64_t cstride[DLX_MAX_NDIM];
  int64_t acc = 1;
  for (int32_t d = src->ndim - 1; d >= 0; --d) {
    cstride[d] = acc;
    acc *= src->shape[d] > 0 ? src->shape[d] : 1;
  }
  int64_t base = 0;
  for (int32_t d = 0; d < src->ndim; ++d)
    if (fixed[d] >= 0) base += fixed[d] * cstride[d];
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t f = 0; f < dst->size; ++f) {
    int64_t lin = base;
    for (int32_t k = 0; k < nres; ++k)
      if (rd[k].src >= 0) lin += (rd[k].start + idx[k] * rd[k].step) * cstride[rd[k].src];
    FUZZ_CHECK(lin >= 0 && lin < src->size, "model index %lld outside %lld elements", (long long)lin,
               (long long)src->size);
    dst->addr[f] = src->addr[lin];
    for (int32_t k = nres - 1; k >= 0; --k) {
      if (++idx[k] < dst->shape[k]) break;
      idx[k] = 0;
    }
  }
}

/* The identity map of src with dimension `skip` fixed at coordinate `at` (skip -1: none). */
static int32_t identity_map(const model *src, int32_t skip, int64_t at, rdim *rd, int64_t *fixed) {
  int32_t n = 0;
  for (int32_t d = 0; d < src->ndim; ++d) {
    fixed[d] = -1;
    if (d == skip) {
      fixed[d] = at;
      continue;
    }
    rd[n++] = (rdim){d, 0, 1, src->shape[d]};
  }
  return n;
}

static void check_against_model(const dlx_view *r, const model *m, const dlx_view *in, const char *what) {
  FUZZ_CHECK(r->ndim == m->ndim, "%s: rank %d, model %d", what, r->ndim, m->ndim);
  for (int32_t d = 0; d < m->ndim; ++d)
    FUZZ_CHECK(r->shape[d] == m->shape[d], "%s: extent %d is %lld, model %lld", what, d, (long long)r->shape[d],
               (long long)m->shape[d]);
  FUZZ_CHECK(dlx_dtype_equal(r->dtype, in->dtype) && r->device.device_type == in->device.device_type &&
                 r->device.device_id == in->device.device_id && r->flags == in->flags,
             "%s: dtype, device or flags changed", what);
  if (!m->known) return;
  for (int64_t f = 0; f < m->size; ++f) {
    uint64_t a = view_addr(r, f);
    FUZZ_CHECK(a == m->addr[f], "%s: element %lld at bit address 0x%llx, model 0x%llx", what, (long long)f,
               (unsigned long long)a, (unsigned long long)m->addr[f]);
  }
}

/* ---- reference semantics --------------------------------------------------------------------------- */

/* Python's slice.indices(extent) and the slice length, in 128-bit arithmetic (no overflow possible). */
static void ref_slice(const dlx_slice *s, int64_t extent, int64_t *start, int64_t *len) {
  __int128 step = s->step, n = extent;
  __int128 lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
  __int128 b = step > 0 ? lower : upper, e = step > 0 ? upper : lower;
  if (s->has_start) {
    b = s->start;
    if (b < 0) b += n;
    if (b < lower) b = lower;
    if (b > upper) b = upper;
  }
  if (s->has_stop) {
    e = s->stop;
    if (e < 0) e += n;
    if (e < lower) e = lower;
    if (e > upper) e = upper;
  }
  __int128 l = 0;
  if (step > 0 && b < e) l = (e - b - 1) / step + 1;
  if (step < 0 && e < b) l = (b - e - 1) / (-step) + 1;
  *start = (int64_t)b;
  *len = (int64_t)l;
}

static int64_t norm_index(int64_t i, int64_t extent) { return i < 0 ? i + extent : i; }

/* A reshape is a view iff some strides put every element where the row-major sequence has it.
 * Only decidable while the model knows every address (the caller checks m->known). */
static bool reshape_possible(const model *m, int32_t nd, const int64_t *shape) {
  if (m->size <= 1) return true;
  int64_t unit = 1, strides_bits[DLX_MAX_NDIM];
  for (int32_t k = nd - 1; k >= 0; --k) {
    strides_bits[k] = shape[k] > 1 ? (int64_t)(m->addr[unit] - m->addr[0]) : 0;
    unit *= shape[k];
  }
  int64_t idx[DLX_MAX_NDIM] = {0};
  for (int64_t f = 0; f < m->size; ++f) {
    uint64_t a = m->addr[0];
    for (int32_t k = 0; k < nd; ++k) a += (uint64_t)idx[k] * (uint64_t)strides_bits[k];
    if (a != m->addr[f]) return false;
    for (int32_t k = nd - 1; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return true;
}

/* ---- inputs ---------------------------------------------------------------------------------------- */

static int64_t index_value(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  if (b < 0xE0) return (int64_t)(b % 33) - 16;
  if (b < 0xF0) return (b & 1) ? INT64_MAX - (b & 0x0E) : INT64_MIN + (b & 0x0E);
  return (int64_t)fuzz_u64(r);
}
static int64_t step_value(fuzz_reader *r) {
  uint8_t b = fuzz_u8(r);
  if (b < 0xE0) return (int64_t)(b % 9) - 4; /* 0 included: an error */
  if (b < 0xF0) return (b & 1) ? INT64_MAX : INT64_MIN;
  return (int64_t)fuzz_u64(r);
}
static dlx_slice slice_value(fuzz_reader *r) {
  dlx_slice s;
  uint8_t f = fuzz_u8(r);
  s.has_start = (f & 1) != 0;
  s.has_stop = (f & 2) != 0;
  s.start = s.has_start ? index_value(r) : (int64_t)0x5A5A5A5A; /* ignored when absent */
  s.stop = s.has_stop ? index_value(r) : -(int64_t)0x5A5A5A5A;
  s.step = (f & 4) ? step_value(r) : 1;
  return s;
}

static bool is_huge(int64_t v) { return v > HUGE_VALUE || v < -HUGE_VALUE; }
static bool view_has_huge(const dlx_view *v) {
  for (int32_t d = 0; d < v->ndim; ++d)
    if (is_huge(v->shape[d]) || is_huge(v->strides[d])) return true;
  return false;
}
static bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && !(v->flags & DLX_VIEW_SUBBYTE_PADDED);
}

/* ---- operations --------------------------------------------------------------------------------- */

typedef struct op_args {
  int kind;
  int32_t dim;
  int64_t i;
  dlx_slice s;
  int32_t n;                    /* subscript items, reshape rank */
  dlx_index_item *items;        /* heap, exactly n */
  int32_t perm[DLX_MAX_NDIM + 1];
  bool perm_null;
  int64_t *shape;               /* heap, exactly n (reshape) */
} op_args;

enum { OP_INDEX, OP_SLICE, OP_SUBSCRIPT, OP_PERMUTE, OP_TRANSPOSE, OP_RESHAPE, OP_SQUEEZE, OP_SQUEEZE_ALL,
       OP_UNSQUEEZE, OP_RESOLVE, OP_COUNT };

static dlx_status call_op(const op_args *a, const dlx_view *v, dlx_view *out) {
  switch (a->kind) {
    case OP_INDEX: return dlx_view_index(v, a->dim, a->i, out);
    case OP_SLICE: return dlx_view_slice(v, a->dim, &a->s, out);
    case OP_SUBSCRIPT: return dlx_view_subscript(v, a->n, a->items, out);
    case OP_PERMUTE: return dlx_view_permute(v, a->perm_null ? NULL : a->perm, out);
    case OP_TRANSPOSE: return dlx_view_transpose(v, out);
    case OP_RESHAPE: return dlx_view_reshape(v, a->n, a->shape, out);
    case OP_SQUEEZE: return dlx_view_squeeze(v, a->dim, out);
    case OP_SQUEEZE_ALL: return dlx_view_squeeze_all(v, out);
    default: return dlx_view_unsqueeze(v, a->dim, out);
  }
}

/* The expected outcome: a status for argument errors, DLX_OK with the model filled in otherwise.
 * *maybe_overflow / *maybe_unsupported say which data-dependent failures are acceptable. */
static dlx_status expect(const op_args *a, const dlx_view *v, const model *m, model *res, bool *maybe_overflow,
                         bool *maybe_copy) {
  rdim rd[DLX_MAX_NDIM + 1];
  int64_t fixed[DLX_MAX_NDIM];
  int32_t n = v->ndim;
  *maybe_overflow = view_has_huge(v);
  *maybe_copy = false;
  switch (a->kind) {
    case OP_INDEX: {
      int32_t d = a->dim < 0 ? a->dim + n : a->dim;
      if (d < 0 || d >= n) return DLX_ERR_INDEX;
      int64_t j = norm_index(a->i, v->shape[d]);
      if (j < 0 || j >= v->shape[d]) return DLX_ERR_INDEX;
      int32_t nr = identity_map(m, d, j, rd, fixed);
      model_apply(m, nr, rd, fixed, res);
      return DLX_OK;
    }
    case OP_SLICE: {
      int32_t d = a->dim < 0 ? a->dim + n : a->dim;
      if (d < 0 || d >= n) return DLX_ERR_INDEX;
      if (a->s.step == 0) return DLX_ERR_INVALID_ARGUMENT;
      *maybe_overflow |= is_huge(a->s.step);
      int32_t nr = identity_map(m, -1, 0, rd, fixed);
      ref_slice(&a->s, v->shape[d], &rd[d].start, &rd[d].len);
      rd[d].step = a->s.step;
      model_apply(m, nr, rd, fixed, res);
      return DLX_OK;
    }
    case OP_SUBSCRIPT: {
      if (a->n < 0) return DLX_ERR_INVALID_ARGUMENT;
      int32_t consumed = 0, ints = 0, newaxes = 0, ellipses = 0;
      for (int32_t k = 0; k < a->n; ++k) {
        switch (a->items[k].kind) {
          case DLX_IDX_INT: ++ints, ++consumed; break;
          case DLX_IDX_SLICE: ++consumed; break;
          case DLX_IDX_NEWAXIS: ++newaxes; break;
          case DLX_IDX_ELLIPSIS: ++ellipses; break;
          default: return DLX_ERR_INVALID_ARGUMENT;
        }
      }
      if (ellipses > 1) return DLX_ERR_INVALID_ARGUMENT;
      if (consumed > n) return DLX_ERR_INDEX;
      if (n - ints + newaxes > DLX_MAX_NDIM) return DLX_ERR_RANK;
      int32_t src = 0, nr = 0;
      for (int32_t d = 0; d < n; ++d) fixed[d] = -1;
      for (int32_t k = 0; k < a->n; ++k) {
        const dlx_index_item *it = &a->items[k];
        if (it->kind == DLX_IDX_ELLIPSIS) {
          for (int32_t e = 0; e < n - consumed; ++e, ++src) rd[nr++] = (rdim){src, 0, 1, v->shape[src]};
        } else if (it->kind == DLX_IDX_NEWAXIS) {
          rd[nr++] = (rdim){-1, 0, 0, 1};
        } else if (it->kind == DLX_IDX_INT) {
          int64_t j = norm_index(it->i, v->shape[src]);
          if (j < 0 || j >= v->shape[src]) return DLX_ERR_INDEX;
          fixed[src++] = j;
        } else {
          if (it->s.step == 0) return DLX_ERR_INVALID_ARGUMENT;
          *maybe_overflow |= is_huge(it->s.step);
          rdim x = {src, 0, it->s.step, 0};
          ref_slice(&it->s, v->shape[src++], &x.start, &x.len);
          rd[nr++] = x;
        }
      }
      for (; src < n; ++src) rd[nr++] = (rdim){src, 0, 1, v->shape[src]};
      model_apply(m, nr, rd, fixed, res);
      return DLX_OK;
    }
    case OP_PERMUTE: {
      if (n > 0 && a->perm_null) return DLX_ERR_NULL_ARGUMENT;
      bool seen[DLX_MAX_NDIM] = {false};
      for (int32_t k = 0; k < n; ++k) {
        int32_t p = a->perm[k];
        if (p < 0 || p >= n || seen[p]) return DLX_ERR_INVALID_ARGUMENT;
        seen[p] = true;
        rd[k] = (rdim){p, 0, 1, v->shape[p]};
        fixed[k] = -1;
      }
      model_apply(m, n, rd, fixed, res);
      return DLX_OK;
    }
    case OP_TRANSPOSE:
      for (int32_t k = 0; k < n; ++k) {
        rd[k] = (rdim){n - 1 - k, 0, 1, v->shape[n - 1 - k]};
        fixed[k] = -1;
      }
      model_apply(m, n, rd, fixed, res);
      return DLX_OK;
    case OP_RESHAPE: {
      if (a->n < 0 || a->n > DLX_MAX_NDIM) return DLX_ERR_RANK;
      if (a->n > 0 && a->shape == NULL) return DLX_ERR_NULL_ARGUMENT;
      int32_t infer = -1;
      int64_t guard = 1, known = 1;
      int64_t shape[DLX_MAX_NDIM];
      for (int32_t k = 0; k < a->n; ++k) {
        int64_t e = a->shape[k];
        if (e == -1) {
          if (infer >= 0) return DLX_ERR_INVALID_ARGUMENT;
          infer = k;
          continue;
        }
        if (e < 0) return DLX_ERR_NEGATIVE_EXTENT;
        if (__builtin_mul_overflow(guard, e ? e : 1, &guard)) return DLX_ERR_OVERFLOW;
        known = e == 0 ? 0 : known * e;
        shape[k] = e;
      }
      int64_t size = m->size;
      FUZZ_CHECK(size >= 0, "a view made by dlx has an element count past int64");
      if (infer >= 0) {
        if (known == 0 || size % known != 0) return DLX_ERR_INVALID_ARGUMENT;
        shape[infer] = size / known;
        known = size;
      }
      if (known != size) return DLX_ERR_INVALID_ARGUMENT;
      res->ndim = a->n;
      memcpy(res->shape, shape, (size_t)a->n * sizeof(int64_t));
      res->size = size;
      res->known = m->known;
      if (m->known) memcpy(res->addr, m->addr, (size_t)size * sizeof(uint64_t));
      if (!m->known) {
        *maybe_copy = true; /* too many elements to decide: either answer is accepted */
        return DLX_OK;
      }
      return reshape_possible(m, a->n, shape) ? DLX_OK : DLX_ERR_LAYOUT_MISMATCH;
    }
    case OP_SQUEEZE: {
      int32_t d = a->dim < 0 ? a->dim + n : a->dim;
      if (d < 0 || d >= n) return DLX_ERR_INDEX;
      if (v->shape[d] != 1) return DLX_ERR_INVALID_ARGUMENT;
      int32_t nr = identity_map(m, d, 0, rd, fixed);
      model_apply(m, nr, rd, fixed, res);
      return DLX_OK;
    }
    case OP_SQUEEZE_ALL: {
      int32_t nr = 0;
      for (int32_t d = 0; d < n; ++d) {
        fixed[d] = v->shape[d] == 1 ? 0 : -1;
        if (v->shape[d] != 1) rd[nr++] = (rdim){d, 0, 1, v->shape[d]};
      }
      model_apply(m, nr, rd, fixed, res);
      return DLX_OK;
    }
    default: { /* OP_UNSQUEEZE */
      if (n >= DLX_MAX_NDIM) return DLX_ERR_RANK;
      int32_t d = a->dim < 0 ? a->dim + n + 1 : a->dim;
      if (d < 0 || d > n) return DLX_ERR_INDEX;
      int32_t nr = 0;
      for (int32_t k = 0; k <= n; ++k) {
        if (k == d) rd[nr++] = (rdim){-1, 0, 0, 1};
        if (k < n) {
          rd[nr++] = (rdim){k, 0, 1, v->shape[k]};
          fixed[k] = -1;
        }
      }
      model_apply(m, nr, rd, fixed, res);
      return DLX_OK;
    }
  }
}

static void read_op(fuzz_reader *r, const dlx_view *v, op_args *a) {
  memset(a, 0, sizeof *a);
  a->kind = fuzz_u8(r) % OP_COUNT;
  int32_t n = v->ndim;
  switch (a->kind) {
    case OP_INDEX:
      a->dim = fuzz_dim(r);
      a->i = index_value(r);
      break;
    case OP_SLICE:
    case OP_RESOLVE:
      a->dim = fuzz_dim(r);
      a->s = slice_value(r);
      a->i = index_value(r); /* OP_RESOLVE: the extent (negative ones are refused) */
      break;
    case OP_SUBSCRIPT: {
      uint8_t b = fuzz_u8(r);
      /* a long run of None: the result would pass 64 dims */
      a->n = b < 0xF0 ? b % 9 : (b < 0xFF ? 56 + (b & 0x0F) : -1 - (int32_t)(fuzz_u8(r) & 3));
      size_t cnt = a->n > 0 ? (size_t)a->n : 0;
      a->items = (dlx_index_item *)calloc(cnt ? cnt : 1, sizeof(dlx_index_item));
      if (a->items == NULL) return;
      for (size_t k = 0; k < cnt; ++k) {
        dlx_index_item *it = &a->items[k];
        if (cnt > 8) {
          it->kind = DLX_IDX_NEWAXIS;
          continue;
        }
        uint8_t kind = fuzz_u8(r) % 9;
        if (kind <= 2) {
          it->kind = DLX_IDX_INT;
          it->i = index_value(r);
        } else if (kind <= 5) {
          it->kind = DLX_IDX_SLICE;
          it->s = slice_value(r);
        } else if (kind == 6) {
          it->kind = DLX_IDX_NEWAXIS;
        } else if (kind == 7) {
          it->kind = DLX_IDX_ELLIPSIS;
        } else {
          it->kind = (dlx_index_kind)(fuzz_u8(r) & 1 ? 4 + (fuzz_u8(r) & 7) : -1); /* no such kind */
        }
      }
      break;
    }
    case OP_PERMUTE: {
      uint8_t kind = fuzz_u8(r) % 4;
      for (int32_t k = 0; k < n; ++k) a->perm[k] = k;
      if (kind == 0) {
        for (int32_t k = n - 1; k > 0; --k) {
          int32_t j = (int32_t)(fuzz_u8(r) % (uint32_t)(k + 1)), t = a->perm[k];
          a->perm[k] = a->perm[j];
          a->perm[j] = t;
        }
      } else if (kind == 1) {
        for (int32_t k = 0; k < n; ++k) a->perm[k] = n - 1 - k;
      } else if (kind == 2) {
        for (int32_t k = 0; k < n; ++k) {
          uint8_t b = fuzz_u8(r);
          a->perm[k] = b < 0xF0 ? (int32_t)(b % (uint32_t)(n + 1)) : -1 - (int32_t)(b & 0x0F);
        }
      } else {
        a->perm_null = true;
      }
      break;
    }
    case OP_RESHAPE: {
      uint8_t kind = fuzz_u8(r) % 7;
      int64_t shape[DLX_MAX_NDIM + 8];
      int32_t nd = 0;
      int64_t size = count_of(n, v->shape);
      switch (kind) {
        case 0: { /* raw extents */
          uint8_t b = fuzz_u8(r);
          nd = b < 0xF0 ? b % 9 : fuzz_ndim(r);
          for (int32_t k = 0; k < nd && k < DLX_MAX_NDIM + 8; ++k) shape[k] = fuzz_i64_small(r);
          break;
        }
        case 1: /* the same shape with one extent inferred */
          nd = n;
          memcpy(shape, v->shape, (size_t)n * sizeof(int64_t));
          if (n > 0) shape[fuzz_u8(r) % (uint32_t)n] = -1;
          break;
        case 2: { /* merge dims [lo, hi) */
          int32_t lo = n ? (int32_t)(fuzz_u8(r) % (uint32_t)n) : 0;
          int32_t hi = n ? lo + 1 + (int32_t)(fuzz_u8(r) % (uint32_t)(n - lo)) : 0;
          for (int32_t k = 0; k < lo; ++k) shape[nd++] = v->shape[k];
          if (n) shape[nd++] = count_of(hi - lo, v->shape + lo);
          for (int32_t k = hi; k < n; ++k) shape[nd++] = v->shape[k];
          break;
        }
        case 3: { /* split a dim by a divisor of its extent */
          int32_t d = n ? (int32_t)(fuzz_u8(r) % (uint32_t)n) : -1;
          for (int32_t k = 0; k < n; ++k) {
            int64_t e = v->shape[k];
            if (k == d && e > 1) {
              int64_t f = 1 + (int64_t)(fuzz_u8(r) % (e < 255 ? (uint64_t)e : 255u));
              while (e % f) --f;
              shape[nd++] = f;
              shape[nd++] = e / f;
            } else {
              shape[nd++] = e;
            }
          }
          break;
        }
        case 4: /* extent-1 dims inserted */
          for (int32_t k = 0; k <= n && nd < DLX_MAX_NDIM; ++k) {
            if (fuzz_u8(r) & 1) shape[nd++] = 1;
            if (k < n) shape[nd++] = v->shape[k];
          }
          break;
        case 5: /* flatten */
          nd = 1;
          shape[0] = (fuzz_u8(r) & 1) ? -1 : size;
          break;
        default: /* a reshuffled factorisation of the count */
          for (int32_t k = 0; k < n; ++k) shape[nd++] = v->shape[k];
          for (int32_t k = nd - 1; k > 0; --k) {
            int32_t j = (int32_t)(fuzz_u8(r) % (uint32_t)(k + 1));
            int64_t t = shape[k];
            shape[k] = shape[j];
            shape[j] = t;
          }
          break;
      }
      /* exactly min(nd, 72) entries on the heap: a rank past 64 is refused before any is read */
      a->n = nd;
      if (fuzz_u8(r) != 0xFF) {
        size_t cnt = nd > 0 ? (size_t)(nd < DLX_MAX_NDIM + 8 ? nd : DLX_MAX_NDIM + 8) : 0;
        a->shape = (int64_t *)malloc(cnt ? cnt * sizeof(int64_t) : 1);
        if (a->shape && cnt) memcpy(a->shape, shape, cnt * sizeof(int64_t));
      }
      break;
    }
    case OP_SQUEEZE:
    case OP_UNSQUEEZE:
      a->dim = fuzz_dim(r);
      break;
    default:
      break;
  }
}

static void free_op(op_args *a) {
  free(a->items);
  free(a->shape);
}

static void op_resolve(const op_args *a) {
  int64_t start = -77, len = -77;
  int64_t extent = a->i;
  dlx_clear_error();
  dlx_status st = dlx_slice_resolve(&a->s, extent, &start, &len);
  fuzz_check_status(st, "dlx_slice_resolve");
  if (a->s.step == 0) {
    FUZZ_CHECK(st == DLX_ERR_INVALID_ARGUMENT, "step 0 gave %s", dlx_status_name(st));
    return;
  }
  if (extent < 0) {
    FUZZ_CHECK(st == DLX_ERR_NEGATIVE_EXTENT, "extent %lld gave %s", (long long)extent, dlx_status_name(st));
    return;
  }
  FUZZ_CHECK(st == DLX_OK, "slice of extent %lld failed: %s", (long long)extent, dlx_last_error());
  int64_t ws, wl;
  ref_slice(&a->s, extent, &ws, &wl);
  FUZZ_CHECK(len == wl, "slice(%s%lld, %s%lld, %lld) of %lld: length %lld, Python %lld", a->s.has_start ? "" : "None~",
             (long long)a->s.start, a->s.has_stop ? "" : "None~", (long long)a->s.stop, (long long)a->s.step,
             (long long)extent, (long long)len, (long long)wl);
  FUZZ_CHECK(start == ws, "slice of %lld: start %lld, Python %lld", (long long)extent, (long long)start, (long long)ws);
  if (len > 0) {
    /* every index taken lies inside [0, extent) */
    __int128 last = (__int128)start + (__int128)(len - 1) * a->s.step;
    FUZZ_CHECK(start >= 0 && start < extent && last >= 0 && last < extent, "slice indices leave [0, %lld)",
               (long long)extent);
  }
}

static void run_op(const op_args *a, dlx_view *v, model **m, model **spare) {
  if (a->kind == OP_RESOLVE) {
    op_resolve(a);
    return;
  }
  static dlx_view out, alias;
  memset(&out, 0xA5, sizeof out);
  dlx_view before_out = out;
  bool maybe_overflow = false, maybe_copy = false;
  dlx_status want = expect(a, v, *m, *spare, &maybe_overflow, &maybe_copy);
  dlx_clear_error();
  dlx_status st = call_op(a, v, &out);
  fuzz_check_status(st, "view op");
  if (st != DLX_OK) FUZZ_CHECK(memcmp(&out, &before_out, sizeof out) == 0, "op %d failed (%s) but wrote *out", a->kind,
                               dlx_last_error());
  /* a subscript stops at its first failing item: an earlier item's overflow may come first */
  if (want != DLX_OK && st == DLX_ERR_OVERFLOW && maybe_overflow && a->kind == OP_SUBSCRIPT) return;
  if (want != DLX_OK) {
    FUZZ_CHECK(st == want, "op %d gave %s, expected %s (%s)", a->kind, dlx_status_name(st), dlx_status_name(want),
               dlx_last_error());
    return;
  }
  if (st == DLX_ERR_OVERFLOW) {
    FUZZ_CHECK(maybe_overflow, "op %d overflowed with no huge value: %s", a->kind, dlx_last_error());
    return;
  }
  if (st == DLX_ERR_LAYOUT_MISMATCH && maybe_copy) return;
#ifndef DLX_FUZZ_STRICT_RESHAPE
  /* Known and reported: dlx_view_reshape refuses a possible view when the (unused) stride it computes
   * for an extent-1 dimension overflows, e.g. (9,) with stride 2^60.9 to (1, 9). Only views with
   * huge strides reach it; build with -DDLX_FUZZ_STRICT_RESHAPE to hunt it. */
  if (st == DLX_ERR_LAYOUT_MISMATCH && a->kind == OP_RESHAPE && maybe_overflow) return;
#endif
  if (st == DLX_ERR_UNSUPPORTED) {
    FUZZ_CHECK(is_packed(v), "op %d unsupported on byte-sized data: %s", a->kind, dlx_last_error());
    return;
  }
  FUZZ_CHECK(st == DLX_OK, "op %d gave %s, expected OK (%s)", a->kind, dlx_status_name(st), dlx_last_error());
  check_against_model(&out, *spare, v, "view op");

  /* out may be the input itself: the same result */
  memcpy(&alias, v, sizeof alias);
  dlx_clear_error();
  dlx_status st2 = call_op(a, &alias, &alias);
  FUZZ_CHECK(st2 == DLX_OK, "op %d in place gave %s", a->kind, dlx_status_name(st2));
  FUZZ_CHECK(alias.ndim == out.ndim && alias.data == out.data &&
                 memcmp(alias.shape, out.shape, (size_t)out.ndim * sizeof(int64_t)) == 0 &&
                 memcmp(alias.strides, out.strides, (size_t)out.ndim * sizeof(int64_t)) == 0,
             "op %d in place differs from op %d into another view", a->kind, a->kind);

  *v = out;
  model *t = *m;
  *m = *spare;
  *spare = t;
}

/* ---- base view ----------------------------------------------------------------------------------- */

static const DLDataType g_dtypes[] = {
    {DLX_CODE_INT, 8, 1},     {DLX_CODE_FLOAT, 32, 1},  {DLX_CODE_FLOAT, 64, 1}, {DLX_CODE_COMPLEX, 128, 1},
    {DLX_CODE_BOOL, 8, 1},    {DLX_CODE_FLOAT4_E2M1FN, 4, 1}, {DLX_CODE_FLOAT6_E2M3FN, 6, 1},
    {DLX_CODE_INT, 32, 4},    {DLX_CODE_FLOAT, 16, 2},  {DLX_CODE_OPAQUE_HANDLE, 8, 1},
};

static void null_and_rank_checks(const dlx_view *v, uint8_t flags) {
  dlx_view out;
  dlx_slice s = {0, 1, 1, true, true};
  int64_t st, len, shape1 = 1;
  int32_t perm[1] = {0};
  dlx_index_item item = {DLX_IDX_NEWAXIS, 0, {0, 0, 1, false, false}};
  if (flags & 1) {
    FUZZ_CHECK(dlx_slice_resolve(NULL, 1, &st, &len) == DLX_ERR_NULL_ARGUMENT, "resolve(NULL) accepted");
    FUZZ_CHECK(dlx_slice_resolve(&s, 1, NULL, &len) == DLX_ERR_NULL_ARGUMENT, "resolve(.., NULL) accepted");
    FUZZ_CHECK(dlx_slice_resolve(&s, 1, &st, NULL) == DLX_ERR_NULL_ARGUMENT, "resolve(.., NULL) accepted");
    FUZZ_CHECK(dlx_view_index(NULL, 0, 0, &out) == DLX_ERR_NULL_ARGUMENT, "index(NULL) accepted");
    FUZZ_CHECK(dlx_view_index(v, 0, 0, NULL) == DLX_ERR_NULL_ARGUMENT, "index into NULL accepted");
    FUZZ_CHECK(dlx_view_slice(v, 0, NULL, &out) == DLX_ERR_NULL_ARGUMENT, "slice(NULL) accepted");
    FUZZ_CHECK(dlx_view_subscript(NULL, 0, NULL, &out) == DLX_ERR_NULL_ARGUMENT, "subscript(NULL) accepted");
    FUZZ_CHECK(dlx_view_subscript(v, 1, NULL, &out) == DLX_ERR_NULL_ARGUMENT, "subscript NULL items accepted");
    FUZZ_CHECK(dlx_view_permute(NULL, perm, &out) == DLX_ERR_NULL_ARGUMENT, "permute(NULL) accepted");
    FUZZ_CHECK(dlx_view_transpose(v, NULL) == DLX_ERR_NULL_ARGUMENT, "transpose into NULL accepted");
    FUZZ_CHECK(dlx_view_reshape(NULL, 1, &shape1, &out) == DLX_ERR_NULL_ARGUMENT, "reshape(NULL) accepted");
    FUZZ_CHECK(dlx_view_squeeze(v, 0, NULL) == DLX_ERR_NULL_ARGUMENT, "squeeze into NULL accepted");
    FUZZ_CHECK(dlx_view_squeeze_all(NULL, &out) == DLX_ERR_NULL_ARGUMENT, "squeeze_all(NULL) accepted");
    FUZZ_CHECK(dlx_view_unsqueeze(v, 0, NULL) == DLX_ERR_NULL_ARGUMENT, "unsqueeze into NULL accepted");
  }
  if (flags & 2) {
    /* a hand-made view with a rank no view can have: refused before any array is read */
    static const int32_t bad_ranks[] = {-1, DLX_MAX_NDIM + 1, INT32_MIN, INT32_MAX};
    dlx_view c = *v;
    for (int k = 0; k < 4; ++k) {
      c.ndim = bad_ranks[k];
      FUZZ_CHECK(dlx_view_index(&c, 0, 0, &out) == DLX_ERR_RANK, "index of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_slice(&c, 0, &s, &out) == DLX_ERR_RANK, "slice of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_subscript(&c, 1, &item, &out) == DLX_ERR_RANK, "subscript of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_permute(&c, perm, &out) == DLX_ERR_RANK, "permute of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_transpose(&c, &out) == DLX_ERR_RANK, "transpose of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_reshape(&c, 1, &shape1, &out) == DLX_ERR_RANK, "reshape of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_squeeze(&c, 0, &out) == DLX_ERR_RANK, "squeeze of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_squeeze_all(&c, &out) == DLX_ERR_RANK, "squeeze_all of ndim %d", c.ndim);
      FUZZ_CHECK(dlx_view_unsqueeze(&c, 0, &out) == DLX_ERR_RANK, "unsqueeze of ndim %d", c.ndim);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  fuzz_reader r = {bytes, size};
  uint8_t flags = fuzz_u8(&r);
  DLDataType dt = g_dtypes[fuzz_u8(&r) % (sizeof g_dtypes / sizeof g_dtypes[0])];
  uint8_t dsel = fuzz_u8(&r);
  /* data is never dereferenced: aligned, odd, or any raw address */
  void *data = (void *)(uintptr_t)(dsel < 0x80 ? 0x100000u * (1u + dsel) : (dsel < 0xF0 ? 0x100001u + dsel
                                                                                     : (uintptr_t)fuzz_u64(&r)));
  if (data == NULL) data = (void *)(uintptr_t)0x1000;
  uint8_t nsel = fuzz_u8(&r);
  int32_t ndim = nsel < 0xF0 ? nsel % 7 : fuzz_ndim(&r);
  if (ndim < 0 || ndim > DLX_MAX_NDIM) ndim = DLX_MAX_NDIM; /* the rank checks use corrupted copies */
  int64_t shape[DLX_MAX_NDIM], strides[DLX_MAX_NDIM];
  for (int32_t d = 0; d < ndim; ++d) shape[d] = fuzz_i64_small(&r);
  for (int32_t d = 0; d < ndim; ++d) strides[d] = fuzz_i64_small(&r);
  static dlx_view v;
  dlx_clear_error();
  DLDevice cpu = {kDLCPU, 0};
  dlx_status st = dlx_view_init(&v, data, dt, cpu, ndim, shape, strides);
  fuzz_check_status(st, "dlx_view_init");
  if (st != DLX_OK) return 0; /* negative or overflowing extents: not a view */
  if (flags & 4) v.flags |= DLX_VIEW_SUBBYTE_PADDED;
  if (flags & 8) v.flags |= DLX_VIEW_READ_ONLY;

  model *m = &g_models[0], *spare = &g_models[1];
  model_from_view(m, &v);
  for (int ops = 0; ops < 12 && fuzz_more(&r); ++ops) {
    op_args a;
    read_op(&r, &v, &a);
    run_op(&a, &v, &m, &spare);
    free_op(&a);
  }
  null_and_rank_checks(&v, flags);
  return 0;
}
