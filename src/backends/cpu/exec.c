/* The CPU backend's executor: a loop plan (dlx_iter) walked in rows or 2-D tiles, split over the
 * thread pool. */
#include <stdatomic.h>

#include "backends/cpu/loops.h"
#include "backends/cpu/pool.h"
#include "core/error_internal.h"


/* Elements an op needs before it is split over threads: below this the wake-up of a worker (a few
 * microseconds) costs more than the work it takes over. Measured with bench/bench_ops.c. */
#define DEFAULT_GRAIN 65536
/* Chunks per thread: whoever is free takes the next, so a worker that wakes late (tens of microseconds)
 * costs at most one chunk's imbalance at the end. 4 per thread left a memory-bound 16M float32 sum on 2
 * threads at 1.3x PyTorch's time (one chunk: 0.3 ms); 64 brought it to 1.0x (bench/bench_reduce.py). A
 * claim is one atomic add, so the extra chunks cost nothing measurable; chunks stay >= DEFAULT_GRAIN. */
#define CHUNKS_PER_THREAD 64
/* Transposed walks go in TILE x TILE tiles, in groups of GROUP x GROUP tiles (256 x 256 elements).
 * 8 rows per tile: operands with a power-of-two row pitch (4096 floats) map every row of a tile to one
 * L1 set, and an 8-way L1 holds 8 of them; the group bounds the pages in use to what the second-level
 * TLB holds. Measured on 4096^2 float32 transposed copy/add (bench/bench_ops.c): 8 x 8 in groups of 32
 * beat 32 x 32 tiles by 1.5-2x and 16 x 16 by ~20%. */
#define TILE 8
#define GROUP 32
/* Where an input is transposed against the output (contiguous along the plan's rows, strided along its
 * inner dimension), its tile is staged instead: each of the tile's columns, a contiguous run of the
 * input, is copied into a row-major L1 buffer, and the loop then runs along whole rows of the tile with
 * that input contiguous, vectorised as on a contiguous plan (a math function element by element costs 3x
 * more, and a loop call per 8 elements dwarfs a cheap op). 32 x 32 tiles in groups of 8 x 8: the same
 * 256 x 256 elements per group as above; a staged column is read whole at once, so the power-of-two
 * pitch that limits direct tiles to 8 rows costs nothing here. At most STAGE_MAX inputs are staged (a
 * buffer each); any other input is read in place. */
#define STILE 32
#define SGROUP 8
#define STAGE_MAX 2
/* the widest element staged: 8 bytes (float64, complex64), so that the buffers take 16 KiB of the
 * calling thread's stack; complex128 inputs take the direct tiles */
#define STAGE_ITEM 8

static _Atomic int64_t grain_override;
int64_t dlx__ops_set_grain(int64_t grain) { return atomic_exchange(&grain_override, grain > 0 ? grain : 0); }

typedef struct exec {
  const dlx_iter *it; /* the plan (the caller's, not copied: it is 4 KiB) */
  dlx__loop_fn fn;
  const void *aux;
  bool tiled;
  int64_t tile, group;      /* TILE and GROUP, or STILE and SGROUP when inputs are staged */
  int nstaged;              /* inputs staged per tile (operands staged[0..nstaged)) */
  int staged[STAGE_MAX];
  const int64_t *itemsize;
  int64_t tiles_r, tiles_c; /* tiles along the two innermost dimensions */
  int64_t tiles_r_padded;   /* tiles_r rounded up to whole groups */
  int64_t units;            /* elements, or tiles when tiled */
  int64_t per_chunk;
} exec;

int64_t dlx__cpu_chunks(int64_t elements, int64_t units) {
  int64_t grain = atomic_load(&grain_override);
  if (grain <= 0) grain = DEFAULT_GRAIN;
  int64_t chunks = elements / grain;
  const int threads = dlx__pool_threads_available();
  /* a few chunks per thread: whoever is free (the caller, when a worker starts late) takes the next */
  if (chunks > (int64_t)threads * CHUNKS_PER_THREAD) chunks = (int64_t)threads * CHUNKS_PER_THREAD;
  if (threads == 1) chunks = 1;
  if (chunks > units) chunks = units;
  return chunks < 1 ? 1 : chunks;
}

/* Elements [begin, end) in the plan's row-major order. */
static void run_elements(const exec *e, int64_t begin, int64_t end) {
  const dlx_iter *it = e->it;
  const int nop = it->nop, nd = it->ndim;
  char *ptr[DLX_ITER_MAX_OPERANDS];
  int64_t inner[DLX_ITER_MAX_OPERANDS];
  if (nd == 0) {
    for (int k = 0; k < nop; ++k) {
      ptr[k] = it->data[k];
      inner[k] = 0;
    }
    e->fn(ptr, inner, 1, e->aux);
    return;
  }
  int64_t idx[DLX_MAX_NDIM];
  int64_t rem = begin;
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = rem % it->shape[d];
    rem /= it->shape[d];
  }
  for (int k = 0; k < nop; ++k) {
    intptr_t off = 0;
    for (int d = 0; d < nd; ++d) off += (intptr_t)(idx[d] * it->strides[k][d]);
    ptr[k] = it->data[k] + off;
    inner[k] = it->strides[k][nd - 1];
  }
  const int64_t width = it->shape[nd - 1];
  int64_t pos = begin;
  for (;;) {
    const int64_t n = width - idx[nd - 1] < end - pos ? width - idx[nd - 1] : end - pos;
    e->fn(ptr, inner, n, e->aux);
    pos += n;
    if (pos >= end) return;
    /* next row: rewind the inner dimension, carry into the outer ones */
    for (int k = 0; k < nop; ++k) ptr[k] -= (intptr_t)(idx[nd - 1] * inner[k]);
    idx[nd - 1] = 0;
    for (int d = nd - 2; d >= 0; --d) {
      for (int k = 0; k < nop; ++k) ptr[k] += (intptr_t)it->strides[k][d];
      if (++idx[d] < it->shape[d]) break;
      for (int k = 0; k < nop; ++k) ptr[k] -= (intptr_t)(idx[d] * it->strides[k][d]);
      idx[d] = 0;
    }
  }
}

/* A tile's staged input: nc columns of nr elements of isz bytes, column c at src + c * cst with its
 * elements contiguous, into the row-major buffer dst (nr rows of nc). 4-byte elements go 4 x 4 at a time
 * (dlx__cpu_transpose4x4), moving the same bytes as the scalar copy. */
static void stage_tile(char *dst, const char *src, int64_t cst, int64_t nr, int64_t nc, int64_t isz) {
  const int64_t drow = nc * isz;
  int64_t c0 = 0;
  if (isz == 4) {
    for (; c0 + 4 <= nc; c0 += 4) {
      int64_t r = 0;
      for (; r + 4 <= nr; r += 4) dlx__cpu_transpose4x4(src + c0 * cst + 4 * r, cst, dst + r * drow + c0 * 4, drow);
      for (; r < nr; ++r)
        for (int64_t c = 0; c < 4; ++c) memcpy(dst + r * drow + (c0 + c) * 4, src + (c0 + c) * cst + 4 * r, 4);
    }
  }
  for (int64_t c = c0; c < nc; ++c) {
    const char *col = src + c * cst;
    char *o = dst + c * isz;
    switch (isz) {
      case 1: for (int64_t r = 0; r < nr; ++r) memcpy(o + r * drow, col + r, 1); break;
      case 2: for (int64_t r = 0; r < nr; ++r) memcpy(o + r * drow, col + 2 * r, 2); break;
      case 4: for (int64_t r = 0; r < nr; ++r) memcpy(o + r * drow, col + 4 * r, 4); break;
      case 8: for (int64_t r = 0; r < nr; ++r) memcpy(o + r * drow, col + 8 * r, 8); break;
      default: for (int64_t r = 0; r < nr; ++r) memcpy(o + r * drow, col + r * isz, (size_t)isz); break;
    }
  }
}

/* Tiles [begin, end): tile x tile blocks of the two innermost dimensions, visited in groups of
 * group x group tiles. A group's lines stay in cache until all of their elements are used, and the pages
 * it touches (group * tile rows of each operand) fit the second-level TLB, which a sweep along a whole
 * row of tiles (thousands of pages for a 4096-wide transpose) would thrash. The grid is padded to whole
 * groups; padding tiles do nothing. Staged inputs (see STILE) are copied into buf first, a tile at a time. */
static void run_tiles(const exec *e, int64_t begin, int64_t end) {
  const dlx_iter *it = e->it;
  const int nop = it->nop, nd = it->ndim;
  const int64_t tile = e->tile, group = e->group;
  const int64_t rows = it->shape[nd - 2], cols = it->shape[nd - 1];
  const int64_t groups_c = (e->tiles_c + group - 1) / group;
  const int64_t per_plane = e->tiles_r_padded * groups_c * group;
  int64_t inner[DLX_ITER_MAX_OPERANDS], outer_st[DLX_ITER_MAX_OPERANDS], step[DLX_ITER_MAX_OPERANDS];
  for (int k = 0; k < nop; ++k) {
    inner[k] = it->strides[k][nd - 1];
    outer_st[k] = it->strides[k][nd - 2];
    step[k] = inner[k];
  }
  /* a staged input's row of the tile is a row of its buffer: contiguous */
  _Alignas(64) unsigned char buf[STAGE_MAX][STILE * STILE * STAGE_ITEM];
  for (int j = 0; j < e->nstaged; ++j) step[e->staged[j]] = e->itemsize[e->staged[j]];
  for (int64_t t = begin; t < end; ++t) {
    int64_t plane = t / per_plane;
    const int64_t in_plane = t % per_plane;
    const int64_t grp = in_plane / (group * group), within = in_plane % (group * group);
    const int64_t tr = (grp / groups_c) * group + within / group, tc = (grp % groups_c) * group + within % group;
    if (tr >= e->tiles_r || tc >= e->tiles_c) continue;
    const int64_t r0 = tr * tile, c0 = tc * tile;
    const int64_t nr = rows - r0 < tile ? rows - r0 : tile, nc = cols - c0 < tile ? cols - c0 : tile;
    char *base[DLX_ITER_MAX_OPERANDS];
    for (int k = 0; k < nop; ++k) base[k] = it->data[k];
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t i = plane % it->shape[d];
      plane /= it->shape[d];
      for (int k = 0; k < nop; ++k) base[k] += (intptr_t)(i * it->strides[k][d]);
    }
    for (int j = 0; j < e->nstaged; ++j) {
      const int k = e->staged[j];
      const int64_t isz = e->itemsize[k];
      stage_tile((char *)buf[j], base[k] + (intptr_t)(r0 * outer_st[k] + c0 * inner[k]), inner[k], nr, nc, isz);
      /* the next tile along the row, usually the next one visited: its columns are runs on pages of their
       * own, which no hardware prefetcher starts on before a miss */
      if (c0 + tile < cols)
        for (int64_t c = 0; c < tile && c0 + tile + c < cols; ++c) {
          const char *col = base[k] + (intptr_t)(r0 * outer_st[k] + (c0 + tile + c) * inner[k]);
          for (int64_t b = 0; b < nr * isz; b += 64) __builtin_prefetch(col + b, 0, 3);
        }
    }
    char *ptr[DLX_ITER_MAX_OPERANDS];
    /* and the next tile's output lines, for writing: 32 rows on pages of their own again (halves the time
     * of a memory-bound op; a math function pays about 5% for it) */
    if (e->nstaged > 0 && c0 + tile < cols)
      for (int64_t r = 0; r < nr; ++r) {
        const char *row = base[0] + (intptr_t)((r0 + r) * outer_st[0] + (c0 + tile) * inner[0]);
        for (int64_t b = 0; b < nc * e->itemsize[0]; b += 64) __builtin_prefetch(row + b, 1, 3);
      }
    for (int64_t r = 0; r < nr; ++r) {
      for (int k = 0; k < nop; ++k) ptr[k] = base[k] + (intptr_t)((r0 + r) * outer_st[k] + c0 * inner[k]);
      for (int j = 0; j < e->nstaged; ++j) ptr[e->staged[j]] = (char *)buf[j] + r * nc * e->itemsize[e->staged[j]];
      e->fn(ptr, step, nc, e->aux);
    }
  }
}

static void exec_chunk(void *ctx, int64_t chunk) {
  const exec *e = ctx;
  const int64_t begin = chunk * e->per_chunk;
  const int64_t end = begin + e->per_chunk < e->units ? begin + e->per_chunk : e->units;
  if (begin >= end) return;
  if (e->tiled) run_tiles(e, begin, end);
  else run_elements(e, begin, end);
}

/* Tiling pays when an operand's short stride is on the second innermost dimension while the plan (led by
 * the output) walks the innermost one: a transposed input or output. */
static bool want_tiles(const dlx_iter *it, const int64_t *itemsize) {
  const int nd = it->ndim;
  if (nd < 2 || it->shape[nd - 1] < TILE / 2 || it->shape[nd - 2] < TILE / 2) return false;
  for (int k = 0; k < it->nop; ++k) {
    const uint64_t si = dlx__abs_u64(it->strides[k][nd - 1]), so = dlx__abs_u64(it->strides[k][nd - 2]);
    if (so != 0 && si > (uint64_t)itemsize[k] && so < si) return true;
  }
  return false;
}

/* The inputs worth staging in a tiled walk: contiguous along the plan's rows, strided along its inner
 * dimension (a transposed input), of at most STAGE_ITEM bytes; at most STAGE_MAX of them. */
static void choose_staged(exec *e) {
  const dlx_iter *it = e->it;
  const int nd = it->ndim;
  e->nstaged = 0;
  for (int k = 1; k < it->nop && e->nstaged < STAGE_MAX; ++k) {
    const int64_t isz = e->itemsize[k];
    const uint64_t si = dlx__abs_u64(it->strides[k][nd - 1]);
    if (isz <= STAGE_ITEM && it->strides[k][nd - 2] == isz && si > (uint64_t)isz) e->staged[e->nstaged++] = k;
  }
}

/* Run fn over a plan (operand 0 the output), splitting it into chunks for the pool's threads. */
void dlx__cpu_run_plan(const dlx_iter *plan, const int64_t *itemsize, dlx__loop_fn fn, const void *aux) {
  exec e;
  e.it = plan;
  e.fn = fn;
  e.aux = aux;
  e.itemsize = itemsize;
  e.nstaged = 0;
  e.tiled = want_tiles(e.it, itemsize);
  if (e.tiled) {
    const int nd = e.it->ndim;
    choose_staged(&e);
    e.tile = e.nstaged > 0 ? STILE : TILE;
    e.group = e.nstaged > 0 ? SGROUP : GROUP;
    e.tiles_r = (e.it->shape[nd - 2] + e.tile - 1) / e.tile;
    e.tiles_c = (e.it->shape[nd - 1] + e.tile - 1) / e.tile;
    e.tiles_r_padded = (e.tiles_r + e.group - 1) / e.group * e.group;
    const int64_t per_plane = e.tiles_r_padded * ((e.tiles_c + e.group - 1) / e.group * e.group);
    e.units = e.it->size / (e.it->shape[nd - 2] * e.it->shape[nd - 1]) * per_plane;
  } else {
    e.units = e.it->size;
  }
  const int64_t chunks = dlx__cpu_chunks(e.it->size, e.units);
  e.per_chunk = (e.units + chunks - 1) / chunks;
  if (chunks == 1) exec_chunk(&e, 0);
  else dlx__parallel_for(chunks, exec_chunk, &e);
}

/* ---- staged loops --------------------------------------------------------------------------------- */

/* Narrow operands compute in float32 ("compute in float32 and round back", in one place): decode inputs to
 * a float buffer block by block, run a core loop, encode the result. Blocks of STAGE_BLOCK elements keep
 * the buffers in L1; the decoders and encoders are whatever level dispatch.c picked. */
#define STAGE_BLOCK 256

void dlx__cpu_staged_loop(char *const *d, const int64_t *st, int64_t n, const void *aux) {
  const dlx__staged_plan *p = aux;
  _Alignas(64) unsigned char buf[4][STAGE_BLOCK * sizeof(double)];
  char *cd[4];
  int64_t cs[4];
  /* A broadcast input (stride 0) is decoded once and handed to the core as a stride-0 scalar, so the
   * core's scalar fast path applies. */
  for (int k = 0; k < p->nin; ++k) {
    if (p->dec[k] != NULL && st[k + 1] == 0) {
      char *dd[2] = {(char *)buf[k + 1], d[k + 1]};
      const int64_t ds[2] = {p->dec_size[k], 0};
      p->dec[k](dd, ds, 1, NULL);
    }
  }
  for (int64_t i0 = 0; i0 < n; i0 += STAGE_BLOCK) {
    const int64_t m = n - i0 < STAGE_BLOCK ? n - i0 : STAGE_BLOCK;
    for (int k = 0; k < p->nin; ++k) {
      char *in = d[k + 1] + i0 * st[k + 1];
      if (p->dec[k] == NULL) {
        cd[k + 1] = in;
        cs[k + 1] = st[k + 1];
      } else if (st[k + 1] == 0) {
        cd[k + 1] = (char *)buf[k + 1];
        cs[k + 1] = 0;
      } else {
        char *dd[2] = {(char *)buf[k + 1], in};
        const int64_t ds[2] = {p->dec_size[k], st[k + 1]};
        p->dec[k](dd, ds, m, NULL);
        cd[k + 1] = (char *)buf[k + 1];
        cs[k + 1] = p->dec_size[k];
      }
    }
    char *out = d[0] + i0 * st[0];
    if (p->enc == NULL) {
      cd[0] = out;
      cs[0] = st[0];
      p->core(cd, cs, m, p->core_aux);
    } else {
      cd[0] = (char *)buf[0];
      cs[0] = p->enc_size;
      p->core(cd, cs, m, p->core_aux);
      char *ed[2] = {out, (char *)buf[0]};
      const int64_t es[2] = {st[0], p->enc_size};
      p->enc(ed, es, m, NULL);
    }
  }
}
