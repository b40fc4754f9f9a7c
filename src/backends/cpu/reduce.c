/* The CPU backend's reductions (backend.h's reduce entry) along kernels/reduce.h's fixed tree.
 *
 * Units of work are (output, block) pairs: the up to 4096 elements of one block of one output's reduced
 * sequence. A unit's partial result never depends on who computes it, so the pool's threads take any
 * units; outputs of one block are stored at once, otherwise the partials go to the compute layer's
 * scratch memory and a second pass combines each output's blocks by the tree over blocks. Units form a
 * grid: the kept dimensions, then the block dimensions, so that a unit's elements are either one strided
 * run in memory ("run": one reduced dimension, or whole blocks in the innermost one) or addressed through
 * the reduced dimensions ("gather": blocks spanning rows; where the innermost reduced dimension is strided,
 * groups of them are first staged in logical order by a memory-order walk, run_group). A unit's partial
 * comes from:
 *  - the level's vectorised tree (loops_reduce_body.h) for float sums and real products, reading a
 *    contiguous run of the accumulation type directly, anything else through pieces of 256 elements
 *    gathered and converted (by the elementwise cast loops) in L1 buffers;
 *  - the level's 64-units-at-once tree, when units lie side by side in memory (a reduction over an outer
 *    axis, the blocks of a transposed input): float32 (from float32, bfloat16, float16) and float64;
 *  - the rules of kernels/reduce_rules.h element by element otherwise: integer sums (wrapping, any
 *    order), selections (min, max, argmin, argmax: total orders), any / all, and the complex product's
 *    tree (which identity padding would change). */
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/pool.h"
#include "kernels/reduce_rules.h"


#define PIECE 256
#define MAX_GRID (DLX_MAX_NDIM + 2)

/* One grid dimension: extent, input byte stride, output byte stride (kept dimensions), and its weight in
 * the flat output index and in the flat block index. */
typedef struct gdim {
  int64_t ext, in_st, out_st, omul, bmul;
} gdim;

typedef struct red {
  const dlx__red_op *op;
  const dlx__cpu_kernel_set *kern;
  int skd, dkd;
  int64_t isz, asz; /* bytes of an input element and of an accumulated one */
  bool gather;      /* unit elements addressed through the reduced dimensions */
  int64_t stage_g;  /* > 0: gathered blocks go in groups of stage_g through a staging buffer (stage_rows) */
  size_t stage_bytes;
  int64_t run_st;   /* otherwise element k of a unit at its base + k * run_st */
  int ng;
  gdim g[MAX_GRID];
  int vdim;         /* the grid dimension the many-unit kernel runs along, -1 for none */
  int64_t items, per_chunk;
  dlx__red_tree_fn tree;   /* the vectorised tree, or NULL */
  dlx__red_outer_fn outer; /* the many-unit tree, or NULL */
  int64_t outer_w;         /* the units it takes at once */
  size_t state_bytes;      /* its working memory (a multiple of 64), then outer_w result slots */
  bool direct;             /* the tree reads contiguous input runs as they are */
  bool convert;            /* pieces go through conv (S -> A) */
  dlx__cpu_loop conv;
} red;

/* ======================================================================================================
 * A unit's elements, piece by piece (dlx__red_next_fn).
 * ==================================================================================================== */

typedef struct unit {
  const red *r;
  const char *base; /* run: the unit's element 0; gather: the output's first input element */
  int64_t first;    /* the reduced index of the unit's element 0 */
  int64_t len, pos;
  int64_t idx[DLX_MAX_NDIM]; /* gather: the reduced index of element pos */
  _Alignas(64) unsigned char raw[PIECE * 16];
  _Alignas(64) unsigned char acc[PIECE * 16];
} unit;

static void unit_start(unit *u, const red *r, const char *base, int64_t b) {
  u->r = r;
  u->base = base;
  u->first = b * DLX__RED_BLOCK;
  u->len = r->op->nred - u->first < DLX__RED_BLOCK ? r->op->nred - u->first : DLX__RED_BLOCK;
  u->pos = 0;
  if (!r->gather) return;
  int64_t rem = u->first;
  for (int32_t d = r->op->red_ndim - 1; d >= 0; --d) {
    u->idx[d] = rem % r->op->red_shape[d];
    rem /= r->op->red_shape[d];
  }
}

/* m input elements from position pos into raw: a strided run, or runs along the innermost reduced
 * dimension with the index carried into the outer ones. */
static void gather_raw(unit *u, int64_t m) {
  const red *r = u->r;
  const dlx__red_op *op = r->op;
  const size_t size = (size_t)r->isz;
  char *d[2];
  int64_t st[2] = {r->isz, r->run_st};
  if (!r->gather) {
    d[0] = (char *)u->raw;
    d[1] = (char *)(uintptr_t)(u->base + u->pos * r->run_st);
    r->kern->native->copy_any(d, st, m, &size);
    return;
  }
  const int32_t last = op->red_ndim - 1;
  for (int64_t i = 0; i < m;) {
    int64_t off = 0;
    for (int32_t k = 0; k <= last; ++k) off += u->idx[k] * op->red_in[k];
    const int64_t left = op->red_shape[last] - u->idx[last];
    const int64_t cnt = m - i < left ? m - i : left;
    d[0] = (char *)u->raw + i * r->isz;
    d[1] = (char *)(uintptr_t)(u->base + off);
    st[1] = op->red_in[last];
    r->kern->native->copy_any(d, st, cnt, &size);
    i += cnt;
    u->idx[last] += cnt;
    for (int32_t k = last; k > 0 && u->idx[k] == op->red_shape[k]; --k) {
      u->idx[k] = 0;
      ++u->idx[k - 1];
    }
  }
}

static int64_t unit_next(void *ctx, const void **x) {
  unit *u = ctx;
  const red *r = u->r;
  if (u->pos >= u->len) return 0;
  if (r->direct) {
    *x = u->base;
    u->pos = u->len;
    return u->len;
  }
  const int64_t m = u->len - u->pos < PIECE ? u->len - u->pos : PIECE;
  gather_raw(u, m);
  u->pos += m;
  if (!r->convert) {
    *x = u->raw;
    return m;
  }
  char *d[2] = {(char *)u->acc, (char *)u->raw};
  const int64_t st[2] = {r->asz, r->isz};
  r->conv.fn(d, st, m, r->conv.aux);
  *x = u->acc;
  return m;
}

/* ======================================================================================================
 * Partial results by the rules, element by element.
 * ==================================================================================================== */

/* Element i of a piece as a slot (x: accumulated values, or a narrow float's codes for min / max). */
static void piece_slot(const red *r, const void *x, int64_t i, dlx__red_slot *s) {
  memset(s, 0, sizeof *s);
  if (r->op->acc >= DLX_KD_F16) dlx__red_load(r->skd, (const char *)x + i * r->isz, r->op->acc, s);
  else memcpy(s->v.b, (const char *)x + i * r->asz, (size_t)r->asz);
}

/* The pairwise tree (kernels/reduce.h) on slots: a stack of complete subtrees, bit k of *occ saying
 * whether s[k] holds one of 2^k leaves. */
static void stack_push(const red *r, dlx__red_slot *s, uint64_t *occ, dlx__red_slot x) {
  int k = 0;
  for (; *occ >> k & 1u; ++k) {
    dlx__red_combine(r->op->op, r->op->acc, &s[k], &x);
    x = s[k];
    *occ &= ~((uint64_t)1 << k);
  }
  s[k] = x;
  *occ |= (uint64_t)1 << k;
}

static void stack_flush(const red *r, const dlx__red_slot *s, uint64_t occ, dlx__red_slot *out) {
  int k = 0;
  while (!(occ >> k & 1u)) ++k;
  *out = s[k];
  for (++k; k < 64; ++k) {
    if (!(occ >> k & 1u)) continue;
    dlx__red_slot left = s[k];
    dlx__red_combine(r->op->op, r->op->acc, &left, out);
    *out = left;
  }
}

/* The unit's tree on slots: one stack per lane, then the lanes folded in halves (complex products). */
static void slot_tree(const red *r, unit *u, dlx__red_slot *out) {
  dlx__red_slot s[DLX__RED_LANES][DLX__RED_LOG_BLOCK], lane[DLX__RED_LANES];
  uint64_t occ[DLX__RED_LANES] = {0};
  const void *x;
  int64_t p = 0;
  for (int64_t n; (n = unit_next(u, &x)) > 0; p += n)
    for (int64_t i = 0; i < n; ++i) {
      dlx__red_slot e;
      piece_slot(r, x, i, &e);
      stack_push(r, s[(p + i) % DLX__RED_LANES], &occ[(p + i) % DLX__RED_LANES], e);
    }
  const int present = p < DLX__RED_LANES ? (int)p : DLX__RED_LANES;
  for (int j = 0; j < present; ++j) stack_flush(r, s[j], occ[j], &lane[j]);
  for (int h = DLX__RED_LANES / 2; h >= 1; h /= 2)
    for (int k = 0; k < h; ++k)
      if (k + h < present) dlx__red_combine(r->op->op, r->op->acc, &lane[k], &lane[k + h]);
  *out = lane[0];
}

/* Ops whose result does not depend on the order: one pass, combining in element order. */
static void slot_fold(const red *r, unit *u, dlx__red_slot *out) {
  const dlx__red_op *op = r->op;
  const bool arith_int = dlx__red_is_arith(op->op) && (op->acc == DLX_KD_I64 || op->acc == DLX_KD_U64);
  const bool product = dlx__red_is_product(op->op);
  const void *x;
  bool first = true;
  int64_t p = u->first;
  for (int64_t n; (n = unit_next(u, &x)) > 0; p += n) {
    if (arith_int) {
      const uint64_t v = r->kern->reduce->int_sum((const uint64_t *)x, n, product);
      out->v.u[0] = first ? v : product ? out->v.u[0] * v : out->v.u[0] + v;
      first = false;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) {
      dlx__red_slot e;
      piece_slot(r, x, i, &e);
      e.index = p + i;
      if (first) *out = e;
      else dlx__red_combine(op->op, op->acc, out, &e);
      first = false;
    }
  }
}

static void unit_partial(const red *r, unit *u, dlx__red_slot *out) {
  memset(out, 0, sizeof *out);
  if (r->tree != NULL) r->tree(unit_next, u, out);
  else if (dlx__red_is_arith(r->op->op) && r->op->acc >= DLX_KD_F32 && r->op->acc <= DLX_KD_C128) slot_tree(r, u, out);
  else slot_fold(r, u, out);
}

/* ======================================================================================================
 * Staged groups of gathered blocks: a transposed walk read in memory order.
 *
 * Where blocks span rows of the innermost reduced dimension (length L) and that dimension is not the
 * contiguous one (a transposed or permuted input), gathering a block element by element reads one
 * element of a cache line and leaves the line for the next block. Instead, a group of stage_g
 * consecutive blocks of one output is staged: the rows [o0, o1) they span are copied into a buffer in
 * their logical (row-major) order, 16 rows of L side by side at a time, so that every row's run along
 * the contiguous dimension is read whole; then each block's elements are one contiguous run of the
 * buffer and take the run path. Only where the elements come from changes, not which elements a unit
 * holds nor their order: the bits are the gathered path's.
 * ==================================================================================================== */

#define STAGE_ROWS 32 /* rows per group aimed at: two cache lines of float32 along a transposed dimension */

/* n <= 16 columns of 4 side-by-side rows of 4-byte elements (src: element (row 0, column 0); column t at
 * src + t * sl, its 4 rows contiguous) into 4 rows of dst (row i at dst + i * dst_row): a transpose, 4 x 4
 * at a time (dlx__cpu_transpose4x4), moving the same bytes as the scalar copy. */
static void stage_tile4(const char *src, int64_t sl, char *dst, int64_t dst_row, int64_t n) {
  int64_t t = 0;
  for (; t + 4 <= n; t += 4) dlx__cpu_transpose4x4(src + t * sl, sl, dst + t * 4, dst_row);
  for (; t < n; ++t)
    for (int64_t i = 0; i < 4; ++i) memcpy(dst + i * dst_row + t * 4, src + t * sl + i * 4, 4);
}

/* Rows [o0, o1) of the reduced elements from base (the output's element 0) into buf, logical order. */
static void stage_rows(const red *r, const char *base, int64_t o0, int64_t o1, char *buf, int64_t *rowoff) {
  const dlx__red_op *op = r->op;
  const int32_t last = op->red_ndim - 1;
  const int64_t L = op->red_shape[last], sl = op->red_in[last], isz = r->isz;
  int64_t idx[DLX_MAX_NDIM], rem = o0, off = 0;
  for (int32_t d = last - 1; d >= 0; --d) {
    idx[d] = rem % op->red_shape[d];
    rem /= op->red_shape[d];
    off += idx[d] * op->red_in[d];
  }
  for (int64_t o = o0; o < o1; ++o) { /* each row's element 0, the index carried as an odometer */
    rowoff[o - o0] = off;
    for (int32_t d = last - 1; d >= 0; --d) {
      off += op->red_in[d];
      if (++idx[d] < op->red_shape[d]) break;
      off -= idx[d] * op->red_in[d];
      idx[d] = 0;
    }
  }
  const int64_t rows = o1 - o0;
  /* No software prefetch: fetching the next tiles' or the next group's columns ahead (each a 128-byte
   * run on a page of its own) made the transposed 4095 x 4097 sum 15-30% slower, measured; more rows per
   * group (64 to 256: longer runs, a buffer past L2) were slower too. */
  for (int64_t l0 = 0; l0 < L; l0 += 16) { /* 16 columns of every row: 16 runs read side by side */
    const int64_t n = L - l0 < 16 ? L - l0 : 16;
    int64_t o = 0;
    if (isz == 4) /* 4 x 4 tiles where 4 rows lie side by side (the transposed case) */
      for (; o + 4 <= rows && rowoff[o + 1] - rowoff[o] == 4 && rowoff[o + 2] - rowoff[o + 1] == 4 &&
             rowoff[o + 3] - rowoff[o + 2] == 4;
           o += 4)
        stage_tile4(base + rowoff[o] + l0 * sl, sl, buf + (o * L + l0) * 4, L * 4, n);
    for (; o < rows; ++o) {
      const char *src = base + rowoff[o] + l0 * sl;
      char *dst = buf + (o * L + l0) * isz;
      switch (isz) {
        case 1: for (int64_t t = 0; t < n; ++t) memcpy(dst + t, src + t * sl, 1); break;
        case 2: for (int64_t t = 0; t < n; ++t) memcpy(dst + 2 * t, src + t * sl, 2); break;
        case 4: for (int64_t t = 0; t < n; ++t) memcpy(dst + 4 * t, src + t * sl, 4); break;
        case 8: for (int64_t t = 0; t < n; ++t) memcpy(dst + 8 * t, src + t * sl, 8); break;
        default: for (int64_t t = 0; t < n; ++t) memcpy(dst + t * isz, src + t * sl, (size_t)isz); break;
      }
    }
  }
}

static void unit_done(const red *r, int64_t oflat, int64_t bflat, int64_t ooff, dlx__red_slot *s);

/* Blocks [b0, b0 + stage_g) of one output (clipped to its blocks): staged, then each by the run path. */
static void run_group(const red *r, const char *base, int64_t oflat, int64_t b0, int64_t ooff, unit *u, char *buf) {
  const dlx__red_op *op = r->op;
  const int64_t L = op->red_shape[op->red_ndim - 1];
  const int64_t b1 = b0 + r->stage_g < op->nblocks ? b0 + r->stage_g : op->nblocks;
  const int64_t e0 = b0 * DLX__RED_BLOCK, e1 = b1 * DLX__RED_BLOCK < op->nred ? b1 * DLX__RED_BLOCK : op->nred;
  const int64_t o0 = e0 / L, o1 = (e1 - 1) / L + 1;
  int64_t *rowoff = (int64_t *)(void *)(buf + r->stage_bytes);
  stage_rows(r, base, o0, o1, buf, rowoff);
  red run = *r; /* the same reduction, its units now runs of the buffer */
  run.gather = false;
  run.run_st = r->isz;
  run.direct = r->tree != NULL && !r->convert;
  for (int64_t b = b0; b < b1; ++b) {
    dlx__red_slot s;
    unit_start(u, &run, buf + (b * DLX__RED_BLOCK - o0 * L) * r->isz, b);
    unit_partial(&run, u, &s);
    unit_done(r, oflat, b, ooff, &s);
  }
}

/* ======================================================================================================
 * The grid of units, in chunks for the pool.
 * ==================================================================================================== */

/* A unit's result: stored when its output has one block, else kept for the second pass. */
static void unit_done(const red *r, int64_t oflat, int64_t bflat, int64_t ooff, dlx__red_slot *s) {
  const dlx__red_op *op = r->op;
  if (op->nblocks == 1) dlx__red_store(op->op, op->acc, r->dkd, op->nred, s, (unsigned char *)op->out_data + ooff);
  else op->scratch[oflat * op->nblocks + bflat] = *s;
}

/* Item t: one unit, or a tile of up to outer_w units along vdim (with the many-unit kernel's working
 * memory, or unit by unit when there is none). */
static void run_item(const red *r, int64_t t, unit *u, void *state) {
  int64_t ioff = 0, ooff = 0, oflat = 0, bflat = 0, w = 1;
  for (int k = r->ng - 1; k >= 0; --k) {
    const gdim *g = &r->g[k];
    const int64_t ext = k == r->vdim ? (g->ext + r->outer_w - 1) / r->outer_w : g->ext;
    int64_t i = t % ext;
    t /= ext;
    if (k == r->vdim) {
      w = g->ext - i * r->outer_w < r->outer_w ? g->ext - i * r->outer_w : r->outer_w;
      i *= r->outer_w;
    }
    ioff += i * g->in_st;
    ooff += i * g->out_st;
    oflat += i * g->omul;
    bflat += i * g->bmul;
  }
  const char *base = r->op->in_data + ioff;
  if (r->stage_g > 0) {
    run_group(r, base, oflat, bflat, ooff, u, state);
    return;
  }
  if (r->vdim < 0) {
    dlx__red_slot s;
    unit_start(u, r, base, bflat);
    unit_partial(r, u, &s);
    unit_done(r, oflat, bflat, ooff, &s);
    return;
  }
  const gdim *v = &r->g[r->vdim];
  const int64_t len = r->op->nred - bflat * DLX__RED_BLOCK;
  if (state == NULL) {
    for (int64_t j = 0; j < w; ++j) {
      dlx__red_slot one;
      unit_start(u, r, base + j * v->in_st, bflat + j * v->bmul);
      unit_partial(r, u, &one);
      unit_done(r, oflat + j * v->omul, bflat + j * v->bmul, ooff + j * v->out_st, &one);
    }
    return;
  }
  dlx__red_slot *s = (dlx__red_slot *)(void *)((char *)state + r->state_bytes); /* after the kernel's part */
  memset(s, 0, (size_t)w * sizeof *s);
  r->outer(base, len < DLX__RED_BLOCK ? len : DLX__RED_BLOCK, r->run_st, w, s, state);
  for (int64_t j = 0; j < w; ++j) unit_done(r, oflat + j * v->omul, bflat + j * v->bmul, ooff + j * v->out_st, &s[j]);
}

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

static void run_chunk(void *ctx, int64_t chunk) {
  const red *r = ctx;
  unit u;
  /* the many-unit kernel's stacks (too large for a thread's stack); without them, the same bits unit by
   * unit */
  /* or the staging buffer, then its row offsets (at most stage_g * 4096 / 16 + 2 rows of L >= 16); sizes
   * rounded up to the alignment, as C11's aligned_alloc asks (ASan refuses anything else) */
  void *state = NULL;
  if (r->stage_g > 0)
    state = aligned_alloc(64, round64(r->stage_bytes +
                                      (size_t)(r->stage_g * DLX__RED_BLOCK / 16 + 2) * sizeof(int64_t)));
  else if (r->vdim >= 0)
    state = aligned_alloc(64, round64(r->state_bytes + (size_t)r->outer_w * sizeof(dlx__red_slot)));
  const int64_t end = (chunk + 1) * r->per_chunk < r->items ? (chunk + 1) * r->per_chunk : r->items;
  for (int64_t t = chunk * r->per_chunk; t < end; ++t) run_item(r, t, &u, state);
  free(state);
}

/* The second pass: each output's block partials by the tree over blocks. */
static void combine_chunk(void *ctx, int64_t chunk) {
  const red *r = ctx;
  const dlx__red_op *op = r->op;
  const int64_t per = (op->nout + r->items - 1) / r->items;
  for (int64_t o = chunk * per; o < (chunk + 1) * per && o < op->nout; ++o) {
    dlx__red_slot s[64], out;
    uint64_t occ = 0;
    for (int64_t b = 0; b < op->nblocks; ++b) stack_push(r, s, &occ, op->scratch[o * op->nblocks + b]);
    stack_flush(r, s, occ, &out);
    int64_t ooff = 0, rem = o;
    for (int32_t d = op->keep_ndim - 1; d >= 0; --d) {
      ooff += (rem % op->keep_shape[d]) * op->keep_out[d];
      rem /= op->keep_shape[d];
    }
    dlx__red_store(op->op, op->acc, r->dkd, op->nred, &out, (unsigned char *)op->out_data + ooff);
  }
}

static void add_dim(red *r, int64_t ext, int64_t in_st, int64_t out_st, int64_t omul, int64_t bmul) {
  if (ext > 1) r->g[r->ng++] = (gdim){ext, in_st, out_st, omul, bmul};
}

/* Gathered blocks are staged (run_group) where the innermost reduced dimension is strided and rows of it
 * are short enough that STAGE_ROWS of them fit a buffer of L2 size: stage_g blocks cover about that many. */
static void choose_stage(red *r) {
  const dlx__red_op *op = r->op;
  const int64_t L = op->red_shape[op->red_ndim - 1], sl = op->red_in[op->red_ndim - 1];
  const int64_t isz = (int64_t)dlx_dtype_itemsize(op->in);
  r->stage_g = 0;
  if (L < 16 || L * isz > 32768 || sl == isz || sl == -isz) return;
  r->stage_g = (STAGE_ROWS * L + DLX__RED_BLOCK - 1) / DLX__RED_BLOCK;
  /* the rows of stage_g blocks: their elements and a partial row at either end */
  r->stage_bytes = (size_t)((r->stage_g * DLX__RED_BLOCK + 2 * L) * isz + 63) / 64 * 64;
}

/* The grid: kept dimensions, then blocks (dlx__red_op's reduced dimensions decide run or gather). */
static void make_grid(red *r) {
  const dlx__red_op *op = r->op;
  int64_t omul = op->nout;
  r->ng = 0;
  for (int32_t d = 0; d < op->keep_ndim; ++d) {
    omul /= op->keep_shape[d];
    add_dim(r, op->keep_shape[d], op->keep_in[d], op->keep_out[d], omul, 0);
  }
  const int32_t last = op->red_ndim - 1;
  r->gather = false;
  r->stage_g = 0;
  r->run_st = last >= 0 ? op->red_in[last] : 0;
  if (last <= 0) {
    add_dim(r, op->nblocks, DLX__RED_BLOCK * r->run_st, 0, 0, 1);
  } else if (op->red_shape[last] % DLX__RED_BLOCK == 0) { /* whole blocks in each row */
    const int64_t per_row = op->red_shape[last] / DLX__RED_BLOCK;
    int64_t bmul = op->nblocks;
    for (int32_t d = 0; d < last; ++d) {
      bmul /= op->red_shape[d];
      add_dim(r, op->red_shape[d], op->red_in[d], 0, 0, bmul);
    }
    add_dim(r, per_row, DLX__RED_BLOCK * r->run_st, 0, 0, 1);
  } else {
    r->gather = true;
    choose_stage(r);
    if (r->stage_g > 0) add_dim(r, (op->nblocks + r->stage_g - 1) / r->stage_g, 0, 0, 0, r->stage_g);
    else add_dim(r, op->nblocks, 0, 0, 0, 1);
  }
}

/* ======================================================================================================
 * Choosing the kernels.
 * ==================================================================================================== */

static DLDataType acc_dtype(dlx__kd acc) {
  static const DLDataType of[] = {[DLX_KD_BOOL] = DLX_DTYPE_BOOL,     [DLX_KD_I64] = DLX_DTYPE_INT64,
                                  [DLX_KD_U64] = DLX_DTYPE_UINT64,    [DLX_KD_F32] = DLX_DTYPE_FLOAT32,
                                  [DLX_KD_F64] = DLX_DTYPE_FLOAT64,   [DLX_KD_C64] = DLX_DTYPE_COMPLEX64,
                                  [DLX_KD_C128] = DLX_DTYPE_COMPLEX128};
  return of[acc];
}

/* The many-unit kernel and its grid dimension: float sums and products of a run whose units lie side by side. */
static void choose_outer(red *r) {
  const dlx__red_op *op = r->op;
  r->vdim = -1;
  if (!dlx__red_is_arith(op->op) || r->gather || r->run_st == r->isz) return;
  const bool product = op->op == DLX_REDUCE_PROD;
  int which = -1;
  if (op->acc == DLX_KD_F32)
    which = r->skd == DLX_KD_F32 ? 0 : r->skd == DLX_KD_BF16 ? 1 : r->skd == DLX_KD_F16 ? 2 : -1;
  if (op->acc == DLX_KD_F64 && r->skd == DLX_KD_F64) which = 3;
  if (which < 0) return;
  for (int k = r->ng - 1; k >= 0 && r->vdim < 0; --k)
    if (r->g[k].in_st == r->isz) r->vdim = k;
  r->outer = r->kern->reduce->outer[product][which];
  r->outer_w = r->kern->reduce->outer_w[which];
  r->state_bytes = (r->kern->reduce->outer_state + 63) / 64 * 64;
}

static void choose_kernels(red *r) {
  const dlx__red_op *op = r->op;
  r->skd = dlx__kd_of(op->in);
  r->dkd = dlx__kd_of(op->out);
  r->isz = (int64_t)dlx_dtype_itemsize(op->in);
  const bool codes = op->acc >= DLX_KD_F16; /* min / max of a narrow float: its codes */
  r->asz = codes ? r->isz : (int64_t)dlx_dtype_itemsize(acc_dtype(op->acc));
  r->tree = NULL;
  r->outer = NULL;
  const bool product = op->op == DLX_REDUCE_PROD;
  r->convert = !codes && !dlx_dtype_equal(op->in, acc_dtype(op->acc));
  if (dlx__red_is_arith(op->op) && op->acc >= DLX_KD_F32 && op->acc <= DLX_KD_C128)
    r->tree = r->kern->reduce->tree[product][op->acc - DLX_KD_F32];
  if (dlx__red_is_arith(op->op) && op->acc == DLX_KD_F32 && (r->skd == DLX_KD_BF16 || r->skd == DLX_KD_F16)) {
    /* the tree decodes bfloat16 / float16 itself: its pieces are the codes */
    r->tree = r->kern->reduce->tree_narrow[product][r->skd == DLX_KD_F16];
    r->convert = false;
    r->asz = r->isz;
  }
  /* in place only where every element is aligned to its type (a DLPack tensor's data may be at any byte
   * offset): the tree reads typed vectors; elsewhere its pieces are copied out (the same bits) */
  bool aligned = (uintptr_t)op->in_data % (uintptr_t)r->isz == 0;
  for (int k = 0; k < r->ng; ++k) aligned = aligned && r->g[k].in_st % r->isz == 0;
  r->direct = r->tree != NULL && !r->convert && !r->gather && r->run_st == r->isz && aligned;
  if (r->convert) {
    dlx__ew_op cast;
    memset(&cast, 0, sizeof cast);
    cast.kind = DLX_EW_CAST;
    cast.nin = 1;
    cast.dtype[0] = acc_dtype(op->acc);
    cast.dtype[1] = cast.dtype[2] = op->in;
    cast.device = op->device;
    dlx__cpu_select_loop(&cast, &r->conv);
  }
  choose_outer(r);
}

dlx_status dlx__cpu_reduce(const dlx__red_op *op) {
  red r;
  r.op = op;
  r.kern = dlx__cpu_kernels();
  make_grid(&r);
  choose_kernels(&r);
  r.items = 1;
  for (int k = 0; k < r.ng; ++k) r.items *= k == r.vdim ? (r.g[k].ext + r.outer_w - 1) / r.outer_w : r.g[k].ext;
  int64_t chunks = dlx__cpu_chunks(op->nout * op->nred, r.items);
  r.per_chunk = (r.items + chunks - 1) / chunks;
  chunks = (r.items + r.per_chunk - 1) / r.per_chunk;
  if (chunks == 1) run_chunk(&r, 0);
  else dlx__parallel_for(chunks, run_chunk, &r);
  if (op->nblocks == 1) return DLX_OK;
  /* the tree over blocks, in chunks of outputs (items: the chunk count) */
  r.items = dlx__cpu_chunks(op->nout * op->nblocks, op->nout);
  if (r.items == 1) combine_chunk(&r, 0);
  else dlx__parallel_for(r.items, combine_chunk, &r);
  return DLX_OK;
}
