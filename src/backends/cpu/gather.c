/* The CPU backend's indexing moves (backends/backend.h): integer-array gathers and scatters, and the
 * boolean-mask gather.
 *
 *  - A gather splits its positions over the threads: each writes only its own part of out. The direct
 *    form (one int32 / int64 index view, no offsets array) first checks every index in a threaded pass
 *    (nothing is written when one is outside), then moves the blocks: one plain loop per kind of index,
 *    its fields in registers, so that a core keeps as many random reads in flight as it can. (A software
 *    prefetch a few positions ahead measured slower: the out-of-order core already issues those loads.)
 *  - A scatter is `ordered` (the compute layer hands over repeated positions): the destination is split
 *    into one range per thread, and every thread walks all positions in order, applying those that fall
 *    in its range. Each element is written by one thread, in position order, so the last position wins
 *    with no pass to find repeats. Single elements are stored without a branch (an outside one goes to a
 *    sink), so a random split costs no mispredictions. A fill of single elements needs no order (every
 *    write has the same bits): its positions split as a gather's, the stores relaxed atomics.
 *  - A mask gather counts the true elements of each chunk of the mask (threaded), sums the counts into
 *    each chunk's first output position, and compacts each chunk into its part of out (threaded): no
 *    coordinates. A single element is compacted without a branch through a small buffer (a store per
 *    element, the buffer index advancing by the mask byte), so that a random mask costs no mispredictions.
 * The order of the threads never shows in a result. */
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/cpu/cpu.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/pool.h"
#include "core/error_internal.h"

/* ---- a block: the dimensions past the index, on both sides ---------------------------------------- */

/* The rest dimensions merged where both operands allow, as byte strides (a: the dense side, b: the
 * strided side). nd 0: one element. */
typedef struct block {
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM], a[DLX_MAX_NDIM], b[DLX_MAX_NDIM];
  size_t item;
  bool flat; /* one run of bytes on both sides: nd <= 1, both strides the item size */
  int64_t bytes;
} block;

/* dense dims [from, from + nd) against strided dims [0, nd), extent-1 dimensions dropped. */
static void block_init(block *k, const dlx_view *dense, int32_t from, const dlx_view *strided) {
  k->item = dlx_dtype_itemsize(dense->dtype);
  const int64_t it = (int64_t)k->item;
  k->nd = 0;
  for (int32_t j = 0; j < strided->ndim; ++j) {
    const int64_t e = strided->shape[j], sa = dense->strides[from + j] * it, sb = strided->strides[j] * it;
    if (e == 1) continue;
    const int32_t m = k->nd - 1;
    if (m >= 0 && k->a[m] == sa * e && k->b[m] == sb * e) { /* the previous dimension steps over this one */
      k->shape[m] *= e;
      k->a[m] = sa;
      k->b[m] = sb;
      continue;
    }
    k->shape[k->nd] = e;
    k->a[k->nd] = sa;
    k->b[k->nd] = sb;
    ++k->nd;
  }
  k->flat = k->nd == 0 || (k->nd == 1 && k->a[0] == it && k->b[0] == it);
  k->bytes = it;
  for (int32_t j = 0; j < k->nd; ++j) k->bytes *= k->shape[j];
}

/* Copy one block: to_b copies the dense side (a) into the strided side (b), else the other way. */
static void block_copy(const block *k, char *a, char *b, bool to_b) {
  if (k->flat) {
    if (to_b) memcpy(b, a, (size_t)k->bytes);
    else memcpy(a, b, (size_t)k->bytes);
    return;
  }
  int64_t idx[DLX_MAX_NDIM] = {0};
  const int32_t last = k->nd - 1;
  for (;;) {
    char *pa = a, *pb = b;
    for (int64_t e = 0; e < k->shape[last]; ++e, pa += k->a[last], pb += k->b[last]) {
      if (to_b) memcpy(pb, pa, k->item);
      else memcpy(pa, pb, k->item);
    }
    int32_t d = last - 1;
    for (; d >= 0; --d) {
      a += k->a[d];
      b += k->b[d];
      if (++idx[d] < k->shape[d]) break;
      a -= k->a[d] * k->shape[d];
      b -= k->b[d] * k->shape[d];
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

/* ---- the dense side's positions ------------------------------------------------------------------- */

/* dense's first nb dimensions (B) walked row-major from a position, as a byte offset. */
typedef struct bwalk {
  int32_t nd;
  int64_t shape[DLX_MAX_NDIM], stride[DLX_MAX_NDIM], idx[DLX_MAX_NDIM];
  int64_t off;
} bwalk;

static void bwalk_init(bwalk *w, const dlx_view *dense, int32_t nb, int64_t pos) {
  const int64_t it = (int64_t)dlx_dtype_itemsize(dense->dtype);
  w->nd = 0;
  for (int32_t j = 0; j < nb; ++j) { /* merged where the outer dimension steps over the inner */
    const int64_t e = dense->shape[j], s = dense->strides[j] * it;
    if (e == 1) continue;
    const int32_t m = w->nd - 1;
    if (m >= 0 && w->stride[m] == s * e) {
      w->shape[m] *= e;
      w->stride[m] = s;
    } else {
      w->shape[w->nd] = e;
      w->stride[w->nd++] = s;
    }
  }
  w->off = 0;
  for (int32_t j = w->nd - 1; j >= 0; --j) {
    w->idx[j] = pos % w->shape[j];
    pos /= w->shape[j];
    w->off += w->idx[j] * w->stride[j];
  }
}

static inline void bwalk_next(bwalk *w) {
  for (int32_t j = w->nd - 1; j >= 0; --j) {
    w->off += w->stride[j];
    if (++w->idx[j] < w->shape[j]) return;
    w->off -= w->stride[j] * w->shape[j];
    w->idx[j] = 0;
  }
}

/* The stride of B when it walks as one dimension (or has one position), else INT64_MIN. */
static int64_t bwalk_flat(const bwalk *w) {
  if (w->nd == 0) return 0;
  return w->nd == 1 ? w->stride[0] : INT64_MIN;
}

/* ---- gathers --------------------------------------------------------------------------------------- */

/* Positions [begin, end) of a chunk. */
static void chunk_range(int64_t n, int64_t chunks, int64_t c, int64_t *begin, int64_t *end) {
  const int64_t q = n / chunks, r = n % chunks;
  *begin = c * q + (c < r ? c : r);
  *end = *begin + q + (c < r);
}

typedef struct gjob {
  const dlx__gather_op *op;
  block k;
  int64_t chunks;
  int64_t lo, span; /* scatter: the ranges split [lo, lo + span) of offsets or normalized indices */
  _Atomic int bad;  /* direct form: an index outside its extent was seen */
} gjob;

/* Where a position's block is, read without going back to the op (stores through the data pointers
 * could alias it, and the compiler would reload every field per element): the offsets array, or an
 * int64 / int32 index view whose values are normalized (w < 0 counts from the back) and scaled by step. */
typedef struct keys {
  const int64_t *off;
  const int64_t *i64;
  const int32_t *i32;
  int64_t extent, step;
} keys;

static keys keys_of(const dlx__gather_op *op) {
  keys k = {op->offsets, NULL, NULL, op->extent, op->step};
  if (op->offsets == NULL && op->index->dtype.bits == 64) k.i64 = op->index->data;
  else if (op->offsets == NULL) k.i32 = op->index->data;
  return k;
}

/* The key of position i (an offset, or a normalized index) and its block's byte offset. */
static inline int64_t key_at(const keys *k, int64_t i) {
  if (k->off != NULL) return k->off[i];
  const int64_t w = k->i64 != NULL ? k->i64[i] : (int64_t)k->i32[i];
  return w + (w < 0 ? k->extent : 0);
}

static inline int64_t key_bytes(const keys *k, int64_t key) { return k->off != NULL ? key : key * k->step; }

static void check_chunk(void *ctx, int64_t c) {
  gjob *g = ctx;
  const dlx__gather_op *op = g->op;
  int64_t begin, end;
  chunk_range(op->count, g->chunks, c, &begin, &end);
  const uint64_t lim = 2 * (uint64_t)op->extent, ext = (uint64_t)op->extent;
  uint64_t bad = 0; /* w + extent in [0, 2 extent): one unsigned compare, no branch */
  if (op->index->dtype.bits == 64) {
    const int64_t *p = op->index->data;
    for (int64_t i = begin; i < end; ++i) bad |= (uint64_t)p[i] + ext >= lim;
  } else {
    const int32_t *p = op->index->data;
    for (int64_t i = begin; i < end; ++i) bad |= (uint64_t)(int64_t)p[i] + ext >= lim;
  }
  if (bad) g->bad = 1;
}

/* One loop per key kind, so that each is a plain load-load-store loop. */
#define GATHER_ELEMS(T)                                                                                \
  {                                                                                                    \
    const keys k = keys_of(op);                                                                        \
    char *o = dst;                                                                                     \
    if (k.off != NULL) {                                                                               \
      for (int64_t i = begin; i < end; ++i, o += dstep) memcpy(o, src + k.off[i], sizeof(T));          \
    } else if (k.i64 != NULL) {                                                                        \
      for (int64_t i = begin; i < end; ++i, o += dstep) {                                              \
        const int64_t x = k.i64[i];                                                                    \
        memcpy(o, src + (x + (x < 0 ? k.extent : 0)) * k.step, sizeof(T));                             \
      }                                                                                                \
    } else {                                                                                           \
      for (int64_t i = begin; i < end; ++i, o += dstep) {                                              \
        const int64_t x = k.i32[i];                                                                    \
        memcpy(o, src + (x + (x < 0 ? k.extent : 0)) * k.step, sizeof(T));                             \
      }                                                                                                \
    }                                                                                                  \
    return;                                                                                            \
  }

static void gather_chunk(void *ctx, int64_t c) {
  gjob *g = ctx;
  const dlx__gather_op *op = g->op;
  int64_t begin, end;
  chunk_range(op->count, g->chunks, c, &begin, &end);
  bwalk w;
  bwalk_init(&w, op->dense, op->nb, begin);
  const char *src = op->strided->data;
  char *dst = (char *)op->dense->data + w.off;
  const int64_t dstep = bwalk_flat(&w);
  if (g->k.nd == 0 && dstep != INT64_MIN) {
    switch (g->k.item) {
      case 1: GATHER_ELEMS(uint8_t)
      case 2: GATHER_ELEMS(uint16_t)
      case 4: GATHER_ELEMS(uint32_t)
      case 8: GATHER_ELEMS(uint64_t)
      default: break;
    }
  }
  const keys k = keys_of(op);
  for (int64_t i = begin; i < end; ++i, bwalk_next(&w))
    block_copy(&g->k, (char *)op->dense->data + w.off, (char *)(uintptr_t)src + key_bytes(&k, key_at(&k, i)), false);
}

/* ---- scatters -------------------------------------------------------------------------------------- */

/* Part c's range [from, from + width) of the keys; a position's key tested against it with one unsigned
 * compare, and an element outside stored into a sink instead of its place (no branch). */
#define SCATTER_ELEMS(T)                                                                      \
  {                                                                                           \
    T sink;                                                                                   \
    const keys k = keys_of(op);                                                               \
    for (int64_t i = 0; i < op->count; ++i, val += vstep) {                                   \
      const int64_t key = key_at(&k, i);                                                      \
      const bool mine = (uint64_t)key - (uint64_t)from < (uint64_t)width;                     \
      T v;                                                                                    \
      memcpy(&v, val, sizeof v);                                                              \
      T *to = mine ? (T *)(void *)(dst + key_bytes(&k, key)) : &sink;                         \
      memcpy(to, &v, sizeof v);                                                               \
    }                                                                                         \
    (void)sink;                                                                               \
    return;                                                                                   \
  }

static void scatter_part(void *ctx, int64_t c) {
  gjob *g = ctx;
  const dlx__gather_op *op = g->op;
  int64_t from, to_end;
  chunk_range(g->span, g->chunks, c, &from, &to_end);
  const int64_t width = to_end - from;
  from += g->lo;
  if (width == 0) return;
  bwalk w;
  bwalk_init(&w, op->dense, op->nb, 0);
  char *dst = op->strided->data;
  const char *val = (const char *)op->dense->data;
  const int64_t vstep = bwalk_flat(&w);
  if (g->k.nd == 0 && vstep != INT64_MIN) {
    switch (g->k.item) {
      case 1: SCATTER_ELEMS(uint8_t)
      case 2: SCATTER_ELEMS(uint16_t)
      case 4: SCATTER_ELEMS(uint32_t)
      case 8: SCATTER_ELEMS(uint64_t)
      default: break;
    }
  }
  const keys k = keys_of(op);
  for (int64_t i = 0; i < op->count; ++i, bwalk_next(&w)) {
    const int64_t key = key_at(&k, i);
    if ((uint64_t)key - (uint64_t)from >= (uint64_t)width) continue;
    block_copy(&g->k, (char *)op->dense->data + w.off, dst + key_bytes(&k, key), true);
  }
}

/* A fill of single elements (one value at every position): repeats write the same bits, so the order
 * of the writes cannot show and the positions split over the threads as a gather's do, each reading only
 * its own share of the index. Two threads may still store to one element, so the stores are relaxed
 * atomics (a plain store on x86 and ARM, and no data race in C's terms). */
#define FILL_ELEMS(T)                                                                           \
  {                                                                                             \
    T v;                                                                                        \
    memcpy(&v, op->dense->data, sizeof v);                                                      \
    if (k.off != NULL) {                                                                        \
      for (int64_t i = begin; i < end; ++i) __atomic_store_n((T *)(void *)(dst + k.off[i]), v, __ATOMIC_RELAXED); \
    } else if (k.i64 != NULL) {                                                                 \
      for (int64_t i = begin; i < end; ++i) {                                                   \
        const int64_t x = k.i64[i];                                                             \
        __atomic_store_n((T *)(void *)(dst + (x + (x < 0 ? k.extent : 0)) * k.step), v, __ATOMIC_RELAXED); \
      }                                                                                         \
    } else {                                                                                    \
      for (int64_t i = begin; i < end; ++i) {                                                   \
        const int64_t x = k.i32[i];                                                             \
        __atomic_store_n((T *)(void *)(dst + (x + (x < 0 ? k.extent : 0)) * k.step), v, __ATOMIC_RELAXED); \
      }                                                                                         \
    }                                                                                           \
    return;                                                                                     \
  }

static void fill_chunk(void *ctx, int64_t c) {
  gjob *g = ctx;
  const dlx__gather_op *op = g->op;
  int64_t begin, end;
  chunk_range(op->count, g->chunks, c, &begin, &end);
  const keys k = keys_of(op);
  char *dst = op->strided->data;
  switch (g->k.item) {
    case 1: FILL_ELEMS(uint8_t)
    case 2: FILL_ELEMS(uint16_t)
    case 4: FILL_ELEMS(uint32_t)
    default: FILL_ELEMS(uint64_t)
  }
}

/* Whether op is a fill that fill_chunk takes: single elements of 1, 2, 4 or 8 bytes, aligned to their
 * size (atomics need it; every offset is a multiple of the item size), the value the same everywhere. */
static bool fill_form(const gjob *g) {
  const dlx__gather_op *op = g->op;
  const size_t item = g->k.item;
  if (!op->scatter || g->k.nd != 0 || (item != 1 && item != 2 && item != 4 && item != 8)) return false;
  if ((uintptr_t)op->strided->data % item != 0) return false;
  for (int32_t j = 0; j < op->nb; ++j)
    if (op->dense->shape[j] > 1 && op->dense->strides[j] != 0) return false;
  return true;
}

/* The keys' range: [0, extent) for the direct form, else the offsets' own. Distinct offsets select
 * disjoint blocks, so splitting by offset never lets two threads write one element. */
static void key_range(gjob *g) {
  const dlx__gather_op *op = g->op;
  if (op->offsets == NULL) {
    g->lo = 0;
    g->span = op->extent;
    return;
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int64_t i = 0; i < op->count; ++i) {
    const int64_t o = op->offsets[i];
    if (o == DLX__GATHER_SKIP) continue; /* (not handed to an ordered backend; outside every range) */
    lo = o < lo ? o : lo;
    hi = o > hi ? o : hi;
  }
  g->lo = lo;
  g->span = hi >= lo ? hi - lo + 1 : 0;
}

dlx_status dlx__cpu_gather(const dlx__gather_op *op) {
  gjob *g = malloc(sizeof *g); /* shared by the threads; 1.5 KiB */
  DLX_FAIL_IF(g == NULL, DLX_ERR_OUT_OF_MEMORY, "dlx_gather: no memory for the plan of %lld positions",
              (long long)op->count);
  g->op = op;
  g->bad = 0;
  block_init(&g->k, op->dense, op->nb, op->strided);
  const int64_t elems = op->count * (g->k.bytes / (int64_t)g->k.item);
  dlx_status st = DLX_OK;
  if (op->offsets == NULL) {
    g->chunks = dlx__cpu_chunks(op->count, op->count);
    dlx__parallel_for(g->chunks, check_chunk, g);
    if (g->bad) st = DLX_ERR_INDEX; /* the compute layer names the index (backend.h) */
  }
  if (elems == 0) {
    /* empty blocks: nothing moves (the check above still ran) */
  } else if (st == DLX_OK && (!op->scatter || fill_form(g))) {
    g->chunks = dlx__cpu_chunks(elems, op->count);
    dlx__parallel_for(g->chunks, op->scatter ? fill_chunk : gather_chunk, g);
  } else if (st == DLX_OK) {
    key_range(g);
    /* every part reads all positions: as many parts as threads, never more */
    g->chunks = dlx__cpu_chunks(elems, g->span);
    const int threads = dlx__pool_threads_available();
    if (g->chunks > threads) g->chunks = threads;
    dlx__parallel_for(g->chunks, scatter_part, g);
  }
  free(g);
  return st;
}

/* ---- the mask gather ------------------------------------------------------------------------------- */

/* True bytes of a run of the mask: a compare and an add per byte, which the compiler vectorises. */
static int64_t count_run(const unsigned char *m, int64_t ms, int64_t n) {
  int64_t total = 0;
  if (ms == 1) {
    for (int64_t i = 0; i < n;) { /* 32-bit partial sums: whole vectors, no overflow in 2^31 bytes */
      const int64_t end = n - i > (INT64_C(1) << 30) ? i + (INT64_C(1) << 30) : n;
      uint32_t c = 0;
      for (; i < end; ++i) c += m[i] != 0;
      total += c;
    }
    return total;
  }
  for (int64_t i = 0; i < n; ++i) total += m[i * ms] != 0;
  return total;
}

typedef struct mjob {
  const dlx__mask_op *op;
  block k;
  int64_t n, chunks;
  int64_t *first; /* chunks + 1 entries: each chunk's true count, then its first output position */
  int64_t ostep;  /* out's stride along its first dimension, bytes */
} mjob;

/* Walk the mask elements [begin, end) row by row (a row: the innermost merged dimension), calling
 * fn(job, mask run, src run, length, state) on each part of a row. */
typedef void (*mrun_fn)(mjob *j, const unsigned char *m, const char *s, int64_t n, int64_t *state);

static void mask_walk(mjob *j, int64_t begin, int64_t end, mrun_fn fn, int64_t *state) {
  const dlx__mask_op *op = j->op;
  const int32_t last = op->nm - 1;
  const int64_t width = op->shape[last];
  int64_t row = begin / width, col = begin % width, pos = begin;
  while (pos < end) {
    int64_t moff = 0, soff = 0, r = row;
    for (int32_t d = last - 1; d >= 0; --d) { /* the row's coordinates: a division per row, not per element */
      const int64_t i = r % op->shape[d];
      r /= op->shape[d];
      moff += i * op->mask_strides[d];
      soff += i * op->src_strides[d];
    }
    const int64_t n = width - col < end - pos ? width - col : end - pos;
    /* counting walks the mask alone (no source view) */
    const char *src = op->src != NULL ? (const char *)op->src->data + soff + col * op->src_strides[last] : NULL;
    fn(j, op->mask + moff + col * op->mask_strides[last], src, n, state);
    pos += n;
    ++row;
    col = 0;
  }
}

static void count_fn(mjob *j, const unsigned char *m, const char *s, int64_t n, int64_t *state) {
  (void)s;
  *state += count_run(m, j->op->mask_strides[j->op->nm - 1], n);
}

static void count_chunk(void *ctx, int64_t c) {
  mjob *j = ctx;
  int64_t begin, end, total = 0;
  chunk_range(j->n, j->chunks, c, &begin, &end);
  mask_walk(j, begin, end, count_fn, &total);
  j->first[c] = total;
}

/* Single elements of T: each copied into a buffer whose index advances by the mask byte (no branch),
 * the buffer flushed to out (a run of bytes when out is compact). */
#define COMPACT_BUF 256
#define COMPACT_ELEMS(T)                                                                     \
  {                                                                                          \
    T buf[COMPACT_BUF];                                                                      \
    for (int64_t i = 0; i < n;) {                                                            \
      const int64_t e = n - i < COMPACT_BUF ? n : i + COMPACT_BUF;                           \
      int64_t k = 0;                                                                         \
      for (; i < e; ++i) {                                                                   \
        memcpy(&buf[k], s + i * ss, sizeof(T));                                              \
        k += m[i * ms] != 0;                                                                 \
      }                                                                                      \
      if (ostep == (int64_t)sizeof(T)) {                                                     \
        memcpy(out, buf, (size_t)k * sizeof(T));                                             \
      } else {                                                                               \
        for (int64_t q = 0; q < k; ++q) memcpy(out + q * ostep, &buf[q], sizeof(T));         \
      }                                                                                      \
      out += k * ostep;                                                                      \
    }                                                                                        \
    *state += (out - start) / ostep;                                                         \
    return;                                                                                  \
  }

static void compact_fn(mjob *j, const unsigned char *m, const char *s, int64_t n, int64_t *state) {
  const dlx__mask_op *op = j->op;
  const int64_t ms = op->mask_strides[op->nm - 1], ss = op->src_strides[op->nm - 1], ostep = j->ostep;
  char *out = (char *)op->out->data + *state * ostep, *start = out;
  if (j->k.nd == 0 && ostep != 0) {
    switch (j->k.item) {
      case 1: COMPACT_ELEMS(uint8_t)
      case 2: COMPACT_ELEMS(uint16_t)
      case 4: COMPACT_ELEMS(uint32_t)
      case 8: COMPACT_ELEMS(uint64_t)
      default: break;
    }
  }
  for (int64_t i = 0; i < n; ++i) { /* blocks: a branch per element is small next to the copy */
    if (m[i * ms] == 0) continue;
    block_copy(&j->k, (char *)op->out->data + *state * ostep, (char *)(uintptr_t)(s + i * ss), false);
    ++*state;
  }
}

static void compact_chunk(void *ctx, int64_t c) {
  mjob *j = ctx;
  int64_t begin, end, pos = j->first[c];
  chunk_range(j->n, j->chunks, c, &begin, &end);
  mask_walk(j, begin, end, compact_fn, &pos);
}

static dlx_status mask_job(const dlx__mask_op *op, mjob **out) {
  mjob *j = malloc(sizeof *j);
  DLX_FAIL_IF(j == NULL, DLX_ERR_OUT_OF_MEMORY, "dlx_mask_gather: no memory for the plan");
  j->op = op;
  j->n = 1;
  for (int32_t d = 0; d < op->nm; ++d) j->n *= op->shape[d];
  if (op->out != NULL) {
    block_init(&j->k, op->out, 1, op->src);
  } else { /* a count only */
    j->k.nd = 0;
    j->k.item = 1;
    j->k.bytes = 1;
  }
  j->chunks = dlx__cpu_chunks(j->n * (j->k.bytes / (int64_t)j->k.item), j->n);
  j->first = malloc((size_t)(j->chunks + 1) * sizeof *j->first);
  if (j->first == NULL) {
    free(j);
    return dlx_set_error(DLX_ERR_OUT_OF_MEMORY, "dlx_mask_gather: no memory for the plan");
  }
  j->ostep = op->out != NULL && op->out->ndim > 0 ? op->out->strides[0] * (int64_t)j->k.item : 0;
  *out = j;
  return DLX_OK;
}

static void mask_job_free(mjob *j) {
  free(j->first);
  free(j);
}

int64_t dlx__cpu_mask_count(const dlx__mask_op *op) {
  mjob *j;
  if (mask_job(op, &j) != DLX_OK) return -1;
  dlx__parallel_for(j->chunks, count_chunk, j);
  int64_t total = 0;
  for (int64_t c = 0; c < j->chunks; ++c) total += j->first[c];
  mask_job_free(j);
  return total;
}

dlx_status dlx__cpu_mask_gather(const dlx__mask_op *op) {
  mjob *j;
  DLX_FORWARD(mask_job(op, &j));
  dlx__parallel_for(j->chunks, count_chunk, j);
  int64_t total = 0;
  for (int64_t c = 0; c < j->chunks; ++c) { /* each chunk's count becomes its first position */
    const int64_t n = j->first[c];
    j->first[c] = total;
    total += n;
  }
  dlx_status st = DLX_OK;
  if (total != op->count) st = DLX_ERR_BROADCAST; /* out has another extent: the compute layer says so */
  else if (total > 0) dlx__parallel_for(j->chunks, compact_chunk, j);
  mask_job_free(j);
  return st;
}
