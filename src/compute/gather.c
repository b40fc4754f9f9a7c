/* dlx_gather and dlx_scatter (dlx/ops.h): NumPy's integer-array indexing of a view's first dimensions,
 * written once for every backend.
 *
 *  1. validate: NULLs, the count of indices, the index views (integer dtypes, host-accessible memory,
 *     broadcasting to one index shape B), the shape and dtype of the dense operand (out, or value), both
 *     data operands on one backend and device, the written one writable and not broadcast;
 *  2. resolve, on the host: each index view is converted (dlx_cast, broadcast to B) into an int64 buffer,
 *     checked against its extent (negative indices count from the back; one outside is DLX_ERR_INDEX and
 *     nothing is written), and summed into the byte offset of the block it selects;
 *  3. a scatter keeps, of the positions that select one block, the last in row-major order of B: a backend
 *     whose gather entry applies positions in order itself (`ordered`: the CPU's, by destination range per
 *     thread) gets them all, the others get the repeats marked DLX__GATHER_SKIP, so that each block is
 *     written once (a fill, whose value is the same at every position, needs neither); the result is the
 *     same on every backend and at every thread count. One index view of int32 or int64 goes to an ordered
 *     backend as it is (the direct form: no offsets), the backend checking its values first;
 *  4. packed float6/float4 go through one-code-per-byte temporaries (the written operand packed back at
 *     the end), and an operand read while it overlaps the written one is copied first;
 *  5. the backend's gather entry runs it (backends/backend.h), or the reference walk in reference mode.
 * The host buffers of step 2 and the temporaries of step 4 are the allocations an indexing op makes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "compute/ops_internal.h"
#include "compute/reference.h"
#include "core/error_internal.h"
#include "dlx/dtype.h"
#include "dlx/layout.h"
#include "dlx/ops.h"

static bool is_packed(const dlx_view *v) {
  return dlx_dtype_is_subbyte(v->dtype) && (v->flags & DLX_VIEW_SUBBYTE_PADDED) == 0;
}

/* One call's state. */
typedef struct gcall {
  const char *fn;
  const char *dense_name, *strided_name; /* "out" / "src", or "value" / "dst" */
  bool scatter;
  int32_t n;
  const dlx_view *const *idx;
  dlx_view dense;   /* out, or value broadcast to B + rest */
  dlx_view strided; /* src or dst, every dimension */
  int32_t nb;       /* B */
  int64_t bshape[DLX_MAX_NDIM];
  int64_t count;
  const dlx__compute_ops *be;
  DLDevice home;
  /* the strided operand goes through a padded compact copy (packed, or a gather's source that overlaps
   * out); eff_strides are the strides the backend sees: the copy's, or its own */
  bool strided_temp;
  int64_t eff_strides[DLX_MAX_NDIM];
  bool skip;        /* the repeats of a scatter are marked (step 3) */
  int64_t *offsets; /* host memory, count entries */
  int64_t *blocks;  /* a scatter's block numbers (row-major over the indexed dimensions), or NULL: step 3 */
  void *temps[3];
  int ntemps;
} gcall;

/* ---- 1. validation --------------------------------------------------------------------------------- */

static dlx_status check_index(const gcall *c, int32_t k) {
  const dlx_view *v = c->idx[k];
  DLX_CHECK_NULL(v);
  char name[32];
  snprintf(name, sizeof name, "index %d", (int)k);
  DLX_FORWARD(dlx__ops_check_view(c->fn, name, v));
  char t[DLX_DTYPE_TEXT_CAP];
  DLX_FAIL_IF((v->dtype.code != DLX_CODE_INT && v->dtype.code != DLX_CODE_UINT) || v->dtype.bits > 64 ||
                  v->dtype.lanes != 1,
              DLX_ERR_DTYPE_MISMATCH, "%s: index %d has dtype %s; indices are integers (int8 to int64, uint8 to uint64)",
              c->fn, (int)k, dlx__dtype_text(t, sizeof t, v->dtype));
  if (!dlx_device_is_host_accessible(v->device)) {
    char d[DLX_DEVICE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH,
                         "%s: index %d is on %s; indices are read on the host when the call is made: copy them to "
                         "host memory first",
                         c->fn, (int)k, dlx__device_text(d, sizeof d, v->device));
  }
  return DLX_OK;
}

/* B, the index views' broadcast shape, and its element count. */
static dlx_status index_shape(gcall *c) {
  int32_t ndims[DLX_MAX_NDIM];
  const int64_t *shapes[DLX_MAX_NDIM];
  for (int32_t k = 0; k < c->n; ++k) {
    DLX_FORWARD(check_index(c, k));
    ndims[k] = c->idx[k]->ndim;
    shapes[k] = c->idx[k]->shape;
  }
  DLX_FORWARD(dlx_broadcast_shapes(c->n, ndims, shapes, &c->nb, c->bshape));
  const int32_t rest = c->strided.ndim - c->n;
  DLX_FAIL_IF(c->nb + rest > DLX_MAX_NDIM, DLX_ERR_RANK, "%s: the result would have %d dimensions, more than %d", c->fn,
              (int)(c->nb + rest), DLX_MAX_NDIM);
  c->count = 1;
  for (int32_t j = 0; j < c->nb; ++j) {
    DLX_FAIL_IF(c->bshape[j] != 0 && c->count > INT64_MAX / c->bshape[j], DLX_ERR_OVERFLOW,
                "%s: the index shape has more than 2^63 positions", c->fn);
    c->count *= c->bshape[j];
  }
  return DLX_OK;
}

/* The shape the indexing selects: B + the strided operand's dimensions past the indexed ones. */
static void selected_shape(const gcall *c, int32_t *nd, int64_t *shape) {
  memcpy(shape, c->bshape, (size_t)c->nb * sizeof *shape);
  const int32_t rest = c->strided.ndim - c->n;
  memcpy(shape + c->nb, c->strided.shape + c->n, (size_t)rest * sizeof *shape);
  *nd = c->nb + rest;
}

static dlx_status check_dense(gcall *c) {
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM];
  selected_shape(c, &nd, shape);
  char a[DLX_SHAPE_TEXT_CAP], b[DLX_SHAPE_TEXT_CAP], x[DLX_DTYPE_TEXT_CAP], y[DLX_DTYPE_TEXT_CAP];
  if (c->scatter) {
    if (dlx_view_broadcast_to(&c->dense, nd, shape, &c->dense) != DLX_OK)
      return dlx_set_error(DLX_ERR_BROADCAST, "%s: value of shape %s does not broadcast to the indexed shape %s", c->fn,
                           dlx__shape_text(a, sizeof a, c->dense.ndim, c->dense.shape),
                           dlx__shape_text(b, sizeof b, nd, shape));
  } else {
    bool same = c->dense.ndim == nd;
    for (int32_t j = 0; same && j < nd; ++j) same = c->dense.shape[j] == shape[j];
    if (!same)
      return dlx_set_error(DLX_ERR_BROADCAST, "%s: out has shape %s, but the indexed shape is %s", c->fn,
                           dlx__shape_text(a, sizeof a, c->dense.ndim, c->dense.shape),
                           dlx__shape_text(b, sizeof b, nd, shape));
  }
  if (!dlx_dtype_equal(c->dense.dtype, c->strided.dtype))
    return dlx_set_error(DLX_ERR_DTYPE_MISMATCH, "%s: dtype mismatch: %s is %s but %s is %s", c->fn, c->dense_name,
                         dlx__dtype_text(x, sizeof x, c->dense.dtype), c->strided_name,
                         dlx__dtype_text(y, sizeof y, c->strided.dtype));
  return DLX_OK;
}

/* Both data operands on one backend and device; labelled with its home, as the ops label theirs. */
static dlx_status check_devices(gcall *c) {
  const dlx__compute_ops *be;
  DLDevice home;
  DLX_FORWARD(dlx__backend_compute(c->strided.device, c->fn, c->strided_name, &c->be, &c->home));
  DLX_FORWARD(dlx__backend_compute(c->dense.device, c->fn, c->dense_name, &be, &home));
  if (be != c->be || home.device_type != c->home.device_type || home.device_id != c->home.device_id) {
    char x[DLX_DEVICE_TEXT_CAP], y[DLX_DEVICE_TEXT_CAP];
    return dlx_set_error(DLX_ERR_DEVICE_MISMATCH, "%s: %s is on %s but %s is on %s: indexing runs on one device", c->fn,
                         c->dense_name, dlx__device_text(x, sizeof x, c->dense.device), c->strided_name,
                         dlx__device_text(y, sizeof y, c->strided.device));
  }
  c->dense.device = c->strided.device = c->home;
  return DLX_OK;
}

static dlx_status validate(gcall *c, const dlx_view *dense, const dlx_view *strided) {
  DLX_CHECK_NULL(dense);
  DLX_CHECK_NULL(strided);
  DLX_CHECK_NULL(c->idx);
  DLX_FORWARD(dlx__ops_check_view(c->fn, c->dense_name, dense));
  DLX_FORWARD(dlx__ops_check_view(c->fn, c->strided_name, strided));
  DLX_FAIL_IF(c->n < 1 || c->n > strided->ndim, DLX_ERR_INVALID_ARGUMENT, "%s: %d indices for %s of ndim %d", c->fn,
              (int)c->n, c->strided_name, (int)strided->ndim);
  c->dense = *dense;
  c->strided = *strided;
  DLX_FORWARD(index_shape(c));
  DLX_FORWARD(check_dense(c));
  DLX_FORWARD(dlx__ops_check_output(c->fn, c->scatter ? c->strided_name : c->dense_name,
                                    c->scatter ? &c->strided : &c->dense));
  if (is_packed(&c->strided) || is_packed(&c->dense)) {
    char t[DLX_DTYPE_TEXT_CAP];
    DLX_FAIL_IF(c->strided.dtype.lanes != 1 || c->strided.dtype.bits > 8, DLX_ERR_UNSUPPORTED,
                "%s: packed sub-byte dtype %s; only scalar float6/float4 are supported packed", c->fn,
                dlx__dtype_text(t, sizeof t, c->strided.dtype));
  }
  return check_devices(c);
}

/* ---- 2, 3. the offsets ------------------------------------------------------------------------------ */

static dlx_status out_of_bounds(const gcall *c, int32_t k, bool is_unsigned, int64_t v) {
  if (is_unsigned)
    return dlx_set_error(DLX_ERR_INDEX, "%s: index %" PRIu64 " is out of bounds for dimension %d with extent %" PRId64,
                         c->fn, (uint64_t)v, (int)k, c->strided.shape[k]);
  return dlx_set_error(DLX_ERR_INDEX, "%s: index %" PRId64 " is out of bounds for dimension %d with extent %" PRId64,
                       c->fn, v, (int)k, c->strided.shape[k]);
}

/* Index view k read into vals (count entries, broadcast to B), checked, and added into the offsets (and
 * into the block numbers, where kept, with block_step the count of blocks one step of dimension k spans). */
static dlx_status add_index(gcall *c, int32_t k, int64_t block_step, int64_t *vals) {
  const dlx_view *iv = c->idx[k];
  const bool is_unsigned = iv->dtype.code == DLX_CODE_UINT && iv->dtype.bits == 64;
  dlx_view buf;
  DLX_FORWARD(dlx_view_init(&buf, vals, is_unsigned ? DLX_DTYPE_UINT64 : DLX_DTYPE_INT64, (DLDevice){kDLCPU, 0}, c->nb,
                            c->bshape, NULL));
  DLX_FORWARD(dlx_cast(&buf, iv));
  const int64_t extent = c->strided.shape[k];
  const int64_t step = c->eff_strides[k] * (int64_t)dlx_dtype_itemsize(c->strided.dtype);
  for (int64_t i = 0; i < c->count; ++i) {
    int64_t v = vals[i];
    /* uint64 indices of 2^63 and above read as negative here; they are out of range whatever the extent */
    if (is_unsigned && v < 0) return out_of_bounds(c, k, true, v);
    const int64_t w = v < 0 ? v + extent : v;
    if (w < 0 || w >= extent) return out_of_bounds(c, k, is_unsigned, v);
    c->offsets[i] += w * step;
    if (c->blocks != NULL) c->blocks[i] += w * block_step;
  }
  return DLX_OK;
}

typedef struct pos_off {
  int64_t off, pos;
} pos_off;

static int by_offset_then_position(const void *a, const void *b) {
  const pos_off *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Of positions that select one block, all but the last (row-major in B) are skipped. With block numbers,
 * one pass from the last position back marks each block in a bitmap (a bit a block: it stays in cache
 * where a table of positions would not) and skips a position whose block is marked already; without
 * (the bitmap would be much larger than the offsets: few positions into many blocks), the positions are
 * sorted. */
static dlx_status skip_repeats(gcall *c, int64_t nblocks) {
  if (c->count < 2) return DLX_OK;
  if (c->blocks != NULL) {
    uint8_t *seen = calloc((size_t)(nblocks + 7) / 8, 1);
    DLX_FAIL_IF(seen == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: %" PRId64 " blocks: no memory to mark them", c->fn,
                nblocks);
    for (int64_t i = c->count - 1; i >= 0; --i) {
      const int64_t b = c->blocks[i];
      const uint8_t bit = (uint8_t)(1u << (b & 7));
      if (seen[b >> 3] & bit) c->offsets[i] = DLX__GATHER_SKIP;
      seen[b >> 3] |= bit;
    }
    free(seen);
    return DLX_OK;
  }
  pos_off *p = malloc((size_t)c->count * sizeof *p);
  DLX_FAIL_IF(p == NULL, DLX_ERR_OUT_OF_MEMORY, "%s: %" PRId64 " index positions: no memory to order them", c->fn,
              c->count);
  for (int64_t i = 0; i < c->count; ++i) p[i] = (pos_off){c->offsets[i], i};
  qsort(p, (size_t)c->count, sizeof *p, by_offset_then_position);
  for (int64_t i = 0; i + 1 < c->count; ++i)
    if (p[i].off == p[i + 1].off) c->offsets[p[i].pos] = DLX__GATHER_SKIP;
  free(p);
  return DLX_OK;
}

/* Whether the strided operand is read through a compact copy: packed, or a gather's source that overlaps
 * out (a packed out is computed in a temporary: the source is read before out is written). */
static dlx_status plan_strided(gcall *c) {
  c->strided_temp = is_packed(&c->strided);
  if (!c->strided_temp && !c->scatter && !is_packed(&c->dense)) {
    dlx_overlap ov;
    DLX_FORWARD(dlx_view_overlap(&c->dense, &c->strided, &ov));
    c->strided_temp = ov != DLX_OVERLAP_NONE;
  }
  if (c->strided_temp) return dlx_layout_compact_strides(c->strided.ndim, c->strided.shape, NULL, c->eff_strides);
  memcpy(c->eff_strides, c->strided.strides, (size_t)c->strided.ndim * sizeof *c->eff_strides);
  return DLX_OK;
}

static dlx_status resolve_offsets(gcall *c) {
  const size_t bytes = (size_t)(c->count > 0 ? c->count : 1) * sizeof(int64_t);
  /* the blocks the indices select from, saturated (an extent of 0 leaves none; any index is then out of
   * bounds); numbered only where their bitmap is no larger than the offsets (8 bytes a position), or 1 MiB */
  int64_t nblocks = 1;
  for (int32_t k = 0; k < c->n; ++k) {
    const int64_t e = c->strided.shape[k];
    nblocks = e == 0 ? 0 : nblocks > INT64_MAX / e ? INT64_MAX : nblocks * e;
    if (nblocks == 0) break;
  }
  const bool numbered = c->skip && c->count >= 2 && nblocks > 0 && nblocks <= 64 * c->count + (INT64_C(1) << 23);
  c->offsets = calloc(1, bytes);
  c->blocks = numbered ? calloc(1, bytes) : NULL;
  int64_t *vals = malloc(bytes);
  dlx_status st = DLX_OK;
  if (c->offsets == NULL || vals == NULL || (numbered && c->blocks == NULL))
    st = dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "%s: %" PRId64 " index positions: no memory for their offsets", c->fn,
                       c->count);
  int64_t block_step = numbered ? nblocks : 0; /* blocks per step of dimension k: exact, every extent >= 1 */
  for (int32_t k = 0; st == DLX_OK && k < c->n; ++k) {
    block_step /= numbered ? c->strided.shape[k] : 1;
    st = add_index(c, k, block_step, vals);
  }
  free(vals);
  if (st == DLX_OK && c->skip) st = skip_repeats(c, nblocks);
  free(c->blocks);
  c->blocks = NULL;
  return st;
}

/* ---- 4, 5. temporaries and the run ----------------------------------------------------------------- */

/* A compact view of v's shape over new scratch memory (padded when v is sub-byte). */
static dlx_status temp_like(gcall *c, const dlx_view *v, dlx_view *out) {
  uint64_t bytes;
  DLX_FORWARD(dlx_dtype_storage_bytes(v->dtype, (uint64_t)dlx_view_size(v), true, &bytes));
  void *p = NULL;
  DLX_FORWARD(dlx__scratch_alloc(c->be, c->home, bytes > 0 ? bytes : 1, &p, c->fn));
  c->temps[c->ntemps++] = p;
  DLX_FORWARD(dlx_view_init(out, p, v->dtype, c->home, v->ndim, v->shape, NULL));
  if (dlx_dtype_is_subbyte(v->dtype)) out->flags |= DLX_VIEW_SUBBYTE_PADDED;
  return DLX_OK;
}

/* v replaced by a padded compact copy (unpacked when packed, else copied): what the run reads. */
static dlx_status read_through_temp(gcall *c, dlx_view *v) {
  dlx_view tmp;
  DLX_FORWARD(temp_like(c, v, &tmp));
  if (is_packed(v)) DLX_FORWARD(c->be->unpack(v, tmp.data));
  else DLX_FORWARD(dlx_copy(&tmp, v));
  *v = tmp;
  return DLX_OK;
}

static dlx_status run(gcall *c) {
  dlx_view rest = c->strided;
  rest.ndim = c->strided.ndim - c->n;
  for (int32_t j = 0; j < rest.ndim; ++j) {
    rest.shape[j] = c->strided.shape[c->n + j];
    rest.strides[j] = c->strided.strides[c->n + j];
  }
  const dlx__gather_op op = {.scatter = c->scatter, .device = c->home, .nb = c->nb, .count = c->count,
                             .offsets = c->offsets, .dense = &c->dense, .strided = &rest,
                             .index = c->offsets == NULL ? c->idx[0] : NULL, .extent = c->strided.shape[0],
                             .step = c->eff_strides[0] * (int64_t)dlx_dtype_itemsize(c->strided.dtype)};
  if (dlx__ops_reference_mode()) {
    DLX_FAIL_IF(!dlx_device_is_host_accessible(c->home), DLX_ERR_UNSUPPORTED,
                "%s: the reference path runs on host memory only", c->fn);
    dlx__ref_gather(&op);
    return DLX_OK;
  }
  return dlx__compute_gather(c->be, &op);
}

/* Steps 4 and 5. A packed written operand is computed in a padded temporary and packed at the end (a
 * scatter's temporary starts as the unpacked operand: only some blocks are written). */
static dlx_status execute(gcall *c) {
  if (!c->scatter) {
    if (c->strided_temp) DLX_FORWARD(read_through_temp(c, &c->strided));
    if (!is_packed(&c->dense)) return run(c);
    const dlx_view packed = c->dense;
    DLX_FORWARD(temp_like(c, &packed, &c->dense));
    DLX_FORWARD(run(c));
    return c->be->pack(&packed, c->dense.data);
  }
  bool copy_value = is_packed(&c->dense);
  if (!copy_value && !c->strided_temp) {
    dlx_overlap ov;
    DLX_FORWARD(dlx_view_overlap(&c->dense, &c->strided, &ov));
    copy_value = ov != DLX_OVERLAP_NONE;
  }
  if (copy_value) DLX_FORWARD(read_through_temp(c, &c->dense));
  if (!c->strided_temp) return run(c);
  const dlx_view packed = c->strided;
  DLX_FORWARD(read_through_temp(c, &c->strided));
  DLX_FORWARD(run(c));
  return c->be->pack(&packed, c->strided.data);
}

static void free_temps(gcall *c) {
  for (int i = 0; i < c->ntemps; ++i) dlx__scratch_free(c->be, c->home, c->temps[i]);
  c->ntemps = 0;
}

/* Whether the backend applies positions in order (its gather entry says so; the reference walk and the
 * default copy per position run them in order anyway). */
static bool backend_ordered(const gcall *c) {
  return c->be->gather == NULL || c->be->ordered || dlx__ops_reference_mode();
}

/* A fill: the value is the same at every position (zero strides over B), so repeats write the same bits. */
static bool is_fill(const gcall *c) {
  for (int32_t j = 0; j < c->nb; ++j)
    if (c->dense.shape[j] > 1 && c->dense.strides[j] != 0) return false;
  return true;
}

/* The direct form (backend.h): one index view of int32 or int64, compact, to an ordered gather entry,
 * with no operand through a temporary but a scatter's overlapping value. */
static bool direct_form(const gcall *c) {
  if (c->n != 1 || c->be->gather == NULL || !c->be->ordered || dlx__ops_reference_mode()) return false;
  const dlx_view *iv = c->idx[0];
  const bool int_ok = iv->dtype.code == DLX_CODE_INT && (iv->dtype.bits == 32 || iv->dtype.bits == 64) &&
                      iv->dtype.lanes == 1;
  return int_ok && !c->strided_temp && !is_packed(&c->strided) && !is_packed(&c->dense) &&
         dlx_view_is_c_contiguous(iv) && c->count > 0;
}

static dlx_status gather_call(gcall *c, const dlx_view *dense, const dlx_view *strided) {
  c->offsets = NULL;
  c->ntemps = 0;
  dlx_status st = validate(c, dense, strided);
  if (st == DLX_OK) st = plan_strided(c);
  if (st != DLX_OK) return st; /* (nothing allocated yet) */
  if (direct_form(c)) {
    const dlx_view dense_was = c->dense; /* execute may point it at a temporary */
    st = execute(c);
    free_temps(c);
    if (st != DLX_ERR_INDEX) return st;
    /* an index outside its extent: the general path below finds it and names it */
    c->dense = dense_was;
  }
  c->skip = c->scatter && !backend_ordered(c) && !is_fill(c);
  st = resolve_offsets(c);
  if (st == DLX_OK && c->count > 0) st = execute(c);
  free_temps(c);
  free(c->offsets);
  return st;
}

dlx_status dlx_gather(const dlx_view *out, const dlx_view *src, int32_t n, const dlx_view *const *idx) {
  gcall c = {.fn = "dlx_gather", .dense_name = "out", .strided_name = "src", .scatter = false, .n = n, .idx = idx};
  return gather_call(&c, out, src);
}

dlx_status dlx_scatter(const dlx_view *dst, int32_t n, const dlx_view *const *idx, const dlx_view *value) {
  gcall c = {.fn = "dlx_scatter", .dense_name = "value", .strided_name = "dst", .scatter = true, .n = n, .idx = idx};
  return gather_call(&c, value, dst);
}
